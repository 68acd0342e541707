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
#include "metrics/quantity.h"

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
	return gpm_parse_duration(text, ns);
}

int gpuperf_parse_bytes(const char *text, uint64_t *bytes)
{
	return gpm_parse_bytes(text, bytes);
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
