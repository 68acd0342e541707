/*
 * The global options and connecting with them (see cli_connect.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/cli_args.h"
#include "client/cli_connect.h"
#include "client/human_text.h"
#include "client/commands.h"

const char gpuperf_connection_help[] =
	"Where the daemon is (also before the command name):\n"
	"  --host HOST        its address or name (default 127.0.0.1)\n"
	"  --port PORT        its port (default 7890)\n"
	"  --unix PATH        its Unix socket (gpuperfd --unix) instead\n"
	"  --token-file FILE  the bearer token: the first word of the file's\n"
	"                     first line that is not a comment (a line of the\n"
	"                     daemon's own --token-file works)\n"
	"  --tls              connect with TLS, checking the daemon's\n"
	"                     certificate against the system's authorities\n"
	"  --tls-ca FILE      ... or against the PEM certificates in FILE\n"
	"                     (implies --tls)\n"
	"  --viewer           only watch: take the viewer role even when the\n"
	"                     token grants more, so this command can never\n"
	"                     change the metric set or period others see\n";

static const struct {
	const char *name;
	bool has_value;
} global_options[] = {
	{ "--host", true }, { "--port", true }, { "--unix", true },
	{ "--token-file", true }, { "--tls", false }, { "--tls-ca", true },
	{ "--viewer", false },
};

int gpuperf_connection_option(const char *cmd, const char *usage, int argc,
			      char **argv, int *i,
			      struct gpuperf_connection *conn)
{
	const char *value;
	int m;

	if (gpuperf_arg_flag(argv[*i], "--tls", NULL)) {
		conn->tls = true;
		return 1;
	}
	if (gpuperf_arg_flag(argv[*i], "--viewer", NULL)) {
		conn->viewer = true;
		return 1;
	}
	if ((m = gpuperf_arg_value(argc, argv, i, "--host", NULL, &value))) {
		if (m < 0 || !*value)
			goto missing;
		conn->host = value;
		return 1;
	}
	if ((m = gpuperf_arg_value(argc, argv, i, "--port", NULL, &value))) {
		char *end;
		if (m < 0)
			goto missing;
		long port = strtol(value, &end, 10);
		if (!*value || *end || port < 1 || port > 65535) {
			gpuperf_usage_error(cmd, usage, "--port takes a number "
					    "from 1 to 65535, not '%s'", value);
			return -1;
		}
		conn->port = (unsigned)port;
		return 1;
	}
	if ((m = gpuperf_arg_value(argc, argv, i, "--unix", NULL, &value))) {
		if (m < 0 || !*value)
			goto missing;
		conn->unix_path = value;
		return 1;
	}
	if ((m = gpuperf_arg_value(argc, argv, i, "--token-file", NULL,
				   &value))) {
		if (m < 0 || !*value)
			goto missing;
		conn->token_file = value;
		return 1;
	}
	if ((m = gpuperf_arg_value(argc, argv, i, "--tls-ca", NULL, &value))) {
		if (m < 0 || !*value)
			goto missing;
		conn->tls_ca = value;
		conn->tls = true;
		return 1;
	}
	return 0;
missing:
	gpuperf_usage_error(cmd, usage, "%s needs a value", argv[*i]);
	return -1;
}

/* The token: the first word of the first line that is not a comment. */
static int read_token(const char *cmd, struct gpuperf_connection *conn)
{
	char line[1024];
	FILE *f = fopen(conn->token_file, "re");

	if (!f)
		return gpuperf_fail(cmd, GPUPERF_EXIT_FILE, "--token-file %s: %s",
				    conn->token_file, strerror(errno));
	conn->token[0] = '\0';
	while (!conn->token[0] && fgets(line, sizeof(line), f)) {
		char *save, *word = strtok_r(line, " \t\r\n", &save);
		if (!word || word[0] == '#')
			continue;
		if (strlen(word) >= sizeof(conn->token)) {
			fclose(f);
			return gpuperf_fail(cmd, GPUPERF_EXIT_FILE,
					    "--token-file %s: the token is longer "
					    "than %zu bytes", conn->token_file,
					    sizeof(conn->token) - 1);
		}
		snprintf(conn->token, sizeof(conn->token), "%s", word);
	}
	fclose(f);
	explicit_bzero(line, sizeof(line));
	if (!conn->token[0])
		return gpuperf_fail(cmd, GPUPERF_EXIT_FILE, "--token-file %s "
				    "holds no token", conn->token_file);
	return 0;
}

int gpuperf_exit_for(int code)
{
	switch (code) {
	case -ECONNREFUSED:
	case -ECONNRESET:
	case -ETIMEDOUT:
	case -ENOTSUP:
	case -EPROTO:
	case -EMSGSIZE:
	case -ENOTCONN:
		return GPUPERF_EXIT_CONNECT;
	case -EACCES:
	case -EPERM:
	case -ENOENT:
	case -EBUSY:
	case -EINVAL:
	case -EAGAIN:
	case -ENOBUFS:
	case -ENODEV:
		return GPUPERF_EXIT_REFUSED;
	default:
		return GPUPERF_EXIT_FAILURE;
	}
}

int gpuperf_report(const char *cmd, const char *what,
		   const struct gpc_error *err)
{
	const char *hint = "";

	switch (err->code) {
	case -ECONNREFUSED:
		hint = "; is gpuperfd running there? (--host, --port and "
		       "--unix say where it is)";
		break;
	case -EACCES:
		hint = " (--token-file names the file with a token the daemon "
		       "knows)";
		break;
	default:
		break;
	}
	fprintf(stderr, "gpuperf %s: %s%s%s%s\n", cmd, what ? what : "",
		what ? ": " : "", err->message, hint);
	return gpuperf_exit_for(err->code);
}

void gpuperf_note_period(const char *cmd, const struct gpc_client *client,
			 const char *device, uint64_t asked_ns,
			 uint64_t granted_ns)
{
	const struct gpc_device *d = gpc_find_device(client, device);
	char asked[GPUPERF_HUMAN_TEXT_MAX], granted[GPUPERF_HUMAN_TEXT_MAX];
	char above[GPUPERF_HUMAN_TEXT_MAX];
	uint64_t nearest = 0, next = UINT64_MAX;

	if (!asked_ns || asked_ns == granted_ns || !d)
		return;
	for (size_t i = 0; i < d->n_sampling_periods; i++) {
		uint64_t p = d->sampling_periods[i].period_ns;
		if (p <= asked_ns && p > nearest)
			nearest = p;
		if (p > asked_ns && p < next)
			next = p;
	}
	gpuperf_duration_text(asked, sizeof(asked), (double)asked_ns);
	gpuperf_duration_text(granted, sizeof(granted), (double)granted_ns);
	fprintf(stderr, "gpuperf %s: sampling every %s, not the %s asked: ",
		cmd, granted, asked);
	if (granted_ns != nearest) {
		fprintf(stderr, "the period device %s runs at for its other "
			"clients\n", d->name);
	} else if (next == UINT64_MAX) {
		fprintf(stderr, "the longest period device %s has\n", d->name);
	} else {
		gpuperf_duration_text(above, sizeof(above), (double)next);
		fprintf(stderr, "device %s's periods double from one to the "
			"next, and %s is the nearest at or below it (the next is "
			"%s)\n", d->name, granted, above);
	}
}

int gpuperf_connect(const char *cmd, struct gpuperf_connection *conn,
		    uv_loop_t *loop, struct gpc_client **out)
{
	struct gpc_error err;

	if (conn->token_file) {
		int ret = read_token(cmd, conn);
		if (ret)
			return ret;
	}
	struct gpc_connect_options o = {
		.host = conn->host,
		.port = conn->port,
		.unix_path = conn->unix_path,
		.token = conn->token[0] ? conn->token : NULL,
		.tls = conn->tls,
		.tls_ca_file = conn->tls_ca,
		.role = conn->viewer ? GPC_ROLE_VIEWER : GPC_ROLE_ANY,
		.loop = loop,
	};
	/* Failures reach the user once, in words, through the error. */
	gpc_set_transport_log(NULL);
	int ret = gpc_connect_sync(&o, out, &err);
	explicit_bzero(conn->token, sizeof(conn->token));
	if (ret == -ECONNREFUSED && conn->tls && strstr(err.message, "TLS")) {
		fprintf(stderr, "gpuperf %s: %s; is the daemon's certificate one "
			"this machine trusts? (--tls-ca FILE trusts the "
			"certificates in FILE)\n", cmd, err.message);
		return gpuperf_exit_for(ret);
	}
	if (ret)
		return gpuperf_report(cmd, NULL, &err);
	return 0;
}

void gpuperf_move_global_options(int argc, char **argv)
{
	int i = 1;

	while (i < argc) {
		const char *arg = argv[i];
		size_t k, n = sizeof(global_options) / sizeof(global_options[0]);
		for (k = 0; k < n; k++) {
			size_t len = strlen(global_options[k].name);
			if (!strncmp(arg, global_options[k].name, len) &&
			    (arg[len] == '\0' || arg[len] == '='))
				break;
		}
		if (k == n)
			break;
		bool separate = global_options[k].has_value &&
				!strchr(arg, '=');
		i += separate ? 2 : 1;
	}
	if (i == 1 || i >= argc)
		return;
	/* argv[1..i-1] are global options, argv[i] the command. */
	char *command = argv[i];
	memmove(&argv[2], &argv[1], (size_t)(i - 1) * sizeof(*argv));
	argv[1] = command;
}
