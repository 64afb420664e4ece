/*
 * gcmsiv_api: AES-GCM-SIV through the EVP API: where aesfast deliberately differs from OpenSSL's
 * default provider (provider-aesfast(7), DIFFERENCES FROM THE DEFAULT PROVIDER), the bad input it
 * refuses, and its use on OpenSSL 3.0/3.1, which have no GCM-SIV of their own.
 *
 * Each safety difference is a function that runs the same scenario on a provider and says
 * whether that provider behaved safely. It must say yes for aesfast; and when the reference
 * libcrypto has GCM-SIV, on the series checked so far (3.2 to 3.6: all nine hold on 3.5.7 and
 * 3.6.3), it must say NO for the default provider: that shows the check can fail, and that the
 * difference the man page lists is real. On a newer OpenSSL a default provider that has become
 * safe is reported, not failed: the run on 3.5 still proves each check can fail, and the man page
 * must then say from which version on the difference is gone.
 *
 *   gcmsiv_api [--expect-kernel TIER]     exit 0 pass, 1 fail
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "check.h"
#include "testutil.h"

static const char *const names[] = {"AES-128-GCM-SIV", "AES-192-GCM-SIV", "AES-256-GCM-SIV"};
static int have_ref; /* the reference libcrypto's default provider has GCM-SIV */
/* The newest series whose default provider is known unsafe in every difference below. */
#define KNOWN_UNSAFE_BEFORE 0x30700000UL /* 3.7.0 */
static tu_rng rng;

static uint64_t rnd(void) { return tu_rng_next(&rng); }

typedef struct msg {
    uint8_t key[32], nonce[12], aad[40], pt[100];
    size_t keylen, aadlen, len;
} msg;

static void msg_random(msg *m, size_t keylen, size_t aadlen, size_t len)
{
    m->keylen = keylen;
    m->aadlen = aadlen;
    m->len = len;
    tu_rng_fill(&rng, m->key, sizeof(m->key));
    tu_rng_fill(&rng, m->nonce, sizeof(m->nonce));
    tu_rng_fill(&rng, m->aad, sizeof(m->aad));
    tu_rng_fill(&rng, m->pt, sizeof(m->pt));
}

static EVP_CIPHER *fetch(const char *prov, size_t keylen)
{
    return tu_fetch_cipher(names[(keylen - 16) / 8], prov);
}

/* The end of a scenario on one provider: its context and cipher freed, and the error queue left
 * empty for the next one (a scenario that asks whether an error was raised reads it first). */
static void done(EVP_CIPHER_CTX *ctx, EVP_CIPHER *c)
{
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
    ERR_clear_error();
}

/* One message sealed on a fresh context: 1 and out/tag, or 0. */
static int seal(const char *prov, const msg *m, uint8_t *out, uint8_t tag[16])
{
    EVP_CIPHER *c = fetch(prov, m->keylen);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl, ok = EVP_EncryptInit_ex2(ctx, c, m->key, m->nonce, NULL)
                && (m->aadlen == 0 || EVP_EncryptUpdate(ctx, NULL, &outl, m->aad, (int)m->aadlen))
                && EVP_EncryptUpdate(ctx, out, &outl, m->pt, (int)m->len)
                && EVP_EncryptFinal_ex(ctx, out + m->len, &outl)
                && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag);
    done(ctx, c);
    return ok;
}

/* ---- the safety differences -------------------------------------------------------------- */

/* A re-init (same key, a new nonce) starts a new message: the AAD given before it is gone. */
static int safe_reinit_drops_aad(const char *prov)
{
    msg m;
    uint8_t out[100], tag[16], want_out[100], want_tag[16];
    EVP_CIPHER *c;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl, ok;

    msg_random(&m, 16, 13, 40);
    c = fetch(prov, 16);
    ok = EVP_EncryptInit_ex2(ctx, c, m.key, m.nonce, NULL)
      && EVP_EncryptUpdate(ctx, NULL, &outl, m.aad, 13); /* AAD of a message never finished */
    m.nonce[0] ^= 1;
    ok = ok && EVP_EncryptInit_ex2(ctx, NULL, NULL, m.nonce, NULL)
            && EVP_EncryptUpdate(ctx, out, &outl, m.pt, (int)m.len)
            && EVP_EncryptFinal_ex(ctx, out, &outl)
            && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag);
    done(ctx, c);
    m.aadlen = 0; /* the message as the second init started it: no AAD */
    if (!ok || !seal(prov, &m, want_out, want_tag))
        return 0;
    return memcmp(out, want_out, m.len) == 0 && memcmp(tag, want_tag, 16) == 0;
}

/* No key, no message (rather than a message under an all-zero key). */
static int safe_no_key(const char *prov)
{
    msg m;
    uint8_t out[100], tag[16];
    EVP_CIPHER *c = fetch(prov, 16);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl;

    msg_random(&m, 16, 0, 32);
    int sealed = EVP_EncryptInit_ex2(ctx, c, NULL, m.nonce, NULL)
              && EVP_EncryptUpdate(ctx, out, &outl, m.pt, (int)m.len)
              && EVP_EncryptFinal_ex(ctx, out, &outl)
              && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag);
    int raised = ERR_peek_error() != 0;
    done(ctx, c);
    return !sealed && raised;
}

/* AAD after the data is refused (not accepted and left out of the tag). */
static int safe_aad_after_data(const char *prov)
{
    msg m;
    uint8_t out[100];
    EVP_CIPHER *c = fetch(prov, 16);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl;

    msg_random(&m, 16, 8, 32);
    int data = EVP_EncryptInit_ex2(ctx, c, m.key, m.nonce, NULL)
            && EVP_EncryptUpdate(ctx, out, &outl, m.pt, (int)m.len);
    int late_aad = data && EVP_EncryptUpdate(ctx, NULL, &outl, m.aad, (int)m.aadlen);
    int raised = ERR_peek_error() != 0;
    done(ctx, c);
    return data && !late_aad && raised;
}

/* Opening a forged message (one bit of the tag, the AAD or the ciphertext flipped) releases no
 * plaintext: the data update fails and the output buffer holds none of the plaintext. */
static int safe_forgery_wiped(const char *prov, int what)
{
    msg m;
    uint8_t ct[100], tag[16], out[100];
    EVP_CIPHER *c = fetch(prov, 32);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl;

    msg_random(&m, 32, 20, 64);
    if (!seal(prov, &m, ct, tag))
        return 0;
    uint8_t *flip = what == 0 ? tag : what == 1 ? m.aad : ct;
    flip[rnd() % (what == 0 ? 16 : what == 1 ? m.aadlen : m.len)] ^= (uint8_t)(1u << (rnd() % 8));
    memset(out, 0, sizeof(out));
    int opened = EVP_DecryptInit_ex2(ctx, c, m.key, m.nonce, NULL)
              && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag)
              && EVP_DecryptUpdate(ctx, NULL, &outl, m.aad, (int)m.aadlen);
    int update = opened && EVP_DecryptUpdate(ctx, out, &outl, ct, (int)m.len);
    int final = opened && EVP_DecryptFinal_ex(ctx, out + m.len, &outl);
    done(ctx, c);
    size_t leaked = 0;
    for (size_t i = 0; i < m.len; i++)
        leaked += out[i] == m.pt[i];
    /* 64 random bytes match the plaintext by chance in about 0.25 places: allow 3. */
    return opened && !update && !final && leaked <= 3;
}

static int safe_forged_tag(const char *prov) { return safe_forgery_wiped(prov, 0); }
static int safe_forged_aad(const char *prov) { return safe_forgery_wiped(prov, 1); }
static int safe_forged_ct(const char *prov) { return safe_forgery_wiped(prov, 2); }

/* Opening without a tag fails before any plaintext is released. */
static int safe_open_needs_tag(const char *prov)
{
    msg m;
    uint8_t ct[100], tag[16], out[100];
    EVP_CIPHER *c = fetch(prov, 16);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl;

    msg_random(&m, 16, 0, 48);
    if (!seal(prov, &m, ct, tag))
        return 0;
    memset(out, 0, sizeof(out));
    int update = EVP_DecryptInit_ex2(ctx, c, m.key, m.nonce, NULL)
              && EVP_DecryptUpdate(ctx, out, &outl, ct, (int)m.len);
    done(ctx, c);
    return !update && memcmp(out, m.pt, m.len) != 0;
}

/* A nonce length other than 12, asked for through "ivlen", is refused (not ignored). */
static int safe_ivlen(const char *prov)
{
    EVP_CIPHER *c = fetch(prov, 16);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int accepted = EVP_EncryptInit_ex2(ctx, c, NULL, NULL, NULL)
                && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 16, NULL) > 0;

    done(ctx, c);
    return !accepted;
}

/* A final with no data update seals the empty message (the tag of a zero-length update). */
static int safe_empty_seal(const char *prov)
{
    msg m;
    uint8_t out[16], tag[16], want_tag[16];
    EVP_CIPHER *c = fetch(prov, 16);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl;

    msg_random(&m, 16, 13, 0);
    int ok = EVP_EncryptInit_ex2(ctx, c, m.key, m.nonce, NULL)
          && EVP_EncryptUpdate(ctx, NULL, &outl, m.aad, (int)m.aadlen)
          && EVP_EncryptFinal_ex(ctx, out, &outl)
          && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0;
    done(ctx, c);
    return ok && seal(prov, &m, out, want_tag) && memcmp(tag, want_tag, 16) == 0;
}

static const struct {
    const char *what;
    int (*safe)(const char *prov);
} differences[] = {
    {"a re-init drops the AAD of the unfinished message", safe_reinit_drops_aad},
    {"no key: encryption fails", safe_no_key},
    {"AAD after the data is refused", safe_aad_after_data},
    {"a forged tag: the update fails and the output is wiped", safe_forged_tag},
    {"a forged AAD bit: the update fails and the output is wiped", safe_forged_aad},
    {"a forged ciphertext bit: the update fails and the output is wiped", safe_forged_ct},
    {"opening without a tag fails before any plaintext", safe_open_needs_tag},
    {"a nonce length other than 12 (ivlen) is refused", safe_ivlen},
    {"a final with no data update seals the empty message", safe_empty_seal},
};

/* ---- bad input, and the round trip ------------------------------------------------------- */

/* A call that must fail with an error on the queue (cleared afterwards). */
#define REFUSED(call, ...)                                                                     \
    do {                                                                                       \
        ERR_clear_error();                                                                     \
        int ok_ = (call);                                                                      \
        CHECK(!ok_ && ERR_peek_error() != 0, __VA_ARGS__);                                      \
        ERR_clear_error();                                                                     \
    } while (0)

static void test_bad_input(void)
{
    msg m;
    uint8_t out[200], tag[16];
    int outl;

    msg_random(&m, 16, 0, 32);
    EVP_CIPHER *c = fetch("aesfast", 16);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

    /* A nonce of another length: the ivlen parameter and the init's length. */
    EVP_EncryptInit_ex2(ctx, c, NULL, NULL, NULL);
    REFUSED(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 16, NULL) > 0,
            "ivlen 16 accepted");
    CHECK(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 12, NULL) > 0, "ivlen 12 refused");
    REFUSED(EVP_CIPHER_CTX_set_key_length(ctx, 24), "a 24-byte key length accepted for AES-128");

    /* A second data update. */
    CHECK(EVP_EncryptInit_ex2(ctx, NULL, m.key, m.nonce, NULL), "init");
    CHECK(EVP_EncryptUpdate(ctx, out, &outl, m.pt, 16), "first data update");
    REFUSED(EVP_EncryptUpdate(ctx, out + 16, &outl, m.pt + 16, 16), "a second data update");
    CHECK(EVP_EncryptFinal_ex(ctx, out, &outl), "final after the refused update");
    /* ... which "speed" allows: each update a whole message under the same nonce and AAD. */
    OSSL_PARAM speed[] = {OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_SPEED, &(unsigned){1}),
                          OSSL_PARAM_construct_end()};
    CHECK(EVP_EncryptInit_ex2(ctx, NULL, m.key, m.nonce, speed), "init with speed");
    uint8_t a[32], b[32];
    CHECK(EVP_EncryptUpdate(ctx, a, &outl, m.pt, 32) && EVP_EncryptUpdate(ctx, b, &outl, m.pt, 32)
              && memcmp(a, b, 32) == 0,
          "speed: two updates are two equal messages");

    /* Tags: 16 bytes only; read only after sealing. */
    EVP_CIPHER_CTX *d = EVP_CIPHER_CTX_new();
    CHECK(EVP_DecryptInit_ex2(d, c, m.key, m.nonce, NULL), "decrypt init");
    REFUSED(EVP_CIPHER_CTX_ctrl(d, EVP_CTRL_AEAD_SET_TAG, 12, tag) > 0, "a 12-byte tag accepted");
    REFUSED(EVP_CIPHER_CTX_ctrl(d, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0,
            "a tag read while decrypting");
    REFUSED(EVP_DecryptFinal_ex(d, out, &outl), "decrypt final without a tag");
    CHECK(EVP_EncryptInit_ex2(ctx, NULL, m.key, m.nonce, NULL), "init");
    REFUSED(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0,
            "a tag read before sealing");
    REFUSED(EVP_EncryptInit_ex2(ctx, NULL, m.key, m.nonce, NULL)
                && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 8, tag) > 0,
            "an 8-byte tag read");
    EVP_CIPHER_CTX_free(d);
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
}

/* RFC 8452 C.1 (the 8-byte plaintext case) sealed and opened through EVP alone, as an
 * application on OpenSSL 3.0 would; the tag through EVP_CIPHER_CTX_ctrl. */
static void test_rfc_round_trip(void)
{
    size_t n;
    uint8_t *key = tu_hex_decode("01000000000000000000000000000000", &n);
    uint8_t *nonce = tu_hex_decode("030000000000000000000000", &n);
    uint8_t *pt = tu_hex_decode("0100000000000000", &n);
    uint8_t *want = tu_hex_decode("b5d839330ac7b786578782fff6013b815b287c22493a364c", &n);
    uint8_t ct[8], tag[16], back[8];
    EVP_CIPHER *c = fetch("aesfast", 16);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl;

    CHECK(EVP_EncryptInit_ex2(ctx, c, key, nonce, NULL) && EVP_EncryptUpdate(ctx, ct, &outl, pt, 8)
              && EVP_EncryptFinal_ex(ctx, ct, &outl)
              && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0,
          "RFC 8452 C.1: seal");
    CHECK(memcmp(ct, want, 8) == 0 && memcmp(tag, want + 8, 16) == 0,
          "RFC 8452 C.1: ciphertext or tag differs");
    CHECK(EVP_DecryptInit_ex2(ctx, c, key, nonce, NULL)
              && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) > 0
              && EVP_DecryptUpdate(ctx, back, &outl, ct, 8) && EVP_DecryptFinal_ex(ctx, back, &outl)
              && memcmp(back, pt, 8) == 0,
          "RFC 8452 C.1: open");
    CHECK(EVP_CIPHER_get_mode(c) != 0 && EVP_CIPHER_get_iv_length(c) == 12
              && (EVP_CIPHER_get_flags(c) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0,
          "mode, iv length or AEAD flag");
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
    free(key);
    free(nonce);
    free(pt);
    free(want);
}

int main(int argc, char **argv)
{
    const char *expect = NULL;
    tu_providers p;

    tu_init("gcmsiv_api");
    tu_rng_seed(&rng, 0x5117, 0);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--expect-kernel") == 0 && i + 1 < argc)
            expect = argv[++i];
        else
            tu_die("usage: gcmsiv_api [--expect-kernel TIER]");
    }
    tu_providers_load(&p, "aesfast", expect);
    EVP_CIPHER *ref = EVP_CIPHER_fetch(NULL, "AES-128-GCM-SIV", "provider=default");
    have_ref = ref != NULL;
    EVP_CIPHER_free(ref);
    ERR_clear_error();
    printf("gcmsiv_api: %s, kernel %s; the default provider %s GCM-SIV\n",
           OpenSSL_version(OPENSSL_VERSION), p.kernel, have_ref ? "has" : "has no");

    for (size_t i = 0; i < sizeof(differences) / sizeof(differences[0]); i++) {
        int ours = differences[i].safe("aesfast");
        CHECK(ours, "aesfast is not safe here: %s", differences[i].what);
        if (have_ref) {
            int theirs = differences[i].safe("default");
            if (OpenSSL_version_num() < KNOWN_UNSAFE_BEFORE)
                CHECK(!theirs, "the default provider is now safe here too (drop it from the "
                      "man page's list of differences): %s", differences[i].what);
            printf("gcmsiv_api: %-66s aesfast %s, default %s\n", differences[i].what,
                   ours ? "safe" : "UNSAFE",
                   !theirs ? "unsafe" : OpenSSL_version_num() < KNOWN_UNSAFE_BEFORE
                   ? "safe"
                   : "safe (fixed in this newer OpenSSL: provider-aesfast(7) must say so)");
        } else {
            printf("gcmsiv_api: %-66s aesfast %s\n", differences[i].what, ours ? "safe" : "UNSAFE");
        }
    }
    test_bad_input();
    test_rfc_round_trip();
    tu_providers_unload(&p);
    return check_summary("gcmsiv_api");
}
