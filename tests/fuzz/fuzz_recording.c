/*
 * Fuzzes the recording reader: arbitrary bytes read as a recording, once
 * from memory, twice from a memfd through the reader's pread window (the
 * second time in runs of samples) and once from a source handing over the
 * least it may at a time. All must yield the same records and fail the
 * same way, and every record must lie inside the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "metrics/recording.h"
#include "tests/fuzz/fuzz_target.h"


static void check(int ok)
{
	if (!ok)
		abort();
}

/* Every yielded record lies inside the input; samples carry the report
 * size the header announced. */
static void check_record(const struct gpm_recording_reader *r,
			 const struct gpm_recording_record *rec, size_t size)
{
	check(rec->offset < size);
	if (rec->kind == GPM_RECORDING_SAMPLE) {
		check(rec->size == r->info.report_size);
		check(rec->offset + 8 + rec->size <= size);
	}
}

/* The input handed over a stretch of the least allowed at a time, copied
 * into one buffer with garbage after it, so that reading past a stretch
 * or keeping one past the next fetch shows. */
struct stretches {
	const uint8_t *data;
	size_t size;
	unsigned char buf[GPM_RECORDING_READER_BUFFER_SIZE + 64];
};

static ssize_t stretch_fetch(void *ctx, uint64_t offset,
			     const unsigned char **data)
{
	struct stretches *s = ctx;
	size_t n = s->size - offset < GPM_RECORDING_READER_BUFFER_SIZE ?
		   s->size - offset : GPM_RECORDING_READER_BUFFER_SIZE;

	memset(s->buf, 0xa5, sizeof(s->buf));
	memcpy(s->buf, s->data + offset, n);
	*data = s->buf;
	return (ssize_t)n;
}

static void same_error(int rc_a, const struct gpm_recording_error *a,
		       int rc_b, const struct gpm_recording_error *b)
{
	check(rc_a == rc_b);
	if (rc_a == 0)
		return;
	check(a->code == b->code);
	check(a->offset == b->offset);
	check(strcmp(a->message, b->message) == 0);
	check(memchr(a->message, '\0', sizeof(a->message)) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gpm_recording_reader mem, file, runs, src;
	static struct stretches stretches;
	struct gpm_recording_source source = { size, stretch_fetch, &stretches };
	struct gpm_recording_error err_mem, err_file, err_runs, err_src;
	struct gpm_recording_record rec_mem, rec_file, rec_runs, rec_src;
	size_t run_index = 0, run_left = 0;

	int fd = memfd_create("fuzz_recording", 0);
	check(fd >= 0);
	check(write(fd, data, size) == (ssize_t)size);

	int rc_mem = gpm_recording_reader_open_memory(&mem, data, size, &err_mem);
	int rc_file = gpm_recording_reader_open_fd(&file, fd, &err_file);
	same_error(rc_mem, &err_mem, rc_file, &err_file);
	int rc_runs = gpm_recording_reader_open_fd(&runs, fd, &err_runs);
	same_error(rc_mem, &err_mem, rc_runs, &err_runs);
	stretches.data = data;
	stretches.size = size;
	int rc_src = gpm_recording_reader_open_source(&src, &source, &err_src);
	same_error(rc_mem, &err_mem, rc_src, &err_src);

	while (rc_mem == 0) {
		rc_mem = gpm_recording_reader_next(&mem, &rec_mem, &err_mem);
		rc_file = gpm_recording_reader_next(&file, &rec_file, &err_file);
		same_error(rc_mem, &err_mem, rc_file, &err_file);
		rc_src = gpm_recording_reader_next(&src, &rec_src, &err_src);
		same_error(rc_mem, &err_mem, rc_src, &err_src);
		/* The run reader: the next sample of its run, or what its
		 * next call gives. */
		if (!run_left) {
			rc_runs = gpm_recording_reader_next_samples(&runs, &rec_runs,
								    SIZE_MAX, &err_runs);
			same_error(rc_mem, &err_mem, rc_runs, &err_runs);
			run_index = 0;
			run_left = rc_runs == 0 && rec_runs.kind == GPM_RECORDING_SAMPLE ?
				   rec_runs.count : 1;
		} else {
			check(rc_mem == 0);
		}
		run_left--;
		if (rc_mem < 0)
			break;
		check(rec_mem.kind == rec_file.kind);
		check(rec_mem.offset == rec_file.offset);
		check(rec_mem.kind == rec_src.kind);
		check(rec_mem.offset == rec_src.offset);
		check(rec_mem.kind == rec_runs.kind);
		check(rec_mem.offset == rec_runs.offset + run_index * rec_runs.stride);
		if (rec_mem.kind == GPM_RECORDING_END)
			break;
		check_record(&mem, &rec_mem, size);
		check(rec_mem.size == rec_file.size);
		check(rec_mem.size == rec_src.size);
		if (rec_mem.kind == GPM_RECORDING_SAMPLE) {
			check(memcmp(rec_mem.data, rec_file.data,
				     rec_mem.size) == 0);
			check(memcmp(rec_mem.data, rec_src.data,
				     rec_mem.size) == 0);
			check(rec_mem.size == rec_runs.size);
			check(memcmp(rec_mem.data,
				     rec_runs.data + run_index * rec_runs.stride,
				     rec_mem.size) == 0);
		}
		if (rec_mem.kind == GPM_RECORDING_CORRELATION) {
			check(memcmp(&rec_mem.correlation, &rec_file.correlation,
				     sizeof(rec_mem.correlation)) == 0);
			check(memcmp(&rec_mem.correlation, &rec_src.correlation,
				     sizeof(rec_mem.correlation)) == 0);
		}
		run_index++;
	}
	if (rc_mem == 0) {
		check(mem.stats.bytes == size);
		check(memcmp(&mem.stats, &file.stats, sizeof(mem.stats)) == 0);
		check(memcmp(&mem.stats, &runs.stats, sizeof(mem.stats)) == 0);
		check(memcmp(&mem.stats, &src.stats, sizeof(mem.stats)) == 0);
	}
	gpm_recording_reader_close(&mem);
	gpm_recording_reader_close(&file);
	gpm_recording_reader_close(&runs);
	gpm_recording_reader_close(&src);
	close(fd);
	return 0;
}
