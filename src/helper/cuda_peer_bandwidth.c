/* The optional pair bandwidth of gpudoctor-cuda-helper (cuda_part.h, `--p2p-bandwidth on`,
 * protocol 1.4). The pair proof (cuda_peer.c) says whether data arrives; this says how fast, for a
 * link that works but runs far below its siblings (a PCIe link trained down, a pair routed through
 * the host instead of a switch, an NVLink pair that fell back to PCIe).
 *
 * The measurement follows the idea of NVIDIA's nvbandwidth "device to device, copy engine, write"
 * test in a smaller form: the source's context issues cuMemcpyPeerAsync of a device buffer into
 * the destination's buffer on one stream, and CUDA events recorded on that stream around the
 * copies give the GPU's own time for them (the host's clock would add the launch and wake-up
 * latencies, tens of µs against ~20 µs for 8 MiB over NVLink 4). nvbandwidth holds the stream with
 * a spin kernel while it enqueues; here one untimed copy is enqueued first, so the GPU is busy
 * with it while the start event and the timed copies are enqueued behind it.
 *
 * Bounded: 8 MiB per GPU (allocated when the GPU offers itself as a destination; a GPU whose
 * memory is taken by another job skips its pairs with the reason); one pair of the node at a time,
 * so that no two measurements share a link or a copy engine; at most 4 timed copies, fewer when a
 * first synchronous copy shows that 4 would take more than 100 ms; no pair starts after 2 s of
 * measuring, or after the time the pair proof may wait (cuda_peer.c). Nothing is freed: the
 * buffers and events go with the process, like the proof's. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cuda_part.h"
#include "reply.h"

int g_peer_bandwidth;

enum {
  k_bw_bytes = 8 << 20,          /* per copy: a few MiB, well past the copy engines' start-up cost */
  k_bw_copies = 4,               /* timed copies per pair, at most */
  k_bw_pair_cap_us = 100000,     /* the timed copies of one pair: at most about this long */
  k_bw_total_cap_us = 2000000,   /* no pair starts after this long of measuring */
};

static CUdeviceptr g_buffers[k_max_device_tasks];
static char g_buffer_why[k_max_device_tasks][96];
static int g_busy;                  /* a pair is being measured */
static int g_holder_src, g_holder_dst;  /* which one */
static struct gd_task* g_tasks;     /* the GPUs' threads: a holder that crashed gives its turn up */
static long long g_first_turn_us;   /* when the first pair started; 0 before */
static long long g_until_abs_us;    /* no turn is waited for past this */
static pthread_mutex_t g_bw_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_bw_changed;

void peer_bandwidth_setup(struct gd_task* tasks, long long until_abs_us) {
  g_tasks = tasks;
  g_until_abs_us = until_abs_us;
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&g_bw_changed, &attr);
  pthread_condattr_destroy(&attr);
  emit_int("cuda.peer.bandwidth_bytes", k_bw_bytes);
  emit_int("cuda.peer.bandwidth_copies", k_bw_copies);
}

void peer_bandwidth_offer(const struct gd_cuda_api* api, int index) {
  if (!g_peer_bandwidth || index < 0 || index >= k_max_device_tasks) return;
  CUdeviceptr buffer = 0;
  CUresult r = api->mem_alloc(&buffer, k_bw_bytes);
  if (r == 0 && buffer != 0) {
    g_buffers[index] = buffer;
    return;
  }
  char key[64];
  snprintf(key, sizeof key, "cuda.peer.%d.bandwidth_buffer", index);
  emit_cu_call(api, key, r);
  snprintf(g_buffer_why[index], sizeof g_buffer_why[index], "GPU %d: its %d MiB copy buffer could not be allocated (%d)",
           index, k_bw_bytes >> 20, r);
}

/* Waits for the node's one measuring turn; 0 with the reason when none came or the budget is spent.
 * A holder whose thread crashed in the driver (parked in the crash handler) never gives the turn
 * back: it is taken over. */
static int take_turn(int src, int dst, char* why, size_t size) {
  int got = 0;
  pthread_mutex_lock(&g_bw_lock);
  for (;;) {
    long long now = now_us();
    if (g_first_turn_us != 0 && now - g_first_turn_us > k_bw_total_cap_us) {
      snprintf(why, size, "the bandwidth budget (%d s for all pairs) was spent", k_bw_total_cap_us / 1000000);
      break;
    }
    if (g_busy && g_tasks != NULL && g_tasks[g_holder_src].crashed) g_busy = 0;
    if (!g_busy) {
      g_busy = 1;
      g_holder_src = src;
      g_holder_dst = dst;
      if (g_first_turn_us == 0) g_first_turn_us = now;
      got = 1;
      break;
    }
    if (now >= g_until_abs_us) {
      snprintf(why, size, "no turn before the deadline (GPU %d -> GPU %d was still being timed)", g_holder_src,
               g_holder_dst);
      break;
    }
    long long slice_abs = now + 20000 < g_until_abs_us ? now + 20000 : g_until_abs_us;
    struct timespec slice = {(time_t)(slice_abs / 1000000), (long)((slice_abs % 1000000) * 1000)};
    pthread_cond_timedwait(&g_bw_changed, &g_bw_lock, &slice);
  }
  pthread_mutex_unlock(&g_bw_lock);
  return got;
}

static void give_turn(void) {
  pthread_mutex_lock(&g_bw_lock);
  g_busy = 0;
  pthread_cond_broadcast(&g_bw_changed);
  pthread_mutex_unlock(&g_bw_lock);
}

static const char* missing_symbol(const struct gd_cuda_api* api) {
  if (api->memcpy_peer_async == NULL) return "cuMemcpyPeerAsync";
  if (api->event_create == NULL) return "cuEventCreate";
  if (api->event_record == NULL) return "cuEventRecord";
  if (api->event_synchronize == NULL) return "cuEventSynchronize";
  if (api->event_elapsed == NULL) return "cuEventElapsedTime_v2";
  if (api->ctx_synchronize == NULL) return "cuCtxSynchronize";
  return NULL;
}

/* The copies themselves, with the turn held; 0 or the failed call's result (`*call` names it). */
static CUresult timed_copies(const struct gd_cuda_api* api, const char* prefix, CUdeviceptr dst_buffer,
                             CUcontext dst_context, CUdeviceptr src_buffer, CUcontext src_context, const char** call) {
  /* Events belong to the context current when they are made: the source's, which this thread keeps. */
  static __thread CUevent start_event, end_event;
  CUresult r = 0;
  *call = "cuEventCreate";
  if (start_event == NULL) r = api->event_create(&start_event, 0);
  if (r == 0 && end_event == NULL) r = api->event_create(&end_event, 0);
  if (r != 0) return r;
  /* A first copy on its own: it maps the pages and says how long one copy takes. */
  long long first_start = now_us();
  *call = "cuMemcpyPeerAsync";
  r = api->memcpy_peer_async(dst_buffer, dst_context, src_buffer, src_context, k_bw_bytes, NULL);
  if (r != 0) return r;
  *call = "cuCtxSynchronize";
  r = api->ctx_synchronize();
  if (r != 0) return r;
  long long one_copy_us = now_us() - first_start;
  int copies = k_bw_copies;
  if (one_copy_us * copies > k_bw_pair_cap_us) {
    copies = one_copy_us > 0 ? (int)(k_bw_pair_cap_us / one_copy_us) : 1;
    if (copies < 1) copies = 1;
  }
  /* The lead copy keeps the GPU busy while the start event and the timed copies are enqueued. */
  *call = "cuMemcpyPeerAsync";
  r = api->memcpy_peer_async(dst_buffer, dst_context, src_buffer, src_context, k_bw_bytes, NULL);
  if (r != 0) return r;
  *call = "cuEventRecord";
  r = api->event_record(start_event, NULL);
  for (int i = 0; r == 0 && i < copies; ++i) {
    *call = "cuMemcpyPeerAsync";
    r = api->memcpy_peer_async(dst_buffer, dst_context, src_buffer, src_context, k_bw_bytes, NULL);
  }
  if (r != 0) return r;
  *call = "cuEventRecord";
  r = api->event_record(end_event, NULL);
  if (r == 0) {
    *call = "cuEventSynchronize";
    r = api->event_synchronize(end_event);
  }
  float ms = 0;
  if (r == 0) {
    *call = "cuEventElapsedTime_v2";
    r = api->event_elapsed(&ms, start_event, end_event);
  }
  if (r != 0) return r;
  char key[80];
  snprintf(key, sizeof key, "%s.copies", prefix);
  emit_int(key, copies);
  snprintf(key, sizeof key, "%s.elapsed_ns", prefix);
  emit_int(key, (long long)((double)ms * 1e6));
  return 0;
}

void peer_bandwidth_measure(struct gd_task* task, int src, int dst, CUcontext src_context, CUcontext dst_context) {
  struct gd_device_work* work = task->arg;
  const struct gd_cuda_api* api = work->api;
  char prefix[64], key[80], why[128];
  snprintf(prefix, sizeof prefix, "cuda.peer.%d.%d.bandwidth", src, dst);
  snprintf(key, sizeof key, "%s.skipped", prefix);
  const char* missing = missing_symbol(api);
  if (missing != NULL) {
    snprintf(why, sizeof why, "missing symbol %s", missing);
    emit(key, why);
    return;
  }
  if (g_buffers[src] == 0 || g_buffers[dst] == 0) {
    int without = g_buffers[src] == 0 ? src : dst;
    emit(key, g_buffer_why[without][0] != '\0' ? g_buffer_why[without] : "no copy buffer");
    return;
  }
  snprintf(work->peer_step, sizeof work->peer_step, "peer-bandwidth-wait:%d", dst);
  task_stage(task, work->peer_step);
  if (!take_turn(src, dst, why, sizeof why)) {
    emit(key, why);
    return;
  }
  snprintf(work->peer_step, sizeof work->peer_step, "peer-bandwidth:%d", dst);
  task_stage(task, work->peer_step);
  const char* call = "";
  CUresult r = timed_copies(api, prefix, g_buffers[dst], dst_context, g_buffers[src], src_context, &call);
  give_turn();
  if (r != 0) {
    snprintf(key, sizeof key, "%s.call", prefix);
    emit(key, call);
    emit_cu_call(api, prefix, r);
  }
}
