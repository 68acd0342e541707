/*
 * Processes' own kernel time: the store (daemon/process_activity.c), and
 * the activity socket that fills it (daemon/net/activity_socket.c), with
 * real processes on a real socket: a report speaks for its sender alone,
 * is checked whole, and comes at a bounded rate.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uv.h>

#include "daemon/clock.h"
#include "daemon/net/activity_socket.h"
#include "daemon/process_activity.h"
#include "proto/gpuperf.pb-c.h"
#include "tests/unit/test_util.h"

static struct gpd_pci_address gpu(const char *text)
{
	struct gpd_pci_address a;
	ck_assert_int_eq(gpd_pci_address_parse(text, &a), 0);
	return a;
}

START_TEST(test_pci_addresses)
{
	struct gpd_pci_address a = gpu("0000:3B:00.0"), b = gpu("00000000:3b:00.0");
	ck_assert(!memcmp(&a, &b, sizeof(a)));
	ck_assert_uint_eq(a.bus, 0x3b);
	const char *bad[] = { "", "0000:3b:00", "0000:3b:00.0x", " 0000:3b:00.0",
			      "0x0:3b:00.0", "0000:3b:20.0", "0000:3b:00.8",
			      "-1:3b:00.0", "000000000:3b:00.0", "3b:00.0" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(gpd_pci_address_parse(bad[i], &a) == -EINVAL,
			      "%s taken", bad[i]);
}
END_TEST

START_TEST(test_reports_checked_whole)
{
	struct gpd_process_activity *s;
	ck_assert_int_eq(gpd_process_activity_create(&s), 0);
	struct gpd_gpu_activity r[2] = {
		{ gpu("0000:01:00.0"), 5, 10 },
		{ gpu("0000:02:00.0"), 11, 10 },        /* busy over its span */
	};
	const char *why = NULL;
	uint64_t busy, span;
	/* Only a process with an open connection reports. */
	ck_assert_int_eq(gpd_process_activity_add(s, 7, r, 1, &why), -ENOENT);
	ck_assert_int_eq(gpd_process_activity_connect(s, 7), 0);
	ck_assert_int_eq(gpd_process_activity_add(s, 7, r, 2, &why), -EINVAL);
	ck_assert_str_eq(why, "busy longer than its span");
	/* The first GPU, valid, was not added either. */
	ck_assert(!gpd_process_activity_get(s, 7, &r[0].gpu, &busy, &span));
	r[1].gpu = r[0].gpu;
	r[1].busy_ns = 1;
	ck_assert_int_eq(gpd_process_activity_add(s, 7, r, 2, &why), -EINVAL);
	ck_assert_str_eq(why, "a GPU twice");
	r[1] = (struct gpd_gpu_activity){ gpu("0000:02:00.0"), 0, 0 };
	ck_assert_int_eq(gpd_process_activity_add(s, 7, r, 2, &why), -EINVAL);
	r[1].span_ns = GPD_PROCESS_ACTIVITY_MAX_SPAN_NS + 1;
	ck_assert_int_eq(gpd_process_activity_add(s, 7, r, 2, &why), -EINVAL);
	ck_assert(!gpd_process_activity_get(s, 7, &r[0].gpu, &busy, &span));
	r[1].span_ns = 20;
	ck_assert_int_eq(gpd_process_activity_add(s, 7, r, 2, &why), 0);
	ck_assert_int_eq(gpd_process_activity_add(s, 7, r, 2, &why), 0);
	ck_assert(gpd_process_activity_get(s, 7, &r[0].gpu, &busy, &span));
	ck_assert_uint_eq(busy, 10);
	ck_assert_uint_eq(span, 20);
	ck_assert(!gpd_process_activity_get(s, 8, &r[0].gpu, &busy, &span));
	/* A second connection of the process keeps its sums when the first
	 * closes; the last takes them. */
	ck_assert_int_eq(gpd_process_activity_connect(s, 7), 0);
	gpd_process_activity_disconnect(s, 7);
	ck_assert(gpd_process_activity_get(s, 7, &r[0].gpu, &busy, &span));
	gpd_process_activity_disconnect(s, 7);
	ck_assert(!gpd_process_activity_get(s, 7, &r[0].gpu, &busy, &span));
	/* GPUs a process may report on: 16 in all. */
	ck_assert_int_eq(gpd_process_activity_connect(s, 9), 0);
	for (unsigned i = 0; i < GPD_PROCESS_ACTIVITY_MAX_GPUS; i++) {
		struct gpd_gpu_activity one = { .busy_ns = 1, .span_ns = 1 };
		one.gpu.bus = (uint8_t)i;
		ck_assert_int_eq(gpd_process_activity_add(s, 9, &one, 1, &why), 0);
	}
	struct gpd_gpu_activity more = { .busy_ns = 1, .span_ns = 1 };
	more.gpu.bus = 200;
	ck_assert_int_eq(gpd_process_activity_add(s, 9, &more, 1, &why), -EINVAL);
	/* Processes with connections: a budget for the whole daemon. */
	for (int32_t pid = 100; pid < 100 + GPD_PROCESS_ACTIVITY_MAX_PROCESSES - 1;
	     pid++)
		ck_assert_int_eq(gpd_process_activity_connect(s, pid), 0);
	ck_assert_int_eq(gpd_process_activity_connect(s, 99), -ENOSPC);
	gpd_process_activity_destroy(s);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The socket, with child processes reporting                           */

static char sock_path[108];

static int connect_socket(void)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		_exit(3);
	return fd;
}

static void send_report(int fd, uint64_t busy, uint64_t span)
{
	Gpuperf__GpuActivity g = GPUPERF__GPU_ACTIVITY__INIT;
	g.pci_bus_id = (char *)"0000:3b:00.0";
	g.busy_ns = busy;
	g.span_ns = span;
	Gpuperf__GpuActivity *gs[1] = { &g };
	Gpuperf__ProcessActivity m = GPUPERF__PROCESS_ACTIVITY__INIT;
	m.n_gpus = 1;
	m.gpus = gs;
	/* Each report says CUPTI dropped one record since the last. */
	m.records_dropped = 1;
	uint8_t buf[256];
	size_t len = gpuperf__process_activity__pack(&m, buf);
	if (send(fd, buf, len, 0) != (ssize_t)len)
		_exit(4);
}

/* A child that connects, sends n reports of busy/span (and one packet
 * that is no report when junk is set), then waits for a byte on hold
 * before it exits. */
static pid_t reporter(int n, uint64_t busy, uint64_t span, bool junk, int hold[2])
{
	ck_assert_int_eq(pipe(hold), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid)
		return pid;
	close(hold[1]);
	int fd = connect_socket();
	if (junk && send(fd, "\xff\xff\xff", 3, 0) != 3)
		_exit(4);
	for (int i = 0; i < n; i++)
		send_report(fd, busy, span);
	char c;
	if (read(hold[0], &c, 1) < 0)
		_exit(5);
	_exit(0);
}

struct waiting {
	struct gpd_activity_socket *as;
	struct gpd_process_activity *store;
	bool (*done)(struct waiting *w);
	pid_t pid;
	uint64_t want;
	uv_timer_t timer;
};

static void on_tick(uv_timer_t *t)
{
	struct waiting *w = t->data;
	if (w->done(w))
		uv_stop(t->loop);
}

/* Runs the loop until done says so (checked every 5 ms). */
static void run_until(uv_loop_t *loop, struct waiting *w,
		      bool (*done)(struct waiting *w))
{
	w->done = done;
	uv_timer_init(loop, &w->timer);
	w->timer.data = w;
	uv_timer_start(&w->timer, on_tick, 5, 5);
	uv_run(loop, UV_RUN_DEFAULT);
	uv_close((uv_handle_t *)&w->timer, NULL);
	uv_run(loop, UV_RUN_NOWAIT);
}

static bool handled(struct waiting *w)
{
	struct gpd_activity_stats st;
	gpd_activity_socket_stats(w->as, &st);
	return st.reports + st.refused + st.rate_limited >= w->want;
}

static bool forgotten(struct waiting *w)
{
	struct gpd_pci_address g = gpu("0000:3b:00.0");
	uint64_t busy, span;
	return !gpd_process_activity_get(w->store, w->pid, &g, &busy, &span);
}

static void finish(int hold[2], pid_t pid)
{
	ck_assert_int_eq(write(hold[1], "x", 1), 1);
	close(hold[0]);
	close(hold[1]);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

START_TEST(test_lost_records_summed)
{
	struct gpd_process_activity *a;
	ck_assert_int_eq(gpd_process_activity_create(&a), 0);
	/* Only a process with an open connection has a count. */
	gpd_process_activity_add_lost(a, 7, 3);
	ck_assert_uint_eq(gpd_process_activity_records_lost(a, 7), 0);
	ck_assert_int_eq(gpd_process_activity_connect(a, 7), 0);
	gpd_process_activity_add_lost(a, 7, 3);
	gpd_process_activity_add_lost(a, 7, 4);
	ck_assert_uint_eq(gpd_process_activity_records_lost(a, 7), 7);
	/* A hostile count saturates instead of wrapping to little. */
	gpd_process_activity_add_lost(a, 7, UINT64_MAX - 1);
	ck_assert_uint_eq(gpd_process_activity_records_lost(a, 7), UINT64_MAX);
	gpd_process_activity_add_lost(a, 7, 5);
	ck_assert_uint_eq(gpd_process_activity_records_lost(a, 7), UINT64_MAX);
	/* Its last connection gone, the count goes with it. */
	gpd_process_activity_disconnect(a, 7);
	ck_assert_int_eq(gpd_process_activity_connect(a, 7), 0);
	ck_assert_uint_eq(gpd_process_activity_records_lost(a, 7), 0);
	gpd_process_activity_destroy(a);
}
END_TEST

START_TEST(test_reports_are_their_senders)
{
	uv_loop_t loop;
	uv_loop_init(&loop);
	snprintf(sock_path, sizeof(sock_path), "/tmp/gpd-activity-%d.activity",
		 (int)getpid());
	struct gpd_process_activity *store;
	ck_assert_int_eq(gpd_process_activity_create(&store), 0);
	struct gpd_activity_socket *as;
	struct gpd_error err;
	ck_assert_int_eq(gpd_activity_socket_open(&loop, sock_path, store, &as,
						  &err), 0);
	struct waiting w = { .as = as, .store = store };
	int hold_a[2], hold_b[2];
	/* Two processes, each with its own load; one also sends junk. */
	pid_t a = reporter(2, 30, 100, true, hold_a);
	pid_t b = reporter(1, 5, 100, false, hold_b);
	w.want = 4;
	run_until(&loop, &w, handled);
	struct gpd_activity_stats st;
	gpd_activity_socket_stats(as, &st);
	ck_assert_uint_eq(st.reports, 3);
	ck_assert_uint_eq(st.refused, 1);
	struct gpd_pci_address g = gpu("0000:3b:00.0");
	uint64_t busy, span;
	ck_assert(gpd_process_activity_get(store, a, &g, &busy, &span));
	ck_assert_uint_eq(busy, 60);
	ck_assert_uint_eq(span, 200);
	ck_assert(gpd_process_activity_get(store, b, &g, &busy, &span));
	ck_assert_uint_eq(busy, 5);
	/* The records each accepted report said were lost; junk adds none. */
	ck_assert_uint_eq(gpd_process_activity_records_lost(store, a), 2);
	ck_assert_uint_eq(gpd_process_activity_records_lost(store, b), 1);
	/* Nobody reported for the test's own process. */
	ck_assert(!gpd_process_activity_get(store, getpid(), &g, &busy, &span));
	/* A process gone takes its sums with it. */
	finish(hold_a, a);
	w.pid = a;
	run_until(&loop, &w, forgotten);
	ck_assert_uint_eq(gpd_process_activity_records_lost(store, a), 0);
	ck_assert(gpd_process_activity_get(store, b, &g, &busy, &span));
	finish(hold_b, b);
	w.pid = b;
	run_until(&loop, &w, forgotten);
	gpd_activity_socket_close(as);
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
	ck_assert_int_eq(access(sock_path, F_OK), -1);
	gpd_process_activity_destroy(store);
}
END_TEST

START_TEST(test_reports_rate_limited)
{
	uv_loop_t loop;
	uv_loop_init(&loop);
	snprintf(sock_path, sizeof(sock_path), "/tmp/gpd-activity-r%d.activity",
		 (int)getpid());
	struct gpd_process_activity *store;
	ck_assert_int_eq(gpd_process_activity_create(&store), 0);
	struct gpd_activity_socket *as;
	struct gpd_error err;
	ck_assert_int_eq(gpd_activity_socket_open(&loop, sock_path, store, &as,
						  &err), 0);
	struct waiting w = { .as = as, .store = store, .want = 60 };
	int hold[2];
	pid_t a = reporter(60, 1, 10, false, hold);
	run_until(&loop, &w, handled);
	struct gpd_activity_stats st;
	gpd_activity_socket_stats(as, &st);
	/* A burst of 20, and what the rate of 10 a second refilled meanwhile
	 * (however slowly this machine ran it): never all 60. */
	ck_assert_uint_ge(st.reports, 20);
	ck_assert_uint_ge(st.rate_limited, 1);
	struct gpd_pci_address g = gpu("0000:3b:00.0");
	uint64_t busy, span;
	ck_assert(gpd_process_activity_get(store, a, &g, &busy, &span));
	ck_assert_uint_eq(busy, st.reports);
	finish(hold, a);
	gpd_activity_socket_close(as);
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
	gpd_process_activity_destroy(store);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("process_activity");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_pci_addresses);
	tcase_add_test(tc, test_reports_checked_whole);
	tcase_add_test(tc, test_lost_records_summed);
	tcase_add_test(tc, test_reports_are_their_senders);
	tcase_add_test(tc, test_reports_rate_limited);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(suite)
