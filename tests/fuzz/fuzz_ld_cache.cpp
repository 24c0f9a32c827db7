// /etc/ld.so.cache (both glibc formats) and ld.so.conf.
#include "fuzz_target.hpp"
#include "probes/libraries/ld_cache.hpp"
#include "probes/libraries/ld_so_conf.hpp"

GD_FUZZ_TEXT({
  auto cache = gd::parse_ld_cache(text);
  if (cache) (void)gd::ld_cache_lookup(*cache, "libcuda.so.1", "x86_64");
  (void)gd::parse_ld_so_conf(text);
})
