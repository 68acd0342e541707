/*
 * The OA stream pump's promises to the i915 and xe sources: what the fd
 * holds comes to data(), a read error to error() (once per wake-up when
 * it answers false, as many reads as allowed when true), stopping from a
 * callback closes the fd once and a second stop does nothing, and an fd
 * that cannot be polled is refused and left open for the caller.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <uv.h>

#include "daemon/drm/oa_pump.h"
#include "tests/unit/test_util.h"

struct pumped {
	struct gpd_oa_pump *pump;
	size_t bytes;
	unsigned errors;
	int last_error;
	bool read_on;
	bool stop_on_data;
};

static void on_data(void *user, const unsigned char *buf, size_t len)
{
	struct pumped *p = user;
	p->bytes += len;
	ck_assert_int_eq(buf[0], 'r');
	if (p->stop_on_data) {
		gpd_oa_pump_stop(p->pump);
		gpd_oa_pump_stop(p->pump);
	}
}

static bool on_error(void *user, int code)
{
	struct pumped *p = user;
	p->errors++;
	p->last_error = code;
	return p->read_on;
}

static const struct gpd_oa_pump_ops ops = { .data = on_data, .error = on_error };

static bool fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

START_TEST(data_comes_and_a_stop_in_the_callback_closes_the_fd_once)
{
	uv_loop_t loop;
	uv_loop_init(&loop);
	int fds[2];
	ck_assert_int_eq(pipe2(fds, O_NONBLOCK | O_CLOEXEC), 0);
	struct pumped p = { .stop_on_data = true };
	ck_assert_int_eq(gpd_oa_pump_start(&loop, fds[0], &ops, &p, &p.pump), 0);
	ck_assert_int_eq(gpd_oa_pump_fd(p.pump), fds[0]);
	ck_assert_int_eq(write(fds[1], "report", 6), 6);
	/* The stop inside data() ends the loop's last handle. */
	ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
	ck_assert_uint_eq(p.bytes, 6);
	ck_assert_uint_eq(p.errors, 0);
	ck_assert(!fd_open(fds[0]));
	close(fds[1]);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* read() on a write-only fd: EBADF, an error like the kernel's EIO. */
START_TEST(read_errors_go_to_the_source_which_says_whether_to_read_on)
{
	uv_loop_t loop;
	uv_loop_init(&loop);
	int fds[2];
	ck_assert_int_eq(pipe2(fds, O_NONBLOCK | O_CLOEXEC), 0);
	struct pumped p = { 0 };
	ck_assert_int_eq(gpd_oa_pump_start(&loop, fds[1], &ops, &p, &p.pump), 0);
	gpd_oa_pump_drain(p.pump);
	ck_assert_uint_eq(p.errors, 1);
	ck_assert_int_eq(p.last_error, -EBADF);
	/* Reading on: every read of the wake-up fails, and then it waits. */
	p.read_on = true;
	gpd_oa_pump_drain(p.pump);
	ck_assert_uint_eq(p.errors, 17);
	gpd_oa_pump_stop(p.pump);
	/* Stopped: draining reads nothing more. */
	gpd_oa_pump_drain(p.pump);
	ck_assert_uint_eq(p.errors, 17);
	ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
	ck_assert(!fd_open(fds[1]));
	close(fds[0]);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* epoll refuses a regular file (EPERM): the pump says so and the fd stays
 * the caller's. */
START_TEST(an_fd_that_cannot_be_polled_is_refused_and_left_open)
{
	uv_loop_t loop;
	uv_loop_init(&loop);
	FILE *f = tmpfile();
	ck_assert_ptr_nonnull(f);
	int fd = fileno(f);
	struct pumped p = { 0 };
	struct gpd_oa_pump *pump = NULL;
	ck_assert_int_eq(gpd_oa_pump_start(&loop, fd, &ops, &p, &pump), UV_EPERM);
	ck_assert_ptr_null(pump);
	ck_assert(fd_open(fd));
	fclose(f);
	ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

static Suite *oa_pump_suite(void)
{
	Suite *s = suite_create("oa_pump");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, data_comes_and_a_stop_in_the_callback_closes_the_fd_once);
	tcase_add_test(tc, read_errors_go_to_the_source_which_says_whether_to_read_on);
	tcase_add_test(tc, an_fd_that_cannot_be_polled_is_refused_and_left_open);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(oa_pump_suite)
