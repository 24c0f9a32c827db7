// Fix texts of the container, devices, nvml, services and firmware rules that the rule audit
// (docs/rules-audit.md, issue 11) found wrong: the fix is not part of a finding's message, so the
// fixtures cannot check it. Each check names the source that makes the old text wrong.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "rules/rule_files.hpp"

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
