/*
 * CPU feature detection and the choice of kernel tier.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#ifndef AESFAST_DISPATCH_H
#define AESFAST_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

#include "aesfast_kernel.h"

/* The tiers compiled into this build, best first, ending with "generic"; NULL-terminated. */
extern const aesfast_kernel *const aesfast_kernels[];

/* The compiled-in tier of that name, or NULL. */
const aesfast_kernel *aesfast_kernel_by_name(const char *name);

/* 1 if this CPU (and OS) can run k; otherwise 0, with the missing features named in why. */
int aesfast_kernel_usable(const aesfast_kernel *k, char *why, size_t whylen);

/* 0 if the automatic choice passes over k on this CPU although it can run it (why says why):
 * the 512-bit tier on the Intel models that lower their clock for zmm code (dispatch.c), where
 * vaes-avx2 is chosen instead. A tier named by the user still runs. */
int aesfast_kernel_preferred(const aesfast_kernel *k, char *why, size_t whylen);

/* That policy for a CPU: vendor (CPUID leaf 0: EBX, EDX, ECX) and leaf 1's EAX (family, model,
 * stepping). 1 for Intel family 6 models 0x55, 0x6a, 0x6c, 0x7d, 0x7e, 0x9d, 0x8c and 0x8d. */
int aesfast_cpu_avoids_zmm(const char vendor[12], uint32_t leaf1_eax);

/* The best usable tier that the automatic choice prefers. */
const aesfast_kernel *aesfast_kernel_best(void);

/* A one-line summary of the detected CPU features, for the debug log. */
void aesfast_cpu_describe(char *buf, size_t len);

#endif /* AESFAST_DISPATCH_H */
