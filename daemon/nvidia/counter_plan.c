/*
 * A metric set's raw counters as a sampling plan (see counter_plan.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/error.h"
#include "daemon/nvidia/counter_plan.h"
#include "daemon/nvidia/pm_session.h"
#include "daemon/nvidia/telemetry.h"
#include "metrics/accumulator.h"

static bool is_nvml(const char *name)
{
	return !strncmp(name, GPD_NV_NVML_PREFIX, strlen(GPD_NV_NVML_PREFIX));
}

int gpd_nv_plan_make(const struct gpm_metric_set *set, uint64_t interval_ns,
		     struct gpd_nv_plan *plan, struct gpd_error *err)
{
	memset(plan, 0, sizeof(*plan));
	if (!set->n_raw_counters)
		return gpd_fail(err, -EINVAL, "metric set %s names no raw counters: it is "
			    "not a set for NVIDIA GPUs", set->symbol_name);
	if (set->n_raw_counters > GPD_NV_MAX_COUNTERS)
		return gpd_fail(err, -EINVAL, "metric set %s names %zu raw counters; an "
			    "NVIDIA report holds %d", set->symbol_name,
			    set->n_raw_counters, GPD_NV_MAX_COUNTERS);

	plan->kind = is_nvml(set->raw_counters[0].name) ? GPD_NV_PLAN_TELEMETRY
							: GPD_NV_PLAN_PM;
	for (size_t i = 0; i < set->n_raw_counters; i++) {
		const struct gpm_raw_counter *rc = &set->raw_counters[i];
		bool pec = rc->slot >= GPM_ACC_PEC && rc->slot < GPM_ACC_PEC + 32;
		if (rc->slot != GPM_ACC_GPU_CLOCK && !pec)
			return gpd_fail(err, -EINVAL, "metric set %s, line %u: %s fills a slot "
				    "NVIDIA reports lack; use GPU_CLOCK 0 or "
				    "PEC 0..31", set->symbol_name, rc->line,
				    rc->name);
		if (is_nvml(rc->name) != (plan->kind == GPD_NV_PLAN_TELEMETRY))
			return gpd_fail(err, -EINVAL, "metric set %s mixes NVML gauges and "
				    "CUPTI counters; a set reads one or the other",
				    set->symbol_name);
		if (plan->kind == GPD_NV_PLAN_TELEMETRY &&
		    gpd_nv_telemetry_find(rc->name) < 0)
			return gpd_fail(err, -EINVAL, "metric set %s, line %u: NVML has no "
				    "gauge %s here", set->symbol_name, rc->line,
				    rc->name);
		plan->names[i] = rc->name;
		plan->slots[i] = rc->slot;
	}
	plan->n = (unsigned)set->n_raw_counters;

	if (plan->kind == GPD_NV_PLAN_PM &&
	    (interval_ns < GPD_NV_PM_MIN_INTERVAL_NS ||
	     interval_ns > GPD_NV_PM_MAX_INTERVAL_NS))
		return gpd_fail(err, -EINVAL, "PM sampling runs at periods from 10 us to 1 s, "
			    "not %llu ns; ask for a period in that range",
			    (unsigned long long)interval_ns);
	plan->interval_ns = interval_ns;
	return 0;
}
