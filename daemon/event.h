/*
 * What happens to a stream besides its reports: a source tells its device
 * (gpd_source_listener), the device and the subscription layer tell each
 * subscriber (gpd_subscriber_ops). One vocabulary from the bottom up.
 */
#ifndef GPD_EVENT_H
#define GPD_EVENT_H

enum gpd_event_kind {
	GPD_EVENT_CONFIG_CHANGED,       /* metric set or period changed */
	GPD_EVENT_BUSY_ELSEWHERE,       /* another process owns the unit */
	GPD_EVENT_DEVICE_LOST,
	GPD_EVENT_RECOVERED,
	GPD_EVENT_ENDED,                /* the source ended (replay finished) */
	GPD_EVENT_RESTARTED,            /* the source started over (replay loop) */
	GPD_EVENT_TRIGGER_FIRED,        /* a trigger of the daemon's fired;
					 * the message says what was saved */
};

struct gpd_event {
	enum gpd_event_kind kind;
	const char *message;
};

#endif
