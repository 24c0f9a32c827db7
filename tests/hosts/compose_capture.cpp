// compose_capture HOST.json OUT.capture.json: writes the capture a host file describes, its
// "base" capture plus the changes it lists (the format of tests/rules/README.md, composed by
// tests/unit/support/rule_hosts.hpp, the same code the rule host cases run through). The ctest
// fixture test.inputs (tests/hosts/make_test_inputs.sh) makes the captures stored in
// tests/hosts/*.host.json this way. The output is laid out as the committed captures are
// (nlohmann's dump with an indent of 2, keys sorted, no final newline), so a capture turned into
// a host file composes back to the same bytes.

#include <cstdio>
#include <exception>
#include <fstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "sys/input_files.hpp"
#include "rule_hosts.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: compose_capture HOST.json OUT.capture.json\n");
    return 2;
  }
  try {
    auto text = gd::read_whole_input(argv[1], 16u << 20);
    if (!text) {
      throw std::runtime_error(std::string(argv[1]) + ": " + text.error());
    }
    nlohmann::json composed = gd::test::compose_rule_host(nlohmann::json::parse(*text), argv[1]);
    std::ofstream out(argv[2], std::ios::binary);
    out << composed.dump(2);
    if (!out.flush()) {
      throw std::runtime_error(std::string("cannot write ") + argv[2]);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "compose_capture: %s\n", error.what());
    return 1;
  }
  return 0;
}
