/*
 * Tokens and trusted addresses: the token file's format and its errors,
 * bearer headers, role lookup, loopback detection.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "daemon/net/auth.h"
#include "tests/unit/test_util.h"

/* Tokens of 128 bits and more: 32 hex digits, 22 of base64. */
#define ABC "abc0123456789abcdef0123456789abc"
#define DEF "def0123456789abcdef0123456789def"

static const char *write_file(char *path, const char *text)
{
	strcpy(path, "/tmp/test-auth-XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

START_TEST(tokens_load_with_roles)
{
	char path[64];
	struct gpd_auth auth;
	struct gpd_error err;
	enum gpd_role role;
	write_file(path, "# comment\n\n" ABC " viewer\n  " DEF "\tcontroller  \r\n");
	ck_assert_int_eq(gpd_auth_load(&auth, path, &err), 0);
	unlink(path);
	ck_assert_uint_eq(auth.n_tokens, 2);
	ck_assert_int_eq(gpd_auth_check(&auth, ABC, 32, &role), 0);
	ck_assert_int_eq(role, GPD_ROLE_VIEWER);
	ck_assert_int_eq(gpd_auth_check(&auth, DEF, 32, &role), 0);
	ck_assert_int_eq(role, GPD_ROLE_CONTROLLER);
	ck_assert_int_eq(gpd_auth_check(&auth, ABC, 31, &role), -EACCES);
	ck_assert_int_eq(gpd_auth_check(&auth, ABC "d", 33, &role), -EACCES);
	ck_assert_int_eq(gpd_auth_check(&auth, "", 0, &role), -EACCES);
	/* A token given with its length need not be NUL-terminated. */
	ck_assert_int_eq(gpd_auth_check(&auth, DEF "XYZ", 32, &role), 0);
	gpd_auth_fini(&auth);
}
END_TEST

START_TEST(bad_token_files_say_where)
{
	char path[64];
	struct gpd_auth auth;
	struct gpd_error err;
	write_file(path, ABC " viewer\n" DEF " admin\n");
	ck_assert_int_eq(gpd_auth_load(&auth, path, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.message, ":2:"));
	unlink(path);
	write_file(path, ABC " viewer extra\n");
	ck_assert_int_eq(gpd_auth_load(&auth, path, &err), -EINVAL);
	unlink(path);
	write_file(path, "# nothing\n");
	ck_assert_int_eq(gpd_auth_load(&auth, path, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.message, "no tokens"));
	unlink(path);
	ck_assert_int_eq(gpd_auth_load(&auth, "/nonexistent/tokens", &err), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err.message, "/nonexistent/tokens"));
}
END_TEST

/* A token that could be guessed is refused, with its line: under 128
 * bits as it is written (31 hex digits, 21 of base64, 38 decimal). */
START_TEST(short_tokens_are_refused)
{
	static const char *const weak[] = {
		"0123456789abcdef0123456789abcde",
		"ABCDEFGHIJKLMNOPQRSTu",
		"01234567890123456789012345678901234567",
		"secret",
	};
	static const char *const strong[] = {
		"0123456789abcdef0123456789abcdef",
		"ABCDEFGHIJKLMNOPQRSTuv",
		"012345678901234567890123456789012345678",
	};
	char path[64], text[128];
	struct gpd_auth auth;
	struct gpd_error err;
	for (size_t i = 0; i < sizeof(weak) / sizeof(weak[0]); i++) {
		snprintf(text, sizeof(text), ABC " viewer\n%s controller\n",
			 weak[i]);
		write_file(path, text);
		ck_assert_int_eq(gpd_auth_load(&auth, path, &err), -EINVAL);
		ck_assert_msg(strstr(err.message, ":2:") &&
			      strstr(err.message, "128 bits"), "%s", err.message);
		unlink(path);
	}
	for (size_t i = 0; i < sizeof(strong) / sizeof(strong[0]); i++) {
		snprintf(text, sizeof(text), "%s viewer\n", strong[i]);
		write_file(path, text);
		ck_assert_msg(gpd_auth_load(&auth, path, &err) == 0, "%s: %s",
			      strong[i], err.message);
		gpd_auth_fini(&auth);
		unlink(path);
	}
}
END_TEST

START_TEST(bearer_headers)
{
	const char *token;
	size_t len;
	ck_assert_int_eq(gpd_auth_parse_bearer("Bearer abc", &token, &len), 0);
	ck_assert_uint_eq(len, 3);
	ck_assert_int_eq(strncmp(token, "abc", 3), 0);
	ck_assert_int_eq(gpd_auth_parse_bearer("  bearer   xyz  ", &token, &len), 0);
	ck_assert_uint_eq(len, 3);
	ck_assert_int_eq(strncmp(token, "xyz", 3), 0);
	ck_assert_int_eq(gpd_auth_parse_bearer("Basic abc", &token, &len), -EINVAL);
	ck_assert_int_eq(gpd_auth_parse_bearer("Bearer ", &token, &len), -EINVAL);
	ck_assert_int_eq(gpd_auth_parse_bearer("", &token, &len), -EINVAL);
}
END_TEST

START_TEST(loopback_addresses)
{
	ck_assert(gpd_auth_is_loopback("127.0.0.1"));
	ck_assert(gpd_auth_is_loopback("127.1.2.3"));
	ck_assert(gpd_auth_is_loopback("::1"));
	ck_assert(gpd_auth_is_loopback("::ffff:127.0.0.1"));
	ck_assert(gpd_auth_is_loopback("localhost"));
	ck_assert(!gpd_auth_is_loopback("0.0.0.0"));
	ck_assert(!gpd_auth_is_loopback("::"));
	ck_assert(!gpd_auth_is_loopback("10.0.0.1"));
	ck_assert(!gpd_auth_is_loopback("128.0.0.1"));
	/* IPv4 through an IPv6 socket: loopback only if the IPv4 one is. */
	ck_assert(!gpd_auth_is_loopback("::ffff:10.0.0.1"));
	ck_assert(!gpd_auth_is_loopback("::ffff:128.0.0.1"));
	ck_assert(!gpd_auth_is_loopback("::127.0.0.1"));
	ck_assert(!gpd_auth_is_loopback("example.com"));
}
END_TEST

START_TEST(role_names)
{
	enum gpd_role role;
	ck_assert_int_eq(gpd_role_parse("viewer", &role), 0);
	ck_assert_str_eq(gpd_role_name(role), "viewer");
	ck_assert_int_eq(gpd_role_parse("controller", &role), 0);
	ck_assert_str_eq(gpd_role_name(role), "controller");
	ck_assert_int_eq(gpd_role_parse("Controller", &role), -EINVAL);
}
END_TEST

static Suite *auth_suite(void)
{
	Suite *s = suite_create("auth");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, tokens_load_with_roles);
	tcase_add_test(tc, bad_token_files_say_where);
	tcase_add_test(tc, short_tokens_are_refused);
	tcase_add_test(tc, bearer_headers);
	tcase_add_test(tc, loopback_addresses);
	tcase_add_test(tc, role_names);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(auth_suite)
