/*
 * Connection slots: a pool for clients that have not authenticated, one
 * for those that have, and the Unix socket's reserve in it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/net/admission.h"
#include "daemon/net/server.h"
#include "daemon/net/session.h"

static unsigned *count_of(struct gpd_admission *a, enum gpd_session_slot slot)
{
	switch (slot) {
	case GPD_SLOT_WAITING:
		return &a->waiting;
	case GPD_SLOT_TCP:
		return &a->tcp;
	case GPD_SLOT_UNIX:
		return &a->unix_socket;
	case GPD_SLOT_NONE:
		break;
	}
	return NULL;
}

static unsigned waiting_from(const struct gpd_server *server, const char *peer)
{
	unsigned n = 0;
	for (const struct gpd_session *s = server->sessions; s; s = s->next)
		n += s->slot == GPD_SLOT_WAITING && !strcmp(s->peer, peer);
	return n;
}

/* Whether slot has room for s; why says otherwise. */
static bool room(const struct gpd_server *server, const struct gpd_session *s,
		 enum gpd_session_slot slot, char *why, size_t size)
{
	const struct gpd_server_options *o = &server->options;
	const struct gpd_admission *a = &server->admission;
	unsigned authenticated = a->tcp + a->unix_socket;
	switch (slot) {
	case GPD_SLOT_WAITING:
		if (a->waiting >= o->max_unauthenticated) {
			snprintf(why, size, "the server already has its maximum of "
				 "%u connections waiting to authenticate; send "
				 "the token at once (`Authorization: Bearer "
				 "TOKEN`) or try again later",
				 o->max_unauthenticated);
			return false;
		}
		if (s->peer[0] &&
		    waiting_from(server, s->peer) >= o->max_unauthenticated_per_peer) {
			snprintf(why, size, "%s already has %u connections waiting "
				 "to authenticate; authenticate those first",
				 s->peer, o->max_unauthenticated_per_peer);
			return false;
		}
		return true;
	case GPD_SLOT_TCP:
		/* The Unix socket's clients use its reserve first: only those
		 * past it take from what TCP may have. */
		if (a->tcp + (a->unix_socket > o->reserved_unix ? a->unix_socket
								: o->reserved_unix) >=
		    o->max_connections) {
			snprintf(why, size, "the server has its maximum of %u "
				 "connections; try again later or raise "
				 "--max-connections", o->max_connections - o->reserved_unix);
			return false;
		}
		return true;
	case GPD_SLOT_UNIX:
		if (authenticated >= o->max_connections) {
			snprintf(why, size, "the server has its maximum of %u "
				 "connections; try again later or raise "
				 "--max-connections", o->max_connections);
			return false;
		}
		return true;
	case GPD_SLOT_NONE:
		break;
	}
	return true;
}

int gpd_admission_take(struct gpd_server *server, struct gpd_session *s,
		       enum gpd_session_slot slot, char *why, size_t size)
{
	if (s->slot == slot)
		return 0;
	if (!room(server, s, slot, why, size)) {
		server->admission.refused++;
		return -EBUSY;
	}
	gpd_admission_release(server, s);
	unsigned *n = count_of(&server->admission, slot);
	if (n)
		(*n)++;
	s->slot = slot;
	return 0;
}

void gpd_admission_release(struct gpd_server *server, struct gpd_session *s)
{
	unsigned *n = count_of(&server->admission, s->slot);
	if (n)
		(*n)--;
	s->slot = GPD_SLOT_NONE;
}
