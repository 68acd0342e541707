/*
 * Dropping from root to a user with CAP_PERFMON only.
 */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <unistd.h>

#include <sys/capability.h>

#include "daemon/error.h"
#include "daemon/log.h"
#include "daemon/privileges.h"

/* libcap names it from 2.48 on; the kernel numbered it in 5.8. */
#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

int gpd_privileges_read_caps(const char *field, uint64_t *out)
{
	FILE *f = fopen("/proc/self/status", "re");
	if (!f)
		return -errno;
	char line[256];
	size_t n = strlen(field);
	int ret = -ENOENT;
	while (ret == -ENOENT && fgets(line, sizeof(line), f)) {
		if (strncmp(line, field, n) || line[n] != ':')
			continue;
		ret = sscanf(line + n + 1, "%" SCNx64, out) == 1 ? 0 : -EINVAL;
	}
	fclose(f);
	return ret;
}

/* The four ids of a `Uid:` or `Gid:` line of /proc/self/status all equal
 * id. */
static bool ids_are(const char *field, unsigned id)
{
	FILE *f = fopen("/proc/self/status", "re");
	if (!f)
		return false;
	char line[256];
	size_t n = strlen(field);
	bool ok = false;
	while (fgets(line, sizeof(line), f)) {
		unsigned r, e, s, fs;
		if (!strncmp(line, field, n) && line[n] == ':' &&
		    sscanf(line + n + 1, "%u %u %u %u", &r, &e, &s, &fs) == 4) {
			ok = r == id && e == id && s == id && fs == id;
			break;
		}
	}
	fclose(f);
	return ok;
}

/* Empties the bounding set but for keep (-1: everything), so nothing the
 * process runs can regain a capability through a file's. Needs
 * CAP_SETPCAP: done while still root. */
static int limit_bounding_set(int keep)
{
	cap_value_t n = cap_max_bits();
	for (cap_value_t cap = 0; cap < n; cap++)
		if (cap != keep && cap_drop_bound(cap))
			return -errno;
	return 0;
}

/* keep (-1: none) in the permitted and effective sets alone: the daemon
 * executes nothing, so nothing needs it inheritable or ambient. */
static int set_capabilities(int keep)
{
	cap_t caps = cap_init();
	if (!caps)
		return -errno;
	int ret = 0;
	if (keep >= 0) {
		cap_value_t v = keep;
		if (cap_set_flag(caps, CAP_PERMITTED, 1, &v, CAP_SET) ||
		    cap_set_flag(caps, CAP_EFFECTIVE, 1, &v, CAP_SET))
			ret = -errno;
	}
	if (!ret && cap_set_proc(caps))
		ret = -errno;
	cap_free(caps);
	if (!ret && cap_reset_ambient())
		ret = -errno;
	return ret;
}

int gpd_privileges_forget_inheritable(struct gpd_error *err)
{
	cap_t caps = cap_get_proc();
	if (!caps)
		return gpd_fail(err, -errno, "reading the capabilities: %s",
			    strerror(errno));
	int ret = 0;
	if (cap_clear_flag(caps, CAP_INHERITABLE) || cap_set_proc(caps))
		ret = -errno;
	cap_free(caps);
	if (!ret && cap_reset_ambient())
		ret = -errno;
	if (ret)
		return gpd_fail(err, ret, "emptying the inheritable and ambient "
			    "capabilities: %s", strerror(-ret));
	return 0;
}

static int become(const char *user, uid_t uid, gid_t gid, struct gpd_error *err)
{
	/* setuid() away from 0 clears the permitted set unless asked to
	 * keep it; the sets are then narrowed to CAP_PERFMON below. */
	if (prctl(PR_SET_KEEPCAPS, 1L, 0L, 0L, 0L))
		return gpd_fail(err, -errno, "prctl(PR_SET_KEEPCAPS): %s",
			    strerror(errno));
	if (initgroups(user, gid))
		return gpd_fail(err, -errno, "--user %s: setting its groups: %s",
			    user, strerror(errno));
	if (setresgid(gid, gid, gid))
		return gpd_fail(err, -errno, "--user %s: setgid(%u): %s", user,
			    (unsigned)gid, strerror(errno));
	if (setresuid(uid, uid, uid))
		return gpd_fail(err, -errno, "--user %s: setuid(%u): %s", user,
			    (unsigned)uid, strerror(errno));
	if (prctl(PR_SET_KEEPCAPS, 0L, 0L, 0L, 0L))
		return gpd_fail(err, -errno, "prctl(PR_SET_KEEPCAPS): %s",
			    strerror(errno));
	return 0;
}

int gpd_privileges_drop(const char *user, struct gpd_error *err)
{
	if (geteuid() != 0)
		return gpd_fail(err, -EPERM, "--user %s: gpuperfd must start as "
			    "root to change user; start it as root or leave "
			    "--user out", user);
	struct passwd pw, *found = NULL;
	char buf[4096];
	int code = getpwnam_r(user, &pw, buf, sizeof(buf), &found);
	if (code || !found)
		return gpd_fail(err, code ? -code : -ENOENT, "--user %s: %s", user,
			    code ? strerror(code) : "no such user");
	if (pw.pw_uid == 0)
		return gpd_fail(err, -EINVAL, "--user %s is root; name an "
			    "unprivileged user such as gpuperf", user);
	int keep = cap_max_bits() > CAP_PERFMON ? CAP_PERFMON : -1;
	if (keep >= 0 && cap_get_bound(CAP_PERFMON) != 1) {
		/* A container may withhold it from root already. */
		gpd_warn("gpuperfd was started without CAP_PERFMON; as %s it "
			 "keeps no capability", user);
		keep = -1;
	}
	int ret = limit_bounding_set(keep);
	if (ret)
		return gpd_fail(err, ret, "--user %s: narrowing the capability "
			    "bounding set: %s", user, strerror(-ret));
	ret = become(user, pw.pw_uid, pw.pw_gid, err);
	if (ret)
		return ret;
	ret = set_capabilities(keep);
	if (ret)
		return gpd_fail(err, ret, "--user %s: keeping CAP_PERFMON: %s",
			    user, strerror(-ret));
	/* Nothing exec'd from here may gain privileges (set-uid files). */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L))
		return gpd_fail(err, -errno, "prctl(PR_SET_NO_NEW_PRIVS): %s",
			    strerror(errno));

	uint64_t perfmon = keep >= 0 ? GPD_CAP_PERFMON_MASK : 0;
	static const struct {
		const char *set;
		bool perfmon;
	} sets[] = {
		{ "CapPrm", true }, { "CapEff", true },
		{ "CapInh", false }, { "CapAmb", false },
	};
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		uint64_t have = 0, want = sets[i].perfmon ? perfmon : 0;
		if (gpd_privileges_read_caps(sets[i].set, &have) || have != want)
			return gpd_fail(err, -EIO, "--user %s: %s is %#" PRIx64
				    ", not %#" PRIx64 ", after dropping "
				    "privileges", user, sets[i].set, have, want);
	}
	if (!ids_are("Uid", pw.pw_uid) || !ids_are("Gid", pw.pw_gid))
		return gpd_fail(err, -EIO, "--user %s: the process did not become "
			    "uid %u gid %u", user, (unsigned)pw.pw_uid,
			    (unsigned)pw.pw_gid);
	if (keep < 0)
		gpd_warn("without CAP_PERFMON (Linux < 5.8 has none), gpuperfd "
			 "as %s can stream only with `sysctl "
			 "dev.i915.perf_stream_paranoid=0`", user);
	gpd_info("running as %s (uid %u) with %s", user, (unsigned)pw.pw_uid,
		 keep >= 0 ? "CAP_PERFMON only" : "no capabilities");
	return 0;
}
