/*
 * What the OA report suites share: a platform for each format, decoders,
 * and field widths as masks.
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

/* A Graphics IP version whose OA unit writes format id. */
static inline unsigned test_oa_version_of(enum gpm_oa_format_id id)
{
	static const unsigned version[GPM_OA_FORMAT_COUNT] = {
		[GPM_OA_FORMAT_A45_B8_C8] = 750,
		[GPM_OA_FORMAT_A32u40_A4u32_B8_C8] = 1200,
		[GPM_OA_FORMAT_OAR_A32u40_A4u32_B8_C8] = 1255,
		[GPM_OA_FORMAT_A24u40_A14u32_B8_C8] = 1255,
		[GPM_OA_FORMAT_MPEC8u64_B8_C8] = 1270,
		[GPM_OA_FORMAT_MPEC8u32_B8_C8] = 1270,
		[GPM_OA_FORMAT_PEC64u64] = 2000,
		[GPM_OA_FORMAT_NVPM32u64] = 0,  /* not an Intel GPU */
	};
	return version[id];
}

/* A decoder of format id, on a platform that writes it. */
static inline struct gpm_oa_decoder test_oa_format_decoder(enum gpm_oa_format_id id)
{
	return test_oa_decoder(id, test_oa_version_of(id));
}

/* The largest value a field of bits bits holds. */
static inline uint64_t test_bits_max(unsigned bits)
{
	return bits >= 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
}

#endif
