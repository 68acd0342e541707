/*
 * The replay source: reads a recording with the streaming reader and hands
 * its samples and loss markers upward as i915 records.
 *
 * Paced replay releases the samples whose timestamps the replay clock has
 * reached, every 5 ms like the kernel's poll timer; speed=max releases a
 * batch per loop iteration so the loop stays responsive however big the
 * file is. The kernel's records are handed on as the file holds them,
 * straight from the bytes read: at tglgt2's fastest period that is 2.5
 * GB/s, and a copy of each costs a good part of a core.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/clock.h"
#include "daemon/error.h"
#include "daemon/log.h"
#include "daemon/replay/replay_source.h"
#include "metrics/oa_record.h"
#include "metrics/oa_report.h"
#include "metrics/oa_timestamp.h"
#include "metrics/recording.h"

#define REPLAY_POLL_MS 5
/* A looped, paced replay's next pass follows the last on the recording's
 * timeline, as though the file went on: timed from the poll that found
 * the end instead, every pass would start up to a poll late. One further
 * behind than this starts afresh from now: the replay cannot keep its
 * speed. */
#define REPLAY_CATCH_UP_NS 1000000000ull
/* Passes one tick may start: a short recording at a high speed ends
 * several times a poll. */
#define REPLAY_PASSES_A_TICK 16
/* What speed=max hands on per tick. */
#define REPLAY_BATCH_BYTES (1u << 20)
/* The bytes read from the file at a time: records are handed on from
 * them without copies, so they are still in cache when the device sums
 * them. */
#define REPLAY_STRETCH_BYTES (256u << 10)

struct replay_source {
	struct gpd_source base;
	struct gpm_recording_reader reader;
	int fd;
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
	/* The file's bytes the reader frames, read at stretch_offset. */
	unsigned char *stretch;
	uint64_t stretch_offset;
	/* Records due and not yet handed on: whole kernel records, as the
	 * file holds them, contiguous in stretch. */
	const unsigned char *span;
	size_t span_len;
	size_t handed;                  /* bytes handed on this tick */
	/* A run of samples read whose first is not due yet, or a loss
	 * record (count 0): the reader is not called while one is held,
	 * so its bytes stay put. */
	bool held;
	struct gpm_recording_record held_rec;
	const unsigned char *held_record;
	size_t held_count;
};

static void flush_span(struct replay_source *rs)
{
	if (!rs->span_len)
		return;
	size_t len = rs->span_len;
	rs->span_len = 0;
	rs->handed += len;
	rs->base.listener.records(rs->base.listener.user, rs->span, len);
}

/* Adds the len bytes of records at p to the span to hand on. */
static void take_records(struct replay_source *rs, const unsigned char *p,
			 size_t len)
{
	if (rs->span_len && rs->span + rs->span_len != p)
		flush_span(rs);
	if (!rs->span_len)
		rs->span = p;
	rs->span_len += len;
}

/* The reader's bytes from offset on (see struct gpm_recording_source):
 * the stretch is read again, so what it held is handed on first. */
static ssize_t fetch_stretch(void *ctx, uint64_t offset,
			     const unsigned char **data)
{
	struct replay_source *rs = ctx;
	uint64_t left = rs->reader.source.size - offset;
	size_t want = left < REPLAY_STRETCH_BYTES ? (size_t)left
						  : REPLAY_STRETCH_BYTES;
	size_t got = 0;

	flush_span(rs);
	while (got < want) {
		ssize_t n = pread(rs->fd, rs->stretch + got, want - got,
				  (off_t)(offset + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;          /* the file shrank: the reader says so */
		got += (size_t)n;
	}
	rs->stretch_offset = offset;
	*data = rs->stretch;
	return (ssize_t)got;
}

static void stop_timer(struct replay_source *rs)
{
	if (rs->running) {
		uv_timer_stop(&rs->timer);
		rs->running = false;
	}
}

/* Reads the next record, a sample with the ones after it in the stretch,
 * into rs->held_rec. 1 at the end, 0, or a negative code. */
static int read_next(struct replay_source *rs)
{
	struct gpm_recording_error err;
	struct gpm_recording_record *rec = &rs->held_rec;
	int ret = gpm_recording_reader_next_samples(&rs->reader, rec, SIZE_MAX,
						    &err);
	if (ret) {
		gpd_error("%s: %s", rs->base.name, err.message);
		return ret;
	}
	if (rec->kind == GPM_RECORDING_END)
		return 1;
	rs->held_record = rs->stretch + (rec->offset - rs->stretch_offset);
	rs->held_count = rec->kind == GPM_RECORDING_SAMPLE ? rec->count : 0;
	rs->held = true;
	return 0;
}

static void on_tick(uv_timer_t *timer);

/* When the pass that ended began on the replay clock plus its length
 * there (from its first sample to its last): where the next pass begins
 * if it follows on. Its first sample is then due with the last one's, a
 * report period early, which over a pass of thousands is below what a
 * poll can tell. */
static bool next_pass_start(const struct replay_source *rs, uint64_t now,
			    uint64_t *start_ns)
{
	if (rs->speed <= 0 || !rs->have_first_ts || rs->ts.extended <= rs->first_ts)
		return false;
	double pass_ns = (double)(rs->ts.extended - rs->first_ts) * 1e9 /
			 (double)rs->base.info.timestamp_frequency / rs->speed;
	uint64_t next = rs->start_ns + (uint64_t)pass_ns;
	if (next > now || now - next > REPLAY_CATCH_UP_NS)
		return false;
	*start_ns = next;
	return true;
}

/* True when the replay goes on at once with a new pass that follows the
 * last on its timeline (the tick may hand what of it is due). */
static bool reach_end(struct replay_source *rs, bool error)
{
	flush_span(rs);
	if (rs->loop_file && !error) {
		uint64_t now = gpd_monotonic_ns();
		bool follows = next_pass_start(rs, now, &rs->start_ns);
		if (!follows)
			rs->start_ns = now;
		gpm_recording_reader_rewind(&rs->reader);
		gpm_oa_ts_extender_init(&rs->ts, rs->decoder.ts_mask);
		rs->have_first_ts = false;
		/* speed=max's timer does not repeat: each tick that ends
		 * at a batch starts the next, and so does a new pass. */
		if (rs->speed == 0)
			uv_timer_start(&rs->timer, on_tick, 1, 0);
		rs->base.listener.event(rs->base.listener.user,
					GPD_EVENT_RESTARTED,
					"the replay started over");
		return follows;
	}
	stop_timer(rs);
	rs->ended = true;
	rs->base.listener.event(rs->base.listener.user, GPD_EVENT_ENDED,
				error ? "the replay stopped at a damaged record"
				      : "the replay reached the end of its recording");
	return false;
}

/* Takes the held run's samples that are due (all at speed=max): false
 * when one is left, not due yet. Only a report's timestamp is read here,
 * in place: the device decodes the rest. A sample too short for a report
 * has none and is due with the one before it. */
static bool take_due_samples(struct replay_source *rs, uint64_t due)
{
	const struct gpm_recording_record *rec = &rs->held_rec;
	bool whole = rec->size >= rs->decoder.format->size;
	const unsigned char *report = rs->held_record + GPM_OA_RECORD_HEADER_SIZE;
	size_t n = 0;
	for (; n < rs->held_count; n++, report += rec->stride) {
		uint64_t ts = whole ? gpm_oa_ts_extend(&rs->ts,
				gpm_oa_report_timestamp(&rs->decoder, report))
				    : rs->ts.extended;
		if (!rs->have_first_ts) {
			rs->have_first_ts = true;
			rs->first_ts = ts;
		}
		if (ts - rs->first_ts > due)
			break;
	}
	if (n) {
		take_records(rs, rs->held_record, n * rec->stride);
		rs->held_record += n * rec->stride;
		rs->held_count -= n;
	}
	return rs->held_count == 0;
}

/* The replay clock now, in the recording's ticks since its first sample
 * (all of it at speed=max). */
static uint64_t replay_due(const struct replay_source *rs)
{
	if (rs->speed <= 0)
		return UINT64_MAX;
	double elapsed = (double)(gpd_monotonic_ns() - rs->start_ns) * rs->speed;
	return (uint64_t)(elapsed * (double)rs->base.info.timestamp_frequency / 1e9);
}

static void on_tick(uv_timer_t *timer)
{
	struct replay_source *rs = timer->data;
	uint64_t due = replay_due(rs);
	unsigned passes = 0;
	rs->handed = 0;
	while (rs->running) {
		if (!rs->held) {
			int ret = read_next(rs);
			if (ret) {
				if (!reach_end(rs, ret < 0) ||
				    ++passes >= REPLAY_PASSES_A_TICK)
					return;
				due = replay_due(rs);
				continue;
			}
		}
		switch (rs->held_rec.kind) {
		case GPM_RECORDING_SAMPLE:
			if (!take_due_samples(rs, due))
				goto keep;
			break;
		case GPM_RECORDING_REPORT_LOST:
		case GPM_RECORDING_BUFFER_LOST:
			take_records(rs, rs->held_record, GPM_OA_RECORD_HEADER_SIZE);
			break;
		default:
			break;
		}
		rs->held = false;
		/* speed=max: a batch a loop iteration. */
		if (rs->speed == 0 &&
		    rs->handed + rs->span_len >= REPLAY_BATCH_BYTES) {
			flush_span(rs);
			if (rs->running)
				uv_timer_start(&rs->timer, on_tick, 0, 0);
			return;
		}
	}
keep:
	flush_span(rs);
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
	rs->span_len = 0;
}

static void on_timer_closed(uv_handle_t *handle)
{
	struct replay_source *rs = handle->data;
	gpm_recording_reader_close(&rs->reader);
	close(rs->fd);
	free(rs->stretch);
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
	rs->stretch = malloc(REPLAY_STRETCH_BYTES);
	if (!rs->stretch) {
		free(rs);
		return gpd_fail(err, -ENOMEM, "out of memory");
	}
	rs->fd = open(opts->path, O_RDONLY | O_CLOEXEC);
	if (rs->fd < 0) {
		int ret = -errno;
		free(rs->stretch);
		free(rs);
		return gpd_fail(err, ret, "replay:%s: cannot open the recording: %s",
				opts->path, strerror(-ret));
	}
	/* The file's checks and their words, then its bytes a stretch at a
	 * time (open_fd has seen it is a regular file). */
	struct gpm_recording_error rerr;
	struct stat st;
	int ret = gpm_recording_reader_open_fd(&rs->reader, rs->fd, &rerr);
	if (!ret && fstat(rs->fd, &st) < 0) {
		ret = -errno;
		snprintf(rerr.message, sizeof(rerr.message),
			 "cannot stat the recording: %s", strerror(errno));
	} else if (!ret) {
		struct gpm_recording_source source = {
			.size = (uint64_t)st.st_size,
			.fetch = fetch_stretch,
			.ctx = rs,
		};
		ret = gpm_recording_reader_open_source(&rs->reader, &source,
						       &rerr);
	}
	if (ret) {
		close(rs->fd);
		free(rs->stretch);
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
	close(rs->fd);
	free(rs->stretch);
	free(rs);
	return err->code;
}
