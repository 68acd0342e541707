/*
 * The equation engine: IGT's C semantics for every operator, the worked
 * values of oa-reference.md §4.4, error reporting, and every expression of
 * every shipped metric file.
 */
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <string.h>

#include "metrics/equation.h"
#include "tests/unit/test_gpus.h"
#include "tests/unit/test_util.h"
#include "tests/unit/xml_sets.h"

/* The counters of tglgt2 RenderBasic that §4.4 works through, in set
 * order so each one only reads counters before it. */
enum {
	GPU_TIME,
	GPU_CORE_CLOCKS,
	AVG_GPU_CORE_FREQUENCY,
	GPU_BUSY,
	EU_ACTIVE,
	EU_THREAD_OCCUPANCY,
	GTI_READ_THROUGHPUT,
	N_COUNTERS,
};

static const struct {
	const char *symbol;
	enum gpm_value_type type;
	const char *equation;
} tgl_counters[N_COUNTERS] = {
	{ "GpuTime", GPM_VALUE_U64,
	  "GPU_TIME 0 READ 1000000000 UMUL $GpuTimestampFrequency UDIV" },
	{ "GpuCoreClocks", GPM_VALUE_U64, "GPU_CLOCK 0 READ" },
	{ "AvgGpuCoreFrequency", GPM_VALUE_U64,
	  "$GpuCoreClocks 1000000000 UMUL $GpuTime UDIV" },
	{ "GpuBusy", GPM_VALUE_DOUBLE,
	  "A 0 READ 100 UMUL $GpuCoreClocks FDIV" },
	{ "EuActive", GPM_VALUE_DOUBLE,
	  "A 7 READ A 8 READ FADD A 9 READ FADD A 10 READ FADD "
	  "$EuCoresTotalCount UDIV 100 UMUL $GpuCoreClocks FDIV" },
	{ "EuThreadOccupancy", GPM_VALUE_DOUBLE,
	  "8 A 15 READ A 16 READ FADD A 17 READ FADD A 18 READ FADD FMUL "
	  "$EuThreadsCount FDIV $EuCoresTotalCount UDIV 100 UMUL "
	  "$GpuCoreClocks FDIV" },
	{ "GtiReadThroughput", GPM_VALUE_U64,
	  "64  C 5 READ C 4 READ UADD C 3 READ UADD C 2 READ UADD UMUL" },
};

static int resolve_tgl(void *ctx, const char *name, size_t len,
		       unsigned *index, enum gpm_value_type *type)
{
	for (unsigned i = 0; i < N_COUNTERS; i++) {
		if (strlen(tgl_counters[i].symbol) == len &&
		    !memcmp(tgl_counters[i].symbol, name, len)) {
			*index = i;
			*type = tgl_counters[i].type;
			return 0;
		}
	}
	return -ENOENT;
}

static const struct gpm_equation_resolver tgl_resolver = { resolve_tgl, NULL };

/* Per-test state, reset by setup(). */
static struct gpm_accumulator acc;
static struct gpm_value counters[N_COUNTERS];
static struct gpm_device_vars vars;
static const struct gpm_eval_inputs inputs = {
	.acc = acc.slot,
	.counters = counters,
	.vars = &vars,
};

/* TGL GT2 as §4.4 has it: 96 EUs in 6 dual-subslices, 7 threads per EU,
 * a 19.2 MHz timestamp. */
static void tgl_gt2(struct gpm_device_info *dev)
{
	memset(dev, 0, sizeof(*dev));
	dev->graphics_version = 1200;
	dev->eu_threads_count = 7;
	dev->timestamp_frequency = 19200000;
	dev->gpu_min_freq = 350000000;
	dev->gpu_max_freq = 1300000000;
	make_tgl_gt2_topology(&dev->topology);
}

/* SKL GT2: one slice of three subslices with 8 EUs each. */
static void skl_gt2(struct gpm_device_info *dev, uint64_t subslice_mask)
{
	memset(dev, 0, sizeof(*dev));
	dev->graphics_version = 900;
	dev->eu_threads_count = 7;
	dev->timestamp_frequency = 12000000;
	make_topology(&dev->topology, 1, 3, 8, 0x1, subslice_mask, 0xff);
}

static void setup(void)
{
	struct gpm_device_info dev;

	memset(&acc, 0, sizeof(acc));
	memset(counters, 0, sizeof(counters));
	tgl_gt2(&dev);
	gpm_device_vars_init(&vars, &dev);
}

static struct gpm_equation *compile_ok(const char *rpn,
				       enum gpm_value_type type)
{
	struct gpm_equation *eq = NULL;
	struct gpm_equation_error err;
	int rc = gpm_equation_compile(rpn, type, &tgl_resolver, &eq, &err);

	ck_assert_msg(rc == 0, "'%s': %s", rpn, err.message);
	ck_assert_ptr_nonnull(eq);
	return eq;
}

static struct gpm_value eval(const char *rpn, enum gpm_value_type type)
{
	struct gpm_equation *eq = compile_ok(rpn, type);
	struct gpm_value v = gpm_equation_eval(eq, &inputs);

	ck_assert_int_eq(v.type, type);
	gpm_equation_free(eq);
	return v;
}

static uint64_t eval_u64(const char *rpn)
{
	return eval(rpn, GPM_VALUE_U64).u;
}

static double eval_double(const char *rpn)
{
	return eval(rpn, GPM_VALUE_DOUBLE).d;
}

/* Computes the §4.4 counters in set order, as the set evaluator will. */
static void eval_tgl_counters(void)
{
	for (unsigned i = 0; i < N_COUNTERS; i++) {
		struct gpm_equation *eq = compile_ok(tgl_counters[i].equation,
						     tgl_counters[i].type);
		counters[i] = gpm_equation_eval(eq, &inputs);
		gpm_equation_free(eq);
	}
}

START_TEST(worked_examples)
{
	fill_worked_example_deltas(&acc);
	eval_tgl_counters();

	ck_assert_uint_eq(counters[GPU_TIME].u, 1000000);
	ck_assert_uint_eq(counters[GPU_CORE_CLOCKS].u, 1300000);
	ck_assert_uint_eq(counters[AVG_GPU_CORE_FREQUENCY].u, 1300000000);
	ck_assert_double_eq(counters[GPU_BUSY].d, 50.0);
	ck_assert_double_eq(counters[EU_ACTIVE].d, 50.0);
	ck_assert_uint_eq(counters[GTI_READ_THROUGHPUT].u, 256000);
}
END_TEST

START_TEST(eu_active_truncates_like_c)
{
	/* 100 EU-active cycles over 96 EUs: UDIV gives 1, not 1.0417. */
	acc.slot[GPM_ACC_GPU_CLOCK] = 100;
	acc.slot[GPM_ACC_A + 7] = 100;

	ck_assert_uint_eq(eval_u64("A 7 READ A 8 READ FADD A 9 READ FADD "
				   "A 10 READ FADD $EuCoresTotalCount UDIV"), 1);
	eval_tgl_counters();
	ck_assert_double_eq(counters[EU_ACTIVE].d, 1.0);
	/* 190 over 96 is 1.98: truncated, not rounded to 2. */
	acc.slot[GPM_ACC_A + 7] = 190;
	ck_assert_uint_eq(eval_u64("A 7 READ A 8 READ FADD A 9 READ FADD "
				   "A 10 READ FADD $EuCoresTotalCount UDIV"), 1);
}
END_TEST

START_TEST(skl_eu_active)
{
	struct gpm_device_info dev;

	skl_gt2(&dev, 0x7);
	gpm_device_vars_init(&vars, &dev);
	ck_assert_uint_eq(vars.value[GPM_VAR_EU_CORES_TOTAL_COUNT], 24);
	acc.slot[GPM_ACC_A + 7] = 2400000;
	counters[GPU_CORE_CLOCKS] = (struct gpm_value){ .type = GPM_VALUE_U64,
							.u = 1000000 };
	ck_assert_double_eq(eval_double("A 7 READ $EuCoresTotalCount UDIV 100 "
					"UMUL $GpuCoreClocks FDIV"), 10.0);
	/* 2,400,023 / 24 (100,000.96) truncates before scaling. */
	acc.slot[GPM_ACC_A + 7] = 2400023;
	ck_assert_double_eq(eval_double("A 7 READ $EuCoresTotalCount UDIV 100 "
					"UMUL $GpuCoreClocks FDIV"), 10.0);
}
END_TEST

START_TEST(availability_subslice_mask)
{
	struct gpm_device_info dev;
	const char *avail = "$SubsliceMask 0x09 AND";

	/* Full SKL GT2: subslices 0-2 of slice 0, packed at bits 0-2. */
	skl_gt2(&dev, 0x7);
	gpm_device_vars_init(&vars, &dev);
	ck_assert_uint_eq(vars.value[GPM_VAR_SUBSLICE_MASK], 0x7);
	ck_assert_uint_ne(eval_u64(avail), 0);

	/* Subslice 0 fused off: neither bit 0 nor bit 3 is set. */
	skl_gt2(&dev, 0x6);
	gpm_device_vars_init(&vars, &dev);
	ck_assert_uint_eq(eval_u64(avail), 0);

	struct gpm_equation *eq = compile_ok(avail, GPM_VALUE_U64);
	ck_assert(gpm_equation_is_constant(eq));
	gpm_equation_free(eq);
}
END_TEST

START_TEST(availability_query_mode)
{
	ck_assert_uint_eq(eval_u64("true $QueryMode &&"), 0);
	ck_assert_uint_eq(eval_u64("true"), 1);
	ck_assert_uint_eq(eval_u64("true true &&"), 1);
	ck_assert_uint_eq(eval_u64("$SliceMask 0x01 AND $EuThreadsCount 7 == &&"), 1);
	ck_assert_uint_eq(eval_u64("$SliceMask 0x02 AND 1 OR"), 1);
	ck_assert_uint_eq(eval_u64("4 1 OR"), 5);
}
END_TEST

START_TEST(division_by_zero_gives_zero)
{
	acc.slot[GPM_ACC_A + 0] = 1234;
	ck_assert_uint_eq(eval_u64("5 0 UDIV"), 0);
	ck_assert_uint_eq(eval_u64("A 0 READ A 1 READ UDIV"), 0);
	ck_assert_uint_eq(eval_u64("A 0 READ $GpuTime UDIV"), 0);
	ck_assert_double_eq(eval_double("5 0 FDIV"), 0.0);
	ck_assert_double_eq(eval_double("A 0 READ A 1 READ FDIV"), 0.0);
	ck_assert_double_eq(eval_double("A 0 READ $GpuBusy FDIV"), 0.0);
	ck_assert_double_eq(eval_double("0.0 0.0 FDIV"), 0.0);
	/* UDIV truncates a double divisor first: 0.5 becomes 0. */
	ck_assert_uint_eq(eval_u64("A 0 READ 0.5 UDIV"), 0);
	ck_assert_uint_eq(eval_u64("A 0 READ 2 UDIV"), 617);
	/* 1234 / 5 is 246.8: truncated. */
	ck_assert_uint_eq(eval_u64("A 0 READ 5 UDIV"), 246);
}
END_TEST

/* Predicates on doubles compare the doubles, at equality too, and never
 * truncate them first (1.5 > 1.25 although both truncate to 1). */
START_TEST(double_predicates_at_their_boundaries)
{
	ck_assert_uint_eq(eval_u64("1.5 1.5 UGTE"), 1);
	ck_assert_uint_eq(eval_u64("1.25 1.5 UGTE"), 0);
	ck_assert_uint_eq(eval_u64("1.5 1.5 ULTE"), 1);
	ck_assert_uint_eq(eval_u64("1.5 1.25 ULTE"), 0);
	ck_assert_uint_eq(eval_u64("1.5 1.5 UGT"), 0);
	ck_assert_uint_eq(eval_u64("1.5 1.25 UGT"), 1);
	ck_assert_uint_eq(eval_u64("1.25 1.5 UGT"), 0);
	ck_assert_uint_eq(eval_u64("1.5 1.5 ULT"), 0);
	ck_assert_uint_eq(eval_u64("1.25 1.5 ULT"), 1);
	ck_assert_uint_eq(eval_u64("1.5 1.5 =="), 1);
	ck_assert_uint_eq(eval_u64("2.5 1.5 =="), 0);
	ck_assert_uint_eq(eval_u64("1.5 2.5 =="), 0);
	ck_assert_uint_eq(eval_u64("1.5 0.5 &&"), 1);
	ck_assert_uint_eq(eval_u64("1.5 0.0 &&"), 0);
	ck_assert_uint_eq(eval_u64("0.0 1.5 &&"), 0);
	ck_assert_double_eq(eval_double("1.5 2.5 FMAX"), 2.5);
	ck_assert_double_eq(eval_double("2.5 1.5 FMAX"), 2.5);
	ck_assert_double_eq(eval_double("3.0 0.0 FDIV"), 0.0);
}
END_TEST

START_TEST(unsigned_ops_on_doubles_truncate)
{
	counters[GPU_BUSY] = (struct gpm_value){ .type = GPM_VALUE_DOUBLE,
						 .d = 1.5 };
	/* C computes 1.5 * 3 in double and stores 4.5 into a u64. */
	ck_assert_uint_eq(eval_u64("$GpuBusy 3 UMUL"), 4);
	ck_assert_uint_eq(eval_u64("1.5 3 UMUL"), 4);
	ck_assert_uint_eq(eval_u64("$GpuBusy $GpuBusy UADD"), 3);
	ck_assert_uint_eq(eval_u64("$GpuBusy 1 USUB"), 0);
	ck_assert_uint_eq(eval_u64("$GpuBusy 2 UMIN"), 1);
	/* A negative double result clamps to 0 rather than wrapping. */
	ck_assert_uint_eq(eval_u64("$GpuBusy 2 USUB"), 0);
	ck_assert_uint_eq(eval_u64("18446744073709551615.0 2 FMUL"), UINT64_MAX);
	/* Two u64 operands stay integer, as the C does. */
	ck_assert_uint_eq(eval_u64("1 2 USUB"), UINT64_MAX);
	ck_assert_uint_eq(eval_u64("7 2 UMIN"), 2);
}
END_TEST

START_TEST(float_ops)
{
	acc.slot[GPM_ACC_A + 0] = 5;
	acc.slot[GPM_ACC_A + 1] = 3;
	ck_assert_double_eq(eval_double("A 0 READ 0.5 FMUL"), 2.5);
	ck_assert_double_eq(eval_double("A 1 READ 2 FDIV"), 1.5);
	ck_assert_double_eq(eval_double("0.5 A 0 READ FSUB"), -4.5);
	ck_assert_double_eq(eval_double("A 1 READ 2.5 FMAX"), 3.0);
	ck_assert_double_eq(eval_double("1.25 A 1 READ FMAX"), 3.0);
	ck_assert_double_eq(eval_double("A 0 READ A 1 READ FADD"), 8.0);
	/* IGT's `double t = a1 - a0;` with two u64 operands subtracts in
	 * u64 first: 3 - 5 wraps before the conversion. */
	ck_assert_double_eq(eval_double("A 1 READ A 0 READ FSUB"),
			    (double)(UINT64_MAX - 1));
	/* A double result read as a u64 counter truncates. */
	ck_assert_uint_eq(eval_u64("A 0 READ 2 FDIV"), 2);
	ck_assert_uint_eq(eval_u64("0.5 A 0 READ FSUB"), 0);
}
END_TEST

START_TEST(shifts_and_bits)
{
	acc.slot[GPM_ACC_A + 0] = 0xf0;
	ck_assert_uint_eq(eval_u64("1 4 <<"), 16);
	ck_assert_uint_eq(eval_u64("256 4 >>"), 16);
	ck_assert_uint_eq(eval_u64("A 0 READ 4 >>"), 0xf);
	ck_assert_uint_eq(eval_u64("A 0 READ 56 <<"), 0xf000000000000000ull);
	ck_assert_uint_eq(eval_u64("1 63 <<"), 0x8000000000000000ull);
	ck_assert_uint_eq(eval_u64("1 64 <<"), 0);
	ck_assert_uint_eq(eval_u64("A 0 READ 200 >>"), 0);
	ck_assert_uint_eq(eval_u64("A 0 READ 0x3c AND"), 0x30);
	ck_assert_uint_eq(eval_u64("0xFFFFFFFFFFFFFFFF 0x0F AND"), 0xf);
}
END_TEST

START_TEST(comparisons)
{
	acc.slot[GPM_ACC_A + 0] = 10;
	ck_assert_uint_eq(eval_u64("A 0 READ 9 UGT"), 1);
	ck_assert_uint_eq(eval_u64("A 0 READ 10 UGT"), 0);
	ck_assert_uint_eq(eval_u64("A 0 READ 10 UGTE"), 1);
	ck_assert_uint_eq(eval_u64("A 0 READ 11 UGTE"), 0);
	ck_assert_uint_eq(eval_u64("A 0 READ 11 ULT"), 1);
	ck_assert_uint_eq(eval_u64("A 0 READ 10 ULT"), 0);
	ck_assert_uint_eq(eval_u64("A 0 READ 10 ULTE"), 1);
	ck_assert_uint_eq(eval_u64("A 0 READ 9 ULTE"), 0);
	ck_assert_uint_eq(eval_u64("A 0 READ 10 =="), 1);
	/* With a double operand C compares in double: 1.5 > 1. */
	ck_assert_uint_eq(eval_u64("1.5 1 UGT"), 1);
	ck_assert_uint_eq(eval_u64("A 0 READ 10.5 ULT"), 1);
	/* A comparison yields a u64 0/1 that arithmetic can use. */
	ck_assert_uint_eq(eval_u64("A 0 READ 9 UGT 100 UMUL"), 100);
	ck_assert_double_eq(eval_double("A 0 READ 9 UGT"), 1.0);
}
END_TEST

START_TEST(literals_tokens_and_read_reg)
{
	acc.slot[GPM_ACC_A + 3] = 7;
	acc.slot[GPM_ACC_PEC + 63] = 99;
	acc.slot[GPM_ACC_PERFCNT + 1] = 11;
	acc.slot[GPM_ACC_B + 7] = 5;
	ck_assert_uint_eq(eval_u64("  A 3\tREAD \n 0x10   UMUL\r\n"), 112);
	ck_assert_uint_eq(eval_u64("PEC 63 READ"), 99);
	ck_assert_uint_eq(eval_u64("PERFCNT 1 READ B 0x7 READ UADD"), 16);
	ck_assert_uint_eq(eval_u64("18446744073709551615"), UINT64_MAX);
	ck_assert_uint_eq(eval_u64("PERFCNT1 READ_REG 5 UADD"), 5);
	ck_assert_double_eq(eval_double(".25"), 0.25);
	ck_assert_double_eq(eval_double("2."), 2.0);
	ck_assert_double_eq(eval_double("$GpuTimestampFrequency"), 19200000.0);
}
END_TEST

START_TEST(counter_refs_and_constness)
{
	struct gpm_equation *eq;
	const unsigned *refs;

	eq = compile_ok("$GpuCoreClocks 1000000000 UMUL $GpuTime UDIV "
			"$GpuTime UADD", GPM_VALUE_U64);
	ck_assert_uint_eq(gpm_equation_counter_refs(eq, &refs), 2);
	ck_assert_uint_eq(refs[0], GPU_CORE_CLOCKS);
	ck_assert_uint_eq(refs[1], GPU_TIME);
	ck_assert(!gpm_equation_is_constant(eq));
	gpm_equation_free(eq);

	eq = compile_ok("A 0 READ", GPM_VALUE_U64);
	ck_assert_uint_eq(gpm_equation_counter_refs(eq, &refs), 0);
	ck_assert(!gpm_equation_is_constant(eq));
	gpm_equation_free(eq);

	eq = compile_ok("$GpuMaxFrequency", GPM_VALUE_U64);
	ck_assert(gpm_equation_is_constant(eq));
	/* Constant equations need no accumulator or counters. */
	const struct gpm_eval_inputs only_vars = { .vars = &vars };
	ck_assert_uint_eq(gpm_equation_eval(eq, &only_vars).u, 1300000000);
	gpm_equation_free(eq);

	eq = compile_ok("100", GPM_VALUE_DOUBLE);
	ck_assert(gpm_equation_is_constant(eq));
	ck_assert_double_eq(gpm_equation_eval(eq, &only_vars).d, 100.0);
	gpm_equation_free(eq);
}
END_TEST

START_TEST(value_conversions)
{
	struct gpm_value u = { .type = GPM_VALUE_U64, .u = 7 };
	struct gpm_value d = { .type = GPM_VALUE_DOUBLE, .d = 7.9 };

	ck_assert_double_eq(gpm_value_as_double(u), 7.0);
	ck_assert_uint_eq(gpm_value_as_u64(u), 7);
	ck_assert_double_eq(gpm_value_as_double(d), 7.9);
	ck_assert_uint_eq(gpm_value_as_u64(d), 7);
	d.d = -3.0;
	ck_assert_uint_eq(gpm_value_as_u64(d), 0);
	d.d = NAN;
	ck_assert_uint_eq(gpm_value_as_u64(d), 0);
	d.d = 1e30;
	ck_assert_uint_eq(gpm_value_as_u64(d), UINT64_MAX);
	d.d = 18446744073709549568.0;   /* largest double below 2^64 */
	ck_assert_uint_eq(gpm_value_as_u64(d), 18446744073709549568ull);
}
END_TEST

static void expect_error(const char *rpn, enum gpm_equation_errc code,
			 unsigned token_index, const char *token,
			 const char *message)
{
	struct gpm_equation *eq = (struct gpm_equation *)&eq;
	struct gpm_equation_error err;
	int rc = gpm_equation_compile(rpn, GPM_VALUE_U64, &tgl_resolver, &eq,
				      &err);

	ck_assert_int_eq(rc, -EINVAL);
	ck_assert_ptr_null(eq);
	ck_assert_msg(err.code == code, "'%s': code %d, want %d (%s)", rpn,
		      err.code, code, err.message);
	ck_assert_uint_eq(err.token_index, token_index);
	ck_assert_str_eq(err.token, token);
	ck_assert_str_eq(err.message, message);
}

START_TEST(errors_name_the_token)
{
	expect_error("", GPM_EQ_EMPTY, 0, "", "empty equation");
	expect_error(" \t\n", GPM_EQ_EMPTY, 0, "", "empty equation");
	expect_error("A 0 READ 1 FOO", GPM_EQ_UNKNOWN_OPERATOR, 4, "FOO",
		     "unknown operator 'FOO' at token 4");
	expect_error("1 -2 UADD", GPM_EQ_UNKNOWN_OPERATOR, 1, "-2",
		     "unknown operator '-2' at token 1");
	expect_error("1 1.2.3 UADD", GPM_EQ_UNKNOWN_OPERATOR, 1, "1.2.3",
		     "unknown operator '1.2.3' at token 1");
	expect_error("1 0xg UADD", GPM_EQ_UNKNOWN_OPERATOR, 1, "0xg",
		     "unknown operator '0xg' at token 1");
	expect_error("18446744073709551616", GPM_EQ_UNKNOWN_OPERATOR, 0,
		     "18446744073709551616",
		     "literal '18446744073709551616' at token 0 does not fit "
		     "in 64 bits");
	expect_error("0x10000000000000000", GPM_EQ_UNKNOWN_OPERATOR, 0,
		     "0x10000000000000000",
		     "literal '0x10000000000000000' at token 0 does not fit "
		     "in 64 bits");
	expect_error("A 0 READ UADD", GPM_EQ_STACK_UNDERFLOW, 3, "UADD",
		     "stack underflow at 'UADD' (token 3): needs 2 operands, "
		     "has 1");
	expect_error("FDIV", GPM_EQ_STACK_UNDERFLOW, 0, "FDIV",
		     "stack underflow at 'FDIV' (token 0): needs 2 operands, "
		     "has 0");
	expect_error("A 0 READ 100", GPM_EQ_STACK_LEFTOVER, 3, "100",
		     "2 values left on the stack at the end: missing operator");
	expect_error("$Foo 1 UADD", GPM_EQ_UNKNOWN_VARIABLE, 0, "$Foo",
		     "unknown variable '$Foo' at token 0");
	expect_error("1 $GtSlice8 UADD", GPM_EQ_UNKNOWN_VARIABLE, 1,
		     "$GtSlice8", "unknown variable '$GtSlice8' at token 1");
	expect_error("$", GPM_EQ_UNKNOWN_VARIABLE, 0, "$",
		     "unknown variable '$' at token 0");
	expect_error("A 64 READ", GPM_EQ_BAD_READ, 1, "64",
		     "READ index 64 out of range for 'A' (0..63) at token 1");
	expect_error("GPU_TIME 1 READ", GPM_EQ_BAD_READ, 1, "1",
		     "READ index 1 out of range for 'GPU_TIME' (0..0) at "
		     "token 1");
	expect_error("1 C 2", GPM_EQ_BAD_READ, 1, "C",
		     "'C' at token 1 must be followed by an index and READ, "
		     "e.g. 'C 0 READ'");
	expect_error("B $GpuTime READ", GPM_EQ_BAD_READ, 0, "B",
		     "'B' at token 0 must be followed by an index and READ, "
		     "e.g. 'B 0 READ'");
	expect_error("0 READ", GPM_EQ_BAD_READ, 1, "READ",
		     "READ at token 1 needs a type and an index before it, "
		     "e.g. 'A 7 READ'");
	expect_error("READ_REG", GPM_EQ_BAD_READ, 0, "READ_REG",
		     "READ_REG at token 0 needs a register name before it");
}
END_TEST

START_TEST(errors_without_resolver_and_limits)
{
	struct gpm_equation *eq;
	struct gpm_equation_error err;
	char rpn[8192];
	size_t n = 0;

	ck_assert_int_eq(gpm_equation_compile("$GpuTime", GPM_VALUE_U64, NULL,
					      &eq, &err), -EINVAL);
	ck_assert_int_eq(err.code, GPM_EQ_UNKNOWN_VARIABLE);
	ck_assert_int_eq(gpm_equation_compile(NULL, GPM_VALUE_U64, NULL,
					      &eq, &err), -EINVAL);
	ck_assert_int_eq(err.code, GPM_EQ_EMPTY);
	/* err is optional. */
	ck_assert_int_eq(gpm_equation_compile("FOO", GPM_VALUE_U64, NULL,
					      &eq, NULL), -EINVAL);

	/* 40 operands before the first operator: deeper than the stack. */
	for (int i = 0; i < 40; i++)
		n += (size_t)snprintf(rpn + n, sizeof(rpn) - n, "A %d READ ", i);
	for (int i = 0; i < 39; i++)
		n += (size_t)snprintf(rpn + n, sizeof(rpn) - n, "UADD ");
	ck_assert_int_eq(gpm_equation_compile(rpn, GPM_VALUE_U64, NULL, &eq,
					      &err), -EINVAL);
	ck_assert_int_eq(err.code, GPM_EQ_TOO_LONG);
	ck_assert_str_eq(err.token, "A");
	ck_assert_str_eq(err.message,
			 "more than 32 values on the stack at token 96");

	/* A long but shallow equation compiles; too many tokens do not. */
	n = (size_t)snprintf(rpn, sizeof(rpn), "1");
	for (int i = 0; i < 500; i++)
		n += (size_t)snprintf(rpn + n, sizeof(rpn) - n, " 1 UADD");
	ck_assert_int_eq(gpm_equation_compile(rpn, GPM_VALUE_U64, NULL, &eq,
					      &err), 0);
	ck_assert_uint_eq(gpm_equation_eval(eq, &inputs).u, 501);
	gpm_equation_free(eq);
	for (int i = 0; i < 100; i++)
		n += (size_t)snprintf(rpn + n, sizeof(rpn) - n, " 1 UADD");
	ck_assert_int_eq(gpm_equation_compile(rpn, GPM_VALUE_U64, NULL, &eq,
					      &err), -EINVAL);
	ck_assert_int_eq(err.code, GPM_EQ_TOO_LONG);
	ck_assert_str_eq(err.message, "more than 1024 tokens");
}
END_TEST

/* Every expression of every shipped file, each set with a resolver that
 * knows exactly that set's counters. */
struct shipped_stats {
	const char *file;
	unsigned compiled;
	unsigned failed;
	struct gpm_device_vars *vars;
};

static void check_expr(struct shipped_stats *st, const struct xml_set *set,
		       const char *what, const char *rpn,
		       enum gpm_value_type type, const struct gpm_value *values)
{
	const struct gpm_equation_resolver resolver = {
		xml_set_resolve, (void *)set,
	};
	const struct gpm_accumulator zero = { { 0 } };
	const struct gpm_eval_inputs in = {
		.acc = zero.slot, .counters = values, .vars = st->vars,
	};
	struct gpm_equation *eq;
	struct gpm_equation_error err;

	if (gpm_equation_compile(rpn, type, &resolver, &eq, &err) != 0) {
		if (st->failed++ < 10)
			fprintf(stderr, "%s: %s: %s: '%s': %s\n", st->file,
				set->symbol, what, rpn, err.message);
		return;
	}
	gpm_equation_eval(eq, &in);
	gpm_equation_free(eq);
	st->compiled++;
}

static void check_set(const struct xml_set *set, void *ctx)
{
	struct shipped_stats *st = ctx;
	struct gpm_value *values = calloc(set->n_counters + 1, sizeof(*values));

	ck_assert_ptr_nonnull(values);
	for (size_t i = 0; i < set->n_counters; i++) {
		const struct xml_counter *c = &set->counters[i];

		values[i].type = c->type;
		check_expr(st, set, c->symbol, c->equation ? c->equation : "",
			   c->type, values);
		if (c->max_equation)
			check_expr(st, set, c->symbol, c->max_equation,
				   c->type, values);
		if (c->availability)
			check_expr(st, set, c->symbol, c->availability,
				   GPM_VALUE_U64, values);
	}
	for (size_t i = 0; i < set->n_reg_availability; i++)
		check_expr(st, set, "register_config",
			   set->reg_availability[i], GPM_VALUE_U64, values);
	free(values);
}

START_TEST(every_shipped_expression_compiles)
{
	struct gpm_device_info dev;
	struct shipped_stats st = { .vars = &vars };
	char pattern[4096];
	glob_t files;
	unsigned total = 0;

	tgl_gt2(&dev);
	gpm_device_vars_init(&vars, &dev);
	test_shared_path(pattern, sizeof(pattern),
			 "intel-metrics/*/oa-*.xml");
	ck_assert_int_eq(glob(pattern, 0, NULL, &files), 0);
	ck_assert_uint_ge(files.gl_pathc, 30);
	for (size_t i = 0; i < files.gl_pathc; i++) {
		st.file = files.gl_pathv[i];
		st.compiled = 0;
		ck_assert_int_eq(xml_sets_walk(st.file, check_set, &st), 0);
		ck_assert_msg(st.compiled > 0, "%s: no expressions", st.file);
		total += st.compiled;
	}
	globfree(&files);
	ck_assert_uint_eq(st.failed, 0);
	/* Sanity: the 36 files hold 29,288 expressions. */
	ck_assert_uint_gt(total, 25000);
}
END_TEST

static Suite *equation_suite(void)
{
	Suite *s = suite_create("equation");
	TCase *tc = tcase_create("semantics");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, worked_examples);
	tcase_add_test(tc, eu_active_truncates_like_c);
	tcase_add_test(tc, skl_eu_active);
	tcase_add_test(tc, availability_subslice_mask);
	tcase_add_test(tc, availability_query_mode);
	tcase_add_test(tc, division_by_zero_gives_zero);
	tcase_add_test(tc, unsigned_ops_on_doubles_truncate);
	tcase_add_test(tc, double_predicates_at_their_boundaries);
	tcase_add_test(tc, float_ops);
	tcase_add_test(tc, shifts_and_bits);
	tcase_add_test(tc, comparisons);
	tcase_add_test(tc, literals_tokens_and_read_reg);
	tcase_add_test(tc, counter_refs_and_constness);
	tcase_add_test(tc, value_conversions);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, errors_name_the_token);
	tcase_add_test(tc, errors_without_resolver_and_limits);
	suite_add_tcase(s, tc);

	tc = tcase_create("shipped");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, every_shipped_expression_compiles);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(equation_suite)
