/*
 * The request log: a line per request the fake kernel answered, for tests
 * to check what the daemon asked (fake_kernel.h).
 *
 * The kernel keeps nothing in a process's descriptor table, and neither
 * does the fake: each line opens the log, appends in one write() and
 * closes it. A descriptor kept open would be the application's to close
 * or to dup2() over (a shell's "exec 3<node" does), and the lines would
 * land in whatever file took its number.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests/fake-kernel/fake_kernel.h"

void fk_log(const char *fmt, ...)
{
	if (!fk.log_path[0])
		return;
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t len = (size_t)n < sizeof(line) - 1 ? (size_t)n : sizeof(line) - 2;
	line[len++] = '\n';
	/* Raw syscalls: the fake's own open() and close() must not see the
	 * log as an application's file. */
	int fd = (int)syscall(SYS_openat, AT_FDCWD, fk.log_path,
			      O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	ssize_t written = write(fd, line, len);
	(void)written;
	syscall(SYS_close, fd);
}

const char *fk_errname(int err)
{
	const char *name = strerrorname_np(err < 0 ? -err : err);
	return name ? name : "E?";
}
