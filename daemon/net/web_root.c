/*
 * --web-root's files, kept inside the root (see web_root.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon/log.h"
#include "daemon/net/web_root.h"

int gpd_web_root_init(struct gpd_web_root *root, const char *path,
		      struct gpd_error *err)
{
	struct stat st;

	memset(root, 0, sizeof(*root));
	if (!realpath(path, root->real))
		return gpd_fail(err, -errno, "--web-root %s: %s; name the "
			    "directory of the web UI's built files", path,
			    strerror(errno));
	if (stat(root->real, &st) || !S_ISDIR(st.st_mode))
		return gpd_fail(err, -ENOTDIR, "--web-root %s is not a "
			    "directory; name the directory of the web UI's "
			    "built files", path);
	return 0;
}

int gpd_web_root_check(const struct gpd_web_root *root, const char *path)
{
	char real[PATH_MAX];
	size_t n = strlen(root->real);

	if (!realpath(path, real))
		return -errno;
	/* "/" as the root holds everything; otherwise the root itself or a
	 * path that continues it after a slash. */
	if (n == 1 || (!strncmp(real, root->real, n) &&
		       (!real[n] || real[n] == '/')))
		return 0;
	return -EACCES;
}

static lws_fop_fd_t open_inside(const struct lws_plat_file_ops *fops,
				const char *filename, const char *vpath,
				lws_fop_flags_t *flags)
{
	struct gpd_web_root *root = (struct gpd_web_root *)
		((char *)fops - offsetof(struct gpd_web_root, ops));

	int ret = gpd_web_root_check(root, filename);
	if (ret) {
		if (ret == -EACCES)
			gpd_debug("--web-root: not serving %s: its real path "
				  "is outside %s", filename, root->real);
		errno = -ret;
		return NULL;
	}
	/* The descriptor's operations are then ours, which are the
	 * platform's but for opening. */
	return root->platform->LWS_FOP_OPEN(fops, filename, vpath, flags);
}

void gpd_web_root_install(struct gpd_web_root *root, struct lws_context *context)
{
	root->platform = lws_get_fops(context);
	root->ops = *root->platform;
	root->ops.LWS_FOP_OPEN = open_inside;
	lws_set_fops(context, &root->ops);
}
