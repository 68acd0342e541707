/*
 * Plain numbers as text, as CSV and NDJSON cells hold them.
 *
 * A double is written as the shortest of "%.15g", "%.16g" and "%.17g" that
 * reads back as the same double: 15 digits where they suffice, so 0.1
 * stays 0.1, and never a digit that loses the value. Replay prints
 * thousands of these per second, and three snprintf()s plus three
 * strtod()s each cost more than computing the windows; the digits are
 * worked out here with exact integer arithmetic instead, byte for byte
 * what printf would have written.
 */
#ifndef GPUPERF_NUMBER_TEXT_H
#define GPUPERF_NUMBER_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Room for any number these functions write, with its NUL. */
#define GPUPERF_NUMBER_TEXT_MAX 32

/* v in decimal, as "%" PRIu64 would; returns the length. */
size_t gpuperf_u64_text(char *buf, uint64_t v);

/*
 * A finite v as the shortest of "%.15g", "%.16g" and "%.17g" that strtod()
 * turns back into v; returns the length. buf holds at least
 * GPUPERF_NUMBER_TEXT_MAX bytes.
 */
size_t gpuperf_double_text(char *buf, double v);

#endif
