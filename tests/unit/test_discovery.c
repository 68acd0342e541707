/*
 * Finding the machine's Intel cards on the fake kernel: each card with its
 * driver's source, another vendor's card left alone and a GPU newer than
 * the platform table or one the user may not open skipped saying why while
 * the others still come, and the frequency range read from sysfs, or the platform's
 * where the files are absent (a virtual function).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uv.h>

#include "daemon/discovery.h"
#include "daemon/log.h"
#include "metrics/platform.h"
#include "tests/unit/fake_machine.h"
#include "tests/unit/test_util.h"

static void destroy_cards(struct gpd_drm_card_sources *cards, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		cards[i].source->ops->destroy(cards[i].source);
		if (cards[i].usage)
			cards[i].usage->ops->destroy(cards[i].usage);
	}
	free(cards);
}

static void close_loop(uv_loop_t *loop)
{
	uv_run(loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(loop), 0);
}

START_TEST(intel_cards_each_with_its_driver_and_no_other)
{
	struct fake_machine m;
	fake_machine_start(&m, "i915:tglgt2,xe:tglgt2", "", "");
	gpd_log_set_level(GPD_LOG_ERROR);
	uv_loop_t loop;
	uv_loop_init(&loop);
	struct gpd_drm_roots roots = { .dev = m.dev_root, .sysfs = m.sysfs_root };
	struct gpd_drm_card_sources *cards;
	size_t n;
	ck_assert_int_eq(gpd_drm_discover(&loop, &roots, &cards, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(cards[0].source->kind, GPD_SOURCE_I915);
	ck_assert_int_eq(cards[1].source->kind, GPD_SOURCE_XE);
	destroy_cards(cards, n);

	/* card0 is another vendor's GPU: left alone, card1 still comes. */
	char vendor[PATH_MAX];
	snprintf(vendor, sizeof(vendor), "%s/devices/pci0000:00/0000:00:02.0/vendor",
		 m.sysfs_root);
	FILE *f = fopen(vendor, "w");
	ck_assert_ptr_nonnull(f);
	fputs("0x1002\n", f);
	fclose(f);
	ck_assert_int_eq(gpd_drm_discover(&loop, &roots, &cards, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(cards[0].source->kind, GPD_SOURCE_XE);
	destroy_cards(cards, n);
	close_loop(&loop);
	fake_machine_stop(&m);
}
END_TEST

/* What gpuperfd says while it runs f(arg) (its log goes to stderr). */
static void capture_log(const char *file, void (*f)(void *), void *arg,
			char *text, size_t size)
{
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	dup2(fd, STDERR_FILENO);
	close(fd);
	f(arg);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	FILE *in = fopen(file, "r");
	ck_assert_ptr_nonnull(in);
	text[fread(text, 1, size - 1, in)] = '\0';
	fclose(in);
}

struct discovery {
	uv_loop_t *loop;
	const struct gpd_drm_roots *roots;
	struct gpd_drm_card_sources *cards;
	size_t n;
	int ret;
};

static void discover(void *arg)
{
	struct discovery *d = arg;
	d->ret = gpd_drm_discover(d->loop, d->roots, &d->cards, &d->n);
}

/* A GPU newer than gpuperfd's table (an unknown PCI id) is skipped with
 * the reason; the known card beside it still comes. */
START_TEST(a_gpu_unknown_to_the_table_is_skipped_saying_why)
{
	struct fake_machine m;
	fake_machine_start(&m, "i915:tglgt2@0xfff0,xe:tglgt2", "", "");
	gpd_log_set_level(GPD_LOG_WARNING);
	uv_loop_t loop;
	uv_loop_init(&loop);
	struct gpd_drm_roots roots = { .dev = m.dev_root, .sysfs = m.sysfs_root };
	struct discovery d = { .loop = &loop, .roots = &roots };
	char file[128], text[2048];
	snprintf(file, sizeof(file), "%s/said", m.dir);
	capture_log(file, discover, &d, text, sizeof(text));
	ck_assert_int_eq(d.ret, 0);
	char words[512];
	snprintf(words, sizeof(words), "gpuperfd: warning: %s: skipped: card0: no "
		 "metric definitions exist for this GPU (PCI id 0xfff0); its "
		 "platform is not in gpuperfd's table\n", m.node);
	ck_assert_str_eq(text, words);
	ck_assert_uint_eq(d.n, 1);
	ck_assert_int_eq(d.cards[0].source->kind, GPD_SOURCE_XE);
	destroy_cards(d.cards, d.n);
	close_loop(&loop);
	fake_machine_stop(&m);
}
END_TEST

/* A card the user may not open (not in its group, as a user without the
 * render group): skipped saying so, the other card still comes. As root
 * the discovery runs under an unprivileged effective uid. */
START_TEST(a_card_the_user_cannot_open_is_skipped_saying_why)
{
	struct fake_machine m;
	fake_machine_start(&m, "i915:tglgt2,xe:tglgt2", "", "");
	gpd_log_set_level(GPD_LOG_WARNING);
	uv_loop_t loop;
	uv_loop_init(&loop);
	struct gpd_drm_roots roots = { .dev = m.dev_root, .sysfs = m.sysfs_root };
	struct discovery d = { .loop = &loop, .roots = &roots };
	char file[128], text[2048];
	snprintf(file, sizeof(file), "%s/said", m.dir);
	/* The first request builds the machine. */
	discover(&d);
	ck_assert_uint_eq(d.n, 2);
	destroy_cards(d.cards, d.n);
	/* The user reaches the machine; the fake kernel keeps a DRM file's
	 * state in a temporary file in its root. */
	ck_assert_int_eq(chmod(m.dir, 0755), 0);
	ck_assert_int_eq(chmod(m.root, 01777), 0);
	/* card1 is open to everyone, card0 to nobody but root. */
	char card1[160];
	snprintf(card1, sizeof(card1), "%s/dri/card1", m.dev_root);
	ck_assert_int_eq(chmod(card1, 0666), 0);
	ck_assert_int_eq(chmod(m.node, 0), 0);
	int fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchmod(fd, 0666), 0);
	close(fd);
	bool root = geteuid() == 0;
	if (root)
		ck_assert_int_eq(seteuid(65534), 0);
	capture_log(file, discover, &d, text, sizeof(text));
	if (root)
		ck_assert_int_eq(seteuid(0), 0);
	ck_assert_int_eq(d.ret, 0);
	/* The words say what to do about it. */
	ck_assert_msg(strstr(text, "/dri/card0: skipped (Permission denied: "
			     "add gpuperfd's user to the groups video and "
			     "render, as the service does)\n"), "%s", text);
	ck_assert_msg(d.n == 1, "%s", text);
	ck_assert_int_eq(d.cards[0].source->kind, GPD_SOURCE_XE);
	destroy_cards(d.cards, d.n);
	close_loop(&loop);
	fake_machine_stop(&m);
}
END_TEST

static void write_mhz(const char *dir, const char *name, const char *mhz)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(mhz, f);
	fclose(f);
}

/* The range the card's sysfs gives; the platform's typical one where
 * gt_min_freq_mhz and gt_max_freq_mhz are absent. */
START_TEST(frequency_range_from_sysfs_else_the_platform)
{
	struct fake_machine m;
	fake_machine_start(&m, "i915:tglgt2", "", "");
	gpd_log_set_level(GPD_LOG_ERROR);
	uv_loop_t loop;
	uv_loop_init(&loop);
	struct gpd_drm_roots roots = { .dev = m.dev_root, .sysfs = m.sysfs_root };
	struct gpd_drm_card_sources card;
	struct gpd_error err = { 0 };
	/* The first request builds the machine. */
	ck_assert_msg(gpd_drm_source_create(&loop, GPD_SOURCE_I915, m.node, &roots,
					    &card, &err) == 0, "%s", err.message);
	card.source->ops->destroy(card.source);
	if (card.usage)
		card.usage->ops->destroy(card.usage);

	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s/devices/pci0000:00/0000:00:02.0/drm/card0",
		 m.sysfs_root);
	write_mhz(dir, "gt_min_freq_mhz", "450\n");
	write_mhz(dir, "gt_max_freq_mhz", "1150\n");
	ck_assert_msg(gpd_drm_source_create(&loop, GPD_SOURCE_I915, m.node, &roots,
					    &card, &err) == 0, "%s", err.message);
	ck_assert_uint_eq(card.source->info.gpu_min_freq, 450000000);
	ck_assert_uint_eq(card.source->info.gpu_max_freq, 1150000000);
	card.source->ops->destroy(card.source);
	if (card.usage)
		card.usage->ops->destroy(card.usage);

	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/gt_min_freq_mhz", dir);
	ck_assert_int_eq(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/gt_max_freq_mhz", dir);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_msg(gpd_drm_source_create(&loop, GPD_SOURCE_I915, m.node, &roots,
					    &card, &err) == 0, "%s", err.message);
	const struct gpm_platform *p = gpm_platform_by_name("tglgt2");
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(card.source->info.gpu_min_freq,
			  (uint64_t)p->min_freq_mhz * 1000000);
	ck_assert_uint_eq(card.source->info.gpu_max_freq,
			  (uint64_t)p->max_freq_mhz * 1000000);
	card.source->ops->destroy(card.source);
	if (card.usage)
		card.usage->ops->destroy(card.usage);
	close_loop(&loop);
	fake_machine_stop(&m);
}
END_TEST

static Suite *discovery_suite(void)
{
	Suite *s = suite_create("discovery");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, intel_cards_each_with_its_driver_and_no_other);
	tcase_add_test(tc, a_gpu_unknown_to_the_table_is_skipped_saying_why);
	tcase_add_test(tc, a_card_the_user_cannot_open_is_skipped_saying_why);
	tcase_add_test(tc, frequency_range_from_sysfs_else_the_platform);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(discovery_suite)
