/*
 * thread_test: aesfast under concurrent use, every output compared with the default provider.
 *
 *   thread_test MODULE_PATH [--threads T] [--messages N] [--seed S] [--expect-kernel TIER]
 *
 * Two phases, in this order, in one process:
 *
 * 1. First use. Nothing in the process has loaded the module yet (the test checks that it is not
 *    mapped; it then maps it with dlopen, which runs none of its code, so that the threads'
 *    initialisations are not queued behind one dlopen). T threads, released together by a
 *    barrier, each load it with OSSL_PROVIDER_load
 *    from its path into one fresh library context they all share, and into a fresh one of their
 *    own: so the module's one-time paths (the CPU detection and the debug switch behind
 *    pthread_once, the capture of the core's error functions) and OSSL_provider_init run on
 *    several threads at once, for one instance and for several. Each thread then fetches ciphers
 *    in both contexts (a fetch must come from the instance loaded there and report the expected
 *    tier) and checks a few messages against the default provider of the same context.
 *
 * 2. Stress. The default library context, configured from OPENSSL_CONF (the build's aesfast.cnf),
 *    holds one aesfast instance; the main thread fetches each of the 9 ciphers (AES-128/192/256
 *    -CTR, -GCM, -GCM-SIV) once from aesfast and once from default, and T threads share those
 *    EVP_CIPHER objects, each with its own contexts. Each thread seals and opens N random messages
 *    (random cipher, key, IV, AAD, length up to 64 KiB, a few larger) through aesfast: AAD and
 *    data in random update sizes (GCM-SIV: its data in one update, as its contract says), in
 *    place or not, an EVP_CIPHER_CTX_copy mid-message that the message then continues on, re-inits
 *    (a context reused without naming the cipher after a junk message was left half done; an
 *    IV-only re-init after junk AAD and data), and one message in 8 on a cipher the thread
 *    fetches itself and frees after, so fetches and frees run concurrently with use. Each
 *    ciphertext and tag must equal the reference's, computed in the same thread; the open must
 *    give the plaintext back, and with a flipped tag bit must fail. 0 differences allowed.
 *
 * The references: CTR and GCM, the default provider's one-shot encryption. GCM-SIV: the test's
 * own RFC 8452 (below: POLYVAL bit by bit, with the default provider's AES-ECB for the key
 * derivation, the tag and the counter blocks), checked against RFC 8452's vectors at start; and
 * where the default provider has GCM-SIV (OpenSSL 3.2+, where it must), that too.
 *
 * A failure prints the thread, the message and the seed; exit 0 pass, 1 fail.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include "testutil.h"

/* ThreadSanitizer runs the instrumented code (the generic tier's kernels included) 5-15 times
 * slower: fewer messages there. A race needs the threads to overlap, which they still do. */
#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif

#define DEFAULT_THREADS 8
#ifdef UNDER_TSAN
#define DEFAULT_MESSAGES 60
#else
#define DEFAULT_MESSAGES 250
#endif
#define DEFAULT_SEED 0x7468726561647331u /* "threads1" */
#define MAX_THREADS 64
#define MAX_AAD 512
#define MAX_LEN (256 * 1024)
#define FIRST_USE_MESSAGES 4
#define FIRST_USE_ROUNDS 4

enum mode { CTR, GCM, SIV };

static const struct alg {
    const char *name, *ecb;
    enum mode mode;
    size_t keylen;
} algs[9] = {
    {"AES-128-CTR", "AES-128-ECB", CTR, 16},     {"AES-192-CTR", "AES-192-ECB", CTR, 24},
    {"AES-256-CTR", "AES-256-ECB", CTR, 32},     {"AES-128-GCM", "AES-128-ECB", GCM, 16},
    {"AES-192-GCM", "AES-192-ECB", GCM, 24},     {"AES-256-GCM", "AES-256-ECB", GCM, 32},
    {"AES-128-GCM-SIV", "AES-128-ECB", SIV, 16}, {"AES-192-GCM-SIV", "AES-192-ECB", SIV, 24},
    {"AES-256-GCM-SIV", "AES-256-ECB", SIV, 32},
};
#define NALGS 9

/* The ciphers of one library context: aesfast's, default's (ref NULL: default has none, as
 * GCM-SIV on OpenSSL 3.0 and 3.1) and default's AES-ECB per key size (the GCM-SIV reference). */
struct ciphers {
    OSSL_LIB_CTX *libctx;
    const OSSL_PROVIDER *prov; /* the aesfast instance every test cipher must come from */
    EVP_CIPHER *test[NALGS], *ref[NALGS], *ecb[3];
};

static const char *module_path, *expect_kernel;
static unsigned nthreads = DEFAULT_THREADS;
static uint64_t nmessages = DEFAULT_MESSAGES, seed = DEFAULT_SEED;
static int need_siv_ref; /* OpenSSL 3.2+: default's GCM-SIV must exist and is compared too */
static atomic_uint failures;
static atomic_ulong total_messages, total_bytes, total_copies, total_reinits, total_fetches;

/* One worker's state: its contexts, its random stream, and what it is doing (for reports). */
struct worker {
    unsigned id;
    const struct ciphers *c;
    tu_rng rng;
    EVP_CIPHER_CTX *t, *r, *ecb; /* t is reused from message to message */
    uint64_t msg;
    const char *phase;
    char what[160];
    uint8_t *buf[4]; /* pt, ct, reference ct, scratch; MAX_LEN + 32 bytes each */
};

static void fail(struct worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(struct worker *w, const char *fmt, ...)
{
    char msg[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* One fprintf per report, so reports of concurrent threads do not interleave. */
    fprintf(stderr, "thread_test: FAIL %s thread %u message %llu (seed 0x%016llx) %s: %s\n",
            w->phase, w->id, (unsigned long long)w->msg, (unsigned long long)seed, w->what, msg);
    ERR_print_errors_fp(stderr);
    atomic_fetch_add(&failures, 1);
}

/* ---- The GCM-SIV reference (RFC 8452) -------------------------------------------------------- */

/* An element of POLYVAL's field: lo holds bytes 0..7 of the block and hi bytes 8..15, each
 * little-endian, so bit i of the 128-bit number is the coefficient of x^i. */
typedef struct {
    uint64_t lo, hi;
} fe;

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;

    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

/* a * b * x^-128 modulo x^128 + x^127 + x^126 + x^121 + 1 (RFC 8452's dot), bit by bit: for each
 * bit of a from x^0 up, add b if it is set, then divide by x (adding the modulus first when the
 * x^0 coefficient is 1, which makes the division exact). Branches on data: test code only. */
static fe dot(fe a, fe b)
{
    fe acc = {0, 0};

    for (int i = 0; i < 128; i++) {
        uint64_t bit = (i < 64 ? a.lo >> i : a.hi >> (i - 64)) & 1, carry = 0;

        if (bit) {
            acc.lo ^= b.lo;
            acc.hi ^= b.hi;
        }
        if (acc.lo & 1) { /* + x^128 + x^127 + x^126 + x^121 + 1 */
            acc.lo ^= 1;
            acc.hi ^= (uint64_t)1 << 63 | (uint64_t)1 << 62 | (uint64_t)1 << 57;
            carry = 1;
        }
        acc.lo = acc.lo >> 1 | acc.hi << 63;
        acc.hi = acc.hi >> 1 | carry << 63;
    }
    return acc;
}

/* s = dot(s + X, h) for each 16-byte block X of data, the last one zero-padded. */
static fe polyval_blocks(fe s, fe h, const uint8_t *data, size_t len)
{
    for (size_t off = 0; off < len; off += 16) {
        uint8_t blk[16] = {0};

        memcpy(blk, data + off, len - off < 16 ? len - off : 16);
        s.lo ^= le64(blk);
        s.hi ^= le64(blk + 8);
        s = dot(s, h);
    }
    return s;
}

/* n AES blocks under key by default's ECB in one update. */
static int ecb_blocks(EVP_CIPHER_CTX *x, const EVP_CIPHER *ecb, const uint8_t *key,
                      const uint8_t *in, uint8_t *out, size_t n)
{
    int outl = -1;

    return EVP_EncryptInit_ex2(x, ecb, key, NULL, NULL) && EVP_CIPHER_CTX_set_padding(x, 0)
           && EVP_EncryptUpdate(x, out, &outl, in, (int)(16 * n)) && outl == (int)(16 * n);
}

/* RFC 8452 AES-GCM-SIV sealing: out = ciphertext (len bytes), tag. The message-encryption key
 * has keylen bytes: 2, 3 or 4 derived halves (OpenSSL's AES-192-GCM-SIV takes 3). Returns 0 if
 * the ECB calls fail. */
static int siv_reference(EVP_CIPHER_CTX *x, const EVP_CIPHER *ecb, size_t keylen,
                         const uint8_t *key, const uint8_t nonce[12], const uint8_t *aad,
                         size_t aadlen, const uint8_t *pt, size_t len, uint8_t *out,
                         uint8_t tag[16])
{
    const size_t nder = 2 + keylen / 8;
    uint8_t in[6 * 16] = {0}, der[6 * 16], auth[16], enc[32], blk[16], ctr[16];
    fe s = {0, 0}, h;

    for (size_t j = 0; j < nder; j++) {
        in[16 * j] = (uint8_t)j; /* LE32(j) || nonce */
        memcpy(in + 16 * j + 4, nonce, 12);
    }
    if (!ecb_blocks(x, ecb, key, in, der, nder))
        return 0;
    memcpy(auth, der, 8);
    memcpy(auth + 8, der + 16, 8);
    for (size_t j = 2; j < nder; j++)
        memcpy(enc + 8 * (j - 2), der + 16 * j, 8);
    h = (fe){le64(auth), le64(auth + 8)};

    s = polyval_blocks(s, h, aad, aadlen);
    s = polyval_blocks(s, h, pt, len);
    put_le64(blk, (uint64_t)aadlen * 8);
    put_le64(blk + 8, (uint64_t)len * 8);
    s = polyval_blocks(s, h, blk, 16);
    put_le64(blk, s.lo);
    put_le64(blk + 8, s.hi);
    for (int i = 0; i < 12; i++)
        blk[i] ^= nonce[i];
    blk[15] &= 0x7f;
    if (!ecb_blocks(x, ecb, enc, blk, tag, 1))
        return 0;

    /* CTR from the tag with its top bit set; the first 4 bytes count little-endian, mod 2^32. */
    memcpy(ctr, tag, 16);
    ctr[15] |= 0x80;
    for (size_t off = 0; off < len; off += 16) {
        uint8_t ks[16];
        uint32_t c = (uint32_t)ctr[0] | (uint32_t)ctr[1] << 8 | (uint32_t)ctr[2] << 16
                     | (uint32_t)ctr[3] << 24;

        if (!ecb_blocks(x, ecb, enc, ctr, ks, 1))
            return 0;
        for (size_t i = 0; i < 16 && off + i < len; i++)
            out[off + i] = pt[off + i] ^ ks[i];
        c++;
        for (int i = 0; i < 4; i++)
            ctr[i] = (uint8_t)(c >> (8 * i));
    }
    OPENSSL_cleanse(der, sizeof(der));
    OPENSSL_cleanse(enc, sizeof(enc));
    return 1;
}

/* The reference itself, on RFC 8452's POLYVAL example (appendix A) and two of its AEAD vectors
 * (C.1 and C.2: three blocks; AAD and a partial block, for AES-128 and AES-256), before any thread uses it. */
static void siv_reference_selftest(const struct ciphers *c)
{
    static const struct {
        size_t keylen;
        const char *key, *nonce, *aad, *pt, *ct_tag;
    } v[] = {
        {16, "01000000000000000000000000000000", "030000000000000000000000", "",
         "0100000000000000", "b5d839330ac7b786578782fff6013b815b287c22493a364c"},
        {16, "01000000000000000000000000000000", "030000000000000000000000", "",
         "010000000000000000000000000000000200000000000000000000000000000003000000000000000000"
         "000000000000",
         "3fd24ce1f5a67b75bf2351f181a475c7b800a5b4d3dcf70106b1eea82fa1d64df42bf7226122fa92e17a"
         "40eeaac1201b5e6e311dbf395d35b0fe39c2714388f8"},
        {16, "01000000000000000000000000000000", "030000000000000000000000", "01",
         "020000000000000000000000",
         "296c7889fd99f41917f4462008299c5102745aaa3a0c469fad9e075a"},
        {32, "0100000000000000000000000000000000000000000000000000000000000000",
         "030000000000000000000000", "01", "020000000000000000000000",
         "163d6f9cc1b346cd453a2e4cc1a4a19ae800941ccdc57cc8413c277f"},
    };
    size_t n;
    uint8_t *hv = tu_hex_decode("25629347589242761d31f826ba4b757b", &n);
    uint8_t *x = tu_hex_decode("4f4f95668c83dfb6401762bb2d01a262d1a24ddd2721d006bbe45f20d3c9f362",
                               &n);
    uint8_t *want = tu_hex_decode("f7a3b47b846119fae5b7866cf5e5b77e", &n), got[16];
    fe s = polyval_blocks((fe){0, 0}, (fe){le64(hv), le64(hv + 8)}, x, 32);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

    put_le64(got, s.lo);
    put_le64(got + 8, s.hi);
    if (memcmp(got, want, 16) != 0)
        tu_die("the test's POLYVAL misses RFC 8452's appendix A example");
    free(hv);
    free(x);
    free(want);
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        size_t kl, nl, al, pl, cl;
        uint8_t *key = tu_hex_decode(v[i].key, &kl), *nonce = tu_hex_decode(v[i].nonce, &nl);
        uint8_t *aad = tu_hex_decode(v[i].aad, &al), *pt = tu_hex_decode(v[i].pt, &pl);
        uint8_t *ct = tu_hex_decode(v[i].ct_tag, &cl), out[64], tag[16];

        if (ctx == NULL || !siv_reference(ctx, c->ecb[(v[i].keylen - 16) / 8], v[i].keylen, key,
                                          nonce, aad, al, pt, pl, out, tag)
            || cl != pl + 16 || memcmp(out, ct, pl) != 0 || memcmp(tag, ct + pl, 16) != 0)
            tu_die("the test's GCM-SIV misses RFC 8452's vector %zu", i + 1);
        free(key);
        free(nonce);
        free(aad);
        free(pt);
        free(ct);
    }
    EVP_CIPHER_CTX_free(ctx);
}

/* ---- The references --------------------------------------------------------------------------- */

static int set_ivlen(EVP_CIPHER_CTX *x, size_t ivlen)
{
    return EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_IVLEN, (int)ivlen, NULL) > 0;
}

/* The message a worker seals and opens. */
struct message {
    int a; /* index into algs */
    const EVP_CIPHER *cipher; /* the aesfast cipher used: the shared one, or one just fetched */
    uint8_t key[32], iv[128], aad[MAX_AAD], tag[16];
    size_t ivlen, aadlen, len;
    const uint8_t *pt;
    uint8_t *ct; /* the reference ciphertext */
};

/* The default provider's one-shot sealing of m (CTR: encryption), on w->r; for GCM-SIV, the
 * test's RFC 8452 and, where default has GCM-SIV, default's, which must agree. */
static int reference(struct worker *w, struct message *m)
{
    const struct alg *al = &algs[m->a];
    const EVP_CIPHER *ref = w->c->ref[m->a];
    EVP_CIPHER_CTX *x = w->r;
    uint8_t none[1] = {0}, fin[16];
    int outl = -1;

    if (al->mode == SIV) {
        uint8_t *dct = w->buf[3], dtag[16];

        if (!siv_reference(w->ecb, w->c->ecb[(al->keylen - 16) / 8], al->keylen, m->key, m->iv,
                           m->aad, m->aadlen, m->pt, m->len, m->ct, m->tag)) {
            fail(w, "the GCM-SIV reference's ECB calls failed");
            return 0;
        }
        if (ref == NULL)
            return 1;
        /* Default's, on a fresh provider context (an init naming the cipher), AAD in one update
         * and none if empty (3.5 keeps AAD across re-inits and resets it on an empty update). */
        if (!EVP_CipherInit_ex2(x, ref, m->key, m->iv, 1, NULL)
            || (m->aadlen != 0 && !EVP_CipherUpdate(x, NULL, &outl, m->aad, (int)m->aadlen))
            || !EVP_CipherUpdate(x, m->len ? dct : none, &outl, m->len ? m->pt : none,
                                 (int)m->len)
            || outl != (int)m->len || !EVP_CipherFinal_ex(x, fin, &outl)
            || !EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, 16, dtag)) {
            fail(w, "the default provider's GCM-SIV failed");
            return 0;
        }
        if (memcmp(dct, m->ct, m->len) != 0 || memcmp(dtag, m->tag, 16) != 0) {
            fail(w, "the default provider's GCM-SIV and the test's RFC 8452 differ");
            return 0;
        }
        return 1;
    }
    if (!EVP_CipherInit_ex(x, ref, NULL, NULL, NULL, 1)
        || (al->mode == GCM && !set_ivlen(x, m->ivlen))
        || !EVP_CipherInit_ex(x, NULL, NULL, m->key, m->iv, 1)
        || (al->mode == GCM && !EVP_CipherUpdate(x, NULL, &outl, m->aad, (int)m->aadlen))
        || !EVP_CipherUpdate(x, m->ct, &outl, m->pt, (int)m->len) || outl != (int)m->len
        || !EVP_CipherFinal_ex(x, fin, &outl) || outl != 0
        || (al->mode == GCM && !EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, 16, m->tag))) {
        fail(w, "the default provider's %s failed", al->name);
        return 0;
    }
    return 1;
}

/* ---- Through aesfast ------------------------------------------------------------------------ */

/* A random update size for len - pos remaining bytes: one call, 0, a few bytes, a block and
 * one either side, or anything. */
static size_t chunk(tu_rng *r, size_t remaining)
{
    size_t n;

    switch (tu_rng_below(r, 8)) {
    case 0: n = remaining; break;
    case 1: n = 0; break;
    case 2: n = 1 + tu_rng_below(r, 15); break;
    case 3: n = 15 + tu_rng_below(r, 3); break;
    case 4: n = 16 * (1 + tu_rng_below(r, 16)); break;
    default: n = tu_rng_below(r, remaining + 1); break;
    }
    return n < remaining ? n : remaining;
}

/* Replace w->t by a copy of itself (EVP_CIPHER_CTX_copy), freeing the original. */
static int copy_ctx(struct worker *w)
{
    EVP_CIPHER_CTX *dup = EVP_CIPHER_CTX_new();

    if (dup == NULL || !EVP_CIPHER_CTX_copy(dup, w->t)) {
        EVP_CIPHER_CTX_free(dup);
        fail(w, "EVP_CIPHER_CTX_copy failed");
        return 0;
    }
    EVP_CIPHER_CTX_free(w->t);
    w->t = dup;
    atomic_fetch_add(&total_copies, 1);
    return 1;
}

/* Leave w->t mid-message: key (junk unless key is given), junk IV of the message's length, some
 * junk AAD and data, as a context abandoned half way. */
static int dirty(struct worker *w, const struct message *m, const uint8_t *key, int enc)
{
    const struct alg *al = &algs[m->a];
    uint8_t junk[32 + 128 + 40], out[40];
    int outl;

    tu_rng_fill(&w->rng, junk, sizeof(junk));
    if (!EVP_CipherInit_ex(w->t, m->cipher, NULL, NULL, NULL, enc)
        || (al->mode == GCM && !set_ivlen(w->t, m->ivlen))
        || !EVP_CipherInit_ex(w->t, NULL, NULL, key != NULL ? key : junk, junk + 32, enc))
        return 0;
    if (al->mode != CTR && !EVP_CipherUpdate(w->t, NULL, &outl, junk + 160, 13))
        return 0;
    if (al->mode == SIV)
        return 1; /* its data update would finish the message */
    return EVP_CipherUpdate(w->t, out, &outl, junk + 160, 21) && outl == 21;
}

/* Initialise w->t for m in one of four ways: fresh (naming the cipher), reused after a junk
 * message without naming it (the provider context is kept: it must start afresh), the key kept
 * and only the IV re-initialised after a junk message under the same key (GCM, CTR), or cipher
 * first, then key and IV. */
static int init(struct worker *w, const struct message *m, int enc)
{
    const struct alg *al = &algs[m->a];
    int how = (int)tu_rng_below(&w->rng, 4);

    if (how == 2 && al->mode == SIV)
        how = 1;
    switch (how) {
    case 1: /* reused, not naming the cipher */
        if (!dirty(w, m, NULL, enc))
            return 0;
        atomic_fetch_add(&total_reinits, 1);
        return (al->mode != GCM || set_ivlen(w->t, m->ivlen))
               && EVP_CipherInit_ex(w->t, NULL, NULL, m->key, m->iv, -1);
    case 2: /* the same key, a new IV alone */
        if (!dirty(w, m, m->key, enc))
            return 0;
        atomic_fetch_add(&total_reinits, 1);
        return EVP_CipherInit_ex(w->t, NULL, NULL, NULL, m->iv, -1);
    case 3: /* cipher, then key and IV */
            return EVP_CipherInit_ex(w->t, m->cipher, NULL, NULL, NULL, enc)
               && (al->mode != GCM || set_ivlen(w->t, m->ivlen))
               && EVP_CipherInit_ex(w->t, NULL, NULL, m->key, m->iv, -1);
    default:
            if (al->mode == GCM && m->ivlen != 12)
            return EVP_CipherInit_ex(w->t, m->cipher, NULL, NULL, NULL, enc)
                   && set_ivlen(w->t, m->ivlen)
                   && EVP_CipherInit_ex(w->t, NULL, NULL, m->key, m->iv, -1);
        return EVP_CipherInit_ex2(w->t, m->cipher, m->key, m->iv, enc, NULL);
    }
}

/* Copy w->t once the message's position (bytes of AAD, then of data) has reached *at. */
static int maybe_copy(struct worker *w, size_t *at, size_t position)
{
    if (position < *at)
        return 1;
    *at = SIZE_MAX;
    return copy_ctx(w);
}

/*
 * One direction of m through aesfast on w->t: enc seals m->pt and must give m->ct and m->tag;
 * !enc opens m->ct under tag and must give m->pt (tag == m->tag) or fail (a flipped tag).
 * Returns 1 if the outcome is the expected one.
 */
static int run(struct worker *w, struct message *m, int enc, const uint8_t *tag, int expect_ok)
{
    const struct alg *al = &algs[m->a];
    const uint8_t *in = enc ? m->pt : m->ct, *want = enc ? m->ct : m->pt;
    uint8_t *out = w->buf[1] + tu_rng_below(&w->rng, 16), got_tag[16], fin[16], none[1] = {0};
    size_t pos = 0, streamed = m->aadlen + (al->mode == SIV ? 0 : m->len);
    size_t copy_at = tu_rng_below(&w->rng, 8) == 0 ? tu_rng_below(&w->rng, streamed + 1)
                                                    : SIZE_MAX;
    int outl, ok;
    const char *dir = enc ? "seal" : "open";

    if (tu_rng_below(&w->rng, 3) == 0) { /* in place */
        memmove(out, in, m->len);
        in = out;
    }
    if (!init(w, m, enc)) {
        fail(w, "%s: init failed", dir);
        return 0;
    }
    if (al->mode == GCM && !enc
        && !EVP_CIPHER_CTX_ctrl(w->t, EVP_CTRL_AEAD_SET_TAG, 16, (void *)tag)) {
        fail(w, "%s: setting the tag failed", dir);
        return 0;
    }
    if (!maybe_copy(w, &copy_at, 0))
        return 0;
    /* AAD in random pieces (none empty for GCM-SIV: 3.5's default would take one as a reset,
     * and to aesfast it is nothing). */
    while (pos < m->aadlen) {
        size_t n = chunk(&w->rng, m->aadlen - pos);

        if (n == 0 && al->mode == SIV)
            continue;
        if (!EVP_CipherUpdate(w->t, NULL, &outl, m->aad + pos, (int)n)) {
            fail(w, "%s: AAD update failed at %zu", dir, pos);
            return 0;
        }
        pos += n;
        if (!maybe_copy(w, &copy_at, pos))
            return 0;
    }

    if (al->mode == SIV) {
        if (!enc && !EVP_CIPHER_CTX_ctrl(w->t, EVP_CTRL_AEAD_SET_TAG, 16, (void *)tag)) {
            fail(w, "%s: setting the tag failed", dir);
            return 0;
        }
        if (!maybe_copy(w, &copy_at, m->aadlen))
            return 0;
        /* The data in one update, as GCM-SIV takes it; a wrong tag fails it, not final. */
        ok = EVP_CipherUpdate(w->t, m->len ? out : none, &outl, m->len ? in : none,
                              (int)m->len);
        if (!expect_ok) {
            if (ok)
                fail(w, "open with a wrong tag succeeded");
            ERR_clear_error();
            return !ok;
        }
        if (!ok || outl != (int)m->len) {
            fail(w, "%s: data update failed", dir);
            return 0;
        }
    } else {
        pos = 0;
        do { /* at least one call, so that an empty message makes one too */
            size_t n = chunk(&w->rng, m->len - pos);

            if (!EVP_CipherUpdate(w->t, out + pos, &outl, in + pos, (int)n) || outl != (int)n) {
                fail(w, "%s: data update of %zu bytes at %zu failed", dir, n, pos);
                return 0;
            }
            pos += n;
            if (!maybe_copy(w, &copy_at, m->aadlen + pos))
                return 0;
        } while (pos < m->len);
    }
    ok = EVP_CipherFinal_ex(w->t, fin, &outl);
    if (!expect_ok) {
        if (ok)
            fail(w, "open with a wrong tag succeeded");
        ERR_clear_error();
        return !ok;
    }
    if (!ok || outl != 0) {
        fail(w, "%s: final failed", dir);
        return 0;
    }
    if (memcmp(out, want, m->len) != 0) {
        fail(w, "%s: output differs from the reference at byte %zu", dir,
             tu_first_diff(out, want, m->len));
        return 0;
    }
    if (enc && al->mode != CTR) {
        if (!EVP_CIPHER_CTX_ctrl(w->t, EVP_CTRL_AEAD_GET_TAG, 16, got_tag)) {
            fail(w, "seal: reading the tag failed");
            return 0;
        }
        if (memcmp(got_tag, m->tag, 16) != 0) {
            fail(w, "seal: the tag differs from the reference's");
            return 0;
        }
    }
    atomic_fetch_add(&total_bytes, m->len);
    return 1;
}

/* One random message on cipher a (from c, or just fetched when fetched != NULL): reference,
 * seal, open, and for the AEADs an open with one tag bit flipped. */
static void one_message(struct worker *w, int a, const EVP_CIPHER *cipher)
{
    const struct alg *al = &algs[a];
    struct message m = {.a = a, .cipher = cipher, .pt = w->buf[0], .ct = w->buf[2]};
    uint64_t u = tu_rng_below(&w->rng, 100);

    tu_rng_fill(&w->rng, m.key, sizeof(m.key));
    m.ivlen = al->mode == CTR ? 16 : al->mode == SIV || tu_rng_below(&w->rng, 4) != 0
                                         ? 12 : 1 + tu_rng_below(&w->rng, 128);
    tu_rng_fill(&w->rng, m.iv, m.ivlen);
    m.aadlen = al->mode == CTR || tu_rng_below(&w->rng, 4) == 0 ? 0
                                                                 : tu_rng_below(&w->rng, MAX_AAD);
    tu_rng_fill(&w->rng, m.aad, m.aadlen);
    /* 75% 0..1 KiB, 24% 1..64 KiB, 1% 64..256 KiB. */
    m.len = u < 75 ? tu_rng_below(&w->rng, 1025)
          : u < 99 ? 1024 + tu_rng_below(&w->rng, 63 * 1024)
                   : 64 * 1024 + tu_rng_below(&w->rng, MAX_LEN - 64 * 1024);
    tu_rng_fill(&w->rng, w->buf[0], m.len);
    snprintf(w->what, sizeof(w->what), "%s ivlen %zu aadlen %zu len %zu", al->name, m.ivlen,
             m.aadlen, m.len);

    if (!reference(w, &m) || !run(w, &m, 1, m.tag, 1) || !run(w, &m, 0, m.tag, 1))
        return;
    if (al->mode != CTR) {
        uint8_t bad[16];

        memcpy(bad, m.tag, 16);
        bad[tu_rng_below(&w->rng, 16)] ^= (uint8_t)(1u << tu_rng_below(&w->rng, 8));
        if (!run(w, &m, 0, bad, 0))
            return;
    }
    atomic_fetch_add(&total_messages, 1);
}

static int worker_start(struct worker *w, unsigned id, const struct ciphers *c, const char *phase)
{
    memset(w, 0, sizeof(*w));
    w->id = id;
    w->c = c;
    w->phase = phase;
    tu_rng_seed(&w->rng, seed, (uint64_t)(phase[0] == 's') << 32 | id);
    w->t = EVP_CIPHER_CTX_new();
    w->r = EVP_CIPHER_CTX_new();
    w->ecb = EVP_CIPHER_CTX_new();
    for (int i = 0; i < 4; i++)
        w->buf[i] = tu_xmalloc(MAX_LEN + 32);
    return w->t != NULL && w->r != NULL && w->ecb != NULL;
}

static void worker_end(struct worker *w)
{
    EVP_CIPHER_CTX_free(w->t);
    EVP_CIPHER_CTX_free(w->r);
    EVP_CIPHER_CTX_free(w->ecb);
    for (int i = 0; i < 4; i++)
        free(w->buf[i]);
}

/* ---- Fetching ------------------------------------------------------------------------------- */

static const char *kernel_of(const OSSL_PROVIDER *prov, char *buf, size_t cap)
{
    const char *k = NULL;
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_utf8_ptr("aesfast-kernel", (char **)&k, 0),
                       OSSL_PARAM_construct_end()};

    snprintf(buf, cap, "%s", OSSL_PROVIDER_get_params((OSSL_PROVIDER *)prov, p) && k != NULL
                             ? k : "(none)");
    return buf;
}

/* aesfast's cipher a in c's library context; NULL (with a failure reported) unless it comes from
 * the instance c->prov. */
static EVP_CIPHER *fetch_test(struct worker *w, const struct ciphers *c, int a)
{
    EVP_CIPHER *ci = EVP_CIPHER_fetch(c->libctx, algs[a].name, "provider=aesfast");

    atomic_fetch_add(&total_fetches, 1);
    if (ci == NULL) {
        fail(w, "fetching %s from aesfast failed", algs[a].name);
    } else if (EVP_CIPHER_get0_provider(ci) != c->prov) {
        fail(w, "%s came from provider %s, not the aesfast instance loaded",
             algs[a].name, OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(ci)));
        EVP_CIPHER_free(ci);
        ci = NULL;
    }
    return ci;
}

/* Default's ciphers in c->libctx: each of the 9 (GCM-SIV's only where it exists, which is
 * required on 3.2+), and AES-ECB. Exits on failure: this runs before or outside the threads. */
static void fetch_refs(struct ciphers *c)
{
    static const char *const ecb[3] = {"AES-128-ECB", "AES-192-ECB", "AES-256-ECB"};

    for (int a = 0; a < NALGS; a++) {
        c->ref[a] = EVP_CIPHER_fetch(c->libctx, algs[a].name, "provider=default");
        if (c->ref[a] == NULL && (algs[a].mode != SIV || need_siv_ref))
            tu_die("the default provider has no %s", algs[a].name);
        ERR_clear_error();
    }
    for (int k = 0; k < 3; k++)
        if ((c->ecb[k] = EVP_CIPHER_fetch(c->libctx, ecb[k], "provider=default")) == NULL)
            tu_die("the default provider has no %s", ecb[k]);
}

static void free_ciphers(struct ciphers *c)
{
    for (int a = 0; a < NALGS; a++) {
        EVP_CIPHER_free(c->test[a]);
        EVP_CIPHER_free(c->ref[a]);
    }
    for (int k = 0; k < 3; k++)
        EVP_CIPHER_free(c->ecb[k]);
}

/* ---- Phase 1: first use ----------------------------------------------------------------------- */

/* 1 if the module file is mapped into this process (/proc/self/maps), -1 if that cannot be
 * read. */
static int module_mapped(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    const char *base = strrchr(module_path, '/');
    char line[4096];
    int found = 0;

    if (f == NULL)
        return -1;
    base = base != NULL ? base + 1 : module_path;
    while (fgets(line, sizeof(line), f) != NULL) {
        char *nl = strchr(line, '\n'), *name = strrchr(line, '/');

        if (nl != NULL)
            *nl = '\0';
        if (name != NULL && strcmp(name + 1, base) == 0)
            found = 1;
    }
    fclose(f);
    return found;
}

static OSSL_LIB_CTX *shared_libctx;
static OSSL_PROVIDER *shared_default;
static void *module_handle;
static pthread_barrier_t barrier;
static atomic_uint arrived, finished, own_loads;

/* Messages on ciphers fetched in libctx, where this thread has just loaded aesfast as prov,
 * against default of that context; the instance must report want_kernel, if not NULL. */
static void first_use_in(struct worker *w, OSSL_LIB_CTX *libctx, const OSSL_PROVIDER *prov,
                         const char *want_kernel, int messages)
{
    struct ciphers c = {.libctx = libctx, .prov = prov};
    char kernel[32];

    if (want_kernel != NULL && strcmp(kernel_of(prov, kernel, sizeof(kernel)), want_kernel) != 0)
        fail(w, "an instance runs kernel %s, not %s", kernel, want_kernel);
    fetch_refs(&c);
    w->c = &c;
    for (int i = 0; i < messages; i++) {
        int a = (int)((w->id + (unsigned)(w->msg + i) * 4) % NALGS);
        EVP_CIPHER *ci = fetch_test(w, &c, a);

        if (ci == NULL)
            break;
        one_message(w, a, ci);
        EVP_CIPHER_CTX_reset(w->t);
        EVP_CIPHER_free(ci);
    }
    w->msg += (uint64_t)messages;
    free_ciphers(&c);
    w->c = NULL;
}

static void *first_use_thread(void *arg)
{
    struct worker w;
    OSSL_PROVIDER *shared_prov;
    char shared_kernel[32];
    unsigned rounds = 0;

    if (!worker_start(&w, (unsigned)(uintptr_t)arg, NULL, "first-use"))
        tu_die("out of memory");
    /* Start together: the barrier, then a spin until every thread is past it (on a loaded
     * machine, waking them all takes milliseconds), then straight into the load. */
    pthread_barrier_wait(&barrier);
    atomic_fetch_add(&arrived, 1);
    while (atomic_load(&arrived) < nthreads)
        sched_yield();
    shared_prov = OSSL_PROVIDER_load(shared_libctx, module_path);
    if (shared_prov == NULL) {
        fail(&w, "OSSL_PROVIDER_load(%s) into the shared library context failed", module_path);
        goto out;
    }
    kernel_of(shared_prov, shared_kernel, sizeof(shared_kernel));
    /* Fresh library contexts of its own, each loaded and unloaded: at least FIRST_USE_ROUNDS,
     * and on until every thread has done as many, so that loads and unloads overlap. */
    do {
        OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
        OSSL_PROVIDER *def = libctx == NULL ? NULL : OSSL_PROVIDER_load(libctx, "default");
        OSSL_PROVIDER *prov = def == NULL ? NULL : OSSL_PROVIDER_load(libctx, module_path);

        if (prov == NULL) {
            fail(&w, "a fresh library context with default and %s failed", module_path);
        } else {
            atomic_fetch_add(&own_loads, 1);
            first_use_in(&w, libctx, prov, expect_kernel ? expect_kernel : shared_kernel,
                         rounds == 0 ? FIRST_USE_MESSAGES : 1);
        }
        OSSL_PROVIDER_unload(prov);
        OSSL_PROVIDER_unload(def);
        OSSL_LIB_CTX_free(libctx);
        if (++rounds == FIRST_USE_ROUNDS)
            atomic_fetch_add(&finished, 1);
    } while (rounds < FIRST_USE_ROUNDS
             || (atomic_load(&finished) < nthreads && rounds < 50 * FIRST_USE_ROUNDS));
    first_use_in(&w, shared_libctx, shared_prov, expect_kernel, FIRST_USE_MESSAGES);
    OSSL_PROVIDER_unload(shared_prov);
out:
    worker_end(&w);
    return NULL;
}

static void first_use(void)
{
    pthread_t th[MAX_THREADS];
    int mapped = module_mapped();

    if (mapped != 0)
        tu_die(mapped < 0 ? "cannot read /proc/self/maps"
                          : "the module is loaded before the first-use phase: it would not test "
                            "the first use");
    if ((shared_libctx = OSSL_LIB_CTX_new()) == NULL
        || (shared_default = OSSL_PROVIDER_load(shared_libctx, "default")) == NULL)
        tu_die("cannot make a library context with the default provider");
    if (module_mapped() != 0)
        tu_die("the module got loaded before the first-use phase (by making a library context)");
    /* Map the module now, from here: the loads below then find it mapped, and their
     * OSSL_provider_init calls overlap instead of queueing behind the first dlopen (glibc
     * serialises loading). Mapping runs none of aesfast's code (it has no ELF constructors);
     * its first use is still the threads'. */
    if ((module_handle = dlopen(module_path, RTLD_NOW | RTLD_LOCAL)) == NULL)
        tu_die("dlopen(%s): %s", module_path, dlerror());
    if (pthread_barrier_init(&barrier, NULL, nthreads) != 0)
        tu_die("pthread_barrier_init failed");
    for (unsigned i = 0; i < nthreads; i++)
        if (pthread_create(&th[i], NULL, first_use_thread, (void *)(uintptr_t)i) != 0)
            tu_die("pthread_create failed");
    for (unsigned i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&barrier);
    OSSL_PROVIDER_unload(shared_default);
    OSSL_LIB_CTX_free(shared_libctx);
    dlclose(module_handle);
    printf("first use: %u threads loaded aesfast at once into one shared library context, and "
           "into %u fresh ones of their own (at least %d each, overlapping): %lu messages\n",
           nthreads, atomic_load(&own_loads), FIRST_USE_ROUNDS, atomic_load(&total_messages));
}

/* ---- Phase 2: stress ----------------------------------------------------------------------------- */

static struct ciphers shared;

static void *stress_thread(void *arg)
{
    struct worker w;

    if (!worker_start(&w, (unsigned)(uintptr_t)arg, &shared, "stress"))
        tu_die("out of memory");
    pthread_barrier_wait(&barrier);
    for (w.msg = 0; w.msg < nmessages; w.msg++) {
        int a = (int)tu_rng_below(&w.rng, NALGS);
        EVP_CIPHER *mine = NULL;

        if (tu_rng_below(&w.rng, 8) == 0 && (mine = fetch_test(&w, &shared, a)) == NULL)
            continue;
        one_message(&w, a, mine != NULL ? mine : shared.test[a]);
        EVP_CIPHER_free(mine);
    }
    worker_end(&w);
    return NULL;
}

static void stress(void)
{
    tu_providers p;
    pthread_t th[MAX_THREADS];
    char kernel[32];

    /* The counters count this phase only. */
    atomic_store(&total_messages, 0);
    atomic_store(&total_bytes, 0);
    atomic_store(&total_copies, 0);
    atomic_store(&total_reinits, 0);
    atomic_store(&total_fetches, 0);
    tu_providers_load(&p, "aesfast", expect_kernel);
    shared.libctx = NULL;
    shared.prov = p.test;
    for (int a = 0; a < NALGS; a++)
        shared.test[a] = tu_fetch_cipher(algs[a].name, "aesfast");
    fetch_refs(&shared);
    siv_reference_selftest(&shared);
    if (pthread_barrier_init(&barrier, NULL, nthreads) != 0)
        tu_die("pthread_barrier_init failed");
    for (unsigned i = 0; i < nthreads; i++)
        if (pthread_create(&th[i], NULL, stress_thread, (void *)(uintptr_t)i) != 0)
            tu_die("pthread_create failed");
    for (unsigned i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&barrier);
    printf("stress: %u threads on kernel %s, sharing the 9 ciphers: %lu messages (%lu bytes) "
           "sealed, opened and tampered with, %lu context copies, %lu re-inits, %lu fetches; "
           "GCM-SIV reference: RFC 8452%s\n", nthreads, kernel_of(p.test, kernel, sizeof(kernel)),
           atomic_load(&total_messages), atomic_load(&total_bytes), atomic_load(&total_copies),
           atomic_load(&total_reinits), atomic_load(&total_fetches),
           shared.ref[6] != NULL ? " and the default provider" : " (the default provider has none)");
    free_ciphers(&shared);
    tu_providers_unload(&p);
}

int main(int argc, char **argv)
{
    double t0;

    tu_init(argv[0]);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            nthreads = (unsigned)tu_parse_u64("--threads", argv[++i]);
        else if (strcmp(argv[i], "--messages") == 0 && i + 1 < argc)
            nmessages = tu_parse_u64("--messages", argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = tu_parse_u64("--seed", argv[++i]);
        else if (strcmp(argv[i], "--expect-kernel") == 0 && i + 1 < argc)
            expect_kernel = argv[++i];
        else if (argv[i][0] != '-' && module_path == NULL)
            module_path = argv[i];
        else
            tu_die("usage: thread_test MODULE_PATH [--threads T] [--messages N] [--seed S] "
                   "[--expect-kernel TIER]");
    }
    if (module_path == NULL || nthreads < 1 || nthreads > MAX_THREADS)
        tu_die("usage: thread_test MODULE_PATH [--threads 1..%d] [--messages N] [--seed S] "
               "[--expect-kernel TIER]", MAX_THREADS);
    need_siv_ref = OPENSSL_version_major() > 3
                   || (OPENSSL_version_major() == 3 && OPENSSL_version_minor() >= 2);

    t0 = tu_now();
    first_use();
    stress();
    printf("%s, %u failures, %.2f s\n", OpenSSL_version(OPENSSL_VERSION),
           atomic_load(&failures), tu_now() - t0);
    return atomic_load(&failures) == 0 ? 0 : 1;
}
