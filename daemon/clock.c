/*
 * CLOCK_MONOTONIC in ns.
 */
#include <time.h>

#include "daemon/clock.h"

uint64_t gpd_monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
