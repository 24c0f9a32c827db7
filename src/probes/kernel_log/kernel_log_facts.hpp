#pragma once
// NVIDIA driver messages in the kernel log (probes/kernel_log/kernel_log). When no log can be read, or
// only one that is not trusted to be the kernel's, every klog.* fact is unknown with the reason: an
// unread log is never a clean one, and a forgeable one never an Xid.
#include "core/fact_catalog.hpp"

namespace gd::catalog {

using T = FactType;

inline constexpr FactSpec k_kernel_log_facts[] = {
    // Where the log came from.
    FactSpec{"klog.readable", T::boolean,
             "a kernel log was read (/dev/kmsg, else the newest part of /var/log/kern.log, /var/log/messages or "
             "/var/log/syslog); unknown with the reason when none could be"},
    FactSpec{"klog.source", T::string, "where the kernel log was read: /dev/kmsg or the syslog file"},
    // A syslog file is the kernel's word only where no unprivileged user can write it and its lines
    // cannot be a program's: `logger -t kernel "NVRM: Xid ..."` writes the same bytes as the kernel
    // into a mixed file in the traditional format. Where untrusted, every other klog fact is
    // unknown with this reason.
    FactSpec{"klog.source_trust", T::string,
             "how far klog.source is believed: 'kernel' (/dev/kmsg, facility 0), 'trusted: ...' (a syslog file "
             "only the logging daemon writes: kern.log, or lines whose <PRI> says kern; a hand-made facility-0 "
             "datagram to /dev/log could still reach it, `logger` cannot) or 'untrusted: ...' with why (a file "
             "others can write, or a mixed file that records no facility)"},
    FactSpec{"klog.lines", T::integer, "kernel message lines read from the current boot"},
    FactSpec{"klog.nvrm_lines", T::list, "the newest NVRM lines of the NVIDIA driver (at most 20)"},
    // Xid reports (src/common/sdk/nvidia/inc/nverror.h, kernel_rc.c). Only those since the last
    // 'NVRM: loading NVIDIA UNIX' line (older ones concern the module before a reload), and inside a
    // container only those of the GPUs it was given (kmod.nvidia.gpus): the log is the host's.
    FactSpec{"klog.xid_codes", T::list,
             "distinct Xid codes logged since the module was last loaded, in numeric order ('79', '119')"},
    FactSpec{"klog.xids", T::list,
             "one entry per distinct Xid and GPU: '79 0000:01:00.0 GPU has fallen off the bus.' (+ how often)"},
    FactSpec{"klog.xid.*", T::list, "the klog.xids entries of one Xid code (klog.xid.95); only codes that were logged"},
    FactSpec{"klog.xid_count", T::integer, "Xid reports logged in total since the module was last loaded"},
    FactSpec{"klog.xids_before_module_load", T::list,
             "Xid entries logged before the last 'NVRM: loading NVIDIA UNIX' line of this boot: the module was "
             "reloaded since, so they are not counted in the Xid facts above"},
    FactSpec{"klog.xids_of_other_gpus", T::list,
             "inside a container, Xid entries of GPUs it was not given (not in kmod.nvidia.gpus): the kernel log is "
             "the host's; not counted in the Xid facts above"},
    // Initialisation failures.
    FactSpec{"klog.rm_init_adapter", T::list,
             "codes of 'RmInitAdapter failed! (0xAA:0xBB:line)' as printed ('0x22:0x56:884'): RM_INIT stage, "
             "NV_STATUS, source line"},
    FactSpec{"klog.firmware_load_failures", T::list,
             "failed firmware loads of nvidia/ files: 'nvidia/580.65.06/gsp_ga10x.bin -2' (file, kernel error)"},
    FactSpec{"klog.gsp_wpr2_up", T::boolean,
             "the driver found 'WPR2 already up' while booting GSP: the GPU is in a bad state and needs a reset"},
    FactSpec{"klog.bar_resize_failed", T::boolean, "'Fatal Error while attempting to resize PCIe BARs' was logged"},
    FactSpec{"klog.api_mismatch", T::boolean,
             "'NVRM: API mismatch' between a user-space component and the loaded kernel module (messages naming "
             "another module version than the loaded one are stale and ignored)"},
    FactSpec{"klog.api_mismatch_message", T::string, "the API mismatch sentence, with both versions"},
    FactSpec{"klog.module_signature_rejected", T::boolean,
             "the kernel refused to load a module for its signature ('Loading of unsigned module is rejected', "
             "lockdown, 'Key was rejected by service')"},
    FactSpec{"klog.module_signature_messages", T::list,
             "module signature messages: rejections, untrusted keys, unsigned modules that tainted the kernel"},
    FactSpec{"klog.nouveau_conflict", T::boolean,
             "'The NVIDIA probe routine was not called': another driver (usually nouveau) owned the GPU first"},
    FactSpec{"klog.nouveau_conflict_message", T::string, "the probe-routine message, with the device count"},
    FactSpec{"klog.nouveau_seen", T::boolean, "the nouveau driver logged a message for a PCI device"},
    FactSpec{"klog.gpu_not_supported", T::list,
             "driver messages that a GPU is not supported by the loaded module flavour or release (quoted)"},
    // Runtime failures.
    FactSpec{"klog.fallen_off_bus", T::boolean,
             "a GPU 'has fallen off the bus' (Xid 79 or the probe-time NVRM message) since the module was last "
             "loaded (in a container: one of its GPUs, where the message names it)"},
    FactSpec{"klog.fallen_off_bus_gpus", T::list, "bus ids of the GPUs reported as fallen off the bus"},
    FactSpec{"klog.gsp_timeout", T::boolean,
             "a GSP RPC timeout (Xid 119 or 'Timeout ... waiting for RPC ... GSP') since the module was last loaded"},
    FactSpec{"klog.uvm_failure", T::boolean, "nvidia-uvm logged a failure (load or initialisation)"},
    FactSpec{"klog.uvm_messages", T::list, "the nvidia-uvm failure messages"},
    FactSpec{"klog.resume_seen", T::boolean, "the system was suspended and resumed during this boot"},
    // Read by the iommu layer (probes/iommu), which matches them to GPUs and RDMA NICs.
    FactSpec{"klog.iommu_fault_lines", T::list,
             "the newest IOMMU DMA fault reports of this boot, as printed (at most 32): Intel 'DMAR: [DMA Write NO_PASID] "
             "Request device [18:00.0] fault addr ...', AMD 'AMD-Vi: Event logged [IO_PAGE_FAULT device=...]'"},
};

/// The section, as core/all_layers.hpp names it.
constexpr std::span<const FactSpec> kernel_log_facts() { return k_kernel_log_facts; }

}  // namespace gd::catalog
