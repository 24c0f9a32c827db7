#include "probes/cross_checks/driver_consistency.hpp"

#include "core/fact_key.hpp"
#include "util/text_split.hpp"

#include <vector>

namespace gd {
namespace {

// Forward-compatibility copies (cuda-compat, .../compat/libcuda.so.*) are meant to be newer
// than the module (docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html), and the
// toolkit's stub has no driver version: neither is a mismatch.
bool is_exempt(std::string_view path) {
  return path.find("/compat/") != std::string_view::npos || path.find("/stubs/") != std::string_view::npos;
}

struct Candidate {
  std::string library;
  std::string version;
  std::string path;
};

/// What a fact says about one library: its version and path, if the fact names one. The callers
/// name the facts with "..."_fact (checked); "" is none.
void consider(const FactSet& facts, std::string_view library, std::string_view path_fact, std::string_view version_fact,
              std::string_view exempt_fact, std::vector<Candidate>& out, bool& unknown) {
  auto path = facts.get_string(FactName::unchecked(path_fact));
  if (path) {
    if (is_exempt(*path)) {
      return;
    }
    if (auto version = library_version_from_path(*path)) {
      out.push_back(Candidate{std::string(library), *version, *path});
      return;
    }
  }
  if (version_fact.empty()) {
    const Fact* fact = facts.find(FactName::unchecked(path_fact));
    unknown = unknown || !fact || fact->state == FactState::unknown;
    return;
  }
  if (!exempt_fact.empty() && facts.get_bool(FactName::unchecked(exempt_fact)) == true) {
    return;
  }
  if (auto version = facts.get_string(FactName::unchecked(version_fact))) {
    out.push_back(Candidate{std::string(library), *version, path.value_or("")});
    return;
  }
  const Fact* fact = facts.find(FactName::unchecked(version_fact));
  unknown = unknown || !fact || fact->state == FactState::unknown;
}

}  // namespace

std::optional<std::string> library_version_from_path(std::string_view path) {
  std::size_t slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  std::size_t so = name.find(".so.");
  if (so == std::string_view::npos) {
    return std::nullopt;
  }
  std::string_view version = name.substr(so + 4);
  // A driver version has at least two dots' worth of numbers (580.159.04) or one (575.57).
  std::size_t dots = 0;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = version.find('.', start);
    if (!all_digits(version.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start))) {
      return std::nullopt;
    }
    if (dot == std::string_view::npos) {
      break;
    }
    ++dots;
    start = dot + 1;
  }
  if (dots == 0) {
    return std::nullopt;  // libcuda.so.1: the soname, not a version
  }
  return std::string(version);
}

/// Whether the loader's predicted libcuda.so.1 is the file the helper really mapped: a difference
/// means something the prediction does not model (an RPATH, LD_PRELOAD, a loader cache that is
/// out of date) decides which driver library CUDA programs get.
void record_prediction_match(FactSet& facts) {
  constexpr FactName k_fact = "lib.libcuda.matches_loaded"_fact;
  const std::string source = "lib.libcuda.resolved_real vs cuda.libcuda.path";
  auto loaded = facts.get_string("cuda.libcuda.path"_fact);
  if (!loaded) {
    facts.set_unknown(k_fact, "the CUDA helper did not load a libcuda", source);
    return;
  }
  auto predicted = facts.get_string("lib.libcuda.resolved_real"_fact);
  if (predicted) {
    facts.set(k_fact, *predicted == *loaded, source);
    return;
  }
  const Fact* prediction = facts.find("lib.libcuda.resolved_real"_fact);
  if (prediction && prediction->state == FactState::absent) {
    facts.set(k_fact, false, source);  // the helper found one where the prediction found none
  } else {
    facts.set_unknown(k_fact, "no prediction of libcuda.so.1", source);
  }
}

void probe_driver_consistency(Host&, const ProbeOptions&, FactSet& facts) {
  record_prediction_match(facts);
  constexpr FactName k_fact = "kmod.nvidia.userspace_mismatch"_fact;
  const std::string source = "kmod.nvidia.version vs cuda.libcuda.path, nvml.path, lib.*.resolved_version";
  const Fact* module = facts.find("kmod.nvidia.version"_fact);
  if (!module || module->state != FactState::present) {
    if (module && module->state == FactState::absent) {
      facts.set_absent(k_fact, source, "the nvidia module is not loaded");
    } else {
      facts.set_unknown(k_fact, module ? module->reason : "kmod.nvidia.version was not collected", source);
    }
    return;
  }
  const std::string& module_version = std::get<std::string>(module->value);

  std::vector<Candidate> candidates;
  bool unknown = false;
  // What the helper really loaded wins over the loader's predicted resolution.
  if (facts.get_string("cuda.libcuda.path"_fact)) {
    consider(facts, "libcuda", "cuda.libcuda.path"_fact, "", "", candidates, unknown);
  } else {
    consider(facts, "libcuda", "lib.libcuda.resolved_real"_fact, "lib.libcuda.resolved_version"_fact,
             "lib.libcuda.resolved_is_compat"_fact, candidates, unknown);
  }
  if (facts.get_string("nvml.path"_fact)) {
    consider(facts, "libnvidia-ml", "nvml.path"_fact, "", "", candidates, unknown);
  } else {
    consider(facts, "libnvidia-ml", "lib.libnvidia_ml.resolved"_fact, "lib.libnvidia_ml.resolved_version"_fact, "", candidates,
             unknown);
  }

  if (candidates.empty()) {
    if (unknown) {
      facts.set_unknown(k_fact, "the user-space driver's version is unknown", source);
    } else {
      facts.set_absent(k_fact, source, "no user-space driver library with a version was found");
    }
    return;
  }
  std::vector<std::string> mismatches;
  for (const Candidate& candidate : candidates) {
    if (candidate.version != module_version) {
      mismatches.push_back(candidate.library + " " + candidate.version +
                           (candidate.path.empty() ? std::string() : " (" + candidate.path + ")"));
    }
  }
  facts.set(k_fact, mismatches, source);
}

}  // namespace gd
