#pragma once
// Running the real helper ELF through this host's glibc loader against the fake libcuda/NVML
// (tests/fakes), configured per test through FAKE_* environment variables.

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "probes/cuda/helper_reply.hpp"
#include "sys/helper_exec.hpp"

#ifndef GD_TEST_HELPER_PATH
#error "define GD_TEST_HELPER_PATH: the path of the built gpudoctor-cuda-helper"
#endif
#ifndef GD_TEST_FAKES_DIR
#error "define GD_TEST_FAKES_DIR: the folder holding the fake libcuda.so.1 and libnvidia-ml.so.1"
#endif

namespace gd::test {

inline const std::vector<unsigned char>& helper_elf() {
  static const std::vector<unsigned char> bytes = [] {
    std::ifstream in(GD_TEST_HELPER_PATH, std::ios::binary);
    return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), {});
  }();
  return bytes;
}

/// Sets (or unsets) one variable for the scope of a test and puts the old value back.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : m_name(name) {
    if (const char* old = std::getenv(name)) {
      m_old = old;
    }
    value ? ::setenv(name, value->c_str(), 1) : ::unsetenv(name);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() { m_old ? ::setenv(m_name, m_old->c_str(), 1) : ::unsetenv(m_name); }

 private:
  const char* m_name;
  std::optional<std::string> m_old;
};

inline gd::HelperRequest fake_request() {
  gd::HelperRequest request;
  request.libcuda_path = std::string(GD_TEST_FAKES_DIR) + "/libcuda.so.1";
  request.libnvml_path = std::string(GD_TEST_FAKES_DIR) + "/libnvidia-ml.so.1";
  request.timeout_ms = 20000;
  return request;
}

inline const char* status_name(gd::HelperOutcome::Status status) {
  using Status = gd::HelperOutcome::Status;
  switch (status) {
    case Status::finished: return "finished";
    case Status::timed_out: return "timed_out";
    case Status::crashed: return "crashed";
    case Status::no_loader: return "no_loader";
    case Status::exec_failed: return "exec_failed";
    case Status::not_run: return "not_run";
  }
  return "?";
}

/// Runs the helper and prints everything on failure.
inline gd::HelperOutcome run(const gd::HelperRequest& request) {
  REQUIRE_FALSE(helper_elf().empty());
  gd::HelperOutcome outcome = gd::exec_cuda_helper(helper_elf(), request);
  UNSCOPED_INFO("status " << status_name(outcome.status) << " exit " << outcome.exit_code
                          << " signal " << outcome.signal << " ms " << outcome.duration_ms
                          << " error '" << outcome.error << "'\nreply:\n" << outcome.reply
                          << "\nstderr:\n" << outcome.err.substr(0, 2000));
  return outcome;
}

inline gd::HelperReply parsed(const gd::HelperOutcome& outcome) {
  auto reply = gd::parse_helper_reply(outcome.reply);
  if (!reply) {
    FAIL("reply does not parse: " << reply.error().describe());
  }
  return *reply;
}

}  // namespace gd::test
