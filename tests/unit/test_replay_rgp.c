/*
 * gpuperf replay of RGP captures (client/replay_rgp.c): the SPM counters
 * of a capture radv's way (rgp_writer.h) as CSV and NDJSON rows, with
 * the samples' times in ns from the ASIC info chunk's frequency (empty
 * without that chunk), as a Perfetto trace (refused without it, no file
 * written), and a capture without SPM data and one cut short refused in
 * words. tests/cli/test-replay-rgp.sh reads the traces back.
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
	rgp_asic_info_chunk(&b, 100000000);
	rgp_spm_chunk(&b, 4096, 3, timestamps, 3, counters, value, 2, 0);
	write_file("capture.rgp", b.data, b.len);
	write_file("cut.rgp", b.data, b.len - 5);
	write_file("no-spm.rgp", b.data, 56 + 768);
	free(b.data);
	memset(&b, 0, sizeof(b));
	rgp_file_header(&b);
	rgp_spm_chunk(&b, 4096, 3, timestamps, 3, counters, value, 2, 0);
	write_file("no-asic.rgp", b.data, b.len);
	free(b.data);
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* gpuperf replay of capture in format into the file out_name, read
 * back; NULL when the replay failed. */
static const char *replay(const char *capture, enum gpuperf_format format,
			  const char *out_name)
{
	char out[128];
	snprintf(out, sizeof(out), "%s", path_in(out_name));
	if (gpuperf_replay_rgp(path_in(capture), format, out))
		return NULL;
	return read_text(out_name);
}

static const char csv_header[] =
	"chunk,gpu_timestamp,gpu_time_ns,SQ[0].e4,GL2C[15].e3,block144[1].e2\n";

START_TEST(test_csv_and_ndjson)
{
	ck_assert(gpuperf_is_rgp(path_in("capture.rgp")));
	/* 100 MHz: 10 ns a tick. */
	const char *csv = replay("capture.rgp", GPUPERF_FORMAT_CSV, "out.csv");
	ck_assert_ptr_nonnull(csv);
	ck_assert_int_eq(strncmp(csv, csv_header, strlen(csv_header)), 0);
	ck_assert_str_eq(csv + strlen(csv_header),
			 "0,5000,50000,0,1,2\n0,5256,52560,10,11,12\n"
			 "0,5512,55120,20,21,22\n");
	const char *ndjson = replay("capture.rgp", GPUPERF_FORMAT_NDJSON,
				    "out.ndjson");
	ck_assert_ptr_nonnull(ndjson);
	ck_assert_ptr_nonnull(strstr(ndjson,
		"{\"chunk\":0,\"gpu_timestamp\":5256,\"gpu_time_ns\":52560,"
		"\"SQ[0].e4\":10,"));
}
END_TEST

/* Without an ASIC info chunk the rows keep their ticks, the ns empty. */
START_TEST(test_no_asic_info)
{
	const char *csv = replay("no-asic.rgp", GPUPERF_FORMAT_CSV, "out.csv");
	ck_assert_ptr_nonnull(csv);
	ck_assert_str_eq(csv + strlen(csv_header),
			 "0,5000,,0,1,2\n0,5256,,10,11,12\n0,5512,,20,21,22\n");
	const char *ndjson = replay("no-asic.rgp", GPUPERF_FORMAT_NDJSON,
				    "out.ndjson");
	ck_assert_ptr_nonnull(ndjson);
	ck_assert_ptr_nonnull(strstr(ndjson,
		"{\"chunk\":0,\"gpu_timestamp\":5256,\"gpu_time_ns\":null,"));
	/* No nanoseconds, no trace: refused before any file is made. */
	ck_assert_int_eq(gpuperf_replay_rgp(path_in("no-asic.rgp"),
					    GPUPERF_FORMAT_PERFETTO,
					    path_in("no-asic.trace")),
			 GPUPERF_EXIT_FILE);
	ck_assert_int_ne(access(path_in("no-asic.trace"), F_OK), 0);
}
END_TEST

START_TEST(test_perfetto)
{
	char out[128];
	snprintf(out, sizeof(out), "%s", path_in("capture.trace"));
	ck_assert_int_eq(gpuperf_replay_rgp(path_in("capture.rgp"),
					    GPUPERF_FORMAT_PERFETTO, out), 0);
	FILE *f = fopen(out, "rb");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	ck_assert_int_gt(ftell(f), 0);
	fclose(f);
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
}
END_TEST

static Suite *replay_rgp_suite(void)
{
	Suite *s = suite_create("replay_rgp");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_csv_and_ndjson);
	tcase_add_test(tc, test_no_asic_info);
	tcase_add_test(tc, test_perfetto);
	tcase_add_test(tc, test_refusals);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(replay_rgp_suite)
