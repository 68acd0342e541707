/*
 * OA timestamps onto CLOCK_MONOTONIC (see clock_map.h).
 */
#include "daemon/clock_map.h"

/* How long one epoch's best bound stands before a fresher one may replace
 * it: long enough to hold reads that came soon after a report, short
 * enough that a drift of 100 ppm moves the mapping by 0.2 ms at most. */
#define EPOCH_NS 1000000000ull

static uint64_t mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	return c ? (uint64_t)((unsigned __int128)a * b / c) : 0;
}

void gpd_clock_map_reset(struct gpd_clock_map *m, uint64_t frequency)
{
	*m = (struct gpd_clock_map){ .frequency = frequency };
}

/* The CPU time of ts_anchor that a report stamped ts, taken at cpu_ns,
 * says; saturates rather than wrap. */
static uint64_t anchor_for(const struct gpd_clock_map *m, uint64_t ts,
			   uint64_t cpu_ns)
{
	if (ts >= m->ts_anchor) {
		uint64_t since = mul_div(ts - m->ts_anchor, 1000000000ull, m->frequency);
		return cpu_ns > since ? cpu_ns - since : 0;
	}
	uint64_t before = mul_div(m->ts_anchor - ts, 1000000000ull, m->frequency);
	return cpu_ns < UINT64_MAX - before ? cpu_ns + before : UINT64_MAX;
}

void gpd_clock_map_observe(struct gpd_clock_map *m, uint64_t ts, uint64_t cpu_ns)
{
	if (!m->anchored) {
		m->anchored = true;
		m->ts_anchor = ts;
		m->cpu_anchor_ns = cpu_ns;
		m->epoch_start_ns = cpu_ns;
		m->epoch_best_ns = cpu_ns;
		m->prev_epoch_best_ns = UINT64_MAX;
		return;
	}
	uint64_t anchor = anchor_for(m, ts, cpu_ns);
	if (cpu_ns - m->epoch_start_ns >= EPOCH_NS) {
		m->prev_epoch_best_ns = m->epoch_best_ns;
		m->epoch_best_ns = anchor;
		m->epoch_start_ns = cpu_ns;
	} else if (anchor < m->epoch_best_ns) {
		m->epoch_best_ns = anchor;
	}
	m->cpu_anchor_ns = m->epoch_best_ns < m->prev_epoch_best_ns ?
			   m->epoch_best_ns : m->prev_epoch_best_ns;
}

bool gpd_clock_map_cpu_time(const struct gpd_clock_map *m, uint64_t ts,
			    uint64_t *cpu_ns)
{
	if (!m->anchored)
		return false;
	if (ts >= m->ts_anchor)
		*cpu_ns = m->cpu_anchor_ns +
			  mul_div(ts - m->ts_anchor, 1000000000ull, m->frequency);
	else
		*cpu_ns = m->cpu_anchor_ns -
			  mul_div(m->ts_anchor - ts, 1000000000ull, m->frequency);
	return true;
}

bool gpd_clock_map_ticks(const struct gpd_clock_map *m, uint64_t cpu_ns,
			 uint64_t *ts)
{
	if (!m->anchored)
		return false;
	uint64_t since = cpu_ns > m->cpu_anchor_ns ? cpu_ns - m->cpu_anchor_ns : 0;
	*ts = m->ts_anchor + mul_div(since, m->frequency, 1000000000ull);
	return true;
}
