/*
 * For benchmarks that drive a gpuperfd of their own over TCP: starts one
 * on 127.0.0.1, a port it picks, and waits until it is ready.
 */
#ifndef GPM_BENCH_GPUPERFD_H
#define GPM_BENCH_GPUPERFD_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs build/gpuperfd with args (NULL-terminated, args[0] unused), its
 * standard error into log; its pid once it logs that it is ready, with
 * the port it listens on, or -1 (name says who failed, and where to
 * look). */
static inline pid_t bench_start_gpuperfd(const char *build, char **args,
					 const char *log, int *port,
					 const char *name)
{
	static const char listening[] = "listening on http://127.0.0.1:";
	char gpuperfd[512];
	snprintf(gpuperfd, sizeof(gpuperfd), "%s/gpuperfd", build);
	args[0] = gpuperfd;
	pid_t pid = fork();
	if (pid == 0) {
		if (!freopen(log, "w", stderr))
			_exit(127);
		execv(gpuperfd, args);
		_exit(127);
	}
	for (int i = 0; i < 200 && pid > 0; i++) {
		usleep(50000);
		FILE *f = fopen(log, "r");
		char line[512];
		bool ready = false;
		while (f && fgets(line, sizeof(line), f)) {
			const char *at = strstr(line, listening);
			if (at)
				*port = atoi(at + strlen(listening));
			ready |= strstr(line, "ready with") != NULL;
		}
		if (f)
			fclose(f);
		if (ready && *port)
			return pid;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			break;
	}
	fprintf(stderr, "%s: gpuperfd did not start; see %s\n", name, log);
	return -1;
}

#endif
