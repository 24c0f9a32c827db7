#pragma once
// The dynamic loader's view of libcuda, libnvidia-ml and libcudart (probes/libraries/libraries).
#include "core/fact_catalog.hpp"

namespace gd::catalog {

using T = FactType;

inline constexpr FactSpec k_library_facts[] = {
    // /etc/ld.so.cache and /etc/ld.so.conf
    FactSpec{"lib.ldcache.readable", T::boolean,
             "/etc/ld.so.cache was read and parsed (false: missing or not a valid cache, which the loader skips)"},
    FactSpec{"lib.ldcache.format", T::string, "ld.so.cache format: new (glibc-ld.so.cache1.1), old (ld.so-1.7.0) or compat (both)"},
    FactSpec{"lib.ldcache.generator", T::string, "the ldconfig that wrote the cache ('ldconfig (Ubuntu GLIBC 2.39-0ubuntu8.9) ...')"},
    FactSpec{"lib.ldcache.entries", T::list,
             "cache entries for libcuda, libnvidia-ml and libcudart, as ldconfig -p prints them, in the loader's order"},
    FactSpec{"lib.ld_so_conf.dirs", T::list, "folders listed by /etc/ld.so.conf and the files it includes (what ldconfig caches)"},
    // Where copies were looked for
    FactSpec{"lib.search_dirs", T::list,
             "folders listed for driver library copies, with where each is on the search path from "
             "('LD_LIBRARY_PATH /usr/local/nvidia/lib64')"},
    FactSpec{"lib.ld_library_path.unchecked", T::list,
             "LD_LIBRARY_PATH entries ahead of the prediction that cannot be checked from outside the program "
             "(empty or relative entries, $ORIGIN)"},
    FactSpec{"lib.broken_links", T::list, "driver library links on the search path whose target is missing ('link -> target')"},
    // libcuda
    FactSpec{"lib.libcuda.copies", T::list,
             "every libcuda file on the search path, links followed: 'path version' with notes (stub, compat, "
             "another ELF class)"},
    FactSpec{"lib.libcuda.versions", T::list,
             "distinct driver versions of the loadable libcuda copies on the search path (stubs and compat copies left out)"},
    FactSpec{"lib.libcuda.version_count", T::integer, "how many different driver versions lib.libcuda.versions holds"},
    FactSpec{"lib.libcuda.resolved", T::string, "predicted file for dlopen(\"libcuda.so.1\") (absent: the loader finds none)"},
    FactSpec{"lib.libcuda.resolved_real", T::string, "the predicted libcuda with every link followed"},
    FactSpec{"lib.libcuda.matches_loaded", T::boolean,
             "the predicted libcuda (lib.libcuda.resolved_real) is the file the CUDA helper really mapped (cuda.libcuda.path)"},
    FactSpec{"lib.libcuda.resolved_version", T::version, "driver version in the predicted libcuda's real file name"},
    FactSpec{"lib.libcuda.resolved_via", T::string,
             "how the loader reaches it: LD_PRELOAD, LD_LIBRARY_PATH, ld.so.cache, default, or none"},
    FactSpec{"lib.libcuda.resolved_is_stub", T::boolean, "the predicted libcuda is the CUDA toolkit's stub (under stubs/)"},
    FactSpec{"lib.libcuda.resolved_is_compat", T::boolean, "the predicted libcuda is a forward-compatibility copy (under compat/)"},
    FactSpec{"lib.libcuda.resolved_vs_module", T::string,
             "predicted libcuda's version against the loaded kernel module's: same, older or newer"},
    // libnvidia-ml and libcudart
    FactSpec{"lib.libnvidia_ml.copies", T::list, "every libnvidia-ml file on the search path: 'path version' with notes"},
    FactSpec{"lib.libnvidia_ml.resolved", T::string, "predicted file for dlopen(\"libnvidia-ml.so.1\")"},
    FactSpec{"lib.libnvidia_ml.resolved_version", T::version, "driver version in the predicted libnvidia-ml's real file name"},
    FactSpec{"lib.libnvidia_ml.resolved_vs_module", T::string,
             "predicted libnvidia-ml's version against the loaded kernel module's: same, older or newer"},
    FactSpec{"lib.libcudart.copies", T::list, "every libcudart (CUDA runtime) file on the search path: 'path version'"},
    // A driver library where the loader looks that it cannot map (probes/shared/elf_load_check)
    FactSpec{"lib.libcuda.unloadable", T::string,
             "what keeps the loader from mapping the libcuda.so.1 it finds: empty, too-short, not-elf, byte-order, "
             "not-shared-object, program-headers-cut, segments-cut, sections-cut, directory, device, or (skipped, nothing else "
             "found) wrong-class, wrong-machine, unreadable (absent: it finds a loadable one, or none)"},
    FactSpec{"lib.libcuda.unloadable_path", T::string, "that libcuda file, as the loader opens it (the file its links lead to is named in lib.libcuda.unloadable_text)"},
    FactSpec{"lib.libcuda.unloadable_size", T::integer, "that libcuda file's size in bytes"},
    FactSpec{"lib.libcuda.unloadable_text", T::string, "what is wrong with that libcuda file and what the loader does with it"},
    FactSpec{"lib.libnvidia_ml.unloadable", T::string,
             "what keeps the loader from mapping the libnvidia-ml.so.1 it finds (values as lib.libcuda.unloadable)"},
    FactSpec{"lib.libnvidia_ml.unloadable_path", T::string, "that libnvidia-ml file, as the loader finds it"},
    FactSpec{"lib.libnvidia_ml.unloadable_size", T::integer, "that libnvidia-ml file's size in bytes"},
    FactSpec{"lib.libnvidia_ml.unloadable_text", T::string, "what is wrong with that libnvidia-ml file"},
    FactSpec{"lib.libnvidia_ptxjitcompiler.unloadable", T::string,
             "what keeps the loader from mapping the libnvidia-ptxjitcompiler.so.1 (libcuda's PTX JIT compiler) it finds "
             "(values as lib.libcuda.unloadable)"},
    FactSpec{"lib.libnvidia_ptxjitcompiler.unloadable_path", T::string, "that PTX JIT compiler file, as the loader finds it"},
    FactSpec{"lib.libnvidia_ptxjitcompiler.unloadable_size", T::integer, "that PTX JIT compiler file's size in bytes"},
    FactSpec{"lib.libnvidia_ptxjitcompiler.unloadable_text", T::string, "what is wrong with that PTX JIT compiler file"},
    // libnccl.so.2: where the loader finds NCCL for a program without RPATH (the nccl layer,
    // probes/nccl, reads these instead of searching again)
    FactSpec{"lib.libnccl.resolved", T::string, "predicted file for dlopen(\"libnccl.so.2\") (absent: the loader finds none)"},
    FactSpec{"lib.libnccl.resolved_real", T::string, "the predicted libnccl with every link followed (libnccl.so.2.27.3)"},
    FactSpec{"lib.libnccl.resolved_via", T::string, "how the loader reaches it: LD_PRELOAD, LD_LIBRARY_PATH, ld.so.cache, default, or none"},
    // Places some systems keep the driver outside the usual folders
    FactSpec{"lib.nixos.opengl_driver_present", T::boolean, "/run/opengl-driver/lib exists (NixOS puts the driver's libraries there)"},
    FactSpec{"lib.wsl.present", T::boolean, "/usr/lib/wsl/lib exists (WSL2: the Windows driver's libcuda)"},
};

/// The section, as core/all_layers.hpp names it.
constexpr std::span<const FactSpec> library_facts() { return k_library_facts; }

}  // namespace gd::catalog
