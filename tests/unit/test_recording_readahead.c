/*
 * gpuperf replay's read-ahead: a recording read through the helper's ring
 * gives the records the reader gives reading the file itself, byte for
 * byte, with the same error at the same offset, across many turns of the
 * ring, records of every size, a truncated tail, a helper held up (by the
 * scheduler, or mid-chunk on purpose), starting over and a file that
 * shrinks while being read; anything but a regular file is left to the
 * reader.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "client/recording_readahead.h"
#include "metrics/recording.h"
#include "tests/unit/test_gpus.h"
#include "tests/unit/test_util.h"

#define REPORT_SIZE 256
/* I915_OA_FORMAT_A32u40_A4u32_B8_C8 */
#define FORMAT_A32u40_A4u32_B8_C8 10

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* Skylake GT2 RenderBasic, 24 EUs. */
static void skl_info(struct gpm_recording_info *info)
{
	memset(info, 0, sizeof(*info));
	info->device.pci_id = 0x1916;
	info->device.timestamp_frequency = 12000000;
	info->device.gpu_min_freq = 300000000;
	info->device.gpu_max_freq = 1150000000;
	make_topology(&info->device.topology, 3, 4, 8, 0x1, 0x7, 0xff);
	info->oa_format = FORMAT_A32u40_A4u32_B8_C8;
	strcpy(info->metric_set, "RenderBasic");
	strcpy(info->uuid, "07b25942-d9fd-4fce-bd58-e29abd66b7de");
}

/*
 * A recording of about 8 MiB in a memfd: samples whose every byte tells
 * where it is, among losses, correlation points and unknown records of
 * every size up to the largest there can be.
 */
static int big_recording(void)
{
	struct gpm_recording_writer *w = malloc(sizeof(*w));
	struct gpm_recording_info info;
	struct gpm_recording_correlation c = { 1000000, 0x100 };
	static unsigned char payload[65527];
	unsigned char report[REPORT_SIZE];
	uint32_t seed = 4242;
	int fd = memfd_create("recording", 0);

	ck_assert_int_ge(fd, 0);
	skl_info(&info);
	gpm_recording_writer_init_fd(w, fd, 0);
	ck_assert_int_eq(gpm_recording_write_header(w, &info, NULL), 0);
	for (uint32_t i = 0; i < 30000; i++) {
		seed = seed * 1103515245 + 12345;
		switch ((seed >> 16) % 200) {
		case 0:
			ck_assert_int_eq(gpm_recording_write_report_lost(w, NULL), 0);
			break;
		case 1:
			c.gpu_timestamp += 1000;
			ck_assert_int_eq(gpm_recording_write_correlation(w, &c, NULL), 0);
			break;
		case 2:
		case 3: {
			size_t size = (seed >> 4) % sizeof(payload);
			if (seed % 5 == 0)
				size = sizeof(payload);
			memset(payload, (int)i, size);
			ck_assert_int_eq(gpm_recording_write_record(
				w, 0x20000, payload, size, NULL), 0);
			break;
		}
		}
		for (int b = 0; b < REPORT_SIZE; b += 4)
			put32(report + b, i * REPORT_SIZE + (uint32_t)b);
		ck_assert_int_eq(gpm_recording_write_sample(w, report,
							    sizeof(report),
							    NULL), 0);
	}
	ck_assert_int_eq(gpm_recording_writer_flush(w, NULL), 0);
	free(w);
	return fd;
}

static uint64_t file_size(int fd)
{
	struct stat st;

	ck_assert_int_eq(fstat(fd, &st), 0);
	return (uint64_t)st.st_size;
}

/*
 * Walks r in runs of samples as long as they come against ref one record
 * at a time: the same records, bytes, stats and error. No ck_assert per
 * report (Check allocates for every one): mismatches are counted.
 */
static void assert_same(struct gpm_recording_reader *ref,
			struct gpm_recording_reader *r)
{
	struct gpm_recording_record a, b;
	struct gpm_recording_error ea, eb;
	unsigned long mismatches = 0, records = 0;
	int rca, rcb;

	for (;;) {
		rcb = gpm_recording_reader_next_samples(r, &b, SIZE_MAX, &eb);
		rca = gpm_recording_reader_next(ref, &a, &ea);
		if (rca < 0 || rcb < 0 || a.kind == GPM_RECORDING_END ||
		    b.kind == GPM_RECORDING_END)
			break;
		records++;
		mismatches += a.kind != b.kind || a.offset != b.offset;
		if (a.kind == GPM_RECORDING_CORRELATION)
			mismatches += memcmp(&a.correlation, &b.correlation,
					     sizeof(a.correlation)) != 0;
		if (a.kind != GPM_RECORDING_SAMPLE || b.kind != a.kind)
			continue;
		for (size_t i = 0; i < b.count; i++) {
			if (i && (gpm_recording_reader_next(ref, &a, &ea) ||
				  a.kind != GPM_RECORDING_SAMPLE)) {
				mismatches++;
				break;
			}
			records += i > 0;
			mismatches += a.offset != b.offset + i * b.stride ||
				      a.size != b.size ||
				      memcmp(a.data, b.data + i * b.stride,
					     a.size) != 0;
		}
	}
	ck_assert_uint_eq(mismatches, 0);
	ck_assert_uint_gt(records, 10000);
	ck_assert_int_eq(rcb, rca);
	if (rca < 0) {
		ck_assert_int_eq(eb.code, ea.code);
		ck_assert_uint_eq(eb.offset, ea.offset);
		ck_assert_str_eq(eb.message, ea.message);
	} else {
		ck_assert_int_eq(a.kind, GPM_RECORDING_END);
		ck_assert_int_eq(b.kind, GPM_RECORDING_END);
	}
	ck_assert_mem_eq(&r->stats, &ref->stats, sizeof(ref->stats));
}

/* Reads the recording in fd through the helper's ring, hooked with hooks
 * when not NULL, rounds times, each against the reader reading fd itself. */
static void assert_same_rounds(int fd, int rounds,
			       const struct gpuperf_readahead_hooks *hooks)
{
	struct gpm_recording_reader *ref = malloc(sizeof(*ref));
	struct gpm_recording_reader *r = malloc(sizeof(*r));
	struct gpuperf_readahead *ra = malloc(sizeof(*ra));
	struct gpuperf_readahead_hooks with_ra;

	if (hooks) {
		with_ra = *hooks;
		with_ra.data = ra;
	}
	for (int round = 0; round < rounds; round++) {
		ck_assert_int_eq(gpm_recording_reader_open_fd(ref, fd, NULL), 0);
		ck_assert_int_eq(gpuperf_readahead_start_hooked(
			ra, fd, hooks ? &with_ra : NULL), 0);
		ck_assert_int_eq(gpm_recording_reader_open_source(
			r, &ra->source, NULL), 0);
		assert_same(ref, r);
		gpuperf_readahead_stop(ra);
	}
	free(ra);
	free(r);
	free(ref);
}

/* Whole, then with its tail cut in the middle of a record. */
START_TEST(test_same_records)
{
	int fd = big_recording();

	ck_assert_uint_gt(file_size(fd), 8u << 20);
	assert_same_rounds(fd, 1, NULL);
	ck_assert_int_eq(ftruncate(fd, (off_t)(file_size(fd) - 100)), 0);
	assert_same_rounds(fd, 1, NULL);
	close(fd);
}
END_TEST

/*
 * Helper and reader on one CPU: the helper, which only runs when nothing
 * else wants the CPU, is held up for long stretches, often in the middle
 * of a chunk; the reader reads what nobody has taken, and waits out or
 * goes around a held-up helper.
 */
START_TEST(test_held_up_helper)
{
	int fd = big_recording();
	cpu_set_t all, one;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(all), &all), 0);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	assert_same_rounds(fd, 4, NULL);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(all), &all), 0);
	close(fd);
}
END_TEST

/*
 * Holds the helper (data) at chunk HELD until the reader comes to the end
 * of the chunk before the one that next takes HELD's slot, then lets it
 * finish: late, just as the reader may go on into that slot.
 */
#define HELD 3
static void hold_helper(void *data, uint64_t chunk)
{
	struct gpuperf_readahead *ra = data;
	uint64_t until = (HELD + GPUPERF_READAHEAD_SLOTS) *
			 (uint64_t)GPUPERF_READAHEAD_CHUNK - 4096;
	struct timespec t0, t;

	if (chunk != HELD)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (atomic_load(&ra->released) >= until)
			return;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 2);
}

/* A chunk the helper finishes late never lands on a slot the reader has
 * gone on to use for a later one. */
START_TEST(test_helper_finishes_late)
{
	struct gpuperf_readahead_hooks hooks = { hold_helper, NULL };
	int fd = big_recording();

	assert_same_rounds(fd, 3, &hooks);
	close(fd);
}
END_TEST

/* Starting over after several turns of the ring reads the bytes the ring
 * has let go of. */
START_TEST(test_rewind)
{
	struct gpm_recording_reader *ref = malloc(sizeof(*ref));
	struct gpm_recording_reader *r = malloc(sizeof(*r));
	struct gpuperf_readahead *ra = malloc(sizeof(*ra));
	struct gpm_recording_record rec;
	int fd = big_recording();

	ck_assert_int_eq(gpuperf_readahead_start(ra, fd), 0);
	ck_assert_int_eq(gpm_recording_reader_open_source(r, &ra->source, NULL), 0);
	while (r->stats.bytes < (5u << 20)) {
		ck_assert_int_eq(gpm_recording_reader_next_samples(
			r, &rec, SIZE_MAX, NULL), 0);
		ck_assert_int_ne(rec.kind, GPM_RECORDING_END);
	}
	gpm_recording_reader_rewind(r);
	ck_assert_int_eq(gpm_recording_reader_open_fd(ref, fd, NULL), 0);
	assert_same(ref, r);
	gpuperf_readahead_stop(ra);
	close(fd);
	free(ra);
	free(r);
	free(ref);
}
END_TEST

/* Reads r to its first error. */
static int read_to_error(struct gpm_recording_reader *r,
			 struct gpm_recording_error *err)
{
	struct gpm_recording_record rec;
	int rc;

	while ((rc = gpm_recording_reader_next_samples(r, &rec, SIZE_MAX,
						       err)) == 0 &&
	       rec.kind != GPM_RECORDING_END)
		;
	return rc;
}

/*
 * A file cut short after both readers took its size: the same error,
 * where the bytes ran out, though the helper ran ahead of the reader.
 * (Each reader finds out when it first asks for bytes past the cut, so
 * they may yield different numbers of records before it.)
 */
START_TEST(test_file_shrinks)
{
	struct gpm_recording_reader *ref = malloc(sizeof(*ref));
	struct gpm_recording_reader *r = malloc(sizeof(*r));
	struct gpuperf_readahead *ra = malloc(sizeof(*ra));
	struct gpm_recording_error ea, eb;
	int fd = big_recording();

	ck_assert_int_eq(gpm_recording_reader_open_fd(ref, fd, NULL), 0);
	ck_assert_int_eq(gpuperf_readahead_start(ra, fd), 0);
	ck_assert_int_eq(gpm_recording_reader_open_source(r, &ra->source, NULL), 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)(3u << 20) + 7), 0);
	ck_assert_int_eq(read_to_error(ref, &ea), -EIO);
	ck_assert_int_eq(read_to_error(r, &eb), -EIO);
	ck_assert_uint_eq(eb.offset, (3u << 20) + 7);
	ck_assert_uint_eq(eb.offset, ea.offset);
	ck_assert_str_eq(eb.message, ea.message);
	ck_assert_ptr_nonnull(strstr(eb.message, "the file shrank"));
	gpuperf_readahead_stop(ra);
	close(fd);
	free(ra);
	free(r);
	free(ref);
}
END_TEST

/* Stopping while the helper is ahead and waiting for room. */
START_TEST(test_stop_unread)
{
	struct gpuperf_readahead *ra = malloc(sizeof(*ra));
	int fd = big_recording();

	for (int i = 0; i < 20; i++) {
		ck_assert_int_eq(gpuperf_readahead_start(ra, fd), 0);
		if (i % 2)
			usleep(2000);
		gpuperf_readahead_stop(ra);
	}
	close(fd);
	free(ra);
}
END_TEST

/* Pipes and devices are for the reader's own reads to refuse. */
START_TEST(test_not_regular)
{
	struct gpuperf_readahead *ra = malloc(sizeof(*ra));
	int fds[2];

	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(gpuperf_readahead_start(ra, fds[0]), -EINVAL);
	close(fds[0]);
	close(fds[1]);
	int null = open("/dev/null", O_RDONLY);
	ck_assert_int_ge(null, 0);
	ck_assert_int_eq(gpuperf_readahead_start(ra, null), -EINVAL);
	close(null);
	ck_assert_int_eq(gpuperf_readahead_start(ra, 9999), -EBADF);
	free(ra);
}
END_TEST

static Suite *readahead_suite(void)
{
	Suite *s = suite_create("recording_readahead");
	TCase *tc = tcase_create("readahead");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_same_records);
	tcase_add_test(tc, test_held_up_helper);
	tcase_add_test(tc, test_helper_finishes_late);
	tcase_add_test(tc, test_rewind);
	tcase_add_test(tc, test_file_shrinks);
	tcase_add_test(tc, test_stop_unread);
	tcase_add_test(tc, test_not_regular);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(readahead_suite)
