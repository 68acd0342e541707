/*
 * Perfetto traces, written as they go: tracks and events in, the bytes of
 * a `.perfetto-trace` (Perfetto's protobuf Trace) out, handed to a write
 * function a chunk at a time.
 *
 * A writer writes one packet sequence; two writers may write into one
 * trace, each a chunk at a time (the daemon's recordings: counters and
 * contexts on one sequence, usage on another). A sequence's events are
 * timestamped on the GPU's clock, in ns, as a clock of the sequence's own
 * (Perfetto's clocks 64..127), or, where asked, on CLOCK_MONOTONIC
 * (values the daemon takes on the CPU's time); clock snapshots relate
 * that clock to CLOCK_MONOTONIC and, where known, CLOCK_BOOTTIME,
 * Perfetto's trace clock. A reader maps each event
 * through the snapshot before it, so snapshots taken every second or so
 * keep the GPU's drift against the CPU out of the picture. No timestamped
 * event may come before the first snapshot: Perfetto cannot place it.
 *
 * Tracks are declared up front (gpm_trace_track and friends) and written
 * only before their first event, so a trace names exactly what it shows.
 * Event names and argument names are interned: each string goes out once,
 * then as a small number. A window of counter values is one packet: the
 * counters' tracks are listed once in the sequence's defaults, and each
 * window carries only its values. Packets are gathered into chunks of at
 * most GPM_TRACE_CHUNK_SIZE bytes, deflated, and written as one packet
 * each (Perfetto's compressed_packets), so a long capture costs a few
 * bytes a value and memory stays flat however long it runs.
 *
 * Changing the window's counters (gpm_trace_set_window_counters after the
 * first window) starts a new generation of the sequence's incremental
 * state: interned strings and track descriptors go out again before their
 * next use, as Perfetto requires.
 *
 * The writer allocates its buffers and tables in gpm_trace_writer_init and
 * as tracks are declared; gpm_trace_writer_fini frees them.
 */
#ifndef GPM_TRACE_WRITER_H
#define GPM_TRACE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Uncompressed bytes gathered before a chunk is deflated and written. */
#define GPM_TRACE_CHUNK_SIZE (128 * 1024)

/* The most tracks one trace declares; gpm_trace_track answers 0 after. */
#define GPM_TRACE_MAX_TRACKS 4096

/* Tracks of other sequences one writer's tracks may be under. */
#define GPM_TRACE_MAX_PARENTS_ELSEWHERE 4

/* Arguments one event carries at most. */
#define GPM_TRACE_MAX_ARGS 64

/* The clock id of the GPU clock on our sequence. */
#define GPM_TRACE_GPU_CLOCK_ID 64

/* The clock an event's time is on. */
enum gpm_trace_clock {
	GPM_TRACE_CLOCK_GPU,            /* the GPU's: every event's but these */
	GPM_TRACE_CLOCK_MONOTONIC,      /* the snapshots' CLOCK_MONOTONIC */
};

/* Writes len bytes of the trace; 0, or a negative errno that fails the
 * writer for good. */
typedef int (*gpm_trace_write_fn)(void *ctx, const void *data, size_t len);

enum gpm_trace_counter_kind {
	GPM_TRACE_COUNTER_INT,          /* values are int64 */
	GPM_TRACE_COUNTER_DOUBLE,
	/* Doubles written at float's precision (a counter the metric file
	 * declares float); those float cannot hold are written whole. */
	GPM_TRACE_COUNTER_FLOAT,
};

/* A counter track's unit: Perfetto's own for time, counts and sizes, a
 * name for anything else. */
struct gpm_trace_unit {
	enum {
		GPM_TRACE_UNIT_NAMED,
		GPM_TRACE_UNIT_TIME_NS,
		GPM_TRACE_UNIT_COUNT,
		GPM_TRACE_UNIT_BYTES,
	} kind;
	const char *name;               /* NAMED: "percent", "hz"; NULL none */
};

enum gpm_trace_arg_type {
	GPM_TRACE_ARG_UINT,
	GPM_TRACE_ARG_INT,
	GPM_TRACE_ARG_DOUBLE,
	GPM_TRACE_ARG_STRING,
};

/* A name = value pair an event carries (Perfetto's debug annotations,
 * "args" in its UI and SQL). */
struct gpm_trace_arg {
	const char *name;
	enum gpm_trace_arg_type type;
	union {
		uint64_t u;
		int64_t i;
		double d;
		const char *s;
	};
};

/* One counter's value in a window, of its track's kind. */
union gpm_trace_value {
	int64_t i;
	double d;
};

struct gpm_trace_track_info;
struct gpm_trace_intern;

struct gpm_trace_writer {
	/* private */
	gpm_trace_write_fn write;
	void *ctx;
	int failed;                     /* sticky negative errno */
	uint32_t sequence_id;
	uint64_t uuid_base;
	unsigned generation;            /* of the incremental state, from 1 */
	bool generation_started;        /* its first packet is out */
	bool have_snapshot;             /* of the GPU's clock */
	bool have_cpu_snapshot;         /* of CLOCK_MONOTONIC, any */

	size_t n_tracks;
	struct gpm_trace_track_info *tracks;
	/* Tracks of another sequence that tracks of this one may be under. */
	uint64_t elsewhere[GPM_TRACE_MAX_PARENTS_ELSEWHERE];
	size_t n_elsewhere;
	struct gpm_trace_intern *interned;
	size_t n_interned, cap_interned;
	uint64_t next_event_name_iid, next_arg_name_iid;

	/* The window's layout: its primary track, then extra tracks. */
	uint64_t window_track;
	size_t n_window_counters;
	uint64_t *window_int_uuids, *window_double_uuids;
	size_t n_window_int, n_window_double;
	enum gpm_trace_counter_kind *window_kinds;
	int64_t *window_ints;
	double *window_doubles;
	bool defaults_written;          /* in this generation */

	unsigned char *chunk;
	size_t chunk_used;
	unsigned char *packet;          /* one packet being packed */
	size_t packet_cap;
	unsigned char *deflated;
	size_t deflated_cap;
	void *zstream;
	uint64_t bytes_out;
};

/*
 * Sets w up to write through write(ctx, ...). identity picks the
 * sequence id and the track uuids: traces of different devices or
 * captures should be given different ones, so that several of ours merge
 * with each other and with a system trace without clashing; the same data
 * should give the same one. 0 or -ENOMEM.
 */
int gpm_trace_writer_init(struct gpm_trace_writer *w, uint64_t identity,
			  gpm_trace_write_fn write, void *ctx);

/* Frees what the writer holds; does not flush. */
void gpm_trace_writer_fini(struct gpm_trace_writer *w);

/*
 * Declares a track under parent (0: a root track) and returns its uuid,
 * or 0 when GPM_TRACE_MAX_TRACKS are declared or memory ran out. rank
 * orders it among its siblings where the parent asked for explicit order.
 * The strings are copied.
 */
uint64_t gpm_trace_track(struct gpm_trace_writer *w, uint64_t parent,
			 const char *name, const char *description, int rank);

/*
 * Lets uuid, a track that another sequence of the same trace describes
 * (another writer writing into the same file), be the parent of tracks
 * declared here: Perfetto's track uuids are the trace's, not a
 * sequence's. 0, or -ENOSPC past GPM_TRACE_MAX_PARENTS_ELSEWHERE.
 */
int gpm_trace_parent_elsewhere(struct gpm_trace_writer *w, uint64_t uuid);

/* A track whose children are shown in the order of their ranks. */
uint64_t gpm_trace_ordered_track(struct gpm_trace_writer *w, uint64_t parent,
				 const char *name, const char *description,
				 int rank);

/* A counter track: values of kind, in unit. */
uint64_t gpm_trace_counter_track(struct gpm_trace_writer *w, uint64_t parent,
				 const char *name, const char *description,
				 int rank, enum gpm_trace_counter_kind kind,
				 struct gpm_trace_unit unit);

/*
 * The tracks a window's values go to: primary, an integer counter track
 * (the window's own count, say), then counters[0..n-1] in the order
 * gpm_trace_window takes their values. -EINVAL for a track that is not a
 * counter track, -ENOMEM.
 */
int gpm_trace_set_window_counters(struct gpm_trace_writer *w, uint64_t primary,
				  const uint64_t *counters, size_t n);

/* A window's values at ts: primary_value, then one per counter as set. */
int gpm_trace_window(struct gpm_trace_writer *w, uint64_t ts,
		     int64_t primary_value, const union gpm_trace_value *values);

/* Relates the GPU clock to CLOCK_MONOTONIC and, when have_boottime, to
 * CLOCK_BOOTTIME (then the trace's clock), at one instant. */
int gpm_trace_clock_snapshot(struct gpm_trace_writer *w, uint64_t gpu_ns,
			     uint64_t monotonic_ns, bool have_boottime,
			     uint64_t boottime_ns);

/* Relates CLOCK_MONOTONIC to CLOCK_BOOTTIME alone, before the GPU's time
 * is known: events on CLOCK_MONOTONIC may follow; those on the GPU's
 * clock wait for gpm_trace_clock_snapshot. */
int gpm_trace_cpu_clock_snapshot(struct gpm_trace_writer *w,
				 uint64_t monotonic_ns, bool have_boottime,
				 uint64_t boottime_ns);

/* Whether a clock snapshot of the GPU's clock has been written: events on
 * it may follow. */
bool gpm_trace_clock_known(const struct gpm_trace_writer *w);

int gpm_trace_slice_begin(struct gpm_trace_writer *w, uint64_t track,
			  uint64_t ts, const char *name,
			  const struct gpm_trace_arg *args, size_t n_args);
int gpm_trace_slice_end(struct gpm_trace_writer *w, uint64_t track,
			uint64_t ts);
int gpm_trace_instant(struct gpm_trace_writer *w, uint64_t track, uint64_t ts,
		      const char *name, const struct gpm_trace_arg *args,
		      size_t n_args);

/* An instant event at ts on clock. */
int gpm_trace_instant_on(struct gpm_trace_writer *w, uint64_t track,
			 enum gpm_trace_clock clock, uint64_t ts,
			 const char *name, const struct gpm_trace_arg *args,
			 size_t n_args);

/* One value of a counter track at ts on clock, of the track's kind: for
 * values that come at a pace of their own, not with the window's. -EINVAL
 * for a track that is not a counter track. */
int gpm_trace_counter(struct gpm_trace_writer *w, uint64_t track,
		      enum gpm_trace_clock clock, uint64_t ts,
		      union gpm_trace_value value);

/* Deflates and writes what is gathered: at the end, or whenever whoever
 * reads the trace as it is written should see it. */
int gpm_trace_flush(struct gpm_trace_writer *w);

/* Bytes handed to the write function so far. */
uint64_t gpm_trace_bytes_written(const struct gpm_trace_writer *w);

#endif
