/*
 * Triggers: a condition over a counter's windows, such as
 * `GpuBusy > 95 for 200ms`, and when it fires.
 *
 * The grammar (keywords and counter names in any case; a unit follows its
 * number without a space):
 *
 *   TRIGGER  := SUBJECT OP QUANTITY CLAUSE*
 *   SUBJECT  := a counter's symbol (GpuBusy)
 *             | lost          OA_REPORT_LOST and OA_BUFFER_LOST records
 *                             in the window
 *   OP       := >  >=  <  <=  ==  !=
 *   QUANTITY := NUMBER[UNIT]  95, 95%, 600MHz, 1.5ms, 2GB, 10k
 *   CLAUSE   := for DURATION          the condition holds through windows
 *                                     covering DURATION of GPU time in a
 *                                     row (default: one window)
 *             | hysteresis QUANTITY   it counts as cleared only past the
 *                                     threshold by this much (default 0)
 *             | rearm DURATION        and cleared for this long before it
 *                                     may fire again (default: the for
 *                                     time, at least one window)
 *   DURATION := NUMBER(ns|us|ms|s|m)
 *
 * A number without a unit is in the counter's unit as the metric file
 * gives it (what CSV and NDJSON carry: percent, hz, ns, bytes), with k,
 * M, G, T allowed as powers of 1000. A unit must be of the counter's kind:
 * % for percent; Hz, kHz, MHz, GHz for hz; ns, us (µs), ms, s for times;
 * B, kB, MB, GB, KiB, MiB, GiB for bytes; B/s up to GB/s for GB/s.
 *
 * A trigger fires once per episode: when the condition has held for the
 * `for` time, then not again until it has cleared (below the threshold
 * less the hysteresis) for the rearm time. A window without reports has no
 * value: it neither holds nor clears the condition, and breaks a run of
 * either.
 */
#ifndef GPM_TRIGGER_H
#define GPM_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum gpm_trigger_op {
	GPM_TRIGGER_GT,
	GPM_TRIGGER_GE,
	GPM_TRIGGER_LT,
	GPM_TRIGGER_LE,
	GPM_TRIGGER_EQ,
	GPM_TRIGGER_NE,
};

/* A quantity as written, before it meets a counter's unit. */
struct gpm_trigger_quantity {
	double number;
	char unit[16];                  /* "" when none */
	unsigned column;                /* of the number, from 1 */
	unsigned unit_column;           /* of the unit */
	bool given;
};

struct gpm_trigger {
	char subject[128];              /* a counter's symbol as written */
	bool lost;                      /* the subject is `lost` */
	unsigned subject_column;
	enum gpm_trigger_op op;
	struct gpm_trigger_quantity value;
	struct gpm_trigger_quantity hysteresis;
	uint64_t for_ns;                /* 0: one window */
	uint64_t rearm_ns;              /* 0: the for time, at least a window */
	/* Set by gpm_trigger_bind: in the subject's unit. */
	double threshold;
	double band;
};

/* Where an expression is wrong, and how. */
struct gpm_trigger_error {
	unsigned column;                /* from 1; 0: the whole expression */
	char message[192];
};

/* Reads an expression. 0, or -EINVAL with err saying where and what. */
int gpm_trigger_parse(const char *text, struct gpm_trigger *t,
		      struct gpm_trigger_error *err);

/* The error for a person: "column 14: MESSAGE", then the expression and a
 * caret under the column, each line indented by two spaces. */
void gpm_trigger_error_text(const char *text,
			    const struct gpm_trigger_error *err, char *buf,
			    size_t size);

/* Gives the quantities their values in the counter's unit (units as the
 * metric file spells them: "percent", "hz", "ns"; NULL for `lost`).
 * 0, or -EINVAL with err pointing at the quantity. */
int gpm_trigger_bind(struct gpm_trigger *t, const char *units,
		     struct gpm_trigger_error *err);

/* Where a trigger is in its episodes. Zeroed: armed, nothing seen. */
struct gpm_trigger_state {
	bool fired;                     /* in an episode: wait for rearm */
	uint64_t held_ns;               /* GPU time the condition held, in a row */
	uint64_t cleared_ns;            /* GPU time it was cleared, in a row */
	uint64_t episodes;              /* times it fired */
};

/* One window's value (NaN: the window has none) and GPU time. True when
 * the trigger fires at this window. */
bool gpm_trigger_step(const struct gpm_trigger *t, struct gpm_trigger_state *s,
		      double value, uint64_t duration_ns);

#endif
