/*
 * gpuperf replay: recordings written with the recording writer, replayed
 * by the command, and compared value for value with IGT's
 * i915-perf-reader on every counter of every metric set of the four
 * platforms whose metric files IGT 1.27.1 has built in identically (Skylake
 * GT2, Kaby Lake GT2, Tiger Lake GT2, Alder Lake). Also the output formats, the window modes and the errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/commands.h"
#include "client/human_text.h"
#include "metrics/metrics_db.h"
#include "metrics/recording.h"
#include "tests/unit/test_util.h"

#define IGT_READER "/usr/bin/i915-perf-reader"
#define REPORT_SIZE 256
#define FORMAT_A32u40_A4u32_B8_C8 10
#define CTX_VALID (1u << 16)
#define REASON_TIMER (1u << 19)
#define REASON_CTX_SWITCH (8u << 19)
#define IDLE 0xffffffffu

struct platform {
	const char *name;
	uint32_t pci_id;
	uint64_t timestamp_frequency;
	unsigned max_slices, max_subslices, max_eus;
	unsigned subslices;             /* present in slice 0 */
	bool gen12;
};

static const struct platform skl = {
	"sklgt2", 0x1916, 12000000, 3, 4, 8, 3, false,
};
static const struct platform tgl = {
	"tglgt2", 0x9a49, 19200000, 1, 6, 16, 6, true,
};
static const struct platform kbl = {
	"kblgt2", 0x5916, 12000000, 3, 4, 8, 3, false,
};
static const struct platform adl = {
	"adl", 0x46a6, 19200000, 1, 6, 16, 6, true,
};

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static const char *intel_metrics_dir(void)
{
	static char dir[512];
	return test_shared_path(dir, sizeof(dir), "intel-metrics/i915");
}

static const char *mtl_render_basic_uuid(void)
{
	static char uuid[40];
	struct gpm_metrics_db db;
	gpm_metrics_db_init(&db);
	ck_assert_int_gt(gpm_metrics_db_add_dir(&db, intel_metrics_dir()), 0);
	const struct gpm_metric_set *set =
		gpm_metrics_db_find_set(&db, "mtlgt2", "RenderBasic");
	ck_assert_ptr_nonnull(set);
	snprintf(uuid, sizeof(uuid), "%s", set->hw_config_guid);
	gpm_metrics_db_fini(&db);
	return uuid;
}

/* A deterministic stream of numbers, so failures repeat. */
static uint32_t rnd(uint64_t *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*state >> 33);
}

/* The counters of the simulated OA unit, at full width. */
struct counters {
	uint64_t ts;
	uint32_t clk;
	uint64_t a[32];                 /* 40 bits */
	uint32_t a32[4];
	uint32_t b[8], c[8];
};

static void encode(unsigned char *r, const struct counters *s, uint32_t dw0,
		   uint32_t ctx)
{
	memset(r, 0, REPORT_SIZE);
	put32(r + 0, dw0);
	put32(r + 4, (uint32_t)s->ts);
	put32(r + 8, ctx);
	put32(r + 12, s->clk);
	for (int i = 0; i < 32; i++) {
		put32(r + 16 + 4 * i, (uint32_t)s->a[i]);
		r[160 + i] = (unsigned char)(s->a[i] >> 32);
	}
	for (int i = 0; i < 4; i++)
		put32(r + 144 + 4 * i, s->a32[i]);
	for (int i = 0; i < 8; i++) {
		put32(r + 192 + 4 * i, s->b[i]);
		put32(r + 224 + 4 * i, s->c[i]);
	}
}

/* Moves the counters on by ticks of GPU time at a random load. */
static void advance(struct counters *s, uint64_t ticks, uint64_t *seed,
		    uint64_t frequency)
{
	uint64_t clocks = ticks * 1000000000ull / frequency *
			  (50 + rnd(seed) % 51) / 100;
	s->ts += ticks;
	s->clk += (uint32_t)clocks;
	for (int i = 0; i < 32; i++)
		s->a[i] = (s->a[i] + clocks * (rnd(seed) % 1000) / 100) &
			  ((1ull << 40) - 1);
	for (int i = 0; i < 4; i++)
		s->a32[i] += (uint32_t)(clocks * (rnd(seed) % 100) / 100);
	for (int i = 0; i < 8; i++) {
		s->b[i] += (uint32_t)(clocks * (rnd(seed) % 100) / 100);
		s->c[i] += (uint32_t)(clocks * (rnd(seed) % 100) / 100);
	}
}

struct recording_options {
	const struct platform *p;
	const char *metric_set;
	const char *uuid;
	int n_reports;
	bool buffer_lost;               /* one BUFFER_LOST in the middle */
};

/*
 * Writes a recording as IGT's recorder would: timer reports on multiples of
 * the OA period (2 << exponent ticks) with context-switch reports between
 * them, a context change every 9 reports and an idle stretch, a REPORT_LOST,
 * a 32-bit timestamp wrap a third of the way in, 40-bit and 32-bit counter
 * wraps, and correlation points bridging the wrap.
 */
static void write_recording(const char *path,
			    const struct recording_options *o)
{
	const struct platform *p = o->p;
	struct gpm_recording_writer *w = malloc(sizeof(*w));
	struct gpm_recording_info info;
	struct counters s;
	unsigned char report[REPORT_SIZE];
	uint64_t seed = 0x1234567 + (uint64_t)o->n_reports;
	const uint64_t period = 2u << 12;
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	memset(&info, 0, sizeof(info));
	info.device.pci_id = p->pci_id;
	info.device.timestamp_frequency = p->timestamp_frequency;
	info.device.gpu_min_freq = 300000000;
	info.device.gpu_max_freq = 1100000000;
	struct gpm_topology *t = &info.device.topology;
	t->max_slices = (uint16_t)p->max_slices;
	t->max_subslices = (uint16_t)p->max_subslices;
	t->max_eus_per_subslice = (uint16_t)p->max_eus;
	t->slice_mask = 1;
	t->subslice_mask[0] = (1u << p->subslices) - 1;
	for (unsigned ss = 0; ss < p->subslices; ss++)
		t->eu_mask[0][ss] = (uint16_t)((1u << p->max_eus) - 1);
	info.oa_format = FORMAT_A32u40_A4u32_B8_C8;
	snprintf(info.metric_set, sizeof(info.metric_set), "%s", o->metric_set);
	snprintf(info.uuid, sizeof(info.uuid), "%s", o->uuid);

	memset(&s, 0, sizeof(s));
	s.ts = (1ull << 32) - (uint64_t)(o->n_reports / 3) * period + 0x7000000000;
	s.ts -= s.ts % period;
	s.clk = 0xfff00000u;
	for (int i = 0; i < 32; i++)
		s.a[i] = (1ull << 40) - 1000000ull * (uint64_t)(i + 1);
	for (int i = 0; i < 8; i++)
		s.b[i] = s.c[i] = 0xffff0000u - (uint32_t)i * 0x100000u;

	gpm_recording_writer_init_file(w, f, 0);
	ck_assert_int_eq(gpm_recording_write_header(w, &info, NULL), 0);
	const uint64_t cpu0 = 1000000000000ull, gpu0 = s.ts - 100;
	struct gpm_recording_correlation c = { cpu0, gpu0 };
	ck_assert_int_eq(gpm_recording_write_correlation_bridged(w, &c, NULL), 0);

	uint32_t ctx = 0x10, next_ctx = 0x11;
	for (int i = 0; i < o->n_reports; i++) {
		uint32_t dw0 = REASON_TIMER;
		if (i % 9 == 0 && i) {
			/* a context switch between two timer reports */
			advance(&s, 1 + rnd(&seed) % (period - 1), &seed,
				p->timestamp_frequency);
			ctx = i % 27 == 0 ? IDLE : next_ctx++;
			dw0 = REASON_CTX_SWITCH;
		} else {
			advance(&s, period - s.ts % period, &seed,
				p->timestamp_frequency);
		}
		/* Before Gen12 an idle report has the valid bit clear and the
		 * kernel squashes its context to 0xffffffff. */
		if (ctx != IDLE || p->gen12)
			dw0 |= CTX_VALID;
		encode(report, &s, dw0, ctx);
		ck_assert_int_eq(gpm_recording_write_sample(w, report,
							    sizeof(report),
							    NULL), 0);
		if (i == 5)
			ck_assert_int_eq(gpm_recording_write_report_lost(w, NULL), 0);
		if (i == o->n_reports / 2 && o->buffer_lost)
			ck_assert_int_eq(gpm_recording_write_buffer_lost(w, NULL), 0);
		if (i == o->n_reports / 2) {
			c.gpu_timestamp = s.ts + 10;
			c.cpu_ns = cpu0 + (c.gpu_timestamp - gpu0) *
				   1000000000ull / p->timestamp_frequency;
			ck_assert_int_eq(gpm_recording_write_correlation_bridged(
						 w, &c, NULL), 0);
		}
	}
	c.gpu_timestamp = s.ts + 1;
	c.cpu_ns = cpu0 + (c.gpu_timestamp - gpu0) * 1000000000ull /
		   p->timestamp_frequency;
	ck_assert_int_eq(gpm_recording_write_correlation_bridged(w, &c, NULL), 0);
	ck_assert_int_eq(gpm_recording_writer_flush(w, NULL), 0);
	ck_assert_int_eq(fclose(f), 0);
	free(w);
}

/* Runs gpuperf replay with FILE and the arguments of ap, then extra
 * (either list NULL-terminated). */
static int replay_va(const char *first, va_list ap, const char *const *extra)
{
	char *argv[40];
	int argc = 0;

	argv[argc++] = (char *)"replay";
	argv[argc++] = (char *)first;
	for (const char *a; (a = va_arg(ap, const char *));)
		argv[argc++] = (char *)a;
	for (; extra && *extra; extra++)
		argv[argc++] = (char *)*extra;
	argv[argc] = NULL;
	return gpuperf_cmd_replay(argc, argv);
}

static int replay(const char *first, ...)
{
	va_list ap;
	va_start(ap, first);
	int ret = replay_va(first, ap, NULL);
	va_end(ap);
	return ret;
}

/* The whole output of a command. */
static char *run_command(const char *cmd, int *status)
{
	FILE *p = popen(cmd, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0;

	ck_assert_ptr_nonnull(p);
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		size_t n = fread(buf + len, 1, cap - len - 1, p);
		if (n == 0)
			break;
		len += n;
	}
	buf[len] = '\0';
	int st = pclose(p);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return buf;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)size + 1);
	ck_assert_uint_eq(fread(buf, 1, (size_t)size, f), (size_t)size);
	buf[size] = '\0';
	fclose(f);
	return buf;
}

/* A CSV file as rows of fields, split in place. */
struct csv {
	char *text;
	size_t n_rows, n_cols;
	char ***rows;                   /* rows[0] is the header */
};

static void csv_load(struct csv *csv, const char *path)
{
	csv->text = read_file(path);
	csv->n_rows = 0;
	csv->rows = NULL;
	for (char *line = strtok(csv->text, "\n"); line;
	     line = strtok(NULL, "\n")) {
		csv->rows = realloc(csv->rows, (csv->n_rows + 1) *
					       sizeof(*csv->rows));
		size_t n = 1;
		for (char *p = line; *p; p++)
			n += *p == ',';
		char **fields = calloc(n, sizeof(*fields));
		for (size_t i = 0; i < n; i++) {
			fields[i] = line;
			line += strcspn(line, ",");
			if (*line)
				*line++ = '\0';
		}
		if (csv->n_rows == 0)
			csv->n_cols = n;
		ck_assert_uint_eq(n, csv->n_cols);
		csv->rows[csv->n_rows++] = fields;
	}
	ck_assert_uint_ge(csv->n_rows, 1);
}

static void csv_free(struct csv *csv)
{
	for (size_t i = 0; i < csv->n_rows; i++)
		free(csv->rows[i]);
	free(csv->rows);
	free(csv->text);
}

static int csv_column(const struct csv *csv, const char *key)
{
	for (size_t i = 0; i < csv->n_cols; i++)
		if (!strcmp(csv->rows[0][i], key))
			return (int)i;
	return -1;
}

/* IGT prints integers with %PRIu64 and floats with %f. */
static bool same_value(const char *igt, const char *ours)
{
	if (!strchr(igt, '.'))
		return !strcmp(igt, ours);
	char *end;
	double a = strtod(igt, &end), b = strtod(ours, NULL);
	if (*ours == '\0')
		return false;
	return fabs(a - b) <= 5e-7 + 1e-9 * fabs(a);
}

/*
 * Checks the counter lines of one IGT block ("   Name: value" lines from
 * *cursor on) against row of csv; returns how many it compared and leaves
 * *cursor at the first line that is not a counter.
 */
static size_t compare_block(char **cursor, const struct csv *csv, size_t row,
			    const char *what)
{
	size_t n = 0;
	char *line = *cursor;

	while (line && !strncmp(line, "   ", 3)) {
		char *next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *colon = strstr(line, ": ");
		ck_assert_ptr_nonnull(colon);
		*colon = '\0';
		const char *name = line + 3, *value = colon + 2;
		int col = csv_column(csv, name);
		ck_assert_msg(col >= 0, "%s: IGT prints %s, gpuperf does not",
			      what, name);
		ck_assert_msg(same_value(value, csv->rows[row][col]),
			      "%s, row %zu: %s is %s in IGT, %s in gpuperf",
			      what, row, name, value, csv->rows[row][col]);
		n++;
		line = next;
	}
	*cursor = line;
	return n;
}

static char *next_line(char *line)
{
	char *nl = strchr(line, '\n');
	return nl ? nl + 1 : NULL;
}

/*
 * Replays one recording per report and per context, runs IGT's reader
 * with -r on it, and compares every counter of every report pair and of
 * every timeline.
 */
static void cross_check(const struct platform *p,
			const struct gpm_metric_set *set)
{
	char path[] = "/tmp/gpm-test-replay-XXXXXX";
	char pairs[] = "/tmp/gpm-test-replay-pairs-XXXXXX";
	char contexts[] = "/tmp/gpm-test-replay-ctx-XXXXXX";
	char what[128], cmd[256];
	struct recording_options o = {
		.p = p, .metric_set = set->symbol_name,
		.uuid = set->hw_config_guid, .n_reports = 64,
	};
	struct csv per_pair, per_ctx;
	int status;

	snprintf(what, sizeof(what), "%s %s", p->name, set->symbol_name);
	close(mkstemp(path));
	close(mkstemp(pairs));
	close(mkstemp(contexts));
	write_recording(path, &o);
	ck_assert_int_eq(replay(path, "--metrics-dir", intel_metrics_dir(),
				"--per-report", "--format", "csv", "-o", pairs,
				NULL), GPUPERF_EXIT_OK);
	ck_assert_int_eq(replay(path, "--metrics-dir", intel_metrics_dir(),
				"--per-context", "--format", "csv", "-o",
				contexts, NULL), GPUPERF_EXIT_OK);
	csv_load(&per_pair, pairs);
	csv_load(&per_ctx, contexts);

	snprintf(cmd, sizeof(cmd), "%s -r -c all '%s' 2>&1", IGT_READER, path);
	char *out = run_command(cmd, &status);
	ck_assert_msg(status == 0, "%s: i915-perf-reader exited %d:\n%.2000s",
		      what, status, out);
	ck_assert_msg(strstr(out, "\nReports: 64\n"), "%s: %.2000s", what, out);

	size_t pair = 0, item = 0, compared = 0;
	int ctx_col = csv_column(&per_ctx, "context_id");
	for (char *line = out; line;) {
		if (!strncmp(line, "hw_id=", 6)) {
			/* a timeline: its context, then its counters */
			item++;
			ck_assert_uint_lt(item, per_ctx.n_rows);
			uint32_t hw_id = (uint32_t)strtoul(line + 6, NULL, 16);
			const char *ours = per_ctx.rows[item][ctx_col];
			if (hw_id == IDLE) {
				ck_assert_str_eq(ours, "idle");
			} else {
				/* Contexts are written in hex, as IGT does. */
				ck_assert_int_eq(strncmp(ours, "0x", 2), 0);
				ck_assert_uint_eq(strtoul(ours, NULL, 16), hw_id);
			}
			line = next_line(line);
			size_t n = compare_block(&line, &per_ctx, item, what);
			ck_assert_uint_eq(n, per_ctx.n_cols - 9);
			continue;
		}
		if (!strncmp(line, " report", 7)) {
			pair++;
			ck_assert_uint_lt(pair, per_pair.n_rows);
			line = next_line(line);
			size_t n = compare_block(&line, &per_pair, pair, what);
			ck_assert_uint_eq(n, per_pair.n_cols - 9);
			compared += n;
			continue;
		}
		line = next_line(line);
	}
	/* every pair and every timeline, nothing more on our side */
	ck_assert_uint_eq(pair, 63);
	ck_assert_uint_eq(pair, per_pair.n_rows - 1);
	ck_assert_uint_eq(item, per_ctx.n_rows - 1);
	ck_assert_uint_gt(compared, 0);

	free(out);
	csv_free(&per_pair);
	csv_free(&per_ctx);
	unlink(path);
	unlink(pairs);
	unlink(contexts);
}

static void cross_check_platform(const struct platform *p)
{
	struct gpm_metrics_db db;

	if (access(IGT_READER, X_OK) != 0)
		TEST_SKIP("replay values against IGT's reader",
			  "%s: Debian package intel-gpu-tools", IGT_READER);
	gpm_metrics_db_init(&db);
	ck_assert_int_gt(gpm_metrics_db_add_dir(&db, intel_metrics_dir()), 0);
	const struct gpm_metrics_file *file =
		gpm_metrics_db_find_platform(&db, p->name);
	ck_assert_ptr_nonnull(file);
	for (size_t i = 0; i < file->n_sets; i++)
		cross_check(p, &file->sets[i]);
	gpm_metrics_db_fini(&db);
}

START_TEST(test_igt_values_skl)
{
	cross_check_platform(&skl);
}
END_TEST

START_TEST(test_igt_values_tgl)
{
	cross_check_platform(&tgl);
}
END_TEST

START_TEST(test_igt_values_kbl)
{
	cross_check_platform(&kbl);
}
END_TEST

START_TEST(test_igt_values_adl)
{
	cross_check_platform(&adl);
}
END_TEST

/*
 * Meteor Lake's OA unit ignores CTC_SHIFT (Wa_18013179988): its reports
 * count at twice the command streamer's clock, and the recording carries
 * that OA clock, as IGT's recorder takes it from
 * I915_PARAM_OA_TIMESTAMP_FREQUENCY. The kernel's oa_exponent_to_ns()
 * makes 2 << exponent ticks of it a period: GpuTime is the raw delta over
 * it. IGT's reader (lib/i915/perf.c) shifts the delta right by one before
 * dividing by the same clock and prints half; here it is not followed.
 */
START_TEST(test_mtl_gpu_time_is_the_oa_clock)
{
	char path[] = "/tmp/gpm-test-replay-XXXXXX";
	char pairs[] = "/tmp/gpm-test-replay-pairs-XXXXXX";
	const uint64_t freq = 38400000, period = 2u << 12;
	struct gpm_recording_writer *w = malloc(sizeof(*w));
	struct gpm_recording_info info;
	unsigned char report[REPORT_SIZE];
	struct csv csv;

	close(mkstemp(path));
	close(mkstemp(pairs));
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	memset(&info, 0, sizeof(info));
	info.device.pci_id = 0x7d45;
	info.device.timestamp_frequency = freq;
	info.device.gpu_min_freq = 100000000;
	info.device.gpu_max_freq = 2250000000;
	/* i915 reports Xe_LPG as one slice of up to 32 dual-subslices. */
	struct gpm_topology *t = &info.device.topology;
	t->max_slices = 1;
	t->max_subslices = 32;
	t->max_eus_per_subslice = 16;
	t->slice_mask = 1;
	t->subslice_mask[0] = 0xf;
	for (unsigned ss = 0; ss < 4; ss++)
		t->eu_mask[0][ss] = 0xffff;
	info.oa_format = 12;            /* A24u40_A14u32_B8_C8 */
	snprintf(info.metric_set, sizeof(info.metric_set), "RenderBasic");
	snprintf(info.uuid, sizeof(info.uuid), "%s", mtl_render_basic_uuid());
	gpm_recording_writer_init_file(w, f, 0);
	ck_assert_int_eq(gpm_recording_write_header(w, &info, NULL), 0);
	struct gpm_recording_correlation c = { 1000000000000ull, 0x40000000 };
	ck_assert_int_eq(gpm_recording_write_correlation(w, &c, NULL), 0);
	for (uint32_t i = 0; i < 3; i++) {
		memset(report, 0, sizeof(report));
		put32(report, REASON_TIMER | CTX_VALID);
		put32(report + 4, 0x80000000u + i * (uint32_t)period);
		put32(report + 8, 0x10);
		put32(report + 12, 1000 * i);
		ck_assert_int_eq(gpm_recording_write_sample(w, report,
							    sizeof(report),
							    NULL), 0);
	}
	c = (struct gpm_recording_correlation){ 1000000001000ull, 0x40001000 };
	ck_assert_int_eq(gpm_recording_write_correlation(w, &c, NULL), 0);
	ck_assert_int_eq(gpm_recording_writer_flush(w, NULL), 0);
	ck_assert_int_eq(fclose(f), 0);
	free(w);

	ck_assert_int_eq(replay(path, "--metrics-dir", intel_metrics_dir(),
				"--per-report", "--format", "csv", "-o", pairs,
				NULL), GPUPERF_EXIT_OK);
	csv_load(&csv, pairs);
	int col = csv_column(&csv, "GpuTime");
	ck_assert_int_ge(col, 0);
	ck_assert_uint_eq(csv.n_rows, 3);
	for (size_t row = 1; row < csv.n_rows; row++)
		ck_assert_str_eq(csv.rows[row][col], "213333"); /* 8192 / 38.4 MHz */
	csv_free(&csv);
	unlink(path);
	unlink(pairs);
}
END_TEST

/* ------------------------------------------------------------------ */

static void render_basic(char *path, size_t size, int n_reports,
			 bool buffer_lost)
{
	struct recording_options o = {
		.p = &skl, .metric_set = "RenderBasic",
		.uuid = "07b25942-d9fd-4fce-bd58-e29abd66b7de",
		.n_reports = n_reports, .buffer_lost = buffer_lost,
	};
	snprintf(path, size, "/tmp/gpm-test-replay-XXXXXX");
	close(mkstemp(path));
	write_recording(path, &o);
}

/* What replaying path with the arguments (NULL-terminated) prints. */
static char *replay_to_string(const char *path, ...)
{
	char out[] = "/tmp/gpm-test-replay-out-XXXXXX";
	const char *const extra[] = { "--metrics-dir", intel_metrics_dir(),
				      "-o", out, NULL };
	va_list ap;

	close(mkstemp(out));
	va_start(ap, path);
	ck_assert_int_eq(replay_va(path, ap, extra), GPUPERF_EXIT_OK);
	va_end(ap);
	char *text = read_file(out);
	unlink(out);
	return text;
}

START_TEST(test_metadata_columns)
{
	char path[64], out[] = "/tmp/gpm-test-replay-out-XXXXXX";
	struct csv csv;

	render_basic(path, sizeof(path), 40, true);
	close(mkstemp(out));
	ck_assert_int_eq(replay(path, "--metrics-dir", intel_metrics_dir(),
				"--per-report", "--format", "csv", "-c",
				"GpuTime,GpuCoreClocks", "--raw", "-o", out,
				NULL), GPUPERF_EXIT_OK);
	csv_load(&csv, out);
	const char *const header[] = {
		"platform", "metric_set", "timestamp_ns", "gpu_timestamp",
		"duration_ns", "context_id", "reports", "lost", "buffers_lost",
		"GpuTime", "GpuCoreClocks", "raw_gpu_time", "raw_gpu_clock",
		"raw_a0",
	};
	for (size_t i = 0; i < sizeof(header) / sizeof(header[0]); i++)
		ck_assert_str_eq(csv.rows[0][i], header[i]);
	ck_assert_int_eq(csv_column(&csv, "raw_a35"), 13 + 35);
	ck_assert_int_eq(csv_column(&csv, "raw_b0"), 13 + 36);
	ck_assert_int_eq(csv_column(&csv, "raw_c7"), 13 + 36 + 15);
	ck_assert_uint_eq(csv.n_cols, 13 + 36 + 16);

	/* 39 pairs less the one across the BUFFER_LOST */
	ck_assert_uint_eq(csv.n_rows - 1, 38);
	uint64_t lost = 0, buffers = 0, prev_ts = 0, prev_gpu = 0;
	for (size_t r = 1; r < csv.n_rows; r++) {
		char **row = csv.rows[r] + 2;
		ck_assert_str_eq(csv.rows[r][0], "sklgt2");
		ck_assert_str_eq(csv.rows[r][1], "RenderBasic");
		lost += strtoull(row[5], NULL, 10);
		buffers += strtoull(row[6], NULL, 10);
		ck_assert_str_eq(row[4], "1");
		/* GpuTime is the raw timestamp delta in ns */
		uint64_t ticks = strtoull(row[9], NULL, 10);
		ck_assert_uint_eq(strtoull(row[7], NULL, 10),
				  ticks * 1000000000 / 12000000);
		ck_assert_uint_eq(strtoull(row[2], NULL, 10),
				  ticks * 1000000000 / 12000000);
		ck_assert_str_eq(row[8], row[10]);
		/* CPU and GPU time move forward, across the 32-bit wrap */
		uint64_t ts = strtoull(row[0], NULL, 10);
		uint64_t gpu = strtoull(row[1], NULL, 10);
		ck_assert_uint_gt(ts, prev_ts);
		ck_assert_uint_gt(gpu, prev_gpu);
		prev_ts = ts;
		prev_gpu = gpu;
	}
	ck_assert_uint_eq(lost, 1);
	ck_assert_uint_eq(buffers, 1);
	ck_assert_uint_gt(prev_gpu, 1ull << 32);
	/* the first window starts at the first report, one period and 100
	 * ticks after the first correlation point */
	ck_assert_uint_eq(strtoull(csv.rows[1][2], NULL, 10),
			  1000000000000ull + (100 + 8192) * 1000000000ull /
			  12000000);
	csv_free(&csv);
	unlink(out);
	unlink(path);
}
END_TEST

/* Windows of any mode add up to the same totals. */
START_TEST(test_interval_and_context_windows)
{
	char path[64];
	render_basic(path, sizeof(path), 120, false);

	char *pairs = replay_to_string(path, "--per-report", "--format", "csv",
				       "--raw", NULL);
	char *ivals = replay_to_string(path, "--interval", "20ms", "--format",
				       "csv", NULL);
	char *ctxs = replay_to_string(path, "--per-context", "--format", "csv",
				      "--raw", NULL);
	struct {
		char *text;
		uint64_t reports, rows, ns;
	} runs[3] = { { pairs, 0, 0, 0 }, { ivals, 0, 0, 0 }, { ctxs, 0, 0, 0 } };
	for (int i = 0; i < 3; i++) {
		char *save, *line = strtok_r(runs[i].text, "\n", &save);
		while ((line = strtok_r(NULL, "\n", &save))) {
			char *f[10], *p = line + strcspn(line, ",") + 1;
			p += strcspn(p, ",") + 1;
			for (int k = 0; k < 8; k++) {
				f[k] = p;
				p += strcspn(p, ",");
				if (*p)
					*p++ = '\0';
			}
			runs[i].reports += strtoull(f[4], NULL, 10);
			runs[i].ns += strtoull(f[2], NULL, 10);
			runs[i].rows++;
		}
	}
	ck_assert_uint_eq(runs[0].reports, 119);
	ck_assert_uint_eq(runs[1].reports, 119);
	ck_assert_uint_eq(runs[2].reports, 119);
	ck_assert_uint_eq(runs[0].rows, 119);
	/* 2^13 ticks at 12 MHz is 683 us: 20 ms takes about 29 of them */
	ck_assert_uint_ge(runs[1].rows, 3);
	ck_assert_uint_le(runs[1].rows, 6);
	/* contexts change every 9 reports */
	ck_assert_uint_eq(runs[2].rows, 14);
	/* each row's duration is rounded down on its own */
	ck_assert_uint_le(runs[0].ns, runs[1].ns);
	ck_assert_uint_le(runs[1].ns, runs[0].ns + runs[0].rows);
	free(pairs);
	free(ivals);
	free(ctxs);
	unlink(path);
}
END_TEST

/* Every NDJSON line is an object with the CSV's keys and values. */
START_TEST(test_ndjson)
{
	char path[64];
	render_basic(path, sizeof(path), 30, false);

	char *csv = replay_to_string(path, "--per-report", "--format", "csv",
				     "-c", "all", NULL);
	char *json = replay_to_string(path, "--per-report", "--format",
				      "ndjson", "-c", "all", NULL);
	char *csv_save, *json_save;
	char *header = strtok_r(csv, "\n", &csv_save);
	char *keys[256];
	size_t n_keys = 0;
	for (char *k = strtok(header, ","); k; k = strtok(NULL, ","))
		keys[n_keys++] = k;
	ck_assert_uint_gt(n_keys, 20);

	size_t rows = 0;
	for (char *line = strtok_r(json, "\n", &json_save); line;
	     line = strtok_r(NULL, "\n", &json_save)) {
		char *csv_line = strtok_r(NULL, "\n", &csv_save);
		ck_assert_ptr_nonnull(csv_line);
		size_t len = strlen(line);
		ck_assert_int_eq(line[0], '{');
		ck_assert_int_eq(line[len - 1], '}');
		char *p = line + 1;
		for (size_t k = 0; k < n_keys; k++) {
			char expect[600];
			size_t vlen = strcspn(csv_line, ",");
			char value[512];
			memcpy(value, csv_line, vlen);
			value[vlen] = '\0';
			csv_line += vlen + (csv_line[vlen] == ',');
			/* Words are JSON strings, as contexts are. */
			bool words = vlen && (value[0] < '0' || value[0] > '9' ||
					      !strncmp(value, "0x", 2));
			snprintf(expect, sizeof(expect), "\"%s\":%s%s%s%s",
				 keys[k], words ? "\"" : "",
				 vlen ? value : "null", words ? "\"" : "",
				 k + 1 < n_keys ? "," : "}");
			ck_assert_msg(!strncmp(p, expect, strlen(expect)),
				      "expected %s at %s", expect, p);
			p += strlen(expect);
		}
		ck_assert_int_eq(*p, '\0');
		rows++;
	}
	ck_assert_uint_eq(rows, 29);
	free(csv);
	free(json);
	unlink(path);
}
END_TEST

/* The table: a header and rows of the same aligned widths, human units. */
START_TEST(test_table)
{
	char path[64];
	render_basic(path, sizeof(path), 20, false);

	char *table = replay_to_string(path, "--per-context", "-c",
				       "GpuTime,GpuBusy,GpuCoreClocks",
				       "--format", "table", NULL);
	char *save, *line = strtok_r(table, "\n", &save);
	size_t width = strlen(line), rows = 0;
	ck_assert_ptr_nonnull(strstr(line, "time_s"));
	ck_assert_ptr_nonnull(strstr(line, "GpuBusy"));
	while ((line = strtok_r(NULL, "\n", &save))) {
		ck_assert_uint_eq(gpuperf_text_width(line), width);
		ck_assert_msg(strstr(line, " ms") || strstr(line, " µs"),
			      "no time unit in '%s'", line);
		ck_assert_ptr_nonnull(strstr(line, " %"));
		ck_assert_ptr_nonnull(strstr(line, " 0x1"));
		rows++;
	}
	ck_assert_uint_eq(rows, 3);
	free(table);
	unlink(path);
}
END_TEST

START_TEST(test_errors)
{
	char path[64], bad[] = "/tmp/gpm-test-replay-bad-XXXXXX";
	char out[] = "/tmp/gpm-test-replay-out-XXXXXX";
	render_basic(path, sizeof(path), 20, false);
	close(mkstemp(out));

	ck_assert_int_eq(replay("/nonexistent/recording", NULL),
			 GPUPERF_EXIT_FILE);
	ck_assert_int_eq(replay(path, "--bogus", NULL), GPUPERF_EXIT_USAGE);
	ck_assert_int_eq(replay(path, "--interval", "10", NULL),
			 GPUPERF_EXIT_USAGE);
	ck_assert_int_eq(replay(path, "--per-report", "--per-context", NULL),
			 GPUPERF_EXIT_USAGE);
	ck_assert_int_eq(replay(path, "--format", "xml", NULL),
			 GPUPERF_EXIT_USAGE);
	ck_assert_int_eq(replay(path, "--metrics-dir", intel_metrics_dir(),
				"-c", "GpuTime,NoSuchCounter", NULL),
			 GPUPERF_EXIT_USAGE);
	/* the built-in sim definitions know no Skylake */
	ck_assert_int_eq(replay(path, "-o", out, NULL), GPUPERF_EXIT_FAILURE);

	/* a truncated recording: the rows before the cut, then the error */
	close(mkstemp(bad));
	char *data = read_file(path);
	FILE *f = fopen(bad, "w");
	size_t size = 400 + 24 + 10 * 264 + 8 + 5;
	ck_assert_uint_eq(fwrite(data, 1, size, f), size);
	fclose(f);
	ck_assert_int_eq(replay(bad, "--metrics-dir", intel_metrics_dir(),
				"--per-report", "--format", "csv", "-o", out,
				NULL), GPUPERF_EXIT_FILE);
	char *text = read_file(out);
	size_t lines = 0;
	for (char *p = text; *p; p++)
		lines += *p == '\n';
	ck_assert_uint_eq(lines, 1 + 9);
	free(text);

	/* a device no metric file covers */
	data[32] = 0x34;
	data[33] = 0x12;
	f = fopen(bad, "w");
	ck_assert_uint_eq(fwrite(data, 1, 1000, f), 1000);
	fclose(f);
	ck_assert_int_eq(replay(bad, "--metrics-dir", intel_metrics_dir(),
				NULL), GPUPERF_EXIT_FILE);
	free(data);
	unlink(bad);
	unlink(out);
	unlink(path);
}
END_TEST

/*
 * A recording several times the size of the replay's read-ahead ring,
 * read whole and cut short in the middle of a record: the rows of the cut
 * one are the first rows of the whole one, then the error.
 */
START_TEST(test_long_recording)
{
	char path[64], cut[] = "/tmp/gpm-test-replay-cut-XXXXXX";

	render_basic(path, sizeof(path), 20000, false);
	char *whole = replay_to_string(path, "--per-report", "--raw",
				       "--format", "csv", NULL);
	size_t lines = 0;
	for (char *p = whole; *p; p++)
		lines += *p == '\n';
	ck_assert_uint_eq(lines, 1 + 19999);

	char *data = read_file(path);
	close(mkstemp(cut));
	FILE *f = fopen(cut, "w");
	size_t size = (7u << 19) + 101;
	ck_assert_uint_eq(fwrite(data, 1, size, f), size);
	fclose(f);
	char out[] = "/tmp/gpm-test-replay-out-XXXXXX";
	close(mkstemp(out));
	ck_assert_int_eq(replay(cut, "--metrics-dir", intel_metrics_dir(),
				"--per-report", "--raw", "--format", "csv",
				"-o", out, NULL), GPUPERF_EXIT_FILE);
	char *part = read_file(out);
	size_t part_len = strlen(part);
	ck_assert_uint_gt(part_len, 1000);
	ck_assert_uint_lt(part_len, strlen(whole));
	ck_assert_int_eq(memcmp(part, whole, part_len), 0);
	ck_assert_int_eq(part[part_len - 1], '\n');
	free(part);
	free(data);
	free(whole);
	unlink(out);
	unlink(cut);
	unlink(path);
}
END_TEST

/* A named pipe is refused as before, opened once only: a second opening
 * would wait for a writer that has come and gone. */
START_TEST(test_fifo)
{
	char path[64], dir[] = "/tmp/gpm-test-replay-XXXXXX", fifo[64];

	render_basic(path, sizeof(path), 20, false);
	char *data = read_file(path);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	pid_t writer = fork();
	ck_assert_int_ge(writer, 0);
	if (writer == 0) {
		int fd = open(fifo, O_WRONLY);
		signal(SIGPIPE, SIG_IGN);
		_exit(fd >= 0 && write(fd, data, 4096) == 4096 ? 0 : 1);
	}
	ck_assert_int_eq(replay(fifo, "--metrics-dir", intel_metrics_dir(),
				"-o", "/dev/null", NULL), GPUPERF_EXIT_FILE);
	int status;
	ck_assert_int_eq(waitpid(writer, &status, 0), writer);
	free(data);
	unlink(fifo);
	rmdir(dir);
	unlink(path);
}
END_TEST

static Suite *replay_suite(void)
{
	Suite *s = suite_create("replay");
	TCase *igt = tcase_create("igt");
	tcase_set_timeout(igt, 300);
	tcase_add_test(igt, test_igt_values_skl);
	tcase_add_test(igt, test_igt_values_tgl);
	tcase_add_test(igt, test_igt_values_kbl);
	tcase_add_test(igt, test_igt_values_adl);
	suite_add_tcase(s, igt);

	TCase *cmd = tcase_create("command");
	tcase_set_timeout(cmd, 60);
	tcase_add_test(cmd, test_metadata_columns);
	tcase_add_test(cmd, test_mtl_gpu_time_is_the_oa_clock);
	tcase_add_test(cmd, test_interval_and_context_windows);
	tcase_add_test(cmd, test_ndjson);
	tcase_add_test(cmd, test_table);
	tcase_add_test(cmd, test_errors);
	tcase_add_test(cmd, test_long_recording);
	tcase_add_test(cmd, test_fifo);
	suite_add_tcase(s, cmd);
	return s;
}

GPM_TEST_MAIN(replay_suite)
