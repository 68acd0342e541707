/*
 * libgpuperf-cuda-activity.so's measure (cuda_activity/) on a fake CUPTI
 * fed kernel records in CUPTI's layout: busy time per GPU as the union of
 * kernel intervals (overlapping kernels once, a kernel across two flushes
 * once), other records ignored, incomplete ones counted as lost, no
 * report longer than its span, and the packet the daemon reads.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_activity/activity.h"
#include "cuda_activity/busy_union.h"
#include "cuda_activity/report_socket.h"
#include "proto/gpuperf.pb-c.h"
#include "tests/unit/test_util.h"

START_TEST(test_union_of_intervals)
{
	struct gca_busy_union b;
	gca_busy_union_init(&b);
	/* Out of order, two overlapping, one inside another, one empty. */
	ck_assert_int_eq(gca_busy_union_add(&b, 20, 30), 0);
	ck_assert_int_eq(gca_busy_union_add(&b, 5, 15), 0);
	ck_assert_int_eq(gca_busy_union_add(&b, 0, 10), 0);
	ck_assert_int_eq(gca_busy_union_add(&b, 22, 25), 0);
	ck_assert_int_eq(gca_busy_union_add(&b, 40, 40), 0);
	ck_assert_uint_eq(gca_busy_union_take(&b), 25);
	/* The next batch counts only what lies past everything counted. */
	ck_assert_int_eq(gca_busy_union_add(&b, 25, 40), 0);
	ck_assert_int_eq(gca_busy_union_add(&b, 2, 8), 0);
	ck_assert_uint_eq(gca_busy_union_take(&b), 10);
	ck_assert_uint_eq(gca_busy_union_take(&b), 0);
	gca_busy_union_fini(&b);
}
END_TEST

/* ------------------------------------------------------------------ */
/* A fake CUPTI                                                         */

/* Records as CUPTI lays them out: the shared head, then more fields. */
struct fake_record {
	struct gca_kernel_record head;
	uint8_t rest[88];
};

static struct {
	gca_buffer_requested_fn requested;
	gca_buffer_completed_fn completed;
	uint32_t enabled;
	uint64_t now;
	size_t dropped;
	struct fake_record pending[16];
	size_t n_pending;
	size_t next;                    /* get_next_record's cursor */
} cupti;

static int fake_enable(uint32_t kind)
{
	cupti.enabled = kind;
	return 0;
}

static int fake_register(gca_buffer_requested_fn requested,
			 gca_buffer_completed_fn completed)
{
	cupti.requested = requested;
	cupti.completed = completed;
	return 0;
}

/* The records put in so far, in one buffer the library asked for. */
static int fake_flush(uint32_t flag)
{
	ck_assert_uint_eq(flag, GCA_CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	if (!cupti.n_pending)
		return 0;
	uint8_t *buf;
	size_t size, max;
	cupti.requested(&buf, &size, &max);
	size_t valid = cupti.n_pending * sizeof(struct fake_record);
	ck_assert_uint_ge(size, valid);
	ck_assert_uint_eq((uintptr_t)buf % 8, 0);
	memcpy(buf, cupti.pending, valid);
	cupti.n_pending = 0;
	cupti.next = 0;
	cupti.completed(NULL, 0, buf, size, valid);
	return 0;
}

static int fake_next_record(uint8_t *buffer, size_t valid, void **record)
{
	size_t at = cupti.next * sizeof(struct fake_record);
	if (at >= valid)
		return 12;              /* CUPTI_ERROR_MAX_LIMIT_REACHED */
	*record = buffer + at;
	cupti.next++;
	return 0;
}

static int fake_dropped(void *context, uint32_t stream, size_t *dropped)
{
	*dropped = cupti.dropped;
	return 0;
}

static int fake_timestamp(uint64_t *ns)
{
	*ns = cupti.now;
	return 0;
}

static int fake_device_get(int *device, int ordinal)
{
	*device = 100 + ordinal;
	return 0;
}

static int fake_bus_id(char *bus_id, int len, int device)
{
	snprintf(bus_id, (size_t)len, device == 100 ? "0000:3B:00.0" :
		 "0000:86:00.0");
	return 0;
}

static const struct gca_cuda_api fake_api = {
	.activity_enable = fake_enable,
	.activity_register_callbacks = fake_register,
	.activity_flush_all = fake_flush,
	.activity_get_next_record = fake_next_record,
	.activity_get_num_dropped_records = fake_dropped,
	.get_timestamp = fake_timestamp,
	.device_get = fake_device_get,
	.device_get_pci_bus_id = fake_bus_id,
};

static void record(uint32_t kind, uint32_t device, uint64_t start, uint64_t end)
{
	struct fake_record *r = &cupti.pending[cupti.n_pending++];
	memset(r, 0xa5, sizeof(*r));
	r->head.kind = kind;
	r->head.device_id = device;
	r->head.start = start;
	r->head.end = end;
}

static const struct gca_gpu_report *gpu(const struct gca_report *r,
					const char *bus_id)
{
	for (unsigned i = 0; i < r->n_gpus; i++)
		if (!strcmp(r->gpus[i].pci_bus_id, bus_id))
			return &r->gpus[i];
	ck_abort_msg("no report for %s", bus_id);
	return NULL;
}

START_TEST(test_kernel_records_to_reports)
{
	memset(&cupti, 0, sizeof(cupti));
	gca_activity_reset();
	cupti.now = 1000;
	ck_assert_int_eq(gca_activity_start(&fake_api), 0);
	ck_assert_uint_eq(cupti.enabled, GCA_CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);

	/* Two streams' kernels overlapping on device 0, one on device 1, a
	 * memory copy (no kernel), a record a forced flush left incomplete. */
	record(GCA_CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 0, 1000, 2000);
	record(GCA_CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 0, 1500, 2500);
	record(GCA_CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 0, 3000, 3500);
	record(GCA_CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 1, 1000, 1100);
	record(1, 0, 0, 5000);
	record(GCA_CUPTI_ACTIVITY_KIND_INVALID, 0, 0, 0);
	cupti.dropped = 3;
	cupti.now = 5000;
	struct gca_report r;
	ck_assert_int_eq(gca_activity_flush(&r), 0);
	ck_assert_uint_eq(r.span_ns, 4000);
	ck_assert_uint_eq(r.n_gpus, 2);
	ck_assert_uint_eq(gpu(&r, "0000:3B:00.0")->busy_ns, 2000);
	ck_assert_uint_eq(gpu(&r, "0000:86:00.0")->busy_ns, 100);
	ck_assert_uint_eq(r.records_dropped, 4);

	/* A kernel delivered by this flush that began before the last one's
	 * kernels ended counts from where they ended; an idle GPU reports 0. */
	record(GCA_CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 0, 3200, 6000);
	cupti.now = 9000;
	ck_assert_int_eq(gca_activity_flush(&r), 0);
	ck_assert_uint_eq(r.span_ns, 4000);
	ck_assert_uint_eq(gpu(&r, "0000:3B:00.0")->busy_ns, 2500);
	ck_assert_uint_eq(gpu(&r, "0000:86:00.0")->busy_ns, 0);
	ck_assert_uint_eq(r.records_dropped, 0);

	/* Kernels delivered late, more than a span's worth: the report says
	 * its span, the rest comes with the next. */
	record(GCA_CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 0, 6000, 8500);
	cupti.now = 10000;
	ck_assert_int_eq(gca_activity_flush(&r), 0);
	ck_assert_uint_eq(r.span_ns, 1000);
	ck_assert_uint_eq(gpu(&r, "0000:3B:00.0")->busy_ns, 1000);
	cupti.now = 12000;
	ck_assert_int_eq(gca_activity_flush(&r), 0);
	ck_assert_uint_eq(gpu(&r, "0000:3B:00.0")->busy_ns, 1500);

	/* The packet: one GpuActivity per GPU, each with the span. */
	uint8_t buf[2048];
	size_t len = gca_report_pack(&r, buf, sizeof(buf));
	ck_assert_uint_gt(len, 0);
	Gpuperf__ProcessActivity *m = gpuperf__process_activity__unpack(NULL, len,
									buf);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->n_gpus, 2);
	ck_assert_str_eq(m->gpus[0]->pci_bus_id, "0000:3B:00.0");
	ck_assert_uint_eq(m->gpus[0]->busy_ns, 1500);
	ck_assert_uint_eq(m->gpus[0]->span_ns, 2000);
	ck_assert_uint_eq(m->gpus[1]->span_ns, 2000);
	gpuperf__process_activity__free_unpacked(m, NULL);
	ck_assert_uint_eq(gca_report_pack(&r, buf, 8), 0);
	gca_activity_reset();
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("cuda_activity");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_union_of_intervals);
	tcase_add_test(tc, test_kernel_records_to_reports);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(suite)
