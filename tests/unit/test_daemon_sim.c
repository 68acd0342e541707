/*
 * The daemon core on the sim device, driven through the internal
 * subscription API on a real loop: windows, bounds, contexts,
 * reconfiguration, arbitration between roles, and loss.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <uv.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/recorder.h"
#include "daemon/sim/sim_source.h"
#include "daemon/subscription_internal.h"
#include "metrics/little_endian.h"
#include "metrics/metric_binding.h"
#include "metrics/oa_record.h"
#include "metrics/recording.h"
#include "tests/unit/test_util.h"

struct collector {
	struct gpd_daemon *daemon;
	struct gpd_subscription *sub;
	unsigned frames;
	unsigned events;
	enum gpd_event_kind last_event;
	uint64_t min_ns, max_ns;        /* window lengths seen (GPU time) */
	unsigned out_of_bounds;
	unsigned checked_values;
	uint64_t reports;
	uint64_t buffers_lost;
	uint64_t reports_lost;          /* REPORT_LOST counted in frames */
	uint64_t mark_start_ns, mark_end_ns;    /* the last mark frame's span */
	/* Interval frames whose CPU times began before the last one's end,
	 * or ended before they began; the last one's span. */
	unsigned went_back;
	uint64_t last_cpu_start_ns, last_cpu_end_ns;
	uint32_t contexts_seen[16];
	unsigned n_contexts_seen;
	const char *set_at_last_frame;
	unsigned stall_at_frame;        /* block the loop once, at this frame */
	unsigned stall_ms;
	unsigned stop_after;            /* frames, then stop the loop */
	/* Each frame's end in CPU time, less its GPU time since the sim's
	 * first timestamp: the CPU time the stream opened at, were the
	 * frame's CPU time right. */
	int64_t opened_min, opened_max;
	/* Idle rows' first value (GpuBusy, when that is all subscribed),
	 * weighted by their GPU time. */
	double idle_busy_ns, idle_ns;
	/* Partial and last windows, their GPU time summed. */
	unsigned partial_frames;
	bool first_partial, last_partial, saw_last;
	uint64_t span_ns;
	/* Raw GPU time ticks of the frames and of their context rows. */
	uint64_t raw_ticks, context_raw_ticks;
	/* Reports of the interval windows within a mark, and of the mark. */
	uint64_t within_mark_reports, mark_reports;
	/* Windows without a report, and whether their values were numbers. */
	unsigned empty_frames, empty_with_numbers;
	/* The last mark frame's context rows: how many, their reports. */
	size_t mark_rows;
	uint64_t mark_row_reports;
	size_t n_values;                /* of the last frame */
};

static void note_context(struct collector *c, uint32_t ctx)
{
	for (unsigned i = 0; i < c->n_contexts_seen; i++)
		if (c->contexts_seen[i] == ctx)
			return;
	if (c->n_contexts_seen < 16)
		c->contexts_seen[c->n_contexts_seen++] = ctx;
}

static void check_bounds(struct collector *c, const struct gpd_frame *f)
{
	const struct gpd_device *dev = c->sub->device;
	const struct gpm_binding *b = dev->binding;
	const struct gpm_metric_set *set = dev->set;
	struct gpm_value all[512], max[512];
	ck_assert_uint_le(set->n_counters, 512);
	gpm_binding_evaluate(b, f->raw, all);
	gpm_binding_evaluate_max(b, f->raw, all, max);
	for (size_t i = 0; i < b->n_max; i++) {
		unsigned k = b->max[i].counter;
		double v = gpm_value_as_double(all[k]);
		double m = gpm_value_as_double(max[k]);
		c->checked_values++;
		/* Bounds are met within rounding of the max's own equation. */
		if (!(v >= 0) || !isfinite(v) || v > m * (1 + 1e-9) + 1e-9) {
			c->out_of_bounds++;
			fprintf(stderr, "%s.%s = %g outside [0, %g]\n",
				set->symbol_name, set->counters[k].symbol_name, v, m);
		}
	}
}

static void on_frame(void *user, const struct gpd_frame *f)
{
	struct collector *c = user;
	c->frames++;
	c->n_values = f->n_values;
	if (!f->from_mark) {
		c->went_back += f->cpu_start_ns < c->last_cpu_end_ns ||
				f->cpu_end_ns < f->cpu_start_ns;
		c->last_cpu_start_ns = f->cpu_start_ns;
		c->last_cpu_end_ns = f->cpu_end_ns;
		c->partial_frames += f->partial;
		if (c->frames == 1)
			c->first_partial = f->partial;
		c->last_partial = f->partial;
		c->span_ns += f->gpu_end_ns - f->gpu_start_ns;
	}
	ck_assert_msg(!c->saw_last, "a frame came after the last");
	c->saw_last |= f->last;
	if (f->from_mark)
		c->mark_reports += f->reports;
	else if (f->within_mark)
		c->within_mark_reports += f->reports;
	if (!f->reports && !f->from_mark) {
		c->empty_frames++;
		for (size_t i = 0; i < f->n_values; i++)
			c->empty_with_numbers += !isnan(gpm_value_as_double(f->values[i]));
	}
	if (f->raw) {
		c->raw_ticks += f->raw->slot[GPM_ACC_GPU_TIME];
		for (size_t i = 0; i < f->n_contexts; i++)
			if (f->contexts[i].raw)
				c->context_raw_ticks +=
					f->contexts[i].raw->slot[GPM_ACC_GPU_TIME];
	}
	uint64_t len = f->gpu_end_ns - f->gpu_start_ns;
	if (f->reports) {
		if (!c->min_ns || len < c->min_ns)
			c->min_ns = len;
		if (len > c->max_ns)
			c->max_ns = len;
	}
	c->reports += f->reports;
	c->buffers_lost += f->buffer_lost;
	c->reports_lost += f->lost_reports;
	if (f->from_mark) {
		c->mark_start_ns = f->gpu_start_ns;
		c->mark_end_ns = f->gpu_end_ns;
		c->mark_rows = f->n_contexts;
		c->mark_row_reports = 0;
		for (size_t i = 0; i < f->n_contexts; i++)
			c->mark_row_reports += f->contexts[i].reports;
	}
	if (f->reports) {
		const struct gpd_device *dev = c->sub->device;
		int64_t opened = (int64_t)f->cpu_end_ns -
				 (int64_t)(f->gpu_end_ns -
					   gpd_device_ticks_to_ns(dev, GPD_SIM_FIRST_TIMESTAMP));
		if (!c->opened_min || opened < c->opened_min)
			c->opened_min = opened;
		if (opened > c->opened_max)
			c->opened_max = opened;
	}
	for (size_t i = 0; i < f->n_contexts; i++) {
		const struct gpd_context_row *row = &f->contexts[i];

		note_context(c, row->ctx_id);
		if (row->ctx_id == GPD_CTX_IDLE && row->reports && f->n_values == 1) {
			c->idle_busy_ns += gpm_value_as_double(row->values[0]) *
					   (double)row->gpu_time_ns;
			c->idle_ns += (double)row->gpu_time_ns;
		}
	}
	if (f->raw && f->reports)
		check_bounds(c, f);
	c->set_at_last_frame = c->sub->device->set->symbol_name;
	if (c->stall_at_frame && c->frames == c->stall_at_frame)
		usleep(c->stall_ms * 1000);
	if ((c->stop_after && c->frames >= c->stop_after) || f->last)
		uv_stop(c->daemon->loop);
}

static void on_event(void *user, const struct gpd_event *ev)
{
	struct collector *c = user;
	c->events++;
	c->last_event = ev->kind;
}

static const struct gpd_subscriber_ops collector_ops = {
	.frame = on_frame,
	.event = on_event,
};

struct fixture {
	uv_loop_t loop;
	struct gpd_daemon daemon;
	uv_timer_t deadline;
};

static void on_deadline(uv_timer_t *t)
{
	uv_stop(t->loop);
}

/* min_period_ns: the daemon's --min-period (0: its default). */
static void fixture_start_floor(struct fixture *fx, size_t sim_buffer,
				uint64_t min_period_ns)
{
	static const char *devices[] = { "sim" };
	struct gpd_options opts = {
		.device_specs = devices,
		.n_device_specs = 1,
		.seed = 7,
		.linger_ms = 0,
		.sim_buffer_size = sim_buffer,
		.min_period_ns = min_period_ns,
	};
	struct gpd_error err = { 0 };
	gpd_log_set_level(GPD_LOG_WARNING);
	uv_loop_init(&fx->loop);
	ck_assert_msg(gpd_daemon_init(&fx->daemon, &fx->loop, &opts, &err) == 0,
		      "%s", err.message);
	uv_timer_init(&fx->loop, &fx->deadline);
}

static void fixture_start(struct fixture *fx, size_t sim_buffer)
{
	fixture_start_floor(fx, sim_buffer, 0);
}

/* Runs the loop until a collector stops it or ms pass. */
static void fixture_run(struct fixture *fx, unsigned ms)
{
	uv_timer_start(&fx->deadline, on_deadline, ms, 0);
	uv_run(&fx->loop, UV_RUN_DEFAULT);
	uv_timer_stop(&fx->deadline);
}

static void fixture_stop(struct fixture *fx)
{
	uv_close((uv_handle_t *)&fx->deadline, NULL);
	gpd_daemon_stop(&fx->daemon);
	uv_run(&fx->loop, UV_RUN_DEFAULT);
	gpd_daemon_fini(&fx->daemon);
	ck_assert_int_eq(uv_loop_close(&fx->loop), 0);
}

static int subscribe(struct fixture *fx, struct collector *c,
		     struct gpd_subscribe_request req, struct gpd_error *err)
{
	c->daemon = &fx->daemon;
	return gpd_subscribe(&fx->daemon.registry, &req, &collector_ops, c,
			     &c->sub, err);
}

/* Begins a mark on sub once its device has delivered a report (waiting
 * up to 10 s for one). */
static void begin_mark(struct fixture *fx, struct gpd_subscription *sub)
{
	struct gpd_error err = { 0 };
	int ret;

	for (int tries = 0; (ret = gpd_mark_begin(sub, &err)) == -EAGAIN && tries < 200; tries++)
		fixture_run(fx, 50);
	ck_assert_msg(ret == 0, "%s", err.message);
}

START_TEST(frames_arrive_per_window_within_bounds)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct collector c = { .stop_after = 8 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.metric_set = "RenderBasic",
		.sampling_period_ns = 100000,
		.window_ns = 50000000,
		.raw = true,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_msg(subscribe(&fx, &c, req, &err) == 0, "%s", err.message);
	fixture_run(&fx, 5000);
	ck_assert_uint_ge(c.frames, 8);
	/* Windows end at the first report past each 50 ms boundary, so a
	 * window spans 50 ms give or take a sampling period, except the
	 * first, which starts mid-way. */
	ck_assert_uint_le(c.max_ns, 50000000 + 2 * 110000);
	ck_assert_uint_gt(c.checked_values, 100);
	ck_assert_uint_eq(c.out_of_bounds, 0);
	ck_assert_uint_gt(c.reports, 8 * 400);
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
}
END_TEST

START_TEST(every_set_stays_within_bounds)
{
	static const char *const sets[] = { "RenderBasic", "ComputeBasic", "MemoryL3" };
	for (size_t i = 0; i < 3; i++) {
		struct fixture fx;
		fixture_start(&fx, 0);
		struct collector c = { .stop_after = 4 };
		struct gpd_error err;
		struct gpd_subscribe_request req = {
			.metric_set = sets[i],
			.sampling_period_ns = 50000,
			.window_ns = 20000000,
			.raw = true,
			.role = GPD_ROLE_CONTROLLER,
		};
		ck_assert_msg(subscribe(&fx, &c, req, &err) == 0, "%s", err.message);
		fixture_run(&fx, 5000);
		ck_assert_uint_ge(c.frames, 4);
		ck_assert_uint_gt(c.checked_values, 0);
		ck_assert_msg(c.out_of_bounds == 0, "%s: %u values out of bounds",
			      sets[i], c.out_of_bounds);
		gpd_unsubscribe(c.sub);
		fixture_stop(&fx);
	}
}
END_TEST

START_TEST(contexts_show_up_per_context)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct collector c = { .stop_after = 10 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.sampling_period_ns = 100000,
		.window_ns = 50000000,
		.per_context = true,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_msg(subscribe(&fx, &c, req, &err) == 0, "%s", err.message);
	fixture_run(&fx, 5000);
	/* The workload runs several contexts and idles in between. */
	ck_assert_uint_ge(c.n_contexts_seen, 3);
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
}
END_TEST

/* The rows of a subscription's per-context frames. */
struct row_counter {
	unsigned frames;
	size_t most_rows;               /* in one frame */
	size_t n_values;                /* of the last frame */
	unsigned rows_without_reports;
	unsigned frames_whose_rows_miss_reports;
};

static void count_rows(void *user, const struct gpd_frame *f)
{
	struct row_counter *c = user;
	uint32_t reports = 0;
	c->frames++;
	c->n_values = f->n_values;
	if (f->n_contexts > c->most_rows)
		c->most_rows = f->n_contexts;
	for (size_t i = 0; i < f->n_contexts; i++) {
		c->rows_without_reports += !f->contexts[i].reports;
		reports += f->contexts[i].reports;
	}
	c->frames_whose_rows_miss_reports += reports != f->reports;
}

static void ignore_event(void *user, const struct gpd_event *ev)
{
}

static const struct gpd_subscriber_ops row_counter_ops = {
	.frame = count_rows,
	.event = ignore_event,
};

/*
 * A reconfiguration that leaves a subscription fewer of its counters:
 * windows of more contexts than any before still get a row for each
 * context, with the counters the subscription has now. (Its rows grew
 * only with their values: a window of more contexts of fewer counters
 * fitted the values and was written past the rows, a heap overflow the
 * session fuzzer found. SAN=1 reports it.) On the stepped sim, the same
 * windows every run.
 */
START_TEST(fewer_counters_then_more_contexts_get_their_rows)
{
	static const char *devices[] = { "sim" };
	/* In RenderBasic; MemoryL3 has only GpuBusy of them. */
	static const char *const four[] = {
		"GpuBusy", "RenderBusy", "EuActive", "EuStall",
	};
	struct gpd_options opts = {
		.device_specs = devices,
		.n_device_specs = 1,
		.seed = 7,
		.sim_buffer_size = 1024 * 1024,
		.sim_stepped = true,
	};
	struct gpd_error err = { 0 };
	uv_loop_t loop;
	struct gpd_daemon daemon;
	gpd_log_set_level(GPD_LOG_WARNING);
	uv_loop_init(&loop);
	ck_assert_msg(gpd_daemon_init(&daemon, &loop, &opts, &err) == 0,
		      "%s", err.message);
	struct row_counter c = { 0 };
	struct gpd_subscribe_request req = {
		.metric_set = "RenderBasic",
		.sampling_period_ns = 100000,
		.window_ns = 200000,
		.counters = four,
		.n_counters = 4,
		.per_context = true,
		.role = GPD_ROLE_CONTROLLER,
	};
	struct gpd_subscription *sub;
	ck_assert_msg(gpd_subscribe(&daemon.registry, &req, &row_counter_ops, &c,
				    &sub, &err) == 0, "%s", err.message);
	struct gpd_source *sim = daemon.registry.devices[0]->source;

	/* One window of four counters... */
	for (int steps = 0; !c.frames && steps < 100; steps++)
		gpd_sim_source_advance(sim, 100000);
	ck_assert_uint_eq(c.frames, 1);
	ck_assert_uint_eq(c.n_values, 4);
	size_t rows_before = c.most_rows;
	ck_assert_uint_ge(rows_before, 1);
	/* ...then one: the rows of any window of more contexts fit in the
	 * values those rows had. */
	ck_assert_int_eq(gpd_reconfigure(sub, "MemoryL3", 0, &err), 0);
	c.most_rows = 0;
	unsigned frames_before = c.frames;
	for (int steps = 0; c.most_rows <= rows_before && steps < 1000; steps++)
		gpd_sim_source_advance(sim, 200000);
	ck_assert_uint_gt(c.most_rows, rows_before);
	ck_assert_uint_le(c.most_rows, 4 * rows_before);
	ck_assert_uint_gt(c.frames, frames_before);
	ck_assert_uint_eq(c.n_values, 1);
	ck_assert_uint_eq(c.rows_without_reports, 0);
	ck_assert_uint_eq(c.frames_whose_rows_miss_reports, 0);

	gpd_unsubscribe(sub);
	gpd_daemon_stop(&daemon);
	uv_run(&loop, UV_RUN_DEFAULT);
	gpd_daemon_fini(&daemon);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/*
 * The simulated Gen12 unit, like i915, writes a context-switch report
 * without the valid bit when the running context is submitted again; read
 * alone it looks like the GPU going idle. The report after it tells, and
 * the stretch goes to the context that ran on: what shows as idle is idle.
 */
START_TEST(resubmissions_are_not_idle)
{
	static const char *const busy[] = { "GpuBusy" };
	struct fixture fx;
	fixture_start(&fx, 0);
	struct collector c = { .stop_after = 40 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.metric_set = "RenderBasic",
		.sampling_period_ns = 100000,
		.window_ns = 50000000,
		.counters = busy,
		.n_counters = 1,
		.per_context = true,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_msg(subscribe(&fx, &c, req, &err) == 0, "%s", err.message);
	fixture_run(&fx, 5000);
	ck_assert_uint_ge(c.frames, 20);
	ck_assert_double_gt(c.idle_ns, 0);
	double idle_busy = c.idle_busy_ns / c.idle_ns;
	/* Only the pairs across a wake-up are partly busy. */
	ck_assert_msg(idle_busy < 5, "idle rows read %.1f%% GPU busy", idle_busy);
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
}
END_TEST

START_TEST(reconfiguration_reaches_every_subscriber)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct collector a = { 0 }, b = { 0 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.metric_set = "RenderBasic",
		.window_ns = 20000000,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_msg(subscribe(&fx, &a, req, &err) == 0, "%s", err.message);
	req.role = GPD_ROLE_VIEWER;
	req.metric_set = NULL;
	ck_assert_msg(subscribe(&fx, &b, req, &err) == 0, "%s", err.message);
	fixture_run(&fx, 100);
	ck_assert_int_eq(gpd_reconfigure(a.sub, "ComputeBasic", 0, &err), 0);
	ck_assert_uint_eq(a.events, 1);
	ck_assert_uint_eq(b.events, 1);
	ck_assert_int_eq(a.last_event, GPD_EVENT_CONFIG_CHANGED);
	ck_assert_int_eq(b.last_event, GPD_EVENT_CONFIG_CHANGED);
	b.stop_after = b.frames + 2;
	fixture_run(&fx, 3000);
	ck_assert_str_eq(b.set_at_last_frame, "ComputeBasic");
	const char *const *symbols;
	size_t n = gpd_subscription_counters(b.sub, &symbols);
	ck_assert_uint_gt(n, 10);

	/* A viewer may not reconfigure. */
	ck_assert_int_eq(gpd_reconfigure(b.sub, "RenderBasic", 0, &err), -EPERM);
	ck_assert_ptr_nonnull(strstr(err.message, "controller"));
	gpd_unsubscribe(a.sub);
	gpd_unsubscribe(b.sub);
	fixture_stop(&fx);
}
END_TEST

START_TEST(viewer_with_another_set_is_refused)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct collector a = { 0 }, b = { 0 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.metric_set = "RenderBasic",
		.window_ns = 20000000,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_int_eq(subscribe(&fx, &a, req, &err), 0);
	req.metric_set = "MemoryL3";
	req.role = GPD_ROLE_VIEWER;
	ck_assert_int_eq(subscribe(&fx, &b, req, &err), -EBUSY);
	ck_assert_ptr_null(b.sub);
	ck_assert_ptr_nonnull(strstr(err.message, "RenderBasic"));
	ck_assert_ptr_nonnull(strstr(err.message, "viewer"));
	/* An unknown set and counter are refused with their names. */
	req.metric_set = "NoSuchSet";
	ck_assert_int_eq(subscribe(&fx, &b, req, &err), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err.message, "NoSuchSet"));
	static const char *const bad[] = { "GpuTime", "NoSuchCounter" };
	req.metric_set = "RenderBasic";
	req.counters = bad;
	req.n_counters = 2;
	ck_assert_int_eq(subscribe(&fx, &b, req, &err), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err.message, "NoSuchCounter"));
	gpd_unsubscribe(a.sub);
	fixture_stop(&fx);
}
END_TEST

/*
 * A viewer never chooses a device's configuration: on an idle device it
 * gets the one the device starts with by itself. Nobody, controllers
 * included, goes below the floor (--min-period, 10 us by default); a
 * refusal leaves the device as it was.
 */
START_TEST(viewers_do_not_configure_and_nobody_goes_below_the_floor)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct gpd_device *dev = fx.daemon.registry.devices[0];
	struct collector v = { 0 }, c = { 0 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.sampling_period_ns = 1,
		.window_ns = 20000000,
		.role = GPD_ROLE_VIEWER,
	};
	ck_assert_int_eq(subscribe(&fx, &v, req, &err), -EINVAL);
	ck_assert_msg(strstr(err.message, "10000 ns") &&
		      strstr(err.message, "--min-period"), "%s", err.message);
	ck_assert(!dev->open);
	/* Above the floor but faster than the device's own 1 ms. */
	req.sampling_period_ns = 100000;
	ck_assert_int_eq(subscribe(&fx, &v, req, &err), -EPERM);
	ck_assert_msg(strstr(err.message, "viewer") &&
		      strstr(err.message, "RenderBasic"), "%s", err.message);
	req.sampling_period_ns = 0;
	req.metric_set = "ComputeBasic";
	ck_assert_int_eq(subscribe(&fx, &v, req, &err), -EPERM);
	ck_assert(!dev->open);
	ck_assert_uint_eq(dev->n_subscribers, 0);
	/* What the device would run anyway is the viewer's. */
	req.metric_set = NULL;
	ck_assert_msg(subscribe(&fx, &v, req, &err) == 0, "%s", err.message);
	ck_assert_str_eq(dev->set->symbol_name, "RenderBasic");
	ck_assert_uint_eq(dev->exponent,
			  gpd_exponent_for_period_at(dev->shape.timestamp_frequency,
						     GPD_DEFAULT_PERIOD_NS));
	gpd_unsubscribe(v.sub);

	/* A controller is held to the floor too, on subscribing and on
	 * reconfiguring; at the floor itself it gets the period just above. */
	req.role = GPD_ROLE_CONTROLLER;
	req.sampling_period_ns = 105;
	ck_assert_int_eq(subscribe(&fx, &c, req, &err), -EINVAL);
	req.sampling_period_ns = 10000;
	ck_assert_msg(subscribe(&fx, &c, req, &err) == 0, "%s", err.message);
	uint64_t period = gpd_device_period_ns(dev, dev->exponent);
	ck_assert_uint_ge(period, 10000);
	ck_assert_uint_lt(period, 20000);
	ck_assert_int_eq(gpd_reconfigure(c.sub, NULL, 5000, &err), -EINVAL);
	ck_assert_uint_eq(gpd_device_period_ns(dev, dev->exponent), period);
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);

	/* Only the configuration lowers it. */
	fixture_start_floor(&fx, 0, 1);
	dev = fx.daemon.registry.devices[0];
	req.sampling_period_ns = 105;
	ck_assert_msg(subscribe(&fx, &c, req, &err) == 0, "%s", err.message);
	ck_assert_uint_lt(gpd_device_period_ns(dev, dev->exponent), 10000);
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
}
END_TEST

/*
 * A counter asked many times is computed and sent once, and what a
 * subscription costs in evaluations a second is counted: over the
 * budget it is refused before the device changes.
 */
START_TEST(duplicates_are_sent_once_and_evaluations_are_budgeted)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	static const char *copies[4096];
	for (size_t i = 0; i < 4096; i++)
		copies[i] = i % 2 ? "GpuTime" : "gputime";
	struct collector c = { .stop_after = 2 }, greedy = { 0 };
	struct gpd_error err;
	struct gpd_evaluation_budget budget = { .max = 1000000 };
	struct gpd_subscribe_request req = {
		.metric_set = "RenderBasic",
		.window_ns = 20000000,
		.counters = copies,
		.n_counters = 4096,
		.role = GPD_ROLE_CONTROLLER,
		.budget = &budget,
	};
	ck_assert_msg(subscribe(&fx, &c, req, &err) == 0, "%s", err.message);
	const char *const *symbols;
	ck_assert_uint_eq(gpd_subscription_counters(c.sub, &symbols), 1);
	ck_assert_str_eq(symbols[0], "GpuTime");
	const struct gpd_device *dev = c.sub->device;
	/* The set's equations and the one value, 50 windows a second. */
	ck_assert_uint_eq(gpd_subscription_evaluations(c.sub),
			  (dev->binding->n_steps + 1) * 50);
	while (c.frames < 2)
		fixture_run(&fx, 100);
	ck_assert_uint_eq(c.n_values, 1);

	/* Every counter of another set, per context, in 1 ms windows. */
	req.metric_set = "ComputeBasic";
	req.counters = NULL;
	req.n_counters = 0;
	req.window_ns = 1000000;
	req.per_context = true;
	struct gpd_evaluation_budget small = { .max = 100000 };
	req.budget = &small;
	ck_assert_int_eq(subscribe(&fx, &greedy, req, &err), -ENOBUFS);
	ck_assert_msg(strstr(err.message, "--max-evaluations") &&
		      strstr(err.message, "100000"), "%s", err.message);
	ck_assert_str_eq(dev->set->symbol_name, "RenderBasic");
	ck_assert_uint_eq(c.events, 0);
	ck_assert_uint_eq(dev->n_subscribers, 1);
	ck_assert_uint_eq(small.used, 0);
	ck_assert_uint_eq(budget.used, gpd_subscription_evaluations(c.sub));
	gpd_unsubscribe(c.sub);
	ck_assert_uint_eq(budget.used, 0);
	fixture_stop(&fx);
}
END_TEST

/* Check, then act, for the evaluation budget: a configuration someone
 * asks for (a Reconfigure, or a controller's Subscribe that moves the
 * device) is refused when it would put any connection's subscriptions
 * over its budget; nothing changes then. A change that fits is counted
 * in every budget it moved. */
START_TEST(a_configuration_over_anyones_budget_changes_nothing)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct collector a = { 0 }, b = { 0 }, c = { 0 };
	struct gpd_error err;
	/* a: a controller, with room to spare; b: windows shorter than the
	 * period, every counter, its budget full. */
	struct gpd_evaluation_budget a_budget = { .max = 1000000000 };
	struct gpd_evaluation_budget b_budget = { .max = 1000000000 };
	struct gpd_subscribe_request req = {
		.metric_set = "RenderBasic",
		.sampling_period_ns = 1000000,
		.window_ns = 20000000,
		.role = GPD_ROLE_CONTROLLER,
		.budget = &a_budget,
	};
	ck_assert_msg(subscribe(&fx, &a, req, &err) == 0, "%s", err.message);
	req.role = GPD_ROLE_VIEWER;
	req.sampling_period_ns = 0;
	req.window_ns = 100000;
	req.budget = &b_budget;
	ck_assert_msg(subscribe(&fx, &b, req, &err) == 0, "%s", err.message);
	const struct gpd_device *dev = a.sub->device;
	uint64_t b_cost = gpd_subscription_evaluations(b.sub);
	ck_assert_uint_eq(b_budget.used, b_cost);
	b_budget.max = b_cost;
	unsigned exponent = dev->exponent;
	fixture_run(&fx, 50);

	/* Sampled 8 times as fast, b's windows come 8 times as often. */
	ck_assert_int_eq(gpd_reconfigure(a.sub, NULL, 125000, &err), -ENOBUFS);
	ck_assert_msg(strstr(err.message, "another connection") &&
		      strstr(err.message, "--max-evaluations"), "%s", err.message);
	ck_assert_uint_eq(dev->exponent, exponent);
	ck_assert_uint_eq(a.events + b.events, 0);
	ck_assert_uint_eq(b_budget.used, b_cost);
	ck_assert_uint_eq(gpd_subscription_evaluations(b.sub), b_cost);

	/* A controller's Subscribe that would move the device so. */
	struct gpd_evaluation_budget c_budget = { .max = 1000000000 };
	req.role = GPD_ROLE_CONTROLLER;
	req.sampling_period_ns = 125000;
	req.window_ns = 20000000;
	req.budget = &c_budget;
	ck_assert_int_eq(subscribe(&fx, &c, req, &err), -ENOBUFS);
	ck_assert_msg(strstr(err.message, "another connection"), "%s",
		      err.message);
	ck_assert_ptr_null(c.sub);
	ck_assert_uint_eq(dev->exponent, exponent);
	ck_assert_uint_eq(a.events + b.events, 0);
	ck_assert_uint_eq(c_budget.used, 0);

	/* The asker's own other subscriptions are checked too. */
	struct collector a2 = { 0 };
	req.role = GPD_ROLE_CONTROLLER;
	req.sampling_period_ns = 0;
	req.window_ns = 100000;
	req.budget = &a_budget;
	ck_assert_msg(subscribe(&fx, &a2, req, &err) == 0, "%s", err.message);
	a_budget.max = a_budget.used;
	b_budget.max = 1000000000;
	ck_assert_int_eq(gpd_reconfigure(a.sub, NULL, 125000, &err), -ENOBUFS);
	ck_assert_msg(strstr(err.message, "this connection"), "%s", err.message);
	ck_assert_uint_eq(dev->exponent, exponent);
	gpd_unsubscribe(a2.sub);

	/* With room, the change is made and counted where it moved. */
	ck_assert_int_eq(gpd_reconfigure(a.sub, NULL, 125000, &err), 0);
	ck_assert_uint_gt(gpd_subscription_evaluations(b.sub), b_cost);
	ck_assert_uint_eq(b_budget.used, gpd_subscription_evaluations(b.sub));
	ck_assert_uint_eq(a_budget.used, gpd_subscription_evaluations(a.sub));
	ck_assert_int_eq(gpd_reconfigure(a.sub, "ComputeBasic", 0, &err), 0);
	ck_assert_uint_eq(b_budget.used, gpd_subscription_evaluations(b.sub));
	ck_assert_uint_eq(a_budget.used, gpd_subscription_evaluations(a.sub));
	gpd_unsubscribe(a.sub);
	gpd_unsubscribe(b.sub);
	ck_assert_uint_eq(a_budget.used + b_budget.used, 0);
	fixture_stop(&fx);
}
END_TEST

/* Check, then act: a Subscribe refused for any of its parts (here a
 * counter the set lacks) leaves the device as it ran, and those already
 * subscribed keep their counters and frames. */
START_TEST(a_refused_subscribe_changes_nothing)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct collector a = { 0 }, b = { 0 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.metric_set = "MemoryL3",
		.window_ns = 10000000,
		.raw = true,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_msg(subscribe(&fx, &a, req, &err) == 0, "%s", err.message);
	const struct gpd_device *dev = a.sub->device;
	const char *const *symbols;
	size_t n = gpd_subscription_counters(a.sub, &symbols);
	fixture_run(&fx, 30);

	static const char *const nope[] = { "Nope" };
	req.metric_set = "RenderBasic";
	req.counters = nope;
	req.n_counters = 1;
	ck_assert_int_eq(subscribe(&fx, &b, req, &err), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err.message, "Nope"));
	ck_assert_ptr_null(b.sub);
	ck_assert_str_eq(dev->set->symbol_name, "MemoryL3");
	ck_assert_uint_eq(a.events, 0);
	ck_assert_uint_eq(gpd_subscription_counters(a.sub, &symbols), n);
	ck_assert_uint_eq(dev->stats.reconfigurations, 0);

	/* Frames keep coming, of MemoryL3, within their bounds. */
	a.stop_after = a.frames + 5;
	fixture_run(&fx, 3000);
	ck_assert_uint_ge(a.frames, 5);
	ck_assert_str_eq(a.set_at_last_frame, "MemoryL3");
	ck_assert_uint_eq(a.out_of_bounds, 0);
	gpd_unsubscribe(a.sub);
	fixture_stop(&fx);
}
END_TEST

START_TEST(stalled_consumer_loses_the_buffer_and_says_so)
{
	struct fixture fx;
	/* 128 KiB holds ~500 reports: 25 ms at a 50 us period. */
	fixture_start(&fx, 128 * 1024);
	struct collector c = { .stall_at_frame = 2, .stall_ms = 300, .stop_after = 6 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.sampling_period_ns = 50000,
		.window_ns = 20000000,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_int_eq(subscribe(&fx, &c, req, &err), 0);
	fixture_run(&fx, 5000);
	ck_assert_uint_ge(c.frames, 6);
	ck_assert_uint_ge(c.buffers_lost, 1);
	ck_assert_uint_ge(c.sub->device->stats.buffers_lost, 1);
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
}
END_TEST

START_TEST(marks_bound_a_window)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct collector c = { 0 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.sampling_period_ns = 100000,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_int_eq(subscribe(&fx, &c, req, &err), 0);
	ck_assert_int_eq(gpd_mark_end(c.sub, &err), -EINVAL);
	begin_mark(&fx, c.sub);
	fixture_run(&fx, 200);
	ck_assert_int_eq(gpd_mark_end(c.sub, &err), 0);
	c.stop_after = 1;
	fixture_run(&fx, 2000);
	ck_assert_uint_eq(c.frames, 1);
	/* ~200 ms of 100 us reports. */
	ck_assert_uint_gt(c.reports, 1000);
	ck_assert_uint_gt(c.max_ns, 150000000);
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
}
END_TEST

static void on_stall(uv_timer_t *t)
{
	usleep(300 * 1000);
	(void)t;
}

/* A buffer lost while a mark is open is counted in the mark's frame: the
 * stretch it sums misses reports, and says so. */
START_TEST(loss_is_counted_into_an_open_mark)
{
	struct fixture fx;
	/* 128 KiB holds ~500 reports: 25 ms at a 50 us period. */
	fixture_start(&fx, 128 * 1024);
	struct collector c = { 0 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.sampling_period_ns = 50000,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_int_eq(subscribe(&fx, &c, req, &err), 0);
	begin_mark(&fx, c.sub);
	uv_timer_t stall;
	uv_timer_init(&fx.loop, &stall);
	uv_timer_start(&stall, on_stall, 20, 0);
	fixture_run(&fx, 200);
	ck_assert_int_eq(gpd_mark_end(c.sub, &err), 0);
	c.stop_after = 1;
	fixture_run(&fx, 5000);
	ck_assert_uint_eq(c.frames, 1);
	ck_assert_uint_ge(c.sub->device->stats.buffers_lost, 1);
	ck_assert_uint_ge(c.buffers_lost, 1);
	uv_close((uv_handle_t *)&stall, NULL);
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
}
END_TEST

/* A mark of a per-context subscription carries its contexts' rows, as
 * interval frames do: a `gpuperf run` result holds the measured
 * contexts' totals. They add up to the mark's, report for report and
 * tick for tick. */
START_TEST(a_per_context_mark_has_its_contexts_rows)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct collector c = { 0 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.sampling_period_ns = 100000,
		.per_context = true,
		.raw = true,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_int_eq(subscribe(&fx, &c, req, &err), 0);
	begin_mark(&fx, c.sub);
	fixture_run(&fx, 200);
	ck_assert_int_eq(gpd_mark_end(c.sub, &err), 0);
	c.stop_after = 1;
	fixture_run(&fx, 5000);
	ck_assert_uint_eq(c.frames, 1);
	ck_assert_uint_gt(c.mark_reports, 1000);
	ck_assert_uint_ge(c.mark_rows, 2);
	ck_assert_uint_eq(c.mark_row_reports, c.mark_reports);
	ck_assert_uint_eq(c.context_raw_ticks, c.raw_ticks);
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
}
END_TEST

/* Marks of a subscription narrowed to one context sum only that
 * context's reports: fewer than the same mark taken unfiltered. */
START_TEST(marks_keep_the_context_filter)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct collector probe = { .stop_after = 4 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.sampling_period_ns = 100000,
		.window_ns = 50000000,
		.per_context = true,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_int_eq(subscribe(&fx, &probe, req, &err), 0);
	fixture_run(&fx, 5000);
	uint32_t ctx = GPD_CTX_IDLE;
	for (unsigned i = 0; i < probe.n_contexts_seen && ctx == GPD_CTX_IDLE; i++)
		ctx = probe.contexts_seen[i];
	ck_assert_uint_ne(ctx, GPD_CTX_IDLE);
	struct collector narrow = { 0 }, all = { 0 };
	struct gpd_subscribe_request marked = {
		.sampling_period_ns = 100000,
		.role = GPD_ROLE_VIEWER,
	};
	ck_assert_int_eq(subscribe(&fx, &all, marked, &err), 0);
	marked.ctx_filter = true;
	marked.ctx_id = ctx;
	ck_assert_int_eq(subscribe(&fx, &narrow, marked, &err), 0);
	gpd_unsubscribe(probe.sub);
	begin_mark(&fx, all.sub);
	begin_mark(&fx, narrow.sub);
	fixture_run(&fx, 300);
	ck_assert_int_eq(gpd_mark_end(all.sub, &err), 0);
	ck_assert_int_eq(gpd_mark_end(narrow.sub, &err), 0);
	narrow.stop_after = all.stop_after = 1;
	fixture_run(&fx, 5000);
	if (!all.frames || !narrow.frames)
		fixture_run(&fx, 5000);
	ck_assert_uint_eq(narrow.frames, 1);
	ck_assert_uint_eq(all.frames, 1);
	ck_assert_msg(narrow.reports > 0 && narrow.reports < all.reports * 9 / 10,
		      "context %#x: %llu reports of %llu", ctx,
		      (unsigned long long)narrow.reports, (unsigned long long)all.reports);
	gpd_unsubscribe(narrow.sub);
	gpd_unsubscribe(all.sub);
	fixture_stop(&fx);
}
END_TEST

/* A recording's bytes as the sink took them, and how it ended. */
struct recording_sink {
	struct gpd_daemon *daemon;
	unsigned char *data;
	size_t len, cap;
	bool stopped;
	uint64_t bytes, reports;
	char reason[256];
	int refuse_after;               /* refuse the nth data call (-ENOBUFS) */
	int calls;
};

static int sink_data(void *user, uint64_t offset, const void *data, size_t len)
{
	struct recording_sink *k = user;

	if (k->refuse_after && ++k->calls >= k->refuse_after)
		return -ENOBUFS;
	ck_assert_uint_eq(offset, k->len);
	if (k->len + len > k->cap) {
		k->cap = (k->len + len) * 2;
		k->data = realloc(k->data, k->cap);
		ck_assert_ptr_nonnull(k->data);
	}
	memcpy(k->data + k->len, data, len);
	k->len += len;
	return 0;
}

static void sink_stopped(void *user, uint64_t bytes, uint64_t reports, const char *reason)
{
	struct recording_sink *k = user;

	k->stopped = true;
	k->bytes = bytes;
	k->reports = reports;
	snprintf(k->reason, sizeof(k->reason), "%s", reason ? reason : "");
	uv_stop(k->daemon->loop);
}

static const struct gpd_recorder_sink_ops sink_ops = {
	.data = sink_data,
	.stopped = sink_stopped,
};

static struct gpd_recorder *record(struct fixture *fx, struct recording_sink *k,
				   uint64_t period_ns, uint64_t max_bytes)
{
	struct gpd_recorder_request req = {
		.sampling_period_ns = period_ns,
		.max_bytes = max_bytes,
		.role = GPD_ROLE_CONTROLLER,
	};
	struct gpd_recorder *r;
	struct gpd_error err = { 0 };

	k->daemon = &fx->daemon;
	ck_assert_msg(gpd_recorder_start(&fx->daemon.registry, &req, &sink_ops, k, &r, &err) == 0,
		      "%s", err.message);
	return r;
}

/* Reads the sink's bytes back: the counts of each kind of record. */
static void read_back(const struct recording_sink *k, unsigned *samples,
		      unsigned *buffers_lost)
{
	struct gpm_recording_reader rd;
	struct gpm_recording_record rec;
	struct gpm_recording_error rerr;
	int ret;

	ck_assert_msg(gpm_recording_reader_open_memory(&rd, k->data, k->len, &rerr) == 0,
		      "%s", rerr.message);
	*samples = *buffers_lost = 0;
	while ((ret = gpm_recording_reader_next(&rd, &rec, &rerr)) == 0 &&
	       rec.kind != GPM_RECORDING_END) {
		*samples += rec.kind == GPM_RECORDING_SAMPLE;
		*buffers_lost += rec.kind == GPM_RECORDING_BUFFER_LOST;
	}
	ck_assert_msg(ret == 0, "%s", rerr.message);
	gpm_recording_reader_close(&rd);
}

/* The stream's losses are in the file where they happened, as IGT's
 * recorder writes them: a reader sees the gap. */
START_TEST(recordings_keep_the_losses)
{
	struct fixture fx;
	struct recording_sink k = { 0 };
	unsigned samples, buffers_lost;

	fixture_start(&fx, 128 * 1024);
	struct gpd_recorder *r = record(&fx, &k, 50000, 0);
	fixture_run(&fx, 100);
	uv_timer_t stall;
	uv_timer_init(&fx.loop, &stall);
	uv_timer_start(&stall, on_stall, 20, 0);
	fixture_run(&fx, 300);
	gpd_recorder_stop(r, NULL);
	fixture_run(&fx, 5000);
	ck_assert(k.stopped);
	ck_assert_uint_ge(fx.daemon.registry.devices[0]->stats.buffers_lost, 1);
	read_back(&k, &samples, &buffers_lost);
	ck_assert_uint_ge(buffers_lost, 1);
	ck_assert_uint_eq(samples, k.reports);
	uv_close((uv_handle_t *)&stall, NULL);
	gpd_recorder_destroy(r);
	free(k.data);
	fixture_stop(&fx);
}
END_TEST

/* --max-bytes: the recording ends at its limit, whole, with the words. */
START_TEST(recordings_stop_at_their_limit)
{
	struct fixture fx;
	struct recording_sink k = { 0 };
	unsigned samples, buffers_lost;

	fixture_start(&fx, 0);
	struct gpd_recorder *r = record(&fx, &k, 100000, 64 * 1024);
	fixture_run(&fx, 30000);
	ck_assert(k.stopped);
	ck_assert_msg(strstr(k.reason, "reached its limit of 65536 bytes"), "%s", k.reason);
	/* Within the limit, short of it by less than a few records. */
	ck_assert_uint_le(k.bytes, 64 * 1024);
	ck_assert_uint_ge(k.bytes, 64 * 1024 - 4 * 512);
	ck_assert_uint_eq(k.bytes, k.len);
	read_back(&k, &samples, &buffers_lost);
	ck_assert_uint_eq(samples, k.reports);
	gpd_recorder_destroy(r);
	free(k.data);
	fixture_stop(&fx);
}
END_TEST

/* Whatever the limit, the records that close the file fit under it too:
 * limits a few bytes apart end the samples at every distance from it. */
START_TEST(recordings_close_within_their_limit)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	for (uint64_t limit = 8192; limit < 8192 + 264; limit += 8) {
		struct recording_sink k = { 0 };
		struct gpd_recorder *r = record(&fx, &k, 100000, limit);
		fixture_run(&fx, 30000);
		ck_assert(k.stopped);
		ck_assert_msg(k.bytes <= limit, "a recording limited to %llu "
			      "bytes wrote %llu", (unsigned long long)limit,
			      (unsigned long long)k.bytes);
		ck_assert_uint_eq(k.bytes, k.len);
		gpd_recorder_destroy(r);
		free(k.data);
	}
	fixture_stop(&fx);
}
END_TEST

/* Another metric set chosen under it: the header would no longer say
 * what the reports are, so the recording ends there, whole. */
START_TEST(recordings_end_on_reconfiguration)
{
	struct fixture fx;
	struct recording_sink k = { 0 };
	struct collector c = { 0 };
	struct gpd_error err;
	unsigned samples, buffers_lost;

	fixture_start(&fx, 0);
	struct gpd_recorder *r = record(&fx, &k, 100000, 0);
	struct gpd_subscribe_request req = {
		.window_ns = 20000000,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_msg(subscribe(&fx, &c, req, &err) == 0, "%s", err.message);
	fixture_run(&fx, 200);
	ck_assert_int_eq(gpd_reconfigure(c.sub, "ComputeBasic", 0, &err), 0);
	fixture_run(&fx, 5000);
	ck_assert(k.stopped);
	ck_assert_msg(strstr(k.reason, "the stream changed"), "%s", k.reason);
	read_back(&k, &samples, &buffers_lost);
	ck_assert_uint_eq(samples, k.reports);
	gpd_unsubscribe(c.sub);
	gpd_recorder_destroy(r);
	free(k.data);
	fixture_stop(&fx);
}
END_TEST

/* A Perfetto recording evaluates its counters every window and is
 * counted in its connection's budget; an IGT recording evaluates
 * nothing and costs nothing. */
START_TEST(recordings_are_counted_in_the_budget_when_they_evaluate)
{
	struct fixture fx;
	struct recording_sink k = { 0 };
	struct gpd_error err;
	struct gpd_recorder *r = NULL;

	fixture_start(&fx, 0);
	k.daemon = &fx.daemon;
	struct gpd_evaluation_budget budget = { .max = 1000 };
	struct gpd_recorder_request req = {
		.metric_set = "RenderBasic",
		.sampling_period_ns = 100000,
		.role = GPD_ROLE_CONTROLLER,
		.format = GPD_RECORDING_PERFETTO,
		.window_ns = 1000000,
		.budget = &budget,
	};
	/* Every counter of the set, a thousand windows a second. */
	ck_assert_int_eq(gpd_recorder_start(&fx.daemon.registry, &req, &sink_ops,
					    &k, &r, &err), -ENOBUFS);
	ck_assert_msg(strstr(err.message, "--max-evaluations") &&
		      strstr(err.message, "x1000 windows"), "%s", err.message);
	ck_assert_ptr_null(r);
	ck_assert_uint_eq(budget.used, 0);
	budget.max = 1000000;
	ck_assert_msg(gpd_recorder_start(&fx.daemon.registry, &req, &sink_ops,
					 &k, &r, &err) == 0, "%s", err.message);
	const struct gpd_device *dev = fx.daemon.registry.devices[0];
	ck_assert_uint_ge(budget.used, (dev->binding->n_steps + 1) * 1000);
	gpd_recorder_destroy(r);
	ck_assert_uint_eq(budget.used, 0);

	req.format = GPD_RECORDING_I915_PERF;
	budget.max = 1;
	ck_assert_msg(gpd_recorder_start(&fx.daemon.registry, &req, &sink_ops,
					 &k, &r, &err) == 0, "%s", err.message);
	ck_assert_uint_eq(budget.used, 0);
	gpd_recorder_destroy(r);
	free(k.data);
	fixture_stop(&fx);
}
END_TEST

/* A client that cannot take the bytes as fast as they come ends its
 * recording with words that say so, and no one else's stream. */
START_TEST(recordings_end_for_a_slow_client)
{
	struct fixture fx;
	struct recording_sink k = { .refuse_after = 5 };
	struct collector c = { 0 };
	struct gpd_error err;

	fixture_start(&fx, 0);
	struct gpd_recorder *r = record(&fx, &k, 100000, 0);
	struct gpd_subscribe_request req = {
		.window_ns = 20000000,
		.role = GPD_ROLE_VIEWER,
	};
	ck_assert_msg(subscribe(&fx, &c, req, &err) == 0, "%s", err.message);
	fixture_run(&fx, 10000);
	ck_assert_msg(k.stopped, "%d calls, %zu bytes taken", k.calls, k.len);
	ck_assert_msg(strstr(k.reason, "fell too far behind"), "%s", k.reason);
	unsigned before = c.frames;
	c.stop_after = before + 3;
	fixture_run(&fx, 5000);
	ck_assert_uint_ge(c.frames, before + 3);
	gpd_unsubscribe(c.sub);
	gpd_recorder_destroy(r);
	free(k.data);
	fixture_stop(&fx);
}
END_TEST

/*
 * Frames' CPU times map the GPU's clock onto CLOCK_MONOTONIC as the
 * simulated unit runs it: a report is read a poll (5 ms) after the oldest
 * of its batch was taken, yet every frame lands within a sampling period
 * and some scheduling of where it belongs.
 */
/* How late a 1 ms timer of the loop fires: what the machine's load costs
 * every read of the loop. */
struct lag_probe {
	uv_timer_t timer;
	uint64_t due_ns, worst_ns;
};

static void on_lag_probe(uv_timer_t *t)
{
	struct lag_probe *p = (struct lag_probe *)t;
	uint64_t now = gpd_monotonic_ns();

	if (p->due_ns && now > p->due_ns && now - p->due_ns > p->worst_ns)
		p->worst_ns = now - p->due_ns;
	p->due_ns = now + 1000000;
}

START_TEST(frame_cpu_times_follow_the_gpu_clock)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct collector c = { 0 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.sampling_period_ns = 100000,
		.window_ns = 2000000,
		.role = GPD_ROLE_CONTROLLER,
	};
	struct lag_probe lag = { .due_ns = 0 };
	uv_timer_init(&fx.loop, &lag.timer);
	uv_timer_start(&lag.timer, on_lag_probe, 1, 1);
	int64_t before = (int64_t)gpd_monotonic_ns();
	ck_assert_int_eq(subscribe(&fx, &c, req, &err), 0);
	int64_t after = (int64_t)gpd_monotonic_ns();
	c.stop_after = 100;
	fixture_run(&fx, 10000);
	ck_assert_uint_ge(c.frames, 50);
	/* Never early; late by at most a millisecond more than the loop was
	 * kept from reading (the tightest read wins, and a loaded machine
	 * leaves none tight). */
	int64_t late = 1000000 + (int64_t)lag.worst_ns;
	ck_assert_msg(c.opened_min >= before - 1000000 && c.opened_max <= after + late,
		      "frames place the stream's opening %.3f to %.3f ms after "
		      "the subscription began; it opened within %.3f ms of it, "
		      "the loop late by up to %.3f ms",
		      (double)(c.opened_min - before) / 1e6,
		      (double)(c.opened_max - before) / 1e6,
		      (double)(after - before) / 1e6, (double)lag.worst_ns / 1e6);
	uv_close((uv_handle_t *)&lag.timer, NULL);
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
}
END_TEST

/* The sim paces its unit by CLOCK_MONOTONIC and says when its clock read
 * what: its frames carry the true CPU times of their reports, however late
 * the loop read them. A period longer than the sim's 5 ms poll leaves the
 * first reads' newest report milliseconds before they were read. */
START_TEST(sim_frames_carry_their_reports_true_cpu_times)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct collector c = { 0 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.sampling_period_ns = 6000000,
		.window_ns = 10000000,
		.role = GPD_ROLE_CONTROLLER,
	};
	int64_t before = (int64_t)gpd_monotonic_ns();
	ck_assert_int_eq(subscribe(&fx, &c, req, &err), 0);
	int64_t after = (int64_t)gpd_monotonic_ns();
	c.stop_after = 20;
	fixture_run(&fx, 10000);
	ck_assert_uint_ge(c.frames, 10);
	/* Within rounding of the ticks to ns. */
	ck_assert_msg(c.opened_min >= before - 10000 && c.opened_max <= after + 10000,
		      "frames place the stream's opening %.3f to %.3f ms after "
		      "the subscription began; it opened within %.3f ms of it",
		      (double)(c.opened_min - before) / 1e6,
		      (double)(c.opened_max - before) / 1e6,
		      (double)(after - before) / 1e6);
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
}
END_TEST

/* A tighter bound moves the clock mapping earlier: by tens of ms when
 * the loop was late for the stream's first reads. Here the mapping is put
 * 50 ms late, and the next reads bring it back. Frames' CPU times still
 * never go back, and once the mapping has caught up they span their
 * windows again. */
START_TEST(frame_cpu_times_never_go_back)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct collector c = { .stop_after = 5 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.sampling_period_ns = 100000,
		.window_ns = 2000000,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_int_eq(subscribe(&fx, &c, req, &err), 0);
	fixture_run(&fx, 10000);
	ck_assert_uint_ge(c.frames, 5);
	struct gpd_clock_map *m = &c.sub->device->clock;
	m->cpu_anchor_ns += 50000000;
	m->epoch_best_ns += 50000000;
	if (m->prev_epoch_best_ns != UINT64_MAX)
		m->prev_epoch_best_ns += 50000000;
	c.stop_after = c.frames + 60;
	fixture_run(&fx, 10000);
	ck_assert_uint_ge(c.frames, 65);
	ck_assert_uint_eq(c.went_back, 0);
	ck_assert_uint_gt(c.last_cpu_end_ns, c.last_cpu_start_ns);
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
}
END_TEST

/* Subscribers that leave from their own frame callback, or stop the whole
 * daemon from it, must not pull memory from under the device's loops. */
struct leaver {
	struct gpd_subscription *sub;
	struct gpd_daemon *daemon;
	unsigned frames;
	bool stop_daemon;
};

static void leaver_frame(void *user, const struct gpd_frame *f)
{
	struct leaver *l = user;
	if (++l->frames == 2) {
		if (l->stop_daemon)
			gpd_daemon_stop(l->daemon);
		else
			gpd_unsubscribe(l->sub);
	}
}

static const struct gpd_subscriber_ops leaver_ops = { .frame = leaver_frame };

START_TEST(leaving_from_a_callback_is_safe)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct leaver a = { .daemon = &fx.daemon }, b = { .daemon = &fx.daemon };
	struct collector c = { .stop_after = 6 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.sampling_period_ns = 100000,
		.window_ns = 10000000,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_int_eq(gpd_subscribe(&fx.daemon.registry, &req, &leaver_ops, &a,
				       &a.sub, &err), 0);
	ck_assert_int_eq(gpd_subscribe(&fx.daemon.registry, &req, &leaver_ops, &b,
				       &b.sub, &err), 0);
	ck_assert_int_eq(subscribe(&fx, &c, req, &err), 0);
	fixture_run(&fx, 3000);
	/* Both left after their second frame; the third subscriber streams on. */
	ck_assert_uint_eq(a.frames, 2);
	ck_assert_uint_eq(b.frames, 2);
	ck_assert_uint_ge(c.frames, 6);
	ck_assert_uint_eq(c.sub->device->n_subscribers, 1);

	/* And one that stops the daemon from its callback. */
	c.stop_after = 0;
	struct leaver s = { .daemon = &fx.daemon, .stop_daemon = true };
	ck_assert_int_eq(gpd_subscribe(&fx.daemon.registry, &req, &leaver_ops, &s,
				       &s.sub, &err), 0);
	fixture_run(&fx, 3000);
	ck_assert_uint_eq(s.frames, 2);
	uv_close((uv_handle_t *)&fx.deadline, NULL);
	uv_run(&fx.loop, UV_RUN_DEFAULT);
	gpd_daemon_fini(&fx.daemon);
	ck_assert_int_eq(uv_loop_close(&fx.loop), 0);
}
END_TEST

/*
 * At the fastest period the simulated unit writes reports faster than the
 * daemon reads them: it loses buffers as a slow reader of a real stream
 * would, and the windows still come, with the loss counted.
 */
START_TEST(the_fastest_period_streams_with_its_loss)
{
	struct fixture fx;
	fixture_start_floor(&fx, 0, 1);
	struct collector c = { .stop_after = 3 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.metric_set = "RenderBasic",
		.sampling_period_ns = 1,
		.window_ns = 50000000,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_msg(subscribe(&fx, &c, req, &err) == 0, "%s", err.message);
	ck_assert_uint_eq(c.sub->device->exponent, 0);
	while (c.frames < 3)
		fixture_run(&fx, 100);
	ck_assert_uint_gt(c.reports, 1000);
	ck_assert_uint_gt(c.buffers_lost, 0);
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
}
END_TEST

/* Raw deltas are the window's sums, and each context row has its share. */
START_TEST(frames_carry_their_raw_deltas)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct collector c = { .stop_after = 4 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.sampling_period_ns = 100000,
		.window_ns = 20000000,
		.raw = true,
		.per_context = true,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_msg(subscribe(&fx, &c, req, &err) == 0, "%s", err.message);
	while (c.frames < 4)
		fixture_run(&fx, 100);
	const struct gpd_device *dev = c.sub->device;
	/* Four windows of about 20 ms, the first shorter. */
	ck_assert_uint_gt(gpd_device_ticks_to_ns(dev, c.raw_ticks), 40000000);
	ck_assert_uint_eq(c.context_raw_ticks, c.raw_ticks);
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
}
END_TEST

/* What a subscriber's interval frames held, window by window: their GPU
 * span, reports, and a hash of the raw sums and context rows. */
struct frame_log {
	struct gpd_subscription *sub;
	unsigned n;
	struct logged_frame {
		uint64_t gpu_start_ns, gpu_end_ns, hash;
		uint64_t context_ticks;         /* the rows' raw GPU time */
		uint32_t reports;
		size_t n_contexts;
		bool partial;
	} frame[64];
};

static uint64_t hash_bytes(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static void log_frame(void *user, const struct gpd_frame *f)
{
	struct frame_log *log = user;
	if (f->from_mark || log->n == 64)
		return;
	uint64_t h = hash_bytes(0xcbf29ce484222325ull, f->raw, sizeof(*f->raw));
	uint64_t context_ticks = 0;
	for (size_t i = 0; i < f->n_contexts; i++) {
		const struct gpd_context_row *r = &f->contexts[i];
		context_ticks += r->raw->slot[GPM_ACC_GPU_TIME];
		h = hash_bytes(h, &r->ctx_id, sizeof(r->ctx_id));
		h = hash_bytes(h, &r->reports, sizeof(r->reports));
		h = hash_bytes(h, &r->gpu_time_ns, sizeof(r->gpu_time_ns));
		h = hash_bytes(h, r->raw, sizeof(*r->raw));
	}
	log->frame[log->n++] = (struct logged_frame){
		.gpu_start_ns = f->gpu_start_ns, .gpu_end_ns = f->gpu_end_ns,
		.hash = h, .context_ticks = context_ticks,
		.reports = f->reports, .n_contexts = f->n_contexts,
		.partial = f->partial,
	};
}

static const struct gpd_subscriber_ops log_ops = { .frame = log_frame };

/* The frames of log that a's frames of the same span equal; every frame
 * of log whose span a has must equal it. */
static unsigned same_frames(const struct frame_log *log, const struct frame_log *a)
{
	unsigned same = 0;
	for (unsigned i = 0; i < log->n; i++)
		for (unsigned j = 0; j < a->n; j++) {
			const struct logged_frame *x = &log->frame[i], *y = &a->frame[j];
			if (x->gpu_start_ns != y->gpu_start_ns ||
			    x->gpu_end_ns != y->gpu_end_ns)
				continue;
			ck_assert_uint_eq(x->reports, y->reports);
			ck_assert_uint_eq(x->n_contexts, y->n_contexts);
			ck_assert_uint_eq(x->partial, y->partial);
			ck_assert_msg(x->hash == y->hash, "frame %u's sums differ", i);
			same++;
		}
	return same;
}

/* The frames of log that frames of a cut in parts (at a mark's edges)
 * add up to. */
static unsigned cut_frames(const struct frame_log *log, const struct frame_log *a)
{
	unsigned cut = 0;
	for (unsigned i = 0; i < log->n; i++) {
		const struct logged_frame *x = &log->frame[i];
		uint64_t reports = 0, ticks = 0;
		unsigned parts = 0;
		for (unsigned j = 0; j < a->n; j++) {
			const struct logged_frame *y = &a->frame[j];
			if (y->gpu_start_ns >= x->gpu_start_ns &&
			    y->gpu_end_ns <= x->gpu_end_ns) {
				reports += y->reports;
				ticks += y->context_ticks;
				parts++;
			}
		}
		if (parts < 2)
			continue;
		ck_assert_uint_eq(reports, x->reports);
		ck_assert_uint_eq(ticks, x->context_ticks);
		cut++;
	}
	return cut;
}

static void log_subscribe(struct fixture *fx, struct frame_log *log,
			  struct gpd_subscribe_request req)
{
	struct gpd_error err = { 0 };
	ck_assert_msg(gpd_subscribe(&fx->daemon.registry, &req, &log_ops, log,
				    &log->sub, &err) == 0, "%s", err.message);
}

/*
 * Subscribers of one window length, filter and per-context choice share
 * one sum of the pairs: each pair is summed once for all of them, however
 * many they are. What each is sent is what it would sum alone (a
 * subscription with a duration sums its own): a late one's first window
 * begins where it came, one with a mark sums its own while the mark lasts
 * and shares again after, one of another filter shares another sum.
 */
START_TEST(subscribers_of_one_window_share_its_sums)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct gpd_subscribe_request req = {
		.sampling_period_ns = 100000,
		.window_ns = 20000000,
		.raw = true,
		.per_context = true,
		.role = GPD_ROLE_CONTROLLER,
	};
	static struct frame_log alone, a, late, marked, filtered;
	struct gpd_subscribe_request own = req;
	own.duration_ns = 60000000000ull;
	log_subscribe(&fx, &alone, own);
	log_subscribe(&fx, &a, req);
	log_subscribe(&fx, &marked, req);
	struct gpd_subscribe_request other = req;
	other.ctx_filter = true;
	other.ctx_id = 0x999;
	log_subscribe(&fx, &filtered, other);
	for (int i = 0; i < 400 && a.n < 2; i++)
		fixture_run(&fx, 10);
	/* Mid-window, as far as the loop can tell. */
	fixture_run(&fx, 7);
	log_subscribe(&fx, &late, req);
	struct gpd_error err = { 0 };
	ck_assert_int_eq(gpd_mark_begin(marked.sub, &err), 0);
	unsigned begun_at = a.n;
	for (int i = 0; i < 400 && a.n < begun_at + 3; i++)
		fixture_run(&fx, 10);
	ck_assert_int_eq(gpd_mark_end(marked.sub, &err), 0);
	unsigned ended_at = a.n;
	for (int i = 0; i < 1000 && (a.n < ended_at + 4 || alone.n < 10); i++)
		fixture_run(&fx, 10);

	struct gpd_shared_window *shared = a.sub->shared;
	ck_assert_ptr_nonnull(shared);
	ck_assert_ptr_eq(late.sub->shared, shared);
	ck_assert_ptr_eq(marked.sub->shared, shared);
	ck_assert_uint_eq(shared->n_members, 3);
	ck_assert_ptr_null(alone.sub->shared);
	ck_assert_ptr_nonnull(filtered.sub->shared);
	ck_assert_ptr_ne(filtered.sub->shared, shared);

	ck_assert_uint_ge(same_frames(&alone, &a), 8);
	ck_assert_uint_ge(same_frames(&alone, &late), 6);
	/* The late one's first window began after the others'. */
	ck_assert(late.frame[0].partial);
	unsigned j = 0;
	while (j < a.n && a.frame[j].gpu_end_ns < late.frame[0].gpu_end_ns)
		j++;
	ck_assert_uint_lt(j, a.n);
	ck_assert_uint_eq(a.frame[j].gpu_end_ns, late.frame[0].gpu_end_ns);
	ck_assert_uint_gt(late.frame[0].gpu_start_ns, a.frame[j].gpu_start_ns);
	ck_assert_uint_lt(late.frame[0].reports, a.frame[j].reports);
	/* Cut at the mark's edges, whole windows before and after it. */
	ck_assert_uint_gt(marked.n, a.n);
	ck_assert_uint_ge(same_frames(&alone, &marked), 6);
	ck_assert_uint_ge(cut_frames(&alone, &marked), 1);
	for (unsigned i = 0; i < filtered.n; i++)
		ck_assert_uint_eq(filtered.frame[i].reports, 0);

	gpd_unsubscribe(alone.sub);
	gpd_unsubscribe(a.sub);
	gpd_unsubscribe(late.sub);
	gpd_unsubscribe(marked.sub);
	gpd_unsubscribe(filtered.sub);
	fixture_stop(&fx);
}
END_TEST

/*
 * A duration is GPU time from the first report: the windows cover it to
 * within a sampling period, the first and the last marked partial, and
 * the last says so.
 */
START_TEST(a_duration_ends_with_a_last_partial_window)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct collector c = { 0 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.sampling_period_ns = 100000,
		.window_ns = 100000000,
		.duration_ns = 250000000,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_msg(subscribe(&fx, &c, req, &err) == 0, "%s", err.message);
	while (!c.saw_last)
		fixture_run(&fx, 100);
	uint64_t period = gpd_exponent_to_ns(&c.sub->device->source->info,
					     c.sub->device->exponent);
	ck_assert_uint_le(c.span_ns, 250000000);
	ck_assert_uint_ge(c.span_ns, 250000000 - period);
	ck_assert(c.first_partial);
	ck_assert(c.last_partial);
	ck_assert_uint_ge(c.frames, 3);
	/* Nothing follows the last window. */
	unsigned frames = c.frames;
	fixture_run(&fx, 150);
	ck_assert_uint_eq(c.frames, frames);
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
}
END_TEST

/* A context filter that matches nothing still has windows: empty ones,
 * whose values are no numbers. */
START_TEST(a_filter_that_matches_nothing_gives_empty_windows)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct collector c = { .stop_after = 3 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.sampling_period_ns = 100000,
		.window_ns = 20000000,
		.ctx_filter = true,
		.ctx_id = 0x999,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_msg(subscribe(&fx, &c, req, &err) == 0, "%s", err.message);
	while (c.frames < 3)
		fixture_run(&fx, 100);
	ck_assert_uint_eq(c.reports, 0);
	ck_assert_uint_eq(c.empty_frames, c.frames);
	ck_assert_uint_eq(c.empty_with_numbers, 0);
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
}
END_TEST

/* Interval windows are cut where a mark begins and ends: those within it
 * hold exactly its reports. */
START_TEST(interval_windows_tile_a_mark)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct collector c = { 0 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.sampling_period_ns = 100000,
		.window_ns = 30000000,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_msg(subscribe(&fx, &c, req, &err) == 0, "%s", err.message);
	while (!c.sub->device->stats.reports)
		fixture_run(&fx, 10);
	ck_assert_int_eq(gpd_mark_begin(c.sub, &err), 0);
	unsigned frames = c.frames;
	while (c.frames < frames + 3)
		fixture_run(&fx, 50);
	ck_assert_int_eq(gpd_mark_end(c.sub, &err), 0);
	while (!c.mark_reports)
		fixture_run(&fx, 10);
	ck_assert_uint_gt(c.mark_reports, 500);
	ck_assert_uint_eq(c.within_mark_reports, c.mark_reports);
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
}
END_TEST

/* Sets and counters are named in any case; a typo is answered with the
 * nearest name. */
START_TEST(names_in_any_case_and_typos_answered)
{
	static const char *const lower[] = { "gpubusy" };
	static const char *const typo[] = { "GpuBusyy" };
	struct fixture fx;
	fixture_start(&fx, 0);
	struct collector c = { 0 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.metric_set = "renderBASIC",
		.window_ns = 20000000,
		.counters = lower,
		.n_counters = 1,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_msg(subscribe(&fx, &c, req, &err) == 0, "%s", err.message);
	const char *const *symbols;
	ck_assert_uint_eq(gpd_subscription_counters(c.sub, &symbols), 1);
	ck_assert_str_eq(symbols[0], "GpuBusy");
	gpd_unsubscribe(c.sub);

	struct collector d = { 0 };
	req.counters = typo;
	ck_assert_int_eq(subscribe(&fx, &d, req, &err), -ENOENT);
	ck_assert_str_eq(err.message, "metric set RenderBasic has no counter "
			 "'GpuBusyy'; did you mean GpuBusy? list them with "
			 "'gpuperf counters RenderBasic'");
	req.metric_set = "RenderBasci";
	ck_assert_int_eq(subscribe(&fx, &d, req, &err), -ENOENT);
	ck_assert_str_eq(err.message, "device sim0 (simgen12) has no metric set "
			 "'RenderBasci'; did you mean RenderBasic? list them "
			 "with 'gpuperf sets -d sim0'");
	fixture_stop(&fx);
}
END_TEST

/*
 * A source that hands its records over in pieces: the device's interface
 * asks for whole records, but a read may end anywhere when a source
 * frames badly, and one malformed record must not cost more than its own
 * read. The device's own listener is wrapped; each delivery is counted
 * whole, then passed on in pieces of 1 to 300 bytes (or whole, with a
 * record corrupted).
 */
static struct chopper {
	void (*inner)(void *user, const void *data, size_t len);
	void *inner_user;
	size_t report_size;
	const struct gpm_oa_format *format;
	uint64_t rng;
	uint64_t samples, losses;       /* whole records delivered */
	unsigned deliveries;
	bool whole;                     /* pass deliveries on unsplit */
	unsigned corrupt_at;            /* delivery to corrupt (1-based), 0: none */
	uint64_t samples_before_corrupt;
	bool corrupted;
	unsigned lose_reports;          /* REPORT_LOST records to add, one a delivery */
	/* Ends this subscription's closing mark at the next delivery's first
	 * report: the pair that ends there is the mark's last. */
	struct gpd_subscription *end_mark_at_next_report;
	uint64_t mark_end_ts;           /* where it was ended */
} chop;

static void chop_records(void *user, const void *data, size_t len)
{
	struct chopper *k = user;
	unsigned char *copy = malloc(len + 8);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, data, len);
	k->deliveries++;
	struct gpm_oa_record_reader rd;
	struct gpm_oa_record rec;
	gpm_oa_record_reader_init(&rd, GPM_OA_FRAMING_I915, k->report_size,
				  copy, len);
	unsigned n = 0;
	while (gpm_oa_record_next(&rd, &rec) > 0) {
		n++;
		/* The second record of this delivery claims 3 bytes: no
		 * record is that short, so nothing after it can be framed. */
		if (k->deliveries == k->corrupt_at && n == 2) {
			copy[rec.data - copy + 6] = 3;
			copy[rec.data - copy + 7] = 0;
			k->corrupted = true;
			break;
		}
		if (rec.type == GPM_OA_RECORD_SAMPLE && k->end_mark_at_next_report) {
			const struct gpm_oa_format *fmt = k->format;
			const unsigned char *ts = rec.payload + fmt->ts_offset;
			k->mark_end_ts = fmt->header_bits == 32 ? gpm__le32_load(ts) :
					 gpm__le64_load(ts);
			k->end_mark_at_next_report->mark_end_ts = k->mark_end_ts;
			k->end_mark_at_next_report = NULL;
		}
		if (rec.type == GPM_OA_RECORD_SAMPLE)
			k->samples++;
		else
			k->losses++;
	}
	if (k->corrupted && !k->samples_before_corrupt)
		k->samples_before_corrupt = k->samples;
	for (size_t at = 0; at < len;) {
		size_t piece = 1 + test_xorshift64(&k->rng) % 300;
		if (k->whole || piece > len - at)
			piece = len - at;
		k->inner(k->inner_user, copy + at, piece);
		at += piece;
	}
	if (k->lose_reports) {
		/* struct drm_i915_perf_record_header: type 2, size 8 */
		static const unsigned char report_lost[8] = { 2, 0, 0, 0, 0, 0, 8, 0 };
		k->lose_reports--;
		k->losses++;
		k->inner(k->inner_user, report_lost, sizeof(report_lost));
	}
	free(copy);
}

static void chop_device(struct gpd_device *dev)
{
	struct gpd_source *src = dev->source;
	chop = (struct chopper){
		.inner = src->listener.records,
		.inner_user = src->listener.user,
		.report_size = dev->decoder.format->size,
		.format = dev->decoder.format,
		.rng = 0x9e3779b97f4a7c15ull,
	};
	src->listener.records = chop_records;
	src->listener.user = &chop;
}

START_TEST(records_split_across_reads_are_joined)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct collector c = { .stop_after = 6 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.metric_set = "RenderBasic",
		.sampling_period_ns = 100000,
		.window_ns = 50000000,
		.raw = true,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_msg(subscribe(&fx, &c, req, &err) == 0, "%s", err.message);
	struct gpd_device *dev = c.sub->device;
	chop_device(dev);
	fixture_run(&fx, 10000);
	ck_assert_uint_ge(c.frames, 6);
	ck_assert_uint_gt(chop.samples, 1000);
	/* Every record was decoded once, whatever its pieces. */
	ck_assert_uint_eq(dev->stats.bad_records, 0);
	ck_assert_uint_eq(dev->stats.reports, chop.samples);
	ck_assert_uint_eq(dev->stats.reports_lost + dev->stats.buffers_lost,
			  chop.losses);
	ck_assert_uint_gt(c.checked_values, 100);
	ck_assert_uint_eq(c.out_of_bounds, 0);
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
}
END_TEST

START_TEST(a_malformed_record_costs_the_rest_of_its_read)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct collector c = { .stop_after = 8 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.metric_set = "RenderBasic",
		.sampling_period_ns = 100000,
		.window_ns = 50000000,
		.raw = true,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_msg(subscribe(&fx, &c, req, &err) == 0, "%s", err.message);
	struct gpd_device *dev = c.sub->device;
	chop_device(dev);
	chop.whole = true;
	chop.corrupt_at = 3;
	gpd_log_set_level(GPD_LOG_ERROR);
	fixture_run(&fx, 10000);
	ck_assert(chop.corrupted);
	ck_assert_uint_eq(dev->stats.bad_records, 1);
	/* The reads after it are whole again: the stream goes on, and every
	 * record outside the dropped read is decoded. */
	ck_assert_uint_ge(c.frames, 8);
	ck_assert_uint_eq(dev->stats.reports, chop.samples);
	ck_assert_uint_gt(chop.samples, chop.samples_before_corrupt + 1000);
	ck_assert_uint_eq(c.out_of_bounds, 0);
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
}
END_TEST

/* Runs the loop in short steps until *left is 0 (10 s at most). */
static void run_until_zero(struct fixture *fx, const unsigned *left)
{
	for (int tries = 0; *left && tries < 200; tries++)
		fixture_run(fx, 50);
	ck_assert_uint_eq(*left, 0);
}

/* A report lost while a mark is open is counted in the mark's frame, as
 * a lost buffer is: the sum it gives misses that report. */
START_TEST(a_lost_report_is_counted_into_an_open_mark)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct collector c = { 0 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.metric_set = "RenderBasic",
		.sampling_period_ns = 100000,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_msg(subscribe(&fx, &c, req, &err) == 0, "%s", err.message);
	begin_mark(&fx, c.sub);
	chop_device(c.sub->device);
	chop.whole = true;
	chop.lose_reports = 3;
	run_until_zero(&fx, &chop.lose_reports);
	ck_assert_int_eq(gpd_mark_end(c.sub, &err), 0);
	c.stop_after = 1;
	fixture_run(&fx, 5000);
	ck_assert_uint_eq(c.frames, 1);
	ck_assert_uint_eq(c.sub->device->stats.reports_lost, 3);
	ck_assert_uint_eq(c.reports_lost, 3);
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
}
END_TEST

/* A mark holds the report pairs from the one that starts at its begin to
 * the one that ends at its end, both included. Its edges are host times
 * mapped onto the GPU's clock, which meet a report exactly only by
 * chance; here they are put on reports: the begin on the last report the
 * device has (where the next pair starts), the end on the next report to
 * come. */
START_TEST(a_mark_holds_the_pairs_at_its_edges)
{
	struct fixture fx;
	fixture_start(&fx, 0);
	struct collector c = { 0 };
	struct gpd_error err;
	struct gpd_subscribe_request req = {
		.metric_set = "RenderBasic",
		.sampling_period_ns = 100000,
		.role = GPD_ROLE_CONTROLLER,
	};
	ck_assert_msg(subscribe(&fx, &c, req, &err) == 0, "%s", err.message);
	struct gpd_device *dev = c.sub->device;
	begin_mark(&fx, c.sub);
	ck_assert(dev->have_prev);
	uint64_t begin_ts = dev->prev_ts;
	c.sub->mark_begin_ts = begin_ts;
	fixture_run(&fx, 100);
	ck_assert_int_eq(gpd_mark_end(c.sub, &err), 0);
	chop_device(dev);
	chop.whole = true;
	chop.end_mark_at_next_report = c.sub;
	c.stop_after = 1;
	fixture_run(&fx, 5000);
	ck_assert_ptr_null(chop.end_mark_at_next_report);
	ck_assert_uint_eq(c.frames, 1);
	ck_assert_uint_eq(c.mark_start_ns, gpd_device_ticks_to_ns(dev, begin_ts));
	ck_assert_uint_eq(c.mark_end_ns, gpd_device_ticks_to_ns(dev, chop.mark_end_ts));
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
}
END_TEST

/*
 * --linger: the stream stays open for a while after its last subscriber
 * leaves, so a client that comes straight back finds it running; then it
 * closes.
 */
START_TEST(the_stream_lingers_then_closes)
{
	static const char *devices[] = { "sim" };
	struct gpd_options opts = {
		.device_specs = devices,
		.n_device_specs = 1,
		.seed = 7,
		.linger_ms = 300,
	};
	struct fixture fx;
	struct gpd_error err = { 0 };
	gpd_log_set_level(GPD_LOG_WARNING);
	uv_loop_init(&fx.loop);
	ck_assert_msg(gpd_daemon_init(&fx.daemon, &fx.loop, &opts, &err) == 0,
		      "%s", err.message);
	uv_timer_init(&fx.loop, &fx.deadline);
	struct gpd_subscribe_request req = {
		.metric_set = "RenderBasic",
		.sampling_period_ns = 100000,
		.window_ns = 20000000,
		.role = GPD_ROLE_CONTROLLER,
	};
	struct collector c = { .stop_after = 2 };
	ck_assert_msg(subscribe(&fx, &c, req, &err) == 0, "%s", err.message);
	struct gpd_device *dev = c.sub->device;
	fixture_run(&fx, 10000);
	ck_assert_uint_ge(c.frames, 2);

	/* Left: still open, and a subscriber back within the linger keeps
	 * it open past the linger's end. */
	gpd_unsubscribe(c.sub);
	ck_assert(dev->open);
	struct collector again = { .stop_after = 1 };
	ck_assert_msg(subscribe(&fx, &again, req, &err) == 0, "%s", err.message);
	uint64_t from = uv_now(&fx.loop);
	while (uv_now(&fx.loop) - from < 700)
		fixture_run(&fx, 100);
	ck_assert_msg(dev->open, "the stream closed under a subscriber");
	ck_assert_uint_ge(again.frames, 1);

	/* Left for good: open until the linger ends, then closed. */
	gpd_unsubscribe(again.sub);
	uv_update_time(&fx.loop);
	from = uv_now(&fx.loop);
	ck_assert(dev->open);
	for (int i = 0; i < 100 && dev->open; i++)
		fixture_run(&fx, 50);
	uv_update_time(&fx.loop);
	ck_assert_msg(!dev->open, "the stream did not close once the linger ended");
	ck_assert_uint_ge(uv_now(&fx.loop) - from, 300);
	fixture_stop(&fx);
}
END_TEST

static Suite *daemon_sim_suite(void)
{
	Suite *s = suite_create("daemon_sim");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, frames_arrive_per_window_within_bounds);
	tcase_add_test(tc, every_set_stays_within_bounds);
	tcase_add_test(tc, contexts_show_up_per_context);
	tcase_add_test(tc, resubmissions_are_not_idle);
	tcase_add_test(tc, reconfiguration_reaches_every_subscriber);
	tcase_add_test(tc, viewer_with_another_set_is_refused);
	tcase_add_test(tc, a_refused_subscribe_changes_nothing);
	tcase_add_test(tc, stalled_consumer_loses_the_buffer_and_says_so);
	tcase_add_test(tc, marks_bound_a_window);
	tcase_add_test(tc, loss_is_counted_into_an_open_mark);
	tcase_add_test(tc, marks_keep_the_context_filter);
	tcase_add_test(tc, a_per_context_mark_has_its_contexts_rows);
	tcase_add_test(tc, recordings_keep_the_losses);
	tcase_add_test(tc, recordings_stop_at_their_limit);
	tcase_add_test(tc, recordings_end_on_reconfiguration);
	tcase_add_test(tc, recordings_end_for_a_slow_client);
	tcase_add_test(tc, frame_cpu_times_follow_the_gpu_clock);
	tcase_add_test(tc, sim_frames_carry_their_reports_true_cpu_times);
	tcase_add_test(tc, leaving_from_a_callback_is_safe);
	tcase_add_test(tc, the_fastest_period_streams_with_its_loss);
	tcase_add_test(tc, viewers_do_not_configure_and_nobody_goes_below_the_floor);
	tcase_add_test(tc, duplicates_are_sent_once_and_evaluations_are_budgeted);
	tcase_add_test(tc, a_configuration_over_anyones_budget_changes_nothing);
	tcase_add_test(tc, recordings_are_counted_in_the_budget_when_they_evaluate);
	tcase_add_test(tc, frames_carry_their_raw_deltas);
	tcase_add_test(tc, subscribers_of_one_window_share_its_sums);
	tcase_add_test(tc, a_duration_ends_with_a_last_partial_window);
	tcase_add_test(tc, a_filter_that_matches_nothing_gives_empty_windows);
	tcase_add_test(tc, interval_windows_tile_a_mark);
	tcase_add_test(tc, names_in_any_case_and_typos_answered);
	tcase_add_test(tc, records_split_across_reads_are_joined);
	tcase_add_test(tc, a_malformed_record_costs_the_rest_of_its_read);
	tcase_add_test(tc, the_stream_lingers_then_closes);
	tcase_add_test(tc, a_lost_report_is_counted_into_an_open_mark);
	tcase_add_test(tc, a_mark_holds_the_pairs_at_its_edges);
	tcase_add_test(tc, frame_cpu_times_never_go_back);
	tcase_add_test(tc, recordings_close_within_their_limit);
	suite_add_tcase(s, tc);
	/* On the stepped sim: the same windows every run. */
	TCase *stepped = tcase_create("stepped");
	tcase_add_test(stepped, fewer_counters_then_more_contexts_get_their_rows);
	suite_add_tcase(s, stepped);
	return s;
}

GPM_TEST_MAIN(daemon_sim_suite)
