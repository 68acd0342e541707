/*
 * Describing an NVIDIA GPU (see gpu_info.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/nvidia/gpu_info.h"

static int cuda_fail(const struct gpd_nv_libs *libs, char *why, size_t size,
		     const char *call, gpd_cu_result r)
{
	snprintf(why, size, "%s: %s (CUDA error %d)", call,
		 gpd_nv_cuda_error(libs, r), r);
	return -EIO;
}

/* A hexadecimal sysfs attribute of the PCI device, 0 if unreadable. */
static uint32_t read_pci_attribute(const char *sysfs_root, const char *bus_id,
				   const char *attribute)
{
	char path[256], text[32];
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/%s", sysfs_root,
		 bus_id, attribute);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	unsigned long v = 0;
	if (fgets(text, sizeof(text), f))
		v = strtoul(text, NULL, 16);
	fclose(f);
	return (uint32_t)v;
}

/* CUDA may print the domain with eight digits; sysfs and NVML use the
 * canonical dddd:bb:dd.f. */
static void canonical_bus_id(const char *cuda, char *out, size_t size)
{
	unsigned domain, bus, device, function;
	int n;
	if (sscanf(cuda, "%x:%x:%x.%x", &domain, &bus, &device, &function) == 4)
		n = snprintf(out, size, "%04x:%02x:%02x.%x", domain, bus,
			     device, function);
	else
		n = snprintf(out, size, "%s", cuda);
	/* A bus id longer than out is not one sysfs or NVML would match. */
	if (n < 0 || (size_t)n >= size)
		out[0] = 0;
}

static int chip_name(const struct gpd_nv_libs *libs, unsigned index,
		     char *chip, size_t chip_size, char *why, size_t size)
{
	const struct gpd_cupti_api *api = &libs->cupti;
	struct gpd_cupti_profiler_params init = {
		.struct_size = GPD_CUPTI_STRUCT_SIZE(struct gpd_cupti_profiler_params,
						     priv),
	};
	gpd_cupti_result r = api->profiler_initialize(&init);
	if (r) {
		snprintf(why, size, "cuptiProfilerInitialize: %s (CUPTI error %d)",
			 gpd_nv_cupti_error(libs, r), r);
		return -EIO;
	}
	struct gpd_cupti_chip_name_params p = {
		.struct_size = GPD_CUPTI_STRUCT_SIZE(struct gpd_cupti_chip_name_params,
						     chip_name),
		.device_index = index,
	};
	r = api->device_get_chip_name(&p);
	if (r)
		snprintf(why, size, "cuptiDeviceGetChipName: %s (CUPTI error %d)",
			 gpd_nv_cupti_error(libs, r), r);
	else
		snprintf(chip, chip_size, "%s", p.chip_name ? p.chip_name : "");
	api->profiler_deinitialize(&init);
	return r ? -EIO : 0;
}

int gpd_nv_gpu_describe(const struct gpd_nv_libs *libs, unsigned index,
			const char *sysfs_root, struct gpd_nv_gpu *gpu,
			char *why, size_t why_size)
{
	const struct gpd_cuda_api *cu = &libs->cuda;
	gpd_cu_device dev;
	char bus_id[64];
	int count = 0;

	memset(gpu, 0, sizeof(*gpu));
	gpd_cu_result r = cu->device_get_count(&count);
	if (r)
		return cuda_fail(libs, why, why_size, "cuDeviceGetCount", r);
	if ((int)index >= count) {
		snprintf(why, why_size, "there is no CUDA device %u: the driver "
			 "shows %d", index, count);
		return -ENODEV;
	}
	if ((r = cu->device_get(&dev, (int)index)))
		return cuda_fail(libs, why, why_size, "cuDeviceGet", r);
	if ((r = cu->device_get_name(gpu->name, sizeof(gpu->name), dev)))
		return cuda_fail(libs, why, why_size, "cuDeviceGetName", r);
	if ((r = cu->device_get_pci_bus_id(bus_id, sizeof(bus_id), dev)))
		return cuda_fail(libs, why, why_size, "cuDeviceGetPCIBusId", r);
	canonical_bus_id(bus_id, gpu->pci_bus_id, sizeof(gpu->pci_bus_id));
	unsigned char u[16];
	if ((r = cu->device_get_uuid(u, dev)))
		return cuda_fail(libs, why, why_size, "cuDeviceGetUuid", r);
	/* As nvidia-smi and NVML print it. */
	snprintf(gpu->uuid, sizeof(gpu->uuid), "GPU-%02x%02x%02x%02x-%02x%02x-"
		 "%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
		 u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		 u[13], u[14], u[15]);
	static const struct {
		int attribute;
		size_t offset;
	} attributes[] = {
		{ GPD_CU_ATTRIBUTE_MULTIPROCESSOR_COUNT,
		  offsetof(struct gpd_nv_gpu, sm_count) },
		{ GPD_CU_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
		  offsetof(struct gpd_nv_gpu, max_threads_per_sm) },
		{ GPD_CU_ATTRIBUTE_CLOCK_RATE, offsetof(struct gpd_nv_gpu, clock_khz) },
	};
	for (size_t i = 0; i < sizeof(attributes) / sizeof(attributes[0]); i++) {
		int *v = (int *)((char *)gpu + attributes[i].offset);
		if ((r = cu->device_get_attribute(v, attributes[i].attribute, dev)))
			return cuda_fail(libs, why, why_size,
					 "cuDeviceGetAttribute", r);
	}
	gpu->pci_id = read_pci_attribute(sysfs_root, gpu->pci_bus_id, "device");
	gpu->revision = read_pci_attribute(sysfs_root, gpu->pci_bus_id,
					   "revision");
	return chip_name(libs, index, gpu->chip, sizeof(gpu->chip), why,
			 why_size);
}

void gpd_nv_gpu_device_info(const struct gpd_nv_gpu *gpu,
			    const struct gpm_platform *platform,
			    struct gpm_device_info *info)
{
	gpm_platform_default_device(platform, info);
	if (gpu->pci_id)
		info->pci_id = gpu->pci_id;
	info->revision = gpu->revision;
	/* Warps per SM stand where threads per EU stand for Intel: the
	 * occupancy equations divide by $EuThreadsCount. */
	if (gpu->max_threads_per_sm > 0)
		info->eu_threads_count = (uint32_t)gpu->max_threads_per_sm / 32;
	if (gpu->clock_khz > 0)
		info->gpu_max_freq = (uint64_t)gpu->clock_khz * 1000;
}
