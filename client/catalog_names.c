/*
 * Names checked against the catalog, with a hint on a typo (see
 * catalog_names.h).
 */
#include <stdint.h>
#include <stdio.h>

#include "client/catalog_names.h"
#include "client/cli_args.h"
#include "client/commands.h"
#include "metrics/name_match.h"

/* "did you mean X? " when one name is close, else "". */
static const char *hint(char *buf, size_t size, const char *closest)
{
	if (!closest)
		return "";
	snprintf(buf, size, "did you mean %s? ", closest);
	return buf;
}

const struct gpc_device *gpuperf_need_device(const char *cmd,
					     const struct gpc_client *client,
					     const char *name)
{
	const struct gpc_device *d = gpc_find_device(client, name);
	const struct gpc_device *devices;
	const char *closest = NULL;
	size_t distance = SIZE_MAX;
	char words[128];

	if (d)
		return d;
	if (!name) {
		gpuperf_fail(cmd, GPUPERF_EXIT_REFUSED, "the daemon serves no "
			     "device");
		return NULL;
	}
	size_t n = gpc_devices(client, &devices);
	for (size_t i = 0; i < n; i++)
		gpm_name_consider(name, devices[i].name, &closest, &distance);
	gpuperf_fail(cmd, GPUPERF_EXIT_REFUSED, "the daemon has no device "
		     "'%s'; %s'gpuperf devices' lists them", name,
		     hint(words, sizeof(words), closest));
	return NULL;
}

const struct gpc_metric_set *gpuperf_need_metric_set(const char *cmd,
						     const struct gpc_device *d,
						     const char *name)
{
	const struct gpc_metric_set *set = gpc_find_metric_set(d, name);
	const char *closest = NULL;
	size_t distance = SIZE_MAX;
	char words[128];

	if (set)
		return set;
	for (size_t i = 0; i < d->n_metric_sets; i++)
		gpm_name_consider(name, d->metric_sets[i].symbol, &closest,
				  &distance);
	gpuperf_fail(cmd, GPUPERF_EXIT_REFUSED, "device %s has no metric set "
		     "'%s'; %s'gpuperf sets -d %s' lists them", d->name, name,
		     hint(words, sizeof(words), closest), d->name);
	return NULL;
}

const struct gpc_counter *gpuperf_need_counter(const char *cmd,
					       const struct gpc_device *d,
					       const struct gpc_metric_set *set,
					       const char *name)
{
	const struct gpc_counter *k = gpc_find_counter(set, name);
	const char *closest = NULL;
	size_t distance = SIZE_MAX;
	char words[128];

	if (k)
		return k;
	for (size_t i = 0; i < set->n_counters; i++)
		gpm_name_consider(name, set->counters[i].symbol, &closest,
				  &distance);
	gpuperf_fail(cmd, GPUPERF_EXIT_REFUSED, "metric set %s of device %s "
		     "has no counter '%s'; %s'gpuperf counters %s -d %s' lists "
		     "them", set->symbol, d->name, name,
		     hint(words, sizeof(words), closest), set->symbol, d->name);
	return NULL;
}
