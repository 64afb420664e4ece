/*
 * gcm_api: aesfast's AES-*-GCM, side by side with OpenSSL's default provider, through the public
 * EVP API (OpenSSL 3.0 functions only, so the same binary runs on 3.0 and 3.5 libcrypto).
 *
 * As in ctr_api, "correct" means "does what the default provider does": every scenario runs on a
 * context of the provider under test (T) and one of the default provider (R), in one process, on
 * the same inputs, and compares return codes, output, tags and the context parameters (keylen,
 * ivlen, taglen, iv, updated-iv, iv-generated) after each step. Refusals must happen in the same
 * places; aesfast raises its own reasons, so only success or failure is compared, and after every
 * refusal by aesfast an error with a reason string must be on the queue (even where default fails
 * silently, as its GCM final does). Where the two legitimately differ, the input is on the
 * allow-list below (the D_* strings), and T must refuse it with that reason.
 *
 * What is covered: the algorithm parameters, names, aliases and OIDs; IV lengths 1..128 (0 and
 * 129 refused) by ctrl and by parameter; AAD and data in many updates of any length, in place;
 * EVP_CIPHER_CTX_copy mid-stream; re-init with a new key, a new IV only, or neither; the tag
 * (set only when decrypting, read only after an encrypt final, 1..16 bytes); the generated IV
 * when encrypting without one, the refusal to reuse a finished IV, "iv"/"updated-iv"; the TLS 1.2
 * record path ("tlsaad", "tlsivfixed", "tlsivgen", "tlsivinv", EVP_Cipher over explicit nonce ||
 * payload || tag, in place, the payload wiped on a tag failure); the TLS 1.3/QUIC per-record
 * path (IV-only re-init) allocating nothing; the length limits (2^36 - 32 bytes of data and
 * 2^61 bytes of AAD per IV) through the provider's own size_t interface; and bad input.
 *
 *   OPENSSL_CONF=aesfast.cnf ./gcm_api [--provider NAME]      (NAME defaults to aesfast)
 *
 * With --provider default it compares default with itself, which checks the test's own logic.
 * Prints "gcm_api: N passed, M failed" and exits 1 on any failure.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS under -std=c11 */

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <setjmp.h>
#include <unistd.h>

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include "apitest.h"

/* OpenSSL 3.0's headers lack these; 3.0's default provider ignores "iv-generated". */
#ifndef OSSL_CIPHER_PARAM_AEAD_IV_GENERATED
#define OSSL_CIPHER_PARAM_AEAD_IV_GENERATED "iv-generated"
#endif

static OSSL_PROVIDER *pdef, *ptest;

/*
 * The allow-list: inputs that default accepts and aesfast refuses on purpose. Anything else
 * aesfast refuses while default accepts it is a failure. A scenario names the one deliberate
 * refusal it may meet by setting `deliberate` to its reason string around the call.
 */
#define D_NONE NULL
/* A new key without a new IV in the middle of a message (EVP_CipherInit_ex2(ctx, NULL, key,
 * NULL, ...) after some data): default's re-key runs CRYPTO_gcm128_init, which zeroes the whole
 * GCM state, IV included, while its IV state stays "in use"; so it goes on from an all-zero
 * counter block, with an all-zero tag mask at final. aesfast refuses until a new IV is set. */
#define D_REKEY_MID_MESSAGE "iv already used"
/* An init in the middle of a message, even one that gives neither key nor IV: default's init
 * only sets the direction and carries on with the message (its keystream included, if the
 * direction switched); aesfast's ends the message, and a new IV is needed (test/gcm_state.c). */
#define D_INIT_ENDS_MESSAGE "iv already used"
/* The tag of an earlier message, read after a new one began: default returns whatever its tag
 * buffer holds; aesfast gives a tag only after the encrypt final of the current message. */
#define D_TAG_OF_EARLIER_MESSAGE "invalid tag"
/* Going on after a decrypt final that failed tag verification: default finishes the IV only on
 * a successful final, so after a failed one it takes more data (and a re-key without an IV,
 * above) under the same IV; aesfast finishes the message either way. */
#define D_AFTER_FAILED_FINAL "iv already used"
/* An update with in == NULL and a length > 0 (out != NULL): default's GCM takes in == NULL as
 * "final" (it computes the tag and finishes the IV, outputs nothing, returns success); aesfast
 * refuses an input buffer that is missing. */
#define D_NULL_INPUT "null buffer"
/* Output one byte past the input (a partial overlap; in place is fine): default goes ahead, and
 * what it writes depends on its block order; aesfast refuses. */
#define D_OVERLAP "partially overlap"

/* ---- allocation counting (the TLS 1.3 path) ------------------------------------------------ */

/* Installed first thing in main(): OpenSSL's allocations are counted while `counting` is set,
 * with the source file of the last few, to tell libcrypto's from a provider's. */
static int counting;
static unsigned long nallocs;
static char alloc_where[4][96];

static void count_alloc(const char *file, int line)
{
    if (!counting)
        return;
    snprintf(alloc_where[nallocs & 3], sizeof(alloc_where[0]), "%s:%d", file ? file : "?", line);
    nallocs++;
}

static void *hook_malloc(size_t n, const char *file, int line)
{
    count_alloc(file, line);
    return malloc(n != 0 ? n : 1);
}

static void *hook_realloc(void *p, size_t n, const char *file, int line)
{
    count_alloc(file, line);
    return realloc(p, n);
}

static void hook_free(void *p, const char *file, int line)
{
    (void)file;
    (void)line;
    free(p);
}

/* ---- helpers ----------------------------------------------------------------------------- */

/* Context parameters that should track each other between R and T after every step. */
struct ctxstate {
    int ok_kl, ok_il, ok_tl, ok_iv, ok_uiv, ok_gen;
    size_t kl, il, tl, ivsz, uivsz;
    unsigned char iv[128], uiv[128];
    unsigned int gen;
    int evp_kl, evp_il, evp_tl;
};

static int get_size(EVP_CIPHER_CTX *c, const char *key, size_t *v)
{
    OSSL_PARAM p[2] = { OSSL_PARAM_size_t(key, v), OSSL_PARAM_END };

    return EVP_CIPHER_CTX_get_params(c, p) && OSSL_PARAM_modified(&p[0]);
}

static int get_octets(EVP_CIPHER_CTX *c, const char *key, unsigned char *buf, size_t cap,
                      size_t *len)
{
    OSSL_PARAM p[2] = { OSSL_PARAM_octet_string(key, buf, cap), OSSL_PARAM_END };
    int ok = EVP_CIPHER_CTX_get_params(c, p) && OSSL_PARAM_modified(&p[0]);

    *len = ok ? p[0].return_size : 0;
    return ok;
}

static void get_state(EVP_CIPHER_CTX *c, struct ctxstate *s)
{
    OSSL_PARAM p[2] = { OSSL_PARAM_END, OSSL_PARAM_END };

    memset(s, 0, sizeof(*s));
    s->ok_kl = get_size(c, OSSL_CIPHER_PARAM_KEYLEN, &s->kl);
    s->ok_il = get_size(c, OSSL_CIPHER_PARAM_IVLEN, &s->il);
    s->ok_tl = get_size(c, OSSL_CIPHER_PARAM_AEAD_TAGLEN, &s->tl);
    s->ok_iv = get_octets(c, OSSL_CIPHER_PARAM_IV, s->iv, sizeof(s->iv), &s->ivsz);
    s->ok_uiv = get_octets(c, OSSL_CIPHER_PARAM_UPDATED_IV, s->uiv, sizeof(s->uiv), &s->uivsz);
    p[0] = OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_AEAD_IV_GENERATED, &s->gen);
    s->ok_gen = EVP_CIPHER_CTX_get_params(c, p) && OSSL_PARAM_modified(&p[0]);
    s->evp_kl = EVP_CIPHER_CTX_get_key_length(c);
    s->evp_il = EVP_CIPHER_CTX_get_iv_length(c);
    s->evp_tl = EVP_CIPHER_CTX_get_tag_length(c);
    ERR_clear_error();
}

/* Set while libcrypto 3.5's cached key length may be stale (a length accepted and ignored). */
static int cache_stale;

/* Every step of the harness (apitest.h: init2, data2, final2, setparams2) and the GCM steps
 * below end here, on GCM's parameters. */
void compare_state(const char *what, EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t)
{
    struct ctxstate a, b;

    get_state(r, &a);
    get_state(t, &b);
    CHECK(b.ok_kl && b.kl == a.kl, "%s: keylen %zu (ok=%d), default %zu", what, b.kl, b.ok_kl,
          a.kl);
    CHECK(b.ok_il && b.il == a.il, "%s: ivlen %zu (ok=%d), default %zu", what, b.il, b.ok_il,
          a.il);
    CHECK(b.ok_tl == a.ok_tl && b.tl == a.tl, "%s: taglen %zu (ok=%d), default %zu (ok=%d)", what,
          b.tl, b.ok_tl, a.tl, a.ok_tl);
    /* libcrypto's view (3.5 caches some of it) must agree with the provider's own answer. */
    if (!cache_stale)
        CHECK(b.evp_kl == (int)b.kl, "%s: EVP_CIPHER_CTX_get_key_length %d, provider says %zu",
              what, b.evp_kl, b.kl);
    CHECK(b.evp_il == (int)b.il && b.evp_il == a.evp_il, "%s: EVP_CIPHER_CTX_get_iv_length %d, "
          "provider says %zu, default %d", what, b.evp_il, b.il, a.evp_il);
    CHECK(b.evp_tl == a.evp_tl, "%s: EVP_CIPHER_CTX_get_tag_length %d, default %d", what,
          b.evp_tl, a.evp_tl);
    /* Both IVs drawn at random (a scenario's generated IV, or OpenSSL 4's IV drawn when "iv" is
     * read before there is one, which aesfast does too under 4.x): their values differ. */
    int drawn = random_iv || (a.ok_gen && b.ok_gen && a.gen && b.gen);
    if (a.ok_iv)
        CHECK(b.ok_iv && b.ivsz == a.ivsz && (drawn || memcmp(a.iv, b.iv, a.ivsz) == 0),
              "%s: iv %s (%zu bytes, ok=%d), default %s (%zu)", what, hex(b.iv, b.ivsz), b.ivsz,
              b.ok_iv, hex(a.iv, a.ivsz), a.ivsz);
    if (a.ok_uiv)
        CHECK(b.ok_uiv && b.uivsz == a.uivsz && (drawn || memcmp(a.uiv, b.uiv, a.uivsz) == 0),
              "%s: updated-iv %s (%zu bytes, ok=%d), default %s (%zu)", what, hex(b.uiv, b.uivsz),
              b.uivsz, b.ok_uiv, hex(a.uiv, a.uivsz), a.uivsz);
    /* provider-aesfast(7), "iv-generated per IV": once the application gives an IV, aesfast says 0 where
     * the default provider (3.5 and later) still says 1. The IVs, compared above by value
     * (aesfast's 0 makes them not "drawn"), then show that the IV was the application's. */
    if (a.ok_gen)
        CHECK(b.ok_gen && (b.gen == a.gen || (a.gen == 1 && b.gen == 0 && !random_iv)),
              "%s: iv-generated %u (ok=%d), default %u", what, b.gen, b.ok_gen, a.gen);
}

/* AES-GCM with a fresh default context: the reference answer. enc: in -> out, tag out; !enc:
 * tag in, returns whether it verified. */
static int ref_gcm(int ki, int enc, const unsigned char *key, const unsigned char *iv,
                   size_t ivlen, const unsigned char *aad, size_t alen, const unsigned char *in,
                   size_t len, unsigned char *out, unsigned char *tag, size_t taglen)
{
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    int ol = 0, fl = 0, ok;

    ok = x != NULL && EVP_CipherInit_ex2(x, R[ki], NULL, NULL, enc, NULL)
         && EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_IVLEN, (int)ivlen, NULL) > 0
         && EVP_CipherInit_ex2(x, NULL, key, iv, enc, NULL)
         && (alen == 0 || EVP_CipherUpdate(x, NULL, &ol, aad, (int)alen))
         && EVP_CipherUpdate(x, out, &ol, in, (int)len)
         && (enc || EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, (int)taglen, tag) > 0)
         && EVP_CipherFinal_ex(x, out + ol, &fl)
         && (!enc || EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, (int)taglen, tag) > 0);
    EVP_CIPHER_CTX_free(x);
    ERR_clear_error();
    return ok;
}

/* AAD: an update with out == NULL. */
static int aad2(const char *what, EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t, const unsigned char *aad,
                size_t len)
{
    int rl = -1, tl = -1, rr, tr, re, te;

    RUN(rr, re, EVP_CipherUpdate(r, NULL, &rl, aad, (int)len));
    RUN(tr, te, EVP_CipherUpdate(t, NULL, &tl, aad, (int)len));
    if (!outcome(what, rr, re, tr, te))
        return 0;
    CHECK(tl == rl, "%s: outl %d, default %d", what, tl, rl);
    compare_state(what, r, t);
    return 1;
}

/* EVP_CTRL_AEAD_GET_TAG of len bytes from both; compares the tags (unless random_iv). */
static int gettag2(const char *what, EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t, int len,
                   unsigned char *tag_out)
{
    unsigned char rb[40], tb[40];
    int rr, tr, re, te;

    memset(rb, 0x5A, sizeof(rb));
    memset(tb, 0x5A, sizeof(tb));
    RUN(rr, re, EVP_CIPHER_CTX_ctrl(r, EVP_CTRL_AEAD_GET_TAG, len, rb));
    RUN(tr, te, EVP_CIPHER_CTX_ctrl(t, EVP_CTRL_AEAD_GET_TAG, len, tb));
    if (len >= 0 && len < 40)
        CHECK(tb[len] == 0x5A, "%s: get tag(%d) wrote past %d bytes", what, len, len);
    if (!outcome(what, rr, re, tr, te))
        return 0;
    if (!random_iv && len > 0 && len <= 40)
        CHECK(memcmp(rb, tb, (size_t)len) == 0, "%s: tag %s, default %s", what,
              hex(tb, (size_t)len), hex(rb, (size_t)len));
    if (tag_out != NULL)
        memcpy(tag_out, tb, (size_t)len);
    return 1;
}

static int settag2(const char *what, EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t, int len,
                   const unsigned char *tag)
{
    unsigned char rb[40], tb[40];
    size_t n = len < 0 ? 0 : len > 40 ? 40 : (size_t)len;
    int rr, tr, re, te;

    /* The ctrl takes a non-const pointer: give each side its own copy. */
    memset(rb, 0, sizeof(rb));
    memcpy(rb, tag, n);
    memcpy(tb, rb, sizeof(tb));
    RUN(rr, re, EVP_CIPHER_CTX_ctrl(r, EVP_CTRL_AEAD_SET_TAG, len, rb));
    RUN(tr, te, EVP_CIPHER_CTX_ctrl(t, EVP_CTRL_AEAD_SET_TAG, len, tb));
    if (!outcome(what, rr, re, tr, te))
        return 0;
    compare_state(what, r, t);
    return 1;
}

/* A ctrl with an integer result (1, or the TLS AAD's pad length) and an in/out buffer of n bytes,
 * a copy of buf for each side; compares results and, when out_n > 0, the buffers. */
static int ctrl2(const char *what, EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t, int type, int arg,
                 const unsigned char *buf, size_t n, size_t out_n)
{
    unsigned char rb[160], tb[160];
    int rr, tr, re, te;

    memset(rb, 0, sizeof(rb));
    if (buf != NULL)
        memcpy(rb, buf, n);
    memcpy(tb, rb, sizeof(tb));
    RUN(rr, re, EVP_CIPHER_CTX_ctrl(r, type, arg, buf != NULL ? rb : NULL));
    RUN(tr, te, EVP_CIPHER_CTX_ctrl(t, type, arg, buf != NULL ? tb : NULL));
    if (!outcome(what, rr, re, tr, te))
        return 0;
    CHECK(rr == tr, "%s: returns %d, default %d", what, tr, rr);
    if (out_n > 0 && !random_iv)
        CHECK(memcmp(rb, tb, out_n) == 0, "%s: %s, default %s", what, hex(tb, out_n),
              hex(rb, out_n));
    compare_state(what, r, t);
    return 1;
}

/* A whole message on both: AAD, data, final, and on encrypt the 16-byte tag, on decrypt the tag
 * set before final. Returns 1 if every step succeeded on both. */
static int message2(const char *what, EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t, int enc,
                    const unsigned char *aad, size_t alen, const unsigned char *in, size_t len,
                    unsigned char *tag)
{
    char w[128];

    snprintf(w, sizeof(w), "%s: %zu bytes AAD", what, alen);
    if (alen > 0 && !aad2(w, r, t, aad, alen))
        return 0;
    snprintf(w, sizeof(w), "%s: %zu bytes data", what, len);
    if (!data2(w, r, t, in, len, 0))
        return 0;
    snprintf(w, sizeof(w), "%s: set tag", what);
    if (!enc && !settag2(w, r, t, 16, tag))
        return 0;
    snprintf(w, sizeof(w), "%s: final", what);
    if (!final2(w, r, t))
        return 0;
    snprintf(w, sizeof(w), "%s: get tag", what);
    return !enc || gettag2(w, r, t, 16, tag);
}

/* ---- scenarios --------------------------------------------------------------------------- */

static void t_names(int ki)
{
    static const char *const ids[3][3] = {
        { "AES-128-GCM", "id-aes128-GCM", "2.16.840.1.101.3.4.1.6" },
        { "AES-192-GCM", "id-aes192-GCM", "2.16.840.1.101.3.4.1.26" },
        { "AES-256-GCM", "id-aes256-GCM", "2.16.840.1.101.3.4.1.46" },
    };
    int i;

    scope = "names";
    compare_names(R[ki], T[ki], ids[ki][0]);
    /* The names, alias and OID of the issue, spelled out: not only whatever default lists. */
    for (i = 0; i < 3; i++) {
        EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, ids[ki][i], tprop);

        CHECK(c != NULL && strcmp(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c)), tname) == 0,
              "fetch \"%s\" with %s", ids[ki][i], tprop);
        CHECK(c != NULL && EVP_CIPHER_is_a(c, ids[ki][0]), "\"%s\" fetched is not %s", ids[ki][i],
              ids[ki][0]);
        CHECK(EVP_CIPHER_is_a(T[ki], ids[ki][i]) && EVP_CIPHER_is_a(R[ki], ids[ki][i]),
              "EVP_CIPHER_is_a(%s): %d, default %d", ids[ki][i], EVP_CIPHER_is_a(T[ki], ids[ki][i]),
              EVP_CIPHER_is_a(R[ki], ids[ki][i]));
        EVP_CIPHER_free(c);
        ERR_clear_error();
    }
    /* And not another mode or size. */
    CHECK(!EVP_CIPHER_is_a(T[ki], ids[(ki + 1) % 3][0]) && !EVP_CIPHER_is_a(T[ki], "AES-128-CTR"),
          "EVP_CIPHER_is_a says yes to another cipher");
}

static void t_cipher_params(int ki)
{
    static const char *const need_g[] = { OSSL_CIPHER_PARAM_MODE, OSSL_CIPHER_PARAM_KEYLEN,
        OSSL_CIPHER_PARAM_IVLEN, OSSL_CIPHER_PARAM_BLOCK_SIZE, OSSL_CIPHER_PARAM_AEAD,
        OSSL_CIPHER_PARAM_CUSTOM_IV, NULL };
    static const char *const need_cg[] = { OSSL_CIPHER_PARAM_KEYLEN, OSSL_CIPHER_PARAM_IVLEN,
        OSSL_CIPHER_PARAM_AEAD_TAGLEN, OSSL_CIPHER_PARAM_IV, OSSL_CIPHER_PARAM_UPDATED_IV,
        OSSL_CIPHER_PARAM_AEAD_TAG, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD,
        OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, NULL };
    static const char *const need_cs[] = { OSSL_CIPHER_PARAM_AEAD_TAG,
        OSSL_CIPHER_PARAM_AEAD_IVLEN, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD,
        OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, NULL };
    static const struct api_flag flags[] = {
        { OSSL_CIPHER_PARAM_AEAD, 1 }, { OSSL_CIPHER_PARAM_CUSTOM_IV, 1 },
        { OSSL_CIPHER_PARAM_CTS, 0 }, { OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, 0 },
        { OSSL_CIPHER_PARAM_HAS_RAND_KEY, 0 },
        { "encrypt-then-mac", 0 }, /* 3.6+: the default provider answers it; older ones do not */
    };
    static const struct api_cipher_want want = { EVP_CIPH_GCM_MODE, 12, flags,
        sizeof(flags) / sizeof(flags[0]), need_g, need_cg, need_cs };

    api_cipher_params(ki, &want);
}

/*
 * AAD in ragged updates (out == NULL), then data in ragged updates, final, tag; in both
 * directions, in place or not. Decrypting takes default's one-shot ciphertext and tag, with the
 * tag set before the data (as an application that has it up front does).
 */
static void t_stream(int ki, int enc, int inplace)
{
    static const size_t achunks[] = { 0, 1, 15, 16, 17, 3, 31, 64, 5, 0, 255, 2 };
    static const size_t dchunks[] = { 0, 1, 15, 16, 17, 3, 31, 64, 5, 255, 256, 1, 129, 0, 2000,
        7, 48, 96, 97, 4096 };
    static unsigned char aad[512], msg[8192], ct[8192];
    unsigned char key[32], iv[12], tag[16];
    EVP_CIPHER_CTX *r = EVP_CIPHER_CTX_new(), *t = EVP_CIPHER_CTX_new();
    size_t i, off = 0, aoff = 0, alen = 0, dlen = 0;
    char what[64];

    scope = enc ? (inplace ? "stream-encrypt-inplace" : "stream-encrypt")
                : (inplace ? "stream-decrypt-inplace" : "stream-decrypt");
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    fill(aad, sizeof(aad));
    fill(msg, sizeof(msg));
    for (i = 0; i < sizeof(achunks) / sizeof(achunks[0]); i++)
        alen += achunks[i];
    for (i = 0; i < sizeof(dchunks) / sizeof(dchunks[0]); i++)
        dlen += dchunks[i];
    CHECK(ref_gcm(ki, 1, key, iv, 12, aad, alen, msg, dlen, ct, tag, 16), "reference seal");
    if (init2("init key+iv", r, t, ki, enc, key, iv, 1)) {
        if (!enc)
            settag2("set tag first", r, t, 16, tag);
        for (i = 0; i < sizeof(achunks) / sizeof(achunks[0]); i++) {
            snprintf(what, sizeof(what), "AAD %zu bytes at %zu", achunks[i], aoff);
            aad2(what, r, t, aad + aoff, achunks[i]);
            aoff += achunks[i];
        }
        for (i = 0; i < sizeof(dchunks) / sizeof(dchunks[0]); i++) {
            snprintf(what, sizeof(what), "update %zu bytes at %zu", dchunks[i], off);
            data2(what, r, t, (enc ? msg : ct) + off, dchunks[i], inplace);
            off += dchunks[i];
        }
        if (final2("final", r, t) && enc)
            gettag2("tag", r, t, 16, NULL);
    }
    /* The whole stream on T alone equals default's one shot. */
    {
        static unsigned char o[8192];
        unsigned char tt[16];
        int l = 0, ok;

        EVP_CIPHER_CTX_reset(t);
        ok = EVP_CipherInit_ex2(t, T[ki], key, iv, enc, NULL)
             && (enc || EVP_CIPHER_CTX_ctrl(t, EVP_CTRL_AEAD_SET_TAG, 16, tag) > 0);
        for (i = 0, aoff = 0; ok && i < sizeof(achunks) / sizeof(achunks[0]); i++) {
            ok = EVP_CipherUpdate(t, NULL, &l, aad + aoff, (int)achunks[i]);
            aoff += achunks[i];
        }
        for (i = 0, off = 0; ok && i < sizeof(dchunks) / sizeof(dchunks[0]); i++) {
            memcpy(o + off, (enc ? msg : ct) + off, dchunks[i]);
            ok = EVP_CipherUpdate(t, o + off, &l, inplace ? o + off : (enc ? msg : ct) + off,
                                  (int)dchunks[i]);
            off += dchunks[i];
        }
        ok = ok && EVP_CipherFinal_ex(t, o + off, &l)
             && (!enc || EVP_CIPHER_CTX_ctrl(t, EVP_CTRL_AEAD_GET_TAG, 16, tt) > 0);
        CHECK(ok && memcmp(o, enc ? ct : msg, dlen) == 0 && (!enc || memcmp(tt, tag, 16) == 0),
              "chunked %s on %s alone differs from default's one shot", enc ? "seal" : "open",
              tname);
        ERR_clear_error();
    }
    free2(r, t);
}

/*
 * Bulk updates: a message of 100 blocks and 7 bytes in updates of k = 1..9 whole blocks (the
 * stream queues runs of up to 7 for the hash and hashes the queue every 32 blocks, so every k
 * crosses that point several times, at every place in a run), once with a 1-byte and a 15-byte
 * update between them (a partial block, then whole blocks again); each update, the final and
 * the tag as default's.
 */
static void t_bulk(int ki, int enc)
{
    enum { BLOCKS = 100, TAIL = 7, SPLIT_AT = 40 * 16 };
    static unsigned char aad[13], msg[BLOCKS * 16 + TAIL], ct[sizeof(msg)];
    unsigned char key[32], iv[12], tag[16];
    EVP_CIPHER_CTX *r = EVP_CIPHER_CTX_new(), *t = EVP_CIPHER_CTX_new();
    char what[96];

    scope = enc ? "bulk-encrypt" : "bulk-decrypt";
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    fill(aad, sizeof(aad));
    fill(msg, sizeof(msg));
    CHECK(ref_gcm(ki, 1, key, iv, 12, aad, sizeof(aad), msg, sizeof(msg), ct, tag, 16),
          "reference seal");
    for (size_t k = 1; k <= 9; k++) {
        for (int split = 0; split < 2; split++) {
            const unsigned char *in = enc ? msg : ct;
            size_t off = 0, n;

            reset2(r, t);
            if (!init2("init", r, t, ki, enc, key, iv, 1)
                || !aad2("AAD", r, t, aad, sizeof(aad)))
                continue;
            while (off < sizeof(msg)) {
                n = sizeof(msg) - off < k * 16 ? sizeof(msg) - off : k * 16;
                if (split && off == SPLIT_AT)
                    n = 1;
                else if (split && off == SPLIT_AT + 1)
                    n = 15;
                snprintf(what, sizeof(what), "runs of %zu blocks%s: %zu bytes at %zu", k,
                         split ? ", split" : "", n, off);
                if (!data2(what, r, t, in + off, n, (int)k & 1))
                    break;
                off += n;
            }
            if (off < sizeof(msg) || (!enc && !settag2("set tag", r, t, 16, tag)))
                continue;
            snprintf(what, sizeof(what), "runs of %zu blocks%s: final", k, split ? ", split" : "");
            if (final2(what, r, t) && enc)
                gettag2(what, r, t, 16, NULL);
        }
    }
    free2(r, t);
}

/* Every length from 0 to 300 in one update, AAD of every length from 0 to 80, and a few large
 * ones: one-shot seal on T equals default, and T opens it (a wrong tag fails). */
static void t_lengths(int ki)
{
    static unsigned char msg[70000], a[70000], want[70000], aad[300];
    unsigned char key[32], iv[12], tag[16], ttag[16];
    size_t n, fails = 0;

    scope = "lengths";
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    fill(msg, sizeof(msg));
    fill(aad, sizeof(aad));
    for (n = 0; n <= 66000 && fails < 5; n += n < 300 ? 1 : 4111) {
        EVP_CIPHER_CTX *t = EVP_CIPHER_CTX_new();
        size_t alen = n % 81;
        int l = 0, ok;

        ref_gcm(ki, 1, key, iv, 12, aad, alen, msg, n, want, tag, 16);
        ok = EVP_EncryptInit_ex2(t, T[ki], key, iv, NULL)
             && (alen == 0 || EVP_EncryptUpdate(t, NULL, &l, aad, (int)alen))
             && EVP_EncryptUpdate(t, a, &l, msg, (int)n) && (size_t)l == n
             && EVP_EncryptFinal_ex(t, a + n, &l)
             && EVP_CIPHER_CTX_ctrl(t, EVP_CTRL_AEAD_GET_TAG, 16, ttag) > 0;
        if (!CHECK(ok && memcmp(a, want, n) == 0 && memcmp(tag, ttag, 16) == 0,
                   "seal %zu bytes, %zu AAD: %s", n, alen, ok ? "differs from default" : "failed"))
            fails++;
        /* Open in place; then again with a flipped tag bit, which must fail. */
        ok = EVP_DecryptInit_ex2(t, NULL, key, iv, NULL)
             && (alen == 0 || EVP_DecryptUpdate(t, NULL, &l, aad, (int)alen))
             && EVP_DecryptUpdate(t, a, &l, a, (int)n)
             && EVP_CIPHER_CTX_ctrl(t, EVP_CTRL_AEAD_SET_TAG, 16, tag) > 0
             && EVP_DecryptFinal_ex(t, a + n, &l);
        if (!CHECK(ok && memcmp(a, msg, n) == 0, "open %zu bytes in place", n))
            fails++;
        tag[n % 16] ^= (unsigned char)(1u << (n % 8));
        ok = EVP_DecryptInit_ex2(t, NULL, key, iv, NULL)
             && (alen == 0 || EVP_DecryptUpdate(t, NULL, &l, aad, (int)alen))
             && EVP_DecryptUpdate(t, a, &l, want, (int)n)
             && EVP_CIPHER_CTX_ctrl(t, EVP_CTRL_AEAD_SET_TAG, 16, tag) > 0;
        if (!CHECK(ok && !EVP_DecryptFinal_ex(t, a + n, &l), "open %zu bytes with a wrong tag "
                   "must fail at final", n))
            fails++;
        ERR_clear_error();
        EVP_CIPHER_CTX_free(t);
    }
}

/*
 * One message on T in the given pieces: AAD in the pieces achunks (0-terminated, alen bytes in
 * all), data in the pieces dchunks (len bytes), in place or out of place at offset off; sealing
 * (tag out) or opening (tag in; set before the AAD or after the data), 1 if every call
 * succeeded and the output is want (sealing: and the tag is the tag given).
 */
static int t_message(int ki, int enc, int tag_first, const unsigned char *key,
                     const unsigned char *iv, const unsigned char *aad, const size_t *achunks,
                     const unsigned char *in, size_t len, const size_t *dchunks, int inplace,
                     size_t off, const unsigned char *want, unsigned char *tag)
{
    static unsigned char buf[4096 + 64], out[4096 + 64];
    EVP_CIPHER_CTX *t = EVP_CIPHER_CTX_new();
    unsigned char *o = (inplace ? buf : out) + off, *src = buf + off, tt[16];
    size_t pos = 0, apos = 0;
    int l = 0, ok;

    memcpy(src, in, len);
    ok = t != NULL && EVP_CipherInit_ex2(t, T[ki], key, iv, enc, NULL)
         && (enc || !tag_first || EVP_CIPHER_CTX_ctrl(t, EVP_CTRL_AEAD_SET_TAG, 16, tag) > 0);
    for (size_t i = 0; ok && achunks[i] != 0; i++) {
        ok = EVP_CipherUpdate(t, NULL, &l, aad + apos, (int)achunks[i]);
        apos += achunks[i];
    }
    for (size_t i = 0; ok && pos < len; i++) {
        size_t n = dchunks[i] == 0 || dchunks[i] > len - pos ? len - pos : dchunks[i];

        ok = EVP_CipherUpdate(t, o + pos, &l, src + pos, (int)n) && (size_t)l == n;
        pos += n;
    }
    ok = ok && (enc || tag_first || EVP_CIPHER_CTX_ctrl(t, EVP_CTRL_AEAD_SET_TAG, 16, tag) > 0)
         && EVP_CipherFinal_ex(t, o + len, &l)
         && (!enc || (EVP_CIPHER_CTX_ctrl(t, EVP_CTRL_AEAD_GET_TAG, 16, tt) > 0
                      && memcmp(tt, tag, 16) == 0))
         && memcmp(o, want, len) == 0;
    EVP_CIPHER_CTX_free(t);
    ERR_clear_error();
    return ok;
}

/*
 * The one-call path (GCM's first data update is the whole message: the queued AAD, the data,
 * the lengths block and E(J0) in one kernel call, or the tier's composition of it) and what
 * leaves it: every data length of 0..65 blocks, with no AAD (data only) and with TLS 1.3's 5,
 * TLS 1.2's 13 and 17 bytes of it; AAD alone of every length to 37 blocks; AAD and data around
 * the bounds of the tiers' one pass (a group of 8 blocks on aesni, 32 on vaes-avx512, with the
 * lengths block) and of the AAD queue (31 blocks); the AAD in pieces; a second and third data
 * update after a short first one; sealed (and the tag read) and opened with the tag set before
 * the AAD and after the data, in place and out of place at every offset, each against default's
 * one shot; a wrong tag refused.
 */
static void t_one_call(int ki)
{
    static unsigned char aad[1024], msg[4096], want[4096];
    static const size_t bound_aad[] = {0, 1, 13, 15, 16, 17, 31, 32, 33, 95, 96, 97, 111, 112,
                                       113, 463, 464, 465, 479, 480, 481, 495, 496, 497, 511,
                                       512, 513};
    static const size_t bound_data[] = {0, 1, 15, 16, 17, 79, 80, 81, 95, 96, 97, 111, 112, 113,
                                        447, 448, 449, 463, 464, 465, 479, 480, 481, 495, 496,
                                        497, 511, 512, 513, 1008, 2047};
    static const size_t splits[][4] = {{1, 0}, {13, 0}, {16, 0}, {17, 0}, {100, 0}, {480, 0},
                                       {481, 0}, {512, 0}, {1, 1, 0}, {16, 16, 0}, {15, 17, 0},
                                       {300, 1, 0}, {5, 2000, 0}};
    unsigned char key[32], iv[12], tag[16], bad[16];
    size_t fails = 0, cases = 0;

    scope = "one-call";
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    fill(aad, sizeof(aad));
    fill(msg, sizeof(msg));
    for (int part = 0; part < 4 && fails < 5; part++) {
        size_t n_cases = part == 0 ? 4 * 1041 : part == 1 ? 593
                         : part == 2 ? (sizeof(bound_aad) / sizeof(bound_aad[0]))
                                           * (sizeof(bound_data) / sizeof(bound_data[0]))
                                     : 3 * sizeof(splits) / sizeof(splits[0]);
        for (size_t c = 0; c < n_cases && fails < 5; c++, cases++) {
            size_t alen, len, achunks[4] = {0}, dchunks[4] = {0};
            const size_t *dc = dchunks;

            if (part == 0) { /* every data length; the AAD of TLS 1.3, 1.2, 17 bytes, none */
                static const size_t alens[] = {0, 5, 13, 17};
                len = c / 4;
                alen = alens[c % 4];
            } else if (part == 1) { /* AAD alone */
                len = 0;
                alen = c;
            } else if (part == 2) {
                alen = bound_aad[c / (sizeof(bound_data) / sizeof(bound_data[0]))];
                len = bound_data[c % (sizeof(bound_data) / sizeof(bound_data[0]))];
            } else { /* more than one data update, the AAD in pieces */
                alen = c % 3 == 0 ? 13 : c % 3 == 1 ? 30 : 100;
                dc = splits[c / 3];
                len = 0;
                for (size_t i = 0; dc[i] != 0; i++)
                    len += dc[i];
                len += c % 3 == 2 ? 7 : 0; /* a last piece of what is left */
            }
            if (part == 3 && alen > 1) { /* AAD in pieces: 1, then the rest less 2, then 2 */
                achunks[0] = 1;
                achunks[1] = alen - 3 > 0 ? alen - 3 : 0;
                achunks[achunks[1] != 0 ? 2 : 1] = 2;
            } else {
                achunks[0] = alen;
            }
            if (!ref_gcm(ki, 1, key, iv, 12, aad, alen, msg, len, want, tag, 16)) {
                fails += !CHECK(0, "the reference seal of %zu bytes, %zu AAD failed", len, alen);
                continue;
            }
            int inplace = (int)(c % 3 == 1);
            size_t off = c % 16;
            memcpy(bad, tag, 16);
            bad[c % 16] ^= (unsigned char)(1u << (c % 8));
            if (!CHECK(t_message(ki, 1, 0, key, iv, aad, achunks, msg, len, dc, inplace, off,
                                 want, tag),
                       "seal %zu bytes, %zu AAD (%s): differs from default or failed", len, alen,
                       part == 3 ? "pieces" : "one update")
                || !CHECK(t_message(ki, 0, 1, key, iv, aad, achunks, want, len, dc, !inplace,
                                    (off * 5) % 16, msg, tag),
                          "open %zu bytes, %zu AAD, the tag first: failed", len, alen)
                || !CHECK(t_message(ki, 0, 0, key, iv, aad, achunks, want, len, dc, inplace, off,
                                    msg, tag),
                          "open %zu bytes, %zu AAD, the tag after the data: failed", len, alen)
                || !CHECK(!t_message(ki, 0, c % 2, key, iv, aad, achunks, want, len, dc,
                                     inplace, off, msg, bad),
                          "open %zu bytes, %zu AAD with a wrong tag: accepted", len, alen))
                fails++;
        }
    }
    CHECK(fails == 0, "%zu of %zu one-call cases failed (the first five above)", fails, cases);
}

/*
 * IV lengths 0..130, set by EVP_CTRL_AEAD_SET_IVLEN, by the "ivlen" parameter, and by
 * EVP_CipherInit_ex2's params, before the key and IV: 1..128 accepted, 0 and 129+ refused; each
 * accepted length seals as default does and opens.
 */
enum ivlen_how { IVL_CTRL, IVL_PARAM, IVL_INIT_PARAM };

static void t_ivlen(int ki)
{
    static const char *const hname[] = { "ctrl SET_IVLEN", "set_params ivlen", "init params ivlen" };
    unsigned char key[32], iv[130], aad[40], msg[77], ct[77], tag[16];
    int how, v;

    scope = "ivlen";
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    fill(aad, sizeof(aad));
    fill(msg, sizeof(msg));
    for (how = IVL_CTRL; how <= IVL_INIT_PARAM; how++)
        for (v = 0; v <= 130; v += (v < 20 || v > 120 || how == IVL_CTRL) ? 1 : 7) {
            EVP_CIPHER_CTX *r = EVP_CIPHER_CTX_new(), *t = EVP_CIPHER_CTX_new();
            size_t sz = (size_t)v;
            OSSL_PARAM p[2] = { OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &sz),
                                OSSL_PARAM_END };
            int rr = 0, tr = 0, re = 0, te = 0, ok;
            char what[80];

            snprintf(what, sizeof(what), "%s(%d) on AES-%d", hname[how], v, kbits[ki]);
            if (!init2("init cipher only", r, t, ki, 1, NULL, NULL, 1))
                goto next;
            switch (how) {
            case IVL_CTRL:
                RUN(rr, re, EVP_CIPHER_CTX_ctrl(r, EVP_CTRL_AEAD_SET_IVLEN, v, NULL));
                RUN(tr, te, EVP_CIPHER_CTX_ctrl(t, EVP_CTRL_AEAD_SET_IVLEN, v, NULL));
                break;
            case IVL_PARAM:
                RUN(rr, re, EVP_CIPHER_CTX_set_params(r, p));
                RUN(tr, te, EVP_CIPHER_CTX_set_params(t, p));
                break;
            case IVL_INIT_PARAM:
                RUN(rr, re, EVP_CipherInit_ex2(r, NULL, NULL, NULL, 1, p));
                RUN(tr, te, EVP_CipherInit_ex2(t, NULL, NULL, NULL, 1, p));
                break;
            }
            ok = outcome(what, rr, re, tr, te);
            /* Spelled out, so the expectation does not hang on default alone. */
            CHECK(ok == (v >= 1 && v <= 128), "%s: %s", what, ok ? "accepted" : "refused");
            compare_state(what, r, t);
            if (!ok)
                goto next;
            if (init2("init key+iv", r, t, ki, 1, key, iv, 0))
                message2(what, r, t, 1, aad, (size_t)v % 40, msg, sizeof(msg), tag);
            /* Open: default's own ciphertext, on both. */
            if (!ref_gcm(ki, 1, key, iv, (size_t)v, aad, (size_t)v % 40, msg, sizeof(msg), ct,
                         tag, 16))
                CHECK(0, "%s: reference seal", what);
            if (init2("init to decrypt", r, t, ki, 0, key, iv, 0))
                message2("open", r, t, 0, aad, (size_t)v % 40, ct, sizeof(ct), tag);
        next:
            free2(r, t);
        }
    /* -1 through the ctrl: libcrypto refuses it before any provider sees it. */
    {
        EVP_CIPHER_CTX *r = EVP_CIPHER_CTX_new(), *t = EVP_CIPHER_CTX_new();

        if (init2("init cipher only", r, t, ki, 1, NULL, NULL, 1)) {
            evp_refuses = 1;
            ctrl2("ctrl SET_IVLEN(-1)", r, t, EVP_CTRL_AEAD_SET_IVLEN, -1, NULL, 0, 0);
        }
        free2(r, t);
    }
}

/* The rest of a message after the copy, on the original (who) or the copy: alen bytes of AAD,
 * then, unless the copy was made after final, len bytes of data and final; sealing, the tag,
 * into tag_out unless NULL. Returns 1 if the tag was read (always 0 opening). */
static int copy_finish(const char *who, EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t, int enc,
                       const unsigned char *aad, size_t alen, const unsigned char *in, size_t len,
                       int after_final, unsigned char *tag_out)
{
    char w[64];

    snprintf(w, sizeof(w), "%s: rest of AAD", who);
    if (alen > 0)
        aad2(w, r, t, aad, alen);
    if (!after_final) {
        snprintf(w, sizeof(w), "%s: rest of data", who);
        data2(w, r, t, in, len, 0);
        snprintf(w, sizeof(w), "%s: final", who);
        final2(w, r, t);
    }
    snprintf(w, sizeof(w), "%s: tag", who);
    return enc && gettag2(w, r, t, 16, tag_out);
}

/* EVP_CIPHER_CTX_copy mid-AAD, mid-block of data, and after final before the tag is read; the
 * original is freed before the copy finishes (the copy owns its key, H powers and state). */
static void t_copy(int ki)
{
    static const struct { size_t aad_cut, data_cut; int after_final; } cuts[] = {
        { 5, 0, 0 }, { 33, 0, 0 }, { 40, 7, 0 }, { 40, 16, 0 }, { 40, 33, 0 }, { 40, 300, 1 },
    };
    unsigned char key[32], iv[12], aad[40], msg[300], ct[300], tag[16], tt[16];
    size_t k;
    int enc;

    scope = "copy";
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    fill(aad, sizeof(aad));
    fill(msg, sizeof(msg));
    ref_gcm(ki, 1, key, iv, 12, aad, sizeof(aad), msg, sizeof(msg), ct, tag, 16);
    for (enc = 1; enc >= 0; enc--)
        for (k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
            EVP_CIPHER_CTX *r = EVP_CIPHER_CTX_new(), *t = EVP_CIPHER_CTX_new();
            EVP_CIPHER_CTX *rc = EVP_CIPHER_CTX_new(), *tc = EVP_CIPHER_CTX_new();
            const unsigned char *in = enc ? msg : ct;
            size_t ac = cuts[k].aad_cut, dc = cuts[k].data_cut;
            int rr, tr, re, te;
            char what[96];

            snprintf(what, sizeof(what), "%s, copy after %zu AAD + %zu data bytes%s",
                     enc ? "seal" : "open", ac, dc, cuts[k].after_final ? " and final" : "");
            if (!init2("init", r, t, ki, enc, key, iv, 1))
                goto next;
            if (!enc)
                settag2("set tag", r, t, 16, tag);
            aad2("AAD before the copy", r, t, aad, ac);
            if (dc > 0)
                data2("data before the copy", r, t, in, dc, 0);
            if (cuts[k].after_final)
                final2("final before the copy", r, t);
            RUN(rr, re, EVP_CIPHER_CTX_copy(rc, r));
            RUN(tr, te, EVP_CIPHER_CTX_copy(tc, t));
            if (!outcome(what, rr, re, tr, te))
                goto next;
            compare_state("the copy", rc, tc);
            /* The original finishes first (it must not disturb the copy)... */
            copy_finish("original", r, t, enc, aad + ac, sizeof(aad) - ac, in + dc,
                        sizeof(msg) - dc, cuts[k].after_final, NULL);
            /* ...then is freed, and the copy finishes the same message. */
            EVP_CIPHER_CTX_free(t);
            t = NULL;
            if (copy_finish("copy", rc, tc, enc, aad + ac, sizeof(aad) - ac, in + dc,
                            sizeof(msg) - dc, cuts[k].after_final, tt))
                CHECK(memcmp(tt, tag, 16) == 0, "%s: the copy's tag differs from default's one "
                      "shot", what);
        next:
            free2(r, t);
            free2(rc, tc);
        }
}

/* Re-init of a live context: new IV only, new key only, neither; mid-message and after final. */
static void t_reinit(int ki)
{
    unsigned char key[32], key2[32], iv[12], iv2[12], aad[20], msg[300], tag[16];
    EVP_CIPHER_CTX *r = EVP_CIPHER_CTX_new(), *t = EVP_CIPHER_CTX_new();
    int enc;

    scope = "reinit";
    fill(key, sizeof(key));
    fill(key2, sizeof(key2));
    fill(iv, sizeof(iv));
    fill(iv2, sizeof(iv2));
    fill(aad, sizeof(aad));
    fill(msg, sizeof(msg));
    for (enc = 1; enc >= 0; enc--) {
        if (!init2("init key+iv", r, t, ki, enc, key, iv, 1))
            continue;
        /* Decrypting, the tags are zero, so every decrypt final here fails verification (and
         * default then leaves the IV open: see D_AFTER_FAILED_FINAL); the test checks that both
         * agree. */
        memset(tag, 0, sizeof(tag));
        message2("first message", r, t, enc, aad, 13, msg, 37, tag);
        /* A finished IV is not reused: without a new one, nothing more goes through. */
        deliberate = enc ? D_NONE : D_AFTER_FAILED_FINAL;
        data2("data after final, same IV", r, t, msg, 10, 0);
        aad2("AAD after final, same IV", r, t, aad, 5);
        final2("final again", r, t);
        if (init2("reinit (NULL, NULL, iv2)", r, t, ki, enc, NULL, iv2, 0))
            message2("after new IV", r, t, enc, aad, 7, msg, 150, tag);
        if (init2("reinit (NULL, key2, NULL) after final", r, t, ki, enc, key2, NULL, 0)) {
            deliberate = enc ? D_NONE : D_AFTER_FAILED_FINAL;
            data2("after new key only: the IV is still finished", r, t, msg, 21, 0);
        }
        if (init2("reinit (NULL, NULL, NULL) after final", r, t, ki, enc, NULL, NULL, 0)) {
            deliberate = enc ? D_NONE : D_AFTER_FAILED_FINAL;
            data2("after empty reinit", r, t, msg, 21, 0);
        }
        /* Mid-message: new IV restarts the message; a new key only or neither goes on. */
        init2("reinit (NULL, key, iv)", r, t, ki, enc, key, iv, 0);
        aad2("AAD", r, t, aad, 9);
        data2("21 bytes", r, t, msg, 21, 0);
        if (init2("reinit (NULL, NULL, iv2) mid-message", r, t, ki, enc, NULL, iv2, 0))
            message2("after new IV mid-message", r, t, enc, aad, 3, msg, 40, tag);
        init2("reinit (NULL, key, iv)", r, t, ki, enc, key, iv, 0);
        data2("19 bytes", r, t, msg, 19, 0);
        if (init2("reinit (NULL, key2, NULL) mid-message", r, t, ki, enc, key2, NULL, 0)) {
            deliberate = D_REKEY_MID_MESSAGE;
            message2("after new key mid-message", r, t, enc, aad, 0, msg, 40, tag);
        }
        init2("reinit (NULL, key, iv)", r, t, ki, enc, key, iv, 0);
        data2("19 bytes", r, t, msg, 19, 0);
        if (init2("reinit (NULL, NULL, NULL) mid-message", r, t, ki, enc, NULL, NULL, 0)) {
            deliberate = D_INIT_ENDS_MESSAGE;
            message2("after empty reinit mid-message", r, t, enc, aad, 0, msg, 40, tag);
        }
        /* Switching direction on the same context. */
        if (init2("reinit to the other direction", r, t, ki, !enc, key, iv, 0))
            message2("other direction", r, t, !enc, aad, 13, msg, 37, tag);
    }
    free2(r, t);
}

/*
 * The tag: 1..16 bytes readable after an encrypt final, never before it, never when decrypting;
 * settable only when decrypting, 1..16 bytes (the open then checks that many); a wrong or missing
 * tag fails the open at final. "taglen" reads 16 until a tag is set.
 */
static void t_tag(int ki)
{
    unsigned char key[32], iv[12], aad[16], msg[50], ct[50], tag[40];
    EVP_CIPHER_CTX *r = EVP_CIPHER_CTX_new(), *t = EVP_CIPHER_CTX_new();
    int len;
    char what[80];

    scope = "tag";
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    fill(aad, sizeof(aad));
    fill(msg, sizeof(msg));
    memset(tag, 0, sizeof(tag));
    ref_gcm(ki, 1, key, iv, 12, aad, sizeof(aad), msg, sizeof(msg), ct, tag, 16);

    /* Encrypting. */
    if (init2("init encrypt", r, t, ki, 1, key, iv, 1)) {
        gettag2("get tag before anything", r, t, 16, NULL);
        settag2("set tag when encrypting", r, t, 16, tag);
        aad2("AAD", r, t, aad, sizeof(aad));
        gettag2("get tag after AAD", r, t, 16, NULL);
        data2("data", r, t, msg, sizeof(msg), 0);
        gettag2("get tag before final", r, t, 16, NULL);
        final2("final", r, t);
        for (len = -1; len <= 18; len++) {
            snprintf(what, sizeof(what), "get tag(%d) after final", len);
            gettag2(what, r, t, len, NULL);
        }
        /* The real tag: default's refused set overwrites its tag (below), so no divergence. */
        settag2("set tag after encrypt final", r, t, 16, tag);
        /* Next message with a new IV: the tag of the last one is not readable mid-message. */
        if (init2("reinit new IV", r, t, ki, 1, NULL, tag + 20, 0)) {
            data2("data", r, t, msg, 10, 0);
            deliberate = D_TAG_OF_EARLIER_MESSAGE;
            gettag2("get tag mid-message, after an earlier final", r, t, 16, NULL);
        }
    }
    /* A refused set must not change the tag that was made. Default's does: it copies the bytes
     * over its tag before it checks the direction, so its next read returns them (reported, not
     * compared). T's read must still return the real tag. */
    if (strcmp(tname, "default") != 0 && init2("init encrypt", r, t, ki, 1, key, iv, 1)
        && message2("seal", r, t, 1, aad, sizeof(aad), msg, sizeof(msg), tag)) {
        unsigned char rafter[16], tafter[16], bogus[40];

        memset(bogus, 0xEE, sizeof(bogus));
        settag2("set a different tag after encrypt final", r, t, 16, bogus);
        ERR_clear_error();
        if (CHECK(EVP_CIPHER_CTX_ctrl(r, EVP_CTRL_AEAD_GET_TAG, 16, rafter) > 0
                  && EVP_CIPHER_CTX_ctrl(t, EVP_CTRL_AEAD_GET_TAG, 16, tafter) > 0,
                  "tag read again after a refused set"))
            CHECK(memcmp(tafter, tag, 16) == 0, "a refused set changed %s's tag to %s", tname,
                  hex(tafter, 16));
        if (memcmp(rafter, tag, 16) != 0)
            note("default's tag after its refused set reads %s: the refused bytes",
                 hex(rafter, 16));
        ERR_clear_error();
    }
    /* Decrypting: set lengths -1..18, then the open with that many tag bytes. */
    for (len = -1; len <= 18; len++) {
        if (!init2("init decrypt", r, t, ki, 0, key, iv, 1))
            continue;
        snprintf(what, sizeof(what), "set tag(%d) when decrypting", len);
        if (settag2(what, r, t, len, tag)) {
            aad2("AAD", r, t, aad, sizeof(aad));
            data2("data", r, t, ct, sizeof(ct), 0);
            gettag2("get tag when decrypting", r, t, 16, NULL);
            snprintf(what, sizeof(what), "final with a %d-byte tag", len);
            CHECK(final2(what, r, t), "%s must verify", what);
            gettag2("get tag after decrypt final", r, t, 16, NULL);
        }
    }
    /* Tag set after the data, before final (allowed); wrong tag; no tag; tag set twice. */
    if (init2("init decrypt", r, t, ki, 0, key, iv, 1)) {
        aad2("AAD", r, t, aad, sizeof(aad));
        data2("data", r, t, ct, sizeof(ct), 0);
        settag2("set tag after data", r, t, 16, tag);
        CHECK(final2("final", r, t), "open with the tag set after the data must verify");
    }
    for (len = 0; len < 16; len += 5) {
        unsigned char bad[40];

        memcpy(bad, tag, sizeof(bad));
        bad[len] ^= 0x80;
        if (!init2("init decrypt", r, t, ki, 0, key, iv, 0))
            continue;
        aad2("AAD", r, t, aad, sizeof(aad));
        data2("data", r, t, ct, sizeof(ct), 0);
        snprintf(what, sizeof(what), "set a tag wrong in byte %d", len);
        settag2(what, r, t, 16, bad);
        CHECK(!final2("final with a wrong tag", r, t), "a wrong tag must fail the open");
        deliberate = D_AFTER_FAILED_FINAL;
        data2("data after the failed final", r, t, ct, 16, 0);
    }
    if (init2("init decrypt", r, t, ki, 0, key, iv, 0)) {
        aad2("AAD", r, t, aad, sizeof(aad));
        data2("data", r, t, ct, sizeof(ct), 0);
        CHECK(!final2("final without a tag", r, t), "an open without a tag must fail");
    }
    if (init2("init decrypt", r, t, ki, 0, key, iv, 0)) {
        unsigned char bad[40];

        memset(bad, 0, sizeof(bad));
        settag2("set a wrong tag", r, t, 16, bad);
        settag2("then the right one", r, t, 16, tag);
        aad2("AAD", r, t, aad, sizeof(aad));
        data2("data", r, t, ct, sizeof(ct), 0);
        CHECK(final2("final", r, t), "the last tag set counts");
    }
    /* A tag as the "tag" parameter of the wrong type is refused. */
    if (init2("init decrypt", r, t, ki, 0, key, iv, 0)) {
        size_t v = 16;
        OSSL_PARAM p[2] = { OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAG, &v), OSSL_PARAM_END };

        setparams2("set \"tag\" as a size_t", r, t, p);
    }
    free2(r, t);
}

/*
 * The IV: generated at random when encrypting with a key and no IV (at least 96 bits, so only
 * with ivlen >= 12), never when decrypting; "iv", "updated-iv" and "iv-generated"; a finished IV
 * is not reused; a new ivlen invalidates the IV that was set.
 */
static void t_iv(int ki)
{
    unsigned char key[32], iv[16], aad[16], msg[64], ct[64], tag[16], got[128];
    EVP_CIPHER_CTX *r = EVP_CIPHER_CTX_new(), *t = EVP_CIPHER_CTX_new();
    size_t gotlen = 0;
    int l;

    scope = "iv";
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    fill(aad, sizeof(aad));
    fill(msg, sizeof(msg));

    /* Generated IV: each side draws its own, so compare shapes, then open T's with default. */
    if (init2("init key, no IV", r, t, ki, 1, key, NULL, 1)) {
        random_iv = 1;
        if (message2("seal with a generated IV", r, t, 1, aad, sizeof(aad), msg, 0, tag))
            CHECK(get_octets(t, OSSL_CIPHER_PARAM_IV, got, sizeof(got), &gotlen) && gotlen == 12,
                  "the generated IV is readable as \"iv\" (%zu bytes)", gotlen);
        random_iv = 0;
    }
    /* Again with data, and check T's output with default. */
    EVP_CIPHER_CTX_reset(t);
    if (CHECK(EVP_EncryptInit_ex2(t, T[ki], key, NULL, NULL)
              && EVP_EncryptUpdate(t, NULL, &l, aad, sizeof(aad))
              && EVP_EncryptUpdate(t, ct, &l, msg, sizeof(msg))
              && EVP_EncryptFinal_ex(t, ct + l, &l)
              && EVP_CIPHER_CTX_ctrl(t, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0
              && get_octets(t, OSSL_CIPHER_PARAM_IV, got, sizeof(got), &gotlen) && gotlen == 12,
              "seal with a generated IV on %s", tname)) {
        unsigned char back[64], zero[12] = { 0 };

        CHECK(memcmp(got, zero, 12) != 0, "the generated IV is all zero");
        CHECK(ref_gcm(ki, 0, key, got, 12, aad, sizeof(aad), ct, sizeof(ct), back, tag, 16)
              && memcmp(back, msg, sizeof(msg)) == 0,
              "default cannot open %s's seal under its generated IV", tname);
    }
    ERR_clear_error();
    /* A generated IV is finished at final like any other: no second message without a new one,
     * not even after a re-init that gives none. */
    reset2(r, t);
    if (init2("init key, no IV", r, t, ki, 1, key, NULL, 1)) {
        random_iv = 1;
        message2("first generated-IV seal", r, t, 1, aad, 3, msg, 20, tag);
        data2("data after final", r, t, msg, 5, 0);
        if (init2("reinit (NULL, NULL, NULL)", r, t, ki, 1, NULL, NULL, 0))
            data2("data after empty reinit", r, t, msg, 5, 0);
        random_iv = 0;
    }
    /* Decrypting never generates. */
    reset2(r, t);
    if (init2("init decrypt, key, no IV", r, t, ki, 0, key, NULL, 1)) {
        aad2("AAD with no IV when decrypting", r, t, aad, 5);
        data2("data with no IV when decrypting", r, t, msg, 5, 0);
    }
    /* Too short an IV length to generate 96 bits. */
    reset2(r, t);
    if (init2("init cipher", r, t, ki, 1, NULL, NULL, 1)
        && ctrl2("ivlen 8", r, t, EVP_CTRL_AEAD_SET_IVLEN, 8, NULL, 0, 0)
        && init2("key, no IV", r, t, ki, 1, key, NULL, 0))
        data2("data, with ivlen 8 and no IV to generate", r, t, msg, 5, 0);
    /* 16-byte generated IVs. */
    reset2(r, t);
    if (init2("init cipher", r, t, ki, 1, NULL, NULL, 1)
        && ctrl2("ivlen 16", r, t, EVP_CTRL_AEAD_SET_IVLEN, 16, NULL, 0, 0)
        && init2("key, no IV", r, t, ki, 1, key, NULL, 0)) {
        random_iv = 1;
        message2("seal with a generated 16-byte IV", r, t, 1, aad, 3, msg, 20, tag);
        random_iv = 0;
    }

    /* "iv" and "updated-iv": before any IV, after one, after final, into too small a buffer. */
    reset2(r, t);
    if (init2("init cipher only", r, t, ki, 1, NULL, NULL, 1)) {
        struct ctxstate a, b;

        get_state(r, &a);
        get_state(t, &b);
        CHECK(a.ok_iv == b.ok_iv && a.ok_uiv == b.ok_uiv, "iv/updated-iv before any IV: ok %d/%d, "
              "default %d/%d", b.ok_iv, b.ok_uiv, a.ok_iv, a.ok_uiv);
        if (init2("key+iv", r, t, ki, 1, key, iv, 0)) {
            unsigned char rb[16], tb[16];
            int rr, tr, re, te;

            get_state(t, &b);
            CHECK(b.ok_iv && b.ivsz == 12 && memcmp(b.iv, iv, 12) == 0, "\"iv\" after init reads "
                  "%s, not the IV given", hex(b.iv, b.ivsz));
            message2("seal", r, t, 1, aad, 5, msg, 33, tag);
            short_iv_reads(r, t);
            RUN(rr, re, EVP_CIPHER_CTX_get_original_iv(r, rb, 12));
            RUN(tr, te, EVP_CIPHER_CTX_get_original_iv(t, tb, 12));
            if (outcome("get_original_iv into 12 bytes", rr, re, tr, te))
                CHECK(memcmp(rb, tb, 12) == 0, "get_original_iv %s, default %s", hex(tb, 12),
                      hex(rb, 12));
        }
    }
    /* A new ivlen after the IV was set invalidates it; the same ivlen does not. */
    reset2(r, t);
    if (init2("init key+iv", r, t, ki, 1, key, iv, 1)) {
        size_t sz = 12;
        OSSL_PARAM p[2] = { OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &sz), OSSL_PARAM_END };

        setparams2("ivlen 12 again", r, t, p);
        data2("data after the same ivlen", r, t, msg, 5, 0);
        init2("reinit key+iv", r, t, ki, 1, key, iv, 0);
        sz = 13;
        setparams2("ivlen 13 after the IV", r, t, p);
        data2("data after a new ivlen, no new IV", r, t, msg, 5, 0);
        if (init2("then a 13-byte IV", r, t, ki, 1, NULL, iv, 0))
            message2("seal with it", r, t, 1, aad, 2, msg, 20, tag);
    }
    /* ivlen set mid-message (default accepts it; compare what follows). */
    reset2(r, t);
    if (init2("init key+iv", r, t, ki, 1, key, iv, 1)) {
        data2("5 bytes", r, t, msg, 5, 0);
        ctrl2("ivlen 16 mid-message", r, t, EVP_CTRL_AEAD_SET_IVLEN, 16, NULL, 0, 0);
        data2("data after", r, t, msg, 5, 0);
        final2("final after", r, t);
    }
    free2(r, t);
}

/* ---- TLS 1.2 ------------------------------------------------------------------------------ */

/* The 13-byte TLS 1.2 AAD: sequence number, type 23, version 3.3, length. The length is that of
 * the record without the tag: explicit nonce + payload when sealing, the whole record when
 * opening (the provider subtracts 8, and when opening 16 more, and hashes what is left). */
static void tls_aad(unsigned char aad[13], uint64_t seq, size_t len)
{
    int i;

    for (i = 0; i < 8; i++)
        aad[i] = (unsigned char)(seq >> (56 - 8 * i));
    aad[8] = 23;
    aad[9] = 3;
    aad[10] = 3;
    aad[11] = (unsigned char)(len >> 8);
    aad[12] = (unsigned char)len;
}

/* One TLS record through EVP_Cipher in place on both: buf is explicit_nonce(8) || payload ||
 * tag(16), reclen bytes in all. Compares results and the buffers (unless random_iv). */
static int tls_record2(const char *what, EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t,
                       const unsigned char *rec, size_t reclen, unsigned char *rout,
                       unsigned char *tout)
{
    int rr, tr, re, te;

    memcpy(rout, rec, reclen);
    memcpy(tout, rec, reclen);
    RUN(rr, re, EVP_Cipher(r, rout, rout, (unsigned int)reclen));
    RUN(tr, te, EVP_Cipher(t, tout, tout, (unsigned int)reclen));
    if (!outcome(what, rr, re, tr, te))
        return 0;
    CHECK(rr == tr, "%s: EVP_Cipher returns %d, default %d", what, tr, rr);
    if (!random_iv)
        CHECK(memcmp(rout, tout, reclen) == 0, "%s: record %s..., default %s...", what,
              hex(tout, reclen), hex(rout, reclen));
    compare_state(what, r, t);
    return 1;
}

static void t_tls12(int ki)
{
    /* Payloads around the one-call path's bounds too (see t_one_call) */
    static const size_t plens[] = { 0, 1, 15, 16, 17, 100, 111, 112, 113, 463, 464, 465, 479,
                                    480, 481, 495, 496, 497, 1000, 1420, 16384 };
    static unsigned char rec[16384 + 24], ro[16384 + 24], to[16384 + 24];
    unsigned char key[32], fixed[12], aad[16], msg[16384];
    EVP_CIPHER_CTX *r = EVP_CIPHER_CTX_new(), *t = EVP_CIPHER_CTX_new();
    size_t i, n;
    int side;
    char what[96];

    scope = "tls1.2";
    fill(key, sizeof(key));
    fill(fixed, sizeof(fixed));
    fill(msg, sizeof(msg));

    /* Seal, deterministic: the whole IV given ("tlsivfixed" of length -1), records count up. */
    if (init2("init encrypt, key", r, t, ki, 1, key, NULL, 1)
        && ctrl2("SET_IV_FIXED(-1): the whole IV", r, t, EVP_CTRL_GCM_SET_IV_FIXED, -1, fixed,
                 12, 0))
        for (i = 0; i < sizeof(plens) / sizeof(plens[0]); i++) {
            n = plens[i];
            tls_aad(aad, i, n + 8);
            snprintf(what, sizeof(what), "seal: TLS1_AAD, %zu-byte payload", n);
            ctrl2(what, r, t, EVP_CTRL_AEAD_TLS1_AAD, 13, aad, 13, 13);
            memset(rec, 0, 8);
            memcpy(rec + 8, msg, n);
            memset(rec + 8 + n, 0, 16);
            snprintf(what, sizeof(what), "seal a record of %zu bytes", n);
            tls_record2(what, r, t, rec, n + 24, ro, to);
            /* The record opens under default (the fixed IV's counter went up by one). */
        }
    /* A copy made after "tlsaad" seals the same record as the original, and each goes on to the
     * next record on its own (the invocation counter and pending AAD are per context). */
    if (init2("init encrypt, key", r, t, ki, 1, key, NULL, 1)
        && ctrl2("SET_IV_FIXED(-1)", r, t, EVP_CTRL_GCM_SET_IV_FIXED, -1, fixed, 12, 0)) {
        EVP_CIPHER_CTX *rc = EVP_CIPHER_CTX_new(), *tc = EVP_CIPHER_CTX_new();
        int rr, tr, re, te, k;

        tls_aad(aad, 0, 100 + 8);
        ctrl2("TLS1_AAD", r, t, EVP_CTRL_AEAD_TLS1_AAD, 13, aad, 13, 13);
        RUN(rr, re, EVP_CIPHER_CTX_copy(rc, r));
        RUN(tr, te, EVP_CIPHER_CTX_copy(tc, t));
        if (outcome("EVP_CIPHER_CTX_copy with a record pending", rr, re, tr, te)) {
            unsigned char first[124];

            memset(rec, 0, 8);
            memcpy(rec + 8, msg, 100);
            tls_record2("the original seals the record", r, t, rec, 124, ro, to);
            memcpy(first, to, sizeof(first));
            tls_record2("the copy seals the same record", rc, tc, rec, 124, ro, to);
            CHECK(memcmp(first, to, sizeof(first)) == 0, "the copy's record differs from the "
                  "original's");
            for (k = 0; k < 2; k++) {
                EVP_CIPHER_CTX *x = k == 0 ? r : rc, *y = k == 0 ? t : tc;

                tls_aad(aad, 1, 30 + 8);
                ctrl2("TLS1_AAD, next record", x, y, EVP_CTRL_AEAD_TLS1_AAD, 13, aad, 13, 13);
                memcpy(rec + 8, msg, 30);
                tls_record2(k == 0 ? "the original's next record" : "the copy's next record", x,
                            y, rec, 54, ro, to);
            }
        }
        free2(rc, tc);
    }
    /* After a record the IV is finished: a plain update fails. */
    data2("plain update after a TLS record", r, t, msg, 16, 0);
    /* "tlsivgen" with the whole IV given: deterministic, counts up, then the normal path. */
    if (init2("init encrypt, key", r, t, ki, 1, key, NULL, 0)
        && ctrl2("SET_IV_FIXED(-1)", r, t, EVP_CTRL_GCM_SET_IV_FIXED, -1, fixed, 12, 0)) {
        unsigned char tag[16];

        ctrl2("IV_GEN(8)", r, t, EVP_CTRL_GCM_IV_GEN, 8, rec, 8, 8);
        message2("seal after IV_GEN", r, t, 1, msg, 13, msg + 13, 77, tag);
        ctrl2("IV_GEN(-1): the whole IV", r, t, EVP_CTRL_GCM_IV_GEN, -1, rec, 12, 12);
        message2("seal after IV_GEN(-1)", r, t, 1, msg, 13, msg + 13, 77, tag);
        ctrl2("IV_GEN(4)", r, t, EVP_CTRL_GCM_IV_GEN, 4, rec, 4, 4);
        ctrl2("IV_GEN(13), more than the IV", r, t, EVP_CTRL_GCM_IV_GEN, 13, rec, 13, 12);
        ctrl2("SET_IV_INV when encrypting", r, t, EVP_CTRL_GCM_SET_IV_INV, 8, rec, 8, 0);
    }
    /* The libssl way: a 4-byte fixed part, the rest drawn at random by each side; T seals and
     * default opens, default seals and T opens. */
    for (side = 0; side < 2; side++) {
        EVP_CIPHER_CTX *seal = side == 0 ? t : r, *open = side == 0 ? r : t;
        const EVP_CIPHER *sc = side == 0 ? T[ki] : R[ki], *oc = side == 0 ? R[ki] : T[ki];

        for (i = 0; i < sizeof(plens) / sizeof(plens[0]); i++) {
            int ok, got;

            n = plens[i];
            EVP_CIPHER_CTX_reset(seal);
            EVP_CIPHER_CTX_reset(open);
            ok = EVP_EncryptInit_ex2(seal, sc, key, NULL, NULL)
                 && EVP_CIPHER_CTX_ctrl(seal, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed) > 0
                 && EVP_DecryptInit_ex2(open, oc, key, NULL, NULL)
                 && EVP_CIPHER_CTX_ctrl(open, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed) > 0;
            tls_aad(aad, i, n + 8);
            ok = ok && EVP_CIPHER_CTX_ctrl(seal, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) == 16;
            memcpy(rec + 8, msg, n);
            ok = ok && EVP_Cipher(seal, rec, rec, (unsigned int)(n + 24)) == (int)(n + 24);
            tls_aad(aad, i, n + 24);
            ok = ok && EVP_CIPHER_CTX_ctrl(open, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) == 16;
            got = ok ? EVP_Cipher(open, rec, rec, (unsigned int)(n + 24)) : -1;
            CHECK(ok && got > 0 && memcmp(rec + 8, msg, n) == 0, "%s seals a %zu-byte record, "
                  "%s opens it: %s (EVP_Cipher %d)", side == 0 ? tname : "default", n,
                  side == 0 ? "default" : tname, ok ? "wrong payload" : "failed", got);
            ERR_clear_error();
        }
    }

    /* Open on both, deterministic (a decrypting context never draws): 4-byte fixed part, the
     * explicit nonce from the record; then a tampered record fails and its payload is wiped. */
    for (i = 0; i < sizeof(plens) / sizeof(plens[0]); i++) {
        EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
        size_t k;
        int ok, bad;

        n = plens[i];
        /* A record sealed by default with the IV fixed(4) || explicit(8). */
        fill(rec, 8);
        memcpy(fixed + 4, rec, 8);
        ok = EVP_EncryptInit_ex2(x, R[ki], key, NULL, NULL)
             && EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_SET_IV_FIXED, -1, fixed) > 0;
        tls_aad(aad, i, n + 8);
        ok = ok && EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) == 16;
        memcpy(rec + 8, msg, n);
        ok = ok && EVP_Cipher(x, rec, rec, (unsigned int)(n + 24)) > 0;
        EVP_CIPHER_CTX_free(x);
        CHECK(ok, "reference seal");
        for (bad = 0; bad <= 3; bad++) {
            unsigned char *b = bad == 0 ? NULL : bad == 1 ? rec + n + 24 - 1 /* tag */
                               : bad == 2 ? rec + 3 /* explicit nonce */ : rec + 8 + n / 2;
            if (b != NULL && bad == 3 && n == 0)
                continue;
            if (!init2("init decrypt, key", r, t, ki, 0, key, NULL, 1)
                || !ctrl2("SET_IV_FIXED(4)", r, t, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed, 4, 0))
                continue;
            tls_aad(aad, i, n + 24);
            snprintf(what, sizeof(what), "open: TLS1_AAD, %zu-byte record", n + 24);
            ctrl2(what, r, t, EVP_CTRL_AEAD_TLS1_AAD, 13, aad, 13, 13);
            if (b != NULL)
                *b ^= 0x10;
            snprintf(what, sizeof(what), "open a %zu-byte record%s", n + 24,
                     bad == 0 ? "" : bad == 1 ? " with a wrong tag" : bad == 2
                     ? " with a wrong explicit nonce" : " with a wrong payload byte");
            tls_record2(what, r, t, rec, n + 24, ro, to);
            if (b != NULL) {
                *b ^= 0x10;
                for (k = 0; k < n && to[8 + k] == 0; k++)
                    ;
                CHECK(k == n, "%s: the payload is not wiped (byte %zu of %zu is %02x)", what, k,
                      n, k < n ? to[8 + k] : 0);
            } else {
                CHECK(memcmp(to + 8, msg, n) == 0, "%s: wrong payload", what);
            }
            data2("plain update after the record", r, t, msg, 16, 0);
        }
        /* "tlsivinv" then the normal path: the same record opened with AAD/update/final. */
        if (init2("init decrypt, key", r, t, ki, 0, key, NULL, 1)
            && ctrl2("SET_IV_FIXED(4)", r, t, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed, 4, 0)
            && ctrl2("SET_IV_INV(8)", r, t, EVP_CTRL_GCM_SET_IV_INV, 8, rec, 8, 0)) {
            tls_aad(aad, i, n);
            message2("open via tlsivinv", r, t, 0, aad, 13, rec + 8, n, rec + 8 + n);
        }
    }

    /* Refusals on the record path (sealing with a 4-byte fixed part: random IVs from here). */
    if (init2("init encrypt, key", r, t, ki, 1, key, NULL, 1)) {
        random_iv = 1;
        ctrl2("IV_GEN before SET_IV_FIXED", r, t, EVP_CTRL_GCM_IV_GEN, 8, rec, 8, 0);
        ctrl2("SET_IV_FIXED(3): fixed part too short", r, t, EVP_CTRL_GCM_SET_IV_FIXED, 3, fixed,
              3, 0);
        ctrl2("SET_IV_FIXED(5): invocation part too short", r, t, EVP_CTRL_GCM_SET_IV_FIXED, 5,
              fixed, 5, 0);
        ctrl2("SET_IV_FIXED(4)", r, t, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed, 4, 0);
        tls_aad(aad, 0, 7);
        ctrl2("TLS1_AAD with length 7 < explicit nonce", r, t, EVP_CTRL_AEAD_TLS1_AAD, 13, aad,
              13, 0);
        ctrl2("TLS1_AAD of 12 bytes", r, t, EVP_CTRL_AEAD_TLS1_AAD, 12, aad, 12, 0);
        ctrl2("TLS1_AAD of 14 bytes", r, t, EVP_CTRL_AEAD_TLS1_AAD, 14, aad, 14, 0);
        tls_aad(aad, 0, 40);
        if (ctrl2("TLS1_AAD", r, t, EVP_CTRL_AEAD_TLS1_AAD, 13, aad, 13, 0)) {
            int rr, tr, re, te;

            memcpy(ro, msg, 64);
            memcpy(to, msg, 64);
            RUN(rr, re, EVP_Cipher(r, ro + 64, ro, 64));
            RUN(tr, te, EVP_Cipher(t, to + 64, to, 64));
            outcome("EVP_Cipher record not in place", rr, re, tr, te);
        }
        /* The failed record finished the IV: a new one from the fixed part for the next. */
        ctrl2("SET_IV_FIXED(4)", r, t, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed, 4, 0);
        if (ctrl2("TLS1_AAD", r, t, EVP_CTRL_AEAD_TLS1_AAD, 13, aad, 13, 0))
            tls_record2("record of 23 bytes, shorter than nonce + tag", r, t, msg, 23, ro, to);
        random_iv = 0;
    }
    if (init2("init decrypt, key", r, t, ki, 0, key, NULL, 1)
        && ctrl2("SET_IV_FIXED(4)", r, t, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed, 4, 0)) {
        tls_aad(aad, 0, 23);
        ctrl2("TLS1_AAD with length 23 < nonce + tag (decrypt)", r, t, EVP_CTRL_AEAD_TLS1_AAD, 13,
              aad, 13, 0);
        ctrl2("SET_IV_INV(8)", r, t, EVP_CTRL_GCM_SET_IV_INV, 8, rec, 8, 0);
        evp_refuses = 1;
        ctrl2("SET_IV_INV(-1)", r, t, EVP_CTRL_GCM_SET_IV_INV, -1, rec, 8, 0);
    }
    if (init2("init decrypt, key", r, t, ki, 0, key, NULL, 1))
        ctrl2("SET_IV_INV before SET_IV_FIXED", r, t, EVP_CTRL_GCM_SET_IV_INV, 8, rec, 8, 0);
    /* Default writes tlsivinv's bytes below its IV buffer when they are more than the IV holds,
     * so this runs on T alone: T must refuse it. */
    if (strcmp(tname, "default") != 0) {
        EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();

        ERR_clear_error();
        CHECK(EVP_DecryptInit_ex2(x, T[ki], key, NULL, NULL)
              && EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed) > 0
              && EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_SET_IV_INV, 13, rec) <= 0
              && ERR_peek_error() != 0, "SET_IV_INV of 13 bytes with a 12-byte IV must be refused "
              "with an error");
        ERR_clear_error();
        EVP_CIPHER_CTX_free(x);
        /* Default's check of "tlsivfixed" against the IV wraps (size_t) and writes past its IV
         * (found by fuzz/driver.c), and its "tlsivgen" on an IV under 8 bytes increments bytes
         * below it; aesfast must refuse both. And a 7-byte IV has no 8-byte invocation field to
         * count records with: every "tlsivgen" would give the same IV. */
        unsigned char whole[16] = {1, 2, 3, 4, 5, 6, 7};
        unsigned char gen[16];
        size_t seven = 7;
        OSSL_PARAM ivlen7[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &seven),
                               OSSL_PARAM_END};
        x = EVP_CIPHER_CTX_new();
        CHECK(EVP_EncryptInit_ex2(x, T[ki], key, NULL, NULL)
              && EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_SET_IV_FIXED, 13, whole) <= 0
              && ERR_peek_error() != 0, "SET_IV_FIXED of 13 bytes with a 12-byte IV must be "
              "refused with an error");
        ERR_clear_error();
        CHECK(EVP_EncryptInit_ex2(x, T[ki], key, NULL, ivlen7)
              && EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_SET_IV_FIXED, -1, whole) > 0
              && EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_IV_GEN, 7, gen) <= 0
              && ERR_peek_error() != 0, "IV_GEN with a 7-byte IV must be refused with an error");
        ERR_clear_error();
        EVP_CIPHER_CTX_free(x);
    }
    free2(r, t);
}

/* ---- TLS 1.3 / QUIC ----------------------------------------------------------------------- */

/*
 * The per-record path: one init with the key, then per record an IV-only re-init, 5 bytes of
 * AAD, the payload, final and the tag. It must allocate nothing inside the provider: OpenSSL's
 * allocations are counted (hooks installed in main) over the records, on each side, and T may
 * allocate no more than default does on the same calls (libcrypto's own share, if any, is the
 * same for both); "0 for T" is what is expected, and default's count is printed with it.
 */
static void t_tls13(int ki)
{
    enum { NREC = 20, MAXLEN = 2000 };
    static unsigned char msg[MAXLEN], ct[NREC][MAXLEN], ctag[NREC][16];
    static unsigned char out[MAXLEN];
    unsigned char key[32], iv[12], hdr[5], tag[16];
    int enc, side, rec;

    scope = "tls1.3";
    /* The hooks see OpenSSL's allocations at all (else a count of 0 would prove nothing). */
    nallocs = 0;
    counting = 1;
    EVP_CIPHER_CTX_free(EVP_CIPHER_CTX_new());
    counting = 0;
    CHECK(nallocs > 0, "EVP_CIPHER_CTX_new went past the allocation hooks");
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    fill(msg, sizeof(msg));
    fill(hdr, sizeof(hdr));
    /* The records to open: default's seals, made before anything is counted. */
    for (rec = 0; rec < NREC; rec++) {
        iv[11] = (unsigned char)rec;
        ref_gcm(ki, 1, key, iv, 12, hdr, 5, msg, (size_t)(rec * 97) % MAXLEN, ct[rec], ctag[rec],
                16);
    }
    for (enc = 1; enc >= 0; enc--) {
        unsigned long count[2] = { 0, 0 };
        char where[2][96] = { "", "" };

        for (side = 0; side < 2; side++) {   /* 0: R, 1: T */
            EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
            const char *who = side == 0 ? "default" : tname;
            int ok = EVP_CipherInit_ex2(c, side == 0 ? R[ki] : T[ki], key, NULL, enc, NULL);

            for (rec = 0; ok && rec < NREC; rec++) {
                size_t n = (size_t)(rec * 97) % MAXLEN;
                int l = 0;

                iv[11] = (unsigned char)rec;
                memset(out, 0, sizeof(out));
                nallocs = 0;
                counting = 1;
                ok = EVP_CipherInit_ex2(c, NULL, NULL, iv, enc, NULL)
                     && EVP_CipherUpdate(c, NULL, &l, hdr, 5)
                     && EVP_CipherUpdate(c, out, &l, enc ? msg : ct[rec], (int)n)
                     && (enc || EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, 16, ctag[rec]) > 0)
                     && EVP_CipherFinal_ex(c, out + l, &l)
                     && (!enc || EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0);
                counting = 0;
                count[side] += nallocs;
                if (nallocs > 0 && where[side][0] == 0)
                    snprintf(where[side], sizeof(where[0]), "%s", alloc_where[(nallocs - 1) & 3]);
                CHECK(ok, "%s record %d (%zu bytes) on %s", enc ? "seal" : "open", rec, n, who);
                if (!ok)
                    break;
                CHECK(memcmp(out, enc ? ct[rec] : msg, n) == 0 && (!enc
                      || memcmp(tag, ctag[rec], 16) == 0), "%s record %d on %s: wrong %s",
                      enc ? "seal" : "open", rec, who, enc ? "ciphertext or tag" : "plaintext");
            }
            ERR_clear_error();
            EVP_CIPHER_CTX_free(c);
        }
        printf("ok   [%s] %s, %d records with an IV-only re-init: %lu allocations on %s%s%s, "
               "%lu on default%s%s\n", scope, enc ? "seal" : "open", NREC, count[1], tname,
               count[1] ? ", e.g. at " : "", where[1], count[0], count[0] ? ", e.g. at " : "",
               where[0]);
        CHECK(count[1] <= count[0], "%s: %s allocates %lu times over %d records (default %lu), "
              "e.g. at %s", enc ? "seal" : "open", tname, count[1], NREC, count[0], where[1]);
        if (strcmp(tname, "default") != 0)
            CHECK(count[1] == 0, "%s: %s allocates on the per-record path (%lu times, e.g. at %s)",
                  enc ? "seal" : "open", tname, count[1], where[1]);
    }
}

/* ---- limits ------------------------------------------------------------------------------- */

/*
 * SP 800-38D caps the plaintext per IV at 2^39 - 256 bits (2^36 - 32 bytes) and the AAD at
 * 2^64 - 1 bits; default's checks are "more than 2^36 - 32 bytes of data" and "more than 2^61
 * bytes of AAD" (one byte more than the bit limit allows).
 *
 * Through EVP these are out of reach in a test: EVP_EncryptUpdate takes an int (at most 2^31 - 1
 * bytes a call) and EVP_Cipher an unsigned int, so crossing 2^36 - 32 bytes takes 32 updates of
 * 2 GiB, 64 GiB of real work per provider, and 2^61 bytes of AAD cannot be fed at all. The
 * provider's own update takes a size_t, so the limits are tested there: the functions are taken
 * from each provider's algorithm table (OSSL_PROVIDER_query_operation) and called directly with
 * lengths over the limit, on a buffer of 64 bytes followed by an inaccessible page. A provider
 * that does not refuse such a length up front reads into that page, and the fault is caught
 * (limit_fault). Not testable: that exactly 2^36 - 32 bytes (or 2^61 - 1 of AAD) are
 * still accepted, which would take that much real work.
 *
 * T (aesfast) must refuse every case up front, with an error. Default is only reported: its
 * AES-NI path (AES_GCM_ASM in cipher_aes_gcm_hw.c) runs the stitched bulk code over the whole
 * length before the one call that checks the limit, so on this CPU it reads past the buffer on
 * the data cases (its AAD check does come first). That is why default-vs-default runs only
 * report, and do not check, these cases.
 */
struct impl {
    OSSL_FUNC_cipher_newctx_fn *newctx;
    OSSL_FUNC_cipher_freectx_fn *freectx;
    OSSL_FUNC_cipher_encrypt_init_fn *einit;
    OSSL_FUNC_cipher_decrypt_init_fn *dinit;
    OSSL_FUNC_cipher_update_fn *update;
    void *provctx;
};

static int find_impl(OSSL_PROVIDER *prov, const char *name, struct impl *im)
{
    const OSSL_ALGORITHM *a;
    int no_cache = 0, found = 0;

    memset(im, 0, sizeof(*im));
    a = OSSL_PROVIDER_query_operation(prov, OSSL_OP_CIPHER, &no_cache);
    for (; a != NULL && a->algorithm_names != NULL && !found; a++) {
        size_t n = strlen(name);
        const OSSL_DISPATCH *d;

        if (strncmp(a->algorithm_names, name, n) != 0
            || (a->algorithm_names[n] != ':' && a->algorithm_names[n] != 0))
            continue;
        for (d = a->implementation; d->function_id != 0; d++)
            switch (d->function_id) {
            case OSSL_FUNC_CIPHER_NEWCTX: im->newctx = OSSL_FUNC_cipher_newctx(d); break;
            case OSSL_FUNC_CIPHER_FREECTX: im->freectx = OSSL_FUNC_cipher_freectx(d); break;
            case OSSL_FUNC_CIPHER_ENCRYPT_INIT: im->einit = OSSL_FUNC_cipher_encrypt_init(d); break;
            case OSSL_FUNC_CIPHER_DECRYPT_INIT: im->dinit = OSSL_FUNC_cipher_decrypt_init(d); break;
            case OSSL_FUNC_CIPHER_UPDATE: im->update = OSSL_FUNC_cipher_update(d); break;
            default: break;
            }
        found = 1;
    }
    im->provctx = OSSL_PROVIDER_get0_provider_ctx(prov);
    return found && im->newctx && im->freectx && im->einit && im->dinit && im->update;
}

enum { LIM_REFUSED = 0, LIM_SILENT = 2, LIM_ACCEPTED = 3, LIM_SETUP = 4 };

static const struct limit_case {
    const char *what;
    int enc, aad;       /* direction; AAD (out == NULL) or data */
    size_t first;       /* a real update of this many bytes first */
    uint64_t len;       /* then one of this length */
    size_t keylen, ivlen; /* init lengths; 0: the cipher's key, 12 */
} limit_cases[] = {
    { "data: one update of 2^36 - 31 bytes", 1, 0, 0, ((uint64_t)1 << 36) - 31, 0, 0 },
    { "data: 16 bytes, then 2^36 - 47 (2^36 - 31 in all)", 1, 0, 16, ((uint64_t)1 << 36) - 47, 0,
      0 },
    { "data: one update of 2^40 bytes", 1, 0, 0, (uint64_t)1 << 40, 0, 0 },
    { "data: 16 bytes, then SIZE_MAX - 15 (the total wraps)", 1, 0, 16, UINT64_MAX - 15, 0, 0 },
    { "decrypt data: one update of 2^36 - 31 bytes", 0, 0, 0, ((uint64_t)1 << 36) - 31, 0, 0 },
    { "AAD: one update of 2^61 + 1 bytes", 1, 1, 0, ((uint64_t)1 << 61) + 1, 0, 0 },
    { "AAD: 16 bytes, then 2^61 - 15 (2^61 + 1 in all)", 1, 1, 16, ((uint64_t)1 << 61) - 15, 0,
      0 },
    { "AAD: 16 bytes, then SIZE_MAX - 15 (the total wraps)", 1, 1, 16, UINT64_MAX - 15, 0, 0 },
    { "AAD: one update of SIZE_MAX bytes", 1, 1, 0, UINT64_MAX, 0, 0 },
    { "init with a key one byte too long", 1, 0, 0, 0, 1, 0 },
    { "init with a key of 1 byte", 1, 0, 0, 0, 2, 0 },
    { "init with an IV of 0 bytes", 1, 0, 0, 0, 0, 3 },
    { "init with an IV of 129 bytes", 1, 0, 0, 0, 0, 129 },
};

/* The context of the case under way, for limit_run's caller to free when it returned. */
static void *volatile limit_ctx;

/* One case; returns LIM_*. */
static int limit_run(const struct impl *im, int ki, const struct limit_case *c,
                     unsigned char *edge)
{
    unsigned char key[32] = { 0 }, iv[160] = { 0 };
    size_t kl = (size_t)kbits[ki] / 8, il = 12, outl = 0;
    unsigned char *buf = edge - 64;
    void *ctx = im->newctx(im->provctx);
    int ok;

    limit_ctx = ctx;
    if (c->keylen == 1)
        kl++;
    else if (c->keylen == 2)
        kl = 1;
    if (c->ivlen == 3)
        il = 0;
    else if (c->ivlen != 0)
        il = c->ivlen;
    ERR_clear_error();
    if (ctx == NULL)
        return LIM_SETUP;
    ok = (c->enc ? im->einit : im->dinit)(ctx, key, kl, iv, il, NULL);
    if (c->len == 0)     /* an init case */
        return ok ? LIM_ACCEPTED : ERR_peek_error() != 0 ? LIM_REFUSED : LIM_SILENT;
    if (!ok || (c->first > 0 && !im->update(ctx, c->aad ? NULL : buf, &outl, 64, buf, c->first)))
        return LIM_SETUP;
    ERR_clear_error();
    ok = im->update(ctx, c->aad ? NULL : buf, &outl, (size_t)c->len, buf, (size_t)c->len);
    return ok ? LIM_ACCEPTED : ERR_peek_error() != 0 ? LIM_REFUSED : LIM_SILENT;
}

/*
 * A read of the inaccessible page ends the case through this handler. Not a child process: under
 * qemu-user 7.2 (the arm64 runs) a forked child never gets to run, so the fault is caught in
 * place.
 */
static sigjmp_buf limit_jmp;

static void limit_fault(int sig)
{
    siglongjmp(limit_jmp, sig);
}

/* limit_run under the handler: its LIM_* result, or -1 with the signal in *sig. */
static int limit_try(const struct impl *im, int ki, const struct limit_case *c,
                     unsigned char *edge, int *sig)
{
    volatile int code = -1;

    limit_ctx = NULL;
    if ((*sig = sigsetjmp(limit_jmp, 1)) == 0)
        code = limit_run(im, ki, c, edge);
    /* Also after a fault: freeing is a wipe and a free of the context's own block, which a
     * half-done update leaves intact (and the sanitizer build counts leaks). */
    if (limit_ctx != NULL)
        im->freectx(limit_ctx);
    return code;
}

static void t_limits(int ki)
{
    static const char *const result[] = { [LIM_REFUSED] = "refused up front, with an error",
        [LIM_SILENT] = "refused up front, without an error", [LIM_ACCEPTED] = "accepted",
        [LIM_SETUP] = "setup failed" };
    long page = sysconf(_SC_PAGESIZE);
    struct sigaction sa, old_segv, old_bus;
    unsigned char *map;
    char name[32];
    size_t i;
    int side;

    scope = "limits";
    snprintf(name, sizeof(name), "AES-%d-GCM", kbits[ki]);
    map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (!CHECK(map != MAP_FAILED && mprotect(map + page, (size_t)page, PROT_NONE) == 0, "mmap"))
        return;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = limit_fault;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old_segv);
    sigaction(SIGBUS, &sa, &old_bus);
    /* Default is only reported, and once. */
    for (side = ki == 0 ? 0 : 1; side < 2; side++) {
        const char *who = side == 0 ? "default" : tname;
        int check = side == 1 && strcmp(tname, "default") != 0;
        struct impl im;

        if (!CHECK(find_impl(side == 0 ? pdef : ptest, name, &im), "%s's algorithm table lacks "
                   "%s or one of its functions", who, name))
            continue;
        for (i = 0; i < sizeof(limit_cases) / sizeof(limit_cases[0]); i++) {
            int sig = 0, code;

            fflush(stdout);
            code = limit_try(&im, ki, &limit_cases[i], map + page, &sig);
            ERR_clear_error();
            if (code == -1)
                printf("%s [%s] %s: %s: faulted with signal %d (no up-front check: it read past "
                       "the 64 bytes given)\n", check ? "FAIL" : "note", scope, who,
                       limit_cases[i].what, sig);
            else
                printf("%s [%s] %s: %s: %s\n", !check || code == LIM_REFUSED ? "ok  " : "FAIL",
                       scope, who, limit_cases[i].what, code <= LIM_SETUP && code != 1
                       ? result[code] : "?");
            if (check)
                CHECK(code == LIM_REFUSED, "%s: %s: must be refused up front with an error", who,
                      limit_cases[i].what);
        }
    }
    sigaction(SIGSEGV, &old_segv, NULL);
    sigaction(SIGBUS, &old_bus, NULL);
    munmap(map, (size_t)page * 2);
}

/* ---- bad input ---------------------------------------------------------------------------- */

static void t_bad(int ki)
{
    unsigned char key[32], iv[12], aad[16], msg[64], buf[200];
    EVP_CIPHER_CTX *r = EVP_CIPHER_CTX_new(), *t = EVP_CIPHER_CTX_new();
    int rr, tr, re, te, rl, tl, v;
    char what[80];

    scope = "bad-input";
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    fill(aad, sizeof(aad));
    fill(msg, sizeof(msg));

    /* Key lengths by EVP_CIPHER_CTX_set_key_length and "keylen", each on a fresh pair. */
    for (v = 0; v <= 64; v += (v < 34 ? 1 : 30)) {
        int kind;

        for (kind = 0; kind < 2; kind++) {
            size_t sz = (size_t)v;
            OSSL_PARAM p[2] = { OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, &sz), OSSL_PARAM_END };
            unsigned char tag[16];

            reset2(r, t);
            if (!init2("init key+iv", r, t, ki, 1, key, iv, 1))
                continue;
            snprintf(what, sizeof(what), "%s(%d)", kind == 0 ? "EVP_CIPHER_CTX_set_key_length"
                     : "set_params keylen", v);
            if (kind == 0) {
                RUN(rr, re, EVP_CIPHER_CTX_set_key_length(r, v));
                RUN(tr, te, EVP_CIPHER_CTX_set_key_length(t, v));
            } else {
                RUN(rr, re, EVP_CIPHER_CTX_set_params(r, p));
                RUN(tr, te, EVP_CIPHER_CTX_set_params(t, p));
            }
            outcome(what, rr, re, tr, te);
            if (v == kbits[ki] / 8)
                CHECK(tr == 1, "%s: setting the current length must succeed", what);
            cache_stale = tr == 1 && v != kbits[ki] / 8;
            message2("then a message", r, t, 1, aad, 16, msg, 40, tag);
            cache_stale = 0;
        }
    }

    /* Order: AAD after data, anything after final, final twice. */
    if (init2("init", r, t, ki, 1, key, iv, 1)) {
        aad2("AAD", r, t, aad, 5);
        data2("data", r, t, msg, 10, 0);
        aad2("AAD after data", r, t, aad, 5);
        data2("more data", r, t, msg, 10, 0);
        final2("final", r, t);
        data2("data after final", r, t, msg, 10, 0);
        aad2("AAD after final", r, t, aad, 5);
        final2("final twice", r, t);
    }
    /* AAD after a data update of 0 bytes (nothing was encrypted yet). */
    if (init2("init", r, t, ki, 1, key, iv, 0)) {
        data2("0 bytes of data", r, t, msg, 0, 0);
        aad2("AAD after 0 bytes of data", r, t, aad, 5);
        final2("final", r, t);
    }
    /* AAD after an empty AAD update, and data of 0 bytes as the whole message. */
    if (init2("init", r, t, ki, 1, key, iv, 0)) {
        unsigned char tag[16];

        aad2("0 bytes of AAD", r, t, aad, 0);
        message2("empty message", r, t, 1, aad, 0, msg, 0, tag);
    }
    /* No key. */
    reset2(r, t);
    if (init2("init iv only", r, t, ki, 1, NULL, iv, 1)) {
        aad2("AAD without a key", r, t, aad, 5);
        data2("data without a key", r, t, msg, 5, 0);
        final2("final without a key", r, t);
        gettag2("get tag without a key", r, t, 16, NULL);
    }
    reset2(r, t);
    if (init2("init cipher only", r, t, ki, 0, NULL, NULL, 1)) {
        data2("decrypt with neither key nor IV", r, t, msg, 5, 0);
        final2("final with neither", r, t);
    }
    /* NULL buffers and odd lengths. */
    reset2(r, t);
    if (init2("init", r, t, ki, 1, key, iv, 1)) {
        RUN(rr, re, EVP_EncryptUpdate(r, NULL, &rl, NULL, 0));
        RUN(tr, te, EVP_EncryptUpdate(t, NULL, &tl, NULL, 0));
        outcome("update (NULL, NULL, 0)", rr, re, tr, te);
        RUN(rr, re, EVP_EncryptUpdate(r, buf, &rl, msg, -1));
        RUN(tr, te, EVP_EncryptUpdate(t, buf, &tl, msg, -1));
        outcome("update of -1 bytes", rr, re, tr, te);
        data2("data still goes on", r, t, msg, 20, 0);
        RUN(rr, re, EVP_EncryptUpdate(r, buf, &rl, NULL, 16));
        RUN(tr, te, EVP_EncryptUpdate(t, buf, &tl, NULL, 16));
        deliberate = D_NULL_INPUT;
        if (outcome("update with in == NULL and 16 bytes", rr, re, tr, te)) {
            /* Both took it (as final, in default's way): both are finished. */
            compare_state("after in == NULL", r, t);
            data2("data after in == NULL", r, t, msg, 20, 0);
        }
    }
    reset2(r, t);
    if (init2("init", r, t, ki, 1, key, iv, 1)) {
        unsigned char rb[200], tb[200];

        memcpy(rb, buf, sizeof(rb));
        memcpy(tb, buf, sizeof(tb));
        RUN(rr, re, EVP_EncryptUpdate(r, rb + 1, &rl, rb, 64));
        RUN(tr, te, EVP_EncryptUpdate(t, tb + 1, &tl, tb, 64));
        deliberate = D_OVERLAP;
        if (outcome("update with out one byte past in", rr, re, tr, te))
            CHECK(memcmp(rb, tb, 65) == 0, "partially overlapping update: output differs");
    }
    reset2(r, t);
    if (init2("init decrypt", r, t, ki, 0, key, iv, 1)) {
        RUN(rr, re, EVP_EncryptUpdate(r, buf, &rl, msg, 16));
        RUN(tr, te, EVP_EncryptUpdate(t, buf, &tl, msg, 16));
        outcome("EVP_EncryptUpdate on a decrypting context", rr, re, tr, te);
        RUN(rr, re, EVP_DecryptUpdate(r, NULL, &rl, NULL, 16));
        RUN(tr, te, EVP_DecryptUpdate(t, NULL, &tl, NULL, 16));
        outcome("decrypt update (NULL, NULL, 16)", rr, re, tr, te);
    }
    /* IV length and tag length out of range, on a keyed context mid-message. */
    reset2(r, t);
    if (init2("init decrypt", r, t, ki, 0, key, iv, 1)) {
        static const int ivl[] = { 0, 129, 1000 };
        size_t i;
        unsigned char tag[40] = { 0 };

        data2("5 bytes", r, t, msg, 5, 0);
        for (i = 0; i < sizeof(ivl) / sizeof(ivl[0]); i++) {
            snprintf(what, sizeof(what), "ctrl SET_IVLEN(%d)", ivl[i]);
            ctrl2(what, r, t, EVP_CTRL_AEAD_SET_IVLEN, ivl[i], NULL, 0, 0);
        }
        settag2("set tag(0)", r, t, 0, tag);
        settag2("set tag(17)", r, t, 17, tag);
        settag2("set tag(-1)", r, t, -1, tag);
        ctrl2("set tag(16) with a NULL pointer", r, t, EVP_CTRL_AEAD_SET_TAG, 16, NULL, 0, 0);
        data2("data goes on", r, t, msg, 5, 0);
    }
    free2(r, t);
}

/*
 * Keys a setter does not recognise are ignored (OSSL_PARAM(3)), by both: set mid-message, they
 * change nothing. A known key with a value of the wrong type is still an error for both.
 */
static void t_unknown_params(int ki)
{
    unsigned char key[32], iv[12], msg[100], oct[7] = { 1, 2, 3, 4, 5, 6, 7 }, tag[16];
    unsigned int one = 1, zero = 0;
    char str[] = "value";
    OSSL_PARAM unknown[] = {
        OSSL_PARAM_uint("no-such-param", &one),
        OSSL_PARAM_utf8_string("no-such-string", str, sizeof(str) - 1),
        OSSL_PARAM_octet_string("no-such-octets", oct, sizeof(oct)),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, &zero),        /* a CTR key, not GCM's */
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &zero),
        OSSL_PARAM_END,
    };
    OSSL_PARAM wrong_type[] = {
        OSSL_PARAM_utf8_string(OSSL_CIPHER_PARAM_AEAD_IVLEN, str, sizeof(str) - 1),
        OSSL_PARAM_END,
    };
    EVP_CIPHER_CTX *r = EVP_CIPHER_CTX_new(), *t = EVP_CIPHER_CTX_new();
    int enc;

    scope = "unknown-params";
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    fill(msg, sizeof(msg));
    for (enc = 1; enc >= 0; enc--) {
        if (!init2("init", r, t, ki, enc, key, iv, 1))
            continue;
        data2("5 bytes", r, t, msg, 5, 0);
        CHECK(setparams2("unknown keys mid-message", r, t, unknown), "unknown keys must be "
              "accepted (ignored)");
        setparams2("ivlen as a UTF-8 string", r, t, wrong_type);
        memset(tag, 0, sizeof(tag));
        message2("the rest", r, t, enc, NULL, 0, msg + 5, sizeof(msg) - 5, tag);
    }
    free2(r, t);
}

/* ---- main -------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    int ki, ok;

    /* First, before anything can allocate through OpenSSL (see t_tls13). */
    ok = CRYPTO_set_mem_functions(hook_malloc, hook_realloc, hook_free);
    api_seed(0x13198a2e03707344u);
    if (api_start("gcm_api", argc, argv, &pdef, &ptest) != 0)
        return 1;
    strict_errors = strcmp(tname, "default") != 0;
    scope = "setup";
    CHECK(ok, "CRYPTO_set_mem_functions refused (OpenSSL allocated already)");

    if (!api_fetch_pairs("GCM"))
        goto out;
    for (ki = 0; ki < 3; ki++) {
        int f0 = nfail;

        t_names(ki);
        t_cipher_params(ki);
        t_stream(ki, 1, 0);
        t_stream(ki, 0, 0);
        t_stream(ki, 1, 1);
        t_stream(ki, 0, 1);
        t_bulk(ki, 1);
        t_bulk(ki, 0);
        t_lengths(ki);
        t_one_call(ki);
        t_ivlen(ki);
        t_copy(ki);
        t_reinit(ki);
        t_tag(ki);
        t_iv(ki);
        t_tls12(ki);
        t_tls13(ki);
        t_limits(ki);
        t_bad(ki);
        t_unknown_params(ki);
        printf("gcm_api: AES-%d-GCM: %s\n", kbits[ki], nfail == f0 ? "ok" : "FAILURES");
    }
out:
    return api_finish("gcm_api", pdef, ptest);
}
