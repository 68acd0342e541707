/*
 * A device's usage frames (gpc_usage_subscribe) as tracks of a gpuperf
 * trace, beside its counters, under the device's track:
 *
 *   usage                          clocks, RC6, power, temperature and
 *                                  the daemon's gauges, one counter track
 *                                  each; notes and losses as instants
 *     engines                      per engine its busy, wait and
 *                                  semaphore shares ("rcs0 busy")
 *     processes                    a track per process ("4100 compositor")
 *       4100 compositor            its GPU time, its share of each engine
 *                                  class, its memory
 *       other processes            those past the first 64, and those the
 *                                  daemon hides, summed
 *
 * Values are those of the frame, placed at its start on the daemon's
 * CLOCK_MONOTONIC (the trace's snapshots relate it to the GPU's clock and
 * to BOOTTIME), in the units gpuperf top's NDJSON names in its keys:
 * shares as ratios from 0 to 1, hertz, watts, joules, celsius, ns, bytes.
 * Each track's description starts with the NDJSON key its values are
 * (engines[rcs0].busy_ratio, processes[4100].memory_bytes, power_watts).
 * A value the device cannot measure is left out, and its track too until
 * it has one: the frame's note says why, as an instant event. A process
 * that leaves the list gets zeros once, as it then holds nothing.
 */
#ifndef GPUPERF_USAGE_TRACE_H
#define GPUPERF_USAGE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client/include/gpuperf.h"
#include "metrics/trace_writer.h"

/* Processes with tracks of their own; later ones are summed. */
#define GPUPERF_USAGE_TRACE_MAX_PROCESSES 64

struct gpuperf_usage_track;
struct gpuperf_usage_process;

struct gpuperf_usage_trace {
	/* private */
	struct gpm_trace_writer *w;
	uint64_t device;
	uint64_t usage, engines, processes;
	struct gpuperf_usage_track *tracks;
	size_t n_tracks, cap_tracks;
	struct gpuperf_usage_process *procs;    /* with tracks, then "other" */
	size_t n_procs;
	char *note, *processes_note;
	uint64_t frames;
};

/* Usage tracks under device, written through w (which must outlive t). */
void gpuperf_usage_trace_init(struct gpuperf_usage_trace *t,
			      struct gpm_trace_writer *w, uint64_t device);

/* Writes a frame's values. 0, or a negative errno of the writer. */
int gpuperf_usage_trace_frame(struct gpuperf_usage_trace *t,
			      const struct gpc_usage_frame *f);

void gpuperf_usage_trace_fini(struct gpuperf_usage_trace *t);

#endif
