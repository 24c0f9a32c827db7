#include "probes/system/services.hpp"

#include <array>
#include <cerrno>
#include <optional>
#include <vector>

#include "core/fact_key.hpp"
#include "probes/shared/process_comm.hpp"
#include "probes/system/fabric_manager.hpp"
#include "probes/system/libc_version.hpp"
#include "probes/system/os_release.hpp"

#include "util/text_split.hpp"

namespace gd {
namespace {

constexpr std::size_t k_max_os_release = 64 << 10;
constexpr std::size_t k_max_proc_version = 4096;
constexpr std::size_t k_max_processes = 65536;  // /proc entries looked at; pid_max defaults to 32768 (4M at most)

// os-release(5): /etc/os-release first, /usr/lib/os-release when it is missing.
constexpr std::array<std::string_view, 2> k_os_release = {"/etc/os-release", "/usr/lib/os-release"};
constexpr std::string_view k_nixos_marker = "/etc/NIXOS";  // every NixOS system has it (nixos/modules/system/activation)

struct Daemon {
  FactName fact;
  std::string_view comm;  // /proc/PID/comm: the program name cut to 15 characters
};
constexpr std::string_view k_fabric_manager_comm = "nv-fabricmanage";
constexpr std::array<Daemon, 3> k_daemons = {{
    {"service.persistenced.running"_fact, "nvidia-persiste"},  // /usr/bin/nvidia-persistenced
    {"service.fabricmanager.running"_fact, k_fabric_manager_comm},  // /usr/bin/nv-fabricmanager (nvidia-fabricmanager.service)
    {"service.imex.running"_fact, "nvidia-imex"},  // /usr/bin/nvidia-imex (nvidia-imex.service, multi-node NVLink only)
}};

void probe_os_release(Host& host, FactSet& facts) {
  bool nixos_marker = host.stat(k_nixos_marker).has_value();
  std::string problem;
  for (std::string_view path : k_os_release) {
    auto text = host.read_file(path, k_max_os_release);
    if (!text) {
      if (problem.empty() || text.error().code != ENOENT) {
        problem = std::string(path) + ": " + unreadable_reason(text.error(), host);
      }
      continue;
    }
    std::string src(path);
    auto fields = parse_os_release(*text);
    // os-release(5): "If not set, a default of ID=linux may be used."
    std::string id = fields.contains("ID") ? fields["ID"] : "linux";
    facts.set("system.os_id"_fact, id, src);
    for (auto [key, fact] : {std::pair{"VERSION_ID", "system.os_version"_fact}, std::pair{"ID_LIKE", "system.os_like"_fact},
                             std::pair{"PRETTY_NAME", "system.os_pretty_name"_fact}}) {
      if (fields.contains(key)) {
        facts.set(fact, fields[key], src);
      } else {
        facts.set_absent(fact, src, std::string(key) + " is not set");
      }
    }
    facts.set("system.is_nixos"_fact, id == "nixos" || nixos_marker, src);
    return;
  }
  for (FactName fact : {"system.os_id"_fact, "system.os_version"_fact, "system.os_like"_fact, "system.os_pretty_name"_fact}) {
    facts.set_unknown(fact, problem, std::string(k_os_release.front()));
  }
  facts.set("system.is_nixos"_fact, nixos_marker, std::string(k_nixos_marker));
}

void probe_wsl(Host& host, FactSet& facts) {
  // WSL2 kernels are "...-microsoft-standard" or "...-microsoft-standard-WSL2"; WSL1 reports
  // "...-Microsoft" (no GPU support) (microsoft/WSL#4555, #423).
  auto is_wsl2 = [](std::string_view text) {
    return text.find("microsoft-standard") != std::string_view::npos || text.find("WSL2") != std::string_view::npos;
  };
  auto version = host.read_file("/proc/version", k_max_proc_version);
  if (version) {
    facts.set("system.is_wsl2"_fact, is_wsl2(*version), "/proc/version");
    return;
  }
  std::string release = facts.get_string("host.kernel_release"_fact).value_or(host.uname().release);
  if (!release.empty()) {
    facts.set("system.is_wsl2"_fact, is_wsl2(release), "uname");
  } else {
    facts.set_unknown("system.is_wsl2"_fact, "/proc/version: " + unreadable_reason(version.error(), host), "/proc/version");
  }
}

void probe_libc(Host& host, FactSet& facts) {
  std::string arch = facts.get_string("host.arch"_fact).value_or(host.uname().machine);
  std::string generator = facts.get_string("lib.ldcache.generator"_fact).value_or("");
  LibcInfo info = detect_libc(host, arch, generator);
  facts.set("system.libc"_fact, info.libc, info.evidence.empty() ? "glibc and musl loader paths" : info.evidence);
  if (info.libc != "glibc") {
    facts.set_absent("system.glibc_version"_fact, info.evidence, "no glibc on this host");
  } else if (info.version.empty()) {
    facts.set_unknown("system.glibc_version"_fact, "no libc-2.NN.so name, ldd script or version banner found", info.evidence);
  } else {
    facts.set("system.glibc_version"_fact, info.version, info.source);
  }
}

void probe_daemons(Host& host, FactSet& facts) {
  auto entries = host.list_dir("/proc");
  std::array<bool, k_daemons.size()> running{};
  std::size_t processes = 0;
  std::vector<std::string> pids;           // what the fabric manager's start is compared with
  std::optional<std::string> fabric_pid;  // the running nv-fabricmanager
  if (entries) {
    for (const std::string& name : *entries) {
      if (!all_digits(name) || processes >= k_max_processes) {
        continue;
      }
      ++processes;
      pids.push_back(name);
      std::optional<std::string> comm = process_comm(host, name);
      if (!comm) {
        continue;  // the process ended in between
      }
      const std::string& text = *comm;
      for (std::size_t i = 0; i < k_daemons.size(); ++i) {
        running[i] = running[i] || text == k_daemons[i].comm;
      }
      if (text == k_fabric_manager_comm && !fabric_pid) fabric_pid = name;
    }
  }
  // Inside a container the host's daemons live in another PID namespace: not seeing them
  // says nothing.
  bool in_container = facts.get_bool("container.in_container"_fact).value_or(false);
  for (std::size_t i = 0; i < k_daemons.size(); ++i) {
    const FactName fact = k_daemons[i].fact;
    if (!entries) {
      facts.set_unknown(fact, "/proc: " + unreadable_reason(entries.error(), host), "/proc");
    } else if (running[i]) {
      facts.set(fact, true, "/proc/*/comm");
    } else if (processes == 0) {
      facts.set_unknown(fact, "/proc lists no processes", "/proc");
    } else if (in_container) {
      facts.set_unknown(fact, "inside a container the host's processes are not visible", "/proc/*/comm");
    } else {
      facts.set(fact, false, "/proc/*/comm");
    }
  }
  // When it started against the jobs already on the GPUs, and the version it started as.
  probe_fabric_manager(host, facts, fabric_pid, pids);
}

}  // namespace

void probe_services(Host& host, const ProbeOptions&, FactSet& facts) {
  probe_os_release(host, facts);
  probe_wsl(host, facts);
  probe_libc(host, facts);
  probe_daemons(host, facts);
}

}  // namespace gd
