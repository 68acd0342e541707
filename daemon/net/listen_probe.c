/*
 * A bind before the real one, for a precise refusal (see listen_probe.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/net/listen_probe.h"

int gpd_listen_probe(const char *host, int port, struct gpd_error *err)
{
	struct sockaddr_storage ss;
	socklen_t len;
	bool v6 = strchr(host, ':') != NULL;

	memset(&ss, 0, sizeof(ss));
	if (v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			return 0;
		len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return 0;
		len = sizeof(*a);
	}
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	int ret = bind(fd, (struct sockaddr *)&ss, len) ? -errno : 0;
	close(fd);

	const char *open = v6 ? "[" : "", *close_ = v6 ? "]" : "";
	switch (ret) {
	case 0:
		return 0;
	case -EADDRINUSE:
		return gpd_fail(err, ret, "cannot listen on %s%s%s:%d: the address "
			    "is in use by another program; `ss -ltnp 'sport = "
			    ":%d'` (as root for other users' programs) shows "
			    "which. Stop it, or give gpuperfd another --listen "
			    "port", open, host, close_, port, port);
	case -EADDRNOTAVAIL:
		return gpd_fail(err, ret, "cannot listen on %s%s%s:%d: no network "
			    "interface of this machine has the address %s; `ip "
			    "address` lists them", open, host, close_, port, host);
	case -EACCES:
		return gpd_fail(err, ret, "cannot listen on %s%s%s:%d: ports below "
			    "1024 need root or CAP_NET_BIND_SERVICE; choose a port "
			    "from 1024 up", open, host, close_, port);
	default:
		return gpd_fail(err, ret, "cannot listen on %s%s%s:%d: %s", open,
			    host, close_, port, strerror(-ret));
	}
}
