/* What NVML says of each pair of GPUs (nvml_peer.h): the P2P status for reads, writes and NVLink
 * and the topology's common ancestor. These are the driver's tables, not a data path: the pair
 * proof (cuda_peer.c) is what shows whether data arrives; gpudoctor compares the two. The pairs
 * are those of the pair proof: every ordered pair for up to 8 GPUs, else each GPU with i-1, i+1. */
#define _GNU_SOURCE
#include <stdio.h>

#include "nvml_peer.h"
#include "reply.h"

/* nvmlGpuP2PCapsIndex_t in NVIDIA's nvml.h (as nvidia-ml-py's pynvml.py mirrors it):
 * NVML_P2P_CAPS_INDEX_READ = 0, NVML_P2P_CAPS_INDEX_WRITE = 1, NVML_P2P_CAPS_INDEX_NVLINK = 2.
 * The answer is an nvmlGpuP2PStatus_t: NVML_P2P_STATUS_OK = 0, CHIPSET_NOT_SUPPORED = 1,
 * GPU_NOT_SUPPORTED = 2, IOH_TOPOLOGY_NOT_SUPPORTED = 3, DISABLED_BY_REGKEY = 4, NOT_SUPPORTED = 5,
 * UNKNOWN = 6. nvmlGpuTopologyLevel_t: NVML_TOPOLOGY_INTERNAL = 0, SINGLE = 10, MULTIPLE = 20,
 * HOSTBRIDGE = 30, NODE = 40, SYSTEM = 50. */
typedef int nvmlGpuP2PStatus_t;
typedef nvmlReturn_t (*nvml_p2p_status_fn)(nvmlDevice_t, nvmlDevice_t, int, nvmlGpuP2PStatus_t*);
typedef nvmlReturn_t (*nvml_common_ancestor_fn)(nvmlDevice_t, nvmlDevice_t, int*);

enum { k_all_pairs_max_gpus = 8, k_max_peer_gpus = 64 };

static const struct { int index; const char* suffix; } k_caps[] = {
    {0, "read"},   /* NVML_P2P_CAPS_INDEX_READ */
    {1, "write"},  /* NVML_P2P_CAPS_INDEX_WRITE */
    {2, "nvlink"}, /* NVML_P2P_CAPS_INDEX_NVLINK */
};

void probe_nvml_peers(struct gd_task* task, void* lib, nvml_handle_fn handle_fn, unsigned int count) {
  if (count < 2 || handle_fn == NULL) return;
  task_stage(task, "nvml-peers");
  if (count > k_max_peer_gpus) count = k_max_peer_gpus;
  nvml_p2p_status_fn status_fn;
  nvml_common_ancestor_fn ancestor_fn;
  LOAD_FN(status_fn, lib, "nvmlDeviceGetP2PStatus");
  LOAD_FN(ancestor_fn, lib, "nvmlDeviceGetTopologyCommonAncestor");
  nvmlDevice_t devices[k_max_peer_gpus];
  for (unsigned int i = 0; i < count; ++i) {
    if (handle_fn(i, &devices[i]) != 0) devices[i] = NULL;
  }
  char prefix[48];
  for (unsigned int a = 0; a < count; ++a) {
    for (unsigned int b = 0; b < count; ++b) {
      int neighbours = a + 1 == b || b + 1 == a;
      if (a == b || (count > k_all_pairs_max_gpus && !neighbours)) continue;
      if (devices[a] == NULL || devices[b] == NULL) continue; /* the handle's failure is in nvml.device.N */
      snprintf(prefix, sizeof prefix, "nvml.peer.%u.%u", a, b);
      for (size_t c = 0; c < sizeof k_caps / sizeof k_caps[0]; ++c) {
        char key[64];
        snprintf(key, sizeof key, "%s.%s", prefix, k_caps[c].suffix);
        nvmlGpuP2PStatus_t status = 0;
        nvmlReturn_t r = status_fn ? status_fn(devices[a], devices[b], k_caps[c].index, &status) : -1;
        if (status_fn == NULL) {
          emit_missing(key, "nvmlDeviceGetP2PStatus");
        } else if (r == 0) {
          emit_int(key, status);
        } else {
          emit_sub_int(key, "result", r);
        }
      }
      if (a > b) continue; /* the common ancestor is the same both ways */
      char key[64];
      snprintf(key, sizeof key, "%s.topology", prefix);
      int level = 0;
      if (ancestor_fn == NULL) {
        emit_missing(key, "nvmlDeviceGetTopologyCommonAncestor");
      } else {
        nvmlReturn_t r = ancestor_fn(devices[a], devices[b], &level);
        r == 0 ? emit_int(key, level) : emit_sub_int(key, "result", r);
      }
    }
  }
}
