/* The CUDA part of gpudoctor-cuda-helper: the driver entry points it uses, loaded once, and the
 * proof of one GPU (cuda_device.c), which runs in its own thread. */
#ifndef GD_HELPER_CUDA_PART_H
#define GD_HELPER_CUDA_PART_H

#include "cuda_api.h"
#include "tasks.h"

struct gd_cuda_api {
  cu_error_str_fn error_name;
  cu_device_get_fn device_get;
  cu_name_fn device_name;
  cu_uuid_fn device_uuid;
  cu_name_fn device_bus_id;
  cu_attr_fn device_attribute;
  cu_total_mem_fn device_total_mem;
  cu_retain_fn primary_ctx_retain;
  cu_set_current_fn ctx_set_current;
  cu_alloc_fn mem_alloc;
  cu_free_fn mem_free;
  cu_module_load_ex_fn module_load_ex;
  cu_module_function_fn module_get_function;
  cu_launch_fn launch_kernel;
  cu_sync_fn ctx_synchronize;
  cu_copy_dtoh_fn memcpy_dtoh;
  /* The pair proof (cuda_peer.c); any of them missing: the pairs say which symbol. */
  cu_can_access_peer_fn can_access_peer;
  cu_enable_peer_fn enable_peer;
  cu_copy_peer_fn memcpy_peer;
  cu_memset_d32_fn memset_d32;
  /* The optional pair bandwidth (cuda_peer_bandwidth.c); any missing: its pairs say which. */
  cu_copy_peer_async_fn memcpy_peer_async;
  cu_event_create_fn event_create;
  cu_event_record_fn event_record;
  cu_event_sync_fn event_synchronize;
  cu_event_elapsed_fn event_elapsed;
};

/* One GPU's task: its index and the loaded entry points. */
struct gd_device_work {
  const struct gd_cuda_api* api;
  int index;
  char peer_prefix[24];  /* "cuda.peer.N": the task's prefix once its own proof is done */
  char peer_step[32];    /* "peer-copy:M": outlives the step, for a stuck report */
};

/* `<key>.result` of one CUDA call, and `<key>.name` when the driver names the result. */
void emit_cu_call(const struct gd_cuda_api* api, const char* key, CUresult result);

/* Proves one GPU (the task's arg is a struct gd_device_work): properties, a primary context,
 * a 1 MiB allocation, the PTX kernel JIT-compiled, launched, synchronized, copied back and
 * checked. Contexts and modules are left to process exit: waiting for their teardown only
 * costs time (a primary context release is 53-58 ms on an H200). */
void prove_cuda_device(struct gd_task* task);

/* dlopen, cuDriverGetVersion, cuInit, cuDeviceGetCount, then one task per GPU (at most
 * k_max_device_tasks; the reply says how many were not started), waited for until
 * `deadline_us` after the helper's start. `after_init` (NVML's task) is started as soon as
 * cuInit returned, or as soon as it is clear that cuInit will not be called. */
void probe_cuda(const char* path, long long deadline_us, struct gd_task* after_init);

enum { k_max_device_tasks = 64 };

/* Where NVML's task starts: once cuInit returned (the default), once the first GPU's context
 * exists, or once every GPU's proof is over. The two later points are for bench/ only
 * (GPUDOCTOR_HELPER_NVML_START=context or proof in the helper's environment): they measure
 * what NVML beside the contexts costs. Whatever the point, the task is started exactly once,
 * also when no GPU gets that far. */
enum gd_nvml_start { k_nvml_start_init, k_nvml_start_context, k_nvml_start_proof };
void nvml_start_point_reached(enum gd_nvml_start point);

/* ---- The pair proof (cuda_peer.c): every ordered pair of GPUs copies the source's proven
 * kernel output into a receive slot of the destination's buffer with the copy engine, and the
 * slot is read back and checked element by element. ---- */

/* Before the GPUs' threads start: which pairs exist (all for up to 8 GPUs, else each GPU with
 * its neighbours i-1 and i+1), and until when a source waits for its destination to be ready
 * (a little before `deadline_us`, so the waits end before the main thread's deadline). */
void peer_setup(struct gd_task* tasks, int count, long long deadline_us);
/* Called by a GPU's thread once its own proof is over: `proven` when the kernel's output was
 * checked right, else `failed_step` names where it stopped; then `context` and `buffer` (1 MiB, the proof's output in its first 16 KiB)
 * are offered to the other GPUs as a destination, and the thread proves its outgoing pairs
 * under the prefix cuda.peer.N (a hang or crash there is that prefix's, not the GPU's). */
void peer_prove_outgoing(struct gd_task* task, int proven, const char* failed_step, CUcontext context,
                         CUdeviceptr buffer);

/* ---- The optional pair bandwidth (cuda_peer_bandwidth.c, protocol 1.4): with --p2p-bandwidth
 * on, each pair whose copy was checked right times a few copies of 8 MiB, one pair of the node
 * at a time, bounded per pair and in all. ---- */

/* Set by main() from `--p2p-bandwidth on`; 0 (the default) leaves the pair proof as it was. */
extern int g_peer_bandwidth;
/* From peer_setup, when on: writes `cuda.peer.bandwidth_bytes`; the turns end at `until_abs_us`. */
void peer_bandwidth_setup(struct gd_task* tasks, long long until_abs_us);
/* In GPU `index`'s thread before it is offered as a destination: its 8 MiB copy buffer. */
void peer_bandwidth_offer(const struct gd_cuda_api* api, int index);
/* In the source's thread, once its pairs are proven: the timed copies src -> dst. */
void peer_bandwidth_measure(struct gd_task* task, int src, int dst, CUcontext src_context, CUcontext dst_context);

#endif
