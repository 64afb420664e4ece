/*
 * Shared by the kernel-level tests: see tiers.h.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <stdio.h>
#include <string.h>

#include "dispatch.h"
#include "rng.h"
#include "tiers.h"

/* One stream for the whole program, from a fixed seed: the same bytes on every run. */
static tu_rng *rng(void)
{
    static tu_rng r;
    static int seeded;

    if (!seeded) {
        tu_rng_seed(&r, 0x9e3779b97f4a7c15ull, 0);
        seeded = 1;
    }
    return &r;
}

uint64_t tiers_rng(void)
{
    return tu_rng_next(rng());
}

void tiers_fill(uint8_t *p, size_t n)
{
    tu_rng_fill(rng(), p, n);
}

const char *tiers_skip_note;

int tiers_run(const char *prog, int argc, char **argv, void (*test)(const aesfast_kernel *k))
{
    int ran = 0;

    for (int i = 1; i < argc; i++)
        if (aesfast_kernel_by_name(argv[i]) == NULL) {
            fprintf(stderr, "%s: no tier \"%s\" in this build\n", prog, argv[i]);
            return -1;
        }
    for (const aesfast_kernel *const *p = aesfast_kernels; *p != NULL; p++) {
        const aesfast_kernel *k = *p;
        char why[160];
        int named = argc < 2;

        for (int i = 1; i < argc; i++)
            named |= strcmp(argv[i], k->name) == 0;
        if (!named)
            continue;
        if (!aesfast_kernel_usable(k, why, sizeof(why))) {
            printf("%s: %-12s skipped (%s%s%s)\n", prog, k->name, why,
                   tiers_skip_note != NULL ? ", " : "", tiers_skip_note != NULL ? tiers_skip_note : "");
            continue;
        }
        test(k);
        ran++;
    }
    return ran;
}
