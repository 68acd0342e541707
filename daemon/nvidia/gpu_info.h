/*
 * What the nvidia source learns about a GPU before sampling it: names,
 * PCI identity and the few attributes the metric equations use.
 */
#ifndef GPD_NVIDIA_GPU_INFO_H
#define GPD_NVIDIA_GPU_INFO_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/nvidia/libs.h"
#include "metrics/device.h"
#include "metrics/platform.h"

struct gpd_nv_gpu {
	char name[96];                  /* "NVIDIA H200" */
	char chip[32];                  /* CUPTI's chip name, "GH100" */
	char pci_bus_id[32];            /* "0000:00:06.0" */
	char uuid[48];                  /* "GPU-" and 8-4-4-4-12 hex digits */
	uint32_t pci_id;                /* device id, 0 where unknown */
	uint32_t revision;
	int sm_count;
	int max_threads_per_sm;
	int clock_khz;                  /* the SM clock's maximum */
};

/*
 * Describes CUDA device index; cuInit must have succeeded. -ENODEV for no
 * such device, -EIO when the driver or CUPTI fails; why in words.
 * sysfs_root ("/sys") is where the PCI ids are read from.
 */
int gpd_nv_gpu_describe(const struct gpd_nv_libs *libs, unsigned index,
			const char *sysfs_root, struct gpd_nv_gpu *gpu,
			char *why, size_t why_size);

/* The device description the equations see. */
void gpd_nv_gpu_device_info(const struct gpd_nv_gpu *gpu,
			    const struct gpm_platform *platform,
			    struct gpm_device_info *info);

#endif
