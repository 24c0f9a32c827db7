#pragma once
// Installed Python distributions, read from the *.dist-info and *.egg-info folders of an
// environment's site folders (the layout pip, uv and conda write: PEP 376 / PEP 627), in import
// order: the first folder that has a distribution is the one Python imports; the others are
// hidden behind it.

#include <map>
#include <string>
#include <vector>

#include "sys/host.hpp"

namespace gd {

struct InstalledDist {
  std::string name;      ///< normalized (PEP 503): "nvidia-cudnn-cu12"
  std::string version;   ///< as in the folder name ("2.11.0"; "" for an unversioned .egg-info)
  std::string site_dir;  ///< the folder it is installed in
  std::string info_dir;  ///< its .dist-info / .egg-info folder
  bool egg_info = false;
};

/// "torch-2.11.0.dist-info" -> {name torch, version 2.11.0}; nullopt for other names.
std::optional<InstalledDist> dist_from_folder_name(std::string_view folder);

/// Whether gpudoctor looks at a distribution: torch and friends, triton, jax, cupy, CUDA
/// wheels (nvidia-*, cuda-*), and the binary extensions that must match torch.
bool is_tracked_dist(std::string_view normalized_name);

struct SiteScan {
  /// Tracked distributions by name, each in import order (the first is the one imported).
  std::map<std::string, std::vector<InstalledDist>> dists;
  std::vector<std::string> unreadable;  ///< "folder: reason" for site folders that could not be listed
};

SiteScan scan_site_dirs(Host& host, const std::vector<std::string>& site_dirs);

/// The core metadata file of a distribution (METADATA or PKG-INFO).
std::string metadata_path(const InstalledDist& dist);

}  // namespace gd
