/*
 * Offering a command's contexts: what libgpuperf-preload.so, inside the
 * command, and `gpuperf run --own-contexts` say to each other.
 *
 * gpuperf run listens on a SOCK_SEQPACKET Unix socket in a directory of
 * its own (mode 0700) and names it to the command in the environment
 * (GPUPERF_OFFER_SOCKET), beside LD_PRELOAD. After each context or exec
 * queue the command creates, the preload connects, sends one
 * gpuperf_offer with the DRM file in SCM_RIGHTS, and waits for one
 * gpuperf_offer_reply before the create returns, so that nothing the
 * context runs is missed. The file reaches the daemon only as the command
 * passed it: gpuperf run hands it on with gpc_subscribe_context() and
 * closes its copy.
 */
#ifndef GPUPERF_PRELOAD_OFFER_H
#define GPUPERF_PRELOAD_OFFER_H

#include <stdint.h>

#define GPUPERF_OFFER_SOCKET_ENV "GPUPERF_OFFER_SOCKET"
/* "gpo1": both ends of one version. */
#define GPUPERF_OFFER_MAGIC 0x67706f31u
/* How long a create waits for gpuperf run's answer. The daemon opens the
 * stream in that time; on a loaded machine that takes seconds. */
#define GPUPERF_OFFER_TIMEOUT_MS 10000

enum gpuperf_offer_kind {
	GPUPERF_OFFER_NONE = 0,
	GPUPERF_OFFER_I915_CONTEXT = 1,     /* a GEM context handle */
	GPUPERF_OFFER_XE_EXEC_QUEUE = 2,    /* an exec queue id */
};

struct gpuperf_offer {
	uint32_t magic;
	uint32_t kind;                  /* enum gpuperf_offer_kind */
	uint32_t id;                    /* the handle or queue id created */
	int32_t pid;                    /* the process that created it */
};

enum gpuperf_offer_status {
	GPUPERF_OFFER_MEASURED = 0,     /* streamed from now on */
	/* Not measured, as documented (the run measures one context); the
	 * preload stays quiet, gpuperf run counts it. */
	GPUPERF_OFFER_DECLINED = 1,
	/* Not measured because something failed: the message says what. */
	GPUPERF_OFFER_FAILED = 2,
};

struct gpuperf_offer_reply {
	uint32_t magic;
	uint32_t status;                /* enum gpuperf_offer_status */
	char message[248];              /* NUL-terminated words */
};

/* The kind of context a successful ioctl request creates, by the uAPI's
 * numbers; GPUPERF_OFFER_NONE for every other request. */
enum gpuperf_offer_kind gpuperf_offer_kind_of(unsigned long request);

/* The handle or queue id that a successful create of kind wrote into
 * its argument. */
uint32_t gpuperf_offer_created_id(enum gpuperf_offer_kind kind, const void *arg);

/* "GEM context", "exec queue". */
const char *gpuperf_offer_kind_name(enum gpuperf_offer_kind kind);

#endif
