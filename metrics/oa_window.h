/*
 * Windows: OA reports and loss events in, summed counter deltas out.
 *
 * A windower is fed raw reports in stream order and loss events where the
 * stream had them; it decodes each report's header, extends its timestamp
 * to 64 bits and adds the delta from the report before it, taken from the
 * two reports' bytes, into the open window. When a window closes it is
 * handed to the caller's callback. Four ways to cut:
 *
 * PAIR      every consecutive report pair is a window.
 * INTERVAL  windows end at the first report at or past each multiple of
 *           `interval` timestamp ticks (on the extended time line); the
 *           report that ends one starts the next, so no delta is lost or
 *           counted twice. Stretches without reports make no empty windows.
 * CONTEXT   runs of reports of one context (gpm_oa_report_context()); the
 *           delta from a report to the next belongs to the first one's
 *           context, so the report that names a new context ends the old
 *           run (a context-switch report is tagged with the context
 *           switching in) and starts the new one. Idle and squashed reports
 *           form runs of GPM_OA_CTX_NONE. As in IGT's reader.
 * MARKS     windows between begin and end marks given as extended
 *           timestamps, as a begin/end query would: the window sums the
 *           pairs whose reports both lie within [begin, end]. Marks are
 *           queued (up to GPM_OA_WINDOW_MAX_MARKS), must not overlap, and
 *           apply to reports fed after they were set; a begin with no end
 *           yet keeps its window open.
 *
 * Loss: a REPORT_LOST leaves the delta across it valid. A BUFFER_LOST ends
 * the chain: the pair straddling it is dropped and the next report starts
 * afresh. Either is counted in the window open when it arrives; a loss with
 * no window open (PAIR mode, or outside any mark) is counted in the next
 * window handed out, so every loss shows up in exactly one window.
 *
 * Nothing is allocated: the windower is one caller-owned struct, and the
 * window passed to the callback lives in it, valid during the call only.
 */
#ifndef GPM_OA_WINDOW_H
#define GPM_OA_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics/accumulator.h"
#include "metrics/oa_record.h"
#include "metrics/oa_report.h"
#include "metrics/oa_timestamp.h"

enum gpm_oa_window_mode {
	GPM_OA_WINDOW_PAIR,
	GPM_OA_WINDOW_INTERVAL,
	GPM_OA_WINDOW_CONTEXT,
	GPM_OA_WINDOW_MARKS,
};

struct gpm_oa_window {
	uint64_t start_ts;              /* extended timestamp of the first report */
	uint64_t end_ts;                /* and of the last */
	uint32_t n_reports;             /* report pairs (deltas) summed into acc */
	uint32_t reports_lost;          /* REPORT_LOST events counted here */
	uint32_t buffers_lost;          /* BUFFER_LOST events counted here */
	/* PAIR: the context of the pair's first report; CONTEXT: the run's;
	 * GPM_OA_CTX_NONE in the other modes. */
	uint32_t ctx_id;
	struct gpm_accumulator acc;
};

typedef void (*gpm_oa_window_fn)(void *data, const struct gpm_oa_window *window);

#define GPM_OA_WINDOW_MAX_MARKS 16

struct gpm_oa_windower {
	struct gpm_oa_decoder dec;
	enum gpm_oa_window_mode mode;
	uint64_t interval;
	gpm_oa_window_fn fn;
	void *data;

	struct gpm_oa_ts_extender ts;
	struct gpm_oa_report report;    /* the header of the report being fed */
	/* The previous report's bytes: deltas come from them, undecoded. */
	unsigned char prev_report[GPM_OA_MAX_REPORT_SIZE];
	bool have_prev;                 /* a delta can be taken from it */
	bool seen_report;
	uint64_t prev_ts;               /* extended */
	uint32_t prev_ctx;              /* its context (CONTEXT, PAIR modes) */

	/* While a run of reports is fed: where it lies, and which of its
	 * pairs the open window has whose deltas are not yet summed, those
	 * of reports unsummed_first .. unsummed_first + unsummed_reports - 1
	 * (gpm_oa_delta_add_run() sums them at once). */
	const unsigned char *run;
	size_t run_stride;
	size_t unsummed_first, unsummed_reports;

	bool open;
	uint64_t deadline;              /* INTERVAL: the open window ends here */
	uint32_t pending_reports_lost;  /* losses while no window was open */
	uint32_t pending_buffers_lost;
	struct gpm_oa_window window;

	struct {
		uint64_t begin, end;    /* end UINT64_MAX until set */
	} mark[GPM_OA_WINDOW_MAX_MARKS];
	unsigned mark_head, n_marks;
	bool mark_end_pending;          /* the newest mark has no end yet */
};

/*
 * Sets w up for reports decoded by dec. interval is in timestamp ticks and
 * used by INTERVAL mode only (-EINVAL when 0 there). fn gets each window.
 */
int gpm_oa_windower_init(struct gpm_oa_windower *w, const struct gpm_oa_decoder *dec,
			 enum gpm_oa_window_mode mode, uint64_t interval,
			 gpm_oa_window_fn fn, void *data);

/*
 * Feeds one raw report (size at least the format's). May call fn once or
 * more. Returns 0, or what decoding returned (the report is then ignored).
 */
int gpm_oa_windower_feed(struct gpm_oa_windower *w, const void *report, size_t size);

/*
 * Feeds the n raw reports at first, first + stride, ... (each size bytes,
 * size at least the format's): the same as feeding them one by one, but
 * the deltas between them are summed a run at a time, for a fraction of
 * the cost. The bytes need to stay put during the call only. Returns 0,
 * or -EMSGSIZE (and feeds nothing) when size is smaller than a report.
 */
int gpm_oa_windower_feed_run(struct gpm_oa_windower *w, const void *first,
			     size_t stride, size_t n, size_t size);

/* Feeds loss events (enum gpm_oa_loss flags), as records or xe status bits
 * reported them. */
void gpm_oa_windower_loss(struct gpm_oa_windower *w, unsigned losses);

/*
 * Feeds one i915 record: a SAMPLE's report, or a loss. Other record types
 * are skipped. Returns 0, or the SAMPLE's decoding error.
 */
int gpm_oa_windower_record(struct gpm_oa_windower *w, const struct gpm_oa_record *rec);

/*
 * MARKS mode: queue a window from begin to end (extended timestamps).
 * -EINVAL in another mode, for an end without a begin, a begin while the
 * previous mark has no end, or a mark starting before the previous one's
 * end or ending before its begin; -ENOSPC when the queue is full. An end
 * mark before the last report fed already closes the window.
 */
int gpm_oa_windower_mark_begin(struct gpm_oa_windower *w, uint64_t ts);
int gpm_oa_windower_mark_end(struct gpm_oa_windower *w, uint64_t ts);

/*
 * Hands out the open window now (if it holds a delta or a loss), and
 * losses not yet counted as an empty window. The stream may go on: in
 * INTERVAL and CONTEXT modes the next window starts at the last report; in
 * MARKS mode the current mark counts as ended.
 */
void gpm_oa_windower_flush(struct gpm_oa_windower *w);

#endif
