/*
 * The seeded PRNG every test program draws its random inputs from: xoshiro256** seeded through
 * splitmix64. Reproducible (the same seed gives the same bytes on every host), no libcrypto, and
 * never used for anything but test data.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#ifndef AESFAST_TEST_RNG_H
#define AESFAST_TEST_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct tu_rng {
    uint64_t s[4];
} tu_rng;

/* Seed from (seed, stream): distinct streams (e.g. case indices) give independent sequences, so
 * one case can be replayed without running the ones before it. */
void tu_rng_seed(tu_rng *r, uint64_t seed, uint64_t stream);
uint64_t tu_rng_next(tu_rng *r);
/* Uniform in [0, n); n must be > 0. */
uint64_t tu_rng_below(tu_rng *r, uint64_t n);
void tu_rng_fill(tu_rng *r, uint8_t *buf, size_t len);

#endif /* AESFAST_TEST_RNG_H */
