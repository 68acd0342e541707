/*
 * The metric XML parser: expat callbacks that build one set at a time.
 *
 * Counters and register configs gather in scratch arrays while a <set> is
 * open; when it closes they move into the file's arena and the set is
 * compiled. An XML error therefore loses only the set it interrupts. Unknown
 * elements and attributes are skipped, so newer files still load.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <expat.h>

#include "metrics/arena.h"
#include "metrics/metric_set_internal.h"
#include "metrics/metric_xml.h"

/* Where the parser is: the innermost element it is building. */
enum element {
	EL_DOCUMENT,
	EL_METRICS,
	EL_SET,
	EL_CONFIG,
};

struct vec {
	void *items;
	size_t count;
	size_t capacity;
};

struct parser {
	XML_Parser xp;
	const char *path;
	struct gpm_diagnostics *diag;
	struct gpm_metrics_file *file;
	struct gpm__arena *arena;
	int err;                        /* -ENOMEM stops everything */
	bool stopped;                   /* we stopped expat (saying why, if
					 * for a problem) */
	enum element at;
	unsigned long depth;
	unsigned long skip_depth;       /* nonzero: inside an ignored subtree */

	struct gpm_metric_set set;      /* the open <set> */
	struct vec counters;            /* struct gpm_counter */
	struct vec configs;             /* struct gpm_register_config */
	struct gpm_register_config config;      /* the open <register_config> */
	bool config_bad;
	struct vec registers;           /* struct gpm_register */
	struct vec raw_counters;        /* struct gpm_raw_counter */
	struct vec sets;                /* finished sets */

	/* When only_set is set, just the sets named so or configured with
	 * only_uuid are kept, and reading ends after the first set named
	 * only_set. */
	const char *only_set;
	const char *only_uuid;
};


static void *vec_push(struct vec *v, size_t size)
{
	if (v->count == v->capacity) {
		size_t cap = v->capacity ? v->capacity * 2 : 16;
		void *items = realloc(v->items, cap * size);
		if (!items)
			return NULL;
		v->items = items;
		v->capacity = cap;
	}
	void *item = (char *)v->items + v->count * size;
	v->count++;
	memset(item, 0, size);
	return item;
}

static unsigned current_line(const struct parser *p)
{
	XML_Size line = XML_GetCurrentLineNumber(p->xp);
	return line > UINT_MAX ? UINT_MAX : (unsigned)line;
}

static void out_of_memory(struct parser *p)
{
	if (!p->err)
		p->err = -ENOMEM;
	if (!p->stopped) {
		p->stopped = true;
		XML_StopParser(p->xp, XML_FALSE);
	}
}

#define REPORT(p, line, ...)                                                  \
	do {                                                                  \
		if (gpm_diagnostics_add((p)->diag, (p)->path, (line),         \
					__VA_ARGS__))                         \
			out_of_memory(p);                                     \
	} while (0)

static const char *attr(const XML_Char **atts, const char *name)
{
	for (size_t i = 0; atts[i]; i += 2)
		if (!strcmp(atts[i], name))
			return atts[i + 1];
	return NULL;
}

/* An arena copy of the attribute, "" when absent; NULL only on ENOMEM. */
/* Whether the <set> with these attributes is one the caller wants. */
static bool wanted_set(const struct parser *p, const XML_Char **atts)
{
	const char *symbol = attr(atts, "symbol_name");
	const char *uuid = attr(atts, "hw_config_guid");

	if (!p->only_set)
		return true;
	return (symbol && !strcmp(symbol, p->only_set)) ||
	       (uuid && p->only_uuid && *p->only_uuid &&
		!strcmp(uuid, p->only_uuid));
}

static const char *copy_attr(struct parser *p, const XML_Char **atts,
			     const char *name)
{
	const char *v = attr(atts, name);
	char *copy = gpm__arena_strdup(p->arena, v ? v : "");
	if (!copy)
		out_of_memory(p);
	return copy;
}

/* Like copy_attr, but NULL when absent (or on ENOMEM, which stops). */
static const char *copy_optional_attr(struct parser *p, const XML_Char **atts,
				      const char *name)
{
	const char *v = attr(atts, name);
	if (!v)
		return NULL;
	char *copy = gpm__arena_strdup(p->arena, v);
	if (!copy)
		out_of_memory(p);
	return copy;
}

/* The first of names that atts lacks, or NULL. */
static const char *missing_attr(const XML_Char **atts,
				const char *const *names)
{
	for (size_t i = 0; names[i]; i++) {
		const char *v = attr(atts, names[i]);
		if (!v || !*v)
			return names[i];
	}
	return NULL;
}

/* 8-4-4-4-12 hex digits: the only form the kernel takes, and safe to use
 * as a sysfs path component. */
static bool is_uuid(const char *s)
{
	for (size_t i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? s[i] != '-' : !isxdigit((unsigned char)s[i]))
			return false;
	}
	return s[36] == '\0';
}

/* "0x..." hex or decimal, within 32 bits. */
static bool parse_u32(const char *s, uint32_t *out)
{
	int base = 10;
	uint64_t v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return false;
	for (; *s; s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && isxdigit((unsigned char)*s))
			d = (unsigned)(tolower((unsigned char)*s) - 'a' + 10);
		else
			return false;
		v = v * (unsigned)base + d;
		if (v > UINT32_MAX)
			return false;
	}
	*out = (uint32_t)v;
	return true;
}

static void fail(struct parser *p, unsigned line, const char *what,
		 const char *name)
{
	REPORT(p, line, "%s <%s>", what, name);
	if (!p->stopped) {
		p->stopped = true;
		XML_StopParser(p->xp, XML_FALSE);
	}
}

static bool begin_set(struct parser *p, const XML_Char **atts, unsigned line)
{
	static const char *const required[] = {
		"name", "symbol_name", "chipset", "hw_config_guid", NULL
	};
	const char *missing = missing_attr(atts, required);
	const char *symbol = attr(atts, "symbol_name");

	if (missing) {
		REPORT(p, line, "set %s: no %s attribute; set ignored",
		       symbol && *symbol ? symbol : "(unnamed)", missing);
		return false;
	}
	if (!is_uuid(attr(atts, "hw_config_guid"))) {
		REPORT(p, line, "set %s: hw_config_guid '%s' is not a UUID; "
		       "set ignored", symbol, attr(atts, "hw_config_guid"));
		return false;
	}

	struct gpm_metric_set *set = &p->set;
	memset(set, 0, sizeof(*set));
	set->file = p->file;
	set->line = line;
	set->name = copy_attr(p, atts, "name");
	set->symbol_name = copy_attr(p, atts, "symbol_name");
	set->underscore_name = copy_attr(p, atts, "underscore_name");
	set->chipset = copy_attr(p, atts, "chipset");
	set->hw_config_guid = copy_attr(p, atts, "hw_config_guid");
	set->mdapi_supported_apis = copy_attr(p, atts, "mdapi_supported_apis");
	set->oa_format = copy_optional_attr(p, atts, "oa_format");
	p->counters.count = 0;
	p->configs.count = 0;
	p->raw_counters.count = 0;
	return !p->err;
}

static bool counter_type(const char *semantic, enum gpm_counter_type *type)
{
	static const struct {
		const char *semantic;
		enum gpm_counter_type type;
	} map[] = {
		{ "event", GPM_COUNTER_EVENT },
		{ "duration", GPM_COUNTER_RAW },
		{ "ratio", GPM_COUNTER_EVENT },
		{ "throughput", GPM_COUNTER_THROUGHPUT },
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (!strcmp(semantic, map[i].semantic)) {
			*type = map[i].type;
			return true;
		}
	}
	return false;
}

static bool counter_data_type(const char *name,
			      enum gpm_counter_data_type *type)
{
	static const struct {
		const char *name;
		enum gpm_counter_data_type type;
	} map[] = {
		{ "uint64", GPM_DATA_UINT64 },
		{ "float", GPM_DATA_FLOAT },
		{ "uint32", GPM_DATA_UINT32 },
		{ "double", GPM_DATA_DOUBLE },
		{ "bool32", GPM_DATA_BOOL32 },
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (!strcmp(name, map[i].name)) {
			*type = map[i].type;
			return true;
		}
	}
	return false;
}

static void add_counter(struct parser *p, const XML_Char **atts,
			unsigned line)
{
	static const char *const required[] = {
		"symbol_name", "name", "data_type", "units", "semantic_type",
		"equation", NULL
	};
	const char *missing = missing_attr(atts, required);
	const char *symbol = attr(atts, "symbol_name");
	enum gpm_counter_type type;
	enum gpm_counter_data_type data_type;

	if (missing) {
		REPORT(p, line, "set %s, counter %s: no %s attribute; counter "
		       "ignored", p->set.symbol_name,
		       symbol && *symbol ? symbol : "(unnamed)", missing);
		return;
	}
	if (!counter_type(attr(atts, "semantic_type"), &type)) {
		REPORT(p, line, "set %s, counter %s: unknown semantic_type '%s' "
		       "(expected event, duration, ratio or throughput); "
		       "counter ignored", p->set.symbol_name, symbol,
		       attr(atts, "semantic_type"));
		return;
	}
	if (!counter_data_type(attr(atts, "data_type"), &data_type)) {
		REPORT(p, line, "set %s, counter %s: unknown data_type '%s' "
		       "(expected uint64 or float); counter ignored",
		       p->set.symbol_name, symbol, attr(atts, "data_type"));
		return;
	}

	struct gpm_counter *c = vec_push(&p->counters, sizeof(*c));
	if (!c) {
		out_of_memory(p);
		return;
	}
	c->type = type;
	c->data_type = data_type;
	c->line = line;
	c->symbol_name = copy_attr(p, atts, "symbol_name");
	c->name = copy_attr(p, atts, "name");
	c->underscore_name = copy_attr(p, atts, "underscore_name");
	c->description = copy_attr(p, atts, "description");
	c->units = copy_attr(p, atts, "units");
	c->semantic_type = copy_attr(p, atts, "semantic_type");
	c->mdapi_group = copy_attr(p, atts, "mdapi_group");
	c->equation = copy_attr(p, atts, "equation");
	c->max_equation = copy_optional_attr(p, atts, "max_equation");
	c->availability = copy_optional_attr(p, atts, "availability");
}

static bool begin_config(struct parser *p, const XML_Char **atts,
			 unsigned line)
{
	static const char *const kinds[GPM_REGISTER_KINDS] = {
		[GPM_REGISTERS_MUX] = "NOA",
		[GPM_REGISTERS_BOOLEAN] = "OA",
		[GPM_REGISTERS_FLEX] = "FLEX",
	};
	const char *type = attr(atts, "type");
	const char *priority = attr(atts, "priority");
	struct gpm_register_config *rc = &p->config;
	size_t k;

	for (k = 0; type && k < GPM_REGISTER_KINDS; k++)
		if (!strcmp(type, kinds[k]))
			break;
	if (!type || k == GPM_REGISTER_KINDS) {
		REPORT(p, line, "set %s: register config type '%s' is none of "
		       "NOA, OA, FLEX; config ignored", p->set.symbol_name,
		       type ? type : "");
		return false;
	}

	memset(rc, 0, sizeof(*rc));
	rc->kind = (enum gpm_register_kind)k;
	rc->line = line;
	rc->priority = -1;
	rc->availability = copy_optional_attr(p, atts, "availability");
	if (priority) {
		uint32_t v;
		if (parse_u32(priority, &v) && v <= INT_MAX)
			rc->priority = (int)v;
		else
			REPORT(p, line, "set %s, %s register config: priority "
			       "'%s' is not a number; ignored",
			       p->set.symbol_name, type, priority);
	}
	p->config_bad = false;
	p->registers.count = 0;
	return !p->err;
}

static void add_register(struct parser *p, const XML_Char **atts,
			 unsigned line)
{
	const char *address = attr(atts, "address");
	const char *value = attr(atts, "value");
	struct gpm_register reg;

	if (p->config_bad)
		return;
	if (!address || !parse_u32(address, &reg.address) ||
	    !value || !parse_u32(value, &reg.value)) {
		REPORT(p, line, "set %s, %s register config: register needs "
		       "32-bit address and value attributes; config ignored",
		       p->set.symbol_name,
		       gpm_register_kind_name(p->config.kind));
		p->config_bad = true;
		return;
	}
	struct gpm_register *r = vec_push(&p->registers, sizeof(*r));
	if (!r) {
		out_of_memory(p);
		return;
	}
	*r = reg;
}

static void end_config(struct parser *p)
{
	struct gpm_register_config *rc = &p->config;
	if (p->config_bad)
		return;
	rc->n_registers = p->registers.count;
	rc->registers = gpm__arena_memdup(p->arena, p->registers.items,
					  p->registers.count *
					  sizeof(struct gpm_register));
	struct gpm_register_config *slot = vec_push(&p->configs, sizeof(*rc));
	if (!rc->registers || !slot) {
		out_of_memory(p);
		return;
	}
	*slot = *rc;
}

/* "PEC 3": a READ operand pair naming one counter slot; false if it is
 * none (GPU_TIME is the report's timestamp, never a raw counter). */
static bool parse_raw_slot(const char *text, unsigned *slot)
{
	static const struct {
		const char *type;
		unsigned base, count;
	} types[] = {
		{ "GPU_CLOCK", GPM_ACC_GPU_CLOCK, 1 },
		{ "A", GPM_ACC_A, GPM_ACC_A_COUNT },
		{ "B", GPM_ACC_B, GPM_ACC_B_COUNT },
		{ "C", GPM_ACC_C, GPM_ACC_C_COUNT },
		{ "PERFCNT", GPM_ACC_PERFCNT, GPM_ACC_PERFCNT_COUNT },
		{ "PEC", GPM_ACC_PEC, GPM_ACC_PEC_COUNT },
	};
	const char *space = strchr(text, ' ');
	uint32_t index;

	if (!space || !parse_u32(space + 1, &index))
		return false;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (strlen(types[i].type) == (size_t)(space - text) &&
		    !strncmp(text, types[i].type, (size_t)(space - text)) &&
		    index < types[i].count) {
			*slot = types[i].base + index;
			return true;
		}
	}
	return false;
}

static void add_raw_counter(struct parser *p, const XML_Char **atts,
			    unsigned line)
{
	const char *name = attr(atts, "name");
	const char *slot_text = attr(atts, "slot");
	unsigned slot;

	if (!name || !*name || !slot_text ||
	    !parse_raw_slot(slot_text, &slot)) {
		REPORT(p, line, "set %s: a raw_counter needs a name and a slot "
		       "such as \"PEC 0\"; ignored", p->set.symbol_name);
		return;
	}
	const struct gpm_raw_counter *have = p->raw_counters.items;
	for (size_t i = 0; i < p->raw_counters.count; i++) {
		if (have[i].slot == slot) {
			REPORT(p, line, "set %s: slot %s already holds %s; "
			       "raw_counter %s ignored", p->set.symbol_name,
			       slot_text, have[i].name, name);
			return;
		}
	}
	struct gpm_raw_counter *rc = vec_push(&p->raw_counters, sizeof(*rc));
	if (!rc) {
		out_of_memory(p);
		return;
	}
	rc->slot = slot;
	rc->line = line;
	rc->name = copy_attr(p, atts, "name");
}

static void end_set(struct parser *p)
{
	struct gpm_metric_set *set = &p->set;

	set->n_counters = p->counters.count;
	set->counters = gpm__arena_memdup(p->arena, p->counters.items,
					  p->counters.count *
					  sizeof(struct gpm_counter));
	set->n_register_configs = p->configs.count;
	set->register_configs =
		gpm__arena_memdup(p->arena, p->configs.items,
				  p->configs.count *
				  sizeof(struct gpm_register_config));
	set->n_raw_counters = p->raw_counters.count;
	set->raw_counters =
		gpm__arena_memdup(p->arena, p->raw_counters.items,
				  p->raw_counters.count *
				  sizeof(struct gpm_raw_counter));
	struct gpm_metric_set *slot = vec_push(&p->sets, sizeof(*set));
	if (!set->counters || !set->register_configs || !set->raw_counters ||
	    !slot) {
		/* Nothing compiled yet, so nothing to free but the slot. */
		if (slot)
			p->sets.count--;
		out_of_memory(p);
		return;
	}
	*slot = *set;
	if (gpm__metric_set_compile(slot, p->path, p->arena, p->diag))
		out_of_memory(p);
}

static void XMLCALL on_start(void *data, const XML_Char *name,
			     const XML_Char **atts)
{
	struct parser *p = data;
	unsigned line;

	p->depth++;
	if (p->skip_depth || p->stopped)
		return;
	line = current_line(p);

	switch (p->at) {
	case EL_DOCUMENT:
		if (strcmp(name, "metrics")) {
			fail(p, line, "not a metric file: the root element is",
			     name);
			return;
		}
		p->at = EL_METRICS;
		return;
	case EL_METRICS:
		if (!strcmp(name, "set")) {
			if (wanted_set(p, atts) && begin_set(p, atts, line)) {
				p->at = EL_SET;
				return;
			}
		} else if (!strcmp(name, "counter") ||
			   !strcmp(name, "register_config") ||
			   !strcmp(name, "register")) {
			REPORT(p, line, "<%s> outside a <set>; ignored", name);
		}
		break;
	case EL_SET:
		if (!strcmp(name, "counter")) {
			add_counter(p, atts, line);
		} else if (!strcmp(name, "raw_counter")) {
			add_raw_counter(p, atts, line);
		} else if (!strcmp(name, "register_config")) {
			if (begin_config(p, atts, line)) {
				p->at = EL_CONFIG;
				return;
			}
		} else if (!strcmp(name, "set") || !strcmp(name, "register")) {
			REPORT(p, line, "set %s: <%s> misplaced inside a <set>; "
			       "ignored", p->set.symbol_name, name);
		}
		break;
	case EL_CONFIG:
		if (!strcmp(name, "register"))
			add_register(p, atts, line);
		else if (!strcmp(name, "counter") || !strcmp(name, "set") ||
			 !strcmp(name, "register_config"))
			REPORT(p, line, "set %s: <%s> misplaced inside a "
			       "<register_config>; ignored", p->set.symbol_name,
			       name);
		break;
	}
	/* Whatever else this element holds is of no interest. */
	p->skip_depth = p->depth;
}

static void XMLCALL on_end(void *data, const XML_Char *name)
{
	struct parser *p = data;

	if (p->skip_depth) {
		if (p->skip_depth == p->depth)
			p->skip_depth = 0;
		p->depth--;
		return;
	}
	p->depth--;
	if (p->stopped)
		return;
	switch (p->at) {
	case EL_CONFIG:
		end_config(p);
		p->at = EL_SET;
		break;
	case EL_SET:
		end_set(p);
		p->at = EL_METRICS;
		/* The rest of the file is of no interest. */
		if (p->only_set && !strcmp(p->set.symbol_name, p->only_set)) {
			p->stopped = true;
			XML_StopParser(p->xp, XML_FALSE);
		}
		break;
	case EL_METRICS:
		p->at = EL_DOCUMENT;
		break;
	case EL_DOCUMENT:
		break;
	}
}

static int parser_init(struct parser *p, const char *path,
		       struct gpm_diagnostics *diag)
{
	memset(p, 0, sizeof(*p));
	p->path = path;
	p->diag = diag;
	p->file = calloc(1, sizeof(*p->file));
	p->arena = calloc(1, sizeof(*p->arena));
	p->xp = XML_ParserCreate(NULL);
	if (!p->file || !p->arena || !p->xp) {
		free(p->file);
		free(p->arena);
		if (p->xp)
			XML_ParserFree(p->xp);
		return -ENOMEM;
	}
	p->file->arena = p->arena;
	XML_SetUserData(p->xp, p);
	XML_SetElementHandler(p->xp, on_start, on_end);
	return 0;
}

/* Reports an XML error, unless we stopped the parser ourselves. */
static void xml_error(struct parser *p)
{
	enum XML_Error code = XML_GetErrorCode(p->xp);
	if (p->stopped || code == XML_ERROR_ABORTED)
		return;
	if (code == XML_ERROR_NO_MEMORY) {
		out_of_memory(p);
		return;
	}
	unsigned line = current_line(p);
	unsigned long column = (unsigned long)XML_GetCurrentColumnNumber(p->xp);
	if (p->at >= EL_SET)
		REPORT(p, line, "malformed XML at column %lu: %s (set %s, begun "
		       "at line %u, is ignored)", column, XML_ErrorString(code),
		       p->set.symbol_name, p->set.line);
	else
		REPORT(p, line, "malformed XML at column %lu: %s", column,
		       XML_ErrorString(code));
}

/* "dir/oa-tglgt2.xml" -> "tglgt2"; NULL if path is not named that way. */
static char *platform_from_path(struct gpm__arena *arena, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t len = strlen(base);
	if (len <= 7 || strncmp(base, "oa-", 3) || strcmp(base + len - 4, ".xml"))
		return NULL;
	char *name = gpm__arena_memdup(arena, base + 3, len - 7 + 1);
	if (name)
		name[len - 7] = '\0';
	return name;
}

static int compare_sets(const void *a, const void *b)
{
	const struct gpm_metric_set *sa = *(struct gpm_metric_set *const *)a;
	const struct gpm_metric_set *sb = *(struct gpm_metric_set *const *)b;
	int c = strcmp(sa->symbol_name, sb->symbol_name);
	if (c)
		return c;
	return sa < sb ? -1 : sa > sb;
}

/* A repeated set symbol would make lookups ambiguous: the first one in the
 * file stays. */
static void drop_duplicate_sets(struct parser *p)
{
	struct gpm_metric_set *sets = p->sets.items;
	size_t n = p->sets.count;
	struct gpm_metric_set **sorted;
	bool any = false;

	if (n < 2)
		return;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted) {
		out_of_memory(p);
		return;
	}
	for (size_t i = 0; i < n; i++)
		sorted[i] = &sets[i];
	qsort(sorted, n, sizeof(*sorted), compare_sets);
	for (size_t i = 1, first = 0; i < n; i++) {
		if (strcmp(sorted[first]->symbol_name, sorted[i]->symbol_name)) {
			first = i;
			continue;
		}
		REPORT(p, sorted[i]->line, "set %s is defined twice (first at "
		       "line %u); this one is ignored", sorted[i]->symbol_name,
		       sorted[first]->line);
		gpm__metric_set_free_equations(sorted[i]);
		sorted[i]->symbol_name = NULL;  /* marks it for removal */
		any = true;
	}
	free(sorted);
	if (!any)
		return;
	size_t kept = 0;
	for (size_t i = 0; i < n; i++)
		if (sets[i].symbol_name)
			sets[kept++] = sets[i];
	p->sets.count = kept;
}

/* Names the file's chipset and platform: from its sets, else from its
 * name. 0 or -ENOMEM. */
static int name_platform(struct parser *p, struct gpm_metrics_file *file)
{
	const struct gpm_metric_set *sets = p->sets.items;
	char *platform;

	if (p->sets.count) {
		file->chipset = gpm__arena_strdup(p->arena, sets[0].chipset);
		platform = gpm__arena_strdup(p->arena, sets[0].chipset);
		for (char *c = platform; c && *c; c++)
			*c = (char)tolower((unsigned char)*c);
	} else {
		file->chipset = gpm__arena_strdup(p->arena, "");
		platform = platform_from_path(p->arena, p->path);
		if (!platform)
			platform = gpm__arena_strdup(p->arena, "");
	}
	file->platform = platform;
	return file->chipset && file->platform ? 0 : -ENOMEM;
}

/* Moves the finished sets into the file, or frees everything on error. */
static int parser_finish(struct parser *p, struct gpm_metrics_file **out)
{
	struct gpm_metrics_file *file = p->file;
	struct gpm_metric_set *sets;

	if (!p->err)
		drop_duplicate_sets(p);
	if (!p->err)
		p->err = name_platform(p, file);
	if (!p->err) {
		file->path = gpm__arena_strdup(p->arena, p->path);
		file->sets = gpm__arena_memdup(p->arena, p->sets.items,
					       p->sets.count *
					       sizeof(struct gpm_metric_set));
		if (!file->path || !file->sets)
			p->err = -ENOMEM;
	}

	sets = p->sets.items;
	if (p->err) {
		for (size_t i = 0; i < p->sets.count; i++)
			gpm__metric_set_free_equations(&sets[i]);
	} else {
		file->n_sets = p->sets.count;
		for (size_t i = 0; i < file->n_sets; i++)
			file->sets[i].file = file;
	}
	XML_ParserFree(p->xp);
	free(p->counters.items);
	free(p->configs.items);
	free(p->registers.items);
	free(p->raw_counters.items);
	free(p->sets.items);
	if (p->err) {
		gpm_metrics_file_free(file);
		return p->err;
	}
	*out = file;
	return 0;
}

int gpm_metrics_file_parse(const char *path, const void *data, size_t size,
			   struct gpm_diagnostics *diag,
			   struct gpm_metrics_file **out)
{
	const char *bytes = data;
	struct parser p;
	int ret = parser_init(&p, path, diag);
	if (ret)
		return ret;

	/* expat takes an int length; feed larger inputs in pieces. */
	do {
		size_t n = size > INT_MAX / 2 ? INT_MAX / 2 : size;
		bool last = n == size;
		if (XML_Parse(p.xp, bytes, (int)n, last) != XML_STATUS_OK) {
			xml_error(&p);
			break;
		}
		bytes += n;
		size -= n;
	} while (size);
	return parser_finish(&p, out);
}

static int load(const char *path, const char *only_set, const char *only_uuid,
		struct gpm_diagnostics *diag, struct gpm_metrics_file **out)
{
	enum { CHUNK = 64 * 1024 };
	struct parser p;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = parser_init(&p, path, diag);
	if (ret) {
		close(fd);
		return ret;
	}
	p.only_set = only_set;
	p.only_uuid = only_uuid;

	for (;;) {
		void *buf = XML_GetBuffer(p.xp, CHUNK);
		if (!buf) {
			out_of_memory(&p);
			break;
		}
		ssize_t n = read(fd, buf, CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			/* Reading a directory ends here too (EISDIR). */
			p.err = -errno;
			break;
		}
		if (XML_ParseBuffer(p.xp, (int)n, n == 0) != XML_STATUS_OK) {
			xml_error(&p);
			break;
		}
		if (n == 0)
			break;
	}
	close(fd);
	return parser_finish(&p, out);
}

int gpm_metrics_file_load(const char *path, struct gpm_diagnostics *diag,
			  struct gpm_metrics_file **out)
{
	return load(path, NULL, NULL, diag, out);
}

int gpm_metrics_file_load_set(const char *path, const char *set,
			      const char *uuid, struct gpm_diagnostics *diag,
			      struct gpm_metrics_file **out)
{
	return load(path, set, uuid, diag, out);
}
