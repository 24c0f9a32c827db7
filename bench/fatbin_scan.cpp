// fatbin_scan PATH [RUNS] [WINDOW]: scans the CUDA fat binaries of PATH through RealHost RUNS
// times (default 11) and prints the median wall time, what the scan found and how much it read.
// WINDOW overrides FatbinScanLimits::read_window (bytes per read). Run it twice for a warm cache.
//   bench: fatbin_scan /usr/local/cuda/lib64/libcublasLt.so.13

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "probes/shared/cuda_fatbin.hpp"
#include "sys/real_host.hpp"

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) {
    text += (text.empty() ? "" : " ") + name;
  }
  return text.empty() ? "-" : text;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: fatbin_scan PATH [RUNS] [WINDOW]\n");
    return 2;
  }
  const std::string path = argv[1];
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 11;
  gd::FatbinScanLimits limits;
  if (argc > 3) {
    limits.read_window = static_cast<std::size_t>(std::strtoull(argv[3], nullptr, 10));
  }
  gd::RealHost host("/", {});
  std::vector<double> ms;
  gd::FatbinScan scan;
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    scan = gd::scan_fat_binaries(host, path, limits);
    auto end = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("path        %s\n", path.c_str());
  std::printf("median ms   %.2f (min %.2f, max %.2f, %d runs, window %zu)\n", ms[ms.size() / 2], ms.front(),
              ms.back(), runs, limits.read_window);
  std::printf("status      %s%s%s\n", std::string(gd::to_string(scan.status)).c_str(), scan.error.empty() ? "" : ": ",
              scan.error.c_str());
  std::printf("sections    %s\n", joined(scan.sections).c_str());
  std::printf("containers  %u\n", scan.containers);
  std::printf("entries     %u (other kinds %u, compressed: %s)\n", scan.entries, scan.other_entries,
              scan.compressed ? "yes" : "no");
  std::printf("reads       %u (%llu bytes)\n", scan.reads, static_cast<unsigned long long>(scan.bytes_read));
  std::printf("sass        %s\n", joined(gd::sass_arch_names(scan)).c_str());
  std::printf("ptx         %s\n", joined(gd::ptx_arch_names(scan)).c_str());
  return scan.status == gd::FatbinStatus::ok ? 0 : 1;
}
