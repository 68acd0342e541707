/*
 * The tracks of a gpuperf trace and the events on them, the same whether
 * the trace is made from a recording (oa_trace.h) or from the frames a
 * daemon streams (the CLI's stream and run):
 *
 *   <device>                       root; losses and configuration changes
 *                                  as instant events on it
 *     <metric set name>            one per configuration, children in the
 *       reports                    set's order: report pairs per window,
 *       <counter name> ...         then one counter track per counter
 *     GPU contexts                 a track per hardware context, a slice
 *       context 0x1a ...           per span of GPU time it ran
 *     marks                        Mark BEGIN..END windows as slices
 *
 * Counter tracks are named as the UI names the counters; their
 * description starts with the counter's symbol (what CSV and NDJSON
 * columns are called) and says what one value is. Values are the ones
 * CSV and NDJSON carry for the same window, in the counter's base unit;
 * those of counters the metric file declares float at float's precision
 * (their description says "float precision").
 *
 * A layout holds only uuids; the writer holds the tracks themselves.
 */
#ifndef GPM_TRACE_LAYOUT_H
#define GPM_TRACE_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics/metric_set.h"
#include "metrics/trace_writer.h"

/* Hardware contexts with a track of their own; later ones share one. */
#define GPM_TRACE_LAYOUT_MAX_CONTEXTS 256

/* A counter as the layout shows it. */
struct gpm_trace_counter_spec {
	const char *symbol;             /* "GpuBusy" */
	const char *name;               /* "GPU Busy" */
	const char *description;
	const char *units;              /* as in the metric XML: "percent" */
	/* Its data type: uint64 and bool as INT, float as FLOAT (written
	 * at float's precision), double as DOUBLE. */
	enum gpm_trace_counter_kind kind;
};

struct gpm_trace_layout {
	struct gpm_trace_writer *w;
	uint64_t device;
	uint64_t set;                   /* the current configuration's */
	uint64_t reports;
	uint64_t contexts;
	uint64_t marks;
	unsigned n_sets;                /* configurations shown so far */
	size_t n_contexts;
	struct {
		uint32_t ctx_id;
		uint64_t track;
	} context[GPM_TRACE_LAYOUT_MAX_CONTEXTS];
	uint64_t other_contexts;
};

/* The device track, named label. 0, -ENOSPC (too many tracks). */
int gpm_trace_layout_init(struct gpm_trace_layout *l, struct gpm_trace_writer *w,
			  const char *label, const char *description);

/*
 * A configuration's tracks: the set's (set_name, symbol and GUID in its
 * description), the reports track and a counter track per counter, in the
 * order given; they become the window's counters (gpm_trace_window takes
 * values in this order, reports first). window_ns describes what one value
 * covers: 0 for "the marked window", period_ns 0 where unknown.
 */
int gpm_trace_layout_set(struct gpm_trace_layout *l, const char *set_name,
			 const char *symbol, const char *guid,
			 uint64_t window_ns, uint64_t period_ns,
			 const struct gpm_trace_counter_spec *counters, size_t n);

/* The track of hardware context ctx_id; 0 when no track can be had. */
uint64_t gpm_trace_layout_context(struct gpm_trace_layout *l, uint32_t ctx_id);

/* The name of ctx_id's slices, "context 0x1a", into buf. */
void gpm_trace_layout_context_name(char *buf, size_t size, uint32_t ctx_id);

/* The marks track. */
uint64_t gpm_trace_layout_marks(struct gpm_trace_layout *l);

/* The configuration now shown, as an instant event on the device track:
 * "configuration" at the start, "configuration changed" later. */
int gpm_trace_layout_configuration(struct gpm_trace_layout *l, uint64_t ts,
				   bool changed, const char *symbol,
				   const char *guid, uint64_t window_ns,
				   uint64_t period_ns);

/* Losses at ts as instant events on the device track, one per kind with
 * a count: "OA reports lost" (OA_REPORT_LOST), "OA buffer lost"
 * (OA_BUFFER_LOST), "frames dropped" (frames a slow client missed). */
int gpm_trace_layout_losses(struct gpm_trace_layout *l, uint64_t ts,
			    uint64_t reports_lost, uint64_t buffers_lost,
			    uint64_t frames_dropped);

/* A counter's track kind by its data type. */
enum gpm_trace_counter_kind gpm_trace_kind_of(enum gpm_counter_data_type type);

/* A unit of the metric XML as a counter track's unit. */
struct gpm_trace_unit gpm_trace_unit_from_xml(const char *units);

#endif
