/*
 * Host and Origin checks against DNS rebinding and cross-site WebSockets.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "daemon/net/origin.h"

/* A host name or address with its port; port -1 when none was given. */
struct authority {
	char host[256];
	int port;
};

/* host[:port] or [v6]:port, lower-cased, a final dot dropped. */
static int parse_authority(const char *text, size_t len, struct authority *a)
{
	const char *host = text, *rest;
	size_t host_len;
	if (len && text[0] == '[') {
		const char *close = memchr(text, ']', len);
		if (!close)
			return -EINVAL;
		host = text + 1;
		host_len = (size_t)(close - host);
		rest = close + 1;
	} else {
		const char *colon = memchr(text, ':', len);
		host_len = colon ? (size_t)(colon - text) : len;
		rest = text + host_len;
	}
	size_t rest_len = len - (size_t)(rest - text);
	a->port = -1;
	if (rest_len) {
		if (rest[0] != ':' || rest_len < 2 || rest_len > 6)
			return -EINVAL;
		int port = 0;
		for (size_t i = 1; i < rest_len; i++) {
			if (!isdigit((unsigned char)rest[i]))
				return -EINVAL;
			port = port * 10 + (rest[i] - '0');
		}
		if (port > 65535)
			return -EINVAL;
		a->port = port;
	}
	if (host_len && host[host_len - 1] == '.')
		host_len--;
	if (!host_len || host_len >= sizeof(a->host))
		return -EINVAL;
	for (size_t i = 0; i < host_len; i++) {
		unsigned char c = (unsigned char)host[i];
		if (c <= ' ' || c == '/' || c == '@' || c >= 0x7f)
			return -EINVAL;
		a->host[i] = (char)tolower(c);
	}
	a->host[host_len] = '\0';
	return 0;
}

/* scheme://authority, with at most a final slash. */
static int parse_origin(const char *origin, char *scheme, size_t scheme_size,
			struct authority *a)
{
	const char *sep = strstr(origin, "://");
	if (!sep || sep == origin || (size_t)(sep - origin) >= scheme_size)
		return -EINVAL;
	for (const char *c = origin; c < sep; c++)
		scheme[c - origin] = (char)tolower((unsigned char)*c);
	scheme[sep - origin] = '\0';
	const char *authority = sep + 3;
	size_t len = strlen(authority);
	if (len && authority[len - 1] == '/')
		len--;
	return parse_authority(authority, len, a);
}

int gpd_origin_parse_option(const char *origin)
{
	char scheme[16];
	struct authority a;
	if (parse_origin(origin, scheme, sizeof(scheme), &a))
		return -EINVAL;
	return strcmp(scheme, "http") && strcmp(scheme, "https") ? -EINVAL : 0;
}

/* The address of an IP literal, IPv4 as v4-mapped IPv6. */
static bool literal_address(const char *host, struct in6_addr *out)
{
	struct in_addr v4;
	if (inet_pton(AF_INET, host, &v4) == 1) {
		memset(out, 0, sizeof(*out));
		out->s6_addr[10] = 0xff;
		out->s6_addr[11] = 0xff;
		memcpy(&out->s6_addr[12], &v4, 4);
		return true;
	}
	return inet_pton(AF_INET6, host, out) == 1;
}

static bool socket_address(const struct sockaddr *sa, struct in6_addr *out)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
		memset(out, 0, sizeof(*out));
		out->s6_addr[10] = 0xff;
		out->s6_addr[11] = 0xff;
		memcpy(&out->s6_addr[12], &in->sin_addr, 4);
		return true;
	}
	if (sa->sa_family == AF_INET6) {
		*out = ((const struct sockaddr_in6 *)sa)->sin6_addr;
		return true;
	}
	return false;
}

static bool is_loopback(const struct in6_addr *a)
{
	return IN6_IS_ADDR_LOOPBACK(a) ||
	       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
}

bool gpd_origin_host_allowed(const struct gpd_origin_policy *p, const char *host,
			     const struct sockaddr *local)
{
	struct authority a;
	if (!host || parse_authority(host, strlen(host), &a))
		return false;
	for (size_t i = 0; i < p->n_server_names; i++)
		if (!strcasecmp(a.host, p->server_names[i]))
			return true;
	struct in6_addr named, arrived;
	if (!local || !socket_address(local, &arrived))
		return false;
	if (literal_address(a.host, &named))
		return !memcmp(&named, &arrived, sizeof(named));
	return is_loopback(&arrived) && !strcmp(a.host, "localhost");
}

static int port_of(const char *scheme, int port)
{
	if (port >= 0)
		return port;
	return strcmp(scheme, "https") ? 80 : 443;
}

static bool same_host(const char *a, const char *b)
{
	struct in6_addr x, y;
	if (literal_address(a, &x) && literal_address(b, &y))
		return !memcmp(&x, &y, sizeof(x));
	return !strcmp(a, b);
}

bool gpd_origin_allowed(const struct gpd_origin_policy *p, const char *origin,
			const char *host, bool tls)
{
	char scheme[16];
	struct authority from, to;
	if (!origin || parse_origin(origin, scheme, sizeof(scheme), &from))
		return false;
	for (size_t i = 0; i < p->n_allowed_origins; i++) {
		char allowed_scheme[16];
		struct authority allowed;
		if (!parse_origin(p->allowed_origins[i], allowed_scheme,
				  sizeof(allowed_scheme), &allowed) &&
		    !strcmp(scheme, allowed_scheme) &&
		    same_host(from.host, allowed.host) &&
		    port_of(scheme, from.port) == port_of(scheme, allowed.port))
			return true;
	}
	const char *own = tls ? "https" : "http";
	if (!host || parse_authority(host, strlen(host), &to) || strcmp(scheme, own))
		return false;
	return same_host(from.host, to.host) &&
	       port_of(scheme, from.port) == port_of(scheme, to.port);
}
