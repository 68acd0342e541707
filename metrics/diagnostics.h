/*
 * Problems found while loading metric definitions, each tied to a file and
 * line. Loading goes on past them: the caller gets everything that was good
 * plus this list, and decides how to show it.
 */
#ifndef GPM_DIAGNOSTICS_H
#define GPM_DIAGNOSTICS_H

#include <stddef.h>

struct gpm_diagnostic {
	char *file;             /* the path as the loader was given it */
	unsigned line;          /* 1-based; 0 when the whole file is meant */
	char *message;          /* words, without the location */
};

struct gpm_diagnostics {
	size_t count;
	size_t capacity;
	struct gpm_diagnostic *items;
};

void gpm_diagnostics_init(struct gpm_diagnostics *diag);
void gpm_diagnostics_fini(struct gpm_diagnostics *diag);

/* Appends one entry; 0 or -ENOMEM. */
int gpm_diagnostics_add(struct gpm_diagnostics *diag, const char *file,
			unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
