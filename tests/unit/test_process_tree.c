/*
 * gpuperf run's process tree (client/process_tree.c): who descends from
 * the command, through the frame's rows and through /proc for parents
 * that use no GPU; their engine time and peak memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "client/process_tree.h"
#include "tests/unit/test_util.h"

/* A fake /proc/PID/stat with the given parent; the command has a space
 * and a parenthesis, as real ones may. */
static void fake_stat(const char *root, int pid, int ppid)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%d", root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/stat", root, pid);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%d (sh (x) y) S %d %d %d 0 -1 4194560 0 0\n", pid, ppid,
		pid, pid);
	fclose(f);
}

static struct gpc_process_usage row(uint32_t pid, uint32_t ppid,
				    uint64_t total, uint64_t memory)
{
	return (struct gpc_process_usage){
		.pid = pid, .ppid = ppid, .command = "x",
		.gpu_time_total_ns = total, .memory_bytes = memory,
	};
}

START_TEST(test_members)
{
	char root[] = "/tmp/gpd-proc-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(root));
	/* 100 runs a shell 150 (no GPU), which runs 200; 300 is a stranger
	 * whose parent 1 is init. */
	fake_stat(root, 150, 100);
	fake_stat(root, 200, 150);
	fake_stat(root, 300, 1);
	struct gpuperf_process_tree t;
	gpuperf_process_tree_init(&t, 100, root);
	struct gpc_process_usage rows[] = {
		row(101, 100, 1000, 10),        /* a child of the command */
		row(200, 150, 5000, 20),        /* a grandchild, via /proc */
		row(300, 1, 7000, 40),          /* not ours */
	};
	struct gpc_usage_frame f = {
		.processes_included = true,
		.processes = rows,
		.n_processes = 3,
	};
	ck_assert_int_eq(gpuperf_process_tree_frame(&t, &f), 0);
	ck_assert_uint_eq(gpuperf_process_tree_gpu_time_ns(&t), 6000);
	ck_assert_uint_eq(t.memory_peak_bytes, 30);
	/* 200's parent exits: it is reparented, and still ours. Its total
	 * grows; 101 is gone, its time stays counted. */
	rows[0] = row(200, 1, 8000, 5);
	f.n_processes = 1;
	ck_assert_int_eq(gpuperf_process_tree_frame(&t, &f), 0);
	ck_assert_uint_eq(gpuperf_process_tree_gpu_time_ns(&t), 9000);
	ck_assert_uint_eq(t.memory_peak_bytes, 30);
	ck_assert(!t.saw_hidden);
	/* A row without a pid cannot be placed. */
	rows[0] = row(0, 0, 1, 1);
	ck_assert_int_eq(gpuperf_process_tree_frame(&t, &f), 0);
	ck_assert(t.saw_hidden);
	gpuperf_process_tree_fini(&t);
	char cmd[96];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static Suite *process_tree_suite(void)
{
	Suite *s = suite_create("process_tree");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_members);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(process_tree_suite)
