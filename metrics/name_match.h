/*
 * Names as people type them: metric set and counter symbols matched
 * without regard to case, and the closest name offered for a typo
 * ("did you mean RenderBasic?"). Pure string work, shared by the daemon's
 * refusals and the CLI's.
 */
#ifndef GPM_NAME_MATCH_H
#define GPM_NAME_MATCH_H

#include <stdbool.h>
#include <stddef.h>

/* The edits (insert, delete, replace, swap two neighbours) that turn a
 * into b, ignoring ASCII case. */
size_t gpm_name_distance(const char *a, const char *b);

/*
 * Keeps, across calls over every candidate, the one closest to typed that
 * is close enough to be a typo of it (a third of its letters, at least
 * one): *best and *best_distance start as NULL and SIZE_MAX.
 */
void gpm_name_consider(const char *typed, const char *candidate,
		       const char **best, size_t *best_distance);

#endif
