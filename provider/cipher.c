/*
 * What every aesfast mode shares (see cipher.h): the context's life cycle, the checks of init
 * and update, parameter matching and the algorithm parameters.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/proverr.h>

#include "cipher.h"

/*
 * OpenSSL 3.6's libcrypto asks every cipher for this flag when it is fetched
 * (EVP_CIPH_FLAG_ENC_THEN_MAC), and its default provider lists and answers it: 0 for these modes.
 * Older headers lack the name; an older libcrypto never asks.
 */
#ifndef OSSL_CIPHER_PARAM_ENCRYPT_THEN_MAC
#define OSSL_CIPHER_PARAM_ENCRYPT_THEN_MAC "encrypt-then-mac"
#endif

/* ---- the context -------------------------------------------------------------------------- */

/*
 * A context lives at the first AESFAST_CTX_ALIGN-byte boundary of its allocation (which is only
 * as aligned as the allocator makes it: 16 bytes from glibc's malloc, maybe less under
 * CRYPTO_set_mem_functions), so that a mode may align members to it: GCM's table of powers,
 * whose 64-byte loads then stay within a cache line each. c->pad is how far in it starts: an
 * offset, not a pointer, so that a copy of the bytes is still a context once its own pad is set.
 */
static size_t round_to_align(size_t n)
{
    return (n + AESFAST_CTX_ALIGN - 1) & ~(size_t)(AESFAST_CTX_ALIGN - 1);
}

static size_t ctx_alloc_size(size_t size)
{
    return size + AESFAST_CTX_ALIGN - 1;
}

static aesfast_cipher_ctx *ctx_place(unsigned char *raw)
{
    size_t pad = (size_t)(-(uintptr_t)raw % AESFAST_CTX_ALIGN);
    aesfast_cipher_ctx *c = (aesfast_cipher_ctx *)(void *)(raw + pad);

    c->pad = pad;
    return c;
}

void *aesfast_cipher_newctx(void *provctx, const aesfast_mode *mode, size_t keylen)
{
    const aesfast_prov *prov = provctx;
    const char *name = mode->names[(keylen - 16) / 8];
    size_t key_off = round_to_align(mode->ctx_size);
    size_t key_stride = round_to_align(prov->kernel->key_bytes);
    size_t size = key_off + mode->nkeys * key_stride;
    unsigned char *raw = mode->clear != NULL ? OPENSSL_malloc(ctx_alloc_size(size))
                                             : OPENSSL_zalloc(ctx_alloc_size(size));
    aesfast_cipher_ctx *c;

    if (raw == NULL) {
        AESFAST_RAISE(prov, AESFAST_R_OUT_OF_MEMORY, "%s context of %zu bytes", name,
                      ctx_alloc_size(size));
        return NULL;
    }
    c = ctx_place(raw);
    if (mode->clear != NULL) {
        size_t pad = c->pad;

        mode->clear(c); /* (reads nothing of c) */
        c->pad = pad;
    }
    c->key_off = (uint32_t)key_off;
    c->key_stride = (uint32_t)key_stride;
    c->size = size;
    c->prov = prov;
    c->kernel = prov->kernel;
    c->mode = mode;
    c->name = name;
    c->keylen = keylen;
    c->ivlen = mode->ivlen;
    return c;
}

/* The context wiped whole, then freed. aesfast_wipe (memset and a compiler barrier) in place of
 * OPENSSL_clear_free: the same guarantee, but OPENSSL_cleanse stores 8 bytes at a time, and for
 * a context of a few KiB that was most of the cost of a context made and freed per message. */
void aesfast_cipher_freectx(void *vctx)
{
    aesfast_cipher_ctx *c = vctx;

    if (c != NULL) {
        unsigned char *raw = (unsigned char *)c - c->pad;

        if (c->mode->wipe != NULL)
            c->mode->wipe(c);
        else
            aesfast_wipe(c, c->size);
        OPENSSL_free(raw);
    }
}

/* A copy: aesfast contexts hold no pointers into themselves (pad and the keys' place are
 * offsets; pad is set anew). */
void *aesfast_cipher_dupctx(void *vctx)
{
    const aesfast_cipher_ctx *c = vctx;
    unsigned char *raw = OPENSSL_malloc(ctx_alloc_size(c->size));
    aesfast_cipher_ctx *dup;

    if (raw == NULL) {
        AESFAST_RAISE(c->prov, AESFAST_R_OUT_OF_MEMORY, "%s context of %zu bytes", c->name,
                      ctx_alloc_size(c->size));
        return NULL;
    }
    dup = ctx_place(raw);
    size_t pad = dup->pad;
    if (c->mode->copy != NULL)
        c->mode->copy(dup, c);
    else
        memcpy(dup, c, c->size);
    dup->pad = pad;
    return dup;
}

/* ---- the error paths of init, update and parameters -------------------------------------- */

/* key: the key's length len is wrong, else the IV's. */
int aesfast_cipher_refuse_lengths(const aesfast_cipher_ctx *c, const aesfast_mode *m, int key,
                                  size_t len)
{
    if (key)
        AESFAST_RAISE(c->prov, AESFAST_R_INVALID_KEY_LENGTH, "%s takes a %zu-byte key, not %zu",
                      c->name, c->keylen, len);
    else if (m->ivlen_min == m->ivlen_max)
        AESFAST_RAISE(c->prov, AESFAST_R_INVALID_IV_LENGTH,
                      "%s takes a %zu-byte IV, not %zu bytes", c->name, m->ivlen_min, len);
    else
        AESFAST_RAISE(c->prov, AESFAST_R_INVALID_IV_LENGTH,
                      "%s takes a %zu..%zu-byte IV, not %zu bytes", c->name, m->ivlen_min,
                      m->ivlen_max, len);
    return 0;
}

void aesfast_cipher_set_key(aesfast_cipher_ctx *c, const unsigned char *key)
{
    c->kernel->set_key(aesfast_ctx_key(c, 0), key, c->keylen);
    c->key_set = 1;
    aesfast_debug("%s: key setup on kernel %s", c->name, c->kernel->name);
}

int aesfast_cipher_refuse_buffers(const aesfast_cipher_ctx *c, int reason, const uint8_t *out,
                                  size_t outsize, const uint8_t *in, size_t inl)
{
    if (reason == AESFAST_R_NULL_BUFFER)
        AESFAST_RAISE(c->prov, reason,
                      "%s: %zu bytes of input from a NULL buffer (the final is a separate call)",
                      c->name, inl);
    else if (reason == AESFAST_R_OUTPUT_BUFFER_TOO_SMALL)
        AESFAST_RAISE(c->prov, reason, "%s: %zu bytes in, room for %zu out", c->name, inl,
                      out == NULL ? 0 : outsize);
    else
        AESFAST_RAISE(c->prov, reason, "%s: the output of %zu bytes starts %s the input",
                      c->name, inl, (uintptr_t)out < (uintptr_t)in ? "before" : "inside");
    return 0;
}

int aesfast_cipher_refuse_no_tag(const aesfast_cipher_ctx *c, const char *what_when)
{
    AESFAST_RAISE(c->prov, AESFAST_R_TAG_NOT_SET, "%s: set the %s", c->name, what_when);
    return 0;
}

/* After a hook's result other than OK: 1 to go on to the next parameter, 0 to fail (the error
 * raised). A known key with a wrong type or value is an error; any other key is ignored, as
 * OSSL_PARAM(3) asks (EVP and applications send "padding", "keylen" and more to every cipher),
 * and a setter logs it under AESFAST_DEBUG, so that a misspelt parameter can still be found. */
int aesfast_cipher_param_go_on(const aesfast_cipher_ctx *c, const OSSL_PARAM *p,
                               aesfast_param_result r, int get)
{
    switch (r) {
    case AESFAST_PARAM_WRONG_TYPE:
        AESFAST_RAISE(c->prov, AESFAST_R_BAD_PARAMETER_VALUE,
                      "%s: cannot %s parameter \"%s\" in the type or size given", c->name,
                      get ? "return" : "read", p->key);
        return 0;
    case AESFAST_PARAM_NOT_MINE:
        if (!get)
            aesfast_debug("%s: ignoring parameter \"%s\"", c->name, p->key);
        return 1;
    default: /* AESFAST_PARAM_FAILED: raised already */
        return r == AESFAST_PARAM_OK;
    }
}

/* ---- context parameters ------------------------------------------------------------------- */

aesfast_param_result aesfast_param_fixed_size(const aesfast_cipher_ctx *c, const OSSL_PARAM *p,
                                              aesfast_param id, size_t want)
{
    size_t sz;

    if (!OSSL_PARAM_get_size_t(p, &sz))
        return AESFAST_PARAM_WRONG_TYPE;
    if (sz == want)
        return AESFAST_PARAM_OK;
    AESFAST_RAISE(c->prov, id == AESFAST_P_KEYLEN ? AESFAST_R_INVALID_KEY_LENGTH
                                                  : AESFAST_R_INVALID_IV_LENGTH,
                  "%s has a fixed %zu-byte %s, not %zu", c->name, want,
                  id == AESFAST_P_KEYLEN ? "key" : "IV", sz);
    return AESFAST_PARAM_FAILED;
}

aesfast_param_result aesfast_param_set_iv(OSSL_PARAM *p, const uint8_t *iv, size_t len)
{
    return aesfast_param_done(OSSL_PARAM_set_octet_string(p, iv, len)
                              || OSSL_PARAM_set_octet_ptr(p, iv, len));
}

/* ---- algorithm parameters ----------------------------------------------------------------- */

/* An algorithm parameter that could not be set (the caller asked for another type). The
 * algorithm's get_params has no provider context to raise aesfast's reasons through, so it
 * raises libcrypto's own, as the default provider does (and 3.5's OSSL_PARAM setters do by
 * themselves; 3.0's do not). */
static int set_failed(void)
{
    ERR_raise(ERR_LIB_PROV, PROV_R_FAILED_TO_SET_PARAMETER);
    return 0;
}

int aesfast_cipher_get_params(OSSL_PARAM params[], const aesfast_mode *mode, size_t keylen)
{
    const struct {
        const char *key;
        int value;
    } flags[] = {
        {OSSL_CIPHER_PARAM_AEAD, mode->aead},
        {OSSL_CIPHER_PARAM_CUSTOM_IV, mode->aead},
        {OSSL_CIPHER_PARAM_CTS, 0},
        {OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, 0},
        {OSSL_CIPHER_PARAM_HAS_RAND_KEY, 0},
        {OSSL_CIPHER_PARAM_ENCRYPT_THEN_MAC, 0},
    };
    OSSL_PARAM *p;

    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_MODE)) != NULL
        && !OSSL_PARAM_set_uint(p, mode->evp_mode))
        return set_failed();
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != NULL
        && !OSSL_PARAM_set_size_t(p, keylen))
        return set_failed();
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != NULL
        && !OSSL_PARAM_set_size_t(p, mode->ivlen))
        return set_failed();
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_BLOCK_SIZE)) != NULL
        && !OSSL_PARAM_set_size_t(p, 1))
        return set_failed();
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
        if ((p = OSSL_PARAM_locate(params, flags[i].key)) != NULL
            && !OSSL_PARAM_set_int(p, flags[i].value))
            return set_failed();
    return 1;
}

const OSSL_PARAM *aesfast_cipher_gettable_params(void *provctx)
{
    static const OSSL_PARAM params[] = {
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, NULL),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, NULL),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, NULL),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, NULL),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_CTS, NULL),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, NULL),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_HAS_RAND_KEY, NULL),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_ENCRYPT_THEN_MAC, NULL),
        OSSL_PARAM_END,
    };

    (void)provctx;
    return params;
}

