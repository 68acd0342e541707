/*
 * A device's flight recorder: the newest raw records of its stream, kept
 * in a ring of fixed size, so that the recent past can be handed out after
 * something happened (gpd_snapshot_take() in snapshot.h).
 *
 * The ring holds whole records as the kernel framed them (SAMPLE,
 * REPORT_LOST, BUFFER_LOST), the timestamp correlation points that place
 * them in time (IGT's TIMESTAMP_CORRELATION records: one before a
 * segment's first report, then one every correlation interval of GPU
 * time), and a marker where each segment begins. A segment is one stream
 * configuration: it begins when the stream opens, when a controller
 * changes its metric set or period, and when the stream starts over; its
 * descriptor says what it ran, so each segment decodes on its own.
 *
 * Records are stored whole and never split across the ring's end. The
 * oldest ones make room for new ones, and what the ring lets go of is
 * counted. The ring allocates its memory once, when it is made; pages are
 * touched only as it fills.
 */
#ifndef GPD_FLIGHT_RECORDER_H
#define GPD_FLIGHT_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics/oa_format.h"
#include "metrics/oa_record.h"

/* The smallest ring: making room for any record (64 KiB at most) and the
 * padding before it never empties it. */
#define GPD_FLIGHT_RECORDER_MIN_BYTES (256u << 10)
/* Segments the ring describes at once; making one more lets go of the
 * oldest segment's records. */
#define GPD_FLIGHT_RECORDER_MAX_SEGMENTS 64

/* Record types of the ring's own, never written to a file. IGT's reader
 * would skip them; gpuperf's types live at 0x6770xxxx. */
#define GPD_RING_RECORD_SEGMENT 0x67700100u
#define GPD_RING_RECORD_PAD 0x67700101u

struct gpd_ring_segment {
	uint64_t id;
	uint64_t start;                 /* ring position of its marker */
	char metric_set[128];           /* symbol */
	char guid[40];
	unsigned exponent;
	uint64_t period_ns;
	/* The OA unit that wrote its reports: their layout and the clock of
	 * their timestamps (a media set's OAM unit has its own of both). */
	const struct gpm_oa_format *format;
	uint64_t timestamp_frequency;   /* Hz */
};

struct gpd_flight_recorder_stats {
	uint64_t capacity;              /* bytes */
	uint64_t used;                  /* bytes held now */
	/* Let go of to make room: SAMPLE, REPORT_LOST and BUFFER_LOST
	 * records, the reports among them, and the bytes of every record. */
	uint64_t records_overwritten;
	uint64_t reports_overwritten;
	uint64_t bytes_overwritten;
	uint64_t segments;              /* begun since the ring was made */
	uint64_t reports;               /* SAMPLE records taken */
	/* The time it holds: from the correlation point before its oldest
	 * record (the one it let go of last, else its first) to its newest
	 * one, in CLOCK_MONOTONIC ns, so to a correlation interval. */
	uint64_t held_ns;
	/* The time it was sized to hold (--flight-recorder DURATION); 0 when
	 * it was given in bytes. */
	uint64_t asked_ns;
};

struct gpd_flight_recorder {
	unsigned char *buf;
	uint64_t capacity;              /* a multiple of 8 */
	/* Positions count every byte ever stored; the byte at position p
	 * lies at buf[p % capacity]. The oldest record is at head. */
	uint64_t head, tail;
	struct gpd_ring_segment segments[GPD_FLIGHT_RECORDER_MAX_SEGMENTS];
	unsigned first_segment, n_segments;     /* oldest, how many */
	uint64_t next_segment_id;
	bool in_segment;                /* records go to the newest segment */
	uint64_t correlation_ticks;     /* GPU time between correlations */
	bool correlated;                /* the newest segment has one */
	uint64_t last_correlation_ts;   /* its extended ticks */
	/* CLOCK_MONOTONIC of the correlation point that starts what it holds,
	 * and of its newest; 0 before the first. */
	uint64_t oldest_cpu_ns, newest_cpu_ns;
	struct gpd_flight_recorder_stats stats;
};

/* capacity: bytes (rounded down to a multiple of 8), at least
 * GPD_FLIGHT_RECORDER_MIN_BYTES; correlation_ticks: GPU timestamp ticks
 * between correlation points. -EINVAL or -ENOMEM. */
int gpd_flight_recorder_init(struct gpd_flight_recorder *fr, uint64_t capacity,
			     uint64_t correlation_ticks);

void gpd_flight_recorder_fini(struct gpd_flight_recorder *fr);

/* What the stream streams changed or started over: the next record
 * begins a new segment. */
void gpd_flight_recorder_end_segment(struct gpd_flight_recorder *fr);

/* True when records now need a segment begun first. */
static inline bool gpd_flight_recorder_needs_segment(const struct gpd_flight_recorder *fr)
{
	return !fr->in_segment;
}

/* Begins a segment of the configuration given (set and guid are copied),
 * whose reports come from a unit of that format and clock. */
void gpd_flight_recorder_begin_segment(struct gpd_flight_recorder *fr,
				       const char *metric_set, const char *guid,
				       unsigned exponent, uint64_t period_ns,
				       const struct gpm_oa_format *format,
				       uint64_t timestamp_frequency);

/* True when a report at extended ticks ts needs a correlation point
 * before it: the segment's first, or the interval since the last. */
static inline bool gpd_flight_recorder_needs_correlation(const struct gpd_flight_recorder *fr,
							 uint64_t ts)
{
	return !fr->correlated || ts - fr->last_correlation_ts >= fr->correlation_ticks;
}

/* A correlation point: CLOCK_MONOTONIC cpu_ns at extended ticks ts;
 * gpu_timestamp is ts in the reports' timestamp field's units. */
void gpd_flight_recorder_correlate(struct gpd_flight_recorder *fr, uint64_t ts,
				   uint64_t cpu_ns, uint64_t gpu_timestamp);

/* A kernel record (header included), stored as it is. */
void gpd_flight_recorder_append(struct gpd_flight_recorder *fr,
				const void *record, size_t size);

/* The record at *pos (from head, before tail), padding passed over, and
 * *pos past it; false at tail. The payload points into the ring and stays
 * valid until the ring next stores something. */
bool gpd_flight_recorder_next(const struct gpd_flight_recorder *fr,
			      uint64_t *pos, struct gpm_oa_record *rec);

/* The descriptor of segment id; NULL when the ring no longer holds it. */
const struct gpd_ring_segment *
gpd_flight_recorder_segment(const struct gpd_flight_recorder *fr, uint64_t id);

/* The segment id of a GPD_RING_RECORD_SEGMENT record. */
uint64_t gpd_flight_recorder_segment_id(const struct gpm_oa_record *rec);

#endif
