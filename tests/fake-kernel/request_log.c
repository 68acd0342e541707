/*
 * The request log: a line per request the fake kernel answered, for tests
 * to check what the daemon asked (fake_kernel.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tests/fake-kernel/fake_kernel.h"

void fk_log(const char *fmt, ...)
{
	if (!fk.log)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(fk.log, fmt, ap);
	va_end(ap);
	fputc('\n', fk.log);
}

const char *fk_errname(int err)
{
	const char *name = strerrorname_np(err < 0 ? -err : err);
	return name ? name : "E?";
}
