#include "sys/rooted_walk.hpp"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <vector>

#include "util/text_split.hpp"

namespace gd {
namespace {

constexpr int k_max_symlink_hops = 40;  // the kernel's own limit (MAXSYMLINKS)
constexpr int k_openat2_retries = 16;   // EAGAIN: a rename raced a ".." step; then the walk answers
constexpr long k_sys_openat2 = 437;     // the same number on x86_64 and aarch64 (and every asm-generic arch)
constexpr std::uint64_t k_resolve_in_root = 0x10;  // RESOLVE_IN_ROOT of <linux/openat2.h>

// struct open_how of <linux/openat2.h>, which musl's headers do not have.
struct OpenHow {
  std::uint64_t flags;
  std::uint64_t mode;
  std::uint64_t resolve;
};

std::unexpected<int> failed(int code) { return std::unexpected(code); }

int openat2_in_root(int root_fd, const std::string& path, int flags) {
  OpenHow how{static_cast<std::uint64_t>(flags), 0, k_resolve_in_root};
  for (int attempt = 0;; ++attempt) {
    long fd = ::syscall(k_sys_openat2, root_fd, path.c_str(), &how, sizeof how);
    if (fd >= 0 || errno != EAGAIN || attempt >= k_openat2_retries) {
      return static_cast<int>(fd);
    }
  }
}

/// `path` without its trailing slashes, split at its last '/': ("/usr/lib", "libcuda.so.1").
std::pair<std::string, std::string> split_last(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') {
    path.remove_suffix(1);
  }
  std::size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) {
    return {"", std::string(path)};
  }
  std::string dir(path.substr(0, slash));
  return {dir.empty() ? "/" : dir, std::string(path.substr(slash + 1))};
}

void push_components(std::vector<std::string>& pending, std::string_view path) {
  std::vector<std::string_view> parts = split_nonempty(path, '/');
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    pending.emplace_back(*it);
  }
}

}  // namespace

void ScopedFd::reset(int fd) {
  if (m_fd >= 0) {
    ::close(m_fd);
  }
  m_fd = fd;
}

std::expected<std::string, int> read_link_fd(int link_fd) {
  char target[4096];
  ssize_t n = ::readlinkat(link_fd, "", target, sizeof target);
  if (n < 0) {
    return failed(errno);
  }
  if (static_cast<std::size_t>(n) == sizeof target) {
    return failed(ENAMETOOLONG);
  }
  return std::string(target, static_cast<std::size_t>(n));
}

RootedWalk::RootedWalk(const std::string& root, Kernel kernel)
    : m_root(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)) {
  if (!m_root) {
    m_root_error = errno;
    return;
  }
  if (kernel == Kernel::openat2_if_present) {
    // One question to the kernel decides: ENOSYS (before 5.6), EPERM (a seccomp filter that
    // does not know the call), E2BIG or EINVAL (a kernel that refuses the flags) all mean walk.
    ScopedFd probe(openat2_in_root(m_root.get(), ".", O_PATH | O_CLOEXEC));
    m_openat2 = static_cast<bool>(probe);
  }
}

std::expected<RootedWalk::Found, int> RootedWalk::find(std::string_view path, Follow follow) const {
  if (path.empty() || path[0] != '/') {
    return failed(EINVAL);
  }
  if (!m_root) {
    return failed(m_root_error);
  }
  if (m_openat2) {
    auto found = find_openat2(path, follow);
    if (found || found.error() != EAGAIN) {
      return found;
    }
    // Renames kept racing the kernel's ".." check: the walk needs no such check.
  }
  return find_by_walk(path, follow);
}

// The kernel resolves the folder part inside the root; the last component is looked at here,
// so that its link (if any) is read by us and the caller gets the parent to reopen it through.
std::expected<RootedWalk::Found, int> RootedWalk::find_openat2(std::string_view path, Follow follow) const {
  std::string current(path);
  int hops = 0;
  while (true) {
    auto [dir, name] = split_last(current);
    if (name.empty() || name == "." || name == ".." || dir.empty()) {
      // The root, or a path that ends in "." or "..": a folder, resolved whole by the kernel.
      ScopedFd fd(openat2_in_root(m_root.get(), current, O_PATH | O_CLOEXEC));
      if (!fd) {
        return failed(errno);
      }
      Found found;
      found.object = std::move(fd);
      if (::fstat(found.object.get(), &found.st) != 0) {
        return failed(errno);
      }
      return found;
    }
    ScopedFd parent(openat2_in_root(m_root.get(), dir, O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!parent) {
      return failed(errno);
    }
    ScopedFd object(::openat(parent.get(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!object) {
      return failed(errno);
    }
    struct ::stat st {};
    if (::fstat(object.get(), &st) != 0) {
      return failed(errno);
    }
    if (S_ISLNK(st.st_mode) && follow == Follow::last_link) {
      if (++hops > k_max_symlink_hops) {
        return failed(ELOOP);
      }
      auto target = read_link_fd(object.get());
      if (!target) {
        return failed(target.error());
      }
      if (target->empty()) {
        return failed(ENOENT);
      }
      // A relative target is resolved from the link's folder again (by name: a folder swapped
      // meanwhile is still looked up inside the root).
      current = (*target)[0] == '/' ? *target : dir + "/" + *target;
      continue;
    }
    return Found{std::move(object), st, std::move(parent), std::move(name)};
  }
}

// One component at a time from the root's descriptor, nothing ever followed by the kernel:
// each component is opened O_PATH|O_NOFOLLOW and looked at; a link is read and its target
// pushed back onto the components still to walk. The folders walked so far are a stack of
// descriptors, so ".." goes back to the folder we came from (never above the root) without
// asking the kernel for the parent of a folder that may have been moved since.
std::expected<RootedWalk::Found, int> RootedWalk::find_by_walk(std::string_view path, Follow follow) const {
  std::vector<ScopedFd> stack;  // folders below the root, the innermost last
  auto here = [&] { return stack.empty() ? m_root.get() : stack.back().get(); };
  std::vector<std::string> pending;
  push_components(pending, path);
  int hops = 0;
  while (!pending.empty()) {
    std::string part = std::move(pending.back());
    pending.pop_back();
    if (part == ".") {
      continue;
    }
    if (part == "..") {
      if (!stack.empty()) {
        stack.pop_back();
      }
      continue;
    }
    bool is_last = pending.empty();
    ScopedFd fd(::openat(here(), part.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!fd) {
      return failed(errno);
    }
    struct ::stat st {};
    if (::fstat(fd.get(), &st) != 0) {
      return failed(errno);
    }
    if (S_ISLNK(st.st_mode) && !(is_last && follow == Follow::not_last_link)) {
      if (++hops > k_max_symlink_hops) {
        return failed(ELOOP);
      }
      auto target = read_link_fd(fd.get());
      if (!target) {
        return failed(target.error());
      }
      if (target->empty()) {
        return failed(ENOENT);
      }
      if ((*target)[0] == '/') {
        stack.clear();
      }
      push_components(pending, *target);
      continue;
    }
    if (is_last) {
      ScopedFd parent(stack.empty() ? ::fcntl(m_root.get(), F_DUPFD_CLOEXEC, 0) : stack.back().release());
      if (!parent) {
        return failed(errno);
      }
      return Found{std::move(fd), st, std::move(parent), std::move(part)};
    }
    if (!S_ISDIR(st.st_mode)) {
      return failed(ENOTDIR);  // what the kernel says for a file in the middle of a path
    }
    stack.push_back(std::move(fd));
  }
  // The path ended at a folder: the root, or after a "." or "..".
  Found found;
  found.object = ScopedFd(stack.empty() ? ::fcntl(m_root.get(), F_DUPFD_CLOEXEC, 0) : stack.back().release());
  if (!found.object) {
    return failed(errno);
  }
  if (::fstat(found.object.get(), &found.st) != 0) {
    return failed(errno);
  }
  return found;
}

std::expected<ScopedFd, int> RootedWalk::reopen(const Found& found, int flags) const {
  flags |= O_CLOEXEC | O_NOCTTY;
  if (S_ISDIR(found.st.st_mode)) {
    // "." of the folder's own descriptor: no name is looked up, nothing can be swapped in.
    ScopedFd fd(::openat(found.object.get(), ".", flags | O_DIRECTORY));
    if (!fd) {
      return failed(errno);
    }
    return fd;
  }
  if (!found.parent) {
    return failed(ENXIO);
  }
  ScopedFd fd(::openat(found.parent.get(), found.name.c_str(), flags | O_NOFOLLOW));
  if (!fd) {
    return failed(errno == ELOOP ? ENXIO : errno);  // the name became a link since it was found
  }
  struct ::stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    return failed(errno);
  }
  if (st.st_dev != found.st.st_dev || st.st_ino != found.st.st_ino) {
    return failed(ENXIO);  // another file was renamed over the name since it was found
  }
  return fd;
}

}  // namespace gd
