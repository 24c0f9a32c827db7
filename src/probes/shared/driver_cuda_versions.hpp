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

/// The driver branch released with CUDA `major.minor`: the first branch that reports that version
/// or a newer one of the same major (570 for 12.8, 570 for 12.7 since 565 is not in the table);
/// nullopt for a version newer than the table's last branch of that major.
std::optional<int> driver_branch_for_cuda(int major, int minor);

/// The first driver branch of CUDA `major` (450 for 11, 525 for 12, 580 for 13): under minor-version
/// compatibility any build of that major runs on it (with a limited feature set); nullopt when the
/// table has no branch of that major.
std::optional<int> first_driver_branch_for_cuda_major(int major);

}  // namespace gd
