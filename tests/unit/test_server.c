/*
 * The server's options and its life: what is refused before anything is
 * opened, and a server that refused to start finished again as gpuperfd's
 * main does without harm.
 */
#include <errno.h>
#include <string.h>

#include "daemon/device_registry.h"
#include "daemon/net/server.h"
#include "tests/unit/test_util.h"

START_TEST(refused_server_finishes_twice)
{
	static const char *const listen[] = { "127.0.0.1:0", "0.0.0.0:0" };
	struct gpd_server_options o = { .listen = listen, .n_listen = 2 };
	struct gpd_device_registry devices = { 0 };
	struct gpd_server server;
	struct gpd_error err = { 0 };
	uv_loop_t loop;

	ck_assert_int_eq(uv_loop_init(&loop), 0);
	ck_assert_int_eq(gpd_server_init(&server, &loop, &devices, &o, &err),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.message, "needs --token-file"));
	/* main() finishes the server whether or not it started. */
	gpd_server_fini(&server);
	gpd_server_fini(&server);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

START_TEST(options_checked_alone)
{
	static const char *const good[] = { "127.0.0.1:0", "[::1]:0",
					    "localhost:7890" };
	static const char *const remote[] = { "10.0.0.1:7890" };
	struct gpd_server_options o = { .listen = good, .n_listen = 3 };
	struct gpd_error err = { 0 };

	ck_assert_int_eq(gpd_server_check_options(&o, &err), 0);
	o.listen = remote;
	o.n_listen = 1;
	ck_assert_int_eq(gpd_server_check_options(&o, &err), -EINVAL);
	o.token_file = "/tokens";
	ck_assert_int_eq(gpd_server_check_options(&o, &err), 0);
	o = (struct gpd_server_options){ .tls_cert = "/cert" };
	ck_assert_int_eq(gpd_server_check_options(&o, &err), -EINVAL);
	ck_assert_str_eq(err.message, "--tls-cert and --tls-key go together");
}
END_TEST

static Suite *server_suite(void)
{
	Suite *s = suite_create("server");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, refused_server_finishes_twice);
	tcase_add_test(tc, options_checked_alone);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(server_suite)
