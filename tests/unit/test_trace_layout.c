/*
 * The tracks of a gpuperf trace as a reader sees them: what a
 * configuration's set track says its values cover, counter kinds and
 * units, and the hardware contexts past the ones with a track of their
 * own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/trace_layout.h"
#include "tests/unit/trace_read.h"

/* A trace with one configuration of two counters, one window written so
 * that its tracks are described; the set track's description. */
static void set_description(uint64_t window_ns, uint64_t period_ns,
			    char *out, size_t size)
{
	struct gpm_trace_writer w;
	struct gpm_trace_layout l;
	struct trace_sink s = { 0 };
	static const struct gpm_trace_counter_spec counters[] = {
		{ "GpuTime", "GPU Time", "Time elapsed on the GPU.", "ns",
		  GPM_TRACE_COUNTER_INT },
		{ "Ratio", "Ratio", "", "number", GPM_TRACE_COUNTER_DOUBLE },
	};

	ck_assert_int_eq(gpm_trace_writer_init(&w, 1, trace_sink_write, &s), 0);
	ck_assert_int_eq(gpm_trace_layout_init(&l, &w, "GPU", "the GPU"), 0);
	ck_assert_int_eq(gpm_trace_layout_set(&l, "Render Basic", "RenderBasic",
					      "guid-1", window_ns, period_ns,
					      counters, 2), 0);
	ck_assert_int_eq(gpm_trace_clock_snapshot(&w, 0, 0, false, 0), 0);
	union gpm_trace_value v[2] = { { .i = 5 }, { .d = 0.5 } };
	ck_assert_int_eq(gpm_trace_window(&w, 10, 1, v), 0);
	ck_assert_int_eq(gpm_trace_flush(&w), 0);

	struct trace_read *tracks = trace_read(&s);
	const struct trace_track *set = trace_track(tracks, l.set);
	ck_assert_str_eq(set->name, "Render Basic");
	ck_assert_uint_eq(set->parent, l.device);
	snprintf(out, size, "%s", set->description);
	/* The counters' descriptions say the same of one value. */
	const struct trace_track *reports = trace_track(tracks, l.reports);
	ck_assert_uint_eq(reports->parent, l.set);
	ck_assert_ptr_nonnull(strstr(reports->description,
				     strstr(out, "per ")));
	trace_read_free(tracks);
	gpm_trace_writer_fini(&w);
	free(s.bytes);
}

START_TEST(set_track_says_what_a_value_covers)
{
	static const struct {
		uint64_t window_ns, period_ns;
		const char *text;
	} cases[] = {
		{ 1500000000, 500, "Metric set RenderBasic (guid-1), sampled "
		  "every 500 ns; values per window of 1.5 s." },
		{ 2000000000, 1000000, "Metric set RenderBasic (guid-1), sampled "
		  "every 1 ms; values per window of 2 s." },
		{ 10000000, 83333, "Metric set RenderBasic (guid-1), sampled "
		  "every 83.333 us; values per window of 10 ms." },
		{ 1001000000, 1500, "Metric set RenderBasic (guid-1), sampled "
		  "every 1.5 us; values per window of 1.001 s." },
		{ 0, 0, "Metric set RenderBasic (guid-1); values per marked "
		  "window." },
		{ 999, 0, "Metric set RenderBasic (guid-1); values per window "
		  "of 999 ns." },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[512];
		set_description(cases[i].window_ns, cases[i].period_ns, text,
				sizeof(text));
		ck_assert_str_eq(text, cases[i].text);
	}
}
END_TEST

START_TEST(counter_kinds_and_units_from_the_xml)
{
	ck_assert_int_eq(gpm_trace_kind_of(GPM_DATA_UINT64), GPM_TRACE_COUNTER_INT);
	ck_assert_int_eq(gpm_trace_kind_of(GPM_DATA_UINT32), GPM_TRACE_COUNTER_INT);
	ck_assert_int_eq(gpm_trace_kind_of(GPM_DATA_BOOL32), GPM_TRACE_COUNTER_INT);
	ck_assert_int_eq(gpm_trace_kind_of(GPM_DATA_FLOAT), GPM_TRACE_COUNTER_FLOAT);
	ck_assert_int_eq(gpm_trace_kind_of(GPM_DATA_DOUBLE),
			 GPM_TRACE_COUNTER_DOUBLE);

	/* A plain number has no unit to show; time and sizes are
	 * Perfetto's own; anything else is shown by its name. */
	static const char *const unitless[] = { NULL, "", "number" };
	for (size_t i = 0; i < 3; i++) {
		struct gpm_trace_unit u = gpm_trace_unit_from_xml(unitless[i]);
		ck_assert_int_eq(u.kind, GPM_TRACE_UNIT_NAMED);
		ck_assert_ptr_null(u.name);
	}
	ck_assert_int_eq(gpm_trace_unit_from_xml("ns").kind,
			 GPM_TRACE_UNIT_TIME_NS);
	ck_assert_int_eq(gpm_trace_unit_from_xml("bytes").kind,
			 GPM_TRACE_UNIT_BYTES);
	struct gpm_trace_unit percent = gpm_trace_unit_from_xml("percent");
	ck_assert_int_eq(percent.kind, GPM_TRACE_UNIT_NAMED);
	ck_assert_str_eq(percent.name, "percent");
}
END_TEST

/* The first GPM_TRACE_LAYOUT_MAX_CONTEXTS contexts each have a track of
 * their own under "GPU contexts"; the ones after share one, "other
 * contexts", beside them; a context seen again keeps its track. */
START_TEST(contexts_past_the_limit_share_a_track)
{
	struct gpm_trace_writer w;
	struct gpm_trace_layout l;
	struct trace_sink s = { 0 };
	enum { N = GPM_TRACE_LAYOUT_MAX_CONTEXTS };
	static uint64_t own[N];

	ck_assert_int_eq(gpm_trace_writer_init(&w, 2, trace_sink_write, &s), 0);
	ck_assert_int_eq(gpm_trace_layout_init(&l, &w, "GPU", "the GPU"), 0);
	ck_assert_int_eq(gpm_trace_clock_snapshot(&w, 0, 0, false, 0), 0);
	for (uint32_t i = 0; i < N; i++) {
		own[i] = gpm_trace_layout_context(&l, 0x100 + i);
		ck_assert_uint_ne(own[i], 0);
		for (uint32_t k = 0; k < i; k++)
			ck_assert_uint_ne(own[k], own[i]);
	}
	uint64_t other = gpm_trace_layout_context(&l, 0x5000);
	ck_assert_uint_ne(other, 0);
	for (uint32_t k = 0; k < N; k++)
		ck_assert_uint_ne(own[k], other);
	ck_assert_uint_eq(gpm_trace_layout_context(&l, 0x5001), other);
	ck_assert_uint_eq(gpm_trace_layout_context(&l, 0x100), own[0]);
	ck_assert_uint_eq(gpm_trace_layout_context(&l, 0x100 + N - 1),
			  own[N - 1]);

	ck_assert_int_eq(gpm_trace_slice_begin(&w, own[N - 1], 1,
					       "context 0x1ff", NULL, 0), 0);
	ck_assert_int_eq(gpm_trace_slice_begin(&w, other, 2, "context 0x5000",
					       NULL, 0), 0);
	ck_assert_int_eq(gpm_trace_flush(&w), 0);
	struct trace_read *tracks = trace_read(&s);
	const struct trace_track *last = trace_track(tracks, own[N - 1]);
	const struct trace_track *shared = trace_track(tracks, other);
	ck_assert_str_eq(last->name, "context 0x1ff");
	ck_assert_str_eq(shared->name, "other contexts");
	ck_assert_str_eq(shared->description,
			 "Contexts past the first 256, together.");
	ck_assert_uint_eq(shared->parent, last->parent);
	ck_assert_str_eq(trace_track(tracks, shared->parent)->name, "GPU contexts");
	trace_read_free(tracks);
	gpm_trace_writer_fini(&w);
	free(s.bytes);
}
END_TEST

static Suite *trace_layout_suite(void)
{
	Suite *s = suite_create("trace_layout");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, set_track_says_what_a_value_covers);
	tcase_add_test(tc, counter_kinds_and_units_from_the_xml);
	tcase_add_test(tc, contexts_past_the_limit_share_a_track);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(trace_layout_suite)
