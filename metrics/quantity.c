/*
 * Durations and sizes as people type them (see quantity.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/quantity.h"

int gpm_parse_duration(const char *text, uint64_t *ns)
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

int gpm_parse_bytes(const char *text, uint64_t *bytes)
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
