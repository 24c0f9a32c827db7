#pragma once
// A Host that answers from another (usually a RealHost rooted at a TempTree) except for the
// environment and the working folder, which the test sets: probes that read PATH, VIRTUAL_ENV
// or CONDA_PREFIX can then be tested on a tree without touching the test process's own.

#include <map>
#include <optional>
#include <string>

#include "sys/host.hpp"

namespace gd::test {

class ScriptedEnvHost final : public Host {
 public:
  ScriptedEnvHost(Host& inner, std::map<std::string, std::string> env, std::optional<std::string> cwd = std::nullopt)
      : m_inner(inner), m_env(std::move(env)), m_cwd(std::move(cwd)) {}

  IoResult<std::string> read_file(std::string_view path, std::size_t max_bytes) override {
    return m_inner.read_file(path, max_bytes);
  }
  IoResult<std::string> read_range(std::string_view path, std::uint64_t offset, std::size_t max_bytes) override {
    return m_inner.read_range(path, offset, max_bytes);
  }
  IoResult<std::string> read_kernel_log(std::size_t max_bytes) override { return m_inner.read_kernel_log(max_bytes); }
  IoResult<std::vector<std::string>> list_dir(std::string_view path) override { return m_inner.list_dir(path); }
  IoResult<FileStat> stat(std::string_view path) override { return m_inner.stat(path); }
  IoResult<FileStat> lstat(std::string_view path) override { return m_inner.lstat(path); }
  IoResult<std::string> read_link(std::string_view path) override { return m_inner.read_link(path); }
  int open_device(std::string_view path) override { return m_inner.open_device(path); }
  bool opens_devices() override { return m_inner.opens_devices(); }
  std::optional<std::string> env(std::string_view name) override {
    auto it = m_env.find(std::string(name));
    return it == m_env.end() ? std::nullopt : std::optional<std::string>(it->second);
  }
  Identity identity() override { return m_inner.identity(); }
  Uname uname() override { return Uname{"Linux", "test", "6.8.0", "#1", "x86_64"}; }
  std::optional<std::string> working_dir() override { return m_cwd; }
  HelperOutcome run_cuda_helper(const HelperRequest& request) override { return m_inner.run_cuda_helper(request); }

 private:
  Host& m_inner;
  std::map<std::string, std::string> m_env;
  std::optional<std::string> m_cwd;
};

}  // namespace gd::test
