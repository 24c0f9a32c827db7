#include "util/signal_names.hpp"

#include <catch2/catch.hpp>

#include <csignal>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::signal_name;

TEST_CASE("signal names: signals a crashing library ends with", "[util][signal_names]") {
  CHECK(signal_name(SIGSEGV) == "SIGSEGV");
  CHECK(signal_name(11) == "SIGSEGV");  // the number helper runs record on Linux
  CHECK(signal_name(SIGBUS) == "SIGBUS");
  CHECK(signal_name(SIGABRT) == "SIGABRT");
  CHECK(signal_name(SIGILL) == "SIGILL");
  CHECK(signal_name(SIGFPE) == "SIGFPE");
  CHECK(signal_name(SIGKILL) == "SIGKILL");
  CHECK(signal_name(SIGTERM) == "SIGTERM");
  CHECK(signal_name(SIGSYS) == "SIGSYS");
}

TEST_CASE("signal names: others are shown by number", "[util][signal_names]") {
  CHECK(signal_name(0) == "signal 0");
  CHECK(signal_name(SIGRTMIN + 1) == "signal " + std::to_string(SIGRTMIN + 1));
  CHECK(signal_name(-3) == "signal -3");
}

}  // namespace GD_UNITY_ID
