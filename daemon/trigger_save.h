/*
 * Writing the snapshots of the daemon's triggers into their directory,
 * off the event loop: a snapshot taken on the loop is handed over whole,
 * and a worker of libuv's thread pool makes room (the oldest
 * trigger-*.i915perf first, so the directory stays within its cap) and
 * writes each of its recordings under a .part name, renamed once whole.
 *
 * One save is written at a time, whichever watch and directory it comes
 * from: making room and writing are one step, and two of them side by
 * side could both fit under the cap and together exceed it. The loop
 * keeps serving meanwhile; the queue holds at most what the watches
 * handed over, one snapshot each (trigger_watch.c).
 */
#ifndef GPD_TRIGGER_SAVE_H
#define GPD_TRIGGER_SAVE_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "daemon/error.h"
#include "daemon/snapshot.h"

/* The files of the watches: only these are deleted to make room. */
#define GPD_TRIGGER_FILE_PREFIX "trigger-"
#define GPD_TRIGGER_FILE_SUFFIX ".i915perf"

struct gpd_trigger_save;

/* The daemon's one writer of trigger snapshots. */
struct gpd_trigger_saver {
	uv_loop_t *loop;
	struct gpd_trigger_save *head, *tail;   /* waiting their turn */
	struct gpd_trigger_save *writing;       /* on the thread pool */
};

struct gpd_trigger_save {
	/* Given: where, and the names' stem: DIR/trigger-DEVICE-STAMP-N;
	 * the newest recording is STEM.i915perf, older ones STEM-K. */
	char dir[4096];
	char stem[4400];
	uint64_t max_bytes;             /* the directory's cap */
	struct gpd_snapshot snap;       /* taken over; freed once written */
	/* Called on the loop once written or failed; it may free the save. */
	void (*done)(struct gpd_trigger_save *save);
	void *user;

	/* For done: 0 and the files' paths, or what failed. */
	int ret;
	struct gpd_error err;
	char names[1024];
	size_t bytes;

	struct gpd_trigger_saver *saver;
	uv_work_t work;
	struct gpd_trigger_save *next;
};

void gpd_trigger_saver_init(struct gpd_trigger_saver *s, uv_loop_t *loop);

/* Writes save after those queued before it; its done follows on the loop. */
void gpd_trigger_saver_queue(struct gpd_trigger_saver *s,
			     struct gpd_trigger_save *save);

#endif
