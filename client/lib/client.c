/*
 * A client's life: connecting and the Hello, requests and the replies
 * routed back to them, waiting on the loop, and closing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client/lib/client_internal.h"

#define DEFAULT_TIMEOUT_MS 10000

static char *copy_string(const char *s, bool *failed)
{
	if (!s)
		return NULL;
	char *copy = strdup(s);
	if (!copy)
		*failed = true;
	return copy;
}

void gpc__client_enter(struct gpc_client *c)
{
	c->dispatching++;
}

void gpc__client_leave(struct gpc_client *c)
{
	c->dispatching--;
}

/* ------------------------------------------------------------------ */
/* Requests                                                             */

int64_t gpc__client_request(struct gpc_client *c, Gpuperf__Envelope *env,
			    int kind, void *target, gpc_done_cb cb, void *user)
{
	struct gpc__request *req = NULL;

	if (c->state != GPC__CONNECTED && !(c->state == GPC__CONNECTING &&
					     kind == GPC__REQUEST_AUTH))
		return -ENOTCONN;
	if (kind >= 0) {
		req = calloc(1, sizeof(*req));
		if (!req)
			return -ENOMEM;
	}
	env->request_id = c->next_request_id++;
	int ret = gpc__transport_send(c, env);
	if (ret) {
		free(req);
		return ret;
	}
	if (req) {
		req->id = env->request_id;
		req->kind = (enum gpc__request_kind)kind;
		req->target = target;
		req->cb = cb;
		req->user = user;
		req->next = c->requests;
		c->requests = req;
	}
	return (int64_t)env->request_id;
}

static struct gpc__request *take_request(struct gpc_client *c, uint64_t id)
{
	if (!id)
		return NULL;
	for (struct gpc__request **p = &c->requests; *p; p = &(*p)->next) {
		struct gpc__request *req = *p;
		if (req->id == id) {
			*p = req->next;
			return req;
		}
	}
	return NULL;
}

void gpc__client_forget_target(struct gpc_client *c, const void *target)
{
	for (struct gpc__request *req = c->requests; req; req = req->next) {
		if (req->target == target) {
			req->target = NULL;
			req->cb = NULL;
		}
	}
}

/* Every waiting request learns that no answer will come. */
static void fail_requests(struct gpc_client *c, const struct gpc_error *err)
{
	while (c->requests) {
		struct gpc__request *req = c->requests;
		c->requests = req->next;
		if (req->kind == GPC__REQUEST_SUBSCRIBE && req->target)
			gpc__subscription_refused(req->target, err);
		else if (req->kind == GPC__REQUEST_SUBSCRIBE_USAGE && req->target)
			gpc__usage_refused(req->target, err);
		else if (req->kind == GPC__REQUEST_RECORD && req->target)
			gpc__recording_refused(req->target, err);
		else if (req->kind == GPC__REQUEST_SNAPSHOT && req->target)
			gpc__snapshot_refused(req->target, err);
		else if (req->cb)
			req->cb(c, err, req->user);
		free(req);
	}
}

/* ------------------------------------------------------------------ */
/* Connecting                                                           */

static void connect_done(struct gpc_client *c, const struct gpc_error *err)
{
	gpc_connect_cb cb = c->connect_cb;

	c->connect_cb = NULL;
	uv_timer_stop(&c->timer);
	if (cb)
		cb(c, err, c->connect_user);
}

static void connected(struct gpc_client *c)
{
	c->state = GPC__CONNECTED;
	connect_done(c, NULL);
}

/* The connection ends with err; the client waits to be closed. */
static void disconnect(struct gpc_client *c, const struct gpc_error *err)
{
	enum gpc__state was = c->state;

	if (was == GPC__DISCONNECTED || was == GPC__CLOSING)
		return;
	c->state = GPC__DISCONNECTED;
	if (!c->has_ended) {
		c->ended = *err;
		c->has_ended = true;
	}
	if (c->wsi && !c->want_close)
		gpc__transport_abandon(c);
	fail_requests(c, &c->ended);
	gpc__recordings_lost(c, &c->ended);
	gpc__snapshots_lost(c, &c->ended);
	if (was == GPC__CONNECTED) {
		if (c->disconnect_cb)
			c->disconnect_cb(c, &c->ended, c->disconnect_user);
	} else {
		connect_done(c, &c->ended);
	}
}

/* The connect deadline, or a failure to report outside the call that
 * met it. */
static void connect_timer(uv_timer_t *t)
{
	struct gpc_client *c = t->data;
	struct gpc_error err;

	gpc__client_enter(c);
	if (c->state == GPC__DISCONNECTED) {
		connect_done(c, &c->ended);
	} else if (c->state == GPC__CONNECTING ||
		   c->state == GPC__AUTHENTICATING) {
		gpc__error_set(&err, -ETIMEDOUT, "the daemon did not answer "
			       "within %u ms", c->options.timeout_ms);
		disconnect(c, &err);
	}
	gpc__client_leave(c);
}

void gpc__client_transport_ended(struct gpc_client *c,
				 const struct gpc_error *err)
{
	struct gpc_error reset;

	if (c->state == GPC__CLOSING) {
		gpc__transport_shutdown(c);
		return;
	}
	if (!err) {
		gpc__error_set(&reset, -ECONNRESET, "the connection ended");
		err = &reset;
	}
	if (c->state == GPC__CONNECTING && !c->established) {
		/* Possibly still inside gpc_connect(): report from the loop. */
		c->state = GPC__DISCONNECTED;
		c->ended = *err;
		c->has_ended = true;
		uv_timer_start(&c->timer, connect_timer, 0, 0);
		return;
	}
	gpc__client_enter(c);
	disconnect(c, err);
	gpc__client_leave(c);
}

void gpc__client_transport_gone(struct gpc_client *c)
{
	gpc_close_cb cb = c->close_cb;
	void *user = c->close_user;

	gpc__catalog_fini(&c->catalog);
	free(c->rx);
	free(c->host);
	free(c->unix_path);
	free(c->token);
	free(c->tls_ca_file);
	if (c->owns_loop) {
		/* gpc_close_sync frees it once the loop has stopped. */
		c->freed = true;
		return;
	}
	free(c);
	if (cb)
		cb(user);
}

static void lower_role(struct gpc_client *c)
{
	Gpuperf__Auth auth = GPUPERF__AUTH__INIT;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;
	struct gpc_error err;

	auth.token = "";
	auth.role = GPUPERF__ROLE__ROLE_VIEWER;
	env.kind_case = GPUPERF__ENVELOPE__KIND_AUTH;
	env.auth = &auth;
	int64_t id = gpc__client_request(c, &env, GPC__REQUEST_AUTH, NULL,
					 NULL, NULL);
	if (id < 0) {
		gpc__error_set(&err, (int)id, "cannot ask for the viewer role: "
			       "%s", gpc_strerror((int)id));
		disconnect(c, &err);
		return;
	}
	c->state = GPC__AUTHENTICATING;
}

static void receive_hello(struct gpc_client *c, Gpuperf__Envelope *env)
{
	struct gpc_error err;
	unsigned version = env->hello->protocol_version;

	if (version != GPC_PROTOCOL_VERSION) {
		gpuperf__envelope__free_unpacked(env, NULL);
		gpc__error_set(&err, -ENOTSUP, "the daemon speaks protocol "
			       "version %u; this client speaks %u", version,
			       GPC_PROTOCOL_VERSION);
		disconnect(c, &err);
		return;
	}
	struct gpc__request *req = take_request(c, env->request_id);
	free(req);
	if (gpc__catalog_load(&c->catalog, env)) {
		gpc__error_set(&err, -ENOMEM, "out of memory reading the "
			       "daemon's Hello");
		disconnect(c, &err);
		return;
	}
	if (c->state == GPC__CONNECTING &&
	    c->options.role == GPC_ROLE_VIEWER &&
	    c->catalog.server.role != GPC_ROLE_VIEWER)
		lower_role(c);
	else if (c->state == GPC__CONNECTING || c->state == GPC__AUTHENTICATING)
		connected(c);
}

static void receive_error(struct gpc_client *c, const Gpuperf__Envelope *env)
{
	struct gpc_error err;
	struct gpc__request *req = take_request(c, env->request_id);

	gpc__error_from_server(&err, env->error);
	if (!req || req->kind == GPC__REQUEST_AUTH) {
		/* The daemon's own, or about the connection: it closes next,
		 * and this is why. */
		free(req);
		if (!c->has_ended) {
			c->ended = err;
			c->has_ended = true;
		}
		if (c->state == GPC__CONNECTING ||
		    c->state == GPC__AUTHENTICATING)
			disconnect(c, &err);
		return;
	}
	if (req->kind == GPC__REQUEST_SUBSCRIBE && req->target)
		gpc__subscription_refused(req->target, &err);
	else if (req->kind == GPC__REQUEST_SUBSCRIBE_USAGE && req->target)
		gpc__usage_refused(req->target, &err);
	else if (req->kind == GPC__REQUEST_RECORD && req->target)
		gpc__recording_refused(req->target, &err);
	else if (req->kind == GPC__REQUEST_SNAPSHOT && req->target)
		gpc__snapshot_refused(req->target, &err);
	else if (req->cb)
		req->cb(c, &err, req->user);
	free(req);
}

/* A reply that only completes its request. */
static void complete(struct gpc_client *c, uint64_t id)
{
	struct gpc__request *req = take_request(c, id);

	if (req && req->cb)
		req->cb(c, NULL, req->user);
	free(req);
}

static void send_unsubscribe(struct gpc_client *c, uint32_t id)
{
	Gpuperf__Unsubscribe m = GPUPERF__UNSUBSCRIBE__INIT;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;

	m.subscription_id = id;
	env.kind_case = GPUPERF__ENVELOPE__KIND_UNSUBSCRIBE;
	env.unsubscribe = &m;
	gpc__client_request(c, &env, -1, NULL, NULL, NULL);
}

static void send_stop_recording(struct gpc_client *c, uint32_t id)
{
	Gpuperf__StopRecording m = GPUPERF__STOP_RECORDING__INIT;
	Gpuperf__Envelope env = GPUPERF__ENVELOPE__INIT;

	m.recording_id = id;
	env.kind_case = GPUPERF__ENVELOPE__KIND_STOP_RECORDING;
	env.stop_recording = &m;
	gpc__client_request(c, &env, -1, NULL, NULL, NULL);
}

/* Takes env. */
static void route(struct gpc_client *c, Gpuperf__Envelope *env)
{
	struct gpc__request *req;

	switch (env->kind_case) {
	case GPUPERF__ENVELOPE__KIND_HELLO:
		receive_hello(c, env);
		return;
	case GPUPERF__ENVELOPE__KIND_ERROR:
		receive_error(c, env);
		break;
	case GPUPERF__ENVELOPE__KIND_FRAME:
		gpc__subscription_frame(c, env->frame);
		break;
	case GPUPERF__ENVELOPE__KIND_EVENT:
		gpc__subscription_event(c, env);
		return;
	case GPUPERF__ENVELOPE__KIND_RECORDING_DATA:
		gpc__recording_data(c, env->recording_data);
		break;
	case GPUPERF__ENVELOPE__KIND_RECORDING_STOPPED:
		free(take_request(c, env->request_id));
		gpc__recording_stopped(c, env->recording_stopped);
		break;
	case GPUPERF__ENVELOPE__KIND_SUBSCRIBED:
		req = take_request(c, env->request_id);
		if (req && req->target) {
			struct gpc_subscription *sub = req->target;
			free(req);
			gpc__subscription_granted(sub, env);
			return;
		}
		/* Its handle went first: end it on the daemon too. */
		if (req)
			send_unsubscribe(c, env->subscribed->subscription_id);
		free(req);
		break;
	case GPUPERF__ENVELOPE__KIND_USAGE_SUBSCRIBED:
		req = take_request(c, env->request_id);
		if (req && req->target) {
			struct gpc_usage_subscription *u = req->target;
			free(req);
			gpc__usage_granted(u, env);
			return;
		}
		if (req)
			send_unsubscribe(c,
					 env->usage_subscribed->subscription_id);
		free(req);
		break;
	case GPUPERF__ENVELOPE__KIND_USAGE_FRAME:
		gpc__usage_frame(c, env->usage_frame);
		break;
	case GPUPERF__ENVELOPE__KIND_RECONFIGURED:
		req = take_request(c, env->request_id);
		if (req && req->target) {
			struct gpc_subscription *sub = req->target;
			gpc_done_cb cb = req->cb;
			void *user = req->user;
			free(req);
			gpc__subscription_reconfigured(sub, env);
			if (cb)
				cb(c, NULL, user);
			return;
		}
		free(req);
		break;
	case GPUPERF__ENVELOPE__KIND_RECORDING_STARTED:
		req = take_request(c, env->request_id);
		if (req && req->target)
			gpc__recording_started(req->target, env);
		else if (req)
			send_stop_recording(c, env->recording_started->recording_id);
		free(req);
		break;
	case GPUPERF__ENVELOPE__KIND_SNAPSHOT_STARTED:
		req = take_request(c, env->request_id);
		if (req && req->target) {
			struct gpc_snapshot *snap = req->target;
			free(req);
			gpc__snapshot_started(snap, env);
			return;
		}
		/* Its handle went first: its bytes are dropped as they come. */
		free(req);
		break;
	case GPUPERF__ENVELOPE__KIND_SNAPSHOT_DATA:
		gpc__snapshot_data(c, env->snapshot_data);
		break;
	case GPUPERF__ENVELOPE__KIND_SNAPSHOT_DONE:
		gpc__snapshot_done(c, env->snapshot_done);
		break;
	case GPUPERF__ENVELOPE__KIND_UNSUBSCRIBED:
	case GPUPERF__ENVELOPE__KIND_MARK_ACCEPTED:
		complete(c, env->request_id);
		break;
	default:
		/* Pongs, and kinds a later protocol may add. */
		break;
	}
	gpuperf__envelope__free_unpacked(env, NULL);
}

void gpc__client_receive(struct gpc_client *c, const void *data, size_t len)
{
	struct gpc_error err;

	if (c->state == GPC__CLOSING || c->state == GPC__DISCONNECTED)
		return;
	Gpuperf__Envelope *env = gpuperf__envelope__unpack(NULL, len, data);
	gpc__client_enter(c);
	if (!env) {
		gpc__error_set(&err, -EPROTO, "the daemon sent a message that "
			       "is not a gpuperf Envelope; is this gpuperfd?");
		disconnect(c, &err);
	} else if (c->state != GPC__CONNECTED &&
		   env->kind_case != GPUPERF__ENVELOPE__KIND_HELLO &&
		   env->kind_case != GPUPERF__ENVELOPE__KIND_ERROR) {
		gpuperf__envelope__free_unpacked(env, NULL);
		gpc__error_set(&err, -EPROTO, "the daemon did not start with "
			       "Hello");
		disconnect(c, &err);
	} else {
		route(c, env);
	}
	gpc__client_leave(c);
}

int gpc_connect(const struct gpc_connect_options *options, gpc_connect_cb cb,
		void *user, struct gpc_client **out)
{
	struct gpc_error err;
	bool failed = false;

	*out = NULL;
	if (!options || options->port > 65535)
		return -EINVAL;
	struct gpc_client *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->options = *options;
	if (!c->options.port)
		c->options.port = GPC_DEFAULT_PORT;
	if (!c->options.timeout_ms)
		c->options.timeout_ms = DEFAULT_TIMEOUT_MS;
	c->host = copy_string(options->host ? options->host : GPC_DEFAULT_HOST,
			      &failed);
	c->unix_path = copy_string(options->unix_path, &failed);
	c->token = copy_string(options->token, &failed);
	c->tls_ca_file = copy_string(options->tls_ca_file, &failed);
	c->options.host = c->host;
	c->options.unix_path = c->unix_path;
	c->options.token = c->token;
	c->options.tls_ca_file = c->tls_ca_file;
	c->connect_cb = cb;
	c->connect_user = user;
	c->next_request_id = 1;
	c->state = GPC__CONNECTING;
	if (options->loop) {
		c->loop = options->loop;
	} else if (!failed) {
		if (uv_loop_init(&c->own_loop)) {
			failed = true;
		} else {
			c->loop = &c->own_loop;
			c->owns_loop = true;
		}
	}
	if (failed) {
		gpc__client_transport_gone(c);
		return -ENOMEM;
	}
	uv_timer_init(c->loop, &c->timer);
	uv_timer_init(c->loop, &c->wait_timer);
	c->timer.data = c;
	c->wait_timer.data = c;
	c->open_handles = 2;
	*out = c;
	if (gpc__transport_start(c, &err)) {
		/* Reported through cb, from the loop, like any failure. */
		c->state = GPC__DISCONNECTED;
		c->ended = err;
		c->has_ended = true;
	}
	if (c->state == GPC__DISCONNECTED)
		uv_timer_start(&c->timer, connect_timer, 0, 0);
	else
		uv_timer_start(&c->timer, connect_timer, c->options.timeout_ms, 0);
	return 0;
}

struct sync_result {
	bool done;
	struct gpc_error err;
	bool failed;
};

static void sync_connected(struct gpc_client *c, const struct gpc_error *err,
			   void *user)
{
	struct sync_result *r = user;

	r->done = true;
	if (err) {
		r->err = *err;
		r->failed = true;
	}
}

int gpc_connect_sync(const struct gpc_connect_options *options,
		     struct gpc_client **out, struct gpc_error *err)
{
	struct sync_result r = { 0 };
	struct gpc_client *c;

	int ret = gpc_connect(options, sync_connected, &r, &c);
	if (ret) {
		gpc__error_set(err, ret, "%s", gpc_strerror(ret));
		*out = NULL;
		return ret;
	}
	ret = gpc__client_wait(c, &r.done, 0, NULL);
	if (!r.done) {
		gpc__error_set(&r.err, ret ? ret : -ECONNRESET, "%s",
			       gpc_strerror(ret ? ret : -ECONNRESET));
		r.failed = true;
	}
	if (r.failed) {
		if (err)
			*err = r.err;
		gpc_close_sync(c);
		*out = NULL;
		return r.err.code;
	}
	*out = c;
	return 0;
}

void gpc_set_disconnect_cb(struct gpc_client *c, gpc_done_cb cb, void *user)
{
	c->disconnect_cb = cb;
	c->disconnect_user = user;
}

bool gpc_is_connected(const struct gpc_client *c)
{
	return c->state == GPC__CONNECTED;
}

uv_loop_t *gpc_loop(const struct gpc_client *c)
{
	return c->loop;
}

/* ------------------------------------------------------------------ */
/* Waiting                                                              */

static void wait_expired(uv_timer_t *t)
{
	struct gpc_client *c = t->data;

	c->wait_expired = true;
}

int gpc__client_wait(struct gpc_client *c, const bool *done,
		     unsigned timeout_ms, struct gpc_error *err)
{
	if (c->dispatching) {
		gpc__error_set(err, -EDEADLK, "%s", gpc_strerror(-EDEADLK));
		return -EDEADLK;
	}
	c->wait_expired = false;
	c->stop_requested = false;
	if (timeout_ms)
		uv_timer_start(&c->wait_timer, wait_expired, timeout_ms, 0);
	bool alive = true;
	while (!(done && *done) && !c->wait_expired && !c->stop_requested &&
	       alive && !(c->freed))
		alive = uv_run(c->loop, UV_RUN_ONCE) != 0;
	uv_timer_stop(&c->wait_timer);
	if (done && *done)
		return 0;
	if (c->state == GPC__DISCONNECTED) {
		if (err)
			*err = c->ended;
		return c->ended.code;
	}
	if (c->wait_expired) {
		gpc__error_set(err, -ETIMEDOUT, "the daemon did not answer "
			       "within %u ms", timeout_ms);
		return -ETIMEDOUT;
	}
	return 0;
}

int gpc_run(struct gpc_client *c, unsigned timeout_ms)
{
	int ret = gpc__client_wait(c, NULL, timeout_ms, NULL);
	return ret == -ETIMEDOUT ? 0 : ret;
}

void gpc_stop(struct gpc_client *c)
{
	/* Waits run the loop one turn at a time and look at this after
	 * each; uv_stop would also stop a caller's own uv_run. */
	c->stop_requested = true;
}

/* ------------------------------------------------------------------ */
/* Closing                                                              */

static void begin_close(struct gpc_client *c, gpc_close_cb cb, void *user)
{
	struct gpc_error err;

	if (c->state == GPC__CLOSING)
		return;
	c->state = GPC__CLOSING;
	c->close_cb = cb;
	c->close_user = user;
	c->connect_cb = NULL;
	uv_timer_stop(&c->timer);
	gpc__error_set(&err, -ECANCELED, "%s", gpc_strerror(-ECANCELED));
	gpc__client_enter(c);
	fail_requests(c, &err);
	gpc__client_leave(c);
	gpc__queries_free(c);
	gpc__subscriptions_free(c);
	gpc__usage_free_all(c);
	gpc__recordings_free(c);
	gpc__snapshots_free(c);
	gpc__transport_shutdown(c);
}

int gpc_close(struct gpc_client *c, gpc_close_cb cb, void *user)
{
	if (c->owns_loop)
		return -EINVAL;
	begin_close(c, cb, user);
	return 0;
}

static void closed_sync(void *user)
{
	*(bool *)user = true;
}

static void close_forgotten(uv_handle_t *h, void *arg)
{
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

void gpc_close_sync(struct gpc_client *c)
{
	if (!c)
		return;
	if (!c->owns_loop) {
		bool done = false;
		bool inside = c->dispatching > 0;
		/* After gpc_close its own callback says when it is over. */
		if (c->state == GPC__CLOSING)
			return;
		begin_close(c, inside ? NULL : closed_sync, inside ? NULL : &done);
		/* The caller's loop may hold other handles: run it only
		 * until this client is gone. */
		while (!inside && !done)
			uv_run(c->loop, UV_RUN_ONCE);
		return;
	}
	begin_close(c, NULL, NULL);
	/* From inside a callback the loop cannot run again: a later call
	 * from outside finishes. */
	if (c->dispatching)
		return;
	while (!c->freed)
		uv_run(&c->own_loop, UV_RUN_ONCE);
	/* Whatever libwebsockets still closes goes now; a handle its
	 * failure paths forgot is closed here, the loop being ours alone. */
	uv_run(&c->own_loop, UV_RUN_DEFAULT);
	uv_walk(&c->own_loop, close_forgotten, NULL);
	uv_run(&c->own_loop, UV_RUN_DEFAULT);
	uv_loop_close(&c->own_loop);
	free(c);
}
