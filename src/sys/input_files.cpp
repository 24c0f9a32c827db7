#include "sys/input_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace gd {
namespace {

constexpr int k_max_folder_depth = 32;                 // deeper than any report tree; stops bind-mount loops
constexpr std::size_t k_max_folder_entries = 1000000;  // a folder larger than this is cut (and said so)

std::string reason_of(int code) { return std::strerror(code); }

/// Why a file of this mode cannot be read as a report; empty for a regular file.
std::string refusal_for(mode_t mode) {
  if (S_ISREG(mode)) return {};
  if (S_ISDIR(mode)) return "a folder, not a file";
  if (S_ISFIFO(mode)) return "a FIFO, not a regular file (pipe it to `-` instead)";
  if (S_ISSOCK(mode)) return "a socket, not a regular file";
  if (S_ISCHR(mode)) return "a character device, not a regular file";
  if (S_ISBLK(mode)) return "a block device, not a regular file";
  return "not a regular file";
}

bool has_suffix(std::string_view name, std::span<const std::string_view> suffixes) {
  return std::any_of(suffixes.begin(), suffixes.end(), [&](std::string_view s) { return name.ends_with(s); });
}

std::string join_path(std::string_view folder, std::string_view name) {
  std::string out(folder);
  if (out.empty() || out.back() != '/') out += '/';
  out += name;
  return out;
}

/// Why the file at `fd`, just opened, is no input; empty for a regular file, whose size is then
/// in `size`.
std::string check_opened(int fd, std::uint64_t& size) {
  struct ::stat st {};
  if (::fstat(fd, &st) != 0) return reason_of(errno);
  if (!S_ISREG(st.st_mode)) return "changed into something other than a regular file while it was opened";
  size = static_cast<std::uint64_t>(st.st_size);
  return {};
}

/// Opens the entry `name` of the folder `dir_fd` as an input, never through a link: a link
/// swapped in after it was looked at is refused (O_NOFOLLOW), not followed.
std::expected<InputStream, std::string> open_entry(int dir_fd, const char* name) {
  struct ::stat st {};
  if (::fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return std::unexpected(reason_of(errno));
  if (std::string refusal = refusal_for(st.st_mode); !refusal.empty()) return std::unexpected(refusal);
  int fd = ::openat(dir_fd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ELOOP) return std::unexpected(std::string("changed into a symbolic link while it was opened"));
    return std::unexpected(reason_of(errno));
  }
  std::uint64_t size = 0;
  if (std::string refusal = check_opened(fd, size); !refusal.empty()) {
    ::close(fd);
    return std::unexpected(refusal);
  }
  return InputStream::adopt(fd, size);
}

/// Opens `relative` (a path without links, "." or "..", as realpath gives it) beneath the folder
/// `top_fd`, one component at a time and never through a link: what it reaches stays beneath.
std::expected<InputStream, std::string> open_beneath(int top_fd, const std::string& relative) {
  int dir_fd = ::dup(top_fd);
  if (dir_fd < 0) return std::unexpected(reason_of(errno));
  std::size_t from = 0;
  while (true) {
    std::size_t slash = relative.find('/', from);
    std::string part = relative.substr(from, slash == std::string::npos ? std::string::npos : slash - from);
    if (part.empty() || part == "." || part == "..") {
      ::close(dir_fd);
      return std::unexpected(std::string("changed while it was opened"));
    }
    if (slash == std::string::npos) {
      auto in = open_entry(dir_fd, part.c_str());
      ::close(dir_fd);
      return in;
    }
    int next = ::openat(dir_fd, part.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    int code = errno;
    ::close(dir_fd);
    if (next < 0) {
      return std::unexpected(code == ELOOP || code == ENOTDIR ? std::string("changed while it was opened")
                                                               : reason_of(code));
    }
    dir_fd = next;
    from = slash + 1;
  }
}

/// The folder being walked, as the command line named it and as realpath resolves it.
struct WalkTop {
  std::string shown;     ///< as named: the start of every path passed on
  std::string real;      ///< realpath of it: where links must stay
  int fd = -1;           ///< open on `real`
};

void walk(const WalkTop& top, int dir_fd, const std::string& folder, int depth,
          std::span<const std::string_view> suffixes, const InputFileSink& on_file,
          const std::function<void(const std::string&, const std::string&)>& on_problem) {
  if (depth > k_max_folder_depth) {
    on_problem(folder, "more than " + std::to_string(k_max_folder_depth) + " folders deep: not read");
    return;
  }
  int list_fd = ::dup(dir_fd);  // closedir closes it; dir_fd stays open for the entries
  DIR* dir = list_fd < 0 ? nullptr : ::fdopendir(list_fd);
  if (dir == nullptr) {
    on_problem(folder, reason_of(errno));
    if (list_fd >= 0) ::close(list_fd);
    return;
  }
  // Names first, then visits: each folder's listing is closed before descending.
  struct Entry {
    std::string name;
    unsigned char type;
  };
  std::vector<Entry> entries;
  bool cut = false;
  while (dirent* e = ::readdir(dir)) {
    std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    if (entries.size() >= k_max_folder_entries) {
      cut = true;
      break;
    }
    entries.push_back({std::string(name), e->d_type});
  }
  ::closedir(dir);
  if (cut) on_problem(folder, "more than " + std::to_string(k_max_folder_entries) + " entries: the rest not read");
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
  for (const Entry& entry : entries) {
    std::string path = join_path(folder, entry.name);
    unsigned char type = entry.type;
    if (type == DT_UNKNOWN) {  // some filesystems do not fill d_type
      struct ::stat st {};
      if (::fstatat(dir_fd, entry.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
        type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
      }
    }
    if (type == DT_DIR) {
      int sub = ::openat(dir_fd, entry.name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
      if (sub < 0) {
        on_problem(path, errno == ELOOP || errno == ENOTDIR ? std::string("changed while the folder was read")
                                                            : reason_of(errno));
        continue;
      }
      walk(top, sub, path, depth + 1, suffixes, on_file, on_problem);
      ::close(sub);
    } else if (!has_suffix(entry.name, suffixes)) {
      continue;
    } else if (type != DT_LNK) {
      on_file(path, open_entry(dir_fd, entry.name.c_str()));  // a FIFO so named: its reason
    } else {
      // A link is followed only to a file beneath the folder (links to folders never: no loops),
      // and opened there without links, so that a swap cannot lead it out.
      char resolved[PATH_MAX];
      if (::realpath(path.c_str(), resolved) == nullptr) {
        on_file(path, std::unexpected(reason_of(errno)));
        continue;
      }
      std::string real = resolved;
      std::string prefix = top.real == "/" ? "/" : top.real + "/";
      if (!real.starts_with(prefix) || real.size() == prefix.size()) {
        struct ::stat st {};
        if (::stat(real.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) continue;
        on_file(path, std::unexpected("a symbolic link to a file outside " + top.shown +
                                      ": not followed (name it on the command line to read it)"));
        continue;
      }
      struct ::stat st {};
      if (::stat(real.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) continue;  // links to folders: not followed
      on_file(path, open_beneath(top.fd, real.substr(prefix.size())));
    }
  }
}

}  // namespace

InputClass classify_input(std::string_view path) {
  std::string p(path);
  struct ::stat st {};
  if (::stat(p.c_str(), &st) != 0) return {InputKind::unusable, reason_of(errno)};
  if (S_ISDIR(st.st_mode)) return {InputKind::folder, {}};
  std::string refusal = refusal_for(st.st_mode);
  if (!refusal.empty()) return {InputKind::unusable, refusal};
  return {InputKind::file, {}};
}

std::expected<InputStream, std::string> InputStream::open_file(std::string_view path) {
  std::string p(path);
  // Look before opening: opening a FIFO without a writer blocks, a device can have effects.
  struct ::stat st {};
  if (::stat(p.c_str(), &st) != 0) return std::unexpected(reason_of(errno));
  if (std::string refusal = refusal_for(st.st_mode); !refusal.empty()) return std::unexpected(refusal);
  int fd = ::open(p.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return std::unexpected(reason_of(errno));
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {  // swapped between stat and open
    ::close(fd);
    return std::unexpected(std::string("changed into something other than a regular file while it was opened"));
  }
  return InputStream(fd, true, static_cast<std::uint64_t>(st.st_size));
}

InputStream InputStream::standard_input() { return InputStream(STDIN_FILENO, false); }

InputStream InputStream::adopt(int fd, std::optional<std::uint64_t> size) { return InputStream(fd, true, size); }

InputStream::InputStream(InputStream&& other) noexcept : m_fd(other.m_fd), m_owned(other.m_owned), m_size(other.m_size) {
  other.m_fd = -1;
  other.m_owned = false;
}

InputStream& InputStream::operator=(InputStream&& other) noexcept {
  if (this != &other) {
    if (m_owned && m_fd >= 0) ::close(m_fd);
    m_fd = other.m_fd;
    m_owned = other.m_owned;
    m_size = other.m_size;
    other.m_fd = -1;
    other.m_owned = false;
  }
  return *this;
}

InputStream::~InputStream() {
  if (m_owned && m_fd >= 0) ::close(m_fd);
}

std::expected<std::size_t, std::string> InputStream::read(std::span<char> buffer) {
  while (true) {
    ssize_t n = ::read(m_fd, buffer.data(), buffer.size());
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      // Standard input left non-blocking by whoever set up the pipe: wait for data as a
      // blocking read would (regular files never get here).
      pollfd p{m_fd, POLLIN, 0};
      if (::poll(&p, 1, -1) >= 0 || errno == EINTR) continue;
    }
    return std::unexpected(reason_of(errno));
  }
}

std::expected<std::size_t, std::string> InputStream::read_append(std::string& text, std::size_t most) {
  const std::size_t before = text.size();
  std::expected<std::size_t, std::string> result = 0;
  // The bytes are read straight into the string's new tail (never zero-filled first), which is
  // then cut to what the read gave.
  text.resize_and_overwrite(before + most, [&](char* data, std::size_t) {
    result = read(std::span<char>(data + before, most));
    return before + (result ? *result : 0);
  });
  return result;
}

std::expected<std::string, std::string> read_whole_input(std::string_view path, std::size_t max_bytes) {
  auto stream = InputStream::open_file(path);
  if (!stream) return std::unexpected(stream.error());
  std::string content;
  std::vector<char> buffer(1 << 16);
  while (true) {
    auto n = stream->read(buffer);
    if (!n) return std::unexpected(n.error());
    if (*n == 0) break;
    if (content.size() + *n > max_bytes) {
      return std::unexpected("larger than " + std::to_string(max_bytes >> 20) + " MiB: not read");
    }
    content.append(buffer.data(), *n);
  }
  return content;
}

std::expected<nlohmann::json, std::string> read_json_input(std::string_view path, const JsonBounds& bounds) {
  auto stream = InputStream::open_file(path);
  if (!stream) return std::unexpected(stream.error());
  return parse_bounded_json([&](std::span<char> buffer) { return stream->read(buffer); }, bounds);
}

void walk_input_folder(std::string_view folder, std::span<const std::string_view> suffixes, const InputFileSink& on_file,
                       const std::function<void(const std::string&, const std::string&)>& on_problem) {
  WalkTop top;
  top.shown = std::string(folder);
  char resolved[PATH_MAX];
  if (::realpath(top.shown.c_str(), resolved) == nullptr) {
    on_problem(top.shown, reason_of(errno));
    return;
  }
  top.real = resolved;
  top.fd = ::open(top.real.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (top.fd < 0) {
    on_problem(top.shown, reason_of(errno));
    return;
  }
  walk(top, top.fd, top.shown, 0, suffixes, on_file, on_problem);
  ::close(top.fd);
}

}  // namespace gd
