#include "sys/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "sys/host.hpp"

namespace gd {
namespace {

std::string folder_of(const std::string& path) {
  std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string errno_text(int code) { return IoError{code}.describe(); }

std::unexpected<std::string> failure(const std::string& path, const std::string& what) {
  return std::unexpected(path + ": " + what);
}

/// write(2) until all of `content` is out, or the errno of the first failure.
int write_all(int fd, std::string_view content) {
  while (!content.empty()) {
    ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    content.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

}  // namespace

std::expected<void, std::string> check_output_path(const std::string& path) {
  if (path.empty() || base_of(path).empty()) return failure(path, "needs a file name");
  const std::string folder = folder_of(path);
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) {
    int code = errno;
    if (code == ENOENT) return failure(path, "the folder " + folder + " does not exist");
    return failure(path, "the folder " + folder + ": " + errno_text(code));
  }
  if (!S_ISDIR(st.st_mode)) return failure(path, folder + " is not a folder");
  // W_OK also fails with EROFS on a read-only file system, where root could not write either.
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    return failure(path, "cannot write in the folder " + folder + ": " + errno_text(errno));
  }
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return failure(path, "is a folder, not a file");
  return {};
}

std::expected<void, std::string> write_file_atomically(const std::string& path, std::string_view content,
                                                       unsigned mode) {
  if (auto ok = check_output_path(path); !ok) return ok;
  const std::string folder = folder_of(path);
  std::string temp = folder + "/." + base_of(path) + ".XXXXXX";
  int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) return failure(path, "cannot create a temporary file in " + folder + ": " + errno_text(errno));
  auto abandon = [&](const std::string& what, int code) {
    ::close(fd);
    ::unlink(temp.c_str());
    return failure(path, what + ": " + errno_text(code));
  };
  // mkostemp makes the file 0600; the collector (often another user) must read it.
  if (::fchmod(fd, static_cast<mode_t>(mode)) != 0) return abandon("cannot set the mode of " + temp, errno);
  if (int code = write_all(fd, content)) return abandon("cannot write " + temp, code);
  if (::fsync(fd) != 0) return abandon("cannot flush " + temp, errno);
  if (::close(fd) != 0) {
    int code = errno;
    ::unlink(temp.c_str());
    return failure(path, "cannot close " + temp + ": " + errno_text(code));
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int code = errno;
    ::unlink(temp.c_str());
    return failure(path, "cannot rename " + temp + " to it: " + errno_text(code));
  }
  // The rename itself reaches the disk with the folder (best effort: some file systems refuse).
  int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return {};
}

}  // namespace gd
