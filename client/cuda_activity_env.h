/*
 * gpuperf run --cuda-activity: CMD's environment names
 * libgpuperf-cuda-activity.so in CUDA_INJECTION64_PATH, so that CUDA
 * loads it into CMD's CUDA processes and they report their own kernel
 * time to the daemon (README, NVIDIA per-process shares).
 */
#ifndef GPUPERF_CUDA_ACTIVITY_ENV_H
#define GPUPERF_CUDA_ACTIVITY_ENV_H

/* Sets CUDA_INJECTION64_PATH, and GPUPERF_ACTIVITY_SOCKET to
 * unix_path's PATH.activity where unix_path is not NULL, in this
 * process's environment (which CMD inherits). Refuses, saying why, when
 * CUDA_INJECTION64_PATH already names another library (CUDA loads only
 * one) or the library is not installed: 0, or GPUPERF_EXIT_USAGE. */
int gpuperf_cuda_activity_env(const char *cmd, const char *unix_path);

#endif
