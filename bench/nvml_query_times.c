/* How long each NVML health query of gpudoctor's helper takes on a real GPU (bench/, issue 14):
 * nvmlInit, then every query of src/helper/nvml_health.c on GPU 0, three rounds, each call
 * timed on its own. Prints one line per query: name, result, ms of each round.
 *   nvml-query-times [index]
 * Built by the helper's sub-build for glibc; run on the GPU machine. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nvml_api.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void* sym(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  if (p == NULL) printf("missing %s\n", name);
  return p;
}

int main(int argc, char** argv) {
  unsigned int index = argc > 1 ? (unsigned int)atoi(argv[1]) : 0;
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) return 2;
  nvmlReturn_t (*init)(void) = (nvmlReturn_t(*)(void))sym(lib, "nvmlInit_v2");
  nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t*) = (nvmlReturn_t(*)(unsigned int, nvmlDevice_t*))sym(lib, "nvmlDeviceGetHandleByIndex_v2");
  double t = now_ms();
  if (!init || init() != 0) return 3;
  printf("nvmlInit %.1f ms\n", now_ms() - t);
  nvmlDevice_t device;
  if (!handle || handle(index, &device) != 0) return 4;
  enum { rounds = 3 };
  const char* names[] = {"nvmlDeviceGetEccMode", "nvmlDeviceGetTotalEccErrors", "nvmlDeviceGetRemappedRows",
                         "nvmlDeviceGetRowRemapperHistogram", "nvmlDeviceGetRetiredPagesPendingStatus",
                         "nvmlDeviceGetRetiredPages", "nvmlDeviceGetFieldValues", "nvmlDeviceValidateInforom",
                         "nvmlDeviceGetPersistenceMode", "nvmlDeviceGetComputeMode", "nvmlDeviceGetMigMode",
                         "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetPerformanceState",
                         "nvmlDeviceGetCurrPcieLinkGeneration", "nvmlDeviceGetCurrPcieLinkWidth",
                         "nvmlDeviceGetMaxPcieLinkGeneration", "nvmlDeviceGetMaxPcieLinkWidth",
                         "nvmlDeviceGetGpuMaxPcieLinkGeneration", "nvmlDeviceGetGpuFabricInfoV",
                         "nvmlDeviceGetComputeRunningProcesses_v3"};
  for (size_t q = 0; q < sizeof names / sizeof names[0]; ++q) {
    void* fn = sym(lib, names[q]);
    if (fn == NULL) continue;
    printf("%-42s", names[q]);
    for (int round = 0; round < rounds; ++round) {
      unsigned char out[4096];
      memset(out, 0, sizeof out);
      unsigned int a = 0, b = 0, c = 0, d = 0;
      unsigned long long ull = 0;
      nvmlReturn_t r;
      double start = now_ms();
      if (q == 0) r = ((nvml_two_states_fn)fn)(device, (int*)&a, (int*)&b);
      else if (q == 1) r = ((nvml_ecc_count_fn)fn)(device, 1, 0, &ull);
      else if (q == 2) r = ((nvml_remapped_fn)fn)(device, &a, &b, &c, &d);
      else if (q == 3) r = ((nvml_histogram_fn)fn)(device, (nvmlRowRemapperHistogramValues_t*)out);
      else if (q == 4 || q == 8) r = ((nvml_state_fn)fn)(device, (int*)&a);
      else if (q == 5) r = ((nvml_retired_fn)fn)(device, 0, &a, NULL);
      else if (q == 6) { nvmlFieldValue_t* f = (nvmlFieldValue_t*)out; f->fieldId = 230; r = ((nvml_fields_fn)fn)(device, 1, f); }
      else if (q == 7) r = ((nvml_device_fn)fn)(device);
      else if (q == 9 || q == 12) r = ((nvml_int_fn)fn)(device, (int*)&a);
      else if (q == 10) r = ((nvml_two_uints_fn)fn)(device, &a, &b);
      else if (q == 11) r = ((nvml_ull_fn)fn)(device, &ull);
      else if (q >= 13 && q <= 17) r = ((nvml_uint_fn)fn)(device, &a);
      else if (q == 18) { nvmlGpuFabricInfo_v3_t* v = (nvmlGpuFabricInfo_v3_t*)out; v->version = GD_NVML_STRUCT_VERSION(nvmlGpuFabricInfo_v3_t, 3); r = ((nvml_fabric_fn)fn)(device, v); }
      else { a = 0; r = ((nvml_processes_fn)fn)(device, &a, NULL); }
      printf("  r=%-3d %7.2f ms", r, now_ms() - start);
    }
    printf("\n");
  }
  return 0;
}
