/*
 * The read-ahead ring. The helper reads the file in order into a ring of
 * RING bytes, never more than RING ahead of where the reader is. The first
 * MIRROR bytes of the ring are copied once more right after its end, so a
 * stretch of MIRROR bytes starting anywhere in the ring lies in one piece:
 * every stretch the reader asks for does, and it decodes the ring in place.
 *
 * Neither thread ever sleeps waiting for the other. When the ring has not
 * got as far as the reader, the reader gives the helper a few microseconds
 * to finish the read under way, then reads the stretch itself, as it would
 * without a helper, and the helper skips what the reader has passed: a
 * helper off its core (the helper only runs on a CPU nothing else wants)
 * costs the reader next to nothing. When the ring is full, the helper naps
 * rather than being woken: waking a sleeping thread would cost the reader
 * a system call, on a virtual machine an interrupt to another CPU too,
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
/* Small enough that what the helper read is still in a cache the reader's
 * core shares when it gets there: with a ring several times larger the
 * decoding spends half again as long waiting on memory. */
#define RING (1u << 20)
/* The helper reads this much at a time: few system calls, and room to
 * start again soon after the reader moves on. RING is a multiple of it. */
#define CHUNK (64u << 10)
/* The helper's first nap when the ring is full, well below the time the
 * reader takes to decode a ring, so it does not run dry; the naps double
 * up to the longest while the reader is held up (by a slow output, say). */
#define NAP_MIN_NS 20000L
#define NAP_MAX_NS 1000000L
/* How long the reader waits for a stretch the helper is reading before
 * reading it itself: several times what reading a chunk takes. */
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

/* Reads the chunk at `at` into the ring. Returns what read_fully() does. */
static ssize_t read_chunk(struct gpuperf_readahead *ra, uint64_t at,
			  size_t len)
{
	size_t pos = (size_t)(at % RING);
	ssize_t n = read_fully(ra->fd, ra->ring + pos, len, at);

	if (n > 0 && pos < MIRROR)
		memcpy(ra->ring + RING + pos, ra->ring + pos,
		       (size_t)n < MIRROR - pos ? (size_t)n : MIRROR - pos);
	return n;
}

static void *help(void *arg)
{
	struct gpuperf_readahead *ra = arg;
	uint64_t size = ra->source.size, at = 0;
	long nap_ns = NAP_MIN_NS;

	/* The default slack of 50 us would stretch the shortest naps past
	 * the time the reader takes to decode the ring. */
	prctl(PR_SET_TIMERSLACK, 1000UL);
	/* Only a CPU nothing else wants: on a busy machine a helper taking
	 * turns with the reader (or anyone) costs more than it saves, and
	 * the reader reads for itself what the helper has not. */
	struct sched_param idle = { 0 };
	pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
	while (at < size && !stopping(ra)) {
		uint64_t released = atomic_load_explicit(&ra->released,
							 memory_order_acquire);
		if (at < released)
			at = released;
		size_t pos = (size_t)(at % RING);
		size_t len = RING - pos < CHUNK ? RING - pos : CHUNK;
		if (size - at < len)
			len = (size_t)(size - at);
		if (at + len > released + RING) {
			nap(ra, nap_ns);
			nap_ns = nap_ns * 2 < NAP_MAX_NS ? nap_ns * 2 : NAP_MAX_NS;
			continue;
		}
		nap_ns = NAP_MIN_NS;
		/* On a failed or short read the reader, reading that
		 * stretch itself, meets the failure or the shrunk file as it
		 * would without a helper. */
		ssize_t n = read_chunk(ra, at, len);
		if (n <= 0)
			break;
		at += (uint64_t)n;
		atomic_store_explicit(&ra->filled, at, memory_order_release);
		if ((size_t)n < len)
			break;
	}
	atomic_store_explicit(&ra->done, true, memory_order_release);
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
 * Whether the ring holds the bytes up to want. A helper still reading
 * them is waited for, WAIT_NS at most; one that has not moved on since it
 * was last waited for in vain (off its core, say) is not waited for again.
 */
static bool ring_has(struct gpuperf_readahead *ra, uint64_t want)
{
	int64_t deadline = 0;

	for (unsigned spin = 0;; spin++) {
		uint64_t filled = atomic_load_explicit(&ra->filled,
						       memory_order_acquire);
		if (filled >= want)
			return true;
		if (atomic_load_explicit(&ra->done, memory_order_acquire))
			return atomic_load_explicit(&ra->filled,
						    memory_order_acquire) >= want;
		if (filled == ra->stalled_at)
			return false;
		/* The clock is read now and then only: the wait is mostly
		 * for a read of a chunk already under way. */
		if (spin % 64 == 0) {
			int64_t t = now_ns();
			if (!deadline) {
				deadline = t + WAIT_NS;
			} else if (t > deadline) {
				ra->stalled_at = filled;
				return false;
			}
		}
		spin_pause();
	}
}

static ssize_t fetch(void *ctx, uint64_t offset, const unsigned char **data)
{
	struct gpuperf_readahead *ra = ctx;
	uint64_t left = ra->source.size - offset;

	/* Only the reader writes released. */
	if (offset < atomic_load_explicit(&ra->released, memory_order_relaxed))
		return read_here(ra, offset, data);
	atomic_store_explicit(&ra->released, offset, memory_order_release);
	if (!ring_has(ra, offset + (left < MIRROR ? left : MIRROR)))
		return read_here(ra, offset, data);

	size_t pos = (size_t)(offset % RING);
	uint64_t n = atomic_load_explicit(&ra->filled, memory_order_acquire) -
		     offset;
	*data = ra->ring + pos;
	return (ssize_t)(n < RING + MIRROR - pos ? n : RING + MIRROR - pos);
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
	struct stat st;
	pthread_condattr_t attr;

	memset(ra, 0, sizeof(*ra));
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
	ra->stalled_at = UINT64_MAX;
	atomic_init(&ra->filled, 0);
	atomic_init(&ra->released, 0);
	atomic_init(&ra->done, false);
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
