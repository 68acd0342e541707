/*
 * The host readers of the usage sources (daemon/host/): PMU format and
 * event text into configs, perf read formats, DRM fdinfo text as i915
 * and xe print it, /proc/PID/stat.
 */
#include <errno.h>
#include <string.h>

#include "daemon/host/cgroup_pod.h"
#include "daemon/host/drm_fdinfo.h"
#include "daemon/host/perf_pmu.h"
#include "daemon/host/proc_scan.h"
#include "tests/unit/test_util.h"

static struct gpd_perf_pmu xe_pmu(void)
{
	struct gpd_perf_pmu pmu;
	memset(&pmu, 0, sizeof(pmu));
	/* xe_pmu.c's PMU_FORMAT_ATTRs. */
	ck_assert_int_eq(gpd_perf_parse_format("gt", "config:60-63\n",
					       &pmu.formats[0]), 0);
	ck_assert_int_eq(gpd_perf_parse_format("engine_class", "config:20-27\n",
					       &pmu.formats[1]), 0);
	ck_assert_int_eq(gpd_perf_parse_format("engine_instance",
					       "config:12-19\n", &pmu.formats[2]), 0);
	ck_assert_int_eq(gpd_perf_parse_format("event", "config:0-11\n",
					       &pmu.formats[3]), 0);
	pmu.n_formats = 4;
	return pmu;
}

START_TEST(test_formats)
{
	struct gpd_perf_format f;
	ck_assert_int_eq(gpd_perf_parse_format("bit", "config:7", &f), 0);
	ck_assert_uint_eq(f.lo, 7);
	ck_assert_uint_eq(f.hi, 7);
	ck_assert_int_eq(gpd_perf_parse_format("x", "config1:0-7", &f), -EINVAL);
	ck_assert_int_eq(gpd_perf_parse_format("x", "config:9-3", &f), -EINVAL);
	ck_assert_int_eq(gpd_perf_parse_format("x", "config:0-64", &f), -EINVAL);
}
END_TEST

START_TEST(test_event_configs)
{
	struct gpd_perf_pmu pmu = xe_pmu();
	uint64_t config;
	ck_assert_int_eq(gpd_perf_event_config(&pmu, "event=0x02\n",
					       "gt=1,engine_class=3,engine_instance=1",
					       &config), 0);
	ck_assert_uint_eq(config, 1ull << 60 | 3ull << 20 | 1ull << 12 | 2);
	/* i915's files give the whole config. */
	ck_assert_int_eq(gpd_perf_event_config(&pmu, "config=0x100003\n", NULL,
					       &config), 0);
	ck_assert_uint_eq(config, 0x100003);
	ck_assert_int_eq(gpd_perf_event_config(&pmu, "event=0x1000", NULL,
					       &config), -EINVAL);
	ck_assert_int_eq(gpd_perf_event_config(&pmu, "umask=1", NULL, &config),
			 -EINVAL);
	ck_assert_int_eq(gpd_perf_event_config(&pmu, "event", NULL, &config),
			 -EINVAL);
}
END_TEST

START_TEST(test_group_read)
{
	/* nr, time_enabled, time_running, then value and id per member. */
	uint64_t buf[] = { 3, 1000, 900, 11, 101, 22, 102, 33, 103 };
	struct gpd_perf_values v;
	uint64_t f = GPD_PERF_READ_FORMAT;
	ck_assert_int_eq(gpd_perf_parse_read(buf, sizeof(buf), f, &v), 0);
	ck_assert_uint_eq(v.n, 3);
	ck_assert_uint_eq(v.time_enabled, 1000);
	ck_assert_uint_eq(v.time_running, 900);
	ck_assert_uint_eq(v.value[2], 33);
	ck_assert_uint_eq(v.id[1], 102);
	ck_assert_int_eq(gpd_perf_parse_read(buf, sizeof(buf) - 8, f, &v), -EPROTO);
	ck_assert_int_eq(gpd_perf_parse_read(buf, 3, f, &v), -EPROTO);
	/* With PERF_FORMAT_LOST each member has a lost count too. */
	uint64_t lost[] = { 2, 1000, 5, 0, 6, 0 };
	ck_assert_int_eq(gpd_perf_parse_read(lost, sizeof(lost),
					     GPD_PERF_FORMAT_GROUP |
					     GPD_PERF_FORMAT_TOTAL_TIME_ENABLED |
					     GPD_PERF_FORMAT_LOST, &v), 0);
	ck_assert_uint_eq(v.value[1], 6);
	uint64_t big[] = { 65 };
	ck_assert_int_eq(gpd_perf_parse_read(big, sizeof(big), f, &v), -E2BIG);
}
END_TEST

START_TEST(test_single_read)
{
	/* value, time_enabled, id. */
	uint64_t buf[] = { 77, 500, 9 };
	struct gpd_perf_values v;
	ck_assert_int_eq(gpd_perf_parse_read(buf, sizeof(buf),
					     GPD_PERF_FORMAT_TOTAL_TIME_ENABLED |
					     GPD_PERF_FORMAT_ID, &v), 0);
	ck_assert_uint_eq(v.n, 1);
	ck_assert_uint_eq(v.value[0], 77);
	ck_assert_uint_eq(v.time_enabled, 500);
	ck_assert_uint_eq(v.id[0], 9);
}
END_TEST

START_TEST(test_fdinfo_i915)
{
	/* As i915_drm_client_fdinfo() and drm_show_memory_stats() print it. */
	static const char text[] =
		"pos:\t0\nflags:\t02100002\nmnt_id:\t26\nino:\t1047\n"
		"drm-driver:\ti915\ndrm-client-id:\t7\ndrm-pdev:\t0000:00:02.0\n"
		"drm-total-system0:\t4 MiB\ndrm-shared-system0:\t0\n"
		"drm-active-system0:\t0\ndrm-resident-system0:\t512 KiB\n"
		"drm-purgeable-system0:\t0\ndrm-total-stolen-system0:\t0\n"
		"drm-engine-render:\t9288864723 ns\ndrm-engine-copy:\t2035071108 ns\n"
		"drm-engine-video:\t0 ns\ndrm-engine-capacity-video:\t2\n"
		"drm-engine-video-enhance:\t0 ns\n";
	struct gpd_fdinfo f;
	gpd_fdinfo_parse(text, sizeof(text) - 1, &f);
	ck_assert_str_eq(f.driver, "i915");
	ck_assert_str_eq(f.pdev, "0000:00:02.0");
	ck_assert(f.has_client_id);
	ck_assert_uint_eq(f.client_id, 7);
	ck_assert_uint_eq(f.memory_total, 4u << 20);
	ck_assert_uint_eq(f.memory_resident, 512u << 10);
	ck_assert_uint_eq(f.n_engines, 4);
	ck_assert_str_eq(f.engines[0].key, "render");
	ck_assert(f.engines[0].has_ns && !f.engines[0].has_cycles);
	ck_assert_uint_eq(f.engines[0].ns, 9288864723ull);
	ck_assert_str_eq(f.engines[2].key, "video");
	ck_assert_uint_eq(f.engines[2].capacity, 2);
	ck_assert_str_eq(f.engines[3].key, "video-enhance");
	ck_assert_uint_eq(f.engines[3].capacity, 1);
}
END_TEST

START_TEST(test_fdinfo_xe)
{
	/* As xe_drm_client's show_meminfo() and show_run_ticks() print it. */
	static const char text[] =
		"drm-driver:\txe\ndrm-client-id:\t21\ndrm-pdev:\t0000:03:00.0\n"
		"drm-total-vram0:\t64 MiB\ndrm-resident-vram0:\t100\n"
		"drm-cycles-rcs:\t28257900\ndrm-total-cycles-rcs:\t7655183225\n"
		"drm-cycles-vcs:\t0\ndrm-total-cycles-vcs:\t7655183225\n"
		"drm-engine-capacity-vcs:\t2\n"
		"xe-something-new:\t5\ndrm-engine-bad:\t12 ms\ndrm-client-id-x\n";
	struct gpd_fdinfo f;
	gpd_fdinfo_parse(text, sizeof(text) - 1, &f);
	ck_assert_str_eq(f.driver, "xe");
	ck_assert_uint_eq(f.client_id, 21);
	ck_assert_uint_eq(f.memory_total, 64u << 20);
	ck_assert_uint_eq(f.memory_resident, 100);
	ck_assert_uint_eq(f.n_engines, 2);
	ck_assert_str_eq(f.engines[0].key, "rcs");
	ck_assert(f.engines[0].has_cycles && f.engines[0].has_total &&
		  !f.engines[0].has_ns);
	ck_assert_uint_eq(f.engines[0].cycles, 28257900);
	ck_assert_uint_eq(f.engines[0].total_cycles, 7655183225ull);
	ck_assert_uint_eq(f.engines[1].capacity, 2);
}
END_TEST

START_TEST(test_fdinfo_not_drm)
{
	static const char text[] = "pos:\t0\nflags:\t0100002\nmnt_id:\t3\n";
	struct gpd_fdinfo f;
	gpd_fdinfo_parse(text, sizeof(text) - 1, &f);
	ck_assert_str_eq(f.driver, "");
	ck_assert(!f.has_client_id);
	ck_assert_uint_eq(f.n_engines, 0);
}
END_TEST

START_TEST(test_proc_stat)
{
	char command[16];
	int32_t ppid;
	ck_assert_int_eq(gpd_proc_parse_stat("1234 (my (odd) cmd) S 77 1234 1234 0",
					     command, sizeof(command), &ppid), 0);
	ck_assert_str_eq(command, "my (odd) cmd");
	ck_assert_int_eq(ppid, 77);
	ck_assert_int_eq(gpd_proc_parse_stat("1234 no parens", command,
					     sizeof(command), &ppid), -EINVAL);
	ck_assert_int_eq(gpd_proc_parse_stat("1 (a-very-long-command-name) R 0",
					     command, sizeof(command), &ppid), 0);
	ck_assert_str_eq(command, "a-very-long-com");
	/* A name that would drive a terminal, or is not UTF-8, is made safe;
	 * UTF-8 names stay as they are. */
	ck_assert_int_eq(gpd_proc_parse_stat("1 (\x1b[2Jx\xff\x7f) R 0",
					     command, sizeof(command), &ppid), 0);
	ck_assert_str_eq(command, "?[2Jx??");
	ck_assert_int_eq(gpd_proc_parse_stat("1 (caf\xc3\xa9) R 0",
					     command, sizeof(command), &ppid), 0);
	ck_assert_str_eq(command, "caf\xc3\xa9");
}
END_TEST

#define POD_UID "1b4c2f7e-5a3d-4e8f-9b21-0c6d7e8f9a01"
#define POD_UID_SYSTEMD "1b4c2f7e_5a3d_4e8f_9b21_0c6d7e8f9a01"
#define CONTAINER "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* Each layout of the kubelet's two cgroup drivers on cgroup v1 and v2
 * names the pod and the container. */
START_TEST(test_cgroup_pod_layouts)
{
	static const char *const texts[] = {
		/* v1, cgroupfs driver: a line per hierarchy. */
		"12:pids:/kubepods/burstable/pod" POD_UID "/" CONTAINER "\n"
		"11:memory:/kubepods/burstable/pod" POD_UID "/" CONTAINER "\n"
		"1:name=systemd:/kubepods/burstable/pod" POD_UID "/" CONTAINER "\n",
		/* v1, systemd driver, containerd. */
		"12:pids:/kubepods.slice/kubepods-besteffort.slice/"
		"kubepods-besteffort-pod" POD_UID_SYSTEMD ".slice/"
		"cri-containerd-" CONTAINER ".scope\n"
		"0::/\n",
		/* v2, systemd driver, CRI-O; a Guaranteed pod has no QoS slice. */
		"0::/kubepods.slice/kubepods-pod" POD_UID_SYSTEMD ".slice/crio-"
		CONTAINER ".scope\n",
		/* v2, cgroupfs driver, Guaranteed. */
		"0::/kubepods/pod" POD_UID "/" CONTAINER "\n",
		/* v2 under kind: the kubelet's cgroup root is below a slice. */
		"0::/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-burstable.slice/"
		"kubelet-kubepods-burstable-pod" POD_UID_SYSTEMD ".slice/docker-"
		CONTAINER ".scope\n",
	};
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct gpd_pod pod;
		gpd_cgroup_pod_parse(texts[i], &pod);
		ck_assert_msg(!strcmp(pod.pod_uid, POD_UID), "layout %zu: pod '%s'",
			      i, pod.pod_uid);
		ck_assert_msg(!strcmp(pod.container_id, CONTAINER),
			      "layout %zu: container '%s'", i, pod.container_id);
	}
}
END_TEST

/* Outside a pod, and on text that only looks like one, nothing. */
START_TEST(test_cgroup_pod_refusals)
{
	static const char *const none[] = {
		"0::/user.slice/user-1000.slice/session-2.scope\n",
		"0::/\n",
		"",
		"garbage",
		/* "pod" not below kubepods */
		"0::/system.slice/pod" POD_UID "/" CONTAINER "\n",
		/* a UID that is not hex and dashes (a label injection) */
		"0::/kubepods/pod1b4c\"}evil{x=\"/" CONTAINER "\n",
		"0::/kubepods.slice/kubepods-podZZZZ.slice\n",
		/* a UID too long */
		"0::/kubepods/pod" POD_UID "0000/" CONTAINER "\n",
	};
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		struct gpd_pod pod;
		gpd_cgroup_pod_parse(none[i], &pod);
		ck_assert_msg(!*pod.pod_uid && !*pod.container_id,
			      "text %zu gave pod '%s' container '%s'", i,
			      pod.pod_uid, pod.container_id);
	}
	/* The pod's own cgroup, or a runtime's cgroup beside the container:
	 * the pod, no container. */
	static const char *const pod_only[] = {
		"0::/kubepods/besteffort/pod" POD_UID "\n",
		"0::/kubepods.slice/kubepods-pod" POD_UID_SYSTEMD ".slice/crio-conmon-"
		CONTAINER ".scope\n",
		"0::/kubepods/pod" POD_UID "/" "0123abc\n",
	};
	for (size_t i = 0; i < sizeof(pod_only) / sizeof(pod_only[0]); i++) {
		struct gpd_pod pod;
		gpd_cgroup_pod_parse(pod_only[i], &pod);
		ck_assert_str_eq(pod.pod_uid, POD_UID);
		ck_assert_msg(!*pod.container_id, "text %zu gave container '%s'",
			      i, pod.container_id);
	}
}
END_TEST

static Suite *host_usage_suite(void)
{
	Suite *s = suite_create("host_usage");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_formats);
	tcase_add_test(tc, test_event_configs);
	tcase_add_test(tc, test_group_read);
	tcase_add_test(tc, test_single_read);
	tcase_add_test(tc, test_fdinfo_i915);
	tcase_add_test(tc, test_fdinfo_xe);
	tcase_add_test(tc, test_fdinfo_not_drm);
	tcase_add_test(tc, test_proc_stat);
	tcase_add_test(tc, test_cgroup_pod_layouts);
	tcase_add_test(tc, test_cgroup_pod_refusals);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(host_usage_suite)
