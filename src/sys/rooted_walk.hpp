#pragma once
// Path resolution inside a `--root` folder that a concurrent rename cannot turn into a read of a
// file outside it. A path is never handed to the kernel as a string below the root: every
// lookup starts from a descriptor of the root opened once, either with openat2(2) and
// RESOLVE_IN_ROOT (where the kernel has it) or by a walk of one component at a time with
// O_NOFOLLOW, reading each symlink itself. A folder swapped for a symlink between two steps
// is then read as a symlink whose target is again resolved inside the root, never followed out.
//
// The semantics are chroot's, the same in both modes: ".." stops at the root, absolute link
// targets restart at the root, a path whose folders are not folders is ENOTDIR, an empty link
// target ENOENT, and more than 40 links ELOOP.

#include <sys/stat.h>

#include <expected>
#include <string>
#include <string_view>
#include <utility>

namespace gd {

/// A file descriptor closed when it goes out of scope.
class ScopedFd {
 public:
  explicit ScopedFd(int fd = -1) : m_fd(fd) {}
  ScopedFd(ScopedFd&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
  ScopedFd& operator=(ScopedFd&& other) noexcept {
    if (this != &other) {
      reset(std::exchange(other.m_fd, -1));
    }
    return *this;
  }
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  ~ScopedFd() { reset(); }
  int get() const { return m_fd; }
  explicit operator bool() const { return m_fd >= 0; }
  int release() { return std::exchange(m_fd, -1); }
  void reset(int fd = -1);

 private:
  int m_fd;
};

class RootedWalk {
 public:
  /// openat2_if_present asks the kernel once (at construction) and walks where openat2 is missing
  /// (ENOSYS), filtered (EPERM from a seccomp profile) or refuses the flags (E2BIG, EINVAL);
  /// walk_only never calls openat2 (tests of the fallback on kernels that have it).
  enum class Kernel { openat2_if_present, walk_only };
  enum class Follow { last_link, not_last_link };

  /// What a path names: an O_PATH descriptor of it, its fstat, and (unless it is a folder
  /// reached as the root, "." or "..") the folder holding it and its name there, through which
  /// it can be opened again without a lookup that could leave the root.
  struct Found {
    ScopedFd object;
    struct ::stat st {};
    ScopedFd parent;
    std::string name;
  };

  RootedWalk(const std::string& root, Kernel kernel = Kernel::openat2_if_present);

  /// 0 when the root could be opened, else the errno every call returns.
  int root_error() const { return m_root_error; }
  bool uses_openat2() const { return m_openat2; }

  /// Resolves an absolute path ("/usr/lib/libcuda.so.1") inside the root; errno on failure.
  std::expected<Found, int> find(std::string_view path, Follow follow) const;

  /// Opens what `found` names for I/O (`flags`: O_RDONLY, O_RDWR, O_NONBLOCK...). A folder is
  /// opened through its own descriptor; anything else through its parent by name with O_NOFOLLOW,
  /// and only if it is still the same file (device and inode) as the one found: ENXIO otherwise.
  std::expected<ScopedFd, int> reopen(const Found& found, int flags) const;

 private:
  std::expected<Found, int> find_openat2(std::string_view path, Follow follow) const;
  std::expected<Found, int> find_by_walk(std::string_view path, Follow follow) const;

  ScopedFd m_root;
  int m_root_error = 0;
  bool m_openat2 = false;
};

/// A symlink's target through an O_PATH|O_NOFOLLOW descriptor of the link itself.
std::expected<std::string, int> read_link_fd(int link_fd);

}  // namespace gd
