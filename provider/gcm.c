/*
 * AES-128/192/256-GCM with the semantics of OpenSSL's default provider (SP 800-38D), on the
 * tier's stitched kernels.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * The message state machine (iv_state):
 *   IV_UNSET     no IV yet. Encrypting draws a random one (ivlen >= 12), as the default does.
 *   IV_BUFFERED  an IV is stored; the first AAD or data byte (or final) starts the message:
 *                J0 from the IV, E(J0) for the tag, the counter at inc32(J0).
 *   IV_ACTIVE    a message is under way (AAD, then data, in any number of updates).
 *   IV_FINISHED  final ran, or the IV became invalid: nothing more until a new IV. This is how
 *                an IV is never used twice under one key.
 * The byte stream (partial blocks, AAD padding, lengths) is provider/stream.c's; the kernels
 * see whole blocks only.
 *
 * An IV-only re-init, the per-record path of TLS 1.3 and QUIC, copies the IV and nothing else:
 * the key schedule and the powers of H stay, and nothing is allocated.
 *
 * TLS 1.2 ("tlsaad", "tlsivfixed", "tlsivgen", "tlsivinv"): after "tlsaad" the next update or
 * EVP_Cipher call is one whole record, in place: explicit nonce (8) || payload || tag (16).
 * Sealing writes the nonce and the tag; opening checks the tag and, if it fails, wipes the
 * payload it decrypted before returning the error.
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include "aesfast.h"
#include "cipher.h"
#include "stream.h"

#define GCM_IV_MAX 128            /* bytes, as the default provider allows */
#define GCM_IV_DEFAULT 12
#define GCM_TAG_MAX 16
#define TAGLEN_UNSET ((size_t)-1)
/* SP 800-38D limits: 2^39 - 256 bits of plaintext, 2^64 - 1 bits of AAD. */
#define GCM_MAX_DATA ((((uint64_t)1) << 36) - 32)
#define GCM_MAX_AAD ((((uint64_t)1) << 61) - 1)
#define TLS_EXPLICIT_IV EVP_GCM_TLS_EXPLICIT_IV_LEN /* 8 */
#define TLS_FIXED_IV EVP_GCM_TLS_FIXED_IV_LEN       /* 4 */
#define TLS_TAG EVP_GCM_TLS_TAG_LEN                 /* 16 */

#ifndef OSSL_CIPHER_PARAM_AEAD_IV_GENERATED /* OpenSSL 3.2+ headers have it; 3.0's do not */
#define OSSL_CIPHER_PARAM_AEAD_IV_GENERATED "iv-generated"
#endif

enum { IV_UNSET, IV_BUFFERED, IV_ACTIVE, IV_FINISHED };

typedef struct {
    aesfast_key key;        /* first: the kernels need its 16-byte alignment */
    aesfast_hash_key hkey;  /* the tier's powers of H */
    aead_stream st;         /* counter, GHASH state, partial blocks, lengths */
    const aesfast_prov *prov;
    const aesfast_kernel *kernel;
    const char *name;       /* "AES-128-GCM" ... for messages */
    size_t keylen, ivlen;
    size_t taglen;          /* TAGLEN_UNSET until a tag is set (open) or made (seal) */
    uint8_t iv[GCM_IV_MAX];
    uint8_t ekj0[AESFAST_BLOCK]; /* E(J0), XORed into the hash for the tag */
    uint8_t tag[GCM_TAG_MAX];
    int enc, key_set, iv_state;
    int iv_gen;             /* TLS: "tlsivfixed" was set, so "tlsivgen"/"tlsivinv" may run */
    unsigned int iv_gen_rand; /* the "iv-generated" parameter: the IV came from the DRBG */
    uint8_t tls_aad[EVP_AEAD_TLS1_AAD_LEN];
    size_t tls_aad_len;     /* 0, or 13 while a TLS record is pending */
    size_t tls_aad_pad;     /* "tlsaadpad": the tag length the record carries */
    uint64_t tls_enc_records;
} gcm_ctx;

/* ---- the message ------------------------------------------------------------------------ */

static void store_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

static uint64_t be64(uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return __builtin_bswap64(v);
#else
    return v;
#endif
}

/* Blocks the kernels load next are written with one 16-byte store, so that the load is
 * forwarded from the store buffer (narrower stores would make it wait for them to retire). */
typedef uint32_t u32x4 __attribute__((vector_size(16)));
typedef uint64_t u64x2 __attribute__((vector_size(16)));

/* Starts a message on the stored IV: J0, E(J0) and the first counter (SP 800-38D, 7.1). */
static void gcm_start(gcm_ctx *c)
{
    const aesfast_kernel *k = c->kernel;
    uint8_t j0[AESFAST_BLOCK];

    if (c->ivlen == GCM_IV_DEFAULT) { /* J0 = IV || 0^31 || 1 */
        u32x4 v;
        const uint8_t one[4] = {0, 0, 0, 1};

        memcpy(&v, c->iv, sizeof(v)); /* iv has 128 bytes: reading 16 is in bounds */
        memcpy((uint8_t *)&v + 12, one, 4); /* v[3]: clang takes no address of an element */
        memcpy(j0, &v, sizeof(v));
    } else { /* J0 = GHASH(IV || 0-pad || [0]_64 || [len(IV)]_64) */
        uint8_t blocks[GCM_IV_MAX + 2 * AESFAST_BLOCK] = {0};
        size_t n = (c->ivlen + AESFAST_BLOCK - 1) / AESFAST_BLOCK;

        memcpy(blocks, c->iv, c->ivlen);
        store_be64(blocks + n * AESFAST_BLOCK + 8, (uint64_t)c->ivlen * 8);
        memset(j0, 0, sizeof(j0));
        k->gcm.hash(&c->hkey, j0, blocks, n + 1);
        OPENSSL_cleanse(blocks, sizeof(blocks));
    }
    k->encrypt_block(&c->key, j0, c->ekj0);
    aesfast_ctr32_add(j0, CTR32_BE_LAST, 1);
    aesfast_aead_begin(&c->st, j0, CTR32_BE_LAST);
    c->iv_state = IV_ACTIVE;
}

/* The tag of the message so far (ends the hash: call once). */
static void gcm_tag(gcm_ctx *c, uint8_t tag[GCM_TAG_MAX])
{
    uint8_t lens[AESFAST_BLOCK];
    u64x2 bits = {be64(c->st.aadlen * 8), be64(c->st.datalen * 8)};

    memcpy(lens, &bits, sizeof(lens));
    aesfast_aead_finish(&c->st, &c->kernel->gcm, &c->hkey, lens);
    for (int i = 0; i < GCM_TAG_MAX; i++)
        tag[i] = c->st.acc[i] ^ c->ekj0[i];
}

/* Ends the message: no more bytes under this IV. The leftover keystream is wiped; the rest of
 * the message state (hash, queued ciphertext, E(J0)) goes with the context or the next message. */
static void gcm_end(gcm_ctx *c)
{
    OPENSSL_cleanse(&c->st.ks, sizeof(c->st.ks));
    c->iv_state = IV_FINISHED;
}

/* Key and IV in place, the message started: 1, or 0 with an error raised. */
static int gcm_ready(gcm_ctx *c)
{
    if (!c->key_set) {
        AESFAST_RAISE(c->prov, AESFAST_R_NO_KEY_SET, "%s: set a key first", c->name);
        return 0;
    }
    switch (c->iv_state) {
    case IV_FINISHED:
        AESFAST_RAISE(c->prov, AESFAST_R_IV_ALREADY_USED,
                      "%s: the message under this IV is finished: set a new IV", c->name);
        return 0;
    case IV_UNSET: /* a random IV, as the default provider draws when encrypting */
        if (!c->enc) {
            AESFAST_RAISE(c->prov, AESFAST_R_NO_IV_SET, "%s: set an IV before decrypting",
                          c->name);
            return 0;
        }
        if (c->ivlen < GCM_IV_DEFAULT) {
            AESFAST_RAISE(c->prov, AESFAST_R_INVALID_IV_LENGTH,
                          "%s: a random IV needs at least 12 bytes, ivlen is %zu", c->name,
                          c->ivlen);
            return 0;
        }
        if (RAND_bytes_ex(NULL, c->iv, c->ivlen, 0) <= 0) {
            AESFAST_RAISE(c->prov, AESFAST_R_RANDOM_FAILED, "%s: no random IV", c->name);
            return 0;
        }
        c->iv_gen_rand = 1;
        /* fall through */
    case IV_BUFFERED:
        gcm_start(c);
        /* fall through */
    default:
        return 1;
    }
}

/* AAD (out == NULL) or data; the message must be ready. */
static int gcm_bytes(gcm_ctx *c, uint8_t *out, const uint8_t *in, size_t len)
{
    if (out == NULL) {
        if (c->st.in_data) {
            AESFAST_RAISE(c->prov, AESFAST_R_AAD_AFTER_DATA,
                          "%s: AAD after %llu bytes of data", c->name,
                          (unsigned long long)c->st.datalen);
            return 0;
        }
        if (len > GCM_MAX_AAD - c->st.aadlen) {
            AESFAST_RAISE(c->prov, AESFAST_R_MESSAGE_TOO_LONG,
                          "%s: more than 2^61 - 1 bytes of AAD", c->name);
            return 0;
        }
        aesfast_aead_aad(&c->st, &c->kernel->gcm, &c->hkey, in, len);
        return 1;
    }
    if (len > GCM_MAX_DATA - c->st.datalen) {
        AESFAST_RAISE(c->prov, AESFAST_R_MESSAGE_TOO_LONG,
                      "%s: more than 2^36 - 32 bytes of data under one IV", c->name);
        return 0;
    }
    uintptr_t o = (uintptr_t)out, i = (uintptr_t)in;
    if (o != i && o < i + len && i < o + len) {
        AESFAST_RAISE(c->prov, AESFAST_R_PARTIALLY_OVERLAPPING, "out=%p in=%p len=%zu",
                      (void *)out, (const void *)in, len);
        return 0;
    }
    aesfast_aead_crypt(&c->st, c->kernel, &c->kernel->gcm, &c->key, &c->hkey, in, out, len, c->enc);
    return 1;
}

static int gcm_do_final(gcm_ctx *c)
{
    uint8_t tag[GCM_TAG_MAX];
    int ok = 1;

    if (!gcm_ready(c))
        return 0;
    if (!c->enc && c->taglen == TAGLEN_UNSET) {
        AESFAST_RAISE(c->prov, AESFAST_R_TAG_NOT_SET, "%s: set the expected tag before the "
                      "final decrypt call", c->name);
        return 0;
    }
    gcm_tag(c, tag);
    if (c->enc) {
        memcpy(c->tag, tag, GCM_TAG_MAX);
        c->taglen = GCM_TAG_MAX;
    } else {
        if (CRYPTO_memcmp(tag, c->tag, c->taglen) != 0) {
            AESFAST_RAISE(c->prov, AESFAST_R_TAG_MISMATCH, "%s: tag verification failed",
                          c->name);
            ok = 0;
        }
        OPENSSL_cleanse(tag, sizeof(tag)); /* the valid tag of what was received */
    }
    gcm_end(c);
    return ok;
}

/* ---- TLS 1.2 records -------------------------------------------------------------------- */

/* "tlsivgen": the next record's explicit nonce from the invocation counter (the IV's last 8
 * bytes, big-endian), which then advances. Starts the record's message. */
static int gcm_tls_iv_gen(gcm_ctx *c, uint8_t *out, size_t outlen)
{
    if (!c->iv_gen || !c->key_set) {
        AESFAST_RAISE(c->prov, AESFAST_R_NO_IV_GEN,
                      "%s: set a key and \"tlsivfixed\" before \"tlsivgen\"", c->name);
        return 0;
    }
    if (c->ivlen < TLS_EXPLICIT_IV) { /* no 8-byte invocation field: every record's IV alike */
        AESFAST_RAISE(c->prov, AESFAST_R_INVALID_IV_LENGTH, "%s: \"tlsivgen\" needs an IV of at "
                      "least 8 bytes (its invocation counter), not %zu", c->name, c->ivlen);
        return 0;
    }
    gcm_start(c);
    if (outlen == 0 || outlen > c->ivlen)
        outlen = c->ivlen;
    memcpy(out, c->iv + c->ivlen - outlen, outlen);
    for (size_t i = c->ivlen; i-- > c->ivlen - 8 && ++c->iv[i] == 0;)
        ; /* 64-bit big-endian increment of the invocation field */
    return 1;
}

/* "tlsivinv": the record's explicit nonce as received (decryption only). */
static int gcm_tls_iv_inv(gcm_ctx *c, const uint8_t *in, size_t inlen)
{
    if (!c->iv_gen || !c->key_set || c->enc || inlen > c->ivlen) {
        AESFAST_RAISE(c->prov, AESFAST_R_NO_IV_GEN,
                      "%s: \"tlsivinv\" needs a key, \"tlsivfixed\", decryption, and at most "
                      "ivlen bytes", c->name);
        return 0;
    }
    memcpy(c->iv + c->ivlen - inlen, in, inlen);
    gcm_start(c);
    return 1;
}

/* "tlsivfixed": the fixed (implicit) part of the IV; the rest is random when sealing. A length
 * of (size_t)-1 sets the whole IV. */
static int gcm_tls_iv_fixed(gcm_ctx *c, const uint8_t *iv, size_t len)
{
    if (len == (size_t)-1) {
        memcpy(c->iv, iv, c->ivlen);
    } else {
        if (len < TLS_FIXED_IV || len > c->ivlen || c->ivlen - len < TLS_EXPLICIT_IV) {
            AESFAST_RAISE(c->prov, AESFAST_R_INVALID_IV_LENGTH,
                          "%s: a fixed IV part of %zu bytes does not fit ivlen %zu", c->name,
                          len, c->ivlen);
            return 0;
        }
        memcpy(c->iv, iv, len);
        if (c->enc) {
            if (RAND_bytes_ex(NULL, c->iv + len, c->ivlen - len, 0) <= 0) {
                AESFAST_RAISE(c->prov, AESFAST_R_RANDOM_FAILED, "%s: no random IV", c->name);
                return 0;
            }
            c->iv_gen_rand = 1;
        }
    }
    c->iv_gen = 1;
    c->iv_state = IV_BUFFERED;
    return 1;
}

/* "tlsaad": the record header; its length field loses the nonce (and, opening, the tag). */
static int gcm_tls_aad(gcm_ctx *c, const uint8_t *aad, size_t len)
{
    if (len != EVP_AEAD_TLS1_AAD_LEN) {
        AESFAST_RAISE(c->prov, AESFAST_R_INVALID_TLS_AAD, "%s: TLS AAD is 13 bytes, not %zu",
                      c->name, len);
        return 0;
    }
    size_t rec = (size_t)aad[len - 2] << 8 | aad[len - 1];
    size_t overhead = TLS_EXPLICIT_IV + (c->enc ? 0 : TLS_TAG);
    if (rec < overhead) {
        AESFAST_RAISE(c->prov, AESFAST_R_INVALID_TLS_AAD,
                      "%s: TLS record length %zu is below the %zu bytes of nonce and tag",
                      c->name, rec, overhead);
        return 0;
    }
    rec -= overhead;
    memcpy(c->tls_aad, aad, len);
    c->tls_aad[len - 2] = (uint8_t)(rec >> 8);
    c->tls_aad[len - 1] = (uint8_t)rec;
    c->tls_aad_len = len;
    c->tls_aad_pad = TLS_TAG;
    return 1;
}

/* One whole record in place. *outl: the bytes produced (sealing: all of it; opening: payload). */
static int gcm_tls_record(gcm_ctx *c, uint8_t *out, const uint8_t *in, size_t len, size_t *outl)
{
    int ok = 0;

    *outl = 0;
    if (!c->key_set) {
        AESFAST_RAISE(c->prov, AESFAST_R_NO_KEY_SET, "%s: set a key first", c->name);
        goto done;
    }
    if (out != in || len < TLS_EXPLICIT_IV + TLS_TAG) {
        AESFAST_RAISE(c->prov, AESFAST_R_TLS_RECORD,
                      "%s: a TLS record is processed in place and holds at least 24 bytes "
                      "(got %zu bytes, %s)", c->name, len, out == in ? "in place" : "not in place");
        goto done;
    }
    if (c->enc && ++c->tls_enc_records == 0) {
        AESFAST_RAISE(c->prov, AESFAST_R_MESSAGE_TOO_LONG, "%s: 2^64 records under one key",
                      c->name);
        goto done;
    }
    if (!(c->enc ? gcm_tls_iv_gen(c, out, TLS_EXPLICIT_IV)
                 : gcm_tls_iv_inv(c, in, TLS_EXPLICIT_IV)))
        goto done;

    size_t plen = len - TLS_EXPLICIT_IV - TLS_TAG;
    uint8_t *payload = out + TLS_EXPLICIT_IV, *rec_tag = payload + plen, tag[GCM_TAG_MAX];
    aesfast_aead_aad(&c->st, &c->kernel->gcm, &c->hkey, c->tls_aad, c->tls_aad_len);
    aesfast_aead_crypt(&c->st, c->kernel, &c->kernel->gcm, &c->key, &c->hkey, payload, payload,
                       plen, c->enc);
    gcm_tag(c, tag);
    if (c->enc) {
        memcpy(rec_tag, tag, TLS_TAG);
        *outl = len;
        ok = 1;
    } else if (CRYPTO_memcmp(tag, rec_tag, TLS_TAG) == 0) {
        *outl = plen;
        ok = 1;
    } else {
        OPENSSL_cleanse(payload, plen); /* no plaintext of a forged record leaves */
        AESFAST_RAISE(c->prov, AESFAST_R_TAG_MISMATCH, "%s: TLS record tag verification "
                      "failed", c->name);
    }
    OPENSSL_cleanse(tag, sizeof(tag));
done:
    gcm_end(c);
    c->tls_aad_len = 0;
    return ok;
}

/* ---- the provider interface ------------------------------------------------------------- */

static void *gcm_newctx(void *provctx, size_t keylen)
{
    static const char *const names[] = {"AES-128-GCM", "AES-192-GCM", "AES-256-GCM"};
    const char *name = names[(keylen - 16) / 8];
    gcm_ctx *c = aesfast_ctx_new(provctx, sizeof(*c), name);

    if (c == NULL)
        return NULL;
    c->prov = provctx;
    c->kernel = c->prov->kernel;
    c->name = name;
    c->keylen = keylen;
    c->ivlen = GCM_IV_DEFAULT;
    c->taglen = TAGLEN_UNSET;
    return c;
}

static void gcm_freectx(void *vctx)
{
    OPENSSL_clear_free(vctx, sizeof(gcm_ctx));
}

static void *gcm_dupctx(void *vctx)
{
    const gcm_ctx *c = vctx;

    return aesfast_ctx_dup(c->prov, c, sizeof(*c), c->name);
}

static int gcm_set_ctx_params(void *vctx, const OSSL_PARAM params[]);

static int gcm_init(void *vctx, const unsigned char *key, size_t keylen,
                    const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[], int enc)
{
    gcm_ctx *c = vctx;

    /* Everything is checked before anything changes. */
    if (key != NULL && keylen != c->keylen) {
        AESFAST_RAISE(c->prov, AESFAST_R_INVALID_KEY_LENGTH, "%s takes a %zu-byte key, not %zu",
                      c->name, c->keylen, keylen);
        return 0;
    }
    if (iv != NULL && (ivlen == 0 || ivlen > GCM_IV_MAX)) {
        AESFAST_RAISE(c->prov, AESFAST_R_INVALID_IV_LENGTH,
                      "%s takes a 1..128-byte IV, not %zu bytes", c->name, ivlen);
        return 0;
    }
    c->enc = enc;
    if (key != NULL) {
        uint8_t h[AESFAST_BLOCK] = {0};

        c->kernel->set_key(&c->key, key, keylen);
        c->kernel->encrypt_block(&c->key, h, h);
        c->kernel->gcm.hash_init(&c->hkey, h);
        OPENSSL_cleanse(h, sizeof(h));
        c->key_set = 1;
        c->tls_enc_records = 0;
        /* A message under way was keyed with the old key: it cannot go on under the new one
         * (the default provider would carry on from a zeroed state). A new IV restarts. */
        if (c->iv_state == IV_ACTIVE)
            gcm_end(c);
        aesfast_aead_wipe(&c->st); /* no hash state of the old key survives it */
                OPENSSL_cleanse(c->ekj0, sizeof(c->ekj0));
        aesfast_debug("%s: key setup on kernel %s", c->name, c->kernel->name);
    }
    if (iv != NULL) {
        memcpy(c->iv, iv, ivlen);
        c->ivlen = ivlen;
        c->iv_state = IV_BUFFERED;
    }
    return gcm_set_ctx_params(c, params);
}

static int gcm_einit(void *vctx, const unsigned char *key, size_t keylen,
                     const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
    return gcm_init(vctx, key, keylen, iv, ivlen, params, 1);
}

static int gcm_dinit(void *vctx, const unsigned char *key, size_t keylen,
                     const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
    return gcm_init(vctx, key, keylen, iv, ivlen, params, 0);
}

/* update and EVP_Cipher: AAD when out is NULL, else data; a pending TLS record comes first. */
static int gcm_process(gcm_ctx *c, unsigned char *out, size_t *outl, const unsigned char *in,
                       size_t inl)
{
    if (c->tls_aad_len != 0)
        return gcm_tls_record(c, out, in, inl, outl);
    if (!gcm_ready(c) || !gcm_bytes(c, out, in, inl))
        return 0;
    *outl = inl;
    return 1;
}

static int gcm_update(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                      const unsigned char *in, size_t inl)
{
    gcm_ctx *c = vctx;

    if (inl == 0) {
        *outl = 0;
        return 1;
    }
    if (in == NULL) {
        AESFAST_RAISE(c->prov, AESFAST_R_NULL_BUFFER,
                      "%s: %zu bytes of input from a NULL buffer (the final is a separate call)",
                      c->name, inl);
        return 0;
    }
    if (outsize < inl) {
        AESFAST_RAISE(c->prov, AESFAST_R_OUTPUT_BUFFER_TOO_SMALL,
                      "%s: %zu bytes in, room for %zu out", c->name, inl, outsize);
        return 0;
    }
    return gcm_process(c, out, outl, in, inl);
}

static int gcm_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    gcm_ctx *c = vctx;

    (void)out;
    (void)outsize;
    *outl = 0;
    if (c->tls_aad_len != 0) /* a record is one EVP_Cipher call, never a final */
        return gcm_tls_record(c, out, NULL, 0, outl);
    return gcm_do_final(c);
}

static int gcm_cipher(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                      const unsigned char *in, size_t inl)
{
    gcm_ctx *c = vctx;
    size_t done = 0;

    if (outsize < inl) {
        AESFAST_RAISE(c->prov, AESFAST_R_OUTPUT_BUFFER_TOO_SMALL,
                      "%s: %zu bytes in, room for %zu out", c->name, inl, outsize);
        return 0;
    }
    if (in == NULL) { /* EVP_Cipher(ctx, out, NULL, 0) is the final */
        if (!(c->tls_aad_len != 0 ? gcm_tls_record(c, out, in, inl, &done) : gcm_do_final(c)))
            return 0;
    } else if (!gcm_process(c, out, &done, in, inl)) {
        return 0;
    }
    *outl = inl; /* as the default provider reports it */
    return 1;
}

/* ---- parameters ------------------------------------------------------------------------- */

static int gcm_get_params(OSSL_PARAM params[], size_t keylen)
{
    return aesfast_cipher_get_params(params, EVP_CIPH_GCM_MODE, keylen, GCM_IV_DEFAULT, 1);
}

/* Returns an IV parameter (octet string, or octet pointer into the context as the default does). */
static int get_iv(const gcm_ctx *c, OSSL_PARAM *p)
{
    if (c->iv_state == IV_UNSET) {
        AESFAST_RAISE(c->prov, AESFAST_R_NO_IV_SET, "%s: no IV to return in \"%s\"", c->name,
                      p->key);
        return 0;
    }
    if (c->ivlen > p->data_size) {
        AESFAST_RAISE(c->prov, AESFAST_R_INVALID_IV_LENGTH,
                      "%s: \"%s\" has room for %zu bytes, the IV has %zu", c->name, p->key,
                      p->data_size, c->ivlen);
        return 0;
    }
    return OSSL_PARAM_set_octet_string(p, c->iv, c->ivlen)
        || OSSL_PARAM_set_octet_ptr(p, &c->iv, c->ivlen);
}

/* The context parameters by name, most used first and compared on the first letter before any
 * strcmp: the per-record path reads "ivlen" and "tag" on every message, and a plain strcmp chain
 * made the tag read cost 40 ns instead of 28 (OpenSSL 3.5's EVP, this Zen 3). */
enum {
    P_UNKNOWN, P_IVLEN, P_KEYLEN, P_TAGLEN, P_IV, P_UPDATED_IV, P_TAG, P_TLS_AAD_PAD,
    P_TLS_IV_GEN, P_IV_GENERATED, P_TLS_AAD, P_TLS_IV_FIXED, P_TLS_IV_INV,
};

static int param_id(const char *key)
{
    static const struct {
        const char *name;
        int id;
    } names[] = {
        {OSSL_CIPHER_PARAM_AEAD_TAG, P_TAG},
        {OSSL_CIPHER_PARAM_IVLEN, P_IVLEN},
        {OSSL_CIPHER_PARAM_IV, P_IV},
        {OSSL_CIPHER_PARAM_AEAD_TAGLEN, P_TAGLEN},
        {OSSL_CIPHER_PARAM_KEYLEN, P_KEYLEN},
        {OSSL_CIPHER_PARAM_UPDATED_IV, P_UPDATED_IV},
        {OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, P_TLS_AAD_PAD},
        {OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, P_TLS_IV_GEN},
        {OSSL_CIPHER_PARAM_AEAD_IV_GENERATED, P_IV_GENERATED},
        {OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, P_TLS_AAD},
        {OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, P_TLS_IV_FIXED},
        {OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, P_TLS_IV_INV},
    };

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (key[0] == names[i].name[0] && strcmp(key, names[i].name) == 0)
            return names[i].id;
    return P_UNKNOWN;
}

static int gcm_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    gcm_ctx *c = vctx;

    for (OSSL_PARAM *p = params; p != NULL && p->key != NULL; p++) {
        int ok = 1;

        switch (param_id(p->key)) {
        case P_IVLEN:
            ok = OSSL_PARAM_set_size_t(p, c->ivlen);
            break;
        case P_KEYLEN:
            ok = OSSL_PARAM_set_size_t(p, c->keylen);
            break;
        case P_TAGLEN:
            ok = OSSL_PARAM_set_size_t(p, c->taglen != TAGLEN_UNSET ? c->taglen : GCM_TAG_MAX);
            break;
        case P_IV:
        case P_UPDATED_IV:
            if (!get_iv(c, p))
                return 0;
            break;
        case P_TLS_AAD_PAD:
            ok = OSSL_PARAM_set_size_t(p, c->tls_aad_pad);
            break;
        case P_TAG:
            if (p->data_size == 0 || p->data_size > GCM_TAG_MAX || !c->enc
                || c->taglen == TAGLEN_UNSET) {
                AESFAST_RAISE(c->prov, AESFAST_R_INVALID_TAG,
                              "%s: the tag (1..16 bytes, asked %zu) is read after the final "
                              "encrypt call", c->name, p->data_size);
                return 0;
            }
            ok = OSSL_PARAM_set_octet_string(p, c->tag, p->data_size);
            break;
        case P_TLS_IV_GEN:
            if (p->data == NULL || p->data_type != OSSL_PARAM_OCTET_STRING) {
                AESFAST_RAISE(c->prov, AESFAST_R_BAD_PARAMETER_VALUE,
                              "%s: \"%s\" needs an octet string buffer", c->name, p->key);
                return 0;
            }
            if (!gcm_tls_iv_gen(c, p->data, p->data_size))
                return 0;
            break;
        case P_IV_GENERATED:
            ok = OSSL_PARAM_set_uint(p, c->iv_gen_rand);
            break;
        default: /* not ours to answer (OSSL_PARAM(3)) */
            break;
        }
        if (!ok) {
            AESFAST_RAISE(c->prov, AESFAST_R_BAD_PARAMETER_VALUE,
                          "%s: cannot return parameter \"%s\" in the type or size given",
                          c->name, p->key);
            return 0;
        }
    }
    return 1;
}

static const OSSL_PARAM *gcm_gettable_ctx_params(void *cctx, void *provctx)
{
    static const OSSL_PARAM params[] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, NULL),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, NULL),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, NULL, 0),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_AEAD_IV_GENERATED, NULL),
        OSSL_PARAM_END,
    };

    (void)cctx;
    (void)provctx;
    return params;
}

/* An octet-string parameter's bytes, or 0 with an error. */
static int octets(const gcm_ctx *c, const OSSL_PARAM *p)
{
    if (p->data_type == OSSL_PARAM_OCTET_STRING && p->data != NULL)
        return 1;
    AESFAST_RAISE(c->prov, AESFAST_R_BAD_PARAMETER_VALUE, "%s: \"%s\" must be an octet string",
                  c->name, p->key);
    return 0;
}

/*
 * Settable, as in the default provider: "ivlen", "tag", "tlsaad", "tlsivfixed", "tlsivinv".
 * Other keys are ignored, as OSSL_PARAM(3) asks ("padding", "keylen" and the rest that EVP or
 * an application sends to every cipher), and logged under AESFAST_DEBUG.
 */
static int gcm_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    gcm_ctx *c = vctx;

    for (const OSSL_PARAM *p = params; p != NULL && p->key != NULL; p++) {
        int id = param_id(p->key);

        if (id == P_TAG) {
            uint8_t tag[GCM_TAG_MAX];
            void *vp = tag;
            size_t sz = 0;

            if (!OSSL_PARAM_get_octet_string(p, &vp, sizeof(tag), &sz)) {
                AESFAST_RAISE(c->prov, AESFAST_R_INVALID_TAG_LENGTH,
                              "%s: the tag is an octet string of 1..16 bytes (given %zu)",
                              c->name, p->data_size);
                return 0;
            }
            if (sz == 0 || c->enc) {
                AESFAST_RAISE(c->prov, AESFAST_R_INVALID_TAG,
                              sz == 0 ? "%s: an empty tag" : "%s: a tag is set only to decrypt",
                              c->name);
                return 0;
            }
            memcpy(c->tag, tag, sz);
            c->taglen = sz;
        } else if (id == P_IVLEN) {
            size_t sz;

            if (!OSSL_PARAM_get_size_t(p, &sz)) {
                AESFAST_RAISE(c->prov, AESFAST_R_BAD_PARAMETER_VALUE, "%s: cannot read \"%s\"",
                              c->name, p->key);
                return 0;
            }
            if (sz == 0 || sz > GCM_IV_MAX) {
                AESFAST_RAISE(c->prov, AESFAST_R_INVALID_IV_LENGTH,
                              "%s takes a 1..128-byte IV, not %zu bytes", c->name, sz);
                return 0;
            }
            if (sz != c->ivlen) {
                if (c->iv_state != IV_UNSET) /* the IV given is no longer valid */
                    gcm_end(c);
                c->ivlen = sz;
            }
        } else if (id == P_TLS_AAD) {
            if (!octets(c, p) || !gcm_tls_aad(c, p->data, p->data_size))
                return 0;
        } else if (id == P_TLS_IV_FIXED) {
            if (!octets(c, p) || !gcm_tls_iv_fixed(c, p->data, p->data_size))
                return 0;
        } else if (id == P_TLS_IV_INV) {
            if (!octets(c, p) || !gcm_tls_iv_inv(c, p->data, p->data_size))
                return 0;
        } else {
            aesfast_debug("%s: ignoring parameter \"%s\"", c->name, p->key);
        }
    }
    return 1;
}

static const OSSL_PARAM *gcm_settable_ctx_params(void *cctx, void *provctx)
{
    static const OSSL_PARAM params[] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, NULL),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, NULL, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, NULL, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, NULL, 0),
        OSSL_PARAM_END,
    };

    (void)cctx;
    (void)provctx;
    return params;
}

AESFAST_CIPHER_TABLE(gcm, 128);
AESFAST_CIPHER_TABLE(gcm, 192);
AESFAST_CIPHER_TABLE(gcm, 256);
