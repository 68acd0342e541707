/*
 * Checks of what the daemon sends, in the protocol's wire format.
 */
#include "tests/fuzz/wire_check.h"

#include <stdlib.h>

#include "proto/gpuperf.pb-c.h"

enum { WIRE_VARINT = 0, WIRE_FIXED64 = 1, WIRE_LEN = 2, WIRE_FIXED32 = 5 };

struct wire_field {
	uint32_t number;
	unsigned type;
	uint64_t varint;                /* WIRE_VARINT */
	struct wire bytes;              /* the others */
};

static uint64_t wire_varint(struct wire *w)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (w->p == w->end)
			abort();        /* cut short */
		uint8_t b = *w->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	abort();                        /* longer than ten bytes */
}

/* The next field of w; false at its end. */
static bool wire_next(struct wire *w, struct wire_field *f)
{
	if (w->p == w->end)
		return false;
	uint64_t key = wire_varint(w);
	f->number = (uint32_t)(key >> 3);
	f->type = key & 7;
	if (!f->number || key >> 32)
		abort();
	uint64_t len;
	switch (f->type) {
	case WIRE_VARINT:
		f->varint = wire_varint(w);
		return true;
	case WIRE_FIXED64:
		len = 8;
		break;
	case WIRE_LEN:
		len = wire_varint(w);
		break;
	case WIRE_FIXED32:
		len = 4;
		break;
	default:
		abort();                /* groups are not in the protocol */
	}
	if (len > (uint64_t)(w->end - w->p))
		abort();
	f->bytes = (struct wire){ .p = w->p, .end = w->p + len };
	w->p += len;
	return true;
}

static unsigned wire_type_of(ProtobufCType type)
{
	switch (type) {
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
		return WIRE_FIXED32;
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return WIRE_FIXED64;
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_BYTES:
	case PROTOBUF_C_TYPE_MESSAGE:
		return WIRE_LEN;
	default:
		return WIRE_VARINT;
	}
}

static size_t check_field(const ProtobufCFieldDescriptor *fd,
			  const struct wire_field *f);

static void check_message(const ProtobufCMessageDescriptor *desc, struct wire w)
{
	struct wire_field f;
	while (wire_next(&w, &f))
		check_field(protobuf_c_message_descriptor_get_field(desc, f.number),
			    &f);
}

/* How many elements an occurrence of field fd adds, checked against its
 * type (a repeated scalar may come packed). An unknown field (fd NULL) is
 * kept by protobuf-c, and skipped here. */
static size_t check_field(const ProtobufCFieldDescriptor *fd,
			  const struct wire_field *f)
{
	if (!fd)
		return 0;
	unsigned type = wire_type_of(fd->type);
	if (f->type == type) {
		if (fd->type == PROTOBUF_C_TYPE_MESSAGE)
			check_message(fd->descriptor, f->bytes);
		return 1;
	}
	if (fd->label != PROTOBUF_C_LABEL_REPEATED || f->type != WIRE_LEN ||
	    type == WIRE_LEN)
		abort();                /* a wire type the field cannot have */
	size_t len = (size_t)(f->bytes.end - f->bytes.p), n = 0;
	if (type == WIRE_FIXED64 || type == WIRE_FIXED32) {
		size_t size = type == WIRE_FIXED64 ? 8 : 4;
		if (len % size)
			abort();
		return len / size;
	}
	for (struct wire w = f->bytes; w.p != w.end; n++)
		wire_varint(&w);
	return n;
}

static uint32_t field_number(const ProtobufCMessageDescriptor *desc,
			     const char *field)
{
	const ProtobufCFieldDescriptor *fd =
		protobuf_c_message_descriptor_get_field_by_name(desc, field);
	if (!fd)
		abort();                /* not in the protocol */
	return fd->id;
}

uint32_t wire_envelope_kind(const uint8_t *data, size_t len, struct wire *body)
{
	const ProtobufCMessageDescriptor *desc = &gpuperf__envelope__descriptor;
	struct wire w = { .p = data, .end = data + len };
	struct wire_field f;
	uint32_t kind = 0;
	while (wire_next(&w, &f)) {
		const ProtobufCFieldDescriptor *fd =
			protobuf_c_message_descriptor_get_field(desc, f.number);
		check_field(fd, &f);
		if (fd && fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
			kind = f.number;        /* the last one counts */
			*body = f.bytes;
		}
	}
	return kind;
}

uint64_t wire_uint(const ProtobufCMessageDescriptor *desc, struct wire msg,
		   const char *field)
{
	uint32_t number = field_number(desc, field);
	struct wire_field f;
	uint64_t v = 0;
	while (wire_next(&msg, &f))
		if (f.number == number && f.type == WIRE_VARINT)
			v = f.varint;
	return v;
}

size_t wire_count(const ProtobufCMessageDescriptor *desc, struct wire msg,
		  const char *field)
{
	uint32_t number = field_number(desc, field);
	const ProtobufCFieldDescriptor *fd =
		protobuf_c_message_descriptor_get_field(desc, number);
	struct wire_field f;
	size_t n = 0;
	while (wire_next(&msg, &f))
		if (f.number == number)
			n += check_field(fd, &f);
	return n;
}

bool wire_next_message(const ProtobufCMessageDescriptor *desc,
		       struct wire *from, const char *field, struct wire *sub)
{
	uint32_t number = field_number(desc, field);
	struct wire_field f;
	while (wire_next(from, &f))
		if (f.number == number) {
			*sub = f.bytes;
			return true;
		}
	return false;
}
