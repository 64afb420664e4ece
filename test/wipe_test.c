/*
 * wipe_test: key material must not survive in heap memory that the provider frees.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 *   OPENSSL_CONF=aesfast.cnf ./wipe_test [--provider NAME]      (NAME defaults to aesfast)
 *
 * Before any other OpenSSL call, main() routes every OpenSSL allocation through hooks
 * (CRYPTO_set_mem_functions) that remember each block's size. When a block is freed (or moved by
 * realloc), the hooks scan its bytes for the raw keys the test is using: the first 16 bytes of
 * each key, which every tier stores verbatim as round key 0 (aesfast_key.rk[0]; the first round
 * key of AES-128/192/256 is the first 16 key bytes), and bytes 16..31 of a 256-bit key (round
 * key 1). A provider context freed without being wiped therefore shows up, whatever its layout.
 *
 * For each key size, twice (re-keying the original context, then the copy), through the provider:
 * a new context with a random key and IV; 37 bytes encrypted (a partial block pending);
 * EVP_CIPHER_CTX_copy to a second context; one of them re-initialised with a NEW key and IV
 * without naming the cipher (so the provider context is re-keyed in place: the old key must not
 * leak either); both freed. Every freed block that holds a key pattern is a failure. The test's
 * own key buffers live on the stack, and the patterns in static storage, so neither is ever a
 * freed heap block.
 *
 * AES-GCM adds the secrets derived from the key: the hash key H = E(K, 0^128), the table of H's
 * powers that the provider's tier builds from it (the test calls that tier's hash_init itself,
 * through the kernel table, so the table's layout does not matter: every 16-byte window of it
 * that differs between the two keys is a pattern), the GHASH state after 16 bytes of AAD (the
 * ABI's acc, from the tier's hash), and E(K, J0), the tag mask. For each key size, twice: a
 * context with key 1 takes 16 bytes of AAD and is copied, and the copy is freed at once (it
 * holds key, H, the powers and the GHASH state); the original takes 37 bytes of data and is
 * copied again; one of the two is re-keyed in place with key 2 and a new IV, takes AAD and data;
 * the other finishes its message; both are freed.
 *
 * Five checks look at memory that is still in use, where nothing may remain either: after a
 * GCM-SIV open that failed verification, every live heap block is scanned for the plaintext it
 * decrypted (the blocks the stream queued for the hash, its partial block) and the keystream of
 * that partial block; after GCM-SIV moves from a nonce that used the whole table of powers to
 * one that needs few, for the old nonce's powers that the short table does not overwrite (on
 * tiers whose short table is shorter); after a GCM-SIV seal and a successful open, each context
 * re-initialised, for the message's plaintext and its partial block's keystream; after a GCM-SIV
 * context is re-keyed in place, for the old key's table of powers; and after a one-block GCM
 * update, the stack below the caller (the frames the provider's calls used) for that block's
 * keystream.
 *
 * The hooks are checked too: a planted pattern in an OPENSSL_malloc'd block is found on free and
 * on a moving realloc, and freeing each provider context must pass a block at least as large as
 * an aesfast_key through the hooks (otherwise the scan proved nothing).
 *
 * Prints "wipe_test: N passed, M failed"; exits 0 or 1. Single-threaded by design: the hooks'
 * table has no lock.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include "aesfast_kernel.h"
#include "check.h"
#include "dispatch.h"
#include "testutil.h"

/* ---- Allocation tracking ------------------------------------------------------------------ */

/* Open addressing with linear probing and backward-shift deletion (no tombstones), keyed by the
 * block's address. A power of two, well above the few thousand blocks OpenSSL keeps live. */
#define TABLE_BITS 18
#define TABLE_SIZE ((size_t)1 << TABLE_BITS)

static struct slot {
    void *p;
    size_t n;
} table[TABLE_SIZE];
static size_t live;

static size_t home(const void *p)
{
    return (size_t)(((uintptr_t)p * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - TABLE_BITS));
}

static void track(void *p, size_t n)
{
    size_t i = home(p);

    if (live + 1 >= TABLE_SIZE / 2) {
        fprintf(stderr, "wipe_test: more than %zu live allocations\n", TABLE_SIZE / 2);
        abort();
    }
    while (table[i].p != NULL && table[i].p != p)
        i = (i + 1) & (TABLE_SIZE - 1);
    if (table[i].p == NULL)
        live++;
    table[i].p = p;
    table[i].n = n;
}

/* Removes p; returns its size, or (size_t)-1 if p was not tracked. */
static size_t untrack(const void *p)
{
    size_t i = home(p), j, n;

    while (table[i].p != p) {
        if (table[i].p == NULL)
            return (size_t)-1;
        i = (i + 1) & (TABLE_SIZE - 1);
    }
    n = table[i].n;
    /* Backward shift: pull later entries of the probe run into the hole when their home slot
     * does not lie cyclically in (hole, j]. */
    for (j = (i + 1) & (TABLE_SIZE - 1); table[j].p != NULL; j = (j + 1) & (TABLE_SIZE - 1)) {
        size_t h = home(table[j].p);

        if (((j - h) & (TABLE_SIZE - 1)) >= ((j - i) & (TABLE_SIZE - 1))) {
            table[i] = table[j];
            i = j;
        }
    }
    table[i].p = NULL;
    table[i].n = 0;
    live--;
    return n;
}

/* ---- Key patterns and the scan ------------------------------------------------------------ */

#define MAX_PATTERNS 512
static unsigned char patterns[MAX_PATTERNS][16];
static char pattern_names[MAX_PATTERNS][64];
static int npatterns;

static unsigned long scanned_blocks, found_blocks;
static size_t largest_freed;           /* largest block freed since the last reset */
static int planted;                    /* in the self-test: hits are expected */

/* Adds the 16 bytes at p as a pattern, named by fmt and what follows. */
__attribute__((format(printf, 2, 3)))
static void add_pattern(const unsigned char *p, const char *fmt, ...)
{
    va_list ap;

    if (npatterns == MAX_PATTERNS) {
        fprintf(stderr, "wipe_test: too many patterns\n");
        abort();
    }
    memcpy(patterns[npatterns], p, 16);
    va_start(ap, fmt);
    vsnprintf(pattern_names[npatterns], sizeof(pattern_names[0]), fmt, ap);
    va_end(ap);
    npatterns++;
}

/* Patterns from two tables of n bytes that the two keys (or messages) of a run give: each
 * 16-byte window where the two differ (so no constant of the tier's layout becomes a pattern)
 * and that holds at least 12 non-zero bytes, named "WHOSE N's WHAT, bytes A..B". */
static void add_windows(const unsigned char *t1, const unsigned char *t2, size_t n,
                        const char *whose, const char *what)
{
    for (size_t w = 0; w + 16 <= n && npatterns + 2 <= MAX_PATTERNS - 8; w += 16) {
        if (memcmp(t1 + w, t2 + w, 16) == 0)
            continue;
        for (int i = 0; i < 2; i++) {
            const unsigned char *p = (i ? t2 : t1) + w;
            int nz = 0;

            for (int b = 0; b < 16; b++)
                nz += p[b] != 0;
            if (nz >= 12)
                add_pattern(p, "%s %d's %s, bytes %zu..%zu", whose, i + 1, what, w, w + 15);
        }
    }
}

/* Reports the pattern hits in n bytes at p (a block, or the stack); returns 1 if any. */
static int holds_pattern(const void *p, size_t n, const char *how)
{
    int hit = 0;

    for (int k = 0; k < npatterns; k++) {
        const unsigned char *at = memmem(p, n, patterns[k], 16);

        if (at != NULL) {
            printf("wipe_test: %s holds %s at offset %zu\n", how, pattern_names[k],
                   (size_t)(at - (const unsigned char *)p));
            hit = 1;
        }
    }
    return hit;
}

/* The live heap blocks (every allocation not yet freed) that hold a pattern. */
static int live_blocks_holding_patterns(void)
{
    int blocks = 0;

    for (size_t i = 0; i < TABLE_SIZE; i++)
        if (table[i].p != NULL)
            blocks += holds_pattern(table[i].p, table[i].n, "a live heap block");
    return blocks;
}

/* The stack below the caller's frame, where the calls it just made had theirs: read through a
 * frame of this function's own that spans it (its probe is never written: what it reads is
 * what those calls left). */
#define DEAD_STACK 65536
static unsigned char dead_stack[DEAD_STACK];

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
__attribute__((noinline)) static int dead_stack_holds_pattern(void)
{
    volatile unsigned char probe[DEAD_STACK];

    for (size_t i = 0; i < DEAD_STACK; i++)
        dead_stack[i] = probe[i];
    return holds_pattern(dead_stack, DEAD_STACK, "the stack below the caller");
}
#pragma GCC diagnostic pop

/* Scans a block about to be released; reports and counts it if it holds a key pattern. */
static void scan(const void *p, size_t n, const char *how, const char *file, int line)
{
    int k, hit = 0;

    scanned_blocks++;
    if (n > largest_freed)
        largest_freed = n;
    for (k = 0; k < npatterns; k++) {
        const unsigned char *at = memmem(p, n, patterns[k], 16);

        if (at != NULL) {
            printf("wipe_test: %s%s block of %zu bytes (%s:%d) holds %s at offset %zu\n",
                   planted ? "(expected) " : "", how, n,
                   file != NULL ? file : "?", line, pattern_names[k],
                   (size_t)(at - (const unsigned char *)p));
            hit = 1;
        }
    }
    found_blocks += hit;
}

static void *hook_malloc(size_t n, const char *file, int line)
{
    void *p = malloc(n != 0 ? n : 1);

    (void)file;
    (void)line;
    if (p != NULL)
        track(p, n);
    return p;
}

static void hook_free(void *p, const char *file, int line)
{
    size_t n;

    if (p == NULL)
        return;
    n = untrack(p);
    if (n != (size_t)-1)
        scan(p, n, "freed", file, line);
    free(p);
}

/* Always moves the block, so that the old copy is scanned as it is released: a realloc that
 * leaves key material behind in the old place leaks it as surely as a free. */
static void *hook_realloc(void *p, size_t n, const char *file, int line)
{
    size_t old;
    void *q;

    if (p == NULL)
        return hook_malloc(n, file, line);
    if (n == 0) {
        hook_free(p, file, line);
        return NULL;
    }
    if ((q = malloc(n)) == NULL)
        return NULL;
    old = untrack(p);
    if (old == (size_t)-1) {             /* not ours: cannot know its size; use libc's realloc */
        free(q);
        q = realloc(p, n);
    } else {
        memcpy(q, p, old < n ? old : n);
        scan(p, old, "realloc'd", file, line);
        free(p);
    }
    if (q != NULL)
        track(q, n);
    return q;
}

/* ---- Checks ------------------------------------------------------------------------------- */


static void random_bytes(unsigned char *p, size_t n)
{
    /* getentropy, not RAND_bytes: keys that never pass through an OpenSSL buffer. It gives at
     * most 256 bytes a call. */
    for (size_t done = 0; done < n; done += 256)
        if (getentropy(p + done, n - done < 256 ? n - done : 256) != 0)
            tu_die("getentropy failed");
}

/* The hooks and the scan find a pattern planted in a freed and in a realloc'd block. */
static void self_test(void)
{
    unsigned char canary[16];
    unsigned char *p;
    unsigned long before;

    random_bytes(canary, sizeof(canary));
    add_pattern(canary, "the self-test canary");
    planted = 1;

    before = found_blocks;
    p = OPENSSL_malloc(100);
    CHECK(p != NULL, "OPENSSL_malloc");
    memset(p, 0, 100);
    memcpy(p + 37, canary, 16);
    OPENSSL_free(p);
    CHECK(found_blocks == before + 1, "a planted pattern in a freed block was not found: the "
          "hooks are not in place");

    before = found_blocks;
    p = OPENSSL_malloc(64);
    CHECK(p != NULL, "OPENSSL_malloc");
    memset(p, 0, 64);
    memcpy(p + 48, canary, 16);
    p = OPENSSL_realloc(p, 4096);
    CHECK(p != NULL && found_blocks == before + 1, "a planted pattern in a realloc'd block was "
          "not found");
    /* The new block holds the pattern as well: wipe it before it is freed. */
    OPENSSL_clear_free(p, 4096);
    CHECK(found_blocks == before + 1, "OPENSSL_clear_free left the pattern");

    npatterns--;                         /* the canary is done with */
    planted = 0;
    found_blocks = 0;
}

/* Frees ctx and checks that a block the size of a provider context went through the hooks. */
static void free_ctx(EVP_CIPHER_CTX *ctx, const char *what, size_t min_block)
{
    largest_freed = 0;
    EVP_CIPHER_CTX_free(ctx);
    CHECK(largest_freed >= min_block, "%s: freeing it passed no block of %zu bytes or more through "
          "the hooks (largest %zu): the provider context was not seen", what, min_block,
          largest_freed);
}

/* One run (a mode, a key size, which context is re-keyed): its name for the messages, the leak
 * count and pattern table before it, and its two keys, on the caller's stack (never a freed heap
 * block). */
struct run {
    char what[96];
    unsigned long before;
    int first;
    unsigned char key1[32], key2[32];
};

/* Starts a run, named by fmt: two random keys, as patterns (the first 16 bytes of each, which
 * every tier stores as round key 0, and bytes 16..31 of a 256-bit key, round key 1). */
__attribute__((format(printf, 3, 4)))
static void run_begin(struct run *r, int bits, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(r->what, sizeof(r->what), fmt, ap);
    va_end(ap);
    r->before = found_blocks;
    r->first = npatterns;
    random_bytes(r->key1, sizeof(r->key1));
    random_bytes(r->key2, sizeof(r->key2));
    add_pattern(r->key1, "the first key (bytes 0..15)");
    add_pattern(r->key2, "the new key (bytes 0..15)");
    if (bits == 256) {
        add_pattern(r->key1 + 16, "the first key (bytes 16..31)");
        add_pattern(r->key2 + 16, "the new key (bytes 16..31)");
    }
}

/* Ends a run: frees its two contexts and checks that no block freed since run_begin held a
 * pattern; then forgets the run's patterns and keys. */
static void run_end(struct run *r, EVP_CIPHER_CTX *a, EVP_CIPHER_CTX *b, size_t min_block)
{
    ERR_print_errors_fp(stdout);
    free_ctx(a, r->what, min_block);
    free_ctx(b, r->what, min_block);
    CHECK(found_blocks == r->before, "%s: %lu freed block(s) still held key material", r->what,
          found_blocks - r->before);
    npatterns = r->first;
    OPENSSL_cleanse(r->key1, sizeof(r->key1));
    OPENSSL_cleanse(r->key2, sizeof(r->key2));
}

/* AES-CTR, one key size: new context, 37 bytes, copy, re-key one of the two in place
 * (rekey_copy picks which), a few more bytes on both, free both. */
static void run_ctr(const EVP_CIPHER *cipher, int bits, int rekey_copy, size_t min_block)
{
    unsigned char iv1[16], iv2[16], msg[64], out[64];
    EVP_CIPHER_CTX *a = EVP_CIPHER_CTX_new(), *b = EVP_CIPHER_CTX_new();
    struct run r;
    int l = 0;

    run_begin(&r, bits, "AES-%d, re-keying the %s", bits, rekey_copy ? "copy" : "original");
    random_bytes(iv1, sizeof(iv1));
    random_bytes(iv2, sizeof(iv2));
    random_bytes(msg, sizeof(msg));
    CHECK(a != NULL && b != NULL, "%s: EVP_CIPHER_CTX_new", r.what);
    CHECK(EVP_EncryptInit_ex2(a, cipher, r.key1, iv1, NULL), "%s: init", r.what);
    CHECK(EVP_EncryptUpdate(a, out, &l, msg, 37) && l == 37, "%s: 37 bytes", r.what);
    CHECK(EVP_CIPHER_CTX_copy(b, a), "%s: EVP_CIPHER_CTX_copy", r.what);
    /* No cipher named: libcrypto keeps the provider context and the provider re-keys it. */
    CHECK(EVP_EncryptInit_ex2(rekey_copy ? b : a, NULL, r.key2, iv2, NULL),
          "%s: re-init with a new key", r.what);
    CHECK(EVP_EncryptUpdate(a, out, &l, msg, 11) && l == 11, "%s: 11 more bytes (original)",
          r.what);
    CHECK(EVP_EncryptUpdate(b, out, &l, msg, 13) && l == 13, "%s: 13 more bytes (copy)", r.what);
    run_end(&r, a, b, min_block);
}

/* ---- AES-GCM ------------------------------------------------------------------------------ */

/* The secrets one GCM key and IV give (see the top of this file), computed with tier k. */
typedef struct {
    aesfast_key ks;
    aesfast_hash_key hk;
    unsigned char h[16], acc[16], ekj0[16];
} gcm_secrets;

static void gcm_derive(const aesfast_kernel *k, gcm_secrets *g, const unsigned char *key,
                       size_t keylen, const unsigned char iv[12], const unsigned char aad[16])
{
    unsigned char j0[16];

    memset(g, 0, sizeof(*g));
    k->set_key(&g->ks, key, keylen);
    k->encrypt_block(&g->ks, g->acc, g->h); /* acc is still all zero: H = E(K, 0^128) */
    k->gcm.hash_init(&g->hk, g->h);
    k->gcm.hash(&g->hk, g->acc, aad, 1);
    memcpy(j0, iv, 12);
    memset(j0 + 12, 0, 3);
    j0[15] = 1;
    k->encrypt_block(&g->ks, j0, g->ekj0);
}

/* The patterns of the secrets of key[i] and iv[i], i = 0, 1: H, the GHASH state, E(K, J0) and
 * windows of the table of H's powers. Static storage, wiped once the patterns are taken. */
static void gcm_add_secrets(const aesfast_kernel *k, size_t keylen,
                            const unsigned char *const key[2], const unsigned char *const iv[2],
                            const unsigned char aad[16])
{
    static gcm_secrets g[2];

    for (int i = 0; i < 2; i++) {
        gcm_derive(k, &g[i], key[i], keylen, iv[i], aad);
        add_pattern(g[i].h, "H of key %d", i + 1);
        add_pattern(g[i].acc, "the GHASH state under key %d", i + 1);
        add_pattern(g[i].ekj0, "E(K, J0) of key %d", i + 1);
    }
    add_windows(g[0].hk.tbl, g[1].hk.tbl, sizeof(g[0].hk.tbl), "key", "hash key table");
    OPENSSL_cleanse(g, sizeof(g));
}

/* ---- AES-GCM-SIV ------------------------------------------------------------------------- */

/* The per-nonce secrets of GCM-SIV (RFC 8452, section 4), computed with tier k: the message
 * authentication key, the message encryption key and its schedule, the POLYVAL table, and the
 * POLYVAL state after 16 bytes of AAD. */
typedef struct {
    aesfast_key master, enc;
    aesfast_hash_key hk;
    unsigned char auth[16], enckey[32], acc[16];
} siv_secrets;

static void siv_derive(const aesfast_kernel *k, siv_secrets *g, const unsigned char *key,
                       size_t keylen, const unsigned char nonce[12], const unsigned char aad[16])
{
    unsigned char ctr[16] = {0}, zero[96] = {0}, ks[96];
    size_t nblocks = 2 + keylen / 8;

    memset(g, 0, sizeof(*g));
    k->set_key(&g->master, key, keylen);
    memcpy(ctr + 4, nonce, 12);
    k->gcmsiv.ctr(&g->master, ctr, zero, ks, nblocks);
    for (size_t j = 0; j < 2; j++)
        memcpy(g->auth + 8 * j, ks + 16 * j, 8);
    for (size_t j = 2; j < nblocks; j++)
        memcpy(g->enckey + 8 * (j - 2), ks + 16 * j, 8);
    k->set_key(&g->enc, g->enckey, keylen);
    k->gcmsiv.hash_init(&g->hk, g->auth);
    k->gcmsiv.hash(&g->hk, g->acc, aad, 1);
    OPENSSL_cleanse(ks, sizeof(ks));
}

/* The patterns of the secrets of key[i] and nonce[i], i = 0, 1: the derived keys, the POLYVAL
 * state, and windows of the encryption key's round keys and of the POLYVAL table. */
static void siv_add_secrets(const aesfast_kernel *k, size_t keylen,
                            const unsigned char *const key[2], const unsigned char *const nonce[2],
                            const unsigned char aad[16])
{
    static siv_secrets g[2];

    for (int i = 0; i < 2; i++) {
        siv_derive(k, &g[i], key[i], keylen, nonce[i], aad);
        add_pattern(g[i].auth, "message %d's authentication key", i + 1);
        add_pattern(g[i].enckey, "message %d's encryption key", i + 1);
        if (keylen == 32)
            add_pattern(g[i].enckey + 16, "message %d's encryption key (bytes 16..31)", i + 1);
        add_pattern(g[i].acc, "message %d's POLYVAL state", i + 1);
    }
    add_windows(g[0].enc.rk, g[1].enc.rk, sizeof(g[0].enc.rk), "message",
                "encryption round keys");
    add_windows(g[0].hk.tbl, g[1].hk.tbl, sizeof(g[0].hk.tbl), "message", "POLYVAL table");
    OPENSSL_cleanse(g, sizeof(g));
}

/* ---- The AEAD run ------------------------------------------------------------------------- */

/* What sets GCM and GCM-SIV apart in a run. GCM-SIV takes its message in one data update: its
 * second copy is made after the AAD too, and each context then encrypts a whole message. */
static const struct aead_mode {
    const char *name;
    void (*add_secrets)(const aesfast_kernel *k, size_t keylen, const unsigned char *const key[2],
                        const unsigned char *const iv[2], const unsigned char aad[16]);
    int before_copy;    /* bytes the first context encrypts before the second copy (0: none) */
    int rekeyed, other; /* then: bytes under the new key, and in the context not re-keyed */
} gcm = {"GCM", gcm_add_secrets, 37, 13, 11}, gcmsiv = {"GCM-SIV", siv_add_secrets, 0, 37, 37};

/*
 * One key size (the top of this file): key 1 and 16 bytes of AAD; a copy freed at once (it holds
 * key, hash key, table and hash state); the second copy; one of the two (rekey_copy picks which)
 * re-keyed in place with key 2, AAD and data; the other finishes its message; both freed.
 */
static void run_aead(const struct aead_mode *m, const EVP_CIPHER *cipher,
                     const aesfast_kernel *k, int bits, int rekey_copy, size_t min_block)
{
    unsigned char iv1[12], iv2[12], aad[16], msg[64], out[64], tag[16];
    EVP_CIPHER_CTX *a = EVP_CIPHER_CTX_new(), *b = EVP_CIPHER_CTX_new(), *c = EVP_CIPHER_CTX_new();
    EVP_CIPHER_CTX *re = rekey_copy ? b : a, *other = rekey_copy ? a : b;
    struct run r;
    int l = 0;

    run_begin(&r, bits, "AES-%d-%s, re-keying the %s", bits, m->name,
              rekey_copy ? "copy" : "original");
    random_bytes(iv1, sizeof(iv1));
    random_bytes(iv2, sizeof(iv2));
    random_bytes(aad, sizeof(aad));
    random_bytes(msg, sizeof(msg));
    const unsigned char *keys[2] = {r.key1, r.key2}, *ivs[2] = {iv1, iv2};
    m->add_secrets(k, (size_t)bits / 8, keys, ivs, aad);

    CHECK(a != NULL && b != NULL && c != NULL, "%s: EVP_CIPHER_CTX_new", r.what);
    CHECK(EVP_EncryptInit_ex2(a, cipher, r.key1, iv1, NULL), "%s: init", r.what);
    CHECK(EVP_EncryptUpdate(a, NULL, &l, aad, 16) && l == 16, "%s: 16 bytes of AAD", r.what);
    CHECK(EVP_CIPHER_CTX_copy(c, a), "%s: EVP_CIPHER_CTX_copy after the AAD", r.what);
    free_ctx(c, r.what, min_block);
    if (m->before_copy > 0)
        CHECK(EVP_EncryptUpdate(a, out, &l, msg, m->before_copy) && l == m->before_copy,
              "%s: %d bytes", r.what, m->before_copy);
    CHECK(EVP_CIPHER_CTX_copy(b, a), "%s: the second EVP_CIPHER_CTX_copy (after the %s)", r.what,
          m->before_copy > 0 ? "data" : "AAD");
    CHECK(EVP_EncryptInit_ex2(re, NULL, r.key2, iv2, NULL), "%s: re-init with a new key", r.what);
    CHECK(EVP_EncryptUpdate(re, NULL, &l, aad, 16)
          && EVP_EncryptUpdate(re, out, &l, msg, m->rekeyed) && l == m->rekeyed,
          "%s: AAD and %d bytes under the new key", r.what, m->rekeyed);
    CHECK(EVP_EncryptUpdate(other, out, &l, msg, m->other) && l == m->other
          && EVP_EncryptFinal_ex(other, out, &l)
          && EVP_CIPHER_CTX_ctrl(other, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0,
          "%s: %d%s bytes, final and tag (the other one)", r.what, m->other,
          m->before_copy > 0 ? " more" : "");
    run_end(&r, a, b, min_block);
}

/* Both runs of a mode (re-keying the original, then the copy) on each key size: AES-CTR if m is
 * NULL, else m's AEAD with its secrets computed by tier k. */
static void run_key_sizes(const struct aead_mode *m, const aesfast_kernel *k,
                          const char *provider, size_t min_block)
{
    for (int bits = 128; bits <= 256; bits += 64) {
        char alg[32];
        EVP_CIPHER *c;

        snprintf(alg, sizeof(alg), "AES-%d-%s", bits, m != NULL ? m->name : "CTR");
        c = tu_fetch_cipher(alg, provider);
        for (int rekey_copy = 0; rekey_copy <= 1; rekey_copy++) {
            if (m == NULL)
                run_ctr(c, bits, rekey_copy, min_block);
            else
                run_aead(m, c, k, bits, rekey_copy, min_block);
        }
        EVP_CIPHER_free(c);
    }
}

/* ---- Memory in use ------------------------------------------------------------------------ */

/* The patterns of a GCM-SIV message of 5 blocks and 13 bytes (msg) sealed under key and nonce
 * with the tag given: its plaintext blocks, its partial block zero-padded, and that block's
 * keystream (counter block: the tag with its top bit set, plus 5 in the little-endian first
 * word). aad is only for siv_derive's hash state, unused here. */
static void siv_message_patterns(const aesfast_kernel *k, int bits, const unsigned char *key,
                                 const unsigned char nonce[12], const unsigned char *aad,
                                 const unsigned char *msg, const unsigned char tag[16])
{
    static siv_secrets g; /* static storage, never a heap block */
    unsigned char ctr[16], ks[16], tail[16] = {0};

    for (int b = 0; b < 5; b++)
        add_pattern(msg + 16 * b, "plaintext block %d", b);
    memcpy(tail, msg + 80, 13);
    add_pattern(tail, "the plaintext's partial block, zero-padded");
    siv_derive(k, &g, key, (size_t)bits / 8, nonce, aad);
    memcpy(ctr, tag, 16);
    ctr[15] |= 0x80;
    ctr[0] += 5;
    k->encrypt_block(&g.enc, ctr, ks);
    OPENSSL_cleanse(&g, sizeof(g));
    add_pattern(ks, "the partial block's keystream");
    OPENSSL_cleanse(ks, sizeof(ks));
}

/* After a GCM-SIV open that failed verification (a flipped AAD bit: the tag, and so the counter,
 * are right, and the decrypted plaintext is the message): nothing of that plaintext, nor the
 * keystream of its partial block, in any live heap block. 5 whole blocks and a 13-byte tail,
 * after aadlen bytes of AAD: 16 (the short-message kernels' message, on the tiers that have
 * them) or 9 blocks (hashed as it comes, so the stream takes the message and queues the
 * plaintext blocks for the hash: under AEAD_STITCH_MIN blocks). */
static void siv_failed_open(const EVP_CIPHER *cipher, const aesfast_kernel *k, int bits,
                            size_t aadlen)
{
    enum { LEN = 5 * 16 + 13 };
    unsigned char key[32], nonce[12], aad[9 * 16], msg[LEN], ct[LEN], out[LEN], tag[16];
    EVP_CIPHER_CTX *sealer = EVP_CIPHER_CTX_new(), *ctx = EVP_CIPHER_CTX_new();
    int first = npatterns, l = 0;
    char what[80];

    snprintf(what, sizeof(what), "AES-%d-GCM-SIV, a failed open after %zu bytes of AAD", bits,
             aadlen);
    random_bytes(key, sizeof(key));
    random_bytes(nonce, sizeof(nonce));
    random_bytes(aad, sizeof(aad));
    random_bytes(msg, sizeof(msg));
    CHECK(sealer != NULL && EVP_EncryptInit_ex2(sealer, cipher, key, nonce, NULL)
          && EVP_EncryptUpdate(sealer, NULL, &l, aad, (int)aadlen)
          && EVP_EncryptUpdate(sealer, ct, &l, msg, LEN) && EVP_EncryptFinal_ex(sealer, ct, &l)
          && EVP_CIPHER_CTX_ctrl(sealer, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0, "%s: seal", what);
    EVP_CIPHER_CTX_free(sealer); /* (it is cleared as it is freed) */
    siv_message_patterns(k, bits, key, nonce, aad, msg, tag);

    aad[3] ^= 0x40;
    ERR_set_mark();
    int opened = EVP_DecryptInit_ex2(ctx, cipher, key, nonce, NULL)
                 && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) > 0
                 && EVP_DecryptUpdate(ctx, NULL, &l, aad, (int)aadlen)
                 && EVP_DecryptUpdate(ctx, out, &l, ct, LEN);
    ERR_pop_to_mark();
    CHECK(!opened, "%s: a forged AAD was accepted", what);
    CHECK(live_blocks_holding_patterns() == 0, "%s: the plaintext or keystream of the forged "
          "message stays in the context", what);
    EVP_CIPHER_CTX_free(ctx);
    npatterns = first;
    OPENSSL_cleanse(key, sizeof(key));
}

/* GCM-SIV under one key: a nonce whose message needs the whole table of powers (600 bytes: more
 * than the short-message kernels take), then one that needs only hash_init_few's (9 blocks of
 * AAD in 16-byte pieces, the 9th hashed with the queue, then 32 bytes): none of the first
 * nonce's powers that hash_init_few does not write may stay in the table. Which those are is the tier's layout: the
 * test runs hash_init_few over a copy of the first table and takes every window it leaves. */
static void siv_old_powers(const EVP_CIPHER *cipher, const aesfast_kernel *k)
{
    static siv_secrets g[2];
    static aesfast_hash_key left; /* the first table after hash_init_few over it */
    unsigned char key[16], nonce[2][12], msg[600], out[600], aad[16] = {0};
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    const unsigned char no_aad[16] = {0};
    int first = npatterns, l = 0;

    if (k->gcmsiv.hash_init_few == NULL) {
        printf("wipe_test: kernel %s has one table of powers (hash_init_few is hash_init): no "
               "earlier nonce's powers can stay\n", k->name);
        EVP_CIPHER_CTX_free(ctx);
        return;
    }
    random_bytes(key, sizeof(key));
    random_bytes(nonce[0], 12);
    random_bytes(nonce[1], 12);
    random_bytes(msg, sizeof(msg));
    for (int i = 0; i < 2; i++)
        siv_derive(k, &g[i], key, sizeof(key), nonce[i], no_aad);
    left = g[0].hk; /* siv_derive: hash_init, the whole table */
    k->gcmsiv.hash_init_few(&left, g[1].auth);
    for (size_t w = 0; w + 16 <= sizeof(left.tbl) && npatterns < MAX_PATTERNS - 8; w += 16) {
        int nz = 0;

        for (int b = 0; b < 16; b++)
            nz += left.tbl[w + b] != 0;
        if (memcmp(left.tbl + w, g[0].hk.tbl + w, 16) == 0 && nz >= 12)
            add_pattern(left.tbl + w, "the first nonce's powers, bytes %zu..%zu", w, w + 15);
    }
    printf("wipe_test: kernel %s: %d windows of a whole table of powers outlive hash_init_few\n",
           k->name, npatterns - first);
    OPENSSL_cleanse(g, sizeof(g));
    OPENSSL_cleanse(&left, sizeof(left));
    int ok = EVP_EncryptInit_ex2(ctx, cipher, key, nonce[0], NULL)
             && EVP_EncryptUpdate(ctx, out, &l, msg, (int)sizeof(msg))
             && EVP_EncryptFinal_ex(ctx, out, &l)
             && EVP_EncryptInit_ex2(ctx, NULL, NULL, nonce[1], NULL);
    for (int i = 0; i < 9; i++)
        ok = ok && EVP_EncryptUpdate(ctx, NULL, &l, aad, 16);
    CHECK(ok && EVP_EncryptUpdate(ctx, out, &l, msg, 32) && EVP_EncryptFinal_ex(ctx, out, &l),
          "GCM-SIV: two messages under two nonces");
    CHECK(live_blocks_holding_patterns() == 0, "GCM-SIV: the powers of an earlier nonce stay in "
          "the table of a later one");
    EVP_CIPHER_CTX_free(ctx);
    npatterns = first;
    OPENSSL_cleanse(key, sizeof(key));
}

/* After a GCM-SIV seal and an open that succeeded, each context then re-initialised with a new
 * nonce: nothing of the message's plaintext (its blocks, queued for the hash, and its partial
 * block) nor the partial block's keystream in any live heap block. 9 blocks of AAD (hashed as it
 * comes), so that the stream, not the short-message kernels, takes the message. */
static void siv_finished_message(const EVP_CIPHER *cipher, const aesfast_kernel *k, int bits)
{
    enum { LEN = 5 * 16 + 13, AAD = 9 * 16 };
    unsigned char key[32], nonce[12], nonce2[12], aad[AAD], msg[LEN], ct[LEN], out[LEN], tag[16];
    EVP_CIPHER_CTX *sealer = EVP_CIPHER_CTX_new(), *opener = EVP_CIPHER_CTX_new();
    int first = npatterns, l = 0;

    random_bytes(key, sizeof(key));
    random_bytes(nonce, sizeof(nonce));
    random_bytes(nonce2, sizeof(nonce2));
    random_bytes(aad, sizeof(aad));
    random_bytes(msg, sizeof(msg));
    CHECK(sealer != NULL && opener != NULL && EVP_EncryptInit_ex2(sealer, cipher, key, nonce, NULL)
          && EVP_EncryptUpdate(sealer, NULL, &l, aad, AAD)
          && EVP_EncryptUpdate(sealer, ct, &l, msg, LEN) && EVP_EncryptFinal_ex(sealer, ct, &l)
          && EVP_CIPHER_CTX_ctrl(sealer, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0
          && EVP_DecryptInit_ex2(opener, cipher, key, nonce, NULL)
          && EVP_CIPHER_CTX_ctrl(opener, EVP_CTRL_AEAD_SET_TAG, 16, tag) > 0
          && EVP_DecryptUpdate(opener, NULL, &l, aad, AAD)
          && EVP_DecryptUpdate(opener, out, &l, ct, LEN) && EVP_DecryptFinal_ex(opener, out, &l)
          && memcmp(out, msg, LEN) == 0, "AES-%d-GCM-SIV: seal and open", bits);
    siv_message_patterns(k, bits, key, nonce, aad, msg, tag);
    CHECK(EVP_EncryptInit_ex2(sealer, NULL, NULL, nonce2, NULL)
          && EVP_DecryptInit_ex2(opener, NULL, NULL, nonce2, NULL), "re-inits");
    CHECK(live_blocks_holding_patterns() == 0, "AES-%d-GCM-SIV: the plaintext or keystream of a "
          "finished message stays in a context re-initialised for the next", bits);
    EVP_CIPHER_CTX_free(sealer);
    EVP_CIPHER_CTX_free(opener);
    npatterns = first;
    OPENSSL_cleanse(key, sizeof(key));
    OPENSSL_cleanse(msg, sizeof(msg));
}

/* GCM-SIV re-keyed in place: a message under key 1 that builds the whole table of powers (600
 * bytes: past the short-message kernels), then a new key and nonce and a 20-byte message (which
 * the short kernels take, on the tiers that have them, without touching the table): no window
 * of key 1's table may stay. */
static void siv_rekey(const EVP_CIPHER *cipher, const aesfast_kernel *k)
{
    static siv_secrets g;
    unsigned char key[2][16], nonce[2][12], msg[600], out[600];
    const unsigned char no_aad[16] = {0};
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int first = npatterns, l = 0;

    for (int i = 0; i < 2; i++) {
        random_bytes(key[i], 16);
        random_bytes(nonce[i], 12);
    }
    random_bytes(msg, sizeof(msg));
    siv_derive(k, &g, key[0], 16, nonce[0], no_aad);
    for (size_t w = 0; w + 16 <= sizeof(g.hk.tbl) && npatterns < MAX_PATTERNS - 8; w += 16) {
        int nz = 0;

        for (int b = 0; b < 16; b++)
            nz += g.hk.tbl[w + b] != 0;
        if (nz >= 12)
            add_pattern(g.hk.tbl + w, "key 1's powers, bytes %zu..%zu", w, w + 15);
    }
    add_pattern(g.auth, "key 1's authentication key");
    OPENSSL_cleanse(&g, sizeof(g));
    CHECK(ctx != NULL && EVP_EncryptInit_ex2(ctx, cipher, key[0], nonce[0], NULL)
          && EVP_EncryptUpdate(ctx, out, &l, msg, (int)sizeof(msg))
          && EVP_EncryptFinal_ex(ctx, out, &l)
          && EVP_EncryptInit_ex2(ctx, NULL, key[1], nonce[1], NULL)
          && EVP_EncryptUpdate(ctx, out, &l, msg, 20) && EVP_EncryptFinal_ex(ctx, out, &l),
          "GCM-SIV: a message under each of two keys");
    CHECK(live_blocks_holding_patterns() == 0, "GCM-SIV: the powers of a key replaced in place "
          "stay in the context");
    EVP_CIPHER_CTX_free(ctx);
    npatterns = first;
    OPENSSL_cleanse(key, sizeof(key));
}

/* A GCM update of one whole block (the stream's single-block path): its keystream, the
 * ciphertext XOR the plaintext, must not be left on the stack. */
static void gcm_stack_keystream(const EVP_CIPHER *cipher)
{
    unsigned char key[16], iv[12], msg[16], ct[16], ks[16];
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int first = npatterns, l = 0, updated;

    random_bytes(key, sizeof(key));
    random_bytes(iv, sizeof(iv));
    random_bytes(msg, sizeof(msg));
    updated = EVP_EncryptInit_ex2(ctx, cipher, key, iv, NULL)
              && EVP_EncryptUpdate(ctx, ct, &l, msg, 16);
    int left = dead_stack_holds_pattern(); /* nothing added yet: no hit possible, but the same
                                            * frame depth for the probe below */
    for (int i = 0; i < 16; i++)
        ks[i] = ct[i] ^ msg[i];
    add_pattern(ks, "a one-block update's keystream");
    updated = updated && EVP_EncryptInit_ex2(ctx, NULL, NULL, iv, NULL)
              && EVP_EncryptUpdate(ctx, ct, &l, msg, 16);
    left = dead_stack_holds_pattern();
    CHECK(updated, "GCM: one-block updates");
    CHECK(!left, "GCM: a one-block update left its keystream on the stack");
    EVP_CIPHER_CTX_free(ctx);
    npatterns = first;
    OPENSSL_cleanse(ks, sizeof(ks));
}

int main(int argc, char **argv)
{
    const aesfast_kernel *kern;
    const char *provider = "aesfast";
    tu_providers prov;
    int ok, i, aesfast;

    /* First, before anything can allocate through OpenSSL. */
    ok = CRYPTO_set_mem_functions(hook_malloc, hook_realloc, hook_free);
    tu_init(argv[0]);
    if (!ok) {
        printf("wipe_test: CRYPTO_set_mem_functions refused (OpenSSL allocated already)\n");
        printf("wipe_test: 0 passed, 1 failed\n");
        return 1;
    }
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--provider") == 0 && i + 1 < argc) {
            provider = argv[++i];
        } else {
            fprintf(stderr, "usage: wipe_test [--provider NAME]   (OPENSSL_CONF names the cnf)\n");
            return 2;
        }
    }

    aesfast = strcmp(provider, "aesfast") == 0;

    self_test();
    tu_providers_load(&prov, provider, NULL);
    printf("wipe_test: %s, provider %s, kernel %s\n", OpenSSL_version(OPENSSL_VERSION), provider,
           prov.kernel);
    /* GCM's derived secrets come from the provider's own tier (the default provider's layout is
     * its own: there, the generic tier's H and GHASH state stand in). */
    kern = aesfast_kernel_by_name(prov.kernel);
    if (kern == NULL)
        kern = aesfast_kernel_by_name("generic");
    /* An aesfast context holds the part of an aesfast_key its tier uses (key_bytes: 256 bytes on
     * a hardware tier, the whole 1216 with the portable tier's bitsliced round keys); the
     * default provider's AES context holds at least its 240-byte key schedule. */
    run_key_sizes(NULL, NULL, provider, aesfast ? kern->key_bytes : 240);
    CHECK(kern != NULL, "no kernel \"%s\" in this build", prov.kernel);
    /* An aesfast GCM context holds a key (key_bytes of it) and an aesfast_hash_key. */
    if (kern != NULL)
        run_key_sizes(&gcm, kern, provider,
                      aesfast ? kern->key_bytes + sizeof(aesfast_hash_key) : 240);
    /* GCM-SIV: aesfast's only (the default provider of OpenSSL 3.0 and 3.1 has none). A context
     * holds two keys and an aesfast_hash_key. */
    if (kern != NULL && aesfast)
        run_key_sizes(&gcmsiv, kern, provider, 2 * kern->key_bytes + sizeof(aesfast_hash_key));
    if (kern != NULL && aesfast) { /* aesfast's own stream: the default provider's is its own */
        EVP_CIPHER *siv[2] = {tu_fetch_cipher("AES-128-GCM-SIV", provider),
                              tu_fetch_cipher("AES-256-GCM-SIV", provider)};
        EVP_CIPHER *gcm128 = tu_fetch_cipher("AES-128-GCM", provider);

        for (size_t aadlen = 16; aadlen <= 9 * 16; aadlen += 8 * 16) {
            siv_failed_open(siv[0], kern, 128, aadlen);
            siv_failed_open(siv[1], kern, 256, aadlen);
        }
        siv_old_powers(siv[0], kern);
        siv_finished_message(siv[0], kern, 128);
        siv_finished_message(siv[1], kern, 256);
        siv_rekey(siv[0], kern);
        gcm_stack_keystream(gcm128);
        EVP_CIPHER_free(siv[0]);
        EVP_CIPHER_free(siv[1]);
        EVP_CIPHER_free(gcm128);
    }
    tu_providers_unload(&prov);
    printf("wipe_test: %lu blocks scanned on free\n", scanned_blocks);
    return check_summary("wipe_test");
}
