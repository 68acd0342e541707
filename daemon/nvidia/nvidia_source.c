/*
 * The nvidia source (see nvidia_source.h): a device of the daemon backed by
 * one NVIDIA GPU.
 *
 * open() plans the metric set's raw counters and starts the sampler
 * thread, which answers whether the session runs before open() returns:
 * a GPU whose PM sampling another profiler holds is refused here, with
 * the same busy-elsewhere words an Intel OA unit's EBUSY gets. Records
 * come back to the loop through an async handle.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/error.h"
#include "daemon/log.h"
#include "daemon/nvidia/counter_plan.h"
#include "daemon/nvidia/gpu_info.h"
#include "daemon/nvidia/nvidia_source.h"
#include "daemon/nvidia/nvidia_usage.h"
#include "metrics/nvidia_builtin.h"

#define DEFAULT_RETRY_MS 1000

struct nvidia_source {
	struct gpd_source base;
	struct gpd_nv_libs own_libs;    /* when none were given */
	const struct gpd_nv_libs *libs;
	struct gpd_nv_gpu gpu;
	unsigned index;
	uint64_t retry_ms;
	uv_async_t wake;
	struct gpd_nv_sampler *sampler; /* NULL while closed */
	unsigned char *records;         /* swapped with the sampler's */
	size_t records_cap;
	struct gpd_nv_sampler_stats stats;
};

static void on_wake(uv_async_t *handle)
{
	struct nvidia_source *ns = handle->data;
	struct gpd_nv_notice notices[GPD_NV_MAX_NOTICES];
	unsigned n_notices;
	size_t len;

	if (!ns->sampler)
		return;
	gpd_nv_sampler_take(ns->sampler, &ns->records, &len, &ns->records_cap,
			    notices, &n_notices, &ns->stats);
	if (len)
		ns->base.listener.records(ns->base.listener.user, ns->records,
					  len);
	for (unsigned i = 0; i < n_notices && ns->sampler; i++) {
		if (notices[i].is_event)
			ns->base.listener.event(ns->base.listener.user,
						notices[i].kind,
						notices[i].message);
		else
			gpd_warn("%s", notices[i].message);
	}
}

/* Why a session did not start, in words that say what to do. */
static int open_error(struct nvidia_source *ns, int code, const char *why,
		      struct gpd_error *err)
{
	const char *name = ns->base.name;
	switch (code) {
	case -EBUSY:
		return gpd_fail(err, code, "%s: PM sampling is busy elsewhere: "
			    "another profiler (a second gpuperfd, Nsight "
			    "Compute, DCGM) holds this GPU's counters; stop it, "
			    "or use the Telemetry set, which works alongside "
			    "(%s)", name, why);
	case -EACCES:
		return gpd_fail(err, code, "%s: the driver restricts GPU profiling "
			    "to administrators; run gpuperfd as root or load "
			    "nvidia with NVreg_RestrictProfilingToAdminUsers=0 "
			    "(%s)", name, why);
	case -ENOENT:
		return gpd_fail(err, code, "%s: %s", name, why);
	default:
		return gpd_fail(err, code, "%s: sampling could not start: %s", name,
			    why);
	}
}

static int nvidia_open(struct gpd_source *src,
		       const struct gpd_stream_config *cfg,
		       struct gpd_error *err)
{
	struct nvidia_source *ns = (struct nvidia_source *)src;
	struct gpd_nv_sampler_config sc = {
		.libs = ns->libs,
		.device_index = ns->index,
		.pci_bus_id = ns->gpu.pci_bus_id,
		.timestamp_frequency = src->info.timestamp_frequency,
		.name = src->name,
		.retry_ns = ns->retry_ms * 1000000ull,
	};
	char why[256];

	uint64_t interval = gpd_exponent_to_ns(&src->info, cfg->exponent);
	int ret = gpd_nv_plan_make(cfg->set, interval, &sc.plan, err);
	if (ret)
		return ret;
	if (sc.plan.kind == GPD_NV_PLAN_PM && !ns->libs->have_cupti)
		return gpd_fail(err, -ENOENT, "%s: %s", src->name,
			    ns->libs->why_no_cupti);

	struct gpd_nv_sampler *sampler = calloc(1, sizeof(*sampler));
	if (!sampler)
		return gpd_fail(err, -ENOMEM, "out of memory");
	memset(&ns->stats, 0, sizeof(ns->stats));
	ret = gpd_nv_sampler_start(sampler, &sc, &ns->wake, why, sizeof(why));
	if (ret) {
		free(sampler);
		return open_error(ns, ret, why, err);
	}
	ns->sampler = sampler;
	return 0;
}

/* What a PM sampling stream cost the sampler, for whoever sizes the
 * schedule: how long CUPTI's decodes and the evaluation took, and how far
 * apart the decodes came; and what it lost, counted as the clients were
 * told it: every BUFFER_LOST their frames carried, and why each came. */
static void log_decoding(const struct nvidia_source *ns,
			 const struct gpd_nv_sampler_stats *st)
{
	const struct gpd_nv_pm_stats *pm = &st->pm;
	const struct gpd_nv_report_stats *r = &st->reports;
	if (!pm->decodes)
		return;
	gpd_info("%s: %llu samples in %llu sessions; %llu BUFFER_LOST (%llu "
		 "overflows of the GPU's buffer, %llu other session failures, "
		 "%llu gaps in the samples missing %.1f ms, %llu batches "
		 "dropped behind the loop), %llu samples out of order dropped; "
		 "%llu decodes of %.2f ms on average (%.2f ms of CPU), %.1f ms "
		 "at most; emptying images copied %.1f MB; "
		 "evaluating an image took %.1f ms at most, and a full image "
		 "waited for it %llu times; at most %.1f ms from one "
		 "decode to the next, and %llu samples in one", ns->base.name,
		 (unsigned long long)r->reports,
		 (unsigned long long)st->sessions,
		 (unsigned long long)r->losses,
		 (unsigned long long)st->overflows,
		 (unsigned long long)st->failures,
		 (unsigned long long)r->gaps, (double)r->gap_ns / 1e6,
		 (unsigned long long)st->dropped_batches,
		 (unsigned long long)r->out_of_order,
		 (unsigned long long)pm->decodes,
		 (double)pm->decode_ns / (double)pm->decodes / 1e6,
		 (double)pm->decode_cpu_ns / (double)pm->decodes / 1e6,
		 (double)pm->decode_ns_max / 1e6,
		 (double)pm->reset_bytes / 1e6,
		 (double)pm->evaluate_ns_max / 1e6,
		 (unsigned long long)st->evaluation_waits,
		 (double)pm->apart_ns_max / 1e6,
		 (unsigned long long)pm->samples_max);
}

static void nvidia_close(struct gpd_source *src)
{
	struct nvidia_source *ns = (struct nvidia_source *)src;
	if (!ns->sampler)
		return;
	gpd_nv_sampler_stop(ns->sampler);
	ns->stats = ns->sampler->stats;
	log_decoding(ns, &ns->stats);
	free(ns->sampler);
	ns->sampler = NULL;
}

static void on_wake_closed(uv_handle_t *handle)
{
	struct nvidia_source *ns = handle->data;
	if (ns->libs == &ns->own_libs)
		gpd_nv_libs_unload(&ns->own_libs);
	free(ns->records);
	free(ns);
}

static void nvidia_destroy(struct gpd_source *src)
{
	struct nvidia_source *ns = (struct nvidia_source *)src;
	nvidia_close(src);
	uv_close((uv_handle_t *)&ns->wake, on_wake_closed);
}

static const struct gpd_source_ops nvidia_ops = {
	.open = nvidia_open,
	.close = nvidia_close,
	.destroy = nvidia_destroy,
};

int gpd_nvidia_source_usage(const struct gpd_source *src, const char *proc_root,
			    const struct gpd_process_activity *activity,
			    struct gpd_usage_source **out)
{
	const struct nvidia_source *ns = (const struct nvidia_source *)src;
	return gpd_nvidia_usage_create(ns->libs, ns->gpu.pci_bus_id, proc_root,
				       activity, out);
}

bool gpd_nvidia_source_stats(const struct gpd_source *src,
			     struct gpd_nv_sampler_stats *stats)
{
	const struct nvidia_source *ns = (const struct nvidia_source *)src;
	*stats = ns->stats;
	return ns->sampler != NULL;
}

static int add_definitions(struct gpm_metrics_db *db,
			   const struct gpm_platform *platform,
			   struct gpd_error *err)
{
	if (gpm_metrics_db_find_platform(db, platform->name))
		return 0;
	if (strcmp(platform->name, GPM_NVIDIA_METRICS_PLATFORM))
		return gpd_fail(err, -ENOENT, "no metric definitions for %s are "
			    "loaded; add --metrics-dir DIR where DIR holds "
			    "oa-%s.xml", platform->name, platform->name);
	int ret = gpm_metrics_db_add_buffer(db, "<built-in>/"
					    GPM_NVIDIA_METRICS_NAME,
					    gpm_nvidia_metrics_xml,
					    gpm_nvidia_metrics_xml_size());
	return ret ? gpd_fail(err, ret, "out of memory") : 0;
}

/* Loads the real libraries into own unless libs are given; cuInit. */
static int init_driver(const struct gpd_nv_libs **libs,
		       struct gpd_nv_libs *own, char *why, size_t size)
{
	if (!*libs) {
		gpd_nv_libs_load(own, NULL);
		*libs = own;
	}
	if (!(*libs)->have_cupti) {
		snprintf(why, size, "%s", (*libs)->why_no_cupti);
		return -ENOENT;
	}
	gpd_cu_result r = (*libs)->cuda.init(0);
	if (r) {
		snprintf(why, size, "cuInit: %s (CUDA error %d); check that the "
			 "NVIDIA driver works (nvidia-smi)",
			 gpd_nv_cuda_error(*libs, r), r);
		return -ENODEV;
	}
	return 0;
}

unsigned gpd_nvidia_count_gpus(const struct gpd_nv_libs *libs, char *why,
			       size_t why_size)
{
	struct gpd_nv_libs own;
	int count = 0;

	memset(&own, 0, sizeof(own));
	why[0] = '\0';
	if (!init_driver(&libs, &own, why, why_size) &&
	    libs->cuda.device_get_count(&count))
		count = 0;
	if (libs == &own)
		gpd_nv_libs_unload(&own);
	return count > 0 ? (unsigned)count : 0;
}

int gpd_nvidia_source_create(uv_loop_t *loop, struct gpm_metrics_db *db,
			     const struct gpd_nvidia_source_options *opts,
			     struct gpd_source **out, struct gpd_error *err)
{
	struct nvidia_source *ns = calloc(1, sizeof(*ns));
	char why[GPD_NV_LIBS_WHY];
	if (!ns)
		return gpd_fail(err, -ENOMEM, "out of memory");
	ns->libs = opts->libs;
	ns->index = opts->index;
	ns->retry_ms = opts->retry_ms ? opts->retry_ms : DEFAULT_RETRY_MS;
	snprintf(ns->base.name, sizeof(ns->base.name), "nvidia%u", opts->index);

	int ret = init_driver(&ns->libs, &ns->own_libs, why, sizeof(why));
	if (!ret)
		ret = gpd_nv_gpu_describe(ns->libs, ns->index, "/sys", &ns->gpu,
					  why, sizeof(why));
	if (ret) {
		gpd_fail(err, ret, "nvidia:%u: %s", opts->index, why);
		goto err;
	}
	const struct gpm_platform *platform = gpm_platform_by_name(ns->gpu.chip);
	if (!platform || strcmp(platform->oa_format, "NVPM32u64")) {
		ret = gpd_fail(err, -ENOENT, "nvidia:%u is a %s (%s); gpuperfd has "
			   "metric definitions for GH100 (H100, H200) only",
			   opts->index, ns->gpu.name, ns->gpu.chip);
		goto err;
	}
	if ((ret = add_definitions(db, platform, err)))
		goto err;
	const struct gpm_oa_format *format;
	gpm_oa_format_get(GPM_OA_FORMAT_NVPM32u64, &format);

	ns->base.ops = &nvidia_ops;
	ns->base.kind = GPD_SOURCE_NVIDIA;
	ns->base.platform = platform;
	ns->base.format = format;
	ns->base.loop = loop;
	gpd_nv_gpu_device_info(&ns->gpu, platform, &ns->base.info);
	snprintf(ns->base.device_id, sizeof(ns->base.device_id), "%s", ns->gpu.uuid);
	snprintf(ns->base.model, sizeof(ns->base.model), "%s", ns->gpu.name);
	uv_async_init(loop, &ns->wake, on_wake);
	ns->wake.data = ns;
	gpd_info("nvidia:%u: %s, %s, PCI %s, %d SMs", opts->index, ns->gpu.name,
		 ns->gpu.chip, ns->gpu.pci_bus_id, ns->gpu.sm_count);
	*out = &ns->base;
	return 0;
err:
	if (ns->libs == &ns->own_libs)
		gpd_nv_libs_unload(&ns->own_libs);
	free(ns);
	return ret;
}
