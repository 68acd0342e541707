/*
 * Decoding an SPM ring (see spm_ring.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "little_endian.h"
#include "spm_ring.h"

int64_t gpm_spm_segment_offset(const uint32_t *segment_lines,
			       unsigned n_segments, unsigned segment,
			       uint32_t slot)
{
	if (segment >= n_segments ||
	    (uint64_t)slot * 2 >= (uint64_t)segment_lines[segment] * GPM_SPM_LINE_BYTES)
		return -1;
	uint64_t base = 0;
	for (unsigned s = 0; s < segment; s++)
		base += (uint64_t)segment_lines[s] * GPM_SPM_LINE_BYTES;
	return (int64_t)(base + (uint64_t)slot * 2);
}

static int check_layout(const struct gpm_spm_layout *l, size_t len, char *why,
			size_t size)
{
	if (l->sample_stride < 8 || !l->wr_ptr_granularity || !l->max_samples) {
		snprintf(why, size, "a sample stride of %u bytes, a write "
			 "pointer granularity of %u and %u samples: the stride "
			 "must hold a timestamp and neither may be 0",
			 l->sample_stride, l->wr_ptr_granularity, l->max_samples);
		return -EINVAL;
	}
	uint64_t ring_end = (uint64_t)l->sample_offset +
			    (uint64_t)l->sample_stride * l->max_samples;
	if (ring_end > len || (uint64_t)l->wr_ptr_offset + 4 > len) {
		snprintf(why, size, "the ring ends at byte %llu and the write "
			 "pointer at %llu, past the trace's %zu bytes",
			 (unsigned long long)ring_end,
			 (unsigned long long)l->wr_ptr_offset + 4, len);
		return -EINVAL;
	}
	for (size_t c = 0; c < l->n_counters; c++) {
		const struct gpm_spm_counter *k = &l->counters[c];
		if ((uint64_t)k->offset_lo + 2 > l->sample_stride ||
		    (k->is_32bit && (uint64_t)k->offset_hi + 2 > l->sample_stride)) {
			snprintf(why, size, "counter %zu lies past its %u-byte "
				 "sample (bytes %u and %u)", c, l->sample_stride,
				 k->offset_lo, k->offset_hi);
			return -EINVAL;
		}
	}
	return 0;
}

/* The write pointer as a slot; -EBADMSG with why where the hardware
 * never leaves it. */
static int write_slot(const struct gpm_spm_layout *l, const uint8_t *data,
		      uint64_t *slot, char *why, size_t size)
{
	uint64_t ring_bytes = (uint64_t)l->sample_stride * l->max_samples;
	uint64_t wr_bytes = (uint64_t)gpm__le32_load(data + l->wr_ptr_offset) *
			    l->wr_ptr_granularity;
	if (wr_bytes > ring_bytes || wr_bytes % l->sample_stride) {
		snprintf(why, size, "the write pointer is at byte %llu of a "
			 "ring of %u samples of %u bytes: %s",
			 (unsigned long long)wr_bytes, l->max_samples,
			 l->sample_stride, wr_bytes > ring_bytes ?
			 "past its end" : "inside a sample, where the hardware "
			 "never leaves it");
		return -EBADMSG;
	}
	*slot = wr_bytes / l->sample_stride;
	return 0;
}

/* Checks the layout against the data and finds the write pointer. */
static int locate(const struct gpm_spm_layout *l, const uint8_t *data,
		  size_t len, uint64_t *wr_slot, char *why, size_t size)
{
	int ret = check_layout(l, len, why, size);
	return ret ? ret : write_slot(l, data, wr_slot, why, size);
}

/* n samples from slot first (wrapping) into out. */
static int take(const struct gpm_spm_layout *l, const uint8_t *data,
		uint64_t first_slot, size_t n, struct gpm_spm_samples *out,
		char *why, size_t size)
{
	const uint8_t *ring = data + l->sample_offset;
	out->n_samples = n;
	out->n_counters = l->n_counters;
	if (n && l->n_counters > SIZE_MAX / sizeof(*out->values) / n) {
		snprintf(why, size, "%zu samples of %zu counters do not fit in "
			 "memory", n, l->n_counters);
		return -ENOMEM;
	}
	size_t n_values = n * l->n_counters;
	out->timestamps = malloc((n ? n : 1) * sizeof(*out->timestamps));
	out->values = malloc((n_values ? n_values : 1) * sizeof(*out->values));
	if (!out->timestamps || !out->values) {
		gpm_spm_samples_fini(out);
		snprintf(why, size, "out of memory");
		return -ENOMEM;
	}
	for (size_t s = 0; s < n; s++) {
		uint64_t slot = (first_slot + s) % l->max_samples;
		const uint8_t *sample = ring + slot * l->sample_stride;
		out->timestamps[s] = gpm__le64_load(sample);
		uint32_t *values = out->values + s * l->n_counters;
		for (size_t c = 0; c < l->n_counters; c++) {
			const struct gpm_spm_counter *k = &l->counters[c];
			uint32_t v = gpm__le16_load(sample + k->offset_lo);
			if (k->is_32bit)
				v |= (uint32_t)gpm__le16_load(sample + k->offset_hi) << 16;
			values[c] = v;
		}
	}
	return 0;
}

static uint64_t slot_timestamp(const struct gpm_spm_layout *l,
			       const uint8_t *data, uint64_t slot)
{
	return gpm__le64_load(data + l->sample_offset +
			      slot * l->sample_stride);
}

/* What a ring whose write pointer is at wr_slot holds. */
static int take_ring(const struct gpm_spm_layout *l, const uint8_t *data,
		     uint64_t wr_slot, struct gpm_spm_samples *out, char *why,
		     size_t size)
{
	if (slot_timestamp(l, data, l->max_samples - 1)) {
		/* Wrapped: every slot holds a sample, the oldest where the
		 * next one would have gone. */
		out->wrapped = true;
		return take(l, data, wr_slot % l->max_samples, l->max_samples,
			    out, why, size);
	}
	return take(l, data, 0, (size_t)wr_slot, out, why, size);
}

int gpm_spm_decode(const struct gpm_spm_layout *l, const uint8_t *data,
		   size_t len, struct gpm_spm_samples *out, char *why,
		   size_t size)
{
	memset(out, 0, sizeof(*out));
	uint64_t wr_slot;
	int ret = locate(l, data, len, &wr_slot, why, size);
	if (ret)
		return ret;
	return take_ring(l, data, wr_slot, out, why, size);
}

int gpm_spm_read_new(const struct gpm_spm_layout *l, const uint8_t *data,
		     size_t len, struct gpm_spm_cursor *cursor,
		     struct gpm_spm_samples *out, char *why, size_t size)
{
	memset(out, 0, sizeof(*out));
	uint64_t wr_slot;
	int ret = locate(l, data, len, &wr_slot, why, size);
	if (ret)
		return ret;
	wr_slot %= l->max_samples;
	uint64_t next = cursor->next_slot % l->max_samples;
	uint64_t before = (next + l->max_samples - 1) % l->max_samples;
	if (!cursor->started) {
		ret = take_ring(l, data, wr_slot, out, why, size);
	} else if (slot_timestamp(l, data, before) == cursor->last_timestamp) {
		size_t n = (size_t)((wr_slot + l->max_samples - next) %
				    l->max_samples);
		ret = take(l, data, next, n, out, why, size);
	} else {
		out->wrapped = true;
		ret = take(l, data, wr_slot, l->max_samples, out, why, size);
	}
	if (ret || !out->n_samples)
		return ret;
	cursor->started = true;
	cursor->next_slot = (uint32_t)wr_slot;
	cursor->last_timestamp = out->timestamps[out->n_samples - 1];
	return 0;
}

void gpm_spm_samples_fini(struct gpm_spm_samples *samples)
{
	free(samples->timestamps);
	free(samples->values);
	memset(samples, 0, sizeof(*samples));
}
