/*
 * Compiling metric sets: equation errors with their set, counter and
 * token; unknown references; cycles; evaluation order; and that dropping a
 * bad counter leaves the others computing the right thing.
 */
#include <errno.h>
#include <string.h>

#include "metrics/metric_binding.h"
#include "metrics/metric_xml.h"
#include "tests/unit/metric_text.h"
#include "tests/unit/test_util.h"

/* A file of one set; its lines are numbered in the tests. */
#define SET_OPEN(sym) "<metrics>\n" METRIC_SET_OPEN(sym)
#define SET_CLOSE "</set>\n</metrics>\n"
#define COUNTER(sym, type, eq) METRIC_COUNTER(sym, "event", type, eq, "")
#define COUNTER_MAX(sym, eq, max)                                            \
	METRIC_COUNTER(sym, "event", "uint64", eq, " max_equation=\"" max "\"")
#define COUNTER_AVAIL(sym, eq, avail)                                        \
	METRIC_COUNTER(sym, "event", "uint64", eq, " availability=\"" avail "\"")

static struct gpm_diagnostics diag;
static struct gpm_metrics_file *file;

static const struct gpm_metric_set *parse(const char *xml)
{
	file = parse_metric_text("dir/oa-test.xml", xml, &diag);
	ck_assert_uint_eq(file->n_sets, 1);
	return &file->sets[0];
}

static void finish(void)
{
	free_metric_text(file, &diag);
}

static void assert_diag(size_t i, unsigned line, const char *text)
{
	ck_assert_uint_gt(diag.count, i);
	ck_assert_str_eq(diag.items[i].file, "dir/oa-test.xml");
	ck_assert_uint_eq(diag.items[i].line, line);
	ck_assert_msg(strstr(diag.items[i].message, text), "'%s' lacks '%s'",
		      diag.items[i].message, text);
}

static bool has_counter(const struct gpm_metric_set *set, const char *sym)
{
	return gpm_metric_set_find_counter(set, sym) >= 0;
}

START_TEST(bad_equations_name_set_counter_and_token)
{
	const struct gpm_metric_set *set = parse(
		SET_OPEN("RenderBasic")                         /* 2 */
		COUNTER("GpuTime", "uint64", "GPU_TIME 0 READ") /* 3 */
		COUNTER("EuActive", "float", "A 7 READ FOO")    /* 4 */
		COUNTER("Under", "uint64", "UADD")              /* 5 */
		COUNTER("Read", "uint64", "A 99 READ")          /* 6 */
		COUNTER("Empty", "uint64", " ")                 /* 7 */
		COUNTER("Left", "uint64", "1 2")                /* 8 */
		SET_CLOSE);

	ck_assert_uint_eq(diag.count, 5);
	assert_diag(0, 4, "set RenderBasic, counter EuActive: ");
	assert_diag(0, 4, "'FOO'");
	assert_diag(1, 5, "set RenderBasic, counter Under: ");
	assert_diag(1, 5, "'UADD'");
	assert_diag(2, 6, "set RenderBasic, counter Read: ");
	assert_diag(2, 6, "99");
	assert_diag(3, 7, "set RenderBasic, counter Empty: ");
	assert_diag(4, 8, "set RenderBasic, counter Left: ");
	ck_assert_uint_eq(set->n_counters, 1);
	ck_assert(has_counter(set, "GpuTime"));
	finish();
}
END_TEST

START_TEST(unknown_counter_reference)
{
	const struct gpm_metric_set *set = parse(
		SET_OPEN("S")
		COUNTER("A", "uint64", "A 0 READ")
		COUNTER("B", "uint64", "$A $Nope UADD")         /* 4 */
		COUNTER("C", "uint64", "$B 2 UMUL")             /* 5 */
		SET_CLOSE);

	ck_assert_uint_eq(diag.count, 2);
	assert_diag(0, 4, "set S, counter B: unknown counter reference "
		    "'$Nope'");
	/* C is fine in itself but cannot be computed without B. */
	assert_diag(1, 5, "set S, counter C: reads counter B, which is "
		    "unusable");
	ck_assert_uint_eq(set->n_counters, 1);
	ck_assert(has_counter(set, "A"));
	finish();
}
END_TEST

START_TEST(cycles_are_rejected_with_their_members)
{
	const struct gpm_metric_set *set = parse(
		SET_OPEN("Loop")
		COUNTER("A", "uint64", "$B 1 UADD")             /* 3 */
		COUNTER("B", "uint64", "$C 1 UADD")             /* 4 */
		COUNTER("C", "uint64", "$A 1 UADD")             /* 5 */
		COUNTER("D", "uint64", "$A 1 UADD")             /* 6 */
		COUNTER("Self", "uint64", "$Self 1 UADD")       /* 7 */
		COUNTER("E", "uint64", "A 0 READ")              /* 8 */
		SET_CLOSE);

	ck_assert_uint_eq(diag.count, 3);
	assert_diag(0, 3, "set Loop: counters reference each other in a "
		    "cycle: A -> B -> C -> A");
	assert_diag(1, 7, "cycle: Self -> Self");
	assert_diag(2, 6, "set Loop, counter D: reads counter A, which is "
		    "unusable");
	ck_assert_uint_eq(set->n_counters, 1);
	ck_assert(has_counter(set, "E"));
	finish();
}
END_TEST

START_TEST(orders_counters_after_what_they_read)
{
	const struct gpm_metric_set *set = parse(
		SET_OPEN("S")
		COUNTER("Ratio", "float", "$Busy 100 UMUL $Clocks FDIV")
		COUNTER("Busy", "uint64", "A 0 READ")
		COUNTER("Clocks", "uint64", "$Ticks")
		COUNTER("Ticks", "uint64", "GPU_CLOCK 0 READ")
		SET_CLOSE);
	unsigned pos[4];

	ck_assert_uint_eq(diag.count, 0);
	ck_assert_uint_eq(set->n_counters, 4);
	for (unsigned k = 0; k < 4; k++)
		pos[set->eval_order[k]] = k;
	ck_assert_uint_gt(pos[0], pos[1]);
	ck_assert_uint_gt(pos[0], pos[2]);
	ck_assert_uint_gt(pos[2], pos[3]);
	finish();
}
END_TEST

START_TEST(duplicate_counters_keep_the_first)
{
	const struct gpm_metric_set *set = parse(
		SET_OPEN("S")
		COUNTER("A", "uint64", "A 0 READ")              /* 3 */
		COUNTER("A", "uint64", "A 1 READ")              /* 4 */
		COUNTER("B", "uint64", "$A")
		SET_CLOSE);

	ck_assert_uint_eq(diag.count, 1);
	assert_diag(0, 4, "counter A is defined twice (first at line 3)");
	ck_assert_uint_eq(set->n_counters, 2);
	ck_assert_str_eq(set->counters[0].equation, "A 0 READ");
	finish();
}
END_TEST

START_TEST(bad_bounds_and_availability)
{
	const struct gpm_metric_set *set = parse(
		SET_OPEN("S")
		COUNTER_MAX("BadMax", "A 0 READ", "100 BOGUS")          /* 3 */
		COUNTER_MAX("MaxReadsBad", "A 1 READ", "$Gone 2 UMUL")  /* 4 */
		COUNTER("Gone", "uint64", "1 UADD")                     /* 5 */
		COUNTER_AVAIL("BadAvail", "A 2 READ", "$SliceMask AND") /* 6 */
		COUNTER_AVAIL("Counts", "A 3 READ", "A 0 READ")         /* 7 */
		COUNTER_AVAIL("Reads", "A 4 READ", "$BadMax")           /* 8 */
		SET_CLOSE);

	ck_assert_uint_eq(diag.count, 6);
	assert_diag(0, 3, "set S, counter BadMax: max_equation: ");
	assert_diag(1, 5, "set S, counter Gone: ");
	assert_diag(2, 6, "set S, counter BadAvail: availability: ");
	assert_diag(3, 7, "set S, counter Counts: availability reads report");
	assert_diag(4, 8, "set S, counter Reads: availability: ");
	assert_diag(5, 4, "set S, counter MaxReadsBad: max_equation reads "
		    "counter Gone");
	/* A bad bound costs only the bound. */
	ck_assert_uint_eq(set->n_counters, 2);
	ck_assert_ptr_null(set->counters[0].max_equation);
	ck_assert_ptr_null(set->counters[0].max_eq);
	ck_assert_str_eq(set->counters[1].symbol_name, "MaxReadsBad");
	ck_assert_ptr_null(set->counters[1].max_eq);
	finish();
}
END_TEST

START_TEST(survivors_are_renumbered)
{
	/* Removing Bad shifts every later counter down by one; their
	 * programs must read the right neighbours afterwards. */
	const struct gpm_metric_set *set = parse(
		SET_OPEN("S")
		COUNTER("Bad", "uint64", "UMUL")
		COUNTER("X", "uint64", "A 0 READ")
		COUNTER("Y", "float", "$X 2 UMUL $Z FADD")
		COUNTER("Z", "float", "A 1 READ 0.5 FMUL")
		COUNTER_MAX("W", "$Y", "$X $Z FADD")
		SET_CLOSE);
	struct gpm_device_info dev = { 0 };
	struct gpm_device_vars vars;
	struct gpm_binding b;
	struct gpm_accumulator acc = { 0 };
	struct gpm_value values[4], max[4];

	ck_assert_uint_eq(diag.count, 1);
	ck_assert_uint_eq(set->n_counters, 4);
	gpm_device_vars_init(&vars, &dev);
	ck_assert_int_eq(gpm_binding_init(&b, set, &vars), 0);
	acc.slot[GPM_ACC_A + 0] = 21;
	acc.slot[GPM_ACC_A + 1] = 3;
	gpm_binding_evaluate(&b, &acc, values);
	gpm_binding_evaluate_max(&b, &acc, values, max);
	ck_assert_uint_eq(values[0].u, 21);
	ck_assert_double_eq(values[1].d, 43.5);
	ck_assert_double_eq(values[2].d, 1.5);
	ck_assert_uint_eq(values[3].type, GPM_VALUE_U64);
	ck_assert_uint_eq(values[3].u, 43);
	ck_assert_uint_eq(b.n_max, 1);
	ck_assert_uint_eq(max[3].u, 22);
	gpm_binding_fini(&b);
	finish();
}
END_TEST

START_TEST(register_config_availability_errors)
{
	const struct gpm_metric_set *set = parse(
		SET_OPEN("S")
		COUNTER("A", "uint64", "A 0 READ")
		"<register_config type=\"NOA\" availability=\"$Nope\">\n" /* 4 */
		"</register_config>\n"
		"<register_config type=\"FLEX\" availability=\"A 0 READ\">\n"
		"</register_config>\n"                                    /* 7 */
		"<register_config type=\"OA\"></register_config>\n"
		SET_CLOSE);

	ck_assert_uint_eq(diag.count, 2);
	assert_diag(0, 4, "set S, NOA register config: availability: ");
	assert_diag(1, 6, "set S, FLEX register config: availability reads");
	ck_assert_uint_eq(set->n_register_configs, 1);
	ck_assert_int_eq(set->register_configs[0].kind, GPM_REGISTERS_BOOLEAN);
	finish();
}
END_TEST

START_TEST(names_of_types)
{
	ck_assert_str_eq(gpm_counter_type_name(GPM_COUNTER_EVENT), "event");
	ck_assert_str_eq(gpm_counter_type_name(GPM_COUNTER_RAW), "raw");
	ck_assert_str_eq(gpm_counter_type_name(GPM_COUNTER_THROUGHPUT),
			 "throughput");
	ck_assert_str_eq(gpm_counter_type_name(GPM_COUNTER_DURATION_NORM),
			 "duration_norm");
	ck_assert_str_eq(gpm_counter_type_name(GPM_COUNTER_DURATION_RAW),
			 "duration_raw");
	ck_assert_str_eq(gpm_counter_type_name(GPM_COUNTER_TIMESTAMP),
			 "timestamp");
	ck_assert_str_eq(gpm_counter_data_type_name(GPM_DATA_UINT64), "uint64");
	ck_assert_str_eq(gpm_counter_data_type_name(GPM_DATA_FLOAT), "float");
	ck_assert_str_eq(gpm_register_kind_name(GPM_REGISTERS_MUX), "NOA");
	ck_assert_str_eq(gpm_register_kind_name(GPM_REGISTERS_BOOLEAN), "OA");
	ck_assert_str_eq(gpm_register_kind_name(GPM_REGISTERS_FLEX), "FLEX");
}
END_TEST

static Suite *metric_set_suite(void)
{
	Suite *s = suite_create("metric_set");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, bad_equations_name_set_counter_and_token);
	tcase_add_test(tc, unknown_counter_reference);
	tcase_add_test(tc, cycles_are_rejected_with_their_members);
	tcase_add_test(tc, orders_counters_after_what_they_read);
	tcase_add_test(tc, duplicate_counters_keep_the_first);
	tcase_add_test(tc, bad_bounds_and_availability);
	tcase_add_test(tc, survivors_are_renumbered);
	tcase_add_test(tc, register_config_availability_errors);
	tcase_add_test(tc, names_of_types);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(metric_set_suite)
