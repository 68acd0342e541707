/*
 * A bump allocator for things that live and die together: the strings and
 * arrays of one loaded metric file. Freeing the arena frees them all, so the
 * loader never tracks tens of thousands of small allocations one by one.
 *
 * Internal to metrics/.
 */
#ifndef GPM_ARENA_H
#define GPM_ARENA_H

#include <stddef.h>

struct gpm__arena_chunk;

struct gpm__arena {
	struct gpm__arena_chunk *head;
};

#define GPM__ARENA_INIT { NULL }

/* Zero-filled, aligned for any type; NULL when out of memory. */
void *gpm__arena_alloc(struct gpm__arena *arena, size_t size);
void *gpm__arena_memdup(struct gpm__arena *arena, const void *src, size_t size);
char *gpm__arena_strdup(struct gpm__arena *arena, const char *s);
void gpm__arena_free(struct gpm__arena *arena);

#endif
