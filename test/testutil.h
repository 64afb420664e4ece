/*
 * Helpers shared by the aesfast test programs: provider loading with "never pass on the wrong
 * provider" checks, chunked EVP updates, 128-bit counter arithmetic, hex decoding and an allocator
 * that cannot fail (the seeded PRNG is in rng.h).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * Only OpenSSL 3.0 APIs are used: the same binary runs against libcrypto 3.0 and 3.5.
 */
#ifndef AESFAST_TESTUTIL_H
#define AESFAST_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <openssl/evp.h>
#include <openssl/provider.h>

#include "rng.h"

/* Exit status meson reads as "skipped". */
#define TU_EXIT_SKIP 77

/* Program name for messages; set by tu_init(). */
extern const char *tu_prog;

/* Print "prog: message" plus any queued OpenSSL errors to stderr and exit 1. */
void tu_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* malloc(n), or exit through tu_die: never NULL, also for n == 0 (where malloc may give NULL). */
void *tu_xmalloc(size_t n);

/* ---- Providers ---------------------------------------------------------------------------- */

/*
 * The provider under test and the reference ("default"), both in the default library context.
 * The provider under test must be active once the cnf named by OPENSSL_CONF is loaded (the
 * build's aesfast.cnf names the module just built by its absolute path); there is no fallback to
 * loading it by name, which could find an installed copy. "default" is built into libcrypto, so
 * "--provider default" works with or without a cnf.
 */
typedef struct tu_providers {
    const char *test_name;    /* e.g. "aesfast", or "default" for default-vs-default runs */
    OSSL_PROVIDER *test, *ref;
    char kernel[32];          /* the "aesfast-kernel" provider parameter, or "n/a" */
} tu_providers;

/* Load both providers and read the kernel name; exits with a message on failure. If
 * expect_kernel is not NULL, also exit 1 unless the provider reports that kernel. */
void tu_providers_load(tu_providers *p, const char *test_name, const char *expect_kernel);
void tu_providers_unload(tu_providers *p);

/* Fetch alg with "provider=NAME" and exit unless it really came from provider NAME. */
EVP_CIPHER *tu_fetch_cipher(const char *alg, const char *provider_name);

/* ---- EVP helpers -------------------------------------------------------------------------- */

/* Chunk-size source for tu_update_chunked: returns the next update length, at most remaining
 * (0 is allowed and means an empty update call). */
typedef size_t tu_next_chunk_fn(void *arg, size_t remaining);

/* A fixed cycle of chunk sizes; tu_cycle_next is its tu_next_chunk_fn. */
typedef struct tu_cycle {
    const size_t *sizes;
    size_t n, i;
} tu_cycle;
size_t tu_cycle_next(void *arg, size_t remaining);

/*
 * Feed len bytes from in through EVP_EncryptUpdate (enc) or EVP_DecryptUpdate (!enc) in the
 * chunks next() chooses, writing to out (which may equal in). Checks every call succeeds and
 * returns exactly its input length, as a stream cipher must. Returns 1 on success, 0 after
 * printing what went wrong.
 */
int tu_update_chunked(EVP_CIPHER_CTX *ctx, int enc, uint8_t *out, const uint8_t *in, size_t len,
                      tu_next_chunk_fn *next, void *arg);

/* EVP_{En,De}cryptFinal_ex must succeed and output nothing. Returns 1 if so. */
int tu_final_empty(EVP_CIPHER_CTX *ctx, int enc);

/* Read a 16-byte IV parameter (OSSL_CIPHER_PARAM_IV or OSSL_CIPHER_PARAM_UPDATED_IV). */
int tu_get_iv_param(EVP_CIPHER_CTX *ctx, const char *name, uint8_t out[16]);

/* Sets the expected AEAD tag: with EVP_CTRL_AEAD_SET_TAG, or (by_param) the "tag" parameter. */
int tu_set_tag(EVP_CIPHER_CTX *ctx, const uint8_t *tag, size_t len, int by_param);

/* ctr += n, as OpenSSL's CTR mode counts: the whole block is a big-endian 128-bit integer
 * that wraps from 2^128 - 1 to 0. */
void tu_ctr_add(uint8_t ctr[16], uint64_t n);

/* Number of counter blocks that len bytes consume: ceil(len / 16). */
static inline uint64_t tu_ctr_blocks(size_t len) { return ((uint64_t)len + 15) / 16; }

/* Index of the first differing byte, or (size_t)-1 if a and b are equal. */
size_t tu_first_diff(const uint8_t *a, const uint8_t *b, size_t len);

/* ---- Hex ---------------------------------------------------------------------------------- */

/* Decode hex digits, ignoring whitespace. Returns a malloc'd buffer (non-NULL even when empty;
 * free() it) and its length, or NULL if s holds an odd number of digits or a non-hex character. */
uint8_t *tu_hex_decode(const char *s, size_t *len);

/* Write buf as lowercase hex. */
void tu_hex_print(FILE *f, const uint8_t *buf, size_t len);

/* ---- Command line ------------------------------------------------------------------------- */

/* Parse an unsigned number (decimal or 0x hex) or exit with a usage message naming opt. */
uint64_t tu_parse_u64(const char *opt, const char *s);

/* Monotonic seconds, for timings. */
double tu_now(void);

/* A fresh library context configured, as users configure it, from a temporary openssl.cnf that
 * loads the module at module_path (and only it), with "aesfast-kernel = cnf_kernel" unless that
 * is NULL. NULL, with the errors left on the queue, when aesfast did not load. */
OSSL_LIB_CTX *tu_load_cnf(const char *module_path, const char *cnf_kernel);
/* A new library context loaded from the openssl.cnf text given; NULL unless aesfast is active. */
OSSL_LIB_CTX *tu_load_cnf_text(const char *cnf);

/* 1 if the error queue holds an error whose text or data contains want; empties the queue,
 * printing each error (as expected ones) to stderr. */
int tu_error_mentions(const char *want);

/* Call first from main(). */
void tu_init(const char *prog);

#endif /* AESFAST_TESTUTIL_H */
