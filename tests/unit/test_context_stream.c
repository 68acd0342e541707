/*
 * One application's context through the kernel's filter: a subscription
 * that presents a DRM file and a context (i915) or exec queue (xe) of it,
 * on the fake kernel (daemon/subscription.c, daemon/device.c, the i915
 * and xe sources).
 *
 * The application's side is this test: it opens the card node, which
 * gives it a DRM file of its own, and creates contexts there, as an
 * application does; the daemon streams through the fd it is handed.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <i915_drm.h>
#include <xf86drm.h>

#include "daemon/xe/xe_uapi.h"
#include "tests/unit/fake_machine_daemon.h"

/* What a context subscriber saw. */
struct seen {
	struct gpd_daemon *daemon;
	unsigned frames, frames_with_reports;
	uint32_t contexts[8];           /* the non-idle context rows' IDs */
	unsigned n_contexts;
	unsigned context_rows;          /* of every frame, idle ones too */
};

static void seen_frame(void *user, const struct gpd_frame *f)
{
	struct seen *s = user;
	s->frames++;
	if (f->reports)
		s->frames_with_reports++;
	s->context_rows += (unsigned)f->n_contexts;
	for (size_t i = 0; i < f->n_contexts; i++) {
		uint32_t id = f->contexts[i].ctx_id;
		bool known = id == GPD_CTX_IDLE;
		for (unsigned k = 0; k < s->n_contexts && !known; k++)
			known = s->contexts[k] == id;
		if (!known && s->n_contexts < 8)
			s->contexts[s->n_contexts++] = id;
	}
	if (s->frames >= 4)
		uv_stop(s->daemon->loop);
}

static const struct gpd_subscriber_ops seen_ops = { .frame = seen_frame };

/* The application's DRM file: a node of the fake machine opened anew. */
static int open_card(const struct fake_machine *m, unsigned index)
{
	char node[160];
	snprintf(node, sizeof(node), "%s/dev/dri/card%u", m->root, index);
	int fd = open(node, O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	return fd;
}

static uint32_t create_context(int fd)
{
	struct drm_i915_gem_context_create create = { 0 };
	ck_assert_int_eq(drmIoctl(fd, DRM_IOCTL_I915_GEM_CONTEXT_CREATE,
				  &create), 0);
	return create.ctx_id;
}

/* RenderBasic every ms, in 10 ms windows with per-context rows; with
 * ctx_fd >= 0, of context handle of that file through the kernel. */
static int subscribe(struct fixture *fx, struct seen *s, int ctx_fd,
		     uint32_t handle, struct gpd_subscription **sub,
		     struct gpd_error *err)
{
	struct gpd_subscribe_request req = {
		.metric_set = "RenderBasic",
		.sampling_period_ns = 1000000,
		.window_ns = 10000000,
		.per_context = true,
		.role = GPD_ROLE_VIEWER,
		.kernel_ctx_filter = ctx_fd >= 0,
		.ctx_fd = ctx_fd,
		.ctx_handle = handle,
	};
	s->daemon = &fx->daemon;
	return gpd_subscribe(&fx->daemon.registry, &req, &seen_ops, s, sub, err);
}

static bool fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/*
 * The stream opens through the application's file with its handle
 * (i915_perf_open_ioctl_locked() looks it up there), and its frames hold
 * that context alone, where a system-wide stream of the same workload
 * holds several. The daemon holds the fd it was given for the stream's
 * life and closes it when the stream ends.
 */
START_TEST(a_passed_context_is_streamed_alone)
{
	struct fixture fx;
	fixture_start(&fx, "i915", "RenderBasic");
	struct gpd_error err = { 0 };

	struct seen wide = { 0 };
	struct gpd_subscription *sub;
	ck_assert_msg(subscribe(&fx, &wide, -1, 0, &sub, &err) == 0, "%s",
		      err.message);
	fixture_run(&fx, 5000);
	gpd_unsubscribe(sub);
	ck_assert_uint_ge(wide.n_contexts, 2);

	int app = open_card(&fx.machine, 0);
	uint32_t handle = create_context(app);
	int passed = dup(app);
	struct seen own = { 0 };
	ck_assert_msg(subscribe(&fx, &own, passed, handle, &sub, &err) == 0,
		      "%s", err.message);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine, "CTX_HANDLE=1"), 1);
	fixture_run(&fx, 5000);
	ck_assert_uint_ge(own.frames_with_reports, 2);
	ck_assert_uint_eq(own.n_contexts, 1);
	ck_assert(fd_is_open(passed));
	gpd_unsubscribe(sub);
	ck_assert(!fd_is_open(passed));
	ck_assert(fd_is_open(app));
	close(app);
	fixture_stop(&fx);
	fake_machine_stop(&fx.machine);
}
END_TEST

/*
 * A handle of another DRM file is not the passed file's: the kernel's
 * ENOENT, in words, and nothing changes (the caller keeps its fd, the
 * device stays closed).
 */
START_TEST(another_files_context_gets_the_kernels_error)
{
	struct fixture fx;
	fixture_start(&fx, "i915", "RenderBasic");
	int owner = open_card(&fx.machine, 0);
	int other = open_card(&fx.machine, 0);
	uint32_t handle = create_context(owner);
	struct seen s = { 0 };
	struct gpd_subscription *sub = NULL;
	struct gpd_error err = { 0 };
	ck_assert_int_eq(subscribe(&fx, &s, other, handle, &sub, &err), -ENOENT);
	ck_assert_msg(strstr(err.message, "the DRM file passed owns no GEM "
			     "context 1 (ENOENT)"), "%s", err.message);
	ck_assert_ptr_null(sub);
	ck_assert(fd_is_open(other));
	struct gpd_device *dev = gpd_device_registry_find(&fx.daemon.registry,
							  NULL);
	ck_assert(!dev->open);
	ck_assert(!dev->ctx_filter);
	close(owner);
	close(other);
	fixture_stop(&fx);
	fake_machine_stop(&fx.machine);
}
END_TEST

/* A file that is no DRM node, or a node of another GPU, is refused
 * before the kernel is asked anything. */
START_TEST(a_file_of_no_drm_node_or_of_another_gpu_is_refused_first)
{
	struct fixture fx;
	char metrics[PATH_MAX], spec[160];
	test_shared_path(fx.metrics, sizeof(fx.metrics), "intel-metrics/i915");
	snprintf(metrics, sizeof(metrics), "%s", fx.metrics);
	fake_machine_start(&fx.machine, "i915:tglgt2,i915:tglgt2", metrics,
			   "RenderBasic");
	snprintf(spec, sizeof(spec), "i915:%s", fx.machine.node);
	fixture_daemon(&fx, spec, 1);

	int pipe_fds[2];
	ck_assert_int_eq(pipe(pipe_fds), 0);
	struct seen s = { 0 };
	struct gpd_subscription *sub = NULL;
	struct gpd_error err = { 0 };
	ck_assert_int_eq(subscribe(&fx, &s, pipe_fds[0], 0, &sub, &err), -ENOTTY);
	ck_assert_msg(strstr(err.message, "is not a DRM device node"), "%s",
		      err.message);

	int card1 = open_card(&fx.machine, 1);
	ck_assert_int_eq(subscribe(&fx, &s, card1, 0, &sub, &err), -EXDEV);
	ck_assert_msg(strstr(err.message, "a node of another GPU"), "%s",
		      err.message);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine, "PERF_OPEN"), 0);
	ck_assert(fd_is_open(card1));
	close(card1);
	close(pipe_fds[0]);
	close(pipe_fds[1]);
	fixture_stop(&fx);
	fake_machine_stop(&fx.machine);
}
END_TEST

/*
 * The unit has one configuration: a single-context stream opens only
 * where nobody else streams, and while it runs nobody else subscribes.
 */
START_TEST(system_wide_and_context_streams_refuse_each_other)
{
	struct fixture fx;
	fixture_start(&fx, "i915", "RenderBasic");
	struct gpd_error err = { 0 };
	struct seen wide = { 0 }, own = { 0 };
	struct gpd_subscription *wide_sub, *own_sub = NULL;
	ck_assert_int_eq(subscribe(&fx, &wide, -1, 0, &wide_sub, &err), 0);

	int app = open_card(&fx.machine, 0);
	uint32_t handle = create_context(app);
	ck_assert_int_eq(subscribe(&fx, &own, app, handle, &own_sub, &err),
			 -EBUSY);
	ck_assert_msg(strstr(err.message, "streams system-wide for other "
			     "subscribers"), "%s", err.message);
	ck_assert(fd_is_open(app));
	gpd_unsubscribe(wide_sub);

	ck_assert_msg(subscribe(&fx, &own, app, handle, &own_sub, &err) == 0,
		      "%s", err.message);
	ck_assert_int_eq(subscribe(&fx, &wide, -1, 0, &wide_sub, &err), -EBUSY);
	ck_assert_msg(strstr(err.message, "shows it to nobody else"), "%s",
		      err.message);
	gpd_unsubscribe(own_sub);
	ck_assert_msg(subscribe(&fx, &wide, -1, 0, &wide_sub, &err) == 0, "%s",
		      err.message);
	gpd_unsubscribe(wide_sub);
	fixture_stop(&fx);
	fake_machine_stop(&fx.machine);
}
END_TEST

/*
 * Haswell's reports carry no context ID: a software filter cannot work
 * there and is refused, while the kernel's (the unit's per-context mode)
 * streams the context.
 */
START_TEST(haswell_isolates_a_context_through_the_kernel_only)
{
	struct fixture fx;
	fixture_start_on(&fx, "i915", "hsw", "RenderBasic");
	struct gpd_error err = { 0 };
	struct seen s = { 0 };
	struct gpd_subscription *sub = NULL;
	struct gpd_subscribe_request req = {
		.metric_set = "RenderBasic",
		.window_ns = 10000000,
		.ctx_filter = true,
		.ctx_id = 1,
	};
	s.daemon = &fx.daemon;
	ck_assert_int_eq(gpd_subscribe(&fx.daemon.registry, &req, &seen_ops, &s,
				       &sub, &err), -EINVAL);
	ck_assert_msg(strstr(err.message, "reports carry no context ID"), "%s",
		      err.message);

	int app = open_card(&fx.machine, 0);
	req = (struct gpd_subscribe_request){
		.metric_set = "RenderBasic",
		.sampling_period_ns = 1000000,
		.window_ns = 10000000,
		.kernel_ctx_filter = true,
		.ctx_fd = app,
		.ctx_handle = create_context(app),
	};
	ck_assert_msg(gpd_subscribe(&fx.daemon.registry, &req, &seen_ops, &s,
				    &sub, &err) == 0, "%s", err.message);
	fixture_run(&fx, 5000);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine, "CTX_HANDLE=1"), 1);
	/* Before Gen12 the counters are not the context's to save. */
	ck_assert_uint_eq(fake_machine_requests(&fx.machine, "OAR counters"), 0);
	ck_assert_uint_ge(s.frames_with_reports, 2);
	gpd_unsubscribe(sub);
	fixture_stop(&fx);
	fake_machine_stop(&fx.machine);
}
END_TEST

/*
 * Per-context rows split windows by the reports' context IDs, which
 * Haswell's reports lack: a subscription asking for them, system-wide or
 * through the kernel, gets its windows and no made-up context's rows.
 */
START_TEST(haswell_frames_carry_no_context_rows)
{
	struct fixture fx;
	fixture_start_on(&fx, "i915", "hsw", "RenderBasic");
	struct gpd_error err = { 0 };
	struct seen wide = { 0 }, own = { 0 };
	struct gpd_subscription *sub = NULL;
	ck_assert_msg(subscribe(&fx, &wide, -1, 0, &sub, &err) == 0, "%s",
		      err.message);
	fixture_run(&fx, 5000);
	gpd_unsubscribe(sub);
	ck_assert_uint_ge(wide.frames_with_reports, 2);
	ck_assert_uint_eq(wide.context_rows, 0);

	int app = open_card(&fx.machine, 0);
	uint32_t handle = create_context(app);
	ck_assert_msg(subscribe(&fx, &own, app, handle, &sub, &err) == 0, "%s",
		      err.message);
	fixture_run(&fx, 5000);
	gpd_unsubscribe(sub);
	ck_assert_uint_ge(own.frames_with_reports, 2);
	ck_assert_uint_eq(own.context_rows, 0);
	fixture_stop(&fx);
	fake_machine_stop(&fx.machine);
}
END_TEST

/*
 * Gen12: a single-context stream turns on the context's OAR counters in
 * its context image, and off when it ends (gen12_configure_oar_context(),
 * Linux 6.12); its OA buffer still gets every context's reports, which
 * the read filters (gen8_append_oa_reports()), so the daemon's frames
 * hold that context alone.
 */
START_TEST(gen12_context_stream_turns_on_its_oar_counters)
{
	struct fixture fx;
	fixture_start(&fx, "i915", "RenderBasic");
	int app = open_card(&fx.machine, 0);
	uint32_t handle = create_context(app);
	struct seen own = { 0 };
	struct gpd_subscription *sub;
	struct gpd_error err = { 0 };
	ck_assert_msg(subscribe(&fx, &own, dup(app), handle, &sub, &err) == 0,
		      "%s", err.message);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine,
			  "context 1: OAR counters on"), 1);
	fixture_run(&fx, 5000);
	gpd_unsubscribe(sub);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine,
			  "context 1: OAR counters off"), 1);
	ck_assert_uint_eq(own.n_contexts, 1);
	close(app);
	fixture_stop(&fx);
	fake_machine_stop(&fx.machine);
}
END_TEST

/* An xe application's render exec queue on a VM of its file. */
static uint32_t create_exec_queue(int fd, uint16_t engine_class)
{
	struct drm_xe_vm_create vm = { 0 };
	ck_assert_int_eq(drmIoctl(fd, DRM_IOCTL_XE_VM_CREATE, &vm), 0);
	struct drm_xe_engine_class_instance eci = { .engine_class = engine_class };
	struct drm_xe_exec_queue_create q = {
		.width = 1, .num_placements = 1, .vm_id = vm.vm_id,
		.instances = (uintptr_t)&eci,
	};
	ck_assert_int_eq(drmIoctl(fd, DRM_IOCTL_XE_EXEC_QUEUE_CREATE, &q), 0);
	return q.exec_queue_id;
}

/*
 * xe: the stream of a passed exec queue opens through the application's
 * file (xe_exec_queue_lookup() looks there) and programs the queue's OAR
 * counters; xe hands over the OA buffer unfiltered
 * (xe_oa_append_reports()), so its frames hold every context that ran.
 * The daemon holds the fd for the stream's life.
 */
START_TEST(a_passed_exec_queue_streams_through_its_file)
{
	struct fixture fx;
	fixture_start(&fx, "xe", "RenderBasic");
	struct gpd_error err = { 0 };
	int app = open_card(&fx.machine, 0);
	uint32_t queue = create_exec_queue(app, DRM_XE_ENGINE_CLASS_RENDER);
	int passed = dup(app);
	struct seen own = { 0 };
	struct gpd_subscription *sub;
	ck_assert_msg(subscribe(&fx, &own, passed, queue, &sub, &err) == 0,
		      "%s", err.message);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine, "EXEC_QUEUE_ID=1"), 1);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine,
			  "exec queue 1: OAR counters on"), 1);
	fixture_run(&fx, 5000);
	ck_assert_uint_ge(own.frames_with_reports, 2);
	ck_assert_uint_ge(own.n_contexts, 2);
	ck_assert(fd_is_open(passed));
	gpd_unsubscribe(sub);
	ck_assert(!fd_is_open(passed));
	ck_assert_uint_eq(fake_machine_requests(&fx.machine,
			  "exec queue 1: OAR counters off"), 1);
	close(app);
	fixture_stop(&fx);
	fake_machine_stop(&fx.machine);
}
END_TEST

/*
 * xe: another file's queue id is the kernel's ENOENT, a queue of an
 * engine the OA unit does not sample its EINVAL, both in words, and
 * nothing changes; a pipe, or a node of another GPU, is refused before
 * any stream open.
 */
START_TEST(xe_refusals_of_a_passed_exec_queue)
{
	struct fixture fx;
	char metrics[PATH_MAX], spec[160];
	test_shared_path(fx.metrics, sizeof(fx.metrics), "intel-metrics/xe");
	snprintf(metrics, sizeof(metrics), "%s", fx.metrics);
	fake_machine_start(&fx.machine, "xe:tglgt2,xe:tglgt2", metrics,
			   "RenderBasic");
	snprintf(spec, sizeof(spec), "xe:%s", fx.machine.node);
	fixture_daemon(&fx, spec, 1);
	struct seen s = { 0 };
	struct gpd_subscription *sub = NULL;
	struct gpd_error err = { 0 };

	int pipe_fds[2];
	ck_assert_int_eq(pipe(pipe_fds), 0);
	ck_assert_int_eq(subscribe(&fx, &s, pipe_fds[0], 1, &sub, &err), -ENOTTY);
	ck_assert_msg(strstr(err.message, "is not a DRM device node") &&
		      strstr(err.message, "exec queue was created"), "%s",
		      err.message);
	int card1 = open_card(&fx.machine, 1);
	ck_assert_int_eq(subscribe(&fx, &s, card1, 1, &sub, &err), -EXDEV);
	ck_assert_msg(strstr(err.message, "a node of another GPU"), "%s",
		      err.message);
	ck_assert_uint_eq(fake_machine_requests(&fx.machine, "OA_STREAM_OPEN"), 0);

	int owner = open_card(&fx.machine, 0);
	int other = open_card(&fx.machine, 0);
	uint32_t queue = create_exec_queue(owner, DRM_XE_ENGINE_CLASS_RENDER);
	ck_assert_int_eq(subscribe(&fx, &s, other, queue, &sub, &err), -ENOENT);
	ck_assert_msg(strstr(err.message, "the DRM file passed owns no exec "
			     "queue 1 (ENOENT)"), "%s", err.message);
	uint32_t copy = create_exec_queue(other, DRM_XE_ENGINE_CLASS_COPY);
	ck_assert_int_eq(subscribe(&fx, &s, other, copy, &sub, &err), -EINVAL);
	ck_assert_msg(strstr(err.message, "its engine is not one the OA unit "
			     "samples"), "%s", err.message);
	ck_assert_ptr_null(sub);
	ck_assert(fd_is_open(other));
	struct gpd_device *dev = gpd_device_registry_find(&fx.daemon.registry,
							  NULL);
	ck_assert(!dev->open);
	ck_assert(!dev->ctx_filter);
	close(owner);
	close(other);
	close(card1);
	close(pipe_fds[0]);
	close(pipe_fds[1]);
	fixture_stop(&fx);
	fake_machine_stop(&fx.machine);
}
END_TEST

/* xe: the exec queue's stream is the unit's one configuration too. */
START_TEST(xe_system_wide_and_exec_queue_streams_refuse_each_other)
{
	struct fixture fx;
	fixture_start(&fx, "xe", "RenderBasic");
	struct gpd_error err = { 0 };
	struct seen wide = { 0 }, own = { 0 };
	struct gpd_subscription *wide_sub, *own_sub = NULL;
	ck_assert_int_eq(subscribe(&fx, &wide, -1, 0, &wide_sub, &err), 0);
	int app = open_card(&fx.machine, 0);
	uint32_t queue = create_exec_queue(app, DRM_XE_ENGINE_CLASS_RENDER);
	ck_assert_int_eq(subscribe(&fx, &own, app, queue, &own_sub, &err), -EBUSY);
	ck_assert(fd_is_open(app));
	gpd_unsubscribe(wide_sub);
	ck_assert_msg(subscribe(&fx, &own, app, queue, &own_sub, &err) == 0,
		      "%s", err.message);
	ck_assert_int_eq(subscribe(&fx, &wide, -1, 0, &wide_sub, &err), -EBUSY);
	ck_assert_msg(strstr(err.message, "shows it to nobody else"), "%s",
		      err.message);
	gpd_unsubscribe(own_sub);
	ck_assert_msg(subscribe(&fx, &wide, -1, 0, &wide_sub, &err) == 0, "%s",
		      err.message);
	gpd_unsubscribe(wide_sub);
	fixture_stop(&fx);
	fake_machine_stop(&fx.machine);
}
END_TEST

static Suite *context_stream_suite(void)
{
	Suite *s = suite_create("context_stream");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, a_passed_context_is_streamed_alone);
	tcase_add_test(tc, another_files_context_gets_the_kernels_error);
	tcase_add_test(tc, a_file_of_no_drm_node_or_of_another_gpu_is_refused_first);
	tcase_add_test(tc, system_wide_and_context_streams_refuse_each_other);
	tcase_add_test(tc, haswell_isolates_a_context_through_the_kernel_only);
	tcase_add_test(tc, haswell_frames_carry_no_context_rows);
	tcase_add_test(tc, gen12_context_stream_turns_on_its_oar_counters);
	tcase_add_test(tc, a_passed_exec_queue_streams_through_its_file);
	tcase_add_test(tc, xe_refusals_of_a_passed_exec_queue);
	tcase_add_test(tc, xe_system_wide_and_exec_queue_streams_refuse_each_other);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(context_stream_suite)
