/*
 * The contexts a command offers to gpuperf run --own-contexts: the
 * listening end of client/preload/offer.h.
 *
 * gpuperf run makes a directory of its own (mode 0700, under
 * $XDG_RUNTIME_DIR or /tmp) holding one SOCK_SEQPACKET socket, which it
 * names to the command in GPUPERF_OFFER_SOCKET. Each offer arrives on a
 * connection of its own with the DRM file in SCM_RIGHTS; the creating
 * ioctl waits in the command until gpuperf run answers it.
 */
#ifndef GPUPERF_CONTEXT_OFFERS_H
#define GPUPERF_CONTEXT_OFFERS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <uv.h>

#include "client/preload/offer.h"

/* Offers waiting for an answer at once; more are turned away. */
#define GPUPERF_OFFERS_MAX_PENDING 16

struct gpuperf_offers;

/* One offer: the command's DRM file (this process's copy) and what was
 * created on it. */
struct gpuperf_offer_received {
	int drm_fd;
	enum gpuperf_offer_kind kind;
	uint32_t id;
	pid_t pid;
	unsigned conn;                  /* where the answer goes */
};

/* An offer came in; answer it now or later with gpuperf_offers_answer(). */
typedef void (*gpuperf_offer_cb)(struct gpuperf_offers *offers,
				 const struct gpuperf_offer_received *offer,
				 void *user);

struct gpuperf_offer_conn {
	struct gpuperf_offers *offers;
	uv_poll_t poll;
	int fd;                         /* -1: the slot is free */
	bool closing;
};

struct gpuperf_offers {
	uv_loop_t *loop;
	gpuperf_offer_cb cb;
	void *user;
	char dir[4096];
	char path[4200];
	int listen_fd;
	uv_poll_t listen_poll;
	bool listening;
	struct gpuperf_offer_conn conns[GPUPERF_OFFERS_MAX_PENDING];
	uint64_t turned_away;           /* offers past the pending limit */
};

/* Makes the directory and the socket and listens on loop: 0, or -errno
 * with what failed in err. */
int gpuperf_offers_open(struct gpuperf_offers *offers, uv_loop_t *loop,
			gpuperf_offer_cb cb, void *user, char *err,
			size_t err_size);

/* Answers an offer: status and words (for GPUPERF_OFFER_FAILED, what the
 * command's standard error will say), then closes the connection and
 * this process's copy of the file. */
void gpuperf_offers_answer(struct gpuperf_offers *offers,
			   const struct gpuperf_offer_received *offer,
			   enum gpuperf_offer_status status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Stops listening, removes the socket and its directory; offers not yet
 * answered lose their connection (the command's create goes on). The
 * handles close with the loop's next turns. */
void gpuperf_offers_close(struct gpuperf_offers *offers);

#endif
