#pragma once
// The captured hosts, read the way `gpudoctor --replay` reads them: those committed in tests/hosts/
// and those the ctest fixture test.inputs makes into the build tree (tests/hosts/make_test_inputs.sh):
// every capture, committed or made, is in GD_GENERATED_DIR/tests/hosts/.

#include <filesystem>
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

#ifndef GD_GENERATED_DIR
#error "GD_GENERATED_DIR must name the folder the ctest fixture test.inputs writes (tests/CMakeLists.txt)"
#endif

/// The folder holding every capture: the committed ones (linked) and the ones made at test time.
inline std::string test_hosts_dir() { return std::string(GD_GENERATED_DIR) + "/tests/hosts"; }

/// The JSON of the capture <name>: tests/hosts/<name>.capture.json, or the one made at test time.
inline nlohmann::json host_capture_json(std::string_view name) {
  std::string file = std::string(name) + ".capture.json";
  std::string path = std::string(GD_SOURCE_DIR) + "/tests/hosts/" + file;
  if (!std::filesystem::exists(path)) {
    path = test_hosts_dir() + "/" + file;
    if (!std::filesystem::exists(path)) {
      throw std::runtime_error(file + " is neither in tests/hosts/ nor in " + test_hosts_dir() +
                               " (made by the ctest fixture test.inputs: ctest -R test.inputs)");
    }
  }
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
