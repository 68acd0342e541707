/*
 * CMD's environment for --cuda-activity (cuda_activity_env.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/commands.h"
#include "client/cuda_activity_env.h"

#define LIBRARY "libgpuperf-cuda-activity.so"

/* Beside the running gpuperf (a build tree), else where make install
 * put it. */
static int find_library(char *path, size_t size)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			if (snprintf(path, size, "%s/%s", self, LIBRARY) < (int)size &&
			    !access(path, R_OK))
				return 0;
		}
	}
	snprintf(path, size, "%s", GPUPERF_CUDA_ACTIVITY_LIB);
	return access(path, R_OK) ? -1 : 0;
}

int gpuperf_cuda_activity_env(const char *cmd, const char *unix_path)
{
	char library[PATH_MAX];
	if (find_library(library, sizeof(library))) {
		fprintf(stderr, "gpuperf %s: --cuda-activity needs %s, which is "
			"not beside gpuperf nor at %s (make install puts it "
			"there)\n", cmd, LIBRARY, GPUPERF_CUDA_ACTIVITY_LIB);
		return GPUPERF_EXIT_USAGE;
	}
	/* CUDA loads one injection library: another tool's would be
	 * replaced without a word. */
	const char *set = getenv("CUDA_INJECTION64_PATH");
	if (set && set[0] && strcmp(set, library)) {
		fprintf(stderr, "gpuperf %s: CUDA_INJECTION64_PATH already names "
			"%s, and CUDA loads only one such library: unset it to "
			"measure the command's kernels with --cuda-activity, or run "
			"without --cuda-activity to keep it\n", cmd, set);
		return GPUPERF_EXIT_USAGE;
	}
	char socket[PATH_MAX];
	if (unix_path && snprintf(socket, sizeof(socket), "%s.activity",
				  unix_path) >= (int)sizeof(socket)) {
		fprintf(stderr, "gpuperf %s: --unix %s is too long a path\n", cmd,
			unix_path);
		return GPUPERF_EXIT_USAGE;
	}
	if (setenv("CUDA_INJECTION64_PATH", library, 1) ||
	    (unix_path && setenv("GPUPERF_ACTIVITY_SOCKET", socket, 1))) {
		fprintf(stderr, "gpuperf %s: out of memory\n", cmd);
		return GPUPERF_EXIT_FAILURE;
	}
	return 0;
}
