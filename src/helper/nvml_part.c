/* The NVML part of gpudoctor-cuda-helper, in its own thread beside the CUDA part: nvmlInit, the
 * driver version and every device's name, UUID, PCI bus id and health (nvml_health.c). Its steps are `nvml.stage` lines,
 * so a hang is reported as `nvml.stuck <step>` while CUDA's results stay. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "nvml_api.h"
#include "nvml_health.h"
#include "nvml_nvlink.h"
#include "nvml_part.h"
#include "reply.h"

static void nvml_steps(struct gd_task* task) {
  const char* path = task->arg;
  char prefix[64], key[96], text[k_text_buffer];
  task_stage(task, "dlopen-nvml");
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    const char* error = dlerror();
    emit("nvml.dlopen", "fail");
    emit("nvml.dlerror", error ? error : "");
    return;
  }
  emit("nvml.dlopen", "ok");

  nvml_void_fn init_fn;
  nvml_error_string_fn error_string;
  LOAD_FN(init_fn, lib, "nvmlInit_v2");
  LOAD_FN(error_string, lib, "nvmlErrorString");
  void* any_symbol = load(lib, "nvmlInit_v2");
  emit_library_path("nvml.path", any_symbol ? any_symbol : load(lib, "nvmlErrorString"));

  task_stage(task, "nvmlInit");
  if (init_fn == NULL) {
    emit_missing("nvml.init", "nvmlInit_v2");
    return;
  }
  nvmlReturn_t r = init_fn();
  emit_int("nvml.init.result", r);
  const char* message = error_string ? error_string(r) : NULL;
  if (message != NULL) {
    emit("nvml.init.text", message);
  }
  if (r != 0) {
    return;
  }

  nvml_text_fn version_fn;
  LOAD_FN(version_fn, lib, "nvmlSystemGetDriverVersion");
  if (version_fn == NULL) {
    emit_missing("nvml.driver_version", "nvmlSystemGetDriverVersion");
  } else if ((r = version_fn(text, sizeof text)) == 0) {
    text[sizeof text - 1] = '\0';
    emit("nvml.driver_version", text);
  } else {
    emit_int("nvml.driver_version.result", r);
  }

  nvml_count_fn count_fn;
  nvml_handle_fn handle_fn;
  nvml_device_text_fn name_fn, uuid_fn;
  nvml_pci_fn pci_fn;
  LOAD_FN(count_fn, lib, "nvmlDeviceGetCount_v2");
  LOAD_FN(handle_fn, lib, "nvmlDeviceGetHandleByIndex_v2");
  LOAD_FN(name_fn, lib, "nvmlDeviceGetName");
  LOAD_FN(uuid_fn, lib, "nvmlDeviceGetUUID");
  LOAD_FN(pci_fn, lib, "nvmlDeviceGetPciInfo_v3");
  static struct gd_nvml_health_api health;
  load_nvml_health_api(lib, &health);
  unsigned int count = 0;
  if (count_fn == NULL) {
    emit_missing("nvml.device_count", "nvmlDeviceGetCount_v2");
  } else {
    r = count_fn(&count);
    emit_int("nvml.device_count.result", r);
    if (r == 0) {
      emit_int("nvml.device_count", count);
    } else {
      count = 0;
    }
  }
  for (unsigned int i = 0; i < count && i < k_max_devices; ++i) {
    static char step[32]; /* outlives the loop: a stuck report names it */
    snprintf(step, sizeof step, "nvml-device:%u", i);
    task_stage(task, step);
    snprintf(prefix, sizeof prefix, "nvml.device.%u", i);
    nvmlDevice_t device = NULL;
    if (handle_fn == NULL) {
      emit_missing(prefix, "nvmlDeviceGetHandleByIndex_v2");
      break;
    }
    if ((r = handle_fn(i, &device)) != 0) {
      emit_sub_int(prefix, "result", r); /* e.g. 15 GPU_IS_LOST for one fallen-off GPU */
      continue;
    }
    static const struct { const char* suffix; const char* symbol; } k_texts[] = {
        {"name", "nvmlDeviceGetName"},
        {"uuid", "nvmlDeviceGetUUID"},
    };
    for (size_t t = 0; t < 2; ++t) {
      nvml_device_text_fn fn = t == 0 ? name_fn : uuid_fn;
      snprintf(key, sizeof key, "%s.%s", prefix, k_texts[t].suffix);
      if (fn == NULL) {
        emit_missing(key, k_texts[t].symbol);
      } else if ((r = fn(device, text, sizeof text)) == 0) {
        text[sizeof text - 1] = '\0';
        emit(key, text);
      } else {
        emit_sub_int(key, "result", r);
      }
    }
    snprintf(key, sizeof key, "%s.pci_bus_id", prefix);
    nvmlPciInfo_t pci;
    memset(&pci, 0, sizeof pci);
    if (pci_fn == NULL) {
      emit_missing(key, "nvmlDeviceGetPciInfo_v3");
    } else if ((r = pci_fn(device, &pci)) == 0) {
      pci.busId[sizeof pci.busId - 1] = '\0';
      emit(key, pci.busId);
    } else {
      emit_sub_int(key, "result", r);
    }
    probe_nvml_health(&health, device, prefix);
    probe_nvml_nvlink(lib, device, prefix);
  }
}

void probe_nvml(struct gd_task* task) {
  nvml_steps(task);
  /* nvmlShutdown is left to process exit, like CUDA's teardown: nothing waits for it. */
  task_stage(task, "done");
}
