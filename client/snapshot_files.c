/*
 * Fetching a snapshot into files (see snapshot_files.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/catalog_names.h"
#include "client/cli_args.h"
#include "client/cli_connect.h"
#include "client/commands.h"
#include "client/human_text.h"
#include "client/snapshot_files.h"

struct gpuperf_snapshot_files {
	const char *cmd;
	char *path;
	gpuperf_snapshot_done_cb done;
	void *user;
	size_t n;
	char **paths;                   /* one a segment */
	int *fds;
	uint64_t *written;
	bool failed;
	struct gpc_snapshot *snap;
};

char *gpuperf_snapshot_path(const char *path, size_t k, size_t n)
{
	char *out = NULL;
	if (k + 1 == n)
		return strdup(path);
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash ? slash + 1 : path, '.');
	size_t stem = dot && dot != (slash ? slash + 1 : path) ?
		      (size_t)(dot - path) : strlen(path);
	if (asprintf(&out, "%.*s-%zu%s", (int)stem, path, k + 1,
		     path + stem) < 0)
		return NULL;
	return out;
}

const struct gpc_device *gpuperf_snapshot_device(const char *cmd,
						 struct gpc_client *client,
						 const char *name)
{
	const struct gpc_device *d = gpuperf_need_device(cmd, client, name);
	if (!d)
		return NULL;
	if (!d->flight_recorder_bytes) {
		gpuperf_fail(cmd, GPUPERF_EXIT_REFUSED, "device %s keeps no "
			     "flight recorder; start gpuperfd with "
			     "--flight-recorder (see 'gpuperfd --help')", d->name);
		return NULL;
	}
	if (!gpc_server_info(client)->limits.max_snapshots) {
		gpuperf_fail(cmd, GPUPERF_EXIT_REFUSED, "this daemon lets only "
			     "controllers take snapshots (--snapshot-role "
			     "controller); connect with a controller token");
		return NULL;
	}
	return d;
}

static void release(struct gpuperf_snapshot_files *f)
{
	for (size_t i = 0; i < f->n; i++) {
		if (f->fds && f->fds[i] >= 0)
			close(f->fds[i]);
		if (f->paths)
			free(f->paths[i]);
	}
	free(f->paths);
	free(f->fds);
	free(f->written);
	free(f->path);
	free(f);
}

/* Ends the fetch: the files stay when it succeeded, else go. */
static void finish(struct gpuperf_snapshot_files *f, int exit_code)
{
	for (size_t i = 0; i < f->n; i++) {
		if (f->fds[i] >= 0 && close(f->fds[i]) && !exit_code)
			exit_code = gpuperf_fail(f->cmd, GPUPERF_EXIT_FILE,
						 "cannot write %s: %s",
						 f->paths[i], strerror(errno));
		f->fds[i] = -1;
	}
	if (exit_code)
		for (size_t i = 0; i < f->n; i++)
			if (f->paths[i])
				unlink(f->paths[i]);
	gpuperf_snapshot_done_cb done = f->done;
	void *user = f->user;
	size_t n = f->n;
	release(f);
	done(user, exit_code, n);
}

static void describe(const struct gpuperf_snapshot_files *f,
		     const struct gpc_snapshot_info *info)
{
	for (size_t i = 0; i < info->n_segments; i++) {
		const struct gpc_snapshot_segment *s = &info->segments[i];
		char period[GPUPERF_HUMAN_TEXT_MAX], span[GPUPERF_HUMAN_TEXT_MAX];
		gpuperf_duration_text(period, sizeof(period),
				      (double)s->sampling_period_ns);
		gpuperf_duration_text(span, sizeof(span),
				      (double)(s->cpu_end_ns - s->cpu_start_ns));
		fprintf(stderr, "gpuperf %s: %s: %s of %s every %s, %" PRIu64
			" reports (%.3g MB) over %s", f->cmd, f->paths[i],
			s->metric_set, info->device, period, s->reports,
			(double)s->bytes / 1e6, span);
		if (s->reports_lost || s->buffers_lost)
			fprintf(stderr, "; %" PRIu64 " OA_REPORT_LOST, %" PRIu64
				" OA_BUFFER_LOST", s->reports_lost, s->buffers_lost);
		fprintf(stderr, "\n");
		if (s->truncated)
			fprintf(stderr, "gpuperf %s: %s: the flight recorder had "
				"overwritten the reports before its first (its ring "
				"holds %.3g MB): the recording begins after an "
				"OA_BUFFER_LOST\n", f->cmd, f->paths[i],
				(double)info->ring_bytes / 1e6);
	}
}

static void on_started(struct gpc_snapshot *snap,
		       const struct gpc_snapshot_info *info,
		       const struct gpc_error *err, void *user)
{
	struct gpuperf_snapshot_files *f = user;
	if (err) {
		/* The device was checked first: not found is an empty span. */
		int code = gpuperf_report(f->cmd, "no snapshot", err);
		finish(f, err->code == -ENOENT ? GPUPERF_EXIT_FAILURE : code);
		return;
	}
	f->n = info->n_segments;
	f->paths = calloc(f->n, sizeof(*f->paths));
	f->fds = malloc(f->n * sizeof(*f->fds));
	f->written = calloc(f->n, sizeof(*f->written));
	if (!f->paths || !f->fds || !f->written) {
		fprintf(stderr, "gpuperf %s: out of memory\n", f->cmd);
		f->n = 0;
		f->failed = true;
		return;
	}
	for (size_t i = 0; i < f->n; i++)
		f->fds[i] = -1;
	for (size_t i = 0; i < f->n && !f->failed; i++) {
		f->paths[i] = gpuperf_snapshot_path(f->path, i, f->n);
		f->fds[i] = f->paths[i] ? open(f->paths[i], O_WRONLY | O_CREAT |
					       O_TRUNC | O_CLOEXEC, 0644) : -1;
		if (f->fds[i] < 0) {
			fprintf(stderr, "gpuperf %s: cannot write %s: %s\n",
				f->cmd, f->paths[i] ? f->paths[i] : f->path,
				strerror(f->paths[i] ? errno : ENOMEM));
			f->failed = true;
		}
	}
	if (!f->failed)
		describe(f, info);
}

static void on_data(struct gpc_snapshot *snap, size_t segment, uint64_t offset,
		    const void *data, size_t len, void *user)
{
	struct gpuperf_snapshot_files *f = user;
	if (f->failed)
		return;
	/* The bytes come in order: anything else is not this file's. */
	if (offset != f->written[segment]) {
		fprintf(stderr, "gpuperf %s: the daemon sent bytes of %s at "
			"%" PRIu64 " after %" PRIu64 "; the snapshot is dropped\n",
			f->cmd, f->paths[segment], offset, f->written[segment]);
		f->failed = true;
		return;
	}
	const char *p = data;
	while (len) {
		ssize_t n = write(f->fds[segment], p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "gpuperf %s: cannot write %s: %s\n", f->cmd,
				f->paths[segment], strerror(errno));
			f->failed = true;
			return;
		}
		p += n;
		len -= (size_t)n;
		f->written[segment] += (uint64_t)n;
	}
}

static void on_done(struct gpc_snapshot *snap, const struct gpc_error *err,
		    void *user)
{
	struct gpuperf_snapshot_files *f = user;
	if (err) {
		finish(f, gpuperf_report(f->cmd, "the snapshot ended early", err));
		return;
	}
	finish(f, f->failed ? GPUPERF_EXIT_FILE : GPUPERF_EXIT_OK);
}

void gpuperf_snapshot_cancel(struct gpuperf_snapshot_files *f)
{
	size_t written = 0;
	for (size_t i = 0; i < f->n; i++)
		written += f->paths && f->paths[i] && f->fds[i] >= 0;
	fprintf(stderr, "gpuperf %s: interrupted before the snapshot was whole%s\n",
		f->cmd, written ? "; its partial files are removed" : "");
	gpc_snapshot_abandon(f->snap);
	finish(f, GPUPERF_EXIT_FAILURE);
}

int gpuperf_snapshot_fetch(const char *cmd, struct gpc_client *client,
			   const struct gpc_snapshot_options *options,
			   const char *path, gpuperf_snapshot_done_cb done,
			   void *user, struct gpuperf_snapshot_files **fetch)
{
	struct gpuperf_snapshot_files *f = calloc(1, sizeof(*f));
	if (f)
		f->path = strdup(path);
	if (!f || !f->path) {
		free(f);
		return gpuperf_fail(cmd, GPUPERF_EXIT_FAILURE, "out of memory");
	}
	f->cmd = cmd;
	f->done = done;
	f->user = user;
	static const struct gpc_snapshot_cbs cbs = {
		.started = on_started,
		.data = on_data,
		.done = on_done,
	};
	int ret = gpc_snapshot(client, options, &cbs, f, &f->snap);
	if (ret) {
		release(f);
		return gpuperf_fail(cmd, gpuperf_exit_for(ret), "cannot ask for a "
				    "snapshot: %s", gpc_strerror(ret));
	}
	if (fetch)
		*fetch = f;
	return 0;
}
