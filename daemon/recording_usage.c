/*
 * A recording trace's usage sequence (see recording_usage.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/clock.h"
#include "daemon/recording_usage.h"
#include "daemon/usage_monitor.h"
#include "metrics/usage_trace.h"

struct gpd_recording_usage {
	struct gpd_recording_usage_options o;
	uint64_t interval_ns;           /* 0: no usage stream */
	char note[256];
	bool started;
	struct gpm_trace_writer writer;
	bool writer_ready;
	struct gpm_usage_trace trace;
	struct gpd_usage_subscription *sub;
	int failed;
};

static void unsubscribe(struct gpd_recording_usage *u)
{
	if (u->sub)
		gpd_usage_unsubscribe(u->sub);
	u->sub = NULL;
}

static void fail(struct gpd_recording_usage *u, int err)
{
	if (u->failed)
		return;
	u->failed = err;
	unsubscribe(u);
	u->o.failed(u->o.ctx, err);
}

/* The frame as the usage tracks take it: what the daemon sends a client
 * of the same visibility in a UsageFrame. */
static int write_frame(struct gpd_recording_usage *u,
		       const struct gpd_usage_frame *f)
{
	const struct gpd_usage_layout *layout =
		gpd_usage_monitor_layout(u->o.dev->usage);
	bool full = u->o.processes == GPD_RECORDER_PROCESSES_FULL;
	bool rows = u->o.processes != GPD_RECORDER_PROCESSES_NONE &&
		    f->processes_read;
	size_t n_rows = rows ? f->n_processes : 0;
	struct gpm_usage_trace_engine engines[GPD_USAGE_MAX_ENGINES];
	const char *classes[GPD_USAGE_MAX_CLASSES];
	struct gpm_usage_trace_gauge gauges[GPD_USAGE_MAX_GAUGES];
	struct gpm_usage_trace_process *processes =
		calloc(n_rows + 1, sizeof(*processes));

	if (!processes)
		return -ENOMEM;
	for (unsigned i = 0; i < layout->n_engines; i++)
		engines[i] = (struct gpm_usage_trace_engine){
			layout->engines[i].name,
			layout->classes[layout->engines[i].class_index],
			f->engines[i].busy, f->engines[i].wait,
			f->engines[i].sema };
	for (unsigned k = 0; k < layout->n_classes; k++)
		classes[k] = layout->classes[k];
	for (unsigned g = 0; g < layout->n_gauges; g++)
		gauges[g] = (struct gpm_usage_trace_gauge){
			layout->gauges[g].name, layout->gauges[g].unit,
			f->gauges[g] };
	for (size_t i = 0; i < n_rows; i++) {
		const struct gpd_usage_process_row *row = &f->processes[i];
		processes[i] = (struct gpm_usage_trace_process){
			.pid = full ? (uint32_t)row->pid : 0,
			.ppid = full ? (uint32_t)row->ppid : 0,
			.command = full ? row->command : "",
			.n_class_busy = layout->n_classes,
			.class_busy = row->class_busy,
			.gpu_time_ns = row->gpu_time_ns,
			.memory_bytes = row->memory_bytes,
			.resident_bytes = row->resident_bytes,
		};
	}
	struct gpm_usage_trace_frame frame = {
		.start_ns = f->start_ns,
		.end_ns = f->end_ns,
		.n_engines = layout->n_engines,
		.engines = engines,
		.n_engine_classes = layout->n_classes,
		.engine_classes = classes,
		.actual_frequency_hz = f->actual_freq_hz,
		.requested_frequency_hz = f->requested_freq_hz,
		.min_frequency_hz = f->min_freq_hz,
		.max_frequency_hz = f->max_freq_hz,
		.rc6 = f->rc6,
		.power_watts = f->power_w,
		.energy_joules = f->energy_j,
		.temperature_celsius = f->temperature_c,
		.n_gauges = layout->n_gauges,
		.gauges = gauges,
		.processes_included = rows,
		.n_processes = n_rows,
		.processes = processes,
		.processes_unreadable = f->processes_unreadable,
		.processes_note = f->processes_note,
		.note = f->note,
	};
	/* A snapshot with each frame: a suspend during the recording moves
	 * BOOTTIME away from CLOCK_MONOTONIC. */
	int ret = gpm_trace_cpu_clock_snapshot(&u->writer, f->start_ns, true,
					       gpd_boottime_at(f->start_ns));
	if (!ret)
		ret = gpm_usage_trace_frame(&u->trace, &frame);
	free(processes);
	return ret;
}

static void on_usage_frame(void *user, const struct gpd_usage_frame *f)
{
	struct gpd_recording_usage *u = user;
	int ret = write_frame(u, f);
	if (ret)
		fail(u, ret);
}

static const struct gpd_usage_subscriber_ops recording_usage_ops = {
	.frame = on_usage_frame,
};

int gpd_recording_usage_create(const struct gpd_recording_usage_options *o,
			      struct gpd_recording_usage **out)
{
	struct gpd_recording_usage *u = calloc(1, sizeof(*u));
	*out = NULL;
	if (!u)
		return -ENOMEM;
	u->o = *o;
	if (o->dev->usage)
		u->interval_ns = o->interval_ns ? o->interval_ns :
				 GPD_USAGE_DEFAULT_INTERVAL_NS;
	else
		gpd_device_no_usage_reason(o->dev, u->note, sizeof(u->note));
	*out = u;
	return 0;
}

int gpd_recording_usage_start(struct gpd_recording_usage *u,
			     uint64_t device_track)
{
	if (u->started)
		return 0;
	u->started = true;
	/* Its own sequence, named after the trace's device track, which
	 * names the capture. */
	int ret = gpm_trace_writer_init(&u->writer, device_track ^
					0x7573616765ull /* "usage" */,
					u->o.write, u->o.ctx);
	if (ret)
		return ret;
	u->writer_ready = true;
	ret = gpm_trace_parent_elsewhere(&u->writer, device_track);
	if (ret)
		return ret;
	gpm_usage_trace_init(&u->trace, &u->writer, device_track);
	if (!u->interval_ns) {
		uint64_t now = gpd_monotonic_ns();
		ret = gpm_trace_cpu_clock_snapshot(&u->writer, now, true,
						   gpd_boottime_at(now));
		return ret ? ret : gpm_usage_trace_none(&u->trace, now, u->note);
	}
	struct gpd_error err = { 0 };
	/* Processes are read whatever the client may see of them, as for
	 * its own usage stream: their note says what could not be read. */
	return gpd_usage_subscribe(u->o.dev->usage, u->interval_ns, true,
				   &recording_usage_ops, u, &u->sub, &err);
}

int gpd_recording_usage_finish(struct gpd_recording_usage *u)
{
	/* The usage up to the end, not to the last point of the grid. */
	if (u->sub)
		gpd_usage_flush(u->sub);
	unsubscribe(u);
	if (u->failed || !u->writer_ready)
		return u->failed;
	return gpm_trace_flush(&u->writer);
}

void gpd_recording_usage_destroy(struct gpd_recording_usage *u)
{
	if (!u)
		return;
	unsubscribe(u);
	if (u->writer_ready) {
		gpm_usage_trace_fini(&u->trace);
		gpm_trace_writer_fini(&u->writer);
	}
	free(u);
}

uint64_t gpd_recording_usage_interval_ns(const struct gpd_recording_usage *u)
{
	return u->interval_ns;
}

const char *gpd_recording_usage_note(const struct gpd_recording_usage *u)
{
	return u->note;
}
