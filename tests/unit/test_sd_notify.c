/*
 * sd_notify over $NOTIFY_SOCKET: the datagrams themselves, and what the
 * daemon (GPM_BUILD_DIR/gpuperfd) tells systemd as it starts, reloads on
 * SIGHUP and stops on SIGTERM.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/sd_notify.h"
#include "tests/unit/test_util.h"

/* A datagram socket bound at name ('@' for the abstract namespace), as
 * systemd's; $NOTIFY_SOCKET names it. */
static int listen_at(const char *name)
{
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fd, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = strlen(name);
	memcpy(sa.sun_path, name, len);
	if (name[0] == '@')
		sa.sun_path[0] = '\0';
	else
		unlink(name);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa,
			      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)), 0);
	struct timeval tv = { .tv_sec = 20 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setenv("NOTIFY_SOCKET", name, 1);
	return fd;
}

/* The next datagram, or "" after 20 s without one. */
static const char *next_message(int fd)
{
	static char buf[512];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

START_TEST(test_unset)
{
	unsetenv("NOTIFY_SOCKET");
	ck_assert_int_eq(gpd_sd_notify("READY=1"), 0);
	setenv("NOTIFY_SOCKET", "", 1);
	ck_assert_int_eq(gpd_sd_notify("READY=1"), 0);
}
END_TEST

START_TEST(test_path)
{
	char name[64];
	snprintf(name, sizeof(name), "/tmp/gpd-notify-%d", (int)getpid());
	int fd = listen_at(name);
	ck_assert_int_eq(gpd_sd_notify("READY=1\nSTATUS=serving"), 0);
	ck_assert_str_eq(next_message(fd), "READY=1\nSTATUS=serving");
	ck_assert_int_eq(gpd_sd_notifyf("STATUS=%d device(s)", 3), 0);
	ck_assert_str_eq(next_message(fd), "STATUS=3 device(s)");
	close(fd);
	unlink(name);
	/* Nobody listens there any more. */
	ck_assert_int_lt(gpd_sd_notify("STOPPING=1"), 0);
}
END_TEST

START_TEST(test_abstract)
{
	char name[64];
	snprintf(name, sizeof(name), "@gpd-notify-%d", (int)getpid());
	int fd = listen_at(name);
	ck_assert_int_eq(gpd_sd_notify("STOPPING=1"), 0);
	ck_assert_str_eq(next_message(fd), "STOPPING=1");
	close(fd);
}
END_TEST

START_TEST(test_bad_addresses)
{
	setenv("NOTIFY_SOCKET", "relative/notify", 1);
	ck_assert_int_eq(gpd_sd_notify("READY=1"), -EAFNOSUPPORT);
	setenv("NOTIFY_SOCKET", "vsock:2:1234", 1);
	ck_assert_int_eq(gpd_sd_notify("READY=1"), -EAFNOSUPPORT);
	char longer[200];
	memset(longer, 'x', sizeof(longer) - 1);
	longer[0] = '/';
	longer[sizeof(longer) - 1] = '\0';
	setenv("NOTIFY_SOCKET", longer, 1);
	ck_assert_int_eq(gpd_sd_notify("READY=1"), -ENAMETOOLONG);
	char big[600];
	memset(big, 'y', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ck_assert_int_eq(gpd_sd_notifyf("STATUS=%s", big), -EMSGSIZE);
}
END_TEST

/* READY=1 once serving, RELOADING=1 (with the time systemd wants) and
 * READY=1 around a SIGHUP, STOPPING=1 on SIGTERM, then exit 0. */
START_TEST(test_daemon_lifecycle)
{
	const char *build = getenv("GPM_BUILD_DIR");
	char daemon_path[512];
	snprintf(daemon_path, sizeof(daemon_path), "%s/gpuperfd",
		 build && *build ? build : "build");
	ck_assert_msg(access(daemon_path, X_OK) == 0, "%s is not built",
		      daemon_path);
	char name[64];
	snprintf(name, sizeof(name), "/tmp/gpd-notify-daemon-%d", (int)getpid());
	int fd = listen_at(name);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		execl(daemon_path, daemon_path, "--allow-root", "--device",
		      "sim", "--listen", "127.0.0.1:0", "--log-level", "warning",
		      (char *)NULL);
		_exit(127);
	}
	const char *m = next_message(fd);
	ck_assert_msg(!strncmp(m, "READY=1\nSTATUS=serving 1 device(s) on "
			       "http://127.0.0.1:", 38), "got '%s'", m);
	kill(pid, SIGHUP);
	m = next_message(fd);
	ck_assert_msg(!strncmp(m, "RELOADING=1\nMONOTONIC_USEC=", 27),
		      "got '%s'", m);
	ck_assert_msg(strtoull(m + 27, NULL, 10) > 0, "got '%s'", m);
	ck_assert_str_eq(next_message(fd), "READY=1\nSTATUS=serving");
	kill(pid, SIGTERM);
	ck_assert_str_eq(next_message(fd), "STOPPING=1");
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	close(fd);
	unlink(name);
}
END_TEST

static Suite *sd_notify_suite(void)
{
	Suite *s = suite_create("sd_notify");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_unset);
	tcase_add_test(tc, test_path);
	tcase_add_test(tc, test_abstract);
	tcase_add_test(tc, test_bad_addresses);
	tcase_add_test(tc, test_daemon_lifecycle);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(sd_notify_suite)
