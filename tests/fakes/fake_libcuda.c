/* A fake libcuda.so.1 for testing gpudoctor-cuda-helper without a GPU.
 *
 * Built for the glibc 2.17 target as `libcuda.so.1`; each test sets its behaviour through the
 * environment (read on every call, so a test only needs setenv before starting the helper):
 *
 *   FAKE_CUDA_DRIVER_VERSION=<int>       cuDriverGetVersion value (default 13000)
 *   FAKE_CUDA_INIT_RESULT=<int>          cuInit result (default 0); later calls then return 3
 *   FAKE_CUDA_DEVICE_COUNT=<int>         cuDeviceGetCount value (default 1)
 *   CUDA_VISIBLE_DEVICES                 read as the real driver does for the case the tests need:
 *                                        empty, or a first entry that is an index past the last
 *                                        GPU, hides every GPU (cuInit 100) unless
 *                                        FAKE_CUDA_INIT_RESULT says otherwise
 *   FAKE_CUDA_DEVICE_NAME=<text>         cuDeviceGetName (default "NVIDIA H200")
 *   FAKE_CUDA_CC=<major>.<minor>         compute capability (default 9.0)
 *   FAKE_CUDA_CONTEXT_RESULT=<int>       cuDevicePrimaryCtxRetain result for every device
 *   FAKE_CUDA_CONTEXT_RESULT_<N>=<int>   ... for device N only (wins over the above)
 *   FAKE_CUDA_ALLOC_RESULT=<int>         cuMemAlloc_v2 result (default 0)
 *   FAKE_CUDA_ALLOC_MAX_BYTES[_<N>]=<n>  a cuMemAlloc_v2 of more than n bytes (in device N's context)
 *                                        returns 2 OUT_OF_MEMORY: another job holds all but n bytes
 *   FAKE_CUDA_HANG_IN=<function>         that function sleeps forever (e.g. cuInit)
 *   FAKE_CUDA_CRASH_IN=<function>        that function raises SIGSEGV
 *   FAKE_CUDA_FAULT_DEVICE=<N>           ... only when called for device N (the device argument, or
 *                                        the device of the calling thread's current context)
 *   FAKE_CUDA_CONTEXT_DELAY_MS=<ms>      cuDevicePrimaryCtxRetain takes that long (an H200: ~100)
 *   FAKE_CUDA_MODULE_RESULT[_<N>]=<int>  cuModuleLoadDataEx result (221: no JIT compiler), with a
 *                                        line in the JIT error log when not 0
 *   FAKE_CUDA_LAUNCH_RESULT[_<N>]=<int>  cuLaunchKernel result
 *   FAKE_CUDA_SYNC_RESULT[_<N>]=<int>    cuCtxSynchronize result (719: the kernel failed)
 *   FAKE_CUDA_WRONG_RESULT[_<N>]=<i>     element i of the kernel's output is wrong (a GPU that
 *                                        computes silently wrong)

 * Peer to peer (the helper's pair proof, cuda_peer.c), for the ordered pair source A, destination B:
 *   FAKE_CUDA_PEER_ACCESS=<0|1>          cuDeviceCanAccessPeer for every pair (default 1)
 *   FAKE_CUDA_PEER_ACCESS_<A>_<B>=<0|1>  ... for that pair only (wins over the above)
 *   FAKE_CUDA_PEER_ENABLE_RESULT[_<A>_<B>]=<int>  cuCtxEnablePeerAccess result (711
 *                                        CUDA_ERROR_TOO_MANY_PEERS, 217 ..._PEER_ACCESS_UNSUPPORTED)
 *   FAKE_CUDA_PEER_DROP_<A>_<B>=1        cuMemcpyPeer returns success and writes nothing: the
 *                                        destination keeps what it had (an IOMMU that discards
 *                                        the peer writes)
 *   FAKE_CUDA_PEER_CORRUPT_<A>_<B>=<i>   cuMemcpyPeer returns success with element i wrong
 *   FAKE_CUDA_PEER_COPY_RESULT[_<A>_<B>]=<int>  cuMemcpyPeer result (nothing copied when not 0)
 *   FAKE_CUDA_PEER_GBPS[_<A>_<B>]=<GB/s> a peer copy (cuMemcpyPeer, cuMemcpyPeerAsync) takes as long
 *                                        as that rate needs for its bytes (10 GB/s: 8 MiB in 839 µs),
 *                                        so the helper's timed copies (--p2p-bandwidth) measure a
 *                                        figure the test knows; unset: no added time
 *   Hangs and crashes: FAKE_CUDA_HANG_IN / CRASH_IN name cuDeviceCanAccessPeer,
 *   cuCtxEnablePeerAccess, cuMemcpyPeer, cuMemcpyPeerAsync, cuEventRecord or cuMemsetD32_v2, with
 *   FAKE_CUDA_FAULT_DEVICE the source (the calling thread's device).
 *   FAKE_CUDA_EVENT_RESULT=<int>         cuEventCreate result (default 0)
 * The fake's streams are synchronous: an async copy is done when the call returns, and an event
 * records the host's clock (CLOCK_MONOTONIC) when cuEventRecord is called, which is when the work
 * before it on the stream is done. A peer copy above 1 MiB (the bandwidth copies, never read back)
 * only takes its time: copying it on the host would load the test machine, not a copy engine.
 *   FAKE_CUDA_JIT_CACHE=1                a module load creates $HOME/.nv/ComputeCache, as the real
 *                                        driver's JIT does, unless CUDA_CACHE_DISABLE=1
 * The fake "GPU" runs the proof kernel on the host: a launch computes what the PTX computes,
 * (i * 0x9E3779B1 + seed) ^ (i >> 7), into the buffer cuMemAlloc_v2 handed out.
 *   FAKE_CUDA_STDOUT=<text>              cuInit writes the text and a newline to stdout
 *   FAKE_CUDA_FLOOD_STDOUT=<bytes>       cuInit writes that many 'x' bytes to stdout
 *   FAKE_CUDA_ECHO_ENV=<NAME>            cuInit writes "NAME=<value>" or "NAME unset" to stdout
 *   FAKE_CUDA_SPAWN_PIDFILE=<path>       cuInit first forks a child that writes its pid to <path>
 *                                        and then waits forever, as a daemon libcuda starts would
 *
 * Device N is deterministic: UUID bytes 0x10*N+0..0x10*N+15 ("GPU-00010203-0405-..." for
 * device 0), PCI bus id "0000:%02X:00.0" with bus 0x18+N, 150754820096 bytes of memory (H200).
 * The same identities are reported by fake_libnvidia_ml.c.
 * Prototypes follow NVIDIA's cuda.h (CUDA 13.0); no CUDA header is needed.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st* CUcontext;
typedef unsigned long long CUdeviceptr;
typedef struct CUuuid_st { char bytes[16]; } CUuuid;

enum {
  k_success = 0,
  k_invalid_value = 1,         /* CUDA_ERROR_INVALID_VALUE */
  k_not_initialized = 3,       /* CUDA_ERROR_NOT_INITIALIZED */
  k_invalid_device = 101,      /* CUDA_ERROR_INVALID_DEVICE */
};

static int g_init_result = -1; /* -1: cuInit not called yet */
enum { k_max_fake_devices = 1024 };
static char g_context_tags[k_max_fake_devices]; /* &g_context_tags[N] is device N's context */
static __thread int t_device = -1;              /* the device of this thread's current context */

static long env_int(const char* name, long fallback) {
  const char* text = getenv(name);
  return (text != NULL && *text != '\0') ? strtol(text, NULL, 0) : fallback;
}

static void write_stdout(const char* text, size_t len) {
  while (len > 0) {
    ssize_t n = write(1, text, len);
    if (n <= 0) {
      return;
    }
    text += n;
    len -= (size_t)n;
  }
}

/* The per-device variable NAME_<device> if set, else NAME, else `fallback`. */
static long device_env_int(const char* name, int device, long fallback) {
  char key[96];
  snprintf(key, sizeof key, "%s_%d", name, device);
  return env_int(key, env_int(name, fallback));
}

/* Every exported function starts here so FAKE_CUDA_HANG_IN / CRASH_IN can hit any of them. */
static void enter_device(const char* function, int device) {
  const char* hang = getenv("FAKE_CUDA_HANG_IN");
  const char* crash = getenv("FAKE_CUDA_CRASH_IN");
  long only = env_int("FAKE_CUDA_FAULT_DEVICE", -1);
  if (only >= 0 && device != only) {
    return;
  }
  if (hang != NULL && strcmp(hang, function) == 0) {
    for (;;) {
      pause();
    }
  }
  if (crash != NULL && strcmp(crash, function) == 0) {
    *(volatile int*)(uintptr_t)8 = 1; /* a real fault, as a driver bug would make */
  }
}

static void enter(const char* function) { enter_device(function, t_device); }

static int device_count(void) { return (int)env_int("FAKE_CUDA_DEVICE_COUNT", 1); }

/* 0, or the error a real driver gives for calls before a successful cuInit / bad ordinals. */
static CUresult check_device(CUdevice device) {
  if (g_init_result != 0) {
    return g_init_result < 0 ? k_not_initialized : g_init_result;
  }
  return (device < 0 || device >= device_count()) ? k_invalid_device : k_success;
}

FAKE_EXPORT CUresult cuDriverGetVersion(int* version) {
  enter("cuDriverGetVersion");
  if (version == NULL) {
    return k_invalid_value;
  }
  *version = (int)env_int("FAKE_CUDA_DRIVER_VERSION", 13000);
  return k_success;
}

/* CUDA_VISIBLE_DEVICES= or =99 on a host with fewer GPUs: the driver enumerates none. */
static int visible_devices_hide_all(void) {
  const char* visible = getenv("CUDA_VISIBLE_DEVICES");
  if (visible == NULL) return 0;
  if (visible[0] == '\0') return 1;
  if (visible[0] < '0' || visible[0] > '9') return 0; /* a UUID: not modelled */
  return atol(visible) >= device_count();
}

/* A child of "libcuda" that outlives the call: it stays in the helper's process group and has
 * no parent-death signal of its own (fork clears it), as a real driver's forked process. */
static void spawn_lingering_child(void) {
  const char* pidfile = getenv("FAKE_CUDA_SPAWN_PIDFILE");
  if (pidfile == NULL || fork() != 0) {
    return;
  }
  char text[32];
  int n = snprintf(text, sizeof text, "%d\n", (int)getpid());
  char temp[4096];
  snprintf(temp, sizeof temp, "%s.tmp", pidfile);
  FILE* file = fopen(temp, "w");
  if (file != NULL) {
    fwrite(text, 1, (size_t)n, file);
    fclose(file);
    rename(temp, pidfile); /* whole or absent: the test never reads half a pid */
  }
  for (;;) {
    pause();
  }
}

FAKE_EXPORT CUresult cuInit(unsigned int flags) {
  (void)flags;
  spawn_lingering_child();
  enter("cuInit");
  const char* text = getenv("FAKE_CUDA_STDOUT");
  if (text != NULL) {
    write_stdout(text, strlen(text));
    write_stdout("\n", 1);
  }
  long flood = env_int("FAKE_CUDA_FLOOD_STDOUT", 0);
  char block[4096];
  memset(block, 'x', sizeof block);
  for (long left = flood; left > 0; left -= (long)sizeof block) {
    write_stdout(block, left < (long)sizeof block ? (size_t)left : sizeof block);
  }
  const char* echo = getenv("FAKE_CUDA_ECHO_ENV");
  if (echo != NULL) {
    const char* value = getenv(echo);
    char line[512];
    int n = value ? snprintf(line, sizeof line, "%s=%s\n", echo, value)
                  : snprintf(line, sizeof line, "%s unset\n", echo);
    write_stdout(line, n < (int)sizeof line ? (size_t)n : sizeof line - 1);
  }
  g_init_result = (int)env_int("FAKE_CUDA_INIT_RESULT", visible_devices_hide_all() ? 100 : 0);
  return g_init_result;
}

/* Names and texts of the codes the tests use; others are unknown, as in the real driver. */
static const struct { int code; const char* name; const char* text; } k_errors[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {34, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE", "CUDA-capable device(s) is/are busy or unavailable"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {214, "CUDA_ERROR_ECC_UNCORRECTABLE", "uncorrectable ECC error encountered"},
    {218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND", "PTX JIT compiler library not found"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "the provided PTX was compiled with an unsupported toolchain."},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {719, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", "peer access is not supported across the given devices"},
    {704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED", "peer access is already enabled"},
    {711, "CUDA_ERROR_TOO_MANY_PEERS", "peer mapping resources exhausted"},
    {304, "CUDA_ERROR_OPERATING_SYSTEM", "OS call failed or operation not supported on this OS"},
    {802, "CUDA_ERROR_SYSTEM_NOT_READY", "system not yet initialized"},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "system has unsupported display driver / cuda driver combination"},
    {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "forward compatibility was attempted on non supported HW"},
    {999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

static CUresult error_lookup(CUresult error, const char** out, int want_text) {
  enter(want_text ? "cuGetErrorString" : "cuGetErrorName");
  for (size_t i = 0; i < sizeof k_errors / sizeof k_errors[0]; ++i) {
    if (k_errors[i].code == error) {
      *out = want_text ? k_errors[i].text : k_errors[i].name;
      return k_success;
    }
  }
  *out = NULL;
  return k_invalid_value;
}

FAKE_EXPORT CUresult cuGetErrorName(CUresult error, const char** name) {
  return error_lookup(error, name, 0);
}

FAKE_EXPORT CUresult cuGetErrorString(CUresult error, const char** text) {
  return error_lookup(error, text, 1);
}

FAKE_EXPORT CUresult cuDeviceGetCount(int* count) {
  enter("cuDeviceGetCount");
  CUresult r = check_device(0);
  *count = r == k_success || r == k_invalid_device ? device_count() : 0;
  return r == k_invalid_device ? k_success : r;
}

FAKE_EXPORT CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  enter("cuDeviceGet");
  CUresult r = check_device(ordinal);
  if (r == k_success) {
    *device = ordinal;
  }
  return r;
}

FAKE_EXPORT CUresult cuDeviceGetName(char* name, int length, CUdevice device) {
  enter("cuDeviceGetName");
  CUresult r = check_device(device);
  if (r == k_success) {
    const char* text = getenv("FAKE_CUDA_DEVICE_NAME");
    snprintf(name, (size_t)length, "%s", text ? text : "NVIDIA H200");
  }
  return r;
}

static CUresult get_uuid(CUuuid* uuid, CUdevice device, const char* function) {
  enter(function);
  CUresult r = check_device(device);
  for (int i = 0; r == k_success && i < 16; ++i) {
    uuid->bytes[i] = (char)(0x10 * device + i);
  }
  return r;
}

FAKE_EXPORT CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice device) {
  return get_uuid(uuid, device, "cuDeviceGetUuid");
}

FAKE_EXPORT CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice device) {
  return get_uuid(uuid, device, "cuDeviceGetUuid_v2");
}

FAKE_EXPORT CUresult cuDeviceGetPCIBusId(char* bus_id, int length, CUdevice device) {
  enter("cuDeviceGetPCIBusId");
  CUresult r = check_device(device);
  if (r == k_success) {
    snprintf(bus_id, (size_t)length, "0000:%02X:00.0", 0x18 + device);
  }
  return r;
}

FAKE_EXPORT CUresult cuDeviceGetAttribute(int* value, int attribute, CUdevice device) {
  enter("cuDeviceGetAttribute");
  CUresult r = check_device(device);
  if (r != k_success) {
    return r;
  }
  int major = 9, minor = 0;
  const char* cc = getenv("FAKE_CUDA_CC");
  if (cc != NULL && sscanf(cc, "%d.%d", &major, &minor) != 2) {
    major = 9;
    minor = 0;
  }
  if (attribute == 75) { /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
    *value = major;
  } else if (attribute == 76) { /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR */
    *value = minor;
  } else {
    *value = 0;
  }
  return k_success;
}

FAKE_EXPORT CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice device) {
  enter("cuDeviceTotalMem_v2");
  CUresult r = check_device(device);
  if (r == k_success) {
    *bytes = (size_t)150754820096ULL;
  }
  return r;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device) {
  enter_device("cuDevicePrimaryCtxRetain", device);
  CUresult r = check_device(device);
  if (r != k_success || device >= k_max_fake_devices) {
    return r != k_success ? r : k_invalid_device;
  }
  long delay_ms = env_int("FAKE_CUDA_CONTEXT_DELAY_MS", 0);
  if (delay_ms > 0) {
    usleep((useconds_t)(delay_ms * 1000));
  }
  r = (CUresult)device_env_int("FAKE_CUDA_CONTEXT_RESULT", device, 0);
  *context = r == k_success ? (CUcontext)(void*)&g_context_tags[device] : NULL;
  return r;
}

FAKE_EXPORT CUresult cuCtxSetCurrent(CUcontext context) {
  char* tag = (char*)(void*)context;
  t_device = tag == NULL ? -1 : (int)(tag - g_context_tags);
  enter("cuCtxSetCurrent");
  return g_init_result == 0 ? k_success : k_not_initialized;
}

FAKE_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr* pointer, size_t bytes) {
  enter("cuMemAlloc_v2");
  CUresult r = (CUresult)env_int("FAKE_CUDA_ALLOC_RESULT", 0);
  long max_bytes = device_env_int("FAKE_CUDA_ALLOC_MAX_BYTES", t_device, -1);
  if (r == k_success && max_bytes >= 0 && bytes > (size_t)max_bytes) r = 2; /* CUDA_ERROR_OUT_OF_MEMORY */
  void* memory = r == k_success ? calloc(1, bytes) : NULL;
  *pointer = (CUdeviceptr)(uintptr_t)memory;
  return r == k_success && memory == NULL ? 2 /* CUDA_ERROR_OUT_OF_MEMORY */ : r;
}

FAKE_EXPORT CUresult cuMemFree_v2(CUdeviceptr pointer) {
  enter("cuMemFree_v2");
  free((void*)(uintptr_t)pointer);
  return pointer != 0 ? k_success : k_invalid_value;
}

/* ---- the proof kernel: module, function, launch, synchronize, copy ---- */
typedef int CUjit_option;
static char g_module_tag;   /* the fake module and function handles */
static char g_function_tag;

FAKE_EXPORT CUresult cuModuleLoadDataEx(void** module, const void* image, unsigned int count, CUjit_option* options,
                                        void** values) {
  enter("cuModuleLoadDataEx");
  if (module == NULL || image == NULL) return k_invalid_value;
  CUresult r = (CUresult)device_env_int("FAKE_CUDA_MODULE_RESULT", t_device, 0);
  const char* home = getenv("HOME");
  const char* disabled = getenv("CUDA_CACHE_DISABLE");
  if (env_int("FAKE_CUDA_JIT_CACHE", 0) == 1 && home != NULL && (disabled == NULL || strcmp(disabled, "1") != 0)) {
    char path[4096];
    snprintf(path, sizeof path, "%s/.nv", home);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/.nv/ComputeCache", home);
    mkdir(path, 0700);
  }
  for (unsigned int i = 0; i < count; ++i) {
    if (options[i] == 5 && r != k_success) { /* CU_JIT_ERROR_LOG_BUFFER */
      snprintf((char*)values[i], 64, "fake JIT: cannot compile the module (%d)", r);
    }
    if (options[i] == 2) { /* CU_JIT_WALL_TIME: a float in the value slot */
      float ms = 0.5f;
      memcpy(&values[i], &ms, sizeof ms);
    }
  }
  *module = r == k_success ? (void*)&g_module_tag : NULL;
  return r;
}

FAKE_EXPORT CUresult cuModuleGetFunction(void** function, void* module, const char* name) {
  enter("cuModuleGetFunction");
  if (module != &g_module_tag || name == NULL) return k_invalid_value;
  *function = &g_function_tag;
  return k_success;
}

FAKE_EXPORT CUresult cuLaunchKernel(void* function, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,
                                    unsigned int block_x, unsigned int block_y, unsigned int block_z,
                                    unsigned int shared_bytes, void* stream, void** params, void** extra) {
  (void)grid_y, (void)grid_z, (void)block_y, (void)block_z, (void)shared_bytes, (void)stream, (void)extra;
  enter("cuLaunchKernel");
  if (function != &g_function_tag || params == NULL) return k_invalid_value;
  CUresult r = (CUresult)device_env_int("FAKE_CUDA_LAUNCH_RESULT", t_device, 0);
  if (r != k_success) return r;
  uint32_t* out = (uint32_t*)(uintptr_t)*(CUdeviceptr*)params[0];
  uint32_t n = *(uint32_t*)params[1];
  uint32_t seed = *(uint32_t*)params[2];
  for (uint32_t i = 0; i < n && i < grid_x * block_x; ++i) {
    out[i] = (i * 0x9E3779B1u + seed) ^ (i >> 7);
  }
  long wrong = device_env_int("FAKE_CUDA_WRONG_RESULT", t_device, -1);
  if (wrong >= 0 && (uint32_t)wrong < n) {
    out[wrong] ^= 0x00010000u; /* one flipped bit */
  }
  return k_success;
}

FAKE_EXPORT CUresult cuCtxSynchronize(void) {
  enter("cuCtxSynchronize");
  return (CUresult)device_env_int("FAKE_CUDA_SYNC_RESULT", t_device, 0);
}

FAKE_EXPORT CUresult cuMemcpyDtoH_v2(void* host, CUdeviceptr device_pointer, size_t bytes) {
  enter("cuMemcpyDtoH_v2");
  if (host == NULL || device_pointer == 0) return k_invalid_value;
  memcpy(host, (const void*)(uintptr_t)device_pointer, bytes);
  return k_success;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice device) {
  enter("cuDevicePrimaryCtxRelease");
  return check_device(device);
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  enter("cuDevicePrimaryCtxRelease_v2");
  return check_device(device);
}

/* ---- peer to peer: capability, enabling, the copy (see the top of the file) ---- */

/* NAME_<a>_<b> if set, else NAME, else `fallback`. */
static long pair_env_int(const char* name, int a, int b, long fallback) {
  char key[96];
  snprintf(key, sizeof key, "%s_%d_%d", name, a, b);
  return env_int(key, env_int(name, fallback));
}

static int device_of_context(CUcontext context) {
  char* tag = (char*)(void*)context;
  if (tag < g_context_tags || tag >= g_context_tags + k_max_fake_devices) return -1;
  return (int)(tag - g_context_tags);
}

FAKE_EXPORT CUresult cuDeviceCanAccessPeer(int* can_access, CUdevice device, CUdevice peer) {
  enter_device("cuDeviceCanAccessPeer", device);
  CUresult r = check_device(device);
  if (r == k_success) r = check_device(peer);
  if (r != k_success || can_access == NULL) return r != k_success ? r : k_invalid_value;
  *can_access = device != peer && pair_env_int("FAKE_CUDA_PEER_ACCESS", device, peer, 1) != 0;
  return k_success;
}

FAKE_EXPORT CUresult cuCtxEnablePeerAccess(CUcontext peer_context, unsigned int flags) {
  enter("cuCtxEnablePeerAccess");
  int peer = device_of_context(peer_context);
  if (flags != 0 || peer < 0 || t_device < 0) return k_invalid_value;
  return (CUresult)pair_env_int("FAKE_CUDA_PEER_ENABLE_RESULT", t_device, peer, 0);
}

FAKE_EXPORT CUresult cuMemsetD32_v2(CUdeviceptr pointer, unsigned int value, size_t count) {
  enter("cuMemsetD32_v2");
  if (pointer == 0) return k_invalid_value;
  uint32_t* out = (uint32_t*)(uintptr_t)pointer;
  for (size_t i = 0; i < count; ++i) out[i] = value;
  return k_success;
}

static long long monotonic_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

/* FAKE_CUDA_PEER_GBPS[_A_B]: the copy lasts bytes / rate (bytes per ns = GB/s), waited out
 * exactly (a sleep for most of it, then a spin), so the measured figure is the rate set. */
static void take_copy_time(int a, int b, size_t bytes) {
  char key[96];
  snprintf(key, sizeof key, "FAKE_CUDA_PEER_GBPS_%d_%d", a, b);
  const char* text = getenv(key);
  if (text == NULL || *text == '\0') text = getenv("FAKE_CUDA_PEER_GBPS");
  double gbps = text != NULL ? strtod(text, NULL) : 0;
  if (gbps <= 0) return;
  long long until = monotonic_ns() + (long long)((double)bytes / gbps);
  for (long long left = until - monotonic_ns(); left > 0; left = until - monotonic_ns()) {
    if (left > 200000) usleep((useconds_t)((left - 100000) / 1000));
  }
}

static CUresult peer_copy(CUdeviceptr dst, CUcontext dst_context, CUdeviceptr src, CUcontext src_context, size_t bytes) {
  int a = device_of_context(src_context), b = device_of_context(dst_context);
  if (dst == 0 || src == 0 || a < 0 || b < 0) return k_invalid_value;
  take_copy_time(a, b, bytes);
  if (bytes > (1u << 20)) return (CUresult)pair_env_int("FAKE_CUDA_PEER_COPY_RESULT", a, b, 0);
  CUresult r = (CUresult)pair_env_int("FAKE_CUDA_PEER_COPY_RESULT", a, b, 0);
  if (r != k_success) return r;
  char key[96];
  snprintf(key, sizeof key, "FAKE_CUDA_PEER_DROP_%d_%d", a, b);
  if (env_int(key, 0) != 0) return k_success; /* the writes are lost on the way, the call succeeds */
  memcpy((void*)(uintptr_t)dst, (const void*)(uintptr_t)src, bytes);
  snprintf(key, sizeof key, "FAKE_CUDA_PEER_CORRUPT_%d_%d", a, b);
  long wrong = env_int(key, -1);
  if (wrong >= 0 && (size_t)wrong < bytes / 4) {
    ((uint32_t*)(uintptr_t)dst)[wrong] ^= 0x00000100u; /* one flipped bit */
  }
  return k_success;
}

FAKE_EXPORT CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext dst_context, CUdeviceptr src, CUcontext src_context,
                                  size_t bytes) {
  enter("cuMemcpyPeer");
  return peer_copy(dst, dst_context, src, src_context, bytes);
}

FAKE_EXPORT CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dst_context, CUdeviceptr src, CUcontext src_context,
                                       size_t bytes, void* stream) {
  (void)stream;
  enter("cuMemcpyPeerAsync");
  return peer_copy(dst, dst_context, src, src_context, bytes);
}

/* ---- events: the host's clock when recorded (the fake's streams are synchronous) ---- */
typedef struct CUevent_st { long long recorded_ns; } * CUevent;

FAKE_EXPORT CUresult cuEventCreate(CUevent* event, unsigned int flags) {
  (void)flags;
  enter("cuEventCreate");
  if (event == NULL) return k_invalid_value;
  CUresult r = (CUresult)env_int("FAKE_CUDA_EVENT_RESULT", 0);
  if (r != k_success) return r;
  *event = calloc(1, sizeof **event);
  return *event != NULL ? k_success : 2 /* CUDA_ERROR_OUT_OF_MEMORY */;
}

FAKE_EXPORT CUresult cuEventRecord(CUevent event, void* stream) {
  (void)stream;
  enter("cuEventRecord");
  if (event == NULL) return k_invalid_value;
  event->recorded_ns = monotonic_ns();
  return k_success;
}

FAKE_EXPORT CUresult cuEventSynchronize(CUevent event) {
  enter("cuEventSynchronize");
  return event != NULL ? k_success : k_invalid_value;
}

static CUresult elapsed(float* ms, CUevent start, CUevent end) {
  if (ms == NULL || start == NULL || end == NULL || start->recorded_ns == 0 || end->recorded_ns == 0) {
    return k_invalid_value;
  }
  *ms = (float)((double)(end->recorded_ns - start->recorded_ns) / 1e6);
  return k_success;
}

FAKE_EXPORT CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent end) {
  enter("cuEventElapsedTime");
  return elapsed(ms, start, end);
}

FAKE_EXPORT CUresult cuEventElapsedTime_v2(float* ms, CUevent start, CUevent end) {
  enter("cuEventElapsedTime_v2");
  return elapsed(ms, start, end);
}
