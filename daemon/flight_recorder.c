/*
 * The flight recorder's ring: whole records in, the oldest let go (and
 * counted) to make room, segments described beside it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/flight_recorder.h"
#include "metrics/little_endian.h"
#include "metrics/recording.h"

/* Records lie 8 bytes apart at least, so a gap at the ring's end always
 * holds a padding record's header. */
static uint64_t stored_size(uint64_t size)
{
	return (size + 7) & ~7ull;
}

int gpd_flight_recorder_init(struct gpd_flight_recorder *fr, uint64_t capacity,
			     uint64_t correlation_ticks)
{
	memset(fr, 0, sizeof(*fr));
	capacity &= ~7ull;
	if (capacity < GPD_FLIGHT_RECORDER_MIN_BYTES || capacity > SIZE_MAX / 2)
		return -EINVAL;
	fr->buf = malloc(capacity);
	if (!fr->buf)
		return -ENOMEM;
	fr->capacity = capacity;
	fr->correlation_ticks = correlation_ticks ? correlation_ticks : 1;
	fr->stats.capacity = capacity;
	return 0;
}

void gpd_flight_recorder_fini(struct gpd_flight_recorder *fr)
{
	free(fr->buf);
	fr->buf = NULL;
}

static unsigned char *at(const struct gpd_flight_recorder *fr, uint64_t pos)
{
	return fr->buf + pos % fr->capacity;
}

static void update_held(struct gpd_flight_recorder *fr)
{
	fr->stats.held_ns = fr->newest_cpu_ns > fr->oldest_cpu_ns ?
			    fr->newest_cpu_ns - fr->oldest_cpu_ns : 0;
}

static uint32_t record_type(const unsigned char *p)
{
	return gpm__le32_load(p);
}

static uint64_t record_size(const unsigned char *p)
{
	return gpm__le16_load(p + 6);
}

uint64_t gpd_flight_recorder_segment_id(const struct gpm_oa_record *rec)
{
	return gpm__le64_load(rec->payload);
}

/* Segments older than id hold no record any more. */
static void forget_segments_before(struct gpd_flight_recorder *fr, uint64_t id)
{
	while (fr->n_segments &&
	       fr->segments[fr->first_segment].id < id) {
		fr->first_segment = (fr->first_segment + 1) %
				    GPD_FLIGHT_RECORDER_MAX_SEGMENTS;
		fr->n_segments--;
	}
}

/* Lets go of the oldest record. */
static void evict(struct gpd_flight_recorder *fr)
{
	const unsigned char *p = at(fr, fr->head);
	uint32_t type = record_type(p);
	uint64_t size = stored_size(record_size(p));
	switch (type) {
	case GPM_OA_RECORD_SAMPLE:
		fr->stats.reports_overwritten++;
		/* fallthrough */
	case GPM_OA_RECORD_REPORT_LOST:
	case GPM_OA_RECORD_BUFFER_LOST:
		fr->stats.records_overwritten++;
		break;
	case GPD_RING_RECORD_SEGMENT:
		forget_segments_before(fr, gpm__le64_load(p + 8));
		break;
	case GPM_RECORDING_TYPE_TIMESTAMP_CORRELATION:
		/* What it still holds of the segment came after this point. */
		fr->oldest_cpu_ns = gpm__le64_load(p + GPM_OA_RECORD_HEADER_SIZE);
		update_held(fr);
		break;
	default:
		break;
	}
	if (type != GPD_RING_RECORD_PAD)
		fr->stats.bytes_overwritten += size;
	fr->head += size;
	fr->stats.used = fr->tail - fr->head;
}

/* Room for a record of size bytes at tail, and the padding before it
 * when it would cross the ring's end. */
static unsigned char *reserve(struct gpd_flight_recorder *fr, uint64_t size)
{
	uint64_t need = stored_size(size);
	uint64_t offset = fr->tail % fr->capacity;
	uint64_t gap = offset + need > fr->capacity ? fr->capacity - offset : 0;
	while (fr->tail + gap + need - fr->head > fr->capacity)
		evict(fr);
	if (gap) {
		unsigned char *pad = at(fr, fr->tail);
		gpm__le32_store(pad, GPD_RING_RECORD_PAD);
		gpm__le16_store(pad + 4, 0);
		gpm__le16_store(pad + 6, (uint16_t)gap);
		fr->tail += gap;
	}
	unsigned char *p = at(fr, fr->tail);
	fr->tail += need;
	fr->stats.used = fr->tail - fr->head;
	return p;
}

static void store(struct gpd_flight_recorder *fr, uint32_t type,
		  const void *payload, size_t size)
{
	unsigned char *p = reserve(fr, GPM_OA_RECORD_HEADER_SIZE + size);
	gpm__le32_store(p, type);
	gpm__le16_store(p + 4, 0);
	gpm__le16_store(p + 6, (uint16_t)(GPM_OA_RECORD_HEADER_SIZE + size));
	memcpy(p + GPM_OA_RECORD_HEADER_SIZE, payload, size);
}

void gpd_flight_recorder_end_segment(struct gpd_flight_recorder *fr)
{
	fr->in_segment = false;
	fr->correlated = false;
}

void gpd_flight_recorder_begin_segment(struct gpd_flight_recorder *fr,
				       const char *metric_set, const char *guid,
				       unsigned exponent, uint64_t period_ns,
				       const struct gpm_oa_format *format,
				       uint64_t timestamp_frequency)
{
	/* A full table lets go of the oldest segment, records and all: the
	 * descriptor goes when the next segment's marker does. */
	while (fr->n_segments == GPD_FLIGHT_RECORDER_MAX_SEGMENTS &&
	       fr->head < fr->tail)
		evict(fr);
	unsigned char id[8];
	uint64_t segment_id = fr->next_segment_id++;
	gpm__le64_store(id, segment_id);
	/* The marker is stored first: storing it may let go of segments. */
	store(fr, GPD_RING_RECORD_SEGMENT, id, sizeof(id));
	uint64_t start = fr->tail - stored_size(GPM_OA_RECORD_HEADER_SIZE +
						sizeof(id));
	unsigned slot = (fr->first_segment + fr->n_segments) %
			GPD_FLIGHT_RECORDER_MAX_SEGMENTS;
	if (!fr->n_segments)
		fr->first_segment = slot;
	struct gpd_ring_segment *s = &fr->segments[slot];
	memset(s, 0, sizeof(*s));
	s->id = segment_id;
	s->start = start;
	snprintf(s->metric_set, sizeof(s->metric_set), "%s", metric_set);
	snprintf(s->guid, sizeof(s->guid), "%s", guid ? guid : "");
	s->format = format;
	s->timestamp_frequency = timestamp_frequency;
	s->exponent = exponent;
	s->period_ns = period_ns;
	fr->n_segments++;
	fr->in_segment = true;
	fr->correlated = false;
	fr->stats.segments++;
}

void gpd_flight_recorder_correlate(struct gpd_flight_recorder *fr, uint64_t ts,
				   uint64_t cpu_ns, uint64_t gpu_timestamp)
{
	unsigned char payload[16];
	gpm__le64_store(payload, cpu_ns);
	gpm__le64_store(payload + 8, gpu_timestamp);
	store(fr, GPM_RECORDING_TYPE_TIMESTAMP_CORRELATION, payload, sizeof(payload));
	fr->correlated = true;
	fr->last_correlation_ts = ts;
	if (!fr->oldest_cpu_ns)
		fr->oldest_cpu_ns = cpu_ns;
	fr->newest_cpu_ns = cpu_ns;
	update_held(fr);
}

void gpd_flight_recorder_append(struct gpd_flight_recorder *fr,
				const void *record, size_t size)
{
	const unsigned char *r = record;
	unsigned char *p = reserve(fr, size);
	memcpy(p, r, size);
	if (record_type(r) == GPM_OA_RECORD_SAMPLE)
		fr->stats.reports++;
}

bool gpd_flight_recorder_next(const struct gpd_flight_recorder *fr,
			      uint64_t *pos, struct gpm_oa_record *rec)
{
	for (;;) {
		if (*pos >= fr->tail)
			return false;
		const unsigned char *p = at(fr, *pos);
		uint64_t size = record_size(p);
		*pos += stored_size(size);
		rec->type = record_type(p);
		if (rec->type == GPD_RING_RECORD_PAD)
			continue;
		rec->size = size;
		rec->payload = p + GPM_OA_RECORD_HEADER_SIZE;
		rec->payload_size = size - GPM_OA_RECORD_HEADER_SIZE;
		return true;
	}
}

const struct gpd_ring_segment *
gpd_flight_recorder_segment(const struct gpd_flight_recorder *fr, uint64_t id)
{
	for (unsigned i = 0; i < fr->n_segments; i++) {
		const struct gpd_ring_segment *s =
			&fr->segments[(fr->first_segment + i) %
				      GPD_FLIGHT_RECORDER_MAX_SEGMENTS];
		if (s->id == id)
			return s;
	}
	return NULL;
}
