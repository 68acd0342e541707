/*
 * The recording reader: walks an IGT recording record by record, checking
 * each one, through a fixed window of the file (pread), over a buffer in
 * memory, or over the stretches a source hands it. Nothing is kept per
 * record, so memory stays flat however long the recording.
 *
 * Checks beyond IGT's reader, which trusts the file: a size field below
 * the header or past the end of the file, the sizes of every known record
 * type, NUL-terminated names, topology masks inside their record, one
 * report size per recording, and repeated header records that agree.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metrics/i915_topology.h"
#include "metrics/little_endian.h"
#include "metrics/oa_format.h"
#include "metrics/oa_record.h"
#include "metrics/recording_internal.h"

/* A record as framed, before its type is looked at. */
struct raw_record {
	uint64_t offset;
	uint32_t type;
	uint32_t size;                  /* header included */
	const unsigned char *payload;
};

static int io_error(struct gpm_recording_error *err, uint64_t offset, int rc,
		    const char *what)
{
	char words[96];

	return gpm__recording_fail(err, rc, GPM_RECORDING_ERR_IO, offset,
				   "%s: %s", what,
				   strerror_r(-rc, words, sizeof(words)));
}

/* The bytes of the recording from offset on that are at hand. */
static size_t at_hand(const struct gpm_recording_reader *r, uint64_t offset,
		      const unsigned char **p)
{
	if (r->memory) {
		*p = r->memory + offset;
		return (size_t)(r->size - offset);
	}
	if (offset < r->window_offset ||
	    offset >= r->window_offset + r->window_len)
		return 0;
	*p = r->span + (offset - r->window_offset);
	return (size_t)(r->window_offset + r->window_len - offset);
}

static int shrank(struct gpm_recording_error *err, uint64_t offset)
{
	return gpm__recording_fail(err, -EIO, GPM_RECORDING_ERR_IO, offset,
				   "the file shrank while being read");
}

/* The source's stretch from offset on, which has to hold as much as the
 * window would. */
static int fetch(struct gpm_recording_reader *r, uint64_t offset,
		 struct gpm_recording_error *err)
{
	uint64_t left = r->size - offset;
	size_t want = left < sizeof(r->window) ? (size_t)left : sizeof(r->window);
	const unsigned char *data = NULL;

	r->window_len = 0;
	ssize_t n = r->source.fetch(r->source.ctx, offset, &data);
	if (n < 0)
		return io_error(err, offset, (int)n, "read failed");
	if ((size_t)n < want)
		return shrank(err, offset + (uint64_t)n);
	r->span = data;
	r->window_offset = offset;
	r->window_len = (uint64_t)n < left ? (size_t)n : (size_t)left;
	return 0;
}

/* Reads the window full from offset on. Re-reading the partial record the
 * last window ended in costs less than moving it. */
static int refill(struct gpm_recording_reader *r, uint64_t offset,
		  struct gpm_recording_error *err)
{
	uint64_t left = r->size - offset;
	size_t want = left < sizeof(r->window) ? (size_t)left : sizeof(r->window);
	size_t got = 0;

	if (r->source.fetch)
		return fetch(r, offset, err);
	r->window_len = 0;
	while (got < want) {
		ssize_t n = pread(r->fd, r->window + got, want - got,
				  (off_t)(offset + got));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return io_error(err, offset, -errno, "read failed");
		}
		if (n == 0)
			return shrank(err, offset + got);
		got += (size_t)n;
	}
	r->span = r->window;
	r->window_offset = offset;
	r->window_len = got;
	return 0;
}

static bool is_oa_record(uint32_t type)
{
	return type == GPM_OA_RECORD_SAMPLE ||
	       type == GPM_OA_RECORD_REPORT_LOST ||
	       type == GPM_OA_RECORD_BUFFER_LOST;
}

/* OA records need the device, and with it the report size, described
 * before them. */
static int need_device(struct gpm_recording_reader *r, uint64_t offset,
		       struct gpm_recording_error *err)
{
	if (!r->have_device_info)
		return gpm__recording_fail(err, -EBADMSG,
					   GPM_RECORDING_ERR_NO_DEVICE_INFO,
					   offset,
					   "no DEVICE_INFO record before the "
					   "first OA record");
	if (!r->have_topology)
		return gpm__recording_fail(err, -EBADMSG,
					   GPM_RECORDING_ERR_NO_TOPOLOGY, offset,
					   "no DEVICE_TOPOLOGY record before the "
					   "first OA record");
	return 0;
}

/* Words for a record the framing refused. */
static int framing_error(const struct gpm_recording_reader *r,
			 uint64_t offset, uint32_t type, uint32_t size,
			 struct gpm_recording_error *err)
{
	/* Size 0 would make IGT's reader loop forever on this record. */
	if (size < GPM_RECORDING_HEADER_SIZE)
		return gpm__recording_fail(err, -EBADMSG,
					   GPM_RECORDING_ERR_BAD_SIZE, offset,
					   "record size %" PRIu32 " is smaller "
					   "than the 8-byte record header "
					   "(record type %#" PRIx32 ")",
					   size, type);
	if (type == GPM_OA_RECORD_SAMPLE && r->report_format)
		return gpm__recording_fail(err, -EBADMSG,
					   GPM_RECORDING_ERR_RECORD_SIZE, offset,
					   "SAMPLE record of %" PRIu32 " bytes, "
					   "expected %" PRIu32 " for %s reports",
					   size, 8 + r->info.report_size,
					   r->report_format);
	if (type == GPM_OA_RECORD_SAMPLE)
		return gpm__recording_fail(err, -EBADMSG,
					   GPM_RECORDING_ERR_RECORD_SIZE, offset,
					   "SAMPLE record of %" PRIu32 " bytes, "
					   "the first one had %" PRIu32,
					   size, 8 + r->info.report_size);
	return gpm__recording_fail(err, -EBADMSG,
				   GPM_RECORDING_ERR_RECORD_SIZE, offset,
				   "%s record of %" PRIu32 " bytes, expected 8",
				   type == GPM_OA_RECORD_REPORT_LOST ?
				   "OA_REPORT_LOST" : "OA_BUFFER_LOST", size);
}

/*
 * Frames the record at r->offset with the OA record framing, refilling the
 * window as needed. Returns 1 and fills rec, 0 at the end of the file, or a
 * negative errno.
 */
static int frame(struct gpm_recording_reader *r, struct raw_record *rec,
		 struct gpm_recording_error *err)
{
	uint64_t offset = r->offset;
	uint64_t left = r->size - offset;
	const unsigned char *p = NULL;
	struct gpm_oa_record_reader rd;
	struct gpm_oa_record oa;
	uint32_t type, size;
	int rc;

	if (left == 0)
		return 0;
	size_t avail = at_hand(r, offset, &p);
	for (int attempt = 0;; attempt++) {
		if (avail < GPM_RECORDING_HEADER_SIZE && avail < left) {
			rc = refill(r, offset, err);
			if (rc < 0)
				return rc;
			avail = at_hand(r, offset, &p);
		}
		if (avail < GPM_RECORDING_HEADER_SIZE)
			return gpm__recording_fail(
				err, -ENODATA, GPM_RECORDING_ERR_TRUNCATED,
				offset,
				"the file ends %zu bytes into a record header "
				"(truncated recording)", avail);

		type = gpm__le32_load(p + GPM__REC_HDR_TYPE);
		size = gpm__le16_load(p + GPM__REC_HDR_SIZE);
		/* Unknown records are skipped as IGT's reader skips them, but
		 * a file that starts with one is some other kind of file. */
		if (offset == 0 && !is_oa_record(type) &&
		    (type < GPM_RECORDING_TYPE_VERSION ||
		     type > GPM_RECORDING_TYPE_TIMESTAMP_CORRELATION))
			return gpm__recording_fail(
				err, -EBADMSG, GPM_RECORDING_ERR_NOT_RECORDING,
				GPM_RECORDING_NO_OFFSET,
				"not an i915 perf recording: it does not start "
				"with a record of that format (gpuperf record, "
				"gpuperfd, its web UI and IGT's "
				"i915-perf-recorder write them)");
		if (is_oa_record(type)) {
			rc = need_device(r, offset, err);
			if (rc < 0)
				return rc;
			/* Without a known format the first sample sets the
			 * size. */
			if (type == GPM_OA_RECORD_SAMPLE &&
			    !r->info.report_size &&
			    size > GPM_RECORDING_HEADER_SIZE)
				r->info.report_size =
					size - GPM_RECORDING_HEADER_SIZE;
		}

		gpm_oa_record_reader_init(&rd, GPM_OA_FRAMING_I915,
					  r->info.report_size, p, avail);
		rc = gpm_oa_record_next(&rd, &oa);
		if (rc == -EAGAIN && avail < left && attempt == 0) {
			/* The record goes on past the window. */
			avail = 0;
			continue;
		}
		break;
	}
	if (rc == -EBADMSG)
		return framing_error(r, offset, type, size, err);
	if (rc == -EAGAIN)
		return gpm__recording_fail(err, -ENODATA,
					   GPM_RECORDING_ERR_TRUNCATED, offset,
					   "record size %" PRIu32 " runs past the "
					   "end of the file, %" PRIu64 " bytes "
					   "on (truncated recording)",
					   size, left);
	if (rc <= 0)
		return gpm__recording_fail(err, -EIO, GPM_RECORDING_ERR_IO,
					   offset, "unframeable record");
	rec->offset = offset;
	rec->type = oa.type;
	rec->size = (uint32_t)oa.size;
	rec->payload = p + GPM_RECORDING_HEADER_SIZE;
	return 1;
}

static int wrong_size(struct gpm_recording_error *err,
		      const struct raw_record *rec, const char *name,
		      unsigned expected)
{
	return gpm__recording_fail(err, -EBADMSG,
				   GPM_RECORDING_ERR_RECORD_SIZE, rec->offset,
				   "%s record of %" PRIu32 " bytes, expected %u",
				   name, rec->size, expected);
}

static int read_version(struct gpm_recording_reader *r,
			const struct raw_record *rec,
			struct gpm_recording_error *err)
{
	if (rec->size != GPM_RECORDING_VERSION_SIZE)
		return wrong_size(err, rec, "VERSION",
				  GPM_RECORDING_VERSION_SIZE);
	uint32_t version = gpm__le32_load(rec->payload);
	if (version != GPM_RECORDING_VERSION)
		return gpm__recording_fail(err, -ENOTSUP,
					   GPM_RECORDING_ERR_VERSION,
					   rec->offset,
					   "unsupported recording version %" PRIu32
					   " (expected %d)",
					   version, GPM_RECORDING_VERSION);
	r->info.version = version;
	return 0;
}

static bool nul_terminated(const unsigned char *field, size_t len)
{
	return memchr(field, '\0', len) != NULL;
}

static int read_device_info(struct gpm_recording_reader *r,
			    const struct raw_record *rec,
			    struct gpm_recording_error *err)
{
	const unsigned char *p = rec->payload;

	if (rec->size != GPM_RECORDING_DEVICE_INFO_SIZE)
		return wrong_size(err, rec, "DEVICE_INFO",
				  GPM_RECORDING_DEVICE_INFO_SIZE);
	if (r->have_device_info) {
		if (memcmp(p, r->device_info_raw, GPM__DI_SIZE) != 0)
			return gpm__recording_fail(
				err, -EBADMSG, GPM_RECORDING_ERR_INCONSISTENT,
				rec->offset,
				"DEVICE_INFO differs from the one before: "
				"recordings of two streams joined together?");
		return 0;
	}
	if (!nul_terminated(p + GPM__DI_METRIC_SET_NAME,
			    GPM_RECORDING_METRIC_SET_LEN))
		return gpm__recording_fail(err, -EBADMSG,
					   GPM_RECORDING_ERR_DEVICE_INFO,
					   rec->offset,
					   "DEVICE_INFO metric set name has no "
					   "terminating NUL in its 256 bytes");
	if (!nul_terminated(p + GPM__DI_METRIC_SET_UUID,
			    GPM_RECORDING_UUID_LEN))
		return gpm__recording_fail(err, -EBADMSG,
					   GPM_RECORDING_ERR_DEVICE_INFO,
					   rec->offset,
					   "DEVICE_INFO metric set uuid has no "
					   "terminating NUL in its 40 bytes");

	struct gpm_recording_info *info = &r->info;
	struct gpm_device_info *dev = &info->device;
	dev->timestamp_frequency = gpm__le64_load(p + GPM__DI_TIMESTAMP_FREQUENCY);
	dev->pci_id = gpm__le32_load(p + GPM__DI_DEVICE_ID);
	dev->revision = gpm__le32_load(p + GPM__DI_DEVICE_REVISION);
	dev->gpu_min_freq = gpm__le32_load(p + GPM__DI_GT_MIN_FREQUENCY);
	dev->gpu_max_freq = gpm__le32_load(p + GPM__DI_GT_MAX_FREQUENCY);
	info->engine_class = gpm__le32_load(p + GPM__DI_ENGINE_CLASS);
	info->engine_instance = gpm__le32_load(p + GPM__DI_ENGINE_INSTANCE);
	info->oa_format = gpm__le32_load(p + GPM__DI_OA_FORMAT);
	memcpy(info->metric_set, p + GPM__DI_METRIC_SET_NAME,
	       GPM_RECORDING_METRIC_SET_LEN);
	memcpy(info->uuid, p + GPM__DI_METRIC_SET_UUID, GPM_RECORDING_UUID_LEN);
	memcpy(r->device_info_raw, p, GPM__DI_SIZE);
	r->have_device_info = true;

	/* IGT's reader takes the report layout from its metric tables and
	 * ignores oa_format; what the recorder wrote there is the stream's
	 * format, so its report size is what every SAMPLE must carry. */
	const struct gpm_oa_format *format;
	if (gpm_oa_format_from_i915(info->oa_format, &format) == 0) {
		info->report_size = format->size;
		r->report_format = format->name;
	}
	return 0;
}

static bool topology_equal(const struct gpm_topology *a,
			   const struct gpm_topology *b)
{
	if (a->max_slices != b->max_slices ||
	    a->max_subslices != b->max_subslices ||
	    a->max_eus_per_subslice != b->max_eus_per_subslice ||
	    a->slice_mask != b->slice_mask)
		return false;
	return memcmp(a->subslice_mask, b->subslice_mask,
		      sizeof(a->subslice_mask)) == 0 &&
	       memcmp(a->eu_mask, b->eu_mask, sizeof(a->eu_mask)) == 0;
}

static int read_topology(struct gpm_recording_reader *r,
			 const struct raw_record *rec,
			 struct gpm_recording_error *err)
{
	struct gpm_topology topology;
	const char *reason;

	if (gpm_i915_topology_decode(rec->payload,
				     rec->size - GPM_RECORDING_HEADER_SIZE,
				     &topology, &reason) < 0)
		return gpm__recording_fail(err, -EBADMSG,
					   GPM_RECORDING_ERR_TOPOLOGY,
					   rec->offset,
					   "DEVICE_TOPOLOGY record of %" PRIu32
					   " bytes is invalid: %s",
					   rec->size, reason);
	if (r->have_topology) {
		if (!topology_equal(&topology, &r->info.device.topology))
			return gpm__recording_fail(
				err, -EBADMSG, GPM_RECORDING_ERR_INCONSISTENT,
				rec->offset,
				"DEVICE_TOPOLOGY differs from the one before: "
				"recordings of two streams joined together?");
		return 0;
	}
	r->info.device.topology = topology;
	r->have_topology = true;
	return 0;
}

/*
 * Checks one record and turns it into out. Header records and unknown
 * types leave out->kind at GPM_RECORDING_END: nothing to yield.
 */
static int interpret(struct gpm_recording_reader *r,
		     const struct raw_record *rec,
		     struct gpm_recording_record *out,
		     struct gpm_recording_error *err)
{
	out->kind = GPM_RECORDING_END;
	out->offset = rec->offset;
	out->data = NULL;
	out->size = 0;
	out->count = 0;
	out->stride = 0;

	switch (rec->type) {
	case GPM_OA_RECORD_SAMPLE:
		/* the framing checked its size */
		out->kind = GPM_RECORDING_SAMPLE;
		out->data = rec->payload;
		out->size = rec->size - GPM_RECORDING_HEADER_SIZE;
		out->count = 1;
		out->stride = rec->size;
		return 0;
	case GPM_OA_RECORD_REPORT_LOST:
		out->kind = GPM_RECORDING_REPORT_LOST;
		return 0;
	case GPM_OA_RECORD_BUFFER_LOST:
		out->kind = GPM_RECORDING_BUFFER_LOST;
		return 0;
	case GPM_RECORDING_TYPE_VERSION:
		return read_version(r, rec, err);
	case GPM_RECORDING_TYPE_DEVICE_INFO:
		return read_device_info(r, rec, err);
	case GPM_RECORDING_TYPE_DEVICE_TOPOLOGY:
		return read_topology(r, rec, err);
	case GPM_RECORDING_TYPE_TIMESTAMP_CORRELATION:
		if (rec->size != GPM_RECORDING_CORRELATION_SIZE)
			return wrong_size(err, rec, "TIMESTAMP_CORRELATION",
					  GPM_RECORDING_CORRELATION_SIZE);
		out->kind = GPM_RECORDING_CORRELATION;
		out->correlation.cpu_ns =
			gpm__le64_load(rec->payload + GPM__CORR_CPU);
		out->correlation.gpu_timestamp =
			gpm__le64_load(rec->payload + GPM__CORR_GPU);
		return 0;
	case GPM_RECORDING_TYPE_CLOCKS:
		if (rec->size != GPM_RECORDING_CLOCKS_SIZE)
			return wrong_size(err, rec, "CLOCKS",
					  GPM_RECORDING_CLOCKS_SIZE);
		out->kind = GPM_RECORDING_CLOCKS;
		out->clocks.monotonic_ns =
			gpm__le64_load(rec->payload + GPM__CLOCKS_MONOTONIC);
		out->clocks.boottime_ns =
			gpm__le64_load(rec->payload + GPM__CLOCKS_BOOTTIME);
		return 0;
	default:
		r->stats.unknown_records++;
		return 0;
	}
}

static int reader_fail(struct gpm_recording_reader *r, int rc,
		       const struct gpm_recording_error *why,
		       struct gpm_recording_error *err)
{
	r->failed = rc;
	r->error = *why;
	if (err)
		*err = *why;
	return rc;
}

int gpm_recording_reader_next(struct gpm_recording_reader *r,
			      struct gpm_recording_record *out,
			      struct gpm_recording_error *err)
{
	struct gpm_recording_error why;
	struct gpm_recording_record rec;
	struct raw_record raw;

	if (r->failed) {
		if (err)
			*err = r->error;
		return r->failed;
	}
	for (;;) {
		int rc = frame(r, &raw, &why);
		if (rc < 0)
			return reader_fail(r, rc, &why, err);
		if (rc == 0) {
			memset(out, 0, sizeof(*out));
			out->kind = GPM_RECORDING_END;
			out->offset = r->offset;
			gpm__recording_ok(err);
			return 0;
		}
		rc = interpret(r, &raw, &rec, &why);
		if (rc < 0)
			return reader_fail(r, rc, &why, err);
		r->offset += raw.size;
		r->stats.bytes = r->offset;
		switch (rec.kind) {
		case GPM_RECORDING_SAMPLE:
			r->stats.samples++;
			break;
		case GPM_RECORDING_REPORT_LOST:
			r->stats.reports_lost++;
			break;
		case GPM_RECORDING_BUFFER_LOST:
			r->stats.buffers_lost++;
			break;
		case GPM_RECORDING_CORRELATION:
			r->stats.correlations++;
			break;
		case GPM_RECORDING_CLOCKS:
			break;
		case GPM_RECORDING_END:
			continue;
		}
		*out = rec;
		gpm__recording_ok(err);
		return 0;
	}
}

int gpm_recording_reader_next_samples(struct gpm_recording_reader *r,
				      struct gpm_recording_record *rec, size_t max,
				      struct gpm_recording_error *err)
{
	int rc = gpm_recording_reader_next(r, rec, err);

	if (rc < 0 || rec->kind != GPM_RECORDING_SAMPLE)
		return rc;

	/* What framing and interpret() would accept of a SAMPLE after the
	 * first: the same header, whole in the bytes at hand. */
	const unsigned char *p = NULL;
	size_t avail = at_hand(r, r->offset, &p);
	size_t stride = rec->stride;

	while (rec->count < max && avail >= stride &&
	       gpm__le32_load(p + GPM__REC_HDR_TYPE) == GPM_OA_RECORD_SAMPLE &&
	       gpm__le16_load(p + GPM__REC_HDR_SIZE) == stride) {
		rec->count++;
		p += stride;
		avail -= stride;
	}
	r->offset += (rec->count - 1) * stride;
	r->stats.bytes = r->offset;
	r->stats.samples += rec->count - 1;
	return 0;
}

void gpm_recording_reader_rewind(struct gpm_recording_reader *r)
{
	r->offset = 0;
	r->failed = 0;
	memset(&r->stats, 0, sizeof(r->stats));
	gpm__recording_ok(&r->error);
}

/*
 * Reads the header: every record before the first kernel record, which
 * must find the device described. The kernel record itself is checked
 * too, so a first SAMPLE sets info.report_size.
 */
static int read_header(struct gpm_recording_reader *r,
		       struct gpm_recording_error *err)
{
	struct gpm_recording_record rec;
	struct raw_record raw;

	for (;;) {
		int rc = frame(r, &raw, err);
		if (rc < 0)
			return rc;
		if (rc == 0)
			break;
		rc = interpret(r, &raw, &rec, err);
		if (rc < 0)
			return rc;
		if (rec.kind == GPM_RECORDING_SAMPLE ||
		    rec.kind == GPM_RECORDING_REPORT_LOST ||
		    rec.kind == GPM_RECORDING_BUFFER_LOST)
			break;
		r->offset += raw.size;
	}
	/* A recording cut off before any OA record still needs its device. */
	int rc = need_device(r, r->offset, err);
	if (rc < 0)
		return rc;
	gpm_recording_reader_rewind(r);
	gpm__recording_ok(err);
	return 0;
}

static void reader_init(struct gpm_recording_reader *r)
{
	memset(&r->info, 0, sizeof(r->info));
	memset(&r->stats, 0, sizeof(r->stats));
	r->fd = -1;
	r->owns_fd = false;
	r->memory = NULL;
	memset(&r->source, 0, sizeof(r->source));
	r->size = 0;
	r->span = NULL;
	r->offset = 0;
	r->window_offset = 0;
	r->window_len = 0;
	r->have_device_info = false;
	r->have_topology = false;
	r->report_format = NULL;
	r->failed = 0;
	gpm__recording_ok(&r->error);
}

int gpm_recording_reader_open_memory(struct gpm_recording_reader *r,
				     const void *data, size_t size,
				     struct gpm_recording_error *err)
{
	/* Any non-NULL pointer does for an empty recording. */
	static const unsigned char empty;

	reader_init(r);
	r->memory = data ? data : &empty;
	r->size = size;
	return read_header(r, err);
}

int gpm_recording_reader_open_source(struct gpm_recording_reader *r,
				     const struct gpm_recording_source *source,
				     struct gpm_recording_error *err)
{
	reader_init(r);
	if (!source->fetch)
		return gpm__recording_fail(err, -EINVAL,
					   GPM_RECORDING_ERR_ARGUMENT,
					   GPM_RECORDING_NO_OFFSET,
					   "a recording source needs a fetch "
					   "function");
	r->source = *source;
	r->size = source->size;
	return read_header(r, err);
}

int gpm_recording_reader_open_fd(struct gpm_recording_reader *r, int fd,
				 struct gpm_recording_error *err)
{
	struct stat st;

	reader_init(r);
	if (fstat(fd, &st) < 0)
		return io_error(err, GPM_RECORDING_NO_OFFSET, -errno,
				"cannot stat the recording");
	if (!S_ISREG(st.st_mode))
		return gpm__recording_fail(err, -EINVAL,
					   GPM_RECORDING_ERR_ARGUMENT,
					   GPM_RECORDING_NO_OFFSET,
					   "a recording must be a regular file");
	r->fd = fd;
	r->size = (uint64_t)st.st_size;
	return read_header(r, err);
}

int gpm_recording_reader_open(struct gpm_recording_reader *r,
			      const char *path,
			      struct gpm_recording_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		reader_init(r);
		return io_error(err, GPM_RECORDING_NO_OFFSET, -errno,
				"cannot open the recording");
	}
	int rc = gpm_recording_reader_open_fd(r, fd, err);
	if (rc < 0) {
		close(fd);
		r->fd = -1;
		return rc;
	}
	r->owns_fd = true;
	return 0;
}

void gpm_recording_reader_close(struct gpm_recording_reader *r)
{
	if (r->owns_fd && r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	r->owns_fd = false;
}
