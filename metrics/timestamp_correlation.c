/*
 * GPU to CPU time through correlation points (see timestamp_correlation.h).
 */
#include <errno.h>
#include <string.h>

#include "metrics/timestamp_correlation.h"

void gpm_ts_correlation_init(struct gpm_ts_correlation *c, uint64_t frequency,
			     uint64_t ts_mask)
{
	memset(c, 0, sizeof(*c));
	c->frequency = frequency;
	c->wrap = ts_mask + 1;
}

/* Ticks from a to b modulo the report wrap; a wrap of 2^64 (a 64-bit
 * report timestamp) is plain subtraction. */
static uint64_t ticks_between(const struct gpm_ts_correlation *c, uint64_t a,
			      uint64_t b)
{
	uint64_t d = b - a;
	return c->wrap ? d % c->wrap : d;
}

/* Ties the newest point to the last report, which came after it. */
static void anchor_after_point(struct gpm_ts_correlation *c)
{
	const struct gpm_recording_correlation *p = &c->point[c->n_points - 1];
	uint64_t full = p->gpu_timestamp +
			ticks_between(c, p->gpu_timestamp, c->report_ticks);
	c->offset = full - c->report_line;
	c->have_offset = true;
	c->point_pending = false;
}

void gpm_ts_correlation_report(struct gpm_ts_correlation *c, uint64_t ticks,
			       uint64_t line)
{
	c->have_report = true;
	c->report_ticks = ticks;
	c->report_line = line;
	if (c->point_pending)
		anchor_after_point(c);
}

void gpm_ts_correlation_point(struct gpm_ts_correlation *c,
			      const struct gpm_recording_correlation *point)
{
	if (c->n_points == 2)
		c->point[0] = c->point[1];
	else
		c->n_points++;
	c->point[c->n_points - 1] = *point;

	if (!c->have_report) {
		c->point_pending = true;
		return;
	}
	/* The last report came before this point: re-anchoring at every
	 * point also repairs a line that missed a wrap across a long gap. */
	uint64_t full = point->gpu_timestamp -
			ticks_between(c, c->report_ticks, point->gpu_timestamp);
	c->offset = full - c->report_line;
	c->have_offset = true;
	c->point_pending = false;
}

int gpm_ts_correlation_cpu_ns(const struct gpm_ts_correlation *c,
			      uint64_t line, uint64_t *cpu_ns)
{
	if (!c->have_offset || !c->n_points)
		return -ENODATA;

	uint64_t gpu = line + c->offset;
	const struct gpm_recording_correlation *a = &c->point[0];
	const struct gpm_recording_correlation *b = &c->point[c->n_points - 1];
	__int128 cpu_span, gpu_span;

	if (c->n_points == 2 && b->gpu_timestamp != a->gpu_timestamp) {
		cpu_span = (__int128)b->cpu_ns - (__int128)a->cpu_ns;
		gpu_span = (__int128)b->gpu_timestamp - (__int128)a->gpu_timestamp;
	} else {
		if (!c->frequency)
			return -ENODATA;
		a = b;
		cpu_span = 1000000000;
		gpu_span = (__int128)c->frequency;
	}
	__int128 since = (__int128)gpu - (__int128)a->gpu_timestamp;
	__int128 cpu = (__int128)a->cpu_ns + since * cpu_span / gpu_span;
	*cpu_ns = cpu < 0 ? 0 : (uint64_t)cpu;
	return 0;
}

int gpm_ts_correlation_line(const struct gpm_ts_correlation *c,
			    uint64_t gpu_timestamp, uint64_t *line)
{
	if (!c->have_offset)
		return -ENODATA;
	if (gpu_timestamp < c->offset)
		return -ERANGE;
	*line = gpu_timestamp - c->offset;
	return 0;
}
