/*
 * What every source shares: the OA exponent <-> period arithmetic.
 */
#include "daemon/source.h"

/* The kernel's oa_exponent_to_ns: 2^(exponent + 1) ticks, rounded up. */
uint64_t gpd_exponent_to_ns(const struct gpm_device_info *info,
			    unsigned exponent)
{
	uint64_t freq = info->timestamp_frequency ? info->timestamp_frequency : 1;
	unsigned __int128 ticks = (unsigned __int128)2 << exponent;
	return (uint64_t)((ticks * 1000000000ull + freq - 1) / freq);
}

unsigned gpd_exponent_for_period(const struct gpm_device_info *info,
				 uint64_t period_ns)
{
	unsigned best = 0;
	/* The kernel caps the exponent at 31 so that periods stay below one
	 * 32-bit timestamp wrap. */
	for (unsigned e = 0; e <= 31; e++)
		if (gpd_exponent_to_ns(info, e) <= period_ns)
			best = e;
	return best;
}
