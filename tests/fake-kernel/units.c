/*
 * A fake card's GTs, OA units and report formats, as the kernel sets them
 * up at probe.
 *
 * i915 (Linux 6.12 i915_perf.c): one OA group per engine kind,
 * oa_init_gt() and __oa_engine_group(): OAG for the render engine and, on
 * MTL's media GT, OAM SAMEDIA_0 for the video engines (perf revision 7);
 * the formats of oa_init_supported_formats(), each of a unit type
 * (engine_supports_oa_format()); one clock for every group,
 * i915_perf_oa_timestamp_frequency() of the primary GT.
 *
 * xe (Linux 7.0 xe_oa.c): num_oa_units_per_gt() and __hwe_oa_unit():
 * OAG (render and compute) on the main GT; OAM on MTL's media GT; OAM_SAG
 * (no engines) and OAM SCMI_0 (and SCMI_1 on discrete parts) on Xe2's;
 * ids numbered in GT order (__xe_oa_init_oa_units()); the formats of
 * xe_oa_init_supported_formats(), taken by unit type
 * (oa_unit_supports_oa_format()); each unit's clock that of its GT
 * (xe_oa_timestamp_frequency(): Wa_18013179988 and Wa_14015568240 match
 * the main GT only, GRAPHICS_VERSION rules skipping a standalone media GT
 * in xe_rtp.c).
 */
#include <string.h>

#include "tests/fake-kernel/fake_kernel.h"

/* xe's OA_FORMAT: type | counter select << 8 | counter size << 16 |
 * BC report << 24 (drm_xe_oa_format_type: OAG 0, OAR 1, OAM 2, OAC 3,
 * OAM_MPEC 4, PEC 5). */
#define XE_FMT(type, sel, size, bc) \
	((uint64_t)(type) | (uint64_t)(sel) << 8 | (uint64_t)(size) << 16 | \
	 (uint64_t)(bc) << 24)

/* Kernel generations, by graphics IP version x100. */
enum fk_generation {
	GEN_HSW,                        /* i915 only */
	GEN_GEN8_12,                    /* BDW .. ADL */
	GEN_DG2_PVC,                    /* 12.55, 12.60 */
	GEN_MTL,                        /* 12.70 .. 12.74 */
	GEN_XE2,                        /* 20 and later, xe only */
};

static enum fk_generation generation(unsigned version)
{
	return version < 800 ? GEN_HSW : version < 1255 ? GEN_GEN8_12 :
	       version < 1270 ? GEN_DG2_PVC : version < 2000 ? GEN_MTL : GEN_XE2;
}

#define GEN(g) (1u << (g))
#define NO_LAYOUT (-1)

/*
 * Every format, the generations each kernel takes it on
 * (i915: oa_init_supported_formats(); xe: xe_oa_init_supported_formats()),
 * the unit type it is for, and the layout the OA model writes it in (none
 * for formats no metric file reads). xe cannot use C4_B8: it is the first
 * of enum xe_oa_format_name, index 0, which xe_oa_stream_open_ioctl()
 * takes for "no format given".
 */
static const struct {
	const char *name;
	uint32_t i915;                  /* enum drm_i915_oa_format; 0: none */
	uint64_t xe;                    /* xe's OA_FORMAT */
	unsigned i915_gens, xe_gens;
	enum fk_unit_type unit;         /* OAG or OAM */
	int layout;                     /* enum gpm_oa_format_id or NO_LAYOUT */
} formats[] = {
	{ "A13", 1, 0, GEN(GEN_HSW), 0, FK_UNIT_OAG, NO_LAYOUT },
	{ "A29", 2, 0, GEN(GEN_HSW), 0, FK_UNIT_OAG, NO_LAYOUT },
	{ "A13_B8_C8", 3, 0, GEN(GEN_HSW), 0, FK_UNIT_OAG, NO_LAYOUT },
	{ "B4_C8", 4, 0, GEN(GEN_HSW), 0, FK_UNIT_OAG, NO_LAYOUT },
	{ "A45_B8_C8", 5, 0, GEN(GEN_HSW), 0, FK_UNIT_OAG,
	  GPM_OA_FORMAT_A45_B8_C8 },
	{ "B4_C8_A16", 6, 0, GEN(GEN_HSW), 0, FK_UNIT_OAG, NO_LAYOUT },
	{ "C4_B8", 7, XE_FMT(0, 7, 0, 0), GEN(GEN_HSW) | GEN(GEN_GEN8_12), 0,
	  FK_UNIT_OAG, NO_LAYOUT },
	{ "A12", 8, XE_FMT(0, 0, 0, 0), GEN(GEN_GEN8_12), GEN(GEN_GEN8_12),
	  FK_UNIT_OAG, NO_LAYOUT },
	{ "A12_B8_C8", 9, XE_FMT(0, 2, 0, 0), GEN(GEN_GEN8_12),
	  GEN(GEN_GEN8_12), FK_UNIT_OAG, NO_LAYOUT },
	{ "A32u40_A4u32_B8_C8", 10, XE_FMT(0, 5, 0, 0), GEN(GEN_GEN8_12),
	  GEN(GEN_GEN8_12), FK_UNIT_OAG, GPM_OA_FORMAT_A32u40_A4u32_B8_C8 },
	{ "OAR_A32u40_A4u32_B8_C8", 11, XE_FMT(1, 5, 0, 0),
	  GEN(GEN_DG2_PVC) | GEN(GEN_MTL), GEN(GEN_DG2_PVC) | GEN(GEN_MTL),
	  FK_UNIT_OAG, GPM_OA_FORMAT_OAR_A32u40_A4u32_B8_C8 },
	{ "A24u40_A14u32_B8_C8", 12, XE_FMT(0, 5, 0, 0),
	  GEN(GEN_DG2_PVC) | GEN(GEN_MTL), GEN(GEN_DG2_PVC) | GEN(GEN_MTL),
	  FK_UNIT_OAG, GPM_OA_FORMAT_A24u40_A14u32_B8_C8 },
	{ "OAC_A24u64_B8_C8", 0, XE_FMT(3, 1, 0, 0), 0,
	  GEN(GEN_DG2_PVC) | GEN(GEN_MTL), FK_UNIT_OAG, NO_LAYOUT },
	{ "OAC_A22u32_R2u32_B8_C8", 0, XE_FMT(3, 2, 0, 0), 0,
	  GEN(GEN_DG2_PVC) | GEN(GEN_MTL), FK_UNIT_OAG, NO_LAYOUT },
	{ "OAM_MPEC8u64_B8_C8", 13, XE_FMT(4, 1, 0, 0), GEN(GEN_MTL),
	  GEN(GEN_MTL) | GEN(GEN_XE2), FK_UNIT_OAM, GPM_OA_FORMAT_MPEC8u64_B8_C8 },
	{ "OAM_MPEC8u32_B8_C8", 14, XE_FMT(4, 2, 0, 0), GEN(GEN_MTL),
	  GEN(GEN_MTL) | GEN(GEN_XE2), FK_UNIT_OAM, GPM_OA_FORMAT_MPEC8u32_B8_C8 },
	{ "PEC64u64", 0, XE_FMT(5, 1, 1, 0), 0, GEN(GEN_XE2), FK_UNIT_OAG,
	  GPM_OA_FORMAT_PEC64u64 },
	{ "PEC64u64_B8_C8", 0, XE_FMT(5, 1, 1, 1), 0, GEN(GEN_XE2), FK_UNIT_OAG,
	  NO_LAYOUT },
	{ "PEC64u32", 0, XE_FMT(5, 1, 0, 0), 0, GEN(GEN_XE2), FK_UNIT_OAG,
	  NO_LAYOUT },
	{ "PEC32u64_G1", 0, XE_FMT(5, 5, 1, 0), 0, GEN(GEN_XE2), FK_UNIT_OAG,
	  NO_LAYOUT },
	{ "PEC32u32_G1", 0, XE_FMT(5, 5, 0, 0), 0, GEN(GEN_XE2), FK_UNIT_OAG,
	  NO_LAYOUT },
	{ "PEC32u64_G2", 0, XE_FMT(5, 6, 1, 0), 0, GEN(GEN_XE2), FK_UNIT_OAG,
	  NO_LAYOUT },
	{ "PEC32u32_G2", 0, XE_FMT(5, 6, 0, 0), 0, GEN(GEN_XE2), FK_UNIT_OAG,
	  NO_LAYOUT },
	{ "PEC36u64_G1_32_G2_4", 0, XE_FMT(5, 3, 1, 0), 0, GEN(GEN_XE2),
	  FK_UNIT_OAG, NO_LAYOUT },
	{ "PEC36u64_G1_4_G2_32", 0, XE_FMT(5, 4, 1, 0), 0, GEN(GEN_XE2),
	  FK_UNIT_OAG, NO_LAYOUT },
};

#define N_FORMATS (int)(sizeof(formats) / sizeof(formats[0]))

/* The card's kernel's formats: its driver's list for its generation. */
static bool known(const struct fk_card *card, int i)
{
	unsigned gen = GEN(generation(card->info.graphics_version));
	return card->driver == FK_I915 ? formats[i].i915_gens & gen
				       : formats[i].xe_gens & gen;
}

int fk_format_by_i915(const struct fk_card *card, uint64_t value)
{
	for (int i = 0; i < N_FORMATS; i++)
		if (value && formats[i].i915 == value && known(card, i))
			return i;
	return -1;
}

int fk_format_by_xe(const struct fk_card *card, uint64_t property)
{
	/* decode_oa_format(): the first format of the platform's mask whose
	 * four fields match. */
	for (int i = 0; i < N_FORMATS; i++)
		if (formats[i].xe == property && known(card, i) &&
		    strcmp(formats[i].name, "C4_B8"))
			return i;
	return -1;
}

bool fk_format_fits_unit(int format, const struct fk_unit *unit)
{
	/* An OAM_SAG unit takes what an OAM one does. */
	return (unit->type == FK_UNIT_OAG) == (formats[format].unit == FK_UNIT_OAG);
}

const char *fk_format_name(int format)
{
	return formats[format].name;
}

const struct gpm_oa_format *fk_format_layout(int format)
{
	const struct gpm_oa_format *layout;
	if (formats[format].layout == NO_LAYOUT ||
	    gpm_oa_format_get((enum gpm_oa_format_id)formats[format].layout, &layout))
		return NULL;
	return layout;
}

uint64_t fk_oa_frequency(const struct fk_card *card, const struct fk_gt *gt)
{
	/* i915 asks the primary GT whatever the engine; xe the unit's GT, and
	 * the workarounds match only the main GT where media stands alone. */
	if (card->driver == FK_XE && gt->media)
		return gt->reference_clock;
	return card->info.timestamp_frequency;
}

static void add_engine(struct fk_unit *u, unsigned engine_class, unsigned instance)
{
	if (u->n_engines < FK_MAX_UNIT_ENGINES)
		u->engines[u->n_engines++] = (typeof(u->engines[0])){
			(uint16_t)engine_class, (uint16_t)instance };
}

static struct fk_unit *add_unit(struct fk_card *card, enum fk_unit_type type,
				unsigned gt)
{
	struct fk_unit *u = &card->units[card->n_units];
	memset(u, 0, sizeof(*u));
	u->id = card->n_units++;
	u->type = type;
	u->gt = gt;
	u->timestamp_frequency = fk_oa_frequency(card, &card->gts[gt]);
	return u;
}

void fk_units_init(struct fk_card *card)
{
	unsigned version = card->info.graphics_version;
	bool discrete = card->platform->name[0] == 'a' ||      /* acm */
			!strcmp(card->platform->name, "bmg") ||
			!strcmp(card->platform->name, "dg1") ||
			!strcmp(card->platform->name, "pvc");
	/* Standalone media GTs came with MTL (media IP 13). */
	bool media_gt = version >= 1270;

	card->n_gts = 0;
	card->n_units = 0;
	card->gts[card->n_gts++] = (struct fk_gt){
		.id = 0,
		.reference_clock = (uint32_t)card->info.cs_timestamp_frequency,
	};
	if (media_gt)
		card->gts[card->n_gts++] = (struct fk_gt){
			.id = 1, .media = true,
			.reference_clock = (uint32_t)card->info.cs_timestamp_frequency,
		};

	struct fk_unit *oag = add_unit(card, FK_UNIT_OAG, 0);
	/* PVC has compute engines only; the others a render engine and, from
	 * Xe_HP on, compute engines on the same OAG. */
	if (version != 1260)
		add_engine(oag, FK_ENGINE_RENDER, 0);
	if (card->driver == FK_XE && version >= 1250)
		add_engine(oag, FK_ENGINE_COMPUTE, 0);
	if (!media_gt)
		return;

	if (card->driver == FK_I915) {
		/* i915 perf revision 7 added the video classes; MTL's media
		 * GT has one OAM group, SAMEDIA_0. */
		if (fk.perf_revision < 7)
			return;
		struct fk_unit *oam = add_unit(card, FK_UNIT_OAM, 1);
		add_engine(oam, FK_ENGINE_VIDEO, 0);
		add_engine(oam, FK_ENGINE_VIDEO, 1);
		add_engine(oam, FK_ENGINE_VIDEO_ENHANCE, 0);
		return;
	}
	if (version < 2000) {
		struct fk_unit *oam = add_unit(card, FK_UNIT_OAM, 1);
		add_engine(oam, FK_ENGINE_VIDEO, 0);
		add_engine(oam, FK_ENGINE_VIDEO, 1);
		add_engine(oam, FK_ENGINE_VIDEO_ENHANCE, 0);
		return;
	}
	/* Xe2: the SAG unit has only the GSC engine, which is given none;
	 * SCMI_0 takes the video engines of an integrated part, a discrete
	 * part splits them over SCMI_0 and SCMI_1. */
	add_unit(card, FK_UNIT_OAM_SAG, 1);
	struct fk_unit *scmi0 = add_unit(card, FK_UNIT_OAM, 1);
	add_engine(scmi0, FK_ENGINE_VIDEO, 0);
	add_engine(scmi0, FK_ENGINE_VIDEO, 1);
	add_engine(scmi0, FK_ENGINE_VIDEO_ENHANCE, 0);
	if (discrete) {
		struct fk_unit *scmi1 = add_unit(card, FK_UNIT_OAM, 1);
		add_engine(scmi1, FK_ENGINE_VIDEO, 2);
		add_engine(scmi1, FK_ENGINE_VIDEO, 3);
		add_engine(scmi1, FK_ENGINE_VIDEO_ENHANCE, 1);
	}
}

struct fk_unit *fk_unit_of_engine(struct fk_card *card, unsigned engine_class,
				  unsigned instance)
{
	for (unsigned u = 0; u < card->n_units; u++)
		for (unsigned e = 0; e < card->units[u].n_engines; e++)
			if (card->units[u].engines[e].engine_class == engine_class &&
			    card->units[u].engines[e].instance == instance)
				return &card->units[u];
	return NULL;
}

bool fk_card_has_engine(const struct fk_card *card, unsigned gt,
			unsigned engine_class, unsigned instance)
{
	if (gt == 0 && engine_class == FK_ENGINE_COPY && instance == 0)
		return true;
	for (unsigned u = 0; u < card->n_units; u++)
		for (unsigned e = 0; e < card->units[u].n_engines; e++)
			if (card->units[u].gt == gt &&
			    card->units[u].engines[e].engine_class == engine_class &&
			    card->units[u].engines[e].instance == instance)
				return true;
	return false;
}
