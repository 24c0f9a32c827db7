#pragma once
// The newest GCC a CUDA toolkit accepts, read from its crt/host_config.h. nvcc refuses newer
// compilers there, in the preprocessor, with a check of this shape (CUDA 13.0):
//
//   #if defined(__GNUC__)
//   #if __GNUC__ > 15
//   #error -- unsupported GNU version! gcc versions later than 15 are not supported! ...
//
// The check sits inside `#if !__NV_NO_HOST_COMPILER_CHECK`, which nvcc's
// -allow-unsupported-compiler turns off.

#include <optional>
#include <string_view>

namespace gd {

/// The largest GCC major `host_config` lets through: N of `#if __GNUC__ > N` (N - 1 of
/// `__GNUC__ >= N`) whose #error names an unsupported GNU version. nullopt when there is none.
std::optional<int> parse_max_gcc_major(std::string_view host_config);

}  // namespace gd
