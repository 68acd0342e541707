/*
 * Mapping a device's OA timestamps onto CLOCK_MONOTONIC.
 *
 * Neither i915 nor the simulated unit says when a report was taken in CPU
 * time; all the daemon knows is when it read it, and a report is read
 * some time after it was taken: up to a poll (5 ms) for the oldest of a
 * batch, a sampling period or so for the newest. So each read bounds the
 * mapping from one side, and the tightest bound seen, the newest report of
 * the read that came soonest, is the mapping. The bound is kept per epoch
 * of a second and the best of the last two is used, so the mapping follows
 * the two clocks drifting apart (a few parts per million) instead of
 * holding on to a bound from long ago.
 */
#ifndef GPD_CLOCK_MAP_H
#define GPD_CLOCK_MAP_H

#include <stdbool.h>
#include <stdint.h>

struct gpd_clock_map {
	uint64_t frequency;             /* timestamp ticks a second */
	bool anchored;
	uint64_t ts_anchor;             /* extended ticks of the first report */
	uint64_t cpu_anchor_ns;         /* its CPU time, best estimate */
	uint64_t epoch_start_ns;
	uint64_t epoch_best_ns;         /* best estimate this epoch ... */
	uint64_t prev_epoch_best_ns;    /* ... and the one before */
};

/* Forgets every observation (a stream that starts anew). */
void gpd_clock_map_reset(struct gpd_clock_map *m, uint64_t frequency);

/* A report stamped ts (extended ticks) was read at CPU time cpu_ns, so
 * taken then or before. */
void gpd_clock_map_observe(struct gpd_clock_map *m, uint64_t ts, uint64_t cpu_ns);

/* ts in CPU time; false before the first observation. */
bool gpd_clock_map_cpu_time(const struct gpd_clock_map *m, uint64_t ts,
			    uint64_t *cpu_ns);

/* CPU time cpu_ns in extended ticks (never before the first report);
 * false before the first observation. */
bool gpd_clock_map_ticks(const struct gpd_clock_map *m, uint64_t cpu_ns,
			 uint64_t *ts);

#endif
