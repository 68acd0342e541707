/*
 * Reading a recording file on a helper thread, a bounded distance ahead of
 * the recording reader, for gpuperf replay.
 *
 * Copying a cached file out of the page cache costs a little more than
 * decoding it. The helper copies on another core, and the reader shares
 * the copying when the helper falls behind, into a small ring that the
 * reader then decodes in place: the ring is small enough to still be in
 * the cache when the reader gets to it, and memory stays flat however long
 * the recording.
 */
#ifndef GPUPERF_RECORDING_READAHEAD_H
#define GPUPERF_RECORDING_READAHEAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "metrics/recording.h"

/* For tests: called on the helper thread before each chunk it reads, with
 * the chunk's number (its offset / GPUPERF_READAHEAD_CHUNK). */
struct gpuperf_readahead_hooks {
	void (*helper_reads)(void *data, uint64_t chunk);
	void *data;
};

/* The ring: SLOTS chunks of CHUNK bytes. */
#define GPUPERF_READAHEAD_CHUNK (64u << 10)
#define GPUPERF_READAHEAD_SLOTS 16

struct gpuperf_readahead {
	/* For gpm_recording_reader_open_source(). */
	struct gpm_recording_source source;
	/* private */
	int fd;
	struct gpuperf_readahead_hooks hooks;
	unsigned char *ring;            /* then its mirror, then own */
	unsigned char *own;             /* what the reader reads itself */
	uint64_t stalled_chunk;         /* reader only: the chunk last waited
					 * for in vain */
	pthread_t helper;
	pthread_mutex_t lock;
	pthread_cond_t stopping;        /* stop was set */
	bool stop;                      /* under lock */
	/* Between the threads: */
	_Atomic uint64_t next;          /* the first chunk nobody has taken */
	_Atomic uint64_t ready[GPUPERF_READAHEAD_SLOTS];
					/* 1 + the chunk whose bytes each slot
					 * holds, 0 for none */
	_Atomic uint64_t released;      /* the reader is past every byte
					 * before this */
	_Atomic bool failed;            /* a read failed or came up short:
					 * the reader reads the rest itself */
};

/*
 * Starts reading the regular file open on fd, which has to stay open
 * until gpuperf_readahead_stop(). Returns 0, or a negative errno when fd
 * is no regular file or the helper cannot start: read it another way
 * then.
 */
int gpuperf_readahead_start(struct gpuperf_readahead *ra, int fd);
/* The same, with hooks (tests). */
int gpuperf_readahead_start_hooked(struct gpuperf_readahead *ra, int fd,
				   const struct gpuperf_readahead_hooks *hooks);

/* Stops the helper. */
void gpuperf_readahead_stop(struct gpuperf_readahead *ra);

#endif
