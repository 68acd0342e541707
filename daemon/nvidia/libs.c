/*
 * Loading libcuda, libcupti, libnvperf_host and libnvidia-ml at run time.
 *
 * Each table is filled from a list of (symbol, slot) pairs, so a library
 * too old to have one of them is named in words together with the symbol
 * it lacks, never found out later through a crash.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/nvidia/libs.h"

enum { LIB_CUDA, LIB_CUPTI, LIB_NVPERF_HOST, LIB_NVML };

struct symbol {
	const char *name;
	size_t offset;                  /* of the slot in its table */
};

#define CUDA_SYM(name, field) { name, offsetof(struct gpd_cuda_api, field) }
#define CUPTI_SYM(name, field) { name, offsetof(struct gpd_cupti_api, field) }
#define NVML_SYM(name, field) { name, offsetof(struct gpd_nvml_api, field) }
#define USAGE_SYM(name, field) { name, offsetof(struct gpd_nvml_usage_api, field) }

static const struct symbol cuda_symbols[] = {
	CUDA_SYM("cuInit", init),
	CUDA_SYM("cuDeviceGetCount", device_get_count),
	CUDA_SYM("cuDeviceGet", device_get),
	CUDA_SYM("cuDeviceGetName", device_get_name),
	CUDA_SYM("cuDeviceGetAttribute", device_get_attribute),
	CUDA_SYM("cuDeviceGetPCIBusId", device_get_pci_bus_id),
	CUDA_SYM("cuDeviceGetUuid", device_get_uuid),
	CUDA_SYM("cuGetErrorString", get_error_string),
};

static const struct symbol cupti_symbols[] = {
	CUPTI_SYM("cuptiGetResultString", get_result_string),
	CUPTI_SYM("cuptiProfilerInitialize", profiler_initialize),
	CUPTI_SYM("cuptiProfilerDeInitialize", profiler_deinitialize),
	CUPTI_SYM("cuptiDeviceGetChipName", device_get_chip_name),
	CUPTI_SYM("cuptiPmSamplingGetCounterAvailability",
		  pm_get_counter_availability),
	CUPTI_SYM("cuptiProfilerHostInitialize", host_initialize),
	CUPTI_SYM("cuptiProfilerHostDeinitialize", host_deinitialize),
	CUPTI_SYM("cuptiProfilerHostConfigAddMetrics", host_config_add_metrics),
	CUPTI_SYM("cuptiProfilerHostGetConfigImageSize",
		  host_get_config_image_size),
	CUPTI_SYM("cuptiProfilerHostGetConfigImage", host_get_config_image),
	CUPTI_SYM("cuptiProfilerHostGetNumOfPasses", host_get_num_of_passes),
	CUPTI_SYM("cuptiProfilerHostEvaluateToGpuValues",
		  host_evaluate_to_gpu_values),
	CUPTI_SYM("cuptiPmSamplingEnable", pm_enable),
	CUPTI_SYM("cuptiPmSamplingDisable", pm_disable),
	CUPTI_SYM("cuptiPmSamplingSetConfig", pm_set_config),
	CUPTI_SYM("cuptiPmSamplingStart", pm_start),
	CUPTI_SYM("cuptiPmSamplingStop", pm_stop),
	CUPTI_SYM("cuptiPmSamplingDecodeData", pm_decode_data),
	CUPTI_SYM("cuptiPmSamplingGetCounterDataSize", pm_get_counter_data_size),
	CUPTI_SYM("cuptiPmSamplingCounterDataImageInitialize",
		  pm_counter_data_image_initialize),
	CUPTI_SYM("cuptiPmSamplingGetCounterDataInfo", pm_get_counter_data_info),
	CUPTI_SYM("cuptiPmSamplingCounterDataGetSampleInfo",
		  pm_counter_data_get_sample_info),
};

static const struct symbol nvml_symbols[] = {
	NVML_SYM("nvmlInit_v2", init),
	NVML_SYM("nvmlShutdown", shutdown),
	NVML_SYM("nvmlErrorString", error_string),
	NVML_SYM("nvmlDeviceGetHandleByPciBusId_v2",
		 device_get_handle_by_pci_bus_id),
	NVML_SYM("nvmlDeviceGetClockInfo", device_get_clock_info),
	NVML_SYM("nvmlDeviceGetTotalEnergyConsumption",
		 device_get_total_energy_consumption),
	NVML_SYM("nvmlDeviceGetTemperature", device_get_temperature),
	NVML_SYM("nvmlDeviceGetMemoryInfo", device_get_memory_info),
	NVML_SYM("nvmlGpmQueryDeviceSupport", gpm_query_device_support),
	NVML_SYM("nvmlGpmSampleAlloc", gpm_sample_alloc),
	NVML_SYM("nvmlGpmSampleFree", gpm_sample_free),
	NVML_SYM("nvmlGpmSampleGet", gpm_sample_get),
	NVML_SYM("nvmlGpmMetricsGet", gpm_metrics_get),
};

static const struct symbol nvml_usage_symbols[] = {
	USAGE_SYM("nvmlDeviceGetUtilizationRates", device_get_utilization_rates),
	USAGE_SYM("nvmlDeviceGetEncoderUtilization",
		  device_get_encoder_utilization),
	USAGE_SYM("nvmlDeviceGetDecoderUtilization",
		  device_get_decoder_utilization),
	USAGE_SYM("nvmlDeviceGetMaxClockInfo", device_get_max_clock_info),
	USAGE_SYM("nvmlDeviceGetPcieThroughput", device_get_pcie_throughput),
	USAGE_SYM("nvmlDeviceGetComputeRunningProcesses_v3",
		  device_get_compute_running_processes),
	USAGE_SYM("nvmlDeviceGetGraphicsRunningProcesses_v3",
		  device_get_graphics_running_processes),
	USAGE_SYM("nvmlDeviceGetProcessUtilization",
		  device_get_process_utilization),
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Fills table from handle; on a missing symbol, says which in why. */
static bool resolve(void *handle, const char *lib, const struct symbol *syms,
		    size_t n, void *table, char *why, size_t why_size,
		    const char *hint)
{
	for (size_t i = 0; i < n; i++) {
		void *sym = dlsym(handle, syms[i].name);
		if (!sym) {
			/* Cut short, the message still names the library. */
			if (snprintf(why, why_size, "%s has no %s: %s", lib,
				     syms[i].name, hint) >= (int)why_size)
				why[why_size - 1] = 0;
			return false;
		}
		memcpy((char *)table + syms[i].offset, &sym, sizeof(sym));
	}
	return true;
}

static void *open_first(const char *const *candidates, size_t n,
			char *loaded, size_t loaded_size)
{
	for (size_t i = 0; i < n; i++) {
		if (!candidates[i])
			continue;
		void *h = dlopen(candidates[i], RTLD_NOW | RTLD_GLOBAL);
		if (h) {
			snprintf(loaded, loaded_size, "%s", candidates[i]);
			return h;
		}
	}
	return NULL;
}

/* The directory a loaded library came from, found through one of its
 * symbols, so that its companions are looked for beside it. */
static void library_dir(void *handle, const char *symbol, char *dir,
			size_t size)
{
	Dl_info info;
	void *sym = dlsym(handle, symbol);
	dir[0] = '\0';
	if (!sym || !dladdr(sym, &info) || !info.dli_fname)
		return;
	const char *slash = strrchr(info.dli_fname, '/');
	if (slash)
		snprintf(dir, size, "%.*s", (int)(slash - info.dli_fname),
			 info.dli_fname);
}

static void load_cupti(struct gpd_nv_libs *libs,
		       const struct gpd_nv_lib_names *names)
{
	const char *home = names->cuda_home ? names->cuda_home : getenv("CUDA_HOME");
	char in_home[3][512], loaded[512], dir[512], beside[600];
	if (!home || !*home)
		home = "/usr/local/cuda";

	void *cuda = dlopen(names->cuda ? names->cuda : "libcuda.so.1",
			    RTLD_NOW | RTLD_GLOBAL);
	if (!cuda) {
		snprintf(libs->why_no_cupti, sizeof(libs->why_no_cupti),
			 "the NVIDIA driver's %s cannot be loaded (%s); install "
			 "the NVIDIA driver",
			 names->cuda ? names->cuda : "libcuda.so.1", dlerror());
		return;
	}
	libs->handles[LIB_CUDA] = cuda;
	if (!resolve(cuda, "libcuda", cuda_symbols, N(cuda_symbols),
		     &libs->cuda, libs->why_no_cupti, sizeof(libs->why_no_cupti),
		     "the NVIDIA driver is too old"))
		return;

	snprintf(in_home[0], sizeof(in_home[0]), "%s/lib64/libcupti.so", home);
	snprintf(in_home[1], sizeof(in_home[1]),
		 "%s/extras/CUPTI/lib64/libcupti.so", home);
	snprintf(in_home[2], sizeof(in_home[2]),
		 "%s/targets/x86_64-linux/lib/libcupti.so", home);
	const char *cupti_names[] = {
		names->cupti,
		names->cupti ? NULL : "libcupti.so",
		names->cupti ? NULL : in_home[0],
		names->cupti ? NULL : in_home[1],
		names->cupti ? NULL : in_home[2],
	};
	void *cupti = open_first(cupti_names, N(cupti_names), loaded,
				 sizeof(loaded));
	if (!cupti) {
		snprintf(libs->why_no_cupti, sizeof(libs->why_no_cupti),
			 "CUPTI (%s) was not found in the library path nor "
			 "under %s; install the CUDA toolkit's CUPTI, or set "
			 "CUDA_HOME or LD_LIBRARY_PATH to where it is",
			 names->cupti ? names->cupti : "libcupti.so", home);
		return;
	}
	libs->handles[LIB_CUPTI] = cupti;
	if (!resolve(cupti, loaded, cupti_symbols, N(cupti_symbols),
		     &libs->cupti, libs->why_no_cupti,
		     sizeof(libs->why_no_cupti),
		     "PM sampling needs CUPTI from CUDA 12.6 or later"))
		return;

	/* CUPTI's host API loads libnvperf_host on first use; loading it
	 * here, from beside libcupti first, makes a missing one an error
	 * now rather than a failed configuration later. */
	library_dir(cupti, "cuptiPmSamplingEnable", dir, sizeof(dir));
	snprintf(beside, sizeof(beside), "%s/libnvperf_host.so", dir);
	const char *nvperf_names[] = {
		names->nvperf_host,
		names->nvperf_host || !dir[0] ? NULL : beside,
		names->nvperf_host ? NULL : "libnvperf_host.so",
	};
	void *nvperf = open_first(nvperf_names, N(nvperf_names), loaded,
				  sizeof(loaded));
	if (!nvperf) {
		snprintf(libs->why_no_cupti, sizeof(libs->why_no_cupti),
			 "%s, which CUPTI needs for PM sampling, was not found "
			 "beside %s nor in the library path; install the CUDA "
			 "toolkit's CUPTI completely",
			 names->nvperf_host ? names->nvperf_host
					    : "libnvperf_host.so",
			 dir[0] ? dir : "libcupti");
		return;
	}
	libs->handles[LIB_NVPERF_HOST] = nvperf;
	libs->have_cupti = true;
}

static void load_nvml(struct gpd_nv_libs *libs,
		      const struct gpd_nv_lib_names *names)
{
	const char *name = names->nvml ? names->nvml : "libnvidia-ml.so.1";
	void *nvml = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
	if (!nvml) {
		snprintf(libs->why_no_nvml, sizeof(libs->why_no_nvml),
			 "NVML (%s) cannot be loaded (%s); it comes with the "
			 "NVIDIA driver", name, dlerror());
		return;
	}
	libs->handles[LIB_NVML] = nvml;
	if (!resolve(nvml, name, nvml_symbols, N(nvml_symbols), &libs->nvml,
		     libs->why_no_nvml, sizeof(libs->why_no_nvml),
		     "GPM telemetry needs an NVIDIA driver of release 520 or "
		     "later"))
		return;
	libs->have_nvml = true;
	libs->have_nvml_usage =
		resolve(nvml, name, nvml_usage_symbols, N(nvml_usage_symbols),
			&libs->nvml_usage, libs->why_no_nvml_usage,
			sizeof(libs->why_no_nvml_usage), "the usage stream "
			"needs an NVIDIA driver of release 510 or later");
	void *newer = dlsym(nvml, "nvmlDeviceGetProcessesUtilizationInfo");
	if (libs->have_nvml_usage && newer)
		memcpy(&libs->nvml_usage.device_get_processes_utilization_info,
		       &newer, sizeof(newer));
}

void gpd_nv_libs_load(struct gpd_nv_libs *libs,
		      const struct gpd_nv_lib_names *names)
{
	static const struct gpd_nv_lib_names defaults;
	memset(libs, 0, sizeof(*libs));
	if (!names)
		names = &defaults;
	load_cupti(libs, names);
	load_nvml(libs, names);
}

void gpd_nv_libs_unload(struct gpd_nv_libs *libs)
{
	for (size_t i = N(libs->handles); i-- > 0;) {
		if (libs->handles[i])
			dlclose(libs->handles[i]);
		libs->handles[i] = NULL;
	}
	libs->have_cupti = false;
	libs->have_nvml = false;
	libs->have_nvml_usage = false;
}

const char *gpd_nv_cuda_error(const struct gpd_nv_libs *libs,
			      gpd_cu_result result)
{
	const char *text = NULL;
	if (libs->cuda.get_error_string &&
	    libs->cuda.get_error_string(result, &text) == 0 && text)
		return text;
	return "unknown CUDA error";
}

const char *gpd_nv_cupti_error(const struct gpd_nv_libs *libs,
			       gpd_cupti_result result)
{
	const char *text = NULL;
	if (libs->cupti.get_result_string &&
	    libs->cupti.get_result_string(result, &text) == GPD_CUPTI_SUCCESS &&
	    text)
		return text;
	return "unknown CUPTI error";
}

const char *gpd_nv_nvml_error(const struct gpd_nv_libs *libs,
			      gpd_nvml_return result)
{
	const char *text = libs->nvml.error_string ?
			   libs->nvml.error_string(result) : NULL;
	return text ? text : "unknown NVML error";
}
