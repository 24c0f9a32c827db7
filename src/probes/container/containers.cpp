#include "probes/container/containers.hpp"

#include <cerrno>
#include <charconv>
#include <tuple>

#include "core/fact_key.hpp"
#include "probes/container/cgroups.hpp"
#include "probes/container/container_env.hpp"
#include "probes/container/container_runtime.hpp"
#include "probes/container/hypervisor.hpp"
#include "util/text_split.hpp"

namespace gd {
namespace {

constexpr std::size_t k_max_mountinfo = 1024 * 1024;  // a Kubernetes node can have thousands of mounts
constexpr std::size_t k_max_cgroup = 64 * 1024;
constexpr std::size_t k_max_devices_list = 256 * 1024;
constexpr std::size_t k_max_small = 4096;
// The first processor's "flags" line comes within its first ~2 KiB; the rest repeats it.
constexpr std::size_t k_max_cpuinfo = 16 * 1024;

/// A read that may fail: the text, or the reason it is unknown; ENOENT is `missing`.
struct Read {
  std::optional<std::string> text;
  bool missing = false;
  std::string reason;
};

Read read(Host& host, std::string_view path, std::size_t max_bytes) {
  Read out;
  auto text = host.read_file(path, max_bytes);
  if (text) {
    out.text = std::move(*text);
  } else {
    out.missing = text.error().code == ENOENT || text.error().code == ENOTDIR;
    out.reason = unreadable_reason(text.error(), host);
  }
  return out;
}

bool exists(Host& host, std::string_view path) { return static_cast<bool>(host.lstat(path)); }

std::string first_line(std::string_view text) {
  std::string_view line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\t')) line.remove_suffix(1);
  return std::string(line);
}

bool has_option(std::string_view options, std::string_view name) {
  std::size_t pos = 0;
  while (pos <= options.size()) {
    std::size_t end = options.find(',', pos);
    if (end == std::string_view::npos) end = options.size();
    if (options.substr(pos, end - pos) == name) return true;
    pos = end + 1;
  }
  return false;
}

/// The v1 devices.list of this process's cgroup: the devices mount plus the process's path
/// below the mount's root (inside a container the mount root is the container's own cgroup).
std::string devices_list_path(const std::vector<MountEntry>& mounts, const std::vector<CgroupEntry>& self) {
  for (const MountEntry& mount : mounts) {
    if (mount.fstype != "cgroup" || !has_option(mount.super_options, "devices")) {
      continue;
    }
    std::string relative;
    for (const CgroupEntry& entry : self) {
      if (has_option(entry.controllers, "devices")) {
        relative = entry.path;
      }
    }
    if (mount.root != "/" && relative.starts_with(mount.root)) {
      relative = relative.substr(mount.root.size());
    }
    std::string path = mount.mount_point;
    if (!relative.empty() && relative != "/") {
      path += relative.starts_with("/") ? relative : "/" + relative;
    }
    return path + "/devices.list";
  }
  return "/sys/fs/cgroup/devices/devices.list";
}

/// "195:255" -> {195, 255}.
std::optional<std::pair<unsigned, unsigned>> parse_device_number(std::string_view text) {
  std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  unsigned major = 0, minor = 0;
  auto a = std::from_chars(text.data(), text.data() + colon, major);
  auto b = std::from_chars(text.data() + colon + 1, text.data() + text.size(), minor);
  if (a.ec != std::errc() || b.ec != std::errc() || b.ptr != text.data() + text.size()) return std::nullopt;
  return std::pair{major, minor};
}

/// The NVIDIA nodes device_nodes found, as "path major:minor".
std::vector<std::string> nvidia_node_numbers(const FactSet& facts) {
  std::vector<std::string> out;
  for (auto [fact, path] : {std::pair{"dev.nvidiactl.device"_fact, "/dev/nvidiactl"}, std::pair{"dev.uvm.device"_fact, "/dev/nvidia-uvm"},
                            std::pair{"dev.uvm_tools.device"_fact, "/dev/nvidia-uvm-tools"}}) {
    if (auto dev = facts.get_string(fact)) {
      out.push_back(std::string(path) + " " + *dev);
    }
  }
  if (const Fact* gpus = facts.find("dev.gpu_nodes"_fact); gpus && gpus->state == FactState::present) {
    for (const std::string& line : std::get<std::vector<std::string>>(gpus->value)) {
      out.push_back(line);
    }
  }
  return out;
}

void set_cgroup_facts(Host& host, const Read& mountinfo, const std::vector<MountEntry>& mounts,
                      const std::vector<CgroupEntry>& self, const Read& self_text, FactSet& facts) {
  const std::string source = "/proc/self/mountinfo, /proc/self/cgroup";
  std::optional<std::string> version = cgroup_version(mounts, self);
  if (version) {
    facts.set("cgroup.version"_fact, *version, source);
  } else if (!mountinfo.text && !self_text.text) {
    facts.set_unknown("cgroup.version"_fact, mountinfo.reason, source);
  } else {
    facts.set_absent("cgroup.version"_fact, source, "no cgroup filesystem mounted and no cgroup line");
  }
  std::string path;
  for (const CgroupEntry& entry : self) {
    if ((entry.hierarchy == "0" && entry.controllers.empty()) || has_option(entry.controllers, "devices")) {
      path = entry.path;
    }
  }
  if (!path.empty()) {
    facts.set("cgroup.path"_fact, path, "/proc/self/cgroup");
  } else if (!self_text.text) {
    facts.set_unknown("cgroup.path"_fact, self_text.reason, "/proc/self/cgroup");
  } else {
    facts.set_absent("cgroup.path"_fact, "/proc/self/cgroup");
  }

  // The v1 device controller's allow list (v2 attaches an eBPF program nobody can list).
  if (version != "v1" && version != "hybrid") {
    facts.set_absent("cgroup.devices_list"_fact, source, "no cgroup v1 devices controller");
    facts.set_absent("cgroup.devices_list_denies"_fact, source, "no cgroup v1 devices controller");
    return;
  }
  std::string list_path = devices_list_path(mounts, self);
  Read list = read(host, list_path, k_max_devices_list);
  if (!list.text) {
    if (list.missing) {
      facts.set_absent("cgroup.devices_list"_fact, list_path, "no devices controller mounted");
      facts.set_absent("cgroup.devices_list_denies"_fact, list_path, "no devices controller mounted");
    } else {
      facts.set_unknown("cgroup.devices_list"_fact, list.reason, list_path);
      facts.set_unknown("cgroup.devices_list_denies"_fact, list.reason, list_path);
    }
    return;
  }
  std::vector<std::string> lines;
  for (std::string_view line : split_nonempty(*list.text, '\n')) lines.emplace_back(line);
  facts.set("cgroup.devices_list"_fact, lines, list_path);
  std::vector<DeviceRule> rules = parse_devices_list(*list.text);
  std::vector<std::string> denies;
  for (const std::string& node : nvidia_node_numbers(facts)) {
    auto number = parse_device_number(node.substr(node.rfind(' ') + 1));
    if (number && !devices_list_allows(rules, number->first, number->second, "rw")) {
      denies.push_back(node);
    }
  }
  facts.set("cgroup.devices_list_denies"_fact, denies, list_path);
}

void set_runtime_facts(Host& host, const std::vector<MountEntry>& mounts, std::vector<CgroupEntry> cgroups,
                       bool wsl2, FactSet& facts) {
  RuntimeTraces traces;
  traces.dockerenv = exists(host, "/.dockerenv");
  traces.containerenv = exists(host, "/run/.containerenv");
  // Only its existence: the token inside is a secret and never read.
  traces.kubernetes_secrets = exists(host, "/var/run/secrets/kubernetes.io");
  if (auto text = host.read_file("/run/systemd/container", k_max_small)) {
    traces.systemd_container = first_line(*text);
  }
  traces.lxc_boot_id = exists(host, "/dev/.lxc-boot-id");
  traces.wsl2 = wsl2;
  traces.mounts = mounts;
  if (auto pid1 = host.read_file("/proc/1/cgroup", k_max_cgroup)) {
    for (CgroupEntry& entry : parse_proc_cgroup(*pid1)) {
      cgroups.push_back(std::move(entry));
    }
  }
  traces.cgroups = std::move(cgroups);
  RuntimeGuess guess = detect_runtime(traces);
  facts.set("container.runtime"_fact, guess.runtime, guess.evidence);
  facts.set("container.runtime_evidence"_fact, guess.evidence, "container traces");
  facts.set("container.in_container"_fact, is_container_runtime(guess.runtime), guess.evidence);
}

bool set_virt_facts(Host& host, FactSet& facts) {
  Read cpuinfo = read(host, "/proc/cpuinfo", k_max_cpuinfo);
  std::optional<bool> flag = cpuinfo.text ? cpuinfo_hypervisor_flag(*cpuinfo.text) : std::nullopt;
  std::string product, vendor;
  bool dmi_readable = false;
  for (auto [path, fact, value] : {std::tuple{"/sys/class/dmi/id/product_name", "virt.dmi_product"_fact, &product},
                                   std::tuple{"/sys/class/dmi/id/sys_vendor", "virt.dmi_vendor"_fact, &vendor}}) {
    Read text = read(host, path, k_max_small);
    if (text.text) {
      *value = first_line(*text.text);
      dmi_readable = true;
      facts.set(fact, *value, path);
    } else if (text.missing) {
      facts.set_absent(fact, path, "no DMI table (Firecracker, most ARM boards, some containers)");
    } else {
      facts.set_unknown(fact, text.reason, path);
    }
  }
  VirtGuess guess = guess_virtualization(flag, dmi_hypervisor(product, vendor), dmi_readable);
  std::string source = "/proc/cpuinfo flags, /sys/class/dmi/id";
  if (guess.is_vm) {
    facts.set("virt.is_vm"_fact, *guess.is_vm, source);
    facts.set("virt.hypervisor"_fact, guess.hypervisor, source);
  } else {
    std::string reason = cpuinfo.text ? "no hypervisor flag line (not x86) and no DMI table" : cpuinfo.reason;
    facts.set_unknown("virt.is_vm"_fact, reason, source);
    facts.set_unknown("virt.hypervisor"_fact, reason, source);
  }

  Uname u = host.uname();
  Read version = read(host, "/proc/version", k_max_small);
  bool wsl2 = is_wsl2_kernel(u.release, version.text.value_or(""));
  facts.set("virt.wsl2"_fact, wsl2, "uname release, /proc/version");
  return wsl2;
}

}  // namespace

void probe_containers(Host& host, const ProbeOptions&, FactSet& facts) {
  Read mountinfo = read(host, "/proc/self/mountinfo", k_max_mountinfo);
  Read self_text = read(host, "/proc/self/cgroup", k_max_cgroup);
  std::vector<MountEntry> mounts = mountinfo.text ? parse_mountinfo(*mountinfo.text) : std::vector<MountEntry>{};
  std::vector<CgroupEntry> self = self_text.text ? parse_proc_cgroup(*self_text.text) : std::vector<CgroupEntry>{};

  set_cgroup_facts(host, mountinfo, mounts, self, self_text, facts);
  bool wsl2 = set_virt_facts(host, facts);
  set_runtime_facts(host, mounts, self, wsl2, facts);
  record_nvidia_container_env(host, facts);
}

}  // namespace gd
