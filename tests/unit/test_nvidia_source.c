/*
 * The nvidia source on a fake GPU (fake_nvidia.h), through the daemon and
 * the subscription API on a real loop: windows from samples, the setup
 * sample dropped, overflows and gaps counted (the closing log line too)
 * and the session restarted, decoding and evaluation on threads of their
 * own over two images,
 * HARDWARE_BUSY reported as busy elsewhere and recovered from, NVML
 * telemetry, missing libraries in words. A real GPU is used only when the
 * libraries and one are there.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <uv.h>

#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/nvidia/nvidia_source.h"
#include "daemon/recorder.h"
#include "metrics/metric_set.h"
#include "tests/unit/fake_nvidia.h"
#include "tests/unit/test_util.h"

struct run {
	struct gpd_daemon daemon;
	struct gpd_subscription *sub;
	uv_timer_t timeout, poke;
	bool timed_out;
	unsigned stop_after;            /* frames; 0: run until the timeout */
	unsigned frames;
	char symbols[16][48];
	size_t n_symbols;
	unsigned min_reports;           /* frames with fewer are not counted */
	/* Of the frames that had reports. */
	double sums[16];
	unsigned counted;
	double min[16], max[16];
	uint64_t reports, max_reports, buffer_lost;
	unsigned events[8];
	char last_message[256];
	struct gpd_nv_sampler_stats stats;     /* the source's, at the last frame */
	/* Called at every frame; may change the fake. */
	void (*on_frame)(struct run *r);
};

static int value_index(const struct run *r, const char *symbol)
{
	for (size_t i = 0; i < r->n_symbols; i++)
		if (!strcmp(r->symbols[i], symbol))
			return (int)i;
	ck_abort_msg("no counter %s in the frames", symbol);
	return -1;
}

static double mean_of(const struct run *r, const char *symbol)
{
	ck_assert_uint_gt(r->counted, 0);
	return r->sums[value_index(r, symbol)] / r->counted;
}

static void stop(struct run *r)
{
	uv_timer_stop(&r->timeout);
	if (r->sub) {
		gpd_unsubscribe(r->sub);
		r->sub = NULL;
	}
	gpd_daemon_stop(&r->daemon);
}

static void on_enough(uv_timer_t *t)
{
	stop(t->data);
}

static void on_frame(void *user, const struct gpd_frame *f)
{
	struct run *r = user;
	r->frames++;
	r->buffer_lost += f->buffer_lost;
	r->reports += f->reports;
	/* A window cut short by a loss or a restart has few reports: only
	 * whole ones go into the means. */
	if (f->reports >= (r->min_reports ? r->min_reports : 5)) {
		for (size_t i = 0; i < f->n_values && i < 16; i++) {
			double v = gpm_value_as_double(f->values[i]);
			r->sums[i] += v;
			if (!r->counted || v < r->min[i])
				r->min[i] = v;
			if (!r->counted || v > r->max[i])
				r->max[i] = v;
		}
		r->counted++;
	}
	if (f->reports > r->max_reports)
		r->max_reports = f->reports;
	struct gpd_device *dev = gpd_daemon_find_device(&r->daemon, NULL);
	if (dev->source->kind == GPD_SOURCE_NVIDIA)
		gpd_nvidia_source_stats(dev->source, &r->stats);
	if (r->on_frame)
		r->on_frame(r);
	/* Not from inside the frame: the subscription is still in use. */
	if (r->stop_after && r->frames >= r->stop_after && r->sub)
		uv_timer_start(&r->timeout, on_enough, 0, 0);
}

static void on_event(void *user, const struct gpd_event *ev)
{
	struct run *r = user;
	if ((unsigned)ev->kind < 8)
		r->events[ev->kind]++;
	snprintf(r->last_message, sizeof(r->last_message), "%s", ev->message);
}

static void on_timeout(uv_timer_t *t)
{
	struct run *r = t->data;
	r->timed_out = true;
	stop(r);
}

static const struct gpd_subscriber_ops ops = { .frame = on_frame, .event = on_event };

/* Starts the daemon on the fake GPU (or libs) with spec, without the
 * daemon's floor on periods: the GPU's own limits are what is tried. */
static void start(struct run *r, const char *spec, const struct gpd_nv_libs *libs)
{
	memset(r, 0, sizeof(*r));
	struct gpd_options o = {
		.device_specs = &spec,
		.n_device_specs = 1,
		.nvidia_libs = libs,
		.min_period_ns = 1,
	};
	struct gpd_error err = { 0 };
	ck_assert_msg(gpd_daemon_init(&r->daemon, uv_default_loop(), &o, &err) == 0,
		      "%s", err.message);
}

static int subscribe(struct run *r, const char *set, uint64_t period_ns,
		     uint64_t window_ns, struct gpd_error *err)
{
	struct gpd_subscribe_request req = {
		.metric_set = set,
		.sampling_period_ns = period_ns,
		.window_ns = window_ns,
		.role = GPD_ROLE_CONTROLLER,
	};
	int ret = gpd_subscribe(&r->daemon.registry, &req, &ops, r, &r->sub, err);
	if (ret)
		return ret;
	const char *const *symbols;
	size_t n = gpd_subscription_counters(r->sub, &symbols);
	for (r->n_symbols = 0; r->n_symbols < n && r->n_symbols < 16; r->n_symbols++)
		snprintf(r->symbols[r->n_symbols], sizeof(r->symbols[0]), "%s",
			 symbols[r->n_symbols]);
	return 0;
}

/* Runs the loop until stop_after frames or timeout_ms. */
static void run_loop(struct run *r, unsigned stop_after, uint64_t timeout_ms)
{
	r->stop_after = stop_after;
	uv_timer_init(uv_default_loop(), &r->timeout);
	r->timeout.data = r;
	uv_timer_start(&r->timeout, on_timeout, timeout_ms, 0);
	uv_run(uv_default_loop(), UV_RUN_DEFAULT);
	uv_close((uv_handle_t *)&r->timeout, NULL);
	uv_run(uv_default_loop(), UV_RUN_DEFAULT);
	gpd_daemon_fini(&r->daemon);
}

static void finish(struct run *r)
{
	gpd_daemon_stop(&r->daemon);
	uv_run(uv_default_loop(), UV_RUN_DEFAULT);
	gpd_daemon_fini(&r->daemon);
}

/* The Basic set's rates: SM active half the time, the tensor pipes of
 * the four sub-partitions a quarter, 1978.25 GB/s read and 1500 GB/s
 * written. */
static void basic_rates(void)
{
	FAKE_LOCKED(fake.rate[1] = fake.rate[0] * 0.5;
		    fake.rate[2] = fake.rate[0] * 4 * 0.25;
		    fake.rate[3] = 1978.25; fake.rate[4] = 1500);
}

static void check_basic_means(const struct run *r)
{
	ck_assert_double_eq_tol(mean_of(r, "SmActive"), 50, 1e-6);
	ck_assert_double_eq_tol(mean_of(r, "TensorActive"), 25, 1e-6);
	ck_assert_double_eq_tol(mean_of(r, "DramReadBandwidth"), 1978.25, 0.05);
	ck_assert_double_eq_tol(mean_of(r, "DramBandwidth"), 3478.25, 0.1);
	/* Nothing of the setup sample (1e15 per counter) shows. */
	ck_assert_double_le(r->max[value_index(r, "SmActive")], 50 + 1e-6);
	ck_assert_double_le(r->max[value_index(r, "DramReadBandwidth")], 1979);
}

START_TEST(windows_from_samples)
{
	struct run r;
	struct gpd_error err;
	fake_reset();
	basic_rates();
	start(&r, "nvidia:0", fake_libs());
	struct gpd_device *dev = gpd_daemon_find_device(&r.daemon, NULL);
	ck_assert_str_eq(dev->source->name, "nvidia0");
	ck_assert_str_eq(dev->source->platform->name, "gh100");
	ck_assert_uint_eq(dev->source->info.eu_threads_count, 64);
	ck_assert_uint_eq(dev->source->info.gpu_max_freq, 1980000000ull);
	ck_assert_int_eq(subscribe(&r, "Basic", 1000000, 20000000, &err), 0);
	/* 2^20 ticks: the longest period not above 1 ms. */
	pthread_mutex_lock(&fake.lock);
	ck_assert_uint_eq(fake.interval_ns, 800000);
	pthread_mutex_unlock(&fake.lock);
	ck_assert_uint_eq(fake.n_metrics, 5);
	ck_assert_str_eq(fake.metrics[3], "dram__bytes_read.sum");
	run_loop(&r, 12, 5000);
	ck_assert(!r.timed_out);
	/* 25 samples of 800 us make a 20 ms window. */
	ck_assert_uint_ge(r.max_reports, 24);
	ck_assert_uint_le(r.max_reports, 26);
	check_basic_means(&r);
	ck_assert_uint_eq(r.buffer_lost, 0);
	ck_assert_uint_eq(fake.configs, 1);
	ck_assert_uint_eq(fake.stops, 1);
	ck_assert_uint_eq(fake.disables, 1);
	ck_assert_uint_eq(fake.profiler_inits, fake.profiler_deinits);
	/* Where the sampler's time went: decodes every 100 ms (125 samples
	 * of 800 us), each far shorter. */
	const struct gpd_nv_pm_stats *pm = &r.stats.pm;
	ck_assert_uint_ge(pm->decodes, 2);
	ck_assert_uint_gt(pm->decode_ns, 0);
	ck_assert_uint_le(pm->decode_ns_max, 50 * 1000000ull);
	/* Decodes 100 ms apart as a rule; a loaded machine may run one
	 * late and the next soon after. */
	ck_assert_uint_ge(pm->apart_ns_max, 50 * 1000000ull);
	ck_assert_uint_le(pm->apart_ns_max, 1000 * 1000000ull);
	ck_assert_uint_ge(pm->samples_max, 125);
	ck_assert_uint_le(pm->samples_max, 126);
}
END_TEST

static void overflow_soon(struct run *r)
{
	if (r->frames == 3)
		FAKE_LOCKED(fake.overflow_at = fake.decodes + 1);
}


/* Runs Basic until `frames` frames; the sampler's statistics as of the
 * last frame. */
static struct gpd_nv_sampler_stats run_basic(struct run *r, unsigned frames)
{
	struct gpd_error err;
	ck_assert_int_eq(subscribe(r, "Basic", 1000000, 20000000, &err), 0);
	run_loop(r, frames, 5000);
	ck_assert(!r->timed_out);
	return r->stats;
}

START_TEST(first_sample_dropped)
{
	struct run r;
	fake_reset();
	basic_rates();
	start(&r, "nvidia:0", fake_libs());
	struct gpd_nv_sampler_stats st = run_basic(&r, 4);
	ck_assert_uint_eq(st.reports.setup_samples, 1);
	ck_assert_uint_eq(st.reports.gaps, 0);
	ck_assert_uint_eq(r.buffer_lost, 0);
	/* Its 1e15 counts would show in every mean. */
	check_basic_means(&r);
}
END_TEST

START_TEST(overflow_counted_and_restarted)
{
	struct run r;
	fake_reset();
	basic_rates();
	start(&r, "nvidia:0", fake_libs());
	r.on_frame = overflow_soon;
	struct gpd_nv_sampler_stats st = run_basic(&r, 14);
	ck_assert_uint_ge(r.buffer_lost, 1);
	ck_assert_uint_eq(st.overflows, 1);
	ck_assert_uint_eq(st.sessions, 2);
	ck_assert_uint_eq(st.reports.setup_samples, 2);
	ck_assert_uint_eq(fake.configs, 2);
	ck_assert_uint_eq(fake.starts, 2);
	ck_assert_uint_eq(fake.stops, 2);
	/* The next session gets twice the hardware buffer. */
	ck_assert_uint_eq(fake.hw_sizes[1], 2 * fake.hw_sizes[0]);
	/* Windows after the restart are as right as before it. */
	check_basic_means(&r);
}
END_TEST

/* The session whose overflow overflow_thrice last asked for. */
static unsigned overflow_armed;

/* Overflows until the fourth session, once a session: a frame of the
 * third may come after its overflow and before the sampler counted it. */
static void overflow_thrice(struct run *r)
{
	if (r->stats.overflows >= 3 && r->stats.sessions >= 4) {
		r->stop_after = r->frames;
		return;
	}
	pthread_mutex_lock(&fake.lock);
	if (fake.overflow_at <= fake.decodes &&
	    fake.configs == r->stats.sessions && overflow_armed < fake.configs) {
		fake.overflow_at = fake.decodes + 1;
		overflow_armed = fake.configs;
	}
	pthread_mutex_unlock(&fake.lock);
}

/* At 12.5 us the schedule's buffer is already the largest (256 MiB); the
 * overflows double it up to 1 GiB and no further. */
START_TEST(hardware_buffer_grows_to_1_gib)
{
	struct run r;
	struct gpd_error err;
	fake_reset();
	basic_rates();
	start(&r, "nvidia:0", fake_libs());
	ck_assert_int_eq(subscribe(&r, "Basic", 12500, 20000000, &err), 0);
	overflow_armed = 0;
	r.on_frame = overflow_thrice;
	run_loop(&r, 0, 8000);
	ck_assert(!r.timed_out);
	ck_assert_uint_eq(r.stats.overflows, 3);
	ck_assert_uint_eq(fake.interval_ns, 12500);
	ck_assert_uint_eq(fake.hw_sizes[0], 256u << 20);
	ck_assert_uint_eq(fake.hw_sizes[1], 512u << 20);
	ck_assert_uint_eq(fake.hw_sizes[2], 1u << 30);
	ck_assert_uint_eq(fake.hw_sizes[3], 1u << 30);
}
END_TEST

/* The daemon's log, from here until log_text(). */
static int log_fd = -1, saved_stderr = -1;

static void log_capture(void)
{
	char path[] = "/tmp/gpm-test-nvidia-log-XXXXXX";
	log_fd = mkstemp(path);
	ck_assert_int_ge(log_fd, 0);
	unlink(path);
	fflush(stderr);
	saved_stderr = dup(STDERR_FILENO);
	dup2(log_fd, STDERR_FILENO);
	gpd_log_set_level(GPD_LOG_INFO);
}

static char *log_text(void)
{
	static char text[8192];
	fflush(stderr);
	dup2(saved_stderr, STDERR_FILENO);
	close(saved_stderr);
	ssize_t n = pread(log_fd, text, sizeof(text) - 1, 0);
	close(log_fd);
	text[n > 0 ? n : 0] = '\0';
	return text;
}

START_TEST(gap_counted_as_loss)
{
	struct run r;
	fake_reset();
	basic_rates();
	FAKE_LOCKED(fake.gap_at = 3);
	start(&r, "nvidia:0", fake_libs());
	log_capture();
	struct gpd_nv_sampler_stats st = run_basic(&r, 12);
	const char *log = log_text();
	ck_assert_uint_eq(st.reports.gaps, 1);
	ck_assert_uint_gt(st.reports.gap_ns, 0);
	ck_assert_uint_eq(st.reports.losses, 1);
	ck_assert_uint_eq(r.buffer_lost, 1);
	ck_assert_uint_eq(st.sessions, 1);
	check_basic_means(&r);
	/* The log, as the stream ends, counts the loss the clients saw,
	 * though the GPU's buffer never overflowed. */
	ck_assert_msg(strstr(log, "; 1 BUFFER_LOST (0 overflows"), "%s", log);
	ck_assert_msg(strstr(log, "1 gaps in the samples missing"), "%s", log);
}
END_TEST

/* Where each CUPTI call ran and which images it touched, as the fake saw
 * them. */
static void check_calls_apart(void)
{
	pthread_mutex_lock(&fake.lock);
	ck_assert_uint_gt(fake.evaluations, 0);
	ck_assert_uint_eq(fake.evaluations_on_decoding_thread, 0);
	ck_assert_uint_eq(fake.pm_calls_elsewhere, 0);
	ck_assert_uint_eq(fake.races, 0);
	pthread_mutex_unlock(&fake.lock);
}

/* The thread that decodes only decodes: the samples are evaluated on
 * another, from the image the decoding no longer fills, and every sample
 * arrives once and in order across the two images. */
START_TEST(decoding_thread_never_evaluates)
{
	struct run r;
	fake_reset();
	basic_rates();
	start(&r, "nvidia:0", fake_libs());
	struct gpd_nv_sampler_stats st = run_basic(&r, 12);
	check_calls_apart();
	ck_assert_uint_eq(fake.images_used, 2);
	ck_assert_uint_eq(r.buffer_lost, 0);
	ck_assert_uint_eq(st.reports.gaps, 0);
	ck_assert_uint_eq(st.reports.out_of_order, 0);
	ck_assert_uint_eq(st.reports.setup_samples, 1);
	/* Each hand-over left the image's last sample half decoded: the
	 * next decode brought it whole into the other image. */
	ck_assert_uint_ge(st.pm.cut_samples, 1);
	check_basic_means(&r);
}
END_TEST

/* Evaluating slowly until the decoding has had to wait for it, then at
 * full speed again. */
static void evaluate_slowly_until_waited(struct run *r)
{
	if (!r->stats.evaluation_waits)
		return;
	FAKE_LOCKED(fake.evaluate_delay_us = 0);
	if (!r->stop_after)
		r->stop_after = r->frames + 10;
}

/* While the evaluation holds one image, the decoding fills the other
 * further, and before it could fill (which loses samples) waits for the
 * first back: nothing is lost, nothing out of order. */
START_TEST(slow_evaluation_makes_decoding_wait_not_lose)
{
	struct run r;
	struct gpd_error err;
	fake_reset();
	basic_rates();
	/* 2 ms a sample: 125 samples take 250 ms, two and a half decodes. */
	FAKE_LOCKED(fake.evaluate_delay_us = 2000);
	start(&r, "nvidia:0", fake_libs());
	ck_assert_int_eq(subscribe(&r, "Basic", 1000000, 20000000, &err), 0);
	r.on_frame = evaluate_slowly_until_waited;
	run_loop(&r, 0, 20000);
	ck_assert(!r.timed_out);
	check_calls_apart();
	ck_assert_uint_ge(r.stats.evaluation_waits, 1);
	pthread_mutex_lock(&fake.lock);
	ck_assert_uint_ge(fake.appends, 1);
	ck_assert_uint_eq(fake.full_images, 0);
	pthread_mutex_unlock(&fake.lock);
	ck_assert_uint_eq(r.buffer_lost, 0);
	ck_assert_uint_eq(r.stats.reports.gaps, 0);
	ck_assert_uint_eq(r.stats.reports.out_of_order, 0);
	ck_assert_uint_eq(r.stats.sessions, 1);
	check_basic_means(&r);
}
END_TEST

/* An evaluation that fails on the evaluating thread breaks the session as
 * a failed decode did: one BUFFER_LOST, counted as a session failure in
 * the closing log line, and a new session. */
START_TEST(evaluation_failure_counted_as_loss)
{
	struct run r;
	fake_reset();
	basic_rates();
	FAKE_LOCKED(fake.evaluate_fail_at = 200);
	start(&r, "nvidia:0", fake_libs());
	log_capture();
	struct gpd_nv_sampler_stats st = run_basic(&r, 14);
	const char *log = log_text();
	check_calls_apart();
	ck_assert_uint_eq(st.failures, 1);
	ck_assert_uint_eq(st.overflows, 0);
	ck_assert_uint_eq(st.sessions, 2);
	ck_assert_uint_eq(r.buffer_lost, 1);
	ck_assert_uint_eq(st.reports.losses, 1);
	ck_assert_msg(strstr(log, "; 1 BUFFER_LOST (0 overflows of the GPU's "
			     "buffer, 1 other session failures"), "%s", log);
	ck_assert_msg(strstr(log, "cuptiProfilerHostEvaluateToGpuValues"),
		      "%s", log);
	check_basic_means(&r);
}
END_TEST

/* At 100 us a decode in a DRAM-bound phase once found 70 ms of samples:
 * the image holds them, where one of two and a half decodes (64 ms)
 * filled and lost some. */
START_TEST(long_decode_fits_the_image)
{
	struct run r;
	struct gpd_error err;
	fake_reset();
	basic_rates();
	FAKE_LOCKED(fake.burst_at = 3; fake.burst_samples = 700);
	start(&r, "nvidia:0", fake_libs());
	ck_assert_int_eq(subscribe(&r, "Basic", 100000, 20000000, &err), 0);
	run_loop(&r, 16, 10000);
	ck_assert(!r.timed_out);
	pthread_mutex_lock(&fake.lock);
	ck_assert_uint_ge(fake.decodes, 3);
	ck_assert_uint_eq(fake.full_images, 0);
	pthread_mutex_unlock(&fake.lock);
	ck_assert_uint_eq(r.buffer_lost, 0);
	ck_assert_uint_eq(r.stats.reports.gaps, 0);
	ck_assert_uint_eq(r.stats.reports.out_of_order, 0);
	check_basic_means(&r);
}
END_TEST

/* Images of 200 ms are kept within 32 MiB, but never below two and a
 * half decodes. */
START_TEST(image_bytes_bounded)
{
	static const char *const names[] = { "a", "b", "c", "d", "e" };
	struct gpd_nv_pm_session s;
	char why[256];
	fake_reset();
	FAKE_LOCKED(fake.sample_bytes = 16384);
	struct gpd_nv_pm_config cfg = {
		.metrics = names, .n_metrics = 5, .interval_ns = 10000,
	};
	ck_assert_int_eq(gpd_nv_pm_session_open(&s, fake_libs(), &cfg, why,
						sizeof(why)), 0);
	ck_assert_uint_le(s.data_size, GPD_NV_PM_MAX_IMAGE_BYTES);
	ck_assert_uint_lt(s.schedule.max_samples, 20016);
	ck_assert_uint_ge(s.schedule.max_samples, s.schedule.min_samples);
	ck_assert_uint_eq(fake.max_samples, s.schedule.max_samples);
	gpd_nv_pm_session_close(&s);
	/* 1 ms: two and a half decodes of 100 ms, more than 200 ms, fit. */
	cfg.interval_ns = 1000000;
	ck_assert_int_eq(gpd_nv_pm_session_open(&s, fake_libs(), &cfg, why,
						sizeof(why)), 0);
	ck_assert_uint_eq(s.schedule.max_samples, 100 * 5 / 2 + 16);
	gpd_nv_pm_session_close(&s);
	/* Two decodes' worth cannot fit 32 MiB: they are kept all the same. */
	FAKE_LOCKED(fake.sample_bytes = 64 << 10);
	cfg.interval_ns = 100000;
	ck_assert_int_eq(gpd_nv_pm_session_open(&s, fake_libs(), &cfg, why,
						sizeof(why)), 0);
	ck_assert_uint_eq(s.schedule.max_samples, s.schedule.min_samples);
	gpd_nv_pm_session_close(&s);
}
END_TEST

/* The bytes of an image at 4 KiB a sample, as fake_data_size makes
 * them. */
static uint64_t fake_image_bytes(void)
{
	pthread_mutex_lock(&fake.lock);
	uint64_t bytes = FAKE_IMAGE_HEADER + (uint64_t)fake.max_samples * 4096;
	pthread_mutex_unlock(&fake.lock);
	return bytes;
}

/* Emptying an image puts back only the header and the slots its samples
 * took (a decode of 100 samples into an image of 266), and that is
 * enough: no decode finds bytes of an earlier one. */
START_TEST(images_emptied_where_written)
{
	struct run r;
	fake_reset();
	basic_rates();
	FAKE_LOCKED(fake.sample_bytes = 4096);
	start(&r, "nvidia:0", fake_libs());
	struct gpd_nv_sampler_stats st = run_basic(&r, 40);
	check_calls_apart();
	ck_assert_uint_ge(st.pm.resets, 4);
	ck_assert_uint_gt(st.pm.reset_bytes, 0);
	ck_assert_uint_le(st.pm.reset_bytes, st.pm.resets * fake_image_bytes() / 2);
	pthread_mutex_lock(&fake.lock);
	ck_assert_uint_eq(fake.stale_images, 0);
	pthread_mutex_unlock(&fake.lock);
	ck_assert_uint_eq(r.buffer_lost, 0);
	ck_assert_uint_eq(st.reports.gaps, 0);
	ck_assert_uint_eq(st.reports.out_of_order, 0);
	check_basic_means(&r);
}
END_TEST

/* A decode that writes past its samples' slots (a CUPTI laying images
 * out otherwise) is caught at the session's first emptying: images are
 * emptied whole from then on, and no decode finds stale bytes. */
START_TEST(unexpected_layout_emptied_whole)
{
	struct run r;
	fake_reset();
	basic_rates();
	FAKE_LOCKED(fake.sample_bytes = 4096; fake.stray_write_at = 1);
	start(&r, "nvidia:0", fake_libs());
	struct gpd_nv_sampler_stats st = run_basic(&r, 40);
	ck_assert_uint_ge(st.pm.resets, 4);
	ck_assert_uint_ge(st.pm.reset_bytes,
			  (st.pm.resets - 1) * fake_image_bytes());
	pthread_mutex_lock(&fake.lock);
	ck_assert_uint_eq(fake.stale_images, 0);
	pthread_mutex_unlock(&fake.lock);
	ck_assert_uint_eq(r.buffer_lost, 0);
	check_basic_means(&r);
}
END_TEST

START_TEST(repeated_sample_dropped)
{
	struct run r;
	fake_reset();
	basic_rates();
	FAKE_LOCKED(fake.duplicate_at = 2);
	start(&r, "nvidia:0", fake_libs());
	struct gpd_nv_sampler_stats st = run_basic(&r, 10);
	ck_assert_uint_eq(st.reports.out_of_order, 1);
	ck_assert_uint_eq(st.reports.setup_samples, 1);
	ck_assert_uint_eq(r.buffer_lost, 0);
	check_basic_means(&r);
}
END_TEST

START_TEST(hardware_busy_refused_as_busy_elsewhere)
{
	struct run r;
	struct gpd_error err = { 0 };
	fake_reset();
	FAKE_LOCKED(fake.busy = true);
	start(&r, "nvidia:0", fake_libs());
	ck_assert_int_eq(subscribe(&r, "Basic", 1000000, 20000000, &err), -EBUSY);
	ck_assert_int_eq(err.code, -EBUSY);
	ck_assert_msg(strstr(err.message, "nvidia0: PM sampling is busy elsewhere"),
		      "%s", err.message);
	ck_assert_msg(strstr(err.message, "Telemetry"), "%s", err.message);
	/* Nothing is left half set up. */
	ck_assert_uint_eq(fake.profiler_inits, fake.profiler_deinits);
	ck_assert_uint_eq(fake.configs, 0);
	/* NVML still serves the Telemetry set. */
	ck_assert_int_eq(subscribe(&r, "Telemetry", 100000000, 300000000, &err), 0);
	run_loop(&r, 2, 5000);
	ck_assert(!r.timed_out);
}
END_TEST

static void busy_then_free(struct run *r)
{
	if (r->frames == 3)
		FAKE_LOCKED(fake.busy = true; fake.overflow_at = fake.decodes + 1);
	if (r->events[GPD_EVENT_BUSY_ELSEWHERE] == 1 && r->frames > 3)
		FAKE_LOCKED(fake.busy = false);
}

static void poke(uv_timer_t *t)
{
	struct run *r = t->data;
	if (r->events[GPD_EVENT_BUSY_ELSEWHERE])
		FAKE_LOCKED(fake.busy = false);
	if (r->events[GPD_EVENT_RECOVERED] && r->frames > 8) {
		uv_close((uv_handle_t *)&r->poke, NULL);
		stop(r);
	}
}

START_TEST(busy_later_then_recovered)
{
	struct run r;
	struct gpd_error err;
	fake_reset();
	basic_rates();
	start(&r, "nvidia:0", fake_libs());
	ck_assert_int_eq(subscribe(&r, "Basic", 1000000, 20000000, &err), 0);
	r.on_frame = busy_then_free;
	uv_timer_init(uv_default_loop(), &r.poke);
	r.poke.data = &r;
	uv_timer_start(&r.poke, poke, 50, 50);
	run_loop(&r, 0, 8000);
	ck_assert(!r.timed_out);
	ck_assert_uint_eq(r.events[GPD_EVENT_BUSY_ELSEWHERE], 1);
	ck_assert_uint_eq(r.events[GPD_EVENT_RECOVERED], 1);
	ck_assert_uint_ge(r.buffer_lost, 1);
	ck_assert_uint_eq(fake.configs, 2);
	check_basic_means(&r);
}
END_TEST

START_TEST(telemetry_from_nvml)
{
	struct run r;
	struct gpd_error err;
	fake_reset();
	start(&r, "nvidia:0", fake_libs());
	ck_assert_int_eq(subscribe(&r, "Telemetry", 100000000, 400000000, &err), 0);
	r.min_reports = 2;
	run_loop(&r, 4, 8000);
	ck_assert(!r.timed_out);
	ck_assert_double_eq_tol(mean_of(&r, "Power"), 300, 15);
	ck_assert_double_eq_tol(mean_of(&r, "SmClock"), 1980e6, 1e6);
	ck_assert_double_eq_tol(mean_of(&r, "Temperature"), 40, 0.5);
	ck_assert_double_eq_tol(mean_of(&r, "MemoryUsed"), 1073741824.0, 2e7);
	/* Half the GPM pairs are invalid: the valid ones cover their time. */
	ck_assert_double_eq_tol(mean_of(&r, "GpmSmUtil"), 50, 15);
	ck_assert_uint_ge(fake.gpm_gets, 4);
	ck_assert_uint_eq(fake.nvml_inits, fake.nvml_shutdowns);
	ck_assert_uint_eq(fake.configs, 0);
}
END_TEST

START_TEST(periods_and_counters_refused_in_words)
{
	struct run r;
	struct gpd_error err = { 0 };
	fake_reset();
	start(&r, "nvidia:0", fake_libs());
	ck_assert_int_eq(subscribe(&r, "Basic", 2000, 20000000, &err), -EINVAL);
	ck_assert_msg(strstr(err.message, "10 us to 1 s"), "%s", err.message);
	finish(&r);
}
END_TEST

START_TEST(missing_libraries_said_in_words)
{
	struct gpd_nv_libs libs;
	struct gpd_nv_lib_names names = {
		.cuda = "libgpd-test-missing-cuda.so.1",
		.nvml = "libgpd-test-missing-nvml.so.1",
	};
	gpd_nv_libs_load(&libs, &names);
	ck_assert(!libs.have_cupti);
	ck_assert(!libs.have_nvml);
	ck_assert_msg(strstr(libs.why_no_cupti, "libgpd-test-missing-cuda.so.1") &&
		      strstr(libs.why_no_cupti, "install the NVIDIA driver"),
		      "%s", libs.why_no_cupti);
	ck_assert_msg(strstr(libs.why_no_nvml, "libgpd-test-missing-nvml.so.1"),
		      "%s", libs.why_no_nvml);

	/* A library that loads but is not the one: its missing symbol named. */
	names.cuda = "libm.so.6";
	gpd_nv_libs_load(&libs, &names);
	ck_assert_msg(strstr(libs.why_no_cupti, "has no cuInit"), "%s",
		      libs.why_no_cupti);
	gpd_nv_libs_unload(&libs);

	names.cuda = "libgpd-test-missing-cuda.so.1";
	gpd_nv_libs_load(&libs, &names);
	char why[GPD_NV_LIBS_WHY];
	ck_assert_uint_eq(gpd_nvidia_count_gpus(&libs, why, sizeof(why)), 0);
	ck_assert(strstr(why, "libgpd-test-missing-cuda.so.1"));

	/* --device nvidia:0 says so; auto falls back to sim. */
	const char *spec = "nvidia:0";
	struct gpd_options o = {
		.device_specs = &spec, .n_device_specs = 1, .nvidia_libs = &libs,
	};
	struct gpd_daemon d;
	struct gpd_error err = { 0 };
	ck_assert_int_eq(gpd_daemon_init(&d, uv_default_loop(), &o, &err), -ENOENT);
	ck_assert_msg(strstr(err.message, "nvidia:0: the NVIDIA driver's "
				"libgpd-test-missing-cuda.so.1 cannot be loaded"),
		      "%s", err.message);
	gpd_daemon_stop(&d);
	uv_run(uv_default_loop(), UV_RUN_DEFAULT);
	gpd_daemon_fini(&d);

	struct run r;
	start(&r, "auto", &libs);
	ck_assert_uint_eq(r.daemon.registry.n_devices, 1);
	ck_assert_int_ne(r.daemon.registry.devices[0]->source->kind, GPD_SOURCE_NVIDIA);
	finish(&r);
	gpd_nv_libs_unload(&libs);
}
END_TEST

START_TEST(auto_adds_nvidia_gpus)
{
	struct run r;
	fake_reset();
	start(&r, "auto", fake_libs());
	struct gpd_device *dev = gpd_daemon_find_device(&r.daemon, "nvidia0");
	ck_assert_ptr_nonnull(dev);
	ck_assert_int_eq(dev->source->kind, GPD_SOURCE_NVIDIA);
	finish(&r);
}
END_TEST

START_TEST(unknown_counter_and_too_many_passes)
{
	static const char xml[] =
		"<metrics>\n"
		"<set name=\"x\" chipset=\"GH100\" symbol_name=\"Bogus\" "
		"hw_config_guid=\"01234567-89ab-cdef-0123-456789abcdef\">\n"
		"<raw_counter slot=\"PEC 0\" name=\"bogus__counter.sum\"/>\n"
		"<counter name=\"A\" symbol_name=\"A\" units=\"events\" "
		"semantic_type=\"event\" data_type=\"uint64\" equation=\"PEC 0 READ\"/>\n"
		"</set>\n</metrics>\n";
	char dir[] = "/tmp/gpd-nvidia-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char path[64];
	snprintf(path, sizeof(path), "%s/oa-gh100.xml", dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(xml, f);
	fclose(f);

	fake_reset();
	const char *spec = "nvidia:0", *dirs[] = { dir };
	struct gpd_options o = {
		.device_specs = &spec, .n_device_specs = 1,
		.metrics_dirs = dirs, .n_metrics_dirs = 1,
		.nvidia_libs = fake_libs(),
	};
	struct run r;
	memset(&r, 0, sizeof(r));
	struct gpd_error err = { 0 };
	ck_assert_int_eq(gpd_daemon_init(&r.daemon, uv_default_loop(), &o, &err), 0);
	ck_assert_int_eq(subscribe(&r, "Bogus", 1000000, 20000000, &err), -EINVAL);
	ck_assert_msg(strstr(err.message, "cuptiProfilerHostConfigAddMetrics"),
		      "%s", err.message);
	finish(&r);
	remove(path);
	rmdir(dir);
}
END_TEST

/* The real libraries and GPU, only where they are. */
/* A recording of another set is refused before anything changes: the
 * controller's request would otherwise have moved the device to that set
 * first, under its other subscribers. A period the GPU refuses, asked
 * when the stream had to close for it, gives the old stream back. */
START_TEST(refused_requests_change_nothing)
{
	struct run r;
	struct gpd_error err;
	fake_reset();
	basic_rates();
	start(&r, "nvidia:0", fake_libs());
	ck_assert_int_eq(subscribe(&r, "Basic", 1000000, 20000000, &err), 0);
	struct gpd_recorder_request req = {
		.metric_set = "Memory",
		.role = GPD_ROLE_CONTROLLER,
	};
	struct gpd_recorder *rec;
	ck_assert_int_eq(gpd_recorder_start(&r.daemon.registry, &req, NULL,
					    NULL, &rec, &err), -EOPNOTSUPP);
	ck_assert_ptr_null(rec);
	ck_assert_ptr_nonnull(strstr(err.message, "i915"));
	struct gpd_device *dev = gpd_daemon_find_device(&r.daemon, NULL);
	ck_assert_str_eq(dev->set->symbol_name, "Basic");
	ck_assert_uint_eq(r.events[GPD_EVENT_CONFIG_CHANGED], 0);
	ck_assert_uint_eq(fake.configs, 1);

	ck_assert_int_eq(gpd_reconfigure(r.sub, NULL, 2000, &err), -EINVAL);
	ck_assert_msg(strstr(err.message, "10 us to 1 s"), "%s", err.message);
	ck_assert(dev->open);
	ck_assert_uint_eq(r.events[GPD_EVENT_CONFIG_CHANGED], 0);
	ck_assert_uint_eq(r.events[GPD_EVENT_DEVICE_LOST], 0);
	run_loop(&r, 3, 5000);
	ck_assert(!r.timed_out);
	check_basic_means(&r);
}
END_TEST

START_TEST(real_gpu_when_present)
{
	struct gpd_nv_libs libs;
	char why[GPD_NV_LIBS_WHY];
	gpd_nv_libs_load(&libs, NULL);
	unsigned n = gpd_nvidia_count_gpus(&libs, why, sizeof(why));
	if (!n) {
		gpd_nv_libs_unload(&libs);
		TEST_SKIP("the NVIDIA source on a real GPU", "%s",
			  why[0] ? why : "a CUDA device");
	}
	struct run r;
	struct gpd_error err = { 0 };
	start(&r, "nvidia:0", &libs);
	int ret = subscribe(&r, "Basic", 1000000, 50000000, &err);
	if (ret == -EBUSY) {
		finish(&r);
		gpd_nv_libs_unload(&libs);
		TEST_SKIP("the NVIDIA source on a real GPU",
			  "a free PM unit: %s", err.message);
	}
	ck_assert_msg(ret == 0, "%s", err.message);
	run_loop(&r, 4, 5000);
	ck_assert(!r.timed_out);
	gpd_nv_libs_unload(&libs);
}
END_TEST

static Suite *nvidia_source_suite(void)
{
	Suite *s = suite_create("nvidia_source");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 30);
	gpd_log_set_level(GPD_LOG_WARNING);
	tcase_add_test(tc, windows_from_samples);
	tcase_add_test(tc, first_sample_dropped);
	tcase_add_test(tc, overflow_counted_and_restarted);
	tcase_add_test(tc, hardware_buffer_grows_to_1_gib);
	tcase_add_test(tc, gap_counted_as_loss);
	tcase_add_test(tc, repeated_sample_dropped);
	tcase_add_test(tc, decoding_thread_never_evaluates);
	tcase_add_test(tc, slow_evaluation_makes_decoding_wait_not_lose);
	tcase_add_test(tc, evaluation_failure_counted_as_loss);
	tcase_add_test(tc, long_decode_fits_the_image);
	tcase_add_test(tc, image_bytes_bounded);
	tcase_add_test(tc, images_emptied_where_written);
	tcase_add_test(tc, unexpected_layout_emptied_whole);
	tcase_add_test(tc, hardware_busy_refused_as_busy_elsewhere);
	tcase_add_test(tc, busy_later_then_recovered);
	tcase_add_test(tc, telemetry_from_nvml);
	tcase_add_test(tc, periods_and_counters_refused_in_words);
	tcase_add_test(tc, missing_libraries_said_in_words);
	tcase_add_test(tc, auto_adds_nvidia_gpus);
	tcase_add_test(tc, unknown_counter_and_too_many_passes);
	tcase_add_test(tc, refused_requests_change_nothing);
	tcase_add_test(tc, real_gpu_when_present);
	suite_add_tcase(s, tc);
	return s;
}

GPM_TEST_MAIN(nvidia_source_suite)
