/*
 * Loads and stores of little-endian integers at any alignment, for the
 * on-disk and uAPI layouts (recordings, topology queries) whose byte order
 * is fixed regardless of the host.
 */
#ifndef GPM_LITTLE_ENDIAN_H
#define GPM_LITTLE_ENDIAN_H

#include <stdint.h>
#include <string.h>

/* One move each on a little-endian host: the byte loops these replaced
 * were not merged by the compiler, and writing a sim report's 64 counters
 * cost 1500 instructions. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define GPM__LE16(v) __builtin_bswap16(v)
#define GPM__LE32(v) __builtin_bswap32(v)
#define GPM__LE64(v) __builtin_bswap64(v)
#else
#define GPM__LE16(v) (v)
#define GPM__LE32(v) (v)
#define GPM__LE64(v) (v)
#endif

static inline uint16_t gpm__le16_load(const unsigned char *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return GPM__LE16(v);
}

static inline uint32_t gpm__le32_load(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return GPM__LE32(v);
}

static inline uint64_t gpm__le64_load(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return GPM__LE64(v);
}

static inline void gpm__le16_store(unsigned char *p, uint16_t v)
{
	v = GPM__LE16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void gpm__le32_store(unsigned char *p, uint32_t v)
{
	v = GPM__LE32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void gpm__le64_store(unsigned char *p, uint64_t v)
{
	v = GPM__LE64(v);
	memcpy(p, &v, sizeof(v));
}

#endif
