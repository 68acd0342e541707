/*
 * The few types of the CUDA driver API, CUPTI and NVML that the nvidia
 * source calls, declared here so that the build needs no NVIDIA headers.
 *
 * The layouts are those of CUDA 13.0's cuda.h, cupti_target.h,
 * cupti_profiler_target.h, cupti_profiler_host.h and cupti_pmsampling.h,
 * and of NVML's GPM API as used in docs/nvidia-pm-sampling.md; the names
 * are ours. tests/device/check-cuda-abi.c compares every struct against the
 * real headers where they exist. CUPTI checks each parameter block by its
 * struct_size, which counts up to the end of the last field (not the
 * padding after it), as its CUPTI_PROFILER_STRUCT_SIZE does.
 */
#ifndef GPD_NVIDIA_CUDA_ABI_H
#define GPD_NVIDIA_CUDA_ABI_H

#include <stddef.h>
#include <stdint.h>

#define GPD_CUPTI_STRUCT_SIZE(type, last) \
	(offsetof(type, last) + sizeof(((type *)0)->last))

/* CUDA driver API: CUresult, CUdevice, CUdevice_attribute values. */
typedef int gpd_cu_result;
typedef int gpd_cu_device;

enum gpd_cu_attribute {
	GPD_CU_ATTRIBUTE_CLOCK_RATE = 13,                       /* kHz */
	GPD_CU_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
	GPD_CU_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
};

/* CUptiResult values the source tells apart. */
enum gpd_cupti_status {
	GPD_CUPTI_SUCCESS = 0,
	GPD_CUPTI_ERROR_INVALID_PARAMETER = 1,
	GPD_CUPTI_ERROR_INVALID_DEVICE = 2,
	GPD_CUPTI_ERROR_OUT_OF_MEMORY = 8,
	GPD_CUPTI_ERROR_NOT_INITIALIZED = 15,
	GPD_CUPTI_ERROR_HARDWARE_BUSY = 26,
	GPD_CUPTI_ERROR_NOT_SUPPORTED = 27,
	GPD_CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED = 33,
	GPD_CUPTI_ERROR_INSUFFICIENT_PRIVILEGES = 35,
	GPD_CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED = 43,
	GPD_CUPTI_ERROR_UNKNOWN = 999,
};
typedef int gpd_cupti_result;

enum gpd_cupti_profiler_type {
	GPD_CUPTI_PROFILER_TYPE_PM_SAMPLING = 1,
};

enum gpd_cupti_pm_trigger {
	GPD_CUPTI_PM_TRIGGER_GPU_TIME_INTERVAL = 1,     /* interval in ns */
};

enum gpd_cupti_pm_append {
	/* A full hardware buffer stops the session with an error rather
	 * than overwriting what was not decoded yet. */
	GPD_CUPTI_PM_APPEND_KEEP_OLDEST = 0,
};

enum gpd_cupti_pm_stop_reason {
	GPD_CUPTI_PM_STOP_OTHER = 0,
	GPD_CUPTI_PM_STOP_COUNTER_DATA_FULL = 1,
	GPD_CUPTI_PM_STOP_END_OF_RECORDS = 2,
};

/* cuptiProfilerInitialize, cuptiProfilerDeInitialize. */
struct gpd_cupti_profiler_params {
	size_t struct_size;
	void *priv;
};

/* cuptiDeviceGetChipName. */
struct gpd_cupti_chip_name_params {
	size_t struct_size;
	void *priv;
	size_t device_index;
	const char *chip_name;                  /* out */
};

/* cuptiPmSamplingGetCounterAvailability: once with image NULL for the
 * size, once more for the data. */
struct gpd_cupti_pm_availability_params {
	size_t struct_size;
	void *priv;
	size_t device_index;
	size_t image_size;                      /* in/out */
	uint8_t *image;
};

/* cuptiProfilerHostInitialize. */
struct gpd_cupti_host_init_params {
	size_t struct_size;
	void *priv;
	int32_t profiler_type;                  /* enum gpd_cupti_profiler_type */
	const char *chip_name;
	const uint8_t *availability_image;
	void *host;                             /* out */
};

/* cuptiProfilerHostDeinitialize. */
struct gpd_cupti_host_params {
	size_t struct_size;
	void *priv;
	void *host;
};

/* cuptiProfilerHostConfigAddMetrics. */
struct gpd_cupti_host_add_metrics_params {
	size_t struct_size;
	void *priv;
	void *host;
	const char **names;
	size_t n_names;
};

/* cuptiProfilerHostGetConfigImageSize. */
struct gpd_cupti_host_config_size_params {
	size_t struct_size;
	void *priv;
	void *host;
	size_t image_size;                      /* out */
};

/* cuptiProfilerHostGetConfigImage. */
struct gpd_cupti_host_config_params {
	size_t struct_size;
	void *priv;
	void *host;
	size_t image_size;
	uint8_t *image;
};

/* cuptiProfilerHostGetNumOfPasses. */
struct gpd_cupti_host_passes_params {
	size_t struct_size;
	void *priv;
	size_t image_size;
	uint8_t *image;
	size_t passes;                          /* out */
};

/* cuptiProfilerHostEvaluateToGpuValues: sample range_index of a counter
 * data image, one double per metric name. */
struct gpd_cupti_host_evaluate_params {
	size_t struct_size;
	void *priv;
	void *host;
	const uint8_t *counter_data;
	size_t counter_data_size;
	size_t range_index;
	const char **names;
	size_t n_names;
	double *values;                         /* out, n_names */
};

/* cuptiPmSamplingEnable. */
struct gpd_cupti_pm_enable_params {
	size_t struct_size;
	void *priv;
	size_t device_index;
	void *pm;                               /* out */
};

/* cuptiPmSamplingDisable, cuptiPmSamplingStart, cuptiPmSamplingStop. */
struct gpd_cupti_pm_params {
	size_t struct_size;
	void *priv;
	void *pm;
};

/* cuptiPmSamplingSetConfig. */
struct gpd_cupti_pm_config_params {
	size_t struct_size;
	void *priv;
	void *pm;
	size_t config_size;
	const uint8_t *config;
	size_t hardware_buffer_size;
	uint64_t interval;                      /* ns with the time trigger */
	int32_t trigger;                        /* enum gpd_cupti_pm_trigger */
	int32_t append;                         /* enum gpd_cupti_pm_append */
};

/* cuptiPmSamplingGetCounterDataSize. */
struct gpd_cupti_pm_data_size_params {
	size_t struct_size;
	void *priv;
	void *pm;
	const char **names;
	size_t n_names;
	uint32_t max_samples;
	size_t data_size;                       /* out */
};

/* cuptiPmSamplingCounterDataImageInitialize: also empties an image. */
struct gpd_cupti_pm_data_init_params {
	size_t struct_size;
	void *priv;
	void *pm;
	size_t data_size;
	uint8_t *data;
};

/* cuptiPmSamplingDecodeData: moves samples from the hardware buffer into
 * the counter data image. */
struct gpd_cupti_pm_decode_params {
	size_t struct_size;
	void *priv;
	void *pm;
	uint8_t *data;
	size_t data_size;
	int32_t stop_reason;                    /* out: enum gpd_cupti_pm_stop_reason */
	uint8_t overflow;                       /* out */
};

/* cuptiPmSamplingGetCounterDataInfo. */
struct gpd_cupti_pm_data_info_params {
	size_t struct_size;
	void *priv;
	const uint8_t *data;
	size_t data_size;
	size_t total_samples;                   /* out */
	size_t populated_samples;               /* out */
	size_t completed_samples;               /* out */
};

/* cuptiPmSamplingCounterDataGetSampleInfo: CLOCK_REALTIME ns. */
struct gpd_cupti_pm_sample_params {
	size_t struct_size;
	void *priv;
	void *pm;
	const uint8_t *data;
	size_t data_size;
	size_t index;
	uint64_t start_ns;                      /* out */
	uint64_t end_ns;                        /* out */
};

/* NVML: nvmlReturn_t, nvmlDevice_t, nvmlGpmSample_t and the GPM structs. */
typedef int gpd_nvml_return;
typedef struct gpd_nvml_device *gpd_nvml_device;
typedef struct gpd_nvml_gpm_sample *gpd_nvml_gpm_sample;

enum {
	GPD_NVML_SUCCESS = 0,
	GPD_NVML_CLOCK_SM = 1,
	GPD_NVML_CLOCK_MEM = 2,
	GPD_NVML_TEMPERATURE_GPU = 0,
	GPD_NVML_GPM_SUPPORT_VERSION = 1,
	GPD_NVML_GPM_METRICS_GET_VERSION = 1,
};

struct gpd_nvml_memory {
	unsigned long long total, free, used;   /* bytes */
};

/* nvml.h's nvmlReturn_t values the usage source tells apart. */
enum {
	GPD_NVML_ERROR_NOT_SUPPORTED = 3,
	GPD_NVML_ERROR_NOT_FOUND = 6,
	GPD_NVML_ERROR_INSUFFICIENT_SIZE = 7,
	GPD_NVML_ERROR_FUNCTION_NOT_FOUND = 13,
	GPD_NVML_ERROR_MEMORY = 20,
	GPD_NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
	GPD_NVML_PCIE_UTIL_TX_BYTES = 0,
	GPD_NVML_PCIE_UTIL_RX_BYTES = 1,
};

/* nvmlUtilization_t: percent of the last sample period. */
struct gpd_nvml_utilization {
	unsigned gpu, memory;
};

/* nvmlProcessInfo_t (the _v2 and _v3 calls' layout). */
struct gpd_nvml_process_info {
	unsigned pid;
	unsigned long long used_gpu_memory;     /* bytes; ~0 not available */
	unsigned gpu_instance_id, compute_instance_id;
};

/* nvmlProcessUtilizationSample_t: one process's percentages of a sample
 * period ending at timestamp (us, CLOCK_REALTIME). */
struct gpd_nvml_process_utilization {
	unsigned pid;
	unsigned long long timestamp;
	unsigned sm_util, mem_util, enc_util, dec_util;
};

/* nvmlProcessUtilizationInfo_v1_t: the same sample as the newer call
 * (nvmlDeviceGetProcessesUtilizationInfo) gives it, with JPEG and optical
 * flow shares besides. */
struct gpd_nvml_process_utilization_info {
	unsigned long long timestamp;
	unsigned pid;
	unsigned sm_util, mem_util, enc_util, dec_util, jpg_util, ofa_util;
};

/* nvmlProcessesUtilizationInfo_v1_t: the caller sets version, the
 * array's size in count and last_seen_us; NVML fills the array and
 * count (or sets count to what it needs, with INSUFFICIENT_SIZE). */
struct gpd_nvml_processes_utilization {
	unsigned version;
	unsigned count;
	unsigned long long last_seen_us;
	struct gpd_nvml_process_utilization_info *samples;
};

/* NVML_STRUCT_VERSION(ProcessesUtilizationInfo, 1): size | version << 24. */
#define GPD_NVML_PROCESSES_UTILIZATION_VERSION \
	((unsigned)sizeof(struct gpd_nvml_processes_utilization) | 1u << 24)

struct gpd_nvml_gpm_support {
	unsigned version;
	unsigned supported;
};

struct gpd_nvml_gpm_metric {
	unsigned id;
	gpd_nvml_return result;
	double value;
	const char *short_name, *long_name, *unit;
};

/* NVML reads and fills the first n_metrics entries only. */
#define GPD_NVML_GPM_MAX_METRICS 256

struct gpd_nvml_gpm_metrics_get {
	unsigned version;
	unsigned n_metrics;
	gpd_nvml_gpm_sample older, newer;
	struct gpd_nvml_gpm_metric metrics[GPD_NVML_GPM_MAX_METRICS];
};

#endif
