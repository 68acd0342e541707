/*
 * amdgpu's gpu_metrics tables as the kernel lays them out, for writing
 * the binary files of a fake sysfs: struct gpu_metrics_v1_0 .. v1_6,
 * v2_0 .. v2_4 and v3_0 of drivers/gpu/drm/amd/include/kgd_pp_interface.h
 * (torvalds/linux at 00dedab07b52). The kernel's structs are not packed,
 * so these plain structs, field for field in the same order and types,
 * have its offsets; fields the tests do not set are gathered into arrays
 * of the same type. The decoder (daemon/host/gpu_metrics.c) has its own
 * table of offsets: these structs are the independent check of it.
 *
 * Fields a table does not fill read as all ones, as
 * smu_cmn_init_soft_gpu_metrics() (drivers/gpu/drm/amd/pm/swsmu/smu_cmn.c)
 * leaves them: gpu_metrics_table_init() below does the same.
 */
#ifndef TESTS_UNIT_GPU_METRICS_TABLES_H
#define TESTS_UNIT_GPU_METRICS_TABLES_H

#include <stdint.h>
#include <string.h>

struct gm_header {
	uint16_t structure_size;
	uint8_t format_revision;
	uint8_t content_revision;
};

struct gm_v1_0 {
	struct gm_header h;
	uint64_t system_clock_counter;
	uint16_t temperature_edge, temperature_hotspot, temperature_rest[4];
	uint16_t gfx_activity, umc_activity, mm_activity;
	uint16_t socket_power;
	uint32_t energy_accumulator;
	uint16_t average_gfxclk, average_socclk, average_uclk, average_rest[4];
	uint16_t current_clocks[7];
	uint32_t throttle_status;
	uint16_t fan_speed;
	uint8_t pcie_width, pcie_speed;
};

/* v1_1's fields; v1_2 adds firmware_timestamp, v1_3 voltages and
 * indep_throttle_status. */
#define GM_V1_1_FIELDS \
	struct gm_header h; \
	uint16_t temperature_edge, temperature_hotspot, temperature_rest[4]; \
	uint16_t gfx_activity, umc_activity, mm_activity; \
	uint16_t socket_power; \
	uint64_t energy_accumulator; \
	uint64_t system_clock_counter; \
	uint16_t average_gfxclk, average_socclk, average_uclk, average_rest[4]; \
	uint16_t current_clocks[7]; \
	uint32_t throttle_status; \
	uint16_t fan_speed; \
	uint16_t pcie_width, pcie_speed; \
	uint16_t padding; \
	uint32_t gfx_activity_acc, mem_activity_acc; \
	uint16_t temperature_hbm[4];

struct gm_v1_1 { GM_V1_1_FIELDS };
struct gm_v1_2 { GM_V1_1_FIELDS uint64_t firmware_timestamp; };
struct gm_v1_3 {
	GM_V1_1_FIELDS
	uint64_t firmware_timestamp;
	uint16_t voltages[3];
	uint16_t padding1;
	uint64_t indep_throttle_status;
};

/* v1_4, v1_5 (jpeg_activity) and v1_6 (accumulation counter and
 * throttler residencies, PCIe NAK counts as in v1_5). */
#define GM_V1_4_HEAD \
	struct gm_header h; \
	uint16_t temperature_hotspot, temperature_mem, temperature_vrsoc; \
	uint16_t socket_power; \
	uint16_t gfx_activity, umc_activity; \
	uint16_t vcn_activity[4];
#define GM_V1_4_TAIL \
	uint64_t xgmi_data_acc[16]; \
	uint64_t firmware_timestamp; \
	uint16_t current_gfxclk[8]; \
	uint16_t current_socclk[4], current_vclk0[4], current_dclk0[4]; \
	uint16_t current_uclk; \
	uint16_t padding;
#define GM_V1_4_LINK \
	uint32_t throttle_status; \
	uint32_t gfxclk_lock_status; \
	uint16_t pcie_width, pcie_speed, xgmi_width, xgmi_speed; \
	uint32_t gfx_activity_acc, mem_activity_acc; \
	uint64_t pcie_counts[5];

struct gm_v1_4 {
	GM_V1_4_HEAD
	uint64_t energy_accumulator;
	uint64_t system_clock_counter;
	GM_V1_4_LINK
	GM_V1_4_TAIL
};

struct gm_v1_5 {
	GM_V1_4_HEAD
	uint16_t jpeg_activity[32];
	uint64_t energy_accumulator;
	uint64_t system_clock_counter;
	GM_V1_4_LINK
	uint32_t pcie_nak[2];
	GM_V1_4_TAIL
};

struct gm_v1_6 {
	GM_V1_4_HEAD
	uint16_t jpeg_activity[32];
	uint64_t energy_accumulator;
	uint64_t system_clock_counter;
	uint32_t accumulation_counter;
	uint32_t residencies[5];
	GM_V1_4_LINK
	uint32_t pcie_nak[2];
	GM_V1_4_TAIL
};

struct gm_v2_0 {
	struct gm_header h;
	uint64_t system_clock_counter;
	uint16_t temperature_gfx, temperature_soc, temperature_rest[10];
	uint16_t gfx_activity, mm_activity;
	uint16_t socket_power, power_rest[11];
	uint16_t average_gfxclk, average_socclk, average_uclk, average_rest[3];
	uint16_t current_clocks[16];
	uint32_t throttle_status;
	uint16_t fan_pwm;
	uint16_t padding;
};

#define GM_V2_1_FIELDS \
	struct gm_header h; \
	uint16_t temperature_gfx, temperature_soc, temperature_rest[10]; \
	uint16_t gfx_activity, mm_activity; \
	uint64_t system_clock_counter; \
	uint16_t socket_power, power_rest[11]; \
	uint16_t average_gfxclk, average_socclk, average_uclk, average_rest[3]; \
	uint16_t current_clocks[16]; \
	uint32_t throttle_status; \
	uint16_t fan_pwm; \
	uint16_t padding[3];

struct gm_v2_1 { GM_V2_1_FIELDS };
struct gm_v2_2 { GM_V2_1_FIELDS uint64_t indep_throttle_status; };
struct gm_v2_3 {
	GM_V2_1_FIELDS
	uint64_t indep_throttle_status;
	uint16_t average_temperatures[12];
};
struct gm_v2_4 {
	GM_V2_1_FIELDS
	uint64_t indep_throttle_status;
	uint16_t average_temperatures[12];
	uint16_t voltages[3], currents[3];
};

struct gm_v3_0 {
	struct gm_header h;
	uint16_t temperature_gfx, temperature_soc, temperature_core[16];
	uint16_t temperature_skin;
	uint16_t gfx_activity, vcn_activity;
	uint16_t ipu_activity[8], core_c0_activity[16];
	uint16_t dram_reads, dram_writes, ipu_reads, ipu_writes;
	uint64_t system_clock_counter;
	uint32_t socket_power;
	uint16_t ipu_power;
	uint32_t apu_power, gfx_power, dgpu_power, all_core_power;
	uint16_t core_power[16];
	uint16_t sys_power, stapm_limit, current_stapm_limit;
	uint16_t average_gfxclk, average_socclk, average_vpeclk, average_ipuclk;
	uint16_t average_fclk, average_vclk, average_uclk, average_mpipu;
	uint16_t current_coreclk[16];
	uint16_t core_maxfreq, gfx_maxfreq;
	uint32_t throttle_residency[7];
	uint32_t time_filter_alphavalue;
};

/* Fills the table with ones and writes its header. */
#define gpu_metrics_table_init(table, format, content) do { \
	memset((table), 0xff, sizeof(*(table))); \
	(table)->h.structure_size = sizeof(*(table)); \
	(table)->h.format_revision = (format); \
	(table)->h.content_revision = (content); \
} while (0)

#endif
