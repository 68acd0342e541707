/*
 * Perfetto traces (see trace_writer.h). Each packet is packed with the
 * protoc-c code of proto/perfetto_trace.proto into a chunk, framed as a
 * Trace's `packet` field; a full chunk is deflated and written as one
 * packet of its own.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "metrics/trace_writer.h"
#include "proto/perfetto_trace.pb-c.h"

typedef Gpuperf__Perfetto__TracePacket Packet;
typedef Gpuperf__Perfetto__TrackEvent TrackEvent;
typedef Gpuperf__Perfetto__TrackDescriptor TrackDescriptor;
typedef Gpuperf__Perfetto__DebugAnnotation DebugAnnotation;

#define SEQ_CLEARED GPUPERF__PERFETTO__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED
#define SEQ_NEEDS GPUPERF__PERFETTO__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE

/* Track fields of Trace: packet = 1, length-delimited. */
#define TRACE_PACKET_TAG 0x0a
/* Strings longer than this are cut: descriptors stay small packets. */
#define MAX_STRING 2048
#define MAX_ARGS GPM_TRACE_MAX_ARGS

enum track_kind { TRACK_PLAIN, TRACK_ORDERED, TRACK_COUNTER };

struct gpm_trace_track_info {
	uint64_t uuid;
	uint64_t parent;
	char *name;
	char *description;
	int rank;
	enum track_kind kind;
	enum gpm_trace_counter_kind counter_kind;
	struct gpm_trace_unit unit;     /* unit.name owned */
	unsigned emitted;               /* generation it went out in; 0 never */
};

enum intern_kind { INTERN_EVENT_NAME, INTERN_ARG_NAME };

struct gpm_trace_intern {
	char *string;                   /* NULL: a free slot */
	enum intern_kind kind;
	uint64_t iid;
	unsigned emitted;               /* generation it went out in */
};

/* ------------------------------------------------------------------ */

/* splitmix64: spreads an identity over all 64 bits. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

int gpm_trace_writer_init(struct gpm_trace_writer *w, uint64_t identity,
			  gpm_trace_write_fn write, void *ctx)
{
	memset(w, 0, sizeof(*w));
	w->write = write;
	w->ctx = ctx;
	uint64_t h = mix64(identity);
	/* Services number their sequences from 1 up; ours sit high, and
	 * never at 0, which means none. */
	w->sequence_id = (uint32_t)(h >> 33) | 0x40000000u;
	w->uuid_base = mix64(h) & ~0xffffull;
	w->generation = 1;
	w->next_event_name_iid = 1;
	w->next_arg_name_iid = 1;
	w->tracks = calloc(GPM_TRACE_MAX_TRACKS, sizeof(*w->tracks));
	w->chunk = malloc(GPM_TRACE_CHUNK_SIZE);
	z_stream *z = calloc(1, sizeof(*z));
	w->zstream = z;
	if (!w->tracks || !w->chunk || !z ||
	    deflateInit(z, Z_DEFAULT_COMPRESSION) != Z_OK) {
		if (z && z->state)
			deflateEnd(z);
		free(z);
		w->zstream = NULL;
		gpm_trace_writer_fini(w);
		return -ENOMEM;
	}
	return 0;
}

void gpm_trace_writer_fini(struct gpm_trace_writer *w)
{
	for (size_t i = 0; w->tracks && i < w->n_tracks; i++) {
		free(w->tracks[i].name);
		free(w->tracks[i].description);
		free((char *)w->tracks[i].unit.name);
	}
	for (size_t i = 0; i < w->cap_interned; i++)
		free(w->interned[i].string);
	if (w->zstream) {
		deflateEnd(w->zstream);
		free(w->zstream);
	}
	free(w->tracks);
	free(w->interned);
	free(w->window_int_uuids);
	free(w->window_double_uuids);
	free(w->window_kinds);
	free(w->window_ints);
	free(w->window_doubles);
	free(w->chunk);
	free(w->packet);
	free(w->deflated);
	memset(w, 0, sizeof(*w));
}

uint64_t gpm_trace_bytes_written(const struct gpm_trace_writer *w)
{
	return w->bytes_out;
}

bool gpm_trace_clock_known(const struct gpm_trace_writer *w)
{
	return w->have_snapshot;
}

/* ------------------------------------------------------------------ */
/* Output                                                               */

static int fail(struct gpm_trace_writer *w, int err)
{
	if (!w->failed)
		w->failed = err;
	return w->failed;
}

static int write_out(struct gpm_trace_writer *w, const void *data, size_t len)
{
	if (w->failed)
		return w->failed;
	int ret = w->write(w->ctx, data, len);
	if (ret)
		return fail(w, ret < 0 ? ret : -EIO);
	w->bytes_out += len;
	return 0;
}

static size_t put_varint(unsigned char *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

int gpm_trace_flush(struct gpm_trace_writer *w)
{
	if (w->failed || !w->chunk_used)
		return w->failed;
	z_stream *z = w->zstream;
	size_t bound = deflateBound(z, (uLong)w->chunk_used);
	if (bound > w->deflated_cap) {
		unsigned char *p = realloc(w->deflated, bound);
		if (!p)
			return fail(w, -ENOMEM);
		w->deflated = p;
		w->deflated_cap = bound;
	}
	deflateReset(z);
	z->next_in = w->chunk;
	z->avail_in = (uInt)w->chunk_used;
	z->next_out = w->deflated;
	z->avail_out = (uInt)bound;
	if (deflate(z, Z_FINISH) != Z_STREAM_END)
		return fail(w, -EIO);
	size_t deflated = bound - z->avail_out;
	w->chunk_used = 0;

	/* One packet holding the chunk: compressed_packets (field 50,
	 * length-delimited), framed as Trace's packet field. */
	unsigned char head[2 * 10 + 3];
	unsigned char field[12];
	size_t field_len = put_varint(field, (50u << 3) | 2);
	field_len += put_varint(field + field_len, deflated);
	size_t n = 0;
	head[n++] = TRACE_PACKET_TAG;
	n += put_varint(head + n, field_len + deflated);
	memcpy(head + n, field, field_len);
	n += field_len;
	int ret = write_out(w, head, n);
	return ret ? ret : write_out(w, w->deflated, deflated);
}

/* Packs p into the chunk, after the chunk's earlier packets. */
static int add_packet(struct gpm_trace_writer *w, Packet *p)
{
	if (w->failed)
		return w->failed;
	p->optional_trusted_packet_sequence_id_case =
		GPUPERF__PERFETTO__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID;
	p->trusted_packet_sequence_id = w->sequence_id;
	size_t size = gpuperf__perfetto__trace_packet__get_packed_size(p);
	size_t framed = 1 + 10 + size;
	if (w->chunk_used + framed > GPM_TRACE_CHUNK_SIZE) {
		int ret = gpm_trace_flush(w);
		if (ret)
			return ret;
	}
	if (framed > GPM_TRACE_CHUNK_SIZE)
		return fail(w, -EMSGSIZE);
	unsigned char *out = w->chunk + w->chunk_used;
	size_t n = 0;
	out[n++] = TRACE_PACKET_TAG;
	n += put_varint(out + n, size);
	n += gpuperf__perfetto__trace_packet__pack(p, out + n);
	w->chunk_used += n;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Incremental state                                                    */

static uint64_t hash_string(const char *s, enum intern_kind kind)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)kind;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int grow_interned(struct gpm_trace_writer *w)
{
	size_t cap = w->cap_interned ? w->cap_interned * 2 : 64;
	struct gpm_trace_intern *t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < w->cap_interned; i++) {
		struct gpm_trace_intern *e = &w->interned[i];
		if (!e->string)
			continue;
		size_t j = hash_string(e->string, e->kind) & (cap - 1);
		while (t[j].string)
			j = (j + 1) & (cap - 1);
		t[j] = *e;
	}
	free(w->interned);
	w->interned = t;
	w->cap_interned = cap;
	return 0;
}

/* The entry for s, added if new; NULL when out of memory. */
static struct gpm_trace_intern *intern(struct gpm_trace_writer *w,
				       const char *s, enum intern_kind kind)
{
	if ((w->n_interned + 1) * 2 > w->cap_interned && grow_interned(w))
		return NULL;
	size_t mask = w->cap_interned - 1;
	size_t j = hash_string(s, kind) & mask;
	for (;; j = (j + 1) & mask) {
		struct gpm_trace_intern *e = &w->interned[j];
		if (!e->string)
			break;
		if (e->kind == kind && !strcmp(e->string, s))
			return e;
	}
	struct gpm_trace_intern *e = &w->interned[j];
	e->string = strndup(s, MAX_STRING);
	if (!e->string)
		return NULL;
	e->kind = kind;
	e->iid = kind == INTERN_EVENT_NAME ? w->next_event_name_iid++ :
					     w->next_arg_name_iid++;
	w->n_interned++;
	return e;
}

static struct gpm_trace_track_info *find_track(struct gpm_trace_writer *w,
					       uint64_t uuid)
{
	uint64_t i = uuid - w->uuid_base - 1;
	if (uuid <= w->uuid_base || i >= w->n_tracks)
		return NULL;
	return &w->tracks[i];
}

/* The first packet of a generation: it clears the incremental state and
 * sets the sequence's defaults. */
static int start_generation(struct gpm_trace_writer *w)
{
	if (w->generation_started)
		return w->failed;
	Packet p = GPUPERF__PERFETTO__TRACE_PACKET__INIT;
	Gpuperf__Perfetto__TracePacketDefaults d =
		GPUPERF__PERFETTO__TRACE_PACKET_DEFAULTS__INIT;
	Gpuperf__Perfetto__TrackEventDefaults te =
		GPUPERF__PERFETTO__TRACK_EVENT_DEFAULTS__INIT;
	d.has_timestamp_clock_id = true;
	d.timestamp_clock_id = GPM_TRACE_GPU_CLOCK_ID;
	te.n_extra_counter_track_uuids = w->n_window_int;
	te.extra_counter_track_uuids = w->window_int_uuids;
	te.n_extra_double_counter_track_uuids = w->n_window_double;
	te.extra_double_counter_track_uuids = w->window_double_uuids;
	d.track_event_defaults = &te;
	p.trace_packet_defaults = &d;
	p.has_sequence_flags = true;
	p.sequence_flags = SEQ_CLEARED;
	if (w->generation == 1) {
		p.has_first_packet_on_sequence = true;
		p.first_packet_on_sequence = true;
	}
	w->generation_started = true;
	return add_packet(w, &p);
}

/* Writes track t's descriptor, its parents' first, unless they went out
 * in this generation. */
static int emit_track(struct gpm_trace_writer *w, struct gpm_trace_track_info *t)
{
	if (t->emitted == w->generation)
		return 0;
	int ret = start_generation(w);
	if (ret)
		return ret;
	if (t->parent) {
		struct gpm_trace_track_info *parent = find_track(w, t->parent);
		if (parent && (ret = emit_track(w, parent)))
			return ret;
	}
	Packet p = GPUPERF__PERFETTO__TRACE_PACKET__INIT;
	TrackDescriptor td = GPUPERF__PERFETTO__TRACK_DESCRIPTOR__INIT;
	Gpuperf__Perfetto__CounterDescriptor cd =
		GPUPERF__PERFETTO__COUNTER_DESCRIPTOR__INIT;
	td.has_uuid = true;
	td.uuid = t->uuid;
	if (t->parent) {
		td.has_parent_uuid = true;
		td.parent_uuid = t->parent;
	}
	td.static_or_dynamic_name_case =
		GPUPERF__PERFETTO__TRACK_DESCRIPTOR__STATIC_OR_DYNAMIC_NAME_NAME;
	td.name = t->name;
	if (t->description && t->description[0])
		td.description = t->description;
	td.has_sibling_order_rank = true;
	td.sibling_order_rank = t->rank;
	if (t->kind == TRACK_ORDERED) {
		td.has_child_ordering = true;
		td.child_ordering =
			GPUPERF__PERFETTO__TRACK_DESCRIPTOR__CHILD_TRACKS_ORDERING__EXPLICIT;
	}
	if (t->kind == TRACK_COUNTER) {
		switch (t->unit.kind) {
		case GPM_TRACE_UNIT_TIME_NS:
			cd.has_unit = true;
			cd.unit = GPUPERF__PERFETTO__COUNTER_DESCRIPTOR__UNIT__UNIT_TIME_NS;
			break;
		case GPM_TRACE_UNIT_COUNT:
			cd.has_unit = true;
			cd.unit = GPUPERF__PERFETTO__COUNTER_DESCRIPTOR__UNIT__UNIT_COUNT;
			break;
		case GPM_TRACE_UNIT_BYTES:
			cd.has_unit = true;
			cd.unit = GPUPERF__PERFETTO__COUNTER_DESCRIPTOR__UNIT__UNIT_SIZE_BYTES;
			break;
		case GPM_TRACE_UNIT_NAMED:
			cd.unit_name = (char *)t->unit.name;
			break;
		}
		td.counter = &cd;
	}
	p.data_case = GPUPERF__PERFETTO__TRACE_PACKET__DATA_TRACK_DESCRIPTOR;
	p.track_descriptor = &td;
	ret = add_packet(w, &p);
	if (!ret)
		t->emitted = w->generation;
	return ret;
}

static int emit_track_uuid(struct gpm_trace_writer *w, uint64_t uuid)
{
	struct gpm_trace_track_info *t = find_track(w, uuid);
	return t ? emit_track(w, t) : fail(w, -EINVAL);
}

/* ------------------------------------------------------------------ */
/* Tracks                                                               */

static uint64_t declare(struct gpm_trace_writer *w, uint64_t parent,
			const char *name, const char *description, int rank,
			enum track_kind kind)
{
	if (w->n_tracks == GPM_TRACE_MAX_TRACKS)
		return 0;
	bool elsewhere = false;
	for (size_t i = 0; i < w->n_elsewhere; i++)
		elsewhere |= w->elsewhere[i] == parent;
	if (parent && !find_track(w, parent) && !elsewhere)
		return 0;
	struct gpm_trace_track_info *t = &w->tracks[w->n_tracks];
	memset(t, 0, sizeof(*t));
	t->name = strndup(name ? name : "", MAX_STRING);
	t->description = strndup(description ? description : "", MAX_STRING);
	if (!t->name || !t->description) {
		free(t->name);
		free(t->description);
		return 0;
	}
	t->uuid = w->uuid_base + 1 + w->n_tracks;
	t->parent = parent;
	t->rank = rank;
	t->kind = kind;
	w->n_tracks++;
	return t->uuid;
}

int gpm_trace_parent_elsewhere(struct gpm_trace_writer *w, uint64_t uuid)
{
	if (w->n_elsewhere == GPM_TRACE_MAX_PARENTS_ELSEWHERE)
		return -ENOSPC;
	w->elsewhere[w->n_elsewhere++] = uuid;
	return 0;
}

uint64_t gpm_trace_track(struct gpm_trace_writer *w, uint64_t parent,
			 const char *name, const char *description, int rank)
{
	return declare(w, parent, name, description, rank, TRACK_PLAIN);
}

uint64_t gpm_trace_ordered_track(struct gpm_trace_writer *w, uint64_t parent,
				 const char *name, const char *description,
				 int rank)
{
	return declare(w, parent, name, description, rank, TRACK_ORDERED);
}

uint64_t gpm_trace_counter_track(struct gpm_trace_writer *w, uint64_t parent,
				 const char *name, const char *description,
				 int rank, enum gpm_trace_counter_kind kind,
				 struct gpm_trace_unit unit)
{
	char *unit_name = NULL;
	if (unit.kind == GPM_TRACE_UNIT_NAMED && unit.name &&
	    !(unit_name = strndup(unit.name, MAX_STRING)))
		return 0;
	uint64_t uuid = declare(w, parent, name, description, rank,
				TRACK_COUNTER);
	if (!uuid) {
		free(unit_name);
		return 0;
	}
	struct gpm_trace_track_info *t = find_track(w, uuid);
	t->counter_kind = kind;
	t->unit = unit;
	t->unit.name = unit_name;
	return uuid;
}

int gpm_trace_set_window_counters(struct gpm_trace_writer *w, uint64_t primary,
				  const uint64_t *counters, size_t n)
{
	struct gpm_trace_track_info *pt = find_track(w, primary);
	if (!pt || pt->kind != TRACK_COUNTER ||
	    pt->counter_kind != GPM_TRACE_COUNTER_INT)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		struct gpm_trace_track_info *t = find_track(w, counters[i]);
		if (!t || t->kind != TRACK_COUNTER)
			return -EINVAL;
	}
	size_t cap = n ? n : 1;
	uint64_t *ints = calloc(cap, sizeof(*ints));
	uint64_t *doubles = calloc(cap, sizeof(*doubles));
	enum gpm_trace_counter_kind *kinds = calloc(cap, sizeof(*kinds));
	int64_t *int_values = calloc(cap, sizeof(*int_values));
	double *double_values = calloc(cap, sizeof(*double_values));
	if (!ints || !doubles || !kinds || !int_values || !double_values) {
		free(ints);
		free(doubles);
		free(kinds);
		free(int_values);
		free(double_values);
		return -ENOMEM;
	}
	free(w->window_int_uuids);
	free(w->window_double_uuids);
	free(w->window_kinds);
	free(w->window_ints);
	free(w->window_doubles);
	w->window_int_uuids = ints;
	w->window_double_uuids = doubles;
	w->window_kinds = kinds;
	w->window_ints = int_values;
	w->window_doubles = double_values;
	w->n_window_int = w->n_window_double = 0;
	for (size_t i = 0; i < n; i++) {
		struct gpm_trace_track_info *t = find_track(w, counters[i]);
		kinds[i] = t->counter_kind;
		if (t->counter_kind == GPM_TRACE_COUNTER_INT)
			ints[w->n_window_int++] = counters[i];
		else
			doubles[w->n_window_double++] = counters[i];
	}
	w->window_track = primary;
	w->n_window_counters = n;
	/* The defaults name the tracks: new ones need a new generation. */
	if (w->generation_started) {
		w->generation++;
		w->generation_started = false;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Events                                                               */

/* Gathers the interned entries an event's packet must define. */
struct new_interned {
	Gpuperf__Perfetto__InternedData data;
	Gpuperf__Perfetto__EventName event_name;
	Gpuperf__Perfetto__EventName *event_names[1];
	Gpuperf__Perfetto__DebugAnnotationName arg_names[MAX_ARGS];
	Gpuperf__Perfetto__DebugAnnotationName *arg_name_ptrs[MAX_ARGS];
};

static void new_interned_init(struct new_interned *ni)
{
	Gpuperf__Perfetto__InternedData init = GPUPERF__PERFETTO__INTERNED_DATA__INIT;
	ni->data = init;
	ni->data.event_names = ni->event_names;
	ni->data.debug_annotation_names = ni->arg_name_ptrs;
}

/* The iid of s, noting it in ni when this generation has not seen it. */
static int interned_iid(struct gpm_trace_writer *w, struct new_interned *ni,
			const char *s, enum intern_kind kind, uint64_t *iid)
{
	struct gpm_trace_intern *e = intern(w, s, kind);
	if (!e)
		return fail(w, -ENOMEM);
	*iid = e->iid;
	if (e->emitted == w->generation)
		return 0;
	e->emitted = w->generation;
	if (kind == INTERN_EVENT_NAME) {
		Gpuperf__Perfetto__EventName init = GPUPERF__PERFETTO__EVENT_NAME__INIT;
		ni->event_name = init;
		ni->event_name.has_iid = true;
		ni->event_name.iid = e->iid;
		ni->event_name.name = e->string;
		ni->event_names[0] = &ni->event_name;
		ni->data.n_event_names = 1;
	} else {
		Gpuperf__Perfetto__DebugAnnotationName init =
			GPUPERF__PERFETTO__DEBUG_ANNOTATION_NAME__INIT;
		size_t k = ni->data.n_debug_annotation_names++;
		ni->arg_names[k] = init;
		ni->arg_names[k].has_iid = true;
		ni->arg_names[k].iid = e->iid;
		ni->arg_names[k].name = e->string;
		ni->arg_name_ptrs[k] = &ni->arg_names[k];
	}
	return 0;
}

/* Readies an event packet at ts on track: its track's descriptor out,
 * the generation started. */
static int event_packet(struct gpm_trace_writer *w, Packet *p, TrackEvent *te,
			uint64_t track, enum gpm_trace_clock clock, uint64_t ts)
{
	if (w->failed)
		return w->failed;
	if (clock == GPM_TRACE_CLOCK_GPU ? !w->have_snapshot : !w->have_cpu_snapshot)
		return -EAGAIN;
	int ret = emit_track_uuid(w, track);
	if (ret)
		return ret;
	p->has_timestamp = true;
	p->timestamp = ts;
	if (clock == GPM_TRACE_CLOCK_MONOTONIC) {
		p->has_timestamp_clock_id = true;
		p->timestamp_clock_id =
			GPUPERF__PERFETTO__BUILTIN_CLOCK__BUILTIN_CLOCK_MONOTONIC;
	}
	p->has_sequence_flags = true;
	p->sequence_flags = SEQ_NEEDS;
	p->data_case = GPUPERF__PERFETTO__TRACE_PACKET__DATA_TRACK_EVENT;
	p->track_event = te;
	te->has_track_uuid = true;
	te->track_uuid = track;
	return 0;
}

static int named_event(struct gpm_trace_writer *w, uint64_t track,
		       enum gpm_trace_clock clock, uint64_t ts,
		       Gpuperf__Perfetto__TrackEvent__Type type, const char *name,
		       const struct gpm_trace_arg *args, size_t n_args)
{
	Packet p = GPUPERF__PERFETTO__TRACE_PACKET__INIT;
	TrackEvent te = GPUPERF__PERFETTO__TRACK_EVENT__INIT;
	struct new_interned ni;
	DebugAnnotation da[MAX_ARGS];
	DebugAnnotation *dap[MAX_ARGS];

	if (n_args > MAX_ARGS)
		return -EINVAL;
	int ret = event_packet(w, &p, &te, track, clock, ts);
	if (ret)
		return ret;
	new_interned_init(&ni);
	te.has_type = true;
	te.type = type;
	if (name) {
		te.name_field_case = GPUPERF__PERFETTO__TRACK_EVENT__NAME_FIELD_NAME_IID;
		if ((ret = interned_iid(w, &ni, name, INTERN_EVENT_NAME,
					&te.name_iid)))
			return ret;
	}
	for (size_t i = 0; i < n_args; i++) {
		DebugAnnotation init = GPUPERF__PERFETTO__DEBUG_ANNOTATION__INIT;
		da[i] = init;
		da[i].name_field_case =
			GPUPERF__PERFETTO__DEBUG_ANNOTATION__NAME_FIELD_NAME_IID;
		if ((ret = interned_iid(w, &ni, args[i].name, INTERN_ARG_NAME,
					&da[i].name_iid)))
			return ret;
		switch (args[i].type) {
		case GPM_TRACE_ARG_UINT:
			da[i].value_case = GPUPERF__PERFETTO__DEBUG_ANNOTATION__VALUE_UINT_VALUE;
			da[i].uint_value = args[i].u;
			break;
		case GPM_TRACE_ARG_INT:
			da[i].value_case = GPUPERF__PERFETTO__DEBUG_ANNOTATION__VALUE_INT_VALUE;
			da[i].int_value = args[i].i;
			break;
		case GPM_TRACE_ARG_DOUBLE:
			da[i].value_case = GPUPERF__PERFETTO__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE;
			da[i].double_value = args[i].d;
			break;
		case GPM_TRACE_ARG_STRING:
			da[i].value_case = GPUPERF__PERFETTO__DEBUG_ANNOTATION__VALUE_STRING_VALUE;
			da[i].string_value = (char *)(args[i].s ? args[i].s : "");
			break;
		}
		dap[i] = &da[i];
	}
	te.n_debug_annotations = n_args;
	te.debug_annotations = dap;
	if (ni.data.n_event_names || ni.data.n_debug_annotation_names)
		p.interned_data = &ni.data;
	return add_packet(w, &p);
}

int gpm_trace_slice_begin(struct gpm_trace_writer *w, uint64_t track,
			  uint64_t ts, const char *name,
			  const struct gpm_trace_arg *args, size_t n_args)
{
	return named_event(w, track, GPM_TRACE_CLOCK_GPU, ts,
			   GPUPERF__PERFETTO__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN,
			   name, args, n_args);
}

int gpm_trace_slice_end(struct gpm_trace_writer *w, uint64_t track, uint64_t ts)
{
	return named_event(w, track, GPM_TRACE_CLOCK_GPU, ts,
			   GPUPERF__PERFETTO__TRACK_EVENT__TYPE__TYPE_SLICE_END,
			   NULL, NULL, 0);
}

int gpm_trace_instant(struct gpm_trace_writer *w, uint64_t track, uint64_t ts,
		      const char *name, const struct gpm_trace_arg *args,
		      size_t n_args)
{
	return gpm_trace_instant_on(w, track, GPM_TRACE_CLOCK_GPU, ts, name,
				    args, n_args);
}

int gpm_trace_instant_on(struct gpm_trace_writer *w, uint64_t track,
			 enum gpm_trace_clock clock, uint64_t ts,
			 const char *name, const struct gpm_trace_arg *args,
			 size_t n_args)
{
	return named_event(w, track, clock, ts,
			   GPUPERF__PERFETTO__TRACK_EVENT__TYPE__TYPE_INSTANT,
			   name, args, n_args);
}

/* v as the float nearest it, where a float holds it: a float's 24 bits
 * of mantissa, the rest zeros that compress to nothing. */
static double float_precision(double v)
{
	return fabs(v) <= FLT_MAX ? (double)(float)v : v;
}

int gpm_trace_window(struct gpm_trace_writer *w, uint64_t ts,
		     int64_t primary_value, const union gpm_trace_value *values)
{
	Packet p = GPUPERF__PERFETTO__TRACE_PACKET__INIT;
	TrackEvent te = GPUPERF__PERFETTO__TRACK_EVENT__INIT;

	if (!w->window_track)
		return -EINVAL;
	int ret = event_packet(w, &p, &te, w->window_track, GPM_TRACE_CLOCK_GPU,
			       ts);
	for (size_t i = 0; !ret && i < w->n_window_int; i++)
		ret = emit_track_uuid(w, w->window_int_uuids[i]);
	for (size_t i = 0; !ret && i < w->n_window_double; i++)
		ret = emit_track_uuid(w, w->window_double_uuids[i]);
	if (ret)
		return ret;
	size_t ni = 0, nd = 0;
	for (size_t i = 0; i < w->n_window_counters; i++) {
		if (w->window_kinds[i] == GPM_TRACE_COUNTER_INT)
			w->window_ints[ni++] = values[i].i;
		else if (w->window_kinds[i] == GPM_TRACE_COUNTER_FLOAT)
			w->window_doubles[nd++] = float_precision(values[i].d);
		else
			w->window_doubles[nd++] = values[i].d;
	}
	te.has_type = true;
	te.type = GPUPERF__PERFETTO__TRACK_EVENT__TYPE__TYPE_COUNTER;
	te.counter_value_field_case =
		GPUPERF__PERFETTO__TRACK_EVENT__COUNTER_VALUE_FIELD_COUNTER_VALUE;
	te.counter_value = primary_value;
	te.n_extra_counter_values = ni;
	te.extra_counter_values = w->window_ints;
	te.n_extra_double_counter_values = nd;
	te.extra_double_counter_values = w->window_doubles;
	return add_packet(w, &p);
}

int gpm_trace_counter(struct gpm_trace_writer *w, uint64_t track,
		      enum gpm_trace_clock clock, uint64_t ts,
		      union gpm_trace_value value)
{
	Packet p = GPUPERF__PERFETTO__TRACE_PACKET__INIT;
	TrackEvent te = GPUPERF__PERFETTO__TRACK_EVENT__INIT;
	struct gpm_trace_track_info *t = find_track(w, track);

	if (!t || t->kind != TRACK_COUNTER)
		return -EINVAL;
	int ret = event_packet(w, &p, &te, track, clock, ts);
	if (ret)
		return ret;
	te.has_type = true;
	te.type = GPUPERF__PERFETTO__TRACK_EVENT__TYPE__TYPE_COUNTER;
	switch (t->counter_kind) {
	case GPM_TRACE_COUNTER_INT:
		te.counter_value_field_case =
			GPUPERF__PERFETTO__TRACK_EVENT__COUNTER_VALUE_FIELD_COUNTER_VALUE;
		te.counter_value = value.i;
		break;
	case GPM_TRACE_COUNTER_FLOAT:
	case GPM_TRACE_COUNTER_DOUBLE:
		te.counter_value_field_case =
			GPUPERF__PERFETTO__TRACK_EVENT__COUNTER_VALUE_FIELD_DOUBLE_COUNTER_VALUE;
		te.double_counter_value = t->counter_kind == GPM_TRACE_COUNTER_FLOAT ?
					  float_precision(value.d) : value.d;
		break;
	}
	return add_packet(w, &p);
}

static int snapshot(struct gpm_trace_writer *w, bool have_gpu, uint64_t gpu_ns,
		    uint64_t monotonic_ns, bool have_boottime,
		    uint64_t boottime_ns)
{
	Packet p = GPUPERF__PERFETTO__TRACE_PACKET__INIT;
	Gpuperf__Perfetto__ClockSnapshot cs = GPUPERF__PERFETTO__CLOCK_SNAPSHOT__INIT;
	Gpuperf__Perfetto__ClockSnapshot__Clock clocks[3];
	Gpuperf__Perfetto__ClockSnapshot__Clock *ptrs[3];
	const struct {
		uint32_t id;
		uint64_t ts;
	} readings[3] = {
		{ GPM_TRACE_GPU_CLOCK_ID, gpu_ns },
		{ GPUPERF__PERFETTO__BUILTIN_CLOCK__BUILTIN_CLOCK_MONOTONIC, monotonic_ns },
		{ GPUPERF__PERFETTO__BUILTIN_CLOCK__BUILTIN_CLOCK_BOOTTIME, boottime_ns },
	};

	int ret = start_generation(w);
	if (ret)
		return ret;
	size_t n = 0;
	for (size_t i = have_gpu ? 0 : 1; i < (have_boottime ? 3u : 2u); i++) {
		Gpuperf__Perfetto__ClockSnapshot__Clock init =
			GPUPERF__PERFETTO__CLOCK_SNAPSHOT__CLOCK__INIT;
		clocks[n] = init;
		clocks[n].has_clock_id = true;
		clocks[n].clock_id = readings[i].id;
		clocks[n].has_timestamp = true;
		clocks[n].timestamp = readings[i].ts;
		ptrs[n] = &clocks[n];
		n++;
	}
	cs.n_clocks = n;
	cs.clocks = ptrs;
	/* Without BOOTTIME the trace stands on CLOCK_MONOTONIC alone. */
	cs.has_primary_trace_clock = true;
	cs.primary_trace_clock = have_boottime ?
		GPUPERF__PERFETTO__BUILTIN_CLOCK__BUILTIN_CLOCK_BOOTTIME :
		GPUPERF__PERFETTO__BUILTIN_CLOCK__BUILTIN_CLOCK_MONOTONIC;
	p.data_case = GPUPERF__PERFETTO__TRACE_PACKET__DATA_CLOCK_SNAPSHOT;
	p.clock_snapshot = &cs;
	ret = add_packet(w, &p);
	if (!ret) {
		w->have_snapshot |= have_gpu;
		w->have_cpu_snapshot = true;
	}
	return ret;
}

int gpm_trace_clock_snapshot(struct gpm_trace_writer *w, uint64_t gpu_ns,
			     uint64_t monotonic_ns, bool have_boottime,
			     uint64_t boottime_ns)
{
	return snapshot(w, true, gpu_ns, monotonic_ns, have_boottime,
			boottime_ns);
}

int gpm_trace_cpu_clock_snapshot(struct gpm_trace_writer *w,
				 uint64_t monotonic_ns, bool have_boottime,
				 uint64_t boottime_ns)
{
	return snapshot(w, false, 0, monotonic_ns, have_boottime, boottime_ns);
}
