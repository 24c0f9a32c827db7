#include "probes/devices/proc_devices.hpp"

#include <catch2/catch.hpp>

#include "host_captures.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::character_major;
using gd::parse_proc_devices;

namespace {

/// /proc/devices of the real H200 host (shared/fixtures/real/h200-container-580.159.04), as the
/// healthy capture holds it byte for byte.
std::string h200_proc_devices() {
  gd::Capture capture = gd::test::host_capture("h200-container-580.159.04");
  const auto& read = capture.paths.at("/proc/devices").read;
  REQUIRE(read.has_value());
  REQUIRE(read->has_value());
  return **read;
}

}  // namespace

TEST_CASE("proc devices: the real H200 file", "[probes][proc_devices]") {
  gd::ProcDevices devices = parse_proc_devices(h200_proc_devices());
  CHECK(character_major(devices, "nvidia") == 195);
  CHECK(character_major(devices, "nvidiactl") == 195);
  CHECK(character_major(devices, "nvidia-uvm") == 238);
  CHECK(character_major(devices, "nvidia-caps") == 241);
  CHECK(character_major(devices, "nvidia-nvlink") == 240);
  CHECK(character_major(devices, "mem") == 1);
  CHECK_FALSE(character_major(devices, "nvidia-modeset"));
  // Block majors are not character majors: "254 virtblk" is a block device there.
  CHECK(character_major(devices, "virtblk") == std::nullopt);
  REQUIRE(devices.block.size() == 4);
  CHECK(devices.block[2].name == "virtblk");
  CHECK(devices.block[2].major == 254);
}

TEST_CASE("proc devices: names with slashes, right-aligned numbers", "[probes][proc_devices]") {
  // fs/proc/devices.c prints "%3d %s\n"; names may hold slashes ("/dev/vc/0").
  gd::ProcDevices devices = parse_proc_devices("Character devices:\n  4 /dev/vc/0\n 10 misc\n509 nvidia-uvm\n\nBlock devices:\n  8 sd\n");
  REQUIRE(devices.character.size() == 3);
  CHECK(devices.character[0].name == "/dev/vc/0");
  CHECK(character_major(devices, "nvidia-uvm") == 509);
  CHECK(character_major(devices, "sd") == std::nullopt);
}

TEST_CASE("proc devices: no nvidia module, empty and garbled input", "[probes][proc_devices]") {
  gd::ProcDevices devices = parse_proc_devices("Character devices:\n  1 mem\n\nBlock devices:\n");
  CHECK_FALSE(character_major(devices, "nvidia-uvm"));
  CHECK(parse_proc_devices("").character.empty());
  // Lines before a section header and lines that are not "number name" are ignored.
  gd::ProcDevices odd = parse_proc_devices("195 nvidia\nCharacter devices:\nx nvidia\n195\n 238 nvidia-uvm \n");
  REQUIRE(odd.character.size() == 1);
  CHECK(odd.character[0].major == 238);
  CHECK(odd.character[0].name == "nvidia-uvm");
}

}  // namespace GD_UNITY_ID
