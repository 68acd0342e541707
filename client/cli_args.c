/*
 * Argument helpers shared by the network commands (see cli_args.h).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/cli_args.h"
#include "client/commands.h"

int gpuperf_arg_value(int argc, char **argv, int *i, const char *name,
		      const char *short_name, const char **value)
{
	const char *arg = argv[*i];
	size_t len = strlen(name);

	if (!strncmp(arg, name, len) && arg[len] == '=') {
		*value = arg + len + 1;
		return 1;
	}
	if (strcmp(arg, name) && (!short_name || strcmp(arg, short_name)))
		return 0;
	if (*i + 1 >= argc)
		return -1;
	*value = argv[++*i];
	return 1;
}

bool gpuperf_arg_flag(const char *arg, const char *name,
		      const char *short_name)
{
	return !strcmp(arg, name) || (short_name && !strcmp(arg, short_name));
}

int gpuperf_parse_duration(const char *text, uint64_t *ns)
{
	static const struct {
		const char *suffix;
		double ns;
	} units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		{ "m", 60e9 },
	};
	char *end;

	errno = 0;
	double v = strtod(text, &end);
	if (end == text || errno || !(v > 0) || !isfinite(v))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix))
			continue;
		double total = v * units[i].ns;
		if (total < 1 || total > 1e18)
			return -ERANGE;
		*ns = (uint64_t)total;
		return 0;
	}
	return -EINVAL;
}

int gpuperf_parse_bytes(const char *text, uint64_t *bytes)
{
	static const struct {
		const char *prefix;
		double factor;
	} prefixes[] = {
		{ "", 1 }, { "k", 1e3 }, { "M", 1e6 }, { "G", 1e9 },
		{ "T", 1e12 }, { "Ki", 1024.0 }, { "Mi", 1048576.0 },
		{ "Gi", 1073741824.0 }, { "Ti", 1099511627776.0 },
	};
	char *end;

	errno = 0;
	double v = strtod(text, &end);
	if (end == text || errno || !(v >= 0) || !isfinite(v))
		return -EINVAL;
	size_t len = strlen(end);
	/* An optional B after the prefix: 10k and 10kB are the same. */
	if (len && end[len - 1] == 'B')
		len--;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		if (strlen(prefixes[i].prefix) != len ||
		    strncmp(end, prefixes[i].prefix, len))
			continue;
		double total = v * prefixes[i].factor;
		if (total >= 9223372036854775808.0)
			return -ERANGE;
		if (total != floor(total))
			return -EINVAL;
		*bytes = (uint64_t)total;
		return 0;
	}
	return -EINVAL;
}

int gpuperf_parse_number(const char *text, double *out)
{
	char *end;

	errno = 0;
	double v = strtod(text, &end);
	if (end == text || *end || errno || !(v >= 0) || !isfinite(v))
		return -EINVAL;
	*out = v;
	return 0;
}

int gpuperf_split_list(const char *text, char ***items, size_t *n)
{
	size_t count = 1, len = strlen(text);

	for (const char *p = text; *p; p++)
		count += *p == ',';
	char **array = malloc((count + 1) * sizeof(*array) + len + 1);
	if (!array)
		return -ENOMEM;
	char *copy = (char *)(array + count + 1);
	memcpy(copy, text, len + 1);
	size_t k = 0;
	for (char *p = copy;; p++) {
		char *item = p;
		p += strcspn(p, ",");
		bool last = !*p;
		*p = '\0';
		if (!*item) {
			free(array);
			return -EINVAL;
		}
		array[k++] = item;
		if (last)
			break;
	}
	array[k] = NULL;
	*items = array;
	*n = k;
	return 0;
}

int gpuperf_usage_error(const char *cmd, const char *usage,
			const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gpuperf %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: %s\n(see 'gpuperf %s --help')\n", usage, cmd);
	return GPUPERF_EXIT_USAGE;
}

int gpuperf_fail(const char *cmd, int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gpuperf %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	return code;
}
