/*
 * Logging to stderr with levels, journald-friendly.
 *
 * The level is process-wide configuration set once at start-up, the one
 * piece of global state outside the daemon context: every module logs and
 * threading a context through all of them would buy nothing.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/log.h"

static enum gpd_log_level log_level = GPD_LOG_INFO;

void gpd_log_set_level(enum gpd_log_level level)
{
	log_level = level;
}

enum gpd_log_level gpd_log_get_level(void)
{
	return log_level;
}

int gpd_log_parse_level(const char *name, enum gpd_log_level *out)
{
	static const struct {
		const char *name;
		enum gpd_log_level level;
	} names[] = {
		{ "error", GPD_LOG_ERROR },
		{ "warning", GPD_LOG_WARNING },
		{ "info", GPD_LOG_INFO },
		{ "debug", GPD_LOG_DEBUG },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(name, names[i].name)) {
			*out = names[i].level;
			return 0;
		}
	}
	return -EINVAL;
}

static const char *level_word(enum gpd_log_level level)
{
	switch (level) {
	case GPD_LOG_ERROR:
		return "error: ";
	case GPD_LOG_WARNING:
		return "warning: ";
	case GPD_LOG_INFO:
		return "";
	case GPD_LOG_DEBUG:
		return "debug: ";
	}
	return "";
}

void gpd_log(enum gpd_log_level level, const char *fmt, ...)
{
	if (level > log_level)
		return;
	bool journal = getenv("JOURNAL_STREAM") != NULL;
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* One fputs per line so concurrent writers never interleave mid-line. */
	char out[1100];
	if (journal)
		snprintf(out, sizeof(out), "<%d>%s\n", (int)level, line);
	else
		snprintf(out, sizeof(out), "gpuperfd: %s%s\n", level_word(level),
			 line);
	fputs(out, stderr);
}
