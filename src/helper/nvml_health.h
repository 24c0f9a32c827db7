/* One GPU's health as NVML reports it (nvml_health.c): ECC, row remapping, retired pages, the
 * driver's recovery action, InfoROM, persistence, compute and MIG modes, clock event reasons,
 * the PCIe link, the NVLink fabric, the memory in use and the compute processes with theirs, and
 * the MIG devices of a GPU in MIG mode. */
#ifndef GD_HELPER_NVML_HEALTH_H
#define GD_HELPER_NVML_HEALTH_H

#include "nvml_api.h"

struct gd_nvml_health_api {
  nvml_two_states_fn ecc_mode;
  nvml_ecc_count_fn total_ecc_errors;
  nvml_remapped_fn remapped_rows;
  nvml_histogram_fn remap_histogram;
  nvml_retired_fn retired_pages;
  nvml_state_fn retired_pending;
  nvml_fields_fn field_values;
  nvml_device_fn validate_inforom;
  nvml_state_fn persistence;
  nvml_state_fn display_active;
  nvml_int_fn compute_mode;
  nvml_two_uints_fn mig_mode;
  nvml_ull_fn clocks_event_reasons;
  const char* clocks_symbol;   /* which of the two names it is */
  nvml_int_fn performance_state;
  nvml_uint_fn pcie_gen_current, pcie_gen_max, pcie_gen_gpu_max, pcie_width_current, pcie_width_max;
  nvml_fabric_fn fabric_v, fabric_v1;
  nvml_memory_fn memory_info;
  nvml_uint_fn max_mig_devices;
  nvml_mig_handle_fn mig_device_handle;
  nvml_device_text_fn uuid;  /* of a MIG device */
  nvml_processes_fn processes;
  const char* processes_symbol;
  unsigned int process_stride;  /* bytes per nvmlProcessInfo entry the symbol writes */
};

/* --inforom validate: nvmlDeviceValidateInforom reads the InfoROM from flash, about 70 ms per GPU
 * on an H200 (bench/nvml_query_times.c), during which the driver makes contexts wait: so it runs
 * only when asked. Without it a corrupted InfoROM still shows in any query answering 14. */
extern int g_validate_inforom;

/* Looks every entry point up once; a missing one is reported per GPU as `missing symbol`. */
void load_nvml_health_api(void* lib, struct gd_nvml_health_api* api);

/* Writes `<prefix>.…` health lines for one GPU (prefix "nvml.device.N"). */
void probe_nvml_health(const struct gd_nvml_health_api* api, nvmlDevice_t device, const char* prefix);

#endif
