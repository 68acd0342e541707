/*
 * libgpuperf's errors without a daemon: the daemon's codes map onto the
 * errno values gpuperf.h documents, a refusal without a message gets the
 * library's words for its code, and each code the library returns has
 * words of its own.
 */
#include <errno.h>
#include <string.h>

#include "client/lib/client_internal.h"
#include "tests/unit/test_util.h"

/* The table of client/include/gpuperf.h. */
static const struct {
	Gpuperf__ErrorCode server;
	int code;
	const char *words;
} documented[] = {
	{ GPUPERF__ERROR_CODE__UNAUTHENTICATED, -EACCES,
	  "the daemon wants a valid token" },
	{ GPUPERF__ERROR_CODE__PERMISSION_DENIED, -EPERM,
	  "only a controller may do that" },
	{ GPUPERF__ERROR_CODE__NOT_FOUND, -ENOENT,
	  "no such device, metric set, counter or id" },
	{ GPUPERF__ERROR_CODE__BUSY, -EBUSY, "the device runs something else" },
	{ GPUPERF__ERROR_CODE__INVALID_ARGUMENT, -EINVAL, NULL },
	{ GPUPERF__ERROR_CODE__RATE_LIMITED, -EAGAIN,
	  "too many requests; try again later" },
	{ GPUPERF__ERROR_CODE__RESOURCE_EXHAUSTED, -ENOBUFS,
	  "a limit of the daemon was reached" },
	{ GPUPERF__ERROR_CODE__UNAVAILABLE, -ENODEV,
	  "the device cannot stream right now" },
	{ GPUPERF__ERROR_CODE__MALFORMED, -EPROTO,
	  "a message broke the protocol" },
	{ GPUPERF__ERROR_CODE__TOO_LARGE, -EMSGSIZE, "a message was too large" },
	{ GPUPERF__ERROR_CODE__INTERNAL, -EIO, NULL },
};
#define N_DOCUMENTED (sizeof(documented) / sizeof(documented[0]))

START_TEST(daemon_codes_map_as_documented)
{
	for (size_t i = 0; i < N_DOCUMENTED; i++)
		ck_assert_msg(gpc__server_code_to_errno(documented[i].server) ==
			      documented[i].code, "daemon code %d",
			      documented[i].server);
	/* A code this library does not know (a newer daemon's) is the
	 * daemon's internal error, not success. */
	ck_assert_int_eq(gpc__server_code_to_errno(
				 GPUPERF__ERROR_CODE__ERROR_CODE_UNSPECIFIED), -EIO);
	ck_assert_int_eq(gpc__server_code_to_errno((Gpuperf__ErrorCode)99), -EIO);
}
END_TEST

/* The daemon's message is kept; without one, the library's words for the
 * code stand in. Either way the daemon's code is kept beside the errno. */
START_TEST(refusal_without_message_gets_words)
{
	struct gpc_error err;
	Gpuperf__Error e = GPUPERF__ERROR__INIT;

	for (size_t i = 0; i < N_DOCUMENTED; i++) {
		e.code = documented[i].server;
		const char *words = documented[i].words ?
			documented[i].words : strerror(-documented[i].code);

		e.message = "metric set NoSuchSet: see gpuperf list";
		gpc__error_from_server(&err, &e);
		ck_assert_int_eq(err.code, documented[i].code);
		ck_assert_int_eq(err.server, (int)documented[i].server);
		ck_assert_str_eq(err.message, e.message);

		e.message = "";
		gpc__error_from_server(&err, &e);
		ck_assert_str_eq(err.message, words);
		e.message = NULL;
		gpc__error_from_server(&err, &e);
		ck_assert_str_eq(err.message, words);
	}
	e.code = (Gpuperf__ErrorCode)99;
	gpc__error_from_server(&err, &e);
	ck_assert_int_eq(err.code, -EIO);
	ck_assert_int_eq(err.server, 99);
	ck_assert_str_eq(err.message, strerror(EIO));
}
END_TEST

/* Each code the library documents as its own has words saying what
 * happened; other errno values get the system's; a code that is no
 * negative errno is unknown. */
START_TEST(words_for_each_code)
{
	static const struct {
		int code;
		const char *words;
	} own[] = {
		{ 0, "success" },
		{ -ECONNREFUSED, "cannot connect to the daemon" },
		{ -ECONNRESET, "the connection to the daemon ended" },
		{ -ETIMEDOUT, "the daemon did not answer in time" },
		{ -ENOTSUP, "the daemon speaks another protocol version" },
		{ -ECANCELED, "the client was closed first" },
		{ -ENOTCONN, "not connected" },
		{ -EDEADLK, "a waiting call from inside a callback of its loop" },
		{ -ENOMEM, NULL },
		{ 5, "unknown error" },
	};
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		ck_assert_str_eq(gpc_strerror(own[i].code), own[i].words ?
				 own[i].words : strerror(-own[i].code));
	for (size_t i = 0; i < N_DOCUMENTED; i++)
		ck_assert_str_eq(gpc_strerror(documented[i].code),
				 documented[i].words ? documented[i].words :
				 strerror(-documented[i].code));
}
END_TEST

static Suite *client_error_suite(void)
{
	Suite *s = suite_create("client_error");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, daemon_codes_map_as_documented);
	tcase_add_test(tc, refusal_without_message_gets_words);
	tcase_add_test(tc, words_for_each_code);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(client_error_suite)
