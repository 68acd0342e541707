/*
 * The flight recorder: the ring keeps whole records and counts what it lets
 * go of; snapshots of the sim device's ring are recordings that equal,
 * report for report, a recording of the same span, survive a change of
 * metric set, and say where the ring had already let go of the past.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/recorder.h"
#include "daemon/snapshot.h"
#include "metrics/little_endian.h"
#include "metrics/oa_timestamp.h"
#include "metrics/recording.h"
#include "tests/unit/test_util.h"

/* ------------------------------------------------------------------ */
/* The ring alone                                                        */

static void sample_record(unsigned char *r, uint32_t seq)
{
	memset(r, 0, 264);
	gpm__le32_store(r, GPM_OA_RECORD_SAMPLE);
	gpm__le16_store(r + 6, 264);
	gpm__le32_store(r + 8, seq);
}

START_TEST(the_ring_keeps_the_newest_whole_records)
{
	struct gpd_flight_recorder fr;
	ck_assert_int_eq(gpd_flight_recorder_init(&fr, GPD_FLIGHT_RECORDER_MIN_BYTES + 5,
						  1000), 0);
	ck_assert_uint_eq(fr.capacity % 8, 0);
	gpd_flight_recorder_begin_segment(&fr, "RenderBasic", "guid", 5, 1000,
					  NULL, 0);
	const uint32_t n = 10000;
	unsigned char r[264];
	unsigned char lost[8] = { GPM_OA_RECORD_REPORT_LOST, 0, 0, 0, 0, 0, 8, 0 };
	for (uint32_t i = 0; i < n; i++) {
		sample_record(r, i);
		gpd_flight_recorder_append(&fr, r, sizeof(r));
		/* An 8-byte record every 7 makes records cross the end at
		 * every offset. */
		if (i % 7 == 0)
			gpd_flight_recorder_append(&fr, lost, sizeof(lost));
	}
	const struct gpd_flight_recorder_stats *st = &fr.stats;
	ck_assert_uint_le(st->used, fr.capacity);
	ck_assert_uint_gt(st->reports_overwritten, 0);
	ck_assert_uint_eq(st->reports, n);

	/* What is left: the newest samples, in order, whole, up to the
	 * last; every one the ring let go of was counted. */
	uint64_t pos = fr.head;
	struct gpm_oa_record rec;
	uint32_t expect = (uint32_t)st->reports_overwritten;
	uint64_t samples = 0;
	while (gpd_flight_recorder_next(&fr, &pos, &rec)) {
		if (rec.type != GPM_OA_RECORD_SAMPLE)
			continue;
		ck_assert_uint_eq(rec.size, 264);
		ck_assert_uint_eq(gpm__le32_load(rec.payload), expect);
		expect++;
		samples++;
	}
	ck_assert_uint_eq(expect, n);
	ck_assert_uint_eq(samples + st->reports_overwritten, n);
	ck_assert_uint_eq(pos, fr.tail);
	/* The segment's marker went long ago; its descriptor stays while
	 * its records do. */
	ck_assert_ptr_nonnull(gpd_flight_recorder_segment(&fr, 0));
	gpd_flight_recorder_fini(&fr);
}
END_TEST

/* Samples from up to (excluding) to, a correlation point before every
 * tenth, the points step ns of CPU time apart from 1 s. */
static void timed_samples(struct gpd_flight_recorder *fr, uint32_t from,
			  uint32_t to, uint64_t step)
{
	unsigned char r[264];
	for (uint32_t i = from; i < to; i++) {
		if (i % 10 == 0)
			gpd_flight_recorder_correlate(fr, i, 1000000000ull + i / 10 * step, i);
		sample_record(r, i);
		gpd_flight_recorder_append(fr, r, sizeof(r));
	}
}

/* The time the ring holds runs from the correlation point before its
 * oldest record to its newest: while it fills, from its first; once it
 * lets go of records, from the last point it let go of. */
START_TEST(the_ring_says_the_time_it_holds)
{
	struct gpd_flight_recorder fr;
	ck_assert_int_eq(gpd_flight_recorder_init(&fr, GPD_FLIGHT_RECORDER_MIN_BYTES,
						  1000), 0);
	ck_assert_uint_eq(fr.stats.held_ns, 0);
	gpd_flight_recorder_begin_segment(&fr, "RenderBasic", "guid", 5, 1000,
					  NULL, 0);
	const uint64_t step = 10000000ull;
	timed_samples(&fr, 0, 100, step);
	ck_assert_uint_eq(fr.stats.reports_overwritten, 0);
	ck_assert_uint_eq(fr.stats.held_ns, 9 * step);
	/* Past the ring's 256 KiB (about 990 samples of 264 bytes): what it
	 * holds is about as long as its room, whatever went through it. */
	timed_samples(&fr, 100, 5000, step);
	ck_assert_uint_gt(fr.stats.reports_overwritten, 0);
	/* The samples held, 10 to a point, and the point before them. */
	uint64_t held_points = (fr.stats.reports - fr.stats.reports_overwritten + 9) / 10;
	ck_assert_uint_ge(fr.stats.held_ns, (held_points - 1) * step);
	ck_assert_uint_le(fr.stats.held_ns, held_points * step);
	ck_assert_uint_lt(fr.stats.held_ns, 200 * step);
	gpd_flight_recorder_fini(&fr);
}
END_TEST

START_TEST(segments_go_with_their_records)
{
	struct gpd_flight_recorder fr;
	ck_assert_int_eq(gpd_flight_recorder_init(&fr, GPD_FLIGHT_RECORDER_MIN_BYTES,
						  1000), 0);
	unsigned char r[264];
	for (uint32_t s = 0; s < 3; s++) {
		gpd_flight_recorder_begin_segment(&fr, s ? "ComputeBasic" : "RenderBasic",
						  "guid", s, 1000, NULL, 0);
		for (uint32_t i = 0; i < 400; i++) {
			sample_record(r, i);
			gpd_flight_recorder_append(&fr, r, sizeof(r));
		}
		gpd_flight_recorder_end_segment(&fr);
	}
	/* 1200 samples of 264 bytes do not fit 256 KiB: the first segment
	 * is partly gone, and still described. */
	ck_assert_ptr_nonnull(gpd_flight_recorder_segment(&fr, 0));
	ck_assert_uint_lt(fr.segments[fr.first_segment].start, fr.head);
	for (uint32_t i = 0; i < 400; i++) {
		sample_record(r, i);
		gpd_flight_recorder_append(&fr, r, sizeof(r));
	}
	ck_assert_ptr_null(gpd_flight_recorder_segment(&fr, 0));
	ck_assert_ptr_nonnull(gpd_flight_recorder_segment(&fr, 2));

	/* A full table lets go of the oldest segment to describe a new one. */
	for (unsigned s = 0; s < 2 * GPD_FLIGHT_RECORDER_MAX_SEGMENTS; s++) {
		gpd_flight_recorder_begin_segment(&fr, "MemoryL3", "guid", 1, 1000,
						  NULL, 0);
		sample_record(r, s);
		gpd_flight_recorder_append(&fr, r, sizeof(r));
		gpd_flight_recorder_end_segment(&fr);
	}
	ck_assert_uint_le(fr.n_segments, GPD_FLIGHT_RECORDER_MAX_SEGMENTS);
	ck_assert_uint_eq(fr.stats.segments, 3 + 2 * GPD_FLIGHT_RECORDER_MAX_SEGMENTS);
	uint64_t pos = fr.head, markers = 0;
	struct gpm_oa_record rec;
	while (gpd_flight_recorder_next(&fr, &pos, &rec))
		if (rec.type == GPD_RING_RECORD_SEGMENT) {
			markers++;
			ck_assert_ptr_nonnull(gpd_flight_recorder_segment(&fr,
				gpd_flight_recorder_segment_id(&rec)));
		}
	ck_assert_uint_le(markers, GPD_FLIGHT_RECORDER_MAX_SEGMENTS);
	gpd_flight_recorder_fini(&fr);
}
END_TEST

START_TEST(a_ring_too_small_is_refused)
{
	struct gpd_flight_recorder fr;
	ck_assert_int_eq(gpd_flight_recorder_init(&fr, 4096, 1000), -EINVAL);
}
END_TEST

/* ------------------------------------------------------------------ */
/* A recording's records, for comparing                                  */

struct parsed {
	struct gpm_recording_info info;
	size_t n;
	enum gpm_recording_kind *kind;
	const unsigned char **report;   /* SAMPLE: into the recording */
	uint64_t *cpu_ns;               /* SAMPLE: placed by its correlations */
	size_t samples;
};

static void parse(const void *data, size_t size, uint64_t ts_mask,
		  struct parsed *p)
{
	struct gpm_recording_reader *rd = malloc(sizeof(*rd));
	struct gpm_recording_error err;
	memset(p, 0, sizeof(*p));
	ck_assert_msg(gpm_recording_reader_open_memory(rd, data, size, &err) == 0,
		      "%s", err.message);
	p->info = rd->info;
	size_t cap = size / 8 + 1;
	p->kind = calloc(cap, sizeof(*p->kind));
	p->report = calloc(cap, sizeof(*p->report));
	p->cpu_ns = calloc(cap, sizeof(*p->cpu_ns));
	struct gpm_recording_record rec;
	struct gpm_recording_correlation corr = { 0 };
	struct gpm_oa_ts_extender ext;
	gpm_oa_ts_extender_init(&ext, ts_mask);
	uint64_t freq = rd->info.device.timestamp_frequency;
	for (;;) {
		ck_assert_msg(gpm_recording_reader_next(rd, &rec, &err) == 0, "%s",
			      err.message);
		if (rec.kind == GPM_RECORDING_END)
			break;
		if (rec.kind == GPM_RECORDING_CORRELATION) {
			corr = rec.correlation;
			gpm_oa_ts_extender_init(&ext, ts_mask);
			ext.started = true;
			ext.last = corr.gpu_timestamp & ts_mask;
			ext.extended = corr.gpu_timestamp;
			continue;
		}
		if (rec.kind == GPM_RECORDING_CLOCKS)
			continue;
		p->kind[p->n] = rec.kind;
		if (rec.kind == GPM_RECORDING_SAMPLE) {
			uint64_t ts = gpm_oa_ts_extend(&ext, gpm__le32_load(rec.data + 4));
			p->report[p->n] = rec.data;
			p->cpu_ns[p->n] = corr.cpu_ns + (ts - corr.gpu_timestamp) *
						       1000000000ull / freq;
			p->samples++;
		}
		p->n++;
	}
	gpm_recording_reader_close(rd);
	free(rd);
}

static void parsed_free(struct parsed *p)
{
	free(p->kind);
	free(p->report);
	free(p->cpu_ns);
}

static bool same_record(const struct parsed *a, size_t i, const struct parsed *b,
			size_t j)
{
	return a->kind[i] == b->kind[j] &&
	       (a->kind[i] != GPM_RECORDING_SAMPLE ||
		!memcmp(a->report[i], b->report[j], 256));
}

/* ------------------------------------------------------------------ */
/* On the sim device                                                     */

struct fixture {
	uv_loop_t loop;
	struct gpd_daemon daemon;
	struct gpd_device *dev;
	uv_timer_t deadline;
	struct gpd_subscription *sub;
	unsigned frames, stop_after;    /* run_frames() waits for */
	unsigned config_changes;
	bool expired;
};

static void on_frame(void *user, const struct gpd_frame *f)
{
	struct fixture *fx = user;
	fx->frames++;
}

static void on_event(void *user, const struct gpd_event *ev)
{
	struct fixture *fx = user;
	fx->config_changes += ev->kind == GPD_EVENT_CONFIG_CHANGED;
}

static const struct gpd_subscriber_ops collector_ops = {
	.frame = on_frame,
	.event = on_event,
};

static void on_deadline(uv_timer_t *t)
{
	struct fixture *fx = t->data;
	fx->expired = true;
}

static void fixture_start(struct fixture *fx, uint64_t ring_bytes,
			  uint64_t period_ns, uint64_t window_ns)
{
	static const char *devices[] = { "sim" };
	struct gpd_options opts = {
		.device_specs = devices,
		.n_device_specs = 1,
		.seed = 3,
		.linger_ms = 0,
	};
	struct gpd_error err = { 0 };
	memset(fx, 0, sizeof(*fx));
	gpd_log_set_level(GPD_LOG_WARNING);
	uv_loop_init(&fx->loop);
	ck_assert_msg(gpd_daemon_init(&fx->daemon, &fx->loop, &opts, &err) == 0,
		      "%s", err.message);
	fx->dev = fx->daemon.registry.devices[0];
	ck_assert_msg(gpd_device_keep_flight_recorder(fx->dev, ring_bytes, 0, &err) == 0,
		      "%s", err.message);
	uv_timer_init(&fx->loop, &fx->deadline);
	fx->deadline.data = fx;
	struct gpd_subscribe_request req = {
		.metric_set = "RenderBasic",
		.sampling_period_ns = period_ns,
		.window_ns = window_ns,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_msg(gpd_subscribe(&fx->daemon.registry, &req, &collector_ops, fx,
				    &fx->sub, &err) == 0, "%s", err.message);
}

/* Runs until `frames` more windows arrived (or a generous deadline). */
static void run_frames(struct fixture *fx, unsigned frames)
{
	fx->stop_after = fx->frames + frames;
	fx->expired = false;
	uv_timer_start(&fx->deadline, on_deadline, 20000, 0);
	while (fx->frames < fx->stop_after && !fx->expired)
		uv_run(&fx->loop, UV_RUN_ONCE);
	uv_timer_stop(&fx->deadline);
	ck_assert_uint_ge(fx->frames, fx->stop_after);
}

static void fixture_stop(struct fixture *fx)
{
	if (fx->sub)
		gpd_unsubscribe(fx->sub);
	uv_close((uv_handle_t *)&fx->deadline, NULL);
	gpd_daemon_stop(&fx->daemon);
	uv_run(&fx->loop, UV_RUN_DEFAULT);
	gpd_daemon_fini(&fx->daemon);
	ck_assert_int_eq(uv_loop_close(&fx->loop), 0);
}

/* A recording's bytes, in memory. */
struct sink {
	unsigned char *data;
	size_t len, cap;
	bool stopped;
};

static int sink_data(void *user, uint64_t offset, const void *data, size_t len)
{
	struct sink *s = user;
	ck_assert_uint_eq(offset, s->len);
	if (s->len + len > s->cap) {
		s->cap = 2 * (s->len + len);
		s->data = realloc(s->data, s->cap);
	}
	memcpy(s->data + s->len, data, len);
	s->len += len;
	return 0;
}

static void sink_stopped(void *user, uint64_t bytes, uint64_t reports,
			 const char *reason)
{
	struct sink *s = user;
	s->stopped = true;
}

static const struct gpd_recorder_sink_ops sink_ops = {
	.data = sink_data,
	.stopped = sink_stopped,
};

START_TEST(a_snapshot_of_a_span_equals_a_recording_of_it)
{
	struct fixture fx;
	fixture_start(&fx, 8u << 20, 1000000, 20000000);
	run_frames(&fx, 3);

	struct sink sink = { 0 };
	struct gpd_recorder *rec;
	struct gpd_error err;
	struct gpd_recorder_request rreq = { .role = GPD_ROLE_VIEWER };
	ck_assert_msg(gpd_recorder_start(&fx.daemon.registry, &rreq, &sink_ops, &sink,
					 &rec, &err) == 0, "%s", err.message);
	run_frames(&fx, 20);
	gpd_recorder_stop(rec, NULL);
	while (!sink.stopped)
		uv_run(&fx.loop, UV_RUN_ONCE);
	run_frames(&fx, 3);

	uint64_t mask = fx.dev->decoder.ts_mask;
	struct parsed recording, all;
	parse(sink.data, sink.len, mask, &recording);
	ck_assert_uint_gt(recording.samples, 300);

	/* The whole ring: the recording lies in it, record for record. */
	struct gpd_snapshot snap;
	ck_assert_msg(gpd_snapshot_take(fx.dev, 0, 0, &snap, &err) == 0, "%s",
		      err.message);
	ck_assert_uint_eq(snap.n_segments, 1);
	ck_assert(!snap.segments[0].truncated);
	parse(snap.data, snap.size, mask, &all);
	ck_assert_str_eq(all.info.metric_set, "RenderBasic");
	size_t at = 0;
	while (at < all.n && !same_record(&all, at, &recording, 0))
		at++;
	ck_assert_msg(at < all.n, "the recording's first report is not in the ring");
	ck_assert_uint_ge(all.n - at, recording.n);
	for (size_t i = 0; i < recording.n; i++)
		ck_assert_msg(same_record(&all, at + i, &recording, i),
			      "record %zu of the recording differs", i);

	/* The span of the recording's first and last report, as the ring
	 * places them: exactly the recording's reports. */
	size_t last = at + recording.n - 1;
	while (all.kind[last] != GPM_RECORDING_SAMPLE)
		last--;
	struct gpd_snapshot span;
	ck_assert_msg(gpd_snapshot_take(fx.dev, all.cpu_ns[at], all.cpu_ns[last],
					&span, &err) == 0, "%s", err.message);
	struct parsed cut;
	parse(span.data, span.size, mask, &cut);
	ck_assert_uint_eq(cut.samples, recording.samples);
	size_t i = 0, j = 0;
	for (; i < cut.n && j < recording.n; i++, j++)
		ck_assert_msg(same_record(&cut, i, &recording, j),
			      "record %zu of the span differs", i);
	ck_assert_uint_eq(span.segments[0].reports, recording.samples);
	ck_assert_uint_eq(span.segments[0].cpu_start_ns, all.cpu_ns[at]);
	ck_assert_uint_eq(span.segments[0].cpu_end_ns, all.cpu_ns[last]);

	parsed_free(&cut);
	parsed_free(&all);
	parsed_free(&recording);
	gpd_snapshot_free(&span);
	gpd_snapshot_free(&snap);
	gpd_recorder_destroy(rec);
	free(sink.data);
	fixture_stop(&fx);
}
END_TEST

START_TEST(a_set_change_starts_a_segment_each_decodable)
{
	struct fixture fx;
	fixture_start(&fx, 8u << 20, 1000000, 20000000);
	run_frames(&fx, 5);
	struct gpd_error err;
	ck_assert_msg(gpd_reconfigure(fx.sub, "ComputeBasic", 500000, &err) == 0,
		      "%s", err.message);
	run_frames(&fx, 5);
	ck_assert_uint_eq(fx.config_changes, 1);

	struct gpd_snapshot snap;
	ck_assert_msg(gpd_snapshot_take(fx.dev, 0, 0, &snap, &err) == 0, "%s",
		      err.message);
	ck_assert_uint_eq(snap.n_segments, 2);
	ck_assert_str_eq(snap.segments[0].metric_set, "RenderBasic");
	ck_assert_str_eq(snap.segments[1].metric_set, "ComputeBasic");
	ck_assert_uint_eq(snap.segments[0].period_ns,
			  gpd_exponent_to_ns(&fx.dev->source->info,
					     gpd_exponent_for_period(&fx.dev->source->info,
								     1000000)));
	ck_assert_uint_lt(snap.segments[1].period_ns, snap.segments[0].period_ns);
	ck_assert_uint_le(snap.segments[0].cpu_end_ns, snap.segments[1].cpu_start_ns);
	for (size_t k = 0; k < 2; k++) {
		const struct gpd_snapshot_segment *seg = &snap.segments[k];
		struct parsed p;
		parse(snap.data + seg->offset, seg->size, fx.dev->decoder.ts_mask, &p);
		ck_assert_str_eq(p.info.metric_set, seg->metric_set);
		ck_assert_uint_eq(p.samples, seg->reports);
		ck_assert_uint_gt(p.samples, 50);
		ck_assert(!seg->truncated);
		parsed_free(&p);
	}
	ck_assert_uint_eq(snap.segments[1].offset + snap.segments[1].size, snap.size);

	/* The span of the second set alone is one recording. */
	struct gpd_snapshot late;
	ck_assert_int_eq(gpd_snapshot_take(fx.dev, snap.segments[1].cpu_start_ns, 0,
					   &late, &err), 0);
	ck_assert_uint_eq(late.n_segments, 1);
	ck_assert_str_eq(late.segments[0].metric_set, "ComputeBasic");
	gpd_snapshot_free(&late);
	gpd_snapshot_free(&snap);
	fixture_stop(&fx);
}
END_TEST

START_TEST(an_overwritten_past_is_said)
{
	struct fixture fx;
	/* 256 KiB holds about 100 ms at 100 us. */
	fixture_start(&fx, GPD_FLIGHT_RECORDER_MIN_BYTES, 100000, 20000000);
	run_frames(&fx, 15);
	ck_assert_uint_gt(fx.dev->ring->stats.reports_overwritten, 0);
	ck_assert_uint_le(fx.dev->ring->stats.used, GPD_FLIGHT_RECORDER_MIN_BYTES);

	struct gpd_error err;
	struct gpd_snapshot snap;
	ck_assert_int_eq(gpd_snapshot_take(fx.dev, 0, 0, &snap, &err), 0);
	ck_assert_uint_eq(snap.n_segments, 1);
	ck_assert(snap.segments[0].truncated);
	ck_assert_uint_gt(snap.ring.reports_overwritten, 0);
	struct parsed p;
	parse(snap.data, snap.size, fx.dev->decoder.ts_mask, &p);
	/* The first record after the header follows a BUFFER_LOST. */
	ck_assert_uint_ge(p.n, 2);
	ck_assert_int_eq(p.kind[0], GPM_RECORDING_BUFFER_LOST);
	ck_assert_int_eq(p.kind[1], GPM_RECORDING_SAMPLE);
	ck_assert_uint_eq(snap.segments[0].buffers_lost, 1);

	/* The last 20 ms lie within what the ring holds: nothing missing. */
	struct gpd_snapshot recent;
	ck_assert_int_eq(gpd_snapshot_take(fx.dev, snap.newest_cpu_ns - 20000000, 0,
					   &recent, &err), 0);
	ck_assert(!recent.segments[0].truncated);
	struct parsed q;
	parse(recent.data, recent.size, fx.dev->decoder.ts_mask, &q);
	ck_assert_int_eq(q.kind[0], GPM_RECORDING_SAMPLE);
	ck_assert_uint_ge(q.samples, 150);
	parsed_free(&q);
	parsed_free(&p);
	gpd_snapshot_free(&recent);
	gpd_snapshot_free(&snap);
	fixture_stop(&fx);
}
END_TEST

START_TEST(spans_without_reports_and_devices_without_a_ring_are_refused)
{
	struct fixture fx;
	fixture_start(&fx, 1u << 20, 1000000, 20000000);
	struct gpd_error err;
	struct gpd_snapshot snap;
	ck_assert_int_eq(gpd_snapshot_take(fx.dev, 0, 0, &snap, &err), -ENODATA);
	ck_assert_msg(strstr(err.message, "holds no report yet"), "%s", err.message);
	run_frames(&fx, 3);
	uint64_t now = gpd_monotonic_ns();
	ck_assert_int_eq(gpd_snapshot_take(fx.dev, now + 1000000000, 0, &snap, &err),
			 -ENODATA);
	ck_assert_msg(strstr(err.message, "holds no report from the span"), "%s",
		      err.message);
	ck_assert_int_eq(gpd_device_keep_flight_recorder(fx.dev, 1u << 20, 0, &err),
			 -EEXIST);
	fixture_stop(&fx);

	struct gpd_flight_recorder *none = NULL;
	struct gpd_device dev = { .ring = none };
	struct gpd_source src = { .name = "sim9" };
	dev.source = &src;
	ck_assert_int_eq(gpd_snapshot_take(&dev, 0, 0, &snap, &err), -ENODEV);
	ck_assert_msg(strstr(err.message, "--flight-recorder"), "%s", err.message);
}
END_TEST

/* Runs the loop until done(fx) holds, or a generous deadline. */
static void run_until(struct fixture *fx, bool (*done)(const struct fixture *))
{
	fx->expired = false;
	uv_timer_start(&fx->deadline, on_deadline, 20000, 0);
	while (!done(fx) && !fx->expired)
		uv_run(&fx->loop, UV_RUN_ONCE);
	uv_timer_stop(&fx->deadline);
	ck_assert_msg(done(fx), "the state waited for did not come");
}

static bool ring_has_reports(const struct fixture *fx)
{
	return fx->dev->ring->stats.reports >= 200;
}

static bool streams_render_basic(const struct fixture *fx)
{
	return fx->dev->open && !strcmp(fx->dev->set->symbol_name, "RenderBasic");
}

static int start_kept(struct fixture *fx, const char **rings, size_t n_rings,
		      const char **keep, size_t n_keep, uint64_t memory,
		      struct gpd_error *err)
{
	static const char *devices[] = { "sim" };
	struct gpd_options opts = {
		.device_specs = devices,
		.n_device_specs = 1,
		.seed = 3,
		.flight_recorders = rings,
		.n_flight_recorders = n_rings,
		.flight_recorder_memory = memory,
		.keep_streaming = keep,
		.n_keep_streaming = n_keep,
	};
	memset(fx, 0, sizeof(*fx));
	gpd_log_set_level(GPD_LOG_WARNING);
	uv_loop_init(&fx->loop);
	uv_timer_init(&fx->loop, &fx->deadline);
	fx->deadline.data = fx;
	int ret = gpd_daemon_init(&fx->daemon, &fx->loop, &opts, err);
	/* The options are checked once the devices exist. */
	ck_assert_uint_eq(fx->daemon.registry.n_devices, 1);
	fx->dev = fx->daemon.registry.devices[0];
	return ret;
}

START_TEST(a_kept_stream_fills_the_ring_and_comes_back)
{
	static const char *rings[] = { "4Mi" };
	static const char *keep[] = { "RenderBasic@1ms" };
	struct fixture fx;
	struct gpd_error err;
	ck_assert_msg(start_kept(&fx, rings, 1, keep, 1, 0, &err) == 0, "%s",
		      err.message);
	ck_assert_ptr_nonnull(fx.dev->ring);
	ck_assert_uint_eq(fx.dev->ring->capacity, 4u << 20);
	/* Nobody subscribes, and the device streams. */
	ck_assert(streams_render_basic(&fx));
	run_until(&fx, ring_has_reports);

	/* A viewer joins what runs, and cannot change it. */
	struct gpd_subscription *viewer;
	struct gpd_subscribe_request vreq = {
		.metric_set = "MemoryL3",
		.window_ns = 10000000,
		.role = GPD_ROLE_VIEWER,
	};
	ck_assert_int_eq(gpd_subscribe(&fx.daemon.registry, &vreq, &collector_ops,
				       &fx, &viewer, &err), -EBUSY);

	/* A controller changes it, and leaves: it comes back. */
	struct gpd_subscribe_request creq = {
		.metric_set = "ComputeBasic",
		.sampling_period_ns = 500000,
		.window_ns = 10000000,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_msg(gpd_subscribe(&fx.daemon.registry, &creq, &collector_ops,
				    &fx, &fx.sub, &err) == 0, "%s", err.message);
	ck_assert_str_eq(fx.dev->set->symbol_name, "ComputeBasic");
	run_frames(&fx, 5);
	gpd_unsubscribe(fx.sub);
	fx.sub = NULL;
	run_until(&fx, streams_render_basic);
	ck_assert_uint_eq(fx.dev->exponent,
			  gpd_exponent_for_period(&fx.dev->source->info, 1000000));
	uint64_t reports = fx.dev->ring->stats.reports;
	while (fx.dev->ring->stats.reports < reports + 50)
		uv_run(&fx.loop, UV_RUN_ONCE);

	struct gpd_snapshot snap;
	ck_assert_int_eq(gpd_snapshot_take(fx.dev, 0, 0, &snap, &err), 0);
	ck_assert_uint_eq(snap.n_segments, 3);
	ck_assert_str_eq(snap.segments[0].metric_set, "RenderBasic");
	ck_assert_str_eq(snap.segments[1].metric_set, "ComputeBasic");
	ck_assert_str_eq(snap.segments[2].metric_set, "RenderBasic");
	gpd_snapshot_free(&snap);
	fixture_stop(&fx);
}
END_TEST

START_TEST(flight_recorder_options_are_checked_whole)
{
	struct fixture fx;
	struct gpd_error err;
	static const char *two_keep[] = { "RenderBasic", "sim0=ComputeBasic" };
	ck_assert_int_eq(start_kept(&fx, NULL, 0, two_keep, 2, 0, &err), -EINVAL);
	ck_assert_str_eq(err.message, "--keep-streaming RenderBasic and "
			 "sim0=ComputeBasic both name device sim0; give one");
	/* Nothing was applied. */
	ck_assert_uint_eq(fx.daemon.n_keepers, 0);
	ck_assert(!fx.dev->open);
	fixture_stop(&fx);

	static const char *big[] = { "sim0=300Mi" };
	ck_assert_int_eq(start_kept(&fx, big, 1, NULL, 0, 0, &err), -E2BIG);
	ck_assert_ptr_null(fx.dev->ring);
	ck_assert_msg(strstr(err.message, "--flight-recorder-memory"), "%s",
		      err.message);
	fixture_stop(&fx);

	static const char *nodev[] = { "card3=1Mi" };
	ck_assert_int_eq(start_kept(&fx, nodev, 1, NULL, 0, 0, &err), -ENODEV);
	ck_assert_msg(strstr(err.message, "no device 'card3'"), "%s", err.message);
	fixture_stop(&fx);

	/* A duration is what it takes at the kept period, and at the sim's
	 * context switches: 2 s at about 53 us is 37,500 reports of 264
	 * bytes, and a switch every 1 ms 2,000 more. */
	static const char *two_s[] = { "2s" };
	static const char *fast[] = { "RenderBasic@60us" };
	ck_assert_msg(start_kept(&fx, two_s, 1, fast, 1, 0, &err) == 0, "%s",
		      err.message);
	uint64_t period = gpd_exponent_to_ns(&fx.dev->source->info, fx.dev->exponent);
	uint64_t switches = fx.dev->source->context_switch_interval_ns;
	ck_assert_uint_eq(switches, 1000000);
	uint64_t want = (2000000000ull / period + 2000000000ull / switches) * 264;
	ck_assert_uint_ge(fx.dev->ring->capacity, want);
	ck_assert_uint_le(fx.dev->ring->capacity, want + want / 50);
	fixture_stop(&fx);
}
END_TEST

static Suite *flight_recorder_suite(void)
{
	Suite *s = suite_create("flight_recorder");
	TCase *ring = tcase_create("ring");
	tcase_add_test(ring, the_ring_keeps_the_newest_whole_records);
	tcase_add_test(ring, the_ring_says_the_time_it_holds);
	tcase_add_test(ring, segments_go_with_their_records);
	tcase_add_test(ring, a_ring_too_small_is_refused);
	suite_add_tcase(s, ring);
	TCase *sim = tcase_create("sim");
	tcase_set_timeout(sim, 60);
	tcase_add_test(sim, a_snapshot_of_a_span_equals_a_recording_of_it);
	tcase_add_test(sim, a_set_change_starts_a_segment_each_decodable);
	tcase_add_test(sim, an_overwritten_past_is_said);
	tcase_add_test(sim, spans_without_reports_and_devices_without_a_ring_are_refused);
	tcase_add_test(sim, a_kept_stream_fills_the_ring_and_comes_back);
	tcase_add_test(sim, flight_recorder_options_are_checked_whole);
	suite_add_tcase(s, sim);
	return s;
}

GPM_TEST_MAIN(flight_recorder_suite)
