/*
 * Record layouts shared by the recording reader and writer.
 */
#ifndef GPM_RECORDING_INTERNAL_H
#define GPM_RECORDING_INTERNAL_H

#include <stdint.h>

#include "metrics/recording.h"

/* struct drm_i915_perf_record_header; the u16 pad at 4 is 0. */
enum {
	GPM__REC_HDR_TYPE = 0,
	GPM__REC_HDR_SIZE = 6,
};

/* Payload offsets of IGT's packed struct intel_perf_record_device_info. */
enum {
	GPM__DI_TIMESTAMP_FREQUENCY = 0,        /* u64 */
	GPM__DI_DEVICE_ID = 8,                  /* u32 */
	GPM__DI_DEVICE_REVISION = 12,
	GPM__DI_GT_MIN_FREQUENCY = 16,          /* Hz */
	GPM__DI_GT_MAX_FREQUENCY = 20,
	GPM__DI_ENGINE_CLASS = 24,
	GPM__DI_ENGINE_INSTANCE = 28,
	GPM__DI_OA_FORMAT = 32,
	GPM__DI_METRIC_SET_NAME = 36,           /* char[256] */
	GPM__DI_METRIC_SET_UUID = 292,          /* char[40] */
	GPM__DI_SIZE = 336,                     /* a zero u32 pad ends it */
};

/* struct intel_perf_record_timestamp_correlation */
enum {
	GPM__CORR_CPU = 0,
	GPM__CORR_GPU = 8,
};

/* gpuperf's CLOCKS record */
enum {
	GPM__CLOCKS_MONOTONIC = 0,
	GPM__CLOCKS_BOOTTIME = 8,
};

/*
 * Fills err (when not NULL) with code, offset and the message "offset N: "
 * (left out for GPM_RECORDING_NO_OFFSET) followed by the formatted words,
 * and returns rc.
 */
int gpm__recording_fail(struct gpm_recording_error *err, int rc,
			enum gpm_recording_errc code, uint64_t offset,
			const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Clears err (when not NULL) to "no error". */
void gpm__recording_ok(struct gpm_recording_error *err);

#endif
