/*
 * The amdgpu usage source (daemon/amdgpu/amdgpu_usage.c) on a fake sysfs
 * and /proc: a card's gpu_metrics of each table family written through
 * the kernel's layouts (gpu_metrics_tables.h), its percentage files,
 * pp_dpm_sclk, hwmon, and DRM fdinfo as amdgpu_show_fdinfo() prints it.
 * Unknown and cut-short tables are said in the reading's note, and the
 * sysfs files stand in for what they held.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/amdgpu/amdgpu_usage.h"
#include "tests/unit/gpu_metrics_tables.h"
#include "tests/unit/test_util.h"

struct machine {
	char root[256];
	char card[512];         /* .../sys/class/drm/card1 */
	char device[512];       /* .../sys/devices/pci0000:00/0000:03:00.0 */
	char proc[512];
};

static void write_bytes(const char *dir, const char *name, const void *data,
			size_t len)
{
	char path[1024], tmp[1100];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	FILE *f = fopen(tmp, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(rename(tmp, path), 0);
}

static void write_text(const char *dir, const char *name, const char *text)
{
	write_bytes(dir, name, text, strlen(text));
}

static void make_dir(const char *base, const char *rest)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s%s", base, rest);
	char *p = path;
	while ((p = strchr(p + 1, '/'))) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

/* A card at 0000:03:00.0 with a /proc holding init only. */
static void machine_init(struct machine *m, bool hwmon)
{
	snprintf(m->root, sizeof(m->root), "/tmp/gpd-amdgpu-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(m->root));
	snprintf(m->device, sizeof(m->device),
		 "%s/sys/devices/pci0000:00/0000:03:00.0", m->root);
	snprintf(m->card, sizeof(m->card), "%s/sys/class/drm/card1", m->root);
	snprintf(m->proc, sizeof(m->proc), "%s/proc", m->root);
	make_dir(m->device, "");
	make_dir(m->card, "");
	char link[600];
	snprintf(link, sizeof(link), "%s/device", m->card);
	ck_assert_int_eq(symlink(m->device, link), 0);
	make_dir(m->proc, "/1/fd");
	char dir[600];
	snprintf(dir, sizeof(dir), "%s/1", m->proc);
	write_text(dir, "stat", "1 (init) S 0 1 1 0 -1 4194560 0 0\n");
	write_text(m->device, "pp_dpm_sclk", "0: 500Mhz\n1: 1400Mhz\n2: 2100Mhz *\n");
	if (hwmon) {
		make_dir(m->device, "/hwmon/hwmon4");
		snprintf(dir, sizeof(dir), "%s/hwmon/hwmon4", m->device);
		write_text(dir, "power1_average", "95000000\n");
		write_text(dir, "temp1_input", "48000\n");
	}
}

static void machine_fini(struct machine *m)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", m->root);
	ck_assert_int_eq(system(cmd), 0);
}

/* A process with an amdgpu DRM file of the card, its fdinfo lines. */
static void amdgpu_process(struct machine *m, int pid, const char *command,
			   const char *driver, const char *fdinfo)
{
	char dir[700], path[800], target[64];
	snprintf(dir, sizeof(dir), "%s/%d", m->proc, pid);
	make_dir(dir, "/fd");
	make_dir(dir, "/fdinfo");
	char stat[128];
	snprintf(stat, sizeof(stat), "%d (%s) S 1 %d %d 0 -1 4194560 0 0\n", pid,
		 command, pid, pid);
	write_text(dir, "stat", stat);
	snprintf(path, sizeof(path), "%s/fd/7", dir);
	snprintf(target, sizeof(target), "/dev/dri/renderD128");
	unlink(path);
	ck_assert_int_eq(symlink(target, path), 0);
	char text[1024];
	snprintf(text, sizeof(text), "pos:\t0\nflags:\t02100002\nmnt_id:\t26\n"
		 "drm-driver:\t%s\ndrm-client-id:\t%d\ndrm-pdev:\t0000:03:00.0\n%s",
		 driver, pid * 10, fdinfo);
	snprintf(path, sizeof(path), "%s/fdinfo", dir);
	write_text(path, "7", text);
}

static struct gpd_usage_source *source_of(struct machine *m)
{
	struct gpd_drm_roots roots = { .proc = m->proc };
	struct gpd_usage_source *src;
	struct gpd_error err;
	ck_assert_int_eq(gpd_amdgpu_usage_create(m->card, &roots, &src, &err), 0);
	return src;
}

static int engine_index(const struct gpd_usage_layout *l, const char *name)
{
	for (unsigned i = 0; i < l->n_engines; i++)
		if (!strcmp(l->engines[i].name, name))
			return (int)i;
	ck_abort_msg("no engine %s", name);
	return -1;
}

static const char *engine_class(const struct gpd_usage_layout *l, const char *name)
{
	return l->classes[l->engines[engine_index(l, name)].class_index];
}

struct two {
	struct gpd_usage_reading a, b;
	struct gpd_usage_frame f;
};

static void read_one(struct gpd_usage_source *src, struct gpd_usage_reading *r)
{
	struct gpd_error err;
	ck_assert_int_eq(src->ops->read(src, r, true, &err), 0);
	gpd_usage_reading_sort(r);
}

static void frame_of(struct gpd_usage_source *src, struct two *t)
{
	ck_assert_int_eq(gpd_usage_diff(&src->layout, &t->a, &t->b, &t->f), 0);
}

static void two_init(struct two *t)
{
	gpd_usage_reading_init(&t->a);
	gpd_usage_reading_init(&t->b);
	gpd_usage_frame_init(&t->f);
}

static void two_fini(struct two *t)
{
	gpd_usage_reading_fini(&t->a);
	gpd_usage_reading_fini(&t->b);
	gpd_usage_frame_fini(&t->f);
}

#define CK_NEAR(a, b) ck_assert_double_eq_tol((a), (b), 1e-6)

START_TEST(test_discrete_v1_4)
{
	struct machine m;
	machine_init(&m, true);
	struct gm_v1_4 t;
	gpu_metrics_table_init(&t, 1, 4);
	t.temperature_hotspot = 82;
	t.socket_power = 550;
	t.gfx_activity = 100;
	t.umc_activity = 30;
	t.vcn_activity[0] = 10;
	t.vcn_activity[1] = 20;
	t.vcn_activity[2] = 30;
	t.energy_accumulator = (uint64_t)-1 - (1ull << 16);    /* wraps */
	t.current_gfxclk[0] = 1900;
	t.current_uclk = 1300;
	write_bytes(m.device, "gpu_metrics", &t, sizeof(t));
	amdgpu_process(&m, 100, "game", "amdgpu",
		       "drm-engine-gfx:\t1000 ns\ndrm-engine-compute:\t0 ns\n"
		       "drm-total-vram:\t2048 KiB\ndrm-resident-vram:\t1024 KiB\n");
	amdgpu_process(&m, 200, "other", "i915", "drm-engine-render:\t5 ns\n");

	struct gpd_usage_source *src = source_of(&m);
	const struct gpd_usage_layout *l = &src->layout;
	/* gfx, memory, and the three VCNs the table fills. */
	ck_assert_uint_eq(l->n_engines, 5);
	ck_assert_str_eq(engine_class(l, "gfx"), "gfx");
	ck_assert_str_eq(engine_class(l, "memory"), "memory");
	ck_assert_str_eq(engine_class(l, "vcn2"), "media");
	ck_assert_ptr_nonnull(strstr(l->description, "gpu_metrics v1.4"));

	struct two r;
	two_init(&r);
	read_one(src, &r.a);
	usleep(20000);
	/* 2 J later, the counter across its wrap; 25 ms of gfx. */
	t.energy_accumulator += 2ull << 16;
	write_bytes(m.device, "gpu_metrics", &t, sizeof(t));
	amdgpu_process(&m, 100, "game", "amdgpu",
		       "drm-engine-gfx:\t25001000 ns\ndrm-engine-compute:\t0 ns\n"
		       "drm-total-vram:\t2048 KiB\ndrm-resident-vram:\t1024 KiB\n");
	read_one(src, &r.b);
	frame_of(src, &r);
	CK_NEAR(r.f.engines[engine_index(l, "gfx")].busy, 1.0);
	CK_NEAR(r.f.engines[engine_index(l, "memory")].busy, 0.3);
	CK_NEAR(r.f.engines[engine_index(l, "vcn0")].busy, 0.1);
	CK_NEAR(r.f.engines[engine_index(l, "vcn2")].busy, 0.3);
	CK_NEAR(r.f.energy_j, 2.0);
	CK_NEAR(r.f.temperature_c, 82);
	CK_NEAR(r.f.actual_freq_hz, 1900e6);
	CK_NEAR(r.f.gauges[0], 1300e6);
	CK_NEAR(r.f.min_freq_hz, 500e6);
	CK_NEAR(r.f.max_freq_hz, 2100e6);
	ck_assert(isnan(r.f.requested_freq_hz));
	ck_assert_uint_eq(r.f.n_processes, 1);
	ck_assert_int_eq(r.f.processes[0].pid, 100);
	ck_assert_str_eq(r.f.processes[0].command, "game");
	ck_assert_uint_eq(r.f.processes[0].gpu_time_ns, 25000000);
	ck_assert_uint_eq(r.f.processes[0].memory_bytes, 2048 * 1024);
	ck_assert_uint_eq(r.f.processes[0].resident_bytes, 1024 * 1024);
	ck_assert_str_eq(r.f.note, "");
	two_fini(&r);
	src->ops->destroy(src);
	machine_fini(&m);
}
END_TEST

/* Power held over the interval becomes the frame's power exactly. */
static void check_apu_frame(struct machine *m, double watts, double celsius,
			    double gfx, double media)
{
	struct gpd_usage_source *src = source_of(m);
	const struct gpd_usage_layout *l = &src->layout;
	ck_assert_uint_eq(l->n_engines, 2);
	struct two r;
	two_init(&r);
	read_one(src, &r.a);
	usleep(20000);
	read_one(src, &r.b);
	frame_of(src, &r);
	CK_NEAR(r.f.engines[engine_index(l, "gfx")].busy, gfx);
	CK_NEAR(r.f.engines[engine_index(l, "media")].busy, media);
	CK_NEAR(r.f.power_w, watts);
	CK_NEAR(r.f.temperature_c, celsius);
	ck_assert_str_eq(r.f.note, "");
	two_fini(&r);
	src->ops->destroy(src);
}

START_TEST(test_apu_v2_x)
{
	struct machine m;
	machine_init(&m, false);
	struct gm_v2_1 t1;
	gpu_metrics_table_init(&t1, 2, 1);
	t1.temperature_gfx = 4550;
	t1.gfx_activity = 2500;
	t1.mm_activity = 1000;
	t1.socket_power = 15000;
	t1.average_gfxclk = 1600;
	write_bytes(m.device, "gpu_metrics", &t1, sizeof(t1));
	check_apu_frame(&m, 15, 45.5, 0.25, 0.10);
	struct gm_v2_4 t4;
	gpu_metrics_table_init(&t4, 2, 4);
	t4.temperature_gfx = 3000;
	t4.gfx_activity = 10000;
	t4.mm_activity = 0;
	t4.socket_power = 9000;
	write_bytes(m.device, "gpu_metrics", &t4, sizeof(t4));
	check_apu_frame(&m, 9, 30, 1.0, 0.0);
	machine_fini(&m);
}
END_TEST

START_TEST(test_apu_v3_0)
{
	struct machine m;
	machine_init(&m, false);
	struct gm_v3_0 t;
	gpu_metrics_table_init(&t, 3, 0);
	t.temperature_gfx = 5025;
	t.gfx_activity = 60;
	t.vcn_activity = 12;
	t.socket_power = 70000;
	write_bytes(m.device, "gpu_metrics", &t, sizeof(t));
	check_apu_frame(&m, 70, 50.25, 0.60, 0.12);
	machine_fini(&m);
}
END_TEST

/* A table the decoder does not know: the note names it, and the sysfs
 * percentages and hwmon stand in. */
static void check_fallback(struct machine *m, const char *words)
{
	write_text(m->device, "gpu_busy_percent", "42\n");
	write_text(m->device, "mem_busy_percent", "7\n");
	struct gpd_usage_source *src = source_of(m);
	const struct gpd_usage_layout *l = &src->layout;
	ck_assert_uint_eq(l->n_engines, 2);
	struct two r;
	two_init(&r);
	read_one(src, &r.a);
	usleep(20000);
	read_one(src, &r.b);
	frame_of(src, &r);
	CK_NEAR(r.f.engines[engine_index(l, "gfx")].busy, 0.42);
	CK_NEAR(r.f.engines[engine_index(l, "memory")].busy, 0.07);
	CK_NEAR(r.f.power_w, 95);
	CK_NEAR(r.f.temperature_c, 48);
	ck_assert(isnan(r.f.actual_freq_hz));
	ck_assert_msg(strstr(r.f.note, words), "%s", r.f.note);
	two_fini(&r);
	src->ops->destroy(src);
}

START_TEST(test_unknown_version_said)
{
	struct machine m;
	machine_init(&m, true);
	uint8_t table[400];
	memset(table, 0, sizeof(table));
	table[0] = sizeof(table) & 0xff;
	table[1] = sizeof(table) >> 8;
	table[2] = 1;
	table[3] = 7;
	write_bytes(m.device, "gpu_metrics", table, sizeof(table));
	check_fallback(&m, "version 1.7, which this gpuperfd does not know");
	machine_fini(&m);
}
END_TEST

START_TEST(test_truncated_table_said)
{
	struct machine m;
	machine_init(&m, true);
	struct gm_v1_3 t;
	gpu_metrics_table_init(&t, 1, 3);
	t.gfx_activity = 99;
	write_bytes(m.device, "gpu_metrics", &t, 64);
	check_fallback(&m, "version 1.3 cut short: 64 bytes read");
	machine_fini(&m);
}
END_TEST

START_TEST(test_v1_0_power_integrated)
{
	struct machine m;
	machine_init(&m, true);
	struct gm_v1_0 t;
	gpu_metrics_table_init(&t, 1, 0);
	t.temperature_edge = 61;
	t.gfx_activity = 40;
	t.mm_activity = 5;
	t.socket_power = 180;
	/* Its unit undocumented, this counter must not become joules. */
	t.energy_accumulator = 12345;
	write_bytes(m.device, "gpu_metrics", &t, sizeof(t));
	struct gpd_usage_source *src = source_of(&m);
	struct two r;
	two_init(&r);
	read_one(src, &r.a);
	usleep(20000);
	t.energy_accumulator = 99999;
	write_bytes(m.device, "gpu_metrics", &t, sizeof(t));
	read_one(src, &r.b);
	frame_of(src, &r);
	CK_NEAR(r.f.power_w, 180);
	CK_NEAR(r.f.temperature_c, 61);
	CK_NEAR(r.f.engines[engine_index(&src->layout, "gfx")].busy, 0.40);
	two_fini(&r);
	src->ops->destroy(src);
	machine_fini(&m);
}
END_TEST

static Suite *amdgpu_usage_suite(void)
{
	Suite *s = suite_create("amdgpu_usage");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_discrete_v1_4);
	tcase_add_test(tc, test_apu_v2_x);
	tcase_add_test(tc, test_apu_v3_0);
	tcase_add_test(tc, test_unknown_version_said);
	tcase_add_test(tc, test_truncated_table_said);
	tcase_add_test(tc, test_v1_0_power_integrated);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(amdgpu_usage_suite)
