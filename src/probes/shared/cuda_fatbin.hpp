#pragma once
// The GPU architectures compiled into a CUDA library (libtorch_cuda.so, libcublasLt.so, a
// flash-attn extension): the SASS (sm_XX cubins) and PTX (compute_XX) entries of the fat
// binaries embedded in its ELF sections .nv_fatbin and __nv_relfatbin, read from their headers
// only. A large library holds thousands of entries (libcublasLt 13: 2,782 containers, 5,737
// entries in 140 MB); the payloads (the cubins and PTX text themselves, often compressed) are
// skipped, never read or decompressed.
//
// Layout (little endian on every host; NVIDIA's fatbinary_section.h names the sections and the
// runtime wrapper, fatbinary.h the container header; the entry header as read by ZLUDA
// dark_api/src/fatbin.rs and cuda-fatbin-decompression, checked against CUDA 13.0's
// `fatbinary` output and libcublasLt/libcudnn/libnccl):
//
//   container header, 16 bytes: u32 magic 0xBA55ED50, u16 version 1, u16 header size (16),
//       u64 size of the entries that follow the header
//   entry header, header size >= 64 bytes:
//       0x00 u16 kind (1 PTX, 2 ELF cubin, 8 LTO IR), 0x02 u16 version 0x0101,
//       0x04 u32 header size, 0x08 u64 payload size (padded; the next entry follows it),
//       0x10 u32 compressed size, 0x18 u16 minor + u16 major (cubin 1.8, PTX ISA 9.0),
//       0x1c u32 arch (80 for sm_80 / compute_80), 0x20 u32 + u32 name offset and length,
//       0x28 u64 flags, 0x38 u64 uncompressed size; then optional option text or data.
//   flags: 0x1 64-bit, 0x2 debug, 0x10 Linux, 0x2000 LZ4-compressed, 0x8000 Zstd-compressed,
//       0x100000 arch-specific ("sm_90a"), 0x200000 family-specific ("sm_100f").
//
// Containers follow each other in the section (each a multiple of 8 bytes); the linker may pad
// between them with zeros. Code built with -rdc is in both sections: .nv_fatbin holds its
// device-linked cubins (the device link drops its PTX), `__nv_relfatbin` the pre-link images,
// PTX included, which the runtime hands to the driver with the linked ones. Both count:
// on an H200 (sm_90) a -rdc program with sm_80 cubins and compute_80 PTX ran, its PTX being in
// __nv_relfatbin only; without the PTX it failed with "named symbol not found" (not the usual
// "no kernel image is available"). Fat binaries that a library keeps as plain data and loads
// itself (cuFFT's ~24,000 in .ldata) are not in either section and are not seen.

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sys/host.hpp"

namespace gd {

/// The suffix of an architecture name: none, "a" (arch-specific features, runs only on that
/// exact architecture: sm_90a) or "f" (family-specific: sm_100f runs on sm_100 and sm_103).
enum class ArchVariant : std::uint8_t { plain, arch_specific, family_specific };

/// One target: 90 and arch_specific is sm_90a (or compute_90a). Orders by number, then variant.
struct FatbinArch {
  std::uint32_t number = 0;
  ArchVariant variant = ArchVariant::plain;
  auto operator<=>(const FatbinArch&) const = default;
};

/// A fat binary container header (16 bytes).
struct FatbinContainerHeader {
  std::uint32_t magic = 0;
  std::uint16_t version = 0;
  std::uint16_t header_size = 0;
  std::uint64_t entries_size = 0;  ///< bytes of entries after the header
};

/// The fields of an entry header that the scanner uses (the first 64 bytes).
struct FatbinEntryHeader {
  std::uint16_t kind = 0;
  std::uint32_t header_size = 0;
  std::uint64_t payload_size = 0;
  std::uint32_t arch = 0;
  std::uint64_t flags = 0;
};

inline constexpr std::uint32_t k_fatbin_magic = 0xBA55ED50;
inline constexpr std::size_t k_fatbin_container_header_size = 16;
inline constexpr std::size_t k_fatbin_entry_header_size = 64;
inline constexpr std::uint16_t k_fatbin_kind_ptx = 1;
inline constexpr std::uint16_t k_fatbin_kind_elf = 2;
inline constexpr std::uint64_t k_fatbin_flag_lz4 = 0x2000;
inline constexpr std::uint64_t k_fatbin_flag_zstd = 0x8000;
inline constexpr std::uint64_t k_fatbin_flag_arch_specific = 0x100000;
inline constexpr std::uint64_t k_fatbin_flag_family_specific = 0x200000;

/// Parses the first 16 bytes of `bytes`; nullopt when shorter.
std::optional<FatbinContainerHeader> parse_fatbin_container_header(std::string_view bytes);
/// Parses the first 64 bytes of `bytes`; nullopt when shorter.
std::optional<FatbinEntryHeader> parse_fatbin_entry_header(std::string_view bytes);
/// The entry's architecture with its variant from the flags.
FatbinArch fatbin_entry_arch(const FatbinEntryHeader& entry);

enum class FatbinStatus {
  ok,          ///< the section was walked to its end (containers may be 0 for an empty section)
  not_elf,     ///< no ELF header
  no_fatbin,   ///< an ELF file with neither .nv_fatbin nor __nv_relfatbin (no CUDA device code)
  unreadable,  ///< a read failed (error: "needs root", an errno)
  corrupt,     ///< a size or magic did not fit (error says where); the lists hold what came before
};

std::string_view to_string(FatbinStatus status);

/// Bounds on what one file may make the scanner do. The defaults leave room for the largest
/// libraries seen (libcublasLt 13: 2,782 containers, 5,737 entries) many times over.
struct FatbinScanLimits {
  std::uint32_t max_containers = 200000;
  std::uint32_t max_entries = 1000000;
  /// Bytes per read: a container header and the entry headers close behind it come in one
  /// read; an entry header behind a payload longer than this costs a read of its own.
  std::size_t read_window = 4096;  // libcublasLt: 2,302 reads of 9.4 MB in all
  std::uint64_t max_padding = 64 * 1024;  ///< zero bytes allowed between two containers
};

/// How many containers hold entries of one architecture (each container counted once, whatever
/// number of entries of that architecture it holds).
struct FatbinArchCount {
  FatbinArch arch;
  std::uint32_t containers = 0;
  bool operator==(const FatbinArchCount&) const = default;
};

struct FatbinScan {
  FatbinStatus status = FatbinStatus::ok;
  std::string error;             ///< why, when status is not ok
  /// The sections read, in this order: ".nv_fatbin", "__nv_relfatbin" (those present).
  std::vector<std::string> sections;
  std::vector<FatbinArch> sass;  ///< ELF cubin entries of every section read, sorted, unique
  std::vector<FatbinArch> ptx;   ///< PTX entries of every section read, sorted, unique
  std::uint32_t containers = 0;  ///< of every section read
  /// Containers that hold at least one cubin or PTX entry: the ones a GPU needs code from (a
  /// container of LTO IR only is linked into another and never loaded as it is).
  std::uint32_t containers_with_code = 0;
  /// Per architecture in `sass` / `ptx` (same order), the containers holding it. A CUDA program
  /// loads each fat binary (one per translation unit, or per device link) on its own and picks
  /// from that one's entries, so an architecture in few containers serves few kernels.
  std::vector<FatbinArchCount> sass_containers;
  std::vector<FatbinArchCount> ptx_containers;
  std::uint32_t entries = 0;        ///< every entry read, of any kind
  std::uint32_t other_entries = 0;  ///< entries neither PTX nor cubin (LTO IR, unknown kinds)
  bool compressed = false;          ///< some entry's payload is LZ4- or Zstd-compressed
  std::uint32_t reads = 0;          ///< Host::read_range calls made
  std::uint64_t bytes_read = 0;
};

/// Finds the fat binary sections of the ELF file at `path` and walks their container and entry
/// headers through `host`. Never throws for what the file holds; every size is checked
/// against its section and the file before it is used, and a walk stops at the first damage.
FatbinScan scan_fat_binaries(Host& host, const std::string& path, const FatbinScanLimits& limits = {});

/// "sm_90", "sm_90a", "compute_100f": `prefix` is "sm" or "compute".
std::string fatbin_arch_name(std::string_view prefix, const FatbinArch& arch);
/// The scan's SASS targets as names: "sm_80", "sm_90a".
std::vector<std::string> sass_arch_names(const FatbinScan& scan);
/// The scan's PTX targets as names: "compute_120".
std::vector<std::string> ptx_arch_names(const FatbinScan& scan);

}  // namespace gd
