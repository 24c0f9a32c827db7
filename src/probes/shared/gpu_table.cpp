#include "probes/shared/gpu_table.hpp"

#include <charconv>

namespace gd {
namespace {

// GSP firmware file per driver family, 530.x-595.x (knowledge 3.3, from open-gpu-kernel-modules
// nv-firmware-chip-family-select.h): TU10x, TU11x and GA100 load gsp_tu10x.bin; GA10x, AD10x,
// GH100 and every Blackwell family (GB10x, GB20x, GB10y, GB20y) load gsp_ga10x.bin. A folder
// holding gsp_tu10x.bin and gsp_ga10x.bin is therefore complete for any of them.
constexpr std::string_view k_tu10x = "gsp_tu10x.bin";
constexpr std::string_view k_ga10x = "gsp_ga10x.bin";
constexpr std::string_view k_no_gsp = "";

// Oldest drivers that have a Blackwell chip: the first release whose HAL list names it
// (src/nvidia/generated/g_hal_archimpl.h "Chips:" line in the open-gpu-kernel-modules tags):
// GB100/GB102 from 560.28.03; GB10B and GB202-GB207 from 570.86.15; GB110/GB112 (and GB20B)
// from 575.51.02, never in any 570 tag. The driver accepts a GPU by its chip, read from
// PMC_BOOT_42 (osapi.c rm_is_supported_device -> halmgrGetHalForGpu), not by its device id.
// GB10Y/GB20Y (Jetson Thor, DGX Spark) have their own GSP firmware family from 580.65.06
// (nv-firmware-chip-family-select.h; knowledge 3.3).
constexpr std::string_view k_gb10x_family = "560.28.03";
constexpr std::string_view k_gb20x_family = "570.86.15";
constexpr std::string_view k_gb11x_chip = "575.51.02";
constexpr std::string_view k_gb_y_family = "580.65.06";

struct Row {
  std::uint16_t first;
  std::uint16_t last;
  std::string_view chip;
  std::string_view architecture;
  std::string_view compute_capability;
  std::string_view gsp_firmware;
  std::string_view min_driver = {};
  bool grace = false;
};

// Exact device ids (knowledge 2.4, product names from pci.ids). Minimum driver of a named
// product: the first release (in version order) whose README table "Appendix A - Supported
// NVIDIA GPU Products" lists the id, checked in every open-gpu-kernel-modules tag 555.42.02 to
// 595.45.04; NVIDIA supports the product from there. Some later builds of another line leave
// a product out of their README (B300 is missing from 580.94.02-06 and 580.94.16-18), so naming
// is not monotonic; every such gap lies above the first naming and cannot raise an alarm. HGX
// B200 168GB (2909) is named by no tag and keeps its chip's bound; GB10 (2e12, DGX Spark) keeps
// its firmware family's: it is named in 580.94.13, then left out again from 580.94.16 to
// 580.105.08 and in 590.44.01. A driver that lists a GPU drives it whatever this table says
// (probes/shared/gpu_support).
constexpr Row k_exact[] = {
    {0x2b85, 0x2b85, "GB202", arch::blackwell, "12.0", k_ga10x, "570.86.16"},  // RTX 5090; README 570.86.16
    {0x2b87, 0x2b87, "GB202", arch::blackwell, "12.0", k_ga10x, "570.86.16"},  // RTX 5090 D; README 570.86.16
    {0x2b8c, 0x2b8c, "GB202", arch::blackwell, "12.0", k_ga10x, "580.76.05"},  // RTX 5090 D v2; README 580.76.05
    {0x2bb1, 0x2bb1, "GB202", arch::blackwell, "12.0", k_ga10x, "570.123.07"},  // RTX PRO 6000 WS; README 570.123.07
    {0x2bb4, 0x2bb4, "GB202", arch::blackwell, "12.0", k_ga10x, "570.123.07"},  // RTX PRO 6000 Max-Q; README 570.123.07
    {0x2bb5, 0x2bb5, "GB202", arch::blackwell, "12.0", k_ga10x, "575.57.08"},  // RTX PRO 6000 Server; README 575.57.08
    {0x2c02, 0x2c02, "GB203", arch::blackwell, "12.0", k_ga10x, "570.86.16"},  // RTX 5080; README 570.86.16
    {0x2c05, 0x2c05, "GB203", arch::blackwell, "12.0", k_ga10x, "570.123.01"},  // RTX 5070 Ti; README 570.123.01
    {0x2c18, 0x2c18, "GB203", arch::blackwell, "12.0", k_ga10x, "570.123.07"},  // RTX 5090 Laptop; README 570.123.07
    {0x2c58, 0x2c58, "GB203", arch::blackwell, "12.0", k_ga10x, "570.123.07"},  // RTX 5090 Laptop; README 570.123.07
    {0x2d05, 0x2d05, "GB206", arch::blackwell, "12.0", k_ga10x, "570.158.01"},  // RTX 5060; README 570.158.01
    {0x2901, 0x2901, "GB100", arch::blackwell, "10.0", k_ga10x, "570.86.15"},  // B200; README 570.86.15
    {0x2909, 0x2909, "GB100", arch::blackwell, "10.0", k_ga10x, k_gb10x_family},  // HGX B200 168GB; no README
    {0x2941, 0x2941, "GB100", arch::blackwell, "10.0", k_ga10x, "570.123.01"},  // GB200; README 570.123.01
    {0x3182, 0x3182, "GB110", arch::blackwell, "10.3", k_ga10x, "580.82.07"},  // B300 SXM6 AC; README 580.82.07
    {0x31c2, 0x31c2, "GB110", arch::blackwell, "10.3", k_ga10x, "580.82.07"},  // GB300; README 580.82.07
    {0x2e12, 0x2e12, "GB20B", arch::blackwell, "12.1", k_ga10x, k_gb_y_family},  // GB10 (DGX Spark); see above
    {0x2321, 0x2321, "GH100", arch::hopper, "9.0", k_ga10x},  // H100 NVL; 2.4
    {0x2330, 0x2330, "GH100", arch::hopper, "9.0", k_ga10x},  // H100 SXM5 80GB; 2.4
    {0x2331, 0x2331, "GH100", arch::hopper, "9.0", k_ga10x},  // H100 PCIe; 2.4
    {0x2335, 0x2335, "GH100", arch::hopper, "9.0", k_ga10x},  // H200 SXM 141GB; 2.4
    {0x233b, 0x233b, "GH100", arch::hopper, "9.0", k_ga10x},  // H200 NVL; 2.4
    {0x2342, 0x2342, "GH100", arch::hopper, "9.0", k_ga10x, {}, true},  // GH200 120GB / 480GB; 2.4
    {0x2348, 0x2348, "GH100", arch::hopper, "9.0", k_ga10x, {}, true},  // GH200 144G HBM3e; 2.4
    {0x20b0, 0x20b0, "GA100", arch::ampere, "8.0", k_tu10x},  // A100 SXM4 40GB; 2.4
    {0x20b1, 0x20b1, "GA100", arch::ampere, "8.0", k_tu10x},  // A100 PCIe 40GB; 2.4
    {0x20b2, 0x20b2, "GA100", arch::ampere, "8.0", k_tu10x},  // A100 SXM4 80GB; 2.4
    {0x20b5, 0x20b5, "GA100", arch::ampere, "8.0", k_tu10x},  // A100 PCIe 80GB; 2.4
    {0x20f1, 0x20f1, "GA100", arch::ampere, "8.0", k_tu10x},  // A100 PCIe 40GB; 2.4
    {0x26b1, 0x26b1, "AD102", arch::ada, "8.9", k_ga10x},  // RTX 6000 Ada; 2.4
    {0x26b5, 0x26b5, "AD102", arch::ada, "8.9", k_ga10x},  // L40; 2.4
    {0x26b9, 0x26b9, "AD102", arch::ada, "8.9", k_ga10x},  // L40S; 2.4
    {0x2684, 0x2684, "AD102", arch::ada, "8.9", k_ga10x},  // RTX 4090; 2.4
    {0x1eb8, 0x1eb8, "TU104", arch::turing, "7.5", k_tu10x},  // Tesla T4; 2.4
    {0x1db1, 0x1db1, "GV100", arch::volta, "7.0", k_no_gsp},  // V100 SXM2 16GB; 2.3
    {0x1db6, 0x1db6, "GV100", arch::volta, "7.0", k_no_gsp},  // V100 PCIe 32GB; 2.3
};

// Chip ranges: lowest to highest id that pci.ids (pciutils/pciids @c1c12547, 2026-08-22) lists
// for the chip's display functions (its audio, USB and NVSwitch functions left out; they are
// told apart by PCI class anyway). Compute capability per architecture from knowledge 2.1.
// Ranges do not overlap; where pci.ids lists an id of another chip inside a range (engineering
// samples "GB6-256" 2c2c and "GB6-128" 2d2c), the range is split around it.
constexpr Row k_ranges[] = {
    {0x1e02, 0x1e78, "TU102", arch::turing, "7.5", k_tu10x},  // pci.ids; 2.3
    {0x1e81, 0x1ef5, "TU104", arch::turing, "7.5", k_tu10x},  // pci.ids; 2.3
    {0x1f02, 0x1f76, "TU106", arch::turing, "7.5", k_tu10x},  // pci.ids; 2.3
    {0x1f81, 0x1ff9, "TU117", arch::turing, "7.5", k_tu10x},  // pci.ids; 2.3
    {0x2182, 0x21d1, "TU116", arch::turing, "7.5", k_tu10x},  // pci.ids; 2.3
    {0x2080, 0x20ff, "GA100", arch::ampere, "8.0", k_tu10x},  // pci.ids; 2.3
    {0x2200, 0x223f, "GA102", arch::ampere, "8.6", k_ga10x},  // pci.ids; 2.3
    {0x2414, 0x2460, "GA103", arch::ampere, "8.6", k_ga10x},  // pci.ids; 2.3
    {0x2480, 0x24fa, "GA104", arch::ampere, "8.6", k_ga10x},  // pci.ids (2.3 says 24e0: RTX 3070 is 2484)
    {0x2501, 0x2571, "GA106", arch::ampere, "8.6", k_ga10x},  // pci.ids; 2.3
    {0x2582, 0x25fb, "GA107", arch::ampere, "8.6", k_ga10x},  // pci.ids (2.3 says 25e0: RTX 3050 is 2582)
    {0x2302, 0x23f0, "GH100", arch::hopper, "9.0", k_ga10x},  // pci.ids; 2.3
    {0x2681, 0x26f5, "AD102", arch::ada, "8.9", k_ga10x},  // pci.ids; 2.3
    {0x2702, 0x2770, "AD103", arch::ada, "8.9", k_ga10x},  // pci.ids; 2.3
    {0x2782, 0x27fb, "AD104", arch::ada, "8.9", k_ga10x},  // pci.ids (2.3 says 27e0: RTX 4070 Ti is 2782)
    {0x2803, 0x2878, "AD106", arch::ada, "8.9", k_ga10x},  // pci.ids; 2.3
    {0x2882, 0x28f8, "AD107", arch::ada, "8.9", k_ga10x},  // pci.ids (2.3 says 28e0: RTX 4060 is 2882)
    {0x2900, 0x297e, "GB100", arch::blackwell, "10.0", k_ga10x, k_gb10x_family},  // pci.ids; 2.1, 2.3
    {0x2980, 0x29f1, "GB102", arch::blackwell, "10.0", k_ga10x, k_gb10x_family},  // pci.ids; 2.1 (B100)
    {0x2b00, 0x2b00, "GB10B", arch::blackwell, "11.0", k_ga10x, k_gb_y_family},  // Jetson Thor; 2.1 (was 10.1)
    {0x2b85, 0x2bbc, "GB202", arch::blackwell, "12.0", k_ga10x, k_gb20x_family},  // pci.ids; 2.1, 2.3
    {0x2c02, 0x2c2b, "GB203", arch::blackwell, "12.0", k_ga10x, k_gb20x_family},  // pci.ids; 2.1, 2.3
    {0x2c2d, 0x2c79, "GB203", arch::blackwell, "12.0", k_ga10x, k_gb20x_family},  // pci.ids; 2.1, 2.3
    {0x2d04, 0x2d2b, "GB206", arch::blackwell, "12.0", k_ga10x, k_gb20x_family},  // pci.ids; 2.1, 2.3
    {0x2d2d, 0x2d79, "GB206", arch::blackwell, "12.0", k_ga10x, k_gb20x_family},  // pci.ids; 2.1, 2.3
    {0x2d83, 0x2df9, "GB207", arch::blackwell, "12.0", k_ga10x, k_gb20x_family},  // pci.ids; 2.1, 2.3
    {0x2e03, 0x2e2a, "GB20B", arch::blackwell, "12.1", k_ga10x, k_gb_y_family},  // pci.ids; 2.1 (GB10 / N1X)
    {0x2f04, 0x2f58, "GB205", arch::blackwell, "12.0", k_ga10x, k_gb20x_family},  // pci.ids (2f80 is its audio)
    {0x3180, 0x31fe, "GB110", arch::blackwell, "10.3", k_ga10x, k_gb11x_chip},  // pci.ids; 2.1 (B300/GB300; GB300 31c3)
    {0x3200, 0x323e, "GB112", arch::blackwell, "", k_ga10x, k_gb11x_chip},  // pci.ids; CC not recorded
    {0x3340, 0x3340, "GB120", arch::blackwell, "", k_ga10x},  // pci.ids; in no HAL up to 595.45.04
    // Pre-Turing (no GSP). Pascal and Volta blocks hold only GP10x/GV100 ids in pci.ids.
    {0x15c2, 0x15c2, "GP100", arch::pascal, "6.0", k_no_gsp},  // pci.ids CMP 100-100; 2.1
    {0x15f0, 0x15ff, "GP100", arch::pascal, "6.0", k_no_gsp},  // pci.ids; 2.3 (P100)
    {0x1725, 0x172f, "GP100", arch::pascal, "6.0", k_no_gsp},  // pci.ids; 2.1
    {0x1b00, 0x1b78, "GP102", arch::pascal, "6.1", k_no_gsp},  // pci.ids; 2.3
    {0x1b80, 0x1be1, "GP104", arch::pascal, "6.1", k_no_gsp},  // pci.ids; 2.3
    {0x1c00, 0x1c70, "GP106", arch::pascal, "6.1", k_no_gsp},  // pci.ids
    {0x1c81, 0x1cfb, "GP107", arch::pascal, "6.1", k_no_gsp},  // pci.ids
    {0x1d01, 0x1d56, "GP108", arch::pascal, "6.1", k_no_gsp},  // pci.ids
    {0x1d81, 0x1df6, "GV100", arch::volta, "7.0", k_no_gsp},  // pci.ids; 2.3 (V100, Titan V)
    // 1340-17fd holds only GM107/GM108/GM200/GM204/GM206 and the GP100 ids above; the chips'
    // ranges interleave, so the block names the architecture only (CC 5.0 or 5.2 by chip).
    {0x1340, 0x17fd, "", arch::maxwell, "", k_no_gsp},  // pci.ids; 2.1
};

// Every id pci.ids lists below 0x1e00 with a GPU name is Maxwell or older; the Turing and later
// ids there (10f7-10f9, 1ad6-1aef, 1af1) are audio, USB and NVSwitch functions, not GPUs.
constexpr std::uint16_t k_first_turing_id = 0x1e00;

GpuModel from_row(const Row& row) {
  GpuModel model;
  model.known = true;
  model.chip = row.chip;
  model.architecture = row.architecture;
  model.compute_capability = row.compute_capability;
  model.gsp_firmware = row.gsp_firmware;
  model.min_driver = row.min_driver;
  model.grace = row.grace;
  model.pre_turing = row.gsp_firmware.empty();
  return model;
}

}  // namespace

GpuModel lookup_gpu_model(std::uint16_t device_id) {
  for (const Row& row : k_exact) {
    if (device_id >= row.first && device_id <= row.last) {
      return from_row(row);
    }
  }
  for (const Row& row : k_ranges) {
    if (device_id >= row.first && device_id <= row.last) {
      return from_row(row);
    }
  }
  GpuModel model;
  if (device_id < k_first_turing_id) {
    model.architecture = arch::pre_turing;
    model.pre_turing = true;
  } else {
    model.architecture = arch::unknown;
  }
  return model;
}

int driver_branch(std::string_view version) {
  int major = 0;
  auto [end, ec] = std::from_chars(version.data(), version.data() + version.size(), major);
  if (ec != std::errc() || end == version.data() || (end != version.data() + version.size() && *end != '.')) {
    return 0;
  }
  return major;
}

}  // namespace gd
