/* The CUDA driver API part of gpudoctor-cuda-helper: cuInit, every device's properties, a
 * primary context and a 1 MiB allocation. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "cuda_api.h"
#include "reply.h"

static cu_error_str_fn g_cu_error_name;

static void emit_cu_name(const char* prefix, CUresult result) {
  const char* name = NULL;
  if (g_cu_error_name != NULL && g_cu_error_name(result, &name) == 0 && name != NULL) {
    emit_sub(prefix, "name", name);
  }
}

/* CUuuid → "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi prints it. */
static void format_uuid(const CUuuid* uuid, char* out) {
  static const char k_hex[] = "0123456789abcdef";
  char* p = out + sprintf(out, "GPU-");
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) {
      *p++ = '-';
    }
    *p++ = k_hex[(unsigned char)uuid->bytes[i] >> 4];
    *p++ = k_hex[(unsigned char)uuid->bytes[i] & 15];
  }
  *p = '\0';
}

static void probe_cuda_device(void* lib, int index) {
  char prefix[64], key[96], text[k_text_buffer];
  CUdevice device = index;
  snprintf(prefix, sizeof prefix, "cuda.device.%d", index);
  stage_n("device", index);

  cu_device_get_fn device_get;
  LOAD_FN(device_get, lib, "cuDeviceGet");
  if (device_get != NULL) {
    CUresult r = device_get(&device, index);
    if (r != 0) {
      emit_sub_int(prefix, "result", r);
      return;
    }
  }

  cu_name_fn name_fn;
  LOAD_FN(name_fn, lib, "cuDeviceGetName");
  snprintf(key, sizeof key, "%s.name", prefix);
  if (name_fn == NULL) {
    emit_missing(key, "cuDeviceGetName");
  } else {
    CUresult r = name_fn(text, (int)sizeof text, device);
    text[sizeof text - 1] = '\0';
    r == 0 ? emit(key, text) : emit_sub_int(key, "result", r);
  }

  cu_uuid_fn uuid_fn;
  LOAD_FN(uuid_fn, lib, "cuDeviceGetUuid_v2");
  if (uuid_fn == NULL) {
    LOAD_FN(uuid_fn, lib, "cuDeviceGetUuid"); /* drivers before 11.4 */
  }
  snprintf(key, sizeof key, "%s.uuid", prefix);
  if (uuid_fn == NULL) {
    emit_missing(key, "cuDeviceGetUuid_v2");
  } else {
    CUuuid uuid;
    CUresult r = uuid_fn(&uuid, device);
    if (r == 0) {
      format_uuid(&uuid, text);
      emit(key, text);
    } else {
      emit_sub_int(key, "result", r);
    }
  }

  cu_name_fn bus_fn;
  LOAD_FN(bus_fn, lib, "cuDeviceGetPCIBusId");
  snprintf(key, sizeof key, "%s.pci_bus_id", prefix);
  if (bus_fn == NULL) {
    emit_missing(key, "cuDeviceGetPCIBusId");
  } else {
    CUresult r = bus_fn(text, (int)sizeof text, device);
    text[sizeof text - 1] = '\0';
    r == 0 ? emit(key, text) : emit_sub_int(key, "result", r);
  }

  cu_attr_fn attr_fn;
  LOAD_FN(attr_fn, lib, "cuDeviceGetAttribute");
  static const struct { int attribute; const char* suffix; } k_attributes[] = {
      {k_cu_attr_cc_major, "cc_major"},
      {k_cu_attr_cc_minor, "cc_minor"},
  };
  for (size_t i = 0; i < sizeof k_attributes / sizeof k_attributes[0]; ++i) {
    snprintf(key, sizeof key, "%s.%s", prefix, k_attributes[i].suffix);
    int value = 0;
    if (attr_fn == NULL) {
      emit_missing(key, "cuDeviceGetAttribute");
      continue;
    }
    CUresult r = attr_fn(&value, k_attributes[i].attribute, device);
    r == 0 ? emit_int(key, value) : emit_sub_int(key, "result", r);
  }

  cu_total_mem_fn mem_fn;
  LOAD_FN(mem_fn, lib, "cuDeviceTotalMem_v2");
  snprintf(key, sizeof key, "%s.total_memory_bytes", prefix);
  if (mem_fn == NULL) {
    emit_missing(key, "cuDeviceTotalMem_v2");
  } else {
    size_t bytes = 0;
    CUresult r = mem_fn(&bytes, device);
    r == 0 ? emit_int(key, (long long)bytes) : emit_sub_int(key, "result", r);
  }

  /* A primary context and a 1 MiB allocation: the first calls that touch the GPU for real
   * (802 without fabric manager, 2 out of memory, 46 exclusive compute mode...). */
  stage_n("context", index);
  cu_retain_fn retain_fn;
  cu_set_current_fn set_current_fn;
  LOAD_FN(retain_fn, lib, "cuDevicePrimaryCtxRetain");
  LOAD_FN(set_current_fn, lib, "cuCtxSetCurrent");
  snprintf(key, sizeof key, "%s.context", prefix);
  if (retain_fn == NULL || set_current_fn == NULL) {
    emit_missing(key, retain_fn == NULL ? "cuDevicePrimaryCtxRetain" : "cuCtxSetCurrent");
    return;
  }
  CUcontext context = NULL;
  CUresult r = retain_fn(&context, device);
  int retained = r == 0;
  if (r == 0) {
    r = set_current_fn(context);
  }
  emit_sub_int(key, "result", r);
  emit_cu_name(key, r);

  if (r == 0) {
    cu_alloc_fn alloc_fn;
    cu_free_fn free_fn;
    LOAD_FN(alloc_fn, lib, "cuMemAlloc_v2");
    LOAD_FN(free_fn, lib, "cuMemFree_v2");
    snprintf(key, sizeof key, "%s.alloc", prefix);
    if (alloc_fn == NULL || free_fn == NULL) {
      emit_missing(key, alloc_fn == NULL ? "cuMemAlloc_v2" : "cuMemFree_v2");
    } else {
      CUdeviceptr pointer = 0;
      CUresult a = alloc_fn(&pointer, (size_t)1 << 20);
      if (a == 0) {
        a = free_fn(pointer);
      }
      emit_sub_int(key, "result", a);
      emit_cu_name(key, a);
    }
    set_current_fn(NULL);
  }

  if (retained) {
    cu_release_fn release_fn;
    LOAD_FN(release_fn, lib, "cuDevicePrimaryCtxRelease_v2");
    if (release_fn == NULL) {
      LOAD_FN(release_fn, lib, "cuDevicePrimaryCtxRelease");
    }
    if (release_fn != NULL) {
      release_fn(device);
    }
  }
}

void probe_cuda(const char* path) {
  stage("dlopen-cuda");
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    const char* error = dlerror();
    emit("cuda.dlopen", "fail");
    emit("cuda.dlerror", error ? error : "");
    return;
  }
  emit("cuda.dlopen", "ok");

  cu_int_fn version_fn;
  cu_init_fn init_fn;
  cu_error_str_fn error_string;
  LOAD_FN(version_fn, lib, "cuDriverGetVersion");
  LOAD_FN(init_fn, lib, "cuInit");
  LOAD_FN(g_cu_error_name, lib, "cuGetErrorName");
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
    return;
  }
  long long start = now_us();
  CUresult r = init_fn(0);
  long long elapsed = now_us() - start;
  emit_int("cuda.init.result", r);
  emit_cu_name("cuda.init", r);
  const char* text = NULL;
  if (error_string != NULL && error_string(r, &text) == 0 && text != NULL) {
    emit("cuda.init.text", text);
  }
  emit_int("cuda.init.duration_us", elapsed);
  if (r != 0) {
    return; /* every later call would only repeat the error */
  }

  stage("cuDeviceGetCount");
  cu_int_fn count_fn;
  LOAD_FN(count_fn, lib, "cuDeviceGetCount");
  if (count_fn == NULL) {
    emit_missing("cuda.device_count", "cuDeviceGetCount");
    return;
  }
  int count = 0;
  r = count_fn(&count);
  emit_int("cuda.device_count.result", r);
  if (r != 0) {
    return;
  }
  emit_int("cuda.device_count", count);
  for (int i = 0; i < count && i < k_max_devices; ++i) {
    probe_cuda_device(lib, i);
  }
  /* lib stays loaded: unloading libcuda at exit has crashed on some drivers. */
}
