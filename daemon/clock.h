/*
 * The daemon's one clock for CPU time: CLOCK_MONOTONIC in ns, the time
 * line of frames' cpu_*_ns, of pacing and of timeouts.
 */
#ifndef GPD_CLOCK_H
#define GPD_CLOCK_H

#include <stdint.h>

uint64_t gpd_monotonic_ns(void);

#endif
