#pragma once
// GSP firmware files for the loaded module (probes/driver/firmware).
#include "core/fact_catalog.hpp"

namespace gd::catalog {

using T = FactType;

inline constexpr FactSpec k_firmware_facts[] = {
    FactSpec{"firmware.class_path", T::string,
             "firmware_class.path: a folder the kernel searches first (NixOS sets it)"},
    FactSpec{"firmware.search_dirs", T::list, "the folders the kernel searches for firmware, in its order"},
    FactSpec{"firmware.version_dir", T::string, "the first nvidia/<loaded version> folder found in those"},
    FactSpec{"firmware.expected_dir", T::string, "where the loaded version's GSP firmware belongs (nvidia/<version>)"},
    FactSpec{"firmware.other_versions", T::list, "nvidia/<version> folders of other versions that were found"},
    FactSpec{"firmware.needed_files", T::list, "the gsp_*.bin the GPUs need from the loaded version (per family)"},
    FactSpec{"firmware.found_files", T::list, "where each needed file was found"},
    FactSpec{"firmware.missing_files", T::list, "needed files found in no search folder"},
    FactSpec{"firmware.loaded_by_gpus", T::boolean,
             "every GPU's information shows 'GPU Firmware' equal to the module version (GSP firmware is running)"},
};

/// The section, as core/all_layers.hpp names it.
constexpr std::span<const FactSpec> firmware_facts() { return k_firmware_facts; }

}  // namespace gd::catalog
