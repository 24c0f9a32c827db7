#pragma once
// Every libnccl the stack may load, found through what earlier layers already read (no second
// scan of site-packages or of the loader's folders):
//   - the nvidia-nccl-cu12 / -cu13 wheel of the Python environment (py.dists names it and its
//     folder; the library is <folder>/nvidia/nccl/lib/libnccl.so.2, its version the wheel's
//     METADATA): recent torch wheels depend on it instead of carrying NCCL;
//   - torch's own copy, torch/lib/libnccl*.so* (torch.path), which older or custom builds carry;
//   - the loader's libnccl.so.2 (lib.libnccl.resolved*, predicted by the libraries layer from
//     LD_PRELOAD, LD_LIBRARY_PATH, ld.so.cache and the default folders), a .deb's or .rpm's
//     libnccl.so.2 -> libnccl.so.2.27.3 whose version is in the real file's name.
// A copy whose version no METADATA or file name tells is read for the string NCCL compiles in
// (nccl_version_marker). Which copy torch would load is decided from the same facts.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/fact_set.hpp"
#include "sys/host.hpp"

namespace gd {

enum class NcclOrigin { torch_copy, wheel, system };

struct NcclCopy {
  NcclOrigin origin = NcclOrigin::system;
  std::string origin_text;  ///< "nvidia-nccl-cu12 wheel", "torch's own copy", "system (ld.so.cache)"
  std::string path;         ///< as found
  std::string real_path;    ///< links followed
  std::string version;      ///< empty: unknown, why_unknown says why
  std::string why_unknown;
};

/// "2.27.3 nvidia-nccl-cu12 wheel /site/nvidia/nccl/lib/libnccl.so.2"; an unknown version reads
/// "unknown ... (why)".
std::string copy_text(const NcclCopy& copy);

/// One py.dists line: "nvidia-nccl-cu12 2.27.3 (/venv/lib/python3.12/site-packages)".
struct DistLine {
  std::string name;
  std::string version;
  std::string folder;
};
std::optional<DistLine> parse_dist_line(std::string_view line);

/// The .dist-info folder pip writes for a distribution: "nvidia_nccl_cu12-2.27.3.dist-info"
/// (the name with '-' as '_', PEP 427's escaping of the normalized name).
std::string dist_info_folder(std::string_view name, std::string_view version);

struct CopiesFound {
  std::vector<NcclCopy> copies;
  /// Non-empty when the search itself is incomplete (py.dists or the loader's prediction unknown).
  std::string incomplete;
};

/// Reads the copies named by the facts of the python and libraries layers.
CopiesFound find_nccl_copies(Host& host, const FactSet& facts);

/// What decides which copy torch loads.
struct LoadContext {
  std::optional<bool> torch_installed;  ///< nullopt: the python layer could not tell
  bool torch_cpu_only = false;
  std::string resolved_via;  ///< lib.libnccl.resolved_via: LD_PRELOAD, LD_LIBRARY_PATH, ld.so.cache, default, none
};

struct LoadedChoice {
  std::optional<std::size_t> index;  ///< the copy, when decided
  std::string unknown_reason;        ///< when it cannot be told
  std::string absent_reason;         ///< when nothing loads NCCL (no copy, CPU-only torch)
};

/// torch's own copy, else the wheel of its environment (its libraries' RPATH names
/// $ORIGIN/../../nvidia/nccl/lib), unless LD_PRELOAD already mapped another (that answers to the
/// soname) or LD_LIBRARY_PATH holds another, which wins over a RUNPATH but not an RPATH: then
/// unknown. Without torch: the only copy, or unknown among several.
LoadedChoice choose_loaded_copy(const std::vector<NcclCopy>& copies, const LoadContext& context);

}  // namespace gd
