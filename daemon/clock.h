/*
 * The daemon's one clock for CPU time: CLOCK_MONOTONIC in ns, the time
 * line of frames' cpu_*_ns, of pacing and of timeouts; and CLOCK_BOOTTIME,
 * which frames carry beside it for Perfetto traces.
 */
#ifndef GPD_CLOCK_H
#define GPD_CLOCK_H

#include <stdint.h>

uint64_t gpd_monotonic_ns(void);

/* CLOCK_BOOTTIME at monotonic_ns: the two differ by the time the machine
 * spent suspended, as of now. */
uint64_t gpd_boottime_at(uint64_t monotonic_ns);

#endif
