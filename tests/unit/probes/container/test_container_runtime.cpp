#include "probes/container/container_runtime.hpp"

#include <catch2/catch.hpp>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::detect_runtime;
using gd::RuntimeTraces;

TEST_CASE("container runtime: files runtimes create", "[probes][container_runtime]") {
  RuntimeTraces none;
  CHECK(detect_runtime(none).runtime == "none");
  CHECK_FALSE(gd::is_container_runtime("none"));

  RuntimeTraces docker;
  docker.dockerenv = true;
  // The real H200 container: /.dockerenv, a v2 cgroup path without a runtime name.
  docker.cgroups = gd::parse_proc_cgroup("0::/process_api/636c326387033a79cabd8cf06325d8d6\n");
  auto guess = detect_runtime(docker);
  CHECK(guess.runtime == "docker");
  CHECK(guess.evidence == "/.dockerenv exists");
  CHECK(gd::is_container_runtime(guess.runtime));

  RuntimeTraces podman;
  podman.containerenv = true;
  podman.dockerenv = true;
  CHECK(detect_runtime(podman).runtime == "podman");

  RuntimeTraces k8s;
  k8s.dockerenv = true;
  k8s.kubernetes_secrets = true;
  CHECK(detect_runtime(k8s).runtime == "kubernetes");

  RuntimeTraces nspawn;
  nspawn.systemd_container = "systemd-nspawn";
  CHECK(detect_runtime(nspawn).runtime == "systemd-nspawn");
  RuntimeTraces lxc;
  lxc.systemd_container = "lxc";
  CHECK(detect_runtime(lxc).runtime == "lxc");
  RuntimeTraces lxc_boot;
  lxc_boot.lxc_boot_id = true;
  CHECK(detect_runtime(lxc_boot).evidence == "/dev/.lxc-boot-id exists");
}

TEST_CASE("container runtime: mount and cgroup hints", "[probes][container_runtime]") {
  RuntimeTraces lxcfs;
  lxcfs.mounts = gd::parse_mountinfo(
      "1010 1001 0:52 /proc/cpuinfo /proc/cpuinfo rw,nosuid,nodev,relatime master:270 - fuse.lxcfs lxcfs "
      "rw,user_id=0,group_id=0,allow_other\n");
  CHECK(detect_runtime(lxcfs).runtime == "lxc");

  // lxcfs running on a host (Proxmox) is mounted under /var/lib/lxcfs: not a container.
  RuntimeTraces lxcfs_host;
  lxcfs_host.mounts = gd::parse_mountinfo(
      "60 29 0:52 / /var/lib/lxcfs rw,nosuid,nodev,relatime shared:270 - fuse.lxcfs lxcfs rw,user_id=0,group_id=0,allow_other\n");
  CHECK(detect_runtime(lxcfs_host).runtime == "none");

  RuntimeTraces kubelet;
  kubelet.mounts = gd::parse_mountinfo(
      "1150 1130 259:1 /var/lib/kubelet/pods/7c1d/etc-hosts /etc/hosts rw,relatime - ext4 /dev/nvme0n1p1 rw\n");
  CHECK(detect_runtime(kubelet).runtime == "kubernetes");

  RuntimeTraces containerd;
  containerd.mounts = gd::parse_mountinfo(
      "700 650 0:61 / / rw,relatime master:300 - overlay overlay rw,lowerdir=/var/lib/containerd/io.containerd."
      "snapshotter.v1.overlayfs/snapshots/12/fs,upperdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/"
      "snapshots/13/fs,workdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/13/work\n");
  CHECK(detect_runtime(containerd).runtime == "containerd");

  // A Docker host sees its containers' overlay mounts, but not as its own root: not a container.
  RuntimeTraces docker_host;
  docker_host.mounts = gd::parse_mountinfo(
      "800 29 0:70 / /var/lib/docker/overlay2/ab12/merged rw,relatime - overlay overlay "
      "rw,lowerdir=/var/lib/docker/overlay2/l/X,upperdir=/var/lib/docker/overlay2/ab12/diff\n");
  CHECK(detect_runtime(docker_host).runtime == "none");

  RuntimeTraces v1_docker;
  v1_docker.cgroups = gd::parse_proc_cgroup("12:devices:/docker/4b6f2c1e9d0a\n1:name=systemd:/docker/4b6f2c1e9d0a\n");
  CHECK(detect_runtime(v1_docker).runtime == "docker");
  RuntimeTraces v1_pod;
  v1_pod.cgroups = gd::parse_proc_cgroup("11:devices:/kubepods/burstable/pod7c1d/0a1b\n");
  CHECK(detect_runtime(v1_pod).runtime == "kubernetes");
  RuntimeTraces lxc_payload;
  lxc_payload.cgroups = gd::parse_proc_cgroup("0::/lxc.payload.gpu-ct/init.scope\n");
  CHECK(detect_runtime(lxc_payload).runtime == "lxc");
}

TEST_CASE("container runtime: WSL2 is not a container", "[probes][container_runtime]") {
  RuntimeTraces wsl;
  wsl.wsl2 = true;
  CHECK(detect_runtime(wsl).runtime == "wsl2");
  CHECK_FALSE(gd::is_container_runtime("wsl2"));
  // Docker Desktop's containers on WSL2 are Docker containers.
  wsl.dockerenv = true;
  CHECK(detect_runtime(wsl).runtime == "docker");
}

}  // namespace GD_UNITY_ID
