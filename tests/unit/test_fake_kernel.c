/*
 * The fake kernel (tests/fake-kernel) driven straight through the uAPI,
 * the way a program other than gpuperfd would drive i915 and xe: each
 * check is a behaviour of the kernel, named with the function it follows
 * (i915 as of Linux 6.12, xe as of Linux 7.0; tests/fake-kernel/README.md
 * lists them all). The daemon's sources are tested on the fake elsewhere
 * (test_i915_source, test_xe_source); this suite holds the fake to the
 * kernel where the daemon never goes, so that a fake too kind to the
 * daemon shows here.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <i915_drm.h>
#include <xf86drm.h>

#include "daemon/i915/i915_uapi.h"
#include "daemon/xe/xe_uapi.h"
#include "metrics/oa_record.h"
#include "tests/unit/fake_machine.h"
#include "tests/unit/test_oa.h"
#include "tests/unit/test_util.h"

/* Tiger Lake GT2's RenderBasic, the set the fake's model knows. */
#define RENDER_BASIC "0fc397c0-4833-492c-9ccd-4929d574d5b8"
#define COMPUTE_BASIC "397a46d9-03dd-4696-8196-270362e1c575"
/* Registers every Gen12 kernel takes: NOA_WRITE (mux), OAG_OASTARTTRIG1
 * (boolean), EU_PERF_CNTL0 (flex). */
#define NOA_WRITE 0x9888
#define OAG_OASTARTTRIG1 0xd900
#define EU_PERF_CNTL0 0xe458
/* xe's OA_FORMAT of Gen12's A32u40_A4u32_B8_C8 and A12_B8_C8. */
#define XE_FORMAT_A32 0x500
#define XE_FORMAT_A12_B8_C8 0x200
#define XE_STATUS_BUFFER_OVERFLOW (1u << 1)
/* The uAPI's engine classes, alike in i915 and xe. */
#define ENGINE_CLASS_RENDER 0
#define ENGINE_CLASS_COPY 1
#define ENGINE_CLASS_VIDEO 2

struct card {
	struct fake_machine m;
	int fd;
};

/* A machine of cards with driver's metric files; card0 opened. */
static void card_start(struct card *c, const char *cards, const char *driver)
{
	char metrics[PATH_MAX] = "";
	if (driver)
		test_shared_path(metrics, sizeof(metrics),
				 !strcmp(driver, "xe") ? "intel-metrics/xe"
						       : "intel-metrics/i915");
	fake_machine_start(&c->m, cards, metrics, "");
	c->fd = open(c->m.node, O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(c->fd, 0);
}

static void card_stop(struct card *c)
{
	close(c->fd);
	fake_machine_stop(&c->m);
}

/* Writes a sysctl of the machine, e.g. "dev/i915/oa_max_sample_rate". */
static void sysctl_set(const struct card *c, const char *name, const char *value)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/proc/sys/%s", c->m.root, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%s\n", value);
	ck_assert_int_eq(fclose(f), 0);
}

static int ioctl_ret(int fd, unsigned long request, void *arg)
{
	int ret = drmIoctl(fd, request, arg);
	return ret < 0 ? -errno : ret;
}

/* --- i915 --- */

/* ADD_CONFIG with one register in each list given (0: none). */
static int i915_add_config(int fd, const char *uuid, uint32_t mux,
			   uint32_t boolean, uint32_t flex)
{
	uint32_t mux_regs[2] = { mux, 0 }, b_regs[2] = { boolean, 0 },
		 flex_regs[2] = { flex, 0 };
	struct drm_i915_perf_oa_config cfg = {
		.n_mux_regs = mux ? 1 : 0,
		.n_boolean_regs = boolean ? 1 : 0,
		.n_flex_regs = flex ? 1 : 0,
		.mux_regs_ptr = mux ? (uintptr_t)mux_regs : 0,
		.boolean_regs_ptr = boolean ? (uintptr_t)b_regs : 0,
		.flex_regs_ptr = flex ? (uintptr_t)flex_regs : 0,
	};
	memcpy(cfg.uuid, uuid, strnlen(uuid, sizeof(cfg.uuid)));
	return ioctl_ret(fd, DRM_IOCTL_I915_PERF_ADD_CONFIG, &cfg);
}

static int i915_remove_config(int fd, uint64_t id)
{
	return ioctl_ret(fd, DRM_IOCTL_I915_PERF_REMOVE_CONFIG, &id);
}

/* PERF_OPEN with n property pairs; a non-blocking stream fd or -errno. */
static int i915_open(int fd, const uint64_t *props, unsigned n, uint32_t flags)
{
	struct drm_i915_perf_open_param param = {
		.flags = I915_PERF_FLAG_FD_CLOEXEC | I915_PERF_FLAG_FD_NONBLOCK | flags,
		.num_properties = n,
		.properties_ptr = (uintptr_t)props,
	};
	return ioctl_ret(fd, DRM_IOCTL_I915_PERF_OPEN, &param);
}

/* A periodic system-wide stream of set on the render engine. */
static int i915_open_set(int fd, uint64_t set, uint64_t format, uint64_t exponent)
{
	uint64_t props[] = {
		DRM_I915_PERF_PROP_SAMPLE_OA, 1,
		DRM_I915_PERF_PROP_OA_METRICS_SET, set,
		DRM_I915_PERF_PROP_OA_FORMAT, format,
		DRM_I915_PERF_PROP_OA_EXPONENT, exponent,
	};
	return i915_open(fd, props, 4, 0);
}

/* --- xe --- */

static int xe_observation(int fd, uint64_t op, void *param)
{
	struct drm_xe_observation_param p = {
		.observation_type = DRM_XE_OBSERVATION_TYPE_OA,
		.observation_op = op,
		.param = (uintptr_t)param,
	};
	return ioctl_ret(fd, DRM_IOCTL_XE_OBSERVATION, &p);
}

static int xe_add_config(int fd, const char *uuid, uint32_t reg)
{
	uint32_t regs[2] = { reg, 0 };
	struct drm_xe_oa_config cfg = { .n_regs = 1, .regs_ptr = (uintptr_t)regs };
	memcpy(cfg.uuid, uuid, strnlen(uuid, sizeof(cfg.uuid)));
	return xe_observation(fd, DRM_XE_OBSERVATION_OP_ADD_CONFIG, &cfg);
}

static int xe_remove_config(int fd, uint64_t id)
{
	return xe_observation(fd, DRM_XE_OBSERVATION_OP_REMOVE_CONFIG, &id);
}

struct xe_props {
	struct drm_xe_ext_set_property p[GPD_XE_MAX_PROPERTIES];
	unsigned n;
};

static void xe_prop(struct xe_props *props, uint32_t property, uint64_t value)
{
	ck_assert_uint_lt(props->n, GPD_XE_MAX_PROPERTIES);
	struct drm_xe_ext_set_property *p = &props->p[props->n];
	memset(p, 0, sizeof(*p));
	p->base.name = DRM_XE_OA_EXTENSION_SET_PROPERTY;
	p->property = property;
	p->value = value;
	if (props->n)
		props->p[props->n - 1].base.next_extension = (uintptr_t)p;
	props->n++;
}

/* A stream fd, made non-blocking, or -errno. */
static int xe_open(int fd, struct xe_props *props)
{
	int stream = xe_observation(fd, DRM_XE_OBSERVATION_OP_STREAM_OPEN, props->p);
	if (stream >= 0)
		ck_assert_int_eq(fcntl(stream, F_SETFL, O_NONBLOCK), 0);
	return stream;
}

/* A periodic stream of set on OA unit 0 in format. */
static int xe_open_set(int fd, uint64_t set, uint64_t format, uint64_t exponent)
{
	struct xe_props props = { .n = 0 };
	xe_prop(&props, DRM_XE_OA_PROPERTY_SAMPLE_OA, 1);
	xe_prop(&props, DRM_XE_OA_PROPERTY_OA_METRIC_SET, set);
	xe_prop(&props, DRM_XE_OA_PROPERTY_OA_FORMAT, format);
	xe_prop(&props, DRM_XE_OA_PROPERTY_OA_PERIOD_EXPONENT, exponent);
	return xe_open(fd, &props);
}

static uint64_t xe_status(int stream)
{
	struct drm_xe_oa_stream_status st = { 0 };
	ck_assert_int_eq(ioctl(stream, DRM_XE_OBSERVATION_IOCTL_STATUS, &st), 0);
	return st.oa_status;
}

/* One read: bytes, or -errno. */
static ssize_t read_ret(int fd, void *buf, size_t len)
{
	ssize_t n = read(fd, buf, len);
	return n < 0 ? -errno : n;
}

/* Waits up to ms for POLLIN; whether it came. */
static bool readable_within(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static unsigned char buf[4 << 20];

/*
 * xe_oa_status_locked() returns stream->oa_status, which __xe_oa_read()
 * captured (and cleared in the unit) at the last read, the read that
 * failed with EIO before copying anything. Asking twice gives it twice;
 * the reports the buffer held stay, and come with the next read, which
 * finds the status clear again.
 */
START_TEST(xe_status_is_what_the_last_read_found)
{
	struct card c;
	card_start(&c, "xe:tglgt2", "xe");
	int id = xe_add_config(c.fd, RENDER_BASIC, NOA_WRITE);
	ck_assert_int_eq(id, 1);
	/* 2 << 10 ticks at 19.2 MHz: 107 us, the 16 MiB buffer full in 7 s. */
	int s = xe_open_set(c.fd, (uint64_t)id, XE_FORMAT_A32, 10);
	ck_assert_int_ge(s, 0);
	ck_assert(readable_within(s, 1000));
	ck_assert_int_gt(read_ret(s, buf, sizeof(buf)), 0);
	ck_assert_uint_eq(xe_status(s), 0);

	fake_machine_control(&c.m, "stall_ms=10000\n");
	ck_assert_int_eq(read_ret(s, buf, sizeof(buf)), -EIO);
	ck_assert_uint_eq(xe_status(s) & XE_STATUS_BUFFER_OVERFLOW,
			  XE_STATUS_BUFFER_OVERFLOW);
	ck_assert_uint_eq(xe_status(s) & XE_STATUS_BUFFER_OVERFLOW,
			  XE_STATUS_BUFFER_OVERFLOW);
	/* xe resets nothing: what the full buffer held is read now. */
	ssize_t n = read_ret(s, buf, sizeof(buf));
	ck_assert_int_eq(n, sizeof(buf) / 256 * 256);
	ck_assert_uint_eq(xe_status(s), 0);
	close(s);
	card_stop(&c);
}
END_TEST

/* Counts the reports among n bytes (records when i915, bare reports when
 * not) whose context is not valid and whose ctx field still names one. */
static unsigned invalid_with_an_id(const unsigned char *p, size_t n, bool i915)
{
	struct gpm_oa_decoder dec =
		test_oa_decoder(GPM_OA_FORMAT_A32u40_A4u32_B8_C8, 1200);
	size_t report = dec.format->size;
	unsigned count = 0;
	for (size_t at = 0; at < n;) {
		const unsigned char *r = p + at;
		size_t size = report;
		if (i915) {
			uint32_t type;
			uint16_t rec;
			memcpy(&type, p + at, 4);
			memcpy(&rec, p + at + 6, 2);
			ck_assert_uint_ge(rec, GPM_OA_RECORD_HEADER_SIZE);
			at += rec;
			if (type != GPM_OA_RECORD_SAMPLE)
				continue;
			r += GPM_OA_RECORD_HEADER_SIZE;
		} else {
			at += size;
		}
		struct gpm_oa_report out;
		ck_assert_int_eq(gpm_oa_report_decode(&dec, r, report, &out), 0);
		if (!out.ctx_valid && out.ctx_id != 0xffffffffu)
			count++;
	}
	return count;
}

/* Reads what a stream of set wrote in about 300 ms. */
static size_t read_for_a_while(int s, bool i915)
{
	size_t n = 0;
	for (int i = 0; i < 30 && n < sizeof(buf) / 2; i++) {
		usleep(10000);
		ssize_t got = read_ret(s, buf + n, sizeof(buf) / 2);
		if (got > 0)
			n += (size_t)got;
		else
			ck_assert_int_eq(got, -EAGAIN);
	}
	(void)i915;
	return n;
}

/*
 * Before Xe_HP i915 squashes the ctx field of a report without a valid
 * context to INVALID_CTX_ID (gen8_append_oa_reports(), IP < 12.50); xe
 * copies reports as the unit wrote them (xe_oa_append_reports()).
 */
START_TEST(only_i915_squashes_invalid_contexts)
{
	struct card c;
	card_start(&c, "i915:tglgt2", "i915");
	int id = i915_add_config(c.fd, RENDER_BASIC, NOA_WRITE, 0, 0);
	ck_assert_int_eq(id, 2);
	int s = i915_open_set(c.fd, (uint64_t)id, I915_OA_FORMAT_A32u40_A4u32_B8_C8, 10);
	ck_assert_int_ge(s, 0);
	size_t n = read_for_a_while(s, true);
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_eq(invalid_with_an_id(buf, n, true), 0);
	close(s);
	card_stop(&c);

	card_start(&c, "xe:tglgt2", "xe");
	id = xe_add_config(c.fd, RENDER_BASIC, NOA_WRITE);
	s = xe_open_set(c.fd, (uint64_t)id, XE_FORMAT_A32, 10);
	ck_assert_int_ge(s, 0);
	n = read_for_a_while(s, false);
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_gt(invalid_with_an_id(buf, n, false), 0);
	close(s);
	card_stop(&c);
}
END_TEST

/*
 * Both kernels refuse a register outside their lists with EINVAL (i915:
 * alloc_oa_regs() with the generation's is_valid_*_addr(); xe:
 * xe_oa_is_valid_config_reg()). Xe2's mux list has no NOA_WRITE.
 */
START_TEST(add_config_takes_listed_registers_only)
{
	struct card c;
	card_start(&c, "i915:tglgt2", NULL);
	ck_assert_int_eq(i915_add_config(c.fd, RENDER_BASIC, 0x1234, 0, 0), -EINVAL);
	/* Each list its own kind: a flex register is no mux one. */
	ck_assert_int_eq(i915_add_config(c.fd, RENDER_BASIC, EU_PERF_CNTL0, 0, 0),
			 -EINVAL);
	ck_assert_int_eq(i915_add_config(c.fd, RENDER_BASIC, NOA_WRITE,
					 OAG_OASTARTTRIG1, EU_PERF_CNTL0), 2);
	card_stop(&c);

	card_start(&c, "xe:tglgt2", NULL);
	ck_assert_int_eq(xe_add_config(c.fd, RENDER_BASIC, 0x1234), -EINVAL);
	ck_assert_int_eq(xe_add_config(c.fd, RENDER_BASIC, NOA_WRITE), 1);
	card_stop(&c);

	card_start(&c, "xe:lnl", NULL);
	ck_assert_int_eq(xe_add_config(c.fd, RENDER_BASIC, NOA_WRITE), -EINVAL);
	/* PES_0_PESL0, where Xe2 programs its counters. */
	ck_assert_int_eq(xe_add_config(c.fd, RENDER_BASIC, 0x13000), 1);
	card_stop(&c);
}
END_TEST

/*
 * The order of the refusals: a busy unit is EBUSY whatever the set
 * (i915_oa_stream_init() checks exclusive_stream before it looks the set
 * up; xe_oa_stream_open_ioctl_locked() likewise), and xe's ADD_CONFIG
 * asks the privilege before it looks at the configuration
 * (xe_oa_add_config_ioctl()).
 */
START_TEST(refusals_come_in_the_kernels_order)
{
	struct card c;
	card_start(&c, "i915:tglgt2", NULL);
	fake_machine_control(&c.m, "busy=1\n");
	ck_assert_int_eq(i915_open_set(c.fd, 77, I915_OA_FORMAT_A32u40_A4u32_B8_C8, 10),
			 -EBUSY);
	fake_machine_control(&c.m, "busy=0\n");
	ck_assert_int_eq(i915_open_set(c.fd, 77, I915_OA_FORMAT_A32u40_A4u32_B8_C8, 10),
			 -EINVAL);
	card_stop(&c);

	card_start(&c, "xe:tglgt2", NULL);
	fake_machine_control(&c.m, "busy=1\n");
	ck_assert_int_eq(xe_open_set(c.fd, 77, XE_FORMAT_A32, 10), -EBUSY);
	fake_machine_control(&c.m, "capable=0\n");
	ck_assert_int_eq(xe_add_config(c.fd, "not a uuid, and too short.........",
				       0x1234), -EACCES);
	card_stop(&c);
}
END_TEST

/*
 * Reads copy whole records as long as they fit and fail with ENOSPC only
 * when not even one does (i915: gen8_append_oa_reports() through
 * i915_perf_read(); xe: xe_oa_append_reports()).
 */
START_TEST(enospc_only_when_no_record_fits)
{
	struct card c;
	card_start(&c, "i915:tglgt2", "i915");
	int id = i915_add_config(c.fd, RENDER_BASIC, NOA_WRITE, 0, 0);
	int s = i915_open_set(c.fd, (uint64_t)id, I915_OA_FORMAT_A32u40_A4u32_B8_C8, 10);
	ck_assert_int_ge(s, 0);
	ck_assert(readable_within(s, 1000));
	usleep(20000);
	size_t record = GPM_OA_RECORD_HEADER_SIZE + 256;
	ck_assert_int_eq(read_ret(s, buf, record - 1), -ENOSPC);
	ck_assert_int_eq(read_ret(s, buf, record + record / 2), record);
	ck_assert_int_eq(read_ret(s, buf, 1 << 20) % record, 0);
	close(s);
	card_stop(&c);

	card_start(&c, "xe:tglgt2", "xe");
	id = xe_add_config(c.fd, RENDER_BASIC, NOA_WRITE);
	s = xe_open_set(c.fd, (uint64_t)id, XE_FORMAT_A32, 10);
	ck_assert_int_ge(s, 0);
	ck_assert(readable_within(s, 1000));
	usleep(20000);
	ck_assert_int_eq(read_ret(s, buf, 255), -ENOSPC);
	ck_assert_int_eq(read_ret(s, buf, 256 + 100), 256);
	ck_assert_int_eq(read_ret(s, buf, 1 << 20) % 256, 0);
	close(s);
	card_stop(&c);
}
END_TEST

/*
 * The poll hrtimer sets pollin only when a report waits (i915:
 * oa_poll_check_timer_cb() with oa_buffer_check_unlocked()), on xe when
 * wait_num_reports do (xe_oa_buffer_check_unlocked()); a stream opened
 * disabled writes nothing.
 */
START_TEST(pollin_only_with_reports_waiting)
{
	struct card c;
	card_start(&c, "i915:tglgt2", "i915");
	int id = i915_add_config(c.fd, RENDER_BASIC, NOA_WRITE, 0, 0);
	uint64_t props[] = {
		DRM_I915_PERF_PROP_SAMPLE_OA, 1,
		DRM_I915_PERF_PROP_OA_METRICS_SET, (uint64_t)id,
		DRM_I915_PERF_PROP_OA_FORMAT, I915_OA_FORMAT_A32u40_A4u32_B8_C8,
		DRM_I915_PERF_PROP_OA_EXPONENT, 10,
	};
	int s = i915_open(c.fd, props, 4, I915_PERF_FLAG_DISABLED);
	ck_assert_int_ge(s, 0);
	ck_assert(!readable_within(s, 100));
	ck_assert_int_eq(ioctl(s, I915_PERF_IOCTL_ENABLE, 0), 0);
	ck_assert(readable_within(s, 1000));
	close(s);
	card_stop(&c);

	card_start(&c, "xe:tglgt2", "xe");
	id = xe_add_config(c.fd, RENDER_BASIC, NOA_WRITE);
	/* 2 << 10 ticks: 107 us, some 900 reports in 100 ms. */
	struct xe_props xp = { .n = 0 };
	xe_prop(&xp, DRM_XE_OA_PROPERTY_SAMPLE_OA, 1);
	xe_prop(&xp, DRM_XE_OA_PROPERTY_OA_METRIC_SET, (uint64_t)id);
	xe_prop(&xp, DRM_XE_OA_PROPERTY_OA_FORMAT, XE_FORMAT_A32);
	xe_prop(&xp, DRM_XE_OA_PROPERTY_OA_PERIOD_EXPONENT, 10);
	xe_prop(&xp, DRM_XE_OA_PROPERTY_WAIT_NUM_REPORTS, 20000);
	s = xe_open(c.fd, &xp);
	ck_assert_int_ge(s, 0);
	ck_assert(!readable_within(s, 100));
	/* Reports are there all the same. */
	ck_assert_int_gt(read_ret(s, buf, sizeof(buf)), 0);
	close(s);
	card_stop(&c);
}
END_TEST

/* ENABLE on an enabled stream does nothing (i915_perf_enable_locked(),
 * xe_oa_enable_locked()): the reports waiting stay. */
START_TEST(enable_when_enabled_keeps_the_reports)
{
	struct card c;
	card_start(&c, "i915:tglgt2", "i915");
	int id = i915_add_config(c.fd, RENDER_BASIC, NOA_WRITE, 0, 0);
	int s = i915_open_set(c.fd, (uint64_t)id, I915_OA_FORMAT_A32u40_A4u32_B8_C8, 10);
	ck_assert_int_ge(s, 0);
	ck_assert(readable_within(s, 1000));
	ck_assert_int_eq(ioctl(s, I915_PERF_IOCTL_ENABLE, 0), 0);
	ck_assert_int_gt(read_ret(s, buf, sizeof(buf)), 0);
	/* DISABLE then a read: EIO, the one i915_perf_read() knows. */
	ck_assert_int_eq(ioctl(s, I915_PERF_IOCTL_DISABLE, 0), 0);
	ck_assert_int_eq(read_ret(s, buf, sizeof(buf)), -EIO);
	close(s);
	card_stop(&c);

	card_start(&c, "xe:tglgt2", "xe");
	id = xe_add_config(c.fd, RENDER_BASIC, NOA_WRITE);
	s = xe_open_set(c.fd, (uint64_t)id, XE_FORMAT_A32, 10);
	ck_assert_int_ge(s, 0);
	ck_assert(readable_within(s, 1000));
	ck_assert_int_eq(ioctl(s, DRM_XE_OBSERVATION_IOCTL_ENABLE, 0), 0);
	ck_assert_int_gt(read_ret(s, buf, sizeof(buf)), 0);
	close(s);
	card_stop(&c);
}
END_TEST

/*
 * Any format the platform has is taken (i915: oa_init_supported_formats()
 * and engine_supports_oa_format(); xe: xe_oa_init_supported_formats() and
 * decode_oa_format()), and no other.
 */
START_TEST(every_format_of_the_platform_is_taken)
{
	struct card c;
	card_start(&c, "i915:tglgt2", "i915");
	int id = i915_add_config(c.fd, RENDER_BASIC, NOA_WRITE, 0, 0);
	int s = i915_open_set(c.fd, (uint64_t)id, I915_OA_FORMAT_A12, 10);
	ck_assert_int_ge(s, 0);
	close(s);
	/* DG2's format is not Tiger Lake's. */
	ck_assert_int_eq(i915_open_set(c.fd, (uint64_t)id,
				       12 /* A24u40_A14u32_B8_C8 */, 10), -EINVAL);
	card_stop(&c);

	card_start(&c, "i915:acmgt1", NULL);
	id = i915_add_config(c.fd, RENDER_BASIC, NOA_WRITE, 0, 0);
	ck_assert_int_eq(id, 2);
	/* OAR's format on the render engine's OAG unit. */
	s = i915_open_set(c.fd, 2, 11 /* OAR_A32u40_A4u32_B8_C8 */, 10);
	ck_assert_int_ge(s, 0);
	close(s);
	ck_assert_int_eq(i915_open_set(c.fd, 2, I915_OA_FORMAT_A32u40_A4u32_B8_C8, 10),
			 -EINVAL);
	card_stop(&c);

	card_start(&c, "xe:tglgt2", "xe");
	id = xe_add_config(c.fd, RENDER_BASIC, NOA_WRITE);
	s = xe_open_set(c.fd, (uint64_t)id, XE_FORMAT_A12_B8_C8, 10);
	ck_assert_int_ge(s, 0);
	close(s);
	card_stop(&c);
}
END_TEST

/*
 * An unprivileged stream's rate: 1e9 / oa_exponent_to_ns(), the period
 * rounded up to whole ns, 2^(e+1) x 1e9 / f, against
 * dev.i915.oa_max_sample_rate (read_properties_unlocked()). At 19.2 MHz
 * exponent 6 is 6667 ns, 149992 Hz.
 */
START_TEST(sample_rate_is_checked_on_the_rounded_period)
{
	struct card c;
	card_start(&c, "i915:tglgt2", "i915");
	int id = i915_add_config(c.fd, RENDER_BASIC, NOA_WRITE, 0, 0);
	sysctl_set(&c, "dev/i915/perf_stream_paranoid", "0");
	sysctl_set(&c, "dev/i915/oa_max_sample_rate", "149999");
	fake_machine_control(&c.m, "capable=0\n");
	int s = i915_open_set(c.fd, (uint64_t)id, I915_OA_FORMAT_A32u40_A4u32_B8_C8, 6);
	ck_assert_int_ge(s, 0);
	close(s);
	ck_assert_int_eq(i915_open_set(c.fd, (uint64_t)id,
				       I915_OA_FORMAT_A32u40_A4u32_B8_C8, 5), -EACCES);
	card_stop(&c);
}
END_TEST

/* A DEVICE_QUERY of id: its blob, in buf. */
static uint32_t xe_query(int fd, uint32_t query, void *out, size_t size)
{
	struct drm_xe_device_query q = { .query = query };
	ck_assert_int_eq(ioctl_ret(fd, DRM_IOCTL_XE_DEVICE_QUERY, &q), 0);
	ck_assert_uint_le(q.size, size);
	q.data = (uintptr_t)out;
	ck_assert_int_eq(ioctl_ret(fd, DRM_IOCTL_XE_DEVICE_QUERY, &q), 0);
	return q.size;
}

/* The types of GT gt's topology masks, a bit per type; n_bytes of each. */
static unsigned topology_types(const unsigned char *blob, uint32_t size,
			       uint16_t gt)
{
	unsigned types = 0;
	for (uint32_t at = 0; at < size;) {
		struct drm_xe_query_topology_mask m;
		memcpy(&m, blob + at, sizeof(m));
		if (m.gt_id == gt)
			types |= 1u << m.type;
		at += sizeof(m) + m.num_bytes;
	}
	return types;
}

struct unit_seen {
	uint32_t type;
	uint64_t freq;
	uint64_t n_engines;
	uint16_t engine_class, gt_id;
};

static unsigned oa_units(int fd, struct unit_seen *out, unsigned max)
{
	static unsigned char blob[4096];
	xe_query(fd, DRM_XE_DEVICE_QUERY_OA_UNITS, blob, sizeof(blob));
	struct drm_xe_query_oa_units head;
	memcpy(&head, blob, sizeof(head));
	size_t at = sizeof(head);
	for (unsigned i = 0; i < head.num_oa_units && i < max; i++) {
		struct drm_xe_oa_unit u;
		memcpy(&u, blob + at, sizeof(u));
		out[i] = (struct unit_seen){
			.type = u.oa_unit_type, .freq = u.oa_timestamp_freq,
			.n_engines = u.num_engines,
		};
		if (u.num_engines) {
			struct drm_xe_engine_class_instance e;
			memcpy(&e, blob + at + sizeof(u), sizeof(e));
			out[i].engine_class = e.engine_class;
			out[i].gt_id = e.gt_id;
		}
		at += sizeof(u) + u.num_engines * sizeof(struct drm_xe_engine_class_instance);
	}
	return head.num_oa_units;
}

/*
 * xe's queries of a part with a standalone media GT (query_gt_list(),
 * query_gt_topology(), query_oa_units()): MTL's media GT has an OAM unit
 * of the video engines, whose clock is the media GT's reference clock
 * (xe_oa_timestamp_frequency(): the workarounds that double the OAG
 * clock match the main GT only); L3 banks are told for the main GT;
 * Xe2 has an OAM_SAG unit without engines, and SIMD16 EUs.
 */
START_TEST(xe_queries_tell_gts_units_and_topology)
{
	static unsigned char blob[4096];
	struct card c;
	card_start(&c, "xe:mtlgt2", NULL);
	xe_query(c.fd, DRM_XE_DEVICE_QUERY_GT_LIST, blob, sizeof(blob));
	struct drm_xe_query_gt_list list;
	memcpy(&list, blob, sizeof(list));
	ck_assert_uint_eq(list.num_gt, 2);
	struct drm_xe_gt gt[2];
	memcpy(gt, blob + sizeof(list), sizeof(gt));
	ck_assert_uint_eq(gt[0].type, DRM_XE_QUERY_GT_TYPE_MAIN);
	ck_assert_uint_eq(gt[1].type, DRM_XE_QUERY_GT_TYPE_MEDIA);
	ck_assert_uint_eq(gt[1].gt_id, 1);
	uint32_t size = xe_query(c.fd, DRM_XE_DEVICE_QUERY_GT_TOPOLOGY, blob, sizeof(blob));
	ck_assert_uint_ne(topology_types(blob, size, 0) & 1u << DRM_XE_TOPO_L3_BANK, 0);
	ck_assert_uint_eq(topology_types(blob, size, 1) & 1u << DRM_XE_TOPO_L3_BANK, 0);
	struct unit_seen u[4];
	ck_assert_uint_eq(oa_units(c.fd, u, 4), 2);
	ck_assert_uint_eq(u[0].type, DRM_XE_OA_UNIT_TYPE_OAG);
	ck_assert_uint_eq(u[0].engine_class, ENGINE_CLASS_RENDER);
	ck_assert_uint_eq(u[0].freq, 2ull * gt[0].reference_clock);
	ck_assert_uint_eq(u[1].type, DRM_XE_OA_UNIT_TYPE_OAM);
	ck_assert_uint_eq(u[1].engine_class, ENGINE_CLASS_VIDEO);
	ck_assert_uint_eq(u[1].gt_id, 1);
	ck_assert_uint_eq(u[1].freq, gt[1].reference_clock);
	card_stop(&c);

	card_start(&c, "xe:lnl", NULL);
	size = xe_query(c.fd, DRM_XE_DEVICE_QUERY_GT_TOPOLOGY, blob, sizeof(blob));
	unsigned types = topology_types(blob, size, 0);
	ck_assert_uint_ne(types & 1u << DRM_XE_TOPO_SIMD16_EU_PER_DSS, 0);
	ck_assert_uint_eq(types & 1u << DRM_XE_TOPO_EU_PER_DSS, 0);
	ck_assert_uint_eq(oa_units(c.fd, u, 4), 3);
	ck_assert_uint_eq(u[1].type, DRM_XE_OA_UNIT_TYPE_OAM_SAG);
	ck_assert_uint_eq(u[1].n_engines, 0);
	ck_assert_uint_eq(u[2].type, DRM_XE_OA_UNIT_TYPE_OAM);
	card_stop(&c);
}
END_TEST

/* Config ids: the lowest free one, from 2 on i915 (idr_alloc(.., 2, 0) in
 * i915_perf_add_config_ioctl()) and from 1 on xe (xe_oa_add_config_ioctl()). */
START_TEST(config_ids_reuse_the_lowest_free)
{
	struct card c;
	card_start(&c, "i915:tglgt2", NULL);
	ck_assert_int_eq(i915_add_config(c.fd, RENDER_BASIC, NOA_WRITE, 0, 0), 2);
	ck_assert_int_eq(i915_add_config(c.fd, COMPUTE_BASIC, NOA_WRITE, 0, 0), 3);
	ck_assert_int_eq(i915_remove_config(c.fd, 2), 0);
	ck_assert_int_eq(i915_add_config(c.fd, RENDER_BASIC, NOA_WRITE, 0, 0), 2);
	card_stop(&c);

	card_start(&c, "xe:tglgt2", NULL);
	ck_assert_int_eq(xe_add_config(c.fd, RENDER_BASIC, NOA_WRITE), 1);
	ck_assert_int_eq(xe_add_config(c.fd, COMPUTE_BASIC, NOA_WRITE), 2);
	ck_assert_int_eq(xe_remove_config(c.fd, 1), 0);
	ck_assert_int_eq(xe_add_config(c.fd, RENDER_BASIC, NOA_WRITE), 1);
	card_stop(&c);
}
END_TEST

static int context_create(int fd)
{
	struct drm_i915_gem_context_create create = { 0 };
	ck_assert_int_eq(ioctl_ret(fd, DRM_IOCTL_I915_GEM_CONTEXT_CREATE, &create), 0);
	return (int)create.ctx_id;
}

static int open_on_context(int fd, uint64_t set, uint64_t ctx)
{
	uint64_t props[] = {
		DRM_I915_PERF_PROP_CTX_HANDLE, ctx,
		DRM_I915_PERF_PROP_SAMPLE_OA, 1,
		DRM_I915_PERF_PROP_OA_METRICS_SET, set,
		DRM_I915_PERF_PROP_OA_FORMAT, I915_OA_FORMAT_A32u40_A4u32_B8_C8,
		DRM_I915_PERF_PROP_OA_EXPONENT, 10,
	};
	return i915_open(fd, props, 5, 0);
}

/*
 * A context handle is its DRM file's: i915_gem_context_lookup() looks in
 * the caller's file only, where 0 is the file's default context
 * (i915_gem_context_open()) and created ones count from 1.
 */
START_TEST(context_handles_belong_to_their_file)
{
	struct card c;
	card_start(&c, "i915:tglgt2", "i915");
	int other = open(c.m.node, O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(other, 0);
	int id = i915_add_config(c.fd, RENDER_BASIC, NOA_WRITE, 0, 0);
	ck_assert_int_eq(context_create(other), 1);
	ck_assert_int_eq(context_create(other), 2);
	/* Handle 1 is the other file's. */
	ck_assert_int_eq(open_on_context(c.fd, (uint64_t)id, 1), -ENOENT);
	int s = open_on_context(c.fd, (uint64_t)id, 0);
	ck_assert_int_ge(s, 0);
	close(s);
	s = open_on_context(other, (uint64_t)id, 2);
	ck_assert_int_ge(s, 0);
	close(s);
	ck_assert_int_eq(context_create(c.fd), 1);
	s = open_on_context(c.fd, (uint64_t)id, 1);
	ck_assert_int_ge(s, 0);
	close(s);
	close(other);
	card_stop(&c);
}
END_TEST

/* 0, or -1 when the message did not go (no assertion: a helper process
 * outside any test calls it too). */
static int send_fd(int sock, int fd)
{
	char byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int receive_fd(int sock)
{
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	int fd;
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* Another application, a process of its own: it opens card c's node,
 * creates context 1 and passes the file over *sock; it exits once told
 * (app_stop()). */
struct app {
	pid_t pid;
	int sv[2];
};

static int app_start(const struct card *c, struct app *a)
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, a->sv), 0);
	a->pid = fork();
	ck_assert_int_ge(a->pid, 0);
	if (a->pid == 0) {
		int app = open(c->m.node, O_RDWR | O_CLOEXEC);
		struct drm_i915_gem_context_create create = { 0 };
		if (app < 0 || ioctl(app, DRM_IOCTL_I915_GEM_CONTEXT_CREATE, &create) ||
		    create.ctx_id != 1)
			_exit(1);
		if (send_fd(a->sv[1], app))
			_exit(3);
		char done;
		_exit(read(a->sv[1], &done, 1) == 1 ? 0 : 2);
	}
	int passed = receive_fd(a->sv[0]);
	ck_assert_int_ge(passed, 0);
	return passed;
}

static void app_stop(struct app *a)
{
	ck_assert_int_eq(write(a->sv[0], "x", 1), 1);
	int status;
	ck_assert_int_eq(waitpid(a->pid, &status, 0), a->pid);
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	close(a->sv[0]);
	close(a->sv[1]);
}

/*
 * The DRM file is the open file description (drm_open_helper() keeps
 * struct drm_file in filp->private_data): a descriptor another process
 * passed in SCM_RIGHTS, or a dup(), finds the contexts its creator made,
 * and a context made through the copy is the original's too.
 */
START_TEST(a_passed_file_keeps_its_contexts)
{
	struct card c;
	card_start(&c, "i915:tglgt2", "i915");
	int id = i915_add_config(c.fd, RENDER_BASIC, NOA_WRITE, 0, 0);
	struct app a;
	int passed = app_start(&c, &a);
	int s = open_on_context(passed, (uint64_t)id, 1);
	ck_assert_int_ge(s, 0);
	close(s);
	/* The receiver's own file has no context 1. */
	ck_assert_int_eq(open_on_context(c.fd, (uint64_t)id, 1), -ENOENT);
	int copy = dup(passed);
	ck_assert_int_eq(context_create(copy), 2);
	s = open_on_context(passed, (uint64_t)id, 2);
	ck_assert_int_ge(s, 0);
	close(s);
	app_stop(&a);
	close(copy);
	close(passed);
	card_stop(&c);
}
END_TEST


/* The program a shell execs in a_file_kept_across_exec_keeps_its_contexts:
 * this binary again, run with TEST_EXEC_PASS_SOCKET=S, creates a context
 * on the fd 3 it inherited and passes fd 3 back over fd S. */
#define EXEC_PASS_SOCKET "TEST_EXEC_PASS_SOCKET"
#define EXEC_KEPT_FD 3
#define EXEC_SOCKET_FD 40

__attribute__((constructor))
static void exec_pass_helper(void)
{
	const char *sock = getenv(EXEC_PASS_SOCKET);
	if (!sock || !getenv("GPD_FAKE_KERNEL_PRELOADED"))
		return;
	struct drm_i915_gem_context_create create = { 0 };
	int ret = ioctl(EXEC_KEPT_FD, DRM_IOCTL_I915_GEM_CONTEXT_CREATE, &create);
	if (ret || create.ctx_id != 1)
		_exit(3);
	_exit(send_fd(atoi(sock), EXEC_KEPT_FD) ? 4 : 0);
}

/*
 * A descriptor a process inherits through fork() and keeps across
 * execve() is the same open file (dup_fd() copies the table's files;
 * begin_new_exec() closes only close-on-exec descriptors,
 * do_close_on_exec(); Linux 6.12), so the DRM file and its contexts are
 * the ones its opener made. Here a shell opens the node as fd 3 (dup2()
 * onto 3, do_dup2()) and execs a program that creates a context there
 * and passes the fd on: the context is that file's.
 */
START_TEST(a_file_kept_across_exec_keeps_its_contexts)
{
	struct card c;
	card_start(&c, "i915:tglgt2", "i915");
	int id = i915_add_config(c.fd, RENDER_BASIC, NOA_WRITE, 0, 0);
	int sv[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	char self[PATH_MAX], script[3 * PATH_MAX], sock[16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	ck_assert_int_gt(n, 0);
	self[n] = '\0';
	snprintf(script, sizeof(script), "exec %d<%s; exec %s", EXEC_KEPT_FD,
		 "/dev/dri/card0", self);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* The socket out of the way of the shell's fd 3 and of the
		 * numbers dash keeps its own at (10 on). */
		snprintf(sock, sizeof(sock), "%d", EXEC_SOCKET_FD);
		if (dup2(sv[1], EXEC_SOCKET_FD) != EXEC_SOCKET_FD)
			_exit(5);
		/* The shell starts as a command would: 0-2 and the socket. */
		close_range(3, EXEC_SOCKET_FD - 1, CLOSE_RANGE_CLOEXEC);
		setenv(EXEC_PASS_SOCKET, sock, 1);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(4);
	}
	close(sv[1]);
	int kept = receive_fd(sv[0]);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_int_ge(kept, 0);
	/* The context the exec'd program made is the file's. */
	int s = open_on_context(kept, (uint64_t)id, 1);
	ck_assert_int_ge(s, 0);
	close(s);
	ck_assert_int_eq(context_create(kept), 2);
	ck_assert_uint_eq(fake_machine_requests(&c.m, "GEM_CONTEXT_CREATE -> 1,"), 1);
	close(kept);
	close(sv[0]);
	card_stop(&c);
}
END_TEST

/* --- xe exec queues --- */

static int xe_vm_create(int fd)
{
	struct drm_xe_vm_create vm = { 0 };
	int ret = ioctl_ret(fd, DRM_IOCTL_XE_VM_CREATE, &vm);
	return ret ? ret : (int)vm.vm_id;
}

/* An exec queue of width batches on engines class:first.. of gt. */
static int xe_queue_create(int fd, uint32_t vm, uint16_t engine_class,
			   uint16_t first, uint16_t gt, uint16_t width)
{
	struct drm_xe_engine_class_instance eci[4];
	for (uint16_t i = 0; i < width; i++)
		eci[i] = (struct drm_xe_engine_class_instance){
			.engine_class = engine_class,
			.engine_instance = (uint16_t)(first + i), .gt_id = gt,
		};
	struct drm_xe_exec_queue_create q = {
		.width = width, .num_placements = 1, .vm_id = vm,
		.instances = (uintptr_t)eci,
	};
	int ret = ioctl_ret(fd, DRM_IOCTL_XE_EXEC_QUEUE_CREATE, &q);
	return ret ? ret : (int)q.exec_queue_id;
}

/* A stream of set on OA unit 0 for exec queue queue; sampling or not. */
static int xe_open_queue(int fd, uint64_t set, uint64_t queue, bool sample)
{
	struct xe_props props = { .n = 0 };
	xe_prop(&props, DRM_XE_OA_PROPERTY_EXEC_QUEUE_ID, queue);
	xe_prop(&props, DRM_XE_OA_PROPERTY_SAMPLE_OA, sample);
	xe_prop(&props, DRM_XE_OA_PROPERTY_OA_METRIC_SET, set);
	xe_prop(&props, DRM_XE_OA_PROPERTY_OA_FORMAT, XE_FORMAT_A32);
	if (sample)
		xe_prop(&props, DRM_XE_OA_PROPERTY_OA_PERIOD_EXPONENT, 10);
	return xe_open(fd, &props);
}

/*
 * An exec queue is its DRM file's: ids from 1 in each file
 * (xe_file_open()'s XA_FLAGS_ALLOC1), created on a VM of the same file
 * (xe_exec_queue_create_ioctl(): ENOENT), and a stream of it opens only
 * on that file (xe_oa_stream_open_ioctl(): xe_exec_queue_lookup(),
 * ENOENT). The stream programs the queue's OAR counters and takes them
 * back at close; a queue of the copy engine, which no OA unit samples,
 * is EINVAL (xe_oa_assign_hwe()).
 */
START_TEST(exec_queues_belong_to_their_file)
{
	struct card c;
	card_start(&c, "xe:tglgt2", "xe");
	int app = open(c.m.node, O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(app, 0);
	int id = xe_add_config(c.fd, RENDER_BASIC, NOA_WRITE);
	ck_assert_int_eq(xe_queue_create(app, 1, ENGINE_CLASS_RENDER, 0, 0, 1),
			 -ENOENT);
	ck_assert_int_eq(xe_vm_create(app), 1);
	ck_assert_int_eq(xe_queue_create(app, 1, ENGINE_CLASS_RENDER, 0, 0, 1), 1);
	ck_assert_int_eq(xe_queue_create(app, 1, ENGINE_CLASS_COPY, 0, 0, 1), 2);
	/* No GT 1 on Tiger Lake, no second render engine. */
	ck_assert_int_eq(xe_queue_create(app, 1, ENGINE_CLASS_RENDER, 0, 1, 1),
			 -EINVAL);
	ck_assert_int_eq(xe_queue_create(app, 1, ENGINE_CLASS_RENDER, 1, 0, 1),
			 -EINVAL);

	ck_assert_int_eq(xe_open_queue(c.fd, (uint64_t)id, 1, true), -ENOENT);
	ck_assert_int_eq(xe_open_queue(app, (uint64_t)id, 2, true), -EINVAL);
	int s = xe_open_queue(app, (uint64_t)id, 1, true);
	ck_assert_int_ge(s, 0);
	ck_assert_uint_eq(fake_machine_requests(&c.m, "exec queue 1: OAR "
						"counters on"), 1);
	close(s);
	ck_assert_uint_eq(fake_machine_requests(&c.m, "exec queue 1: OAR "
						"counters off"), 1);

	/* The other file's own queue 1 is another queue. */
	ck_assert_int_eq(xe_vm_create(c.fd), 1);
	ck_assert_int_eq(xe_queue_create(c.fd, 1, ENGINE_CLASS_COPY, 0, 0, 1), 1);
	ck_assert_int_eq(xe_open_queue(c.fd, (uint64_t)id, 1, true), -EINVAL);
	struct drm_xe_exec_queue_destroy destroy = { .exec_queue_id = 1 };
	ck_assert_int_eq(ioctl_ret(app, DRM_IOCTL_XE_EXEC_QUEUE_DESTROY, &destroy), 0);
	ck_assert_int_eq(ioctl_ret(app, DRM_IOCTL_XE_EXEC_QUEUE_DESTROY, &destroy),
			 -ENOENT);
	ck_assert_int_eq(xe_open_queue(app, (uint64_t)id, 1, true), -ENOENT);
	ck_assert_int_eq(xe_queue_create(app, 1, ENGINE_CLASS_RENDER, 0, 0, 1), 1);
	close(app);
	card_stop(&c);
}
END_TEST

/*
 * xe_oa_stream_open_ioctl(): counting a queue's own OAR counters without
 * the OA buffer needs no privilege, sampling does; a queue is for an OAG
 * unit only; a parallel queue is EOPNOTSUPP; and the OA buffer of a
 * queue's stream is not filtered (xe_oa_append_reports()): other
 * contexts' reports come too.
 */
START_TEST(an_exec_queue_stream_is_checked_and_not_filtered)
{
	struct card c;
	card_start(&c, "xe:tglgt2", "xe");
	int id = xe_add_config(c.fd, RENDER_BASIC, NOA_WRITE);
	int app = open(c.m.node, O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(app, 0);
	ck_assert_int_eq(xe_vm_create(app), 1);
	/* Two applications' queues run; the stream is of the first's. */
	ck_assert_int_eq(xe_queue_create(app, 1, ENGINE_CLASS_RENDER, 0, 0, 1), 1);
	ck_assert_int_eq(xe_vm_create(c.fd), 1);
	ck_assert_int_eq(xe_queue_create(c.fd, 1, ENGINE_CLASS_RENDER, 0, 0, 1), 1);
	fake_machine_control(&c.m, "capable=0\n");
	ck_assert_int_eq(xe_open_queue(app, (uint64_t)id, 1, true), -EACCES);
	int s = xe_open_queue(app, (uint64_t)id, 1, false);
	ck_assert_int_ge(s, 0);
	ck_assert_int_eq(read_ret(s, buf, sizeof(buf)), -EINVAL);
	close(s);
	fake_machine_control(&c.m, "capable=1\n");
	s = xe_open_queue(app, (uint64_t)id, 1, true);
	ck_assert_int_ge(s, 0);
	size_t n = read_for_a_while(s, false);
	close(s);
	struct gpm_oa_decoder dec =
		test_oa_decoder(GPM_OA_FORMAT_A32u40_A4u32_B8_C8, 1200);
	uint32_t seen[8];
	unsigned n_seen = 0;
	for (size_t at = 0; at + dec.format->size <= n; at += dec.format->size) {
		struct gpm_oa_report r;
		ck_assert_int_eq(gpm_oa_report_decode(&dec, buf + at,
						      dec.format->size, &r), 0);
		bool known = !r.ctx_valid;
		for (unsigned k = 0; k < n_seen && !known; k++)
			known = seen[k] == r.ctx_id;
		if (!known && n_seen < 8)
			seen[n_seen++] = r.ctx_id;
	}
	ck_assert_uint_ge(n_seen, 2);
	close(app);
	card_stop(&c);

	/* MTL: a video queue's batches on two engines at once; the media
	 * GT's OAM unit takes no queue. */
	card_start(&c, "xe:mtlgt2", NULL);
	ck_assert_int_eq(xe_vm_create(c.fd), 1);
	ck_assert_int_eq(xe_queue_create(c.fd, 1, ENGINE_CLASS_VIDEO, 0, 1, 2), 1);
	ck_assert_int_eq(xe_open_queue(c.fd, 1, 1, true), -EOPNOTSUPP);
	struct xe_props props = { .n = 0 };
	xe_prop(&props, DRM_XE_OA_PROPERTY_OA_UNIT_ID, 1);
	xe_prop(&props, DRM_XE_OA_PROPERTY_EXEC_QUEUE_ID, 1);
	xe_prop(&props, DRM_XE_OA_PROPERTY_SAMPLE_OA, 1);
	ck_assert_int_eq(xe_open(c.fd, &props), -EINVAL);
	card_stop(&c);
}
END_TEST

/* The context IDs of the valid-context reports among n bytes of i915
 * records, each once; how many. A single-context stream's reports of
 * other contexts carry INVALID_CTX_ID (gen8_append_oa_reports()). */
static unsigned valid_context_ids(const unsigned char *p, size_t n,
				  uint32_t *ids, unsigned max)
{
	struct gpm_oa_decoder dec =
		test_oa_decoder(GPM_OA_FORMAT_A32u40_A4u32_B8_C8, 1200);
	unsigned count = 0;
	for (size_t at = 0; at < n;) {
		uint32_t type;
		uint16_t rec;
		memcpy(&type, p + at, 4);
		memcpy(&rec, p + at + 6, 2);
		ck_assert_uint_ge(rec, GPM_OA_RECORD_HEADER_SIZE);
		const unsigned char *r = p + at + GPM_OA_RECORD_HEADER_SIZE;
		at += rec;
		struct gpm_oa_report out;
		if (type != GPM_OA_RECORD_SAMPLE ||
		    gpm_oa_report_decode(&dec, r, dec.format->size, &out) ||
		    !out.ctx_valid || out.ctx_id == 0xffffffffu)
			continue;
		bool known = false;
		for (unsigned i = 0; i < count; i++)
			known |= ids[i] == out.ctx_id;
		if (!known && count < max)
			ids[count++] = out.ctx_id;
	}
	return count;
}

/* The context IDs a single-context stream on ctx of fd shows. */
static unsigned context_ids_streamed(int fd, uint64_t set, uint64_t ctx,
				     uint32_t *ids, unsigned max)
{
	int s = open_on_context(fd, set, ctx);
	ck_assert_int_ge(s, 0);
	unsigned count = 0;
	for (int i = 0; i < 200 && !count; i++)
		count = valid_context_ids(buf, read_for_a_while(s, true), ids, max);
	close(s);
	return count;
}

/*
 * Two processes' contexts on one GPU run as two hardware contexts: the
 * engine hands out the IDs (__execlists_schedule_in()'s context_tag,
 * Linux 6.12), not the process, so a single-context stream of one never
 * shows the other's reports as its own.
 */
START_TEST(contexts_of_two_processes_are_two_hardware_contexts)
{
	struct card c;
	card_start(&c, "i915:tglgt2", "i915");
	int id = i915_add_config(c.fd, RENDER_BASIC, NOA_WRITE, 0, 0);
	struct app a;
	int theirs = app_start(&c, &a);
	ck_assert_int_eq(context_create(c.fd), 1);
	uint32_t mine[4], other[4];
	unsigned n_mine = context_ids_streamed(c.fd, (uint64_t)id, 1, mine, 4);
	unsigned n_other = context_ids_streamed(theirs, (uint64_t)id, 1, other, 4);
	ck_assert_uint_eq(n_mine, 1);
	ck_assert_uint_eq(n_other, 1);
	ck_assert_uint_ne(mine[0], other[0]);
	app_stop(&a);
	close(theirs);
	card_stop(&c);
}
END_TEST

static Suite *fake_kernel_suite(void)
{
	Suite *s = suite_create("fake_kernel");
	TCase *tc = tcase_create("uapi");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, xe_status_is_what_the_last_read_found);
	tcase_add_test(tc, only_i915_squashes_invalid_contexts);
	tcase_add_test(tc, add_config_takes_listed_registers_only);
	tcase_add_test(tc, refusals_come_in_the_kernels_order);
	tcase_add_test(tc, enospc_only_when_no_record_fits);
	tcase_add_test(tc, pollin_only_with_reports_waiting);
	tcase_add_test(tc, enable_when_enabled_keeps_the_reports);
	tcase_add_test(tc, every_format_of_the_platform_is_taken);
	tcase_add_test(tc, sample_rate_is_checked_on_the_rounded_period);
	tcase_add_test(tc, xe_queries_tell_gts_units_and_topology);
	tcase_add_test(tc, config_ids_reuse_the_lowest_free);
	tcase_add_test(tc, context_handles_belong_to_their_file);
	tcase_add_test(tc, a_passed_file_keeps_its_contexts);
	tcase_add_test(tc, a_file_kept_across_exec_keeps_its_contexts);
	tcase_add_test(tc, exec_queues_belong_to_their_file);
	tcase_add_test(tc, an_exec_queue_stream_is_checked_and_not_filtered);
	tcase_add_test(tc, contexts_of_two_processes_are_two_hardware_contexts);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(fake_kernel_suite)
