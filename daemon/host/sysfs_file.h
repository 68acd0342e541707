/*
 * Reading the small files of sysfs and procfs whole, by a path built
 * like printf's.
 */
#ifndef GPD_HOST_SYSFS_FILE_H
#define GPD_HOST_SYSFS_FILE_H

#include <stddef.h>
#include <stdint.h>

/* The file's text, NUL-terminated (cut to size - 1 bytes). 0 or -errno. */
int gpd_sysfs_read(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Up to size bytes of a binary file; *len says how many it had. */
int gpd_sysfs_read_binary(void *buf, size_t size, size_t *len,
			  const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The unsigned decimal number the file starts with; -EBADMSG when it
 * holds none. */
int gpd_sysfs_read_u64(uint64_t *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
