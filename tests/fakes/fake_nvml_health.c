/* GPU health for the fake libnvidia-ml.so.1 (fake_libnvidia_ml.c). Defaults are a healthy H200
 * as nvidia-smi -q showed it on the real one (bench/results/parallel-proof): ECC on, no errors,
 * 3072 banks with every spare row, no remapping, page retirement not supported (Hopper remaps
 * rows), recovery action none, InfoROM valid, persistence on, compute mode Default, MIG off,
 * clocks idle, P0, PCIe gen 5 x16 of gen 5 x16, no fabric, no processes. Each value can be set for
 * every GPU (FAKE_NVML_X) or for GPU N (FAKE_NVML_X_N):
 *
 *   FAKE_NVML_ECC=<current>,<pending>                 nvmlDeviceGetEccMode
 *   FAKE_NVML_UNCORRECTED=<volatile>,<aggregate>      nvmlDeviceGetTotalEccErrors (uncorrected)
 *   FAKE_NVML_REMAP=<corr>,<unc>,<pending>,<failure>  nvmlDeviceGetRemappedRows
 *   FAKE_NVML_REMAP_HISTOGRAM=<max>,<high>,<partial>,<low>,<none>
 *   FAKE_NVML_RETIRED=<sbe>,<dbe>,<pending>           page retirement (GPUs before Ampere)
 *   FAKE_NVML_RECOVERY_ACTION=<n>                     field 230 (0 none, 1 reset, 2 reboot, 3 drain p2p, 4 drain and reset)
 *   FAKE_NVML_INFOROM_RESULT=<code>                   nvmlDeviceValidateInforom (14: corrupted)
 *   FAKE_NVML_PERSISTENCE=<0|1>, FAKE_NVML_DISPLAY_ACTIVE=<0|1>, FAKE_NVML_COMPUTE_MODE=<0|2|3>,
 *   FAKE_NVML_MIG=<current>,<pending>
 *   FAKE_NVML_CLOCKS_REASONS=<bits>                   clocks event reasons (0x1 idle, 0x8 HW slowdown, ...)
 *   FAKE_NVML_PSTATE=<n>                              performance state (0 = P0)
 *   FAKE_NVML_PCIE=<gen>,<width>,<gen max>,<width max>,<GPU gen max>
 *   FAKE_NVML_FABRIC=<state>,<status>,<health mask>,<summary>   (unset: NOT_SUPPORTED, no fabric)
 *   FAKE_NVML_FABRIC_CLUSTER=<32 hex digits, dashes allowed>    its clusterUuid (default bytes 0xc0..0xcf,
 *                                                     "c0c1c2c3-c4c5-c6c7-c8c9-cacbcccdcecf")
 *   FAKE_NVML_FABRIC_CLIQUE=<n>                       its cliqueId (default 32766)
 *   FAKE_NVML_PROCESSES=<pid>,<pid>...                compute processes on the GPU
 *   FAKE_NVML_PROCESS_MIB=<mib>                       GPU memory each of them holds (default 512; -1:
 *                                                     NVML_VALUE_NOT_AVAILABLE)
 *   FAKE_NVML_MEMORY=<used MiB>,<total MiB>           nvmlDeviceGetMemoryInfo (default 0,143771: an idle H200;
 *                                                     unset, used is 1 MiB plus the processes' memory)
 *   FAKE_NVML_MIG_DEVICES=<n>                         MIG devices of a GPU in MIG mode (default 0; at most 7,
 *                                                     nvmlDeviceGetMaxMigDeviceCount answers 7 as on an H200);
 *                                                     their UUIDs are "MIG-<gpu>-<n>-..." 
 *   FAKE_NVML_NOT_SUPPORTED=<function>,...|all        those answer NVML_ERROR_NOT_SUPPORTED (3)
 *   FAKE_NVML_CORRUPTED_INFOROM=<function>,...        those answer NVML_ERROR_CORRUPTED_INFOROM (14)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st* nvmlDevice_t;

long fake_nvml_env_int(const char* name, long fallback);
void fake_nvml_enter(const char* function);
int fake_nvml_device_index(nvmlDevice_t device);
int fake_nvml_nvlink_field(int gpu, unsigned int field, unsigned int link, unsigned long long* value);

enum { k_ok = 0, k_invalid_argument = 2, k_not_supported = 3, k_insufficient_size = 7 };

/* FAKE_NVML_<name>_<index>, else FAKE_NVML_<name>; NULL when neither is set. */
static const char* device_env(const char* name, int index) {
  char key[96];
  snprintf(key, sizeof key, "FAKE_NVML_%s_%d", name, index);
  const char* value = getenv(key);
  if (value == NULL) {
    snprintf(key, sizeof key, "FAKE_NVML_%s", name);
    value = getenv(key);
  }
  return value;
}

/* Up to `count` comma-separated numbers of the variable into `out` (defaults kept). */
static void device_numbers(const char* name, int index, long long* out, int count) {
  const char* text = device_env(name, index);
  for (int i = 0; text != NULL && *text != '\0' && i < count; ++i) {
    char* end = NULL;
    out[i] = strtoll(text, &end, 0);
    text = (end != NULL && *end == ',') ? end + 1 : NULL;
  }
}

/* The GPU's index, or -1 with *result set for calls that cannot be answered. */
static int begin(const char* function, nvmlDevice_t device, nvmlReturn_t* result) {
  fake_nvml_enter(function);
  int index = fake_nvml_device_index(device);
  const char* unsupported = getenv("FAKE_NVML_NOT_SUPPORTED");
  if (index < 0) {
    *result = k_invalid_argument;
    return -1;
  }
  if (unsupported != NULL && (strcmp(unsupported, "all") == 0 || strstr(unsupported, function) != NULL)) {
    *result = k_not_supported;
    return -1;
  }
  const char* corrupted = getenv("FAKE_NVML_CORRUPTED_INFOROM");
  if (corrupted != NULL && strstr(corrupted, function) != NULL) {
    *result = 14;
    return -1;
  }
  *result = k_ok;
  return index;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, int* current, int* pending) {
  nvmlReturn_t r;
  int i = begin("nvmlDeviceGetEccMode", device, &r);
  if (i < 0) return r;
  long long v[2] = {1, 1};
  device_numbers("ECC", i, v, 2);
  *current = (int)v[0], *pending = (int)v[1];
  return k_ok;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, int type, int counter, unsigned long long* count) {
  nvmlReturn_t r;
  int i = begin("nvmlDeviceGetTotalEccErrors", device, &r);
  if (i < 0) return r;
  long long v[2] = {0, 0};
  device_numbers("UNCORRECTED", i, v, 2);
  *count = type == 1 ? (unsigned long long)v[counter == 0 ? 0 : 1] : 0; /* corrected errors: none */
  return k_ok;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int* corr, unsigned int* unc,
                                                    unsigned int* pending, unsigned int* failure) {
  nvmlReturn_t r;
  int i = begin("nvmlDeviceGetRemappedRows", device, &r);
  if (i < 0) return r;
  long long v[4] = {0, 0, 0, 0};
  device_numbers("REMAP", i, v, 4);
  *corr = (unsigned)v[0], *unc = (unsigned)v[1], *pending = (unsigned)v[2], *failure = (unsigned)v[3];
  return k_ok;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetRowRemapperHistogram(nvmlDevice_t device, unsigned int* banks) {
  nvmlReturn_t r;
  int i = begin("nvmlDeviceGetRowRemapperHistogram", device, &r);
  if (i < 0) return r;
  long long v[5] = {3072, 0, 0, 0, 0};
  device_numbers("REMAP_HISTOGRAM", i, v, 5);
  for (int k = 0; k < 5; ++k) banks[k] = (unsigned int)v[k];
  return k_ok;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, int cause, unsigned int* count,
                                                   unsigned long long* addresses) {
  nvmlReturn_t r;
  int i = begin("nvmlDeviceGetRetiredPages", device, &r);
  if (i < 0) return r;
  if (device_env("RETIRED", i) == NULL) return k_not_supported; /* Hopper: rows are remapped */
  long long v[3] = {0, 0, 0};
  device_numbers("RETIRED", i, v, 3);
  unsigned int pages = (unsigned int)v[cause == 0 ? 0 : 1];
  if (*count < pages || addresses == NULL) {
    *count = pages;
    return pages == 0 ? k_ok : k_insufficient_size;
  }
  for (unsigned int k = 0; k < pages; ++k) addresses[k] = 0x1000ULL * (k + 1);
  *count = pages;
  return k_ok;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, int* pending) {
  nvmlReturn_t r;
  int i = begin("nvmlDeviceGetRetiredPagesPendingStatus", device, &r);
  if (i < 0) return r;
  if (device_env("RETIRED", i) == NULL) return k_not_supported;
  long long v[3] = {0, 0, 0};
  device_numbers("RETIRED", i, v, 3);
  *pending = (int)v[2];
  return k_ok;
}

/* Field values: NVML_FI_DEV_GET_GPU_RECOVERY_ACTION (230), as an unsigned int; NVLink's (91, 213, 214) from
 * fake_nvml_nvlink.c. */
typedef struct {
  unsigned int fieldId, scopeId;
  long long timestamp, latencyUsec;
  int valueType;
  nvmlReturn_t nvmlReturn;
  unsigned long long value;
} fake_field_value;

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int count, fake_field_value* values) {
  nvmlReturn_t r;
  int i = begin("nvmlDeviceGetFieldValues", device, &r);
  if (i < 0) return r;
  for (int k = 0; k < count; ++k) {
    if (values[k].fieldId != 230) {  /* NVLink's fields: fake_nvml_nvlink.c */
      values[k].valueType = 3;        /* NVML_VALUE_TYPE_UNSIGNED_LONG_LONG */
      values[k].nvmlReturn = fake_nvml_nvlink_field(i, values[k].fieldId, values[k].scopeId, &values[k].value);
      continue;
    }
    const char* text = device_env("RECOVERY_ACTION", i);
    values[k].valueType = 1; /* NVML_VALUE_TYPE_UNSIGNED_INT */
    values[k].nvmlReturn = k_ok;
    values[k].timestamp = 1;
    values[k].value = text ? (unsigned long long)strtoull(text, NULL, 0) : 0;
  }
  return k_ok;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceValidateInforom(nvmlDevice_t device) {
  nvmlReturn_t r;
  int i = begin("nvmlDeviceValidateInforom", device, &r);
  if (i < 0) return r;
  const char* text = device_env("INFOROM_RESULT", i);
  return text ? (nvmlReturn_t)strtol(text, NULL, 0) : k_ok;
}

/* One integer, FAKE_NVML_<name>, with a default. */
static nvmlReturn_t one_int(const char* function, const char* name, long long fallback, nvmlDevice_t device, int* out) {
  nvmlReturn_t r;
  int i = begin(function, device, &r);
  if (i < 0) return r;
  long long v[1] = {fallback};
  device_numbers(name, i, v, 1);
  *out = (int)v[0];
  return k_ok;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, int* mode) {
  return one_int("nvmlDeviceGetPersistenceMode", "PERSISTENCE", 1, device, mode);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetDisplayActive(nvmlDevice_t device, int* active) {
  return one_int("nvmlDeviceGetDisplayActive", "DISPLAY_ACTIVE", 0, device, active);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, int* mode) {
  return one_int("nvmlDeviceGetComputeMode", "COMPUTE_MODE", 0, device, mode);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, int* state) {
  return one_int("nvmlDeviceGetPerformanceState", "PSTATE", 0, device, state);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int* current, unsigned int* pending) {
  nvmlReturn_t r;
  int i = begin("nvmlDeviceGetMigMode", device, &r);
  if (i < 0) return r;
  long long v[2] = {0, 0};
  device_numbers("MIG", i, v, 2);
  *current = (unsigned)v[0], *pending = (unsigned)v[1];
  return k_ok;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long* reasons) {
  nvmlReturn_t r;
  int i = begin("nvmlDeviceGetCurrentClocksEventReasons", device, &r);
  if (i < 0) return r;
  long long v[1] = {1};
  device_numbers("CLOCKS_REASONS", i, v, 1);
  *reasons = (unsigned long long)v[0];
  return k_ok;
}

/* PCIe: which of the five numbers each entry point reports. */
static nvmlReturn_t pcie(const char* function, int slot, nvmlDevice_t device, unsigned int* out) {
  nvmlReturn_t r;
  int i = begin(function, device, &r);
  if (i < 0) return r;
  long long v[5] = {5, 16, 5, 16, 5};
  device_numbers("PCIE", i, v, 5);
  *out = (unsigned int)v[slot];
  return k_ok;
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned int* v) {
  return pcie("nvmlDeviceGetCurrPcieLinkGeneration", 0, d, v);
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t d, unsigned int* v) {
  return pcie("nvmlDeviceGetCurrPcieLinkWidth", 1, d, v);
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t d, unsigned int* v) {
  return pcie("nvmlDeviceGetMaxPcieLinkGeneration", 2, d, v);
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t d, unsigned int* v) {
  return pcie("nvmlDeviceGetMaxPcieLinkWidth", 3, d, v);
}
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetGpuMaxPcieLinkGeneration(nvmlDevice_t d, unsigned int* v) {
  return pcie("nvmlDeviceGetGpuMaxPcieLinkGeneration", 4, d, v);
}

/* nvmlGpuFabricInfo_v3_t (40 bytes, version 0x03000028); anything else is a version mismatch. */
typedef struct {
  unsigned int version;
  unsigned char clusterUuid[16];
  nvmlReturn_t status;
  unsigned int cliqueId;
  unsigned char state;
  unsigned int healthMask;
  unsigned char healthSummary;
} fake_fabric_v3;

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, fake_fabric_v3* info) {
  nvmlReturn_t r;
  int i = begin("nvmlDeviceGetGpuFabricInfoV", device, &r);
  if (i < 0) return r;
  if (info->version != ((unsigned int)sizeof(fake_fabric_v3) | (3u << 24))) return 25;
  if (device_env("FABRIC", i) == NULL) return k_not_supported;
  long long v[4] = {0, 0, 0, 0};
  device_numbers("FABRIC", i, v, 4);
  info->state = (unsigned char)v[0];
  info->status = (nvmlReturn_t)v[1];
  info->healthMask = (unsigned int)v[2];
  info->healthSummary = (unsigned char)v[3];
  long long clique = 32766;
  device_numbers("FABRIC_CLIQUE", i, &clique, 1);
  info->cliqueId = (unsigned int)clique;
  for (int b = 0; b < 16; ++b) info->clusterUuid[b] = (unsigned char)(0xc0 + b);
  const char* cluster = device_env("FABRIC_CLUSTER", i);
  for (int b = 0; cluster != NULL && b < 16; ++b) {
    while (*cluster == '-') ++cluster;
    unsigned int byte = 0;
    if (sscanf(cluster, "%2x", &byte) != 1) break;
    info->clusterUuid[b] = (unsigned char)byte;
    cluster += 2;
  }
  return k_ok;
}

/* nvmlProcessInfo_v2_t entries (24 bytes), as 535.104 and later write them through _v3. */
typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId, computeInstanceId;
} fake_process;

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int* count,
                                                                  fake_process* infos) {
  nvmlReturn_t r;
  int i = begin("nvmlDeviceGetComputeRunningProcesses_v3", device, &r);
  if (i < 0) return r;
  long long pids[16] = {0};
  device_numbers("PROCESSES", i, pids, 16);
  unsigned int n = 0;
  while (n < 16 && pids[n] != 0) ++n;
  if (infos == NULL || *count < n) {
    *count = n;
    return n == 0 ? k_ok : k_insufficient_size;
  }
  long long mib[1] = {512};
  device_numbers("PROCESS_MIB", i, mib, 1);
  for (unsigned int k = 0; k < n; ++k) {
    infos[k].pid = (unsigned int)pids[k];
    infos[k].usedGpuMemory = mib[0] < 0 ? ~0ULL : (unsigned long long)mib[0] << 20;
    infos[k].gpuInstanceId = infos[k].computeInstanceId = 0xFFFFFFFFu;
  }
  *count = n;
  return k_ok;
}

/* nvmlMemory_t (v1). */
typedef struct { unsigned long long total, free, used; } fake_memory;

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, fake_memory* memory) {
  nvmlReturn_t r;
  int i = begin("nvmlDeviceGetMemoryInfo", device, &r);
  if (i < 0) return r;
  long long pids[16] = {0}, mib[1] = {512};
  device_numbers("PROCESSES", i, pids, 16);
  device_numbers("PROCESS_MIB", i, mib, 1);
  long long used = 1;
  for (int k = 0; k < 16 && pids[k] != 0; ++k) used += mib[0] > 0 ? mib[0] : 0;
  long long v[2] = {used, 143771};
  device_numbers("MEMORY", i, v, 2);
  memory->total = (unsigned long long)v[1] << 20;
  memory->used = (unsigned long long)v[0] << 20;
  memory->free = memory->total > memory->used ? memory->total - memory->used : 0;
  return k_ok;
}

/* MIG device handles: &g_mig[gpu][n]. */
enum { k_fake_mig_gpus = 64, k_fake_mig_max = 7 };
static char g_mig[k_fake_mig_gpus][k_fake_mig_max];

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int* count) {
  nvmlReturn_t r;
  int i = begin("nvmlDeviceGetMaxMigDeviceCount", device, &r);
  if (i < 0) return r;
  *count = k_fake_mig_max;
  return k_ok;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t* mig) {
  nvmlReturn_t r;
  int i = begin("nvmlDeviceGetMigDeviceHandleByIndex", device, &r);
  if (i < 0) return r;
  long long n[1] = {0};
  device_numbers("MIG_DEVICES", i, n, 1);
  if (i >= k_fake_mig_gpus || index >= k_fake_mig_max) return k_invalid_argument;
  if ((long long)index >= n[0]) return 6; /* NVML_ERROR_NOT_FOUND */
  *mig = (nvmlDevice_t)&g_mig[i][index];
  return k_ok;
}

int fake_nvml_mig_uuid(nvmlDevice_t device, char* out, size_t size) {
  const char* p = (const char*)device;
  if (p < &g_mig[0][0] || p >= &g_mig[0][0] + sizeof g_mig) return -1;
  long offset = (long)(p - &g_mig[0][0]);
  snprintf(out, size, "MIG-%02lx%02lx0000-0000-0000-0000-000000000000", offset / k_fake_mig_max, offset % k_fake_mig_max);
  return 0;
}
