/*
 * Loads and stores of little-endian integers at any alignment, for the
 * on-disk and uAPI layouts (recordings, topology queries) whose byte order
 * is fixed regardless of the host.
 */
#ifndef GPM_LITTLE_ENDIAN_H
#define GPM_LITTLE_ENDIAN_H

#include <stdint.h>

static inline uint16_t gpm__le16_load(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t gpm__le32_load(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t gpm__le64_load(const unsigned char *p)
{
	return (uint64_t)gpm__le32_load(p) | (uint64_t)gpm__le32_load(p + 4) << 32;
}

static inline void gpm__le16_store(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static inline void gpm__le32_store(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline void gpm__le64_store(unsigned char *p, uint64_t v)
{
	gpm__le32_store(p, (uint32_t)v);
	gpm__le32_store(p + 4, (uint32_t)(v >> 32));
}

#endif
