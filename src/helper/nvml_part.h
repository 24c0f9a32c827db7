/* The NVML part of gpudoctor-cuda-helper (nvml_part.c). */
#ifndef GD_HELPER_NVML_PART_H
#define GD_HELPER_NVML_PART_H

#include "tasks.h"

/* The task's arg is the path to dlopen ("libnvidia-ml.so.1" or --libnvml). */
void probe_nvml(struct gd_task* task);

#endif
