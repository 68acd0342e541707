/*
 * The metric XML loader: every shipped file, and what it does with broken
 * ones.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/metric_xml.h"
#include "metrics/sim_builtin.h"
#include "tests/unit/metric_text.h"
#include "tests/unit/test_util.h"

static char *read_whole(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*size = (size_t)n;
	return buf;
}

static size_t count_occurrences(const char *text, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static int is_metric_file(const struct dirent *e)
{
	size_t len = strlen(e->d_name);
	return len > 7 && !strncmp(e->d_name, "oa-", 3) &&
	       !strcmp(e->d_name + len - 4, ".xml");
}

/* Loads every oa-*.xml of one shared directory and checks it against a
 * plain-text count of its <set and <counter tags. */
static void load_every_file(const char *rel)
{
	char dir[4096];
	struct dirent **entries;
	size_t total_sets = 0, total_counters = 0;

	test_shared_path(dir, sizeof(dir), rel);
	int n = scandir(dir, &entries, is_metric_file, alphasort);
	ck_assert_msg(n > 0, "no oa-*.xml in %s", dir);

	for (int i = 0; i < n; i++) {
		char path[4352];
		struct gpm_diagnostics diag;
		struct gpm_metrics_file *file;
		size_t size, counters = 0;

		snprintf(path, sizeof(path), "%s/%s", dir, entries[i]->d_name);
		gpm_diagnostics_init(&diag);
		ck_assert_int_eq(gpm_metrics_file_load(path, &diag, &file), 0);
		for (size_t d = 0; d < diag.count; d++)
			fprintf(stderr, "%s:%u: %s\n", diag.items[d].file,
				diag.items[d].line, diag.items[d].message);
		ck_assert_msg(diag.count == 0, "%s: %zu errors", path,
			      diag.count);

		char *text = read_whole(path, &size);
		for (size_t s = 0; s < file->n_sets; s++)
			counters += file->sets[s].n_counters;
		ck_assert_uint_eq(file->n_sets, count_occurrences(text, "<set "));
		ck_assert_uint_eq(counters, count_occurrences(text, "<counter "));

		/* oa-<platform>.xml holds <PLATFORM> sets. */
		size_t len = strlen(entries[i]->d_name);
		ck_assert_int_eq(strncmp(file->platform, entries[i]->d_name + 3,
					 len - 7), 0);
		ck_assert_uint_eq(strlen(file->platform), len - 7);

		total_sets += file->n_sets;
		total_counters += counters;
		free(text);
		gpm_metrics_file_free(file);
		gpm_diagnostics_fini(&diag);
		free(entries[i]);
	}
	free(entries);
	printf("%s: %d files, %zu sets, %zu counters\n", rel, n, total_sets,
	       total_counters);
}

START_TEST(loads_every_i915_file)
{
	load_every_file("intel-metrics/i915");
}
END_TEST

START_TEST(loads_every_xe_file)
{
	load_every_file("intel-metrics/xe");
}
END_TEST

static struct gpm_metrics_file *parse(const char *xml,
				      struct gpm_diagnostics *diag)
{
	return parse_metric_text("test/oa-test.xml", xml, diag);
}

START_TEST(keeps_the_attributes)
{
	char path[4096];
	struct gpm_diagnostics diag;
	struct gpm_metrics_file *file;

	test_shared_path(path, sizeof(path), "intel-metrics/i915/oa-tglgt2.xml");
	gpm_diagnostics_init(&diag);
	ck_assert_int_eq(gpm_metrics_file_load(path, &diag, &file), 0);
	ck_assert_str_eq(file->path, path);
	ck_assert_str_eq(file->platform, "tglgt2");
	ck_assert_str_eq(file->chipset, "TGLGT2");

	const struct gpm_metric_set *set =
		gpm_metrics_file_find_set(file, "RenderBasic");
	ck_assert_ptr_nonnull(set);
	ck_assert_ptr_eq(set->file, file);
	ck_assert_ptr_eq(gpm_metrics_file_find_set(
		file, "0fc397c0-4833-492c-9ccd-4929d574d5b8"), set);
	ck_assert_str_eq(set->name, "Render Metrics Basic set");
	ck_assert_str_eq(set->underscore_name, "render_basic");
	ck_assert_str_eq(set->chipset, "TGLGT2");
	ck_assert_str_eq(set->mdapi_supported_apis, "VK OGL OCL IO");
	ck_assert_ptr_null(set->oa_format);
	ck_assert_uint_eq(set->line, 3);

	const struct gpm_counter *c = &set->counters[0];
	ck_assert_str_eq(c->symbol_name, "GpuTime");
	ck_assert_str_eq(c->name, "GPU Time Elapsed");
	ck_assert_str_eq(c->underscore_name, "gpu_time");
	ck_assert_str_eq(c->units, "ns");
	ck_assert_str_eq(c->semantic_type, "duration");
	ck_assert_str_eq(c->mdapi_group, "GPU");
	ck_assert_int_eq(c->type, GPM_COUNTER_RAW);
	ck_assert_int_eq(c->data_type, GPM_DATA_UINT64);
	ck_assert_str_eq(c->equation, "GPU_TIME 0 READ 1000000000 UMUL "
			 "$GpuTimestampFrequency UDIV");
	ck_assert_ptr_null(c->max_equation);
	ck_assert_ptr_null(c->availability);
	ck_assert_uint_eq(c->line, 10);
	ck_assert_ptr_nonnull(c->eq);

	int i = gpm_metric_set_find_counter(set, "AvgGpuCoreFrequency");
	ck_assert_int_ge(i, 0);
	ck_assert_str_eq(set->counters[i].max_equation, "$GpuMaxFrequency");
	ck_assert_ptr_nonnull(set->counters[i].max_eq);
	ck_assert_int_eq(set->counters[i].type, GPM_COUNTER_EVENT);
	i = gpm_metric_set_find_counter(set, "GpuBusy");
	ck_assert_int_eq(set->counters[i].data_type, GPM_DATA_FLOAT);
	ck_assert_int_eq(gpm_metric_set_find_counter(set, "Nope"), -ENOENT);

	ck_assert_uint_eq(set->n_register_configs, 3);
	ck_assert_int_eq(set->register_configs[0].kind, GPM_REGISTERS_MUX);
	ck_assert_int_eq(set->register_configs[1].kind, GPM_REGISTERS_BOOLEAN);
	ck_assert_int_eq(set->register_configs[2].kind, GPM_REGISTERS_FLEX);
	ck_assert_uint_gt(set->register_configs[0].n_registers, 0);
	ck_assert_ptr_null(set->register_configs[0].availability);
	ck_assert_int_eq(set->register_configs[0].priority, -1);
	free_metric_text(file, &diag);
}
END_TEST

START_TEST(keeps_oa_format_and_priority)
{
	char path[4096];
	struct gpm_diagnostics diag;
	struct gpm_metrics_file *file;

	test_shared_path(path, sizeof(path), "intel-metrics/i915/oa-mtlgt2.xml");
	gpm_diagnostics_init(&diag);
	ck_assert_int_eq(gpm_metrics_file_load(path, &diag, &file), 0);
	ck_assert_str_eq(file->sets[0].oa_format, "256B_GENERIC_NOA16");
	free_metric_text(file, &diag);

	test_shared_path(path, sizeof(path), "intel-metrics/i915/oa-sklgt2.xml");
	gpm_diagnostics_init(&diag);
	ck_assert_int_eq(gpm_metrics_file_load(path, &diag, &file), 0);
	const struct gpm_metric_set *set =
		gpm_metrics_file_find_set(file, "RenderPipeProfile");
	ck_assert_ptr_nonnull(set);
	ck_assert_str_eq(set->register_configs[0].availability,
			 "$SkuRevisionId 0x02 ULT");
	ck_assert_ptr_nonnull(set->register_configs[0].availability_eq);
	ck_assert_int_eq(set->register_configs[0].priority, 0);
	free_metric_text(file, &diag);
}
END_TEST

#define SET_OPEN(sym) METRIC_SET_OPEN(sym)
#define COUNTER(sym, sem, type, eq) METRIC_COUNTER(sym, sem, type, eq, "")

START_TEST(maps_semantic_and_data_types)
{
	struct gpm_diagnostics diag;
	struct gpm_metrics_file *file = parse(
		"<metrics>\n" SET_OPEN("S")
		COUNTER("E", "event", "uint64", "1")
		COUNTER("D", "duration", "float", "1")
		COUNTER("R", "ratio", "uint32", "1")
		COUNTER("T", "throughput", "double", "1")
		COUNTER("B", "event", "bool32", "1")
		"</set></metrics>\n", &diag);
	ck_assert_uint_eq(diag.count, 0);
	const struct gpm_counter *c = file->sets[0].counters;
	ck_assert_int_eq(c[0].type, GPM_COUNTER_EVENT);
	ck_assert_int_eq(c[0].data_type, GPM_DATA_UINT64);
	ck_assert_int_eq(c[1].type, GPM_COUNTER_RAW);
	ck_assert_int_eq(c[1].data_type, GPM_DATA_FLOAT);
	ck_assert_int_eq(c[2].type, GPM_COUNTER_EVENT);
	ck_assert_int_eq(c[2].data_type, GPM_DATA_UINT32);
	ck_assert_int_eq(c[3].type, GPM_COUNTER_THROUGHPUT);
	ck_assert_int_eq(c[3].data_type, GPM_DATA_DOUBLE);
	ck_assert_int_eq(c[4].data_type, GPM_DATA_BOOL32);
	ck_assert_int_eq(gpm_counter_value_type(GPM_DATA_FLOAT),
			 GPM_VALUE_DOUBLE);
	ck_assert_int_eq(gpm_counter_value_type(GPM_DATA_UINT64),
			 GPM_VALUE_U64);
	/* The file name gives no platform when the sets name a chipset. */
	ck_assert_str_eq(file->platform, "test");
	free_metric_text(file, &diag);
}
END_TEST

START_TEST(malformed_xml_names_file_and_line)
{
	struct gpm_diagnostics diag;
	struct gpm_metrics_file *file = parse(
		"<metrics>\n"                                   /* 1 */
		SET_OPEN("Good")                                /* 2 */
		COUNTER("A", "event", "uint64", "A 0 READ")     /* 3 */
		"</set>\n"                                      /* 4 */
		SET_OPEN("Cut")                                 /* 5 */
		COUNTER("B", "event", "uint64", "A 1 READ")     /* 6 */
		"<counter name=\"oops\n"                        /* 7 */
		"</set></metrics>\n", &diag);
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_str_eq(diag.items[0].file, "test/oa-test.xml");
	ck_assert_uint_eq(diag.items[0].line, 8);
	ck_assert_ptr_nonnull(strstr(diag.items[0].message, "malformed XML"));
	ck_assert_ptr_nonnull(strstr(diag.items[0].message, "set Cut"));
	/* The set before the error is whole and stays. */
	ck_assert_uint_eq(file->n_sets, 1);
	ck_assert_str_eq(file->sets[0].symbol_name, "Good");
	ck_assert_uint_eq(file->sets[0].n_counters, 1);
	free_metric_text(file, &diag);
}
END_TEST

START_TEST(truncated_and_empty_inputs)
{
	struct gpm_diagnostics diag;
	struct gpm_metrics_file *file;
	char path[4096];
	size_t size;

	file = parse("", &diag);
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_uint_eq(diag.items[0].line, 1);
	ck_assert_uint_eq(file->n_sets, 0);
	ck_assert_str_eq(file->platform, "test");
	free_metric_text(file, &diag);

	/* A shipped file cut in the middle keeps the sets before the cut. */
	test_shared_path(path, sizeof(path), "intel-metrics/i915/oa-tglgt2.xml");
	char *text = read_whole(path, &size);
	gpm_diagnostics_init(&diag);
	ck_assert_int_eq(gpm_metrics_file_parse(path, text, size / 2, &diag,
						&file), 0);
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_uint_gt(file->n_sets, 5);
	ck_assert_uint_lt(file->n_sets, 26);
	free_metric_text(file, &diag);
	free(text);
}
END_TEST

START_TEST(rejects_other_documents)
{
	struct gpm_diagnostics diag;
	struct gpm_metrics_file *file = parse("<html><set/></html>", &diag);
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_ptr_nonnull(strstr(diag.items[0].message, "<html>"));
	ck_assert_uint_eq(file->n_sets, 0);
	free_metric_text(file, &diag);
}
END_TEST

START_TEST(skips_bad_definitions_and_keeps_the_rest)
{
	struct gpm_diagnostics diag;
	struct gpm_metrics_file *file = parse(
		"<metrics>\n"                                           /* 1 */
		SET_OPEN("S")                                           /* 2 */
		"<counter name=\"x\" symbol_name=\"NoEq\" units=\"ns\" " /* 3 */
		"semantic_type=\"event\" data_type=\"uint64\"/>\n"
		COUNTER("BadSem", "speed", "uint64", "1")               /* 4 */
		COUNTER("BadType", "event", "int8", "1")                /* 5 */
		COUNTER("Good", "event", "uint64", "A 0 READ")          /* 6 */
		"<future attr=\"1\"><counter/></future>\n"              /* 7 */
		"<register_config type=\"NOA\">\n"                      /* 8 */
		"<register type=\"NOA\" address=\"0x9888\" value=\"1\"/>\n"
		"</register_config>\n"                                  /* 10 */
		"<register_config type=\"MUX\">\n"                      /* 11 */
		"</register_config>\n"
		"<register_config type=\"OA\">\n"                       /* 13 */
		"<register type=\"OA\" address=\"0x2710\" value=\"0x1ffffffff\"/>\n"
		"</register_config>\n"                                  /* 15 */
		"</set>\n"                                              /* 16 */
		"<set name=\"n\" symbol_name=\"NoGuid\" chipset=\"TEST\">\n"
		COUNTER("A", "event", "uint64", "A 0 READ")
		"</set>\n"                                              /* 19 */
		"<set name=\"n\" symbol_name=\"BadGuid\" chipset=\"TEST\" "
		"hw_config_guid=\"../../etc\"></set>\n"                 /* 20 */
		SET_OPEN("S")                                           /* 21 */
		"</set>\n"
		"<counter/>\n"                                          /* 23 */
		"</metrics>\n", &diag);

	static const struct {
		unsigned line;
		const char *text;
	} expected[] = {
		{ 3, "set S, counter NoEq: no equation attribute" },
		{ 4, "unknown semantic_type 'speed'" },
		{ 5, "unknown data_type 'int8'" },
		{ 11, "register config type 'MUX'" },
		{ 14, "32-bit address and value" },
		{ 17, "set NoGuid: no hw_config_guid attribute" },
		{ 20, "hw_config_guid '../../etc' is not a UUID" },
		{ 23, "<counter> outside a <set>" },
		{ 21, "set S is defined twice (first at line 2)" },
	};
	ck_assert_uint_eq(diag.count, sizeof(expected) / sizeof(expected[0]));
	for (size_t i = 0; i < diag.count; i++) {
		ck_assert_uint_eq(diag.items[i].line, expected[i].line);
		ck_assert_msg(strstr(diag.items[i].message, expected[i].text),
			      "'%s' lacks '%s'", diag.items[i].message,
			      expected[i].text);
	}
	ck_assert_uint_eq(file->n_sets, 1);
	const struct gpm_metric_set *s = &file->sets[0];
	ck_assert_uint_eq(s->n_counters, 1);
	ck_assert_str_eq(s->counters[0].symbol_name, "Good");
	ck_assert_uint_eq(s->n_register_configs, 1);
	ck_assert_uint_eq(s->register_configs[0].n_registers, 1);
	ck_assert_uint_eq(s->register_configs[0].registers[0].address, 0x9888);
	ck_assert_uint_eq(s->register_configs[0].registers[0].value, 1);
	free_metric_text(file, &diag);
}
END_TEST

/* Elements in the wrong place are each named with their line and left
 * out; what is around them loads. A register config whose priority is
 * no number keeps its registers at the default priority. */
START_TEST(misplaced_elements_named_with_their_line)
{
	struct gpm_diagnostics diag;
	struct gpm_metrics_file *file = parse(
		"<metrics>\n"                                           /* 1 */
		"<register_config type=\"OA\"/>\n"                      /* 2 */
		"<register type=\"OA\" address=\"0x2710\" value=\"1\"/>\n"
		SET_OPEN("S")                                           /* 4 */
		"<set name=\"inner\"/>\n"                              /* 5 */
		"<register type=\"OA\" address=\"0x2710\" value=\"1\"/>\n"
		COUNTER("Good", "event", "uint64", "A 0 READ")          /* 7 */
		"<register_config type=\"NOA\" priority=\"high\">\n"   /* 8 */
		"<counter name=\"c\"/>\n"                               /* 9 */
		"<set name=\"s\"/>\n"                                   /* 10 */
		"<register_config type=\"OA\"/>\n"                      /* 11 */
		"<register type=\"NOA\" address=\"0x9888\" value=\"7\"/>\n"
		"</register_config>\n"                                  /* 13 */
		"</set>\n"
		"</metrics>\n", &diag);

	static const struct {
		unsigned line;
		const char *text;
	} expected[] = {
		{ 2, "<register_config> outside a <set>; ignored" },
		{ 3, "<register> outside a <set>; ignored" },
		{ 5, "set S: <set> misplaced inside a <set>; ignored" },
		{ 6, "set S: <register> misplaced inside a <set>; ignored" },
		{ 8, "set S, NOA register config: priority 'high' is not a "
		     "number; ignored" },
		{ 9, "set S: <counter> misplaced inside a <register_config>; "
		     "ignored" },
		{ 10, "set S: <set> misplaced inside a <register_config>; "
		      "ignored" },
		{ 11, "set S: <register_config> misplaced inside a "
		      "<register_config>; ignored" },
	};
	ck_assert_uint_eq(diag.count, sizeof(expected) / sizeof(expected[0]));
	for (size_t i = 0; i < diag.count; i++) {
		ck_assert_str_eq(diag.items[i].file, "test/oa-test.xml");
		ck_assert_uint_eq(diag.items[i].line, expected[i].line);
		ck_assert_str_eq(diag.items[i].message, expected[i].text);
	}
	ck_assert_uint_eq(file->n_sets, 1);
	const struct gpm_metric_set *s = &file->sets[0];
	ck_assert_uint_eq(s->n_counters, 1);
	ck_assert_str_eq(s->counters[0].symbol_name, "Good");
	ck_assert_uint_eq(s->n_register_configs, 1);
	ck_assert_int_eq(s->register_configs[0].priority, -1);
	ck_assert_uint_eq(s->register_configs[0].n_registers, 1);
	ck_assert_uint_eq(s->register_configs[0].registers[0].address, 0x9888);
	ck_assert_uint_eq(s->register_configs[0].registers[0].value, 7);
	free_metric_text(file, &diag);
}
END_TEST

/* A file with no sets has no chipset; its platform comes from its name
 * when that is oa-<platform>.xml, and is empty otherwise. */
START_TEST(platform_of_a_file_without_sets)
{
	struct gpm_diagnostics diag;
	struct gpm_metrics_file *file;

	file = parse_metric_text("dir/oa-acm.xml", "<metrics/>", &diag);
	ck_assert_str_eq(file->chipset, "");
	ck_assert_str_eq(file->platform, "acm");
	free_metric_text(file, &diag);

	static const char *const unnamed[] = { "dir/metrics.xml", "oa-.xml",
					       "dir/oa-acm.txt" };
	for (size_t i = 0; i < 3; i++) {
		file = parse_metric_text(unnamed[i], "<metrics/>", &diag);
		ck_assert_uint_eq(diag.count, 0);
		ck_assert_str_eq(file->chipset, "");
		ck_assert_str_eq(file->platform, "");
		free_metric_text(file, &diag);
	}
}
END_TEST

/* "0x" with no digits after it is no number: a register at it is
 * refused with its config, a priority of it ignored. */
START_TEST(bare_hex_prefix_is_no_number)
{
	struct gpm_diagnostics diag;
	struct gpm_metrics_file *file = parse(
		"<metrics>\n"                                           /* 1 */
		SET_OPEN("S")                                           /* 2 */
		COUNTER("Good", "event", "uint64", "A 0 READ")          /* 3 */
		"<register_config type=\"NOA\" priority=\"0x\">\n"     /* 4 */
		"<register type=\"NOA\" address=\"0x9888\" value=\"1\"/>\n"
		"</register_config>\n"                                  /* 6 */
		"<register_config type=\"OA\">\n"                       /* 7 */
		"<register type=\"OA\" address=\"0x\" value=\"1\"/>\n"  /* 8 */
		"</register_config>\n"
		"</set>\n"
		"</metrics>\n", &diag);

	ck_assert_uint_eq(diag.count, 2);
	ck_assert_uint_eq(diag.items[0].line, 4);
	ck_assert_str_eq(diag.items[0].message, "set S, NOA register config: "
			 "priority '0x' is not a number; ignored");
	ck_assert_uint_eq(diag.items[1].line, 8);
	ck_assert_str_eq(diag.items[1].message, "set S, OA register config: "
			 "register needs 32-bit address and value attributes; "
			 "config ignored");
	ck_assert_uint_eq(file->n_sets, 1);
	ck_assert_uint_eq(file->sets[0].n_register_configs, 1);
	ck_assert_int_eq(file->sets[0].register_configs[0].priority, -1);
	ck_assert_uint_eq(file->sets[0].register_configs[0].registers[0].address,
			  0x9888);
	free_metric_text(file, &diag);
}
END_TEST

START_TEST(keeps_raw_counters)
{
	struct gpm_diagnostics diag;
	struct gpm_metrics_file *file = parse(
		"<metrics>\n"                                           /* 1 */
		SET_OPEN("S")                                           /* 2 */
		"<raw_counter slot=\"GPU_CLOCK 0\" name=\"clk.max\"/>\n" /* 3 */
		"<raw_counter slot=\"PEC 31\" name=\"b.sum\"/>\n"       /* 4 */
		"<raw_counter slot=\"PEC 31\" name=\"c.sum\"/>\n"       /* 5 */
		"<raw_counter slot=\"PEC 64\" name=\"d.sum\"/>\n"       /* 6 */
		"<raw_counter slot=\"GPU_TIME 0\" name=\"e\"/>\n"       /* 7 */
		"<raw_counter slot=\"PEC\" name=\"f\"/>\n"              /* 8 */
		"<raw_counter slot=\"A 1\"/>\n"                         /* 9 */
		COUNTER("Clocks", "event", "uint64", "GPU_CLOCK 0 READ") /* 10 */
		"</set>\n"
		SET_OPEN("T")
		COUNTER("A", "event", "uint64", "A 0 READ")
		"</set>\n"
		"</metrics>\n", &diag);

	static const unsigned bad_lines[] = { 5, 6, 7, 8, 9 };
	ck_assert_uint_eq(diag.count, sizeof(bad_lines) / sizeof(bad_lines[0]));
	for (size_t i = 0; i < diag.count; i++)
		ck_assert_uint_eq(diag.items[i].line, bad_lines[i]);
	ck_assert(strstr(diag.items[0].message, "slot PEC 31 already holds b.sum"));
	ck_assert_uint_eq(file->n_sets, 2);
	const struct gpm_metric_set *s = &file->sets[0];
	ck_assert_uint_eq(s->n_raw_counters, 2);
	ck_assert_str_eq(s->raw_counters[0].name, "clk.max");
	ck_assert_uint_eq(s->raw_counters[0].slot, GPM_ACC_GPU_CLOCK);
	ck_assert_uint_eq(s->raw_counters[0].line, 3);
	ck_assert_str_eq(s->raw_counters[1].name, "b.sum");
	ck_assert_uint_eq(s->raw_counters[1].slot, GPM_ACC_PEC + 31);
	ck_assert_uint_eq(s->n_counters, 1);
	ck_assert_uint_eq(file->sets[1].n_raw_counters, 0);
	free_metric_text(file, &diag);
}
END_TEST

START_TEST(loads_the_builtin_definitions)
{
	struct gpm_diagnostics diag;
	struct gpm_metrics_file *file;

	gpm_diagnostics_init(&diag);
	ck_assert_int_eq(gpm_metrics_file_parse(GPM_SIM_METRICS_NAME,
						gpm_sim_metrics_xml,
						gpm_sim_metrics_xml_size(),
						&diag, &file), 0);
	ck_assert_uint_eq(diag.count, 0);
	ck_assert_str_eq(file->platform, "simgen12");
	ck_assert_uint_gt(file->n_sets, 0);
	free_metric_text(file, &diag);
}
END_TEST

START_TEST(reports_unreadable_files)
{
	struct gpm_diagnostics diag;
	struct gpm_metrics_file *file;

	gpm_diagnostics_init(&diag);
	ck_assert_int_eq(gpm_metrics_file_load("/nonexistent/oa-x.xml", &diag,
					       &file), -ENOENT);
	ck_assert_int_eq(gpm_metrics_file_load("/", &diag, &file), -EISDIR);
	ck_assert_uint_eq(diag.count, 0);
	gpm_diagnostics_fini(&diag);
}
END_TEST

static Suite *metric_xml_suite(void)
{
	Suite *s = suite_create("metric_xml");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, loads_every_i915_file);
	tcase_add_test(tc, loads_every_xe_file);
	tcase_add_test(tc, keeps_the_attributes);
	tcase_add_test(tc, keeps_oa_format_and_priority);
	tcase_add_test(tc, maps_semantic_and_data_types);
	tcase_add_test(tc, malformed_xml_names_file_and_line);
	tcase_add_test(tc, truncated_and_empty_inputs);
	tcase_add_test(tc, rejects_other_documents);
	tcase_add_test(tc, skips_bad_definitions_and_keeps_the_rest);
	tcase_add_test(tc, misplaced_elements_named_with_their_line);
	tcase_add_test(tc, platform_of_a_file_without_sets);
	tcase_add_test(tc, bare_hex_prefix_is_no_number);
	tcase_add_test(tc, keeps_raw_counters);
	tcase_add_test(tc, loads_the_builtin_definitions);
	tcase_add_test(tc, reports_unreadable_files);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(metric_xml_suite)
