/*
 * The daemon's own system-call filter, installed in a process of its own
 * (Check forks each test): the calls the service unit allows go through,
 * the ones it refuses fail with EPERM, even for root.
 */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "daemon/syscall_filter.h"
#include "tests/unit/test_util.h"

static bool allowed(const char *name)
{
	for (size_t i = 0; i < gpd_syscall_filter_n_allowed; i++)
		if (!strcmp(gpd_syscall_filter_allowed[i], name))
			return true;
	return false;
}

START_TEST(the_units_list)
{
	/* @system-service and perf_event_open ... */
	ck_assert(allowed("openat"));
	ck_assert(allowed("epoll_wait"));
	ck_assert(allowed("ioctl"));
	ck_assert(allowed("perf_event_open"));
	/* ... less @privileged and @resources. */
	ck_assert(!allowed("setuid"));
	ck_assert(!allowed("mount"));
	ck_assert(!allowed("setrlimit"));
	ck_assert(!allowed("sched_setaffinity"));
}
END_TEST

START_TEST(refuses_with_eperm)
{
	struct gpd_error err = { 0 };
	size_t n;
	struct rlimit limit;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &limit), 0);
	ck_assert_msg(gpd_syscall_filter_install(&n, &err) == 0, "%s",
		      err.message);
	/* Far more than the names of other architectures left out. */
	ck_assert_uint_gt(n, 250);
	ck_assert_uint_le(n, gpd_syscall_filter_n_allowed);
	/* Allowed: */
	ck_assert_int_eq((int)syscall(SYS_getpid), getpid());
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &limit), 0);
	/* @resources, setting a limit to what it is, which anyone may (the
	 * system call itself: glibc's setrlimit() is prlimit64, which
	 * systemd's groups allow): */
	errno = 0;
	ck_assert_int_eq((int)syscall(SYS_setrlimit, RLIMIT_NOFILE, &limit), -1);
	ck_assert_int_eq(errno, EPERM);
	/* @privileged, setuid to oneself, which needs no privilege: */
	errno = 0;
	ck_assert_int_eq((int)syscall(SYS_setuid, getuid()), -1);
	ck_assert_int_eq(errno, EPERM);
}
END_TEST

static Suite *syscall_filter_suite(void)
{
	Suite *s = suite_create("syscall_filter");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, the_units_list);
	tcase_add_test(tc, refuses_with_eperm);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(syscall_filter_suite)
