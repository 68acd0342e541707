/*
 * The network server: libwebsockets on the daemon's libuv loop.
 *
 *   /         the web UI's files (--web-root), or a short built-in page
 *   /ws       the gpuperf protocol (WebSocket subprotocol gpuperf.v1)
 *   /metrics  Prometheus text exposition
 *   /healthz  "ok" while the daemon runs
 *
 * over TCP (--listen, default 127.0.0.1:7890; TLS with --tls-cert and
 * --tls-key) and a Unix socket (--unix). Listeners on addresses other than
 * loopback need --token-file; their clients must present a token.
 *
 * gpd_server_init sets up what does not touch the network (tokens, the
 * device descriptions of Hello, the Prometheus exporter), so sessions can
 * run without sockets (the fuzz target does); gpd_server_listen opens the
 * listeners.
 */
#ifndef GPD_NET_SERVER_H
#define GPD_NET_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "daemon/device_registry.h"
#include "daemon/error.h"
#include "daemon/log_throttle.h"
#include "daemon/net/admission.h"
#include "daemon/net/auth.h"
#include "daemon/net/auth_brake.h"
#include "daemon/net/origin.h"

struct gpd_fd_socket;
struct gpd_activity_socket;
struct gpd_hello;
struct gpd_metrics_exporter;
struct gpd_session;
struct gpd_web_root;
struct lws_context;
struct lws_http_mount;
struct lws_protocols;

#define GPD_DEFAULT_LISTEN "127.0.0.1:7890"
/* --metrics-max-processes' default: each adds (engine classes + 1)
 * series to its GPU's. */
#define GPD_METRICS_MAX_PROCESSES 20

/* Who sees the pid, command and client ids of the processes using a
 * GPU; the others get the rows without them. */
enum gpd_process_details {
	GPD_PROCESS_DETAILS_CONTROLLERS,        /* the default */
	GPD_PROCESS_DETAILS_ALL,
	GPD_PROCESS_DETAILS_NONE,               /* nobody gets rows */
};

/* "controllers", "all", "none"; -EINVAL otherwise. */
int gpd_process_details_parse(const char *text, enum gpd_process_details *out);

struct gpd_server_options {
	const char *const *listen;      /* ADDR:PORT or [V6ADDR]:PORT */
	size_t n_listen;                /* 0: GPD_DEFAULT_LISTEN */
	bool no_tcp;                    /* only the Unix socket */
	const char *unix_path;          /* NULL: none */
	const char *token_file;
	const char *tls_cert, *tls_key;
	const char *web_root;           /* NULL: the built-in page */
	/* Besides its own addresses, the names requests may give as Host,
	 * and the pages of other origins that may open WebSockets. */
	const char *const *server_names;
	size_t n_server_names;
	const char *const *allowed_origins;
	size_t n_allowed_origins;
	/* Limits; 0 takes the default. */
	uint32_t max_message_bytes;     /* 64 KiB */
	uint32_t max_connections;       /* authenticated: 256 */
	uint32_t reserved_unix;         /* of those, for --unix alone: 16 */
	uint32_t max_unauthenticated;   /* waiting to authenticate: 32 */
	uint32_t max_unauthenticated_per_peer;  /* from one address: 4 */
	uint32_t auth_timeout_ms;       /* to authenticate in: 3000 */
	/* Bytes queued for all clients together (64 MiB); each session's
	 * share is derived from it (gpd_session_share). */
	uint64_t send_budget;
	uint32_t max_requests_per_second;       /* 100 */
	uint32_t max_subscriptions;     /* per connection: 16 */
	/* Counter evaluations a second per connection, all its
	 * subscriptions together (gpd_subscription_evaluations): 1000000. */
	uint64_t max_evaluations;
	uint32_t queue_frames;          /* per connection: 64 */
	/* DRM files passed and not yet used, all connections together: 64
	 * (each connection also GPD_SESSION_MAX_PASSED_FDS). */
	uint32_t max_passed_fds;
	uint64_t metrics_window_ms;     /* /metrics' window: 1000 */
	uint64_t max_recording_bytes;   /* 1 GiB */
	enum gpd_process_details process_details;
	bool metrics_processes;         /* /metrics has per-process series */
	bool snapshots_need_controller; /* --snapshot-role controller */
	/* Snapshots being sent, all connections together, at most (the
	 * flight recorders' --flight-recorder-memory). */
	uint64_t snapshot_memory;
	/* Of them, the processes of most GPU time: GPD_METRICS_MAX_PROCESSES. */
	uint32_t metrics_max_processes;
	/* The counters /metrics exports: "all" (NULL), "none" or a list of
	 * names, "GpuBusy,EuActive". */
	const char *metrics_counters;
};

/* One TCP or Unix listener. */
struct gpd_listener {
	struct gpd_server *server;
	char host[64];                  /* "" for the Unix socket */
	int port;
	bool trusted;                   /* loopback or Unix: no token needed */
	bool tls;
	bool bound;
};

struct gpd_server {
	uv_loop_t *loop;
	const struct gpd_device_registry *devices;      /* what it serves */
	struct gpd_server_options options;      /* defaults filled in */
	struct gpd_auth auth;                   /* empty without --token-file */
	struct gpd_auth_brake auth_brake;       /* wrong tokens per address */
	struct gpd_log_throttle auth_log;       /* ... said in the log */
	struct gpd_origin_policy origin;
	struct gpd_hello *hello;
	struct gpd_metrics_exporter *exporter;
	struct gpd_session *sessions;
	unsigned n_sessions;
	struct gpd_admission admission;         /* the slots they hold */
	size_t queued_bytes;                    /* for all of them */
	size_t hello_bytes;                     /* what a Hello takes */
	unsigned long long slow_readers_dropped;
	struct gpd_log_throttle slow_reader_log;
	/* Over every connection: counters' frames, usage frames. */
	uint64_t counter_frames_dropped, usage_frames_dropped;
	uint64_t snapshot_bytes;                /* snapshots being sent */
	struct gpd_listener *listeners;
	size_t n_listeners;
	struct gpd_fd_socket *fd_socket;        /* beside --unix */
	struct gpd_activity_socket *activity_socket;    /* likewise */
	unsigned n_passed_fds;                  /* held by all sessions */
	struct lws_context *lws;
	struct lws_protocols *protocols;
	struct lws_http_mount *mounts;
	struct gpd_web_root *web_root;          /* NULL: the built-in page */
	char url[128];                          /* of the first TCP listener */
	bool stopping;
};

/* Where clients of the Unix socket pass DRM files; NULL without one. */
const char *gpd_server_fd_socket(const struct gpd_server *server);

/* Whether a client of role sees the pid, command and client ids of the
 * processes using a GPU (--process-details), on the WebSocket's usage
 * stream and /metrics alike. */
bool gpd_server_process_details(const struct gpd_server *server,
				enum gpd_role role);

/* A token from a client at address (WebSocket Auth or header, /metrics):
 * 0 with its role; -EAGAIN refused unheard, the address having been wrong
 * too often lately (the brake); -EACCES not in the file. why says which,
 * in words for the client; both are said in the log, at most once in 10 s
 * with how many there were. */
int gpd_server_check_token(struct gpd_server *server, const char *address,
			   const char *token, size_t len, enum gpd_role *role,
			   char *why, size_t size);

/* Checks the options alone, before anything is opened: the --listen
 * addresses, a non-loopback one without --token-file, half of a TLS
 * pair. 0, or -EINVAL with err saying why. */
int gpd_server_check_options(const struct gpd_server_options *options,
			     struct gpd_error *err);

/* Fills in the defaults and checks the options (a non-loopback --listen
 * without --token-file, half of a TLS pair); loads the tokens. Serves
 * devices, which must outlive the server, on loop. */
int gpd_server_init(struct gpd_server *server, uv_loop_t *loop,
		    const struct gpd_device_registry *devices,
		    const struct gpd_server_options *options,
		    struct gpd_error *err);

/* Opens the listeners on the loop. */
int gpd_server_listen(struct gpd_server *server, struct gpd_error *err);

/* A reload's tokens: path's replace the loaded ones, and connections whose
 * token is gone (or has another role) are told so and closed. NULL drops
 * them, unless a listener needs them (-EPERM). On failure (a broken file:
 * err names the line) the loaded tokens stay and nothing changes: a
 * reload is checked whole before anything changes. */
int gpd_server_reload_tokens(struct gpd_server *server, const char *path,
			     struct gpd_error *err);

/* Describes the devices anew for the next Hellos, after a device took
 * reloaded metric definitions. -ENOMEM leaves the previous description. */
int gpd_server_describe_devices(struct gpd_server *server);

/* Ends every connection and closes the listeners; the loop then runs dry. */
void gpd_server_stop(struct gpd_server *server);

/* After uv_run has returned. */
void gpd_server_fini(struct gpd_server *server);

#endif
