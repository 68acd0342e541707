/*
 * Where gpuperf finds the libraries it puts into the commands it runs
 * (libgpuperf-preload.so, libgpuperf-cuda-activity.so).
 */
#ifndef GPUPERF_LIBRARY_PATH_H
#define GPUPERF_LIBRARY_PATH_H

#include <stddef.h>

/* name beside this gpuperf (a build tree, or an install whose libraries
 * sit with the binary), else where make install put it (GPM_LIBDIR): 0
 * with its path, or -ENOENT. */
int gpuperf_library_path(const char *name, char *path, size_t size);

#endif
