/*
 * The power-on self-test: known answers for one tier's kernels, run when the provider loads.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#ifndef AESFAST_SELFTEST_H
#define AESFAST_SELFTEST_H

#include <stddef.h>

#include "aesfast_kernel.h"

/* The modes the self-test covers, as bits of its result. */
enum {
    AESFAST_SELFTEST_CTR = 1,    /* set_key, ctr32_xor, encrypt_block */
    AESFAST_SELFTEST_GCM = 2,    /* the gcm table: GHASH, inc32 counter, both stitched kernels */
    AESFAST_SELFTEST_GCMSIV = 4, /* the gcmsiv table: POLYVAL, ctr32le, the stitched open */
    AESFAST_SELFTEST_GCM_MSG = 8, /* GCM's message in one call: gcm_seal_msg / gcm_open_msg, or
                                   * the composer, its groups and gcm_seal_last / gcm_open_last */
    AESFAST_SELFTEST_GCMSIV_SHORT = 16, /* gcmsiv_seal_short, gcmsiv_open_short */
};

/* Runs every known-answer test on k's kernels. Returns the modes that failed (0: all passed)
 * and, in *ns, the time it took; logs one line under AESFAST_DEBUG. *injected is set when
 * AESFAST_SELFTEST_FAULT corrupted one of k's results (see selftest.c). */
unsigned aesfast_selftest(const aesfast_kernel *k, long *ns, int *injected);

/* The names of the modes in failed, e.g. "gcm, gcmsiv", into buf. */
void aesfast_selftest_modes(unsigned failed, char *buf, size_t len);

#endif /* AESFAST_SELFTEST_H */
