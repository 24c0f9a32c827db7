#pragma once
// An installed distribution's requirements against what is installed beside it, the way
// `pip check` judges them: only the Requires-Dist lines whose markers hold here count, and a
// requirement is met when a distribution of that name is installed in a version its specifiers
// allow (a pre-release counts).

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/packaging/marker.hpp"
#include "util/packaging/requirement.hpp"

namespace gd {

/// "cuda-toolkit[cublas,cudart]==13.0.2": the normalized name, extras and specifiers, for messages.
std::string requirement_text(const Requirement& requirement);

/// The `requires_dist` lines that apply in `env` with `extras` asked for, names normalized. A
/// line that does not parse, and a marker whose answer is unknown, are left out (not counted).
std::vector<Requirement> applicable_requirements(const std::vector<std::string>& requires_dist, const MarkerEnv& env,
                                                 const std::vector<std::string>& extras);

/// What is installed, as far as the check needs it. `requires_dist` is asked only for a met
/// requirement with extras, so that a caller reading METADATA files reads no more than needed.
struct InstalledLookup {
  /// The version of the distribution of this normalized name; nullopt when none is installed.
  std::function<std::optional<std::string>(std::string_view name)> version;
  /// Its Requires-Dist lines; nullopt when they cannot be read.
  std::function<std::optional<std::vector<std::string>>(std::string_view name)> requires_dist;
};

/// Checks `requirement` against `installed` and, when it is met and asks for extras (a meta
/// package: cuda-toolkit[cublas]==13.0.2 pins nvidia-cublas for extra cublas), checks one level
/// down the requirements those extras bring whose names `follow` accepts. Appends one line per
/// unmet requirement to `unmet`: "<text> (not installed)" or "<text> (installed <version>)".
void collect_unmet_requirements(const Requirement& requirement, const MarkerEnv& env, const InstalledLookup& installed,
                                const std::function<bool(std::string_view name)>& follow,
                                std::vector<std::string>& unmet);

}  // namespace gd
