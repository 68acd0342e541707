/*
 * The control file: the errors a test wants the kernel to make
 * (fake_kernel.h). Read again whenever the file is replaced; a counted
 * injection (eio_after, gpu_reset, stall_ms, add_config_race) is used up by
 * the requests it hits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fake-kernel/fake_kernel.h"

static bool is_pmu_key(const char *key)
{
	static const char *const keys[] = {
		"actual_mhz", "requested_mhz", "rc6", "rapl_watts", "pmu_base",
		"cap_sys_ptrace", "pmu_read_lag_ms",
	};
	static const char *const prefixes[] = { "busy.", "wait.", "sema." };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i]))
			return true;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(key, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

static void parse(FILE *f, struct fk_control *c)
{
	char line[256];
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		const char *key = line, *value = eq + 1;
		if (!strcmp(key, "capable"))
			c->capable = atoi(value) != 0;
		else if (!strcmp(key, "busy"))
			c->busy = atoi(value) != 0;
		else if (!strcmp(key, "eio_after"))
			c->eio_after = atol(value);
		else if (!strcmp(key, "gpu_reset"))
			c->gpu_reset = atoi(value) != 0;
		else if (!strcmp(key, "stall_ms"))
			c->stall_ms = strtoull(value, NULL, 0);
		else if (!strcmp(key, "add_config_race"))
			c->add_config_race = atoi(value) != 0;
		else if (!strcmp(key, "einval"))
			snprintf(c->einval, sizeof(c->einval), "%.*s",
				 (int)strcspn(value, "\n"), value);
		else if (!strcmp(key, "report_loss"))
			c->report_loss = strtod(value, NULL);
		else if (is_pmu_key(key) && c->n_values < 32) {
			snprintf(c->values[c->n_values].key,
				 sizeof(c->values[0].key), "%.31s", key);
			c->values[c->n_values++].value = strtod(value, NULL);
		} else
			fprintf(stderr, "fake kernel: unknown control key '%s'\n", key);
	}
}

static void refresh(void)
{
	struct stat st;
	struct fk_control *c = &fk.control;
	if (!fk.control_path[0] || stat(fk.control_path, &st))
		return;
	if (st.st_dev == c->dev && st.st_ino == c->ino && st.st_size == c->size &&
	    st.st_mtim.tv_sec == c->mtime.tv_sec &&
	    st.st_mtim.tv_nsec == c->mtime.tv_nsec)
		return;
	FILE *f = fopen(fk.control_path, "re");
	if (!f)
		return;
	*c = (struct fk_control){
		.capable = true,
		.eio_after = -1,
		.dev = st.st_dev,
		.ino = st.st_ino,
		.mtime = st.st_mtim,
		.size = st.st_size,
	};
	parse(f, c);
	fclose(f);
}

const struct fk_control *fk_control(void)
{
	refresh();
	return &fk.control;
}

bool fk_take_gpu_reset(void)
{
	refresh();
	bool reset = fk.control.gpu_reset;
	fk.control.gpu_reset = false;
	return reset;
}

bool fk_take_add_config_race(void)
{
	refresh();
	bool race = fk.control.add_config_race;
	fk.control.add_config_race = false;
	return race;
}

uint64_t fk_take_stall_ms(void)
{
	refresh();
	uint64_t ms = fk.control.stall_ms;
	fk.control.stall_ms = 0;
	return ms;
}

bool fk_take_eio(void)
{
	refresh();
	if (fk.control.eio_after < 0)
		return false;
	if (fk.control.eio_after > 0) {
		fk.control.eio_after--;
		return false;
	}
	fk.control.eio_after = -1;
	return true;
}

const char *fk_take_einval(char *buf, size_t size)
{
	refresh();
	snprintf(buf, size, "%s", fk.control.einval);
	fk.control.einval[0] = '\0';
	return buf;
}

double fk_control_value(const char *key, double fallback)
{
	refresh();
	for (unsigned i = 0; i < fk.control.n_values; i++)
		if (!strcmp(fk.control.values[i].key, key))
			return fk.control.values[i].value;
	return fallback;
}
