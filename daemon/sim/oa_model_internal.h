/*
 * The OA model's state, shared by the report writer (oa_model.c) and the
 * read() side (oa_read.c).
 */
#ifndef GPD_SIM_OA_MODEL_INTERNAL_H
#define GPD_SIM_OA_MODEL_INTERNAL_H

#include "daemon/sim/oa_buffer.h"
#include "daemon/sim/oa_model.h"
#include "daemon/sim/prng.h"
#include "daemon/sim/rate_model.h"
#include "daemon/sim/workload.h"

struct gpd_oa_model {
	struct gpm_device_info dev;
	struct gpm_oa_decoder decoder;
	uint64_t seed;
	uint64_t period;                /* ticks; 0: not periodic */
	uint64_t period_phase;          /* timer reports at phase mod period */
	bool enabled;

	/* Time: the absolute timestamp in ticks; the workload counts from
	 * `origin`, the timestamp at creation. */
	uint64_t now;
	uint64_t origin;
	struct gpd_workload workload;
	/* Counters are brought up to date only at events (reports and
	 * workload changes), so how time is cut into advance() calls never
	 * changes their rounding. */
	uint64_t accounted;             /* absolute tick up to which they are */
	uint64_t counter[GPM_ACC_SLOTS];
	uint64_t freq;                  /* core clock of the last busy stretch, Hz */
	/* A context-switch report on its way: written at switch_report_at. */
	uint64_t switch_delay;          /* ticks */
	bool switch_pending;
	uint64_t switch_report_at;
	uint32_t switch_ctx_id;
	bool switch_ctx_valid;
	/* The raw counters' rates: fitted here (own_rates), or lent by
	 * whoever created or switched the model, for as long as it lives. */
	const struct gpd_rate_model *rates;
	struct gpd_rate_model *own_rates;

	/* The OA unit's status bits and buffer; a GPU reset wipes its
	 * programming (unit_reset) until the next enable. */
	struct gpd_oa_buffer buffer;
	bool unit_reset;
	/* gpd_oa_model_overrun(): the unit writes nothing more until the
	 * next read resets the buffer. */
	bool overrun;
	bool report_lost;
	struct gpd_prng loss_prng;
	double report_loss_probability;

	/* i915's read() state. */
	bool filter_context;
	uint32_t filter_context_id;
	uint32_t last_context_id;       /* of the last report forwarded */
	bool squash_invalid_context;    /* graphics IP < 12.55 */
};

#endif
