#pragma once
// IMEX channels: the /dev/nvidia-caps-imex-channels/channelN nodes through which a process may
// share GPU memory with the other nodes of a multi-node NVLink domain (GB200/GB300 NVL). The
// driver registers the character device, but nothing creates the nodes: the administrator does
// (mknod with the nvidia-caps-imex-channels major from /proc/devices), after every reboot;
// without one the CUDA calls that need it fail with an insufficient-permission error (NVIDIA
// IMEX guide, "IMEX Channels").
#include <optional>
#include <string_view>

#include "probes/probe.hpp"

namespace gd {

/// The channel's number from its node's name: "channel0" -> 0, "channel12" -> 12; anything else
/// (a stray file, "channel", "channelX") -> nullopt.
std::optional<int> imex_channel_number(std::string_view name);

/// Whether a /proc/PID/cgroup text places the process in a Kubernetes pod: cgroup v1 and v2
/// paths hold "kubepods" ("0::/kubepods.slice/kubepods-burstable.slice/...", "11:pids:/kubepods/besteffort/...").
bool cgroup_in_kubernetes_pod(std::string_view cgroup);

/// nvlink.imex.channels and nvlink.imex.channel_count, from the rooted /dev;
/// nvlink.imex.create_channel0 from /proc/driver/nvidia/params; nvlink.imex.daemon_in_pod from
/// /proc where service.imex.running is true.
void probe_imex_channels(Host& host, const ProbeOptions& options, FactSet& facts);

}  // namespace gd
