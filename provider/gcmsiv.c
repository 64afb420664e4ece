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
 * Where OpenSSL 3.5 is unsafe, aesfast is not (provider-aesfast(7) lists each difference, and
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

#define SIV_NONCE 12
#define SIV_TAG 16
#define SIV_MAX ((uint64_t)1 << 36) /* RFC 8452: P_MAX = A_MAX = 2^36 bytes */

/* Where the message is (siv_begin starts one at every init). */
typedef enum {
    SIV_NO_NONCE, /* no nonce given yet: nothing can start */
    SIV_AAD,      /* a message: AAD in any number of updates, then the data */
    SIV_DONE,     /* its data update ran: sealed, or opened and verified */
    SIV_FAILED,   /* its data update failed verification (its output and the stream wiped) */
} siv_phase;

/* What hkey holds (see siv_powers). */
typedef enum {
    SIV_POWERS_NONE,    /* nothing of this nonce's (at most hash_init_few's of an earlier one) */
    SIV_POWERS_OLD_ALL, /* all powers of an earlier nonce: hash_init_few would leave its higher
                         * powers in place, so the table is wiped before it runs */
    SIV_POWERS_FEW,     /* hash_init_few's powers of this nonce */
    SIV_POWERS_ALL,     /* all of this nonce's powers */
} siv_powers_state;

typedef struct {
    aesfast_cipher_ctx base; /* first (cipher.h); its key is the key-generating key */
    aesfast_hash_key hkey;   /* POLYVAL powers of this nonce's message-authentication key */
    aead_stream st;          /* the message: POLYVAL state, AAD and data lengths */
    aead_stream after_aad;   /* st as the first data update found it ("speed" repeats from it) */
    uint8_t auth[16];        /* this nonce's message-authentication key, for siv_powers */
    uint8_t nonce[SIV_NONCE];
    uint8_t tag[SIV_TAG];    /* TAG_MADE: the tag made; TAG_EXPECTED: the tag to check */
    siv_phase phase;
    aead_tag_state tag_state;
    siv_powers_state powers;
    unsigned int speed;
} siv_ctx;

/* This nonce's message-encryption key: the context's second key (aesfast_ctx_key; the first is
 * the key-generating key). */
static inline aesfast_key *siv_enc_key(const siv_ctx *c)
{
    return aesfast_ctx_key(&c->base, 1);
}

/* The per-nonce keys (RFC 8452, section 4; aesfast_gcmsiv_derive). The POLYVAL powers wait for
 * siv_powers (or the short kernels make what they need). Derived at init, not when the data
 * comes: its latency then hides behind the calls in between (doc/design.md: deriving in the
 * short kernels measured slower). */
static void siv_derive(siv_ctx *c)
{
    const aesfast_kernel *k = c->base.kernel;

    /* hkey holds nothing of this nonce; a whole table of an earlier one keeps the powers that
     * hash_init_few does not write until it is wiped (siv_powers). */
    if (c->powers == SIV_POWERS_ALL && k->gcmsiv.hash_init_few != NULL)
        c->powers = SIV_POWERS_OLD_ALL;
    else if (c->powers != SIV_POWERS_OLD_ALL)
        c->powers = SIV_POWERS_NONE;
    aesfast_gcmsiv_derive(k, aesfast_ctx_key(&c->base, 0), c->nonce, siv_enc_key(c), c->auth);
}

/* A new key: nothing derived from the old one stays. The per-nonce keys are overwritten by the
 * next derivation, but the table of powers only when something is hashed through it, which
 * messages the short kernels take never do; and a key may come without a nonce. Re-keying is
 * rare, so everything is wiped at once. */
static void siv_forget_key(siv_ctx *c)
{
    if (c->powers != SIV_POWERS_NONE)
        aesfast_wipe(&c->hkey, sizeof(c->hkey));
    c->powers = SIV_POWERS_NONE;
    aesfast_wipe(siv_enc_key(c), c->base.key_stride);
    aesfast_wipe(c->auth, sizeof(c->auth));
}

/* Before AAD or data of len bytes that will be hashed: the powers of H their hash calls read.
 * Building the table is most of a small message's per-nonce cost, so it waits until the stream
 * hashes something, and then builds only what that needs: calls of fewer than AEAD_STITCH_MIN
 * blocks hash through the stream's queue, at most AEAD_QUEUE_FEW blocks at a time, and
 * hash_init_few's table serves them; a longer call gets the whole table, once per nonce. The
 * table is wiped in C before hash_init_few writes over an earlier nonce's whole table, whatever
 * the tier's layout. */
static void siv_powers(siv_ctx *c, size_t len)
{
    const aesfast_aead_kernel *f = &c->base.kernel->gcmsiv;

    if (len >= AEAD_STITCH_MIN * AESFAST_BLOCK) {
        if (c->powers != SIV_POWERS_ALL)
            f->hash_init(&c->hkey, c->auth);
        c->powers = SIV_POWERS_ALL;
    } else if (c->powers == SIV_POWERS_NONE || c->powers == SIV_POWERS_OLD_ALL) {
        if (c->powers == SIV_POWERS_OLD_ALL)
            OPENSSL_cleanse(&c->hkey, sizeof(c->hkey));
        aesfast_hash_init_few(f)(&c->hkey, c->auth);
        c->powers = f->hash_init_few == NULL ? SIV_POWERS_ALL : SIV_POWERS_FEW;
    }
}

/* The tag's transitions, the only functions that assign tag_state (as in gcm.c):
 *   siv_tag_set   "tag" set for opening (in c->tag): TAG_EXPECTED;
 *   siv_tag_made  a seal's data update made the tag (in c->tag): TAG_MADE, until the next
 *                 message;
 *   siv_tag_drop  a new message: a tag made for the last message is dropped; one set for
 *                 opening stays (see siv_begin). */
static void siv_tag_set(siv_ctx *c)
{
    c->tag_state = TAG_EXPECTED;
}

static void siv_tag_made(siv_ctx *c)
{
    c->tag_state = TAG_MADE;
}

static void siv_tag_drop(siv_ctx *c)
{
    if (c->tag_state == TAG_MADE)
        c->tag_state = TAG_NONE;
}

/* A new message on the current key and nonce (every init starts one): no AAD or data of the
 * last one carries over, nor the tag it made. A tag set for opening stays, as in OpenSSL (EVP
 * users and evp_test set it before the init that gives the key and nonce): the data update
 * checks it, so a stale one only makes the next open fail, its output wiped. */
static void siv_begin(siv_ctx *c)
{
    static const uint8_t no_ctr[AESFAST_BLOCK]; /* set from the tag when the data comes */

    aesfast_aead_begin(&c->st, no_ctr, CTR32_LE_FIRST);
    if (c->phase != SIV_NO_NONCE)
        c->phase = SIV_AAD;
    siv_tag_drop(c);
}

static int siv_ready(siv_ctx *c)
{
    if (!c->base.key_set) {
        AESFAST_RAISE(c->base.prov, AESFAST_R_NO_KEY_SET, "%s: set a key first", c->base.name);
        return 0;
    }
    if (c->phase == SIV_NO_NONCE) {
        AESFAST_RAISE(c->base.prov, AESFAST_R_NO_IV_SET, "%s: set a 12-byte nonce first",
                      c->base.name);
        return 0;
    }
    return 1;
}

/* The first counter block from a tag: the tag with its top bit set. Made in a register and
 * stored whole (u64x2): the counter kernel's 16-byte load of it is then forwarded from the
 * store, where a byte OR into memory would make it wait (so for every block made here). */
static void siv_first_ctr(uint8_t ctr[AESFAST_BLOCK], const uint8_t tag[SIV_TAG])
{
    const u64x2 top = {0, aesfast_le64((uint64_t)1 << 63)};
    u64x2 v;

    memcpy(&v, tag, sizeof(v));
    v |= top;
    memcpy(ctr, &v, sizeof(v));
}

/* The tag from the POLYVAL of the whole message (RFC 8452, section 4): AES_encKey(S), where S is
 * the hash XOR the nonce, with the top bit of its last byte cleared. Ends the hash. */
static void siv_tag(siv_ctx *c, uint8_t tag[SIV_TAG])
{
    const u64x2 lens = {aesfast_le64(c->st.aadlen * 8), aesfast_le64(c->st.datalen * 8)};
    const u64x2 low127 = {~(uint64_t)0, aesfast_le64(~((uint64_t)1 << 63))};
    uint64_t n0, n1 = 0; /* the nonce's words (n1: its last 4 bytes, then zeros) */
    u64x2 s;
    uint8_t sb[AESFAST_BLOCK];

    aesfast_aead_finish(&c->st, &c->base.kernel->gcmsiv, &c->hkey, (const uint8_t *)&lens);
    memcpy(&n0, c->nonce, 8);
    memcpy(&n1, c->nonce + 8, 4);
    memcpy(&s, c->st.acc, sizeof(s));
    s = (s ^ (u64x2){n0, n1}) & low127;
    memcpy(sb, &s, sizeof(sb));
    c->base.kernel->encrypt_block(siv_enc_key(c), sb, tag);
    OPENSSL_cleanse(sb, sizeof(sb));
}

/* out = in ^ the keystream whose first counter block is the tag with the top bit set. */
static void siv_ctr(siv_ctx *c, const uint8_t tag[SIV_TAG], const uint8_t *in, uint8_t *out,
                    size_t len)
{
    const aesfast_kernel *k = c->base.kernel;
    uint8_t ctr[AESFAST_BLOCK];
    size_t nblocks = len / AESFAST_BLOCK;

    siv_first_ctr(ctr, tag);
    k->gcmsiv.ctr(siv_enc_key(c), ctr, in, out, nblocks);
    if (len % AESFAST_BLOCK != 0) {
        keystream ks;

        aesfast_ctr32_add(ctr, CTR32_LE_FIRST, (uint32_t)nblocks);
        ks_tail(&ks, k, siv_enc_key(c), ctr, in + len - len % AESFAST_BLOCK,
                out + len - len % AESFAST_BLOCK, len % AESFAST_BLOCK);
        OPENSSL_cleanse(&ks, sizeof(ks));
    }
}

/* The end of an open: ok says whether want, the tag of the plaintext, is the tag received. On
 * a mismatch nothing of the plaintext stays: not the output, nor the blocks the stream queued
 * for the hash, its partial block or its keystream. */
static int siv_opened(siv_ctx *c, uint8_t *out, size_t len, const uint8_t want[SIV_TAG])
{
    int ok = CRYPTO_memcmp(want, c->tag, SIV_TAG) == 0;

    c->phase = ok ? SIV_DONE : SIV_FAILED;
    if (!ok) {
        if (len > 0)
            OPENSSL_cleanse(out, len); /* no plaintext of a forged message leaves */
        aesfast_aead_wipe(&c->st);
        AESFAST_RAISE(c->base.prov, AESFAST_R_TAG_MISMATCH, "%s: tag verification failed",
                      c->base.name);
    }
    return ok;
}

/* Opening: CTR and POLYVAL in one pass, then the tag check. */
static int siv_open(siv_ctx *c, uint8_t *out, const uint8_t *in, size_t len)
{
    const aesfast_kernel *k = c->base.kernel;
    uint8_t want[SIV_TAG];
    int ok;

    siv_first_ctr(c->st.ctr, c->tag);
    if (len > 0)
        aesfast_aead_crypt(&c->st, k, &k->gcmsiv, siv_enc_key(c), &c->hkey, in, out, len, 1);
    siv_tag(c, want);
    ok = siv_opened(c, out, len, want);
    aesfast_aead_wipe_data(&c->st); /* (all of it is wiped already if the tag failed) */
    OPENSSL_cleanse(want, sizeof(want));
    return ok;
}

/* A message the tier's short kernels take in one call (the AAD all queued, and few blocks in
 * all): seal or open it. -1 if they do not take it. */
static int siv_short(siv_ctx *c, uint8_t *out, const uint8_t *in, size_t len)
{
    const aesfast_kernel *k = c->base.kernel;
    const uint8_t *aad;
    size_t naad;
    aesfast_gcmsiv_msg m;
    int ok = 1;

    if (k->gcmsiv_seal_short == NULL || len >= AESFAST_BLOCK * (size_t)k->gcmsiv_short_blocks
        || (aad = aesfast_aead_queued_aad(&c->st, &naad)) == NULL
        || naad + (len + AESFAST_BLOCK - 1) / AESFAST_BLOCK + 1 > k->gcmsiv_short_blocks)
        return -1;
    m = (aesfast_gcmsiv_msg){c->nonce, c->auth, aad, in, out, naad, c->st.aadlen, len, {0}};
    if (c->base.enc) {
        k->gcmsiv_seal_short(siv_enc_key(c), &m);
        memcpy(c->tag, m.tag, SIV_TAG);
        siv_tag_made(c);
        c->phase = SIV_DONE;
    } else {
        memcpy(m.tag, c->tag, SIV_TAG);
        k->gcmsiv_open_short(siv_enc_key(c), &m);
        ok = siv_opened(c, out, len, m.tag);
    }
    OPENSSL_cleanse(m.tag, sizeof(m.tag));
    return ok;
}

/* The message's data, whole: seal (POLYVAL, then CTR) or open (CTR + POLYVAL, then verify). */
static int siv_data(siv_ctx *c, uint8_t *out, const uint8_t *in, size_t len)
{
    int ok;

    if (c->phase != SIV_AAD) {
        if (!c->speed) {
            AESFAST_RAISE(c->base.prov, AESFAST_R_ONE_DATA_UPDATE,
                          "%s: the data of a message comes in one update; re-init for the next "
                          "message", c->base.name);
            return 0;
        }
        aesfast_aead_copy(&c->st, &c->after_aad); /* "speed": another whole message under the same nonce and AAD */
    } else {
        aesfast_aead_copy(&c->after_aad, &c->st); /* always: "speed" may be set after this update, as in OpenSSL */
    }
    if (len > SIV_MAX) {
        AESFAST_RAISE(c->base.prov, AESFAST_R_MESSAGE_TOO_LONG,
                      "%s: more than 2^36 bytes of data", c->base.name);
        return 0;
    }
    if (!aesfast_cipher_need_tag(&c->base, c->tag_state == TAG_EXPECTED,
                                 "tag before the data: it is the initial counter"))
        return 0;
    if ((ok = siv_short(c, out, in, len)) >= 0)
        return ok;
    siv_powers(c, len);
    if (!c->base.enc)
        return siv_open(c, out, in, len);
    aesfast_aead_hash_only(&c->st, &c->base.kernel->gcmsiv, &c->hkey, in, len);
    siv_tag(c, c->tag);
    aesfast_aead_wipe_data(&c->st);
    siv_tag_made(c);
    siv_ctr(c, c->tag, in, out, len); /* after the hash: in may be out */
    c->phase = SIV_DONE;
    return 1;
}

/* ---- the provider interface ------------------------------------------------------------- */

/* Every init starts a new message (siv_begin); a new key or nonce derives the nonce's keys. */
AESFAST_HOOK void gcmsiv_init(aesfast_cipher_ctx *b, int new_key, const uint8_t *iv, size_t ivlen)
{
    siv_ctx *c = (siv_ctx *)b;

    (void)ivlen;
    if (iv != NULL) {
        memcpy(c->nonce, iv, SIV_NONCE);
        c->phase = SIV_AAD;
    }
    if (new_key)
        siv_forget_key(c);
    if (b->key_set && c->phase != SIV_NO_NONCE && (new_key || iv != NULL))
        siv_derive(c);
    siv_begin(c);
}

/* update and EVP_Cipher: AAD when out is NULL, else the message's data. */
static int gcmsiv_update(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                         const unsigned char *in, size_t inl)
{
    siv_ctx *c = vctx;
    aesfast_cipher_ctx *b = &c->base;

    if (!aesfast_cipher_buffers_ok(b, 1, out, outsize, in, inl) || !siv_ready(c))
        return 0;
    if (in == NULL) /* 0 bytes: memcpy and pointer arithmetic want a real pointer (UBSan) */
        in = (const unsigned char *)"";
    if (out == NULL) {
        if (c->phase != SIV_AAD || c->st.in_data) {
            AESFAST_RAISE(b->prov, AESFAST_R_AAD_AFTER_DATA, "%s: AAD after the data", b->name);
            return 0;
        }
        if (inl > SIV_MAX - c->st.aadlen) {
            AESFAST_RAISE(b->prov, AESFAST_R_MESSAGE_TOO_LONG,
                          "%s: more than 2^36 bytes of AAD", b->name);
            return 0;
        }
        if (aesfast_aead_aad_hashes(&c->st, inl)) /* most AAD is only queued: no powers yet */
            siv_powers(c, inl);
        aesfast_aead_aad(&c->st, &b->kernel->gcmsiv, &c->hkey, in, inl);
    } else if (!siv_data(c, out, in, inl)) {
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
    switch (c->phase) {
    case SIV_AAD: /* a message without data: seal or open the empty plaintext */
        return siv_data(c, none, none, 0);
    case SIV_FAILED:
        AESFAST_RAISE(c->base.prov, AESFAST_R_TAG_MISMATCH,
                      "%s: the message failed verification", c->base.name);
        return 0;
    default:
        return 1;
    }
}

static int gcmsiv_cipher(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                         const unsigned char *in, size_t inl)
{
    if (in == NULL)
        return gcmsiv_final(vctx, out, outl, outsize);
    return gcmsiv_update(vctx, out, outl, outsize, in, inl);
}

/* ---- parameters ------------------------------------------------------------------------- */

AESFAST_HOOK aesfast_param_result gcmsiv_get(aesfast_cipher_ctx *b, OSSL_PARAM *p, aesfast_param id)
{
    siv_ctx *c = (siv_ctx *)b;

    if (id == AESFAST_P_TAGLEN)
        return aesfast_param_done(OSSL_PARAM_set_size_t(p, SIV_TAG));
    if (id != AESFAST_P_TAG)
        return AESFAST_PARAM_NOT_MINE;
    if (c->tag_state != TAG_MADE || p->data_size != SIV_TAG) {
        AESFAST_RAISE(b->prov, AESFAST_R_INVALID_TAG,
                      "%s: the 16-byte tag (asked %zu) is read after sealing", b->name,
                      p->data_size);
        return AESFAST_PARAM_FAILED;
    }
    return aesfast_param_done(aesfast_param_set_octets(p, c->tag, SIV_TAG));
}

/* Settable as in the default provider: "tag" (16 bytes; kept only for opening), "speed", and
 * "keylen" at its one valid value; also "ivlen", at 12 only: an application asking for another
 * nonce length gets an error, not a silent 12 (OpenSSL ignores the parameter). */
AESFAST_HOOK aesfast_param_result gcmsiv_set(aesfast_cipher_ctx *b, const OSSL_PARAM *p,
                                            aesfast_param id)
{
    siv_ctx *c = (siv_ctx *)b;
    unsigned int u;

    switch (id) {
    case AESFAST_P_TAG:
        /* Sealing makes its own tag: a tag (or, with no data, a tag length) given then is
         * checked for its length and otherwise ignored, as in OpenSSL. */
        if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data_size != SIV_TAG
            || (!b->enc && p->data == NULL)) {
            AESFAST_RAISE(b->prov, AESFAST_R_INVALID_TAG_LENGTH,
                          "%s: the tag is a 16-byte octet string (given %zu bytes)", b->name,
                          p->data_size);
            return AESFAST_PARAM_FAILED;
        }
        if (!b->enc) {
            memcpy(c->tag, p->data, SIV_TAG);
            siv_tag_set(c);
        }
        return AESFAST_PARAM_OK;
    case AESFAST_P_SPEED:
        if (!OSSL_PARAM_get_uint(p, &u))
            return AESFAST_PARAM_WRONG_TYPE;
        c->speed = u != 0;
        return AESFAST_PARAM_OK;
    case AESFAST_P_IVLEN:
        return aesfast_param_fixed_size(b, p, id, SIV_NONCE);
    case AESFAST_P_KEYLEN:
        return aesfast_param_fixed_size(b, p, id, b->keylen);
    default:
        return AESFAST_PARAM_NOT_MINE;
    }
}

static const OSSL_PARAM gcmsiv_gettable[] = {
    AESFAST_GETTABLE_LENGTHS,
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_END,
};

static const OSSL_PARAM gcmsiv_settable[] = {
    AESFAST_SETTABLE_FIXED_LENGTHS,
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_SPEED, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_END,
};

AESFAST_CIPHER(gcmsiv, siv_ctx, "GCM-SIV", EVP_CIPH_GCM_SIV_MODE, 1, SIV_NONCE, SIV_NONCE,
               SIV_NONCE, 2);
