#pragma once
// Files of the repository itself (fixtures, fuzz regressions) read whole by the unit tests. A
// missing file throws, so a renamed fixture fails its test instead of feeding it "".

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#ifndef GD_SOURCE_DIR
#error "GD_SOURCE_DIR must name the repository root"
#endif

namespace gd::test {

/// The bytes of `relative`, a path from the repository root.
inline std::string source_file(const std::string& relative) {
  const std::string path = std::string(GD_SOURCE_DIR) + "/" + relative;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot read test input " + path);
  }
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// tests/fixtures/python/<name>: real files; their origins are in the README there.
inline std::string python_fixture(const std::string& name) { return source_file("tests/fixtures/python/" + name); }

}  // namespace gd::test
