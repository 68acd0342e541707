/*
 * Usage: how busy a device's engines are, how it is clocked and powered,
 * and which processes use it; the everyday view beside the OA counters.
 * It needs no OA unit, so it works while another program owns that.
 *
 * A usage source (usage_source.h) takes readings: cumulative counters as
 * the kernel or the driver keeps them (engine busy time against a time
 * base, frequency integrals, RC6 residency, energy, the engine time and
 * memory of every DRM client). A frame is the difference of two readings
 * (gpd_usage_diff): shares of the interval, mean frequencies, power. Each
 * subscriber keeps its own previous reading, so subscribers of different
 * intervals share one source and never disturb each other.
 *
 * Engine classes are names, not an enum: Intel's are those of i915's
 * fdinfo keys (render, copy, video, video-enhance, compute); other
 * vendors bring theirs (NVIDIA: compute, encoder, decoder, memory).
 * A process's share of a class is of the class's whole capacity: 100%
 * of "video" on a GPU with two video engines is both engines busy.
 */
#ifndef GPD_USAGE_H
#define GPD_USAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/host/cgroup_pod.h"

#define GPD_USAGE_MAX_ENGINES 32
#define GPD_USAGE_MAX_CLASSES 10
#define GPD_USAGE_MAX_GAUGES 8
#define GPD_USAGE_NAME_MAX 24
/* The kernel's TASK_COMM_LEN: what /proc/PID/stat shows of a command. */
#define GPD_USAGE_COMMAND_MAX 16
/* Client ids listed per process; a process with more counts them all. */
#define GPD_USAGE_MAX_CLIENT_IDS 8
/* Processes and clients per reading: a budget, whatever /proc holds. */
#define GPD_USAGE_MAX_CLIENTS 4096
/* Notes say what could not be read, and what to do about it. */
#define GPD_USAGE_NOTE_MAX 320

/* Intel's engine classes, as i915's fdinfo and the UI name them. */
#define GPD_USAGE_CLASS_RENDER "render"
#define GPD_USAGE_CLASS_COPY "copy"
#define GPD_USAGE_CLASS_VIDEO "video"
#define GPD_USAGE_CLASS_VIDEO_ENHANCE "video-enhance"
#define GPD_USAGE_CLASS_COMPUTE "compute"

struct gpd_usage_engine_info {
	char name[GPD_USAGE_NAME_MAX];          /* "rcs0", as the kernel names it */
	unsigned class_index;                   /* into the layout's classes */
	bool has_wait, has_sema;
};

/* A gauge beyond the common ones (PCIe throughput, ...): read as is. */
struct gpd_usage_gauge_info {
	char name[GPD_USAGE_NAME_MAX];          /* "pcie_tx" */
	char unit[GPD_USAGE_NAME_MAX];          /* "bytes_per_second" */
};

/* What a device's usage source measures; fixed once it is made. */
struct gpd_usage_layout {
	unsigned n_engines;
	struct gpd_usage_engine_info engines[GPD_USAGE_MAX_ENGINES];
	unsigned n_classes;
	char classes[GPD_USAGE_MAX_CLASSES][GPD_USAGE_NAME_MAX];
	unsigned n_gauges;
	struct gpd_usage_gauge_info gauges[GPD_USAGE_MAX_GAUGES];
	/* What the values come from, for a person: "i915 PMU, hwmon, DRM
	 * fdinfo". */
	char description[128];
};

/* The class index of name, adding it; -ENOSPC when the layout is full. */
int gpd_usage_layout_class(struct gpd_usage_layout *layout, const char *name);

/* Adds an engine of class class_name; -ENOSPC when the layout is full. */
int gpd_usage_layout_add_engine(struct gpd_usage_layout *layout,
				const char *name, const char *class_name,
				bool has_wait, bool has_sema);

/* ------------------------------------------------------------------ */
/* Readings: cumulative counters                                        */

/* busy, wait and sema count in the unit of total, the time base they are
 * shares of: ns of a PMU event's enabled time, or ticks of xe's GT clock. */
struct gpd_usage_engine_count {
	uint64_t busy, wait, sema, total;
};

/* What a reading has (gpd_usage_reading.have). */
enum {
	GPD_USAGE_HAVE_ENGINES = 1 << 0,
	GPD_USAGE_HAVE_ACTUAL_FREQ = 1 << 1,
	GPD_USAGE_HAVE_REQUESTED_FREQ = 1 << 2,
	GPD_USAGE_HAVE_RC6 = 1 << 3,
	GPD_USAGE_HAVE_ENERGY = 1 << 4,
	GPD_USAGE_HAVE_TEMPERATURE = 1 << 5,
	GPD_USAGE_HAVE_FREQ_RANGE = 1 << 6,
	GPD_USAGE_HAVE_GAUGES = 1 << 7,
	GPD_USAGE_HAVE_COUNTER_TIME = 1 << 8,
};

/* A DRM client (one struct drm_file, however many fds share it), or for
 * a driver without them a process's use of the GPU. */
struct gpd_usage_client {
	uint64_t id;                            /* drm-client-id */
	int32_t pid;                            /* counted under this process */
	/* Per class: busy in the unit of total; total 0 means ns, against
	 * the reading's clock (drm-engine-*), else the client's own time
	 * base (drm-total-cycles-*). capacity: engines of the class. */
	uint64_t busy[GPD_USAGE_MAX_CLASSES];
	uint64_t total[GPD_USAGE_MAX_CLASSES];
	uint16_t capacity[GPD_USAGE_MAX_CLASSES];
	uint64_t memory_bytes;                  /* drm-total-* summed */
	uint64_t resident_bytes;                /* drm-resident-* summed */
};

/* Where a process's engine time came from. */
enum gpd_usage_share_source {
	/* The kernel's per-client counters (DRM fdinfo). */
	GPD_USAGE_SHARE_KERNEL_COUNTERS = 0,
	/* The driver's per-process samples (NVML). */
	GPD_USAGE_SHARE_DRIVER_SAMPLED,
	/* The process's own kernel time (process_activity.h). */
	GPD_USAGE_SHARE_MEASURED_IN_PROCESS,
	GPD_USAGE_SHARE_SIMULATED,
};

/* "kernel_counters", "driver_sampled", "measured_in_process",
 * "simulated": the one spelling of every sink. */
const char *gpd_usage_share_source_name(enum gpd_usage_share_source s);

struct gpd_usage_process {
	int32_t pid, ppid;
	char command[GPD_USAGE_COMMAND_MAX];
	struct gpd_pod pod;                     /* "" outside Kubernetes */
	enum gpd_usage_share_source share_source;
	/* Kernel records the process's own measure lost, since its first
	 * report (MEASURED_IN_PROCESS only). */
	uint64_t records_lost;
};

struct gpd_usage_reading {
	uint64_t time_ns;                       /* CLOCK_MONOTONIC of the read */
	/* The counters' own time base (a perf group's enabled ns), taken in
	 * the same read as they were: frequencies and RC6 are measured
	 * against it, so a read delayed after time_ns skews nothing. */
	uint64_t counter_time_ns;               /* GPD_USAGE_HAVE_COUNTER_TIME */
	/* Counters restart when a source reopens: readings of different
	 * generations have no difference. */
	uint64_t generation;
	unsigned have;                          /* GPD_USAGE_HAVE_* */
	struct gpd_usage_engine_count engines[GPD_USAGE_MAX_ENGINES];
	/* Frequencies integrated over time, in MHz x s. */
	double actual_freq_mhz_s, requested_freq_mhz_s;
	uint64_t rc6_ns;
	double energy_j;
	double temperature_c;                   /* now */
	double min_freq_hz, max_freq_hz;        /* now */
	double gauges[GPD_USAGE_MAX_GAUGES];    /* now */
	/* Per class, the newest time base a client of the class showed, for
	 * clients first seen in this reading (see gpd_usage_diff). */
	uint64_t class_total[GPD_USAGE_MAX_CLASSES];

	/* Processes were looked for (a subscriber asked for them). */
	bool processes_read;
	/* Processes whose files could not be looked at (another user's,
	 * without CAP_SYS_PTRACE): the list then is partial. */
	unsigned processes_unreadable;
	/* Clients sorted by id; processes sorted by pid, each one with a
	 * client on this device. */
	struct gpd_usage_client *clients;
	size_t n_clients, cap_clients;
	struct gpd_usage_process *processes;
	size_t n_processes, cap_processes;
	/* Set when some part could not be read, with the reason. */
	char note[GPD_USAGE_NOTE_MAX];
	char processes_note[GPD_USAGE_NOTE_MAX];
};

void gpd_usage_reading_init(struct gpd_usage_reading *r);
void gpd_usage_reading_fini(struct gpd_usage_reading *r);
/* Empties r for a new read, keeping its buffers. */
void gpd_usage_reading_clear(struct gpd_usage_reading *r);
/* dst becomes a copy of src (dst's buffers are reused). -ENOMEM. */
int gpd_usage_reading_copy(struct gpd_usage_reading *dst,
			   const struct gpd_usage_reading *src);
/* A new client or process at the end; NULL when out of memory or over
 * GPD_USAGE_MAX_CLIENTS (the caller says so in a note). */
struct gpd_usage_client *gpd_usage_reading_add_client(struct gpd_usage_reading *r);
struct gpd_usage_process *gpd_usage_reading_add_process(struct gpd_usage_reading *r);
/* Sorts clients by id and processes by pid, as gpd_usage_diff wants them. */
void gpd_usage_reading_sort(struct gpd_usage_reading *r);
/* Appends text to a note, "; "-separated. */
void gpd_usage_note(char *note, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ------------------------------------------------------------------ */
/* Frames: the difference of two readings                               */

/* Shares of the interval in [0, 1]; NaN where not measured. */
struct gpd_usage_engine_share {
	double busy, wait, sema;
};

struct gpd_usage_process_row {
	int32_t pid, ppid;
	char command[GPD_USAGE_COMMAND_MAX];
	struct gpd_pod pod;
	enum gpd_usage_share_source share_source;
	uint64_t records_lost;                  /* as in the reading */
	unsigned n_client_ids;                  /* all of them */
	uint64_t client_ids[GPD_USAGE_MAX_CLIENT_IDS];  /* the first ones */
	double class_busy[GPD_USAGE_MAX_CLASSES];       /* share of the class */
	uint64_t gpu_time_ns;                   /* engine time in the interval */
	/* Engine time since the process was first seen (the monitor fills
	 * it in from its totals). */
	uint64_t gpu_time_total_ns;
	uint64_t memory_bytes, resident_bytes;
};

struct gpd_usage_frame {
	uint64_t start_ns, end_ns;              /* CLOCK_MONOTONIC */
	struct gpd_usage_engine_share engines[GPD_USAGE_MAX_ENGINES];
	/* NaN where unknown. */
	double actual_freq_hz, requested_freq_hz;
	double min_freq_hz, max_freq_hz;
	double rc6;                             /* share of the interval */
	double power_w;                         /* mean over the interval */
	double energy_j;                        /* used in the interval */
	double temperature_c;
	double gauges[GPD_USAGE_MAX_GAUGES];
	bool processes_read;
	unsigned processes_unreadable;
	/* Sorted by pid. */
	struct gpd_usage_process_row *processes;
	size_t n_processes, cap_processes;
	char note[GPD_USAGE_NOTE_MAX];
	char processes_note[GPD_USAGE_NOTE_MAX];
};

void gpd_usage_frame_init(struct gpd_usage_frame *f);
void gpd_usage_frame_fini(struct gpd_usage_frame *f);

/*
 * The frame of the interval from prev to cur, readings of one layout,
 * prev taken first. Counters that went backwards (fdinfo allows it for a
 * while) count as not having moved. A client in cur but not in prev is
 * new: its counters count from zero, against the time base its class had
 * in prev (or, counted in ns, the interval itself). Readings of different
 * generations give a frame of NaNs that says the counters restarted.
 * -ENOMEM.
 */
int gpd_usage_diff(const struct gpd_usage_layout *layout,
		   const struct gpd_usage_reading *prev,
		   const struct gpd_usage_reading *cur,
		   struct gpd_usage_frame *out);

/* ------------------------------------------------------------------ */
/* Totals: frames summed since a device's usage was first read          */

struct gpd_usage_process_total {
	int32_t pid;
	char command[GPD_USAGE_COMMAND_MAX];
	struct gpd_pod pod;
	double class_busy_s[GPD_USAGE_MAX_CLASSES];     /* engine time */
	uint64_t gpu_time_ns;
};

/* What Prometheus counters need: every interval summed once, whoever
 * asked for it. Shares become seconds; NaN parts add nothing. */
struct gpd_usage_totals {
	unsigned have;                          /* GPD_USAGE_HAVE_* seen */
	double engine_busy_s[GPD_USAGE_MAX_ENGINES];
	double engine_wait_s[GPD_USAGE_MAX_ENGINES];
	double engine_sema_s[GPD_USAGE_MAX_ENGINES];
	double rc6_s;
	double energy_j;
	/* Processes seen in the last frame that had them, by pid. */
	struct gpd_usage_process_total *processes;
	size_t n_processes, cap_processes;
};

void gpd_usage_totals_init(struct gpd_usage_totals *t);
void gpd_usage_totals_fini(struct gpd_usage_totals *t);
/* Adds the frame's interval; a frame with processes replaces the list by
 * its processes, carrying on the totals of those seen before. -ENOMEM. */
int gpd_usage_totals_add(struct gpd_usage_totals *t,
			 const struct gpd_usage_layout *layout,
			 const struct gpd_usage_frame *f);
/* The total of pid; NULL if none. */
const struct gpd_usage_process_total *
gpd_usage_totals_process(const struct gpd_usage_totals *t, int32_t pid);

/* The process row of pid in f; NULL if none. */
const struct gpd_usage_process_row *
gpd_usage_frame_process(const struct gpd_usage_frame *f, int32_t pid);

#endif
