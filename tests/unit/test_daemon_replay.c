/*
 * The daemon's replay source at speed=max gives the same windows and values
 * as the offline `gpuperf replay` on the same recording; it starts over
 * when asked to loop, counts a recorded BUFFER_LOST without a delta across
 * it, and refuses in words the recordings it cannot replay.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uv.h>

#include "client/commands.h"
#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/sim/oa_model.h"
#include "metrics/metrics_db.h"
#include "metrics/oa_record.h"
#include "metrics/platform.h"
#include "metrics/recording.h"
#include "tests/unit/test_util.h"

#define N_REPORTS 20000

static const char *i915_dir(void)
{
	static char dir[512];
	return test_shared_path(dir, sizeof(dir), "intel-metrics/i915");
}

/* What a test recording differs in. */
struct recording_options {
	uint16_t pci_id;                /* 0: Tiger Lake GT2's 0x9a49 */
	bool buffer_lost;               /* a BUFFER_LOST two thirds in */
	bool correlation;               /* a correlation point half way */
};

/* A tglgt2 RenderBasic recording from the simulated OA unit. */
static void write_recording_with(const char *path, struct recording_options o)
{
	struct gpm_metrics_db db;
	gpm_metrics_db_init(&db);
	ck_assert_int_eq(gpm_metrics_db_add_platform_file(&db, i915_dir(), "tglgt2"), 1);
	const struct gpm_metric_set *set =
		gpm_metrics_db_find_set(&db, "tglgt2", "RenderBasic");
	const struct gpm_platform *platform = gpm_platform_by_name("tglgt2");
	struct gpm_recording_info info = { 0 };
	gpm_platform_default_device(platform, &info.device);
	info.device.pci_id = o.pci_id ? o.pci_id : 0x9a49;
	info.oa_format = platform->i915_oa_format;
	snprintf(info.metric_set, sizeof(info.metric_set), "%s", set->symbol_name);
	snprintf(info.uuid, sizeof(info.uuid), "%s", set->hw_config_guid);

	struct gpd_oa_model_config mc = {
		.dev = &info.device,
		.oa_format = platform->i915_oa_format,
		.exponent = 6,
		.seed = 3,
		.set = set,
		.start_timestamp = 0xfff00000u,         /* wraps inside */
	};
	struct gpd_oa_model *model;
	ck_assert_int_eq(gpd_oa_model_create(&mc, &model), 0);
	gpd_oa_model_enable(model);

	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	struct gpm_recording_writer *w = malloc(sizeof(*w));
	gpm_recording_writer_init_file(w, f, 0);
	ck_assert_int_eq(gpm_recording_write_header(w, &info, NULL), 0);
	static unsigned char buf[1 << 20];
	unsigned samples = 0;
	while (samples < N_REPORTS) {
		gpd_oa_model_advance(model, 128 * 512);
		ssize_t n;
		while ((n = gpd_oa_model_read(model, buf, sizeof(buf))) > 0) {
			struct gpm_oa_record_reader rd;
			struct gpm_oa_record rec;
			gpm_oa_record_reader_init(&rd, GPM_OA_FRAMING_I915, 256, buf,
						  (size_t)n);
			while (gpm_oa_record_next(&rd, &rec) > 0 && samples < N_REPORTS) {
				if (rec.type != GPM_OA_RECORD_SAMPLE)
					continue;
				ck_assert_int_eq(gpm_recording_write_sample(
					w, rec.payload, rec.payload_size, NULL), 0);
				samples++;
				if (samples == N_REPORTS / 3)
					gpm_recording_write_report_lost(w, NULL);
				if (samples == 2 * N_REPORTS / 3 && o.buffer_lost)
					gpm_recording_write_buffer_lost(w, NULL);
				if (samples == N_REPORTS / 2 && o.correlation) {
					struct gpm_recording_correlation c = {
						1000000000ull, 0xfff00000ull,
					};
					ck_assert_int_eq(gpm_recording_write_correlation(
						w, &c, NULL), 0);
				}
			}
		}
	}
	ck_assert_int_eq(gpm_recording_writer_flush(w, NULL), 0);
	fclose(f);
	free(w);
	gpd_oa_model_destroy(model);
	gpm_metrics_db_fini(&db);
}

static void write_recording(const char *path)
{
	write_recording_with(path, (struct recording_options){ 0 });
}

struct rows {
	size_t n_rows, n_cols;
	double *v;                      /* n_rows x n_cols */
	unsigned *reports;
	unsigned *lost;
};

static void rows_add(struct rows *r, const double *values, unsigned reports,
		     unsigned lost)
{
	r->v = realloc(r->v, (r->n_rows + 1) * r->n_cols * sizeof(double));
	r->reports = realloc(r->reports, (r->n_rows + 1) * sizeof(unsigned));
	r->lost = realloc(r->lost, (r->n_rows + 1) * sizeof(unsigned));
	memcpy(r->v + r->n_rows * r->n_cols, values, r->n_cols * sizeof(double));
	r->reports[r->n_rows] = reports;
	r->lost[r->n_rows] = lost;
	r->n_rows++;
}

/* gpuperf replay's CSV, counters only (after the nine metadata columns:
 * platform, metric_set, timestamp_ns, gpu_timestamp, duration_ns,
 * context_id, reports, lost, buffers_lost). */
static void read_csv(const char *path, struct rows *r)
{
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	char *line = NULL;
	size_t cap = 0;
	ck_assert_int_gt(getline(&line, &cap, f), 0);
	size_t cols = 1;
	for (char *p = line; *p; p++)
		cols += *p == ',';
	r->n_cols = cols - 9;
	double *vals = calloc(r->n_cols, sizeof(double));
	while (getline(&line, &cap, f) > 0) {
		/* Fields may be empty (no correlation points, no context). */
		char *rest = line, *tok;
		unsigned reports = 0, lost = 0;
		size_t col = 0, k = 0;
		line[strcspn(line, "\n")] = 0;
		while ((tok = strsep(&rest, ","))) {
			if (col == 6)
				reports = (unsigned)strtoul(tok, NULL, 10);
			else if (col == 7)
				lost = (unsigned)strtoul(tok, NULL, 10);
			else if (col >= 9 && k < r->n_cols)
				vals[k++] = strtod(tok, NULL);
			col++;
		}
		ck_assert_uint_eq(k, r->n_cols);
		rows_add(r, vals, reports, lost);
	}
	free(vals);
	free(line);
	fclose(f);
}

struct frames {
	struct rows rows;
	bool ended;
	uv_loop_t *loop;
	unsigned restarts;
	unsigned frames_after_restart;
	unsigned long long reports, buffers_lost;
	unsigned stop_after_restart;    /* frames after a restart, then stop */
	struct gpd_record_tap *tap;     /* NULL, or sees the device's records */
	/* Counts the passes begun in each loop iteration (each poll of the
	 * replay at most), until two began in one or 20 in all. */
	bool count_passes;
	unsigned restarts_seen;         /* up to the iteration before */
	unsigned most_passes_a_poll;
};

static void on_frame(void *user, const struct gpd_frame *f)
{
	struct frames *fr = user;
	double vals[256];
	fr->reports += f->reports;
	fr->buffers_lost += f->buffer_lost;
	if (fr->restarts && ++fr->frames_after_restart >= fr->stop_after_restart &&
	    fr->stop_after_restart)
		uv_stop(fr->loop);
	if (!fr->rows.n_cols)
		return;         /* only counted */
	ck_assert_uint_eq(f->n_values, fr->rows.n_cols);
	for (size_t i = 0; i < f->n_values; i++)
		vals[i] = gpm_value_as_double(f->values[i]);
	rows_add(&fr->rows, vals, f->reports, f->lost_reports);
}

static void on_event(void *user, const struct gpd_event *ev)
{
	struct frames *fr = user;
	if (ev->kind == GPD_EVENT_ENDED) {
		fr->ended = true;
		uv_stop(fr->loop);
	}
	if (ev->kind == GPD_EVENT_RESTARTED)
		fr->restarts++;
}

static const struct gpd_subscriber_ops ops = { .frame = on_frame, .event = on_event };

static void on_deadline(uv_timer_t *t)
{
	uv_stop(t->loop);
}

START_TEST(daemon_replay_equals_offline_replay)
{
	char rec[] = "/tmp/gpm-test-dreplay-XXXXXX";
	char csv[] = "/tmp/gpm-test-dreplay-csv-XXXXXX";
	close(mkstemp(rec));
	close(mkstemp(csv));
	write_recording(rec);

	char *argv[] = { "replay", rec, "--metrics-dir", (char *)i915_dir(),
			 "--interval", "1ms", "--format", "csv", "-o", csv, NULL };
	ck_assert_int_eq(gpuperf_cmd_replay(10, argv), GPUPERF_EXIT_OK);
	struct rows offline = { 0 };
	read_csv(csv, &offline);
	ck_assert_uint_gt(offline.n_rows, 20);

	char spec[128];
	snprintf(spec, sizeof(spec), "replay:%s,speed=max", rec);
	const char *devices[] = { spec };
	const char *dirs[] = { i915_dir() };
	struct gpd_options opts = {
		.device_specs = devices, .n_device_specs = 1,
		.metrics_dirs = dirs, .n_metrics_dirs = 1,
	};
	uv_loop_t loop;
	uv_loop_init(&loop);
	struct gpd_daemon d;
	struct gpd_error err;
	gpd_log_set_level(GPD_LOG_WARNING);
	ck_assert_msg(gpd_daemon_init(&d, &loop, &opts, &err) == 0, "%s", err.message);
	struct frames fr = { .rows.n_cols = offline.n_cols, .loop = &loop };
	struct gpd_subscribe_request req = {
		.window_ns = 1000000,
		.role = GPD_ROLE_CONTROLLER,
	};
	struct gpd_subscription *sub;
	ck_assert_msg(gpd_subscribe(&d.registry, &req, &ops, &fr, &sub, &err) == 0,
		      "%s", err.message);
	uv_timer_t deadline;
	uv_timer_init(&loop, &deadline);
	uv_timer_start(&deadline, on_deadline, 20000, 0);
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert(fr.ended);

	ck_assert_uint_eq(fr.rows.n_rows, offline.n_rows);
	unsigned lost = 0;
	for (size_t r = 0; r < offline.n_rows; r++) {
		ck_assert_uint_eq(fr.rows.reports[r], offline.reports[r]);
		ck_assert_uint_eq(fr.rows.lost[r], offline.lost[r]);
		lost += fr.rows.lost[r];
		for (size_t c = 0; c < offline.n_cols; c++) {
			double a = fr.rows.v[r * offline.n_cols + c];
			double b = offline.v[r * offline.n_cols + c];
			ck_assert_msg(fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)),
				      "row %zu column %zu: daemon %.17g, replay %.17g",
				      r, c, a, b);
		}
	}
	ck_assert_uint_eq(lost, 1);

	gpd_unsubscribe(sub);
	uv_close((uv_handle_t *)&deadline, NULL);
	gpd_daemon_stop(&d);
	uv_run(&loop, UV_RUN_DEFAULT);
	gpd_daemon_fini(&d);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
	free(offline.v); free(offline.reports); free(offline.lost);
	free(fr.rows.v); free(fr.rows.reports); free(fr.rows.lost);
	unlink(rec);
	unlink(csv);
}
END_TEST

static void on_iteration(uv_check_t *check)
{
	struct frames *fr = check->data;
	unsigned n = fr->restarts - fr->restarts_seen;
	fr->restarts_seen = fr->restarts;
	if (n > fr->most_passes_a_poll)
		fr->most_passes_a_poll = n;
	if (fr->most_passes_a_poll >= 2 || fr->restarts >= 20)
		uv_stop(check->loop);
}

/* A daemon replaying spec (at speed=max) with the metric files when
 * with_metrics, frames into fr until the replay ends or stops it. */
static void run_replay(const char *spec, bool with_metrics, struct frames *fr)
{
	const char *devices[] = { spec };
	const char *dirs[] = { i915_dir() };
	struct gpd_options opts = {
		.device_specs = devices, .n_device_specs = 1,
		.metrics_dirs = dirs, .n_metrics_dirs = with_metrics,
	};
	uv_loop_t loop;
	struct gpd_daemon d;
	struct gpd_error err;
	uv_loop_init(&loop);
	gpd_log_set_level(GPD_LOG_ERROR);
	ck_assert_msg(gpd_daemon_init(&d, &loop, &opts, &err) == 0, "%s", err.message);
	fr->loop = &loop;
	struct gpd_subscribe_request req = {
		.window_ns = 1000000,
		.role = GPD_ROLE_CONTROLLER,
	};
	struct gpd_subscription *sub;
	ck_assert_msg(gpd_subscribe(&d.registry, &req, &ops, fr, &sub, &err) == 0,
		      "%s", err.message);
	if (fr->tap)
		gpd_device_add_tap(d.registry.devices[0], fr->tap);
	uv_check_t iteration;
	uv_check_init(&loop, &iteration);
	iteration.data = fr;
	if (fr->count_passes)
		uv_check_start(&iteration, on_iteration);
	uv_timer_t deadline;
	uv_timer_init(&loop, &deadline);
	/* Only bounds a hang: the replay ends, or the loop is stopped. */
	uv_timer_start(&deadline, on_deadline, 120000, 0);
	uv_run(&loop, UV_RUN_DEFAULT);
	if (fr->tap)
		gpd_device_remove_tap(d.registry.devices[0], fr->tap);
	gpd_unsubscribe(sub);
	uv_close((uv_handle_t *)&iteration, NULL);
	uv_close((uv_handle_t *)&deadline, NULL);
	gpd_daemon_stop(&d);
	uv_run(&loop, UV_RUN_DEFAULT);
	gpd_daemon_fini(&d);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
}

/* ",loop": the recording starts over at its end, and says so. */
START_TEST(replay_loops)
{
	char rec[] = "/tmp/gpm-test-dreplay-loop-XXXXXX";
	char spec[128];
	close(mkstemp(rec));
	write_recording(rec);
	snprintf(spec, sizeof(spec), "replay:%s,speed=max,loop", rec);
	struct frames fr = { .stop_after_restart = 20 };
	run_replay(spec, true, &fr);
	ck_assert(!fr.ended);
	ck_assert_uint_ge(fr.restarts, 1);
	ck_assert_uint_ge(fr.frames_after_restart, 20);
	unlink(rec);
}
END_TEST

/* A looped replay at speed=1000 of a recording 133 ms long: a pass is
 * 0.13 ms of the replay clock, so the passes due at a 5 ms poll follow
 * one another in it, each on the recording's timeline; one pass a poll
 * would run the replay at a fortieth of its speed. */
START_TEST(looped_passes_keep_the_replay_clock)
{
	char rec[] = "/tmp/gpm-test-dreplay-passes-XXXXXX";
	char spec[128];
	close(mkstemp(rec));
	write_recording(rec);
	snprintf(spec, sizeof(spec), "replay:%s,speed=1000,loop", rec);
	struct frames fr = { .count_passes = true };
	run_replay(spec, true, &fr);
	ck_assert_msg(fr.most_passes_a_poll >= 2,
		      "%u passes, never more than %u a poll", fr.restarts,
		      fr.most_passes_a_poll);
	unlink(rec);
}
END_TEST

/* A recorded BUFFER_LOST is counted, and no delta is taken across it: of
 * N reports, N - 2 pairs. */
START_TEST(replayed_buffer_lost)
{
	char rec[] = "/tmp/gpm-test-dreplay-lost-XXXXXX";
	char spec[128];
	close(mkstemp(rec));
	write_recording_with(rec, (struct recording_options){ .buffer_lost = true });
	snprintf(spec, sizeof(spec), "replay:%s,speed=max", rec);
	struct frames fr = { 0 };
	run_replay(spec, true, &fr);
	ck_assert(fr.ended);
	ck_assert_uint_eq(fr.buffers_lost, 1);
	ck_assert_uint_eq(fr.reports, N_REPORTS - 2);
	unlink(rec);
}
END_TEST

struct bytes {
	unsigned char *data;
	size_t len, cap;
};

static void bytes_add(struct bytes *b, const void *data, size_t len)
{
	if (b->len + len > b->cap) {
		b->cap = 2 * (b->len + len);
		b->data = realloc(b->data, b->cap);
		ck_assert_ptr_nonnull(b->data);
	}
	memcpy(b->data + b->len, data, len);
	b->len += len;
}

static void on_tap(void *user, const void *data, size_t len)
{
	bytes_add(user, data, len);
}

/* The kernel's records in the recording at path, as the reader yields
 * them. */
static void kernel_records(const char *path, struct bytes *b)
{
	struct gpm_recording_reader r;
	struct gpm_recording_record rec;
	ck_assert_int_eq(gpm_recording_reader_open(&r, path, NULL), 0);
	while (gpm_recording_reader_next(&r, &rec, NULL) == 0 &&
	       rec.kind != GPM_RECORDING_END) {
		unsigned char header[GPM_OA_RECORD_HEADER_SIZE];
		enum gpm_oa_record_type type =
			rec.kind == GPM_RECORDING_SAMPLE ? GPM_OA_RECORD_SAMPLE :
			rec.kind == GPM_RECORDING_REPORT_LOST ?
			GPM_OA_RECORD_REPORT_LOST : GPM_OA_RECORD_BUFFER_LOST;
		if (rec.kind == GPM_RECORDING_CORRELATION)
			continue;
		gpm_oa_record_put_header(header, type,
					 (uint16_t)(sizeof(header) + rec.size));
		bytes_add(b, header, sizeof(header));
		if (rec.size)
			bytes_add(b, rec.data, rec.size);
	}
	gpm_recording_reader_close(&r);
}

/* The device gets the recording's records whole and in order, loss
 * markers included and correlation points left out, paced or not,
 * however the file's reads cut them. */
START_TEST(replay_hands_on_every_record)
{
	char rec[] = "/tmp/gpm-test-dreplay-records-XXXXXX";
	close(mkstemp(rec));
	write_recording_with(rec, (struct recording_options){
		.buffer_lost = true, .correlation = true });
	struct bytes want = { 0 };
	kernel_records(rec, &want);
	ck_assert_uint_gt(want.len, 4u << 20);
	static const char *const speeds[] = { "speed=max", "speed=1" };
	for (unsigned i = 0; i < 2; i++) {
		char spec[128];
		snprintf(spec, sizeof(spec), "replay:%s,%s", rec, speeds[i]);
		struct bytes got = { 0 };
		struct gpd_record_tap tap = { .records = on_tap, .user = &got };
		struct frames fr = { .tap = &tap };
		run_replay(spec, true, &fr);
		ck_assert(fr.ended);
		ck_assert_uint_eq(got.len, want.len);
		ck_assert_msg(memcmp(got.data, want.data, want.len) == 0,
			      "%s: the records differ", speeds[i]);
		free(got.data);
	}
	free(want.data);
	unlink(rec);
}
END_TEST

/* What the replay source cannot replay, refused before anything runs. */
static const char *refusal(const char *spec, bool with_metrics)
{
	static struct gpd_error err;
	const char *devices[] = { spec };
	const char *dirs[] = { i915_dir() };
	struct gpd_options opts = {
		.device_specs = devices, .n_device_specs = 1,
		.metrics_dirs = dirs, .n_metrics_dirs = with_metrics,
	};
	uv_loop_t loop;
	struct gpd_daemon d;

	uv_loop_init(&loop);
	memset(&err, 0, sizeof(err));
	ck_assert_int_ne(gpd_daemon_init(&d, &loop, &opts, &err), 0);
	/* A refused start is wound down as gpuperfd's main does. */
	gpd_daemon_stop(&d);
	uv_run(&loop, UV_RUN_DEFAULT);
	gpd_daemon_fini(&d);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
	return err.message;
}

START_TEST(replay_refusals)
{
	char rec[] = "/tmp/gpm-test-dreplay-bad-XXXXXX";
	char spec[128];
	const char *why;

	close(mkstemp(rec));
	write_recording_with(rec, (struct recording_options){ .pci_id = 0x1234 });
	snprintf(spec, sizeof(spec), "replay:%s", rec);
	why = refusal(spec, true);
	ck_assert_msg(strstr(why, "recorded on PCI device 0x1234, which no known platform matches"),
		      "%s", why);
	write_recording(rec);
	why = refusal(spec, false);
	ck_assert_msg(strstr(why, "recorded with metric set 'RenderBasic' of tglgt2, which no "
			     "loaded file defines"), "%s", why);
	unlink(rec);
	snprintf(spec, sizeof(spec), "replay:%s-gone", rec);
	why = refusal(spec, true);
	ck_assert_msg(strstr(why, "-gone") && strstr(why, "No such file"), "%s", why);
}
END_TEST

static Suite *daemon_replay_suite(void)
{
	Suite *s = suite_create("daemon_replay");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, daemon_replay_equals_offline_replay);
	tcase_add_test(tc, replay_loops);
	tcase_add_test(tc, looped_passes_keep_the_replay_clock);
	tcase_add_test(tc, replayed_buffer_lost);
	tcase_add_test(tc, replay_hands_on_every_record);
	tcase_add_test(tc, replay_refusals);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(daemon_replay_suite)
