/*
 * gpuperfd: the GPU profiling daemon's entry point: options, the loop.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uv.h>

#include "daemon/config.h"
#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/net/server.h"
#include "daemon/privileges.h"
#include "daemon/sd_notify.h"
#include "daemon/syscall_filter.h"

/* Outside systemd, the unit's system-call filter, installed here. */
static int filter_syscalls(struct gpd_error *err)
{
	size_t n;

	if (gpd_syscall_filter_from_systemd()) {
		gpd_info("system calls: systemd's filter applies");
		return 0;
	}
	int ret = gpd_syscall_filter_install(&n, err);
	if (!ret)
		gpd_info("system calls: %zu allowed, as by gpuperfd.service's "
			 "SystemCallFilter; the others fail with EPERM", n);
	return ret;
}

/* Started as root, the daemon serves as --user; as root only when told. */
static int check_root(const struct gpd_config *cfg)
{
	if (geteuid() != 0 || cfg->user)
		return 0;
	if (cfg->allow_root) {
		gpd_warn("serving as root (--allow-root): a flaw in gpuperfd "
			 "would give whoever reaches it the whole machine; "
			 "--user gpuperf keeps CAP_PERFMON alone");
		return 0;
	}
	fprintf(stderr, "gpuperfd: started as root, it would serve the network "
		"with every privilege. Give --user %s to open the devices and "
		"listeners as root and then run as that user with CAP_PERFMON "
		"alone, or --allow-root to serve as root anyway\n",
		getpwnam("gpuperf") ? "gpuperf" :
		"nobody (or gpuperf, the service's user, once installed)");
	return 2;
}

/* Serves, drops to --user once everything privileged is open, and tells
 * systemd it is ready. */
static int run(struct gpd_daemon *daemon, const struct gpd_config *cfg,
	       struct gpd_server *server)
{
	struct gpd_error err = { 0 };
	int ret = gpd_server_init(server, daemon->loop, &daemon->registry,
				  &cfg->server, &err);
	if (!ret) {
		/* Stopping the daemon stops the server first. */
		daemon->server = server;
		ret = gpd_server_listen(server, &err);
	}
	if (!ret && cfg->user)
		ret = gpd_privileges_drop(cfg->user, &err);
	if (!ret)
		ret = gpd_privileges_forget_inheritable(&err);
	if (!ret)
		ret = filter_syscalls(&err);
	if (ret) {
		gpd_error("%s", err.message);
		return 1;
	}
	/* Read as root at start, the file must also be readable now for a
	 * SIGHUP to revoke its tokens. */
	if (cfg->user && cfg->server.token_file &&
	    access(cfg->server.token_file, R_OK))
		gpd_warn("--token-file %s cannot be read as user %s (%s): a "
			 "reload cannot change or revoke its tokens; give the "
			 "file to that user's group with mode 640",
			 cfg->server.token_file, cfg->user, strerror(errno));
	gpd_daemon_handle_signals(daemon);
	gpd_info("gpuperfd %s ready with %zu device(s)%s%s", GPUPERF_VERSION,
		 daemon->registry.n_devices, server->url[0] ? ": open " : "",
		 server->url);
	ret = gpd_sd_notifyf("READY=1\nSTATUS=serving %zu device(s)%s%s",
			     daemon->registry.n_devices,
			     server->url[0] ? " on " : "", server->url);
	if (ret)
		gpd_warn("cannot tell systemd the daemon is ready ($NOTIFY_SOCKET): "
			 "%s", strerror(-ret));
	return 0;
}

int main(int argc, char **argv)
{
	struct gpd_config cfg;
	struct gpd_error err = { 0 };
	if (gpd_config_load(&cfg, argc, argv, &err)) {
		fprintf(stderr, "gpuperfd: %s\n", err.message);
		gpd_config_fini(&cfg);
		return 2;
	}
	if (cfg.help || cfg.version) {
		if (cfg.help)
			gpd_config_usage(stdout);
		else
			printf("gpuperfd %s\n", GPUPERF_VERSION);
		gpd_config_fini(&cfg);
		return 0;
	}
	gpd_log_set_level(cfg.log_level);
	int refused = check_root(&cfg);
	if (refused) {
		gpd_config_fini(&cfg);
		return refused;
	}
	/* `make install` puts the web UI there. */
	if (!cfg.server.web_root && !access(GPM_DATADIR "/web/index.html", R_OK))
		cfg.server.web_root = GPM_DATADIR "/web";

	uv_loop_t loop;
	uv_loop_init(&loop);
	struct gpd_daemon daemon;
	struct gpd_server server;
	int status = 0;
	memset(&server, 0, sizeof(server));
	if (gpd_daemon_init(&daemon, &loop, &cfg.daemon, &err)) {
		gpd_error("%s", err.message);
		status = 1;
	} else {
		daemon.config = &cfg;
		status = run(&daemon, &cfg, &server);
	}
	if (status)
		gpd_daemon_stop(&daemon);
	uv_run(&loop, UV_RUN_DEFAULT);
	daemon.server = NULL;
	gpd_server_fini(&server);
	gpd_daemon_fini(&daemon);
	if (uv_loop_close(&loop))
		gpd_warn("some handles were still open at exit");
	gpd_config_fini(&cfg);
	return status;
}
