#pragma once
// The Python ML stack of the environment a plain `python3` (or --python) would use, from files
// only: which environment that is, the ML distributions it imports, torch's version.py and the
// GPU code compiled into libtorch_cuda.so, torch's own pins against what is installed, and the
// CUDA wheels' families. Python is never run: it may be what is broken.

#include "probes/probe.hpp"

namespace gd {

/// CUDA family of an nvidia-* wheel: "cu12" for nvidia-cublas-cu12, "cu13" for nvidia-cudnn-cu13
/// and for the unsuffixed CUDA 13 library wheels (nvidia-cublas 13.1.0.3, nvidia-cufft 12.0.0.61:
/// the CUDA 13 wheels dropped the suffix, their versions are the libraries' own); "" for nvidia-*
/// packages that are not CUDA libraries (nvidia-ml-py).
std::string nvidia_wheel_family(std::string_view normalized_name);

void probe_python_stack(Host& host, const ProbeOptions& options, FactSet& facts);

}  // namespace gd
