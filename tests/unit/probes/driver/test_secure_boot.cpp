#include <catch2/catch.hpp>
#include <cerrno>

#include "core/fact_key.hpp"
#include "probes/driver/secure_boot.hpp"
#include "sys/replay_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::Capture;
using gd::FactSet;
using gd::FactState;

namespace {

constexpr const char* k_var = "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";
// Attributes NON_VOLATILE|BOOTSERVICE_ACCESS|RUNTIME_ACCESS = 0x06 (little endian), then the value.
const std::string k_on("\x06\x00\x00\x00\x01", 5);
const std::string k_off("\x06\x00\x00\x00\x00", 5);

FactSet run(Capture capture) {
  gd::ReplayHost host(std::move(capture));
  FactSet facts;
  gd::record_secure_boot(host, facts);
  return facts;
}

}  // namespace

TEST_CASE("secure boot variable content", "[probes][secure_boot]") {
  CHECK(gd::parse_secure_boot_variable(k_on) == true);
  CHECK(gd::parse_secure_boot_variable(k_off) == false);
  CHECK_FALSE(gd::parse_secure_boot_variable(std::string("\x06\x00\x00\x00", 4)));
  CHECK_FALSE(gd::parse_secure_boot_variable(std::string("\x06\x00\x00\x00\x02", 5)));
  CHECK_FALSE(gd::parse_secure_boot_variable("1\n"));
}

TEST_CASE("secure boot probe: on and off", "[probes][secure_boot]") {
  Capture on;
  on.paths[k_var].read = k_on;
  CHECK(run(std::move(on)).get_bool("secureboot.enabled"_fact) == true);
  Capture off;
  off.paths[k_var].read = k_off;
  CHECK(run(std::move(off)).get_bool("secureboot.enabled"_fact) == false);
}

TEST_CASE("secure boot probe: not an EFI boot is absent", "[probes][secure_boot]") {
  FactSet facts = run(Capture{});
  CHECK(facts.find("secureboot.enabled"_fact)->state == FactState::absent);
}

TEST_CASE("secure boot probe: EFI without the variable, or without efivarfs", "[probes][secure_boot]") {
  Capture no_support;
  no_support.paths["/sys/firmware/efi/efivars/BootOrder-8be4df61-93ca-11d2-aa0d-00e098032b8c"].read =
      std::string(6, '\0');
  CHECK(run(std::move(no_support)).get_bool("secureboot.enabled"_fact) == false);

  Capture not_mounted;
  not_mounted.paths["/sys/firmware/efi/systab"].read = std::string("ACPI20=0x7f7e6014\n");
  FactSet facts = run(std::move(not_mounted));
  CHECK(facts.find("secureboot.enabled"_fact)->state == FactState::unknown);
  CHECK_THAT(facts.find("secureboot.enabled"_fact)->reason, Catch::Contains("efivarfs"));
}

TEST_CASE("secure boot probe: unreadable is unknown", "[probes][secure_boot]") {
  Capture capture;
  capture.identity = gd::Identity{1000, 1000, {}};
  capture.paths[k_var].read = std::unexpected(gd::IoError{EACCES});
  FactSet facts = run(std::move(capture));
  CHECK(facts.find("secureboot.enabled"_fact)->state == FactState::unknown);
  CHECK_THAT(facts.find("secureboot.enabled"_fact)->reason, Catch::Contains("needs root"));
}

namespace {

FactSet run_enforcement(Capture capture, bool secure_boot = true) {
  gd::ReplayHost host(std::move(capture));
  FactSet facts;
  facts.set("secureboot.enabled"_fact, secure_boot);
  gd::record_module_sig_enforcement(host, facts);
  return facts;
}

constexpr const char* k_sig_enforce = "/sys/module/module/parameters/sig_enforce";
constexpr const char* k_lockdown = "/sys/kernel/security/lockdown";

}  // namespace

TEST_CASE("lockdown mode", "[probes][secure_boot]") {
  CHECK(gd::parse_lockdown_mode("none [integrity] confidentiality\n") == "integrity");
  CHECK(gd::parse_lockdown_mode("[none] integrity confidentiality\n") == "none");
  CHECK(gd::parse_lockdown_mode("none integrity [confidentiality]\n") == "confidentiality");
  CHECK_FALSE(gd::parse_lockdown_mode("none integrity confidentiality\n"));
  CHECK_FALSE(gd::parse_lockdown_mode("[]"));
}

TEST_CASE("module signature enforcement: sig_enforce or lockdown", "[probes][secure_boot]") {
  Capture enforce;
  enforce.paths[k_sig_enforce].read = std::string("Y\n");
  CHECK(run_enforcement(std::move(enforce)).get_bool("secureboot.module_sig_enforced"_fact) == true);

  Capture locked;  // Ubuntu/Fedora with Secure Boot: lockdown integrity, sig_enforce N
  locked.paths[k_sig_enforce].read = std::string("N\n");
  locked.paths[k_lockdown].read = std::string("none [integrity] confidentiality\n");
  CHECK(run_enforcement(std::move(locked)).get_bool("secureboot.module_sig_enforced"_fact) == true);

  Capture off;  // Secure Boot on but validation disabled in shim (mokutil --disable-validation)
  off.paths[k_sig_enforce].read = std::string("N\n");
  off.paths[k_lockdown].read = std::string("[none] integrity confidentiality\n");
  CHECK(run_enforcement(std::move(off)).get_bool("secureboot.module_sig_enforced"_fact) == false);

  Capture no_lsm;  // securityfs mounted, no lockdown LSM
  no_lsm.paths[k_sig_enforce].read = std::string("N\n");
  no_lsm.paths["/sys/kernel/security/apparmor/profiles"].read = std::string("");
  CHECK(run_enforcement(std::move(no_lsm)).get_bool("secureboot.module_sig_enforced"_fact) == false);
}

TEST_CASE("module signature enforcement: what cannot be told is unknown", "[probes][secure_boot]") {
  Capture no_securityfs;  // a container: securityfs not mounted
  no_securityfs.paths[k_sig_enforce].read = std::string("N\n");
  FactSet facts = run_enforcement(std::move(no_securityfs));
  CHECK(facts.find("secureboot.module_sig_enforced"_fact)->state == FactState::unknown);
  CHECK_THAT(facts.find("secureboot.module_sig_enforced"_fact)->reason, Catch::Contains("securityfs"));

  Capture unread;
  unread.paths[k_lockdown].read = std::string("[none] integrity confidentiality\n");
  CHECK(run_enforcement(std::move(unread)).find("secureboot.module_sig_enforced"_fact)->state == FactState::unknown);
}

TEST_CASE("module signature enforcement: not examined without Secure Boot", "[probes][secure_boot]") {
  Capture enforce;
  enforce.paths[k_sig_enforce].read = std::string("Y\n");
  FactSet facts = run_enforcement(std::move(enforce), false);
  CHECK(facts.find("secureboot.module_sig_enforced"_fact)->state == FactState::unknown);
  CHECK_THAT(facts.find("secureboot.module_sig_enforced"_fact)->reason, Catch::Contains("not examined"));
}

}  // namespace GD_UNITY_ID
