/*
 * The recording writer: IGT recording records, collected whole in a fixed
 * buffer and handed to a file descriptor or a FILE * on record boundaries
 * (the flush policy is described in recording.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "metrics/i915_topology.h"
#include "metrics/little_endian.h"
#include "metrics/oa_format.h"
#include "metrics/oa_record.h"
#include "metrics/recording_internal.h"

/* Bridging more epochs than this means the two points cannot come from
 * one 36-bit timestamp register (2^36 ticks are 16 epochs). */
#define MAX_BRIDGED_EPOCHS 256

/* The largest topology blob a struct gpm_topology can produce. */
#define MAX_TOPOLOGY_SIZE                                                    \
	(GPM_I915_TOPOLOGY_FIXED_SIZE + 1 + GPM_MAX_SLICES * 8 +             \
	 GPM_MAX_SLICES * GPM_MAX_SUBSLICES * 2)

static void writer_init(struct gpm_recording_writer *w, int fd, FILE *file,
			unsigned flags)
{
	w->fd = fd;
	w->file = file;
	w->flags = flags;
	w->failed = 0;
	w->header_written = false;
	w->report_size = 0;
	w->have_correlation = false;
	memset(&w->last_correlation, 0, sizeof(w->last_correlation));
	w->offset = 0;
	w->used = 0;
}

void gpm_recording_writer_init_fd(struct gpm_recording_writer *w, int fd,
				  unsigned flags)
{
	writer_init(w, fd, NULL, flags);
}

void gpm_recording_writer_init_file(struct gpm_recording_writer *w,
				    FILE *file, unsigned flags)
{
	writer_init(w, -1, file, flags);
}

uint64_t gpm_recording_writer_offset(const struct gpm_recording_writer *w)
{
	return w->offset;
}

static int io_failure(struct gpm_recording_writer *w,
		      struct gpm_recording_error *err, int rc)
{
	char words[96];

	w->failed = rc;
	return gpm__recording_fail(err, rc, GPM_RECORDING_ERR_IO,
				   w->offset - w->used, "write failed: %s",
				   strerror_r(-rc, words, sizeof(words)));
}

static int write_out(struct gpm_recording_writer *w)
{
	if (w->file) {
		errno = EIO;
		if (fwrite(w->buffer, 1, w->used, w->file) != w->used)
			return -errno;
		if (fflush(w->file) != 0)
			return -errno;
		return 0;
	}
	size_t done = 0;
	while (done < w->used) {
		ssize_t n = write(w->fd, w->buffer + done, w->used - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (size_t)n;
	}
	return 0;
}

int gpm_recording_writer_flush(struct gpm_recording_writer *w,
			       struct gpm_recording_error *err)
{
	if (w->failed)
		return io_failure(w, err, w->failed);
	if (w->used) {
		int rc = write_out(w);
		if (rc < 0)
			return io_failure(w, err, rc);
		w->used = 0;
	}
	gpm__recording_ok(err);
	return 0;
}

/* Appends one record to the buffer, making room first if needed. */
static int append(struct gpm_recording_writer *w, uint32_t type,
		  const void *payload, size_t size,
		  struct gpm_recording_error *err)
{
	if (w->failed)
		return io_failure(w, err, w->failed);
	if (size > GPM_RECORDING_MAX_RECORD_SIZE - GPM_RECORDING_HEADER_SIZE)
		return gpm__recording_fail(err, -EINVAL,
					   GPM_RECORDING_ERR_ARGUMENT, w->offset,
					   "a record of %zu bytes exceeds the "
					   "format's 65535", size +
					   GPM_RECORDING_HEADER_SIZE);

	size_t total = GPM_RECORDING_HEADER_SIZE + size;
	if (w->used + total > sizeof(w->buffer)) {
		int rc = gpm_recording_writer_flush(w, err);
		if (rc < 0)
			return rc;
	}
	unsigned char *p = w->buffer + w->used;
	gpm__le32_store(p + GPM__REC_HDR_TYPE, type);
	gpm__le16_store(p + 4, 0);
	gpm__le16_store(p + GPM__REC_HDR_SIZE, (uint16_t)total);
	if (size)
		memcpy(p + GPM_RECORDING_HEADER_SIZE, payload, size);
	w->used += total;
	w->offset += total;

	if (w->flags & GPM_RECORDING_WRITE_THROUGH)
		return gpm_recording_writer_flush(w, err);
	gpm__recording_ok(err);
	return 0;
}

static int need_header(struct gpm_recording_writer *w,
		       struct gpm_recording_error *err)
{
	if (w->header_written || (w->flags & GPM_RECORDING_RECORDS_ONLY))
		return 0;
	return gpm__recording_fail(err, -EINVAL, GPM_RECORDING_ERR_ARGUMENT,
				   w->offset,
				   "the header records must be written first");
}

int gpm_recording_write_header(struct gpm_recording_writer *w,
			       const struct gpm_recording_info *info,
			       struct gpm_recording_error *err)
{
	const struct gpm_device_info *dev = &info->device;

	if (w->header_written)
		return gpm__recording_fail(err, -EINVAL,
					   GPM_RECORDING_ERR_ARGUMENT, w->offset,
					   "the header records are already written");
	if (strnlen(info->metric_set, sizeof(info->metric_set)) ==
	    sizeof(info->metric_set))
		return gpm__recording_fail(err, -EINVAL,
					   GPM_RECORDING_ERR_ARGUMENT, w->offset,
					   "metric set name longer than 255 bytes");
	if (strnlen(info->uuid, sizeof(info->uuid)) == sizeof(info->uuid))
		return gpm__recording_fail(err, -EINVAL,
					   GPM_RECORDING_ERR_ARGUMENT, w->offset,
					   "metric set uuid longer than 39 bytes");
	if (dev->gpu_min_freq > UINT32_MAX || dev->gpu_max_freq > UINT32_MAX)
		return gpm__recording_fail(err, -EINVAL,
					   GPM_RECORDING_ERR_ARGUMENT, w->offset,
					   "GPU frequencies above 4294967295 Hz "
					   "do not fit the format");

	unsigned char topology[(MAX_TOPOLOGY_SIZE + 7) & ~7];
	size_t topology_len;
	if (gpm_i915_topology_encode(&dev->topology, topology,
				     sizeof(topology), &topology_len) < 0)
		return gpm__recording_fail(err, -EINVAL,
					   GPM_RECORDING_ERR_ARGUMENT, w->offset,
					   "topology maxima are 0 or beyond "
					   "8 slices, 64 subslices, 16 EUs");
	/* IGT's recorder pads the query result to 8 bytes; so do we. */
	size_t padded = (topology_len + 7) & ~(size_t)7;
	memset(topology + topology_len, 0, padded - topology_len);

	unsigned char version[8] = { 0 };
	gpm__le32_store(version, GPM_RECORDING_VERSION);

	unsigned char di[GPM__DI_SIZE] = { 0 };
	gpm__le64_store(di + GPM__DI_TIMESTAMP_FREQUENCY,
			dev->timestamp_frequency);
	gpm__le32_store(di + GPM__DI_DEVICE_ID, dev->pci_id);
	gpm__le32_store(di + GPM__DI_DEVICE_REVISION, dev->revision);
	gpm__le32_store(di + GPM__DI_GT_MIN_FREQUENCY,
			(uint32_t)dev->gpu_min_freq);
	gpm__le32_store(di + GPM__DI_GT_MAX_FREQUENCY,
			(uint32_t)dev->gpu_max_freq);
	gpm__le32_store(di + GPM__DI_ENGINE_CLASS, info->engine_class);
	gpm__le32_store(di + GPM__DI_ENGINE_INSTANCE, info->engine_instance);
	gpm__le32_store(di + GPM__DI_OA_FORMAT, info->oa_format);
	memcpy(di + GPM__DI_METRIC_SET_NAME, info->metric_set,
	       strlen(info->metric_set));
	memcpy(di + GPM__DI_METRIC_SET_UUID, info->uuid, strlen(info->uuid));

	int rc = append(w, GPM_RECORDING_TYPE_VERSION, version, sizeof(version),
			err);
	if (rc == 0)
		rc = append(w, GPM_RECORDING_TYPE_DEVICE_INFO, di, sizeof(di),
			    err);
	if (rc == 0)
		rc = append(w, GPM_RECORDING_TYPE_DEVICE_TOPOLOGY, topology,
			    padded, err);
	if (rc == 0)
		rc = gpm_recording_writer_flush(w, err);
	if (rc == 0) {
		const struct gpm_oa_format *format;
		w->header_written = true;
		if (gpm_oa_format_from_i915(info->oa_format, &format) == 0)
			w->report_size = format->size;
	}
	return rc;
}

static int append_correlation(struct gpm_recording_writer *w,
			      const struct gpm_recording_correlation *c,
			      struct gpm_recording_error *err)
{
	unsigned char payload[16];

	gpm__le64_store(payload + GPM__CORR_CPU, c->cpu_ns);
	gpm__le64_store(payload + GPM__CORR_GPU, c->gpu_timestamp);
	int rc = append(w, GPM_RECORDING_TYPE_TIMESTAMP_CORRELATION, payload,
			sizeof(payload), err);
	if (rc == 0) {
		w->last_correlation = *c;
		w->have_correlation = true;
	}
	return rc;
}

int gpm_recording_write_correlation(struct gpm_recording_writer *w,
				    const struct gpm_recording_correlation *c,
				    struct gpm_recording_error *err)
{
	int rc = need_header(w, err);
	if (rc == 0)
		rc = append_correlation(w, c, err);
	if (rc == 0)
		rc = gpm_recording_writer_flush(w, err);
	return rc;
}

int gpm_recording_write_clocks(struct gpm_recording_writer *w,
			       const struct gpm_recording_clocks *c,
			       struct gpm_recording_error *err)
{
	unsigned char payload[GPM_RECORDING_CLOCKS_SIZE - GPM_RECORDING_HEADER_SIZE];

	int rc = need_header(w, err);
	if (rc < 0)
		return rc;
	gpm__le64_store(payload + GPM__CLOCKS_MONOTONIC, c->monotonic_ns);
	gpm__le64_store(payload + GPM__CLOCKS_BOOTTIME, c->boottime_ns);
	return append(w, GPM_RECORDING_TYPE_CLOCKS, payload, sizeof(payload),
		      err);
}

/* The CPU time at GPU time gpu on the line through a and b (a.gpu < b.gpu). */
static uint64_t interpolate_cpu(const struct gpm_recording_correlation *a,
				const struct gpm_recording_correlation *b,
				uint64_t gpu)
{
	__int128 cpu_span = (__int128)b->cpu_ns - (__int128)a->cpu_ns;
	__int128 gpu_span = (__int128)(b->gpu_timestamp - a->gpu_timestamp);
	__int128 into = (__int128)(gpu - a->gpu_timestamp);
	return (uint64_t)((__int128)a->cpu_ns + into * cpu_span / gpu_span);
}

int gpm_recording_write_correlation_bridged(
	struct gpm_recording_writer *w,
	const struct gpm_recording_correlation *c,
	struct gpm_recording_error *err)
{
	int rc = need_header(w, err);
	if (rc < 0)
		return rc;

	const struct gpm_recording_correlation prev = w->last_correlation;
	if (w->have_correlation && c->gpu_timestamp > prev.gpu_timestamp) {
		uint64_t first = prev.gpu_timestamp >> 32;
		uint64_t last = c->gpu_timestamp >> 32;
		if (last - first > MAX_BRIDGED_EPOCHS)
			return gpm__recording_fail(
				err, -ERANGE, GPM_RECORDING_ERR_ARGUMENT,
				w->offset,
				"correlation points %#llx and %#llx are more "
				"than %d timestamp epochs apart",
				(unsigned long long)prev.gpu_timestamp,
				(unsigned long long)c->gpu_timestamp,
				MAX_BRIDGED_EPOCHS);
		for (uint64_t epoch = first; epoch < last; epoch++) {
			uint64_t edge[2] = { epoch << 32 | 0xffffffffu,
					     (epoch + 1) << 32 };
			for (int i = 0; i < 2; i++) {
				/* A point equal to either end would give
				 * IGT's reader a zero-length span. */
				if (edge[i] <= prev.gpu_timestamp ||
				    edge[i] >= c->gpu_timestamp)
					continue;
				struct gpm_recording_correlation point = {
					.cpu_ns = interpolate_cpu(&prev, c,
								  edge[i]),
					.gpu_timestamp = edge[i],
				};
				rc = append_correlation(w, &point, err);
				if (rc < 0)
					return rc;
			}
		}
	}
	rc = append_correlation(w, c, err);
	if (rc == 0)
		rc = gpm_recording_writer_flush(w, err);
	return rc;
}

int gpm_recording_write_record(struct gpm_recording_writer *w, uint32_t type,
			       const void *payload, size_t size,
			       struct gpm_recording_error *err)
{
	int rc = need_header(w, err);
	if (rc < 0)
		return rc;

	switch (type) {
	case GPM_OA_RECORD_SAMPLE:
		if (size == 0)
			return gpm__recording_fail(err, -EINVAL,
						   GPM_RECORDING_ERR_ARGUMENT,
						   w->offset,
						   "a SAMPLE needs a report");
		/* One stream, one format: readers check every sample. */
		if (w->report_size && size != w->report_size)
			return gpm__recording_fail(err, -EINVAL,
						   GPM_RECORDING_ERR_ARGUMENT,
						   w->offset,
						   "a report of %zu bytes in a "
						   "stream of %" PRIu32 "-byte "
						   "reports", size,
						   w->report_size);
		rc = append(w, type, payload, size, err);
		if (rc == 0)
			w->report_size = (uint32_t)size;
		return rc;
	case GPM_OA_RECORD_REPORT_LOST:
	case GPM_OA_RECORD_BUFFER_LOST:
		if (size != 0)
			return gpm__recording_fail(err, -EINVAL,
						   GPM_RECORDING_ERR_ARGUMENT,
						   w->offset,
						   "loss records carry no payload");
		break;
	case GPM_RECORDING_TYPE_TIMESTAMP_CORRELATION: {
		if (size != GPM_RECORDING_CORRELATION_SIZE -
			    GPM_RECORDING_HEADER_SIZE)
			return gpm__recording_fail(err, -EINVAL,
						   GPM_RECORDING_ERR_ARGUMENT,
						   w->offset,
						   "a correlation payload is 16 bytes");
		struct gpm_recording_correlation c = {
			.cpu_ns = gpm__le64_load((const unsigned char *)payload +
						 GPM__CORR_CPU),
			.gpu_timestamp = gpm__le64_load(
				(const unsigned char *)payload + GPM__CORR_GPU),
		};
		return gpm_recording_write_correlation(w, &c, err);
	}
	case GPM_RECORDING_TYPE_VERSION:
	case GPM_RECORDING_TYPE_DEVICE_INFO:
	case GPM_RECORDING_TYPE_DEVICE_TOPOLOGY:
		return gpm__recording_fail(err, -EINVAL,
					   GPM_RECORDING_ERR_ARGUMENT, w->offset,
					   "header records come only from "
					   "gpm_recording_write_header");
	default:
		break;
	}
	return append(w, type, payload, size, err);
}

int gpm_recording_write_sample(struct gpm_recording_writer *w,
			       const void *report, size_t size,
			       struct gpm_recording_error *err)
{
	return gpm_recording_write_record(w, GPM_OA_RECORD_SAMPLE, report, size,
					  err);
}

int gpm_recording_write_report_lost(struct gpm_recording_writer *w,
				    struct gpm_recording_error *err)
{
	return gpm_recording_write_record(w, GPM_OA_RECORD_REPORT_LOST, NULL, 0,
					  err);
}

int gpm_recording_write_buffer_lost(struct gpm_recording_writer *w,
				    struct gpm_recording_error *err)
{
	return gpm_recording_write_record(w, GPM_OA_RECORD_BUFFER_LOST, NULL, 0,
					  err);
}
