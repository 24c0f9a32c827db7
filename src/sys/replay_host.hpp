#pragma once
// Answers every host question from a Capture. What the capture does not mention does not
// exist (ENOENT), which keeps hand-written test hosts short: a file with content is a
// regular file, a path with children is a folder (docs/capture-format.md).

#include "sys/capture.hpp"
#include "sys/host.hpp"

namespace gd {

class ReplayHost final : public Host {
 public:
  explicit ReplayHost(Capture capture) : m_capture(std::move(capture)) {}

  IoResult<std::string> read_file(std::string_view path, std::size_t max_bytes) override;
  IoResult<std::string> read_range(std::string_view path, std::uint64_t offset, std::size_t max_bytes) override;
  IoResult<std::string> read_kernel_log(std::size_t max_bytes) override;
  IoResult<std::vector<std::string>> list_dir(std::string_view path) override;
  IoResult<FileStat> stat(std::string_view path) override;
  IoResult<FileStat> lstat(std::string_view path) override;
  IoResult<std::string> read_link(std::string_view path) override;
  int open_device(std::string_view path) override;
  bool opens_devices() override { return m_capture.root == "/" || m_capture.root.empty(); }
  Identity identity() override;
  Uname uname() override;
  std::optional<std::string> working_dir() override;
  HelperOutcome run_cuda_helper(const HelperRequest& request) override;

  const Capture& capture() const { return m_capture; }

 private:
  std::optional<std::string> raw_env(std::string_view name) override;
  const CapturedPath* find(std::string_view path) const;
  /// Names directly below `path` that the capture mentions in other paths.
  std::vector<std::string> implied_children(std::string_view path) const;
  IoResult<FileStat> implied_stat(std::string_view path, int hops) const;
  /// The path that `path` leads to once every link in the capture is followed (ELOOP past 40).
  IoResult<std::string> follow_links(std::string_view path) const;

  Capture m_capture;
};

}  // namespace gd
