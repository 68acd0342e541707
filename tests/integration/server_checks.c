/*
 * The server's behaviour seen from real WebSocket clients, against a
 * running gpuperfd (test-server.sh starts it):
 *
 *   server-checks plain LOCAL_URL REMOTE_URL UNIX_URL METRICS_HOST:PORT OUT
 *     Hello, frames, reconfiguration seen by every client, a viewer
 *     refused, marks, malformed input, tokens, paths and subprotocols,
 *     rate limits, a slow client's drops; /metrics saved to OUT.
 *     REMOTE_URL is a listener that needs a token: `viewtok` (viewer) and
 *     `ctltok` (controller) are in its token file.
 *   server-checks tls WSS_URL CA_FILE RECORDING_OUT
 *     TLS, and a recording saved to RECORDING_OUT.
 *   server-checks web HOST:PORT INDEX_TEXT
 *     --web-root files (its index.html holds INDEX_TEXT), 404s, /healthz,
 *     and --max-connections 2.
 *
 * Prints a line per failure and "server-checks: N passed, F failed".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tests/integration/ws_client.h"

#define K(x) GPUPERF__ENVELOPE__KIND_##x

static unsigned passed, failed;
static uint64_t next_request = 1;

static bool check(bool ok, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool check(bool ok, int line, const char *fmt, ...)
{
	if (ok) {
		passed++;
		return true;
	}
	failed++;
	va_list ap;
	va_start(ap, fmt);
	printf("FAIL (server_checks.c:%d): ", line);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	return false;
}

#define CHECK(cond, ...) check((cond), __LINE__, __VA_ARGS__)

static struct wsc_ctx ctx;

/* ------------------------------------------------------------------ */
/* Requests                                                             */

static uint64_t send_env(struct wsc *c, Gpuperf__Envelope *env)
{
	env->request_id = next_request++;
	wsc_send(c, env);
	return env->request_id;
}

static uint64_t send_subscribe(struct wsc *c, const char *set, uint64_t window_ns,
			       const char *const *counters, size_t n, bool raw,
			       bool per_context)
{
	Gpuperf__Subscribe s = GPUPERF__SUBSCRIBE__INIT;
	s.metric_set = (char *)(set ? set : "");
	s.window_ns = window_ns;
	s.counters = (char **)counters;
	s.n_counters = n;
	s.raw = raw;
	s.per_context = per_context;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.kind_case = K(SUBSCRIBE);
	env.subscribe = &s;
	return send_env(c, &env);
}

static uint64_t send_auth(struct wsc *c, const char *token, Gpuperf__Role role)
{
	Gpuperf__Auth a = GPUPERF__AUTH__INIT;
	a.token = (char *)(token ? token : "");
	a.role = role;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.kind_case = K(AUTH);
	env.auth = &a;
	return send_env(c, &env);
}

static uint64_t send_reconfigure(struct wsc *c, uint32_t sub, const char *set)
{
	Gpuperf__Reconfigure r = GPUPERF__RECONFIGURE__INIT;
	r.subscription_id = sub;
	r.metric_set = (char *)set;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.kind_case = K(RECONFIGURE);
	env.reconfigure = &r;
	return send_env(c, &env);
}

static uint64_t send_mark(struct wsc *c, uint32_t sub, Gpuperf__Mark__Kind kind)
{
	Gpuperf__Mark m = GPUPERF__MARK__INIT;
	m.subscription_id = sub;
	m.kind = kind;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.kind_case = K(MARK);
	env.mark = &m;
	return send_env(c, &env);
}

static uint64_t send_ping(struct wsc *c, uint64_t t)
{
	Gpuperf__Ping p = GPUPERF__PING__INIT;
	p.client_time_ns = t;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.kind_case = K(PING);
	env.ping = &p;
	return send_env(c, &env);
}

/* The reply to request id: kind or an Error; what comes between (frames,
 * events) is dropped. */
static Gpuperf__Envelope *reply(struct wsc *c, uint64_t id, unsigned ms)
{
	uint64_t deadline = wsc_now_ns() + ms * 1000000ull;
	while (wsc_now_ns() < deadline) {
		Gpuperf__Envelope *env = wsc_next(c, ms);
		if (!env)
			return NULL;
		if (env->request_id == id && env->kind_case != K(FRAME) &&
		    env->kind_case != K(EVENT))
			return env;
		wsc_free_message(env);
	}
	return NULL;
}

static const char *error_text(const Gpuperf__Envelope *env)
{
	if (!env)
		return "(nothing)";
	if (env->kind_case == K(ERROR))
		return env->error->message;
	return "(not an error)";
}

static struct wsc *connect_to(const char *url, const char *bearer,
			      const char *protocol, const char *path)
{
	struct wsc_options o = {
		.bearer = bearer,
		.protocol = protocol,
		.path = path,
	};
	return wsc_connect(&ctx, url, &o);
}

/* Connects and takes the Hello. */
static struct wsc *open_session(const char *url, const char *bearer,
				Gpuperf__Envelope **hello)
{
	struct wsc *c = connect_to(url, bearer, NULL, NULL);
	if (!CHECK(c && wsc_wait_open(c, 5000), "cannot connect to %s", url))
		return c;
	Gpuperf__Envelope *h = wsc_next_kind(c, K(HELLO), 5000);
	CHECK(h != NULL, "no Hello from %s", url);
	if (hello)
		*hello = h;
	else
		wsc_free_message(h);
	return c;
}

/* Subscribes; returns the subscription id (0 on failure). */
static uint32_t subscribe(struct wsc *c, const char *set, uint64_t window_ns,
			  const char *const *counters, size_t n, bool raw,
			  bool per_context, Gpuperf__Envelope **out)
{
	uint64_t id = send_subscribe(c, set, window_ns, counters, n, raw,
				     per_context);
	Gpuperf__Envelope *r = reply(c, id, 5000);
	uint32_t sub = 0;
	if (CHECK(r && r->kind_case == K(SUBSCRIBED), "subscribe %s: %s",
		  set ? set : "(current)", error_text(r)))
		sub = r->subscribed->subscription_id;
	if (out)
		*out = r;
	else
		wsc_free_message(r);
	return sub;
}

/* The next frame of subscription sub. */
static Gpuperf__Envelope *next_frame(struct wsc *c, uint32_t sub, unsigned ms)
{
	uint64_t deadline = wsc_now_ns() + ms * 1000000ull;
	while (wsc_now_ns() < deadline) {
		Gpuperf__Envelope *env = wsc_next_kind(c, K(FRAME), ms);
		if (!env)
			return NULL;
		if (env->frame->subscription_id == sub)
			return env;
		wsc_free_message(env);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* plain                                                                */

static const Gpuperf__MetricSet *find_set(const Gpuperf__Device *d,
					  const char *symbol)
{
	for (size_t i = 0; i < d->n_metric_sets; i++)
		if (!strcmp(d->metric_sets[i]->symbol, symbol))
			return d->metric_sets[i];
	return NULL;
}

static void check_hello(const Gpuperf__Hello *h)
{
	CHECK(h->protocol_version == GPUPERF__PROTOCOL_VERSION__PROTOCOL_VERSION,
	      "protocol version %d", h->protocol_version);
	CHECK(h->server_version[0] != '\0', "no server version");
	CHECK(h->role == GPUPERF__ROLE__ROLE_CONTROLLER,
	      "a loopback client is a controller, got role %d", h->role);
	CHECK(h->limits && h->limits->max_message_bytes == 65536 &&
	      h->limits->queue_frames == 16 &&
	      h->limits->max_requests_per_second == 100,
	      "limits as configured");
	if (!CHECK(h->n_devices == 1, "%zu devices", h->n_devices))
		return;
	const Gpuperf__Device *d = h->devices[0];
	CHECK(!strcmp(d->name, "sim0"), "device name %s", d->name);
	CHECK(d->pci_id == 0x5f00, "PCI id 0x%x", d->pci_id);
	CHECK(!strcmp(d->source, "sim") && !strcmp(d->driver, "sim"),
	      "source %s driver %s", d->source, d->driver);
	CHECK(d->timestamp_frequency > 0 && d->max_frequency >= d->min_frequency &&
	      d->max_frequency > 0, "frequencies");
	CHECK(d->topology && d->topology->eu_count > 0 &&
	      d->topology->subslice_count > 0 && d->topology->n_subslice_masks ==
	      d->topology->max_slices, "topology");
	CHECK(d->n_sampling_periods == 32 &&
	      d->sampling_periods[1]->period_ns > d->sampling_periods[0]->period_ns,
	      "sampling periods");
	CHECK(d->configuration != NULL, "configuration");
	const Gpuperf__MetricSet *rb = find_set(d, "RenderBasic");
	CHECK(d->n_metric_sets == 3 && rb && find_set(d, "ComputeBasic"),
	      "metric sets");
	if (!rb)
		return;
	CHECK(rb->guid[0] && rb->name[0] && rb->n_counters > 10, "RenderBasic");
	unsigned with_value = 0, described = 0;
	for (size_t i = 0; i < rb->n_counters; i++) {
		const Gpuperf__Counter *c = rb->counters[i];
		with_value += c->max_case == GPUPERF__COUNTER__MAX_MAX_VALUE;
		described += c->symbol[0] && c->name[0] && c->units[0] &&
			     c->semantic_type[0] && c->description[0];
	}
	CHECK(described == rb->n_counters, "every counter has its metadata");
	CHECK(with_value > 0, "some counters have a constant max");
}

static void check_frames(const char *url)
{
	Gpuperf__Envelope *hello, *sub_reply;
	struct wsc *c = open_session(url, NULL, &hello);
	if (!hello)
		return;
	check_hello(hello->hello);
	const Gpuperf__MetricSet *rb = find_set(hello->hello->devices[0], "RenderBasic");
	const char *counters[3] = { rb->counters[0]->symbol,
				    rb->counters[2]->symbol,
				    rb->counters[1]->symbol };
	uint32_t sub = subscribe(c, "RenderBasic", 20000000, counters, 3, false,
				 false, &sub_reply);
	if (sub_reply && sub_reply->kind_case == K(SUBSCRIBED)) {
		Gpuperf__Subscribed *s = sub_reply->subscribed;
		CHECK(s->n_counters == 3 && !strcmp(s->counters[0], counters[0]) &&
		      !strcmp(s->counters[1], counters[1]) &&
		      !strcmp(s->metric_set, "RenderBasic") && s->window_ns == 20000000 &&
		      !strcmp(s->device, "sim0") && s->sampling_period_ns > 0,
		      "Subscribed says what was asked");
	}
	uint64_t sub_request = sub_reply ? sub_reply->request_id : 0;
	unsigned frames = 0, good = 0;
	for (int i = 0; i < 6; i++) {
		Gpuperf__Envelope *f = next_frame(c, sub, 3000);
		if (!f)
			break;
		frames++;
		Gpuperf__Frame *fr = f->frame;
		good += fr->n_values == 3 && fr->reports > 0 &&
			fr->gpu_end_ns > fr->gpu_start_ns &&
			fr->cpu_end_ns > fr->cpu_start_ns && fr->n_raw == 0 &&
			!strcmp(fr->device, "sim0") && f->request_id == sub_request &&
			!fr->mark;
		wsc_free_message(f);
	}
	CHECK(frames == 6 && good == 6, "6 frames of 3 values (%u frames, %u good)",
	      frames, good);
	wsc_free_message(sub_reply);
	wsc_free_message(hello);

	/* Raw deltas and per-context rows when asked. */
	sub = subscribe(c, NULL, 50000000, NULL, 0, true, true, NULL);
	unsigned rows = 0, raw = 0;
	for (int i = 0; i < 4; i++) {
		Gpuperf__Envelope *f = next_frame(c, sub, 3000);
		if (!f)
			break;
		raw += f->frame->n_raw == 154;
		rows += f->frame->n_contexts;
		for (size_t k = 0; k < f->frame->n_contexts; k++)
			CHECK(f->frame->contexts[k]->n_values == f->frame->n_values,
			      "context rows carry every counter");
		wsc_free_message(f);
	}
	CHECK(raw == 4 && rows >= 4, "raw deltas (%u) and context rows (%u)",
	      raw, rows);

	/* Ping, and an unknown subscription. */
	uint64_t id = send_ping(c, 12345);
	Gpuperf__Envelope *r = reply(c, id, 3000);
	CHECK(r && r->kind_case == K(PONG) && r->pong->client_time_ns == 12345 &&
	      r->pong->server_time_ns > 0, "Pong");
	wsc_free_message(r);
	Gpuperf__Unsubscribe u = GPUPERF__UNSUBSCRIBE__INIT;
	u.subscription_id = 999;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.kind_case = K(UNSUBSCRIBE);
	env.unsubscribe = &u;
	id = send_env(c, &env);
	r = reply(c, id, 3000);
	CHECK(r && r->kind_case == K(ERROR) &&
	      r->error->code == GPUPERF__ERROR_CODE__NOT_FOUND,
	      "unsubscribing an unknown id: %s", error_text(r));
	wsc_free_message(r);
	u.subscription_id = sub;
	id = send_env(c, &env);
	r = reply(c, id, 3000);
	CHECK(r && r->kind_case == K(UNSUBSCRIBED), "Unsubscribed: %s",
	      error_text(r));
	wsc_free_message(r);
	/* A subscription to a set nobody runs, by a controller, is fine;
	 * one to a set that does not exist is not. */
	id = send_subscribe(c, "NoSuchSet", 0, NULL, 0, false, false);
	r = reply(c, id, 3000);
	CHECK(r && r->kind_case == K(ERROR) &&
	      r->error->code == GPUPERF__ERROR_CODE__NOT_FOUND &&
	      strstr(r->error->message, "NoSuchSet"), "unknown set: %s",
	      error_text(r));
	wsc_free_message(r);
	wsc_close(c);
}

/* Waits for the CONFIG_CHANGED event of c. */
static Gpuperf__Envelope *config_event(struct wsc *c, unsigned ms)
{
	uint64_t deadline = wsc_now_ns() + ms * 1000000ull;
	while (wsc_now_ns() < deadline) {
		Gpuperf__Envelope *env = wsc_next_kind(c, K(EVENT), ms);
		if (!env)
			return NULL;
		if (env->event->kind == GPUPERF__STREAM_EVENT__KIND__CONFIG_CHANGED)
			return env;
		wsc_free_message(env);
	}
	return NULL;
}

static void check_reconfigure(const char *local, const char *remote)
{
	struct wsc *a = open_session(local, NULL, NULL);
	uint32_t sa = subscribe(a, "RenderBasic", 20000000, NULL, 0, false, false, NULL);
	/* b: a loopback client that asked to be a viewer. */
	struct wsc *b = open_session(local, NULL, NULL);
	uint64_t id = send_auth(b, NULL, GPUPERF__ROLE__ROLE_VIEWER);
	Gpuperf__Envelope *r = reply(b, id, 3000);
	CHECK(r && r->kind_case == K(HELLO) &&
	      r->hello->role == GPUPERF__ROLE__ROLE_VIEWER, "Auth as viewer: %s",
	      error_text(r));
	wsc_free_message(r);
	uint32_t sb = subscribe(b, NULL, 20000000, NULL, 0, false, false, NULL);
	/* c: a remote viewer, by token. */
	Gpuperf__Envelope *hello = NULL;
	struct wsc *c = open_session(remote, "viewtok", &hello);
	CHECK(hello && hello->hello->role == GPUPERF__ROLE__ROLE_VIEWER,
	      "a viewer token makes a viewer");
	wsc_free_message(hello);
	uint32_t sc = subscribe(c, NULL, 20000000, NULL, 0, false, false, NULL);

	/* A viewer asking for another set is refused with what runs. */
	id = send_subscribe(b, "MemoryL3", 20000000, NULL, 0, false, false);
	r = reply(b, id, 3000);
	CHECK(r && r->kind_case == K(ERROR) &&
	      r->error->code == GPUPERF__ERROR_CODE__BUSY &&
	      strstr(r->error->message, "RenderBasic"),
	      "a viewer cannot switch sets by subscribing: %s", error_text(r));
	wsc_free_message(r);
	/* ... nor by reconfiguring. */
	id = send_reconfigure(b, sb, "ComputeBasic");
	r = reply(b, id, 3000);
	CHECK(r && r->kind_case == K(ERROR) &&
	      r->error->code == GPUPERF__ERROR_CODE__PERMISSION_DENIED &&
	      strstr(r->error->message, "controller"),
	      "viewer refused reconfiguration: %s", error_text(r));
	wsc_free_message(r);
	id = send_reconfigure(c, sc, "ComputeBasic");
	r = reply(c, id, 3000);
	CHECK(r && r->kind_case == K(ERROR) &&
	      r->error->code == GPUPERF__ERROR_CODE__PERMISSION_DENIED,
	      "remote viewer refused reconfiguration: %s", error_text(r));
	wsc_free_message(r);

	/* The controller reconfigures; every subscriber is told, the
	 * controller too (before its reply). */
	id = send_reconfigure(a, sa, "ComputeBasic");
	Gpuperf__Envelope *ev = config_event(a, 3000);
	CHECK(ev && ev->event->configuration &&
	      !strcmp(ev->event->configuration->metric_set, "ComputeBasic"),
	      "the controller is told of its own change");
	wsc_free_message(ev);
	r = reply(a, id, 3000);
	CHECK(r && r->kind_case == K(RECONFIGURED) &&
	      !strcmp(r->reconfigured->metric_set, "ComputeBasic") &&
	      r->reconfigured->n_counters > 0,
	      "controller reconfigures: %s", error_text(r));
	wsc_free_message(r);
	struct wsc *all[3] = { a, b, c };
	uint32_t subs[3] = { sa, sb, sc };
	for (int i = 1; i < 3; i++) {
		ev = config_event(all[i], 3000);
		CHECK(ev && ev->event->configuration &&
		      !strcmp(ev->event->configuration->metric_set, "ComputeBasic") &&
		      ev->event->subscription_id == subs[i] &&
		      ev->event->n_counters > 0 && !strcmp(ev->event->device, "sim0"),
		      "client %d told of the new configuration", i);
		wsc_free_message(ev);
	}
	for (int i = 0; i < 3; i++) {
		Gpuperf__Envelope *f = next_frame(all[i], subs[i], 3000);
		CHECK(f && f->frame->n_values > 0, "client %d streams on", i);
		wsc_free_message(f);
	}
	wsc_close(a);
	wsc_close(b);
	wsc_close(c);
}

static void check_marks(const char *url)
{
	struct wsc *c = open_session(url, NULL, NULL);
	uint32_t sub = subscribe(c, NULL, 0, NULL, 0, false, false, NULL);
	wsc_pump(&ctx, 100);    /* the first report anchors the clocks */
	uint64_t id = send_mark(c, sub, GPUPERF__MARK__KIND__BEGIN);
	Gpuperf__Envelope *r = reply(c, id, 3000);
	CHECK(r && r->kind_case == K(MARK_ACCEPTED), "Mark BEGIN: %s",
	      error_text(r));
	wsc_free_message(r);
	wsc_pump(&ctx, 200);
	uint64_t end = send_mark(c, sub, GPUPERF__MARK__KIND__END);
	r = reply(c, end, 3000);
	CHECK(r && r->kind_case == K(MARK_ACCEPTED), "Mark END: %s",
	      error_text(r));
	wsc_free_message(r);
	Gpuperf__Envelope *f = next_frame(c, sub, 3000);
	CHECK(f && f->frame->mark && f->request_id == end &&
	      f->frame->reports > 50 && f->frame->n_values > 0 &&
	      f->frame->gpu_end_ns - f->frame->gpu_start_ns > 150000000,
	      "the marked window comes back with its values");
	wsc_free_message(f);
	id = send_mark(c, sub, GPUPERF__MARK__KIND__END);
	r = reply(c, id, 3000);
	CHECK(r && r->kind_case == K(ERROR), "END without BEGIN: %s",
	      error_text(r));
	wsc_free_message(r);
	wsc_close(c);
}

/* Sends bytes on a fresh connection: an Error, then the close. */
static void check_refused(const char *url, const void *data, size_t len,
			  bool binary, Gpuperf__ErrorCode code, int close_code,
			  const char *what)
{
	struct wsc *c = open_session(url, NULL, NULL);
	wsc_send_raw(c, data, len, binary);
	Gpuperf__Envelope *r = wsc_next_kind(c, K(ERROR), 3000);
	CHECK(r && r->error->code == code, "%s: error %d, %s", what,
	      r ? (int)r->error->code : -1, error_text(r));
	wsc_free_message(r);
	int closed = wsc_wait_closed(c, 3000);
	CHECK(closed == close_code, "%s: closed with %d, not %d", what, closed,
	      close_code);
	wsc_close(c);
}

/* Frames of c for ms; the drops they report are added to *dropped. */
static unsigned count_frames(struct wsc *c, unsigned ms, uint64_t *dropped)
{
	unsigned n = 0;
	uint64_t deadline = wsc_now_ns() + ms * 1000000ull;
	while (wsc_now_ns() < deadline) {
		Gpuperf__Envelope *f = wsc_next(c, 20);
		if (f && f->kind_case == K(FRAME)) {
			n++;
			if (dropped)
				*dropped += f->frame->frames_dropped;
		}
		wsc_free_message(f);
	}
	return n;
}

static void check_malformed(const char *url)
{
	struct wsc *victim = open_session(url, NULL, NULL);
	subscribe(victim, NULL, 10000000, NULL, 0, false, false, NULL);
	count_frames(victim, 100, NULL);

	static const unsigned char garbage[] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x02,
	};
	check_refused(url, garbage, sizeof(garbage), true,
		      GPUPERF__ERROR_CODE__MALFORMED, 1002, "garbage");

	Gpuperf__Subscribe s = GPUPERF__SUBSCRIBE__INIT;
	s.metric_set = "RenderBasic";
	s.window_ns = 10000000;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.request_id = 7;
	env.kind_case = K(SUBSCRIBE);
	env.subscribe = &s;
	unsigned char buf[256];
	size_t len = gpuperf__envelope__pack(&env, buf);
	check_refused(url, buf, len - 3, true, GPUPERF__ERROR_CODE__MALFORMED,
		      1002, "truncated");

	/* Field 99, a varint, is no field of Envelope. */
	memcpy(buf + len, "\x98\x06\x01", 3);
	check_refused(url, buf, len + 3, true, GPUPERF__ERROR_CODE__MALFORMED,
		      1002, "unknown field");

	/* request_id (field 1, a varint) sent as bytes. */
	static const unsigned char wrong_type[] = { 0x0a, 0x02, 'h', 'i' };
	check_refused(url, wrong_type, sizeof(wrong_type), true,
		      GPUPERF__ERROR_CODE__MALFORMED, 1002, "wrong wire type");

	/* A message only the server sends. */
	Gpuperf__Pong pong = GPUPERF__PONG__INIT;
	env.kind_case = K(PONG);
	env.pong = &pong;
	len = gpuperf__envelope__pack(&env, buf);
	check_refused(url, buf, len, true, GPUPERF__ERROR_CODE__MALFORMED, 1002,
		      "server-only kind");

	check_refused(url, "{\"subscribe\":{}}", 16, false,
		      GPUPERF__ERROR_CODE__MALFORMED, 1003, "text message");

	size_t big = 70000;
	unsigned char *huge = calloc(1, big);
	check_refused(url, huge, big, true, GPUPERF__ERROR_CODE__TOO_LARGE, 1009,
		      "oversized");
	free(huge);

	/* Meanwhile the victim streamed on. */
	unsigned frames = count_frames(victim, 500, NULL);
	CHECK(wsc_is_open(victim) && frames >= 20,
	      "another client keeps streaming through bad input (%u frames)",
	      frames);
	wsc_close(victim);
}

static void check_tokens(const char *local, const char *remote)
{
	/* No token, and a request: refused and closed. */
	struct wsc *c = connect_to(remote, NULL, NULL, NULL);
	CHECK(wsc_wait_open(c, 3000), "connect to the remote listener");
	Gpuperf__Envelope *m = wsc_next(c, 300);
	CHECK(m == NULL, "no Hello before the token");
	wsc_free_message(m);
	send_subscribe(c, NULL, 10000000, NULL, 0, false, false);
	m = wsc_next_kind(c, K(ERROR), 3000);
	CHECK(m && m->error->code == GPUPERF__ERROR_CODE__UNAUTHENTICATED,
	      "remote without a token: %s", error_text(m));
	wsc_free_message(m);
	CHECK(wsc_wait_closed(c, 3000) == 1008, "remote without a token closed");
	wsc_close(c);

	/* A wrong token in the header. */
	c = connect_to(remote, "wrong", NULL, NULL);
	m = wsc_next_kind(c, K(ERROR), 3000);
	CHECK(m && m->error->code == GPUPERF__ERROR_CODE__UNAUTHENTICATED,
	      "a wrong token: %s", error_text(m));
	wsc_free_message(m);
	CHECK(wsc_wait_closed(c, 3000) == 1008, "a wrong token closes");
	wsc_close(c);

	/* The token as the first message. */
	c = connect_to(remote, NULL, NULL, NULL);
	uint64_t id = send_auth(c, "ctltok", GPUPERF__ROLE__ROLE_UNSPECIFIED);
	m = reply(c, id, 3000);
	CHECK(m && m->kind_case == K(HELLO) &&
	      m->hello->role == GPUPERF__ROLE__ROLE_CONTROLLER &&
	      m->hello->n_devices == 1, "Auth with a controller token: %s",
	      error_text(m));
	wsc_free_message(m);
	wsc_close(c);

	/* A path or subprotocol other than /ws and gpuperf.v1 is refused. */
	c = connect_to(local, NULL, NULL, "/other");
	CHECK(!wsc_wait_open(c, 3000), "upgrade on another path refused");
	wsc_close(c);
	c = connect_to(local, NULL, "chat", NULL);
	CHECK(!wsc_wait_open(c, 3000), "another subprotocol refused");
	wsc_close(c);
	c = connect_to(local, NULL, "", NULL);
	CHECK(!wsc_wait_open(c, 3000), "no subprotocol refused");
	wsc_close(c);
}

static void check_rate_limit(const char *url)
{
	struct wsc *c = open_session(url, NULL, NULL);
	for (int i = 0; i < 400; i++)
		send_ping(c, (uint64_t)i);
	unsigned pongs = 0, limited = 0;
	for (;;) {
		Gpuperf__Envelope *m = wsc_next(c, 1000);
		if (!m)
			break;
		pongs += m->kind_case == K(PONG);
		limited += m->kind_case == K(ERROR) &&
			   m->error->code == GPUPERF__ERROR_CODE__RATE_LIMITED;
		wsc_free_message(m);
	}
	CHECK(pongs >= 200 && limited > 0 && pongs + limited == 400 &&
	      wsc_is_open(c), "rate limit: %u answered, %u refused", pongs,
	      limited);
	wsc_close(c);
}

/* GET path over a plain socket: the body (free() it), or NULL. */
static char *http_get(const char *hostport, const char *path)
{
	char host[64];
	const char *colon = strrchr(hostport, ':');
	if (!colon || (size_t)(colon - hostport) >= sizeof(host))
		return NULL;
	memcpy(host, hostport, (size_t)(colon - hostport));
	host[colon - hostport] = '\0';
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)atoi(colon + 1)) };
	inet_pton(AF_INET, host, &sa.sin_addr);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return NULL;
	char req[256];
	int n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\n"
			 "Connection: close\r\n\r\n", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    write(fd, req, (size_t)n) != n) {
		close(fd);
		return NULL;
	}
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	ssize_t got;
	while (buf && len < cap - 1 && (got = read(fd, buf + len, cap - 1 - len)) > 0)
		len += (size_t)got;
	close(fd);
	if (!buf)
		return NULL;
	buf[len] = '\0';
	char *body = strstr(buf, "\r\n\r\n");
	if (strncmp(buf, "HTTP/1.1 200", 12) || !body) {
		free(buf);
		return NULL;
	}
	memmove(buf, body + 4, strlen(body + 4) + 1);
	return buf;
}

static unsigned long long metrics_dropped(const char *hostport)
{
	char *body = http_get(hostport, "/metrics");
	const char *line = body ? strstr(body, "\ngpuperf_frames_dropped_total ") : NULL;
	unsigned long long n = line ? strtoull(strchr(line + 1, ' ') + 1, NULL, 10) : 0;
	free(body);
	return n;
}

static void check_slow_client(const char *url, const char *hostport)
{
	struct wsc *slow = open_session(url, NULL, NULL);
	struct wsc *fast = open_session(url, NULL, NULL);
	/* The slow one asks for big frames, often, then stops reading:
	 * once the socket buffers between are full, its queue overflows. */
	for (int i = 0; i < 4; i++)
		subscribe(slow, NULL, 1000000, NULL, 0, true, true, NULL);
	subscribe(fast, NULL, 10000000, NULL, 0, false, false, NULL);
	unsigned long long before = metrics_dropped(hostport);
	wsc_pause(slow, true);
	uint64_t start = wsc_now_ns(), fast_dropped = 0;
	unsigned fast_frames = 0;
	bool dropping = false;
	/* At least 2 s of the fast client's frames, while the other drops. */
	while ((!dropping || wsc_now_ns() - start < 2000000000ull) &&
	       wsc_now_ns() - start < 20000000000ull) {
		fast_frames += count_frames(fast, 500, &fast_dropped);
		dropping = dropping || metrics_dropped(hostport) > before;
	}
	double secs = (double)(wsc_now_ns() - start) * 1e-9;
	CHECK(dropping, "the server drops frames of a client that stopped "
	      "reading (within %.1f s)", secs);
	CHECK(fast_frames >= (unsigned)(secs * 100 * 0.85) && !fast_dropped,
	      "the other client kept its rate: %u frames in %.1f s, %llu "
	      "dropped", fast_frames, secs, (unsigned long long)fast_dropped);
	wsc_pause(slow, false);
	/* Read on until a frame tells of the drops. */
	unsigned slow_frames = 0;
	uint64_t dropped_total = 0, reported = 0;
	uint64_t deadline = wsc_now_ns() + 10000000000ull;
	while (!reported && wsc_now_ns() < deadline) {
		Gpuperf__Envelope *m = wsc_next(slow, 1000);
		if (!m)
			break;
		if (m->kind_case == K(FRAME)) {
			slow_frames++;
			reported += m->frame->frames_dropped;
			if (m->frame->frames_dropped_total > dropped_total)
				dropped_total = m->frame->frames_dropped_total;
		}
		wsc_free_message(m);
	}
	CHECK(dropped_total > 0 && reported > 0,
	      "the client that stopped reading is told of its drops "
	      "(%llu dropped, %u frames read after)",
	      (unsigned long long)dropped_total, slow_frames);
	wsc_close(slow);
	wsc_close(fast);
}

/* /metrics into path. */
static void save_metrics(const char *hostport, const char *path)
{
	char *body = http_get(hostport, "/metrics");
	if (!CHECK(body != NULL, "GET /metrics answers 200"))
		return;
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(body, f);
		fclose(f);
	}
	CHECK(strstr(body, "gpuperf_info{device=\"sim0\"") &&
	      strstr(body, "gpuperf_gpu_busy_ratio{device=\"sim0\",pci_id=\"0x5f00\",metric_set=\"") &&
	      strstr(body, "gpuperf_frames_dropped_total "),
	      "/metrics has the device's gauges and info");
	free(body);
}

static uint64_t section_start;

/* Says how long each part took: the whole run should stay short. */
static void section(const char *name)
{
	uint64_t now = wsc_now_ns();
	if (section_start)
		printf("# %.2f s\n", (double)(now - section_start) * 1e-9);
	if (name)
		printf("# %s ", name);
	fflush(stdout);
	section_start = now;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A connection to a listener that needs a token, left silent, gets the
 * daemon's words and a close 10 s on; it was opened at opened_ms. */
static void check_silent_closed(struct wsc *silent, uint64_t opened_ms)
{
	uint64_t waited = now_ms() - opened_ms;
	unsigned left = waited < 13000 ? (unsigned)(13000 - waited) : 0;
	int code = wsc_wait_closed(silent, left);
	uint64_t closed_after = now_ms() - opened_ms;

	CHECK(code == 1008, "a silent remote connection is closed within 13 s "
	      "(close code %d)", code);
	/* Not before its 10 s: it was still open when the wait began. */
	CHECK(code != 1008 || waited < 9500 || closed_after >= 9500,
	      "the silent connection was closed before its 10 s");
	Gpuperf__Envelope *m = wsc_next_kind(silent, K(ERROR), 100);
	CHECK(m && m->error->code == GPUPERF__ERROR_CODE__UNAUTHENTICATED &&
	      strstr(m->error->message, "no token within 10 s"),
	      "the silent connection is told why: %s", error_text(m));
	wsc_free_message(m);
	wsc_close(silent);
}

static void run_plain(char **argv)
{
	const char *local = argv[0], *remote = argv[1], *unix_url = argv[2];
	/* Opened first and left silent while the rest runs. */
	struct wsc *silent = connect_to(remote, NULL, NULL, NULL);
	uint64_t silent_opened = now_ms();
	CHECK(wsc_wait_open(silent, 3000), "connect to the remote listener");
	CHECK(!wsc_is_closed(silent), "a remote connection may take its time");
	section("frames");
	check_frames(local);
	section("reconfigure");
	check_reconfigure(local, remote);
	section("marks");
	check_marks(local);
	section("malformed");
	check_malformed(local);
	section("tokens");
	check_tokens(local, remote);
	section("rate limit");
	check_rate_limit(local);
	section("unix");
	Gpuperf__Envelope *hello = NULL;
	struct wsc *u = open_session(unix_url, NULL, &hello);
	CHECK(hello && hello->hello->role == GPUPERF__ROLE__ROLE_CONTROLLER,
	      "the Unix socket needs no token");
	wsc_free_message(hello);
	wsc_close(u);
	section("slow client");
	check_slow_client(local, argv[3]);
	section("metrics");
	save_metrics(argv[3], argv[4]);
	char *page = http_get(argv[3], "/");
	CHECK(page && strstr(page, "--web-root"), "the built-in page without --web-root");
	free(page);
	const char *remote_hostport = strstr(remote, "://");
	page = remote_hostport ? http_get(remote_hostport + 3, "/metrics") : NULL;
	CHECK(!page, "/metrics of a listener that needs a token is refused without one");
	free(page);
	section("unauthenticated timeout");
	check_silent_closed(silent, silent_opened);
	section(NULL);
}

/* ------------------------------------------------------------------ */
/* tls                                                                  */

static void run_tls(char **argv)
{
	const char *url = argv[0], *out = argv[2];
	Gpuperf__Envelope *hello = NULL;
	struct wsc *c = open_session(url, NULL, &hello);
	CHECK(hello && hello->hello->n_devices == 1 &&
	      !strcmp(hello->hello->devices[0]->platform, "tglgt2"),
	      "Hello over TLS");
	wsc_free_message(hello);
	uint32_t sub = subscribe(c, "RenderBasic", 20000000, NULL, 0, false, false, NULL);
	Gpuperf__Envelope *f = next_frame(c, sub, 3000);
	CHECK(f && f->frame->n_values > 20, "frames over TLS (%zu values)",
	      f ? f->frame->n_values : 0);
	wsc_free_message(f);

	Gpuperf__StartRecording sr = GPUPERF__START_RECORDING__INIT;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.kind_case = K(START_RECORDING);
	env.start_recording = &sr;
	uint64_t id = send_env(c, &env);
	Gpuperf__Envelope *r = reply(c, id, 3000);
	uint32_t rec = 0;
	if (CHECK(r && r->kind_case == K(RECORDING_STARTED), "StartRecording: %s",
		  error_text(r)))
		rec = r->recording_started->recording_id;
	wsc_free_message(r);
	FILE *file = fopen(out, "w");
	uint64_t offset = 0;
	bool contiguous = true, stopped = false;
	uint64_t stop_at = wsc_now_ns() + 1500000000ull, stop_id = 0;
	while (file && !stopped) {
		if (!stop_id && wsc_now_ns() >= stop_at) {
			Gpuperf__StopRecording st = GPUPERF__STOP_RECORDING__INIT;
			st.recording_id = rec;
			env.kind_case = K(STOP_RECORDING);
			env.stop_recording = &st;
			stop_id = send_env(c, &env);
		}
		Gpuperf__Envelope *m = wsc_next(c, 3000);
		if (!m)
			break;
		if (m->kind_case == K(RECORDING_DATA)) {
			contiguous &= m->recording_data->offset == offset;
			fwrite(m->recording_data->data.data, 1,
			       m->recording_data->data.len, file);
			offset += m->recording_data->data.len;
		} else if (m->kind_case == K(RECORDING_STOPPED)) {
			stopped = true;
			CHECK(m->request_id == stop_id &&
			      m->recording_stopped->bytes == offset &&
			      m->recording_stopped->reports > 100 &&
			      !m->recording_stopped->reason[0],
			      "RecordingStopped: %llu bytes, %llu reports, '%s'",
			      (unsigned long long)m->recording_stopped->bytes,
			      (unsigned long long)m->recording_stopped->reports,
			      m->recording_stopped->reason);
		}
		wsc_free_message(m);
	}
	if (file)
		fclose(file);
	CHECK(stopped && contiguous && offset > 1000,
	      "the recording's bytes arrived whole and in order (%llu bytes)",
	      (unsigned long long)offset);
	wsc_close(c);
}

/* ------------------------------------------------------------------ */
/* web                                                                  */

static void run_web(char **argv)
{
	const char *hostport = argv[0];
	char *body = http_get(hostport, "/");
	CHECK(body && strstr(body, argv[1]), "/ serves --web-root's index.html");
	free(body);
	body = http_get(hostport, "/missing.js");
	CHECK(!body, "a file --web-root lacks is no 200");
	free(body);
	body = http_get(hostport, "/healthz");
	CHECK(body && !strcmp(body, "ok\n"), "/healthz");
	free(body);

	char url[96];
	snprintf(url, sizeof(url), "ws://%s", hostport);
	struct wsc *a = open_session(url, NULL, NULL);
	struct wsc *b = open_session(url, NULL, NULL);
	struct wsc *c = connect_to(url, NULL, NULL, NULL);
	Gpuperf__Envelope *m = wsc_next_kind(c, K(ERROR), 3000);
	CHECK(m && m->error->code == GPUPERF__ERROR_CODE__RESOURCE_EXHAUSTED &&
	      strstr(m->error->message, "--max-connections"),
	      "a third connection over --max-connections 2: %s", error_text(m));
	wsc_free_message(m);
	int code = wsc_wait_closed(c, 3000);
	CHECK(code == 1008, "... is closed (%d)", code);
	CHECK(wsc_is_open(a) && wsc_is_open(b), "the first two stay");
	wsc_close(c);
	wsc_close(b);
	wsc_pump(&ctx, 100);
	c = open_session(url, NULL, NULL);
	CHECK(wsc_is_open(c), "a connection is welcome again once one left");
	wsc_close(c);
	wsc_close(a);
}

int main(int argc, char **argv)
{
	bool plain = argc == 7 && !strcmp(argv[1], "plain");
	bool tls = argc == 5 && !strcmp(argv[1], "tls");
	bool web = argc == 4 && !strcmp(argv[1], "web");
	if (!plain && !tls && !web) {
		fprintf(stderr, "usage: server-checks plain LOCAL REMOTE UNIX "
			"METRICS_HOST:PORT OUT\n"
			"       server-checks tls WSS_URL CA_FILE RECORDING_OUT\n"
			"       server-checks web HOST:PORT INDEX_TEXT\n");
		return 2;
	}
	if (wsc_ctx_init(&ctx, tls ? argv[3] : NULL)) {
		fprintf(stderr, "server-checks: cannot start libwebsockets\n");
		return 1;
	}
	if (plain)
		run_plain(argv + 2);
	else if (tls)
		run_tls(argv + 2);
	else
		run_web(argv + 2);
	wsc_ctx_fini(&ctx);
	printf("server-checks %s: %u passed, %u failed\n", argv[1], passed, failed);
	return failed ? 1 : 0;
}
