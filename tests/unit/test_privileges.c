/*
 * `--user NAME` in-process: each test runs in a process of its own (Check
 * forks), so one may drop its root for good. The refusals in words (not
 * root, no such user, root itself), the capability sets read from
 * /proc/self/status by their exact names, a drop to nobody leaving
 * CAP_PERFMON alone, permitted and effective, and the ids of nobody, and
 * an ambient CAP_PERFMON (the service unit's) made neither ambient nor
 * inheritable.
 */
#include <errno.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <sys/capability.h>

#include "daemon/log.h"
#include "daemon/privileges.h"
#include "tests/unit/test_util.h"

START_TEST(read_caps_by_exact_name)
{
	uint64_t eff, again = 1;

	ck_assert_int_eq(gpd_privileges_read_caps("CapEff", &eff), 0);
	/* A prefix of a field's name names no field. */
	ck_assert_int_eq(gpd_privileges_read_caps("CapE", &again), -ENOENT);
	ck_assert_int_eq(gpd_privileges_read_caps("Cap", &again), -ENOENT);
	ck_assert_int_eq(gpd_privileges_read_caps("NoSuchField", &again), -ENOENT);
	ck_assert_uint_eq(again, 1);
	/* Root here has every capability, or what its container allows. */
	if (geteuid() == 0)
		ck_assert_uint_ne(eff, 0);
}
END_TEST

START_TEST(refused_without_root)
{
	struct passwd *nobody = getpwnam("nobody");
	struct gpd_error err = { 0 };

	if (!nobody)
		TEST_SKIP("--user without root", "a user named nobody");
	if (geteuid() == 0)
		ck_assert_int_eq(setresuid(nobody->pw_uid, nobody->pw_uid, nobody->pw_uid), 0);
	ck_assert_int_eq(gpd_privileges_drop("nobody", &err), -EPERM);
	ck_assert_msg(strstr(err.message, "must start as root"), "%s", err.message);
}
END_TEST

START_TEST(refused_users)
{
	struct gpd_error err = { 0 };

	if (geteuid() != 0)
		TEST_SKIP("--user naming a user that cannot be taken", "root");
	ck_assert_int_eq(gpd_privileges_drop("gpd-test-no-such-user", &err), -ENOENT);
	ck_assert_msg(strstr(err.message, "--user gpd-test-no-such-user: no such user"),
		      "%s", err.message);
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(gpd_privileges_drop("root", &err), -EINVAL);
	ck_assert_msg(strstr(err.message, "is root; name an unprivileged user"),
		      "%s", err.message);
	/* Neither refusal dropped anything. */
	ck_assert_uint_eq(geteuid(), 0);
}
END_TEST

START_TEST(drops_to_nobody)
{
	struct passwd *nobody = getpwnam("nobody");
	struct gpd_error err = { 0 };
	uint64_t bound, set;

	if (geteuid() != 0 || !nobody)
		TEST_SKIP("--user nobody in-process", "root and a user named nobody");
	ck_assert_int_eq(gpd_privileges_read_caps("CapBnd", &bound), 0);
	uint64_t want = bound & GPD_CAP_PERFMON_MASK;
	ck_assert_msg(gpd_privileges_drop("nobody", &err) == 0, "%s", err.message);
	ck_assert_uint_eq(getuid(), nobody->pw_uid);
	ck_assert_uint_eq(geteuid(), nobody->pw_uid);
	ck_assert_uint_eq(getegid(), nobody->pw_gid);
	/* Permitted and effective, nothing inheritable or ambient. */
	static const struct {
		const char *name;
		bool perfmon;
	} sets[] = {
		{ "CapPrm", true }, { "CapEff", true }, { "CapBnd", true },
		{ "CapInh", false }, { "CapAmb", false },
	};
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		uint64_t expected = sets[i].perfmon ? want : 0;
		ck_assert_int_eq(gpd_privileges_read_caps(sets[i].name, &set), 0);
		ck_assert_msg(set == expected, "%s is %#llx, not %#llx",
			      sets[i].name, (unsigned long long)set,
			      (unsigned long long)expected);
	}
	ck_assert_int_eq(prctl(PR_GET_NO_NEW_PRIVS, 0L, 0L, 0L, 0L), 1);
	/* And there is no way back. */
	ck_assert_int_ne(setuid(0), 0);
}
END_TEST

/* The service unit's way: CAP_PERFMON ambient (and so inheritable); the
 * daemon keeps it permitted and effective only. */
START_TEST(forgets_ambient_capabilities)
{
	struct gpd_error err = { 0 };
	uint64_t bound, set, effective;

	if (geteuid() != 0)
		TEST_SKIP("ambient capabilities to forget", "root");
	ck_assert_int_eq(gpd_privileges_read_caps("CapBnd", &bound), 0);
	if (!(bound & GPD_CAP_PERFMON_MASK))
		TEST_SKIP("ambient CAP_PERFMON to forget", "CAP_PERFMON");
	cap_t caps = cap_get_proc();
	cap_value_t perfmon = 38;
	ck_assert_int_eq(cap_set_flag(caps, CAP_INHERITABLE, 1, &perfmon,
				      CAP_SET), 0);
	ck_assert_int_eq(cap_set_proc(caps), 0);
	cap_free(caps);
	ck_assert_int_eq(cap_set_ambient(perfmon, CAP_SET), 0);
	ck_assert_int_eq(gpd_privileges_read_caps("CapAmb", &set), 0);
	ck_assert_uint_eq(set, GPD_CAP_PERFMON_MASK);
	ck_assert_int_eq(gpd_privileges_read_caps("CapEff", &effective), 0);

	ck_assert_msg(gpd_privileges_forget_inheritable(&err) == 0, "%s",
		      err.message);
	ck_assert_int_eq(gpd_privileges_read_caps("CapAmb", &set), 0);
	ck_assert_uint_eq(set, 0);
	ck_assert_int_eq(gpd_privileges_read_caps("CapInh", &set), 0);
	ck_assert_uint_eq(set, 0);
	ck_assert_int_eq(gpd_privileges_read_caps("CapEff", &set), 0);
	ck_assert_uint_eq(set, effective);
}
END_TEST

static Suite *privileges_suite(void)
{
	Suite *s = suite_create("privileges");
	TCase *tc = tcase_create("core");

	gpd_log_set_level(GPD_LOG_ERROR);
	tcase_add_test(tc, read_caps_by_exact_name);
	tcase_add_test(tc, refused_without_root);
	tcase_add_test(tc, refused_users);
	tcase_add_test(tc, drops_to_nobody);
	tcase_add_test(tc, forgets_ambient_capabilities);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(privileges_suite)
