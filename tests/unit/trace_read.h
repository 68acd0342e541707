/*
 * A trace written by gpm_trace_writer, read back as a reader sees it: the
 * bytes gathered through a write function, their deflated chunks opened,
 * the track descriptors and the events (interned names resolved) listed
 * in order. For suites that check what the trace of something shows.
 */
#ifndef GPM_TEST_TRACE_READ_H
#define GPM_TEST_TRACE_READ_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "metrics/trace_writer.h"
#include "proto/perfetto_trace.pb-c.h"
#include "tests/unit/test_util.h"

struct trace_sink {
	unsigned char *bytes;
	size_t used, cap;
};

/* A gpm_trace_write_fn gathering into a struct trace_sink. */
static inline int trace_sink_write(void *ctx, const void *data, size_t len)
{
	struct trace_sink *s = ctx;
	if (s->used + len > s->cap) {
		s->cap = (s->used + len) * 2;
		s->bytes = realloc(s->bytes, s->cap);
		ck_assert_ptr_nonnull(s->bytes);
	}
	memcpy(s->bytes + s->used, data, len);
	s->used += len;
	return 0;
}

struct trace_track {
	uint64_t uuid, parent;
	char name[128], description[512], unit_name[64];
};

#define TRACE_MAX_ARGS 4

struct trace_event {
	Gpuperf__Perfetto__TrackEvent__Type type;
	uint64_t track, ts;
	char name[128];
	bool has_value;                 /* a counter's own value */
	bool is_double;
	int64_t i;
	double d;
	size_t n_args;
	struct {
		char name[64];
		bool is_string;
		char s[256];
		uint64_t u;
	} args[TRACE_MAX_ARGS];
};

struct trace_read {
	struct trace_track tracks[GPM_TRACE_MAX_TRACKS];
	size_t n_tracks;
	struct trace_event *events;
	size_t n_events, cap_events;
	/* The CLOCK_MONOTONIC time of each clock snapshot, in order. */
	uint64_t snapshot_monotonic[256];
	size_t n_snapshots;
	/* Interned names, by iid: event names, then argument names. */
	char names[2][256][64];
};

static inline void trace_read_descriptor(struct trace_read *r,
					 const Gpuperf__Perfetto__TrackDescriptor *td)
{
	ck_assert_uint_lt(r->n_tracks, GPM_TRACE_MAX_TRACKS);
	struct trace_track *t = &r->tracks[r->n_tracks++];
	*t = (struct trace_track){ .uuid = td->uuid, .parent = td->parent_uuid };
	if (td->static_or_dynamic_name_case ==
	    GPUPERF__PERFETTO__TRACK_DESCRIPTOR__STATIC_OR_DYNAMIC_NAME_NAME)
		snprintf(t->name, sizeof(t->name), "%s", td->name);
	if (td->description)
		snprintf(t->description, sizeof(t->description), "%s",
			 td->description);
	if (td->counter && td->counter->unit_name)
		snprintf(t->unit_name, sizeof(t->unit_name), "%s",
			 td->counter->unit_name);
}

static inline const char *trace_read_name(struct trace_read *r, int kind,
					  uint64_t iid)
{
	ck_assert_uint_lt(iid, 256);
	return r->names[kind][iid];
}

static inline void trace_read_packet(struct trace_read *r,
				     const Gpuperf__Perfetto__TracePacket *p)
{
	if (p->interned_data) {
		const Gpuperf__Perfetto__InternedData *in = p->interned_data;
		for (size_t i = 0; i < in->n_event_names; i++) {
			ck_assert_uint_lt(in->event_names[i]->iid, 256);
			snprintf(r->names[0][in->event_names[i]->iid], 64, "%s",
				 in->event_names[i]->name);
		}
		for (size_t i = 0; i < in->n_debug_annotation_names; i++) {
			ck_assert_uint_lt(in->debug_annotation_names[i]->iid, 256);
			snprintf(r->names[1][in->debug_annotation_names[i]->iid],
				 64, "%s", in->debug_annotation_names[i]->name);
		}
	}
	if (p->data_case == GPUPERF__PERFETTO__TRACE_PACKET__DATA_CLOCK_SNAPSHOT) {
		const Gpuperf__Perfetto__ClockSnapshot *cs = p->clock_snapshot;
		ck_assert_uint_lt(r->n_snapshots, 256);
		for (size_t i = 0; i < cs->n_clocks; i++)
			if (cs->clocks[i]->clock_id ==
			    GPUPERF__PERFETTO__BUILTIN_CLOCK__BUILTIN_CLOCK_MONOTONIC)
				r->snapshot_monotonic[r->n_snapshots] =
					cs->clocks[i]->timestamp;
		r->n_snapshots++;
		return;
	}
	if (p->data_case == GPUPERF__PERFETTO__TRACE_PACKET__DATA_TRACK_DESCRIPTOR) {
		trace_read_descriptor(r, p->track_descriptor);
		return;
	}
	if (p->data_case != GPUPERF__PERFETTO__TRACE_PACKET__DATA_TRACK_EVENT)
		return;
	const Gpuperf__Perfetto__TrackEvent *te = p->track_event;
	if (r->n_events == r->cap_events) {
		r->cap_events = r->cap_events ? 2 * r->cap_events : 64;
		r->events = realloc(r->events, r->cap_events * sizeof(*r->events));
		ck_assert_ptr_nonnull(r->events);
	}
	struct trace_event *e = &r->events[r->n_events++];
	memset(e, 0, sizeof(*e));
	e->type = te->type;
	e->track = te->track_uuid;
	e->ts = p->timestamp;
	if (te->name_field_case == GPUPERF__PERFETTO__TRACK_EVENT__NAME_FIELD_NAME_IID)
		snprintf(e->name, sizeof(e->name), "%s",
			 trace_read_name(r, 0, te->name_iid));
	if (te->counter_value_field_case ==
	    GPUPERF__PERFETTO__TRACK_EVENT__COUNTER_VALUE_FIELD_COUNTER_VALUE) {
		e->has_value = true;
		e->i = te->counter_value;
	} else if (te->counter_value_field_case ==
		   GPUPERF__PERFETTO__TRACK_EVENT__COUNTER_VALUE_FIELD_DOUBLE_COUNTER_VALUE) {
		e->has_value = e->is_double = true;
		e->d = te->double_counter_value;
	}
	for (size_t i = 0; i < te->n_debug_annotations && i < TRACE_MAX_ARGS; i++) {
		const Gpuperf__Perfetto__DebugAnnotation *a = te->debug_annotations[i];
		snprintf(e->args[i].name, sizeof(e->args[i].name), "%s",
			 trace_read_name(r, 1, a->name_iid));
		e->args[i].is_string = a->value_case ==
			GPUPERF__PERFETTO__DEBUG_ANNOTATION__VALUE_STRING_VALUE;
		if (e->args[i].is_string)
			snprintf(e->args[i].s, sizeof(e->args[i].s), "%s",
				 a->string_value);
		else
			e->args[i].u = a->uint_value;
		e->n_args++;
	}
}

/* What the bytes gathered in s hold; trace_read_free() frees it. */
static inline struct trace_read *trace_read(const struct trace_sink *s)
{
	struct trace_read *r = calloc(1, sizeof(*r));
	ck_assert_ptr_nonnull(r);
	Gpuperf__Perfetto__Trace *outer =
		gpuperf__perfetto__trace__unpack(NULL, s->used, s->bytes);
	ck_assert_ptr_nonnull(outer);
	for (size_t i = 0; i < outer->n_packet; i++) {
		Gpuperf__Perfetto__TracePacket *p = outer->packet[i];
		if (p->data_case != GPUPERF__PERFETTO__TRACE_PACKET__DATA_COMPRESSED_PACKETS) {
			trace_read_packet(r, p);
			continue;
		}
		uLongf len = GPM_TRACE_CHUNK_SIZE * 2;
		unsigned char *plain = malloc(len);
		ck_assert_ptr_nonnull(plain);
		ck_assert_int_eq(uncompress(plain, &len, p->compressed_packets.data,
					    p->compressed_packets.len), Z_OK);
		Gpuperf__Perfetto__Trace *inner =
			gpuperf__perfetto__trace__unpack(NULL, len, plain);
		ck_assert_ptr_nonnull(inner);
		for (size_t k = 0; k < inner->n_packet; k++)
			trace_read_packet(r, inner->packet[k]);
		gpuperf__perfetto__trace__free_unpacked(inner, NULL);
		free(plain);
	}
	gpuperf__perfetto__trace__free_unpacked(outer, NULL);
	return r;
}

static inline void trace_read_free(struct trace_read *r)
{
	free(r->events);
	free(r);
}

/* The track uuid describes; the test fails when the trace has none. */
static inline const struct trace_track *trace_track(const struct trace_read *r,
						    uint64_t uuid)
{
	for (size_t i = 0; i < r->n_tracks; i++)
		if (r->tracks[i].uuid == uuid)
			return &r->tracks[i];
	ck_abort_msg("no descriptor for track %llu", (unsigned long long)uuid);
	return NULL;
}

/* The track whose description starts with "key: "; NULL if none. */
static inline const struct trace_track *
trace_track_of_key(const struct trace_read *r, const char *key)
{
	size_t n = strlen(key);
	for (size_t i = 0; i < r->n_tracks; i++)
		if (!strncmp(r->tracks[i].description, key, n) &&
		    r->tracks[i].description[n] == ':')
			return &r->tracks[i];
	return NULL;
}

/* Events named name, in order; their count. */
static inline size_t trace_events_named(const struct trace_read *r,
					const char *name,
					const struct trace_event **out,
					size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n_events; i++)
		if (!strcmp(r->events[i].name, name)) {
			if (n < max)
				out[n] = &r->events[i];
			n++;
		}
	return n;
}

#endif
