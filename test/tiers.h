/*
 * What the tests that call kernels directly (kernel_test, abi_test, ct_test) share: a
 * reproducible random source that involves no libcrypto, and the loop over the tiers a command
 * line names.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#ifndef AESFAST_TEST_TIERS_H
#define AESFAST_TEST_TIERS_H

#include <stddef.h>
#include <stdint.h>

#include "aesfast_kernel.h"

/* The tests' PRNG (rng.h) from a fixed seed: the same bytes on every run and every machine. */
uint64_t tiers_rng(void);
void tiers_fill(uint8_t *p, size_t n);

/*
 * Calls test(k) for each compiled-in tier named in argv[1..argc-1] (every tier when there are
 * none) that this CPU runs, printing "PROG: TIER skipped (why)" for the others. Returns how many
 * tiers ran, or -1 (after a message) when a name is not a tier of this build.
 */
int tiers_run(const char *prog, int argc, char **argv, void (*test)(const aesfast_kernel *k));

/* If set, added to each "skipped (why)" of tiers_run: where the CPU it describes is not the
 * machine's (ct_test: the CPU as valgrind presents it). */
extern const char *tiers_skip_note;

#endif /* AESFAST_TEST_TIERS_H */
