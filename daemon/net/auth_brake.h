/*
 * The brake on guessing tokens: failed attempts, counted per peer address.
 *
 * Each address may fail GPD_AUTH_BRAKE_BURST times in a row, then once a
 * second; past that its attempts are refused before any token is looked
 * at, a right one included, until a second has passed. The table is of
 * fixed size (the address least recently heard from makes room), so many
 * addresses cannot grow it.
 */
#ifndef GPD_NET_AUTH_BRAKE_H
#define GPD_NET_AUTH_BRAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/net/rate_limit.h"

#define GPD_AUTH_BRAKE_BURST 5
#define GPD_AUTH_BRAKE_PEERS 256

struct gpd_auth_brake_peer {
	char address[48];               /* "" for a free entry */
	struct gpd_rate_limit failures; /* attempts it may still fail */
	uint64_t last_ns;               /* last heard from */
};

struct gpd_auth_brake {
	struct gpd_auth_brake_peer peers[GPD_AUTH_BRAKE_PEERS];
	unsigned long long failed;      /* attempts that failed, ever */
	unsigned long long braked;      /* refused unheard, ever */
};

/* Whether address may try a token now. */
bool gpd_auth_brake_allows(struct gpd_auth_brake *b, const char *address,
			   uint64_t now_ns);

/* address tried a token that is not in the file. */
void gpd_auth_brake_failed(struct gpd_auth_brake *b, const char *address,
			   uint64_t now_ns);

#endif
