/*
 * /metrics: every device's counters and usage for Prometheus, in its text
 * format or in OpenMetrics (metrics_text.h).
 *
 * Every device's series carry its labels, DEVICE below:
 *   device     what the daemon calls it ("sim0", "card1", "nvidia0")
 *   device_id  which GPU it is across restarts and renames: the PCI slot
 *              ("0000:03:00.0"), an NVIDIA GPU's UUID ("GPU-8f6b...")
 *   pci_id     the PCI device id ("0x9a49")
 *   model      "Tiger Lake GT2", "NVIDIA H200"
 *   driver     i915, xe, amdgpu, nvidia, sim or replay
 *
 * Per device, the current metric set's counters (--metrics-counters picks
 * which) are gauges in base units (seconds, bytes, hertz, ratios 0-1),
 * named gpuperf_<counter>_<unit>{DEVICE,metric_set}; values are those of
 * the last window of --metrics-window. Then the usage series
 * (metrics_usage.h), the loss counts (counters), gpuperf_device_up, and
 * gpuperf_info{DEVICE,platform,source,version}.
 *
 * The exporter subscribes itself, as a viewer, while it is scraped: a
 * device nobody streams starts streaming its default set at the first
 * scrape (which waits up to a window for values), and the subscription
 * ends when scrapes stop.
 *
 * A scrape never holds up the loop: each window's values are written into
 * text on a worker thread as they come, and a scrape is answered at once
 * with a copy of the last window's text and the few lines that change at
 * any time (loss counts, rings, triggers, connections) written as it is
 * answered. The counters and usage series are so at most one render (well
 * under a millisecond) behind the window the daemon last read.
 */
#ifndef GPD_NET_METRICS_EXPORTER_H
#define GPD_NET_METRICS_EXPORTER_H

#include <stddef.h>

#include "daemon/error.h"
#include "daemon/net/metrics_text.h"

struct gpd_server;
struct gpd_metrics_exporter;

/* A request for the exposition; the caller owns it until done. */
struct gpd_scrape {
	enum gpd_metrics_format format;
	/* Per-process series, with pid and command labels, when
	 * --metrics-processes is on: for whom --process-details lets see
	 * them (gpd_server_process_details), else only how many are left
	 * out. */
	bool process_details;
	/* text (len bytes) is valid during the call only. */
	void (*done)(struct gpd_scrape *scrape, const char *text, size_t len);
	struct gpd_scrape *next;
};

/* -EINVAL when --metrics-counters names a counter no device has (err
 * says which, and the nearest name), -ENOMEM. */
int gpd_metrics_exporter_create(struct gpd_server *server,
				struct gpd_metrics_exporter **out,
				struct gpd_error *err);

/* Ends the subscriptions; pending scrapes get no answer. The memory goes
 * once the loop has closed the exporter's handles and its worker is done. */
void gpd_metrics_exporter_destroy(struct gpd_metrics_exporter *ex);

/* Calls scrape->done with the text: at once (before it returns) when the
 * last window's text is written, else once every device has a window's
 * values and its text is (at most a window and a second later): at the
 * first scrape, and after a device changed its metric set, was lost or
 * came back. */
void gpd_metrics_exporter_scrape(struct gpd_metrics_exporter *ex,
				 struct gpd_scrape *scrape);

/* The scrape's client went away: scrape->done will not be called. */
void gpd_metrics_exporter_cancel(struct gpd_metrics_exporter *ex,
				 struct gpd_scrape *scrape);

#endif
