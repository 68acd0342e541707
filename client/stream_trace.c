/*
 * A subscription's frames as a Perfetto trace (see stream_trace.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "client/stream_trace.h"
#include "metrics/oa_trace.h"

/* Clock snapshots come at least this far apart in GPU time; the trace is
 * flushed with each, so whoever reads it as it is written lags by that. */
#define SNAPSHOT_EVERY_NS 1000000000ull

/* Arguments of the marked window's slice: its counts, then counters. */
#define MARK_COUNT_ARGS 3
#define MARK_MAX_ARGS GPM_TRACE_MAX_ARGS

static int write_out(void *ctx, const void *data, size_t len)
{
	struct gpuperf_stream_trace *t = ctx;
	if (fwrite(data, 1, len, t->out) != len || fflush(t->out))
		return -(errno ? errno : EIO);
	return 0;
}

void gpuperf_stream_trace_init(struct gpuperf_stream_trace *t, FILE *out,
			       struct gpc_client *client,
			       const struct gpc_subscription *sub,
			       const char *mark_name)
{
	memset(t, 0, sizeof(*t));
	t->out = out;
	t->client = client;
	t->sub = sub;
	t->mark_name = mark_name ? mark_name : "mark";
}

static void free_counters(struct gpuperf_stream_trace *t)
{
	for (size_t i = 0; i < t->n_counters; i++)
		free(t->counter_symbols[i]);
	free(t->counter_symbols);
	free(t->is_double);
	free(t->values);
	t->counter_symbols = NULL;
	t->is_double = NULL;
	t->values = NULL;
	t->n_counters = 0;
}

void gpuperf_stream_trace_fini(struct gpuperf_stream_trace *t)
{
	if (t->started) {
		gpm_usage_trace_fini(&t->usage);
		gpm_trace_writer_fini(&t->writer);
	}
	free_counters(t);
	t->started = false;
}

/* Whether the subscription's counters are still the layout's. */
static bool same_counters(const struct gpuperf_stream_trace *t,
			  const struct gpc_subscription_info *info)
{
	if (info->n_counters != t->n_counters)
		return false;
	for (size_t i = 0; i < t->n_counters; i++)
		if (strcmp(info->counters[i], t->counter_symbols[i]))
			return false;
	return true;
}

/* The tracks of the subscription's configuration now. */
static int show_configuration(struct gpuperf_stream_trace *t,
			      const struct gpc_frame *f, bool changed)
{
	const struct gpc_subscription_info *info = gpc_subscription_info(t->sub);
	const struct gpc_device *d = gpc_find_device(t->client, info->device);
	const struct gpc_metric_set *set = d ? gpc_find_metric_set(d, info->metric_set)
					     : NULL;
	size_t n = info->n_counters;

	free_counters(t);
	struct gpm_trace_counter_spec *specs = calloc(n ? n : 1, sizeof(*specs));
	t->counter_symbols = calloc(n ? n : 1, sizeof(*t->counter_symbols));
	t->is_double = calloc(n ? n : 1, sizeof(*t->is_double));
	t->values = calloc(n ? n : 1, sizeof(*t->values));
	if (!specs || !t->counter_symbols || !t->is_double || !t->values) {
		free(specs);
		return -ENOMEM;
	}
	t->n_counters = n;
	for (size_t i = 0; i < n; i++) {
		const struct gpc_counter *c = set ? gpc_find_counter(set, info->counters[i])
						  : NULL;
		t->counter_symbols[i] = strdup(info->counters[i]);
		if (!t->counter_symbols[i]) {
			free(specs);
			return -ENOMEM;
		}
		specs[i].symbol = info->counters[i];
		specs[i].name = c ? c->name : info->counters[i];
		specs[i].description = c ? c->description : "";
		specs[i].units = c ? c->units : "";
		specs[i].kind = !c ? GPM_TRACE_COUNTER_DOUBLE :
				c->data_type == GPC_DATA_FLOAT ? GPM_TRACE_COUNTER_FLOAT :
				c->data_type == GPC_DATA_DOUBLE ? GPM_TRACE_COUNTER_DOUBLE :
				GPM_TRACE_COUNTER_INT;
		t->is_double[i] = specs[i].kind != GPM_TRACE_COUNTER_INT;
	}
	int ret = gpm_trace_layout_set(&t->layout, set ? set->name : info->metric_set,
				       info->metric_set, set ? set->guid : "",
				       info->window_ns, info->sampling_period_ns,
				       specs, n);
	free(specs);
	if (!ret)
		ret = gpm_trace_layout_configuration(&t->layout, f->gpu_start_ns,
						     changed, info->metric_set,
						     set ? set->guid : "",
						     info->window_ns,
						     info->sampling_period_ns);
	return ret;
}

static int snapshot(struct gpuperf_stream_trace *t, const struct gpc_frame *f)
{
	t->last_snapshot_gpu_ns = f->gpu_start_ns;
	int ret = gpm_trace_clock_snapshot(&t->writer, f->gpu_start_ns,
					   f->cpu_start_ns, f->has_boottime,
					   f->cpu_start_boottime_ns);
	return ret ? ret : gpm_trace_flush(&t->writer);
}

/* The writer and the device's track, at the first frame of either
 * stream: time is the daemon's CLOCK_MONOTONIC then. */
static int start(struct gpuperf_stream_trace *t, const char *device,
		 uint64_t time)
{
	const struct gpc_device *d = gpc_find_device(t->client, device);
	char label[160], description[160];
	uint64_t identity = 1469598103934665603ull ^ time;

	for (const char *p = device; *p; p++)
		identity = (identity ^ (unsigned char)*p) * 1099511628211ull;
	if (gpm_trace_writer_init(&t->writer, identity, write_out, t))
		return -ENOMEM;
	t->started = true;
	gpm_oa_trace_label(label, sizeof(label), d ? d->description : device,
			   d ? d->pci_id : 0);
	snprintf(description, sizeof(description), "GPU %s of the daemon, as "
		 "it streamed frames.", device);
	int ret = gpm_trace_layout_init(&t->layout, &t->writer, label,
					description);
	gpm_usage_trace_init(&t->usage, &t->writer, t->layout.device);
	return ret;
}

static int mark(struct gpuperf_stream_trace *t, const struct gpc_frame *f)
{
	struct gpm_trace_arg args[MARK_MAX_ARGS];
	size_t n = 0;

	args[n++] = (struct gpm_trace_arg){ .name = "reports",
		.type = GPM_TRACE_ARG_UINT, .u = f->reports };
	args[n++] = (struct gpm_trace_arg){ .name = "lost",
		.type = GPM_TRACE_ARG_UINT, .u = f->lost_reports };
	args[n++] = (struct gpm_trace_arg){ .name = "buffers_lost",
		.type = GPM_TRACE_ARG_UINT, .u = f->buffer_lost };
	for (size_t i = 0; i < f->n_values && i < t->n_counters &&
	     n < MARK_MAX_ARGS; i++)
		args[n++] = (struct gpm_trace_arg){
			.name = t->counter_symbols[i],
			.type = GPM_TRACE_ARG_DOUBLE, .d = f->values[i] };
	uint64_t track = gpm_trace_layout_marks(&t->layout);
	if (!track)
		return -ENOSPC;
	int ret = gpm_trace_slice_begin(&t->writer, track, f->gpu_start_ns,
					t->mark_name, args, n);
	return ret ? ret : gpm_trace_slice_end(&t->writer, track, f->gpu_end_ns);
}

int gpuperf_stream_trace_frame(struct gpuperf_stream_trace *t,
			       const struct gpc_frame *f)
{
	int ret = 0;

	if (!t->started)
		ret = start(t, f->device, f->cpu_start_ns);
	if (!ret && !t->frames) {
		ret = snapshot(t, f);
		if (!ret)
			ret = show_configuration(t, f, false);
	} else if (!ret && f->gpu_start_ns - t->last_snapshot_gpu_ns >=
		   SNAPSHOT_EVERY_NS) {
		ret = snapshot(t, f);
	}
	if (!ret && t->config_changed) {
		t->config_changed = false;
		if (!same_counters(t, gpc_subscription_info(t->sub)))
			ret = show_configuration(t, f, true);
	}
	if (ret)
		return ret;
	t->frames++;
	t->reports += f->reports;
	t->lost += f->lost_reports;
	t->buffers_lost += f->buffer_lost;
	t->dropped += f->frames_dropped;
	ret = gpm_trace_layout_losses(&t->layout, f->gpu_start_ns, f->lost_reports,
				      f->buffer_lost, f->frames_dropped);
	if (ret || f->mark)
		return ret ? ret : mark(t, f);
	for (size_t i = 0; i < t->n_counters; i++) {
		double v = i < f->n_values ? f->values[i] : NAN;
		if (t->is_double[i])
			t->values[i].d = v;
		else
			t->values[i].i = isfinite(v) ? (int64_t)v : 0;
	}
	t->windows++;
	t->gpu_ns += f->gpu_end_ns - f->gpu_start_ns;
	return gpm_trace_window(&t->writer, f->gpu_start_ns, f->reports, t->values);
}

/* A usage frame as the trace's usage tracks take it. */
static int usage_frame(struct gpm_usage_trace *usage,
		       const struct gpc_usage_frame *f)
{
	struct gpm_usage_trace_frame u = {
		.start_ns = f->cpu_start_ns,
		.end_ns = f->cpu_end_ns,
		.n_engines = f->n_engines,
		.n_engine_classes = f->n_engine_classes,
		.engine_classes = f->engine_classes,
		.actual_frequency_hz = f->actual_frequency_hz,
		.requested_frequency_hz = f->requested_frequency_hz,
		.min_frequency_hz = f->min_frequency_hz,
		.max_frequency_hz = f->max_frequency_hz,
		.rc6 = f->rc6,
		.power_watts = f->power_watts,
		.energy_joules = f->energy_joules,
		.temperature_celsius = f->temperature_celsius,
		.n_gauges = f->n_gauges,
		.processes_included = f->processes_included,
		.n_processes = f->n_processes,
		.processes_unreadable = f->processes_unreadable,
		.processes_note = f->processes_note,
		.note = f->note,
		.frames_dropped = f->frames_dropped,
	};
	struct gpm_usage_trace_engine *engines =
		calloc(f->n_engines + 1, sizeof(*engines));
	struct gpm_usage_trace_gauge *gauges =
		calloc(f->n_gauges + 1, sizeof(*gauges));
	struct gpm_usage_trace_process *processes =
		calloc(f->n_processes + 1, sizeof(*processes));
	int ret = -ENOMEM;

	if (engines && gauges && processes) {
		for (size_t i = 0; i < f->n_engines; i++)
			engines[i] = (struct gpm_usage_trace_engine){
				f->engines[i].name, f->engines[i].engine_class,
				f->engines[i].busy, f->engines[i].wait,
				f->engines[i].sema };
		for (size_t i = 0; i < f->n_gauges; i++)
			gauges[i] = (struct gpm_usage_trace_gauge){
				f->gauges[i].name, f->gauges[i].unit,
				f->gauges[i].value };
		for (size_t i = 0; i < f->n_processes; i++) {
			const struct gpc_process_usage *p = &f->processes[i];
			processes[i] = (struct gpm_usage_trace_process){
				p->pid, p->ppid, p->command, p->n_class_busy,
				p->class_busy, p->gpu_time_ns, p->memory_bytes,
				p->resident_bytes };
		}
		u.engines = engines;
		u.gauges = gauges;
		u.processes = processes;
		ret = gpm_usage_trace_frame(usage, &u);
	}
	free(engines);
	free(gauges);
	free(processes);
	return ret;
}

int gpuperf_stream_trace_usage(struct gpuperf_stream_trace *t,
			       const struct gpc_usage_frame *f)
{
	int ret = 0;

	if (!t->started)
		ret = start(t, f->device, f->cpu_start_ns);
	/* Before the first frame, nothing relates the GPU's clock yet: the
	 * usage frame's own times place it. */
	if (!ret && !gpm_trace_clock_known(&t->writer))
		ret = gpm_trace_cpu_clock_snapshot(&t->writer, f->cpu_start_ns,
						   f->has_boottime,
						   f->cpu_start_boottime_ns);
	if (ret)
		return ret;
	t->usage_frames++;
	return usage_frame(&t->usage, f);
}

void gpuperf_stream_trace_config_changed(struct gpuperf_stream_trace *t)
{
	t->config_changed = true;
}

int gpuperf_stream_trace_finish(struct gpuperf_stream_trace *t)
{
	return t->started ? gpm_trace_flush(&t->writer) : 0;
}

void gpuperf_stream_trace_summary(const struct gpuperf_stream_trace *t,
				  const char *cmd)
{
	if (t->lost || t->buffers_lost || t->dropped)
		fprintf(stderr, "gpuperf %s: lost %" PRIu64 " reports and %"
			PRIu64 " buffers, dropped %" PRIu64 " frames (instant "
			"events on the device's track)\n", cmd, t->lost,
			t->buffers_lost, t->dropped);
	if (!t->frames)
		fprintf(stderr, "gpuperf %s: no frame came: the trace %s\n", cmd,
			t->usage_frames ? "has only the device's usage" :
			"is empty");
}
