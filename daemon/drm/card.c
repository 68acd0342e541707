/*
 * Card nodes: open, driver name, sysfs directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <xf86drm.h>

#include "daemon/drm/card.h"

/* The major of every DRM character device (Linux's DRM_MAJOR). */
#define DRM_CHAR_MAJOR 226

int gpd_drm_card_open(const char *node, int *fd)
{
	int ret = open(node, O_RDWR | O_CLOEXEC);
	if (ret < 0)
		return -errno;
	*fd = ret;
	return 0;
}

int gpd_drm_card_driver(int fd, char *name, size_t size)
{
	drmVersionPtr version = drmGetVersion(fd);
	if (!version)
		return errno == ENOMEM ? -ENOMEM : -ENOTTY;
	snprintf(name, size, "%.*s", version->name_len, version->name);
	drmFreeVersion(version);
	return 0;
}

int gpd_drm_card_sysfs_dir(int fd, const char *sysfs_root, char *dir,
			   size_t size)
{
	struct stat st;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISCHR(st.st_mode))
		return -ENOTTY;
	int n = snprintf(dir, size, "%s/dev/char/%u:%u", sysfs_root,
			 major(st.st_rdev), minor(st.st_rdev));
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

void gpd_drm_card_pdev(const char *card_dir, char *pdev, size_t size)
{
	char device[PATH_MAX], target[PATH_MAX];
	pdev[0] = '\0';
	snprintf(device, sizeof(device), "%s/device", card_dir);
	if (!realpath(device, target))
		return;
	const char *slash = strrchr(target, '/');
	snprintf(pdev, size, "%s", slash ? slash + 1 : target);
}

/* The sysfs directory of the device behind a DRM node's: two levels up
 * from its drm/cardN or drm/renderDN. */
static int device_dir(int fd, const char *sysfs_root, char *out)
{
	char dir[PATH_MAX];
	int ret = gpd_drm_card_sysfs_dir(fd, sysfs_root, dir, sizeof(dir));
	if (ret)
		return ret;
	if (!realpath(dir, out))
		return -errno;
	for (int up = 0; up < 2; up++) {
		char *slash = strrchr(out, '/');
		if (!slash || slash == out)
			return -ENOENT;
		*slash = '\0';
	}
	return 0;
}

int gpd_drm_card_same_device(int card_fd, int fd, const char *sysfs_root)
{
	struct stat card, node;
	if (fstat(fd, &node))
		return -errno;
	if (!S_ISCHR(node.st_mode) || major(node.st_rdev) != DRM_CHAR_MAJOR)
		return -ENOTTY;
	if (fstat(card_fd, &card))
		return -errno;
	if (node.st_rdev == card.st_rdev)
		return 0;
	char card_device[PATH_MAX], node_device[PATH_MAX];
	if (device_dir(card_fd, sysfs_root, card_device) ||
	    device_dir(fd, sysfs_root, node_device))
		return -EXDEV;
	return strcmp(card_device, node_device) ? -EXDEV : 0;
}

const char *gpd_drm_card_name(const char *node)
{
	const char *slash = strrchr(node, '/');
	return slash ? slash + 1 : node;
}
