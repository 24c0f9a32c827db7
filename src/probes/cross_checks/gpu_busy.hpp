#pragma once
// Whether a GPU that refused gpudoctor's context is broken or only busy with another job's work.
// On a shared node another process may hold all of a GPU's memory (TensorFlow's default, JAX's
// preallocation, a caching allocator at its peak: cuDevicePrimaryCtxRetain or cuMemAlloc answer
// CUDA_ERROR_OUT_OF_MEMORY, 2) or, in an exclusive compute mode, the GPU itself (46). Such a GPU
// is not proven, but it is no fault of the node: only a failure that no other process explains is.

#include "probes/probe.hpp"

namespace gd {

/// cuda.device.N.busy, cuda.context.busy / busy_count / busy_gpus (failures other processes
/// explain, as NVML lists them: 2 with another process on the GPU and less than 2 GiB of its
/// memory free, 46 in an exclusive mode with another process on it) and cuda.context.fault_count
/// / faults (the rest). A 2 or 46 on a GPU whose processes NVML could not list is neither: its
/// busy fact is unknown, and so is the fault count when no other failure is a fault. Reads facts only.
void probe_gpu_busy(Host& host, const ProbeOptions& options, FactSet& facts);

}  // namespace gd
