/*
 * Frames as the CLI shows them (gpuperf stream and run): rows of table,
 * CSV or NDJSON through output.h, or on a terminal a table of the counters
 * redrawn in place at every frame.
 *
 * Every row carries the window's loss: lost (OA_REPORT_LOST), buffers_lost
 * (OA_BUFFER_LOST) and dropped (frames the daemon dropped because this
 * client read too slowly).
 */
#ifndef GPUPERF_STREAM_VIEW_H
#define GPUPERF_STREAM_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "client/include/gpuperf.h"
#include "client/output.h"

struct gpuperf_stream_view_options {
	enum gpuperf_format format;
	bool units_row;                 /* CSV: a row of units under the header */
	bool live;                      /* redraw in place (a terminal) */
	bool per_context;               /* a row per context after each window's */
	bool raw;                       /* the raw deltas as columns */
	bool mark_column;               /* a "mark" column: 1 for the marked
					 * window's rows */
	/* process_gpu_time_ns and process_memory_bytes columns: a measured
	 * command's process tree, in the marked window's row. */
	bool process_columns;
	FILE *out;
	const char *title;              /* the live view's first line (copied) */
	const char *platform;           /* what machine rows name (copied) */
	const char *metric_set;
	/* The live view's size; 0: the terminal's, or 80x24. */
	int rows, columns;
};

/* A context the live view shows, in the order it first ran. */
struct gpuperf_live_context {
	uint32_t id;
	bool idle;
};

struct gpuperf_stream_view {
	/* private */
	struct gpuperf_stream_view_options options;
	char *title, *platform, *metric_set;    /* the options' copies */
	size_t n_counters;
	size_t n_columns;
	struct gpuperf_column *columns;
	struct gpuperf_cell *cells;
	char (*raw_keys)[24];
	char **counter_keys;            /* copies: the subscription's change */
	double *bounds;                 /* each counter's bound, as shown;
					 * NAN: none */
	struct gpuperf_output output;
	bool output_ready;
	size_t first_counter;           /* column of the first counter */
	/* Totals, for the summary and for a stream that measured nothing. */
	uint64_t windows;
	uint64_t reports;                       /* in every window */
	uint64_t gpu_ns;                        /* GPU time of the intervals */
	uint64_t lost, buffers_lost, dropped;
	struct gpuperf_live_context *contexts;  /* the live view's columns */
	size_t n_contexts, cap_contexts;
	bool have_process_tree;
	uint64_t process_gpu_time_ns, process_memory_bytes;
	char *screen;                   /* the live view being built */
	size_t screen_len, screen_cap;
};

/* The columns follow the subscription's counters; set (may be NULL)
 * gives their units. 0 or -ENOMEM. */
int gpuperf_stream_view_init(struct gpuperf_stream_view *v,
			     const struct gpuperf_stream_view_options *options,
			     const struct gpc_subscription_info *info,
			     const struct gpc_metric_set *set);

/* Shows a frame. 0, or the negative errno of a failed write. */
int gpuperf_stream_view_frame(struct gpuperf_stream_view *v,
			      const struct gpc_frame *frame);

/* What the marked window's row says of the command's process tree:
 * engine time and peak memory. */
void gpuperf_stream_view_set_process_tree(struct gpuperf_stream_view *v,
					  uint64_t gpu_time_ns,
					  uint64_t memory_bytes);

/* True while the subscription's counters are the view's columns. */
bool gpuperf_stream_view_matches(const struct gpuperf_stream_view *v,
				 const struct gpc_subscription_info *info);

/* Prints a line on stderr about any loss seen, for the command cmd. */
void gpuperf_stream_view_summary(const struct gpuperf_stream_view *v,
				 const char *cmd);

void gpuperf_stream_view_fini(struct gpuperf_stream_view *v);

#endif
