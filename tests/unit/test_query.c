/*
 * libgpuperf's performance-query layer against a real gpuperfd serving
 * two simulated GPUs (the built-in sim GPU and a Tiger Lake GT2 with
 * Intel's metric file): ids enumerate every set of every device, the data
 * block lays each counter out at an offset aligned to its data type's
 * size, and a query measures the window between begin and end.
 *
 * The daemon is $GPM_BUILD_DIR/gpuperfd (default build), started once for
 * the whole suite on a Unix socket.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/include/gpuperf.h"
#include "tests/unit/test_daemon_process.h"
#include "tests/unit/test_util.h"

static struct test_daemon daemon_proc;

static struct gpc_client *connect_daemon(void)
{
	struct gpc_connect_options o = { .unix_path = daemon_proc.socket_path };
	struct gpc_client *c = NULL;
	struct gpc_error err;

	int ret = gpc_connect_sync(&o, &c, &err);
	ck_assert_msg(ret == 0, "connect: %s", err.message);
	return c;
}

static size_t data_type_size(enum gpc_data_type t)
{
	return t == GPC_DATA_UINT64 || t == GPC_DATA_DOUBLE ? 8 : 4;
}

static size_t total_sets(struct gpc_client *c)
{
	const struct gpc_device *d;
	size_t n = gpc_devices(c, &d), sets = 0;

	for (size_t i = 0; i < n; i++)
		sets += d[i].n_metric_sets;
	return sets;
}

START_TEST(test_enumeration)
{
	struct gpc_client *c = connect_daemon();
	const struct gpc_device *d;
	size_t n_devices = gpc_devices(c, &d);
	unsigned id, next;
	size_t seen = 0;

	ck_assert_uint_eq(n_devices, 2);
	ck_assert_int_eq(gpc_query_first_id(c, &id), 0);
	ck_assert_uint_eq(id, 1);
	/* Device-major, each device's sets in catalog order. */
	for (size_t dev = 0; dev < n_devices; dev++) {
		for (size_t s = 0; s < d[dev].n_metric_sets; s++) {
			struct gpc_query_info info;
			ck_assert_int_eq(gpc_query_info(c, id, &info), 0);
			ck_assert_str_eq(info.device, d[dev].name);
			ck_assert_str_eq(info.symbol, d[dev].metric_sets[s].symbol);
			ck_assert_str_eq(info.name, d[dev].metric_sets[s].name);
			ck_assert_uint_eq(info.n_counters,
					  d[dev].metric_sets[s].n_counters);
			seen++;
			int ret = gpc_query_next_id(c, id, &next);
			if (seen == total_sets(c)) {
				ck_assert_int_eq(ret, -ENOENT);
			} else {
				ck_assert_int_eq(ret, 0);
				ck_assert_uint_eq(next, id + 1);
				id = next;
			}
		}
	}
	ck_assert_uint_eq(seen, 29);
	ck_assert_int_eq(gpc_query_next_id(c, 0, &next), -EINVAL);
	ck_assert_int_eq(gpc_query_next_id(c, id + 1, &next), -EINVAL);
	struct gpc_query_info info;
	ck_assert_int_eq(gpc_query_info(c, 0, &info), -EINVAL);
	ck_assert_int_eq(gpc_query_info(c, id + 1, &info), -EINVAL);
	gpc_close_sync(c);
}
END_TEST

START_TEST(test_id_by_name)
{
	struct gpc_client *c = connect_daemon();
	const struct gpc_device *d;
	struct gpc_query_info info;
	unsigned id;

	gpc_devices(c, &d);
	ck_assert_int_eq(gpc_query_id_by_name(c, NULL, "RenderBasic", &id), 0);
	ck_assert_int_eq(gpc_query_info(c, id, &info), 0);
	ck_assert_str_eq(info.device, "sim0");
	ck_assert_int_eq(gpc_query_id_by_name(c, "sim1", "RenderBasic", &id), 0);
	ck_assert_uint_gt(id, d[0].n_metric_sets);
	ck_assert_int_eq(gpc_query_info(c, id, &info), 0);
	ck_assert_str_eq(info.device, "sim1");
	ck_assert_str_eq(info.symbol, "RenderBasic");
	/* By GUID too. */
	unsigned by_guid;
	const struct gpc_metric_set *set =
		gpc_find_metric_set(gpc_find_device(c, "sim1"), "RenderBasic");
	ck_assert_ptr_nonnull(set);
	ck_assert_int_eq(gpc_query_id_by_name(c, "sim1", set->guid, &by_guid), 0);
	ck_assert_uint_eq(by_guid, id);
	ck_assert_int_eq(gpc_query_id_by_name(c, "sim1", "NoSuchSet", &id),
			 -ENOENT);
	ck_assert_int_eq(gpc_query_id_by_name(c, "sim9", "RenderBasic", &id),
			 -ENOENT);
	gpc_close_sync(c);
}
END_TEST

/* Every counter of every query: its size is its data type's, its offset
 * is aligned to that size, counters follow in order without overlapping,
 * and the block holds them all, rounded up to 8 bytes. */
START_TEST(test_layout)
{
	struct gpc_client *c = connect_daemon();
	unsigned id;
	size_t sizes_seen[9] = { 0 };
	size_t padded = 0;

	ck_assert_int_eq(gpc_query_first_id(c, &id), 0);
	do {
		struct gpc_query_info info;
		ck_assert_int_eq(gpc_query_info(c, id, &info), 0);
		const struct gpc_device *dev = gpc_find_device(c, info.device);
		const struct gpc_metric_set *set =
			gpc_find_metric_set(dev, info.symbol);
		ck_assert_ptr_nonnull(set);
		size_t end = 0;
		for (unsigned k = 1; k <= info.n_counters; k++) {
			struct gpc_query_counter_info ci;
			const struct gpc_counter *counter = &set->counters[k - 1];
			ck_assert_int_eq(gpc_query_counter_info(c, id, k, &ci), 0);
			ck_assert_str_eq(ci.symbol, counter->symbol);
			ck_assert_str_eq(ci.name, counter->name);
			ck_assert_int_eq(ci.data_type, counter->data_type);
			ck_assert_int_eq(ci.type, counter->type);
			ck_assert_uint_eq(ci.size, data_type_size(ci.data_type));
			ck_assert_msg(ci.offset % ci.size == 0,
				      "%s.%s at %zu is not aligned to %zu",
				      info.symbol, ci.symbol, ci.offset, ci.size);
			ck_assert_uint_ge(ci.offset, end);
			/* No more padding than the alignment needs. */
			ck_assert_uint_lt(ci.offset - end, ci.size);
			padded += ci.offset != end;
			end = ci.offset + ci.size;
			ck_assert_uint_le(end, info.data_size);
			sizes_seen[ci.size]++;
			if (counter->has_max_value && counter->max_value > 0)
				ck_assert_uint_eq(ci.raw_max,
						  (uint64_t)llround(counter->max_value));
			else
				ck_assert_uint_eq(ci.raw_max, 0);
		}
		ck_assert_uint_eq(info.data_size % 8, 0);
		ck_assert_uint_ge(info.data_size, end);
		ck_assert_uint_lt(info.data_size - end, 8);
		struct gpc_query_counter_info ci;
		ck_assert_int_eq(gpc_query_counter_info(c, id, 0, &ci), -EINVAL);
		ck_assert_int_eq(gpc_query_counter_info(c, id, info.n_counters + 1,
							&ci), -EINVAL);
	} while (gpc_query_next_id(c, id, &id) == 0);
	/* The sets mix 4- and 8-byte counters, so alignment was at work. */
	ck_assert_uint_gt(sizes_seen[4], 0);
	ck_assert_uint_gt(sizes_seen[8], 0);
	ck_assert_uint_gt(padded, 0);
	gpc_close_sync(c);
}
END_TEST

/* A counter's value out of a data block, as its data type. */
static double read_value(const unsigned char *data,
			 const struct gpc_query_counter_info *ci)
{
	uint32_t u32;
	uint64_t u64;
	float f;
	double d;

	switch (ci->data_type) {
	case GPC_DATA_UINT64:
		memcpy(&u64, data + ci->offset, 8);
		return (double)u64;
	case GPC_DATA_DOUBLE:
		memcpy(&d, data + ci->offset, 8);
		return d;
	case GPC_DATA_FLOAT:
		memcpy(&f, data + ci->offset, 4);
		return f;
	case GPC_DATA_UINT32:
	case GPC_DATA_BOOL32:
		break;
	}
	memcpy(&u32, data + ci->offset, 4);
	return u32;
}

static void find_counter(struct gpc_client *c, unsigned id, const char *symbol,
			 struct gpc_query_counter_info *out)
{
	struct gpc_query_info info;

	ck_assert_int_eq(gpc_query_info(c, id, &info), 0);
	for (unsigned k = 1; k <= info.n_counters; k++) {
		ck_assert_int_eq(gpc_query_counter_info(c, id, k, out), 0);
		if (!strcmp(out->symbol, symbol))
			return;
	}
	ck_abort_msg("no counter %s", symbol);
}

START_TEST(test_measure)
{
	struct gpc_client *c = connect_daemon();
	struct gpc_query *q;
	struct gpc_error err;
	struct gpc_query_info info;
	struct gpc_query_counter_info gpu_time, busy;
	unsigned char data[4096];
	size_t written;
	unsigned id;

	ck_assert_int_eq(gpc_query_id_by_name(c, "sim1", "RenderBasic", &id), 0);
	ck_assert_int_eq(gpc_query_info(c, id, &info), 0);
	ck_assert_uint_le(info.data_size, sizeof(data));
	find_counter(c, id, "GpuTime", &gpu_time);
	find_counter(c, id, "GpuBusy", &busy);
	ck_assert_int_eq(gpu_time.data_type, GPC_DATA_UINT64);
	ck_assert_int_eq(busy.data_type, GPC_DATA_FLOAT);

	ck_assert_msg(gpc_query_create(c, id, &q, &err) == 0, "%s", err.message);
	ck_assert_int_eq(gpc_query_get_data(q, 0, data, sizeof(data), &written),
			 -EINVAL);
	ck_assert_int_eq(gpc_query_end(q, &err), -EINVAL);
	ck_assert_msg(gpc_query_begin(q, &err) == 0, "%s", err.message);
	ck_assert_int_eq(gpc_query_begin(q, &err), -EBUSY);
	gpc_run(c, 200);
	ck_assert_msg(gpc_query_end(q, &err) == 0, "%s", err.message);
	ck_assert_int_eq(gpc_query_get_data(q, GPC_QUERY_WAIT, data,
					    info.data_size - 1, &written),
			 -ENOBUFS);
	int ret = gpc_query_get_data(q, 0, data, sizeof(data), &written);
	ck_assert_msg(ret == 0 || ret == -EAGAIN, "get_data: %d", ret);
	ck_assert_int_eq(gpc_query_get_data(q, GPC_QUERY_WAIT, data,
					    sizeof(data), &written), 0);
	ck_assert_uint_eq(written, info.data_size);
	double ns = read_value(data, &gpu_time);
	ck_assert_msg(ns > 150e6 && ns < 600e6, "GpuTime %g ns for ~200 ms", ns);
	double percent = read_value(data, &busy);
	ck_assert_msg(percent > 0 && percent <= 100, "GpuBusy %g", percent);

	/* A second window on the same query. */
	ck_assert_msg(gpc_query_begin(q, &err) == 0, "%s", err.message);
	gpc_run(c, 50);
	ck_assert_msg(gpc_query_end(q, &err) == 0, "%s", err.message);
	ck_assert_int_eq(gpc_query_get_data(q, GPC_QUERY_WAIT, data,
					    sizeof(data), &written), 0);
	double short_ns = read_value(data, &gpu_time);
	ck_assert_msg(short_ns > 20e6 && short_ns < ns, "GpuTime %g ns for "
		      "~50 ms", short_ns);
	gpc_query_destroy(q);

	ck_assert_int_eq(gpc_query_create(c, 0, &q, &err), -EINVAL);
	ck_assert_ptr_null(q);
	gpc_close_sync(c);
}
END_TEST

/* Queries left open go with their client. */
START_TEST(test_close_with_queries)
{
	struct gpc_client *c = connect_daemon();
	struct gpc_query *q1, *q2;
	struct gpc_error err;
	unsigned id;

	ck_assert_int_eq(gpc_query_id_by_name(c, "sim0", "RenderBasic", &id), 0);
	ck_assert_msg(gpc_query_create(c, id, &q1, &err) == 0, "%s", err.message);
	ck_assert_msg(gpc_query_create(c, id, &q2, &err) == 0, "%s", err.message);
	ck_assert_msg(gpc_query_begin(q1, &err) == 0, "%s", err.message);
	gpc_close_sync(c);
}
END_TEST

static Suite *query_suite(void)
{
	Suite *s = suite_create("query");
	TCase *t = tcase_create("query");
	tcase_set_timeout(t, 30);
	tcase_add_test(t, test_enumeration);
	tcase_add_test(t, test_id_by_name);
	tcase_add_test(t, test_layout);
	tcase_add_test(t, test_measure);
	tcase_add_test(t, test_close_with_queries);
	suite_add_tcase(s, t);
	return s;
}

static const char *intel_metrics_dir(void)
{
	static char dir[512];
	return test_shared_path(dir, sizeof(dir), "intel-metrics/i915");
}

/* gpuperfd on a Unix socket of its own, until the suite is done. */
GPM_TEST_DAEMON_MAIN(query_suite, daemon_proc, "-d", "sim", "-d", "sim:tglgt2",
		     "-m", intel_metrics_dir())
