/*
 * The usage source of an NVIDIA GPU, from NVML (nvidia_usage.c).
 */
#ifndef GPD_NVIDIA_USAGE_H
#define GPD_NVIDIA_USAGE_H

#include "daemon/nvidia/libs.h"
#include "daemon/process_activity.h"
#include "daemon/usage_source.h"

/* The usage of the GPU at pci_bus_id; libs (and activity, where not
 * NULL) must outlive it. NVML opens at the first reading; without NVML
 * or its usage calls, readings say why in their note. A process that
 * reports its own kernel time on this GPU to activity has that as its
 * SM share instead of the driver's samples. -ENOMEM. */
int gpd_nvidia_usage_create(const struct gpd_nv_libs *libs,
			    const char *pci_bus_id, const char *proc_root,
			    const struct gpd_process_activity *activity,
			    struct gpd_usage_source **out);

#endif
