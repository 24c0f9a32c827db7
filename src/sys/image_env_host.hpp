#pragma once
// A pre-flight check reads an image's variables, never the caller's: this Host answers env()
// from the image's configuration (already reduced to allowlisted names) and forwards everything
// else to the host it wraps (the RealHost rooted at the image). There is no working folder.

#include <map>
#include <optional>
#include <string>

#include "sys/host.hpp"

namespace gd {

class ImageEnvHost : public Host {
 public:
  ImageEnvHost(Host& inner, std::map<std::string, std::string> env) : m_inner(inner), m_env(std::move(env)) {}

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
  Identity identity() override { return m_inner.identity(); }
  Uname uname() override { return m_inner.uname(); }
  std::optional<std::string> working_dir() override { return std::nullopt; }  // the image's is not ours
  HelperOutcome run_cuda_helper(const HelperRequest& request) override { return m_inner.run_cuda_helper(request); }
  void start_cuda_helper(const HelperRequest& request) override { m_inner.start_cuda_helper(request); }

 private:
  // Scrubbed by Host::env like every Host's variables: an image's Env can hold a pasted token.
  std::optional<std::string> raw_env(std::string_view name) override {
    auto it = m_env.find(std::string(name));
    return it == m_env.end() ? std::nullopt : std::optional<std::string>(it->second);
  }

  Host& m_inner;
  std::map<std::string, std::string> m_env;
};

}  // namespace gd
