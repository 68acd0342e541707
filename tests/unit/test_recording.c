/*
 * Recordings: the writer's byte layout, reader/writer round trips, every
 * corruption the reader must name, flat memory on big files, and IGT's
 * i915-perf-reader accepting what the writer produces.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "metrics/i915_topology.h"
#include "metrics/recording.h"
#include "tests/unit/test_gpus.h"
#include "tests/unit/test_util.h"

#define REPORT_SIZE 256
#define SKL_PCI_ID 0x1916
#define SKL_RENDER_BASIC_GUID "07b25942-d9fd-4fce-bd58-e29abd66b7de"
/* I915_OA_FORMAT_A32u40_A4u32_B8_C8 */
#define FORMAT_A32u40_A4u32_B8_C8 10
#define IGT_READER "/usr/bin/i915-perf-reader"

/* Record offsets in a file from gpm_recording_write_header of skl_info(). */
#define OFF_DEVICE_INFO 16
#define OFF_TOPOLOGY (OFF_DEVICE_INFO + 344)
#define OFF_BODY (OFF_TOPOLOGY + 8 + 32)

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

/* Skylake GT2 with 24 EUs: 1 of 3 slices, 3 of 4 subslices, 8 EUs each. */
static void skl_topology(struct gpm_topology *t)
{
	make_topology(t, 3, 4, 8, 0x1, 0x7, 0xff);
}

static void skl_info(struct gpm_recording_info *info)
{
	memset(info, 0, sizeof(*info));
	info->device.pci_id = SKL_PCI_ID;
	info->device.revision = 7;
	info->device.timestamp_frequency = 12000000;
	info->device.gpu_min_freq = 300000000;
	info->device.gpu_max_freq = 1150000000;
	skl_topology(&info->device.topology);
	info->oa_format = FORMAT_A32u40_A4u32_B8_C8;
	strcpy(info->metric_set, "RenderBasic");
	strcpy(info->uuid, SKL_RENDER_BASIC_GUID);
}

/*
 * A Gen9 periodic report in the A32u40_A4u32_B8_C8 layout: timer reason,
 * context valid, counters growing with n so every pair has clean deltas.
 */
static void skl_report(unsigned char *r, uint32_t n, uint32_t timestamp,
		       uint32_t ctx)
{
	memset(r, 0, REPORT_SIZE);
	put32(r + 0, 1u << 19 | 1u << 16);
	put32(r + 4, timestamp);
	put32(r + 8, ctx);
	put32(r + 12, n * 1000);                        /* GPU ticks */
	for (int i = 0; i < 32; i++) {
		uint64_t v = (uint64_t)n * (uint64_t)(i + 1) * 7;
		put32(r + 16 + 4 * i, (uint32_t)v);
		r[160 + i] = (unsigned char)(v >> 32);
	}
	for (int i = 0; i < 4; i++)
		put32(r + 144 + 4 * i, n * (uint32_t)(i + 3));
	for (int i = 0; i < 8; i++) {
		put32(r + 192 + 4 * i, n * (uint32_t)(i + 11));
		put32(r + 224 + 4 * i, n * (uint32_t)(i + 19));
	}
}

/* A recording in memory, written through the FILE * path. */
struct membuf {
	char *data;
	size_t size;
	FILE *file;
	struct gpm_recording_writer w;
};

static void membuf_open(struct membuf *m, unsigned flags)
{
	m->data = NULL;
	m->size = 0;
	m->file = open_memstream(&m->data, &m->size);
	ck_assert_ptr_nonnull(m->file);
	gpm_recording_writer_init_file(&m->w, m->file, flags);
}

static void membuf_close(struct membuf *m)
{
	ck_assert_int_eq(gpm_recording_writer_flush(&m->w, NULL), 0);
	ck_assert_int_eq(fclose(m->file), 0);
	m->file = NULL;
}

/*
 * The reference recording: header, a correlation, n_samples samples with a
 * REPORT_LOST after the first and a BUFFER_LOST after the second, and a
 * closing correlation.
 */
static void write_reference(struct gpm_recording_writer *w, int n_samples)
{
	struct gpm_recording_info info;
	unsigned char report[REPORT_SIZE];
	struct gpm_recording_correlation c = { 1000000, 0x100 };

	skl_info(&info);
	ck_assert_int_eq(gpm_recording_write_header(w, &info, NULL), 0);
	ck_assert_int_eq(gpm_recording_write_correlation(w, &c, NULL), 0);
	for (int i = 0; i < n_samples; i++) {
		skl_report(report, (uint32_t)i, 0x200 + (uint32_t)i * 256, 0x42);
		ck_assert_int_eq(gpm_recording_write_sample(w, report,
							    sizeof(report),
							    NULL), 0);
		if (i == 0)
			ck_assert_int_eq(gpm_recording_write_report_lost(w, NULL), 0);
		if (i == 1)
			ck_assert_int_eq(gpm_recording_write_buffer_lost(w, NULL), 0);
	}
	c.cpu_ns = 2000000;
	c.gpu_timestamp = 0x200 + (uint64_t)n_samples * 256;
	ck_assert_int_eq(gpm_recording_write_correlation(w, &c, NULL), 0);
}

static void reference_in_memory(struct membuf *m, int n_samples)
{
	membuf_open(m, 0);
	write_reference(&m->w, n_samples);
	membuf_close(m);
}

/* Opens and walks a recording in memory; returns the first failure. */
static int read_all(const void *data, size_t size,
		    struct gpm_recording_error *err, uint64_t *samples)
{
	struct gpm_recording_reader *r = malloc(sizeof(*r));
	struct gpm_recording_record rec;
	int rc;

	ck_assert_ptr_nonnull(r);
	rc = gpm_recording_reader_open_memory(r, data, size, err);
	while (rc == 0) {
		rc = gpm_recording_reader_next(r, &rec, err);
		if (rc == 0 && rec.kind == GPM_RECORDING_END)
			break;
	}
	if (samples)
		*samples = r->stats.samples;
	gpm_recording_reader_close(r);
	free(r);
	return rc;
}

static void expect_error(const void *data, size_t size, int rc,
			 enum gpm_recording_errc code, uint64_t offset,
			 const char *words)
{
	struct gpm_recording_error err;
	char prefix[64];

	ck_assert_int_eq(read_all(data, size, &err, NULL), rc);
	ck_assert_int_eq(err.code, code);
	ck_assert_uint_eq(err.offset, offset);
	snprintf(prefix, sizeof(prefix), "offset %" PRIu64 ": ", offset);
	ck_assert_msg(strncmp(err.message, prefix, strlen(prefix)) == 0,
		      "message '%s' lacks '%s'", err.message, prefix);
	ck_assert_msg(strstr(err.message, words), "message '%s' lacks '%s'",
		      err.message, words);
}

/* ------------------------------------------------------------------ */

START_TEST(test_device_info_layout)
{
	struct membuf m;
	reference_in_memory(&m, 2);
	const unsigned char *p = (const unsigned char *)m.data;

	/* VERSION */
	ck_assert_uint_eq(le32(p), 0x10000);
	ck_assert_uint_eq(p[4] | p[5] << 8, 0);
	ck_assert_uint_eq(p[6] | p[7] << 8, 16);
	ck_assert_uint_eq(le32(p + 8), 1);
	ck_assert_uint_eq(le32(p + 12), 0);
	/* DEVICE_INFO at 16, its payload at 24 */
	ck_assert_uint_eq(le32(p + 16), 0x10001);
	ck_assert_uint_eq(p[22] | p[23] << 8, 344);
	ck_assert_uint_eq(le64(p + 24), 12000000);
	ck_assert_uint_eq(le32(p + 32), SKL_PCI_ID);
	ck_assert_uint_eq(le32(p + 36), 7);
	ck_assert_uint_eq(le32(p + 40), 300000000);
	ck_assert_uint_eq(le32(p + 44), 1150000000);
	ck_assert_uint_eq(le32(p + 48), 0);
	ck_assert_uint_eq(le32(p + 52), 0);
	ck_assert_uint_eq(le32(p + 56), FORMAT_A32u40_A4u32_B8_C8);
	ck_assert_str_eq((const char *)p + 60, "RenderBasic");
	for (int i = 60 + 11; i < 60 + 256; i++)
		ck_assert_uint_eq(p[i], 0);
	ck_assert_str_eq((const char *)p + 316, SKL_RENDER_BASIC_GUID);
	for (int i = 316 + 36; i < 360; i++)
		ck_assert_uint_eq(p[i], 0);
	/* DEVICE_TOPOLOGY right after */
	ck_assert_uint_eq(le32(p + OFF_TOPOLOGY), 0x10002);
	ck_assert_uint_eq(p[OFF_TOPOLOGY + 6] | p[OFF_TOPOLOGY + 7] << 8, 40);
	/* then the correlation */
	ck_assert_uint_eq(le32(p + OFF_BODY), 0x10003);
	ck_assert_uint_eq(p[OFF_BODY + 6], 24);
	ck_assert_uint_eq(le64(p + OFF_BODY + 8), 1000000);
	ck_assert_uint_eq(le64(p + OFF_BODY + 16), 0x100);
	/* and the first sample */
	ck_assert_uint_eq(le32(p + OFF_BODY + 24), 1);
	ck_assert_uint_eq(p[OFF_BODY + 30] | p[OFF_BODY + 31] << 8, 264);
	free(m.data);
}
END_TEST

static const unsigned char skl_blob[32] = {
	0x00, 0x00, 0x03, 0x00, 0x04, 0x00, 0x08, 0x00,
	0x01, 0x00, 0x01, 0x00, 0x04, 0x00, 0x01, 0x00,
	0x01, 0x07, 0x00, 0x00, 0xff, 0xff, 0xff, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static const unsigned char tgl_blob[32] = {
	0x00, 0x00, 0x01, 0x00, 0x06, 0x00, 0x10, 0x00,
	0x01, 0x00, 0x01, 0x00, 0x02, 0x00, 0x02, 0x00,
	0x01, 0x3f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00,
};

static void check_topology_record(const struct gpm_topology *t,
				  const unsigned char *blob, size_t blob_len,
				  size_t unpadded)
{
	struct gpm_recording_info info;
	struct membuf m;
	size_t len;

	ck_assert_int_eq(gpm_i915_topology_encode(t, NULL, 0, &len), 0);
	ck_assert_uint_eq(len, unpadded);

	skl_info(&info);
	info.device.topology = *t;
	membuf_open(&m, 0);
	ck_assert_int_eq(gpm_recording_write_header(&m.w, &info, NULL), 0);
	membuf_close(&m);
	ck_assert_uint_eq(m.size, OFF_TOPOLOGY + 8 + blob_len);
	const unsigned char *rec = (const unsigned char *)m.data + OFF_TOPOLOGY;
	ck_assert_uint_eq(rec[6] | rec[7] << 8, 8 + blob_len);
	ck_assert_mem_eq(rec + 8, blob, blob_len);

	struct gpm_recording_reader *r = malloc(sizeof(*r));
	ck_assert_int_eq(gpm_recording_reader_open_memory(r, m.data, m.size,
							  NULL), 0);
	const struct gpm_topology *got = &r->info.device.topology;
	ck_assert_uint_eq(got->max_slices, t->max_slices);
	ck_assert_uint_eq(got->max_subslices, t->max_subslices);
	ck_assert_uint_eq(got->max_eus_per_subslice, t->max_eus_per_subslice);
	ck_assert_uint_eq(got->slice_mask, t->slice_mask);
	ck_assert_mem_eq(got->subslice_mask, t->subslice_mask,
			 sizeof(t->subslice_mask));
	ck_assert_mem_eq(got->eu_mask, t->eu_mask, sizeof(t->eu_mask));
	free(r);
	free(m.data);
}

START_TEST(test_topology_skl_gt2)
{
	struct gpm_topology t;
	skl_topology(&t);
	check_topology_record(&t, skl_blob, sizeof(skl_blob), 32);
}
END_TEST

START_TEST(test_topology_tgl_gt2)
{
	struct gpm_topology t;
	make_tgl_gt2_topology(&t);
	/* 30 bytes from i915, 2 of padding in the record */
	check_topology_record(&t, tgl_blob, sizeof(tgl_blob), 30);
}
END_TEST

START_TEST(test_topology_decode_rejects)
{
	struct gpm_topology t;
	unsigned char blob[32];
	const char *reason;

	memcpy(blob, skl_blob, sizeof(blob));
	ck_assert_int_eq(gpm_i915_topology_decode(blob, sizeof(blob), &t,
						  &reason), 0);
	ck_assert_int_eq(gpm_i915_topology_decode(blob, 15, &t, &reason),
			 -EBADMSG);
	/* EU masks end past the blob */
	ck_assert_int_eq(gpm_i915_topology_decode(blob, 16 + 15, &t, &reason),
			 -EBADMSG);
	ck_assert_ptr_nonnull(strstr(reason, "EU masks"));
	put16(blob + 2, 9);             /* max_slices */
	ck_assert_int_eq(gpm_i915_topology_decode(blob, sizeof(blob), &t,
						  &reason), -EBADMSG);
	memcpy(blob, skl_blob, sizeof(blob));
	put16(blob + 14, 0);            /* eu_stride */
	ck_assert_int_eq(gpm_i915_topology_decode(blob, sizeof(blob), &t,
						  &reason), -EBADMSG);
	memcpy(blob, skl_blob, sizeof(blob));
	put16(blob + 8, 0);             /* subslice_offset */
	ck_assert_int_eq(gpm_i915_topology_decode(blob, sizeof(blob), &t,
						  &reason), -EBADMSG);

	/* Wider strides than needed are read, and extra bits dropped. */
	struct gpm_topology wide;
	unsigned char big[16 + 1 + 2 + 4 * 2];
	memset(big, 0, sizeof(big));
	put16(big + 2, 1);
	put16(big + 4, 4);
	put16(big + 6, 8);
	put16(big + 8, 1);
	put16(big + 10, 2);
	put16(big + 12, 3);
	put16(big + 14, 2);
	big[16] = 0xff;                 /* slice mask: only bit 0 counts */
	big[17] = 0xf5;                 /* subslices 0, 2 (4..7 beyond max) */
	big[18] = 0xff;
	big[19] = 0xff;                 /* ss0 EUs, high byte beyond max */
	big[20] = 0x01;
	big[23] = 0x0f;                 /* ss2 */
	ck_assert_int_eq(gpm_i915_topology_decode(big, sizeof(big), &wide,
						  &reason), 0);
	ck_assert_uint_eq(wide.slice_mask, 1);
	ck_assert_uint_eq(wide.subslice_mask[0], 0x5);
	ck_assert_uint_eq(wide.eu_mask[0][0], 0xff);
	ck_assert_uint_eq(wide.eu_mask[0][2], 0x0f);
}
END_TEST

START_TEST(test_topology_encode_limits)
{
	struct gpm_topology t;
	unsigned char buf[8];
	size_t len;

	skl_topology(&t);
	ck_assert_int_eq(gpm_i915_topology_encode(&t, buf, sizeof(buf), &len),
			 -ENOSPC);
	t.max_eus_per_subslice = 17;
	ck_assert_int_eq(gpm_i915_topology_encode(&t, NULL, 0, &len), -EINVAL);
	skl_topology(&t);
	t.max_slices = 0;
	ck_assert_int_eq(gpm_i915_topology_encode(&t, NULL, 0, &len), -EINVAL);
}
END_TEST

/* Checks a reader over the reference recording of n samples. */
static void check_reference(struct gpm_recording_reader *r, int n)
{
	struct gpm_recording_record rec;
	struct gpm_recording_error err;
	unsigned char report[REPORT_SIZE];
	int lost_after = -1, buffer_lost_after = -1, correlations = 0;
	int samples = 0;

	const struct gpm_recording_info *info = &r->info;
	ck_assert_uint_eq(info->version, 1);
	ck_assert_uint_eq(info->device.pci_id, SKL_PCI_ID);
	ck_assert_uint_eq(info->device.revision, 7);
	ck_assert_uint_eq(info->device.timestamp_frequency, 12000000);
	ck_assert_uint_eq(info->device.gpu_min_freq, 300000000);
	ck_assert_uint_eq(info->device.gpu_max_freq, 1150000000);
	ck_assert_uint_eq(info->device.graphics_version, 0);
	ck_assert_uint_eq(info->oa_format, FORMAT_A32u40_A4u32_B8_C8);
	ck_assert_str_eq(info->metric_set, "RenderBasic");
	ck_assert_str_eq(info->uuid, SKL_RENDER_BASIC_GUID);
	ck_assert_uint_eq(info->report_size, n ? REPORT_SIZE : 0);
	ck_assert_uint_eq(gpm_topology_eu_count(&info->device.topology), 24);

	uint64_t expect_offset = OFF_BODY;
	for (;;) {
		ck_assert_int_eq(gpm_recording_reader_next(r, &rec, &err), 0);
		if (rec.kind == GPM_RECORDING_END)
			break;
		ck_assert_uint_eq(rec.offset, expect_offset);
		switch (rec.kind) {
		case GPM_RECORDING_SAMPLE:
			skl_report(report, (uint32_t)samples,
				   0x200 + (uint32_t)samples * 256, 0x42);
			ck_assert_uint_eq(rec.size, REPORT_SIZE);
			ck_assert_mem_eq(rec.data, report, REPORT_SIZE);
			samples++;
			expect_offset += 264;
			break;
		case GPM_RECORDING_REPORT_LOST:
			lost_after = samples;
			expect_offset += 8;
			break;
		case GPM_RECORDING_BUFFER_LOST:
			buffer_lost_after = samples;
			expect_offset += 8;
			break;
		case GPM_RECORDING_CORRELATION:
			ck_assert_uint_eq(rec.correlation.cpu_ns,
					  correlations ? 2000000 : 1000000);
			ck_assert_uint_eq(rec.correlation.gpu_timestamp,
					  correlations ?
					  0x200 + (uint64_t)n * 256 : 0x100);
			correlations++;
			expect_offset += 24;
			break;
		case GPM_RECORDING_CLOCKS:
			ck_abort_msg("a CLOCKS record nobody wrote");
			break;
		case GPM_RECORDING_END:
			break;
		}
	}
	ck_assert_int_eq(samples, n);
	ck_assert_int_eq(correlations, 2);
	ck_assert_int_eq(lost_after, n >= 1 ? 1 : -1);
	ck_assert_int_eq(buffer_lost_after, n >= 2 ? 2 : -1);
	ck_assert_uint_eq(r->stats.samples, (uint64_t)n);
	ck_assert_uint_eq(r->stats.reports_lost, n >= 1);
	ck_assert_uint_eq(r->stats.buffers_lost, n >= 2);
	ck_assert_uint_eq(r->stats.correlations, 2);
	ck_assert_uint_eq(r->stats.unknown_records, 0);
	ck_assert_uint_eq(r->stats.bytes, expect_offset);
	/* The end stays the end. */
	ck_assert_int_eq(gpm_recording_reader_next(r, &rec, &err), 0);
	ck_assert_int_eq(rec.kind, GPM_RECORDING_END);
}

START_TEST(test_round_trip_memory)
{
	struct membuf m;
	struct gpm_recording_reader *r = malloc(sizeof(*r));

	reference_in_memory(&m, 10);
	ck_assert_int_eq(gpm_recording_reader_open_memory(r, m.data, m.size,
							  NULL), 0);
	check_reference(r, 10);
	gpm_recording_reader_rewind(r);
	check_reference(r, 10);
	gpm_recording_reader_close(r);
	free(r);
	free(m.data);
}
END_TEST

START_TEST(test_round_trip_fd)
{
	char path[64] = "/tmp/gpm-test-recording-XXXXXX";
	struct gpm_recording_writer *w = malloc(sizeof(*w));
	struct gpm_recording_reader *r = malloc(sizeof(*r));
	struct gpm_recording_error err;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	gpm_recording_writer_init_fd(w, fd, 0);
	write_reference(w, 300);
	ck_assert_int_eq(gpm_recording_writer_flush(w, NULL), 0);
	close(fd);

	ck_assert_int_eq(gpm_recording_reader_open(r, path, &err), 0);
	check_reference(r, 300);
	gpm_recording_reader_close(r);
	unlink(path);

	ck_assert_int_eq(gpm_recording_reader_open(r, path, &err), -ENOENT);
	ck_assert_int_eq(err.code, GPM_RECORDING_ERR_IO);
	ck_assert_uint_eq(err.offset, GPM_RECORDING_NO_OFFSET);
	ck_assert_ptr_nonnull(strstr(err.message, "cannot open"));
	free(r);
	free(w);
}
END_TEST

START_TEST(test_header_only_and_empty)
{
	struct gpm_recording_info info;
	struct membuf m;
	uint64_t samples;

	skl_info(&info);
	membuf_open(&m, 0);
	ck_assert_int_eq(gpm_recording_write_header(&m.w, &info, NULL), 0);
	membuf_close(&m);
	ck_assert_int_eq(read_all(m.data, m.size, NULL, &samples), 0);
	ck_assert_uint_eq(samples, 0);
	free(m.data);

	expect_error("", 0, -EBADMSG, GPM_RECORDING_ERR_NO_DEVICE_INFO, 0,
		     "no DEVICE_INFO");
}
END_TEST

/* Every whole-record prefix of a recording reads without error. */
START_TEST(test_every_record_boundary_readable)
{
	struct membuf m;
	reference_in_memory(&m, 5);
	const unsigned char *p = (const unsigned char *)m.data;
	size_t offset = 0;
	int prefixes = 0;

	while (offset < m.size) {
		offset += (size_t)(p[offset + 6] | p[offset + 7] << 8);
		if (offset < OFF_BODY)
			continue;       /* before the topology: no device yet */
		ck_assert_int_eq(read_all(m.data, offset, NULL, NULL), 0);
		prefixes++;
	}
	ck_assert_int_eq(prefixes, 1 + 1 + 5 + 2 + 1);
	free(m.data);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Corruptions                                                          */

static void set_size(char *data, size_t offset, uint16_t size)
{
	put16((unsigned char *)data + offset + 6, size);
}

#define FIRST_SAMPLE (OFF_BODY + 24)
#define REPORT_LOST_AT (FIRST_SAMPLE + 264)

START_TEST(test_bad_size)
{
	struct membuf m;
	reference_in_memory(&m, 4);

	set_size(m.data, FIRST_SAMPLE, 0);
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_BAD_SIZE,
		     FIRST_SAMPLE, "record size 0 is smaller than the 8-byte");
	set_size(m.data, FIRST_SAMPLE, 7);
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_BAD_SIZE,
		     FIRST_SAMPLE, "record size 7");
	/* in the header, found by open */
	set_size(m.data, FIRST_SAMPLE, 264);
	set_size(m.data, 0, 0);
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_BAD_SIZE, 0,
		     "record size 0");
	free(m.data);
}
END_TEST

/* Text, or any file that does not start with a record, is named as what
 * it is not, not as a recording cut short. */
START_TEST(test_not_a_recording)
{
	static const char text[] = "# Network services, Internet style\n"
				   "tcpmux\t\t1/tcp\n";
	struct gpm_recording_error err;

	ck_assert_int_eq(read_all(text, sizeof(text) - 1, &err, NULL), -EBADMSG);
	ck_assert_int_eq(err.code, GPM_RECORDING_ERR_NOT_RECORDING);
	ck_assert_str_eq(err.message, "not an i915 perf recording: it does "
			 "not start with a record of that format (gpuperf "
			 "record, gpuperfd, its web UI and IGT's "
			 "i915-perf-recorder write them)");
}
END_TEST

START_TEST(test_size_past_end)
{
	struct membuf m;
	reference_in_memory(&m, 4);

	set_size(m.data, OFF_BODY, 65535);
	expect_error(m.data, m.size, -ENODATA, GPM_RECORDING_ERR_TRUNCATED,
		     OFF_BODY, "record size 65535 runs past the end of the file");
	/* A sample's size is checked against its format first. */
	set_size(m.data, OFF_BODY, 24);
	set_size(m.data, REPORT_LOST_AT + 8, 65535);
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_RECORD_SIZE,
		     REPORT_LOST_AT + 8, "SAMPLE record of 65535 bytes");
	free(m.data);
}
END_TEST

START_TEST(test_truncated_tail)
{
	struct membuf m;
	reference_in_memory(&m, 4);
	size_t last = m.size - 24;      /* the closing correlation */

	for (size_t cut = 1; cut < 24; cut++) {
		uint64_t samples;
		struct gpm_recording_error err;
		ck_assert_int_eq(read_all(m.data, last + cut, &err, &samples),
				 -ENODATA);
		ck_assert_int_eq(err.code, GPM_RECORDING_ERR_TRUNCATED);
		ck_assert_uint_eq(err.offset, last);
		ck_assert_ptr_nonnull(strstr(err.message, "truncated"));
		/* everything before was read */
		ck_assert_uint_eq(samples, 4);
	}
	expect_error(m.data, last + 3, -ENODATA, GPM_RECORDING_ERR_TRUNCATED,
		     last, "3 bytes into a record header");
	free(m.data);
}
END_TEST

START_TEST(test_bad_version)
{
	struct membuf m;
	reference_in_memory(&m, 2);

	put32((unsigned char *)m.data + 8, 2);
	expect_error(m.data, m.size, -ENOTSUP, GPM_RECORDING_ERR_VERSION, 0,
		     "unsupported recording version 2 (expected 1)");
	put32((unsigned char *)m.data + 8, 1);
	set_size(m.data, 0, 12);
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_RECORD_SIZE,
		     0, "VERSION record of 12 bytes, expected 16");
	/* Longer is as wrong: the device info would be read from inside it. */
	set_size(m.data, 0, 24);
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_RECORD_SIZE,
		     0, "VERSION record of 24 bytes, expected 16");
	free(m.data);
}
END_TEST

/* IGT's reader needs no VERSION record; neither do we. */
START_TEST(test_version_optional)
{
	struct membuf m;
	struct gpm_recording_reader *r = malloc(sizeof(*r));
	reference_in_memory(&m, 3);

	ck_assert_int_eq(gpm_recording_reader_open_memory(r, m.data + 16,
							  m.size - 16, NULL), 0);
	ck_assert_uint_eq(r->info.version, 0);
	ck_assert_uint_eq(r->info.device.pci_id, SKL_PCI_ID);
	free(r);
	free(m.data);
}
END_TEST

/* Removes len bytes at offset from a recording in memory. */
static void cut(struct membuf *m, size_t offset, size_t len)
{
	memmove(m->data + offset, m->data + offset + len,
		m->size - offset - len);
	m->size -= len;
}

START_TEST(test_missing_device_info)
{
	struct membuf m;
	reference_in_memory(&m, 2);

	cut(&m, OFF_DEVICE_INFO, 344);
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_NO_DEVICE_INFO,
		     FIRST_SAMPLE - 344, "no DEVICE_INFO record before the first");
	free(m.data);
}
END_TEST

START_TEST(test_missing_topology)
{
	struct membuf m;
	reference_in_memory(&m, 2);

	cut(&m, OFF_TOPOLOGY, 40);
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_NO_TOPOLOGY,
		     FIRST_SAMPLE - 40, "no DEVICE_TOPOLOGY record");
	/* without samples, the end of the file is where it is missed */
	expect_error(m.data, FIRST_SAMPLE - 40, -EBADMSG,
		     GPM_RECORDING_ERR_NO_TOPOLOGY, FIRST_SAMPLE - 40,
		     "no DEVICE_TOPOLOGY record");
	free(m.data);
}
END_TEST

/* A loss record before the device is described is as bad as a sample. */
START_TEST(test_loss_before_device_info)
{
	struct membuf m;
	reference_in_memory(&m, 2);

	unsigned char lost[8] = { 2, 0, 0, 0, 0, 0, 8, 0 };
	memcpy(m.data + OFF_DEVICE_INFO, lost, 8);
	set_size(m.data, OFF_DEVICE_INFO + 8, 336);     /* keep the framing */
	put32((unsigned char *)m.data + OFF_DEVICE_INFO + 8, 0x7777);
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_NO_DEVICE_INFO,
		     OFF_DEVICE_INFO, "no DEVICE_INFO");
	free(m.data);
}
END_TEST

START_TEST(test_wrong_device_info_size)
{
	struct membuf m;
	reference_in_memory(&m, 2);

	/* 352: a DEVICE_INFO with 8 bytes too many, the rest re-framed */
	set_size(m.data, OFF_DEVICE_INFO, 352);
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_RECORD_SIZE,
		     OFF_DEVICE_INFO, "DEVICE_INFO record of 352 bytes, expected 344");
	set_size(m.data, OFF_DEVICE_INFO, 336);
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_RECORD_SIZE,
		     OFF_DEVICE_INFO, "DEVICE_INFO record of 336 bytes");
	free(m.data);
}
END_TEST

START_TEST(test_wrong_lost_size)
{
	struct membuf m;
	reference_in_memory(&m, 4);
	uint64_t samples;
	struct gpm_recording_error err;

	/* A 16-byte REPORT_LOST swallowing the start of the next sample. */
	set_size(m.data, REPORT_LOST_AT, 16);
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_RECORD_SIZE,
		     REPORT_LOST_AT, "OA_REPORT_LOST record of 16 bytes, expected 8");
	/* found while iterating, after the first sample was yielded */
	ck_assert_int_eq(read_all(m.data, m.size, &err, &samples), -EBADMSG);
	ck_assert_uint_eq(samples, 1);

	set_size(m.data, REPORT_LOST_AT, 8);
	size_t buffer_lost = REPORT_LOST_AT + 8 + 264;
	set_size(m.data, buffer_lost, 16);
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_RECORD_SIZE,
		     buffer_lost, "OA_BUFFER_LOST record of 16 bytes");
	free(m.data);
}
END_TEST

START_TEST(test_wrong_correlation_size)
{
	struct membuf m;
	reference_in_memory(&m, 2);

	set_size(m.data, OFF_BODY, 16);
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_RECORD_SIZE,
		     OFF_BODY, "TIMESTAMP_CORRELATION record of 16 bytes, expected 24");
	/* Longer is as wrong as shorter: the next record would start inside. */
	set_size(m.data, OFF_BODY, 32);
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_RECORD_SIZE,
		     OFF_BODY, "TIMESTAMP_CORRELATION record of 32 bytes, expected 24");
	free(m.data);
}
END_TEST

START_TEST(test_sample_sizes)
{
	struct membuf m;
	reference_in_memory(&m, 4);

	/* A sample of 128 bytes followed by an unknown record of 136 keeps
	 * the framing but changes the report size. */
	size_t second = REPORT_LOST_AT + 8;
	set_size(m.data, second, 8 + 128);
	put32((unsigned char *)m.data + second + 136, 0x20000);
	set_size(m.data, second + 136, 128);
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_RECORD_SIZE,
		     second, "SAMPLE record of 136 bytes, expected 264 for "
		     "A32u40_A4u32_B8_C8 reports");

	free(m.data);
	reference_in_memory(&m, 4);
	set_size(m.data, FIRST_SAMPLE, 8);
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_RECORD_SIZE,
		     FIRST_SAMPLE, "SAMPLE record of 8 bytes, expected 264");
	free(m.data);

	/* An OA format unknown to the table: the first sample sets the size. */
	reference_in_memory(&m, 4);
	put32((unsigned char *)m.data + 56, 0x4242);
	struct gpm_recording_reader *r = malloc(sizeof(*r));
	ck_assert_int_eq(gpm_recording_reader_open_memory(r, m.data, m.size,
							  NULL), 0);
	ck_assert_uint_eq(r->info.report_size, 256);
	free(r);
	ck_assert_int_eq(read_all(m.data, m.size, NULL, NULL), 0);
	set_size(m.data, second, 8 + 128);
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_RECORD_SIZE,
		     second, "SAMPLE record of 136 bytes, the first one had 264");
	free(m.data);
}
END_TEST

START_TEST(test_bad_device_info_strings)
{
	struct membuf m;
	reference_in_memory(&m, 2);

	memset(m.data + 60, 'x', 256);
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_DEVICE_INFO,
		     OFF_DEVICE_INFO, "metric set name has no terminating NUL");
	free(m.data);
	reference_in_memory(&m, 2);
	memset(m.data + 316, 'x', 40);
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_DEVICE_INFO,
		     OFF_DEVICE_INFO, "uuid has no terminating NUL");
	free(m.data);
}
END_TEST

START_TEST(test_bad_topology)
{
	struct membuf m;
	reference_in_memory(&m, 2);

	/* eu_stride 2 makes the EU masks 24 bytes, past the 32-byte blob */
	put16((unsigned char *)m.data + OFF_TOPOLOGY + 8 + 14, 2);
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_TOPOLOGY,
		     OFF_TOPOLOGY, "EU masks run past the record");
	set_size(m.data, OFF_TOPOLOGY, 16);
	set_size(m.data, OFF_TOPOLOGY + 16, 24);        /* re-frame the rest */
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_TOPOLOGY,
		     OFF_TOPOLOGY, "shorter than the 16-byte fixed part");
	free(m.data);
}
END_TEST

/* A second DEVICE_INFO after samples: fine if equal, an error if not. */
START_TEST(test_repeated_header_records)
{
	struct membuf m;
	reference_in_memory(&m, 2);
	size_t size = m.size;
	char *twice = malloc(size + 344 + 40);

	memcpy(twice, m.data, size);
	memcpy(twice + size, m.data + OFF_DEVICE_INFO, 344 + 40);
	ck_assert_int_eq(read_all(twice, size + 344 + 40, NULL, NULL), 0);

	twice[size + 8 + 8] ^= 1;       /* device id */
	expect_error(twice, size + 344 + 40, -EBADMSG,
		     GPM_RECORDING_ERR_INCONSISTENT, size,
		     "DEVICE_INFO differs");
	twice[size + 8 + 8] ^= 1;
	twice[size + 344 + 8 + 16 + 5] ^= 1;    /* an EU mask */
	expect_error(twice, size + 344 + 40, -EBADMSG,
		     GPM_RECORDING_ERR_INCONSISTENT, size + 344,
		     "DEVICE_TOPOLOGY differs");
	free(twice);
	free(m.data);
}
END_TEST

START_TEST(test_errors_are_sticky)
{
	struct membuf m;
	struct gpm_recording_reader *r = malloc(sizeof(*r));
	struct gpm_recording_record rec;
	struct gpm_recording_error err;
	reference_in_memory(&m, 3);

	set_size(m.data, REPORT_LOST_AT, 0);
	ck_assert_int_eq(gpm_recording_reader_open_memory(r, m.data, m.size,
							  NULL), 0);
	/* the correlation, the first sample, then the bad record */
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(gpm_recording_reader_next(r, &rec, &err), 0);
		ck_assert_int_ne(rec.kind, GPM_RECORDING_END);
	}
	ck_assert_int_eq(gpm_recording_reader_next(r, &rec, &err), -EBADMSG);
	ck_assert_int_eq(err.code, GPM_RECORDING_ERR_BAD_SIZE);
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(gpm_recording_reader_next(r, &rec, &err), -EBADMSG);
	ck_assert_uint_eq(err.offset, REPORT_LOST_AT);
	ck_assert_int_eq(err.code, GPM_RECORDING_ERR_BAD_SIZE);
	free(r);
	free(m.data);
}
END_TEST

START_TEST(test_unknown_records_skipped)
{
	struct gpm_recording_info info;
	struct gpm_recording_reader *r = malloc(sizeof(*r));
	struct gpm_recording_record rec;
	unsigned char report[REPORT_SIZE], blob[100];
	struct membuf m;

	skl_info(&info);
	memset(blob, 0xab, sizeof(blob));
	membuf_open(&m, 0);
	ck_assert_int_eq(gpm_recording_write_record(&m.w, 0x12345, blob,
						    sizeof(blob), NULL), -EINVAL);
	ck_assert_int_eq(gpm_recording_write_header(&m.w, &info, NULL), 0);
	ck_assert_int_eq(gpm_recording_write_record(&m.w, 0x12345, blob,
						    sizeof(blob), NULL), 0);
	for (uint32_t i = 0; i < 3; i++) {
		skl_report(report, i, i * 512, 1);
		ck_assert_int_eq(gpm_recording_write_sample(&m.w, report,
							    sizeof(report),
							    NULL), 0);
		ck_assert_int_eq(gpm_recording_write_record(&m.w, 4 + i, NULL,
							    0, NULL), 0);
	}
	membuf_close(&m);

	ck_assert_int_eq(gpm_recording_reader_open_memory(r, m.data, m.size,
							  NULL), 0);
	for (uint32_t i = 0; i < 3; i++) {
		ck_assert_int_eq(gpm_recording_reader_next(r, &rec, NULL), 0);
		ck_assert_int_eq(rec.kind, GPM_RECORDING_SAMPLE);
		ck_assert_uint_eq(le32(rec.data + 4), i * 512);
	}
	ck_assert_int_eq(gpm_recording_reader_next(r, &rec, NULL), 0);
	ck_assert_int_eq(rec.kind, GPM_RECORDING_END);
	ck_assert_uint_eq(r->stats.unknown_records, 4);
	ck_assert_uint_eq(r->stats.samples, 3);
	free(r);
	free(m.data);
}
END_TEST

/* gpuperf's CLOCKS record reads back as written, between the samples
 * where it was written, and is no unknown record. */
START_TEST(test_clocks_record)
{
	struct gpm_recording_info info;
	struct gpm_recording_reader *r = malloc(sizeof(*r));
	struct gpm_recording_record rec;
	unsigned char report[REPORT_SIZE];
	struct gpm_recording_clocks c = { 123456789, 987654321012 };
	struct membuf m;

	skl_info(&info);
	membuf_open(&m, 0);
	ck_assert_int_eq(gpm_recording_write_header(&m.w, &info, NULL), 0);
	ck_assert_int_eq(gpm_recording_write_clocks(&m.w, &c, NULL), 0);
	skl_report(report, 0, 512, 1);
	ck_assert_int_eq(gpm_recording_write_sample(&m.w, report, sizeof(report),
						    NULL), 0);
	membuf_close(&m);

	ck_assert_int_eq(gpm_recording_reader_open_memory(r, m.data, m.size,
							  NULL), 0);
	ck_assert_int_eq(gpm_recording_reader_next(r, &rec, NULL), 0);
	ck_assert_int_eq(rec.kind, GPM_RECORDING_CLOCKS);
	ck_assert_uint_eq(rec.clocks.monotonic_ns, c.monotonic_ns);
	ck_assert_uint_eq(rec.clocks.boottime_ns, c.boottime_ns);
	ck_assert_int_eq(gpm_recording_reader_next(r, &rec, NULL), 0);
	ck_assert_int_eq(rec.kind, GPM_RECORDING_SAMPLE);
	ck_assert_uint_eq(r->stats.unknown_records, 0);

	/* One of the wrong size is refused, as the IGT records are. */
	ck_assert_uint_eq(le32((const unsigned char *)m.data + OFF_BODY),
			  GPM_RECORDING_TYPE_CLOCKS);
	set_size(m.data, OFF_BODY, 16);
	expect_error(m.data, m.size, -EBADMSG, GPM_RECORDING_ERR_RECORD_SIZE,
		     OFF_BODY, "CLOCKS record of 16 bytes, expected 24");
	free(r);
	free(m.data);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Writer                                                               */

START_TEST(test_writer_arguments)
{
	struct gpm_recording_info info;
	struct gpm_recording_error err;
	unsigned char report[REPORT_SIZE] = { 0 };
	struct membuf m;

	membuf_open(&m, 0);
	ck_assert_int_eq(gpm_recording_write_sample(&m.w, report, 256, &err),
			 -EINVAL);
	ck_assert_int_eq(err.code, GPM_RECORDING_ERR_ARGUMENT);
	ck_assert_ptr_nonnull(strstr(err.message, "header records must be"));

	skl_info(&info);
	memset(info.metric_set, 'x', sizeof(info.metric_set));
	ck_assert_int_eq(gpm_recording_write_header(&m.w, &info, &err), -EINVAL);
	skl_info(&info);
	memset(info.uuid, 'x', sizeof(info.uuid));
	ck_assert_int_eq(gpm_recording_write_header(&m.w, &info, &err), -EINVAL);
	skl_info(&info);
	info.device.gpu_max_freq = 5000000000ull;
	ck_assert_int_eq(gpm_recording_write_header(&m.w, &info, &err), -EINVAL);
	skl_info(&info);
	info.device.topology.max_subslices = 65;
	ck_assert_int_eq(gpm_recording_write_header(&m.w, &info, &err), -EINVAL);
	ck_assert_uint_eq(gpm_recording_writer_offset(&m.w), 0);

	skl_info(&info);
	ck_assert_int_eq(gpm_recording_write_header(&m.w, &info, &err), 0);
	ck_assert_int_eq(gpm_recording_write_header(&m.w, &info, &err), -EINVAL);
	ck_assert_int_eq(gpm_recording_write_sample(&m.w, report, 0, &err),
			 -EINVAL);
	ck_assert_int_eq(gpm_recording_write_sample(&m.w, report, 65528, &err),
			 -EINVAL);
	/* the header's A32u40_A4u32_B8_C8 reports are 256 bytes */
	ck_assert_int_eq(gpm_recording_write_sample(&m.w, report, 128, &err),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.message, "stream of 256-byte reports"));
	ck_assert_int_eq(gpm_recording_write_record(&m.w, 2, report, 8, &err),
			 -EINVAL);
	ck_assert_int_eq(gpm_recording_write_record(&m.w, 0x10001, report, 8,
						    &err), -EINVAL);
	ck_assert_int_eq(gpm_recording_write_record(&m.w, 0x10003, report, 8,
						    &err), -EINVAL);
	ck_assert_uint_eq(gpm_recording_writer_offset(&m.w), OFF_BODY);

	/* One byte more than the format's 16-bit size can say is refused,
	 * and nothing is written; the largest it allows is written. */
	static unsigned char big[65528];
	ck_assert_int_eq(gpm_recording_write_record(&m.w, 0x20000, big,
						    sizeof(big), &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.message, "65536 bytes exceeds"));
	ck_assert_uint_eq(gpm_recording_writer_offset(&m.w), OFF_BODY);
	ck_assert_int_eq(gpm_recording_write_record(&m.w, 0x20000, big,
						    sizeof(big) - 1, &err), 0);
	ck_assert_uint_eq(gpm_recording_writer_offset(&m.w), OFF_BODY + 65535);
	membuf_close(&m);
	ck_assert_int_eq(read_all(m.data, m.size, NULL, NULL), 0);
	free(m.data);
}
END_TEST

static off_t file_size(int fd)
{
	struct stat st;
	ck_assert_int_eq(fstat(fd, &st), 0);
	return st.st_size;
}

/* What reaches the file when, per the documented flush policy. */
START_TEST(test_writer_flush_policy)
{
	struct gpm_recording_writer *w = malloc(sizeof(*w));
	struct gpm_recording_info info;
	unsigned char report[REPORT_SIZE] = { 0 };
	struct gpm_recording_correlation c = { 1, 2 };
	int fd = memfd_create("recording", 0);

	ck_assert_int_ge(fd, 0);
	skl_info(&info);
	gpm_recording_writer_init_fd(w, fd, 0);
	ck_assert_int_eq(gpm_recording_write_header(w, &info, NULL), 0);
	ck_assert_int_eq(file_size(fd), OFF_BODY);
	ck_assert_int_eq(gpm_recording_write_sample(w, report, 256, NULL), 0);
	ck_assert_int_eq(file_size(fd), OFF_BODY);
	ck_assert_int_eq(gpm_recording_write_correlation(w, &c, NULL), 0);
	const off_t flushed = OFF_BODY + 264 + 24;
	ck_assert_int_eq(file_size(fd), flushed);
	/* A full buffer goes out whole: 248 samples fill 65472 bytes. */
	for (int i = 0; i < 248; i++)
		ck_assert_int_eq(gpm_recording_write_sample(w, report, 256,
							    NULL), 0);
	ck_assert_int_eq(file_size(fd), flushed);
	ck_assert_int_eq(gpm_recording_write_sample(w, report, 256, NULL), 0);
	ck_assert_int_eq(file_size(fd), flushed + 248 * 264);
	ck_assert_int_eq(gpm_recording_writer_flush(w, NULL), 0);
	ck_assert_int_eq(file_size(fd), flushed + 249 * 264);
	close(fd);

	fd = memfd_create("recording", 0);
	gpm_recording_writer_init_fd(w, fd, GPM_RECORDING_WRITE_THROUGH);
	ck_assert_int_eq(gpm_recording_write_header(w, &info, NULL), 0);
	ck_assert_int_eq(gpm_recording_write_sample(w, report, 256, NULL), 0);
	ck_assert_int_eq(file_size(fd), OFF_BODY + 264);
	ck_assert_int_eq(gpm_recording_write_report_lost(w, NULL), 0);
	ck_assert_int_eq(file_size(fd), OFF_BODY + 264 + 8);
	close(fd);
	free(w);
}
END_TEST

START_TEST(test_writer_io_error)
{
	struct gpm_recording_writer *w = malloc(sizeof(*w));
	struct gpm_recording_info info;
	struct gpm_recording_error err;
	int fds[2];

	ck_assert_int_eq(pipe(fds), 0);
	close(fds[0]);
	/* a closed pipe: EPIPE instead of SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	skl_info(&info);
	gpm_recording_writer_init_fd(w, fds[1], 0);
	ck_assert_int_eq(gpm_recording_write_header(w, &info, &err), -EPIPE);
	ck_assert_int_eq(err.code, GPM_RECORDING_ERR_IO);
	ck_assert_uint_eq(err.offset, 0);
	ck_assert_ptr_nonnull(strstr(err.message, "write failed"));
	ck_assert_int_eq(gpm_recording_writer_flush(w, &err), -EPIPE);
	close(fds[1]);
	free(w);
}
END_TEST

/* Reads back the correlation points of a recording in memory. */
static int read_correlations(const struct membuf *m,
			     struct gpm_recording_correlation *out, int max)
{
	struct gpm_recording_reader *r = malloc(sizeof(*r));
	struct gpm_recording_record rec;
	int n = 0;

	ck_assert_int_eq(gpm_recording_reader_open_memory(r, m->data, m->size,
							  NULL), 0);
	for (;;) {
		ck_assert_int_eq(gpm_recording_reader_next(r, &rec, NULL), 0);
		if (rec.kind == GPM_RECORDING_END)
			break;
		if (rec.kind == GPM_RECORDING_CORRELATION) {
			ck_assert_int_lt(n, max);
			out[n++] = rec.correlation;
		}
	}
	free(r);
	return n;
}

START_TEST(test_correlation_bridging)
{
	struct gpm_recording_info info;
	struct gpm_recording_correlation got[16];
	struct gpm_recording_error err;
	struct membuf m;

	skl_info(&info);
	membuf_open(&m, 0);
	ck_assert_int_eq(gpm_recording_write_header(&m.w, &info, NULL), 0);
	struct gpm_recording_correlation a = { 1000000000, 0x3fffff000 };
	struct gpm_recording_correlation b = { 1000000000 + 2000, 0x400001000 };
	/* 0x2000 ticks in 2000 ns: 1 ns per 4.096 ticks */
	ck_assert_int_eq(gpm_recording_write_correlation_bridged(&m.w, &a,
								 NULL), 0);
	ck_assert_int_eq(gpm_recording_write_correlation_bridged(&m.w, &b,
								 NULL), 0);
	/* within one epoch: nothing added */
	struct gpm_recording_correlation c = { b.cpu_ns + 10, b.gpu_timestamp + 40 };
	ck_assert_int_eq(gpm_recording_write_correlation_bridged(&m.w, &c,
								 NULL), 0);
	/* three edges on the way */
	struct gpm_recording_correlation d = { c.cpu_ns + 1000000000,
					       0x700000010 };
	ck_assert_int_eq(gpm_recording_write_correlation_bridged(&m.w, &d,
								 NULL), 0);
	/* one ending exactly on the next epoch's first tick */
	struct gpm_recording_correlation e = { d.cpu_ns + 1000, 0x800000000 };
	ck_assert_int_eq(gpm_recording_write_correlation_bridged(&m.w, &e,
								 NULL), 0);
	/* going backwards bridges nothing */
	struct gpm_recording_correlation f = { e.cpu_ns + 1000, 0x10 };
	ck_assert_int_eq(gpm_recording_write_correlation_bridged(&m.w, &f,
								 NULL), 0);
	/* absurd gaps are refused */
	struct gpm_recording_correlation g = { f.cpu_ns + 1, 0x20000000000 };
	uint64_t before = gpm_recording_writer_offset(&m.w);
	ck_assert_int_eq(gpm_recording_write_correlation_bridged(&m.w, &g,
								 &err), -ERANGE);
	ck_assert_uint_eq(gpm_recording_writer_offset(&m.w), before);
	membuf_close(&m);

	int n = read_correlations(&m, got, 16);
	ck_assert_int_eq(n, 1 + 3 + 1 + 7 + 2 + 1);
	ck_assert_uint_eq(got[0].gpu_timestamp, a.gpu_timestamp);
	ck_assert_uint_eq(got[1].gpu_timestamp, 0x3ffffffff);
	ck_assert_uint_eq(got[1].cpu_ns, a.cpu_ns + (0xfff * 2000) / 0x2000);
	ck_assert_uint_eq(got[2].gpu_timestamp, 0x400000000);
	ck_assert_uint_eq(got[2].cpu_ns, a.cpu_ns + (0x1000 * 2000) / 0x2000);
	ck_assert_uint_eq(got[3].gpu_timestamp, b.gpu_timestamp);
	ck_assert_uint_eq(got[4].gpu_timestamp, c.gpu_timestamp);
	static const uint64_t edges[6] = {
		0x4ffffffff, 0x500000000, 0x5ffffffff, 0x600000000,
		0x6ffffffff, 0x700000000,
	};
	for (int i = 0; i < 6; i++) {
		ck_assert_uint_eq(got[5 + i].gpu_timestamp, edges[i]);
		/* edges one tick apart may share a nanosecond */
		ck_assert_uint_ge(got[5 + i].cpu_ns, got[4 + i].cpu_ns);
	}
	ck_assert_uint_eq(got[11].gpu_timestamp, d.gpu_timestamp);
	ck_assert_uint_eq(got[12].gpu_timestamp, 0x7ffffffff);
	ck_assert_uint_eq(got[13].gpu_timestamp, e.gpu_timestamp);
	ck_assert_uint_eq(got[14].gpu_timestamp, f.gpu_timestamp);
	free(m.data);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Big files                                                            */

static long max_rss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/*
 * 26 MB of samples stream through the reader with no allocation and no
 * growth of the resident set; the file is never mapped or held.
 */
START_TEST(test_big_file_flat_memory)
{
	enum { N = 100000 };
	char path[64] = "/tmp/gpm-test-recording-XXXXXX";
	struct gpm_recording_writer *w = malloc(sizeof(*w));
	struct gpm_recording_reader *r = malloc(sizeof(*r));
	struct gpm_recording_record rec;
	struct gpm_recording_info info;
	unsigned char report[REPORT_SIZE] = { 0 };
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	unlink(path);
	skl_info(&info);
	gpm_recording_writer_init_fd(w, fd, 0);
	ck_assert_int_eq(gpm_recording_write_header(w, &info, NULL), 0);
	for (uint32_t i = 0; i < N; i++) {
		put32(report + 4, i);
		ck_assert_int_eq(gpm_recording_write_sample(w, report,
							    sizeof(report),
							    NULL), 0);
	}
	ck_assert_int_eq(gpm_recording_writer_flush(w, NULL), 0);
	ck_assert_int_gt(file_size(fd), 264 * N);

	ck_assert_int_eq(gpm_recording_reader_open_fd(r, fd, NULL), 0);
	long rss_before = max_rss_kb();
	struct mallinfo2 heap_before = mallinfo2();
	/* No ck_assert in the loop: Check allocates for every one. */
	uint32_t n = 0, out_of_order = 0;
	int rc;
	while ((rc = gpm_recording_reader_next(r, &rec, NULL)) == 0 &&
	       rec.kind != GPM_RECORDING_END) {
		out_of_order += le32(rec.data + 4) != n;
		n++;
	}
	struct mallinfo2 heap_after = mallinfo2();
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(n, N);
	ck_assert_uint_eq(out_of_order, 0);
	ck_assert_uint_eq(heap_after.uordblks, heap_before.uordblks);
	ck_assert_uint_eq(heap_after.hblkhd, heap_before.hblkhd);
	ck_assert_int_lt(max_rss_kb() - rss_before, 1024);
	close(fd);
	free(r);
	free(w);
}
END_TEST

/*
 * Records of every size straddle the reader's window in every way; the
 * file path (pread through the window) must agree with the memory path.
 */
START_TEST(test_window_refills)
{
	struct gpm_recording_info info;
	struct membuf m;
	static unsigned char payload[65527];
	uint32_t seed = 12345;

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (unsigned char)(i * 131);
	skl_info(&info);
	membuf_open(&m, 0);
	ck_assert_int_eq(gpm_recording_write_header(&m.w, &info, NULL), 0);
	for (int i = 0; i < 400; i++) {
		seed = seed * 1103515245 + 12345;
		size_t size = (seed >> 8) % sizeof(payload);
		if (i % 3 == 0)
			size = 256;
		uint32_t type = i % 3 == 0 ? 1 : 0x20000;
		if (type == 1)
			put32(payload, (uint32_t)i);
		ck_assert_int_eq(gpm_recording_write_record(&m.w, type, payload,
							    size, NULL), 0);
	}
	membuf_close(&m);

	int fd = memfd_create("recording", 0);
	ck_assert_int_eq(write(fd, m.data, m.size), (ssize_t)m.size);
	struct gpm_recording_reader *a = malloc(sizeof(*a));
	struct gpm_recording_reader *b = malloc(sizeof(*b));
	ck_assert_int_eq(gpm_recording_reader_open_fd(a, fd, NULL), 0);
	ck_assert_int_eq(gpm_recording_reader_open_memory(b, m.data, m.size,
							  NULL), 0);
	for (;;) {
		struct gpm_recording_record ra, rb;
		ck_assert_int_eq(gpm_recording_reader_next(a, &ra, NULL), 0);
		ck_assert_int_eq(gpm_recording_reader_next(b, &rb, NULL), 0);
		ck_assert_int_eq(ra.kind, rb.kind);
		ck_assert_uint_eq(ra.offset, rb.offset);
		if (ra.kind == GPM_RECORDING_END)
			break;
		ck_assert_uint_eq(ra.size, rb.size);
		ck_assert_mem_eq(ra.data, rb.data, ra.size);
	}
	ck_assert_uint_eq(a->stats.samples, 134);
	ck_assert_uint_eq(a->stats.unknown_records, 266);

	/* A truncated tail is found by both, at the same place. */
	ck_assert_int_eq(ftruncate(fd, (off_t)m.size - 1), 0);
	struct gpm_recording_error ea, eb;
	int rca = gpm_recording_reader_open_fd(a, fd, &ea);
	int rcb = gpm_recording_reader_open_memory(b, m.data, m.size - 1, &eb);
	struct gpm_recording_record ra, rb;
	while (rca == 0 && rcb == 0) {
		rca = gpm_recording_reader_next(a, &ra, &ea);
		rcb = gpm_recording_reader_next(b, &rb, &eb);
		ck_assert_int_eq(rca, rcb);
		if (rca == 0)
			ck_assert_int_ne(ra.kind, GPM_RECORDING_END);
	}
	ck_assert_int_eq(rca, -ENODATA);
	ck_assert_int_eq(rcb, -ENODATA);
	ck_assert_uint_eq(ea.offset, eb.offset);
	ck_assert_str_eq(ea.message, eb.message);
	close(fd);
	free(a);
	free(b);
	free(m.data);
}
END_TEST

/* Walks r with _next_samples (at most max per SAMPLE) against ref with
 * _next: the same records, the same bytes, the same stats and error.
 * Returns the most samples one call gave. */
static size_t assert_samples_match(struct gpm_recording_reader *ref,
				   struct gpm_recording_reader *r, size_t max)
{
	size_t most = 0;

	for (;;) {
		struct gpm_recording_record a, b;
		struct gpm_recording_error ea, eb;
		int rcb = gpm_recording_reader_next_samples(r, &b, max, &eb);
		int rca = gpm_recording_reader_next(ref, &a, &ea);

		ck_assert_int_eq(rcb, rca);
		if (rca < 0) {
			ck_assert_uint_eq(eb.offset, ea.offset);
			ck_assert_str_eq(eb.message, ea.message);
			break;
		}
		ck_assert_int_eq(b.kind, a.kind);
		ck_assert_uint_eq(b.offset, a.offset);
		if (a.kind == GPM_RECORDING_END)
			break;
		if (a.kind == GPM_RECORDING_CORRELATION)
			ck_assert_mem_eq(&b.correlation, &a.correlation,
					 sizeof(a.correlation));
		if (a.kind != GPM_RECORDING_SAMPLE)
			continue;
		ck_assert_uint_ge(b.count, 1);
		ck_assert_uint_le(b.count, max);
		most = b.count > most ? b.count : most;
		ck_assert_uint_eq(a.count, 1);
		for (size_t i = 0; i < b.count; i++) {
			if (i) {
				ck_assert_int_eq(gpm_recording_reader_next(ref, &a, NULL), 0);
				ck_assert_int_eq(a.kind, GPM_RECORDING_SAMPLE);
				ck_assert_uint_eq(b.offset + i * b.stride, a.offset);
			}
			ck_assert_uint_eq(b.size, a.size);
			ck_assert_mem_eq(b.data + i * b.stride, a.data, a.size);
		}
	}
	ck_assert_mem_eq(&r->stats, &ref->stats, sizeof(ref->stats));
	return most;
}

/*
 * Runs of samples read as the samples one at a time do, over the file
 * (where runs end with the window) and in memory, among losses,
 * correlation points and unknown records, and up to a truncated tail.
 */
START_TEST(test_next_samples)
{
	static const size_t maxes[] = { 1, 2, 7, SIZE_MAX };
	struct gpm_recording_info info;
	unsigned char report[REPORT_SIZE], other[300];
	struct gpm_recording_correlation c = { 1000000, 0x100 };
	struct membuf m;
	uint32_t seed = 99;

	skl_info(&info);
	membuf_open(&m, 0);
	ck_assert_int_eq(gpm_recording_write_header(&m.w, &info, NULL), 0);
	memset(other, 0x5a, sizeof(other));
	for (uint32_t i = 0; i < 3000; i++) {
		seed = seed * 1103515245 + 12345;
		switch ((seed >> 16) % 40) {
		case 0:
			ck_assert_int_eq(gpm_recording_write_report_lost(&m.w, NULL), 0);
			break;
		case 1:
			ck_assert_int_eq(gpm_recording_write_buffer_lost(&m.w, NULL), 0);
			break;
		case 2:
			c.gpu_timestamp += 1000;
			ck_assert_int_eq(gpm_recording_write_correlation(&m.w, &c, NULL), 0);
			break;
		case 3:
			ck_assert_int_eq(gpm_recording_write_record(&m.w, 0x20000, other,
								    (seed >> 8) % sizeof(other),
								    NULL), 0);
			break;
		}
		skl_report(report, i, 0x200 + i * 256, 0x42);
		ck_assert_int_eq(gpm_recording_write_sample(&m.w, report, sizeof(report),
							    NULL), 0);
	}
	membuf_close(&m);

	int fd = memfd_create("recording", 0);
	ck_assert_int_eq(write(fd, m.data, m.size), (ssize_t)m.size);
	struct gpm_recording_reader *ref = malloc(sizeof(*ref));
	struct gpm_recording_reader *r = malloc(sizeof(*r));
	for (int truncated = 0; truncated < 2; truncated++) {
		size_t size = m.size - (size_t)truncated * 100;

		ck_assert_int_eq(ftruncate(fd, (off_t)size), 0);
		for (size_t i = 0; i < sizeof(maxes) / sizeof(maxes[0]); i++) {
			ck_assert_int_eq(gpm_recording_reader_open_memory(ref, m.data, size,
									  NULL), 0);
			ck_assert_int_eq(gpm_recording_reader_open_fd(r, fd, NULL), 0);
			size_t from_file = assert_samples_match(ref, r, maxes[i]);
			ck_assert_int_eq(gpm_recording_reader_open_memory(ref, m.data, size,
									  NULL), 0);
			ck_assert_int_eq(gpm_recording_reader_open_memory(r, m.data, size,
									  NULL), 0);
			size_t from_memory = assert_samples_match(ref, r, maxes[i]);
			/* Somewhere the runs are as long as max lets them be. */
			size_t longest = maxes[i] < 10 ? maxes[i] : 10;
			ck_assert_uint_ge(from_file, longest);
			ck_assert_uint_ge(from_memory, longest);
		}
	}
	close(fd);
	free(ref);
	free(r);
	free(m.data);
}
END_TEST

START_TEST(test_open_fd_not_regular)
{
	struct gpm_recording_reader *r = malloc(sizeof(*r));
	struct gpm_recording_error err;
	int fds[2];

	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(gpm_recording_reader_open_fd(r, fds[0], &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.message, "regular file"));
	close(fds[0]);
	close(fds[1]);
	free(r);
}
END_TEST

/*
 * A source handing a recording in memory over in stretches of the least
 * it may, each copied into the one buffer (so a stretch is gone at the
 * next fetch), and failing or cut short on request.
 */
struct stretches {
	const unsigned char *data;
	size_t size;
	uint64_t fail_from;             /* fetches from here on fail */
	uint64_t shrunk_to;             /* the bytes from here on are gone */
	unsigned char buf[GPM_RECORDING_READER_BUFFER_SIZE];
};

static ssize_t stretch_fetch(void *ctx, uint64_t offset,
			     const unsigned char **data)
{
	struct stretches *s = ctx;
	uint64_t end = s->size < s->shrunk_to ? s->size : s->shrunk_to;
	size_t n = 0;

	if (offset >= s->fail_from)
		return -EIO;
	if (end > offset)
		n = end - offset < sizeof(s->buf) ? (size_t)(end - offset) :
		    sizeof(s->buf);
	/* What lies past the stretch is garbage. */
	memset(s->buf, 0xa5, sizeof(s->buf));
	memcpy(s->buf, s->data + offset, n);
	*data = s->buf;
	return (ssize_t)n;
}

static void stretches_init(struct stretches *s, const void *data, size_t size)
{
	s->data = data;
	s->size = size;
	s->fail_from = UINT64_MAX;
	s->shrunk_to = UINT64_MAX;
}

/*
 * A source's stretches read as the recording in memory does, with records
 * of every size across them; a failed fetch and a stretch cut short are
 * the reader's read failure and shrunk file.
 */
START_TEST(test_source)
{
	struct gpm_recording_info info;
	struct membuf m;
	static unsigned char payload[65527];
	unsigned char report[REPORT_SIZE];
	struct stretches *st = malloc(sizeof(*st));
	struct gpm_recording_source source = { 0, stretch_fetch, st };
	struct gpm_recording_reader *ref = malloc(sizeof(*ref));
	struct gpm_recording_reader *r = malloc(sizeof(*r));
	struct gpm_recording_record rec;
	struct gpm_recording_error err;
	uint32_t seed = 777;

	memset(payload, 0x3c, sizeof(payload));
	skl_info(&info);
	membuf_open(&m, 0);
	ck_assert_int_eq(gpm_recording_write_header(&m.w, &info, NULL), 0);
	for (uint32_t i = 0; i < 2000; i++) {
		seed = seed * 1103515245 + 12345;
		if (i % 50 == 0)
			ck_assert_int_eq(gpm_recording_write_record(
				&m.w, 0x20000, payload,
				(seed >> 8) % sizeof(payload), NULL), 0);
		skl_report(report, i, 0x200 + i * 256, 0x42);
		ck_assert_int_eq(gpm_recording_write_sample(&m.w, report,
							    sizeof(report),
							    NULL), 0);
	}
	membuf_close(&m);

	for (int truncated = 0; truncated < 2; truncated++) {
		size_t size = m.size - (size_t)truncated * 100;
		static const size_t maxes[] = { 1, SIZE_MAX };

		for (size_t i = 0; i < 2; i++) {
			stretches_init(st, m.data, size);
			source.size = size;
			ck_assert_int_eq(gpm_recording_reader_open_memory(
				ref, m.data, size, NULL), 0);
			ck_assert_int_eq(gpm_recording_reader_open_source(
				r, &source, NULL), 0);
			assert_samples_match(ref, r, maxes[i]);
		}
	}

	uint64_t middle = m.size / 2;
	stretches_init(st, m.data, m.size);
	source.size = m.size;
	st->fail_from = middle;
	ck_assert_int_eq(gpm_recording_reader_open_source(r, &source, NULL), 0);
	int rc;
	while ((rc = gpm_recording_reader_next(r, &rec, &err)) == 0)
		ck_assert_int_ne(rec.kind, GPM_RECORDING_END);
	ck_assert_int_eq(rc, -EIO);
	ck_assert_int_eq(err.code, GPM_RECORDING_ERR_IO);
	ck_assert_uint_ge(err.offset, middle);
	ck_assert_uint_lt(err.offset, middle + GPM_RECORDING_READER_BUFFER_SIZE);
	ck_assert_ptr_nonnull(strstr(err.message, "read failed"));

	stretches_init(st, m.data, m.size);
	st->shrunk_to = middle;
	ck_assert_int_eq(gpm_recording_reader_open_source(r, &source, NULL), 0);
	while ((rc = gpm_recording_reader_next(r, &rec, &err)) == 0)
		ck_assert_int_ne(rec.kind, GPM_RECORDING_END);
	ck_assert_int_eq(rc, -EIO);
	ck_assert_uint_eq(err.offset, middle);
	ck_assert_ptr_nonnull(strstr(err.message, "the file shrank"));

	source.fetch = NULL;
	ck_assert_int_eq(gpm_recording_reader_open_source(r, &source, &err),
			 -EINVAL);
	ck_assert_int_eq(err.code, GPM_RECORDING_ERR_ARGUMENT);
	free(st);
	free(ref);
	free(r);
	free(m.data);
}
END_TEST

/* ------------------------------------------------------------------ */
/* IGT's i915-perf-reader                                               */

/*
 * A Skylake GT2 RenderBasic recording as IGT's recorder would write it:
 * periodic reports 2 << exponent ticks apart, one context switch, a
 * REPORT_LOST, and correlation points before, during and after.
 */
static void write_igt_recording(int fd, int n_reports)
{
	struct gpm_recording_writer *w = malloc(sizeof(*w));
	struct gpm_recording_info info;
	unsigned char report[REPORT_SIZE];
	const unsigned exponent = 14;   /* 2^15 ticks at 12 MHz: 2.7 ms */
	const uint32_t period = 2u << exponent;
	const uint64_t gpu0 = 0x5a0000000ull;

	skl_info(&info);
	gpm_recording_writer_init_fd(w, fd, 0);
	ck_assert_int_eq(gpm_recording_write_header(w, &info, NULL), 0);
	struct gpm_recording_correlation c = { 5000000000ull, gpu0 - 100 };
	ck_assert_int_eq(gpm_recording_write_correlation_bridged(w, &c, NULL), 0);
	for (int i = 0; i < n_reports; i++) {
		uint64_t ts = gpu0 + (uint64_t)i * period;
		skl_report(report, (uint32_t)i, (uint32_t)ts,
			   i < n_reports / 2 ? 0x10 : 0x20);
		ck_assert_int_eq(gpm_recording_write_sample(w, report,
							    sizeof(report),
							    NULL), 0);
		if (i == 3)
			ck_assert_int_eq(gpm_recording_write_report_lost(w, NULL), 0);
		if (i == n_reports / 3) {
			c.gpu_timestamp = ts + 10;
			c.cpu_ns = 5000000000ull + (c.gpu_timestamp - gpu0 + 100) *
				   1000 / 12;
			ck_assert_int_eq(gpm_recording_write_correlation_bridged(
						 w, &c, NULL), 0);
		}
	}
	c.gpu_timestamp = gpu0 + (uint64_t)n_reports * period;
	c.cpu_ns = 5000000000ull + (c.gpu_timestamp - gpu0 + 100) * 1000 / 12;
	ck_assert_int_eq(gpm_recording_write_correlation_bridged(w, &c, NULL), 0);
	free(w);
}

/* Runs i915-perf-reader on path; returns its exit status, output in out. */
static int run_igt_reader(const char *args, const char *path, char *out,
			  size_t size)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "%s %s '%s' 2>&1", IGT_READER, args, path);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	size_t len = fread(out, 1, size - 1, p);
	out[len] = '\0';
	int status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

START_TEST(test_igt_reader_accepts)
{
	char path[64] = "/tmp/gpm-test-recording-XXXXXX";
	static char out[1 << 16];

	if (access(IGT_READER, X_OK) != 0)
		TEST_SKIP("IGT's reader on a recording",
			  "%s: Debian package intel-gpu-tools", IGT_READER);
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	write_igt_recording(fd, 40);
	close(fd);

	int rc = run_igt_reader("-c GpuTime,GpuCoreClocks", path, out,
				sizeof(out));
	unlink(path);
	ck_assert_msg(rc == 0, "i915-perf-reader exited %d:\n%s", rc, out);
	ck_assert_msg(strstr(out, "Recorded on device=0x1916(skylake) "
			     "graphics_ver=9\n"), "%s", out);
	ck_assert_msg(strstr(out, "Metric used : RenderBasic "), "%s", out);
	ck_assert_msg(strstr(out, "uuid=" SKL_RENDER_BASIC_GUID "\n"), "%s", out);
	ck_assert_msg(!strstr(out, "WARNING"), "%s", out);
	ck_assert_msg(strstr(out, "\nReports: 40\n"), "%s", out);
	ck_assert_msg(strstr(out, "\nContext switches: 2\n"), "%s", out);
	ck_assert_msg(strstr(out, "\nTimestamp correlation points: 3\n"), "%s", out);
	/* 20 reports of 2^15 ticks at 12 MHz for the second context */
	ck_assert_msg(strstr(out, "GpuTime: 54613333\n"), "%s", out);
}
END_TEST

/* A recording whose OA timestamps wrap 32 bits, bridged so IGT's reader
 * can place every timeline boundary. */
START_TEST(test_igt_reader_timestamp_wrap)
{
	char path[64] = "/tmp/gpm-test-recording-XXXXXX";
	static char out[1 << 16];
	struct gpm_recording_info info;
	unsigned char report[REPORT_SIZE];
	const uint32_t period = 2u << 16;
	const uint64_t gpu0 = 0x2ffff0000ull - 20 * (uint64_t)period;

	if (access(IGT_READER, X_OK) != 0)
		TEST_SKIP("IGT's reader on a wrapping recording",
			  "%s: Debian package intel-gpu-tools", IGT_READER);
	struct gpm_recording_writer *w = malloc(sizeof(*w));
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	skl_info(&info);
	gpm_recording_writer_init_fd(w, fd, 0);
	ck_assert_int_eq(gpm_recording_write_header(w, &info, NULL), 0);
	struct gpm_recording_correlation c = { 1000000000, gpu0 - 1 };
	ck_assert_int_eq(gpm_recording_write_correlation_bridged(w, &c, NULL), 0);
	/* context changes every 8 reports, so boundaries fall after the wrap */
	for (int i = 0; i < 48; i++) {
		uint64_t ts = gpu0 + (uint64_t)i * period;
		skl_report(report, (uint32_t)i, (uint32_t)ts,
			   0x100 + (uint32_t)i / 8);
		ck_assert_int_eq(gpm_recording_write_sample(w, report,
							    sizeof(report),
							    NULL), 0);
	}
	c.gpu_timestamp = gpu0 + 48 * (uint64_t)period;
	c.cpu_ns = 1000000000 + (c.gpu_timestamp - gpu0 + 1) * 1000 / 12;
	ck_assert_int_eq(gpm_recording_write_correlation_bridged(w, &c, NULL), 0);
	free(w);
	close(fd);

	int rc = run_igt_reader("-c GpuTime", path, out, sizeof(out));
	unlink(path);
	ck_assert_msg(rc == 0, "i915-perf-reader exited %d:\n%s", rc, out);
	ck_assert_msg(strstr(out, "\nReports: 48\n"), "%s", out);
	ck_assert_msg(strstr(out, "\nTimestamp correlation points: 4\n"), "%s", out);
	ck_assert_msg(strstr(out, "\nContext switches: 6\n"), "%s", out);
}
END_TEST

static Suite *recording_suite(void)
{
	Suite *s = suite_create("recording");
	TCase *layout = tcase_create("layout");
	tcase_add_test(layout, test_device_info_layout);
	tcase_add_test(layout, test_topology_skl_gt2);
	tcase_add_test(layout, test_topology_tgl_gt2);
	tcase_add_test(layout, test_topology_decode_rejects);
	tcase_add_test(layout, test_topology_encode_limits);
	suite_add_tcase(s, layout);

	TCase *rt = tcase_create("round_trip");
	tcase_add_test(rt, test_round_trip_memory);
	tcase_add_test(rt, test_round_trip_fd);
	tcase_add_test(rt, test_header_only_and_empty);
	tcase_add_test(rt, test_every_record_boundary_readable);
	tcase_add_test(rt, test_unknown_records_skipped);
	tcase_add_test(rt, test_clocks_record);
	tcase_add_test(rt, test_version_optional);
	suite_add_tcase(s, rt);

	TCase *bad = tcase_create("corruption");
	tcase_add_test(bad, test_bad_size);
	tcase_add_test(bad, test_not_a_recording);
	tcase_add_test(bad, test_size_past_end);
	tcase_add_test(bad, test_truncated_tail);
	tcase_add_test(bad, test_bad_version);
	tcase_add_test(bad, test_missing_device_info);
	tcase_add_test(bad, test_missing_topology);
	tcase_add_test(bad, test_loss_before_device_info);
	tcase_add_test(bad, test_wrong_device_info_size);
	tcase_add_test(bad, test_wrong_lost_size);
	tcase_add_test(bad, test_wrong_correlation_size);
	tcase_add_test(bad, test_sample_sizes);
	tcase_add_test(bad, test_bad_device_info_strings);
	tcase_add_test(bad, test_bad_topology);
	tcase_add_test(bad, test_repeated_header_records);
	tcase_add_test(bad, test_errors_are_sticky);
	suite_add_tcase(s, bad);

	TCase *wr = tcase_create("writer");
	tcase_add_test(wr, test_writer_arguments);
	tcase_add_test(wr, test_writer_flush_policy);
	tcase_add_test(wr, test_writer_io_error);
	tcase_add_test(wr, test_correlation_bridging);
	suite_add_tcase(s, wr);

	TCase *big = tcase_create("big");
	tcase_set_timeout(big, 60);
	tcase_add_test(big, test_big_file_flat_memory);
	tcase_add_test(big, test_window_refills);
	tcase_add_test(big, test_next_samples);
	tcase_add_test(big, test_open_fd_not_regular);
	tcase_add_test(big, test_source);
	suite_add_tcase(s, big);

	TCase *igt = tcase_create("igt");
	tcase_set_timeout(igt, 30);
	tcase_add_test(igt, test_igt_reader_accepts);
	tcase_add_test(igt, test_igt_reader_timestamp_wrap);
	suite_add_tcase(s, igt);
	return s;
}

GPM_TEST_MAIN(recording_suite)
