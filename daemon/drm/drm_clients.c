/*
 * A card's DRM clients and their processes from fdinfo (see
 * drm_clients.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/clock.h"
#include "daemon/drm/drm_clients.h"
#include "daemon/host/cgroup_pod.h"
#include "daemon/host/proc_scan.h"

/* A client's largest counts so far: fdinfo may read lower for a while. */
struct gpd_drm_client_max {
	uint64_t id;
	uint64_t busy[GPD_USAGE_MAX_CLASSES];
	uint64_t total[GPD_USAGE_MAX_CLASSES];
};

/*
 * One walk of /proc serves every card of a driver read at about the same
 * time: the usage monitors of two GPUs of one driver keep their timers on
 * the same grid (usage_monitor.c), so both read in one tick and the
 * second takes the first's walk rather than making its own. A walk
 * serves one reading of each card that starts while it runs or within
 * SHARED_WALK_NS of its end (its end: the time of the reading it was made
 * for plus how long it took); a card's next reading walks again, however
 * soon. The daemon reads its sources on one thread.
 */
#define SHARED_WALK_NS 5000000ull
#define SHARED_WALK_CARDS 8

struct walk_file {
	int32_t pid;
	struct gpd_fdinfo info;
};

struct shared_walk {
	char proc_root[PATH_MAX];
	char driver[32];
	uint64_t start_ns, end_ns;      /* on the readings' clock; 0: none */
	int error;                      /* the walk's -errno */
	struct gpd_proc_scan_stats stats;
	struct walk_file *files;
	size_t n_files, cap_files;
	bool full;                      /* files beyond the budget left out */
	char served[SHARED_WALK_CARDS][32];     /* the cards it was read for */
	unsigned n_served;
};

/* One per driver (i915, xe, amdgpu) and a spare, kept between readings:
 * at most GPD_USAGE_MAX_CLIENTS files each, as a reading's budget. */
static struct shared_walk shared_walks[4];

static void keep_file(void *user, int32_t pid, const struct gpd_fdinfo *info)
{
	struct shared_walk *w = user;
	if (w->n_files == w->cap_files) {
		size_t cap = w->cap_files ? 2 * w->cap_files : 16;
		struct walk_file *f = cap <= GPD_USAGE_MAX_CLIENTS ?
				      realloc(w->files, cap * sizeof(*f)) : NULL;
		if (!f) {
			w->full = true;
			return;
		}
		w->files = f;
		w->cap_files = cap;
	}
	w->files[w->n_files++] = (struct walk_file){ pid, *info };
}

static bool served(const struct shared_walk *w, const char *pdev)
{
	for (unsigned i = 0; i < w->n_served; i++)
		if (!strcmp(w->served[i], pdev))
			return true;
	return false;
}

/* driver's DRM files under proc_root, of every card, for a reading of
 * pdev's at time_ns: from a walk made a moment before for another card,
 * else from a new one. */
static const struct shared_walk *walk_for(const char *proc_root,
					  const char *driver, const char *pdev,
					  uint64_t time_ns)
{
	struct shared_walk *w = NULL;
	for (size_t i = 0; i < sizeof(shared_walks) / sizeof(*w) && !w; i++)
		if (!strcmp(shared_walks[i].driver, driver) ||
		    !*shared_walks[i].driver)
			w = &shared_walks[i];
	if (!w)
		w = &shared_walks[0];
	if (time_ns && w->end_ns && time_ns >= w->start_ns &&
	    time_ns < w->end_ns + SHARED_WALK_NS &&
	    !strcmp(w->driver, driver) && !strcmp(w->proc_root, proc_root) &&
	    !served(w, pdev) && w->n_served < SHARED_WALK_CARDS) {
		snprintf(w->served[w->n_served++], sizeof(w->served[0]), "%s",
			 pdev);
		return w;
	}
	snprintf(w->proc_root, sizeof(w->proc_root), "%s", proc_root);
	snprintf(w->driver, sizeof(w->driver), "%s", driver);
	w->n_files = 0;
	w->full = false;
	snprintf(w->served[0], sizeof(w->served[0]), "%s", pdev);
	w->n_served = 1;
	uint64_t began = gpd_monotonic_ns();
	w->error = gpd_proc_scan_drm(proc_root, driver, "", keep_file, w,
				     &w->stats);
	/* A reading without a time shares nothing. */
	w->start_ns = time_ns;
	w->end_ns = time_ns ? time_ns + (gpd_monotonic_ns() - began) : 0;
	return w;
}

struct scan {
	const struct gpd_usage_layout *layout;
	gpd_drm_fdinfo_class_fn fdinfo_class;
	struct gpd_usage_reading *r;
	bool full;                      /* the reading's budget ran out */
};

static void on_drm_file(void *user, int32_t pid, const struct gpd_fdinfo *info)
{
	struct scan *s = user;
	if (!info->has_client_id)
		return;
	struct gpd_usage_client *c = gpd_usage_reading_add_client(s->r);
	if (!c) {
		s->full = true;
		return;
	}
	c->id = info->client_id;
	c->pid = pid;
	c->memory_bytes = info->memory_total;
	c->resident_bytes = info->memory_resident;
	const struct gpd_usage_layout *layout = s->layout;
	for (unsigned i = 0; i < info->n_engines; i++) {
		const struct gpd_fdinfo_engine *e = &info->engines[i];
		const char *class_name = s->fdinfo_class(e->key);
		int k = -1;
		for (unsigned j = 0; class_name && j < layout->n_classes; j++)
			if (!strcmp(layout->classes[j], class_name))
				k = (int)j;
		if (k < 0)
			continue;
		if (e->has_ns) {
			c->busy[k] = e->ns;
		} else if (e->has_cycles && e->has_total) {
			c->busy[k] = e->cycles;
			c->total[k] = e->total_cycles;
		}
		c->capacity[k] = (uint16_t)(e->capacity < UINT16_MAX ?
					    e->capacity : UINT16_MAX);
	}
}

static int compare_client_pid(const void *a, const void *b)
{
	const struct gpd_usage_client *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int compare_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return x < y ? -1 : x > y;
}

static const struct gpd_drm_client_max *
find_max(const struct gpd_drm_clients *clients, uint64_t id)
{
	size_t lo = 0, hi = clients->n_maxes;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (clients->maxes[mid].id < id)
			lo = mid + 1;
		else if (clients->maxes[mid].id > id)
			hi = mid;
		else
			return &clients->maxes[mid];
	}
	return NULL;
}

/* Counts never go back past what was seen (drm-usage-stats: "stay with
 * that larger previous value until a monotonic update is seen"). */
static void hold_maxima(struct gpd_drm_clients *clients, unsigned n_classes,
			struct gpd_usage_reading *r)
{
	struct gpd_drm_client_max *next = r->n_clients ?
					  malloc(r->n_clients * sizeof(*next)) : NULL;
	for (size_t i = 0; i < r->n_clients; i++) {
		struct gpd_usage_client *c = &r->clients[i];
		const struct gpd_drm_client_max *m = find_max(clients, c->id);
		for (unsigned k = 0; m && k < n_classes; k++) {
			if (m->busy[k] > c->busy[k])
				c->busy[k] = m->busy[k];
			if (m->total[k] > c->total[k])
				c->total[k] = m->total[k];
		}
		for (unsigned k = 0; k < n_classes; k++)
			if (c->total[k] > r->class_total[k])
				r->class_total[k] = c->total[k];
		if (next) {
			next[i].id = c->id;
			memcpy(next[i].busy, c->busy, sizeof(next[i].busy));
			memcpy(next[i].total, c->total, sizeof(next[i].total));
		}
	}
	free(clients->maxes);
	clients->maxes = next;
	clients->n_maxes = next ? r->n_clients : 0;
}

int gpd_drm_clients_read(struct gpd_drm_clients *clients,
			 const char *proc_root, const char *driver,
			 const char *pdev, const struct gpd_usage_layout *layout,
			 gpd_drm_fdinfo_class_fn fdinfo_class,
			 struct gpd_usage_reading *r)
{
	struct scan s = { .layout = layout, .fdinfo_class = fdinfo_class,
			  .r = r };
	r->processes_read = true;
	const struct shared_walk *w = walk_for(proc_root, driver, pdev, r->time_ns);
	if (w->error) {
		gpd_usage_note(r->processes_note, "%s cannot be read (%s): no "
			       "processes", proc_root, strerror(-w->error));
		return 0;
	}
	/* A file that names no device is counted for every card. */
	for (size_t i = 0; i < w->n_files; i++)
		if (!*pdev || !*w->files[i].info.pdev ||
		    !strcmp(w->files[i].info.pdev, pdev))
			on_drm_file(&s, w->files[i].pid, &w->files[i].info);
	const struct gpd_proc_scan_stats stats = w->stats;
	if (s.full || w->full)
		gpd_usage_note(r->processes_note, "more than %u DRM clients: "
			       "the rest are left out", GPD_USAGE_MAX_CLIENTS);
	r->processes_unreadable = stats.unreadable;
	/* hidepid=invisible (systemd's ProtectProc=invisible) leaves other
	 * users' processes out of /proc altogether: pid 1 is the tell. */
	char init[PATH_MAX + 8];
	snprintf(init, sizeof(init), "%s/1", proc_root);
	if (getpid() != 1 && access(init, F_OK))
		gpd_usage_note(r->processes_note, "%s shows only some processes "
			       "(hidepid, or the unit's ProtectProc=invisible): "
			       "seeing the others' DRM files needs "
			       "CAP_SYS_PTRACE (README, Running as a service)",
			       proc_root);
	if (stats.unreadable)
		gpd_usage_note(r->processes_note, "%u processes of other users "
			       "could not be looked at: reading their DRM "
			       "files needs CAP_SYS_PTRACE (README, Running as "
			       "a service)", stats.unreadable);
	/* One client however many fds share it, counted under the first
	 * process that holds it. */
	if (r->n_clients > 1)
		qsort(r->clients, r->n_clients, sizeof(*r->clients),
		      compare_client_pid);
	size_t kept = 0;
	for (size_t i = 0; i < r->n_clients; i++)
		if (!kept || r->clients[kept - 1].id != r->clients[i].id)
			r->clients[kept++] = r->clients[i];
	r->n_clients = kept;
	hold_maxima(clients, layout->n_classes, r);
	int32_t *pids = malloc((kept ? kept : 1) * sizeof(*pids));
	if (!pids)
		return -ENOMEM;
	for (size_t i = 0; i < kept; i++)
		pids[i] = r->clients[i].pid;
	qsort(pids, kept, sizeof(*pids), compare_i32);
	for (size_t i = 0; i < kept; i++) {
		if (i && pids[i] == pids[i - 1])
			continue;
		struct gpd_usage_process *p = gpd_usage_reading_add_process(r);
		if (!p) {
			free(pids);
			return -ENOMEM;
		}
		p->pid = pids[i];
		/* One that exited since keeps its row, nameless. */
		if (gpd_proc_read_stat(proc_root, pids[i], p->command,
				       sizeof(p->command), &p->ppid))
			p->ppid = 0;
		gpd_cgroup_pod_read(proc_root, pids[i], &p->pod);
	}
	free(pids);
	return 0;
}

void gpd_drm_clients_fini(struct gpd_drm_clients *clients)
{
	free(clients->maxes);
	clients->maxes = NULL;
	clients->n_maxes = 0;
}
