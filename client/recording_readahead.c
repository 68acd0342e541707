/*
 * The read-ahead ring. The file is read in chunks of CHUNK bytes, in
 * order, into a ring of SLOTS chunks, never more than the ring ahead of
 * where the reader is. The first MIRROR bytes of the ring are copied once
 * more right after its end, so a stretch of MIRROR bytes starting anywhere
 * in the ring lies in one piece: every stretch the reader asks for does,
 * and it decodes the ring in place.
 *
 * Whoever gets to a chunk first reads it: the helper, or the reader when
 * it needs a chunk nobody has taken yet. Copying out of the page cache
 * costs a little more than decoding, so the helper alone falls behind;
 * then the reader, rather than wait, reads the chunk after the one the
 * helper is busy with, and the two share the copying. Neither thread ever
 * sleeps waiting for the other. A helper off its core (it only runs on a
 * CPU nothing else wants) holding a chunk the reader needs is waited for
 * a few microseconds only: the reader then reads the stretch itself, as it
 * would without a helper. When the ring is full, the helper naps rather
 * than being woken: waking a sleeping thread would cost the reader a
 * system call, on a virtual machine an interrupt to another CPU too,
 * several times per ring.
 *
 * The reader only moves forward, except when it starts over (once after
 * reading the header, for one): it reads a stretch behind the ring itself
 * too.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "client/recording_readahead.h"

/* What the reader asks for at most; the bytes mirrored. */
#define MIRROR GPM_RECORDING_READER_BUFFER_SIZE
/* Few system calls a chunk, and a stretch the reader asks for spans two
 * chunks at most. */
#define CHUNK GPUPERF_READAHEAD_CHUNK
_Static_assert(CHUNK >= MIRROR, "a stretch spans two chunks at most");
/* Small enough that what was read is still in a cache the reader's core
 * shares when it gets there: with a ring several times larger the
 * decoding spends half again as long waiting on memory. */
#define SLOTS GPUPERF_READAHEAD_SLOTS
#define RING ((uint64_t)SLOTS * CHUNK)
/* The helper's first nap when the ring is full, well below the time the
 * reader takes to decode a ring, so it does not run dry; the naps double
 * up to the longest while the reader is held up (by a slow output, say). */
#define NAP_MIN_NS 20000L
#define NAP_MAX_NS 1000000L
/* How long the reader waits for a chunk the helper is reading, with
 * nothing else to read meanwhile, before reading the stretch itself:
 * several times what reading a chunk takes. */
#define WAIT_NS 20000L

/* Reads len bytes at offset into buf, fewer only at the end of the file.
 * Returns how many, or a negative errno. */
static ssize_t read_fully(int fd, unsigned char *buf, size_t len,
			  uint64_t offset)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, buf + got, len - got,
				  (off_t)(offset + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Sleeps ns, or until gpuperf_readahead_stop(). */
static void nap(struct gpuperf_readahead *ra, long ns)
{
	int64_t until = now_ns() + ns;
	struct timespec ts = { until / 1000000000, until % 1000000000 };

	pthread_mutex_lock(&ra->lock);
	if (!ra->stop)
		pthread_cond_timedwait(&ra->stopping, &ra->lock, &ts);
	pthread_mutex_unlock(&ra->lock);
}

static bool stopping(struct gpuperf_readahead *ra)
{
	pthread_mutex_lock(&ra->lock);
	bool stop = ra->stop;
	pthread_mutex_unlock(&ra->lock);
	return stop;
}

/*
 * Whether chunk k fits in the ring now: the reader is past the chunk its
 * slot held before, and that chunk's reading is over. A helper held up in
 * the middle of a read finishes writing the slot late, after the reader
 * read that stretch itself and moved on: the slot waits for it.
 */
static bool has_room(struct gpuperf_readahead *ra, uint64_t k)
{
	uint64_t released = atomic_load_explicit(&ra->released,
						 memory_order_acquire);

	return (k + 1) * CHUNK <= released + RING &&
	       (k < SLOTS || atomic_load_explicit(&ra->ready[k % SLOTS],
						  memory_order_acquire) ==
				     k - SLOTS + 1);
}

/* Takes chunk k, the next nobody has, for the caller to read. */
static bool claim(struct gpuperf_readahead *ra, uint64_t k)
{
	return atomic_compare_exchange_strong_explicit(
		&ra->next, &k, k + 1, memory_order_acq_rel, memory_order_relaxed);
}

static bool is_ready(struct gpuperf_readahead *ra, uint64_t k)
{
	return atomic_load_explicit(&ra->ready[k % SLOTS],
				    memory_order_acquire) == k + 1;
}

/*
 * Reads claimed chunk k into its slot (and the mirror) and marks it ready.
 * False when the read fails or comes up short: the chunk stays unready,
 * and the reader, reading that stretch itself, meets the failure or the
 * shrunk file as it would without a helper.
 */
static bool read_chunk(struct gpuperf_readahead *ra, uint64_t k)
{
	uint64_t at = k * CHUNK;
	size_t pos = (size_t)(at % RING);
	size_t len = ra->source.size - at < CHUNK ?
		     (size_t)(ra->source.size - at) : CHUNK;
	ssize_t n = read_fully(ra->fd, ra->ring + pos, len, at);

	if (n < 0 || (size_t)n < len) {
		atomic_store_explicit(&ra->failed, true, memory_order_release);
		return false;
	}
	if (pos < MIRROR)
		memcpy(ra->ring + RING + pos, ra->ring + pos,
		       len < MIRROR - pos ? len : MIRROR - pos);
	atomic_store_explicit(&ra->ready[k % SLOTS], k + 1, memory_order_release);
	return true;
}

static void *help(void *arg)
{
	struct gpuperf_readahead *ra = arg;
	long nap_ns = NAP_MIN_NS;

	/* The default slack of 50 us would stretch the shortest naps past
	 * the time the reader takes to decode the ring. */
	prctl(PR_SET_TIMERSLACK, 1000UL);
	/* Only a CPU nothing else wants: on a busy machine a helper taking
	 * turns with the reader (or anyone) costs more than it saves, and
	 * the reader reads for itself what the helper has not. */
	struct sched_param idle = { 0 };
	pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
	while (!stopping(ra)) {
		uint64_t k = atomic_load_explicit(&ra->next, memory_order_acquire);

		if (k * CHUNK >= ra->source.size ||
		    atomic_load_explicit(&ra->failed, memory_order_acquire))
			break;
		if (!has_room(ra, k)) {
			nap(ra, nap_ns);
			nap_ns = nap_ns * 2 < NAP_MAX_NS ? nap_ns * 2 : NAP_MAX_NS;
			continue;
		}
		nap_ns = NAP_MIN_NS;
		if (!claim(ra, k))
			continue;
		if (ra->hooks.helper_reads)
			ra->hooks.helper_reads(ra->hooks.data, k);
		if (!read_chunk(ra, k))
			break;
	}
	return NULL;
}

/* The stretch at offset, read by the reader into a buffer of its own. */
static ssize_t read_here(struct gpuperf_readahead *ra, uint64_t offset,
			 const unsigned char **data)
{
	uint64_t left = ra->source.size - offset;

	*data = ra->own;
	return read_fully(ra->fd, ra->own, left < MIRROR ? (size_t)left :
			  MIRROR, offset);
}

/* Tells the CPU the thread is spinning, so it spends less on it. */
static void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

/*
 * Sees chunk c into the ring: waits for it, reads it, or reads another
 * chunk while the helper reads it. False when it is not to be had from
 * the ring: a read failed, or the helper holding it has not finished it
 * in WAIT_NS with nothing else to do, or did not finish it the last time
 * it was waited for.
 */
static bool obtain(struct gpuperf_readahead *ra, uint64_t c)
{
	int64_t deadline = 0;

	for (unsigned spin = 0;; spin++) {
		if (is_ready(ra, c))
			return true;
		if (atomic_load_explicit(&ra->failed, memory_order_acquire) ||
		    c == ra->stalled_chunk)
			return false;
		uint64_t k = atomic_load_explicit(&ra->next, memory_order_acquire);
		if (k * CHUNK < ra->source.size && has_room(ra, k)) {
			if (claim(ra, k) && !read_chunk(ra, k))
				return false;
			deadline = 0;
			continue;
		}
		/* The clock is read now and then only: the wait is mostly
		 * for a read of a chunk already under way. */
		if (spin % 64 == 0) {
			int64_t t = now_ns();
			if (!deadline) {
				deadline = t + WAIT_NS;
			} else if (t > deadline) {
				ra->stalled_chunk = c;
				return false;
			}
		}
		spin_pause();
	}
}

static ssize_t fetch(void *ctx, uint64_t offset, const unsigned char **data)
{
	struct gpuperf_readahead *ra = ctx;
	uint64_t size = ra->source.size;
	uint64_t want = size - offset < MIRROR ? size - offset : MIRROR;

	if (offset >= size) {
		*data = ra->own;
		return 0;
	}
	/* Only the reader writes released. */
	if (offset < atomic_load_explicit(&ra->released, memory_order_relaxed))
		return read_here(ra, offset, data);
	atomic_store_explicit(&ra->released, offset, memory_order_release);
	uint64_t c = offset / CHUNK, last = (offset + want - 1) / CHUNK;
	for (uint64_t k = c; k <= last; k++)
		if (!obtain(ra, k))
			return read_here(ra, offset, data);

	/* As far as the chunks ready from here on reach, within the ring
	 * and its mirror. */
	size_t pos = (size_t)(offset % RING);
	uint64_t end = offset - pos + RING + MIRROR;
	while ((last + 1) * CHUNK < end && (last + 1) * CHUNK < size &&
	       is_ready(ra, last + 1))
		last++;
	if ((last + 1) * CHUNK < end)
		end = (last + 1) * CHUNK;
	if (size < end)
		end = size;
	*data = ra->ring + pos;
	return (ssize_t)(end - offset);
}

/* Starts the helper with every signal blocked: they are for the reader's
 * thread to handle. */
static int start_helper(struct gpuperf_readahead *ra)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&ra->helper, NULL, help, ra);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -rc;
}

int gpuperf_readahead_start(struct gpuperf_readahead *ra, int fd)
{
	return gpuperf_readahead_start_hooked(ra, fd, NULL);
}

int gpuperf_readahead_start_hooked(struct gpuperf_readahead *ra, int fd,
				   const struct gpuperf_readahead_hooks *hooks)
{
	struct stat st;
	pthread_condattr_t attr;

	memset(ra, 0, sizeof(*ra));
	if (hooks)
		ra->hooks = *hooks;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	ra->ring = malloc(RING + MIRROR + MIRROR);
	if (!ra->ring)
		return -ENOMEM;
	ra->own = ra->ring + RING + MIRROR;
	ra->fd = fd;
	ra->source.size = (uint64_t)st.st_size;
	ra->source.fetch = fetch;
	ra->source.ctx = ra;
	ra->stalled_chunk = UINT64_MAX;
	atomic_init(&ra->next, 0);
	atomic_init(&ra->released, 0);
	atomic_init(&ra->failed, false);
	for (size_t i = 0; i < SLOTS; i++)
		atomic_init(&ra->ready[i], 0);
	pthread_mutex_init(&ra->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&ra->stopping, &attr);
	pthread_condattr_destroy(&attr);
	int rc = start_helper(ra);
	if (rc < 0) {
		pthread_cond_destroy(&ra->stopping);
		pthread_mutex_destroy(&ra->lock);
		free(ra->ring);
	}
	return rc;
}

void gpuperf_readahead_stop(struct gpuperf_readahead *ra)
{
	pthread_mutex_lock(&ra->lock);
	ra->stop = true;
	pthread_cond_signal(&ra->stopping);
	pthread_mutex_unlock(&ra->lock);
	pthread_join(ra->helper, NULL);
	pthread_cond_destroy(&ra->stopping);
	pthread_mutex_destroy(&ra->lock);
	free(ra->ring);
}
