#pragma once
// The typed form of what gpudoctor-cuda-helper wrote on its reply pipe (protocol v1,
// docs/helper-protocol.md). Every field is optional: a helper that hung or crashed leaves a
// prefix of the reply, and each key it did not reach stays empty.

#include "core/error.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gd {

/// One driver call: `<key>.result`, `.name`, `.text`, `.error`.
struct HelperCall {
  std::optional<int> result;        ///< CUresult / nvmlReturn_t; -1 when the symbol is missing
  std::optional<std::string> name;  ///< cuGetErrorName ("CUDA_ERROR_NO_DEVICE")
  std::optional<std::string> text;  ///< cuGetErrorString / nvmlErrorString
  std::optional<std::string> error; ///< helper-side problem: "missing symbol cuInit"
};

/// The steps of one thread of the helper (a GPU's proof, NVML), each with its start time in µs
/// since the helper's main(); `last` is the step it was in when the reply ends.
struct HelperSteps {
  std::string last;
  std::vector<std::pair<std::string, std::int64_t>> starts;
};

struct HelperCudaDevice {
  int index = 0;
  std::optional<std::string> name;
  std::optional<std::string> uuid;        ///< "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
  std::optional<std::string> pci_bus_id;  ///< cuDeviceGetPCIBusId: "0000:18:00.0"
  std::optional<int> cc_major;
  std::optional<int> cc_minor;
  std::optional<std::int64_t> total_memory_bytes;
  HelperCall context;  ///< cuDevicePrimaryCtxRetain + cuCtxSetCurrent
  HelperCall alloc;    ///< cuMemAlloc_v2 of 1 MiB (protocol 1.0: + cuMemFree_v2)
  // The kernel proof (protocol 1.1): the PTX module JIT-compiled, launched, synchronized, copied.
  HelperCall module;    ///< cuModuleLoadDataEx
  std::optional<std::int64_t> module_duration_us;  ///< wall time of cuModuleLoadDataEx
  std::optional<std::int64_t> module_jit_us;       ///< CU_JIT_WALL_TIME as the driver reports it
  std::optional<std::string> module_log;           ///< the JIT error log, when it wrote one
  HelperCall function;  ///< cuModuleGetFunction (only written when it failed)
  HelperCall launch;    ///< cuLaunchKernel
  HelperCall sync;      ///< cuCtxSynchronize: where a failing kernel reports
  std::optional<std::int64_t> sync_duration_us;    ///< launch to synchronize
  HelperCall copy;      ///< cuMemcpyDtoH_v2 of the result
  std::optional<std::string> check;  ///< "ok" or "wrong"
  std::optional<std::int64_t> check_index;         ///< the first wrong element
  std::optional<std::string> check_value;          ///< what it held ("0x9e3779b1")
  std::optional<std::string> check_expected;       ///< what the kernel must have written
  std::optional<std::string> stuck;    ///< the step the GPU's thread was still in at the deadline
  std::optional<std::string> crashed;  ///< "SIGSEGV in launch": the thread crashed in libcuda
  HelperSteps steps;
};

struct HelperNvmlDevice {
  int index = 0;
  std::optional<std::string> name;
  std::optional<std::string> uuid;
  std::optional<std::string> pci_bus_id;  ///< nvmlPciInfo_t.busId: "00000000:18:00.0"
  /// The health lines (protocol 1.1) by their key after "nvml.device.N.": "ecc_mode.current" →
  /// "1", "remap.result" → "3" (a query that failed), "persistence.error" → "missing symbol ...".
  std::map<std::string, std::string, std::less<>> health;
  /// The NVLink lines (protocol 1.3) by their key after "nvml.device.N.nvlink.": "links" → "18",
  /// "3.state" → "0", "3.replay_errors" → "12", "result" → "3" (no NVLink). Kept apart from
  /// `health`: a GPU with 18 links writes about 150 of them.
  std::map<std::string, std::string, std::less<>> nvlink;
};

/// One ordered pair of the pair proof (protocol 1.3): source GPU A copied its proven kernel output
/// into destination B's memory (`cuda.peer.A.B.*`). A and B are CUDA's indices.
struct HelperPeerPair {
  int source = 0;
  int destination = 0;
  std::optional<int> can_access;  ///< cuDeviceCanAccessPeer: 1 claims access
  HelperCall can_access_call;     ///< only when cuDeviceCanAccessPeer failed
  std::optional<std::string> not_tested;  ///< why a pair that claims access was not copied
  std::optional<std::int64_t> wait_us;    ///< how long A waited for B to be ready
  HelperCall enable;    ///< cuCtxEnablePeerAccess (704: already enabled, counts as enabled)
  HelperCall copy;      ///< cuMemcpyPeer
  HelperCall sync;      ///< cuCtxSynchronize after it
  HelperCall readback;  ///< cuMemcpyDtoH_v2 of B's slot
  std::optional<std::string> check;           ///< "ok" or "wrong"
  std::optional<std::int64_t> check_index;    ///< the first wrong element
  std::optional<std::string> check_value;     ///< what B's slot held there
  std::optional<std::string> check_expected;  ///< what A's kernel wrote
  std::optional<std::int64_t> duration_us;    ///< enable to the end of the check
  // The timed copies (protocol 1.4, only with --p2p-bandwidth): `cuda.peer.A.B.bandwidth.*`.
  std::optional<std::int64_t> bandwidth_copies;     ///< timed copies of the reply's bandwidth_bytes each
  std::optional<std::int64_t> bandwidth_elapsed_ns; ///< the GPU's time for them (CUDA events)
  std::optional<std::string> bandwidth_skipped;     ///< why the pair was not timed
  std::optional<std::string> bandwidth_call;        ///< the call that failed ("cuMemcpyPeerAsync")
  HelperCall bandwidth;                             ///< its result and name
};

/// NVML's view of an ordered pair (`nvml.peer.A.B.*`, 1.3; nvml_peer.c), with NVML's indices,
/// which need not be CUDA's (match them by bus id).
struct HelperNvmlPeerPair {
  int source = 0;
  int destination = 0;
  std::optional<int> read;      ///< nvmlGpuP2PStatus_t for NVML_P2P_CAPS_INDEX_READ: 0 OK
  std::optional<int> write;     ///< ... WRITE
  std::optional<int> nvlink;    ///< ... NVLINK
  std::optional<int> topology;  ///< nvmlGpuTopologyLevel_t (A < B only): 0, 10, ... 50
  HelperCall read_call, write_call, nvlink_call, topology_call;  ///< when a query failed
};

/// A GPU's thread while it proves the pairs it is the source of (`cuda.peer.N.*`, 1.3).
struct HelperPeerSource {
  int index = 0;
  std::optional<std::string> stuck;    ///< the pair step it was still in at the deadline ("peer-copy:3")
  std::optional<std::string> crashed;  ///< "SIGSEGV in peer-copy:3"
  HelperCall slots;                    ///< clearing its receive slots failed
  HelperCall bandwidth_buffer;         ///< its 8 MiB copy buffer could not be allocated (1.4)
  HelperSteps steps;
};

/// At most this many pairs are kept (64 GPUs, every ordered pair).
inline constexpr std::size_t k_helper_max_peer_pairs = 64 * 63;

/// At most this many health keys per NVML device are kept (the helper writes about 40).
inline constexpr std::size_t k_helper_max_health_keys = 128;
/// At most this many NVLink keys per NVML device are kept (36 links of about 10 lines each).
inline constexpr std::size_t k_helper_max_nvlink_keys = 512;

struct HelperReply {
  int protocol_version = 0;  ///< major version from the header line
  int protocol_minor = 0;    ///< minor version: 1 added the kernel proof, threads and stuck GPUs
  bool complete = false;     ///< saw the `end` line: the helper got through every step
  std::string last_stage;    ///< the step it was in when the reply ends ("cuInit" for a hang there)
  /// Each step with the time it started, in µs since the helper's main() (`stage.at_us`).
  std::vector<std::pair<std::string, std::int64_t>> stage_starts;

  std::optional<bool> cuda_dlopen_ok;
  std::optional<std::string> cuda_dlerror;
  std::optional<std::string> cuda_path;  ///< realpath of the libcuda actually mapped
  HelperCall cuda_driver_version_call;
  std::optional<int> cuda_driver_version;  ///< 13000 for CUDA 13.0
  HelperCall cuda_init;
  std::optional<std::int64_t> cuda_init_duration_us;
  HelperCall cuda_device_count_call;
  std::optional<int> cuda_device_count;
  std::vector<HelperCudaDevice> cuda_devices;  ///< sorted by index
  std::optional<int> cuda_devices_not_started;  ///< GPUs above the helper's thread bound (64)
  // The pair proof (protocol 1.3); none of it with one GPU or before 1.3.
  std::optional<std::string> peer_scope;  ///< "all", "neighbours" or "off"
  std::optional<int> peer_gpus;           ///< the GPUs the pairs are drawn from
  /// The pair bandwidth (protocol 1.4): bytes per timed copy, written only with --p2p-bandwidth.
  std::optional<std::int64_t> peer_bandwidth_bytes;
  std::optional<std::int64_t> peer_bandwidth_copies;  ///< timed copies per pair at most
  std::vector<HelperPeerPair> peer_pairs;        ///< sorted by source, then destination
  std::vector<HelperPeerSource> peer_sources;    ///< sorted by index
  std::vector<HelperNvmlPeerPair> nvml_peer_pairs;  ///< sorted by source, then destination

  std::optional<bool> nvml_dlopen_ok;
  std::optional<std::string> nvml_dlerror;
  std::optional<std::string> nvml_path;
  HelperCall nvml_init;
  std::optional<std::string> nvml_driver_version;  ///< "580.159.04"
  HelperCall nvml_device_count_call;
  std::optional<int> nvml_device_count;
  std::vector<HelperNvmlDevice> nvml_devices;  ///< sorted by index
  std::optional<std::string> nvml_stuck;    ///< NVML's thread was still in this step at the deadline
  std::optional<std::string> nvml_crashed;  ///< "SIGSEGV in nvmlInit"
  HelperSteps nvml_steps;

  /// Lookups of a plain value that failed, keyed by the value's key: "cuda.device.0.uuid" →
  /// {result 999} or {result -1, error "missing symbol ..."}; "nvml.device.1" → {result 15}.
  std::map<std::string, HelperCall, std::less<>> failed_values;
};

/// The highest device index kept; larger ones are ignored (a reply cannot grow memory unbounded).
inline constexpr int k_helper_max_device_index = 1024;
/// At most this many stage times are kept.
inline constexpr std::size_t k_helper_max_stage_times = 4096;

/// Parses protocol text. Fails (Error.file "helper reply", Error.line set) on a missing or bad
/// header, an unsupported major version, or a malformed line; unknown keys are ignored, and an
/// unterminated last line (a reply cut short) is dropped.
Result<HelperReply> parse_helper_reply(std::string_view text);

}  // namespace gd
