#pragma once
// A temporary root with driver-like libraries (tests/fixtures/elf) on which the host's real
// /sbin/ldconfig writes a real /etc/ld.so.cache (`ldconfig -r ROOT`), for the loader tests.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "host_tools.hpp"
#include "source_files.hpp"
#include "temp_tree.hpp"

namespace gd::test {

// Cases that run it are tagged [needs-ldconfig] and REQUIRE(have("ldconfig")) (host_tools.hpp).

/// The bytes of tests/fixtures/elf/<name>.
inline std::string elf_fixture(std::string_view name) { return source_file("tests/fixtures/elf/" + std::string(name)); }

/// The bytes of a file of this machine ("" when missing).
inline std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// The bytes of a file in the tree ("" when missing).
inline std::string tree_file(const TempTree& tree, std::string_view path) { return read_whole(tree.at(path)); }

/// Runs the real ldconfig on the tree: reads TREE/etc/ld.so.conf, writes TREE/etc/ld.so.cache
/// in `format` (new, old or compat) and creates the soname links, as a package install does.
/// Returns ldconfig's exit status.
inline int run_ldconfig(const TempTree& tree, std::string_view format = "new") {
  std::string cmd = std::string(k_ldconfig) + " -r '" + tree.root() + "' -C /etc/ld.so.cache -f /etc/ld.so.conf -c " +
                    std::string(format) + " 2>/dev/null";
  int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// `ldconfig -p` of the tree's cache: what the real tool reads from it.
inline std::string ldconfig_print(const TempTree& tree) {
  std::string cmd = std::string(k_ldconfig) + " -r '" + tree.root() + "' -C /etc/ld.so.cache -p > '" +
                    tree.at("/ldconfig-p.txt") + "' 2>/dev/null";
  if (std::system(cmd.c_str()) != 0) {
    return "";
  }
  return tree_file(tree, "/ldconfig-p.txt");
}

}  // namespace gd::test
