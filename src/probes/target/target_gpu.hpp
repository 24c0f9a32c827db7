#pragma once
// The host a pre-flight check judges an image for (issue 18): `--target-gpu` (a PCI id, a product
// name the GPU table knows, or a compute capability) and `--target-driver` (a driver version).
// The image's stack is checked as it would run there; the host itself is not read.

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

namespace gd {

struct TargetGpu {
  std::string given;                     ///< what the user wrote, for messages
  std::optional<std::uint16_t> device_id;  ///< from a PCI id or a product name
  std::string product;                   ///< "H200 SXM 141GB"; empty when not known
  std::string chip;                      ///< "GH100"; empty when not known
  std::string architecture;              ///< an arch:: name ("Hopper")
  std::string compute_capability;        ///< "9.0"; empty when not known (then nothing is judged)
  std::string min_driver;                ///< the first driver that supports it; empty when not recorded
  std::string gsp_firmware;              ///< "gsp_ga10x.bin"; empty when none or not known
};

struct TargetHost {
  TargetGpu gpu;
  std::string driver;  ///< "580.95.05"
  /// The configuration file the image's variables come from (--image-config, or the config.json
  /// beside a bundle's rootfs); empty when there is none: the image's PATH is then not known.
  std::string image_config;
};

/// "10de:2bb5", "0x2bb5", "H200", "RTX PRO 6000", "sm_120", "sm_90a", "compute_90", "12.0".
/// An error says what forms are accepted.
std::expected<TargetGpu, std::string> parse_target_gpu(std::string_view text);

/// "580.95.05", "570.86.15", "550.54" (major.minor[.patch], the major a driver branch).
std::expected<std::string, std::string> parse_target_driver(std::string_view text);

/// "Hopper" for "9.0"; the architecture a compute capability belongs to, "unknown" if none.
std::string_view architecture_of_compute_capability(std::string_view cc);

}  // namespace gd
