/*
 * Reading the SPM chunks of an RGP capture (see rgp_spm.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "little_endian.h"
#include "rgp_spm.h"

#define FILE_HEADER_BYTES 56
#define CHUNK_HEADER_BYTES 16
/* The SPM chunk's preamble up to spm_counter_info_size, and with
 * sample_interval. */
#define SPM_PREAMBLE_MIN 36
#define SPM_PREAMBLE_WITH_INTERVAL 40
#define COUNTER_INFO_MIN 16             /* without data_size */
#define COUNTER_INFO_WITH_SIZE 20

const char *gpm_rgp_block_name(uint32_t block)
{
	/* Mesa's enum ac_pc_gpu_block (src/amd/common/ac_perfcounter.h). */
	static const char *const names[] = {
		"CPF", "IA", "VGT", "PA_SU", "PA_SC", "SPI", "SQ", "SX", "TA",
		"TD", "TCP", "TCC", "TCA", "DB", "CB", "GDS", "SRBM", "GRBM",
		"GRBMSE", "RLC", "DMA", "MC", "CPG", "CPC", "WD", "TCS", "ATC",
		"ATCL2", "MCVML2", "EA", "RPB", "RMI", "UMCCH", "GE", "GL1A",
		"GL1C", "GL1CG", "GL2A", "GL2C", "CHA", "CHC", "CHCG", "GUS",
		"GCR", "PA_PH", "UTCL1", "GEDIST",
	};
	return block < sizeof(names) / sizeof(names[0]) ? names[block] : NULL;
}

static int refuse(char *why, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

/* The SPM chunk at chunk (len bytes, its header included), at byte
 * `at` of the file, into spm. */
static int read_spm(const uint8_t *chunk, size_t len, size_t at,
		    struct gpm_rgp_spm *spm, char *why, size_t size)
{
	const uint8_t *p = chunk + CHUNK_HEADER_BYTES;
	if (len < SPM_PREAMBLE_MIN)
		return refuse(why, size, "the SPM chunk at byte %zu has %zu "
			      "bytes, fewer than its preamble", at, len);
	uint32_t preamble = gpm__le32_load(p + 4);
	uint32_t n_samples = gpm__le32_load(p + 8);
	uint32_t n_counters = gpm__le32_load(p + 12);
	uint32_t info_size = gpm__le32_load(p + 16);
	if (preamble < SPM_PREAMBLE_MIN || preamble > len)
		return refuse(why, size, "the SPM chunk at byte %zu says its "
			      "preamble is %u bytes, of a chunk of %zu", at,
			      preamble, len);
	spm->sample_interval = preamble >= SPM_PREAMBLE_WITH_INTERVAL ?
			       gpm__le32_load(p + 20) : 0;
	if (info_size < COUNTER_INFO_MIN)
		return refuse(why, size, "the SPM chunk at byte %zu says its "
			      "counter records are %u bytes, fewer than their %u",
			      at, info_size, COUNTER_INFO_MIN);
	if (n_counters > GPM_RGP_MAX_COUNTERS)
		return refuse(why, size, "the SPM chunk at byte %zu says it has "
			      "%u counters; more than %u are not read", at,
			      n_counters, GPM_RGP_MAX_COUNTERS);
	const uint8_t *data = chunk + preamble;
	size_t data_len = len - preamble;
	/* Timestamps, counter records and at least 2 bytes per value: what
	 * a chunk claims must fit in it (which also bounds the memory). */
	uint64_t least = (uint64_t)n_samples * 8 + (uint64_t)n_counters * info_size +
			 (uint64_t)n_samples * n_counters * 2;
	if (least > data_len)
		return refuse(why, size, "the SPM chunk at byte %zu says it has "
			      "%u samples and %u counters, more than its %zu "
			      "bytes hold", at, n_samples, n_counters, data_len);
	spm->n_samples = n_samples;
	spm->n_counters = n_counters;
	spm->timestamps = malloc((n_samples ? n_samples : 1) * sizeof(uint64_t));
	spm->counters = malloc((n_counters ? n_counters : 1) *
			       sizeof(*spm->counters));
	size_t n_values = (size_t)n_samples * n_counters;
	spm->values = malloc((n_values ? n_values : 1) * sizeof(uint32_t));
	if (!spm->timestamps || !spm->counters || !spm->values)
		return -ENOMEM;
	for (uint32_t s = 0; s < n_samples; s++)
		spm->timestamps[s] = gpm__le64_load(data + (size_t)s * 8);
	const uint8_t *info = data + (size_t)n_samples * 8;
	for (uint32_t c = 0; c < n_counters; c++, info += info_size) {
		struct gpm_rgp_counter *k = &spm->counters[c];
		k->block = gpm__le32_load(info);
		k->instance = gpm__le32_load(info + 4);
		k->event = gpm__le32_load(info + 8);
		uint32_t offset = gpm__le32_load(info + 12);
		uint32_t item = info_size >= COUNTER_INFO_WITH_SIZE ?
				gpm__le32_load(info + 16) : 2;
		if (item != 2 && item != 4)
			return refuse(why, size, "counter %u of the SPM chunk at "
				      "byte %zu has values of %u bytes; only 2 "
				      "and 4 are known", c, at, item);
		if ((uint64_t)offset + (uint64_t)n_samples * item > data_len)
			return refuse(why, size, "counter %u of the SPM chunk at "
				      "byte %zu says its values are at %u, past "
				      "the chunk's end", c, at, offset);
		for (uint32_t s = 0; s < n_samples; s++) {
			const uint8_t *v = data + offset + (size_t)s * item;
			spm->values[(size_t)s * n_counters + c] =
				item == 2 ? gpm__le16_load(v) : gpm__le32_load(v);
		}
	}
	return 0;
}

int gpm_rgp_read(const uint8_t *data, size_t len, struct gpm_rgp_file *out,
		 char *why, size_t size)
{
	memset(out, 0, sizeof(*out));
	if (len < FILE_HEADER_BYTES || gpm__le32_load(data) != GPM_RGP_MAGIC)
		return refuse(why, size, "not an RGP capture (no 0x%08x magic "
			      "in a %d-byte header)", GPM_RGP_MAGIC,
			      FILE_HEADER_BYTES);
	out->version_major = gpm__le32_load(data + 4);
	out->version_minor = gpm__le32_load(data + 8);
	int32_t first = (int32_t)gpm__le32_load(data + 16);
	if (first < FILE_HEADER_BYTES || (size_t)first > len)
		return refuse(why, size, "the header puts the first chunk at "
			      "byte %d of %zu", first, len);
	int ret = 0;
	for (size_t at = (size_t)first; at < len && !ret;) {
		if (len - at < CHUNK_HEADER_BYTES) {
			ret = refuse(why, size, "cut short: %zu bytes at byte %zu, "
				     "fewer than a chunk header", len - at, at);
			break;
		}
		const uint8_t *chunk = data + at;
		uint8_t type = chunk[0];
		int32_t chunk_size = (int32_t)gpm__le32_load(chunk + 8);
		if (chunk_size < CHUNK_HEADER_BYTES || (size_t)chunk_size > len - at) {
			ret = refuse(why, size, "the chunk of type %u at byte %zu "
				     "says it is %d bytes; %zu are left", type, at,
				     chunk_size, len - at);
			break;
		}
		out->n_chunks++;
		if (type >= GPM_RGP_CHUNK_TYPES)
			out->n_unknown_chunks++;
		if (type == GPM_RGP_CHUNK_ASIC_INFO && !out->gpu_timestamp_frequency &&
		    (size_t)chunk_size >= GPM_RGP_ASIC_TIMESTAMP_FREQUENCY_AT + 8)
			out->gpu_timestamp_frequency = gpm__le64_load(chunk +
				GPM_RGP_ASIC_TIMESTAMP_FREQUENCY_AT);
		if (type == GPM_RGP_CHUNK_SPM_DB) {
			struct gpm_rgp_spm *grown = realloc(out->spm,
				(out->n_spm + 1) * sizeof(*grown));
			if (!grown) {
				ret = -ENOMEM;
				break;
			}
			out->spm = grown;
			struct gpm_rgp_spm *spm = &out->spm[out->n_spm++];
			memset(spm, 0, sizeof(*spm));
			ret = read_spm(chunk, (size_t)chunk_size, at, spm, why, size);
		}
		at += (size_t)chunk_size;
	}
	if (ret == -ENOMEM)
		snprintf(why, size, "out of memory");
	if (ret)
		gpm_rgp_file_fini(out);
	return ret;
}

uint64_t gpm_rgp_timestamp_ns(const struct gpm_rgp_file *file, uint64_t ticks)
{
	return (uint64_t)((unsigned __int128)ticks * 1000000000u /
			  file->gpu_timestamp_frequency);
}

void gpm_rgp_file_fini(struct gpm_rgp_file *file)
{
	for (size_t i = 0; i < file->n_spm; i++) {
		free(file->spm[i].timestamps);
		free(file->spm[i].counters);
		free(file->spm[i].values);
	}
	free(file->spm);
	memset(file, 0, sizeof(*file));
}
