#include "probes/devices/device_nodes.hpp"

#include <cerrno>

#include <fmt/format.h>

#include "core/fact_key.hpp"
#include "core/fact_catalog.hpp"
#include "probes/devices/device_access.hpp"
#include "probes/shared/account_files.hpp"
#include "probes/devices/driver_gpus.hpp"
#include "probes/devices/proc_devices.hpp"
#include "util/errno_names.hpp"

namespace gd {
namespace {

constexpr std::string_view k_proc_devices = "/proc/devices";
constexpr std::size_t k_max_proc_devices = 64 * 1024;  // a busy host's is ~1 KiB
constexpr std::size_t k_max_caps = 256;                 // MIG caps: a few per GPU instance
constexpr std::size_t k_max_etc_group = 256 * 1024;
// NV_MAJOR_DEVICE_NUMBER in kernel-open/common/inc/nv-chardev-numbers.h: fixed for nvidiaN,
// nvidiactl and nvidia-modeset; the uvm and caps majors are dynamic (alloc_chrdev_region).
constexpr int k_nvidia_major = 195;

/// The majors /proc/devices gives the NVIDIA drivers.
struct Majors {
  bool readable = false;
  std::string reason;  ///< why /proc/devices could not be read
  std::optional<int> nvidia;
  std::optional<int> uvm;
  std::optional<int> caps;
};

enum class Driver { nvidia, uvm };

struct FixedNode {
  std::string_view path;
  std::string_view fact;  ///< prefix: dev.<name>
  Driver driver;
};

constexpr FixedNode k_fixed_nodes[] = {
    {"/dev/nvidiactl", "dev.nvidiactl", Driver::nvidia},       // 195:255, the control node every client opens
    {"/dev/nvidia-uvm", "dev.uvm", Driver::uvm},               // <uvm>:0, CUDA's unified memory (not NVML)
    {"/dev/nvidia-uvm-tools", "dev.uvm_tools", Driver::uvm},   // <uvm>:1, profilers and debuggers
    {"/dev/nvidia-modeset", "dev.modeset", Driver::nvidia},    // 195:254, display only
};

/// One node as the probe saw it.
struct Checked {
  std::string path;
  IoResult<FileStat> stat = std::unexpected(IoError{ENOENT});
  std::optional<int> open;
  std::optional<std::string> state;
  std::string reason;  ///< why the state is unknown
};

std::string device_text(const FileStat& st) { return fmt::format("{}:{}", st.major, st.minor); }

Majors read_majors(Host& host) {
  Majors out;
  auto text = host.read_file(k_proc_devices, k_max_proc_devices);
  if (!text) {
    out.reason = unreadable_reason(text.error(), host);
    return out;
  }
  ProcDevices devices = parse_proc_devices(*text);
  out.readable = true;
  // nvidia.ko registers "nvidiactl" and "nvidia" (both 195, nv.c); either names the major.
  out.nvidia = character_major(devices, "nvidiactl");
  if (!out.nvidia) {
    out.nvidia = character_major(devices, "nvidia");
  }
  out.uvm = character_major(devices, "nvidia-uvm");
  out.caps = character_major(devices, "nvidia-caps");
  return out;
}

std::optional<int> expected_major(const Majors& majors, Driver driver) {
  if (driver == Driver::nvidia) {
    return majors.nvidia.value_or(k_nvidia_major);
  }
  return majors.uvm;  // unknown when nvidia-uvm is not registered: the open test then decides
}

Checked check_node(Host& host, std::string path, std::optional<int> major) {
  Checked out;
  out.path = std::move(path);
  out.stat = host.stat(out.path);
  bool openable = out.stat && out.stat->kind == FileKind::char_device && (!major || static_cast<int>(out.stat->major) == *major);
  if (openable && !host.opens_devices()) {
    // A --root tree's node, opened here, would reach the running kernel's driver (ENXIO, or
    // another machine's GPU): what stat shows is all the tree says.
    out.state = std::string(k_unopened);
    return out;
  }
  if (openable) {
    out.open = host.open_device(out.path);
  }
  out.state = node_state(out.stat, major, out.open);
  if (!out.state) {
    out.reason = out.stat ? "not opened" : unreadable_reason(out.stat.error(), host);
  }
  return out;
}

/// "/dev/nvidiactl char 195:255 0666 0:0 ok" for dev.nodes.
std::string node_line(const Checked& node) {
  std::string state = node.state.value_or("unknown (" + node.reason + ")");
  if (!node.stat) {
    return fmt::format("{} {}", node.path, state);
  }
  const FileStat& st = *node.stat;
  bool device = st.kind == FileKind::char_device || st.kind == FileKind::block_device;
  return fmt::format("{} {} {}{} {}:{} {}", node.path, to_string(st.kind), device ? device_text(st) + " " : "",
                     octal_mode(st.mode), st.uid, st.gid, state);
}

void set_fixed_node_facts(const FixedNode& spec, const Checked& node, FactSet& facts) {
  std::string prefix(spec.fact);
  std::string source(spec.path);
  if (node.state) {
    facts.set(FactName::unchecked(prefix + ".state"), *node.state, source);
  } else {
    facts.set_unknown(FactName::unchecked(prefix + ".state"), node.reason, source);
  }
  if (node.stat && node.stat->kind == FileKind::char_device) {
    facts.set(FactName::unchecked(prefix + ".device"), device_text(*node.stat), source);
    if (spec.path == "/dev/nvidia-uvm") {
      facts.set("dev.uvm.major"_fact, static_cast<std::int64_t>(node.stat->major), source);
    }
    return;
  }
  std::string note = node.state == "missing" ? "no such node" : "not a character device";
  if (!node.state) {
    facts.set_unknown(FactName::unchecked(prefix + ".device"), node.reason, source);
  } else {
    facts.set_absent(FactName::unchecked(prefix + ".device"), source, note);
  }
  if (spec.path == "/dev/nvidia-uvm") {
    if (!node.state) {
      facts.set_unknown("dev.uvm.major"_fact, node.reason, source);
    } else {
      facts.set_absent("dev.uvm.major"_fact, source, note);
    }
  }
}

void set_majors(const Majors& majors, FactSet& facts) {
  const std::string source(k_proc_devices);
  auto set = [&](FactName name, std::optional<int> value, std::string_view driver) {
    if (!majors.readable) {
      facts.set_unknown(name, majors.reason, source);
    } else if (value) {
      facts.set(name, static_cast<std::int64_t>(*value), source);
    } else {
      facts.set_absent(name, source, fmt::format("no '{}' line: the module is not loaded", driver));
    }
  };
  set("proc.devices.nvidia_major"_fact, majors.nvidia, "nvidiactl");
  set("proc.devices.uvm_major"_fact, majors.uvm, "nvidia-uvm");
  set("proc.devices.caps_major"_fact, majors.caps, "nvidia-caps");
}

/// "0660 0:44 (group video): the mode denies uid 1000" for dev.eacces_nodes.
std::string eacces_line(Host& host, const Checked& node, std::optional<std::string>& etc_group) {
  const FileStat& st = *node.stat;
  Identity user = host.identity();
  if (!etc_group) {
    auto text = host.read_file("/etc/group", k_max_etc_group);
    etc_group = text ? *text : std::string();
  }
  std::string group;
  if (auto name = account_name(*etc_group, st.gid)) {
    group = " (group " + *name + ")";
  }
  std::string verdict = mode_grants_rw(st, user)
                            ? fmt::format("the mode allows uid {}: an LSM (SELinux, AppArmor) or an ACL refused it", user.uid)
                            : fmt::format("the mode denies uid {}", user.uid);
  return fmt::format("{} {} {}:{}{}: {}", node.path, octal_mode(st.mode), st.uid, st.gid, group, verdict);
}

/// /dev/char/MAJ:MIN links: runc (systemd cgroup driver) finds device nodes through them.
void set_char_links(Host& host, const std::vector<Checked>& nodes, FactSet& facts) {
  const std::string source = "/dev/char";
  auto folder = host.stat(source);
  if (!folder) {
    facts.set_unknown("dev.char_links_missing"_fact,
                      folder.error().code == ENOENT ? "no /dev/char folder (usual inside a container; it matters on the host)"
                                                    : unreadable_reason(folder.error(), host),
                      source);
    return;
  }
  std::vector<std::string> missing;
  for (const Checked& node : nodes) {
    if (!node.stat || node.stat->kind != FileKind::char_device) {
      continue;
    }
    std::string dev = device_text(*node.stat);
    auto link = host.read_link(source + "/" + dev);
    if (!link && link.error().code == ENOENT) {
      missing.push_back(dev + " (" + node.path + ")");
    }
  }
  facts.set("dev.char_links_missing"_fact, missing, source);
}

void set_caps(Host& host, FactSet& facts) {
  const std::string folder = "/dev/nvidia-caps";
  auto names = host.list_dir(folder);
  if (!names) {
    if (names.error().code == ENOENT) {
      facts.set_absent("dev.caps_nodes"_fact, folder);
    } else {
      facts.set_unknown("dev.caps_nodes"_fact, unreadable_reason(names.error(), host), folder);
    }
    return;
  }
  std::vector<std::string> caps;
  for (const std::string& name : *names) {
    if (caps.size() >= k_max_caps) {
      break;
    }
    std::string path = folder + "/" + name;
    auto st = host.stat(path);
    if (st && st->kind == FileKind::char_device) {
      caps.push_back(fmt::format("{} {} {}", path, device_text(*st), octal_mode(st->mode)));
    }
  }
  facts.set("dev.caps_nodes"_fact, caps, folder);
}

void set_presence(Host& host, FactSet& facts) {
  auto names = host.list_dir("/dev");
  if (!names) {
    facts.set_unknown("dev.nvidia_nodes_present"_fact, unreadable_reason(names.error(), host), "/dev");
  } else {
    bool any = false;
    for (const std::string& name : *names) {
      any = any || name.starts_with("nvidia");
    }
    facts.set("dev.nvidia_nodes_present"_fact, any, "/dev");
  }
  auto dxg = host.stat("/dev/dxg");
  if (dxg) {
    facts.set("dev.dxg.present"_fact, true, "/dev/dxg");
  } else if (dxg.error().code == ENOENT) {
    facts.set("dev.dxg.present"_fact, false, "/dev/dxg");
  } else {
    facts.set_unknown("dev.dxg.present"_fact, unreadable_reason(dxg.error(), host), "/dev/dxg");
  }
}

}  // namespace

std::optional<std::string> node_state(const IoResult<FileStat>& stat, std::optional<int> expected_major,
                                      std::optional<int> open_result) {
  if (!stat) {
    if (stat.error().code == ENOENT || stat.error().code == ENOTDIR) {
      return "missing";
    }
    return std::nullopt;
  }
  if (stat->kind != FileKind::char_device) {
    return "not-char";
  }
  if (expected_major && static_cast<int>(stat->major) != *expected_major) {
    return "wrong-major";
  }
  if (!open_result) {
    return std::nullopt;
  }
  switch (*open_result) {
    case 0: return "ok";
    case EPERM: return "eperm";    // the device cgroup (devcgroup_check_permission) said no
    case EACCES: return "eacces";  // mode, ACL or LSM
    case ENXIO: return "enxio";    // no driver instance behind this number
    case ENODEV: return "enodev";
    case ENOENT: return "missing";  // removed between stat and open
    default: return "open-failed";
  }
}

void probe_device_nodes(Host& host, const ProbeOptions&, FactSet& facts) {
  Majors majors = read_majors(host);
  set_majors(majors, facts);

  // Every Linux system has /dev. Without it this is a --root tree or a capture that never
  // looked there (an image's filesystem, an older capture): its nodes say nothing.
  // A --root tree whose /dev has no /dev/null was never populated: a mounted filesystem (`mount
  // --bind /`, a disk mounted for rescue) leaves devtmpfs behind, and its empty /dev says nothing
  // about the nodes either. (Every populated /dev, a container's too, has /dev/null.)
  auto dev = host.stat("/dev");
  bool unpopulated = false;
  if (dev && !host.opens_devices()) {
    auto null_node = host.stat("/dev/null");
    unpopulated = !null_node && null_node.error().code == ENOENT;
  }
  if (!dev || unpopulated) {
    std::string reason = unpopulated                   ? "the tree's /dev is not populated (no /dev/null): devtmpfs is not mounted here"
                         : dev.error().code == ENOENT ? "no /dev in this root or capture"
                                                      : unreadable_reason(dev.error(), host);
    for (const FactSpec& spec : fact_catalog()) {
      if (spec.name.starts_with("dev.")) {
        facts.set_unknown(FactName::unchecked(spec.name), reason, "/dev");
      }
    }
    return;
  }

  std::vector<Checked> all_nodes;
  for (const FixedNode& spec : k_fixed_nodes) {
    Checked node = check_node(host, std::string(spec.path), expected_major(majors, spec.driver));
    set_fixed_node_facts(spec, node, facts);
    all_nodes.push_back(std::move(node));
  }

  // One /dev/nvidia<minor> per GPU the driver lists.
  const std::string gpus_source = "/proc/driver/nvidia/gpus";
  DriverGpus gpus = read_driver_gpus(host);
  if (gpus.error) {
    bool not_loaded = gpus.error->code == ENOENT;
    std::string reason = not_loaded ? "" : unreadable_reason(*gpus.error, host);
    if (not_loaded) {
      facts.set_absent("dev.gpu_count"_fact, gpus_source, "no /proc/driver/nvidia/gpus: the nvidia module is not loaded");
      facts.set_absent("dev.gpu_uuids"_fact, gpus_source, "the nvidia module is not loaded");
    } else {
      facts.set_unknown("dev.gpu_count"_fact, reason, gpus_source);
      facts.set_unknown("dev.gpu_uuids"_fact, reason, gpus_source);
    }
    for (FactName name : {"dev.gpu_nodes"_fact, "dev.gpu_nodes_missing"_fact, "dev.gpu_nodes_invalid"_fact, "dev.gpu_nodes_denied"_fact}) {
      if (not_loaded) {
        facts.set(name, std::vector<std::string>{}, gpus_source);  // no GPU listed: no node expected
      } else {
        facts.set_unknown(name, reason, gpus_source);
      }
    }
    if (not_loaded) {
      facts.set("dev.gpu_nodes_usable"_fact, std::int64_t{0}, gpus_source);
    } else {
      facts.set_unknown("dev.gpu_nodes_usable"_fact, reason, gpus_source);
    }
  } else {
    std::vector<std::string> uuids, present, missing, invalid, denied;
    std::int64_t usable = 0;
    std::string usable_unknown;  // why a node's open result is not known (only matters if none opened)
    if (!gpus.unreadable.empty()) {
      usable_unknown = "a GPU's information file is unreadable";
    }
    for (const DriverGpu& gpu : gpus.gpus) {
      if (!gpu.uuid.empty()) {
        uuids.push_back(gpu.uuid);
      }
      if (!gpu.device_minor) {
        usable_unknown = "a GPU's information file has no Device Minor";
        continue;
      }
      Checked node = check_node(host, fmt::format("/dev/nvidia{}", *gpu.device_minor), expected_major(majors, Driver::nvidia));
      if (node.state == "ok") {
        ++usable;
      } else if (!node.state) {
        usable_unknown = node.path + ": " + node.reason;
      } else if (node.state == k_unopened) {
        usable_unknown = node.path + ": not opened (a --root tree's nodes are not opened)";
      }
      if (node.state == "missing") {
        missing.push_back(node.path);
      } else if (node.state == "not-char") {
        invalid.push_back(node.path + " not-char");
      } else if (node.state == "wrong-major") {
        invalid.push_back(fmt::format("{} wrong-major {}", node.path, device_text(*node.stat)));
      } else if (node.stat && node.stat->kind == FileKind::char_device) {
        present.push_back(node.path + " " + device_text(*node.stat));
        if (node.open && *node.open != 0) {
          denied.push_back(node.path + " " + errno_name(*node.open));
        }
      }
      all_nodes.push_back(std::move(node));
    }
    std::string note = gpus.unreadable.empty() ? "" : " (unreadable: " + fmt::format("{}", fmt::join(gpus.unreadable, "; ")) + ")";
    facts.set("dev.gpu_count"_fact, static_cast<std::int64_t>(gpus.gpus.size() + gpus.unreadable.size()), gpus_source + note);
    facts.set("dev.gpu_uuids"_fact, uuids, gpus_source + note);
    facts.set("dev.gpu_nodes"_fact, present, gpus_source);
    facts.set("dev.gpu_nodes_missing"_fact, missing, gpus_source);
    facts.set("dev.gpu_nodes_invalid"_fact, invalid, gpus_source);
    facts.set("dev.gpu_nodes_denied"_fact, denied, gpus_source);
    // A lower bound when some node was not tested: only "none usable" needs every result.
    if (usable == 0 && !usable_unknown.empty()) {
      facts.set_unknown("dev.gpu_nodes_usable"_fact, usable_unknown, gpus_source);
    } else {
      facts.set("dev.gpu_nodes_usable"_fact, usable, gpus_source + ", open(O_RDWR|O_NONBLOCK)");
    }
  }

  // Summaries over every node checked.
  std::vector<std::string> lines, eperm, eacces;
  std::optional<std::string> etc_group;
  for (const Checked& node : all_nodes) {
    lines.push_back(node_line(node));
    if (node.state == "eperm") {
      eperm.push_back(node.path + " " + device_text(*node.stat));
    } else if (node.state == "eacces") {
      eacces.push_back(eacces_line(host, node, etc_group));
    }
  }
  facts.set("dev.nodes"_fact, lines, "/dev");
  facts.set("dev.eperm_nodes"_fact, eperm, "open(O_RDWR|O_NONBLOCK)");
  facts.set("dev.eacces_nodes"_fact, eacces, "open(O_RDWR|O_NONBLOCK)");

  set_char_links(host, all_nodes, facts);
  set_caps(host, facts);
  set_presence(host, facts);
}

}  // namespace gd
