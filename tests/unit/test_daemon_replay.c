/*
 * The daemon's replay source at speed=max gives the same windows and values
 * as the offline `gpuperf replay` on the same recording.
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

/* A tglgt2 RenderBasic recording from the simulated OA unit. */
static void write_recording(const char *path)
{
	struct gpm_metrics_db db;
	gpm_metrics_db_init(&db);
	ck_assert_int_eq(gpm_metrics_db_add_platform_file(&db, i915_dir(), "tglgt2"), 1);
	const struct gpm_metric_set *set =
		gpm_metrics_db_find_set(&db, "tglgt2", "RenderBasic");
	const struct gpm_platform *platform = gpm_platform_by_name("tglgt2");
	struct gpm_recording_info info = { 0 };
	gpm_platform_default_device(platform, &info.device);
	info.device.pci_id = 0x9a49;
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
			}
		}
	}
	ck_assert_int_eq(gpm_recording_writer_flush(w, NULL), 0);
	fclose(f);
	free(w);
	gpd_oa_model_destroy(model);
	gpm_metrics_db_fini(&db);
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
};

static void on_frame(void *user, const struct gpd_frame *f)
{
	struct frames *fr = user;
	double vals[256];
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
}

static const struct gpd_subscriber_ops ops = { on_frame, on_event };

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

static Suite *daemon_replay_suite(void)
{
	Suite *s = suite_create("daemon_replay");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, daemon_replay_equals_offline_replay);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(daemon_replay_suite)
