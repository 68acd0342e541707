/*
 * A minimal walk over the sets of an Intel metric XML file, for tests and
 * benchmarks of the equation engine: each set's counters with their
 * equations, and the availability expressions of its register configs.
 * It reads only what the equation engine needs, independently of the
 * library's own loader, so the engine can be checked on every file alone.
 */
#ifndef GPM_TEST_XML_SETS_H
#define GPM_TEST_XML_SETS_H

#include <errno.h>
#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/equation.h"

struct xml_counter {
	char *symbol;
	enum gpm_value_type type;
	char *equation;
	char *max_equation;     /* NULL when absent */
	char *availability;     /* NULL when absent */
};

struct xml_set {
	char *symbol;
	size_t n_counters;
	struct xml_counter *counters;
	size_t n_reg_availability;
	char **reg_availability;        /* of <register_config> elements */
};

typedef void (*xml_set_fn)(const struct xml_set *set, void *ctx);

struct xml_walk {
	xml_set_fn fn;
	void *ctx;
	struct xml_set set;
	int in_set;
	int failed;
};

static inline const char *xml_attr(const char **attrs, const char *name)
{
	for (size_t i = 0; attrs[i]; i += 2) {
		if (!strcmp(attrs[i], name))
			return attrs[i + 1];
	}
	return NULL;
}

static inline char *xml_dup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static inline void xml_set_clear(struct xml_set *set)
{
	for (size_t i = 0; i < set->n_counters; i++) {
		free(set->counters[i].symbol);
		free(set->counters[i].equation);
		free(set->counters[i].max_equation);
		free(set->counters[i].availability);
	}
	for (size_t i = 0; i < set->n_reg_availability; i++)
		free(set->reg_availability[i]);
	free(set->counters);
	free(set->reg_availability);
	free(set->symbol);
	memset(set, 0, sizeof(*set));
}

static inline void XMLCALL xml_walk_start(void *data, const char *name,
					  const char **attrs)
{
	struct xml_walk *w = data;
	struct xml_set *set = &w->set;

	if (!strcmp(name, "set")) {
		xml_set_clear(set);
		set->symbol = xml_dup(xml_attr(attrs, "symbol_name"));
		w->in_set = 1;
	} else if (w->in_set && !strcmp(name, "counter")) {
		struct xml_counter *c = realloc(set->counters,
			(set->n_counters + 1) * sizeof(*c));
		const char *type = xml_attr(attrs, "data_type");

		if (!c) {
			w->failed = 1;
			return;
		}
		set->counters = c;
		c += set->n_counters++;
		c->symbol = xml_dup(xml_attr(attrs, "symbol_name"));
		c->type = type && !strcmp(type, "float") ? GPM_VALUE_DOUBLE :
							   GPM_VALUE_U64;
		c->equation = xml_dup(xml_attr(attrs, "equation"));
		c->max_equation = xml_dup(xml_attr(attrs, "max_equation"));
		c->availability = xml_dup(xml_attr(attrs, "availability"));
	} else if (w->in_set && !strcmp(name, "register_config")) {
		const char *avail = xml_attr(attrs, "availability");
		char **a;

		if (!avail)
			return;
		a = realloc(set->reg_availability,
			    (set->n_reg_availability + 1) * sizeof(*a));
		if (!a) {
			w->failed = 1;
			return;
		}
		set->reg_availability = a;
		a[set->n_reg_availability++] = strdup(avail);
	}
}

static inline void XMLCALL xml_walk_end(void *data, const char *name)
{
	struct xml_walk *w = data;

	if (!strcmp(name, "set") && w->in_set) {
		w->fn(&w->set, w->ctx);
		xml_set_clear(&w->set);
		w->in_set = 0;
	}
}

/* Calls fn for every <set> of the file. Returns 0 or a negative errno. */
static inline int xml_sets_walk(const char *path, xml_set_fn fn, void *ctx)
{
	struct xml_walk w = { .fn = fn, .ctx = ctx };
	FILE *f = fopen(path, "rb");
	XML_Parser p;
	char buf[65536];
	int rc = 0;

	if (!f)
		return -errno;
	p = XML_ParserCreate(NULL);
	if (!p) {
		fclose(f);
		return -ENOMEM;
	}
	XML_SetUserData(p, &w);
	XML_SetElementHandler(p, xml_walk_start, xml_walk_end);
	for (;;) {
		size_t n = fread(buf, 1, sizeof(buf), f);
		int last = n < sizeof(buf);

		if (XML_Parse(p, buf, (int)n, last) != XML_STATUS_OK) {
			rc = -EINVAL;
			break;
		}
		if (last)
			break;
	}
	if (!rc && w.failed)
		rc = -ENOMEM;
	xml_set_clear(&w.set);
	XML_ParserFree(p);
	fclose(f);
	return rc;
}

/* A resolver over one set's counters: `$Symbol` -> its position. */
static inline int xml_set_resolve(void *ctx, const char *name, size_t len,
				  unsigned *index, enum gpm_value_type *type)
{
	const struct xml_set *set = ctx;

	for (size_t i = 0; i < set->n_counters; i++) {
		const char *sym = set->counters[i].symbol;
		if (sym && strlen(sym) == len && !memcmp(sym, name, len)) {
			*index = (unsigned)i;
			*type = set->counters[i].type;
			return 0;
		}
	}
	return -ENOENT;
}

#endif
