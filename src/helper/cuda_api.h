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

/* The kernel proof: a PTX module JIT-compiled by the driver, one launch, a copy back. */
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUstream_st* CUstream;
typedef int CUjit_option;                             /* enum CUjit_option_enum */
enum {
  k_cu_jit_wall_time = 2,                             /* CU_JIT_WALL_TIME: float ms, output */
  k_cu_jit_error_log_buffer = 5,                      /* CU_JIT_ERROR_LOG_BUFFER */
  k_cu_jit_error_log_buffer_size = 6,                 /* CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES */
};
/* cuModuleLoadDataEx(module, image, numOptions, options, optionValues) */
typedef CUresult (*cu_module_load_ex_fn)(CUmodule*, const void*, unsigned int, CUjit_option*, void**);
typedef CUresult (*cu_module_function_fn)(CUfunction*, CUmodule, const char*); /* cuModuleGetFunction */
/* cuLaunchKernel(f, grid x/y/z, block x/y/z, sharedMemBytes, stream, kernelParams, extra) */
typedef CUresult (*cu_launch_fn)(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
                                 unsigned int, unsigned int, CUstream, void**, void**);
typedef CUresult (*cu_sync_fn)(void);                 /* cuCtxSynchronize */
typedef CUresult (*cu_copy_dtoh_fn)(void*, CUdeviceptr, size_t); /* cuMemcpyDtoH_v2 */

/* The pair proof (cuda_peer.c): capability, enabling, a copy-engine copy between two GPUs. */
enum {
  k_cu_peer_already_enabled = 704,                    /* CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED */
};
typedef CUresult (*cu_can_access_peer_fn)(int*, CUdevice, CUdevice); /* cuDeviceCanAccessPeer(can, dev, peerDev) */
typedef CUresult (*cu_enable_peer_fn)(CUcontext, unsigned int); /* cuCtxEnablePeerAccess(peerContext, Flags) */
/* cuMemcpyPeer(dstDevice, dstContext, srcDevice, srcContext, ByteCount) */
typedef CUresult (*cu_copy_peer_fn)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t);
typedef CUresult (*cu_memset_d32_fn)(CUdeviceptr, unsigned int, size_t); /* cuMemsetD32_v2(dst, value, N) */

/* The optional pair bandwidth (cuda_peer_bandwidth.c, --p2p-bandwidth): timed copies between two GPUs. */
typedef struct CUevent_st* CUevent;
/* cuMemcpyPeerAsync(dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream) */
typedef CUresult (*cu_copy_peer_async_fn)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream);
typedef CUresult (*cu_event_create_fn)(CUevent*, unsigned int);   /* cuEventCreate(phEvent, Flags) */
typedef CUresult (*cu_event_record_fn)(CUevent, CUstream);        /* cuEventRecord(hEvent, hStream) */
typedef CUresult (*cu_event_sync_fn)(CUevent);                    /* cuEventSynchronize(hEvent) */
typedef CUresult (*cu_event_elapsed_fn)(float*, CUevent, CUevent); /* cuEventElapsedTime(_v2)(pMilliseconds, start, end) */

#endif
