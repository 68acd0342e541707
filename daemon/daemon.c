/*
 * The daemon context: metric definitions, devices, signals, shutdown.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config_flight.h"
#include "daemon/config_trigger.h"
#include "daemon/error.h"
#include "daemon/daemon.h"
#include "daemon/amdgpu/amdgpu_source.h"
#include "daemon/discovery.h"
#include "daemon/keep_streaming.h"
#include "daemon/log.h"
#include "daemon/net/server.h"
#include "daemon/reload.h"
#include "daemon/sd_notify.h"
#include "daemon/nvidia/nvidia_source.h"
#include "daemon/process_activity.h"
#include "daemon/replay/replay_source.h"
#include "daemon/sim/sim_source.h"
#include "daemon/sim/spm_source.h"
#include "daemon/sim/sim_usage.h"
#include "metrics/metrics_db.h"

static void free_db(struct gpm_metrics_db *db)
{
	if (!db)
		return;
	gpm_metrics_db_fini(db);
	free(db);
}

static int load_db(const char *const *dirs, size_t n_dirs,
		   struct gpm_metrics_db **out, struct gpd_error *err)
{
	struct gpm_metrics_db *db = calloc(1, sizeof(*db));
	if (!db)
		return gpd_fail(err, -ENOMEM, "out of memory");
	gpm_metrics_db_init(db);
	int ret = 0;
	for (size_t i = 0; !ret && i < n_dirs; i++) {
		ret = gpm_metrics_db_add_dir(db, dirs[i]);
		if (ret == 0)
			gpd_warn("--metrics-dir %s holds no oa-*.xml files", dirs[i]);
		if (ret < 0)
			gpd_fail(err, ret, "--metrics-dir %s: %s", dirs[i],
			     strerror(-ret));
		else
			ret = 0;
	}
	/* The sim GPU's own definitions are always there, after the
	 * directories, so `--device sim` works whatever else is loaded. */
	if (!ret && (ret = gpm_metrics_db_add_builtin(db)))
		gpd_fail(err, ret, "loading the built-in metric definitions: %s",
		     strerror(-ret));
	if (ret) {
		free_db(db);
		return ret;
	}
	for (size_t i = 0; i < db->diagnostics.count; i++) {
		const struct gpm_diagnostic *diag = &db->diagnostics.items[i];
		gpd_warn("%s:%u: %s", diag->file, diag->line, diag->message);
	}
	gpd_info("metric definitions: %zu files, %zu sets", db->n_files,
		 gpm_metrics_db_count_sets(db));
	*out = db;
	return 0;
}

static int load_metrics(struct gpd_daemon *d, struct gpd_error *err)
{
	return load_db(d->options.metrics_dirs, d->options.n_metrics_dirs,
		       &d->metrics, err);
}

static void metrics_adopted(struct gpd_daemon *d);

static void on_metrics_adopted(void *user, struct gpd_device *dev)
{
	metrics_adopted(user);
}

static bool is_stopping(void *user)
{
	const struct gpd_daemon *d = user;
	return d->stopping;
}

/* Takes source and usage (NULL for none) over, also on failure. */
static int add_device(struct gpd_daemon *d, struct gpd_source *source,
		      struct gpd_usage_source *usage, struct gpd_error *err)
{
	const struct gpm_metrics_file *file =
		gpm_metrics_db_find_platform(d->metrics, source->platform->name);
	if (!file) {
		/* The usage source may use the source's libraries. */
		if (usage)
			usage->ops->destroy(usage);
		source->ops->destroy(source);
		return gpd_fail(err, -ENOENT, "no metric definitions for %s",
			    source->platform->name);
	}
	struct gpd_device *dev = malloc(sizeof(*dev));
	struct gpd_device **devices =
		realloc(d->registry.devices,
			(d->registry.n_devices + 1) * sizeof(*devices));
	if (devices)
		d->registry.devices = devices;
	if (!dev || !devices) {
		free(dev);
		/* The usage source may use the source's libraries. */
		if (usage)
			usage->ops->destroy(usage);
		source->ops->destroy(source);
		return gpd_fail(err, -ENOMEM, "out of memory");
	}
	struct gpd_device_owner owner = {
		.metrics_adopted = on_metrics_adopted,
		.stopping = is_stopping,
		.user = d,
	};
	int ret = gpd_device_init(dev, d->loop, source, file,
				  d->options.linger_ms, &owner);
	if (ret) {
		free(dev);
		/* The usage source may use the source's libraries. */
		if (usage)
			usage->ops->destroy(usage);
		source->ops->destroy(source);
		return gpd_fail(err, ret, "%s: cannot decode its reports (%s)",
			    source->name, strerror(-ret));
	}
	dev->min_period_ns = d->options.min_period_ns ? d->options.min_period_ns
						      : GPD_DEFAULT_MIN_PERIOD_NS;
	d->registry.devices[d->registry.n_devices++] = dev;
	if (usage && gpd_device_set_usage_source(dev, usage))
		return gpd_fail(err, -ENOMEM, "out of memory");
	gpd_info("device %s: %s (%s, PCI 0x%04x)", source->name,
		 source->platform->description,
		 gpd_source_kind_name(source->kind), source->info.pci_id);
	return 0;
}

static struct gpd_drm_roots drm_roots(const struct gpd_daemon *d)
{
	return (struct gpd_drm_roots){
		.dev = d->options.dev_root ? d->options.dev_root : "/dev",
		.sysfs = d->options.sysfs_root ? d->options.sysfs_root : "/sys",
		.proc = d->options.proc_root ? d->options.proc_root : "/proc",
	};
}

/* auto: a device for every Intel GPU that i915 or xe drives. */
static int add_discovered(struct gpd_daemon *d, bool *found,
			  struct gpd_error *err)
{
	struct gpd_drm_roots roots = drm_roots(d);
	struct gpd_drm_card_sources *cards;
	size_t n;
	int ret = gpd_drm_discover(d->loop, &roots, &cards, &n);
	if (ret)
		return gpd_fail(err, ret, "looking for GPUs: %s", strerror(-ret));
	*found = n > 0;
	for (size_t i = 0; i < n; i++) {
		if (!ret) {
			ret = add_device(d, cards[i].source, cards[i].usage, err);
		} else {
			cards[i].source->ops->destroy(cards[i].source);
			if (cards[i].usage)
				cards[i].usage->ops->destroy(cards[i].usage);
		}
	}
	free(cards);
	return ret;
}

/* auto: a device for every NVIDIA GPU, when the driver and CUPTI are
 * there; a GPU the daemon cannot serve is skipped with a warning. */
static int add_nvidia_gpus(struct gpd_daemon *d, bool *found,
			   struct gpd_error *err)
{
	char why[GPD_NV_LIBS_WHY];
	unsigned n = gpd_nvidia_count_gpus(d->options.nvidia_libs, why,
					   sizeof(why));
	if (!n && why[0])
		gpd_info("no NVIDIA GPU support: %s", why);
	for (unsigned i = 0; i < n; i++) {
		struct gpd_nvidia_source_options no = {
			.index = i,
			.libs = d->options.nvidia_libs,
		};
		struct gpd_source *source;
		struct gpd_error skipped;
		if (gpd_nvidia_source_create(d->loop, d->metrics, &no, &source,
					     &skipped)) {
			gpd_warn("%s", skipped.message);
			continue;
		}
		struct gpd_usage_source *usage = NULL;
		if (gpd_nvidia_source_usage(source, d->options.proc_root,
					    d->registry.activity, &usage))
			gpd_warn("%s: no usage stream: out of memory", source->name);
		int ret = add_device(d, source, usage, err);
		if (ret)
			return ret;
		*found = true;
	}
	return 0;
}

/* The device of an AMD card: its usage view only. */
static int add_amdgpu_card(struct gpd_daemon *d, const char *card,
			   struct gpd_error *err)
{
	struct gpd_drm_roots roots = drm_roots(d);
	struct gpd_source *source;
	struct gpd_usage_source *usage;
	int ret = gpd_amdgpu_source_create(d->loop, d->metrics, card, &roots,
					   &source, &usage, err);
	return ret ? ret : add_device(d, source, usage, err);
}

/* auto: a device for every GPU amdgpu drives. */
static int add_amdgpu_cards(struct gpd_daemon *d, bool *found,
			    struct gpd_error *err)
{
	char **cards;
	size_t n;
	int ret = gpd_amdgpu_cards(drm_roots(d).sysfs, &cards, &n);
	if (ret)
		return gpd_fail(err, ret, "looking for GPUs: %s", strerror(-ret));
	for (size_t i = 0; i < n && !ret; i++) {
		struct gpd_error skipped;
		if (add_amdgpu_card(d, cards[i], &skipped)) {
			if (skipped.code == -ENOMEM)
				ret = gpd_fail(err, -ENOMEM, "out of memory");
			else
				gpd_warn("%s", skipped.message);
			continue;
		}
		*found = true;
	}
	gpd_amdgpu_cards_free(cards, n);
	return ret;
}

static int create_device(struct gpd_daemon *d, const char *text,
			 unsigned index, struct gpd_error *err)
{
	struct gpd_device_spec spec;
	const char *why;
	int ret = gpd_device_spec_parse(text, &spec, &why);
	if (ret)
		return gpd_fail(err, ret, "--device %s: %s", text,
			    why ? why : strerror(-ret));
	struct gpd_source *source = NULL;
	struct gpd_usage_source *usage = NULL;
	switch (spec.kind) {
	case GPD_SOURCE_AUTO: {
		bool found = false;
		ret = add_discovered(d, &found, err);
		if (!ret)
			ret = add_nvidia_gpus(d, &found, err);
		if (!ret)
			ret = add_amdgpu_cards(d, &found, err);
		if (ret || found) {
			gpd_device_spec_fini(&spec);
			return ret;
		}
		gpd_info("no Intel, NVIDIA or AMD GPU found; using sim");
	}
		/* fallthrough */
	case GPD_SOURCE_SIM: {
		struct gpd_sim_source_options so = {
			.platform = spec.platform,
			.seed = d->options.seed,
			.buffer_size = d->options.sim_buffer_size,
			.stepped = d->options.sim_stepped,
			.timeslice_ns = d->options.sim_timeslice_ns,
			.index = index,
			.load = spec.load,
		};
		ret = gpd_sim_source_create(d->loop, d->metrics, &so, &source, err);
		bool amd = !ret && !strcmp(source->platform->name,
					   GPD_SIM_AMD_PLATFORM);
		if (!ret && (ret = gpd_sim_usage_create(&source->info,
							d->options.seed, amd,
							&usage))) {
			source->ops->destroy(source);
			gpd_fail(err, ret, "%s: cannot simulate its usage (%s)",
				 text, strerror(-ret));
		}
		break;
	}
	case GPD_SOURCE_REPLAY: {
		struct gpd_replay_source_options ro = {
			.path = spec.path,
			.loop = spec.loop,
			.speed = spec.speed,
			.index = index,
		};
		ret = gpd_replay_source_create(d->loop, d->metrics, &ro, &source, err);
		break;
	}
	case GPD_SOURCE_I915:
	case GPD_SOURCE_XE: {
		struct gpd_drm_roots roots = drm_roots(d);
		struct gpd_drm_card_sources card;
		ret = gpd_drm_source_create(d->loop, spec.kind, spec.path, &roots,
					    &card, err);
		source = card.source;
		usage = card.usage;
		break;
	}
	case GPD_SOURCE_NVIDIA: {
		struct gpd_nvidia_source_options no = {
			.index = spec.index,
			.libs = d->options.nvidia_libs,
		};
		ret = gpd_nvidia_source_create(d->loop, d->metrics, &no, &source,
					       err);
		if (!ret && gpd_nvidia_source_usage(source, d->options.proc_root,
						    d->registry.activity, &usage))
			gpd_warn("%s: no usage stream: out of memory", source->name);
		break;
	}
	case GPD_SOURCE_AMDGPU:
		ret = add_amdgpu_card(d, spec.path, err);
		gpd_device_spec_fini(&spec);
		return ret;
	}
	gpd_device_spec_fini(&spec);
	if (ret)
		return ret;
	return add_device(d, source, usage, err);
}

int gpd_daemon_init(struct gpd_daemon *d, uv_loop_t *loop,
		    const struct gpd_options *options, struct gpd_error *err)
{
	memset(d, 0, sizeof(*d));
	d->loop = loop;
	d->options = *options;
	if (gpd_process_activity_create(&d->registry.activity))
		return gpd_fail(err, -ENOMEM, "out of memory");
	int ret = load_metrics(d, err);
	if (ret)
		return ret;
	if (!options->n_device_specs)
		ret = create_device(d, "auto", 0, err);
	for (size_t i = 0; !ret && i < options->n_device_specs; i++)
		ret = create_device(d, options->device_specs[i], (unsigned)i, err);
	if (!ret)
		ret = gpd_daemon_start_flight_recorders(d, err);
	if (!ret)
		ret = gpd_daemon_start_triggers(d, err);
	return ret;
}

/* Whether db holds file. */
static bool db_holds(const struct gpm_metrics_db *db,
		     const struct gpm_metrics_file *file)
{
	for (size_t i = 0; i < db->n_files; i++)
		if (db->files[i] == file)
			return true;
	return false;
}

static bool db_in_use(const struct gpd_daemon *d, const struct gpm_metrics_db *db)
{
	for (size_t i = 0; i < d->registry.n_devices; i++) {
		const struct gpd_device *dev = d->registry.devices[i];
		if (db_holds(db, dev->metrics) ||
		    (dev->next_metrics && db_holds(db, dev->next_metrics)))
			return true;
	}
	return false;
}

static void free_unused_retired(struct gpd_daemon *d)
{
	size_t kept = 0;
	for (size_t i = 0; i < d->n_retired; i++) {
		if (db_in_use(d, d->retired[i]))
			d->retired[kept++] = d->retired[i];
		else
			free_db(d->retired[i]);
	}
	d->n_retired = kept;
}

int gpd_daemon_reload_metrics(struct gpd_daemon *d, const char *const *dirs,
			      size_t n_dirs, struct gpd_error *err)
{
	struct gpm_metrics_db **retired =
		realloc(d->retired, (d->n_retired + 1) * sizeof(*retired));
	if (!retired)
		return gpd_fail(err, -ENOMEM, "out of memory");
	d->retired = retired;
	struct gpm_metrics_db *db;
	int ret = load_db(dirs, n_dirs, &db, err);
	if (ret)
		return ret;
	d->retired[d->n_retired++] = d->metrics;
	d->metrics = db;
	d->options.metrics_dirs = (const char **)dirs;
	d->options.n_metrics_dirs = n_dirs;
	for (size_t i = 0; i < d->registry.n_devices; i++) {
		struct gpd_device *dev = d->registry.devices[i];
		const char *platform = dev->source->platform->name;
		const struct gpm_metrics_file *file =
			gpm_metrics_db_find_platform(db, platform);
		if (file)
			gpd_device_replace_metrics(dev, file);
		else
			/* E.g. NVIDIA's definitions, which their source
			 * adds itself when it starts. */
			gpd_info("%s: the reloaded directories define no %s; "
				 "keeping its definitions", dev->source->name,
				 platform);
	}
	metrics_adopted(d);
	return 0;
}

/* A device took reloaded definitions: the server describes the devices
 * anew and definitions no device uses any more are freed. */
static void metrics_adopted(struct gpd_daemon *d)
{
	/* The description points into the definitions: the old ones stay
	 * while it cannot be replaced. */
	if (d->server && gpd_server_describe_devices(d->server)) {
		gpd_warn("out of memory describing the devices anew; new "
			 "clients see the previous metric definitions");
		return;
	}
	free_unused_retired(d);
}

static void on_signal(uv_signal_t *handle, int signum)
{
	struct gpd_daemon *d = handle->data;
	if (signum == SIGHUP) {
		gpd_reload(d);
		return;
	}
	gpd_info("%s: shutting down", signum == SIGINT ? "SIGINT" : "SIGTERM");
	gpd_sd_notify("STOPPING=1");
	gpd_daemon_stop(d);
}

int gpd_daemon_handle_signals(struct gpd_daemon *d)
{
	uv_signal_init(d->loop, &d->sigint);
	uv_signal_init(d->loop, &d->sigterm);
	uv_signal_init(d->loop, &d->sighup);
	d->sigint.data = d;
	d->sigterm.data = d;
	d->sighup.data = d;
	int ret = uv_signal_start(&d->sigint, on_signal, SIGINT);
	if (!ret)
		ret = uv_signal_start(&d->sigterm, on_signal, SIGTERM);
	if (!ret)
		ret = uv_signal_start(&d->sighup, on_signal, SIGHUP);
	d->signals_installed = true;
	return ret;
}

void gpd_daemon_stop(struct gpd_daemon *d)
{
	if (d->stopping)
		return;
	d->stopping = true;
	/* Clients go first: their subscriptions live on the devices. */
	if (d->server)
		gpd_server_stop(d->server);
	gpd_daemon_stop_triggers(d);
	for (size_t i = 0; i < d->n_keepers; i++)
		gpd_keeper_stop(d->keepers[i]);
	d->n_keepers = 0;
	for (size_t i = 0; i < d->registry.n_devices; i++)
		gpd_device_close(d->registry.devices[i]);
	d->registry.n_devices = 0;
	if (d->signals_installed) {
		uv_close((uv_handle_t *)&d->sigint, NULL);
		uv_close((uv_handle_t *)&d->sigterm, NULL);
		uv_close((uv_handle_t *)&d->sighup, NULL);
		d->signals_installed = false;
	}
}

void gpd_daemon_fini(struct gpd_daemon *d)
{
	free(d->keepers);
	d->keepers = NULL;
	free(d->registry.devices);
	d->registry.devices = NULL;
	free_db(d->metrics);
	d->metrics = NULL;
	for (size_t i = 0; i < d->n_retired; i++)
		free_db(d->retired[i]);
	free(d->retired);
	d->retired = NULL;
	d->n_retired = 0;
	gpd_reload_fini(d);
	gpd_process_activity_destroy(d->registry.activity);
	d->registry.activity = NULL;
}

struct gpd_device *gpd_daemon_find_device(struct gpd_daemon *d,
					  const char *name)
{
	return gpd_device_registry_find(&d->registry, name);
}
