/* The floor for gpudoctor's CUDA proof (bench/, issue 13): the least a program must do to prove
 * one GPU down to a kernel, with nothing else. dlopen libcuda and NVML, cuInit, one primary
 * context, a 1 MiB allocation, the same PTX proof kernel as the helper (JIT, cache disabled),
 * the launch, the copy back and the check, then nvmlInit. Prints its time from start to that
 * answer, and each step's, then leaves with _exit so that the teardown is not counted:
 *   cuda-floor [--device N]     ->  floor_ms 221.4 init 98.1 context 104.2 jit 13.0 ...
 * Built by the helper's sub-build for glibc; run on the GPU machine by bench/device_parallel.sh. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuda_api.h"
#include "kernel_proof.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#define NEED(lib, type, name) \
  type name##_fn; { void* p_ = dlsym(lib, #name); if (!p_) { printf("missing %s\n", #name); _exit(2); } memcpy(&name##_fn, &p_, sizeof p_); }
#define CHECK(call) do { CUresult r_ = (call); if (r_ != 0) { printf("%s failed: %d\n", #call, r_); _exit(1); } } while (0)

int main(int argc, char** argv) {
  int device = argc == 3 && strcmp(argv[1], "--device") == 0 ? atoi(argv[2]) : 0;
  setenv("CUDA_CACHE_DISABLE", "1", 1);
  double t0 = now_ms();
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  void* nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cuda || !nvml) { printf("dlopen failed\n"); return 2; }
  NEED(cuda, cu_init_fn, cuInit);
  NEED(cuda, cu_retain_fn, cuDevicePrimaryCtxRetain);
  NEED(cuda, cu_set_current_fn, cuCtxSetCurrent);
  NEED(cuda, cu_alloc_fn, cuMemAlloc_v2);
  NEED(cuda, cu_module_load_ex_fn, cuModuleLoadDataEx);
  NEED(cuda, cu_module_function_fn, cuModuleGetFunction);
  NEED(cuda, cu_launch_fn, cuLaunchKernel);
  NEED(cuda, cu_sync_fn, cuCtxSynchronize);
  NEED(cuda, cu_copy_dtoh_fn, cuMemcpyDtoH_v2);
  int (*nvml_init)(void);
  { void* p = dlsym(nvml, "nvmlInit_v2"); if (!p) return 2; memcpy(&nvml_init, &p, sizeof p); }
  double t_load = now_ms();
  CHECK(cuInit_fn(0));
  double t_init = now_ms();
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain_fn(&ctx, device));
  CHECK(cuCtxSetCurrent_fn(ctx));
  CUdeviceptr buffer;
  CHECK(cuMemAlloc_v2_fn(&buffer, 1 << 20));
  double t_ctx = now_ms();
  CUmodule module;
  CUfunction function;
  CHECK(cuModuleLoadDataEx_fn(&module, k_proof_ptx, 0, NULL, NULL));
  CHECK(cuModuleGetFunction_fn(&function, module, GD_PROOF_KERNEL_NAME));
  double t_jit = now_ms();
  unsigned int count = k_proof_elements, seed = 0x5eed0000u + (unsigned int)device;
  void* params[] = {&buffer, &count, &seed};
  CHECK(cuLaunchKernel_fn(function, k_proof_blocks, 1, 1, k_proof_block, 1, 1, 0, NULL, params, NULL));
  CHECK(cuCtxSynchronize_fn());
  static uint32_t values[k_proof_elements];
  CHECK(cuMemcpyDtoH_v2_fn(values, buffer, sizeof values));
  int wrong = proof_first_wrong(values, count, seed);
  double t_kernel = now_ms();
  int nvml_result = nvml_init();
  double t_end = now_ms();
  printf("floor_ms %.1f dlopen %.1f init %.1f context %.1f jit %.1f kernel %.2f nvml %.1f check %s nvml_result %d\n",
         t_end - t0, t_load - t0, t_init - t_load, t_ctx - t_init, t_jit - t_ctx, t_kernel - t_jit, t_end - t_kernel,
         wrong < 0 ? "ok" : "WRONG", nvml_result);
  fflush(stdout);
  _exit(wrong < 0 ? 0 : 1);
}
