#pragma once
// A capture is everything one run read from its host: files, folders, stat results, links,
// device-node open results, allowlisted environment variables, identity, uname and the CUDA
// helper's runs. Replaying it re-runs the whole pipeline offline. Format: docs/capture-format.md
// (JSON, "format": "gpudoctor-capture", "version": 1; file contents as arrays of lines so
// captures are reviewable in a diff).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "sys/host.hpp"

namespace gd {

inline constexpr int k_capture_version = 1;
/// read_kernel_log() is captured as a read of this path.
inline constexpr std::string_view k_kernel_log_path = "/dev/kmsg";

/// What was observed about one path; an operation that was never asked stays empty.
/// One read_range answer.
struct CapturedRange {
  std::uint64_t offset = 0;
  IoResult<std::string> data;
};

struct CapturedPath {
  std::optional<IoResult<std::string>> read;
  std::vector<CapturedRange> ranges;
  std::optional<IoResult<std::vector<std::string>>> list;
  std::optional<IoResult<FileStat>> stat;
  std::optional<IoResult<FileStat>> lstat;
  std::optional<IoResult<std::string>> link;
  std::optional<int> open;  ///< 0 or errno of the non-blocking open test
};

struct CapturedHelperRun {
  HelperRequest request;
  HelperOutcome outcome;
};

struct Capture {
  std::string created_by;  ///< "gpudoctor 0.1.0"
  std::string root = "/";
  std::optional<Identity> identity;
  std::optional<Uname> uname;
  std::map<std::string, std::optional<std::string>> env;  ///< allowlisted names; nullopt = unset
  std::optional<std::string> working_dir;  ///< the folder the run started in; nullopt: none or --root
  bool working_dir_asked = false;          ///< written only when a probe asked for it
  std::map<std::string, CapturedPath> paths;
  std::vector<CapturedHelperRun> helper_runs;
  /// Options that chose what was read (--python, --extension): a replay uses them again.
  std::string python_option;
  std::vector<std::string> extension_options;
  /// A pre-flight's --target-gpu and --target-driver: a replay judges the image for them again.
  std::string target_gpu_option;
  std::string target_driver_option;
  /// The file the pre-flight's image variables came from ("" none): whether the image's PATH was known.
  std::string target_image_config;
};

nlohmann::json capture_to_json(const Capture& capture);
/// `file` names the input in error messages.
Result<Capture> capture_from_json(const nlohmann::json& json, std::string_view file);

}  // namespace gd
