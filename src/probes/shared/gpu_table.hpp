#pragma once
// What an NVIDIA PCI device id says about the GPU: chip, architecture, compute capability, the
// GSP firmware file its driver family loads, and the first driver that supports it. A table
// with one source per row (shared/knowledge/nvidia-cuda-facts.md sections 2.1-2.5 and 3.3, and
// pci.ids); an id the table does not hold is "unknown", never guessed from its neighbours.

#include <cstdint>
#include <string_view>

namespace gd {

/// Architecture names as they appear in facts and reports.
namespace arch {
inline constexpr std::string_view maxwell = "Maxwell";
inline constexpr std::string_view pascal = "Pascal";
inline constexpr std::string_view volta = "Volta";
inline constexpr std::string_view turing = "Turing";
inline constexpr std::string_view ampere = "Ampere";
inline constexpr std::string_view ada = "Ada";
inline constexpr std::string_view hopper = "Hopper";
inline constexpr std::string_view blackwell = "Blackwell";
/// A GPU function below 0x1e00 that no row names: Maxwell, Pascal, Volta or older.
inline constexpr std::string_view pre_turing = "pre-Turing";
/// An id at or above 0x1e00 that no row names.
inline constexpr std::string_view unknown = "unknown";
}  // namespace arch

/// What the table knows about one device id (of a display-class function, vendor 0x10de).
struct GpuModel {
  bool known = false;                   ///< a row named this id (false: only `architecture` is set)
  std::string_view chip;                ///< "GH100"; empty when the row does not name one chip
  std::string_view architecture;        ///< an arch:: name
  std::string_view compute_capability;  ///< "9.0"; empty when not known
  /// "gsp_tu10x.bin" / "gsp_ga10x.bin"; empty for GPUs without a GSP (pre-Turing) and for
  /// unknown ids (tell them apart with `known`/`pre_turing`).
  std::string_view gsp_firmware;
  /// First driver release that supports this GPU: for a named product the first whose README
  /// lists it, else the first that has its chip; empty when none is recorded.
  std::string_view min_driver;
  bool pre_turing = false;  ///< no GSP: the open kernel module cannot drive it
  bool grace = false;       ///< the Hopper of a Grace Hopper superchip (GH200)
};

/// The model for a GPU function's device id. Exact ids first, then chip ranges, then the rule
/// that every GPU id below 0x1e00 is pre-Turing; anything else is arch::unknown.
GpuModel lookup_gpu_model(std::uint16_t device_id);

/// Major number of a driver version ("570.86.16" -> 570); 0 when it is not one.
int driver_branch(std::string_view version);

}  // namespace gd
