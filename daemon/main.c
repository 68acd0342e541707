/*
 * gpuperfd: the GPU profiling daemon's entry point.
 */
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: gpuperfd [OPTIONS]\n\n"
		"  --help      show this help\n"
		"  --version   print the version\n");
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--version")) {
			printf("gpuperfd %s\n", GPUPERF_VERSION);
			return 0;
		}
	}
	fprintf(stderr, "gpuperfd: the event loop and sources are not built yet\n");
	return 1;
}
