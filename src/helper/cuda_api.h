/* The few types and prototypes of NVIDIA's cuda.h (CUDA 13.0, CUDA_VERSION 13000) that the
 * helper calls through dlsym: no CUDA headers are needed to build it. */
#ifndef GD_HELPER_CUDA_API_H
#define GD_HELPER_CUDA_API_H

#include <stddef.h>

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

#endif
