/*
 * Binding sets to devices: availability, register configs, and counter
 * values checked against hand-computed numbers (docs/oa-reference.md §4.4).
 */
#include <string.h>

#include "metrics/metric_binding.h"
#include "metrics/metric_xml.h"
#include "tests/unit/metric_text.h"
#include "tests/unit/test_gpus.h"
#include "tests/unit/test_util.h"

static struct gpm_diagnostics diag;
static struct gpm_metrics_file *file;

static const struct gpm_metric_set *load_set(const char *rel,
					     const char *symbol)
{
	char path[4096];
	test_shared_path(path, sizeof(path), rel);
	gpm_diagnostics_init(&diag);
	ck_assert_int_eq(gpm_metrics_file_load(path, &diag, &file), 0);
	ck_assert_uint_eq(diag.count, 0);
	const struct gpm_metric_set *set =
		gpm_metrics_file_find_set(file, symbol);
	ck_assert_ptr_nonnull(set);
	return set;
}

static const struct gpm_metric_set *parse_set(const char *xml)
{
	file = parse_metric_text("oa-test.xml", xml, &diag);
	ck_assert_uint_eq(diag.count, 0);
	ck_assert_uint_eq(file->n_sets, 1);
	return &file->sets[0];
}

static void finish(void)
{
	free_metric_text(file, &diag);
}

/* A uniform topology: slices x subslices x EUs, all present. */
static void make_device(struct gpm_device_info *dev, uint16_t version,
			unsigned slices, unsigned subslices, unsigned eus)
{
	memset(dev, 0, sizeof(*dev));
	dev->graphics_version = version;
	dev->eu_threads_count = 7;
	make_full_topology(&dev->topology, slices, subslices, eus);
}

static int counter(const struct gpm_metric_set *set, const char *symbol)
{
	int i = gpm_metric_set_find_counter(set, symbol);
	ck_assert_msg(i >= 0, "no counter %s", symbol);
	return i;
}

START_TEST(tgl_render_basic_worked_example)
{
	const struct gpm_metric_set *set =
		load_set("intel-metrics/i915/oa-tglgt2.xml", "RenderBasic");
	struct gpm_device_info dev;
	struct gpm_device_vars vars;
	struct gpm_binding b;
	struct gpm_accumulator acc;
	struct gpm_value values[128], max[128];

	ck_assert_uint_le(set->n_counters, 128);
	/* TGL GT2: 1 slice, 6 DSS x 16 EUs = 96 EUs, 19.2 MHz. */
	make_device(&dev, 1200, 1, 6, 16);
	dev.timestamp_frequency = 19200000;
	dev.gpu_max_freq = 1350000000;
	gpm_device_vars_init(&vars, &dev);
	ck_assert_int_eq(gpm_binding_init(&b, set, &vars), 0);
	ck_assert_uint_eq(b.n_steps, set->n_counters);

	fill_worked_example_deltas(&acc);
	gpm_binding_evaluate(&b, &acc, values);
	gpm_binding_evaluate_max(&b, &acc, values, max);

	int gpu_time = counter(set, "GpuTime");
	int freq = counter(set, "AvgGpuCoreFrequency");
	int busy = counter(set, "GpuBusy");
	int eu_active = counter(set, "EuActive");
	int gti = counter(set, "GtiReadThroughput");

	ck_assert_int_eq(values[gpu_time].type, GPM_VALUE_U64);
	ck_assert_uint_eq(values[gpu_time].u, 1000000);
	ck_assert_uint_eq(values[freq].u, 1300000000);
	ck_assert_int_eq(values[busy].type, GPM_VALUE_DOUBLE);
	ck_assert_double_eq(values[busy].d, 50.0);
	ck_assert_double_eq(values[eu_active].d, 50.0);
	ck_assert_uint_eq(values[gti].u, 256000);

	ck_assert_uint_eq(max[freq].u, 1350000000);
	ck_assert_double_eq(max[busy].d, 100.0);
	ck_assert_uint_eq(max[gti].u, 1300000ull * 64);

	/* UDIV truncates: a sum of 100 over 96 EUs is 1, not 1.04. */
	for (unsigned i = 7; i <= 10; i++)
		acc.slot[GPM_ACC_A + i] = 25;
	gpm_binding_evaluate(&b, &acc, values);
	ck_assert_double_eq(values[eu_active].d, 100.0 / 1300000.0);

	gpm_binding_fini(&b);
	finish();
}
END_TEST

START_TEST(availability_drops_absent_counters_and_their_readers)
{
	const struct gpm_metric_set *set =
		load_set("intel-metrics/i915/oa-sklgt2.xml", "RenderBasic");
	struct gpm_device_info dev;
	struct gpm_device_vars vars;
	struct gpm_binding b;
	int s0 = counter(set, "Sampler0Busy");
	int s1 = counter(set, "Sampler1Busy");
	int both = counter(set, "SamplersBusy");
	int b0 = counter(set, "Sampler0Bottleneck");
	int bottleneck = counter(set, "SamplerBottleneck");

	ck_assert_str_eq(set->counters[s0].availability,
			 "$SubsliceMask 0x09 AND");

	/* SKL GT2 in full: slice 0 with subslices 0-2, mask 0x7. */
	make_device(&dev, 900, 1, 3, 8);
	gpm_device_vars_init(&vars, &dev);
	ck_assert_int_eq(gpm_binding_init(&b, set, &vars), 0);
	ck_assert(b.available[s0]);
	ck_assert(b.available[s1]);
	ck_assert(b.available[both]);
	ck_assert_uint_eq(b.n_steps, set->n_counters);
	gpm_binding_fini(&b);

	/* Subslice 0 fused off: mask 0x6 lacks both bits of 0x09. */
	dev.topology.subslice_mask[0] = 0x6;
	gpm_device_vars_init(&vars, &dev);
	ck_assert_int_eq(gpm_binding_init(&b, set, &vars), 0);
	ck_assert(!b.available[s0]);
	ck_assert(b.available[s1]);
	ck_assert(!b.available[both]);  /* reads Sampler0Busy */
	ck_assert(!b.available[b0]);    /* same availability */
	ck_assert(!b.available[bottleneck]);
	ck_assert_uint_eq(b.n_steps, set->n_counters - 4);
	for (size_t k = 0; k < b.n_steps; k++)
		ck_assert(b.available[b.steps[k].counter]);

	/* Unavailable entries are left alone. */
	struct gpm_value values[128];
	struct gpm_accumulator acc = { 0 };
	values[s0] = (struct gpm_value){ .type = GPM_VALUE_U64, .u = 0xdead };
	gpm_binding_evaluate(&b, &acc, values);
	ck_assert_uint_eq(values[s0].u, 0xdead);
	gpm_binding_fini(&b);
	finish();
}
END_TEST

static size_t config_index(const struct gpm_metric_set *set,
			   const struct gpm_register_config *rc)
{
	return (size_t)(rc - set->register_configs);
}

START_TEST(register_configs_follow_the_revision)
{
	const struct gpm_metric_set *set =
		load_set("intel-metrics/i915/oa-sklgt2.xml", "RenderPipeProfile");
	struct gpm_device_info dev;
	struct gpm_device_vars vars;
	struct gpm_binding b;

	/* NOA "$SkuRevisionId 0x02 ULT", NOA "... UGTE", OA, FLEX. */
	ck_assert_uint_eq(set->n_register_configs, 4);
	make_device(&dev, 900, 1, 3, 8);
	for (uint32_t rev = 0; rev < 4; rev++) {
		size_t noa = rev < 2 ? 0 : 1;
		dev.revision = rev;
		gpm_device_vars_init(&vars, &dev);
		ck_assert_int_eq(gpm_binding_init(&b, set, &vars), 0);
		ck_assert_uint_eq(b.n_configs, 3);
		ck_assert_uint_eq(config_index(set, b.configs[0]), noa);
		ck_assert_uint_eq(config_index(set, b.configs[1]), 2);
		ck_assert_uint_eq(config_index(set, b.configs[2]), 3);
		const struct gpm_register_config *rc =
			&set->register_configs[noa];
		ck_assert_uint_eq(b.n_registers[GPM_REGISTERS_MUX],
				  rc->n_registers);
		ck_assert_int_eq(memcmp(b.registers[GPM_REGISTERS_MUX],
					rc->registers, rc->n_registers *
					sizeof(*rc->registers)), 0);
		ck_assert_uint_eq(b.n_registers[GPM_REGISTERS_BOOLEAN],
				  set->register_configs[2].n_registers);
		ck_assert_uint_eq(b.n_registers[GPM_REGISTERS_FLEX],
				  set->register_configs[3].n_registers);
		gpm_binding_fini(&b);
	}
	finish();
}
END_TEST

START_TEST(last_true_conditional_config_wins)
{
	const struct gpm_metric_set *set = parse_set(
		"<metrics><set name=\"s\" chipset=\"T\" symbol_name=\"S\" "
		"hw_config_guid=\"01234567-89ab-cdef-0123-456789abcdef\">"
		"<counter name=\"a\" symbol_name=\"A\" units=\"events\" "
		"semantic_type=\"event\" data_type=\"uint64\" "
		"equation=\"A 0 READ\"/>"
		"<register_config type=\"NOA\" availability=\"$SliceMask 1 AND\">"
		"<register type=\"NOA\" address=\"0x9888\" value=\"1\"/>"
		"</register_config>"
		"<register_config type=\"NOA\" availability=\"$SliceMask 2 AND\">"
		"<register type=\"NOA\" address=\"0x9888\" value=\"2\"/>"
		"</register_config>"
		"<register_config type=\"NOA\" availability=\"$SliceMask 4 AND\">"
		"<register type=\"NOA\" address=\"0x9888\" value=\"4\"/>"
		"</register_config>"
		"<register_config type=\"OA\">"
		"<register type=\"OA\" address=\"0x2710\" value=\"7\"/>"
		"</register_config>"
		"<register_config type=\"OA\">"
		"<register type=\"OA\" address=\"0x2714\" value=\"8\"/>"
		"</register_config>"
		"</set></metrics>");
	struct gpm_device_info dev;
	struct gpm_device_vars vars;
	struct gpm_binding b;
	static const struct {
		unsigned slices;
		uint32_t noa_value;
	} cases[] = { { 1, 1 }, { 2, 2 }, { 3, 4 } };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		make_device(&dev, 1200, cases[i].slices, 1, 8);
		gpm_device_vars_init(&vars, &dev);
		ck_assert_int_eq(gpm_binding_init(&b, set, &vars), 0);
		ck_assert_uint_eq(b.n_registers[GPM_REGISTERS_MUX], 1);
		ck_assert_uint_eq(b.registers[GPM_REGISTERS_MUX][0].value,
				  cases[i].noa_value);
		/* Unconditional configs all count, in file order. */
		ck_assert_uint_eq(b.n_registers[GPM_REGISTERS_BOOLEAN], 2);
		ck_assert_uint_eq(b.registers[GPM_REGISTERS_BOOLEAN][0].value, 7);
		ck_assert_uint_eq(b.registers[GPM_REGISTERS_BOOLEAN][1].value, 8);
		ck_assert_uint_eq(b.n_registers[GPM_REGISTERS_FLEX], 0);
		gpm_binding_fini(&b);
	}

	/* No slice matches: no mux programming at all. */
	make_device(&dev, 1200, 1, 1, 8);
	dev.topology.slice_mask = 0;
	gpm_device_vars_init(&vars, &dev);
	ck_assert_int_eq(gpm_binding_init(&b, set, &vars), 0);
	ck_assert_uint_eq(b.n_registers[GPM_REGISTERS_MUX], 0);
	ck_assert_uint_eq(b.n_configs, 2);
	gpm_binding_fini(&b);
	finish();
}
END_TEST

START_TEST(every_shipped_set_binds_and_evaluates)
{
	/* A smoke run over one whole file: every set binds on a full device
	 * and evaluates a zero window without tripping the sanitizers. */
	const struct gpm_metric_set *set =
		load_set("intel-metrics/i915/oa-mtlgt3.xml", "RenderBasic");
	const struct gpm_metrics_file *f = set->file;
	struct gpm_device_info dev;
	struct gpm_device_vars vars;
	struct gpm_accumulator acc = { 0 };

	make_device(&dev, 1270, 2, 4, 16);
	gpm_device_vars_init(&vars, &dev);
	for (size_t s = 0; s < f->n_sets; s++) {
		struct gpm_binding b;
		struct gpm_value values[512], max[512];
		ck_assert_uint_le(f->sets[s].n_counters, 512);
		ck_assert_int_eq(gpm_binding_init(&b, &f->sets[s], &vars), 0);
		ck_assert_uint_gt(b.n_steps, 0);
		gpm_binding_evaluate(&b, &acc, values);
		gpm_binding_evaluate_max(&b, &acc, values, max);
		gpm_binding_fini(&b);
	}
	finish();
}
END_TEST

static Suite *metric_binding_suite(void)
{
	Suite *s = suite_create("metric_binding");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, tgl_render_basic_worked_example);
	tcase_add_test(tc, availability_drops_absent_counters_and_their_readers);
	tcase_add_test(tc, register_configs_follow_the_revision);
	tcase_add_test(tc, last_true_conditional_config_wins);
	tcase_add_test(tc, every_shipped_set_binds_and_evaluates);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(metric_binding_suite)
