/* NVML's view of each pair of GPUs for gpudoctor-cuda-helper (nvml_peer.c): `nvml.peer.A.B.read`,
 * `.write`, `.nvlink` (nvmlDeviceGetP2PStatus) and `.topology` (nvmlDeviceGetTopologyCommonAncestor,
 * A < B only). Runs in NVML's thread after the per-device queries. */
#ifndef GD_HELPER_NVML_PEER_H
#define GD_HELPER_NVML_PEER_H

#include "nvml_api.h"
#include "tasks.h"

void probe_nvml_peers(struct gd_task* task, void* lib, nvml_handle_fn handle_fn, unsigned int count);

#endif
