/*
 * /metrics: the Prometheus text exposition of every device's counters.
 *
 * Per device, the current metric set's counters are gauges in base units
 * (seconds, bytes, hertz, ratios 0-1), named gpuperf_<counter>_<unit> and
 * labelled device, pci_id and metric_set; values are those of the last
 * window of --metrics-window. Loss counts are counters (_total), and
 * gpuperf_info names each device and the server version.
 *
 * The exporter subscribes itself, as a viewer, while it is scraped: a
 * device nobody streams starts streaming its default set at the first
 * scrape (which waits up to a window for values), and the subscription
 * ends when scrapes stop.
 */
#ifndef GPD_NET_METRICS_EXPORTER_H
#define GPD_NET_METRICS_EXPORTER_H

#include <stddef.h>

struct gpd_server;
struct gpd_metrics_exporter;

/* A request for the exposition; the caller owns it until done. */
struct gpd_scrape {
	/* text (len bytes) is valid during the call only. */
	void (*done)(struct gpd_scrape *scrape, const char *text, size_t len);
	struct gpd_scrape *next;
};

int gpd_metrics_exporter_create(struct gpd_server *server,
				struct gpd_metrics_exporter **out);

/* Ends the subscriptions; pending scrapes get no answer. */
void gpd_metrics_exporter_destroy(struct gpd_metrics_exporter *ex);

/* Calls scrape->done now, or once every device has a window's values
 * (at most a window and a second later). */
void gpd_metrics_exporter_scrape(struct gpd_metrics_exporter *ex,
				 struct gpd_scrape *scrape);

/* The scrape's client went away. */
void gpd_metrics_exporter_cancel(struct gpd_metrics_exporter *ex,
				 struct gpd_scrape *scrape);

#endif
