/*
 * A card's DRM clients from a fake /proc (daemon/drm/drm_clients.c): two
 * cards of one driver read in one tick share one walk of /proc; a card's
 * own next reading walks again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/drm/drm_clients.h"
#include "tests/unit/test_util.h"

#define CARD_A "0000:00:02.0"
#define CARD_B "0000:03:00.0"

static char proc_root[] = "/tmp/gpd-drm-clients-XXXXXX";

/* Process pid with fd 5 a DRM file of card pdev, client id. */
static void add_client(int pid, const char *pdev, int id)
{
	char path[256], text[512];
	snprintf(path, sizeof(path), "%s/%d/fd", proc_root, pid);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%d/fdinfo", proc_root, pid);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%d/fd/5", proc_root, pid);
	ck_assert_int_eq(symlink("/dev/dri/renderD128", path), 0);
	snprintf(path, sizeof(path), "%s/%d/fdinfo/5", proc_root, pid);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	snprintf(text, sizeof(text), "pos:\t0\nflags:\t02100002\n"
		 "drm-driver:\ti915\ndrm-client-id:\t%d\ndrm-pdev:\t%s\n"
		 "drm-engine-render:\t%d ns\n", id, pdev, 1000 * id);
	fputs(text, f);
	fclose(f);
}

static void add_process(int pid, const char *pdev, int id)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%d", proc_root, pid);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	add_client(pid, pdev, id);
}

static const char *render_class(const char *key)
{
	return strcmp(key, "render") ? NULL : "render";
}

/* The client ids of pdev's reading at time_ns, in a string. */
static void clients_of(struct gpd_drm_clients *clients, const char *pdev,
		       uint64_t time_ns, char *ids, size_t size)
{
	struct gpd_usage_layout layout;
	memset(&layout, 0, sizeof(layout));
	gpd_usage_layout_class(&layout, "render");
	struct gpd_usage_reading r;
	gpd_usage_reading_init(&r);
	r.time_ns = time_ns;
	ck_assert_int_eq(gpd_drm_clients_read(clients, proc_root, "i915", pdev,
					      &layout, render_class, &r), 0);
	ids[0] = '\0';
	for (size_t i = 0; i < r.n_clients; i++)
		snprintf(ids + strlen(ids), size - strlen(ids), "%s%llu",
			 i ? "," : "", (unsigned long long)r.clients[i].id);
	gpd_usage_reading_fini(&r);
}

START_TEST(test_two_cards_share_a_walk)
{
	ck_assert_ptr_nonnull(mkdtemp(proc_root));
	add_process(100, CARD_A, 1);
	add_process(200, CARD_B, 2);
	struct gpd_drm_clients a = { 0 }, b = { 0 };
	char ids[64];
	const uint64_t tick = 1000000000000ull;
	clients_of(&a, CARD_A, tick, ids, sizeof(ids));
	ck_assert_str_eq(ids, "1");
	/* A client of card B opens after card A's reading walked /proc: card
	 * B's reading in the same tick takes that walk, without it. */
	add_process(300, CARD_B, 3);
	clients_of(&b, CARD_B, tick + 1000000, ids, sizeof(ids));
	ck_assert_str_eq(ids, "2");
	/* A card's own next reading walks again, however soon. */
	add_process(400, CARD_A, 4);
	clients_of(&a, CARD_A, tick + 2000000, ids, sizeof(ids));
	ck_assert_str_eq(ids, "1,4");
	/* The next tick walks again. */
	clients_of(&b, CARD_B, tick + 1000000000, ids, sizeof(ids));
	ck_assert_str_eq(ids, "2,3");
	clients_of(&a, CARD_A, tick + 1001000000, ids, sizeof(ids));
	ck_assert_str_eq(ids, "1,4");
	gpd_drm_clients_fini(&a);
	gpd_drm_clients_fini(&b);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", proc_root);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static Suite *drm_clients_suite(void)
{
	Suite *s = suite_create("drm_clients");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_two_cards_share_a_walk);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(drm_clients_suite)
