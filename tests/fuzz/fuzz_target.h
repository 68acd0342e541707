/*
 * The entry point every fuzz target defines: libFuzzer calls it with each
 * input, tests/fuzz/replay.c with each seed and regression input.
 */
#ifndef GPM_FUZZ_TARGET_H
#define GPM_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
