// METADATA / PKG-INFO, torch/version.py, direct_url.json, wheel names, pyvenv.cfg.
#include "fuzz_target.hpp"
#include "probes/python/python_metadata.hpp"
#include "probes/python/pyvenv_cfg.hpp"

GD_FUZZ_TEXT({
  (void)gd::parse_core_metadata(text);
  (void)gd::parse_torch_version_py(text);
  (void)gd::parse_direct_url(text);
  if (auto wheel = gd::parse_wheel_filename(text)) (void)gd::parse_torch_build_tag(wheel->version);
  (void)gd::normalize_name(text);
  (void)gd::parse_pyvenv_cfg(text);
})
