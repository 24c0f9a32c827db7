#include "cli/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gd {

Result<std::string> read_input_file(std::string_view path, std::size_t max_bytes) {
  std::string p(path);
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) {
    return fail(std::strerror(errno), p);
  }
  if (S_ISDIR(st.st_mode)) {
    return fail("is a folder, expected a file", p);
  }
  if (!S_ISREG(st.st_mode)) {
    return fail("not a regular file", p);
  }
  if (static_cast<std::size_t>(st.st_size) > max_bytes) {
    return fail("too large (" + std::to_string(st.st_size) + " bytes; the limit is " + std::to_string(max_bytes) + ")", p);
  }
  int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    return fail(std::strerror(errno), p);
  }
  std::string content;
  char buffer[65536];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      int saved = errno;
      ::close(fd);
      return fail(std::strerror(saved), p);
    }
    if (n == 0) break;
    content.append(buffer, static_cast<std::size_t>(n));
    if (content.size() > max_bytes) {
      ::close(fd);
      return fail("too large (the limit is " + std::to_string(max_bytes) + " bytes)", p);
    }
  }
  ::close(fd);
  return content;
}

}  // namespace gd
