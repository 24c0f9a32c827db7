#include "sys/env_allowlist.hpp"

#include <array>
#include <cctype>
#include <string>

namespace gd {
namespace {

constexpr std::array<std::string_view, 15> k_allowed_names = {
    "LD_LIBRARY_PATH",  // decides which libcuda the loader maps
    "LD_PRELOAD",       // can inject a libcuda or break the helper
    "PATH",             // nvcc and python lookup
    "CONDA_PREFIX",     // active conda environment
    "VIRTUAL_ENV",      // active venv
    "PYTHONPATH",       // extra import roots
    "PYTHONHOME",
    "PYTHONNOUSERSITE",
    "NO_COLOR",         // output styling
    "TERM",
    "LIBRARY_PATH",     // link-time search path (stub libcuda leaks in through it)
    "XDG_RUNTIME_DIR",
    "CC",               // the host compiler torch extension builds hand to nvcc (-ccbin)
    "NVCC_CCBIN",       // nvcc's own host compiler override
    "PYENV_VERSION",    // which interpreter pyenv's python3 shim runs
};

constexpr std::array<std::string_view, 4> k_allowed_prefixes = {
    "CUDA_",    // CUDA_VISIBLE_DEVICES, CUDA_HOME, CUDA_VERSION, ...
    "NVIDIA_",  // NVIDIA container toolkit variables
    "TORCH_",   // TORCH_CUDA_ARCH_LIST
    "NCCL_",
};

// Even under an allowed prefix, these never leave the host (NVIDIA_API_KEY, CUDA_..._TOKEN).
constexpr std::array<std::string_view, 7> k_secret_markers = {"KEY", "TOKEN", "SECRET", "PASSWORD",
                                                               "PASSWD", "CREDENTIAL", "AUTH"};

}  // namespace

bool env_name_allowed(std::string_view name) {
  std::string upper;
  for (char c : name) {
    upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  for (std::string_view marker : k_secret_markers) {
    if (upper.find(marker) != std::string::npos) {
      return false;
    }
  }
  for (std::string_view allowed : k_allowed_names) {
    if (name == allowed) {
      return true;
    }
  }
  for (std::string_view prefix : k_allowed_prefixes) {
    if (name.starts_with(prefix)) {
      return true;
    }
  }
  return false;
}

}  // namespace gd
