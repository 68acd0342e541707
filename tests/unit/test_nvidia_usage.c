/*
 * The NVIDIA usage source (daemon/nvidia/nvidia_usage.c) on a fake NVML:
 * engine shares from utilization percentages, per-process shares from
 * process utilization samples, memory exactly as NVML lists it, energy,
 * clocks, PCIe, and what a driver without the usage calls says.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/nvidia/nvidia_usage.h"
#include "tests/unit/fake_nvidia.h"
#include "tests/unit/test_util.h"

/* Two readings 50 ms apart, and their frame. */
static void two_readings(struct gpd_usage_source *src, struct gpd_usage_frame *f)
{
	struct gpd_usage_reading a, b;
	struct gpd_error err;
	gpd_usage_reading_init(&a);
	gpd_usage_reading_init(&b);
	ck_assert_int_eq(src->ops->read(src, &a, true, &err), 0);
	usleep(50000);
	ck_assert_int_eq(src->ops->read(src, &b, true, &err), 0);
	gpd_usage_reading_sort(&a);
	gpd_usage_reading_sort(&b);
	ck_assert_int_eq(gpd_usage_diff(&src->layout, &a, &b, f), 0);
	gpd_usage_reading_fini(&a);
	gpd_usage_reading_fini(&b);
}

/* A source on the fake's GPU 0000:00:06.0 with a store of processes'
 * own measures, pids connected to it. */
static struct gpd_usage_source *measuring_source(const int32_t *pids, size_t n,
						 struct gpd_process_activity **store)
{
	ck_assert_int_eq(gpd_process_activity_create(store), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(gpd_process_activity_connect(*store, pids[i]), 0);
	struct gpd_usage_source *src;
	ck_assert_int_eq(gpd_nvidia_usage_create(fake_libs(), "0000:00:06.0",
						 "/nonexistent", *store, &src), 0);
	return src;
}

/* A reading after *last (read before, sorted), their frame in f, and the
 * new reading in *last. */
static void next_frame(struct gpd_usage_source *src,
		       struct gpd_usage_reading *last, struct gpd_usage_frame *f)
{
	struct gpd_usage_reading next;
	struct gpd_error err;
	gpd_usage_reading_init(&next);
	ck_assert_int_eq(src->ops->read(src, &next, true, &err), 0);
	gpd_usage_reading_sort(&next);
	gpd_usage_frame_init(f);
	ck_assert_int_eq(gpd_usage_diff(&src->layout, last, &next, f), 0);
	gpd_usage_reading_fini(last);
	*last = next;
}

START_TEST(test_device_and_processes)
{
	fake_reset();
	fake.util_gpu = 80;
	fake.util_memory = 30;
	fake.util_encoder = 10;
	fake.n_processes = 2;
	fake.processes[0] = (struct fake_process){ 4242, 1073741824ull + 5, 60, 20, false };
	fake.processes[1] = (struct fake_process){ 4343, 268435456ull, 20, 10, true };
	struct gpd_usage_source *src;
	ck_assert_int_eq(gpd_nvidia_usage_create(fake_libs(), "0000:00:06.0",
						 "/nonexistent", NULL, &src), 0);
	const struct gpd_usage_layout *l = &src->layout;
	ck_assert_uint_eq(l->n_engines, 4);
	ck_assert_str_eq(l->engines[0].name, "sm");
	ck_assert_str_eq(l->classes[l->engines[0].class_index], "compute");
	ck_assert_str_eq(l->classes[l->engines[2].class_index], "encoder");
	struct gpd_usage_frame f;
	gpd_usage_frame_init(&f);
	two_readings(src, &f);
	ck_assert_double_eq_tol(f.engines[0].busy, 0.8, 1e-6);
	ck_assert_double_eq_tol(f.engines[1].busy, 0.3, 1e-6);
	ck_assert_double_eq_tol(f.engines[2].busy, 0.1, 1e-6);
	ck_assert_double_eq_tol(f.engines[3].busy, 0, 1e-9);
	ck_assert(isnan(f.rc6));
	ck_assert(isnan(f.requested_freq_hz));
	ck_assert_double_eq(f.max_freq_hz, 1980e6);
	ck_assert(f.power_w > 250 && f.power_w < 350);
	ck_assert_double_eq(f.gauges[0], 1000 * 1024.0);
	ck_assert_double_eq(f.gauges[1], 2000 * 1024.0);
	ck_assert_uint_eq(f.n_processes, 2);
	const struct gpd_usage_process_row *a = gpd_usage_frame_process(&f, 4242);
	const struct gpd_usage_process_row *b = gpd_usage_frame_process(&f, 4343);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_double_eq_tol(a->class_busy[0], 0.6, 1e-6);
	ck_assert_double_eq_tol(a->class_busy[1], 0.2, 1e-6);
	ck_assert_double_eq_tol(b->class_busy[0], 0.2, 1e-6);
	ck_assert_int_eq(a->share_source, GPD_USAGE_SHARE_DRIVER_SAMPLED);
	/* Exactly what NVML lists, once for a process in both lists. */
	ck_assert_uint_eq(a->memory_bytes, 1073741824ull + 5);
	ck_assert_uint_eq(b->memory_bytes, 268435456ull);
	/* Two processes: the frame says what NVML's shares can be trusted for. */
	ck_assert_ptr_nonnull(strstr(f.processes_note, "time-slicing"));
	gpd_usage_frame_fini(&f);
	src->ops->close(src);
	src->ops->destroy(src);
	ck_assert_uint_eq(fake.nvml_inits, fake.nvml_shutdowns);
}
END_TEST

/* One process at 30% of the SMs, read twice through libs; its share. */
static double one_process_share(const struct gpd_nv_libs *libs, char *note,
				size_t note_size)
{
	fake.n_processes = 1;
	fake.processes[0] = (struct fake_process){ 4242, 1 << 20, 30, 5, false };
	struct gpd_usage_source *src;
	ck_assert_int_eq(gpd_nvidia_usage_create(libs, "0000:00:06.0",
						 "/nonexistent", NULL, &src), 0);
	struct gpd_usage_frame f;
	gpd_usage_frame_init(&f);
	two_readings(src, &f);
	const struct gpd_usage_process_row *p = gpd_usage_frame_process(&f, 4242);
	ck_assert_ptr_nonnull(p);
	double share = p->class_busy[0];
	snprintf(note, note_size, "%s", f.processes_note);
	gpd_usage_frame_fini(&f);
	src->ops->destroy(src);
	return share;
}

START_TEST(test_newer_call_first)
{
	char note[512];
	fake_reset();
	ck_assert_double_eq_tol(one_process_share(fake_libs(), note, sizeof(note)),
				0.3, 1e-6);
	ck_assert_uint_gt(fake.newer_calls, 0);
	ck_assert_uint_eq(fake.older_calls, 0);
	/* One process alone: nothing to say of shared time. */
	ck_assert_ptr_null(strstr(note, "time-slicing"));
}
END_TEST

START_TEST(test_older_call_where_newer_unsupported)
{
	char note[512];
	fake_reset();
	fake.newer_result = GPD_NVML_ERROR_NOT_SUPPORTED;
	ck_assert_double_eq_tol(one_process_share(fake_libs(), note, sizeof(note)),
				0.3, 1e-6);
	ck_assert_uint_eq(fake.newer_calls, 1);         /* asked once */
	ck_assert_uint_gt(fake.older_calls, 0);
	ck_assert_str_eq(note, "");
	/* A driver whose newer call takes another version of its struct. */
	fake_reset();
	fake.newer_result = GPD_NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	ck_assert_double_eq_tol(one_process_share(fake_libs(), note, sizeof(note)),
				0.3, 1e-6);
	ck_assert_uint_eq(fake.newer_calls, 1);
	ck_assert_uint_gt(fake.older_calls, 0);
	/* A driver without the newer call. */
	fake_reset();
	struct gpd_nv_libs libs = *fake_libs();
	libs.nvml_usage.device_get_processes_utilization_info = NULL;
	ck_assert_double_eq_tol(one_process_share(&libs, note, sizeof(note)),
				0.3, 1e-6);
	ck_assert_uint_eq(fake.newer_calls, 0);
}
END_TEST

/* A process that reports its own kernel time (process_activity.h) has
 * that as its compute share, the driver's samples kept for the others;
 * each row says which it has. */
START_TEST(test_measured_share_replaces_driver_samples)
{
	fake_reset();
	fake.util_gpu = 99;
	fake.n_processes = 3;
	/* What the driver's samples said on the H200: one process got it all. */
	fake.processes[0] = (struct fake_process){ 4242, 1 << 20, 99, 0, false };
	fake.processes[1] = (struct fake_process){ 4343, 1 << 20, 0, 0, false };
	fake.processes[2] = (struct fake_process){ 4545, 1 << 20, 0, 0, false };
	struct gpd_process_activity *store;
	ck_assert_int_eq(gpd_process_activity_create(&store), 0);
	ck_assert_int_eq(gpd_process_activity_connect(store, 4242), 0);
	ck_assert_int_eq(gpd_process_activity_connect(store, 4343), 0);
	/* Reports about another GPU are not this one's. */
	ck_assert_int_eq(gpd_process_activity_connect(store, 4545), 0);
	struct gpd_usage_source *src;
	ck_assert_int_eq(gpd_nvidia_usage_create(fake_libs(), "0000:00:06.0",
						 "/nonexistent", store, &src), 0);
	struct gpd_gpu_activity report = { .span_ns = 25000000 };
	const char *why;
	/* NVML's spelling of the GPU CUDA calls 0000:00:06.0. */
	ck_assert_int_eq(gpd_pci_address_parse("00000000:00:06.0", &report.gpu), 0);
	struct gpd_gpu_activity elsewhere = report;
	ck_assert_int_eq(gpd_pci_address_parse("0000:3b:00.0", &elsewhere.gpu), 0);
	elsewhere.busy_ns = elsewhere.span_ns;
	/* Before the first reading: counted from the first reading on. */
	report.busy_ns = 25000000;
	ck_assert_int_eq(gpd_process_activity_add(store, 4343, &report, 1, &why), 0);

	struct gpd_usage_reading a, b;
	struct gpd_error err;
	gpd_usage_reading_init(&a);
	gpd_usage_reading_init(&b);
	ck_assert_int_eq(src->ops->read(src, &a, true, &err), 0);
	/* Two reports each between the readings: 76% and 20% of their spans. */
	for (int i = 0; i < 2; i++) {
		report.busy_ns = 19000000;
		ck_assert_int_eq(gpd_process_activity_add(store, 4242, &report, 1,
							  &why), 0);
		report.busy_ns = 5000000;
		ck_assert_int_eq(gpd_process_activity_add(store, 4343, &report, 1,
							  &why), 0);
		ck_assert_int_eq(gpd_process_activity_add(store, 4545, &elsewhere,
							  1, &why), 0);
	}
	usleep(50000);
	ck_assert_int_eq(src->ops->read(src, &b, true, &err), 0);
	gpd_usage_reading_sort(&a);
	gpd_usage_reading_sort(&b);
	struct gpd_usage_frame f;
	gpd_usage_frame_init(&f);
	ck_assert_int_eq(gpd_usage_diff(&src->layout, &a, &b, &f), 0);
	const struct gpd_usage_process_row *x = gpd_usage_frame_process(&f, 4242);
	const struct gpd_usage_process_row *y = gpd_usage_frame_process(&f, 4343);
	const struct gpd_usage_process_row *z = gpd_usage_frame_process(&f, 4545);
	ck_assert_ptr_nonnull(x);
	ck_assert_ptr_nonnull(y);
	ck_assert_ptr_nonnull(z);
	ck_assert_double_eq_tol(x->class_busy[0], 0.76, 1e-3);
	ck_assert_double_eq_tol(y->class_busy[0], 0.20, 1e-3);
	ck_assert_int_eq(x->share_source, GPD_USAGE_SHARE_MEASURED_IN_PROCESS);
	ck_assert_int_eq(y->share_source, GPD_USAGE_SHARE_MEASURED_IN_PROCESS);
	/* The driver's figure where the process measured nothing here. */
	ck_assert_double_eq_tol(z->class_busy[0], 0, 1e-9);
	ck_assert_int_eq(z->share_source, GPD_USAGE_SHARE_DRIVER_SAMPLED);
	ck_assert_ptr_nonnull(strstr(f.processes_note, "--cuda-activity"));
	/* 96% measured of 99% busy: as measured. */
	gpd_usage_frame_fini(&f);

	/* Its connection gone, a process has the driver's share again. */
	gpd_process_activity_disconnect(store, 4242);
	gpd_usage_reading_fini(&a);
	a = b;
	gpd_usage_reading_init(&b);
	usleep(20000);
	ck_assert_int_eq(src->ops->read(src, &b, true, &err), 0);
	gpd_usage_reading_sort(&b);
	gpd_usage_frame_init(&f);
	ck_assert_int_eq(gpd_usage_diff(&src->layout, &a, &b, &f), 0);
	x = gpd_usage_frame_process(&f, 4242);
	y = gpd_usage_frame_process(&f, 4343);
	ck_assert_int_eq(x->share_source, GPD_USAGE_SHARE_DRIVER_SAMPLED);
	ck_assert_double_eq_tol(x->class_busy[0], 0.99, 1e-3);
	/* No report since: its last measured share. */
	ck_assert_int_eq(y->share_source, GPD_USAGE_SHARE_MEASURED_IN_PROCESS);
	ck_assert_double_eq_tol(y->class_busy[0], 0.20, 1e-3);
	gpd_usage_frame_fini(&f);
	gpd_usage_reading_fini(&a);
	gpd_usage_reading_fini(&b);
	src->ops->destroy(src);
	gpd_process_activity_destroy(store);
}
END_TEST

/* Processes time-sliced on one GPU whose kernel times, each including
 * the other's slices, add up to more than the GPU was busy: scaled to
 * sum to it, and the frame says so (the H200's figures). */
START_TEST(test_overlapping_measures_fit_the_busy_time)
{
	fake_reset();
	fake.util_gpu = 100;
	fake.n_processes = 2;
	fake.processes[0] = (struct fake_process){ 4242, 1 << 20, 99, 0, false };
	fake.processes[1] = (struct fake_process){ 4343, 1 << 20, 0, 0, false };
	static const int32_t pids[] = { 4242, 4343 };
	struct gpd_process_activity *store;
	struct gpd_usage_source *src = measuring_source(pids, 2, &store);
	struct gpd_usage_reading last;
	struct gpd_error err;
	gpd_usage_reading_init(&last);
	ck_assert_int_eq(src->ops->read(src, &last, true, &err), 0);
	gpd_usage_reading_sort(&last);
	struct gpd_gpu_activity report = { .span_ns = 100000000 };
	ck_assert_int_eq(gpd_pci_address_parse("0000:00:06.0", &report.gpu), 0);
	const char *why;
	report.busy_ns = 92000000;
	ck_assert_int_eq(gpd_process_activity_add(store, 4242, &report, 1, &why), 0);
	report.busy_ns = 31000000;
	ck_assert_int_eq(gpd_process_activity_add(store, 4343, &report, 1, &why), 0);
	usleep(50000);
	struct gpd_usage_frame f;
	next_frame(src, &last, &f);
	const struct gpd_usage_process_row *x = gpd_usage_frame_process(&f, 4242);
	const struct gpd_usage_process_row *y = gpd_usage_frame_process(&f, 4343);
	ck_assert_double_eq_tol(x->class_busy[0], 0.92 / 1.23, 1e-3);
	ck_assert_double_eq_tol(y->class_busy[0], 0.31 / 1.23, 1e-3);
	ck_assert_int_eq(x->share_source, GPD_USAGE_SHARE_MEASURED_IN_PROCESS);
	ck_assert_msg(strstr(f.processes_note, "scaled to sum"), "%s",
		      f.processes_note);
	gpd_usage_frame_fini(&f);
	gpd_usage_reading_fini(&last);
	src->ops->destroy(src);
	gpd_process_activity_destroy(store);
}
END_TEST

/* Kernel records a process's own measure lost: shown on its row (since
 * its first report) and in the note of the interval they were lost in. */
START_TEST(test_lost_records_are_shown)
{
	fake_reset();
	fake.util_gpu = 50;
	fake.n_processes = 2;
	fake.processes[0] = (struct fake_process){ 4242, 1 << 20, 50, 0, false };
	fake.processes[1] = (struct fake_process){ 4343, 1 << 20, 0, 0, false };
	static const int32_t pids[] = { 4242 };
	struct gpd_process_activity *store;
	struct gpd_usage_source *src = measuring_source(pids, 1, &store);
	struct gpd_gpu_activity report = { .span_ns = 25000000,
					   .busy_ns = 10000000 };
	ck_assert_int_eq(gpd_pci_address_parse("0000:00:06.0", &report.gpu), 0);
	const char *why;
	struct gpd_usage_reading last;
	struct gpd_error err;
	gpd_usage_reading_init(&last);
	ck_assert_int_eq(src->ops->read(src, &last, true, &err), 0);
	gpd_usage_reading_sort(&last);
	ck_assert_int_eq(gpd_process_activity_add(store, 4242, &report, 1, &why), 0);
	gpd_process_activity_add_lost(store, 4242, 30);
	gpd_process_activity_add_lost(store, 4242, 7);
	/* Not connected: nobody's. */
	gpd_process_activity_add_lost(store, 4343, 5);
	struct gpd_usage_frame f;
	next_frame(src, &last, &f);
	const struct gpd_usage_process_row *x = gpd_usage_frame_process(&f, 4242);
	const struct gpd_usage_process_row *y = gpd_usage_frame_process(&f, 4343);
	ck_assert_int_eq(x->share_source, GPD_USAGE_SHARE_MEASURED_IN_PROCESS);
	ck_assert_uint_eq(x->records_lost, 37);
	ck_assert_uint_eq(y->records_lost, 0);
	ck_assert_msg(strstr(f.processes_note, "1 process's own measure lost "
			     "kernel records (CUPTI's buffers were full): its "
			     "share misses their time (records_lost)"), "%s",
		      f.processes_note);
	gpd_usage_frame_fini(&f);

	/* Nothing lost since: the total stays, the interval's note goes. */
	ck_assert_int_eq(gpd_process_activity_add(store, 4242, &report, 1, &why), 0);
	next_frame(src, &last, &f);
	x = gpd_usage_frame_process(&f, 4242);
	ck_assert_uint_eq(x->records_lost, 37);
	ck_assert_msg(!strstr(f.processes_note, "lost kernel records"), "%s",
		      f.processes_note);
	gpd_usage_frame_fini(&f);
	gpd_usage_reading_fini(&last);
	src->ops->destroy(src);
	gpd_process_activity_destroy(store);
}
END_TEST

START_TEST(test_without_usage_calls)
{
	fake_reset();
	struct gpd_nv_libs libs = *fake_libs();
	libs.have_nvml_usage = false;
	snprintf(libs.why_no_nvml_usage, sizeof(libs.why_no_nvml_usage),
		 "libnvidia-ml.so.1 has no nvmlDeviceGetProcessUtilization");
	struct gpd_usage_source *src;
	ck_assert_int_eq(gpd_nvidia_usage_create(&libs, "0000:00:06.0", NULL, NULL,
						 &src), 0);
	struct gpd_usage_reading r;
	struct gpd_error err;
	gpd_usage_reading_init(&r);
	ck_assert_int_eq(src->ops->read(src, &r, true, &err), 0);
	ck_assert_uint_eq(r.have, 0);
	ck_assert_ptr_nonnull(strstr(r.note, "nvmlDeviceGetProcessUtilization"));
	gpd_usage_reading_fini(&r);
	src->ops->destroy(src);
}
END_TEST

static Suite *nvidia_usage_suite(void)
{
	Suite *s = suite_create("nvidia_usage");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_device_and_processes);
	tcase_add_test(tc, test_newer_call_first);
	tcase_add_test(tc, test_older_call_where_newer_unsupported);
	tcase_add_test(tc, test_without_usage_calls);
	tcase_add_test(tc, test_measured_share_replaces_driver_samples);
	tcase_add_test(tc, test_lost_records_are_shown);
	tcase_add_test(tc, test_overlapping_measures_fit_the_busy_time);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(nvidia_usage_suite)
