#pragma once
// A folder under /tmp that a test fills with files, links and FIFOs and that is removed again
// when the test ends (GUIDE 5.7: tests never touch the real /).

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gd::test {

class TempTree {
 public:
  TempTree() {
    char pattern[] = "/tmp/gpudoctor-test-XXXXXX";
    if (!::mkdtemp(pattern)) {
      throw std::runtime_error("mkdtemp failed");
    }
    m_root = pattern;
  }
  ~TempTree() {
    std::error_code ignored;
    std::filesystem::remove_all(m_root, ignored);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  /// The folder itself (no trailing slash).
  const std::string& root() const { return m_root; }
  /// The real path of `path` ("/etc/passwd") inside the tree.
  std::string at(std::string_view path) const { return m_root + std::string(path); }

  /// Writes `content` to `path`, making the folders above it.
  void file(std::string_view path, std::string_view content) const {
    make_parent(path);
    std::ofstream out(at(path), std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out) {
      throw std::runtime_error("cannot write " + at(path));
    }
  }
  void dir(std::string_view path) const { std::filesystem::create_directories(at(path)); }
  /// A symlink at `path` whose target is `target` exactly as given (absolute or relative).
  void link(std::string_view path, std::string_view target) const {
    make_parent(path);
    if (::symlink(std::string(target).c_str(), at(path).c_str()) != 0) {
      throw std::runtime_error("cannot create link " + at(path));
    }
  }
  void fifo(std::string_view path) const {
    make_parent(path);
    if (::mkfifo(at(path).c_str(), 0600) != 0) {
      throw std::runtime_error("cannot create fifo " + at(path));
    }
  }

 private:
  void make_parent(std::string_view path) const {
    std::filesystem::create_directories(std::filesystem::path(at(path)).parent_path());
  }

  std::string m_root;
};

}  // namespace gd::test
