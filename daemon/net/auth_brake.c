/*
 * Failed token attempts per peer address: a token bucket each.
 */
#include <stdio.h>
#include <string.h>

#include "daemon/net/auth_brake.h"

/* Entries are taken from the table's start and never freed: the first
 * free one ends the search (every Auth and bearer header looks here). */
static struct gpd_auth_brake_peer *find(struct gpd_auth_brake *b,
					const char *address)
{
	for (size_t i = 0; i < GPD_AUTH_BRAKE_PEERS && b->peers[i].address[0]; i++)
		if (!strcmp(b->peers[i].address, address))
			return &b->peers[i];
	return NULL;
}

bool gpd_auth_brake_allows(struct gpd_auth_brake *b, const char *address,
			   uint64_t now_ns)
{
	struct gpd_auth_brake_peer *p = find(b, address);
	if (!p)
		return true;
	p->last_ns = now_ns;
	/* Peek: refill without taking. */
	struct gpd_rate_limit probe = p->failures;
	if (gpd_rate_limit_take(&probe, now_ns))
		return true;
	b->braked++;
	return false;
}

void gpd_auth_brake_failed(struct gpd_auth_brake *b, const char *address,
			   uint64_t now_ns)
{
	b->failed++;
	struct gpd_auth_brake_peer *p = find(b, address);
	if (!p) {
		p = &b->peers[0];
		for (size_t i = 1; i < GPD_AUTH_BRAKE_PEERS && p->address[0]; i++)
			if (!b->peers[i].address[0] ||
			    b->peers[i].last_ns < p->last_ns)
				p = &b->peers[i];
		snprintf(p->address, sizeof(p->address), "%s", address);
		gpd_rate_limit_init_burst(&p->failures, 1, GPD_AUTH_BRAKE_BURST,
					  now_ns);
	}
	p->last_ns = now_ns;
	gpd_rate_limit_take(&p->failures, now_ns);
}
