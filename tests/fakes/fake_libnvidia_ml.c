/* A fake libnvidia-ml.so.1 (NVML) for testing gpudoctor-cuda-helper without a GPU.
 *
 * Built for the glibc 2.17 target as `libnvidia-ml.so.1`; behaviour comes from the environment:
 *
 *   FAKE_NVML_INIT_RESULT=<int>       nvmlInit_v2 result (default 0; 9 = DRIVER_NOT_LOADED)
 *   FAKE_NVML_DRIVER_VERSION=<text>   nvmlSystemGetDriverVersion (default "580.159.04")
 *   FAKE_NVML_DEVICE_COUNT=<int>      nvmlDeviceGetCount_v2 (default FAKE_CUDA_DEVICE_COUNT, else 1)
 *   FAKE_NVML_DEVICE_NAME=<text>      nvmlDeviceGetName (default "NVIDIA H200")
 *   FAKE_NVML_HANG_IN=<function>      that function sleeps forever
 *   FAKE_NVML_CRASH_IN=<function>     that function raises SIGSEGV
 *   (GPU health: fake_nvml_health.c, built into the same library; libnvidia-ml-old.so.1 is this
 *   file alone, an NVML without the health entry points)
 *
 * Device N has the same identity as in fake_libcuda.c: UUID "GPU-" + bytes 0x10*N+0..15, PCI bus
 * id "00000000:%02X:00.0" with bus 0x18+N (NVML's busId has an 8-digit domain).
 * nvmlPciInfo_t follows nvml.h (NVIDIA/go-nvml gen/nvml/nvml.h, NVML 12.2.140).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st* nvmlDevice_t;
typedef struct nvmlPciInfo_st {
  char busIdLegacy[16];        /* NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE */
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];              /* NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE */
} nvmlPciInfo_t;

enum {
  k_success = 0,               /* NVML_SUCCESS */
  k_uninitialized = 1,         /* NVML_ERROR_UNINITIALIZED */
  k_invalid_argument = 2,      /* NVML_ERROR_INVALID_ARGUMENT */
  k_insufficient_size = 7,     /* NVML_ERROR_INSUFFICIENT_SIZE */
  k_max_fake_devices = 64,
};

static int g_initialised;
/* Handles are addresses inside this array: device N is &g_devices[N]. */
static char g_devices[k_max_fake_devices];

long fake_nvml_env_int(const char* name, long fallback);
void fake_nvml_enter(const char* function);
int fake_nvml_device_index(nvmlDevice_t device);
/* In fake_nvml_health.c; weak, since libnvidia-ml-old.so.1 is this file alone. */
__attribute__((weak)) int fake_nvml_mig_uuid(nvmlDevice_t device, char* out, size_t size);

static long env_int(const char* name, long fallback) {
  const char* text = getenv(name);
  return (text != NULL && *text != '\0') ? strtol(text, NULL, 0) : fallback;
}

static void enter(const char* function) {
  const char* hang = getenv("FAKE_NVML_HANG_IN");
  const char* crash = getenv("FAKE_NVML_CRASH_IN");
  if (hang != NULL && strcmp(hang, function) == 0) {
    for (;;) {
      pause();
    }
  }
  if (crash != NULL && strcmp(crash, function) == 0) {
    *(volatile int*)(uintptr_t)8 = 1; /* a real fault, as a driver bug would make */
  }
}

static unsigned int device_count(void) {
  long count = env_int("FAKE_NVML_DEVICE_COUNT", env_int("FAKE_CUDA_DEVICE_COUNT", 1));
  return count < 0 ? 0 : count > k_max_fake_devices ? k_max_fake_devices : (unsigned int)count;
}

/* The index of a handle we gave out, or -1. */
static int device_index(nvmlDevice_t device) {
  const char* p = (const char*)device;
  return (p >= g_devices && p < g_devices + device_count()) ? (int)(p - g_devices) : -1;
}

/* For fake_nvml_health.c (hidden: not exported from the library). */
long fake_nvml_env_int(const char* name, long fallback) { return env_int(name, fallback); }
void fake_nvml_enter(const char* function) { enter(function); }
int fake_nvml_device_index(nvmlDevice_t device) { return g_initialised ? device_index(device) : -1; }

static nvmlReturn_t copy_text(char* out, unsigned int length, const char* text) {
  if (out == NULL || strlen(text) + 1 > length) {
    return out == NULL ? k_invalid_argument : k_insufficient_size;
  }
  memcpy(out, text, strlen(text) + 1);
  return k_success;
}

FAKE_EXPORT nvmlReturn_t nvmlInit_v2(void) {
  enter("nvmlInit_v2");
  nvmlReturn_t r = (nvmlReturn_t)env_int("FAKE_NVML_INIT_RESULT", 0);
  g_initialised = r == k_success;
  return r;
}

FAKE_EXPORT nvmlReturn_t nvmlShutdown(void) {
  enter("nvmlShutdown");
  if (!g_initialised) {
    return k_uninitialized;
  }
  g_initialised = 0;
  return k_success;
}

/* Texts of the codes tests use, as nvmlErrorString words them. */
FAKE_EXPORT const char* nvmlErrorString(nvmlReturn_t result) {
  enter("nvmlErrorString");
  switch (result) {
    case 0: return "Success";
    case 1: return "Uninitialized";
    case 2: return "Invalid Argument";
    case 3: return "Not Supported";
    case 4: return "Insufficient Permissions";
    case 9: return "Driver Not Loaded";
    case 12: return "NVML Shared Library Not Found";
    case 15: return "GPU is lost";
    case 18: return "Driver/library version mismatch"; /* NVML_ERROR_LIB_RM_VERSION_MISMATCH */
    default: return "Unknown Error";
  }
}

FAKE_EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  enter("nvmlSystemGetDriverVersion");
  if (!g_initialised) {
    return k_uninitialized;
  }
  const char* text = getenv("FAKE_NVML_DRIVER_VERSION");
  return copy_text(version, length, text ? text : "580.159.04");
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  enter("nvmlDeviceGetCount_v2");
  if (!g_initialised) {
    return k_uninitialized;
  }
  *count = device_count();
  return k_success;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  enter("nvmlDeviceGetHandleByIndex_v2");
  if (!g_initialised) {
    return k_uninitialized;
  }
  if (index >= device_count() || device == NULL) {
    return k_invalid_argument;
  }
  *device = (nvmlDevice_t)(void*)&g_devices[index];
  return k_success;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
  enter("nvmlDeviceGetName");
  if (device_index(device) < 0) {
    return k_invalid_argument;
  }
  const char* text = getenv("FAKE_NVML_DEVICE_NAME");
  return copy_text(name, length, text ? text : "NVIDIA H200");
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length) {
  enter("nvmlDeviceGetUUID");
  int index = device_index(device);
  char mig[64];
  if (index < 0 && fake_nvml_mig_uuid != NULL && fake_nvml_mig_uuid(device, mig, sizeof mig) == 0) {
    return copy_text(uuid, length, mig);  /* a MIG device (fake_nvml_health.c) */
  }
  if (index < 0) {
    return k_invalid_argument;
  }
  unsigned char b[16];
  for (int i = 0; i < 16; ++i) {
    b[i] = (unsigned char)(0x10 * index + i);
  }
  char text[64];
  snprintf(text, sizeof text,
           "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
           b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return copy_text(uuid, length, text);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  enter("nvmlDeviceGetPciInfo_v3");
  int index = device_index(device);
  if (index < 0 || pci == NULL) {
    return k_invalid_argument;
  }
  memset(pci, 0, sizeof *pci);
  pci->bus = 0x18 + (unsigned int)index;
  pci->pciDeviceId = 0x233510de; /* H200 SXM 141GB: device 0x2335, vendor 0x10de */
  snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "0000:%02X:00.0", pci->bus);
  snprintf(pci->busId, sizeof pci->busId, "00000000:%02X:00.0", pci->bus);
  return k_success;
}
