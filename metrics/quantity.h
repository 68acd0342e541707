/*
 * Quantities as people type them: durations ("100ms", "2.5s") and sizes
 * ("64Mi", "500k"), read the same by the CLI, the daemon's options and
 * trigger expressions. README's "Units, times and contexts" states the
 * convention: k, M, G, T are powers of 1000; Ki, Mi, Gi, Ti of 1024.
 */
#ifndef GPM_QUANTITY_H
#define GPM_QUANTITY_H

#include <stdint.h>

/* "100ms", "1s", "2.5s", "500us", "20000ns", "1m" into nanoseconds. A
 * unit is required. -EINVAL, or -ERANGE outside 1 ns..10^18 ns. */
int gpm_parse_duration(const char *text, uint64_t *ns);

/* A size in bytes: "100000", "10k", "10kB", "4M", "1G", "64Ki", "1MiB".
 * -EINVAL for anything else, a fraction of a byte included; -ERANGE past
 * 2^63. */
int gpm_parse_bytes(const char *text, uint64_t *bytes);

#endif
