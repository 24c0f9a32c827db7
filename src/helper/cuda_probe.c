/* gpudoctor-cuda-helper: loads libcuda and NVML with dlopen and reports what they say.
 *
 * Built against glibc 2.17 (the main gpudoctor binary is static musl and cannot dlopen a glibc
 * libcuda, GUIDE 5.1) and run by gpudoctor through the host's own loader:
 *   <ld.so> /proc/self/fd/N --reply-fd 3 [--libcuda PATH] [--libnvml PATH] [--only nvml]
 * It writes only to the reply fd (libcuda and NVML may print to stdout/stderr themselves), one
 * write(2) per line so that a hang or crash still leaves every line written before it.
 * Protocol v1 is described in docs/helper-protocol.md.
 *
 * No CUDA headers: the few types and prototypes are declared below, named as in NVIDIA's cuda.h
 * (CUDA 13.0, CUDA_VERSION 13000) and nvml.h (NVML 12.x).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

/* ---- cuda.h ---- */
typedef int CUresult;                                 /* enum cudaError_enum; 0 = CUDA_SUCCESS */
typedef int CUdevice;                                 /* CUdevice_v1 */
typedef struct CUctx_st* CUcontext;
typedef unsigned long long CUdeviceptr;               /* CUdeviceptr_v2 on 64-bit hosts */
typedef struct CUuuid_st { char bytes[16]; } CUuuid;
enum {
  k_cu_attr_cc_major = 75,                            /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
  k_cu_attr_cc_minor = 76,                            /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR */
};
typedef CUresult (*cu_int_fn)(int*);                  /* cuDriverGetVersion, cuDeviceGetCount */
typedef CUresult (*cu_init_fn)(unsigned int);         /* cuInit(Flags) */
typedef CUresult (*cu_error_str_fn)(CUresult, const char**); /* cuGetErrorName/String */
typedef CUresult (*cu_device_get_fn)(CUdevice*, int); /* cuDeviceGet */
typedef CUresult (*cu_name_fn)(char*, int, CUdevice); /* cuDeviceGetName, cuDeviceGetPCIBusId */
typedef CUresult (*cu_uuid_fn)(CUuuid*, CUdevice);    /* cuDeviceGetUuid(_v2) */
typedef CUresult (*cu_attr_fn)(int*, int, CUdevice);  /* cuDeviceGetAttribute */
typedef CUresult (*cu_total_mem_fn)(size_t*, CUdevice); /* cuDeviceTotalMem_v2 */
typedef CUresult (*cu_retain_fn)(CUcontext*, CUdevice); /* cuDevicePrimaryCtxRetain */
typedef CUresult (*cu_set_current_fn)(CUcontext);     /* cuCtxSetCurrent */
typedef CUresult (*cu_alloc_fn)(CUdeviceptr*, size_t); /* cuMemAlloc_v2 */
typedef CUresult (*cu_free_fn)(CUdeviceptr);          /* cuMemFree_v2 */
typedef CUresult (*cu_release_fn)(CUdevice);          /* cuDevicePrimaryCtxRelease(_v2) */

/* ---- nvml.h ---- */
typedef int nvmlReturn_t;                             /* enum nvmlReturn_enum; 0 = NVML_SUCCESS */
typedef struct nvmlDevice_st* nvmlDevice_t;
/* nvmlPciInfo_t as in nvml.h (NVIDIA/go-nvml gen/nvml/nvml.h, NVML 12.2.140, struct
 * nvmlPciInfo_st): busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE = 16], domain, bus, device,
 * pciDeviceId, pciSubSystemId, busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE = 32]. */
typedef struct nvmlPciInfo_st {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;
typedef nvmlReturn_t (*nvml_void_fn)(void);           /* nvmlInit_v2, nvmlShutdown */
typedef const char* (*nvml_error_string_fn)(nvmlReturn_t);
typedef nvmlReturn_t (*nvml_text_fn)(char*, unsigned int); /* nvmlSystemGetDriverVersion */
typedef nvmlReturn_t (*nvml_count_fn)(unsigned int*); /* nvmlDeviceGetCount_v2 */
typedef nvmlReturn_t (*nvml_handle_fn)(unsigned int, nvmlDevice_t*); /* ..GetHandleByIndex_v2 */
typedef nvmlReturn_t (*nvml_device_text_fn)(nvmlDevice_t, char*, unsigned int); /* Name, UUID */
typedef nvmlReturn_t (*nvml_pci_fn)(nvmlDevice_t, nvmlPciInfo_t*); /* nvmlDeviceGetPciInfo_v3 */

enum {
  k_max_value = 1024,      /* longer values are cut: keeps every line below PIPE_BUF (atomic) */
  k_max_devices = 1024,    /* the parser ignores larger indices anyway */
  k_text_buffer = 256,     /* > NVML_DEVICE_NAME_V2_BUFFER_SIZE (96), NVML_SYSTEM_DRIVER_..(80) */
};

static int g_reply_fd = -1;

/* Writes all of buf, retrying on EINTR and short writes. */
static void write_all(const char* buf, size_t len) {
  while (len > 0) {
    ssize_t n = write(g_reply_fd, buf, len);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      _exit(3); /* the reader is gone: nobody is left to tell */
    }
    buf += n;
    len -= (size_t)n;
  }
}

/* One protocol line, `key<TAB>value<LF>`, value escaped, in a single write(2). */
static void emit(const char* key, const char* value) {
  char line[128 + 2 * k_max_value + 4];
  size_t pos = 0;
  size_t key_len = strlen(key);
  if (key_len > 128) {
    key_len = 128;
  }
  memcpy(line, key, key_len);
  pos = key_len;
  line[pos++] = '\t';
  for (size_t i = 0; value != NULL && value[i] != '\0' && i < k_max_value; ++i) {
    char c = value[i];
    if (c == '\\' || c == '\t' || c == '\n') {
      line[pos++] = '\\';
      c = c == '\t' ? 't' : c == '\n' ? 'n' : '\\';
    }
    line[pos++] = c;
  }
  line[pos++] = '\n';
  write_all(line, pos);
}

static void emit_int(const char* key, long long value) {
  char text[32];
  snprintf(text, sizeof text, "%lld", value);
  emit(key, text);
}

/* Writes `prefix.suffix`; suffix may be empty. */
static void emit_sub(const char* prefix, const char* suffix, const char* value) {
  char key[128];
  snprintf(key, sizeof key, "%s%s%s", prefix, suffix[0] ? "." : "", suffix);
  emit(key, value);
}

static void emit_sub_int(const char* prefix, const char* suffix, long long value) {
  char text[32];
  snprintf(text, sizeof text, "%lld", value);
  emit_sub(prefix, suffix, text);
}

/* A symbol the library lacks: `<key>.result -1` and `<key>.error missing symbol NAME`. */
static void emit_missing(const char* key, const char* symbol) {
  char text[160];
  emit_sub_int(key, "result", -1);
  snprintf(text, sizeof text, "missing symbol %s", symbol);
  emit_sub(key, "error", text);
}

static void* load(void* lib, const char* name) { return lib ? dlsym(lib, name) : NULL; }

/* Function pointers from dlsym without the ISO C object-to-function cast warning. */
#define LOAD_FN(var, lib, name) do { void* p_ = load(lib, name); memcpy(&(var), &p_, sizeof p_); } while (0)

static void emit_library_path(const char* key, void* symbol) {
  Dl_info info;
  char resolved[PATH_MAX];
  if (symbol != NULL && dladdr(symbol, &info) != 0 && info.dli_fname != NULL) {
    emit(key, realpath(info.dli_fname, resolved) ? resolved : info.dli_fname);
  }
}

static long long now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static long long g_start_us; /* when main() began: stage times are offsets from it */

/* Each step is announced with its start time, so a slow cuInit or context creation shows up. */
static void stage(const char* name) {
  emit("stage", name);
  emit_int("stage.at_us", now_us() - g_start_us);
}

static void stage_n(const char* name, int index) {
  char text[64];
  snprintf(text, sizeof text, "%s:%d", name, index);
  stage(text);
}

/* ------------------------------------------------------------------------------------------ */
/* CUDA driver API                                                                            */

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

static void probe_cuda(const char* path) {
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

/* ------------------------------------------------------------------------------------------ */
/* NVML                                                                                       */

static void probe_nvml(const char* path) {
  char prefix[64], key[96], text[k_text_buffer];
  stage("dlopen-nvml");
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    const char* error = dlerror();
    emit("nvml.dlopen", "fail");
    emit("nvml.dlerror", error ? error : "");
    return;
  }
  emit("nvml.dlopen", "ok");

  nvml_void_fn init_fn, shutdown_fn;
  nvml_error_string_fn error_string;
  LOAD_FN(init_fn, lib, "nvmlInit_v2");
  LOAD_FN(shutdown_fn, lib, "nvmlShutdown");
  LOAD_FN(error_string, lib, "nvmlErrorString");
  void* any_symbol = load(lib, "nvmlInit_v2");
  emit_library_path("nvml.path", any_symbol ? any_symbol : load(lib, "nvmlErrorString"));

  stage("nvmlInit");
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
    stage_n("nvml-device", (int)i);
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
  }
  if (shutdown_fn != NULL) {
    shutdown_fn();
  }
}

/* ------------------------------------------------------------------------------------------ */

static int parse_fd(const char* text) {
  char* end = NULL;
  long value = strtol(text, &end, 10);
  return (end != text && *end == '\0' && value >= 0 && value < INT_MAX) ? (int)value : -1;
}

int main(int argc, char** argv) {
  g_start_us = now_us();
  const char* libcuda = "libcuda.so.1";
  const char* libnvml = "libnvidia-ml.so.1";
  int nvml_only = 0; /* --only nvml: a second look at NVML after CUDA hung or crashed */
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--reply-fd") == 0) {
      g_reply_fd = parse_fd(argv[i + 1]);
    } else if (strcmp(argv[i], "--libcuda") == 0) {
      libcuda = argv[i + 1];
    } else if (strcmp(argv[i], "--libnvml") == 0) {
      libnvml = argv[i + 1];
    } else if (strcmp(argv[i], "--only") == 0 && strcmp(argv[i + 1], "nvml") == 0) {
      nvml_only = 1;
    } else {
      return 2;
    }
  }
  if (g_reply_fd < 0 || fcntl(g_reply_fd, F_GETFD) < 0) {
    return 2; /* no reply channel: nothing may be written anywhere else */
  }
  /* Processes libcuda may start (nvidia-modprobe) must not hold our pipe or our own image. */
  fcntl(g_reply_fd, F_SETFD, FD_CLOEXEC);
  if (argc > 0 && strncmp(argv[0], "/proc/self/fd/", 14) == 0) {
    int image_fd = parse_fd(argv[0] + 14);
    if (image_fd > 2 && image_fd != g_reply_fd) {
      fcntl(image_fd, F_SETFD, FD_CLOEXEC);
    }
  }

  emit("gpudoctor-helper", "1");
  if (!nvml_only) {
    probe_cuda(libcuda);
  }
  probe_nvml(libnvml); /* also after a CUDA failure: NVML working while CUDA fails is a signature */
  stage("done");
  emit("end", "ok");
  /* Leave without running libcuda's and NVML's exit handlers: the contexts are released already,
   * the teardown only costs time (about 50 ms on an H200) and is one more place to hang. */
  _exit(0);
}
