/*
 * Between protobuf bytes and the daemon: decoding a client's Envelope
 * under a memory cap and checking it is a request this version defines,
 * packing server Envelopes into queue messages, and the mapping of the
 * daemon's error codes onto the protocol's.
 *
 * protobuf-c sets no limit on what a message may make it allocate (a
 * megabyte of empty map entries costs fifty), so every decode goes through
 * an allocator that refuses past a cap.
 */
#ifndef GPD_NET_PROTO_CODEC_H
#define GPD_NET_PROTO_CODEC_H

#include <stdbool.h>
#include <stddef.h>

#include "daemon/net/send_queue.h"
#include "proto/gpuperf.pb-c.h"

struct gpd_proto_allocator {
	ProtobufCAllocator base;
	size_t cap;
	size_t used;
	bool refused;                   /* the cap refused an allocation */
};

void gpd_proto_allocator_init(struct gpd_proto_allocator *a, size_t cap);

/*
 * Decodes len bytes into *out (freed with gpd_proto_free_request and the
 * same allocator). -EBADMSG when the bytes are no Envelope (or need more
 * memory than the cap), -EPROTO when the Envelope carries fields this
 * version does not define, no kind, or a kind only the server sends; *why
 * then says which in words.
 */
int gpd_proto_decode_request(struct gpd_proto_allocator *a, const void *data,
			     size_t len, Gpuperf__Envelope **out,
			     char *why, size_t why_size);

void gpd_proto_free_request(struct gpd_proto_allocator *a,
			    Gpuperf__Envelope *env);

/* Packs env into a new message for q; NULL on ENOMEM. */
struct gpd_message *gpd_proto_pack(const struct gpd_send_queue *q,
				   enum gpd_message_class class,
				   const Gpuperf__Envelope *env);

/* The protocol's code for a negative errno from the daemon. */
Gpuperf__ErrorCode gpd_proto_error_code(int code);

#endif
