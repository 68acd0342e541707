/*
 * Parsing of --device SPEC.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/device_spec.h"

const char *gpd_source_kind_name(enum gpd_source_kind kind)
{
	switch (kind) {
	case GPD_SOURCE_AUTO:
		return "auto";
	case GPD_SOURCE_SIM:
		return "sim";
	case GPD_SOURCE_REPLAY:
		return "replay";
	case GPD_SOURCE_I915:
		return "i915";
	case GPD_SOURCE_XE:
		return "xe";
	case GPD_SOURCE_NVIDIA:
		return "nvidia";
	case GPD_SOURCE_AMDGPU:
		return "amdgpu";
	}
	return "unknown";
}

static int parse_replay_options(char *opts, struct gpd_device_spec *spec,
				const char **why)
{
	for (char *save = NULL, *tok = strtok_r(opts, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "loop")) {
			spec->loop = true;
		} else if (!strcmp(tok, "speed=max")) {
			spec->speed = 0;
		} else if (!strncmp(tok, "speed=", 6)) {
			char *end;
			double speed = strtod(tok + 6, &end);
			if (end == tok + 6 || *end || !(speed > 0) ||
			    speed > 1e6) {
				*why = "speed must be a positive number or 'max', "
				       "e.g. replay:FILE,speed=2";
				return -EINVAL;
			}
			spec->speed = speed;
		} else {
			*why = "unknown replay option; use replay:FILE[,loop][,speed=X|max]";
			return -EINVAL;
		}
	}
	return 0;
}

/* After "sim": [:PLATFORM][,load=X]. */
static int parse_sim(const char *rest, struct gpd_device_spec *spec,
		     const char **why)
{
	static const char usage[] = "expected sim[:PLATFORM][,load=X], e.g. "
				    "sim:tglgt2 or sim,load=1.2";
	const char *comma = strchr(rest, ',');
	size_t platform_len = comma ? (size_t)(comma - rest) : strlen(rest);

	spec->load = 1.0;
	if (platform_len && rest[0] != ':') {
		*why = usage;
		return -EINVAL;
	}
	if (platform_len) {
		if (platform_len == 1 || memchr(rest, '/', platform_len)) {
			*why = usage;
			return -EINVAL;
		}
		spec->platform = strndup(rest + 1, platform_len - 1);
		if (!spec->platform)
			return -ENOMEM;
	}
	if (!comma)
		return 0;
	char *end;
	if (strncmp(comma, ",load=", 6) ||
	    (spec->load = strtod(comma + 6, &end), end == comma + 6) || *end ||
	    !(spec->load > 0) || spec->load > GPD_MAX_SIM_LOAD) {
		*why = "load must be a number above 0 and at most 10, e.g. "
		       "sim,load=1.2";
		gpd_device_spec_fini(spec);
		return -EINVAL;
	}
	return 0;
}

int gpd_device_spec_parse(const char *text, struct gpd_device_spec *spec,
			  const char **why)
{
	memset(spec, 0, sizeof(*spec));
	spec->speed = 1.0;
	*why = NULL;

	const char *colon = strchr(text, ':');
	size_t kind_len = colon ? (size_t)(colon - text) : strlen(text);
	const char *arg = colon ? colon + 1 : NULL;

	if (kind_len == 4 && !strncmp(text, "auto", 4) && !arg) {
		spec->kind = GPD_SOURCE_AUTO;
		return 0;
	}
	if (!strncmp(text, "sim", 3) &&
	    (!text[3] || text[3] == ':' || text[3] == ',')) {
		spec->kind = GPD_SOURCE_SIM;
		return parse_sim(text + 3, spec, why);
	}
	if (kind_len == 6 && !strncmp(text, "replay", 6)) {
		spec->kind = GPD_SOURCE_REPLAY;
		if (!arg || !*arg || *arg == ',') {
			*why = "expected replay:FILE[,loop][,speed=X|max]";
			return -EINVAL;
		}
		const char *comma = strchr(arg, ',');
		size_t path_len = comma ? (size_t)(comma - arg) : strlen(arg);
		spec->path = strndup(arg, path_len);
		if (!spec->path)
			return -ENOMEM;
		if (comma) {
			char *opts = strdup(comma + 1);
			if (!opts) {
				gpd_device_spec_fini(spec);
				return -ENOMEM;
			}
			int ret = parse_replay_options(opts, spec, why);
			free(opts);
			if (ret) {
				gpd_device_spec_fini(spec);
				return ret;
			}
		}
		return 0;
	}
	if ((kind_len == 4 && !strncmp(text, "i915", 4)) ||
	    (kind_len == 2 && !strncmp(text, "xe", 2))) {
		spec->kind = kind_len == 4 ? GPD_SOURCE_I915 : GPD_SOURCE_XE;
		if (!arg || !*arg) {
			*why = "expected i915:/dev/dri/cardN or xe:/dev/dri/cardN";
			return -EINVAL;
		}
		spec->path = strdup(arg);
		if (!spec->path)
			return -ENOMEM;
		return 0;
	}
	if (kind_len == 6 && !strncmp(text, "nvidia", 6)) {
		spec->kind = GPD_SOURCE_NVIDIA;
		char *end;
		unsigned long index = arg ? strtoul(arg, &end, 10) : 0;
		if (!arg || !isdigit((unsigned char)*arg) || *end ||
		    index > 1023) {
			*why = "expected nvidia:N with N a CUDA device index, "
			       "e.g. nvidia:0";
			return -EINVAL;
		}
		spec->index = (unsigned)index;
		return 0;
	}
	if (kind_len == 6 && !strncmp(text, "amdgpu", 6)) {
		spec->kind = GPD_SOURCE_AMDGPU;
		/* "card1", or its node "/dev/dri/card1". */
		const char *slash = arg ? strrchr(arg, '/') : NULL;
		const char *card = slash ? slash + 1 : arg;
		if (!card || strncmp(card, "card", 4) || !isdigit((unsigned char)card[4])) {
			*why = "expected amdgpu:cardN (or amdgpu:/dev/dri/cardN)";
			return -EINVAL;
		}
		spec->path = strdup(card);
		return spec->path ? 0 : -ENOMEM;
	}
	*why = "unknown device kind; use auto, sim[:PLATFORM][,load=X], "
	       "replay:FILE[,loop][,speed=X|max], i915:PATH, xe:PATH, "
	       "nvidia:N or amdgpu:cardN";
	return -EINVAL;
}

void gpd_device_spec_fini(struct gpd_device_spec *spec)
{
	free(spec->platform);
	free(spec->path);
	spec->platform = NULL;
	spec->path = NULL;
}
