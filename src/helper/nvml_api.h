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

#endif
