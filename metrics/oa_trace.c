/*
 * A recording's OA stream as a Perfetto trace (see oa_trace.h).
 *
 * Two windowers see every report: one cuts the counters' intervals, the
 * other the runs of one context. Reports go in one at a time, so what the
 * two hand out interleaves the same way however the records came.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/little_endian.h"
#include "metrics/oa_record.h"
#include "metrics/oa_trace.h"
#include "metrics/oa_window.h"
#include "metrics/recording_internal.h"
#include "metrics/timestamp_correlation.h"
#include "metrics/trace_layout.h"

/* Correlation points waiting for a report to place them. */
#define MAX_PENDING_POINTS 4

struct gpm_oa_trace {
	struct gpm_oa_trace_options opt;
	struct gpm_trace_writer writer;
	bool writer_ready;
	struct gpm_trace_layout layout;
	int failed;

	struct gpm_oa_windower intervals;
	struct gpm_oa_windower runs;
	struct gpm_ts_correlation correlation;
	struct gpm_recording_correlation pending[MAX_PENDING_POINTS];
	size_t n_pending;
	bool have_boottime_offset;
	uint64_t boottime_offset;       /* BOOTTIME - MONOTONIC */
	bool clock_guessed;

	bool started;                   /* the first report came */
	uint64_t last_line;             /* the last report's ticks */
	uint64_t reports_lost, buffers_lost;    /* not yet shown */
	uint64_t windows;

	struct gpm_value *values;       /* one per counter of the set */
	union gpm_trace_value *window_values;
};

static uint64_t ticks_to_ns(const struct gpm_oa_trace *t, uint64_t ticks)
{
	uint64_t f = t->opt.timestamp_frequency;
	return f ? (uint64_t)((unsigned __int128)ticks * 1000000000u / f) : 0;
}

static int check(struct gpm_oa_trace *t, int ret)
{
	if (ret && !t->failed)
		t->failed = ret;
	return t->failed;
}

static void on_interval(void *data, const struct gpm_oa_window *win)
{
	struct gpm_oa_trace *t = data;
	const struct gpm_binding *b = t->opt.binding;

	if (t->failed || !win->n_reports)
		return;
	gpm_binding_evaluate(b, &win->acc, t->values);
	for (size_t i = 0; i < t->opt.n_counters; i++) {
		unsigned c = t->opt.counters[i];
		struct gpm_value v = t->values[c];
		if (gpm_counter_value_type(b->set->counters[c].data_type) ==
		    GPM_VALUE_DOUBLE) {
			t->window_values[i].d = gpm_value_as_double(v);
		} else {
			uint64_t u = gpm_value_as_u64(v);
			t->window_values[i].i = u > INT64_MAX ? INT64_MAX : (int64_t)u;
		}
	}
	check(t, gpm_trace_window(&t->writer, ticks_to_ns(t, win->start_ts),
				  win->n_reports, t->window_values));
	t->windows++;
}

static void on_run(void *data, const struct gpm_oa_window *win)
{
	struct gpm_oa_trace *t = data;
	char name[64];

	/* Where reports carry no context ID (Haswell's), the field's bytes
	 * name no context, and the trace shows none. */
	if (t->failed || !win->n_reports || win->ctx_id == GPM_OA_CTX_NONE ||
	    !t->opt.decoder->has_context)
		return;
	uint64_t track = gpm_trace_layout_context(&t->layout, win->ctx_id);
	if (!track)
		return;
	struct gpm_trace_arg arg = {
		.name = "reports", .type = GPM_TRACE_ARG_UINT, .u = win->n_reports,
	};
	gpm_trace_layout_context_name(name, sizeof(name), win->ctx_id);
	if (!check(t, gpm_trace_slice_begin(&t->writer, track,
					    ticks_to_ns(t, win->start_ts), name,
					    &arg, 1)))
		check(t, gpm_trace_slice_end(&t->writer, track,
					     ticks_to_ns(t, win->end_ts)));
}

int gpm_oa_trace_create(const struct gpm_oa_trace_options *options,
			struct gpm_oa_trace **out)
{
	*out = NULL;
	if (!options->decoder || !options->binding || !options->interval_ns ||
	    !options->timestamp_frequency)
		return -EINVAL;
	struct gpm_oa_trace *t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->opt = *options;
	size_t n_set = options->binding->set->n_counters;
	t->values = calloc(n_set ? n_set : 1, sizeof(*t->values));
	t->window_values = calloc(options->n_counters ? options->n_counters : 1,
				  sizeof(*t->window_values));
	if (!t->values || !t->window_values) {
		gpm_oa_trace_destroy(t);
		return -ENOMEM;
	}
	unsigned __int128 ticks = (unsigned __int128)options->interval_ns *
				  options->timestamp_frequency / 1000000000u;
	uint64_t interval = ticks ? (ticks > UINT64_MAX ? UINT64_MAX :
				     (uint64_t)ticks) : 1;
	if (gpm_oa_windower_init(&t->intervals, options->decoder,
				 GPM_OA_WINDOW_INTERVAL, interval, on_interval, t) ||
	    gpm_oa_windower_init(&t->runs, options->decoder,
				 GPM_OA_WINDOW_CONTEXT, 0, on_run, t)) {
		gpm_oa_trace_destroy(t);
		return -EINVAL;
	}
	gpm_ts_correlation_init(&t->correlation, options->timestamp_frequency,
				options->decoder->ts_mask);
	*out = t;
	return 0;
}

void gpm_oa_trace_destroy(struct gpm_oa_trace *t)
{
	if (!t)
		return;
	if (t->writer_ready)
		gpm_trace_writer_fini(&t->writer);
	free(t->values);
	free(t->window_values);
	free(t);
}

/* Names the trace after what the first report says of its device: two
 * GPUs, or two captures, get different sequences and tracks. */
static uint64_t identity(const struct gpm_oa_trace *t, const void *report,
			 size_t size)
{
	uint64_t h = 1469598103934665603ull ^ t->opt.pci_id;
	const unsigned char *p = report;
	for (size_t i = 0; i < size && i < 16; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static int start(struct gpm_oa_trace *t, const void *report, size_t size)
{
	const struct gpm_metric_set *set = t->opt.binding->set;
	struct gpm_trace_counter_spec *specs;
	char description[128];

	if (gpm_trace_writer_init(&t->writer, identity(t, report, size),
				  t->opt.write, t->opt.ctx))
		return -ENOMEM;
	t->writer_ready = true;
	specs = calloc(t->opt.n_counters ? t->opt.n_counters : 1, sizeof(*specs));
	if (!specs)
		return -ENOMEM;
	for (size_t i = 0; i < t->opt.n_counters; i++) {
		const struct gpm_counter *c = &set->counters[t->opt.counters[i]];
		specs[i].symbol = c->symbol_name;
		specs[i].name = c->name;
		specs[i].description = c->description;
		specs[i].units = c->units;
		specs[i].kind = gpm_trace_kind_of(c->data_type);
	}
	snprintf(description, sizeof(description), "GPU, PCI id 0x%04" PRIx32
		 "; GPU timestamps at %" PRIu64 " Hz.", t->opt.pci_id,
		 t->opt.timestamp_frequency);
	int ret = gpm_trace_layout_init(&t->layout, &t->writer,
					t->opt.device_label, description);
	if (!ret)
		ret = gpm_trace_layout_set(&t->layout, set->name, set->symbol_name,
					   set->hw_config_guid, t->opt.interval_ns,
					   0, specs, t->opt.n_counters);
	free(specs);
	return ret;
}

/* Snapshots the correlation points that the reports have placed. */
static void snapshot_points(struct gpm_oa_trace *t)
{
	size_t kept = 0;

	for (size_t i = 0; i < t->n_pending; i++) {
		const struct gpm_recording_correlation *p = &t->pending[i];
		uint64_t line;
		if (gpm_ts_correlation_line(&t->correlation, p->gpu_timestamp,
					    &line) < 0) {
			t->pending[kept++] = *p;
			continue;
		}
		check(t, gpm_trace_clock_snapshot(
			      &t->writer, ticks_to_ns(t, line), p->cpu_ns,
			      t->have_boottime_offset,
			      p->cpu_ns + t->boottime_offset));
	}
	t->n_pending = kept;
}

/* After a report: where its time lies, the points it places, what it
 * shows of the losses before it. */
static void after_report(struct gpm_oa_trace *t, bool first)
{
	const struct gpm_oa_ts_extender *ts = &t->intervals.ts;

	gpm_ts_correlation_report(&t->correlation, ts->last, ts->extended);
	t->last_line = ts->extended;
	if (t->n_pending)
		snapshot_points(t);
	if (first && !gpm_trace_clock_known(&t->writer)) {
		/* Nothing places the GPU on a CPU clock: say the two agree
		 * rather than leave every event unplaceable. */
		t->clock_guessed = true;
		uint64_t ns = ticks_to_ns(t, ts->extended);
		check(t, gpm_trace_clock_snapshot(&t->writer, ns, ns, false, 0));
	}
	uint64_t now = ticks_to_ns(t, ts->extended);
	if (first) {
		const struct gpm_metric_set *set = t->opt.binding->set;
		check(t, gpm_trace_layout_configuration(
			      &t->layout, now, false, set->symbol_name,
			      set->hw_config_guid, t->opt.interval_ns, 0));
	}
	if (t->reports_lost || t->buffers_lost) {
		check(t, gpm_trace_layout_losses(&t->layout, now, t->reports_lost,
						 t->buffers_lost, 0));
		t->reports_lost = t->buffers_lost = 0;
	}
}

int gpm_oa_trace_sample(struct gpm_oa_trace *t, const void *report, size_t size)
{
	if (t->failed)
		return t->failed;
	bool first = !t->started;
	if (first) {
		if (check(t, start(t, report, size)))
			return t->failed;
		t->started = true;
	}
	uint64_t fed_before = t->intervals.ts.started;
	int ret = gpm_oa_windower_feed(&t->intervals, report, size);
	if (ret < 0) {
		/* Undecodable: the windows passed over it; so does the trace. */
		return t->failed;
	}
	gpm_oa_windower_feed(&t->runs, report, size);
	after_report(t, !fed_before);
	return t->failed;
}

int gpm_oa_trace_loss(struct gpm_oa_trace *t, unsigned losses)
{
	if (t->failed)
		return t->failed;
	gpm_oa_windower_loss(&t->intervals, losses);
	gpm_oa_windower_loss(&t->runs, losses);
	if (losses & GPM_OA_LOSS_REPORT)
		t->reports_lost++;
	if (losses & GPM_OA_LOSS_BUFFER)
		t->buffers_lost++;
	return 0;
}

int gpm_oa_trace_correlation(struct gpm_oa_trace *t,
			     const struct gpm_recording_correlation *c)
{
	if (t->failed)
		return t->failed;
	gpm_ts_correlation_point(&t->correlation, c);
	if (t->n_pending == MAX_PENDING_POINTS) {
		memmove(t->pending, t->pending + 1,
			(MAX_PENDING_POINTS - 1) * sizeof(t->pending[0]));
		t->n_pending--;
	}
	t->pending[t->n_pending++] = *c;
	/* A point after a report is placed at once. */
	if (t->started && t->intervals.ts.started)
		snapshot_points(t);
	return t->failed;
}

int gpm_oa_trace_clocks(struct gpm_oa_trace *t,
			const struct gpm_recording_clocks *c)
{
	t->boottime_offset = c->boottime_ns - c->monotonic_ns;
	t->have_boottime_offset = true;
	return t->failed;
}

int gpm_oa_trace_records(struct gpm_oa_trace *t, const void *data, size_t len)
{
	const unsigned char *p = data;

	while (len && !t->failed) {
		if (len < GPM_RECORDING_HEADER_SIZE)
			return check(t, -EBADMSG);
		uint32_t type = gpm__le32_load(p + GPM__REC_HDR_TYPE);
		size_t size = gpm__le16_load(p + GPM__REC_HDR_SIZE);
		if (size < GPM_RECORDING_HEADER_SIZE || size > len)
			return check(t, -EBADMSG);
		const unsigned char *payload = p + GPM_RECORDING_HEADER_SIZE;
		size_t payload_size = size - GPM_RECORDING_HEADER_SIZE;
		switch (type) {
		case GPM_OA_RECORD_SAMPLE:
			gpm_oa_trace_sample(t, payload, payload_size);
			break;
		case GPM_OA_RECORD_REPORT_LOST:
			gpm_oa_trace_loss(t, GPM_OA_LOSS_REPORT);
			break;
		case GPM_OA_RECORD_BUFFER_LOST:
			gpm_oa_trace_loss(t, GPM_OA_LOSS_BUFFER);
			break;
		case GPM_RECORDING_TYPE_TIMESTAMP_CORRELATION: {
			if (size != GPM_RECORDING_CORRELATION_SIZE)
				return check(t, -EBADMSG);
			struct gpm_recording_correlation c = {
				.cpu_ns = gpm__le64_load(payload + GPM__CORR_CPU),
				.gpu_timestamp = gpm__le64_load(payload + GPM__CORR_GPU),
			};
			gpm_oa_trace_correlation(t, &c);
			break;
		}
		case GPM_RECORDING_TYPE_CLOCKS: {
			if (size != GPM_RECORDING_CLOCKS_SIZE)
				return check(t, -EBADMSG);
			struct gpm_recording_clocks c = {
				.monotonic_ns = gpm__le64_load(payload + GPM__CLOCKS_MONOTONIC),
				.boottime_ns = gpm__le64_load(payload + GPM__CLOCKS_BOOTTIME),
			};
			gpm_oa_trace_clocks(t, &c);
			break;
		}
		default:
			/* VERSION, DEVICE_INFO, DEVICE_TOPOLOGY: the options
			 * say it; the reader passes unknown types over too. */
			break;
		}
		p += size;
		len -= size;
	}
	return t->failed;
}

int gpm_oa_trace_finish(struct gpm_oa_trace *t)
{
	if (t->failed || !t->started)
		return t->failed;
	gpm_oa_windower_flush(&t->intervals);
	gpm_oa_windower_flush(&t->runs);
	if (t->n_pending)
		snapshot_points(t);
	if (t->reports_lost || t->buffers_lost) {
		check(t, gpm_trace_layout_losses(&t->layout,
						 ticks_to_ns(t, t->last_line),
						 t->reports_lost, t->buffers_lost, 0));
		t->reports_lost = t->buffers_lost = 0;
	}
	return check(t, gpm_trace_flush(&t->writer));
}

bool gpm_oa_trace_clock_guessed(const struct gpm_oa_trace *t)
{
	return t->clock_guessed;
}

uint64_t gpm_oa_trace_windows(const struct gpm_oa_trace *t)
{
	return t->windows;
}

void gpm_oa_trace_label(char *buf, size_t size, const char *description,
			uint32_t pci_id)
{
	snprintf(buf, size, "%s (PCI 0x%04" PRIx32 ")", description, pci_id);
}

uint64_t gpm_oa_trace_device_track(const struct gpm_oa_trace *t)
{
	return t->writer_ready ? t->layout.device : 0;
}
