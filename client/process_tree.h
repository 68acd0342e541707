/*
 * A command's process tree as gpuperf run follows it in usage frames: which
 * of the processes using the GPU descend from the command, their engine
 * time and their memory.
 *
 * A process belongs when its parent chain reaches the command. Chains are
 * followed through the frame's own rows first (the daemon's ppid), then
 * through /proc of this machine for parents that do not use the GPU (a
 * shell between the command and its workers). Once placed, a pid stays
 * placed: a process whose parent exits is reparented, but it still
 * descends from the command.
 */
#ifndef GPUPERF_PROCESS_TREE_H
#define GPUPERF_PROCESS_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client/include/gpuperf.h"

struct gpuperf_tree_process {
	int32_t pid;
	bool member;
	uint64_t gpu_time_ns;           /* the newest total seen */
};

struct gpuperf_process_tree {
	int32_t root;
	const char *proc_root;          /* "/proc" */
	struct gpuperf_tree_process *known;
	size_t n_known, cap_known;
	uint64_t memory_peak_bytes;     /* of the members' sum, per frame */
	bool saw_hidden;                /* rows without pids: not followed */
};

void gpuperf_process_tree_init(struct gpuperf_process_tree *t, int32_t root,
			       const char *proc_root);
void gpuperf_process_tree_fini(struct gpuperf_process_tree *t);

/* Takes a frame's process rows into account. -ENOMEM. */
int gpuperf_process_tree_frame(struct gpuperf_process_tree *t,
			       const struct gpc_usage_frame *f);

/* The members' engine time so far. */
uint64_t gpuperf_process_tree_gpu_time_ns(const struct gpuperf_process_tree *t);

#endif
