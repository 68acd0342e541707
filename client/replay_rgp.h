/*
 * gpuperf replay of an RGP capture: the counters of its SPM chunks over
 * time (metrics/rgp_spm.h), one row per sample, as a table, CSV or NDJSON,
 * or as a Perfetto trace.
 */
#ifndef GPUPERF_REPLAY_RGP_H
#define GPUPERF_REPLAY_RGP_H

#include <stdbool.h>

#include "client/output.h"

/* Whether the file at path starts as an RGP capture does. */
bool gpuperf_is_rgp(const char *path);

/* Prints the SPM chunks of the capture at path to output (stdout when
 * NULL) in format. An exit status (client/commands.h). */
int gpuperf_replay_rgp(const char *path, enum gpuperf_format format,
		       const char *output);

#endif
