/*
 * CMD's environment for --cuda-activity (cuda_activity_env.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/commands.h"
#include "client/cuda_activity_env.h"
#include "client/library_path.h"

#define LIBRARY "libgpuperf-cuda-activity.so"

int gpuperf_cuda_activity_env(const char *cmd, const char *unix_path)
{
	char library[PATH_MAX];
	if (gpuperf_library_path(LIBRARY, library, sizeof(library))) {
		fprintf(stderr, "gpuperf %s: --cuda-activity needs %s, which is "
			"neither beside gpuperf nor in %s: install it with 'make "
			"install'\n", cmd, LIBRARY, GPM_LIBDIR);
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
