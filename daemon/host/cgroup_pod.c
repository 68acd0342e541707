/*
 * A process's pod and container from its cgroup path (see cgroup_pod.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "daemon/host/cgroup_pod.h"
#include "daemon/host/sysfs_file.h"

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* A pod UID as the cgroup writes it (dashes, or the systemd driver's
 * underscores), into uid with dashes; false for anything else. UIDs are
 * UUIDs; a static pod's is a hash of its manifest, hex without dashes. */
static bool take_uid(const char *s, size_t len, char *uid)
{
	if (!len || len >= GPD_POD_UID_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i] == '_' ? '-' : s[i];
		if (!is_hex(c) && c != '-')
			return false;
		uid[i] = c;
	}
	uid[len] = '\0';
	return true;
}

/* A container's cgroup: its id alone (cgroupfs) or RUNTIME-ID.scope
 * (systemd); false for anything else (a runtime's own cgroups, such as
 * CRI-O's crio-conmon-ID.scope, are not the container). */
static bool take_container(const char *s, size_t len, char *id)
{
	static const char scope[] = ".scope";
	static const char *const runtimes[] = { "cri-containerd-", "crio-", "docker-" };
	if (len > sizeof(scope) - 1 &&
	    !memcmp(s + len - (sizeof(scope) - 1), scope, sizeof(scope) - 1)) {
		len -= sizeof(scope) - 1;
		size_t i;
		for (i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++) {
			size_t n = strlen(runtimes[i]);
			if (len > n && !memcmp(s, runtimes[i], n)) {
				s += n;
				len -= n;
				break;
			}
		}
		if (i == sizeof(runtimes) / sizeof(runtimes[0]))
			return false;
	}
	if (len != GPD_POD_CONTAINER_ID_MAX - 1)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!is_hex(s[i]))
			return false;
	memcpy(id, s, len);
	id[len] = '\0';
	return true;
}

/* The pod UID a path component names, into uid:
 *   cgroupfs  "pod" UID, below a "kubepods" component
 *   systemd   "...kubepods-[QOS-]pod" UID ".slice" */
static bool take_pod(const char *s, size_t len, bool below_kubepods, char *uid)
{
	static const char slice[] = ".slice";
	if (below_kubepods && len > 3 && !memcmp(s, "pod", 3))
		return take_uid(s + 3, len - 3, uid);
	if (len <= sizeof(slice) - 1 ||
	    memcmp(s + len - (sizeof(slice) - 1), slice, sizeof(slice) - 1))
		return false;
	len -= sizeof(slice) - 1;
	const char *kubepods = memmem(s, len, "kubepods-", 9);
	if (!kubepods)
		return false;
	/* The last "-pod": a QoS class never has one. */
	const char *pod = NULL;
	for (const char *p = kubepods; (p = memmem(p, len - (size_t)(p - s), "-pod", 4));
	     p += 4)
		pod = p;
	if (!pod)
		return false;
	pod += 4;
	return take_uid(pod, len - (size_t)(pod - s), uid);
}

/* One line's path: the pod's component, then the container's right
 * below it. */
static bool parse_path(const char *path, size_t len, struct gpd_pod *pod)
{
	bool below_kubepods = false, in_pod = false;
	const char *end = path + len;
	for (const char *c = path; c < end;) {
		while (c < end && *c == '/')
			c++;
		const char *next = memchr(c, '/', (size_t)(end - c));
		size_t n = (size_t)((next ? next : end) - c);
		if (!n)
			break;
		if (in_pod) {
			if (!take_container(c, n, pod->container_id))
				pod->container_id[0] = '\0';
			return true;
		}
		if (take_pod(c, n, below_kubepods, pod->pod_uid))
			in_pod = true;
		else if (n == 8 && !memcmp(c, "kubepods", 8))
			below_kubepods = true;
		c += n;
	}
	return in_pod;
}

void gpd_cgroup_pod_parse(const char *text, struct gpd_pod *pod)
{
	memset(pod, 0, sizeof(*pod));
	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n");
		const char *colon = memchr(line, ':', len);
		colon = colon ? memchr(colon + 1, ':', len - (size_t)(colon + 1 - line)) : NULL;
		if (colon && parse_path(colon + 1, len - (size_t)(colon + 1 - line), pod))
			return;
		memset(pod, 0, sizeof(*pod));
		line += len;
		if (*line)
			line++;
	}
}

int gpd_cgroup_pod_read(const char *proc_root, int32_t pid, struct gpd_pod *pod)
{
	/* Each of cgroup v1's hierarchies has a line: a dozen, ~100 bytes. */
	char text[4096];
	memset(pod, 0, sizeof(*pod));
	int ret = gpd_sysfs_read(text, sizeof(text), "%s/%d/cgroup", proc_root, pid);
	if (!ret)
		gpd_cgroup_pod_parse(text, pod);
	return ret;
}
