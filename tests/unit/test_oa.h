/*
 * What the OA report suites share: decoders of a format, and field
 * widths as masks.
 */
#ifndef GPM_TEST_OA_H
#define GPM_TEST_OA_H

#include <stdint.h>

#include "metrics/oa_format.h"
#include "metrics/oa_report.h"
#include "tests/unit/test_util.h"

/* A decoder of format id as Graphics IP version has it. */
static inline struct gpm_oa_decoder test_oa_decoder(enum gpm_oa_format_id id,
						     unsigned version)
{
	const struct gpm_oa_format *fmt;
	struct gpm_oa_decoder dec;

	ck_assert_int_eq(gpm_oa_format_get(id, &fmt), 0);
	ck_assert_int_eq(gpm_oa_decoder_init(&dec, fmt, version), 0);
	return dec;
}

/* The largest value a field of bits bits holds. */
static inline uint64_t test_bits_max(unsigned bits)
{
	return bits >= 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
}

#endif
