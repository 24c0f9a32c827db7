#pragma once
// Which container runtime (if any) this process runs under, from the traces each one leaves.
// Never from /proc/1/environ (it may hold secrets): files the runtimes create on purpose, the
// mount table and the cgroup paths.

#include <string>
#include <vector>

#include "probes/container/cgroups.hpp"

namespace gd {

/// What the probe found; every field defaults to "no trace".
struct RuntimeTraces {
  bool dockerenv = false;           ///< /.dockerenv exists (Docker creates it in every container)
  bool containerenv = false;        ///< /run/.containerenv exists (Podman, CRI-O)
  bool kubernetes_secrets = false;  ///< /var/run/secrets/kubernetes.io exists (service account mount)
  std::string systemd_container;    ///< /run/systemd/container ("lxc", "systemd-nspawn", "docker", ...)
  bool lxc_boot_id = false;         ///< /dev/.lxc-boot-id exists (LXC's lxc_setup_boot_id)
  bool wsl2 = false;                ///< the kernel is WSL2's
  std::vector<MountEntry> mounts;   ///< /proc/self/mountinfo
  std::vector<CgroupEntry> cgroups; ///< /proc/1/cgroup and /proc/self/cgroup
};

/// container.runtime and the trace that decided it.
struct RuntimeGuess {
  std::string runtime;   ///< docker, podman, kubernetes, containerd, lxc, systemd-nspawn, wsl2, none (or /run/systemd/container's word)
  std::string evidence;  ///< "/.dockerenv exists"
};

/// Kubernetes first (a pod also carries its engine's traces, but the fix is in the pod spec),
/// then the files runtimes create on purpose, then mount and cgroup hints, then WSL2.
RuntimeGuess detect_runtime(const RuntimeTraces& traces);

/// True for runtimes that are containers (not "none", not "wsl2", which is a VM).
bool is_container_runtime(const std::string& runtime);

}  // namespace gd
