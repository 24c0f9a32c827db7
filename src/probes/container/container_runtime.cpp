#include "probes/container/container_runtime.hpp"

#include <array>
#include <string_view>

namespace gd {
namespace {

bool contains(std::string_view text, std::string_view needle) { return text.find(needle) != std::string_view::npos; }

// Files a runtime bind-mounts into each container from its own state folder: their "root"
// field in mountinfo names the runtime. Only these mount points are looked at, so a host that
// merely runs containers (and sees their mounts) is not taken for a container.
constexpr std::array<std::string_view, 4> k_injected_files = {"/etc/hostname", "/etc/hosts", "/etc/resolv.conf",
                                                              "/dev/termination-log"};

struct Hint {
  std::string_view needle;
  std::string_view runtime;
};

// Paths of each runtime's state folder (their documented defaults).
constexpr Hint k_path_hints[] = {
    {"/kubelet/pods/", "kubernetes"},            // /var/lib/kubelet/pods/<uid>/etc-hosts
    {"/var/lib/docker/", "docker"},              // /var/lib/docker/containers/<id>/hostname, overlay2
    {"/var/lib/containers/storage/", "podman"},  // containers/storage (Podman, CRI-O)
    {"containerd", "containerd"},                // /run/containerd/io.containerd.*, /var/lib/containerd
};

// cgroup paths the runtimes create (cgroup v1, or v2 without a cgroup namespace).
constexpr Hint k_cgroup_hints[] = {
    {"kubepods", "kubernetes"},  // kubelet: /kubepods/burstable/pod<uid>/<id>, kubepods.slice
    {"libpod", "podman"},        // /machine.slice/libpod-<id>.scope
    {"/docker", "docker"},       // /docker/<id>, /system.slice/docker-<id>.scope
    {"lxc.payload", "lxc"},      // LXC 4+: /lxc.payload.<name>
    {"/lxc/", "lxc"},            // older LXC: /lxc/<name>
    {"containerd", "containerd"},
};

bool is_injected_file(std::string_view mount_point) {
  for (std::string_view file : k_injected_files) {
    if (mount_point == file) {
      return true;
    }
  }
  return false;
}

RuntimeGuess from_mounts(const std::vector<MountEntry>& mounts) {
  for (const MountEntry& mount : mounts) {
    if (mount.fstype == "fuse.lxcfs" &&
        (mount.mount_point.starts_with("/proc/") || mount.mount_point.starts_with("/sys/"))) {
      return {"lxc", "lxcfs is mounted on " + mount.mount_point};
    }
    if (mount.mount_point.starts_with("/var/run/secrets/kubernetes.io") ||
        mount.mount_point.starts_with("/run/secrets/kubernetes.io")) {
      return {"kubernetes", "a Kubernetes service account is mounted on " + mount.mount_point};
    }
  }
  for (const Hint& hint : k_path_hints) {
    for (const MountEntry& mount : mounts) {
      if (is_injected_file(mount.mount_point) && contains(mount.root, hint.needle)) {
        return {std::string(hint.runtime), mount.mount_point + " is mounted from " + mount.root};
      }
      if (mount.mount_point == "/" && mount.fstype == "overlay" && contains(mount.super_options, hint.needle)) {
        return {std::string(hint.runtime), "the root filesystem is an overlay under " + std::string(hint.needle)};
      }
    }
  }
  return {};
}

RuntimeGuess from_cgroups(const std::vector<CgroupEntry>& cgroups) {
  for (const Hint& hint : k_cgroup_hints) {
    for (const CgroupEntry& entry : cgroups) {
      if (contains(entry.path, hint.needle)) {
        return {std::string(hint.runtime), "cgroup path " + entry.path};
      }
    }
  }
  return {};
}

}  // namespace

RuntimeGuess detect_runtime(const RuntimeTraces& traces) {
  if (traces.kubernetes_secrets) {
    return {"kubernetes", "/var/run/secrets/kubernetes.io exists"};
  }
  RuntimeGuess mounts = from_mounts(traces.mounts);
  if (mounts.runtime == "kubernetes") {
    return mounts;
  }
  RuntimeGuess cgroups = from_cgroups(traces.cgroups);
  if (cgroups.runtime == "kubernetes") {
    return cgroups;
  }
  if (traces.containerenv) {
    return {"podman", "/run/.containerenv exists"};
  }
  if (traces.dockerenv) {
    return {"docker", "/.dockerenv exists"};
  }
  if (!traces.systemd_container.empty()) {
    // systemd's container-interface: the manager writes its name ("lxc", "systemd-nspawn", ...).
    std::string name = traces.systemd_container == "lxc-libvirt" ? "lxc" : traces.systemd_container;
    return {name, "/run/systemd/container says " + traces.systemd_container};
  }
  if (traces.lxc_boot_id) {
    return {"lxc", "/dev/.lxc-boot-id exists"};
  }
  if (!mounts.runtime.empty()) {
    return mounts;
  }
  if (!cgroups.runtime.empty()) {
    return cgroups;
  }
  if (traces.wsl2) {
    return {"wsl2", "WSL2 kernel"};
  }
  return {"none", "no container trace"};
}

bool is_container_runtime(const std::string& runtime) { return runtime != "none" && runtime != "wsl2" && !runtime.empty(); }

}  // namespace gd
