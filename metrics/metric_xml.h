/*
 * Reading one Intel metric XML file (oa-<platform>.xml, as shipped by IGT,
 * Mesa and gputop; schema in docs/oa-reference.md §4) into the model of
 * metric_set.h, compiled.
 *
 * Problems in the content (malformed XML, missing attributes, equations
 * that do not compile) are not failures: each becomes a diagnostic with the
 * file and line, and everything that was good is kept. Only running out of
 * memory, or not being able to read the file at all, fails the call.
 */
#ifndef GPM_METRIC_XML_H
#define GPM_METRIC_XML_H

#include <stddef.h>

#include "diagnostics.h"
#include "metric_set.h"

/*
 * Parses size bytes at data; path names the input in diagnostics and, when
 * it looks like oa-<name>.xml and the file has no sets to name a chipset,
 * gives the platform. Returns 0 with *out set, or -ENOMEM.
 */
int gpm_metrics_file_parse(const char *path, const void *data, size_t size,
			   struct gpm_diagnostics *diag,
			   struct gpm_metrics_file **out);

/* Streams the file at path through the same parser. Returns 0 with *out
 * set, -ENOMEM, or the -errno of opening or reading it. */
int gpm_metrics_file_load(const char *path, struct gpm_diagnostics *diag,
			  struct gpm_metrics_file **out);

/*
 * The same for a tool that needs one set: keeps only the sets whose
 * symbol_name is set or whose hw_config_guid is uuid (NULL or "" matches
 * none), and stops reading after the first set named set. Problems further
 * on in the file go unreported: 'gpuperf metrics check' is for those.
 */
int gpm_metrics_file_load_set(const char *path, const char *set,
			      const char *uuid, struct gpm_diagnostics *diag,
			      struct gpm_metrics_file **out);

#endif
