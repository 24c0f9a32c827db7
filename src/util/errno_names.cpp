#include "util/errno_names.hpp"

#include <cerrno>
#include <charconv>

namespace gd {
namespace {

struct ErrnoName {
  int code;
  std::string_view name;
};

// The errors a read-only inspection of /proc, /sys, /dev and files can meet.
constexpr ErrnoName k_errno_names[] = {
    {EPERM, "EPERM"},       // operation not permitted (cgroup device rules deny a node)
    {ENOENT, "ENOENT"},     // no such file
    {EIO, "EIO"},           // I/O error
    {ENXIO, "ENXIO"},       // no such device or address; also "not a regular file" for reads
    {E2BIG, "E2BIG"},
    {EBADF, "EBADF"},
    {EAGAIN, "EAGAIN"},
    {ENOMEM, "ENOMEM"},
    {EACCES, "EACCES"},     // permission denied (mode/owner)
    {EFAULT, "EFAULT"},
    {EBUSY, "EBUSY"},
    {EEXIST, "EEXIST"},
    {ENODEV, "ENODEV"},     // no such device (driver not bound)
    {ENOTDIR, "ENOTDIR"},
    {EISDIR, "EISDIR"},
    {EINVAL, "EINVAL"},
    {ENFILE, "ENFILE"},
    {EMFILE, "EMFILE"},
    {ENOTTY, "ENOTTY"},
    {ETXTBSY, "ETXTBSY"},
    {EFBIG, "EFBIG"},
    {ENOSPC, "ENOSPC"},
    {EROFS, "EROFS"},
    {ELOOP, "ELOOP"},       // symlink loop
    {ENAMETOOLONG, "ENAMETOOLONG"},
    {EOVERFLOW, "EOVERFLOW"},
    {ETIMEDOUT, "ETIMEDOUT"},
    {EOPNOTSUPP, "EOPNOTSUPP"},
    {ESTALE, "ESTALE"},
};

}  // namespace

std::string errno_name(int code) {
  for (const auto& entry : k_errno_names) {
    if (entry.code == code) {
      return std::string(entry.name);
    }
  }
  return "E" + std::to_string(code);
}

std::optional<int> errno_from_name(std::string_view name) {
  for (const auto& entry : k_errno_names) {
    if (entry.name == name) {
      return entry.code;
    }
  }
  if (name.size() > 1 && name[0] == 'E') {
    int code = 0;
    auto [ptr, ec] = std::from_chars(name.data() + 1, name.data() + name.size(), code);
    if (ec == std::errc() && ptr == name.data() + name.size() && code > 0) {
      return code;
    }
  }
  return std::nullopt;
}

}  // namespace gd
