/*
 * Error codes and messages: the daemon's ErrorCode mapped onto errno
 * values, and words for both.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libwebsockets.h>

#include "client/lib/client_internal.h"

static const struct {
	Gpuperf__ErrorCode server;
	int code;
} server_codes[] = {
	{ GPUPERF__ERROR_CODE__MALFORMED, -EPROTO },
	{ GPUPERF__ERROR_CODE__TOO_LARGE, -EMSGSIZE },
	{ GPUPERF__ERROR_CODE__UNAUTHENTICATED, -EACCES },
	{ GPUPERF__ERROR_CODE__PERMISSION_DENIED, -EPERM },
	{ GPUPERF__ERROR_CODE__NOT_FOUND, -ENOENT },
	{ GPUPERF__ERROR_CODE__BUSY, -EBUSY },
	{ GPUPERF__ERROR_CODE__INVALID_ARGUMENT, -EINVAL },
	{ GPUPERF__ERROR_CODE__RATE_LIMITED, -EAGAIN },
	{ GPUPERF__ERROR_CODE__RESOURCE_EXHAUSTED, -ENOBUFS },
	{ GPUPERF__ERROR_CODE__UNAVAILABLE, -ENODEV },
	{ GPUPERF__ERROR_CODE__INTERNAL, -EIO },
};

int gpc__server_code_to_errno(Gpuperf__ErrorCode code)
{
	for (size_t i = 0; i < sizeof(server_codes) / sizeof(server_codes[0]); i++)
		if (server_codes[i].server == code)
			return server_codes[i].code;
	return -EIO;
}

void gpc__error_set(struct gpc_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	err->code = code;
	err->server = GPC_SERVER_NONE;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
}

void gpc__error_from_server(struct gpc_error *err, const Gpuperf__Error *e)
{
	err->code = gpc__server_code_to_errno(e->code);
	err->server = (enum gpc_server_error)e->code;
	snprintf(err->message, sizeof(err->message), "%s",
		 e->message && e->message[0] ? e->message :
		 gpc_strerror(err->code));
}

const char *gpc_strerror(int code)
{
	switch (code) {
	case 0:
		return "success";
	case -ECONNREFUSED:
		return "cannot connect to the daemon";
	case -ECONNRESET:
		return "the connection to the daemon ended";
	case -ETIMEDOUT:
		return "the daemon did not answer in time";
	case -ENOTSUP:
		return "the daemon speaks another protocol version";
	case -ECANCELED:
		return "the client was closed first";
	case -ENOTCONN:
		return "not connected";
	case -EDEADLK:
		return "a waiting call from inside a callback of its loop";
	case -EACCES:
		return "the daemon wants a valid token";
	case -EPERM:
		return "only a controller may do that";
	case -ENOENT:
		return "no such device, metric set, counter or id";
	case -EBUSY:
		return "the device runs something else";
	case -EAGAIN:
		return "too many requests; try again later";
	case -ENOBUFS:
		return "a limit of the daemon was reached";
	case -ENODEV:
		return "the device cannot stream right now";
	case -EPROTO:
		return "a message broke the protocol";
	case -EMSGSIZE:
		return "a message was too large";
	default:
		return code < 0 ? strerror(-code) : "unknown error";
	}
}

void gpc_set_transport_log(void (*emit)(int level, const char *line))
{
	/* libwebsockets' logging is process-wide; so is this setting, which
	 * is why the caller makes it. */
	lws_set_log_level(emit ? LLL_ERR | LLL_WARN : 0, emit);
}
