#pragma once
// Facts about the NVIDIA kernel module (probes/driver/nvidia_module and the files it calls, and
// probes/cross_checks/driver_consistency for the comparison with the user-space driver).
#include "core/fact_catalog.hpp"

namespace gd::catalog {

using T = FactType;

inline constexpr FactSpec k_driver_facts[] = {
    // Pre-flight (--target-driver): the driver an image is checked for; absent in any other run.
    FactSpec{"target.driver", T::version, "pre-flight: the driver version the image is checked for (--target-driver)"},
    // The loaded module (/proc/driver/nvidia, /sys/module/nvidia).
    FactSpec{"kmod.nvidia.loaded", T::boolean, "/proc/driver/nvidia exists: the nvidia kernel module is loaded"},
    FactSpec{"kmod.nvidia.version", T::version, "version of the loaded nvidia module (/proc/driver/nvidia/version)"},
    FactSpec{"kmod.nvidia.flavor", T::string, "'open' or 'proprietary' kernel module (from the NVRM version line)"},
    FactSpec{"kmod.nvidia.sysfs_version", T::version, "/sys/module/nvidia/version of the loaded module"},
    FactSpec{"kmod.nvidia.params.enable_gpu_firmware", T::integer,
             "EnableGpuFirmware from /proc/driver/nvidia/params (low nibble: 0 off, 1 on, 2 default; 0x10 allows "
             "falling back to running without GSP firmware; 18 = default)"},
    FactSpec{"kmod.nvidia.gpu_count", T::integer, "GPUs the loaded module lists under /proc/driver/nvidia/gpus"},
    FactSpec{"kmod.nvidia.gpus", T::list, "those GPUs as '<bus> <model>'"},
    FactSpec{"kmod.nvidia.gpu_firmware_versions", T::list,
             "'GPU Firmware' version of each GPU that shows one (GSP firmware running on it)"},
    FactSpec{"kmod.nvidia.gpu_firmware_missing", T::list,
             "bus ids of the GPUs whose information shows no GPU Firmware version (missing or N/A)"},
    FactSpec{"kmod.nvidia.device_minors", T::list, "'Device Minor' of each GPU (N of /dev/nvidiaN)"},
    FactSpec{"kmod.nvidia.excluded_gpus", T::list, "bus ids of GPUs with 'GPU Excluded: Yes' (NVreg_ExcludedGpus)"},
    // The loaded module (or, when none is loaded, the one on disk) against the GPU table
    // (probes/shared/gpu_support): a GPU bound to nvidia or listed by it is supported by it.
    FactSpec{"kmod.nvidia.gpus_too_new", T::list,
             "GPUs the nvidia driver does not hold (not bound to it, not listed by it, not on vfio-pci) whose first "
             "supporting release is newer than the loaded module (not loaded: the one on disk), as "
             "'<bus> 10de:<id> <chip> (first supported by <version>)'"},
    FactSpec{"kmod.nvidia.needed_version", T::version, "the newest first supporting release among those GPUs"},
    FactSpec{"kmod.nvidia.needed_branch", T::integer, "its branch (major number)"},
    // Other modules (/proc/modules).
    FactSpec{"kmod.nvidia_uvm.loaded", T::boolean, "nvidia_uvm is loaded (CUDA needs it: /dev/nvidia-uvm)"},
    FactSpec{"kmod.nvidia_modeset.loaded", T::boolean, "nvidia_modeset is loaded"},
    FactSpec{"kmod.nvidia_drm.loaded", T::boolean, "nvidia_drm is loaded"},
    FactSpec{"kmod.nvidia_peermem.loaded", T::boolean, "nvidia_peermem is loaded (GPUDirect RDMA)"},
    FactSpec{"kmod.nouveau.loaded", T::boolean, "the nouveau driver is loaded"},
    // The module files installed for the running kernel (/lib/modules/<release>).
    FactSpec{"kmod.nvidia.disk_files", T::list, "every nvidia.ko* found for the running kernel, with its version"},
    FactSpec{"kmod.nvidia.disk_path", T::string, "the nvidia.ko modprobe would load (first in depmod's search order)"},
    FactSpec{"kmod.nvidia.disk_version", T::version, "version= in that file's .modinfo"},
    FactSpec{"kmod.nvidia.disk_license", T::string, "license= in that file's .modinfo ('Dual MIT/GPL' open, 'NVIDIA')"},
    FactSpec{"kmod.nvidia.disk_flavor", T::string, "'open' or 'proprietary', from that license"},
    FactSpec{"kmod.nvidia.disk_vermagic", T::string,
             "vermagic= in that file's .modinfo (the kernel release it was built for)"},
    FactSpec{"kmod.nvidia.disk_signed", T::boolean, "that file ends with the kernel's module signature marker"},
    FactSpec{"kmod.nvidia.disk_version_matches", T::boolean,
             "the nvidia.ko on disk has the loaded module's version (false: a reboot is pending)"},
    FactSpec{"kmod.nvidia.built_for_running_kernel", T::boolean,
             "an nvidia.ko exists for the running kernel (or the module is loaded)"},
    FactSpec{"kmod.kernel_headers_installed", T::boolean, "/lib/modules/<release>/build exists (DKMS needs it)"},
    FactSpec{"kmod.nvidia.dkms_modules", T::list, "nvidia modules registered with DKMS as '<module>/<version>'"},
    // Compared with the user-space driver after every probe ran (probes/cross_checks/driver_consistency).
    FactSpec{"kmod.nvidia.userspace_mismatch", T::list,
             "user-space driver libraries whose version differs from the loaded module, as "
             "'<library> <version> (<path>)'"},
    // modprobe configuration and the kernel command line.
    FactSpec{"modprobe.nvidia_blacklisted", T::boolean,
             "nvidia is blacklisted (modprobe.d blacklist, 'install nvidia /bin/false', 'alias nvidia off', or "
             "the kernel command line)"},
    FactSpec{"modprobe.nouveau_blacklisted", T::boolean, "nouveau is blacklisted the same ways"},
    FactSpec{"modprobe.blacklist_entries", T::list, "'<module> <how> <file:line>' for the nvidia modules and nouveau"},
    FactSpec{"modprobe.nvidia_options", T::list, "'options nvidia ...' lines as '<options> (<file:line>)'"},
    // Firmware platform.
    FactSpec{"secureboot.enabled", T::boolean, "UEFI Secure Boot is on (efivarfs SecureBoot variable)"},
    FactSpec{"secureboot.module_sig_enforced", T::boolean,
             "the kernel refuses unsigned modules: /sys/module/module/parameters/sig_enforce is Y, or "
             "/sys/kernel/security/lockdown is in integrity or confidentiality mode (examined only when Secure Boot "
             "is on)"},
};

/// The section, as core/all_layers.hpp names it.
constexpr std::span<const FactSpec> driver_facts() { return k_driver_facts; }

}  // namespace gd::catalog
