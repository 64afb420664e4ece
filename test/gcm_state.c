/*
 * gcm_state: AES-GCM's per-message state, through the EVP API as an application calls it: no
 * keystream, tag or IV flag of one message may outlive it. Each scenario runs on a provider and
 * says whether that provider stayed safe; it must for aesfast. The first five are unsafe states
 * that OpenSSL's default provider gets into (3.0.22, 3.5.7 and 3.6.3 checked):
 * on those series the test also requires the default provider to be UNSAFE, which shows that
 * each check can fail and that provider-aesfast(7)'s list of differences is true; a newer
 * OpenSSL that has become safe is reported, not failed. The rest are rules of aesfast's message
 * state that keep those four closed; the default provider's behaviour is printed beside them.
 *
 *   gcm_state [--expect-kernel TIER]     exit 0 pass, 1 fail
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "check.h"
#include "testutil.h"

#ifndef OSSL_CIPHER_PARAM_AEAD_IV_GENERATED /* 3.0's headers lack it (its default ignores it) */
#define OSSL_CIPHER_PARAM_AEAD_IV_GENERATED "iv-generated"
#endif

/* The newest series whose default provider is known unsafe in the five findings. */
#define KNOWN_UNSAFE_BEFORE 0x30700000UL /* 3.7.0 */

/* What a scenario found. */
enum { UNSAFE, SAFE, NOT_APPLICABLE };

static tu_rng rng;
static uint8_t key[16], iv1[12], iv2[12], fixed[4], pt[64];

/* A fresh context for AES-128-GCM of the provider (its cipher is freed with it: done()). */
static EVP_CIPHER_CTX *ctx_new(const char *prov, EVP_CIPHER **c)
{
    *c = tu_fetch_cipher("AES-128-GCM", prov);
    return EVP_CIPHER_CTX_new();
}

static void done(EVP_CIPHER_CTX *ctx, EVP_CIPHER *c)
{
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
    ERR_clear_error();
}

static int get_iv(EVP_CIPHER_CTX *ctx, uint8_t iv[12])
{
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_IV, iv, 12),
                       OSSL_PARAM_construct_end()};

    return EVP_CIPHER_CTX_get_params(ctx, p) && p[0].return_size == 12;
}

/* "iv-generated": 0 or 1, or -1 if the provider does not answer it. */
static int iv_generated(EVP_CIPHER_CTX *ctx)
{
    unsigned int v = 7;
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_AEAD_IV_GENERATED, &v),
                       OSSL_PARAM_construct_end()};

    return EVP_CIPHER_CTX_get_params(ctx, p) && OSSL_PARAM_modified(&p[0]) ? (int)v : -1;
}

/* 32 bytes of pt sealed as one message (the tag read into tag if not NULL): 1 or 0. */
static int seal32(EVP_CIPHER_CTX *ctx, uint8_t ct[32], uint8_t *tag)
{
    int l;

    return EVP_EncryptUpdate(ctx, ct, &l, pt, 32) && l == 32 && EVP_EncryptFinal_ex(ctx, ct, &l)
           && (tag == NULL || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0);
}

/* ---- the five findings ------------------------------------------------------------------- */

/*
 * 1. An IV under "tlsivfixed" management serves one message only. Sealing: key, a 4-byte fixed
 * part (the rest random, as libssl sets up TLS 1.2), a plain message of 32 bytes, then a TLS
 * record of the same 32 bytes (how == 0) or "tlsivgen" (how == 1). The record or generated IV
 * must not be the message's IV: the same IV would give the same keystream, a two-time pad.
 */
static int iv_reuse(const char *prov, int how)
{
    EVP_CIPHER *c;
    EVP_CIPHER_CTX *ctx = ctx_new(prov, &c);
    uint8_t msg_iv[12], ct[32], rec[56], aad[13] = {0}, nonce[8];
    int same_iv, ok;

    aad[8] = 23, aad[9] = 3, aad[10] = 3, aad[12] = 8 + 32; /* seq 0, application data, TLS 1.2 */
    ok = EVP_EncryptInit_ex2(ctx, c, key, NULL, NULL)
         && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed) > 0
         && get_iv(ctx, msg_iv) && seal32(ctx, ct, NULL);
    if (how == 0) {
        memset(rec, 0, sizeof(rec));
        memcpy(rec + 8, pt, 32);
        ok = ok && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) == 16
             && EVP_Cipher(ctx, rec, rec, sizeof(rec)) == (int)sizeof(rec);
        memcpy(nonce, rec, 8);
    } else {
        ok = ok && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_IV_GEN, 8, nonce) > 0;
    }
    done(ctx, c);
    if (!ok)
        tu_die("%s: the %s scenario failed to run", prov, how == 0 ? "record" : "IV_GEN");
    same_iv = memcmp(nonce, msg_iv + 4, 8) == 0;
    /* The record's payload under the message's IV would be the message's ciphertext again. */
    if (how == 0 && same_iv != (memcmp(rec + 8, ct, 32) == 0))
        tu_die("%s: the record's IV and its payload disagree", prov);
    return same_iv ? UNSAFE : SAFE;
}

/*
 * 5. Two copies of a sealing context under "tlsivfixed" (EVP_CIPHER_CTX_copy, as a program that
 * hands a keyed template to each connection or thread does): each seals its next TLS record
 * (how == 0) or takes "tlsivgen" (how == 1). The same explicit nonce in both would put two
 * records under one IV.
 */
static int copies_share_nonce(const char *prov, int how)
{
    EVP_CIPHER *c;
    EVP_CIPHER_CTX *ctx = ctx_new(prov, &c), *dup = EVP_CIPHER_CTX_new();
    uint8_t rec[2][56], aad[13] = {0}, nonce[2][8];
    int ok;

    aad[8] = 23, aad[9] = 3, aad[10] = 3, aad[12] = 8 + 32;
    ok = dup != NULL && EVP_EncryptInit_ex2(ctx, c, key, NULL, NULL)
         && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed) > 0
         && EVP_CIPHER_CTX_copy(dup, ctx);
    for (int i = 0; i < 2 && ok; i++) {
        EVP_CIPHER_CTX *x = i ? dup : ctx;

        if (how == 0) {
            memset(rec[i], 0, sizeof(rec[i]));
            memcpy(rec[i] + 8, pt, 32);
            ok = EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) == 16
                 && EVP_Cipher(x, rec[i], rec[i], sizeof(rec[i])) == (int)sizeof(rec[i]);
            memcpy(nonce[i], rec[i], 8);
        } else {
            ok = EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_IV_GEN, 8, nonce[i]) > 0;
        }
    }
    EVP_CIPHER_CTX_free(dup);
    done(ctx, c);
    if (!ok)
        tu_die("%s: the copies' %s scenario failed to run", prov, how == 0 ? "record" : "IV_GEN");
    return memcmp(nonce[0], nonce[1], 8) == 0 ? UNSAFE : SAFE;
}

static int copies_record(const char *prov) { return copies_share_nonce(prov, 0); }
static int copies_iv_gen(const char *prov) { return copies_share_nonce(prov, 1); }

static int iv_reuse_record(const char *prov) { return iv_reuse(prov, 0); }
static int iv_reuse_iv_gen(const char *prov) { return iv_reuse(prov, 1); }

/*
 * 2. A direction switch mid-message: DecryptInit(key, iv), 32 bytes decrypted, then
 * EncryptInit_ex(ctx, NULL, NULL, NULL, NULL) and 32 bytes encrypted. Unsafe if they come out
 * encrypted with bytes 32..63 of the decrypted message's keystream (AES-CTR from inc32(J0)).
 */
static int direction_switch(const char *prov)
{
    EVP_CIPHER *c;
    EVP_CIPHER_CTX *ctx = ctx_new(prov, &c), *ref = EVP_CIPHER_CTX_new();
    uint8_t zero[64] = {0}, ks[64], junk[32], out[32];
    int l, ok, enc;

    /* The keystream of (key, iv1): 64 zero bytes sealed on a context of their own. */
    ok = EVP_EncryptInit_ex2(ref, c, key, iv1, NULL) && EVP_EncryptUpdate(ref, ks, &l, zero, 64);
    tu_rng_fill(&rng, junk, sizeof(junk));
    ok = ok && EVP_DecryptInit_ex2(ctx, c, key, iv1, NULL)
         && EVP_DecryptUpdate(ctx, out, &l, junk, 32)
         && EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, NULL);
    if (!ok)
        tu_die("%s: the direction switch scenario failed to run", prov);
    ERR_clear_error();
    enc = EVP_EncryptUpdate(ctx, out, &l, pt, 32) && l == 32;
    int raised = ERR_peek_error() != 0;
    EVP_CIPHER_CTX_free(ref);
    done(ctx, c);
    for (int i = 0; enc && i < 32; i++)
        out[i] ^= pt[i];
    if (enc && memcmp(out, ks + 32, 32) == 0)
        return UNSAFE;
    return !enc && raised ? SAFE : UNSAFE; /* refused, with a reason (or some other keystream) */
}

/* 3a. The tag of a finished message is not readable once the next message began: seal under
 * iv1, then EncryptInit(NULL, iv2), 32 bytes, and a tag read. */
static int stale_tag_after_seal(const char *prov)
{
    EVP_CIPHER *c;
    EVP_CIPHER_CTX *ctx = ctx_new(prov, &c);
    uint8_t ct[32], tag1[16], tag[16];
    int l, read;

    if (!EVP_EncryptInit_ex2(ctx, c, key, iv1, NULL) || !seal32(ctx, ct, tag1)
        || !EVP_EncryptInit_ex2(ctx, NULL, NULL, iv2, NULL)
        || !EVP_EncryptUpdate(ctx, ct, &l, pt, 32))
        tu_die("%s: the stale tag scenario failed to run", prov);
    read = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0;
    done(ctx, c);
    return read ? UNSAFE : SAFE; /* (the default provider's is tag1) */
}

/* 3b. A tag set for opening is not read back as a tag made: DecryptInit, SET_TAG(t),
 * EncryptInit(NULL, iv2), and a tag read. */
static int stale_tag_after_set(const char *prov)
{
    EVP_CIPHER *c;
    EVP_CIPHER_CTX *ctx = ctx_new(prov, &c);
    uint8_t t[16], tag[16];
    int read;

    tu_rng_fill(&rng, t, sizeof(t));
    if (!EVP_DecryptInit_ex2(ctx, c, key, iv1, NULL)
        || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, t) <= 0
        || !EVP_EncryptInit_ex2(ctx, NULL, NULL, iv2, NULL))
        tu_die("%s: the set tag scenario failed to run", prov);
    read = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0;
    done(ctx, c);
    return read ? UNSAFE : SAFE; /* (it would be t: nothing was sealed) */
}

/* 4. "iv-generated" speaks of the current IV: 1 after sealing under a random IV, 0 after a
 * re-init with an explicit IV. */
static int iv_generated_after_reinit(const char *prov)
{
    EVP_CIPHER *c;
    EVP_CIPHER_CTX *ctx = ctx_new(prov, &c);
    uint8_t ct[32];
    int before, after;

    if (!EVP_EncryptInit_ex2(ctx, c, key, NULL, NULL) || !seal32(ctx, ct, NULL))
        tu_die("%s: the iv-generated scenario failed to run", prov);
    before = iv_generated(ctx);
    if (!EVP_EncryptInit_ex2(ctx, NULL, NULL, iv2, NULL))
        tu_die("%s: re-init with an IV failed", prov);
    after = iv_generated(ctx);
    done(ctx, c);
    if (before < 0 || after < 0)
        return NOT_APPLICABLE; /* OpenSSL 3.0's default provider has no "iv-generated" */
    if (before != 1)
        tu_die("%s: \"iv-generated\" reads %d after sealing under a random IV", prov, before);
    return after == 0 ? SAFE : UNSAFE;
}

/* ---- the rules that keep them closed ----------------------------------------------------- */

/* Any init ends the message under way, in the same direction too: EncryptInit(key, iv1), 20
 * bytes, EncryptInit(NULL, NULL, NULL), 20 more bytes are refused (a new IV is needed). */
static int init_ends_message(const char *prov)
{
    EVP_CIPHER *c;
    EVP_CIPHER_CTX *ctx = ctx_new(prov, &c);
    uint8_t out[20];
    int l, more;

    if (!EVP_EncryptInit_ex2(ctx, c, key, iv1, NULL) || !EVP_EncryptUpdate(ctx, out, &l, pt, 20)
        || !EVP_EncryptInit_ex2(ctx, NULL, NULL, NULL, NULL))
        tu_die("%s: the init scenario failed to run", prov);
    more = EVP_EncryptUpdate(ctx, out, &l, pt + 20, 20);
    done(ctx, c);
    return more ? UNSAFE : SAFE;
}

/* A tag set for opening is used up by the decrypt final of its message: the next message,
 * under a new IV and opened without a tag of its own, fails (here it is the same ciphertext
 * and tag under the same IV given again, which the stale tag would verify). */
static int tag_used_up(const char *prov)
{
    EVP_CIPHER *c;
    EVP_CIPHER_CTX *ctx = ctx_new(prov, &c);
    uint8_t ct[32], tag[16], out[32];
    int l, again;

    if (!EVP_EncryptInit_ex2(ctx, c, key, iv1, NULL) || !seal32(ctx, ct, tag)
        || !EVP_DecryptInit_ex2(ctx, NULL, NULL, iv1, NULL)
        || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) <= 0
        || !EVP_DecryptUpdate(ctx, out, &l, ct, 32) || !EVP_DecryptFinal_ex(ctx, out, &l)
        || !EVP_DecryptInit_ex2(ctx, NULL, NULL, iv1, NULL)
        || !EVP_DecryptUpdate(ctx, out, &l, ct, 32))
        tu_die("%s: the used-up tag scenario failed to run", prov);
    again = EVP_DecryptFinal_ex(ctx, out, &l);
    done(ctx, c);
    return again ? UNSAFE : SAFE;
}

/* An explicit IV given by an init ends "tlsivfixed" management: "tlsivgen" is refused until a
 * new fixed part is set (it would count on from an IV the application chose). */
static int explicit_iv_ends_management(const char *prov)
{
    EVP_CIPHER *c;
    EVP_CIPHER_CTX *ctx = ctx_new(prov, &c);
    uint8_t nonce[8];
    int gen;

    if (!EVP_EncryptInit_ex2(ctx, c, key, NULL, NULL)
        || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed) <= 0
        || !EVP_EncryptInit_ex2(ctx, NULL, NULL, iv1, NULL))
        tu_die("%s: the management scenario failed to run", prov);
    gen = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_IV_GEN, 8, nonce) > 0;
    done(ctx, c);
    return gen ? UNSAFE : SAFE;
}

/* An init drops a pending TLS record: "tlsaad", then a re-init with a new IV, then a plain
 * message of 32 bytes seals as one (not as a record). */
static int init_drops_record(const char *prov)
{
    EVP_CIPHER *c;
    EVP_CIPHER_CTX *ctx = ctx_new(prov, &c), *ref = EVP_CIPHER_CTX_new();
    uint8_t aad[13] = {0}, ct[32], tag[16], want[32], want_tag[16];
    int plain;

    aad[12] = 8 + 32;
    if (!EVP_EncryptInit_ex2(ctx, c, key, NULL, NULL)
        || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed) <= 0
        || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) != 16
        || !EVP_EncryptInit_ex2(ref, c, key, iv2, NULL) || !seal32(ref, want, want_tag))
        tu_die("%s: the pending record scenario failed to run", prov);
    plain = EVP_EncryptInit_ex2(ctx, NULL, NULL, iv2, NULL) && seal32(ctx, ct, tag)
            && memcmp(ct, want, 32) == 0 && memcmp(tag, want_tag, 16) == 0;
    EVP_CIPHER_CTX_free(ref);
    done(ctx, c);
    return plain ? SAFE : UNSAFE;
}

static const struct {
    const char *what;
    int (*run)(const char *prov);
    int finding; /* one of the first five: the default provider is known unsafe in it */
} scenarios[] = {
    {"1. a plain message then a TLS record under tlsivfixed: two IVs", iv_reuse_record, 1},
    {"1. a plain message then tlsivgen under tlsivfixed: two IVs", iv_reuse_iv_gen, 1},
    {"2. a direction switch mid-message: no keystream reused", direction_switch, 1},
    {"3. a new message: the last one's tag is not readable", stale_tag_after_seal, 1},
    {"3. a switch to encrypting: the tag set is not readable", stale_tag_after_set, 1},
    {"4. an explicit IV after a random one: iv-generated 0", iv_generated_after_reinit, 1},
    {"5. two copies under tlsivfixed: their next records' nonces differ", copies_record, 1},
    {"5. two copies under tlsivfixed: tlsivgen gives each its own", copies_iv_gen, 1},
    {"an init ends the message under way (same direction)", init_ends_message, 0},
    {"a tag set for opening is used up by its final", tag_used_up, 0},
    {"an explicit IV ends tlsivfixed management (tlsivgen)", explicit_iv_ends_management, 0},
    {"an init drops a pending TLS record", init_drops_record, 0},
};

/* A finding's outcome is safe or unsafe; a rule's, whether the provider keeps it. */
static const char *said(int r, int finding)
{
    return r == NOT_APPLICABLE ? "n/a" : finding ? (r == SAFE ? "safe" : "UNSAFE")
                                                 : (r == SAFE ? "yes" : "no");
}

int main(int argc, char **argv)
{
    const char *expect = NULL;
    tu_providers p;

    tu_init("gcm_state");
    tu_rng_seed(&rng, 0x6c3, 0);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--expect-kernel") == 0 && i + 1 < argc)
            expect = argv[++i];
        else
            tu_die("usage: gcm_state [--expect-kernel TIER]");
    }
    tu_providers_load(&p, "aesfast", expect);
    printf("gcm_state: %s, kernel %s\n", OpenSSL_version(OPENSSL_VERSION), p.kernel);
    tu_rng_fill(&rng, key, sizeof(key));
    tu_rng_fill(&rng, iv1, sizeof(iv1));
    tu_rng_fill(&rng, iv2, sizeof(iv2));
    tu_rng_fill(&rng, fixed, sizeof(fixed));
    tu_rng_fill(&rng, pt, sizeof(pt));

    for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
        int ours = scenarios[i].run("aesfast"), theirs = scenarios[i].run("default");
        int known = scenarios[i].finding && OpenSSL_version_num() < KNOWN_UNSAFE_BEFORE;

        CHECK(ours == SAFE, "aesfast is not safe here: %s", scenarios[i].what);
        if (known && theirs != NOT_APPLICABLE)
            CHECK(theirs == UNSAFE, "the default provider is now safe here too (drop it from "
                  "provider-aesfast(7)'s list of differences): %s", scenarios[i].what);
        printf("gcm_state: %-64s aesfast %s, default %s%s\n", scenarios[i].what,
               said(ours, scenarios[i].finding), said(theirs, scenarios[i].finding),
               theirs == SAFE && scenarios[i].finding && !known
               ? " (fixed in this newer OpenSSL: provider-aesfast(7) must say so)" : "");
    }
    tu_providers_unload(&p);
    return check_summary("gcm_state");
}
