/* NVLink for the fake libnvidia-ml.so.1 (fake_libnvidia_ml.c). By default a GPU has no NVLink:
 * every NVLink query answers NVML_ERROR_NOT_SUPPORTED (3), as on the single H200 of a VM. Each
 * value can be set for every GPU (FAKE_NVML_X) or for GPU N (FAKE_NVML_X_N):
 *
 *   FAKE_NVML_NVLINK_LINKS=<n>         the GPU's links (18 on an H100/H200 SXM); field 91
 *                                      NVML_FI_DEV_NVLINK_LINK_COUNT answers it
 *   FAKE_NVML_NVLINK_DOWN=<l>,<l>...   those links are inactive (state 0)
 *   FAKE_NVML_NVLINK_VERSION=<enum>    nvmlNvlinkVersion_t of every active link (default 6: NVLink 4.0)
 *   FAKE_NVML_NVLINK_ERRORS=<replay>,<recovery>,<crc flit>,<crc data>
 *                                      error counters of every active link (default 0); one link:
 *                                      FAKE_NVML_NVLINK_ERRORS_<gpu>_<link>
 *   FAKE_NVML_NVLINK_REMOTE=switch|gpu the far end: NVSwitches (default; bus 0x05 + link % 4, as
 *                                      the four NVSwitches of an HGX H100 board) or the next GPU
 *   FAKE_NVML_NVLINK_NO_COUNTERS=1     the error counters answer NOT_SUPPORTED, as on Blackwell; the
 *                                      recovery fields (213, 214) answer FAKE_NVML_NVLINK_RECOVERY=
 *                                      <failed>,<successful> (default 0,0)
 *   FAKE_NVML_NOT_SUPPORTED=<function>,...   as for the health queries
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st* nvmlDevice_t;
typedef struct {
  char busIdLegacy[16];
  unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
} fake_pci_info;

void fake_nvml_enter(const char* function);
int fake_nvml_device_index(nvmlDevice_t device);

enum { k_ok = 0, k_invalid_argument = 2, k_not_supported = 3 };

static const char* env_for(const char* name, int gpu) {
  char key[96];
  snprintf(key, sizeof key, "FAKE_NVML_%s_%d", name, gpu);
  const char* value = getenv(key);
  if (value == NULL) {
    snprintf(key, sizeof key, "FAKE_NVML_%s", name);
    value = getenv(key);
  }
  return value;
}

static void numbers(const char* text, long long* out, int count) {
  for (int i = 0; text != NULL && *text != '\0' && i < count; ++i) {
    char* end = NULL;
    out[i] = strtoll(text, &end, 0);
    text = (end != NULL && *end == ',') ? end + 1 : NULL;
  }
}

/* The GPU's link count, or -1 (no NVLink). */
static int link_count(int gpu) {
  const char* text = env_for("NVLINK_LINKS", gpu);
  return text ? atoi(text) : -1;
}

/* The GPU index for a query of `link`, or -1 with *result set. */
static int begin(const char* function, nvmlDevice_t device, unsigned int link, nvmlReturn_t* result) {
  fake_nvml_enter(function);
  int gpu = fake_nvml_device_index(device);
  const char* unsupported = getenv("FAKE_NVML_NOT_SUPPORTED");
  *result = k_ok;
  if (gpu < 0) {
    *result = k_invalid_argument;
  } else if ((unsupported != NULL && (strcmp(unsupported, "all") == 0 || strstr(unsupported, function) != NULL)) ||
             link_count(gpu) < 0) {
    *result = k_not_supported;
  } else if ((int)link >= link_count(gpu)) {
    *result = k_invalid_argument;
  }
  return *result == k_ok ? gpu : -1;
}

static int link_down(int gpu, unsigned int link) {
  const char* text = env_for("NVLINK_DOWN", gpu);
  while (text != NULL && *text != '\0') {
    char* end = NULL;
    long value = strtol(text, &end, 10);
    if (end == text) break;
    if (value == (long)link) return 1;
    text = *end == ',' ? end + 1 : end;
  }
  return 0;
}

/* For fake_nvml_health.c's nvmlDeviceGetFieldValues: the NVLink fields; 0 when answered. */
int fake_nvml_nvlink_field(int gpu, unsigned int field, unsigned int link, unsigned long long* value) {
  int links = link_count(gpu);
  if (field == 91) {  /* NVML_FI_DEV_NVLINK_LINK_COUNT */
    if (links < 0) return k_not_supported;
    *value = (unsigned long long)links;
    return k_ok;
  }
  if (field == 213 || field == 214) {  /* link recovery events: successful, failed */
    if (links < 0 || getenv("FAKE_NVML_NVLINK_NO_COUNTERS") == NULL) return k_not_supported;
    if ((int)link >= links) return k_invalid_argument;
    long long v[2] = {0, 0};
    numbers(env_for("NVLINK_RECOVERY", gpu), v, 2);
    *value = (unsigned long long)(field == 214 ? v[0] : v[1]);
    return k_ok;
  }
  return k_not_supported;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, unsigned int* active) {
  nvmlReturn_t r;
  int gpu = begin("nvmlDeviceGetNvLinkState", device, link, &r);
  if (gpu < 0) return r;
  *active = link_down(gpu, link) ? 0 : 1;
  return k_ok;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device, unsigned int link, unsigned int* version) {
  nvmlReturn_t r;
  int gpu = begin("nvmlDeviceGetNvLinkVersion", device, link, &r);
  if (gpu < 0) return r;
  const char* text = env_for("NVLINK_VERSION", gpu);
  *version = text ? (unsigned int)atoi(text) : 6;
  return k_ok;
}

static int remote_is_gpu(int gpu) {
  const char* text = env_for("NVLINK_REMOTE", gpu);
  return text != NULL && strcmp(text, "gpu") == 0;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link, fake_pci_info* pci) {
  nvmlReturn_t r;
  int gpu = begin("nvmlDeviceGetNvLinkRemotePciInfo_v2", device, link, &r);
  if (gpu < 0) return r;
  if (link_down(gpu, link)) return k_not_supported;  /* nothing at the far end of an inactive link */
  memset(pci, 0, sizeof *pci);
  pci->bus = remote_is_gpu(gpu) ? 0x18 + (unsigned int)(gpu + 1) % 8 : 0x05 + link % 4;
  snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "0000:%02X:00.0", pci->bus);
  snprintf(pci->busId, sizeof pci->busId, "00000000:%02X:00.0", pci->bus);
  return k_ok;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link, int* type) {
  nvmlReturn_t r;
  int gpu = begin("nvmlDeviceGetNvLinkRemoteDeviceType", device, link, &r);
  if (gpu < 0) return r;
  *type = remote_is_gpu(gpu) ? 0 : 2;  /* NVML_NVLINK_DEVICE_TYPE_GPU, _SWITCH */
  return k_ok;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device, unsigned int link, int counter,
                                                         unsigned long long* value) {
  nvmlReturn_t r;
  int gpu = begin("nvmlDeviceGetNvLinkErrorCounter", device, link, &r);
  if (gpu < 0) return r;
  if (getenv("FAKE_NVML_NVLINK_NO_COUNTERS") != NULL || counter < 0 || counter > 4) return k_not_supported;
  long long v[4] = {0, 0, 0, 0};
  char name[64];
  snprintf(name, sizeof name, "FAKE_NVML_NVLINK_ERRORS_%d_%u", gpu, link);
  const char* one_link = getenv(name);
  numbers(one_link ? one_link : env_for("NVLINK_ERRORS", gpu), v, 4);
  *value = counter < 4 ? (unsigned long long)v[counter] : 0;
  return k_ok;
}
