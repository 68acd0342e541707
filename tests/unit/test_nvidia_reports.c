/*
 * The nvidia source's pure parts: samples into NVPM32u64 records (read
 * back through the OA decoder), the decode schedule, metric sets into
 * sampling plans, and the GH100 equations on hand-made windows.
 */
#include <errno.h>
#include <string.h>

#include "daemon/nvidia/counter_plan.h"
#include "daemon/nvidia/pm_session.h"
#include "daemon/nvidia/report_builder.h"
#include "metrics/metric_binding.h"
#include "metrics/metric_xml.h"
#include "metrics/nvidia_builtin.h"
#include "metrics/oa_delta.h"
#include "metrics/oa_record.h"
#include "metrics/platform.h"
#include "metrics/sim_builtin.h"
#include "tests/unit/test_util.h"

#define FREQ 1310720000ull
#define MS 1000000ull
/* An arbitrary CLOCK_REALTIME, on whole milliseconds. */
#define T0 1764000000000000000ull

struct parsed {
	unsigned n_samples, n_lost;
	struct gpm_oa_report reports[16];
	bool lost_before[16];           /* a BUFFER_LOST preceded report i */
};

static void parse(const unsigned char *buf, size_t len, struct parsed *out)
{
	const struct gpm_oa_format *fmt;
	struct gpm_oa_decoder dec;
	struct gpm_oa_record_reader rd;
	struct gpm_oa_record rec;
	bool lost = false;

	memset(out, 0, sizeof(*out));
	ck_assert_int_eq(gpm_oa_format_get(GPM_OA_FORMAT_NVPM32u64, &fmt), 0);
	ck_assert_int_eq(gpm_oa_decoder_init(&dec, fmt, 0), 0);
	gpm_oa_record_reader_init(&rd, GPM_OA_FRAMING_I915, fmt->size, buf, len);
	while (gpm_oa_record_next(&rd, &rec) == 1) {
		if (rec.type == GPM_OA_RECORD_BUFFER_LOST) {
			out->n_lost++;
			lost = true;
			continue;
		}
		ck_assert_uint_eq(rec.type, GPM_OA_RECORD_SAMPLE);
		ck_assert_uint_lt(out->n_samples, 16);
		ck_assert_int_eq(gpm_oa_report_decode(&dec, rec.payload,
						      rec.payload_size,
						      &out->reports[out->n_samples]), 0);
		out->lost_before[out->n_samples++] = lost;
		lost = false;
	}
	ck_assert_uint_eq(rd.offset, len);
}

static size_t add(struct gpd_nv_report_builder *b, uint64_t start_ms,
		  uint64_t end_ms, const double *values, unsigned char *out)
{
	struct gpd_nv_sample s = {
		.start_ns = T0 + start_ms * MS,
		.end_ns = T0 + end_ms * MS,
		.values = values,
	};
	return gpd_nv_report_builder_add(b, &s, out);
}

static const unsigned slots[] = { GPM_ACC_GPU_CLOCK, GPM_ACC_PEC + 0,
				  GPM_ACC_PEC + 31 };

START_TEST(samples_become_running_totals)
{
	struct gpd_nv_report_builder b;
	unsigned char buf[8 * GPD_NV_SAMPLE_RECORDS_MAX];
	size_t len = 0;
	struct parsed p;

	ck_assert_int_eq(gpd_nv_report_builder_init(&b, slots, 3, FREQ), 0);
	/* CLOCK_MONOTONIC 5 s behind CLOCK_REALTIME's T0. */
	gpd_nv_report_builder_restart(&b, -(int64_t)(T0 - 5000 * MS));
	static const double setup[] = { 1e15, 1e15, 1e15 };
	static const double v[] = { 1980000, 1000.4, 7 };
	/* The setup sample goes; the next starts a pair at its start. */
	ck_assert_uint_eq(add(&b, 0, 900, setup, buf), 0);
	len += add(&b, 900, 901, v, buf + len);
	len += add(&b, 901, 902, v, buf + len);
	len += add(&b, 902, 903, v, buf + len);
	parse(buf, len, &p);
	ck_assert_uint_eq(p.n_samples, 4);
	ck_assert_uint_eq(p.n_lost, 0);
	ck_assert_uint_eq(b.stats.setup_samples, 1);
	ck_assert_uint_eq(b.stats.reports, 3);

	/* 5.9 s of CLOCK_MONOTONIC in ticks of 2^17 per 100 us. */
	ck_assert_uint_eq(p.reports[0].timestamp, 5900 * FREQ / 1000);
	ck_assert_uint_eq(p.reports[3].timestamp - p.reports[2].timestamp,
			  FREQ / 1000);
	ck_assert_uint_eq(p.reports[0].value[GPM_ACC_PEC], 0);
	ck_assert_uint_eq(p.reports[0].ctx_id, 0xffffffffu);
	/* 1000.4 three times: 1000, 1000, then 1001 with the carried 1.2. */
	ck_assert_uint_eq(p.reports[1].value[GPM_ACC_PEC], 1000);
	ck_assert_uint_eq(p.reports[2].value[GPM_ACC_PEC], 2000);
	ck_assert_uint_eq(p.reports[3].value[GPM_ACC_PEC], 3001);
	ck_assert_uint_eq(p.reports[3].value[GPM_ACC_PEC + 31], 21);
	ck_assert_uint_eq(p.reports[3].value[GPM_ACC_GPU_CLOCK], 3 * 1980000);

	/* The pipeline's deltas give each sample back. */
	const struct gpm_oa_format *fmt;
	struct gpm_oa_decoder dec;
	struct gpm_accumulator acc;
	gpm_oa_format_get(GPM_OA_FORMAT_NVPM32u64, &fmt);
	gpm_oa_decoder_init(&dec, fmt, 0);
	memset(&acc, 0, sizeof(acc));
	gpm_oa_delta_add(&dec, &p.reports[1], &p.reports[2], &acc);
	ck_assert_uint_eq(acc.slot[GPM_ACC_GPU_TIME], FREQ / 1000);
	ck_assert_uint_eq(acc.slot[GPM_ACC_GPU_CLOCK], 1980000);
	ck_assert_uint_eq(acc.slot[GPM_ACC_PEC + 31], 7);
}
END_TEST

START_TEST(gaps_duplicates_and_jitter)
{
	struct gpd_nv_report_builder b;
	unsigned char buf[16 * GPD_NV_SAMPLE_RECORDS_MAX];
	size_t len = 0;
	struct parsed p;
	static const double v[] = { 10, 20, 30 };

	ck_assert_int_eq(gpd_nv_report_builder_init(&b, slots, 3, FREQ), 0);
	gpd_nv_report_builder_restart(&b, 0);
	add(&b, 0, 10, v, buf);
	len += add(&b, 10, 11, v, buf + len);           /* start + report */
	/* Five samples missing: loss, then a new pair from 16. */
	len += add(&b, 16, 17, v, buf + len);
	/* A repeat of the last sample: dropped. */
	ck_assert_uint_eq(add(&b, 16, 17, v, buf + len), 0);
	/* A start 40 us after the last end of a 1 ms sample: the clock. */
	struct gpd_nv_sample s = {
		.start_ns = T0 + 17 * MS + 40000, .end_ns = T0 + 18 * MS,
		.values = v,
	};
	len += gpd_nv_report_builder_add(&b, &s, buf + len);
	parse(buf, len, &p);
	ck_assert_uint_eq(p.n_lost, 1);
	ck_assert_uint_eq(p.n_samples, 5);
	ck_assert(!p.lost_before[0]);
	ck_assert(p.lost_before[2]);
	/* The pair after the gap starts at the sample's start, with the
	 * totals as they were: its own counts still count. */
	ck_assert_uint_eq(p.reports[2].timestamp,
			  (uint64_t)((unsigned __int128)(T0 + 16 * MS) * FREQ /
				     1000000000u));
	ck_assert_uint_eq(p.reports[2].value[GPM_ACC_PEC], 20);
	ck_assert_uint_eq(p.reports[3].value[GPM_ACC_PEC], 40);
	ck_assert_uint_eq(p.reports[4].value[GPM_ACC_PEC], 60);
	ck_assert_uint_eq(b.stats.gaps, 1);
	ck_assert_uint_eq(b.stats.out_of_order, 1);
	ck_assert_uint_eq(b.stats.jitter, 1);
	ck_assert_uint_eq(b.stats.losses, 1);

	/* Loss the times cannot show: BUFFER_LOST, then a new pair. */
	len = gpd_nv_report_builder_loss(&b, buf);
	ck_assert_uint_eq(len, 8);
	len += add(&b, 18, 19, v, buf + len);
	parse(buf, len, &p);
	ck_assert_uint_eq(p.n_lost, 1);
	ck_assert_uint_eq(p.n_samples, 2);

	/* A new session drops its setup sample again. */
	gpd_nv_report_builder_restart(&b, 0);
	ck_assert_uint_eq(add(&b, 19, 30, v, buf), 0);
	ck_assert_uint_eq(b.stats.setup_samples, 2);
}
END_TEST

START_TEST(builder_refuses_slots_nvpm_lacks)
{
	struct gpd_nv_report_builder b;
	unsigned bad[] = { GPM_ACC_PEC + 32 };
	ck_assert_int_eq(gpd_nv_report_builder_init(&b, bad, 1, FREQ), -EINVAL);
	bad[0] = GPM_ACC_A;
	ck_assert_int_eq(gpd_nv_report_builder_init(&b, bad, 1, FREQ), -EINVAL);
	ck_assert_int_eq(gpd_nv_report_builder_init(&b, slots, 34, FREQ), -EINVAL);
	ck_assert_int_eq(gpd_nv_report_builder_init(&b, slots, 3, 0), -EINVAL);
}
END_TEST

START_TEST(decode_schedule)
{
	struct gpd_nv_pm_schedule s;

	/* 100 us, 5 counters: 250 samples a decode, into images of 200 ms
	 * (at least two and a half decodes), and a hardware buffer for a
	 * second of them at 4 KiB per counter. */
	gpd_nv_pm_schedule_for(100000, 5, &s);
	ck_assert_uint_eq(s.decode_period_ns, 25 * MS);
	ck_assert_uint_eq(s.max_samples, 2000 + 16);
	ck_assert_uint_eq(s.min_samples, 250 * 5 / 2 + 16);
	ck_assert_uint_eq(s.reset_at, 1);
	ck_assert_uint_eq(s.hardware_buffer_size, 10000 * 5 * 4096);
	/* 800 us, 15 counters: every 100 ms at most. */
	gpd_nv_pm_schedule_for(800000, 15, &s);
	ck_assert_uint_eq(s.decode_period_ns, 100 * MS);
	ck_assert_uint_eq(s.max_samples, 125 * 5 / 2 + 16);
	ck_assert_uint_eq(s.min_samples, 125 * 5 / 2 + 16);
	ck_assert_uint_eq(s.hardware_buffer_size, 1250 * 15 * 4096);
	/* 10 us: every 5 ms at least; the buffer stays within bounds. */
	gpd_nv_pm_schedule_for(10000, 33, &s);
	ck_assert_uint_eq(s.decode_period_ns, 5 * MS);
	ck_assert_uint_eq(s.max_samples, 20000 + 16);
	ck_assert_uint_eq(s.min_samples, 500 * 5 / 2 + 16);
	ck_assert_uint_eq(s.hardware_buffer_size, 256u << 20);
	gpd_nv_pm_schedule_for(400000000, 1, &s);
	ck_assert_uint_eq(s.decode_period_ns, 100 * MS);
	ck_assert_uint_eq(s.hardware_buffer_size, 8u << 20);
}
END_TEST

static struct gpm_metrics_file *gh100(void)
{
	struct gpm_diagnostics diag;
	struct gpm_metrics_file *file;
	gpm_diagnostics_init(&diag);
	ck_assert_int_eq(gpm_metrics_file_parse(GPM_NVIDIA_METRICS_NAME,
						gpm_nvidia_metrics_xml,
						gpm_nvidia_metrics_xml_size(),
						&diag, &file), 0);
	for (size_t i = 0; i < diag.count; i++)
		fprintf(stderr, "%u: %s\n", diag.items[i].line,
			diag.items[i].message);
	ck_assert_uint_eq(diag.count, 0);
	gpm_diagnostics_fini(&diag);
	return file;
}

START_TEST(every_set_plans)
{
	struct gpm_metrics_file *file = gh100();
	struct gpd_nv_plan plan;
	struct gpd_error err;

	ck_assert_str_eq(file->platform, "gh100");
	ck_assert_ptr_nonnull(gpm_platform_by_name(file->chipset));
	for (size_t i = 0; i < file->n_sets; i++) {
		const struct gpm_metric_set *set = &file->sets[i];
		ck_assert_msg(gpd_nv_plan_make(set, 100000, &plan, &err) == 0,
			      "%s", err.message);
		bool telemetry = !strcmp(set->symbol_name, "Telemetry");
		ck_assert_int_eq(plan.kind, telemetry ? GPD_NV_PLAN_TELEMETRY
						      : GPD_NV_PLAN_PM);
	}
	/* What the H200 runs measured: 5 counters for 100 us, 15 for 1 ms. */
	gpd_nv_plan_make(gpm_metrics_file_find_set(file, "Basic"), 100000,
			 &plan, &err);
	ck_assert_uint_eq(plan.n, 5);
	ck_assert_str_eq(plan.names[3], "dram__bytes_read.sum");
	ck_assert_uint_eq(plan.slots[3], GPM_ACC_PEC + 3);
	gpd_nv_plan_make(gpm_metrics_file_find_set(file, "Overview"), 800000,
			 &plan, &err);
	ck_assert_uint_eq(plan.n, 15);
	ck_assert_uint_eq(plan.slots[0], GPM_ACC_GPU_CLOCK);

	/* PM sampling's period range, in words. */
	const struct gpm_metric_set *basic = gpm_metrics_file_find_set(file, "Basic");
	ck_assert_int_eq(gpd_nv_plan_make(basic, 6250, &plan, &err), -EINVAL);
	ck_assert(strstr(err.message, "10 us to 1 s"));
	ck_assert_int_eq(gpd_nv_plan_make(basic, 2000000000, &plan, &err), -EINVAL);
	/* Telemetry takes any period. */
	ck_assert_int_eq(gpd_nv_plan_make(gpm_metrics_file_find_set(file, "Telemetry"),
					  6250, &plan, &err), 0);
	gpm_metrics_file_free(file);
}
END_TEST

START_TEST(sets_not_for_nvidia_refused)
{
	static const char xml[] =
		"<metrics>\n"
		"<set name=\"m\" chipset=\"GH100\" symbol_name=\"Mixed\" "
		"hw_config_guid=\"01234567-89ab-cdef-0123-456789abcdef\">\n"
		"<raw_counter slot=\"PEC 0\" name=\"sm__cycles_active.sum\"/>\n"
		"<raw_counter slot=\"PEC 1\" name=\"nvml:energy\"/>\n"
		"</set>\n"
		"<set name=\"a\" chipset=\"GH100\" symbol_name=\"OffFormat\" "
		"hw_config_guid=\"01234567-89ab-cdef-0123-456789abcdee\">\n"
		"<raw_counter slot=\"A 0\" name=\"sm__cycles_active.sum\"/>\n"
		"</set>\n"
		"<set name=\"g\" chipset=\"GH100\" symbol_name=\"NoGauge\" "
		"hw_config_guid=\"01234567-89ab-cdef-0123-456789abcded\">\n"
		"<raw_counter slot=\"PEC 0\" name=\"nvml:fan_speed\"/>\n"
		"</set>\n"
		"</metrics>\n";
	struct gpm_diagnostics diag;
	struct gpm_metrics_file *file, *sim;
	struct gpd_nv_plan plan;
	struct gpd_error err;

	gpm_diagnostics_init(&diag);
	ck_assert_int_eq(gpm_metrics_file_parse("oa-gh100.xml", xml, strlen(xml),
						&diag, &file), 0);
	ck_assert_int_eq(gpd_nv_plan_make(&file->sets[0], 1000000, &plan, &err),
			 -EINVAL);
	ck_assert(strstr(err.message, "mixes NVML gauges and CUPTI counters"));
	ck_assert_int_eq(gpd_nv_plan_make(&file->sets[1], 1000000, &plan, &err),
			 -EINVAL);
	ck_assert(strstr(err.message, "GPU_CLOCK 0 or PEC 0..31"));
	ck_assert_int_eq(gpd_nv_plan_make(&file->sets[2], 1000000, &plan, &err),
			 -EINVAL);
	ck_assert(strstr(err.message, "no gauge nvml:fan_speed"));
	ck_assert_int_eq(gpm_metrics_file_parse(GPM_SIM_METRICS_NAME,
						gpm_sim_metrics_xml,
						gpm_sim_metrics_xml_size(),
						&diag, &sim), 0);
	ck_assert_int_eq(gpd_nv_plan_make(&sim->sets[0], 1000000, &plan, &err),
			 -EINVAL);
	ck_assert(strstr(err.message, "not a set for NVIDIA GPUs"));
	gpm_metrics_file_free(file);
	gpm_metrics_file_free(sim);
	gpm_diagnostics_fini(&diag);
}
END_TEST

static double value_of(const struct gpm_metric_set *set,
		       const struct gpm_value *values, const char *symbol)
{
	int i = gpm_metric_set_find_counter(set, symbol);
	ck_assert_msg(i >= 0, "no counter %s", symbol);
	return gpm_value_as_double(values[i]);
}

/* Equations on a window of 1 ms at full clock on a 132-SM GPU. */
START_TEST(equations_from_raw_counts)
{
	struct gpm_metrics_file *file = gh100();
	struct gpm_device_info info;
	struct gpm_device_vars vars;
	gpm_platform_default_device(gpm_platform_by_name("gh100"), &info);
	ck_assert_uint_eq(info.timestamp_frequency, FREQ);
	gpm_device_vars_init(&vars, &info);

	struct gpm_accumulator acc;
	memset(&acc, 0, sizeof(acc));
	double sm_cycles = 132 * 1980000.0;
	acc.slot[GPM_ACC_GPU_TIME] = FREQ / 1000;
	acc.slot[GPM_ACC_GPU_CLOCK] = 1980000;
	acc.slot[GPM_ACC_PEC + 0] = (uint64_t)sm_cycles;          /* elapsed */
	acc.slot[GPM_ACC_PEC + 1] = (uint64_t)(sm_cycles * 0.9);  /* active */
	acc.slot[GPM_ACC_PEC + 2] = (uint64_t)(sm_cycles * 4 * 0.5);
	acc.slot[GPM_ACC_PEC + 3] = 2000000000;   /* 2 GB read in 1 ms */
	acc.slot[GPM_ACC_PEC + 4] = 1000000000;

	const struct gpm_metric_set *basic = gpm_metrics_file_find_set(file, "Basic");
	struct gpm_binding b;
	struct gpm_value v[64];
	ck_assert_int_eq(gpm_binding_init(&b, basic, &vars), 0);
	gpm_binding_evaluate(&b, &acc, v);
	ck_assert_double_eq_tol(value_of(basic, v, "GpuTime"), 1e6, 1);
	ck_assert_double_eq_tol(value_of(basic, v, "SmActive"), 90, 1e-6);
	/* The tensor pipes of four sub-partitions, busy half the time. */
	ck_assert_double_eq_tol(value_of(basic, v, "TensorActive"), 50, 1e-6);
	ck_assert_double_eq_tol(value_of(basic, v, "DramReadBandwidth"), 2000, 1e-6);
	ck_assert_double_eq_tol(value_of(basic, v, "DramBandwidth"), 3000, 1e-6);
	gpm_binding_fini(&b);

	/* Compute: GPC clock, occupancy over active cycles of 64 warps. */
	const struct gpm_metric_set *compute = gpm_metrics_file_find_set(file, "Compute");
	acc.slot[GPM_ACC_PEC + 2] = (uint64_t)(sm_cycles * 0.9 * 48);
	acc.slot[GPM_ACC_PEC + 3] = (uint64_t)(sm_cycles * 4);
	acc.slot[GPM_ACC_PEC + 4] = (uint64_t)(sm_cycles * 4 * 0.25);
	ck_assert_int_eq(gpm_binding_init(&b, compute, &vars), 0);
	gpm_binding_evaluate(&b, &acc, v);
	ck_assert_double_eq_tol(value_of(compute, v, "GpcFrequency"), 1.98e9, 1);
	ck_assert_double_eq_tol(value_of(compute, v, "SmOccupancy"), 75, 1e-6);
	ck_assert_double_eq_tol(value_of(compute, v, "TensorActive"), 25, 1e-6);
	gpm_binding_fini(&b);

	/* Telemetry: 300 mJ in 1 ms is 300 W; 1980 MHz x 1 ms. */
	const struct gpm_metric_set *tel = gpm_metrics_file_find_set(file, "Telemetry");
	memset(&acc, 0, sizeof(acc));
	acc.slot[GPM_ACC_GPU_TIME] = FREQ / 1000;
	acc.slot[GPM_ACC_PEC + 0] = 300;
	acc.slot[GPM_ACC_PEC + 1] = 1980;
	acc.slot[GPM_ACC_PEC + 5] = 50;
	ck_assert_int_eq(gpm_binding_init(&b, tel, &vars), 0);
	gpm_binding_evaluate(&b, &acc, v);
	ck_assert_double_eq_tol(value_of(tel, v, "Power"), 300, 1e-6);
	ck_assert_double_eq_tol(value_of(tel, v, "SmClock"), 1.98e9, 1e-3);
	ck_assert_double_eq_tol(value_of(tel, v, "GpmSmUtil"), 50, 1e-9);
	gpm_binding_fini(&b);
	gpm_metrics_file_free(file);
}
END_TEST

static Suite *nvidia_reports_suite(void)
{
	Suite *s = suite_create("nvidia_reports");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, samples_become_running_totals);
	tcase_add_test(tc, gaps_duplicates_and_jitter);
	tcase_add_test(tc, builder_refuses_slots_nvpm_lacks);
	tcase_add_test(tc, decode_schedule);
	tcase_add_test(tc, every_set_plans);
	tcase_add_test(tc, sets_not_for_nvidia_refused);
	tcase_add_test(tc, equations_from_raw_counts);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(nvidia_reports_suite)
