/*
 * Bearer tokens and trusted addresses.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "daemon/error.h"
#include "daemon/log.h"
#include "daemon/net/auth.h"

const char *gpd_role_name(enum gpd_role role)
{
	return role == GPD_ROLE_CONTROLLER ? "controller" : "viewer";
}

int gpd_role_parse(const char *name, enum gpd_role *role)
{
	if (!strcmp(name, "viewer"))
		*role = GPD_ROLE_VIEWER;
	else if (!strcmp(name, "controller"))
		*role = GPD_ROLE_CONTROLLER;
	else
		return -EINVAL;
	return 0;
}

static int add_token(struct gpd_auth *auth, const char *token,
		     enum gpd_role role)
{
	struct gpd_token *t = realloc(auth->tokens,
				      (auth->n_tokens + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	auth->tokens = t;
	t = &auth->tokens[auth->n_tokens++];
	memset(t, 0, sizeof(*t));
	strcpy(t->token, token);
	t->role = role;
	return 0;
}

/* At most how many bits of secret token can hold: its length times those
 * of a character of the smallest alphabet it is written in (decimal, hex,
 * base64, else printable ASCII). A guess of what it holds, never more. */
static double token_bits(const char *token)
{
	bool decimal = true, hex = true, base64 = true;
	size_t n = strlen(token);
	for (const char *c = token; *c; c++) {
		bool digit = *c >= '0' && *c <= '9';
		bool lower_hex = *c >= 'a' && *c <= 'f';
		bool upper_hex = *c >= 'A' && *c <= 'F';
		decimal &= digit;
		hex &= digit || lower_hex || upper_hex;
		base64 &= (bool)isalnum((unsigned char)*c) || strchr("+/-_=", *c);
	}
	double per_char = decimal ? 3.32 : hex ? 4 : base64 ? 6 : 6.57;
	return (double)n * per_char;
}

static int parse_line(struct gpd_auth *auth, char *line, const char *path,
		      unsigned lineno, struct gpd_error *err)
{
	const char *sep = " \t\r\n";
	char *save;
	char *token = strtok_r(line, sep, &save);
	if (!token || token[0] == '#')
		return 0;
	char *role_name = strtok_r(NULL, sep, &save);
	char *extra = strtok_r(NULL, sep, &save);
	enum gpd_role role;
	if (!role_name || extra || gpd_role_parse(role_name, &role))
		return gpd_fail(err, -EINVAL,
			    "%s:%u: expected `TOKEN ROLE` with ROLE viewer or "
			    "controller", path, lineno);
	if (strlen(token) >= GPD_TOKEN_MAX)
		return gpd_fail(err, -EINVAL, "%s:%u: the token is longer than %d "
			    "bytes", path, lineno, GPD_TOKEN_MAX - 1);
	if (token_bits(token) < GPD_TOKEN_MIN_BITS)
		return gpd_fail(err, -EINVAL, "%s:%u: the token holds less than "
			    "%d bits, too few to resist guessing; make one with "
			    "`openssl rand -hex 16` (32 hex digits)", path,
			    lineno, GPD_TOKEN_MIN_BITS);
	if (add_token(auth, token, role))
		return gpd_fail(err, -ENOMEM, "out of memory");
	return 0;
}

int gpd_auth_load(struct gpd_auth *auth, const char *path,
		  struct gpd_error *err)
{
	memset(auth, 0, sizeof(*auth));
	FILE *f = fopen(path, "re");
	if (!f)
		return gpd_fail(err, -errno, "--token-file %s: %s", path,
			    strerror(errno));
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && (st.st_mode & 0004))
		gpd_warn("--token-file %s is readable by every user; "
			 "chmod o-r it", path);
	char line[1024];
	unsigned lineno = 0;
	int ret = 0;
	while (!ret && fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			ret = gpd_fail(err, -EINVAL, "%s:%u: the line is too long",
				   path, lineno);
			break;
		}
		ret = parse_line(auth, line, path, lineno, err);
	}
	if (!ret && ferror(f))
		ret = gpd_fail(err, -EIO, "--token-file %s: read error", path);
	fclose(f);
	if (!ret && !auth->n_tokens)
		ret = gpd_fail(err, -EINVAL, "--token-file %s holds no tokens; "
			   "add lines `TOKEN viewer` or `TOKEN controller`",
			   path);
	if (ret)
		gpd_auth_fini(auth);
	return ret;
}

int gpd_auth_reload(struct gpd_auth *auth, const char *path,
		    struct gpd_error *err)
{
	struct gpd_auth next;
	int ret = gpd_auth_load(&next, path, err);
	if (ret)
		return ret;
	gpd_auth_fini(auth);
	*auth = next;
	return 0;
}

void gpd_auth_fini(struct gpd_auth *auth)
{
	if (auth->tokens)
		memset(auth->tokens, 0, auth->n_tokens * sizeof(*auth->tokens));
	free(auth->tokens);
	auth->tokens = NULL;
	auth->n_tokens = 0;
}

/* Compares every byte of the stored token whatever the input, so the time
 * taken does not reveal how much of a guess was right. */
static bool token_equal(const struct gpd_token *t, const char *token,
			size_t len)
{
	size_t stored = strlen(t->token);
	unsigned char diff = stored != len;
	for (size_t i = 0; i < GPD_TOKEN_MAX; i++) {
		unsigned char a = (unsigned char)t->token[i];
		unsigned char b = i < len ? (unsigned char)token[i] : 0;
		diff |= a ^ b;
	}
	return diff == 0;
}

int gpd_auth_check(const struct gpd_auth *auth, const char *token, size_t len,
		   enum gpd_role *role)
{
	int found = -EACCES;
	if (!len || len >= GPD_TOKEN_MAX)
		return -EACCES;
	for (size_t i = 0; i < auth->n_tokens; i++) {
		if (token_equal(&auth->tokens[i], token, len) && found) {
			*role = auth->tokens[i].role;
			found = 0;
		}
	}
	return found;
}

int gpd_auth_parse_bearer(const char *header, const char **token, size_t *len)
{
	while (*header == ' ')
		header++;
	if (strncasecmp(header, "Bearer ", 7))
		return -EINVAL;
	header += 7;
	while (*header == ' ')
		header++;
	size_t n = strlen(header);
	while (n && (header[n - 1] == ' ' || header[n - 1] == '\t'))
		n--;
	if (!n)
		return -EINVAL;
	*token = header;
	*len = n;
	return 0;
}

bool gpd_auth_is_loopback(const char *host)
{
	struct in_addr v4;
	struct in6_addr v6;
	if (!strcmp(host, "localhost"))
		return true;
	if (inet_pton(AF_INET, host, &v4) == 1)
		return (ntohl(v4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, host, &v6) == 1) {
		if (IN6_IS_ADDR_LOOPBACK(&v6))
			return true;
		return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
	}
	return false;
}
