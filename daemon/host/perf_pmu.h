/*
 * Kernel PMUs through perf_event_open(2): finding a PMU and its events in
 * sysfs, opening a group of its counters system-wide, and reading them
 * all at once. The i915 and xe PMUs and RAPL's energy counters are read
 * this way.
 *
 * sysfs (Documentation/ABI/testing/sysfs-bus-event_source-devices-*):
 *   /sys/bus/event_source/devices/PMU/type        the perf_event_attr.type
 *   /sys/bus/event_source/devices/PMU/cpumask     the CPU to open events on
 *   /sys/bus/event_source/devices/PMU/format/F    "config:LO-HI" (or one bit)
 *   /sys/bus/event_source/devices/PMU/events/E    "config=0x10" or
 *                                                 "event=0x02,gt=1"
 *   /sys/bus/event_source/devices/PMU/events/E.unit, E.scale
 *
 * The parsing and the read formats are pure functions, tested on their
 * own; the rest wraps the system calls.
 */
#ifndef GPD_HOST_PERF_PMU_H
#define GPD_HOST_PERF_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GPD_PERF_MAX_FORMATS 8
#define GPD_PERF_MAX_GROUP 64

/* A format field: which bits of config it occupies. */
struct gpd_perf_format {
	char name[32];
	unsigned lo, hi;                /* bit range, inclusive */
};

struct gpd_perf_pmu {
	char name[64];                  /* "i915", "xe_0000_00_02.0" */
	char dir[512];                  /* its sysfs directory */
	uint32_t type;
	int cpu;                        /* where its events are opened */
	unsigned n_formats;
	struct gpd_perf_format formats[GPD_PERF_MAX_FORMATS];
};

/* "config:12-19" (or "config:7") into f; -EINVAL for anything else (the
 * config1 and config2 fields are not used by these PMUs). */
int gpd_perf_parse_format(const char *name, const char *text,
			  struct gpd_perf_format *f);

/* An event's sysfs text ("config=0x100000", "event=0x02,gt=1") with the
 * fields set in extra ("engine_class=1,engine_instance=0"; NULL for
 * none) into a config, by the PMU's formats. -EINVAL for a term that no
 * format names or a value too wide for its bits. */
int gpd_perf_event_config(const struct gpd_perf_pmu *pmu, const char *text,
			  const char *extra, uint64_t *config);

/* Opens the PMU named name under sysfs_root: its type, cpumask and
 * formats. -ENOENT when the kernel has no such PMU. */
int gpd_perf_pmu_open(const char *sysfs_root, const char *name,
		      struct gpd_perf_pmu *pmu);

/* The text of event name (its events/ file), and its .unit and .scale
 * where they exist (unit "" and scale 1 otherwise). -ENOENT. */
int gpd_perf_pmu_event(const struct gpd_perf_pmu *pmu, const char *name,
		       char *text, size_t text_size, char *unit,
		       size_t unit_size, double *scale);

/* The read formats this code asks for. */
#define GPD_PERF_READ_FORMAT (GPD_PERF_FORMAT_TOTAL_TIME_ENABLED |          \
			      GPD_PERF_FORMAT_TOTAL_TIME_RUNNING |          \
			      GPD_PERF_FORMAT_ID | GPD_PERF_FORMAT_GROUP)
/* linux/perf_event.h's enum perf_event_read_format. */
enum {
	GPD_PERF_FORMAT_TOTAL_TIME_ENABLED = 1 << 0,
	GPD_PERF_FORMAT_TOTAL_TIME_RUNNING = 1 << 1,
	GPD_PERF_FORMAT_ID = 1 << 2,
	GPD_PERF_FORMAT_GROUP = 1 << 3,
	GPD_PERF_FORMAT_LOST = 1 << 4,
};

/* What read(2) of an event returned, whichever format it has. */
struct gpd_perf_values {
	uint64_t time_enabled, time_running;    /* ns; 0 if not asked */
	unsigned n;
	uint64_t value[GPD_PERF_MAX_GROUP];
	uint64_t id[GPD_PERF_MAX_GROUP];        /* 0 if not asked */
};

/*
 * Parses what read(2) returned for an event opened with read_format, as
 * perf_read_group() and perf_read_one() (kernel/events/core.c) lay it
 * out: with PERF_FORMAT_GROUP, nr, the times, then {value, id, lost} per
 * member; without, value, the times, id, lost. -EPROTO when len is not
 * what the format and count make, -E2BIG past GPD_PERF_MAX_GROUP.
 */
int gpd_perf_parse_read(const void *buf, size_t len, uint64_t read_format,
			struct gpd_perf_values *out);

/* A group of one PMU's events, read in one system call. */
struct gpd_perf_group {
	int leader;                     /* -1 while closed */
	unsigned n;
	int fds[GPD_PERF_MAX_GROUP];
	uint64_t ids[GPD_PERF_MAX_GROUP];
};

void gpd_perf_group_init(struct gpd_perf_group *g);

/* Adds an event (the first one leads). Its index in reads is the
 * returned value; a negative errno from perf_event_open otherwise. */
int gpd_perf_group_add(struct gpd_perf_group *g, const struct gpd_perf_pmu *pmu,
		       uint64_t config);

/* Reads every member: values in the order added. -errno. */
int gpd_perf_group_read(struct gpd_perf_group *g, struct gpd_perf_values *out);

void gpd_perf_group_close(struct gpd_perf_group *g);

#endif
