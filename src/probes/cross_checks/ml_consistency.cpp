#include "probes/cross_checks/ml_consistency.hpp"

#include <charconv>

#include "core/fact_key.hpp"
#include "probes/shared/driver_cuda_versions.hpp"


namespace gd {
namespace {

struct MajorMinor {
  int major = 0;
  int minor = 0;
};

/// "13.0" / "12.8.93" / "9.0" -> {13, 0}; nullopt when not a version.
std::optional<MajorMinor> major_minor(std::string_view text) {
  MajorMinor out;
  const char* end = text.data() + text.size();
  auto first = std::from_chars(text.data(), end, out.major);
  if (first.ec != std::errc()) return std::nullopt;
  if (first.ptr == end) return out;
  if (*first.ptr != '.') return std::nullopt;
  auto second = std::from_chars(first.ptr + 1, end, out.minor);
  if (second.ec != std::errc()) return std::nullopt;
  return out;
}

struct Gpu {
  std::string label;  ///< "GPU 0 NVIDIA H200"
  MajorMinor cc;
};

/// The GPUs and their compute capability: CUDA's own view when the helper got it, else the PCI
/// table's. Empty with `known` false when neither could tell.
std::vector<Gpu> gpus_of(const FactSet& facts, bool& known) {
  std::vector<Gpu> out;
  known = true;
  for (std::string_view source : {"cuda.device.", "pci.gpu."}) {  // cuda.device.*, pci.gpu.*
    for (int index = 0; index < 64; ++index) {
      std::string prefix = std::string(source) + std::to_string(index) + ".";
      const Fact* cc = facts.find(FactName::unchecked(prefix + "compute_capability"));
      if (!cc) break;
      auto text = facts.get_string(FactName::unchecked(prefix + "compute_capability"));
      auto parsed = text ? major_minor(*text) : std::nullopt;
      if (!parsed) {
        known = false;
        continue;
      }
      auto name = facts.get_string(FactName::unchecked(prefix + (source[0] == 'c' ? "name" : "chip")));
      out.push_back(Gpu{"GPU " + std::to_string(index) + (name ? " " + *name : std::string()), *parsed});
    }
    if (!out.empty()) return out;
  }
  return out;
}

std::optional<MajorMinor> driver_cuda(FactSet& facts) {
  constexpr FactName k_fact = "ml.driver_cuda"_fact;
  for (FactName fact : {"cuda.driver_version.text"_fact, "container.driver_cuda_version"_fact}) {
    if (auto text = facts.get_string(fact)) {
      if (auto parsed = major_minor(*text)) {
        facts.set(k_fact, *text, fact);
        return parsed;
      }
    }
  }
  const Fact* module = facts.find("kmod.nvidia.version"_fact);
  if (module && module->state == FactState::absent) {
    facts.set_absent(k_fact, "kmod.nvidia.version"_fact, "no NVIDIA kernel module loaded");
  } else {
    facts.set_unknown(k_fact, "neither cuDriverGetVersion nor the module's branch gave a CUDA version",
                      "cuda.driver_version.text, container.driver_cuda_version");
  }
  return std::nullopt;
}

/// Sets `fact` to unknown or absent after `from`, a fact this one could not be derived without.
void carry_state(FactSet& facts, FactName fact, std::string_view from, std::string_view absent_note) {
  const Fact* source = facts.find(FactName::unchecked(from));  // a checked name, or one code_fact made
  if (source && source->state == FactState::absent) {
    facts.set_absent(fact, std::string(from), std::string(absent_note));
  } else {
    facts.set_unknown(fact, source && !source->reason.empty() ? source->reason : std::string(from) + " is not known",
                      std::string(from));
  }
}

/// The fact that says which of a library's SASS or PTX (`kind`) counts for a GPU: its covering
/// architectures (<prefix>sass_covering, probes/python/gpu_code_coverage.hpp), else, in a fact set
/// made before coverage was kept (a hand-written fixture), the union (<prefix>sass).
std::string code_fact(const FactSet& facts, const std::string& prefix, std::string_view kind) {
  std::string covering = prefix + std::string(kind) + "_covering";
  return facts.find(FactName::unchecked(covering)) ? covering : prefix + std::string(kind);
}

void torch_kernels(FactSet& facts, std::optional<MajorMinor> driver) {
  constexpr FactName k_fact = "ml.gpus_without_torch_kernels"_fact;
  auto installed = facts.get_bool("torch.installed"_fact);
  if (installed != true) {
    if (installed == false) {
      facts.set_absent(k_fact, "torch.installed"_fact, "torch is not installed");
    } else {
      carry_state(facts, k_fact, "torch.installed"_fact, "");
    }
    facts.set_absent("ml.torch_index"_fact, "torch.installed"_fact);
    return;
  }
  if (facts.get_bool("torch.cpu_only"_fact) == true || !facts.is_present("torch.cuda"_fact)) {
    facts.set_absent(k_fact, "torch.cuda"_fact, "torch is not a CUDA build");
    facts.set_absent("ml.torch_index"_fact, "torch.cuda"_fact);
    return;
  }
  const std::string sass_fact = code_fact(facts, "torch.", "sass");
  const std::string ptx_fact = code_fact(facts, "torch.", "ptx");
  const Fact* sass = facts.find(FactName::unchecked(sass_fact));
  const Fact* ptx = facts.find(FactName::unchecked(ptx_fact));
  if (!sass || sass->state != FactState::present || !ptx || ptx->state != FactState::present) {
    carry_state(facts, k_fact, sass && sass->state != FactState::present ? sass_fact : ptx_fact, "");
    facts.set_unknown("ml.torch_index"_fact, "torch's compiled architectures are not known", "torch.sass"_fact);
    return;
  }
  bool known = true;
  std::vector<Gpu> gpus = gpus_of(facts, known);
  if (gpus.empty()) {
    if (known) {
      facts.set_absent(k_fact, "pci.gpus"_fact, "no NVIDIA GPU");
    } else {
      facts.set_unknown(k_fact, "the GPUs' compute capability is not known", "pci.gpu.*.compute_capability"_pattern);
    }
    facts.set_absent("ml.torch_index"_fact, "pci.gpus"_fact);
    return;
  }
  std::vector<std::string> targets = std::get<std::vector<std::string>>(sass->value);
  for (const std::string& target : std::get<std::vector<std::string>>(ptx->value)) targets.push_back(target);
  std::vector<std::string> lacking;
  std::optional<std::string> index;
  for (const Gpu& gpu : gpus) {
    if (any_target_runs_on(targets, gpu.cc.major, gpu.cc.minor)) continue;
    lacking.push_back(gpu.label + " (sm_" + std::to_string(gpu.cc.major) + std::to_string(gpu.cc.minor) + ")");
    if (!index) index = torch_index_for(gpu.cc.major, gpu.cc.minor, driver ? std::optional<int>(driver->major) : std::nullopt);
  }
  const std::string source = sass_fact + ", " + ptx_fact + " vs the GPUs' compute capability";
  facts.set(k_fact, lacking, source);
  if (index) {
    facts.set("ml.torch_index"_fact, *index, source);
  } else {
    facts.set_absent("ml.torch_index"_fact, source, "every GPU has kernels");
  }
}

/// --extension libraries against the GPUs, like torch's own library.
void extension_kernels(FactSet& facts) {
  constexpr FactName k_fact = "ml.extensions_without_kernels"_fact;
  bool known = true;
  std::vector<Gpu> gpus = gpus_of(facts, known);
  std::vector<std::string> lacking;
  bool unknown = false;
  for (int index = 0; index < 64; ++index) {
    std::string prefix = "ext." + std::to_string(index) + ".";
    auto path = facts.get_string(FactName::unchecked(prefix + "path"));
    if (!path) break;
    const Fact* sass = facts.find(FactName::unchecked(code_fact(facts, prefix, "sass")));
    const Fact* ptx = facts.find(FactName::unchecked(code_fact(facts, prefix, "ptx")));
    if (!sass || sass->state != FactState::present || !ptx || ptx->state != FactState::present) {
      unknown = true;
      continue;
    }
    std::vector<std::string> targets = std::get<std::vector<std::string>>(sass->value);
    for (const std::string& target : std::get<std::vector<std::string>>(ptx->value)) targets.push_back(target);
    for (const Gpu& gpu : gpus) {
      if (!any_target_runs_on(targets, gpu.cc.major, gpu.cc.minor)) {
        lacking.push_back(*path + ": " + gpu.label + " (sm_" + std::to_string(gpu.cc.major) + std::to_string(gpu.cc.minor) + ")");
      }
    }
  }
  const std::string source = "ext.*.sass_covering, ext.*.ptx_covering vs the GPUs' compute capability";
  if (lacking.empty() && (unknown || (!known && gpus.empty()))) {
    facts.set_unknown(k_fact, "an extension's or a GPU's architectures are not known", source);
  } else {
    facts.set(k_fact, lacking, source);
  }
}

void torch_cuda_vs_driver(FactSet& facts, std::optional<MajorMinor> driver) {
  auto torch_cuda_text = facts.get_string("torch.cuda"_fact);
  auto torch_cuda = torch_cuda_text ? major_minor(*torch_cuda_text) : std::nullopt;
  for (FactName fact : {"ml.torch_cuda_major_above_driver"_fact, "ml.torch_cuda_minor_above_driver"_fact}) {
    if (!torch_cuda) {
      carry_state(facts, fact, "torch.cuda"_fact, "torch is not a CUDA build");
    } else if (!driver) {
      carry_state(facts, fact, "ml.driver_cuda"_fact, "no NVIDIA driver");
    }
  }
  if (!torch_cuda || !driver) return;
  const std::string source = "torch.cuda vs ml.driver_cuda";
  facts.set("ml.torch_cuda_major_above_driver"_fact, torch_cuda->major > driver->major, source);
  facts.set("ml.torch_cuda_minor_above_driver"_fact, torch_cuda->major == driver->major && torch_cuda->minor > driver->minor,
            source);
}

void frameworks_vs_driver(FactSet& facts, std::optional<MajorMinor> driver) {
  constexpr FactName k_fact = "ml.frameworks_above_driver"_fact;
  std::vector<std::string> above;
  bool unknown = false;
  for (auto [fact, label] : {std::pair{"wheels.jax_cuda_major"_fact, "jax"}, std::pair{"wheels.cupy_cuda_major"_fact, "cupy"}}) {
    auto major = facts.get_int(fact);
    if (!major) {
      const Fact* f = facts.find(fact);
      unknown = unknown || !f || f->state == FactState::unknown;
      continue;
    }
    if (!driver) {
      unknown = true;
      continue;
    }
    if (*major > driver->major) above.push_back(std::string(label) + " built for CUDA " + std::to_string(*major));
  }
  const std::string source = "wheels.jax_cuda_major, wheels.cupy_cuda_major vs ml.driver_cuda";
  if (above.empty() && unknown) {
    facts.set_unknown(k_fact, "the frameworks' or the driver's CUDA version is not known", source);
  } else {
    facts.set(k_fact, above, source);
  }
}

/// The driver branches the extension-build toolkit needs: the one released with its version (every
/// feature, PTX JIT of its output) and its major's first (minor-version compatibility runs its SASS).
void toolkit_driver_branches(FactSet& facts, MajorMinor toolkit) {
  const std::string source = "toolkit.build.version vs the driver branch table (probes/shared/driver_cuda_versions)";
  const std::string version = std::to_string(toolkit.major) + "." + std::to_string(toolkit.minor);
  if (auto branch = driver_branch_for_cuda(toolkit.major, toolkit.minor)) {
    facts.set("ml.toolkit_driver_branch"_fact, static_cast<std::int64_t>(*branch), source);
  } else {
    facts.set_unknown("ml.toolkit_driver_branch"_fact, "CUDA " + version + " is newer than gpudoctor's driver branch table",
                      source);
  }
  if (auto branch = first_driver_branch_for_cuda_major(toolkit.major)) {
    facts.set("ml.toolkit_major_driver_branch"_fact, static_cast<std::int64_t>(*branch), source);
  } else {
    facts.set_unknown("ml.toolkit_major_driver_branch"_fact,
                      "gpudoctor's driver branch table has no branch of CUDA " + std::to_string(toolkit.major), source);
  }
}

void toolkit_vs_torch_and_driver(FactSet& facts, std::optional<MajorMinor> driver) {
  auto toolkit_text = facts.get_string("toolkit.build.version"_fact);
  auto toolkit = toolkit_text ? major_minor(*toolkit_text) : std::nullopt;
  if (!toolkit) {
    carry_state(facts, "ml.nvcc_vs_torch"_fact, "toolkit.build.version"_fact, "no CUDA toolkit found");
    carry_state(facts, "ml.toolkit_above_driver"_fact, "toolkit.build.version"_fact, "no CUDA toolkit found");
    carry_state(facts, "ml.toolkit_driver_branch"_fact, "toolkit.build.version"_fact, "no CUDA toolkit found");
    carry_state(facts, "ml.toolkit_major_driver_branch"_fact, "toolkit.build.version"_fact, "no CUDA toolkit found");
    return;
  }
  toolkit_driver_branches(facts, *toolkit);
  auto torch_text = facts.get_string("torch.cuda"_fact);
  auto torch_cuda = torch_text ? major_minor(*torch_text) : std::nullopt;
  if (torch_cuda) {
    const char* verdict = toolkit->major != torch_cuda->major   ? "major-differs"
                          : toolkit->minor != torch_cuda->minor ? "minor-differs"
                                                                : "same";
    facts.set("ml.nvcc_vs_torch"_fact, std::string(verdict), "toolkit.build.version vs torch.cuda");
  } else {
    carry_state(facts, "ml.nvcc_vs_torch"_fact, "torch.cuda"_fact, "torch is not a CUDA build");
  }
  if (driver) {
    bool above = toolkit->major > driver->major || (toolkit->major == driver->major && toolkit->minor > driver->minor);
    facts.set("ml.toolkit_above_driver"_fact, above, "toolkit.build.version vs ml.driver_cuda");
  } else {
    carry_state(facts, "ml.toolkit_above_driver"_fact, "ml.driver_cuda"_fact, "no NVIDIA driver");
  }
}

}  // namespace

std::optional<GpuTarget> parse_gpu_target(std::string_view text) {
  GpuTarget target;
  if (text.starts_with("sm_")) {
    text.remove_prefix(3);
  } else if (text.starts_with("compute_")) {
    text.remove_prefix(8);
    target.ptx = true;
  } else {
    return std::nullopt;
  }
  int number = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || number < 10) return std::nullopt;
  std::string_view rest(ptr, text.data() + text.size() - ptr);
  if (rest == "a" || rest == "f") {
    target.variant = rest[0];
  } else if (!rest.empty()) {
    return std::nullopt;
  }
  target.major = number / 10;
  target.minor = number % 10;
  return target;
}

bool target_runs_on(const GpuTarget& target, int major, int minor) {
  if (target.ptx) return target.major * 10 + target.minor <= major * 10 + minor;
  if (target.variant == 'a') return target.major == major && target.minor == minor;
  return target.major == major && target.minor <= minor;
}

bool any_target_runs_on(const std::vector<std::string>& targets, int major, int minor) {
  for (const std::string& text : targets) {
    auto target = parse_gpu_target(text);
    if (target && target_runs_on(*target, major, minor)) return true;
  }
  return false;
}

std::string torch_index_for(int major, int minor, std::optional<int> driver_cuda_major) {
  const std::string base = "https://download.pytorch.org/whl/";
  if (major * 10 + minor < 75) return base + "cu126";
  return base + (driver_cuda_major && *driver_cuda_major >= 13 ? "cu130" : "cu128");
}

void probe_ml_consistency(Host&, const ProbeOptions&, FactSet& facts) {
  std::optional<MajorMinor> driver = driver_cuda(facts);
  torch_kernels(facts, driver);
  extension_kernels(facts);
  torch_cuda_vs_driver(facts, driver);
  frameworks_vs_driver(facts, driver);
  toolkit_vs_torch_and_driver(facts, driver);
}

}  // namespace gd
