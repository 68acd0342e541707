/*
 * An LD_PRELOAD library that answers xe's DRM_IOCTL_XE_EXEC_QUEUE_CREATE
 * on any file with exec queue 7, as an xe kernel would once it made the
 * queue; every other ioctl goes on. Preloaded after
 * libgpuperf-preload.so, it lets a test watch the preload offer an exec
 * queue where no xe kernel is (tests/integration/test-own-contexts.sh).
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <sys/ioctl.h>

#include "tests/integration/xe_queue_create.h"

#define EXEC_QUEUE_ID 7u

int ioctl(int fd, unsigned long request, ...)
{
	static int (*next)(int, unsigned long, ...);
	va_list ap;
	va_start(ap, request);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	if (request == IOCTL_XE_EXEC_QUEUE_CREATE) {
		((struct xe_exec_queue_create *)arg)->exec_queue_id = EXEC_QUEUE_ID;
		return 0;
	}
	if (!next)
		next = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	return next(fd, request, arg);
}
