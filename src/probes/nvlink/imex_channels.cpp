#include "probes/nvlink/imex_channels.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <string>
#include <utility>
#include <vector>

#include "core/fact_key.hpp"
#include "probes/shared/nvidia_gpu_info.hpp"
#include "probes/shared/process_comm.hpp"
#include "util/text_split.hpp"

namespace gd {
namespace {

constexpr std::string_view k_folder = "/dev/nvidia-caps-imex-channels";
constexpr std::string_view k_prefix = "channel";
// The driver allows 2048 channels (NVreg_ImexChannelCount); a node normally holds one or a few.
constexpr std::size_t k_max_entries = 4096;
constexpr std::string_view k_params = "/proc/driver/nvidia/params";
constexpr std::size_t k_max_processes = 65536;  // /proc entries looked at (pid_max defaults to 32768)
constexpr std::size_t k_cgroup_bytes = 8192;

void set_create_channel0(Host& host, FactSet& facts) {
  auto name = "nvlink.imex.create_channel0"_fact;
  const std::string source(k_params);
  auto value = nvidia_param_for(host, facts, name, "CreateImexChannel0", "no CreateImexChannel0 line (a driver before the parameter)");
  if (!value) return;
  if (*value == "0" || *value == "1") {
    facts.set(name, *value == "1", source);
  } else {
    facts.set_unknown(name, "unrecognised value '" + value->substr(0, 20) + "'", source);
  }
}

/// Only on a node where nvidia-imex runs: is one of its processes in a Kubernetes pod?
void set_daemon_in_pod(Host& host, FactSet& facts) {
  auto name = "nvlink.imex.daemon_in_pod"_fact;
  const std::string source = "/proc/*/comm, /proc/*/cgroup";
  auto running = facts.get_bool("service.imex.running"_fact);
  if (running != true) {
    facts.set_absent(name, source, "nvidia-imex is not seen running here: not read");
    return;
  }
  auto entries = host.list_dir("/proc");
  if (!entries) {
    facts.set_unknown(name, unreadable_reason(entries.error(), host), "/proc");
    return;
  }
  bool in_pod = false, seen = false;
  for (std::size_t i = 0; i < entries->size() && i < k_max_processes && !in_pod; ++i) {
    const std::string& pid = (*entries)[i];
    if (!all_digits(pid) || process_comm(host, pid) != "nvidia-imex") continue;
    seen = true;
    auto cgroup = host.read_file("/proc/" + pid + "/cgroup", k_cgroup_bytes);
    in_pod = cgroup && cgroup_in_kubernetes_pod(*cgroup);
  }
  if (!seen) {
    facts.set_unknown(name, "the nvidia-imex process went away while /proc was read", source);
    return;
  }
  facts.set(name, in_pod, source);
}

}  // namespace

bool cgroup_in_kubernetes_pod(std::string_view cgroup) { return cgroup.find("kubepods") != std::string_view::npos; }

std::optional<int> imex_channel_number(std::string_view name) {
  if (!name.starts_with(k_prefix) || name.size() == k_prefix.size() || name.size() > k_prefix.size() + 9) return std::nullopt;
  std::string_view digits = name.substr(k_prefix.size());
  if (digits.front() < '0' || digits.front() > '9') return std::nullopt;  // from_chars takes a '-'
  int number = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  if (error != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
  return number;
}

void probe_imex_channels(Host& host, const ProbeOptions&, FactSet& facts) {
  set_create_channel0(host, facts);
  set_daemon_in_pod(host, facts);
  const std::string folder(k_folder);
  auto names = host.list_dir(folder);
  if (!names) {
    if (names.error().code == ENOENT) {
      // Not created (the usual case everywhere but a multi-node NVLink node that is set up).
      facts.set_absent("nvlink.imex.channels"_fact, folder, "no " + folder + " folder");
      facts.set("nvlink.imex.channel_count"_fact, std::int64_t{0}, folder);
    } else {
      std::string reason = unreadable_reason(names.error(), host);
      facts.set_unknown("nvlink.imex.channels"_fact, reason, folder);
      facts.set_unknown("nvlink.imex.channel_count"_fact, reason, folder);
    }
    return;
  }
  std::vector<std::pair<int, std::string>> channels;
  for (std::size_t i = 0; i < names->size() && i < k_max_entries; ++i) {
    const std::string& name = (*names)[i];
    auto number = imex_channel_number(name);
    if (!number) continue;
    // Only character devices open as channels (a regular file left by a script does not).
    auto st = host.stat(folder + "/" + name);
    if (st && st->kind == FileKind::char_device) channels.emplace_back(*number, name);
  }
  std::ranges::sort(channels);
  std::vector<std::string> listed;
  for (auto& [number, name] : channels) listed.push_back(std::move(name));
  facts.set("nvlink.imex.channel_count"_fact, static_cast<std::int64_t>(listed.size()), folder);
  facts.set("nvlink.imex.channels"_fact, listed, folder);
}

}  // namespace gd
