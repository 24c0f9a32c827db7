// The --root walk (sys/rooted_walk, through RealHost and directly), in both modes (openat2 where
// the kernel has it, and the O_NOFOLLOW walk): the input builds a small tree in a temporary
// folder, whose files all hold "INSIDE", beside a folder outside the root whose one file holds
// "OUTSIDE", then asks for fuzzed paths. Any answer from outside the root aborts: a read that
// returns "OUTSIDE", a listing that names the outside folder's entries, a stat of one of the
// folders above the root or of the outside file.
//
// Input: lines of "KIND PATH[\tTARGET]": d (folder), f (file), l (symlink to TARGET), q (ask for
// PATH); anything else is skipped. An '@' in a target or a query is the real path of the folder
// holding the root, so that absolute links to the outside and '..' chains are one byte away.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_target.hpp"
#include "sys/real_host.hpp"
#include "sys/rooted_walk.hpp"

namespace {

using gd::RootedWalk;

constexpr std::size_t k_max_lines = 48;
constexpr std::size_t k_max_field = 160;

/// The folders made once per process: BASE/OUTSIDE_DIR/OUTSIDE_FILE ("OUTSIDE") and BASE/root.
struct Base {
  std::string base;
  std::string root;
  std::set<std::pair<dev_t, ino_t>> outside;  // what no answer may be: BASE, its parents, OUTSIDE_*
  Base() {
    char pattern[] = "/tmp/gd-fuzz-walk-XXXXXX";
    if (!::mkdtemp(pattern)) std::abort();
    base = pattern;
    root = base + "/root";
    std::filesystem::create_directories(base + "/OUTSIDE_DIR");
    int fd = ::open((base + "/OUTSIDE_DIR/OUTSIDE_FILE").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ::write(fd, "OUTSIDE", 7) != 7) std::abort();
    ::close(fd);
    for (std::string p : {base, base + "/OUTSIDE_DIR", base + "/OUTSIDE_DIR/OUTSIDE_FILE", std::string("/tmp"), std::string("/")}) {
      struct ::stat st {};
      if (::stat(p.c_str(), &st) == 0) outside.insert({st.st_dev, st.st_ino});
    }
  }
  ~Base() {
    std::error_code ignored;
    std::filesystem::remove_all(base, ignored);
  }
};

Base& base() {
  static Base b;
  return b;
}

std::string expand(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, k_max_field)) {
    if (c == '\0') continue;
    if (c == '@') {
      out += base().base;
    } else {
      out += c;
    }
  }
  return out;
}

/// Creates one entry of the tree without following any link (a fuzzed link must never make us
/// write outside the root): the path's folders are made and opened O_NOFOLLOW one at a time.
void create(int root_fd, char kind, std::string_view path, const std::string& target) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  path = path.substr(0, k_max_field);
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    std::string part(path.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (!part.empty() && part != "." && part != ".." && part.find('\0') == std::string::npos &&
        part.find("OUTSIDE") == std::string::npos) {
      parts.push_back(part);
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (parts.empty()) return;
  gd::ScopedFd dir(::fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    (void)::mkdirat(dir.get(), parts[i].c_str(), 0755);
    gd::ScopedFd next(::openat(dir.get(), parts[i].c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next) return;
    dir = std::move(next);
  }
  const char* name = parts.back().c_str();
  if (kind == 'd') {
    (void)::mkdirat(dir.get(), name, 0755);
  } else if (kind == 'f') {
    gd::ScopedFd fd(::openat(dir.get(), name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (fd && ::write(fd.get(), "INSIDE", 6) != 6) std::abort();
  } else if (kind == 'l') {
    (void)::symlinkat(target.c_str(), dir.get(), name);
  }
}

void check_stat(const struct ::stat& st) {
  if (base().outside.count({st.st_dev, st.st_ino})) std::abort();
}

void check_text(const gd::IoResult<std::string>& text) {
  if (text && text->find("OUTSIDE") != std::string::npos) std::abort();
}

void ask(RootedWalk& walk, gd::RealHost& host, const std::string& path) {
  for (auto follow : {RootedWalk::Follow::last_link, RootedWalk::Follow::not_last_link}) {
    auto found = walk.find(path, follow);
    if (!found) continue;
    check_stat(found->st);
    if (S_ISREG(found->st.st_mode)) {
      auto fd = walk.reopen(*found, O_RDONLY | O_NONBLOCK);
      if (fd) {
        char buffer[16];
        ssize_t n = ::read(fd->get(), buffer, sizeof buffer);
        if (n > 0 && std::string_view(buffer, static_cast<std::size_t>(n)).find("OUTSIDE") != std::string_view::npos) std::abort();
      }
    } else if (S_ISLNK(found->st.st_mode)) {
      (void)gd::read_link_fd(found->object.get());
    }
  }
  check_text(host.read_file(path, 64));
  check_text(host.read_range(path, 1, 16));
  (void)host.read_link(path);
  (void)host.stat(path);
  (void)host.lstat(path);
  (void)host.open_device(path);
  if (auto names = host.list_dir(path)) {
    for (const auto& name : *names) {
      if (name.find("OUTSIDE") != std::string::npos) std::abort();  // the tree never has such a name
    }
  }
}

}  // namespace

GD_FUZZ_TEXT({
  Base& b = base();
  std::error_code ignored;
  std::filesystem::remove_all(b.root, ignored);
  if (::mkdir(b.root.c_str(), 0755) != 0) std::abort();
  gd::ScopedFd root_fd(::open(b.root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root_fd) std::abort();
  std::vector<std::string> queries;
  std::size_t lines = 0;
  gd::fuzz::each_line(text, [&](std::string_view line) {
    if (++lines > k_max_lines || line.size() < 2) return;
    char kind = line[0];
    std::string_view rest = line.substr(1);
    if (rest.front() == ' ') rest.remove_prefix(1);
    std::size_t tab = rest.find('\t');
    std::string_view path = rest.substr(0, tab);
    std::string target = tab == std::string_view::npos ? std::string() : expand(rest.substr(tab + 1));
    if (kind == 'q') {
      std::string query = expand(path);
      if (query.empty() || query[0] != '/') query.insert(0, "/");
      queries.push_back(query);
    } else if (!target.empty() || kind != 'l') {
      create(root_fd.get(), kind, path, target);
    }
  });
  for (auto kernel : {RootedWalk::Kernel::openat2_if_present, RootedWalk::Kernel::walk_only}) {
    RootedWalk walk(b.root, kernel);
    gd::RealHost host(b.root, {}, kernel);
    for (const auto& query : queries) ask(walk, host, query);
  }
})
