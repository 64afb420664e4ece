/*
 * The differential fuzzing driver shared by the three targets (fuzz/ctr_fuzz.c, gcm_fuzz.c,
 * gcmsiv_fuzz.c): each defines its mode's table and nothing else; driver.c interprets the input
 * as a program of EVP calls (the encoding is described there and in fuzz/README.md) and runs it
 * on aesfast and on OpenSSL's default provider side by side.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#ifndef AESFAST_FUZZ_DRIVER_H
#define AESFAST_FUZZ_DRIVER_H

enum fuzz_kind { FUZZ_CTR, FUZZ_GCM, FUZZ_GCMSIV };

struct fuzz_mode {
    enum fuzz_kind kind;
    const char *names[3]; /* AES-128/192/256 */
};

/* Defined by each target's own file. */
extern const struct fuzz_mode fuzz_mode;

#endif /* AESFAST_FUZZ_DRIVER_H */
