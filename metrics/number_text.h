/*
 * Plain numbers as text, as CSV and NDJSON cells and /metrics samples
 * hold them.
 *
 * A double is written with the fewest significant digits that strtod()
 * reads back as the same double, the nearest such digits where several
 * would do: 0.1 stays 0.1, and no digit that loses the value, none that
 * adds nothing. Replay of every report pair prints tens of millions of
 * them, so the digits are computed directly (see number_text.c), never by
 * trying printf precisions. They are laid out as printf's "%g" would lay
 * out that many digits (at least 15): plain from 1e-4 up to 1e15 (1e16,
 * 1e17 for 16 and 17 digits), else as 1.2345e+20.
 */
#ifndef GPM_NUMBER_TEXT_H
#define GPM_NUMBER_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Room for any number these functions write, with its NUL. */
#define GPM_NUMBER_TEXT_MAX 32

/* v in decimal, as "%" PRIu64 would; returns the length. */
size_t gpm_u64_text(char *buf, uint64_t v);

/*
 * A finite v as its shortest digits that strtod() turns back into v (see
 * above); returns the length. buf holds at least GPM_NUMBER_TEXT_MAX
 * bytes.
 */
size_t gpm_double_text(char *buf, double v);

#endif
