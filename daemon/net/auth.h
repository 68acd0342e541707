/*
 * Who may connect, and as what: the bearer tokens of --token-file, and
 * which listen addresses need them.
 *
 * The token file holds one token per line with its role, `TOKEN ROLE`
 * (role `viewer` or `controller`); blank lines and lines starting with `#`
 * are ignored. Loopback addresses and the Unix socket are trusted: their
 * clients need no token.
 */
#ifndef GPD_NET_AUTH_H
#define GPD_NET_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#include "daemon/subscription.h"

#define GPD_TOKEN_MAX 256
/* A token shorter than this many bits is refused (at least 32 hex
 * digits, 22 base64 characters). */
#define GPD_TOKEN_MIN_BITS 128

struct gpd_token {
	char token[GPD_TOKEN_MAX];
	enum gpd_role role;
};

struct gpd_auth {
	struct gpd_token *tokens;
	size_t n_tokens;
};

/* Reads path into auth. -EINVAL (with err naming the line) for a line that
 * is not `TOKEN ROLE`, a token longer than GPD_TOKEN_MAX - 1 bytes or of
 * fewer than GPD_TOKEN_MIN_BITS, or a file without tokens; an I/O errno
 * when it cannot be read. */
int gpd_auth_load(struct gpd_auth *auth, const char *path,
		  struct gpd_error *err);

/* Reads path again (SIGHUP): on success its tokens replace auth's; on
 * failure auth keeps its tokens. Errors as gpd_auth_load. */
int gpd_auth_reload(struct gpd_auth *auth, const char *path,
		    struct gpd_error *err);

void gpd_auth_fini(struct gpd_auth *auth);

/* The role of token (len bytes); -EACCES when no line holds it. Compares
 * in time independent of where the tokens differ. */
int gpd_auth_check(const struct gpd_auth *auth, const char *token, size_t len,
		   enum gpd_role *role);

/* The token of an Authorization header value, `Bearer TOKEN`; -EINVAL for
 * another scheme. */
int gpd_auth_parse_bearer(const char *header, const char **token,
			  size_t *len);

/* True for a host that only this machine can reach: 127.0.0.0/8, ::1,
 * ::ffff:127.x, localhost. */
bool gpd_auth_is_loopback(const char *host);

const char *gpd_role_name(enum gpd_role role);
int gpd_role_parse(const char *name, enum gpd_role *role);

#endif
