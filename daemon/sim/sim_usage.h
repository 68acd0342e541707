/*
 * The sim device's usage source: the usage model (usage_model.h) moved on
 * by the daemon's monotonic clock.
 */
#ifndef GPD_SIM_USAGE_H
#define GPD_SIM_USAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/usage_source.h"
#include "metrics/device.h"

/* The usage of a simulated GPU with info's clocks, its engines named as
 * i915 names them or, amd, as amdgpu does; -EINVAL, -ENOMEM. */
int gpd_sim_usage_create(const struct gpm_device_info *info, uint64_t seed,
			 bool amd, struct gpd_usage_source **out);

#endif
