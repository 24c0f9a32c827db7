// os-release, cgroup files and mountinfo, modprobe.d, libc banners, Secure Boot variables,
// CUDA toolkit version files and host_config.h.
#include "fuzz_target.hpp"
#include "probes/container/cgroups.hpp"
#include "probes/toolkit/cuda_version_file.hpp"
#include "probes/system/libc_version.hpp"
#include "probes/driver/modprobe_config.hpp"
#include "probes/toolkit/nvcc_host_config.hpp"
#include "probes/system/os_release.hpp"
#include "probes/driver/secure_boot.hpp"

GD_FUZZ_TEXT({
  (void)gd::parse_os_release(text);
  (void)gd::parse_proc_cgroup(text);
  (void)gd::parse_mountinfo(text);
  auto rules = gd::parse_devices_list(text);
  (void)gd::devices_list_allows(rules, 195, 0, "rw");
  (void)gd::parse_modprobe_conf(text);
  (void)gd::cmdline_blacklisted_modules(text);
  (void)gd::glibc_version_from_banner(text);
  (void)gd::glibc_version_from_ldd(text);
  (void)gd::parse_secure_boot_variable(text);
  (void)gd::parse_cuda_version_json(text);
  (void)gd::parse_cuda_version_txt(text);
  (void)gd::parse_max_gcc_major(text);
})
