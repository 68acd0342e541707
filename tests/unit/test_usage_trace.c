/*
 * Usage frames as trace tracks, read back as a reader sees them: values
 * on tracks named by their NDJSON keys, the daemon's gauges, notes and
 * dropped frames as instants, processes past the limit summed, a process
 * that leaves zeroed once, and a writer out of tracks refusing.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/usage_trace.h"
#include "tests/unit/test_util.h"
#include "tests/unit/trace_read.h"

#define S 1000000000ull

struct fixture {
	struct gpm_trace_writer w;
	struct trace_sink sink;
	struct gpm_usage_trace t;
	struct trace_read *r;           /* after read_back() */
};

static void setup(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	ck_assert_int_eq(gpm_trace_writer_init(&f->w, 7, trace_sink_write,
					       &f->sink), 0);
	uint64_t device = gpm_trace_track(&f->w, 0, "GPU", "the GPU", 0);
	ck_assert_uint_ne(device, 0);
	ck_assert_int_eq(gpm_trace_cpu_clock_snapshot(&f->w, 0, false, 0), 0);
	gpm_usage_trace_init(&f->t, &f->w, device);
}

static void read_back(struct fixture *f)
{
	ck_assert_int_eq(gpm_trace_flush(&f->w), 0);
	f->r = trace_read(&f->sink);
}

static void teardown(struct fixture *f)
{
	if (f->r)
		trace_read_free(f->r);
	gpm_usage_trace_fini(&f->t);
	gpm_trace_writer_fini(&f->w);
	free(f->sink.bytes);
}

/* A frame of the interval [s, s + 1) seconds, nothing measured. */
static struct gpm_usage_trace_frame frame_at(uint64_t s)
{
	return (struct gpm_usage_trace_frame){
		.start_ns = s * S, .end_ns = (s + 1) * S,
		.actual_frequency_hz = NAN, .requested_frequency_hz = NAN,
		.min_frequency_hz = NAN, .max_frequency_hz = NAN,
		.rc6 = NAN, .power_watts = NAN, .energy_joules = NAN,
		.temperature_celsius = NAN,
	};
}

/* The values on key's track, in order; their count. */
static size_t values_of(const struct fixture *f, const char *key,
			const struct trace_event **out, size_t max)
{
	const struct trace_track *k = trace_track_of_key(f->r, key);
	ck_assert_msg(k, "no track for %s", key);
	size_t n = 0;
	for (size_t i = 0; i < f->r->n_events; i++) {
		const struct trace_event *e = &f->r->events[i];
		if (e->track != k->uuid)
			continue;
		ck_assert(e->has_value);
		if (n < max)
			out[n] = e;
		n++;
	}
	return n;
}

static double double_of(const struct fixture *f, const char *key)
{
	const struct trace_event *e;
	ck_assert_uint_eq(values_of(f, key, &e, 1), 1);
	ck_assert(e->is_double);
	return e->d;
}

static int64_t int_of(const struct fixture *f, const char *key)
{
	const struct trace_event *e;
	ck_assert_uint_eq(values_of(f, key, &e, 1), 1);
	ck_assert(!e->is_double);
	return e->i;
}

/* The daemon's gauges each on a track of their own, named by the gauge
 * and keyed gauges.<name>_<unit>; bytes in Perfetto's own unit, others by
 * their unit's name. What is not measured has no track. */
START_TEST(gauges_and_device_values_on_keyed_tracks)
{
	struct fixture f;
	static const struct gpm_usage_trace_gauge gauges[] = {
		{ "pcie_tx", "bytes_per_second", 1.5e9 },
		{ "heap", "bytes", 4096 },
		{ "lost", "frames", NAN },
	};
	static const struct gpm_usage_trace_engine engines[] = {
		{ "rcs0", "render", 0.5, 0.25, 0 },
	};

	setup(&f);
	struct gpm_usage_trace_frame fr = frame_at(10);
	fr.end_ns = 10 * S + 250000000;
	fr.actual_frequency_hz = 1.2e9;
	fr.n_gauges = 3;
	fr.gauges = gauges;
	fr.n_engines = 1;
	fr.engines = engines;
	ck_assert_int_eq(gpm_usage_trace_frame(&f.t, &fr), 0);
	read_back(&f);

	ck_assert_int_eq(int_of(&f, "duration_ns"), 250000000);
	ck_assert_double_eq(double_of(&f, "actual_frequency_hertz"), 1.2e9);
	ck_assert_double_eq(double_of(&f, "engines[rcs0].busy_ratio"), 0.5);
	ck_assert_ptr_null(trace_track_of_key(f.r, "rc6_ratio"));

	ck_assert_double_eq(double_of(&f, "gauges.pcie_tx_bytes_per_second"),
			    1.5e9);
	const struct trace_track *tx =
		trace_track_of_key(f.r, "gauges.pcie_tx_bytes_per_second");
	ck_assert_str_eq(tx->name, "pcie_tx");
	ck_assert_str_eq(tx->description, "gauges.pcie_tx_bytes_per_second: a "
			 "gauge of the daemon's");
	ck_assert_str_eq(tx->unit_name, "bytes_per_second");
	ck_assert_double_eq(double_of(&f, "gauges.heap_bytes"), 4096);
	ck_assert_str_eq(trace_track_of_key(f.r, "gauges.heap_bytes")->unit_name,
			 "");
	ck_assert_ptr_null(trace_track_of_key(f.r, "gauges.lost_frames"));
	teardown(&f);
}
END_TEST

/* A frame without the process list (not asked for, or not visible)
 * says nothing of the processes: the ones known keep their values, no
 * zeros. A device without engines has no engines track. */
START_TEST(frame_without_process_list_keeps_processes)
{
	struct fixture f;
	static const struct gpm_usage_trace_process proc = {
		.pid = 10, .ppid = 1, .command = "app", .gpu_time_ns = 100,
		.memory_bytes = 4096, .resident_bytes = 2048,
	};
	const struct trace_event *e[4];

	setup(&f);
	for (uint64_t i = 0; i < 3; i++) {
		struct gpm_usage_trace_frame fr = frame_at(i);
		fr.rc6 = 0.75;
		fr.processes_included = i != 1;
		fr.n_processes = i != 1;
		fr.processes = &proc;
		ck_assert_int_eq(gpm_usage_trace_frame(&f.t, &fr), 0);
	}
	read_back(&f);
	ck_assert_uint_eq(values_of(&f, "rc6_ratio", e, 4), 3);
	ck_assert_uint_eq(values_of(&f, "processes[10].memory_bytes", e, 4), 2);
	ck_assert_uint_eq(e[0]->ts, 0);
	ck_assert_uint_eq(e[1]->ts, 2 * S);
	ck_assert_int_eq(e[1]->i, 4096);
	for (size_t i = 0; i < f.r->n_tracks; i++)
		ck_assert_str_ne(f.r->tracks[i].name, "engines");
	teardown(&f);
}
END_TEST

/* A note is an instant when it changes, not every frame; its clearing is
 * one too. Dropped frames are an instant with their count. */
START_TEST(notes_when_they_change_and_drops_counted)
{
	struct fixture f;
	static const char *const notes[] = {
		NULL, "no power meter", "no power meter",
		"no power meter; no RC6", NULL, NULL,
	};
	const struct trace_event *e[8];

	setup(&f);
	for (uint64_t i = 0; i < 6; i++) {
		struct gpm_usage_trace_frame fr = frame_at(i);
		fr.note = notes[i];
		fr.frames_dropped = i == 3 ? 5 : 0;
		if (i == 2) {
			fr.processes_note = "2 processes unreadable";
			fr.processes_unreadable = 2;
		}
		ck_assert_int_eq(gpm_usage_trace_frame(&f.t, &fr), 0);
	}
	read_back(&f);

	ck_assert_uint_eq(trace_events_named(f.r, "usage note", e, 8), 3);
	ck_assert_uint_eq(e[0]->ts, 1 * S);
	ck_assert_str_eq(e[0]->args[0].name, "note");
	ck_assert_str_eq(e[0]->args[0].s, "no power meter");
	ck_assert_uint_eq(e[1]->ts, 3 * S);
	ck_assert_str_eq(e[1]->args[0].s, "no power meter; no RC6");
	ck_assert_uint_eq(e[2]->ts, 4 * S);
	ck_assert_str_eq(e[2]->args[0].s, "");
	for (size_t i = 0; i < 3; i++)
		ck_assert_uint_eq(e[i]->n_args, 1);

	ck_assert_uint_eq(trace_events_named(f.r, "processes note", e, 8), 2);
	ck_assert_uint_eq(e[0]->ts, 2 * S);
	ck_assert_str_eq(e[0]->args[0].s, "2 processes unreadable");
	ck_assert_str_eq(e[0]->args[1].name, "processes_unreadable");
	ck_assert_uint_eq(e[0]->args[1].u, 2);
	ck_assert_uint_eq(e[1]->ts, 3 * S);
	ck_assert_str_eq(e[1]->args[0].s, "");

	ck_assert_uint_eq(trace_events_named(f.r, "usage frames dropped", e, 8),
			  1);
	ck_assert_uint_eq(e[0]->ts, 3 * S);
	ck_assert_str_eq(e[0]->args[0].name, "count");
	ck_assert_uint_eq(e[0]->args[0].u, 5);
	teardown(&f);
}
END_TEST

#define N_NAMED (GPM_USAGE_TRACE_MAX_PROCESSES + 2)

/* Past the first GPM_USAGE_TRACE_MAX_PROCESSES, processes are summed on
 * one "other processes" track, with those the daemon does not name. */
START_TEST(processes_past_the_limit_summed)
{
	struct fixture f;
	static const char *const classes[] = { "render", "video" };
	static struct gpm_usage_trace_process procs[N_NAMED + 1];
	static const double busy[2] = { 0.25, 0.125 };

	setup(&f);
	for (uint32_t i = 0; i <= N_NAMED; i++)
		procs[i] = (struct gpm_usage_trace_process){
			.pid = i < N_NAMED ? 100 + i : 0, .ppid = 1,
			.command = "worker", .n_class_busy = 2,
			.class_busy = busy, .gpu_time_ns = 1000 + i,
			.memory_bytes = 4096, .resident_bytes = 1024,
		};
	struct gpm_usage_trace_frame fr = frame_at(1);
	fr.n_engine_classes = 2;
	fr.engine_classes = classes;
	fr.processes_included = true;
	fr.n_processes = N_NAMED + 1;
	fr.processes = procs;
	ck_assert_int_eq(gpm_usage_trace_frame(&f.t, &fr), 0);
	read_back(&f);

	char key[64];
	snprintf(key, sizeof(key), "processes[%u].gpu_time_ns",
		 100 + GPM_USAGE_TRACE_MAX_PROCESSES - 1);
	ck_assert_int_eq(int_of(&f, key),
			 1000 + GPM_USAGE_TRACE_MAX_PROCESSES - 1);
	snprintf(key, sizeof(key), "processes[%u].gpu_time_ns",
		 100 + GPM_USAGE_TRACE_MAX_PROCESSES);
	ck_assert_ptr_null(trace_track_of_key(f.r, key));

	/* The two past the limit and the unnamed one. */
	ck_assert_int_eq(int_of(&f, "processes[other].gpu_time_ns"),
			 procs[N_NAMED - 2].gpu_time_ns +
			 procs[N_NAMED - 1].gpu_time_ns +
			 procs[N_NAMED].gpu_time_ns);
	ck_assert_int_eq(int_of(&f, "processes[other].memory_bytes"), 3 * 4096);
	ck_assert_int_eq(int_of(&f, "processes[other].resident_bytes"),
			 3 * 1024);
	ck_assert_double_eq(double_of(&f, "processes[other].busy_ratio.render"),
			    0.75);
	ck_assert_double_eq(double_of(&f, "processes[other].busy_ratio.video"),
			    0.375);
	const struct trace_track *gpu =
		trace_track_of_key(f.r, "processes[other].gpu_time_ns");
	const struct trace_track *other = trace_track(f.r, gpu->parent);
	ck_assert_str_eq(other->name, "other processes");
	ck_assert_str_eq(trace_track(f.r, other->parent)->name, "processes");
	teardown(&f);
}
END_TEST

/* A process gone from the list gets zeros on all its tracks once, at the
 * first frame without it, and nothing after; back, it has values again. */
START_TEST(gone_process_zeroed_once)
{
	struct fixture f;
	static const char *const classes[] = { "render" };
	static const double busy[1] = { 0.5 };
	static const struct gpm_usage_trace_process procs[] = {
		{ 10, 1, "stays", 1, busy, 100, 4096, 2048 },
		{ 20, 1, "leaves", 1, busy, 200, 8192, 512 },
	};
	static const size_t listed[] = { 2, 1, 1, 2 };
	const struct trace_event *e[8];

	setup(&f);
	for (uint64_t i = 0; i < 4; i++) {
		struct gpm_usage_trace_frame fr = frame_at(i);
		fr.n_engine_classes = 1;
		fr.engine_classes = classes;
		fr.processes_included = true;
		fr.n_processes = listed[i];
		fr.processes = procs;
		ck_assert_int_eq(gpm_usage_trace_frame(&f.t, &fr), 0);
	}
	read_back(&f);

	static const char *const keys[] = {
		"processes[20].gpu_time_ns", "processes[20].busy_ratio.render",
		"processes[20].memory_bytes", "processes[20].resident_bytes",
	};
	for (size_t k = 0; k < 4; k++) {
		ck_assert_uint_eq(values_of(&f, keys[k], e, 8), 3);
		ck_assert_uint_eq(e[0]->ts, 0);
		ck_assert_uint_eq(e[1]->ts, 1 * S);
		ck_assert_uint_eq(e[2]->ts, 3 * S);
		ck_assert_msg(e[1]->is_double ? e[1]->d == 0 : e[1]->i == 0,
			      "%s not zeroed", keys[k]);
		ck_assert_msg(e[2]->is_double ? e[2]->d != 0 : e[2]->i != 0,
			      "%s not back", keys[k]);
	}
	ck_assert_uint_eq(values_of(&f, "processes[10].memory_bytes", e, 8), 4);
	ck_assert_int_eq(e[1]->i, 4096);
	teardown(&f);
}
END_TEST

/* A writer out of tracks: the frame is refused with -ENOSPC. */
START_TEST(out_of_tracks_refused)
{
	struct fixture f;
	struct gpm_usage_trace_frame fr = frame_at(1);

	setup(&f);
	/* Room for the usage track alone, not for its interval's. */
	while (f.w.n_tracks < GPM_TRACE_MAX_TRACKS - 1)
		ck_assert_uint_ne(gpm_trace_track(&f.w, 0, "filler", "", 0), 0);
	ck_assert_int_eq(gpm_usage_trace_frame(&f.t, &fr), -ENOSPC);
	/* and none for the usage track. */
	gpm_usage_trace_fini(&f.t);
	gpm_usage_trace_init(&f.t, &f.w, 0);
	ck_assert_int_eq(gpm_usage_trace_frame(&f.t, &fr), -ENOSPC);
	ck_assert_int_eq(gpm_usage_trace_none(&f.t, 0, "no usage stream"),
			 -ENOSPC);
	teardown(&f);
}
END_TEST

static Suite *usage_trace_suite(void)
{
	Suite *s = suite_create("usage_trace");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, gauges_and_device_values_on_keyed_tracks);
	tcase_add_test(tc, frame_without_process_list_keeps_processes);
	tcase_add_test(tc, notes_when_they_change_and_drops_counted);
	tcase_add_test(tc, processes_past_the_limit_summed);
	tcase_add_test(tc, gone_process_zeroed_once);
	tcase_add_test(tc, out_of_tracks_refused);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(usage_trace_suite)
