/*
 * A DRM card node: opening it, which kernel driver runs it, and where its
 * sysfs directory lies under the configured roots.
 *
 * The roots exist so that tests can point the daemon at a made-up machine:
 * device nodes are looked up under <dev>/dri and sysfs under <sysfs>.
 */
#ifndef GPD_DRM_CARD_H
#define GPD_DRM_CARD_H

#include <stddef.h>

struct gpd_drm_roots {
	const char *dev;        /* "/dev" */
	const char *sysfs;      /* "/sys" */
	const char *proc;       /* "/proc" */
};

/* Opens node read-write, close-on-exec. 0 with *fd set, or -errno. */
int gpd_drm_card_open(const char *node, int *fd);

/* The name of the driver behind fd ("i915", "xe") from DRM_IOCTL_VERSION.
 * 0, -ENOTTY for a file that is no DRM device, -ENOMEM. */
int gpd_drm_card_driver(int fd, char *name, size_t size);

/*
 * The card's sysfs directory, <sysfs>/dev/char/MAJOR:MINOR: a link to
 * .../drm/cardN, where the metrics/ directory and the frequency files
 * are. -ENOTTY when fd is not a character device, -ENAMETOOLONG.
 */
int gpd_drm_card_sysfs_dir(int fd, const char *sysfs_root, char *dir,
			   size_t size);

/* The PCI slot ("0000:03:00.0") of the card whose sysfs directory is
 * card_dir: where its device link leads. "" when it has none. */
void gpd_drm_card_pdev(const char *card_dir, char *pdev, size_t size);

/*
 * Whether fd is a DRM node (card or render) of the device card_fd is a
 * node of: 0; -ENOTTY when fd is no DRM character device, -EXDEV when it
 * is another device's. Two nodes are one device's when their sysfs
 * directories (.../<device>/drm/cardN, .../<device>/drm/renderDN) hang
 * below the same device.
 */
int gpd_drm_card_same_device(int card_fd, int fd, const char *sysfs_root);

/* "card0" for "/dev/dri/card0": the last component of a path. */
const char *gpd_drm_card_name(const char *node);

#endif
