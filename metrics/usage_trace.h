/*
 * A device's usage frames (what gpuperf top shows: the daemon's usage
 * stream) as tracks of a gpuperf trace, beside its counters, under the
 * device's track:
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
 * Each frame's values cover its interval, whose length is on the usage
 * track's "interval" track (duration_ns, as top's NDJSON names it): the
 * first frame and the last of a recording cover less than the others.
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
#ifndef GPM_USAGE_TRACE_H
#define GPM_USAGE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics/trace_writer.h"

/* Processes with tracks of their own; later ones are summed. */
#define GPM_USAGE_TRACE_MAX_PROCESSES 64

/* One interval of a device's usage, as the daemon measured it: the CLI
 * fills it from the frames it is sent, the daemon's recorder from its own
 * usage stream. Shares are 0..1; NaN where not measured. */
struct gpm_usage_trace_engine {
	const char *name;               /* "rcs0" */
	const char *engine_class;       /* "render" */
	double busy, wait, sema;
};

struct gpm_usage_trace_gauge {
	const char *name;               /* "pcie_tx" */
	const char *unit;               /* "bytes_per_second" */
	double value;
};

struct gpm_usage_trace_process {
	uint32_t pid, ppid;             /* pid 0: not named to this reader */
	const char *command;
	size_t n_class_busy;
	const double *class_busy;       /* per the frame's engine classes */
	uint64_t gpu_time_ns, memory_bytes, resident_bytes;
};

struct gpm_usage_trace_frame {
	uint64_t start_ns, end_ns;      /* the daemon's CLOCK_MONOTONIC */
	size_t n_engines;
	const struct gpm_usage_trace_engine *engines;
	size_t n_engine_classes;
	const char *const *engine_classes;
	double actual_frequency_hz, requested_frequency_hz;
	double min_frequency_hz, max_frequency_hz;
	double rc6, power_watts, energy_joules, temperature_celsius;
	size_t n_gauges;
	const struct gpm_usage_trace_gauge *gauges;
	bool processes_included;        /* asked for and visible */
	size_t n_processes;
	const struct gpm_usage_trace_process *processes;
	uint32_t processes_unreadable;  /* left out: the list is partial */
	const char *processes_note;
	const char *note;               /* what could not be measured */
	uint32_t frames_dropped;        /* before this one */
};

struct gpm_usage_track;
struct gpm_usage_process;

struct gpm_usage_trace {
	/* private */
	struct gpm_trace_writer *w;
	uint64_t device;
	uint64_t usage, engines, processes;
	struct gpm_usage_track *tracks;
	size_t n_tracks, cap_tracks;
	struct gpm_usage_process *procs;        /* with tracks, then "other" */
	size_t n_procs;
	char *note, *processes_note;
	uint64_t frames;
};

/* Usage tracks under device, written through w (which must outlive t).
 * device may be a track of another sequence of the same trace
 * (gpm_trace_parent_elsewhere). */
void gpm_usage_trace_init(struct gpm_usage_trace *t,
			  struct gpm_trace_writer *w, uint64_t device);

/* Writes a frame's values. 0, or a negative errno of the writer. */
int gpm_usage_trace_frame(struct gpm_usage_trace *t,
			  const struct gpm_usage_trace_frame *f);

/* Why the trace has no usage values, as an instant event on the usage
 * track at ts on CLOCK_MONOTONIC: a device without a usage stream. */
int gpm_usage_trace_none(struct gpm_usage_trace *t, uint64_t ts,
			 const char *why);

/* Frames written. */
uint64_t gpm_usage_trace_frames(const struct gpm_usage_trace *t);

void gpm_usage_trace_fini(struct gpm_usage_trace *t);

#endif
