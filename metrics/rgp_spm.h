/*
 * The SPM data of an RGP capture (.rgp), as Mesa's radv writes it
 * (src/amd/common/ac_rgp.c: ac_sqtt_dump_data(), ac_sqtt_dump_spm()):
 *
 *   file header, 56 bytes: u32 magic 0x50303042, u32 version major and
 *     minor, u32 flags, i32 chunk_offset (where the first chunk is), the
 *     capture's date in nine i32s;
 *   chunks, back to back: a 16-byte header (u8 type, i8 index, 16 bits
 *     reserved, u16 minor and major version, i32 size_in_bytes of the
 *     whole chunk, i32 padding) and its contents;
 *   the SPM database chunk (type 8): after its header u32 flags,
 *     preamble_size (the chunk's bytes before its data, 40 for radv's),
 *     num_timestamps, num_spm_counter_info, spm_counter_info_size and,
 *     in a 40-byte preamble, sample_interval (shader clocks); then the
 *     samples' u64 timestamps, then one record per counter (u32 block,
 *     as Mesa's enum ac_pc_gpu_block numbers it, instance, event_index,
 *     data_offset, and from 20-byte records data_size), then each
 *     counter's values, num_timestamps of data_size bytes at data_offset,
 *     which radv counts from the end of the preamble.
 *
 * The ASIC info chunk (type 0, struct sqtt_file_chunk_asic_info, 768
 * bytes for radv) gives the GPU timestamp's frequency, a u64 at byte 424
 * of the chunk (gpu_timestamp_frequency, radv's clock_crystal_freq x
 * 1000), which turns the samples' timestamps into nanoseconds. Other
 * chunks (SQTT data, code objects, ...) are skipped and counted; types
 * past those ac_rgp.c names are counted as unknown.
 * Every size is checked against the bytes there are: a file that lies is
 * refused, saying where. Pure: bytes in, counters over time out.
 */
#ifndef GPM_RGP_SPM_H
#define GPM_RGP_SPM_H

#include <stddef.h>
#include <stdint.h>

#define GPM_RGP_MAGIC 0x50303042u
#define GPM_RGP_CHUNK_ASIC_INFO 0
#define GPM_RGP_CHUNK_SPM_DB 8
/* Where the ASIC info chunk holds gpu_timestamp_frequency, and so the
 * least it must hold to give it. */
#define GPM_RGP_ASIC_TIMESTAMP_FREQUENCY_AT 424
/* The chunk types ac_rgp.c names (enum sqtt_file_chunk_type). */
#define GPM_RGP_CHUNK_TYPES 13
/* A budget on counters per SPM chunk, whatever a file says. */
#define GPM_RGP_MAX_COUNTERS 4096

struct gpm_rgp_counter {
	uint32_t block;                 /* enum ac_pc_gpu_block */
	uint32_t instance;
	uint32_t event;                 /* event index within the block */
};

/* One SPM database chunk. */
struct gpm_rgp_spm {
	uint32_t sample_interval;       /* shader clocks; 0 if not given */
	size_t n_samples, n_counters;
	uint64_t *timestamps;           /* n_samples */
	struct gpm_rgp_counter *counters;
	uint32_t *values;               /* n_samples x n_counters */
};

struct gpm_rgp_file {
	uint32_t version_major, version_minor;
	/* Hz of the samples' timestamps, from the first ASIC info chunk
	 * that gives it; 0 when none does (no such chunk, one too short to
	 * hold the field, or 0 there). */
	uint64_t gpu_timestamp_frequency;
	unsigned n_chunks;              /* all of them */
	unsigned n_unknown_chunks;      /* of types ac_rgp.c does not name */
	size_t n_spm;
	struct gpm_rgp_spm *spm;
};

/* Reads len bytes of an RGP file. 0; -EBADMSG with why (size bytes) for
 * a file that is not one, is cut short or whose sizes lie; -ENOMEM.
 * out owns its arrays (gpm_rgp_file_fini). */
int gpm_rgp_read(const uint8_t *data, size_t len, struct gpm_rgp_file *out,
		 char *why, size_t size);

void gpm_rgp_file_fini(struct gpm_rgp_file *file);

/* A timestamp of the capture in nanoseconds of the GPU's clock, from its
 * gpu_timestamp_frequency (which must not be 0). */
uint64_t gpm_rgp_timestamp_ns(const struct gpm_rgp_file *file, uint64_t ticks);

/* "SQ", "GL2C": the block's name (PAL's GpuBlock names it the same);
 * NULL for a number past those Mesa names. */
const char *gpm_rgp_block_name(uint32_t block);

#endif
