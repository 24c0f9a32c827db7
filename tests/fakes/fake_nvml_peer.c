/* NVML's view of GPU pairs for the fake libnvidia-ml.so.1 (fake_libnvidia_ml.c), for the helper's
 * nvml_peer.c. For the ordered pair A, B (NAME_<A>_<B> wins over NAME):
 *
 *   FAKE_NVML_P2P_STATUS[_<A>_<B>]=<n>   nvmlDeviceGetP2PStatus for READ and WRITE (0 OK, 5 NOT_SUPPORTED...);
 *                                        default: 0 where the fake libcuda gives peer access
 *                                        (FAKE_CUDA_PEER_ACCESS[_<A>_<B>], default 1), else 5, so
 *                                        the two agree unless a test says otherwise
 *   FAKE_NVML_P2P_NVLINK[_<A>_<B>]=<n>   ... for NVLINK (default 5: no NVLink)
 *   FAKE_NVML_TOPOLOGY[_<A>_<B>]=<n>     nvmlDeviceGetTopologyCommonAncestor (default 30, HOSTBRIDGE)
 *   FAKE_NVML_HANG_IN / CRASH_IN name nvmlDeviceGetP2PStatus or nvmlDeviceGetTopologyCommonAncestor.
 * The enum values are NVIDIA's nvml.h ones (nvmlGpuP2PStatus_t, nvmlGpuP2PCapsIndex_t,
 * nvmlGpuTopologyLevel_t), as cited in src/helper/nvml_peer.c. */
#define _GNU_SOURCE
#include <stdio.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st* nvmlDevice_t;

long fake_nvml_env_int(const char* name, long fallback);
void fake_nvml_enter(const char* function);
int fake_nvml_device_index(nvmlDevice_t device);

static long pair_env(const char* name, int a, int b, long fallback) {
  char key[96];
  snprintf(key, sizeof key, "%s_%d_%d", name, a, b);
  return fake_nvml_env_int(key, fake_nvml_env_int(name, fallback));
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1, nvmlDevice_t device2, int caps_index,
                                                int* status) {
  fake_nvml_enter("nvmlDeviceGetP2PStatus");
  int a = fake_nvml_device_index(device1), b = fake_nvml_device_index(device2);
  if (a < 0 || b < 0) return a < 0 && b < 0 ? 1 : 2; /* UNINITIALIZED / INVALID_ARGUMENT */
  if (status == NULL || caps_index < 0 || caps_index > 4) return 2;
  if (caps_index == 2) {
    *status = (int)pair_env("FAKE_NVML_P2P_NVLINK", a, b, 5);
  } else {
    long cuda_access = pair_env("FAKE_CUDA_PEER_ACCESS", a, b, 1);
    *status = (int)pair_env("FAKE_NVML_P2P_STATUS", a, b, cuda_access ? 0 : 5);
  }
  return 0;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t device1, nvmlDevice_t device2, int* level) {
  fake_nvml_enter("nvmlDeviceGetTopologyCommonAncestor");
  int a = fake_nvml_device_index(device1), b = fake_nvml_device_index(device2);
  if (a < 0 || b < 0 || level == NULL) return 2;
  *level = (int)pair_env("FAKE_NVML_TOPOLOGY", a, b, 30);
  return 0;
}
