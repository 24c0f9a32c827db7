#pragma once
// The captured hosts under tests/hosts/, read the way `gpudoctor --replay` reads them.

#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sys/capture.hpp"
#include "sys/input_files.hpp"

#ifndef GD_SOURCE_DIR
#error "GD_SOURCE_DIR must name the repository root"
#endif

namespace gd::test {

/// The JSON of tests/hosts/<name>.capture.json.
inline nlohmann::json host_capture_json(std::string_view name) {
  std::string path = std::string(GD_SOURCE_DIR) + "/tests/hosts/" + std::string(name) + ".capture.json";
  auto text = read_whole_input(path, 64 * 1024 * 1024);
  if (!text) {
    throw std::runtime_error(path + ": " + text.error());
  }
  return nlohmann::json::parse(*text);
}

/// tests/hosts/<name>.capture.json as a Capture.
inline Capture host_capture(std::string_view name) {
  auto capture = capture_from_json(host_capture_json(name), name);
  if (!capture) {
    throw std::runtime_error(capture.error().describe());
  }
  return *capture;
}

/// The healthy H200 container capture: the base that probe tests change a few files of.
inline Capture h200_container_capture() { return host_capture("h200-container-580.159.04"); }

/// What reading `path` gives in `capture`, replaced by `text`.
inline void set_file(Capture& capture, const std::string& path, std::string text) {
  capture.paths[path].read = std::move(text);
}

}  // namespace gd::test
