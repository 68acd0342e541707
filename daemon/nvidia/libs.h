/*
 * The NVIDIA libraries the nvidia source runs on, as function tables:
 * libcuda (the driver), libcupti (+ libnvperf_host, which CUPTI's profiler
 * host API loads) and libnvidia-ml.
 *
 * Nothing links against them: gpd_nv_libs_load() finds them with dlopen at
 * run time, so the daemon starts, and the rest of the suite runs, on
 * machines with neither the libraries nor a GPU. Unit tests fill the tables
 * with fakes instead. Every entry takes and returns what the C function of
 * the same name in NVIDIA's headers does (see cuda_abi.h).
 */
#ifndef GPD_NVIDIA_LIBS_H
#define GPD_NVIDIA_LIBS_H

#include <stdbool.h>

#include "daemon/nvidia/cuda_abi.h"

struct gpd_cuda_api {
	gpd_cu_result (*init)(unsigned flags);                          /* cuInit */
	gpd_cu_result (*device_get_count)(int *count);
	gpd_cu_result (*device_get)(gpd_cu_device *device, int ordinal);
	gpd_cu_result (*device_get_name)(char *name, int len,
					 gpd_cu_device device);
	gpd_cu_result (*device_get_attribute)(int *value, int attribute,
					      gpd_cu_device device);
	gpd_cu_result (*device_get_pci_bus_id)(char *bus_id, int len,
					       gpd_cu_device device);
	/* CUuuid is 16 bytes. */
	gpd_cu_result (*device_get_uuid)(unsigned char uuid[16],
					 gpd_cu_device device);
	gpd_cu_result (*get_error_string)(gpd_cu_result result,
					  const char **text);
};

struct gpd_cupti_api {
	gpd_cupti_result (*get_result_string)(gpd_cupti_result result,
					      const char **text);
	gpd_cupti_result (*profiler_initialize)(struct gpd_cupti_profiler_params *);
	gpd_cupti_result (*profiler_deinitialize)(struct gpd_cupti_profiler_params *);
	gpd_cupti_result (*device_get_chip_name)(struct gpd_cupti_chip_name_params *);
	gpd_cupti_result (*pm_get_counter_availability)(
		struct gpd_cupti_pm_availability_params *);
	gpd_cupti_result (*host_initialize)(struct gpd_cupti_host_init_params *);
	gpd_cupti_result (*host_deinitialize)(struct gpd_cupti_host_params *);
	gpd_cupti_result (*host_config_add_metrics)(
		struct gpd_cupti_host_add_metrics_params *);
	gpd_cupti_result (*host_get_config_image_size)(
		struct gpd_cupti_host_config_size_params *);
	gpd_cupti_result (*host_get_config_image)(
		struct gpd_cupti_host_config_params *);
	gpd_cupti_result (*host_get_num_of_passes)(
		struct gpd_cupti_host_passes_params *);
	gpd_cupti_result (*host_evaluate_to_gpu_values)(
		struct gpd_cupti_host_evaluate_params *);
	gpd_cupti_result (*pm_enable)(struct gpd_cupti_pm_enable_params *);
	gpd_cupti_result (*pm_disable)(struct gpd_cupti_pm_params *);
	gpd_cupti_result (*pm_set_config)(struct gpd_cupti_pm_config_params *);
	gpd_cupti_result (*pm_start)(struct gpd_cupti_pm_params *);
	gpd_cupti_result (*pm_stop)(struct gpd_cupti_pm_params *);
	gpd_cupti_result (*pm_decode_data)(struct gpd_cupti_pm_decode_params *);
	gpd_cupti_result (*pm_get_counter_data_size)(
		struct gpd_cupti_pm_data_size_params *);
	gpd_cupti_result (*pm_counter_data_image_initialize)(
		struct gpd_cupti_pm_data_init_params *);
	gpd_cupti_result (*pm_get_counter_data_info)(
		struct gpd_cupti_pm_data_info_params *);
	gpd_cupti_result (*pm_counter_data_get_sample_info)(
		struct gpd_cupti_pm_sample_params *);
};

struct gpd_nvml_api {
	gpd_nvml_return (*init)(void);                          /* nvmlInit_v2 */
	gpd_nvml_return (*shutdown)(void);
	const char *(*error_string)(gpd_nvml_return result);
	gpd_nvml_return (*device_get_handle_by_pci_bus_id)(const char *bus_id,
							  gpd_nvml_device *device);
	gpd_nvml_return (*device_get_clock_info)(gpd_nvml_device device,
						 int clock, unsigned *mhz);
	gpd_nvml_return (*device_get_total_energy_consumption)(
		gpd_nvml_device device, unsigned long long *mj);
	gpd_nvml_return (*device_get_temperature)(gpd_nvml_device device,
						  int sensor, unsigned *celsius);
	gpd_nvml_return (*device_get_memory_info)(gpd_nvml_device device,
						  struct gpd_nvml_memory *memory);
	gpd_nvml_return (*gpm_query_device_support)(
		gpd_nvml_device device, struct gpd_nvml_gpm_support *support);
	gpd_nvml_return (*gpm_sample_alloc)(gpd_nvml_gpm_sample *sample);
	gpd_nvml_return (*gpm_sample_free)(gpd_nvml_gpm_sample sample);
	gpd_nvml_return (*gpm_sample_get)(gpd_nvml_device device,
					  gpd_nvml_gpm_sample sample);
	gpd_nvml_return (*gpm_metrics_get)(struct gpd_nvml_gpm_metrics_get *get);
};

/* What the usage stream reads besides the telemetry: optional, so that
 * PM sampling and telemetry work with a driver that lacks one of them. */
struct gpd_nvml_usage_api {
	gpd_nvml_return (*device_get_utilization_rates)(
		gpd_nvml_device device, struct gpd_nvml_utilization *u);
	gpd_nvml_return (*device_get_encoder_utilization)(
		gpd_nvml_device device, unsigned *percent, unsigned *period_us);
	gpd_nvml_return (*device_get_decoder_utilization)(
		gpd_nvml_device device, unsigned *percent, unsigned *period_us);
	gpd_nvml_return (*device_get_max_clock_info)(gpd_nvml_device device,
						     int clock, unsigned *mhz);
	gpd_nvml_return (*device_get_pcie_throughput)(gpd_nvml_device device,
						      int counter, unsigned *kbps);
	gpd_nvml_return (*device_get_compute_running_processes)(
		gpd_nvml_device device, unsigned *count,
		struct gpd_nvml_process_info *infos);
	gpd_nvml_return (*device_get_graphics_running_processes)(
		gpd_nvml_device device, unsigned *count,
		struct gpd_nvml_process_info *infos);
	gpd_nvml_return (*device_get_process_utilization)(
		gpd_nvml_device device, struct gpd_nvml_process_utilization *samples,
		unsigned *count, unsigned long long last_seen_us);
	/* Its successor (drivers of release 550 and later); NULL where the
	 * driver lacks it. */
	gpd_nvml_return (*device_get_processes_utilization_info)(
		gpd_nvml_device device,
		struct gpd_nvml_processes_utilization *info);
};

/* Where to look; NULL fields take the defaults. Tests name libraries that
 * do not exist to see what a machine without them says. */
struct gpd_nv_lib_names {
	const char *cuda;               /* "libcuda.so.1" */
	const char *cupti;              /* "libcupti.so", then CUDA_HOME's */
	const char *nvperf_host;        /* "libnvperf_host.so", beside CUPTI */
	const char *nvml;               /* "libnvidia-ml.so.1" */
	const char *cuda_home;          /* $CUDA_HOME, else /usr/local/cuda */
};

#define GPD_NV_LIBS_WHY 320

struct gpd_nv_libs {
	struct gpd_cuda_api cuda;
	struct gpd_cupti_api cupti;
	struct gpd_nvml_api nvml;
	struct gpd_nvml_usage_api nvml_usage;
	/* PM sampling needs the driver and CUPTI; telemetry needs NVML. When
	 * a part is missing, why_* says which library and what to install. */
	bool have_cupti;
	bool have_nvml;
	char why_no_cupti[GPD_NV_LIBS_WHY];
	char why_no_nvml[GPD_NV_LIBS_WHY];
	bool have_nvml_usage;           /* nvml_usage is filled */
	char why_no_nvml_usage[GPD_NV_LIBS_WHY];
	void *handles[4];               /* what dlclose gets; NULL for fakes */
};

/* Loads what it finds; libs says what is missing. names may be NULL. */
void gpd_nv_libs_load(struct gpd_nv_libs *libs,
		      const struct gpd_nv_lib_names *names);

void gpd_nv_libs_unload(struct gpd_nv_libs *libs);

/* The words of a CUDA or CUPTI result, from the library when it has them. */
const char *gpd_nv_cuda_error(const struct gpd_nv_libs *libs,
			      gpd_cu_result result);
const char *gpd_nv_cupti_error(const struct gpd_nv_libs *libs,
			       gpd_cupti_result result);
const char *gpd_nv_nvml_error(const struct gpd_nv_libs *libs,
			      gpd_nvml_return result);

#endif
