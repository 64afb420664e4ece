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
 * The hooks are checked too: a planted pattern in an OPENSSL_malloc'd block is found on free and
 * on a moving realloc, and freeing each provider context must pass a block at least as large as
 * an aesfast_key through the hooks (otherwise the scan proved nothing).
 *
 * Prints "wipe_test: N passed, M failed"; exits 0 or 1. Single-threaded by design: the hooks'
 * table has no lock.
 */
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
static char pattern_names[MAX_PATTERNS][48];
static int npatterns;

static unsigned long scanned_blocks, found_blocks;
static size_t largest_freed;           /* largest block freed since the last reset */
static int planted;                    /* in the self-test: hits are expected */

static void add_pattern(const unsigned char *p, const char *name)
{
    if (npatterns == MAX_PATTERNS) {
        fprintf(stderr, "wipe_test: too many patterns\n");
        abort();
    }
    memcpy(patterns[npatterns], p, 16);
    snprintf(pattern_names[npatterns], sizeof(pattern_names[0]), "%s", name);
    npatterns++;
}

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
    /* getentropy, not RAND_bytes: keys that never pass through an OpenSSL buffer. */
    if (getentropy(p, n) != 0)
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

/*
 * One key size: new context, 37 bytes, copy, re-key one of the two in place (rekey_copy picks
 * which), a few more bytes on both, free both. Returns the number of leaking blocks seen.
 */
static unsigned long run(const EVP_CIPHER *cipher, int bits, int rekey_copy, size_t min_block)
{
    unsigned char key1[32], key2[32], iv1[16], iv2[16], msg[64], out[64];
    EVP_CIPHER_CTX *a = EVP_CIPHER_CTX_new(), *b = EVP_CIPHER_CTX_new(), *re;
    unsigned long before = found_blocks;
    int first = npatterns, l = 0;
    char what[96];

    random_bytes(key1, sizeof(key1));
    random_bytes(key2, sizeof(key2));
    random_bytes(iv1, sizeof(iv1));
    random_bytes(iv2, sizeof(iv2));
    random_bytes(msg, sizeof(msg));
    add_pattern(key1, "the first key (bytes 0..15)");
    add_pattern(key2, "the new key (bytes 0..15)");
    if (bits == 256) {
        add_pattern(key1 + 16, "the first key (bytes 16..31)");
        add_pattern(key2 + 16, "the new key (bytes 16..31)");
    }

    snprintf(what, sizeof(what), "AES-%d, re-keying the %s", bits, rekey_copy ? "copy" : "original");
    CHECK(a != NULL && b != NULL, "%s: EVP_CIPHER_CTX_new", what);
    CHECK(EVP_EncryptInit_ex2(a, cipher, key1, iv1, NULL), "%s: init", what);
    CHECK(EVP_EncryptUpdate(a, out, &l, msg, 37) && l == 37, "%s: 37 bytes", what);
    CHECK(EVP_CIPHER_CTX_copy(b, a), "%s: EVP_CIPHER_CTX_copy", what);
    /* No cipher named: libcrypto keeps the provider context and the provider re-keys it. */
    re = rekey_copy ? b : a;
    CHECK(EVP_EncryptInit_ex2(re, NULL, key2, iv2, NULL), "%s: re-init with a new key", what);
    CHECK(EVP_EncryptUpdate(a, out, &l, msg, 11) && l == 11, "%s: 11 more bytes (original)",
          what);
    CHECK(EVP_EncryptUpdate(b, out, &l, msg, 13) && l == 13, "%s: 13 more bytes (copy)", what);
    ERR_print_errors_fp(stdout);

    free_ctx(a, what, min_block);
    free_ctx(b, what, min_block);
    CHECK(found_blocks == before, "%s: %lu freed block(s) still held key material", what,
          found_blocks - before);

    npatterns = first;                   /* forget the keys: the stack buffers die here */
    OPENSSL_cleanse(key1, sizeof(key1));
    OPENSSL_cleanse(key2, sizeof(key2));
    return found_blocks - before;
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

/* The patterns of key 1 and key 2's secrets; table windows only where the two tables differ
 * (so no constant of the tier's layout becomes a pattern), and with at least 12 non-zero bytes. */
static void gcm_patterns(const gcm_secrets *g1, const gcm_secrets *g2)
{
    const gcm_secrets *g[2] = {g1, g2};
    char name[48];
    int w, i;

    for (i = 0; i < 2; i++) {
        snprintf(name, sizeof(name), "H of key %d", i + 1);
        add_pattern(g[i]->h, name);
        snprintf(name, sizeof(name), "the GHASH state under key %d", i + 1);
        add_pattern(g[i]->acc, name);
        snprintf(name, sizeof(name), "E(K, J0) of key %d", i + 1);
        add_pattern(g[i]->ekj0, name);
    }
    for (w = 0; w + 16 <= AESFAST_HASH_KEY_BYTES && npatterns + 2 <= MAX_PATTERNS - 8; w += 16) {
        if (memcmp(g1->hk.tbl + w, g2->hk.tbl + w, 16) == 0)
            continue;
        for (i = 0; i < 2; i++) {
            int nz = 0, b;

            for (b = 0; b < 16; b++)
                nz += g[i]->hk.tbl[w + b] != 0;
            if (nz < 12)
                continue;
            snprintf(name, sizeof(name), "key %d's hash key table, bytes %d..%d", i + 1, w, w + 15);
            add_pattern(g[i]->hk.tbl + w, name);
        }
    }
}

static unsigned long run_gcm(const EVP_CIPHER *cipher, const aesfast_kernel *k, int bits,
                             int rekey_copy, size_t min_block)
{
    unsigned char key1[32], key2[32], iv1[12], iv2[12], aad[16], msg[64], out[64], tag[16];
    static gcm_secrets g1, g2;
    EVP_CIPHER_CTX *a = EVP_CIPHER_CTX_new(), *b = EVP_CIPHER_CTX_new(), *c = EVP_CIPHER_CTX_new();
    EVP_CIPHER_CTX *re, *other;
    unsigned long before = found_blocks;
    int first = npatterns, l = 0;
    char what[96];

    random_bytes(key1, sizeof(key1));
    random_bytes(key2, sizeof(key2));
    random_bytes(iv1, sizeof(iv1));
    random_bytes(iv2, sizeof(iv2));
    random_bytes(aad, sizeof(aad));
    random_bytes(msg, sizeof(msg));
    gcm_derive(k, &g1, key1, (size_t)bits / 8, iv1, aad);
    gcm_derive(k, &g2, key2, (size_t)bits / 8, iv2, aad);
    add_pattern(key1, "the first key (bytes 0..15)");
    add_pattern(key2, "the new key (bytes 0..15)");
    if (bits == 256) {
        add_pattern(key1 + 16, "the first key (bytes 16..31)");
        add_pattern(key2 + 16, "the new key (bytes 16..31)");
    }
    gcm_patterns(&g1, &g2);

    snprintf(what, sizeof(what), "AES-%d-GCM, re-keying the %s", bits,
             rekey_copy ? "copy" : "original");
    CHECK(a != NULL && b != NULL && c != NULL, "%s: EVP_CIPHER_CTX_new", what);
    CHECK(EVP_EncryptInit_ex2(a, cipher, key1, iv1, NULL), "%s: init", what);
    CHECK(EVP_EncryptUpdate(a, NULL, &l, aad, 16) && l == 16, "%s: 16 bytes of AAD", what);
    /* A copy holding key, H, its powers and the GHASH state, freed at once. */
    CHECK(EVP_CIPHER_CTX_copy(c, a), "%s: EVP_CIPHER_CTX_copy after the AAD", what);
    free_ctx(c, what, min_block);
    CHECK(EVP_EncryptUpdate(a, out, &l, msg, 37) && l == 37, "%s: 37 bytes", what);
    CHECK(EVP_CIPHER_CTX_copy(b, a), "%s: EVP_CIPHER_CTX_copy after the data", what);
    re = rekey_copy ? b : a;
    other = rekey_copy ? a : b;
    CHECK(EVP_EncryptInit_ex2(re, NULL, key2, iv2, NULL), "%s: re-init with a new key", what);
    CHECK(EVP_EncryptUpdate(re, NULL, &l, aad, 16) && EVP_EncryptUpdate(re, out, &l, msg, 13)
          && l == 13, "%s: AAD and 13 bytes under the new key", what);
    CHECK(EVP_EncryptUpdate(other, out, &l, msg, 11) && l == 11
          && EVP_EncryptFinal_ex(other, out, &l)
          && EVP_CIPHER_CTX_ctrl(other, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0,
          "%s: 11 more bytes, final and tag (the other one)", what);
    ERR_print_errors_fp(stdout);

    free_ctx(a, what, min_block);
    free_ctx(b, what, min_block);
    CHECK(found_blocks == before, "%s: %lu freed block(s) still held key material", what,
          found_blocks - before);

    npatterns = first;
    OPENSSL_cleanse(key1, sizeof(key1));
    OPENSSL_cleanse(key2, sizeof(key2));
    OPENSSL_cleanse(&g1, sizeof(g1));
    OPENSSL_cleanse(&g2, sizeof(g2));
    return found_blocks - before;
}

int main(int argc, char **argv)
{
    static const int bits[3] = {128, 192, 256};
    static const char *const algs[3] = {"AES-128-CTR", "AES-192-CTR", "AES-256-CTR"};
    static const char *const gcm_algs[3] = {"AES-128-GCM", "AES-192-GCM", "AES-256-GCM"};
    const aesfast_kernel *kern;
    const char *provider = "aesfast";
    tu_providers prov;
    size_t min_block;
    int ok, i, k;

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

    self_test();
    tu_providers_load(&prov, provider, NULL);
    printf("wipe_test: %s, provider %s, kernel %s\n", OpenSSL_version(OPENSSL_VERSION), provider,
           prov.kernel);
    /* An aesfast context embeds an aesfast_key; the default provider's AES context holds at
     * least its 240-byte key schedule. */
    min_block = strcmp(provider, "aesfast") == 0 ? sizeof(aesfast_key) : 240;

    for (k = 0; k < 3; k++) {
        EVP_CIPHER *c = tu_fetch_cipher(algs[k], provider);

        run(c, bits[k], 0, min_block);
        run(c, bits[k], 1, min_block);
        EVP_CIPHER_free(c);
    }
    /* GCM's derived secrets come from the provider's own tier (the default provider's layout is
     * its own: there, the generic tier's H and GHASH state stand in). */
    kern = aesfast_kernel_by_name(prov.kernel);
    if (kern == NULL)
        kern = aesfast_kernel_by_name("generic");
    CHECK(kern != NULL, "no kernel \"%s\" in this build", prov.kernel);
    /* An aesfast GCM context embeds an aesfast_key and an aesfast_hash_key. */
    if (strcmp(provider, "aesfast") == 0)
        min_block = sizeof(aesfast_key) + sizeof(aesfast_hash_key);
    for (k = 0; k < 3 && kern != NULL; k++) {
        EVP_CIPHER *c = tu_fetch_cipher(gcm_algs[k], provider);

        run_gcm(c, kern, bits[k], 0, min_block);
        run_gcm(c, kern, bits[k], 1, min_block);
        EVP_CIPHER_free(c);
    }
    tu_providers_unload(&prov);
    printf("wipe_test: %lu blocks scanned on free\n", scanned_blocks);
    return check_summary("wipe_test");
}
