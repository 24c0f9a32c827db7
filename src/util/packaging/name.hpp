#pragma once
// Distribution and extra names as Python packaging compares them.

#include <string>
#include <string_view>

namespace gd {

/// PEP 503 normalized name: lowercase, each run of "-", "_" and "." becomes one "-"
/// ("Nvidia_CUDA.runtime__cu12" → "nvidia-cuda-runtime-cu12"). Compare names only this way;
/// extras are normalized the same way (PEP 685).
std::string normalize_name(std::string_view name);

}  // namespace gd
