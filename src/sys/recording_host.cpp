#include "sys/recording_host.hpp"

namespace gd {
namespace {

/// /proc/PID/fd/N (PID digits or "self", N digits): a process's open file.
bool is_open_file_link(std::string_view path) {
  if (!path.starts_with("/proc/")) return false;
  path.remove_prefix(6);
  auto slash = path.find('/');
  if (slash == std::string_view::npos || slash == 0) return false;
  std::string_view pid = path.substr(0, slash);
  if (pid != "self" && pid.find_first_not_of("0123456789") != std::string_view::npos) return false;
  path.remove_prefix(slash);
  if (!path.starts_with("/fd/") || path.size() == 4) return false;
  return path.substr(4).find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

IoResult<std::string> RecordingHost::read_file(std::string_view path, std::size_t max_bytes) {
  auto result = m_inner.read_file(path, max_bytes);
  at(path).read = result;
  return result;
}

IoResult<std::string> RecordingHost::read_range(std::string_view path, std::uint64_t offset, std::size_t max_bytes) {
  auto result = m_inner.read_range(path, offset, max_bytes);
  at(path).ranges.push_back({offset, result});
  return result;
}

IoResult<std::string> RecordingHost::read_kernel_log(std::size_t max_bytes) {
  auto result = m_inner.read_kernel_log(max_bytes);
  at(k_kernel_log_path).read = result;
  return result;
}

IoResult<std::vector<std::string>> RecordingHost::list_dir(std::string_view path) {
  auto result = m_inner.list_dir(path);
  at(path).list = result;
  return result;
}

IoResult<FileStat> RecordingHost::stat(std::string_view path) {
  auto result = m_inner.stat(path);
  at(path).stat = result;
  return result;
}

IoResult<FileStat> RecordingHost::lstat(std::string_view path) {
  auto result = m_inner.lstat(path);
  at(path).lstat = result;
  return result;
}

IoResult<std::string> RecordingHost::read_link(std::string_view path) {
  auto result = m_inner.read_link(path);
  // Other processes' open files (the fabric manager probe looks for /dev/nvidiaN and
  // /dev/nvidia-uvm among them) are those users' business: a capture attached to a bug report
  // keeps the target only where it is an NVIDIA device node. The probe reads the stand-in as
  // "not a GPU", as it read the real target.
  if (result && is_open_file_link(path) && !result->starts_with("/dev/nvidia")) {
    at(path).link = IoResult<std::string>(std::string(k_capture_other_open_file));
  } else {
    at(path).link = result;
  }
  return result;
}

int RecordingHost::open_device(std::string_view path) {
  int result = m_inner.open_device(path);
  at(path).open = result;
  return result;
}

std::optional<std::string> RecordingHost::raw_env(std::string_view name) {
  // The inner Host's answer, scrubbed (and the allowlist enforced) there: the capture never
  // holds a token either.
  auto value = m_inner.env(name);
  m_capture.env[std::string(name)] = value;
  return value;
}

Identity RecordingHost::identity() {
  Identity id = m_inner.identity();
  m_capture.identity = id;
  return id;
}

Uname RecordingHost::uname() {
  Uname u = m_inner.uname();
  m_capture.uname = u;
  return u;
}

std::optional<std::string> RecordingHost::working_dir() {
  std::optional<std::string> dir = m_inner.working_dir();
  m_capture.working_dir = dir;
  m_capture.working_dir_asked = true;
  return dir;
}

void RecordingHost::start_cuda_helper(const HelperRequest& request) { m_inner.start_cuda_helper(request); }

HelperOutcome RecordingHost::run_cuda_helper(const HelperRequest& request) {
  HelperOutcome outcome = m_inner.run_cuda_helper(request);
  m_capture.helper_runs.push_back({request, outcome});
  return outcome;
}

}  // namespace gd
