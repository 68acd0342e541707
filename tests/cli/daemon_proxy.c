/*
 * daemon-proxy: a WebSocket proxy between gpuperf and gpuperfd's Unix
 * socket that changes what the daemon says in one chosen way, so that a
 * client meets, every time, an order or a message a real daemon sends
 * only by chance or not at all.
 *
 *   daemon-proxy LISTEN_PATH DAEMON_PATH ack-with-frame
 *       holds each Subscribed until the subscription's first Frame and
 *       writes both to the client in one write(2): the client reads them
 *       together, so the frame is handled before its gpc_subscribe_sync()
 *       has returned.
 *   daemon-proxy LISTEN_PATH DAEMON_PATH recording-offset OFFSET
 *       gives every recording's second RecordingData the offset OFFSET
 *       instead of the one that follows the first.
 *   daemon-proxy LISTEN_PATH DAEMON_PATH snapshot-stalls
 *       passes on each snapshot's first SnapshotData, then nothing more
 *       of that connection: the client is left mid-transfer, holding part
 *       of a file, for as long as the test wants.
 *
 * The handshake passes through unchanged (the daemon answers the client's
 * key); the client's frames too. The daemon's binary messages are decoded
 * as Envelopes, changed and framed again. Connections are served one at a
 * time. On SIGTERM it prints what it changed, "daemon-proxy: N changed",
 * and exits 0.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "proto/gpuperf.pb-c.h"

enum mode { ACK_WITH_FRAME, RECORDING_OFFSET, SNAPSHOT_STALLS };

struct buffer {
	unsigned char *data;
	size_t len, cap;
};

struct proxy {
	enum mode mode;
	uint64_t offset;                /* RECORDING_OFFSET */
	unsigned long changed;
	/* The connection being served. */
	int client, daemon;
	bool upgraded;                  /* the daemon's 101 went through */
	struct buffer from_daemon;      /* bytes not yet a whole frame */
	struct buffer held;             /* ACK_WITH_FRAME: a Subscribed and
					 * what followed it; SNAPSHOT_STALLS:
					 * what followed a SnapshotData */
	bool stalled;                   /* SNAPSHOT_STALLS: holding for good */
	uint32_t held_id;
	unsigned recording_chunks;      /* RECORDING_OFFSET: of the recording */
};

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "daemon-proxy: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void append(struct buffer *b, const void *data, size_t len)
{
	if (b->len + len > b->cap) {
		b->cap = (b->len + len) * 2;
		b->data = realloc(b->data, b->cap);
		if (!b->data)
			die("realloc");
	}
	memcpy(b->data + b->len, data, len);
	b->len += len;
}

static void consume(struct buffer *b, size_t n)
{
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
}

/* The whole buffer in one write(2) where the socket takes it. */
static int send_all(int fd, const unsigned char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A server's frame (unmasked): FIN, binary, payload. */
static void frame_binary(struct buffer *out, const unsigned char *payload,
			 size_t len)
{
	unsigned char h[10];
	size_t n = 2;

	h[0] = 0x82;
	if (len < 126) {
		h[1] = (unsigned char)len;
	} else if (len <= 0xffff) {
		h[1] = 126;
		h[2] = (unsigned char)(len >> 8);
		h[3] = (unsigned char)len;
		n = 4;
	} else {
		h[1] = 127;
		for (int i = 0; i < 8; i++)
			h[2 + i] = (unsigned char)((uint64_t)len >> (56 - 8 * i));
		n = 10;
	}
	append(out, h, n);
	append(out, payload, len);
}

/* env, changed or not, as one frame for the client; *release says the
 * held bytes may go now. */
static void meddle(struct proxy *p, Gpuperf__Envelope *env, struct buffer *out,
		   bool *hold, bool *release)
{
	switch (p->mode) {
	case ACK_WITH_FRAME:
		if (env->kind_case == GPUPERF__ENVELOPE__KIND_SUBSCRIBED &&
		    !p->held.len) {
			*hold = true;
			p->held_id = env->subscribed->subscription_id;
		} else if (env->kind_case == GPUPERF__ENVELOPE__KIND_FRAME &&
			   p->held.len &&
			   env->frame->subscription_id == p->held_id) {
			*release = true;
			p->changed++;
		}
		break;
	case RECORDING_OFFSET:
		if (env->kind_case == GPUPERF__ENVELOPE__KIND_RECORDING_STARTED)
			p->recording_chunks = 0;
		if (env->kind_case == GPUPERF__ENVELOPE__KIND_RECORDING_DATA &&
		    ++p->recording_chunks == 2) {
			env->recording_data->offset = p->offset;
			p->changed++;
		}
		break;
	case SNAPSHOT_STALLS:
		if (p->stalled) {
			*hold = true;
		} else if (env->kind_case ==
			   GPUPERF__ENVELOPE__KIND_SNAPSHOT_DATA) {
			p->stalled = true;
			p->changed++;
		}
		break;
	}
	size_t len = gpuperf__envelope__get_packed_size(env);
	unsigned char *packed = malloc(len ? len : 1);
	if (!packed)
		die("malloc");
	gpuperf__envelope__pack(env, packed);
	frame_binary(out, packed, len);
	free(packed);
}

/* Passes on every whole frame of the daemon's bytes. */
static int from_daemon(struct proxy *p)
{
	struct buffer *in = &p->from_daemon;

	if (!p->upgraded) {
		unsigned char *end = memmem(in->data, in->len, "\r\n\r\n", 4);
		if (!end)
			return 0;
		size_t n = (size_t)(end + 4 - in->data);
		if (send_all(p->client, in->data, n))
			return -1;
		consume(in, n);
		p->upgraded = true;
	}
	while (in->len >= 2) {
		const unsigned char *d = in->data;
		size_t header = 2;
		uint64_t len = d[1] & 0x7f;
		if (len == 126) {
			header = 4;
			if (in->len < header)
				return 0;
			len = (uint64_t)d[2] << 8 | d[3];
		} else if (len == 127) {
			header = 10;
			if (in->len < header)
				return 0;
			len = 0;
			for (int i = 0; i < 8; i++)
				len = len << 8 | d[2 + i];
		}
		if (in->len - header < len)
			return 0;
		struct buffer out = { 0 };
		bool hold = false, release = false;
		Gpuperf__Envelope *env = NULL;
		/* Only whole, uncompressed binary messages are decoded. */
		if (d[0] == 0x82)
			env = gpuperf__envelope__unpack(NULL, (size_t)len,
							d + header);
		if (env) {
			meddle(p, env, &out, &hold, &release);
			gpuperf__envelope__free_unpacked(env, NULL);
		} else {
			append(&out, d, header + (size_t)len);
		}
		consume(in, header + (size_t)len);
		if (hold || p->held.len) {
			append(&p->held, out.data, out.len);
			if (release) {
				if (send_all(p->client, p->held.data, p->held.len))
					return -1;
				p->held.len = 0;
			}
		} else if (send_all(p->client, out.data, out.len)) {
			return -1;
		}
		free(out.data);
	}
	return 0;
}

static int connect_daemon(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die(path);
	return fd;
}

static void serve(struct proxy *p, const char *daemon_path)
{
	unsigned char buf[65536];

	p->daemon = connect_daemon(daemon_path);
	p->upgraded = false;
	p->from_daemon.len = 0;
	p->held.len = 0;
	p->stalled = false;
	while (!stop) {
		struct pollfd fds[2] = {
			{ .fd = p->client, .events = POLLIN },
			{ .fd = p->daemon, .events = POLLIN },
		};
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		if (fds[0].revents) {
			ssize_t n = read(p->client, buf, sizeof(buf));
			if (n <= 0 || send_all(p->daemon, buf, (size_t)n))
				break;
		}
		if (fds[1].revents) {
			ssize_t n = read(p->daemon, buf, sizeof(buf));
			if (n <= 0)
				break;
			append(&p->from_daemon, buf, (size_t)n);
			if (from_daemon(p))
				break;
		}
	}
	close(p->daemon);
	close(p->client);
}

int main(int argc, char **argv)
{
	struct proxy p = { 0 };

	if (argc == 4 && !strcmp(argv[3], "ack-with-frame")) {
		p.mode = ACK_WITH_FRAME;
	} else if (argc == 5 && !strcmp(argv[3], "recording-offset")) {
		p.mode = RECORDING_OFFSET;
		p.offset = strtoull(argv[4], NULL, 0);
	} else if (argc == 4 && !strcmp(argv[3], "snapshot-stalls")) {
		p.mode = SNAPSHOT_STALLS;
	} else {
		fprintf(stderr, "usage: daemon-proxy LISTEN_PATH DAEMON_PATH "
			"ack-with-frame|recording-offset OFFSET|snapshot-stalls\n");
		return 2;
	}
	struct sigaction sa = { .sa_handler = on_term };
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", argv[1]);
	int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	unlink(argv[1]);
	if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(listener, 8))
		die(argv[1]);
	fprintf(stderr, "daemon-proxy: ready on %s\n", argv[1]);
	while (!stop) {
		p.client = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
		if (p.client < 0) {
			if (errno == EINTR)
				continue;
			die("accept");
		}
		serve(&p, argv[2]);
	}
	close(listener);
	unlink(argv[1]);
	free(p.from_daemon.data);
	free(p.held.data);
	fprintf(stderr, "daemon-proxy: %lu changed\n", p.changed);
	return 0;
}
