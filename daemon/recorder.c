/*
 * Server-side recordings in IGT's i915-perf format, from a device's record
 * tap.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/device.h"
#include "daemon/device_registry.h"
#include "daemon/error.h"
#include "daemon/log.h"
#include "daemon/recorder.h"
#include "daemon/recording_usage.h"
#include "daemon/usage_monitor.h"
#include "metrics/oa_record.h"
#include "metrics/oa_report.h"
#include "metrics/oa_timestamp.h"
#include "metrics/oa_trace.h"
#include "metrics/recording.h"

/* IGT's recorder also correlates the clocks about once a second. */
#define CORRELATION_PERIOD_NS 1000000000ull
/* A record is written only if what may follow it still fits under
 * max_bytes: a correlation before the next sample, and the two that can
 * close the file (finish()). */
#define LIMIT_RESERVED_BYTES (3 * GPM_RECORDING_CORRELATION_SIZE)

struct gpd_recorder {
	struct gpd_device *dev;
	struct gpd_subscription *sub;
	struct gpd_record_tap tap;
	const struct gpd_recorder_sink_ops *ops;
	void *user;
	const struct gpm_metric_set *set;
	uint64_t period_ns;
	/* PERFETTO: the recording's bytes go through trace, whose bytes go
	 * to the sink. */
	struct gpm_oa_trace *trace;
	uint64_t window_ns;
	unsigned *counters;             /* the trace's, as set indices */
	char label[160];
	/* PERFETTO: the device's usage, on a sequence of its own; NULL
	 * with no_usage. */
	struct gpd_recording_usage *usage;

	struct gpm_recording_writer *writer;
	FILE *out;
	bool header_written;
	uint64_t bytes;                 /* handed to the sink */
	uint64_t max_bytes;
	uint64_t reports;
	int sink_error;

	/* The reports' time line, continuing the device's. */
	struct gpm_oa_ts_extender ts;
	bool have_report;
	uint64_t last_ts;               /* extended ticks */
	uint64_t last_correlation_cpu_ns;
	struct gpm_oa_report scratch;

	uv_timer_t finish_timer;
	bool stopping;
	char reason[256];
	bool has_reason;
};

static int sink_data(struct gpd_recorder *r, const void *buf, size_t size)
{
	if (r->sink_error)
		return r->sink_error;
	int ret = r->ops->data(r->user, r->bytes, buf, size);
	if (ret) {
		r->sink_error = ret;
		return ret;
	}
	r->bytes += size;
	return 0;
}

static int trace_write(void *ctx, const void *data, size_t len)
{
	return sink_data(ctx, data, len);
}

/* The recording writer's bytes: whole records, to the sink or the
 * trace. An error is said with 0, never a negative count: stdio takes -1
 * for bytes written backwards and carries on (fopencookie(3)). */
static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
	struct gpd_recorder *r = cookie;
	int ret = r->trace ? gpm_oa_trace_records(r->trace, buf, size)
			   : sink_data(r, buf, size);
	if (ret && !r->sink_error)
		r->sink_error = ret;
	return ret ? 0 : (ssize_t)size;
}

static void stop_with(struct gpd_recorder *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void stop_with(struct gpd_recorder *r, const char *fmt, ...)
{
	if (r->stopping)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
	r->has_reason = true;
	gpd_recorder_stop(r, r->reason);
}

/* Sink refusals and write errors end the recording with words. */
static void check_writer(struct gpd_recorder *r, int ret)
{
	if (!ret)
		return;
	if (r->sink_error == -ENOBUFS)
		stop_with(r, "the client fell too far behind reading the "
			  "recording's bytes");
	else if (r->sink_error && r->trace && r->sink_error == -EBADMSG)
		stop_with(r, "the recording could not be made a trace (%s)",
			  strerror(-r->sink_error));
	else if (r->sink_error)
		stop_with(r, "the recording's bytes could not be sent (%s)",
			  strerror(-r->sink_error));
	else
		stop_with(r, "writing the recording failed (%s)", strerror(-ret));
}

static int write_header(struct gpd_recorder *r)
{
	if (r->header_written)
		return 0;
	r->header_written = true;
	if (r->trace)
		return 0;       /* the trace's options describe the device */
	struct gpm_recording_info info;
	gpd_device_recording_info(r->dev, r->set->symbol_name,
				  r->set->hw_config_guid, &info);
	int ret = gpm_recording_write_header(r->writer, &info, NULL);
	check_writer(r, ret);
	return ret;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC and CLOCK_BOOTTIME at one instant, as near as two
 * readings get: BOOTTIME is read right after, so the offset between the
 * two (the time spent suspended) comes out a few ns long, never short. */
static void read_clocks(struct gpm_recording_clocks *c)
{
	c->monotonic_ns = clock_ns(CLOCK_MONOTONIC);
	c->boottime_ns = clock_ns(CLOCK_BOOTTIME);
}

/* A correlation point at extended GPU time ts, or just after it (IGT's
 * reader wants every report strictly before a later point). The
 * recording's GPU clock is the RCS TIMESTAMP register IGT's recorder
 * reads, so OA ticks go to the command streamer's: IGT's reader shifts
 * DG2 and MTL report timestamps right by one to meet them. */
static int correlate(struct gpd_recorder *r, uint64_t ts, bool after)
{
	struct gpm_recording_correlation c;
	if (!gpd_device_cpu_time(r->dev, ts, &c.cpu_ns))
		c.cpu_ns = gpd_monotonic_ns();
	c.gpu_timestamp = gpm_device_cs_ticks(&r->dev->source->info, ts) + after;
	int ret = gpm_recording_write_correlation_bridged(r->writer, &c, NULL);
	if (!ret)
		r->last_correlation_cpu_ns = gpd_monotonic_ns();
	if (!ret) {
		struct gpm_recording_clocks clocks;
		read_clocks(&clocks);
		ret = gpm_recording_write_clocks(r->writer, &clocks, NULL);
	}
	check_writer(r, ret);
	return ret;
}

/* The first report joins the device's time line: the device extends
 * timestamps from its first report on, and its current GPU time says
 * which wrap this report's timestamp belongs to. */
static uint64_t first_timestamp(struct gpd_recorder *r, uint64_t ticks)
{
	uint64_t mask = r->dev->decoder.ts_mask;
	uint64_t now, ts = ticks;
	if (gpd_device_gpu_now(r->dev, &now)) {
		uint64_t ahead = (ticks - now) & mask;
		ts = ahead <= mask / 2 ? now + ahead : now - ((mask - ahead) + 1);
	}
	gpm_oa_ts_extender_init(&r->ts, mask);
	r->ts.started = true;
	r->ts.last = ticks;
	r->ts.extended = ts;
	return ts;
}

static int record_sample(struct gpd_recorder *r, const unsigned char *payload,
			 size_t size)
{
	if (gpm_oa_report_decode(&r->dev->decoder, payload, size, &r->scratch))
		return 0;       /* the device counts it; IGT could not read it */
	uint64_t ts;
	int ret = 0;
	bool first = !r->have_report;
	if (first) {
		ts = first_timestamp(r, r->scratch.timestamp);
		ret = correlate(r, ts, false);
		r->have_report = true;
	} else {
		ts = gpm_oa_ts_extend(&r->ts, r->scratch.timestamp);
		if (gpd_monotonic_ns() - r->last_correlation_cpu_ns >=
		    CORRELATION_PERIOD_NS)
			ret = correlate(r, ts, false);
	}
	if (!ret) {
		ret = gpm_recording_write_sample(r->writer, payload, size, NULL);
		/* A trace starts with its first report, and with it the
		 * usage beside it: not once the writer's buffer is full. */
		if (!ret && first && r->trace)
			ret = gpm_recording_writer_flush(r->writer, NULL);
		check_writer(r, ret);
	}
	if (!ret) {
		r->last_ts = ts;
		r->reports++;
	}
	return ret;
}

/* The usage sequence starts once the trace has its device track. */
static void start_usage(struct gpd_recorder *r)
{
	uint64_t device_track = gpm_oa_trace_device_track(r->trace);
	if (device_track && !r->stopping)
		check_writer(r, gpd_recording_usage_start(r->usage, device_track));
}

static void usage_failed(void *ctx, int err)
{
	check_writer(ctx, err);
}

static void on_records(void *user, const void *data, size_t len)
{
	struct gpd_recorder *r = user;
	if (r->stopping || write_header(r))
		return;
	struct gpm_oa_record_reader rd;
	struct gpm_oa_record rec;
	gpm_oa_record_reader_init(&rd, GPM_OA_FRAMING_I915,
				  r->dev->source->format->size, data, len);
	int ret = 0;
	while (!ret && !r->stopping && gpm_oa_record_next(&rd, &rec) > 0) {
		/* A trace's bytes come a deflated chunk at a time: its
		 * limit is checked against what went out. */
		uint64_t used = r->trace ? r->bytes :
			gpm_recording_writer_offset(r->writer) + rec.size +
			LIMIT_RESERVED_BYTES;
		if (r->max_bytes && used > r->max_bytes) {
			stop_with(r, "the recording reached its limit of %llu "
				  "bytes", (unsigned long long)r->max_bytes);
			break;
		}
		switch (rec.type) {
		case GPM_OA_RECORD_SAMPLE:
			ret = record_sample(r, rec.payload, rec.payload_size);
			break;
		case GPM_OA_RECORD_REPORT_LOST:
			ret = gpm_recording_write_report_lost(r->writer, NULL);
			check_writer(r, ret);
			break;
		case GPM_OA_RECORD_BUFFER_LOST:
			ret = gpm_recording_write_buffer_lost(r->writer, NULL);
			check_writer(r, ret);
			break;
		default:
			break;
		}
	}
	if (r->usage)
		start_usage(r);
}

static void on_frame(void *user, const struct gpd_frame *frame)
{
}

static void on_event(void *user, const struct gpd_event *ev)
{
	struct gpd_recorder *r = user;
	switch (ev->kind) {
	case GPD_EVENT_CONFIG_CHANGED:
	case GPD_EVENT_BUSY_ELSEWHERE:
	case GPD_EVENT_DEVICE_LOST:
	case GPD_EVENT_ENDED:
	case GPD_EVENT_RESTARTED:
		/* The header no longer describes what would follow. */
		stop_with(r, "the stream changed: %s", ev->message);
		break;
	case GPD_EVENT_RECOVERED:
	case GPD_EVENT_TRIGGER_FIRED:
		break;
	}
}

static const struct gpd_subscriber_ops recorder_sub_ops = {
	.frame = on_frame,
	.event = on_event,
};

/* Lets go of the device; safe to repeat. */
static void release(struct gpd_recorder *r)
{
	gpd_device_remove_tap(r->dev, &r->tap);
	if (r->sub) {
		gpd_unsubscribe(r->sub);
		r->sub = NULL;
	}
	if (r->out) {
		fclose(r->out);
		r->out = NULL;
	}
}

static void finish(uv_timer_t *timer)
{
	struct gpd_recorder *r = timer->data;
	if (!write_header(r)) {
		uint64_t now;
		if (r->have_report)
			correlate(r, r->last_ts, true);
		else if (gpd_device_gpu_now(r->dev, &now) &&
			 !correlate(r, now, false))
			correlate(r, now, true);
		check_writer(r, gpm_recording_writer_flush(r->writer, NULL));
		if (r->trace)
			check_writer(r, gpm_oa_trace_finish(r->trace));
		if (r->usage)
			check_writer(r, gpd_recording_usage_finish(r->usage));
	}
	release(r);
	r->ops->stopped(r->user, r->bytes, r->reports,
			r->has_reason ? r->reason : NULL);
}

/* The converter of a PERFETTO recording, for the counters the recorder's
 * subscription took. */
static int start_trace(struct gpd_recorder *r,
		       const struct gpd_recorder_request *req,
		       struct gpd_error *err)
{
	const char *const *symbols;
	size_t n = gpd_subscription_counters(r->sub, &symbols);
	const struct gpd_source *src = r->dev->source;

	r->window_ns = req->window_ns ? req->window_ns :
		       GPD_RECORDER_DEFAULT_WINDOW_NS;
	r->counters = calloc(n ? n : 1, sizeof(*r->counters));
	if (!r->counters)
		return gpd_fail(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		int index = gpm_metric_set_find_counter(r->set, symbols[i]);
		if (index < 0)
			return gpd_fail(err, -ENOENT, "metric set %s has no "
					"counter %s", r->set->symbol_name,
					symbols[i]);
		r->counters[i] = (unsigned)index;
	}
	gpm_oa_trace_label(r->label, sizeof(r->label),
			   src->platform->description, src->info.pci_id);
	struct gpm_oa_trace_options o = {
		.device_label = r->label,
		.pci_id = src->info.pci_id,
		.timestamp_frequency = src->info.timestamp_frequency,
		.decoder = &r->dev->decoder,
		.binding = r->dev->binding,
		.counters = r->counters,
		.n_counters = n,
		.interval_ns = r->window_ns,
		.write = trace_write,
		.ctx = r,
	};
	if (gpm_oa_trace_create(&o, &r->trace))
		return gpd_fail(err, -ENOMEM, "out of memory");
	if (req->no_usage)
		return 0;
	struct gpd_recording_usage_options uo = {
		.dev = r->dev,
		.interval_ns = req->usage_interval_ns,
		.processes = req->processes,
		.write = trace_write,
		.ctx = r,
		.failed = usage_failed,
	};
	if (gpd_recording_usage_create(&uo, &r->usage))
		return gpd_fail(err, -ENOMEM, "out of memory");
	return 0;
}

int gpd_recorder_start(const struct gpd_device_registry *devices,
		       const struct gpd_recorder_request *req,
		       const struct gpd_recorder_sink_ops *ops, void *user,
		       struct gpd_recorder **out, struct gpd_error *err)
{
	*out = NULL;
	if (req->max_bytes && req->max_bytes < GPD_RECORDING_MIN_BYTES)
		return gpd_fail(err, -EINVAL, "a recording limit of %llu bytes "
			    "leaves no room for the recording's header; give "
			    "at least %u", (unsigned long long)req->max_bytes,
			    GPD_RECORDING_MIN_BYTES);
	struct gpd_recorder *r = calloc(1, sizeof(*r));
	if (!r)
		return gpd_fail(err, -ENOMEM, "out of memory");
	/* Refused before subscribing, which may configure the device. A
	 * Perfetto trace is made from the device's decoded reports, so any
	 * device's; an i915perf file only from reports of an i915 format,
	 * which its header names. */
	struct gpd_device *dev = gpd_device_registry_find(devices, req->device);
	const char *misfit = dev && req->format == GPD_RECORDING_I915_PERF ?
			     gpd_device_i915perf_misfit(dev) : NULL;
	if (misfit) {
		free(r);
		return gpd_fail(err, -EOPNOTSUPP, "device %s %s; record it with "
			    "--format perfetto", dev->source->name, misfit);
	}
	/* One OA format and clock per file: the render unit's, which the
	 * header states. A media set counts on an OAM unit. */
	const struct gpm_metric_set *named = dev && req->metric_set ?
		gpm_metrics_file_lookup_set(dev->metrics, req->metric_set) : NULL;
	struct gpd_stream_shape shape;
	if (named && !gpd_device_set_shape(dev, named, &shape, err) &&
	    shape.format != dev->source->format) {
		free(r);
		return gpd_fail(err, -EOPNOTSUPP,
			    "%s counts on a media OA unit; gpuperfd records "
			    "sets of the render OA unit only, whose format and "
			    "clock a recording's header states; stream it "
			    "instead", named->symbol_name);
	}
	/* The subscription checks the trace's counters with the rest. */
	bool trace = req->format == GPD_RECORDING_PERFETTO;
	int ret = trace && !req->no_usage ?
		  gpd_usage_check_interval(req->usage_interval_ns, err) : 0;
	if (ret) {
		free(r);
		return ret;
	}
	struct gpd_subscribe_request sreq = {
		.device = req->device,
		.metric_set = req->metric_set,
		.sampling_period_ns = req->sampling_period_ns,
		.counters = trace ? req->counters : NULL,
		.n_counters = trace ? req->n_counters : 0,
		.role = req->role,
		.budget = req->budget,
		.no_frames = true,
		.own_window_ns = !trace ? 0 : req->window_ns ? req->window_ns :
				 GPD_RECORDER_DEFAULT_WINDOW_NS,
	};
	ret = gpd_subscribe(devices, &sreq, &recorder_sub_ops, r, &r->sub, err);
	if (ret) {
		free(r);
		return ret;
	}
	r->dev = dev;
	r->set = r->dev->set;
	r->period_ns = gpd_device_period_ns(r->dev, r->dev->exponent);
	/* The writer holds a 64 KiB buffer: allocated once the request is
	 * granted, a refused one costs none of it. */
	r->writer = malloc(sizeof(*r->writer));
	cookie_io_functions_t io = { .write = sink_write };
	r->out = r->writer ? fopencookie(r, "w", io) : NULL;
	if (!r->out) {
		gpd_unsubscribe(r->sub);
		free(r->writer);
		free(r);
		return gpd_fail(err, -ENOMEM, "out of memory");
	}
	/* The writer hands over whole records; no second buffer between. */
	setvbuf(r->out, NULL, _IONBF, 0);
	gpm_recording_writer_init_file(r->writer, r->out,
				       trace ? GPM_RECORDING_RECORDS_ONLY : 0);
	if (trace && (ret = start_trace(r, req, err))) {
		release(r);
		gpd_recording_usage_destroy(r->usage);
		gpm_oa_trace_destroy(r->trace);
		free(r->counters);
		free(r->writer);
		free(r);
		return ret;
	}
	r->ops = ops;
	r->user = user;
	r->max_bytes = req->max_bytes;
	r->tap.records = on_records;
	r->tap.user = r;
	gpd_device_add_tap(r->dev, &r->tap);
	uv_timer_init(r->dev->loop, &r->finish_timer);
	r->finish_timer.data = r;
	*out = r;
	return 0;
}

void gpd_recorder_stop(struct gpd_recorder *r, const char *reason)
{
	if (r->stopping)
		return;
	r->stopping = true;
	if (reason && reason != r->reason) {
		snprintf(r->reason, sizeof(r->reason), "%s", reason);
		r->has_reason = true;
	}
	gpd_device_remove_tap(r->dev, &r->tap);
	/* The trailer and the owner's callback come from the loop, never
	 * from inside the device's or the subscription's callbacks. */
	uv_timer_start(&r->finish_timer, finish, 0, 0);
}

static void on_closed(uv_handle_t *handle)
{
	struct gpd_recorder *r = handle->data;
	gpd_recording_usage_destroy(r->usage);
	gpm_oa_trace_destroy(r->trace);
	free(r->counters);
	free(r->writer);
	free(r);
}

void gpd_recorder_destroy(struct gpd_recorder *r)
{
	if (!r)
		return;
	r->stopping = true;
	release(r);
	uv_timer_stop(&r->finish_timer);
	uv_close((uv_handle_t *)&r->finish_timer, on_closed);
}

const char *gpd_recorder_device(const struct gpd_recorder *r)
{
	return r->dev->source->name;
}

const char *gpd_recorder_metric_set(const struct gpd_recorder *r)
{
	return r->set->symbol_name;
}

uint64_t gpd_recorder_period_ns(const struct gpd_recorder *r)
{
	return r->period_ns;
}

uint64_t gpd_recorder_window_ns(const struct gpd_recorder *r)
{
	return r->window_ns;
}

uint64_t gpd_recorder_usage_interval_ns(const struct gpd_recorder *r)
{
	return r->usage ? gpd_recording_usage_interval_ns(r->usage) : 0;
}

const char *gpd_recorder_usage_note(const struct gpd_recorder *r)
{
	return r->usage ? gpd_recording_usage_note(r->usage) : "";
}
