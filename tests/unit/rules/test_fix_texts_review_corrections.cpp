// The eight minor corrections of the second rule review (issue 23, docs/rules-audit.md): each case
// runs a fixture of tests/rules/<id>/ through the whole rule set and checks the text the review
// found wrong, placeholders filled. Each check names the source that makes the old text wrong.

#include <catch2/catch.hpp>

#include <string>

#include "fixture_finding.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::test::all_fix_lines;
using gd::test::finding_on;
using gd::test::has;

TEST_CASE("nvml.driver-library-mismatch: ldconfig -p gives no versions, rmmod ends no process",
          "[rules][fixtures][fix-text]") {
  // ldconfig -p prints "libcuda.so.1 (libc6,x86-64) => /path/libcuda.so.1": the soname and the
  // link, never the version. kmod's rmmod refuses a module whose refcount is not 0 ("Module %s is
  // in use"): the processes holding /dev/nvidia* must be stopped first.
  gd::Finding finding = finding_on("nvml.driver-library-mismatch", "positive/after-driver-upgrade.json");
  std::string fix = all_fix_lines(finding);
  INFO(fix);
  CHECK_FALSE(has(fix, "(the file names end in the library version)"));
  CHECK_FALSE(has(fix, "this ends every process using the GPU"));
  CHECK(has(fix, "ldconfig -p lists only sonames and paths"));
  CHECK(has(fix, "do readlink -f \"$f\"; done"));
  CHECK(has(fix, "rmmod ends nothing: it refuses ('Module nvidia is in use')"));
  CHECK(has(fix, "sudo fuser -v /dev/nvidia*"));
  CHECK(has(fix, "grep -A2 'API mismatch'"));  // osapi.c: "NVRM: API mismatch: the client ..."
}

TEST_CASE("nvml.fabric-not-registered: no local restart on GB200/GB300 NVL, a failed GPU loses NVLink P2P",
          "[rules][fixtures][fix-text]") {
  // Fabric Manager user guide (H100 and later): "If a GPU fails to register with the fabric, it will
  // lose its NVLink peer-to-peer capability and be available for non-peer-to-peer use cases".
  // NMX-Controller documentation: in the GB200 NVL the Subnet Manager and Global Fabric Manager are
  // services of NMX-Controller, which runs on the NVLink switches or a management node.
  gd::Finding finding = finding_on("nvml.fabric-not-registered", "positive/not-started.json");
  std::string fix = all_fix_lines(finding);
  INFO(finding.why);
  INFO(fix);
  CHECK_FALSE(has(finding.why, "a failed registration keeps it there"));
  CHECK(has(finding.why, "lose its NVLink peer-to-peer capability"));
  CHECK(has(fix, "GB200/GB300 NVL compute tray: there is no fabric manager here to restart"));
  CHECK(has(fix, "NMX-Controller"));
  CHECK(has(fix, "HGX/DGX: restart it when no job runs on the node"));
}

TEST_CASE("nvml.recovery-action-required: DRAIN_P2P disables UVM persistence, not nvidia-persistenced",
          "[rules][fixtures][fix-text]") {
  // nvidia-smi manual, Drain P2P: "Terminate all GPU processes that conduct peer-to-peer traffic and
  // disable UVM persistence mode"; nvidia-persistenced option-table.h: --uvm-persistence-mode, off by
  // default, only on the single GPU confidential computing configuration.
  gd::Finding finding = finding_on("nvml.recovery-action-required", "positive/gpu-reset-asked.json");
  std::string fix = all_fix_lines(finding);
  INFO(fix);
  CHECK_FALSE(has(fix, "(stop nvidia-persistenced)"));
  CHECK(has(fix, "--uvm-persistence-mode"));
  CHECK(has(fix, "nvidia-persistenced need not be stopped"));
  CHECK(has(finding.why, "disable UVM persistence mode"));
}

TEST_CASE("cuda.jit-compiler-missing: SASS is never JIT-compiled; CDI refresh from toolkit 1.18",
          "[rules][fixtures][fix-text]") {
  // Only PTX goes through libnvidia-ptxjitcompiler (knowledge §10, observed on the H200: 221 for PTX
  // with the library emptied); cdi-support.html: toolkit 1.18+ regenerates /var/run/cdi/nvidia.yaml
  // through nvidia-cdi-refresh.service.
  gd::Finding finding = finding_on("cuda.jit-compiler-missing", "positive/ptx-jit-compiler-not-found.json");
  std::string fix = all_fix_lines(finding);
  INFO(finding.why);
  INFO(fix);
  CHECK_FALSE(has(finding.why, "or as SASS for an older GPU, needs it"));
  CHECK(has(finding.why, "SASS (cubin) is never JIT-compiled"));
  CHECK(has(fix, "NVIDIA Container Toolkit 1.18 and later: sudo systemctl restart nvidia-cdi-refresh.service"));
  CHECK(has(fix, "older toolkits: sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml"));
}

TEST_CASE("cuda.kernel-ptx-refused states as fact only what was shown", "[rules][fixtures][fix-text]") {
  // Seen: 580.159.04 JIT-compiles the PTX 3.0 module for an H200 (capture h200-live-kernel). Not
  // shown: that every driver and GPU accepts it, or which setups answer 218 or 222.
  gd::Finding finding = finding_on("cuda.kernel-ptx-refused", "positive/unsupported-ptx-version.json");
  std::string fix = all_fix_lines(finding);
  INFO(finding.message);
  INFO(finding.why);
  CHECK_FALSE(has(finding.message, "every driver compiles for every GPU"));
  CHECK_FALSE(has(finding.why, "a refusal is the driver's, not the kernel's"));
  CHECK(has(finding.why, "Not proven:"));
  CHECK(has(finding.why, "this finding is gpudoctor's mistake, not the host's"));
  CHECK(has(fix, "CUDA_CACHE_DISABLE=1"));
}

TEST_CASE("hardware.nouveau-bound quotes the kernel's text of both driver generations", "[rules][fixtures][fix-text]") {
  // nv.c: before 550 "a driver such as: nouveau, rivafb, nvidiafb or rivatv"; 550.40.07 and later
  // "This can occur when another driver was loaded and obtained ownership of the NVIDIA device(s)".
  gd::Finding finding = finding_on("hardware.nouveau-bound", "positive/gtx1070-bound-to-nouveau.json");
  INFO(finding.why);
  CHECK(has(finding.why, "drivers before 550"));
  CHECK(has(finding.why, "This can occur when another driver was loaded and obtained ownership of the NVIDIA device(s)"));
  CHECK(has(finding.message, "/sys/bus/pci/devices/<bdf>/driver"));
}

TEST_CASE("devices.open-eacces opens the character devices without stripping the caps folders",
          "[rules][fixtures][fix-text]") {
  // /dev/nvidia-caps (nvidia-cap<N>) and /dev/nvidia-caps-imex-channels are folders: chmod 0666 on
  // them clears the search bit, and /dev/nvidia* matches both.
  gd::Finding finding = finding_on("devices.open-eacces", "positive/user-not-in-video-group.json");
  std::string fix = all_fix_lines(finding);
  INFO(fix);
  CHECK_FALSE(has(fix, "sudo chmod 0666 /dev/nvidia* "));
  CHECK(has(fix, "sudo find /dev -maxdepth 1 -type c -name 'nvidia*' -exec chmod 0666 {} +"));
}

TEST_CASE("toolkit.newer-than-driver names the branch of the toolkit and the runtime's 35",
          "[rules][fixtures][fix-text]") {
  // CUDA compatibility guide: 12.x builds run on 525+ under minor-version compatibility (no PTX JIT
  // of newer PTX: 222; newer calls: 36); CUDA 12.8 came with 570. 35 is cudaErrorInsufficientDriver
  // of the runtime API; cuda.h has no 35.
  gd::Finding minor = finding_on("toolkit.newer-than-driver",
                                 "positive/cuda-12.8-on-550-minor-version-compatibility.json");
  std::string fix = all_fix_lines(minor);
  INFO(minor.message);
  INFO(fix);
  CHECK(has(minor.message, "was released with driver branch 570; builds of its major run on branch 525 or newer"));
  CHECK(has(fix, "Upgrade the driver to branch 570 or newer"));
  CHECK(has(fix, "branch 525 is the least on which its builds start at all"));
  CHECK_FALSE(has(fix, "12.8: 570+"));
  CHECK_FALSE(has(minor.why, "CUDA_ERROR_INSUFFICIENT_DRIVER"));
  CHECK(has(minor.why, "35 is the runtime's code, the driver API has none"));
  CHECK(has(minor.why, "minor-version compatibility"));

  gd::Finding major = finding_on("toolkit.newer-than-driver", "positive/cuda13-on-570.json");
  CHECK(has(all_fix_lines(major), "Upgrade the driver to branch 580 or newer"));
}

}  // namespace GD_UNITY_ID
