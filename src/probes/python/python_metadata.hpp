#pragma once
// The files an installed Python distribution leaves in site-packages, read as text so that
// gpudoctor never has to run (or import into) the user's Python:
//  - *.dist-info/METADATA and *.egg-info/PKG-INFO: core metadata, RFC 822 style headers, then a
//    blank line, then the description (https://packaging.python.org/en/latest/specifications/core-metadata/)
//  - *.dist-info/direct_url.json: where a wheel was installed from (PEP 610)
//  - torch/version.py: the CUDA/ROCm build of a PyTorch wheel, written by pytorch's
//    tools/generate_torch_version.py
//  - wheel file names (PEP 427), and the "+cu12torch2.6cxx11abiFALSE" labels of flash-attn's
//    prebuilt wheels, which name the torch they were compiled against.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/packaging/name.hpp"  // normalize_name, for every reader of names

namespace gd {

/// The core metadata fields gpudoctor uses. Values are as written in the file.
struct CoreMetadata {
  std::string metadata_version;             ///< "2.4"
  std::string name;                         ///< "torch", "nvidia-cuda-runtime-cu12"
  std::string version;                      ///< "2.11.0"
  std::string requires_python;              ///< ">=3.10"
  std::vector<std::string> requires_dist;   ///< each Requires-Dist value, in order
  std::vector<std::string> provides_extra;  ///< each Provides-Extra value, in order
};

/// Parses the header block of a METADATA or PKG-INFO file: field names are case-insensitive,
/// continuation lines (starting with a space or tab) are unfolded, and parsing stops at the first
/// empty line, where the description begins. Reads at most 1 MiB of headers. Nullopt when the
/// text has no Name or no Version (not a metadata file).
std::optional<CoreMetadata> parse_core_metadata(std::string_view text);


/// torch/version.py. Example (torch 2.11.0+cu130 from PyPI):
///   __version__ = '2.11.0+cu130'
///   cuda: Optional[str] = '13.0'
///   git_version = '70d99e998b4955e0049d13a98d77ae1b14db1f45'
///   hip: Optional[str] = None
struct TorchVersionFile {
  std::string version;             ///< __version__
  std::string git_version;
  std::optional<bool> debug;
  bool declares_cuda = false;      ///< the file has a `cuda = ...` line
  std::optional<std::string> cuda; ///< "13.0"; nullopt for None (a CPU or ROCm build)
  std::optional<std::string> hip;  ///< ROCm builds: "6.0.32830-d62f6a171"
  std::optional<std::string> rocm;
  std::optional<std::string> xpu;
};

/// Reads the top-level `name = literal` and `name: Type = literal` assignments whose literal is a
/// quoted string, None, True or False. Nullopt when there is no string __version__.
std::optional<TorchVersionFile> parse_torch_version_py(std::string_view text);

/// direct_url.json (PEP 610): written by pip and uv when a distribution was installed from a URL
/// or a local file or folder rather than found in an index.
struct DirectUrl {
  enum class Kind { archive, directory, vcs };
  std::string url;
  Kind kind = Kind::archive;
  bool editable = false;           ///< dir_info.editable (pip install -e)
  std::string vcs;                 ///< vcs_info.vcs: "git"
  std::string commit_id;           ///< vcs_info.commit_id
  std::string requested_revision;  ///< vcs_info.requested_revision
  std::string subdirectory;
};

/// Nullopt unless the text is a JSON object with a string "url" and one of archive_info,
/// dir_info or vcs_info.
std::optional<DirectUrl> parse_direct_url(std::string_view json_text);

/// The parts of a wheel file name (PEP 427): {distribution}-{version}(-{build})?-{python}-{abi}-{platform}.whl
struct WheelFilename {
  std::string distribution;  ///< "flash_attn"
  std::string version;       ///< "2.7.4.post1+cu12torch2.6cxx11abiFALSE"
  std::string build;         ///< optional build tag
  std::string python_tag;    ///< "cp312"
  std::string abi_tag;       ///< "cp312"
  std::string platform_tag;  ///< "linux_x86_64"
};

/// Accepts a bare file name or a URL / path ending in one (query and fragment ignored, "%2B"
/// decoded, as in download.pytorch.org links). Nullopt when it is not a wheel name.
std::optional<WheelFilename> parse_wheel_filename(std::string_view name_or_url);

/// The build a prebuilt extension wheel names in its local version label, in flash-attn's
/// scheme "cu{cuda}torch{major.minor}cxx11abi{TRUE|FALSE}" (flash-attention setup.py,
/// get_wheel_url): "cu12torch2.6cxx11abiFALSE" → {"12", "2.6", false}.
struct TorchBuildTag {
  std::string cuda;                ///< digits after "cu": "12", "122", "118"; empty if absent
  std::string torch;               ///< "2.6"
  std::optional<bool> cxx11_abi;   ///< nullopt when the label does not say
};

/// Takes a local label ("cu12torch2.6cxx11abiFALSE") or a whole version ("2.7.4.post1+cu12...").
/// Nullopt when no "torch<major>.<minor>" is in it.
std::optional<TorchBuildTag> parse_torch_build_tag(std::string_view label_or_version);

}  // namespace gd
