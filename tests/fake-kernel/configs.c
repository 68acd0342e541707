/*
 * The metric sets a fake card's kernel has: directories metrics/<guid>
 * with an id file, as i915 and xe publish them. The tree is the only
 * record, so a test can look at it, and remove a set to see the daemon
 * register it again.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/fake-kernel/fake_kernel.h"

static int read_id(const struct fk_card *card, const char *guid, uint64_t *id)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/metrics/%s/id", card->dir, guid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	unsigned long long v;
	int n = fscanf(f, "%llu", &v);
	fclose(f);
	if (n != 1)
		return -ENOENT;
	*id = v;
	return 0;
}

/* Calls fn for every registered set until it returns non-zero. */
static int each_config(const struct fk_card *card,
		       int (*fn)(const char *guid, uint64_t id, void *user),
		       void *user)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/metrics", card->dir);
	DIR *dir = opendir(path);
	if (!dir)
		return 0;
	int ret = 0;
	struct dirent *d;
	while (!ret && (d = readdir(dir))) {
		uint64_t id;
		if (d->d_name[0] != '.' && !read_id(card, d->d_name, &id))
			ret = fn(d->d_name, id, user);
	}
	closedir(dir);
	return ret;
}

struct by_id {
	uint64_t id;
	char *guid;
};

static int match_id(const char *guid, uint64_t id, void *user)
{
	struct by_id *q = user;
	if (id != q->id)
		return 0;
	snprintf(q->guid, 37, "%s", guid);
	return 1;
}

int fk_config_guid(const struct fk_card *card, uint64_t id, char guid[37])
{
	struct by_id q = { .id = id, .guid = guid };
	return each_config(card, match_id, &q) ? 0 : -ENOENT;
}

static int id_taken(const char *guid, uint64_t id, void *user)
{
	return id == *(const uint64_t *)user;
}

int fk_config_add(const struct fk_card *card, const char *guid, uint64_t *id)
{
	uint64_t existing;
	if (!read_id(card, guid, &existing))
		return -EADDRINUSE;
	/* idr_alloc() hands out the lowest free id: from 2 on i915, whose 1
	 * is the kernel's test config (i915_perf_add_config_ioctl()), from 1
	 * on xe (xe_oa_add_config_ioctl()). */
	uint64_t next = card->driver == FK_I915 ? 2 : 1;
	while (each_config(card, id_taken, &next))
		next++;
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/metrics/%s", card->dir, guid);
	if (mkdir(path, 0755))
		return -errno;
	snprintf(path, sizeof(path), "%s/metrics/%s/id", card->dir, guid);
	FILE *f = fopen(path, "we");
	if (!f)
		return -errno;
	fprintf(f, "%llu\n", (unsigned long long)next);
	fclose(f);
	*id = next;
	return 0;
}

int fk_config_remove(const struct fk_card *card, uint64_t id)
{
	char guid[37];
	if (fk_config_guid(card, id, guid))
		return -ENOENT;
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/metrics/%s/id", card->dir, guid);
	unlink(path);
	snprintf(path, sizeof(path), "%s/metrics/%s", card->dir, guid);
	return rmdir(path) ? -errno : 0;
}

/* %08x-%04x-%04x-%04x-%012x */
bool fk_uuid_valid(const char *uuid)
{
	for (int i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? uuid[i] != '-' : !isxdigit((unsigned char)uuid[i]))
			return false;
	}
	return true;
}
