/*
 * OA streams of the fake kernel: the OA model, paced by the monotonic
 * clock, behind a timerfd that turns readable every poll period as the
 * kernel's hrtimer would wake poll().
 *
 * i915 streams return the model's records as they are. xe streams return
 * bare reports, and a loss record of the model becomes an EIO read with
 * the status bit that DRM_XE_OBSERVATION_IOCTL_STATUS then reports.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "metrics/little_endian.h"
#include "metrics/oa_record.h"
#include "tests/fake-kernel/fake_kernel.h"

/* Where the sim source starts its model, so that both give the same
 * reports for the same seed. */
#define FK_START_TIMESTAMP 0x80000000u

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int make_model(struct fk_card *card, uint64_t set_id, uint32_t format,
		      int exponent, bool filter, uint32_t context_id,
		      struct gpd_oa_model **out)
{
	char guid[37];
	if (fk_config_guid(card, set_id, guid))
		return -EINVAL;
	struct gpd_oa_model_config mc = {
		.dev = &card->info,
		.oa_format = format,
		.exponent = exponent,
		.seed = fk.seed,
		.buffer_size = FK_OA_BUFFER_SIZE,
		.set = fk_find_set(card, guid),
		.start_timestamp = FK_START_TIMESTAMP,
		.filter_context = filter,
		.filter_context_id = context_id,
	};
	mc.workload.report_loss_probability = fk_control()->report_loss;
	return gpd_oa_model_create(&mc, out);
}

bool fk_inject_einval(struct fk_card *card, uint64_t set_id)
{
	char what[16];
	if (!*fk_take_einval(what, sizeof(what)))
		return false;
	if (!strcmp(what, "set"))
		fk_config_remove(card, set_id);
	fk_log("card%u stream open refused for its %s (injected)", card->index, what);
	return true;
}

int fk_stream_open(struct fk_card *card, uint64_t set_id, uint32_t format,
		   int exponent, bool disabled, uint64_t poll_period_ns,
		   bool filter_context, uint32_t context_index)
{
	struct gpd_oa_model *model;
	int ret = make_model(card, set_id, format, exponent, false, 0, &model);
	if (ret)
		return ret;
	if (filter_context) {
		/* GEM handle h names the workload's context h - 1. */
		if (context_index >= gpd_oa_model_n_contexts(model)) {
			gpd_oa_model_destroy(model);
			return -ENOENT;
		}
		uint32_t id = gpd_oa_model_context_id(model, context_index);
		gpd_oa_model_destroy(model);
		ret = make_model(card, set_id, format, exponent, true, id, &model);
		if (ret)
			return ret;
	}
	struct fk_stream *s = calloc(1, sizeof(*s));
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (!s || fd < 0 || fd >= FK_MAX_FDS) {
		if (fd >= 0)
			close(fd);
		free(s);
		gpd_oa_model_destroy(model);
		return -EMFILE;
	}
	struct itimerspec period = {
		.it_interval = { .tv_sec = (time_t)(poll_period_ns / 1000000000ull),
				 .tv_nsec = (long)(poll_period_ns % 1000000000ull) },
	};
	period.it_value = period.it_interval;
	timerfd_settime(fd, 0, &period, NULL);
	s->card = card;
	s->fd = fd;
	s->model = model;
	s->set_id = set_id;
	if (!disabled)
		fk_stream_enable(s);
	card->stream = s;
	fk.fds[fd] = (struct fk_fd){ .kind = FK_FD_STREAM, .card = card, .stream = s };
	return fd;
}

void fk_stream_close(struct fk_stream *s)
{
	if (s->card->stream == s)
		s->card->stream = NULL;
	gpd_oa_model_destroy(s->model);
	free(s->pending);
	free(s);
}

void fk_stream_enable(struct fk_stream *s)
{
	gpd_oa_model_enable(s->model);
	s->last_ns = now_ns();
	s->remainder_ns = 0;
	s->pending_off = s->pending_len = 0;
}

int fk_stream_set_config(struct fk_stream *s, uint64_t set_id, uint64_t *prev)
{
	char guid[37];
	if (fk_config_guid(s->card, set_id, guid))
		return -EINVAL;
	const struct gpm_metric_set *set = fk_find_set(s->card, guid);
	if (set) {
		int ret = gpd_oa_model_set_metric_set(s->model, set, NULL);
		if (ret)
			return ret;
	}
	*prev = s->set_id;
	s->set_id = set_id;
	return 0;
}

/* Moves the model to now, plus whatever stall the test asked for. */
static void advance(struct fk_stream *s)
{
	uint64_t freq = s->card->info.timestamp_frequency;
	uint64_t now = now_ns();
	uint64_t elapsed = now - s->last_ns + s->remainder_ns;
	s->last_ns = now;
	uint64_t ticks = (uint64_t)((unsigned __int128)elapsed * freq / 1000000000ull);
	s->remainder_ns = elapsed -
		(uint64_t)((unsigned __int128)ticks * 1000000000ull / freq);
	uint64_t stall_ms = fk_take_stall_ms();
	if (stall_ms) {
		fk_log("card%u stream stall %llu ms", s->card->index,
		       (unsigned long long)stall_ms);
		ticks += stall_ms * freq / 1000;
	}
	gpd_oa_model_advance(s->model, ticks);
}

static ssize_t read_i915(struct fk_stream *s, void *buf, size_t len)
{
	if (s->dead)
		return -EIO;
	advance(s);
	if (gpd_oa_model_enabled(s->model) && fk_take_eio()) {
		s->dead = true;
		gpd_oa_model_disable(s->model);
		fk_log("card%u stream read -> EIO (GPU reset)", s->card->index);
		return -EIO;
	}
	ssize_t n = gpd_oa_model_read(s->model, buf, len);
	if (n < 0 && n != -EAGAIN)
		fk_log("card%u stream read -> %s", s->card->index, fk_errname((int)n));
	return n;
}

static uint64_t loss_status(uint32_t type)
{
	return type == GPM_OA_RECORD_BUFFER_LOST ? GPM_OA_XE_STATUS_BUFFER_OVERFLOW
						 : GPM_OA_XE_STATUS_REPORT_LOST;
}

static ssize_t read_xe(struct fk_stream *s, void *buf, size_t len)
{
	size_t record = gpd_oa_model_record_size(s->model);
	size_t report = record - GPM_OA_RECORD_HEADER_SIZE;
	if (len < report)
		return -ENOSPC;
	if (s->pending_off == s->pending_len) {
		size_t want = len / report * record + 2 * GPM_OA_RECORD_HEADER_SIZE;
		if (want > s->pending_size) {
			unsigned char *p = realloc(s->pending, want);
			if (!p)
				return -ENOMEM;
			s->pending = p;
			s->pending_size = want;
		}
		advance(s);
		ssize_t n = gpd_oa_model_read(s->model, s->pending, want);
		if (n < 0)
			return n;
		s->pending_off = 0;
		s->pending_len = (size_t)n;
	}
	unsigned char *out = buf;
	size_t copied = 0;
	uint64_t status = 0;
	while (s->pending_off < s->pending_len) {
		const unsigned char *rec = s->pending + s->pending_off;
		uint32_t type = gpm__le32_load(rec);
		if (type != GPM_OA_RECORD_SAMPLE) {
			/* Loss comes before what follows it: the reports read
			 * so far go out first, the EIO with the next read. */
			if (copied)
				break;
			status |= loss_status(type);
			s->pending_off += GPM_OA_RECORD_HEADER_SIZE;
			continue;
		}
		if (status || copied + report > len)
			break;
		memcpy(out + copied, rec + GPM_OA_RECORD_HEADER_SIZE, report);
		copied += report;
		s->pending_off += record;
	}
	if (status) {
		s->xe_status |= status;
		fk_log("card%u stream read -> EIO status=0x%llx", s->card->index,
		       (unsigned long long)status);
		return -EIO;
	}
	return copied ? (ssize_t)copied : -EAGAIN;
}

ssize_t fk_stream_read(struct fk_stream *s, void *buf, size_t len)
{
	/* Reading clears the poll flag, as on the kernel's streams. */
	uint64_t expirations;
	fk_real_read(s->fd, &expirations, sizeof(expirations));
	if (fk_take_enospc()) {
		fk_log("card%u stream read -> ENOSPC (injected)", s->card->index);
		return -ENOSPC;
	}
	return s->card->driver == FK_I915 ? read_i915(s, buf, len)
					  : read_xe(s, buf, len);
}
