/*
 * SIGHUP (the service's ExecReload): the configuration read again and
 * applied without dropping a client.
 *
 * What changes at once: the metric directories (re-read even when they
 * are the same; each device takes the new definitions as soon as nobody
 * streams from it), the tokens of --token-file (connections already
 * accepted keep their role), --log-level, and the triggers (--trigger
 * and the --trigger-* options: the new set checked whole before it
 * replaces the running one, firings in flight saved). Every other option
 * needs a restart; a reload that finds one changed says which.
 */
#ifndef GPD_RELOAD_H
#define GPD_RELOAD_H

struct gpd_daemon;

/* Re-reads d->config's file and command line and applies what can be;
 * what cannot is logged and the running configuration kept. Tells
 * systemd RELOADING=1, then READY=1. */
void gpd_reload(struct gpd_daemon *d);

/* Frees what reloads allocated. */
void gpd_reload_fini(struct gpd_daemon *d);

#endif
