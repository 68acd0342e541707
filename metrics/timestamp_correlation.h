/*
 * GPU to CPU time: places OA report timestamps on the CPU clock of a
 * recording's TIMESTAMP_CORRELATION points, streaming.
 *
 * Reports carry the low 32 bits (31 on DG2/MTL) of the GPU timestamp,
 * extended by the windows code into a 64-bit line that starts at the first
 * report; correlation points carry the full register. Each point, met in
 * stream order next to a report, gives the offset between the two lines
 * (the report and the point are less than one wrap apart). A time is then
 * interpolated between the last two points, or carried from the last one
 * at the nominal frequency while only one is known. Only two points are
 * kept, so memory stays flat; recorders write a point every second, which
 * keeps the extrapolation short.
 */
#ifndef GPM_TIMESTAMP_CORRELATION_H
#define GPM_TIMESTAMP_CORRELATION_H

#include <stdbool.h>
#include <stdint.h>

#include "recording.h"

struct gpm_ts_correlation {
	/* private */
	uint64_t frequency;             /* timestamp ticks per second */
	uint64_t wrap;                  /* report timestamps wrap here */
	bool have_report;
	uint64_t report_ticks;          /* the last report's, as in the report */
	uint64_t report_line;           /* and on the extended line */
	bool have_offset;
	uint64_t offset;                /* full GPU time - extended line */
	unsigned n_points;              /* 0..2 */
	struct gpm_recording_correlation point[2];      /* older, newer */
	bool point_pending;             /* newest point not yet anchored */
};

/* frequency: timestamp ticks per second; ts_mask: the decoder's, one less
 * than where report timestamps wrap. */
void gpm_ts_correlation_init(struct gpm_ts_correlation *c, uint64_t frequency,
			     uint64_t ts_mask);

/* A report went by: its timestamp in ticks as decoded, and on the
 * extended line. */
void gpm_ts_correlation_report(struct gpm_ts_correlation *c, uint64_t ticks,
			       uint64_t line);

/* A correlation point went by. */
void gpm_ts_correlation_point(struct gpm_ts_correlation *c,
			      const struct gpm_recording_correlation *point);

/* The CPU time of a time on the extended line; -ENODATA until a point and
 * a report have both been seen. */
int gpm_ts_correlation_cpu_ns(const struct gpm_ts_correlation *c,
			      uint64_t line, uint64_t *cpu_ns);

/* Where a correlation point's GPU timestamp lies on the extended line;
 * -ENODATA until a point and a report have both been seen, -ERANGE for
 * a time before the line's start. */
int gpm_ts_correlation_line(const struct gpm_ts_correlation *c,
			    uint64_t gpu_timestamp, uint64_t *line);

#endif
