#include "probes/environment/environment.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/fact_key.hpp"
#include "probes/environment/nccl_conf.hpp"

namespace gd {
namespace {

struct EnvFact {
  std::string_view variable;
  FactName fact;
};

// Variables that change which libcuda loads or which GPUs CUDA sees, and NCCL's.
constexpr EnvFact k_env_facts[] = {
    {"CUDA_VISIBLE_DEVICES", "env.cuda_visible_devices"_fact},  // hides or renumbers GPUs
    {"LD_LIBRARY_PATH", "env.ld_library_path"_fact},            // can put a stub or compat libcuda first
    {"LD_PRELOAD", "env.ld_preload"_fact},                      // can inject a libcuda
    // NCCL's, checked against the host by the nccl layer (probes/nccl/nccl_env_check).
    {"NCCL_SOCKET_IFNAME", "env.nccl_socket_ifname"_fact},  // bootstrap and socket interfaces
    {"NCCL_IB_HCA", "env.nccl_ib_hca"_fact},                // RDMA devices
    {"NCCL_P2P_DISABLE", "env.nccl_p2p_disable"_fact},      // transports turned off: what each costs
    {"NCCL_SHM_DISABLE", "env.nccl_shm_disable"_fact},
    {"NCCL_IB_DISABLE", "env.nccl_ib_disable"_fact},
    {"NCCL_NVLS_ENABLE", "env.nccl_nvls_enable"_fact},
    {"NCCL_P2P_LEVEL", "env.nccl_p2p_level"_fact},
    {"NCCL_TOPO_FILE", "env.nccl_topo_file"_fact},          // must exist and be readable
    {"NCCL_DEBUG", "env.nccl_debug"_fact},                  // shown: what NCCL will print
    {"NCCL_IB_GID_INDEX", "env.nccl_ib_gid_index"_fact},        // the RoCE GID NCCL uses (probes/rdma checks it)
};

/// env.nccl_conf.files: each file NCCL would read, and what it holds.
std::vector<std::string> conf_file_lines(const std::vector<NcclConfFile>& files) {
  std::vector<std::string> out;
  for (const NcclConfFile& file : files) {
    switch (file.state) {
      case NcclConfFile::State::missing:
        out.push_back(file.path + ": none");
        break;
      case NcclConfFile::State::unreadable:
        out.push_back(file.path + ": unreadable (" + file.problem + "); NCCL run as this user skips it too");
        break;
      case NcclConfFile::State::read:
        out.push_back(fmt::format("{}: {} NCCL setting(s)", file.path, file.settings.size()));
        break;
    }
  }
  return out;
}

/// env.nccl_conf.settings: every NCCL_* line the files give, and whether NCCL applies it.
std::vector<std::string> conf_setting_lines(Host& host, const std::vector<NcclConfFile>& files) {
  std::vector<std::string> out;
  for (const NcclConfFile& file : files) {
    for (const NcclConfLine& line : file.settings) {
      std::string text = fmt::format("{}={} ({}", line.name, line.value, file.path);
      auto winner = nccl_conf_value(files, line.name);
      if (line.name.find_first_of(" \t") != std::string::npos) {
        text += "; NCCL reads no variable of this name: no spaces around '='";
      } else if (host.env(line.name)) {
        text += "; not applied: the environment sets it";
      } else if (winner && winner->path != file.path) {
        text += "; not applied: " + winner->path + " sets it first";
      }
      out.push_back(text + ")");
    }
  }
  return out;
}

}  // namespace

void probe_environment(Host& host, const ProbeOptions&, FactSet& facts) {
  // NCCL's own files: a variable the environment leaves unset takes their value (nccl_conf.hpp).
  const std::vector<NcclConfFile> files = read_nccl_conf_files(host, host.env("NCCL_CONF_FILE"));
  for (const EnvFact& entry : k_env_facts) {
    std::string source = "env:" + std::string(entry.variable);
    if (auto value = host.env(entry.variable)) {
      facts.set(entry.fact, *value, source);
    } else if (auto from_file = entry.variable.starts_with("NCCL_") ? nccl_conf_value(files, entry.variable) : std::nullopt) {
      facts.set(entry.fact, from_file->value, from_file->path);
    } else {
      facts.set_absent(entry.fact, source);
    }
  }
  std::string conf_source;
  for (const NcclConfFile& file : files) conf_source += (conf_source.empty() ? "" : ", ") + file.path;
  facts.set("env.nccl_conf.files"_fact, conf_file_lines(files), conf_source);
  bool any_read = std::ranges::any_of(files, [](const NcclConfFile& file) { return file.state == NcclConfFile::State::read; });
  if (any_read) {
    facts.set("env.nccl_conf.settings"_fact, conf_setting_lines(host, files), conf_source);
  } else {
    facts.set_absent("env.nccl_conf.settings"_fact, conf_source, "no NCCL configuration file");
  }
}

}  // namespace gd
