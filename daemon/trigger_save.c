/*
 * The triggers' snapshots written into their capped directory on the
 * thread pool, one at a time (see trigger_save.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/log.h"
#include "daemon/trigger_save.h"

/* ------------------------------------------------------------------ */
/* The directory, on the worker                                         */

struct dir_file {
	char name[256];
	uint64_t bytes;
	struct timespec mtime;
};

static bool ours(const char *name)
{
	size_t n = strlen(name);
	return !strncmp(name, GPD_TRIGGER_FILE_PREFIX,
			strlen(GPD_TRIGGER_FILE_PREFIX)) &&
	       n > strlen(GPD_TRIGGER_FILE_SUFFIX) &&
	       !strcmp(name + n - strlen(GPD_TRIGGER_FILE_SUFFIX),
		       GPD_TRIGGER_FILE_SUFFIX);
}

static int older_first(const void *a, const void *b)
{
	const struct dir_file *x = a, *y = b;
	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The watches' files in the directory, oldest first; free() *files. */
static int list_files(const char *path, struct dir_file **files, size_t *n,
		      uint64_t *total)
{
	size_t cap = 0;
	*files = NULL;
	*n = 0;
	*total = 0;
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	struct dirent *e;
	while ((e = readdir(d))) {
		struct stat st;
		if (!ours(e->d_name) || strlen(e->d_name) >= sizeof((*files)->name) ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode))
			continue;
		if (*n == cap) {
			size_t more = cap ? 2 * cap : 16;
			struct dir_file *f = realloc(*files, more * sizeof(*f));
			if (!f) {
				closedir(d);
				free(*files);
				*files = NULL;
				*n = 0;
				return -ENOMEM;
			}
			*files = f;
			cap = more;
		}
		struct dir_file *f = &(*files)[(*n)++];
		snprintf(f->name, sizeof(f->name), "%s", e->d_name);
		f->bytes = (uint64_t)st.st_size;
		f->mtime = st.st_mtim;
		*total += f->bytes;
	}
	closedir(d);
	if (*n)
		qsort(*files, *n, sizeof(**files), older_first);
	return 0;
}

/* Deletes the oldest of the watches' files until `incoming` more bytes
 * fit under the cap. */
static int make_room(const char *dir, uint64_t max_bytes, uint64_t incoming,
		     struct gpd_error *err)
{
	struct dir_file *files;
	size_t n;
	uint64_t total;
	int ret = list_files(dir, &files, &n, &total);
	if (ret)
		return gpd_fail(err, ret, "cannot read %s: %s", dir, strerror(-ret));
	for (size_t i = 0; i < n && total + incoming > max_bytes; i++) {
		char path[4400];
		snprintf(path, sizeof(path), "%s/%s", dir, files[i].name);
		if (unlink(path) && errno != ENOENT) {
			ret = gpd_fail(err, -errno, "cannot delete %s to make room: "
				       "%s", path, strerror(errno));
			break;
		}
		gpd_info("trigger: deleted %s (%.3g MB) to stay within "
			 "--trigger-dir-max", path, (double)files[i].bytes / 1e6);
		total -= files[i].bytes;
	}
	free(files);
	return ret;
}

/* Writes size bytes to path whole, or not at all: a temporary name first,
 * renamed once written, so nobody reads half a recording. */
static int write_whole(const char *path, const void *data, size_t size,
		       struct gpd_error *err)
{
	char tmp[4600];
	snprintf(tmp, sizeof(tmp), "%s.part", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return gpd_fail(err, -errno, "cannot write %s: %s", tmp,
				strerror(errno));
	const char *p = data;
	size_t left = size;
	int ret = 0;
	while (left && !ret) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			ret = -errno;
		else {
			p += w;
			left -= (size_t)w;
		}
	}
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return gpd_fail(err, ret, "cannot write %s: %s", path,
				strerror(-ret));
	}
	return 0;
}

static void write_save(uv_work_t *work)
{
	struct gpd_trigger_save *save = work->data;
	const struct gpd_snapshot *snap = &save->snap;
	save->ret = make_room(save->dir, save->max_bytes, snap->size, &save->err);
	size_t used = 0;
	for (size_t i = 0; !save->ret && i < snap->n_segments; i++) {
		/* The newest segment gets the plain name, as gpuperf
		 * snapshot names them. */
		char path[4500], suffix[32] = "";
		if (i + 1 < snap->n_segments)
			snprintf(suffix, sizeof(suffix), "-%zu", i + 1);
		snprintf(path, sizeof(path), "%s%s" GPD_TRIGGER_FILE_SUFFIX,
			 save->stem, suffix);
		const struct gpd_snapshot_segment *s = &snap->segments[i];
		save->ret = write_whole(path, snap->data + s->offset, s->size,
					&save->err);
		if (!save->ret) {
			used += (size_t)snprintf(save->names + used,
						 sizeof(save->names) - used,
						 "%s%s", i ? ", " : "", path);
			save->bytes += s->size;
		}
		if (used >= sizeof(save->names))
			used = sizeof(save->names) - 1;
	}
}

/* ------------------------------------------------------------------ */
/* The queue, on the loop                                               */

static void start_next(struct gpd_trigger_saver *s);

static void save_written(uv_work_t *work, int status)
{
	struct gpd_trigger_save *save = work->data;
	struct gpd_trigger_saver *s = save->saver;
	if (status && !save->ret)
		save->ret = gpd_fail(&save->err, status, "the snapshot was not "
				     "written (%s)", uv_strerror(status));
	gpd_snapshot_free(&save->snap);
	s->writing = NULL;
	start_next(s);
	save->done(save);
}

static void start_next(struct gpd_trigger_saver *s)
{
	if (s->writing || !s->head)
		return;
	struct gpd_trigger_save *save = s->head;
	s->head = save->next;
	if (!s->head)
		s->tail = NULL;
	save->next = NULL;
	s->writing = save;
	save->work.data = save;
	int ret = uv_queue_work(s->loop, &save->work, write_save, save_written);
	if (ret) {
		/* Only a work request without work is refused; write it here
		 * rather than lose it. */
		write_save(&save->work);
		save_written(&save->work, 0);
	}
}

void gpd_trigger_saver_init(struct gpd_trigger_saver *s, uv_loop_t *loop)
{
	memset(s, 0, sizeof(*s));
	s->loop = loop;
}

void gpd_trigger_saver_queue(struct gpd_trigger_saver *s,
			     struct gpd_trigger_save *save)
{
	save->saver = s;
	save->next = NULL;
	save->ret = 0;
	save->names[0] = '\0';
	save->bytes = 0;
	if (s->tail)
		s->tail->next = save;
	else
		s->head = save;
	s->tail = save;
	start_next(s);
}
