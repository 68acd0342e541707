/*
 * Shared by the Check suites: the runner main, where the test data is, and
 * how a test that cannot run here says so.
 */
#ifndef GPM_TEST_UTIL_H
#define GPM_TEST_UTIL_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* ../shared beside the checkout, or $GPM_SHARED_DIR. */
static inline const char *test_shared_dir(void)
{
	const char *dir = getenv("GPM_SHARED_DIR");
	return dir && *dir ? dir : "../shared";
}

/* Writes "<shared>/<rel>" into buf. */
static inline const char *test_shared_path(char *buf, size_t size,
					   const char *rel)
{
	snprintf(buf, size, "%s/%s", test_shared_dir(), rel);
	return buf;
}

/* xorshift64: the next of a reproducible run of test inputs. */
static inline uint64_t test_xorshift64(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* Ends the running test as skipped: tests/run-tests.sh counts it apart
 * from the passed ones and lists it with what it lacked (Check itself
 * has no skip, so the test returns as passed). */
#define TEST_SKIP(what, ...)                                                  \
	do {                                                                 \
		printf("SKIP: %s (missing: ", what);                         \
		printf(__VA_ARGS__);                                         \
		printf(")\n");                                               \
		fflush(stdout);                                              \
		return;                                                      \
	} while (0)

#define GPM_TEST_MAIN(suite_fn)                                              \
	int main(void)                                                       \
	{                                                                    \
		SRunner *runner = srunner_create(suite_fn());                \
		srunner_run_all(runner, CK_ENV);                             \
		int failed = srunner_ntests_failed(runner);                  \
		srunner_free(runner);                                        \
		return failed ? EXIT_FAILURE : EXIT_SUCCESS;                 \
	}

#endif
