/*
 * Applying a re-read configuration to the running daemon.
 */
#include <stdlib.h>
#include <time.h>

#include "daemon/config.h"
#include "daemon/config_trigger.h"
#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/net/server.h"
#include "daemon/reload.h"
#include "daemon/sd_notify.h"

/* The options a reload applies; gpd_reload warns about the others. */
static const char *const reloadable[] = {
	"metrics-dir", "token-file", "log-level", "trigger", "trigger-dir",
	"trigger-dir-max", "trigger-before", "trigger-after", NULL,
};

static unsigned long long monotonic_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000ull +
	       (unsigned long long)ts.tv_nsec / 1000ull;
}

/* Applies next; true when d now points into it (its metric directories),
 * so it must be kept. */
static bool apply(struct gpd_daemon *d, struct gpd_config *next)
{
	struct gpd_error err = { 0 };
	bool kept = true;
	if (gpd_daemon_reload_metrics(d, next->daemon.metrics_dirs,
				      next->daemon.n_metrics_dirs, &err)) {
		gpd_error("reload: %s; keeping the metric definitions loaded",
			  err.message);
		kept = false;
	}
	if (d->server &&
	    gpd_server_reload_tokens(d->server, next->server.token_file, &err))
		gpd_error("reload: %s; keeping the tokens loaded", err.message);
	if (gpd_daemon_reload_triggers(d, &next->daemon, &err))
		gpd_error("reload: %s; keeping the running triggers",
			  err.message);
	char changed[256];
	size_t n = gpd_config_changes(d->config, next, reloadable, changed,
				      sizeof(changed));
	if (n)
		gpd_warn("reload: %s changed; %s take%s effect when gpuperfd "
			 "restarts", changed, n > 1 ? "they" : "it",
			 n > 1 ? "" : "s");
	/* Last, so the reload's own messages keep the level it began with. */
	gpd_log_set_level(next->log_level);
	return kept;
}

void gpd_reload(struct gpd_daemon *d)
{
	if (!d->config) {
		gpd_warn("SIGHUP: no configuration to re-read");
		return;
	}
	gpd_sd_notifyf("RELOADING=1\nMONOTONIC_USEC=%llu", monotonic_us());
	gpd_info("SIGHUP: reloading %s", d->config->path ? d->config->path :
		 "the command line's options");
	struct gpd_config *next = calloc(1, sizeof(*next));
	struct gpd_error err = { 0 };
	if (!next) {
		gpd_error("reload: out of memory; nothing changed");
	} else if (gpd_config_load(next, d->config->argc, d->config->argv,
				   &err)) {
		gpd_error("reload: %s; nothing changed", err.message);
		gpd_config_fini(next);
		free(next);
	} else if (apply(d, next)) {
		if (d->reloaded) {
			gpd_config_fini(d->reloaded);
			free(d->reloaded);
		}
		d->reloaded = next;
	} else {
		gpd_config_fini(next);
		free(next);
	}
	gpd_info("reload done");
	gpd_sd_notify("READY=1\nSTATUS=serving");
}

void gpd_reload_fini(struct gpd_daemon *d)
{
	if (d->reloaded) {
		gpd_config_fini(d->reloaded);
		free(d->reloaded);
		d->reloaded = NULL;
	}
}
