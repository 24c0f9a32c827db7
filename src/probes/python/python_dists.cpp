#include "probes/python/python_dists.hpp"

#include <array>
#include <cctype>

#include "probes/python/python_metadata.hpp"

namespace gd {
namespace {

constexpr std::size_t k_max_entries_per_dir = 50000;

constexpr std::array<std::string_view, 22> k_tracked = {
    "torch",       "torchvision",  "torchaudio", "triton",         "pytorch-triton",  "jax",
    "jaxlib",      "tensorflow",   "flash-attn", "flash-linear-attention", "xformers", "vllm",
    "transformers", "accelerate",  "bitsandbytes", "deepspeed",     "apex",            "cuda-toolkit",
    "cuda-bindings", "cuda-python", "tensorrt",   "onnxruntime-gpu",
};

constexpr std::array<std::string_view, 4> k_tracked_prefixes = {"nvidia-", "jax-cuda", "cupy-cuda", "cuda-"};

}  // namespace

std::optional<InstalledDist> dist_from_folder_name(std::string_view folder) {
  InstalledDist dist;
  std::string_view stem;
  if (folder.ends_with(".dist-info")) {
    stem = folder.substr(0, folder.size() - 10);
  } else if (folder.ends_with(".egg-info")) {
    stem = folder.substr(0, folder.size() - 9);
    dist.egg_info = true;
  } else {
    return std::nullopt;
  }
  // Wheel and egg folder names escape '-' in the name as '_', so the first '-' ends the name.
  std::size_t dash = stem.find('-');
  std::string_view name = stem.substr(0, dash);
  if (name.empty()) return std::nullopt;
  dist.name = normalize_name(name);
  if (dash != std::string_view::npos) {
    std::string_view version = stem.substr(dash + 1);
    dist.version = std::string(version.substr(0, version.find('-')));  // egg: name-1.0-py3.12
  }
  return dist;
}

bool is_tracked_dist(std::string_view name) {
  for (std::string_view tracked : k_tracked) {
    if (name == tracked) return true;
  }
  for (std::string_view prefix : k_tracked_prefixes) {
    if (name.starts_with(prefix)) return true;
  }
  return false;
}

SiteScan scan_site_dirs(Host& host, const std::vector<std::string>& site_dirs) {
  SiteScan scan;
  for (const std::string& dir : site_dirs) {
    auto names = host.list_dir(dir);
    if (!names) {
      scan.unreadable.push_back(dir + ": " + names.error().describe());
      continue;
    }
    std::size_t count = 0;
    for (const std::string& entry : *names) {
      if (++count > k_max_entries_per_dir) break;
      auto dist = dist_from_folder_name(entry);
      if (!dist || !is_tracked_dist(dist->name)) continue;
      dist->site_dir = dir;
      dist->info_dir = dir + "/" + entry;
      scan.dists[dist->name].push_back(std::move(*dist));
    }
  }
  return scan;
}

std::string metadata_path(const InstalledDist& dist) {
  return dist.info_dir + (dist.egg_info ? "/PKG-INFO" : "/METADATA");
}

}  // namespace gd
