/*
 * fuzz_usable TIER: exit 0 if this CPU runs TIER, 77 if not (what fuzz/run.sh asks before
 * fuzzing a tier; the same question as test/kernel_test --usable, in the fuzz build).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <stdio.h>

#include "dispatch.h"

int main(int argc, char **argv)
{
    char why[160] = "not in this build";
    const aesfast_kernel *k = argc == 2 ? aesfast_kernel_by_name(argv[1]) : NULL;

    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_usable TIER\n");
        return 2;
    }
    if (k != NULL && aesfast_kernel_usable(k, why, sizeof(why)))
        return 0;
    printf("tier %s: %s\n", argv[1], why);
    return 77;
}
