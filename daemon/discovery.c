/*
 * GPU discovery: drmGetDevices2 lists the DRM devices; the Intel ones
 * with a primary node are opened to learn their driver.
 *
 * libdrm reports nodes under /dev/dri; they are looked up under the
 * configured device root instead, so that a test machine's tree stands in
 * for the real one.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>

#include "daemon/discovery.h"
#include "daemon/error.h"
#include "daemon/drm/drm_usage.h"
#include "daemon/i915/i915_source.h"
#include "daemon/log.h"
#include "daemon/xe/xe_source.h"

#define PCI_VENDOR_INTEL 0x8086

int gpd_drm_source_create(uv_loop_t *loop, enum gpd_source_kind kind,
			  const char *node, const struct gpd_drm_roots *roots,
			  struct gpd_drm_card_sources *out, struct gpd_error *err)
{
	int ret;
	out->usage = NULL;
	if (kind == GPD_SOURCE_I915)
		ret = gpd_i915_source_create(loop, node, roots, &out->source, err);
	else if (kind == GPD_SOURCE_XE)
		ret = gpd_xe_source_create(loop, node, roots, &out->source, err);
	else
		return gpd_fail(err, -EINVAL, "%s: not a kernel source kind",
				gpd_source_kind_name(kind));
	if (ret)
		return ret;
	struct gpd_error why = { 0 };
	const struct gpd_drm_usage_driver *driver = kind == GPD_SOURCE_I915 ?
						    &gpd_i915_usage_driver :
						    &gpd_xe_usage_driver;
	if (gpd_drm_usage_create(driver, node, roots, &out->usage, &why))
		gpd_warn("%s: no usage stream: %s", node, why.message);
	return 0;
}

/* "/dev/dri/card0" -> "<dev root>/dri/card0". */
static int node_path(const struct gpd_drm_roots *roots, const char *node,
		     char *path, size_t size)
{
	const char *rest = strncmp(node, "/dev/", 5) ? node : node + 4;
	int n = snprintf(path, size, "%s%s", roots->dev, rest);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int driver_kind(const char *path, enum gpd_source_kind *kind)
{
	int fd;
	int ret = gpd_drm_card_open(path, &fd);
	if (ret)
		return ret;
	char driver[32];
	ret = gpd_drm_card_driver(fd, driver, sizeof(driver));
	close(fd);
	if (ret)
		return ret;
	if (!strcmp(driver, "i915"))
		*kind = GPD_SOURCE_I915;
	else if (!strcmp(driver, "xe"))
		*kind = GPD_SOURCE_XE;
	else
		return -ENODEV;
	return 0;
}

static int append(struct gpd_drm_card_sources **cards, size_t *n,
		  const struct gpd_drm_card_sources *card)
{
	struct gpd_drm_card_sources *grown = realloc(*cards,
						     (*n + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	grown[(*n)++] = *card;
	*cards = grown;
	return 0;
}

static void destroy(struct gpd_drm_card_sources *card)
{
	card->source->ops->destroy(card->source);
	if (card->usage)
		card->usage->ops->destroy(card->usage);
}

int gpd_drm_discover(uv_loop_t *loop, const struct gpd_drm_roots *roots,
		     struct gpd_drm_card_sources **cards, size_t *n)
{
	*cards = NULL;
	*n = 0;
	int count = drmGetDevices2(0, NULL, 0);
	if (count <= 0) {
		gpd_debug("libdrm lists no DRM devices (%s)",
			  count ? strerror(-count) : "none");
		return 0;
	}
	drmDevicePtr *devices = calloc((size_t)count, sizeof(*devices));
	if (!devices)
		return -ENOMEM;
	count = drmGetDevices2(0, devices, count);
	int ret = 0;
	for (int i = 0; i < count && !ret; i++) {
		drmDevicePtr d = devices[i];
		if (d->bustype != DRM_BUS_PCI ||
		    d->deviceinfo.pci->vendor_id != PCI_VENDOR_INTEL ||
		    !(d->available_nodes & (1 << DRM_NODE_PRIMARY)))
			continue;
		char path[PATH_MAX];
		enum gpd_source_kind kind;
		int why = node_path(roots, d->nodes[DRM_NODE_PRIMARY], path,
				    sizeof(path));
		if (!why)
			why = driver_kind(path, &kind);
		if (why) {
			gpd_warn("%s: skipped (%s%s)", d->nodes[DRM_NODE_PRIMARY],
				 why == -ENODEV ? "driven by neither i915 nor xe"
						: strerror(-why),
				 why == -EACCES ? ": add gpuperfd's user to the "
						  "groups video and render, as "
						  "the service does" : "");
			continue;
		}
		struct gpd_drm_card_sources card;
		struct gpd_error err = { 0 };
		if (gpd_drm_source_create(loop, kind, path, roots, &card, &err)) {
			gpd_warn("%s: skipped: %s", path, err.message);
			continue;
		}
		ret = append(cards, n, &card);
		if (ret)
			destroy(&card);
	}
	drmFreeDevices(devices, count);
	free(devices);
	if (ret) {
		for (size_t i = 0; i < *n; i++)
			destroy(&(*cards)[i]);
		free(*cards);
		*cards = NULL;
		*n = 0;
	}
	return ret;
}
