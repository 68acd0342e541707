/*
 * Kernel time that processes measured inside themselves and reported
 * (libgpuperf-cuda-activity.so, proto ProcessActivity): per process and
 * GPU, the busy and span ns summed over its reports.
 *
 * The network layer adds reports under the pid of the connection they
 * came on (SO_PEERCRED), and holds a process's entries only while one of
 * its connections is open: when the last one closes the process has
 * exited or stopped reporting, and its pid may be another process's
 * next. The NVIDIA usage source reads the sums and differences them
 * between its readings. Everything runs on the daemon's loop.
 */
#ifndef GPD_PROCESS_ACTIVITY_H
#define GPD_PROCESS_ACTIVITY_H

#include <stdbool.h>
#include <stdint.h>

/* Processes with an open reporting connection, and GPUs per report: the
 * store's budget, whoever asks. */
#define GPD_PROCESS_ACTIVITY_MAX_PROCESSES 1024
#define GPD_PROCESS_ACTIVITY_MAX_GPUS 16
/* The longest span one report may cover. */
#define GPD_PROCESS_ACTIVITY_MAX_SPAN_NS (60ull * 1000000000)

/* A PCI address, parsed from "DDDD:BB:DD.F" (CUDA) or "DDDDDDDD:BB:DD.F"
 * (NVML), hex in either case, so both spellings compare equal. */
struct gpd_pci_address {
	uint32_t domain;
	uint8_t bus, device, function;
};

/* 0, or -EINVAL when text is not one whole PCI address. */
int gpd_pci_address_parse(const char *text, struct gpd_pci_address *out);

struct gpd_process_activity;

/* One GPU of a report, its bus id parsed. */
struct gpd_gpu_activity {
	struct gpd_pci_address gpu;
	uint64_t busy_ns, span_ns;
};

int gpd_process_activity_create(struct gpd_process_activity **out);
void gpd_process_activity_destroy(struct gpd_process_activity *a);

/* A connection of pid opened: 0, or -ENOSPC when the budget of
 * processes is spent (the connection is then to be refused). */
int gpd_process_activity_connect(struct gpd_process_activity *a, int32_t pid);

/* One of pid's connections closed; its last one takes its entries. */
void gpd_process_activity_disconnect(struct gpd_process_activity *a,
				     int32_t pid);

/* Checks a report of pid's GPUs whole (each span in (0, MAX_SPAN],
 * busy <= span, at most MAX_GPUS, no GPU twice), then adds it: 0, or
 * -EINVAL with *why saying what was wrong and nothing changed; -ENOENT
 * when pid has no open connection; -ENOMEM. */
int gpd_process_activity_add(struct gpd_process_activity *a, int32_t pid,
			     const struct gpd_gpu_activity *gpus, size_t n,
			     const char **why);

/* Kernel records pid's own measure lost (CUPTI dropped them: its
 * buffers were full), as its accepted reports said: added only for pid
 * with an open connection, the sum saturating. */
void gpd_process_activity_add_lost(struct gpd_process_activity *a,
				   int32_t pid, uint64_t records);

/* Records pid lost since its first connection: 0 when none, or when it
 * has no open connection. */
uint64_t gpd_process_activity_records_lost(const struct gpd_process_activity *a,
					   int32_t pid);

/* pid's sums on gpu since its first connection: false when it has
 * reported nothing there (or has no open connection). */
bool gpd_process_activity_get(const struct gpd_process_activity *a,
			      int32_t pid, const struct gpd_pci_address *gpu,
			      uint64_t *busy_ns, uint64_t *span_ns);

#endif
