/*
 * Command-line arguments of the network commands: options with values in
 * any of the usual spellings, durations, comma lists, and usage errors.
 */
#ifndef GPUPERF_CLI_ARGS_H
#define GPUPERF_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Matches argv[*i] against "--name VALUE", "--name=VALUE" and, given
 * short_name, "-x VALUE"; on a match advances *i past the value. 1
 * matched, 0 not this option, -1 matched but the value is missing.
 */
int gpuperf_arg_value(int argc, char **argv, int *i, const char *name,
		      const char *short_name, const char **value);

/* True when argv[i] is "--name" or short_name. */
bool gpuperf_arg_flag(const char *arg, const char *name,
		      const char *short_name);

/* "100ms", "1s", "2.5s", "500us", "20000ns", "1m" into nanoseconds.
 * -EINVAL, or -ERANGE outside 1 ns..10^18 ns. */
int gpuperf_parse_duration(const char *text, uint64_t *ns);

/* A size in bytes: "100000", "10k", "10kB", "4M", "1G" (k, M, G, T are
 * powers of 1000, as everywhere gpuperf writes sizes), or "64Ki", "1MiB"
 * (powers of 1024). -EINVAL for anything else, a fraction of a byte
 * included; -ERANGE past 2^63. */
int gpuperf_parse_bytes(const char *text, uint64_t *bytes);

/* A non-negative decimal number; -EINVAL otherwise. */
int gpuperf_parse_number(const char *text, double *out);

/*
 * Splits "a,b,c" into a NULL-terminated array of strings in one
 * allocation (free() it). Empty items are refused. 0, -EINVAL, -ENOMEM.
 */
int gpuperf_split_list(const char *text, char ***items, size_t *n);

/* Prints "gpuperf CMD: MESSAGE", the usage line and where help is;
 * returns GPUPERF_EXIT_USAGE. */
int gpuperf_usage_error(const char *cmd, const char *usage,
			const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prints "gpuperf CMD: MESSAGE" and returns code. */
int gpuperf_fail(const char *cmd, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
