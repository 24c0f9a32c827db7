#pragma once
// NVIDIA device nodes under /dev and the majors in /proc/devices (probes/devices/device_nodes).
#include "core/fact_catalog.hpp"

namespace gd::catalog {

using T = FactType;

// Node states: ok, missing, not-char, wrong-major (the node's major is not the one /proc/devices
// gives its driver), eperm (open refused by the device cgroup), eacces (permissions or an LSM),
// enxio / enodev (no driver behind that number), open-failed (another errno).
inline constexpr FactSpec k_device_facts[] = {
    // /proc/devices.
    FactSpec{"proc.devices.nvidia_major", T::integer,
             "major of the nvidia/nvidiactl character driver in /proc/devices (195; absent when the module is not loaded)"},
    FactSpec{"proc.devices.uvm_major", T::integer,
             "major of nvidia-uvm in /proc/devices (dynamic; absent when nvidia_uvm is not loaded)"},
    FactSpec{"proc.devices.caps_major", T::integer, "major of nvidia-caps in /proc/devices (dynamic)"},
    // The fixed nodes.
    FactSpec{"dev.nvidiactl.state", T::string, "state of /dev/nvidiactl: ok, missing, not-char, wrong-major, eperm, eacces, enxio, enodev, open-failed; unopened under --root (a character device with the driver's major, not opened)"},
    FactSpec{"dev.nvidiactl.device", T::string, "major:minor of /dev/nvidiactl (195:255 expected)"},
    FactSpec{"dev.uvm.state", T::string, "state of /dev/nvidia-uvm (same values as dev.nvidiactl.state)"},
    FactSpec{"dev.uvm.device", T::string, "major:minor of /dev/nvidia-uvm"},
    FactSpec{"dev.uvm.major", T::integer, "major of the /dev/nvidia-uvm node (compare proc.devices.uvm_major)"},
    FactSpec{"dev.uvm_tools.state", T::string, "state of /dev/nvidia-uvm-tools"},
    FactSpec{"dev.uvm_tools.device", T::string, "major:minor of /dev/nvidia-uvm-tools"},
    FactSpec{"dev.modeset.state", T::string, "state of /dev/nvidia-modeset (not needed by CUDA)"},
    FactSpec{"dev.modeset.device", T::string, "major:minor of /dev/nvidia-modeset"},
    // One node per GPU.
    FactSpec{"dev.gpu_count", T::integer, "GPUs the driver lists in /proc/driver/nvidia/gpus (in a container: the GPUs given to it)"},
    FactSpec{"dev.gpu_uuids", T::list, "GPU UUIDs from /proc/driver/nvidia/gpus/*/information"},
    FactSpec{"dev.gpu_nodes", T::list, "/dev/nvidiaN nodes present for the driver's GPUs ('/dev/nvidia0 195:0')"},
    FactSpec{"dev.gpu_nodes_missing", T::list, "/dev/nvidiaN nodes that a GPU's Device Minor calls for but that do not exist"},
    FactSpec{"dev.gpu_nodes_invalid", T::list, "/dev/nvidiaN nodes that are not character devices or have the wrong major ('/dev/nvidia0 wrong-major 1:3')"},
    FactSpec{"dev.gpu_nodes_denied", T::list, "/dev/nvidiaN nodes whose open failed, with the errno ('/dev/nvidia0 EPERM')"},
    FactSpec{"dev.gpu_nodes_usable", T::integer,
             "/dev/nvidiaN nodes of the driver's GPUs that this process opened (0: no GPU is reachable through its node)"},
    // Summaries over every node.
    FactSpec{"dev.nodes", T::list, "every NVIDIA node checked: 'path type major:minor mode uid:gid state'"},
    FactSpec{"dev.eperm_nodes", T::list, "nodes whose open failed with EPERM (device cgroup): 'path major:minor'"},
    FactSpec{"dev.eacces_nodes", T::list, "nodes whose open failed with EACCES: 'path mode uid:gid (group name) and whether the mode denies this user'"},
    FactSpec{"dev.nvidia_nodes_present", T::boolean, "/dev holds at least one nvidia* entry"},
    FactSpec{"dev.caps_nodes", T::list, "/dev/nvidia-caps/* nodes: 'path major:minor mode' (MIG capabilities)"},
    FactSpec{"dev.dxg.present", T::boolean, "/dev/dxg exists: the WSL2 GPU paravirtualisation device"},
    FactSpec{"dev.char_links_missing", T::list,
             "NVIDIA nodes without a /dev/char/MAJ:MIN link (runc with the systemd cgroup driver needs them on the host)"},
};

/// The section, as core/all_layers.hpp names it.
constexpr std::span<const FactSpec> device_facts() { return k_device_facts; }

}  // namespace gd::catalog
