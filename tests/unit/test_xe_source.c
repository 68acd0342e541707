/*
 * The xe source on the fake kernel, driven in-process through the
 * subscription API: bare reports framed into the same frames the sim
 * source gives, ADD_CONFIG's one register list, loss learned through EIO
 * and the status ioctl, and refusals in words.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uv.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/recorder.h"
#include "daemon/snapshot.h"
#include "daemon/subscription_internal.h"
#include "metrics/device.h"
#include "metrics/metric_binding.h"
#include "metrics/recording.h"
#include "tests/unit/fake_machine_daemon.h"
#include "tests/unit/test_util.h"

START_TEST(frames_equal_the_sim_source)
{
	fixture_check_frames_equal_the_sim_source("xe");
}
END_TEST

START_TEST(one_register_list_registered_and_removed)
{
	struct fixture fx;
	struct collector c = { 0 };
	fixture_start(&fx, "xe", "");
	fixture_stream(&fx, &c);
	const struct gpm_binding *b = gpd_daemon_find_device(&fx.daemon, NULL)->binding;
	size_t n = b->n_registers[GPM_REGISTERS_MUX] +
		   b->n_registers[GPM_REGISTERS_BOOLEAN] +
		   b->n_registers[GPM_REGISTERS_FLEX];
	char want[160];
	/* xe numbers its configs from 1. */
	snprintf(want, sizeof(want), "OA_ADD_CONFIG uuid=%s n_regs=%zu -> 1",
		 b->set->hw_config_guid, n);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine, want), 1);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine,
		"OA_STREAM_OPEN OA_UNIT_ID=0 SAMPLE_OA=1 OA_METRIC_SET=1 "
		"OA_FORMAT=1280 OA_PERIOD_EXPONENT=13 -> "), 1);
	gpd_unsubscribe(c.sub);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine,
						"OA_REMOVE_CONFIG id=1 -> 0"), 1);
	fixture_stop(&fx);
	fake_machine_stop(&fx.machine);
}
END_TEST

/* xe says what was lost in the stream's status, read after EIO. */
static void lost_reports_in_the_status(struct fixture *fx)
{
	ck_assert_uint_gt(fake_machine_requests(&fx->machine,
						"stream STATUS -> 0x1"), 0);
}

START_TEST(loss_comes_through_the_status)
{
	struct fixture fx;
	struct collector c = { 0 };
	fixture_start(&fx, "xe", "RenderBasic");
	fixture_check_loss(&fx, &c, lost_reports_in_the_status);
	/* DRM_XE_OASTATUS_BUFFER_OVERFLOW, with REPORT_LOST or without. */
	ck_assert_uint_gt(fake_machine_requests(&fx.machine, "stream STATUS -> 0x2") +
			  fake_machine_requests(&fx.machine, "stream STATUS -> 0x3"), 0);
	fixture_finish(&fx, &c);
}
END_TEST

/* DG2: the OA unit ignores CTC_SHIFT, and xe reports its clock, twice the
 * GT's reference clock (xe_oa_timestamp_frequency()). The kernel's
 * oa_exponent_to_ns() makes 2 << exponent ticks of it a period, and the
 * reports' raw timestamps are that far apart (IGT xe_oa oa-exponents), so
 * a window of 10 ms holds 10 ms of reports and GpuTime says 10 ms. */
START_TEST(dg2_time_runs_at_the_oa_clock)
{
	struct fixture fx;
	struct collector c = { .stop_after = 6 };
	struct gpd_error err = { 0 };
	const char *gpu_time[] = { "GpuTime" };
	fixture_start_on(&fx, "xe", "acmgt1", "RenderBasic");
	struct gpd_subscribe_request req = {
		.metric_set = "RenderBasic",
		.sampling_period_ns = 1000000,
		.window_ns = 10000000,
		.counters = gpu_time,
		.n_counters = 1,
		.role = GPD_ROLE_CONTROLLER,
	};
	c.daemon = &fx.daemon;
	ck_assert_msg(gpd_subscribe(&fx.daemon.registry, &req, &collector_ops, &c,
				    &c.sub, &err) == 0, "%s", err.message);
	fixture_run(&fx, 10000);
	const struct gpd_device *dev = gpd_daemon_find_device(&fx.daemon, NULL);
	ck_assert_uint_eq(dev->source->info.timestamp_frequency, 38400000);
	ck_assert_uint_eq(dev->source->info.cs_timestamp_frequency, 19200000);
	/* $L3BankTotalCount from the main GT's DRM_XE_TOPO_L3_BANK mask: the
	 * fake's DG2-G11 has eight banks. */
	ck_assert_uint_eq(dev->vars.value[GPM_VAR_L3_BANK_TOTAL_COUNT], 8);
	/* 2 << 14 ticks at 38.4 MHz: 853 us, the longest period within 1 ms. */
	ck_assert_uint_eq(fake_machine_requests(&fx.machine,
						"OA_PERIOD_EXPONENT=14 -> "), 1);
	ck_assert_uint_ge(c.frames, 6);
	uint64_t period = gpd_exponent_to_ns(&dev->source->info, 14);
	ck_assert_uint_eq(period, 853334);
	/* The first window starts with the stream: look from the second. */
	for (unsigned f = 1; f < 6; f++) {
		uint64_t span = c.gpu_end[f] - c.gpu_start[f];
		ck_assert_uint_le(span, 10000000 + period);
		ck_assert_uint_ge(span, 10000000 - period);
		ck_assert_msg(c.values[f][0].u <= span + period &&
			      c.values[f][0].u + period >= span,
			      "frame %u: GpuTime %llu ns over %llu ns", f,
			      (unsigned long long)c.values[f][0].u,
			      (unsigned long long)span);
	}
	uint64_t last_end = c.gpu_end[5];
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
	/* The frames' GPU time is the OA unit's: where the fake's OA unit
	 * was when the stream closed, after the last frame, and not by a
	 * whole second later. */
	unsigned long long closed_tick;
	ck_assert(fake_machine_request_value(&fx.machine,
		"stream close at OA tick ", &closed_tick));
	uint64_t closed_ns = closed_tick * 1000000000ull / 38400000;
	ck_assert_msg(last_end <= closed_ns && last_end + 1000000000 > closed_ns,
		      "the last frame ends at %llu ns, the unit closed at %llu ns",
		      (unsigned long long)last_end, (unsigned long long)closed_ns);
	fake_machine_stop(&fx.machine);
}
END_TEST

struct recording {
	struct gpd_daemon *daemon;
	FILE *file;
	uint64_t reports;
	bool stopped;
};

static int recording_data(void *user, uint64_t offset, const void *data,
			  size_t len)
{
	struct recording *r = user;
	return fwrite(data, 1, len, r->file) == len ? 0 : -EIO;
}

static void recording_stopped(void *user, uint64_t bytes, uint64_t reports,
			      const char *reason)
{
	struct recording *r = user;
	r->reports = reports;
	r->stopped = true;
	uv_stop(r->daemon->loop);
}

static const struct gpd_recorder_sink_ops recording_ops = {
	.data = recording_data,
	.stopped = recording_stopped,
};

/* A DG2 recording places its reports in time for IGT's reader: the
 * correlation points hold the command streamer's timestamp, as IGT's
 * recorder reads it from RCS_TIMESTAMP, and the reader shifts the OA
 * unit's faster timestamps right by one to meet them. */
START_TEST(dg2_recordings_correlate_with_the_cs_clock)
{
	struct fixture fx;
	struct gpd_error err = { 0 };
	char path[] = "/tmp/gpd-test-dg2-XXXXXX";
	struct recording r = { 0 };
	struct gpd_recorder *rec;

	if (access("/usr/bin/i915-perf-reader", X_OK) != 0) {
		printf("note: /usr/bin/i915-perf-reader is absent (Debian package "
		       "intel-gpu-tools); the DG2 recording check skipped\n");
		return;
	}
	fixture_start_on(&fx, "xe", "acmgt1", "RenderBasic");
	r.daemon = &fx.daemon;
	r.file = fdopen(mkstemp(path), "w");
	ck_assert_ptr_nonnull(r.file);
	struct gpd_recorder_request req = {
		.metric_set = "RenderBasic",
		.sampling_period_ns = 1000000,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_msg(gpd_recorder_start(&fx.daemon.registry, &req, &recording_ops, &r,
					 &rec, &err) == 0, "%s", err.message);
	fixture_run(&fx, 300);
	gpd_recorder_stop(rec, NULL);
	if (!r.stopped)
		fixture_run(&fx, 5000);
	ck_assert(r.stopped);
	ck_assert_uint_gt(r.reports, 10);
	gpd_recorder_destroy(rec);
	fixture_stop(&fx);
	fake_machine_stop(&fx.machine);
	ck_assert_int_eq(fclose(r.file), 0);

	char cmd[128], out[4096] = "";
	/* Without the fake kernel this test runs under: under SAN=1 it
	 * brings the sanitizers into the reader, whose leaks fail it. */
	snprintf(cmd, sizeof(cmd), "env -u LD_PRELOAD /usr/bin/i915-perf-reader "
		 "-c GpuTime '%s' 2>&1", path);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	size_t n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	/* The rest, so the reader is not cut off by SIGPIPE; its end says
	 * why the reader failed, if it did. */
	char rest[4096], tail[1024] = "";
	size_t got;
	while ((got = fread(rest, 1, sizeof(rest) - 1, p)) > 0) {
		rest[got] = '\0';
		size_t keep = got < sizeof(tail) - 1 ? got : sizeof(tail) - 1;
		memcpy(tail, rest + got - keep, keep);
		tail[keep] = '\0';
	}
	int status = pclose(p);
	unlink(path);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "i915-perf-reader: status %d:\n%.1500s\n...\n%s", status,
		      out, tail);
	ck_assert_msg(strstr(out, "Recorded on device=0x56a5"), "%.1500s", out);
}
END_TEST

/*
 * A media set (oa_format 128B_MPEC8_NOA16) counts on the OAM unit whose
 * MPES registers it programs. On MTL that is the media GT's one OAM unit,
 * whose clock is the media GT's reference clock: the workarounds that make
 * the OAG unit count at twice the CS clock match the main GT only
 * (xe_oa_timestamp_frequency(), xe_rtp.c skipping GRAPHICS_VERSION rules
 * on a standalone media GT). So the exponent for 1 ms is 13 there, 14 on
 * OAG, and GpuTime converts with the unit's own clock. (xe's MTL metric
 * file has no media set; i915's, for the same chip, has.)
 */
START_TEST(media_sets_stream_on_their_oam_unit)
{
	struct fixture fx;
	struct collector c = { 0 };
	struct gpd_error err = { 0 };
	fixture_start_with(&fx, "xe", "mtlgt2", "i915", "");
	ck_assert_msg(fixture_stream_gpu_time(&fx, &c, "MediaSet1", &err) == 0, "%s",
		      err.message);
	ck_assert_uint_ge(c.frames, 3);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine,
		"OA_STREAM_OPEN OA_UNIT_ID=1 SAMPLE_OA=1 OA_METRIC_SET=1 "
		"OA_FORMAT=516 OA_PERIOD_EXPONENT=13 -> "), 1);
	fixture_gpu_time_covers_the_window(&c);
	gpd_unsubscribe(c.sub);
	struct collector r = { 0 };
	ck_assert_msg(fixture_stream_gpu_time(&fx, &r, "RenderBasic", &err) == 0, "%s",
		      err.message);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine,
		"OA_STREAM_OPEN OA_UNIT_ID=0 SAMPLE_OA=1 OA_METRIC_SET=1 "
		"OA_FORMAT=1280 OA_PERIOD_EXPONENT=14 -> "), 1);
	fixture_gpu_time_covers_the_window(&r);
	fixture_finish(&fx, &r);

	/* Lunar Lake's media sets program SCMI_0's MPES: its second OAM
	 * unit after the SAG one, id 2. */
	c = (struct collector){ 0 };
	fixture_start_on(&fx, "xe", "lnl", "");
	ck_assert_msg(fixture_stream_gpu_time(&fx, &c, "MediaSet1", &err) == 0, "%s",
		      err.message);
	ck_assert_uint_ge(c.frames, 3);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine,
		"OA_STREAM_OPEN OA_UNIT_ID=2 SAMPLE_OA=1 OA_METRIC_SET=1 "
		"OA_FORMAT=516 "), 1);
	fixture_gpu_time_covers_the_window(&c);
	fixture_finish(&fx, &c);
}
END_TEST

/*
 * The flight recorder keeps a media set's segment with its own unit's
 * clock and report format (the OAM unit's: 19.2 MHz and MPEC8u32 on
 * MTL, where the render unit counts at 38.4 MHz in another format): its
 * reports are read with that format, timed with that clock, and its
 * recording's header says both, so that a reader decodes it.
 */
START_TEST(media_segments_keep_their_unit_clock_and_format)
{
	struct fixture fx;
	struct collector c = { 0 }, r = { 0 };
	struct gpd_error err = { 0 };
	fixture_start_with(&fx, "xe", "mtlgt2", "i915", "");
	struct gpd_device *dev = gpd_daemon_find_device(&fx.daemon, NULL);
	ck_assert_msg(gpd_device_keep_flight_recorder(dev, 16u << 20, 0, &err) == 0,
		      "%s", err.message);
	struct gpd_stream_shape media, render;
	ck_assert_int_eq(gpd_device_set_shape(dev, gpd_device_find_set(dev,
				"MediaSet1"), &media, &err), 0);
	ck_assert_int_eq(gpd_device_set_shape(dev, gpd_device_find_set(dev,
				"RenderBasic"), &render, &err), 0);
	ck_assert_uint_ne(media.timestamp_frequency, render.timestamp_frequency);
	ck_assert_ptr_ne(media.format, render.format);

	ck_assert_msg(fixture_stream_gpu_time(&fx, &c, "MediaSet1", &err) == 0,
		      "%s", err.message);
	ck_assert_uint_ge(c.frames, 3);
	gpd_unsubscribe(c.sub);
	ck_assert_msg(fixture_stream_gpu_time(&fx, &r, "RenderBasic", &err) == 0,
		      "%s", err.message);
	struct gpd_snapshot snap;
	ck_assert_msg(gpd_snapshot_take(dev, 1, 0, &snap, &err) == 0, "%s",
		      err.message);
	ck_assert_uint_eq(snap.n_segments, 2);
	const struct gpd_snapshot_segment *m = &snap.segments[0];
	ck_assert_str_eq(m->metric_set, "MediaSet1");
	ck_assert_str_eq(snap.segments[1].metric_set, "RenderBasic");
	/* Exponent 13 on the OAM unit's clock (xe chose it for 1 ms). */
	ck_assert_uint_eq(m->period_ns,
			  gpd_exponent_to_ns_at(media.timestamp_frequency, 13));
	/* Its reports reach as far as the media frames did: on the render
	 * unit's faster clock they would end halfway. */
	ck_assert_uint_gt(m->reports, 10);
	ck_assert_msg(m->cpu_start_ns <= c.cpu_start[0] + m->period_ns &&
		      m->cpu_end_ns + 2 * m->period_ns >= c.cpu_end[2],
		      "the media segment's reports span %llu..%llu ns, its "
		      "frames %llu..%llu", (unsigned long long)m->cpu_start_ns,
		      (unsigned long long)m->cpu_end_ns,
		      (unsigned long long)c.cpu_start[0],
		      (unsigned long long)c.cpu_end[2]);

	/* The headers say each segment's unit. */
	for (size_t k = 0; k < snap.n_segments; k++) {
		const struct gpd_stream_shape *shape = k ? &render : &media;
		struct gpm_recording_reader *rd = malloc(sizeof(*rd));
		struct gpm_recording_error rerr;
		ck_assert_ptr_nonnull(rd);
		ck_assert_msg(gpm_recording_reader_open_memory(rd,
				snap.data + snap.segments[k].offset,
				snap.segments[k].size, &rerr) == 0, "%s",
			      rerr.message);
		ck_assert_uint_eq(rd->info.oa_format, shape->format->i915_format);
		ck_assert_uint_eq(rd->info.device.timestamp_frequency,
				  shape->timestamp_frequency);
		ck_assert_uint_eq(rd->info.report_size, shape->format->size);
		/* The point after the last report is placed from the one
		 * before by the unit's clock: their CPU times differ by
		 * their ticks at that clock (points are in the command
		 * streamer's ticks, as the unit relates to them). */
		struct gpm_recording_record rec;
		struct gpm_recording_correlation prev = { 0 }, last = { 0 };
		unsigned points = 0;
		for (;;) {
			ck_assert_msg(gpm_recording_reader_next(rd, &rec, &rerr) == 0,
				      "%s", rerr.message);
			if (rec.kind == GPM_RECORDING_END)
				break;
			if (rec.kind == GPM_RECORDING_CORRELATION) {
				prev = last;
				last = rec.correlation;
				points++;
			}
		}
		ck_assert_uint_ge(points, 2);
		struct gpm_device_info unit;
		gpd_device_unit_info(dev, shape->timestamp_frequency, &unit);
		uint64_t ticks = gpm_device_oa_ticks(&unit, last.gpu_timestamp) -
				 gpm_device_oa_ticks(&unit, prev.gpu_timestamp);
		uint64_t want = ticks * 1000000000ull / shape->timestamp_frequency;
		uint64_t got = last.cpu_ns - prev.cpu_ns;
		/* Within a tick: the points' ticks are rounded. */
		uint64_t tick = 1000000000ull / shape->timestamp_frequency + 2;
		ck_assert_msg(got + tick >= want && got <= want + tick,
			      "segment %zu: %llu ticks after the point before, the "
			      "last point is %llu ns later, not %llu", k,
			      (unsigned long long)ticks, (unsigned long long)got,
			      (unsigned long long)want);
		gpm_recording_reader_close(rd);
		free(rd);
	}
	gpd_snapshot_free(&snap);
	fixture_finish(&fx, &r);
}
END_TEST

START_TEST(refusals_are_words)
{
	struct fixture fx;
	struct collector c = { 0 };
	struct gpd_error err = { 0 };
	fixture_start(&fx, "xe", "RenderBasic");
	fake_machine_control(&fx.machine, "busy=1\n");
	ck_assert_int_eq(fixture_subscribe(&fx, &c, "RenderBasic", 1000000,
					   &err), -EBUSY);
	ck_assert_msg(strstr(err.message, "the OA unit of card0 is in use by "
			     "another process"), "%s", err.message);
	fake_machine_control(&fx.machine, "capable=0\n");
	ck_assert_int_eq(fixture_subscribe(&fx, &c, "RenderBasic", 1000000,
					   &err), -EACCES);
	ck_assert_msg(strstr(err.message, "dev.xe.observation_paranoid is 1 and "
			     "gpuperfd lacks CAP_PERFMON"), "%s", err.message);
	fake_machine_control(&fx.machine, "einval=format\n");
	ck_assert_int_eq(fixture_subscribe(&fx, &c, "RenderBasic", 1000000,
					   &err), -EINVAL);
	ck_assert_msg(strstr(err.message, "card0 rejected the stream parameters "
			     "(EINVAL): OA format A32u40_A4u32_B8_C8 (0x500)"),
		      "%s", err.message);
	fixture_stop(&fx);
	fake_machine_stop(&fx.machine);
}
END_TEST

static Suite *xe_source_suite(void)
{
	Suite *s = suite_create("xe_source");
	TCase *tc = tcase_create("fake kernel");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, frames_equal_the_sim_source);
	tcase_add_test(tc, one_register_list_registered_and_removed);
	tcase_add_test(tc, loss_comes_through_the_status);
	tcase_add_test(tc, dg2_time_runs_at_the_oa_clock);
	tcase_add_test(tc, dg2_recordings_correlate_with_the_cs_clock);
	tcase_add_test(tc, refusals_are_words);
	tcase_add_test(tc, media_sets_stream_on_their_oam_unit);
	tcase_add_test(tc, media_segments_keep_their_unit_clock_and_format);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(xe_source_suite)
