/*
 * What libgpuperf-preload.so costs an application's ioctls when no
 * gpuperf run is there: 1M calls of DRM_IOCTL_I915_GEM_CONTEXT_CREATE
 * on /dev/null (the kernel answers ENOTTY: a real system call, the
 * cheapest ioctl path there is, so the preload's share is at its
 * largest), each round in a fresh copy of this program: without the
 * preload (the reference) and with it in LD_PRELOAD. Rounds alternate
 * between the two; the best of each is kept. Times are the thread's CPU
 * time (user and system), which other work on a busy machine disturbs
 * less than the wall clock.
 *
 * Environment: GPM_BUILD_DIR (default build), where the preload is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <i915_drm.h>

#define CALLS 1000000
#define ROUNDS 7

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds for CALLS creates; negative if one did not fail as /dev/null
 * makes it. */
static double creates(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct drm_i915_gem_context_create create = { 0 };
	double start = now_s();
	for (int i = 0; i < CALLS; i++)
		if (ioctl(fd, DRM_IOCTL_I915_GEM_CONTEXT_CREATE, &create) != -1 ||
		    errno != ENOTTY) {
			close(fd);
			return -1;
		}
	double t = now_s() - start;
	close(fd);
	return t;
}

/* One round in a copy of this program, with preload in LD_PRELOAD
 * (NULL: none): its seconds. */
static double round_in_copy(const char *self, const char *preload)
{
	int p[2];
	if (pipe(p))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		if (preload)
			setenv("LD_PRELOAD", preload, 1);
		else
			unsetenv("LD_PRELOAD");
		unsetenv("GPUPERF_OFFER_SOCKET");
		execl(self, self, "--round", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	char text[64] = "";
	ssize_t n = pid > 0 ? read(p[0], text, sizeof(text) - 1) : -1;
	close(p[0]);
	int status = 0;
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	text[n] = '\0';
	return atof(text);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--round")) {
		printf("%.9f\n", creates());
		return 0;
	}
	const char *build = getenv("GPM_BUILD_DIR");
	char preload[4096], self[4096];
	snprintf(preload, sizeof(preload), "%s/libgpuperf-preload.so",
		 build ? build : "build");
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || access(preload, R_OK)) {
		fprintf(stderr, "bench_preload: cannot find %s (make builds it)\n",
			preload);
		return 1;
	}
	self[n] = '\0';
	if (preload[0] != '/') {
		char abs[4096];
		if (!realpath(preload, abs))
			return 1;
		snprintf(preload, sizeof(preload), "%s", abs);
	}
	double bare = 1e9, with = 1e9;
	for (int r = 0; r < ROUNDS; r++) {
		double a = round_in_copy(self, NULL);
		double b = round_in_copy(self, preload);
		if (a < 0 || b < 0) {
			fprintf(stderr, "bench_preload: a round failed\n");
			return 1;
		}
		bare = a < bare ? a : bare;
		with = b < with ? b : with;
	}
	printf("bench_preload: %d DRM_IOCTL_I915_GEM_CONTEXT_CREATE calls on "
	       "/dev/null (ENOTTY), best of %d, no gpuperf run\n", CALLS, ROUNDS);
	printf("  without the preload (reference)  %7.2f M calls/CPU-s  %6.1f ns/call\n",
	       CALLS / bare / 1e6, bare / CALLS * 1e9);
	printf("  with libgpuperf-preload.so       %7.2f M calls/CPU-s  %6.1f ns/call\n",
	       CALLS / with / 1e6, with / CALLS * 1e9);
	printf("  ratio (with / without, in rate)  %7.3f\n", bare / with);
	return 0;
}
