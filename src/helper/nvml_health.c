/* One GPU's health as NVML reports it, for gpudoctor-cuda-helper (nvml_health.h). Each query
 * writes its values on success and `<key>.result <code>` otherwise (3 NOT_SUPPORTED is normal on
 * GeForce and older drivers: gpudoctor then reports the fact as unknown, never as a fault). */
#define _GNU_SOURCE
#include "nvml_health.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reply.h"

int g_validate_inforom;

void load_nvml_health_api(void* lib, struct gd_nvml_health_api* api) {
  memset(api, 0, sizeof *api);
  LOAD_FN(api->ecc_mode, lib, "nvmlDeviceGetEccMode");
  LOAD_FN(api->total_ecc_errors, lib, "nvmlDeviceGetTotalEccErrors");
  LOAD_FN(api->remapped_rows, lib, "nvmlDeviceGetRemappedRows");
  LOAD_FN(api->remap_histogram, lib, "nvmlDeviceGetRowRemapperHistogram");
  LOAD_FN(api->retired_pages, lib, "nvmlDeviceGetRetiredPages");
  LOAD_FN(api->retired_pending, lib, "nvmlDeviceGetRetiredPagesPendingStatus");
  LOAD_FN(api->field_values, lib, "nvmlDeviceGetFieldValues");
  LOAD_FN(api->validate_inforom, lib, "nvmlDeviceValidateInforom");
  LOAD_FN(api->persistence, lib, "nvmlDeviceGetPersistenceMode");
  LOAD_FN(api->display_active, lib, "nvmlDeviceGetDisplayActive");
  LOAD_FN(api->compute_mode, lib, "nvmlDeviceGetComputeMode");
  LOAD_FN(api->mig_mode, lib, "nvmlDeviceGetMigMode");
  /* The event name from driver 535 on; the throttle name before (same bits). */
  api->clocks_symbol = "nvmlDeviceGetCurrentClocksEventReasons";
  LOAD_FN(api->clocks_event_reasons, lib, api->clocks_symbol);
  if (api->clocks_event_reasons == NULL) {
    api->clocks_symbol = "nvmlDeviceGetCurrentClocksThrottleReasons";
    LOAD_FN(api->clocks_event_reasons, lib, api->clocks_symbol);
  }
  LOAD_FN(api->performance_state, lib, "nvmlDeviceGetPerformanceState");
  LOAD_FN(api->pcie_gen_current, lib, "nvmlDeviceGetCurrPcieLinkGeneration");
  LOAD_FN(api->pcie_gen_max, lib, "nvmlDeviceGetMaxPcieLinkGeneration");
  LOAD_FN(api->pcie_gen_gpu_max, lib, "nvmlDeviceGetGpuMaxPcieLinkGeneration");
  LOAD_FN(api->pcie_width_current, lib, "nvmlDeviceGetCurrPcieLinkWidth");
  LOAD_FN(api->pcie_width_max, lib, "nvmlDeviceGetMaxPcieLinkWidth");
  LOAD_FN(api->fabric_v, lib, "nvmlDeviceGetGpuFabricInfoV");
  LOAD_FN(api->fabric_v1, lib, "nvmlDeviceGetGpuFabricInfo");
  LOAD_FN(api->memory_info, lib, "nvmlDeviceGetMemoryInfo");
  LOAD_FN(api->max_mig_devices, lib, "nvmlDeviceGetMaxMigDeviceCount");
  LOAD_FN(api->mig_device_handle, lib, "nvmlDeviceGetMigDeviceHandleByIndex");
  LOAD_FN(api->uuid, lib, "nvmlDeviceGetUUID");
  /* nvmlProcessInfo_t grew without a new symbol: 535.43-535.86's _v3 writes 32-byte entries
   * (usedGpuCcProtectedMemory), the others 24; those drivers have ConfComputeMemSizeInfo but
   * not RunningProcessDetailList (nvidia-settings' nvml.h per release; nvitop's rule). */
  api->processes_symbol = "nvmlDeviceGetComputeRunningProcesses_v3";
  LOAD_FN(api->processes, lib, api->processes_symbol);
  api->process_stride = 24;
  if (api->processes != NULL) {
    if (load(lib, "nvmlDeviceGetConfComputeMemSizeInfo") != NULL && load(lib, "nvmlDeviceGetRunningProcessDetailList") == NULL) {
      api->process_stride = 32;
    }
  } else {
    api->processes_symbol = "nvmlDeviceGetComputeRunningProcesses_v2";
    LOAD_FN(api->processes, lib, api->processes_symbol);
    if (api->processes == NULL) {
      api->processes_symbol = "nvmlDeviceGetComputeRunningProcesses";
      LOAD_FN(api->processes, lib, api->processes_symbol);
      api->process_stride = 16;
    }
  }
}

/* `<prefix>.<name>` as the key of one query. */
static void key_of(char* key, size_t size, const char* prefix, const char* name) {
  snprintf(key, size, "%s.%s", prefix, name);
}

static void emit_uint_query(const char* prefix, const char* name, nvml_uint_fn fn, const char* symbol,
                            nvmlDevice_t device) {
  char key[128];
  key_of(key, sizeof key, prefix, name);
  if (fn == NULL) {
    emit_missing(key, symbol);
    return;
  }
  unsigned int value = 0;
  nvmlReturn_t r = fn(device, &value);
  r == 0 ? emit_int(key, value) : emit_sub_int(key, "result", r);
}

static void ecc(const struct gd_nvml_health_api* api, nvmlDevice_t device, const char* prefix) {
  char key[128];
  key_of(key, sizeof key, prefix, "ecc_mode");
  if (api->ecc_mode == NULL) {
    emit_missing(key, "nvmlDeviceGetEccMode");
  } else {
    nvmlEnableState_t current = 0, pending = 0;
    nvmlReturn_t r = api->ecc_mode(device, &current, &pending);
    if (r == 0) {
      emit_sub_int(key, "current", current);
      emit_sub_int(key, "pending", pending);
    } else {
      emit_sub_int(key, "result", r);
    }
  }
  static const struct { int counter; const char* name; } k_counters[] = {
      {k_nvml_volatile_ecc, "ecc_uncorrected.volatile"},
      {k_nvml_aggregate_ecc, "ecc_uncorrected.aggregate"},
  };
  for (size_t i = 0; i < 2; ++i) {
    key_of(key, sizeof key, prefix, k_counters[i].name);
    if (api->total_ecc_errors == NULL) {
      emit_missing(key, "nvmlDeviceGetTotalEccErrors");
      continue;
    }
    unsigned long long count = 0;
    nvmlReturn_t r = api->total_ecc_errors(device, k_nvml_memory_uncorrected, k_counters[i].counter, &count);
    r == 0 ? emit_int(key, (long long)count) : emit_sub_int(key, "result", r);
  }
}

static void row_remapping(const struct gd_nvml_health_api* api, nvmlDevice_t device, const char* prefix) {
  char key[128];
  key_of(key, sizeof key, prefix, "remap");
  if (api->remapped_rows == NULL) {
    emit_missing(key, "nvmlDeviceGetRemappedRows");
  } else {
    unsigned int correctable = 0, uncorrectable = 0, pending = 0, failure = 0;
    nvmlReturn_t r = api->remapped_rows(device, &correctable, &uncorrectable, &pending, &failure);
    if (r == 0) {
      emit_sub_int(key, "correctable", correctable);
      emit_sub_int(key, "uncorrectable", uncorrectable);
      emit_sub_int(key, "pending", pending);
      emit_sub_int(key, "failure", failure);
    } else {
      emit_sub_int(key, "result", r);  /* NOT_SUPPORTED before Ampere and with MIG instances */
    }
  }
  key_of(key, sizeof key, prefix, "remap_histogram");
  if (api->remap_histogram == NULL) {
    emit_missing(key, "nvmlDeviceGetRowRemapperHistogram");
  } else {
    nvmlRowRemapperHistogramValues_t banks;
    memset(&banks, 0, sizeof banks);
    nvmlReturn_t r = api->remap_histogram(device, &banks);
    if (r == 0) {
      emit_sub_int(key, "max", banks.max);
      emit_sub_int(key, "high", banks.high);
      emit_sub_int(key, "partial", banks.partial);
      emit_sub_int(key, "low", banks.low);
      emit_sub_int(key, "none", banks.none);  /* banks with no spare row left */
    } else {
      emit_sub_int(key, "result", r);
    }
  }
}

/* Dynamic page retirement (GPUs before Ampere; Ampere and later remap rows instead). */
static void retired_pages(const struct gd_nvml_health_api* api, nvmlDevice_t device, const char* prefix) {
  char key[128];
  key_of(key, sizeof key, prefix, "retired_pending");
  if (api->retired_pending == NULL) {
    emit_missing(key, "nvmlDeviceGetRetiredPagesPendingStatus");
  } else {
    nvmlEnableState_t pending = 0;
    nvmlReturn_t r = api->retired_pending(device, &pending);
    r == 0 ? emit_int(key, pending) : emit_sub_int(key, "result", r);
  }
  static const struct { int cause; const char* name; } k_causes[] = {
      {k_nvml_retire_multiple_sbe, "retired.sbe"},
      {k_nvml_retire_dbe, "retired.dbe"},
  };
  for (size_t i = 0; i < 2; ++i) {
    key_of(key, sizeof key, prefix, k_causes[i].name);
    if (api->retired_pages == NULL) {
      emit_missing(key, "nvmlDeviceGetRetiredPages");
      continue;
    }
    unsigned int count = 0;  /* a count of 0 and no buffer asks for the number only */
    nvmlReturn_t r = api->retired_pages(device, k_causes[i].cause, &count, NULL);
    (r == 0 || r == k_nvml_insufficient_size) ? emit_int(key, count) : emit_sub_int(key, "result", r);
  }
}

/* What the driver says must be done to clear an earlier fault (field 230, driver 565 on). */
static void recovery_action(const struct gd_nvml_health_api* api, nvmlDevice_t device, const char* prefix) {
  char key[128];
  key_of(key, sizeof key, prefix, "recovery_action");
  if (api->field_values == NULL) {
    emit_missing(key, "nvmlDeviceGetFieldValues");
    return;
  }
  nvmlFieldValue_t field;
  memset(&field, 0, sizeof field);  /* zeroed: NVML may leave fields it does not fill */
  field.fieldId = k_nvml_fi_recovery_action;
  nvmlReturn_t r = api->field_values(device, 1, &field);
  if (r != 0) {
    emit_sub_int(key, "result", r);
    return;
  }
  if (field.nvmlReturn != 0) {
    emit_sub_int(key, "result", field.nvmlReturn);
    return;
  }
  long long value;
  switch (field.valueType) {
    case k_nvml_value_double: value = (long long)field.value.dVal; break;
    case k_nvml_value_ulong: value = (long long)field.value.ulVal; break;
    case k_nvml_value_ull: value = (long long)field.value.ullVal; break;
    case k_nvml_value_sll: value = field.value.sllVal; break;
    case k_nvml_value_sint: value = field.value.siVal; break;
    case k_nvml_value_ushort: value = field.value.usVal; break;
    default: value = field.value.uiVal; break;
  }
  emit_int(key, value);
}

static void mig_devices(const struct gd_nvml_health_api* api, nvmlDevice_t device, const char* prefix);

static void modes(const struct gd_nvml_health_api* api, nvmlDevice_t device, const char* prefix) {
  char key[128];
  key_of(key, sizeof key, prefix, "inforom");
  if (!g_validate_inforom) {
    emit_sub(key, "skipped", "1");
  } else if (api->validate_inforom == NULL) {
    emit_missing(key, "nvmlDeviceValidateInforom");
  } else {
    emit_sub_int(key, "result", api->validate_inforom(device));  /* 0 valid, 14 corrupted */
  }
  key_of(key, sizeof key, prefix, "persistence");
  if (api->persistence == NULL) {
    emit_missing(key, "nvmlDeviceGetPersistenceMode");
  } else {
    nvmlEnableState_t mode = 0;
    nvmlReturn_t r = api->persistence(device, &mode);
    r == 0 ? emit_int(key, mode) : emit_sub_int(key, "result", r);
  }
  /* A display on the GPU marks a desktop, where persistence mode is rightly off. */
  key_of(key, sizeof key, prefix, "display_active");
  if (api->display_active == NULL) {
    emit_missing(key, "nvmlDeviceGetDisplayActive");
  } else {
    nvmlEnableState_t active = 0;
    nvmlReturn_t r = api->display_active(device, &active);
    r == 0 ? emit_int(key, active) : emit_sub_int(key, "result", r);
  }
  key_of(key, sizeof key, prefix, "compute_mode");
  if (api->compute_mode == NULL) {
    emit_missing(key, "nvmlDeviceGetComputeMode");
  } else {
    int mode = 0;
    nvmlReturn_t r = api->compute_mode(device, &mode);
    r == 0 ? emit_int(key, mode) : emit_sub_int(key, "result", r);  /* 0 default, 2 prohibited, 3 exclusive process */
  }
  key_of(key, sizeof key, prefix, "mig_mode");
  if (api->mig_mode == NULL) {
    emit_missing(key, "nvmlDeviceGetMigMode");
  } else {
    unsigned int current = 0, pending = 0;
    nvmlReturn_t r = api->mig_mode(device, &current, &pending);
    if (r == 0) {
      emit_sub_int(key, "current", current);
      emit_sub_int(key, "pending", pending);
      if (current == 1) mig_devices(api, device, prefix);
    } else {
      emit_sub_int(key, "result", r);
    }
  }
  key_of(key, sizeof key, prefix, "clocks_event_reasons");
  if (api->clocks_event_reasons == NULL) {
    emit_missing(key, "nvmlDeviceGetCurrentClocksEventReasons");
  } else {
    unsigned long long reasons = 0;
    nvmlReturn_t r = api->clocks_event_reasons(device, &reasons);
    r == 0 ? emit_int(key, (long long)reasons) : emit_sub_int(key, "result", r);
  }
}

/* The link as it is now and as it could be. The performance state is read before and after:
 * the current link is only comparable with the maximum in P0 (an idle GPU trains down to save
 * power; DCGM's PCIe check reads it in P0 only, after traffic). */
static void pcie(const struct gd_nvml_health_api* api, nvmlDevice_t device, const char* prefix) {
  char key[128];
  key_of(key, sizeof key, prefix, "pstate");
  int before = -1, after = -1;
  nvmlReturn_t pstate_result = 0;
  if (api->performance_state == NULL) {
    emit_missing(key, "nvmlDeviceGetPerformanceState");
  } else if ((pstate_result = api->performance_state(device, &before)) != 0) {
    before = -1;
  }
  emit_uint_query(prefix, "pcie.gen_current", api->pcie_gen_current, "nvmlDeviceGetCurrPcieLinkGeneration", device);
  emit_uint_query(prefix, "pcie.width_current", api->pcie_width_current, "nvmlDeviceGetCurrPcieLinkWidth", device);
  emit_uint_query(prefix, "pcie.gen_max", api->pcie_gen_max, "nvmlDeviceGetMaxPcieLinkGeneration", device);
  emit_uint_query(prefix, "pcie.width_max", api->pcie_width_max, "nvmlDeviceGetMaxPcieLinkWidth", device);
  emit_uint_query(prefix, "pcie.gen_gpu_max", api->pcie_gen_gpu_max, "nvmlDeviceGetGpuMaxPcieLinkGeneration", device);
  if (api->performance_state != NULL && api->performance_state(device, &after) != 0) {
    after = -1;
  }
  if (before >= 0) {
    emit_int(key, before);
    if (after >= 0) emit_sub_int(key, "after", after);
  } else if (api->performance_state != NULL) {
    emit_sub_int(key, "result", pstate_result);
  }
}

/* The GPU's place in an NVLink fabric (Hopper and later with NVSwitch, GB200 NVL). */
static void fabric(const struct gd_nvml_health_api* api, nvmlDevice_t device, const char* prefix) {
  char key[128];
  key_of(key, sizeof key, prefix, "fabric");
  nvmlReturn_t r = -1;
  nvmlGpuFabricState_t state = 0;
  nvmlReturn_t status = 0;
  long long mask = -1, summary = -1;
  unsigned int clique = 0;
  unsigned char cluster[16] = {0};
  if (api->fabric_v != NULL) {
    nvmlGpuFabricInfo_v3_t v3;
    memset(&v3, 0, sizeof v3);
    v3.version = GD_NVML_STRUCT_VERSION(nvmlGpuFabricInfo_v3_t, 3);
    r = api->fabric_v(device, &v3);
    if (r == 0) {
      state = v3.state, status = v3.status, mask = v3.healthMask, summary = v3.healthSummary, clique = v3.cliqueId;
      memcpy(cluster, v3.clusterUuid, sizeof cluster);
    } else if (r == k_nvml_argument_version_mismatch) {  /* a 550-575 driver knows version 2 only */
      nvmlGpuFabricInfo_v2_t v2;
      memset(&v2, 0, sizeof v2);
      v2.version = GD_NVML_STRUCT_VERSION(nvmlGpuFabricInfo_v2_t, 2);
      r = api->fabric_v(device, &v2);
      if (r == 0) state = v2.state, status = v2.status, mask = v2.healthMask, clique = v2.cliqueId;
      if (r == 0) memcpy(cluster, v2.clusterUuid, sizeof cluster);
    }
  } else if (api->fabric_v1 != NULL) {
    nvmlGpuFabricInfo_v1_t v1;
    memset(&v1, 0, sizeof v1);
    r = api->fabric_v1(device, &v1);
    if (r == 0) state = v1.state, status = v1.status, clique = v1.cliqueId;
    if (r == 0) memcpy(cluster, v1.clusterUuid, sizeof cluster);
  } else {
    emit_missing(key, "nvmlDeviceGetGpuFabricInfoV");
    return;
  }
  if (r != 0) {
    emit_sub_int(key, "result", r);  /* NOT_SUPPORTED: no fabric (PCIe cards, single GPUs) */
    return;
  }
  emit_sub_int(key, "state", state);
  if (state == 3) emit_sub_int(key, "status", status);  /* "must be checked only if state is complete" */
  if (mask >= 0) emit_sub_int(key, "health_mask", mask);
  if (summary >= 0) emit_sub_int(key, "health_summary", summary);
  if (state == 3) emit_sub_int(key, "clique_id", clique);
  /* 1.4: the NVLink domain the GPU's fabric manager registered it in; the GPUs of the nodes of one
   * multi-node NVLink domain (GB200 NVL72) share it, with a clique each partition. */
  if (state == 3) {
    char text[40];
    format_uuid_bytes(cluster, text);
    emit_sub(key, "cluster_uuid", text);
  }
}

/* The GPU's memory as NVML counts it (all processes, the driver's reservation included): with
 * the processes' own use it tells a GPU that another job filled from one that is broken. */
static void memory(const struct gd_nvml_health_api* api, nvmlDevice_t device, const char* prefix) {
  char key[128];
  key_of(key, sizeof key, prefix, "memory");
  if (api->memory_info == NULL) {
    emit_missing(key, "nvmlDeviceGetMemoryInfo");
    return;
  }
  nvmlMemory_t mem;
  memset(&mem, 0, sizeof mem);
  nvmlReturn_t r = api->memory_info(device, &mem);
  if (r != 0) {
    emit_sub_int(key, "result", r);
    return;
  }
  emit_sub_int(key, "total_mib", (long long)(mem.total >> 20));
  emit_sub_int(key, "used_mib", (long long)(mem.used >> 20));
}

/* A GPU in MIG mode is used through its MIG devices (a GPU instance with a compute instance):
 * how many exist, whatever this process may open (nvidia-smi -L lists the same). */
static void mig_devices(const struct gd_nvml_health_api* api, nvmlDevice_t device, const char* prefix) {
  char key[128];
  key_of(key, sizeof key, prefix, "mig_devices");
  if (api->max_mig_devices == NULL || api->mig_device_handle == NULL) {
    emit_missing(key, api->max_mig_devices == NULL ? "nvmlDeviceGetMaxMigDeviceCount" : "nvmlDeviceGetMigDeviceHandleByIndex");
    return;
  }
  unsigned int max = 0;
  nvmlReturn_t r = api->max_mig_devices(device, &max);
  if (r != 0) {
    emit_sub_int(key, "result", r);
    return;
  }
  if (max > 64) max = 64;  /* 7 on A100/H100/H200; a bound against a garbage answer */
  unsigned int found = 0;
  char uuids[k_max_value];
  size_t used = 0;
  uuids[0] = '\0';
  for (unsigned int i = 0; i < max; ++i) {
    nvmlDevice_t mig = NULL;
    r = api->mig_device_handle(device, i, &mig);
    if (r == k_nvml_not_found) continue;  /* no MIG device at this index */
    if (r != 0) {
      emit_sub_int(key, "result", r);
      return;
    }
    ++found;
    char uuid[k_text_buffer];
    if (api->uuid != NULL && api->uuid(mig, uuid, sizeof uuid) == 0) {
      uuid[sizeof uuid - 1] = '\0';
      size_t len = strlen(uuid);
      if (used + len + 2 < sizeof uuids) {
        used += (size_t)snprintf(uuids + used, sizeof uuids - used, "%s%s", used ? "," : "", uuid);
      }
    }
  }
  emit_sub_int(key, "count", found);
  if (used > 0) emit_sub(key, "uuids", uuids);
}

/* Whether the pids NVML reports are this process's pids: NVML gives host pids (the driver knows
 * no PID namespaces), so a name read from /proc is right only in the host's PID namespace. The
 * kernel's kthreadd is pid 2 there and in no other PID namespace. */
static int in_host_pid_namespace(void) {
  static int answer = -1;
  if (answer >= 0) return answer;
  char comm[32] = {0};
  int fd = open("/proc/2/comm", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ssize_t n = fd >= 0 ? read(fd, comm, sizeof comm - 1) : -1;
  if (fd >= 0) close(fd);
  answer = n > 0 && strncmp(comm, "kthreadd\n", 9) == 0;
  return answer;
}

/* The command name of a pid (/proc/PID/comm, at most 15 bytes), kept to characters that need no
 * escaping in a comma-separated list; "?" when unreadable. */
static void process_name(unsigned int pid, char* out, size_t size) {
  char path[48];
  snprintf(path, sizeof path, "/proc/%u/comm", pid);
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ssize_t n = fd >= 0 ? read(fd, out, size - 1) : -1;
  if (fd >= 0) close(fd);
  if (n <= 0) {
    snprintf(out, size, "?");
    return;
  }
  out[n] = '\0';
  for (ssize_t i = 0; i < n; ++i) {
    unsigned char c = (unsigned char)out[i];
    if (c == '\n') {
      out[i] = '\0';
      break;
    }
    if (c < 0x20 || c >= 0x7f || c == ',' || c == '\\') out[i] = '_';
  }
  if (out[0] == '\0') snprintf(out, size, "?");
}

/* Compute processes on the GPU, other than this helper (whose contexts exist by now): their pids,
 * the memory each holds (MiB; "?" where NVML cannot tell, e.g. without the right to see it) and,
 * in the host's PID namespace, their names. */
static void processes(const struct gd_nvml_health_api* api, nvmlDevice_t device, const char* prefix) {
  char key[128];
  key_of(key, sizeof key, prefix, "processes");
  if (api->processes == NULL) {
    emit_missing(key, "nvmlDeviceGetComputeRunningProcesses_v3");
    return;
  }
  unsigned int count = 0;
  nvmlReturn_t r = api->processes(device, &count, NULL);
  for (int attempt = 0; r == k_nvml_insufficient_size && attempt < 3; ++attempt) {
    unsigned int room = count * 2 + 8;
    if (room > 4096) room = 4096;
    unsigned char* buffer = calloc(room, 32);  /* big enough for every entry size */
    if (buffer == NULL) break;
    count = room;
    r = api->processes(device, &count, buffer);
    if (r == 0) {
      char pids[k_max_value], used_mib[k_max_value], names[k_max_value];
      size_t pids_len = 0, used_len = 0, names_len = 0;
      unsigned int others = 0;
      pid_t self = getpid();
      const int named = in_host_pid_namespace();
      int names_full = 0;
      for (unsigned int i = 0; i < count && i < room; ++i) {
        unsigned int pid;
        unsigned long long bytes;
        const unsigned char* entry = buffer + (size_t)i * api->process_stride;
        memcpy(&pid, entry, sizeof pid);        /* pid is the first field */
        memcpy(&bytes, entry + 8, sizeof bytes); /* usedGpuMemory the second, at 8 in every version */
        if ((pid_t)pid == self || pid == 0) continue;
        ++others;
        if (pids_len + 12 >= sizeof pids || used_len + 24 >= sizeof used_mib) continue;  /* the count stays right */
        pids_len += (size_t)snprintf(pids + pids_len, sizeof pids - pids_len, "%s%u", pids_len ? "," : "", pid);
        /* NVML_VALUE_NOT_AVAILABLE is all ones */
        if (bytes == ~0ULL) {
          used_len += (size_t)snprintf(used_mib + used_len, sizeof used_mib - used_len, "%s?", used_len ? "," : "");
        } else {
          used_len += (size_t)snprintf(used_mib + used_len, sizeof used_mib - used_len, "%s%llu", used_len ? "," : "", bytes >> 20);
        }
        if (named) {
          char name[32];
          process_name(pid, name, sizeof name);
          if (names_full || names_len + strlen(name) + 2 >= sizeof names) {
            names_full = 1;  /* the names stay aligned with the pids: a shorter list, never a shifted one */
          } else {
            names_len += (size_t)snprintf(names + names_len, sizeof names - names_len, "%s%s", names_len ? "," : "", name);
          }
        }
      }
      free(buffer);
      emit_sub_int(key, "count", others);
      if (others > 0) {
        emit_sub(key, "pids", pids);
        emit_sub(key, "used_mib", used_mib);
        if (named) emit_sub(key, "names", names);
      }
      return;
    }
    free(buffer);
  }
  if (r == 0) {
    emit_sub_int(key, "count", 0);  /* the first call found none */
  } else {
    emit_sub_int(key, "result", r);
  }
}

void probe_nvml_health(const struct gd_nvml_health_api* api, nvmlDevice_t device, const char* prefix) {
  ecc(api, device, prefix);
  row_remapping(api, device, prefix);
  retired_pages(api, device, prefix);
  recovery_action(api, device, prefix);
  modes(api, device, prefix);
  pcie(api, device, prefix);
  fabric(api, device, prefix);
  memory(api, device, prefix);
  processes(api, device, prefix);
}
