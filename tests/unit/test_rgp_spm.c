/*
 * The SPM chunks of RGP captures (metrics/rgp_spm.c), on files written by
 * radv's rules (rgp_writer.h): a capture of several chunks, an unknown
 * chunk skipped and counted, 16- and 32-bit values, the older preamble,
 * and files cut short or whose sizes lie, every one refused in words.
 */
#include <errno.h>
#include <string.h>

#include "metrics/rgp_spm.h"
#include "tests/unit/rgp_writer.h"
#include "tests/unit/test_util.h"

static const uint64_t timestamps[] = { 1000, 1256, 1512, 1768, 2024 };
static const struct rgp_spm_counter counters[] = {
	{ 6, 0, 4 },            /* SQ, instance 0, event 4 */
	{ 8, 3, 17 },           /* TA[3] */
	{ 0x26, 15, 3 },        /* GL2C[15] */
};

static uint32_t value(uint32_t s, uint32_t c)
{
	return c == 2 ? 0xfff0u + s * 9 : s * 100 + c;
}

/* CPU info, ASIC info, the SPM chunk; its bytes in b. */
static void capture(struct rgp_buf *b, uint32_t item_size, int short_records)
{
	memset(b, 0, sizeof(*b));
	rgp_file_header(b);
	rgp_other_chunk(b, 7, 112);
	rgp_asic_info_chunk(b, 100000000);
	rgp_spm_chunk(b, 4096, 5, timestamps, 3, counters, value, item_size,
		      short_records);
}

static void check_spm(const struct gpm_rgp_spm *spm, uint32_t interval,
		      uint32_t mask)
{
	ck_assert_uint_eq(spm->sample_interval, interval);
	ck_assert_uint_eq(spm->n_samples, 5);
	ck_assert_uint_eq(spm->n_counters, 3);
	for (size_t s = 0; s < 5; s++)
		ck_assert_uint_eq(spm->timestamps[s], timestamps[s]);
	for (size_t c = 0; c < 3; c++) {
		ck_assert_uint_eq(spm->counters[c].block, counters[c].block);
		ck_assert_uint_eq(spm->counters[c].instance, counters[c].instance);
		ck_assert_uint_eq(spm->counters[c].event, counters[c].event);
		for (uint32_t s = 0; s < 5; s++)
			ck_assert_uint_eq(spm->values[s * 3 + c], value(s, (uint32_t)c) & mask);
	}
}

START_TEST(test_capture_of_several_chunks)
{
	struct rgp_buf b;
	capture(&b, 2, 0);
	struct gpm_rgp_file f;
	char why[256];
	ck_assert_int_eq(gpm_rgp_read(b.data, b.len, &f, why, sizeof(why)), 0);
	ck_assert_uint_eq(f.version_major, 1);
	ck_assert_uint_eq(f.version_minor, 5);
	ck_assert_uint_eq(f.n_chunks, 3);
	ck_assert_uint_eq(f.n_unknown_chunks, 0);
	ck_assert_uint_eq(f.n_spm, 1);
	check_spm(&f.spm[0], 4096, 0xffff);
	ck_assert_uint_eq(f.gpu_timestamp_frequency, 100000000);
	ck_assert_uint_eq(gpm_rgp_timestamp_ns(&f, 123456789), 1234567890);
	gpm_rgp_file_fini(&f);
	free(b.data);
}
END_TEST

/* Without an ASIC info chunk, or with one too short to hold the field,
 * the capture reads, its frequency unknown. */
START_TEST(test_timestamp_frequency_unknown)
{
	struct rgp_buf b;
	memset(&b, 0, sizeof(b));
	rgp_file_header(&b);
	rgp_spm_chunk(&b, 4096, 5, timestamps, 3, counters, value, 2, 0);
	struct gpm_rgp_file f;
	char why[256];
	ck_assert_int_eq(gpm_rgp_read(b.data, b.len, &f, why, sizeof(why)), 0);
	ck_assert_uint_eq(f.gpu_timestamp_frequency, 0);
	check_spm(&f.spm[0], 4096, 0xffff);
	gpm_rgp_file_fini(&f);
	free(b.data);

	memset(&b, 0, sizeof(b));
	rgp_file_header(&b);
	rgp_other_chunk(&b, 0, 431);
	rgp_spm_chunk(&b, 4096, 5, timestamps, 3, counters, value, 2, 0);
	ck_assert_int_eq(gpm_rgp_read(b.data, b.len, &f, why, sizeof(why)), 0);
	ck_assert_uint_eq(f.gpu_timestamp_frequency, 0);
	gpm_rgp_file_fini(&f);
	free(b.data);
}
END_TEST

START_TEST(test_32_bit_values_and_older_records)
{
	struct rgp_buf b;
	struct gpm_rgp_file f;
	char why[256];
	capture(&b, 4, 0);
	ck_assert_int_eq(gpm_rgp_read(b.data, b.len, &f, why, sizeof(why)), 0);
	check_spm(&f.spm[0], 4096, 0xffffffff);
	gpm_rgp_file_fini(&f);
	free(b.data);
	capture(&b, 2, 1);
	ck_assert_int_eq(gpm_rgp_read(b.data, b.len, &f, why, sizeof(why)), 0);
	check_spm(&f.spm[0], 0, 0xffff);
	gpm_rgp_file_fini(&f);
	free(b.data);
}
END_TEST

START_TEST(test_unknown_chunk_skipped)
{
	struct rgp_buf b;
	memset(&b, 0, sizeof(b));
	rgp_file_header(&b);
	rgp_other_chunk(&b, 200, 40);
	rgp_spm_chunk(&b, 4096, 5, timestamps, 3, counters, value, 2, 0);
	rgp_spm_chunk(&b, 8192, 5, timestamps, 3, counters, value, 2, 0);
	struct gpm_rgp_file f;
	char why[256];
	ck_assert_int_eq(gpm_rgp_read(b.data, b.len, &f, why, sizeof(why)), 0);
	ck_assert_uint_eq(f.n_chunks, 3);
	ck_assert_uint_eq(f.n_unknown_chunks, 1);
	ck_assert_uint_eq(f.n_spm, 2);
	check_spm(&f.spm[0], 4096, 0xffff);
	check_spm(&f.spm[1], 8192, 0xffff);
	gpm_rgp_file_fini(&f);
	free(b.data);
}
END_TEST

/* Cut anywhere, the file is refused, never read past its end. */
START_TEST(test_truncated_refused)
{
	struct rgp_buf b;
	capture(&b, 2, 0);
	struct gpm_rgp_file f;
	char why[256];
	for (size_t len = 0; len < b.len; len++) {
		uint8_t *copy = malloc(len ? len : 1);
		memcpy(copy, b.data, len);
		int ret = gpm_rgp_read(copy, len, &f, why, sizeof(why));
		/* Cut right after a whole chunk it reads what is there. */
		if (len == 56 || len == 56 + 112 || len == 56 + 112 + 768) {
			ck_assert_int_eq(ret, 0);
			gpm_rgp_file_fini(&f);
		} else {
			ck_assert_msg(ret == -EBADMSG, "len %zu: %d", len, ret);
			ck_assert_uint_eq(f.n_spm, 0);
		}
		free(copy);
	}
	ck_assert_int_eq(gpm_rgp_read(b.data, 56 + 112 + 8, &f, why, sizeof(why)),
			 -EBADMSG);
	ck_assert_ptr_nonnull(strstr(why, "cut short: 8 bytes at byte 168"));
	ck_assert_int_eq(gpm_rgp_read(b.data, 10, &f, why, sizeof(why)), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(why, "not an RGP capture"));
	free(b.data);
}
END_TEST

START_TEST(test_lying_sizes_refused)
{
	struct rgp_buf b;
	struct gpm_rgp_file f;
	char why[256];
	size_t spm_at = 56 + 112 + 768;
	/* A chunk bigger than the file. */
	capture(&b, 2, 0);
	rgp_set_u32(&b, 56 + 8, 1u << 30);
	ck_assert_int_eq(gpm_rgp_read(b.data, b.len, &f, why, sizeof(why)), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(why, "chunk of type 7 at byte 56 says it is 1073741824 bytes"));
	/* A chunk smaller than its header: no endless loop. */
	rgp_set_u32(&b, 56 + 8, 0);
	ck_assert_int_eq(gpm_rgp_read(b.data, b.len, &f, why, sizeof(why)), -EBADMSG);
	free(b.data);
	/* More samples than the chunk holds. */
	capture(&b, 2, 0);
	rgp_set_u32(&b, spm_at + 16 + 8, 1000000);
	ck_assert_int_eq(gpm_rgp_read(b.data, b.len, &f, why, sizeof(why)), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(why, "1000000 samples"));
	free(b.data);
	/* A counter's values past the chunk. */
	capture(&b, 2, 0);
	rgp_set_u32(&b, spm_at + 40 + 5 * 8 + 20 + 12, 1u << 20);
	ck_assert_int_eq(gpm_rgp_read(b.data, b.len, &f, why, sizeof(why)), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(why, "counter 1 of the SPM chunk"));
	free(b.data);
	/* Values of a size nobody writes. */
	capture(&b, 2, 0);
	rgp_set_u32(&b, spm_at + 40 + 5 * 8 + 16, 3);
	ck_assert_int_eq(gpm_rgp_read(b.data, b.len, &f, why, sizeof(why)), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(why, "values of 3 bytes"));
	free(b.data);
	/* A first chunk past the end. */
	capture(&b, 2, 0);
	rgp_set_u32(&b, 16, (uint32_t)b.len + 1);
	ck_assert_int_eq(gpm_rgp_read(b.data, b.len, &f, why, sizeof(why)), -EBADMSG);
	free(b.data);
}
END_TEST

START_TEST(test_block_names)
{
	ck_assert_str_eq(gpm_rgp_block_name(6), "SQ");
	ck_assert_str_eq(gpm_rgp_block_name(0xA), "TCP");
	ck_assert_str_eq(gpm_rgp_block_name(0x26), "GL2C");
	ck_assert_ptr_null(gpm_rgp_block_name(0x1000));
}
END_TEST

static Suite *rgp_spm_suite(void)
{
	Suite *s = suite_create("rgp_spm");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_capture_of_several_chunks);
	tcase_add_test(tc, test_timestamp_frequency_unknown);
	tcase_add_test(tc, test_32_bit_values_and_older_records);
	tcase_add_test(tc, test_unknown_chunk_skipped);
	tcase_add_test(tc, test_truncated_refused);
	tcase_add_test(tc, test_lying_sizes_refused);
	tcase_add_test(tc, test_block_names);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(rgp_spm_suite)
