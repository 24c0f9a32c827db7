#include "probes/python/python_stack.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <optional>

#include "core/fact_key.hpp"
#include "probes/shared/cuda_fatbin.hpp"
#include "probes/python/gpu_code_coverage.hpp"
#include "probes/shared/library_file.hpp"
#include "probes/python/python_dists.hpp"
#include "probes/python/python_envs.hpp"
#include "probes/python/python_metadata.hpp"
#include "probes/python/preflight_python.hpp"
#include "util/packaging/installed_requirements.hpp"

namespace gd {
namespace {

constexpr std::size_t k_metadata_bytes = 1 << 20;  // headers come first; bodies (README) are cut
constexpr std::size_t k_small_file = 64 * 1024;
constexpr std::size_t k_max_ld_dirs = 64;

// The CUDA 13 library wheels without a -cu13 suffix, as torch 2.11.0+cu130 pulls them in through
// cuda-toolkit[...]==13.0.2 (its METADATA on a real H200 host: nvidia-cublas==13.1.0.3.*,
// nvidia-cufft==12.0.0.61.*, ...). Their versions are the libraries' own, not CUDA's.
constexpr std::array<std::string_view, 24> k_cuda13_unsuffixed = {
    "nvidia-cublas",       "nvidia-cuda-cccl",   "nvidia-cuda-crt",      "nvidia-cuda-culibos",
    "nvidia-cuda-cupti",   "nvidia-cuda-cuxxfilt", "nvidia-cuda-nvcc",   "nvidia-cuda-nvrtc",
    "nvidia-cuda-opencl",  "nvidia-cuda-profiler-api", "nvidia-cuda-runtime", "nvidia-cuda-sanitizer-api",
    "nvidia-cufft",        "nvidia-cufile",      "nvidia-curand",        "nvidia-cusolver",
    "nvidia-cusparse",     "nvidia-npp",         "nvidia-nvfatbin",      "nvidia-nvjitlink",
    "nvidia-nvjpeg",       "nvidia-nvptxcompiler", "nvidia-nvtx",        "nvidia-nvvm",
};

// Shared libraries of the CUDA wheels, by the stem of their file name, and the wheel (without
// its family suffix) that ships them: what LD_LIBRARY_PATH can shadow.
constexpr std::array<std::pair<std::string_view, std::string_view>, 13> k_wheel_libraries = {{
    {"libnvJitLink", "nvidia-nvjitlink"}, {"libcusparse", "nvidia-cusparse"}, {"libcublasLt", "nvidia-cublas"},
    {"libcublas", "nvidia-cublas"},       {"libcudart", "nvidia-cuda-runtime"}, {"libcufft", "nvidia-cufft"},
    {"libcurand", "nvidia-curand"},       {"libcusolver", "nvidia-cusolver"}, {"libnvrtc", "nvidia-cuda-nvrtc"},
    {"libcudnn", "nvidia-cudnn"},         {"libnccl", "nvidia-nccl"},       {"libcupti", "nvidia-cuda-cupti"},
    {"libnvToolsExt", "nvidia-nvtx"},
}};

std::string parent(std::string_view path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos || slash == 0 ? std::string("/") : std::string(path.substr(0, slash));
}

std::string major_of(std::string_view version) { return std::string(version.substr(0, version.find('.'))); }

/// The minor of "12.1.105" (1); nullopt when there is none.
std::optional<int> minor_of(std::string_view version) {
  std::size_t first = version.find('.');
  if (first == std::string_view::npos) return std::nullopt;
  std::string_view rest = version.substr(first + 1);
  std::size_t digits = 0;
  while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
  if (digits == 0 || digits > 6) return std::nullopt;
  return std::stoi(std::string(rest.substr(0, digits)));
}

/// `version` has the same major as `other` and a lower minor ("12.1.105" against "12.8.93").
bool minor_below(std::string_view version, std::string_view other) {
  auto minor = minor_of(version);
  auto other_minor = minor_of(other);
  return major_of(version) == major_of(other) && minor && other_minor && *minor < *other_minor;
}

std::string release_of(std::string_view version) { return std::string(version.substr(0, version.find('+'))); }

/// "2.6" from "2.6.0+cu124".
std::string major_minor_of(std::string_view version) {
  std::size_t first = version.find('.');
  if (first == std::string_view::npos) return std::string(version);
  std::size_t second = version.find_first_of(".+", first + 1);
  return std::string(version.substr(0, second));
}

/// The marker environment of this host's interpreter (PEP 508): Linux, CPython, its X.Y.
MarkerEnv marker_env(std::string_view machine, const std::string& python_version) {
  MarkerEnv env;
  env.os_name = "posix";
  env.sys_platform = "linux";
  env.platform_system = "Linux";
  env.platform_machine = std::string(machine);
  env.platform_python_implementation = "CPython";
  env.implementation_name = "cpython";
  if (!python_version.empty()) env.python_version = python_version;
  return env;
}

/// The torch major.minor a prebuilt extension wheel was built for, from the URL pip installed
/// it from ("...flash_attn-2.7.4.post1+cu12torch2.6cxx11abiFALSE-cp312-cp312-linux_x86_64.whl").
std::optional<std::string> torch_built_for(std::string_view direct_url_json) {
  auto url = parse_direct_url(direct_url_json);
  if (!url) return std::nullopt;
  auto wheel = parse_wheel_filename(url->url);
  if (!wheel) return std::nullopt;
  auto tag = parse_torch_build_tag(wheel->version);
  if (!tag) return std::nullopt;
  return tag->torch;
}

struct Stack {
  Host& host;
  FactSet& facts;
  PythonEnv env;
  SiteScan scan;
  MarkerEnv markers;

  const InstalledDist* installed(std::string_view name) const {
    auto it = scan.dists.find(std::string(name));
    return it == scan.dists.end() || it->second.empty() ? nullptr : &it->second.front();
  }

  std::optional<CoreMetadata> metadata(const InstalledDist& dist) {
    auto text = host.read_file(metadata_path(dist), k_metadata_bytes);
    if (!text) return std::nullopt;
    return parse_core_metadata(*text);
  }

  /// The requirements of `dist` that apply here (with `extras` requested).
  std::vector<Requirement> requirements(const CoreMetadata& meta, const std::vector<std::string>& extras) {
    return applicable_requirements(meta.requires_dist, markers, extras);
  }

  /// What is installed, for the requirement checks: versions from the scan, METADATA on demand.
  InstalledLookup lookup() {
    InstalledLookup out;
    out.version = [this](std::string_view name) -> std::optional<std::string> {
      const InstalledDist* dist = installed(name);
      return dist ? std::optional<std::string>(dist->version) : std::nullopt;
    };
    out.requires_dist = [this](std::string_view name) -> std::optional<std::vector<std::string>> {
      const InstalledDist* dist = installed(name);
      if (!dist) return std::nullopt;
      auto meta = metadata(*dist);
      return meta ? std::optional<std::vector<std::string>>(meta->requires_dist) : std::nullopt;
    };
    return out;
  }
};

void set_list_or_unknown(FactSet& facts, FactName name, std::vector<std::string> values, bool unknown,
                         const std::string& why, const std::string& source) {
  if (values.empty() && unknown) {
    facts.set_unknown(name, why, source);
  } else {
    facts.set(name, std::move(values), source);
  }
}

void environment_facts(FactSet& facts, const PythonDiscovery& found) {
  const std::string source = "PATH, VIRTUAL_ENV, CONDA_PREFIX, ./.venv, ~/.conda/environments.txt";
  facts.set("py.interpreters"_fact, found.interpreters, "PATH");
  const PythonEnv& env = *found.chosen;
  if (env.interpreter.empty()) {  // a pre-flight's site folder that no interpreter found imports
    facts.set_absent("py.default.interpreter"_fact, env.found_via, "no interpreter found for " + env.site_dirs.front());
  } else {
    facts.set("py.default.interpreter"_fact, env.interpreter, env.found_via);
  }
  facts.set("py.default.prefix"_fact, env.prefix, env.found_via);
  facts.set("py.default.kind"_fact, env.kind, env.prefix);
  facts.set("py.default.via"_fact, env.found_via, source);
  if (env.version.empty()) {
    facts.set_unknown("py.default.version"_fact, "no pyvenv.cfg, interpreter name or lib/pythonX.Y folder tells it", env.prefix);
  } else {
    facts.set("py.default.version"_fact, env.version, env.prefix);
  }
  facts.set("py.default.site_dirs"_fact, env.site_dirs, env.prefix);
}

void absent_environment(FactSet& facts, const PythonDiscovery& found) {
  const std::string source = "PATH, VIRTUAL_ENV, CONDA_PREFIX, ./.venv, ~/.conda/environments.txt";
  const std::string note = "no Python interpreter found";
  facts.set("py.interpreters"_fact, found.interpreters, "PATH");
  facts.set("py.envs"_fact, std::vector<std::string>{}, source);
  for (FactName name : {"py.default.interpreter"_fact, "py.default.prefix"_fact, "py.default.kind"_fact, "py.default.via"_fact,
                           "py.default.version"_fact, "py.default.site_dirs"_fact, "py.dists"_fact, "py.shadowed"_fact}) {
    facts.set_absent(name, source, note);
  }
  facts.set("torch.installed"_fact, false, source);
  for (FactName name : {"torch.version"_fact, "torch.release"_fact, "torch.cuda"_fact, "torch.hip"_fact, "torch.cpu_only"_fact,
                           "torch.git_version"_fact, "torch.path"_fact, "torch.copies"_fact, "torch.copy_count"_fact, "torch.cuda_library"_fact,
                           "torch.sass"_fact, "torch.ptx"_fact, "torch.fatbin_scan_ms"_fact, "torch.requires_unmet"_fact, "torch.triton_pin"_fact,
                           "torch.triton_unmet"_fact, "wheels.nvidia"_fact, "wheels.cuda_families"_fact, "wheels.cuda_family_count"_fact, "wheels.other_family"_fact,
                           "wheels.extensions_for_other_torch"_fact, "wheels.jax_cuda_major"_fact, "wheels.cupy_cuda_major"_fact,
                           "ml.ld_library_path_shadows_wheels"_fact}) {
    facts.set_absent(name, source, note);
  }
  for (const std::string& name : gpu_code_coverage_fact_names("torch.")) facts.set_absent(FactName::unchecked(name), source, note);
}

void dist_facts(Stack& stack) {
  std::vector<std::string> visible;
  std::vector<std::string> shadowed;
  for (const auto& [name, copies] : stack.scan.dists) {
    const InstalledDist& first = copies.front();
    visible.push_back(name + " " + first.version + " (" + first.site_dir + ")");
    for (std::size_t i = 1; i < copies.size(); ++i) {
      shadowed.push_back(name + " " + copies[i].version + " in " + copies[i].site_dir + " is hidden by " + first.version +
                         " in " + first.site_dir);
    }
  }
  const std::string source = "*.dist-info in py.default.site_dirs";
  bool unknown = !stack.scan.unreadable.empty();
  std::string why = unknown ? "site folders not listed: " + stack.scan.unreadable.front() : "";
  set_list_or_unknown(stack.facts, "py.dists"_fact, visible, unknown, why, source);
  set_list_or_unknown(stack.facts, "py.shadowed"_fact, shadowed, unknown, why, source);
}

/// The GPU code compiled into libtorch_cuda.so.
void torch_fatbin(Stack& stack, const std::string& torch_path, bool cuda_build) {
  FactSet& facts = stack.facts;
  const std::string library = torch_path + "/lib/libtorch_cuda.so";
  if (!cuda_build || !stack.host.stat(library)) {
    const char* note = cuda_build ? "torch/lib/libtorch_cuda.so not found" : "not a CUDA build of torch";
    for (FactName name : {"torch.cuda_library"_fact, "torch.sass"_fact, "torch.ptx"_fact, "torch.fatbin_scan_ms"_fact}) {
      facts.set_absent(name, library, note);
    }
    for (const std::string& name : gpu_code_coverage_fact_names("torch.")) facts.set_absent(FactName::unchecked(name), library, note);
    return;
  }
  facts.set("torch.cuda_library"_fact, library, torch_path);
  auto start = std::chrono::steady_clock::now();
  // Reads only the headers' bytes: the capture (--json, replay) keeps every read, and
  // libtorch_cuda.so has a few thousand headers far apart (about 80 bytes of each are used).
  FatbinScanLimits limits;
  limits.read_window = 128;
  FatbinScan scan = scan_fat_binaries(stack.host, library, limits);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  const std::string source = library + " (" + std::to_string(scan.containers) + " fat binaries, " +
                             std::to_string(scan.entries) + " entries)";
  if (scan.status != FatbinStatus::ok) {
    std::string why = std::string(to_string(scan.status)) + (scan.error.empty() ? "" : ": " + scan.error);
    facts.set_unknown("torch.sass"_fact, why, library);
    facts.set_unknown("torch.ptx"_fact, why, library);
    for (const std::string& name : gpu_code_coverage_fact_names("torch.")) facts.set_unknown(FactName::unchecked(name), why, library);
  } else {
    facts.set("torch.sass"_fact, sass_arch_names(scan), source);
    facts.set("torch.ptx"_fact, ptx_arch_names(scan), source);
    set_gpu_code_coverage_facts(facts, "torch.", scan, source);
  }
  facts.set("torch.fatbin_scan_ms"_fact, static_cast<std::int64_t>(ms), library);
}

/// torch's own pins (its METADATA's Requires-Dist on this platform) for the CUDA wheels and
/// triton, against what the environment imports; one level down through extras of a meta
/// package (cuda-toolkit[cublas,...]==13.0.2 pins nvidia-cublas==13.1.0.3.* for extra cublas).
void torch_pins(Stack& stack, const std::string& torch_site, const std::string& torch_version) {
  FactSet& facts = stack.facts;
  const InstalledDist* torch_dist = nullptr;
  auto it = stack.scan.dists.find("torch");
  if (it != stack.scan.dists.end()) {
    for (const InstalledDist& dist : it->second) {
      if (dist.site_dir == torch_site) torch_dist = &dist;
    }
  }
  std::optional<CoreMetadata> meta = torch_dist ? stack.metadata(*torch_dist) : std::nullopt;
  if (!meta) {
    const std::string why = torch_dist ? "torch's METADATA is unreadable" : "torch has no .dist-info next to it";
    facts.set_unknown("torch.requires_unmet"_fact, why, torch_site);
    facts.set_unknown("torch.triton_pin"_fact, why, torch_site);
    facts.set_unknown("torch.triton_unmet"_fact, why, torch_site);
    return;
  }
  const std::string source = metadata_path(*torch_dist);
  std::vector<std::string> unmet;
  std::optional<std::string> triton_pin;
  std::optional<std::string> triton_unmet;
  const InstalledLookup installed = stack.lookup();
  auto follow = [](std::string_view name) { return name.starts_with("nvidia-"); };
  for (const Requirement& requirement : stack.requirements(*meta, {})) {
    if (requirement.name == "triton" || requirement.name == "pytorch-triton") {
      triton_pin = requirement_text(requirement);
      const InstalledDist* triton = stack.installed(requirement.name);
      if (!triton) {
        triton_unmet = requirement.name + " is not installed; torch " + torch_version + " requires " + *triton_pin;
      } else if (specifiers_allow(requirement.specifiers, triton->version) == false) {
        triton_unmet = requirement.name + " " + triton->version + " installed, torch " + torch_version + " requires " +
                       *triton_pin;
      }
      continue;
    }
    if (requirement.name.starts_with("nvidia-") || requirement.name.starts_with("cuda-")) {
      collect_unmet_requirements(requirement, stack.markers, installed, follow, unmet);
    }
  }
  facts.set("torch.requires_unmet"_fact, unmet, source);
  if (triton_pin) {
    facts.set("torch.triton_pin"_fact, *triton_pin, source);
  } else {
    facts.set_absent("torch.triton_pin"_fact, source, "torch pins no triton on this platform");
  }
  if (triton_unmet) {
    facts.set("torch.triton_unmet"_fact, *triton_unmet, source);
  } else {
    facts.set_absent("torch.triton_unmet"_fact, source, triton_pin ? "the pinned triton is installed" : "no triton pin");
  }
}

void torch_facts(Stack& stack) {
  FactSet& facts = stack.facts;
  std::vector<std::string> copies;
  for (const std::string& dir : stack.env.site_dirs) {
    if (stack.host.stat(dir + "/torch/__init__.py")) copies.push_back(dir + "/torch");
  }
  const std::string source = "torch/ in py.default.site_dirs";
  facts.set("torch.installed"_fact, !copies.empty(), source);
  facts.set("torch.copies"_fact, copies, source);
  facts.set("torch.copy_count"_fact, static_cast<std::int64_t>(copies.size()), source);
  if (copies.empty()) {
    for (FactName name : {"torch.version"_fact, "torch.release"_fact, "torch.cuda"_fact, "torch.hip"_fact, "torch.cpu_only"_fact,
                             "torch.git_version"_fact, "torch.path"_fact, "torch.cuda_library"_fact, "torch.sass"_fact, "torch.ptx"_fact,
                             "torch.fatbin_scan_ms"_fact, "torch.requires_unmet"_fact, "torch.triton_pin"_fact, "torch.triton_unmet"_fact}) {
      facts.set_absent(name, source, "torch is not installed");
    }
    for (const std::string& name : gpu_code_coverage_fact_names("torch.")) {
      facts.set_absent(FactName::unchecked(name), source, "torch is not installed");
    }
    return;
  }
  const std::string& path = copies.front();
  facts.set("torch.path"_fact, path, source);
  const std::string version_file = path + "/version.py";
  auto text = stack.host.read_file(version_file, k_small_file);
  std::optional<TorchVersionFile> info = text ? parse_torch_version_py(*text) : std::nullopt;
  if (!info) {
    std::string why = text ? "torch/version.py has no __version__" : unreadable_reason(text.error(), stack.host);
    for (FactName name : {"torch.version"_fact, "torch.release"_fact, "torch.cuda"_fact, "torch.hip"_fact, "torch.cpu_only"_fact,
                             "torch.git_version"_fact, "torch.cuda_library"_fact, "torch.sass"_fact, "torch.ptx"_fact, "torch.fatbin_scan_ms"_fact}) {
      facts.set_unknown(name, why, version_file);
    }
    for (const std::string& name : gpu_code_coverage_fact_names("torch.")) facts.set_unknown(FactName::unchecked(name), why, version_file);
  } else {
    facts.set("torch.version"_fact, info->version, version_file);
    facts.set("torch.release"_fact, release_of(info->version), version_file);
    if (info->cuda) {
      facts.set("torch.cuda"_fact, *info->cuda, version_file);
    } else {
      facts.set_absent("torch.cuda"_fact, version_file, "torch.version.cuda is None");
    }
    if (info->hip) {
      facts.set("torch.hip"_fact, *info->hip, version_file);
    } else {
      facts.set_absent("torch.hip"_fact, version_file, "torch.version.hip is None");
    }
    facts.set("torch.cpu_only"_fact, !info->cuda && !info->hip, version_file);
    if (info->git_version.empty()) {
      facts.set_absent("torch.git_version"_fact, version_file);
    } else {
      facts.set("torch.git_version"_fact, info->git_version, version_file);
    }
    torch_fatbin(stack, path, info->cuda.has_value());
  }
  torch_pins(stack, parent(path), info ? info->version : std::string("?"));
}

void wheel_facts(Stack& stack) {
  FactSet& facts = stack.facts;
  const std::string source = "*.dist-info in py.default.site_dirs";
  std::vector<std::string> wheels;
  std::vector<std::string> families;
  std::optional<std::int64_t> jax_major;
  std::optional<std::int64_t> cupy_major;
  for (const auto& [name, copies] : stack.scan.dists) {
    const InstalledDist& dist = copies.front();
    std::string family = nvidia_wheel_family(name);
    if (!family.empty()) {
      wheels.push_back(name + " " + dist.version);
      if (std::find(families.begin(), families.end(), family) == families.end()) families.push_back(family);
    }
    // jax-cuda12-plugin, jax-cuda13-plugin; cupy-cuda12x, cupy-cuda11x.
    for (auto [prefix, target] : {std::pair{std::string_view("jax-cuda"), &jax_major}, std::pair{std::string_view("cupy-cuda"), &cupy_major}}) {
      if (!name.starts_with(prefix)) continue;
      std::string_view digits = std::string_view(name).substr(prefix.size(), 2);
      if (digits.size() == 2 && std::isdigit(static_cast<unsigned char>(digits[0])) &&
          std::isdigit(static_cast<unsigned char>(digits[1]))) {
        *target = std::stoi(std::string(digits));
      }
    }
  }
  std::sort(families.begin(), families.end());
  // The wheels of the families torch does not use: its own is cu<major of torch.version.cuda>.
  std::string other;
  if (auto cuda = facts.get_string("torch.cuda"_fact)) {
    std::string own = "cu" + major_of(*cuda);
    for (const auto& [name, copies] : stack.scan.dists) {
      std::string family = nvidia_wheel_family(name);
      if (!family.empty() && family != own) other += (other.empty() ? "" : " ") + name;
    }
    // cu130 torch pulls the unsuffixed wheels through the cuda-toolkit meta package.
    if (own != "cu13" && !other.empty() && stack.installed("cuda-toolkit")) other += " cuda-toolkit";
  }
  if (!other.empty()) {
    facts.set("wheels.other_family"_fact, other, source + " vs torch.cuda");
  } else {
    facts.set_absent("wheels.other_family"_fact, source + " vs torch.cuda",
                     facts.is_present("torch.cuda"_fact) ? "no wheel of another family" : "no CUDA torch");
  }
  facts.set("wheels.nvidia"_fact, wheels, source);
  facts.set("wheels.cuda_families"_fact, families, source);
  facts.set("wheels.cuda_family_count"_fact, static_cast<std::int64_t>(families.size()), source);
  if (jax_major) {
    facts.set("wheels.jax_cuda_major"_fact, *jax_major, source);
  } else {
    facts.set_absent("wheels.jax_cuda_major"_fact, source, "no jax CUDA plugin installed");
  }
  if (cupy_major) {
    facts.set("wheels.cupy_cuda_major"_fact, *cupy_major, source);
  } else {
    facts.set_absent("wheels.cupy_cuda_major"_fact, source, "no cupy-cudaNNx wheel installed");
  }
}

/// Extensions that pin torch (vllm, xformers, torchvision, torchaudio) or whose prebuilt wheel
/// names the torch it was built for (flash-attn's direct_url.json).
void extension_facts(Stack& stack) {
  FactSet& facts = stack.facts;
  const std::string source = "METADATA and direct_url.json of the torch extensions";
  auto torch_version = facts.get_string("torch.version"_fact);
  if (!torch_version) {
    facts.set_absent("wheels.extensions_for_other_torch"_fact, "torch.version"_fact, "torch is not installed");
    return;
  }
  std::vector<std::string> mismatched;
  for (const char* name : {"torchvision", "torchaudio", "xformers", "vllm", "flash-attn", "flash-linear-attention",
                           "bitsandbytes", "deepspeed", "apex"}) {
    const InstalledDist* dist = stack.installed(name);
    if (!dist) continue;
    if (auto meta = stack.metadata(*dist)) {
      for (const Requirement& requirement : stack.requirements(*meta, {})) {
        if (requirement.name != "torch" || requirement.specifiers.empty()) continue;
        if (specifiers_allow(requirement.specifiers, *torch_version) == false) {
          mismatched.push_back(std::string(name) + " " + dist->version + " requires " + requirement_text(requirement));
        }
      }
    }
    if (auto url_text = stack.host.read_file(dist->info_dir + "/direct_url.json", k_small_file)) {
      auto built_for = torch_built_for(*url_text);
      if (built_for && *built_for != major_minor_of(*torch_version)) {
        mismatched.push_back(std::string(name) + " " + dist->version + " was built for torch " + *built_for +
                             " (its wheel's name says so)");
      }
    }
  }
  facts.set("wheels.extensions_for_other_torch"_fact, mismatched, source);
}

/// CUDA libraries in LD_LIBRARY_PATH folders with the soname of a library the nvidia-* wheels
/// ship, but of another version than the installed wheel.
void ld_library_path_facts(Stack& stack) {
  FactSet& facts = stack.facts;
  constexpr FactName k_fact = "ml.ld_library_path_shadows_wheels"_fact;
  auto value = stack.host.env("LD_LIBRARY_PATH");
  if (!value || value->empty()) {
    facts.set(k_fact, std::vector<std::string>{}, "env:LD_LIBRARY_PATH (unset)");
    return;
  }
  // The wheels of torch's own CUDA family are the ones its libraries are linked against.
  std::vector<std::string> family_suffixes = {"-cu12", "-cu13", "-cu11", ""};
  if (auto cuda = facts.get_string("torch.cuda"_fact); cuda && cuda->starts_with("13.")) {
    family_suffixes = {"-cu13", "", "-cu12", "-cu11"};
  }
  std::vector<std::string> shadows;
  std::size_t dirs = 0;
  std::size_t start = 0;
  while (start <= value->size() && dirs < k_max_ld_dirs) {
    std::size_t colon = value->find(':', start);
    std::string dir = value->substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    start = colon == std::string::npos ? value->size() + 1 : colon + 1;
    if (!dir.starts_with("/")) continue;
    ++dirs;
    auto names = stack.host.list_dir(dir);
    if (!names) continue;
    for (const std::string& file : *names) {
      for (auto [stem, wheel] : k_wheel_libraries) {
        // libcublas.so.12 but not libcublasLt.so.12 for the stem libcublas.
        // Only the soname (libnvJitLink.so.12) is what the loader looks for.
        if (!file.starts_with(std::string(stem) + ".so.")) continue;
        std::string_view soname_version = std::string_view(file).substr(stem.size() + 4);
        if (soname_version.empty() || soname_version.find_first_not_of("0123456789") != std::string_view::npos) continue;
        std::string real = canonical_path(stack.host, dir + "/" + file);
        std::string version = version_from_file_name(real.substr(real.rfind('/') + 1), std::string(stem) + ".so", false);
        const InstalledDist* dist = nullptr;
        for (const std::string& suffix : family_suffixes) {
          if ((dist = stack.installed(std::string(wheel) + suffix))) break;
        }
        if (!dist || version.empty()) continue;
        // Only a library with the wheel's own soname is found in its place (libcublas.so.12 is
        // not what a wheel of cuBLAS 13 ships), and only a file whose version follows the
        // soname can be compared (libcupti.so.13 is 2025.3.1, libnvToolsExt.so.1 is 1.0.0).
        const std::string soname_major(soname_version);
        if (major_of(dist->version) != soname_major || major_of(version) != soname_major) continue;
        // A newer library of the same major keeps the older one's symbols (nvJitLink's versioned
        // __nvJitLinkComplete_12_4 is in 12.8 too): only an older one breaks the wheels.
        if (!minor_below(version, dist->version)) continue;
        std::string line = file + " in " + dir + " (" + version + ") ahead of " + dist->name + " " + dist->version;
        if (std::find(shadows.begin(), shadows.end(), line) == shadows.end()) shadows.push_back(line);
      }
    }
  }
  facts.set(k_fact, shadows, "env:LD_LIBRARY_PATH vs the nvidia-* wheels");
}

/// The GPU code of the libraries named with --extension.
void extension_code_facts(Host& host, const std::vector<std::string>& paths, FactSet& facts) {
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const std::string prefix = "ext." + std::to_string(i) + ".";
    auto ext = [&](FactField<"ext.*."> field) { return field.at(static_cast<std::int64_t>(i)); };
    facts.set(ext("path"), paths[i], "--extension");
    FatbinScanLimits limits;
    limits.read_window = 128;
    FatbinScan scan = scan_fat_binaries(host, paths[i], limits);
    if (scan.status != FatbinStatus::ok) {
      std::string why = std::string(to_string(scan.status)) + (scan.error.empty() ? "" : ": " + scan.error);
      facts.set_unknown(ext("sass"), why, paths[i]);
      facts.set_unknown(ext("ptx"), why, paths[i]);
      for (const std::string& name : gpu_code_coverage_fact_names(prefix)) facts.set_unknown(FactName::unchecked(name), why, paths[i]);
      continue;
    }
    facts.set(ext("sass"), sass_arch_names(scan), paths[i]);
    facts.set(ext("ptx"), ptx_arch_names(scan), paths[i]);
    set_gpu_code_coverage_facts(facts, prefix, scan, paths[i]);
  }
}

void other_env_facts(FactSet& facts, Host& host, const PythonDiscovery& found) {
  std::vector<std::string> envs;
  for (const PythonEnv& env : found.envs) {
    std::string line = env.prefix + " (" + env.kind + ", python " + (env.version.empty() ? "?" : env.version) + ", " +
                       (env.found_via.starts_with("found by") ? "" : "via ") + env.found_via + ")";
    for (const std::string& dir : env.site_dirs) {
      auto text = host.read_file(dir + "/torch/version.py", k_small_file);
      if (!text) continue;
      if (auto info = parse_torch_version_py(*text)) line += ": torch " + info->version;
      break;
    }
    envs.push_back(line);
  }
  facts.set("py.envs"_fact, envs, "PATH, VIRTUAL_ENV, CONDA_PREFIX, ./.venv, ~/.conda/environments.txt, --python");
}

}  // namespace

std::string nvidia_wheel_family(std::string_view name) {
  if (!name.starts_with("nvidia-")) return "";
  std::size_t dash = name.rfind('-');
  std::string_view suffix = name.substr(dash + 1);
  if (suffix.size() == 4 && suffix.starts_with("cu") && std::isdigit(static_cast<unsigned char>(suffix[2])) &&
      std::isdigit(static_cast<unsigned char>(suffix[3]))) {
    return std::string(suffix);
  }
  for (std::string_view known : k_cuda13_unsuffixed) {
    if (name == known) return "cu13";
  }
  return "";
}

void probe_python_stack(Host& host, const ProbeOptions& options, FactSet& facts) {
  extension_code_facts(host, options.extension_paths, facts);
  PythonDiscovery found = discover_python(host, options.python_path);
  if (options.target) {
    preflight_python(host, options, found, facts);
  } else {
    facts.set_absent("py.not_checked"_fact, "pre-flight", "only a pre-flight searches for environments");
  }
  if (!found.chosen) {
    absent_environment(facts, found);
    return;
  }
  environment_facts(facts, found);
  other_env_facts(facts, host, found);
  Stack stack{host, facts, *found.chosen, scan_site_dirs(host, found.chosen->site_dirs), {}};
  stack.markers = marker_env(host.uname().machine, stack.env.version);
  dist_facts(stack);
  torch_facts(stack);
  wheel_facts(stack);
  extension_facts(stack);
  ld_library_path_facts(stack);
}

}  // namespace gd
