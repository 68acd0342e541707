/*
 * The accumulator: summed counter deltas of one window, in one canonical
 * layout for every report format.
 *
 * Equations READ slots of this array (`A 7 READ` reads slot GPM_ACC_A + 7),
 * and the report decoder writes deltas into it. A fixed layout, rather than
 * IGT's per-format offsets, lets one compiled equation serve every format
 * and keeps READ a single array load.
 */
#ifndef GPM_ACCUMULATOR_H
#define GPM_ACCUMULATOR_H

#include <stdint.h>

enum gpm_acc_slot {
	GPM_ACC_GPU_TIME = 0,        /* timestamp ticks */
	GPM_ACC_GPU_CLOCK = 1,       /* GPU core clock ticks */
	GPM_ACC_A = 2,               /* A0..A63 */
	GPM_ACC_A_COUNT = 64,
	GPM_ACC_B = GPM_ACC_A + GPM_ACC_A_COUNT,
	GPM_ACC_B_COUNT = 8,
	GPM_ACC_C = GPM_ACC_B + GPM_ACC_B_COUNT,
	GPM_ACC_C_COUNT = 8,
	GPM_ACC_PERFCNT = GPM_ACC_C + GPM_ACC_C_COUNT,
	GPM_ACC_PERFCNT_COUNT = 8,
	GPM_ACC_PEC = GPM_ACC_PERFCNT + GPM_ACC_PERFCNT_COUNT,
	GPM_ACC_PEC_COUNT = 64,
	GPM_ACC_SLOTS = GPM_ACC_PEC + GPM_ACC_PEC_COUNT,
};

struct gpm_accumulator {
	uint64_t slot[GPM_ACC_SLOTS];
};

#endif
