/*
 * Recordings: IGT's i915-perf recording format, version 1, as written by
 * `i915-perf-recorder` and read by `i915-perf-reader`.
 *
 * A recording is a flat sequence of records, each starting with the i915
 * perf record header (u32 type, u16 pad, u16 size including the header).
 * The kernel's own records (SAMPLE, OA_REPORT_LOST, OA_BUFFER_LOST) are
 * stored as the perf stream returned them; IGT adds four record types
 * numbered from 1 << 16 so they never collide with the kernel's. All
 * integers are little-endian.
 *
 * The writer streams records to a file descriptor or a FILE *; the reader
 * streams them back from a file through a fixed buffer (or walks a buffer in
 * memory), so neither grows with the length of the recording. Both structs
 * belong to the caller; neither allocates.
 */
#ifndef GPM_RECORDING_H
#define GPM_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "device.h"

#define GPM_RECORDING_VERSION 1

/* IGT's record types (lib/i915/perf_data.h). */
#define GPM_RECORDING_TYPE_VERSION 0x10000u
#define GPM_RECORDING_TYPE_DEVICE_INFO 0x10001u
#define GPM_RECORDING_TYPE_DEVICE_TOPOLOGY 0x10002u
#define GPM_RECORDING_TYPE_TIMESTAMP_CORRELATION 0x10003u
/*
 * gpuperf's own record: CLOCK_MONOTONIC and CLOCK_BOOTTIME read at one
 * instant (struct gpm_recording_clocks, two u64), written next to each
 * correlation point. The correlation points tie the GPU to
 * CLOCK_MONOTONIC; this ties CLOCK_MONOTONIC to CLOCK_BOOTTIME, which
 * keeps counting through suspend and is what Perfetto traces are timed
 * by. IGT's reader skips record types it does not know.
 */
#define GPM_RECORDING_TYPE_CLOCKS 0x67700001u

/* Whole record sizes, header included, that IGT's reader insists on. */
#define GPM_RECORDING_HEADER_SIZE 8
#define GPM_RECORDING_VERSION_SIZE 16
#define GPM_RECORDING_DEVICE_INFO_SIZE 344
#define GPM_RECORDING_CORRELATION_SIZE 24
#define GPM_RECORDING_CLOCKS_SIZE 24
#define GPM_RECORDING_LOST_SIZE 8
/* The header's size field is 16 bits wide. */
#define GPM_RECORDING_MAX_RECORD_SIZE 65535

#define GPM_RECORDING_METRIC_SET_LEN 256
#define GPM_RECORDING_UUID_LEN 40

/*
 * What a recording says about where it was made. The writer takes it for
 * the header records; the reader fills it from them.
 *
 * Of device, a recording carries pci_id, revision, timestamp_frequency,
 * gpu_min_freq, gpu_max_freq (whole Hz below 2^32) and topology. The other
 * fields (graphics_version, eu_threads_count, the xe-era unit counts) are
 * properties of the platform: the reader leaves them 0 for the caller to
 * fill from the platform table, and the writer ignores them.
 */
struct gpm_recording_info {
	uint32_t version;               /* 0 when the file has no VERSION record */
	struct gpm_device_info device;
	uint32_t engine_class;          /* IGT writes 0 (render) */
	uint32_t engine_instance;
	uint32_t oa_format;             /* enum drm_i915_oa_format of the stream */
	char metric_set[GPM_RECORDING_METRIC_SET_LEN];  /* symbol, e.g. RenderBasic */
	char uuid[GPM_RECORDING_UUID_LEN];              /* hw config GUID */
	/* Reader only: the bytes of report every SAMPLE carries: the size of
	 * oa_format's reports, or where the format is unknown, of the first
	 * SAMPLE's; 0 until known. */
	uint32_t report_size;
};

/* One CPU/GPU clock correlation point. */
struct gpm_recording_correlation {
	uint64_t cpu_ns;                /* CLOCK_MONOTONIC unless recorded otherwise */
	uint64_t gpu_timestamp;         /* full-width GPU timestamp register */
};

/* CLOCK_MONOTONIC and CLOCK_BOOTTIME at one instant. */
struct gpm_recording_clocks {
	uint64_t monotonic_ns;
	uint64_t boottime_ns;
};

/*
 * Problems found in a recording, or met while writing one. Functions
 * return a negative errno (-EBADMSG for malformed content, -ENODATA for a
 * truncated file, -ENOTSUP for another format version, -EINVAL for bad
 * arguments, an I/O errno otherwise) and fill a struct gpm_recording_error
 * with the byte offset of the record at fault and a sentence for the user.
 */
enum gpm_recording_errc {
	GPM_RECORDING_OK = 0,
	GPM_RECORDING_ERR_IO,           /* read or write failed */
	GPM_RECORDING_ERR_BAD_SIZE,     /* size field below the 8-byte header */
	GPM_RECORDING_ERR_TRUNCATED,    /* the file ends inside a record */
	GPM_RECORDING_ERR_RECORD_SIZE,  /* a known record type of the wrong size */
	GPM_RECORDING_ERR_VERSION,      /* VERSION other than 1 */
	GPM_RECORDING_ERR_NO_DEVICE_INFO,       /* sample before DEVICE_INFO */
	GPM_RECORDING_ERR_NO_TOPOLOGY,  /* sample before DEVICE_TOPOLOGY */
	GPM_RECORDING_ERR_DEVICE_INFO,  /* DEVICE_INFO contents invalid */
	GPM_RECORDING_ERR_TOPOLOGY,     /* DEVICE_TOPOLOGY contents invalid */
	GPM_RECORDING_ERR_INCONSISTENT, /* a repeated header record differs */
	GPM_RECORDING_ERR_ARGUMENT,     /* the caller asked for something invalid */
	GPM_RECORDING_ERR_NOT_RECORDING,        /* the file does not start with
						 * a record of the format */
};

struct gpm_recording_error {
	enum gpm_recording_errc code;
	/* Byte offset of the record at fault, or GPM_RECORDING_NO_OFFSET for
	 * failures tied to no record (opening the file, say). */
	uint64_t offset;
	char message[192];              /* "offset 1234: record size 0 ..." */
};

#define GPM_RECORDING_NO_OFFSET UINT64_MAX

/* ------------------------------------------------------------------ */
/* Writer                                                               */

/*
 * Records are collected in the writer's buffer and handed to the fd or
 * FILE * only as whole records, so a file cut off at any moment (the
 * process killed, the disk full aside) ends on a record boundary and stays
 * readable. The buffer goes out when the next record would not fit, after
 * the header records and every correlation point (IGT's recorder writes
 * one per second, which bounds what a crash loses), with
 * GPM_RECORDING_WRITE_THROUGH after every record, and on
 * gpm_recording_writer_flush(). A FILE * is fflush()ed each time, so its
 * own buffer never holds part of a record.
 *
 * IGT's i915-perf-reader crashes on recordings with no SAMPLE or fewer
 * than two correlation points; write a point before the first sample and
 * one after the last, as its recorder does.
 */
#define GPM_RECORDING_WRITER_BUFFER_SIZE 65536

enum gpm_recording_writer_flags {
	GPM_RECORDING_WRITE_THROUGH = 1 << 0,   /* flush after every record */
	/* No header records: the records go to a reader told the device
	 * otherwise (gpm_oa_trace), so devices whose reports or topology
	 * IGT's header cannot state are recorded too. */
	GPM_RECORDING_RECORDS_ONLY = 1 << 1,
};

struct gpm_recording_writer {
	/* private */
	int fd;
	FILE *file;
	unsigned flags;
	int failed;                     /* sticky negative errno */
	bool header_written;
	uint32_t report_size;           /* every SAMPLE's; 0 until known */
	bool have_correlation;
	struct gpm_recording_correlation last_correlation;
	uint64_t offset;                /* bytes accepted so far */
	size_t used;
	unsigned char buffer[GPM_RECORDING_WRITER_BUFFER_SIZE];
};

/* Writes to fd (not closed by the writer). flags: enum
 * gpm_recording_writer_flags. */
void gpm_recording_writer_init_fd(struct gpm_recording_writer *w, int fd,
				  unsigned flags);
/* Writes to file (not closed by the writer). */
void gpm_recording_writer_init_file(struct gpm_recording_writer *w,
				    FILE *file, unsigned flags);

/*
 * Writes VERSION, DEVICE_INFO and DEVICE_TOPOLOGY from info (version and
 * report_size are ignored), then flushes. Must come first and only once.
 * -EINVAL when metric_set or uuid do not fit their fields with a NUL, the
 * frequencies do not fit 32 bits, or the topology cannot be encoded.
 */
int gpm_recording_write_header(struct gpm_recording_writer *w,
			       const struct gpm_recording_info *info,
			       struct gpm_recording_error *err);

/* One TIMESTAMP_CORRELATION record, as given; then flushes. */
int gpm_recording_write_correlation(struct gpm_recording_writer *w,
				    const struct gpm_recording_correlation *c,
				    struct gpm_recording_error *err);

/*
 * Like gpm_recording_write_correlation, but first bridges every 2^32-tick
 * GPU epoch edge between the previous correlation point written and c
 * with two points, at GPU time E:0xffffffff and (E+1):0x00000000, their CPU
 * times interpolated between the two. IGT's reader matches an OA report's
 * 32-bit timestamp against the low 32 bits of consecutive correlation
 * points and aborts when no pair encloses it, which happens to reports
 * recorded after a wrap unless such points exist. A report timestamped
 * exactly 0xffffffff stays uncoverable. -ERANGE (nothing written) when
 * the two points are more than 256 epochs apart: they cannot come from
 * one clock.
 */
int gpm_recording_write_correlation_bridged(
	struct gpm_recording_writer *w,
	const struct gpm_recording_correlation *c,
	struct gpm_recording_error *err);

/* One CLOCKS record, as given. */
int gpm_recording_write_clocks(struct gpm_recording_writer *w,
			       const struct gpm_recording_clocks *c,
			       struct gpm_recording_error *err);

/* A SAMPLE record holding one raw report of size bytes: the size of the
 * header's oa_format, or where that format is unknown, of the first
 * sample. */
int gpm_recording_write_sample(struct gpm_recording_writer *w,
			       const void *report, size_t size,
			       struct gpm_recording_error *err);

/* The kernel's OA_REPORT_LOST / OA_BUFFER_LOST markers. */
int gpm_recording_write_report_lost(struct gpm_recording_writer *w,
				    struct gpm_recording_error *err);
int gpm_recording_write_buffer_lost(struct gpm_recording_writer *w,
				    struct gpm_recording_error *err);

/* Any record: type, then payload of size bytes (0 allowed). Kernel record
 * types are checked as the dedicated functions check them. */
int gpm_recording_write_record(struct gpm_recording_writer *w, uint32_t type,
			       const void *payload, size_t size,
			       struct gpm_recording_error *err);

/* Hands everything buffered to the fd or FILE *. */
int gpm_recording_writer_flush(struct gpm_recording_writer *w,
			       struct gpm_recording_error *err);

/* Bytes written so far, buffered ones included: the offset the next
 * record will have. */
uint64_t gpm_recording_writer_offset(const struct gpm_recording_writer *w);

/* ------------------------------------------------------------------ */
/* Reader                                                               */

/* What gpm_recording_reader_next yields, in file order. Header records
 * (VERSION, DEVICE_INFO, DEVICE_TOPOLOGY) are checked and passed over;
 * records of unknown types are skipped and counted. */
enum gpm_recording_kind {
	GPM_RECORDING_END = 0,          /* no more records */
	GPM_RECORDING_SAMPLE,           /* data/size: the raw report */
	GPM_RECORDING_REPORT_LOST,
	GPM_RECORDING_BUFFER_LOST,
	GPM_RECORDING_CORRELATION,      /* correlation is set */
	GPM_RECORDING_CLOCKS,           /* clocks is set */
};

struct gpm_recording_record {
	enum gpm_recording_kind kind;
	uint64_t offset;                /* of the record header in the file */
	/* SAMPLE: the report, valid until the next call on the reader. */
	const unsigned char *data;
	size_t size;
	/* SAMPLE: how many reports, each size bytes, lie stride bytes apart
	 * from data on: 1 from _next, maybe more from _next_samples. */
	size_t count;
	size_t stride;
	struct gpm_recording_correlation correlation;
	struct gpm_recording_clocks clocks;
};

/* Running totals of what the reader has passed so far. */
struct gpm_recording_stats {
	uint64_t samples;
	uint64_t reports_lost;
	uint64_t buffers_lost;
	uint64_t correlations;
	uint64_t unknown_records;
	uint64_t bytes;                 /* consumed, up to the last whole record */
};

/* Enough for the largest possible record, so one always fits. */
#define GPM_RECORDING_READER_BUFFER_SIZE 65536

/*
 * A recording whose bytes the caller hands over a stretch at a time, for
 * one read some other way than by the reader itself (by another thread
 * ahead of it, say).
 */
struct gpm_recording_source {
	uint64_t size;                  /* of the recording */
	/*
	 * Points *data at the recording's bytes from offset on and returns
	 * how many are there: at least GPM_RECORDING_READER_BUFFER_SIZE, or
	 * every byte left when fewer are, and fewer only where the file
	 * shrank. They stay put until the next call. A negative errno when
	 * they cannot be read.
	 */
	ssize_t (*fetch)(void *ctx, uint64_t offset, const unsigned char **data);
	void *ctx;
};

struct gpm_recording_reader {
	struct gpm_recording_info info;         /* read-only, set by open */
	struct gpm_recording_stats stats;       /* read-only */
	/* private */
	int fd;
	bool owns_fd;
	const unsigned char *memory;    /* in-memory recording, or NULL */
	struct gpm_recording_source source;     /* fetch NULL: none */
	uint64_t size;                  /* of the recording */
	uint64_t offset;                /* of the next record */
	/* The bytes at hand: window, or the source's last stretch. */
	const unsigned char *span;
	uint64_t window_offset;         /* file offset of span[0] */
	size_t window_len;
	bool have_device_info;
	bool have_topology;
	unsigned char device_info_raw[336];     /* to compare repeats with */
	const char *report_format;      /* name of oa_format, NULL if unknown */
	int failed;                     /* sticky negative errno */
	struct gpm_recording_error error;       /* what failed */
	unsigned char window[GPM_RECORDING_READER_BUFFER_SIZE];
};

/*
 * Opens a recording and reads its header: every record up to the first
 * SAMPLE / REPORT_LOST / BUFFER_LOST (or the end) is checked, and the
 * VERSION, DEVICE_INFO and DEVICE_TOPOLOGY found there fill r->info.
 * Fails with err filled when the file is malformed there or lacks device
 * info or topology. _open takes a path and closes the file in _close;
 * _open_fd reads a regular file (or memfd) with pread and leaves fd open;
 * _open_memory walks size bytes at data, which must outlive the reader;
 * _open_source takes the bytes from source, which must outlive it too.
 */
int gpm_recording_reader_open(struct gpm_recording_reader *r,
			      const char *path,
			      struct gpm_recording_error *err);
int gpm_recording_reader_open_fd(struct gpm_recording_reader *r, int fd,
				 struct gpm_recording_error *err);
int gpm_recording_reader_open_memory(struct gpm_recording_reader *r,
				     const void *data, size_t size,
				     struct gpm_recording_error *err);
int gpm_recording_reader_open_source(struct gpm_recording_reader *r,
				     const struct gpm_recording_source *source,
				     struct gpm_recording_error *err);

/*
 * The next sample, loss marker or correlation point in file order, from
 * the start of the file. Returns 0 with rec filled (rec->kind is
 * GPM_RECORDING_END after the last record), or a negative errno with err
 * filled; after an error every call fails the same way.
 */
int gpm_recording_reader_next(struct gpm_recording_reader *r,
			      struct gpm_recording_record *rec,
			      struct gpm_recording_error *err);

/*
 * As _next, but a SAMPLE comes with the SAMPLEs right behind it that are
 * at hand, up to max reports in all (max >= 1): the same records in the
 * same order, for a fraction of the calls.
 */
int gpm_recording_reader_next_samples(struct gpm_recording_reader *r,
				      struct gpm_recording_record *rec, size_t max,
				      struct gpm_recording_error *err);

/* Starts the iteration over from the beginning of the file. */
void gpm_recording_reader_rewind(struct gpm_recording_reader *r);

/* Closes the file if _open opened it. */
void gpm_recording_reader_close(struct gpm_recording_reader *r);

#endif
