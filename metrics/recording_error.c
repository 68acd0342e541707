/*
 * The error report shared by the recording reader and writer: a code, the
 * byte offset of the record at fault, and one sentence that names it.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "metrics/recording_internal.h"

int gpm__recording_fail(struct gpm_recording_error *err, int rc,
			enum gpm_recording_errc code, uint64_t offset,
			const char *fmt, ...)
{
	if (!err)
		return rc;
	err->code = code;
	err->offset = offset;
	int n = 0;
	if (offset != GPM_RECORDING_NO_OFFSET)
		n = snprintf(err->message, sizeof(err->message),
			     "offset %" PRIu64 ": ", offset);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->message + n, sizeof(err->message) - (size_t)n, fmt, ap);
	va_end(ap);
	return rc;
}

void gpm__recording_ok(struct gpm_recording_error *err)
{
	if (!err)
		return;
	err->code = GPM_RECORDING_OK;
	err->offset = 0;
	err->message[0] = '\0';
}
