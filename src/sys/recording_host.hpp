#pragma once
// Wraps a Host and keeps every answer in a Capture, so any run can be replayed later.

#include "sys/capture.hpp"
#include "sys/host.hpp"

namespace gd {

/// What a capture keeps of a /proc/PID/fd/N link whose target is not an NVIDIA device node.
inline constexpr std::string_view k_capture_other_open_file = "(an open file that is not an NVIDIA device node: not kept)";

class RecordingHost final : public Host {
 public:
  RecordingHost(Host& inner, Capture& capture) : m_inner(inner), m_capture(capture) {}

  IoResult<std::string> read_file(std::string_view path, std::size_t max_bytes) override;
  IoResult<std::string> read_range(std::string_view path, std::uint64_t offset, std::size_t max_bytes) override;
  IoResult<std::string> read_kernel_log(std::size_t max_bytes) override;
  IoResult<std::vector<std::string>> list_dir(std::string_view path) override;
  IoResult<FileStat> stat(std::string_view path) override;
  IoResult<FileStat> lstat(std::string_view path) override;
  IoResult<std::string> read_link(std::string_view path) override;
  int open_device(std::string_view path) override;
  bool opens_devices() override { return m_inner.opens_devices(); }
  Identity identity() override;
  Uname uname() override;
  std::optional<std::string> working_dir() override;
  HelperOutcome run_cuda_helper(const HelperRequest& request) override;
  void start_cuda_helper(const HelperRequest& request) override;

 private:
  std::optional<std::string> raw_env(std::string_view name) override;
  CapturedPath& at(std::string_view path) { return m_capture.paths[std::string(path)]; }

  Host& m_inner;
  Capture& m_capture;
};

}  // namespace gd
