/*
 * Compares daemon/nvidia/cuda_abi.h with NVIDIA's own headers: every
 * parameter block the nvidia source passes must have the size CUPTI (or
 * NVML) expects and every field the offset it reads. Built by
 * test-nvidia.sh where $CUDA_HOME/include/cupti.h exists; the build fails
 * on a mismatch.
 * (cupti_profiler_host.h includes <string>, so the script puts an empty
 * file of that name on the include path.)
 */
#include <stddef.h>
#include <stdio.h>

#include <cuda.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <nvml.h>

#include "daemon/nvidia/cuda_abi.h"

#define SAME_FIELD(ours, our_field, theirs, their_field)                      \
	_Static_assert(offsetof(ours, our_field) ==                           \
		       offsetof(theirs, their_field), #ours "." #our_field)

#define SAME_VALUE(ours, theirs, what)                                       \
	_Static_assert((int)(ours) == (int)(theirs), what)

#define SAME(ours, theirs, our_last, their_last)                              \
	_Static_assert(GPD_CUPTI_STRUCT_SIZE(ours, our_last) ==               \
		       theirs##_STRUCT_SIZE, #ours " struct_size");           \
	SAME_FIELD(ours, our_last, theirs, their_last)

SAME(struct gpd_cupti_profiler_params, CUpti_Profiler_Initialize_Params, priv, pPriv);
SAME(struct gpd_cupti_profiler_params, CUpti_Profiler_DeInitialize_Params, priv, pPriv);
SAME(struct gpd_cupti_chip_name_params, CUpti_Device_GetChipName_Params, chip_name, pChipName);
SAME_FIELD(struct gpd_cupti_chip_name_params, device_index, CUpti_Device_GetChipName_Params, deviceIndex);

SAME(struct gpd_cupti_pm_availability_params, CUpti_PmSampling_GetCounterAvailability_Params, image, pCounterAvailabilityImage);
SAME_FIELD(struct gpd_cupti_pm_availability_params, device_index, CUpti_PmSampling_GetCounterAvailability_Params, deviceIndex);
SAME_FIELD(struct gpd_cupti_pm_availability_params, image_size, CUpti_PmSampling_GetCounterAvailability_Params, counterAvailabilityImageSize);

SAME(struct gpd_cupti_host_init_params, CUpti_Profiler_Host_Initialize_Params, host, pHostObject);
SAME_FIELD(struct gpd_cupti_host_init_params, profiler_type, CUpti_Profiler_Host_Initialize_Params, profilerType);
SAME_FIELD(struct gpd_cupti_host_init_params, chip_name, CUpti_Profiler_Host_Initialize_Params, pChipName);
SAME_FIELD(struct gpd_cupti_host_init_params, availability_image, CUpti_Profiler_Host_Initialize_Params, pCounterAvailabilityImage);
SAME_VALUE(GPD_CUPTI_PROFILER_TYPE_PM_SAMPLING, CUPTI_PROFILER_TYPE_PM_SAMPLING, "profiler type");

SAME(struct gpd_cupti_host_params, CUpti_Profiler_Host_Deinitialize_Params, host, pHostObject);
SAME(struct gpd_cupti_host_add_metrics_params, CUpti_Profiler_Host_ConfigAddMetrics_Params, n_names, numMetrics);
SAME_FIELD(struct gpd_cupti_host_add_metrics_params, host, CUpti_Profiler_Host_ConfigAddMetrics_Params, pHostObject);
SAME_FIELD(struct gpd_cupti_host_add_metrics_params, names, CUpti_Profiler_Host_ConfigAddMetrics_Params, ppMetricNames);
SAME(struct gpd_cupti_host_config_size_params, CUpti_Profiler_Host_GetConfigImageSize_Params, image_size, configImageSize);
SAME(struct gpd_cupti_host_config_params, CUpti_Profiler_Host_GetConfigImage_Params, image, pConfigImage);
SAME_FIELD(struct gpd_cupti_host_config_params, image_size, CUpti_Profiler_Host_GetConfigImage_Params, configImageSize);
SAME(struct gpd_cupti_host_passes_params, CUpti_Profiler_Host_GetNumOfPasses_Params, passes, numOfPasses);
SAME_FIELD(struct gpd_cupti_host_passes_params, image_size, CUpti_Profiler_Host_GetNumOfPasses_Params, configImageSize);
SAME_FIELD(struct gpd_cupti_host_passes_params, image, CUpti_Profiler_Host_GetNumOfPasses_Params, pConfigImage);
SAME(struct gpd_cupti_host_evaluate_params, CUpti_Profiler_Host_EvaluateToGpuValues_Params, values, pMetricValues);
SAME_FIELD(struct gpd_cupti_host_evaluate_params, host, CUpti_Profiler_Host_EvaluateToGpuValues_Params, pHostObject);
SAME_FIELD(struct gpd_cupti_host_evaluate_params, counter_data, CUpti_Profiler_Host_EvaluateToGpuValues_Params, pCounterDataImage);
SAME_FIELD(struct gpd_cupti_host_evaluate_params, counter_data_size, CUpti_Profiler_Host_EvaluateToGpuValues_Params, counterDataImageSize);
SAME_FIELD(struct gpd_cupti_host_evaluate_params, range_index, CUpti_Profiler_Host_EvaluateToGpuValues_Params, rangeIndex);
SAME_FIELD(struct gpd_cupti_host_evaluate_params, names, CUpti_Profiler_Host_EvaluateToGpuValues_Params, ppMetricNames);
SAME_FIELD(struct gpd_cupti_host_evaluate_params, n_names, CUpti_Profiler_Host_EvaluateToGpuValues_Params, numMetrics);

SAME(struct gpd_cupti_pm_enable_params, CUpti_PmSampling_Enable_Params, pm, pPmSamplingObject);
SAME_FIELD(struct gpd_cupti_pm_enable_params, device_index, CUpti_PmSampling_Enable_Params, deviceIndex);
SAME(struct gpd_cupti_pm_params, CUpti_PmSampling_Disable_Params, pm, pPmSamplingObject);
SAME(struct gpd_cupti_pm_params, CUpti_PmSampling_Start_Params, pm, pPmSamplingObject);
SAME(struct gpd_cupti_pm_params, CUpti_PmSampling_Stop_Params, pm, pPmSamplingObject);

SAME(struct gpd_cupti_pm_config_params, CUpti_PmSampling_SetConfig_Params, append, hwBufferAppendMode);
SAME_FIELD(struct gpd_cupti_pm_config_params, pm, CUpti_PmSampling_SetConfig_Params, pPmSamplingObject);
SAME_FIELD(struct gpd_cupti_pm_config_params, config_size, CUpti_PmSampling_SetConfig_Params, configSize);
SAME_FIELD(struct gpd_cupti_pm_config_params, config, CUpti_PmSampling_SetConfig_Params, pConfig);
SAME_FIELD(struct gpd_cupti_pm_config_params, hardware_buffer_size, CUpti_PmSampling_SetConfig_Params, hardwareBufferSize);
SAME_FIELD(struct gpd_cupti_pm_config_params, interval, CUpti_PmSampling_SetConfig_Params, samplingInterval);
SAME_FIELD(struct gpd_cupti_pm_config_params, trigger, CUpti_PmSampling_SetConfig_Params, triggerMode);
_Static_assert(sizeof(CUpti_PmSampling_TriggerMode) == sizeof(int32_t), "enum size");
SAME_VALUE(GPD_CUPTI_PM_TRIGGER_GPU_TIME_INTERVAL, CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL, "trigger");
SAME_VALUE(GPD_CUPTI_PM_APPEND_KEEP_OLDEST, CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST, "append");
SAME_VALUE(GPD_CUPTI_PM_STOP_COUNTER_DATA_FULL, CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL, "stop reason");

SAME(struct gpd_cupti_pm_data_size_params, CUpti_PmSampling_GetCounterDataSize_Params, data_size, counterDataSize);
SAME_FIELD(struct gpd_cupti_pm_data_size_params, names, CUpti_PmSampling_GetCounterDataSize_Params, pMetricNames);
SAME_FIELD(struct gpd_cupti_pm_data_size_params, n_names, CUpti_PmSampling_GetCounterDataSize_Params, numMetrics);
SAME_FIELD(struct gpd_cupti_pm_data_size_params, max_samples, CUpti_PmSampling_GetCounterDataSize_Params, maxSamples);
SAME(struct gpd_cupti_pm_data_init_params, CUpti_PmSampling_CounterDataImage_Initialize_Params, data, pCounterData);
SAME_FIELD(struct gpd_cupti_pm_data_init_params, data_size, CUpti_PmSampling_CounterDataImage_Initialize_Params, counterDataSize);
SAME(struct gpd_cupti_pm_decode_params, CUpti_PmSampling_DecodeData_Params, overflow, overflow);
SAME_FIELD(struct gpd_cupti_pm_decode_params, data, CUpti_PmSampling_DecodeData_Params, pCounterDataImage);
SAME_FIELD(struct gpd_cupti_pm_decode_params, data_size, CUpti_PmSampling_DecodeData_Params, counterDataImageSize);
SAME_FIELD(struct gpd_cupti_pm_decode_params, stop_reason, CUpti_PmSampling_DecodeData_Params, decodeStopReason);
SAME(struct gpd_cupti_pm_data_info_params, CUpti_PmSampling_GetCounterDataInfo_Params, completed_samples, numCompletedSamples);
SAME_FIELD(struct gpd_cupti_pm_data_info_params, data, CUpti_PmSampling_GetCounterDataInfo_Params, pCounterDataImage);
SAME_FIELD(struct gpd_cupti_pm_data_info_params, data_size, CUpti_PmSampling_GetCounterDataInfo_Params, counterDataImageSize);
SAME(struct gpd_cupti_pm_sample_params, CUpti_PmSampling_CounterData_GetSampleInfo_Params, end_ns, endTimestamp);
SAME_FIELD(struct gpd_cupti_pm_sample_params, data, CUpti_PmSampling_CounterData_GetSampleInfo_Params, pCounterDataImage);
SAME_FIELD(struct gpd_cupti_pm_sample_params, index, CUpti_PmSampling_CounterData_GetSampleInfo_Params, sampleIndex);
SAME_FIELD(struct gpd_cupti_pm_sample_params, start_ns, CUpti_PmSampling_CounterData_GetSampleInfo_Params, startTimestamp);

SAME_VALUE(GPD_CUPTI_ERROR_HARDWARE_BUSY, CUPTI_ERROR_HARDWARE_BUSY, "busy");
SAME_VALUE(GPD_CUPTI_ERROR_OUT_OF_MEMORY, CUPTI_ERROR_OUT_OF_MEMORY, "oom");
SAME_VALUE(GPD_CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "privileges");
SAME_VALUE(GPD_CUPTI_ERROR_NOT_SUPPORTED, CUPTI_ERROR_NOT_SUPPORTED, "not supported");
SAME_VALUE(GPD_CUPTI_ERROR_INVALID_DEVICE, CUPTI_ERROR_INVALID_DEVICE, "device");
SAME_VALUE(GPD_CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED, CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED, "mig");
SAME_VALUE(GPD_CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED, CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED, "virtualized");
SAME_VALUE(GPD_CU_ATTRIBUTE_CLOCK_RATE, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, "clock");
SAME_VALUE(GPD_CU_ATTRIBUTE_MULTIPROCESSOR_COUNT, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "sms");
SAME_VALUE(GPD_CU_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, "threads");
_Static_assert(sizeof(gpd_cu_device) == sizeof(CUdevice), "CUdevice");

/* NVML's per-process utilization, both calls. */
#define SAME_NVML(ours, theirs)                                               \
	_Static_assert(sizeof(ours) == sizeof(theirs), #ours " size")
SAME_NVML(struct gpd_nvml_process_utilization, nvmlProcessUtilizationSample_t);
SAME_FIELD(struct gpd_nvml_process_utilization, timestamp, nvmlProcessUtilizationSample_t, timeStamp);
SAME_FIELD(struct gpd_nvml_process_utilization, dec_util, nvmlProcessUtilizationSample_t, decUtil);
SAME_NVML(struct gpd_nvml_process_utilization_info, nvmlProcessUtilizationInfo_v1_t);
SAME_FIELD(struct gpd_nvml_process_utilization_info, pid, nvmlProcessUtilizationInfo_v1_t, pid);
SAME_FIELD(struct gpd_nvml_process_utilization_info, sm_util, nvmlProcessUtilizationInfo_v1_t, smUtil);
SAME_FIELD(struct gpd_nvml_process_utilization_info, ofa_util, nvmlProcessUtilizationInfo_v1_t, ofaUtil);
SAME_NVML(struct gpd_nvml_processes_utilization, nvmlProcessesUtilizationInfo_v1_t);
SAME_FIELD(struct gpd_nvml_processes_utilization, count, nvmlProcessesUtilizationInfo_v1_t, processSamplesCount);
SAME_FIELD(struct gpd_nvml_processes_utilization, last_seen_us, nvmlProcessesUtilizationInfo_v1_t, lastSeenTimeStamp);
SAME_FIELD(struct gpd_nvml_processes_utilization, samples, nvmlProcessesUtilizationInfo_v1_t, procUtilArray);
SAME_VALUE(GPD_NVML_PROCESSES_UTILIZATION_VERSION, nvmlProcessesUtilizationInfo_v1, "version");
SAME_VALUE(GPD_NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_NOT_SUPPORTED, "nvml not supported");
SAME_VALUE(GPD_NVML_ERROR_NOT_FOUND, NVML_ERROR_NOT_FOUND, "nvml not found");
SAME_VALUE(GPD_NVML_ERROR_INSUFFICIENT_SIZE, NVML_ERROR_INSUFFICIENT_SIZE, "nvml size");
SAME_VALUE(GPD_NVML_ERROR_FUNCTION_NOT_FOUND, NVML_ERROR_FUNCTION_NOT_FOUND, "nvml function");
SAME_VALUE(GPD_NVML_ERROR_MEMORY, NVML_ERROR_MEMORY, "nvml memory");
SAME_VALUE(GPD_NVML_ERROR_ARGUMENT_VERSION_MISMATCH, NVML_ERROR_ARGUMENT_VERSION_MISMATCH, "nvml version");

int main(void)
{
	puts("cuda_abi.h matches the CUDA headers");
	return 0;
}
