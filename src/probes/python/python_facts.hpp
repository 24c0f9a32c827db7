#pragma once
// The Python ML stack, read from files without running Python (probes/python/python_stack,
// probes/cross_checks/ml_consistency): environments, installed distributions, torch and its compiled GPU code.
#include "core/fact_catalog.hpp"

namespace gd::catalog {

using T = FactType;

inline constexpr FactSpec k_python_facts[] = {
    // Environments
    FactSpec{"py.interpreters", T::list,
             "python3 and python on PATH, each with the file it resolves to ('/usr/bin/python3 -> /usr/bin/python3.12')"},
    FactSpec{"py.envs", T::list,
             "every Python environment found (PATH, VIRTUAL_ENV, CONDA_PREFIX, ~/.conda/environments.txt, ./.venv, "
             "--python, the system's): 'prefix (kind, python X.Y)' with its torch when it has one"},
    FactSpec{"py.not_checked", T::list,
             "pre-flight: what of the image's Python was not checked, or was checked without knowing that the image "
             "runs it (an environment found by searching /opt, /usr/local, /root, /home and /workspace that holds "
             "torch, jax, tensorflow, triton or cupy), each with the option that checks it (--python, --image-config); "
             "absent outside a pre-flight"},
    FactSpec{"py.default.interpreter", T::string,
             "the interpreter a plain `python3` would run (or --python; in a pre-flight, the environment checked)"},
    FactSpec{"py.default.prefix", T::string, "the environment that interpreter belongs to (sys.prefix)"},
    FactSpec{"py.default.kind", T::string,
             "venv, conda or system; site-packages in a pre-flight for a folder no interpreter found imports"},
    FactSpec{"py.default.via", T::string,
             "how it was chosen: --python, PATH, VIRTUAL_ENV, CONDA_PREFIX or ./.venv; in a pre-flight also 'found by "
             "searching /opt' (and the other searched folders)"},
    FactSpec{"py.default.version", T::version, "its Python version (X.Y)"},
    FactSpec{"py.default.site_dirs", T::list,
             "the folders it imports installed packages from, in sys.path order (PYTHONPATH, user site, site-packages)"},
    FactSpec{"py.dists", T::list,
             "the ML distributions it would import: 'name version (folder)' (torch, triton, nvidia-*, jax, cupy, "
             "flash-attn, xformers, vllm, ...)"},
    FactSpec{"py.shadowed", T::list,
             "distributions installed in more than one of its folders: the copy it imports and the copies it hides"},
    // torch
    FactSpec{"torch.installed", T::boolean, "the default environment imports a torch package"},
    FactSpec{"torch.version", T::string, "torch.__version__ from torch/version.py ('2.11.0+cu130')"},
    FactSpec{"torch.release", T::version, "torch's release without the local part ('2.11.0')"},
    FactSpec{"torch.cuda", T::version,
             "torch.version.cuda: the CUDA the wheel was built with ('13.0'); absent for a CPU-only or ROCm build"},
    FactSpec{"torch.hip", T::string, "torch.version.hip: the ROCm the wheel was built with (absent: not a ROCm build)"},
    FactSpec{"torch.cpu_only", T::boolean, "the torch build has neither CUDA nor ROCm (torch.version.cuda is None)"},
    FactSpec{"torch.git_version", T::string, "the commit torch was built from"},
    FactSpec{"torch.path", T::string, "the torch package folder the default interpreter imports"},
    FactSpec{"torch.copies", T::list, "every torch package folder visible to the default interpreter, in import order"},
    FactSpec{"torch.copy_count", T::integer, "how many torch installations that interpreter can see"},
    FactSpec{"torch.cuda_library", T::string, "torch/lib/libtorch_cuda.so, whose fat binaries were scanned"},
    FactSpec{"torch.sass", T::list, "GPU architectures with compiled kernels (SASS) in libtorch_cuda.so ('sm_90')"},
    FactSpec{"torch.ptx", T::list, "PTX targets in libtorch_cuda.so that newer GPUs can compile at load ('compute_120')"},
    // Coverage (probes/python/gpu_code_coverage.hpp): an architecture covers the library when at
    // least half of its fat binaries with GPU code carry it; partial ones serve a few kernels.
    FactSpec{"torch.sass_covering", T::list,
             "the architectures of torch.sass in at least half of libtorch_cuda.so's fat binaries with GPU code "
             "(torch 2.11.0+cu130: sm_75 sm_80 sm_86 sm_90 sm_100 sm_120, torch.cuda.get_arch_list()); every one "
             "of torch.sass when none reaches half. Whether torch has kernels for a GPU is decided from these"},
    FactSpec{"torch.sass_partial", T::list,
             "the architectures of torch.sass in fewer than half of those fat binaries: a few kernels added for one "
             "GPU ('sm_90a', 'sm_100a')"},
    FactSpec{"torch.ptx_covering", T::list, "the PTX targets of torch.ptx in at least half of those fat binaries"},
    FactSpec{"torch.ptx_partial", T::list, "the PTX targets of torch.ptx in fewer than half of them"},
    FactSpec{"torch.fatbin_arch_counts", T::list,
             "per architecture (SASS, then PTX), how many of libtorch_cuda.so's fat binaries with GPU code carry it: "
             "'sm_90a 4/444'"},
    FactSpec{"torch.fatbins_with_code", T::integer,
             "libtorch_cuda.so's fat binaries that hold a cubin or PTX (the count coverage is out of)"},
    FactSpec{"torch.fatbin_scan_ms", T::integer, "how long reading the fat-binary headers of libtorch_cuda.so took"},
    FactSpec{"torch.requires_unmet", T::list,
             "torch's own Requires-Dist pins (on this platform) that the installed packages do not satisfy: "
             "'nvidia-cudnn-cu12==9.10.2.21 (installed 9.1.0.70)'"},
    FactSpec{"torch.triton_pin", T::string, "the triton requirement in torch's METADATA ('triton==3.6.0')"},
    FactSpec{"torch.triton_unmet", T::string,
             "the installed triton does not satisfy torch's pin: 'triton 3.2.0 installed, torch 2.11.0 requires triton==3.6.0'"},
    // Libraries named with --extension (flash-attn's, a custom op's)
    FactSpec{"ext.*.path", T::string, "a CUDA library named with --extension"},
    FactSpec{"ext.*.sass", T::list, "GPU architectures with compiled kernels (SASS) in it"},
    FactSpec{"ext.*.ptx", T::list, "PTX targets in it"},
    FactSpec{"ext.*.sass_covering", T::list,
             "its SASS architectures in at least half of its fat binaries with GPU code (every one when none "
             "reaches half): what ml.extensions_without_kernels is decided from"},
    FactSpec{"ext.*.sass_partial", T::list, "its SASS architectures in fewer than half of them (a few kernels)"},
    FactSpec{"ext.*.ptx_covering", T::list, "its PTX targets in at least half of them"},
    FactSpec{"ext.*.ptx_partial", T::list, "its PTX targets in fewer than half of them"},
    FactSpec{"ext.*.fatbin_arch_counts", T::list,
             "per architecture (SASS, then PTX), how many of its fat binaries with GPU code carry it: 'sm_90a 1/3'"},
    FactSpec{"ext.*.fatbins_with_code", T::integer, "its fat binaries that hold a cubin or PTX"},
    FactSpec{"ml.extensions_without_kernels", T::list,
             "--extension libraries with no SASS or PTX a GPU can run among their covering architectures "
             "(ext.*.sass_covering, ext.*.ptx_covering): 'flash_attn_2_cuda.so: GPU 0 ... (sm_120)'"},
    // Other wheels
    FactSpec{"wheels.nvidia", T::list, "nvidia-* CUDA library wheels installed: 'name version'"},
    FactSpec{"wheels.cuda_families", T::list,
             "CUDA families of the nvidia-* wheels: cu12 (name ends -cu12), cu13 (-cu13, or one of the unsuffixed "
             "names torch cu130 pulls through cuda-toolkit: nvidia-cublas, nvidia-cufft, ..., whatever their version)"},
    FactSpec{"wheels.cuda_family_count", T::integer, "how many CUDA families the nvidia-* wheels mix"},
    FactSpec{"wheels.other_family", T::string,
             "names of the nvidia-* wheels of the CUDA families torch does not use (its own is cu<major of "
             "torch.cuda>), space-separated for pip uninstall, plus cuda-toolkit for a cu12 torch "
             "(absent: none, or no CUDA torch)"},
    FactSpec{"wheels.extensions_for_other_torch", T::list,
             "binary extensions built for another torch than the installed one: 'vllm 0.10.1 requires torch==2.7.1'"},
    FactSpec{"wheels.jax_cuda_major", T::integer, "the CUDA major of the installed jax CUDA plugin (jax-cuda12-plugin: 12)"},
    FactSpec{"wheels.cupy_cuda_major", T::integer, "the CUDA major of the installed cupy wheel (cupy-cuda12x: 12)"},
    // Derived: the stack against the GPUs, the driver and the toolkit (probes/cross_checks/ml_consistency)
    FactSpec{"ml.driver_cuda", T::version,
             "the CUDA version the driver supports: cuDriverGetVersion of the libcuda the helper loaded (a "
             "forward-compatibility libcuda counts), else the kernel module's branch"},
    FactSpec{"ml.gpus_without_torch_kernels", T::list,
             "GPUs for which torch has neither SASS of the same major at or below the GPU's compute capability nor "
             "PTX at or below it, among its covering architectures (torch.sass_covering, torch.ptx_covering: code "
             "in a few fat binaries does not count): 'GPU 0 NVIDIA GeForce RTX 5090 (sm_120)'"},
    FactSpec{"ml.torch_index", T::string,
             "the PyTorch wheel index whose builds carry kernels for the GPUs torch cannot run on "
             "('https://download.pytorch.org/whl/cu128')"},
    FactSpec{"ml.torch_cuda_major_above_driver", T::boolean, "torch.cuda's major is above ml.driver_cuda's"},
    FactSpec{"ml.torch_cuda_minor_above_driver", T::boolean,
             "same major, torch.cuda's minor above ml.driver_cuda's (runs; PTX JIT and Triton can fail)"},
    FactSpec{"ml.frameworks_above_driver", T::list,
             "jax and cupy builds whose CUDA major is above the driver's: 'jax-cuda13-plugin 0.7.2 (CUDA 13)'"},
    FactSpec{"ml.nvcc_vs_torch", T::string,
             "the extension-build toolkit's CUDA against torch.cuda: same, minor-differs or major-differs"},
    FactSpec{"ml.toolkit_above_driver", T::boolean,
             "the extension-build toolkit's CUDA version is above the driver's (its binaries fail with 35 or 222)"},
    FactSpec{"ml.toolkit_driver_branch", T::integer,
             "the driver branch released with the extension-build toolkit's CUDA version (570 for 12.8): what runs "
             "everything it builds, PTX JIT and its newest API calls included"},
    FactSpec{"ml.toolkit_major_driver_branch", T::integer,
             "the first driver branch of the extension-build toolkit's CUDA major (525 for 12.x, 580 for 13.x): "
             "below it what the toolkit builds fails with cudaErrorInsufficientDriver (35)"},
    FactSpec{"ml.ld_library_path_shadows_wheels", T::list,
             "CUDA libraries in LD_LIBRARY_PATH folders that the loader picks ahead of the nvidia-* wheels' own, "
             "of their major but an older minor (a newer one keeps the older one's symbols): "
             "'libnvJitLink.so.12 in /usr/local/cuda-12.1/lib64 ahead of nvidia-nvjitlink-cu12 12.8.93'"},
};

/// The section, as core/all_layers.hpp names it.
constexpr std::span<const FactSpec> python_facts() { return k_python_facts; }

}  // namespace gd::catalog
