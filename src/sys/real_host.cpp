#include "sys/real_host.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>

#include "sys/env_allowlist.hpp"
#include "sys/helper_exec.hpp"

namespace gd {
namespace {

constexpr std::size_t k_max_dir_entries = 100000;  // a folder larger than this is cut

std::unexpected<IoError> io_error(int code) { return std::unexpected(IoError{code}); }

}  // namespace

FileStat file_stat_from(const struct ::stat& st) {
  FileStat out;
  if (S_ISREG(st.st_mode)) {
    out.kind = FileKind::regular;
  } else if (S_ISDIR(st.st_mode)) {
    out.kind = FileKind::directory;
  } else if (S_ISLNK(st.st_mode)) {
    out.kind = FileKind::symlink;
  } else if (S_ISCHR(st.st_mode)) {
    out.kind = FileKind::char_device;
  } else if (S_ISBLK(st.st_mode)) {
    out.kind = FileKind::block_device;
  } else if (S_ISFIFO(st.st_mode)) {
    out.kind = FileKind::fifo;
  } else if (S_ISSOCK(st.st_mode)) {
    out.kind = FileKind::socket;
  }
  out.mode = st.st_mode & 07777;
  out.uid = st.st_uid;
  out.gid = st.st_gid;
  if (out.kind == FileKind::char_device || out.kind == FileKind::block_device) {
    out.major = major(st.st_rdev);
    out.minor = minor(st.st_rdev);
  }
  out.size = static_cast<std::uint64_t>(st.st_size);
  return out;
}

RealHost::RealHost(std::string root, std::span<const unsigned char> helper_elf, RootedWalk::Kernel kernel)
    : m_root(std::move(root)), m_helper_elf(helper_elf) {
  while (m_root.size() > 1 && m_root.back() == '/') {
    m_root.pop_back();
  }
  m_is_live_root = (m_root == "/" || m_root.empty());
  if (!m_is_live_root) {
    m_walk.emplace(m_root, kernel);
  }
}

// The live root hands paths to the kernel as they are (there is nothing to escape, and /proc's
// magic links must work); every other root goes through the walk.
IoResult<RootedWalk::Found> RealHost::find(std::string_view path, RootedWalk::Follow follow) const {
  auto found = m_walk->find(path, follow);
  if (!found) {
    return io_error(found.error());
  }
  return std::move(*found);
}

IoResult<int> RealHost::open_regular_file(std::string_view path) const {
  if (path.empty() || path[0] != '/') {
    return io_error(EINVAL);
  }
  if (!m_is_live_root) {
    // Looked at through its O_PATH descriptor before it is opened (a FIFO, a socket or a device
    // can block or have effects), then opened through its folder as that same file.
    auto found = find(path, RootedWalk::Follow::last_link);
    if (!found) {
      return std::unexpected(found.error());
    }
    if (S_ISDIR(found->st.st_mode)) {
      return io_error(EISDIR);
    }
    if (!S_ISREG(found->st.st_mode)) {
      return io_error(ENXIO);
    }
    auto fd = m_walk->reopen(*found, O_RDONLY | O_NONBLOCK);
    if (!fd) {
      return io_error(fd.error());
    }
    return fd->release();
  }
  std::string real(path);
  // Look before opening: opening a FIFO, a socket or a device can block or have effects.
  struct ::stat st {};
  if (::stat(real.c_str(), &st) != 0) {
    return io_error(errno);
  }
  if (S_ISDIR(st.st_mode)) {
    return io_error(EISDIR);
  }
  if (!S_ISREG(st.st_mode)) {
    return io_error(ENXIO);
  }
  int fd = ::open(real.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    return io_error(errno);
  }
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {  // swapped between stat and open
    ::close(fd);
    return io_error(ENXIO);
  }
  return fd;
}

IoResult<std::string> RealHost::read_file(std::string_view path, std::size_t max_bytes) {
  auto opened = open_regular_file(path);
  if (!opened) {
    return std::unexpected(opened.error());
  }
  int fd = *opened;
  std::string content;
  char buffer[16384];
  while (content.size() < max_bytes) {
    std::size_t want = std::min(sizeof buffer, max_bytes - content.size());
    ssize_t n = ::read(fd, buffer, want);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      int saved = errno;
      ::close(fd);
      return io_error(saved);
    }
    if (n == 0) {
      break;
    }
    content.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return content;
}

RealHost::~RealHost() {
  if (m_range_fd >= 0) {
    ::close(m_range_fd);
  }
}

IoResult<std::string> RealHost::read_range(std::string_view path, std::uint64_t offset, std::size_t max_bytes) {
  if (m_range_fd < 0 || m_range_path != path) {
    auto opened = open_regular_file(path);
    if (!opened) {
      return std::unexpected(opened.error());
    }
    if (m_range_fd >= 0) {
      ::close(m_range_fd);
    }
    m_range_fd = *opened;
    m_range_path = std::string(path);
  }
  // The size is asked again each time (one cheap fstat): a file written to during the run is
  // read as it is now. A file renamed over the path is still read as the one first opened.
  struct ::stat st {};
  m_range_size = ::fstat(m_range_fd, &st) == 0 && st.st_size > 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  // Never allocate more than the file can give (a caller may ask for "the rest").
  if (m_range_size > 0) {
    max_bytes = offset >= m_range_size ? 0 : static_cast<std::size_t>(std::min<std::uint64_t>(max_bytes, m_range_size - offset));
  }
  std::string content;
  content.resize(max_bytes);
  std::size_t got = 0;
  while (got < max_bytes) {
    ssize_t n = ::pread(m_range_fd, content.data() + got, max_bytes - got, static_cast<off_t>(offset + got));
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return io_error(errno);
    }
    if (n == 0) {
      break;
    }
    got += static_cast<std::size_t>(n);
  }
  content.resize(got);
  return content;
}

IoResult<std::string> RealHost::read_kernel_log(std::size_t max_bytes) {
  int fd = -1;
  if (m_is_live_root) {
    struct ::stat st {};
    if (::stat("/dev/kmsg", &st) != 0) {
      return io_error(errno);
    }
    if (!S_ISCHR(st.st_mode)) {
      return io_error(ENOENT);
    }
    fd = ::open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
      return io_error(errno);
    }
  } else {
    auto found = find("/dev/kmsg", RootedWalk::Follow::last_link);
    if (!found) {
      return std::unexpected(found.error());
    }
    if (!S_ISCHR(found->st.st_mode)) {
      return io_error(ENOENT);  // a captured tree has no live kernel log
    }
    auto opened = m_walk->reopen(*found, O_RDONLY | O_NONBLOCK);
    if (!opened) {
      return io_error(opened.error());
    }
    fd = opened->release();
  }
  // One record per read(); EAGAIN ends the buffer. A busy kernel could log forever, so the
  // number of records and the time spent are bounded too; only the newest max_bytes are kept.
  constexpr int k_max_records = 200000;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
  std::string log;
  char record[8192];
  for (int i = 0; i < k_max_records && std::chrono::steady_clock::now() < deadline; ++i) {
    ssize_t n = ::read(fd, record, sizeof record);
    if (n < 0) {
      if (errno == EINTR || errno == EPIPE) {
        continue;  // EPIPE: the record was overwritten while we read; the next one follows
      }
      if (errno == EAGAIN) {
        break;
      }
      int saved = errno;
      ::close(fd);
      if (log.empty()) {
        return io_error(saved);
      }
      break;
    }
    if (n == 0) {
      break;
    }
    log.append(record, static_cast<std::size_t>(n));
    if (log.size() > 2 * max_bytes) {
      log.erase(0, log.size() - max_bytes);
    }
  }
  ::close(fd);
  if (log.size() > max_bytes) {
    std::size_t cut = log.find('\n', log.size() - max_bytes);
    log.erase(0, cut == std::string::npos ? log.size() - max_bytes : cut + 1);
  }
  return log;
}

IoResult<std::vector<std::string>> RealHost::list_dir(std::string_view path) {
  if (path.empty() || path[0] != '/') {
    return io_error(EINVAL);
  }
  DIR* dir = nullptr;
  if (m_is_live_root) {
    dir = ::opendir(std::string(path).c_str());
    if (!dir) {
      return io_error(errno);
    }
  } else {
    auto found = find(path, RootedWalk::Follow::last_link);
    if (!found) {
      return std::unexpected(found.error());
    }
    if (!S_ISDIR(found->st.st_mode)) {
      return io_error(ENOTDIR);
    }
    auto fd = m_walk->reopen(*found, O_RDONLY);
    if (!fd) {
      return io_error(fd.error());
    }
    dir = ::fdopendir(fd->get());
    if (!dir) {
      return io_error(errno);
    }
    fd->release();  // closedir closes it
  }
  std::vector<std::string> names;
  while (dirent* entry = ::readdir(dir)) {
    std::string_view name = entry->d_name;
    if (name == "." || name == "..") {
      continue;
    }
    if (names.size() >= k_max_dir_entries) {
      break;
    }
    names.emplace_back(name);
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

IoResult<FileStat> RealHost::stat(std::string_view path) {
  if (path.empty() || path[0] != '/') {
    return io_error(EINVAL);
  }
  if (!m_is_live_root) {
    auto found = find(path, RootedWalk::Follow::last_link);
    if (!found) {
      return std::unexpected(found.error());
    }
    return file_stat_from(found->st);
  }
  struct ::stat st {};
  if (::stat(std::string(path).c_str(), &st) != 0) {
    return io_error(errno);
  }
  return file_stat_from(st);
}

IoResult<FileStat> RealHost::lstat(std::string_view path) {
  if (path.empty() || path[0] != '/') {
    return io_error(EINVAL);
  }
  if (!m_is_live_root) {
    auto found = find(path, RootedWalk::Follow::not_last_link);  // fstat of its O_NOFOLLOW descriptor
    if (!found) {
      return std::unexpected(found.error());
    }
    return file_stat_from(found->st);
  }
  struct ::stat st {};
  if (::lstat(std::string(path).c_str(), &st) != 0) {
    return io_error(errno);
  }
  return file_stat_from(st);
}

IoResult<std::string> RealHost::read_link(std::string_view path) {
  if (path.empty() || path[0] != '/') {
    return io_error(EINVAL);
  }
  if (!m_is_live_root) {
    auto found = find(path, RootedWalk::Follow::not_last_link);
    if (!found) {
      return std::unexpected(found.error());
    }
    if (!S_ISLNK(found->st.st_mode)) {
      return io_error(EINVAL);  // what readlink(2) says of anything else
    }
    auto target = read_link_fd(found->object.get());  // the link found, not one renamed over it since
    if (!target) {
      return io_error(target.error());
    }
    return std::move(*target);
  }
  char target[4096];
  ssize_t n = ::readlink(std::string(path).c_str(), target, sizeof target);
  if (n < 0) {
    return io_error(errno);
  }
  if (static_cast<std::size_t>(n) == sizeof target) {
    return io_error(ENAMETOOLONG);
  }
  return std::string(target, static_cast<std::size_t>(n));
}

int RealHost::open_device(std::string_view path) {
  if (path.empty() || path[0] != '/') {
    return EINVAL;
  }
  if (!m_is_live_root) {
    auto found = find(path, RootedWalk::Follow::last_link);
    if (!found) {
      return found.error().code;
    }
    if (!S_ISCHR(found->st.st_mode)) {
      return ENODEV;  // only character devices are tried: anything else could block
    }
    auto fd = m_walk->reopen(*found, O_RDWR | O_NONBLOCK);
    return fd ? 0 : fd.error();
  }
  struct ::stat st {};
  if (::stat(std::string(path).c_str(), &st) != 0) {
    return errno;
  }
  if (!S_ISCHR(st.st_mode)) {
    return ENODEV;  // only character devices are tried: anything else could block
  }
  int fd = ::open(std::string(path).c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    return errno;
  }
  ::close(fd);
  return 0;
}

std::optional<std::string> RealHost::raw_env(std::string_view name) {
  if (!env_name_allowed(name)) {
    throw std::logic_error("environment variable '" + std::string(name) + "' is not on the allowlist");
  }
  const char* value = std::getenv(std::string(name).c_str());
  if (!value) {
    return std::nullopt;
  }
  return std::string(value);  // Host::env scrubs it
}

Identity RealHost::identity() {
  Identity id;
  id.uid = ::geteuid();
  id.gid = ::getegid();
  gid_t groups[256];
  int n = ::getgroups(256, groups);
  for (int i = 0; i < n; ++i) {
    id.groups.push_back(groups[i]);
  }
  return id;
}

Uname RealHost::uname() {
  struct ::utsname u {};
  Uname out;
  if (::uname(&u) == 0) {
    out.sysname = u.sysname;
    out.nodename = u.nodename;
    out.release = u.release;
    out.version = u.version;
    out.machine = u.machine;
  }
  return out;
}

std::optional<std::string> RealHost::working_dir() {
  if (!m_is_live_root) {
    return std::nullopt;
  }
  char buffer[4096];
  if (::getcwd(buffer, sizeof buffer) == nullptr) {
    return std::nullopt;  // deleted or too deep: nothing to look for there
  }
  return std::string(buffer);
}

void RealHost::start_cuda_helper(const HelperRequest& request) {
  if (m_is_live_root && !m_helper_elf.empty() && !m_started_helper) {
    m_started_helper = gd::start_cuda_helper(m_helper_elf, request);
  }
}

HelperOutcome RealHost::run_cuda_helper(const HelperRequest& request) {
  if (m_started_helper && started_request(*m_started_helper) == request) {
    HelperRunHandle run = std::move(m_started_helper);
    HelperOutcome outcome = finish_cuda_helper(*run);
    outcome.timeout_ms = request.timeout_ms;
    return outcome;
  }
  if (!m_is_live_root) {
    HelperOutcome outcome;
    outcome.status = HelperOutcome::Status::not_run;
    outcome.error = "not run: --root inspects a folder, not the driver of this machine";
    return outcome;
  }
  if (m_helper_elf.empty()) {
    HelperOutcome outcome;
    outcome.status = HelperOutcome::Status::not_run;
    outcome.error = "not run: this build has no embedded CUDA helper";
    return outcome;
  }
  HelperOutcome outcome = exec_cuda_helper(m_helper_elf, request);
  outcome.timeout_ms = request.timeout_ms;
  return outcome;
}

}  // namespace gd
