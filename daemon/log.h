/*
 * Logging to stderr with levels. Under systemd (JOURNAL_STREAM set) each
 * line carries a "<N>" syslog priority prefix so journald files it at the
 * right level; on a terminal it reads "gpuperfd: warning: ...".
 */
#ifndef GPD_LOG_H
#define GPD_LOG_H

enum gpd_log_level {
	GPD_LOG_ERROR = 3,      /* syslog priorities */
	GPD_LOG_WARNING = 4,
	GPD_LOG_INFO = 6,
	GPD_LOG_DEBUG = 7,
};

void gpd_log_set_level(enum gpd_log_level level);
enum gpd_log_level gpd_log_get_level(void);

/* Parses "error", "warning", "info", "debug"; -EINVAL otherwise. */
int gpd_log_parse_level(const char *name, enum gpd_log_level *out);

void gpd_log(enum gpd_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define gpd_error(...) gpd_log(GPD_LOG_ERROR, __VA_ARGS__)
#define gpd_warn(...) gpd_log(GPD_LOG_WARNING, __VA_ARGS__)
#define gpd_info(...) gpd_log(GPD_LOG_INFO, __VA_ARGS__)
#define gpd_debug(...) gpd_log(GPD_LOG_DEBUG, __VA_ARGS__)

#endif
