#include "sys/input_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
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

void walk(const std::string& folder, int depth, std::span<const std::string_view> suffixes,
          const std::function<void(const std::string&)>& on_file,
          const std::function<void(const std::string&, const std::string&)>& on_problem) {
  if (depth > k_max_folder_depth) {
    on_problem(folder, "more than " + std::to_string(k_max_folder_depth) + " folders deep: not read");
    return;
  }
  DIR* dir = ::opendir(folder.c_str());
  if (dir == nullptr) {
    on_problem(folder, reason_of(errno));
    return;
  }
  // Names first, then visits: the folder is closed before descending (bounded open descriptors).
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
    bool is_dir = entry.type == DT_DIR;
    if (entry.type == DT_UNKNOWN) {  // some filesystems do not fill d_type
      struct ::stat st {};
      is_dir = ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    }
    if (is_dir) {
      walk(path, depth + 1, suffixes, on_file, on_problem);
    } else if (has_suffix(entry.name, suffixes)) {
      // A link is passed on when its name fits: opening it reads a file, refuses a folder.
      if (entry.type == DT_LNK) {
        struct ::stat st {};
        if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) continue;  // links to folders: not followed
      }
      on_file(path);
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
  return InputStream(fd, true);
}

InputStream InputStream::standard_input() { return InputStream(STDIN_FILENO, false); }

InputStream::InputStream(InputStream&& other) noexcept : m_fd(other.m_fd), m_owned(other.m_owned) {
  other.m_fd = -1;
  other.m_owned = false;
}

InputStream& InputStream::operator=(InputStream&& other) noexcept {
  if (this != &other) {
    if (m_owned && m_fd >= 0) ::close(m_fd);
    m_fd = other.m_fd;
    m_owned = other.m_owned;
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

void walk_input_folder(std::string_view folder, std::span<const std::string_view> suffixes,
                       const std::function<void(const std::string&)>& on_file,
                       const std::function<void(const std::string&, const std::string&)>& on_problem) {
  walk(std::string(folder), 0, suffixes, on_file, on_problem);
}

}  // namespace gd
