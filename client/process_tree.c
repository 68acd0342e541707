/*
 * A command's process tree in usage frames (see process_tree.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/process_tree.h"

/* Deeper chains than this are not followed (a loop, or a very deep tree). */
#define MAX_DEPTH 64

void gpuperf_process_tree_init(struct gpuperf_process_tree *t, int32_t root,
			       const char *proc_root)
{
	memset(t, 0, sizeof(*t));
	t->root = root;
	t->proc_root = proc_root;
}

void gpuperf_process_tree_fini(struct gpuperf_process_tree *t)
{
	free(t->known);
	memset(t, 0, sizeof(*t));
}

static struct gpuperf_tree_process *find(struct gpuperf_process_tree *t,
					 int32_t pid)
{
	for (size_t i = 0; i < t->n_known; i++)
		if (t->known[i].pid == pid)
			return &t->known[i];
	return NULL;
}

static struct gpuperf_tree_process *add(struct gpuperf_process_tree *t,
					int32_t pid, bool member)
{
	if (t->n_known == t->cap_known) {
		size_t cap = t->cap_known ? 2 * t->cap_known : 16;
		struct gpuperf_tree_process *k = realloc(t->known, cap * sizeof(*k));
		if (!k)
			return NULL;
		t->known = k;
		t->cap_known = cap;
	}
	struct gpuperf_tree_process *p = &t->known[t->n_known++];
	*p = (struct gpuperf_tree_process){ .pid = pid, .member = member };
	return p;
}

/* The parent of pid: from the frame's rows, else /proc/PID/stat; 0 when
 * unknown. */
static int32_t parent_of(const struct gpuperf_process_tree *t,
			 const struct gpc_usage_frame *f, int32_t pid)
{
	for (size_t i = 0; i < f->n_processes; i++)
		if ((int32_t)f->processes[i].pid == pid)
			return (int32_t)f->processes[i].ppid;
	char path[256], line[512];
	snprintf(path, sizeof(path), "%s/%d/stat", t->proc_root, pid);
	FILE *file = fopen(path, "r");
	if (!file)
		return 0;
	size_t n = fread(line, 1, sizeof(line) - 1, file);
	fclose(file);
	line[n] = '\0';
	/* "PID (COMMAND) STATE PPID ...": the command may hold spaces and
	 * parentheses, so the last ')' ends it. */
	const char *end = strrchr(line, ')');
	int ppid = 0;
	char state;
	if (!end || sscanf(end + 1, " %c %d", &state, &ppid) != 2)
		return 0;
	return ppid;
}

static bool descends(struct gpuperf_process_tree *t,
		     const struct gpc_usage_frame *f, int32_t pid)
{
	for (int depth = 0; depth < MAX_DEPTH && pid > 1; depth++) {
		if (pid == t->root)
			return true;
		const struct gpuperf_tree_process *k = find(t, pid);
		if (k)
			return k->member;
		pid = parent_of(t, f, pid);
	}
	return false;
}

int gpuperf_process_tree_frame(struct gpuperf_process_tree *t,
			       const struct gpc_usage_frame *f)
{
	if (!f->processes_included)
		return 0;
	uint64_t memory = 0;
	for (size_t i = 0; i < f->n_processes; i++) {
		const struct gpc_process_usage *p = &f->processes[i];
		if (!p->pid) {
			t->saw_hidden = true;
			continue;
		}
		struct gpuperf_tree_process *k = find(t, (int32_t)p->pid);
		if (!k && !(k = add(t, (int32_t)p->pid,
				    descends(t, f, (int32_t)p->pid))))
			return -ENOMEM;
		if (!k->member)
			continue;
		if (p->gpu_time_total_ns > k->gpu_time_ns)
			k->gpu_time_ns = p->gpu_time_total_ns;
		memory += p->memory_bytes;
	}
	if (memory > t->memory_peak_bytes)
		t->memory_peak_bytes = memory;
	return 0;
}

uint64_t gpuperf_process_tree_gpu_time_ns(const struct gpuperf_process_tree *t)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < t->n_known; i++)
		if (t->known[i].member)
			sum += t->known[i].gpu_time_ns;
	return sum;
}
