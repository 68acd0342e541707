/*
 * The tracks of a gpuperf trace (see trace_layout.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/trace_layout.h"

int gpm_trace_layout_init(struct gpm_trace_layout *l, struct gpm_trace_writer *w,
			  const char *label, const char *description)
{
	memset(l, 0, sizeof(*l));
	l->w = w;
	l->device = gpm_trace_ordered_track(w, 0, label, description, 0);
	return l->device ? 0 : -ENOSPC;
}

/* "10 ms", "250 us", "1.5 s" */
static void duration_text(char *buf, size_t size, uint64_t ns)
{
	if (ns >= 1000000000 && ns % 1000000 == 0)
		snprintf(buf, size, "%g s", (double)ns / 1e9);
	else if (ns >= 1000000 && ns % 1000 == 0)
		snprintf(buf, size, "%g ms", (double)ns / 1e6);
	else if (ns >= 1000)
		snprintf(buf, size, "%g us", (double)ns / 1e3);
	else
		snprintf(buf, size, "%" PRIu64 " ns", ns);
}

enum gpm_trace_counter_kind gpm_trace_kind_of(enum gpm_counter_data_type type)
{
	switch (type) {
	case GPM_DATA_FLOAT:
		return GPM_TRACE_COUNTER_FLOAT;
	case GPM_DATA_DOUBLE:
		return GPM_TRACE_COUNTER_DOUBLE;
	case GPM_DATA_BOOL32:
	case GPM_DATA_UINT32:
	case GPM_DATA_UINT64:
		break;
	}
	return GPM_TRACE_COUNTER_INT;
}

struct gpm_trace_unit gpm_trace_unit_from_xml(const char *units)
{
	struct gpm_trace_unit u = { .kind = GPM_TRACE_UNIT_NAMED };

	if (!units || !units[0] || !strcmp(units, "number"))
		return u;
	if (!strcmp(units, "ns"))
		u.kind = GPM_TRACE_UNIT_TIME_NS;
	else if (!strcmp(units, "bytes"))
		u.kind = GPM_TRACE_UNIT_BYTES;
	else
		u.name = units;
	return u;
}

int gpm_trace_layout_set(struct gpm_trace_layout *l, const char *set_name,
			 const char *symbol, const char *guid,
			 uint64_t window_ns, uint64_t period_ns,
			 const struct gpm_trace_counter_spec *counters, size_t n)
{
	char text[512], window[64], period[64];
	struct gpm_trace_writer *w = l->w;
	uint64_t *uuids;

	if (window_ns) {
		char d[32];
		duration_text(d, sizeof(d), window_ns);
		snprintf(window, sizeof(window), "per window of %s", d);
	} else {
		snprintf(window, sizeof(window), "per marked window");
	}
	period[0] = '\0';
	if (period_ns) {
		char d[32];
		duration_text(d, sizeof(d), period_ns);
		snprintf(period, sizeof(period), ", sampled every %s", d);
	}
	snprintf(text, sizeof(text), "Metric set %s (%s)%s; values %s.",
		 symbol, guid, period, window);
	uuids = calloc(n ? n : 1, sizeof(*uuids));
	if (!uuids)
		return -ENOMEM;
	l->set = gpm_trace_ordered_track(w, l->device, set_name, text,
					 (int)l->n_sets++);
	if (!l->set) {
		free(uuids);
		return -ENOSPC;
	}
	snprintf(text, sizeof(text), "reports: OA report pairs summed, %s.",
		 window);
	l->reports = gpm_trace_counter_track(w, l->set, "reports", text, -1,
					     GPM_TRACE_COUNTER_INT,
					     (struct gpm_trace_unit){
						     .kind = GPM_TRACE_UNIT_COUNT });
	int ret = l->reports ? 0 : -ENOSPC;
	for (size_t i = 0; !ret && i < n; i++) {
		const struct gpm_trace_counter_spec *c = &counters[i];
		const char *units = c->units && c->units[0] ? c->units : "no unit";
		snprintf(text, sizeof(text), "%s: %s%s(%s, %s%s)", c->symbol,
			 c->description ? c->description : "",
			 c->description && c->description[0] ? " " : "",
			 units, window, c->kind == GPM_TRACE_COUNTER_FLOAT ?
			 ", float precision" : "");
		uuids[i] = gpm_trace_counter_track(w, l->set, c->name, text,
						   (int)i, c->kind,
						   gpm_trace_unit_from_xml(c->units));
		if (!uuids[i])
			ret = -ENOSPC;
	}
	if (!ret)
		ret = gpm_trace_set_window_counters(w, l->reports, uuids, n);
	free(uuids);
	return ret;
}

void gpm_trace_layout_context_name(char *buf, size_t size, uint32_t ctx_id)
{
	snprintf(buf, size, "context 0x%" PRIx32, ctx_id);
}

uint64_t gpm_trace_layout_context(struct gpm_trace_layout *l, uint32_t ctx_id)
{
	char name[64];

	for (size_t i = 0; i < l->n_contexts; i++)
		if (l->context[i].ctx_id == ctx_id)
			return l->context[i].track;
	if (!l->contexts) {
		l->contexts = gpm_trace_ordered_track(
			l->w, l->device, "GPU contexts",
			"Per hardware context, the spans of GPU time in which "
			"it ran, from the OA reports' context IDs.", 1000);
		if (!l->contexts)
			return 0;
	}
	if (l->n_contexts == GPM_TRACE_LAYOUT_MAX_CONTEXTS) {
		if (!l->other_contexts)
			l->other_contexts = gpm_trace_track(
				l->w, l->contexts, "other contexts",
				"Contexts past the first 256, together.",
				GPM_TRACE_LAYOUT_MAX_CONTEXTS);
		return l->other_contexts;
	}
	gpm_trace_layout_context_name(name, sizeof(name), ctx_id);
	uint64_t track = gpm_trace_track(l->w, l->contexts, name, NULL,
					 (int)l->n_contexts);
	if (!track)
		return 0;
	l->context[l->n_contexts].ctx_id = ctx_id;
	l->context[l->n_contexts].track = track;
	l->n_contexts++;
	return track;
}

uint64_t gpm_trace_layout_marks(struct gpm_trace_layout *l)
{
	if (!l->marks)
		l->marks = gpm_trace_track(l->w, l->device, "marks",
					   "Mark BEGIN..END windows; gpuperf "
					   "run's is its command.", 1001);
	return l->marks;
}

int gpm_trace_layout_configuration(struct gpm_trace_layout *l, uint64_t ts,
				   bool changed, const char *symbol,
				   const char *guid, uint64_t window_ns,
				   uint64_t period_ns)
{
	struct gpm_trace_arg args[4] = {
		{ .name = "metric_set", .type = GPM_TRACE_ARG_STRING, .s = symbol },
		{ .name = "metric_set_guid", .type = GPM_TRACE_ARG_STRING, .s = guid },
		{ .name = "window_ns", .type = GPM_TRACE_ARG_UINT, .u = window_ns },
		{ .name = "sampling_period_ns", .type = GPM_TRACE_ARG_UINT,
		  .u = period_ns },
	};
	return gpm_trace_instant(l->w, l->device, ts, changed ?
				 "configuration changed" : "configuration",
				 args, period_ns ? 4 : 3);
}

static int loss(struct gpm_trace_layout *l, uint64_t ts, const char *name,
		uint64_t count)
{
	struct gpm_trace_arg arg = {
		.name = "count", .type = GPM_TRACE_ARG_UINT, .u = count,
	};
	return count ? gpm_trace_instant(l->w, l->device, ts, name, &arg, 1) : 0;
}

int gpm_trace_layout_losses(struct gpm_trace_layout *l, uint64_t ts,
			    uint64_t reports_lost, uint64_t buffers_lost,
			    uint64_t frames_dropped)
{
	int ret = loss(l, ts, "OA reports lost", reports_lost);
	if (!ret)
		ret = loss(l, ts, "OA buffer lost", buffers_lost);
	if (!ret)
		ret = loss(l, ts, "frames dropped", frames_dropped);
	return ret;
}
