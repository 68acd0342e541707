/*
 * What the loader (metric_xml.c) and the set compiler (metric_set.c) share
 * beyond the public model.
 */
#ifndef GPM_METRIC_SET_INTERNAL_H
#define GPM_METRIC_SET_INTERNAL_H

#include "arena.h"
#include "diagnostics.h"
#include "metric_set.h"

/*
 * Compiles the counters of a freshly parsed set, orders them and drops the
 * bad ones, reporting each problem into diag against path. Everything it
 * keeps besides the programs comes from arena. 0 or -ENOMEM; the set's
 * programs are to be freed with gpm__metric_set_free_equations either way.
 */
int gpm__metric_set_compile(struct gpm_metric_set *set, const char *path,
			    struct gpm__arena *arena,
			    struct gpm_diagnostics *diag);

/* Frees the compiled programs of a set whose memory an arena keeps. */
void gpm__metric_set_free_equations(struct gpm_metric_set *set);

#endif
