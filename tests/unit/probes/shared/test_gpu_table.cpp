#include "probes/shared/gpu_table.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "probes/shared/gpu_support.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::GpuModel;
using gd::lookup_gpu_model;
namespace arch = gd::arch;

namespace {

struct Expected {
  std::uint16_t id;
  std::string_view chip;
  std::string_view architecture;
  std::string_view cc;
  std::string_view gsp;
};

}  // namespace

TEST_CASE("gpu table: the GPUs of the knowledge file", "[probes][gpu_table]") {
  // Device ids and chips: knowledge 2.4 (pci.ids names); compute capability 2.1; GSP file 3.3.
  for (const Expected& e : {
           Expected{0x2335, "GH100", arch::hopper, "9.0", "gsp_ga10x.bin"},     // H200 (the real test host)
           Expected{0x2b85, "GB202", arch::blackwell, "12.0", "gsp_ga10x.bin"}, // RTX 5090
           Expected{0x2901, "GB100", arch::blackwell, "10.0", "gsp_ga10x.bin"}, // B200
           Expected{0x3182, "GB110", arch::blackwell, "10.3", "gsp_ga10x.bin"}, // B300
           Expected{0x2e12, "GB20B", arch::blackwell, "12.1", "gsp_ga10x.bin"}, // GB10 (DGX Spark)
           Expected{0x1eb8, "TU104", arch::turing, "7.5", "gsp_tu10x.bin"},     // T4
           Expected{0x20b0, "GA100", arch::ampere, "8.0", "gsp_tu10x.bin"},     // A100 SXM4 40GB
           Expected{0x2684, "AD102", arch::ada, "8.9", "gsp_ga10x.bin"},        // RTX 4090
           Expected{0x26b9, "AD102", arch::ada, "8.9", "gsp_ga10x.bin"},        // L40S
       }) {
    CAPTURE(e.id);
    GpuModel m = lookup_gpu_model(e.id);
    CHECK(m.known);
    CHECK(m.chip == e.chip);
    CHECK(m.architecture == e.architecture);
    CHECK(m.compute_capability == e.cc);
    CHECK(m.gsp_firmware == e.gsp);
    CHECK_FALSE(m.pre_turing);
  }
}

TEST_CASE("gpu table: every Blackwell loads gsp_ga10x.bin, no other file", "[probes][gpu_table]") {
  // Knowledge 3.3: the driver maps every Blackwell family (GB10x, GB20x, GB10y, GB20y) to
  // gsp_ga10x.bin, so a firmware folder with gsp_ga10x.bin and gsp_tu10x.bin is complete.
  int blackwell = 0;
  for (std::uint32_t id = 0; id <= 0xffff; ++id) {
    GpuModel m = lookup_gpu_model(static_cast<std::uint16_t>(id));
    if (m.architecture == arch::blackwell) {
      ++blackwell;
      CAPTURE(id);
      CHECK(m.gsp_firmware == "gsp_ga10x.bin");
      // GB120 is in no public release's HAL list (up to 595.45.04): no first release to name.
      CHECK((m.chip == "GB120" || !m.min_driver.empty()));
    }
    if (m.known && !m.pre_turing) {
      CAPTURE(id);
      CHECK((m.gsp_firmware == "gsp_ga10x.bin" || m.gsp_firmware == "gsp_tu10x.bin"));
    }
  }
  CHECK(blackwell > 500);
}

TEST_CASE("gpu table: pre-Turing GPUs have no GSP", "[probes][gpu_table]") {
  GpuModel v100 = lookup_gpu_model(0x1db1);
  CHECK(v100.known);
  CHECK(v100.chip == "GV100");
  CHECK(v100.architecture == arch::volta);
  CHECK(v100.compute_capability == "7.0");
  CHECK(v100.gsp_firmware.empty());
  CHECK(v100.pre_turing);

  GpuModel p100 = lookup_gpu_model(0x15f8);  // Tesla P100 PCIe 16GB
  CHECK(p100.chip == "GP100");
  CHECK(p100.architecture == arch::pascal);
  CHECK(p100.compute_capability == "6.0");
  CHECK(p100.pre_turing);

  GpuModel gtx1070 = lookup_gpu_model(0x1b81);  // GP104, the GPU of open-gpu-kernel-modules#1003
  CHECK(gtx1070.chip == "GP104");
  CHECK(gtx1070.compute_capability == "6.1");
  CHECK(gtx1070.pre_turing);

  GpuModel gtx980 = lookup_gpu_model(0x13c0);  // GM204: Maxwell chips interleave, architecture only
  CHECK(gtx980.known);
  CHECK(gtx980.architecture == arch::maxwell);
  CHECK(gtx980.chip.empty());
  CHECK(gtx980.compute_capability.empty());
  CHECK(gtx980.pre_turing);

  GpuModel kepler = lookup_gpu_model(0x1180);  // GK104 (GTX 680): below every row, below 0x1e00
  CHECK_FALSE(kepler.known);
  CHECK(kepler.architecture == arch::pre_turing);
  CHECK(kepler.pre_turing);
  CHECK(kepler.gsp_firmware.empty());
}

TEST_CASE("gpu table: an id no row names is unknown, never guessed", "[probes][gpu_table]") {
  for (std::uint16_t id : {std::uint16_t{0x2a00}, std::uint16_t{0x3fff}, std::uint16_t{0xffff}, std::uint16_t{0x2c2c},
                           std::uint16_t{0x3000} /* GR100: architecture not verified */}) {
    CAPTURE(id);
    GpuModel m = lookup_gpu_model(id);
    CHECK_FALSE(m.known);
    CHECK(m.architecture == arch::unknown);
    CHECK(m.chip.empty());
    CHECK(m.compute_capability.empty());
    CHECK(m.gsp_firmware.empty());
    CHECK_FALSE(m.pre_turing);
  }
}

TEST_CASE("gpu table: first supporting drivers", "[probes][gpu_table]") {
  // Named products: the first open-gpu-kernel-modules tag whose README lists the id.
  CHECK(lookup_gpu_model(0x2b85).min_driver == "570.86.16");   // RTX 5090
  CHECK(lookup_gpu_model(0x2bb1).min_driver == "570.123.07");  // RTX PRO 6000 Workstation (not 575.51.02)
  CHECK(lookup_gpu_model(0x2bb5).min_driver == "575.57.08");   // RTX PRO 6000 Server (not 575.51.02)
  CHECK(lookup_gpu_model(0x2d05).min_driver == "570.158.01");  // RTX 5060 (not 580.65.06)
  CHECK(lookup_gpu_model(0x3182).min_driver == "580.82.07");   // B300 (not 590.44.01: it runs on 580.95.05)
  CHECK(lookup_gpu_model(0x31c2).min_driver == "580.82.07");   // GB300
  CHECK(lookup_gpu_model(0x2941).min_driver == "570.123.01");  // GB200 (not 570.124.04)
  CHECK(lookup_gpu_model(0x2901).min_driver == "570.86.15");   // B200
  // Ids no README names: the first release with the chip's HAL (g_hal_archimpl.h).
  CHECK(lookup_gpu_model(0x2b8d).min_driver == "570.86.15");   // another GB202
  CHECK(lookup_gpu_model(0x2909).min_driver == "560.28.03");   // HGX B200 168GB: GB100
  CHECK(lookup_gpu_model(0x31c3).min_driver == "575.51.02");   // GB300 variant: GB110, in no 570 tag
  CHECK(lookup_gpu_model(0x3200).min_driver == "575.51.02");   // GB112
  CHECK(lookup_gpu_model(0x3340).min_driver.empty());          // GB120: in no release's HAL
  CHECK(lookup_gpu_model(0x2e12).min_driver == "580.65.06");   // GB10: GB20Y firmware family (knowledge 9.5)
  CHECK(lookup_gpu_model(0x2335).min_driver.empty());          // Hopper: none recorded
  CHECK(lookup_gpu_model(0x1db1).min_driver.empty());
}

TEST_CASE("gpu table: a named product is never supported before its chip", "[probes][gpu_table]") {
  // A README cannot list a product whose chip the release has no code for; a row that did so
  // would be a typo in one of the two columns.
  for (std::uint32_t id = 0; id <= 0xffff; ++id) {
    GpuModel m = lookup_gpu_model(static_cast<std::uint16_t>(id));
    if (m.min_driver.empty() || m.architecture != arch::blackwell) continue;
    CAPTURE(id, m.chip, m.min_driver);
    std::string_view chip_first = m.chip == "GB100" || m.chip == "GB102"   ? "560.28.03"
                                  : m.chip == "GB110" || m.chip == "GB112" ? "575.51.02"
                                  : m.chip == "GB10B" || m.chip == "GB20B" ? "580.65.06"
                                                                           : "570.86.15";
    CHECK(gd::compare_driver_versions(m.min_driver, chip_first).value_or(-1) >= 0);
  }
}

TEST_CASE("gpu table: Grace Hopper", "[probes][gpu_table]") {
  CHECK(lookup_gpu_model(0x2342).grace);
  CHECK(lookup_gpu_model(0x2348).grace);
  CHECK(lookup_gpu_model(0x2342).architecture == arch::hopper);
  CHECK_FALSE(lookup_gpu_model(0x2335).grace);
  CHECK_FALSE(lookup_gpu_model(0x2330).grace);
}

TEST_CASE("gpu table: exact rows agree with the chip ranges around them", "[probes][gpu_table]") {
  // Exact ids are looked up first; a range that disagreed about the chip would be a typo.
  for (std::uint16_t id : {0x2b85, 0x2b87, 0x2b8c, 0x2bb1, 0x2bb4, 0x2bb5, 0x2c02, 0x2c05, 0x2c18, 0x2c58, 0x2d05,
                           0x2901, 0x2909, 0x2941, 0x3182, 0x31c2, 0x2e12, 0x2321, 0x2330, 0x2331, 0x2335, 0x233b,
                           0x2342, 0x2348, 0x20b0, 0x20b1, 0x20b2, 0x20b5, 0x20f1, 0x26b1, 0x26b5, 0x26b9, 0x2684,
                           0x1eb8, 0x1db1, 0x1db6}) {
    CAPTURE(id);
    GpuModel exact = lookup_gpu_model(id);
    GpuModel before = lookup_gpu_model(static_cast<std::uint16_t>(id - 1));
    GpuModel after = lookup_gpu_model(static_cast<std::uint16_t>(id + 1));
    // At least one neighbour lies in the same chip's range (ids are allocated in blocks).
    CHECK((before.chip == exact.chip || after.chip == exact.chip));
  }
}

TEST_CASE("gpu table: driver branch of a version", "[probes][gpu_table]") {
  CHECK(gd::driver_branch("570.86.16") == 570);
  CHECK(gd::driver_branch("590") == 590);
  CHECK(gd::driver_branch("") == 0);
  CHECK(gd::driver_branch("x.1") == 0);
  CHECK(gd::driver_branch("57a.1") == 0);
}

TEST_CASE("gpu table: every minimum is a driver version the support check can compare", "[probes][gpu_table]") {
  // probes/shared/gpu_support compares them with the module's version; a malformed one would
  // make the newer-than-driver finding unknown on every host with that GPU.
  std::set<std::string> minimums;
  for (std::uint32_t id = 0; id <= 0xffff; ++id) {
    std::string_view min = lookup_gpu_model(static_cast<std::uint16_t>(id)).min_driver;
    if (!min.empty()) minimums.emplace(min);
  }
  CHECK(minimums.size() >= 5);
  for (const std::string& min : minimums) {
    CAPTURE(min);
    CHECK(gd::compare_driver_versions(min, min) == 0);
    CHECK(gd::compare_driver_versions("555.42.02", min) == -1);
  }
}

}  // namespace GD_UNITY_ID
