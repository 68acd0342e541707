/*
 * client/preload/offer.c: which ioctls libgpuperf-preload.so offers, by
 * the uAPI's numbers (include/uapi/drm/i915_drm.h, xe_drm.h), and where
 * it finds the id each create returned; and the preload inside an
 * application on the fake xe kernel (tests/fake-kernel), offering a real
 * exec queue to gpuperf run's listener (client/context_offers.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include <i915_drm.h>
#include <uv.h>
#include <xf86drm.h>

#include "client/context_offers.h"
#include "client/preload/offer.h"
#include "daemon/xe/xe_uapi.h"
#include "tests/integration/xe_queue_create.h"
#include "tests/unit/fake_machine.h"
#include "tests/unit/test_util.h"

START_TEST(the_creates_of_both_drivers_are_offered)
{
	ck_assert_int_eq(gpuperf_offer_kind_of(DRM_IOCTL_I915_GEM_CONTEXT_CREATE),
			 GPUPERF_OFFER_I915_CONTEXT);
	ck_assert_int_eq(gpuperf_offer_kind_of(DRM_IOCTL_I915_GEM_CONTEXT_CREATE_EXT),
			 GPUPERF_OFFER_I915_CONTEXT);
	ck_assert_int_eq(gpuperf_offer_kind_of(IOCTL_XE_EXEC_QUEUE_CREATE),
			 GPUPERF_OFFER_XE_EXEC_QUEUE);
	ck_assert_uint_eq(sizeof(struct xe_exec_queue_create), 48);
}
END_TEST

/* Another command of the same number (i915's FLIP is 0x06 too; another
 * driver's at 0x2d), the destroys and the perf ioctls are not creates. */
START_TEST(other_requests_are_not)
{
	ck_assert_int_eq(gpuperf_offer_kind_of(DRM_IOCTL_I915_GEM_CONTEXT_DESTROY),
			 GPUPERF_OFFER_NONE);
	ck_assert_int_eq(gpuperf_offer_kind_of(DRM_IOCTL_I915_PERF_OPEN),
			 GPUPERF_OFFER_NONE);
	ck_assert_int_eq(gpuperf_offer_kind_of(DRM_IO(DRM_COMMAND_BASE + 0x06)),
			 GPUPERF_OFFER_NONE);
	ck_assert_int_eq(gpuperf_offer_kind_of(DRM_IOWR(DRM_COMMAND_BASE + 0x06,
							struct drm_i915_getparam)),
			 GPUPERF_OFFER_NONE);
	ck_assert_int_eq(gpuperf_offer_kind_of(DRM_IOWR(DRM_COMMAND_BASE + 0x2d,
							uint64_t[4])),
			 GPUPERF_OFFER_NONE);
}
END_TEST

START_TEST(the_id_is_read_where_each_create_writes_it)
{
	struct drm_i915_gem_context_create create = { .ctx_id = 5 };
	ck_assert_uint_eq(gpuperf_offer_created_id(GPUPERF_OFFER_I915_CONTEXT,
						   &create), 5);
	struct drm_i915_gem_context_create_ext ext = { .ctx_id = 6, .flags = 1 };
	ck_assert_uint_eq(gpuperf_offer_created_id(GPUPERF_OFFER_I915_CONTEXT,
						   &ext), 6);
	struct xe_exec_queue_create queue;
	memset(&queue, 0xff, sizeof(queue));
	queue.exec_queue_id = 7;
	ck_assert_uint_eq(gpuperf_offer_created_id(GPUPERF_OFFER_XE_EXEC_QUEUE,
						   &queue), 7);
}
END_TEST

/* --- The preload in an application on the fake xe kernel --- */

struct offered {
	unsigned count;
	struct gpuperf_offer_received offer;
	int file;                       /* a copy of the file offered */
	pid_t app;
	bool app_ended;
	int app_status;
};

static void on_offer(struct gpuperf_offers *offers,
		     const struct gpuperf_offer_received *offer, void *user)
{
	struct offered *o = user;
	if (!o->count++) {
		o->offer = *offer;
		o->file = dup(offer->drm_fd);
	}
	gpuperf_offers_answer(offers, offer, GPUPERF_OFFER_DECLINED,
			      "a test only looks");
}

/* Until the application has ended (its create waits for the answer). */
static void on_tick(uv_timer_t *t)
{
	struct offered *o = t->data;
	if (waitpid(o->app, &o->app_status, WNOHANG) == o->app) {
		o->app_ended = true;
		uv_stop(t->loop);
	}
}

/* Runs context-app NODE ARGS... with libgpuperf-preload.so before the
 * fake kernel (after ASan's runtime, where the build has it) and
 * GPUPERF_OFFER_SOCKET naming socket; its standard output goes to out. */
static pid_t start_app(const char *socket, int out, const char *const *args)
{
	char exe[PATH_MAX], preload[4 * PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ck_assert_int_gt(n, 0);
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	/* This process runs under "[ASAN ]FAKE" (fake_machine.h). */
	const char *now = getenv("LD_PRELOAD");
	const char *fake = strrchr(now, ' ');
	int asan = fake ? (int)(fake - now + 1) : 0;
	snprintf(preload, sizeof(preload), "%.*s%s/../libgpuperf-preload.so %s",
		 asan, now, exe, fake ? fake + 1 : now);
	char app[PATH_MAX + 16];
	snprintf(app, sizeof(app), "%s/context-app", exe);
	const char *argv[8] = { app };
	for (size_t i = 0; args[i] && i < 6; i++)
		argv[i + 1] = args[i];
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		setenv("LD_PRELOAD", preload, 1);
		setenv(GPUPERF_OFFER_SOCKET_ENV, socket, 1);
		dup2(out, STDOUT_FILENO);
		execv(app, (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/*
 * An application creates an exec queue on the fake xe card (its VM first,
 * xe_vm_create_ioctl(), xe_exec_queue_create_ioctl(), Linux 7.0): the
 * preload offers that queue's id, the creating process and the very DRM
 * file it was created on -- the queue can be destroyed through the file
 * received, and not through another file of the node (ENOENT).
 */
START_TEST(an_exec_queue_of_the_xe_kernel_is_offered_with_its_file)
{
	struct fake_machine m;
	char metrics[PATH_MAX];
	test_shared_path(metrics, sizeof(metrics), "intel-metrics/xe");
	fake_machine_start(&m, "xe:tglgt2", metrics, "");
	uv_loop_t loop;
	ck_assert_int_eq(uv_loop_init(&loop), 0);
	struct gpuperf_offers offers;
	struct offered o = { .file = -1 };
	char err[256];
	ck_assert_msg(gpuperf_offers_open(&offers, &loop, on_offer, &o, err,
					  sizeof(err)) == 0, "%s", err);
	char out_path[160];
	snprintf(out_path, sizeof(out_path), "%s/app.out", m.dir);
	int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(out, 0);
	const char *const args[] = { m.node, "--xe-queues", "1", NULL };
	o.app = start_app(offers.path, out, args);
	close(out);
	uv_timer_t tick;
	uv_timer_init(&loop, &tick);
	tick.data = &o;
	uv_timer_start(&tick, on_tick, 20, 20);
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert(o.app_ended);
	ck_assert_int_eq(WEXITSTATUS(o.app_status), 0);

	ck_assert_uint_eq(fake_machine_requests(&m, "EXEC_QUEUE_CREATE -> 1"), 1);
	char text[256] = "";
	FILE *f = fopen(out_path, "r");
	ck_assert_ptr_nonnull(f);
	size_t got = fread(text, 1, sizeof(text) - 1, f);
	text[got] = '\0';
	fclose(f);
	ck_assert_msg(strstr(text, "exec queue 1\n"), "%s", text);

	ck_assert_uint_eq(o.count, 1);
	ck_assert_int_eq(o.offer.kind, GPUPERF_OFFER_XE_EXEC_QUEUE);
	ck_assert_uint_eq(o.offer.id, 1);
	ck_assert_int_eq(o.offer.pid, o.app);
	struct stat st;
	ck_assert_int_eq(fstat(o.file, &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
	ck_assert_uint_eq(major(st.st_rdev), 226);
	ck_assert_uint_eq(minor(st.st_rdev), 0);
	struct drm_xe_exec_queue_destroy destroy = { .exec_queue_id = 1 };
	int mine = open(m.node, O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(mine, 0);
	ck_assert_int_eq(drmIoctl(mine, DRM_IOCTL_XE_EXEC_QUEUE_DESTROY, &destroy), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(drmIoctl(o.file, DRM_IOCTL_XE_EXEC_QUEUE_DESTROY, &destroy), 0);
	close(mine);
	close(o.file);

	uv_close((uv_handle_t *)&tick, NULL);
	gpuperf_offers_close(&offers);
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
	fake_machine_stop(&m);
}
END_TEST

static Suite *offer_suite(void)
{
	Suite *s = suite_create("offer");
	TCase *tc = tcase_create("uapi");
	tcase_add_test(tc, the_creates_of_both_drivers_are_offered);
	tcase_add_test(tc, other_requests_are_not);
	tcase_add_test(tc, the_id_is_read_where_each_create_writes_it);
	suite_add_tcase(s, tc);
	TCase *app = tcase_create("application");
	tcase_set_timeout(app, 60);
	tcase_add_test(app, an_exec_queue_of_the_xe_kernel_is_offered_with_its_file);
	suite_add_tcase(s, app);
	return s;
}

GPM_TEST_MAIN(offer_suite)
