/* One GPU's NVLink links, for gpudoctor-cuda-helper (nvml_nvlink.h; protocol 1.3,
 * docs/helper-protocol.md "NVLink"). Signatures and constants from nvml.h (NVIDIA/go-nvml
 * pkg/nvml/nvml.h, NVML 13.3):
 *   nvmlDeviceGetNvLinkState(device, link, nvmlEnableState_t*)     1 active, 0 inactive
 *   nvmlDeviceGetNvLinkVersion(device, link, unsigned int*)        nvmlNvlinkVersion_t: an enum
 *     (4 = NVLink 3.0, 6 = 4.0, 7 = 5.0), not the version number (open-mpi/hwloc#658)
 *   nvmlDeviceGetNvLinkRemotePciInfo_v2(device, link, nvmlPciInfo_t*)  the far end: a GPU or an NVSwitch
 *   nvmlDeviceGetNvLinkRemoteDeviceType(device, link, int*)        0 GPU, 1 IBM NPU, 2 switch, 255 unknown
 *   nvmlDeviceGetNvLinkErrorCounter(device, link, counter, unsigned long long*)
 *     counters since the driver loaded: 0 DL_REPLAY, 1 DL_RECOVERY, 2 DL_CRC_FLIT, 3 DL_CRC_DATA.
 *     nvml.h marks the replay, recovery and CRC counters "unsupported for Blackwell+. Please use
 *     NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_*": where the replay counter answers NOT_SUPPORTED,
 *     the link's recovery fields are read instead (213 successful, 214 failed, scopeId = link).
 * Which links exist: field 91 NVML_FI_DEV_NVLINK_LINK_COUNT where the driver answers it (the
 * count NVIDIA's cuda-python uses since NVML_NVLINK_MAX_LINKS, 36 in NVML 13.3 and 18 before,
 * overestimates a GPU's links), else every index up to 36. A link whose state query answers
 * INVALID_ARGUMENT or NOT_SUPPORTED does not exist and is skipped, as DCGM's cache manager treats
 * any error there as "not supported" and goes on; NOT_SUPPORTED on link 0 with no link count
 * means the GPU has no NVLink (PCIe GPUs, a VM's passed-through GPU): one
 * `nvlink.result 3` line and nothing else. Only active links are asked for the rest. */
#define _GNU_SOURCE
#include "nvml_nvlink.h"

#include <stdio.h>
#include <string.h>

#include "reply.h"

enum {
  k_max_links = 36,              /* NVML_NVLINK_MAX_LINKS in NVML 13.3 */
  k_invalid_argument = 2,        /* NVML_ERROR_INVALID_ARGUMENT */
  k_fi_link_count = 91,          /* NVML_FI_DEV_NVLINK_LINK_COUNT */
  k_fi_recovery_successful = 213, /* NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_SUCCESSFUL_EVENTS */
  k_fi_recovery_failed = 214,    /* NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS */
};

typedef nvmlReturn_t (*nvlink_uint_fn)(nvmlDevice_t, unsigned int, unsigned int*); /* State, Version, RemoteDeviceType */
typedef nvmlReturn_t (*nvlink_pci_fn)(nvmlDevice_t, unsigned int, nvmlPciInfo_t*);
typedef nvmlReturn_t (*nvlink_counter_fn)(nvmlDevice_t, unsigned int, int, unsigned long long*);

static struct {
  int loaded;
  nvlink_uint_fn state, version, remote_type;
  nvlink_pci_fn remote_pci;
  nvlink_counter_fn counter;
  nvml_fields_fn fields;
} g_api;

static void load_api(void* lib) {
  if (g_api.loaded) return;
  g_api.loaded = 1;
  LOAD_FN(g_api.state, lib, "nvmlDeviceGetNvLinkState");
  LOAD_FN(g_api.version, lib, "nvmlDeviceGetNvLinkVersion");
  LOAD_FN(g_api.remote_type, lib, "nvmlDeviceGetNvLinkRemoteDeviceType");
  LOAD_FN(g_api.remote_pci, lib, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
  LOAD_FN(g_api.counter, lib, "nvmlDeviceGetNvLinkErrorCounter");
  LOAD_FN(g_api.fields, lib, "nvmlDeviceGetFieldValues");
}

/* One field value of the device (scopeId: the link), as an integer; the field's own return
 * code otherwise. */
static nvmlReturn_t field_value(nvmlDevice_t device, unsigned int field_id, unsigned int scope, long long* out) {
  if (g_api.fields == NULL) return -1;
  nvmlFieldValue_t field;
  memset(&field, 0, sizeof field);
  field.fieldId = field_id;
  field.scopeId = scope;
  nvmlReturn_t r = g_api.fields(device, 1, &field);
  if (r != 0) return r;
  if (field.nvmlReturn != 0) return field.nvmlReturn;
  switch (field.valueType) {
    case k_nvml_value_double: *out = (long long)field.value.dVal; break;
    case k_nvml_value_ulong: *out = (long long)field.value.ulVal; break;
    case k_nvml_value_ull: *out = (long long)field.value.ullVal; break;
    case k_nvml_value_sll: *out = field.value.sllVal; break;
    case k_nvml_value_sint: *out = field.value.siVal; break;
    case k_nvml_value_ushort: *out = field.value.usVal; break;
    default: *out = field.value.uiVal; break;
  }
  return 0;
}

static void error_counters(nvmlDevice_t device, unsigned int link, const char* link_key) {
  static const struct { int counter; const char* name; } k_counters[] = {
      {0, "replay_errors"},     /* NVML_NVLINK_ERROR_DL_REPLAY */
      {1, "recovery_errors"},   /* NVML_NVLINK_ERROR_DL_RECOVERY */
      {2, "crc_flit_errors"},   /* NVML_NVLINK_ERROR_DL_CRC_FLIT */
      {3, "crc_data_errors"},   /* NVML_NVLINK_ERROR_DL_CRC_DATA */
  };
  if (g_api.counter == NULL) {
    emit_missing(link_key, "nvmlDeviceGetNvLinkErrorCounter");
    return;
  }
  for (size_t i = 0; i < sizeof k_counters / sizeof k_counters[0]; ++i) {
    unsigned long long value = 0;
    nvmlReturn_t r = g_api.counter(device, link, k_counters[i].counter, &value);
    if (r == 0) {
      emit_sub_int(link_key, k_counters[i].name, (long long)value);
      continue;
    }
    char key[160];
    snprintf(key, sizeof key, "%s.%s", link_key, k_counters[i].name);
    emit_sub_int(key, "result", r);
    if (r == k_nvml_not_supported && i == 0) {
      /* Blackwell and later: the counters gave way to the link recovery fields. */
      long long events = 0;
      if (field_value(device, k_fi_recovery_failed, link, &events) == 0) emit_sub_int(link_key, "recovery_failed", events);
      if (field_value(device, k_fi_recovery_successful, link, &events) == 0) emit_sub_int(link_key, "recovery_successful", events);
      return;
    }
  }
}

static void active_link(nvmlDevice_t device, unsigned int link, const char* link_key) {
  char key[160];
  unsigned int value = 0;
  nvmlReturn_t r;
  snprintf(key, sizeof key, "%s.version", link_key);
  if (g_api.version == NULL) {
    emit_missing(key, "nvmlDeviceGetNvLinkVersion");
  } else {
    r = g_api.version(device, link, &value);
    r == 0 ? emit_int(key, value) : emit_sub_int(key, "result", r);
  }
  snprintf(key, sizeof key, "%s.remote_bus_id", link_key);
  if (g_api.remote_pci == NULL) {
    emit_missing(key, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
  } else {
    nvmlPciInfo_t pci;
    memset(&pci, 0, sizeof pci);
    r = g_api.remote_pci(device, link, &pci);
    if (r == 0) {
      pci.busId[sizeof pci.busId - 1] = '\0';
      emit(key, pci.busId);
    } else {
      emit_sub_int(key, "result", r);
    }
  }
  if (g_api.remote_type != NULL) {  /* the bus id alone does not say GPU or NVSwitch */
    value = 0;
    if (g_api.remote_type(device, link, &value) == 0) emit_sub_int(link_key, "remote_type", value);
  }
  error_counters(device, link, link_key);
}

void probe_nvml_nvlink(void* lib, nvmlDevice_t device, const char* prefix) {
  load_api(lib);
  char nvlink_key[96], link_key[128];
  snprintf(nvlink_key, sizeof nvlink_key, "%s.nvlink", prefix);
  if (g_api.state == NULL) {
    emit_missing(nvlink_key, "nvmlDeviceGetNvLinkState");
    return;
  }
  long long count = -1;
  if (field_value(device, k_fi_link_count, 0, &count) == 0 && count >= 0) {
    emit_sub_int(nvlink_key, "link_count", count);
  } else {
    count = -1;
  }
  unsigned int limit = (count >= 0 && count < k_max_links) ? (unsigned int)count : k_max_links;
  unsigned int links = 0, up = 0;
  for (unsigned int link = 0; link < limit; ++link) {
    unsigned int active = 0;
    nvmlReturn_t r = g_api.state(device, link, &active);
    if (r != 0) {
      if (link == 0 && count < 0 && r == k_nvml_not_supported) {
        emit_sub_int(nvlink_key, "result", r);  /* no NVLink on this GPU */
        return;
      }
      if (r == k_invalid_argument || r == k_nvml_not_supported) continue;  /* no such link */
      snprintf(link_key, sizeof link_key, "%s.%u.state", nvlink_key, link);
      emit_sub_int(link_key, "result", r);
      continue;
    }
    ++links;
    snprintf(link_key, sizeof link_key, "%s.%u", nvlink_key, link);
    emit_sub_int(link_key, "state", active == 1);
    if (active == 1) {
      ++up;
      active_link(device, link, link_key);
    }
  }
  emit_sub_int(nvlink_key, "links", links);
  emit_sub_int(nvlink_key, "links_up", up);
}
