#include <catch2/catch.hpp>
#include <string>

#include "probes/shared/elf_modinfo.hpp"
#include "sys/replay_host.hpp"
#include "tiny_elf.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::Capture;
using gd::test::TinyElf;

namespace {

constexpr const char* k_path = "/lib/modules/6.8.0-45-generic/updates/dkms/nvidia.ko";

gd::ReplayHost host_with(const std::string& bytes) {
  Capture capture;
  capture.identity = gd::Identity{0, 0, {}};
  capture.paths[k_path].read = bytes;
  return gd::ReplayHost(std::move(capture));
}

}  // namespace

TEST_CASE("elf header: 64-bit little endian and 32-bit big endian", "[probes][elf_modinfo]") {
  auto layout = gd::parse_elf_header(TinyElf{}.build());
  REQUIRE(layout);
  CHECK(layout->is_64);
  CHECK(layout->little_endian);
  CHECK(layout->section_header_size == 64);
  CHECK(layout->section_count == 4);
  CHECK(layout->names_section == 3);

  TinyElf be32;
  be32.is_64 = false;
  be32.little_endian = false;
  auto small = gd::parse_elf_header(be32.build());
  REQUIRE(small);
  CHECK_FALSE(small->is_64);
  CHECK_FALSE(small->little_endian);
  CHECK(small->section_header_size == 40);
  CHECK(small->section_count == 4);
}

TEST_CASE("elf header: not an ELF file", "[probes][elf_modinfo]") {
  CHECK_FALSE(gd::parse_elf_header(""));
  CHECK_FALSE(gd::parse_elf_header(std::string(64, '\0')));
  CHECK_FALSE(gd::parse_elf_header(std::string("\xfd"
                                               "7zXZ",
                                               5) +
                                   std::string(60, '\0')));  // nvidia.ko.xz
  std::string bad_class = TinyElf{}.build();
  bad_class[4] = 7;
  CHECK_FALSE(gd::parse_elf_header(bad_class));
}

TEST_CASE("modinfo: key=value strings with padding", "[probes][elf_modinfo]") {
  std::string section(
      "license=NVIDIA\0\0\0firmware=nvidia/550.90.07/gsp_ga10x.bin\0firmware=nvidia/550.90.07/"
      "gsp_tu10x.bin\0version=550.90.07\0alias=pci:v000010DEd*sv*sd*bc03sc00i00*\0",
      140);
  auto info = gd::parse_modinfo(section);
  CHECK(info.version == "550.90.07");
  CHECK(info.license == "NVIDIA");
  CHECK(info.vermagic.empty());
  CHECK(info.firmware == std::vector<std::string>{"nvidia/550.90.07/gsp_ga10x.bin", "nvidia/550.90.07/gsp_tu10x.bin"});
}

TEST_CASE("modinfo: flavour from the license", "[probes][elf_modinfo]") {
  CHECK(gd::flavor_from_license("Dual MIT/GPL") == "open");
  CHECK(gd::flavor_from_license("NVIDIA") == "proprietary");
  CHECK(gd::flavor_from_license("GPL").empty());
}

TEST_CASE("read_modinfo: the open module", "[probes][elf_modinfo]") {
  auto host = host_with(TinyElf{}.build());
  auto info = gd::read_modinfo(host, k_path);
  REQUIRE(info);
  CHECK(info->version == "580.159.04");
  CHECK(info->license == "Dual MIT/GPL");
  CHECK(info->vermagic == "6.8.0-45-generic SMP preempt mod_unload modversions ");
}

TEST_CASE("read_modinfo: the proprietary module, 32-bit big endian layout", "[probes][elf_modinfo]") {
  TinyElf elf;
  elf.is_64 = false;
  elf.little_endian = false;
  elf.modinfo = {"license=NVIDIA", "version=550.90.07"};
  auto host = host_with(elf.build());
  auto info = gd::read_modinfo(host, k_path);
  REQUIRE(info);
  CHECK(info->version == "550.90.07");
  CHECK(info->license == "NVIDIA");
}

TEST_CASE("read_modinfo: failures say why", "[probes][elf_modinfo]") {
  TinyElf no_modinfo;
  no_modinfo.with_modinfo = false;
  auto host = host_with(no_modinfo.build());
  auto info = gd::read_modinfo(host, k_path);
  REQUIRE_FALSE(info);
  CHECK(info.error() == "no .modinfo section");

  auto text = host_with("just text, not a module\n");
  auto not_elf = gd::read_modinfo(text, k_path);
  REQUIRE_FALSE(not_elf);
  CHECK(not_elf.error() == "not an ELF file");

  std::string whole = TinyElf{}.build();
  auto cut = host_with(whole.substr(0, whole.size() - 100));  // section table cut short
  auto truncated = gd::read_modinfo(cut, k_path);
  REQUIRE_FALSE(truncated);
  CHECK_THAT(truncated.error(), Catch::Contains("truncated"));

  Capture capture;
  capture.identity = gd::Identity{1000, 1000, {}};
  capture.paths[k_path].read = std::unexpected(gd::IoError{EACCES});
  gd::ReplayHost denied(std::move(capture));
  auto no_access = gd::read_modinfo(denied, k_path);
  REQUIRE_FALSE(no_access);
  CHECK_THAT(no_access.error(), Catch::Contains("needs root"));
}

TEST_CASE("module signature marker at the end of the file", "[probes][elf_modinfo]") {
  TinyElf elf;
  elf.signed_marker = true;
  std::string bytes = elf.build();
  auto host = host_with(bytes);
  CHECK(gd::has_module_signature(host, k_path, bytes.size()) == true);
  // The .modinfo reader still works on a signed file: the signature is appended after the ELF.
  auto info = gd::read_modinfo(host, k_path);
  REQUIRE(info);
  CHECK(info->version == "580.159.04");

  std::string plain = TinyElf{}.build();
  auto unsigned_host = host_with(plain);
  CHECK(gd::has_module_signature(unsigned_host, k_path, plain.size()) == false);
  CHECK(gd::has_module_signature(unsigned_host, k_path, 3) == false);
}

}  // namespace GD_UNITY_ID
