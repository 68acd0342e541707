/*
 * Snapshots of a flight recorder, as IGT recordings: one walk over the
 * ring, writing each segment's reports of the span as they come.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/device.h"
#include "daemon/snapshot.h"
#include "metrics/little_endian.h"
#include "metrics/oa_record.h"
#include "metrics/oa_report.h"
#include "metrics/oa_timestamp.h"
#include "metrics/recording.h"

/* A recording's header records (VERSION, DEVICE_INFO, the largest
 * topology), its first and last correlation points and a BUFFER_LOST fit
 * here; epoch bridges are two points per 2^32 ticks. */
#define SEGMENT_OVERHEAD 4096u
#define BRIDGE_SLACK 65536u

/* The snapshot's bytes, in one allocation sized for the worst case. */
struct out {
	unsigned char *data;
	size_t len, cap;
};

static ssize_t out_write(void *cookie, const char *buf, size_t size)
{
	struct out *o = cookie;
	if (size > o->cap - o->len)
		return -1;
	memcpy(o->data + o->len, buf, size);
	o->len += size;
	return (ssize_t)size;
}

/* Where the walk is in one segment of the ring. */
struct walk {
	const struct gpd_device *dev;
	uint64_t from, to;
	struct out out;
	FILE *file;
	struct gpm_recording_writer *writer;
	struct gpd_snapshot *snap;
	size_t cap_segments;
	int failed;                     /* a negative errno */

	const struct gpd_ring_segment *segment; /* NULL: none known */
	/* Its unit's report layout and clock (the device's where the
	 * segment is unknown). */
	struct gpm_oa_decoder decoder;
	struct gpm_device_info unit;
	bool start_evicted;             /* its marker is gone */
	bool seen_before_from;          /* a report of it lies before from */
	bool past_to;                   /* a report of it lies after to */
	bool correlated;
	struct gpm_recording_correlation correlation;   /* the latest */
	uint64_t correlation_ts;        /* its extended ticks */
	bool correlation_written;
	struct gpm_oa_ts_extender ts;
	struct gpd_snapshot_segment *open;      /* being written, or NULL */
	uint64_t last_ts;
	uint64_t held_oldest, held_newest;      /* CPU times of every report
						 * the ring can place */
};

static uint64_t mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	return c ? (uint64_t)((unsigned __int128)a * b / c) : 0;
}

/* The CPU time of extended ticks ts, from the latest correlation point. */
static uint64_t cpu_time(const struct walk *w, uint64_t ts)
{
	uint64_t freq = w->unit.timestamp_frequency;
	if (ts >= w->correlation_ts)
		return w->correlation.cpu_ns +
		       mul_div(ts - w->correlation_ts, 1000000000ull, freq);
	uint64_t back = mul_div(w->correlation_ts - ts, 1000000000ull, freq);
	return back < w->correlation.cpu_ns ? w->correlation.cpu_ns - back : 0;
}

static void fail(struct walk *w, int code)
{
	if (!w->failed)
		w->failed = code;
}

static void check(struct walk *w, int ret)
{
	if (ret < 0)
		fail(w, ret);
}

static void write_correlation(struct walk *w, uint64_t ts, uint64_t cpu_ns)
{
	struct gpm_recording_correlation c = {
		.cpu_ns = cpu_ns,
		.gpu_timestamp = gpm_device_cs_ticks(&w->unit, ts),
	};
	check(w, gpm_recording_write_correlation_bridged(w->writer, &c, NULL));
}

static struct gpd_snapshot_segment *add_segment(struct walk *w)
{
	struct gpd_snapshot *s = w->snap;
	if (s->n_segments == w->cap_segments) {
		size_t cap = w->cap_segments ? 2 * w->cap_segments : 4;
		struct gpd_snapshot_segment *seg =
			realloc(s->segments, cap * sizeof(*seg));
		if (!seg) {
			fail(w, -ENOMEM);
			return NULL;
		}
		s->segments = seg;
		w->cap_segments = cap;
	}
	struct gpd_snapshot_segment *seg = &s->segments[s->n_segments++];
	memset(seg, 0, sizeof(*seg));
	return seg;
}

/* The first report of the segment in the span: the recording begins. */
static void open_recording(struct walk *w)
{
	struct gpd_snapshot_segment *seg = add_segment(w);
	if (!seg)
		return;
	const struct gpd_ring_segment *rs = w->segment;
	snprintf(seg->metric_set, sizeof(seg->metric_set), "%s", rs->metric_set);
	seg->period_ns = rs->period_ns;
	seg->offset = w->out.len;
	/* The span reaches back past what the ring kept of the segment. */
	seg->truncated = w->start_evicted && !w->seen_before_from;
	w->open = seg;

	struct gpm_recording_info info;
	gpd_device_recording_info(w->dev, rs->metric_set, rs->guid, &info);
	/* The header says what wrote the reports: a media set's OAM unit
	 * has its own format and clock. */
	info.device = w->unit;
	info.oa_format = w->decoder.format->i915_format;
	gpm_recording_writer_init_file(w->writer, w->file, 0);
	check(w, gpm_recording_write_header(w->writer, &info, NULL));
	write_correlation(w, w->correlation_ts, w->correlation.cpu_ns);
	w->correlation_written = true;
	if (seg->truncated) {
		check(w, gpm_recording_write_buffer_lost(w->writer, NULL));
		seg->buffers_lost++;
	}
}

/* The segment's recording ends after its last report in the span. */
static void close_recording(struct walk *w)
{
	struct gpd_snapshot_segment *seg = w->open;
	if (!seg)
		return;
	w->open = NULL;
	/* IGT's reader wants every report strictly before a correlation
	 * point. */
	write_correlation(w, w->last_ts + 1, cpu_time(w, w->last_ts + 1));
	check(w, gpm_recording_writer_flush(w->writer, NULL));
	seg->size = w->out.len - seg->offset;
}

static void begin_segment(struct walk *w, const struct gpd_ring_segment *rs,
			  bool start_evicted)
{
	close_recording(w);
	w->segment = rs;
	w->decoder = w->dev->decoder;
	if (rs && rs->format &&
	    gpm_oa_decoder_init(&w->decoder, rs->format,
				w->dev->source->info.graphics_version))
		w->decoder = w->dev->decoder;
	gpd_device_unit_info(w->dev, rs ? rs->timestamp_frequency : 0,
			     &w->unit);
	w->start_evicted = start_evicted;
	w->seen_before_from = false;
	w->past_to = false;
	w->correlated = false;
	w->correlation_written = false;
}

static void on_correlation(struct walk *w, const struct gpm_oa_record *rec)
{
	if (rec->payload_size < 16)
		return;
	w->correlation.cpu_ns = gpm__le64_load(rec->payload);
	w->correlation.gpu_timestamp = gpm__le64_load(rec->payload + 8);
	w->correlation_ts = gpm_device_oa_ticks(&w->unit,
						 w->correlation.gpu_timestamp);
	w->correlated = true;
	w->correlation_written = false;
	gpm_oa_ts_extender_init(&w->ts, w->decoder.ts_mask);
	w->ts.started = true;
	w->ts.last = w->correlation_ts & w->decoder.ts_mask;
	w->ts.extended = w->correlation_ts;
}

static void on_sample(struct walk *w, const struct gpm_oa_record *rec)
{
	const struct gpm_oa_decoder *dec = &w->decoder;
	if (!w->segment || w->past_to ||
	    rec->payload_size < dec->format->size)
		return;
	if (!w->correlated) {
		/* The ring let go of the point that placed it: its time is
		 * unknown, and what follows must not pair with it. */
		w->start_evicted = true;
		return;
	}
	uint64_t ts = gpm_oa_ts_extend(&w->ts, gpm_oa_report_timestamp(dec,
								       rec->payload));
	uint64_t cpu = cpu_time(w, ts);
	if (!w->held_oldest)
		w->held_oldest = cpu;
	w->held_newest = cpu;
	if (cpu < w->from) {
		w->seen_before_from = true;
		return;
	}
	if (w->to && cpu > w->to) {
		w->past_to = true;
		close_recording(w);
		return;
	}
	if (!w->open)
		open_recording(w);
	else if (!w->correlation_written)
		write_correlation(w, w->correlation_ts, w->correlation.cpu_ns);
	w->correlation_written = true;
	if (!w->open || w->failed)
		return;
	check(w, gpm_recording_write_sample(w->writer, rec->payload,
					    rec->payload_size, NULL));
	struct gpd_snapshot_segment *seg = w->open;
	if (!seg->reports)
		seg->cpu_start_ns = cpu;
	seg->cpu_end_ns = cpu;
	seg->reports++;
	w->last_ts = ts;
	struct gpd_snapshot *s = w->snap;
	if (!s->oldest_cpu_ns || cpu < s->oldest_cpu_ns)
		s->oldest_cpu_ns = cpu;
	if (cpu > s->newest_cpu_ns)
		s->newest_cpu_ns = cpu;
}

static void on_loss(struct walk *w, bool buffer_lost)
{
	if (!w->open || w->past_to)
		return;
	if (buffer_lost) {
		check(w, gpm_recording_write_buffer_lost(w->writer, NULL));
		w->open->buffers_lost++;
	} else {
		check(w, gpm_recording_write_report_lost(w->writer, NULL));
		w->open->reports_lost++;
	}
}

size_t gpd_snapshot_bound(const struct gpd_device *dev)
{
	const struct gpd_flight_recorder *fr = dev->ring;
	if (!fr)
		return 0;
	return (size_t)(fr->tail - fr->head) +
	       (size_t)(fr->n_segments + 1) * SEGMENT_OVERHEAD + BRIDGE_SLACK;
}

static void walk_ring(struct walk *w)
{
	const struct gpd_flight_recorder *fr = w->dev->ring;
	/* The oldest records may belong to a segment whose marker is gone. */
	const struct gpd_ring_segment *oldest = fr->n_segments ?
		&fr->segments[fr->first_segment] : NULL;
	begin_segment(w, oldest, oldest && oldest->start < fr->head);
	uint64_t pos = fr->head;
	struct gpm_oa_record rec;
	while (!w->failed && gpd_flight_recorder_next(fr, &pos, &rec)) {
		switch (rec.type) {
		case GPD_RING_RECORD_SEGMENT: {
			uint64_t id = gpd_flight_recorder_segment_id(&rec);
			if (!w->segment || w->segment->id != id)
				begin_segment(w, gpd_flight_recorder_segment(fr, id),
					      false);
			break;
		}
		case GPM_RECORDING_TYPE_TIMESTAMP_CORRELATION:
			on_correlation(w, &rec);
			break;
		case GPM_OA_RECORD_SAMPLE:
			on_sample(w, &rec);
			break;
		case GPM_OA_RECORD_REPORT_LOST:
			on_loss(w, false);
			break;
		case GPM_OA_RECORD_BUFFER_LOST:
			on_loss(w, true);
			break;
		default:
			break;
		}
	}
	close_recording(w);
}

void gpd_snapshot_free(struct gpd_snapshot *s)
{
	free(s->data);
	free(s->segments);
	memset(s, 0, sizeof(*s));
}

static double seconds_ago(uint64_t now, uint64_t t)
{
	return t < now ? (double)(now - t) / 1e9 : 0.0;
}

/* The refusal of a span the ring holds no report of, with what it does
 * hold. */
static int nothing_in_span(const struct gpd_device *dev, const struct walk *w,
			   struct gpd_error *err)
{
	if (!w->held_newest)
		return gpd_fail(err, -ENODATA, "device %s's flight recorder holds "
			    "no report yet: the device has not streamed since "
			    "gpuperfd started (--keep-streaming keeps it "
			    "streaming)", dev->source->name);
	uint64_t now = gpd_monotonic_ns();
	return gpd_fail(err, -ENODATA, "device %s's flight recorder holds no "
		    "report from the span asked for; it holds reports from "
		    "%.3f s to %.3f s ago", dev->source->name,
		    seconds_ago(now, w->held_oldest),
		    seconds_ago(now, w->held_newest));
}

int gpd_snapshot_take(const struct gpd_device *dev, uint64_t from_cpu_ns,
		      uint64_t to_cpu_ns, struct gpd_snapshot *out,
		      struct gpd_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!dev->ring)
		return gpd_fail(err, -ENODEV, "device %s keeps no flight recorder; "
			    "start gpuperfd with --flight-recorder",
			    dev->source->name);
	struct walk w = {
		.dev = dev,
		.from = from_cpu_ns,
		.to = to_cpu_ns,
		.snap = out,
	};
	w.out.cap = gpd_snapshot_bound(dev);
	w.out.data = malloc(w.out.cap);
	w.writer = malloc(sizeof(*w.writer));
	cookie_io_functions_t io = { .write = out_write };
	w.file = w.out.data && w.writer ? fopencookie(&w.out, "w", io) : NULL;
	if (!w.file) {
		free(w.out.data);
		free(w.writer);
		return gpd_fail(err, -ENOMEM, "out of memory for a snapshot of "
			    "%zu bytes", w.out.cap);
	}
	/* The writer hands over whole records; no second buffer between. */
	setvbuf(w.file, NULL, _IONBF, 0);
	out->ring = dev->ring->stats;
	walk_ring(&w);
	fclose(w.file);
	free(w.writer);
	out->data = w.out.data;
	out->size = w.out.len;
	if (w.failed) {
		gpd_snapshot_free(out);
		return gpd_fail(err, w.failed, "writing the snapshot failed (%s)",
			    strerror(-w.failed));
	}
	if (!out->n_segments) {
		gpd_snapshot_free(out);
		return nothing_in_span(dev, &w, err);
	}
	/* Give back what the worst case asked for and the copy did not use. */
	unsigned char *data = realloc(out->data, out->size ? out->size : 1);
	if (data)
		out->data = data;
	return 0;
}
