#pragma once
// What an installed Python distribution asks of its neighbours, read without running Python:
// PEP 440 versions ("2.11.0+cu130"), version specifiers ("==2.6.*", "~=0.0.27"), PEP 508
// environment markers ('platform_system == "Linux" and platform_machine == "x86_64"') and whole
// requirement lines, as they appear in Requires-Dist fields of METADATA files.
//
// The semantics follow pypa/packaging 26, the library pip itself uses (tests compare against a
// table of its answers, tests/fixtures/python/packaging-oracle.tsv). Specifiers are evaluated the
// way `pip check` does: an installed pre-release counts (prereleases=True). Markers compare
// python_version, python_full_version, implementation_version and platform_release as versions
// and every other variable as a string, where "<" and ">" never hold and "<=" / ">=" mean "==".
//
// Specs: https://packaging.python.org/en/latest/specifications/version-specifiers/
//        https://packaging.python.org/en/latest/specifications/dependency-specifiers/

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

/// The marker variables of PEP 508, for the environment a distribution is installed in. A value
/// gpudoctor could not learn stays nullopt: comparisons on it are unknown, not false.
struct MarkerEnv {
  std::optional<std::string> os_name;                         ///< "posix"
  std::optional<std::string> sys_platform;                    ///< "linux"
  std::optional<std::string> platform_machine;                ///< "x86_64", "aarch64"
  std::optional<std::string> platform_python_implementation;  ///< "CPython"
  std::optional<std::string> platform_release;                ///< "6.8.0-45-generic"
  std::optional<std::string> platform_system;                 ///< "Linux"
  std::optional<std::string> platform_version;                ///< "#45-Ubuntu SMP ..."
  std::optional<std::string> python_version;                  ///< "3.12"
  std::optional<std::string> python_full_version;             ///< "3.12.3"
  std::optional<std::string> implementation_name;             ///< "cpython"
  std::optional<std::string> implementation_version;          ///< "3.12.3"
  /// The extras asked for (torch asks cuda-toolkit for [cudart,...]); none for a plain install.
  std::vector<std::string> extras;
};

enum class MarkerVariable : std::uint8_t {
  os_name,
  sys_platform,
  platform_machine,
  platform_python_implementation,
  platform_release,
  platform_system,
  platform_version,
  python_version,
  python_full_version,
  implementation_name,
  implementation_version,
  extra,
};

/// One side of a comparison: a variable or a quoted string.
struct MarkerOperand {
  bool is_variable = false;
  MarkerVariable variable = MarkerVariable::extra;
  std::string literal;
};

/// A parsed marker expression, stored as a tree in one vector (nodes refer to children by index).
struct Marker {
  struct Node {
    enum class Kind : std::uint8_t { compare, all_of, any_of } kind = Kind::compare;
    MarkerOperand lhs;
    std::string op;  ///< "==", "<", "in", "not in", ...
    MarkerOperand rhs;
    std::vector<std::size_t> children;  ///< for all_of / any_of
  };
  std::vector<Node> nodes;
  std::size_t root = 0;
};

/// Parses a marker ('python_version >= "3.9" and (extra == "cuda" or extra == "all")'). Nullopt
/// on anything PEP 508 does not allow: unknown variables, unquoted values, unbalanced parentheses.
std::optional<Marker> parse_marker(std::string_view text);

/// Whether the marker holds in `env`, as pip decides it: with no extras asked for, `extra` is "";
/// otherwise the marker applies if it holds for one of the asked extras. A requirement guarded
/// by `extra == "x"` therefore does not apply unless x is asked for. Nullopt when the answer
/// depends on an environment value that is unknown, or on a comparison packaging refuses
/// (`~=` between strings, two quoted strings compared with each other). "and"/"or" follow
/// three-valued logic: a known false decides an "and", a known true an "or".
std::optional<bool> marker_applies(const Marker& marker, const MarkerEnv& env);

/// Whether the marker mentions `extra` anywhere: such a requirement is optional, not a hard
/// dependency of the distribution.
bool marker_mentions_extra(const Marker& marker);

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
