/*
 * gpuperf replay of an RGP capture's SPM data (see replay_rgp.h).
 *
 * Columns: the chunk (a capture may hold several SPM traces), the
 * sample's GPU timestamp as the capture has it (ticks of the GPU's
 * timestamp clock), the same in nanoseconds (from the ASIC info chunk's
 * gpu_timestamp_frequency; empty when the capture has none), then one
 * per counter, named BLOCK[INSTANCE].eEVENT after Mesa's block
 * numbering: the counter's count in that sample.
 *
 * As a Perfetto trace: a track for the capture, one per SPM chunk under
 * it, and under each a counter track per counter with its count at each
 * sample's time in ns. The capture holds the GPU's time alone, so the
 * trace relates the GPU's clock to CLOCK_MONOTONIC one to one: its times
 * are the GPU's. Without the frequency there are no nanoseconds to place
 * samples at: the trace is refused.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "client/commands.h"
#include "client/replay_rgp.h"
#include "metrics/rgp_spm.h"
#include "metrics/trace_writer.h"

/* Captures are read whole; a budget against a file that is not one. */
#define RGP_MAX_BYTES (1ull << 30)

bool gpuperf_is_rgp(const char *path)
{
	/* Only a regular file is looked into: a FIFO or a device would give
	 * its first bytes to this look and not to the reader after it. */
	struct stat st;
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	unsigned char magic[4];
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	bool is = fread(magic, 1, 4, f) == 4 &&
		  ((uint32_t)magic[0] | (uint32_t)magic[1] << 8 |
		   (uint32_t)magic[2] << 16 | (uint32_t)magic[3] << 24) ==
		  GPM_RGP_MAGIC;
	fclose(f);
	return is;
}

static int read_whole(const char *path, uint8_t **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	if (!f)
		return -errno;
	if (fstat(fileno(f), &st) || (uint64_t)st.st_size > RGP_MAX_BYTES) {
		fclose(f);
		return -EFBIG;
	}
	*len = (size_t)st.st_size;
	*data = malloc(*len ? *len : 1);
	if (!*data) {
		fclose(f);
		return -ENOMEM;
	}
	size_t got = fread(*data, 1, *len, f);
	fclose(f);
	*len = got;
	return 0;
}

enum { COL_CHUNK, COL_GPU_TIMESTAMP, COL_GPU_TIME, N_FIXED };

/* The chunk's rows: one per sample. */
static int print_spm(struct gpuperf_output *o, const struct gpm_rgp_file *file,
		     size_t chunk, struct gpuperf_cell *cells)
{
	const struct gpm_rgp_spm *spm = &file->spm[chunk];
	for (size_t s = 0; s < spm->n_samples; s++) {
		cells[COL_CHUNK] = (struct gpuperf_cell){ .type = GPUPERF_CELL_U64,
							  .u = chunk };
		cells[COL_GPU_TIMESTAMP] = (struct gpuperf_cell){
			.type = GPUPERF_CELL_U64, .u = spm->timestamps[s] };
		cells[COL_GPU_TIME] = file->gpu_timestamp_frequency ?
			(struct gpuperf_cell){ .type = GPUPERF_CELL_U64,
				.u = gpm_rgp_timestamp_ns(file, spm->timestamps[s]) } :
			(struct gpuperf_cell){ .type = GPUPERF_CELL_NONE };
		for (size_t c = 0; c < spm->n_counters; c++)
			cells[N_FIXED + c] = (struct gpuperf_cell){
				.type = GPUPERF_CELL_U64,
				.u = spm->values[s * spm->n_counters + c] };
		int ret = gpuperf_output_row(o, cells);
		if (ret)
			return ret;
	}
	return 0;
}

/* "SQ[0].e4": a counter's name, into 48 bytes. */
static void counter_name(const struct gpm_rgp_counter *k, char *name)
{
	const char *block = gpm_rgp_block_name(k->block);
	if (block)
		snprintf(name, 48, "%s[%u].e%u", block, k->instance, k->event);
	else
		snprintf(name, 48, "block%u[%u].e%u", k->block, k->instance,
			 k->event);
}

/* A chunk's columns: its counters' names into names (n x 48 bytes). */
static void counter_columns(const struct gpm_rgp_spm *spm,
			    struct gpuperf_column *columns, char (*names)[48])
{
	columns[COL_CHUNK] = (struct gpuperf_column){
		.key = "chunk", .kind = GPUPERF_COLUMN_NUMBER };
	columns[COL_GPU_TIMESTAMP] = (struct gpuperf_column){
		.key = "gpu_timestamp", .kind = GPUPERF_COLUMN_NUMBER };
	columns[COL_GPU_TIME] = (struct gpuperf_column){
		.key = "gpu_time_ns", .kind = GPUPERF_COLUMN_NUMBER };
	for (size_t c = 0; c < spm->n_counters; c++) {
		counter_name(&spm->counters[c], names[c]);
		columns[N_FIXED + c] = (struct gpuperf_column){
			.key = names[c], .kind = GPUPERF_COLUMN_NUMBER };
	}
}

static int replay_chunks(const struct gpm_rgp_file *file,
			 enum gpuperf_format format, FILE *out)
{
	int status = GPUPERF_EXIT_OK;
	for (size_t i = 0; i < file->n_spm && status == GPUPERF_EXIT_OK; i++) {
		const struct gpm_rgp_spm *spm = &file->spm[i];
		size_t n = N_FIXED + spm->n_counters;
		struct gpuperf_column *columns = calloc(n, sizeof(*columns));
		struct gpuperf_cell *cells = calloc(n, sizeof(*cells));
		char (*names)[48] = calloc(spm->n_counters + 1, sizeof(*names));
		struct gpuperf_output o;
		if (!columns || !cells || !names) {
			fprintf(stderr, "gpuperf replay: out of memory\n");
			status = GPUPERF_EXIT_FAILURE;
		} else {
			counter_columns(spm, columns, names);
			if (gpuperf_output_init(&o, out, format, columns, n)) {
				fprintf(stderr, "gpuperf replay: out of memory\n");
				status = GPUPERF_EXIT_FAILURE;
			} else {
				if (print_spm(&o, file, i, cells))
					status = GPUPERF_EXIT_FILE;
				gpuperf_output_fini(&o);
			}
		}
		free(columns);
		free(cells);
		free(names);
	}
	return status;
}

static int write_trace_bytes(void *ctx, const void *data, size_t len)
{
	if (fwrite(data, 1, len, ctx) != len)
		return -(errno ? errno : EIO);
	return 0;
}

/* Each chunk's tracks and its samples' counts. */
static int trace_chunks(struct gpm_trace_writer *w, const struct gpm_rgp_file *file)
{
	uint64_t capture = gpm_trace_ordered_track(w, 0, "RGP capture (SPM)",
		"The SPM chunks of an RGP capture: each counter's count per "
		"sample, at the sample's GPU time", 0);
	if (!capture)
		return -ENOMEM;
	for (size_t i = 0; i < file->n_spm; i++) {
		const struct gpm_rgp_spm *spm = &file->spm[i];
		char title[96], name[48];
		snprintf(title, sizeof(title), "SPM chunk %zu (a sample every "
			 "%u shader clocks)", i, spm->sample_interval);
		uint64_t chunk = gpm_trace_ordered_track(w, capture, title, NULL,
							 (int)i);
		uint64_t *tracks = calloc(spm->n_counters + 1, sizeof(*tracks));
		if (!chunk || !tracks) {
			free(tracks);
			return -ENOMEM;
		}
		for (size_t c = 0; c < spm->n_counters; c++) {
			counter_name(&spm->counters[c], name);
			tracks[c] = gpm_trace_counter_track(w, chunk, name, NULL,
				(int)c, GPM_TRACE_COUNTER_INT,
				(struct gpm_trace_unit){ GPM_TRACE_UNIT_COUNT, NULL });
			if (!tracks[c]) {
				free(tracks);
				return -ENOMEM;
			}
		}
		int ret = 0;
		for (size_t s = 0; s < spm->n_samples && !ret; s++) {
			uint64_t ts = gpm_rgp_timestamp_ns(file, spm->timestamps[s]);
			for (size_t c = 0; c < spm->n_counters && !ret; c++)
				ret = gpm_trace_counter(w, tracks[c],
					GPM_TRACE_CLOCK_GPU, ts, (union gpm_trace_value){
						.i = spm->values[s * spm->n_counters + c] });
		}
		free(tracks);
		if (ret)
			return ret;
	}
	return 0;
}

/* The capture as a Perfetto trace (see the top of this file). */
static int replay_trace(const char *path, const struct gpm_rgp_file *file,
			FILE *out)
{
	/* The earliest sample: the one instant where the GPU's clock and
	 * the trace's are said to agree. */
	uint64_t first = UINT64_MAX;
	for (size_t i = 0; i < file->n_spm; i++)
		if (file->spm[i].n_samples && file->spm[i].timestamps[0] < first)
			first = file->spm[i].timestamps[0];
	struct gpm_trace_writer w;
	if (gpm_trace_writer_init(&w, GPM_RGP_MAGIC ^ first, write_trace_bytes,
				  out)) {
		fprintf(stderr, "gpuperf replay: out of memory\n");
		return GPUPERF_EXIT_FAILURE;
	}
	uint64_t first_ns = first == UINT64_MAX ? 0 :
			    gpm_rgp_timestamp_ns(file, first);
	int ret = gpm_trace_clock_snapshot(&w, first_ns, first_ns, false, 0);
	if (!ret)
		ret = trace_chunks(&w, file);
	if (!ret)
		ret = gpm_trace_flush(&w);
	gpm_trace_writer_fini(&w);
	if (ret) {
		fprintf(stderr, "gpuperf replay: cannot write the trace: %s\n",
			strerror(-ret));
		return ret == -ENOMEM ? GPUPERF_EXIT_FAILURE : GPUPERF_EXIT_FILE;
	}
	fprintf(stderr, "gpuperf replay: %s: an RGP capture has the GPU's time "
		"alone: the trace takes it for CLOCK_MONOTONIC\n", path);
	return GPUPERF_EXIT_OK;
}

int gpuperf_replay_rgp(const char *path, enum gpuperf_format format,
		       const char *output)
{
	uint8_t *data = NULL;
	size_t len = 0;
	int ret = read_whole(path, &data, &len);
	if (ret) {
		fprintf(stderr, "gpuperf replay: %s: %s\n", path,
			ret == -EFBIG ? "larger than the 1 GiB an RGP capture "
			"is read whole into" : strerror(-ret));
		return ret == -ENOMEM ? GPUPERF_EXIT_FAILURE : GPUPERF_EXIT_FILE;
	}
	struct gpm_rgp_file file;
	char why[256];
	ret = gpm_rgp_read(data, len, &file, why, sizeof(why));
	free(data);
	if (ret) {
		fprintf(stderr, "gpuperf replay: %s: %s\n", path, why);
		return ret == -ENOMEM ? GPUPERF_EXIT_FAILURE : GPUPERF_EXIT_FILE;
	}
	if (!file.n_spm) {
		fprintf(stderr, "gpuperf replay: %s: an RGP capture of %u chunks, "
			"none of SPM data: capture with the streaming "
			"counters (SPM) on to have counters over time\n", path,
			file.n_chunks);
		gpm_rgp_file_fini(&file);
		return GPUPERF_EXIT_FILE;
	}
	if (file.n_unknown_chunks)
		fprintf(stderr, "gpuperf replay: %s: %u chunks of kinds this "
			"gpuperf does not know were skipped\n", path,
			file.n_unknown_chunks);
	if (!file.gpu_timestamp_frequency && format == GPUPERF_FORMAT_PERFETTO) {
		fprintf(stderr, "gpuperf replay: %s: the capture has no ASIC "
			"info chunk giving its GPU timestamp frequency, so its "
			"samples have no time in nanoseconds for a Perfetto "
			"trace; replay it as table, csv or ndjson (times in "
			"ticks, gpu_timestamp)\n", path);
		gpm_rgp_file_fini(&file);
		return GPUPERF_EXIT_FILE;
	}
	if (!file.gpu_timestamp_frequency)
		fprintf(stderr, "gpuperf replay: %s: no ASIC info chunk gives "
			"the GPU timestamp frequency: gpu_time_ns is empty, "
			"times are in ticks (gpu_timestamp)\n", path);
	FILE *out = stdout;
	if (output && !(out = fopen(output, "w"))) {
		fprintf(stderr, "gpuperf replay: cannot write %s: %s\n", output,
			strerror(errno));
		gpm_rgp_file_fini(&file);
		return GPUPERF_EXIT_FILE;
	}
	int status = format == GPUPERF_FORMAT_PERFETTO ?
		     replay_trace(path, &file, out) :
		     replay_chunks(&file, format, out);
	if (out != stdout && fclose(out) && status == GPUPERF_EXIT_OK)
		status = GPUPERF_EXIT_FILE;
	gpm_rgp_file_fini(&file);
	return status;
}
