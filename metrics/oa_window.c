/*
 * The windowing state machine (see oa_window.h).
 *
 * Every mode shares one skeleton: a window opens at a report, each later
 * report adds the delta from its predecessor (unless a BUFFER_LOST broke
 * the chain) and moves the window's end, and a mode-specific test decides
 * whether the report also closes the window and opens the next one.
 */
#include "metrics/oa_window.h"

#include <errno.h>
#include <string.h>

#include "metrics/oa_delta.h"

int gpm_oa_windower_init(struct gpm_oa_windower *w, const struct gpm_oa_decoder *dec,
			 enum gpm_oa_window_mode mode, uint64_t interval,
			 gpm_oa_window_fn fn, void *data)
{
	if (!dec || !dec->format || !fn || (unsigned)mode > GPM_OA_WINDOW_MARKS)
		return -EINVAL;
	if (mode == GPM_OA_WINDOW_INTERVAL && !interval)
		return -EINVAL;

	memset(w, 0, sizeof(*w));
	w->dec = *dec;
	w->mode = mode;
	w->interval = interval;
	w->fn = fn;
	w->data = data;
	w->prev_ctx = GPM_OA_CTX_NONE;
	gpm_oa_ts_extender_init(&w->ts, dec->ts_mask);
	return 0;
}

/* The first multiple of the interval after ts; saturates rather than wrap
 * so a window near the end of the time line still closes only once. */
static uint64_t next_deadline(uint64_t ts, uint64_t interval)
{
	uint64_t q = ts / interval;

	if (q >= UINT64_MAX / interval)
		return UINT64_MAX;
	return (q + 1) * interval;
}

static void open_window(struct gpm_oa_windower *w, uint64_t ts, uint32_t ctx)
{
	struct gpm_oa_window *win = &w->window;

	w->open = true;
	win->start_ts = ts;
	win->end_ts = ts;
	win->n_reports = 0;
	win->reports_lost = w->pending_reports_lost;
	win->buffers_lost = w->pending_buffers_lost;
	win->ctx_id = ctx;
	/* Slots outside the format stay as init left them: zero. */
	gpm_oa_delta_clear(&w->dec, &win->acc);
	w->pending_reports_lost = 0;
	w->pending_buffers_lost = 0;
	if (w->mode == GPM_OA_WINDOW_INTERVAL)
		w->deadline = next_deadline(ts, w->interval);
}

static const unsigned char *run_report(const struct gpm_oa_windower *w, size_t k)
{
	return w->run + k * w->run_stride;
}

/* Adds the deltas the open window is owed into it. */
static void sum_unsummed(struct gpm_oa_windower *w)
{
	if (!w->unsummed_reports)
		return;
	gpm_oa_delta_add_run(&w->dec, run_report(w, w->unsummed_first), w->run_stride,
			     w->unsummed_reports, &w->window.acc);
	w->unsummed_reports = 0;
}

/* A window without a delta or a loss says nothing; it is dropped. */
static void close_window(struct gpm_oa_windower *w)
{
	const struct gpm_oa_window *win = &w->window;

	sum_unsummed(w);
	w->open = false;
	if (win->n_reports || win->reports_lost || win->buffers_lost)
		w->fn(w->data, win);
}

/*
 * Extends the open window to report k of the run, at extended time ts:
 * takes the delta from the previous report, or after a BUFFER_LOST just
 * takes the report in. The first report's predecessor came before the run
 * and is kept as a copy. Deltas within the run wait to be summed together:
 * an open window takes in every report that follows the one it opened at,
 * so its pairs in the run are consecutive.
 */
static void extend_window(struct gpm_oa_windower *w, size_t k, uint64_t ts)
{
	if (w->have_prev) {
		if (k == 0) {
			gpm_oa_delta_add_raw(&w->dec, w->prev_report, w->run,
					     &w->window.acc);
		} else if (w->unsummed_reports) {
			w->unsummed_reports++;
		} else {
			w->unsummed_first = k - 1;
			w->unsummed_reports = 2;
		}
		w->window.n_reports++;
	}
	w->window.end_ts = ts;
}

static void step_pair(struct gpm_oa_windower *w, size_t k, uint64_t ts)
{
	if (!w->have_prev)
		return;
	open_window(w, w->prev_ts, w->prev_ctx);
	extend_window(w, k, ts);
	close_window(w);
}

static void step_interval(struct gpm_oa_windower *w, size_t k, uint64_t ts)
{
	if (!w->open) {
		open_window(w, ts, GPM_OA_CTX_NONE);
		return;
	}
	/* After a lost buffer, a report past the deadline cannot join the
	 * window (it has no delta into it): the window ends before it. */
	if (w->have_prev || ts < w->deadline)
		extend_window(w, k, ts);
	if (ts >= w->deadline) {
		close_window(w);
		open_window(w, ts, GPM_OA_CTX_NONE);
	}
}

static void step_context(struct gpm_oa_windower *w, size_t k, uint64_t ts,
			 uint32_t ctx)
{
	if (!w->open) {
		open_window(w, ts, ctx);
		return;
	}
	if (w->have_prev || ctx == w->window.ctx_id)
		extend_window(w, k, ts);
	if (ctx != w->window.ctx_id) {
		close_window(w);
		open_window(w, ts, ctx);
	}
}

static void pop_mark(struct gpm_oa_windower *w)
{
	w->mark_head = (w->mark_head + 1) % GPM_OA_WINDOW_MAX_MARKS;
	w->n_marks--;
	if (!w->n_marks)
		w->mark_end_pending = false;
}

static void step_marks(struct gpm_oa_windower *w, size_t k, uint64_t ts)
{
	while (w->n_marks) {
		uint64_t begin = w->mark[w->mark_head].begin;
		uint64_t end = w->mark[w->mark_head].end;

		if (ts < begin)
			return;
		if (ts <= end) {
			if (w->open)
				extend_window(w, k, ts);
			else
				open_window(w, ts, GPM_OA_CTX_NONE);
			return;
		}
		if (w->open)
			close_window(w);
		pop_mark(w);
	}
}

/* The extended timestamp of report k of the run, extending ext. */
static uint64_t run_timestamp(const struct gpm_oa_windower *w,
			      struct gpm_oa_ts_extender *ext, size_t k)
{
	return gpm_oa_ts_extend(ext, gpm_oa_report_timestamp(&w->dec,
							      run_report(w, k)));
}

/*
 * INTERVAL windows over a run. The timestamps alone decide: these windows
 * have no context, and neither has the previous report then. Most reports
 * just join the open window, their deltas summed with the run's later: a
 * stretch of them, up to the first at the deadline, is found in a tight
 * loop and taken in at once. The first report of a run, one after a lost
 * buffer and one that ends a window take the general step.
 */
static void feed_interval_run(struct gpm_oa_windower *w, size_t n)
{
	for (size_t k = 0; k < n;) {
		struct gpm_oa_ts_extender ext = w->ts;
		uint64_t ts = 0, last_joined = w->prev_ts;
		size_t j = k;

		if (w->open && w->have_prev && k > 0) {
			for (; j < n; j++) {
				ts = run_timestamp(w, &ext, j);
				if (ts >= w->deadline)
					break;
				last_joined = ts;
			}
			size_t joined = j - k;
			if (joined) {
				if (w->unsummed_reports) {
					w->unsummed_reports += joined;
				} else {
					w->unsummed_first = k - 1;
					w->unsummed_reports = joined + 1;
				}
				w->window.n_reports += (uint32_t)joined;
				w->window.end_ts = last_joined;
				w->prev_ts = last_joined;
			}
			w->ts = ext;
			if (j == n)
				break;
		} else {
			ts = run_timestamp(w, &w->ts, j);
		}
		step_interval(w, j, ts);
		w->have_prev = true;
		w->prev_ts = ts;
		k = j + 1;
	}
	w->seen_report = true;
}

int gpm_oa_windower_feed_run(struct gpm_oa_windower *w, const void *first,
			     size_t stride, size_t n, size_t size)
{
	size_t report_size = w->dec.format->size;

	if (size < report_size)
		return -EMSGSIZE;
	if (!n)
		return 0;

	w->run = first;
	w->run_stride = stride;
	if (w->mode == GPM_OA_WINDOW_INTERVAL)
		feed_interval_run(w, n);
	for (size_t k = 0; k < n && w->mode != GPM_OA_WINDOW_INTERVAL; k++) {
		struct gpm_oa_report *r = &w->report;

		gpm_oa_report_decode_header(&w->dec, run_report(w, k), size, r);
		uint64_t ts = gpm_oa_ts_extend(&w->ts, r->timestamp);
		uint32_t ctx = gpm_oa_report_context(&w->dec, r, w->prev_ctx);

		switch (w->mode) {
		case GPM_OA_WINDOW_PAIR:
			step_pair(w, k, ts);
			break;
		case GPM_OA_WINDOW_CONTEXT:
			step_context(w, k, ts, ctx);
			break;
		case GPM_OA_WINDOW_MARKS:
			step_marks(w, k, ts);
			break;
		case GPM_OA_WINDOW_INTERVAL:
			break;
		}

		w->have_prev = true;
		w->seen_report = true;
		w->prev_ts = ts;
		w->prev_ctx = ctx;
	}
	/* The run's bytes go away after the call: what the open window is
	 * owed is summed now, and the last report kept for the next delta. */
	sum_unsummed(w);
	memcpy(w->prev_report, run_report(w, n - 1), report_size);
	w->run = NULL;
	return 0;
}

int gpm_oa_windower_feed(struct gpm_oa_windower *w, const void *report, size_t size)
{
	return gpm_oa_windower_feed_run(w, report, size, 1, size);
}

void gpm_oa_windower_loss(struct gpm_oa_windower *w, unsigned losses)
{
	uint32_t *reports = w->open ? &w->window.reports_lost : &w->pending_reports_lost;
	uint32_t *buffers = w->open ? &w->window.buffers_lost : &w->pending_buffers_lost;

	if (losses & GPM_OA_LOSS_REPORT)
		(*reports)++;
	if (losses & GPM_OA_LOSS_BUFFER) {
		(*buffers)++;
		w->have_prev = false;
	}
}

int gpm_oa_windower_record(struct gpm_oa_windower *w, const struct gpm_oa_record *rec)
{
	switch (rec->type) {
	case GPM_OA_RECORD_SAMPLE:
		return gpm_oa_windower_feed(w, rec->payload, rec->payload_size);
	case GPM_OA_RECORD_REPORT_LOST:
		gpm_oa_windower_loss(w, GPM_OA_LOSS_REPORT);
		return 0;
	case GPM_OA_RECORD_BUFFER_LOST:
		gpm_oa_windower_loss(w, GPM_OA_LOSS_BUFFER);
		return 0;
	default:
		return 0;
	}
}

static unsigned newest_mark(const struct gpm_oa_windower *w)
{
	return (w->mark_head + w->n_marks - 1) % GPM_OA_WINDOW_MAX_MARKS;
}

int gpm_oa_windower_mark_begin(struct gpm_oa_windower *w, uint64_t ts)
{
	if (w->mode != GPM_OA_WINDOW_MARKS || w->mark_end_pending)
		return -EINVAL;
	if (w->n_marks == GPM_OA_WINDOW_MAX_MARKS)
		return -ENOSPC;
	if (w->n_marks && ts < w->mark[newest_mark(w)].end)
		return -EINVAL;

	unsigned slot = (w->mark_head + w->n_marks) % GPM_OA_WINDOW_MAX_MARKS;
	w->mark[slot].begin = ts;
	w->mark[slot].end = UINT64_MAX;
	w->n_marks++;
	w->mark_end_pending = true;
	return 0;
}

int gpm_oa_windower_mark_end(struct gpm_oa_windower *w, uint64_t ts)
{
	if (w->mode != GPM_OA_WINDOW_MARKS || !w->mark_end_pending)
		return -EINVAL;

	unsigned slot = newest_mark(w);
	if (ts < w->mark[slot].begin)
		return -EINVAL;
	w->mark[slot].end = ts;
	w->mark_end_pending = false;

	/* Reports past the end are already in: nothing more can join. */
	if (w->n_marks == 1 && w->seen_report && w->prev_ts > ts) {
		if (w->open)
			close_window(w);
		pop_mark(w);
	}
	return 0;
}

void gpm_oa_windower_flush(struct gpm_oa_windower *w)
{
	if (w->open)
		close_window(w);
	if (w->pending_reports_lost || w->pending_buffers_lost) {
		open_window(w, w->prev_ts, GPM_OA_CTX_NONE);
		close_window(w);
	}

	switch (w->mode) {
	case GPM_OA_WINDOW_INTERVAL:
	case GPM_OA_WINDOW_CONTEXT:
		if (w->have_prev)
			open_window(w, w->prev_ts, w->mode == GPM_OA_WINDOW_CONTEXT ?
						   w->prev_ctx : GPM_OA_CTX_NONE);
		break;
	case GPM_OA_WINDOW_MARKS:
		if (w->n_marks)
			pop_mark(w);
		break;
	case GPM_OA_WINDOW_PAIR:
		break;
	}
}
