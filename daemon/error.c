/*
 * Filling a struct gpd_error.
 */
#include <stdarg.h>
#include <stdio.h>

#include "daemon/error.h"

int gpd_fail(struct gpd_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err->code = code;
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return code;
}
