/*
 * AES-128/192/256-CTR, with the semantics of OpenSSL's default provider: the whole 16-byte IV is
 * a big-endian 128-bit counter (carries cross every word boundary and 2^128 wraps to 0), updates
 * of any length stream on from where the last one stopped, and "updated-iv" is the counter block
 * of the next keystream block to be generated.
 *
 * The kernels only see whole blocks with a 32-bit counter (see kernels/aesfast_kernel.h); this
 * file carries the leftover keystream of a partial block and splits requests at 2^32-block
 * boundaries so the carry into the upper 96 bits happens here.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "aesfast.h"
#include "cipher.h"
#include "stream.h"

typedef struct {
    aesfast_key key; /* first: OPENSSL_zalloc's 16-byte alignment is what the kernels need */
    const aesfast_prov *prov;
    const aesfast_kernel *kernel;
    size_t keylen;
    uint8_t iv[AESFAST_BLOCK];  /* the IV as given ("iv") */
    uint8_t ctr[AESFAST_BLOCK]; /* counter block of the next keystream block ("updated-iv") */
    keystream ks;               /* the current partial block; ks.num is the "num" parameter */
    unsigned int pad;           /* the "padding" parameter: 0 or 1, stored, meaningless for CTR */
    int key_set, iv_set;
} ctr_ctx;

/* Big-endian <-> host order for 64-bit words (an involution either way). */
static uint64_t be64(uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return __builtin_bswap64(v);
#else
    return v;
#endif
}

static uint64_t load_be64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, 8);
    return be64(v);
}

/*
 * ctr += n, as a 128-bit big-endian number, modulo 2^128. The counter is not secret.
 *
 * The new counter is written with one 16-byte store: the kernel's next 16-byte load of it is then
 * served by store-to-load forwarding, whereas after narrower stores it must wait until they
 * retire, which serializes back-to-back small updates behind each other's AES latency.
 */
static void ctr_add(uint8_t ctr[AESFAST_BLOCK], uint64_t n)
{
    uint64_t hi = load_be64(ctr), lo = load_be64(ctr + 8);
    typedef uint64_t u64x2 __attribute__((vector_size(16)));
    u64x2 v;

    lo += n;
    hi += lo < n;
    v[0] = be64(hi);
    v[1] = be64(lo);
    memcpy(ctr, &v, sizeof(v)); /* one 16-byte store (movups / str q) */
}

/* Whole blocks: the kernel's 32-bit counter, with the carry into the upper 96 bits done here. */
static void ctr_blocks(ctr_ctx *c, const uint8_t *in, uint8_t *out, size_t nblocks)
{
    while (nblocks > 0) {
        uint64_t before_wrap = ((uint64_t)1 << 32) - (uint32_t)load_be64(c->ctr + 8);
        size_t n = nblocks < before_wrap ? nblocks : (size_t)before_wrap;

        c->kernel->ctr32_xor(&c->key, c->ctr, in, out, n);
        ctr_add(c->ctr, n);
        in += n * AESFAST_BLOCK;
        out += n * AESFAST_BLOCK;
        nblocks -= n;
    }
}

static void ctr_xor(ctr_ctx *c, const uint8_t *in, uint8_t *out, size_t len)
{
    size_t used = ks_spend(&c->ks, in, out, len);

    in += used;
    out += used;
    len -= used;
    size_t nblocks = len / AESFAST_BLOCK;
    ctr_blocks(c, in, out, nblocks);
    in += nblocks * AESFAST_BLOCK;
    out += nblocks * AESFAST_BLOCK;
    len %= AESFAST_BLOCK;
    if (len > 0) {
        ks_tail(&c->ks, c->kernel, &c->key, c->ctr, in, out, len);
        ctr_add(c->ctr, 1);
    }
}

static void *ctr_newctx(void *provctx, size_t keylen)
{
    ctr_ctx *c = aesfast_ctx_new(provctx, sizeof(*c), "AES-CTR");

    if (c == NULL)
        return NULL;
    c->prov = provctx;
    c->kernel = c->prov->kernel;
    c->keylen = keylen;
    c->pad = 1; /* as in the default provider, though CTR never pads */
    return c;
}

static void ctr_freectx(void *vctx)
{
    OPENSSL_clear_free(vctx, sizeof(ctr_ctx));
}

static void *ctr_dupctx(void *vctx)
{
    const ctr_ctx *c = vctx;

    return aesfast_ctx_dup(c->prov, c, sizeof(*c), "AES-CTR");
}

static int ctr_set_ctx_params(void *vctx, const OSSL_PARAM params[]);

/* Encryption and decryption are the same operation in CTR, so both inits come here. */
static int ctr_init(void *vctx, const unsigned char *key, size_t keylen, const unsigned char *iv,
                    size_t ivlen, const OSSL_PARAM params[])
{
    ctr_ctx *c = vctx;

    /* Everything is checked before anything changes: a refused init leaves the stream as it was. */
    if (key != NULL && keylen != c->keylen) {
        AESFAST_RAISE(c->prov, AESFAST_R_INVALID_KEY_LENGTH,
                      "AES-%zu-CTR takes a %zu-byte key, not %zu", c->keylen * 8, c->keylen,
                      keylen);
        return 0;
    }
    if (iv != NULL && ivlen != AESFAST_BLOCK) {
        AESFAST_RAISE(c->prov, AESFAST_R_INVALID_IV_LENGTH, "AES-CTR takes a 16-byte IV, not %zu",
                      ivlen);
        return 0;
    }
    if (key != NULL) {
        c->kernel->set_key(&c->key, key, keylen);
        c->key_set = 1;
    }
    if (iv != NULL) {
        memcpy(c->iv, iv, AESFAST_BLOCK);
        memcpy(c->ctr, iv, AESFAST_BLOCK);
        c->iv_set = 1;
    }
    /* A new key or IV starts a new stream (as in the default provider, even with neither). */
    OPENSSL_cleanse(&c->ks, sizeof(c->ks));
    return ctr_set_ctx_params(c, params);
}

static int ctr_ready(const ctr_ctx *c)
{
    if (!c->key_set) {
        AESFAST_RAISE(c->prov, AESFAST_R_NO_KEY_SET, "set a key before encrypting");
        return 0;
    }
    if (!c->iv_set) {
        AESFAST_RAISE(c->prov, AESFAST_R_NO_IV_SET, "set an IV before encrypting");
        return 0;
    }
    return 1;
}

static int ctr_update(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                      const unsigned char *in, size_t inl)
{
    ctr_ctx *c = vctx;

    if (!ctr_ready(c))
        return 0;
    if (inl == 0) {
        *outl = 0;
        return 1;
    }
    if (outsize < inl || out == NULL || in == NULL) {
        AESFAST_RAISE(c->prov, AESFAST_R_OUTPUT_BUFFER_TOO_SMALL,
                      "%zu bytes in, room for %zu out%s", inl, out == NULL ? 0 : outsize,
                      in == NULL ? " (no input buffer)" : "");
        return 0;
    }
    /* In place (out == in) is fine; any other overlap would read already-written output. */
    uintptr_t o = (uintptr_t)out, i = (uintptr_t)in;
    if (o != i && o < i + inl && i < o + inl) {
        AESFAST_RAISE(c->prov, AESFAST_R_PARTIALLY_OVERLAPPING, "out=%p in=%p len=%zu",
                      (void *)out, (const void *)in, inl);
        return 0;
    }
    ctr_xor(c, in, out, inl);
    *outl = inl;
    return 1;
}

static int ctr_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    ctr_ctx *c = vctx;

    (void)out;
    (void)outsize;
    if (!c->key_set) {
        AESFAST_RAISE(c->prov, AESFAST_R_NO_KEY_SET, "final without a key");
        return 0;
    }
    *outl = 0;
    return 1;
}

static int ctr_cipher(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                      const unsigned char *in, size_t inl)
{
    return ctr_update(vctx, out, outl, outsize, in, inl);
}

static int ctr_get_params(OSSL_PARAM params[], size_t keylen)
{
    return aesfast_cipher_get_params(params, EVP_CIPH_CTR_MODE, keylen, AESFAST_BLOCK, 0);
}

static int ctr_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    ctr_ctx *c = vctx;
    OSSL_PARAM *p;

    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != NULL
        && !OSSL_PARAM_set_size_t(p, c->keylen))
        goto cannot_return;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != NULL
        && !OSSL_PARAM_set_size_t(p, AESFAST_BLOCK))
        goto cannot_return;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_PADDING)) != NULL
        && !OSSL_PARAM_set_uint(p, c->pad))
        goto cannot_return;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_NUM)) != NULL
        && !OSSL_PARAM_set_uint(p, c->ks.num))
        goto cannot_return;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IV)) != NULL
        && !OSSL_PARAM_set_octet_string(p, c->iv, AESFAST_BLOCK)
        && !OSSL_PARAM_set_octet_ptr(p, c->iv, AESFAST_BLOCK))
        goto cannot_return;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_UPDATED_IV)) != NULL
        && !OSSL_PARAM_set_octet_string(p, c->ctr, AESFAST_BLOCK)
        && !OSSL_PARAM_set_octet_ptr(p, c->ctr, AESFAST_BLOCK))
        goto cannot_return;
    return 1;

cannot_return: /* a wrong type, or a buffer too small for the 16-byte IV */
    AESFAST_RAISE(c->prov, AESFAST_R_BAD_PARAMETER_VALUE,
                  "cannot return parameter \"%s\" in the type or size given", p->key);
    return 0;
}

static const OSSL_PARAM *ctr_gettable_ctx_params(void *cctx, void *provctx)
{
    static const OSSL_PARAM params[] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, NULL),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
        OSSL_PARAM_END,
    };

    (void)cctx;
    (void)provctx;
    return params;
}

/*
 * Settable, as in the default provider's CTR: "padding" (EVP_CIPHER_CTX_set_padding sends it to
 * every cipher; stored as 0/1, never used), "num" (only 0: with a block size of 1 nothing else is
 * a valid position), and "use-bits", "tls-version", "tls-mac-size" (accepted, meaningless for
 * CTR). "keylen" and "ivlen" are accepted only at their one valid value. A known key with a
 * wrong type or value is an error. Any other key is ignored, as OSSL_PARAM(3) asks of a setter
 * ("keys that a setter doesn't recognise should simply be ignored") and as the default provider
 * does; under AESFAST_DEBUG it is logged, so a misspelt parameter can still be found.
 */
static int ctr_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    ctr_ctx *c = vctx;

    for (const OSSL_PARAM *p = params; p != NULL && p->key != NULL; p++) {
        size_t sz;
        unsigned int u;

        if (strcmp(p->key, OSSL_CIPHER_PARAM_PADDING) == 0) {
            if (!OSSL_PARAM_get_uint(p, &u))
                goto bad_value;
            c->pad = u != 0;
        } else if (strcmp(p->key, OSSL_CIPHER_PARAM_KEYLEN) == 0) {
            if (!OSSL_PARAM_get_size_t(p, &sz))
                goto bad_value;
            if (sz != c->keylen) {
                AESFAST_RAISE(c->prov, AESFAST_R_INVALID_KEY_LENGTH,
                              "AES-%zu-CTR has a fixed %zu-byte key, not %zu", c->keylen * 8,
                              c->keylen, sz);
                return 0;
            }
        } else if (strcmp(p->key, OSSL_CIPHER_PARAM_IVLEN) == 0) {
            if (!OSSL_PARAM_get_size_t(p, &sz))
                goto bad_value;
            if (sz != AESFAST_BLOCK) {
                AESFAST_RAISE(c->prov, AESFAST_R_INVALID_IV_LENGTH,
                              "AES-CTR has a fixed 16-byte IV, not %zu", sz);
                return 0;
            }
        } else if (strcmp(p->key, OSSL_CIPHER_PARAM_NUM) == 0) {
            if (!OSSL_PARAM_get_uint(p, &u))
                goto bad_value;
            if (u != 0) {
                AESFAST_RAISE(c->prov, AESFAST_R_BAD_PARAMETER_VALUE,
                              "num must be 0 for a cipher of block size 1, not %u", u);
                return 0;
            }
            c->ks.num = 0; /* the rest of the current keystream block is skipped */
        } else if (strcmp(p->key, OSSL_CIPHER_PARAM_USE_BITS) == 0
                   || strcmp(p->key, OSSL_CIPHER_PARAM_TLS_VERSION) == 0) {
            if (!OSSL_PARAM_get_uint(p, &u))
                goto bad_value;
        } else if (strcmp(p->key, OSSL_CIPHER_PARAM_TLS_MAC_SIZE) == 0) {
            if (!OSSL_PARAM_get_size_t(p, &sz))
                goto bad_value;
        } else {
            aesfast_debug("AES-CTR: ignoring unknown parameter \"%s\"", p->key);
        }
        continue;
    bad_value:
        AESFAST_RAISE(c->prov, AESFAST_R_BAD_PARAMETER_VALUE, "cannot read parameter \"%s\"",
                      p->key);
        return 0;
    }
    return 1;
}

static const OSSL_PARAM *ctr_settable_ctx_params(void *cctx, void *provctx)
{
    static const OSSL_PARAM params[] = {
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, NULL),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_USE_BITS, NULL),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_TLS_VERSION, NULL),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, NULL),
        OSSL_PARAM_END,
    };

    (void)cctx;
    (void)provctx;
    return params;
}

/* Encryption and decryption are the same operation in CTR. */
#define ctr_einit ctr_init
#define ctr_dinit ctr_init

AESFAST_CIPHER_TABLE(ctr, 128);
AESFAST_CIPHER_TABLE(ctr, 192);
AESFAST_CIPHER_TABLE(ctr, 256);
