/*
 * AES-128/192/256-CTR, with the semantics of OpenSSL's default provider: the whole 16-byte IV is
 * a big-endian 128-bit counter (carries cross every word boundary and 2^128 wraps to 0), updates
 * of any length stream on from where the last one stopped, and "updated-iv" is the counter block
 * of the next keystream block to be generated. A key with no IV ever set runs from the all-zero
 * counter, as the default provider's does (BIO_set_cipher with a NULL IV relies on it).
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
    aesfast_cipher_ctx base;    /* first (cipher.h) */
    uint8_t iv[AESFAST_BLOCK];  /* the IV as given ("iv") */
    uint8_t ctr[AESFAST_BLOCK]; /* counter block of the next keystream block ("updated-iv") */
    keystream ks;               /* the current partial block; ks.num is the "num" parameter */
    unsigned int no_padding;    /* the "padding" parameter, inverted: a new context says 1, as the
                                 * default provider's does; stored, meaningless for CTR */
} ctr_ctx;

static uint64_t load_be64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, 8);
    return aesfast_be64(v);
}

/* ctr += n, as a 128-bit big-endian number, modulo 2^128. The counter is not secret. It is
 * written with one 16-byte store, for the kernel's next load of it (u64x2: see stream.h). */
static void ctr_add(uint8_t ctr[AESFAST_BLOCK], uint64_t n)
{
    uint64_t hi = load_be64(ctr), lo = load_be64(ctr + 8);
    u64x2 v;

    lo += n;
    hi += lo < n;
    v[0] = aesfast_be64(hi);
    v[1] = aesfast_be64(lo);
    memcpy(ctr, &v, sizeof(v)); /* one 16-byte store (movups / str q) */
}

/* Whole blocks: the kernel's 32-bit counter, with the carry into the upper 96 bits done here. */
static void ctr_blocks(ctr_ctx *c, const uint8_t *in, uint8_t *out, size_t nblocks)
{
    while (nblocks > 0) {
        uint64_t before_wrap = ((uint64_t)1 << 32) - (uint32_t)load_be64(c->ctr + 8);
        size_t n = nblocks < before_wrap ? nblocks : (size_t)before_wrap;

        c->base.kernel->ctr32_xor(aesfast_ctx_key(&c->base, 0), c->ctr, in, out, n);
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
        ks_tail(&c->ks, c->base.kernel, aesfast_ctx_key(&c->base, 0), c->ctr, in, out, len);
        ctr_add(c->ctr, 1);
    }
}

/* Encryption and decryption are the same operation in CTR. A new key or IV starts a new stream
 * (as in the default provider, even with neither). */
AESFAST_HOOK void ctr_init(aesfast_cipher_ctx *b, int new_key, const uint8_t *iv, size_t ivlen)
{
    ctr_ctx *c = (ctr_ctx *)b;

    (void)new_key;
    (void)ivlen;
    if (iv != NULL) {
        memcpy(c->iv, iv, AESFAST_BLOCK);
        memcpy(c->ctr, iv, AESFAST_BLOCK);
    }
    OPENSSL_cleanse(&c->ks, sizeof(c->ks));
}

static int ctr_ready(const ctr_ctx *c)
{
    if (!c->base.key_set) {
        AESFAST_RAISE(c->base.prov, AESFAST_R_NO_KEY_SET, "%s: set a key before encrypting",
                      c->base.name);
        return 0;
    }
    return 1;
}

static int ctr_update(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                      const unsigned char *in, size_t inl)
{
    ctr_ctx *c = vctx;

    if (!aesfast_cipher_buffers_ok(&c->base, 0, out, outsize, in, inl) || !ctr_ready(c))
        return 0;
    if (inl > 0)
        ctr_xor(c, in, out, inl);
    *outl = inl;
    return 1;
}

static int ctr_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    ctr_ctx *c = vctx;

    (void)out;
    (void)outsize;
    if (!c->base.key_set) {
        AESFAST_RAISE(c->base.prov, AESFAST_R_NO_KEY_SET, "%s: final without a key",
                      c->base.name);
        return 0;
    }
    *outl = 0;
    return 1;
}

#define ctr_cipher ctr_update /* EVP_Cipher is an update */

AESFAST_HOOK aesfast_param_result ctr_get(aesfast_cipher_ctx *b, OSSL_PARAM *p, aesfast_param id)
{
    ctr_ctx *c = (ctr_ctx *)b;

    switch (id) {
    case AESFAST_P_PADDING:
        return aesfast_param_done(OSSL_PARAM_set_uint(p, !c->no_padding));
    case AESFAST_P_NUM:
        return aesfast_param_done(OSSL_PARAM_set_uint(p, c->ks.num));
    case AESFAST_P_IV:
        return aesfast_param_set_iv(p, c->iv, AESFAST_BLOCK);
    case AESFAST_P_UPDATED_IV:
        return aesfast_param_set_iv(p, c->ctr, AESFAST_BLOCK);
    default:
        return AESFAST_PARAM_NOT_MINE;
    }
}

/*
 * Settable, as in the default provider's CTR: "padding" (EVP_CIPHER_CTX_set_padding sends it to
 * every cipher; stored as 0/1, never used), "num" (only 0: with a block size of 1 nothing else is
 * a valid position), and "use-bits", "tls-version", "tls-mac-size" (accepted, meaningless for
 * CTR). "keylen" and "ivlen" are accepted only at their one valid value.
 */
AESFAST_HOOK aesfast_param_result ctr_set(aesfast_cipher_ctx *b, const OSSL_PARAM *p,
                                         aesfast_param id)
{
    ctr_ctx *c = (ctr_ctx *)b;
    unsigned int u;
    size_t sz;

    switch (id) {
    case AESFAST_P_PADDING:
        if (!OSSL_PARAM_get_uint(p, &u))
            return AESFAST_PARAM_WRONG_TYPE;
        c->no_padding = u == 0;
        return AESFAST_PARAM_OK;
    case AESFAST_P_KEYLEN:
        return aesfast_param_fixed_size(b, p, id, b->keylen);
    case AESFAST_P_IVLEN:
        return aesfast_param_fixed_size(b, p, id, AESFAST_BLOCK);
    case AESFAST_P_NUM:
        if (!OSSL_PARAM_get_uint(p, &u))
            return AESFAST_PARAM_WRONG_TYPE;
        if (u != 0) {
            AESFAST_RAISE(b->prov, AESFAST_R_BAD_PARAMETER_VALUE,
                          "%s: num must be 0 for a cipher of block size 1, not %u", b->name, u);
            return AESFAST_PARAM_FAILED;
        }
        c->ks.num = 0; /* the rest of the current keystream block is skipped */
        return AESFAST_PARAM_OK;
    case AESFAST_P_USE_BITS:
    case AESFAST_P_TLS_VERSION:
        return aesfast_param_done(OSSL_PARAM_get_uint(p, &u));
    case AESFAST_P_TLS_MAC_SIZE:
        return aesfast_param_done(OSSL_PARAM_get_size_t(p, &sz));
    default:
        return AESFAST_PARAM_NOT_MINE;
    }
}

static const OSSL_PARAM ctr_gettable[] = {
    AESFAST_GETTABLE_LENGTHS,
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
    OSSL_PARAM_END,
};

static const OSSL_PARAM ctr_settable[] = {
    AESFAST_SETTABLE_FIXED_LENGTHS,
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_USE_BITS, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_TLS_VERSION, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, NULL),
    OSSL_PARAM_END,
};

AESFAST_CIPHER(ctr, ctr_ctx, "CTR", EVP_CIPH_CTR_MODE, 0, AESFAST_BLOCK, AESFAST_BLOCK,
               AESFAST_BLOCK, 1);
