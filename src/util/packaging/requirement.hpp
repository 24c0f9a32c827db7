#pragma once
// PEP 508 requirements (`name[extra,...] (specifiers) ; marker` or `name @ url ; marker`), as they
// appear in the Requires-Dist fields of METADATA files.
// Spec: https://packaging.python.org/en/latest/specifications/dependency-specifiers/

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/packaging/marker.hpp"
#include "util/packaging/specifier.hpp"

namespace gd {

/// A PEP 508 requirement: `name[extra,...] (specifiers) ; marker` or `name @ url ; marker`.
struct Requirement {
  std::string name;                 ///< as written: "nvidia-cuda-runtime-cu12"
  std::vector<std::string> extras;  ///< as written, in order
  std::vector<Specifier> specifiers;
  std::string url;                  ///< after "@"; empty for a version requirement
  std::optional<Marker> marker;
};

/// Parses one requirement line as found after "Requires-Dist:". Nullopt on anything malformed.
std::optional<Requirement> parse_requirement(std::string_view text);

}  // namespace gd
