#include "probes/driver/nvidia_module.hpp"

#include <catch2/catch.hpp>

#include <cerrno>
#include <string>

#include "host_captures.hpp"
#include "core/fact_key.hpp"
#include "sys/replay_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::Capture;
using gd::FactSet;
using gd::FactState;
using gd::parse_nvrm_version;

namespace {

constexpr std::string_view k_version_path = "/proc/driver/nvidia/version";

// /proc/driver/nvidia/version of a real H200 host (shared/fixtures/real/h200-container-580.159.04),
// byte for byte: open kernel module built by Nix, double spaces and trailing blanks included.
constexpr std::string_view k_open_x86_64 =
    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)  \n"
    "GCC version:  gcc version 15.3.0 (GCC) \n";
// The proprietary module as NVIDIA's .run installer builds it.
constexpr std::string_view k_proprietary_x86_64 =
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 09:35:42 UTC 2024\n"
    "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04) \n";
// The open module on a Grace Hopper (aarch64) host.
constexpr std::string_view k_open_aarch64 =
    "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  570.124.06  Release Build  "
    "(dvs-builder@U16-I3-B13-4-1)  Thu Feb 20 22:23:45 UTC 2025\n"
    "GCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04) \n";

FactSet run_probe(Capture capture) {
  gd::ReplayHost host(std::move(capture));
  FactSet facts;
  gd::probe_nvidia_module(host, gd::ProbeOptions{}, facts);
  return facts;
}

Capture with_version_file(gd::IoResult<std::string> content, std::uint32_t uid) {
  Capture c;
  c.identity = gd::Identity{uid, uid, {}};
  c.paths[std::string(k_version_path)].read = std::move(content);
  return c;
}

FactState state_of(const FactSet& facts, std::string_view name) {
  const gd::Fact* fact = facts.find(gd::FactName::unchecked(name));
  REQUIRE(fact);
  return fact->state;
}

}  // namespace

TEST_CASE("nvrm version: open module on x86_64", "[probes][nvidia_module]") {
  auto parsed = parse_nvrm_version(k_open_x86_64);
  REQUIRE(parsed);
  CHECK(parsed->version == "580.159.04");
  CHECK(parsed->flavor == "open");
  CHECK(parsed->arch == "x86_64");
}

TEST_CASE("nvrm version: proprietary module", "[probes][nvidia_module]") {
  auto parsed = parse_nvrm_version(k_proprietary_x86_64);
  REQUIRE(parsed);
  CHECK(parsed->version == "550.90.07");
  CHECK(parsed->flavor == "proprietary");
  CHECK(parsed->arch == "x86_64");

  auto old = parse_nvrm_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  470.256.02  Thu May  2 14:37:44 UTC 2024");
  REQUIRE(old);
  CHECK(old->version == "470.256.02");
  CHECK(old->flavor == "proprietary");
}

TEST_CASE("nvrm version: open module on aarch64", "[probes][nvidia_module]") {
  auto parsed = parse_nvrm_version(k_open_aarch64);
  REQUIRE(parsed);
  CHECK(parsed->version == "570.124.06");
  CHECK(parsed->flavor == "open");
  CHECK(parsed->arch == "aarch64");
}

TEST_CASE("nvrm version: anything else is not recognised", "[probes][nvidia_module]") {
  for (std::string_view text : {
           std::string_view(""),
           std::string_view("\n"),
           std::string_view("garbage\x01\xff"),
           std::string_view("NVRM version:"),
           std::string_view("NVRM version: NVIDIA UNIX x86_64 Kernel Module  Fri May 31 09:35:42 UTC 2024\n"),
           std::string_view("GCC version:  gcc version 15.3.0 (GCC) \n"),
           // the NVRM line must come first, as nv-procfs.c prints it
           std::string_view("GCC version:  gcc version 15.3.0 (GCC) \nNVRM version: NVIDIA UNIX x86_64 Kernel Module  "
                            "550.90.07\n"),
           std::string_view(" NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07\n"),
       }) {
    CAPTURE(text);
    CHECK_FALSE(parse_nvrm_version(text).has_value());
  }
}

TEST_CASE("nvidia module probe: loaded", "[probes][nvidia_module]") {
  FactSet facts = run_probe(with_version_file(std::string(k_open_x86_64), 1000));
  CHECK(facts.get_bool("kmod.nvidia.loaded"_fact) == true);
  CHECK(facts.get_string("kmod.nvidia.version"_fact) == "580.159.04");
  CHECK(facts.get_string("kmod.nvidia.flavor"_fact) == "open");
  CHECK(facts.find("kmod.nvidia.version"_fact)->source == "/proc/driver/nvidia/version");
}

TEST_CASE("nvidia module probe: the captured H200 container", "[probes][nvidia_module]") {
  FactSet facts = run_probe(gd::test::host_capture("h200-container-580.159.04"));
  CHECK(facts.get_bool("kmod.nvidia.loaded"_fact) == true);
  CHECK(facts.get_string("kmod.nvidia.version"_fact) == "580.159.04");
  CHECK(facts.get_string("kmod.nvidia.flavor"_fact) == "open");
}

TEST_CASE("nvidia module probe: no /proc/driver/nvidia means not loaded", "[probes][nvidia_module]") {
  Capture host;  // a mounted /proc whose module list has no nvidia
  host.paths["/proc/modules"].read = std::string("ext4 1003520 1 - Live 0xffffffffc0a00000\n");
  FactSet facts = run_probe(host);
  CHECK(facts.get_bool("kmod.nvidia.loaded"_fact) == false);
  CHECK(state_of(facts, "kmod.nvidia.version"_fact) == FactState::absent);
  CHECK(state_of(facts, "kmod.nvidia.flavor"_fact) == FactState::absent);
}

TEST_CASE("nvidia module probe: a tree without a mounted /proc says nothing", "[probes][nvidia_module]") {
  // `mount --bind / /mnt` or a disk mounted for rescue: neither /proc/driver/nvidia/version nor
  // /proc/modules, which is not "not loaded" (seen on the H200: bench/results/offline/root-bind.txt).
  FactSet facts = run_probe(Capture{});
  for (gd::FactName name : {"kmod.nvidia.loaded"_fact, "kmod.nvidia.version"_fact, "kmod.nvidia.flavor"_fact}) {
    INFO(name.view());
    CHECK(state_of(facts, name) == FactState::unknown);
    CHECK(facts.find(gd::FactName::unchecked(name))->reason == "no /proc/driver/nvidia/version and no /proc/modules: /proc is not mounted here");
  }
}

TEST_CASE("nvidia module probe: unreadable as an ordinary user needs root", "[probes][nvidia_module]") {
  FactSet facts = run_probe(with_version_file(std::unexpected(gd::IoError{EACCES}), 1000));
  for (gd::FactName name : {"kmod.nvidia.loaded"_fact, "kmod.nvidia.version"_fact, "kmod.nvidia.flavor"_fact}) {
    CAPTURE(name);
    const gd::Fact* fact = facts.find(gd::FactName::unchecked(name));
    REQUIRE(fact);
    CHECK(fact->state == FactState::unknown);
    CHECK_THAT(fact->reason, Catch::Contains("needs root") && Catch::Contains("EACCES"));
  }
}

TEST_CASE("nvidia module probe: unreadable as root is only the error", "[probes][nvidia_module]") {
  FactSet facts = run_probe(with_version_file(std::unexpected(gd::IoError{EIO}), 0));
  const gd::Fact* loaded = facts.find("kmod.nvidia.loaded"_fact);
  REQUIRE(loaded);
  CHECK(loaded->state == FactState::unknown);
  CHECK_THAT(loaded->reason, Catch::StartsWith("EIO"));
  CHECK_THAT(loaded->reason, !Catch::Contains("needs root"));
}

TEST_CASE("nvidia module probe: unrecognised content", "[probes][nvidia_module]") {
  FactSet facts = run_probe(with_version_file(std::string("garbage\n"), 0));
  CHECK(facts.get_bool("kmod.nvidia.loaded"_fact) == true);
  CHECK(state_of(facts, "kmod.nvidia.version"_fact) == FactState::unknown);
  CHECK_THAT(facts.find("kmod.nvidia.version"_fact)->reason, Catch::Contains("unrecognised content"));
}

TEST_CASE("nvidia module probe: every part on the captured H200 container", "[probes][nvidia_module]") {
  FactSet facts = run_probe(gd::test::host_capture("h200-container-580.159.04"));
  CHECK(facts.get_string("kmod.nvidia.sysfs_version"_fact) == "580.159.04");
  CHECK(facts.get_bool("kmod.nvidia_uvm.loaded"_fact) == true);
  CHECK(facts.get_bool("kmod.nouveau.loaded"_fact) == false);
  CHECK(facts.get_int("kmod.nvidia.params.enable_gpu_firmware"_fact) == 18);
  CHECK(facts.get_int("kmod.nvidia.gpu_count"_fact) == 1);
  CHECK(std::get<std::vector<std::string>>(facts.find("kmod.nvidia.gpu_firmware_versions"_fact)->value) ==
        std::vector<std::string>{"580.159.04"});
  // Inside the container: no /lib/modules, no modprobe.d, /sys/firmware not visible.
  CHECK(state_of(facts, "kmod.nvidia.disk_version"_fact) == FactState::absent);
  CHECK(facts.get_bool("kmod.nvidia.built_for_running_kernel"_fact) == true);
  CHECK(facts.get_bool("modprobe.nvidia_blacklisted"_fact) == false);
  CHECK(state_of(facts, "secureboot.enabled"_fact) == FactState::absent);
}

TEST_CASE("nvidia module probe: /proc/driver/nvidia hidden but the module is listed", "[probes][nvidia_module]") {
  Capture capture;
  capture.identity = gd::Identity{0, 0, {}};
  capture.paths["/proc/modules"].read = std::string("nvidia 14299136 - - Live 0xffffffffc0400000 (O)\n");
  capture.paths["/sys/module/nvidia/version"].read = std::string("580.159.04\n");
  FactSet facts = run_probe(std::move(capture));
  CHECK(facts.get_bool("kmod.nvidia.loaded"_fact) == true);
  CHECK(facts.find("kmod.nvidia.loaded"_fact)->source == "/proc/modules");
  CHECK(facts.get_string("kmod.nvidia.version"_fact) == "580.159.04");
  CHECK(state_of(facts, "kmod.nvidia.flavor"_fact) == FactState::unknown);
}

}  // namespace GD_UNITY_ID
