#pragma once
// PEP 440 version specifiers ("==2.6.*", "~=0.0.27", ">=0.107.0, !=0.113.*"), evaluated the way
// `pip check` does: an installed pre-release counts (prereleases=True).
// Spec: https://packaging.python.org/en/latest/specifications/version-specifiers/

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/packaging/version.hpp"

namespace gd {

enum class SpecifierOp : std::uint8_t {
  compatible,     ///< ~=
  equal,          ///< ==  (a trailing ".*" makes it a prefix match)
  not_equal,      ///< !=
  less_equal,     ///< <=
  greater_equal,  ///< >=
  less,           ///< <
  greater,        ///< >
  arbitrary,      ///< ===  (plain string equality)
};

/// One clause of a version specifier, e.g. ">=4.10.0" or "==13.0.96.*".
struct Specifier {
  SpecifierOp op = SpecifierOp::equal;
  std::string version;  ///< as written, spaces removed: "2.6.*", "2.6.0+cu124"

  /// "==2.6.*"
  std::string text() const;
};

/// One clause. The version must have the shape its operator allows (".*" and local labels only
/// with == and !=, at least two release numbers after ~=), as packaging requires.
std::optional<Specifier> parse_specifier(std::string_view text);

/// A comma-separated set (">=0.107.0, !=0.113.*"); empty text is the empty set (allows all).
std::optional<std::vector<Specifier>> parse_specifiers(std::string_view text);

/// Whether `version` satisfies the clause; nullopt when `version` is not a PEP 440 version
/// (except for ===, which compares text).
std::optional<bool> specifier_allows(const Specifier& specifier, std::string_view version);

/// Whether `version` satisfies every clause; nullopt when it does not parse.
std::optional<bool> specifiers_allow(const std::vector<Specifier>& specifiers, std::string_view version);

}  // namespace gd
