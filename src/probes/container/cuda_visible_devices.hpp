#pragma once
// CUDA_VISIBLE_DEVICES checked before CUDA runs: entries CUDA cannot parse, and entries that name
// a GPU this host (or container) does not have. CUDA's own rule (CUDA C Programming Guide,
// "CUDA Environment Variables"): a comma-separated list of indices or UUIDs ("GPU-8932f937...",
// abbreviations allowed; "MIG-<uuid>" since R470, "MIG-GPU-<uuid>/<gi>/<ci>" before); at the
// first invalid index the list ends, and only the devices before it are visible.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gd {

/// The first entry that is neither a plain index nor a GPU-/MIG- UUID, or a repeated entry
/// (PyTorch's model of the driver, torch/cuda/__init__.py _parse_visible_devices: "Repeated
/// ordinal results in empty set"); "" for an empty entry. nullopt when every entry is well
/// formed, and for an empty value (which hides every GPU on purpose).
std::optional<std::string> malformed_visible_device(std::string_view value);

/// The first entry, before any malformed one, that names no GPU here: an index >= `gpu_count`,
/// or a GPU- UUID (or prefix) that none of `uuids` starts with. MIG- entries are not checked:
/// the driver's files do not list MIG UUIDs. A UUID is only checked when `uuids` is not empty.
std::optional<std::string> absent_visible_device(std::string_view value, long gpu_count,
                                                 const std::vector<std::string>& uuids);

}  // namespace gd
