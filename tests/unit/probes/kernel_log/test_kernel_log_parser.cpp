// The NVIDIA message analysis on real-format lines: messages as open-gpu-kernel-modules and the
// kernel print them, and as they were reported in the project's issues.

#include "probes/kernel_log/kernel_log_parser.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::analyse_kernel_log;
using gd::KernelLogFindings;

namespace {

using Lines = std::vector<std::string>;

}  // namespace

TEST_CASE("Xid lines: code, bus id, message after pid and name", "[probes][kernel_log_parser]") {
  // kernel_rc.c krcReportXid: "NVRM: Xid (PCI:%04x:%02x:%02x): %d, pid=%s, name=%s, %s".
  auto xid = gd::parse_xid_line(
      "NVRM: Xid (PCI:0000:61:00): 119, pid=123417, name=nv-hostengine, Timeout after 6s of waiting for RPC response "
      "from GPU0 GSP! Expected function 10 (FREE) (0xc0000005 0x0).");
  REQUIRE(xid);
  CHECK(xid->code == 119);
  CHECK(xid->pci == "0000:61:00.0");
  CHECK(xid->text == "Timeout after 6s of waiting for RPC response from GPU0 GSP! Expected function 10 (FREE) (0xc0000005 0x0).");

  // Older drivers print no name=; MIG adds the GPU instance inside the parentheses.
  auto old = gd::parse_xid_line("NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping, reset gpu to activate.");
  REQUIRE(old);
  CHECK(old->code == 63);
  CHECK(old->pci == "0000:10:1c.0");
  CHECK(old->text == "Row Remapper: New row marked for remapping, reset gpu to activate.");
  auto mig = gd::parse_xid_line("NVRM: Xid (PCI:0000:3B:00 GPU-I:01 GPU-CI:00): 94, pid=7062, name=python3, Contained: SM (0x1). RST: No, D-RST: No");
  REQUIRE(mig);
  CHECK(mig->code == 94);
  CHECK(mig->pci == "0000:3b:00.0");

  CHECK_FALSE(gd::parse_xid_line("NVRM: GPU at PCI:0000:01:00: GPU-aeab3757-56a6-7e30-3f7c-1f322454bde2"));
  CHECK_FALSE(gd::parse_xid_line("NVRM: Xid (PCI:0000:01:00): , pid=1"));
}

TEST_CASE("Xid reports are grouped by code and GPU", "[probes][kernel_log_parser]") {
  KernelLogFindings found = analyse_kernel_log({
      "NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
      "NVRM: GPU 0000:01:00.0: GPU has fallen off the bus.",
      "NVRM: Xid (PCI:0000:19:00): 119, pid=452531, name=cache_mgr_main, Timeout after 6s of waiting for RPC response "
      "from GPU0 GSP! Expected function 76 (GSP_RM_CONTROL) (0x20809004 0x608).",
      "NVRM: Xid (PCI:0000:19:00): 119, pid=3116150, name=python3, Timeout after 6s of waiting for RPC response from "
      "GPU0 GSP! Expected function 76 (GSP_RM_CONTROL) (0x20809004 0x610).",
      "NVRM: Xid (PCI:0000:01:00): 95, pid=7062, Uncontained: LTC TAG (0x2,0x0). RST: Yes, D-RST: No",
  });
  CHECK(gd::xid_code_list(found) == Lines{"79", "95", "119"});
  CHECK(found.xid_total == 4);
  Lines entries = gd::xid_entry_list(found);
  REQUIRE(entries.size() == 3);
  CHECK(entries[0] == "79 0000:01:00.0 GPU has fallen off the bus.");
  CHECK(entries[1] ==
        "119 0000:19:00.0 Timeout after 6s of waiting for RPC response from GPU0 GSP! Expected function 76 "
        "(GSP_RM_CONTROL) (0x20809004 0x610). (logged 2 times)");
  CHECK(found.fallen_off_bus);
  CHECK(found.fallen_off_bus_gpus == Lines{"0000:01:00.0"});
  CHECK(found.gsp_timeout);
}

TEST_CASE("GSP timeouts without an Xid line, in both driver wordings", "[probes][kernel_log_parser]") {
  CHECK(analyse_kernel_log({"NVRM: Timeout waiting for RPC from GSP0! Expected function 76 (GSP_RM_CONTROL) (0x2080014b 0x5)."}).gsp_timeout);
  CHECK(analyse_kernel_log({"NVRM: GPU0 rpcRecvPoll: Timeout after 45s of waiting for RPC response from GPU0 GSP! Expected function 4097 (GSP_INIT_DONE)"}).gsp_timeout);
}

TEST_CASE("fallen off the bus at probe time names the GPU", "[probes][kernel_log_parser]") {
  // osapi.c rm_is_supported_device: three NVRM lines (NVIDIA/NVSentinel#155 shows them joined).
  KernelLogFindings found = analyse_kernel_log({
      "NVRM: The NVIDIA GPU 0000:b3:00.0",
      "NVRM: (PCI ID: 10de:26b5) installed in this system has",
      "NVRM: fallen off the bus and is not responding to commands.",
      "nvidia: probe of 0000:b3:00.0 failed with error -1",
  });
  CHECK(found.fallen_off_bus);
  CHECK(found.fallen_off_bus_gpus == Lines{"0000:b3:00.0"});
  CHECK(found.xid_codes.empty());
}

TEST_CASE("RmInitAdapter failures, GSP firmware loads, WPR2 and BAR resize", "[probes][kernel_log_parser]") {
  // NVIDIA/open-gpu-kernel-modules#1230 and #862, #639; an old driver without the GPU prefix.
  KernelLogFindings found = analyse_kernel_log({
      "NVRM: GPU6 _kgspBootGspRm: unexpected WPR2 already up, cannot proceed with booting GSP",
      "NVRM: GPU6 _kgspBootGspRm: (the GPU is likely in a bad state and may need to be reset)",
      "NVRM: GPU6 RmInitAdapter: Cannot initialize GSP firmware RM",
      "NVRM: GPU 0000:a1:00.0: RmInitAdapter failed! (0x62:0x40:2168)",
      "NVRM: GPU 0000:a1:00.0: rm_init_adapter failed, device minor number 7",
      "NVRM: GPU 0000:a1:00.0: RmInitAdapter failed! (0x62:0x40:2168)",
      "NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:884)",
      "NVRM: RmInitAdapter failed! (0x30:0xFFFFFFFF:859)",
      "nvidia 0000:01:00.0: Direct firmware load for nvidia/550.76/gsp_ga10x.bin failed with error -2",
      "iwlwifi 0000:00:14.3: Direct firmware load for iwlwifi-so-a0-gf-a0-86.ucode failed with error -2",
      "NVRM: Fatal Error while attempting to resize PCIe BARs.",
  });
  CHECK(found.rm_init_adapter == Lines{"0x62:0x40:2168", "0x22:0x56:884", "0x30:0xffffffff:859"});
  CHECK(found.firmware_load_failures == Lines{"nvidia/550.76/gsp_ga10x.bin -2"});
  CHECK(found.gsp_wpr2_up);
  CHECK(found.bar_resize_failed);
  CHECK_FALSE(found.fallen_off_bus);
}

TEST_CASE("API mismatch in the old and the new wording", "[probes][kernel_log_parser]") {
  // osapi.c RmCheckVersion up to 560 ("the client has the version %s, but") and after.
  KernelLogFindings found = analyse_kernel_log({
      "NVRM: API mismatch: the client has the version 550.54.14, but",
      "NVRM: this kernel module has the version 550.90.07.  Please",
      "NVRM: make sure that this kernel module and all NVIDIA driver",
      "NVRM: components have the same version.",
      "NVRM: API mismatch: the client 'nvidia-smi' (pid 2242)",
      "NVRM: has the version 580.95.05, but this kernel module has",
      "NVRM: the version 580.65.06.  Please make sure that this",
      "NVRM: kernel module and all NVIDIA driver components",
      "NVRM: have the same version.",
  });
  REQUIRE(found.api_mismatches.size() == 2);
  CHECK(found.api_mismatches[0].client_version == "550.54.14");
  CHECK(found.api_mismatches[0].module_version == "550.90.07");
  CHECK(found.api_mismatches[0].message ==
        "API mismatch: the client has the version 550.54.14, but this kernel module has the version 550.90.07.");
  CHECK(found.api_mismatches[1].client_version == "580.95.05");
  CHECK(found.api_mismatches[1].module_version == "580.65.06");
  CHECK(found.api_mismatches[1].message ==
        "API mismatch: the client 'nvidia-smi' (pid 2242) has the version 580.95.05, but this kernel module has the "
        "version 580.65.06.");
}

TEST_CASE("GPU not supported by the loaded flavour or release is quoted", "[probes][kernel_log_parser]") {
  // osapi.c (open module without GSP; print_unsupported); the proprietary legacy notice as in
  // NixOS/nixos-hardware#1880; 515's open module on a GeForce (#230).
  KernelLogFindings found = analyse_kernel_log({
      "NVRM: The NVIDIA GPU 0000:02:00.0 (PCI ID: 10de:1b82)",
      "NVRM: installed in this system is not supported by open",
      "NVRM: nvidia.ko because it does not include the required GPU",
      "NVRM: System Processor (GSP).",
      "NVRM: Please see the 'Open Linux Kernel Modules' and 'GSP",
      "NVRM: Firmware' sections in the driver README, available on",
      "NVRM: the Linux graphics driver download page at",
      "NVRM: www.nvidia.com.",
      "nvidia: probe of 0000:02:00.0 failed with error -1",
      "NVRM: The NVIDIA GPU 0000:03:00.0 (PCI ID: 10de:0fc1)",
      "NVRM: installed in this system is not supported by the",
      "NVRM: NVIDIA 580.65.06 driver release.",
      "NVRM: Please see 'Appendix A - Supported NVIDIA GPU Products'",
      "nvidia-nvlink: Nvlink Core is being initialized, major device number 234",
      "NVRM: The NVIDIA NVIDIA GeForce GTX 1050 GPU installed in this system is",
      "NVRM:  supported through the NVIDIA 580.xx Legacy drivers. Please",
      "NVRM:  visit http://www.nvidia.com/object/unix.html for more",
      "NVRM:  information.  The 595.71.05 NVIDIA driver will ignore",
      "NVRM:  this GPU.  Continuing probe...",
      "NVRM: No NVIDIA GPU found.",
  });
  CHECK(found.gpu_not_supported ==
        Lines{"The NVIDIA GPU 0000:02:00.0 (PCI ID: 10de:1b82) installed in this system is not supported by open "
              "nvidia.ko because it does not include the required GPU System Processor (GSP).",
              "The NVIDIA GPU 0000:03:00.0 (PCI ID: 10de:0fc1) installed in this system is not supported by the "
              "NVIDIA 580.65.06 driver release.",
              "The NVIDIA NVIDIA GeForce GTX 1050 GPU installed in this system is supported through the NVIDIA 580.xx "
              "Legacy drivers."});
  CHECK(analyse_kernel_log({"NVRM: Open nvidia.ko is only ready for use on Data Center GPUs."}).gpu_not_supported ==
        Lines{"Open nvidia.ko is only ready for use on Data Center GPUs."});
}

TEST_CASE("nouveau, module signatures, nvidia-uvm and suspend", "[probes][kernel_log_parser]") {
  KernelLogFindings nouveau = analyse_kernel_log({
      "nouveau 0000:01:00.0: NVIDIA GA102 (172000a1)",
      "NVRM: The NVIDIA probe routine was not called for 1 device(s).",
      "NVRM: This can occur when another driver was loaded and ",
      "NVRM: obtained ownership of the NVIDIA device(s).",
  });
  CHECK(nouveau.probe_not_called == "The NVIDIA probe routine was not called for 1 device(s).");
  CHECK(nouveau.nouveau_seen);

  // kernel/module/signing.c with enforcement (Secure Boot), and the harmless taint without it.
  KernelLogFindings rejected = analyse_kernel_log({"Loading of unsigned module is rejected"});
  CHECK(rejected.module_signature_rejected);
  KernelLogFindings tainted = analyse_kernel_log({
      "nvidia: module verification failed: signature and/or required key missing - tainting kernel",
      "PKCS#7 signature not signed with a trusted key",
  });
  CHECK_FALSE(tainted.module_signature_rejected);
  CHECK(tainted.module_signature_messages.size() == 2);
  CHECK(analyse_kernel_log({"Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7"})
            .module_signature_rejected);

  KernelLogFindings uvm = analyse_kernel_log({
      "nvidia_uvm: Unknown symbol nvUvmInterfaceRegisterGpu (err -2)",
      "nvidia-uvm: Loaded the UVM driver, major device number 509.",
  });
  CHECK(uvm.uvm_messages == Lines{"nvidia_uvm: Unknown symbol nvUvmInterfaceRegisterGpu (err -2)"});

  CHECK(analyse_kernel_log({"PM: suspend entry (deep)"}).resume_seen);
  CHECK(analyse_kernel_log({"ACPI: PM: Waking up from system sleep state S3"}).resume_seen);
  CHECK_FALSE(analyse_kernel_log({"PM: Registering ACPI NVS region [mem 0x60d11000-0x61571fff] (8785920 bytes)"}).resume_seen);
}

TEST_CASE("a healthy driver load leaves every finding empty", "[probes][kernel_log_parser]") {
  // /dev/kmsg of a real H200 host (580.159.04, open module), as dmesg printed it there.
  KernelLogFindings found = analyse_kernel_log({
      "nvidia: loading out-of-tree module taints kernel.",
      "nvidia-nvlink: Nvlink Core is being initialized, major device number 240",
      "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)",
      "NVRM: gpuClearFbhubPoisonIntrForBug2924523_GA100: FBHUB Interrupt detected. Clearing it.",
      "NVRM: Persistence mode is deprecated and will be removed in a future release. Please use nvidia-persistenced "
      "instead.",
  });
  CHECK(found.line_count == 5);
  CHECK(found.nvrm_lines.size() == 3);
  CHECK(found.xids.empty());
  CHECK(found.rm_init_adapter.empty());
  CHECK(found.firmware_load_failures.empty());
  CHECK(found.api_mismatches.empty());
  CHECK(found.gpu_not_supported.empty());
  CHECK(found.uvm_messages.empty());
  CHECK_FALSE(found.fallen_off_bus);
  CHECK_FALSE(found.gsp_timeout);
  CHECK_FALSE(found.module_signature_rejected);
  CHECK(found.probe_not_called.empty());
}

TEST_CASE("Xids before the module was last loaded are kept apart", "[probes][kernel_log_parser]") {
  // osapi.c nvidia_init_module prints "NVRM: loading NVIDIA UNIX ..." each time the module loads:
  // an Xid before a reload (rmmod nvidia; modprobe nvidia) concerns the GPUs as they were then.
  KernelLogFindings found = analyse_kernel_log({
      "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build  (dvs-builder@U22-I3-AF03-09-1)",
      "NVRM: Xid (PCI:0000:01:00): 95, pid=7062, Uncontained: LTC TAG (0x2,0x0). RST: Yes, D-RST: No",
      "NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
      "NVRM: GPU 0000:01:00.0: GPU has fallen off the bus.",
      "NVRM: Xid (PCI:0000:01:00): 119, pid=1, name=nvidia-smi, Timeout after 6s of waiting for RPC response from GPU0 GSP!",
      "nvidia-uvm: Unloaded the UVM driver.",
      "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  580.65.06  Release Build  (dvs-builder@U16-I3-B03-4-3)",
      "NVRM: Xid (PCI:0000:02:00): 63, pid=1896, name=python3, Row Remapper: New row marked for remapping, reset gpu to activate.",
  });
  CHECK(found.module_loads == 2);
  CHECK(gd::xid_code_list(found) == Lines{"63"});
  CHECK(found.xid_total == 1);
  CHECK_FALSE(found.fallen_off_bus);
  CHECK(found.fallen_off_bus_gpus.empty());
  CHECK_FALSE(found.gsp_timeout);
  CHECK(found.xids_before_module_load ==
        Lines{"95 0000:01:00.0 Uncontained: LTC TAG (0x2,0x0). RST: Yes, D-RST: No",
              "79 0000:01:00.0 GPU has fallen off the bus.",
              "119 0000:01:00.0 Timeout after 6s of waiting for RPC response from GPU0 GSP!"});
  CHECK(gd::xid_entries_of(found, 63) ==
        Lines{"63 0000:02:00.0 Row Remapper: New row marked for remapping, reset gpu to activate."});
  CHECK(gd::xid_entries_of(found, 95).empty());
}

TEST_CASE("a container keeps the Xids of its own GPUs", "[probes][kernel_log_parser]") {
  KernelLogFindings found = analyse_kernel_log({
      "NVRM: Xid (PCI:0000:81:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
      "NVRM: GPU 0000:81:00.0: GPU has fallen off the bus.",
      "NVRM: Xid (PCI:0000:3B:00): 94, pid=7062, name=python3, Contained: SM (0x1). RST: No, D-RST: No",
      "NVRM: Xid (PCI:0000:3b:00): 94, pid=7063, name=python3, Contained: SM (0x1). RST: No, D-RST: No",
      "NVRM: Xid (PCI:0000:81:00): 119, pid=1, name=nvidia-smi, Timeout after 6s of waiting for RPC response from GPU3 GSP!",
  });
  Lines removed = gd::keep_xids_of(found, {"0000:3B:00.0"});
  CHECK(removed == Lines{"79 0000:81:00.0 GPU has fallen off the bus.",
                         "119 0000:81:00.0 Timeout after 6s of waiting for RPC response from GPU3 GSP!"});
  CHECK(gd::xid_code_list(found) == Lines{"94"});
  CHECK(found.xid_total == 2);
  CHECK_FALSE(found.fallen_off_bus);
  CHECK_FALSE(found.gsp_timeout);

  SECTION("a GSP timeout message without an Xid names no bus id, so it stays") {
    KernelLogFindings text_only = analyse_kernel_log({
        "NVRM: Xid (PCI:0000:81:00): 13, pid=1, name=a.out, Graphics SM Warp Exception",
        "NVRM: Timeout waiting for RPC from GSP0! Expected function 76 (GSP_RM_CONTROL) (0x2080014b 0x5).",
    });
    gd::keep_xids_of(text_only, {"0000:3b:00.0"});
    CHECK(gd::xid_code_list(text_only).empty());
    CHECK(text_only.gsp_timeout);
  }
}

}  // namespace GD_UNITY_ID
