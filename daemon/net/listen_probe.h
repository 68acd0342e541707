/*
 * Why a TCP address cannot be listened on, found before libwebsockets
 * tries: libwebsockets only logs "ERROR on binding fd N to port P (-1 98)"
 * and fails, which tells a user neither the address nor what to do.
 */
#ifndef GPD_NET_LISTEN_PROBE_H
#define GPD_NET_LISTEN_PROBE_H

#include "daemon/error.h"

/*
 * Binds a throwaway socket to host:port as the listener would (with
 * SO_REUSEADDR) and closes it. 0 when the bind works, or when host is not
 * a numeric address (an interface name: libwebsockets resolves it);
 * otherwise the bind's -errno with err saying, in words, whose address it
 * is, why it cannot be had and what to do (-EADDRINUSE names the command
 * that shows who holds the port).
 */
int gpd_listen_probe(const char *host, int port, struct gpd_error *err);

#endif
