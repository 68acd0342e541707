/*
 * Metric set ids: sysfs first, ADD_CONFIG when missing, REMOVE_CONFIG of
 * what was added.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/drm/kernel_files.h"
#include "daemon/drm/oa_configs.h"
#include "daemon/log.h"

void gpd_oa_configs_init(struct gpd_oa_configs *c, const char *card_dir,
			 const char *card_name,
			 const struct gpd_oa_config_ops *ops, void *user)
{
	memset(c, 0, sizeof(*c));
	c->card_dir = card_dir;
	c->card_name = card_name;
	c->ops = ops;
	c->user = user;
}

static int sysfs_id(const struct gpd_oa_configs *c, const char *guid,
		    uint64_t *id)
{
	char name[64];
	snprintf(name, sizeof(name), "metrics/%s/id", guid);
	return gpd_kernel_file_read_u64(c->card_dir, name, id);
}

static int remember(struct gpd_oa_configs *c, uint64_t id)
{
	if (c->n_added == c->cap_added) {
		size_t cap = c->cap_added ? c->cap_added * 2 : 4;
		uint64_t *added = realloc(c->added, cap * sizeof(*added));
		if (!added)
			return -ENOMEM;
		c->added = added;
		c->cap_added = cap;
	}
	c->added[c->n_added++] = id;
	return 0;
}

int gpd_oa_configs_id(struct gpd_oa_configs *c, const struct gpm_binding *b,
		      uint64_t *id, struct gpd_error *err)
{
	const struct gpm_metric_set *set = b->set;
	if (!sysfs_id(c, set->hw_config_guid, id))
		return 0;
	int ret = c->ops->add(c->user, b, id);
	if (ret == -EADDRINUSE) {
		/* Another process registered the same set between our look
		 * and our add: it is there now, and it is not ours to remove. */
		if (!sysfs_id(c, set->hw_config_guid, id))
			return 0;
		err->code = ret;
		snprintf(err->message, sizeof(err->message),
			 "%s: the kernel says metric set %s (%s) is registered, "
			 "but %s/metrics/%s/id does not exist; is --sysfs-root "
			 "the sysfs of this machine?", c->card_name,
			 set->symbol_name, set->hw_config_guid, c->card_dir,
			 set->hw_config_guid);
		return ret;
	}
	if (ret)
		return c->ops->refused(c->user, b, ret, err);
	if (remember(c, *id)) {
		c->ops->remove(c->user, *id);
		err->code = -ENOMEM;
		snprintf(err->message, sizeof(err->message), "out of memory");
		return err->code;
	}
	gpd_info("%s: registered metric set %s as id %llu", c->card_name,
		 set->symbol_name, (unsigned long long)*id);
	return 0;
}

void gpd_oa_configs_remove_added(struct gpd_oa_configs *c)
{
	for (size_t i = 0; i < c->n_added; i++) {
		int ret = c->ops->remove(c->user, c->added[i]);
		if (ret)
			gpd_warn("%s: could not remove metric set id %llu that "
				 "gpuperfd registered: %s", c->card_name,
				 (unsigned long long)c->added[i], strerror(-ret));
		else
			gpd_info("%s: removed metric set id %llu",
				 c->card_name, (unsigned long long)c->added[i]);
	}
	c->n_added = 0;
}

void gpd_oa_configs_fini(struct gpd_oa_configs *c)
{
	free(c->added);
	c->added = NULL;
	c->n_added = c->cap_added = 0;
}
