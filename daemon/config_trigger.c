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
#include "daemon/log.h"
#include "daemon/trigger_save.h"
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

/* "FILE:LINE: " where trigger k of o was given in the configuration
 * file, "" on the command line. */
static const char *given_at(const struct gpd_options *o, size_t k,
			    char *buf, size_t size)
{
	buf[0] = '\0';
	if (o->trigger_file && o->trigger_lines && o->trigger_lines[k])
		snprintf(buf, size, "%s:%u: ", o->trigger_file,
			 o->trigger_lines[k]);
	return buf;
}

/* err's message with where before it. */
static int at(struct gpd_error *err, const char *where, int ret)
{
	char words[sizeof(err->message)];
	snprintf(words, sizeof(words), "%s", err->message);
	return gpd_fail(err, ret, "%s%s", where, words);
}

/* Whether spec watches dev. */
static bool watches(const struct gpd_trigger_spec *spec,
		    const struct gpd_device *dev)
{
	return dev->ring && (!spec->device[0] ||
			     !strcmp(spec->device, dev->source->name));
}

/* A named device must exist and keep a flight recorder, every trigger
 * must find one, and each device's set must have what it compares. */
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
	for (size_t i = 0; i < d->registry.n_devices; i++) {
		const struct gpd_device *dev = d->registry.devices[i];
		int ret = watches(spec, dev) ?
			  gpd_trigger_watch_check(dev, spec->expression, err) : 0;
		if (ret)
			return ret;
	}
	return 0;
}

/* The triggers running: copies of what they were started from, and one
 * watch a device each watches. */
struct gpd_trigger_set {
	char **texts;
	size_t n_texts;
	struct gpd_trigger_dir dir;
	struct gpd_trigger_watch **watches;
	size_t n_watches;
};

static struct gpd_trigger_dir dir_of(const struct gpd_options *o)
{
	return (struct gpd_trigger_dir){
		.path = o->trigger_dir,
		.max_bytes = o->trigger_dir_max ? o->trigger_dir_max :
			     GPD_DEFAULT_TRIGGER_DIR_MAX,
		.before_ns = o->trigger_before_ns ? o->trigger_before_ns :
			     GPD_DEFAULT_TRIGGER_BEFORE_NS,
		.after_ns = o->trigger_after_ns ? o->trigger_after_ns :
			    GPD_DEFAULT_TRIGGER_AFTER_NS,
	};
}

static bool same_set(const struct gpd_trigger_set *set,
		     const struct gpd_options *o)
{
	size_t n = set ? set->n_texts : 0;
	if (n != o->n_triggers)
		return false;
	if (!n)
		return true;
	struct gpd_trigger_dir dir = dir_of(o);
	if (strcmp(set->dir.path, dir.path) ||
	    set->dir.max_bytes != dir.max_bytes ||
	    set->dir.before_ns != dir.before_ns ||
	    set->dir.after_ns != dir.after_ns)
		return false;
	for (size_t k = 0; k < n; k++)
		if (strcmp(set->texts[k], o->triggers[k]))
			return false;
	return true;
}

static void free_set(struct gpd_trigger_set *set)
{
	if (!set)
		return;
	for (size_t k = 0; k < set->n_texts; k++)
		free(set->texts[k]);
	free(set->texts);
	free((char *)set->dir.path);
	free(set->watches);
	free(set);
}

/* Every trigger of o checked, then every watch started; NULL *out when
 * o has none. */
static int start_set(struct gpd_daemon *d, const struct gpd_options *o,
		     struct gpd_trigger_set **out, struct gpd_error *err)
{
	*out = NULL;
	if (!o->n_triggers)
		return 0;
	int ret = check_dir(o->trigger_dir, err);
	char where[4200];
	for (size_t k = 0; !ret && k < o->n_triggers; k++) {
		struct gpd_trigger_spec spec;
		given_at(o, k, where, sizeof(where));
		ret = gpd_trigger_spec_parse(o->triggers[k], &spec, err);
		if (!ret)
			ret = check_spec(d, &spec, o->triggers[k], err);
		if (ret)
			return at(err, where, ret);
	}
	if (ret)
		return ret;

	struct gpd_trigger_set *set = calloc(1, sizeof(*set));
	size_t n = d->registry.n_devices * o->n_triggers;
	if (set) {
		set->dir = dir_of(o);
		set->dir.path = strdup(o->trigger_dir);
		set->texts = calloc(o->n_triggers, sizeof(*set->texts));
		set->watches = calloc(n ? n : 1, sizeof(*set->watches));
	}
	if (!set || !set->dir.path || !set->texts || !set->watches) {
		free_set(set);
		return gpd_fail(err, -ENOMEM, "out of memory");
	}
	for (size_t k = 0; !ret && k < o->n_triggers; k++) {
		if (!(set->texts[k] = strdup(o->triggers[k]))) {
			ret = gpd_fail(err, -ENOMEM, "out of memory");
			break;
		}
		set->n_texts++;
		struct gpd_trigger_spec spec;
		gpd_trigger_spec_parse(set->texts[k], &spec, err);
		for (size_t i = 0; !ret && i < d->registry.n_devices; i++) {
			struct gpd_device *dev = d->registry.devices[i];
			if (!watches(&spec, dev))
				continue;
			ret = gpd_trigger_watch_start(&d->registry, dev,
						      spec.expression, &set->dir,
						      &d->trigger_saver,
						      &set->watches[set->n_watches],
						      err);
			if (!ret)
				set->n_watches++;
			else
				at(err, given_at(o, k, where, sizeof(where)), ret);
		}
	}
	if (ret) {
		for (size_t i = 0; i < set->n_watches; i++)
			gpd_trigger_watch_stop(set->watches[i]);
		free_set(set);
		return ret;
	}
	*out = set;
	return 0;
}

int gpd_daemon_start_triggers(struct gpd_daemon *d, struct gpd_error *err)
{
	gpd_trigger_saver_init(&d->trigger_saver, d->loop);
	return start_set(d, &d->options, &d->triggers, err);
}

int gpd_daemon_reload_triggers(struct gpd_daemon *d,
			       const struct gpd_options *o,
			       struct gpd_error *err)
{
	if (same_set(d->triggers, o))
		return 0;
	struct gpd_trigger_set *next;
	int ret = start_set(d, o, &next, err);
	if (ret)
		return ret;
	struct gpd_trigger_set *old = d->triggers;
	for (size_t i = 0; old && i < old->n_watches; i++)
		gpd_trigger_watch_retire(old->watches[i], &d->retired_watches);
	free_set(old);
	d->triggers = next;
	gpd_info("reload: %zu trigger%s now watch%s", o->n_triggers,
		 o->n_triggers == 1 ? "" : "s", o->n_triggers == 1 ? "es" : "");
	return 0;
}

void gpd_daemon_stop_triggers(struct gpd_daemon *d)
{
	struct gpd_trigger_set *set = d->triggers;
	for (size_t i = 0; set && i < set->n_watches; i++)
		gpd_trigger_watch_stop(set->watches[i]);
	free_set(set);
	d->triggers = NULL;
	gpd_trigger_watch_stop_retired(&d->retired_watches);
}
