/*
 * Fuzzes the AMD SPM readers: arbitrary bytes as an RGP capture
 * (gpm_rgp_read), and as SPM trace data under a layout taken from the
 * input's first 24 bytes (gpm_spm_decode), with up to 8 counters, then
 * read live (gpm_spm_read_new) from a cursor the same bytes give.
 *
 * Checked beyond memory safety: a capture read has no more SPM chunks
 * than chunks; a decoded ring has at most its slots, each sample with its
 * counters, and a wrapped ring has all of them; a live read takes at most
 * a ring's worth and leaves the cursor on a slot of the ring.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/rgp_spm.h"
#include "metrics/spm_ring.h"
#include "tests/fuzz/fuzz_target.h"

static uint32_t load32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[256];
	struct gpm_rgp_file file;
	if (!gpm_rgp_read(data, size, &file, why, sizeof(why))) {
		if (file.n_spm > file.n_chunks)
			abort();
		gpm_rgp_file_fini(&file);
	}

	if (size < 24)
		return 0;
	struct gpm_spm_counter counters[8];
	size_t n_counters = data[0] % 9;
	for (size_t c = 0; c < n_counters; c++)
		counters[c] = (struct gpm_spm_counter){
			.offset_lo = data[1 + c] % 64u,
			.offset_hi = data[9 + c] % 64u,
			.is_32bit = data[1 + c] & 0x80,
		};
	struct gpm_spm_layout layout = {
		.wr_ptr_offset = data[17] % 32u,
		.wr_ptr_granularity = data[18] % 64u,
		.sample_offset = data[19],
		.sample_stride = data[20],
		.max_samples = load32(data + 20) >> 8 & 0xffff,
		.n_counters = n_counters,
		.counters = counters,
	};
	struct gpm_spm_samples samples;
	if (!gpm_spm_decode(&layout, data + 24, size - 24, &samples, why,
			    sizeof(why))) {
		if (samples.n_samples > layout.max_samples ||
		    samples.n_counters != n_counters ||
		    (samples.wrapped && samples.n_samples != layout.max_samples))
			abort();
		gpm_spm_samples_fini(&samples);
	}
	struct gpm_spm_cursor cursor = {
		.started = data[21] & 1,
		.next_slot = data[22],
		.last_timestamp = data[23],
	};
	if (!gpm_spm_read_new(&layout, data + 24, size - 24, &cursor, &samples,
			      why, sizeof(why))) {
		if (samples.n_samples > layout.max_samples ||
		    (samples.n_samples && cursor.next_slot >= layout.max_samples))
			abort();
		gpm_spm_samples_fini(&samples);
	}
	return 0;
}
