#pragma once
// The files that say which CUDA toolkit (and which nvcc) a folder holds, read without running
// nvcc: version.json (CUDA 11.1 and later), version.txt (before), conda's package records,
// the pip wheel's dist-info folder, and the CUDA_VERSION line of include/cuda.h.

#include <expected>
#include <optional>
#include <string>
#include <string_view>

namespace gd {

/// The two versions version.json gives. `toolkit` is the release ("13.3.1"; some releases
/// wrote a build date instead of the update: "11.8.20220929"), `nvcc` the compiler's own
/// ("13.3.73"), which is what `nvcc --version` prints as V13.3.73. Either may be empty.
struct CudaVersionJson {
  std::string toolkit;
  std::string nvcc;
};

/// Parses a toolkit's version.json: {"cuda": {"name": "CUDA SDK", "version": "13.3.1"},
/// "cuda_nvcc": {"name": "CUDA NVCC", "version": "13.3.73"}, ...}. An error when the text is
/// not JSON or names neither version.
std::expected<CudaVersionJson, std::string> parse_cuda_version_json(std::string_view text);

/// "CUDA Version 10.2.89" (the whole of version.txt) -> "10.2.89".
std::optional<std::string> parse_cuda_version_txt(std::string_view text);

/// A conda package record's file name "cuda-nvcc-12.4.131-0.json" (name-version-build.json) ->
/// "12.4.131". Other packages whose names start alike (cuda-nvcc-tools-..., cuda-nvcc-impl-...)
/// give nothing.
std::optional<std::string> conda_nvcc_version(std::string_view record_file_name);

/// A pip wheel's metadata folder "nvidia_cuda_nvcc-13.0.88.dist-info" (CUDA 13 wheels) or
/// "nvidia_cuda_nvcc_cu12-12.4.131.dist-info" (CUDA 12 wheels) -> the version.
std::optional<std::string> wheel_nvcc_version(std::string_view dist_info_name);

/// "#define CUDA_VERSION 13000" in include/cuda.h -> "13.0" (major.minor only).
std::optional<std::string> cuda_h_version(std::string_view text);

/// "13.0.88": digits separated by single dots.
bool is_dotted_number(std::string_view text);

}  // namespace gd
