/*
 * The daemon's own triggers, from its options (see config_trigger.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/config_trigger.h"
#include "daemon/daemon.h"
#include "daemon/device.h"
#include "daemon/trigger_watch.h"
#include "metrics/trigger.h"

int gpd_trigger_spec_parse(const char *text, struct gpd_trigger_spec *out,
			   struct gpd_error *err)
{
	memset(out, 0, sizeof(*out));
	out->expression = text;
	/* "sim0=GpuBusy > 95": a name, then one '=' (two is a comparison). */
	size_t len = 0;
	while (isalnum((unsigned char)text[len]) || text[len] == '_' ||
	       text[len] == '-' || text[len] == '.' || text[len] == ':')
		len++;
	if (len && text[len] == '=' && text[len + 1] != '=') {
		if (len >= sizeof(out->device))
			return gpd_fail(err, -EINVAL, "--trigger %s: '%.*s' is no "
				    "device name", text, (int)len, text);
		memcpy(out->device, text, len);
		out->device[len] = '\0';
		out->expression = text + len + 1;
	}
	struct gpm_trigger t;
	struct gpm_trigger_error terr;
	if (gpm_trigger_parse(out->expression, &t, &terr)) {
		char words[1024];
		gpm_trigger_error_text(out->expression, &terr, words, sizeof(words));
		return gpd_fail(err, -EINVAL, "--trigger: %s", words);
	}
	return 0;
}

static int check_dir(const char *path, struct gpd_error *err)
{
	struct stat st;
	if (stat(path, &st))
		return gpd_fail(err, -errno, "--trigger-dir %s: %s; make it, "
			    "writable by the daemon's user", path,
			    strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return gpd_fail(err, -ENOTDIR, "--trigger-dir %s is not a "
			    "directory", path);
	if (access(path, W_OK | X_OK))
		return gpd_fail(err, -errno, "--trigger-dir %s: the daemon cannot "
			    "write there (%s)", path, strerror(errno));
	return 0;
}

/* Whether spec watches dev; a named device must exist and keep a flight
 * recorder, and every trigger must find one. */
static int check_spec(const struct gpd_daemon *d,
		      const struct gpd_trigger_spec *spec, const char *text,
		      struct gpd_error *err)
{
	size_t found = 0;
	for (size_t i = 0; i < d->registry.n_devices; i++) {
		const struct gpd_device *dev = d->registry.devices[i];
		if (spec->device[0] && strcmp(spec->device, dev->source->name))
			continue;
		if (spec->device[0] && !dev->ring)
			return gpd_fail(err, -EINVAL, "--trigger %s: device %s "
				    "keeps no flight recorder to take snapshots "
				    "of; give it --flight-recorder", text,
				    dev->source->name);
		found += dev->ring != NULL;
	}
	if (spec->device[0] && !found)
		return gpd_fail(err, -ENODEV, "--trigger %s: no device '%s'; the "
			    "devices are named as 'gpuperf devices' lists them "
			    "(sim0, card0, ...)", text, spec->device);
	if (!found)
		return gpd_fail(err, -EINVAL, "--trigger %s: no device keeps a "
			    "flight recorder to take snapshots of; give one "
			    "--flight-recorder", text);
	return 0;
}

int gpd_daemon_start_triggers(struct gpd_daemon *d, struct gpd_error *err)
{
	const struct gpd_options *o = &d->options;
	if (!o->n_triggers)
		return 0;
	int ret = check_dir(o->trigger_dir, err);
	for (size_t k = 0; !ret && k < o->n_triggers; k++) {
		struct gpd_trigger_spec spec;
		ret = gpd_trigger_spec_parse(o->triggers[k], &spec, err);
		if (!ret)
			ret = check_spec(d, &spec, o->triggers[k], err);
	}
	if (ret)
		return ret;
	d->trigger_dir = (struct gpd_trigger_dir){
		.path = o->trigger_dir,
		.max_bytes = o->trigger_dir_max ? o->trigger_dir_max :
			     GPD_DEFAULT_TRIGGER_DIR_MAX,
		.before_ns = o->trigger_before_ns ? o->trigger_before_ns :
			     GPD_DEFAULT_TRIGGER_BEFORE_NS,
		.after_ns = o->trigger_after_ns ? o->trigger_after_ns :
			    GPD_DEFAULT_TRIGGER_AFTER_NS,
	};
	size_t n = d->registry.n_devices * o->n_triggers;
	d->watches = calloc(n ? n : 1, sizeof(*d->watches));
	if (!d->watches)
		return gpd_fail(err, -ENOMEM, "out of memory");
	for (size_t k = 0; !ret && k < o->n_triggers; k++) {
		struct gpd_trigger_spec spec;
		gpd_trigger_spec_parse(o->triggers[k], &spec, err);
		for (size_t i = 0; !ret && i < d->registry.n_devices; i++) {
			struct gpd_device *dev = d->registry.devices[i];
			if ((spec.device[0] && strcmp(spec.device,
						      dev->source->name)) ||
			    !dev->ring)
				continue;
			ret = gpd_trigger_watch_start(&d->registry, dev,
						      spec.expression,
						      &d->trigger_dir,
						      &d->watches[d->n_watches],
						      err);
			if (!ret)
				d->n_watches++;
		}
	}
	if (ret)
		gpd_daemon_stop_triggers(d);
	return ret;
}

void gpd_daemon_stop_triggers(struct gpd_daemon *d)
{
	for (size_t i = 0; i < d->n_watches; i++)
		gpd_trigger_watch_stop(d->watches[i]);
	d->n_watches = 0;
	free(d->watches);
	d->watches = NULL;
}
