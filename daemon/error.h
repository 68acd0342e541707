/*
 * An error on its way to a user, and filling one: every layer of the
 * daemon reports refusals this way, so it lives at the bottom.
 */
#ifndef GPD_ERROR_H
#define GPD_ERROR_H

/* A negative errno-style code and words that say what to do. */
struct gpd_error {
	int code;
	char message[256];
};

/* Sets err's code and message; returns code, so that callers can
 * `return gpd_fail(err, -EINVAL, "...")`. */
int gpd_fail(struct gpd_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
