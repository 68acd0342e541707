/*
 * An AMD GPU as a device with the usage view only (see amdgpu_source.h).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/amdgpu/amdgpu_source.h"
#include "daemon/amdgpu/amdgpu_usage.h"
#include "daemon/drm/card.h"
#include "daemon/host/sysfs_file.h"
#include "metrics/oa_format.h"

/* Definitions without a set: the platform must have a file to be a
 * device, and there is nothing a daemon could stream. */
static const char no_sets_xml[] =
	"<?xml version=\"1.0\"?>\n<metrics version=\"1\" merge_md5=\"\">\n"
	"</metrics>\n";

struct amdgpu_source {
	struct gpd_source base;
	char no_stream[320];
};

/* It has no metric sets, so nothing asks it to open; if anything did,
 * the answer is the same. */
static int amdgpu_open(struct gpd_source *src, const struct gpd_stream_config *cfg,
		       struct gpd_error *err)
{
	return gpd_fail(err, -EOPNOTSUPP, "%s", src->no_stream);
}

static void amdgpu_close(struct gpd_source *src)
{
}

static void amdgpu_destroy(struct gpd_source *src)
{
	free(src);
}

static const struct gpd_source_ops amdgpu_source_ops = {
	.open = amdgpu_open,
	.close = amdgpu_close,
	.destroy = amdgpu_destroy,
};

/* The name of the driver the card's device is bound to, into name. */
static int card_driver(const char *card_dir, char *name, size_t size)
{
	char link[PATH_MAX + 16], target[PATH_MAX];
	snprintf(link, sizeof(link), "%s/device/driver", card_dir);
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	const char *slash = strrchr(target, '/');
	snprintf(name, size, "%.63s", slash ? slash + 1 : target);
	return 0;
}

static bool is_card_name(const char *name)
{
	if (strncmp(name, "card", 4) || !name[4])
		return false;
	for (const char *c = name + 4; *c; c++)
		if (*c < '0' || *c > '9')
			return false;
	return true;
}

static int add_definitions(struct gpm_metrics_db *db, struct gpd_error *err)
{
	if (gpm_metrics_db_find_platform(db, GPD_AMDGPU_PLATFORM))
		return 0;
	int ret = gpm_metrics_db_add_buffer(db, "<built-in>/oa-"
					    GPD_AMDGPU_PLATFORM ".xml",
					    no_sets_xml, sizeof(no_sets_xml) - 1);
	return ret ? gpd_fail(err, ret, "out of memory") : 0;
}

int gpd_amdgpu_source_create(uv_loop_t *loop, struct gpm_metrics_db *db,
			     const char *card, const struct gpd_drm_roots *roots,
			     struct gpd_source **source,
			     struct gpd_usage_source **usage,
			     struct gpd_error *err)
{
	char card_dir[PATH_MAX], driver[64];
	snprintf(card_dir, sizeof(card_dir), "%s/class/drm/%s", roots->sysfs,
		 card);
	int ret = card_driver(card_dir, driver, sizeof(driver));
	if (ret)
		return gpd_fail(err, -ENODEV, "%s: no such card (%s/device/driver: "
				"%s)", card, card_dir, strerror(-ret));
	if (strcmp(driver, "amdgpu"))
		return gpd_fail(err, -ENODEV, "%s is driven by %s, not amdgpu",
				card, driver);
	const struct gpm_platform *platform =
		gpm_platform_by_name(GPD_AMDGPU_PLATFORM);
	if ((ret = add_definitions(db, err)))
		return ret;
	struct amdgpu_source *as = calloc(1, sizeof(*as));
	if (!as)
		return gpd_fail(err, -ENOMEM, "out of memory");
	struct gpd_source *src = &as->base;
	snprintf(as->no_stream, sizeof(as->no_stream), "%s is an AMD GPU: Linux "
		 "gives a daemon no stream of its counters (amdgpu's SPM is "
		 "programmed only by the user-mode driver, for RGP captures). "
		 "Its engines, clocks, power and processes are in the usage "
		 "view: gpuperf top -d %s", card, card);
	src->no_stream = as->no_stream;
	src->ops = &amdgpu_source_ops;
	src->kind = GPD_SOURCE_AMDGPU;
	src->loop = loop;
	snprintf(src->name, sizeof(src->name), "%s", card);
	gpd_drm_card_pdev(card_dir, src->device_id, sizeof(src->device_id));
	src->platform = platform;
	gpm_platform_default_device(platform, &src->info);
	char id[16];
	if (!gpd_sysfs_read(id, sizeof(id), "%s/device/device", card_dir))
		src->info.pci_id = (uint32_t)strtoul(id, NULL, 16);
	gpm_oa_format_get(GPM_OA_FORMAT_NVPM32u64, &src->format);
	if ((ret = gpd_amdgpu_usage_create(card_dir, roots, usage, err))) {
		free(as);
		return ret;
	}
	*source = src;
	return 0;
}

static int compare_cards(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	return atoi(x + 4) - atoi(y + 4);
}

int gpd_amdgpu_cards(const char *sysfs_root, char ***names, size_t *n)
{
	char dir[PATH_MAX];
	*names = NULL;
	*n = 0;
	snprintf(dir, sizeof(dir), "%s/class/drm", sysfs_root);
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int ret = 0;
	for (struct dirent *e; !ret && (e = readdir(d));) {
		char card_dir[PATH_MAX + 256], driver[64];
		if (!is_card_name(e->d_name))
			continue;
		snprintf(card_dir, sizeof(card_dir), "%s/%s", dir, e->d_name);
		if (card_driver(card_dir, driver, sizeof(driver)) ||
		    strcmp(driver, "amdgpu"))
			continue;
		char **grown = realloc(*names, (*n + 1) * sizeof(*grown));
		char *name = strdup(e->d_name);
		if (grown)
			*names = grown;
		if (!grown || !name) {
			free(name);
			ret = -ENOMEM;
			break;
		}
		(*names)[(*n)++] = name;
	}
	closedir(d);
	if (ret) {
		gpd_amdgpu_cards_free(*names, *n);
		*names = NULL;
		*n = 0;
		return ret;
	}
	if (*n > 1)
		qsort(*names, *n, sizeof(**names), compare_cards);
	return 0;
}

void gpd_amdgpu_cards_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
