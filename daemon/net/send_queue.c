/*
 * The bounded outgoing queue of a connection.
 */
#include <errno.h>
#include <stdlib.h>

#include "daemon/net/send_queue.h"

void gpd_send_queue_init(struct gpd_send_queue *q, size_t headroom,
			 size_t frame_limit, size_t byte_limit)
{
	*q = (struct gpd_send_queue){
		.headroom = headroom,
		.frame_limit = frame_limit,
		.byte_limit = byte_limit,
	};
}

bool gpd_send_queue_frame_fits(const struct gpd_send_queue *q)
{
	return q->frames < q->frame_limit;
}

struct gpd_message *gpd_message_alloc(const struct gpd_send_queue *q,
				      enum gpd_message_class class, size_t len)
{
	struct gpd_message *m = malloc(sizeof(*m) + q->headroom + len);
	if (!m)
		return NULL;
	m->next = NULL;
	m->class = class;
	m->len = len;
	m->data = m->buf + q->headroom;
	return m;
}

int gpd_send_queue_push(struct gpd_send_queue *q, struct gpd_message *m)
{
	if ((m->class == GPD_MESSAGE_FRAME && !gpd_send_queue_frame_fits(q)) ||
	    q->bytes + m->len > q->byte_limit) {
		free(m);
		return -ENOBUFS;
	}
	if (q->tail)
		q->tail->next = m;
	else
		q->head = m;
	q->tail = m;
	q->bytes += m->len;
	if (m->class == GPD_MESSAGE_FRAME)
		q->frames++;
	else if (m->class == GPD_MESSAGE_RECORDING)
		q->recording_bytes += m->len;
	return 0;
}

struct gpd_message *gpd_send_queue_pop(struct gpd_send_queue *q)
{
	struct gpd_message *m = q->head;
	if (!m)
		return NULL;
	q->head = m->next;
	if (!q->head)
		q->tail = NULL;
	m->next = NULL;
	q->bytes -= m->len;
	if (m->class == GPD_MESSAGE_FRAME)
		q->frames--;
	else if (m->class == GPD_MESSAGE_RECORDING)
		q->recording_bytes -= m->len;
	return m;
}

bool gpd_send_queue_empty(const struct gpd_send_queue *q)
{
	return !q->head;
}

void gpd_send_queue_clear(struct gpd_send_queue *q)
{
	struct gpd_message *m;
	while ((m = gpd_send_queue_pop(q)))
		free(m);
}
