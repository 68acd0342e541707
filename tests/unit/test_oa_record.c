/*
 * OA record framing: i915 record streams (samples, losses, bad sizes, a
 * record cut off at the end, other record types) and xe's bare reports.
 */
#include <errno.h>
#include <string.h>

#include "metrics/oa_record.h"
#include "tests/unit/test_util.h"

#define REPORT 256

struct stream {
	unsigned char bytes[8192];
	size_t len;
};

/* Appends a record header (size as given, true or not) and payload bytes
 * filled with a pattern of tag. */
static size_t append(struct stream *s, uint32_t type, uint16_t size,
		     size_t payload, unsigned char tag)
{
	size_t at = s->len;
	unsigned char *p = s->bytes + at;

	ck_assert_uint_le(at + 8 + payload, sizeof(s->bytes));
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(type >> (8 * i));
	p[4] = p[5] = 0;
	p[6] = (unsigned char)size;
	p[7] = (unsigned char)(size >> 8);
	memset(p + 8, tag, payload);
	s->len += 8 + payload;
	return at;
}

static size_t sample(struct stream *s, unsigned char tag)
{
	return append(s, GPM_OA_RECORD_SAMPLE, 8 + REPORT, REPORT, tag);
}

static void expect_record(struct gpm_oa_record_reader *rd, uint32_t type, size_t size,
			  int tag)
{
	struct gpm_oa_record rec;

	ck_assert_int_eq(gpm_oa_record_next(rd, &rec), 1);
	ck_assert_uint_eq(rec.type, type);
	ck_assert_uint_eq(rec.size, size);
	ck_assert_uint_eq(rec.payload_size, size - 8);
	if (tag < 0) {
		ck_assert_ptr_null(rec.payload);
		return;
	}
	for (size_t i = 0; i < rec.payload_size; i++)
		ck_assert_uint_eq(rec.payload[i], (unsigned)tag);
}

START_TEST(test_good_stream)
{
	struct stream s = { .len = 0 };
	struct gpm_oa_record_reader rd;
	struct gpm_oa_record rec;

	append(&s, GPM_OA_RECORD_BUFFER_LOST, 8, 0, 0);
	append(&s, GPM_OA_RECORD_REPORT_LOST, 8, 0, 0);
	sample(&s, 0x11);
	sample(&s, 0x22);
	append(&s, GPM_OA_RECORD_REPORT_LOST, 8, 0, 0);
	sample(&s, 0x33);

	gpm_oa_record_reader_init(&rd, GPM_OA_FRAMING_I915, REPORT, s.bytes, s.len);
	expect_record(&rd, GPM_OA_RECORD_BUFFER_LOST, 8, -1);
	expect_record(&rd, GPM_OA_RECORD_REPORT_LOST, 8, -1);
	expect_record(&rd, GPM_OA_RECORD_SAMPLE, 8 + REPORT, 0x11);
	expect_record(&rd, GPM_OA_RECORD_SAMPLE, 8 + REPORT, 0x22);
	expect_record(&rd, GPM_OA_RECORD_REPORT_LOST, 8, -1);
	expect_record(&rd, GPM_OA_RECORD_SAMPLE, 8 + REPORT, 0x33);
	ck_assert_int_eq(gpm_oa_record_next(&rd, &rec), 0);
	ck_assert_uint_eq(rd.offset, s.len);
	ck_assert_int_eq(gpm_oa_record_next(&rd, &rec), 0);
}
END_TEST

START_TEST(test_empty)
{
	struct gpm_oa_record_reader rd;
	struct gpm_oa_record rec;

	gpm_oa_record_reader_init(&rd, GPM_OA_FRAMING_I915, REPORT, NULL, 0);
	ck_assert_int_eq(gpm_oa_record_next(&rd, &rec), 0);
}
END_TEST

/* Each bad record: the error, and the reader parked at its offset. */
START_TEST(test_bad_sizes)
{
	static const struct {
		uint32_t type;
		uint16_t size;
	} bad[] = {
		{ GPM_OA_RECORD_SAMPLE, 8 + REPORT - 8 },       /* another format's size */
		{ GPM_OA_RECORD_SAMPLE, 8 + REPORT + 4 },
		{ GPM_OA_RECORD_SAMPLE, 8 },
		{ GPM_OA_RECORD_REPORT_LOST, 16 },
		{ GPM_OA_RECORD_BUFFER_LOST, 0 },
		{ 65536, 4 },                                   /* below the header */
		{ 77, 0 },                                      /* would never advance */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct stream s = { .len = 0 };
		struct gpm_oa_record_reader rd;
		struct gpm_oa_record rec;
		size_t at;

		sample(&s, 1);
		append(&s, GPM_OA_RECORD_REPORT_LOST, 8, 0, 0);
		at = append(&s, bad[i].type, bad[i].size, 64, 0);
		sample(&s, 2);

		gpm_oa_record_reader_init(&rd, GPM_OA_FRAMING_I915, REPORT, s.bytes, s.len);
		expect_record(&rd, GPM_OA_RECORD_SAMPLE, 8 + REPORT, 1);
		expect_record(&rd, GPM_OA_RECORD_REPORT_LOST, 8, -1);
		ck_assert_int_eq(gpm_oa_record_next(&rd, &rec), -EBADMSG);
		ck_assert_uint_eq(rd.offset, at);
		ck_assert_uint_eq(at, 8 + REPORT + 8);
		ck_assert_int_eq(gpm_oa_record_next(&rd, &rec), -EBADMSG);
		ck_assert_uint_eq(rd.offset, at);
	}
}
END_TEST

/* A record cut anywhere: everything before it is read, then -EAGAIN with
 * the offset of the cut record; given the rest, reading goes on. */
START_TEST(test_truncated_tail)
{
	struct stream s = { .len = 0 };
	struct gpm_oa_record_reader rd;
	struct gpm_oa_record rec;
	size_t last;

	sample(&s, 1);
	append(&s, GPM_OA_RECORD_BUFFER_LOST, 8, 0, 0);
	last = sample(&s, 2);

	for (size_t cut = last + 1; cut < s.len; cut++) {
		gpm_oa_record_reader_init(&rd, GPM_OA_FRAMING_I915, REPORT, s.bytes, cut);
		expect_record(&rd, GPM_OA_RECORD_SAMPLE, 8 + REPORT, 1);
		expect_record(&rd, GPM_OA_RECORD_BUFFER_LOST, 8, -1);
		ck_assert_int_eq(gpm_oa_record_next(&rd, &rec), -EAGAIN);
		ck_assert_uint_eq(rd.offset, last);

		/* The caller keeps the tail and reads on. */
		gpm_oa_record_reader_init(&rd, GPM_OA_FRAMING_I915, REPORT,
					  s.bytes + rd.offset, s.len - rd.offset);
		expect_record(&rd, GPM_OA_RECORD_SAMPLE, 8 + REPORT, 2);
		ck_assert_int_eq(gpm_oa_record_next(&rd, &rec), 0);
	}
}
END_TEST

START_TEST(test_other_types_pass_through)
{
	struct stream s = { .len = 0 };
	struct gpm_oa_record_reader rd;
	struct gpm_oa_record rec;

	append(&s, 65536, 16, 8, 0x77);                 /* IGT's VERSION record */
	sample(&s, 5);
	append(&s, 42, 8, 0, 0);

	gpm_oa_record_reader_init(&rd, GPM_OA_FRAMING_I915, REPORT, s.bytes, s.len);
	expect_record(&rd, 65536, 16, 0x77);
	expect_record(&rd, GPM_OA_RECORD_SAMPLE, 8 + REPORT, 5);
	expect_record(&rd, 42, 8, -1);
	ck_assert_int_eq(gpm_oa_record_next(&rd, &rec), 0);
}
END_TEST

START_TEST(test_xe_reports)
{
	unsigned char bytes[3 * 576 + 100];
	struct gpm_oa_record_reader rd;
	struct gpm_oa_record rec;

	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (unsigned char)(i / 576);

	gpm_oa_record_reader_init(&rd, GPM_OA_FRAMING_XE, 576, bytes, sizeof(bytes));
	for (unsigned n = 0; n < 3; n++) {
		ck_assert_int_eq(gpm_oa_record_next(&rd, &rec), 1);
		ck_assert_uint_eq(rec.type, GPM_OA_RECORD_SAMPLE);
		ck_assert_uint_eq(rec.size, 576);
		ck_assert_uint_eq(rec.payload_size, 576);
		ck_assert_ptr_eq(rec.payload, bytes + n * 576);
		ck_assert_uint_eq(rec.payload[575], n);
	}
	ck_assert_int_eq(gpm_oa_record_next(&rd, &rec), -EAGAIN);
	ck_assert_uint_eq(rd.offset, 3 * 576);

	gpm_oa_record_reader_init(&rd, GPM_OA_FRAMING_XE, 576, bytes, 2 * 576);
	ck_assert_int_eq(gpm_oa_record_next(&rd, &rec), 1);
	ck_assert_int_eq(gpm_oa_record_next(&rd, &rec), 1);
	ck_assert_int_eq(gpm_oa_record_next(&rd, &rec), 0);

	gpm_oa_record_reader_init(&rd, GPM_OA_FRAMING_XE, 0, bytes, 10);
	ck_assert_int_eq(gpm_oa_record_next(&rd, &rec), -EBADMSG);
}
END_TEST

START_TEST(test_xe_status)
{
	ck_assert_uint_eq(gpm_oa_xe_status_loss(0), 0);
	ck_assert_uint_eq(gpm_oa_xe_status_loss(GPM_OA_XE_STATUS_REPORT_LOST),
			  GPM_OA_LOSS_REPORT);
	ck_assert_uint_eq(gpm_oa_xe_status_loss(GPM_OA_XE_STATUS_MMIO_TRG_Q_FULL),
			  GPM_OA_LOSS_REPORT);
	ck_assert_uint_eq(gpm_oa_xe_status_loss(GPM_OA_XE_STATUS_BUFFER_OVERFLOW),
			  GPM_OA_LOSS_BUFFER);
	ck_assert_uint_eq(gpm_oa_xe_status_loss(GPM_OA_XE_STATUS_COUNTER_OVERFLOW), 0);
	ck_assert_uint_eq(gpm_oa_xe_status_loss(0xf), GPM_OA_LOSS_REPORT | GPM_OA_LOSS_BUFFER);
}
END_TEST

static Suite *oa_record_suite(void)
{
	Suite *s = suite_create("oa_record");
	TCase *tc = tcase_create("framing");

	tcase_add_test(tc, test_good_stream);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_bad_sizes);
	tcase_add_test(tc, test_truncated_tail);
	tcase_add_test(tc, test_other_types_pass_through);
	tcase_add_test(tc, test_xe_reports);
	tcase_add_test(tc, test_xe_status);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(oa_record_suite)
