#pragma once
// Which CUDA version a driver branch reports (cuDriverGetVersion, nvidia-smi's "CUDA Version").
// The containers probe runs before the CUDA helper, so NVIDIA_REQUIRE_CUDA is checked against
// the kernel module's branch through this table.

#include <optional>
#include <string>
#include <string_view>

namespace gd {

/// "13.0" for "580.159.04"; nullopt for a branch the table does not know (565, or newer than
/// its last row).
std::optional<std::string> cuda_version_for_driver(std::string_view driver_version);

}  // namespace gd
