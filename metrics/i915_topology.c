/*
 * Encoding and decoding of the i915 topology query blob (see
 * i915_topology.h for the layout).
 */
#include <errno.h>
#include <string.h>

#include "metrics/i915_topology.h"
#include "metrics/little_endian.h"

/* Offsets of the fixed part's fields (flags, at 0, is always 0). */
enum {
	TOPO_MAX_SLICES = 2,
	TOPO_MAX_SUBSLICES = 4,
	TOPO_MAX_EUS = 6,
	TOPO_SUBSLICE_OFFSET = 8,
	TOPO_SUBSLICE_STRIDE = 10,
	TOPO_EU_OFFSET = 12,
	TOPO_EU_STRIDE = 14,
};

static unsigned bytes_for_bits(unsigned bits)
{
	return (bits + 7) / 8;
}

static int topology_in_limits(const struct gpm_topology *t)
{
	return t->max_slices >= 1 && t->max_slices <= GPM_MAX_SLICES &&
	       t->max_subslices >= 1 && t->max_subslices <= GPM_MAX_SUBSLICES &&
	       t->max_eus_per_subslice >= 1 &&
	       t->max_eus_per_subslice <= GPM_MAX_EUS_PER_SUBSLICE;
}

static uint64_t low_bits(unsigned n)
{
	return n >= 64 ? UINT64_MAX : ((uint64_t)1 << n) - 1;
}

int gpm_i915_topology_encode(const struct gpm_topology *t, void *buf,
			     size_t size, size_t *len)
{
	if (!topology_in_limits(t))
		return -EINVAL;

	unsigned slices = t->max_slices;
	unsigned subslices = t->max_subslices;
	unsigned ss_stride = bytes_for_bits(subslices);
	unsigned eu_stride = bytes_for_bits(t->max_eus_per_subslice);
	/* i915 stores the slice mask as one u8, hence offset 1. */
	unsigned ss_offset = 1;
	unsigned eu_offset = ss_offset + slices * ss_stride;
	size_t total = GPM_I915_TOPOLOGY_FIXED_SIZE + eu_offset +
		       (size_t)slices * subslices * eu_stride;

	*len = total;
	if (!buf)
		return 0;
	if (size < total)
		return -ENOSPC;

	unsigned char *p = buf;
	memset(p, 0, total);
	gpm__le16_store(p + TOPO_MAX_SLICES, (uint16_t)slices);
	gpm__le16_store(p + TOPO_MAX_SUBSLICES, (uint16_t)subslices);
	gpm__le16_store(p + TOPO_MAX_EUS, t->max_eus_per_subslice);
	gpm__le16_store(p + TOPO_SUBSLICE_OFFSET, (uint16_t)ss_offset);
	gpm__le16_store(p + TOPO_SUBSLICE_STRIDE, (uint16_t)ss_stride);
	gpm__le16_store(p + TOPO_EU_OFFSET, (uint16_t)eu_offset);
	gpm__le16_store(p + TOPO_EU_STRIDE, (uint16_t)eu_stride);

	unsigned char *data = p + GPM_I915_TOPOLOGY_FIXED_SIZE;
	data[0] = (unsigned char)(t->slice_mask & low_bits(slices));
	uint64_t ss_keep = low_bits(subslices);
	uint16_t eu_keep = (uint16_t)low_bits(t->max_eus_per_subslice);
	for (unsigned s = 0; s < slices; s++) {
		uint64_t ss_mask = t->subslice_mask[s] & ss_keep;
		for (unsigned i = 0; i < ss_stride; i++)
			data[ss_offset + s * ss_stride + i] =
				(unsigned char)(ss_mask >> (8 * i));
		for (unsigned ss = 0; ss < subslices; ss++) {
			uint16_t eu_mask = t->eu_mask[s][ss] & eu_keep;
			unsigned char *eu = data + eu_offset +
					    (s * subslices + ss) * eu_stride;
			for (unsigned i = 0; i < eu_stride; i++)
				eu[i] = (unsigned char)(eu_mask >> (8 * i));
		}
	}
	return 0;
}

static int fail(const char **reason, const char *why)
{
	*reason = why;
	return -EBADMSG;
}

int gpm_i915_topology_decode(const void *buf, size_t len,
			     struct gpm_topology *t, const char **reason)
{
	const unsigned char *p = buf;

	if (len < GPM_I915_TOPOLOGY_FIXED_SIZE)
		return fail(reason, "shorter than the 16-byte fixed part");

	unsigned slices = gpm__le16_load(p + TOPO_MAX_SLICES);
	unsigned subslices = gpm__le16_load(p + TOPO_MAX_SUBSLICES);
	unsigned eus = gpm__le16_load(p + TOPO_MAX_EUS);
	unsigned ss_offset = gpm__le16_load(p + TOPO_SUBSLICE_OFFSET);
	unsigned ss_stride = gpm__le16_load(p + TOPO_SUBSLICE_STRIDE);
	unsigned eu_offset = gpm__le16_load(p + TOPO_EU_OFFSET);
	unsigned eu_stride = gpm__le16_load(p + TOPO_EU_STRIDE);
	size_t data_len = len - GPM_I915_TOPOLOGY_FIXED_SIZE;
	const unsigned char *data = p + GPM_I915_TOPOLOGY_FIXED_SIZE;

	if (slices < 1 || slices > GPM_MAX_SLICES)
		return fail(reason, "max_slices is 0 or above 8");
	if (subslices < 1 || subslices > GPM_MAX_SUBSLICES)
		return fail(reason, "max_subslices is 0 or above 64");
	if (eus < 1 || eus > GPM_MAX_EUS_PER_SUBSLICE)
		return fail(reason, "max_eus_per_subslice is 0 or above 16");
	if (ss_offset < 1)
		return fail(reason, "subslice_offset leaves no room for the slice mask");
	if (ss_stride < bytes_for_bits(subslices))
		return fail(reason, "subslice_stride too small for max_subslices");
	if (eu_stride < bytes_for_bits(eus))
		return fail(reason, "eu_stride too small for max_eus_per_subslice");
	if ((size_t)ss_offset + (size_t)slices * ss_stride > data_len)
		return fail(reason, "subslice masks run past the record");
	if ((size_t)eu_offset + (size_t)slices * subslices * eu_stride > data_len)
		return fail(reason, "EU masks run past the record");

	memset(t, 0, sizeof(*t));
	t->max_slices = (uint16_t)slices;
	t->max_subslices = (uint16_t)subslices;
	t->max_eus_per_subslice = (uint16_t)eus;
	t->slice_mask = (uint8_t)(data[0] & low_bits(slices));

	/* Strides may exceed what the maxima need; only the bytes holding
	 * units below the maxima are read. */
	unsigned ss_bytes = bytes_for_bits(subslices);
	unsigned eu_bytes = bytes_for_bits(eus);
	for (unsigned s = 0; s < slices; s++) {
		const unsigned char *ss = data + ss_offset + s * ss_stride;
		uint64_t ss_mask = 0;
		for (unsigned i = 0; i < ss_bytes; i++)
			ss_mask |= (uint64_t)ss[i] << (8 * i);
		t->subslice_mask[s] = ss_mask & low_bits(subslices);
		for (unsigned n = 0; n < subslices; n++) {
			const unsigned char *eu = data + eu_offset +
				((size_t)s * subslices + n) * eu_stride;
			unsigned eu_mask = 0;
			for (unsigned i = 0; i < eu_bytes; i++)
				eu_mask |= (unsigned)eu[i] << (8 * i);
			t->eu_mask[s][n] = (uint16_t)(eu_mask & low_bits(eus));
		}
	}
	return 0;
}
