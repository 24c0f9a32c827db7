/* gpudoctor-cuda-helper: loads libcuda and NVML with dlopen and reports what they say.
 *
 * Built against glibc 2.17 (the main gpudoctor binary is static musl and cannot dlopen a glibc
 * libcuda, GUIDE 5.1) and run by gpudoctor through the host's own loader:
 *   <ld.so> /proc/self/fd/N --reply-fd 3 [--deadline-ms MS] [--libcuda PATH] [--libnvml PATH] [--only nvml]
 *                           [--inforom validate] [--p2p-bandwidth on]
 * It writes only to the reply fd (libcuda and NVML may print to stdout/stderr themselves), one
 * write(2) per line so that a hang or crash still leaves every line written before it.
 * Protocol v1 is described in docs/helper-protocol.md.
 *
 * No CUDA headers: cuda_api.h and nvml_api.h declare the few types and prototypes used, named
 * as in NVIDIA's cuda.h and nvml.h.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_part.h"
#include "nvml_health.h"
#include "nvml_part.h"
#include "reply.h"
#include "tasks.h"

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
  long long deadline_us = 25000000; /* --deadline-ms: GPUs not proven by then are reported stuck */
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--reply-fd") == 0) {
      g_reply_fd = parse_fd(argv[i + 1]);
    } else if (strcmp(argv[i], "--libcuda") == 0) {
      libcuda = argv[i + 1];
    } else if (strcmp(argv[i], "--libnvml") == 0) {
      libnvml = argv[i + 1];
    } else if (strcmp(argv[i], "--deadline-ms") == 0) {
      int ms = parse_fd(argv[i + 1]);
      if (ms < 0) return 2;
      deadline_us = (long long)ms * 1000;
    } else if (strcmp(argv[i], "--inforom") == 0 && strcmp(argv[i + 1], "validate") == 0) {
      g_validate_inforom = 1;
    } else if (strcmp(argv[i], "--p2p-bandwidth") == 0 && strcmp(argv[i + 1], "on") == 0) {
      g_peer_bandwidth = 1; /* cuda_peer_bandwidth.c */
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

  /* The driver would write the JIT output of the proof kernel to ~/.nv/ComputeCache: gpudoctor
   * writes nothing on the host, so the cache is off for this process (set before any thread). */
  setenv("CUDA_CACHE_DISABLE", "1", 1);
  tasks_install_crash_handler();

  /* 1.2: memory, per-process memory and names, MIG devices; 1.3: NVLink, the pair proof (cuda.peer.*);
   * 1.4: the pair bandwidth (--p2p-bandwidth), the fabric's cluster UUID */
  emit("gpudoctor-helper", "1.4");
  /* NVML runs beside CUDA, in its own thread, also when CUDA fails: NVML working while CUDA
   * fails is a signature. It starts once cuInit has returned: nvmlInit at the same time as
   * cuInit makes cuInit about 10 ms slower on an H200 (bench/results/parallel-proof), while
   * beside the GPUs' contexts and kernels it costs nothing. */
  static struct gd_task nvml_task;
  nvml_task.prefix = "nvml";
  nvml_task.run = probe_nvml;
  nvml_task.arg = (void*)libnvml;
  nvml_task.index = -1;
  if (nvml_only) {
    task_start(&nvml_task);
  } else {
    probe_cuda(libcuda, deadline_us, &nvml_task);
  }
  stage("nvml-wait");
  tasks_wait(&nvml_task, 1, deadline_us);
  stage("done");
  emit_end();
  /* Leave without running libcuda's and NVML's exit handlers and without waiting for threads
   * still inside the driver: contexts and modules are torn down by the kernel as the process
   * exits, and gpudoctor stops waiting at the end line. */
  _exit(0);
}
