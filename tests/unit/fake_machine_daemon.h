/*
 * The daemon on a fake machine (fake_machine.h), run on a loop of its own
 * for a while at a time, and a subscriber that collects what it gets:
 * what the i915 and xe source suites share.
 */
#ifndef GPM_TEST_FAKE_MACHINE_DAEMON_H
#define GPM_TEST_FAKE_MACHINE_DAEMON_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/subscription_internal.h"
#include "tests/unit/fake_machine.h"
#include "tests/unit/test_util.h"

struct fixture {
	uv_loop_t loop;
	struct gpd_daemon daemon;
	uv_timer_t deadline;
	struct fake_machine machine;
	char metrics[PATH_MAX];
};

static inline void fixture_on_deadline(uv_timer_t *t)
{
	uv_stop(t->loop);
}

/* The daemon serving spec on the fixture's machine, with its metrics. */
static inline void fixture_daemon(struct fixture *fx, const char *spec,
				  uint64_t seed)
{
	const char *devices[] = { spec };
	const char *dirs[] = { fx->metrics };
	struct gpd_options opts = {
		.device_specs = devices,
		.n_device_specs = 1,
		.metrics_dirs = dirs,
		.n_metrics_dirs = 1,
		.seed = seed,
		.dev_root = fx->machine.dev_root,
		.sysfs_root = fx->machine.sysfs_root,
	};
	struct gpd_error err = { 0 };
	gpd_log_set_level(GPD_LOG_ERROR);
	uv_loop_init(&fx->loop);
	ck_assert_msg(gpd_daemon_init(&fx->daemon, &fx->loop, &opts, &err) == 0,
		      "%s", err.message);
	uv_timer_init(&fx->loop, &fx->deadline);
}

/* A machine with one GPU of platform ("tglgt2") driven by driver ("i915",
 * "xe"), the metric files of shared/intel-metrics/metrics ("i915", "xe"),
 * the metric sets boot_sets registered, and the daemon on it. */
static inline void fixture_start_with(struct fixture *fx, const char *driver,
				      const char *platform, const char *metrics,
				      const char *boot_sets)
{
	char rel[64], cards[32], spec[160];

	snprintf(rel, sizeof(rel), "intel-metrics/%s", metrics);
	snprintf(cards, sizeof(cards), "%s:%s", driver, platform);
	test_shared_path(fx->metrics, sizeof(fx->metrics), rel);
	fake_machine_start(&fx->machine, cards, fx->metrics, boot_sets);
	snprintf(spec, sizeof(spec), "%s:%s", driver, fx->machine.node);
	fixture_daemon(fx, spec, 1);
}

/* The same with the driver's own metric files. */
static inline void fixture_start_on(struct fixture *fx, const char *driver,
				    const char *platform, const char *boot_sets)
{
	fixture_start_with(fx, driver, platform, driver, boot_sets);
}

/* The same with a Tiger Lake. */
static inline void fixture_start(struct fixture *fx, const char *driver,
				 const char *boot_sets)
{
	fixture_start_on(fx, driver, "tglgt2", boot_sets);
}

static inline void fixture_run(struct fixture *fx, unsigned ms)
{
	/* Loading the metric files took a while since the loop last looked
	 * at the clock. */
	uv_update_time(&fx->loop);
	uv_timer_start(&fx->deadline, fixture_on_deadline, ms, 0);
	uv_run(&fx->loop, UV_RUN_DEFAULT);
	uv_timer_stop(&fx->deadline);
}

static inline void fixture_stop(struct fixture *fx)
{
	uv_close((uv_handle_t *)&fx->deadline, NULL);
	gpd_daemon_stop(&fx->daemon);
	uv_run(&fx->loop, UV_RUN_DEFAULT);
	gpd_daemon_fini(&fx->daemon);
	ck_assert_int_eq(uv_loop_close(&fx->loop), 0);
}

#define COLLECTOR_FRAMES 64
#define COLLECTOR_VALUES 128
#define COLLECTOR_EVENTS 16

/* A subscriber keeping its first frames and every event; it stops the
 * loop after stop_after frames (0: never), or at stop_event when
 * stop_on_event is set. */
struct collector {
	struct gpd_daemon *daemon;
	struct gpd_subscription *sub;
	unsigned frames;
	unsigned stop_after;
	uint32_t reports[COLLECTOR_FRAMES];
	uint64_t gpu_start[COLLECTOR_FRAMES], gpu_end[COLLECTOR_FRAMES];
	uint64_t cpu_start[COLLECTOR_FRAMES], cpu_end[COLLECTOR_FRAMES];
	size_t n_values;
	struct gpm_value values[COLLECTOR_FRAMES][COLLECTOR_VALUES];
	uint64_t lost_reports, buffers_lost;
	unsigned frames_after_loss;     /* with reports, after a lost buffer */
	/* The longest GPU time a frame with reports spanned. */
	uint64_t longest_span_ns;
	const char *last_set;           /* the device's set at the last frame */
	const char *set[COLLECTOR_FRAMES];      /* and at each kept one */
	enum gpd_event_kind events[COLLECTOR_EVENTS];
	char messages[COLLECTOR_EVENTS][256];
	unsigned n_events;
	bool stop_on_event;
	enum gpd_event_kind stop_event;
};

static inline void collector_on_frame(void *user, const struct gpd_frame *f)
{
	struct collector *c = user;
	if (c->frames < COLLECTOR_FRAMES) {
		c->reports[c->frames] = f->reports;
		c->gpu_start[c->frames] = f->gpu_start_ns;
		c->gpu_end[c->frames] = f->gpu_end_ns;
		c->cpu_start[c->frames] = f->cpu_start_ns;
		c->cpu_end[c->frames] = f->cpu_end_ns;
		c->set[c->frames] = c->sub->device->set->symbol_name;
		c->n_values = f->n_values < COLLECTOR_VALUES ? f->n_values
							     : COLLECTOR_VALUES;
		memcpy(c->values[c->frames], f->values,
		       c->n_values * sizeof(*f->values));
	}
	if (c->buffers_lost && f->reports)
		c->frames_after_loss++;
	if (f->reports && f->gpu_end_ns - f->gpu_start_ns > c->longest_span_ns)
		c->longest_span_ns = f->gpu_end_ns - f->gpu_start_ns;
	c->lost_reports += f->lost_reports;
	c->buffers_lost += f->buffer_lost;
	c->last_set = c->sub->device->set->symbol_name;
	c->frames++;
	if (c->stop_after && c->frames >= c->stop_after)
		uv_stop(c->daemon->loop);
}

static inline void collector_on_event(void *user, const struct gpd_event *ev)
{
	struct collector *c = user;
	if (c->n_events < COLLECTOR_EVENTS) {
		c->events[c->n_events] = ev->kind;
		snprintf(c->messages[c->n_events], sizeof(c->messages[0]), "%s",
			 ev->message);
		c->n_events++;
	}
	if (c->stop_on_event && ev->kind == c->stop_event)
		uv_stop(c->daemon->loop);
}

/* Whether c got an event of kind whose words hold text. */
static inline bool collector_saw(const struct collector *c,
				 enum gpd_event_kind kind, const char *text)
{
	for (unsigned i = 0; i < c->n_events; i++)
		if (c->events[i] == kind && strstr(c->messages[i], text))
			return true;
	return false;
}

static const struct gpd_subscriber_ops collector_ops = {
	.frame = collector_on_frame,
	.event = collector_on_event,
};

/* c subscribes, as a controller, to set in 10 ms windows. */
static inline int fixture_subscribe(struct fixture *fx, struct collector *c,
				    const char *set, uint64_t period_ns,
				    struct gpd_error *err)
{
	struct gpd_subscribe_request req = {
		.metric_set = set,
		.sampling_period_ns = period_ns,
		.window_ns = 10000000,
		.role = GPD_ROLE_CONTROLLER,
	};
	c->daemon = &fx->daemon;
	return gpd_subscribe(&fx->daemon.registry, &req, &collector_ops, c,
			     &c->sub, err);
}

/* fixture_subscribe, which must succeed. */
static inline void fixture_subscribe_ok(struct fixture *fx, struct collector *c,
					const char *set, uint64_t period_ns)
{
	struct gpd_error err = { 0 };
	ck_assert_msg(fixture_subscribe(fx, c, set, period_ns, &err) == 0,
		      "%s", err.message);
}

/* c subscribes, as a controller, to set's GpuTime every ms in 10 ms
 * windows, and the loop runs until its third frame. 0, or the refusal. */
static inline int fixture_stream_gpu_time(struct fixture *fx, struct collector *c,
					  const char *set, struct gpd_error *err)
{
	const char *gpu_time[] = { "GpuTime" };
	struct gpd_subscribe_request req = {
		.metric_set = set,
		.sampling_period_ns = 1000000,
		.window_ns = 10000000,
		.counters = gpu_time,
		.n_counters = 1,
		.role = GPD_ROLE_CONTROLLER,
	};
	c->daemon = &fx->daemon;
	c->stop_after = 3;
	int ret = gpd_subscribe(&fx->daemon.registry, &req, &collector_ops, c,
				&c->sub, err);
	if (!ret)
		fixture_run(fx, 5000);
	return ret;
}

/* The GpuTime of c's second frame covers its span, within a period. */
static inline void fixture_gpu_time_covers_the_window(const struct collector *c)
{
	uint64_t span = c->gpu_end[1] - c->gpu_start[1];
	ck_assert_msg(c->values[1][0].u + 1000000 >= span &&
		      c->values[1][0].u <= span + 1000000,
		      "GpuTime %llu ns over %llu ns",
		      (unsigned long long)c->values[1][0].u,
		      (unsigned long long)span);
}

/* c streams RenderBasic every ms until its second frame. */
static inline void fixture_stream(struct fixture *fx, struct collector *c)
{
	c->stop_after = 2;
	fixture_subscribe_ok(fx, c, "RenderBasic", 1000000);
	fixture_run(fx, 5000);
	ck_assert_uint_ge(c->frames, 2);
}

/* Ends c's subscription, the daemon and the machine. */
static inline void fixture_finish(struct fixture *fx, struct collector *c)
{
	gpd_unsubscribe(c->sub);
	fixture_stop(fx);
	fake_machine_stop(&fx->machine);
}

/* RenderBasic every 0.1 ms through driver's source on the fake kernel
 * gives the frames the sim source gives: the fake kernel runs the same
 * model, with the same device, seed and start. */
static inline void fixture_check_frames_equal_the_sim_source(const char *driver)
{
	struct fixture fx;
	struct collector *kernel = calloc(1, sizeof(*kernel));
	struct collector *sim = calloc(1, sizeof(*sim));
	kernel->stop_after = sim->stop_after = COLLECTOR_FRAMES;

	fixture_start(&fx, driver, "");
	fixture_subscribe_ok(&fx, kernel, "RenderBasic", 100000);
	fixture_run(&fx, 5000);
	gpd_unsubscribe(kernel->sub);
	fixture_stop(&fx);

	fixture_daemon(&fx, "sim:tglgt2", 1);
	fixture_subscribe_ok(&fx, sim, "RenderBasic", 100000);
	fixture_run(&fx, 5000);
	fixture_finish(&fx, sim);

	ck_assert_uint_ge(kernel->frames, COLLECTOR_FRAMES);
	ck_assert_uint_ge(sim->frames, COLLECTOR_FRAMES);
	ck_assert_uint_gt(kernel->n_values, 10);
	ck_assert_uint_eq(kernel->n_values, sim->n_values);
	for (unsigned f = 0; f < COLLECTOR_FRAMES; f++) {
		ck_assert_uint_gt(kernel->reports[f], 0);
		ck_assert_uint_eq(kernel->reports[f], sim->reports[f]);
		ck_assert_uint_eq(kernel->gpu_start[f], sim->gpu_start[f]);
		ck_assert_uint_eq(kernel->gpu_end[f], sim->gpu_end[f]);
		for (size_t i = 0; i < kernel->n_values; i++) {
			struct gpm_value a = kernel->values[f][i];
			struct gpm_value b = sim->values[f][i];
			ck_assert_msg(a.type == b.type && a.u == b.u,
				      "frame %u value %zu: %g through %s, %g "
				      "through sim", f, i, gpm_value_as_double(a),
				      driver, gpm_value_as_double(b));
		}
	}
	free(kernel);
	free(sim);
}

/* c, subscribed here at a 27 us period (the 16 MiB buffer holds 1.7 s),
 * counts the reports the kernel loses (2% of them); then, after
 * between(fx) if given, a 2.5 s stall loses the buffer, and frames go on
 * after it. No frame spans the gap: i915 resets its buffer at the
 * overflow, xe hands out what the full buffer held first, and the lost
 * buffer is told where the reports stop. The device counted at least what
 * c's frames told. */
static inline void fixture_check_loss(struct fixture *fx, struct collector *c,
				      void (*between)(struct fixture *fx))
{
	fake_machine_control(&fx->machine, "report_loss=0.02\n");
	c->stop_after = 5;
	fixture_subscribe_ok(fx, c, "RenderBasic", 30000);
	fixture_run(fx, 5000);
	ck_assert_uint_gt(c->lost_reports, 0);
	if (between)
		between(fx);
	fake_machine_control(&fx->machine, "stall_ms=2500\n");
	/* xe's 1.7 s of buffered reports come before the gap: some 170
	 * frames, then the gap, then frames at the pace of the GPU. */
	c->stop_after = c->frames + 250;
	fixture_run(fx, 10000);
	ck_assert_uint_gt(c->buffers_lost, 0);
	ck_assert_uint_gt(c->frames_after_loss, 0);
	/* A window is 10 ms of GPU time; a frame across the 0.8 s the
	 * buffer could not hold would be far longer. */
	ck_assert_msg(c->longest_span_ns < 20000000,
		      "a frame spans %llu ns of GPU time",
		      (unsigned long long)c->longest_span_ns);
	const struct gpd_device *dev = gpd_daemon_find_device(&fx->daemon, NULL);
	/* The open window may hold loss not yet in a frame. */
	ck_assert_uint_ge(dev->stats.reports_lost, c->lost_reports);
	ck_assert_uint_ge(dev->stats.buffers_lost, c->buffers_lost);
}

#endif
