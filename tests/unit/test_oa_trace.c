/*
 * A recording's records as a Perfetto trace: the same trace whether the
 * records come one call at a time (as the CLI's reader yields them) or as
 * the recording's bytes in any whole-record chunks (as the daemon's
 * recorder writes them); a recording without correlation points is
 * flagged; a chunk cut inside a record is refused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/metric_binding.h"
#include "metrics/metrics_db.h"
#include "metrics/oa_format.h"
#include "metrics/oa_record.h"
#include "metrics/oa_trace.h"
#include "metrics/recording.h"
#include "metrics/sim_device.h"
#include "tests/unit/test_util.h"
#include "tests/unit/trace_read.h"

#define REPORT_SIZE 256
#define N_SAMPLES 400
#define MAX_RECORDS (N_SAMPLES * 3 + 8)

struct buffer {
	unsigned char *data;
	size_t len, cap;
	int fail_with;                  /* what writes return, when not 0 */
};

static int to_buffer(void *ctx, const void *data, size_t len)
{
	struct buffer *b = ctx;
	if (b->fail_with)
		return b->fail_with;
	if (b->len + len > b->cap) {
		b->cap = (b->len + len) * 2;
		b->data = realloc(b->data, b->cap);
		ck_assert_ptr_nonnull(b->data);
	}
	memcpy(b->data + b->len, data, len);
	b->len += len;
	return 0;
}

/* One record of the synthetic recording. */
struct record {
	uint32_t type;
	unsigned char payload[REPORT_SIZE];
	size_t size;
};

struct fixture {
	struct gpm_metrics_db db;
	const struct gpm_metric_set *set;
	struct gpm_device_info device;
	struct gpm_device_vars vars;
	struct gpm_binding binding;
	struct gpm_oa_decoder dec;
	unsigned *counters;
	size_t n_counters;
	struct record records[MAX_RECORDS];
	size_t n_records;
};

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void add(struct fixture *f, uint32_t type, const void *payload, size_t size)
{
	ck_assert_uint_lt(f->n_records, MAX_RECORDS);
	struct record *r = &f->records[f->n_records++];
	r->type = type;
	r->size = size;
	if (size)
		memcpy(r->payload, payload, size);
}

static void add_correlation(struct fixture *f, uint64_t cpu, uint64_t gpu)
{
	unsigned char p[16];
	put64(p, cpu);
	put64(p + 8, gpu);
	add(f, GPM_RECORDING_TYPE_TIMESTAMP_CORRELATION, p, sizeof(p));
}

/* A recording of the sim GPU: reports 1000 ticks apart, the context
 * changing every 7 (idle every fifth run), a REPORT_LOST and a
 * BUFFER_LOST, and a correlation point with its CLOCKS every 100. */
static void setup(struct fixture *f, bool correlate)
{
	const struct gpm_oa_format *fmt;

	memset(f, 0, sizeof(*f));
	gpm_metrics_db_init(&f->db);
	ck_assert_int_eq(gpm_metrics_db_add_builtin(&f->db), 0);
	f->set = gpm_metrics_db_find_set(&f->db, "simgen12", "RenderBasic");
	ck_assert_ptr_nonnull(f->set);
	gpm_sim_device_info(&f->device);
	gpm_device_vars_init(&f->vars, &f->device);
	ck_assert_int_eq(gpm_binding_init(&f->binding, f->set, &f->vars), 0);
	ck_assert_int_eq(gpm_oa_format_for_set(f->device.graphics_version,
					       f->set->oa_format, &fmt), 0);
	ck_assert_int_eq(gpm_oa_decoder_init(&f->dec, fmt,
					     f->device.graphics_version), 0);
	f->counters = calloc(f->set->n_counters, sizeof(*f->counters));
	for (size_t i = 0; i < f->set->n_counters; i++)
		if (f->binding.available[i])
			f->counters[f->n_counters++] = (unsigned)i;

	for (uint32_t k = 0; k < N_SAMPLES; k++) {
		uint32_t ts = 0x1000 + k * 1000;
		if (correlate && k % 100 == 0) {
			unsigned char p[16];
			add_correlation(f, 5000000000ull + (uint64_t)k * 52083,
					0x700000000ull + ts);
			put64(p, 5000000000ull + (uint64_t)k * 52083);
			put64(p + 8, 5000000000ull + (uint64_t)k * 52083 + 777);
			add(f, GPM_RECORDING_TYPE_CLOCKS, p, sizeof(p));
		}
		struct gpm_oa_report r;
		memset(&r, 0, sizeof(r));
		uint32_t run = k / 7;
		r.reason = run % 5 == 4 ? 0 : GPM_OA_REASON_TIMER;
		r.ctx_id = 0x100 + run % 3;
		r.ctx_valid = run % 5 != 4;
		r.value[GPM_ACC_GPU_TIME] = ts;
		r.value[GPM_ACC_GPU_CLOCK] = k * 900u;
		for (unsigned a = 0; a < 8; a++)
			r.value[GPM_ACC_A + a] = (uint64_t)k * (a + 3) * 17;
		unsigned char bytes[REPORT_SIZE];
		ck_assert_int_eq(gpm_oa_report_encode(&f->dec, &r, bytes,
						      sizeof(bytes)), 0);
		add(f, GPM_OA_RECORD_SAMPLE, bytes, fmt->size);
		if (k == 120)
			add(f, GPM_OA_RECORD_REPORT_LOST, NULL, 0);
		if (k == 250)
			add(f, GPM_OA_RECORD_BUFFER_LOST, NULL, 0);
	}
	if (correlate)
		add_correlation(f, 5000000000ull + N_SAMPLES * 52083ull,
				0x700000000ull + 0x1000 + N_SAMPLES * 1000);
}

static void teardown(struct fixture *f)
{
	gpm_binding_fini(&f->binding);
	gpm_metrics_db_fini(&f->db);
	free(f->counters);
}

static struct gpm_oa_trace *converter(struct fixture *f, struct buffer *out)
{
	struct gpm_oa_trace *t;
	struct gpm_oa_trace_options o = {
		.device_label = "SIMGEN12",
		.pci_id = f->device.pci_id,
		.timestamp_frequency = f->device.timestamp_frequency,
		.decoder = &f->dec,
		.binding = &f->binding,
		.counters = f->counters,
		.n_counters = f->n_counters,
		.interval_ns = 100000,
		.write = to_buffer,
		.ctx = out,
	};
	ck_assert_int_eq(gpm_oa_trace_create(&o, &t), 0);
	return t;
}

/* The records one call each, as the CLI feeds what its reader yields. */
static void feed_records(struct fixture *f, struct gpm_oa_trace *t)
{
	for (size_t i = 0; i < f->n_records; i++) {
		const struct record *r = &f->records[i];
		switch (r->type) {
		case GPM_OA_RECORD_SAMPLE:
			ck_assert_int_eq(gpm_oa_trace_sample(t, r->payload, r->size), 0);
			break;
		case GPM_OA_RECORD_REPORT_LOST:
			ck_assert_int_eq(gpm_oa_trace_loss(t, GPM_OA_LOSS_REPORT), 0);
			break;
		case GPM_OA_RECORD_BUFFER_LOST:
			ck_assert_int_eq(gpm_oa_trace_loss(t, GPM_OA_LOSS_BUFFER), 0);
			break;
		case GPM_RECORDING_TYPE_TIMESTAMP_CORRELATION: {
			struct gpm_recording_correlation c;
			memcpy(&c.cpu_ns, r->payload, 8);
			memcpy(&c.gpu_timestamp, r->payload + 8, 8);
			ck_assert_int_eq(gpm_oa_trace_correlation(t, &c), 0);
			break;
		}
		case GPM_RECORDING_TYPE_CLOCKS: {
			struct gpm_recording_clocks c;
			memcpy(&c.monotonic_ns, r->payload, 8);
			memcpy(&c.boottime_ns, r->payload + 8, 8);
			ck_assert_int_eq(gpm_oa_trace_clocks(t, &c), 0);
			break;
		}
		}
	}
}

/* The records framed as a recording holds them, from record first on. */
static size_t frame(const struct fixture *f, size_t first, size_t n,
		    unsigned char *out)
{
	size_t len = 0;
	for (size_t i = first; i < first + n && i < f->n_records; i++) {
		const struct record *r = &f->records[i];
		uint16_t size = (uint16_t)(8 + r->size), pad = 0;
		memcpy(out + len, &r->type, 4);
		memcpy(out + len + 4, &pad, 2);
		memcpy(out + len + 6, &size, 2);
		memcpy(out + len + 8, r->payload, r->size);
		len += size;
	}
	return len;
}

START_TEST(test_records_or_bytes_give_one_trace)
{
	struct fixture *f = malloc(sizeof(*f));
	struct buffer a = { 0 }, b = { 0 };
	unsigned char *bytes = malloc(MAX_RECORDS * (8 + REPORT_SIZE));

	setup(f, true);
	struct gpm_oa_trace *t = converter(f, &a);
	feed_records(f, t);
	ck_assert_int_eq(gpm_oa_trace_finish(t), 0);
	ck_assert(!gpm_oa_trace_clock_guessed(t));
	ck_assert_uint_ge(gpm_oa_trace_windows(t), 30);
	gpm_oa_trace_destroy(t);

	/* Chunks of 1, 2, 3, ... records, as writes happen to come. */
	t = converter(f, &b);
	for (size_t i = 0, n = 1; i < f->n_records; i += n, n++) {
		size_t len = frame(f, i, n, bytes);
		ck_assert_int_eq(gpm_oa_trace_records(t, bytes, len), 0);
	}
	ck_assert_int_eq(gpm_oa_trace_finish(t), 0);
	gpm_oa_trace_destroy(t);

	ck_assert_uint_gt(a.len, 0);
	ck_assert_uint_eq(a.len, b.len);
	ck_assert_mem_eq(a.data, b.data, a.len);
	free(a.data);
	free(b.data);
	free(bytes);
	teardown(f);
	free(f);
}
END_TEST

START_TEST(test_no_correlation_is_flagged)
{
	struct fixture *f = malloc(sizeof(*f));
	struct buffer a = { 0 };

	setup(f, false);
	struct gpm_oa_trace *t = converter(f, &a);
	feed_records(f, t);
	ck_assert_int_eq(gpm_oa_trace_finish(t), 0);
	ck_assert(gpm_oa_trace_clock_guessed(t));
	ck_assert_uint_gt(a.len, 0);
	gpm_oa_trace_destroy(t);
	free(a.data);
	teardown(f);
	free(f);
}
END_TEST

START_TEST(test_cut_record_refused)
{
	struct fixture *f = malloc(sizeof(*f));
	struct buffer a = { 0 };
	unsigned char bytes[4 * (8 + REPORT_SIZE)];

	setup(f, true);
	struct gpm_oa_trace *t = converter(f, &a);
	size_t len = frame(f, 0, 3, bytes);
	ck_assert_int_eq(gpm_oa_trace_records(t, bytes, len - 1), -EBADMSG);
	/* and stays failed */
	ck_assert_int_eq(gpm_oa_trace_records(t, bytes, len), -EBADMSG);
	gpm_oa_trace_destroy(t);
	free(a.data);
	teardown(f);
	free(f);
}
END_TEST

/* Records too short to be records, and correlation points and clocks of
 * the wrong size, are refused as malformed. */
START_TEST(test_malformed_records_refused)
{
	struct fixture *f = malloc(sizeof(*f));
	struct buffer a = { 0 };
	unsigned char bytes[8 + 32];

	setup(f, true);
	static const struct {
		uint32_t type;
		uint16_t size;          /* the header's, header included */
		size_t len;             /* of the bytes given */
	} cases[] = {
		{ GPM_OA_RECORD_SAMPLE, 8, 7 },
		{ GPM_OA_RECORD_SAMPLE, 7, 8 },
		{ GPM_RECORDING_TYPE_TIMESTAMP_CORRELATION, 8 + 8, 8 + 8 },
		{ GPM_RECORDING_TYPE_TIMESTAMP_CORRELATION, 8 + 24, 8 + 24 },
		{ GPM_RECORDING_TYPE_CLOCKS, 8 + 8, 8 + 8 },
		{ GPM_RECORDING_TYPE_CLOCKS, 8 + 32, 8 + 32 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gpm_oa_trace *t = converter(f, &a);
		uint16_t pad = 0;
		memset(bytes, 0, sizeof(bytes));
		memcpy(bytes, &cases[i].type, 4);
		memcpy(bytes + 4, &pad, 2);
		memcpy(bytes + 6, &cases[i].size, 2);
		/* Exactly the bytes given, so that reading past them is
		 * caught under ASan. */
		unsigned char *given = malloc(cases[i].len);
		memcpy(given, bytes, cases[i].len);
		ck_assert_msg(gpm_oa_trace_records(t, given, cases[i].len) ==
			      -EBADMSG, "case %zu accepted", i);
		free(given);
		gpm_oa_trace_destroy(t);
	}
	ck_assert_uint_eq(a.len, 0);
	free(a.data);
	teardown(f);
	free(f);
}
END_TEST

START_TEST(test_incomplete_options_refused)
{
	struct fixture *f = malloc(sizeof(*f));
	struct gpm_oa_trace *t = (struct gpm_oa_trace *)f;

	setup(f, false);
	struct gpm_oa_trace_options whole = {
		.device_label = "SIMGEN12",
		.timestamp_frequency = f->device.timestamp_frequency,
		.decoder = &f->dec,
		.binding = &f->binding,
		.counters = f->counters,
		.n_counters = f->n_counters,
		.interval_ns = 100000,
		.write = to_buffer,
	};
	/* A decoder never set up has no report format. */
	static const struct gpm_oa_decoder bare;
	for (int i = 0; i < 5; i++) {
		struct gpm_oa_trace_options o = whole;
		if (i == 0)
			o.decoder = NULL;
		else if (i == 4)
			o.decoder = &bare;
		else if (i == 1)
			o.binding = NULL;
		else if (i == 2)
			o.interval_ns = 0;
		else
			o.timestamp_frequency = 0;
		ck_assert_int_eq(gpm_oa_trace_create(&o, &t), -EINVAL);
		ck_assert_ptr_null(t);
	}
	teardown(f);
	free(f);
}
END_TEST

/* The count of b's trace's one loss event called name; 0 without one. */
static uint64_t loss_count(const struct buffer *b, const char *name)
{
	struct trace_sink s = { b->data, b->len, b->cap };
	struct trace_read *r = trace_read(&s);
	const struct trace_event *e = NULL;
	uint64_t count = 0;
	size_t n = trace_events_named(r, name, &e, 1);
	ck_assert_uint_le(n, 1);
	if (n) {
		ck_assert_uint_eq(e->n_args, 1);
		ck_assert_str_eq(e->args[0].name, "count");
		count = e->args[0].u;
	}
	trace_read_free(r);
	return count;
}

/* Losses after the last report are not lost with the recording's end:
 * they show at the last report's time. */
START_TEST(test_losses_after_the_last_report_shown)
{
	struct fixture *f = malloc(sizeof(*f));
	struct buffer a = { 0 }, b = { 0 };

	setup(f, true);
	/* The recording without its losses, then one of each at its end. */
	size_t kept = 0;
	for (size_t i = 0; i < f->n_records; i++)
		if (f->records[i].type != GPM_OA_RECORD_REPORT_LOST &&
		    f->records[i].type != GPM_OA_RECORD_BUFFER_LOST)
			f->records[kept++] = f->records[i];
	f->n_records = kept;

	struct gpm_oa_trace *t = converter(f, &a);
	feed_records(f, t);
	ck_assert_int_eq(gpm_oa_trace_finish(t), 0);
	gpm_oa_trace_destroy(t);
	ck_assert_uint_eq(loss_count(&a, "OA reports lost"), 0);
	ck_assert_uint_eq(loss_count(&a, "OA buffer lost"), 0);

	add(f, GPM_OA_RECORD_REPORT_LOST, NULL, 0);
	add(f, GPM_OA_RECORD_REPORT_LOST, NULL, 0);
	add(f, GPM_OA_RECORD_BUFFER_LOST, NULL, 0);
	t = converter(f, &b);
	feed_records(f, t);
	ck_assert_int_eq(gpm_oa_trace_finish(t), 0);
	gpm_oa_trace_destroy(t);
	ck_assert_uint_eq(loss_count(&b, "OA reports lost"), 2);
	ck_assert_uint_eq(loss_count(&b, "OA buffer lost"), 1);

	free(a.data);
	free(b.data);
	teardown(f);
	free(f);
}
END_TEST

/* The slices of b's trace named after a context of the recording. */
static size_t context_slices(const struct buffer *b)
{
	struct trace_sink s = { b->data, b->len, b->cap };
	struct trace_read *r = trace_read(&s);
	const struct trace_event *e = NULL;
	size_t n = 0;
	for (uint32_t ctx = 0x100; ctx < 0x103; ctx++) {
		char name[64];
		snprintf(name, sizeof(name), "context 0x%x", (unsigned)ctx);
		n += trace_events_named(r, name, &e, 1);
	}
	trace_read_free(r);
	return n;
}

/* Reports that carry no context ID (Haswell's) give no context's slices:
 * the ID field's bytes are no context's. */
START_TEST(test_no_context_slices_without_context_ids)
{
	struct fixture *f = malloc(sizeof(*f));
	struct buffer a = { 0 }, b = { 0 };

	setup(f, true);
	struct gpm_oa_trace *t = converter(f, &a);
	feed_records(f, t);
	ck_assert_int_eq(gpm_oa_trace_finish(t), 0);
	gpm_oa_trace_destroy(t);
	ck_assert_uint_gt(context_slices(&a), 0);

	f->dec.has_context = false;
	t = converter(f, &b);
	feed_records(f, t);
	ck_assert_int_eq(gpm_oa_trace_finish(t), 0);
	ck_assert_uint_ge(gpm_oa_trace_windows(t), 30);
	gpm_oa_trace_destroy(t);
	ck_assert_uint_eq(context_slices(&b), 0);

	free(a.data);
	free(b.data);
	teardown(f);
	free(f);
}
END_TEST

/* A write that fails fails the converter: that call and every one after
 * it returns the writer's error, records included. */
START_TEST(test_write_failure_sticks)
{
	struct fixture *f = malloc(sizeof(*f));
	struct buffer a = { .fail_with = -ENOSPC };
	struct gpm_recording_correlation c = { 1, 2 };
	unsigned char bytes[3 * (8 + REPORT_SIZE)];

	setup(f, true);
	struct gpm_oa_trace *t = converter(f, &a);
	feed_records(f, t);
	ck_assert_int_eq(gpm_oa_trace_finish(t), -ENOSPC);
	ck_assert_int_eq(gpm_oa_trace_sample(t, f->records[1].payload,
					     f->records[1].size), -ENOSPC);
	ck_assert_int_eq(gpm_oa_trace_loss(t, GPM_OA_LOSS_REPORT), -ENOSPC);
	ck_assert_int_eq(gpm_oa_trace_correlation(t, &c), -ENOSPC);
	size_t len = frame(f, 0, 3, bytes);
	ck_assert_int_eq(gpm_oa_trace_records(t, bytes, len), -ENOSPC);
	ck_assert_int_eq(gpm_oa_trace_finish(t), -ENOSPC);
	ck_assert_uint_eq(a.len, 0);
	gpm_oa_trace_destroy(t);
	teardown(f);
	free(f);
}
END_TEST

/* The CLOCK_MONOTONIC times of b's trace's clock snapshots; their count. */
static size_t snapshots(const struct buffer *b, uint64_t *out, size_t max)
{
	struct trace_sink s = { b->data, b->len, b->cap };
	struct trace_read *r = trace_read(&s);
	size_t n = r->n_snapshots;
	for (size_t i = 0; i < n && i < max; i++)
		out[i] = r->snapshot_monotonic[i];
	trace_read_free(r);
	return n;
}

/* Correlation points that come before the first report wait for it: the
 * most recent four are placed by it, older ones dropped. A point from
 * before the start of the reports' time line cannot be placed at all: the
 * trace says its clock is guessed rather than place it wrongly. */
START_TEST(test_points_before_the_first_report)
{
	struct fixture *f = malloc(sizeof(*f));
	struct buffer a = { 0 }, b = { 0 };
	uint64_t cpu[16];

	setup(f, false);
	size_t n = f->n_records;
	memmove(f->records + 6, f->records, n * sizeof(f->records[0]));
	f->n_records = 0;
	for (uint64_t j = 0; j < 6; j++)
		add_correlation(f, 7000000000ull + j * 1000,
				0x700000000ull + 0x800 + j * 100);
	f->n_records += n;
	struct gpm_oa_trace *t = converter(f, &a);
	feed_records(f, t);
	ck_assert_int_eq(gpm_oa_trace_finish(t), 0);
	ck_assert(!gpm_oa_trace_clock_guessed(t));
	gpm_oa_trace_destroy(t);
	ck_assert_uint_eq(snapshots(&a, cpu, 16), 4);
	for (uint64_t i = 0; i < 4; i++)
		ck_assert_uint_eq(cpu[i], 7000000000ull + (i + 2) * 1000);

	/* One point only, from before the report timestamps wrapped ahead of
	 * the first report (0x1000): before the start of the reports' time
	 * line, so no snapshot can hold it. */
	memmove(f->records + 1, f->records + 6, n * sizeof(f->records[0]));
	f->n_records = 0;
	add_correlation(f, 6000000000ull, 0x6ffffff00ull);
	f->n_records = n + 1;
	t = converter(f, &b);
	feed_records(f, t);
	ck_assert_int_eq(gpm_oa_trace_finish(t), 0);
	ck_assert(gpm_oa_trace_clock_guessed(t));
	gpm_oa_trace_destroy(t);
	ck_assert_uint_eq(snapshots(&b, cpu, 16), 1);
	ck_assert_uint_ne(cpu[0], 6000000000ull);

	free(a.data);
	free(b.data);
	teardown(f);
	free(f);
}
END_TEST

static Suite *oa_trace_suite(void)
{
	Suite *s = suite_create("oa_trace");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_records_or_bytes_give_one_trace);
	tcase_add_test(tc, test_no_correlation_is_flagged);
	tcase_add_test(tc, test_cut_record_refused);
	tcase_add_test(tc, test_malformed_records_refused);
	tcase_add_test(tc, test_incomplete_options_refused);
	tcase_add_test(tc, test_losses_after_the_last_report_shown);
	tcase_add_test(tc, test_no_context_slices_without_context_ids);
	tcase_add_test(tc, test_write_failure_sticks);
	tcase_add_test(tc, test_points_before_the_first_report);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(oa_trace_suite)
