/*
 * The daemon context: metric definitions, devices, signals, shutdown.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/daemon.h"
#include "daemon/drm/discovery.h"
#include "daemon/log.h"
#include "daemon/net/server.h"
#include "daemon/nvidia/nvidia_source.h"
#include "daemon/replay/replay_source.h"
#include "daemon/sim/sim_source.h"
#include "metrics/metrics_db.h"

static int fail(struct gpd_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct gpd_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err->code = code;
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return code;
}

static int load_metrics(struct gpd_daemon *d, struct gpd_error *err)
{
	d->metrics = calloc(1, sizeof(*d->metrics));
	if (!d->metrics)
		return fail(err, -ENOMEM, "out of memory");
	gpm_metrics_db_init(d->metrics);
	for (size_t i = 0; i < d->options.n_metrics_dirs; i++) {
		const char *dir = d->options.metrics_dirs[i];
		int ret = gpm_metrics_db_add_dir(d->metrics, dir);
		if (ret < 0)
			return fail(err, ret, "--metrics-dir %s: %s", dir,
				    strerror(-ret));
		if (ret == 0)
			gpd_warn("--metrics-dir %s holds no oa-*.xml files", dir);
	}
	/* The sim GPU's own definitions are always there, after the
	 * directories, so `--device sim` works whatever else is loaded. */
	int ret = gpm_metrics_db_add_builtin(d->metrics);
	if (ret)
		return fail(err, ret, "loading the built-in metric definitions: %s",
			    strerror(-ret));
	for (size_t i = 0; i < d->metrics->diagnostics.count; i++) {
		const struct gpm_diagnostic *diag = &d->metrics->diagnostics.items[i];
		gpd_warn("%s:%u: %s", diag->file, diag->line, diag->message);
	}
	gpd_info("metric definitions: %zu files, %zu sets",
		 d->metrics->n_files, gpm_metrics_db_count_sets(d->metrics));
	return 0;
}

static int add_device(struct gpd_daemon *d, struct gpd_source *source,
		      struct gpd_error *err)
{
	const struct gpm_metrics_file *file =
		gpm_metrics_db_find_platform(d->metrics, source->platform->name);
	if (!file) {
		source->ops->destroy(source);
		return fail(err, -ENOENT, "no metric definitions for %s",
			    source->platform->name);
	}
	struct gpd_device *dev = malloc(sizeof(*dev));
	struct gpd_device **devices = realloc(d->devices,
					      (d->n_devices + 1) * sizeof(*devices));
	if (devices)
		d->devices = devices;
	if (!dev || !devices) {
		free(dev);
		source->ops->destroy(source);
		return fail(err, -ENOMEM, "out of memory");
	}
	int ret = gpd_device_init(dev, d, source, file, d->options.linger_ms);
	if (ret) {
		free(dev);
		source->ops->destroy(source);
		return fail(err, ret, "%s: cannot decode its reports (%s)",
			    source->name, strerror(-ret));
	}
	d->devices[d->n_devices++] = dev;
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
	};
}

/* auto: a device for every Intel GPU that i915 or xe drives. */
static int add_discovered(struct gpd_daemon *d, bool *found,
			  struct gpd_error *err)
{
	struct gpd_drm_roots roots = drm_roots(d);
	struct gpd_source **sources;
	size_t n;
	int ret = gpd_drm_discover(d->loop, &roots, &sources, &n);
	if (ret)
		return fail(err, ret, "looking for GPUs: %s", strerror(-ret));
	*found = n > 0;
	for (size_t i = 0; i < n; i++) {
		if (!ret)
			ret = add_device(d, sources[i], err);
		else
			sources[i]->ops->destroy(sources[i]);
	}
	free(sources);
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
		int ret = add_device(d, source, err);
		if (ret)
			return ret;
		*found = true;
	}
	return 0;
}

static int create_device(struct gpd_daemon *d, const char *text,
			 unsigned index, struct gpd_error *err)
{
	struct gpd_device_spec spec;
	const char *why;
	int ret = gpd_device_spec_parse(text, &spec, &why);
	if (ret)
		return fail(err, ret, "--device %s: %s", text,
			    why ? why : strerror(-ret));
	struct gpd_source *source = NULL;
	switch (spec.kind) {
	case GPD_SOURCE_AUTO: {
		bool found = false;
		ret = add_discovered(d, &found, err);
		if (!ret)
			ret = add_nvidia_gpus(d, &found, err);
		if (ret || found) {
			gpd_device_spec_fini(&spec);
			return ret;
		}
		gpd_info("no Intel or NVIDIA GPU found; using sim");
	}
		/* fallthrough */
	case GPD_SOURCE_SIM: {
		struct gpd_sim_source_options so = {
			.platform = spec.platform,
			.seed = d->options.seed,
			.buffer_size = d->options.sim_buffer_size,
			.index = index,
		};
		ret = gpd_sim_source_create(d->loop, d->metrics, &so, &source, err);
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
		ret = gpd_drm_source_create(d->loop, spec.kind, spec.path, &roots,
					    &source, err);
		break;
	}
	case GPD_SOURCE_NVIDIA: {
		struct gpd_nvidia_source_options no = {
			.index = spec.index,
			.libs = d->options.nvidia_libs,
		};
		ret = gpd_nvidia_source_create(d->loop, d->metrics, &no, &source,
					       err);
		break;
	}
	}
	gpd_device_spec_fini(&spec);
	if (ret)
		return ret;
	return add_device(d, source, err);
}

int gpd_daemon_init(struct gpd_daemon *d, uv_loop_t *loop,
		    const struct gpd_options *options, struct gpd_error *err)
{
	memset(d, 0, sizeof(*d));
	d->loop = loop;
	d->options = *options;
	int ret = load_metrics(d, err);
	if (ret)
		return ret;
	if (!options->n_device_specs)
		return create_device(d, "auto", 0, err);
	for (size_t i = 0; i < options->n_device_specs; i++) {
		ret = create_device(d, options->device_specs[i], (unsigned)i, err);
		if (ret)
			return ret;
	}
	return 0;
}

static void on_signal(uv_signal_t *handle, int signum)
{
	struct gpd_daemon *d = handle->data;
	gpd_info("%s: shutting down", signum == SIGINT ? "SIGINT" : "SIGTERM");
	gpd_daemon_stop(d);
}

int gpd_daemon_handle_signals(struct gpd_daemon *d)
{
	uv_signal_init(d->loop, &d->sigint);
	uv_signal_init(d->loop, &d->sigterm);
	d->sigint.data = d;
	d->sigterm.data = d;
	int ret = uv_signal_start(&d->sigint, on_signal, SIGINT);
	if (!ret)
		ret = uv_signal_start(&d->sigterm, on_signal, SIGTERM);
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
	for (size_t i = 0; i < d->n_devices; i++)
		gpd_device_close(d->devices[i]);
	d->n_devices = 0;
	if (d->signals_installed) {
		uv_close((uv_handle_t *)&d->sigint, NULL);
		uv_close((uv_handle_t *)&d->sigterm, NULL);
		d->signals_installed = false;
	}
}

void gpd_daemon_fini(struct gpd_daemon *d)
{
	free(d->devices);
	d->devices = NULL;
	if (d->metrics) {
		gpm_metrics_db_fini(d->metrics);
		free(d->metrics);
		d->metrics = NULL;
	}
}

struct gpd_device *gpd_daemon_find_device(struct gpd_daemon *d,
					  const char *name)
{
	if (!d->n_devices)
		return NULL;
	if (!name || !*name)
		return d->devices[0];
	for (size_t i = 0; i < d->n_devices; i++)
		if (!strcmp(d->devices[i]->source->name, name))
			return d->devices[i];
	return NULL;
}
