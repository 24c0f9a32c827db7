#include "probes/environment/nccl_conf.hpp"

#include <algorithm>
#include <cerrno>

#include "probes/shared/account_files.hpp"
#include "sys/env_allowlist.hpp"
#include "util/secret_scrub.hpp"
#include "util/text_split.hpp"

namespace gd {
namespace {

constexpr std::string_view k_system_file = "/etc/nccl.conf";
constexpr std::string_view k_user_file = ".nccl.conf";
constexpr std::size_t k_max_conf_bytes = 256 << 10;  // a few lines in practice; NCCL itself reads all
constexpr std::size_t k_nccl_buffer = 1023;          // setEnvFile's envVar/envValue: char[1024]

/// Whether gpudoctor keeps a file's line: an NCCL_* name it may report (sys/env_allowlist keeps
/// secret-looking names out, whatever their prefix).
bool reportable(std::string_view name) { return name.starts_with("NCCL_") && env_name_allowed(name); }

NcclConfFile read_one(Host& host, std::string path) {
  NcclConfFile file;
  file.path = std::move(path);
  auto text = host.read_file(file.path, k_max_conf_bytes);
  if (!text) {
    // NCCL, run as this user, cannot open it either: a missing or unreadable file adds nothing.
    file.state = text.error().code == ENOENT ? NcclConfFile::State::missing : NcclConfFile::State::unreadable;
    if (file.state == NcclConfFile::State::unreadable) file.problem = unreadable_reason(text.error(), host);
    return file;
  }
  file.state = NcclConfFile::State::read;
  for (NcclConfLine& line : parse_nccl_conf(*text)) {
    if (!reportable(line.name)) continue;
    // setenv(..., 0): a second line for the same name in one file changes nothing.
    bool seen = std::ranges::any_of(file.settings, [&](const NcclConfLine& kept) { return kept.name == line.name; });
    if (seen) continue;
    line.value = scrub_secrets(line.value);  // as every environment value is (sys/host: Host::env)
    file.settings.push_back(std::move(line));
  }
  return file;
}

}  // namespace

std::vector<NcclConfLine> parse_nccl_conf(std::string_view text) {
  std::vector<NcclConfLine> out;
  for (std::string_view line : split_lines(text)) {  // getline: "\r" stays, a last line without "\n" counts
    if (line.starts_with('#')) continue;
    std::size_t equals = line.find('=');
    if (equals == std::string_view::npos) continue;
    NcclConfLine entry;
    entry.name = std::string(line.substr(0, std::min(equals, k_nccl_buffer)));
    entry.value = std::string(line.substr(equals + 1, k_nccl_buffer));
    out.push_back(std::move(entry));
  }
  return out;
}

std::vector<NcclConfFile> read_nccl_conf_files(Host& host, const std::optional<std::string>& conf_file_env) {
  std::vector<NcclConfFile> files;
  if (conf_file_env && !conf_file_env->empty()) {
    if (conf_file_env->starts_with('/')) {
      files.push_back(read_one(host, *conf_file_env));
    } else {
      // NCCL opens it from the program's current folder, which gpudoctor does not know.
      files.push_back(NcclConfFile{*conf_file_env, NcclConfFile::State::unreadable,
                                   "a relative path: NCCL opens it from the program's current folder", {}});
    }
  } else if (auto home = home_folder(host)) {
    std::string path = *home;
    if (!path.ends_with('/')) path += '/';
    files.push_back(read_one(host, path + std::string(k_user_file)));
  }
  files.push_back(read_one(host, std::string(k_system_file)));
  return files;
}

std::optional<NcclConfValue> nccl_conf_value(const std::vector<NcclConfFile>& files, std::string_view name) {
  for (const NcclConfFile& file : files) {
    for (const NcclConfLine& line : file.settings) {
      if (line.name == name) return NcclConfValue{line.value, file.path};
    }
  }
  return std::nullopt;
}

}  // namespace gd
