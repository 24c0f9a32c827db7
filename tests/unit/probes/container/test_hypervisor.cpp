#include "probes/container/hypervisor.hpp"

#include <catch2/catch.hpp>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::cpuinfo_hypervisor_flag;
using gd::dmi_hypervisor;
using gd::guess_virtualization;

TEST_CASE("hypervisor: the CPU flag", "[probes][hypervisor]") {
  // x86 /proc/cpuinfo (arch/x86/kernel/cpu/proc.c prints "flags\t\t: ..."); a KVM guest.
  constexpr std::string_view k_guest =
      "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr "
      "pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm "
      "rep_good nopl cpuid extd_apicid tsc_known_freq pni pclmulqdq ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic "
      "movbe popcnt aes xsave avx f16c rdrand hypervisor lahf_lm cmp_legacy\nbogomips\t: 4792.79\n";
  CHECK(cpuinfo_hypervisor_flag(k_guest) == true);
  CHECK(cpuinfo_hypervisor_flag("processor\t: 0\nflags\t\t: fpu vme de pse tsc msr hypervisor_x lahf_lm\n") == false);
  // aarch64: "Features" instead of "flags", no such flag.
  CHECK(cpuinfo_hypervisor_flag("processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes pmull\n") ==
        std::nullopt);
}

TEST_CASE("hypervisor: DMI vendors and the verdict", "[probes][hypervisor]") {
  CHECK(dmi_hypervisor("KVM", "Red Hat")->name == "kvm");
  CHECK(dmi_hypervisor("Standard PC (Q35 + ICH9, 2009)", "QEMU")->name == "qemu");
  CHECK(dmi_hypervisor("VMware Virtual Platform", "VMware, Inc.")->name == "vmware");
  CHECK(dmi_hypervisor("VirtualBox", "innotek GmbH")->name == "oracle");
  CHECK(dmi_hypervisor("p5.48xlarge", "Amazon EC2")->name == "amazon");
  CHECK_FALSE(dmi_hypervisor("PowerEdge R750xa", "Dell Inc."));

  // The real H200 VM (Firecracker): hypervisor flag, no DMI table.
  auto h200 = guess_virtualization(true, std::nullopt, false);
  CHECK(h200.is_vm == true);
  CHECK(h200.hypervisor == "unknown");
  // EC2 bare metal: vendor says Amazon, CPU has no hypervisor flag.
  auto metal = guess_virtualization(false, dmi_hypervisor("p5.metal", "Amazon EC2"), true);
  CHECK(metal.is_vm == false);
  CHECK(metal.hypervisor == "none");
  auto ec2 = guess_virtualization(true, dmi_hypervisor("p5.48xlarge", "Amazon EC2"), true);
  CHECK(ec2.hypervisor == "amazon");
  // VirtualBox may hide the flag; its DMI strings still say so.
  CHECK(guess_virtualization(false, dmi_hypervisor("VirtualBox", "innotek GmbH"), true).is_vm == true);
  CHECK(guess_virtualization(std::nullopt, std::nullopt, false).is_vm == std::nullopt);
}

TEST_CASE("hypervisor: WSL2 kernels", "[probes][hypervisor]") {
  CHECK(gd::is_wsl2_kernel("5.15.153.1-microsoft-standard-WSL2", ""));
  CHECK(gd::is_wsl2_kernel("4.19.104-microsoft-standard", ""));
  CHECK(gd::is_wsl2_kernel("6.1.0", "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1) (gcc (GCC) 11.2.0)"));
  CHECK_FALSE(gd::is_wsl2_kernel("4.4.0-19041-Microsoft", ""));  // WSL1: no GPU support at all
  CHECK_FALSE(gd::is_wsl2_kernel("6.18.44-fc-v657-gpu", "Linux version 6.18.44-fc-v657-gpu"));
}

}  // namespace GD_UNITY_ID
