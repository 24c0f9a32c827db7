#pragma once
// The container probes (containers, container_env) read facts that earlier probes wrote: the
// module version and the device nodes. Their tests replay a capture through that same chain.

#include <utility>

#include "core/fact_set.hpp"
#include "probes/devices/device_nodes.hpp"
#include "probes/driver/nvidia_module.hpp"
#include "sys/replay_host.hpp"

namespace gd::test {

/// Replays `capture`, runs the nvidia module and device node probes, then `last(host, facts)`.
template <class LastProbe>
FactSet facts_after_module_and_nodes(Capture capture, LastProbe&& last) {
  ReplayHost host(std::move(capture));
  FactSet facts;
  probe_nvidia_module(host, ProbeOptions{}, facts);
  probe_device_nodes(host, ProbeOptions{}, facts);
  last(host, facts);
  return facts;
}

}  // namespace gd::test
