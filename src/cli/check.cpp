#include <dirent.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>

#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/pipeline.hpp"
#include "core/exit_code.hpp"
#include "cli/preflight.hpp"
#include "sys/host.hpp"
#include "sys/image_env_host.hpp"
#include "sys/real_host.hpp"

namespace gd {
namespace {

/// Why the folder `root` cannot be inspected: it cannot be listed, or it has no entries at all
/// (not even an empty folder or a dangling link); nullopt when it can.
std::optional<std::string> unusable_root(const std::string& root) {
  DIR* dir = ::opendir(root.c_str());
  if (dir == nullptr) return "cannot read the folder: " + IoError{errno}.describe();
  bool empty = true;
  errno = 0;
  while (const dirent* entry = ::readdir(dir)) {
    if (std::strcmp(entry->d_name, ".") != 0 && std::strcmp(entry->d_name, "..") != 0) {
      empty = false;
      break;
    }
  }
  int code = errno;
  ::closedir(dir);
  if (empty && code != 0) return "cannot read the folder: " + IoError{code}.describe();
  if (empty) return "the folder is empty: nothing to inspect (an image not unpacked, a file system not mounted?)";
  return std::nullopt;
}

}  // namespace

CLI::App* add_check_command(CLI::App& app) { return app.add_subcommand("check", "diagnose this host (the default)"); }

int run_check(const Options& options, const EmbeddedData& data, const std::vector<Rule>& rules) {
  bool live = options.root == "/" || options.root.empty();
  if (!live) {
    // An unreadable --root is a usage error, not an empty host.
    struct stat st {};
    if (::stat(options.root.c_str(), &st) != 0) {
      return usage_error("--root " + options.root + ": " + std::strerror(errno));
    }
    if (!S_ISDIR(st.st_mode)) {
      return usage_error("--root " + options.root + ": not a folder");
    }
    // Nothing to read is no healthy image: a CI gate must not pass an image that was never
    // unpacked, a mount that failed, or a folder it may not list.
    if (auto unusable = unusable_root(options.root)) {
      return usage_error("--root " + options.root + ": " + *unusable);
    }
  }
  RealHost real_host(options.root, data.cuda_helper);
  RunInfo run;
  run.gpudoctor_version = GD_VERSION;
  run.mode = live ? RunMode::live : RunMode::root;
  run.source = options.root;
  // A pre-flight check reads the image's variables (its configuration), never the caller's.
  std::optional<ImageEnvHost> image_host;
  if (options.probe.target) {
    auto env = image_env_for(options);
    if (!env) {
      return usage_error(env.error());
    }
    image_host.emplace(real_host, std::move(*env));
    run.mode = RunMode::preflight;
  }
  Host& host = image_host ? static_cast<Host&>(*image_host) : static_cast<Host&>(real_host);
  Report report = run_pipeline(host, options, rules, run);
  if (!print_report(report, options)) return static_cast<int>(ExitCode::usage_error);
  return exit_code_for(report, options.fail_on);
}

}  // namespace gd
