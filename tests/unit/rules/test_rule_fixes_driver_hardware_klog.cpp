// Fix texts of the driver, hardware and kernel-log rules that were wrong (issue 11): the fixture
// tests see only `message`, so the commands a user would copy are pinned here.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "rules/rule_files.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

namespace {

const gd::Rule& rule(std::string_view id) {
  static const gd::RuleLoadResult loaded = gd::load_rules_from_path(std::string(GD_SOURCE_DIR) + "/rules");
  REQUIRE(loaded.errors.empty());
  for (const gd::Rule& r : loaded.rules) {
    if (r.id == id) return r;
  }
  FAIL("no rule " << id);
  throw;  // unreachable
}

bool any_line(const gd::Rule& r, std::string_view text) {
  for (const std::string& line : r.fix) {
    if (line.find(text) != std::string::npos) return true;
  }
  return false;
}

/// A fix line that mentions both texts.
bool a_line_with_both(const gd::Rule& r, std::string_view a, std::string_view b) {
  for (const std::string& line : r.fix) {
    if (line.find(a) != std::string::npos && line.find(b) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("Secure Boot fixes enrol the key Ubuntu's DKMS signs with", "[rules][fix-text]") {
  // Ubuntu 20.04/22.04 (DKMS 2.8) sign through update-secureboot-policy with the shim-signed MOK,
  // /var/lib/shim-signed/mok/MOK.der; /var/lib/dkms/mok.pub is DKMS 3.x's default elsewhere.
  for (std::string_view id : {"driver.secure-boot-rejects-module", "klog.module-signature-rejected"}) {
    CAPTURE(id);
    const gd::Rule& r = rule(id);
    CHECK(a_line_with_both(r, "Ubuntu", "update-secureboot-policy --enroll-key"));
    CHECK(any_line(r, "/var/lib/shim-signed/mok/MOK.der"));
    CHECK_FALSE(a_line_with_both(r, "Ubuntu", "mokutil --import /var/lib/dkms/mok.pub"));
    CHECK(any_line(r, "grep -hs '^mok_certificate' /etc/dkms/framework.conf"));
    // An installed module is not re-signed by autoinstall: it must be rebuilt.
    CHECK(any_line(r, "sudo dkms remove nvidia/<version> -k $(uname -r) && sudo dkms install"));
    // Enrolment needs a reboot and someone at the console.
    CHECK(a_line_with_both(r, "reboot", "console"));
  }
}

TEST_CASE("module reload fixes stop what holds the module and say what they end", "[rules][fix-text]") {
  for (std::string_view id : {"driver.reboot-pending", "driver.userspace-version-mismatch", "klog.api-mismatch"}) {
    CAPTURE(id);
    const gd::Rule& r = rule(id);
    CHECK_FALSE(any_line(r, "rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia &&"));
    CHECK(a_line_with_both(r, "nvidia_peermem", "nvidia-fabricmanager"));
    CHECK(any_line(r, "drops every GPU context"));
  }
}

TEST_CASE("newer-than-driver names the version the GPU needs, not a branch guess", "[rules][fix-text]") {
  const gd::Rule& r = rule("hardware.gpu-newer-than-driver");
  CHECK(any_line(r, "{kmod.nvidia.needed_version} or later"));
  CHECK(any_line(r, "nvidia-driver-{kmod.nvidia.needed_branch}-open"));
  CHECK(any_line(r, "module switch-to nvidia-driver:open-dkms --allowerasing"));
  CHECK(r.why.find("590.44.01") == std::string::npos);  // B300/GB300 are supported from 580.82.07
  CHECK(r.why.find("580.82.07") != std::string::npos);
}

TEST_CASE("the 580 proprietary advice is not given where a Blackwell GPU needs the open module", "[rules][fix-text]") {
  const gd::Rule& mix = rule("hardware.gpu-mix-needs-two-drivers");
  CHECK(any_line(mix, "Keep the open driver for the newer GPUs"));
  const gd::Rule& klog = rule("klog.gpu-not-supported");
  REQUIRE_FALSE(klog.fix.empty());
  CHECK(klog.fix.front().find("Blackwell or Grace Hopper") != std::string::npos);
}

TEST_CASE("nouveau fixes use commands that exist on each distribution", "[rules][fix-text]") {
  const gd::Rule& r = rule("hardware.nouveau-bound");
  CHECK_FALSE(any_line(r, "mkinitrd"));  // openSUSE uses dracut
  CHECK(any_line(r, "grubby --update-kernel=ALL --args="));
  CHECK(any_line(r, "that display has no driver until nvidia takes it"));
}

}  // namespace GD_UNITY_ID
