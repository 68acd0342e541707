/*
 * Kernel refusals into words (docs/oa-reference.md §1.4, §5).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/error.h"
#include "daemon/drm/kernel_files.h"
#include "daemon/drm/oa_refusal.h"
#include "daemon/source.h"

/* The kernel-internal "not supported" (ENOTSUPP) that i915 lets escape
 * when the perf interface is absent. */
#define KERNEL_ENOTSUPP 524

static bool is_i915(const struct gpd_oa_request *req)
{
	return req->kind == GPD_SOURCE_I915;
}

static const char *paranoid_sysctl(const struct gpd_oa_request *req)
{
	return is_i915(req) ? "dev.i915.perf_stream_paranoid"
			    : "dev.xe.observation_paranoid";
}

static const char *open_ioctl(const struct gpd_oa_request *req)
{
	return is_i915(req) ? "DRM_IOCTL_I915_PERF_OPEN"
			    : "DRM_IOCTL_XE_OBSERVATION (stream open)";
}

static uint64_t rate_hz(const struct gpd_oa_request *req, unsigned exponent)
{
	uint64_t ns = gpd_exponent_to_ns(req->info, exponent);
	return ns ? 1000000000ull / ns : 0;
}

/* i915 gates sampling faster than oa_max_sample_rate separately from the
 * paranoid sysctl; both answer EACCES. */
static int refuse_access(const struct gpd_oa_request *req, int code,
			 struct gpd_error *err)
{
	uint64_t max_rate;
	if (is_i915(req) &&
	    !gpd_sysctl_read_u64("dev.i915.oa_max_sample_rate", &max_rate) &&
	    rate_hz(req, req->exponent) > max_rate) {
		unsigned e = req->exponent;
		while (e < 31 && rate_hz(req, e) > max_rate)
			e++;
		return gpd_fail(err, code,
				    "%s refused sampling every %llu ns (%llu Hz): "
				    "above dev.i915.oa_max_sample_rate = %llu Hz, "
				    "which needs CAP_PERFMON; sample every %llu ns "
				    "or slower, raise that sysctl, or give gpuperfd "
				    "CAP_PERFMON", req->card,
				    (unsigned long long)gpd_exponent_to_ns(req->info,
				    req->exponent),
				    (unsigned long long)rate_hz(req, req->exponent),
				    (unsigned long long)max_rate,
				    (unsigned long long)gpd_exponent_to_ns(req->info, e));
	}
	/* With the sysctl at 0 neither kernel asks anything more: i915 never
	 * consults kernel.perf_event_paranoid, and xe's
	 * xe_observation_paranoid_check() lets everyone through (it asks
	 * perf_allow_cpu() only while its own sysctl is 1, on kernels after
	 * 7.0). So a refusal at 0 is a sysctl that was 1 a moment ago. */
	uint64_t paranoid;
	if (!gpd_sysctl_read_u64(paranoid_sysctl(req), &paranoid) && !paranoid)
		return gpd_fail(err, code,
				    "%s refused the OA stream (EACCES) while %s "
				    "was 1; it reads 0 now: subscribe again",
				    req->card, paranoid_sysctl(req));
	return gpd_fail(err, code,
			    "%s refused a system-wide OA stream: %s is 1 and "
			    "gpuperfd lacks CAP_PERFMON; give it CAP_PERFMON "
			    "(systemd: AmbientCapabilities=CAP_PERFMON) or run "
			    "'sysctl %s=0'", req->card, paranoid_sysctl(req),
			    paranoid_sysctl(req));
}

static int refuse_parameters(const struct gpd_oa_request *req, int code,
			     struct gpd_error *err)
{
	char name[64];
	uint64_t id;
	snprintf(name, sizeof(name), "metrics/%s/id", req->set->hw_config_guid);
	if (gpd_kernel_file_read_u64(req->card_dir, name, &id) || id != req->set_id)
		return gpd_fail(err, code,
				    "%s rejected metric set %s (id %llu): another "
				    "process removed it from the kernel while the "
				    "stream opened; subscribe again", req->card,
				    req->set->symbol_name,
				    (unsigned long long)req->set_id);
	if (req->exponent > 31)
		return gpd_fail(err, code,
				    "%s rejected sampling exponent %u: the kernel "
				    "takes 0 to 31; ask for a period of at most "
				    "%llu ns", req->card, req->exponent,
				    (unsigned long long)gpd_exponent_to_ns(req->info, 31));
	/* xe_oa_assign_hwe(): the queue's engine is not one of the OA
	 * unit's (xe_oa_stream_open_ioctl() looked the queue up first). */
	if (req->ctx_filter && !is_i915(req))
		return gpd_fail(err, code,
				    "%s rejected the stream of exec queue %u "
				    "(EINVAL): its engine is not one the OA unit "
				    "samples; pass a queue of the render or compute "
				    "engine", req->card, req->ctx_handle);
	if (req->ctx_filter)
		return gpd_fail(err, code,
				    "%s rejected the stream of %s %u (EINVAL): "
				    "older kernels answer so for a context the "
				    "DRM file passed does not own (newer ones say "
				    "ENOENT); pass the fd on which the application "
				    "created it, with the handle create returned",
				    req->card, "GEM context", req->ctx_handle);
	return gpd_fail(err, code,
			    "%s rejected the stream parameters (EINVAL): OA format "
			    "%s (0x%x), metric set %s (id %llu), exponent %u; its "
			    "kernel does not take that format or set, so the "
			    "metric files do not fit it", req->card,
			    req->format->name, req->format_property,
			    req->set->symbol_name, (unsigned long long)req->set_id,
			    req->exponent);
}

int gpd_oa_refusal_open(const struct gpd_oa_request *req, int code,
			struct gpd_error *err)
{
	switch (-code) {
	case EBUSY:
		return gpd_fail(err, code,
				    "the OA unit of %s is in use by another "
				    "process (gputop, IGT's perf tools, Intel GPA, "
				    "another gpuperfd); 'fuser -v %s' shows who "
				    "holds the card: %s", req->card, req->node,
				    req->reopening ? "once it lets go, the stream "
				    "resumes by itself" : "stop it, then subscribe "
				    "again");
	case EACCES:
		return refuse_access(req, code, err);
	case EINVAL:
		return refuse_parameters(req, code, err);
	case ENOENT:
		/* i915_gem_context_lookup(), xe_exec_queue_lookup(): the
		 * handle is looked up in the DRM file the ioctl came on. */
		return gpd_fail(err, code,
				    "%s: the DRM file passed owns no %s %u (ENOENT): "
				    "%s belong to the file that created them; pass "
				    "the fd on which the application created it, "
				    "with the handle that create returned",
				    req->card, is_i915(req) ? "GEM context"
				    : "exec queue", req->ctx_handle,
				    is_i915(req) ? "contexts" : "exec queues");
	case ENODEV:
		/* oa_pin_context(): the context has no engine of the OA
		 * unit's (a context made with an engine map without it). */
		if (req->ctx_filter)
			return gpd_fail(err, code,
					    "%s cannot sample GEM context %u (ENODEV): "
					    "its engines do not include the %s engine "
					    "the OA unit samples; filter on a context "
					    "that runs there", req->card,
					    req->ctx_handle, req->media ? "video"
					    : "render");
		/* fall through */
	case EOPNOTSUPP:
		/* xe_oa_stream_open_ioctl(): a parallel queue (width > 1). */
		if (req->ctx_filter && !is_i915(req) && -code == EOPNOTSUPP)
			return gpd_fail(err, code,
					    "%s cannot sample exec queue %u "
					    "(EOPNOTSUPP): it is a parallel queue, "
					    "whose batches run on several engines "
					    "at once; pass a queue of width 1",
					    req->card, req->ctx_handle);
		/* fall through */
	case KERNEL_ENOTSUPP:
		return gpd_fail(err, code,
				    "%s's kernel has no OA stream support (%s): %s",
				    req->card,
				    strerror(-code == KERNEL_ENOTSUPP ? EOPNOTSUPP
				    : -code),
				    is_i915(req) ? "i915 perf needs a GPU with an "
				    "OA unit"
				    : "xe OA needs graphics 12 or "
				    "later, GuC submission and "
				    "no SR-IOV virtual function");
	default:
		return gpd_fail(err, code, "%s: %s failed: %s", req->card,
				    open_ioctl(req), strerror(-code));
	}
}

int gpd_oa_refusal_add_config(const struct gpd_oa_request *req, int code,
			      struct gpd_error *err)
{
	switch (-code) {
	case EACCES:
		return gpd_fail(err, code,
				    "%s lacks metric set %s and registering it "
				    "needs CAP_PERFMON while %s is 1: give gpuperfd "
				    "CAP_PERFMON or run 'sysctl %s=0'", req->card,
				    req->set->symbol_name, paranoid_sysctl(req),
				    paranoid_sysctl(req));
	case EINVAL:
		return gpd_fail(err, code,
				    "%s rejected the registers of metric set %s "
				    "(%s): one this kernel does not allow on the "
				    "GPU, so the metric files are for another "
				    "platform", req->card, req->set->symbol_name,
				    req->set->hw_config_guid);
	default:
		return gpd_fail(err, code,
				    "%s: registering metric set %s failed: %s",
				    req->card, req->set->symbol_name,
				    strerror(-code));
	}
}
