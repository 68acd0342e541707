/*
 * A connection's outgoing messages, bounded so a client that stops reading
 * costs the daemon a fixed amount of memory.
 *
 * Frames are droppable: past frame_limit queued frames a new frame is
 * refused (the caller counts it and tells the client in its next frame).
 * Every other message is a reply or a stream the client must get whole;
 * those are refused only past byte_limit, which ends the connection.
 * Each message has headroom bytes before it for the transport's framing
 * (libwebsockets writes its header there).
 */
#ifndef GPD_NET_SEND_QUEUE_H
#define GPD_NET_SEND_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

enum gpd_message_class {
	GPD_MESSAGE_CONTROL,            /* replies, events, errors */
	GPD_MESSAGE_FRAME,              /* droppable */
	GPD_MESSAGE_RECORDING,          /* recording bytes */
};

struct gpd_message {
	struct gpd_message *next;
	enum gpd_message_class class;
	size_t len;
	unsigned char *data;            /* len bytes, headroom bytes after buf */
	unsigned char buf[];
};

struct gpd_send_queue {
	struct gpd_message *head, *tail;
	size_t headroom;
	size_t frame_limit;
	size_t byte_limit;
	size_t frames;                  /* queued, by class */
	size_t recording_bytes;
	size_t bytes;                   /* all queued */
};

void gpd_send_queue_init(struct gpd_send_queue *q, size_t headroom,
			 size_t frame_limit, size_t byte_limit);

/* True when a frame would be queued now. */
bool gpd_send_queue_frame_fits(const struct gpd_send_queue *q);

/* A message with room for len bytes, not yet queued; NULL on ENOMEM. */
struct gpd_message *gpd_message_alloc(const struct gpd_send_queue *q,
				      enum gpd_message_class class, size_t len);

/* Queues m, or frees it and returns -ENOBUFS when the limits refuse it. */
int gpd_send_queue_push(struct gpd_send_queue *q, struct gpd_message *m);

/* The oldest message, removed from the queue; NULL when empty. The caller
 * frees it with free(). */
struct gpd_message *gpd_send_queue_pop(struct gpd_send_queue *q);

bool gpd_send_queue_empty(const struct gpd_send_queue *q);

void gpd_send_queue_clear(struct gpd_send_queue *q);

#endif
