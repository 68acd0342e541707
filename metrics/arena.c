/*
 * Bump allocation in chunks. Requests larger than a quarter of a chunk get a
 * chunk of their own, so a few big arrays do not waste the tail of the
 * current one.
 */
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/arena.h"

#define CHUNK_SIZE (64 * 1024)

struct gpm__arena_chunk {
	struct gpm__arena_chunk *next;
	size_t used;
	size_t size;
	alignas(max_align_t) unsigned char data[];
};

static struct gpm__arena_chunk *chunk_new(size_t size)
{
	struct gpm__arena_chunk *c = malloc(sizeof(*c) + size);
	if (!c)
		return NULL;
	c->used = 0;
	c->size = size;
	return c;
}

void *gpm__arena_alloc(struct gpm__arena *arena, size_t size)
{
	const size_t align = alignof(max_align_t);
	size_t need = (size + align - 1) & ~(align - 1);
	struct gpm__arena_chunk *c = arena->head;

	if (need < size)
		return NULL;
	if (!c || c->size - c->used < need) {
		if (need > CHUNK_SIZE / 4) {
			if (need > SIZE_MAX - sizeof(*c))
				return NULL;
			c = chunk_new(need);
			if (!c)
				return NULL;
			/* Behind the head, so the head keeps its free tail. */
			if (arena->head) {
				c->next = arena->head->next;
				arena->head->next = c;
			} else {
				c->next = NULL;
				arena->head = c;
			}
		} else {
			c = chunk_new(CHUNK_SIZE);
			if (!c)
				return NULL;
			c->next = arena->head;
			arena->head = c;
		}
	}
	void *p = c->data + c->used;
	c->used += need;
	memset(p, 0, size);
	return p;
}

void *gpm__arena_memdup(struct gpm__arena *arena, const void *src, size_t size)
{
	void *p = gpm__arena_alloc(arena, size);
	if (p && size)
		memcpy(p, src, size);
	return p;
}

char *gpm__arena_strdup(struct gpm__arena *arena, const char *s)
{
	return gpm__arena_memdup(arena, s, strlen(s) + 1);
}

void gpm__arena_free(struct gpm__arena *arena)
{
	struct gpm__arena_chunk *c = arena->head;
	while (c) {
		struct gpm__arena_chunk *next = c->next;
		free(c);
		c = next;
	}
	arena->head = NULL;
}
