/*
 * The replay source: reads a recording with the streaming reader and hands
 * its samples and loss markers upward as i915 records.
 *
 * Paced replay releases the samples whose timestamps the replay clock has
 * reached, every 5 ms like the kernel's poll timer; speed=max releases a
 * batch per loop iteration so the loop stays responsive however big the
 * file is.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/clock.h"
#include "daemon/error.h"
#include "daemon/log.h"
#include "daemon/replay/replay_source.h"
#include "metrics/oa_record.h"
#include "metrics/oa_report.h"
#include "metrics/oa_timestamp.h"
#include "metrics/recording.h"

#define REPLAY_POLL_MS 5
#define REPLAY_BATCH_BYTES (1u << 20)

struct replay_source {
	struct gpd_source base;
	struct gpm_recording_reader reader;
	bool loop_file;
	double speed;
	struct gpm_oa_decoder decoder;
	struct gpm_oa_ts_extender ts;
	uv_timer_t timer;
	bool running;
	bool ended;
	uint64_t start_ns;              /* monotonic time replay began */
	bool have_first_ts;
	uint64_t first_ts;              /* extended ticks of the first sample */
	/* A sample read but not yet due. */
	bool held;
	struct gpm_recording_record held_rec;
	unsigned char held_report[GPM_RECORDING_MAX_RECORD_SIZE];
	unsigned char *batch;
	size_t batch_len;
};

static void flush_batch(struct replay_source *rs)
{
	if (!rs->batch_len)
		return;
	size_t len = rs->batch_len;
	rs->batch_len = 0;
	rs->base.listener.records(rs->base.listener.user, rs->batch, len);
}

static void append_record(struct replay_source *rs, uint32_t type,
			  const void *payload, size_t size)
{
	size_t total = GPM_OA_RECORD_HEADER_SIZE + size;
	if (rs->batch_len + total > REPLAY_BATCH_BYTES)
		flush_batch(rs);
	unsigned char *p = rs->batch + rs->batch_len;
	uint16_t size16 = (uint16_t)total, pad = 0;
	memcpy(p, &type, 4);
	memcpy(p + 4, &pad, 2);
	memcpy(p + 6, &size16, 2);
	if (size)
		memcpy(p + GPM_OA_RECORD_HEADER_SIZE, payload, size);
	rs->batch_len += total;
}

static void stop_timer(struct replay_source *rs)
{
	if (rs->running) {
		uv_timer_stop(&rs->timer);
		rs->running = false;
	}
}

/* Reads the next record into rs->held_rec (copying a sample's bytes, which
 * the reader only lends). 1 at the end, 0, or a negative code. */
static int read_next(struct replay_source *rs)
{
	struct gpm_recording_error err;
	int ret = gpm_recording_reader_next(&rs->reader, &rs->held_rec, &err);
	if (ret) {
		gpd_error("%s: %s", rs->base.name, err.message);
		return ret;
	}
	if (rs->held_rec.kind == GPM_RECORDING_END)
		return 1;
	if (rs->held_rec.kind == GPM_RECORDING_SAMPLE) {
		size_t n = rs->held_rec.size < sizeof(rs->held_report) ?
			   rs->held_rec.size : sizeof(rs->held_report);
		memcpy(rs->held_report, rs->held_rec.data, n);
		rs->held_rec.data = rs->held_report;
		rs->held_rec.size = n;
	}
	rs->held = true;
	return 0;
}

static uint64_t sample_ts(struct replay_source *rs)
{
	struct gpm_oa_report report;
	/* The timestamp is all it needs: the counters are the device's. */
	if (gpm_oa_report_decode_header(&rs->decoder, rs->held_rec.data,
					rs->held_rec.size, &report))
		return rs->ts.extended;
	return gpm_oa_ts_extend(&rs->ts, report.timestamp);
}

static void on_tick(uv_timer_t *timer);

static void reach_end(struct replay_source *rs, bool error)
{
	flush_batch(rs);
	if (rs->loop_file && !error) {
		gpm_recording_reader_rewind(&rs->reader);
		gpm_oa_ts_extender_init(&rs->ts, rs->decoder.ts_mask);
		rs->have_first_ts = false;
		rs->start_ns = gpd_monotonic_ns();
		/* speed=max reads a whole pass in one tick of a timer that
		 * does not repeat: the next pass needs one of its own. */
		if (rs->speed == 0)
			uv_timer_start(&rs->timer, on_tick, 1, 0);
		rs->base.listener.event(rs->base.listener.user,
					GPD_EVENT_RESTARTED,
					"the replay started over");
		return;
	}
	stop_timer(rs);
	rs->ended = true;
	rs->base.listener.event(rs->base.listener.user, GPD_EVENT_ENDED,
				error ? "the replay stopped at a damaged record"
				      : "the replay reached the end of its recording");
}

static void on_tick(uv_timer_t *timer)
{
	struct replay_source *rs = timer->data;
	uint64_t due = UINT64_MAX;
	if (rs->speed > 0) {
		double elapsed = (double)(gpd_monotonic_ns() - rs->start_ns) * rs->speed;
		due = (uint64_t)(elapsed * (double)rs->base.info.timestamp_frequency / 1e9);
	}
	size_t budget = REPLAY_BATCH_BYTES;     /* per tick at speed=max */
	while (rs->running) {
		if (!rs->held) {
			int ret = read_next(rs);
			if (ret) {
				reach_end(rs, ret < 0);
				return;
			}
		}
		struct gpm_recording_record *rec = &rs->held_rec;
		if (rec->kind == GPM_RECORDING_SAMPLE) {
			uint64_t ts = sample_ts(rs);
			if (!rs->have_first_ts) {
				rs->have_first_ts = true;
				rs->first_ts = ts;
			}
			if (rs->speed > 0 && ts - rs->first_ts > due) {
				/* Not due yet: keep it. Extending the same
				 * timestamp again next time adds nothing. */
				break;
			}
			append_record(rs, GPM_OA_RECORD_SAMPLE, rec->data, rec->size);
		} else if (rec->kind == GPM_RECORDING_REPORT_LOST) {
			append_record(rs, GPM_OA_RECORD_REPORT_LOST, NULL, 0);
		} else if (rec->kind == GPM_RECORDING_BUFFER_LOST) {
			append_record(rs, GPM_OA_RECORD_BUFFER_LOST, NULL, 0);
		}
		rs->held = false;
		if (rs->speed == 0 && rs->batch_len >= budget)
			break;
	}
	flush_batch(rs);
}

static int replay_open(struct gpd_source *src, const struct gpd_stream_config *cfg,
		       struct gpd_error *err)
{
	struct replay_source *rs = (struct replay_source *)src;
	gpm_recording_reader_rewind(&rs->reader);
	gpm_oa_ts_extender_init(&rs->ts, rs->decoder.ts_mask);
	rs->held = false;
	rs->ended = false;
	rs->have_first_ts = false;
	rs->start_ns = gpd_monotonic_ns();
	rs->running = true;
	uv_timer_start(&rs->timer, on_tick, 0, rs->speed > 0 ? REPLAY_POLL_MS : 0);
	return 0;
}

static void replay_close(struct gpd_source *src)
{
	struct replay_source *rs = (struct replay_source *)src;
	stop_timer(rs);
	rs->batch_len = 0;
}

static void on_timer_closed(uv_handle_t *handle)
{
	struct replay_source *rs = handle->data;
	gpm_recording_reader_close(&rs->reader);
	free(rs->batch);
	free(rs);
}

static void replay_destroy(struct gpd_source *src)
{
	struct replay_source *rs = (struct replay_source *)src;
	replay_close(src);
	uv_close((uv_handle_t *)&rs->timer, on_timer_closed);
}

static const struct gpd_source_ops replay_ops = {
	.open = replay_open,
	.close = replay_close,
	.destroy = replay_destroy,
};

int gpd_replay_source_create(uv_loop_t *loop, const struct gpm_metrics_db *db,
			     const struct gpd_replay_source_options *opts,
			     struct gpd_source **out, struct gpd_error *err)
{
	struct replay_source *rs = calloc(1, sizeof(*rs));
	if (!rs)
		return gpd_fail(err, -ENOMEM, "out of memory");
	rs->batch = malloc(REPLAY_BATCH_BYTES);
	if (!rs->batch) {
		free(rs);
		return gpd_fail(err, -ENOMEM, "out of memory");
	}
	struct gpm_recording_error rerr;
	int ret = gpm_recording_reader_open(&rs->reader, opts->path, &rerr);
	if (ret) {
		free(rs->batch);
		free(rs);
		return gpd_fail(err, ret, "replay:%s: %s", opts->path, rerr.message);
	}
	const struct gpm_recording_info *info = &rs->reader.info;
	const struct gpm_platform *platform;
	ret = gpm_platform_by_pci_id(info->device.pci_id,
				     gpm_topology_eu_count(&info->device.topology),
				     &platform);
	if (ret) {
		gpd_fail(err, -ENOENT, "replay:%s: recorded on PCI device 0x%04x, "
		     "which no known platform matches", opts->path,
		     info->device.pci_id);
		goto error;
	}
	if (!gpm_metrics_db_find_set(db, platform->name, info->metric_set)) {
		gpd_fail(err, -ENOENT, "replay:%s: recorded with metric set '%s' of "
		     "%s, which no loaded file defines; add --metrics-dir DIR "
		     "where DIR holds oa-%s.xml", opts->path, info->metric_set,
		     platform->name, platform->name);
		goto error;
	}
	uint32_t i915_format = info->oa_format ? info->oa_format
					       : platform->i915_oa_format;
	if (gpm_oa_format_from_i915(i915_format, &rs->base.format) &&
	    gpm_oa_format_from_i915(platform->i915_oa_format, &rs->base.format)) {
		gpd_fail(err, -EINVAL, "replay:%s: report format %u is not one this "
		     "daemon decodes", opts->path, i915_format);
		goto error;
	}
	rs->base.ops = &replay_ops;
	rs->base.kind = GPD_SOURCE_REPLAY;
	snprintf(rs->base.name, sizeof(rs->base.name), "replay%u", opts->index);
	/* The recording is the device: its file names it. */
	const char *file = strrchr(opts->path, '/');
	snprintf(rs->base.device_id, sizeof(rs->base.device_id), "replay:%s",
		 file ? file + 1 : opts->path);
	rs->base.info = info->device;
	rs->base.info.graphics_version = platform->graphics_version;
	if (!rs->base.info.eu_threads_count)
		rs->base.info.eu_threads_count = platform->eu_threads_count;
	rs->base.platform = platform;
	rs->base.fixed_metric_set = info->metric_set;
	rs->base.loop = loop;
	rs->loop_file = opts->loop;
	rs->speed = opts->speed;
	ret = gpm_oa_decoder_init(&rs->decoder, rs->base.format,
				  platform->graphics_version);
	if (ret) {
		gpd_fail(err, ret, "replay:%s: cannot decode %s reports", opts->path,
		     platform->name);
		goto error;
	}
	uv_timer_init(loop, &rs->timer);
	rs->timer.data = rs;
	*out = &rs->base;
	return 0;
error:
	gpm_recording_reader_close(&rs->reader);
	free(rs->batch);
	free(rs);
	return err->code;
}
