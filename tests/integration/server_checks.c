/*
 * The server's behaviour seen from its clients, against a running
 * gpuperfd (test-server.sh starts it). What a client of the protocol does
 * goes through libgpuperf; what no libgpuperf client sends (malformed
 * messages, requests out of place, a flood, silence, other paths and
 * subprotocols) goes through the raw WebSocket client of ws_client.h.
 *
 *   server-checks plain LOCAL_URL REMOTE_URL UNIX_URL METRICS_HOST:PORT OUT
 *     Hello, frames, reconfiguration seen by every client, a viewer
 *     refused, marks, malformed input, tokens, paths and subprotocols,
 *     rate limits, a slow client's drops; /metrics saved to OUT.
 *     REMOTE_URL is a listener that needs a token: VIEWER_TOKEN and
 *     CONTROLLER_TOKEN (below) are in its token file.
 *   server-checks tls WSS_URL CA_FILE RECORDING_OUT
 *     TLS, and a recording saved to RECORDING_OUT.
 *   server-checks web HOST:PORT INDEX_TEXT
 *     --web-root files (its index.html holds INDEX_TEXT), 404s, /healthz,
 *     and --max-connections 2.
 *   server-checks flood REMOTE LOCAL UNIX METRICS_HOST:PORT
 *     320 idle unauthenticated connections from 80 addresses against the
 *     default budgets: token holders, loopback and Unix clients still get
 *     in. REMOTE's token file holds CONTROLLER_TOKEN.
 *   server-checks amplify LOCAL DAEMON_PID METRICS_HOST:PORT BUDGET
 *     201 clients that never read ask for Hellos, frames, recordings and
 *     configuration events: the daemon's RSS stays within its
 *     --send-budget (BUDGET bytes) and some headroom.
 *
 * URLs are ws://HOST:PORT, wss://HOST:PORT or unix:PATH. Prints a line per
 * failure and "server-checks: N passed, F failed".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "client/include/gpuperf.h"
#include "tests/integration/ws_client.h"

#define K(x) GPUPERF__ENVELOPE__KIND_##x

/* test-server.sh's token file. */
#define VIEWER_TOKEN "viewtok-0123456789abcdefghij"
#define CONTROLLER_TOKEN "ctltok-0123456789abcdefghijk"

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

/* ------------------------------------------------------------------ */
/* Through libgpuperf                                                   */

/* A client of url (see the top), with token and at most role; NULL when
 * it could not connect, err saying why. */
static struct gpc_client *try_connect(const char *url, const char *token,
				      enum gpc_role role, const char *ca_file,
				      struct gpc_error *err)
{
	char host[64] = "";
	struct gpc_connect_options o = {
		.token = token,
		.role = role,
		.tls_ca_file = ca_file,
		.timeout_ms = 5000,
	};
	if (!strncmp(url, "unix:", 5)) {
		o.unix_path = url + 5;
	} else {
		o.tls = !strncmp(url, "wss://", 6);
		const char *hp = strstr(url, "://");
		hp = hp ? hp + 3 : url;
		const char *colon = strrchr(hp, ':');
		if (!colon || (size_t)(colon - hp) >= sizeof(host)) {
			snprintf(err->message, sizeof(err->message),
				 "not a URL: %s", url);
			return NULL;
		}
		memcpy(host, hp, (size_t)(colon - hp));
		o.host = host;
		o.port = (unsigned)atoi(colon + 1);
	}
	struct gpc_client *c = NULL;
	gpc_connect_sync(&o, &c, err);
	return c;
}

static struct gpc_client *connect_as(const char *url, const char *token,
				     enum gpc_role role, const char *ca_file)
{
	struct gpc_error err = { 0 };
	struct gpc_client *c = try_connect(url, token, role, ca_file, &err);
	CHECK(c != NULL, "cannot connect to %s: %s", url, err.message);
	return c;
}

/* The client wait_for() runs: callbacks stop its loop so that it looks
 * again. They leave alone the *_sync calls, which gpc_stop() would end. */
static struct gpc_client *waiting;

static void wake_waiter(struct gpc_client *c)
{
	if (c == waiting)
		gpc_stop(c);
}

/* What one subscription got. */
struct stream {
	struct gpc_subscription *sub;
	unsigned frames;
	/* Of sim0, not marked, its counters' values, time moving on. */
	unsigned good;
	unsigned with_raw;              /* carrying every raw slot */
	unsigned rows, complete_rows;   /* per-context rows; with every value */
	size_t last_values;
	unsigned marks;                 /* frames of a marked window */
	uint32_t mark_reports;
	uint64_t mark_span_ns;
	size_t mark_values;
	uint64_t dropped, dropped_total;
	/* Windows that did not start where the one before ended. */
	unsigned gaps;
	uint64_t last_end_ns;
	unsigned config_events;
	char event_set[64], event_device[64];
	/* A request's answer: reconfigure, mark. */
	unsigned answers;
	unsigned config_events_at_answer;
	struct gpc_error answer;
	bool answer_failed;
};

static void on_frame(struct gpc_subscription *sub, const struct gpc_frame *f,
		     void *user)
{
	struct stream *st = user;
	const struct gpc_subscription_info *info = gpc_subscription_info(sub);
	st->frames++;
	st->last_values = f->n_values;
	if (f->mark) {
		st->marks++;
		st->mark_reports = f->reports;
		st->mark_span_ns = f->gpu_end_ns - f->gpu_start_ns;
		st->mark_values = f->n_values;
	}
	st->good += !f->mark && !strcmp(f->device, "sim0") &&
		    f->n_values == info->n_counters && f->reports > 0 &&
		    f->gpu_end_ns > f->gpu_start_ns &&
		    f->cpu_end_ns > f->cpu_start_ns;
	st->with_raw += f->n_raw == GPC_RAW_SLOTS;
	st->rows += (unsigned)f->n_contexts;
	for (size_t i = 0; i < f->n_contexts; i++)
		st->complete_rows += f->contexts[i].n_values == f->n_values;
	st->dropped += f->frames_dropped;
	if (!f->mark) {
		if (st->last_end_ns && f->gpu_start_ns != st->last_end_ns)
			st->gaps++;
		st->last_end_ns = f->gpu_end_ns;
	}
	if (f->frames_dropped_total > st->dropped_total)
		st->dropped_total = f->frames_dropped_total;
	wake_waiter(gpc_subscription_client(sub));
}

static void on_event(struct gpc_subscription *sub, const struct gpc_event *e,
		     void *user)
{
	struct stream *st = user;
	if (e->kind == GPC_EVENT_CONFIG_CHANGED) {
		st->config_events++;
		snprintf(st->event_set, sizeof(st->event_set), "%s",
			 e->configuration.metric_set);
		snprintf(st->event_device, sizeof(st->event_device), "%s",
			 e->device);
	}
	wake_waiter(gpc_subscription_client(sub));
}

static const struct gpc_subscription_cbs stream_cbs = {
	.frame = on_frame,
	.event = on_event,
};

static void on_answer(struct gpc_client *c, const struct gpc_error *err,
		      void *user)
{
	struct stream *st = user;
	st->answers++;
	st->config_events_at_answer = st->config_events;
	st->answer_failed = err != NULL;
	if (err)
		st->answer = *err;
	wake_waiter(c);
}

/* Runs c's loop until *count reaches want or ms pass. */
static bool wait_for(struct gpc_client *c, const unsigned *count,
		     unsigned want, unsigned ms)
{
	uint64_t deadline = wsc_now_ns() + ms * 1000000ull;
	bool ok = true;
	waiting = c;
	while (*count < want) {
		uint64_t now = wsc_now_ns();
		if (now >= deadline ||
		    gpc_run(c, (unsigned)((deadline - now) / 1000000) + 1)) {
			ok = *count >= want;
			break;
		}
	}
	waiting = NULL;
	return ok;
}

/* Runs c's loop for ms. */
static void run_for(struct gpc_client *c, unsigned ms)
{
	static const unsigned never;
	wait_for(c, &never, 1, ms);
}

/* Subscribes st; err (may be NULL) says why not. */
static int try_subscribe(struct gpc_client *c, struct stream *st,
			 const struct gpc_subscribe_options *o,
			 struct gpc_error *err)
{
	struct gpc_error e = { 0 };
	memset(st, 0, sizeof(*st));
	int ret = gpc_subscribe_sync(c, o, &stream_cbs, st, &st->sub,
				     err ? err : &e);
	return ret;
}

static void subscribe_to(struct gpc_client *c, struct stream *st,
			 const struct gpc_subscribe_options *o)
{
	struct gpc_error err = { 0 };
	CHECK(try_subscribe(c, st, o, &err) == 0, "subscribe %s: %s",
	      o->metric_set ? o->metric_set : "(current)", err.message);
}

static void check_hello(struct gpc_client *c)
{
	const struct gpc_server_info *s = gpc_server_info(c);
	CHECK(s->version[0] != '\0', "no server version");
	CHECK(s->role == GPC_ROLE_CONTROLLER,
	      "a loopback client is a controller, got role %d", s->role);
	CHECK(s->limits.max_message_bytes == 65536 &&
	      s->limits.queue_frames == 16 &&
	      s->limits.max_requests_per_second == 100,
	      "limits as configured");
	const struct gpc_device *devices;
	if (!CHECK(gpc_devices(c, &devices) == 1, "%zu devices",
		   gpc_devices(c, &devices)))
		return;
	const struct gpc_device *d = &devices[0];
	CHECK(!strcmp(d->name, "sim0"), "device name %s", d->name);
	CHECK(d->pci_id == 0x5f00, "PCI id 0x%x", d->pci_id);
	CHECK(!strcmp(d->source, "sim") && !strcmp(d->driver, "sim"),
	      "source %s driver %s", d->source, d->driver);
	CHECK(d->timestamp_frequency > 0 && d->max_frequency >= d->min_frequency &&
	      d->max_frequency > 0, "frequencies");
	CHECK(d->topology.eu_count > 0 && d->topology.subslice_count > 0 &&
	      d->topology.max_slices > 0, "topology");
	/* The unit's 32, less those below the floor (--min-period). */
	CHECK(d->n_sampling_periods > 16 && d->n_sampling_periods < 32 &&
	      d->sampling_periods[0].period_ns >= 10000 &&
	      d->sampling_periods[1].period_ns > d->sampling_periods[0].period_ns,
	      "sampling periods");
	const struct gpc_metric_set *rb = gpc_find_metric_set(d, "RenderBasic");
	CHECK(d->n_metric_sets == 3 && rb && gpc_find_metric_set(d, "ComputeBasic"),
	      "metric sets");
	if (!rb)
		return;
	CHECK(rb->guid[0] && rb->name[0] && rb->n_counters > 10, "RenderBasic");
	unsigned with_value = 0, described = 0;
	for (size_t i = 0; i < rb->n_counters; i++) {
		const struct gpc_counter *k = &rb->counters[i];
		with_value += k->has_max_value;
		described += k->symbol[0] && k->name[0] && k->units[0] &&
			     k->semantic_type[0] && k->description[0];
	}
	CHECK(described == rb->n_counters, "every counter has its metadata");
	CHECK(with_value > 0, "some counters have a constant max");
}

static void check_frames(const char *url)
{
	struct gpc_client *c = connect_as(url, NULL, GPC_ROLE_ANY, NULL);
	if (!c)
		return;
	check_hello(c);
	const struct gpc_metric_set *rb =
		gpc_find_metric_set(gpc_find_device(c, "sim0"), "RenderBasic");
	if (!rb) {
		gpc_close_sync(c);
		return;
	}
	const char *counters[3] = { rb->counters[0].symbol,
				    rb->counters[2].symbol,
				    rb->counters[1].symbol };
	struct gpc_subscribe_options o = {
		.metric_set = "RenderBasic",
		.window_ns = 20000000,
		.counters = counters,
		.n_counters = 3,
	};
	struct stream st;
	subscribe_to(c, &st, &o);
	const struct gpc_subscription_info *info =
		st.sub ? gpc_subscription_info(st.sub) : NULL;
	CHECK(info && info->n_counters == 3 &&
	      !strcmp(info->counters[0], counters[0]) &&
	      !strcmp(info->counters[1], counters[1]) &&
	      !strcmp(info->metric_set, "RenderBasic") &&
	      info->window_ns == 20000000 && !strcmp(info->device, "sim0") &&
	      info->sampling_period_ns > 0, "Subscribed says what was asked");
	wait_for(c, &st.frames, 6, 3000);
	CHECK(st.frames >= 6 && st.good == st.frames && !st.with_raw,
	      "6 frames of 3 values (%u frames, %u good, %u with raw deltas)",
	      st.frames, st.good, st.with_raw);
	if (st.sub)
		gpc_unsubscribe(st.sub);

	/* Raw deltas and per-context rows when asked. */
	o = (struct gpc_subscribe_options){
		.window_ns = 50000000, .raw = true, .per_context = true,
	};
	subscribe_to(c, &st, &o);
	wait_for(c, &st.frames, 4, 3000);
	CHECK(st.frames >= 4 && st.with_raw == st.frames &&
	      st.rows >= st.frames && st.complete_rows == st.rows,
	      "raw deltas (%u of %u frames) and context rows (%u, %u with "
	      "every counter)", st.with_raw, st.frames, st.rows,
	      st.complete_rows);

	/* A subscription to a set nobody runs, by a controller, is fine;
	 * one to a set that does not exist is not. */
	struct gpc_error err = { 0 };
	struct stream unknown;
	o = (struct gpc_subscribe_options){ .metric_set = "NoSuchSet" };
	CHECK(try_subscribe(c, &unknown, &o, &err) < 0 &&
	      err.server == GPC_SERVER_NOT_FOUND &&
	      strstr(err.message, "NoSuchSet"), "unknown set: %s", err.message);
	gpc_close_sync(c);
}

static void check_reconfigure(const char *local, const char *remote)
{
	struct gpc_client *a = connect_as(local, NULL, GPC_ROLE_ANY, NULL);
	/* b: a loopback client that asked to be a viewer. */
	struct gpc_client *b = connect_as(local, NULL, GPC_ROLE_VIEWER, NULL);
	/* c: a remote viewer, by token. */
	struct gpc_client *c = connect_as(remote, VIEWER_TOKEN, GPC_ROLE_ANY, NULL);
	if (!a || !b || !c)
		goto out;
	CHECK(gpc_server_info(b)->role == GPC_ROLE_VIEWER, "Auth as viewer");
	CHECK(gpc_server_info(c)->role == GPC_ROLE_VIEWER,
	      "a viewer token makes a viewer");
	struct stream sa, sb, sc;
	struct gpc_subscribe_options o = {
		.metric_set = "RenderBasic", .window_ns = 20000000,
	};
	subscribe_to(a, &sa, &o);
	o.metric_set = NULL;
	subscribe_to(b, &sb, &o);
	subscribe_to(c, &sc, &o);
	if (!sa.sub || !sb.sub || !sc.sub)
		goto out;

	/* A viewer asking for another set is refused with what runs. */
	struct gpc_error err = { 0 };
	struct stream refused;
	o.metric_set = "MemoryL3";
	CHECK(try_subscribe(b, &refused, &o, &err) < 0 &&
	      err.server == GPC_SERVER_BUSY && strstr(err.message, "RenderBasic"),
	      "a viewer cannot switch sets by subscribing: %s", err.message);
	/* ... nor by reconfiguring. */
	gpc_reconfigure(sb.sub, "ComputeBasic", 0, on_answer, &sb);
	wait_for(b, &sb.answers, 1, 3000);
	CHECK(sb.answer_failed && sb.answer.server == GPC_SERVER_PERMISSION_DENIED &&
	      strstr(sb.answer.message, "controller"),
	      "viewer refused reconfiguration: %s", sb.answer.message);
	gpc_reconfigure(sc.sub, "ComputeBasic", 0, on_answer, &sc);
	wait_for(c, &sc.answers, 1, 3000);
	CHECK(sc.answer_failed && sc.answer.server == GPC_SERVER_PERMISSION_DENIED,
	      "remote viewer refused reconfiguration: %s", sc.answer.message);

	/* The controller reconfigures; every subscriber is told, the
	 * controller too (before its answer). */
	gpc_reconfigure(sa.sub, "ComputeBasic", 0, on_answer, &sa);
	wait_for(a, &sa.answers, 1, 3000);
	CHECK(!sa.answer_failed && sa.config_events_at_answer == 1 &&
	      !strcmp(sa.event_set, "ComputeBasic"),
	      "the controller is told of its own change (%u events before "
	      "the answer: %s)", sa.config_events_at_answer, sa.answer.message);
	const struct gpc_subscription_info *info = gpc_subscription_info(sa.sub);
	CHECK(!strcmp(info->metric_set, "ComputeBasic") && info->n_counters > 0,
	      "controller reconfigures: now %s", info->metric_set);
	struct gpc_client *all[3] = { a, b, c };
	struct stream *streams[3] = { &sa, &sb, &sc };
	for (int i = 1; i < 3; i++) {
		struct stream *st = streams[i];
		wait_for(all[i], &st->config_events, 1, 3000);
		info = gpc_subscription_info(st->sub);
		CHECK(st->config_events == 1 &&
		      !strcmp(st->event_set, "ComputeBasic") &&
		      !strcmp(st->event_device, "sim0") &&
		      !strcmp(info->metric_set, "ComputeBasic") &&
		      info->n_counters > 0,
		      "client %d told of the new configuration", i);
	}
	for (int i = 0; i < 3; i++) {
		unsigned before = streams[i]->frames;
		CHECK(wait_for(all[i], &streams[i]->frames, before + 1, 3000) &&
		      streams[i]->last_values > 0, "client %d streams on", i);
	}
out:
	gpc_close_sync(a);
	gpc_close_sync(b);
	gpc_close_sync(c);
}

static void check_marks(const char *url)
{
	struct gpc_client *c = connect_as(url, NULL, GPC_ROLE_ANY, NULL);
	if (!c)
		return;
	struct stream st;
	struct gpc_subscribe_options o = { .window_ns = 0 };
	subscribe_to(c, &st, &o);
	if (!st.sub) {
		gpc_close_sync(c);
		return;
	}
	/* BEGIN waits until the first report has anchored the clocks. */
	struct gpc_error err = { 0 };
	CHECK(gpc_mark_sync(st.sub, GPC_MARK_BEGIN, &err) == 0, "Mark BEGIN: %s",
	      err.message);
	run_for(c, 200);
	CHECK(gpc_mark_sync(st.sub, GPC_MARK_END, &err) == 0, "Mark END: %s",
	      err.message);
	wait_for(c, &st.marks, 1, 3000);
	CHECK(st.marks == 1 && st.mark_reports > 50 && st.mark_values > 0 &&
	      st.mark_span_ns > 150000000,
	      "the marked window comes back with its values (%u reports over "
	      "%llu ns)", st.mark_reports, (unsigned long long)st.mark_span_ns);
	CHECK(gpc_mark_sync(st.sub, GPC_MARK_END, &err) < 0 &&
	      err.server != GPC_SERVER_NONE, "END without BEGIN: %s", err.message);
	gpc_close_sync(c);
}

/* /metrics' count of frames dropped for slow readers, 0 if unreadable. */
static unsigned long long metrics_dropped(const char *hostport);

static void check_slow_client(const char *url, const char *hostport)
{
	struct gpc_client *slow = connect_as(url, NULL, GPC_ROLE_ANY, NULL);
	struct gpc_client *fast = connect_as(url, NULL, GPC_ROLE_ANY, NULL);
	if (!slow || !fast) {
		gpc_close_sync(slow);
		gpc_close_sync(fast);
		return;
	}
	/* The slow one asks for big frames, often (within its evaluation
	 * budget), then stops reading (its
	 * loop does not run): once the socket buffers between are full, its
	 * queue overflows. */
	struct stream big[4], small;
	struct gpc_subscribe_options o = {
		.window_ns = 2000000, .raw = true, .per_context = true,
	};
	for (int i = 0; i < 4; i++)
		subscribe_to(slow, &big[i], &o);
	o = (struct gpc_subscribe_options){ .window_ns = 10000000 };
	subscribe_to(fast, &small, &o);
	unsigned long long before = metrics_dropped(hostport);
	uint64_t start = wsc_now_ns();
	bool dropping = false;
	/* The fast client's frames until the other drops, then 50 more: it
	 * streams on, and loses no window without being told (a loaded
	 * machine may make it too slow for its own queue). */
	while (!dropping && wsc_now_ns() - start < 30000000000ull) {
		run_for(fast, 500);
		dropping = metrics_dropped(hostport) > before;
	}
	double secs = (double)(wsc_now_ns() - start) * 1e-9;
	CHECK(dropping, "the server drops frames of a client that stopped "
	      "reading (within %.1f s)", secs);
	unsigned until = small.frames + 50;
	CHECK(wait_for(fast, &small.frames, until, 15000) && (!small.gaps || small.dropped),
	      "the other client streams on, every window it missed told: %u "
	      "frames, %u windows missed, %llu dropped", small.frames, small.gaps,
	      (unsigned long long)small.dropped);
	/* Read on until a frame tells of the drops. */
	uint64_t deadline = wsc_now_ns() + 10000000000ull;
	uint64_t reported = 0, dropped_total = 0;
	unsigned slow_frames = 0;
	while (!reported && wsc_now_ns() < deadline) {
		run_for(slow, 200);
		reported = dropped_total = 0;
		slow_frames = 0;
		for (int i = 0; i < 4; i++) {
			reported += big[i].dropped;
			slow_frames += big[i].frames;
			if (big[i].dropped_total > dropped_total)
				dropped_total = big[i].dropped_total;
		}
	}
	CHECK(dropped_total > 0 && reported > 0,
	      "the client that stopped reading is told of its drops "
	      "(%llu dropped, %u frames read)",
	      (unsigned long long)dropped_total, slow_frames);
	gpc_close_sync(slow);
	gpc_close_sync(fast);
}

/* ------------------------------------------------------------------ */
/* Raw WebSocket: what no libgpuperf client sends                       */

static struct wsc_ctx ctx;

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

/* What libgpuperf keeps from its callers: the Hello's message, frames
 * answering their Subscribe's request id, Ping, and the answers to
 * Unsubscribe. */
static void check_protocol(const char *url)
{
	Gpuperf__Envelope *hello = NULL;
	struct wsc *c = open_session(url, NULL, &hello);
	if (hello && CHECK(hello->hello->n_devices == 1, "%zu devices",
			   hello->hello->n_devices)) {
		const Gpuperf__Device *d = hello->hello->devices[0];
		CHECK(d->topology && d->topology->n_subslice_masks ==
		      d->topology->max_slices, "a subslice mask per slice");
		CHECK(d->configuration != NULL, "configuration");
	}
	wsc_free_message(hello);
	Gpuperf__Envelope *sub_reply = NULL;
	uint32_t sub = subscribe(c, NULL, 20000000, NULL, 0, false, false,
				 &sub_reply);
	uint64_t sub_request = sub_reply ? sub_reply->request_id : 0;
	wsc_free_message(sub_reply);
	unsigned frames = 0, answering = 0;
	for (int i = 0; i < 3; i++) {
		Gpuperf__Envelope *f = next_frame(c, sub, 3000);
		if (!f)
			break;
		frames++;
		answering += f->request_id == sub_request;
		wsc_free_message(f);
	}
	CHECK(frames == 3 && answering == 3, "frames carry their Subscribe's "
	      "request id (%u of %u)", answering, frames);

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
	wsc_close(c);
}

static void send_unsubscribe(struct wsc *c, uint32_t sub)
{
	Gpuperf__Unsubscribe u = GPUPERF__UNSUBSCRIBE__INIT;
	u.subscription_id = sub;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.kind_case = K(UNSUBSCRIBE);
	env.unsubscribe = &u;
	Gpuperf__Envelope *r = reply(c, send_env(c, &env), 3000);
	CHECK(r && r->kind_case == K(UNSUBSCRIBED), "Unsubscribed: %s",
	      error_text(r));
	wsc_free_message(r);
}

/*
 * What one connection may cost: a counter named 4,096 times is sent once;
 * subscriptions are counted in evaluations a second against the
 * connection's budget (Hello says it), one over it is refused and the
 * budget comes back as they go. The floor on periods is in Hello too.
 */
static void check_evaluation_budget(const char *url)
{
	Gpuperf__Envelope *hello = NULL;
	struct wsc *c = open_session(url, NULL, &hello);
	if (!hello)
		return;
	CHECK(hello->hello->limits &&
	      hello->hello->limits->max_evaluations_per_second == 1000000,
	      "Hello says the evaluation budget");
	const Gpuperf__Device *d = hello->hello->n_devices ?
				   hello->hello->devices[0] : NULL;
	bool above = d && d->n_sampling_periods;
	for (size_t i = 0; d && i < d->n_sampling_periods; i++)
		above &= d->sampling_periods[i]->period_ns >= 10000;
	CHECK(d && d->min_sampling_period_ns == 10000 && above,
	      "Hello says the floor on periods and lists none below it");
	wsc_free_message(hello);

	static const char *copies[4096];
	for (size_t i = 0; i < 4096; i++)
		copies[i] = "GpuTime";
	Gpuperf__Envelope *r = NULL;
	uint32_t one = subscribe(c, "RenderBasic", 100000000, copies, 4096,
				 false, false, &r);
	CHECK(r && r->kind_case == K(SUBSCRIBED) && r->subscribed->n_counters == 1,
	      "a counter named 4096 times is subscribed once");
	wsc_free_message(r);
	Gpuperf__Envelope *f = next_frame(c, one, 3000);
	CHECK(f && f->frame->n_values == 1, "its frames carry it once");
	wsc_free_message(f);

	/* Every counter, per context, in 1 ms windows: a few fit. */
	uint32_t subs[16];
	unsigned n = 0;
	const char *refusal = NULL;
	Gpuperf__Envelope *last = NULL;
	while (n < 15) {
		uint64_t id = send_subscribe(c, "RenderBasic", 1000000, NULL, 0,
					     false, true);
		last = reply(c, id, 5000);
		if (!last || last->kind_case != K(SUBSCRIBED))
			break;
		subs[n++] = last->subscribed->subscription_id;
		wsc_free_message(last);
		last = NULL;
	}
	refusal = error_text(last);
	CHECK(n >= 1 && n < 15 && last && last->kind_case == K(ERROR) &&
	      last->error->code == GPUPERF__ERROR_CODE__RESOURCE_EXHAUSTED &&
	      strstr(refusal, "--max-evaluations"),
	      "subscriptions over the connection's budget are refused "
	      "(%u taken): %s", n, refusal);
	wsc_free_message(last);
	/* Another connection has a budget of its own. */
	struct wsc *other = open_session(url, NULL, NULL);
	uint32_t theirs = subscribe(other, "RenderBasic", 1000000, NULL, 0,
				    false, true, NULL);
	CHECK(theirs != 0, "another connection has its own budget");
	wsc_close(other);
	/* The budget comes back as subscriptions go. */
	if (n)
		send_unsubscribe(c, subs[--n]);
	uint32_t again = subscribe(c, "RenderBasic", 1000000, NULL, 0, false,
				   true, NULL);
	CHECK(again != 0, "an unsubscribed one's budget is taken again");
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

/* The frames of one subscription as they come: how many, how many the
 * server dropped, and how many did not start where the one before ended
 * (a window missed). A client too slow for its queue loses frames, and
 * each loss must be told: gaps without drops are windows lost silently. */
struct frame_run {
	unsigned frames;
	uint64_t dropped;
	unsigned gaps;
	uint64_t last_end_ns;
};

/* Reads c's frames into run for ms, or until it holds at least want
 * frames. */
static void follow_frames(struct wsc *c, unsigned ms, unsigned want,
			  struct frame_run *run)
{
	uint64_t deadline = wsc_now_ns() + ms * 1000000ull;
	while (wsc_now_ns() < deadline && run->frames < want) {
		Gpuperf__Envelope *f = wsc_next(c, 20);
		if (f && f->kind_case == K(FRAME) && !f->frame->mark) {
			run->frames++;
			run->dropped += f->frame->frames_dropped;
			if (run->last_end_ns && f->frame->gpu_start_ns != run->last_end_ns)
				run->gaps++;
			run->last_end_ns = f->frame->gpu_end_ns;
		}
		wsc_free_message(f);
	}
}

static void check_malformed(const char *url)
{
	struct wsc *victim = open_session(url, NULL, NULL);
	subscribe(victim, NULL, 10000000, NULL, 0, false, false, NULL);
	struct frame_run run = { 0 };
	follow_frames(victim, 5000, 3, &run);

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

	/* Meanwhile the victim streamed on, losing no window untold. */
	follow_frames(victim, 10000, run.frames + 20, &run);
	CHECK(wsc_is_open(victim) && run.frames >= 20 && (!run.gaps || run.dropped),
	      "another client keeps streaming through bad input (%u frames, "
	      "%u windows missed, %llu dropped)", run.frames, run.gaps,
	      (unsigned long long)run.dropped);
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
	uint64_t id = send_auth(c, CONTROLLER_TOKEN, GPUPERF__ROLE__ROLE_UNSPECIFIED);
	m = reply(c, id, 3000);
	CHECK(m && m->kind_case == K(HELLO) &&
	      m->hello->role == GPUPERF__ROLE__ROLE_CONTROLLER &&
	      m->hello->n_devices == 1, "Auth with a controller token: %s",
	      error_text(m));
	wsc_free_message(m);
	/* A second Auth would be a second Hello: refused, and the
	 * connection closed. */
	id = send_auth(c, CONTROLLER_TOKEN, GPUPERF__ROLE__ROLE_UNSPECIFIED);
	m = reply(c, id, 3000);
	CHECK(m && m->kind_case == K(ERROR) &&
	      m->error->code == GPUPERF__ERROR_CODE__INVALID_ARGUMENT,
	      "a second Auth is refused: %s", error_text(m));
	wsc_free_message(m);
	CHECK(wsc_wait_closed(c, 3000) == 1008, "a second Auth closes");
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

/* Auth with token on a fresh connection to url: the reply's error code
 * (0 for a Hello), and whether the connection was closed after an
 * error. */
static int try_token(const char *url, const char *token, bool *closed,
		     char *why, size_t size)
{
	struct wsc *c = connect_to(url, NULL, NULL, NULL);
	int code = -1;
	*closed = false;
	snprintf(why, size, "(no reply)");
	if (wsc_wait_open(c, 3000)) {
		uint64_t id = send_auth(c, token, GPUPERF__ROLE__ROLE_UNSPECIFIED);
		Gpuperf__Envelope *m = reply(c, id, 3000);
		if (m && m->kind_case == K(HELLO))
			code = 0;
		else if (m && m->kind_case == K(ERROR))
			code = (int)m->error->code;
		snprintf(why, size, "%s", m && code ? error_text(m) : "");
		wsc_free_message(m);
		*closed = code > 0 && wsc_wait_closed(c, 3000) == 1008;
	}
	wsc_close(c);
	return code;
}

/*
 * Guessing tokens: each wrong one closes its connection; after a few from
 * one address, its attempts are refused unheard, the right token too,
 * until a second has passed.
 */
static void check_brute_force(const char *remote)
{
	char why[256];
	bool closed, all_closed = true;
	unsigned wrong = 0, braked = 0;
	uint64_t guessing = wsc_now_ns();
	for (unsigned i = 0; i < 30; i++) {
		char guess[40];
		snprintf(guess, sizeof(guess), "guess-%02u-0123456789abcdefghij", i);
		int code = try_token(remote, guess, &closed, why, sizeof(why));
		wrong += code == GPUPERF__ERROR_CODE__UNAUTHENTICATED;
		braked += code == GPUPERF__ERROR_CODE__RATE_LIMITED;
		all_closed &= closed;
	}
	/* Five may fail at once, then one a second: however slow this
	 * machine made the guesses, no more were heard than the brake's
	 * bucket could have refilled in the time they took. */
	uint64_t seconds = (wsc_now_ns() - guessing) / 1000000000ull + 1;
	CHECK(wrong >= 1 && wrong <= 5 + seconds && braked >= 1,
	      "30 guesses in %llu s: %u heard and wrong, %u refused unheard",
	      (unsigned long long)seconds, wrong, braked);
	CHECK(all_closed, "every wrong guess closes its connection");
	/* The right token while the brake holds is refused unheard. The
	 * bucket may refill between a refusal and the next attempt on a
	 * slow machine; then a wrong guess empties it again, up to 5
	 * rounds. */
	int code = 0;
	for (unsigned round = 0; round < 5 && code != GPUPERF__ERROR_CODE__RATE_LIMITED;
	     round++) {
		if (round)
			try_token(remote, "guess-again-0123456789abcdefghij",
				  &closed, why, sizeof(why));
		code = try_token(remote, CONTROLLER_TOKEN, &closed, why,
				 sizeof(why));
	}
	CHECK(code == GPUPERF__ERROR_CODE__RATE_LIMITED &&
	      strstr(why, "too many wrong tokens"),
	      "the right token right after is refused unheard: %s", why);
	/* The brake lets go: once a second. */
	uint64_t start = wsc_now_ns();
	while (code != 0 && wsc_now_ns() - start < 10000000000ull) {
		code = try_token(remote, CONTROLLER_TOKEN, &closed, why,
				 sizeof(why));
		if (code)
			usleep(100000);
	}
	CHECK(code == 0, "the right token gets in once the brake lets go: %s",
	      why);
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
	/* The burst of 200 and what refills meanwhile, then a second's
	 * worth of refusals (and what refills of those): the client is not
	 * listening to them. */
	CHECK(pongs >= 200 && limited >= 100 && limited < 150 &&
	      pongs + limited < 400, "rate limit: %u answered, %u refused",
	      pongs, limited);
	CHECK(wsc_wait_closed(c, 3000) == 1008, "a connection going on past a "
	      "second's worth of refusals is closed");
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
	int n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: %s\r\n"
			 "Connection: close\r\n\r\n", path, hostport);
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
	static const char series[] =
		"\ngpuperf_frames_dropped_total{stream=\"counters\"} ";
	const char *line = body ? strstr(body, series) : NULL;
	unsigned long long n = line ? strtoull(line + sizeof(series) - 1, NULL, 10) : 0;
	free(body);
	return n;
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
	CHECK(strstr(body, "gpuperf_info{device=\"sim0\",device_id=\"sim0-seed1\",pci_id=\"0x5f00\",model=\"SIMGEN12 virtual GPU\",driver=\"sim\",platform=\"simgen12\"") &&
	      strstr(body, "gpuperf_gpu_busy_ratio{device=\"sim0\",device_id=\"sim0-seed1\",pci_id=\"0x5f00\",model=\"SIMGEN12 virtual GPU\",driver=\"sim\",metric_set=\"") &&
	      strstr(body, "gpuperf_frames_dropped_total{stream=\"counters\"} ") &&
	      strstr(body, "gpuperf_frames_dropped_total{stream=\"usage\"} "),
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
 * daemon's words and a close 3 s on (the default --auth-timeout); it was
 * opened at opened_ms. */
static void check_silent_closed(struct wsc *silent, uint64_t opened_ms)
{
	/* Still open 2.8 s on: watched alone up to then, or, when the
	 * checks before took longer, by when its close was seen. */
	uint64_t waited = now_ms() - opened_ms;
	bool early = waited < 2800 &&
		     wsc_wait_closed(silent, (unsigned)(2800 - waited)) != -1;
	waited = now_ms() - opened_ms;
	unsigned left = waited < 13000 ? (unsigned)(13000 - waited) : 0;
	int code = wsc_wait_closed(silent, left);
	uint64_t closed_after = wsc_closed_ns(silent) / 1000000 - opened_ms;

	CHECK(code == 1008, "a silent remote connection is closed within 13 s "
	      "(close code %d)", code);
	CHECK(!early && (code != 1008 || closed_after >= 2800),
	      "the silent connection was closed %llu ms after it opened, "
	      "before its 3 s", (unsigned long long)closed_after);
	Gpuperf__Envelope *m = wsc_next_kind(silent, K(ERROR), 100);
	CHECK(m && m->error->code == GPUPERF__ERROR_CODE__UNAUTHENTICATED &&
	      strstr(m->error->message, "no token within 3 s"),
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
	section("protocol");
	check_protocol(local);
	section("reconfigure");
	check_reconfigure(local, remote);
	section("marks");
	check_marks(local);
	section("malformed");
	check_malformed(local);
	section("tokens");
	check_tokens(local, remote);
	section("brute force");
	check_brute_force(remote);
	section("rate limit");
	check_rate_limit(local);
	section("evaluation budget");
	check_evaluation_budget(local);
	section("unix");
	struct gpc_client *u = connect_as(unix_url, NULL, GPC_ROLE_ANY, NULL);
	CHECK(u && gpc_server_info(u)->role == GPC_ROLE_CONTROLLER,
	      "the Unix socket needs no token");
	gpc_close_sync(u);
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

struct recording {
	struct gpc_client *client;
	FILE *file;
	uint64_t offset;
	bool contiguous;
	unsigned started, stopped;
	bool failed;
	struct gpc_error err;
	struct gpc_recording_summary summary;
	bool stopped_with_reason;
};

static void on_recording_started(struct gpc_recording *rec,
				 const struct gpc_error *err, void *user)
{
	struct recording *r = user;
	r->started++;
	r->failed = err != NULL;
	if (err)
		r->err = *err;
	wake_waiter(r->client);
}

static void on_recording_data(struct gpc_recording *rec, uint64_t offset,
			      const void *data, size_t len, void *user)
{
	struct recording *r = user;
	r->contiguous &= offset == r->offset;
	fwrite(data, 1, len, r->file);
	r->offset += len;
}

static void on_recording_stopped(struct gpc_recording *rec,
				 const struct gpc_recording_summary *summary,
				 const struct gpc_error *err, void *user)
{
	struct recording *r = user;
	r->stopped++;
	if (summary) {
		r->summary = *summary;
		r->stopped_with_reason = summary->reason != NULL;
	} else if (err) {
		r->err = *err;
	}
	wake_waiter(r->client);
}

static const struct gpc_recording_cbs recording_cbs = {
	.started = on_recording_started,
	.data = on_recording_data,
	.stopped = on_recording_stopped,
};

static void run_tls(char **argv)
{
	const char *url = argv[0], *ca_file = argv[1], *out = argv[2];
	struct gpc_client *c = connect_as(url, NULL, GPC_ROLE_ANY, ca_file);
	if (!c)
		return;
	const struct gpc_device *devices;
	CHECK(gpc_devices(c, &devices) == 1 &&
	      !strcmp(devices[0].platform, "tglgt2"), "Hello over TLS");
	struct stream st;
	struct gpc_subscribe_options o = {
		.metric_set = "RenderBasic", .window_ns = 20000000,
	};
	subscribe_to(c, &st, &o);
	wait_for(c, &st.frames, 1, 3000);
	CHECK(st.frames && st.last_values > 20, "frames over TLS (%zu values)",
	      st.last_values);
	if (st.sub)
		gpc_unsubscribe(st.sub);

	struct recording r = {
		.client = c, .file = fopen(out, "w"), .contiguous = true,
	};
	struct gpc_recording_options ro = { 0 };
	struct gpc_recording *rec = NULL;
	if (!CHECK(r.file && gpc_record(c, &ro, &recording_cbs, &r, &rec) == 0,
		   "cannot record into %s", out)) {
		if (r.file)
			fclose(r.file);
		gpc_close_sync(c);
		return;
	}
	wait_for(c, &r.started, 1, 3000);
	CHECK(r.started && !r.failed, "StartRecording: %s", r.err.message);
	run_for(c, 1500);
	gpc_recording_stop(rec);
	wait_for(c, &r.stopped, 1, 3000);
	fclose(r.file);
	CHECK(r.stopped && r.summary.bytes == r.offset &&
	      r.summary.reports > 100 && !r.stopped_with_reason,
	      "RecordingStopped: %llu bytes, %llu reports%s",
	      (unsigned long long)r.summary.bytes,
	      (unsigned long long)r.summary.reports,
	      r.stopped_with_reason ? ", with a reason" : "");
	CHECK(r.stopped && r.contiguous && r.offset > 1000,
	      "the recording's bytes arrived whole and in order (%llu bytes)",
	      (unsigned long long)r.offset);
	gpc_close_sync(c);
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
	struct gpc_client *a = connect_as(url, NULL, GPC_ROLE_ANY, NULL);
	struct gpc_client *b = connect_as(url, NULL, GPC_ROLE_ANY, NULL);
	/* The third speaks raw WebSocket, to see how it is closed. */
	struct wsc *c = connect_to(url, NULL, NULL, NULL);
	Gpuperf__Envelope *m = wsc_next_kind(c, K(ERROR), 3000);
	CHECK(m && m->error->code == GPUPERF__ERROR_CODE__RESOURCE_EXHAUSTED &&
	      strstr(m->error->message, "--max-connections"),
	      "a third connection over --max-connections 2: %s", error_text(m));
	wsc_free_message(m);
	int code = wsc_wait_closed(c, 3000);
	CHECK(code == 1008, "... is closed (%d)", code);
	wsc_close(c);
	CHECK(a && b && !gpc_run(a, 50) && gpc_is_connected(a) &&
	      !gpc_run(b, 50) && gpc_is_connected(b), "the first two stay");
	gpc_close_sync(b);
	/* Welcome again as soon as the daemon has seen one leave. */
	struct gpc_error err = { 0 };
	struct gpc_client *again = NULL;
	uint64_t deadline = wsc_now_ns() + 3000000000ull;
	while (!again && wsc_now_ns() < deadline)
		again = try_connect(url, NULL, GPC_ROLE_ANY, NULL, &err);
	CHECK(again != NULL, "a connection is welcome again once one left: %s",
	      err.message);
	gpc_close_sync(again);
	gpc_close_sync(a);
}

/* ------------------------------------------------------------------ */
/* flood                                                                */

/* An upgrade to /ws on 127.0.0.1:port from the loopback address source,
 * without a token: the socket once its 101 is read, else -1. */
static int raw_upgrade(const char *source, int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	struct sockaddr_in from = { .sin_family = AF_INET };
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port) };
	inet_pton(AF_INET, source, &from.sin_addr);
	inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
	struct timeval limit = { .tv_sec = 10 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
	char req[512];
	int n = snprintf(req, sizeof(req), "GET /ws HTTP/1.1\r\n"
			 "Host: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
			 "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
			 "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
			 "Sec-WebSocket-Protocol: gpuperf.v1\r\n\r\n", port);
	char head[1024];
	size_t len = 0;
	if (bind(fd, (struct sockaddr *)&from, sizeof(from)) ||
	    connect(fd, (struct sockaddr *)&to, sizeof(to)) ||
	    write(fd, req, (size_t)n) != n)
		goto fail;
	/* Byte by byte: what follows the headers is the session's. */
	while (len < sizeof(head) - 1) {
		if (read(fd, head + len, 1) != 1)
			goto fail;
		head[++len] = '\0';
		if (len >= 4 && !strcmp(head + len - 4, "\r\n\r\n"))
			break;
	}
	if (strncmp(head, "HTTP/1.1 101", 12))
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

/* The value of a gauge or counter without labels in /metrics. */
static long long metric(const char *hostport, const char *name)
{
	char *body = http_get(hostport, "/metrics");
	long long v = -1;
	size_t n = strlen(name);
	for (char *line = body; line && *line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (!strncmp(line, name, n) && line[n] == ' ') {
			v = atoll(line + n + 1);
			break;
		}
	}
	free(body);
	return v;
}

/* Polls /metrics until name reads want; false after 30 s. */
static bool wait_gauge(const char *hostport, const char *name, long long want)
{
	uint64_t deadline = now_ms() + 30000;
	while (metric(hostport, name) != want) {
		if (now_ms() >= deadline)
			return false;
		wsc_pump(&ctx, 20);
	}
	return true;
}

/*
 * Idle connections that never authenticate, as many as an attacker likes
 * from many addresses (127.0.0.2 on: loopback has all of 127/8), against a
 * daemon with its default budgets: they get the pool of unauthenticated
 * connections (and 4 each address) and nothing else, so token holders,
 * loopback clients and the Unix socket get in every time meanwhile.
 */
static void run_flood(char **argv)
{
	const char *remote = argv[0], *local = argv[1], *unix_url = argv[2];
	const char *metrics_hostport = argv[3];
	int port = atoi(strrchr(remote, ':') + 1);
	enum { ADDRESSES = 80, EACH = 4, PER_PEER = 4, POOL = 32, ROUNDS = 25 };
	static int fds[ADDRESSES * EACH + 2 * PER_PEER];
	unsigned n = 0, upgraded = 0;

	section("one address");
	for (unsigned i = 0; i < 2 * PER_PEER; i++)
		upgraded += (fds[n++] = raw_upgrade("127.0.0.200", port)) >= 0;
	/* Those turned away get an Error and a close frame at once; those
	 * kept hear nothing. */
	unsigned told = 0;
	uint64_t deadline = now_ms() + 10000;
	while (told < PER_PEER && now_ms() < deadline) {
		struct pollfd p[2 * PER_PEER];
		for (unsigned i = 0; i < 2 * PER_PEER; i++)
			p[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
		poll(p, 2 * PER_PEER, 100);
		told = 0;
		for (unsigned i = 0; i < 2 * PER_PEER; i++)
			told += fds[i] >= 0 && (p[i].revents & (POLLIN | POLLHUP));
	}
	CHECK(upgraded == 2 * PER_PEER && told == PER_PEER, "of %d connections "
	      "from one address, %u upgraded and %u were turned away, not %d",
	      2 * PER_PEER, upgraded, told, PER_PEER);

	section("many addresses");
	for (unsigned a = 0; a < ADDRESSES; a++) {
		char source[32];
		snprintf(source, sizeof(source), "127.0.0.%u", 2 + a);
		for (unsigned i = 0; i < EACH; i++)
			upgraded += (fds[n++] = raw_upgrade(source, port)) >= 0;
	}
	/* While they hold on, everyone else gets in. */
	unsigned token_ok = 0, local_ok = 0, unix_ok = 0;
	for (unsigned round = 0; round < ROUNDS; round++) {
		const char *urls[] = { remote, local, unix_url };
		unsigned *ok[] = { &token_ok, &local_ok, &unix_ok };
		for (unsigned k = 0; k < 3; k++) {
			Gpuperf__Envelope *hello = NULL;
			struct wsc *c = connect_to(urls[k], k ? NULL : CONTROLLER_TOKEN, NULL, NULL);
			if (wsc_wait_open(c, 5000) &&
			    (hello = wsc_next_kind(c, K(HELLO), 5000)))
				(*ok[k])++;
			wsc_free_message(hello);
			wsc_close(c);
		}
	}
	CHECK(token_ok == ROUNDS, "a token holder got in %u times of %d during the "
	      "flood", token_ok, ROUNDS);
	CHECK(local_ok == ROUNDS, "a loopback client got in %u times of %d during "
	      "the flood", local_ok, ROUNDS);
	CHECK(unix_ok == ROUNDS, "a Unix socket client got in %u times of %d during "
	      "the flood", unix_ok, ROUNDS);
	bool full = wait_gauge(metrics_hostport, "gpuperf_connections_unauthenticated",
			       POOL);
	long long held = metric(metrics_hostport, "gpuperf_connections_unauthenticated");
	CHECK(full, "%u idle unauthenticated connections hold %d slots, not %lld",
	      n, POOL, held);
	long long refused = metric(metrics_hostport, "gpuperf_connections_refused_total");
	CHECK(refused >= (long long)(n - POOL), "the %u over the pool are refused "
	      "(%lld counted)", n - POOL, refused);
	printf("flood: %u idle connections upgraded, %lld held a slot waiting to "
	       "authenticate, %lld refused; token holders %u/%d, loopback %u/%d, "
	       "Unix socket %u/%d got their Hello meanwhile\n", upgraded, held,
	       refused, token_ok, ROUNDS, local_ok, ROUNDS, unix_ok, ROUNDS);
	for (unsigned i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	CHECK(wait_gauge(metrics_hostport, "gpuperf_connections_unauthenticated", 0),
	      "the pool is free again once the flood ends");
	section(NULL);
}

/* ------------------------------------------------------------------ */
/* amplify                                                              */

/* env as one masked binary WebSocket frame, as a client sends it. */
static bool raw_send(int fd, Gpuperf__Envelope *env)
{
	static const unsigned char mask[4] = { 0x12, 0x34, 0x56, 0x78 };
	unsigned char frame[8 + 4 + 1024];
	size_t len = gpuperf__envelope__get_packed_size(env);
	if (len > 1024)
		return false;
	size_t h = 0;
	frame[h++] = 0x82;
	if (len < 126) {
		frame[h++] = 0x80 | (unsigned char)len;
	} else {
		frame[h++] = 0x80 | 126;
		frame[h++] = (unsigned char)(len >> 8);
		frame[h++] = (unsigned char)len;
	}
	memcpy(frame + h, mask, 4);
	h += 4;
	gpuperf__envelope__pack(env, frame + h);
	for (size_t i = 0; i < len; i++)
		frame[h + i] ^= mask[i % 4];
	return write(fd, frame, h + len) == (ssize_t)(h + len);
}

static bool raw_auth(int fd)
{
	Gpuperf__Auth a = GPUPERF__AUTH__INIT;
	a.token = "";
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.request_id = next_request++;
	env.kind_case = K(AUTH);
	env.auth = &a;
	return raw_send(fd, &env);
}

static bool raw_subscribe(int fd, const char *set, uint64_t window_ns)
{
	Gpuperf__Subscribe m = GPUPERF__SUBSCRIBE__INIT;
	m.metric_set = (char *)set;
	m.window_ns = window_ns;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.request_id = next_request++;
	env.kind_case = K(SUBSCRIBE);
	env.subscribe = &m;
	return raw_send(fd, &env);
}

static bool raw_record(int fd)
{
	Gpuperf__StartRecording m = GPUPERF__START_RECORDING__INIT;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.request_id = next_request++;
	env.kind_case = K(START_RECORDING);
	env.start_recording = &m;
	return raw_send(fd, &env);
}

static bool raw_reconfigure(int fd, uint32_t sub, const char *set)
{
	Gpuperf__Reconfigure m = GPUPERF__RECONFIGURE__INIT;
	m.subscription_id = sub;
	m.metric_set = (char *)set;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	env.request_id = next_request++;
	env.kind_case = K(RECONFIGURE);
	env.reconfigure = &m;
	return raw_send(fd, &env);
}

/* The daemon's resident memory, in bytes. */
static long long rss_of(const char *pid)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	FILE *f = fopen(path, "re");
	long long kb = -1;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %lld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb < 0 ? -1 : kb * 1024;
}

/* Whether process pid runs with AddressSanitizer's runtime. */
static bool runs_asan(const char *pid)
{
	char path[64], line[512];
	snprintf(path, sizeof(path), "/proc/%s/maps", pid);
	FILE *f = fopen(path, "re");
	bool asan = false;
	while (f && !asan && fgets(line, sizeof(line), f))
		asan = strstr(line, "libasan") != NULL;
	if (f)
		fclose(f);
	return asan;
}

/*
 * Clients that never read what they are sent, from a loopback listener
 * (controllers): 100 ask for a Hello 100 times over (Auth), 100 subscribe
 * and record twice while a controller flips the metric set
 * 300 times under them (an event each, for each). The daemon's memory
 * stays within its --send-budget (BUDGET bytes) and some headroom for the
 * connections themselves; the slow readers are dropped, the repeated Auths
 * refused.
 */
static void run_amplify(char **argv)
{
	const char *local = argv[0], *pid = argv[1], *metrics_hostport = argv[2];
	long long budget = atoll(argv[3]);
	int port = atoi(strrchr(local, ':') + 1);
	enum { GROUP = 100, AUTHS = 100, FLIPS = 300 };
	/* libwebsockets' buffers and the sessions of 201 connections, and
	 * the allocator's slack. Under AddressSanitizer every allocation
	 * carries redzones and freed memory waits in a quarantine: the
	 * queued bytes take up to twice their size, and the rest more. */
	const long long headroom = runs_asan(pid) ? budget + (64ll << 20) : 32ll << 20;
	static int fds[2 * GROUP + 1];
	long long before = rss_of(pid), peak = before;

	section("attack");
	unsigned n = 0, open = 0;
	for (unsigned i = 0; i < 2 * GROUP + 1; i++)
		open += (fds[n++] = raw_upgrade("127.0.0.1", port)) >= 0;
	int controller = fds[2 * GROUP];
	raw_subscribe(controller, "RenderBasic", 0);
	for (unsigned i = GROUP; i < 2 * GROUP; i++) {
		if (fds[i] < 0)
			continue;
		raw_subscribe(fds[i], "", 10000000);
		raw_record(fds[i]);
		raw_record(fds[i]);
	}
	for (unsigned k = 0; k < AUTHS; k++) {
		for (unsigned i = 0; i < GROUP; i++)
			if (fds[i] >= 0)
				raw_auth(fds[i]);
		for (unsigned j = 0; j < FLIPS / AUTHS; j++)
			raw_reconfigure(controller, 1, (k + j) % 2 ? "RenderBasic"
							      : "ComputeBasic");
		long long rss = rss_of(pid);
		if (rss > peak)
			peak = rss;
	}
	/* The daemon works through the requests; memory is watched
	 * meanwhile, until what it queued stops growing. */
	long long queued = -1, last = -2;
	uint64_t settled_at = now_ms() + 1000, deadline = now_ms() + 60000;
	while (now_ms() < settled_at && now_ms() < deadline) {
		long long rss = rss_of(pid);
		if (rss > peak)
			peak = rss;
		queued = metric(metrics_hostport, "gpuperf_send_queue_bytes");
		if (queued != last)
			settled_at = now_ms() + 1000;
		last = queued;
		wsc_pump(&ctx, 50);
	}
	long long dropped = metric(metrics_hostport, "gpuperf_slow_readers_dropped_total");
	printf("amplify: %u connections that never read; RSS %.1f MB before, "
	       "%.1f MB at most during the attack (send budget %.1f MB); %lld "
	       "bytes still queued, %lld slow readers dropped\n", open,
	       before / 1048576.0, peak / 1048576.0, budget / 1048576.0, queued,
	       dropped);
	CHECK(open == 2 * GROUP + 1, "%u of %d attackers connected", open,
	      2 * GROUP + 1);
	CHECK(peak - before < budget + headroom, "the daemon grew by %.1f MB "
	      "under the attack, more than its send budget (%.1f MB) and %.0f MB",
	      (peak - before) / 1048576.0, budget / 1048576.0,
	      headroom / 1048576.0);
	CHECK(queued >= 0 && queued <= budget, "%lld bytes queued, more than the "
	      "budget", queued);
	CHECK(dropped > 0, "no slow reader was dropped (%lld)", dropped);
	for (unsigned i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	CHECK(wait_gauge(metrics_hostport, "gpuperf_send_queue_bytes", 0),
	      "the queues are empty once the attackers are gone");
	section(NULL);
}

int main(int argc, char **argv)
{
	bool plain = argc == 7 && !strcmp(argv[1], "plain");
	bool tls = argc == 5 && !strcmp(argv[1], "tls");
	bool web = argc == 4 && !strcmp(argv[1], "web");
	bool flood = argc == 6 && !strcmp(argv[1], "flood");
	bool amplify = argc == 6 && !strcmp(argv[1], "amplify");
	if (!plain && !tls && !web && !flood && !amplify) {
		fprintf(stderr, "usage: server-checks plain LOCAL REMOTE UNIX "
			"METRICS_HOST:PORT OUT\n"
			"       server-checks tls WSS_URL CA_FILE RECORDING_OUT\n"
			"       server-checks web HOST:PORT INDEX_TEXT\n"
			"       server-checks flood REMOTE LOCAL UNIX METRICS_HOST:PORT\n"
			"       server-checks amplify LOCAL DAEMON_PID METRICS_HOST:PORT "
			"BUDGET\n");
		return 2;
	}
	/* The raw client is not needed over TLS. */
	if (!tls && wsc_ctx_init(&ctx, NULL)) {
		fprintf(stderr, "server-checks: cannot start libwebsockets\n");
		return 1;
	}
	if (plain)
		run_plain(argv + 2);
	else if (tls)
		run_tls(argv + 2);
	else if (flood)
		run_flood(argv + 2);
	else if (amplify)
		run_amplify(argv + 2);
	else
		run_web(argv + 2);
	if (!tls)
		wsc_ctx_fini(&ctx);
	printf("server-checks %s: %u passed, %u failed\n", argv[1], passed, failed);
	return failed ? 1 : 0;
}
