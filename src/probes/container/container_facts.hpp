#pragma once
// cgroups, container runtime, NVIDIA container variables, hypervisor (probes/container/containers).
#include "core/fact_catalog.hpp"

namespace gd::catalog {

using T = FactType;

inline constexpr FactSpec k_container_facts[] = {
    // Pre-flight (--target-gpu with --root IMAGE): where the image's variables came from.
    FactSpec{"target.image_config", T::string,
             "pre-flight: the image configuration its variables and PATH were read from (--image-config, or the "
             "config.json beside a bundle's rootfs); absent for an exported tree, whose PATH is not known"},
    // cgroups.
    FactSpec{"cgroup.version", T::string, "cgroup hierarchy in use: v1, v2 or hybrid (systemd's v1 controllers plus a v2 mount)"},
    FactSpec{"cgroup.path", T::string, "this process's cgroup (the v2 path, or the v1 devices controller's)"},
    FactSpec{"cgroup.devices_list", T::list, "lines of the v1 devices controller's devices.list ('c 195:* rwm'); absent on v2"},
    FactSpec{"cgroup.devices_list_denies", T::list,
             "NVIDIA nodes that the v1 devices.list does not allow read-write ('/dev/nvidia-uvm 238:0'); absent on v2"},
    // The container runtime.
    FactSpec{"container.runtime", T::string,
             "docker, podman, kubernetes, containerd, lxc, systemd-nspawn, wsl2 or none, from the runtime's traces"},
    FactSpec{"container.runtime_evidence", T::string, "the trace that named the runtime ('/.dockerenv exists')"},
    FactSpec{"container.in_container", T::boolean, "this process runs in a container (WSL2 counts as a VM, not a container)"},
    // The NVIDIA container toolkit's variables, as the container sees them.
    FactSpec{"env.nvidia_visible_devices", T::string, "NVIDIA_VISIBLE_DEVICES (absent when unset)"},
    FactSpec{"env.nvidia_driver_capabilities", T::string, "NVIDIA_DRIVER_CAPABILITIES (absent when unset)"},
    FactSpec{"env.nvidia_require_cuda", T::string, "NVIDIA_REQUIRE_CUDA (absent when unset)"},
    FactSpec{"env.nvidia_disable_require", T::string, "NVIDIA_DISABLE_REQUIRE (absent when unset)"},
    FactSpec{"container.missing_driver_capabilities", T::list,
             "compute and/or utility when NVIDIA_DRIVER_CAPABILITIES leaves them out (empty when unset, empty or 'all')"},
    FactSpec{"container.driver_cuda_version", T::version,
             "CUDA version the loaded kernel module's branch reports (table of knowledge §1.1/§1.2; the helper's cuDriverGetVersion comes later)"},
    FactSpec{"container.require_cuda_unmet", T::string,
             "the NVIDIA_REQUIRE_CUDA term the driver does not meet ('cuda>=13.0'); absent when met or unset"},
    // CUDA_VISIBLE_DEVICES checked against the GPUs the driver lists (dev.gpu_count, dev.gpu_uuids).
    FactSpec{"container.cuda_visible_devices_malformed", T::string,
             "first CUDA_VISIBLE_DEVICES entry that is not an index or a GPU-/MIG- UUID, or is repeated; absent when all are well formed"},
    FactSpec{"container.cuda_visible_devices_absent", T::string,
             "first CUDA_VISIBLE_DEVICES entry naming a GPU the driver does not list (index >= dev.gpu_count, unknown GPU- UUID; MIG- not checked)"},
    // Virtual machines.
    FactSpec{"virt.is_vm", T::boolean, "runs in a virtual machine (CPU 'hypervisor' flag or a hypervisor's DMI vendor)"},
    FactSpec{"virt.hypervisor", T::string, "kvm, qemu, vmware, xen, amazon, google, microsoft, oracle, ... ; 'unknown' in an unnamed VM; 'none'"},
    FactSpec{"virt.wsl2", T::boolean, "the kernel is WSL2's (release or /proc/version says microsoft-standard / WSL2)"},
    FactSpec{"virt.dmi_product", T::string, "/sys/class/dmi/id/product_name"},
    FactSpec{"virt.dmi_vendor", T::string, "/sys/class/dmi/id/sys_vendor"},
};

/// The section, as core/all_layers.hpp names it.
constexpr std::span<const FactSpec> container_facts() { return k_container_facts; }

}  // namespace gd::catalog
