/* The few types and prototypes of NVIDIA's nvml.h (NVML 12.x) that the helper calls through
 * dlsym. */
#ifndef GD_HELPER_NVML_API_H
#define GD_HELPER_NVML_API_H

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

/* ---- GPU health (nvml_health.c). Layouts from nvml.h as NVIDIA ships it (NVIDIA/go-nvml
 * pkg/nvml/nvml.h 13.3, nvidia-settings' per-driver copies 415.13 ... 610.43.02); sizes checked
 * below for LP64, the only ABI the helper is built for. ---- */
enum {
  k_nvml_not_supported = 3,             /* NVML_ERROR_NOT_SUPPORTED */
  k_nvml_not_found = 6,                 /* NVML_ERROR_NOT_FOUND: no MIG device at that index */
  k_nvml_insufficient_size = 7,         /* NVML_ERROR_INSUFFICIENT_SIZE */
  k_nvml_argument_version_mismatch = 25, /* NVML_ERROR_ARGUMENT_VERSION_MISMATCH */
  k_nvml_memory_uncorrected = 1,        /* NVML_MEMORY_ERROR_TYPE_UNCORRECTED */
  k_nvml_volatile_ecc = 0,              /* NVML_VOLATILE_ECC: since the driver loaded */
  k_nvml_aggregate_ecc = 1,             /* NVML_AGGREGATE_ECC: the GPU's lifetime */
  k_nvml_retire_multiple_sbe = 0,       /* NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS */
  k_nvml_retire_dbe = 1,                /* NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR */
  k_nvml_fi_recovery_action = 230,      /* NVML_FI_DEV_GET_GPU_RECOVERY_ACTION (driver 565+) */
};
typedef int nvmlEnableState_t;          /* 0 disabled, 1 enabled */
typedef union {
  double dVal; int siVal; unsigned int uiVal; unsigned long ulVal;
  unsigned long long ullVal; long long sllVal; unsigned short usVal;
} nvmlValue_t;
enum { k_nvml_value_double, k_nvml_value_uint, k_nvml_value_ulong, k_nvml_value_ull, k_nvml_value_sll,
       k_nvml_value_sint, k_nvml_value_ushort };  /* nvmlValueType_t */
typedef struct {
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;
  long long latencyUsec;
  int valueType;
  nvmlReturn_t nvmlReturn;  /* per field: the value is defined only when this is 0 */
  nvmlValue_t value;
} nvmlFieldValue_t;
typedef struct { unsigned int max, high, partial, low, none; } nvmlRowRemapperHistogramValues_t;
typedef unsigned char nvmlGpuFabricState_t;  /* 0 not supported, 1 not started, 2 in progress, 3 completed */
typedef struct {                              /* nvmlGpuFabricInfo_t, for nvmlDeviceGetGpuFabricInfo (525+) */
  unsigned char clusterUuid[16]; nvmlReturn_t status; unsigned int cliqueId; nvmlGpuFabricState_t state;
} nvmlGpuFabricInfo_v1_t;
typedef struct {                              /* for nvmlDeviceGetGpuFabricInfoV, version 2 (550+) */
  unsigned int version; unsigned char clusterUuid[16]; nvmlReturn_t status; unsigned int cliqueId;
  nvmlGpuFabricState_t state; unsigned int healthMask;
} nvmlGpuFabricInfo_v2_t;
typedef struct {                              /* version 3 (580+): healthSummary */
  unsigned int version; unsigned char clusterUuid[16]; nvmlReturn_t status; unsigned int cliqueId;
  nvmlGpuFabricState_t state; unsigned int healthMask; unsigned char healthSummary;
} nvmlGpuFabricInfo_v3_t;
/* NVML_STRUCT_VERSION(data, ver) = sizeof(struct) | (ver << 24) */
#define GD_NVML_STRUCT_VERSION(type, ver) ((unsigned int)sizeof(type) | ((unsigned int)(ver) << 24))
_Static_assert(sizeof(nvmlFieldValue_t) == 40, "nvmlFieldValue_t is 40 bytes");
_Static_assert(__builtin_offsetof(nvmlFieldValue_t, value) == 32, "nvmlFieldValue_t.value at 32");
_Static_assert(sizeof(nvmlRowRemapperHistogramValues_t) == 20, "nvmlRowRemapperHistogramValues_t is 20 bytes");
_Static_assert(sizeof(nvmlGpuFabricInfo_v1_t) == 28, "nvmlGpuFabricInfo_t is 28 bytes");
_Static_assert(sizeof(nvmlGpuFabricInfo_v2_t) == 36, "nvmlGpuFabricInfo_v2_t is 36 bytes (0x02000024)");
_Static_assert(sizeof(nvmlGpuFabricInfo_v3_t) == 40, "nvmlGpuFabricInfo_v3_t is 40 bytes (0x03000028)");

typedef nvmlReturn_t (*nvml_two_states_fn)(nvmlDevice_t, nvmlEnableState_t*, nvmlEnableState_t*); /* EccMode */
typedef nvmlReturn_t (*nvml_two_uints_fn)(nvmlDevice_t, unsigned int*, unsigned int*);           /* MigMode */
typedef nvmlReturn_t (*nvml_ecc_count_fn)(nvmlDevice_t, int, int, unsigned long long*);         /* TotalEccErrors */
typedef nvmlReturn_t (*nvml_remapped_fn)(nvmlDevice_t, unsigned int*, unsigned int*, unsigned int*, unsigned int*);
typedef nvmlReturn_t (*nvml_histogram_fn)(nvmlDevice_t, nvmlRowRemapperHistogramValues_t*);
typedef nvmlReturn_t (*nvml_retired_fn)(nvmlDevice_t, int, unsigned int*, unsigned long long*); /* GetRetiredPages */
typedef nvmlReturn_t (*nvml_state_fn)(nvmlDevice_t, nvmlEnableState_t*);  /* Persistence, RetiredPagesPending */
typedef nvmlReturn_t (*nvml_int_fn)(nvmlDevice_t, int*);                  /* ComputeMode, PerformanceState */
typedef nvmlReturn_t (*nvml_uint_fn)(nvmlDevice_t, unsigned int*);        /* PCIe gen/width */
typedef nvmlReturn_t (*nvml_ull_fn)(nvmlDevice_t, unsigned long long*);   /* clocks event reasons */
typedef nvmlReturn_t (*nvml_device_fn)(nvmlDevice_t);                     /* ValidateInforom */
typedef nvmlReturn_t (*nvml_fields_fn)(nvmlDevice_t, int, nvmlFieldValue_t*);
typedef nvmlReturn_t (*nvml_fabric_fn)(nvmlDevice_t, void*);              /* GpuFabricInfo(V) */
typedef nvmlReturn_t (*nvml_processes_fn)(nvmlDevice_t, unsigned int*, void*); /* ComputeRunningProcesses */
typedef struct { unsigned long long total, free, used; } nvmlMemory_t;   /* nvmlDeviceGetMemoryInfo (v1) */
typedef nvmlReturn_t (*nvml_memory_fn)(nvmlDevice_t, nvmlMemory_t*);
typedef nvmlReturn_t (*nvml_mig_handle_fn)(nvmlDevice_t, unsigned int, nvmlDevice_t*); /* MigDeviceHandleByIndex */

#endif
