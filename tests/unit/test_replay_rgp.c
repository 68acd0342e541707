/*
 * gpuperf replay of RGP captures (client/replay_rgp.c): the SPM counters
 * of a capture radv's way (rgp_writer.h) as CSV and NDJSON rows, a
 * capture without SPM data and one cut short refused in words, and
 * Perfetto refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/commands.h"
#include "client/replay_rgp.h"
#include "tests/unit/rgp_writer.h"
#include "tests/unit/test_util.h"

static const uint64_t timestamps[] = { 5000, 5256, 5512 };
static const struct rgp_spm_counter counters[] = {
	{ 6, 0, 4 },            /* SQ */
	{ 0x26, 15, 3 },        /* GL2C[15] */
	{ 0x90, 1, 2 },         /* a block past Mesa's names */
};

static uint32_t value(uint32_t s, uint32_t c)
{
	return s * 10 + c;
}

static char dir[64];

static const char *path_in(const char *name)
{
	static char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void write_file(const char *name, const void *data, size_t len)
{
	FILE *f = fopen(path_in(name), "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	fclose(f);
}

static char *read_text(const char *name)
{
	static char text[4096];
	FILE *f = fopen(path_in(name), "r");
	ck_assert_ptr_nonnull(f);
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/gpd-rgp-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	struct rgp_buf b;
	memset(&b, 0, sizeof(b));
	rgp_file_header(&b);
	rgp_other_chunk(&b, 0, 768);
	rgp_spm_chunk(&b, 4096, 3, timestamps, 3, counters, value, 2, 0);
	write_file("capture.rgp", b.data, b.len);
	write_file("cut.rgp", b.data, b.len - 5);
	write_file("no-spm.rgp", b.data, 56 + 768);
	free(b.data);
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_csv_and_ndjson)
{
	ck_assert(gpuperf_is_rgp(path_in("capture.rgp")));
	char out[128];
	snprintf(out, sizeof(out), "%s", path_in("out.csv"));
	ck_assert_int_eq(gpuperf_replay_rgp(path_in("capture.rgp"),
					    GPUPERF_FORMAT_CSV, out), 0);
	ck_assert_str_eq(read_text("out.csv"),
			 "chunk,gpu_timestamp,SQ[0].e4,GL2C[15].e3,block144[1].e2\n"
			 "0,5000,0,1,2\n0,5256,10,11,12\n0,5512,20,21,22\n");
	snprintf(out, sizeof(out), "%s", path_in("out.ndjson"));
	ck_assert_int_eq(gpuperf_replay_rgp(path_in("capture.rgp"),
					    GPUPERF_FORMAT_NDJSON, out), 0);
	ck_assert_ptr_nonnull(strstr(read_text("out.ndjson"),
		"{\"chunk\":0,\"gpu_timestamp\":5256,\"SQ[0].e4\":10,"));
}
END_TEST

START_TEST(test_refusals)
{
	ck_assert(!gpuperf_is_rgp("/nonexistent"));
	ck_assert_int_eq(gpuperf_replay_rgp(path_in("cut.rgp"), GPUPERF_FORMAT_CSV,
					    path_in("x")), GPUPERF_EXIT_FILE);
	ck_assert_int_eq(gpuperf_replay_rgp(path_in("no-spm.rgp"),
					    GPUPERF_FORMAT_CSV, path_in("x")),
			 GPUPERF_EXIT_FILE);
	ck_assert_int_eq(gpuperf_replay_rgp(path_in("capture.rgp"),
					    GPUPERF_FORMAT_PERFETTO, path_in("x")),
			 GPUPERF_EXIT_USAGE);
}
END_TEST

static Suite *replay_rgp_suite(void)
{
	Suite *s = suite_create("replay_rgp");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_csv_and_ndjson);
	tcase_add_test(tc, test_refusals);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(replay_rgp_suite)
