/*
 * gpuperf replay of an RGP capture's SPM data (see replay_rgp.h).
 *
 * Columns: the chunk (a capture may hold several SPM traces), the
 * sample's GPU timestamp as the capture has it (ticks of the GPU's
 * timestamp clock), then one per counter, named BLOCK[INSTANCE].eEVENT
 * after Mesa's block numbering: the counter's count in that sample.
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

/* The chunk's rows: one per sample. */
static int print_spm(struct gpuperf_output *o, size_t chunk,
		     const struct gpm_rgp_spm *spm, struct gpuperf_cell *cells)
{
	for (size_t s = 0; s < spm->n_samples; s++) {
		cells[0] = (struct gpuperf_cell){ .type = GPUPERF_CELL_U64, .u = chunk };
		cells[1] = (struct gpuperf_cell){ .type = GPUPERF_CELL_U64,
						  .u = spm->timestamps[s] };
		for (size_t c = 0; c < spm->n_counters; c++)
			cells[2 + c] = (struct gpuperf_cell){
				.type = GPUPERF_CELL_U64,
				.u = spm->values[s * spm->n_counters + c] };
		int ret = gpuperf_output_row(o, cells);
		if (ret)
			return ret;
	}
	return 0;
}

/* A chunk's columns: its counters' names into names (n x 48 bytes). */
static void counter_columns(const struct gpm_rgp_spm *spm,
			    struct gpuperf_column *columns, char (*names)[48])
{
	columns[0] = (struct gpuperf_column){ .key = "chunk",
					      .kind = GPUPERF_COLUMN_NUMBER };
	columns[1] = (struct gpuperf_column){ .key = "gpu_timestamp",
					      .kind = GPUPERF_COLUMN_NUMBER };
	for (size_t c = 0; c < spm->n_counters; c++) {
		const struct gpm_rgp_counter *k = &spm->counters[c];
		const char *block = gpm_rgp_block_name(k->block);
		if (block)
			snprintf(names[c], 48, "%s[%u].e%u", block, k->instance,
				 k->event);
		else
			snprintf(names[c], 48, "block%u[%u].e%u", k->block,
				 k->instance, k->event);
		columns[2 + c] = (struct gpuperf_column){
			.key = names[c], .kind = GPUPERF_COLUMN_NUMBER };
	}
}

static int replay_chunks(const struct gpm_rgp_file *file,
			 enum gpuperf_format format, FILE *out)
{
	int status = GPUPERF_EXIT_OK;
	for (size_t i = 0; i < file->n_spm && status == GPUPERF_EXIT_OK; i++) {
		const struct gpm_rgp_spm *spm = &file->spm[i];
		size_t n = 2 + spm->n_counters;
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
				if (print_spm(&o, i, spm, cells))
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

int gpuperf_replay_rgp(const char *path, enum gpuperf_format format,
		       const char *output)
{
	if (format == GPUPERF_FORMAT_PERFETTO) {
		fprintf(stderr, "gpuperf replay: %s: an RGP capture replays as "
			"table, csv or ndjson; Perfetto traces are written of "
			"i915-perf recordings only\n", path);
		return GPUPERF_EXIT_USAGE;
	}
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
	FILE *out = stdout;
	if (output && !(out = fopen(output, "w"))) {
		fprintf(stderr, "gpuperf replay: cannot write %s: %s\n", output,
			strerror(errno));
		gpm_rgp_file_fini(&file);
		return GPUPERF_EXIT_FILE;
	}
	int status = replay_chunks(&file, format, out);
	if (out != stdout && fclose(out) && status == GPUPERF_EXIT_OK)
		status = GPUPERF_EXIT_FILE;
	gpm_rgp_file_fini(&file);
	return status;
}
