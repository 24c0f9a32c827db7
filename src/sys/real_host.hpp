#pragma once
// The live system, optionally seen through `--root DIR` (every absolute path is resolved
// inside DIR, symlinks included, as chroot would).

#include <sys/stat.h>

#include <optional>
#include <span>
#include <string>

#include "sys/helper_exec.hpp"
#include "sys/host.hpp"
#include "sys/rooted_walk.hpp"

namespace gd {

class RealHost final : public Host {
 public:
  /// `root` is "/" for the live host. `helper_elf` is the embedded CUDA helper (may be empty:
  /// then the helper is reported as not run). `kernel` chooses how paths under another root are
  /// resolved (sys/rooted_walk; tests force the walk without openat2).
  RealHost(std::string root, std::span<const unsigned char> helper_elf,
           RootedWalk::Kernel kernel = RootedWalk::Kernel::openat2_if_present);
  ~RealHost() override;
  RealHost(const RealHost&) = delete;
  RealHost& operator=(const RealHost&) = delete;

  IoResult<std::string> read_file(std::string_view path, std::size_t max_bytes) override;
  IoResult<std::string> read_range(std::string_view path, std::uint64_t offset, std::size_t max_bytes) override;
  IoResult<std::string> read_kernel_log(std::size_t max_bytes) override;
  IoResult<std::vector<std::string>> list_dir(std::string_view path) override;
  IoResult<FileStat> stat(std::string_view path) override;
  IoResult<FileStat> lstat(std::string_view path) override;
  IoResult<std::string> read_link(std::string_view path) override;
  int open_device(std::string_view path) override;
  bool opens_devices() override { return m_is_live_root; }
  Identity identity() override;
  Uname uname() override;
  std::optional<std::string> working_dir() override;
  HelperOutcome run_cuda_helper(const HelperRequest& request) override;
  void start_cuda_helper(const HelperRequest& request) override;

 private:
  std::optional<std::string> raw_env(std::string_view name) override;
  /// Opens a regular file read-only and non-blocking; anything else is refused before it is opened.
  IoResult<int> open_regular_file(std::string_view path) const;
  /// `path` inside the root (never the live root): found without a lookup that could leave it.
  IoResult<RootedWalk::Found> find(std::string_view path, RootedWalk::Follow follow) const;

  std::string m_root;
  bool m_is_live_root;
  // Under --root every path is resolved from one descriptor of the root, never as a string:
  // a folder swapped for a symlink while we read cannot lead outside (issue 24).
  std::optional<RootedWalk> m_walk;
  // read_range keeps the last file open: a fat-binary scan reads a few thousand headers of one
  // library, and resolving and opening it each time cost five times the reads themselves.
  std::string m_range_path;
  int m_range_fd = -1;
  std::uint64_t m_range_size = 0;  ///< its size at the last read
  std::span<const unsigned char> m_helper_elf;
  HelperRunHandle m_started_helper;  ///< started early, collected by the matching run_cuda_helper
};

/// Converts a stat(2) result; shared with tests.
FileStat file_stat_from(const struct ::stat& st);

}  // namespace gd
