/*
 * A real gpuperfd, started once for a whole suite on a Unix socket in a
 * temporary directory, for suites that talk to it through libgpuperf.
 *
 * The daemon is $GPM_BUILD_DIR/gpuperfd (default build); its stderr goes
 * to daemon.log in the directory, named when it fails to start.
 */
#ifndef GPM_TEST_DAEMON_PROCESS_H
#define GPM_TEST_DAEMON_PROCESS_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/include/gpuperf.h"
#include "tests/unit/test_util.h"

struct test_daemon {
	char dir[64];
	char socket_path[128];
	char log[192];
	pid_t pid;
};

/* Starts gpuperfd with the NULL-terminated extra arguments (devices,
 * metric directories) and waits for its socket. 0, or -1 with a message. */
static inline int test_daemon_start(struct test_daemon *d, const char *name,
				    const char *const *args)
{
	const char *build = getenv("GPM_BUILD_DIR");
	char daemon[512];
	const char *argv[32];
	size_t n = 0;

	snprintf(d->dir, sizeof(d->dir), "/tmp/gpuperf-%s-XXXXXX", name);
	if (!mkdtemp(d->dir))
		return -1;
	snprintf(daemon, sizeof(daemon), "%s/gpuperfd",
		 build && *build ? build : "build");
	snprintf(d->socket_path, sizeof(d->socket_path), "%s/sock", d->dir);
	snprintf(d->log, sizeof(d->log), "%s/daemon.log", d->dir);
	argv[n++] = daemon;
	/* As root it serves as root. */
	argv[n++] = "--allow-root";
	while (args && *args && n < 24)
		argv[n++] = *args++;
	argv[n++] = "-l";
	argv[n++] = "none";
	argv[n++] = "--unix";
	argv[n++] = d->socket_path;
	argv[n++] = "--linger";
	argv[n++] = "0";
	argv[n] = NULL;

	d->pid = fork();
	if (d->pid == 0) {
		if (!freopen(d->log, "w", stderr))
			_exit(127);
		execv(daemon, (char *const *)argv);
		_exit(127);
	}
	for (int i = 0; d->pid > 0 && i < 200; i++) {
		struct stat st;
		if (stat(d->socket_path, &st) == 0)
			return 0;
		if (waitpid(d->pid, NULL, WNOHANG) == d->pid)
			break;
		usleep(50000);
	}
	fprintf(stderr, "%s: %s did not start; see %s\n", name, daemon, d->log);
	return -1;
}

static inline void test_daemon_stop(struct test_daemon *d)
{
	if (d->pid > 0) {
		kill(d->pid, SIGTERM);
		waitpid(d->pid, NULL, 0);
	}
	unlink(d->log);
	unlink(d->socket_path);
	rmdir(d->dir);
}

/* main() for such a suite: the daemon in `var` (a struct test_daemon the
 * tests read socket_path from), started with the extra arguments. */
#define GPM_TEST_DAEMON_MAIN(suite_fn, var, ...)                            \
	int main(void)                                                       \
	{                                                                    \
		const char *const args[] = { __VA_ARGS__, NULL };            \
		int failed = 1;                                              \
		gpc_set_transport_log(NULL);                                 \
		if (test_daemon_start(&var, #suite_fn, args) == 0) {         \
			SRunner *runner = srunner_create(suite_fn());        \
			srunner_run_all(runner, CK_ENV);                     \
			failed = srunner_ntests_failed(runner);              \
			srunner_free(runner);                                \
		}                                                            \
		test_daemon_stop(&var);                                      \
		return failed ? EXIT_FAILURE : EXIT_SUCCESS;                 \
	}

#endif
