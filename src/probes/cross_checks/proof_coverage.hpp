#pragma once
// Whether the CUDA proof covered the whole host: a rule that says a GPU cannot be used (too new
// for the driver, held by nouveau, the wrong module flavour) is refuted only when CUDA proved
// every NVIDIA GPU on the bus, not by a cuInit that worked on the others.

#include "probes/probe.hpp"

namespace gd {

/// cuda.proof.every_pci_gpu: true when the proof kernel ran right on as many GPUs as the PCI bus
/// shows NVIDIA GPUs; false when CUDA failed, or proved fewer with every GPU offered to it;
/// unknown when CUDA was not run, a count is unknown, or some GPUs were not tried (hidden by
/// CUDA_VISIBLE_DEVICES or the container's devices, in MIG mode, held by other processes).
/// Reads facts only, never the host.
void probe_proof_coverage(Host& host, const ProbeOptions& options, FactSet& facts);

}  // namespace gd
