/*
 * The words a user reads when gpuperfd cannot listen where --listen says:
 * an address in use (IPv4 and IPv6, bracketed), an address no interface
 * has, a port below 1024 without the privilege; a host that is no
 * address is left to libwebsockets (0).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/net/listen_probe.h"
#include "tests/unit/test_util.h"

/* A socket listening on host at a port the kernel picks; -1 if this
 * machine has no such address (no IPv6). */
static int hold_port(int family, const char *host, int *port)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	socklen_t len;
	if (family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		ck_assert_int_eq(inet_pton(AF_INET6, host, &a->sin6_addr), 1);
		len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		ck_assert_int_eq(inet_pton(AF_INET, host, &a->sin_addr), 1);
		len = sizeof(*a);
	}
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 1) ||
	    getsockname(fd, (struct sockaddr *)&ss, &len)) {
		close(fd);
		return -1;
	}
	*port = ntohs(family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
		      : ((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

START_TEST(address_in_use_says_how_to_find_who)
{
	int port;
	int fd = hold_port(AF_INET, "127.0.0.1", &port);
	ck_assert_int_ge(fd, 0);
	struct gpd_error err = { 0 };
	ck_assert_int_eq(gpd_listen_probe("127.0.0.1", port, &err), -EADDRINUSE);
	char words[256];
	snprintf(words, sizeof(words), "cannot listen on 127.0.0.1:%d: the "
		 "address is in use by another program; `ss -ltnp 'sport = "
		 ":%d'` (as root for other users' programs) shows which. Stop "
		 "it, or give gpuperfd another --listen port", port, port);
	ck_assert_str_eq(err.message, words);
	close(fd);
	/* Free again: nothing to say. */
	ck_assert_int_eq(gpd_listen_probe("127.0.0.1", port, &err), 0);

	fd = hold_port(AF_INET6, "::1", &port);
	if (fd < 0)
		TEST_SKIP("IPv6 address in use", "an IPv6 loopback");
	ck_assert_int_eq(gpd_listen_probe("::1", port, &err), -EADDRINUSE);
	snprintf(words, sizeof(words), "cannot listen on [::1]:%d: the "
		 "address is in use by another program; `ss -ltnp 'sport = "
		 ":%d'` (as root for other users' programs) shows which. Stop "
		 "it, or give gpuperfd another --listen port", port, port);
	ck_assert_str_eq(err.message, words);
	close(fd);
}
END_TEST

/* 192.0.2.1 is TEST-NET-1 (RFC 5737): no machine's interface has it. */
START_TEST(address_of_no_interface_says_how_to_list_them)
{
	struct gpd_error err = { 0 };
	ck_assert_int_eq(gpd_listen_probe("192.0.2.1", 8080, &err),
			 -EADDRNOTAVAIL);
	ck_assert_str_eq(err.message, "cannot listen on 192.0.2.1:8080: no "
			 "network interface of this machine has the address "
			 "192.0.2.1; `ip address` lists them");
}
END_TEST

/* A host that is no numeric address (a name) is libwebsockets' to
 * resolve: the probe says nothing. */
START_TEST(names_are_left_to_the_listener)
{
	struct gpd_error err = { 0 };
	ck_assert_int_eq(gpd_listen_probe("localhost", 8080, &err), 0);
	ck_assert_int_eq(gpd_listen_probe("fe80::zz", 8080, &err), 0);
	ck_assert_str_eq(err.message, "");
}
END_TEST

/* Without CAP_NET_BIND_SERVICE a port under
 * net.ipv4.ip_unprivileged_port_start (1024 by default) is EACCES
 * (inet_bind_sk() via inet_port_requires_bind_service()). As root the
 * test takes an unprivileged effective uid for the probe, and back. */
START_TEST(low_port_without_privilege_says_choose_another)
{
	FILE *f = fopen("/proc/sys/net/ipv4/ip_unprivileged_port_start", "r");
	unsigned start = 1024;
	if (f) {
		if (fscanf(f, "%u", &start) != 1)
			start = 1024;
		fclose(f);
	}
	if (start <= 80)
		TEST_SKIP("low port refusal", "net.ipv4.ip_unprivileged_port_start "
			  "above 80 (it is %u)", start);
	bool root = geteuid() == 0;
	if (root)
		ck_assert_int_eq(seteuid(65534), 0);
	struct gpd_error err = { 0 };
	int ret = gpd_listen_probe("127.0.0.1", 80, &err);
	if (root)
		ck_assert_int_eq(seteuid(0), 0);
	ck_assert_int_eq(ret, -EACCES);
	ck_assert_str_eq(err.message, "cannot listen on 127.0.0.1:80: ports below "
			 "1024 need root or CAP_NET_BIND_SERVICE; choose a port "
			 "from 1024 up");
}
END_TEST

static Suite *listen_probe_suite(void)
{
	Suite *s = suite_create("listen_probe");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, address_in_use_says_how_to_find_who);
	tcase_add_test(tc, address_of_no_interface_says_how_to_list_them);
	tcase_add_test(tc, names_are_left_to_the_listener);
	tcase_add_test(tc, low_port_without_privilege_says_choose_another);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(listen_probe_suite)
