/*
 * tls12_records: TLS 1.2 record sealing as libssl does it ("tlsivfixed" once, then per record
 * "tlsaad" and one EVP_Cipher in place), AES-128-GCM, on two builds of aesfast in one process:
 * a before/after comparison of a change on the per-record path (doc/drbg-and-fork.md: the fork
 * check). Each build gets a library context of its own (with default, for its random source).
 * Slices of records alternate between the two, the first side swapping every slice; a round's
 * figure for a side is its best slice (preemption only ever slows a slice down); the result is
 * the median over rounds of each side's ns per record and of the per-round ratio B / A, with
 * the smallest and largest ratio. The side loaded second tends to run ~1 % slower: run both
 * orders (A B and B A) and average; A against a copy of A shows the noise.
 *
 *   build/bench/tls12_records MODULE_A MODULE_B PAYLOAD_BYTES ROUNDS
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

typedef struct {
    const char *module;
    EVP_CIPHER_CTX *ctx;
    unsigned char *rec;
    size_t reclen;
    unsigned long long seq;
} side;

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static void die(const char *what, const char *module)
{
    fprintf(stderr, "tls12_records: %s (%s)\n", what, module);
    ERR_print_errors_fp(stderr);
    exit(1);
}

static void setup(side *s, const char *module, size_t plen)
{
    static const unsigned char key[16] = {1}, fixed[4] = {2};
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *p;
    EVP_CIPHER *gcm;

    if (libctx == NULL || OSSL_PROVIDER_load(libctx, "default") == NULL
        || (p = OSSL_PROVIDER_load(libctx, module)) == NULL)
        die("cannot load", module);
    gcm = EVP_CIPHER_fetch(libctx, "AES-128-GCM", "provider=aesfast");
    if (gcm == NULL || EVP_CIPHER_get0_provider(gcm) != p)
        die("AES-128-GCM is not the module's", module);
    s->module = module;
    s->ctx = EVP_CIPHER_CTX_new();
    s->reclen = 8 + plen + 16;
    s->rec = calloc(1, s->reclen);
    s->seq = 0;
    if (s->ctx == NULL || s->rec == NULL || !EVP_EncryptInit_ex2(s->ctx, gcm, key, NULL, NULL)
        || EVP_CIPHER_CTX_ctrl(s->ctx, EVP_CTRL_GCM_SET_IV_FIXED, 4, (void *)fixed) <= 0)
        die("tlsivfixed", module);
}

/* ns per record over n records. */
static double slice(side *s, int n)
{
    size_t len = s->reclen - 16; /* the AAD's length: explicit nonce and payload */
    unsigned char aad[13] = {0, 0, 0, 0, 0, 0, 0, 0, 23, 3, 3, (unsigned char)(len >> 8),
                             (unsigned char)len};
    double t0 = now();

    for (int i = 0; i < n; i++) {
        unsigned long long q = s->seq++;

        for (int b = 0; b < 8; b++)
            aad[b] = (unsigned char)(q >> (56 - 8 * b));
        if (EVP_CIPHER_CTX_ctrl(s->ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) != 16
            || EVP_Cipher(s->ctx, s->rec, s->rec, (unsigned int)s->reclen) <= 0)
            die("sealing a record", s->module);
    }
    return (now() - t0) / n * 1e9;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: tls12_records MODULE_A MODULE_B PAYLOAD_BYTES ROUNDS\n");
        return 2;
    }
    size_t plen = strtoul(argv[3], NULL, 0);
    int rounds = atoi(argv[4]), n = plen <= 64 ? 20000 : 5000;
    double *ta = calloc(rounds, sizeof(double)), *tb = calloc(rounds, sizeof(double));
    double *ratio = calloc(rounds, sizeof(double));
    side s[2];

    if (rounds < 1 || plen > 16384 || ta == NULL || tb == NULL || ratio == NULL)
        die("bad arguments", argv[0]);
    setup(&s[0], argv[1], plen);
    setup(&s[1], argv[2], plen);
    for (int w = 0; w < 5; w++) /* warm up */
        slice(&s[0], n), slice(&s[1], n);
    for (int r = 0; r < rounds; r++) {
        double best[2] = {1e30, 1e30};

        for (int k = 0; k < 10; k++) {
            int first = (r + k) & 1;

            for (int j = 0; j < 2; j++) {
                int x = j ^ first;
                double t = slice(&s[x], n);

                if (t < best[x])
                    best[x] = t;
            }
        }
        ta[r] = best[0], tb[r] = best[1], ratio[r] = best[1] / best[0];
    }
    qsort(ta, rounds, sizeof(double), cmp);
    qsort(tb, rounds, sizeof(double), cmp);
    qsort(ratio, rounds, sizeof(double), cmp);
    printf("payload %5zu B: A %.1f ns/record, B %.1f ns/record; B/A %.4f (min %.4f, max %.4f), "
           "medians of %d rounds\n", plen, ta[rounds / 2], tb[rounds / 2], ratio[rounds / 2],
           ratio[0], ratio[rounds - 1], rounds);
    return 0;
}
