/*
 * The platform table and the PCI id table, as data.
 *
 * PCI ids are those of the kernel's include/drm/intel/i915_pciids.h and
 * xe_pciids.h. Typical configurations are the largest common SKU of each
 * platform, with timestamp clocks from docs/oa-reference.md §1.7: 12.5 MHz
 * for Gen7-8, 12 MHz for Gen9 big cores, 19.2 MHz for Gen9 LP and later
 * (the usual crystal; the real value comes from the kernel).
 */
#include <errno.h>
#include <string.h>

#include "metrics/platform.h"

/* Report formats: name, size, i915 enum drm_i915_oa_format, xe OA_FORMAT
 * (type | counter select << 8 | size << 16). */
#define FMT_HSW "A45_B8_C8", 256, 5, 0
#define FMT_GEN8 "A32u40_A4u32_B8_C8", 256, 10, 0
#define FMT_GEN12 "A32u40_A4u32_B8_C8", 256, 10, 0x500
#define FMT_DG2_MTL "A24u40_A14u32_B8_C8", 256, 12, 0x500
/* i915 never drove PVC's OA unit; xe does, with the OAG format of DG2. */
#define FMT_PVC "A24u40_A14u32_B8_C8", 256, 0, 0x500
/* Xe2 and later: xe only, PEC counters behind a 64-bit header. */
#define FMT_XE2 "PEC64u64", 576, 0, 0x10105
/* NVIDIA: no OA unit; the nvidia source builds NVPM32u64 reports itself. */
#define FMT_NVPM "NVPM32u64", 288, 0, 0

#define MHZ(x) ((uint32_t)((x) * 1000000.0))
/* The OA and the command streamer's clock: the same on most platforms. */
#define CLOCK(mhz) MHZ(mhz), MHZ(mhz)
/* DG2 and MTL (Wa_18013179988) and PVC (Wa_14015568240): the OA unit
 * ignores CTC_SHIFT, so it counts at cs << (3 - CTC_SHIFT), twice the CS
 * clock with the usual shift of 2 (i915_perf_oa_timestamp_frequency(),
 * xe_oa_timestamp_frequency()). */
#define CLOCK_OA_UNSHIFTED(cs_mhz) MHZ(2 * (cs_mhz)), MHZ(cs_mhz)

static const struct gpm_platform platforms[] = {
	{ "hsw", "HSW", "Haswell", 750, 7, FMT_HSW,
	  0x0412, 1, 2, 10, CLOCK(12.5), 350, 1200, 0 },
	{ "bdw", "BDW", "Broadwell", 800, 7, FMT_GEN8,
	  0x1616, 1, 3, 8, CLOCK(12.5), 300, 1150, 0 },
	{ "chv", "CHV", "Cherryview", 800, 7, FMT_GEN8,
	  0x22b0, 1, 2, 8, CLOCK(12.5), 200, 600, 0 },
	{ "sklgt2", "SKLGT2", "Skylake GT2", 900, 7, FMT_GEN8,
	  0x1916, 1, 3, 8, CLOCK(12), 300, 1150, 0 },
	{ "sklgt3", "SKLGT3", "Skylake GT3", 900, 7, FMT_GEN8,
	  0x1926, 2, 3, 8, CLOCK(12), 300, 1050, 0 },
	{ "sklgt4", "SKLGT4", "Skylake GT4", 900, 7, FMT_GEN8,
	  0x193b, 3, 3, 8, CLOCK(12), 300, 1150, 0 },
	{ "kblgt2", "KBLGT2", "Kaby Lake GT2", 900, 7, FMT_GEN8,
	  0x5916, 1, 3, 8, CLOCK(12), 300, 1150, 0 },
	{ "kblgt3", "KBLGT3", "Kaby Lake GT3", 900, 7, FMT_GEN8,
	  0x5926, 2, 3, 8, CLOCK(12), 300, 1100, 0 },
	{ "cflgt2", "CFLGT2", "Coffee Lake GT2", 900, 7, FMT_GEN8,
	  0x3e92, 1, 3, 8, CLOCK(12), 350, 1200, 0 },
	{ "cflgt3", "CFLGT3", "Coffee Lake GT3", 900, 7, FMT_GEN8,
	  0x3ea5, 2, 3, 8, CLOCK(12), 300, 1200, 0 },
	{ "bxt", "BXT", "Broxton", 900, 6, FMT_GEN8,
	  0x5a84, 1, 3, 6, CLOCK(19.2), 200, 650, 0 },
	{ "glk", "GLK", "Gemini Lake", 900, 6, FMT_GEN8,
	  0x3184, 1, 3, 6, CLOCK(19.2), 250, 750, 0 },
	{ "cnl", "CNL", "Cannon Lake", 1000, 7, FMT_GEN8,
	  0x5a52, 2, 3, 8, CLOCK(19.2), 300, 1100, 0 },
	{ "icl", "ICL", "Ice Lake", 1100, 7, FMT_GEN8,
	  0x8a52, 1, 8, 8, CLOCK(19.2), 300, 1100, 0 },
	{ "ehl", "EHL", "Elkhart Lake", 1100, 7, FMT_GEN8,
	  0x4541, 1, 4, 8, CLOCK(19.2), 250, 750, 0 },
	{ "tglgt1", "TGLGT1", "Tiger Lake GT1", 1200, 7, FMT_GEN12,
	  0x9a60, 1, 2, 16, CLOCK(19.2), 300, 1250, 0 },
	{ "tglgt2", "TGLGT2", "Tiger Lake GT2", 1200, 7, FMT_GEN12,
	  0x9a49, 1, 6, 16, CLOCK(19.2), 300, 1350, 0 },
	{ "rkl", "RKL", "Rocket Lake", 1200, 7, FMT_GEN12,
	  0x4c8a, 1, 2, 16, CLOCK(19.2), 300, 1300, 0 },
	{ "dg1", "DG1", "DG1", 1200, 7, FMT_GEN12,
	  0x4905, 1, 6, 16, CLOCK(19.2), 300, 1550, 0 },
	{ "adl", "ADL", "Alder Lake", 1200, 7, FMT_GEN12,
	  0x46a6, 1, 6, 16, CLOCK(19.2), 300, 1400, 0 },
	{ "acmgt1", "ACMGT1", "DG2-G11 (Alchemist)", 1255, 8, FMT_DG2_MTL,
	  0x56a5, 2, 4, 16, CLOCK_OA_UNSHIFTED(19.2), 300, 2450, 0 },
	{ "acmgt2", "ACMGT2", "DG2-G12 (Alchemist)", 1255, 8, FMT_DG2_MTL,
	  0x56a3, 4, 4, 16, CLOCK_OA_UNSHIFTED(19.2), 300, 2050, 0 },
	{ "acmgt3", "ACMGT3", "DG2-G10 (Alchemist)", 1255, 8, FMT_DG2_MTL,
	  0x56a0, 8, 4, 16, CLOCK_OA_UNSHIFTED(19.2), 300, 2400, 0 },
	{ "mtlgt2", "MTLGT2", "Meteor Lake, up to 64 EUs", 1270, 8,
	  FMT_DG2_MTL, 0x7d45, 1, 4, 16, CLOCK_OA_UNSHIFTED(19.2), 100, 2250, 0 },
	{ "mtlgt3", "MTLGT3", "Meteor Lake, over 64 EUs", 1270, 8,
	  FMT_DG2_MTL, 0x7d55, 2, 4, 16, CLOCK_OA_UNSHIFTED(19.2), 100, 2250, 0 },
	{ "pvc", "PVC", "Ponte Vecchio", 1260, 8, FMT_PVC,
	  0x0bd5, 4, 4, 8, CLOCK_OA_UNSHIFTED(19.2), 300, 1600, 0 },
	{ "lnl", "LNL", "Lunar Lake", 2004, 8, FMT_XE2,
	  0x64a0, 2, 4, 8, CLOCK(19.2), 400, 2050, 0 },
	{ "bmg", "BMG", "Battlemage", 2001, 8, FMT_XE2,
	  0xe20b, 5, 4, 8, CLOCK(19.2), 400, 2850, 0 },
	{ "ptl", "PTL", "Panther Lake", 3000, 8, FMT_XE2,
	  0xb080, 3, 4, 8, CLOCK(19.2), 400, 2500, 0 },
	/* The sim source's virtual GPU (metrics/sim_device.c). */
	{ "simgen12", "SIMGEN12", "SIMGEN12 virtual GPU", 1200, 7, FMT_GEN8,
	  0x5f00, 1, 6, 16, CLOCK(19.2), 300, 1300, 8 },	/* NVIDIA Hopper (metrics/nvidia/README.md): no Intel graphics
	 * version, 64 warps per SM in the threads-per-EU field, no EU
	 * topology, and the nvidia source's clock of 2^17 ticks per 100 us. It
	 * is found by CUPTI's chip name, so it has no PCI id entry. */
	{ "gh100", "GH100", "NVIDIA GH100 (H100, H200)", 0, 64, FMT_NVPM,
	  0x2335, 0, 0, 0, 1310720000u, 1310720000u, 0, 1980, 0 },
	/* An AMD GPU that amdgpu drives: Linux gives a daemon no stream of
	 * its counters, so it has no metric sets and no report is ever
	 * decoded (the format is only there to be valid); it has the usage
	 * view (daemon/amdgpu/). Found by driver, so no PCI id entry. */
	{ "amdgpu", "AMDGPU", "AMD GPU (amdgpu)", 0, 0, FMT_NVPM,
	  0, 0, 0, 0, 100000000u, 100000000u, 0, 0, 0 },
	/* The simulated AMD GPU of `sim:amd` (daemon/sim/spm_unit.h): a 100
	 * MHz GPU timestamp, the shader clock held at 2000 MHz, no EU
	 * topology (its 4 shader engines are the unit's). Its source turns
	 * SPM samples into NVPM32u64 reports; PCI id 0x7300 is the virtual
	 * GPU's own. */
	{ "simamd", "SIMAMD", "Simulated AMD GPU (SPM)", 0, 0, FMT_NVPM,
	  0x7300, 0, 0, 0, 100000000u, 100000000u, 2000, 2000, 0 },
};

#define N_PLATFORMS (sizeof(platforms) / sizeof(platforms[0]))

/* Indices into platforms[], for the id table. */
enum {
	HSW, BDW, CHV, SKLGT2, SKLGT3, SKLGT4, KBLGT2, KBLGT3, CFLGT2, CFLGT3,
	BXT, GLK, CNL, ICL, EHL, TGLGT1, TGLGT2, RKL, DG1, ADL, ACMGT1, ACMGT2,
	ACMGT3, MTLGT2, MTLGT3, PVC, LNL, BMG, PTL, SIMGEN12, GH100, AMDGPU,
	SIMAMD,
};

_Static_assert(SIMAMD + 1 == N_PLATFORMS, "index enum matches the table");

/* Meteor Lake and Arrow Lake ids cover both GT sizes; the EU count picks
 * the file (Mesa: up to 64 EUs is GT2). */
#define MTL_SPLIT_EUS 64
#define SPLIT_MTL 0xff

struct pci_id {
	uint16_t id;
	uint8_t platform;       /* index, or SPLIT_MTL */
};

static const struct pci_id pci_ids[] = {
	/* HSW GT1, GT2, GT3 (ULT, ULX, desktop, SDV, CRW). */
	{ 0x0402, HSW }, { 0x0406, HSW }, { 0x040a, HSW }, { 0x040b, HSW },
	{ 0x040e, HSW }, { 0x0a02, HSW }, { 0x0a06, HSW }, { 0x0a0a, HSW },
	{ 0x0a0b, HSW }, { 0x0a0e, HSW }, { 0x0c02, HSW }, { 0x0c06, HSW },
	{ 0x0c0a, HSW }, { 0x0c0b, HSW }, { 0x0c0e, HSW }, { 0x0d02, HSW },
	{ 0x0d06, HSW }, { 0x0d0a, HSW }, { 0x0d0b, HSW }, { 0x0d0e, HSW },
	{ 0x0412, HSW }, { 0x0416, HSW }, { 0x041a, HSW }, { 0x041b, HSW },
	{ 0x041e, HSW }, { 0x0a12, HSW }, { 0x0a16, HSW }, { 0x0a1a, HSW },
	{ 0x0a1b, HSW }, { 0x0a1e, HSW }, { 0x0c12, HSW }, { 0x0c16, HSW },
	{ 0x0c1a, HSW }, { 0x0c1b, HSW }, { 0x0c1e, HSW }, { 0x0d12, HSW },
	{ 0x0d16, HSW }, { 0x0d1a, HSW }, { 0x0d1b, HSW }, { 0x0d1e, HSW },
	{ 0x0422, HSW }, { 0x0426, HSW }, { 0x042a, HSW }, { 0x042b, HSW },
	{ 0x042e, HSW }, { 0x0a22, HSW }, { 0x0a26, HSW }, { 0x0a2a, HSW },
	{ 0x0a2b, HSW }, { 0x0a2e, HSW }, { 0x0c22, HSW }, { 0x0c26, HSW },
	{ 0x0c2a, HSW }, { 0x0c2b, HSW }, { 0x0c2e, HSW }, { 0x0d22, HSW },
	{ 0x0d26, HSW }, { 0x0d2a, HSW }, { 0x0d2b, HSW }, { 0x0d2e, HSW },
	/* BDW GT1, GT2, GT3, reserved. */
	{ 0x1602, BDW }, { 0x1606, BDW }, { 0x160a, BDW }, { 0x160b, BDW },
	{ 0x160d, BDW }, { 0x160e, BDW }, { 0x1612, BDW }, { 0x1616, BDW },
	{ 0x161a, BDW }, { 0x161b, BDW }, { 0x161d, BDW }, { 0x161e, BDW },
	{ 0x1622, BDW }, { 0x1626, BDW }, { 0x162a, BDW }, { 0x162b, BDW },
	{ 0x162d, BDW }, { 0x162e, BDW }, { 0x1632, BDW }, { 0x1636, BDW },
	{ 0x163a, BDW }, { 0x163b, BDW }, { 0x163d, BDW }, { 0x163e, BDW },
	{ 0x22b0, CHV }, { 0x22b1, CHV }, { 0x22b2, CHV }, { 0x22b3, CHV },
	{ 0x1912, SKLGT2 }, { 0x1916, SKLGT2 }, { 0x191a, SKLGT2 },
	{ 0x191b, SKLGT2 }, { 0x191d, SKLGT2 }, { 0x191e, SKLGT2 },
	{ 0x1921, SKLGT2 },
	{ 0x1923, SKLGT3 }, { 0x1926, SKLGT3 }, { 0x1927, SKLGT3 },
	{ 0x192a, SKLGT3 }, { 0x192b, SKLGT3 }, { 0x192d, SKLGT3 },
	{ 0x1932, SKLGT4 }, { 0x193a, SKLGT4 }, { 0x193b, SKLGT4 },
	{ 0x193d, SKLGT4 },
	{ 0x0a84, BXT }, { 0x1a84, BXT }, { 0x1a85, BXT }, { 0x5a84, BXT },
	{ 0x5a85, BXT },
	{ 0x3184, GLK }, { 0x3185, GLK },
	/* KBL GT2, and Amber Lake Y GT2 on KBL. */
	{ 0x5912, KBLGT2 }, { 0x5916, KBLGT2 }, { 0x5917, KBLGT2 },
	{ 0x591a, KBLGT2 }, { 0x591b, KBLGT2 }, { 0x591d, KBLGT2 },
	{ 0x591e, KBLGT2 }, { 0x5921, KBLGT2 }, { 0x591c, KBLGT2 },
	{ 0x87c0, KBLGT2 },
	{ 0x5923, KBLGT3 }, { 0x5926, KBLGT3 }, { 0x5927, KBLGT3 },
	/* CFL S/H/U GT2, Amber Lake Y on CFL, Whiskey Lake U and Comet Lake
	 * GT2: the cflgt2 file. */
	{ 0x3e91, CFLGT2 }, { 0x3e92, CFLGT2 }, { 0x3e96, CFLGT2 },
	{ 0x3e98, CFLGT2 }, { 0x3e9a, CFLGT2 }, { 0x3e94, CFLGT2 },
	{ 0x3e9b, CFLGT2 }, { 0x3ea9, CFLGT2 }, { 0x87ca, CFLGT2 },
	{ 0x3ea0, CFLGT2 }, { 0x3ea3, CFLGT2 },
	{ 0x9bc2, CFLGT2 }, { 0x9bc4, CFLGT2 }, { 0x9bc5, CFLGT2 },
	{ 0x9bc6, CFLGT2 }, { 0x9bc8, CFLGT2 }, { 0x9be6, CFLGT2 },
	{ 0x9bf6, CFLGT2 }, { 0x9b41, CFLGT2 }, { 0x9bca, CFLGT2 },
	{ 0x9bcc, CFLGT2 },
	{ 0x3ea5, CFLGT3 }, { 0x3ea6, CFLGT3 }, { 0x3ea7, CFLGT3 },
	{ 0x3ea8, CFLGT3 }, { 0x3ea2, CFLGT3 },
	{ 0x5a40, CNL }, { 0x5a41, CNL }, { 0x5a42, CNL }, { 0x5a44, CNL },
	{ 0x5a49, CNL }, { 0x5a4a, CNL }, { 0x5a4c, CNL }, { 0x5a50, CNL },
	{ 0x5a51, CNL }, { 0x5a52, CNL }, { 0x5a54, CNL }, { 0x5a59, CNL },
	{ 0x5a5a, CNL }, { 0x5a5c, CNL },
	{ 0x8a50, ICL }, { 0x8a51, ICL }, { 0x8a52, ICL }, { 0x8a53, ICL },
	{ 0x8a54, ICL }, { 0x8a56, ICL }, { 0x8a57, ICL }, { 0x8a58, ICL },
	{ 0x8a59, ICL }, { 0x8a5a, ICL }, { 0x8a5b, ICL }, { 0x8a5c, ICL },
	{ 0x8a5d, ICL }, { 0x8a70, ICL }, { 0x8a71, ICL },
	/* EHL, and Jasper Lake on the same file. */
	{ 0x4541, EHL }, { 0x4551, EHL }, { 0x4555, EHL }, { 0x4557, EHL },
	{ 0x4570, EHL }, { 0x4571, EHL }, { 0x4e51, EHL }, { 0x4e55, EHL },
	{ 0x4e57, EHL }, { 0x4e61, EHL }, { 0x4e71, EHL },
	{ 0x9a60, TGLGT1 }, { 0x9a68, TGLGT1 }, { 0x9a70, TGLGT1 },
	{ 0x9a40, TGLGT2 }, { 0x9a49, TGLGT2 }, { 0x9a59, TGLGT2 },
	{ 0x9a78, TGLGT2 }, { 0x9ac0, TGLGT2 }, { 0x9ac9, TGLGT2 },
	{ 0x9ad9, TGLGT2 }, { 0x9af8, TGLGT2 },
	{ 0x4c80, RKL }, { 0x4c8a, RKL }, { 0x4c8b, RKL }, { 0x4c8c, RKL },
	{ 0x4c90, RKL }, { 0x4c9a, RKL },
	{ 0x4905, DG1 }, { 0x4906, DG1 }, { 0x4907, DG1 }, { 0x4908, DG1 },
	{ 0x4909, DG1 },
	/* ADL-S, ADL-P, ADL-N, and RPL-S/U/P on the adl file. */
	{ 0x4680, ADL }, { 0x4682, ADL }, { 0x4688, ADL }, { 0x468a, ADL },
	{ 0x468b, ADL }, { 0x4690, ADL }, { 0x4692, ADL }, { 0x4693, ADL },
	{ 0x46a0, ADL }, { 0x46a1, ADL }, { 0x46a2, ADL }, { 0x46a3, ADL },
	{ 0x46a6, ADL }, { 0x46a8, ADL }, { 0x46aa, ADL }, { 0x462a, ADL },
	{ 0x4626, ADL }, { 0x4628, ADL }, { 0x46b0, ADL }, { 0x46b1, ADL },
	{ 0x46b2, ADL }, { 0x46b3, ADL }, { 0x46c0, ADL }, { 0x46c1, ADL },
	{ 0x46c2, ADL }, { 0x46c3, ADL }, { 0x46d0, ADL }, { 0x46d1, ADL },
	{ 0x46d2, ADL }, { 0x46d3, ADL }, { 0x46d4, ADL },
	{ 0xa780, ADL }, { 0xa781, ADL }, { 0xa782, ADL }, { 0xa783, ADL },
	{ 0xa788, ADL }, { 0xa789, ADL }, { 0xa78a, ADL }, { 0xa78b, ADL },
	{ 0xa721, ADL }, { 0xa7a1, ADL }, { 0xa7a9, ADL }, { 0xa7ac, ADL },
	{ 0xa7ad, ADL }, { 0xa720, ADL }, { 0xa7a0, ADL }, { 0xa7a8, ADL },
	{ 0xa7aa, ADL }, { 0xa7ab, ADL },
	/* DG2-G10, and ATS-M150 built on it. */
	{ 0x5690, ACMGT3 }, { 0x5691, ACMGT3 }, { 0x5692, ACMGT3 },
	{ 0x56a0, ACMGT3 }, { 0x56a1, ACMGT3 }, { 0x56a2, ACMGT3 },
	{ 0x56be, ACMGT3 }, { 0x56bf, ACMGT3 }, { 0x56c0, ACMGT3 },
	{ 0x56c2, ACMGT3 },
	/* DG2-G11, and ATS-M75 built on it. */
	{ 0x5693, ACMGT1 }, { 0x5694, ACMGT1 }, { 0x5695, ACMGT1 },
	{ 0x56a5, ACMGT1 }, { 0x56a6, ACMGT1 }, { 0x56b0, ACMGT1 },
	{ 0x56b1, ACMGT1 }, { 0x56ba, ACMGT1 }, { 0x56bb, ACMGT1 },
	{ 0x56bc, ACMGT1 }, { 0x56bd, ACMGT1 }, { 0x56c1, ACMGT1 },
	/* DG2-G12. */
	{ 0x5696, ACMGT2 }, { 0x5697, ACMGT2 }, { 0x56a3, ACMGT2 },
	{ 0x56a4, ACMGT2 }, { 0x56b2, ACMGT2 }, { 0x56b3, ACMGT2 },
	/* MTL, and ARL on the MTL files. */
	{ 0x7d40, SPLIT_MTL }, { 0x7d45, SPLIT_MTL }, { 0x7d55, SPLIT_MTL },
	{ 0x7d60, SPLIT_MTL }, { 0x7dd5, SPLIT_MTL }, { 0x7d41, SPLIT_MTL },
	{ 0x7d51, SPLIT_MTL }, { 0x7d67, SPLIT_MTL }, { 0x7dd1, SPLIT_MTL },
	{ 0xb640, SPLIT_MTL },
	{ 0x0b69, PVC }, { 0x0b6e, PVC }, { 0x0bd4, PVC }, { 0x0bd5, PVC },
	{ 0x0bd6, PVC }, { 0x0bd7, PVC }, { 0x0bd8, PVC }, { 0x0bd9, PVC },
	{ 0x0bda, PVC }, { 0x0bdb, PVC }, { 0x0be0, PVC }, { 0x0be1, PVC },
	{ 0x0be5, PVC },
	{ 0x6420, LNL }, { 0x64a0, LNL }, { 0x64b0, LNL },
	{ 0xe202, BMG }, { 0xe20b, BMG }, { 0xe20c, BMG }, { 0xe20d, BMG },
	{ 0xe212, BMG },
	{ 0xb080, PTL }, { 0xb081, PTL }, { 0xb082, PTL }, { 0xb090, PTL },
	{ 0xb091, PTL }, { 0xb092, PTL }, { 0xb0a0, PTL }, { 0xb0a1, PTL },
	{ 0xb0a2, PTL },
	{ 0x5f00, SIMGEN12 },
};

size_t gpm_platform_count(void)
{
	return N_PLATFORMS;
}

const struct gpm_platform *gpm_platform_get(size_t i)
{
	return i < N_PLATFORMS ? &platforms[i] : NULL;
}

const struct gpm_platform *gpm_platform_by_name(const char *name)
{
	for (size_t i = 0; i < N_PLATFORMS; i++)
		if (!strcmp(platforms[i].name, name) ||
		    !strcmp(platforms[i].chipset, name))
			return &platforms[i];
	return NULL;
}

int gpm_platform_by_pci_id(uint32_t pci_id, unsigned eu_count,
			   const struct gpm_platform **out)
{
	for (size_t i = 0; i < sizeof(pci_ids) / sizeof(pci_ids[0]); i++) {
		if (pci_ids[i].id != pci_id)
			continue;
		if (pci_ids[i].platform != SPLIT_MTL) {
			*out = &platforms[pci_ids[i].platform];
			return 0;
		}
		if (!eu_count)
			return -ENODATA;
		*out = &platforms[eu_count <= MTL_SPLIT_EUS ? MTLGT2 : MTLGT3];
		return 0;
	}
	return -ENOENT;
}

void gpm_platform_default_device(const struct gpm_platform *p,
				 struct gpm_device_info *dev)
{
	struct gpm_topology *t = &dev->topology;

	memset(dev, 0, sizeof(*dev));
	dev->pci_id = p->default_pci_id;
	dev->graphics_version = p->graphics_version;
	dev->eu_threads_count = p->eu_threads_count;
	dev->timestamp_frequency = p->timestamp_frequency;
	dev->cs_timestamp_frequency = p->cs_timestamp_frequency;
	dev->gpu_min_freq = (uint64_t)p->min_freq_mhz * 1000000;
	dev->gpu_max_freq = (uint64_t)p->max_freq_mhz * 1000000;
	dev->l3_bank_count = p->l3_bank_count;

	t->max_slices = p->slices;
	t->max_subslices = p->subslices_per_slice;
	t->max_eus_per_subslice = p->eus_per_subslice;
	t->slice_mask = (uint8_t)((1u << p->slices) - 1);
	for (unsigned s = 0; s < p->slices; s++) {
		t->subslice_mask[s] = (1ull << p->subslices_per_slice) - 1;
		for (unsigned ss = 0; ss < p->subslices_per_slice; ss++)
			t->eu_mask[s][ss] =
				(uint16_t)((1u << p->eus_per_subslice) - 1);
	}
}
