/*
 * Replays a fuzz target's inputs through its LLVMFuzzerTestOneInput,
 * built with the ordinary compiler, so `make test` (under ASan and UBSan
 * with SAN=1) fails when a seed or an input that once crashed the target
 * crashes it again, without clang's libFuzzer.
 *
 * Usage: replay_NAME [DIR|FILE]...; without arguments, every file of
 * tests/fuzz/seeds/NAME and of tests/fuzz/regressions/NAME (which may be
 * absent), in name order, in one process as libFuzzer runs them: a
 * target that keeps state between inputs sees the same sequence each
 * time. A target that aborts or crashes is the failure, and the input it
 * was given is named on stderr.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

#include "tests/fuzz/fuzz_target.h"

#ifndef FUZZ_TARGET
#error "FUZZ_TARGET names the target, as its seeds' directory does"
#endif

static char current[4096];

static void name_current(void)
{
	static const char prefix[] = FUZZ_TARGET ": failed on ";
	if (write(STDERR_FILENO, prefix, sizeof(prefix) - 1) < 0 ||
	    write(STDERR_FILENO, current, strlen(current)) < 0 ||
	    write(STDERR_FILENO, "\n", 1) < 0)
		return;
}

static void on_fatal_signal(int sig)
{
	name_current();
	signal(sig, SIG_DFL);
	raise(sig);
}

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	if (!f || fstat(fileno(f), &st)) {
		fprintf(stderr, FUZZ_TARGET ": %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	/* Exactly the file's bytes, as libFuzzer hands them over: the
	 * sanitizers see a read past them. */
	size_t len = (size_t)st.st_size;
	uint8_t *data = malloc(len ? len : 1);
	bool read_whole = data && fread(data, 1, len, f) == len;
	fclose(f);
	if (!read_whole) {
		fprintf(stderr, FUZZ_TARGET ": %s: could not be read\n", path);
		free(data);
		return -1;
	}
	snprintf(current, sizeof(current), "%s", path);
	LLVMFuzzerTestOneInput(data, len);
	free(data);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_input(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

/* Replays path, a file or a directory's files; the number replayed, or
 * -1 when one could not be read (a missing directory too, unless
 * optional). */
static int replay(const char *path, int optional)
{
	struct stat st;
	if (stat(path, &st)) {
		if (optional && errno == ENOENT)
			return 0;
		fprintf(stderr, FUZZ_TARGET ": %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path) ? -1 : 1;
	struct dirent **names;
	int n = scandir(path, &names, is_input, by_name);
	if (n < 0) {
		fprintf(stderr, FUZZ_TARGET ": %s: %s\n", path, strerror(errno));
		return -1;
	}
	int replayed = 0;
	for (int i = 0; i < n; i++) {
		char file[4096];
		snprintf(file, sizeof(file), "%s/%s", path, names[i]->d_name);
		if (replayed >= 0)
			replayed = replay_file(file) ? -1 : replayed + 1;
		free(names[i]);
	}
	free(names);
	return replayed;
}

int main(int argc, char **argv)
{
	static const int fatal[] = { SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL };
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		signal(fatal[i], on_fatal_signal);
#if defined(__SANITIZE_ADDRESS__)
	__sanitizer_set_death_callback(name_current);
#endif
	int passed = 0, failed = 0;
	if (argc > 1) {
		for (int i = 1; i < argc; i++) {
			int n = replay(argv[i], 0);
			if (n < 0)
				failed++;
			else
				passed += n;
		}
	} else {
		int seeds = replay("tests/fuzz/seeds/" FUZZ_TARGET, 0);
		int regressions = replay("tests/fuzz/regressions/" FUZZ_TARGET, 1);
		failed += (seeds <= 0) + (regressions < 0);
		passed += (seeds > 0 ? seeds : 0) +
			  (regressions > 0 ? regressions : 0);
	}
	printf("checks: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
