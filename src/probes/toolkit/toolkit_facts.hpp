#pragma once
// The CUDA toolkits (nvcc) on the host and the one a PyTorch extension build would use
// (probes/toolkit/cuda_toolkits). Read from files only: nvcc and gcc are never run.
#include "core/fact_catalog.hpp"

namespace gd::catalog {

using T = FactType;

inline constexpr FactSpec k_toolkit_facts[] = {
    // Every toolkit found.
    FactSpec{"toolkit.list", T::list,
             "every CUDA toolkit with an nvcc, by its real folder: 'path version (how found)', found through PATH, "
             "CUDA_HOME, CUDA_PATH, CONDA_PREFIX, /usr/local/cuda, /usr/local/cuda-*, /opt/cuda "
             "('/usr/local/cuda-13.0 13.0.88 (PATH, CUDA_HOME, /usr/local/cuda)'); the version is nvcc's where a file "
             "names it, else the toolkit's, else 'unknown: why'"},
    FactSpec{"toolkit.count", T::integer, "how many toolkits toolkit.list holds"},
    FactSpec{"toolkit.nvcc_on_path", T::string, "the first nvcc on PATH, as PATH names it (absent: none)"},
    FactSpec{"toolkit.cuda_home", T::string,
             "the toolkit folder the environment names: CUDA_HOME, or CUDA_PATH when CUDA_HOME is unset or empty "
             "(absent: neither is set)"},
    // The toolkit torch.utils.cpp_extension builds with: CUDA_HOME, CUDA_PATH, nvcc on PATH, /usr/local/cuda.
    FactSpec{"toolkit.build.path", T::string,
             "the folder an extension build (torch.utils.cpp_extension) takes as CUDA_HOME; it runs <path>/bin/nvcc "
             "(absent: it finds none)"},
    FactSpec{"toolkit.build.via", T::string, "how that folder was chosen: CUDA_HOME, CUDA_PATH, PATH or /usr/local/cuda"},
    FactSpec{"toolkit.build.has_nvcc", T::boolean, "<toolkit.build.path>/bin/nvcc exists (false: the build fails)"},
    FactSpec{"toolkit.build.root", T::string, "the real folder of the build's toolkit, links followed from its nvcc"},
    FactSpec{"toolkit.build.version", T::version,
             "version of the build's toolkit: nvcc's own (version.json cuda_nvcc, conda's cuda-nvcc record, the "
             "nvidia-cuda-nvcc wheel) when a file names it, else the toolkit's (version.json cuda, version.txt, or "
             "major.minor from include/cuda.h); the source says which. Unknown when no file says it"},
    FactSpec{"toolkit.build.host_compiler", T::string,
             "the host compiler nvcc would hand the C++ code to: gcc on PATH unless CC (torch passes it as -ccbin) or "
             "NVCC_CCBIN name another, with its major and real file ('gcc 13 (/usr/bin/x86_64-linux-gnu-gcc-13)')"},
    FactSpec{"toolkit.build.host_compiler_major", T::integer,
             "the host compiler's major version, from its real file name (gcc-13) or its lib/gcc/<triple>/<N>/ folder"},
    FactSpec{"toolkit.build.max_gcc_major", T::integer,
             "newest GCC major the build's toolkit accepts: N of '#if __GNUC__ > N' in its crt/host_config.h"},
    FactSpec{"toolkit.build.host_compiler_unsupported", T::boolean,
             "the host compiler is a gcc newer than toolkit.build.max_gcc_major: nvcc stops with 'unsupported GNU "
             "version' unless given -allow-unsupported-compiler"},
};

/// The section, as core/all_layers.hpp names it.
constexpr std::span<const FactSpec> toolkit_facts() { return k_toolkit_facts; }

}  // namespace gd::catalog
