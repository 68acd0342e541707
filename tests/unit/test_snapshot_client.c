/*
 * Snapshots through libgpuperf against a real gpuperfd with a flight
 * recorder on the sim GPU: the segments described, every byte in order
 * and as described; requests with bad arguments refused with words, and a
 * refused request leaving the connection as it was.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client/include/gpuperf.h"
#include "tests/unit/test_daemon_process.h"
#include "tests/unit/test_util.h"

static struct test_daemon daemon_proc;

static struct gpc_client *connect_client(void)
{
	struct gpc_connect_options o = { .unix_path = daemon_proc.socket_path };
	struct gpc_client *c = NULL;
	struct gpc_error err;
	ck_assert_msg(gpc_connect_sync(&o, &c, &err) == 0, "connect: %s",
		      err.message);
	return c;
}

struct fetched {
	bool started, done;
	struct gpc_error error;
	bool refused;
	size_t n_segments;
	uint64_t segment_bytes[8];
	uint64_t received[8];
	uint64_t reports;
	bool in_order;
	bool magic_ok;                  /* each recording starts with VERSION */
	uint64_t cpu_start, cpu_end;
};

static void on_started(struct gpc_snapshot *snap,
		       const struct gpc_snapshot_info *info,
		       const struct gpc_error *err, void *user)
{
	struct fetched *f = user;
	f->started = true;
	if (err) {
		f->refused = true;
		f->error = *err;
		f->done = true;
		return;
	}
	ck_assert_ptr_eq(gpc_snapshot_info(snap), info);
	f->n_segments = info->n_segments;
	ck_assert_uint_le(f->n_segments, 8);
	uint64_t total = 0;
	for (size_t i = 0; i < info->n_segments; i++) {
		f->segment_bytes[i] = info->segments[i].bytes;
		f->reports += info->segments[i].reports;
		total += info->segments[i].bytes;
	}
	ck_assert_uint_eq(total, info->bytes);
	f->cpu_start = info->segments[0].cpu_start_ns;
	f->cpu_end = info->segments[info->n_segments - 1].cpu_end_ns;
	f->magic_ok = true;
}

static void on_data(struct gpc_snapshot *snap, size_t segment, uint64_t offset,
		    const void *data, size_t len, void *user)
{
	struct fetched *f = user;
	ck_assert_uint_lt(segment, f->n_segments);
	if (offset != f->received[segment])
		f->in_order = false;
	/* IGT's VERSION record: type 0x10000, size 16. */
	static const unsigned char version[8] = { 0, 0, 1, 0, 0, 0, 16, 0 };
	if (!offset && (len < 8 || memcmp(data, version, 8)))
		f->magic_ok = false;
	f->received[segment] += len;
}

static void on_done(struct gpc_snapshot *snap, const struct gpc_error *err,
		    void *user)
{
	struct fetched *f = user;
	f->done = true;
	if (err)
		f->error = *err;
}

static const struct gpc_snapshot_cbs cbs = {
	.started = on_started,
	.data = on_data,
	.done = on_done,
};

static void fetch(struct gpc_client *c, const struct gpc_snapshot_options *o,
		  struct fetched *f)
{
	struct gpc_snapshot *snap;
	memset(f, 0, sizeof(*f));
	f->in_order = true;
	ck_assert_int_eq(gpc_snapshot(c, o, &cbs, f, &snap), 0);
	while (!f->done)
		gpc_run(c, 10);
}

START_TEST(a_snapshot_arrives_whole)
{
	struct gpc_client *c = connect_client();
	const struct gpc_device *d = gpc_find_device(c, NULL);
	ck_assert_uint_eq(d->flight_recorder_bytes, 8u << 20);
	ck_assert_uint_eq(gpc_server_info(c)->limits.max_snapshots, 2);

	/* The kept stream fills the ring from the daemon's start. */
	struct fetched f;
	struct gpc_snapshot_options all = { 0 };
	do {
		fetch(c, &all, &f);
	} while (f.refused || f.reports < 300);
	ck_assert_uint_eq(f.n_segments, 1);
	ck_assert(f.in_order);
	ck_assert(f.magic_ok);
	ck_assert_uint_eq(f.received[0], f.segment_bytes[0]);
	ck_assert_int_eq(f.error.code, 0);

	/* A span inside what the ring holds. */
	uint64_t mid = f.cpu_start + (f.cpu_end - f.cpu_start) / 2;
	struct gpc_snapshot_options span = { .from_cpu_ns = mid,
					     .to_cpu_ns = f.cpu_end };
	struct fetched g;
	fetch(c, &span, &g);
	ck_assert(!g.refused);
	ck_assert_uint_ge(g.cpu_start, mid);
	ck_assert_uint_le(g.cpu_end, f.cpu_end);
	ck_assert_uint_lt(g.reports, f.reports);
	ck_assert_uint_eq(g.received[0], g.segment_bytes[0]);
	gpc_close_sync(c);
}
END_TEST

static void expect_refused(struct gpc_client *c,
			   const struct gpc_snapshot_options *o, int code,
			   const char *words)
{
	struct fetched f;
	fetch(c, o, &f);
	ck_assert(f.refused);
	ck_assert_int_eq(f.error.code, code);
	ck_assert_msg(strstr(f.error.message, words), "'%s' lacks '%s'",
		      f.error.message, words);
}

START_TEST(bad_requests_are_refused_with_words)
{
	struct gpc_client *c = connect_client();
	struct gpc_snapshot_options both = { .last_ns = 1000000000,
					     .from_cpu_ns = 1 };
	expect_refused(c, &both, -EINVAL,
		       "a Snapshot gives last_ns or from_cpu_ns, not both");
	struct gpc_snapshot_options future = { .to_cpu_ns = UINT64_MAX / 2 };
	expect_refused(c, &future, -EINVAL, "ahead of the server's clock");
	struct gpc_snapshot_options backwards = { .from_cpu_ns = 2000,
						  .to_cpu_ns = 1000 };
	expect_refused(c, &backwards, -EINVAL, "from_cpu_ns is after to_cpu_ns");
	struct gpc_snapshot_options nodev = { .device = "card9" };
	expect_refused(c, &nodev, -ENOENT, "no device 'card9'");
	struct gpc_snapshot_options old = { .from_cpu_ns = 1, .to_cpu_ns = 2 };
	expect_refused(c, &old, -ENOENT, "holds no report from the span asked for");
	/* The connection is as it was: a good request is granted. */
	struct fetched f;
	struct gpc_snapshot_options last = { .last_ns = 100000000 };
	fetch(c, &last, &f);
	ck_assert(!f.refused);
	ck_assert(gpc_is_connected(c));
	gpc_close_sync(c);
}
END_TEST

/* Closing with snapshots under way frees them (ASan would say). */
START_TEST(closing_mid_snapshot)
{
	struct gpc_client *c = connect_client();
	struct fetched f = { .in_order = true };
	struct gpc_snapshot *snap;
	struct gpc_snapshot_options all = { 0 };
	ck_assert_int_eq(gpc_snapshot(c, &all, &cbs, &f, &snap), 0);
	ck_assert_int_eq(gpc_snapshot(c, &all, &cbs, &f, &snap), 0);
	while (!f.started)
		gpc_run(c, 10);
	gpc_close_sync(c);
}
END_TEST

static Suite *snapshot_client_suite(void)
{
	Suite *s = suite_create("snapshot_client");
	TCase *t = tcase_create("client");
	tcase_set_timeout(t, 30);
	tcase_add_test(t, a_snapshot_arrives_whole);
	tcase_add_test(t, bad_requests_are_refused_with_words);
	tcase_add_test(t, closing_mid_snapshot);
	suite_add_tcase(s, t);
	return s;
}

GPM_TEST_DAEMON_MAIN(snapshot_client_suite, daemon_proc, "-d", "sim",
		     "--flight-recorder", "8Mi", "--keep-streaming",
		     "RenderBasic@1ms")
