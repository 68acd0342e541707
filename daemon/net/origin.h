/*
 * Whether a request comes from the daemon's own pages: the Host it names
 * and, for a browser's WebSocket, the Origin it was opened from.
 *
 * Any web page may open ws://127.0.0.1:7890/ws, and the browser then sends
 * the page's own Origin; a name an attacker controls may be made to
 * resolve to 127.0.0.1 (DNS rebinding), and the browser then sends that
 * name as Host. So a request's Host must name the address the connection
 * arrived on (as an IP literal, or `localhost` on a loopback address) or
 * be one of the --server-name names; and an Origin, when one is sent, must
 * be the request's own (the listener's scheme, and the host and port the
 * Host header named) or one of --allow-origin. Clients other than
 * browsers (gpuperf, curl, Prometheus) send no Origin. The Host's port is
 * not checked (a proxy in front may use another): its name or address is
 * what a rebinding page cannot fake.
 */
#ifndef GPD_NET_ORIGIN_H
#define GPD_NET_ORIGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

struct gpd_origin_policy {
	const char *const *server_names;        /* --server-name */
	size_t n_server_names;
	const char *const *allowed_origins;     /* --allow-origin */
	size_t n_allowed_origins;
};

/* Checks an --allow-origin value: scheme://host[:port], nothing more.
 * -EINVAL otherwise. */
int gpd_origin_parse_option(const char *origin);

/* Whether host (a Host header or :authority, with or without a port) names
 * this server for a connection that arrived on local. */
bool gpd_origin_host_allowed(const struct gpd_origin_policy *p, const char *host,
			     const struct sockaddr *local);

/* Whether a WebSocket opened from origin (its Origin header) may connect
 * to a listener (tls: https) that host named. */
bool gpd_origin_allowed(const struct gpd_origin_policy *p, const char *origin,
			const char *host, bool tls);

#endif
