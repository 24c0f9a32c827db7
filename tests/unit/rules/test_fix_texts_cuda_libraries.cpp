// Fix and why texts of the cuda and libraries rules that were wrong once (issue 11): each case runs
// a fixture of tests/rules/<id>/ through the whole rule set and checks what the finding tells the
// user to do, placeholders filled. A fixture's "expect" only sees the message.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fixture_finding.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::test::all_fix_lines;
using gd::test::finding_on;
using gd::test::has;

TEST_CASE("libraries.wsl-linux-driver-installed removes only installed driver packages", "[rules][fixtures][fix-text]") {
  // apt-get remove with one unknown name or an empty glob ('cuda-drivers' exists only with NVIDIA's
  // repository) prints "E: Unable to locate package", exits 100 and removes nothing, so the chained
  // '&& sudo apt install cuda-toolkit' never ran either.
  gd::Finding finding = finding_on("libraries.wsl-linux-driver-installed", "positive/cuda-drivers-installed-in-wsl.json");
  std::string fix = all_fix_lines(finding);
  INFO(fix);
  CHECK_FALSE(has(fix, "apt remove --purge 'nvidia-driver-*'"));
  CHECK_FALSE(has(fix, "&& sudo apt install cuda-toolkit"));
  auto removal = std::find_if(finding.fix.begin(), finding.fix.end(),
                              [](const std::string& line) { return has(line, "apt-get remove"); });
  REQUIRE(removal != finding.fix.end());
  // The names come from dpkg-query (installed packages only) and the removal runs only if there are any.
  CHECK(has(*removal, "dpkg-query -W -f='${db:Status-Abbrev} ${Package}\\n' 'nvidia-driver-*' 'libnvidia-compute-*' 'cuda-drivers*'"));
  CHECK(has(*removal, "awk '$1==\"ii\"{print $2}'"));
  CHECK(has(*removal, "if [ -n \"$pkgs\" ]; then sudo apt-get remove --purge $pkgs;"));
  CHECK(has(*removal, "this REMOVES packages"));
  CHECK(has(*removal, "cuda-toolkit-13-0"));
  // The ownership check names the file the loader takes, not a bare soname.
  CHECK(has(finding.fix.front(), "dpkg -S /usr/lib/x86_64-linux-gnu/libcuda.so.580.95.05"));
}

TEST_CASE("cuda.init-hang claims no GSP fix release and says what a reset ends", "[rules][fixtures][fix-text]") {
  gd::Finding finding = finding_on("cuda.init-hang", "positive/timeout-in-cuinit.json");
  std::string fix = all_fix_lines(finding);
  INFO(fix);
  // open-gpu-kernel-modules#446 is still open; no release fixed the GSP timeouts.
  CHECK_FALSE(has(fix, "525.105.17"));
  CHECK(has(finding.why, "Xid 175"));
  CHECK(has(finding.fix.front(), "--cuda-timeout 180"));
  CHECK(has(fix, "sudo nvidia-smi -r -i <index> (this resets the GPU and ends all work on it"));
}

TEST_CASE("cuda.libcuda-not-found and libraries.driver-userspace-missing name each distribution's package", "[rules][fixtures][fix-text]") {
  gd::Finding finding = finding_on("cuda.libcuda-not-found", "positive/no-driver-libraries.json");
  std::string fix = all_fix_lines(finding);
  INFO(fix);
  // Debian's libcuda is libcuda1 (non-free); libnvidia-compute-<branch> is Ubuntu's.
  CHECK_FALSE(has(fix, "Debian/Ubuntu: sudo apt install libnvidia-compute"));
  CHECK(has(fix, "Debian: sudo apt install libcuda1"));
  CHECK(has(fix, "Ubuntu: sudo apt install libnvidia-compute-<branch>"));
  CHECK(has(fix, "restarting dockerd stops running containers unless live-restore is enabled"));
  CHECK(has(fix, "sudo env LD_LIBRARY_PATH=\"$LD_LIBRARY_PATH\" gpudoctor"));
  CHECK(has(fix, "/usr/lib/wsl/lib"));

  gd::Finding missing = finding_on("libraries.driver-userspace-missing", "positive/container-started-without-gpus.json");
  std::string missing_fix = all_fix_lines(missing);
  INFO(missing_fix);
  CHECK(has(missing_fix, "Debian host: sudo apt install libcuda1"));
  CHECK(has(missing_fix, "nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml"));
  CHECK(has(missing_fix, "this stops running containers unless live-restore is enabled"));
  // nvidia-installer --no-opengl-files still installs libcuda; --kernel-module-only does not.
  CHECK_FALSE(has(missing.why, "--no-opengl-files"));
  CHECK(has(missing.why, "--kernel-module-only"));
}

TEST_CASE("cuda.stub-libcuda checks the file ldconfig's link resolves to", "[rules][fixtures][fix-text]") {
  // ldconfig -p prints the soname link (.../libcuda.so.1), never libcuda.so.<version>.
  gd::Finding finding = finding_on("cuda.stub-libcuda", "positive/stubs-on-ld-library-path.json");
  std::string fix = all_fix_lines(finding);
  INFO(fix);
  CHECK_FALSE(has(fix, "ldconfig -p | grep libcuda.so.1 must point at"));
  CHECK(has(fix, "readlink -f \"$(ldconfig -p | awk '/libcuda.so.1 /{print $NF; exit}')\""));
  CHECK(has(fix, "delete the libcuda.so.1 symlink in that stubs folder"));
}

TEST_CASE("cuda.no-device-while-nvml-sees-gpus does not expect major 195 for every node", "[rules][fixtures][fix-text]") {
  // nvidia-uvm gets a dynamic major (alloc_chrdev_region); /dev/nvidia-caps is a folder.
  gd::Finding finding = finding_on("cuda.no-device-while-nvml-sees-gpus", "positive/devnode-unusable.json");
  std::string fix = all_fix_lines(finding);
  INFO(fix);
  CHECK_FALSE(has(fix, "expect character devices with major 195, mode crw-rw-rw-"));
  CHECK(has(fix, "the major listed for nvidia-uvm in /proc/devices"));
  CHECK(has(fix, "changing MIG mode needs the GPU idle"));
}

TEST_CASE("the cuda rules say what their resets, reloads and filters cost", "[rules][fixtures][fix-text]") {
  gd::Finding context = finding_on("cuda.context-creation-fails", "positive/context-46-no-other-process.json");
  std::string context_fix = all_fix_lines(context);
  INFO(context_fix);
  // 802 (fabric manager) is a cuInit result: cuInit failures never reach this rule.
  CHECK_FALSE(has(context_fix, "nvidia-fabricmanager"));
  CHECK_FALSE(has(context.why, "802"));
  CHECK(has(context_fix, "on the host with no CUDA process running: sudo rmmod nvidia_uvm"));
  CHECK(has(context_fix, "ends all work on it"));

  gd::Finding init = finding_on("cuda.init-failed", "positive/cuinit-999-uvm.json");
  std::string init_fix = all_fix_lines(init);
  INFO(init_fix);
  CHECK(has(init_fix, "--security-opt seccomp=unconfined ... (a test only: it turns the syscall filter off)"));
  CHECK(has(init_fix, "on the host with no CUDA process running: sudo rmmod nvidia_uvm"));
  CHECK(has(init_fix, "CUDA_VISIBLE_DEVICES=<their UUIDs>"));

  gd::Finding versions = finding_on("libraries.several-libcuda-versions", "positive/stale-copy-in-usr-local-lib.json");
  std::string versions_fix = all_fix_lines(versions);
  INFO(versions_fix);
  CHECK(has(versions_fix, "sudo nvidia-uninstall (this removes that driver entirely"));
}

TEST_CASE("libraries.compat-libcuda-unsupported-gpu gives the mixed-GPU remedy and names the toolkit hook", "[rules][fixtures][fix-text]") {
  gd::Finding finding = finding_on("libraries.compat-libcuda-unsupported-gpu", "positive/mixed-datacenter-and-workstation-gpus.json");
  std::string fix = all_fix_lines(finding);
  INFO(fix);
  CHECK(has(fix, "export CUDA_VISIBLE_DEVICES=<their UUIDs from nvidia-smi -L>"));
  CHECK(has(fix, "/etc/ld.so.conf.d/00-compat-*.conf"));
  CHECK(has(finding.message, "/usr/local/cuda-12.8/compat/libcuda.so.570.124.06"));
}

}  // namespace GD_UNITY_ID
