#pragma once
// GSP firmware: the gsp_*.bin files the loaded nvidia module asks the kernel for
// ("nvidia/<version>/<name>.bin", kernel-open/nvidia/nv.c NV_FIRMWARE_FOR_NAME), looked up in the
// kernel's firmware search path, and whether the GPUs actually run it.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/probe.hpp"

namespace gd {

/// The folders the kernel searches for firmware, in its order
/// (Documentation/driver-api/firmware/fw_search_path.rst): the firmware_class.path parameter
/// when set, /lib/firmware/updates/<release>, /lib/firmware/updates, /lib/firmware/<release>,
/// /lib/firmware.
std::vector<std::string> firmware_search_dirs(std::string_view class_path, std::string_view release);

/// The GSP firmware file a GPU needs from driver `driver_version`: `file_for_530_and_later` is
/// the pci probe's answer for current drivers (gsp_ga10x.bin / gsp_tu10x.bin); older branches
/// named them differently (515-520: gsp.bin; 525: gsp_ad10x.bin for Ada, gsp_tu10x.bin for the
/// rest). Blackwell always needs gsp_ga10x.bin. Nullopt when the name is not known.
std::optional<std::string> gsp_file_for(std::string_view driver_version, std::string_view architecture,
                                        std::string_view file_for_530_and_later);

/// Whether every GPU the module lists runs GSP firmware of the module's own version.
/// `firmware_versions` are the GPU Firmware lines, `gpu_count` the GPUs listed.
bool firmware_loaded_by_all(std::string_view module_version, const std::vector<std::string>& firmware_versions,
                            std::int64_t gpu_count);

/// GSP firmware for the loaded module version, searched in the kernel's order, and the file each GPU needs.
void probe_gsp_firmware(Host& host, const ProbeOptions& options, FactSet& facts);

}  // namespace gd
