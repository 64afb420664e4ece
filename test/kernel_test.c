/*
 * kernel_test: every compiled-in kernel tier that this CPU can run, called directly (no provider),
 * against AES-ECB from libcrypto's default provider as the independent reference:
 *   - set_key's round keys equal the portable tier's, and encrypt_block matches AES-ECB;
 *   - ctr32_xor matches ECB on explicitly built counter blocks, including a low word that wraps
 *     from 0xffffffff to 0 without a carry into byte 11, for 0..300 blocks and a few large counts,
 *     in place and at every misalignment, without writing a byte outside the output.
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

#include <openssl/err.h>
#include <openssl/evp.h>

#include "aesfast_kernel.h"
#include "dispatch.h"
#include "tiers.h"

static int failures, checks;

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        checks++;                                                                              \
        if (!(cond)) {                                                                         \
            failures++;                                                                        \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                               \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
            if (failures > 20)                                                                 \
                exit(1);                                                                       \
        }                                                                                      \
    } while (0)

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
    uint8_t *blocks = malloc(n * 16 + 16);
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

static void test_tier(const aesfast_kernel *k)
{
    static const size_t keylens[] = {16, 24, 32};
    static const size_t large[] = {511, 1024, 4099, 65537};
    int before = failures, checks_before = checks;

    for (int i = 0; i < 3; i++) {
        size_t kl = keylens[i];
        test_key_schedule(k, kl);
        for (size_t n = 0; n <= 300; n++)
            test_ctr32_case(k, kl, n, n % 3 == 0, n % 16, n % 5 == 0);
        for (size_t j = 0; j < sizeof(large) / sizeof(large[0]); j++)
            test_ctr32_case(k, kl, large[j], (int)j % 2, j, (int)j % 2);
    }
    printf("kernel_test: %-12s %s (%d checks)\n", k->name,
           failures == before ? "ok" : "FAILED", checks - checks_before);
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

    int ran = tiers_run("kernel_test", argc, argv, test_tier);

    if (ran < 0)
        return 1;
    if (failures > 0) {
        printf("kernel_test: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    if (ran == 0) {
        printf("kernel_test: every requested tier was skipped\n");
        return 77;
    }
    printf("kernel_test: %d checks passed on %d tier(s)\n", checks, ran);
    return 0;
}
