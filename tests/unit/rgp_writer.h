/*
 * Writes RGP captures by the rules radv writes them (Mesa's
 * src/amd/common/ac_rgp.c; metrics/rgp_spm.h sums them up): the file
 * header, chunks of other kinds, and SPM database chunks whose counter
 * values lie after the timestamps and the counter records, counted from
 * the end of the preamble. For the tests of the reader and for
 * gpuperf replay.
 */
#ifndef TESTS_UNIT_RGP_WRITER_H
#define TESTS_UNIT_RGP_WRITER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct rgp_buf {
	uint8_t *data;
	size_t len, cap;
};

static inline void rgp_put(struct rgp_buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->data = realloc(b->data, b->cap);
		if (!b->data)
			abort();
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static inline void rgp_u16(struct rgp_buf *b, uint16_t v)
{
	uint8_t p[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
	rgp_put(b, p, 2);
}

static inline void rgp_u32(struct rgp_buf *b, uint32_t v)
{
	uint8_t p[4];
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
	rgp_put(b, p, 4);
}

static inline void rgp_u64(struct rgp_buf *b, uint64_t v)
{
	rgp_u32(b, (uint32_t)v);
	rgp_u32(b, (uint32_t)(v >> 32));
}

static inline void rgp_set_u32(struct rgp_buf *b, size_t at, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b->data[at + i] = (uint8_t)(v >> (8 * i));
}

/* sqtt_file_header: magic, version 1.5, flags, chunks right after it. */
static inline void rgp_file_header(struct rgp_buf *b)
{
	rgp_u32(b, 0x50303042);
	rgp_u32(b, 1);
	rgp_u32(b, 5);
	rgp_u32(b, 1);
	rgp_u32(b, 56);
	for (int i = 0; i < 9; i++)
		rgp_u32(b, 0);
}

/* sqtt_file_chunk_header; returns where the chunk starts, for its size. */
static inline size_t rgp_chunk_header(struct rgp_buf *b, uint8_t type,
				      uint16_t major, uint16_t minor)
{
	size_t at = b->len;
	uint8_t id[4] = { type, 0, 0, 0 };
	rgp_put(b, id, 4);
	rgp_u16(b, minor);
	rgp_u16(b, major);
	rgp_u32(b, 0);          /* size_in_bytes, set by rgp_chunk_end */
	rgp_u32(b, 0);
	return at;
}

static inline void rgp_chunk_end(struct rgp_buf *b, size_t at)
{
	rgp_set_u32(b, at + 8, (uint32_t)(b->len - at));
}

/* A chunk of another kind: its header and size - 16 bytes of filler. */
static inline void rgp_other_chunk(struct rgp_buf *b, uint8_t type, size_t size)
{
	size_t at = rgp_chunk_header(b, type, 0, 0);
	for (size_t i = 16; i < size; i++) {
		uint8_t byte = (uint8_t)(i * 7);
		rgp_put(b, &byte, 1);
	}
	rgp_chunk_end(b, at);
}

/*
 * An ASIC info chunk (struct sqtt_file_chunk_asic_info, version 0.5, 768
 * bytes) whose gpu_timestamp_frequency, at byte 424, is frequency; every
 * other byte is filler, so that a reader looking elsewhere reads nonsense.
 */
static inline void rgp_asic_info_chunk(struct rgp_buf *b, uint64_t frequency)
{
	size_t at = rgp_chunk_header(b, 0, 0, 5);
	for (size_t i = 16; i < 424; i++) {
		uint8_t byte = (uint8_t)(i * 7);
		rgp_put(b, &byte, 1);
	}
	rgp_u64(b, frequency);
	for (size_t i = 432; i < 768; i++) {
		uint8_t byte = (uint8_t)(i * 7);
		rgp_put(b, &byte, 1);
	}
	rgp_chunk_end(b, at);
}

struct rgp_spm_counter {
	uint32_t block, instance, event;
};

/*
 * An SPM database chunk (version 2.0, a 40-byte preamble, 20-byte counter
 * records) of n_samples timestamps and n_counters counters whose values
 * value(sample, counter) are item_size (2 or 4) bytes each. With
 * short_records, the older 36-byte preamble and 16-byte records.
 */
static inline void rgp_spm_chunk(struct rgp_buf *b, uint32_t interval,
				 uint32_t n_samples, const uint64_t *timestamps,
				 uint32_t n_counters,
				 const struct rgp_spm_counter *counters,
				 uint32_t (*value)(uint32_t s, uint32_t c),
				 uint32_t item_size, int short_records)
{
	uint32_t preamble = short_records ? 36 : 40;
	uint32_t record = short_records ? 16 : 20;
	size_t at = rgp_chunk_header(b, 8, 2, 0);
	rgp_u32(b, 0);
	rgp_u32(b, preamble);
	rgp_u32(b, n_samples);
	rgp_u32(b, n_counters);
	rgp_u32(b, record);
	if (!short_records)
		rgp_u32(b, interval);
	for (uint32_t s = 0; s < n_samples; s++)
		rgp_u64(b, timestamps[s]);
	uint32_t offset = n_samples * 8 + n_counters * record;
	for (uint32_t c = 0; c < n_counters; c++) {
		rgp_u32(b, counters[c].block);
		rgp_u32(b, counters[c].instance);
		rgp_u32(b, counters[c].event);
		rgp_u32(b, offset);
		if (!short_records)
			rgp_u32(b, item_size);
		offset += n_samples * item_size;
	}
	for (uint32_t c = 0; c < n_counters; c++)
		for (uint32_t s = 0; s < n_samples; s++) {
			if (item_size == 2)
				rgp_u16(b, (uint16_t)value(s, c));
			else
				rgp_u32(b, value(s, c));
		}
	rgp_chunk_end(b, at);
}

#endif
