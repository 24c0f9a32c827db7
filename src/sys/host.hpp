#pragma once
// The one layer through which gpudoctor touches the host (GUIDE 5.4). Everything after it
// is pure. Three implementations: RealHost (the live system, optionally under --root),
// RecordingHost (wraps another and keeps a Capture of every answer), ReplayHost (answers
// from a Capture). Probes only ever see `Host&`.

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gd {

/// An errno from a host call, with the text that goes into reports ("ENOENT").
struct IoError {
  int code = 0;
  std::string describe() const;  ///< "ENOENT (No such file or directory)"
};

template <typename T>
using IoResult = std::expected<T, IoError>;

enum class FileKind { regular, directory, symlink, char_device, block_device, fifo, socket, other };

std::string_view to_string(FileKind kind);
std::optional<FileKind> file_kind_from_string(std::string_view text);

struct FileStat {
  FileKind kind = FileKind::other;
  std::uint32_t mode = 0;  ///< permission bits only (07777)
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::uint32_t major = 0;  ///< device number, for device nodes
  std::uint32_t minor = 0;
  std::uint64_t size = 0;
};

struct Identity {
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::vector<std::uint32_t> groups;  ///< supplementary groups
};

struct Uname {
  std::string sysname;
  std::string nodename;
  std::string release;
  std::string version;
  std::string machine;
};

/// How the CUDA helper should be run.
struct HelperRequest {
  bool clean_env = false;     ///< drop LD_LIBRARY_PATH, LD_PRELOAD, CUDA_VISIBLE_DEVICES
  bool nvml_only = false;     ///< skip CUDA: NVML's view after CUDA hung or crashed
  int timeout_ms = 30000;     ///< killed after this long; a hang becomes a finding
  std::string libcuda_path;   ///< dlopen this file instead of "libcuda.so.1" (empty: default)
  std::string libnvml_path;   ///< same for "libnvidia-ml.so.1"
  bool check_inforom = false; ///< also validate each GPU's InfoROM (a flash read: ~70 ms per GPU on an H200)
  bool p2p_bandwidth = false; ///< also time 8 MiB copies for each proven pair of GPUs (protocol 1.4)
  /// Name of this run in captures: "user-env", "clean-env" or "nvml-only".
  std::string mode() const { return nvml_only ? "nvml-only" : clean_env ? "clean-env" : "user-env"; }
  bool operator==(const HelperRequest&) const = default;
};

/// What happened when the helper ran. The reply is parsed by probes/cuda/helper_reply.
struct HelperOutcome {
  enum class Status {
    finished,     ///< exited by itself (exit_code says how)
    timed_out,    ///< killed after timeout_ms
    crashed,      ///< ended by a signal it did not get from us
    no_loader,    ///< no glibc dynamic loader on this host (musl-only)
    exec_failed,  ///< could not be started (error says why)
    not_run,      ///< not run at all (--root, replay without a recorded run); error says why
  };
  Status status = Status::not_run;
  int exit_code = 0;
  int signal = 0;          ///< the signal number when crashed
  std::string reply;       ///< the protocol text from the reply pipe (possibly cut)
  std::string out;         ///< the helper's stdout (libcuda may print there), bounded
  std::string err;         ///< its stderr, bounded
  bool output_cut = false; ///< a stream was longer than its bound and was cut
  std::int64_t duration_ms = 0;
  int timeout_ms = 0;      ///< the limit it ran under
  std::string loader;      ///< the dynamic loader it ran under
  std::string error;       ///< why it could not run (exec_failed, no_loader, not_run)
};

std::string_view to_string(HelperOutcome::Status status);
std::optional<HelperOutcome::Status> helper_status_from_string(std::string_view text);

class Host {
 public:
  virtual ~Host() = default;

  /// The file's content, at most `max_bytes` of it. Never blocks: FIFOs, sockets and devices
  /// are refused (EINVAL is not used; ENXIO for "not a regular file").
  virtual IoResult<std::string> read_file(std::string_view path, std::size_t max_bytes) = 0;
  /// Up to `max_bytes` of a regular file starting at `offset` (ELF headers and sections of large
  /// libraries and kernel modules, without reading the whole file). Same refusals as read_file.
  virtual IoResult<std::string> read_range(std::string_view path, std::uint64_t offset, std::size_t max_bytes) = 0;
  /// The kernel's message buffer from /dev/kmsg, read without blocking (at most `max_bytes`,
  /// the newest records kept). EPERM/EACCES when dmesg is restricted; ENOENT without /dev/kmsg.
  virtual IoResult<std::string> read_kernel_log(std::size_t max_bytes) = 0;
  /// Names in a folder, sorted, without "." and "..".
  virtual IoResult<std::vector<std::string>> list_dir(std::string_view path) = 0;
  virtual IoResult<FileStat> stat(std::string_view path) = 0;   ///< follows links
  virtual IoResult<FileStat> lstat(std::string_view path) = 0;  ///< does not
  virtual IoResult<std::string> read_link(std::string_view path) = 0;
  /// Opens the device node read-write, non-blocking, and closes it again: 0 or the errno.
  virtual int open_device(std::string_view path) = 0;
  /// Whether open_device tests the inspected host's own nodes. Under --root (and replaying a
  /// --root capture) a node of the tree would be opened with the running kernel, which has
  /// nothing to do with the tree: its answer (ENXIO, or a driver of another machine) says nothing.
  virtual bool opens_devices() = 0;
  /// An environment variable. Only names on the allowlist (sys/env_allowlist) may be asked:
  /// others throw std::logic_error, so no secret can be read by accident. Not virtual: every
  /// Host's answer (the live environment, an image's configuration, a replayed capture) passes
  /// the secret scrubber here, so an allowed variable's pasted token never reaches a probe, a
  /// fact, a report or a capture, whatever Host it came from.
  std::optional<std::string> env(std::string_view name);
  virtual Identity identity() = 0;
  virtual Uname uname() = 0;
  /// The folder gpudoctor was started in (uv's `.venv` lives there); nullopt under --root, where
  /// the caller's folder is not part of the inspected tree.
  virtual std::optional<std::string> working_dir() = 0;
  /// Runs the embedded libcuda/NVML helper; never hangs, never throws. A run started earlier
  /// with an equal request (start_cuda_helper) is collected instead of started again.
  virtual HelperOutcome run_cuda_helper(const HelperRequest& request) = 0;
  /// Starts the helper run the CUDA probe will ask for, so that libcuda works while the other
  /// probes read the host; returns at once. Hosts that cannot run it do nothing.
  virtual void start_cuda_helper(const HelperRequest& request) { (void)request; }

 protected:
  /// The variable as this Host has it, before scrubbing (env() is the only caller); throws
  /// std::logic_error for a name off the allowlist.
  virtual std::optional<std::string> raw_env(std::string_view name) = 0;
};

}  // namespace gd
