// /proc/driver/nvidia/version, gpus/*/information and params, /proc/devices, /proc/modules.
#include "fuzz_target.hpp"
#include "probes/shared/nvidia_gpu_info.hpp"
#include "probes/driver/nvidia_module.hpp"
#include "probes/devices/proc_devices.hpp"
#include "probes/driver/proc_modules.hpp"

GD_FUZZ_TEXT({
  (void)gd::parse_nvrm_version(text);
  (void)gd::parse_gpu_information(text);
  (void)gd::parse_nvidia_params(text);
  auto devices = gd::parse_proc_devices(text);
  (void)gd::character_major(devices, "nvidia-uvm");
  auto modules = gd::parse_proc_modules(text);
  (void)gd::find_module(modules, "nvidia");
})
