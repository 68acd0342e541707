/*
 * Telling systemd how the service is doing (Type=notify): READY=1 once
 * the daemon serves, RELOADING=1 while it re-reads its configuration,
 * STOPPING=1 when it shuts down.
 *
 * The protocol is one datagram to the AF_UNIX socket named by
 * $NOTIFY_SOCKET, so the daemon speaks it itself instead of linking
 * libsystemd for one sendto().
 */
#ifndef GPD_SD_NOTIFY_H
#define GPD_SD_NOTIFY_H

/* Sends state ("READY=1", newline-separated assignments). 0 when sent or
 * when $NOTIFY_SOCKET is unset (not started by systemd); a negative errno
 * when the socket cannot be reached. */
int gpd_sd_notify(const char *state);

/* gpd_sd_notify with a printf format. */
int gpd_sd_notifyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
