/*
 * The list of load problems.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/diagnostics.h"

void gpm_diagnostics_init(struct gpm_diagnostics *diag)
{
	diag->count = 0;
	diag->capacity = 0;
	diag->items = NULL;
}

void gpm_diagnostics_fini(struct gpm_diagnostics *diag)
{
	for (size_t i = 0; i < diag->count; i++) {
		free(diag->items[i].file);
		free(diag->items[i].message);
	}
	free(diag->items);
	gpm_diagnostics_init(diag);
}

int gpm_diagnostics_add(struct gpm_diagnostics *diag, const char *file,
			unsigned line, const char *fmt, ...)
{
	if (diag->count == diag->capacity) {
		size_t cap = diag->capacity ? diag->capacity * 2 : 16;
		struct gpm_diagnostic *items =
			realloc(diag->items, cap * sizeof(*items));
		if (!items)
			return -ENOMEM;
		diag->items = items;
		diag->capacity = cap;
	}

	char *message;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&message, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	char *path = strdup(file);
	if (!path) {
		free(message);
		return -ENOMEM;
	}

	struct gpm_diagnostic *d = &diag->items[diag->count++];
	d->file = path;
	d->line = line;
	d->message = message;
	return 0;
}
