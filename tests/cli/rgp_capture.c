/*
 * Writes an RGP capture by radv's rules (tests/unit/rgp_writer.h) for the
 * shell tests of gpuperf replay: a CPU info chunk, an ASIC info chunk
 * whose GPU timestamp runs at 100 MHz (left out with --no-asic-info), an
 * SPM chunk of 3 samples of 3 16-bit counters, a chunk of a kind no
 * reader knows, and an SPM chunk of 2 samples of 2 32-bit counters.
 *
 *   rgp-capture OUT [--no-asic-info]
 */
#include <stdio.h>
#include <string.h>

#include "tests/unit/rgp_writer.h"

static const uint64_t first_timestamps[] = { 5000, 5256, 5512 };
static const struct rgp_spm_counter first_counters[] = {
	{ 6, 0, 4 },            /* SQ[0].e4 */
	{ 0x26, 15, 3 },        /* GL2C[15].e3 */
	{ 10, 2, 9 },           /* TCP[2].e9 */
};
static const uint64_t second_timestamps[] = { 6000, 6100 };
static const struct rgp_spm_counter second_counters[] = {
	{ 8, 1, 7 },            /* TA[1].e7 */
	{ 17, 0, 2 },           /* GRBM[0].e2 */
};

static uint32_t first_value(uint32_t s, uint32_t c)
{
	return s * 10 + c;
}

static uint32_t second_value(uint32_t s, uint32_t c)
{
	return 0x10000u * (c + 1) + s;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--no-asic-info"))) {
		fprintf(stderr, "usage: rgp-capture OUT [--no-asic-info]\n");
		return 2;
	}
	struct rgp_buf b;
	memset(&b, 0, sizeof(b));
	rgp_file_header(&b);
	rgp_other_chunk(&b, 7, 112);
	if (argc == 2)
		rgp_asic_info_chunk(&b, 100000000);
	rgp_spm_chunk(&b, 4096, 3, first_timestamps, 3, first_counters,
		      first_value, 2, 0);
	rgp_other_chunk(&b, 200, 40);
	rgp_spm_chunk(&b, 1024, 2, second_timestamps, 2, second_counters,
		      second_value, 4, 0);
	FILE *f = fopen(argv[1], "wb");
	if (!f || fwrite(b.data, 1, b.len, f) != b.len || fclose(f)) {
		perror(argv[1]);
		return 1;
	}
	free(b.data);
	return 0;
}
