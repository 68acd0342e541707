/*
 * Compiling a metric set: every equation into a program, the counters into
 * an evaluation order, and out with whatever cannot be evaluated.
 *
 * A set is compiled in rounds. A round compiles every counter against the
 * set's symbols, then orders them by their `$Counter` references with
 * Kahn's algorithm; counters that fail to compile, duplicate a symbol, sit
 * in a reference cycle or read such a counter are reported and marked bad.
 * Because equations refer to counters by index, removing bad counters
 * renumbers the rest, so the round is repeated on the survivors, which then
 * compile cleanly. Sets without problems (all of Intel's) take one round.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "metrics/arena.h"
#include "metrics/metric_set_internal.h"
#include "metrics/name_match.h"

enum counter_state {
	COUNTER_GOOD,
	COUNTER_BAD,            /* reported; to be removed */
};

struct set_compiler {
	struct gpm_metric_set *set;
	const char *path;
	struct gpm_diagnostics *diag;
	size_t n;               /* counters in this round */
	unsigned *by_name;      /* good counter indices sorted by symbol */
	size_t n_by_name;
	unsigned char *state;
	unsigned *remaining;    /* per counter: references not yet ordered */
	unsigned *dep_start;    /* n + 1 offsets into dependents */
	unsigned *dependents;   /* who references counter i */
	unsigned *order;        /* Kahn's output, then the evaluation order */
	unsigned *stamp;        /* de-duplicates references per counter */
	unsigned *walk;         /* cycle search: walk id per counter */
};

enum gpm_value_type gpm_counter_value_type(enum gpm_counter_data_type type)
{
	switch (type) {
	case GPM_DATA_FLOAT:
	case GPM_DATA_DOUBLE:
		return GPM_VALUE_DOUBLE;
	case GPM_DATA_BOOL32:
	case GPM_DATA_UINT32:
	case GPM_DATA_UINT64:
		break;
	}
	return GPM_VALUE_U64;
}

const char *gpm_counter_type_name(enum gpm_counter_type type)
{
	switch (type) {
	case GPM_COUNTER_EVENT:
		return "event";
	case GPM_COUNTER_DURATION_NORM:
		return "duration_norm";
	case GPM_COUNTER_DURATION_RAW:
		return "duration_raw";
	case GPM_COUNTER_THROUGHPUT:
		return "throughput";
	case GPM_COUNTER_RAW:
		return "raw";
	case GPM_COUNTER_TIMESTAMP:
		return "timestamp";
	}
	return "?";
}

const char *gpm_counter_data_type_name(enum gpm_counter_data_type type)
{
	switch (type) {
	case GPM_DATA_BOOL32:
		return "bool32";
	case GPM_DATA_UINT32:
		return "uint32";
	case GPM_DATA_UINT64:
		return "uint64";
	case GPM_DATA_FLOAT:
		return "float";
	case GPM_DATA_DOUBLE:
		return "double";
	}
	return "?";
}

const char *gpm_register_kind_name(enum gpm_register_kind kind)
{
	switch (kind) {
	case GPM_REGISTERS_MUX:
		return "NOA";
	case GPM_REGISTERS_BOOLEAN:
		return "OA";
	case GPM_REGISTERS_FLEX:
		return "FLEX";
	case GPM_REGISTER_KINDS:
		break;
	}
	return "?";
}

/* Orders name (len bytes) against a NUL-terminated symbol. */
static int compare_name(const char *name, size_t len, const char *symbol)
{
	int c = strncmp(name, symbol, len);
	if (c)
		return c;
	return symbol[len] ? -1 : 0;
}

static int compare_by_symbol(const void *a, const void *b, void *ctx)
{
	const struct gpm_counter *counters = ctx;
	unsigned ia = *(const unsigned *)a, ib = *(const unsigned *)b;
	int c = strcmp(counters[ia].symbol_name, counters[ib].symbol_name);
	if (c)
		return c;
	/* Equal symbols: document order, so the first definition wins. */
	return ia < ib ? -1 : ia > ib;
}

static int resolve_counter(void *ctx, const char *name, size_t len,
			   unsigned *index, enum gpm_value_type *type)
{
	const struct set_compiler *sc = ctx;
	size_t lo = 0, hi = sc->n_by_name;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		unsigned i = sc->by_name[mid];
		int c = compare_name(name, len, sc->set->counters[i].symbol_name);
		if (c == 0) {
			*index = i;
			*type = gpm_counter_value_type(
				sc->set->counters[i].data_type);
			return 0;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -ENOENT;
}

int gpm_metric_set_find_counter(const struct gpm_metric_set *set,
				const char *symbol_name)
{
	for (size_t i = 0; i < set->n_counters; i++)
		if (!strcmp(set->counters[i].symbol_name, symbol_name))
			return (int)i;
	return -ENOENT;
}

const struct gpm_metric_set *
gpm_metrics_file_find_set(const struct gpm_metrics_file *file,
			  const char *name)
{
	for (size_t i = 0; i < file->n_sets; i++)
		if (!strcmp(file->sets[i].symbol_name, name) ||
		    !strcmp(file->sets[i].hw_config_guid, name))
			return &file->sets[i];
	return NULL;
}

const struct gpm_metric_set *
gpm_metrics_file_lookup_set(const struct gpm_metrics_file *file,
			    const char *name)
{
	const struct gpm_metric_set *set = gpm_metrics_file_find_set(file, name);

	for (size_t i = 0; !set && i < file->n_sets; i++)
		if (!strcasecmp(file->sets[i].symbol_name, name) ||
		    !strcasecmp(file->sets[i].hw_config_guid, name))
			set = &file->sets[i];
	return set;
}

int gpm_metric_set_lookup_counter(const struct gpm_metric_set *set,
				  const char *name)
{
	int i = gpm_metric_set_find_counter(set, name);

	for (size_t k = 0; i < 0 && k < set->n_counters; k++)
		if (!strcasecmp(set->counters[k].symbol_name, name))
			i = (int)k;
	return i;
}

const char *gpm_metrics_file_closest_set(const struct gpm_metrics_file *file,
					 const char *name)
{
	const char *best = NULL;
	size_t distance = SIZE_MAX;

	for (size_t i = 0; i < file->n_sets; i++)
		gpm_name_consider(name, file->sets[i].symbol_name, &best,
				  &distance);
	return best;
}

const char *gpm_metric_set_closest_counter(const struct gpm_metric_set *set,
					   const char *name)
{
	const char *best = NULL;
	size_t distance = SIZE_MAX;

	for (size_t i = 0; i < set->n_counters; i++)
		gpm_name_consider(name, set->counters[i].symbol_name, &best,
				  &distance);
	return best;
}

static void counter_free_equations(struct gpm_counter *c)
{
	gpm_equation_free(c->eq);
	gpm_equation_free(c->max_eq);
	gpm_equation_free(c->availability_eq);
	c->eq = NULL;
	c->max_eq = NULL;
	c->availability_eq = NULL;
}

void gpm__metric_set_free_equations(struct gpm_metric_set *set)
{
	for (size_t i = 0; i < set->n_counters; i++)
		counter_free_equations(&set->counters[i]);
	for (size_t i = 0; i < set->n_register_configs; i++) {
		gpm_equation_free(set->register_configs[i].availability_eq);
		set->register_configs[i].availability_eq = NULL;
	}
}

void gpm_metrics_file_free(struct gpm_metrics_file *file)
{
	if (!file)
		return;
	for (size_t s = 0; s < file->n_sets; s++)
		gpm__metric_set_free_equations(&file->sets[s]);
	if (file->arena) {
		gpm__arena_free(file->arena);
		free(file->arena);
	}
	free(file);
}

#define REPORT(sc, line, ...)                                                \
	gpm_diagnostics_add((sc)->diag, (sc)->path, (line), __VA_ARGS__)

/* what names the attribute ("" for the equation). An unknown `$Name` in an
 * equation that may read counters is a reference to a missing counter. */
static int report_equation_error(struct set_compiler *sc,
				 const struct gpm_counter *c, const char *what,
				 bool reads_counters,
				 const struct gpm_equation_error *err)
{
	if (reads_counters && err->token[0] == '$' &&
	    (err->code == GPM_EQ_UNKNOWN_VARIABLE ||
	     err->code == GPM_EQ_UNKNOWN_COUNTER))
		return REPORT(sc, c->line,
			      "set %s, counter %s: %sunknown counter reference "
			      "'%s': no counter of the set and no device "
			      "variable has that name",
			      sc->set->symbol_name, c->symbol_name, what,
			      err->token);
	return REPORT(sc, c->line, "set %s, counter %s: %s%s",
		      sc->set->symbol_name, c->symbol_name, what, err->message);
}

static void mark_bad(struct set_compiler *sc, unsigned i)
{
	sc->state[i] = COUNTER_BAD;
}

/* Sorts the symbols for the resolver; a repeated symbol is reported and
 * its later definitions marked bad. */
static int index_symbols(struct set_compiler *sc)
{
	struct gpm_counter *counters = sc->set->counters;
	size_t kept = 0;
	int ret;

	for (unsigned i = 0; i < sc->n; i++)
		sc->by_name[i] = i;
	qsort_r(sc->by_name, sc->n, sizeof(*sc->by_name), compare_by_symbol,
		counters);
	for (size_t k = 0; k < sc->n; k++) {
		unsigned i = sc->by_name[k];
		if (kept && !strcmp(counters[sc->by_name[kept - 1]].symbol_name,
				    counters[i].symbol_name)) {
			const struct gpm_counter *first =
				&counters[sc->by_name[kept - 1]];
			ret = REPORT(sc, counters[i].line,
				     "set %s: counter %s is defined twice (first "
				     "at line %u); this one is ignored",
				     sc->set->symbol_name, counters[i].symbol_name,
				     first->line);
			if (ret)
				return ret;
			mark_bad(sc, i);
			continue;
		}
		sc->by_name[kept++] = i;
	}
	sc->n_by_name = kept;
	return 0;
}

static int compile_counter(struct set_compiler *sc, unsigned i)
{
	struct gpm_counter *c = &sc->set->counters[i];
	const struct gpm_equation_resolver resolver = { resolve_counter, sc };
	enum gpm_value_type type = gpm_counter_value_type(c->data_type);
	struct gpm_equation_error err;
	int ret;

	ret = gpm_equation_compile(c->equation, type, &resolver, &c->eq, &err);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		c->eq = NULL;
		mark_bad(sc, i);
		return report_equation_error(sc, c, "", true, &err);
	}

	if (c->availability) {
		/* No resolver: availability is decided once per device, before
		 * any counter has a value. */
		ret = gpm_equation_compile(c->availability, GPM_VALUE_U64, NULL,
					   &c->availability_eq, &err);
		if (ret == -ENOMEM)
			return ret;
		if (ret) {
			c->availability_eq = NULL;
			mark_bad(sc, i);
			return report_equation_error(sc, c, "availability: ",
						     false, &err);
		}
		if (!gpm_equation_is_constant(c->availability_eq)) {
			mark_bad(sc, i);
			return REPORT(sc, c->line,
				      "set %s, counter %s: availability reads "
				      "report data; it may use device variables "
				      "only", sc->set->symbol_name,
				      c->symbol_name);
		}
	}

	if (c->max_equation) {
		ret = gpm_equation_compile(c->max_equation, type, &resolver,
					   &c->max_eq, &err);
		if (ret == -ENOMEM)
			return ret;
		if (ret) {
			/* The counter itself is fine; only its bound is lost. */
			c->max_eq = NULL;
			c->max_equation = NULL;
			return report_equation_error(sc, c, "max_equation: ",
						     true, &err);
		}
	}
	return 0;
}

/* Builds the reverse edges (who reads counter i) and each counter's count
 * of distinct references. 0 or -ENOMEM. */
static int build_dependents(struct set_compiler *sc)
{
	struct gpm_counter *counters = sc->set->counters;
	const unsigned *refs;
	size_t n_refs;

	memset(sc->dep_start, 0, (sc->n + 1) * sizeof(*sc->dep_start));
	memset(sc->stamp, 0, sc->n * sizeof(*sc->stamp));
	for (unsigned i = 0; i < sc->n; i++) {
		sc->remaining[i] = 0;
		if (!counters[i].eq)
			continue;
		n_refs = gpm_equation_counter_refs(counters[i].eq, &refs);
		for (size_t k = 0; k < n_refs; k++) {
			if (sc->stamp[refs[k]] == i + 1)
				continue;
			sc->stamp[refs[k]] = i + 1;
			sc->remaining[i]++;
			sc->dep_start[refs[k] + 1]++;
		}
	}
	for (size_t i = 0; i < sc->n; i++)
		sc->dep_start[i + 1] += sc->dep_start[i];
	free(sc->dependents);
	sc->dependents = malloc((sc->dep_start[sc->n] + 1) *
				sizeof(*sc->dependents));
	if (!sc->dependents)
		return -ENOMEM;

	/* Fill with a moving cursor per target, borrowed from order[]. */
	unsigned *cursor = sc->order;
	memcpy(cursor, sc->dep_start, sc->n * sizeof(*cursor));
	memset(sc->stamp, 0, sc->n * sizeof(*sc->stamp));
	for (unsigned i = 0; i < sc->n; i++) {
		if (!counters[i].eq)
			continue;
		n_refs = gpm_equation_counter_refs(counters[i].eq, &refs);
		for (size_t k = 0; k < n_refs; k++) {
			if (sc->stamp[refs[k]] == i + 1)
				continue;
			sc->stamp[refs[k]] = i + 1;
			sc->dependents[cursor[refs[k]]++] = i;
		}
	}
	return 0;
}

/* The first counter that i references and that is bad; -1 if none. */
static int bad_reference(const struct set_compiler *sc,
			 const struct gpm_equation *eq)
{
	const unsigned *refs;
	size_t n_refs = gpm_equation_counter_refs(eq, &refs);
	for (size_t k = 0; k < n_refs; k++)
		if (sc->state[refs[k]] != COUNTER_GOOD)
			return (int)refs[k];
	return -1;
}

/*
 * Kahn's algorithm. Returns how many counters were ordered; the rest are
 * in a cycle or depend on one. Counters reading a bad counter go bad in
 * turn, which is why the bad ones are ordered too (they have no references
 * of their own and so come early).
 */
static int order_counters(struct set_compiler *sc, size_t *ordered)
{
	struct gpm_counter *counters = sc->set->counters;
	size_t head = 0, tail = 0;
	int ret;

	for (unsigned i = 0; i < sc->n; i++)
		if (sc->remaining[i] == 0)
			sc->order[tail++] = i;
	while (head < tail) {
		unsigned i = sc->order[head++];
		if (sc->state[i] == COUNTER_GOOD && counters[i].eq) {
			int bad = bad_reference(sc, counters[i].eq);
			if (bad >= 0) {
				mark_bad(sc, i);
				ret = REPORT(sc, counters[i].line,
					     "set %s, counter %s: reads counter "
					     "%s, which is unusable",
					     sc->set->symbol_name,
					     counters[i].symbol_name,
					     counters[bad].symbol_name);
				if (ret)
					return ret;
			}
		}
		for (unsigned k = sc->dep_start[i]; k < sc->dep_start[i + 1]; k++) {
			unsigned j = sc->dependents[k];
			if (--sc->remaining[j] == 0)
				sc->order[tail++] = j;
		}
	}
	*ordered = tail;
	return 0;
}

/* A referenced counter that Kahn's algorithm could not order either. */
static int unordered_reference(const struct set_compiler *sc, unsigned i)
{
	const unsigned *refs;
	size_t n_refs = gpm_equation_counter_refs(sc->set->counters[i].eq,
						  &refs);
	for (size_t k = 0; k < n_refs; k++)
		if (sc->remaining[refs[k]] != 0)
			return (int)refs[k];
	return -1;
}

/*
 * Every counter left unordered has an unordered reference, so following
 * one from anywhere must come back to a counter already on the walk: that
 * stretch is a cycle. Each cycle found is reported once with its members;
 * counters that merely lead into one are reported as reading it.
 */
static int report_cycles(struct set_compiler *sc)
{
	struct gpm_counter *counters = sc->set->counters;
	char buf[1024];
	int ret;

	memset(sc->walk, 0, sc->n * sizeof(*sc->walk));
	for (unsigned start = 0; start < sc->n; start++) {
		if (sc->remaining[start] == 0 || sc->walk[start])
			continue;
		unsigned i = start;
		while (!sc->walk[i]) {
			sc->walk[i] = start + 1;
			i = (unsigned)unordered_reference(sc, i);
		}
		if (sc->walk[i] != start + 1)
			continue;       /* ran into a cycle reported before */

		/* i is on the cycle; list it from there. */
		size_t len = 0;
		unsigned j = i;
		do {
			int n = snprintf(buf + len, sizeof(buf) - len, "%s -> ",
					 counters[j].symbol_name);
			if (n > 0)
				len += (size_t)n;
			if (len >= sizeof(buf))
				len = sizeof(buf) - 1;
			sc->walk[j] = (unsigned)sc->n + 1;  /* member */
			j = (unsigned)unordered_reference(sc, j);
		} while (j != i);
		ret = REPORT(sc, counters[i].line,
			     "set %s: counters reference each other in a "
			     "cycle: %s%s", sc->set->symbol_name, buf,
			     counters[i].symbol_name);
		if (ret)
			return ret;
	}

	for (unsigned i = 0; i < sc->n; i++) {
		if (sc->remaining[i] == 0)
			continue;
		if (sc->walk[i] != sc->n + 1) {
			int dep = unordered_reference(sc, i);
			ret = REPORT(sc, counters[i].line,
				     "set %s, counter %s: reads counter %s, "
				     "which is unusable", sc->set->symbol_name,
				     counters[i].symbol_name,
				     counters[dep].symbol_name);
			if (ret)
				return ret;
		}
		mark_bad(sc, i);
	}
	return 0;
}

/* A bound that reads an unusable counter is dropped; the counter stays. */
static int check_max_references(struct set_compiler *sc)
{
	struct gpm_counter *counters = sc->set->counters;
	for (unsigned i = 0; i < sc->n; i++) {
		struct gpm_counter *c = &counters[i];
		if (sc->state[i] != COUNTER_GOOD || !c->max_eq)
			continue;
		int bad = bad_reference(sc, c->max_eq);
		if (bad < 0)
			continue;
		int ret = REPORT(sc, c->line,
				 "set %s, counter %s: max_equation reads "
				 "counter %s, which is unusable",
				 sc->set->symbol_name, c->symbol_name,
				 counters[bad].symbol_name);
		if (ret)
			return ret;
		gpm_equation_free(c->max_eq);
		c->max_eq = NULL;
		c->max_equation = NULL;
	}
	return 0;
}

/* One round; *clean tells whether every counter survived. */
static int compile_round(struct set_compiler *sc, bool *clean)
{
	size_t ordered;
	int ret;

	memset(sc->state, COUNTER_GOOD, sc->n);
	ret = index_symbols(sc);
	for (unsigned i = 0; !ret && i < sc->n; i++)
		if (sc->state[i] == COUNTER_GOOD)
			ret = compile_counter(sc, i);
	if (ret)
		return ret;

	ret = build_dependents(sc);
	if (!ret)
		ret = order_counters(sc, &ordered);
	if (!ret && ordered < sc->n)
		ret = report_cycles(sc);
	if (!ret)
		ret = check_max_references(sc);
	if (ret)
		return ret;

	*clean = true;
	for (size_t i = 0; i < sc->n; i++)
		if (sc->state[i] != COUNTER_GOOD)
			*clean = false;
	return 0;
}

/* Keeps the good counters, in document order, without their programs:
 * their indices change, so they are compiled again. */
static void drop_bad_counters(struct set_compiler *sc)
{
	struct gpm_counter *counters = sc->set->counters;
	size_t kept = 0;
	for (size_t i = 0; i < sc->n; i++) {
		counter_free_equations(&counters[i]);
		if (sc->state[i] == COUNTER_GOOD)
			counters[kept++] = counters[i];
	}
	sc->n = kept;
	sc->set->n_counters = kept;
}

/* Compiles the configs' availability and drops (and reports) the configs
 * it fails for. On -ENOMEM the set keeps the configs handled so far, so
 * that no program is freed twice. */
static int compile_register_configs(struct gpm_metric_set *set,
				    const char *path,
				    struct gpm_diagnostics *diag)
{
	size_t kept = 0;
	int ret = 0;

	for (size_t i = 0; !ret && i < set->n_register_configs; i++) {
		struct gpm_register_config *rc = &set->register_configs[i];
		struct gpm_equation_error err;

		if (rc->availability) {
			ret = gpm_equation_compile(rc->availability,
						   GPM_VALUE_U64, NULL,
						   &rc->availability_eq, &err);
			if (ret == -ENOMEM)
				break;
		}
		if (ret) {
			ret = gpm_diagnostics_add(diag, path, rc->line,
						  "set %s, %s register config: "
						  "availability: %s; config "
						  "ignored", set->symbol_name,
						  gpm_register_kind_name(rc->kind),
						  err.message);
		} else if (rc->availability_eq &&
			   !gpm_equation_is_constant(rc->availability_eq)) {
			gpm_equation_free(rc->availability_eq);
			ret = gpm_diagnostics_add(diag, path, rc->line,
						  "set %s, %s register config: "
						  "availability reads report "
						  "data; config ignored",
						  set->symbol_name,
						  gpm_register_kind_name(rc->kind));
		} else {
			set->register_configs[kept++] = *rc;
		}
	}
	set->n_register_configs = kept;
	return ret;
}

int gpm__metric_set_compile(struct gpm_metric_set *set, const char *path,
			    struct gpm__arena *arena,
			    struct gpm_diagnostics *diag)
{
	struct set_compiler sc = {
		.set = set, .path = path, .diag = diag, .n = set->n_counters,
	};
	size_t n = sc.n ? sc.n : 1;
	int ret = -ENOMEM;

	sc.by_name = malloc(n * sizeof(*sc.by_name));
	sc.state = malloc(n);
	sc.remaining = malloc(n * sizeof(*sc.remaining));
	sc.dep_start = malloc((n + 1) * sizeof(*sc.dep_start));
	sc.order = malloc(n * sizeof(*sc.order));
	sc.stamp = malloc(n * sizeof(*sc.stamp));
	sc.walk = malloc(n * sizeof(*sc.walk));
	if (!sc.by_name || !sc.state || !sc.remaining || !sc.dep_start ||
	    !sc.order || !sc.stamp || !sc.walk)
		goto out;

	for (;;) {
		bool clean = false;
		ret = compile_round(&sc, &clean);
		if (ret || clean)
			break;
		drop_bad_counters(&sc);
	}
	if (ret)
		goto out;

	unsigned *order = gpm__arena_memdup(arena, sc.order,
					    sc.n * sizeof(*sc.order));
	ret = order ? compile_register_configs(set, path, diag) : -ENOMEM;
	set->eval_order = order;
out:
	free(sc.by_name);
	free(sc.state);
	free(sc.remaining);
	free(sc.dep_start);
	free(sc.order);
	free(sc.stamp);
	free(sc.walk);
	free(sc.dependents);
	return ret;
}
