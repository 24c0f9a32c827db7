/* The pair proof of gpudoctor-cuda-helper (cuda_part.h): peer-to-peer proven by data, not by
 * the capability tables. cuDeviceCanAccessPeer and NVML's P2P status are lookups in the driver's
 * tables; with PCIe ACS redirect and a translating IOMMU a peer write can be dropped or fault
 * while the copy returns success (NVIDIA/nccl#631, NVIDIA/cuda-samples#48). So each ordered pair
 * (source S, destination D) that claims access copies S's proven kernel output into D's memory
 * with the copy engine (cuMemcpyPeer after cuCtxEnablePeerAccess), reads it back to the host and
 * checks every element against the pattern S's kernel had to write.
 *
 * It runs beside the per-GPU proofs: each GPU's thread, once its own proof is over, offers its
 * buffer as a destination (its receive slots cleared) and then proves the pairs it is the
 * source of, waiting (bounded) for each destination to be ready. A destination that is stuck or
 * crashed, or whose own proof failed, never holds the others: its pairs are written as
 * `not_tested` with the reason. The source's steps are announced under `cuda.peer.S`, so a hang
 * or crash inside a pair is reported as `cuda.peer.S.stuck` / `.crashed` and leaves the GPU's
 * own record (`cuda.device.S.*`, finished by then) as it was.
 *
 * The buffer of each GPU (1 MiB) holds the proof's output in slot 0 (16 KiB) and one receive
 * slot per source after it: slot 1 + S for up to 8 GPUs, else slot 1 for the lower neighbour and
 * slot 2 for the upper one. No two sources write one slot. Nothing is torn down: peer access,
 * contexts and buffers go with the process, like the per-GPU proof's.
 *
 * With --p2p-bandwidth on (protocol 1.4), each GPU also offers an 8 MiB buffer, and a source times
 * copies into the destinations it proved once all its pairs are proven (cuda_peer_bandwidth.c). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_part.h"
#include "kernel_proof.h"
#include "reply.h"

enum {
  k_all_pairs_max_gpus = 8,                        /* up to 8 GPUs: every ordered pair (56) */
  k_slot_bytes = k_proof_elements * 4,             /* 16 KiB: the kernel's 4,096 elements */
  k_peer_fill = 0x0badf00d,                        /* what a receive slot holds before the copy */
  k_state_pending = 0,
  k_state_ready = 1,
  k_state_unusable = 2,
};

/* One GPU as a destination, published by its own thread. */
struct gd_peer_target {
  volatile int state;
  CUcontext context;
  CUdeviceptr buffer;
  char why[64];  /* unusable: the step its own proof failed in */
};

static struct gd_peer_target g_targets[k_max_device_tasks];
static struct gd_task* g_tasks;
static int g_count;
static int g_enabled;
static long long g_wait_until_abs_us;
static pthread_mutex_t g_peer_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_peer_changed;

static int seed_of(int index) { return (int)(0x5eed0000u + (unsigned int)index); } /* as cuda_device.c */

/* Which receive slot of `dst` the source `src` writes (see the top of the file). */
static int slot_of(int src, int dst) {
  if (g_count <= k_all_pairs_max_gpus) return 1 + src;
  return src < dst ? 1 : 2;
}

static int slot_count(void) { return g_count <= k_all_pairs_max_gpus ? g_count : 2; }

static int is_pair(int src, int dst) {
  if (src == dst || dst < 0 || dst >= g_count) return 0;
  return g_count <= k_all_pairs_max_gpus || dst == src - 1 || dst == src + 1;
}

void peer_setup(struct gd_task* tasks, int count, long long deadline_us) {
  g_tasks = tasks;
  g_count = count;
  if (count < 2) return; /* one GPU: no pairs, no lines */
  const char* switch_text = getenv("GPUDOCTOR_HELPER_PEER"); /* "off": bench/ only */
  g_enabled = switch_text == NULL || strcmp(switch_text, "off") != 0;
  emit("cuda.peer.scope", !g_enabled ? "off" : count <= k_all_pairs_max_gpus ? "all" : "neighbours");
  emit_int("cuda.peer.gpus", count);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&g_peer_changed, &attr);
  pthread_condattr_destroy(&attr);
  /* A tenth of the deadline, at most 1 s, is left for the sources to write their lines. */
  long long margin = deadline_us / 10 < 1000000 ? deadline_us / 10 : 1000000;
  g_wait_until_abs_us = g_start_us + deadline_us - margin;
  if (g_enabled && g_peer_bandwidth) peer_bandwidth_setup(tasks, g_wait_until_abs_us);
}

static void publish(int index, int state, const char* why) {
  pthread_mutex_lock(&g_peer_lock);
  if (why != NULL) snprintf(g_targets[index].why, sizeof g_targets[index].why, "%s", why);
  g_targets[index].state = state;
  pthread_cond_broadcast(&g_peer_changed);
  pthread_mutex_unlock(&g_peer_lock);
}

/* The destination clears its receive slots, so that a copy that never lands is seen (fresh
 * device memory may hold anything, even an earlier run's pattern). */
static void offer_as_destination(const struct gd_cuda_api* api, int index, int proven, const char* failed_step,
                                 CUcontext context, CUdeviceptr buffer) {
  char why[64];
  if (!proven) {
    snprintf(why, sizeof why, "its own proof failed (in %s)", failed_step);
    publish(index, k_state_unusable, why);
    return;
  }
  char key[64];
  snprintf(key, sizeof key, "cuda.peer.%d.slots", index);
  if (api->memset_d32 == NULL || api->ctx_synchronize == NULL) {
    emit_missing(key, "cuMemsetD32_v2");
    publish(index, k_state_unusable, "missing symbol cuMemsetD32_v2");
    return;
  }
  CUresult r = api->memset_d32(buffer + k_slot_bytes, k_peer_fill, (size_t)slot_count() * k_proof_elements);
  if (r == 0) r = api->ctx_synchronize();
  if (r != 0) {
    emit_sub_int(key, "result", r);
    snprintf(why, sizeof why, "its receive slots could not be cleared (%d)", r);
    publish(index, k_state_unusable, why);
    return;
  }
  g_targets[index].context = context;
  g_targets[index].buffer = buffer;
  peer_bandwidth_offer(api, index); /* --p2p-bandwidth only: its 8 MiB, before it is a destination */
  publish(index, k_state_ready, NULL);
}

/* Waits until `dst` is ready or unusable, its thread crashed, or the wait's end; 1 when ready,
 * else 0 with the reason in `why`. */
static int wait_for_destination(int dst, char* why, size_t size) {
  int state;
  pthread_mutex_lock(&g_peer_lock);
  for (;;) {
    state = g_targets[dst].state;
    if (state != k_state_pending || g_tasks[dst].crashed) break;
    long long now = now_us();
    if (now >= g_wait_until_abs_us) break;
    /* A crash does not signal the condition: look again every 20 ms, as tasks_wait does. */
    long long slice_abs = now + 20000 < g_wait_until_abs_us ? now + 20000 : g_wait_until_abs_us;
    struct timespec slice = {(time_t)(slice_abs / 1000000), (long)((slice_abs % 1000000) * 1000)};
    pthread_cond_timedwait(&g_peer_changed, &g_peer_lock, &slice);
  }
  pthread_mutex_unlock(&g_peer_lock);
  if (state == k_state_ready) return 1;
  if (state == k_state_unusable) {
    snprintf(why, size, "GPU %d: %s", dst, g_targets[dst].why);
  } else if (g_tasks[dst].crashed) {
    snprintf(why, size, "GPU %d: its thread crashed in the driver", dst);
  } else {
    const char* step = g_tasks[dst].step ? (const char*)g_tasks[dst].step : "start";
    snprintf(why, size, "GPU %d: not ready by the deadline (still in %s)", dst, step);
  }
  return 0;
}

/* Copy, wait, read back, check: the data path of one pair whose access is enabled. 1 when every
 * element arrived. */
static int copy_and_check(struct gd_task* task, const struct gd_cuda_api* api, const char* prefix, int src, int dst,
                           CUcontext context, CUdeviceptr buffer) {
  struct gd_device_work* work = task->arg;
  char key[64];
  CUdeviceptr slot = g_targets[dst].buffer + (CUdeviceptr)slot_of(src, dst) * k_slot_bytes;
  snprintf(work->peer_step, sizeof work->peer_step, "peer-copy:%d", dst);
  task_stage(task, work->peer_step);
  snprintf(key, sizeof key, "%s.copy", prefix);
  CUresult r = api->memcpy_peer(slot, g_targets[dst].context, buffer, context, k_slot_bytes);
  emit_cu_call(api, key, r);
  if (r != 0) return 0;
  /* cuMemcpyPeer may return before the copy engine is done; a peer write that faults reports
   * here, and the read-back below is ordered after it. */
  r = api->ctx_synchronize();
  snprintf(key, sizeof key, "%s.sync", prefix);
  emit_cu_call(api, key, r);
  if (r != 0) return 0;
  snprintf(work->peer_step, sizeof work->peer_step, "peer-check:%d", dst);
  task_stage(task, work->peer_step);
  static __thread uint32_t values[k_proof_elements];
  r = api->memcpy_dtoh(values, slot, sizeof values);
  snprintf(key, sizeof key, "%s.readback", prefix);
  emit_cu_call(api, key, r);
  if (r != 0) return 0;
  uint32_t seed = (uint32_t)seed_of(src);
  int wrong = proof_first_wrong(values, k_proof_elements, seed);
  snprintf(key, sizeof key, "%s.check", prefix);
  if (wrong < 0) {
    emit(key, "ok");
    return 1;
  }
  char text[32];
  emit(key, "wrong");
  emit_sub_int(key, "index", wrong);
  snprintf(text, sizeof text, "0x%08x", values[wrong]);
  emit_sub(key, "value", text);
  snprintf(text, sizeof text, "0x%08x", proof_value((uint32_t)wrong, seed));
  emit_sub(key, "expected", text);
  return 0;
}

/* One ordered pair, src -> dst, in src's thread with src's context current; 1 when proven. */
static int prove_pair(struct gd_task* task, const struct gd_cuda_api* api, int src, int dst, int proven,
                       const char* failed_step, CUcontext context, CUdeviceptr buffer) {
  struct gd_device_work* work = task->arg;
  char prefix[48], key[64], why[128];
  snprintf(prefix, sizeof prefix, "cuda.peer.%d.%d", src, dst);
  snprintf(work->peer_step, sizeof work->peer_step, "peer-access:%d", dst);
  task_stage(task, work->peer_step);
  snprintf(key, sizeof key, "%s.can_access", prefix);
  if (api->can_access_peer == NULL) {
    emit_missing(key, "cuDeviceCanAccessPeer");
    return 0;
  }
  int can = 0;
  CUresult r = api->can_access_peer(&can, src, dst);
  if (r != 0) {
    emit_cu_call(api, key, r);
    return 0;
  }
  emit_int(key, can != 0);
  if (!can) return 0; /* no access: NCCL and the frameworks go through host memory instead */
  snprintf(key, sizeof key, "%s.not_tested", prefix);
  if (!proven) {
    snprintf(why, sizeof why, "GPU %d: its own proof failed (in %s)", src, failed_step);
    emit(key, why);
    return 0;
  }
  if (api->enable_peer == NULL || api->memcpy_peer == NULL || api->ctx_synchronize == NULL ||
      api->memcpy_dtoh == NULL) {
    emit(key, api->enable_peer == NULL ? "missing symbol cuCtxEnablePeerAccess" : "missing symbol cuMemcpyPeer");
    return 0;
  }
  long long wait_start = now_us();
  snprintf(work->peer_step, sizeof work->peer_step, "peer-wait:%d", dst);
  task_stage(task, work->peer_step);
  int ready = wait_for_destination(dst, why, sizeof why);
  long long start = now_us();
  emit_sub_int(prefix, "wait_us", start - wait_start);
  if (!ready) {
    emit(key, why);
    return 0;
  }
  snprintf(work->peer_step, sizeof work->peer_step, "peer-enable:%d", dst);
  task_stage(task, work->peer_step);
  r = api->enable_peer(g_targets[dst].context, 0);
  snprintf(key, sizeof key, "%s.enable", prefix);
  emit_cu_call(api, key, r);
  int proven_pair = 0;
  if (r == 0 || r == k_cu_peer_already_enabled) {
    proven_pair = copy_and_check(task, api, prefix, src, dst, context, buffer);
  }
  emit_sub_int(prefix, "duration_us", now_us() - start);
  return proven_pair;
}

void peer_prove_outgoing(struct gd_task* task, int proven, const char* failed_step, CUcontext context,
                         CUdeviceptr buffer) {
  struct gd_device_work* work = task->arg;
  const struct gd_cuda_api* api = work->api;
  int src = work->index;
  if (g_count < 2 || !g_enabled || src >= g_count) return;
  /* From here on the thread's steps, stuck and crashed reports are the pairs'. */
  snprintf(work->peer_prefix, sizeof work->peer_prefix, "cuda.peer.%d", src);
  task->prefix = work->peer_prefix;
  task_stage(task, "offer");
  offer_as_destination(api, src, proven, failed_step, context, buffer);
  /* Destinations in the order src+1, src+2, ... (wrapping): the sources do not all queue up
   * behind GPU 0. */
  static __thread char proven_to[k_max_device_tasks];
  for (int step = 1; step < g_count; ++step) {
    int dst = (src + step) % g_count;
    proven_to[dst] = is_pair(src, dst) && prove_pair(task, api, src, dst, proven, failed_step, context, buffer);
  }
  /* --p2p-bandwidth: once every pair of this source is proven, the pairs that were proven are
   * timed (cuda_peer_bandwidth.c); the proof itself never waits for a measurement. */
  for (int step = 1; g_peer_bandwidth && step < g_count; ++step) {
    int dst = (src + step) % g_count;
    if (proven_to[dst]) peer_bandwidth_measure(task, src, dst, context, g_targets[dst].context);
  }
  task_stage(task, "done");
}
