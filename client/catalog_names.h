/*
 * The CLI's checks of device, metric set and counter names against the
 * daemon's catalog, before asking for anything: names match without
 * regard to case, and a typo is answered with the closest name ("did you
 * mean RenderBasic?") and the command that lists them all.
 */
#ifndef GPUPERF_CATALOG_NAMES_H
#define GPUPERF_CATALOG_NAMES_H

#include "client/include/gpuperf.h"

/* The device named (NULL: the first), or the refusal printed for cmd
 * and NULL. */
const struct gpc_device *gpuperf_need_device(const char *cmd,
					     const struct gpc_client *client,
					     const char *name);

/* The metric set named on device d, or the refusal printed and NULL. */
const struct gpc_metric_set *gpuperf_need_metric_set(const char *cmd,
						     const struct gpc_device *d,
						     const char *name);

/* The counter named in set (of device d), or the refusal printed and
 * NULL. */
const struct gpc_counter *gpuperf_need_counter(const char *cmd,
					       const struct gpc_device *d,
					       const struct gpc_metric_set *set,
					       const char *name);

#endif
