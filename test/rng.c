/*
 * The tests' seeded PRNG (see rng.h).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include "rng.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void tu_rng_seed(tu_rng *r, uint64_t seed, uint64_t stream)
{
    /* Mix the stream number through splitmix64 before combining, so that neighbouring
     * (seed, stream) pairs do not share splitmix64 outputs. */
    uint64_t x = stream;
    uint64_t state = seed ^ splitmix64(&x);

    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&state);
}

uint64_t tu_rng_next(tu_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t tu_rng_below(tu_rng *r, uint64_t n)
{
    /* Rejection sampling: discard the top partial range so every residue is equally likely. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;

    do
        x = tu_rng_next(r);
    while (x >= limit);
    return x % n;
}

void tu_rng_fill(tu_rng *r, uint8_t *buf, size_t len)
{
    /* Little-endian byte order by construction, so a seed means the same data on every host. */
    while (len > 0) {
        uint64_t x = tu_rng_next(r);
        size_t n = len < 8 ? len : 8;

        for (size_t i = 0; i < n; i++)
            buf[i] = (uint8_t)(x >> (8 * i));
        buf += n;
        len -= n;
    }
}
