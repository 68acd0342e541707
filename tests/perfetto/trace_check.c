/*
 * Checks the Perfetto traces the suite writes, against Perfetto's own
 * schema: the trace is expanded (its deflated chunks inflated into plain
 * packets), decoded with `protoc --decode=perfetto.protos.Trace` against
 * ../shared/perfetto/perfetto_trace.proto (tests/perfetto/check-trace.sh
 * runs protoc), and the text protoc prints is what this program reads: a
 * field we numbered or typed wrongly shows under another name, or as a
 * bare number, and fails here.
 *
 *   trace-check expand TRACE OUT
 *       OUT: TRACE with every compressed_packets packet replaced by the
 *       packets it holds.
 *   trace-check verify TEXT
 *       The meaning, sequence by sequence (a recording's trace has two:
 *       counters and contexts, and usage beside them): no unknown field;
 *       every track event on a track whose descriptor came before it in
 *       the sequence's current generation of incremental state, a track's
 *       parent described before it there or on another sequence, no track
 *       described on two; interned names defined before use; sequence
 *       flags as Perfetto wants them; a clock snapshot of our GPU clock
 *       before the first event on it, and of CLOCK_MONOTONIC before the
 *       first on that (the only other clock we use); one clock per track
 *       and timestamps monotonic on each; counter values either a window
 *       of the defaults' tracks or one of their own; slices well nested,
 *       and on context tracks never overlapping. Prints what the trace
 *       holds.
 *   trace-check values TEXT NDJSON
 *       The counter windows hold the values of the NDJSON rows, window by
 *       window (matched by counter symbol; NaN is null; at float's
 *       precision on tracks whose description says "float precision").
 *   trace-check usage-values TEXT NDJSON
 *       The values on CLOCK_MONOTONIC (the usage stream's) equal those of
 *       gpuperf top's NDJSON rows of the same intervals (start and
 *       duration_ns), by the key each track's description starts with;
 *       a process the row no longer lists is 0. Engines', processes' and
 *       the device's must all be among them.
 *   trace-check oa-part TEXT
 *       The sequences of TEXT that describe a root track (the device's:
 *       counters, contexts, losses), without their clock snapshots: what
 *       two captures of the same OA data share. A recording's usage
 *       sequence, whose tracks hang under that device track, is left out:
 *       a recording file holds no usage, so only a live trace has it.
 *   trace-check list TEXT
 *       One line per event, sequence by sequence: time, track name, type,
 *       name and value.
 *   trace-check clocks TEXT
 *       One line per clock snapshot: its GPU, CLOCK_MONOTONIC and
 *       CLOCK_BOOTTIME times ("-" for a clock it lacks).
 *   trace-check boottime-offset
 *       This machine's CLOCK_BOOTTIME minus CLOCK_MONOTONIC now, in ns.
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zlib.h>

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "trace-check: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

static int failures;

static void bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void bad(const char *fmt, ...)
{
	va_list ap;
	if (failures++ >= 20)
		return;
	fprintf(stderr, "trace-check: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
}

static unsigned char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		die("cannot read %s: %s", path, strerror(errno));
	size_t cap = 1 << 16, n = 0;
	unsigned char *buf = malloc(cap);
	for (;;) {
		if (n == cap)
			buf = realloc(buf, cap *= 2);
		size_t got = fread(buf + n, 1, cap - n, f);
		if (!got)
			break;
		n += got;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* ------------------------------------------------------------------ */
/* expand                                                               */

static bool varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
		unsigned char b = *(*p)++;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

static void put_varint(FILE *out, uint64_t v)
{
	while (v >= 0x80) {
		fputc((int)(v | 0x80), out);
		v >>= 7;
	}
	fputc((int)v, out);
}

/* The compressed_packets field (50) of a packet, if it has one. */
static bool compressed_field(const unsigned char *p, const unsigned char *end,
			     const unsigned char **data, size_t *len)
{
	while (p < end) {
		uint64_t key, v;
		if (!varint(&p, end, &key))
			die("a packet's field key runs past its end");
		switch (key & 7) {
		case 0:
			if (!varint(&p, end, &v))
				die("a varint runs past its packet");
			break;
		case 1:
			p += 8;
			break;
		case 5:
			p += 4;
			break;
		case 2:
			if (!varint(&p, end, &v) || v > (uint64_t)(end - p))
				die("a length runs past its packet");
			if (key >> 3 == 50) {
				*data = p;
				*len = v;
				return true;
			}
			p += v;
			break;
		default:
			die("wire type %u in a packet", (unsigned)(key & 7));
		}
	}
	return false;
}

static void expand_trace(const unsigned char *p, size_t n, FILE *out, int depth)
{
	const unsigned char *end = p + n;
	while (p < end) {
		uint64_t key, len;
		if (!varint(&p, end, &key) || key != ((1 << 3) | 2))
			die("a Trace holds field %" PRIu64 " wire type %u: only "
			    "packets belong there", key >> 3, (unsigned)(key & 7));
		if (!varint(&p, end, &len) || len > (uint64_t)(end - p))
			die("a packet runs past the end of the trace");
		const unsigned char *data;
		size_t data_len;
		if (compressed_field(p, p + len, &data, &data_len)) {
			if (depth)
				die("compressed packets inside compressed packets");
			if (len >= 512 * 1024)
				bad("a compressed packet of %" PRIu64 " bytes: "
				    "Perfetto wants them under 512 KiB", len);
			z_stream z;
			memset(&z, 0, sizeof(z));
			if (inflateInit(&z) != Z_OK)
				die("inflateInit failed");
			size_t cap = 1 << 20, got = 0;
			unsigned char *plain = malloc(cap);
			z.next_in = (unsigned char *)data;
			z.avail_in = (uInt)data_len;
			int ret;
			do {
				if (got == cap)
					plain = realloc(plain, cap *= 2);
				z.next_out = plain + got;
				z.avail_out = (uInt)(cap - got);
				ret = inflate(&z, Z_NO_FLUSH);
				got = cap - z.avail_out;
			} while (ret == Z_OK);
			if (ret != Z_STREAM_END)
				die("a compressed packet does not inflate (zlib %d)", ret);
			inflateEnd(&z);
			expand_trace(plain, got, out, depth + 1);
			free(plain);
		} else {
			fputc(0x0a, out);
			put_varint(out, len);
			fwrite(p, 1, len, out);
		}
		p += len;
	}
}

/* ------------------------------------------------------------------ */
/* protoc's text format                                                 */

struct node {
	char *key;
	char *value;                    /* NULL for a message */
	struct node **kids;
	size_t n_kids;
	struct node *parent;
	size_t line;
};

static struct node *add_kid(struct node *parent, const char *key, size_t keylen)
{
	struct node *n = calloc(1, sizeof(*n));
	n->key = strndup(key, keylen);
	n->parent = parent;
	parent->kids = realloc(parent->kids, (parent->n_kids + 1) * sizeof(*parent->kids));
	parent->kids[parent->n_kids++] = n;
	return n;
}

static struct node *parse_text(const char *path)
{
	size_t len;
	char *text = (char *)read_file(path, &len);
	text = realloc(text, len + 1);
	text[len] = '\0';
	struct node *root = calloc(1, sizeof(*root));
	struct node *cur = root;
	size_t line = 0;
	for (char *s = strtok(text, "\n"); s; s = strtok(NULL, "\n")) {
		line++;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			continue;
		if (*s == '}') {
			if (!cur->parent)
				die("%s:%zu: '}' without '{'", path, line);
			cur = cur->parent;
			continue;
		}
		size_t k = strcspn(s, ": {");
		if (!k)
			die("%s:%zu: cannot read '%s'", path, line, s);
		struct node *n = add_kid(cur, s, k);
		n->line = line;
		char *rest = s + k;
		while (*rest == ' ')
			rest++;
		if (*rest == '{') {
			cur = n;
		} else if (*rest == ':') {
			rest++;
			while (*rest == ' ')
				rest++;
			n->value = strdup(rest);
		} else {
			die("%s:%zu: cannot read '%s'", path, line, s);
		}
	}
	free(text);
	if (cur != root)
		die("%s: a message is not closed", path);
	return root;
}

static struct node *kid(const struct node *n, const char *key)
{
	for (size_t i = 0; n && i < n->n_kids; i++)
		if (!strcmp(n->kids[i]->key, key))
			return n->kids[i];
	return NULL;
}

static const char *value(const struct node *n, const char *key)
{
	struct node *k = kid(n, key);
	return k ? k->value : NULL;
}

static bool u64_value(const struct node *n, const char *key, uint64_t *v)
{
	const char *s = value(n, key);
	if (!s)
		return false;
	*v = strtoull(s, NULL, 10);
	return true;
}

/* A quoted string of the text format, unescaped (octal and simple
 * escapes, as protoc writes them). */
static char *unquote(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;
	if (*s == '"')
		s++;
	for (; *s && *s != '"'; s++) {
		if (*s != '\\') {
			*o++ = *s;
			continue;
		}
		s++;
		if (*s >= '0' && *s <= '7') {
			int v = 0;
			for (int i = 0; i < 3 && *s >= '0' && *s <= '7'; i++)
				v = v * 8 + (*s++ - '0');
			s--;
			*o++ = (char)v;
		} else {
			*o++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
		}
	}
	*o = '\0';
	return out;
}

static double text_double(const char *s)
{
	if (!strcmp(s, "nan"))
		return NAN;
	if (!strcmp(s, "inf"))
		return INFINITY;
	if (!strcmp(s, "-inf"))
		return -INFINITY;
	return strtod(s, NULL);
}

/* ------------------------------------------------------------------ */
/* sequences                                                            */

#define MAX_SEQUENCES 16

/* A trace's packets, sequence by sequence, in the order each sequence's
 * first packet came; each a node whose kids are that sequence's packets
 * (the trace's own nodes). Packets without a sequence are left out. */
struct sequences {
	size_t n;
	uint64_t id[MAX_SEQUENCES];
	struct node packets[MAX_SEQUENCES];
};

static struct sequences *split(const struct node *root)
{
	struct sequences *seqs = calloc(1, sizeof(*seqs));
	for (size_t i = 0; i < root->n_kids; i++) {
		struct node *pkt = root->kids[i];
		uint64_t id;
		if (!u64_value(pkt, "trusted_packet_sequence_id", &id))
			continue;
		size_t k = 0;
		while (k < seqs->n && seqs->id[k] != id)
			k++;
		if (k == seqs->n) {
			if (seqs->n == MAX_SEQUENCES)
				die("more than %d sequences", MAX_SEQUENCES);
			seqs->id[seqs->n++] = id;
		}
		struct node *to = &seqs->packets[k];
		to->kids = realloc(to->kids, (to->n_kids + 1) * sizeof(*to->kids));
		to->kids[to->n_kids++] = pkt;
	}
	return seqs;
}

/* ------------------------------------------------------------------ */
/* verify                                                               */

static void no_unknown_fields(const struct node *n)
{
	for (size_t i = 0; i < n->n_kids; i++) {
		const struct node *k = n->kids[i];
		if (isdigit((unsigned char)k->key[0]))
			bad("line %zu: field %s is not in Perfetto's schema "
			    "(a wrong number or wire type)", k->line, k->key);
		no_unknown_fields(k);
	}
}

#define MAX_TRACKS 8192
#define MAX_IIDS 8192

struct track {
	uint64_t uuid;
	uint64_t parent;
	char *name;
	char *description;
	bool counter;
	unsigned generation;            /* defined in */
	bool have_ts;
	uint64_t last_ts;
	int clock;                      /* of its events: 64, 3; 0 none yet */
	unsigned depth;                 /* open slices */
	unsigned max_depth;
	uint64_t counter_events;
};

struct state {
	struct track tracks[MAX_TRACKS];
	size_t n_tracks;
	unsigned generation;
	unsigned event_name_gen[MAX_IIDS];
	unsigned arg_name_gen[MAX_IIDS];
	char *event_names[MAX_IIDS];
	uint64_t default_ints[512], default_doubles[512];
	size_t n_default_ints, n_default_doubles;
	bool snapshot, gpu_snapshot;
	uint64_t packets, events, windows, slices, instants, snapshots;
	uint64_t single_values;         /* counter values of their own */
	bool boottime;
	/* verify: the trace's other sequences, where a track's parent may
	 * be described. */
	bool verifying;
	const struct sequences *seqs;
	size_t seq;                     /* this one's index in seqs */
};

static struct track *find(struct state *st, uint64_t uuid)
{
	for (size_t i = 0; i < st->n_tracks; i++)
		if (st->tracks[i].uuid == uuid)
			return &st->tracks[i];
	return NULL;
}

/* The track uuid refers to, which must be defined in this generation. */
static struct track *use_track(struct state *st, uint64_t uuid, size_t line)
{
	struct track *t = find(st, uuid);
	if (!t) {
		bad("line %zu: an event on track %" PRIu64 ", which no "
		    "descriptor before it defines", line, uuid);
		return NULL;
	}
	if (t->generation != st->generation)
		bad("line %zu: track '%s' is used in a generation of the "
		    "incremental state that has not described it", line, t->name);
	return t;
}

static bool in_contexts(struct state *st, const struct track *t)
{
	const struct track *p = find(st, t->parent);
	return p && !strcmp(p->name, "GPU contexts");
}

static void interned(struct state *st, const struct node *data)
{
	for (size_t i = 0; data && i < data->n_kids; i++) {
		const struct node *e = data->kids[i];
		uint64_t iid;
		if (!u64_value(e, "iid", &iid) || !iid || iid >= MAX_IIDS) {
			bad("line %zu: interned %s without a usable iid", e->line, e->key);
			continue;
		}
		if (!strcmp(e->key, "event_names")) {
			st->event_name_gen[iid] = st->generation;
			free(st->event_names[iid]);
			st->event_names[iid] = unquote(value(e, "name") ? value(e, "name") : "");
		} else if (!strcmp(e->key, "debug_annotation_names")) {
			st->arg_name_gen[iid] = st->generation;
		} else {
			bad("line %zu: interned %s: not something we write", e->line, e->key);
		}
	}
}

static void timestamp_on(struct state *st, struct track *t, uint64_t ts, size_t line)
{
	if (t->have_ts && ts < t->last_ts)
		bad("line %zu: track '%s' goes back in time, %" PRIu64 " after %"
		    PRIu64, line, t->name, ts, t->last_ts);
	t->have_ts = true;
	t->last_ts = ts;
}

static void track_event(struct state *st, const struct node *pkt,
			const struct node *ev, uint64_t ts, bool has_ts)
{
	uint64_t uuid, iid;
	st->events++;
	if (!has_ts)
		bad("line %zu: a track event without a timestamp", ev->line);
	/* The defaults' GPU clock, or CLOCK_MONOTONIC (3), which every
	 * snapshot relates to the others. */
	const char *clock = value(pkt, "timestamp_clock_id");
	bool monotonic = clock && !strcmp(clock, "3");
	if (clock && !monotonic)
		bad("line %zu: an event on clock %s: ours are on the sequence's "
		    "GPU clock or on CLOCK_MONOTONIC", ev->line, clock);
	if (monotonic ? !st->snapshot : !st->gpu_snapshot)
		bad("line %zu: an event before any clock snapshot of its "
		    "clock: Perfetto cannot place it", ev->line);
	if (!u64_value(ev, "track_uuid", &uuid)) {
		bad("line %zu: an event without a track", ev->line);
		return;
	}
	struct track *t = use_track(st, uuid, ev->line);
	if (!t)
		return;
	if (u64_value(ev, "name_iid", &iid) &&
	    (iid >= MAX_IIDS || st->event_name_gen[iid] != st->generation))
		bad("line %zu: event name %" PRIu64 " is not interned in this "
		    "generation", ev->line, iid);
	for (size_t i = 0; i < ev->n_kids; i++) {
		const struct node *a = ev->kids[i];
		if (strcmp(a->key, "debug_annotations"))
			continue;
		if (!u64_value(a, "name_iid", &iid) || iid >= MAX_IIDS ||
		    st->arg_name_gen[iid] != st->generation)
			bad("line %zu: an argument name not interned in this "
			    "generation", a->line);
	}
	const char *type = value(ev, "type");
	if (!type) {
		bad("line %zu: an event without a type", ev->line);
		return;
	}
	int clock_id = monotonic ? 3 : 64;
	if (t->clock && t->clock != clock_id)
		bad("line %zu: track '%s' has events on two clocks", ev->line,
		    t->name);
	t->clock = clock_id;
	timestamp_on(st, t, ts, ev->line);
	if (!strcmp(type, "TYPE_COUNTER")) {
		if (!t->counter)
			bad("line %zu: a counter value on '%s', not a counter "
			    "track", ev->line, t->name);
		size_t ni = 0, nd = 0;
		for (size_t i = 0; i < ev->n_kids; i++) {
			ni += !strcmp(ev->kids[i]->key, "extra_counter_values");
			nd += !strcmp(ev->kids[i]->key, "extra_double_counter_values");
		}
		/* A value of its own: no extra values, though the defaults
		 * list the window's tracks, or on CLOCK_MONOTONIC. */
		if (!ni && !nd && (monotonic || st->n_default_ints ||
				   st->n_default_doubles)) {
			if (!kid(ev, "counter_value") &&
			    !kid(ev, "double_counter_value"))
				bad("line %zu: a counter event without a value",
				    ev->line);
			st->single_values++;
			t->counter_events++;
			return;
		}
		if (monotonic)
			bad("line %zu: a window on CLOCK_MONOTONIC", ev->line);
		if (ni != st->n_default_ints || nd != st->n_default_doubles)
			bad("line %zu: %zu + %zu extra values for %zu + %zu "
			    "counter tracks in the defaults", ev->line, ni, nd,
			    st->n_default_ints, st->n_default_doubles);
		for (size_t i = 0; i < st->n_default_ints; i++) {
			struct track *x = use_track(st, st->default_ints[i], ev->line);
			if (x)
				timestamp_on(st, x, ts, ev->line);
		}
		for (size_t i = 0; i < st->n_default_doubles; i++) {
			struct track *x = use_track(st, st->default_doubles[i], ev->line);
			if (x)
				timestamp_on(st, x, ts, ev->line);
		}
		st->windows++;
		t->counter_events++;
	} else if (t->counter) {
		bad("line %zu: a %s on counter track '%s'", ev->line, type, t->name);
	} else if (!strcmp(type, "TYPE_SLICE_BEGIN")) {
		t->depth++;
		if (t->depth > t->max_depth)
			t->max_depth = t->depth;
		if (t->depth > 1 && in_contexts(st, t))
			bad("line %zu: slices overlap on context track '%s'",
			    ev->line, t->name);
		st->slices++;
	} else if (!strcmp(type, "TYPE_SLICE_END")) {
		if (!t->depth)
			bad("line %zu: a slice ends on '%s' where none began",
			    ev->line, t->name);
		else
			t->depth--;
	} else if (!strcmp(type, "TYPE_INSTANT")) {
		st->instants++;
	} else {
		bad("line %zu: event type %s", ev->line, type);
	}
}

/* Whether another sequence of the trace describes track uuid. */
static bool described_elsewhere(const struct state *st, uint64_t uuid)
{
	for (size_t k = 0; k < st->seqs->n; k++) {
		const struct node *seq = &st->seqs->packets[k];
		for (size_t i = 0; k != st->seq && i < seq->n_kids; i++) {
			const struct node *td = kid(seq->kids[i], "track_descriptor");
			uint64_t id;
			if (td && u64_value(td, "uuid", &id) && id == uuid)
				return true;
		}
	}
	return false;
}

static void descriptor(struct state *st, const struct node *td)
{
	uint64_t uuid, parent = 0;
	if (!u64_value(td, "uuid", &uuid) || !uuid) {
		bad("line %zu: a track descriptor without a uuid", td->line);
		return;
	}
	if (st->verifying && u64_value(td, "parent_uuid", &parent)) {
		struct track *p = find(st, parent);
		if (p ? p->generation != st->generation :
		    !described_elsewhere(st, parent))
			bad("line %zu: a track under %" PRIu64 ", not described "
			    "before it", td->line, parent);
	} else {
		u64_value(td, "parent_uuid", &parent);
	}
	struct track *t = find(st, uuid);
	if (!t) {
		if (st->n_tracks == MAX_TRACKS)
			die("too many tracks");
		t = &st->tracks[st->n_tracks++];
		t->uuid = uuid;
	} else {
		free(t->name);
		free(t->description);
	}
	const char *name = value(td, "name");
	const char *desc = value(td, "description");
	if (!name)
		bad("line %zu: track %" PRIu64 " has no name", td->line, uuid);
	t->name = unquote(name ? name : "\"\"");
	t->description = unquote(desc ? desc : "\"\"");
	t->parent = parent;
	t->counter = kid(td, "counter") != NULL;
	t->generation = st->generation;
}

static void defaults(struct state *st, const struct node *d)
{
	const struct node *te = kid(d, "track_event_defaults");
	uint64_t clock;
	if (!u64_value(d, "timestamp_clock_id", &clock) || clock != 64)
		bad("line %zu: the defaults do not put events on clock 64", d->line);
	st->n_default_ints = st->n_default_doubles = 0;
	for (size_t i = 0; te && i < te->n_kids; i++) {
		const struct node *k = te->kids[i];
		uint64_t v = strtoull(k->value ? k->value : "0", NULL, 10);
		if (!strcmp(k->key, "extra_counter_track_uuids") &&
		    st->n_default_ints < 512)
			st->default_ints[st->n_default_ints++] = v;
		else if (!strcmp(k->key, "extra_double_counter_track_uuids") &&
			 st->n_default_doubles < 512)
			st->default_doubles[st->n_default_doubles++] = v;
	}
}

static void clock_snapshot(struct state *st, const struct node *cs)
{
	bool gpu = false, mono = false, boot = false;
	for (size_t i = 0; i < cs->n_kids; i++) {
		uint64_t id;
		if (strcmp(cs->kids[i]->key, "clocks") ||
		    !u64_value(cs->kids[i], "clock_id", &id))
			continue;
		gpu |= id == 64;
		mono |= id == 3;
		boot |= id == 6;
		if (!kid(cs->kids[i], "timestamp"))
			bad("line %zu: a clock without its time", cs->line);
	}
	if (!mono || (!gpu && !boot))
		bad("line %zu: a clock snapshot without CLOCK_MONOTONIC and the "
		    "GPU clock or BOOTTIME", cs->line);
	const char *primary = value(cs, "primary_trace_clock");
	if (!primary || strcmp(primary, boot ? "BUILTIN_CLOCK_BOOTTIME" :
			       "BUILTIN_CLOCK_MONOTONIC"))
		bad("line %zu: primary_trace_clock %s with%s BOOTTIME", cs->line,
		    primary ? primary : "unset", boot ? "" : "out");
	st->boottime |= boot;
	st->snapshot = true;
	st->gpu_snapshot |= gpu;
	st->snapshots++;
}

/* One sequence's packets: what verify checks of each. */
static void verify_sequence(struct state *st, const struct node *seq)
{
	for (size_t i = 0; i < seq->n_kids; i++) {
		const struct node *pkt = seq->kids[i];
		uint64_t flags = 0, ts = 0;
		st->packets++;
		bool has_flags = u64_value(pkt, "sequence_flags", &flags);
		bool has_ts = u64_value(pkt, "timestamp", &ts);
		if (st->packets == 1) {
			const char *first = value(pkt, "first_packet_on_sequence");
			if (!(flags & 1) || !first || strcmp(first, "true"))
				bad("line %zu: the first packet does not clear the "
				    "incremental state as the sequence's first",
				    pkt->line);
		}
		if (flags & 1) {
			st->generation++;
			if (!kid(pkt, "trace_packet_defaults"))
				bad("line %zu: incremental state cleared without "
				    "defaults", pkt->line);
		}
		if (!st->generation)
			bad("line %zu: a packet before the incremental state "
			    "was cleared", pkt->line);
		if (kid(pkt, "trace_packet_defaults")) {
			if (!(flags & 1))
				bad("line %zu: defaults without clearing the "
				    "incremental state", pkt->line);
			defaults(st, kid(pkt, "trace_packet_defaults"));
		}
		interned(st, kid(pkt, "interned_data"));
		const struct node *ev = kid(pkt, "track_event");
		if (ev) {
			if (!has_flags || !(flags & 2))
				bad("line %zu: an event without "
				    "SEQ_NEEDS_INCREMENTAL_STATE", pkt->line);
			track_event(st, pkt, ev, ts, has_ts);
		}
		if (kid(pkt, "track_descriptor"))
			descriptor(st, kid(pkt, "track_descriptor"));
		if (kid(pkt, "clock_snapshot"))
			clock_snapshot(st, kid(pkt, "clock_snapshot"));
		if (kid(pkt, "compressed_packets"))
			bad("line %zu: compressed packets left: expand first",
			    pkt->line);
	}
	for (size_t i = 0; i < st->n_tracks; i++)
		if (st->tracks[i].depth)
			bad("track '%s' ends with %u slices open",
			    st->tracks[i].name, st->tracks[i].depth);
}

static int verify(const char *path)
{
	struct node *root = parse_text(path);
	struct state total = { 0 };
	size_t n_tracks = 0;

	no_unknown_fields(root);
	for (size_t i = 0; i < root->n_kids; i++) {
		const struct node *pkt = root->kids[i];
		uint64_t seq;
		if (strcmp(pkt->key, "packet"))
			bad("line %zu: '%s' in a Trace", pkt->line, pkt->key);
		else if (!u64_value(pkt, "trusted_packet_sequence_id", &seq))
			bad("line %zu: a packet without a sequence", pkt->line);
	}
	struct sequences *seqs = split(root);
	struct state **sts = calloc(seqs->n + 1, sizeof(*sts));
	for (size_t k = 0; k < seqs->n; k++) {
		struct state *st = sts[k] = calloc(1, sizeof(*st));
		st->verifying = true;
		st->seqs = seqs;
		st->seq = k;
		verify_sequence(st, &seqs->packets[k]);
		/* Perfetto's track uuids are the trace's. */
		for (size_t i = 0; i < st->n_tracks; i++)
			for (size_t o = 0; o < k; o++)
				if (find(sts[o], st->tracks[i].uuid))
					bad("track '%s' is described on two "
					    "sequences", st->tracks[i].name);
		total.packets += st->packets;
		total.windows += st->windows;
		total.slices += st->slices;
		total.instants += st->instants;
		total.single_values += st->single_values;
		total.snapshots += st->snapshots;
		total.boottime |= st->boottime;
		n_tracks += st->n_tracks;
	}
	printf("%" PRIu64 " packets, %zu tracks, %" PRIu64 " windows, %" PRIu64
	       " slices, %" PRIu64 " instants, %" PRIu64 " values of their own, "
	       "%" PRIu64 " clock snapshots%s, %zu sequences\n",
	       total.packets, n_tracks, total.windows, total.slices,
	       total.instants, total.single_values, total.snapshots,
	       total.boottime ? " (with BOOTTIME)" : "", seqs->n);
	for (size_t k = 0; k < seqs->n; k++)
		for (size_t i = 0; i < sts[k]->n_tracks; i++)
			printf("track %s\n", sts[k]->tracks[i].name);
	return failures ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* values                                                               */

/* The symbol a counter track's description starts with. */
static char *symbol_of(const struct track *t)
{
	size_t n = strcspn(t->description, ":");
	return strndup(t->description, n);
}

/* NDJSON value of key in line, as text; NULL when absent. */
static char *json_value(const char *line, const char *key)
{
	char pattern[256];
	snprintf(pattern, sizeof(pattern), "\"%s\":", key);
	const char *p = strstr(line, pattern);
	if (!p)
		return NULL;
	p += strlen(pattern);
	return strndup(p, strcspn(p, ",}"));
}

/* Whether the trace's value is the row's; at float's precision where
 * the track says it holds floats. */
static bool same(double trace, const char *json, bool float_precision)
{
	if (!strcmp(json, "null"))
		return isnan(trace);
	double v = strtod(json, NULL);
	if (float_precision && fabs(v) <= FLT_MAX)
		v = (double)(float)v;
	return v == trace;
}

/* The windows of one sequence (each has its own defaults) against the
 * rows from *row on; false when the rows ran out. */
static bool sequence_values(const struct node *root, char **row,
			    uint64_t *windows, uint64_t *compared)
{
	struct state *st = calloc(1, sizeof(*st));
	for (size_t i = 0; i < root->n_kids; i++) {
		const struct node *pkt = root->kids[i];
		if (kid(pkt, "track_descriptor"))
			descriptor(st, kid(pkt, "track_descriptor"));
		if (kid(pkt, "trace_packet_defaults"))
			defaults(st, kid(pkt, "trace_packet_defaults"));
		const struct node *ev = kid(pkt, "track_event");
		const char *type = ev ? value(ev, "type") : NULL;
		if (!type || strcmp(type, "TYPE_COUNTER") ||
		    (!kid(ev, "extra_counter_values") &&
		     !kid(ev, "extra_double_counter_values") &&
		     (value(pkt, "timestamp_clock_id") || st->n_default_ints ||
		      st->n_default_doubles)))
			continue;
		(*windows)++;
		if (!*row) {
			bad("window %" PRIu64 " has no NDJSON row", *windows);
			return false;
		}
		char *reports = json_value(*row, "reports");
		const char *mine = value(ev, "counter_value");
		if (!reports || !mine || strcmp(reports, mine))
			bad("window %" PRIu64 ": %s reports, the row %s", *windows,
			    mine ? mine : "no", reports ? reports : "none");
		free(reports);
		size_t ki = 0, kd = 0;
		for (size_t k = 0; k < ev->n_kids; k++) {
			const struct node *v = ev->kids[k];
			uint64_t uuid;
			if (!strcmp(v->key, "extra_counter_values") &&
			    ki < st->n_default_ints)
				uuid = st->default_ints[ki++];
			else if (!strcmp(v->key, "extra_double_counter_values") &&
				 kd < st->n_default_doubles)
				uuid = st->default_doubles[kd++];
			else
				continue;
			struct track *t = find(st, uuid);
			char *sym = t ? symbol_of(t) : strdup("?");
			char *j = json_value(*row, sym);
			if (!j)
				bad("window %" PRIu64 ": the row has no %s", *windows, sym);
			else if (!same(text_double(v->value), j, t &&
					strstr(t->description, ", float precision)")))
				bad("window %" PRIu64 ": %s is %s in the trace, %s "
				    "in the row", *windows, sym, v->value, j);
			else
				(*compared)++;
			free(j);
			free(sym);
		}
		*row = strtok(NULL, "\n");
	}
	return true;
}

static int values(const char *text, const char *ndjson)
{
	struct sequences *seqs = split(parse_text(text));
	size_t len;
	char *rows = (char *)read_file(ndjson, &len);
	rows = realloc(rows, len + 1);
	rows[len] = '\0';
	char *row = strtok(rows, "\n");
	uint64_t windows = 0, compared = 0;

	for (size_t k = 0; k < seqs->n; k++)
		if (!sequence_values(&seqs->packets[k], &row, &windows, &compared))
			break;
	if (row)
		bad("NDJSON rows left after the trace's %" PRIu64 " windows", windows);
	printf("%" PRIu64 " windows, %" PRIu64 " values equal\n", windows, compared);
	return failures || !compared ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* usage-values                                                         */

/* The text of "key": after p, up to the next , } or ]; NULL when absent. */
static char *json_after(const char *p, const char *key)
{
	char pattern[192];
	snprintf(pattern, sizeof(pattern), "\"%s\":", key);
	const char *at = p ? strstr(p, pattern) : NULL;
	if (!at)
		return NULL;
	at += strlen(pattern);
	return strndup(at, strcspn(at, ",}]"));
}

enum lookup { FOUND, NO_ANCHOR, NO_KEY, UNCHECKED };

/* The value a usage track's key names in an NDJSON row of gpuperf top:
 * engines[NAME].FIELD, processes[PID].FIELD, processes[PID].busy_ratio.
 * CLASS, gauges.KEY, or a key of the row. */
static enum lookup usage_lookup(const char *row, const char *key, char **out)
{
	char anchor[160], field[160], id[64];
	const char *p = row;

	*out = NULL;
	if (!strncmp(key, "processes[other]", 16))
		return UNCHECKED;
	if (sscanf(key, "engines[%63[^]]].%127s", id, field) == 2) {
		snprintf(anchor, sizeof(anchor), "{\"name\":\"%s\",", id);
		p = strstr(row, anchor);
	} else if (sscanf(key, "processes[%63[^]]].%127s", id, field) == 2) {
		snprintf(anchor, sizeof(anchor), "{\"pid\":%s,", id);
		p = strstr(row, anchor);
		if (p && !strncmp(field, "busy_ratio.", 11)) {
			memmove(field, field + 11, strlen(field + 11) + 1);
			p = strstr(p, "\"busy_ratio\":{");
		}
	} else if (!strncmp(key, "gauges.", 7)) {
		snprintf(field, sizeof(field), "%s", key + 7);
		p = strstr(row, "\"gauges\":{");
	} else {
		snprintf(field, sizeof(field), "%s", key);
	}
	if (!p)
		return NO_ANCHOR;
	*out = json_after(p, field);
	return *out ? FOUND : NO_KEY;
}

static int usage_values(const char *text, const char *ndjson)
{
	struct node *root = parse_text(text);
	struct state *st = calloc(1, sizeof(*st));
	size_t len, n_rows = 0;
	char *rows = (char *)read_file(ndjson, &len);
	rows = realloc(rows, len + 1);
	rows[len] = '\0';
	char **row = calloc(len / 16 + 1, sizeof(*row));
	uint64_t *row_ts = calloc(len / 16 + 1, sizeof(*row_ts));
	uint64_t *row_ns = calloc(len / 16 + 1, sizeof(*row_ns));
	for (char *r = strtok(rows, "\n"); r; r = strtok(NULL, "\n")) {
		char *ts = json_after(r, "timestamp_ns");
		char *ns = json_after(r, "duration_ns");
		row_ts[n_rows] = ts ? strtoull(ts, NULL, 10) : 0;
		row_ns[n_rows] = ns ? strtoull(ns, NULL, 10) : 0;
		row[n_rows++] = r;
		free(ts);
		free(ns);
	}
	/* Each frame's interval: its start, and its length on the track
	 * keyed duration_ns. */
	size_t n_frames = 0;
	uint64_t *frame_ts = calloc(root->n_kids + 1, sizeof(*frame_ts));
	uint64_t *frame_ns = calloc(root->n_kids + 1, sizeof(*frame_ns));
	for (size_t i = 0; i < root->n_kids; i++) {
		const struct node *pkt = root->kids[i];
		if (kid(pkt, "track_descriptor"))
			descriptor(st, kid(pkt, "track_descriptor"));
		const struct node *ev = kid(pkt, "track_event");
		uint64_t ts, uuid;
		const char *v = ev ? value(ev, "counter_value") : NULL;
		if (!v || !u64_value(pkt, "timestamp", &ts) ||
		    !u64_value(ev, "track_uuid", &uuid) || !find(st, uuid) ||
		    strncmp(find(st, uuid)->description, "duration_ns:", 12))
			continue;
		frame_ts[n_frames] = ts;
		frame_ns[n_frames++] = strtoull(v, NULL, 10);
	}
	uint64_t values = 0, compared = 0, gone = 0, processes = 0, engines = 0;
	uint64_t unshared = 0;

	for (size_t i = 0; i < root->n_kids; i++) {
		const struct node *pkt = root->kids[i];
		if (kid(pkt, "track_descriptor"))
			descriptor(st, kid(pkt, "track_descriptor"));
		const struct node *ev = kid(pkt, "track_event");
		const char *clock = value(pkt, "timestamp_clock_id");
		const char *type = ev ? value(ev, "type") : NULL;
		uint64_t ts, uuid;
		if (!type || strcmp(type, "TYPE_COUNTER") || !clock ||
		    strcmp(clock, "3") || !u64_value(pkt, "timestamp", &ts) ||
		    !u64_value(ev, "track_uuid", &uuid))
			continue;
		values++;
		struct track *t = find(st, uuid);
		const char *mine = value(ev, "counter_value");
		if (!mine)
			mine = value(ev, "double_counter_value");
		if (!t || !mine) {
			bad("line %zu: a usage value without its track or value",
			    ev->line);
			continue;
		}
		bool has_ns = false;
		uint64_t ns = 0;
		for (size_t k = 0; k < n_frames && !has_ns; k++)
			if (frame_ts[k] == ts) {
				has_ns = true;
				ns = frame_ns[k];
			}
		const char *r = NULL;
		for (size_t k = 0; k < n_rows && !r; k++)
			if (row_ts[k] == ts && (!has_ns || row_ns[k] == ns))
				r = row[k];
		if (!r) {
			/* The first frame of each stream covers less than an
			 * interval, up to the grid both then share; a
			 * recording's last, less, to its end. */
			unshared++;
			continue;
		}
		char *key = symbol_of(t), *j;
		enum lookup found = usage_lookup(r, key, &j);
		if (found == UNCHECKED) {
		} else if (found == NO_ANCHOR && !strncmp(key, "processes[", 10)) {
			/* Gone from the list: it holds nothing. */
			if (text_double(mine) != 0)
				bad("%s at %" PRIu64 " is %s in the trace; the row "
				    "no longer lists it", key, ts, mine);
			else
				gone++;
		} else if (found != FOUND) {
			bad("%s at %" PRIu64 ": the row has no such value", key, ts);
		} else if (!same(text_double(mine), j, false)) {
			bad("%s at %" PRIu64 " is %s in the trace, %s in the row",
			    key, ts, mine, j);
		} else {
			compared++;
			processes += !strncmp(key, "processes[", 10);
			engines += !strncmp(key, "engines[", 8);
		}
		free(j);
		free(key);
	}
	printf("%" PRIu64 " usage values, %" PRIu64 " equal to the rows' (%"
	       PRIu64 " of engines, %" PRIu64 " of processes), %" PRIu64
	       " zeros of processes gone, %" PRIu64 " at times the rows do "
	       "not share\n", values, compared, engines, processes, gone,
	       unshared);
	return failures || !engines || !processes || compared <= engines +
	       processes ? 1 : 0;
}

/* ------------------------------------------------------------------ */

static void print_node(const struct node *n, int indent)
{
	for (size_t i = 0; i < n->n_kids; i++) {
		const struct node *k = n->kids[i];
		if (indent == 0 && kid(k, "clock_snapshot"))
			continue;
		if (k->value) {
			printf("%*s%s: %s\n", indent, "", k->key, k->value);
		} else {
			printf("%*s%s {\n", indent, "", k->key);
			print_node(k, indent + 2);
			printf("%*s}\n", indent, "");
		}
	}
}

/* Whether a sequence describes a root track: a device's. */
static bool describes_a_root(const struct node *seq)
{
	for (size_t i = 0; i < seq->n_kids; i++) {
		const struct node *td = kid(seq->kids[i], "track_descriptor");
		if (td && !kid(td, "parent_uuid"))
			return true;
	}
	return false;
}

static int oa_part(const char *path)
{
	struct sequences *seqs = split(parse_text(path));
	for (size_t k = 0; k < seqs->n; k++)
		if (describes_a_root(&seqs->packets[k]))
			print_node(&seqs->packets[k], 0);
	return 0;
}

static void list_sequence(const struct node *root)
{
	struct state *st = calloc(1, sizeof(*st));
	for (size_t i = 0; i < root->n_kids; i++) {
		const struct node *pkt = root->kids[i];
		if (kid(pkt, "track_descriptor"))
			descriptor(st, kid(pkt, "track_descriptor"));
		interned(st, kid(pkt, "interned_data"));
		const struct node *ev = kid(pkt, "track_event");
		uint64_t uuid = 0, iid = 0, ts = 0;
		if (!ev)
			continue;
		u64_value(pkt, "timestamp", &ts);
		u64_value(ev, "track_uuid", &uuid);
		struct track *t = find(st, uuid);
		const char *name = u64_value(ev, "name_iid", &iid) && iid < MAX_IIDS &&
				   st->event_names[iid] ? st->event_names[iid] : "";
		const char *v = value(ev, "counter_value");
		printf("%" PRIu64 " %s %s %s%s%s\n", ts, t ? t->name : "?",
		       value(ev, "type"), name, v ? " " : "", v ? v : "");
	}
}

static int list(const char *path)
{
	struct sequences *seqs = split(parse_text(path));
	for (size_t k = 0; k < seqs->n; k++)
		list_sequence(&seqs->packets[k]);
	return 0;
}

static int clocks(const char *path)
{
	struct node *root = parse_text(path);
	for (size_t i = 0; i < root->n_kids; i++) {
		const struct node *cs = kid(root->kids[i], "clock_snapshot");
		const char *gpu = "-", *mono = "-", *boot = "-";
		for (size_t k = 0; cs && k < cs->n_kids; k++) {
			uint64_t id;
			const char *ts = value(cs->kids[k], "timestamp");
			if (strcmp(cs->kids[k]->key, "clocks") ||
			    !u64_value(cs->kids[k], "clock_id", &id) || !ts)
				continue;
			if (id == 64)
				gpu = ts;
			else if (id == 3)
				mono = ts;
			else if (id == 6)
				boot = ts;
		}
		if (cs)
			printf("%s %s %s\n", gpu, mono, boot);
	}
	return 0;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The checker lives for one command and leaves its trees and tables to
 * exit(): under SAN=1, LeakSanitizer would count them as leaks of the
 * trace writer it checks. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "expand")) {
		size_t len;
		unsigned char *trace = read_file(argv[2], &len);
		FILE *out = fopen(argv[3], "wb");
		if (!out)
			die("cannot write %s: %s", argv[3], strerror(errno));
		expand_trace(trace, len, out, 0);
		free(trace);
		if (fclose(out))
			die("cannot write %s", argv[3]);
		return failures ? 1 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "verify"))
		return verify(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "values"))
		return values(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "oa-part"))
		return oa_part(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "list"))
		return list(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "usage-values"))
		return usage_values(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "clocks"))
		return clocks(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "boottime-offset")) {
		uint64_t mono = clock_ns(CLOCK_MONOTONIC);
		printf("%" PRIu64 "\n", clock_ns(CLOCK_BOOTTIME) - mono);
		return 0;
	}
	fprintf(stderr, "usage: trace-check expand TRACE OUT | verify TEXT | "
		"values TEXT NDJSON | usage-values TEXT NDJSON | oa-part TEXT | "
		"list TEXT | clocks TEXT | "
		"boottime-offset\n");
	return 2;
}
