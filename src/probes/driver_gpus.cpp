#include "probes/driver_gpus.hpp"

#include <charconv>

namespace gd {
namespace {

constexpr std::string_view k_gpus_dir = "/proc/driver/nvidia/gpus";
constexpr std::size_t k_max_information = 16 * 1024;  // a real file is ~400 bytes
constexpr std::size_t k_max_gpus = 256;                // minors 0-247 are GPUs (nv-chardev-numbers.h)

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

}  // namespace

DriverGpu parse_driver_gpu(std::string_view text) {
  DriverGpu out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    // The key ends at the first colon: "Bus Location: \t 0000:00:06.0" keeps its own colons.
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      continue;
    }
    std::string_view key = trim(line.substr(0, colon));
    std::string_view value = trim(line.substr(colon + 1));
    if (key == "Device Minor") {
      int minor = 0;
      auto [ptr, error] = std::from_chars(value.data(), value.data() + value.size(), minor);
      if (error == std::errc() && ptr == value.data() + value.size() && minor >= 0) {
        out.device_minor = minor;
      }
    } else if (key == "GPU UUID") {
      out.uuid = std::string(value);
    } else if (key == "Model") {
      out.model = std::string(value);
    }
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
