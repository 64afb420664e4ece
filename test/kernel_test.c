/*
 * kernel_test: every compiled-in kernel tier that this CPU can run, called directly (no provider),
 * against AES-ECB from libcrypto's default provider as the independent reference:
 *   - set_key's round keys equal the portable tier's, and encrypt_block matches AES-ECB;
 *   - ctr32_xor matches ECB on explicitly built counter blocks, including a low word that wraps
 *     from 0xffffffff to 0 without a carry into byte 11, for 0..300 blocks and a few large counts,
 *     in place and at every misalignment, without writing a byte outside the output;
 *   - gcm_seal_msg and gcm_open_msg (where the tier has them): output, tag and the state left,
 *     for every data length of 0..64 blocks and around one group of powers and the queue's
 *     size, against the same references and the generic tier's GHASH; in and out against guard
 *     pages (masked tails touch nothing past a buffer);
 *   - ctr32_xor touches no byte outside its arguments: for 0..64 blocks and a few large counts,
 *     the input, the output, the in-place buffer and the counter block each end flush against a
 *     PROT_NONE page (and, in a second pass, start right after one), and the key starts right
 *     after one. A kernel that reads or writes one byte too far dies of SIGSEGV; a handler names
 *     the case and the buffer before the test exits 1.
 *
 *   kernel_test [TIER...]     (no TIER: every tier; a named tier the CPU lacks is skipped)
 *   kernel_test --usable TIER exit 0 if this CPU runs TIER, 77 if not (test/with-tier.sh uses it)
 * Exit 0 pass, 1 fail, 77 when every named tier was skipped.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include "aesfast_kernel.h"
#include "check.h"
#include "dispatch.h"
#include "tiers.h"


/* The reference: AES-ECB of n blocks through the default provider. */
static void ecb(const uint8_t *key, size_t keylen, const uint8_t *in, uint8_t *out, size_t n)
{
    static const char *names[] = {"AES-128-ECB", "AES-192-ECB", "AES-256-ECB"};
    EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, names[(keylen - 16) / 8], "provider=default");
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl = 0;

    if (c == NULL || ctx == NULL || !EVP_EncryptInit_ex2(ctx, c, key, NULL, NULL)
        || !EVP_CIPHER_CTX_set_padding(ctx, 0)
        || (n > 0 && !EVP_EncryptUpdate(ctx, out, &outl, in, (int)(n * 16)))) {
        ERR_print_errors_fp(stderr);
        fprintf(stderr, "kernel_test: the AES-ECB reference is unavailable\n");
        exit(1);
    }
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
}

/* The expected output of ctr32_xor, built block by block from the contract's definition. */
static void ctr32_reference(const uint8_t *key, size_t keylen, const uint8_t ctr[16],
                            const uint8_t *in, uint8_t *out, size_t n)
{
    uint8_t *blocks = calloc(n + 1, 16);
    uint32_t lo = (uint32_t)ctr[12] << 24 | (uint32_t)ctr[13] << 16 | (uint32_t)ctr[14] << 8
                | ctr[15];

    for (size_t i = 0; i < n; i++) {
        uint32_t v = lo + (uint32_t)i; /* modulo 2^32, bytes 0..11 untouched */
        memcpy(blocks + 16 * i, ctr, 12);
        blocks[16 * i + 12] = (uint8_t)(v >> 24);
        blocks[16 * i + 13] = (uint8_t)(v >> 16);
        blocks[16 * i + 14] = (uint8_t)(v >> 8);
        blocks[16 * i + 15] = (uint8_t)v;
    }
    ecb(key, keylen, blocks, blocks, n);
    for (size_t i = 0; i < n * 16; i++)
        out[i] = in[i] ^ blocks[i];
    free(blocks);
}

static void test_key_schedule(const aesfast_kernel *k, size_t keylen)
{
    aesfast_key mine, portable;
    uint8_t key[32], in[16], got[16], want[16];

    for (int t = 0; t < 50; t++) {
        tiers_fill(key, keylen);
        tiers_fill(in, 16);
        memset(&mine, 0, sizeof(mine));
        k->set_key(&mine, key, keylen);
        aesfast_generic_set_key(&portable, key, keylen);
        CHECK(mine.rounds == 6 + keylen / 4, "%s: rounds %u for a %zu-byte key", k->name,
              mine.rounds, keylen);
        CHECK(memcmp(mine.rk, portable.rk, 16 * (mine.rounds + 1)) == 0,
              "%s: round keys differ from the portable tier's (%zu-byte key)", k->name, keylen);
        k->encrypt_block(&mine, in, got);
        ecb(key, keylen, in, want, 1);
        CHECK(memcmp(got, want, 16) == 0, "%s: encrypt_block differs from AES-ECB", k->name);
        k->encrypt_block(&mine, got, got); /* in == out */
        ecb(key, keylen, want, want, 1);
        CHECK(memcmp(got, want, 16) == 0, "%s: in-place encrypt_block differs", k->name);
    }
}

static void test_ctr32_case(const aesfast_kernel *k, size_t keylen, size_t n, int near_wrap,
                            size_t misalign, int in_place)
{
    enum { GUARD = 32 };
    uint8_t key[32], ctr[16], ctr_copy[16];
    aesfast_key ks;
    size_t len = n * 16;
    uint8_t *inbuf = malloc(len + 2 * GUARD + 16), *outbuf = malloc(len + 2 * GUARD + 16);
    uint8_t *want = malloc(len + 16);

    tiers_fill(key, keylen);
    tiers_fill(ctr, 16);
    if (near_wrap) { /* the low word a few blocks short of 2^32 */
        uint32_t lo = 0xffffffffu - (uint32_t)(tiers_rng() % 20);
        ctr[12] = (uint8_t)(lo >> 24); ctr[13] = (uint8_t)(lo >> 16);
        ctr[14] = (uint8_t)(lo >> 8);  ctr[15] = (uint8_t)lo;
    }
    memcpy(ctr_copy, ctr, 16);
    k->set_key(&ks, key, keylen);

    uint8_t *in = inbuf + GUARD + misalign;
    uint8_t *out = in_place ? in : outbuf + GUARD + (misalign * 7) % 16;
    tiers_fill(inbuf, len + 2 * GUARD + 16);
    memset(outbuf, 0xa5, len + 2 * GUARD + 16);
    ctr32_reference(key, keylen, ctr, in, want, n);
    uint8_t before[GUARD], after[GUARD];
    memcpy(before, out - GUARD, GUARD);
    memcpy(after, out + len, GUARD);

    k->ctr32_xor(&ks, ctr, in, out, n);

    CHECK(memcmp(out, want, len) == 0,
          "%s: ctr32_xor differs: %zu-byte key, %zu blocks, near_wrap %d, misalign %zu, "
          "in_place %d", k->name, keylen, n, near_wrap, misalign, in_place);
    CHECK(memcmp(before, out - GUARD, GUARD) == 0 && memcmp(after, out + len, GUARD) == 0,
          "%s: ctr32_xor wrote outside its output (%zu blocks)", k->name, n);
    CHECK(memcmp(ctr, ctr_copy, 16) == 0, "%s: ctr32_xor changed the counter block", k->name);
    free(inbuf);
    free(outbuf);
    free(want);
}

/*
 * Guard pages. The GUARD bytes above live in the same malloc block as the buffer, so an
 * over-read of the input, counter or key goes unnoticed there. Here every buffer gets pages of
 * its own between two PROT_NONE pages, and sits flush against the end of the accessible range
 * (catching accesses past it) or flush against its start (catching accesses before it).
 */
typedef struct guarded {
    uint8_t *map;  /* the whole mapping: PROT_NONE page, accessible pages, PROT_NONE page */
    size_t maplen;
    uint8_t *lo, *hi; /* the accessible range */
    uint8_t *p;       /* the buffer: [p, p + len) */
} guarded;

static size_t page_size(void)
{
    static size_t page;

    if (page == 0)
        page = (size_t)sysconf(_SC_PAGESIZE);
    return page;
}

static void guarded_alloc(guarded *g, size_t len, int at_end)
{
    size_t page = page_size(), body = (len + page - 1) / page * page;

    g->maplen = body + 2 * page;
    g->map = mmap(NULL, g->maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->map == MAP_FAILED || mprotect(g->map, page, PROT_NONE) != 0
        || mprotect(g->map + page + body, page, PROT_NONE) != 0) {
        perror("kernel_test: mmap/mprotect");
        exit(1);
    }
    g->lo = g->map + page;
    g->hi = g->lo + body;
    g->p = at_end ? g->hi - len : g->lo;
    memset(g->lo, 0xa5, body);
}

/* The accessible bytes outside [p, p + len) still hold the fill of guarded_alloc. */
static int guarded_untouched(const guarded *g, size_t len)
{
    for (const uint8_t *q = g->lo; q < g->hi; q++)
        if ((q < g->p || q >= g->p + len) && *q != 0xa5)
            return 0;
    return 1;
}

static void guarded_free(guarded *g)
{
    munmap(g->map, g->maplen);
}

/* What the SIGSEGV handler reports: the case being run and where each buffer is. */
static char guard_case[200];
static struct {
    const char *name;
    const guarded *g;
} guard_bufs[4];

static void guard_watch(size_t i, const char *name, const guarded *g)
{
    guard_bufs[i].name = name;
    guard_bufs[i].g = g;
}

static void write_str(const char *s)
{
    ssize_t r = write(2, s, strlen(s));
    (void)r;
}

static void guard_fault(int sig, siginfo_t *si, void *uc)
{
    const uint8_t *a = si->si_addr;

    (void)uc;
    write_str("FAIL: a kernel touched a guard page (");
    write_str(sig == SIGSEGV ? "SIGSEGV" : "SIGBUS");
    write_str(") in ");
    write_str(guard_case);
    for (size_t i = 0; i < sizeof(guard_bufs) / sizeof(guard_bufs[0]); i++) {
        const guarded *g = guard_bufs[i].g;
        if (g != NULL && a >= g->map && a < g->lo) {
            write_str(": before the ");
            write_str(guard_bufs[i].name);
        } else if (g != NULL && a >= g->hi && a < g->map + g->maplen) {
            write_str(": after the ");
            write_str(guard_bufs[i].name);
        }
    }
    write_str("\n");
    _exit(1);
}

static void test_ctr32_guarded(const aesfast_kernel *k, size_t keylen, size_t n, int at_end)
{
    size_t len = n * 16;
    uint8_t raw[32], ctr_copy[16];
    guarded key, ctr, in, out, inplace;
    uint8_t *want = malloc(len + 16);

    guarded_alloc(&key, sizeof(aesfast_key), 0); /* the byte before rk[0] is PROT_NONE */
    guarded_alloc(&ctr, 16, at_end);
    guarded_alloc(&in, len, at_end);
    guarded_alloc(&out, len, at_end);
    guarded_alloc(&inplace, len, at_end);
    tiers_fill(raw, keylen);
    tiers_fill(ctr.p, 16);
    tiers_fill(in.p, len);
    memcpy(inplace.p, in.p, len);
    memcpy(ctr_copy, ctr.p, 16);
    k->set_key((aesfast_key *)key.p, raw, keylen);
    ctr32_reference(raw, keylen, ctr.p, in.p, want, n);

    snprintf(guard_case, sizeof(guard_case), "%s, %zu-byte key, %zu blocks, buffers %s",
             k->name, keylen, n, at_end ? "ending at a guard page" : "starting after one");
    guard_watch(0, "key", &key);
    guard_watch(1, "counter block", &ctr);
    guard_watch(2, "input", &in);
    guard_watch(3, "output", &out);
    k->ctr32_xor((const aesfast_key *)key.p, ctr.p, in.p, out.p, n);
    CHECK(memcmp(out.p, want, len) == 0 && guarded_untouched(&out, len),
          "guarded ctr32_xor: wrong output or a write outside it: %s", guard_case);
    guard_watch(2, "in-place buffer", &inplace);
    guard_watch(3, NULL, NULL);
    k->ctr32_xor((const aesfast_key *)key.p, ctr.p, inplace.p, inplace.p, n);
    CHECK(memcmp(inplace.p, want, len) == 0 && guarded_untouched(&inplace, len),
          "guarded in-place ctr32_xor: wrong output or a write outside it: %s", guard_case);
    CHECK(memcmp(ctr.p, ctr_copy, 16) == 0, "guarded ctr32_xor changed the counter: %s",
          guard_case);
    memset(guard_bufs, 0, sizeof(guard_bufs));

    guarded_free(&key);
    guarded_free(&ctr);
    guarded_free(&in);
    guarded_free(&out);
    guarded_free(&inplace);
    free(want);
}

/* ---- GCM: hash_init, hash and the two stitched functions, against AES-GCM from libcrypto ---- */

/* The reference: AES-GCM with a 12-byte IV through the default provider. */
static void gcm_reference(const uint8_t *key, size_t keylen, const uint8_t iv[12],
                          const uint8_t *aad, size_t aadlen, const uint8_t *in, uint8_t *out,
                          size_t len, uint8_t tag[16])
{
    static const char *names[] = {"AES-128-GCM", "AES-192-GCM", "AES-256-GCM"};
    EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, names[(keylen - 16) / 8], "provider=default");
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl = 0;

    if (c == NULL || ctx == NULL || !EVP_EncryptInit_ex2(ctx, c, key, iv, NULL)
        || (aadlen > 0 && !EVP_EncryptUpdate(ctx, NULL, &outl, aad, (int)aadlen))
        || (len > 0 && !EVP_EncryptUpdate(ctx, out, &outl, in, (int)len))
        || !EVP_EncryptFinal_ex(ctx, out + len, &outl)
        || !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag)) {
        ERR_print_errors_fp(stderr);
        fprintf(stderr, "kernel_test: the AES-GCM reference is unavailable\n");
        exit(1);
    }
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
}

static void store_be64_bits(uint8_t *p, uint64_t bytes)
{
    uint64_t v = bytes * 8;

    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

/* A tier's stitched GCM function: open (hash_then_ctr) or seal, for a public counter or not. */
static aesfast_aead_crypt_fn *gcm_fn(const aesfast_kernel *k, int open, int pub)
{
    const aesfast_aead_kernel *g = &k->gcm;

    return aesfast_gcm_stitched(g, !open, pub);
}

/*
 * One GCM message of aadblocks and n whole blocks through the tier's kernels, sealed
 * (ctr_then_hash) and opened (hash_then_ctr), compared with libcrypto's ciphertext and tag.
 * The stitched call is split in two at split (0 = one call), as the provider does across updates.
 * pub: through the forms for a public counter (ctr_then_hash_pub, hash_then_ctr_pub), as the
 * provider calls them for a 12-byte IV.
 */
static void test_gcm_case(const aesfast_kernel *k, size_t keylen, size_t aadblocks, size_t n,
                          size_t split, size_t misalign, int in_place, int pub)
{
    enum { GUARD = 32 };
    const aesfast_aead_kernel *g = &k->gcm;
    uint8_t key[32], iv[12], zero[16] = {0}, h[16], j0[16], ctr[16], ctr_copy[16], ekj0[16];
    uint8_t acc[16], lens[16], tag[16], want_tag[16];
    aesfast_key ks;
    aesfast_hash_key *hk = malloc(sizeof(*hk));
    size_t len = n * 16;
    uint8_t *aad = malloc(aadblocks * 16 + 1), *pt = malloc(len + 1);
    uint8_t *want = malloc(len + 16);
    uint8_t *buf = malloc(len + 2 * GUARD + 32), *buf2 = malloc(len + 2 * GUARD + 32);

    if (split > n)
        split = n;
    tiers_fill(key, keylen);
    tiers_fill(iv, 12);
    tiers_fill(aad, aadblocks * 16);
    tiers_fill(pt, len);
    gcm_reference(key, keylen, iv, aad, aadblocks * 16, pt, want, len, want_tag);

    k->set_key(&ks, key, keylen);
    k->encrypt_block(&ks, zero, h);
    g->hash_init(hk, h);
    memcpy(j0, iv, 12);
    j0[12] = j0[13] = j0[14] = 0;
    j0[15] = 1;
    k->encrypt_block(&ks, j0, ekj0);
    store_be64_bits(lens, aadblocks * 16);
    store_be64_bits(lens + 8, len);

    for (int open = 0; open <= 1; open++) {
        uint8_t *in = buf + GUARD + misalign;
        uint8_t *out = in_place ? in : buf2 + GUARD + (misalign * 5 + 3) % 16;
        memset(buf, 0xa5, len + 2 * GUARD + 32); /* the guards of the in-place case */
        memset(buf2, 0x5a, len + 2 * GUARD + 32);
        memcpy(in, open ? want : pt, len);
        uint8_t before[GUARD], after[GUARD];
        memcpy(before, out - GUARD, GUARD);
        memcpy(after, out + len, GUARD);

        memset(acc, 0, 16);
        g->hash(hk, acc, aad, aadblocks);
        aesfast_aead_crypt_fn *fn = gcm_fn(k, open, pub);
        memcpy(ctr, j0, 16);
        ctr[15] = 2;
        memcpy(ctr_copy, ctr, 16);
        fn(&ks, hk, acc, ctr, in, out, split);
        CHECK(memcmp(ctr, ctr_copy, 16) == 0, "%s: gcm kernel changed the counter", k->name);
        ctr[15] = (uint8_t)(2 + split); /* n < 250 when split != 0 */
        fn(&ks, hk, acc, split ? ctr : ctr_copy, in + 16 * split, out + 16 * split,
           n - split);
        g->hash(hk, acc, lens, 1);
        for (int i = 0; i < 16; i++)
            tag[i] = acc[i] ^ ekj0[i];
        CHECK(memcmp(out, open ? pt : want, len) == 0,
              "%s: gcm %s%s output differs: %zu-byte key, %zu AAD blocks, %zu blocks, split %zu, "
              "misalign %zu, in_place %d", k->name, open ? "open" : "seal", pub ? " (pub)" : "",
              keylen, aadblocks, n, split, misalign, in_place);
        CHECK(memcmp(tag, want_tag, 16) == 0,
              "%s: gcm %s%s tag differs: %zu-byte key, %zu AAD blocks, %zu blocks, split %zu, "
              "misalign %zu, in_place %d", k->name, open ? "open" : "seal", pub ? " (pub)" : "",
              keylen, aadblocks, n, split, misalign, in_place);
        CHECK(memcmp(before, out - GUARD, GUARD) == 0 && memcmp(after, out + len, GUARD) == 0,
              "%s: gcm %s wrote outside its output (%zu blocks)", k->name,
              open ? "open" : "seal", n);
    }
    OPENSSL_cleanse(hk, sizeof(*hk));
    free(hk);
    free(aad);
    free(pt);
    free(want);
    free(buf);
    free(buf2);
}

/* The stitched kernels across a 32-bit counter wrap (GCM with a non-12-byte IV can start
 * anywhere): the output against ctr32_reference, the hash against the generic tier's GHASH of
 * the ciphertext (itself checked against libcrypto above); pub as test_gcm_case's (a public
 * counter does not wrap in a message, but the functions must be right there too). */
static void test_gcm_wrap(const aesfast_kernel *k, size_t keylen, size_t n, int pub)
{
    const aesfast_kernel *generic = aesfast_kernel_by_name("generic");
    uint8_t key[32], h[16], ctr[16], acc[16], acc_ref[16];
    aesfast_key ks;
    aesfast_hash_key *hk = malloc(sizeof(*hk)), *hk_ref = malloc(sizeof(*hk_ref));
    uint8_t *in = malloc(16 * n + 1), *out = malloc(16 * n + 1), *want = malloc(16 * n + 1);

    tiers_fill(key, keylen);
    tiers_fill(h, 16);
    tiers_fill(ctr, 16);
    tiers_fill(in, 16 * n);
    tiers_fill(acc, 16);
    uint32_t lo = 0xffffffffu - (uint32_t)(tiers_rng() % (n + 1));
    ctr[12] = (uint8_t)(lo >> 24); ctr[13] = (uint8_t)(lo >> 16);
    ctr[14] = (uint8_t)(lo >> 8);  ctr[15] = (uint8_t)lo;
    k->set_key(&ks, key, keylen);
    k->gcm.hash_init(hk, h);
    generic->gcm.hash_init(hk_ref, h);
    ctr32_reference(key, keylen, ctr, in, want, n);
    for (int open = 0; open <= 1; open++) {
        memcpy(acc_ref, acc, 16);
        generic->gcm.hash(hk_ref, acc_ref, open ? in : want, n);
        uint8_t a[16];
        memcpy(a, acc, 16);
        gcm_fn(k, open, pub)(&ks, hk, a, ctr, in, out, n);
        CHECK(memcmp(out, want, 16 * n) == 0, "%s: gcm %s%s across the counter wrap: output",
              k->name, open ? "open" : "seal", pub ? " (pub)" : "");
        CHECK(memcmp(a, acc_ref, 16) == 0, "%s: gcm %s%s across the counter wrap: hash", k->name,
              open ? "open" : "seal", pub ? " (pub)" : "");
    }
    free(hk);
    free(hk_ref);
    free(in);
    free(out);
    free(want);
}

/* The stitched kernels from a counter whose low byte is lo, against ctr32_reference and the
 * generic tier's GHASH of the ciphertext (pub as test_gcm_case's: the public forms' groups
 * that carry out of the low byte). */
static void test_gcm_low_byte(const aesfast_kernel *k, size_t keylen, uint8_t lo, size_t n,
                              int pub)
{
    const aesfast_kernel *generic = aesfast_kernel_by_name("generic");
    uint8_t key[32], h[16], ctr[16], acc[16], a[16];
    aesfast_key ks;
    aesfast_hash_key *hk = malloc(sizeof(*hk)), *hk_ref = malloc(sizeof(*hk_ref));
    uint8_t *in = malloc(16 * n), *out = malloc(16 * n), *want = malloc(16 * n);

    tiers_fill(key, keylen);
    tiers_fill(h, 16);
    tiers_fill(ctr, 16);
    tiers_fill(in, 16 * n);
    ctr[15] = lo;
    k->set_key(&ks, key, keylen);
    k->gcm.hash_init(hk, h);
    generic->gcm.hash_init(hk_ref, h);
    ctr32_reference(key, keylen, ctr, in, want, n);
    for (int open = 0; open <= 1; open++) {
        memset(acc, 0, 16);
        generic->gcm.hash(hk_ref, acc, open ? in : want, n);
        memset(a, 0, 16);
        gcm_fn(k, open, pub)(&ks, hk, a, ctr, in, out, n);
        CHECK(memcmp(out, want, 16 * n) == 0 && memcmp(a, acc, 16) == 0,
              "%s: gcm %s%s from a counter with low byte %u (%zu-byte key): wrong %s", k->name,
              open ? "open" : "seal", pub ? " (pub)" : "", lo, keylen,
              memcmp(out, want, 16 * n) != 0 ? "output" : "hash");
    }
    free(hk);
    free(hk_ref);
    free(in);
    free(out);
    free(want);
}

/* GCM's short table and its rest (the provider keys with the few and makes the rest when a
 * message needs it): GHASH of up to AESFAST_HASH_FEW blocks after hash_init_few, whatever the
 * rest of the table holds (random bytes here, standing for an earlier key's powers), equals the
 * portable tier's; and hash_init_few then hash_init_rest leave the very bytes hash_init leaves. */
static void test_ghash_few(const aesfast_kernel *k)
{
    const aesfast_aead_kernel *g = &k->gcm, *ref = &aesfast_kernel_by_name("generic")->gcm;
    aesfast_hash_key *hk = malloc(sizeof(*hk)), *hk2 = malloc(sizeof(*hk2)),
                     *hk_ref = malloc(sizeof(*hk_ref));

    CHECK((g->hash_init_few == NULL) == (g->few_hi == 0) && g->few_lo <= g->few_hi
              && g->few_hi <= sizeof(hk->tbl) && (g->hash_init_rest == NULL || g->hash_init_few),
          "%s: GCM's short table is not {init_few, its bytes, init_rest} or none", k->name);
    for (int trial = 0; trial < 20; trial++) {
        uint8_t h[16], in[16 * AESFAST_HASH_FEW], a[16], b[16];
        size_t n = (size_t)trial % (AESFAST_HASH_FEW + 1);

        tiers_fill(h, 16);
        tiers_fill(in, sizeof(in));
        tiers_fill(a, 16);
        tiers_fill(hk->tbl, sizeof(hk->tbl));
        memcpy(hk2->tbl, hk->tbl, sizeof(hk->tbl));
        memcpy(b, a, 16);
        aesfast_hash_init_few(g)(hk, h);
        ref->hash_init(hk_ref, h);
        g->hash(hk, a, in, n);
        ref->hash(hk_ref, b, in, n);
        CHECK(memcmp(a, b, 16) == 0, "%s: GHASH of %zu blocks after hash_init_few differs",
              k->name, n);
        if (g->hash_init_rest != NULL) {
            g->hash_init_rest(hk, h);
            g->hash_init(hk2, h);
            CHECK(memcmp(hk->tbl, hk2->tbl, sizeof(hk->tbl)) == 0,
                  "%s: hash_init_few then hash_init_rest is not hash_init's table", k->name);
        }
    }
    free(hk);
    free(hk2);
    free(hk_ref);
}

static void test_gcm_tier(const aesfast_kernel *k)
{
    static const size_t keylens[] = {16, 24, 32};
    /* The forms for a public counter: tested where the tier has its own. */
    int npub = k->gcm.ctr_then_hash_pub != NULL;

    if (!CHECK(k->gcm.hash_init && k->gcm.hash && k->gcm.ctr && k->gcm.ctr_then_hash
                   && k->gcm.hash_then_ctr
                   && (k->gcm.ctr_then_hash_pub == NULL) == (k->gcm.hash_then_ctr_pub == NULL),
               "%s: the GCM kernel table is incomplete", k->name))
        return;
    CHECK(k->gcm.ctr == k->ctr32_xor, "%s: GCM's counter is not the tier's ctr32_xor", k->name);
    test_ghash_few(k);
    for (int pub = 0; pub <= npub; pub++) {
        for (int i = 0; i < 3; i++) {
            size_t kl = keylens[i];
            for (size_t n = 0; n <= 100; n++)
                test_gcm_case(k, kl, n % 7 == 6 ? 20 + n % 40 : n % 4, n,
                              n % 3 == 1 ? n / 2 : 0, n % 16, n % 5 == 0, pub);
            for (size_t a = 0; a <= 70; a++)
                test_gcm_case(k, kl, a, a % 3, 0, a % 16, 0, pub);
            static const size_t large[] = {255, 256, 257, 1000, 4099};
            for (size_t j = 0; j < sizeof(large) / sizeof(large[0]); j++)
                test_gcm_case(k, kl, j, large[j], j % 2 ? 33 : 0, j, (int)j % 2, pub);
            for (size_t n = 1; n <= 40; n += 3)
                test_gcm_wrap(k, kl, n, pub);
            test_gcm_wrap(k, kl, 300, pub);
            /* Around the 512-bit tier's 32-block groups (one reduction each; seal hashes a
             * group behind): calls that end at, or split a message at, a group boundary and
             * either side of it, in place and not, at every alignment of in. */
            static const size_t edges[] = {31, 32, 33, 63, 64, 65, 95, 96, 97};
            static const size_t splits[] = {0, 1, 8, 31, 32, 33};
            for (size_t e = 0; e < sizeof(edges) / sizeof(edges[0]); e++)
                for (size_t j = 0; j < sizeof(splits) / sizeof(splits[0]); j++)
                    if (splits[j] < edges[e])
                        test_gcm_case(k, kl, (e + j) % 3, edges[e], splits[j],
                                      (e * 6 + j) % 16, (int)(e + j) % 2, pub);
        }
        /* Counters whose low byte starts anywhere, so that a group's 32 counters carry into
         * byte 14 at every position (and across the 2^32 wrap: test_gcm_wrap); the public
         * forms' groups of 16 (vaes-avx2) before, at and after the carry, for every low byte. */
        for (int i = 0; i < 3; i++)
            for (unsigned lo = 0; lo < 256; lo += pub ? 1 : 7)
                test_gcm_low_byte(k, keylens[i], (uint8_t)lo, 70, pub);
    }
}

/* ---- GCM's message in one call: gcm_seal_msg and gcm_open_msg ---- */

/* J0 + n (inc32 on the last 4 bytes). */
static void j0_plus(const uint8_t j0[16], uint32_t n, uint8_t out[16])
{
    uint32_t lo = (uint32_t)j0[12] << 24 | (uint32_t)j0[13] << 16 | (uint32_t)j0[14] << 8 | j0[15];

    lo += n;
    memcpy(out, j0, 12);
    out[12] = (uint8_t)(lo >> 24);
    out[13] = (uint8_t)(lo >> 16);
    out[14] = (uint8_t)(lo >> 8);
    out[15] = (uint8_t)lo;
}

/*
 * One call of gcm_seal_msg and of gcm_open_msg (aesfast_kernel.h's contract): aadlen bytes of AAD,
 * the first hashed into acc (by the generic tier) until at most qmax blocks are left to queue,
 * then len bytes of data; J0 from a 12-byte IV (and then the tag against libcrypto's AES-GCM) or
 * random (a hashed IV: the counter wraps when wrap), public or secret (msg->flags). The output, the tag, and the state a
 * message that goes on resumes from (GHASH(acc', queue') = GHASH(acc, queue, ciphertext blocks),
 * ending with the partial block), against ctr32_reference and the generic tier's GHASH; in and
 * out end at a guard page (or start after one), out in place when in_place.
 */
static void test_gcm_msg_case(const aesfast_kernel *k, size_t keylen, size_t aadlen, size_t qmax,
                              size_t len, int iv12, int wrap, int at_end, int in_place)
{
    const aesfast_kernel *generic = aesfast_kernel_by_name("generic");
    uint8_t key[32], zero[16] = {0}, h[16], j0[16], ctr[16], ekj0[16], want_tag[16], lens[16];
    size_t m = (len + 15) / 16, aadblocks = (aadlen + 15) / 16;
    size_t queued = aadblocks < qmax ? aadblocks : qmax, hashed = aadblocks - queued;
    aesfast_key ks;
    aesfast_hash_key *hk = malloc(sizeof(*hk)), *hk_ref = malloc(sizeof(*hk_ref));
    aesfast_gcm_msg *msg = malloc(sizeof(*msg)), *msg0 = malloc(sizeof(*msg0));
    uint8_t *aad = calloc(aadblocks + 1, 16), *pt = malloc(len + 1), *ct = malloc(len + 16);
    uint8_t *blocks = calloc(aadblocks + m + 2, 16); /* queue || D || L for the reference */
    guarded in, out;
    char what[200];

    tiers_fill(key, keylen);
    tiers_fill(aad, aadlen);
    tiers_fill(pt, len);
    tiers_fill(j0, 16);
    if (iv12) {
        j0[12] = j0[13] = j0[14] = 0;
        j0[15] = 1;
    } else if (wrap) { /* the data's counters cross 2^32 */
        uint32_t lo = 0xffffffffu - (uint32_t)(tiers_rng() % (m + 1));
        j0[12] = (uint8_t)(lo >> 24); j0[13] = (uint8_t)(lo >> 16);
        j0[14] = (uint8_t)(lo >> 8);  j0[15] = (uint8_t)lo;
    }
    k->set_key(&ks, key, keylen);
    k->encrypt_block(&ks, zero, h);
    k->gcm.hash_init(hk, h);
    generic->gcm.hash_init(hk_ref, h);
    k->encrypt_block(&ks, j0, ekj0);
    j0_plus(j0, 1, ctr);
    ctr32_reference(key, keylen, ctr, pt, ct, len / 16);
    if (len % 16 != 0) { /* the partial block's keystream, whole */
        uint8_t c[16], ks16[16];
        j0_plus(j0, (uint32_t)(1 + len / 16), c);
        ecb(key, keylen, c, ks16, 1);
        for (size_t i = 0; i < len % 16; i++)
            ct[len / 16 * 16 + i] = pt[len / 16 * 16 + i] ^ ks16[i];
    }
    store_be64_bits(lens, aadlen);
    store_be64_bits(lens + 8, len);

    /* The message state as the provider leaves it after the AAD. */
    memset(msg0, 0xc3, sizeof(*msg0));
    memset(msg0->acc, 0, 16);
    generic->gcm.hash(hk_ref, msg0->acc, aad, hashed);
    memcpy(msg0->queue, aad + 16 * hashed, 16 * queued);
    memcpy(msg0->j0, j0, 16);
    msg0->nqueue = queued;
    msg0->aadlen = aadlen;
    /* A 12-byte IV's J0 is public (the kernel may take its faster counters); so is, here, a J0
     * whose counters wrap, which takes them across carries; a random one is secret. */
    msg0->flags = iv12 || wrap ? AESFAST_MSG_CTR_PUBLIC : 0;
    memcpy(blocks, aad + 16 * hashed, 16 * queued);
    memcpy(blocks + 16 * queued, ct, len);
    memcpy(blocks + 16 * (queued + m), lens, 16);
    uint8_t want_acc[16], tag[16];
    memcpy(tag, msg0->acc, 16);
    generic->gcm.hash(hk_ref, tag, blocks, queued + m + 1);
    for (int i = 0; i < 16; i++)
        want_tag[i] = tag[i] ^ ekj0[i];
    if (iv12 && hashed == 0) { /* and against libcrypto itself */
        uint8_t *c2 = malloc(len + 16), t2[16];
        gcm_reference(key, keylen, j0, aad, aadlen, pt, c2, len, t2);
        CHECK(memcmp(c2, ct, len) == 0 && memcmp(t2, want_tag, 16) == 0,
              "kernel_test: the one-call reference disagrees with libcrypto");
        free(c2);
    }
    memcpy(want_acc, msg0->acc, 16);
    generic->gcm.hash(hk_ref, want_acc, blocks, queued + m); /* without L */

    for (int open = 0; open <= 1; open++) {
        snprintf(what, sizeof(what), "%s gcm_%s_msg: %zu-byte key, %zu AAD (%zu queued), %zu "
                 "bytes, J0 %s, buffers %s%s", k->name, open ? "open" : "seal", keylen, aadlen,
                 queued, len, iv12 ? "IV || 1" : wrap ? "wrapping" : "random",
                 at_end ? "ending at a guard page" : "after one", in_place ? ", in place" : "");
        snprintf(guard_case, sizeof(guard_case), "%s", what);
        guarded_alloc(&in, len, at_end);
        guarded_alloc(&out, len, at_end);
        guard_watch(0, "input", &in);
        guard_watch(1, "output", &out);
        memcpy(in.p, open ? ct : pt, len);
        uint8_t *o = in_place ? in.p : out.p;
        memcpy(msg, msg0, sizeof(*msg));
        aesfast_gcm_msg_crypt(k, !open, &ks, hk, msg, in.p, o, len);
        CHECK(memcmp(o, open ? pt : ct, len) == 0, "%s: wrong output", what);
        CHECK(guarded_untouched(&in, len) && guarded_untouched(&out, in_place ? 0 : len),
              "%s: wrote outside its output", what);
        CHECK(memcmp(msg->tag, want_tag, 16) == 0, "%s: wrong tag", what);
        CHECK(memcmp(msg->j0, j0, 16) == 0 && msg->aadlen == aadlen
                  && msg->flags == msg0->flags, "%s: changed j0, aadlen or flags", what);
        int nq_ok = msg->nqueue <= AESFAST_GCM_QUEUE - 1;
        CHECK(nq_ok, "%s: %llu blocks queued on return", what, (unsigned long long)msg->nqueue);
        if (nq_ok) {
            uint8_t a[16];
            memcpy(a, msg->acc, 16);
            generic->gcm.hash(hk_ref, a, msg->queue, msg->nqueue);
            CHECK(memcmp(a, want_acc, 16) == 0, "%s: the state left is not the hash so far",
                  what);
            if (len % 16 != 0)
                CHECK(msg->nqueue > 0
                          && memcmp(msg->queue + 16 * (msg->nqueue - 1),
                                    blocks + 16 * (queued + m - 1), 16) == 0,
                      "%s: the queue does not end with the partial block", what);
        }
        memset(guard_bufs, 0, sizeof(guard_bufs));
        guarded_free(&in);
        guarded_free(&out);
    }
    OPENSSL_cleanse(hk, sizeof(*hk));
    free(hk);
    free(hk_ref);
    free(msg);
    free(msg0);
    free(aad);
    free(pt);
    free(ct);
    free(blocks);
}

static void test_gcm_msg_tier(const aesfast_kernel *k)
{
    static const size_t keylens[] = {16, 24, 32};
    /* The AAD's blocks left queued: all of them (up to the 31 the provider queues), or 3. */
    static const size_t qmax[] = {AESFAST_GCM_QUEUE - 1, 3};

    if (!CHECK((k->gcm_seal_msg == NULL) == (k->gcm_open_msg == NULL)
                   && (k->gcm_seal_last == NULL) == (k->gcm_open_last == NULL),
               "%s: gcm_seal_msg and gcm_open_msg, gcm_seal_last and gcm_open_last come "
               "together", k->name))
        return;
    for (int i = 0; i < 3; i++) {
        size_t kl = keylens[i];
        /* Every data length of 0..64 blocks after 0, 1..16 and 17 bytes of AAD. */
        for (size_t len = 0; len <= 64 * 16; len++)
            test_gcm_msg_case(k, kl, len % 3 == 0 ? 0 : len % 3 == 1 ? 13 : 16 + len % 17,
                              qmax[0], len, len % 4 != 3, len % 8 == 7, (int)len % 2,
                              len % 5 == 0);
        /* Every AAD length of 0..40 blocks (beyond the queue: hashed first) with data around
         * one group of powers: P + m + 1 = 31, 32 and 33 blocks. */
        for (size_t a = 0; a <= 40 * 16; a += a < 64 ? 1 : 7)
            for (int d = -1; d <= 1; d++) {
                size_t p = (a + 15) / 16 < qmax[0] ? (a + 15) / 16 : qmax[0];
                long m = 31 + d - (long)p;
                if (m >= 0)
                    test_gcm_msg_case(k, kl, a, qmax[0], 16 * (size_t)m - (a % 3 == 0 && m > 0 ? 5 : 0),
                                      a % 2 == 0, a % 5 == 1, (int)(a + d) % 2, a % 3 == 1);
            }
        /* Past one group: the main loop and the last pass (every data length modulo 32 blocks
         * once, among them 31 whole blocks and a partial one), queues of every size. */
        static const size_t big[] = {497, 511, 512, 513, 1008, 1023, 1024, 1420, 4096, 4111,
                                     16383, 16384, 16385, 57854, 65536 + 15};
        for (size_t j = 0; j < sizeof(big) / sizeof(big[0]); j++)
            for (size_t q = 0; q < 2; q++)
                test_gcm_msg_case(k, kl, 13 + 16 * (j % 3) * (j + q), qmax[q], big[j], j % 2,
                                  j % 3 == 2, (int)(j + q) % 2, (j + q) % 3 == 0);
        for (size_t w = 0; w < 32; w++)
            test_gcm_msg_case(k, kl, 5 + 16 * (w % 2), qmax[w % 2], 64 * 16 + 16 * w + w % 3,
                              w % 2, w % 4 == 1, (int)w % 2, w % 3 == 1);
    }
}

/* ---- GCM-SIV: POLYVAL, the little-endian counter and the stitched open ---- */

/* ctr32le_xor's expected output, block by block: the first 4 bytes are the little-endian
 * counter, modulo 2^32; bytes 4..15 stay. */
static void ctr32le_reference(const uint8_t *key, size_t keylen, const uint8_t ctr[16],
                              const uint8_t *in, uint8_t *out, size_t n)
{
    uint8_t *blocks = calloc(n + 1, 16);
    uint32_t lo = (uint32_t)ctr[0] | (uint32_t)ctr[1] << 8 | (uint32_t)ctr[2] << 16
                | (uint32_t)ctr[3] << 24;

    for (size_t i = 0; i < n; i++) {
        uint32_t v = lo + (uint32_t)i;
        memcpy(blocks + 16 * i, ctr, 16);
        for (int b = 0; b < 4; b++)
            blocks[16 * i + b] = (uint8_t)(v >> (8 * b));
    }
    ecb(key, keylen, blocks, blocks, n);
    for (size_t i = 0; i < n * 16; i++)
        out[i] = in[i] ^ blocks[i];
    free(blocks);
}

static void unhex(uint8_t *out, const char *hex)
{
    for (size_t i = 0; hex[2 * i] != '\0'; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

static void test_gcmsiv_tier(const aesfast_kernel *k)
{
    const aesfast_aead_kernel *g = &k->gcmsiv, *ref = &aesfast_kernel_by_name("generic")->gcmsiv;
    static const size_t keylens[] = {16, 24, 32};

    if (!CHECK(g->hash_init && g->hash && g->ctr && g->ctr_then_hash && g->hash_then_ctr == NULL
                   && g->ctr_then_hash_pub == NULL && g->hash_then_ctr_pub == NULL,
               "%s: the GCM-SIV kernel table is not {init, init_few, hash, ctr, ctr_then_hash, "
               "NULL, NULL, NULL}", k->name))
        return;

    /* RFC 8452, appendix A: POLYVAL(H, X_1, X_2). */
    uint8_t h[16], x[32], want[16], acc[16] = {0};
    aesfast_hash_key *hk = malloc(sizeof(*hk)), *hk_ref = malloc(sizeof(*hk_ref));
    unhex(h, "25629347589242761d31f826ba4b757b");
    unhex(x, "4f4f95668c83dfb6401762bb2d01a262d1a24ddd2721d006bbe45f20d3c9f362");
    unhex(want, "f7a3b47b846119fae5b7866cf5e5b77e");
    g->hash_init(hk, h);
    g->hash(hk, acc, x, 2);
    CHECK(memcmp(acc, want, 16) == 0, "%s: POLYVAL differs from RFC 8452 appendix A", k->name);

    /* POLYVAL of random blocks in random pieces, against the portable tier (checked above and
     * by the provider's RFC 8452 vectors). */
    for (size_t n = 0; n <= 300; n += 1 + n / 8) {
        uint8_t *in = malloc(16 * n + 1), a[16], b[16];
        tiers_fill(h, 16);
        tiers_fill(in, 16 * n);
        tiers_fill(a, 16);
        memcpy(b, a, 16);
        g->hash_init(hk, h);
        ref->hash_init(hk_ref, h);
        size_t split = n == 0 ? 0 : tiers_rng() % (n + 1);
        g->hash(hk, a, in, split);
        g->hash(hk, a, in + 16 * split, n - split);
        ref->hash(hk_ref, b, in, n);
        CHECK(memcmp(a, b, 16) == 0, "%s: POLYVAL of %zu blocks (split %zu) differs", k->name, n,
              split);
        free(in);
    }

    /* hash_init_few: enough for hashes of up to AESFAST_HASH_FEW blocks, whatever the rest of
     * the table holds (here: random bytes, standing for a previous nonce's powers). */
    for (size_t n = 0; n <= AESFAST_HASH_FEW; n++) {
        uint8_t in[16 * AESFAST_HASH_FEW], a[16], b[16];
        tiers_fill(h, 16);
        tiers_fill(in, sizeof(in));
        tiers_fill(a, 16);
        tiers_fill(hk->tbl, sizeof(hk->tbl));
        memcpy(b, a, 16);
        aesfast_hash_init_few(g)(hk, h);
        ref->hash_init(hk_ref, h);
        g->hash(hk, a, in, n);
        ref->hash(hk_ref, b, in, n);
        CHECK(memcmp(a, b, 16) == 0, "%s: POLYVAL of %zu blocks after hash_init_few differs",
              k->name, n);
    }

    /* gcmsiv_derive, against the blocks AES(LE32(j) || nonce) from libcrypto's AES-ECB. */
    for (int ki = 0; ki < 3 && k->gcmsiv_derive != NULL; ki++) {
        size_t kl = keylens[ki];
        uint8_t key[32], nonce[12], blocks[6 * 16], enc[32], auth[16 + 8];
        aesfast_key kgk, enc_key, want_key; /* the latter two: one schedule, two makers */

        for (int trial = 0; trial < 20; trial++) {
            tiers_fill(key, kl);
            tiers_fill(nonce, 12);
            memset(blocks, 0, sizeof(blocks));
            for (int j = 0; j < 6; j++) {
                blocks[16 * j] = (uint8_t)j;
                memcpy(blocks + 16 * j + 4, nonce, 12);
            }
            ecb(key, kl, blocks, blocks, 6);
            for (size_t j = 2; j < 2 + kl / 8; j++)
                memcpy(enc + 8 * (j - 2), blocks + 16 * j, 8);
            k->set_key(&kgk, key, kl);
            aesfast_generic_set_key(&want_key, enc, kl);
            memset(&enc_key, 0xa5, sizeof(enc_key));
            memset(auth, 0x5a, sizeof(auth));
            k->gcmsiv_derive(&kgk, nonce, &enc_key, auth);
            CHECK(memcmp(auth, blocks, 8) == 0 && memcmp(auth + 8, blocks + 16, 8) == 0,
                  "%s: gcmsiv_derive: wrong authentication key (%zu-byte key)", k->name, kl);
            CHECK(auth[16] == 0x5a && auth[23] == 0x5a,
                  "%s: gcmsiv_derive wrote past the authentication key", k->name);
            CHECK(enc_key.rounds == want_key.rounds &&
                      memcmp(enc_key.rk, want_key.rk, 16 * (want_key.rounds + 1)) == 0,
                  "%s: gcmsiv_derive: wrong encryption key schedule (%zu-byte key)", k->name, kl);
        }
    }

    /* ctr32le_xor and the stitched open, across the 32-bit wrap too. */
    for (int ki = 0; ki < 3; ki++) {
        for (size_t n = 0; n <= 70; n += 1 + n / 10) {
            size_t kl = keylens[ki];
            uint8_t key[32], ctr[16], a[16], b[16];
            uint8_t *in = malloc(16 * n + 1), *out = malloc(16 * n + 1), *exp = malloc(16 * n + 1);
            aesfast_key ks;

            tiers_fill(key, kl);
            tiers_fill(ctr, 16);
            tiers_fill(h, 16);
            tiers_fill(in, 16 * n);
            tiers_fill(a, 16);
            if (n % 3 == 0) { /* start a few blocks below 2^32 */
                uint32_t lo = 0xffffffffu - (uint32_t)(tiers_rng() % (n + 2));
                for (int i = 0; i < 4; i++)
                    ctr[i] = (uint8_t)(lo >> (8 * i));
            }
            k->set_key(&ks, key, kl);
            g->hash_init(hk, h);
            ref->hash_init(hk_ref, h);
            ctr32le_reference(key, kl, ctr, in, exp, n);
            g->ctr(&ks, ctr, in, out, n);
            CHECK(memcmp(out, exp, 16 * n) == 0, "%s: ctr32le_xor, %zu blocks, %zu-byte key",
                  k->name, n, kl);
            memcpy(b, a, 16);
            ref->hash(hk_ref, b, exp, n);
            memcpy(out, in, 16 * n);
            g->ctr_then_hash(&ks, hk, a, ctr, out, out, n); /* in place */
            CHECK(memcmp(out, exp, 16 * n) == 0 && memcmp(a, b, 16) == 0,
                  "%s: GCM-SIV open (ctr_then_hash), %zu blocks, %zu-byte key", k->name, n, kl);
            free(in);
            free(out);
            free(exp);
        }
    }
    free(hk);
    free(hk_ref);
}

/* ---- GCM-SIV's short-message kernels, against RFC 8452 made from AES-ECB and POLYVAL ---- */

/* out = in ^ the GCM-SIV keystream from tag (its top bit set: the first counter block). */
static void siv_tag_ctr(const uint8_t *enc, size_t kl, const uint8_t tag[16], const uint8_t *in,
                        uint8_t *out, size_t len)
{
    uint8_t ctr[16], *ks = calloc((len + 15) / 16 + 1, 16);

    memcpy(ctr, tag, 16);
    ctr[15] |= 0x80;
    ctr32le_reference(enc, kl, ctr, ks, ks, (len + 15) / 16);
    for (size_t i = 0; i < len; i++)
        out[i] = in[i] ^ ks[i];
    free(ks);
}

/* A whole GCM-SIV message (RFC 8452, section 4) from libcrypto's AES-ECB and the portable
 * POLYVAL (checked against RFC 8452 above). Seal: tag and out from in. Open: out from in with
 * the keystream of tag, and tag replaced by the tag of that plaintext (what the short open
 * computes for its caller to compare). Also the nonce's keys, for the kernels. */
static void gcmsiv_reference(const uint8_t *key, size_t kl, const uint8_t nonce[12],
                             const uint8_t *aad, size_t aadlen, const uint8_t *in, uint8_t *out,
                             size_t len, uint8_t tag[16], int seal, uint8_t auth[16],
                             aesfast_key *enc_key)
{
    uint8_t blocks[6 * 16] = {0}, enc[32], acc[16] = {0}, s[16], lens[16], pad[16];
    size_t nb = (len + 15) / 16;
    uint8_t *pt = calloc(nb + 1, 16);
    aesfast_hash_key *hk = malloc(sizeof(*hk));

    for (int j = 0; j < 6; j++) {
        blocks[16 * j] = (uint8_t)j;
        memcpy(blocks + 16 * j + 4, nonce, 12);
    }
    ecb(key, kl, blocks, blocks, 6);
    memcpy(auth, blocks, 8);
    memcpy(auth + 8, blocks + 16, 8);
    for (size_t j = 0; j < kl / 8; j++)
        memcpy(enc + 8 * j, blocks + 16 * (j + 2), 8);
    aesfast_generic_set_key(enc_key, enc, kl);
    if (!seal) /* the plaintext first: the keystream of the tag received */
        siv_tag_ctr(enc, kl, tag, in, pt, len);
    else
        memcpy(pt, in, len);
    aesfast_generic_polyval_init(hk, auth);
    aesfast_generic_polyval(hk, acc, aad, aadlen / 16);
    if (aadlen % 16 != 0) {
        memset(pad, 0, 16);
        memcpy(pad, aad + aadlen - aadlen % 16, aadlen % 16);
        aesfast_generic_polyval(hk, acc, pad, 1);
    }
    aesfast_generic_polyval(hk, acc, pt, nb); /* pt is zero past len */
    for (int i = 0; i < 8; i++) {
        lens[i] = (uint8_t)((uint64_t)aadlen * 8 >> (8 * i));
        lens[8 + i] = (uint8_t)((uint64_t)len * 8 >> (8 * i));
    }
    aesfast_generic_polyval(hk, acc, lens, 1);
    for (int i = 0; i < 16; i++)
        s[i] = (uint8_t)(acc[i] ^ (i < 12 ? nonce[i] : 0));
    s[15] &= 0x7f;
    ecb(enc, kl, s, s, 1);
    if (seal)
        siv_tag_ctr(enc, kl, s, in, out, len);
    else
        memcpy(out, pt, len);
    memcpy(tag, s, 16);
    free(pt);
    free(hk);
}

/* One short seal or open of naad AAD blocks (aadlen bytes) and len data bytes, at offsets in
 * misaligned buffers, in place or not, the tag received (open) with its counter word at lo. */
static void test_gcmsiv_short_case(const aesfast_kernel *k, size_t kl, size_t aadlen, size_t len,
                                   int seal, int inplace, size_t off, uint32_t lo)
{
    size_t naad = (aadlen + 15) / 16;
    uint8_t key[32], nonce[12], want_tag[16], auth[16];
    uint8_t *aad = calloc(naad + 1, 16), *buf = malloc(2 * len + 64 + off);
    uint8_t *in = buf + off, *out = inplace ? in : buf + off + len + 32, *want = malloc(len + 1);
    aesfast_key enc_key;
    aesfast_gcmsiv_msg m;

    tiers_fill(key, kl);
    tiers_fill(nonce, 12);
    tiers_fill(aad, aadlen); /* the rest of the last block stays zero */
    tiers_fill(in, len);
    memset(out + len, 0x5a, inplace ? 0 : 32);
    memset(&m, 0, sizeof(m));
    if (!seal) {
        tiers_fill(m.tag, 16);
        for (int i = 0; i < 4; i++)
            m.tag[i] = (uint8_t)(lo >> (8 * i));
    }
    memcpy(want_tag, m.tag, 16);
    gcmsiv_reference(key, kl, nonce, aad, aadlen, in, want, len, want_tag, seal, auth, &enc_key);
    m.nonce = nonce;
    m.auth = auth;
    m.aad = aad;
    m.naad = naad;
    m.aadlen = aadlen;
    m.in = in;
    m.out = out;
    m.len = len;
    (seal ? k->gcmsiv_seal_short : k->gcmsiv_open_short)(&enc_key, &m);
    CHECK(memcmp(out, want, len) == 0 && memcmp(m.tag, want_tag, 16) == 0,
          "%s: GCM-SIV short %s, %zu-byte key, %zu bytes of AAD, %zu of data%s, offset %zu%s",
          k->name, seal ? "seal" : "open", kl, aadlen, len, inplace ? " in place" : "", off,
          seal ? "" : ", counter word given");
    CHECK(inplace || (out[len] == 0x5a && out[len + 31] == 0x5a),
          "%s: GCM-SIV short %s wrote past the output (%zu bytes)", k->name,
          seal ? "seal" : "open", len);
    free(aad);
    free(buf);
    free(want);
}

/* The short kernels' buffers flush against PROT_NONE pages (at_end) or right after one: a read
 * or write past the AAD, the input or the output dies (guard_fault). */
static void test_gcmsiv_short_guarded(const aesfast_kernel *k, size_t aadlen, size_t len,
                                      int seal, int at_end)
{
    size_t naad = (aadlen + 15) / 16;
    uint8_t key[16], nonce[12], auth[16], want_tag[16] = {0};
    guarded aad, in, out;
    uint8_t *want = malloc(len + 1);
    aesfast_key enc_key;
    aesfast_gcmsiv_msg m;

    guarded_alloc(&aad, 16 * naad, at_end);
    guarded_alloc(&in, len, at_end);
    guarded_alloc(&out, len, at_end);
    tiers_fill(key, 16);
    tiers_fill(nonce, 12);
    memset(aad.p, 0, 16 * naad);
    tiers_fill(aad.p, aadlen);
    tiers_fill(in.p, len);
    gcmsiv_reference(key, 16, nonce, aad.p, aadlen, in.p, want, len, want_tag, seal, auth,
                     &enc_key);
    m = (aesfast_gcmsiv_msg){nonce, auth, aad.p, in.p, out.p, naad, aadlen, len, {0}};
    snprintf(guard_case, sizeof(guard_case), "%s, GCM-SIV short %s, %zu bytes of AAD, %zu of "
             "data, buffers %s", k->name, seal ? "seal" : "open", aadlen, len,
             at_end ? "ending at a guard page" : "starting after one");
    guard_watch(0, "AAD", &aad);
    guard_watch(1, "input", &in);
    guard_watch(2, "output", &out);
    (seal ? k->gcmsiv_seal_short : k->gcmsiv_open_short)(&enc_key, &m);
    CHECK(memcmp(out.p, want, len) == 0 && memcmp(m.tag, want_tag, 16) == 0 &&
              guarded_untouched(&out, len),
          "guarded GCM-SIV short: wrong output or a write outside it: %s", guard_case);
    memset(guard_bufs, 0, sizeof(guard_bufs));
    guarded_free(&aad);
    guarded_free(&in);
    guarded_free(&out);
    free(want);
}

/* Every AAD block count and data length the short kernels take, and one block past them (the
 * provider's to compose: not called), for each key size; seal and open, in place and not,
 * misaligned, open's counter near its 32-bit wrap. */
static void test_gcmsiv_short(const aesfast_kernel *k)
{
    static const size_t keylens[] = {16, 24, 32};
    size_t max = k->gcmsiv_short_blocks;

    if (k->gcmsiv_seal_short == NULL || k->gcmsiv_open_short == NULL) {
        CHECK(k->gcmsiv_seal_short == NULL && k->gcmsiv_open_short == NULL && max == 0,
              "%s: GCM-SIV short kernels: one without the other", k->name);
        return;
    }
    CHECK(max >= 2 && max <= 64, "%s: gcmsiv_short_blocks %zu", k->name, max);
    for (size_t naad = 0; naad <= AESFAST_HASH_FEW && naad + 1 <= max; naad++) {
        for (size_t len = 0; 16 * (naad + 1) + len <= 16 * max; len++) {
            size_t kl = keylens[(naad + len) % 3];
            size_t aadlen = naad == 0 ? 0 : 16 * naad - (len % 3 == 0 ? 0 : len % 16);
            int seal = (int)(len % 2), inplace = len % 5 == 0;
            uint32_t lo = 0xffffffffu - (uint32_t)(tiers_rng() % 40);
            test_gcmsiv_short_case(k, kl, aadlen, len, seal, inplace, len % 7, lo);
            test_gcmsiv_short_case(k, kl, aadlen, len, !seal, !inplace, (len + 3) % 64, lo);
        }
    }
    for (int at_end = 0; at_end <= 1; at_end++)
        for (size_t naad = 0; naad <= 2; naad++)
            for (size_t len = 0; 16 * (naad + 1) + len <= 16 * max; len += 1 + len / 3)
                for (int seal = 0; seal <= 1; seal++)
                    test_gcmsiv_short_guarded(k, naad == 0 ? 0 : 16 * naad - 3, len, seal,
                                              at_end);
}

static void test_tier(const aesfast_kernel *k)
{
    static const size_t keylens[] = {16, 24, 32};
    static const size_t large[] = {511, 1024, 4099, 65537};
    int failed_before = check_failed, checks_before = check_passed + check_failed;

    for (int i = 0; i < 3; i++) {
        size_t kl = keylens[i];
        test_key_schedule(k, kl);
        for (size_t n = 0; n <= 300; n++)
            test_ctr32_case(k, kl, n, n % 3 == 0, n % 16, n % 5 == 0);
        for (size_t j = 0; j < sizeof(large) / sizeof(large[0]); j++)
            test_ctr32_case(k, kl, large[j], (int)j % 2, j, (int)j % 2);
        for (int at_end = 1; at_end >= 0; at_end--) {
            for (size_t n = 0; n <= 64; n++)
                test_ctr32_guarded(k, kl, n, at_end);
            for (size_t j = 0; j < sizeof(large) / sizeof(large[0]); j++)
                test_ctr32_guarded(k, kl, large[j], at_end);
        }
    }
    test_gcm_tier(k);
    test_gcm_msg_tier(k);
    test_gcmsiv_tier(k);
    test_gcmsiv_short(k);
    printf("kernel_test: %-12s %s (%d checks)\n", k->name,
           check_failed == failed_before ? "ok" : "FAILED",
           check_passed + check_failed - checks_before);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--usable") == 0) {
        const aesfast_kernel *k = aesfast_kernel_by_name(argv[2]);
        char why[160] = "not in this build";

        if (k != NULL && aesfast_kernel_usable(k, why, sizeof(why)))
            return 0;
        printf("tier %s: %s\n", argv[2], why);
        return 77;
    }

    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = guard_fault;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);

    int ran = tiers_run("kernel_test", argc, argv, test_tier);

    if (ran < 0)
        return 1;
    if (check_failed > 0)
        return check_summary("kernel_test");
    if (ran == 0) {
        printf("kernel_test: every requested tier was skipped\n");
        return 77;
    }
    printf("kernel_test: %d tier(s) run\n", ran);
    return check_summary("kernel_test");
}
