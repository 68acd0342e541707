/*
 * Fuzzes whole client sessions against one in-process daemon on a stepped
 * sim device: several connections at once, each sending requests in an
 * order the input chooses, some never reading what they are sent, while
 * the simulated unit's time moves on between requests.
 *
 * Input: a sequence of operations, each an operation byte and the bytes
 * of its arguments (missing bytes read as 0):
 *
 *   CONNECT mode      a session: bit 0 trusted, bit 1 a bearer header,
 *                     bit 2 with the viewer's token (else the
 *                     controller's), bit 3 a client that never reads,
 *                     bit 4 from a second address
 *   AUTH c token role
 *   SUBSCRIBE c set period window n counter... flags
 *   UNSUBSCRIBE c id, RECONFIGURE c id set period, MARK c id kind,
 *   START_RECORDING c set period max, STOP_RECORDING c id, PING c
 *   CLOSE c           the connection goes away
 *   ADVANCE t         the sim runs on (100 us to 20 ms), up to
 *                     SIM_TIME_PER_SEQUENCE_NS in all; later ones are
 *                     no-ops
 *   READ c            connection c reads what it was sent
 *   RAW c n bytes...  n bytes as one message
 *   LOOP              the loop turns once (recordings end there)
 *
 * c picks one of the open connections. Requests are real Envelopes through
 * gpd_session_receive; names, periods and windows come from small tables
 * of valid and invalid values.
 *
 * Checked beyond memory safety, after every operation: every subscription
 * is bound to the set its device runs; everything a session
 * queued is an Envelope of a server kind; a frame carries as many values
 * (and per-context values) as its subscription's counters, as the client
 * was last told them (Subscribed, Reconfigured, CONFIG_CHANGED); a closing
 * session queues nothing more. At the end every connection closes and the
 * device must be idle again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/net/server.h"
#include "daemon/net/session_internal.h"
#include "daemon/sim/sim_source.h"
#include "daemon/subscription_internal.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/wire_check.h"

#define K(x) GPUPERF__ENVELOPE__KIND_##x
#define N_CONNECTIONS 4
/* The daemon's --min-period: at the default 10 us, an ADVANCE of 50 ms
 * simulated 5,000 reports, most of a sequence's time, and the rules on
 * periods are the same at any floor. At 250 us the fastest stream the
 * sim's doubling periods give is 427 us: an ADVANCE of 20 ms simulates
 * 47 reports, and a window shorter than the period 47 frames. */
#define MIN_PERIOD_NS 250000
/* The sim workload's mean timeslice: at its default, 1 ms, there were as
 * many context-switch reports as timer reports at a 1 ms period, ten
 * times as many at 10 ms; windows of 10 ms and more still see contexts
 * take turns. */
#define SIM_TIMESLICE_NS 5000000
/* Simulated time a sequence may spend, in all its ADVANCEs: as long as
 * the longest window (100 ms), so every window length closes at least
 * once in a sequence. Without a bound, corpora grew sequences of many
 * ADVANCEs (a mean of 49 ms, some over 2 s, over a grown corpus), and
 * their reports, decoded, evaluated and sent to every subscription,
 * were most of a sequence's cost, while what a sequence reaches lies in
 * the order of its requests, not in the length of the runs between
 * them. */
#define SIM_TIME_PER_SEQUENCE_NS 100000000
#define N_TRACKED 16

enum op {
	OP_CONNECT,
	OP_AUTH,
	OP_SUBSCRIBE,
	OP_UNSUBSCRIBE,
	OP_RECONFIGURE,
	OP_MARK,
	OP_START_RECORDING,
	OP_STOP_RECORDING,
	OP_PING,
	OP_CLOSE,
	OP_ADVANCE,
	OP_READ,
	OP_RAW,
	OP_LOOP,
	N_OPS,
};

static const char *const sets[] = {
	"", "RenderBasic", "ComputeBasic", "MemoryL3", "Nope",
};
static const char *const counters[] = {
	"GpuTime", "GpuBusy", "Nope", "EuActive", "L3Lookups", "ComputeBusy",
	"", "RenderBusy",
};
/* 1 is below the floor (MIN_PERIOD_NS): refused. The floor itself is
 * 213 us in the unit's doubling periods, below it: it takes the next
 * longer one. */
static const uint64_t periods_ns[] = {
	0, 1, MIN_PERIOD_NS, 1000000, 10000000, UINT64_MAX,
};
static const uint64_t windows_ns[] = {
	0, 1, 1000000, 10000000, 100000000,
};
static const uint64_t advances_ns[] = {
	100000, 1000000, 5000000, 10000000, 20000000,
};
static const uint64_t max_bytes[] = { 0, 100, 4096, 1 << 20 };
#define VIEWER_TOKEN "fuzztoken-0123456789abcdefgh"
#define CONTROLLER_TOKEN "ctl-0123456789abcdefghijklmn"
static const char *const tokens[] = { VIEWER_TOKEN, CONTROLLER_TOKEN, "wrong", "" };
static const char *const devices[] = { "", "sim0", "nope" };

/* A subscription as its client knows it. */
struct tracked {
	uint32_t id;
	size_t n_counters;
};

struct connection {
	struct gpd_session *session;
	bool reads;
	struct tracked subs[N_TRACKED];
	size_t n_subs;
};

/* AddressSanitizer keeps 256 MB of freed memory from reuse by default;
 * a sequence frees a few MB (Hellos, frames), and at that size the
 * quarantine's recycling and the fresh memory it makes the allocator map
 * took a third of the time. 16 MB still holds several sequences' frees.
 * The allocator's free pages stay mapped: giving them back to the system
 * (madvise, the TLB flushes on every core, faulting them in again) was a
 * tenth of a sequence; the process's memory stays what its sequences
 * use at most. Each allocation and free records its stack for reports:
 * five frames (the default is 30) name the request or source that
 * allocated; unwinding and storing the rest was 3% of a sequence, and
 * what is checked is the same (the report's own stack stays whole). */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "quarantine_size_mb=16:allocator_release_to_os_interval_ms=-1:"
	       "malloc_context_size=5";
}

static uv_loop_t loop;
static uint64_t sim_time_spent_ns;
static struct gpd_daemon daemon_ctx;
static struct gpd_server server;
static struct connection connections[N_CONNECTIONS];
static uint64_t next_request_id;

static void wake(void *user)
{
}

static void setup(void)
{
	static const char *specs[] = { "sim" };
	struct gpd_options opts = {
		.device_specs = specs,
		.n_device_specs = 1,
		.seed = 3,
		.sim_buffer_size = 128 * 1024,
		.sim_stepped = true,
		.sim_timeslice_ns = SIM_TIMESLICE_NS,
		.min_period_ns = MIN_PERIOD_NS,
	};
	struct gpd_error err = { 0 };
	gpd_log_set_level(GPD_LOG_ERROR);
	uv_loop_init(&loop);
	if (gpd_daemon_init(&daemon_ctx, &loop, &opts, &err)) {
		fprintf(stderr, "fuzz_session: %s\n", err.message);
		abort();
	}
	char path[] = "/tmp/fuzz-session-tokens-XXXXXX";
	int fd = mkstemp(path);
	static const char text[] = VIEWER_TOKEN " viewer\n"
				   CONTROLLER_TOKEN " controller\n";
	if (fd < 0 || write(fd, text, sizeof(text) - 1) != sizeof(text) - 1)
		abort();
	close(fd);
	struct gpd_server_options so = {
		.token_file = path,
		.max_subscriptions = 4,
		.queue_frames = 8,
		.max_requests_per_second = 1000000,
	};
	if (gpd_server_init(&server, &loop, &daemon_ctx.registry, &so, &err)) {
		fprintf(stderr, "fuzz_session: %s\n", err.message);
		abort();
	}
	unlink(path);
}

/* The input, read a byte at a time; 0 past its end. */
struct cursor {
	const uint8_t *data;
	size_t size;
};

static uint8_t take(struct cursor *c)
{
	if (!c->size)
		return 0;
	c->size--;
	return *c->data++;
}

#define PICK(c, table) ((table)[take(c) % (sizeof(table) / sizeof((table)[0]))])

static struct tracked *find_tracked(struct connection *conn, uint32_t id)
{
	for (size_t i = 0; i < conn->n_subs; i++)
		if (conn->subs[i].id == id)
			return &conn->subs[i];
	return NULL;
}

static void track(struct connection *conn, uint32_t id, size_t n_counters)
{
	struct tracked *t = find_tracked(conn, id);
	if (!t && conn->n_subs < N_TRACKED)
		t = &conn->subs[conn->n_subs++];
	if (t)
		*t = (struct tracked){ .id = id, .n_counters = n_counters };
}

static void untrack(struct connection *conn, uint32_t id)
{
	struct tracked *t = find_tracked(conn, id);
	if (t)
		*t = conn->subs[--conn->n_subs];
}

static void check_frame(struct connection *conn, struct wire frame)
{
	const ProtobufCMessageDescriptor *desc = &gpuperf__frame__descriptor;
	struct tracked *t = find_tracked(conn, (uint32_t)wire_uint(desc, frame,
							"subscription_id"));
	if (!t)
		abort();        /* a frame of a subscription never granted */
	if (wire_count(desc, frame, "values") != t->n_counters)
		abort();
	struct wire rows = frame, row;
	while (wire_next_message(desc, &rows, "contexts", &row))
		if (wire_count(&gpuperf__context_row__descriptor, row,
			       "values") != t->n_counters)
			abort();
}

/* What the client is told of its subscriptions. */
static void follow_subscriptions(struct connection *conn, uint32_t kind,
				 struct wire body)
{
	const ProtobufCMessageDescriptor *desc;
	switch (kind) {
	case K(SUBSCRIBED):
		desc = &gpuperf__subscribed__descriptor;
		break;
	case K(RECONFIGURED):
		desc = &gpuperf__reconfigured__descriptor;
		break;
	case K(UNSUBSCRIBED):
		untrack(conn, (uint32_t)wire_uint(&gpuperf__unsubscribed__descriptor,
						  body, "subscription_id"));
		return;
	case K(EVENT):
		desc = &gpuperf__stream_event__descriptor;
		if (wire_uint(desc, body, "kind") !=
		    GPUPERF__STREAM_EVENT__KIND__CONFIG_CHANGED)
			return;
		break;
	default:
		return;
	}
	track(conn, (uint32_t)wire_uint(desc, body, "subscription_id"),
	      wire_count(desc, body, "counters"));
}

/* Hellos checked before: every session gets one, one of a few byte
 * strings (a role, its limits, the device's configuration) past the
 * request id, and decoding all its counters was most of a sequence. A
 * message is a run of fields, so a Hello whose request id is a whole
 * varint and whose rest is one decoded before decodes as well. */
#define N_HELLOS 64
static struct {
	uint8_t *data;
	size_t len;
} hellos_checked[N_HELLOS];
static unsigned n_hellos_checked, next_hello_slot;

/* Where m's bytes past its leading request_id field start; 0 when it
 * has none or it is cut short. */
static size_t past_request_id(const struct gpd_message *m)
{
	static const uint8_t request_id_key = 1 << 3;   /* field 1, varint */
	size_t i = 1;
	if (!m->len || m->data[0] != request_id_key)
		return 0;
	while (i < m->len && i <= 10 && (m->data[i] & 0x80))
		i++;
	return i < m->len && i <= 10 ? i + 1 : 0;
}

/* Whether m's field past its request id is the Envelope's hello: every
 * message is asked, frames most, and the Hellos kept are looked at for
 * Hellos alone. */
static bool is_hello_field(const struct gpd_message *m, size_t skip)
{
	static uint8_t key[2];
	if (!key[0]) {
		uint32_t id = protobuf_c_message_descriptor_get_field_by_name(
			&gpuperf__envelope__descriptor, "hello")->id;
		uint32_t wire = id << 3 | PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
		if (wire < 1 << 7 || wire >= 1 << 14)
			abort();        /* a key of two bytes, as field 30's */
		key[0] = (uint8_t)(wire | 0x80);
		key[1] = (uint8_t)(wire >> 7);
	}
	return m->len - skip >= sizeof(key) && !memcmp(m->data + skip, key, sizeof(key));
}

static bool is_checked_hello(const struct gpd_message *m)
{
	size_t skip = past_request_id(m);
	if (!is_hello_field(m, skip))
		return false;
	for (unsigned i = 0; i < n_hellos_checked; i++)
		if (m->len - skip == hellos_checked[i].len &&
		    !memcmp(m->data + skip, hellos_checked[i].data,
			    hellos_checked[i].len))
			return true;
	return false;
}

static void remember_hello(const struct gpd_message *m)
{
	size_t skip = past_request_id(m);
	unsigned i = next_hello_slot++ % N_HELLOS;
	if (n_hellos_checked < N_HELLOS)
		n_hellos_checked++;
	uint8_t *copy = realloc(hellos_checked[i].data, m->len - skip);
	if (!copy)
		abort();
	memcpy(copy, m->data + skip, m->len - skip);
	hellos_checked[i].data = copy;
	hellos_checked[i].len = m->len - skip;
}

/* Reads what conn was sent, in order, as its client would. */
static void read_all(struct connection *conn)
{
	struct gpd_message *m;
	while ((m = gpd_session_pop(conn->session))) {
		if (is_checked_hello(m)) {
			free(m);
			continue;
		}
		struct wire body;
		uint32_t kind = wire_envelope_kind(m->data, m->len, &body);
		if (kind < K(HELLO))
			abort();
		if (kind == K(HELLO))
			remember_hello(m);
		else if (kind == K(FRAME))
			check_frame(conn, body);
		else
			follow_subscriptions(conn, kind, body);
		free(m);
	}
}

/* Every subscription is bound to the set its device runs. */
static void check_subscriptions(void)
{
	for (unsigned i = 0; i < N_CONNECTIONS; i++) {
		const struct gpd_session *s = connections[i].session;
		if (!s)
			continue;
		for (const struct gpd_session_sub *ss = s->subs; ss; ss = ss->next)
			if (ss->sub->set != ss->sub->device->set)
				abort();
	}
}

static void close_connection(struct connection *conn)
{
	read_all(conn);
	gpd_session_destroy(conn->session);
	memset(conn, 0, sizeof(*conn));
}

static struct connection *pick_connection(struct cursor *c)
{
	uint8_t i = take(c) % N_CONNECTIONS;
	for (unsigned n = 0; n < N_CONNECTIONS; n++) {
		struct connection *conn = &connections[(i + n) % N_CONNECTIONS];
		if (conn->session)
			return conn;
	}
	return NULL;
}

static void send_request(struct connection *conn, Gpuperf__Envelope *env)
{
	env->request_id = ++next_request_id;
	size_t len = gpuperf__envelope__get_packed_size(env);
	uint8_t *buf = malloc(len ? len : 1);
	if (!buf)
		abort();
	gpuperf__envelope__pack(env, buf);
	bool was_closing = conn->session->closing;
	size_t queued = conn->session->queue.bytes;
	gpd_session_receive(conn->session, buf, len);
	free(buf);
	if (was_closing && conn->session->queue.bytes > queued)
		abort();
}

static void op_connect(struct cursor *c)
{
	uint8_t mode = take(c);
	for (unsigned i = 0; i < N_CONNECTIONS; i++) {
		struct connection *conn = &connections[i];
		if (conn->session)
			continue;
		struct gpd_session_transport t = { .wake = wake };
		const char *bearer = NULL;
		if (mode & 2)
			bearer = mode & 4 ? "Bearer " VIEWER_TOKEN
					  : "Bearer " CONTROLLER_TOKEN;
		struct gpd_session_peer peer = {
			.trusted = mode & 1,
			.address = mode & 16 ? "192.0.2.1" : "192.0.2.2",
		};
		if (gpd_session_create(&server, &t, &peer, bearer, &conn->session))
			return;
		conn->reads = !(mode & 8);
		return;
	}
}

static void op_subscribe(struct connection *conn, struct cursor *c)
{
	Gpuperf__Subscribe s = GPUPERF__SUBSCRIBE__INIT;
	s.metric_set = (char *)PICK(c, sets);
	s.sampling_period_ns = PICK(c, periods_ns);
	s.window_ns = PICK(c, windows_ns);
	char *names[4];
	s.n_counters = take(c) % 5;
	for (size_t i = 0; i < s.n_counters; i++)
		names[i] = (char *)PICK(c, counters);
	s.counters = names;
	uint8_t flags = take(c);
	s.raw = flags & 1;
	s.per_context = flags & 2;
	if (flags & 4) {
		s.context_filter_case = GPUPERF__SUBSCRIBE__CONTEXT_FILTER_CTX_ID;
		s.ctx_id = flags >> 5;
	}
	s.device = (char *)devices[(flags >> 3) % 3];
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.kind_case = K(SUBSCRIBE);
	env.subscribe = &s;
	send_request(conn, &env);
}

static void op_request(enum op op, struct connection *conn, struct cursor *c)
{
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	Gpuperf__Auth auth = GPUPERF__AUTH__INIT;
	Gpuperf__Unsubscribe unsub = GPUPERF__UNSUBSCRIBE__INIT;
	Gpuperf__Reconfigure reconf = GPUPERF__RECONFIGURE__INIT;
	Gpuperf__Mark mark = GPUPERF__MARK__INIT;
	Gpuperf__StartRecording start = GPUPERF__START_RECORDING__INIT;
	Gpuperf__StopRecording stop = GPUPERF__STOP_RECORDING__INIT;
	Gpuperf__Ping ping = GPUPERF__PING__INIT;
	switch (op) {
	case OP_AUTH:
		auth.token = (char *)PICK(c, tokens);
		auth.role = take(c) % 3;
		env.kind_case = K(AUTH);
		env.auth = &auth;
		break;
	case OP_UNSUBSCRIBE:
		unsub.subscription_id = take(c) % 8;
		env.kind_case = K(UNSUBSCRIBE);
		env.unsubscribe = &unsub;
		break;
	case OP_RECONFIGURE:
		reconf.subscription_id = take(c) % 8;
		reconf.metric_set = (char *)PICK(c, sets);
		reconf.sampling_period_ns = PICK(c, periods_ns);
		env.kind_case = K(RECONFIGURE);
		env.reconfigure = &reconf;
		break;
	case OP_MARK:
		mark.subscription_id = take(c) % 8;
		mark.kind = take(c) % 3;
		env.kind_case = K(MARK);
		env.mark = &mark;
		break;
	case OP_START_RECORDING:
		start.metric_set = (char *)PICK(c, sets);
		start.sampling_period_ns = PICK(c, periods_ns);
		start.max_bytes = PICK(c, max_bytes);
		env.kind_case = K(START_RECORDING);
		env.start_recording = &start;
		break;
	case OP_STOP_RECORDING:
		stop.recording_id = take(c) % 4;
		env.kind_case = K(STOP_RECORDING);
		env.stop_recording = &stop;
		break;
	case OP_PING:
		ping.client_time_ns = take(c);
		env.kind_case = K(PING);
		env.ping = &ping;
		break;
	default:
		return;
	}
	send_request(conn, &env);
}

static void op_advance(struct cursor *c)
{
	uint64_t ns = PICK(c, advances_ns);
	if (ns > SIM_TIME_PER_SEQUENCE_NS - sim_time_spent_ns)
		ns = SIM_TIME_PER_SEQUENCE_NS - sim_time_spent_ns;
	if (!ns)
		return;
	sim_time_spent_ns += ns;
	const struct gpd_device_registry *r = &daemon_ctx.registry;
	for (size_t i = 0; i < r->n_devices; i++)
		if (r->devices[i]->open)
			gpd_sim_source_advance(r->devices[i]->source, ns);
}

static void op_raw(struct connection *conn, struct cursor *c)
{
	size_t len = take(c);
	if (len > c->size)
		len = c->size;
	gpd_session_receive(conn->session, c->data, len);
	c->data += len;
	c->size -= len;
}

static void run_op(enum op op, struct cursor *c)
{
	if (op == OP_CONNECT) {
		op_connect(c);
		return;
	}
	if (op == OP_ADVANCE) {
		op_advance(c);
		return;
	}
	if (op == OP_LOOP) {
		uv_run(&loop, UV_RUN_NOWAIT);
		return;
	}
	struct connection *conn = pick_connection(c);
	if (!conn)
		return;
	switch (op) {
	case OP_SUBSCRIBE:
		op_subscribe(conn, c);
		break;
	case OP_CLOSE:
		close_connection(conn);
		return;
	case OP_READ:
		read_all(conn);
		return;
	case OP_RAW:
		op_raw(conn, c);
		break;
	default:
		op_request(op, conn, c);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!daemon_ctx.loop)
		setup();
	/* Each input starts with no wrong tokens held against its peers:
	 * the entries taken, from the table's start (auth_brake.c). */
	struct gpd_auth_brake *brake = &server.auth_brake;
	for (size_t i = 0; i < GPD_AUTH_BRAKE_PEERS && brake->peers[i].address[0]; i++)
		memset(&brake->peers[i], 0, sizeof(brake->peers[i]));
	brake->failed = brake->braked = 0;
	sim_time_spent_ns = 0;
	struct cursor c = { .data = data, .size = size };
	while (c.size) {
		run_op((enum op)(take(&c) % N_OPS), &c);
		for (unsigned i = 0; i < N_CONNECTIONS; i++)
			if (connections[i].session && connections[i].reads)
				read_all(&connections[i]);
		check_subscriptions();
	}
	for (unsigned i = 0; i < N_CONNECTIONS; i++)
		if (connections[i].session)
			close_connection(&connections[i]);
	uv_run(&loop, UV_RUN_NOWAIT);
	const struct gpd_device_registry *r = &daemon_ctx.registry;
	for (size_t i = 0; i < r->n_devices; i++)
		if (r->devices[i]->subscribers || r->devices[i]->open)
			abort();
	return 0;
}
