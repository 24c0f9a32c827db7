#pragma once
// A probe reads one area of the host through `Host` and records facts. Probes never throw for
// anything the host does: what they cannot read becomes an unknown fact with the reason.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/fact_set.hpp"
#include "core/layer.hpp"
#include "probes/target/target_gpu.hpp"
#include "sys/host.hpp"

namespace gd {

struct ProbeOptions {
  bool run_cuda_helper = true;  ///< false with --no-cuda
  /// --scope node: only what belongs to the node. The invoking user's Python environment and
  /// toolkit are not read (the report leaves out the environment's findings).
  bool node_scope = false;
  int cuda_timeout_ms = 30000;
  std::string libcuda_path;  ///< --libcuda: test this file instead of the loader's choice
  std::string libnvml_path;
  bool check_inforom = false;  ///< --check-inforom: validate each GPU's InfoROM (slow: a flash read)
  bool p2p_bandwidth = false;  ///< --p2p-bandwidth: time copies of 8 MiB for each proven pair of GPUs
  std::string python_path;  ///< --python: the interpreter (or environment folder) to check
  std::vector<std::string> extension_paths;  ///< --extension: more CUDA libraries to list the GPU code of
  /// --target-gpu and --target-driver (with --root IMAGE): a pre-flight check of an image for
  /// that host. The host layers are not read but given (probes/target).
  std::optional<TargetHost> target;
};

/// The reason of every fact --scope node leaves out.
inline constexpr std::string_view k_not_checked_node_scope = "not checked (--scope node)";

using ProbeFunction = void (*)(Host& host, const ProbeOptions& options, FactSet& facts);

/// Which runs a probe is for, besides what its layer's kind decides.
enum class ProbeRuns {
  always,          ///< every run its layer is read in
  preflight_only,  ///< a pre-flight only (--target-gpu): stands in for what the image does not have
};

struct ProbeEntry {
  /// The layer the probe reads (core/all_layers.hpp): its kind decides whether a pre-flight and
  /// --scope node run it. A reference, so that an entry cannot leave it out.
  const Layer& layer;
  std::string_view name;
  ProbeFunction run;
  ProbeRuns runs = ProbeRuns::always;
};

/// Every probe, in the order they run (explicit registry, no static-init magic).
std::span<const ProbeEntry> all_probes();

/// Whether `probe` runs with `options`: a pre-flight skips the host layers' probes (the target's
/// facts stand in) and runs its own; --scope node skips the environment layers' probes.
bool probe_runs(const ProbeEntry& probe, const ProbeOptions& options);

/// Runs every probe against `host`.
FactSet collect_facts(Host& host, const ProbeOptions& options);

/// "needs root" when a read failed with EACCES/EPERM as an ordinary user, else the errno text.
std::string unreadable_reason(const IoError& error, Host& host);

}  // namespace gd
