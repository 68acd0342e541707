/*
 * gpc_subscribe_context() against a real gpuperfd on the fake kernel: the
 * application's DRM file goes over the daemon's fd socket in SCM_RIGHTS,
 * the daemon checks it and streams the context through it.
 *
 * This process is the application: it opens the card node (a DRM file of
 * its own, which the fake kernel shares with the daemon once passed) and
 * creates contexts there (exec queues on xe). One daemon and one machine
 * of two Tiger Lakes serve the i915 tests; each xe test has a Tiger Lake
 * on xe and a daemon of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <i915_drm.h>
#include <xf86drm.h>

#include "client/include/gpuperf.h"
#include "daemon/xe/xe_uapi.h"
#include "tests/unit/fake_machine.h"
#include "tests/unit/test_daemon_process.h"
#include "tests/unit/test_util.h"

static struct fake_machine machine;
static struct test_daemon daemon_proc;

static struct gpc_client *connect_unix(void)
{
	struct gpc_connect_options o = { .unix_path = daemon_proc.socket_path };
	struct gpc_client *c = NULL;
	struct gpc_error err;
	ck_assert_msg(gpc_connect_sync(&o, &c, &err) == 0, "connect: %s",
		      err.message);
	return c;
}

static int open_card(unsigned index)
{
	char node[160];
	snprintf(node, sizeof(node), "%s/dev/dri/card%u", machine.root, index);
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

struct seen {
	unsigned frames, with_reports;
	uint32_t contexts[8];
	unsigned n_contexts;
};

static void on_frame(struct gpc_subscription *sub, const struct gpc_frame *f,
		     void *user)
{
	struct seen *s = user;
	s->frames++;
	if (f->reports)
		s->with_reports++;
	for (size_t i = 0; i < f->n_contexts; i++) {
		if (f->contexts[i].idle)
			continue;
		bool known = false;
		for (unsigned k = 0; k < s->n_contexts; k++)
			known |= s->contexts[k] == f->contexts[i].context_id;
		if (!known && s->n_contexts < 8)
			s->contexts[s->n_contexts++] = f->contexts[i].context_id;
	}
	if (s->frames >= 4)
		gpc_stop(gpc_subscription_client(sub));
}

static const struct gpc_subscribe_options card0 = {
	.device = "card0",
	.metric_set = "RenderBasic",
	.sampling_period_ns = 1000000,
	.window_ns = 10000000,
	.per_context = true,
};

/* Hello says where files go, how many, and the rules. */
START_TEST(hello_tells_how_to_pass_a_file)
{
	struct gpc_client *c = connect_unix();
	const struct gpc_server_info *info = gpc_server_info(c);
	ck_assert_uint_eq(info->limits.max_passed_fds, 4);
	ck_assert_msg(strstr(info->context_policy, "the kernel's filter"),
		      "%s", info->context_policy);
	const struct gpc_device *d = gpc_find_device(c, "card0");
	ck_assert(d->kernel_context_filter);
	ck_assert(d->software_context_filter);
	ck_assert(d->kernel_filters_reports);
	ck_assert(!d->configuration.single_context);
	gpc_close_sync(c);
}
END_TEST

/* The passed file's context, and it alone, is streamed through the
 * kernel's filter. */
START_TEST(a_passed_context_streams_alone)
{
	struct gpc_client *c = connect_unix();
	int app = open_card(0);
	uint32_t handle = create_context(app);
	struct seen seen = { 0 };
	struct gpc_subscription_cbs cbs = { .frame = on_frame };
	struct gpc_subscription *sub;
	struct gpc_error err;
	ck_assert_msg(gpc_subscribe_context(c, app, handle, &card0, &cbs, &seen,
					    &sub, &err) == 0, "%s", err.message);
	char expect[32];
	snprintf(expect, sizeof(expect), "CTX_HANDLE=%u", handle);
	ck_assert_uint_ge(fake_machine_requests(&machine, expect), 1);
	/* Another client is told the unit holds one application's context. */
	struct gpc_client *other = connect_unix();
	ck_assert(gpc_find_device(other, "card0")->configuration.single_context);
	gpc_close_sync(other);
	gpc_run(c, 10000);
	ck_assert_uint_ge(seen.with_reports, 2);
	ck_assert_uint_eq(seen.n_contexts, 1);
	gpc_unsubscribe(sub);
	close(app);
	gpc_close_sync(c);
}
END_TEST

/* Not a DRM node, a node of the other GPU, a closed fd: refused before
 * the kernel is asked to open anything. */
START_TEST(files_of_no_node_of_the_device_are_refused)
{
	unsigned opens = fake_machine_requests(&machine, "PERF_OPEN");
	struct gpc_client *c = connect_unix();
	struct gpc_subscription *sub;
	struct gpc_error err;
	int pipe_fds[2];
	ck_assert_int_eq(pipe(pipe_fds), 0);
	ck_assert_int_eq(gpc_subscribe_context(c, pipe_fds[0], 0, &card0, NULL,
					       NULL, &sub, &err), -EINVAL);
	ck_assert_int_eq(err.server, GPC_SERVER_INVALID_ARGUMENT);
	ck_assert_ptr_null(sub);
	ck_assert_msg(strstr(err.message, "is not a DRM device node"), "%s",
		      err.message);

	int other = open_card(1);
	ck_assert_int_eq(gpc_subscribe_context(c, other, 0, &card0, NULL, NULL,
					       &sub, &err), -EINVAL);
	ck_assert_msg(strstr(err.message, "a node of another GPU"), "%s",
		      err.message);

	ck_assert_int_eq(gpc_subscribe_context(c, 1000, 0, &card0, NULL, NULL,
					       &sub, &err), -EBADF);
	ck_assert_msg(strstr(err.message, "fd 1000 is not an open file"), "%s",
		      err.message);
	ck_assert_uint_eq(fake_machine_requests(&machine, "PERF_OPEN"), opens);
	close(other);
	close(pipe_fds[0]);
	close(pipe_fds[1]);
	gpc_close_sync(c);
}
END_TEST

/* Refused by the library before anything reaches the kernel: a second
 * context filter in the options, a daemon whose fd socket is gone. */
START_TEST(a_file_that_cannot_be_passed_says_why)
{
	unsigned opens = fake_machine_requests(&machine, "PERF_OPEN");
	struct gpc_client *c = connect_unix();
	int app = open_card(0);
	struct gpc_subscription *sub;
	struct gpc_error err;
	struct gpc_subscribe_options twice = card0;
	twice.filter_context = true;
	ck_assert_int_eq(gpc_subscribe_context(c, app, 0, &twice, NULL, NULL,
					       &sub, &err), -EINVAL);
	ck_assert_ptr_null(sub);
	ck_assert_str_eq(err.message, "a subscription takes one context "
			 "filter: the kernel's here, not filter_context");

	char fds[160], away[170], words[320];
	snprintf(fds, sizeof(fds), "%s.fds", daemon_proc.socket_path);
	snprintf(away, sizeof(away), "%s.away", fds);
	ck_assert_int_eq(rename(fds, away), 0);
	int ret = gpc_subscribe_context(c, app, 0, &card0, NULL, NULL, &sub, &err);
	ck_assert_int_eq(rename(away, fds), 0);
	ck_assert_int_eq(ret, -ENOENT);
	snprintf(words, sizeof(words), "cannot reach the daemon's fd socket "
		 "%s: No such file or directory", fds);
	ck_assert_str_eq(err.message, words);
	ck_assert_uint_eq(fake_machine_requests(&machine, "PERF_OPEN"), opens);
	close(app);
	gpc_close_sync(c);
}
END_TEST

/* A context of another file gets the kernel's ENOENT in words; each
 * refused subscription leaves its file with the connection, which holds
 * four at most. */
START_TEST(a_context_the_file_does_not_own_gets_the_kernels_error)
{
	struct gpc_client *c = connect_unix();
	int owner = open_card(0);
	uint32_t handle = create_context(owner);
	int other = open_card(0);
	struct gpc_subscription *sub;
	struct gpc_error err;
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(gpc_subscribe_context(c, other, handle, &card0,
						       NULL, NULL, &sub, &err),
				 -ENOENT);
		ck_assert_msg(strstr(err.message, "the DRM file passed owns no "
				     "GEM context"), "%s", err.message);
	}
	ck_assert_int_eq(gpc_subscribe_context(c, owner, handle, &card0, NULL,
					       NULL, &sub, &err), -ENOBUFS);
	ck_assert_msg(strstr(err.message, "maximum of 4 passed DRM files"),
		      "%s", err.message);
	close(owner);
	close(other);
	gpc_close_sync(c);
}
END_TEST

/* The query layer's own-context mode: begin/end windows of the caller's
 * context alone, through its file. */
START_TEST(a_query_measures_the_callers_own_context)
{
	struct gpc_client *c = connect_unix();
	int app = open_card(0);
	uint32_t handle = create_context(app);
	unsigned id;
	ck_assert_int_eq(gpc_query_id_by_name(c, "card0", "RenderBasic", &id), 0);
	char expect[32];
	snprintf(expect, sizeof(expect), "CTX_HANDLE=%u", handle);
	unsigned opens = fake_machine_requests(&machine, expect);
	struct gpc_query *q;
	struct gpc_error err;
	ck_assert_msg(gpc_query_create_context(c, id, app, handle, &q, &err) == 0,
		      "%s", err.message);
	ck_assert_uint_eq(fake_machine_requests(&machine, expect), opens + 1);
	ck_assert_int_eq(gpc_query_begin(q, &err), 0);
	gpc_run(c, 50);
	ck_assert_int_eq(gpc_query_end(q, &err), 0);
	struct gpc_query_info info;
	ck_assert_int_eq(gpc_query_info(c, id, &info), 0);
	unsigned char data[65536];
	size_t written = 0;
	ck_assert_int_eq(gpc_query_get_data(q, GPC_QUERY_WAIT, data, sizeof(data),
					    &written), 0);
	ck_assert_uint_eq(written, info.data_size);
	gpc_query_destroy(q);
	close(app);
	gpc_close_sync(c);
}
END_TEST

/* --- xe: an exec queue, on a machine and daemon of its own --- */

/* The xe tests' machine (one Tiger Lake on xe) and daemon. Started in each
 * test's own process (a checked fixture; Check forks per test), so the
 * suite's i915 machine stays as it was for the tests before. */
static struct fake_machine xe_machine;
static struct test_daemon xe_daemon;

static void xe_start(void)
{
	char metrics[PATH_MAX];
	test_shared_path(metrics, sizeof(metrics), "intel-metrics/xe");
	fake_machine_start(&xe_machine, "xe:tglgt2", metrics, "RenderBasic");
	const char *const args[] = {
		"--dev-root", xe_machine.dev_root, "--sysfs-root",
		xe_machine.sysfs_root, "-m", metrics, NULL,
	};
	ck_assert_int_eq(test_daemon_start(&xe_daemon, "context_client_xe",
					   args), 0);
}

static void xe_stop(void)
{
	test_daemon_stop(&xe_daemon);
	fake_machine_stop(&xe_machine);
}

static struct gpc_client *connect_xe(void)
{
	struct gpc_connect_options o = { .unix_path = xe_daemon.socket_path };
	struct gpc_client *c = NULL;
	struct gpc_error err;
	ck_assert_msg(gpc_connect_sync(&o, &c, &err) == 0, "connect: %s",
		      err.message);
	return c;
}

static int open_xe_card(void)
{
	int fd = open(xe_machine.node, O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	return fd;
}

/* A render exec queue of a new VM of the file (xe_vm_create_ioctl(),
 * xe_exec_queue_create_ioctl()). */
static uint32_t create_exec_queue(int fd)
{
	struct drm_xe_vm_create vm = { 0 };
	ck_assert_int_eq(drmIoctl(fd, DRM_IOCTL_XE_VM_CREATE, &vm), 0);
	struct drm_xe_engine_class_instance eci = {
		.engine_class = DRM_XE_ENGINE_CLASS_RENDER,
	};
	struct drm_xe_exec_queue_create q = {
		.width = 1, .num_placements = 1, .vm_id = vm.vm_id,
		.instances = (uintptr_t)&eci,
	};
	ck_assert_int_eq(drmIoctl(fd, DRM_IOCTL_XE_EXEC_QUEUE_CREATE, &q), 0);
	return q.exec_queue_id;
}

/* Hello on xe: a file and exec queue may be passed (the kernel's filter),
 * but the kernel holds back no other context's reports
 * (xe_oa_append_reports() copies them all, Linux 7.0). */
START_TEST(xe_hello_says_the_kernel_does_not_filter_reports)
{
	struct gpc_client *c = connect_xe();
	const struct gpc_device *d = gpc_find_device(c, "card0");
	ck_assert_ptr_nonnull(d);
	ck_assert(d->kernel_context_filter);
	ck_assert(!d->kernel_filters_reports);
	ck_assert(!d->configuration.single_context);
	gpc_close_sync(c);
}
END_TEST

/* A client passes its xe file and an exec queue id: the stream opens with
 * EXEC_QUEUE_ID through that file (xe_exec_queue_lookup() looks in the
 * file the ioctl arrives on), and frames come. */
START_TEST(a_passed_exec_queue_streams_through_its_file)
{
	struct gpc_client *c = connect_xe();
	int app = open_xe_card();
	uint32_t queue = create_exec_queue(app);
	struct seen seen = { 0 };
	struct gpc_subscription_cbs cbs = { .frame = on_frame };
	struct gpc_subscription *sub;
	struct gpc_error err;
	ck_assert_msg(gpc_subscribe_context(c, app, queue, &card0, &cbs, &seen,
					    &sub, &err) == 0, "%s", err.message);
	char expect[48];
	snprintf(expect, sizeof(expect), "EXEC_QUEUE_ID=%u", queue);
	ck_assert_uint_eq(fake_machine_requests(&xe_machine, expect), 1);
	snprintf(expect, sizeof(expect), "exec queue %u: OAR counters on", queue);
	ck_assert_uint_eq(fake_machine_requests(&xe_machine, expect), 1);
	struct gpc_client *other = connect_xe();
	ck_assert(gpc_find_device(other, "card0")->configuration.single_context);
	gpc_close_sync(other);
	gpc_run(c, 10000);
	ck_assert_uint_ge(seen.with_reports, 2);
	gpc_unsubscribe(sub);
	close(app);
	gpc_close_sync(c);
}
END_TEST

/* Another file's exec queue: the kernel's ENOENT, in words naming the
 * queue, and no stream. */
START_TEST(an_exec_queue_of_another_file_gets_the_kernels_error)
{
	struct gpc_client *c = connect_xe();
	int owner = open_xe_card();
	uint32_t queue = create_exec_queue(owner);
	int other = open_xe_card();
	struct gpc_subscription *sub;
	struct gpc_error err;
	ck_assert_int_eq(gpc_subscribe_context(c, other, queue, &card0, NULL,
					       NULL, &sub, &err), -ENOENT);
	ck_assert_ptr_null(sub);
	char words[64];
	snprintf(words, sizeof(words), "the DRM file passed owns no exec queue "
		 "%u (ENOENT)", queue);
	ck_assert_msg(strstr(err.message, words), "%s", err.message);
	ck_assert_uint_eq(fake_machine_requests(&xe_machine, "OAR counters on"), 0);
	close(owner);
	close(other);
	gpc_close_sync(c);
}
END_TEST

static Suite *context_client_suite(void)
{
	Suite *s = suite_create("context_client");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, hello_tells_how_to_pass_a_file);
	tcase_add_test(tc, a_passed_context_streams_alone);
	tcase_add_test(tc, files_of_no_node_of_the_device_are_refused);
	tcase_add_test(tc, a_file_that_cannot_be_passed_says_why);
	tcase_add_test(tc, a_context_the_file_does_not_own_gets_the_kernels_error);
	tcase_add_test(tc, a_query_measures_the_callers_own_context);
	suite_add_tcase(s, tc);
	/* Last: without Check's fork each would take the process to its
	 * own machine. */
	TCase *xe = tcase_create("xe");
	tcase_set_timeout(xe, 60);
	tcase_add_checked_fixture(xe, xe_start, xe_stop);
	tcase_add_test(xe, xe_hello_says_the_kernel_does_not_filter_reports);
	tcase_add_test(xe, a_passed_exec_queue_streams_through_its_file);
	tcase_add_test(xe, an_exec_queue_of_another_file_gets_the_kernels_error);
	suite_add_tcase(s, xe);
	return s;
}

int main(void)
{
	char metrics[PATH_MAX];
	test_shared_path(metrics, sizeof(metrics), "intel-metrics/i915");
	if (fake_machine_prepare(&machine, "i915:tglgt2,i915:tglgt2", metrics,
				 "RenderBasic")) {
		perror("context_client: mkdtemp");
		return EXIT_FAILURE;
	}
	const char *const args[] = {
		"--dev-root", machine.dev_root, "--sysfs-root", machine.sysfs_root,
		"-m", metrics, NULL,
	};
	int failed = 1;
	gpc_set_transport_log(NULL);
	if (test_daemon_start(&daemon_proc, "context_client", args) == 0) {
		SRunner *runner = srunner_create(context_client_suite());
		srunner_run_all(runner, CK_ENV);
		failed = srunner_ntests_failed(runner);
		srunner_free(runner);
	}
	test_daemon_stop(&daemon_proc);
	fake_machine_stop(&machine);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
