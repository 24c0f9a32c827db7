#include "probes/devices/driver_gpus.hpp"

#include "probes/shared/nvidia_gpu_info.hpp"

namespace gd {
namespace {

constexpr std::string_view k_gpus_dir = "/proc/driver/nvidia/gpus";
constexpr std::size_t k_max_information = 16 * 1024;  // a real file is ~400 bytes
constexpr std::size_t k_max_gpus = 256;                // minors 0-247 are GPUs (nv-chardev-numbers.h)


}  // namespace

DriverGpu parse_driver_gpu(std::string_view text) {
  // One parser for the information file (nvidia_gpu_info.cpp); this keeps the fields the node
  // and container checks need.
  DriverGpu out;
  if (auto info = parse_gpu_information(text)) {
    out.device_minor = info->device_minor;
    out.uuid = info->uuid;
    out.model = info->model;
  }
  return out;
}

DriverGpus read_driver_gpus(Host& host) {
  DriverGpus out;
  auto names = host.list_dir(k_gpus_dir);
  if (!names) {
    out.error = names.error();
    return out;
  }
  std::size_t count = 0;
  for (const std::string& name : *names) {
    if (++count > k_max_gpus) {
      break;
    }
    std::string path = std::string(k_gpus_dir) + "/" + name + "/information";
    auto text = host.read_file(path, k_max_information);
    if (!text) {
      out.unreadable.push_back(name + " " + text.error().describe());
      continue;
    }
    DriverGpu gpu = parse_driver_gpu(*text);
    gpu.bus_id = name;
    out.gpus.push_back(std::move(gpu));
  }
  return out;
}

}  // namespace gd
