/*
 * The fake kernel: an LD_PRELOAD library that makes a directory look like
 * a machine with Intel GPUs, for the daemon's i915 and xe sources.
 *
 * It builds the machine's /dev/dri, /sys and /proc/sys/dev under a root
 * directory, points libdrm's fixed paths there, and answers the DRM ioctls
 * of the fake cards as i915 or xe would, with OA streams read from the OA
 * model that backs the sim source (daemon/sim/oa_model.h). The daemon,
 * started with --dev-root ROOT/dev --sysfs-root ROOT/sys, finds the cards
 * through drmGetDevices2 and drives them through the real uAPI. Every
 * behaviour follows a kernel function, named where it is modelled and
 * listed in README.md with the kernel version it was read in.
 *
 * Environment (read when the first intercepted call needs the machine, and
 * again whenever GPD_FAKE_KERNEL_ROOT changes):
 *
 *   GPD_FAKE_KERNEL_ROOT     the machine's root; unset, the library passes
 *                            every call through
 *   GPD_FAKE_KERNEL_CARDS    DRIVER:PLATFORM,... e.g. "i915:tglgt2,xe:tglgt2"
 *                            for card0 and card1 (default "i915:tglgt2");
 *                            PLATFORM@0xID presents PCI device id ID
 *                            instead of the platform's typical one
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
 *       eio_after=N          i915: after N more reads the stream is
 *                            disabled, as through its own fd: reads fail
 *                            with EIO (i915_perf_read())
 *       gpu_reset=1          the GPU resets now: the OA units lose their
 *                            programming and write no more reports, and
 *                            neither kernel tells the stream
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
 *       pmu_read_lag_ms=N    every third group read of a card's PMU takes
 *                            its counts N ms
 *                            late, as a reader preempted between its own
 *                            clock and read(2) would find them (a test's
 *                            stand-in for a loaded machine, not a kernel
 *                            behaviour)
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
 * Simplifications: every stream reads as non-blocking; only periodic
 * streams with SAMPLE_OA are modelled, in the formats the OA model can
 * write (others are accepted, as the kernel accepts them, and stay empty);
 * of the stream ioctls i915's ENABLE, DISABLE and CONFIG and xe's ENABLE,
 * DISABLE, STATUS and INFO are answered; of xe's VMs and exec queues only
 * their create and destroy (exec_queues.c). A DRM
 * file is what open() of a card node made: the fd becomes a file of the
 * fake's whose inode holds the DRM file's contexts, so a descriptor shared
 * by dup(), fork() or SCM_RIGHTS is the same DRM file in every process
 * (files.c). The cards' hardware context IDs are handed out from a file
 * of the machine (ROOT/kernel/cardN) that every process maps, so that
 * two processes' contexts are two hardware contexts (machine.c). An
 * LD_PRELOAD shim has process-wide state by nature: it lives
 * in one struct, fk.
 */
#ifndef GPD_FAKE_KERNEL_H
#define GPD_FAKE_KERNEL_H

#include <limits.h>
#include <pthread.h>
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
#define FK_MAX_GTS 2
#define FK_MAX_OA_UNITS 4
#define FK_MAX_UNIT_ENGINES 4
#define FK_MAX_CONTEXTS 16
#define FK_MAX_VMS 16
#define FK_MAX_EXEC_QUEUES 16

enum fk_driver {
	FK_I915,
	FK_XE,
};

/* The uAPI's engine classes (i915 and xe number them alike). */
enum fk_engine_class {
	FK_ENGINE_RENDER = 0,
	FK_ENGINE_COPY = 1,
	FK_ENGINE_VIDEO = 2,
	FK_ENGINE_VIDEO_ENHANCE = 3,
	FK_ENGINE_COMPUTE = 4,
};

/* xe's DRM_XE_OA_UNIT_TYPE_* (i915 has OAG and OAM groups alike). */
enum fk_unit_type {
	FK_UNIT_OAG = 0,
	FK_UNIT_OAM = 1,
	FK_UNIT_OAM_SAG = 2,
};

struct fk_stream;

struct fk_gt {
	unsigned id;
	bool media;
	uint32_t reference_clock;       /* Hz, the command streamer's */
};

/* An OA unit (xe) or OA group (i915): one stream at a time. */
struct fk_unit {
	unsigned id;                    /* xe's oa_unit_id */
	enum fk_unit_type type;
	unsigned gt;                    /* index into the card's gts */
	uint64_t timestamp_frequency;   /* xe_oa_timestamp_frequency(gt) */
	/* The unit's timestamp runs on whether or not a stream is open:
	 * the monotonic time of its first stream's open (0: none yet), when
	 * it read FK_START_TIMESTAMP, as the sim source's model starts, and
	 * the ticks stalls added on top of the time since. */
	uint64_t boot_ns;
	uint64_t stalled_ticks;
	unsigned n_engines;
	struct { uint16_t engine_class, instance; } engines[FK_MAX_UNIT_ENGINES];
	struct fk_stream *stream;
};

/* What every process on the machine sees of a card: the kernel's memory
 * of it, in a file of the machine's (ROOT/kernel/cardN) that each maps. */
struct fk_card_shared {
	/* The workload context the next GEM context created submits as. */
	uint32_t next_workload_context;
};

struct fk_card {
	unsigned index;                 /* cardN, DRM minor N */
	enum fk_driver driver;
	const struct gpm_platform *platform;
	struct gpm_device_info info;
	char dir[FK_ROOT_MAX + 2048];   /* .../drm/cardN in the machine's sysfs */
	char node[FK_ROOT_MAX + 64];    /* ROOT/dev/dri/cardN */
	dev_t node_dev;                 /* what stat() of the node file says */
	ino_t node_ino;
	unsigned n_gts;
	struct fk_gt gts[FK_MAX_GTS];
	unsigned n_units;
	struct fk_unit units[FK_MAX_OA_UNITS];
	struct fk_card_shared *shared;
};

/* A GEM context of a DRM file (i915_gem_context_lookup() finds it by its
 * handle in that file only). */
struct fk_context {
	bool used;
	uint32_t handle;
	uint32_t engine_classes;        /* bit per class of its engines */
	/* The workload's context it submits as; -1: it never runs (a file's
	 * default context, handle 0, when nobody submits on it). */
	int workload_index;
};

/* An xe exec queue of a DRM file (xe_exec_queue_lookup() finds it by
 * its id in that file only). */
struct fk_exec_queue {
	bool used;
	uint32_t id;
	uint32_t vm_id;
	uint16_t engine_class, engine_instance, gt_id;  /* its first placement */
	uint16_t width;                 /* batches per submission */
	int workload_index;             /* the workload's context it runs as */
};

/* What a DRM file holds, in the shared memory of the inode that stands
 * for it, so that every process holding a descriptor of it sees one. */
struct fk_file_state {
	uint64_t magic;                 /* FK_FILE_MAGIC */
	uint32_t card_index;
	struct fk_context contexts[FK_MAX_CONTEXTS];
	/* xe: the ids of its VMs, 0 where free, and its exec queues. */
	uint32_t vms[FK_MAX_VMS];
	struct fk_exec_queue exec_queues[FK_MAX_EXEC_QUEUES];
};

/* A DRM file as one process sees it: what open() of a card node gives
 * (struct drm_file, one per open file description). */
struct fk_file {
	struct fk_card *card;
	struct fk_file_state *state;    /* shared */
};

/* What a stream was opened with, checked and resolved by the ioctl. */
struct fk_stream_params {
	struct fk_unit *unit;
	uint64_t set_id;
	int format;                     /* fk_format_by_i915() / _xe() */
	int exponent;                   /* GPD_OA_MODEL_NOT_PERIODIC: none */
	bool disabled;
	uint64_t poll_period_ns;
	/* i915 CTX_HANDLE: the context's hardware ID, or none. */
	bool filter_context;
	/* The per-context counters the open turns on in the context image
	 * of the stream's context or exec queue: "OAR", "OAC", or NULL for
	 * none; and that context, in words ("context 1", "exec queue 1"). */
	const char *context_counters;
	char counted_context[32];
	bool no_sample;                 /* xe: no SAMPLE_OA (a queue's OAR/OAC) */
	int context_index;              /* workload index; -1: never runs */
	unsigned wait_num_reports;      /* xe; i915: 1 */
	uint64_t buffer_size;           /* xe OA_BUFFER_SIZE; 0: the default */
};

struct fk_stream {
	struct fk_card *card;
	struct fk_unit *unit;
	int fd;                         /* an eventfd: readable while pollin */
	struct gpd_oa_model *model;     /* NULL: a format it cannot write */
	uint64_t set_id;
	uint64_t poll_period_ns;
	unsigned wait_num_reports;
	uint64_t buffer_size;           /* the OA buffer's bytes */
	bool enabled;                   /* the kernel's stream->enabled */
	uint64_t last_ns;               /* monotonic time the model is at */
	uint64_t remainder_ns;
	/* xe: the status __xe_oa_read() captured at the last read, what
	 * DRM_XE_OBSERVATION_IOCTL_STATUS returns. */
	uint64_t xe_status;
	/* The per-context counters on in a context image while the stream
	 * lives (NULL: none), and whose. */
	const char *context_counters;
	char counted_context[32];
	bool no_sample;
	/* i915 CONFIG: the set the kernel context will program once it runs
	 * (0: none on its way). */
	uint64_t pending_set_id;
	/* The poll hrtimer (oa_poll_check_timer_cb(),
	 * xe_oa_poll_check_timer_cb()): a thread that every poll period
	 * brings the model up to date and sets pollin when reports wait. */
	pthread_t timer;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool timer_running, stopping;
	bool pollin;
};

struct fk_control {
	bool capable;
	bool busy;
	long eio_after;                 /* -1: none */
	bool gpu_reset;
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
	struct fk_file *file;           /* a card fd's DRM file */
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
	char log_path[PATH_MAX];        /* "" for no request log */
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
/* The unit that samples engine class/instance of the card; NULL if none
 * does. */
struct fk_unit *fk_unit_of_engine(struct fk_card *card, unsigned engine_class,
				  unsigned instance);
/* Whether GT gt (its index) of the card has the engine class/instance:
 * the engines of its OA units, and the primary GT's copy engine bcs0,
 * which every part has (xe_pci.c's engine masks) and no OA unit samples.
 * Engines of no OA unit but bcs0 are not modelled. */
bool fk_card_has_engine(const struct fk_card *card, unsigned gt,
			unsigned engine_class, unsigned instance);

/* units.c: the card's GTs, OA units and report formats, as the kernel
 * sets them up. */
void fk_units_init(struct fk_card *card);
/* A format the card's kernel takes, by i915 OA_FORMAT (enum
 * drm_i915_oa_format) or xe OA_FORMAT value: an index of the fake's table;
 * -1 if the kernel takes none such. */
int fk_format_by_i915(const struct fk_card *card, uint64_t value);
int fk_format_by_xe(const struct fk_card *card, uint64_t property);
/* Whether the format is of the unit's type (engine_supports_oa_format(),
 * oa_unit_supports_oa_format()). */
bool fk_format_fits_unit(int format, const struct fk_unit *unit);
const char *fk_format_name(int format);
/* The layout the OA model writes the format in; NULL where it cannot. */
const struct gpm_oa_format *fk_format_layout(int format);
/* The OA unit's clock in Hz, i915_perf_oa_timestamp_frequency() and
 * xe_oa_timestamp_frequency(). */
uint64_t fk_oa_frequency(const struct fk_card *card, const struct fk_gt *gt);

/* whitelist.c: whether ADD_CONFIG takes a register address. */
enum fk_register_list {
	FK_REGS_MUX,
	FK_REGS_BOOLEAN,
	FK_REGS_FLEX,
	FK_REGS_XE,                     /* xe's one list: any of the three */
};
bool fk_register_allowed(const struct fk_card *card, enum fk_register_list list,
			 uint32_t addr);

/* control.c */
const struct fk_control *fk_control(void);
bool fk_take_add_config_race(void);
/* The property the next stream open is refused for ("" for none). */
const char *fk_take_einval(char *buf, size_t size);
uint64_t fk_take_stall_ms(void);
/* Counts a read towards eio_after; true when the stream dies now. */
bool fk_take_eio(void);
bool fk_take_gpu_reset(void);
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

/* files.c: DRM files and their GEM contexts. fk_file_open(): fd, just
 * opened on card's node, becomes a new DRM file (NULL, fd untouched, when
 * that fails); fk_file_adopt(): the DRM file fd shares with a descriptor
 * of another process or an earlier one (dup, SCM_RIGHTS), NULL when fd is
 * none. */
struct fk_file *fk_file_open(struct fk_card *card, int fd);
struct fk_file *fk_file_adopt(int fd);
void fk_file_close(struct fk_file *file);
/* i915_gem_context_lookup(): the context of handle in file; NULL if the
 * file has none such. */
struct fk_context *fk_context_lookup(struct fk_file *file, uint32_t handle);
/* The workload context the card's next context or exec queue runs as:
 * hardware context IDs are the engine's (i915: __execlists_schedule_in()'s
 * context_tag, Linux 6.12; xe: alloc_guc_id() from the GuC's pool, Linux
 * 7.0), whichever process creates it. -ENOMEM without the card's shared
 * state. */
int fk_take_workload_context(const struct fk_card *card);
/* DRM_IOCTL_I915_GEM_CONTEXT_CREATE(_EXT), _DESTROY. */
int fk_context_create(struct fk_file *file, void *arg, bool ext);
int fk_context_destroy(struct fk_file *file, const void *arg);

/* exec_queues.c: xe's VMs and exec queues of a DRM file.
 * DRM_IOCTL_XE_VM_CREATE, _VM_DESTROY, _EXEC_QUEUE_CREATE, _DESTROY. */
int fk_xe_vm_create(struct fk_file *file, void *arg);
int fk_xe_vm_destroy(struct fk_file *file, const void *arg);
int fk_xe_exec_queue_create(struct fk_file *file, void *arg);
int fk_xe_exec_queue_destroy(struct fk_file *file, const void *arg);
/* xe_exec_queue_lookup(): the queue of id in file; NULL if none such. */
struct fk_exec_queue *fk_xe_exec_queue_lookup(struct fk_file *file, uint32_t id);

/* stream.c */
/* The hardware context ID the OA unit writes for the workload's context
 * index (taken modulo the workload's contexts). */
uint32_t fk_workload_context_id(const struct fk_card *card, unsigned index);
/* The control file's einval injection for a stream open of set_id: true
 * when the open is to fail with EINVAL. */
bool fk_inject_einval(struct fk_card *card, uint64_t set_id);
int fk_stream_open(struct fk_card *card, const struct fk_stream_params *p);
void fk_stream_close(struct fk_stream *stream);
/* ENABLE and DISABLE, no-ops on a stream already so
 * (i915_perf_enable_locked(), xe_oa_enable_locked()). */
void fk_stream_enable(struct fk_stream *stream);
void fk_stream_disable(struct fk_stream *stream);
ssize_t fk_stream_read(struct fk_stream *stream, void *buf, size_t len);
/* i915 CONFIG: the set takes effect when the kernel context runs. */
int fk_stream_set_config(struct fk_stream *stream, uint64_t set_id, uint64_t *prev);
uint64_t fk_stream_status(struct fk_stream *stream);
/* The size of the stream's OA buffer (xe's DRM_XE_OBSERVATION_IOCTL_INFO). */
uint64_t fk_stream_buffer_size(const struct fk_stream *stream);

/* card_i915.c, card_xe.c: card ioctls return the ioctl's value or
 * -errno; stream ioctls return false for a request that is not theirs
 * (FIONBIO and the like go to the real ioctl), else set *ret so. */
int fk_i915_card_ioctl(struct fk_card *card, struct fk_file *file,
		       unsigned long request, void *arg);
bool fk_i915_stream_ioctl(struct fk_stream *stream, unsigned long request,
			  unsigned long arg, int *ret);
int fk_xe_card_ioctl(struct fk_card *card, struct fk_file *file,
		     unsigned long request, void *arg);
bool fk_xe_stream_ioctl(struct fk_stream *stream, unsigned long request,
			unsigned long arg, int *ret);
/* drm_version.c: DRM_IOCTL_VERSION, common to both. */
int fk_drm_version(const struct fk_card *card, void *arg);

/* intercept.c: fds the fake knows, and read() past the interception. */
struct fk_fd *fk_fd(int fd);
ssize_t fk_real_read(int fd, void *buf, size_t len);

#endif
