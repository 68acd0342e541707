/*
 * --web-root: the files libwebsockets serves at / stay inside the
 * directory.
 *
 * libwebsockets opens a request's file by its path under the root and
 * follows every symbolic link on the way, so a link in the root to
 * /etc/passwd (or to a directory outside) would be served. Its file
 * operations are replaced by the platform's own behind one check: a file
 * whose real path (every link resolved) is not the root or below it is
 * not opened, and the request gets a 404. Links that stay inside the root
 * still work.
 */
#ifndef GPD_NET_WEB_ROOT_H
#define GPD_NET_WEB_ROOT_H

#include <limits.h>

#include <libwebsockets.h>

#include "daemon/error.h"

struct gpd_web_root {
	struct lws_plat_file_ops ops;   /* what the context uses */
	const struct lws_plat_file_ops *platform;
	char real[PATH_MAX];            /* the root, links resolved */
};

/* Resolves path (the --web-root option); -errno with err saying what to do
 * when it is no directory. Touches no context. */
int gpd_web_root_init(struct gpd_web_root *root, const char *path,
		      struct gpd_error *err);

/* Makes context open files through root's check; root must outlive the
 * context. */
void gpd_web_root_install(struct gpd_web_root *root, struct lws_context *context);

/* 0 when path's real path is root's or below it; -EACCES when it is
 * elsewhere; the -errno of resolving it (-ENOENT: no such file). */
int gpd_web_root_check(const struct gpd_web_root *root, const char *path);

#endif
