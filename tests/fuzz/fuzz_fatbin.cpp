// CUDA fat binaries: the whole ELF-and-fatbin walk, through a replayed host holding the bytes.
#include "fuzz_target.hpp"
#include "probes/shared/cuda_fatbin.hpp"
#include "sys/replay_host.hpp"

GD_FUZZ_TEXT({
  (void)gd::parse_fatbin_container_header(text);
  (void)gd::parse_fatbin_entry_header(text);
  gd::Capture capture;
  gd::CapturedPath file;
  file.read = gd::IoResult<std::string>(std::string(text));
  gd::FileStat stat;
  stat.kind = gd::FileKind::regular;
  stat.size = text.size();
  file.stat = gd::IoResult<gd::FileStat>(stat);
  capture.paths["/lib.so"] = file;
  gd::ReplayHost host(std::move(capture));
  gd::FatbinScanLimits limits;
  limits.read_window = 128;
  (void)gd::scan_fat_binaries(host, "/lib.so", limits);
})
