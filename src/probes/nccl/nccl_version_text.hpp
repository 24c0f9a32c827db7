#pragma once
// Where an NCCL library's version is written without loading it, each read from bounded text:
//   - a wheel's core metadata (nvidia-nccl-cu12's *.dist-info/METADATA, "Version: 2.27.3");
//   - the real file's name of a packaged copy (the .deb's libnccl.so.2 -> libnccl.so.2.27.3);
//   - the string NCCL compiles in: init.cc defines VERSION_STRING as "NCCL version " MAJOR "."
//     MINOR "." PATCH SUFFIX "+cuda" CUDA_MAJOR "." CUDA_MINOR, a literal "so that running
//     strings on the lib can quickly reveal the version" ("NCCL version 2.27.3+cuda12.9").

#include <optional>
#include <string>
#include <string_view>

namespace gd {

/// "2.27.3" when `text` is a plain release (digits and dots, 2 to 4 parts); nullopt otherwise.
std::optional<std::string> plain_release(std::string_view text);

/// The Version: field of a core metadata file's header (RFC 822 style: header lines up to the
/// first empty line; PEP 566). Nullopt when the header has none, or it is not a plain release.
std::optional<std::string> metadata_version(std::string_view metadata);

/// "libnccl.so.2.27.3" -> "2.27.3"; nullopt for "libnccl.so.2", "libnccl.so" or another name.
std::optional<std::string> version_from_nccl_file_name(std::string_view file_name);

inline constexpr std::string_view k_nccl_version_marker = "NCCL version ";

/// The release after the first "NCCL version " in `bytes` that is followed by one
/// ("NCCL version 2.27.3+cuda12.9" -> "2.27.3"); nullopt when there is none.
std::optional<std::string> version_from_marker(std::string_view bytes);

/// -1, 0, 1 comparing dotted numeric releases ("2.25.1" < "2.26.2"; missing parts are 0);
/// nullopt when either is not one.
std::optional<int> compare_releases(std::string_view a, std::string_view b);

}  // namespace gd
