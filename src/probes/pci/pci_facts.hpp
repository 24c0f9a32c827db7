#pragma once
// PCI functions of vendor 0x10de and what their device ids mean (probes/pci/pci, probes/shared/gpu_table).
#include "core/fact_catalog.hpp"

namespace gd::catalog {

using T = FactType;

inline constexpr FactSpec k_pci_facts[] = {
    // What /sys/bus/pci/devices holds.
    // Pre-flight (--target-gpu): the GPU an image is checked for; absent in any other run.
    FactSpec{"target.gpu", T::string, "pre-flight: the GPU the image is checked for (--target-gpu), e.g. 'H200 SXM 141GB (10de:2335, GH100, Hopper, cc 9.0)'"},
    FactSpec{"pci.nvidia_gpu_count", T::integer,
             "NVIDIA display-class functions (PCI class 0x03xx, vendor 0x10de) under /sys/bus/pci/devices; 0 = none"},
    FactSpec{"pci.nvswitch_count", T::integer, "NVIDIA NVSwitch functions (PCI class 0x0680, vendor 0x10de)"},
    FactSpec{"pci.gpus", T::list,
             "one line per GPU: '0000:01:00.0 10de:2b85 GB202 Blackwell cc 12.0 driver=nvidia'"},
    FactSpec{"pci.nvswitches", T::list, "one line per NVSwitch: '0000:05:00.0 10de:22a3 driver=nvidia'"},
    // Per GPU, numbered in bus order (pci.gpu.0 is the lowest bus id).
    FactSpec{"pci.gpu.*.bus_id", T::string, "PCI address of the GPU (0000:01:00.0)"},
    FactSpec{"pci.gpu.*.device_id", T::string, "PCI device id, four hex digits (2b85)"},
    FactSpec{"pci.gpu.*.class", T::string, "PCI class code, six hex digits (030000 VGA, 030200 3D controller)"},
    FactSpec{"pci.gpu.*.subsystem_vendor", T::string, "PCI subsystem vendor id, four hex digits (the board maker)"},
    FactSpec{"pci.gpu.*.subsystem_device", T::string, "PCI subsystem device id, four hex digits (the board)"},
    FactSpec{"pci.gpu.*.driver", T::string, "kernel driver bound to the function: nvidia, nouveau, vfio-pci, ... or none"},
    FactSpec{"pci.gpu.*.chip", T::string, "GPU chip for the device id (GB202, GH100); unknown when gpudoctor's table lacks it"},
    FactSpec{"pci.gpu.*.architecture", T::string,
             "Maxwell, Pascal, Volta, Turing, Ampere, Ada, Hopper, Blackwell, pre-Turing or unknown"},
    FactSpec{"pci.gpu.*.compute_capability", T::version, "CUDA compute capability of the chip (12.0)"},
    FactSpec{"pci.gpu.*.gsp_firmware_file", T::string,
             "GSP firmware file the driver loads for this GPU (gsp_tu10x.bin, gsp_ga10x.bin); absent for pre-Turing"},
    FactSpec{"pci.gpu.*.min_driver_version", T::version,
             "oldest driver release that can support this GPU (a lower bound); absent when none is recorded"},
    FactSpec{"pci.gpu.*.link_speed", T::string, "current PCIe link speed as the kernel prints it (32.0 GT/s PCIe)"},
    FactSpec{"pci.gpu.*.link_width", T::integer, "current PCIe link width (lanes)"},
    FactSpec{"pci.gpu.*.max_link_speed", T::string, "maximum PCIe link speed of the device"},
    FactSpec{"pci.gpu.*.max_link_width", T::integer, "maximum PCIe link width of the device"},
    FactSpec{"pci.gpu.*.numa_node", T::integer, "NUMA node of the device (-1 = none)"},
    FactSpec{"pci.gpu.*.iommu_group", T::integer, "IOMMU group number; absent without an IOMMU"},
    // Over all GPUs: what the rules ask.
    FactSpec{"pci.architectures", T::list, "distinct architectures of the GPUs, in bus order"},
    FactSpec{"pci.drivers_bound", T::list, "distinct kernel drivers bound to the GPUs ('none' for an unbound one)"},
    FactSpec{"pci.any_blackwell", T::boolean, "some GPU is a Blackwell (needs the open kernel module)"},
    FactSpec{"pci.any_pre_turing", T::boolean, "some GPU is Maxwell, Pascal, Volta or older (no GSP: proprietary module only)"},
    FactSpec{"pci.any_grace_hopper", T::boolean, "some GPU is the Hopper of a Grace Hopper superchip (GH200)"},
    // The same over the GPUs this host's nvidia driver is meant to drive: not those bound to a
    // passthrough driver (vfio-pci, nvgrace-gpu-vfio-pci, pci-stub) for a virtual machine, and
    // not those nouveau holds while nvidia holds other GPUs (a separate display card).
    FactSpec{"pci.host_any_blackwell", T::boolean, "some GPU for the host's nvidia driver is a Blackwell"},
    FactSpec{"pci.host_any_pre_turing", T::boolean,
             "some GPU for the host's nvidia driver is Maxwell, Pascal, Volta or older"},
    FactSpec{"pci.host_any_grace_hopper", T::boolean, "some GPU for the host's nvidia driver is the Hopper of a GH200"},
    FactSpec{"pci.gsp_firmware_files", T::list, "distinct GSP firmware files the GPUs need"},
    FactSpec{"pci.min_driver_version", T::version,
             "first driver release that supports every GPU found (the newest of their first releases, GPU table); "
             "absent when no GPU has one"},
    FactSpec{"pci.tegra_soc", T::boolean,
             "/proc/device-tree/compatible names an NVIDIA Tegra SoC (Jetson): its GPU is not a PCI device"},
    FactSpec{"pci.min_driver_branch", T::integer, "branch (major) of pci.min_driver_version; 0 when no GPU has one"},
};

/// The section, as core/all_layers.hpp names it.
constexpr std::span<const FactSpec> pci_facts() { return k_pci_facts; }

}  // namespace gd::catalog
