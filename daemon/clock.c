/*
 * CLOCK_MONOTONIC and CLOCK_BOOTTIME in ns.
 */
#include <time.h>

#include "daemon/clock.h"

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t gpd_monotonic_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t gpd_boottime_at(uint64_t monotonic_ns)
{
	uint64_t mono = clock_ns(CLOCK_MONOTONIC);
	return monotonic_ns + (clock_ns(CLOCK_BOOTTIME) - mono);
}
