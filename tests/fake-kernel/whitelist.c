/*
 * The registers ADD_CONFIG takes. Both kernels refuse a configuration
 * with any other register with EINVAL.
 *
 * i915 (Linux 6.12 i915_perf.c, i915_perf_init() picks them by
 * generation): boolean registers gen7_is_valid_b_counter_addr() before
 * Gen12, gen12_/xehp_is_valid_b_counter_addr() from Gen12 on (Xe_HP adds
 * its slice limits, MTL its OAM unit); mux registers hsw_, chv_, gen8_,
 * gen11_, gen12_is_valid_mux_addr() (MTL repurposes WAIT_FOR_RC6_EXIT);
 * flex registers the seven EU_PERF_CNTL, none on Haswell.
 *
 * xe (Linux 7.0 xe_oa.c, xe_oa_is_valid_config_reg()): one list, taken if
 * it is a flex, a boolean or a mux register; the mux list is Gen12's, MTL's
 * from 12.70 and Xe2's from 20, which has no NOA_WRITE.
 */
#include "tests/fake-kernel/fake_kernel.h"

struct range {
	uint32_t start, end;
};

#define END { 0, 0 }

static const struct range gen7_b_counters[] = {
	{ 0x2710, 0x272c },     /* OASTARTTRIG[1-8] */
	{ 0x2740, 0x275c },     /* OAREPORTTRIG[1-8] */
	{ 0x2770, 0x27ac },     /* OACEC[0-7][0-1] */
	END,
};

static const struct range gen12_b_counters[] = {
	{ 0x2b2c, 0x2b2c },     /* OAG_OA_PESS */
	{ 0xd900, 0xd91c },     /* OAG_OASTARTTRIG[1-8] */
	{ 0xd920, 0xd93c },     /* OAG_OAREPORTTRIG1[1-8] */
	{ 0xd940, 0xd97c },     /* OAG_CEC[0-7][0-1] */
	{ 0xdc00, 0xdc3c },     /* OAG_SCEC[0-7][0-1] */
	{ 0xdc40, 0xdc40 },     /* OAG_SPCTR_CNF */
	{ 0xdc44, 0xdc44 },     /* OAA_DBG_REG */
	END,
};

static const struct range xehp_b_counters[] = {
	{ 0xdc48, 0xdc48 },     /* OAA_ENABLE_REG */
	{ 0xdd00, 0xdd48 },     /* OAG_LCE0_0 - OAA_LENABLE_REG */
	END,
};

static const struct range mtl_oam_b_counters[] = {
	{ 0x393000, 0x39301c }, /* OAM_STARTTRIG1[1-8] */
	{ 0x393020, 0x39303c }, /* OAM_REPORTTRIG1[1-8] */
	{ 0x393040, 0x39307c }, /* OAM_CEC[0-7][0-1] */
	{ 0x393200, 0x39323c }, /* MPES[0-7] */
	END,
};

static const struct range xe2_b_counters[] = {
	{ 0x393200, 0x39323c }, /* MPES of the SAG unit */
	{ 0x394200, 0x39423c }, /* MPES of SCMI0 */
	{ 0x394a00, 0x394a3c }, /* MPES of SCMI1 */
	END,
};

static const struct range gen7_mux[] = {
	{ 0x91b8, 0x91cc },     /* OA_PERFCNT[1-2], OA_PERFMATRIX */
	{ 0x9800, 0x9888 },     /* MICRO_BP0_0 - NOA_WRITE */
	{ 0xe180, 0xe180 },     /* HALF_SLICE_CHICKEN2 */
	END,
};

static const struct range hsw_mux[] = {
	{ 0x09e80, 0x09ea4 },   /* HSW_MBVID2_NOA[0-9] */
	{ 0x09ec0, 0x09ec0 },   /* HSW_MBVID2_MISR0 */
	{ 0x25100, 0x2ff90 },
	END,
};

static const struct range chv_mux[] = {
	{ 0x182300, 0x1823a4 },
	END,
};

static const struct range gen8_mux[] = {
	{ 0x0d00, 0x0d2c },     /* RPM_CONFIG[0-1], NOA_CONFIG[0-8] */
	{ 0x20cc, 0x20cc },     /* WAIT_FOR_RC6_EXIT */
	END,
};

static const struct range gen11_mux[] = {
	{ 0x91c8, 0x91dc },     /* OA_PERFCNT[3-4] */
	END,
};

static const struct range gen12_mux[] = {
	{ 0x0d00, 0x0d04 },     /* RPM_CONFIG[0-1] */
	{ 0x0d0c, 0x0d2c },     /* NOA_CONFIG[0-8] */
	{ 0x9840, 0x9840 },     /* GDT_CHICKEN_BITS */
	{ 0x9884, 0x9888 },     /* NOA_WRITE */
	{ 0x20cc, 0x20cc },     /* WAIT_FOR_RC6_EXIT */
	END,
};

/* MTL repurposes 0x20cc (14010536224). */
static const struct range mtl_mux[] = {
	{ 0x0d00, 0x0d04 },     /* RPM_CONFIG[0-1] */
	{ 0x0d0c, 0x0d2c },     /* NOA_CONFIG[0-8] */
	{ 0x9840, 0x9840 },     /* GDT_CHICKEN_BITS */
	{ 0x9884, 0x9888 },     /* NOA_WRITE */
	{ 0x38d100, 0x38d114 }, /* VISACTL */
	END,
};

static const struct range xe2_mux[] = {
	{ 0x5194, 0x5194 },     /* SYS_MEM_LAT_MEASURE_MERTF_GRP_3D */
	{ 0x8704, 0x8704 },     /* LMEM_LAT_MEASURE_MCFG_GRP */
	{ 0xb01c, 0xb01c },     /* LNCF_MISC_CONFIG_REGISTER0 */
	{ 0xb1bc, 0xb1bc },     /* L3_BANK_LAT_MEASURE_LBCF_GFX */
	{ 0xd0e0, 0xd0f4 },     /* VISACTL */
	{ 0xe18c, 0xe18c },     /* SAMPLER_MODE */
	{ 0xe590, 0xe590 },     /* TDL_LSC_LAT_MEASURE_TDL_GFX */
	{ 0x13000, 0x137fc },   /* PES_0_PESL0 - PES_63_UPPER_PESL3 */
	{ 0x145194, 0x145194 }, /* SYS_MEM_LAT_MEASURE */
	{ 0x145340, 0x14537c }, /* MERTSS_PES_0 - MERTSS_PES_7 */
	END,
};

/* EU_PERF_CNTL0-6. */
static const uint32_t flex[] = {
	0xe458, 0xe558, 0xe658, 0xe758, 0xe45c, 0xe55c, 0xe65c,
};

static bool in(const struct range *table, uint32_t addr)
{
	for (; table->start || table->end; table++)
		if (addr >= table->start && addr <= table->end)
			return true;
	return false;
}

static bool is_flex(uint32_t addr)
{
	for (size_t i = 0; i < sizeof(flex) / sizeof(flex[0]); i++)
		if (flex[i] == addr)
			return true;
	return false;
}

static bool i915_boolean(unsigned version, uint32_t addr)
{
	if (version < 1200)
		return in(gen7_b_counters, addr);
	if (version < 1250)
		return in(gen12_b_counters, addr);
	/* HAS_OA_SLICE_CONTRIB_LIMITS: Xe_HP on; the OAM unit's from MTL. */
	return in(xehp_b_counters, addr) || in(gen12_b_counters, addr) ||
	       (version >= 1270 && in(mtl_oam_b_counters, addr));
}

static bool i915_mux(const struct fk_card *card, uint32_t addr)
{
	unsigned version = card->info.graphics_version;
	if (version < 800)
		return in(gen7_mux, addr) || in(hsw_mux, addr);
	if (card->platform->name[0] == 'c' && card->platform->name[1] == 'h')
		return in(gen7_mux, addr) || in(chv_mux, addr);      /* chv */
	if (version < 1100)
		return in(gen7_mux, addr) || in(gen8_mux, addr);
	if (version < 1200)
		return in(gen7_mux, addr) || in(gen8_mux, addr) || in(gen11_mux, addr);
	return in(version >= 1270 ? mtl_mux : gen12_mux, addr);
}

static bool xe_mux(unsigned version, uint32_t addr)
{
	if (version >= 2000)
		return in(xe2_mux, addr);
	return in(version >= 1270 ? mtl_mux : gen12_mux, addr);
}

static bool xe_boolean(unsigned version, uint32_t addr)
{
	return in(xehp_b_counters, addr) || in(gen12_b_counters, addr) ||
	       in(mtl_oam_b_counters, addr) ||
	       (version >= 2000 && in(xe2_b_counters, addr));
}

bool fk_register_allowed(const struct fk_card *card, enum fk_register_list list,
			 uint32_t addr)
{
	unsigned version = card->info.graphics_version;
	switch (list) {
	case FK_REGS_MUX:
		return i915_mux(card, addr);
	case FK_REGS_BOOLEAN:
		return i915_boolean(version, addr);
	case FK_REGS_FLEX:
		/* Haswell takes no flex register at all. */
		return version >= 800 && is_flex(addr);
	case FK_REGS_XE:
		return is_flex(addr) || xe_boolean(version, addr) ||
		       xe_mux(version, addr);
	}
	return false;
}
