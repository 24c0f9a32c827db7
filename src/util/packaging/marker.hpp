#pragma once
// PEP 508 environment markers ('platform_system == "Linux" and platform_machine == "x86_64"'),
// as pypa/packaging 26 evaluates them: python_version, python_full_version,
// implementation_version and platform_release compare as versions and every other variable as
// a string, where "<" and ">" never hold and "<=" / ">=" mean "==".
// Spec: https://packaging.python.org/en/latest/specifications/dependency-specifiers/

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gd {

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

}  // namespace gd
