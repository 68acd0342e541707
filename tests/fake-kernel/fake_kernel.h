/*
 * The fake kernel: an LD_PRELOAD library that makes a directory look like
 * a machine with Intel GPUs, for the daemon's i915 and xe sources.
 *
 * It builds the machine's /dev/dri, /sys and /proc/sys/dev under a root
 * directory, points libdrm's fixed paths there, and answers the DRM ioctls
 * of the fake cards as i915 or xe would, with OA streams read from the OA
 * model that backs the sim source (daemon/sim/oa_model.h). The daemon,
 * started with --dev-root ROOT/dev --sysfs-root ROOT/sys, finds the cards
 * through drmGetDevices2 and drives them through the real uAPI.
 *
 * Environment (read when the first intercepted call needs the machine, and
 * again whenever GPD_FAKE_KERNEL_ROOT changes):
 *
 *   GPD_FAKE_KERNEL_ROOT     the machine's root; unset, the library passes
 *                            every call through
 *   GPD_FAKE_KERNEL_CARDS    DRIVER:PLATFORM,... e.g. "i915:tglgt2,xe:tglgt2"
 *                            for card0 and card1 (default "i915:tglgt2")
 *   GPD_FAKE_KERNEL_METRICS  a directory of oa-*.xml: the sets the kernel
 *                            can be given, whose equations the model fits
 *   GPD_FAKE_KERNEL_SETS     symbols of the sets registered at boot, in
 *                            sysfs (default: none, as on a real kernel)
 *   GPD_FAKE_KERNEL_SEED     the model's seed (default 1, the daemon's)
 *   GPD_FAKE_KERNEL_PERF_REVISION  i915's perf revision (default 7); 0
 *                            answers the GETPARAM with EINVAL, as kernels
 *                            before it did; below 6 there is no
 *                            OA_TIMESTAMP_FREQUENCY either
 *   GPD_FAKE_KERNEL_LOG      a file that gets a line per request: what was
 *                            asked, and the answer
 *   GPD_FAKE_KERNEL_CONTROL  a file of key=value lines, read again whenever
 *                            it is replaced (write a new file and rename
 *                            it over the old):
 *       capable=0|1          the caller has CAP_PERFMON (default 1)
 *       busy=1               another process holds every OA unit: EBUSY
 *       eio_after=N          i915: after N more reads the stream dies as in
 *                            a GPU reset, reads fail with EIO
 *       enospc=N             the next N reads fail with ENOSPC
 *       stall_ms=N           the next read finds N ms more of GPU time, as
 *                            if the reader had stalled (overflows the
 *                            buffer when N is large enough)
 *       add_config_race=1    the next ADD_CONFIG finds another process
 *                            registered the set first: EADDRINUSE
 *       einval=WHAT          the next stream open is refused with EINVAL
 *                            for its format or exponent, as a kernel that
 *                            does not take them would; "set": another
 *                            process removed the metric set just before
 *       report_loss=P        streams opened from now on drop each report
 *                            with probability P (REPORT_LOST)
 *     The PMUs' counts (pmu.c), read at every count:
 *       busy.ENGINE=S, wait.ENGINE=S, sema.ENGINE=S   share of the time
 *                            ENGINE (rcs0, bcs0, vcs0, vcs1, vecs0) is so
 *       actual_mhz=F, requested_mhz=F   the GT's frequencies
 *       rc6=S                share of the time in RC6 (xe: GT C6)
 *       rapl_watts=W         RAPL's energy-gpu rate
 *       pmu_base=N           where every count starts (to make one wrap)
 *       cap_sys_ptrace=0     the caller lacks CAP_SYS_PTRACE: another
 *                            user's /proc/PID/fd and fdinfo (one whose
 *                            PID/status has another Uid) refuse it (proc.c)
 *   Sysctls are files of the machine, read at every request:
 *   ROOT/proc/sys/dev/i915/perf_stream_paranoid (default 1),
 *   ROOT/proc/sys/dev/i915/oa_max_sample_rate (100000),
 *   ROOT/proc/sys/dev/xe/observation_paranoid (1),
 *   ROOT/proc/sys/kernel/perf_event_paranoid (2).
 *   GPD_FAKE_KERNEL_PMU=0     no PMU in sysfs, as on a kernel without one
 *
 * Simplifications: every stream reads as non-blocking; only the periodic
 * OAG stream with SAMPLE_OA is modelled; of the stream ioctls xe's STATUS
 * alone is answered, and the i915 perf-config query not at all (the daemon
 * uses neither); GEM context handle h stands for the workload's context
 * h - 1, and xe knows no exec queues. An LD_PRELOAD shim has process-wide
 * state by nature: it lives in one struct, fk.
 */
#ifndef GPD_FAKE_KERNEL_H
#define GPD_FAKE_KERNEL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "daemon/sim/oa_model.h"
#include "metrics/device.h"
#include "metrics/metrics_db.h"
#include "metrics/platform.h"

#define FK_MAX_CARDS 4
#define FK_MAX_FDS 4096
#define FK_DRM_MAJOR 226
/* The kernel's OA buffer: what the model is given. */
#define FK_OA_BUFFER_SIZE (16u << 20)
#define FK_DEFAULT_POLL_PERIOD_NS 5000000ull
/* Room for the root, leaving the machine's paths below PATH_MAX. */
#define FK_ROOT_MAX 1024

enum fk_driver {
	FK_I915,
	FK_XE,
};

struct fk_stream;

struct fk_card {
	unsigned index;                 /* cardN, DRM minor N */
	enum fk_driver driver;
	const struct gpm_platform *platform;
	struct gpm_device_info info;
	char dir[FK_ROOT_MAX + 2048];   /* .../drm/cardN in the machine's sysfs */
	char node[FK_ROOT_MAX + 64];    /* ROOT/dev/dri/cardN */
	dev_t node_dev;                 /* what stat() of the node file says */
	ino_t node_ino;
	struct fk_stream *stream;       /* the OA unit's one stream */
};

struct fk_stream {
	struct fk_card *card;
	int fd;                         /* a timerfd: readable every poll period */
	struct gpd_oa_model *model;
	uint64_t set_id;
	uint64_t last_ns;               /* monotonic time the model is at */
	uint64_t remainder_ns;
	bool dead;                      /* i915: stopped as by a GPU reset */
	/* xe: the model's i915 records not yet returned, and the status
	 * bits that STATUS returns. */
	unsigned char *pending;
	size_t pending_size, pending_off, pending_len;
	uint64_t xe_status;
};

struct fk_control {
	bool capable;
	bool busy;
	long eio_after;                 /* -1: none */
	unsigned enospc;
	uint64_t stall_ms;
	bool add_config_race;
	char einval[16];                /* "", "format", "exponent" or "set" */
	double report_loss;
	/* The PMUs' knobs, by name. */
	unsigned n_values;
	struct {
		char key[32];
		double value;
	} values[32];
	/* Which file these came from: a replaced file is read again. */
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	off_t size;
};

enum fk_fd_kind {
	FK_FD_NONE,
	FK_FD_CARD,
	FK_FD_STREAM,
	FK_FD_PMU,
};

struct fk_pmu_event;

struct fk_fd {
	enum fk_fd_kind kind;
	struct fk_card *card;
	struct fk_stream *stream;
	struct fk_pmu_event *pmu;
};

struct fake_kernel {
	bool initializing;
	char root[FK_ROOT_MAX];         /* "" while inert */
	unsigned n_cards;
	struct fk_card cards[FK_MAX_CARDS];
	struct gpm_metrics_db db;
	uint64_t seed;
	int perf_revision;
	FILE *log;
	char control_path[PATH_MAX];
	struct fk_control control;
	struct fk_fd fds[FK_MAX_FDS];
};

extern struct fake_kernel fk;

/* machine.c: the machine of the environment, built on first use; false
 * while there is none (or it is being built). */
bool fk_active(void);
/* The machine's path for path when it is one of the fixed paths libdrm
 * and the daemon use (/dev/dri, /sys, /proc/sys/dev/{i915,xe}); else
 * path itself. */
const char *fk_redirect(const char *path, char *buf, size_t size);
/* The card whose node stat() describes; NULL if none. */
struct fk_card *fk_card_of_node(const struct stat *st);
/* Makes st describe the card's character device. */
void fk_card_stat(const struct fk_card *card, struct stat *st);
/* A sysctl of the machine, e.g. "dev/i915/perf_stream_paranoid". */
uint64_t fk_sysctl(const char *name, uint64_t fallback);
const struct gpm_metric_set *fk_find_set(const struct fk_card *card,
					 const char *guid);

/* control.c */
const struct fk_control *fk_control(void);
/* Takes one of a counted injection; true when it fires. */
bool fk_take_enospc(void);
bool fk_take_add_config_race(void);
/* The property the next stream open is refused for ("" for none). */
const char *fk_take_einval(char *buf, size_t size);
uint64_t fk_take_stall_ms(void);
/* Counts a read towards eio_after; true when the stream dies now. */
bool fk_take_eio(void);
/* A PMU knob of the control file; fallback when it is not set. */
double fk_control_value(const char *key, double fallback);

/* proc.c: EACCES when opening path (relative to dirfd) is another
 * user's fd directory or fdinfo file and the caller may not ptrace it. */
int fk_proc_check(int dirfd, const char *path);

/* pmu.c */
/* Builds the PMUs' sysfs directories. */
void fk_pmu_build(void);
/* The PMU name of card's driver for it. */
void fk_pmu_name(const struct fk_card *card, char *name, size_t size);
ssize_t fk_pmu_read(struct fk_pmu_event *ev, void *buf, size_t len);
int fk_pmu_ioctl(struct fk_pmu_event *ev, unsigned long request, void *arg);
void fk_pmu_close(struct fk_pmu_event *ev);

/* request_log.c */
void fk_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *fk_errname(int err);

/* configs.c: the metric sets in the card's sysfs, metrics/<guid>/id. */
int fk_config_guid(const struct fk_card *card, uint64_t id, char guid[37]);
int fk_config_add(const struct fk_card *card, const char *guid, uint64_t *id);
int fk_config_remove(const struct fk_card *card, uint64_t id);
bool fk_uuid_valid(const char *uuid);

/* stream.c */
/* The control file's einval injection for a stream open of set_id: true
 * when the open is to fail with EINVAL. */
bool fk_inject_einval(struct fk_card *card, uint64_t set_id);
int fk_stream_open(struct fk_card *card, uint64_t set_id, uint32_t i915_format,
		   int exponent, bool disabled, uint64_t poll_period_ns,
		   bool filter_context, uint32_t context_index);
void fk_stream_close(struct fk_stream *stream);
void fk_stream_enable(struct fk_stream *stream);
ssize_t fk_stream_read(struct fk_stream *stream, void *buf, size_t len);
int fk_stream_set_config(struct fk_stream *stream, uint64_t set_id, uint64_t *prev);

/* card_i915.c, card_xe.c: card ioctls return the ioctl's value or
 * -errno; stream ioctls return false for a request that is not theirs
 * (FIONBIO and the like go to the real ioctl), else set *ret so. */
int fk_i915_card_ioctl(struct fk_card *card, unsigned long request, void *arg);
bool fk_i915_stream_ioctl(struct fk_stream *stream, unsigned long request,
			  unsigned long arg, int *ret);
int fk_xe_card_ioctl(struct fk_card *card, unsigned long request, void *arg);
bool fk_xe_stream_ioctl(struct fk_stream *stream, unsigned long request,
			unsigned long arg, int *ret);
/* drm_version.c: DRM_IOCTL_VERSION, common to both. */
int fk_drm_version(const struct fk_card *card, void *arg);

/* intercept.c: fds the fake knows, and read() past the interception. */
struct fk_fd *fk_fd(int fd);
ssize_t fk_real_read(int fd, void *buf, size_t len);

#endif
