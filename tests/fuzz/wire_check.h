/*
 * Checks of what the daemon sends, in the protocol's wire format: every
 * message walked whole against the protocol's descriptors, as strictly as
 * protobuf-c's unpacking checks it (wire types, lengths, varints, nested
 * messages; stricter on bools, which protobuf-c takes in any wire type),
 * without unpacking it. Whatever is malformed aborts.
 *
 * The session fuzzer reads everything its sessions are sent; unpacking
 * each message, a frame with its context rows, took a fifth of a
 * sequence. Built without coverage instrumentation: the
 * checks steer nothing, and tracing their comparisons cost as much again.
 */
#ifndef FUZZ_WIRE_CHECK_H
#define FUZZ_WIRE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

/* Bytes of a message or of one of its fields. */
struct wire {
	const uint8_t *p, *end;
};

/* The kind of the Envelope in data (its oneof's field number; 0: none),
 * all of it checked; *body: the kind's message. */
uint32_t wire_envelope_kind(const uint8_t *data, size_t len, struct wire *body);

/* Of a checked message of desc: the value of an integer field (its last
 * occurrence; 0 when absent), */
uint64_t wire_uint(const ProtobufCMessageDescriptor *desc, struct wire msg,
		   const char *field);
/* how many elements a repeated field has, */
size_t wire_count(const ProtobufCMessageDescriptor *desc, struct wire msg,
		  const char *field);
/* and the next occurrence of a message field after *from (starting at
 * the message), in *sub; false past the last. */
bool wire_next_message(const ProtobufCMessageDescriptor *desc,
		       struct wire *from, const char *field, struct wire *sub);

#endif
