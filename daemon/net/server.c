/*
 * The server: its options, its listeners, and libwebsockets on the
 * daemon's loop.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libwebsockets.h>

#include "daemon/clock.h"
#include "daemon/error.h"
#include "daemon/log.h"
#include "daemon/net/activity_socket.h"
#include "daemon/net/fd_socket.h"
#include "daemon/net/hello.h"
#include "daemon/net/http_routes.h"
#include "daemon/net/listen_probe.h"
#include "daemon/net/metrics_exporter.h"
#include "daemon/net/server.h"
#include "daemon/net/session.h"
#include "daemon/net/socket_path.h"
#include "daemon/net/web_root.h"
#include "daemon/net/ws_session.h"

enum {
	PROTOCOL_DEFAULT,
	PROTOCOL_HTTP,
	PROTOCOL_WS,
	PROTOCOL_END,
	N_PROTOCOLS,
};

enum {
	MOUNT_METRICS,
	MOUNT_HEALTHZ,
	MOUNT_ROOT,
	N_MOUNTS,
};

/* Idle connections get a ping after 30 s and are dropped 10 s later
 * without an answer (libwebsockets 4.1 has no ping interval of its own). */
static const lws_retry_bo_t idle_policy = {
	.secs_since_valid_ping = 30,
	.secs_since_valid_hangup = 40,
};

/* ADDR:PORT, [V6ADDR]:PORT; localhost means 127.0.0.1. */
static int parse_listen(const char *text, struct gpd_listener *l,
			struct gpd_error *err)
{
	const char *colon;
	size_t host_len;
	const char *host = text;
	if (text[0] == '[') {
		const char *close = strchr(text, ']');
		if (!close || close[1] != ':')
			goto bad;
		host = text + 1;
		host_len = (size_t)(close - host);
		colon = close + 1;
	} else {
		colon = strrchr(text, ':');
		if (!colon)
			goto bad;
		host_len = (size_t)(colon - text);
	}
	if (!host_len || host_len >= sizeof(l->host))
		goto bad;
	char *end;
	errno = 0;
	long port = strtol(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end || port < 0 || port > 65535)
		goto bad;
	memcpy(l->host, host, host_len);
	l->host[host_len] = '\0';
	if (!strcmp(l->host, "localhost"))
		strcpy(l->host, "127.0.0.1");
	l->port = (int)port;
	l->trusted = gpd_auth_is_loopback(l->host);
	return 0;
bad:
	return gpd_fail(err, -EINVAL, "--listen %s: expected ADDR:PORT, e.g. "
		    "127.0.0.1:7890 or [::1]:7890", text);
}

int gpd_process_details_parse(const char *text, enum gpd_process_details *out)
{
	static const char *const names[] = {
		[GPD_PROCESS_DETAILS_CONTROLLERS] = "controllers",
		[GPD_PROCESS_DETAILS_ALL] = "all",
		[GPD_PROCESS_DETAILS_NONE] = "none",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(text, names[i])) {
			*out = (enum gpd_process_details)i;
			return 0;
		}
	}
	return -EINVAL;
}

#define DEFAULT_MAX_CONNECTIONS 256

static void fill_defaults(struct gpd_server_options *o)
{
	if (!o->max_message_bytes)
		o->max_message_bytes = 64 * 1024;
	if (!o->max_connections)
		o->max_connections = DEFAULT_MAX_CONNECTIONS;
	/* Without a Unix socket there is nothing to keep room for. */
	if (!o->reserved_unix && o->unix_path)
		o->reserved_unix = o->max_connections / 4 < 16 ? o->max_connections / 4 : 16;
	if (!o->max_unauthenticated)
		o->max_unauthenticated = 32;
	if (!o->max_unauthenticated_per_peer)
		o->max_unauthenticated_per_peer = 4;
	if (!o->auth_timeout_ms)
		o->auth_timeout_ms = 3000;
	if (!o->send_budget)
		o->send_budget = 64u << 20;
	if (!o->max_requests_per_second)
		o->max_requests_per_second = 100;
	if (!o->max_subscriptions)
		o->max_subscriptions = 16;
	if (!o->max_evaluations)
		o->max_evaluations = 1000000;
	if (!o->queue_frames)
		o->queue_frames = 64;
	if (!o->max_passed_fds)
		o->max_passed_fds = 64;
	if (!o->metrics_window_ms)
		o->metrics_window_ms = 1000;
	if (!o->metrics_max_processes)
		o->metrics_max_processes = GPD_METRICS_MAX_PROCESSES;
	if (!o->max_recording_bytes)
		o->max_recording_bytes = 1ull << 30;
}

/* The TCP listeners' addresses (parsed into l when not NULL) and the
 * rule that one reachable from other machines needs tokens. */
static int check_tcp_listeners(const struct gpd_server_options *o,
			       struct gpd_listener *l, struct gpd_error *err)
{
	static const char *const default_listen[] = { GPD_DEFAULT_LISTEN };
	const char *const *listen = o->n_listen ? o->listen : default_listen;
	size_t n_tcp = o->no_tcp ? 0 : o->n_listen ? o->n_listen : 1;
	struct gpd_listener scratch;
	for (size_t i = 0; i < n_tcp; i++) {
		struct gpd_listener *to = l ? &l[i] : &scratch;
		memset(to, 0, sizeof(*to));
		int ret = parse_listen(listen[i], to, err);
		if (ret)
			return ret;
		if (!to->trusted && !o->token_file)
			return gpd_fail(err, -EINVAL,
				    "--listen %s is not a loopback address: other "
				    "machines could reach the GPU's counters, so "
				    "it needs --token-file (and --tls-cert/"
				    "--tls-key to keep the tokens secret)",
				    listen[i]);
	}
	return 0;
}

int gpd_server_check_options(const struct gpd_server_options *o,
			     struct gpd_error *err)
{
	if (!o->tls_cert != !o->tls_key)
		return gpd_fail(err, -EINVAL, "--tls-cert and --tls-key go together");
	uint32_t max_connections = o->max_connections ? o->max_connections
						      : DEFAULT_MAX_CONNECTIONS;
	if (o->reserved_unix >= max_connections)
		return gpd_fail(err, -EINVAL, "--reserved-unix %u leaves TCP clients "
				"no connection: keep it below --max-connections "
				"(%u)", o->reserved_unix, max_connections);
	for (size_t i = 0; i < o->n_allowed_origins; i++)
		if (gpd_origin_parse_option(o->allowed_origins[i]))
			return gpd_fail(err, -EINVAL, "--allow-origin %s: expected "
					"SCHEME://HOST[:PORT] as a browser sends "
					"it, e.g. https://ui.example.com:8443",
					o->allowed_origins[i]);
	return check_tcp_listeners(o, NULL, err);
}

static int make_listeners(struct gpd_server *s, struct gpd_error *err)
{
	const struct gpd_server_options *o = &s->options;
	size_t n_tcp = o->no_tcp ? 0 : o->n_listen ? o->n_listen : 1;
	size_t n = n_tcp + (o->unix_path ? 1 : 0);
	if (!n)
		return gpd_fail(err, -EINVAL, "nothing to listen on: give --listen "
			    "or --unix");
	s->listeners = calloc(n, sizeof(*s->listeners));
	if (!s->listeners)
		return gpd_fail(err, -ENOMEM, "out of memory");
	int ret = check_tcp_listeners(o, s->listeners, err);
	if (ret)
		return ret;
	for (size_t i = 0; i < n_tcp; i++) {
		struct gpd_listener *l = &s->listeners[s->n_listeners++];
		l->server = s;
		l->tls = o->tls_cert != NULL;
	}
	if (o->unix_path) {
		struct gpd_listener *l = &s->listeners[s->n_listeners++];
		l->server = s;
		l->trusted = true;
	}
	return 0;
}

/* How many bytes a Hello takes: no client's share of the send budget may
 * be smaller (gpd_session_share). */
static void measure_hello(struct gpd_server *s)
{
	struct gpd_send_queue q;
	Gpuperf__Limits limits = GPUPERF__LIMITS__INIT;
	gpd_send_queue_init(&q, 0, 0, SIZE_MAX);
	/* A Unix-socket session's Hello is the longest: it has the fd
	 * socket's path and its key. */
	char path[PATH_MAX];
	const uint8_t key[GPD_SESSION_KEY_BYTES] = { 0 };
	snprintf(path, sizeof(path), "%s.fds",
		 s->options.unix_path ? s->options.unix_path : "");
	struct gpd_message *m = gpd_hello_pack_session(
		s->hello, &q, UINT64_MAX, GPUPERF__ROLE__ROLE_CONTROLLER,
		&limits, path, key, sizeof(key));
	if (m)
		s->hello_bytes = m->len;
	free(m);
}

int gpd_server_init(struct gpd_server *s, uv_loop_t *loop,
		    const struct gpd_device_registry *devices,
		    const struct gpd_server_options *options,
		    struct gpd_error *err)
{
	memset(s, 0, sizeof(*s));
	s->loop = loop;
	s->devices = devices;
	s->options = *options;
	fill_defaults(&s->options);
	s->origin = (struct gpd_origin_policy){
		.server_names = options->server_names,
		.n_server_names = options->n_server_names,
		.allowed_origins = options->allowed_origins,
		.n_allowed_origins = options->n_allowed_origins,
	};
	int ret = gpd_server_check_options(options, err);
	if (!ret)
		ret = make_listeners(s, err);
	if (!ret && options->token_file)
		ret = gpd_auth_load(&s->auth, options->token_file, err);
	if (!ret && options->web_root) {
		s->web_root = malloc(sizeof(*s->web_root));
		ret = s->web_root ? gpd_web_root_init(s->web_root, options->web_root,
						      err)
				  : gpd_fail(err, -ENOMEM, "out of memory");
	}
	if (!ret && gpd_hello_create(devices, &s->hello))
		ret = gpd_fail(err, -ENOMEM, "out of memory describing the devices");
	if (!ret)
		measure_hello(s);
	if (!ret)
		ret = gpd_metrics_exporter_create(s, &s->exporter, err);
	if (ret) {
		gpd_server_fini(s);
		return ret;
	}
	return 0;
}

/* An upgrade naming no subprotocol binds to protocols[0]; refusing it
 * here keeps /ws to gpuperf.v1. Plain HTTP that no mount serves ends
 * here too. */
static int default_callback(struct lws *wsi, enum lws_callback_reasons reason,
			    void *user, void *in, size_t len)
{
	if (reason == LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION)
		return 1;
	if (reason == LWS_CALLBACK_FILTER_HTTP_CONNECTION) {
		char host[256];
		return gpd_http_refuse_host(wsi, host, sizeof(host));
	}
	return lws_callback_http_dummy(wsi, reason, user, in, len);
}

/* What libwebsockets says is mostly about a client's malformed or refused
 * request, which a client can repeat at will: at most a line every 10 s,
 * with how many were held back. Its log callback is process-wide and
 * takes no user data, so the throttle is too. */
static struct gpd_log_throttle lws_log_throttle;

static void lws_log(int level, const char *line)
{
	size_t n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	gpd_log_throttled(&lws_log_throttle,
			  level & LLL_ERR ? GPD_LOG_ERROR : GPD_LOG_WARNING,
			  "libwebsockets: %.*s", (int)n, line);
}

static int setup_protocols(struct gpd_server *s, struct gpd_error *err)
{
	s->protocols = calloc(N_PROTOCOLS, sizeof(*s->protocols));
	s->mounts = calloc(N_MOUNTS, sizeof(*s->mounts));
	if (!s->protocols || !s->mounts)
		return gpd_fail(err, -ENOMEM, "out of memory");
	/* A file mount's misses fall back to protocols[0]'s HTTP callback:
	 * it stays a dummy so they are 404s. */
	s->protocols[PROTOCOL_DEFAULT] = (struct lws_protocols){
		.name = "default",
		.callback = default_callback,
	};
	s->protocols[PROTOCOL_HTTP] = (struct lws_protocols){
		.name = GPD_HTTP_PROTOCOL,
		.callback = gpd_http_callback,
		.per_session_data_size = gpd_http_pss_size(),
	};
	s->protocols[PROTOCOL_WS] = (struct lws_protocols){
		.name = GPD_WS_PROTOCOL,
		.callback = gpd_ws_callback,
		.per_session_data_size = gpd_ws_pss_size(),
		.rx_buffer_size = 16384,
	};
	struct lws_http_mount *m = s->mounts;
	m[MOUNT_METRICS] = (struct lws_http_mount){
		.mount_next = &m[MOUNT_HEALTHZ],
		.mountpoint = "/metrics",
		.mountpoint_len = 8,
		.protocol = GPD_HTTP_PROTOCOL,
		.origin_protocol = LWSMPRO_CALLBACK,
	};
	m[MOUNT_HEALTHZ] = (struct lws_http_mount){
		.mount_next = &m[MOUNT_ROOT],
		.mountpoint = "/healthz",
		.mountpoint_len = 8,
		.protocol = GPD_HTTP_PROTOCOL,
		.origin_protocol = LWSMPRO_CALLBACK,
	};
	if (s->web_root)
		m[MOUNT_ROOT] = (struct lws_http_mount){
			.mountpoint = "/",
			.mountpoint_len = 1,
			.origin = s->web_root->real,
			.def = "index.html",
			.origin_protocol = LWSMPRO_FILE,
		};
	else
		m[MOUNT_ROOT] = (struct lws_http_mount){
			.mountpoint = "/",
			.mountpoint_len = 1,
			.protocol = GPD_HTTP_PROTOCOL,
			.origin_protocol = LWSMPRO_CALLBACK,
		};
	return 0;
}

static void describe(const struct gpd_listener *l, int port, char *buf,
		     size_t size)
{
	bool v6 = strchr(l->host, ':') != NULL;
	snprintf(buf, size, "%s://%s%s%s:%d/", l->tls ? "https" : "http",
		 v6 ? "[" : "", l->host, v6 ? "]" : "", port);
}

static int open_vhost(struct gpd_server *s, struct gpd_listener *l,
		      struct gpd_error *err)
{
	const struct gpd_server_options *o = &s->options;
	struct lws_context_creation_info info;
	memset(&info, 0, sizeof(info));
	info.protocols = s->protocols;
	info.mounts = s->mounts;
	info.user = l;
	info.retry_and_idle_policy = &idle_policy;
	info.options = LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE;
	info.server_string = "gpuperfd";
	char name[96];
	if (l->host[0]) {
		int ret = gpd_listen_probe(l->host, l->port, err);
		if (ret)
			return ret;
		bool any = !strcmp(l->host, "0.0.0.0") || !strcmp(l->host, "::");
		info.iface = any ? NULL : l->host;
		info.port = l->port;
		/* An IPv4 address binds an IPv4 socket. */
		if (!strchr(l->host, ':'))
			info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
		if (l->tls) {
			/* lws reads this vhost-level flag to enable TLS on
			 * the vhost, not only on the context. */
			info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
			info.ssl_cert_filepath = o->tls_cert;
			info.ssl_private_key_filepath = o->tls_key;
			/* Chromium opens its WebSockets over h2 (RFC 8441) when
			 * ALPN offers h2, and with lws 4.1 those never got their
			 * Hello: HTTP/1.1 only. */
			info.alpn = "http/1.1";
		}
		snprintf(name, sizeof(name), "%s:%d", l->host, l->port);
	} else {
		int ret = gpd_socket_path_clear(o->unix_path, SOCK_STREAM,
						"--unix", err);
		if (ret)
			return ret;
		info.iface = o->unix_path;
		info.options |= LWS_SERVER_OPTION_UNIX_SOCK;
		snprintf(name, sizeof(name), "unix");
	}
	info.vhost_name = name;
	struct lws_vhost *vh = lws_create_vhost(s->lws, &info);
	if (!vh) {
		if (l->host[0])
			return gpd_fail(err, -EADDRINUSE,
				    "cannot listen on %s:%d%s: in use, no such "
				    "address, or not permitted", l->host, l->port,
				    l->tls ? " (or --tls-cert/--tls-key are not "
				    "a readable PEM certificate and key)" : "");
		return gpd_fail(err, -EADDRINUSE, "cannot listen on --unix %s",
			    o->unix_path);
	}
	l->bound = true;
	if (!l->host[0]) {
		gpd_info("listening on %s", o->unix_path);
		return 0;
	}
	char url[sizeof(s->url)];
	describe(l, lws_get_vhost_listen_port(vh), url, sizeof(url));
	if (!s->url[0])
		snprintf(s->url, sizeof(s->url), "%s", url);
	gpd_info("listening on %s%s", url, l->trusted ? "" : " (token required)");
	return 0;
}

int gpd_server_listen(struct gpd_server *s, struct gpd_error *err)
{
	lws_set_log_level(gpd_log_get_level() >= GPD_LOG_DEBUG ?
			  LLL_ERR | LLL_WARN | LLL_NOTICE : LLL_ERR | LLL_WARN,
			  lws_log);
	int ret = setup_protocols(s, err);
	if (ret)
		return ret;
	struct lws_context_creation_info info;
	memset(&info, 0, sizeof(info));
	void *loops[1] = { s->loop };
	info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_EXPLICIT_VHOSTS;
	if (s->options.tls_cert)
		info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
	info.foreign_loops = loops;
	info.pcontext = &s->lws;
	info.port = CONTEXT_PORT_NO_LISTEN;
	info.user = s;
	s->lws = lws_create_context(&info);
	if (!s->lws)
		return gpd_fail(err, -ENOMEM,
			    "libwebsockets could not start on the event loop; "
			    "is the package libwebsockets-evlib-uv installed?");
	if (s->web_root)
		gpd_web_root_install(s->web_root, s->lws);
	for (size_t i = 0; i < s->n_listeners; i++) {
		ret = open_vhost(s, &s->listeners[i], err);
		if (ret)
			return ret;
	}
	if (s->options.unix_path) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s.fds", s->options.unix_path);
		ret = gpd_fd_socket_open(s, path, &s->fd_socket, err);
		if (ret)
			return ret;
		snprintf(path, sizeof(path), "%s.activity", s->options.unix_path);
		if (s->devices->activity)
			ret = gpd_activity_socket_open(s->loop, path,
						       s->devices->activity,
						       &s->activity_socket, err);
		if (ret)
			return ret;
	}
	return 0;
}

const char *gpd_server_fd_socket(const struct gpd_server *s)
{
	return s->fd_socket ? gpd_fd_socket_path(s->fd_socket) : NULL;
}

bool gpd_server_process_details(const struct gpd_server *server,
				enum gpd_role role)
{
	switch (server->options.process_details) {
	case GPD_PROCESS_DETAILS_ALL:
		return true;
	case GPD_PROCESS_DETAILS_NONE:
		return false;
	case GPD_PROCESS_DETAILS_CONTROLLERS:
		break;
	}
	return role == GPD_ROLE_CONTROLLER;
}

int gpd_server_check_token(struct gpd_server *server, const char *address,
			   const char *token, size_t len, enum gpd_role *role,
			   char *why, size_t size)
{
	const char *peer = address[0] ? address : "an unknown address";
	uint64_t now = gpd_monotonic_ns();
	if (!gpd_auth_brake_allows(&server->auth_brake, address, now)) {
		gpd_log_throttled(&server->auth_log, GPD_LOG_WARNING,
				  "refused a token attempt from %s unheard: too "
				  "many wrong tokens from it (%llu wrong, %llu "
				  "refused unheard so far)", peer,
				  server->auth_brake.failed,
				  server->auth_brake.braked);
		snprintf(why, size, "too many wrong tokens from %s; wait a "
			 "second before trying again", peer);
		return -EAGAIN;
	}
	if (gpd_auth_check(&server->auth, token, len, role)) {
		gpd_auth_brake_failed(&server->auth_brake, address, now);
		gpd_log_throttled(&server->auth_log, GPD_LOG_WARNING,
				  "refused a wrong token from %s (%llu wrong, "
				  "%llu refused unheard so far)", peer,
				  server->auth_brake.failed,
				  server->auth_brake.braked);
		snprintf(why, size, "the token is not in the server's "
			 "--token-file");
		return -EACCES;
	}
	return 0;
}

/* Ends the sessions whose tokens the reload took away, with the reason. */
static void revoke_sessions(struct gpd_server *s)
{
	unsigned closed = 0;
	for (struct gpd_session *session = s->sessions; session;
	     session = session->next)
		closed += gpd_session_recheck_token(session);
	if (closed)
		gpd_info("reload: closed %u connection%s whose token was removed "
			 "or changed role", closed, closed == 1 ? "" : "s");
}

int gpd_server_reload_tokens(struct gpd_server *s, const char *path,
			     struct gpd_error *err)
{
	if (path) {
		int ret = gpd_auth_reload(&s->auth, path, err);
		if (!ret)
			revoke_sessions(s);
		return ret;
	}
	for (size_t i = 0; i < s->n_listeners; i++) {
		const struct gpd_listener *l = &s->listeners[i];
		if (!l->trusted)
			return gpd_fail(err, -EPERM, "--listen %s:%d needs "
				    "--token-file, which the configuration no "
				    "longer names", l->host, l->port);
	}
	gpd_auth_fini(&s->auth);
	revoke_sessions(s);
	return 0;
}

int gpd_server_describe_devices(struct gpd_server *s)
{
	struct gpd_hello *hello;
	if (gpd_hello_create(s->devices, &hello))
		return -ENOMEM;
	gpd_hello_destroy(s->hello);
	s->hello = hello;
	measure_hello(s);
	return 0;
}

void gpd_server_stop(struct gpd_server *s)
{
	if (s->stopping)
		return;
	s->stopping = true;
	while (s->sessions)
		gpd_session_destroy(s->sessions);
	gpd_fd_socket_close(s->fd_socket);
	s->fd_socket = NULL;
	gpd_activity_socket_close(s->activity_socket);
	s->activity_socket = NULL;
	gpd_metrics_exporter_destroy(s->exporter);
	s->exporter = NULL;
	/* The first destroy closes lws's handles on the loop; the second, in
	 * fini after the loop has run dry, frees the context. */
	if (s->lws)
		lws_context_destroy(s->lws);
}

void gpd_server_fini(struct gpd_server *s)
{
	if (s->lws)
		lws_context_destroy(s->lws);
	if (s->lws)
		gpd_warn("libwebsockets did not finish shutting down");
	gpd_metrics_exporter_destroy(s->exporter);
	s->exporter = NULL;
	gpd_hello_destroy(s->hello);
	s->hello = NULL;
	gpd_auth_fini(&s->auth);
	for (size_t i = 0; i < s->n_listeners; i++)
		if (!s->listeners[i].host[0] && s->listeners[i].bound)
			unlink(s->options.unix_path);
	free(s->listeners);
	s->listeners = NULL;
	s->n_listeners = 0;
	free(s->protocols);
	s->protocols = NULL;
	free(s->mounts);
	s->mounts = NULL;
	free(s->web_root);
	s->web_root = NULL;
}
