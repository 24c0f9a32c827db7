#pragma once
// The version string NCCL compiles into its library ("NCCL version 2.27.3+cuda12.9", see
// nccl_version_text.hpp), found by reading the ELF section headers and then only the read-only
// data sections (.rodata*) in bounded chunks, never the whole file: libnccl.so.2 is 200-400 MB,
// nearly all of it device code (.nv_fatbin), while its .rodata is a few MB. Used only for a copy
// whose version no wheel metadata and no file name tells (a copy in torch/lib, an unversioned file).

#include <expected>
#include <string>

#include "sys/host.hpp"

namespace gd {

/// Bounds: a real libnccl's read-only data is a few MB; a crafted file stops here.
inline constexpr std::size_t k_marker_chunk_bytes = 1 << 20;
inline constexpr std::uint64_t k_marker_max_scan_bytes = std::uint64_t{64} << 20;

/// The release in the library's version string, or why it is not known (not an ELF file, no
/// read-only data section, no version string in the first k_marker_max_scan_bytes of it).
std::expected<std::string, std::string> read_nccl_version_marker(Host& host, const std::string& path);

}  // namespace gd
