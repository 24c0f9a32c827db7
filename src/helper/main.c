/* gpudoctor-cuda-helper: loads libcuda and NVML with dlopen and reports what they say.
 *
 * Built against glibc 2.17 (the main gpudoctor binary is static musl and cannot dlopen a glibc
 * libcuda, GUIDE 5.1) and run by gpudoctor through the host's own loader:
 *   <ld.so> /proc/self/fd/N --reply-fd 3 [--libcuda PATH] [--libnvml PATH] [--only nvml]
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

#include "reply.h"

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
