/*
 * What a metric set asks of an NVIDIA GPU: its <raw_counter> list turned
 * into the counters to sample, which slot each fills, and by what means.
 *
 * A set reads either CUPTI PM sampling counters (names as CUPTI knows them,
 * "dram__bytes_read.sum") or NVML telemetry gauges ("nvml:energy"), never
 * both: the two run at different rates and one can work while the other is
 * taken by another tool.
 */
#ifndef GPD_NVIDIA_COUNTER_PLAN_H
#define GPD_NVIDIA_COUNTER_PLAN_H

#include <stdint.h>

#include "daemon/error.h"
#include "daemon/nvidia/report_builder.h"
#include "metrics/metric_set.h"

#define GPD_NV_NVML_PREFIX "nvml:"

enum gpd_nv_plan_kind {
	GPD_NV_PLAN_PM,                 /* CUPTI PM sampling */
	GPD_NV_PLAN_TELEMETRY,          /* NVML, at 100 ms or slower */
};

struct gpd_nv_plan {
	enum gpd_nv_plan_kind kind;
	unsigned n;
	const char *names[GPD_NV_MAX_COUNTERS]; /* the set's strings */
	unsigned slots[GPD_NV_MAX_COUNTERS];
	uint64_t interval_ns;
};

/*
 * Plans set at a sampling interval. -EINVAL with err in words for a set
 * that is not for an NVIDIA GPU, mixes CUPTI and NVML, has too many
 * counters, a slot NVPM32u64 lacks or an unknown NVML gauge, or for an
 * interval PM sampling cannot run at.
 */
int gpd_nv_plan_make(const struct gpm_metric_set *set, uint64_t interval_ns,
		     struct gpd_nv_plan *plan, struct gpd_error *err);

#endif
