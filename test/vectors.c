/*
 * vectors: known-answer tests from the shared vector files, for every mode aesfast offers.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * usage: vectors --mode ctr|gcm|gcmsiv [--provider NAME] [--expect-kernel NAME] DIR
 *
 * DIR is the vectors folder (test/vectors, see its SOURCES.md); a missing folder is a failure,
 * not a skip. "--provider default" checks the expectations below on the default provider.
 *
 * --mode ctr:
 *   boringssl/cipher_tests.txt         OpenSSL evptest stanzas "Name = value" (blank lines
 *                                      between): RFC 3686 and a 0x7FFF... carry regression.
 *   boringssl/nist_cavp/aes_*_ctr.txt  the same stanza format with "Name: value": NIST CAVP
 *                                      single-block KATs recast as CTR.
 *   cryptopp/aes.txt                   Crypto++ TestVectors: "Name: value" lines, fields persist
 *                                      until changed (AlgorithmType starts afresh), "Test:" runs
 *                                      one; CRLF, "\" continuations, "rN" repeats, quoted text.
 *                                      Its AES/CTR sections: SP 800-38A F.5, RFC 3686 (incl.
 *                                      192-bit), one long odd-length vector.
 *   Every vector runs encrypt and decrypt, in one update and in odd chunks (byte by byte, mixed
 *   sizes with empty updates, in place on unaligned buffers), and checks the updated-iv parameter
 *   against IV + ceil(len/16).
 *
 * --mode gcm:
 *   boringssl/cipher_tests.txt         its AES-{128,192,256}-GCM stanzas: the GCM spec's test
 *                                      cases, streaming-GHASH add-ons, "Operation = InvalidDecrypt"
 *                                      (must fail).
 *   boringssl/aes_*_gcm_tests.txt      BoringSSL's AEAD format: KEY/NONCE/IN/AD/CT/TAG stanzas.
 *   cryptopp/gcm.txt                   Crypto++ AES/GCM: Key/IV/Header/Plaintext/Ciphertext/MAC,
 *                                      "Test: Encrypt", or "Test: NotVerify" (must fail).
 *   wycheproof/aes_gcm_test.json       all 316: "valid" must pass and "invalid" must fail.
 *   The IV length is set first (EVP_CTRL_AEAD_SET_IVLEN or the "ivlen" parameter). IVs of 0 or
 *   more than 128 bytes must be refused there, as the default provider refuses them (Wycheproof
 *   calls its 257-byte ones valid): the expected result of each vector is OpenSSL's, and the
 *   provider under test must give exactly it. A valid vector is encrypted (ciphertext and tag)
 *   and decrypted (the tag set before or after the data), in one update and in chunks of AAD
 *   and data (byte by byte, odd sizes with empty updates, in place on unaligned buffers), and
 *   decrypting it with one tag bit flipped must fail. An invalid one must fail to decrypt.
 *
 * --mode gcmsiv (AES-128/256-GCM-SIV, RFC 8452; no source has AES-192):
 *   boringssl/aes_{128,256}_gcm_siv_tests.txt  BoringSSL's AEAD format: RFC 8452 section 8's
 *                                      example, appendix C.1 and C.2, the counter-wrap vectors of
 *                                      C.3 (counted: an initial counter whose 32-bit word wraps
 *                                      within the message), random vectors of the reference code.
 *   wycheproof/aes_gcm_siv_test.json   all 202: "valid" must pass and "invalid" must fail.
 *   All nonces are 12 bytes and all tags 16. A valid vector is sealed (ciphertext and tag; the
 *   tag read by ctrl or parameter; an empty message also by final alone, with no data update)
 *   and opened (the tag set by ctrl or parameter after the init, before the init that gives the
 *   key, or as an init parameter; always before the data, which goes in one update), with AAD in
 *   one update or in chunks (byte by byte, odd sizes with empty updates, which aesfast must treat
 *   as no-ops), in place on unaligned buffers; sealed twice in one context with the "speed"
 *   parameter; and opened with one tag bit flipped, which must fail. An invalid one must fail
 *   to open. On aesfast a failed open must fail in the data update itself, leave the output
 *   buffer all zero (wiped: no unverified plaintext) and fail at final too; the default
 *   provider (--provider default) releases the plaintext and fails at final only, and resets
 *   its AAD on an empty AAD update, so for it the empty AAD updates are left out.
 *
 * Each source must yield at least its known count per key size, so a parser regression cannot
 * pass with nothing tested; the counts are printed per file.
 */
#define _POSIX_C_SOURCE 200809L /* getline, strdup, strndup under -std=c11 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>

#include "testutil.h"

enum mode { MODE_CTR, MODE_GCM, MODE_GCMSIV };
enum format { FILETEST, BSSL_AEAD, CRYPTOPP, WYCHEPROOF };

static const char *const ctr_algs[3] = {"AES-128-CTR", "AES-192-CTR", "AES-256-CTR"};
static const char *const gcm_algs[3] = {"AES-128-GCM", "AES-192-GCM", "AES-256-GCM"};
static const char *const siv_algs[3] = {"AES-128-GCM-SIV", "AES-192-GCM-SIV", "AES-256-GCM-SIV"};

#define GCM_MAX_IV 128 /* the default provider refuses longer IVs, and empty ones */

/* What a GCM vector gives: the expected one and the one seen. */
enum outcome { OUT_OK, OUT_REFUSED, OUT_REJECTED, OUT_WRONG, OUT_ERROR };
static const char *const outcome_names[] = {
    "accepted", "refused (IV length)", "rejected (final failed)", "wrong output or tag",
    "an EVP call failed"};

struct source {
    const char *path;       /* relative to DIR */
    enum format format;
    enum mode mode;
    unsigned min[3];        /* vectors required per key size (128, 192, 256) */
    unsigned count[3];
    unsigned failed, outcomes[3]; /* GCM: vectors passing with OUT_OK, OUT_REFUSED, OUT_REJECTED */
    unsigned min_wraps, wraps;    /* GCM-SIV: vectors whose 32-bit counter wraps (RFC 8452 C.3) */
};

static struct source sources[] = {
    {"boringssl/cipher_tests.txt", FILETEST, MODE_CTR, {4, 0, 5}, {0}, 0, {0}, 0, 0},
    {"boringssl/nist_cavp/aes_128_ctr.txt", FILETEST, MODE_CTR, {568, 0, 0}, {0}, 0, {0}, 0, 0},
    {"boringssl/nist_cavp/aes_192_ctr.txt", FILETEST, MODE_CTR, {0, 700, 0}, {0}, 0, {0}, 0, 0},
    {"boringssl/nist_cavp/aes_256_ctr.txt", FILETEST, MODE_CTR, {0, 0, 810}, {0}, 0, {0}, 0, 0},
    {"cryptopp/aes.txt", CRYPTOPP, MODE_CTR, {5, 4, 4}, {0}, 0, {0}, 0, 0},
    {"boringssl/cipher_tests.txt", FILETEST, MODE_GCM, {16, 7, 8}, {0}, 0, {0}, 0, 0},
    {"boringssl/aes_128_gcm_tests.txt", BSSL_AEAD, MODE_GCM, {74, 0, 0}, {0}, 0, {0}, 0, 0},
    {"boringssl/aes_192_gcm_tests.txt", BSSL_AEAD, MODE_GCM, {0, 6, 0}, {0}, 0, {0}, 0, 0},
    {"boringssl/aes_256_gcm_tests.txt", BSSL_AEAD, MODE_GCM, {0, 0, 66}, {0}, 0, {0}, 0, 0},
    {"cryptopp/gcm.txt", CRYPTOPP, MODE_GCM, {10, 6, 6}, {0}, 0, {0}, 0, 0},
    {"wycheproof/aes_gcm_test.json", WYCHEPROOF, MODE_GCM, {108, 103, 105}, {0}, 0, {0}, 0, 0},
    {"boringssl/aes_128_gcm_siv_tests.txt", BSSL_AEAD, MODE_GCMSIV, {89, 0, 0}, {0}, 0, {0}, 0, 0},
    {"boringssl/aes_256_gcm_siv_tests.txt", BSSL_AEAD, MODE_GCMSIV, {0, 0, 90}, {0}, 0, {0}, 2, 0},
    {"wycheproof/aes_gcm_siv_test.json", WYCHEPROOF, MODE_GCMSIV, {99, 0, 103}, {0}, 0, {0}, 0, 0},
};

/* One known answer: owned buffers, freed by vector_free. */
struct vector {
    const char *source;
    unsigned line;           /* or Wycheproof's tcId */
    const char *linekind;    /* "line" or "tcId" */
    int valid;               /* GCM: must authenticate (else must fail) */
    uint8_t *key, *iv, *pt, *ct, *aad, *tag;
    size_t keylen, ivlen, ptlen, ctlen, aadlen, taglen;
};

struct run {
    enum mode mode;
    int strict;    /* GCM-SIV: the provider is aesfast, with its stricter contract */
    EVP_CIPHER *cipher[3];
    EVP_CIPHER_CTX *ctx;
    unsigned passed, failed;
};

static void vector_free(struct vector *v)
{
    free(v->key);
    free(v->iv);
    free(v->pt);
    free(v->ct);
    free(v->aad);
    free(v->tag);
    memset(v, 0, sizeof(*v));
}

/* Exits (tu_die): what follows a failed check may rely on it, and so may the compilers. */
__attribute__((noreturn))
static void parse_error(const char *source, unsigned line, const char *what)
{
    tu_die("%s:%u: %s", source, line, what);
}

/* The update sizes that every mode's passes cycle through (data or AAD): byte by byte; odd sizes
 * with an empty update among them; sizes around the block size. */
static const size_t bytewise[] = {1};
static const size_t odd[] = {7, 1, 15, 17, 0, 3, 33, 16};
static const size_t mixed[] = {16, 5, 11, 0, 31, 2};

/* What every mode needs of a vector: a 16, 24 or 32-byte key and as much ciphertext as
 * plaintext. Counts the vector for its source; returns its key size (0, 1, 2: AES-128/192/256). */
static int vector_key_size(struct source *src, const struct vector *v)
{
    int ks;

    if (v->keylen != 16 && v->keylen != 24 && v->keylen != 32)
        parse_error(v->source, v->line, "key is not 16, 24 or 32 bytes");
    if (v->ptlen != v->ctlen)
        parse_error(v->source, v->line, "plaintext and ciphertext lengths differ");
    ks = (int)(v->keylen / 8 - 2);
    src->count[ks]++;
    return ks;
}

/* A pass's output buffer, returned for free(): *out points offset bytes into it, with room for
 * len bytes. offset > 0 runs in place there, misaligned: *in is copied over and then points
 * there too. */
static uint8_t *pass_buffer(size_t len, size_t offset, const uint8_t **in, uint8_t **out)
{
    uint8_t *buf = malloc(len + 16 + 1);

    if (buf == NULL)
        tu_die("out of memory");
    *out = buf + offset;
    if (offset != 0) {
        memcpy(*out, *in, len);
        *in = *out;
    }
    return buf;
}

/* ---- CTR ---------------------------------------------------------------------------------- */

/* One pass: init, feed in through the given chunk cycle, final, compare with want and check the
 * updated IV. offset > 0 runs in place in a buffer misaligned by offset. */
static int ctr_pass(struct run *run, const struct vector *v, int ks, int enc, const uint8_t *in,
                    const uint8_t *want, const size_t *cycle, size_t ncycle, size_t offset,
                    const char *label)
{
    static const size_t whole[] = {SIZE_MAX};
    tu_cycle chunks = {cycle != NULL ? cycle : whole, cycle != NULL ? ncycle : 1, 0};
    size_t len = v->ptlen, at;
    uint8_t *out, uiv[16], want_uiv[16];
    const uint8_t *src = in;
    uint8_t *buf = pass_buffer(len, offset, &src, &out);
    int ok = 0;

    memcpy(want_uiv, v->iv, 16);
    tu_ctr_add(want_uiv, tu_ctr_blocks(len));

    if (!EVP_CipherInit_ex2(run->ctx, run->cipher[ks], v->key, v->iv, enc, NULL)) {
        ERR_print_errors_fp(stderr);
        fprintf(stderr, "%s: FAIL %s:%u %s (%s): init failed\n", tu_prog, v->source, v->line,
                ctr_algs[ks], label);
    } else if (!tu_update_chunked(run->ctx, enc, out, src, len, tu_cycle_next, &chunks)
               || !tu_final_empty(run->ctx, enc)
               || !tu_get_iv_param(run->ctx, OSSL_CIPHER_PARAM_UPDATED_IV, uiv)) {
        fprintf(stderr, "%s: FAIL %s:%u %s (%s): EVP call failed\n", tu_prog, v->source,
                v->line, ctr_algs[ks], label);
    } else if ((at = tu_first_diff(out, want, len)) != (size_t)-1) {
        fprintf(stderr, "%s: FAIL %s:%u %s (%s): byte %zu is %02x, expected %02x\n", tu_prog,
                v->source, v->line, ctr_algs[ks], label, at, out[at], want[at]);
    } else if (memcmp(uiv, want_uiv, 16) != 0) {
        fprintf(stderr, "%s: FAIL %s:%u %s (%s): updated-iv ", tu_prog, v->source, v->line,
                ctr_algs[ks], label);
        tu_hex_print(stderr, uiv, 16);
        fprintf(stderr, ", expected ");
        tu_hex_print(stderr, want_uiv, 16);
        fputc('\n', stderr);
    } else {
        ok = 1;
    }
    free(buf);
    return ok;
}

static void ctr_run_vector(struct run *run, struct source *src, const struct vector *v)
{
    int ks, ok = 1;

    if (v->ivlen != 16)
        parse_error(v->source, v->line, "IV is not 16 bytes");
    ks = vector_key_size(src, v);

    /* Stop at the first failing pass; later ones would only repeat the news. */
    ok = ctr_pass(run, v, ks, 1, v->pt, v->ct, NULL, 0, 0, "encrypt, one update")
         && ctr_pass(run, v, ks, 0, v->ct, v->pt, NULL, 0, 0, "decrypt, one update")
         && ctr_pass(run, v, ks, 1, v->pt, v->ct, bytewise, 1, 0, "encrypt, byte by byte")
         && ctr_pass(run, v, ks, 0, v->ct, v->pt, odd, sizeof(odd) / sizeof(odd[0]), 3,
                     "decrypt, odd chunks, in place at +3")
         && ctr_pass(run, v, ks, 1, v->pt, v->ct, mixed, sizeof(mixed) / sizeof(mixed[0]), 1,
                     "encrypt, mixed chunks, in place at +1");
    if (ok)
        run->passed++;
    else
        run->failed++, src->failed++;
}

/* ---- GCM ---------------------------------------------------------------------------------- */

/* Feed len bytes through update calls sized by the cycle (NULL: one call); out == NULL for AAD.
 * skip_empty leaves out the cycle's empty updates (GCM-SIV on the default provider, which resets
 * its AAD on one). Returns 0 if a call fails or returns another length. */
static int aead_feed(EVP_CIPHER_CTX *x, uint8_t *out, const uint8_t *in, size_t len,
                     const size_t *cycle, size_t ncycle, int skip_empty)
{
    size_t pos = 0, i = 0;

    do {
        size_t n = cycle == NULL ? len : cycle[i++ % ncycle];
        int outl = -1;

        if (n > len - pos)
            n = len - pos;
        if (n == 0 && skip_empty)
            continue;
        if (!EVP_CipherUpdate(x, out != NULL ? out + pos : NULL, &outl, in + pos, (int)n)
            || outl != (int)n)
            return 0;
        pos += n;
    } while (pos < len);
    return 1;
}

/* Reads a seal's tag: with EVP_CTRL_AEAD_GET_TAG, or (by_param) the "tag" parameter. */
static int aead_get_tag(EVP_CIPHER_CTX *x, uint8_t *tag, size_t len, int by_param)
{
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, len),
                       OSSL_PARAM_construct_end()};

    if (!by_param)
        return EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, (int)len, tag);
    return EVP_CIPHER_CTX_get_params(x, p);
}

/* The end of an AEAD pass whose final succeeded with outl bytes: final must output nothing, a
 * seal's tag (read as aead_get_tag's by_param says) must be the vector's, and the output want
 * (unless want is NULL: a GCM-SIV seal compared it at the update). */
static enum outcome aead_result(EVP_CIPHER_CTX *x, const struct vector *v, int enc, int outl,
                                int tag_by_param, const uint8_t *out, const uint8_t *want,
                                char *why, size_t whycap)
{
    uint8_t got[16];
    size_t at;

    if (outl != 0) {
        snprintf(why, whycap, "final output %d bytes", outl);
        return OUT_ERROR;
    }
    if (enc && !aead_get_tag(x, got, v->taglen, tag_by_param)) {
        snprintf(why, whycap, "getting the tag failed");
        return OUT_ERROR;
    }
    if (want != NULL && (at = tu_first_diff(out, want, v->ptlen)) != (size_t)-1)
        snprintf(why, whycap, "%s byte %zu is %02x, expected %02x",
                 enc ? "ciphertext" : "plaintext", at, out[at], want[at]);
    else if (enc && memcmp(got, v->tag, v->taglen) != 0)
        snprintf(why, whycap, "tag differs");
    else
        return OUT_OK;
    return OUT_WRONG;
}

/* A vector's pass gave `got`: 1 if that is `want`; else the failure is reported (alg and detail
 * say what the vector is, label what the pass did) and the vector counted as failed. */
static int aead_pass_ok(struct run *run, struct source *src, const struct vector *v,
                        const char *alg, const char *detail, const char *label,
                        enum outcome want, enum outcome got, const char *why)
{
    if (got == want) {
        ERR_clear_error();
        return 1;
    }
    fprintf(stderr, "%s: FAIL %s:%s %u %s %s (%s): expected %s, got %s%s%s\n", tu_prog,
            v->source, v->linekind, v->line, alg, detail, label, outcome_names[want],
            outcome_names[got], why[0] ? ": " : "", why);
    ERR_print_errors_fp(stderr);
    run->failed++, src->failed++;
    return 0;
}

/*
 * One GCM pass over v. enc: encrypt, compare ciphertext and tag. !enc: decrypt with tag (set
 * before the data if tag_first), compare the plaintext. The IV length goes in first, by
 * EVP_CTRL_AEAD_SET_IVLEN or (ivlen_param) the "ivlen" parameter; then key and IV. AAD and data
 * are fed in chunks of the cycle; offset > 0 runs in place at that misalignment.
 */
static enum outcome gcm_pass(struct run *run, const struct vector *v, int ks, int enc,
                             const size_t *cycle, size_t ncycle, size_t offset, int tag_first,
                             int ivlen_param, const uint8_t *tag, char *why, size_t whycap)
{
    EVP_CIPHER_CTX *x = run->ctx;
    const size_t len = v->ptlen;
    size_t n = v->ivlen;
    OSSL_PARAM prm[2] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &n),
                         OSSL_PARAM_construct_end()};
    uint8_t *out, fin[32];
    const uint8_t *in = enc ? v->pt : v->ct, *want = enc ? v->ct : v->pt;
    uint8_t *buf = pass_buffer(len, offset, &in, &out);
    enum outcome res = OUT_ERROR;
    int outl = -1;

    why[0] = '\0';
    if (!EVP_CipherInit_ex2(x, run->cipher[ks], NULL, NULL, enc, NULL)) {
        snprintf(why, whycap, "init with the cipher alone failed");
        goto done;
    }
    if (ivlen_param ? !EVP_CIPHER_CTX_set_params(x, prm)
                    : !EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_IVLEN, (int)n, NULL)) {
        snprintf(why, whycap, "setting the IV length %zu failed", n);
        res = OUT_REFUSED;
        goto done;
    }
    if (!EVP_CipherInit_ex2(x, NULL, v->key, v->iv, enc, NULL)) {
        snprintf(why, whycap, "init with key and IV failed");
        goto done;
    }
    if (!enc && tag_first && !tu_set_tag(x, tag, v->taglen, 0)) {
        snprintf(why, whycap, "setting the tag failed");
        goto done;
    }
    if (!aead_feed(x, NULL, v->aad, v->aadlen, cycle, ncycle, 0)) {
        snprintf(why, whycap, "an AAD update failed");
        goto done;
    }
    if (!aead_feed(x, out, in, len, cycle, ncycle, 0)) {
        snprintf(why, whycap, "a data update failed");
        goto done;
    }
    if (!enc && !tag_first && !tu_set_tag(x, tag, v->taglen, 0)) {
        snprintf(why, whycap, "setting the tag failed");
        goto done;
    }
    if (!EVP_CipherFinal_ex(x, fin, &outl))
        res = OUT_REJECTED;
    else
        res = aead_result(x, v, enc, outl, 0, out, want, why, whycap);
done:
    free(buf);
    return res;
}

static void gcm_run_vector(struct run *run, struct source *src, const struct vector *v)
{
    struct pass {
        const char *label;
        int enc;
        const size_t *cycle;
        size_t ncycle, offset;
        int tag_first, ivlen_param, flip;
    };
    static const struct pass valid[] = {
        {"encrypt, one update", 1, NULL, 0, 0, 0, 0, 0},
        {"decrypt, one update, tag after the data", 0, NULL, 0, 0, 0, 1, 0},
        {"encrypt, byte by byte", 1, bytewise, 1, 0, 0, 1, 0},
        {"decrypt, odd chunks, in place at +3, tag first", 0, odd, 8, 3, 1, 0, 0},
        {"encrypt, mixed chunks, in place at +1", 1, mixed, 6, 1, 0, 0, 0},
        {"decrypt, byte by byte, tag first", 0, bytewise, 1, 0, 1, 1, 0},
        {"decrypt with a tag bit flipped", 0, NULL, 0, 0, 0, 0, 1},
    };
    static const struct pass invalid[] = {
        {"decrypt, one update, tag after the data", 0, NULL, 0, 0, 0, 0, 0},
        {"decrypt, odd chunks, in place at +3, tag first", 0, odd, 8, 3, 1, 1, 0},
    };
    const struct pass *passes = v->valid ? valid : invalid;
    size_t npasses = v->valid ? sizeof(valid) / sizeof(valid[0])
                              : sizeof(invalid) / sizeof(invalid[0]);
    enum outcome expect = v->ivlen == 0 || v->ivlen > GCM_MAX_IV ? OUT_REFUSED
                          : v->valid                             ? OUT_OK
                                                                 : OUT_REJECTED;
    char why[128], detail[96];
    uint8_t tag[16];
    int ks;

    if (v->taglen == 0 || v->taglen > 16)
        parse_error(v->source, v->line, "tag is not 1..16 bytes");
    ks = vector_key_size(src, v);

    for (size_t i = 0; i < npasses; i++) {
        const struct pass *p = &passes[i];
        enum outcome want = p->flip && expect == OUT_OK ? OUT_REJECTED : expect, got;

        memcpy(tag, v->tag, v->taglen);
        tag[0] ^= (uint8_t)p->flip;
        got = gcm_pass(run, v, ks, p->enc, p->cycle, p->ncycle, p->offset, p->tag_first,
                       p->ivlen_param, tag, why, sizeof(why));
        snprintf(detail, sizeof(detail), "ivlen=%zu (set by %s) aadlen=%zu len=%zu taglen=%zu",
                 v->ivlen, p->ivlen_param ? "parameter" : "ctrl", v->aadlen, v->ptlen,
                 v->taglen);
        if (!aead_pass_ok(run, src, v, gcm_algs[ks], detail, p->label, want, got, why))
            return;
    }
    run->passed++;
    src->outcomes[expect]++;
}

/* ---- GCM-SIV ------------------------------------------------------------------------------ */

#define SIV_NONCE 12
#define SIV_TAG 16
#ifndef OSSL_CIPHER_PARAM_SPEED /* 3.2+ headers; the name is the same on every version */
#define OSSL_CIPHER_PARAM_SPEED "speed"
#endif

/* How a GCM-SIV pass passes the tag: opening sets it, sealing reads it (by ctrl or parameter). */
enum siv_tag_how { SIV_TAG_CTRL, SIV_TAG_PARAM, SIV_TAG_BEFORE_KEY, SIV_TAG_INIT_PARAM };

struct siv_pass {
    const char *label;
    int enc;
    const size_t *cycle;     /* AAD update sizes (NULL: one update) */
    size_t ncycle, offset;   /* offset > 0: in place at that misalignment */
    enum siv_tag_how how;
    int final_only;          /* an empty message: no data update at all, final alone */
    int speed;               /* seal twice in one context with the "speed" parameter */
    int flip;                /* open with bit 0 of the tag flipped */
};


/*
 * One GCM-SIV pass over v (struct siv_pass says how). Sealing compares ciphertext and tag;
 * opening, the plaintext. A failed open is OUT_REJECTED; on aesfast (run->strict) only if the
 * data update failed, the output is all zero and final failed too.
 */
static enum outcome siv_run_pass(struct run *run, const struct vector *v, int ks,
                                 const struct siv_pass *p, const uint8_t *tag, char *why,
                                 size_t whycap)
{
    EVP_CIPHER_CTX *x = run->ctx;
    const size_t len = v->ptlen;
    unsigned int one = 1;
    OSSL_PARAM init_prm[2] = {OSSL_PARAM_construct_end(), OSSL_PARAM_construct_end()};
    uint8_t *out, fin[SIV_TAG], none[1] = {0};
    const uint8_t *in = p->enc ? v->pt : v->ct, *want = p->enc ? v->ct : v->pt;
    uint8_t *buf = pass_buffer(len, p->offset, &in, &out);
    enum outcome res = OUT_ERROR;
    int outl = -1, rounds = p->speed ? 2 : 1, upd_ok = 1;
    size_t at;

    why[0] = '\0';
    if (p->speed)
        init_prm[0] = OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_SPEED, &one);
    else if (!p->enc && p->how == SIV_TAG_INIT_PARAM)
        init_prm[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, (void *)tag,
                                                        SIV_TAG);
    if (p->how == SIV_TAG_BEFORE_KEY) {
        /* The cipher first, then the tag, then key and nonce without naming the cipher (which
         * would reset the context and lose the tag). */
        if (!EVP_CipherInit_ex2(x, run->cipher[ks], NULL, NULL, p->enc, NULL)
            || (!p->enc && !tu_set_tag(x, tag, SIV_TAG, 0))
            || !EVP_CipherInit_ex2(x, NULL, v->key, v->iv, p->enc, init_prm)) {
            snprintf(why, whycap, "init, the tag before the key, failed");
            goto done;
        }
    } else if (!EVP_CipherInit_ex2(x, run->cipher[ks], v->key, v->iv, p->enc, init_prm)) {
        snprintf(why, whycap, "init with key and nonce failed");
        goto done;
    } else if (!p->enc && p->how != SIV_TAG_INIT_PARAM
               && !tu_set_tag(x, tag, SIV_TAG, p->how == SIV_TAG_PARAM)) {
        snprintf(why, whycap, "setting the tag failed");
        goto done;
    }
    /* An empty AAD update only where the provider takes it as a no-op (aesfast). */
    if (!aead_feed(x, NULL, v->aad, v->aadlen, p->cycle, p->ncycle, !run->strict)) {
        snprintf(why, whycap, "an AAD update failed");
        goto done;
    }
    for (int round = 0; round < rounds && !p->final_only; round++) {
        if (round > 0) /* "speed": the same message again, from the same input */
            memcpy(out, p->enc ? v->pt : v->ct, len);
        /* Never a NULL input: EVP passes that on as final. */
        upd_ok = EVP_CipherUpdate(x, len != 0 ? out : none, &outl, len != 0 ? in : none,
                                  (int)len);
        if (!upd_ok)
            break;
        if (outl != (int)len) {
            snprintf(why, whycap, "the data update output %d bytes, not %zu", outl, len);
            goto done;
        }
        /* (An open's plaintext only counts once final accepted it.) */
        if (p->enc && (at = tu_first_diff(out, want, len)) != (size_t)-1) {
            res = OUT_WRONG;
            snprintf(why, whycap, "%sciphertext byte %zu is %02x, expected %02x",
                     round > 0 ? "speed, second message: " : "", at, out[at], want[at]);
            goto done;
        }
    }
    if (!upd_ok && (p->enc || !run->strict)) {
        snprintf(why, whycap, "the data update failed");
        goto done;
    }
    if (!upd_ok) {
        /* aesfast: the open failed in the data update; nothing of it may be left. */
        for (size_t i = 0; i < len; i++) {
            if (out[i] != 0) {
                res = OUT_WRONG;
                snprintf(why, whycap, "a failed open left byte %zu of the output at %02x (not "
                         "wiped%s)", i, out[i], out[i] == v->pt[i] ? ": the plaintext" : "");
                goto done;
            }
        }
        ERR_clear_error();
    }
    if (!EVP_CipherFinal_ex(x, fin, &outl)) {
        res = OUT_REJECTED;
        if (!p->enc && upd_ok && !p->final_only && run->strict) {
            res = OUT_WRONG;
            snprintf(why, whycap, "the data update succeeded but final failed (aesfast checks "
                     "the tag in the update)");
        }
        goto done;
    }
    if (!upd_ok) {
        res = OUT_WRONG;
        snprintf(why, whycap, "final succeeded after the data update failed");
        goto done;
    }
    res = aead_result(x, v, p->enc, outl, p->how == SIV_TAG_PARAM, out, p->enc ? NULL : want,
                      why, whycap);
done:
    free(buf);
    return res;
}

static void siv_run_vector(struct run *run, struct source *src, const struct vector *v)
{
    static const struct siv_pass valid[] = {
        {"seal, one AAD update", 1, NULL, 0, 0, SIV_TAG_CTRL, 0, 0, 0},
        {"open, one AAD update, tag by ctrl", 0, NULL, 0, 0, SIV_TAG_CTRL, 0, 0, 0},
        {"seal, AAD byte by byte, tag by parameter", 1, bytewise, 1, 0, SIV_TAG_PARAM, 0, 0, 0},
        {"open, AAD in odd chunks, in place at +3, tag by parameter", 0, odd, 8, 3,
         SIV_TAG_PARAM, 0, 0, 0},
        {"seal, AAD in mixed chunks, in place at +1, key after the cipher", 1, mixed, 6, 1,
         SIV_TAG_BEFORE_KEY, 0, 0, 0},
        {"open, AAD byte by byte, tag before the key", 0, bytewise, 1, 0, SIV_TAG_BEFORE_KEY, 0,
         0, 0},
        {"open, AAD in mixed chunks, in place at +5, tag as an init parameter", 0, mixed, 6, 5,
         SIV_TAG_INIT_PARAM, 0, 0, 0},
        {"seal twice with the speed parameter, in place at +7", 1, odd, 8, 7, SIV_TAG_CTRL, 0, 1,
         0},
        {"open twice with the speed parameter", 0, NULL, 0, 0, SIV_TAG_CTRL, 0, 1, 0},
        {"open with a tag bit flipped", 0, NULL, 0, 0, SIV_TAG_CTRL, 0, 0, 1},
        {"open with a tag bit flipped, in place at +9, tag by parameter", 0, odd, 8, 9,
         SIV_TAG_PARAM, 0, 0, 1},
    };
    static const struct siv_pass empty[] = { /* an empty message also by final alone */
        {"seal, no data update (final alone)", 1, odd, 8, 0, SIV_TAG_CTRL, 1, 0, 0},
        {"open, no data update (final alone)", 0, NULL, 0, 0, SIV_TAG_PARAM, 1, 0, 0},
        {"open, no data update (final alone), tag bit flipped", 0, NULL, 0, 0, SIV_TAG_CTRL, 1,
         0, 1},
    };
    static const struct siv_pass invalid[] = {
        {"open, one AAD update, tag by ctrl", 0, NULL, 0, 0, SIV_TAG_CTRL, 0, 0, 0},
        {"open, AAD in odd chunks, in place at +3, tag before the key", 0, odd, 8, 3,
         SIV_TAG_BEFORE_KEY, 0, 0, 0},
        {"open, AAD byte by byte, tag by parameter", 0, bytewise, 1, 0, SIV_TAG_PARAM, 0, 0, 0},
    };
    char why[160], detail[48];
    uint8_t tag[SIV_TAG];
    int ks;

    if (v->ivlen != SIV_NONCE || v->taglen != SIV_TAG)
        parse_error(v->source, v->line, "GCM-SIV nonce is not 12 bytes or tag not 16");
    if (v->ptlen > INT_MAX)
        parse_error(v->source, v->line, "message too long for one EVP update");
    ks = vector_key_size(src, v);
    snprintf(detail, sizeof(detail), "aadlen=%zu len=%zu", v->aadlen, v->ptlen);
    /* RFC 8452 C.3: the 32-bit little-endian counter word of the initial counter block (the tag)
     * wraps within the message. */
    if ((uint64_t)v->tag[0] + ((uint64_t)v->tag[1] << 8) + ((uint64_t)v->tag[2] << 16)
            + ((uint64_t)v->tag[3] << 24) + tu_ctr_blocks(v->ptlen) > ((uint64_t)1 << 32))
        src->wraps++;

    for (int set = 0; set < 2; set++) {
        const struct siv_pass *passes = set == 1 ? empty : v->valid ? valid : invalid;
        size_t npasses = set == 1        ? (v->valid && v->ptlen == 0 ? 3 : 0)
                         : v->valid      ? sizeof(valid) / sizeof(valid[0])
                                         : sizeof(invalid) / sizeof(invalid[0]);

        for (size_t i = 0; i < npasses; i++) {
            const struct siv_pass *p = &passes[i];
            enum outcome want = v->valid && !p->flip ? OUT_OK : OUT_REJECTED, got;

            if (p->final_only && p->enc && !run->strict)
                continue; /* the default provider's final fails without a data update */

            memcpy(tag, v->tag, SIV_TAG);
            tag[0] ^= (uint8_t)p->flip;
            got = siv_run_pass(run, v, ks, p, tag, why, sizeof(why));
            if (!aead_pass_ok(run, src, v, siv_algs[ks], detail, p->label, want, got, why))
                return;
        }
    }
    run->passed++;
    src->outcomes[v->valid ? OUT_OK : OUT_REJECTED]++;
}

static void run_vector(struct run *run, struct source *src, const struct vector *v)
{
    if (run->mode == MODE_CTR)
        ctr_run_vector(run, src, v);
    else if (run->mode == MODE_GCM)
        gcm_run_vector(run, src, v);
    else
        siv_run_vector(run, src, v);
}

/* ---- Shared text handling ----------------------------------------------------------------- */

static char *trim(char *s)
{
    char *end;

    while (*s == ' ' || *s == '\t')
        s++;
    end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' || end[-1] == '\n'))
        *--end = '\0';
    return s;
}

/* Read one line without its line ending (LF or CRLF); returns NULL at end of file. */
static char *read_line(FILE *f, char **buf, size_t *cap, unsigned *lineno)
{
    ssize_t n = getline(buf, cap, f);

    if (n < 0)
        return NULL;
    (*lineno)++;
    while (n > 0 && ((*buf)[n - 1] == '\n' || (*buf)[n - 1] == '\r'))
        (*buf)[--n] = '\0';
    return *buf;
}

static FILE *open_source(const char *dir, const char *path, char *full, size_t cap)
{
    FILE *f;

    snprintf(full, cap, "%s/%s", dir, path);
    if ((f = fopen(full, "r")) == NULL)
        tu_die("cannot open %s: %s", full, strerror(errno));
    return f;
}

/* A stored field: name and raw value text. */
struct field {
    char *name, *value;
};

struct fields {
    struct field f[16];
    size_t n;
};

static void fields_clear(struct fields *fs)
{
    for (size_t i = 0; i < fs->n; i++) {
        free(fs->f[i].name);
        free(fs->f[i].value);
    }
    fs->n = 0;
}

static const char *fields_get(const struct fields *fs, const char *name)
{
    for (size_t i = 0; i < fs->n; i++)
        if (strcmp(fs->f[i].name, name) == 0)
            return fs->f[i].value;
    return NULL;
}

/* Set name = value; replace says whether an existing value may be overwritten. */
static int fields_set(struct fields *fs, const char *name, const char *value, int replace)
{
    for (size_t i = 0; i < fs->n; i++) {
        if (strcmp(fs->f[i].name, name) == 0) {
            if (!replace)
                return 0;
            free(fs->f[i].value);
            fs->f[i].value = strdup(value);
            return fs->f[i].value != NULL;
        }
    }
    if (fs->n == sizeof(fs->f) / sizeof(fs->f[0]))
        return 0;
    struct field *f = &fs->f[fs->n++];
    f->name = strdup(name);
    f->value = strdup(value);
    return f->name != NULL && f->value != NULL;
}

/* ---- BoringSSL FileTest / OpenSSL evptest format ------------------------------------------ */

/* Values are hex, or text in double quotes. */
static uint8_t *filetest_value(const char *v, size_t *len, const char *source, unsigned line)
{
    uint8_t *out;
    size_t n = strlen(v);

    if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
        if ((out = malloc(n)) == NULL)
            tu_die("out of memory");
        memcpy(out, v + 1, n - 2);
        *len = n - 2;
        return out;
    }
    if ((out = tu_hex_decode(v, len)) == NULL)
        parse_error(source, line, "bad hex value");
    return out;
}

/* A complete stanza: run it if it is one of this run's mode. Evptest stanzas name the cipher;
 * BoringSSL's AEAD files (KEY/NONCE/IN/AD/CT/TAG) are GCM by file. */
static void filetest_stanza(struct run *run, struct source *src, const struct fields *fs,
                            unsigned line)
{
    const char *cipher = fields_get(fs, "Cipher"), *op = fields_get(fs, "Operation");
    const char *key, *iv, *pt, *ct, *aad = NULL, *tag = NULL;
    struct vector v = {.source = src->path, .line = line, .linekind = "line", .valid = 1};
    const char *const *algs = run->mode == MODE_CTR ? ctr_algs : gcm_algs;
    int ks = -1;

    if (src->format == BSSL_AEAD) {
        static const char *const known[] = {"KEY", "NONCE", "IN", "AD", "CT", "TAG"};

        for (size_t i = 0; i < fs->n; i++) {
            size_t k = 0;
            while (k < 6 && strcmp(fs->f[i].name, known[k]) != 0)
                k++;
            if (k == 6)
                parse_error(src->path, line, "unexpected field in an AEAD stanza");
        }
        key = fields_get(fs, "KEY"), iv = fields_get(fs, "NONCE");
        pt = fields_get(fs, "IN"), ct = fields_get(fs, "CT");
        aad = fields_get(fs, "AD"), tag = fields_get(fs, "TAG");
        if (key == NULL || iv == NULL || pt == NULL || ct == NULL || aad == NULL || tag == NULL)
            parse_error(src->path, line, "AEAD stanza lacks KEY, NONCE, IN, AD, CT or TAG");
    } else {
        if (cipher == NULL)
            return;
        for (ks = 0; ks < 3 && strcasecmp(cipher, algs[ks]) != 0; ks++)
            ;
        if (ks == 3)
            return;
        key = fields_get(fs, "Key"), iv = fields_get(fs, "IV");
        pt = fields_get(fs, "Plaintext"), ct = fields_get(fs, "Ciphertext");
        if (run->mode == MODE_CTR) {
            if (op != NULL && strcmp(op, "ENCRYPT") != 0 && strcmp(op, "DECRYPT") != 0
                && strcmp(op, "Encrypt") != 0 && strcmp(op, "Decrypt") != 0)
                parse_error(src->path, line, "unexpected Operation for a CTR stanza");
        } else {
            aad = fields_get(fs, "AAD"), tag = fields_get(fs, "Tag");
            if (op != NULL && strcmp(op, "InvalidDecrypt") != 0)
                parse_error(src->path, line, "unexpected Operation for a GCM stanza");
            v.valid = op == NULL;
            if (aad == NULL || tag == NULL)
                parse_error(src->path, line, "GCM stanza lacks AAD or Tag");
        }
        if (key == NULL || iv == NULL || pt == NULL || ct == NULL)
            parse_error(src->path, line, "stanza lacks Key, IV, Plaintext or Ciphertext");
    }

    v.key = filetest_value(key, &v.keylen, src->path, line);
    v.iv = filetest_value(iv, &v.ivlen, src->path, line);
    v.pt = filetest_value(pt, &v.ptlen, src->path, line);
    v.ct = filetest_value(ct, &v.ctlen, src->path, line);
    v.aad = filetest_value(aad != NULL ? aad : "", &v.aadlen, src->path, line);
    v.tag = filetest_value(tag != NULL ? tag : "", &v.taglen, src->path, line);
    if (ks >= 0 && v.keylen != (size_t)(16 + 8 * ks))
        parse_error(src->path, line, "key length does not match the cipher name");
    run_vector(run, src, &v);
    vector_free(&v);
}

/* Stanzas of "Name = value" or "Name: value" lines, separated by blank lines; "#" comments. */
static void parse_filetest(struct run *run, struct source *src, FILE *f)
{
    struct fields fs = {.n = 0};
    char *buf = NULL, *line;
    size_t cap = 0;
    unsigned lineno = 0, start = 0;

    for (;;) {
        line = read_line(f, &buf, &cap, &lineno);
        if (line == NULL || *trim(line) == '\0') {
            if (fs.n != 0)
                filetest_stanza(run, src, &fs, start);
            fields_clear(&fs);
            if (line == NULL)
                break;
            continue;
        }
        line = trim(line);
        if (line[0] == '#' || line[0] == '[')
            continue;

        char *sep = line + strcspn(line, "=:");
        if (*sep == '\0')
            parse_error(src->path, lineno, "line is neither \"Name = value\" nor \"Name: value\"");
        *sep = '\0';
        if (fs.n == 0)
            start = lineno;
        if (!fields_set(&fs, trim(line), trim(sep + 1), 0))
            parse_error(src->path, lineno, "repeated field in a stanza");
    }
    free(buf);
}

/* ---- Crypto++ TestVectors format ---------------------------------------------------------- */

static void append(uint8_t **out, size_t *len, size_t *cap, const uint8_t *data, size_t n)
{
    if (*out == NULL || *len + n > *cap) { /* never memcpy to NULL, even 0 bytes */
        *cap = (*len + n) * 2 + 16;
        if ((*out = realloc(*out, *cap)) == NULL)
            tu_die("out of memory");
    }
    memcpy(*out + *len, data, n);
    *len += n;
}

/*
 * Crypto++ data values are a sequence of pieces: "text in quotes", 0x<hex> up to the next space,
 * or plain hex (with spaces) to the end of the value. "rN" before a piece repeats it N times.
 */
static uint8_t *cryptopp_value(const char *v, size_t *len, const char *source, unsigned line)
{
    uint8_t *out = NULL, *piece;
    size_t cap = 0, plen;
    unsigned long repeat = 1;

    *len = 0;
    append(&out, len, &cap, (const uint8_t *)"", 0);
    while (*v != '\0') {
        const char *end;

        if (*v == ' ' || *v == '\t') {
            v++;
            continue;
        }
        if (*v == 'r' && v[1] >= '0' && v[1] <= '9') {
            repeat = strtoul(v + 1, (char **)&end, 10);
            v = end;
            continue;
        }
        if (*v == '"') {
            if ((end = strchr(v + 1, '"')) == NULL)
                parse_error(source, line, "unterminated quoted value");
            plen = (size_t)(end - v - 1);
            if ((piece = malloc(plen + 1)) == NULL)
                tu_die("out of memory");
            memcpy(piece, v + 1, plen);
            v = end + 1;
        } else {
            char *hex;

            if (v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
                v += 2;
                end = v + strcspn(v, " \t");
            } else {
                end = v + strlen(v);
            }
            if ((hex = strndup(v, (size_t)(end - v))) == NULL)
                tu_die("out of memory");
            /* Crypto++'s hex decoder emits whole bytes only: an odd final digit is dropped
             * (the CFB8 vectors in aes.txt rely on this). */
            size_t digits = 0, last = 0;
            for (size_t i = 0; hex[i] != '\0'; i++)
                if (hex[i] != ' ' && hex[i] != '\t')
                    digits++, last = i;
            if (digits % 2 != 0)
                hex[last] = ' ';
            piece = tu_hex_decode(hex, &plen);
            free(hex);
            if (piece == NULL)
                parse_error(source, line, "bad hex value");
            v = end;
        }
        for (unsigned long i = 0; i < repeat; i++)
            append(&out, len, &cap, piece, plen);
        free(piece);
        repeat = 1;
    }
    return out;
}

static void cryptopp_test(struct run *run, struct source *src, const struct fields *fs,
                          const char *test, unsigned line)
{
    const char *name = fields_get(fs, "Name");
    const char *key = fields_get(fs, "Key"), *iv = fields_get(fs, "IV");
    const char *pt = fields_get(fs, "Plaintext"), *ct = fields_get(fs, "Ciphertext");
    const char *aad = fields_get(fs, "Header"), *tag = fields_get(fs, "MAC");
    const char *want = run->mode == MODE_CTR ? "AES/CTR" : "AES/GCM";
    struct vector v = {.source = src->path, .line = line, .linekind = "line", .valid = 1};

    if (name == NULL || strcmp(name, want) != 0) {
        /* Not ours, but decode its data anyway: the value syntax (quotes, 0x, rN, "\"
         * continuations) is used mostly outside the CTR sections, so this keeps the decoder
         * honest. */
        const char *data[] = {key, iv, pt, ct, aad, tag};
        for (size_t i = 0; i < sizeof(data) / sizeof(data[0]); i++) {
            if (data[i] != NULL) {
                size_t n;
                free(cryptopp_value(data[i], &n, src->path, line));
            }
        }
        return;
    }
    if (run->mode == MODE_CTR) {
        /* For CTR, encrypt and decrypt are the same known answer; anything else is
         * unexpected. */
        if (strcmp(test, "Encrypt") != 0 && strcmp(test, "Decrypt") != 0)
            parse_error(src->path, line, "unexpected Test kind in an AES/CTR section");
        if (key == NULL || iv == NULL || pt == NULL || ct == NULL)
            parse_error(src->path, line, "AES/CTR test lacks Key, IV, Plaintext or Ciphertext");
    } else {
        /* Encrypt: a known answer. NotVerify: the MAC must not verify. Absent fields (the
         * first test has no Plaintext or Header yet) are empty. */
        if (strcmp(test, "Encrypt") != 0 && strcmp(test, "NotVerify") != 0)
            parse_error(src->path, line, "unexpected Test kind in an AES/GCM section");
        v.valid = strcmp(test, "Encrypt") == 0;
        if (key == NULL || iv == NULL || tag == NULL)
            parse_error(src->path, line, "AES/GCM test lacks Key, IV or MAC");
    }

    v.key = cryptopp_value(key, &v.keylen, src->path, line);
    v.iv = cryptopp_value(iv, &v.ivlen, src->path, line);
    v.pt = cryptopp_value(pt != NULL ? pt : "", &v.ptlen, src->path, line);
    v.ct = cryptopp_value(ct != NULL ? ct : "", &v.ctlen, src->path, line);
    v.aad = cryptopp_value(aad != NULL ? aad : "", &v.aadlen, src->path, line);
    v.tag = cryptopp_value(tag != NULL ? tag : "", &v.taglen, src->path, line);
    run_vector(run, src, &v);
    vector_free(&v);
}

static void parse_cryptopp(struct run *run, struct source *src, FILE *f)
{
    struct fields fs = {.n = 0};
    char *buf = NULL, *line, *joined = NULL;
    size_t cap = 0;
    unsigned lineno = 0, tests = 0;

    while ((line = read_line(f, &buf, &cap, &lineno)) != NULL) {
        unsigned first = lineno;
        size_t n;

        /* Join "\" continuation lines. */
        free(joined);
        if ((joined = strdup(line)) == NULL)
            tu_die("out of memory");
        while ((n = strlen(joined)) > 0 && joined[n - 1] == '\\') {
            joined[n - 1] = '\0';
            if ((line = read_line(f, &buf, &cap, &lineno)) == NULL)
                parse_error(src->path, first, "continuation at end of file");
            if ((joined = realloc(joined, n + strlen(line) + 1)) == NULL)
                tu_die("out of memory");
            strcat(joined, line);
        }
        line = trim(joined);
        if (*line == '\0' || *line == '#')
            continue;

        char *colon = strchr(line, ':');
        if (colon == NULL)
            parse_error(src->path, first, "line is not \"Name: value\"");
        *colon = '\0';
        char *name = trim(line), *value = trim(colon + 1);

        if (strcmp(name, "AlgorithmType") == 0)
            fields_clear(&fs);
        if (strcmp(name, "Test") == 0) {
            tests++;
            cryptopp_test(run, src, &fs, value, first);
        } else if (!fields_set(&fs, name, value, 1)) {
            parse_error(src->path, first, "too many fields");
        }
    }
    printf("%s: %s: %u Crypto++ tests in the file\n", tu_prog, src->path, tests);
    fields_clear(&fs);
    free(joined);
    free(buf);
}

/* ---- Wycheproof JSON ---------------------------------------------------------------------- */

/* A JSON value, parsed whole: enough of RFC 8259 for the Wycheproof files. */
enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
    enum jtype type;
    char *str;          /* J_STR */
    double num;         /* J_NUM, J_BOOL */
    size_t n;           /* J_ARR, J_OBJ: number of members */
    struct jv *items;   /* their values */
    char **keys;        /* J_OBJ: their names */
};

struct jparser {
    const char *p, *start, *path;
};

static void jerror(struct jparser *jp, const char *what)
{
    tu_die("%s: JSON error near byte offset %ld: %s", jp->path, (long)(jp->p - jp->start), what);
}

static void jspace(struct jparser *jp)
{
    while (*jp->p == ' ' || *jp->p == '\t' || *jp->p == '\n' || *jp->p == '\r')
        jp->p++;
}

static char *jstring(struct jparser *jp)
{
    size_t cap = 16, n = 0;
    char *s = malloc(cap);

    if (s == NULL || *jp->p != '"')
        jerror(jp, "string expected");
    jp->p++;
    for (;;) {
        unsigned c = (unsigned char)*jp->p++;

        if (c == '\0')
            jerror(jp, "unterminated string");
        if (c == '"')
            break;
        if (c == '\\') {
            c = (unsigned char)*jp->p++;
            switch (c) {
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'u': {
                char hex[5] = {0};
                memcpy(hex, jp->p, 4);
                if (strlen(hex) != 4)
                    jerror(jp, "bad \\u escape");
                c = (unsigned)strtoul(hex, NULL, 16);
                jp->p += 4;
                c = c < 0x80 ? c : '?'; /* only text fields use these */
                break;
            }
            case '"': case '\\': case '/': break;
            default: jerror(jp, "bad escape");
            }
        }
        if (n + 2 > cap && (s = realloc(s, cap *= 2)) == NULL)
            tu_die("out of memory");
        s[n++] = (char)c;
    }
    s[n] = '\0';
    return s;
}

static void jvalue(struct jparser *jp, struct jv *out)
{
    memset(out, 0, sizeof(*out));
    jspace(jp);
    if (*jp->p == '{' || *jp->p == '[') {
        int obj = *jp->p++ == '{';
        size_t cap = 0;

        out->type = obj ? J_OBJ : J_ARR;
        jspace(jp);
        if (*jp->p == (obj ? '}' : ']')) {
            jp->p++;
            return;
        }
        for (;;) {
            if (out->n == cap) {
                cap = cap * 2 + 8;
                if ((out->items = realloc(out->items, cap * sizeof(*out->items))) == NULL
                    || (obj && (out->keys = realloc(out->keys, cap * sizeof(char *))) == NULL))
                    tu_die("out of memory");
            }
            if (obj) {
                jspace(jp);
                out->keys[out->n] = jstring(jp);
                jspace(jp);
                if (*jp->p++ != ':')
                    jerror(jp, "':' expected");
            }
            jvalue(jp, &out->items[out->n++]);
            jspace(jp);
            if (*jp->p == ',') {
                jp->p++;
                continue;
            }
            if (*jp->p++ != (obj ? '}' : ']'))
                jerror(jp, "',' or end of object/array expected");
            return;
        }
    }
    if (*jp->p == '"') {
        out->type = J_STR;
        out->str = jstring(jp);
    } else if (strncmp(jp->p, "true", 4) == 0 || strncmp(jp->p, "false", 5) == 0) {
        out->type = J_BOOL;
        out->num = *jp->p == 't';
        jp->p += *jp->p == 't' ? 4 : 5;
    } else if (strncmp(jp->p, "null", 4) == 0) {
        out->type = J_NULL;
        jp->p += 4;
    } else {
        char *end;

        out->type = J_NUM;
        out->num = strtod(jp->p, &end);
        if (end == jp->p)
            jerror(jp, "value expected");
        jp->p = end;
    }
}

static void jfree(struct jv *v)
{
    for (size_t i = 0; i < v->n; i++) {
        jfree(&v->items[i]);
        if (v->type == J_OBJ)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
}

static const struct jv *jget(const struct jv *obj, const char *key, enum jtype type)
{
    if (obj->type == J_OBJ)
        for (size_t i = 0; i < obj->n; i++)
            if (strcmp(obj->keys[i], key) == 0)
                return obj->items[i].type == type ? &obj->items[i] : NULL;
    return NULL;
}

/* A hex string member of a Wycheproof test. */
static uint8_t *jhex(const struct jv *test, const char *key, size_t *len, const char *path,
                     unsigned id)
{
    const struct jv *s = jget(test, key, J_STR);
    uint8_t *out;

    if (s == NULL || (out = tu_hex_decode(s->str, len)) == NULL)
        parse_error(path, id, "a Wycheproof test lacks a hex member (tcId given as line)");
    return out;
}

/* Wycheproof's AEAD schema: testGroups[] of {ivSize, keySize, tagSize, tests[] of {tcId, key,
 * iv, aad, msg, ct, tag, result ("valid" or "invalid"), flags}}. */
static void parse_wycheproof(struct run *run, struct source *src, FILE *f)
{
    struct jparser jp = {.path = src->path};
    struct jv root;
    const struct jv *groups, *num;
    char *text = NULL;
    size_t cap = 0, len = 0, got;
    unsigned tests = 0;

    while (!feof(f)) {
        if (len + 65536 + 1 > cap && (text = realloc(text, cap = (len + 65536 + 1) * 2)) == NULL)
            tu_die("out of memory");
        len += fread(text + len, 1, 65536, f);
        if (ferror(f))
            tu_die("%s: read error", src->path);
    }
    text[len] = '\0';
    jp.p = jp.start = text;
    jvalue(&jp, &root);
    groups = jget(&root, "testGroups", J_ARR);
    if (groups == NULL)
        parse_error(src->path, 0, "no testGroups");
    for (size_t g = 0; g < groups->n; g++) {
        const struct jv *grp = &groups->items[g], *list = jget(grp, "tests", J_ARR);
        const struct jv *type = jget(grp, "type", J_STR);

        if (list == NULL || (type != NULL && strcmp(type->str, "AeadTest") != 0))
            parse_error(src->path, 0, "a test group is not an AeadTest with tests");
        for (size_t i = 0; i < list->n; i++) {
            const struct jv *t = &list->items[i], *id = jget(t, "tcId", J_NUM);
            const struct jv *result = jget(t, "result", J_STR);
            struct vector v = {.source = src->path, .linekind = "tcId"};

            if (id == NULL || result == NULL)
                parse_error(src->path, 0, "a test lacks tcId or result");
            v.line = (unsigned)id->num;
            if (strcmp(result->str, "valid") == 0)
                v.valid = 1;
            else if (strcmp(result->str, "invalid") != 0)
                parse_error(src->path, v.line, "result is neither valid nor invalid (tcId)");
            v.key = jhex(t, "key", &v.keylen, src->path, v.line);
            v.iv = jhex(t, "iv", &v.ivlen, src->path, v.line);
            v.aad = jhex(t, "aad", &v.aadlen, src->path, v.line);
            v.pt = jhex(t, "msg", &v.ptlen, src->path, v.line);
            v.ct = jhex(t, "ct", &v.ctlen, src->path, v.line);
            v.tag = jhex(t, "tag", &v.taglen, src->path, v.line);
            run_vector(run, src, &v);
            vector_free(&v);
            tests++;
        }
    }
    num = jget(&root, "numberOfTests", J_NUM);
    got = num != NULL ? (size_t)num->num : 0;
    if (got != tests)
        tu_die("%s: %u tests parsed, numberOfTests says %zu", src->path, tests, got);
    printf("%s: %s: %u Wycheproof tests in the file (numberOfTests %zu)\n", tu_prog, src->path,
           tests, got);
    jfree(&root);
    free(text);
}

/* ---- Main --------------------------------------------------------------------------------- */

static void usage(void)
{
    fprintf(stderr, "usage: vectors --mode ctr|gcm|gcmsiv [--provider NAME] [--expect-kernel NAME] "
            "DIR\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *provider = "aesfast", *expect_kernel = NULL, *dir = NULL, *mode = NULL;
    const char *const *algs;
    struct run run = {.passed = 0};
    tu_providers prov;
    struct stat st;
    char full[4096];
    int short_count = 0;

    tu_init(argv[0]);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--provider") == 0 && i + 1 < argc)
            provider = argv[++i];
        else if (strcmp(argv[i], "--expect-kernel") == 0 && i + 1 < argc)
            expect_kernel = argv[++i];
        else if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc)
            mode = argv[++i];
        else if (argv[i][0] != '-' && dir == NULL)
            dir = argv[i];
        else
            usage();
    }
    if (dir == NULL || mode == NULL
        || (strcmp(mode, "ctr") != 0 && strcmp(mode, "gcm") != 0 && strcmp(mode, "gcmsiv") != 0))
        usage();
    run.mode = strcmp(mode, "gcm") == 0 ? MODE_GCM : strcmp(mode, "gcmsiv") == 0 ? MODE_GCMSIV
                                                                                 : MODE_CTR;
    algs = run.mode == MODE_GCM ? gcm_algs : run.mode == MODE_GCMSIV ? siv_algs : ctr_algs;
    run.strict = strcmp(provider, "default") != 0;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) { /* test/vectors ships with the source */
        printf("%s: FAIL: vectors folder %s not found\n", tu_prog, dir);
        return 1;
    }

    tu_providers_load(&prov, provider, expect_kernel);
    if (run.mode == MODE_GCMSIV && !run.strict) {
        EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, siv_algs[0], "provider=default");

        if (c == NULL) { /* OpenSSL 3.0 and 3.1 */
            printf("%s: SKIP: the default provider of %s has no GCM-SIV\n", tu_prog,
                   OpenSSL_version(OPENSSL_VERSION));
            tu_providers_unload(&prov);
            return TU_EXIT_SKIP;
        }
        EVP_CIPHER_free(c);
    }
    for (int k = 0; k < 3; k++)
        run.cipher[k] = tu_fetch_cipher(algs[k], provider);
    if ((run.ctx = EVP_CIPHER_CTX_new()) == NULL)
        tu_die("out of memory");

    for (size_t s = 0; s < sizeof(sources) / sizeof(sources[0]); s++) {
        struct source *src = &sources[s];
        FILE *f;

        if (src->mode != run.mode)
            continue;
        f = open_source(dir, src->path, full, sizeof(full));
        if (src->format == CRYPTOPP)
            parse_cryptopp(&run, src, f);
        else if (src->format == WYCHEPROOF)
            parse_wycheproof(&run, src, f);
        else
            parse_filetest(&run, src, f);
        fclose(f);

        printf("%s: %s: %u vectors (AES-128 %u, AES-192 %u, AES-256 %u)", tu_prog, src->path,
               src->count[0] + src->count[1] + src->count[2], src->count[0], src->count[1],
               src->count[2]);
        if (run.mode == MODE_GCM)
            printf(": %u valid accepted, %u invalid rejected, %u refused for their IV length (as "
                   "the default provider refuses 0 and over %d bytes), %u failed",
                   src->outcomes[OUT_OK], src->outcomes[OUT_REJECTED],
                   src->outcomes[OUT_REFUSED], GCM_MAX_IV, src->failed);
        else if (run.mode == MODE_GCMSIV)
            printf(": %u valid accepted, %u invalid rejected, %u with a counter wrap, %u failed",
                   src->outcomes[OUT_OK], src->outcomes[OUT_REJECTED], src->wraps, src->failed);
        else
            printf(": %u failed", src->failed);
        putchar('\n');
        for (int k = 0; k < 3; k++) {
            if (src->count[k] < src->min[k]) {
                fprintf(stderr, "%s: FAIL %s: only %u %s vectors, expected at least %u "
                        "(parser regression?)\n", tu_prog, src->path, src->count[k],
                        algs[k], src->min[k]);
                short_count = 1;
            }
        }
        if (src->wraps < src->min_wraps) {
            fprintf(stderr, "%s: FAIL %s: only %u counter-wrap vectors, expected at least %u "
                    "(parser regression?)\n", tu_prog, src->path, src->wraps, src->min_wraps);
            short_count = 1;
        }
    }

    printf("%s: %s: %u passed, %u failed (provider %s, kernel %s, %s)\n", tu_prog, mode,
           run.passed, run.failed, provider, prov.kernel, OpenSSL_version(OPENSSL_VERSION));

    EVP_CIPHER_CTX_free(run.ctx);
    for (int k = 0; k < 3; k++)
        EVP_CIPHER_free(run.cipher[k]);
    tu_providers_unload(&prov);
    return run.failed != 0 || short_count;
}
