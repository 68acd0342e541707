/*
 * Request decoding: what decodes, what is refused and why, the memory
 * cap, packing, and the mapping of error codes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/net/proto_codec.h"
#include "tests/unit/test_util.h"

static size_t pack(const Gpuperf__Envelope *env, unsigned char *buf)
{
	return gpuperf__envelope__pack(env, buf);
}

static int decode(struct gpd_proto_allocator *a, const void *data, size_t len,
		  Gpuperf__Envelope **env, char *why)
{
	return gpd_proto_decode_request(a, data, len, env, why, 256);
}

START_TEST(requests_decode)
{
	unsigned char buf[256];
	char *counters[] = { "GpuTime", "EuActive" };
	Gpuperf__Subscribe s = GPUPERF__SUBSCRIBE__INIT;
	s.metric_set = "RenderBasic";
	s.window_ns = 1000000;
	s.counters = counters;
	s.n_counters = 2;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.request_id = 42;
	env.kind_case = GPUPERF__ENVELOPE__KIND_SUBSCRIBE;
	env.subscribe = &s;
	size_t len = pack(&env, buf);
	struct gpd_proto_allocator a;
	gpd_proto_allocator_init(&a, 4096);
	Gpuperf__Envelope *out;
	char why[256];
	ck_assert_int_eq(decode(&a, buf, len, &out, why), 0);
	ck_assert_uint_eq(out->request_id, 42);
	ck_assert_int_eq(out->kind_case, GPUPERF__ENVELOPE__KIND_SUBSCRIBE);
	ck_assert_str_eq(out->subscribe->counters[1], "EuActive");
	ck_assert_uint_gt(a.used, 0);
	gpd_proto_free_request(&a, out);
	ck_assert_uint_eq(a.used, 0);
}
END_TEST

START_TEST(bad_bytes_are_refused)
{
	struct gpd_proto_allocator a;
	Gpuperf__Envelope *out;
	char why[256];
	gpd_proto_allocator_init(&a, 4096);
	static const unsigned char garbage[] = { 0xff, 0xff, 0xff, 0xff, 0xff,
						 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	ck_assert_int_eq(decode(&a, garbage, sizeof(garbage), &out, why), -EBADMSG);
	ck_assert_ptr_null(out);
	ck_assert_ptr_nonnull(strstr(why, "not a gpuperf.Envelope"));
	/* request_id (a varint) as length-delimited bytes */
	static const unsigned char wrong_type[] = { 0x0a, 0x01, 'x' };
	ck_assert_int_eq(decode(&a, wrong_type, sizeof(wrong_type), &out, why),
			 -EBADMSG);
	/* a Subscribe whose length runs past the end */
	static const unsigned char truncated[] = { 0x5a, 0x10, 0x12, 0x02, 'R' };
	ck_assert_int_eq(decode(&a, truncated, sizeof(truncated), &out, why),
			 -EBADMSG);
	ck_assert_uint_eq(a.used, 0);
}
END_TEST

START_TEST(unknown_fields_and_kinds_are_named)
{
	struct gpd_proto_allocator a;
	Gpuperf__Envelope *out;
	char why[256];
	gpd_proto_allocator_init(&a, 4096);
	/* Subscribe { field 99 = 1 } */
	static const unsigned char nested[] = { 0x5a, 0x03, 0x98, 0x06, 0x01 };
	ck_assert_int_eq(decode(&a, nested, sizeof(nested), &out, why), -EPROTO);
	ck_assert_ptr_nonnull(strstr(why, "field 99 of gpuperf.Subscribe"));
	gpd_proto_free_request(&a, out);
	/* request_id only: no request */
	static const unsigned char empty[] = { 0x08, 0x01 };
	ck_assert_int_eq(decode(&a, empty, sizeof(empty), &out, why), -EPROTO);
	ck_assert_ptr_nonnull(strstr(why, "no request"));
	gpd_proto_free_request(&a, out);
	/* Pong {} is the server's */
	static const unsigned char pong[] = { 0xb2, 0x02, 0x00 };
	ck_assert_int_eq(decode(&a, pong, sizeof(pong), &out, why), -EPROTO);
	ck_assert_ptr_nonnull(strstr(why, "only the server sends"));
	gpd_proto_free_request(&a, out);
	ck_assert_uint_eq(a.used, 0);
}
END_TEST

START_TEST(memory_is_capped)
{
	/* 2000 empty counter names: 4 bytes on the wire, far more decoded. */
	size_t n = 2000;
	unsigned char *buf = malloc(4 * n + 16);
	size_t len = 0;
	buf[len++] = 0x5a;
	size_t inner = 2 * n;
	buf[len++] = (unsigned char)(0x80 | (inner & 0x7f));
	buf[len++] = (unsigned char)(inner >> 7);
	for (size_t i = 0; i < n; i++) {
		buf[len++] = 0x2a;      /* field 5, counters */
		buf[len++] = 0x00;
	}
	struct gpd_proto_allocator a;
	Gpuperf__Envelope *out;
	char why[256];
	gpd_proto_allocator_init(&a, len * 2);
	ck_assert_int_eq(decode(&a, buf, len, &out, why), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(why, "memory"));
	ck_assert_uint_eq(a.used, 0);
	gpd_proto_allocator_init(&a, len * 64);
	ck_assert_int_eq(decode(&a, buf, len, &out, why), 0);
	ck_assert_uint_eq(out->subscribe->n_counters, n);
	gpd_proto_free_request(&a, out);
	ck_assert_uint_eq(a.used, 0);
	free(buf);
}
END_TEST

START_TEST(replies_pack_with_headroom)
{
	struct gpd_send_queue q;
	gpd_send_queue_init(&q, 16, 4, 1 << 20);
	Gpuperf__Pong p = GPUPERF__PONG__INIT;
	p.client_time_ns = 7;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.request_id = 3;
	env.kind_case = GPUPERF__ENVELOPE__KIND_PONG;
	env.pong = &p;
	struct gpd_message *m = gpd_proto_pack(&q, GPD_MESSAGE_CONTROL, &env);
	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_eq(m->data, m->buf + 16);
	Gpuperf__Envelope *back = gpuperf__envelope__unpack(NULL, m->len, m->data);
	ck_assert_ptr_nonnull(back);
	ck_assert_uint_eq(back->pong->client_time_ns, 7);
	gpuperf__envelope__free_unpacked(back, NULL);
	free(m);
}
END_TEST

START_TEST(error_codes_map)
{
	ck_assert_int_eq(gpd_proto_error_code(-EPERM),
			 GPUPERF__ERROR_CODE__PERMISSION_DENIED);
	ck_assert_int_eq(gpd_proto_error_code(-ENOENT), GPUPERF__ERROR_CODE__NOT_FOUND);
	ck_assert_int_eq(gpd_proto_error_code(-ENODEV), GPUPERF__ERROR_CODE__NOT_FOUND);
	ck_assert_int_eq(gpd_proto_error_code(-EBUSY), GPUPERF__ERROR_CODE__BUSY);
	ck_assert_int_eq(gpd_proto_error_code(-EINVAL),
			 GPUPERF__ERROR_CODE__INVALID_ARGUMENT);
	ck_assert_int_eq(gpd_proto_error_code(-ENOBUFS),
			 GPUPERF__ERROR_CODE__RESOURCE_EXHAUSTED);
	ck_assert_int_eq(gpd_proto_error_code(-EAGAIN),
			 GPUPERF__ERROR_CODE__UNAVAILABLE);
	ck_assert_int_eq(gpd_proto_error_code(-EFAULT), GPUPERF__ERROR_CODE__INTERNAL);
}
END_TEST

static Suite *proto_codec_suite(void)
{
	Suite *s = suite_create("proto_codec");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, requests_decode);
	tcase_add_test(tc, bad_bytes_are_refused);
	tcase_add_test(tc, unknown_fields_and_kinds_are_named);
	tcase_add_test(tc, memory_is_capped);
	tcase_add_test(tc, replies_pack_with_headroom);
	tcase_add_test(tc, error_codes_map);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(proto_codec_suite)
