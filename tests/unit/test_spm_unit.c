/*
 * The simulated SPM unit of sim:amd (daemon/sim/spm_unit.c) read back
 * with the SPM decoder (metrics/spm_ring.c): the ring as PAL's rules
 * have it, unwrapped, wrapped once and many times, the write pointer at
 * every sample boundary for every granularity a 32-byte line allows, 32-bit
 * counters whose low half carries into the high half, a live reader that
 * takes each sample once and sees when the unit went round past it, the
 * 32-clock minimum interval, and values that move with the workload.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/sim/spm_unit.h"
#include "metrics/little_endian.h"
#include "metrics/spm_ring.h"
#include "tests/unit/test_util.h"

#define SHADER_HZ 2000000000ull
#define TIMESTAMP_HZ 100000000ull
#define START 0x100000000ull

/* A global counter, two of shader engine 0 and 3, another global one. */
static const struct gpd_spm_counter_id counters[] = {
	{ GPD_SPM_GRBM_COUNT, 0 },
	{ GPD_SPM_GRBM_GUI_ACTIVE, 0 },
	{ GPD_SPM_SQ_WAVES, 0 },
	{ GPD_SPM_TCP_REQ, 7 },
	{ GPD_SPM_GL2C_MISS, 3 },
};
#define N_COUNTERS (sizeof(counters) / sizeof(counters[0]))

static struct gpd_spm_unit *make_unit(uint32_t interval, uint32_t max_samples,
				      uint32_t granularity)
{
	struct gpd_spm_unit_config cfg = {
		.counters = counters,
		.n_counters = N_COUNTERS,
		.sample_interval = interval,
		.max_samples = max_samples,
		.wr_ptr_granularity = granularity,
		.shader_frequency = SHADER_HZ,
		.timestamp_frequency = TIMESTAMP_HZ,
		.start_timestamp = START,
		.seed = 3,
	};
	struct gpd_spm_unit *unit = NULL;
	ck_assert_int_eq(gpd_spm_unit_create(&cfg, &unit), 0);
	return unit;
}

/* The timestamp of sample j (0 is the first taken). */
static uint64_t ts_of(uint32_t interval, uint64_t j)
{
	return START + (j + 1) * interval * TIMESTAMP_HZ / SHADER_HZ;
}

static void decode(const struct gpd_spm_unit *unit, struct gpm_spm_samples *out)
{
	size_t len;
	char why[200];
	const uint8_t *data = gpd_spm_unit_data(unit, &len);
	int ret = gpm_spm_decode(gpd_spm_unit_layout(unit), data, len, out, why,
				 sizeof(why));
	ck_assert_msg(ret == 0, "decode: %s", why);
}

/* The decoded ring holds the newest min(taken, max) of `taken` samples,
 * oldest first, each counting its interval's clocks. */
static void check_ring(const struct gpd_spm_unit *unit, uint32_t interval,
		       uint32_t max_samples, uint64_t taken)
{
	struct gpm_spm_samples s;
	decode(unit, &s);
	uint64_t n = taken < max_samples ? taken : max_samples;
	ck_assert_uint_eq(s.n_samples, n);
	ck_assert_int_eq(s.wrapped, taken >= max_samples);
	for (uint64_t i = 0; i < n; i++) {
		ck_assert_uint_eq(s.timestamps[i], ts_of(interval, taken - n + i));
		const uint32_t *v = s.values + i * N_COUNTERS;
		ck_assert_uint_eq(v[0], interval);
		ck_assert_uint_le(v[1], v[0]);
	}
	gpm_spm_samples_fini(&s);
}

START_TEST(test_unwrapped)
{
	struct gpd_spm_unit *u = make_unit(640, 16, 32);
	check_ring(u, 640, 16, 0);
	gpd_spm_unit_advance(u, 5 * 640 + 320);
	ck_assert_uint_eq(gpd_spm_unit_samples(u), 5);
	check_ring(u, 640, 16, 5);
	gpd_spm_unit_advance(u, 320 + 10 * 640 - 1);
	check_ring(u, 640, 16, 15);
	gpd_spm_unit_destroy(u);
}
END_TEST

START_TEST(test_wrapped_once)
{
	struct gpd_spm_unit *u = make_unit(640, 16, 32);
	gpd_spm_unit_advance(u, 16 * 640);
	/* Exactly full: the pointer is back at the first slot. */
	check_ring(u, 640, 16, 16);
	gpd_spm_unit_advance(u, 5 * 640);
	check_ring(u, 640, 16, 21);
	gpd_spm_unit_destroy(u);
}
END_TEST

START_TEST(test_wrapped_many_times)
{
	/* Sample by sample, and in one step that overwrites most of what
	 * it takes: the same ring either way. */
	struct gpd_spm_unit *a = make_unit(640, 16, 32);
	struct gpd_spm_unit *b = make_unit(640, 16, 32);
	for (unsigned i = 0; i < 9 * 16 + 3; i++)
		gpd_spm_unit_advance(a, 640);
	gpd_spm_unit_advance(b, (9 * 16 + 3) * 640ull);
	check_ring(a, 640, 16, 9 * 16 + 3);
	check_ring(b, 640, 16, 9 * 16 + 3);
	ck_assert_uint_eq(gpd_spm_unit_samples(b), 9 * 16 + 3);
	gpd_spm_unit_destroy(a);
	gpd_spm_unit_destroy(b);
}
END_TEST

START_TEST(test_every_pointer_position)
{
	static const uint32_t granularities[] = { 1, 2, 4, 8, 16, 32 };
	for (unsigned g = 0; g < 6; g++) {
		struct gpd_spm_unit *u = make_unit(64, 7, granularities[g]);
		const struct gpm_spm_layout *l = gpd_spm_unit_layout(u);
		size_t len;
		for (uint64_t k = 1; k <= 3 * 7 + 1; k++) {
			gpd_spm_unit_advance(u, 64);
			const uint8_t *data = gpd_spm_unit_data(u, &len);
			uint32_t wr = gpm__le32_load(data + l->wr_ptr_offset);
			ck_assert_uint_eq((uint64_t)wr * granularities[g],
					  k % 7 * l->sample_stride);
			check_ring(u, 64, 7, k);
		}
		gpd_spm_unit_destroy(u);
	}
}
END_TEST

START_TEST(test_32_bit_halves_carry)
{
	static const uint32_t intervals[] = {
		0xffff, 0x10000, 0x10001, 0x1ffff, 0x20000, 0xfffff,
	};
	for (unsigned i = 0; i < 6; i++) {
		struct gpd_spm_unit *u = make_unit(intervals[i], 4, 32);
		const struct gpm_spm_layout *l = gpd_spm_unit_layout(u);
		gpd_spm_unit_advance(u, 2ull * intervals[i]);
		check_ring(u, intervals[i], 4, 2);
		/* The halves as the hardware writes them, low at offsetLo. */
		size_t len;
		const uint8_t *sample = gpd_spm_unit_data(u, &len) + l->sample_offset;
		ck_assert(l->counters[0].is_32bit);
		ck_assert_uint_eq(gpm__le16_load(sample + l->counters[0].offset_lo),
				  intervals[i] & 0xffff);
		ck_assert_uint_eq(gpm__le16_load(sample + l->counters[0].offset_hi),
				  intervals[i] >> 16);
		gpd_spm_unit_destroy(u);
	}
}
END_TEST

START_TEST(test_segments)
{
	struct gpd_spm_unit *u = make_unit(640, 4, 32);
	const struct gpm_spm_layout *l = gpd_spm_unit_layout(u);
	/* Global: timestamp, GRBM x2, GL2C: 1 line; SE0 (SQ[0]) and SE3
	 * (TCP[7]): a line each; SE1 and SE2: none. */
	const uint32_t lines[] = { 1, 1, 0, 0, 1 };
	ck_assert_uint_eq(l->sample_stride, 3 * GPM_SPM_LINE_BYTES);
	const unsigned segment[] = { 0, 0, 1, 4, 0 };
	const uint32_t slot[] = { 4, 6, 0, 0, 8 };
	for (unsigned c = 0; c < N_COUNTERS; c++) {
		ck_assert_int_eq(l->counters[c].offset_lo,
				 gpm_spm_segment_offset(lines, 5, segment[c], slot[c]));
		ck_assert_int_eq(l->counters[c].offset_hi,
				 gpm_spm_segment_offset(lines, 5, segment[c],
							slot[c] + 1));
	}
	gpd_spm_unit_destroy(u);
}
END_TEST

/* Reads what is new: the samples from want_first to the newest. */
static void read_new(const struct gpd_spm_unit *u, struct gpm_spm_cursor *cursor,
		     uint64_t *next, uint64_t want_first)
{
	struct gpm_spm_samples s;
	size_t len;
	char why[200];
	const uint8_t *data = gpd_spm_unit_data(u, &len);
	ck_assert_int_eq(gpm_spm_read_new(gpd_spm_unit_layout(u), data, len,
					  cursor, &s, why, sizeof(why)), 0);
	uint64_t taken = gpd_spm_unit_samples(u);
	ck_assert_uint_eq(s.n_samples, taken - want_first);
	for (size_t i = 0; i < s.n_samples; i++)
		ck_assert_uint_eq(s.timestamps[i], ts_of(64, want_first + i));
	*next = taken;
	gpm_spm_samples_fini(&s);
}

START_TEST(test_live_reader)
{
	struct gpd_spm_unit *u = make_unit(64, 16, 32);
	struct gpm_spm_cursor cursor = { 0 };
	uint64_t next = 0, state = 7;
	/* Steps of 0 to 16 samples: nothing is read twice or missed, even
	 * when the pointer comes round to where the reader is (16: the
	 * reader's last sample is overwritten, the new ones all there). */
	for (unsigned i = 0; i < 200; i++) {
		gpd_spm_unit_advance(u, 64 * (test_xorshift64(&state) % 17));
		read_new(u, &cursor, &next, next);
	}
	/* 17 samples: the first of them was overwritten. */
	gpd_spm_unit_advance(u, 64 * 17);
	read_new(u, &cursor, &next, next + 1);
	/* Many times round: the newest 16. */
	gpd_spm_unit_advance(u, 64 * 1000);
	read_new(u, &cursor, &next, next + 1000 - 16);
	read_new(u, &cursor, &next, next);
	gpd_spm_unit_destroy(u);
}
END_TEST

START_TEST(test_interval_bounds)
{
	struct gpd_spm_unit_config cfg = {
		.counters = counters,
		.n_counters = N_COUNTERS,
		.sample_interval = GPD_SPM_MIN_INTERVAL - 1,
		.max_samples = 8,
		.wr_ptr_granularity = 32,
		.shader_frequency = SHADER_HZ,
		.timestamp_frequency = TIMESTAMP_HZ,
		.start_timestamp = START,
	};
	struct gpd_spm_unit *u = NULL;
	ck_assert_int_eq(gpd_spm_unit_create(&cfg, &u), -EINVAL);
	cfg.sample_interval = GPD_SPM_MIN_INTERVAL;
	ck_assert_int_eq(gpd_spm_unit_create(&cfg, &u), 0);
	gpd_spm_unit_destroy(u);
	/* A granularity that would put the pointer inside a line. */
	cfg.wr_ptr_granularity = 3;
	ck_assert_int_eq(gpd_spm_unit_create(&cfg, &u), -EINVAL);
}
END_TEST

START_TEST(test_values_move)
{
	/* Two seconds in 1 ms samples: busy phases and idle stretches. */
	struct gpd_spm_unit *u = make_unit(2000000, 2000, 32);
	gpd_spm_unit_advance(u, 2000ull * 2000000);
	struct gpm_spm_samples s;
	decode(u, &s);
	ck_assert_uint_eq(s.n_samples, 2000);
	double lo = 1, hi = 0;
	unsigned idle = 0;
	for (size_t i = 0; i < s.n_samples; i++) {
		const uint32_t *v = s.values + i * N_COUNTERS;
		double busy = (double)v[1] / v[0];
		lo = busy < lo ? busy : lo;
		hi = busy > hi ? busy : hi;
		if (!v[1]) {
			idle++;
			ck_assert_uint_eq(v[2] + v[3] + v[4], 0);
		}
		ck_assert_uint_le(v[2], v[0] / 64 + 1);
	}
	ck_assert_msg(lo < 0.05 && hi > 0.8, "busy share only %.2f-%.2f", lo, hi);
	ck_assert_uint_gt(idle, 10);
	gpm_spm_samples_fini(&s);
	gpd_spm_unit_destroy(u);
}
END_TEST

START_TEST(test_counter_names)
{
	struct gpd_spm_counter_id id;
	char why[300];
	ck_assert_int_eq(gpd_spm_counter_parse("SQ[3].INSTS_VALU", &id, why,
					       sizeof(why)), 0);
	ck_assert_int_eq(id.event, GPD_SPM_SQ_INSTS_VALU);
	ck_assert_uint_eq(id.instance, 3);
	ck_assert_int_eq(gpd_spm_counter_parse("GL2C[1].HIT", &id, why,
					       sizeof(why)), 0);
	ck_assert_int_eq(id.event, GPD_SPM_GL2C_HIT);
	ck_assert_int_eq(gpd_spm_counter_parse("SQ[4].WAVES", &id, why,
					       sizeof(why)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(why, "0 to 3"));
	ck_assert_int_eq(gpd_spm_counter_parse("SQ[0].WAVES2", &id, why,
					       sizeof(why)), -ENOENT);
	ck_assert_int_eq(gpd_spm_counter_parse("SQ[].WAVES", &id, why,
					       sizeof(why)), -ENOENT);
}
END_TEST

static Suite *spm_unit_suite(void)
{
	Suite *s = suite_create("spm_unit");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_unwrapped);
	tcase_add_test(tc, test_wrapped_once);
	tcase_add_test(tc, test_wrapped_many_times);
	tcase_add_test(tc, test_every_pointer_position);
	tcase_add_test(tc, test_32_bit_halves_carry);
	tcase_add_test(tc, test_segments);
	tcase_add_test(tc, test_live_reader);
	tcase_add_test(tc, test_interval_bounds);
	tcase_add_test(tc, test_values_move);
	tcase_add_test(tc, test_counter_names);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(spm_unit_suite)
