#pragma once
// The CUDA toolkits (nvcc) on the host, and the one a PyTorch extension build
// (torch.utils.cpp_extension) would compile with, together with the host compiler nvcc would
// hand the C++ side to and the newest GCC that toolkit accepts. Everything is read from files:
// gpudoctor never runs nvcc or gcc. Facts: toolkit.* (probes/toolkit/toolkit_facts.hpp).

#include "probes/probe.hpp"

namespace gd {

void probe_cuda_toolkits(Host& host, const ProbeOptions& options, FactSet& facts);

}  // namespace gd
