#include "probes/devices/proc_devices.hpp"

#include "util/text_split.hpp"

#include <charconv>

namespace gd {
namespace {

// "195 nvidiactl" -> {195, "nvidiactl"}; the kernel right-aligns the number ("  1 mem").
std::optional<DeviceMajor> parse_line(std::string_view line) {
  line = trim_whitespace(line);
  std::size_t space = line.find_first_of(" \t");
  if (space == std::string_view::npos) {
    return std::nullopt;
  }
  std::string_view number = line.substr(0, space);
  std::string_view name = trim_whitespace(line.substr(space));
  int major = 0;
  auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), major);
  if (error != std::errc() || end != number.data() + number.size() || name.empty()) {
    return std::nullopt;
  }
  return DeviceMajor{major, std::string(name)};
}

}  // namespace

ProcDevices parse_proc_devices(std::string_view text) {
  ProcDevices out;
  std::vector<DeviceMajor>* section = nullptr;
  for (std::string_view raw : split_lines(text)) {
    std::string_view line = trim_whitespace(raw);
    if (line == "Character devices:") {
      section = &out.character;
    } else if (line == "Block devices:") {
      section = &out.block;
    } else if (section) {
      if (auto entry = parse_line(line)) {
        section->push_back(std::move(*entry));
      }
    }
  }
  return out;
}

std::optional<int> character_major(const ProcDevices& devices, std::string_view name) {
  for (const DeviceMajor& entry : devices.character) {
    if (entry.name == name) {
      return entry.major;
    }
  }
  return std::nullopt;
}

}  // namespace gd
