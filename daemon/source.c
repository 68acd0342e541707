/*
 * What every source shares: the OA exponent <-> period arithmetic.
 */
#include "daemon/source.h"

/* The kernel's oa_exponent_to_ns: 2^(exponent + 1) ticks, rounded up. */
uint64_t gpd_exponent_to_ns_at(uint64_t frequency, unsigned exponent)
{
	uint64_t freq = frequency ? frequency : 1;
	unsigned __int128 ticks = (unsigned __int128)2 << exponent;
	return (uint64_t)((ticks * 1000000000ull + freq - 1) / freq);
}

unsigned gpd_exponent_for_period_at(uint64_t frequency, uint64_t period_ns)
{
	unsigned best = 0;
	/* The kernel caps the exponent at 31 so that periods stay below one
	 * 32-bit timestamp wrap. */
	for (unsigned e = 0; e <= 31; e++)
		if (gpd_exponent_to_ns_at(frequency, e) <= period_ns)
			best = e;
	return best;
}

uint64_t gpd_exponent_to_ns(const struct gpm_device_info *info,
			    unsigned exponent)
{
	return gpd_exponent_to_ns_at(info->timestamp_frequency, exponent);
}

unsigned gpd_exponent_for_period(const struct gpm_device_info *info,
				 uint64_t period_ns)
{
	return gpd_exponent_for_period_at(info->timestamp_frequency, period_ns);
}

int gpd_source_shape(struct gpd_source *src, const struct gpm_metric_set *set,
		     struct gpd_stream_shape *out, struct gpd_error *err)
{
	if (src->ops->shape)
		return src->ops->shape(src, set, out, err);
	out->format = src->format;
	out->timestamp_frequency = src->info.timestamp_frequency;
	return 0;
}
