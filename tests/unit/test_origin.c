/*
 * Host and Origin checks: which names and pages count as the daemon's own
 * for a connection that arrived on a given address.
 */
#include <arpa/inet.h>
#include <string.h>

#include "daemon/net/origin.h"
#include "tests/unit/test_util.h"

static struct sockaddr_storage address(const char *ip)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
	if (inet_pton(AF_INET, ip, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
	} else {
		ck_assert_int_eq(inet_pton(AF_INET6, ip, &v6->sin6_addr), 1);
		v6->sin6_family = AF_INET6;
	}
	return ss;
}

static bool host_ok(const struct gpd_origin_policy *p, const char *host,
		    const char *arrived_on)
{
	struct sockaddr_storage local = address(arrived_on);
	return gpd_origin_host_allowed(p, host, (struct sockaddr *)&local);
}

START_TEST(host_names_the_address_arrived_on)
{
	struct gpd_origin_policy none = { 0 };
	ck_assert(host_ok(&none, "127.0.0.1:7890", "127.0.0.1"));
	ck_assert(host_ok(&none, "127.0.0.1", "127.0.0.1"));
	ck_assert(host_ok(&none, "localhost:7890", "127.0.0.1"));
	ck_assert(host_ok(&none, "LocalHost.:7890", "127.0.0.1"));
	ck_assert(host_ok(&none, "[::1]:7890", "::1"));
	ck_assert(host_ok(&none, "localhost:7890", "::1"));
	ck_assert(host_ok(&none, "192.168.1.20:7890", "192.168.1.20"));
	/* A dual-stack socket sees IPv4 clients as v4-mapped addresses. */
	ck_assert(host_ok(&none, "192.168.1.20:7890", "::ffff:192.168.1.20"));
	/* DNS rebinding: the attacker's name, resolved to the daemon. */
	ck_assert(!host_ok(&none, "attacker.example", "127.0.0.1"));
	ck_assert(!host_ok(&none, "attacker.example:7890", "192.168.1.20"));
	/* localhost is a name for loopback addresses only. */
	ck_assert(!host_ok(&none, "localhost:7890", "192.168.1.20"));
	ck_assert(!host_ok(&none, "localhost.attacker.example", "127.0.0.1"));
	/* Another address of the machine is not the one the request came to. */
	ck_assert(!host_ok(&none, "192.168.1.21:7890", "192.168.1.20"));
	ck_assert(!host_ok(&none, "127.0.0.2:7890", "127.0.0.1"));
	/* No Host, or one that is no host. */
	ck_assert(!host_ok(&none, NULL, "127.0.0.1"));
	ck_assert(!host_ok(&none, "", "127.0.0.1"));
	ck_assert(!host_ok(&none, ":7890", "127.0.0.1"));
	ck_assert(!host_ok(&none, "127.0.0.1:99999", "127.0.0.1"));
	ck_assert(!host_ok(&none, "127.0.0.1:80x", "127.0.0.1"));
	ck_assert(!host_ok(&none, "[::1", "::1"));
	ck_assert(!host_ok(&none, "user@127.0.0.1", "127.0.0.1"));
}
END_TEST

START_TEST(server_names_are_hosts_too)
{
	static const char *const names[] = { "gpu.example.com", "gpubox" };
	struct gpd_origin_policy p = { .server_names = names, .n_server_names = 2 };
	ck_assert(host_ok(&p, "gpu.example.com", "10.0.0.5"));
	ck_assert(host_ok(&p, "GPU.Example.com:443", "127.0.0.1"));
	ck_assert(host_ok(&p, "gpubox:7890", "10.0.0.5"));
	ck_assert(!host_ok(&p, "evil.gpu.example.com", "10.0.0.5"));
	ck_assert(host_ok(&p, "10.0.0.5:7890", "10.0.0.5"));
}
END_TEST

START_TEST(origin_must_be_the_page_of_this_server)
{
	struct gpd_origin_policy none = { 0 };
	ck_assert(gpd_origin_allowed(&none, "http://127.0.0.1:7890", "127.0.0.1:7890", false));
	ck_assert(gpd_origin_allowed(&none, "http://localhost:7890", "localhost:7890", false));
	ck_assert(gpd_origin_allowed(&none, "http://[::1]:7890", "[::1]:7890", false));
	ck_assert(gpd_origin_allowed(&none, "https://gpu.example.com", "gpu.example.com:443", true));
	ck_assert(gpd_origin_allowed(&none, "http://gpu.example.com:80", "gpu.example.com", false));
	/* Cross-site WebSocket hijacking: another site's page. */
	ck_assert(!gpd_origin_allowed(&none, "https://evil.example.com", "127.0.0.1:7890", false));
	/* Another server of the same machine: another port is another origin. */
	ck_assert(!gpd_origin_allowed(&none, "http://127.0.0.1:8000", "127.0.0.1:7890", false));
	/* The scheme is the listener's. */
	ck_assert(!gpd_origin_allowed(&none, "https://127.0.0.1:7890", "127.0.0.1:7890", false));
	ck_assert(!gpd_origin_allowed(&none, "http://127.0.0.1:7890", "127.0.0.1:7890", true));
	/* Same address, another spelling of the host: not the same origin. */
	ck_assert(!gpd_origin_allowed(&none, "http://localhost:7890", "127.0.0.1:7890", false));
	/* Sandboxed frames and files send "null". */
	ck_assert(!gpd_origin_allowed(&none, "null", "127.0.0.1:7890", false));
	ck_assert(!gpd_origin_allowed(&none, "file://", "127.0.0.1:7890", false));
	ck_assert(!gpd_origin_allowed(&none, NULL, "127.0.0.1:7890", false));
}
END_TEST

START_TEST(allowed_origins_admit_other_pages)
{
	static const char *const origins[] = {
		"https://ui.example.com:8443", "http://dash.example.com/",
	};
	struct gpd_origin_policy p = { .allowed_origins = origins, .n_allowed_origins = 2 };
	ck_assert(gpd_origin_allowed(&p, "https://ui.example.com:8443", "127.0.0.1:7890", false));
	ck_assert(gpd_origin_allowed(&p, "https://UI.example.com:8443", "127.0.0.1:7890", false));
	ck_assert(gpd_origin_allowed(&p, "http://dash.example.com", "10.0.0.5:7890", false));
	ck_assert(gpd_origin_allowed(&p, "http://dash.example.com:80", "10.0.0.5:7890", false));
	ck_assert(!gpd_origin_allowed(&p, "https://ui.example.com", "127.0.0.1:7890", false));
	ck_assert(!gpd_origin_allowed(&p, "http://ui.example.com:8443", "127.0.0.1:7890", false));

	ck_assert_int_eq(gpd_origin_parse_option("https://ui.example.com:8443"), 0);
	ck_assert_int_eq(gpd_origin_parse_option("http://[::1]:7890"), 0);
	ck_assert_int_ne(gpd_origin_parse_option("ui.example.com"), 0);
	ck_assert_int_ne(gpd_origin_parse_option("ftp://ui.example.com"), 0);
	ck_assert_int_ne(gpd_origin_parse_option("https://ui.example.com/path"), 0);
	ck_assert_int_ne(gpd_origin_parse_option("*"), 0);
}
END_TEST

static Suite *origin_suite(void)
{
	Suite *s = suite_create("origin");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, host_names_the_address_arrived_on);
	tcase_add_test(tc, server_names_are_hosts_too);
	tcase_add_test(tc, origin_must_be_the_page_of_this_server);
	tcase_add_test(tc, allowed_origins_admit_other_pages);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(origin_suite)
