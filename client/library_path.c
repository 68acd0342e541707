/*
 * The libraries gpuperf puts into commands (library_path.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "client/library_path.h"

int gpuperf_library_path(const char *name, char *path, size_t size)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			int len = snprintf(path, size, "%s/%s", exe, name);
			if (len > 0 && (size_t)len < size && !access(path, R_OK))
				return 0;
		}
	}
	int len = snprintf(path, size, "%s/%s", GPM_LIBDIR, name);
	return len > 0 && (size_t)len < size && !access(path, R_OK) ? 0 : -ENOENT;
}
