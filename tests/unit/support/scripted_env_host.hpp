#pragma once
// A Host that answers from another (usually a RealHost rooted at a TempTree) except for the
// environment and the working folder, which the test sets: probes that read PATH, VIRTUAL_ENV
// or CONDA_PREFIX can then be tested on a tree without touching the test process's own. It is
// the pre-flight's ImageEnvHost (the variables given) with a working folder and a fixed uname.

#include <map>
#include <optional>
#include <string>

#include "sys/image_env_host.hpp"

namespace gd::test {

class ScriptedEnvHost final : public ImageEnvHost {
 public:
  ScriptedEnvHost(Host& inner, std::map<std::string, std::string> env, std::optional<std::string> cwd = std::nullopt)
      : ImageEnvHost(inner, std::move(env)), m_cwd(std::move(cwd)) {}

  Uname uname() override { return Uname{"Linux", "test", "6.8.0", "#1", "x86_64"}; }
  std::optional<std::string> working_dir() override { return m_cwd; }

 private:
  std::optional<std::string> m_cwd;
};

}  // namespace gd::test
