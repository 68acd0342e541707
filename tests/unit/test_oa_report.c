/*
 * Decoding and encoding single OA reports: round trips for every format,
 * fields at their exact byte offsets, dword0 bits per platform, the DG2
 * timestamp shift, encode range checks, and the context rule.
 */
#include <errno.h>
#include <string.h>

#include "metrics/oa_format.h"
#include "metrics/oa_report.h"
#include "tests/unit/test_oa.h"
#include "tests/unit/test_util.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	return test_xorshift64(&rng_state);
}

/* A report with every field of the format random but in range. */
static void random_report(const struct gpm_oa_decoder *dec, struct gpm_oa_report *r)
{
	const struct gpm_oa_format *fmt = dec->format;
	uint64_t id_bits = ((test_bits_max(dec->reason_width) << GPM_OA_REASON_SHIFT) |
			    dec->ctx_valid_mask);

	memset(r, 0, sizeof(*r));
	r->report_id = rng() & test_bits_max(fmt->header_bits) & ~id_bits;
	r->reason = (uint32_t)(rng() & test_bits_max(dec->reason_width));
	r->ctx_valid = dec->ctx_valid_mask ? rng() & 1 : true;
	r->ctx_id = (uint32_t)rng();
	r->value[GPM_ACC_GPU_TIME] = rng() & test_bits_max(fmt->header_bits);
	r->timestamp = r->value[GPM_ACC_GPU_TIME] & dec->ts_mask;
	for (unsigned g = 0; g < fmt->n_groups; g++)
		for (unsigned i = 0; i < fmt->group[g].count; i++)
			r->value[fmt->group[g].slot + i] = rng() & test_bits_max(fmt->group[g].width);
}

static void assert_same_report(const struct gpm_oa_decoder *dec,
			       const struct gpm_oa_report *a, const struct gpm_oa_report *b)
{
	const struct gpm_oa_format *fmt = dec->format;

	ck_assert_uint_eq(a->report_id, b->report_id);
	ck_assert_uint_eq(a->reason, b->reason);
	ck_assert_uint_eq(a->ctx_id, b->ctx_id);
	ck_assert_int_eq(a->ctx_valid, b->ctx_valid);
	ck_assert_uint_eq(a->timestamp, b->timestamp);
	ck_assert_uint_eq(a->value[GPM_ACC_GPU_TIME], b->value[GPM_ACC_GPU_TIME]);
	for (unsigned g = 0; g < fmt->n_groups; g++)
		for (unsigned i = 0; i < fmt->group[g].count; i++)
			ck_assert_uint_eq(a->value[fmt->group[g].slot + i],
					  b->value[fmt->group[g].slot + i]);
}

START_TEST(test_round_trip_every_format)
{
	struct gpm_oa_decoder dec = test_oa_format_decoder(_i);
	unsigned char bytes[GPM_OA_MAX_REPORT_SIZE], again[GPM_OA_MAX_REPORT_SIZE];
	struct gpm_oa_report r, back;

	for (int n = 0; n < 200; n++) {
		random_report(&dec, &r);
		ck_assert_int_eq(gpm_oa_report_encode(&dec, &r, bytes, sizeof(bytes)), 0);
		ck_assert_int_eq(gpm_oa_report_decode(&dec, bytes, dec.format->size, &back), 0);
		assert_same_report(&dec, &r, &back);
		ck_assert_int_eq(gpm_oa_report_encode(&dec, &back, again, sizeof(again)), 0);
		ck_assert_mem_eq(bytes, again, dec.format->size);
	}
}
END_TEST

/* Writing without checks (a model's own reports): counters of any size
 * are cut to their fields' widths, and the bytes are what encoding the
 * cut values writes, over whatever the memory held. */
START_TEST(test_write_cuts_counters_to_their_widths)
{
	struct gpm_oa_decoder dec = test_oa_format_decoder(_i);
	const struct gpm_oa_format *fmt = dec.format;
	unsigned char bytes[GPM_OA_MAX_REPORT_SIZE], encoded[GPM_OA_MAX_REPORT_SIZE];
	struct gpm_oa_report r;
	uint64_t wide[GPM_ACC_SLOTS];

	for (int n = 0; n < 200; n++) {
		random_report(&dec, &r);
		for (size_t k = 0; k < GPM_ACC_SLOTS; k++)
			wide[k] = rng();
		for (unsigned g = 0; g < fmt->n_groups; g++)
			for (unsigned i = 0; i < fmt->group[g].count; i++) {
				unsigned s = fmt->group[g].slot + i;
				r.value[s] = wide[s] & test_bits_max(fmt->group[g].width);
			}
		memset(bytes, 0xa5, sizeof(bytes));
		gpm_oa_report_write(&dec, r.report_id, r.reason, r.ctx_id,
				    r.ctx_valid, r.value[GPM_ACC_GPU_TIME], wide,
				    bytes);
		ck_assert_int_eq(gpm_oa_report_encode(&dec, &r, encoded,
						      sizeof(encoded)), 0);
		ck_assert_mem_eq(bytes, encoded, fmt->size);
	}
}
END_TEST

/* The header alone: the fields decode gives, and no counter slot touched. */
START_TEST(test_header_only)
{
	struct gpm_oa_decoder dec = test_oa_format_decoder(_i);
	unsigned char bytes[GPM_OA_MAX_REPORT_SIZE];
	struct gpm_oa_report r, full, header;

	for (int n = 0; n < 100; n++) {
		random_report(&dec, &r);
		ck_assert_int_eq(gpm_oa_report_encode(&dec, &r, bytes, sizeof(bytes)), 0);
		ck_assert_int_eq(gpm_oa_report_decode(&dec, bytes, dec.format->size, &full), 0);
		memset(&header, 0xa5, sizeof(header));
		ck_assert_int_eq(gpm_oa_report_decode_header(&dec, bytes, dec.format->size,
							     &header), 0);
		ck_assert_uint_eq(header.report_id, full.report_id);
		ck_assert_uint_eq(header.reason, full.reason);
		ck_assert_uint_eq(header.ctx_id, full.ctx_id);
		ck_assert_int_eq(header.ctx_valid, full.ctx_valid);
		ck_assert_uint_eq(header.timestamp, full.timestamp);
		ck_assert_uint_eq(header.value[GPM_ACC_GPU_TIME], full.value[GPM_ACC_GPU_TIME]);
		for (unsigned i = GPM_ACC_GPU_CLOCK; i < GPM_ACC_SLOTS; i++)
			ck_assert_uint_eq(header.value[i], 0xa5a5a5a5a5a5a5a5ull);
	}
	ck_assert_int_eq(gpm_oa_report_decode_header(&dec, bytes, dec.format->size - 1,
						     &header), -EMSGSIZE);
}
END_TEST

/* Fully covered 256-byte formats: any bytes decode and re-encode unchanged. */
START_TEST(test_bytes_round_trip)
{
	static const enum gpm_oa_format_id ids[] = {
		GPM_OA_FORMAT_A45_B8_C8,
		GPM_OA_FORMAT_A32u40_A4u32_B8_C8,
		GPM_OA_FORMAT_A24u40_A14u32_B8_C8,
	};
	unsigned char bytes[256], again[256];
	struct gpm_oa_report r;

	for (size_t f = 0; f < sizeof(ids) / sizeof(ids[0]); f++) {
		struct gpm_oa_decoder dec = test_oa_format_decoder(ids[f]);

		for (int n = 0; n < 100; n++) {
			for (size_t i = 0; i < sizeof(bytes); i++)
				bytes[i] = (unsigned char)rng();
			ck_assert_int_eq(gpm_oa_report_decode(&dec, bytes, sizeof(bytes), &r), 0);
			ck_assert_int_eq(gpm_oa_report_encode(&dec, &r, again, sizeof(again)), 0);
			ck_assert_mem_eq(bytes, again, sizeof(bytes));
		}
	}
}
END_TEST

static void put32(unsigned char *b, unsigned off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[off + i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *b, unsigned off, uint64_t v)
{
	put32(b, off, (uint32_t)v);
	put32(b, off + 4, (uint32_t)(v >> 32));
}

START_TEST(test_a32u40_offsets)
{
	struct gpm_oa_decoder dec = test_oa_decoder(GPM_OA_FORMAT_A32u40_A4u32_B8_C8, 900);
	unsigned char b[256] = { 0 };
	struct gpm_oa_report r;

	put32(b, 0, 1u << 19 | 1u << 16 | 0x42);        /* timer, ctx valid */
	put32(b, 4, 0x11223344);                        /* timestamp */
	put32(b, 8, 0xc0ffee);                          /* ctx id */
	put32(b, 12, 0x55667788);                       /* GPU ticks */
	put32(b, 16, 0xa0a0a0a0);                       /* A0 low */
	b[160] = 0x01;                                  /* A0 high */
	put32(b, 36, 0x12345678);                       /* A5 low */
	b[165] = 0xab;                                  /* A5 high */
	put32(b, 140, 0x31313131);                      /* A31 low */
	b[191] = 0xff;                                  /* A31 high */
	put32(b, 144, 0x32323232);                      /* A32 */
	put32(b, 156, 0x35353535);                      /* A35 */
	put32(b, 192, 0xb0b0b0b0);                      /* B0 */
	put32(b, 220, 0xb7b7b7b7);                      /* B7 */
	put32(b, 224, 0xc0c0c0c0);                      /* C0 */
	put32(b, 252, 0xc7c7c7c7);                      /* C7 */

	ck_assert_int_eq(gpm_oa_report_decode(&dec, b, sizeof(b), &r), 0);
	ck_assert_uint_eq(r.reason, GPM_OA_REASON_TIMER);
	ck_assert(r.ctx_valid);
	ck_assert_uint_eq(r.report_id, 0x42);
	ck_assert_uint_eq(r.ctx_id, 0xc0ffee);
	ck_assert_uint_eq(r.timestamp, 0x11223344);
	ck_assert_uint_eq(r.value[GPM_ACC_GPU_TIME], 0x11223344);
	ck_assert_uint_eq(r.value[GPM_ACC_GPU_CLOCK], 0x55667788);
	ck_assert_uint_eq(r.value[GPM_ACC_A + 0], 0x01a0a0a0a0ull);
	ck_assert_uint_eq(r.value[GPM_ACC_A + 1], 0);
	ck_assert_uint_eq(r.value[GPM_ACC_A + 5], 0xab12345678ull);
	ck_assert_uint_eq(r.value[GPM_ACC_A + 31], 0xff31313131ull);
	ck_assert_uint_eq(r.value[GPM_ACC_A + 32], 0x32323232);
	ck_assert_uint_eq(r.value[GPM_ACC_A + 35], 0x35353535);
	ck_assert_uint_eq(r.value[GPM_ACC_B + 0], 0xb0b0b0b0);
	ck_assert_uint_eq(r.value[GPM_ACC_B + 7], 0xb7b7b7b7);
	ck_assert_uint_eq(r.value[GPM_ACC_C + 0], 0xc0c0c0c0);
	ck_assert_uint_eq(r.value[GPM_ACC_C + 7], 0xc7c7c7c7);
}
END_TEST

/* Encoding puts a lone value at exactly its documented bytes. */
static void assert_lone_value(enum gpm_oa_format_id id, unsigned slot, uint64_t value,
			      unsigned offset, unsigned width_bytes, int high_offset)
{
	struct gpm_oa_decoder dec = test_oa_format_decoder(id);
	unsigned char b[GPM_OA_MAX_REPORT_SIZE], expect[GPM_OA_MAX_REPORT_SIZE];
	struct gpm_oa_report r;

	memset(&r, 0, sizeof(r));
	r.ctx_valid = !dec.ctx_valid_mask;
	r.value[slot] = value;
	ck_assert_int_eq(gpm_oa_report_encode(&dec, &r, b, sizeof(b)), 0);

	memset(expect, 0, sizeof(expect));
	for (unsigned i = 0; i < width_bytes; i++)
		expect[offset + i] = (unsigned char)(value >> (8 * i));
	if (high_offset >= 0)
		expect[high_offset] = (unsigned char)(value >> 32);
	ck_assert_mem_eq(b, expect, dec.format->size);
}

START_TEST(test_exact_offsets)
{
	const unsigned A = GPM_ACC_A, B = GPM_ACC_B, C = GPM_ACC_C;

	/* Gen8..12 */
	assert_lone_value(GPM_OA_FORMAT_A32u40_A4u32_B8_C8, A + 5, 0xab12345678ull, 36, 4, 165);
	assert_lone_value(GPM_OA_FORMAT_A32u40_A4u32_B8_C8, A + 33, 0x12345678, 148, 4, -1);
	assert_lone_value(GPM_OA_FORMAT_A32u40_A4u32_B8_C8, B + 0, 0x12345678, 192, 4, -1);
	assert_lone_value(GPM_OA_FORMAT_A32u40_A4u32_B8_C8, C + 7, 0x12345678, 252, 4, -1);
	assert_lone_value(GPM_OA_FORMAT_A32u40_A4u32_B8_C8, GPM_ACC_GPU_CLOCK, 0x12345678, 12, 4, -1);
	assert_lone_value(GPM_OA_FORMAT_A32u40_A4u32_B8_C8, GPM_ACC_GPU_TIME, 0x12345678, 4, 4, -1);
	/* DG2/MTL */
	assert_lone_value(GPM_OA_FORMAT_A24u40_A14u32_B8_C8, A + 3, 0x12345678, 28, 4, -1);
	assert_lone_value(GPM_OA_FORMAT_A24u40_A14u32_B8_C8, A + 4, 0x9912345678ull, 32, 4, 164);
	assert_lone_value(GPM_OA_FORMAT_A24u40_A14u32_B8_C8, A + 23, 0x9912345678ull, 108, 4, 183);
	assert_lone_value(GPM_OA_FORMAT_A24u40_A14u32_B8_C8, A + 24, 0x12345678, 112, 4, -1);
	assert_lone_value(GPM_OA_FORMAT_A24u40_A14u32_B8_C8, A + 28, 0x9912345678ull, 128, 4, 188);
	assert_lone_value(GPM_OA_FORMAT_A24u40_A14u32_B8_C8, A + 31, 0x9912345678ull, 140, 4, 191);
	assert_lone_value(GPM_OA_FORMAT_A24u40_A14u32_B8_C8, A + 36, 0x12345678, 160, 4, -1);
	assert_lone_value(GPM_OA_FORMAT_A24u40_A14u32_B8_C8, A + 37, 0x12345678, 184, 4, -1);
	assert_lone_value(GPM_OA_FORMAT_A24u40_A14u32_B8_C8, B + 7, 0x12345678, 220, 4, -1);
	/* HSW */
	assert_lone_value(GPM_OA_FORMAT_A45_B8_C8, A + 0, 0x12345678, 12, 4, -1);
	assert_lone_value(GPM_OA_FORMAT_A45_B8_C8, A + 44, 0x12345678, 188, 4, -1);
	assert_lone_value(GPM_OA_FORMAT_A45_B8_C8, B + 0, 0x12345678, 192, 4, -1);
	assert_lone_value(GPM_OA_FORMAT_A45_B8_C8, C + 7, 0x12345678, 252, 4, -1);
	/* MTL OAM */
	assert_lone_value(GPM_OA_FORMAT_MPEC8u32_B8_C8, GPM_ACC_GPU_TIME, 0x1122334455667788ull, 8, 8, -1);
	assert_lone_value(GPM_OA_FORMAT_MPEC8u32_B8_C8, GPM_ACC_GPU_CLOCK, 0x1122334455667788ull, 24, 8, -1);
	assert_lone_value(GPM_OA_FORMAT_MPEC8u32_B8_C8, A + 0, 0x12345678, 32, 4, -1);
	assert_lone_value(GPM_OA_FORMAT_MPEC8u32_B8_C8, A + 7, 0x12345678, 60, 4, -1);
	assert_lone_value(GPM_OA_FORMAT_MPEC8u32_B8_C8, B + 0, 0x12345678, 64, 4, -1);
	assert_lone_value(GPM_OA_FORMAT_MPEC8u32_B8_C8, C + 7, 0x12345678, 124, 4, -1);
	assert_lone_value(GPM_OA_FORMAT_MPEC8u64_B8_C8, A + 7, 0x1122334455667788ull, 88, 8, -1);
	assert_lone_value(GPM_OA_FORMAT_MPEC8u64_B8_C8, B + 0, 0x12345678, 96, 4, -1);
	assert_lone_value(GPM_OA_FORMAT_MPEC8u64_B8_C8, C + 7, 0x12345678, 156, 4, -1);
	/* Xe2 */
	assert_lone_value(GPM_OA_FORMAT_PEC64u64, GPM_ACC_PEC + 0, 0x1122334455667788ull, 32, 8, -1);
	assert_lone_value(GPM_OA_FORMAT_PEC64u64, GPM_ACC_PEC + 63, 0x1122334455667788ull, 536, 8, -1);
}
END_TEST

START_TEST(test_header_64)
{
	struct gpm_oa_decoder dec = test_oa_decoder(GPM_OA_FORMAT_MPEC8u32_B8_C8, 1270);
	unsigned char b[128] = { 0 };
	struct gpm_oa_report r;

	put64(b, 0, 0xabcd000000000000ull | 1u << 22 | 1u << 16 | 7);
	put64(b, 8, 0x0000000123456788ull);
	put32(b, 16, 0x1234);
	put32(b, 20, 0xdeadbeef);                       /* not a field */
	put64(b, 24, 0x0000000500000001ull);
	ck_assert_int_eq(gpm_oa_report_decode(&dec, b, sizeof(b), &r), 0);
	ck_assert_uint_eq(r.report_id, 0xabcd000000000007ull);
	ck_assert_uint_eq(r.reason, GPM_OA_REASON_CTX_SWITCH);
	ck_assert(r.ctx_valid);
	ck_assert_uint_eq(r.ctx_id, 0x1234);
	ck_assert_uint_eq(r.value[GPM_ACC_GPU_TIME], 0x0000000123456788ull);
	/* The whole 64-bit field, in ticks of the unit's OA clock. */
	ck_assert_uint_eq(r.timestamp, 0x0000000123456788ull);
	ck_assert_uint_eq(dec.ts_mask, UINT64_MAX);
	ck_assert_uint_eq(r.value[GPM_ACC_GPU_CLOCK], 0x0000000500000001ull);
}
END_TEST

START_TEST(test_dword0_per_platform)
{
	static const struct {
		unsigned version;
		uint32_t dword0;
		uint32_t reason;
		bool valid;
		uint32_t id;
	} cases[] = {
		/* Gen8: valid at bit 25, 6 reason bits */
		{ 800, 1u << 25 | 1u << 22, GPM_OA_REASON_CTX_SWITCH, true, 0 },
		{ 800, 1u << 16 | 1u << 19, GPM_OA_REASON_TIMER, false, 1u << 16 },
		/* Gen9..11: valid at bit 16 */
		{ 900, 1u << 16 | 1u << 24, GPM_OA_REASON_CLOCK_RATIO, true, 0 },
		{ 1100, 1u << 25 | 1u << 19, GPM_OA_REASON_TIMER, false, 1u << 25 },
		/* Gen12: a 7th reason bit at 25 */
		{ 1200, 1u << 25 | 1u << 16, GPM_OA_REASON_MMIO_TRIGGER, true, 0 },
		{ 1255, 0x7fu << 19 | 0xffff, 0x7f, false, 0xffff },
		/* HSW: nothing decoded from dword0 */
		{ 750, 0xffffffff, 0, true, 0xffffffff },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum gpm_oa_format_id id = cases[i].version < 800 ? GPM_OA_FORMAT_A45_B8_C8 :
					   cases[i].version < 1255 ? GPM_OA_FORMAT_A32u40_A4u32_B8_C8 :
					   GPM_OA_FORMAT_A24u40_A14u32_B8_C8;
		struct gpm_oa_decoder dec = test_oa_decoder(id, cases[i].version);
		unsigned char b[256] = { 0 }, again[256];
		struct gpm_oa_report r;

		put32(b, 0, cases[i].dword0);
		ck_assert_int_eq(gpm_oa_report_decode(&dec, b, sizeof(b), &r), 0);
		ck_assert_uint_eq(r.reason, cases[i].reason);
		ck_assert_int_eq(r.ctx_valid, cases[i].valid);
		ck_assert_uint_eq(r.report_id, cases[i].id);
		ck_assert_int_eq(gpm_oa_report_encode(&dec, &r, again, sizeof(again)), 0);
		ck_assert_mem_eq(b, again, sizeof(b));
	}
}
END_TEST

/* DG2 (and MTL): the field counts at the OA clock the kernel reports
 * (i915_perf_oa_timestamp_frequency(), xe_oa_timestamp_frequency()), all
 * 32 bits of it, as IGT's xe_oa oa-exponents test reads it. */
START_TEST(test_dg2_timestamp)
{
	struct gpm_oa_decoder dec = test_oa_decoder(GPM_OA_FORMAT_A24u40_A14u32_B8_C8, 1255);
	unsigned char b[256] = { 0 };
	struct gpm_oa_report r;

	ck_assert_uint_eq(dec.ts_mask, 0xffffffff);
	put32(b, 4, 0xfffffffe);
	ck_assert_int_eq(gpm_oa_report_decode(&dec, b, sizeof(b), &r), 0);
	ck_assert_uint_eq(r.timestamp, 0xfffffffe);
	ck_assert_uint_eq(r.value[GPM_ACC_GPU_TIME], 0xfffffffe);
	ck_assert_uint_eq(gpm_oa_report_timestamp(&dec, b), 0xfffffffe);
	put32(b, 4, 3);
	ck_assert_int_eq(gpm_oa_report_decode(&dec, b, sizeof(b), &r), 0);
	ck_assert_uint_eq(r.timestamp, 3);

	dec = test_oa_decoder(GPM_OA_FORMAT_A24u40_A14u32_B8_C8, 1270);
	ck_assert_uint_eq(dec.ts_mask, 0xffffffff);
	dec = test_oa_decoder(GPM_OA_FORMAT_A32u40_A4u32_B8_C8, 1200);
	ck_assert_uint_eq(dec.ts_mask, 0xffffffff);
	dec = test_oa_decoder(GPM_OA_FORMAT_PEC64u64, 2000);
	ck_assert_uint_eq(dec.ts_mask, UINT64_MAX);
}
END_TEST

START_TEST(test_decoder_init_versions)
{
	const struct gpm_oa_format *fmt;
	struct gpm_oa_decoder dec;

	ck_assert_int_eq(gpm_oa_format_get(GPM_OA_FORMAT_A32u40_A4u32_B8_C8, &fmt), 0);
	ck_assert_int_eq(gpm_oa_decoder_init(&dec, fmt, 0), -EINVAL);
	ck_assert_int_eq(gpm_oa_decoder_init(&dec, fmt, 699), -EINVAL);
	ck_assert_int_eq(gpm_oa_decoder_init(&dec, fmt, 800), 0);
	ck_assert_uint_eq(dec.ctx_valid_mask, 1u << 25);
	ck_assert_uint_eq(dec.reason_width, 6);
	ck_assert(dec.ctx_invalid_means_idle);
	ck_assert_int_eq(gpm_oa_decoder_init(&dec, fmt, 1100), 0);
	ck_assert_uint_eq(dec.ctx_valid_mask, 1u << 16);
	ck_assert_uint_eq(dec.reason_width, 6);
	ck_assert_int_eq(gpm_oa_decoder_init(&dec, fmt, 1210), 0);
	ck_assert_uint_eq(dec.reason_width, 7);
	ck_assert(dec.ctx_invalid_means_idle);
	ck_assert_int_eq(gpm_oa_decoder_init(&dec, fmt, 1250), 0);
	ck_assert(!dec.ctx_invalid_means_idle);
	ck_assert_int_eq(gpm_oa_decoder_init(&dec, fmt, 1270), 0);
	ck_assert(!dec.ctx_invalid_means_idle);
	ck_assert_int_eq(gpm_oa_decoder_init(&dec, fmt, 750), 0);
	ck_assert_uint_eq(dec.ctx_valid_mask, 0);
	ck_assert_uint_eq(dec.reason_width, 0);

	/* A synthetic format decodes alike on any device. */
	ck_assert_int_eq(gpm_oa_format_get(GPM_OA_FORMAT_NVPM32u64, &fmt), 0);
	for (unsigned version = 0; version <= 3000; version += 750) {
		ck_assert_int_eq(gpm_oa_decoder_init(&dec, fmt, version), 0);
		ck_assert_uint_eq(dec.ctx_valid_mask, 0);
		ck_assert_uint_eq(dec.reason_width, 0);
		ck_assert_uint_eq(dec.ts_mask, UINT64_MAX);
		ck_assert(!dec.ctx_invalid_means_idle);
	}
}
END_TEST

START_TEST(test_encode_errors)
{
	struct gpm_oa_decoder dec = test_oa_decoder(GPM_OA_FORMAT_A32u40_A4u32_B8_C8, 900);
	unsigned char b[256];
	struct gpm_oa_report r, ok;

	memset(&ok, 0, sizeof(ok));
	memset(b, 0x5a, sizeof(b));
	ck_assert_int_eq(gpm_oa_report_encode(&dec, &ok, b, 255), -EMSGSIZE);
	ck_assert_int_eq(gpm_oa_report_decode(&dec, b, 255, &r), -EMSGSIZE);

	r = ok;
	r.value[GPM_ACC_A + 0] = (uint64_t)1 << 40;
	ck_assert_int_eq(gpm_oa_report_encode(&dec, &r, b, sizeof(b)), -ERANGE);
	r = ok;
	r.value[GPM_ACC_A + 32] = (uint64_t)1 << 32;
	ck_assert_int_eq(gpm_oa_report_encode(&dec, &r, b, sizeof(b)), -ERANGE);
	r = ok;
	r.value[GPM_ACC_GPU_TIME] = (uint64_t)1 << 32;
	ck_assert_int_eq(gpm_oa_report_encode(&dec, &r, b, sizeof(b)), -ERANGE);
	r = ok;
	r.reason = 1u << 6;                     /* Gen9 has 6 reason bits */
	ck_assert_int_eq(gpm_oa_report_encode(&dec, &r, b, sizeof(b)), -ERANGE);
	r = ok;
	r.report_id = 1u << 16;                 /* the ctx-valid bit */
	ck_assert_int_eq(gpm_oa_report_encode(&dec, &r, b, sizeof(b)), -EINVAL);
	r = ok;
	r.report_id = 1u << 20;                 /* a reason bit */
	ck_assert_int_eq(gpm_oa_report_encode(&dec, &r, b, sizeof(b)), -EINVAL);
	r = ok;
	r.report_id = (uint64_t)1 << 32;        /* beyond a 32-bit header */
	ck_assert_int_eq(gpm_oa_report_encode(&dec, &r, b, sizeof(b)), -ERANGE);
	/* A failed encode writes nothing. */
	for (size_t i = 0; i < sizeof(b); i++)
		ck_assert_uint_eq(b[i], 0x5a);

	/* Each field's largest value fits, and reads back. */
	r = ok;
	r.value[GPM_ACC_A + 0] = ((uint64_t)1 << 40) - 1;
	r.value[GPM_ACC_A + 32] = UINT32_MAX;
	r.value[GPM_ACC_GPU_TIME] = UINT32_MAX;
	ck_assert_int_eq(gpm_oa_report_encode(&dec, &r, b, sizeof(b)), 0);
	struct gpm_oa_report back;
	ck_assert_int_eq(gpm_oa_report_decode(&dec, b, sizeof(b), &back), 0);
	ck_assert_uint_eq(back.value[GPM_ACC_A + 0], ((uint64_t)1 << 40) - 1);
	ck_assert_uint_eq(back.value[GPM_ACC_A + 32], UINT32_MAX);
	ck_assert_uint_eq(back.value[GPM_ACC_GPU_TIME], UINT32_MAX);

	r = ok;
	r.value[GPM_ACC_PEC] = 7;               /* no such slot in this format */
	r.value[GPM_ACC_A + 40] = UINT64_MAX;
	ck_assert_int_eq(gpm_oa_report_encode(&dec, &r, b, sizeof(b)), 0);
}
END_TEST

static struct gpm_oa_report ctx_report(uint32_t ctx, bool valid, uint32_t reason)
{
	struct gpm_oa_report r;

	memset(&r, 0, sizeof(r));
	r.ctx_id = ctx;
	r.ctx_valid = valid;
	r.reason = reason;
	return r;
}

START_TEST(test_context_rule)
{
	struct gpm_oa_decoder gen9 = test_oa_decoder(GPM_OA_FORMAT_A32u40_A4u32_B8_C8, 900);
	struct gpm_oa_decoder gen12 = test_oa_decoder(GPM_OA_FORMAT_A32u40_A4u32_B8_C8, 1200);
	struct gpm_oa_decoder dg2 = test_oa_decoder(GPM_OA_FORMAT_A24u40_A14u32_B8_C8, 1255);
	struct gpm_oa_report r;

	r = ctx_report(5, true, GPM_OA_REASON_TIMER);
	ck_assert_uint_eq(gpm_oa_report_context(&gen9, &r, 9), 5);
	ck_assert_uint_eq(gpm_oa_report_context(&dg2, &r, 9), 5);

	/* Squashed by the kernel: valid clear, ctx all ones. */
	r = ctx_report(GPM_OA_CTX_NONE, false, GPM_OA_REASON_TIMER);
	ck_assert_uint_eq(gpm_oa_report_context(&gen9, &r, 9), GPM_OA_CTX_NONE);
	ck_assert_uint_eq(gpm_oa_report_context(&gen12, &r, 9), GPM_OA_CTX_NONE);
	ck_assert_uint_eq(gpm_oa_report_context(&dg2, &r, 9), GPM_OA_CTX_NONE);

	/* Valid clear, a ctx left in the field (xe does not squash): idle
	 * before Xe_HP, the running context after. */
	r = ctx_report(5, false, GPM_OA_REASON_TIMER);
	ck_assert_uint_eq(gpm_oa_report_context(&gen9, &r, 9), GPM_OA_CTX_NONE);
	ck_assert_uint_eq(gpm_oa_report_context(&gen12, &r, 9), GPM_OA_CTX_NONE);
	ck_assert_uint_eq(gpm_oa_report_context(&dg2, &r, 9), 5);

	/* Another context hidden by a filtered stream. */
	r = ctx_report(GPM_OA_CTX_NONE, true, GPM_OA_REASON_CTX_SWITCH);
	ck_assert_uint_eq(gpm_oa_report_context(&gen12, &r, 9), GPM_OA_CTX_NONE);

	/* MMIO triggers carry a marker, not a context. */
	r = ctx_report(0x1234, false, GPM_OA_REASON_MMIO_TRIGGER);
	ck_assert_uint_eq(gpm_oa_report_context(&gen12, &r, 9), 9);
	ck_assert_uint_eq(gpm_oa_report_context(&dg2, &r, GPM_OA_CTX_NONE), GPM_OA_CTX_NONE);
}
END_TEST

static Suite *oa_report_suite(void)
{
	Suite *s = suite_create("oa_report");
	TCase *tc = tcase_create("report");

	tcase_add_loop_test(tc, test_round_trip_every_format, 0, GPM_OA_FORMAT_COUNT);
	tcase_add_loop_test(tc, test_write_cuts_counters_to_their_widths, 0,
			    GPM_OA_FORMAT_COUNT);
	tcase_add_loop_test(tc, test_header_only, 0, GPM_OA_FORMAT_COUNT);
	tcase_add_test(tc, test_bytes_round_trip);
	tcase_add_test(tc, test_a32u40_offsets);
	tcase_add_test(tc, test_exact_offsets);
	tcase_add_test(tc, test_header_64);
	tcase_add_test(tc, test_dword0_per_platform);
	tcase_add_test(tc, test_dg2_timestamp);
	tcase_add_test(tc, test_decoder_init_versions);
	tcase_add_test(tc, test_encode_errors);
	tcase_add_test(tc, test_context_rule);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(oa_report_suite)
