// Fix and why texts of the kernel-proof (cuda) and GPU-health (nvml) rules that were wrong once
// (the audit of the rules added after issue 11, docs/rules-audit.md): each case runs a fixture of
// tests/rules/<id>/ through the whole rule set and checks what the finding tells the user to do.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "fixture_finding.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::test::all_fix_lines;
using gd::test::finding_on;
using gd::test::has;

TEST_CASE("nvml.pcie-link-degraded reads the link with a query nvidia-smi has", "[rules][fixtures][fix-text]") {
  // nvidia-smi -q -d takes MEMORY, UTILIZATION, ECC, ... ROW_REMAPPER, GSP_FIRMWARE_VERSION,
  // POWER_SMOOTHING, POWER_PROFILES: no PCIE (nvidia-smi manual).
  std::string fix = all_fix_lines(finding_on("nvml.pcie-link-degraded", "positive/x8-in-p0.json"));
  INFO(fix);
  CHECK_FALSE(has(fix, "-d PCIE"));
  CHECK(has(fix, "--query-gpu=pci.bus_id,pstate,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,"
                 "pcie.link.width.max --format=csv"));
}

TEST_CASE("nvml.persistence-off fixes a daemon that runs with --no-persistence-mode", "[rules][fixtures][fix-text]") {
  // Ubuntu's nvidia-persistenced.service (nvidia-compute-utils-<branch>) is static, started through
  // udev, and runs the daemon with --no-persistence-mode: enabling it leaves persistence off.
  gd::Finding finding = finding_on("nvml.persistence-off", "positive/compute-gpu-without-persistence.json");
  std::string fix = all_fix_lines(finding);
  INFO(fix);
  CHECK(has(fix, "Running with --no-persistence-mode"));
  CHECK(has(fix, "ExecStart= and ExecStart=/usr/bin/nvidia-persistenced --user nvidia-persistenced --verbose"));
  CHECK(has(fix, "sudo systemctl restart nvidia-persistenced"));
  CHECK(has(finding.message, "or runs with --no-persistence-mode"));
}

TEST_CASE("nvml.recovery-action-required has a step for every action the probe reports", "[rules][fixtures][fix-text]") {
  std::string fix = all_fix_lines(finding_on("nvml.recovery-action-required", "positive/gpu-reset-asked.json"));
  INFO(fix);
  CHECK(has(fix, "RECOVER_IMEX_DOMAIN (5)"));
  CHECK(has(fix, "a number this list does not name is newer than gpudoctor"));
  CHECK(has(fix, "If it still says Drain P2P, reset the GPU"));
}

TEST_CASE("GPU resets say that nvidia-smi -r refuses while processes run, not that it ends them",
          "[rules][fixtures][fix-text]") {
  // nvidia-smi manual, -r: "There can't be any applications using these devices"; -i "can be used
  // to target one or more specific devices".
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"cuda.gpu-stuck", "positive/context-never-returns.json"},
      {"cuda.kernel-launch-fails", "positive/launch-failed-719.json"},
      {"cuda.kernel-wrong-result", "positive/one-flipped-bit.json"},
      {"nvml.ecc-uncorrectable-errors", "positive/two-since-driver-load.json"},
      {"nvml.row-remap-failure", "positive/remapping-failed.json"},
      {"nvml.row-remap-pending", "positive/one-uncorrectable-row-waits-for-reset.json"},
      {"nvml.recovery-action-required", "positive/gpu-reset-asked.json"},
  };
  for (const auto& [id, fixture] : cases) {
    std::string fix = all_fix_lines(finding_on(id, fixture));
    INFO(id << ":\n" << fix);
    CHECK_FALSE(has(fix, "ends every process"));
    CHECK_FALSE(has(fix, "one GPU at a time"));
    CHECK(has(fix, "nvidia-smi -r refuses while any process uses the GPU"));
  }
}

TEST_CASE("nvml.compute-mode-prohibited and nvml.retired-pages-pending say what lasts and what activates",
          "[rules][fixtures][fix-text]") {
  // nvidia-smi -c: "does not persist across reboots"; Xid 63 of page retirement: "reload the driver
  // to activate" (Dynamic Page Retirement, visibility).
  std::string prohibited = all_fix_lines(finding_on("nvml.compute-mode-prohibited", "positive/prohibited.json"));
  INFO(prohibited);
  CHECK(has(prohibited, "does not persist across reboots"));
  CHECK_FALSE(has(prohibited, "Slurm's gres"));
  std::string retired = all_fix_lines(finding_on("nvml.retired-pages-pending", "positive/v100-page-pending.json"));
  INFO(retired);
  CHECK(has(retired, "reload the driver to activate"));
}

}  // namespace GD_UNITY_ID
