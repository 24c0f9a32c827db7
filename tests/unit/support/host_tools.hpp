#pragma once
// Unit cases that run a tool of this machine (glibc's ldconfig, the CUDA toolkit, ...) carry the
// tag [needs-NAME] of one entry below. ctest runs them apart from the rest: the plain `unit`
// entry leaves every [needs-*] case out, and one entry per name runs
// `gpudoctor_tests --needs NAME [needs-NAME]`, which exits 125 with the reason (ctest: Skipped)
// when this machine lacks the tool, and runs the cases otherwise. Inside such a case a missing
// tool is a failure (REQUIRE(gd::test::have("NAME"))), never a silent pass.
// The names are listed once more in tests/CMakeLists.txt (GD_UNIT_NEEDS); test_host_tools.cpp
// checks that both lists and the cases' tags agree.

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace gd::test {

inline constexpr const char* k_ldconfig = "/sbin/ldconfig";
inline constexpr const char* k_cuda_bin = "/usr/local/cuda/bin";
inline constexpr const char* k_debian_libc = "/lib/x86_64-linux-gnu/libc.so.6";

namespace host_tools_detail {

inline bool executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

inline bool shell(const std::string& command) {
  return std::system(("(" + command + ") >/dev/null 2>&1").c_str()) == 0;
}

inline bool cuda_toolkit() {
  return executable(std::string(k_cuda_bin) + "/ptxas") && executable(std::string(k_cuda_bin) + "/fatbinary");
}

inline bool own_ld_cache() {
  std::ifstream in("/etc/ld.so.cache", std::ios::binary);
  return executable(k_ldconfig) && in && in.peek() != std::ifstream::traits_type::eof();
}

inline bool debian_glibc() {
  std::ifstream in(k_debian_libc, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return bytes.find("GNU C Library ") != std::string::npos;
}

}  // namespace host_tools_detail

inline constexpr const char* k_cuda_stub_libcuda = "/usr/local/cuda/lib64/stubs/libcuda.so";

struct HostTool {
  const char* name;     // the tag is [needs-NAME]
  const char* missing;  // the skip reason: what this machine lacks
  bool (*present)();
};

inline const std::vector<HostTool>& host_tools() {
  namespace d = host_tools_detail;
  static const std::vector<HostTool> tools = {
      {"ldconfig", "no /sbin/ldconfig (glibc's; not a glibc host)", [] { return d::executable(k_ldconfig); }},
      {"host-ld-cache", "no /sbin/ldconfig or no /etc/ld.so.cache on this machine", d::own_ld_cache},
      {"debian-glibc", "no Debian-layout glibc (/lib/x86_64-linux-gnu/libc.so.6 with glibc's banner)", d::debian_glibc},
      {"cuda-toolkit", "no CUDA toolkit (ptxas and fatbinary under /usr/local/cuda/bin)", d::cuda_toolkit},
      {"objcopy", "no CUDA toolkit (ptxas, fatbinary) or no objcopy that takes --add-section",
       [] { return d::cuda_toolkit() && d::shell("objcopy --help | grep -q -e --add-section"); }},
      {"cuda-stub", "no NVIDIA stub libcuda (/usr/local/cuda/lib64/stubs/libcuda.so, the CUDA toolkit's)",
       [] { return std::ifstream(k_cuda_stub_libcuda).good(); }},
      {"nvcc", "no nvcc under /usr/local/cuda/bin, or no host compiler it accepts (nvcc -E fails)",
       [] {
         return d::cuda_toolkit() && d::executable(std::string(k_cuda_bin) + "/nvcc") &&
                d::shell(std::string(k_cuda_bin) + "/nvcc -E -x cu /dev/null -o /dev/null");
       }},
  };
  return tools;
}

inline const HostTool* find_host_tool(std::string_view name) {
  for (const HostTool& tool : host_tools()) {
    if (name == tool.name) {
      return &tool;
    }
  }
  return nullptr;
}

/// Whether this machine has what [needs-NAME] names (an unknown name is a bug: false).
inline bool have(std::string_view name) {
  const HostTool* tool = find_host_tool(name);
  return tool && tool->present();
}

}  // namespace gd::test
