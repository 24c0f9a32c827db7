#pragma once
// The NVIDIA device nodes: /dev/nvidiactl, /dev/nvidia<minor> for each GPU the driver lists,
// /dev/nvidia-uvm(-tools), /dev/nvidia-modeset, /dev/nvidia-caps/*, /dev/dxg (WSL2). Each one is
// checked for existence, type, major against /proc/devices and a non-blocking open.

#include <optional>
#include <string>
#include <string_view>

#include "probes/probe.hpp"

namespace gd {

/// The state of one node (dev.*.state): "ok", "missing", "not-char", "wrong-major", "eperm",
/// "eacces", "enxio", "enodev" or "open-failed"; nullopt when stat failed in a way that says
/// nothing (EACCES on /dev itself). `open_result` is 0 or the errno of the open test, nullopt
/// when the open was not tried. A wrong major wins over the open result: the node is not the
/// NVIDIA driver's, whatever opening it does.
/// The state of a node of a --root tree (or of a --root capture) that stat shows right (a
/// character device with the driver's major): opening it was not tried.
inline constexpr std::string_view k_unopened = "unopened";

std::optional<std::string> node_state(const IoResult<FileStat>& stat, std::optional<int> expected_major,
                                      std::optional<int> open_result);

/// proc.devices.*, dev.*.
void probe_device_nodes(Host& host, const ProbeOptions& options, FactSet& facts);

}  // namespace gd
