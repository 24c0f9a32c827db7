#pragma once
// PEP 440 versions ("2.11.0+cu130", "2.6.0rc1.post2.dev3"), as pypa/packaging 26 parses and
// orders them (the library pip itself uses; tests/unit/util/packaging/ compare against a
// table of its answers, tests/fixtures/python/packaging-oracle.tsv).
// Spec: https://packaging.python.org/en/latest/specifications/version-specifiers/

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gd {

/// A PEP 440 version. Numbers are kept as written (trailing zeros too: "2.0" has two release
/// numbers) so that specifiers can check their own shape; comparisons ignore trailing zeros.
struct PythonVersion {
  enum class Pre : std::uint8_t { none, alpha, beta, rc };

  std::uint64_t epoch = 0;
  std::vector<std::uint64_t> release;  ///< {2, 11, 0}
  Pre pre = Pre::none;                 ///< a/alpha → alpha, b/beta → beta, c/rc/pre/preview → rc
  std::uint64_t pre_number = 0;
  std::optional<std::uint64_t> post;   ///< ".post1", "-1", ".rev1", "r1"
  std::optional<std::uint64_t> dev;    ///< ".dev20241222"
  std::vector<std::string> local;      ///< "+cu130" → {"cu130"}; lowercased, numbers without leading zeros

  bool is_prerelease() const { return pre != Pre::none || dev.has_value(); }
  bool is_postrelease() const { return post.has_value(); }
  /// The version without its local label ("2.6.0+cu124" → "2.6.0").
  PythonVersion public_version() const;
  /// Epoch and release only ("2.6.0rc1.post2+cu124" → "2.6.0").
  PythonVersion base_version() const;
  /// The normalized spelling ("v2.0-RC1" → "2.0rc1", "1.0+01" → "1.0+1").
  std::string text() const;

  /// PEP 440 ordering: dev < pre < final < post; a local label sorts after the same public
  /// version; "2.0" == "2.0.0".
  friend std::strong_ordering operator<=>(const PythonVersion& a, const PythonVersion& b);
  friend bool operator==(const PythonVersion& a, const PythonVersion& b) { return (a <=> b) == 0; }
};

/// Parses a version in any spelling PEP 440 normalizes (case, "v" prefix, "-"/"_"/"." separators,
/// "alpha", "rev", implicit numbers). Nullopt for anything else, and for numbers beyond 64 bits.
std::optional<PythonVersion> parse_python_version(std::string_view text);

}  // namespace gd
