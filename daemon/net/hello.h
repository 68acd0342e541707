/*
 * Hello: what a client learns on connecting. The devices' descriptions
 * (identity, topology, metric sets with every counter's metadata and
 * bound, sampling periods) are built once; each Hello adds the client's
 * role and limits and each device's current configuration.
 */
#ifndef GPD_NET_HELLO_H
#define GPD_NET_HELLO_H

#include "daemon/net/send_queue.h"
#include "proto/gpuperf.pb-c.h"

struct gpd_device;
struct gpd_device_registry;
struct gpd_hello;

/* Describes every one of devices. -ENOMEM. */
int gpd_hello_create(const struct gpd_device_registry *devices,
		     struct gpd_hello **out);

void gpd_hello_destroy(struct gpd_hello *hello);

/* A Hello Envelope for request_id, packed for q; NULL on ENOMEM. */
struct gpd_message *gpd_hello_pack(struct gpd_hello *hello,
				   const struct gpd_send_queue *q,
				   uint64_t request_id, Gpuperf__Role role,
				   const Gpuperf__Limits *limits);

/* The same for one connection: one over the Unix socket learns where it
 * may pass DRM files (fd_socket, NULL: it may not) and its key there. */
struct gpd_message *gpd_hello_pack_session(struct gpd_hello *hello,
					   const struct gpd_send_queue *q,
					   uint64_t request_id,
					   Gpuperf__Role role,
					   const Gpuperf__Limits *limits,
					   const char *fd_socket,
					   const uint8_t *key, size_t key_len);

/* The device's configuration now. Its strings point into the metric
 * definitions. */
void gpd_hello_configuration(const struct gpd_device *dev,
			     Gpuperf__Configuration *c);

#endif
