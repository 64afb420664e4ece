/*
 * AES-128/192/256-GCM-SIV (RFC 8452) with the names, parameters and contract of OpenSSL 3.2+'s
 * default provider, made safe where that one is not, and available on OpenSSL 3.0 and 3.1 too.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * A message: init with the key and a 12-byte nonce (which derives the per-nonce keys), AAD in
 * any number of updates (out == NULL), then the data in ONE update, then final. GCM-SIV cannot
 * stream: the tag is the initial counter, so sealing must hash the whole plaintext before the
 * first block is encrypted (POLYVAL, then CTR: two passes), and opening needs the tag before the
 * first block is decrypted (CTR and POLYVAL stitched, one pass). The "speed" parameter lets
 * several data updates each be a whole message under the same nonce and AAD, for
 * `openssl speed`, as in OpenSSL.
 *
 * Where OpenSSL 3.5 is unsafe, aesfast is not (README.md lists each difference, and
 * test/gcmsiv_api.c shows each one against the default provider):
 *   - every init starts a new message: no AAD of a previous message survives a re-init;
 *   - no key, no message (OpenSSL encrypts under an all-zero key);
 *   - AAD after the data is refused (OpenSSL takes it and leaves it out of the tag);
 *   - the tag is checked in the data update itself, and on a mismatch the output is wiped before
 *     the update fails (OpenSSL returns the plaintext and fails only at final), so the tag must
 *     be set before the data;
 *   - the AAD is hashed as it arrives: nothing is buffered or allocated per message.
 * Key derivation and the message key schedule use aesfast's own kernels (no EVP fetch).
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "aesfast.h"
#include "cipher.h"
#include "stream.h"

#ifndef EVP_CIPH_GCM_SIV_MODE /* OpenSSL 3.2+ headers have it; 3.0's and 3.1's do not */
#define EVP_CIPH_GCM_SIV_MODE 0x10005
#endif
#ifndef OSSL_CIPHER_PARAM_SPEED
#define OSSL_CIPHER_PARAM_SPEED "speed"
#endif

typedef uint64_t u64x2 __attribute__((vector_size(16)));

#define SIV_NONCE 12
#define SIV_TAG 16
#define SIV_MAX ((uint64_t)1 << 36) /* RFC 8452: P_MAX = A_MAX = 2^36 bytes */

typedef struct {
    aesfast_key key;        /* key-generating key; first, for the kernels' alignment */
    aesfast_key enc_key;    /* this nonce's message-encryption key */
    aesfast_hash_key hkey;  /* POLYVAL powers of this nonce's message-authentication key */
    aead_stream st;         /* the message: POLYVAL state, AAD and data lengths */
    aead_stream after_aad;  /* st as the first data update found it ("speed" repeats from it) */
    uint8_t auth[16];       /* this nonce's message-authentication key, for siv_powers */
    const aesfast_prov *prov;
    const aesfast_kernel *kernel;
    const char *name;
    size_t keylen;
    uint8_t nonce[SIV_NONCE];
    uint8_t tag[SIV_TAG];      /* sealing: the tag made; opening: the tag expected */
    int enc, key_set, nonce_set;
    int have_tag;              /* opening: a tag was set */
    int hkey_powers;           /* what hkey holds for this nonce: 0 nothing yet, 1 hash_init_few's
                                * powers, 2 all of them (see siv_powers) */
    int data_done;             /* the message's data update ran */
    int result;                /* its outcome: sealed, or opened and verified */
    unsigned int speed;
} siv_ctx;

/* The per-nonce keys (RFC 8452, section 4): AES_K(LE32(j) || nonce) for j = 0 .. 1 + keylen/8,
 * keeping the first 8 bytes of each: two halves of the authentication key, then the encryption
 * key. The tier's gcmsiv_derive does it all in one call; otherwise the input blocks are GCM-SIV
 * counter blocks from (0 || nonce), so one call of the tier's counter kernel makes them, and
 * set_key expands the encryption key. The POLYVAL powers wait for siv_powers. */
static void siv_derive(siv_ctx *c)
{
    static const uint8_t zero[6 * AESFAST_BLOCK];
    const aesfast_kernel *k = c->kernel;
    uint8_t ctr[AESFAST_BLOCK] = {0};
    struct {
        uint8_t ks[6 * AESFAST_BLOCK], enc[40]; /* enc: AES-192's 24 bytes + 16 */
    } t; /* the derived secrets, wiped together */
    size_t nblocks = 2 + c->keylen / 8;

    c->hkey_powers = 0;
    if (k->gcmsiv_derive != NULL) {
        k->gcmsiv_derive(&c->key, c->nonce, &c->enc_key, c->auth);
        return;
    }
    memcpy(ctr + 4, c->nonce, SIV_NONCE);
    k->gcmsiv.ctr(&c->key, ctr, zero, t.ks, nblocks);
    /* Two halves at a time, each key block written whole: the kernels' 16-byte loads of it are
     * then forwarded from one store, where two 8-byte stores would make them wait. */
    for (size_t j = 0; j < nblocks; j += 2) {
        u64x2 v;
        uint64_t lo, hi = 0;

        memcpy(&lo, t.ks + AESFAST_BLOCK * j, 8);
        if (j + 1 < nblocks)
            memcpy(&hi, t.ks + AESFAST_BLOCK * (j + 1), 8);
        v = (u64x2){lo, hi};
        memcpy(j == 0 ? c->auth : t.enc + 8 * (j - 2), &v, 16);
    }
    k->set_key(&c->enc_key, t.enc, c->keylen);
    OPENSSL_cleanse(&t, sizeof(t));
}

/* Before AAD or data of len bytes that will be hashed: the powers of H their hash calls read.
 * Building the table is most of a small message's per-nonce cost, so it waits until the stream
 * hashes something, and then builds only what that needs: calls of fewer than AEAD_PENDING
 * blocks hash through the stream's queue, at most AEAD_PENDING blocks at a time, and
 * hash_init_few's table serves them; a longer call gets the whole table, once per nonce. */
static void siv_powers(siv_ctx *c, size_t len)
{
    const aesfast_aead_kernel *f = &c->kernel->gcmsiv;

    if (len >= AEAD_PENDING * AESFAST_BLOCK) {
        if (c->hkey_powers < 2)
            f->hash_init(&c->hkey, c->auth);
        c->hkey_powers = 2;
    } else if (c->hkey_powers == 0) {
        f->hash_init_few(&c->hkey, c->auth);
        c->hkey_powers = f->hash_init_few == f->hash_init ? 2 : 1;
    }
}

/* A new message on the current key and nonce. */
static void siv_begin(siv_ctx *c)
{
    static const uint8_t no_ctr[AESFAST_BLOCK]; /* set from the tag when the data comes */

    aesfast_aead_begin(&c->st, no_ctr, CTR32_LE_FIRST);
    c->data_done = 0;
    c->result = 0;
}

static int siv_ready(siv_ctx *c)
{
    if (!c->key_set) {
        AESFAST_RAISE(c->prov, AESFAST_R_NO_KEY_SET, "%s: set a key first", c->name);
        return 0;
    }
    if (!c->nonce_set) {
        AESFAST_RAISE(c->prov, AESFAST_R_NO_IV_SET, "%s: set a 12-byte nonce first", c->name);
        return 0;
    }
    return 1;
}

/* The tag from the POLYVAL of the whole message (RFC 8452, section 4): AES_encKey(S), where S is
 * the hash XOR the nonce, with the top bit of its last byte cleared. Ends the hash. */
static void siv_tag(siv_ctx *c, uint8_t tag[SIV_TAG])
{
    uint8_t lens[AESFAST_BLOCK], s[AESFAST_BLOCK];
    uint64_t bits[2] = {c->st.aadlen * 8, c->st.datalen * 8};

    for (int i = 0; i < 8; i++) { /* little-endian bit lengths */
        lens[i] = (uint8_t)(bits[0] >> (8 * i));
        lens[8 + i] = (uint8_t)(bits[1] >> (8 * i));
    }
    aesfast_aead_finish(&c->st, &c->kernel->gcmsiv, &c->hkey, lens);
    memcpy(s, c->st.acc, AESFAST_BLOCK);
    for (int i = 0; i < SIV_NONCE; i++)
        s[i] ^= c->nonce[i];
    s[15] &= 0x7f;
    c->kernel->encrypt_block(&c->enc_key, s, tag);
    OPENSSL_cleanse(s, sizeof(s));
}

/* out = in ^ the keystream whose first counter block is the tag with the top bit set. */
static void siv_ctr(siv_ctx *c, const uint8_t tag[SIV_TAG], const uint8_t *in, uint8_t *out,
                    size_t len)
{
    uint8_t ctr[AESFAST_BLOCK];
    size_t nblocks = len / AESFAST_BLOCK;

    memcpy(ctr, tag, AESFAST_BLOCK);
    ctr[15] |= 0x80;
    c->kernel->gcmsiv.ctr(&c->enc_key, ctr, in, out, nblocks);
    if (len % AESFAST_BLOCK != 0) {
        keystream ks;

        aesfast_ctr32_add(ctr, CTR32_LE_FIRST, (uint32_t)nblocks);
        ks_tail(&ks, c->kernel, &c->enc_key, ctr, in + len - len % AESFAST_BLOCK,
                out + len - len % AESFAST_BLOCK, len % AESFAST_BLOCK);
        OPENSSL_cleanse(&ks, sizeof(ks));
    }
}

/* The message's data, whole: seal (POLYVAL, then CTR) or open (CTR + POLYVAL, then verify). */
static int siv_data(siv_ctx *c, uint8_t *out, const uint8_t *in, size_t len)
{
    if (c->data_done) {
        if (!c->speed) {
            AESFAST_RAISE(c->prov, AESFAST_R_ONE_DATA_UPDATE,
                          "%s: the data of a message comes in one update; re-init for the next "
                          "message", c->name);
            return 0;
        }
        c->st = c->after_aad; /* "speed": another whole message under the same nonce and AAD */
    } else {
        c->after_aad = c->st; /* always: "speed" may be set after this update, as in OpenSSL */
    }
    if (len > SIV_MAX) {
        AESFAST_RAISE(c->prov, AESFAST_R_MESSAGE_TOO_LONG, "%s: more than 2^36 bytes of data",
                      c->name);
        return 0;
    }
    if (!c->enc && !c->have_tag) {
        AESFAST_RAISE(c->prov, AESFAST_R_TAG_NOT_SET, "%s: set the tag before the data: it is "
                      "the initial counter", c->name);
        return 0;
    }
    c->data_done = 1;
    c->result = 0;
    siv_powers(c, len);
    if (c->enc) {
        aesfast_aead_hash_only(&c->st, &c->kernel->gcmsiv, &c->hkey, in, len);
        siv_tag(c, c->tag);
        c->have_tag = 0; /* c->tag is now this message's tag, not one to check */
        siv_ctr(c, c->tag, in, out, len); /* after the hash: in may be out */
        c->result = 1;
        return 1;
    }

    uint8_t want[SIV_TAG];
    memcpy(c->st.ctr, c->tag, AESFAST_BLOCK);
    c->st.ctr[15] |= 0x80;
    if (len > 0)
        aesfast_aead_crypt(&c->st, c->kernel, &c->kernel->gcmsiv, &c->enc_key, &c->hkey, in, out,
                           len, 1);
    siv_tag(c, want);
    c->result = CRYPTO_memcmp(want, c->tag, SIV_TAG) == 0;
    OPENSSL_cleanse(want, sizeof(want));
    if (!c->result) {
        if (len > 0)
            OPENSSL_cleanse(out, len); /* no plaintext of a forged message leaves */
        AESFAST_RAISE(c->prov, AESFAST_R_TAG_MISMATCH, "%s: tag verification failed", c->name);
        return 0;
    }
    return 1;
}

/* ---- the provider interface ------------------------------------------------------------- */

static void *gcmsiv_newctx(void *provctx, size_t keylen)
{
    static const char *const names[] = {"AES-128-GCM-SIV", "AES-192-GCM-SIV", "AES-256-GCM-SIV"};
    const char *name = names[(keylen - 16) / 8];
    siv_ctx *c = aesfast_ctx_new(provctx, sizeof(*c), name);

    if (c == NULL)
        return NULL;
    c->prov = provctx;
    c->kernel = c->prov->kernel;
    c->name = name;
    c->keylen = keylen;
    return c;
}

static void gcmsiv_freectx(void *vctx)
{
    OPENSSL_clear_free(vctx, sizeof(siv_ctx));
}

static void *gcmsiv_dupctx(void *vctx)
{
    const siv_ctx *c = vctx;

    return aesfast_ctx_dup(c->prov, c, sizeof(*c), c->name);
}

static int gcmsiv_set_ctx_params(void *vctx, const OSSL_PARAM params[]);

static int gcmsiv_init(void *vctx, const unsigned char *key, size_t keylen,
                    const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[], int enc)
{
    siv_ctx *c = vctx;

    if (key != NULL && keylen != c->keylen) {
        AESFAST_RAISE(c->prov, AESFAST_R_INVALID_KEY_LENGTH, "%s takes a %zu-byte key, not %zu",
                      c->name, c->keylen, keylen);
        return 0;
    }
    if (iv != NULL && ivlen != SIV_NONCE) {
        AESFAST_RAISE(c->prov, AESFAST_R_INVALID_IV_LENGTH,
                      "%s takes a 12-byte nonce, not %zu bytes", c->name, ivlen);
        return 0;
    }
    c->enc = enc;
    if (key != NULL) {
        c->kernel->set_key(&c->key, key, keylen);
        c->key_set = 1;
        aesfast_debug("%s: key setup on kernel %s", c->name, c->kernel->name);
    }
    if (iv != NULL) {
        memcpy(c->nonce, iv, SIV_NONCE);
        c->nonce_set = 1;
    }
    if (c->key_set && c->nonce_set && (key != NULL || iv != NULL))
        siv_derive(c);
    /* Every init starts a new message: no AAD or data of the last one carries over. A tag set
     * for opening stays, as in OpenSSL (EVP users and evp_test set it before the init that
     * gives the key and nonce); a stale one only makes the next open fail, wiped. */
    siv_begin(c);
    return gcmsiv_set_ctx_params(c, params);
}

static int gcmsiv_einit(void *vctx, const unsigned char *key, size_t keylen,
                     const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
    return gcmsiv_init(vctx, key, keylen, iv, ivlen, params, 1);
}

static int gcmsiv_dinit(void *vctx, const unsigned char *key, size_t keylen,
                     const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
    return gcmsiv_init(vctx, key, keylen, iv, ivlen, params, 0);
}

/* update and EVP_Cipher: AAD when out is NULL, else the message's data. */
static int gcmsiv_update(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                      const unsigned char *in, size_t inl)
{
    siv_ctx *c = vctx;

    if (outsize < inl) {
        AESFAST_RAISE(c->prov, AESFAST_R_OUTPUT_BUFFER_TOO_SMALL,
                      "%s: %zu bytes in, room for %zu out", c->name, inl, outsize);
        return 0;
    }
    if (in == NULL && inl > 0) {
        AESFAST_RAISE(c->prov, AESFAST_R_OUTPUT_BUFFER_TOO_SMALL,
                      "%s: %zu bytes of input from a NULL buffer", c->name, inl);
        return 0;
    }
    if (in == NULL) /* 0 bytes: memcpy and pointer arithmetic want a real pointer (UBSan) */
        in = (const unsigned char *)"";
    if (!siv_ready(c))
        return 0;
    if (out == NULL) {
        if (c->data_done || c->st.in_data) {
            AESFAST_RAISE(c->prov, AESFAST_R_AAD_AFTER_DATA, "%s: AAD after the data", c->name);
            return 0;
        }
        if (inl > SIV_MAX - c->st.aadlen) {
            AESFAST_RAISE(c->prov, AESFAST_R_MESSAGE_TOO_LONG, "%s: more than 2^36 bytes of AAD",
                          c->name);
            return 0;
        }
        if (aesfast_aead_aad_hashes(&c->st, inl)) /* most AAD is only queued: no powers needed yet */
            siv_powers(c, inl);
        aesfast_aead_aad(&c->st, &c->kernel->gcmsiv, &c->hkey, in, inl);
    } else {
        uintptr_t o = (uintptr_t)out, i = (uintptr_t)in;
        if (inl > 0 && o != i && o < i + inl && i < o + inl) {
            AESFAST_RAISE(c->prov, AESFAST_R_PARTIALLY_OVERLAPPING, "out=%p in=%p len=%zu",
                          (void *)out, (const void *)in, inl);
            return 0;
        }
        if (!siv_data(c, out, in, inl))
            return 0;
    }
    *outl = inl;
    return 1;
}

static int gcmsiv_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    siv_ctx *c = vctx;
    uint8_t none[1] = {0};

    (void)out;
    (void)outsize;
    *outl = 0;
    if (!siv_ready(c))
        return 0;
    if (!c->data_done) /* a message without data: seal or open the empty plaintext */
        return siv_data(c, none, none, 0);
    if (!c->result) {
        AESFAST_RAISE(c->prov, AESFAST_R_TAG_MISMATCH, "%s: the message failed verification",
                      c->name);
        return 0;
    }
    return 1;
}

static int gcmsiv_cipher(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                      const unsigned char *in, size_t inl)
{
    if (in == NULL)
        return gcmsiv_final(vctx, out, outl, outsize);
    return gcmsiv_update(vctx, out, outl, outsize, in, inl);
}

/* ---- parameters ------------------------------------------------------------------------- */

static int gcmsiv_get_params(OSSL_PARAM params[], size_t keylen)
{
    return aesfast_cipher_get_params(params, EVP_CIPH_GCM_SIV_MODE, keylen, SIV_NONCE, 1);
}

/* strcmp, after a first-letter check: the per-message path reads "ivlen" and "tag" on every
 * message (see gcm.c's param_id). */
static int is(const char *key, const char *name)
{
    return key[0] == name[0] && strcmp(key, name) == 0;
}

static int gcmsiv_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    siv_ctx *c = vctx;

    for (OSSL_PARAM *p = params; p != NULL && p->key != NULL; p++) {
        int ok = 1;

        if (is(p->key, OSSL_CIPHER_PARAM_AEAD_TAG)) {
            if (!c->enc || !c->data_done || !c->result || p->data_size != SIV_TAG) {
                AESFAST_RAISE(c->prov, AESFAST_R_INVALID_TAG,
                              "%s: the 16-byte tag (asked %zu) is read after sealing", c->name,
                              p->data_size);
                return 0;
            }
            ok = OSSL_PARAM_set_octet_string(p, c->tag, SIV_TAG);
        } else if (is(p->key, OSSL_CIPHER_PARAM_AEAD_TAGLEN)) {
            ok = OSSL_PARAM_set_size_t(p, SIV_TAG);
        } else if (is(p->key, OSSL_CIPHER_PARAM_KEYLEN)) {
            ok = OSSL_PARAM_set_size_t(p, c->keylen);
        } else if (is(p->key, OSSL_CIPHER_PARAM_IVLEN)) {
            ok = OSSL_PARAM_set_size_t(p, SIV_NONCE);
        } /* anything else: not ours to answer (OSSL_PARAM(3)) */
        if (!ok) {
            AESFAST_RAISE(c->prov, AESFAST_R_BAD_PARAMETER_VALUE,
                          "%s: cannot return parameter \"%s\" in the type or size given",
                          c->name, p->key);
            return 0;
        }
    }
    return 1;
}

static const OSSL_PARAM *gcmsiv_gettable_ctx_params(void *cctx, void *provctx)
{
    static const OSSL_PARAM params[] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, NULL),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
        OSSL_PARAM_END,
    };

    (void)cctx;
    (void)provctx;
    return params;
}

/* Settable as in the default provider: "tag" (16 bytes; kept only for opening), "speed", and
 * "keylen" at its one valid value; also "ivlen", at 12 only. Other keys are ignored
 * (OSSL_PARAM(3)) and logged. */
static int gcmsiv_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    siv_ctx *c = vctx;

    for (const OSSL_PARAM *p = params; p != NULL && p->key != NULL; p++) {
        if (is(p->key, OSSL_CIPHER_PARAM_AEAD_TAG)) {
            /* Sealing makes its own tag: a tag (or, with no data, a tag length) given then is
             * checked for its length and otherwise ignored, as in OpenSSL. */
            if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data_size != SIV_TAG
                || (!c->enc && p->data == NULL)) {
                AESFAST_RAISE(c->prov, AESFAST_R_INVALID_TAG_LENGTH,
                              "%s: the tag is a 16-byte octet string (given %zu bytes)",
                              c->name, p->data_size);
                return 0;
            }
            if (!c->enc) {
                memcpy(c->tag, p->data, SIV_TAG);
                c->have_tag = 1;
            }
        } else if (is(p->key, OSSL_CIPHER_PARAM_SPEED)) {
            unsigned int u;

            if (!OSSL_PARAM_get_uint(p, &u)) {
                AESFAST_RAISE(c->prov, AESFAST_R_BAD_PARAMETER_VALUE, "%s: cannot read \"%s\"",
                              c->name, p->key);
                return 0;
            }
            c->speed = u != 0;
        } else if (is(p->key, OSSL_CIPHER_PARAM_AEAD_IVLEN)) {
            size_t sz;

            /* Only 12: an application asking for another nonce length gets an error, not a
             * silent 12 (OpenSSL ignores the parameter). */
            if (!OSSL_PARAM_get_size_t(p, &sz) || sz != SIV_NONCE) {
                AESFAST_RAISE(c->prov, AESFAST_R_INVALID_IV_LENGTH,
                              "%s takes a 12-byte nonce only", c->name);
                return 0;
            }
        } else if (is(p->key, OSSL_CIPHER_PARAM_KEYLEN)) {
            size_t sz;

            if (!OSSL_PARAM_get_size_t(p, &sz)) {
                AESFAST_RAISE(c->prov, AESFAST_R_BAD_PARAMETER_VALUE, "%s: cannot read \"%s\"",
                              c->name, p->key);
                return 0;
            }
            if (sz != c->keylen) {
                AESFAST_RAISE(c->prov, AESFAST_R_INVALID_KEY_LENGTH,
                              "%s has a fixed %zu-byte key, not %zu", c->name, c->keylen, sz);
                return 0;
            }
        } else {
            aesfast_debug("%s: ignoring parameter \"%s\"", c->name, p->key);
        }
    }
    return 1;
}

static const OSSL_PARAM *gcmsiv_settable_ctx_params(void *cctx, void *provctx)
{
    static const OSSL_PARAM params[] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, NULL),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_SPEED, NULL),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
        OSSL_PARAM_END,
    };

    (void)cctx;
    (void)provctx;
    return params;
}

AESFAST_CIPHER_TABLE(gcmsiv, 128);
AESFAST_CIPHER_TABLE(gcmsiv, 192);
AESFAST_CIPHER_TABLE(gcmsiv, 256);
