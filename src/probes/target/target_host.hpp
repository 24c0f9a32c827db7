#pragma once
// Pre-flight (issue 18): `--root IMAGE --target-gpu ID --target-driver VERSION`. The host layers
// (PCI, kernel module, firmware, device nodes, kernel log) are not read from the image, which has
// none of them: they are given as the target, and every other fact of those layers is unknown
// with the reason. The image's own layers (libraries, Python, toolkit, its variables) are read
// from the tree as usual and judged against the target.

#include "probes/probe.hpp"

namespace gd {

/// The reason of every host-layer fact a pre-flight does not read.
inline constexpr std::string_view k_not_read_preflight = "not read: a pre-flight check judges an image for the target host";

/// In place of the PCI, module, firmware and device-node probes: the target GPU and driver.
void probe_target_host(Host& host, const ProbeOptions& options, FactSet& facts);

/// After the libraries probe: an image without a libcuda of its own is what the runtime expects
/// (it injects the target driver's); one with its own is judged against the target driver.
void probe_target_libraries(Host& host, const ProbeOptions& options, FactSet& facts);

/// After the container probe: the image will run in a container, started by a runtime that
/// injects the GPU's nodes and the driver's libraries.
void probe_target_container(Host& host, const ProbeOptions& options, FactSet& facts);

}  // namespace gd
