#pragma once
// NVIDIA_REQUIRE_CUDA (and the other NVIDIA_REQUIRE_* variables of CUDA images): the conditions
// the NVIDIA container runtime checks against the host before it starts a container. The
// grammar and semantics follow NVIDIA's code:
//   - libnvidia-container src/cli/dsl.c (dsl_evaluate, dsl_compare_version) and
//     src/cli/configure.c (properties cuda, driver, arch, brand);
//   - nvidia-container-toolkit internal/requirements/constraints/factory.go: "space-separated
//     constraints being ORed together and comma-separated constraints being ANDed together".
// So "cuda>=13.0 brand=tesla,driver>=535,driver<536" holds when the driver provides CUDA 13.0,
// OR when the GPU is a Tesla and the driver is a 535 one (forward compatibility).

#include <optional>
#include <string>
#include <string_view>

namespace gd {

/// Three-valued outcome: a property gpudoctor does not know (the GPU brand) leaves it unknown.
enum class RequireTruth { no, yes, unknown };

/// What the requirement's properties are compared with; nullopt = not known.
struct RequireProperties {
  std::optional<std::string> cuda;    ///< "13.0": the CUDA version the driver reports
  std::optional<std::string> driver;  ///< "580.159.04": the kernel module's version
  std::optional<std::string> arch;    ///< "9.0": the GPU's compute capability
  std::optional<std::string> brand;   ///< "tesla": NVML's brand name
};

struct RequireResult {
  RequireTruth met = RequireTruth::unknown;
  /// When not met: the first space-separated term, which is what libnvidia-container names
  /// ("unsatisfied condition: cuda>=13.0").
  std::string failing;
  /// When unknown: the properties that could not be decided ("brand"), comma-separated.
  std::string undecided;
  /// A term that is not PROPERTY OPERATOR VALUE (the runtime refuses such a container).
  std::string error;
};

/// dsl_compare_version: numeric, dot by dot, trailing ".0" ignored; nullopt when either side
/// has anything but digits and dots or the operator is unknown.
std::optional<bool> compare_require_version(std::string_view left, std::string_view op, std::string_view right);

RequireResult evaluate_requirement(std::string_view requirement, const RequireProperties& properties);

}  // namespace gd
