/*
 * Which connections the server keeps: the slots sessions hold.
 *
 * A client that has not authenticated yet costs nothing to open and can
 * reconnect at once, so such clients get a small pool of their own
 * (--max-unauthenticated, at most --max-unauthenticated-per-peer from one
 * address) and never take the place of one that has. Authenticated
 * sessions (a token, a loopback listener, the Unix socket) share
 * --max-connections, of which --reserved-unix are kept for the Unix socket,
 * so that even a flood of loopback clients leaves local tools a way in.
 */
#ifndef GPD_NET_ADMISSION_H
#define GPD_NET_ADMISSION_H

#include <stdbool.h>
#include <stddef.h>

struct gpd_server;
struct gpd_session;

enum gpd_session_slot {
	GPD_SLOT_NONE,                  /* refused, or not admitted yet */
	GPD_SLOT_WAITING,               /* has not authenticated */
	GPD_SLOT_TCP,                   /* authenticated, over TCP */
	GPD_SLOT_UNIX,                  /* over the Unix socket */
};

struct gpd_admission {
	unsigned waiting, tcp, unix_socket;     /* slots held */
	unsigned long long refused;             /* connections turned away */
};

/* Moves s into slot (from the one it holds). -EBUSY, with words for the
 * client in why, when the slot's pool or the client's address is full;
 * s then keeps what it held. */
int gpd_admission_take(struct gpd_server *server, struct gpd_session *s,
		       enum gpd_session_slot slot, char *why, size_t size);

/* Gives back the slot s holds. */
void gpd_admission_release(struct gpd_server *server, struct gpd_session *s);

#endif
