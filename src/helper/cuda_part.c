/* The CUDA driver API part of gpudoctor-cuda-helper: cuInit, then every GPU proven at once, one
 * thread each (cuda_part.h). */
#define _GNU_SOURCE
#include "cuda_part.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reply.h"

static struct gd_task* g_after_init;
static enum gd_nvml_start g_nvml_start = k_nvml_start_init;
static int g_nvml_started;

static enum gd_nvml_start nvml_start_from_environment(void) {
  const char* text = getenv("GPUDOCTOR_HELPER_NVML_START"); /* bench/ only */
  if (text != NULL && strcmp(text, "context") == 0) return k_nvml_start_context;
  if (text != NULL && strcmp(text, "proof") == 0) return k_nvml_start_proof;
  return k_nvml_start_init;
}

/* Starts NVML's task the first time it is called: every way out of probe_cuda calls it. */
static void start_after_init_once(void) {
  if (g_after_init != NULL && __atomic_exchange_n(&g_nvml_started, 1, __ATOMIC_ACQ_REL) == 0) {
    task_start(g_after_init);
  }
}

void nvml_start_point_reached(enum gd_nvml_start point) {
  if (point >= g_nvml_start) start_after_init_once();
}

static void load_api(void* lib, struct gd_cuda_api* api) {
  memset(api, 0, sizeof *api);
  LOAD_FN(api->error_name, lib, "cuGetErrorName");
  LOAD_FN(api->device_get, lib, "cuDeviceGet");
  LOAD_FN(api->device_name, lib, "cuDeviceGetName");
  LOAD_FN(api->device_uuid, lib, "cuDeviceGetUuid_v2");
  if (api->device_uuid == NULL) {
    LOAD_FN(api->device_uuid, lib, "cuDeviceGetUuid"); /* drivers before 11.4 */
  }
  LOAD_FN(api->device_bus_id, lib, "cuDeviceGetPCIBusId");
  LOAD_FN(api->device_attribute, lib, "cuDeviceGetAttribute");
  LOAD_FN(api->device_total_mem, lib, "cuDeviceTotalMem_v2");
  LOAD_FN(api->primary_ctx_retain, lib, "cuDevicePrimaryCtxRetain");
  LOAD_FN(api->ctx_set_current, lib, "cuCtxSetCurrent");
  LOAD_FN(api->mem_alloc, lib, "cuMemAlloc_v2");
  LOAD_FN(api->mem_free, lib, "cuMemFree_v2");
  LOAD_FN(api->module_load_ex, lib, "cuModuleLoadDataEx");
  LOAD_FN(api->module_get_function, lib, "cuModuleGetFunction");
  LOAD_FN(api->launch_kernel, lib, "cuLaunchKernel");
  LOAD_FN(api->ctx_synchronize, lib, "cuCtxSynchronize");
  LOAD_FN(api->memcpy_dtoh, lib, "cuMemcpyDtoH_v2");
  LOAD_FN(api->can_access_peer, lib, "cuDeviceCanAccessPeer");
  LOAD_FN(api->enable_peer, lib, "cuCtxEnablePeerAccess");
  LOAD_FN(api->memcpy_peer, lib, "cuMemcpyPeer");
  LOAD_FN(api->memset_d32, lib, "cuMemsetD32_v2");
  LOAD_FN(api->memcpy_peer_async, lib, "cuMemcpyPeerAsync");
  LOAD_FN(api->event_create, lib, "cuEventCreate");
  LOAD_FN(api->event_record, lib, "cuEventRecord");
  LOAD_FN(api->event_synchronize, lib, "cuEventSynchronize");
  LOAD_FN(api->event_elapsed, lib, "cuEventElapsedTime_v2"); /* CUDA 12.8+; cuda.h 13 declares only _v2 */
  if (api->event_elapsed == NULL) LOAD_FN(api->event_elapsed, lib, "cuEventElapsedTime");
}

void emit_cu_call(const struct gd_cuda_api* api, const char* key, CUresult result) {
  emit_sub_int(key, "result", result);
  const char* name = NULL;
  if (api->error_name != NULL && api->error_name(result, &name) == 0 && name != NULL) emit_sub(key, "name", name);
}

/* Every GPU in its own thread, waited for until the deadline: one GPU that hangs in its context
 * (or crashes in libcuda) is reported as stuck (crashed) and the others keep their results. */
static void prove_devices(const struct gd_cuda_api* api, int count, long long deadline_us) {
  int started = count < k_max_device_tasks ? count : k_max_device_tasks;
  if (count > started) {
    emit_int("cuda.devices_not_started", count - started);
  }
  static struct gd_task tasks[k_max_device_tasks];
  static struct gd_device_work work[k_max_device_tasks];
  for (int i = 0; i < started; ++i) {
    work[i].api = api;
    work[i].index = i;
    snprintf(tasks[i].key, sizeof tasks[i].key, "cuda.device.%d", i);
    tasks[i].prefix = tasks[i].key;
    tasks[i].run = prove_cuda_device;
    tasks[i].arg = &work[i];
    tasks[i].index = i;
  }
  peer_setup(tasks, started, deadline_us);
  stage("devices");
  for (int i = 0; i < started; ++i) {
    task_start(&tasks[i]);
  }
  tasks_wait(tasks, started, deadline_us);
}

void probe_cuda(const char* path, long long deadline_us, struct gd_task* after_init) {
  g_after_init = after_init;
  g_nvml_start = nvml_start_from_environment();
  stage("dlopen-cuda");
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    const char* error = dlerror();
    emit("cuda.dlopen", "fail");
    emit("cuda.dlerror", error ? error : "");
    start_after_init_once();
    return;
  }
  emit("cuda.dlopen", "ok");

  cu_int_fn version_fn;
  cu_init_fn init_fn;
  cu_error_str_fn error_string;
  static struct gd_cuda_api api;
  load_api(lib, &api);
  LOAD_FN(version_fn, lib, "cuDriverGetVersion");
  LOAD_FN(init_fn, lib, "cuInit");
  LOAD_FN(error_string, lib, "cuGetErrorString");
  void* any_symbol = load(lib, "cuInit");
  emit_library_path("cuda.path", any_symbol ? any_symbol : load(lib, "cuDriverGetVersion"));

  stage("cuDriverGetVersion");
  if (version_fn == NULL) {
    emit_missing("cuda.driver_version", "cuDriverGetVersion");
  } else {
    int version = 0;
    CUresult r = version_fn(&version);
    emit_int("cuda.driver_version.result", r);
    if (r == 0) {
      emit_int("cuda.driver_version", version);
    }
  }

  stage("cuInit");
  if (init_fn == NULL) {
    emit_missing("cuda.init", "cuInit");
    start_after_init_once();
    return;
  }
  long long start = now_us();
  CUresult r = init_fn(0);
  long long elapsed = now_us() - start;
  emit_int("cuda.init.result", r);
  const char* name = NULL;
  if (api.error_name != NULL && api.error_name(r, &name) == 0 && name != NULL) {
    emit("cuda.init.name", name);
  }
  const char* text = NULL;
  if (error_string != NULL && error_string(r, &text) == 0 && text != NULL) {
    emit("cuda.init.text", text);
  }
  emit_int("cuda.init.duration_us", elapsed);
  if (r != 0) {
    start_after_init_once();
    return; /* every later call would only repeat the error */
  }
  nvml_start_point_reached(k_nvml_start_init);

  stage("cuDeviceGetCount");
  cu_int_fn count_fn;
  LOAD_FN(count_fn, lib, "cuDeviceGetCount");
  if (count_fn == NULL) {
    emit_missing("cuda.device_count", "cuDeviceGetCount");
    start_after_init_once();
    return;
  }
  int count = 0;
  r = count_fn(&count);
  emit_int("cuda.device_count.result", r);
  if (r != 0) {
    start_after_init_once();
    return;
  }
  emit_int("cuda.device_count", count);
  prove_devices(&api, count < k_max_devices ? count : k_max_devices, deadline_us);
  start_after_init_once();
  /* lib stays loaded: unloading libcuda at exit has crashed on some drivers. */
}
