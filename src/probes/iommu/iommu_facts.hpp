#pragma once
// The IOMMU and PCIe ACS between the GPUs and the RDMA NICs (probes/iommu/iommu_probe): what decides
// whether peer-to-peer traffic crosses a switch directly or is sent up to the root complex, where a
// translating IOMMU may fault and drop it. Lists name bridges and GPUs in words, so that a rule of
// another layer (the peer-to-peer proof) can quote them.
#include "core/fact_catalog.hpp"

namespace gd::catalog {

using T = FactType;

inline constexpr FactSpec k_iommu_facts[] = {
    // The IOMMU: /sys/class/iommu, /sys/kernel/iommu_groups, /proc/cmdline.
    FactSpec{"iommu.active", T::boolean,
             "an IOMMU is registered: /sys/class/iommu has entries (dmar* Intel VT-d, ivhd* AMD-Vi) or IOMMU groups exist; "
             "unknown when neither folder is in the root or capture"},
    FactSpec{"iommu.units", T::list, "the IOMMU units of /sys/class/iommu (dmar0, ivhd0, ...); empty when none"},
    FactSpec{"iommu.cmdline_options", T::list,
             "IOMMU and ACS words of /proc/cmdline as written (iommu=pt, intel_iommu=on, amd_iommu=off, iommu.passthrough=1, "
             "iommu.strict=0, pci=noacs, pci=disable_acs_redir=...); empty when none"},
    FactSpec{"iommu.gpu_groups", T::list,
             "one entry per NVIDIA GPU: '0000:18:00.0 group 12 DMA-FQ' (its IOMMU group and the group's default domain "
             "type, /sys/kernel/iommu_groups/N/type), or '0000:18:00.0 no IOMMU group'"},
    FactSpec{"iommu.gpu_domain_types", T::list,
             "distinct domain types of the GPUs' groups: identity (passthrough), DMA or DMA-FQ (translated), unmanaged "
             "(VFIO), blocked; empty when no GPU is in a group"},
    FactSpec{"iommu.translating_gpus", T::list,
             "bus ids of the GPUs whose IOMMU group translates their DMA (type DMA or DMA-FQ): their peer traffic that "
             "reaches the root complex is translated, and faults where no mapping exists"},
    FactSpec{"iommu.translating_gpu_count", T::integer, "number of iommu.translating_gpus"},
    FactSpec{"iommu.nic_groups", T::list,
             "one entry per RDMA device of /sys/class/infiniband: 'mlx5_0 0000:3b:00.0 group 30 identity'"},
    // Faults, from the kernel log's IOMMU fault lines (klog.iommu_fault_lines): unknown where the log is.
    FactSpec{"iommu.fault_lines", T::list,
             "the newest IOMMU fault lines of this boot that name a GPU or an RDMA NIC (at most 10), as printed"},
    FactSpec{"iommu.faulted_gpus", T::list, "bus ids of the GPUs that IOMMU fault lines name"},
    FactSpec{"iommu.faulted_peers", T::list,
             "the GPUs and RDMA NICs IOMMU fault lines name: '0000:18:00.0 (GPU)', '0000:3b:00.0 (RDMA NIC mlx5_0)'"},
    FactSpec{"iommu.faulted_peer_count", T::integer, "number of iommu.faulted_peers"},
    FactSpec{"iommu.faulted_devices", T::list,
             "every device IOMMU fault lines name: '0000:18:00.0 (GPU)', '0000:3b:00.0 (RDMA NIC mlx5_0)', '41:00.0' (other; "
             "Intel's lines give no PCI domain)"},
    // PCIe ACS on the bridges between two GPUs and between a GPU and an RDMA NIC.
    FactSpec{"acs.bridges_checked", T::integer,
             "bridges on the PCI paths between two GPUs or a GPU and an RDMA NIC whose ACS was looked at (each once)"},
    FactSpec{"acs.bridges", T::list,
             "each bridge checked and its ACS control register as lspci spells it: '0000:17:00.0 ACSCtl: SrcValid+ TransBlk- "
             "ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-', or '0000:00:01.0 no ACS capability'"},
    FactSpec{"acs.readable", T::boolean,
             "the ACS capability of every bridge checked could be read (config space past 256 bytes needs root); absent "
             "when no bridge needed checking"},
    FactSpec{"acs.unreadable_bridges", T::list,
             "bridges whose ACS state is unknown, with why: '0000:17:00.0: needs root (only 64 bytes of "
             "/sys/bus/pci/devices/0000:17:00.0/config readable)'"},
    FactSpec{"acs.redirect_bridges", T::list,
             "bridges between two GPUs with a redirect bit set (P2P Request or Completion Redirect, or Egress Control, as the "
             "kernel's pci_bridge_has_acs_redir() tests): '0000:17:00.0 (ReqRedir+ CmpltRedir+) between GPUs 0000:18:00.0 and "
             "0000:19:00.0'; unknown when a bridge could not be read and none found redirects"},
    FactSpec{"acs.redirect_bridge_count", T::integer, "number of acs.redirect_bridges"},
    FactSpec{"acs.gpu_nic_redirect_bridges", T::list,
             "bridges between a GPU and an RDMA NIC with a redirect bit set: '0000:17:00.0 (ReqRedir+) between GPU "
             "0000:18:00.0 and mlx5_0 (0000:1a:00.0)'"},
    FactSpec{"acs.gpu_pair_paths", T::list,
             "per pair of GPUs (at most 64 pairs), the bridges between them and which redirect: '0000:18:00.0 and "
             "0000:19:00.0: 0000:16:00.0, 0000:17:00.0 (ReqRedir+ CmpltRedir+), 0000:17:01.0' or '...: through the root "
             "complex: ...' or '...: no bridge between them'"},
};

constexpr std::span<const FactSpec> iommu_facts() { return k_iommu_facts; }

}  // namespace gd::catalog
