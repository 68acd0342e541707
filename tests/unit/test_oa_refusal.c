/*
 * The words a user reads when the kernel refuses an OA stream or a metric
 * set, one case per errno the kernels answer (the fake kernel's
 * card_i915.c and card_xe.c follow i915_perf_open_ioctl_locked(),
 * read_properties_unlocked(), oa_pin_context(), i915_perf_add_config_ioctl()
 * of Linux 6.12 and xe_oa_stream_open_ioctl(), xe_oa_add_config_ioctl() of
 * 7.0), with the sysctls read from the fake kernel's machine: which sysctl
 * to change, which rate to ask for, which handle to pass.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon/drm/kernel_files.h"
#include "daemon/drm/oa_refusal.h"
#include "daemon/source.h"
#include "tests/unit/fake_machine.h"
#include "tests/unit/test_util.h"

#define GUID "4a5b6c7d-0000-4000-8000-000000000001"

struct refusal_fixture {
	struct fake_machine m;
	char card_dir[128];
	struct gpm_device_info info;
	struct gpm_metric_set set;
	struct gpm_oa_format format;
	struct gpd_oa_request req;
	struct gpd_error err;
};

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

/* The machine's sysctl dev/<driver>/<name> now holds value. */
static void set_sysctl(struct refusal_fixture *fx, const char *name,
		       const char *value)
{
	char dir[160];
	snprintf(dir, sizeof(dir), "%s/proc/sys", fx->m.root);
	write_file(dir, name, value);
}

/* An i915 request for RenderBasic (id 7) at exponent 10 on a 19.2 MHz OA
 * clock, registered in the kernel under its GUID. */
static void fixture_start(struct refusal_fixture *fx, enum gpd_source_kind kind)
{
	memset(fx, 0, sizeof(*fx));
	fake_machine_start(&fx->m, kind == GPD_SOURCE_I915 ? "i915:tglgt2"
			   : "xe:lnl", "", "");
	uint64_t value;
	/* The first request builds the machine, with its default sysctls. */
	ck_assert_int_eq(gpd_sysctl_read_u64("kernel.perf_event_paranoid",
					     &value), 0);
	snprintf(fx->card_dir, sizeof(fx->card_dir), "%s/card", fx->m.dir);
	char metrics[160];
	snprintf(metrics, sizeof(metrics), "%s/metrics", fx->card_dir);
	ck_assert_int_eq(mkdir(fx->card_dir, 0755), 0);
	ck_assert_int_eq(mkdir(metrics, 0755), 0);
	strcat(metrics, "/" GUID);
	ck_assert_int_eq(mkdir(metrics, 0755), 0);
	write_file(metrics, "id", "7\n");
	fx->info.timestamp_frequency = 19200000;
	fx->set.symbol_name = "RenderBasic";
	fx->set.hw_config_guid = GUID;
	fx->format.name = "A32u40_A4u32_B8_C8";
	fx->req = (struct gpd_oa_request){
		.kind = kind, .card = "card0", .node = "/dev/dri/card0",
		.card_dir = fx->card_dir, .info = &fx->info, .set = &fx->set,
		.set_id = 7, .format = &fx->format, .format_property = 5,
		.exponent = 10,
	};
}

static void fixture_stop(struct refusal_fixture *fx)
{
	fake_machine_stop(&fx->m);
}

/* gpd_oa_refusal_open() with code returns code and says words. */
static void check_open(struct refusal_fixture *fx, int code, const char *words)
{
	memset(&fx->err, 0, sizeof(fx->err));
	ck_assert_int_eq(gpd_oa_refusal_open(&fx->req, code, &fx->err), code);
	ck_assert_str_eq(fx->err.message, words);
}

static void check_add_config(struct refusal_fixture *fx, int code,
			     const char *words)
{
	memset(&fx->err, 0, sizeof(fx->err));
	ck_assert_int_eq(gpd_oa_refusal_add_config(&fx->req, code, &fx->err),
			 code);
	ck_assert_str_eq(fx->err.message, words);
}

/* EACCES has three causes on i915 (i915_perf_open_ioctl_locked(),
 * read_properties_unlocked()): a rate above oa_max_sample_rate, the
 * paranoid sysctl, or that sysctl turned 0 since. */
START_TEST(i915_eacces_names_the_rate_or_the_sysctl)
{
	struct refusal_fixture fx;
	fixture_start(&fx, GPD_SOURCE_I915);
	/* Exponent 5: 64 ticks, 3334 ns, 299940 Hz; the first exponent at
	 * or under 100000 Hz is 7 (13334 ns). */
	fx.req.exponent = 5;
	check_open(&fx, -EACCES, "card0 refused sampling every 3334 ns "
		   "(299940 Hz): above dev.i915.oa_max_sample_rate = 100000 Hz, "
		   "which needs CAP_PERFMON; sample every 13334 ns or slower, "
		   "raise that sysctl, or give gpuperfd CAP_PERFMON");
	set_sysctl(&fx, "dev/i915/oa_max_sample_rate", "400000\n");
	check_open(&fx, -EACCES, "card0 refused a system-wide OA stream: "
		   "dev.i915.perf_stream_paranoid is 1 and gpuperfd lacks "
		   "CAP_PERFMON; give it CAP_PERFMON (systemd: "
		   "AmbientCapabilities=CAP_PERFMON) or run "
		   "'sysctl dev.i915.perf_stream_paranoid=0'");
	set_sysctl(&fx, "dev/i915/perf_stream_paranoid", "0\n");
	check_open(&fx, -EACCES, "card0 refused the OA stream (EACCES) while "
		   "dev.i915.perf_stream_paranoid was 1; it reads 0 now: "
		   "subscribe again");
	fixture_stop(&fx);
}
END_TEST

/* xe has no rate limit; its sysctl is observation_paranoid
 * (xe_observation_paranoid_check()). */
START_TEST(xe_eacces_names_its_own_sysctl)
{
	struct refusal_fixture fx;
	fixture_start(&fx, GPD_SOURCE_XE);
	fx.req.exponent = 0;
	check_open(&fx, -EACCES, "card0 refused a system-wide OA stream: "
		   "dev.xe.observation_paranoid is 1 and gpuperfd lacks "
		   "CAP_PERFMON; give it CAP_PERFMON (systemd: "
		   "AmbientCapabilities=CAP_PERFMON) or run "
		   "'sysctl dev.xe.observation_paranoid=0'");
	set_sysctl(&fx, "dev/xe/observation_paranoid", "0\n");
	check_open(&fx, -EACCES, "card0 refused the OA stream (EACCES) while "
		   "dev.xe.observation_paranoid was 1; it reads 0 now: "
		   "subscribe again");
	check_add_config(&fx, -EACCES, "card0 lacks metric set RenderBasic and "
			 "registering it needs CAP_PERFMON while "
			 "dev.xe.observation_paranoid is 1: give gpuperfd "
			 "CAP_PERFMON or run 'sysctl dev.xe.observation_paranoid=0'");
	fixture_stop(&fx);
}
END_TEST

/* EINVAL: the set gone from the kernel, an exponent over 31, another
 * file's context on older kernels, else the format or set. */
START_TEST(einval_says_which_parameter)
{
	struct refusal_fixture fx;
	fixture_start(&fx, GPD_SOURCE_I915);
	check_open(&fx, -EINVAL, "card0 rejected the stream parameters (EINVAL): "
		   "OA format A32u40_A4u32_B8_C8 (0x5), metric set RenderBasic "
		   "(id 7), exponent 10; its kernel does not take that format "
		   "or set, so the metric files do not fit it");
	fx.req.ctx_filter = true;
	fx.req.ctx_handle = 3;
	check_open(&fx, -EINVAL, "card0 rejected the stream of GEM context 3 "
		   "(EINVAL): older kernels answer so for a context the DRM file "
		   "passed does not own (newer ones say ENOENT); pass the fd on "
		   "which the application created it, with the handle create "
		   "returned");
	/* xe looks a queue up and answers ENOENT for another file's; its
	 * EINVAL is for a queue on an engine the OA unit does not sample. */
	fx.req.kind = GPD_SOURCE_XE;
	check_open(&fx, -EINVAL, "card0 rejected the stream of exec queue 3 "
		   "(EINVAL): its engine is not one the OA unit samples; pass a "
		   "queue of the render or compute engine");
	/* 2^32 ticks of 19.2 MHz: 223696213333.3 ns. */
	fx.req.exponent = 32;
	check_open(&fx, -EINVAL, "card0 rejected sampling exponent 32: the "
		   "kernel takes 0 to 31; ask for a period of at most 223696213334 ns");
	/* Another process removed the set, then registered one as id 8. */
	char metrics[200];
	snprintf(metrics, sizeof(metrics), "%s/metrics/" GUID, fx.card_dir);
	write_file(metrics, "id", "8\n");
	const char *removed = "card0 rejected metric set RenderBasic (id 7): "
		"another process removed it from the kernel while the stream "
		"opened; subscribe again";
	check_open(&fx, -EINVAL, removed);
	char id[240];
	snprintf(id, sizeof(id), "%s/id", metrics);
	ck_assert_int_eq(unlink(id), 0);
	check_open(&fx, -EINVAL, removed);
	fixture_stop(&fx);
}
END_TEST

/* ENOENT: i915_gem_context_lookup(), xe_exec_queue_lookup(); ENODEV:
 * oa_pin_context() for a context, else no OA at all (i915's ENOTSUPP
 * from i915_perf_open_ioctl(), xe's ENODEV or EOPNOTSUPP). */
START_TEST(context_and_support_refusals_say_what_to_pass)
{
	struct refusal_fixture fx;
	fixture_start(&fx, GPD_SOURCE_I915);
	fx.req.ctx_filter = true;
	fx.req.ctx_handle = 4;
	check_open(&fx, -ENOENT, "card0: the DRM file passed owns no GEM "
		   "context 4 (ENOENT): contexts belong to the file that created "
		   "them; pass the fd on which the application created it, with "
		   "the handle that create returned");
	check_open(&fx, -ENODEV, "card0 cannot sample GEM context 4 (ENODEV): "
		   "its engines do not include the render engine the OA unit "
		   "samples; filter on a context that runs there");
	fx.req.media = true;
	check_open(&fx, -ENODEV, "card0 cannot sample GEM context 4 (ENODEV): "
		   "its engines do not include the video engine the OA unit "
		   "samples; filter on a context that runs there");
	fx.req.ctx_filter = false;
	check_open(&fx, -524, "card0's kernel has no OA stream support "
		   "(Operation not supported): i915 perf needs a GPU with an OA "
		   "unit");
	check_open(&fx, -EIO, "card0: DRM_IOCTL_I915_PERF_OPEN failed: "
		   "Input/output error");
	fx.req.kind = GPD_SOURCE_XE;
	fx.req.ctx_filter = true;
	check_open(&fx, -ENOENT, "card0: the DRM file passed owns no exec queue "
		   "4 (ENOENT): exec queues belong to the file that created "
		   "them; pass the fd on which the application created it, with "
		   "the handle that create returned");
	fx.req.ctx_filter = false;
#define XE_NONE(why) "card0's kernel has no OA stream support (" why "): " \
	"xe OA needs graphics 12 or later, GuC submission and no SR-IOV " \
	"virtual function"
	check_open(&fx, -ENODEV, XE_NONE("No such device"));
	check_open(&fx, -EOPNOTSUPP, XE_NONE("Operation not supported"));
#undef XE_NONE
	/* More than 16 properties: E2BIG (xe_oa_user_extensions()). */
	check_open(&fx, -E2BIG, "card0: DRM_IOCTL_XE_OBSERVATION (stream open) "
		   "failed: Argument list too long");
	fixture_stop(&fx);
}
END_TEST

START_TEST(ebusy_says_who_and_whether_to_subscribe_again)
{
	struct refusal_fixture fx;
	fixture_start(&fx, GPD_SOURCE_I915);
	check_open(&fx, -EBUSY, "the OA unit of card0 is in use by another "
		   "process (gputop, IGT's perf tools, Intel GPA, another "
		   "gpuperfd); 'fuser -v /dev/dri/card0' shows who holds the "
		   "card: stop it, then subscribe again");
	fx.req.reopening = true;
	check_open(&fx, -EBUSY, "the OA unit of card0 is in use by another "
		   "process (gputop, IGT's perf tools, Intel GPA, another "
		   "gpuperfd); 'fuser -v /dev/dri/card0' shows who holds the "
		   "card: once it lets go, the stream resumes by itself");
	fixture_stop(&fx);
}
END_TEST

/* i915_perf_add_config_ioctl(): the privilege (EACCES), a register not
 * allowed on the generation (EINVAL), a UUID already there (EADDRINUSE). */
START_TEST(add_config_refusals)
{
	struct refusal_fixture fx;
	fixture_start(&fx, GPD_SOURCE_I915);
	check_add_config(&fx, -EACCES, "card0 lacks metric set RenderBasic and "
			 "registering it needs CAP_PERFMON while "
			 "dev.i915.perf_stream_paranoid is 1: give gpuperfd "
			 "CAP_PERFMON or run 'sysctl dev.i915.perf_stream_paranoid=0'");
	check_add_config(&fx, -EINVAL, "card0 rejected the registers of metric "
			 "set RenderBasic (" GUID "): one this kernel does not "
			 "allow on the GPU, so the metric files are for another "
			 "platform");
	check_add_config(&fx, -EADDRINUSE, "card0: registering metric set "
			 "RenderBasic failed: Address already in use");
	fixture_stop(&fx);
}
END_TEST

static Suite *oa_refusal_suite(void)
{
	Suite *s = suite_create("oa_refusal");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, i915_eacces_names_the_rate_or_the_sysctl);
	tcase_add_test(tc, xe_eacces_names_its_own_sysctl);
	tcase_add_test(tc, einval_says_which_parameter);
	tcase_add_test(tc, context_and_support_refusals_say_what_to_pass);
	tcase_add_test(tc, ebusy_says_who_and_whether_to_subscribe_again);
	tcase_add_test(tc, add_config_refusals);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(oa_refusal_suite)
