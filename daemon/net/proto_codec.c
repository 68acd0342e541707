/*
 * Request decoding under a memory cap, and packing of replies.
 */
#include <errno.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/net/proto_codec.h"

/* Each block remembers its size so free can give it back to the cap. */
struct block_header {
	alignas(max_align_t) size_t size;
};

static void *capped_alloc(void *data, size_t size)
{
	struct gpd_proto_allocator *a = data;
	if (size > a->cap - a->used) {
		a->refused = true;
		return NULL;
	}
	struct block_header *h = malloc(sizeof(*h) + size);
	if (!h)
		return NULL;
	h->size = size;
	a->used += size;
	return h + 1;
}

static void capped_free(void *data, void *ptr)
{
	struct gpd_proto_allocator *a = data;
	if (!ptr)
		return;
	struct block_header *h = (struct block_header *)ptr - 1;
	a->used -= h->size;
	free(h);
}

void gpd_proto_allocator_init(struct gpd_proto_allocator *a, size_t cap)
{
	a->base.alloc = capped_alloc;
	a->base.free = capped_free;
	a->base.allocator_data = a;
	a->cap = cap;
	a->used = 0;
	a->refused = false;
}

/* Finds fields this version does not know anywhere in msg. The schema is
 * not recursive, so the depth is bounded by it. */
static const ProtobufCMessage *find_unknown(const ProtobufCMessage *msg)
{
	if (msg->n_unknown_fields)
		return msg;
	const ProtobufCMessageDescriptor *d = msg->descriptor;
	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		if (f->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		const char *base = (const char *)msg;
		if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
			uint32_t which = *(const uint32_t *)(base + f->quantifier_offset);
			if (which != f->id)
				continue;
		}
		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t n = *(const size_t *)(base + f->quantifier_offset);
			ProtobufCMessage *const *items =
				*(ProtobufCMessage *const *const *)(base + f->offset);
			for (size_t k = 0; k < n; k++) {
				const ProtobufCMessage *u = find_unknown(items[k]);
				if (u)
					return u;
			}
		} else {
			const ProtobufCMessage *sub =
				*(const ProtobufCMessage *const *)(base + f->offset);
			const ProtobufCMessage *u = sub ? find_unknown(sub) : NULL;
			if (u)
				return u;
		}
	}
	return NULL;
}

static bool is_request(Gpuperf__Envelope__KindCase kind)
{
	switch (kind) {
	case GPUPERF__ENVELOPE__KIND_AUTH:
	case GPUPERF__ENVELOPE__KIND_SUBSCRIBE:
	case GPUPERF__ENVELOPE__KIND_UNSUBSCRIBE:
	case GPUPERF__ENVELOPE__KIND_RECONFIGURE:
	case GPUPERF__ENVELOPE__KIND_MARK:
	case GPUPERF__ENVELOPE__KIND_START_RECORDING:
	case GPUPERF__ENVELOPE__KIND_STOP_RECORDING:
	case GPUPERF__ENVELOPE__KIND_PING:
	case GPUPERF__ENVELOPE__KIND_SUBSCRIBE_USAGE:
	case GPUPERF__ENVELOPE__KIND_SNAPSHOT:
		return true;
	default:
		return false;
	}
}

int gpd_proto_decode_request(struct gpd_proto_allocator *a, const void *data,
			     size_t len, Gpuperf__Envelope **out,
			     char *why, size_t why_size)
{
	a->refused = false;
	*out = gpuperf__envelope__unpack(&a->base, len, data);
	if (!*out) {
		if (a->refused)
			snprintf(why, why_size,
				 "the message (%zu bytes) would take more than "
				 "%zu bytes of memory to decode", len, a->cap);
		else
			snprintf(why, why_size,
				 "the message (%zu bytes) is not a "
				 "gpuperf.Envelope: garbage, truncated, or a "
				 "field of the wrong type", len);
		return -EBADMSG;
	}
	const ProtobufCMessage *u = find_unknown(&(*out)->base);
	if (u) {
		snprintf(why, why_size,
			 "field %u of %s is not part of protocol version %d; "
			 "update the client or drop the field",
			 u->unknown_fields[0].tag, u->descriptor->name,
			 GPUPERF__PROTOCOL_VERSION__PROTOCOL_VERSION);
		return -EPROTO;
	}
	if ((*out)->kind_case == GPUPERF__ENVELOPE__KIND__NOT_SET) {
		snprintf(why, why_size, "the Envelope holds no request");
		return -EPROTO;
	}
	if (!is_request((*out)->kind_case)) {
		snprintf(why, why_size,
			 "Envelope field %d is a message only the server sends",
			 (int)(*out)->kind_case);
		return -EPROTO;
	}
	return 0;
}

void gpd_proto_free_request(struct gpd_proto_allocator *a,
			    Gpuperf__Envelope *env)
{
	if (env)
		gpuperf__envelope__free_unpacked(env, &a->base);
}

struct gpd_message *gpd_proto_pack(const struct gpd_send_queue *q,
				   enum gpd_message_class class,
				   const Gpuperf__Envelope *env)
{
	size_t len = gpuperf__envelope__get_packed_size(env);
	struct gpd_message *m = gpd_message_alloc(q, class, len);
	if (m)
		gpuperf__envelope__pack(env, m->data);
	return m;
}

Gpuperf__ErrorCode gpd_proto_error_code(int code)
{
	switch (code) {
	case -EPERM:
	case -EACCES:
		return GPUPERF__ERROR_CODE__PERMISSION_DENIED;
	case -ENOENT:
	case -ENODEV:
	case -ENODATA:
		return GPUPERF__ERROR_CODE__NOT_FOUND;
	case -EBUSY:
		return GPUPERF__ERROR_CODE__BUSY;
	case -EINVAL:
	case -EALREADY:
	case -ERANGE:
	case -EOPNOTSUPP:
	case -ENOTTY:           /* a passed file that is no DRM node */
	case -EXDEV:            /* ... or one of another device */
		return GPUPERF__ERROR_CODE__INVALID_ARGUMENT;
	case -EAGAIN:
	case -EIO:
	case -ENXIO:
		return GPUPERF__ERROR_CODE__UNAVAILABLE;
	case -ENOMEM:
	case -ENOBUFS:
	case -ENOSPC:
	case -EMFILE:
	case -E2BIG:
		return GPUPERF__ERROR_CODE__RESOURCE_EXHAUSTED;
	case -EBADMSG:
	case -EPROTO:
		return GPUPERF__ERROR_CODE__MALFORMED;
	case -EMSGSIZE:
		return GPUPERF__ERROR_CODE__TOO_LARGE;
	default:
		return GPUPERF__ERROR_CODE__INTERNAL;
	}
}
