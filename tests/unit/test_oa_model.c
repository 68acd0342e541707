/*
 * The simulated OA unit: byte-exact determinism, report timing, i915 record
 * framing and read() errors, buffer overflow and report loss, timestamp and
 * counter wraps, context and idle reports, and the property the model
 * exists for: every counter of every set, computed from its reports by the
 * daemon's own decoder, windows and equations, stays within [0, max].
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/sim/oa_model.h"
#include "metrics/metric_binding.h"
#include "metrics/metric_xml.h"
#include "metrics/metrics_db.h"
#include "metrics/oa_delta.h"
#include "metrics/oa_record.h"
#include "metrics/oa_window.h"
#include "metrics/platform.h"
#include "metrics/sim_device.h"
#include "tests/unit/test_util.h"

#define RECORD_SIZE (GPM_OA_RECORD_HEADER_SIZE + 256)
#define SMALL_BUFFER (128u * 1024)

static struct gpm_device_info sim_dev;

static struct gpd_oa_model *create(const struct gpd_oa_model_config *cfg)
{
	struct gpd_oa_model *m = NULL;

	ck_assert_int_eq(gpd_oa_model_create(cfg, &m), 0);
	gpd_oa_model_enable(m);
	return m;
}

/* A sim GPU config: no set, so nothing to fit, and a quick workload. */
static struct gpd_oa_model_config sim_config(int exponent, uint64_t seed)
{
	gpm_sim_device_info(&sim_dev);
	return (struct gpd_oa_model_config){
		.dev = &sim_dev,
		.exponent = exponent,
		.seed = seed,
		.workload = {
			.busy_mean_ns = 400000,
			.idle_mean_ns = 100000,
			.timeslice_mean_ns = 50000,
			.ramp_ns = 100000,
		},
	};
}

/* Reads everything there is into a growing buffer; returns its length. */
static size_t read_all(struct gpd_oa_model *m, unsigned char **data, size_t *cap,
		       size_t len)
{
	for (;;) {
		if (*cap - len < 64 * 1024) {
			*cap = *cap ? 2 * *cap : 1024 * 1024;
			*data = realloc(*data, *cap);
			ck_assert_ptr_nonnull(*data);
		}
		ssize_t n = gpd_oa_model_read(m, *data + len, *cap - len);
		if (n == -EAGAIN)
			return len;
		ck_assert_int_gt(n, 0);
		len += (size_t)n;
	}
}

/* Advances in steps of `step` ticks, reading after each. */
static size_t run(struct gpd_oa_model *m, uint64_t ticks, uint64_t step,
		  unsigned char **data, size_t *cap)
{
	size_t len = 0;

	for (uint64_t done = 0; done < ticks; done += step) {
		gpd_oa_model_advance(m, step < ticks - done ? step : ticks - done);
		len = read_all(m, data, cap, len);
	}
	return len;
}

struct decoded {
	size_t n;
	uint32_t type[65536];
	struct gpm_oa_report report[65536];
	unsigned char bytes[65536][256];
};

/* Splits records into types and decoded reports. */
static void decode_all(struct gpd_oa_model *m, const unsigned char *data, size_t len,
		       struct decoded *out)
{
	const struct gpm_oa_decoder *dec = gpd_oa_model_decoder(m);
	struct gpm_oa_record_reader rd;
	struct gpm_oa_record rec;
	int ret;

	out->n = 0;
	gpm_oa_record_reader_init(&rd, GPM_OA_FRAMING_I915, dec->format->size, data, len);
	while ((ret = gpm_oa_record_next(&rd, &rec)) == 1) {
		ck_assert_uint_lt(out->n, 65536);
		out->type[out->n] = rec.type;
		if (rec.type == GPM_OA_RECORD_SAMPLE) {
			ck_assert_int_eq(gpm_oa_report_decode(dec, rec.payload, rec.payload_size,
							      &out->report[out->n]), 0);
			memcpy(out->bytes[out->n], rec.payload, 256);
		}
		out->n++;
	}
	ck_assert_int_eq(ret, 0);
}

static struct decoded *new_decoded(void)
{
	struct decoded *d = malloc(sizeof(*d));

	ck_assert_ptr_nonnull(d);
	return d;
}

START_TEST(test_deterministic)
{
	struct gpd_oa_model_config cfg = sim_config(4, 42);
	unsigned char *a = NULL, *b = NULL, *c = NULL;
	size_t cap_a = 0, cap_b = 0, cap_c = 0;
	struct gpd_oa_model *ma = create(&cfg), *mb = create(&cfg);

	/* The same time cut differently gives the same bytes. */
	size_t len_a = run(ma, 400000, 400000, &a, &cap_a);
	size_t len_b = run(mb, 400000, 997, &b, &cap_b);
	ck_assert_uint_gt(len_a, 100 * RECORD_SIZE);
	ck_assert_uint_eq(len_a, len_b);
	ck_assert_int_eq(memcmp(a, b, len_a), 0);

	/* Another seed, other bytes. */
	cfg.seed = 43;
	struct gpd_oa_model *mc = create(&cfg);
	size_t len_c = run(mc, 400000, 400000, &c, &cap_c);
	ck_assert(len_c != len_a || memcmp(a, c, len_a) != 0);

	gpd_oa_model_destroy(ma);
	gpd_oa_model_destroy(mb);
	gpd_oa_model_destroy(mc);
	free(a);
	free(b);
	free(c);
}
END_TEST

/* Rates fitted once serve every later model of the set (the sim source
 * keeps them across streams): the same bytes as a model that fits its own,
 * also when switched to the set. */
START_TEST(test_lent_rates_same_reports)
{
	struct gpm_metrics_db db;

	gpm_metrics_db_init(&db);
	ck_assert_int_eq(gpm_metrics_db_add_builtin(&db), 0);
	const struct gpm_metrics_file *file = gpm_metrics_db_find_platform(&db, "simgen12");
	ck_assert_ptr_nonnull(file);
	struct gpd_oa_model_config cfg = sim_config(6, 11);
	cfg.set = gpm_metrics_file_find_set(file, "MemoryL3");
	ck_assert_ptr_nonnull(cfg.set);
	struct gpd_oa_model *fitter = create(&cfg), *own = create(&cfg);
	cfg.rates = gpd_oa_model_rates(fitter);
	struct gpd_oa_model *lent = create(&cfg);
	cfg.set = gpm_metrics_file_find_set(file, "RenderBasic");
	cfg.rates = NULL;
	struct gpd_oa_model *switched = create(&cfg);
	ck_assert_int_eq(gpd_oa_model_set_metric_set(switched, NULL,
						     gpd_oa_model_rates(fitter)), 0);
	ck_assert_int_eq(gpd_oa_model_set_metric_set(own, gpm_metrics_file_find_set(file, "RenderBasic"),
						     NULL), 0);
	ck_assert_int_eq(gpd_oa_model_set_metric_set(own, gpm_metrics_file_find_set(file, "MemoryL3"),
						     NULL), 0);

	unsigned char *a = NULL, *b = NULL, *c = NULL;
	size_t cap_a = 0, cap_b = 0, cap_c = 0;
	size_t len_a = run(own, 400000, 400000, &a, &cap_a);
	size_t len_b = run(lent, 400000, 400000, &b, &cap_b);
	size_t len_c = run(switched, 400000, 400000, &c, &cap_c);
	ck_assert_uint_gt(len_a, 100 * RECORD_SIZE);
	ck_assert_uint_eq(len_a, len_b);
	ck_assert_int_eq(memcmp(a, b, len_a), 0);
	ck_assert_uint_eq(len_a, len_c);
	ck_assert_int_eq(memcmp(a, c, len_a), 0);

	gpd_oa_model_destroy(fitter);
	gpd_oa_model_destroy(own);
	gpd_oa_model_destroy(lent);
	gpd_oa_model_destroy(switched);
	free(a);
	free(b);
	free(c);
	gpm_metrics_db_fini(&db);
}
END_TEST

/* Timer reports sit on multiples of 2^(exponent + 1), one per period. */
static void check_periodic(int exponent)
{
	struct gpd_oa_model_config cfg = sim_config(exponent, 7);
	uint64_t period = (uint64_t)2 << exponent;
	unsigned char *data = NULL;
	size_t cap = 0;
	struct gpd_oa_model *m = create(&cfg);
	struct decoded *d = new_decoded();

	ck_assert_uint_eq(gpd_oa_model_period(m), period);
	uint64_t ticks = period * 4000 < 40000 ? period * 4000 : 40000 - 40000 % period;
	size_t len = run(m, ticks, 1000, &data, &cap);
	decode_all(m, data, len, d);

	uint64_t n_timer = 0, last = 0;
	for (size_t i = 0; i < d->n; i++) {
		ck_assert_uint_eq(d->type[i], GPM_OA_RECORD_SAMPLE);
		const struct gpm_oa_report *r = &d->report[i];
		ck_assert_uint_ne(r->reason, 0);
		if (!(r->reason & GPM_OA_REASON_TIMER))
			continue;
		ck_assert_uint_eq(r->timestamp % period, 0);
		if (n_timer)
			ck_assert_uint_eq(r->timestamp - last, period);
		last = r->timestamp;
		n_timer++;
	}
	ck_assert_uint_eq(n_timer, ticks / period);
	gpd_oa_model_destroy(m);
	free(d);
	free(data);
}

START_TEST(test_periodic_spacing)
{
	check_periodic(5);
	check_periodic(9);
}
END_TEST

START_TEST(test_fastest_period)
{
	check_periodic(0);
}
END_TEST

START_TEST(test_record_framing)
{
	struct gpd_oa_model_config cfg = sim_config(3, 1);
	unsigned char buf[10 * RECORD_SIZE + 100];
	struct gpd_oa_model *m = create(&cfg);

	ck_assert_uint_eq(gpd_oa_model_record_size(m), RECORD_SIZE);
	gpd_oa_model_advance(m, 16 * 20);
	ck_assert_uint_ge(gpd_oa_model_pending_bytes(m), 20 * RECORD_SIZE);
	ssize_t n = gpd_oa_model_read(m, buf, sizeof(buf));
	/* Whole records only: ten fit, the rest of the buffer stays unused. */
	ck_assert_int_eq(n, 10 * RECORD_SIZE);
	for (int i = 0; i < 10; i++) {
		const unsigned char *h = buf + i * RECORD_SIZE;
		uint32_t type = (uint32_t)h[0] | (uint32_t)h[1] << 8 |
				(uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;

		ck_assert_uint_eq(type, GPM_OA_RECORD_SAMPLE);
		ck_assert_uint_eq(h[4] | h[5] << 8, 0);
		ck_assert_uint_eq(h[6] | h[7] << 8, RECORD_SIZE);
	}
	gpd_oa_model_destroy(m);
}
END_TEST

START_TEST(test_read_errors)
{
	struct gpd_oa_model_config cfg = sim_config(3, 1);
	unsigned char buf[2 * RECORD_SIZE];
	struct gpd_oa_model *m = NULL;

	ck_assert_int_eq(gpd_oa_model_create(&cfg, &m), 0);
	/* Created disabled: EIO, as on a stream opened with DISABLED. */
	ck_assert_int_eq(gpd_oa_model_read(m, buf, sizeof(buf)), -EIO);
	gpd_oa_model_advance(m, 1000);
	ck_assert_uint_eq(gpd_oa_model_pending_bytes(m), 0);
	gpd_oa_model_enable(m);
	ck_assert(gpd_oa_model_enabled(m));
	ck_assert_int_eq(gpd_oa_model_read(m, buf, sizeof(buf)), -EAGAIN);
	gpd_oa_model_advance(m, 16);
	ck_assert_int_eq(gpd_oa_model_read(m, buf, RECORD_SIZE - 1), -ENOSPC);
	ck_assert_int_eq(gpd_oa_model_read(m, buf, 0), -ENOSPC);
	ck_assert_int_eq(gpd_oa_model_read(m, buf, RECORD_SIZE), RECORD_SIZE);
	ck_assert_int_eq(gpd_oa_model_read(m, buf, sizeof(buf)), -EAGAIN);
	gpd_oa_model_advance(m, 16);
	gpd_oa_model_disable(m);
	ck_assert_int_eq(gpd_oa_model_read(m, buf, sizeof(buf)), -EIO);
	/* Enabling again starts from an empty buffer. */
	gpd_oa_model_enable(m);
	ck_assert_int_eq(gpd_oa_model_read(m, buf, sizeof(buf)), -EAGAIN);
	gpd_oa_model_destroy(m);

	/* What the kernel refuses, the model refuses. */
	cfg.exponent = 32;
	ck_assert_int_eq(gpd_oa_model_create(&cfg, &m), -EINVAL);
	cfg.exponent = 3;
	cfg.oa_format = 12;             /* DG2's format on a Gen12.0 part */
	ck_assert_int_eq(gpd_oa_model_create(&cfg, &m), -EINVAL);
	cfg.oa_format = 99;
	ck_assert_int_eq(gpd_oa_model_create(&cfg, &m), -EINVAL);
	cfg.oa_format = 10;
	cfg.buffer_size = 3 * 64 * 1024;
	ck_assert_int_eq(gpd_oa_model_create(&cfg, &m), -EINVAL);
	cfg.buffer_size = 32u * 1024 * 1024;
	ck_assert_int_eq(gpd_oa_model_create(&cfg, &m), -EINVAL);
}
END_TEST

START_TEST(test_buffer_overflow)
{
	struct gpd_oa_model_config cfg = sim_config(0, 5);
	unsigned char *data = NULL;
	size_t cap = 0;
	struct gpd_oa_model *m;
	struct decoded *d = new_decoded();
	const size_t capacity = SMALL_BUFFER / 256 - 1;

	cfg.buffer_size = SMALL_BUFFER;
	m = create(&cfg);
	/* Half full: no loss yet, poll sees every record. */
	gpd_oa_model_advance(m, capacity);
	ck_assert_uint_ge(gpd_oa_model_pending_bytes(m), capacity / 2 * RECORD_SIZE);
	ck_assert_uint_lt(gpd_oa_model_pending_bytes(m), capacity * RECORD_SIZE);
	gpd_oa_model_advance(m, capacity + 4000);
	uint64_t reset_time = gpd_oa_model_time(m);
	ck_assert_uint_eq(gpd_oa_model_pending_bytes(m), GPM_OA_RECORD_HEADER_SIZE);

	/* Even a large read gets BUFFER_LOST alone: the reset dropped the rest. */
	size_t len = read_all(m, &data, &cap, 0);
	ck_assert_uint_eq(len, GPM_OA_RECORD_HEADER_SIZE);
	decode_all(m, data, len, d);
	ck_assert_uint_eq(d->type[0], GPM_OA_RECORD_BUFFER_LOST);

	/* Then fresh reports, none from before the reset. */
	gpd_oa_model_advance(m, 200);
	len = read_all(m, &data, &cap, 0);
	decode_all(m, data, len, d);
	ck_assert_uint_ge(d->n, 100);
	for (size_t i = 0; i < d->n; i++) {
		ck_assert_uint_eq(d->type[i], GPM_OA_RECORD_SAMPLE);
		ck_assert_uint_gt(d->report[i].timestamp, reset_time);
	}

	/* A short read leaves BUFFER_LOST pending. */
	gpd_oa_model_advance(m, 2 * capacity + 100);
	unsigned char small[4];
	ck_assert_int_eq(gpd_oa_model_read(m, small, sizeof(small)), -ENOSPC);
	len = read_all(m, &data, &cap, 0);
	ck_assert_uint_eq(len, GPM_OA_RECORD_HEADER_SIZE);
	gpd_oa_model_destroy(m);
	free(d);
	free(data);
}
END_TEST

/* A unit that loses reports against the same unit without losses: the
 * loss draws have a random stream of their own, so both write the same
 * reports and the lossy one leaves some out. Each read that lost any
 * begins with one REPORT_LOST, ahead of its reports, and a read that
 * lost none has none. */
START_TEST(test_report_lost)
{
	struct gpd_oa_model_config cfg = sim_config(4, 9);
	unsigned char *full_data = NULL, *lossy_data = NULL;
	size_t full_cap = 0, lossy_cap = 0;
	struct decoded *full = new_decoded(), *lossy = new_decoded();

	struct gpd_oa_model *m_full = create(&cfg);
	cfg.workload.report_loss_probability = 0.02;
	struct gpd_oa_model *m_lossy = create(&cfg);
	size_t report_size = gpd_oa_model_decoder(m_full)->format->size;
	unsigned reads_with_loss = 0, reports_lost = 0, reports = 0;
	for (int step = 0; step < 100; step++) {
		gpd_oa_model_advance(m_full, 3200);
		gpd_oa_model_advance(m_lossy, 3200);
		decode_all(m_full, full_data, read_all(m_full, &full_data, &full_cap, 0), full);
		decode_all(m_lossy, lossy_data, read_all(m_lossy, &lossy_data, &lossy_cap, 0),
			   lossy);
		bool lost = lossy->n && lossy->type[0] == GPM_OA_RECORD_REPORT_LOST;
		/* The lossy read's reports, in order, among the full one's. */
		size_t k = 0;
		for (size_t i = lost; i < lossy->n; i++) {
			ck_assert_uint_eq(lossy->type[i], GPM_OA_RECORD_SAMPLE);
			while (k < full->n && memcmp(full->bytes[k], lossy->bytes[i], report_size))
				k++;
			ck_assert_msg(k < full->n, "read %d: report %zu is not the full unit's",
				      step, i);
			k++;
		}
		size_t missing = full->n - (lossy->n - lost);
		ck_assert_msg(lost == (missing > 0),
			      "read %d: %zu reports missing, REPORT_LOST %s", step, missing,
			      lost ? "ahead" : "absent");
		reads_with_loss += lost;
		reports_lost += (unsigned)missing;
		reports += (unsigned)full->n;
	}
	/* About one report in fifty. */
	ck_assert_uint_gt(reads_with_loss, 5);
	ck_assert_msg(reports_lost * 100 > reports && reports_lost * 100 < 3 * reports,
		      "%u of %u reports lost", reports_lost, reports);
	gpd_oa_model_destroy(m_full);
	gpd_oa_model_destroy(m_lossy);
	free(full);
	free(lossy);
	free(full_data);
	free(lossy_data);
}
END_TEST

/* Sums the deltas of consecutive reports into acc, as the daemon does. */
static void sum_deltas(struct gpd_oa_model *m, const struct decoded *d,
		       struct gpm_accumulator *acc)
{
	memset(acc, 0, sizeof(*acc));
	for (size_t i = 1; i < d->n; i++)
		gpm_oa_delta_add(gpd_oa_model_decoder(m), &d->report[i - 1], &d->report[i],
				 acc);
}

START_TEST(test_timestamp_wrap)
{
	struct gpd_oa_model_config cfg = sim_config(3, 11);
	unsigned char *data = NULL;
	size_t cap = 0;
	struct decoded *d = new_decoded();

	cfg.start_timestamp = 0xffffffffull - 4000;
	cfg.workload.idle_probability = -1;
	struct gpd_oa_model *m = create(&cfg);
	size_t len = run(m, 8000, 500, &data, &cap);
	decode_all(m, data, len, d);

	bool wrapped = false;
	for (size_t i = 1; i < d->n; i++) {
		struct gpm_accumulator acc = { { 0 } };

		gpm_oa_delta_add(gpd_oa_model_decoder(m), &d->report[i - 1], &d->report[i],
				 &acc);
		wrapped |= d->report[i].timestamp < d->report[i - 1].timestamp;
		ck_assert_uint_le(acc.slot[GPM_ACC_GPU_TIME], 16);
		if (d->report[i].reason & GPM_OA_REASON_TIMER &&
		    d->report[i - 1].reason & GPM_OA_REASON_TIMER)
			ck_assert_uint_eq(acc.slot[GPM_ACC_GPU_TIME], 16);
	}
	ck_assert(wrapped);
	struct gpm_accumulator total;
	sum_deltas(m, d, &total);
	ck_assert_uint_eq(total.slot[GPM_ACC_GPU_TIME],
			  (uint32_t)(d->report[d->n - 1].timestamp - d->report[0].timestamp));
	ck_assert_uint_gt(total.slot[GPM_ACC_GPU_TIME], 7900);
	gpd_oa_model_destroy(m);
	free(d);
	free(data);
}
END_TEST

/* Raw counters starting just below their wrap count the same deltas as
 * counters starting at 0: 40-bit A wraps at 2^40, 32-bit fields at 2^32. */
START_TEST(test_counter_wrap)
{
	struct gpd_oa_model_config cfg = sim_config(6, 13);
	uint64_t initial[GPM_ACC_SLOTS] = { 0 };
	unsigned char *data = NULL;
	size_t cap = 0;
	struct decoded *d0 = new_decoded(), *d1 = new_decoded();

	cfg.workload.idle_probability = -1;
	struct gpd_oa_model *m0 = create(&cfg);
	size_t len = run(m0, 200000, 5000, &data, &cap);
	decode_all(m0, data, len, d0);

	initial[GPM_ACC_GPU_CLOCK] = 0xffffffffull - 50000;
	for (int i = 0; i < 32; i++)
		initial[GPM_ACC_A + i] = (1ull << 40) - 100000 - 1000 * (uint64_t)i;
	for (int i = 32; i < 36; i++)
		initial[GPM_ACC_A + i] = 0xffffffffull - 100;
	for (int i = 0; i < 8; i++) {
		initial[GPM_ACC_B + i] = 0xffffffffull - 10 * (uint64_t)i;
		initial[GPM_ACC_C + i] = 0xfffffff0ull;
	}
	cfg.initial_counters = initial;
	struct gpd_oa_model *m1 = create(&cfg);
	len = run(m1, 200000, 5000, &data, &cap);
	decode_all(m1, data, len, d1);

	ck_assert_uint_eq(d0->n, d1->n);
	bool a_wrapped = false, clock_wrapped = false;
	for (size_t i = 1; i < d1->n; i++) {
		const struct gpm_oa_report *p = &d1->report[i - 1], *r = &d1->report[i];

		a_wrapped |= r->value[GPM_ACC_A + 0] < p->value[GPM_ACC_A + 0];
		clock_wrapped |= r->value[GPM_ACC_GPU_CLOCK] < p->value[GPM_ACC_GPU_CLOCK];
	}
	ck_assert(a_wrapped);
	ck_assert(clock_wrapped);
	ck_assert_uint_ge(d1->report[0].value[GPM_ACC_A + 0], 0xff00000000ull);

	struct gpm_accumulator acc0, acc1;
	sum_deltas(m0, d0, &acc0);
	sum_deltas(m1, d1, &acc1);
	ck_assert_uint_gt(acc0.slot[GPM_ACC_A + 0], 1000);
	for (int s = 0; s < GPM_ACC_SLOTS; s++)
		ck_assert_uint_eq(acc0.slot[s], acc1.slot[s]);
	gpd_oa_model_destroy(m0);
	gpd_oa_model_destroy(m1);
	free(d0);
	free(d1);
	free(data);
}
END_TEST

static bool is_context(struct gpd_oa_model *m, uint32_t id)
{
	for (unsigned i = 0; i < gpd_oa_model_n_contexts(m); i++) {
		if (gpd_oa_model_context_id(m, i) == id)
			return true;
	}
	return false;
}

START_TEST(test_context_and_idle_reports)
{
	struct gpd_oa_model_config cfg = sim_config(7, 17);
	unsigned char *data = NULL;
	size_t cap = 0;
	struct decoded *d = new_decoded();
	struct gpd_oa_model *m = create(&cfg);

	ck_assert_uint_eq(gpd_oa_model_n_contexts(m), 3);
	size_t len = run(m, 2000000, 20000, &data, &cap);
	decode_all(m, data, len, d);

	unsigned switches = 0, resubmits = 0, idles = 0, idle_timers = 0;
	uint32_t running = GPM_OA_CTX_NONE;
	bool idle = false;
	const struct gpm_oa_report *idle_start = NULL;
	for (size_t i = 0; i < d->n; i++) {
		const struct gpm_oa_report *r = &d->report[i];
		uint32_t dword0 = (uint32_t)d->bytes[i][0] | (uint32_t)d->bytes[i][1] << 8 |
				  (uint32_t)d->bytes[i][2] << 16 |
				  (uint32_t)d->bytes[i][3] << 24;

		/* Gen12: the valid bit is bit 16, reasons start at bit 19. */
		ck_assert_uint_eq(r->ctx_valid, !!(dword0 & (1u << 16)));
		ck_assert_uint_eq(r->reason, dword0 >> 19 & 0x7f);
		if (r->reason & GPM_OA_REASON_CTX_SWITCH) {
			if (r->ctx_valid) {
				/* Tagged with the incoming context. */
				ck_assert(is_context(m, r->ctx_id));
				switches++;
				running = r->ctx_id;
			} else {
				/* Resubmission: squashed like any report
				 * without a valid context. */
				ck_assert_uint_eq(r->ctx_id, GPM_OA_CTX_NONE);
				resubmits++;
			}
			idle = false;
		} else if (r->reason & GPM_OA_REASON_GO_TRANSITION) {
			ck_assert(!r->ctx_valid);
			ck_assert_uint_eq(r->ctx_id, GPM_OA_CTX_NONE);
			idles++;
			idle = true;
			idle_start = r;
		} else if (idle) {
			/* Asleep: squashed ID, and the clock and the counters
			 * stand still while the timestamp runs. */
			ck_assert(!r->ctx_valid);
			ck_assert_uint_eq(r->ctx_id, GPM_OA_CTX_NONE);
			ck_assert_uint_gt(r->timestamp, idle_start->timestamp);
			for (int s = GPM_ACC_GPU_CLOCK; s < GPM_ACC_B + 8; s++)
				ck_assert_uint_eq(r->value[s], idle_start->value[s]);
			idle_timers++;
		} else if (running != GPM_OA_CTX_NONE) {
			ck_assert(r->ctx_valid);
			/* A periodic report may show a context whose switch
			 * report is still on its way: the next report. */
			if (r->ctx_id != running) {
				ck_assert_uint_lt(i + 1, d->n);
				ck_assert(d->report[i + 1].reason & GPM_OA_REASON_CTX_SWITCH);
				ck_assert_uint_eq(d->report[i + 1].ctx_id, r->ctx_id);
			}
		}
	}
	ck_assert_uint_gt(switches, 10);
	ck_assert_uint_gt(resubmits, 2);
	ck_assert_uint_gt(idles, 2);
	ck_assert_uint_gt(idle_timers, 20);
	gpd_oa_model_destroy(m);
	free(d);
	free(data);
}
END_TEST

/* The context-switch report lands a moment after the switch: at the
 * fastest period a periodic report shows the new context first, as on
 * hardware (docs/oa-reference.md §2.5). Without the delay, never. */
static unsigned count_early_contexts(int64_t delay_ns)
{
	struct gpd_oa_model_config cfg = sim_config(0, 21);
	unsigned char *data = NULL;
	size_t cap = 0;
	struct decoded *d = new_decoded();

	cfg.ctx_switch_report_delay_ns = delay_ns;
	struct gpd_oa_model *m = create(&cfg);
	size_t len = run(m, 100000, 10000, &data, &cap);
	decode_all(m, data, len, d);

	unsigned early = 0;
	for (size_t i = 1; i + 1 < d->n; i++) {
		const struct gpm_oa_report *prev = &d->report[i - 1], *r = &d->report[i];

		if (r->reason != GPM_OA_REASON_TIMER || !r->ctx_valid || !prev->ctx_valid ||
		    r->ctx_id == prev->ctx_id)
			continue;
		/* The switch report follows within the 3-tick delay. */
		size_t j = i + 1;
		while (j < d->n && d->report[j].reason == GPM_OA_REASON_TIMER &&
		       d->report[j].timestamp - r->timestamp < 4)
			j++;
		ck_assert_uint_lt(j, d->n);
		ck_assert(d->report[j].reason & GPM_OA_REASON_CTX_SWITCH);
		ck_assert_uint_eq(d->report[j].ctx_id, r->ctx_id);
		early++;
	}
	gpd_oa_model_destroy(m);
	free(d);
	free(data);
	return early;
}

START_TEST(test_switch_report_lags)
{
	ck_assert_uint_gt(count_early_contexts(0), 3);
	ck_assert_uint_eq(count_early_contexts(-1), 0);
}
END_TEST

static uint32_t dword0(const unsigned char *report)
{
	return (uint32_t)report[0] | (uint32_t)report[1] << 8 | (uint32_t)report[2] << 16 |
	       (uint32_t)report[3] << 24;
}

/* Runs a platform's typical part without a set. */
static struct gpd_oa_model *platform_model(const char *platform, int exponent,
					   uint64_t start, struct gpm_device_info *dev,
					   struct decoded *d)
{
	struct gpd_oa_model_config cfg = sim_config(exponent, 23);
	unsigned char *data = NULL;
	size_t cap = 0;

	gpm_platform_default_device(gpm_platform_by_name(platform), dev);
	cfg.dev = dev;
	cfg.start_timestamp = start;
	struct gpd_oa_model *m = create(&cfg);
	size_t len = run(m, 1000000, 10000, &data, &cap);
	decode_all(m, data, len, d);
	free(data);
	return m;
}

/* Broadwell: valid bit 25, six reason bits, no clock ratios. */
START_TEST(test_gen8_report_bits)
{
	struct gpm_device_info dev;
	struct decoded *d = new_decoded();
	struct gpd_oa_model *m = platform_model("bdw", 7, 0, &dev, d);
	unsigned valid = 0;

	ck_assert_uint_gt(d->n, 1000);
	for (size_t i = 0; i < d->n; i++) {
		uint32_t dw0 = dword0(d->bytes[i]);

		ck_assert_uint_eq(dw0 & ~(0x3fu << 19 | 1u << 25), 0);
		ck_assert_uint_ne(dw0 >> 19 & 0x3f, 0);
		ck_assert_uint_eq(d->report[i].ctx_valid, !!(dw0 & 1u << 25));
		valid += d->report[i].ctx_valid;
	}
	ck_assert_uint_gt(valid, d->n / 2);
	gpd_oa_model_destroy(m);
	free(d);
}
END_TEST

/* Gen9 to Gen12 carry the clock ratio in dword0, in 50/3 MHz units, and
 * Gen12 keeps bit 25 (its MMIO-trigger reason) clear. */
START_TEST(test_gen12_clock_ratio)
{
	struct gpm_device_info dev;
	struct decoded *d = new_decoded();
	struct gpd_oa_model *m = platform_model("tglgt2", 7, 0, &dev, d);
	uint32_t lo = (uint32_t)(dev.gpu_min_freq * 3 / 50000000);
	uint32_t hi = (uint32_t)(dev.gpu_max_freq * 3 / 50000000) + 1;
	uint32_t seen_min = 0x1ff, seen_max = 0;

	for (size_t i = 0; i < d->n; i++) {
		uint32_t dw0 = dword0(d->bytes[i]);
		uint32_t unslice = dw0 & 0x1ff;
		uint32_t slice = (dw0 >> 25 & 0x7f) | (dw0 >> 9 & 3) << 7;

		ck_assert_uint_eq(dw0 & 1u << 25, 0);
		ck_assert_uint_eq(slice, unslice & ~1u);
		ck_assert_uint_ge(unslice, lo);
		ck_assert_uint_le(unslice, hi);
		seen_min = unslice < seen_min ? unslice : seen_min;
		seen_max = unslice > seen_max ? unslice : seen_max;
	}
	/* The clock follows the load. */
	ck_assert_uint_gt(seen_max, seen_min + 10);
	gpd_oa_model_destroy(m);
	free(d);
}
END_TEST

/* Haswell: periodic reports only, half a period off the multiples (how
 * IGT recognizes them), dword0 never 0, and no context ID: a Haswell
 * report is its ID and timestamp, then the A counters from byte 12
 * (docs/oa-reference.md; the kernel's gen7_append_oa_reports() reads
 * no ID, Linux 6.12), so the bytes between say nothing of a context. */
START_TEST(test_haswell_reports)
{
	struct gpm_device_info dev;
	struct decoded *d = new_decoded();
	struct gpd_oa_model *m = platform_model("hsw", 5, 0, &dev, d);

	ck_assert_uint_eq(gpd_oa_model_decoder(m)->format->i915_format, 5);
	ck_assert_uint_eq(d->n, 1000000 / 64);
	for (size_t i = 0; i < d->n; i++) {
		ck_assert_uint_eq(dword0(d->bytes[i]), 1u << 10);
		ck_assert_uint_eq(d->report[i].timestamp & 63, 32);
		ck_assert_uint_eq(dword0(d->bytes[i] + 8), 0);
	}
	gpd_oa_model_destroy(m);
	free(d);
}
END_TEST

/* DG2: the A24u40 format, the timestamp field in ticks of the OA clock
 * wrapping at 2^32, the valid bit only where a context switches in, and
 * no squashing from 12.55 on. */
START_TEST(test_dg2_reports)
{
	struct gpm_device_info dev;
	struct decoded *d = new_decoded();
	struct gpd_oa_model *m = platform_model("acmgt1", 4, 0xffffffffull - 50000, &dev, d);
	const struct gpm_oa_decoder *dec = gpd_oa_model_decoder(m);
	unsigned switches = 0, running = 0;
	bool wrapped = false;

	ck_assert_uint_eq(dec->format->i915_format, 12);
	for (size_t i = 0; i < d->n; i++) {
		const struct gpm_oa_report *r = &d->report[i];
		uint32_t field = (uint32_t)d->bytes[i][4] | (uint32_t)d->bytes[i][5] << 8 |
				 (uint32_t)d->bytes[i][6] << 16 | (uint32_t)d->bytes[i][7] << 24;

		ck_assert_uint_eq(field, r->timestamp);
		if (i) {
			struct gpm_accumulator acc = { { 0 } };

			wrapped |= r->timestamp < d->report[i - 1].timestamp;
			gpm_oa_delta_add(dec, &d->report[i - 1], r, &acc);
			ck_assert_uint_le(acc.slot[GPM_ACC_GPU_TIME], 32);
		}
		if (r->reason & GPM_OA_REASON_TIMER)
			ck_assert_uint_eq(r->timestamp % 32, 0);
		if (r->reason & GPM_OA_REASON_CTX_SWITCH && r->ctx_valid) {
			switches++;
			continue;
		}
		ck_assert(!r->ctx_valid);
		if (is_context(m, r->ctx_id))
			running++;
		else
			ck_assert_uint_eq(r->ctx_id, GPM_OA_CTX_NONE);
	}
	ck_assert(wrapped);
	ck_assert_uint_gt(switches, 10);
	ck_assert_uint_gt(running, d->n / 2);
	gpd_oa_model_destroy(m);
	free(d);
}
END_TEST

START_TEST(test_context_filter)
{
	struct gpd_oa_model_config cfg = sim_config(7, 17);
	unsigned char *data = NULL;
	size_t cap = 0;
	struct decoded *d = new_decoded();
	struct gpd_oa_model *probe = create(&cfg);
	uint32_t target = gpd_oa_model_context_id(probe, 1);

	gpd_oa_model_destroy(probe);
	cfg.filter_context = true;
	cfg.filter_context_id = target;
	struct gpd_oa_model *m = create(&cfg);
	size_t len = run(m, 2000000, 20000, &data, &cap);
	decode_all(m, data, len, d);

	/* Only the context's reports, context switches and the report
	 * closing the context's last stretch; other IDs hidden. */
	unsigned own = 0;
	uint32_t last = GPM_OA_CTX_NONE;
	for (size_t i = 0; i < d->n; i++) {
		const struct gpm_oa_report *r = &d->report[i];

		ck_assert(r->ctx_id == target || r->ctx_id == GPM_OA_CTX_NONE);
		if (r->ctx_id == target)
			own++;
		else if (!(r->reason & GPM_OA_REASON_CTX_SWITCH))
			ck_assert_uint_eq(last, target);
		last = r->ctx_id;
	}
	ck_assert_uint_gt(own, 10);
	gpd_oa_model_destroy(m);
	free(d);
	free(data);
}
END_TEST

/* The counters of the pairs of reports that begin in context ctx, the
 * daemon's rule for a context's share (a pair of reports belongs to the
 * context the first names). */
static void sum_context(const struct decoded *d, uint32_t ctx, uint64_t *sum)
{
	memset(sum, 0, GPM_ACC_SLOTS * sizeof(*sum));
	for (size_t i = 1; i < d->n; i++) {
		if (d->type[i - 1] != GPM_OA_RECORD_SAMPLE ||
		    d->type[i] != GPM_OA_RECORD_SAMPLE || d->report[i - 1].ctx_id != ctx)
			continue;
		for (size_t s = 0; s < GPM_ACC_SLOTS; s++)
			sum[s] += d->report[i].value[s] - d->report[i - 1].value[s];
	}
}

/*
 * Gen12 (the sim's IP 12.0): the unit counts every context, and a
 * single-context stream's read forwards the context's reports, every
 * switch and the report closing each of its runs
 * (gen8_append_oa_reports(), Linux 6.12). So every pair of reports that
 * begins in the context is in its stream whole, and the context's share
 * is exactly what the whole unit's reports give it.
 */
START_TEST(test_context_filter_keeps_its_share_exact)
{
	struct gpd_oa_model_config cfg = sim_config(7, 17);
	unsigned char *data = NULL;
	size_t cap = 0;
	struct decoded *all = new_decoded(), *own = new_decoded();
	struct gpd_oa_model *m = create(&cfg);
	uint32_t target = gpd_oa_model_context_id(m, 1);
	decode_all(m, data, run(m, 2000000, 20000, &data, &cap), all);
	gpd_oa_model_destroy(m);
	cfg.filter_context = true;
	cfg.filter_context_id = target;
	m = create(&cfg);
	decode_all(m, data, run(m, 2000000, 20000, &data, &cap), own);
	gpd_oa_model_destroy(m);

	ck_assert_uint_lt(own->n, all->n);
	uint64_t from_all[GPM_ACC_SLOTS], from_own[GPM_ACC_SLOTS];
	sum_context(all, target, from_all);
	sum_context(own, target, from_own);
	ck_assert_uint_gt(from_own[GPM_ACC_GPU_CLOCK], 0);
	for (size_t s = 0; s < GPM_ACC_SLOTS; s++)
		ck_assert_msg(from_all[s] == from_own[s], "slot %zu: %llu of the unit's, "
			      "%llu of the context's stream", s,
			      (unsigned long long)from_all[s], (unsigned long long)from_own[s]);
	free(all);
	free(own);
	free(data);
}
END_TEST

/* The key property: windows of the model's reports, decoded and
 * evaluated like the daemon does, give every counter a value in
 * [0, max]. */

struct bounds_check {
	const struct gpm_binding *binding;
	struct gpm_value *values, *max;
	bool *has_max;
	unsigned windows, busy_windows;
	const char *what;
};

static void check_window(void *data, const struct gpm_oa_window *w)
{
	struct bounds_check *bc = data;
	const struct gpm_binding *b = bc->binding;
	const struct gpm_metric_set *set = b->set;

	gpm_binding_evaluate(b, &w->acc, bc->values);
	gpm_binding_evaluate_max(b, &w->acc, bc->values, bc->max);
	bc->windows++;
	bc->busy_windows += w->acc.slot[GPM_ACC_GPU_CLOCK] > 0;
	for (size_t s = 0; s < b->n_steps; s++) {
		unsigned c = b->steps[s].counter;
		double v = gpm_value_as_double(bc->values[c]);

		if (isnan(v) || v < 0 || (bc->values[c].type == GPM_VALUE_U64 &&
					  bc->values[c].u > (1ull << 62)))
			ck_abort_msg("%s %s.%s = %g", bc->what, set->symbol_name,
				     set->counters[c].symbol_name, v);
		if (bc->has_max[c] && v > gpm_value_as_double(bc->max[c]))
			ck_abort_msg("%s %s.%s = %.17g > max %.17g (window of %u reports, "
				     "%llu clocks)", bc->what, set->symbol_name,
				     set->counters[c].symbol_name, v,
				     gpm_value_as_double(bc->max[c]), w->n_reports,
				     (unsigned long long)w->acc.slot[GPM_ACC_GPU_CLOCK]);
	}
}

static void check_set_bounds(const struct gpm_device_info *dev,
			     const struct gpm_metric_set *set, int exponent,
			     enum gpm_oa_window_mode mode, uint64_t interval, uint64_t ticks)
{
	struct gpd_oa_model_config cfg = {
		.dev = dev,
		.set = set,
		.exponent = exponent,
		.seed = 0x5eed,
		.start_timestamp = 0xffffffffull - 20000,
		.workload = {
			.busy_mean_ns = 2000000,
			.idle_mean_ns = 300000,
			.timeslice_mean_ns = 200000,
			.ramp_ns = 500000,
		},
	};
	struct gpm_device_vars *vars = malloc(sizeof(*vars));
	struct gpm_binding binding;
	struct gpm_oa_windower *w = malloc(sizeof(*w));
	unsigned char *data = NULL;
	size_t cap = 0;

	ck_assert_ptr_nonnull(vars);
	ck_assert_ptr_nonnull(w);
	gpm_device_vars_init(vars, dev);
	ck_assert_int_eq(gpm_binding_init(&binding, set, vars), 0);
	struct bounds_check bc = {
		.binding = &binding,
		.values = calloc(set->n_counters + 1, sizeof(struct gpm_value)),
		.max = calloc(set->n_counters + 1, sizeof(struct gpm_value)),
		.has_max = calloc(set->n_counters + 1, sizeof(bool)),
		.what = mode == GPM_OA_WINDOW_PAIR ? "pair" : "interval",
	};
	for (size_t i = 0; i < binding.n_max; i++)
		bc.has_max[binding.max[i].counter] = true;

	struct gpd_oa_model *m = create(&cfg);
	ck_assert_int_eq(gpm_oa_windower_init(w, gpd_oa_model_decoder(m), mode, interval,
					      check_window, &bc), 0);
	for (uint64_t done = 0; done < ticks; done += 20000) {
		gpd_oa_model_advance(m, 20000);
		size_t len = read_all(m, &data, &cap, 0);
		struct gpm_oa_record_reader rd;
		struct gpm_oa_record rec;

		gpm_oa_record_reader_init(&rd, GPM_OA_FRAMING_I915,
					  gpd_oa_model_decoder(m)->format->size, data, len);
		while (gpm_oa_record_next(&rd, &rec) == 1)
			ck_assert_int_eq(gpm_oa_windower_record(w, &rec), 0);
	}
	gpm_oa_windower_flush(w);
	ck_assert_uint_gt(bc.busy_windows, 10);

	gpd_oa_model_destroy(m);
	gpm_binding_fini(&binding);
	free(bc.values);
	free(bc.max);
	free(bc.has_max);
	free(vars);
	free(w);
	free(data);
}

static void check_bounds(const struct gpm_device_info *dev, const struct gpm_metric_set *set)
{
	/* 1 ms windows over a second, and every report pair at the fastest
	 * rate, where rounding has the fewest clocks to hide in. */
	check_set_bounds(dev, set, 8, GPM_OA_WINDOW_INTERVAL,
			 dev->timestamp_frequency / 1000, dev->timestamp_frequency);
	check_set_bounds(dev, set, 0, GPM_OA_WINDOW_PAIR, 0, 400000);
}

START_TEST(test_sim_sets_within_bounds)
{
	struct gpm_metrics_db db;

	gpm_metrics_db_init(&db);
	ck_assert_int_eq(gpm_metrics_db_add_builtin(&db), 0);
	const struct gpm_metrics_file *file = gpm_metrics_db_find_platform(&db, "simgen12");
	ck_assert_ptr_nonnull(file);
	ck_assert_uint_ge(file->n_sets, 3);
	gpm_sim_device_info(&sim_dev);
	for (size_t i = 0; i < file->n_sets; i++)
		check_bounds(&sim_dev, &file->sets[i]);
	gpm_metrics_db_fini(&db);
}
END_TEST

static void check_platform_sets(const char *platform, const char *const *sets,
				size_t n_sets)
{
	char path[512];
	char rel[64];
	struct gpm_device_info dev;
	const struct gpm_platform *p = gpm_platform_by_name(platform);

	ck_assert_ptr_nonnull(p);
	gpm_platform_default_device(p, &dev);
	snprintf(rel, sizeof(rel), "intel-metrics/i915/oa-%s.xml", platform);

	struct gpm_diagnostics diag;
	struct gpm_metrics_file *file;
	gpm_diagnostics_init(&diag);
	ck_assert_int_eq(gpm_metrics_file_load(test_shared_path(path, sizeof(path), rel),
					       &diag, &file), 0);
	for (size_t i = 0; i < n_sets; i++) {
		const struct gpm_metric_set *set = gpm_metrics_file_find_set(file, sets[i]);

		ck_assert_msg(set != NULL, "%s has no set %s", platform, sets[i]);
		check_bounds(&dev, set);
	}
	gpm_metrics_file_free(file);
	gpm_diagnostics_fini(&diag);
}

START_TEST(test_tglgt2_sets_within_bounds)
{
	static const char *const sets[] = { "RenderBasic", "ComputeBasic" };

	check_platform_sets("tglgt2", sets, 2);
}
END_TEST

static Suite *oa_model_suite(void)
{
	Suite *s = suite_create("oa_model");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_deterministic);
	tcase_add_test(tc, test_lent_rates_same_reports);
	tcase_add_test(tc, test_periodic_spacing);
	tcase_add_test(tc, test_fastest_period);
	tcase_add_test(tc, test_record_framing);
	tcase_add_test(tc, test_read_errors);
	tcase_add_test(tc, test_buffer_overflow);
	tcase_add_test(tc, test_report_lost);
	tcase_add_test(tc, test_timestamp_wrap);
	tcase_add_test(tc, test_counter_wrap);
	tcase_add_test(tc, test_context_and_idle_reports);
	tcase_add_test(tc, test_switch_report_lags);
	tcase_add_test(tc, test_gen8_report_bits);
	tcase_add_test(tc, test_gen12_clock_ratio);
	tcase_add_test(tc, test_haswell_reports);
	tcase_add_test(tc, test_dg2_reports);
	tcase_add_test(tc, test_context_filter);
	tcase_add_test(tc, test_context_filter_keeps_its_share_exact);
	tcase_add_test(tc, test_sim_sets_within_bounds);
	tcase_add_test(tc, test_tglgt2_sets_within_bounds);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(oa_model_suite)
