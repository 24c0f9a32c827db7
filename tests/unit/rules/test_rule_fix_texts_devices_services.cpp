// Fix texts of the container, devices, nvml, services and firmware rules that the rule audit
// (docs/rules-audit.md, issue 11) found wrong: the fix is not part of a finding's message, so the
// fixtures cannot check it. Each check names the source that makes the old text wrong.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "rules/rule_files.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

#ifndef GD_SOURCE_DIR
#error "GD_SOURCE_DIR must name the repository root"
#endif

namespace {

namespace fs = std::filesystem;

/// The rule `id`, from the repository's rules (loaded together: a rule names others it supersedes).
gd::Rule load_rule(const std::string& id) {
  gd::RuleLoadResult loaded = gd::load_rules_from_path((fs::path(GD_SOURCE_DIR) / "rules").string());
  REQUIRE(loaded.errors.empty());
  auto rule = std::find_if(loaded.rules.begin(), loaded.rules.end(), [&](const gd::Rule& r) { return r.id == id; });
  REQUIRE(rule != loaded.rules.end());
  return *rule;
}

bool any_fix_contains(const gd::Rule& rule, const std::string& text) {
  return std::any_of(rule.fix.begin(), rule.fix.end(),
                     [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("devices.nvidia-nodes-invalid creates /dev/nvidiactl with minor 255", "[rules][fixes]") {
  // nvidia-modprobe's assign_device_file_name(): minor 255 (NV_CTL_DEVICE_NUM) is /dev/nvidiactl,
  // every other -c N is /dev/nvidiaN; -c 0 alone never creates /dev/nvidiactl.
  gd::Rule rule = load_rule("devices.nvidia-nodes-invalid");
  CHECK(any_fix_contains(rule, "nvidia-modprobe -c 255 -c 0"));
  CHECK(any_fix_contains(rule, "mknod -m 666 /dev/nvidiactl c 195 255"));
  CHECK_FALSE(any_fix_contains(rule, "it also creates /dev/nvidiactl"));
  CHECK_FALSE(any_fix_contains(rule, "(sudo rm /dev/nvidiactl) and create it again: sudo nvidia-modprobe -c 0"));
}

TEST_CASE("services.fabricmanager-not-running names the packages of each repository and NVLSM", "[rules][fixes]") {
  // NVIDIA's RPM repositories ship nvidia-fabric-manager (AWS EC2 driver guide: sudo dnf install
  // nvidia-fabric-manager); the Ubuntu archive nvidia-fabricmanager-<branch> (packages.ubuntu.com);
  // NVLink-5 baseboards (HGX B200/B300) need nvlsm and ib_umad as well.
  gd::Rule rule = load_rule("services.fabricmanager-not-running");
  CHECK(any_fix_contains(rule, "sudo dnf install nvidia-fabric-manager-{kmod.nvidia.version}"));
  CHECK(any_fix_contains(rule, "sudo apt install nvidia-fabricmanager-<branch>"));
  CHECK(any_fix_contains(rule, "nvlsm"));
  CHECK(any_fix_contains(rule, "ib_umad"));
  CHECK_FALSE(any_fix_contains(rule, "RHEL sudo dnf install nvidia-fabricmanager-<version>"));
}

TEST_CASE("devices.open-eperm warns before restarting the Docker daemon on a Kubernetes node", "[rules][fixes]") {
  // nvidia-docker#1671: switching Docker to cgroupfs on a kubelet node stops kubelet (the cgroup
  // drivers must match); restarting dockerd stops the running containers.
  gd::Rule rule = load_rule("devices.open-eperm");
  CHECK(any_fix_contains(rule, "not a Kubernetes node"));
  CHECK(any_fix_contains(rule, "stops running containers unless live-restore is enabled"));
}

TEST_CASE("nvml.driver-library-mismatch says what holds the modules before reloading them", "[rules][fixes]") {
  // rmmod nvidia fails while nvidia_peermem, persistenced, fabric manager, the desktop session or any
  // process holds it (it ends none of them: issue 23's review); dnf has no "exclude" step that pins a
  // version (python3-dnf-plugin-versionlock).
  gd::Rule rule = load_rule("nvml.driver-library-mismatch");
  CHECK_FALSE(any_fix_contains(rule, "ends every process using the GPU"));
  CHECK(any_fix_contains(rule, "first stop every process using the GPU"));
  CHECK(any_fix_contains(rule, "nvidia_peermem"));
  CHECK(any_fix_contains(rule, "sudo dnf versionlock add"));
}

TEST_CASE("firmware.gsp-firmware-missing names a package query, not invented package names", "[rules][fixes]") {
  // Debian ships the GSP firmware as firmware-nvidia-gsp (packages.debian.org); there is no
  // "nvidia-firmware" package to reinstall there, and other distributions name it differently.
  gd::Rule rule = load_rule("firmware.gsp-firmware-missing");
  CHECK(any_fix_contains(rule, "dpkg -S /lib/firmware/nvidia/<other version>"));
  CHECK(any_fix_contains(rule, "rpm -qf /lib/firmware/nvidia/<other version>"));
  CHECK(any_fix_contains(rule, "firmware-nvidia-gsp"));
  CHECK_FALSE(any_fix_contains(rule, "nvidia-driver/nvidia-firmware packages"));
}

TEST_CASE("the uvm rules work without nvidia-modprobe and with the CDI refresh service", "[rules][fixes]") {
  // nvidia-modprobe is not installed everywhere (absent on the H200 test machine); toolkit 1.18
  // regenerates /var/run/cdi/nvidia.yaml through nvidia-cdi-refresh.service (cdi-support.html).
  for (const char* id : {"devices.uvm-missing", "devices.uvm-wrong-major", "devices.uvm-module-not-loaded"}) {
    INFO(id);
    gd::Rule rule = load_rule(id);
    CHECK(any_fix_contains(rule, "mknod -m 666 /dev/nvidia-uvm c "));
  }
  CHECK(any_fix_contains(load_rule("devices.uvm-missing"), "nvidia-cdi-refresh.service"));
  CHECK(any_fix_contains(load_rule("devices.uvm-module-not-loaded"), "nvidia-cdi-refresh.service"));
}

TEST_CASE("container.no-gpus says that restarting Docker stops the running containers", "[rules][fixes]") {
  gd::Rule rule = load_rule("container.no-gpus");
  CHECK(any_fix_contains(rule, "running containers stop unless live-restore is enabled"));
  CHECK(any_fix_contains(rule, "nvidia-cdi-refresh.service"));
}

TEST_CASE("container fixes: void set by CDI stays, an empty seccomp log clears nothing", "[rules][fixes]") {
  // nvidia-container-toolkit PR #395: CDI specs set NVIDIA_VISIBLE_DEVICES=void on purpose.
  CHECK(any_fix_contains(load_rule("container.visible-devices-void"), "Unless the GPUs come through CDI"));
  // kernel/seccomp.c seccomp_log(): SECCOMP_RET_ERRNO is logged only when the filter asked for it.
  CHECK(any_fix_contains(load_rule("container.init-os-call-blocked"), "SECCOMP_FILTER_FLAG_LOG"));
}

}  // namespace GD_UNITY_ID
