/*
 * The i915 source on the fake kernel, driven in-process through the
 * subscription API: frames equal to the same model run through the sim
 * source, the registers ADD_CONFIG is given, metric set switches with
 * I915_PERF_IOCTL_CONFIG, context handles, short reads, lost reports and
 * buffers, and getting the stream back after EIO.
 */
#include <errno.h>
#include <string.h>

#include <uv.h>
#include <xf86drm.h>
#include <i915_drm.h>

#include "daemon/daemon.h"
#include "daemon/discovery.h"
#include "daemon/drm/oa_source.h"
#include "daemon/log.h"
#include "daemon/net/hello.h"
#include "metrics/metric_binding.h"
#include "metrics/metrics_db.h"
#include "tests/unit/fake_machine_daemon.h"
#include "tests/unit/test_util.h"

START_TEST(frames_equal_the_sim_source)
{
	fixture_check_frames_equal_the_sim_source("i915");
}
END_TEST

START_TEST(add_config_gets_the_binding_registers_and_close_removes_them)
{
	struct fixture fx;
	struct collector c = { 0 };
	fixture_start(&fx, "i915", "");
	fixture_stream(&fx, &c);

	const struct gpd_device *dev = gpd_daemon_find_device(&fx.daemon, NULL);
	const struct gpm_binding *b = dev->binding;
	char want[256];
	snprintf(want, sizeof(want), "card0 ADD_CONFIG uuid=%s mux=%zu boolean=%zu "
		 "flex=%zu -> 2", b->set->hw_config_guid,
		 b->n_registers[GPM_REGISTERS_MUX],
		 b->n_registers[GPM_REGISTERS_BOOLEAN],
		 b->n_registers[GPM_REGISTERS_FLEX]);
	ck_assert_uint_gt(b->n_registers[GPM_REGISTERS_MUX], 0);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine, want), 1);
	/* 1 ms at 19.2 MHz: 2^14 ticks is the longest period within it. */
	ck_assert_uint_eq(fake_machine_requests(&fx.machine,
		"PERF_OPEN flags=0x3 SAMPLE_OA=1 OA_METRICS_SET=2 OA_FORMAT=10 "
		"OA_EXPONENT=13 POLL_OA_PERIOD=5000000 -> "), 1);

	gpd_unsubscribe(c.sub);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine, "REMOVE_CONFIG id=2 -> 0"), 1);
	fixture_stop(&fx);
	fake_machine_stop(&fx.machine);
}
END_TEST

/* c, streaming RenderBasic, switches to ComputeBasic and gets more
 * frames of it. */
static void switch_to_compute_basic(struct fixture *fx, struct collector *c,
				    unsigned more)
{
	fixture_stream(fx, c);
	struct gpd_error err = { 0 };
	/* The switch hands out the window summed so far. */
	c->stop_after = 0;
	ck_assert_msg(gpd_reconfigure(c->sub, "ComputeBasic", 0, &err) == 0, "%s",
		      err.message);
	c->stop_after = c->frames + more;
	fixture_run(fx, 5000);
	ck_assert_str_eq(c->last_set, "ComputeBasic");
}

/*
 * I915_PERF_IOCTL_CONFIG queues the new configuration on the kernel
 * context at low priority and returns (i915_perf_config_locked()): it
 * takes effect when the GPU next idles, which nothing tells. The switch
 * opens a new stream instead, whose open waits for its configuration, so
 * no frame of the new set holds a report the OA unit wrote with the old
 * programming.
 */
START_TEST(set_switch_counts_no_report_with_the_old_programming)
{
	struct fixture fx;
	struct collector c = { 0 };
	fixture_start(&fx, "i915", "");
	switch_to_compute_basic(&fx, &c, 4);
	/* The fake kernel logs when its OA unit took a configuration: the
	 * last is ComputeBasic's. */
	unsigned long long from_tick;
	ck_assert(fake_machine_request_value(&fx.machine,
		" in effect from OA tick ", &from_tick));
	uint64_t from_ns = from_tick * 1000000000ull / 19200000;
	unsigned checked = 0;
	for (unsigned f = 0; f < c.frames && f < COLLECTOR_FRAMES; f++) {
		if (strcmp(c.set[f], "ComputeBasic"))
			continue;
		checked++;
		ck_assert_msg(c.gpu_start[f] >= from_ns,
			      "frame %u of ComputeBasic starts at %llu ns, its "
			      "programming took effect at %llu ns", f,
			      (unsigned long long)c.gpu_start[f],
			      (unsigned long long)from_ns);
	}
	/* The collector keeps the first frames only: some must be the new
	 * set's, or nothing was checked. */
	ck_assert_msg(checked > 0, "none of the %u frames kept is ComputeBasic's",
		      c.frames < COLLECTOR_FRAMES ? c.frames : COLLECTOR_FRAMES);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine, "PERF_OPEN"), 2);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine, "stream CONFIG"), 0);
	gpd_unsubscribe(c.sub);
	/* Both sets were registered here, so both go. */
	ck_assert_uint_eq(fake_machine_requests(&fx.machine, "REMOVE_CONFIG"), 2);
	fixture_stop(&fx);
	fake_machine_stop(&fx.machine);
}
END_TEST

START_TEST(old_kernels_take_no_poll_period)
{
	struct fixture fx;
	struct collector c = { 0 };
	setenv("GPD_FAKE_KERNEL_PERF_REVISION", "1", 1);
	fixture_start(&fx, "i915", "RenderBasic,ComputeBasic");
	switch_to_compute_basic(&fx, &c, 2);
	/* Revision 1: no poll period property. */
	ck_assert_uint_eq(fake_machine_requests(&fx.machine, "PERF_OPEN"), 2);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine, "POLL_OA_PERIOD"), 0);
	fixture_finish(&fx, &c);
	unsetenv("GPD_FAKE_KERNEL_PERF_REVISION");
}
END_TEST

static void count_records(void *user, const void *data, size_t len)
{
	*(size_t *)user += len;
}

static void ignore_event(void *user, enum gpd_event_kind kind, const char *message)
{
}

/* A timer's: stops the loop once the count its data points to is not 0. */
static void stop_once_read(uv_timer_t *t)
{
	if (*(size_t *)t->data)
		uv_stop(t->loop);
}

/* A context the daemon's own DRM file made: the engines map, when given,
 * lists the engines it runs on. */
static uint32_t create_context(int card_fd, const struct i915_engine_class_instance *engine)
{
	I915_DEFINE_CONTEXT_PARAM_ENGINES(engines, 1) = { 0 };
	struct drm_i915_gem_context_create_ext_setparam setparam = {
		.base.name = I915_CONTEXT_CREATE_EXT_SETPARAM,
		.param = {
			.param = I915_CONTEXT_PARAM_ENGINES,
			.size = sizeof(engines),
			.value = (uintptr_t)&engines,
		},
	};
	struct drm_i915_gem_context_create_ext create = { 0 };
	if (engine) {
		engines.engines[0] = *engine;
		create.flags = I915_CONTEXT_CREATE_FLAGS_USE_EXTENSIONS;
		create.extensions = (uintptr_t)&setparam;
	}
	ck_assert_int_eq(drmIoctl(card_fd, DRM_IOCTL_I915_GEM_CONTEXT_CREATE_EXT,
				  &create), 0);
	return create.ctx_id;
}

/*
 * A context handle is the caller's DRM file's (i915_gem_context_lookup()
 * looks in that file only): another process's handle 1 is not the
 * daemon's, so the fake kernel answers ENOENT for a handle the daemon's
 * file never made; a context whose engine map lacks the render engine
 * cannot be pinned for the render OA unit (oa_pin_context(): ENODEV).
 */
START_TEST(context_handles_reach_the_kernel)
{
	struct fake_machine m;
	char metrics[PATH_MAX];
	test_shared_path(metrics, sizeof(metrics), "intel-metrics/i915");
	fake_machine_start(&m, "i915:tglgt2", metrics, "RenderBasic");
	gpd_log_set_level(GPD_LOG_ERROR);
	uv_loop_t loop;
	uv_loop_init(&loop);
	struct gpd_drm_roots roots = { .dev = m.dev_root, .sysfs = m.sysfs_root };
	struct gpd_drm_card_sources card;
	struct gpd_error err = { 0 };
	ck_assert_msg(gpd_drm_source_create(&loop, GPD_SOURCE_I915, m.node, &roots,
					    &card, &err) == 0, "%s", err.message);
	struct gpd_source *src = card.source;
	if (card.usage)
		card.usage->ops->destroy(card.usage);
	struct gpm_metrics_db db;
	gpm_metrics_db_init(&db);
	ck_assert_int_gt(gpm_metrics_db_add_dir(&db, metrics), 0);
	const struct gpm_metric_set *set =
		gpm_metrics_db_find_set(&db, "tglgt2", "RenderBasic");
	ck_assert_ptr_nonnull(set);
	struct gpm_device_vars vars;
	gpm_device_vars_init(&vars, &src->info);
	struct gpm_binding binding;
	ck_assert_int_eq(gpm_binding_init(&binding, set, &vars), 0);
	size_t bytes = 0;
	src->listener = (struct gpd_source_listener){
		.records = count_records, .event = ignore_event, .user = &bytes,
	};
	int card_fd = ((struct gpd_drm_oa_source *)src)->card_fd;
	struct gpd_stream_config cfg = {
		.set = set, .binding = &binding, .exponent = 10,
		.ctx_filter = true, .ctx_fd = card_fd, .ctx_handle = 1,
	};
	/* Nothing made handle 1 in the daemon's file yet. */
	ck_assert_int_eq(src->ops->open(src, &cfg, &err), -ENOENT);
	ck_assert_msg(strstr(err.message, "the DRM file passed owns no GEM "
			     "context 1 (ENOENT)"), "%s", err.message);

	const struct i915_engine_class_instance video = {
		.engine_class = I915_ENGINE_CLASS_VIDEO,
	};
	uint32_t video_only = create_context(card_fd, &video);
	ck_assert_uint_eq(video_only, 1);
	cfg.ctx_handle = video_only;
	ck_assert_int_eq(src->ops->open(src, &cfg, &err), -ENODEV);
	ck_assert_msg(strstr(err.message, "cannot sample GEM context 1 (ENODEV)"),
		      "%s", err.message);

	uint32_t ctx = create_context(card_fd, NULL);
	ck_assert_uint_eq(ctx, 2);
	cfg.ctx_handle = ctx;
	ck_assert_msg(src->ops->open(src, &cfg, &err) == 0, "%s", err.message);
	ck_assert_uint_eq(fake_machine_requests(&m, "OA_EXPONENT=10 CTX_HANDLE=2"), 1);
	/* Until the context's reports come (Check's timeout bounds it). */
	uv_timer_t t;
	uv_timer_init(&loop, &t);
	t.data = &bytes;
	uv_timer_start(&t, stop_once_read, 10, 10);
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert_uint_gt(bytes, 0);
	src->ops->destroy(src);
	uv_close((uv_handle_t *)&t, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
	gpm_binding_fini(&binding);
	gpm_metrics_db_fini(&db);
	fake_machine_stop(&m);
}
END_TEST

START_TEST(lost_reports_and_buffers_are_counted)
{
	struct fixture fx;
	struct collector c = { 0 };
	fixture_start(&fx, "i915", "RenderBasic");
	fixture_check_loss(&fx, &c, NULL);
	fixture_finish(&fx, &c);
}
END_TEST

START_TEST(eio_reopens_and_counts_the_gap)
{
	struct fixture fx;
	struct collector c = { 0 };
	fixture_start(&fx, "i915", "RenderBasic");
	fixture_stream(&fx, &c);
	/* The unit is taken while the stream is down: the subscriber hears
	 * of it, and of the recovery once it is free again. */
	fake_machine_control(&fx.machine, "eio_after=2\nbusy=1\n");
	c.stop_on_event = true;
	c.stop_event = GPD_EVENT_BUSY_ELSEWHERE;
	c.stop_after = 0;
	fixture_run(&fx, 5000);
	ck_assert(collector_saw(&c, GPD_EVENT_DEVICE_LOST,
			    "the kernel stopped the OA stream (EIO"));
	ck_assert(collector_saw(&c, GPD_EVENT_BUSY_ELSEWHERE,
			    "the OA unit of card0 is in use by another process"));
	/* Nobody has to do anything but free the unit: the daemon retries. */
	ck_assert(collector_saw(&c, GPD_EVENT_BUSY_ELSEWHERE, "resumes by itself"));
	ck_assert(!collector_saw(&c, GPD_EVENT_BUSY_ELSEWHERE, "subscribe again"));
	/* Whoever passes an event on names the device; it does not. */
	ck_assert(!collector_saw(&c, GPD_EVENT_DEVICE_LOST, "card0:"));
	fake_machine_control(&fx.machine, "busy=0\n");
	c.stop_event = GPD_EVENT_RECOVERED;
	fixture_run(&fx, 10000);
	ck_assert(collector_saw(&c, GPD_EVENT_RECOVERED, "OA stream reopened after"));
	c.stop_on_event = false;
	c.stop_after = c.frames + 2;
	fixture_run(&fx, 5000);
	ck_assert_uint_eq(c.buffers_lost, 1);
	ck_assert_uint_gt(c.frames_after_loss, 0);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine, "-> EBUSY"), 1);
	fixture_finish(&fx, &c);
}
END_TEST

/* i915 reports Meteor Lake GT3's eight Xe cores as one slice of 32
 * dual-subslices; its metric file names Xe cores 4-7 $GtSlice1XeCore0-3,
 * which Mesa finds in slices of four. Those counters are there. */
START_TEST(xe_cores_past_the_first_four_are_available)
{
	struct fixture fx;
	struct collector c = { .stop_after = 2 };
	const char *counters[] = { "Sampler10InputAvailable" };
	struct gpd_subscribe_request req = {
		.metric_set = "Sampler",
		.sampling_period_ns = 1000000,
		.window_ns = 10000000,
		.counters = counters,
		.n_counters = 1,
		.role = GPD_ROLE_CONTROLLER,
	};
	struct gpd_error err = { 0 };
	fixture_start_on(&fx, "i915", "mtlgt3", "");
	c.daemon = &fx.daemon;
	ck_assert_msg(gpd_subscribe(&fx.daemon.registry, &req, &collector_ops, &c, &c.sub,
				    &err) == 0, "%s", err.message);
	fixture_run(&fx, 5000);
	ck_assert_uint_ge(c.frames, 2);
	const struct gpd_device *dev = gpd_daemon_find_device(&fx.daemon, NULL);
	ck_assert_uint_eq(dev->source->info.topology.max_slices, 1);
	ck_assert_uint_eq(dev->vars.value[GPM_VAR_EU_SLICES_TOTAL_COUNT], 2);
	gpd_unsubscribe(c.sub);
	fixture_stop(&fx);
	fake_machine_stop(&fx.machine);
}
END_TEST

/*
 * MTL's media sets (oa_format 128B_MPEC8_NOA16) count media events in the
 * MPES registers of the media GT's OAM unit: i915 streams it for a video
 * engine (OA_ENGINE_CLASS/INSTANCE, perf revision 7) in an OAM format
 * (i915_oa_stream_init(), engine_supports_oa_format()). On the render
 * engine's OAG unit the same registers would give garbage, and no error.
 */
START_TEST(media_sets_stream_on_the_media_unit)
{
	struct fixture fx;
	struct collector c = { 0 };
	struct gpd_error err = { 0 };
	fixture_start_on(&fx, "i915", "mtlgt2", "");
	ck_assert_msg(fixture_stream_gpu_time(&fx, &c, "MediaSet1", &err) == 0, "%s",
		      err.message);
	ck_assert_uint_ge(c.frames, 3);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine,
		"OA_FORMAT=14 OA_EXPONENT=14 OA_ENGINE_CLASS=2 "
		"OA_ENGINE_INSTANCE=0 POLL_OA_PERIOD=5000000 -> "), 1);
	/* The unit's reports decode: GpuTime covers the window. */
	fixture_gpu_time_covers_the_window(&c);
	gpd_unsubscribe(c.sub);
	/* A render set goes back to the OAG unit. */
	struct collector r = { 0 };
	ck_assert_msg(fixture_stream_gpu_time(&fx, &r, "RenderBasic", &err) == 0, "%s",
		      err.message);
	ck_assert_uint_ge(r.frames, 3);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine, "OA_ENGINE_CLASS"), 1);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine,
		"OA_FORMAT=12 OA_EXPONENT=14 POLL_OA_PERIOD=5000000 -> "), 1);
	fixture_finish(&fx, &r);
}
END_TEST

/* Before perf revision 7 i915 streams no video engine: a media set is
 * unavailable, and says why. */
START_TEST(media_sets_need_perf_revision_7)
{
	struct fixture fx;
	struct collector c = { 0 };
	struct gpd_error err = { 0 };
	setenv("GPD_FAKE_KERNEL_PERF_REVISION", "6", 1);
	fixture_start_on(&fx, "i915", "mtlgt2", "");
	ck_assert_int_eq(fixture_stream_gpu_time(&fx, &c, "MediaSet1", &err), -ENODEV);
	ck_assert_msg(strstr(err.message, "MediaSet1 counts on the media GT's "
			     "OAM unit, which i915 perf revision 6 cannot "
			     "stream"), "%s", err.message);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine, "PERF_OPEN"), 0);
	/* The Hello lists it as unavailable, in the same words. */
	struct gpd_hello *h;
	ck_assert_int_eq(gpd_hello_create(&fx.daemon.registry, &h), 0);
	struct gpd_send_queue q = { 0 };
	Gpuperf__Limits limits = GPUPERF__LIMITS__INIT;
	struct gpd_message *m = gpd_hello_pack(h, &q, 1,
		GPUPERF__ROLE__ROLE_CONTROLLER, &limits);
	ck_assert_ptr_nonnull(m);
	Gpuperf__Envelope *env = gpuperf__envelope__unpack(NULL, m->len, m->data);
	ck_assert_ptr_nonnull(env);
	ck_assert_ptr_nonnull(env->hello);
	const Gpuperf__Device *d = env->hello->devices[0];
	unsigned media = 0, render_unavailable = 0;
	for (size_t i = 0; i < d->n_metric_sets; i++) {
		const Gpuperf__MetricSet *set = d->metric_sets[i];
		if (!strcmp(set->symbol, "MediaSet1")) {
			media++;
			ck_assert_msg(strstr(set->unavailable, "i915 perf revision 6 "
					     "cannot stream"), "%s", set->unavailable);
		}
		if (!strcmp(set->symbol, "RenderBasic") && *set->unavailable)
			render_unavailable++;
	}
	ck_assert_uint_eq(media, 1);
	ck_assert_uint_eq(render_unavailable, 0);
	gpuperf__envelope__free_unpacked(env, NULL);
	free(m);
	gpd_hello_destroy(h);
	fixture_stop(&fx);
	fake_machine_stop(&fx.machine);
	unsetenv("GPD_FAKE_KERNEL_PERF_REVISION");
}
END_TEST

static Suite *i915_source_suite(void)
{
	Suite *s = suite_create("i915_source");
	TCase *tc = tcase_create("fake kernel");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, frames_equal_the_sim_source);
	tcase_add_test(tc, add_config_gets_the_binding_registers_and_close_removes_them);
	tcase_add_test(tc, set_switch_counts_no_report_with_the_old_programming);
	tcase_add_test(tc, old_kernels_take_no_poll_period);
	tcase_add_test(tc, context_handles_reach_the_kernel);
	tcase_add_test(tc, lost_reports_and_buffers_are_counted);
	tcase_add_test(tc, eio_reopens_and_counts_the_gap);
	tcase_add_test(tc, xe_cores_past_the_first_four_are_available);
	tcase_add_test(tc, media_sets_stream_on_the_media_unit);
	tcase_add_test(tc, media_sets_need_perf_revision_7);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(i915_source_suite)
