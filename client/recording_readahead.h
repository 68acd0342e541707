/*
 * Reading a recording file on a helper thread, a bounded distance ahead of
 * the recording reader, for gpuperf replay.
 *
 * Copying a cached file out of the page cache costs about as much as
 * decoding it. The helper does the copying on another core, into a small
 * ring that the reader then decodes in place: the ring is small enough to
 * still be in the cache when the reader gets to it, and memory stays flat
 * however long the recording.
 */
#ifndef GPUPERF_RECORDING_READAHEAD_H
#define GPUPERF_RECORDING_READAHEAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "metrics/recording.h"

struct gpuperf_readahead {
	/* For gpm_recording_reader_open_source(). */
	struct gpm_recording_source source;
	/* private */
	int fd;
	unsigned char *ring;            /* then its mirror, then own */
	unsigned char *own;             /* what the reader reads itself */
	uint64_t stalled_at;            /* reader only: where the helper was
					 * when last waited for in vain */
	pthread_t helper;
	pthread_mutex_t lock;
	pthread_cond_t stopping;        /* stop was set */
	bool stop;                      /* under lock */
	/* Between the threads: */
	_Atomic uint64_t filled;        /* the ring holds the bytes up to here */
	_Atomic uint64_t released;      /* the reader is past every byte
					 * before this */
	_Atomic bool done;              /* the helper has stopped reading */
};

/*
 * Starts reading the regular file open on fd, which has to stay open
 * until gpuperf_readahead_stop(). Returns 0, or a negative errno when fd
 * is no regular file or the helper cannot start: read it another way
 * then.
 */
int gpuperf_readahead_start(struct gpuperf_readahead *ra, int fd);

/* Stops the helper. */
void gpuperf_readahead_stop(struct gpuperf_readahead *ra);

#endif
