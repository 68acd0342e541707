/*
 * The server's options and its life: what is refused before anything is
 * opened, and a server that refused to start finished again as gpuperfd's
 * main does without harm. Its sessions without sockets: wrong tokens and
 * their brake, tokens a reload removes, clients past the rate limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/device_registry.h"
#include "daemon/log.h"
#include "daemon/net/fd_socket.h"
#include "daemon/net/server.h"
#include "daemon/net/session.h"
#include "tests/unit/test_util.h"

#define TOKEN_A "token-a-0123456789abcdefghijkl"
#define TOKEN_B "token-b-0123456789abcdefghijkl"

struct served {
	uv_loop_t loop;
	struct gpd_device_registry devices;
	struct gpd_server server;
	char path[64];
};

static void write_tokens(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* A server without listeners, tokens in a file of its own. */
static void serve(struct served *sv, uint32_t requests_per_second)
{
	memset(sv, 0, sizeof(*sv));
	gpd_log_set_level(GPD_LOG_ERROR);
	snprintf(sv->path, sizeof(sv->path), "/tmp/test-server-%d", (int)getpid());
	write_tokens(sv->path, TOKEN_A " controller\n" TOKEN_B " viewer\n");
	static const char *const listen[] = { "127.0.0.1:0", "0.0.0.0:0" };
	struct gpd_server_options o = {
		.listen = listen, .n_listen = 2, .token_file = sv->path,
		.max_requests_per_second = requests_per_second,
	};
	struct gpd_error err = { 0 };
	ck_assert_int_eq(uv_loop_init(&sv->loop), 0);
	ck_assert_msg(gpd_server_init(&sv->server, &sv->loop, &sv->devices, &o,
				      &err) == 0, "%s", err.message);
}

static void unserve(struct served *sv)
{
	while (sv->server.sessions)
		gpd_session_destroy(sv->server.sessions);
	gpd_server_stop(&sv->server);
	uv_run(&sv->loop, UV_RUN_DEFAULT);
	gpd_server_fini(&sv->server);
	unlink(sv->path);
	ck_assert_int_eq(uv_loop_close(&sv->loop), 0);
}

static void wake(void *user)
{
}

static struct gpd_session *connect_from(struct served *sv, const char *address,
					bool trusted, const char *bearer)
{
	struct gpd_session_transport t = { .wake = wake };
	struct gpd_session_peer peer = { .trusted = trusted, .address = address };
	struct gpd_session *s;
	ck_assert_int_eq(gpd_session_create(&sv->server, &t, &peer, bearer, &s), 0);
	return s;
}

/* What the session queued: how many of each kind; the last error's code
 * and words into code and why (when not NULL). */
static unsigned take_queued(struct gpd_session *s, unsigned *hellos,
			    unsigned *pongs, unsigned *limited, int *code,
			    char *why, size_t size)
{
	struct gpd_message *m;
	unsigned n = 0;
	while ((m = gpd_session_pop(s))) {
		Gpuperf__Envelope *env = gpuperf__envelope__unpack(NULL, m->len,
								    m->data);
		ck_assert_ptr_nonnull(env);
		n++;
		if (hellos)
			*hellos += env->kind_case == GPUPERF__ENVELOPE__KIND_HELLO;
		if (pongs)
			*pongs += env->kind_case == GPUPERF__ENVELOPE__KIND_PONG;
		if (env->kind_case == GPUPERF__ENVELOPE__KIND_ERROR) {
			if (limited)
				*limited += env->error->code ==
					    GPUPERF__ERROR_CODE__RATE_LIMITED;
			if (code)
				*code = (int)env->error->code;
			if (why)
				snprintf(why, size, "%s", env->error->message);
		}
		gpuperf__envelope__free_unpacked(env, NULL);
		free(m);
	}
	return n;
}

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

/* Each wrong token closes its connection; after a few from one address,
 * that address is refused unheard, the right token too; another address
 * is not. */
START_TEST(wrong_tokens_close_and_brake_their_address)
{
	struct served sv;
	serve(&sv, 0);
	char why[256];
	unsigned wrong = 0, braked = 0;
	for (int i = 0; i < 8; i++) {
		struct gpd_session *s = connect_from(&sv, "192.0.2.1", false,
						     "Bearer wrong-0123456789abcdefghijklm");
		int code = 0;
		take_queued(s, NULL, NULL, NULL, &code, why, sizeof(why));
		ck_assert(s->closing);
		wrong += code == GPUPERF__ERROR_CODE__UNAUTHENTICATED;
		braked += code == GPUPERF__ERROR_CODE__RATE_LIMITED;
		gpd_session_destroy(s);
	}
	ck_assert_uint_eq(wrong, GPD_AUTH_BRAKE_BURST);
	ck_assert_uint_eq(braked, 8 - GPD_AUTH_BRAKE_BURST);
	struct gpd_session *s = connect_from(&sv, "192.0.2.1", false,
					     "Bearer " TOKEN_A);
	int code = 0;
	take_queued(s, NULL, NULL, NULL, &code, why, sizeof(why));
	ck_assert(s->closing && !s->authenticated);
	ck_assert_int_eq(code, GPUPERF__ERROR_CODE__RATE_LIMITED);
	ck_assert_msg(strstr(why, "192.0.2.1"), "%s", why);
	gpd_session_destroy(s);
	unsigned hellos = 0;
	s = connect_from(&sv, "192.0.2.2", false, "Bearer " TOKEN_A);
	take_queued(s, &hellos, NULL, NULL, NULL, NULL, 0);
	ck_assert(s->authenticated && !s->closing);
	ck_assert_uint_eq(hellos, 1);
	unserve(&sv);
}
END_TEST

/* A reload that removes a token, or changes its role, closes the
 * connections that gave it, saying why; a broken file changes nothing. */
START_TEST(a_reload_closes_connections_whose_token_is_gone)
{
	struct served sv;
	serve(&sv, 0);
	struct gpd_session *a = connect_from(&sv, "192.0.2.1", false,
					     "Bearer " TOKEN_A);
	struct gpd_session *b = connect_from(&sv, "192.0.2.2", false,
					     "Bearer " TOKEN_B);
	struct gpd_session *local = connect_from(&sv, "127.0.0.1", true, NULL);
	take_queued(a, NULL, NULL, NULL, NULL, NULL, 0);
	take_queued(b, NULL, NULL, NULL, NULL, NULL, 0);
	take_queued(local, NULL, NULL, NULL, NULL, NULL, 0);
	ck_assert(a->authenticated && b->authenticated && local->authenticated);

	struct gpd_error err = { 0 };
	write_tokens(sv.path, TOKEN_B " viewer\n");
	ck_assert_int_eq(gpd_server_reload_tokens(&sv.server, sv.path, &err), 0);
	char why[256] = "";
	int code = 0;
	take_queued(a, NULL, NULL, NULL, &code, why, sizeof(why));
	ck_assert(a->closing);
	ck_assert_int_eq(code, GPUPERF__ERROR_CODE__UNAUTHENTICATED);
	ck_assert_msg(strstr(why, "removed"), "%s", why);
	ck_assert(!b->closing && !local->closing);

	/* A broken file: the line is named, every token and connection
	 * stays. */
	write_tokens(sv.path, TOKEN_B " viewer\n" TOKEN_A " admin\n");
	ck_assert_int_eq(gpd_server_reload_tokens(&sv.server, sv.path, &err),
			 -EINVAL);
	ck_assert_msg(strstr(err.message, ":2:"), "%s", err.message);
	ck_assert(!b->closing && !local->closing);

	write_tokens(sv.path, TOKEN_B " controller\n");
	ck_assert_int_eq(gpd_server_reload_tokens(&sv.server, sv.path, &err), 0);
	take_queued(b, NULL, NULL, NULL, &code, why, sizeof(why));
	ck_assert(b->closing);
	ck_assert_msg(strstr(why, "role"), "%s", why);
	ck_assert(!local->closing);
	unserve(&sv);
}
END_TEST

static void ping(struct gpd_session *s, uint64_t id)
{
	Gpuperf__Ping p = GPUPERF__PING__INIT;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.request_id = id;
	env.kind_case = GPUPERF__ENVELOPE__KIND_PING;
	env.ping = &p;
	uint8_t buf[64];
	size_t len = gpuperf__envelope__pack(&env, buf);
	gpd_session_receive(s, buf, len);
}

/* A client that goes on sending past a second's worth of refusals is
 * closed. */
START_TEST(requests_past_the_rate_limit_close)
{
	struct served sv;
	serve(&sv, 10);
	struct gpd_session *s = connect_from(&sv, "127.0.0.1", true, NULL);
	unsigned hellos = 0, pongs = 0, limited = 0;
	take_queued(s, &hellos, NULL, NULL, NULL, NULL, 0);
	for (uint64_t i = 1; i <= 1000 && !s->closing; i++)
		ping(s, i);
	take_queued(s, NULL, &pongs, &limited, NULL, NULL, 0);
	ck_assert(s->closing);
	/* The burst of twice the rate, then the rate's worth of refusals and
	 * the one that closes (and what a slow machine refills meanwhile). */
	ck_assert_uint_ge(pongs, 20);
	ck_assert_uint_le(pongs, 25);
	ck_assert_uint_ge(limited, 11);
	ck_assert_uint_le(limited, 13);
	unserve(&sv);
}
END_TEST

/* Passed DRM files are the daemon's descriptors: each connection holds
 * four at most, and all together --max-passed-fds; past it a file is
 * refused with words, and room comes back as files are used or their
 * connections go. */
START_TEST(passed_files_have_a_global_cap)
{
	struct served sv;
	memset(&sv, 0, sizeof(sv));
	gpd_log_set_level(GPD_LOG_ERROR);
	struct gpd_server_options o = { .max_passed_fds = 6 };
	struct gpd_error err = { 0 };
	ck_assert_int_eq(uv_loop_init(&sv.loop), 0);
	ck_assert_msg(gpd_server_init(&sv.server, &sv.loop, &sv.devices, &o,
				      &err) == 0, "%s", err.message);
	struct gpd_session *s[3];
	unsigned kept[3] = { 0 };
	for (int i = 0; i < 3; i++) {
		s[i] = connect_from(&sv, "", true, NULL);
		for (int j = 0; j < 4; j++) {
			int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
			uint32_t id;
			ck_assert_int_ge(fd, 0);
			if (gpd_session_keep_fd(s[i], fd, "sim0", &id, &err)) {
				close(fd);
				break;
			}
			kept[i]++;
		}
	}
	ck_assert_uint_eq(kept[0], 4);
	ck_assert_uint_eq(kept[1], 2);
	ck_assert_uint_eq(kept[2], 0);
	ck_assert_int_eq(err.code, -ENOBUFS);
	ck_assert_msg(strstr(err.message, "--max-passed-fds"), "%s", err.message);
	/* A connection that goes gives its files' room back. */
	gpd_session_destroy(s[0]);
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	uint32_t id;
	ck_assert_msg(gpd_session_keep_fd(s[2], fd, "sim0", &id, &err) == 0,
		      "%s", err.message);
	unserve(&sv);
}
END_TEST

/* A socket bound at path and left there, as by a daemon that died
 * (listening: as by one that runs). Its fd, or -1 once closed. */
static int socket_file(const char *path, bool listening)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	if (listening) {
		ck_assert_int_eq(listen(fd, 1), 0);
		return fd;
	}
	close(fd);
	return -1;
}

/* The fd socket (--unix PATH's PATH.fds) replaces only what --unix
 * would: a socket of this user's or root's that nothing answers on.
 * Anything else stays, and the daemon says why it does not start. */
START_TEST(the_fd_socket_replaces_only_a_dead_socket_of_its_own)
{
	struct served sv;
	serve(&sv, 0);
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test-server-fds-%d", (int)getpid());
	struct gpd_fd_socket *fs = NULL;
	struct gpd_error err = { 0 };
	struct stat st;

	write_tokens(path, "not a socket\n");
	ck_assert_int_eq(gpd_fd_socket_open(&sv.server, path, &fs, &err), -EEXIST);
	ck_assert_msg(strstr(err.message, "not a socket"), "%s", err.message);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	unlink(path);

	int busy = socket_file(path, true);
	ck_assert_int_eq(gpd_fd_socket_open(&sv.server, path, &fs, &err),
			 -EADDRINUSE);
	ck_assert_int_eq(lstat(path, &st), 0);
	close(busy);
	unlink(path);

	if (geteuid() == 0) {
		socket_file(path, false);
		ck_assert_int_eq(chown(path, 65534, 65534), 0);
		ck_assert_int_eq(gpd_fd_socket_open(&sv.server, path, &fs, &err),
				 -EPERM);
		ck_assert_msg(strstr(err.message, "65534"), "%s", err.message);
		ck_assert_int_eq(lstat(path, &st), 0);
		unlink(path);
	}

	socket_file(path, false);
	ck_assert_msg(gpd_fd_socket_open(&sv.server, path, &fs, &err) == 0, "%s",
		      err.message);
	gpd_fd_socket_close(fs);
	ck_assert_int_ne(lstat(path, &st), 0);
	unserve(&sv);
}
END_TEST

static Suite *server_suite(void)
{
	Suite *s = suite_create("server");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, refused_server_finishes_twice);
	tcase_add_test(tc, options_checked_alone);
	tcase_add_test(tc, wrong_tokens_close_and_brake_their_address);
	tcase_add_test(tc, a_reload_closes_connections_whose_token_is_gone);
	tcase_add_test(tc, requests_past_the_rate_limit_close);
	tcase_add_test(tc, passed_files_have_a_global_cap);
	tcase_add_test(tc, the_fd_socket_replaces_only_a_dead_socket_of_its_own);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(server_suite)
