/*
 * Loading metric files from directories, memory and the built-in sim
 * definitions.
 */
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/metric_xml.h"
#include "metrics/metrics_db.h"
#include "metrics/sim_builtin.h"

void gpm_metrics_db_init(struct gpm_metrics_db *db)
{
	db->n_files = 0;
	db->files = NULL;
	gpm_diagnostics_init(&db->diagnostics);
}

void gpm_metrics_db_fini(struct gpm_metrics_db *db)
{
	for (size_t i = 0; i < db->n_files; i++)
		gpm_metrics_file_free(db->files[i]);
	free(db->files);
	gpm_diagnostics_fini(&db->diagnostics);
	db->n_files = 0;
	db->files = NULL;
}

static int append(struct gpm_metrics_db *db, struct gpm_metrics_file *file)
{
	struct gpm_metrics_file **files =
		realloc(db->files, (db->n_files + 1) * sizeof(*files));
	if (!files) {
		gpm_metrics_file_free(file);
		return -ENOMEM;
	}
	db->files = files;
	db->files[db->n_files++] = file;
	return 0;
}

static int is_metric_file(const struct dirent *e)
{
	size_t len = strlen(e->d_name);
	return len > 7 && !strncmp(e->d_name, "oa-", 3) &&
	       !strcmp(e->d_name + len - 4, ".xml");
}

/* dir/oa-<platform>.xml, all of it or only set (with uuid, see
 * gpm_metrics_file_load_set()) when set is not NULL. */
static int add_platform(struct gpm_metrics_db *db, const char *dir,
			const char *platform, const char *set, const char *uuid)
{
	struct stat st;
	if (stat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	char *path;
	if (asprintf(&path, "%s/oa-%s.xml", dir, platform) < 0)
		return -ENOMEM;
	if (access(path, F_OK)) {
		free(path);
		return 0;
	}
	struct gpm_metrics_file *file;
	int ret = set ? gpm_metrics_file_load_set(path, set, uuid,
						  &db->diagnostics, &file)
		      : gpm_metrics_file_load(path, &db->diagnostics, &file);
	if (ret == -ENOMEM) {
		free(path);
		return ret;
	}
	if (ret)
		ret = gpm_diagnostics_add(&db->diagnostics, path, 0,
					  "cannot read: %s", strerror(-ret));
	else if (!(ret = append(db, file)))
		ret = 1;
	free(path);
	return ret;
}

int gpm_metrics_db_add_platform_file(struct gpm_metrics_db *db, const char *dir,
				     const char *platform)
{
	return add_platform(db, dir, platform, NULL, NULL);
}

int gpm_metrics_db_add_platform_set(struct gpm_metrics_db *db, const char *dir,
				    const char *platform, const char *set,
				    const char *uuid)
{
	return add_platform(db, dir, platform, set, uuid);
}

int gpm_metrics_db_add_dir(struct gpm_metrics_db *db, const char *dir)
{
	struct dirent **entries;
	int n = scandir(dir, &entries, is_metric_file, alphasort);
	int ret = 0, loaded = 0;

	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		struct gpm_metrics_file *file;
		char *path = NULL;

		if (!ret && asprintf(&path, "%s/%s", dir,
				     entries[i]->d_name) < 0) {
			path = NULL;
			ret = -ENOMEM;
		}
		if (!ret) {
			int err = gpm_metrics_file_load(path, &db->diagnostics,
							&file);
			if (err == -ENOMEM)
				ret = err;
			else if (err)
				ret = gpm_diagnostics_add(&db->diagnostics, path,
							  0, "cannot read: %s",
							  strerror(-err));
			else if (!(ret = append(db, file)))
				loaded++;
		}
		free(path);
		free(entries[i]);
	}
	free(entries);
	return ret ? ret : loaded;
}

int gpm_metrics_db_add_buffer(struct gpm_metrics_db *db, const char *name,
			      const void *data, size_t size)
{
	struct gpm_metrics_file *file;
	int ret = gpm_metrics_file_parse(name, data, size, &db->diagnostics,
					 &file);
	return ret ? ret : append(db, file);
}

int gpm_metrics_db_add_builtin(struct gpm_metrics_db *db)
{
	return gpm_metrics_db_add_buffer(db, "<built-in>/" GPM_SIM_METRICS_NAME,
					 gpm_sim_metrics_xml,
					 gpm_sim_metrics_xml_size());
}

const struct gpm_metrics_file *
gpm_metrics_db_find_platform(const struct gpm_metrics_db *db,
			     const char *platform)
{
	for (size_t i = 0; i < db->n_files; i++)
		if (!strcmp(db->files[i]->platform, platform))
			return db->files[i];
	return NULL;
}

const struct gpm_metric_set *
gpm_metrics_db_find_set(const struct gpm_metrics_db *db, const char *platform,
			const char *set)
{
	for (size_t i = 0; i < db->n_files; i++) {
		if (strcmp(db->files[i]->platform, platform))
			continue;
		const struct gpm_metric_set *s =
			gpm_metrics_file_find_set(db->files[i], set);
		if (s)
			return s;
	}
	return NULL;
}

size_t gpm_metrics_db_count_sets(const struct gpm_metrics_db *db)
{
	size_t n = 0;
	for (size_t i = 0; i < db->n_files; i++)
		n += db->files[i]->n_sets;
	return n;
}

size_t gpm_metrics_db_count_counters(const struct gpm_metrics_db *db)
{
	size_t n = 0;
	for (size_t i = 0; i < db->n_files; i++)
		for (size_t s = 0; s < db->files[i]->n_sets; s++)
			n += db->files[i]->sets[s].n_counters;
	return n;
}
