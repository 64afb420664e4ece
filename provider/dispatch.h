/*
 * CPU feature detection and the choice of kernel tier.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#ifndef AESFAST_DISPATCH_H
#define AESFAST_DISPATCH_H

#include <stddef.h>

#include "aesfast_kernel.h"

/* The tiers compiled into this build, best first, ending with "generic"; NULL-terminated. */
extern const aesfast_kernel *const aesfast_kernels[];

/* The compiled-in tier of that name, or NULL. */
const aesfast_kernel *aesfast_kernel_by_name(const char *name);

/* 1 if this CPU (and OS) can run k; otherwise 0, with the missing features named in why. */
int aesfast_kernel_usable(const aesfast_kernel *k, char *why, size_t whylen);

/* The best usable tier. */
const aesfast_kernel *aesfast_kernel_best(void);

/* A one-line summary of the detected CPU features, for the debug log. */
void aesfast_cpu_describe(char *buf, size_t len);

#endif /* AESFAST_DISPATCH_H */
