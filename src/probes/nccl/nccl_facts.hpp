#pragma once
// NCCL as the stack would load it (probes/nccl/nccl_probe): every libnccl copy the Python
// environment and the loader can reach, with versions read from files (a wheel's METADATA, the
// real file's name, or the version string NCCL compiles into the library), the NCCL_* variables
// checked against the host's interfaces, HCAs and files, and the routes NCCL's bootstrap may meet.
// Nothing is loaded: no library is mapped, no NCCL call is made.
#include "core/fact_catalog.hpp"

namespace gd::catalog {

using T = FactType;

inline constexpr FactSpec k_nccl_facts[] = {
    // The copies
    FactSpec{"nccl.libraries", T::list,
             "every libnccl copy found: 'version origin path', origin one of 'nvidia-nccl-cu12 wheel', 'torch's "
             "own copy', 'system (ld.so.cache)' (how the loader reaches it); 'unknown' for a version no file "
             "tells, with why ('2.27.3 nvidia-nccl-cu12 wheel /venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2')"},
    FactSpec{"nccl.count", T::integer, "how many libnccl copies nccl.libraries holds (0: NCCL not installed)"},
    FactSpec{"nccl.versions", T::list, "the distinct versions of those copies, oldest first"},
    FactSpec{"nccl.version", T::version,
             "the NCCL version torch would load: torch's own copy in torch/lib, else the nvidia-nccl wheel of "
             "torch's environment (torch's libraries name it), else the loader's libnccl.so.2; without torch, "
             "the only copy. Unknown when it cannot be told (LD_LIBRARY_PATH may put another copy first)"},
    FactSpec{"nccl.loaded_copy", T::string, "the copy nccl.version is of, as in nccl.libraries"},
    // Against the GPUs (probes/nccl/nccl_gpu_minimums)
    FactSpec{"nccl.too_old_for_gpus", T::list,
             "GPUs for which nccl.version is below the first NCCL known to work on their architecture: "
             "'GPU 0 sm_120 (Blackwell) needs NCCL >= 2.26.2 (NVIDIA/nccl-tests#287)'; empty when none"},
    // The variables, against the host (probes/nccl/nccl_env_check)
    FactSpec{"nccl.net.interfaces", T::list,
             "network interfaces in /sys/class/net with their state: 'eth0 up', 'ib0 down' (operstate; "
             "'unknown' operstate is up when the interface's flags have IFF_UP)"},
    FactSpec{"nccl.socket_ifname.unmatched", T::list,
             "NCCL_SOCKET_IFNAME entries (it selects by prefix, '=' exact) that match no interface that is up: "
             "'eth1: no such interface', 'ib0: down'; empty when every entry matches one (or it selects by "
             "exclusion, '^'); absent when NCCL_SOCKET_IFNAME is unset"},
    FactSpec{"nccl.socket_ifname.matched", T::list, "the interfaces NCCL_SOCKET_IFNAME selects, with their state ('eth0 up')"},
    FactSpec{"nccl.socket_ifname.usable_count", T::integer,
             "how many interfaces NCCL_SOCKET_IFNAME selects that are up: NCCL needs one (absent when it is unset)"},
    FactSpec{"nccl.socket_ifname.set_in", T::string,
             "where NCCL takes NCCL_SOCKET_IFNAME from: 'the environment', or the configuration file that sets it "
             "('/etc/nccl.conf', probes/environment/nccl_conf); absent when it is unset"},
    FactSpec{"nccl.ib_hca.set_in", T::string, "where NCCL takes NCCL_IB_HCA from, the same way"},
    FactSpec{"nccl.topo_file.set_in", T::string, "where NCCL takes NCCL_TOPO_FILE from, the same way"},
    FactSpec{"nccl.ib_hca.unmatched", T::list,
             "NCCL_IB_HCA entries (prefix, '=' exact, ':port' ignored) that match no device in /sys/class/infiniband; "
             "absent when NCCL_IB_HCA is unset or excludes ('^')"},
    FactSpec{"nccl.ib_hca.down_ports", T::list,
             "HCA ports NCCL_IB_HCA names (an entry that is the device's whole name, with that ':port' or none) that are "
             "not ACTIVE and LinkUp, from rdma.down_port_ids: 'mlx5_3:1'; NCCL skips them. A prefix that only selects "
             "devices ('mlx5') names no port. Absent when NCCL_IB_HCA is unset or excludes ('^')"},
    FactSpec{"nccl.transports_disabled", T::list,
             "NCCL_P2P_DISABLE, NCCL_SHM_DISABLE, NCCL_IB_DISABLE set to 1, NCCL_NVLS_ENABLE=0 and NCCL_P2P_LEVEL, "
             "each with what it costs (and ' [set in /etc/nccl.conf]' when a configuration file sets it): 'NCCL_P2P_DISABLE=1 (GPUs of this node exchange data through host memory "
             "instead of NVLink or PCIe peer-to-peer)'; empty when none"},
    FactSpec{"nccl.topo_file.problem", T::string,
             "why the NCCL_TOPO_FILE file cannot be read ('/etc/nccl/topo.xml: no such file'); absent when the "
             "variable is unset or the file is a readable regular file"},
    FactSpec{"nccl.routes.duplicates", T::list,
             "IPv4 subnets that /proc/net/route reaches through more than one interface, one of them an interface "
             "NCCL may use (NCCL_SOCKET_IFNAME's, else all but docker* and lo*): '10.0.0.0/255.255.255.0 via eth0, "
             "eth1'; empty when none. The main routing table only (policy routing, ip rule, is in no file); without "
             "NCCL_SOCKET_IFNAME a subnet shared only by RDMA netdevs (RoCE rails, IPoIB: /sys/class/net/<if>/device/"
             "infiniband exists) is left out"},
};

constexpr std::span<const FactSpec> nccl_facts() { return k_nccl_facts; }

}  // namespace gd::catalog
