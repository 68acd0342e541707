/*
 * An LD_PRELOAD library that holds one open() back, so a test can see
 * what a process does while one of its writes is stuck on a slow disk.
 *
 * The first open() of a path ending in $GPM_HOLD_SUFFIX writes "held" into
 * $GPM_HOLD_GATE.held, then waits until a line can be read from the FIFO
 * $GPM_HOLD_GATE (the test writes one to let it go) before it opens the
 * path. Every other open() goes straight through.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

static int (*next_open)(const char *path, int flags, ...);
static int held;

static bool to_hold(const char *path)
{
	const char *suffix = getenv("GPM_HOLD_SUFFIX");
	const char *gate = getenv("GPM_HOLD_GATE");
	size_t n = strlen(path), m = suffix ? strlen(suffix) : 0;
	return gate && m && n >= m && !strcmp(path + n - m, suffix) &&
	       !__atomic_exchange_n(&held, 1, __ATOMIC_SEQ_CST);
}

static void wait_at_gate(void)
{
	const char *gate = getenv("GPM_HOLD_GATE");
	char marker[4096];
	snprintf(marker, sizeof(marker), "%s.held", gate);
	int fd = next_open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, "held\n", 5) != 5)
			perror(marker);
		close(fd);
	}
	/* Opening a FIFO waits for its writer; a writer that wrote
	 * nothing lets it go only to wait for the next. */
	for (;;) {
		fd = next_open(gate, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return;
		char c;
		ssize_t n = read(fd, &c, 1);
		close(fd);
		if (n != 0)
			return;
	}
}

static int hold_open(const char *path, int flags, mode_t mode)
{
	if (!next_open)
		next_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	if (to_hold(path))
		wait_at_gate();
	return next_open(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	return hold_open(path, flags, mode);
}

/* Where a program asks for large-file opens by name. */
int open64(const char *path, int flags, ...) __attribute__((alias("open")));
