/*
 * ctr_api: aesfast's AES-*-CTR, side by side with OpenSSL's default provider, through the public
 * EVP API (OpenSSL 3.0 functions only, so the same binary runs on 3.0 and 3.5 libcrypto).
 *
 * What "correct" means here is "does what the default provider does": every scenario runs on a
 * context of the provider under test (T) and on one of the default provider (R), and compares the
 * return codes, the bytes out, and the parameters (keylen, ivlen, iv, updated-iv, num) afterwards.
 * Where R refuses an input, T must refuse it too and leave an error on the queue.  Where R accepts
 * an odd input, T must accept it too (then its output must equal R's), unless the input is on the
 * short allow-list of deliberate refusals (the D_* strings), where T must refuse with its
 * reason string.
 *
 *   OPENSSL_CONF=aesfast.cnf ./ctr_api [--provider NAME]      (NAME defaults to aesfast)
 *
 * With --provider default it compares default with itself, which checks the test's own logic.
 * Prints "ctr_api: N passed, M failed" and exits 1 on any failure, 77 (skip) when AESFAST_KERNEL
 * names a tier this CPU lacks and the provider therefore refuses to load.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include "apitest.h"

/*
 * The allow-list: inputs that default accepts and aesfast refuses on purpose.  Anything else
 * aesfast refuses while default accepts it is a failure, so a new over-refusal cannot slip in.
 * A scenario names the one deliberate refusal it may meet by setting `deliberate` to its reason
 * string around the call (outcome() resets it); the refusal must then carry that reason.
 */
#define D_NONE NULL
/* A key length other than the cipher's own, via "keylen" or EVP_CIPHER_CTX_set_key_length:
 * default accepts and ignores it (and libcrypto 3.5 then caches a length the context does
 * not have); aesfast says the length is wrong. */
#define D_WRONG_KEYLEN "invalid key length"
/* An IV length other than 16, via "ivlen" or EVP_CTRL_AEAD_SET_IVLEN: same reasoning. */
#define D_WRONG_IVLEN "invalid iv length"

/* ---- helpers ----------------------------------------------------------------------------- */

/* Context parameters that should track each other between R and T after every step. */
struct ctxstate {
    int ok_iv, ok_uiv, ok_num, ok_pad, ok_kl, ok_il;
    unsigned char iv[16], uiv[16];
    unsigned int num, pad;
    int evp_num;                          /* EVP_CIPHER_CTX_get_num */
    size_t kl, il;
};

static void get_state(EVP_CIPHER_CTX *c, struct ctxstate *s)
{
    OSSL_PARAM p[2] = { OSSL_PARAM_END, OSSL_PARAM_END };

    memset(s, 0, sizeof(*s));
    s->ok_iv = EVP_CIPHER_CTX_get_original_iv(c, s->iv, sizeof(s->iv));
    s->ok_uiv = EVP_CIPHER_CTX_get_updated_iv(c, s->uiv, sizeof(s->uiv));
    p[0] = OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_NUM, &s->num);
    s->ok_num = EVP_CIPHER_CTX_get_params(c, p) && OSSL_PARAM_modified(&p[0]);
    p[0] = OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_PADDING, &s->pad);
    s->ok_pad = EVP_CIPHER_CTX_get_params(c, p) && OSSL_PARAM_modified(&p[0]);
    s->evp_num = EVP_CIPHER_CTX_get_num(c);
    p[0] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_KEYLEN, &s->kl);
    s->ok_kl = EVP_CIPHER_CTX_get_params(c, p) && OSSL_PARAM_modified(&p[0]);
    p[0] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &s->il);
    s->ok_il = EVP_CIPHER_CTX_get_params(c, p) && OSSL_PARAM_modified(&p[0]);
    ERR_clear_error();
}

/* Set while libcrypto 3.5's cached key/IV length may be stale (T accepted and ignored a length). */
static int cache_stale;

/* Every step of the harness (apitest.h: init2, data2, final2) ends here, on CTR's parameters. */
void compare_state(const char *what, EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t)
{
    struct ctxstate a, b;

    get_state(r, &a);
    get_state(t, &b);
    CHECK(b.ok_kl && b.kl == a.kl, "%s: keylen %zu (ok=%d), default %zu", what, b.kl, b.ok_kl, a.kl);
    CHECK(b.ok_il && b.il == a.il, "%s: ivlen %zu (ok=%d), default %zu", what, b.il, b.ok_il, a.il);
    /* libcrypto's view (3.5 caches it) must agree with the provider's own answer. */
    if (!cache_stale) {
        CHECK(EVP_CIPHER_CTX_get_key_length(t) == (int)b.kl, "%s: EVP_CIPHER_CTX_get_key_length "
              "%d, provider says %zu", what, EVP_CIPHER_CTX_get_key_length(t), b.kl);
        CHECK(EVP_CIPHER_CTX_get_iv_length(t) == (int)b.il, "%s: EVP_CIPHER_CTX_get_iv_length %d, "
              "provider says %zu", what, EVP_CIPHER_CTX_get_iv_length(t), b.il);
    }
    if (a.ok_iv)
        CHECK(b.ok_iv && memcmp(a.iv, b.iv, 16) == 0, "%s: iv %s (ok=%d), default %s",
              what, hex(b.iv, 16), b.ok_iv, hex(a.iv, 16));
    if (a.ok_uiv)
        CHECK(b.ok_uiv && memcmp(a.uiv, b.uiv, 16) == 0, "%s: updated-iv %s (ok=%d), default %s",
              what, hex(b.uiv, 16), b.ok_uiv, hex(a.uiv, 16));
    /* "num" (bytes of the current keystream block used) and "padding" (meaningless for CTR, but
     * EVP_CIPHER_CTX_set_padding stores it and applications read it back) must read as default's. */
    if (a.ok_num)
        CHECK(b.ok_num && a.num == b.num, "%s: num %u (ok=%d), default %u", what, b.num, b.ok_num,
              a.num);
    CHECK(b.evp_num == a.evp_num, "%s: EVP_CIPHER_CTX_get_num %d, default %d", what, b.evp_num,
          a.evp_num);
    if (a.ok_pad)
        CHECK(b.ok_pad && a.pad == b.pad, "%s: padding %u (ok=%d), default %u", what, b.pad,
              b.ok_pad, a.pad);
}

/* Encrypt (or decrypt) len bytes with a fresh context: the reference answer. */
static int oneshot(const EVP_CIPHER *c, int enc, const unsigned char *key, const unsigned char *iv,
                   const unsigned char *in, size_t len, unsigned char *out)
{
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    int ol = 0, fl = 0, ok;

    ok = x != NULL && EVP_CipherInit_ex2(x, c, key, iv, enc, NULL)
         && EVP_CipherUpdate(x, out, &ol, in, (int)len)
         && EVP_CipherFinal_ex(x, out + ol, &fl) && (size_t)(ol + fl) == len;
    EVP_CIPHER_CTX_free(x);
    return ok;
}

/* ---- scenarios --------------------------------------------------------------------------- */

static void t_names(int ki)
{
    char canon[32];

    scope = "names";
    snprintf(canon, sizeof(canon), "AES-%d-CTR", kbits[ki]);
    compare_names(R[ki], T[ki], canon);
}

static void t_cipher_params(int ki)
{
    static const char *const need_g[] = { OSSL_CIPHER_PARAM_MODE, OSSL_CIPHER_PARAM_KEYLEN,
        OSSL_CIPHER_PARAM_IVLEN, OSSL_CIPHER_PARAM_BLOCK_SIZE, NULL };
    static const char *const need_cg[] = { OSSL_CIPHER_PARAM_KEYLEN, OSSL_CIPHER_PARAM_IVLEN,
        OSSL_CIPHER_PARAM_IV, OSSL_CIPHER_PARAM_UPDATED_IV, NULL };
    static const char *const none[] = { NULL };
    static const struct api_cipher_want want = { EVP_CIPH_CTR_MODE, 16, NULL, 0, need_g, need_cg,
        none };

    api_cipher_params(ki, &want);
}

/* Streams a message in ragged chunks through both, comparing bytes and params after each. */
static void t_stream(int ki, int enc)
{
    static const size_t chunks[] = { 0, 1, 15, 16, 17, 3, 31, 64, 5, 255, 256, 1, 129, 0, 2000 };
    unsigned char key[32], iv[16], msg[4096], whole[4096];
    EVP_CIPHER_CTX *r = EVP_CIPHER_CTX_new(), *t = EVP_CIPHER_CTX_new();
    size_t i, off = 0;
    char what[64];

    scope = enc ? "stream-encrypt" : "stream-decrypt";
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    iv[15] = 0xF0;                      /* crosses a byte carry within the message */
    fill(msg, sizeof(msg));
    if (init2("init key+iv", r, t, ki, enc, key, iv, 1)) {
        CHECK(EVP_CIPHER_CTX_get_block_size(t) == 1, "ctx block size %d",
              EVP_CIPHER_CTX_get_block_size(t));
        for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
            snprintf(what, sizeof(what), "update %zu bytes at %zu", chunks[i], off);
            data2(what, r, t, msg + off, chunks[i], 0);
            off += chunks[i];
        }
        final2("final", r, t);
        /* And the whole thing equals a one-shot reference. */
        {
            EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
            unsigned char *o = malloc(off);
            int l1 = 0, l2 = 0, pos = 0;

            EVP_CipherInit_ex2(x, T[ki], key, iv, enc, NULL);
            for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
                EVP_CipherUpdate(x, o + pos, &l1, msg + pos, (int)chunks[i]);
                pos += l1;
            }
            EVP_CipherFinal_ex(x, o + pos, &l2);
            CHECK(oneshot(R[ki], enc, key, iv, msg, off, whole) && memcmp(o, whole, off) == 0,
                  "chunked output differs from one-shot default");
            free(o);
            EVP_CIPHER_CTX_free(x);
        }
    }
    free2(r, t);
}

/* EVP_CIPHER_CTX_copy in the middle of a block, then both copies go on independently. */
static void t_copy(int ki)
{
    static const size_t cut[] = { 7, 16, 33 };
    unsigned char key[32], iv[16], msg[512], want[512], a[512], b[512];
    size_t k;

    scope = "copy";
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    fill(msg, sizeof(msg));
    oneshot(R[ki], 1, key, iv, msg, sizeof(msg), want);
    for (k = 0; k < 3; k++) {
        EVP_CIPHER_CTX *t = EVP_CIPHER_CTX_new(), *c = EVP_CIPHER_CTX_new(), *r = EVP_CIPHER_CTX_new();
        int l = 0, ok;

        ok = EVP_EncryptInit_ex2(t, T[ki], key, iv, NULL)
             && EVP_EncryptUpdate(t, a, &l, msg, (int)cut[k]);
        CHECK(ok, "encrypt %zu bytes", cut[k]);
        EVP_EncryptInit_ex2(r, R[ki], key, iv, NULL);
        EVP_EncryptUpdate(r, b, &l, msg, (int)cut[k]);
        ok = EVP_CIPHER_CTX_copy(c, t);
        CHECK(ok, "EVP_CIPHER_CTX_copy after %zu bytes", cut[k]);
        if (!ok)
            goto next;
        compare_state("copy vs default", r, c);
        /* The original goes on first (it must not disturb the copy)... */
        CHECK(EVP_EncryptUpdate(t, a + cut[k], &l, msg + cut[k], (int)(sizeof(msg) - cut[k]))
              && memcmp(a, want, sizeof(msg)) == 0, "original after copy at %zu: wrong output", cut[k]);
        /* ...then the original is freed and the copy finishes: it owns its own key schedule. */
        EVP_CIPHER_CTX_free(t);
        t = NULL;
        memcpy(b, a, cut[k]);
        memset(b + cut[k], 0, sizeof(b) - cut[k]);
        CHECK(EVP_EncryptUpdate(c, b + cut[k], &l, msg + cut[k], 100)
              && EVP_EncryptUpdate(c, b + cut[k] + 100, &l, msg + cut[k] + 100,
                                   (int)(sizeof(msg) - cut[k] - 100))
              && memcmp(b, want, sizeof(msg)) == 0, "copy at %zu: wrong output", cut[k]);
        EVP_EncryptUpdate(r, a, &l, msg + cut[k], 100);
        EVP_EncryptUpdate(r, a, &l, msg + cut[k] + 100, (int)(sizeof(msg) - cut[k] - 100));
        compare_state("copy at end", r, c);
next:
        EVP_CIPHER_CTX_free(t);
        EVP_CIPHER_CTX_free(c);
        EVP_CIPHER_CTX_free(r);
    }
}

/* Re-init of a live context: new IV only, new key only, nothing at all. */
static void t_reinit(int ki)
{
    unsigned char key[32], key2[32], iv[16], iv2[16], msg[300], want[300];
    EVP_CIPHER_CTX *r = EVP_CIPHER_CTX_new(), *t = EVP_CIPHER_CTX_new();

    scope = "reinit";
    fill(key, sizeof(key));
    fill(key2, sizeof(key2));
    fill(iv, sizeof(iv));
    fill(iv2, sizeof(iv2));
    fill(msg, sizeof(msg));
    if (init2("init key+iv", r, t, ki, 1, key, iv, 1)) {
        data2("37 bytes", r, t, msg, 37, 0);
        if (init2("reinit (NULL, NULL, iv2)", r, t, ki, 1, NULL, iv2, 0)) {
            unsigned char o[300];
            int l = 0;

            oneshot(R[ki], 1, key, iv2, msg, 150, want);
            CHECK(EVP_EncryptUpdate(t, o, &l, msg, 150) && l == 150 && memcmp(o, want, 150) == 0,
                  "after new IV: output differs from fresh key+iv2");
            EVP_EncryptUpdate(r, o, &l, msg, 150);
            compare_state("after new IV", r, t);
        }
        data2("21 bytes", r, t, msg, 21, 0);
        if (init2("reinit (NULL, key2, NULL)", r, t, ki, 1, key2, NULL, 0))
            data2("after new key", r, t, msg, 77, 0);
        if (init2("reinit (NULL, NULL, NULL)", r, t, ki, 1, NULL, NULL, 0))
            data2("after empty reinit", r, t, msg, 45, 0);
        if (init2("reinit (NULL, key, iv) decrypt", r, t, ki, 0, key, iv, 0))
            data2("after reinit to decrypt", r, t, msg, 64, 0);
    }
    free2(r, t);
}

/* Key and IV supplied in separate init calls, in either order; and neither. */
static void t_split_init(int ki)
{
    unsigned char key[32], iv[16], msg[100];
    EVP_CIPHER_CTX *r = EVP_CIPHER_CTX_new(), *t = EVP_CIPHER_CTX_new();

    scope = "split-init";
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    fill(msg, sizeof(msg));

    if (init2("init key, no iv", r, t, ki, 1, key, NULL, 1)
        && init2("then iv", r, t, ki, 1, NULL, iv, 0))
        data2("update", r, t, msg, 40, 0);

    reset2(r, t);
    if (init2("init iv, no key", r, t, ki, 1, NULL, iv, 1)
        && init2("then key", r, t, ki, 1, key, NULL, 0))
        data2("update", r, t, msg, 40, 0);

    /* Key but never an IV: both run from the all-zero counter (BIO_set_cipher with a NULL IV
     * relies on it); t_no_iv checks the bytes against AES-ECB of the counter blocks. */
    reset2(r, t);
    if (init2("init key only", r, t, ki, 1, key, NULL, 1))
        data2("update with key and no IV ever set", r, t, msg, 40, 0);

    /* No key: update must fail cleanly. */
    scope = "no-key";
    reset2(r, t);
    if (init2("init cipher only", r, t, ki, 1, NULL, NULL, 1)) {
        data2("update before key and IV", r, t, msg, 16, 0);
        final2("final before key", r, t);
    }
    reset2(r, t);
    if (init2("init iv only", r, t, ki, 1, NULL, iv, 1))
        data2("update before key", r, t, msg, 16, 0);
    /* A context with no cipher at all (never initialised) is libcrypto's business, not T's. */
    free2(r, t);
}

/*
 * Wrong key length / IV length requests on a keyed context, each on a fresh pair of contexts
 * (libcrypto 3.5 caches the key and IV length that EVP_CIPHER_CTX_set_params() was given when the
 * provider accepts it; default accepts and ignores keylen/ivlen for CTR, so a shared context would
 * carry R's stale cache into the next probe).  The request may be refused or ignored, but the
 * provider's real key and IV length must not change, and the stream must continue correctly.
 */
enum probe { P_SETKEYLEN, P_PARAM_KEYLEN, P_PARAM_IVLEN, P_CTRL_IVLEN };

static void probe(int ki, enum probe kind, int v)
{
    static const char *const kname[] = { "EVP_CIPHER_CTX_set_key_length", "set_params keylen",
        "set_params ivlen", "ctrl EVP_CTRL_AEAD_SET_IVLEN" };
    unsigned char key[32], iv[16], msg[64];
    EVP_CIPHER_CTX *r = EVP_CIPHER_CTX_new(), *t = EVP_CIPHER_CTX_new();
    struct ctxstate ts;
    size_t sv = (size_t)v;
    OSSL_PARAM rp[2], tp[2];
    char what[96];
    int rr = 0, tr = 0, re = 0, te = 0;

    snprintf(what, sizeof(what), "%s(%d) on AES-%d", kname[kind], v, kbits[ki]);
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    fill(msg, sizeof(msg));
    if (!init2("init", r, t, ki, 1, key, iv, 1))
        goto end;
    data2("first 5 bytes", r, t, msg, 5, 0);
    rp[0] = OSSL_PARAM_construct_size_t(kind == P_PARAM_KEYLEN ? OSSL_CIPHER_PARAM_KEYLEN
                                                               : OSSL_CIPHER_PARAM_IVLEN, &sv);
    rp[1] = OSSL_PARAM_construct_end();
    memcpy(tp, rp, sizeof(tp));
    switch (kind) {
    case P_SETKEYLEN:
        RUN(rr, re, EVP_CIPHER_CTX_set_key_length(r, v));
        RUN(tr, te, EVP_CIPHER_CTX_set_key_length(t, v));
        break;
    case P_PARAM_KEYLEN:
    case P_PARAM_IVLEN:
        RUN(rr, re, EVP_CIPHER_CTX_set_params(r, rp));
        RUN(tr, te, EVP_CIPHER_CTX_set_params(t, tp));
        break;
    case P_CTRL_IVLEN:
        RUN(rr, re, EVP_CIPHER_CTX_ctrl(r, EVP_CTRL_AEAD_SET_IVLEN, v, NULL));
        RUN(tr, te, EVP_CIPHER_CTX_ctrl(t, EVP_CTRL_AEAD_SET_IVLEN, v, NULL));
        break;
    }
    /* A wrong length is on the allow-list; the right one must be accepted (checked below). */
    if ((kind == P_SETKEYLEN || kind == P_PARAM_KEYLEN) && v != kbits[ki] / 8)
        deliberate = D_WRONG_KEYLEN;
    if ((kind == P_PARAM_IVLEN || kind == P_CTRL_IVLEN) && v != 16)
        deliberate = D_WRONG_IVLEN;
    outcome(what, rr, re, tr, te);
    if ((kind == P_SETKEYLEN || kind == P_PARAM_KEYLEN) && v == kbits[ki] / 8)
        CHECK(tr == 1, "%s: setting the current length must succeed", what);
    if ((kind == P_PARAM_IVLEN || kind == P_CTRL_IVLEN) && v == 16 && rr == 1)
        CHECK(tr == 1, "%s: setting the current length must succeed", what);
    get_state(t, &ts);
    CHECK(ts.ok_kl && ts.kl == (size_t)kbits[ki] / 8, "%s: %s now reports keylen %zu",
          what, tname, ts.kl);
    CHECK(ts.ok_il && ts.il == 16, "%s: %s now reports ivlen %zu", what, tname, ts.il);
    /*
     * If T accepted a length it then ignored, libcrypto 3.5 caches the requested value (default
     * does exactly that for CTR), so EVP_CIPHER_CTX_get_*_length would lie; check it only when T
     * refused, which is what a provider should do with a length it does not support.
     */
    cache_stale = tr == 1;
    if (!cache_stale) {
        CHECK(EVP_CIPHER_CTX_get_key_length(t) == kbits[ki] / 8,
              "%s: EVP_CIPHER_CTX_get_key_length %d", what, EVP_CIPHER_CTX_get_key_length(t));
        CHECK(EVP_CIPHER_CTX_get_iv_length(t) == 16, "%s: EVP_CIPHER_CTX_get_iv_length %d",
              what, EVP_CIPHER_CTX_get_iv_length(t));
    }
    data2("the rest after the request", r, t, msg + 5, sizeof(msg) - 5, 0);
    cache_stale = 0;
end:
    free2(r, t);
}

static void t_bad_lengths(int ki)
{
    static const int klens[] = { 0, 1, 15, 16, 17, 24, 32, 33, 64 };
    static const int ivlens[] = { 0, 8, 12, 15, 16, 17, 32 };
    unsigned char key[32], iv[16], msg[64];
    EVP_CIPHER_CTX *r = EVP_CIPHER_CTX_new(), *t = EVP_CIPHER_CTX_new();
    size_t i;

    scope = "bad-lengths";
    for (i = 0; i < sizeof(klens) / sizeof(klens[0]); i++) {
        probe(ki, P_SETKEYLEN, klens[i]);
        probe(ki, P_PARAM_KEYLEN, klens[i]);
    }
    for (i = 0; i < sizeof(ivlens) / sizeof(ivlens[0]); i++) {
        probe(ki, P_PARAM_IVLEN, ivlens[i]);
        probe(ki, P_CTRL_IVLEN, ivlens[i]);
    }
    /* A too-small buffer for the IV must be refused, not overflowed. */
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    fill(msg, sizeof(msg));
    if (init2("init", r, t, ki, 1, key, iv, 1)) {
        data2("5 bytes", r, t, msg, 5, 0);
        short_iv_reads(r, t);
        data2("the rest", r, t, msg + 5, sizeof(msg) - 5, 0);
    }
    free2(r, t);
}

/* Misc calls that must behave as default: padding, zero-length update, in-place. */
static void t_misc(int ki)
{
    unsigned char key[32], iv[16], buf[1000], want[1000];
    EVP_CIPHER_CTX *r = EVP_CIPHER_CTX_new(), *t = EVP_CIPHER_CTX_new();
    int rr, tr, re, te, l = 0;
    size_t n;

    scope = "misc";
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    if (init2("init", r, t, ki, 1, key, iv, 1)) {
        RUN(rr, re, EVP_CIPHER_CTX_set_padding(r, 0));
        RUN(tr, te, EVP_CIPHER_CTX_set_padding(t, 0));
        outcome("set_padding(0)", rr, re, tr, te);
        data2("0-byte update", r, t, buf, 0, 0);
    }
    /* In place, lengths 0..200 and a few large ones. */
    for (n = 0; n <= sizeof(buf); n += (n < 200 ? 1 : 199)) {
        fill(buf, n);
        oneshot(R[ki], 1, key, iv, buf, n, want);
        EVP_EncryptInit_ex2(t, T[ki], key, iv, NULL);
        if (!CHECK(EVP_EncryptUpdate(t, buf, &l, buf, (int)n) && (size_t)l == n
                   && memcmp(buf, want, n) == 0, "in-place %zu bytes", n))
            break;
    }
    free2(r, t);
}

/*
 * EVP_CIPHER_CTX_set_num at a block boundary and mid-block.  Default's CTR has block size 1 and
 * refuses any num >= 1 (with an error); num 0 is accepted and drops the rest of the current
 * keystream block.  Then the stream goes on, and bytes and state must still match.
 */
static void t_set_num(int ki)
{
    static const int nums[] = { 0, 1, 5, 15, 16 };
    static const size_t before[] = { 0, 5, 16 };
    unsigned char key[32], iv[16], msg[100];
    size_t i, j;

    scope = "set-num";
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    fill(msg, sizeof(msg));
    for (j = 0; j < sizeof(before) / sizeof(before[0]); j++)
        for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
            EVP_CIPHER_CTX *r = EVP_CIPHER_CTX_new(), *t = EVP_CIPHER_CTX_new();
            int rr, tr, re, te, tn;
            char what[80];

            snprintf(what, sizeof(what), "set_num(%d) after %zu bytes", nums[i], before[j]);
            if (init2("init", r, t, ki, 1, key, iv, 1)) {
                data2("before set_num", r, t, msg, before[j], 0);
                tn = EVP_CIPHER_CTX_get_num(t);
                RUN(rr, re, EVP_CIPHER_CTX_set_num(r, nums[i]));
                RUN(tr, te, EVP_CIPHER_CTX_set_num(t, nums[i]));
                outcome(what, rr, re, tr, te);
                /* Spelled out, so the expectation does not hang on default alone. */
                if (nums[i] == 0)
                    CHECK(tr == 1, "%s: %s refuses num 0", what, tname);
                else
                    CHECK(tr != 1 && te, "%s: %s must refuse num >= 1 with an error", what,
                          tname);
                CHECK(EVP_CIPHER_CTX_get_num(t) == (tr == 1 ? nums[i] : tn),
                      "%s: EVP_CIPHER_CTX_get_num %d after it (was %d)", what,
                      EVP_CIPHER_CTX_get_num(t), tn);
                compare_state(what, r, t);
                snprintf(what, sizeof(what), "stream after set_num(%d) at %zu", nums[i],
                         before[j]);
                data2(what, r, t, msg + before[j], sizeof(msg) - before[j], 0);
            }
            free2(r, t);
        }
}

/* After both took padding = v: T's reads back as default stores it (v != 0); then the state. */
static void padding_stored(const char *what, EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t, unsigned int v)
{
    struct ctxstate b;

    get_state(t, &b);
    CHECK(b.ok_pad && b.pad == (v != 0), "%s: reads back %u (ok=%d), want %u", what, b.pad,
          b.ok_pad, v != 0);
    compare_state(what, r, t);
}

/* "padding": read after init, then after each of set_params(padding = 0, 1, 5) and
 * EVP_CIPHER_CTX_set_padding(0, 1, 5).  Default stores (value != 0) and starts at 1. */
static void t_padding(int ki)
{
    static const unsigned int vals[] = { 0, 1, 5 };
    unsigned char key[32], iv[16], msg[64];
    EVP_CIPHER_CTX *r = EVP_CIPHER_CTX_new(), *t = EVP_CIPHER_CTX_new();
    struct ctxstate a, b;
    size_t i;
    int rr, tr, re, te;
    char what[64];

    scope = "padding";
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    fill(msg, sizeof(msg));
    /* Straight after newctx (the cipher alone), before any key. */
    if (init2("init cipher only", r, t, ki, 1, NULL, NULL, 1)) {
        get_state(r, &a);
        get_state(t, &b);
        CHECK(b.ok_pad && b.pad == 1 && (!a.ok_pad || a.pad == 1),
              "padding after init: %u (ok=%d), default %u (ok=%d); both should read 1",
              b.pad, b.ok_pad, a.pad, a.ok_pad);
    }
    if (!init2("init key+iv", r, t, ki, 1, key, iv, 0))
        goto end;
    for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
        unsigned int rv = vals[i], tv = vals[i];
        OSSL_PARAM rp[2] = { OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_PADDING, &rv),
                             OSSL_PARAM_END };
        OSSL_PARAM tp[2] = { OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_PADDING, &tv),
                             OSSL_PARAM_END };

        snprintf(what, sizeof(what), "set_params padding = %u", vals[i]);
        RUN(rr, re, EVP_CIPHER_CTX_set_params(r, rp));
        RUN(tr, te, EVP_CIPHER_CTX_set_params(t, tp));
        if (outcome(what, rr, re, tr, te))
            padding_stored(what, r, t, vals[i]);
        data2("7 bytes", r, t, msg + 7 * i, 7, 0);

        snprintf(what, sizeof(what), "EVP_CIPHER_CTX_set_padding(%u)", vals[i]);
        RUN(rr, re, EVP_CIPHER_CTX_set_padding(r, (int)vals[i]));
        RUN(tr, te, EVP_CIPHER_CTX_set_padding(t, (int)vals[i]));
        if (outcome(what, rr, re, tr, te))
            padding_stored(what, r, t, vals[i]);
        data2("3 bytes", r, t, msg + 7 * i + 40, 3, 0);
    }
end:
    free2(r, t);
}

/*
 * The TLS and CFB1 parameters that default's generic cipher layer accepts for every cipher:
 * "tls-version" (uint), "tls-mac-size" (size_t), "use-bits" (uint).  Each is set alone mid-block,
 * in both directions; both providers must accept it, and the stream must go on unchanged.  A
 * parameter T accepts must also be in its settable list.
 *
 * Not compared: tls-version > 0 together with tls-mac-size > 0 when decrypting.  Default then
 * treats each update as a TLS record and hides the last tls-mac-size bytes of its output (outl
 * shrinks, "tls-mac" points at them); for a stream cipher that TLS never uses with CTR this is
 * meaningless, and aesfast ignores the pair.  Only acceptance is checked there.
 */
static void t_ignored_params(int ki)
{
    static const char *const names[] = { OSSL_CIPHER_PARAM_TLS_VERSION,
        OSSL_CIPHER_PARAM_TLS_MAC_SIZE, OSSL_CIPHER_PARAM_USE_BITS };
    unsigned char key[32], iv[16], msg[100];
    const OSSL_PARAM *settable = EVP_CIPHER_settable_ctx_params(T[ki]);
    size_t i;
    int enc, both;

    scope = "ignored-params";
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    fill(msg, sizeof(msg));
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        CHECK(has_param(settable, names[i]), "%s lacks settable \"%s\" (default has it)", tname,
              names[i]);
    for (enc = 0; enc <= 1; enc++)
        for (i = 0; i <= sizeof(names) / sizeof(names[0]); i++) {
            EVP_CIPHER_CTX *r = EVP_CIPHER_CTX_new(), *t = EVP_CIPHER_CTX_new();
            unsigned int uv = 0x0303;     /* TLS 1.2; for use-bits any non-zero value */
            size_t sv = 20;               /* an HMAC-SHA1 tag */
            OSSL_PARAM p[3] = { OSSL_PARAM_END, OSSL_PARAM_END, OSSL_PARAM_END };
            int rr, tr, re, te;
            char what[96];

            both = i == sizeof(names) / sizeof(names[0]);
            if (both) {                   /* the pair, see above */
                p[0] = OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_TLS_VERSION, &uv);
                p[1] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &sv);
                snprintf(what, sizeof(what), "set tls-version + tls-mac-size (%s)",
                         enc ? "encrypt" : "decrypt");
            } else {
                if (strcmp(names[i], OSSL_CIPHER_PARAM_TLS_MAC_SIZE) == 0)
                    p[0] = OSSL_PARAM_construct_size_t(names[i], &sv);
                else
                    p[0] = OSSL_PARAM_construct_uint(names[i], &uv);
                snprintf(what, sizeof(what), "set %s (%s)", names[i], enc ? "encrypt" : "decrypt");
            }
            if (init2("init", r, t, ki, enc, key, iv, 1)) {
                data2("5 bytes", r, t, msg, 5, 0);
                RUN(rr, re, EVP_CIPHER_CTX_set_params(r, p));
                RUN(tr, te, EVP_CIPHER_CTX_set_params(t, p));
                outcome(what, rr, re, tr, te);
                CHECK(tr == 1, "%s: %s must accept it", what, tname);
                if (!both || enc)
                    data2("the rest", r, t, msg + 5, sizeof(msg) - 5, 0);
            }
            free2(r, t);
        }
}

/*
 * Keys a setter does not recognise are ignored (OSSL_PARAM(3): "keys that a setter doesn't
 * recognise should simply be ignored"), by default and by aesfast alike: each list below is set
 * mid-block, both must accept it, and the stream must go on with identical bytes and state. A
 * known key in the same list still takes effect; a known key with a value of the wrong type is
 * still an error for both.
 */
static void t_unknown_params(int ki)
{
    unsigned char key[32], iv[16], msg[100], oct[7] = { 1, 2, 3, 4, 5, 6, 7 };
    unsigned int one = 1, zero = 0;
    size_t big = 99;
    char str[] = "value";
    OSSL_PARAM uint_only[] = { OSSL_PARAM_uint("no-such-param", &one), OSSL_PARAM_END };
    OSSL_PARAM mixed[] = {
        OSSL_PARAM_utf8_string("no-such-string", str, sizeof(str) - 1),
        OSSL_PARAM_octet_string("no-such-octets", oct, sizeof(oct)),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &zero),    /* known: must still apply */
        OSSL_PARAM_size_t("tag", &big),                       /* a GCM key, not CTR's */
        OSSL_PARAM_END,
    };
    OSSL_PARAM wrong_type[] = {                               /* known key, wrong type */
        OSSL_PARAM_utf8_string(OSSL_CIPHER_PARAM_PADDING, str, sizeof(str) - 1),
        OSSL_PARAM_uint("no-such-param", &one),
        OSSL_PARAM_END,
    };
    static const struct { const char *what; int must_accept; } cases[] = {
        { "set one unknown uint", 1 },
        { "set unknown string, octets, size_t and a known padding = 0", 1 },
        { "set padding as a UTF-8 string, with an unknown key", 0 },
    };
    OSSL_PARAM *lists[] = { uint_only, mixed, wrong_type };
    size_t i;
    int enc;

    scope = "unknown-params";
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    fill(msg, sizeof(msg));
    for (enc = 0; enc <= 1; enc++)
        for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
            EVP_CIPHER_CTX *r = EVP_CIPHER_CTX_new(), *t = EVP_CIPHER_CTX_new();
            int rr, tr, re, te;
            char what[96];

            snprintf(what, sizeof(what), "%s (%s)", cases[i].what, enc ? "encrypt" : "decrypt");
            if (init2("init", r, t, ki, enc, key, iv, 1)) {
                data2("5 bytes", r, t, msg, 5, 0);
                RUN(rr, re, EVP_CIPHER_CTX_set_params(r, lists[i]));
                RUN(tr, te, EVP_CIPHER_CTX_set_params(t, lists[i]));
                outcome(what, rr, re, tr, te);
                /* Spelled out, so the expectation does not hang on default alone. */
                if (cases[i].must_accept)
                    CHECK(tr == 1 && rr == 1, "%s: %s %d, default %d; both must accept", what,
                          tname, tr, rr);
                else
                    CHECK(tr != 1 && te, "%s: %s must refuse it with an error", what, tname);
                ERR_clear_error();
                compare_state(what, r, t);
                data2("the rest", r, t, msg + 5, sizeof(msg) - 5, 0);
            }
            free2(r, t);
        }
}

/* Counter edges (32-, 64-, 128-bit carries) and many lengths, one call and chunked. */
static void t_counter(int ki)
{
    static const size_t lens[] = { 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256,
        257, 511, 512, 513, 1027, 4111, 65537 };
    static unsigned char msg[65537], a[65537], want[65537];
    unsigned char key[32], iv[16], base[16];
    int e, li, l, fails = 0;

    scope = "counter";
    fill(key, sizeof(key));
    fill(base, sizeof(base));
    fill(msg, sizeof(msg));
    for (e = 0; e < 5; e++) {
        memcpy(iv, base, 16);
        if (e == 1) memset(iv + 12, 0xFF, 4), iv[15] = 0xFD;          /* 32-bit carry */
        if (e == 2) memset(iv + 8, 0xFF, 8), iv[15] = 0xFE;           /* 64-bit carry */
        if (e == 3) memset(iv, 0xFF, 16), iv[15] = 0xFC;              /* 128-bit wrap */
        if (e == 4) memset(iv + 4, 0xFF, 12), iv[15] = 0xF0;          /* 96-bit carry */
        for (li = 0; li < (int)(sizeof(lens) / sizeof(lens[0])); li++) {
            size_t n = lens[li], off = 0, c = 1;
            EVP_CIPHER_CTX *t = EVP_CIPHER_CTX_new(), *r = EVP_CIPHER_CTX_new();

            oneshot(R[ki], 1, key, iv, msg, n, want);
            if (!CHECK(oneshot(T[ki], 1, key, iv, msg, n, a) && memcmp(a, want, n) == 0,
                       "iv %s, %zu bytes in one call", hex(iv, 16), n))
                fails++;
            EVP_EncryptInit_ex2(t, T[ki], key, iv, NULL);
            EVP_EncryptInit_ex2(r, R[ki], key, iv, NULL);
            while (off < n) {                     /* ragged chunks: 1, 3, 7, ... bytes */
                size_t k = c < n - off ? c : n - off;

                EVP_EncryptUpdate(t, a + off, &l, msg + off, (int)k);
                EVP_EncryptUpdate(r, want + off, &l, msg + off, (int)k);
                off += k;
                c = (c * 2 + 1) % 97;
            }
            if (!CHECK(memcmp(a, want, n) == 0, "iv %s, %zu bytes in chunks", hex(iv, 16), n))
                fails++;
            compare_state("counter end", r, t);
            EVP_CIPHER_CTX_free(t);
            EVP_CIPHER_CTX_free(r);
            if (fails > 5)
                return;
        }
    }
}

/* BIO_set_cipher with a key and a NULL IV (OpenSSL's test_bio_enc does so): the same bytes
 * through a cipher BIO on both providers. */
static size_t bio_encrypt(const EVP_CIPHER *c, const unsigned char *key, const unsigned char *msg,
                          size_t n, unsigned char *out)
{
    BIO *mem = BIO_new(BIO_s_mem()), *b = BIO_new(BIO_f_cipher());
    char *p = NULL;
    long got = 0;

    if (mem != NULL && b != NULL && BIO_set_cipher(b, c, key, NULL, 1)) {
        b = BIO_push(b, mem);
        if (BIO_write(b, msg, (int)n) == (int)n && BIO_flush(b) > 0)
            got = BIO_get_mem_data(mem, &p);
        if (got > 0 && (size_t)got <= n)
            memcpy(out, p, (size_t)got);
        BIO_free_all(b);
        return got > 0 ? (size_t)got : 0;
    }
    BIO_free(b);
    BIO_free(mem);
    return 0;
}

/* A key but never an IV: the all-zero counter, as the default provider runs it; the reference
 * is AES-ECB (default provider) of the counter blocks 0, 1, 2 (2.5 blocks), and the same bytes
 * must come through a cipher BIO (BIO_set_cipher with a NULL IV) on both providers. */
static void t_no_iv(int ki)
{
    static const unsigned char ctrs[48] = {[15] = 0, [31] = 1, [47] = 2};
    unsigned char key[32], msg[100], r[100], tb[100], ks[48], ct[40], zero[40] = {0};
    char ecb[16];
    EVP_CIPHER *e;
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new(), *t = EVP_CIPHER_CTX_new();
    int kl = 0, l, ok;
    size_t nr, nt;

    scope = "no-iv";
    fill(key, sizeof(key));
    fill(msg, sizeof(msg));
    snprintf(ecb, sizeof(ecb), "AES-%d-ECB", kbits[ki]);
    e = EVP_CIPHER_fetch(NULL, ecb, "provider=default");
    ok = e != NULL && x != NULL && EVP_EncryptInit_ex2(x, e, key, NULL, NULL)
         && EVP_CIPHER_CTX_set_padding(x, 0) && EVP_EncryptUpdate(x, ks, &kl, ctrs, 48) && kl == 48;
    CHECK(ok, "AES-ECB reference keystream");
    CHECK(t != NULL && EVP_EncryptInit_ex2(t, T[ki], key, NULL, NULL)
          && EVP_EncryptUpdate(t, ct, &l, zero, 40) && l == 40 && memcmp(ct, ks, 40) == 0,
          "update with no IV ever set: keystream of the all-zero counter");
    nr = bio_encrypt(R[ki], key, msg, sizeof(msg), r);
    nt = bio_encrypt(T[ki], key, msg, sizeof(msg), tb);
    CHECK(nr == sizeof(msg) && nt == nr && memcmp(r, tb, nr) == 0,
          "BIO_set_cipher with a NULL IV: %zu and %zu bytes, the same bytes", nr, nt);
    EVP_CIPHER_free(e);
    EVP_CIPHER_CTX_free(x);
    EVP_CIPHER_CTX_free(t);
    ERR_clear_error();
}

/*
 * Bad input that aesfast refuses where the default provider goes along: each must fail with
 * aesfast's own error (its reason string or message), never produce output.
 */
static void t_refusals(int ki)
{
    unsigned char key[32], iv[16], buf[200];
    EVP_CIPHER_CTX *t = EVP_CIPHER_CTX_new();
    int l = -1;

    scope = "refusals";
    if (strcmp(tname, "aesfast") != 0)
        goto done;
    fill(key, sizeof(key));
    fill(iv, sizeof(iv));
    fill(buf, sizeof(buf));

    ERR_clear_error();
    /* out one byte past in: every output byte would overwrite input not yet read. */
    CHECK(EVP_EncryptInit_ex2(t, T[ki], key, iv, NULL), "init");
    CHECK(!EVP_EncryptUpdate(t, buf + 1, &l, buf, 64) && queue_says("partially overlap"),
          "partially overlapping in and out are refused");

    /* A wrong key length at init. */
    EVP_CIPHER_CTX_reset(t);
    CHECK(EVP_EncryptInit_ex2(t, T[ki], NULL, NULL, NULL), "init cipher only");
    {
        size_t wrong = (size_t)kbits[ki] / 8 + 8;
        OSSL_PARAM p[] = { OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, &wrong), OSSL_PARAM_END };

        CHECK(!EVP_CIPHER_CTX_set_params(t, p) && queue_says("invalid key length"),
              "keylen %zu is refused with \"invalid key length\"", wrong);
    }
done:
    ERR_clear_error();
    EVP_CIPHER_CTX_free(t);
}

/* ---- main -------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    OSSL_PROVIDER *pdef, *ptest;
    int ki;

    api_seed(0x243f6a8885a308d3u);
    if (api_start("ctr_api", argc, argv, &pdef, &ptest) != 0)
        return 1;

    if (!api_fetch_pairs("CTR"))
        goto out;
    for (ki = 0; ki < 3; ki++) {
        int f0 = nfail;

        t_names(ki);
        t_cipher_params(ki);
        t_stream(ki, 1);
        t_stream(ki, 0);
        t_copy(ki);
        t_reinit(ki);
        t_split_init(ki);
        t_bad_lengths(ki);
        t_misc(ki);
        t_set_num(ki);
        t_padding(ki);
        t_ignored_params(ki);
        t_unknown_params(ki);
        t_counter(ki);
        t_refusals(ki);
        t_no_iv(ki);
        printf("ctr_api: AES-%d-CTR: %s\n", kbits[ki], nfail == f0 ? "ok" : "FAILURES");
    }
out:
    return api_finish("ctr_api", pdef, ptest);
}
