/* One GPU's NVLink links as NVML reports them (nvml_nvlink.c): per link its state, version,
 * remote end and error counters, as `<prefix>.nvlink.…` lines (protocol 1.3). */
#ifndef GD_HELPER_NVML_NVLINK_H
#define GD_HELPER_NVML_NVLINK_H

#include "nvml_api.h"

/* Writes the lines of one GPU (prefix "nvml.device.N"); looks NVML's entry points up in `lib`
 * on its first call (NVML's thread is the only caller). */
void probe_nvml_nvlink(void* lib, nvmlDevice_t device, const char* prefix);

#endif
