/* One GPU's proof in gpudoctor-cuda-helper (cuda_part.h). Every line names the GPU
 * (`cuda.device.N.…`), so the lines of several GPUs can interleave. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cuda_part.h"
#include "kernel_proof.h"
#include "reply.h"

/* CUuuid → "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi prints it. */
static void format_uuid(const CUuuid* uuid, char* out) {
  memcpy(out, "GPU-", 4);
  format_uuid_bytes((const unsigned char*)uuid->bytes, out + 4);
}

static void emit_properties(const struct gd_cuda_api* api, const char* prefix, CUdevice device) {
  char key[96], text[k_text_buffer];
  snprintf(key, sizeof key, "%s.name", prefix);
  if (api->device_name == NULL) {
    emit_missing(key, "cuDeviceGetName");
  } else {
    CUresult r = api->device_name(text, (int)sizeof text, device);
    text[sizeof text - 1] = '\0';
    r == 0 ? emit(key, text) : emit_sub_int(key, "result", r);
  }

  snprintf(key, sizeof key, "%s.uuid", prefix);
  if (api->device_uuid == NULL) {
    emit_missing(key, "cuDeviceGetUuid_v2");
  } else {
    CUuuid uuid;
    CUresult r = api->device_uuid(&uuid, device);
    if (r == 0) {
      format_uuid(&uuid, text);
      emit(key, text);
    } else {
      emit_sub_int(key, "result", r);
    }
  }

  snprintf(key, sizeof key, "%s.pci_bus_id", prefix);
  if (api->device_bus_id == NULL) {
    emit_missing(key, "cuDeviceGetPCIBusId");
  } else {
    CUresult r = api->device_bus_id(text, (int)sizeof text, device);
    text[sizeof text - 1] = '\0';
    r == 0 ? emit(key, text) : emit_sub_int(key, "result", r);
  }

  static const struct { int attribute; const char* suffix; } k_attributes[] = {
      {k_cu_attr_cc_major, "cc_major"},
      {k_cu_attr_cc_minor, "cc_minor"},
  };
  for (size_t i = 0; i < sizeof k_attributes / sizeof k_attributes[0]; ++i) {
    snprintf(key, sizeof key, "%s.%s", prefix, k_attributes[i].suffix);
    int value = 0;
    if (api->device_attribute == NULL) {
      emit_missing(key, "cuDeviceGetAttribute");
      continue;
    }
    CUresult r = api->device_attribute(&value, k_attributes[i].attribute, device);
    r == 0 ? emit_int(key, value) : emit_sub_int(key, "result", r);
  }

  snprintf(key, sizeof key, "%s.total_memory_bytes", prefix);
  if (api->device_total_mem == NULL) {
    emit_missing(key, "cuDeviceTotalMem_v2");
  } else {
    size_t bytes = 0;
    CUresult r = api->device_total_mem(&bytes, device);
    r == 0 ? emit_int(key, (long long)bytes) : emit_sub_int(key, "result", r);
  }
}

/* The PTX module, JIT-compiled for this GPU by the driver; 0 and the function on success. */
static CUresult load_proof_kernel(struct gd_task* task, const struct gd_cuda_api* api, CUfunction* function) {
  char key[96];
  snprintf(key, sizeof key, "%s.module", task->prefix);
  if (api->module_load_ex == NULL || api->module_get_function == NULL) {
    emit_missing(key, api->module_load_ex == NULL ? "cuModuleLoadDataEx" : "cuModuleGetFunction");
    return -1;
  }
  task_stage(task, "module");
  char error_log[1024];
  error_log[0] = '\0';
  float wall_ms = 0;
  CUjit_option options[] = {k_cu_jit_error_log_buffer, k_cu_jit_error_log_buffer_size, k_cu_jit_wall_time};
  void* values[] = {error_log, (void*)(uintptr_t)sizeof error_log, NULL};
  CUmodule module = NULL;
  long long start = now_us();
  CUresult r = api->module_load_ex(&module, k_proof_ptx, 3, options, values);
  emit_sub_int(key, "duration_us", now_us() - start);
  emit_cu_call(api, key, r);
  memcpy(&wall_ms, &values[2], sizeof wall_ms); /* CU_JIT_WALL_TIME comes back as a float */
  if (r == 0 && wall_ms > 0 && wall_ms < 1e6f) {
    emit_sub_int(key, "jit_us", (long long)(wall_ms * 1000.0f));
  }
  error_log[sizeof error_log - 1] = '\0';
  if (error_log[0] != '\0') {
    emit_sub(key, "log", error_log);
  }
  if (r != 0) {
    return r;
  }
  r = api->module_get_function(function, module, GD_PROOF_KERNEL_NAME);
  if (r != 0) {
    snprintf(key, sizeof key, "%s.function", task->prefix);
    emit_cu_call(api, key, r);
  }
  return r;
}

/* Launch over 4,096 threads, wait for it, copy the result back and check every element; 1 when
 * every element was right. */
static int run_proof_kernel(struct gd_task* task, const struct gd_cuda_api* api, CUfunction function,
                            CUdeviceptr buffer) {
  char key[96];
  if (api->launch_kernel == NULL || api->ctx_synchronize == NULL || api->memcpy_dtoh == NULL) {
    snprintf(key, sizeof key, "%s.launch", task->prefix);
    emit_missing(key, api->launch_kernel == NULL ? "cuLaunchKernel"
                      : api->ctx_synchronize == NULL ? "cuCtxSynchronize" : "cuMemcpyDtoH_v2");
    return 0;
  }
  unsigned int count = k_proof_elements;
  unsigned int seed = 0x5eed0000u + (unsigned int)task->index;
  void* params[] = {&buffer, &count, &seed};
  task_stage(task, "launch");
  long long start = now_us();
  CUresult r = api->launch_kernel(function, k_proof_blocks, 1, 1, k_proof_block, 1, 1, 0, NULL, params, NULL);
  snprintf(key, sizeof key, "%s.launch", task->prefix);
  emit_cu_call(api, key, r);
  if (r != 0) return 0;
  task_stage(task, "sync");
  r = api->ctx_synchronize();
  snprintf(key, sizeof key, "%s.sync", task->prefix);
  emit_cu_call(api, key, r);
  emit_sub_int(key, "duration_us", now_us() - start);
  if (r != 0) return 0;
  task_stage(task, "copy");
  static __thread uint32_t values[k_proof_elements];
  r = api->memcpy_dtoh(values, buffer, sizeof values);
  snprintf(key, sizeof key, "%s.copy", task->prefix);
  emit_cu_call(api, key, r);
  if (r != 0) return 0;
  task_stage(task, "check");
  snprintf(key, sizeof key, "%s.check", task->prefix);
  int wrong = proof_first_wrong(values, count, seed);
  if (wrong < 0) {
    emit(key, "ok");
    return 1;
  }
  char text[96];
  emit(key, "wrong");
  emit_sub_int(key, "index", wrong);
  snprintf(text, sizeof text, "0x%08x", values[wrong]);
  emit_sub(key, "value", text);
  snprintf(text, sizeof text, "0x%08x", proof_value((uint32_t)wrong, seed));
  emit_sub(key, "expected", text);
  return 0;
}

/* The GPU's own proof; 1 when its kernel's output was checked right, with the context and the
 * buffer that hold it. */
static int prove_device_itself(struct gd_task* task, CUcontext* context_out, CUdeviceptr* buffer_out) {
  const struct gd_device_work* work = task->arg;
  const struct gd_cuda_api* api = work->api;
  char key[96];
  CUdevice device = work->index;
  task_stage(task, "properties");
  if (api->device_get != NULL) {
    CUresult r = api->device_get(&device, work->index);
    if (r != 0) {
      emit_sub_int(task->prefix, "result", r);
      return 0;
    }
  }
  emit_properties(api, task->prefix, device);

  /* A primary context and a 1 MiB allocation: the first calls that touch the GPU for real
   * (802 without fabric manager, 2 out of memory, 46 exclusive compute mode...). */
  task_stage(task, "context");
  snprintf(key, sizeof key, "%s.context", task->prefix);
  if (api->primary_ctx_retain == NULL || api->ctx_set_current == NULL) {
    emit_missing(key, api->primary_ctx_retain == NULL ? "cuDevicePrimaryCtxRetain" : "cuCtxSetCurrent");
    return 0;
  }
  CUcontext context = NULL;
  CUresult r = api->primary_ctx_retain(&context, device);
  if (r == 0) {
    r = api->ctx_set_current(context);
  }
  emit_cu_call(api, key, r);
  nvml_start_point_reached(k_nvml_start_context);
  if (r != 0) {
    return 0;
  }

  task_stage(task, "alloc");
  snprintf(key, sizeof key, "%s.alloc", task->prefix);
  if (api->mem_alloc == NULL || api->mem_free == NULL) {
    emit_missing(key, api->mem_alloc == NULL ? "cuMemAlloc_v2" : "cuMemFree_v2");
    return 0;
  }
  CUdeviceptr buffer = 0;
  r = api->mem_alloc(&buffer, (size_t)1 << 20);
  emit_cu_call(api, key, r);
  if (r != 0) {
    return 0;
  }

  *context_out = context;
  *buffer_out = buffer;
  CUfunction function = NULL;
  if (load_proof_kernel(task, api, &function) != 0) return 0;
  return run_proof_kernel(task, api, function, buffer);
}

void prove_cuda_device(struct gd_task* task) {
  CUcontext context = NULL;
  CUdeviceptr buffer = 0;
  int proven = prove_device_itself(task, &context, &buffer);
  const char* failed_step = task->step ? (const char*)task->step : "start";
  task_stage(task, "done");
  /* Then, in the same thread, the pairs it is the source of (cuda_peer.c). The buffer, the
   * module and the context are left to process exit (see cuda_part.h). */
  peer_prove_outgoing(task, proven, failed_step, context, buffer);
}
