/*
 * Subscriptions: the arbitration of a device's one configuration between
 * subscribers, and each subscriber's windows and frames.
 *
 * Policy: only a controller chooses a device's configuration. An idle
 * device takes a controller's; a viewer's request must fit the one the
 * device would start with by itself (its default set, at the default
 * period). On a running device, a request that fits what runs (same set,
 * a period no faster than the running one) joins it; anything else needs
 * a controller, whose change every subscriber is told about. A viewer
 * asking for more is refused with words saying what runs and how to join
 * it. Nobody's stream runs faster than the device's floor (--min-period).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/device_registry.h"
#include "daemon/error.h"
#include "daemon/log.h"
#include "daemon/subscription_internal.h"
#include "metrics/oa_delta.h"

static struct gpd_subscription *subscription_of(struct gpd_device_subscriber *s)
{
	return (struct gpd_subscription *)((char *)s -
					   offsetof(struct gpd_subscription, base));
}

static void window_reset(struct gpd_window *w)
{
	w->open = false;
	w->partial = false;
	w->within_mark = false;
	w->reports = 0;
	w->reports_lost = 0;
	w->buffers_lost = 0;
	memset(&w->acc, 0, sizeof(w->acc));
}

/* The window's time span takes in a pair, whoever's it is. */
static void window_span(struct gpd_window *w, uint64_t start_ts,
			uint64_t end_ts, bool within_mark)
{
	if (!w->open) {
		w->open = true;
		w->start_ts = start_ts;
		w->within_mark = within_mark;
	}
	w->end_ts = end_ts;
}

static void window_add(struct gpd_window *w, const struct gpm_oa_decoder *dec,
		       const struct gpm_oa_report *start,
		       const struct gpm_oa_report *end, uint64_t start_ts,
		       uint64_t end_ts, bool within_mark)
{
	window_span(w, start_ts, end_ts, within_mark);
	w->reports++;
	gpm_oa_delta_add(dec, start, end, &w->acc);
}

static struct gpd_context_acc *context_slot(struct gpd_context_sums *sums,
					    uint32_t ctx)
{
	for (size_t i = 0; i < sums->n; i++)
		if (sums->rows[i].ctx_id == ctx)
			return &sums->rows[i];
	if (sums->n == sums->cap) {
		size_t cap = sums->cap ? sums->cap * 2 : 8;
		/* A window with thousands of contexts is an attack or a bug;
		 * fold the excess into the last row rather than grow forever. */
		if (cap > 1024)
			return &sums->rows[sums->n - 1];
		struct gpd_context_acc *c = realloc(sums->rows, cap * sizeof(*c));
		if (!c)
			return sums->n ? &sums->rows[sums->n - 1] : NULL;
		sums->rows = c;
		sums->cap = cap;
	}
	struct gpd_context_acc *c = &sums->rows[sums->n++];
	memset(c, 0, sizeof(*c));
	c->ctx_id = ctx;
	return c;
}

static void context_add(struct gpd_context_sums *sums,
			const struct gpm_oa_decoder *dec,
			const struct gpm_oa_report *start,
			const struct gpm_oa_report *end, uint32_t ctx,
			uint64_t start_ts, uint64_t end_ts)
{
	struct gpd_context_acc *c = context_slot(sums, ctx);
	if (c) {
		c->reports++;
		c->ticks += end_ts - start_ts;
		gpm_oa_delta_add(dec, start, end, &c->acc);
	}
}

/* A window without a report of its own has no values, not zeros. */
static void evaluate(struct gpd_subscription *sub,
		     const struct gpm_accumulator *acc, uint32_t reports,
		     struct gpm_value *out)
{
	const struct gpm_binding *binding = sub->device->binding;
	if (!reports) {
		for (size_t i = 0; i < sub->n_counters; i++)
			out[i] = (struct gpm_value){ .type = GPM_VALUE_DOUBLE,
						     .d = NAN };
		return;
	}
	gpm_binding_evaluate(binding, acc, sub->set_values);
	for (size_t i = 0; i < sub->n_counters; i++)
		out[i] = sub->set_values[sub->index[i]];
}

enum emit_kind {
	EMIT_INTERVAL,          /* an interval window */
	EMIT_MARK,              /* the window an end mark closed */
	EMIT_LAST,              /* the interval window the duration ends */
};

/* Hands the window w, of contexts ctxs, out to sub as a frame. */
static void hand_out(struct gpd_subscription *sub, struct gpd_window *w,
		     const struct gpd_context_sums *ctxs, enum emit_kind kind)
{
	struct gpd_device *dev = sub->device;
	bool from_mark = kind == EMIT_MARK;
	if (!dev->binding)
		return;
	struct gpd_frame frame = {
		.gpu_start_ns = gpd_device_ticks_to_ns(dev, w->start_ts),
		.gpu_end_ns = gpd_device_ticks_to_ns(dev, w->end_ts),
		.reports = w->reports,
		.lost_reports = w->reports_lost,
		.buffer_lost = w->buffers_lost,
		.from_mark = from_mark,
		.partial = !from_mark && (w->partial || kind == EMIT_LAST),
		.last = kind == EMIT_LAST,
		.within_mark = !from_mark && w->within_mark,
		.n_values = sub->n_counters,
		.values = sub->values,
	};
	if (!w->open)
		frame.gpu_start_ns = frame.gpu_end_ns = 0;
	gpd_device_cpu_time(dev, w->start_ts, &frame.cpu_start_ns);
	gpd_device_cpu_time(dev, w->end_ts, &frame.cpu_end_ns);
	/* A tighter bound moves the clock mapping earlier (clock_map.h): by
	 * tens of ms when the loop was late for the first reads. Interval
	 * frames still never go back in time; they begin where the last
	 * ended until the mapping has caught up. A mark's frame spans
	 * windows already sent. */
	if (!from_mark) {
		if (frame.cpu_start_ns < sub->last_cpu_end_ns)
			frame.cpu_start_ns = sub->last_cpu_end_ns;
		if (frame.cpu_end_ns < frame.cpu_start_ns)
			frame.cpu_end_ns = frame.cpu_start_ns;
		sub->last_cpu_end_ns = frame.cpu_end_ns;
	}
	evaluate(sub, &w->acc, w->reports, sub->values);
	if (sub->raw)
		frame.raw = &w->acc;
	size_t n_contexts = ctxs->n;
	if (sub->per_context && n_contexts) {
		/* Values and rows grow apart: after a reconfiguration a window
		 * may hold more contexts of fewer counters. */
		size_t need = n_contexts * (sub->n_counters ? sub->n_counters : 1);
		if (need > sub->cap_context_values) {
			struct gpm_value *v = realloc(sub->context_values,
						      need * sizeof(*v));
			if (v) {
				sub->context_values = v;
				sub->cap_context_values = need;
			}
		}
		if (n_contexts > sub->cap_rows) {
			struct gpd_context_row *r = realloc(sub->rows,
				n_contexts * sizeof(*r));
			if (r) {
				sub->rows = r;
				sub->cap_rows = n_contexts;
			}
		}
		if (need <= sub->cap_context_values &&
		    n_contexts <= sub->cap_rows) {
			for (size_t i = 0; i < n_contexts; i++) {
				const struct gpd_context_acc *c = &ctxs->rows[i];
				struct gpm_value *vals =
					sub->context_values + i * sub->n_counters;
				evaluate(sub, &c->acc, c->reports, vals);
				sub->rows[i] = (struct gpd_context_row){
					.ctx_id = c->ctx_id,
					.reports = c->reports,
					.gpu_time_ns = gpd_device_ticks_to_ns(dev, c->ticks),
					.values = vals,
					.raw = sub->raw ? &c->acc : NULL,
				};
			}
			frame.n_contexts = n_contexts;
			frame.contexts = sub->rows;
		}
	}
	sub->ops->frame(sub->user, &frame);
}

/* Hands the subscription's own window out as a frame, then empties it
 * (the frame points into the window and the contexts' sums). */
static void emit(struct gpd_subscription *sub, struct gpd_window *w,
		 enum emit_kind kind)
{
	struct gpd_context_sums *ctxs = kind == EMIT_MARK ? &sub->mark_contexts :
					&sub->contexts;
	hand_out(sub, w, ctxs, kind);
	ctxs->n = 0;
	window_reset(w);
}

/* Emits the interval window early, where something cuts it; the next one
 * begins mid-window too. */
static void cut_window(struct gpd_subscription *sub)
{
	struct gpd_window *w = &sub->window;
	if (w->open || w->reports_lost || w->buffers_lost) {
		w->partial = true;
		emit(sub, w, EMIT_INTERVAL);
	}
	w->partial = true;
}

/* The duration is covered: the open interval window is the last. */
static void end_subscription(struct gpd_subscription *sub)
{
	sub->ended = true;
	if (sub->mark_state == GPD_MARK_CLOSING) {
		sub->mark_state = GPD_MARK_IDLE;
		emit(sub, &sub->mark, EMIT_MARK);
		if (sub->base.dead)
			return;
	}
	emit(sub, &sub->window, EMIT_LAST);
}

/* The window and the duration in ticks of the stream's OA unit, a tick
 * at least. */
static void count_in_ticks(struct gpd_subscription *sub)
{
	const struct gpd_device *dev = sub->device;
	sub->ticks_frequency = dev->shape.timestamp_frequency;
	sub->window_ticks = gpd_device_ns_to_ticks(dev, sub->window_ns);
	if (sub->window_ns && !sub->window_ticks)
		sub->window_ticks = 1;
	sub->duration_ticks = gpd_device_ns_to_ticks(dev, sub->duration_ns);
	if (sub->duration_ns && !sub->duration_ticks)
		sub->duration_ticks = 1;
}

static struct gpd_shared_window *shared_of(struct gpd_pair_sink *k)
{
	return (struct gpd_shared_window *)((char *)k -
		offsetof(struct gpd_shared_window, sink));
}

static bool window_empty(const struct gpd_window *w)
{
	return !w->open && !w->partial && !w->reports_lost && !w->buffers_lost;
}

/* Whether sub's interval windows are those of every subscription of its
 * key, nothing setting them apart. */
static bool may_share(const struct gpd_subscription *sub)
{
	return sub->window_ticks && !sub->duration_ticks && !sub->ended &&
	       sub->mark_state == GPD_MARK_IDLE && !sub->kernel_ctx_filter &&
	       !sub->base.passive && !sub->base.dead &&
	       sub->ticks_frequency == sub->device->shape.timestamp_frequency;
}

static bool same_key(const struct gpd_shared_window *g,
		     const struct gpd_subscription *sub)
{
	return g->window_ticks == sub->window_ticks &&
	       g->ctx_filter == sub->ctx_filter &&
	       (!g->ctx_filter || g->ctx_id == sub->ctx_id) &&
	       g->per_context == sub->per_context;
}

#define SHARED_NO_ROW SIZE_MAX

/* Sums the pairs of the run taken so far. */
static void sum_run(struct gpd_shared_window *g)
{
	if (!g->run.n_reports)
		return;
	if (g->run.row != SHARED_NO_ROW)
		gpm_oa_delta_add_run(g->run.dec, g->run.first, g->run.stride,
				     g->run.n_reports,
				     &g->contexts.rows[g->run.row].acc);
	if (g->run.to_window)
		gpm_oa_delta_add_run(g->run.dec, g->run.first, g->run.stride,
				     g->run.n_reports, &g->window.acc);
	g->run.n_reports = 0;
}

/* Takes the pair from start to end into row and (to_window) the window:
 * into the run when it goes on from it, else into a new one. A pair
 * whose end is not as far after its start as a report could be (they
 * came in different reads) is summed now. */
static void take_pair(struct gpd_shared_window *g,
		      const struct gpm_oa_decoder *dec, const void *start,
		      const void *end, size_t row, bool to_window)
{
	const unsigned char *s = start, *e = end;
	uintptr_t stride = (uintptr_t)e - (uintptr_t)s;
	if (g->run.n_reports && s == g->run.last && stride == g->run.stride &&
	    row == g->run.row && to_window == g->run.to_window &&
	    dec == g->run.dec) {
		g->run.last = e;
		g->run.n_reports++;
		return;
	}
	sum_run(g);
	if (stride < dec->format->size || stride > UINT16_MAX) {
		if (row != SHARED_NO_ROW)
			gpm_oa_delta_add_raw(dec, s, e, &g->contexts.rows[row].acc);
		if (to_window)
			gpm_oa_delta_add_raw(dec, s, e, &g->window.acc);
		return;
	}
	g->run.dec = dec;
	g->run.first = s;
	g->run.last = e;
	g->run.stride = stride;
	g->run.n_reports = 2;
	g->run.row = row;
	g->run.to_window = to_window;
}

/* The shared window with its sums whole (see folded). */
static struct gpd_window *shared_window(struct gpd_shared_window *g)
{
	sum_run(g);
	if (g->per_context && !g->folded) {
		for (size_t r = 0; r < g->contexts.n; r++)
			for (size_t k = 0; k < GPM_ACC_SLOTS; k++)
				g->window.acc.slot[k] += g->contexts.rows[r].acc.slot[k];
		g->folded = true;
	}
	return &g->window;
}

static void shared_reset(struct gpd_shared_window *g)
{
	g->run.n_reports = 0;
	g->contexts.n = 0;
	g->folded = false;
	window_reset(&g->window);
}

static void shared_emit(struct gpd_shared_window *g)
{
	shared_window(g);
	g->emitting = true;
	for (g->emit_at = 0; g->emit_at < g->n_members; g->emit_at++) {
		struct gpd_subscription *m = g->members[g->emit_at];
		if (!m->base.dead)
			hand_out(m, &g->window, &g->contexts, EMIT_INTERVAL);
	}
	g->emitting = false;
	shared_reset(g);
}

/* sub sums its own windows again; keep: from the shared window so far
 * (a mark begins), else from nothing (it is reset or freed). */
static void leave_shared(struct gpd_subscription *sub, bool keep)
{
	struct gpd_shared_window *g = sub->shared;
	size_t i = 0;
	while (g->members[i] != sub)
		i++;
	memmove(g->members + i, g->members + i + 1,
		(g->n_members - i - 1) * sizeof(*g->members));
	g->n_members--;
	/* A member leaving from its frame callback: the next is at its
	 * place now. */
	if (g->emitting && i <= g->emit_at)
		g->emit_at--;
	sub->shared = NULL;
	gpd_device_pairs_in_sink(g->device, &sub->base, false);
	if (keep) {
		sub->window = *shared_window(g);
		sub->deadline = g->deadline;
		sub->contexts.n = 0;
		for (size_t r = 0; r < g->contexts.n; r++) {
			const struct gpd_context_acc *from = &g->contexts.rows[r];
			struct gpd_context_acc *c = context_slot(&sub->contexts,
								 from->ctx_id);
			if (!c)
				continue;
			c->reports += from->reports;
			c->ticks += from->ticks;
			for (size_t k = 0; k < GPM_ACC_SLOTS; k++)
				c->acc.slot[k] += from->acc.slot[k];
		}
	}
	if (!g->n_members)
		gpd_device_drop_sink(g->device, &g->sink);
}

/* The pair goes on from the run, into the same row, inside the window
 * (or is not the filter's, inside the window): what shared_pair_at_edge()
 * would do with it comes down to counting it, done here. False for any
 * other pair, which it is left to. */
static bool shared_pair_goes_on(struct gpd_shared_window *g,
				const struct gpm_oa_decoder *dec,
				const unsigned char *start,
				const unsigned char *end, uint32_t ctx,
				uint64_t start_ts, uint64_t end_ts)
{
	if (g->leaving || !g->n_members || !g->window.open ||
	    start_ts >= g->deadline || end_ts >= g->deadline)
		return false;
	if (g->ctx_filter && ctx != g->ctx_id) {
		g->window.end_ts = end_ts;
		return true;
	}
	if (!g->run.n_reports || start != g->run.last ||
	    (uintptr_t)end - (uintptr_t)start != g->run.stride ||
	    dec != g->run.dec)
		return false;
	struct gpd_context_acc *c = NULL;
	if (g->per_context) {
		if (g->run.row == SHARED_NO_ROW ||
		    g->contexts.rows[g->run.row].ctx_id != ctx ||
		    g->run.to_window != g->folded)
			return false;
		c = &g->contexts.rows[g->run.row];
	} else if (g->run.row != SHARED_NO_ROW || !g->run.to_window) {
		return false;
	}
	g->window.end_ts = end_ts;
	g->window.reports++;
	if (c) {
		c->reports++;
		c->ticks += end_ts - start_ts;
	}
	g->run.last = end;
	g->run.n_reports++;
	return true;
}

/* Kept out of line: inlined, its saving of registers would be paid by
 * every pair taking the short way. */
__attribute__((noinline))
static void shared_pair_at_edge(struct gpd_shared_window *g,
				const struct gpm_oa_decoder *dec,
				const void *start, const void *end,
				uint32_t ctx, uint64_t start_ts,
				uint64_t end_ts)
{
	/* A member whose mark began takes the window so far and sums this
	 * pair on itself: the mark's pairs and cuts are its own. */
	for (size_t i = 0; g->leaving && i < g->n_members;) {
		struct gpd_subscription *m = g->members[i];
		if (!m->base.dead && !may_share(m))
			leave_shared(m, true);
		else
			i++;
	}
	g->leaving = false;
	if (!g->n_members)
		return;
	bool wanted = !g->ctx_filter || ctx == g->ctx_id;
	/* As on_pair does for a subscription of its own. */
	if (!g->deadline) {
		g->deadline = (start_ts / g->window_ticks + 1) * g->window_ticks;
		g->window.partial = start_ts % g->window_ticks != 0;
	}
	if (start_ts >= g->deadline) {
		if (g->window.open || g->window.reports_lost ||
		    g->window.buffers_lost)
			shared_emit(g);
		g->deadline = (start_ts / g->window_ticks + 1) * g->window_ticks;
	}
	window_span(&g->window, start_ts, end_ts, false);
	if (wanted) {
		g->window.reports++;
		struct gpd_context_acc *c = g->per_context ?
			context_slot(&g->contexts, ctx) : NULL;
		if (c) {
			c->reports++;
			c->ticks += end_ts - start_ts;
		}
		take_pair(g, dec, start, end,
			  c ? (size_t)(c - g->contexts.rows) : SHARED_NO_ROW,
			  !c || g->folded);
	}
	if (end_ts >= g->deadline) {
		if (g->window.open || g->window.reports_lost ||
		    g->window.buffers_lost)
			shared_emit(g);
		g->deadline = (end_ts / g->window_ticks + 1) * g->window_ticks;
	}
}

/* Nearly every pair goes on from the one before: those take the short
 * way, the rest (a new context, a window's end, a member leaving) the
 * whole one. */
static void shared_pair(struct gpd_pair_sink *k,
			const struct gpm_oa_decoder *dec, const void *start,
			const void *end, uint32_t ctx, uint64_t start_ts,
			uint64_t end_ts)
{
	struct gpd_shared_window *g = shared_of(k);
	if (!shared_pair_goes_on(g, dec, start, end, ctx, start_ts, end_ts))
		shared_pair_at_edge(g, dec, start, end, ctx, start_ts, end_ts);
}

static void shared_loss(struct gpd_pair_sink *k, bool buffer_lost)
{
	struct gpd_shared_window *g = shared_of(k);
	if (buffer_lost)
		g->window.buffers_lost++;
	else
		g->window.reports_lost++;
}

/* The run's reports go with the read they came in. */
static void shared_read_end(struct gpd_pair_sink *k)
{
	sum_run(shared_of(k));
}

/* After its members have handed out what it holds. */
static void shared_flush(struct gpd_pair_sink *k)
{
	struct gpd_shared_window *g = shared_of(k);
	shared_reset(g);
	g->deadline = 0;
}

static void shared_release(struct gpd_pair_sink *k)
{
	struct gpd_shared_window *g = shared_of(k);
	free(g->contexts.rows);
	free(g->members);
	free(g);
}

static const struct gpd_pair_sink_ops shared_ops = {
	.pair = shared_pair,
	.loss = shared_loss,
	.read_end = shared_read_end,
	.flush = shared_flush,
	.release = shared_release,
};

/* At the end of one of its windows (its own and any shared one of its key
 * begin empty), sub joins the shared window of its key, made if none is.
 * Out of memory, it goes on summing its own. */
static void share_windows(struct gpd_subscription *sub)
{
	struct gpd_device *dev = sub->device;
	if (!may_share(sub) || !window_empty(&sub->window) || sub->contexts.n)
		return;
	struct gpd_shared_window *g = NULL;
	for (struct gpd_pair_sink *k = dev->sinks; k && !g; k = k->next)
		if (!k->dead && k->ops == &shared_ops &&
		    same_key(shared_of(k), sub))
			g = shared_of(k);
	if (g && (g->deadline != sub->deadline || !window_empty(&g->window) ||
		  g->contexts.n))
		return;         /* not at the same window's end: later */
	bool made = !g;
	if (made) {
		g = calloc(1, sizeof(*g));
		if (!g)
			return;
		g->sink.ops = &shared_ops;
		g->device = dev;
		g->window_ticks = sub->window_ticks;
		g->ctx_filter = sub->ctx_filter;
		g->ctx_id = sub->ctx_id;
		g->per_context = sub->per_context;
		g->deadline = sub->deadline;
	}
	if (g->n_members == g->cap_members) {
		size_t cap = g->cap_members ? 2 * g->cap_members : 4;
		struct gpd_subscription **m = realloc(g->members,
						      cap * sizeof(*m));
		if (!m) {
			if (made)
				shared_release(&g->sink);
			return;
		}
		g->members = m;
		g->cap_members = cap;
	}
	if (made)
		gpd_device_add_sink(dev, &g->sink);
	g->members[g->n_members++] = sub;
	sub->shared = g;
	gpd_device_pairs_in_sink(dev, &sub->base, true);
}

static void on_pair(struct gpd_device_subscriber *s,
		    const struct gpm_oa_decoder *dec,
		    const struct gpm_oa_report *start,
		    const struct gpm_oa_report *end, uint32_t ctx,
		    uint64_t start_ts, uint64_t end_ts)
{
	struct gpd_subscription *sub = subscription_of(s);
	/* A single-context stream forwards, besides its context's reports,
	 * the report ending each of its runs and every switch, their IDs
	 * hidden (gen8_append_oa_reports(), Linux 6.12): from those, other
	 * contexts ran. Haswell's unit counts only while it runs. */
	bool wanted = sub->kernel_ctx_filter ?
		      ctx != GPD_CTX_IDLE || !dec->has_context :
		      !sub->ctx_filter || ctx == sub->ctx_id;

	if (sub->ended)
		return;
	if (sub->ticks_frequency != sub->device->shape.timestamp_frequency)
		count_in_ticks(sub);
	/* Pairs are whole: the duration ends before the first that would
	 * run past it, within a sampling period of it. */
	if (sub->duration_ticks && !sub->duration_end_ts) {
		sub->duration_end_ts = start_ts + sub->duration_ticks;
	} else if (sub->duration_ticks && end_ts > sub->duration_end_ts) {
		end_subscription(sub);
		return;
	}
	if (sub->mark_state == GPD_MARK_CLOSING && end_ts > sub->mark_end_ts) {
		/* Interval windows end with the mark, before its frame. */
		if (sub->window_ticks && sub->window.within_mark)
			cut_window(sub);
		if (sub->base.dead)
			return;
		sub->mark_state = GPD_MARK_IDLE;
		emit(sub, &sub->mark, EMIT_MARK);
		if (sub->base.dead)
			return;
	}
	bool in_mark = sub->mark_state != GPD_MARK_IDLE &&
		       start_ts >= sub->mark_begin_ts;
	if (in_mark && wanted) {
		window_add(&sub->mark, dec, start, end, start_ts, end_ts, false);
		if (sub->per_context)
			context_add(&sub->mark_contexts, dec, start, end, ctx,
				    start_ts, end_ts);
	} else if (in_mark) {
		window_span(&sub->mark, start_ts, end_ts, false);
	}

	if (!sub->window_ticks)
		return;
	if (!sub->deadline) {
		sub->deadline = (start_ts / sub->window_ticks + 1) * sub->window_ticks;
		/* The first window begins where the stream did. */
		sub->window.partial = start_ts % sub->window_ticks != 0;
	}
	/* A pair that begins past the deadline (after a gap: a lost buffer,
	 * a stream of one context) belongs to a later window. */
	if (start_ts >= sub->deadline) {
		if (sub->window.open || sub->window.reports_lost ||
		    sub->window.buffers_lost)
			emit(sub, &sub->window, EMIT_INTERVAL);
		if (sub->base.dead)
			return;
		sub->deadline = (start_ts / sub->window_ticks + 1) *
				sub->window_ticks;
	}
	/* Interval windows begin with a mark, so that those within it add
	 * up to its frame. */
	if (sub->window.open && sub->window.within_mark != in_mark) {
		cut_window(sub);
		if (sub->base.dead)
			return;
	}
	if (wanted) {
		window_add(&sub->window, dec, start, end, start_ts, end_ts,
			   in_mark);
		if (sub->per_context)
			context_add(&sub->contexts, dec, start, end, ctx,
				    start_ts, end_ts);
	} else {
		window_span(&sub->window, start_ts, end_ts, in_mark);
	}
	/* The report that reaches the deadline ends the window; windows are
	 * aligned to multiples of their length on the GPU time line. */
	if (end_ts >= sub->deadline) {
		if (sub->window.open || sub->window.reports_lost ||
		    sub->window.buffers_lost)
			emit(sub, &sub->window, EMIT_INTERVAL);
		sub->deadline = (end_ts / sub->window_ticks + 1) * sub->window_ticks;
		share_windows(sub);
	}
}

static void on_loss(struct gpd_device_subscriber *s, bool buffer_lost)
{
	struct gpd_subscription *sub = subscription_of(s);
	if (sub->ended)
		return;
	/* A shared window counts its own. */
	if (buffer_lost) {
		if (!sub->shared)
			sub->window.buffers_lost++;
		if (sub->mark_state != GPD_MARK_IDLE)
			sub->mark.buffers_lost++;
	} else {
		if (!sub->shared)
			sub->window.reports_lost++;
		if (sub->mark_state != GPD_MARK_IDLE)
			sub->mark.reports_lost++;
	}
}

static void on_flush(struct gpd_device_subscriber *s)
{
	struct gpd_subscription *sub = subscription_of(s);
	if (sub->ended)
		return;
	/* A shared window is emptied once every member has it. */
	struct gpd_window *w = sub->shared ? shared_window(sub->shared) :
			       &sub->window;
	if (w->open || w->reports_lost || w->buffers_lost) {
		w->partial = true;
		if (sub->shared)
			hand_out(sub, w, &sub->shared->contexts, EMIT_INTERVAL);
		else
			emit(sub, w, EMIT_INTERVAL);
	}
	sub->deadline = 0;
	if (sub->mark_state == GPD_MARK_CLOSING) {
		sub->mark_state = GPD_MARK_IDLE;
		emit(sub, &sub->mark, EMIT_MARK);
	}
}

static void tell(struct gpd_subscription *sub, enum gpd_event_kind kind,
		 const char *message)
{
	struct gpd_event ev = { .kind = kind, .message = message };
	if (sub->ops->event)
		sub->ops->event(sub->user, &ev);
}

static void on_event(struct gpd_device_subscriber *s, enum gpd_event_kind kind,
		     const char *message)
{
	tell(subscription_of(s), kind, message);
}

static void free_counters(struct gpd_subscription *sub)
{
	free(sub->index);
	free(sub->symbols);
	free(sub->set_values);
	free(sub->values);
	sub->index = NULL;
	sub->symbols = NULL;
	sub->set_values = NULL;
	sub->values = NULL;
	sub->n_counters = 0;
}

/* The counters of set that sub asked for (every available one, without a
 * list), each once, in the order asked, into index when not NULL. A
 * counter asked twice is computed and sent once: copies would only
 * multiply the work and the frames' bytes. *missing: the first asked
 * that the set lacks or the device cannot count, else -1. The count, or
 * -ENOMEM. */
static long pick_counters(const struct gpd_subscription *sub,
			  const struct gpm_metric_set *set,
			  const struct gpm_binding *binding, unsigned *index,
			  long *missing)
{
	long n = 0;
	*missing = -1;
	if (!sub->requested) {
		for (size_t i = 0; i < set->n_counters; i++)
			if (binding->available[i] && index)
				index[n++] = (unsigned)i;
			else if (binding->available[i])
				n++;
		return n;
	}
	bool *taken = calloc(set->n_counters ? set->n_counters : 1,
			     sizeof(*taken));
	if (!taken)
		return -ENOMEM;
	for (size_t i = 0; i < sub->n_requested; i++) {
		int c = gpm_metric_set_lookup_counter(set, sub->requested[i]);
		if (c < 0 || !binding->available[c]) {
			if (*missing < 0)
				*missing = (long)i;
			continue;
		}
		if (taken[c])
			continue;
		taken[c] = true;
		if (index)
			index[n] = (unsigned)c;
		n++;
	}
	free(taken);
	return n;
}

/* Resolves the requested symbols (or all available counters) against set,
 * bound to the device as binding. A symbol the set lacks is an error when
 * asked; after a reconfiguration it is just dropped. */
static int resolve_counters(struct gpd_subscription *sub,
			    const struct gpm_metric_set *set,
			    const struct gpm_binding *binding, bool strict,
			    struct gpd_error *err)
{
	free_counters(sub);
	sub->set = set;
	size_t max = sub->requested ? sub->n_requested : set->n_counters;
	sub->index = calloc(max ? max : 1, sizeof(*sub->index));
	sub->symbols = calloc(max ? max : 1, sizeof(*sub->symbols));
	sub->set_values = calloc(set->n_counters ? set->n_counters : 1,
				 sizeof(*sub->set_values));
	sub->values = calloc(max ? max : 1, sizeof(*sub->values));
	long missing;
	long n = sub->index && sub->symbols && sub->set_values && sub->values ?
		 pick_counters(sub, set, binding, sub->index, &missing) : -ENOMEM;
	if (n < 0) {
		free_counters(sub);
		return gpd_fail(err, -ENOMEM, "out of memory");
	}
	if (strict && missing >= 0) {
		const char *symbol = sub->requested[missing];
		int c = gpm_metric_set_lookup_counter(set, symbol);
		const char *close = c < 0 ?
			gpm_metric_set_closest_counter(set, symbol) : NULL;
		free_counters(sub);
		return gpd_fail(err, -ENOENT,
			    "metric set %s has no counter '%s'%s; "
			    "%s%s%slist them with 'gpuperf counters %s'",
			    set->symbol_name, symbol,
			    c >= 0 ? " on this device" : "",
			    close ? "did you mean " : "",
			    close ? close : "", close ? "? " : "",
			    set->symbol_name);
	}
	for (long i = 0; i < n; i++)
		sub->symbols[i] = set->counters[sub->index[i]].symbol_name;
	sub->n_counters = (size_t)n;
	return 0;
}

/* What a subscription costs (see gpd_subscription_evaluations) with
 * n_counters values of a set of n_steps equations sampled every
 * period_ns. */
struct cost {
	uint64_t evaluations, rows, windows;
};

static struct cost cost_at(const struct gpd_subscription *sub, size_t n_steps,
			   size_t n_counters, uint64_t period_ns)
{
	struct cost c = {
		.rows = sub->per_context ? 1 + GPD_EVALUATION_CONTEXT_ROWS : 1,
	};
	uint64_t window = sub->no_frames ? sub->own_window_ns : sub->window_ns;
	if (window && window < period_ns)
		window = period_ns;
	if (window)
		c.windows = (1000000000ull + window - 1) / window;
	else
		c.windows = sub->no_frames ? 0 : 1;
	c.evaluations = c.rows * (n_steps + n_counters) * c.windows;
	return c;
}

/* sub costs evaluations from now on, in its connection's budget. */
static void charge(struct gpd_subscription *sub, uint64_t evaluations)
{
	if (sub->budget)
		sub->budget->used += evaluations - sub->evaluations;
	sub->evaluations = evaluations;
}

/* The device now runs another set: re-resolve the counters. */
static int rebind(struct gpd_subscription *sub)
{
	struct gpd_error err;
	if (sub->shared)
		leave_shared(sub, false);
	sub->contexts.n = 0;
	sub->mark_contexts.n = 0;
	window_reset(&sub->window);
	window_reset(&sub->mark);
	sub->mark_state = GPD_MARK_IDLE;
	sub->deadline = 0;
	const struct gpd_device *dev = sub->device;
	int ret = resolve_counters(sub, dev->set, dev->binding, false, &err);
	charge(sub, cost_at(sub, dev->binding->n_steps, sub->n_counters,
			    gpd_device_period_ns(dev, dev->exponent)).evaluations);
	return ret;
}

static void free_subscription(struct gpd_subscription *sub)
{
	charge(sub, 0);
	for (size_t i = 0; i < sub->n_requested; i++)
		free(sub->requested[i]);
	free(sub->requested);
	free_counters(sub);
	if (sub->shared)
		leave_shared(sub, false);
	free(sub->contexts.rows);
	free(sub->mark_contexts.rows);
	free(sub->context_values);
	free(sub->rows);
	free(sub);
}

static void on_release(struct gpd_device_subscriber *s)
{
	free_subscription(subscription_of(s));
}

static void on_others_left(struct gpd_device_subscriber *s)
{
	struct gpd_subscription *sub = subscription_of(s);
	if (sub->ops->others_left)
		sub->ops->others_left(sub->user);
}

static const struct gpd_device_subscriber_ops subscriber_ops = {
	.pair = on_pair,
	.loss = on_loss,
	.flush = on_flush,
	.event = on_event,
	.release = on_release,
	.others_left = on_others_left,
};

static void describe_config(const struct gpd_device *dev, char *buf, size_t size)
{
	snprintf(buf, size, "%s sampled every %llu ns%s", dev->set->symbol_name,
		 (unsigned long long)gpd_device_period_ns(dev, dev->exponent),
		 dev->ctx_filter ? ", of one application's context only" : "");
}

static bool others_subscribed(const struct gpd_device *dev)
{
	for (const struct gpd_device_subscriber *s = dev->subscribers; s;
	     s = s->next)
		if (!s->dead && !s->passive)
			return true;
	return false;
}

/* The context filter's part of arbitration (see subscription.h). */
static int arbitrate_context(const struct gpd_device *dev,
			     const struct gpd_subscribe_request *req,
			     struct gpd_error *err)
{
	const char *name = dev->source->name;
	bool others = others_subscribed(dev);
	if (req->kernel_ctx_filter && dev->ctx_filter && others)
		return gpd_fail(err, -EBUSY,
			    "device %s already streams one application's "
			    "context for the client that passed it; the OA "
			    "unit has one configuration: subscribe again when "
			    "that stream ends", name);
	if (req->kernel_ctx_filter && others)
		return gpd_fail(err, -EBUSY,
			    "device %s streams system-wide for other "
			    "subscribers, and a single-context stream would "
			    "be the OA unit's one configuration: subscribe "
			    "again when they have left, or subscribe "
			    "system-wide with the context's hardware ID as "
			    "filter", name);
	if (!req->kernel_ctx_filter && dev->ctx_filter && others)
		return gpd_fail(err, -EBUSY,
			    "device %s streams one application's context for "
			    "the client that passed its DRM file, and shows it "
			    "to nobody else; the OA unit has one configuration: "
			    "subscribe again when that stream ends", name);
	if (req->ctx_filter && !dev->decoder.has_context)
		return gpd_fail(err, -EINVAL,
			    "device %s's reports carry no context ID (%s), so "
			    "no software filter can pick a context out: pass "
			    "the application's DRM fd and context handle "
			    "instead, for the kernel's filter", name,
			    dev->source->platform ?
			    dev->source->platform->description : "Haswell");
	return 0;
}

/* Moves every subscriber onto the new configuration and tells them. */
static void announce_config(struct gpd_device *dev)
{
	char config[160], message[sizeof(((struct gpd_error *)0)->message) + 160];
	describe_config(dev, config, sizeof(config));
	snprintf(message, sizeof(message),
		 "device %s reconfigured by a controller: now %s",
		 dev->source->name, config);
	gpd_device_dispatch_begin(dev);
	for (struct gpd_device_subscriber *s = dev->subscribers; s; s = s->next) {
		if (s->dead)
			continue;
		rebind(subscription_of(s));
		tell(subscription_of(s), GPD_EVENT_CONFIG_CHANGED, message);
	}
	gpd_device_dispatch_end(dev);
}

static int resolve_set_and_period(struct gpd_device *dev, const char *name,
				  uint64_t period_ns,
				  const struct gpm_metric_set **set,
				  unsigned *exponent, struct gpd_error *err);

/* Decides, changing nothing, whether a request for set at *exponent can
 * run on dev. *configure says whether the device must be configured for it,
 * to set at *exponent (which a request joining what runs takes from it). */
static int arbitrate(struct gpd_device *dev, enum gpd_role role,
		     const struct gpm_metric_set *set, unsigned *exponent,
		     bool period_given, bool *configure, struct gpd_error *err)
{
	*configure = false;
	if (dev->source->fixed_metric_set && set != gpd_device_default_set(dev))
		return gpd_fail(err, -EINVAL,
			    "device %s replays a recording of %s and cannot "
			    "stream %s; subscribe to %s",
			    dev->source->name, dev->source->fixed_metric_set,
			    set->symbol_name, dev->source->fixed_metric_set);
	if (!dev->subscribers && role == GPD_ROLE_CONTROLLER) {
		*configure = true;
		return 0;
	}
	/* What the device runs, or would start with by itself. */
	const struct gpm_metric_set *running = dev->set;
	unsigned running_exponent = dev->exponent;
	if (!dev->subscribers && !dev->open) {
		int ret = resolve_set_and_period(dev, NULL, 0, &running,
						 &running_exponent, err);
		if (ret)
			return ret;
	}
	bool same_set = running == set;
	bool fast_enough = !period_given || *exponent >= running_exponent;
	if (same_set && fast_enough) {
		/* A stream its source closed under its subscribers opens
		 * again as they had it. */
		*exponent = running_exponent;
		*configure = !dev->open;
		return 0;
	}
	if (role != GPD_ROLE_CONTROLLER) {
		char config[160];
		snprintf(config, sizeof(config), "%s sampled every %llu ns",
			 running->symbol_name, (unsigned long long)
			 gpd_exponent_to_ns_at(dev->shape.timestamp_frequency,
					       running_exponent));
		if (!dev->subscribers)
			return gpd_fail(err, -EPERM,
				    "device %s is idle and a viewer does not "
				    "choose its configuration: it starts with %s; "
				    "subscribe to that set with a period of at "
				    "least that one (or name neither), or connect "
				    "as a controller", dev->source->name, config);
		return gpd_fail(err, -EBUSY,
			    "device %s is running %s for other subscribers; a "
			    "viewer cannot change it: subscribe to that set with "
			    "a period of at least the running one, or connect "
			    "as a controller", dev->source->name, config);
	}
	*configure = true;
	return 0;
}

/* No stream runs faster than the device's floor. A period asked below it
 * is refused; any other that the unit's doubling periods would round
 * below it (the floor itself, a default under a raised floor) takes the
 * next longer one. A recording's replay runs at the period it was made
 * with. */
static int keep_to_floor(const struct gpd_device *dev, uint64_t freq,
			 uint64_t period_ns, unsigned *exponent,
			 struct gpd_error *err)
{
	uint64_t floor = dev->min_period_ns;
	if (!floor || dev->source->fixed_period_ns)
		return 0;
	if (period_ns && period_ns < floor)
		return gpd_fail(err, -EINVAL,
			    "a sampling period of %llu ns is below device %s's "
			    "shortest, %llu ns (gpuperfd --min-period); ask for "
			    "%llu ns or more", (unsigned long long)period_ns,
			    dev->source->name, (unsigned long long)floor,
			    (unsigned long long)floor);
	while (*exponent < 31 && gpd_exponent_to_ns_at(freq, *exponent) < floor)
		(*exponent)++;
	return 0;
}

static int resolve_set_and_period(struct gpd_device *dev, const char *name,
				  uint64_t period_ns,
				  const struct gpm_metric_set **set,
				  unsigned *exponent, struct gpd_error *err)
{
	if (name) {
		*set = gpm_metrics_file_lookup_set(dev->metrics, name);
		const char *close = *set ? NULL :
			gpm_metrics_file_closest_set(dev->metrics, name);
		if (!*set)
			return gpd_fail(err, -ENOENT,
				    "device %s (%s) has no metric set '%s'; "
				    "%s%s%slist them with 'gpuperf sets -d %s'",
				    dev->source->name, dev->metrics->platform,
				    name, close ? "did you mean " : "",
				    close ? close : "", close ? "? " : "",
				    dev->source->name);
	} else {
		*set = dev->open && dev->set ? dev->set : gpd_device_default_set(dev);
		if (!*set && dev->source->no_stream)
			return gpd_fail(err, -EOPNOTSUPP, "%s",
					dev->source->no_stream);
		if (!*set)
			return gpd_fail(err, -ENOENT,
				    "device %s has no metric sets; point "
				    "--metrics-dir at its platform's oa-*.xml",
				    dev->source->name);
	}
	/* The exponent counts ticks of the clock of the unit the set counts
	 * on (a media set's OAM unit may run at another). */
	struct gpd_stream_shape shape;
	int ret = gpd_device_set_shape(dev, *set, &shape, err);
	if (ret)
		return ret;
	uint64_t freq = shape.timestamp_frequency;
	if (period_ns)
		*exponent = gpd_exponent_for_period_at(freq, period_ns);
	else if (dev->open && freq == dev->shape.timestamp_frequency)
		*exponent = dev->exponent;
	else if (dev->open)
		*exponent = gpd_exponent_for_period_at(freq,
			gpd_device_period_ns(dev, dev->exponent));
	else
		*exponent = gpd_exponent_for_period_at(freq,
						       dev->source->fixed_period_ns ?
						       dev->source->fixed_period_ns :
						       GPD_DEFAULT_PERIOD_NS);
	return keep_to_floor(dev, freq, period_ns, exponent, err);
}

/* Check, then act, for the evaluation budgets: what every subscription
 * of dev would cost with set sampled at exponent, and what joining (a
 * subscription not yet on the device, its counters resolved) costs, each
 * against its connection's budget, all before anything changes. asking:
 * the budget of the connection that asks. *joining_cost: what joining
 * costs. */
static int check_budgets(struct gpd_device *dev,
			 const struct gpm_metric_set *set, unsigned exponent,
			 const struct gpd_subscription *joining,
			 const struct gpd_evaluation_budget *asking,
			 uint64_t *joining_cost, struct gpd_error *err)
{
	const struct gpm_binding *binding = gpd_device_binding(dev, set);
	if (!binding)
		return gpd_fail(err, -ENOMEM, "out of memory binding %s",
				set->symbol_name);
	struct gpd_stream_shape shape;
	int ret = gpd_device_set_shape(dev, set, &shape, err);
	if (ret)
		return ret;
	uint64_t period = gpd_exponent_to_ns_at(shape.timestamp_frequency,
						exponent);
	struct gpd_device_subscriber *s;
	for (s = dev->subscribers; s; s = s->next)
		if (!s->dead && subscription_of(s)->budget)
			subscription_of(s)->budget->checking =
				subscription_of(s)->budget->used;
	if (joining && joining->budget)
		joining->budget->checking = joining->budget->used;
	for (s = dev->subscribers; s; s = s->next) {
		struct gpd_subscription *sub = subscription_of(s);
		if (s->dead || !sub->budget)
			continue;
		long missing, n = sub->set == set ? (long)sub->n_counters :
			pick_counters(sub, set, binding, NULL, &missing);
		if (n < 0)
			return gpd_fail(err, -ENOMEM, "out of memory");
		struct cost c = cost_at(sub, binding->n_steps, (size_t)n, period);
		sub->budget->checking += c.evaluations;
		sub->budget->checking -= sub->evaluations;
	}
	if (joining) {
		struct cost c = cost_at(joining, binding->n_steps,
					joining->n_counters, period);
		*joining_cost = c.evaluations;
		struct gpd_evaluation_budget *b = joining->budget;
		if (b && b->max && b->checking + c.evaluations > b->max) {
			uint64_t left = b->max > b->checking ?
					b->max - b->checking : 0;
			return gpd_fail(err, -ENOBUFS,
				    "%llu counter evaluations a second (%zu "
				    "equations + %zu values, x%llu rows, x%llu "
				    "windows) is over the %llu this connection "
				    "has left (--max-evaluations): ask for fewer "
				    "counters or longer windows%s, or unsubscribe "
				    "one", (unsigned long long)c.evaluations,
				    binding->n_steps, joining->n_counters,
				    (unsigned long long)c.rows,
				    (unsigned long long)c.windows,
				    (unsigned long long)left,
				    joining->per_context ?
				    ", no per-context rows" : "");
		}
	}
	for (s = dev->subscribers; s; s = s->next) {
		const struct gpd_evaluation_budget *b = subscription_of(s)->budget;
		if (s->dead || !b || !b->max || b->checking <= b->max)
			continue;
		return gpd_fail(err, -ENOBUFS,
			    "device %s running %s sampled every %llu ns would "
			    "cost the subscriptions of %s %llu counter "
			    "evaluations a second, over its %llu "
			    "(--max-evaluations): ask for a longer period or "
			    "another set, or unsubscribe those first",
			    dev->source->name, set->symbol_name,
			    (unsigned long long)period,
			    b == asking ? "this connection" : "another connection",
			    (unsigned long long)b->checking,
			    (unsigned long long)b->max);
	}
	return 0;
}

int gpd_subscribe(const struct gpd_device_registry *devices,
		  const struct gpd_subscribe_request *req,
		  const struct gpd_subscriber_ops *ops, void *user,
		  struct gpd_subscription **out, struct gpd_error *err)
{
	*out = NULL;
	struct gpd_device *dev = gpd_device_registry_find(devices, req->device);
	if (!dev)
		return gpd_fail(err, -ENODEV,
			    req->device ? "no device '%s'; list them with "
					  "'gpuperf devices'"
					: "the daemon has no devices%s",
			    req->device ? req->device : "");
	if (!ops || !ops->frame)
		return gpd_fail(err, -EINVAL, "a subscriber needs a frame callback");

	const struct gpm_metric_set *set;
	unsigned exponent;
	int ret = resolve_set_and_period(dev, req->metric_set,
					 req->sampling_period_ns, &set,
					 &exponent, err);
	if (ret)
		return ret;

	struct gpd_subscription *sub = calloc(1, sizeof(*sub));
	if (!sub)
		return gpd_fail(err, -ENOMEM, "out of memory");
	sub->base.ops = &subscriber_ops;
	sub->base.passive = req->passive;
	sub->device = dev;
	sub->ops = ops;
	sub->user = user;
	sub->role = req->role;
	sub->ctx_filter = req->ctx_filter;
	sub->ctx_id = req->ctx_id;
	sub->kernel_ctx_filter = req->kernel_ctx_filter;
	sub->raw = req->raw;
	/* Per-context rows split windows by the reports' context IDs:
	 * where reports carry none (Haswell's, NVIDIA's), every window would
	 * be one made-up context's, so frames carry no rows (Hello's
	 * software_context_filter says which devices have them). */
	sub->per_context = req->per_context && dev->decoder.has_context;
	sub->window_ns = req->window_ns;
	sub->duration_ns = req->duration_ns;
	sub->budget = req->budget;
	sub->no_frames = req->no_frames;
	sub->own_window_ns = req->own_window_ns;
	count_in_ticks(sub);
	if (req->counters) {
		sub->requested = calloc(req->n_counters ? req->n_counters : 1,
					sizeof(*sub->requested));
		if (!sub->requested) {
			free(sub);
			return gpd_fail(err, -ENOMEM, "out of memory");
		}
		for (size_t i = 0; i < req->n_counters; i++) {
			sub->requested[i] = strdup(req->counters[i]);
			if (!sub->requested[i]) {
				sub->n_requested = i;
				free_subscription(sub);
				return gpd_fail(err, -ENOMEM, "out of memory");
			}
		}
		sub->n_requested = req->n_counters;
	}

	/* Everything is checked before the device changes: a refused
	 * request leaves every other subscriber as it was. */
	bool configure;
	ret = arbitrate_context(dev, req, err);
	if (!ret && req->kernel_ctx_filter)
		ret = dev->source->ops->check_drm_fd ?
		      dev->source->ops->check_drm_fd(dev->source, req->ctx_fd, err) :
		      gpd_fail(err, -EOPNOTSUPP, "device %s (%s) takes no DRM "
			       "file: gpuperfd streams one application's "
			       "context on i915 and xe devices", dev->source->name,
			       gpd_source_kind_name(dev->source->kind));
	/* A single-context stream opens for this request alone, on a device
	 * nobody else streams from but passive subscribers, which follow. */
	if (!ret && req->kernel_ctx_filter)
		configure = true;
	else if (!ret)
		ret = arbitrate(dev, req->role, set, &exponent,
				req->sampling_period_ns != 0, &configure, err);
	const struct gpm_binding *binding = NULL;
	if (!ret && !(binding = gpd_device_binding(dev, set)))
		ret = gpd_fail(err, -ENOMEM, "out of memory binding %s",
			       set->symbol_name);
	if (!ret)
		ret = resolve_counters(sub, set, binding, true, err);
	uint64_t cost = 0;
	if (!ret)
		ret = check_budgets(dev, set, exponent, sub, req->budget, &cost,
				    err);
	if (ret) {
		free_subscription(sub);
		return ret;
	}
	if (configure) {
		struct gpd_device_context ctx = {
			.fd = req->ctx_fd, .handle = req->ctx_handle,
		};
		bool changed = dev->subscribers &&
			       (dev->set != set || dev->exponent != exponent ||
				dev->ctx_filter != req->kernel_ctx_filter);
		ret = gpd_device_configure(dev, set, exponent,
					   req->kernel_ctx_filter ? &ctx : NULL,
					   err);
		if (ret) {
			free_subscription(sub);
			return ret;
		}
		if (changed)
			announce_config(dev);
	}
	gpd_device_add_subscriber(dev, &sub->base);
	charge(sub, cost);
	*out = sub;
	return 0;
}

void gpd_unsubscribe(struct gpd_subscription *sub)
{
	if (!sub)
		return;
	/* Its connection may go before the device lets go of it. */
	charge(sub, 0);
	sub->budget = NULL;
	if (sub->base.dead)
		return;
	gpd_device_drop_subscriber(sub->device, &sub->base);
}

int gpd_reconfigure(struct gpd_subscription *sub, const char *metric_set,
		    uint64_t sampling_period_ns, struct gpd_error *err)
{
	struct gpd_device *dev = sub->device;
	if (sub->role != GPD_ROLE_CONTROLLER)
		return gpd_fail(err, -EPERM,
			    "only a controller may reconfigure device %s; "
			    "connect with a controller token",
			    dev->source->name);
	const struct gpm_metric_set *set;
	unsigned exponent;
	int ret = resolve_set_and_period(dev, metric_set, sampling_period_ns,
					 &set, &exponent, err);
	if (ret)
		return ret;
	if (dev->source->fixed_metric_set && set != gpd_device_default_set(dev))
		return gpd_fail(err, -EINVAL,
			    "device %s replays a recording of %s and cannot "
			    "stream %s", dev->source->name,
			    dev->source->fixed_metric_set, set->symbol_name);
	if (dev->open && dev->set == set && dev->exponent == exponent)
		return 0;
	ret = check_budgets(dev, set, exponent, NULL, sub->budget, NULL, err);
	if (ret)
		return ret;
	struct gpd_device_context ctx = {
		.fd = dev->ctx_fd, .handle = dev->ctx_handle,
	};
	ret = gpd_device_configure(dev, set, exponent,
				   dev->ctx_filter ? &ctx : NULL, err);
	if (ret)
		return ret;
	announce_config(dev);
	return 0;
}

int gpd_mark_begin(struct gpd_subscription *sub, struct gpd_error *err)
{
	uint64_t now;
	if (sub->mark_state != GPD_MARK_IDLE)
		return gpd_fail(err, -EALREADY,
			    "a mark is already open; end it before beginning "
			    "another");
	if (!gpd_device_gpu_now(sub->device, &now))
		return gpd_fail(err, -EAGAIN,
			    "device %s has not delivered a report yet; begin "
			    "the mark again in a moment",
			    sub->device->source->name);
	window_reset(&sub->mark);
	sub->mark_contexts.n = 0;
	sub->mark_begin_ts = now;
	sub->mark_state = GPD_MARK_OPEN;
	if (sub->shared)
		sub->shared->leaving = true;
	return 0;
}

int gpd_mark_end(struct gpd_subscription *sub, struct gpd_error *err)
{
	uint64_t now;
	if (sub->mark_state != GPD_MARK_OPEN)
		return gpd_fail(err, -EINVAL, "no mark is open; begin one first");
	if (!gpd_device_gpu_now(sub->device, &now))
		now = sub->mark_begin_ts;
	sub->mark_end_ts = now;
	sub->mark_state = GPD_MARK_CLOSING;
	return 0;
}

uint64_t gpd_subscription_evaluations(const struct gpd_subscription *sub)
{
	return sub->evaluations;
}

size_t gpd_subscription_counters(const struct gpd_subscription *sub,
				 const char *const **symbols)
{
	*symbols = sub->symbols;
	return sub->n_counters;
}
