/*
 * DRM fdinfo text into values (see drm_fdinfo.h).
 */
#include <stdlib.h>
#include <string.h>

#include "daemon/host/drm_fdinfo.h"

static struct gpd_fdinfo_engine *engine(struct gpd_fdinfo *f, const char *key,
					size_t len)
{
	if (!len || len >= sizeof(f->engines[0].key))
		return NULL;
	for (unsigned i = 0; i < f->n_engines; i++)
		if (!strncmp(f->engines[i].key, key, len) && !f->engines[i].key[len])
			return &f->engines[i];
	if (f->n_engines == GPD_FDINFO_MAX_ENGINES)
		return NULL;
	struct gpd_fdinfo_engine *e = &f->engines[f->n_engines++];
	memset(e, 0, sizeof(*e));
	memcpy(e->key, key, len);
	e->key[len] = '\0';
	e->capacity = 1;
	return e;
}

/* A <uint> with an optional unit; false when there is no number. */
static bool number(const char *v, const char *end, uint64_t *out,
		   const char **unit)
{
	char *stop;
	if (v == end || *v < '0' || *v > '9')
		return false;
	unsigned long long n = strtoull(v, &stop, 10);
	if (stop > end)
		return false;
	while (stop < end && (*stop == ' ' || *stop == '\t'))
		stop++;
	*out = n;
	*unit = stop;
	return true;
}

static bool unit_is(const char *unit, const char *end, const char *name)
{
	size_t n = strlen(name);
	return (size_t)(end - unit) == n && !strncmp(unit, name, n);
}

/* Bytes of a memory value: B by default, KiB or MiB (drm_file.c's
 * print_size() writes them after a space). */
static bool memory(const char *v, const char *end, uint64_t *bytes)
{
	const char *unit;
	uint64_t n;
	if (!number(v, end, &n, &unit))
		return false;
	if (unit == end)
		*bytes = n;
	else if (unit_is(unit, end, "KiB"))
		*bytes = n << 10;
	else if (unit_is(unit, end, "MiB"))
		*bytes = n << 20;
	else if (unit_is(unit, end, "GiB"))
		*bytes = n << 30;
	else
		return false;
	return true;
}

static bool has_prefix(const char *key, size_t len, const char *prefix,
		       size_t *rest)
{
	size_t n = strlen(prefix);
	if (len <= n || strncmp(key, prefix, n))
		return false;
	*rest = n;
	return true;
}

static void parse_line(struct gpd_fdinfo *f, const char *key, size_t key_len,
		       const char *v, const char *end)
{
	size_t at;
	uint64_t n, bytes;
	const char *unit;
	struct gpd_fdinfo_engine *e;

	if (key_len == 10 && !strncmp(key, "drm-driver", 10)) {
		size_t len = (size_t)(end - v);
		if (len < sizeof(f->driver)) {
			memcpy(f->driver, v, len);
			f->driver[len] = '\0';
		}
	} else if (key_len == 8 && !strncmp(key, "drm-pdev", 8)) {
		size_t len = (size_t)(end - v);
		if (len < sizeof(f->pdev)) {
			memcpy(f->pdev, v, len);
			f->pdev[len] = '\0';
		}
	} else if (key_len == 13 && !strncmp(key, "drm-client-id", 13)) {
		if (number(v, end, &n, &unit) && unit == end) {
			f->client_id = n;
			f->has_client_id = true;
		}
	} else if (has_prefix(key, key_len, "drm-engine-capacity-", &at)) {
		if (number(v, end, &n, &unit) && unit == end && n &&
		    (e = engine(f, key + at, key_len - at)))
			e->capacity = (unsigned)n;
	} else if (has_prefix(key, key_len, "drm-engine-", &at)) {
		if (number(v, end, &n, &unit) && unit_is(unit, end, "ns") &&
		    (e = engine(f, key + at, key_len - at))) {
			e->ns = n;
			e->has_ns = true;
		}
	} else if (has_prefix(key, key_len, "drm-total-cycles-", &at)) {
		if (number(v, end, &n, &unit) && unit == end &&
		    (e = engine(f, key + at, key_len - at))) {
			e->total_cycles = n;
			e->has_total = true;
		}
	} else if (has_prefix(key, key_len, "drm-cycles-", &at)) {
		if (number(v, end, &n, &unit) && unit == end &&
		    (e = engine(f, key + at, key_len - at))) {
			e->cycles = n;
			e->has_cycles = true;
		}
	} else if (has_prefix(key, key_len, "drm-total-", &at)) {
		if (memory(v, end, &bytes))
			f->memory_total += bytes;
	} else if (has_prefix(key, key_len, "drm-resident-", &at) ||
		   has_prefix(key, key_len, "drm-memory-", &at)) {
		if (memory(v, end, &bytes))
			f->memory_resident += bytes;
	}
}

void gpd_fdinfo_parse(const char *text, size_t len, struct gpd_fdinfo *out)
{
	memset(out, 0, sizeof(*out));
	const char *p = text, *stop = text + len;
	while (p < stop) {
		const char *eol = memchr(p, '\n', (size_t)(stop - p));
		if (!eol)
			eol = stop;
		const char *colon = memchr(p, ':', (size_t)(eol - p));
		if (colon && !strncmp(p, "drm-", 4)) {
			const char *v = colon + 1;
			/* Whitespace after the colon is not part of the value. */
			while (v < eol && (*v == ' ' || *v == '\t'))
				v++;
			const char *end = eol;
			while (end > v && (end[-1] == ' ' || end[-1] == '\t' ||
					   end[-1] == '\r'))
				end--;
			parse_line(out, p, (size_t)(colon - p), v, end);
		}
		p = eol + 1;
	}
}
