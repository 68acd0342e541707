/*
 * The metric sets a card's kernel knows, by id.
 *
 * A set the kernel has is found in sysfs, <card>/metrics/<guid>/id. A set
 * it lacks is registered through the backend's ADD_CONFIG from the
 * binding's register lists, and everything registered here is removed
 * again when the stream closes, so the kernel is left as it was found.
 */
#ifndef GPD_DRM_OA_CONFIGS_H
#define GPD_DRM_OA_CONFIGS_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/error.h"
#include "metrics/metric_binding.h"

struct gpd_oa_config_ops {
	/* Registers binding's set; 0 with *id, or the negative errno of the
	 * ioctl (-EADDRINUSE when the guid is already registered). */
	int (*add)(void *user, const struct gpm_binding *binding, uint64_t *id);
	/* Puts words to an ADD_CONFIG refusal other than EADDRINUSE. */
	int (*refused)(void *user, const struct gpm_binding *binding, int code,
		       struct gpd_error *err);
	int (*remove)(void *user, uint64_t id);
};

struct gpd_oa_configs {
	const char *card_dir;           /* sysfs directory of the card */
	const char *card_name;
	const struct gpd_oa_config_ops *ops;
	void *user;
	uint64_t *added;
	size_t n_added, cap_added;
};

/* card_dir and card_name must outlive configs. */
void gpd_oa_configs_init(struct gpd_oa_configs *configs, const char *card_dir,
			 const char *card_name,
			 const struct gpd_oa_config_ops *ops, void *user);

/* The kernel's id of binding's set, registering it if the kernel lacks
 * it. 0 with *id, or a negative code with err filled. */
int gpd_oa_configs_id(struct gpd_oa_configs *configs,
		      const struct gpm_binding *binding, uint64_t *id,
		      struct gpd_error *err);

/* Removes every set registered here. */
void gpd_oa_configs_remove_added(struct gpd_oa_configs *configs);

void gpd_oa_configs_fini(struct gpd_oa_configs *configs);

#endif
