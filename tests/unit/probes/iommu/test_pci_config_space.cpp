#include "probes/iommu/pci_config_space.hpp"

#include <catch2/catch.hpp>

#include <random>

#include "pci_config_bytes.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::AcsReading;
using State = gd::AcsReading::State;

TEST_CASE("ACS: a PLX switch port with redirect on, as Linux leaves it with an IOMMU", "[probes][iommu]") {
  AcsReading acs = gd::read_acs(gd::test::plx_downstream_port(0x001d));
  REQUIRE(acs.state == State::enabled_bits);
  CHECK(acs.offset == 0xf24);
  CHECK(acs.capability == 0x007f);
  CHECK(acs.control == 0x001d);
  // lspci -vvv of that port: "ACSCtl: SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-".
  CHECK(gd::describe_acs_bits(acs.control) == "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-");
  CHECK(gd::describe_acs_bits(acs.capability) == "SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+");
  CHECK(gd::describe_redirect_bits(acs.control) == "ReqRedir+ CmpltRedir+");
  CHECK((acs.control & gd::k_acs_redirect_bits) != 0);
}

TEST_CASE("ACS: the same port after setpci ECAP_ACS+6.w=0000, and egress control alone", "[probes][iommu]") {
  AcsReading off = gd::read_acs(gd::test::plx_downstream_port(0x0000));
  REQUIRE(off.state == State::enabled_bits);
  CHECK(off.control == 0);
  CHECK((off.control & gd::k_acs_redirect_bits) == 0);
  CHECK(gd::describe_redirect_bits(off.control).empty());
  // Source validation and upstream forwarding alone do not redirect peer traffic.
  CHECK((gd::read_acs(gd::test::plx_downstream_port(0x0011)).control & gd::k_acs_redirect_bits) == 0);
  // The kernel's pci_bridge_has_acs_redir() counts P2P Egress Control as a redirect too.
  AcsReading egress = gd::read_acs(gd::test::plx_downstream_port(0x0020));
  CHECK((egress.control & gd::k_acs_redirect_bits) != 0);
  CHECK(gd::describe_redirect_bits(egress.control) == "EgressCtrl+");
}

TEST_CASE("ACS: a root port without the capability, and an empty extended space", "[probes][iommu]") {
  CHECK(gd::read_acs(gd::test::root_port_without_acs()).state == State::no_capability);
  CHECK(gd::read_acs(gd::test::config_space(0x8086, 0x2030, {})).state == State::no_capability);
  // A device that is gone reads all ones.
  CHECK(gd::read_acs(std::string(4096, '\xff')).state == State::no_capability);
}

TEST_CASE("ACS: what an unprivileged read gives is not an answer", "[probes][iommu]") {
  std::string full = gd::test::plx_downstream_port(0x001d);
  // pci-sysfs.c: a reader without CAP_SYS_ADMIN gets the 64-byte standard header only.
  AcsReading user = gd::read_acs(full.substr(0, 64));
  CHECK(user.state == State::short_read);
  CHECK(user.problem == "only 64 bytes of config space readable");
  CHECK(gd::read_acs(full.substr(0, 256)).state == State::short_read);
  CHECK(gd::read_acs("").state == State::short_read);
}

TEST_CASE("ACS: a broken capability list is malformed, never a hang or a crash", "[probes][iommu]") {
  // A capability pointing at itself: the walk stops after the kernel's bound.
  std::string loop = gd::test::config_space(0x10b5, 0x8725, {{0x100, 0x0003}});
  gd::test::put32(loop, 0x100, 0x0003u | (1u << 16) | (0x100u << 20));
  AcsReading looped = gd::read_acs(loop);
  CHECK(looped.state == State::malformed);
  CHECK(looped.problem.find("loop") != std::string::npos);
  // Two capabilities pointing at each other.
  std::string pair = gd::test::config_space(0x10b5, 0x8725, {{0x100, 0x0003}, {0x148, 0x0002}});
  gd::test::put32(pair, 0x148, 0x0002u | (1u << 16) | (0x100u << 20));
  CHECK(gd::read_acs(pair).state == State::malformed);
  // A pointer back into the standard header.
  std::string back = gd::test::config_space(0x10b5, 0x8725, {{0x100, 0x0003}});
  gd::test::put32(back, 0x100, 0x0003u | (1u << 16) | (0x40u << 20));
  CHECK(gd::read_acs(back).problem.find("standard header") != std::string::npos);
  // A file cut after the first capability, and an ACS capability cut off in its registers.
  std::string cut = gd::test::plx_downstream_port(0x001d);
  CHECK(gd::read_acs(cut.substr(0, 0x110)).state == State::malformed);
  std::string acs_first = gd::test::config_space(0x10b5, 0x8725, {{0x100, 0x000D, 1, 0x007f, 0x001d}});
  CHECK(gd::read_acs(acs_first.substr(0, 0x106)).problem.find("cut off") != std::string::npos);
}

TEST_CASE("ACS: random bytes give some state and never read out of bounds", "[probes][iommu]") {
  std::mt19937 random(26);
  for (int round = 0; round < 200; ++round) {
    std::size_t size = 257 + random() % 3840;
    std::string bytes(size, '\0');
    for (char& c : bytes) c = static_cast<char>(random() & 0xff);
    AcsReading acs = gd::read_acs(bytes);
    if (acs.state == State::enabled_bits) CHECK(acs.offset + 8u <= size);
  }
}

}  // namespace GD_UNITY_ID
