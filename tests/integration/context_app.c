/*
 * An application that makes GPU contexts, for gpuperf run --own-contexts
 * and libgpuperf-preload.so (tests/integration/test-own-contexts.sh).
 *
 *   context-app NODE [--contexts N] [--xe-queues N] [--wait FILE] [--fork 1]
 *
 * Opens NODE and creates N i915 GEM contexts (alternately with
 * GEM_CONTEXT_CREATE and _CREATE_EXT) and N xe exec queues (render, in a
 * VM the file creates first where the kernel is xe), each with errno set
 * beforehand, and checks what an application relies on: each
 * create succeeds and leaves errno alone, and a create the kernel refuses
 * (_CREATE_EXT with an unknown flag) fails with EINVAL. Prints a line per
 * step; with --wait, waits until FILE exists before it exits. With
 * --fork 1 a child process does all of it ("forked PID"), and the app
 * exits with its status. Exits 0 when every check held, 1 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <i915_drm.h>

#include "daemon/xe/xe_uapi.h"
#include "tests/integration/xe_queue_create.h"

/* What errno holds before each call: no call sets it so. */
#define SENTINEL_ERRNO EXDEV

static int failures;

static void check(int ok, const char *what)
{
	if (!ok) {
		failures++;
		printf("FAILED: %s (errno %s)\n", what, strerror(errno));
	}
}

int main(int argc, char **argv)
{
	unsigned contexts = 0, queues = 0;
	int in_child = 0;
	const char *wait_file = NULL;
	if (argc < 2) {
		fprintf(stderr, "usage: context-app NODE [--contexts N] "
			"[--xe-queues N] [--wait FILE]\n");
		return 2;
	}
	for (int i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--contexts"))
			contexts = (unsigned)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--xe-queues"))
			queues = (unsigned)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--wait"))
			wait_file = argv[i + 1];
		else if (!strcmp(argv[i], "--fork"))
			in_child = atoi(argv[i + 1]);
	}
	if (in_child) {
		pid_t child = fork();
		if (child < 0)
			return 1;
		if (child > 0) {
			int status;
			printf("forked %d\n", (int)child);
			fflush(stdout);
			return waitpid(child, &status, 0) == child &&
			       WIFEXITED(status) ? WEXITSTATUS(status) : 1;
		}
	}
	int fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (unsigned i = 0; i < contexts; i++) {
		struct drm_i915_gem_context_create_ext create = { 0 };
		errno = SENTINEL_ERRNO;
		int ret = ioctl(fd, i % 2 ? DRM_IOCTL_I915_GEM_CONTEXT_CREATE_EXT :
				DRM_IOCTL_I915_GEM_CONTEXT_CREATE, &create);
		check(ret == 0, "a context create");
		check(errno == SENTINEL_ERRNO, "errno kept across a context create");
		printf("context %u\n", create.ctx_id);
		fflush(stdout);
	}
	/* xe's queues need a VM of the file and an engine to run on
	 * (xe_exec_queue_create_ioctl()); where no xe kernel makes the VM,
	 * VM 0 goes to whoever answers the create. */
	struct drm_xe_vm_create vm = { 0 };
	struct drm_xe_engine_class_instance render = {
		.engine_class = DRM_XE_ENGINE_CLASS_RENDER,
	};
	if (queues && ioctl(fd, DRM_IOCTL_XE_VM_CREATE, &vm))
		vm.vm_id = 0;
	for (unsigned i = 0; i < queues; i++) {
		struct xe_exec_queue_create create = {
			.width = 1, .num_placements = 1, .vm_id = vm.vm_id,
			.instances = (uintptr_t)&render,
		};
		errno = SENTINEL_ERRNO;
		int ret = ioctl(fd, IOCTL_XE_EXEC_QUEUE_CREATE, &create);
		check(ret == 0, "an exec queue create");
		check(errno == SENTINEL_ERRNO, "errno kept across an exec queue create");
		printf("exec queue %u\n", create.exec_queue_id);
		fflush(stdout);
	}
	if (contexts) {
		struct drm_i915_gem_context_create_ext bad = { .flags = 1u << 31 };
		errno = SENTINEL_ERRNO;
		int ret = ioctl(fd, DRM_IOCTL_I915_GEM_CONTEXT_CREATE_EXT, &bad);
		check(ret == -1 && errno == EINVAL, "an unknown flag refused with EINVAL");
		printf("unknown flag: %s\n", strerror(errno));
	}
	while (wait_file && access(wait_file, F_OK))
		usleep(10000);
	printf(failures ? "failed\n" : "done\n");
	close(fd);
	return failures ? 1 : 0;
}
