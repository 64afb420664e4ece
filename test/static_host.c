/*
 * static_host: an application linked with libcrypto.a and libssl.a (as several of OpenSSL's own
 * test programs are) that loads aesfast.so from openssl.cnf. aesfast.so links libcrypto.so.3, so
 * the process then holds two libcrypto copies: the program's own, which loads aesfast and runs
 * its teardown at exit, and the module's, which aesfast's child library context lives in.
 *
 * It seals and opens TLS 1.2 records under "tlsivfixed" (a 4-byte fixed IV and 8 random bytes
 * the provider draws), GCM messages whose IV the provider draws, and CTR, GCM and GCM-SIV messages
 * of every key size, each aesfast result checked against OpenSSL's default provider in the same
 * process, and then returns from main: the exit status is the process's, after both copies'
 * exit handlers (a copy torn down before aesfast's teardown is a crash there, status 139).
 *
 *   OPENSSL_CONF=CNF static_host [--preinit]       exit 0 pass, 1 fail
 *
 * Linked with the shared libcrypto instead, it is a one-copy program for contrast; built so with
 * -DTAKE_INIT_ADDRESS and without PIE, one whose libcrypto function address is a stub of its own.
 *
 * CNF activates default and aesfast. --preinit initialises the module's libcrypto (dlopen of
 * LIBCRYPTO_SONAME) before the configuration loads aesfast, as another module linking it could:
 * that copy's exit handler is then registered before aesfast can do anything about it. The
 * output names the libcrypto of the program and that of the module (the copy loaded as
 * LIBCRYPTO_SONAME, "none" if there is none).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/ssl.h>

#include "check.h"

/* The module's libcrypto by its soname (libcrypto.so.3 for OpenSSL 3.x). */
#ifndef LIBCRYPTO_SONAME
#define LIBCRYPTO_SONAME "libcrypto.so.3"
#endif

static unsigned char msg[3000];

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}

/* The cipher name from the provider name ("aesfast" or "default"); NULL if not there. */
static EVP_CIPHER *fetch(const char *name, const char *prov)
{
    char q[32];
    EVP_CIPHER *c;

    snprintf(q, sizeof(q), "provider=%s", prov);
    c = EVP_CIPHER_fetch(NULL, name, q);
    if (c != NULL && strcmp(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c)), prov) != 0) {
        EVP_CIPHER_free(c);
        c = NULL;
    }
    return c;
}

/* One message: len bytes, with 13 bytes of AAD in the AEAD modes; tag is written (seal) or
 * checked (open). Returns 1 on success. ivlen 0: leave the IV to the provider. */
static int one_message(EVP_CIPHER *c, int enc, const unsigned char *key, const unsigned char *iv,
                 const unsigned char *in, int len, unsigned char *out, unsigned char tag[16])
{
    static const unsigned char aad[13] = "record header";
    int aead = EVP_CIPHER_get_mode(c) != EVP_CIPH_CTR_MODE, n = 0, m = 0;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int ok = ctx != NULL && EVP_CipherInit_ex2(ctx, c, key, iv, enc, NULL)
             && (!aead || EVP_CipherUpdate(ctx, NULL, &n, aad, sizeof(aad)))
             && (!aead || enc || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) > 0)
             && EVP_CipherUpdate(ctx, out, &n, in, len)
             && EVP_CipherFinal_ex(ctx, out + n, &m) && n + m == len
             && (!aead || !enc || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0);

    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

/* CTR, GCM and GCM-SIV, every key size: aesfast's output equals default's, and opens. */
static void modes(void)
{
    static const char *const names[] = {"AES-128-CTR", "AES-192-CTR", "AES-256-CTR",
                                        "AES-128-GCM", "AES-192-GCM", "AES-256-GCM",
                                        "AES-128-GCM-SIV", "AES-192-GCM-SIV", "AES-256-GCM-SIV"};
    static unsigned char a[sizeof(msg)], d[sizeof(msg)], back[sizeof(msg)];
    unsigned char key[32], iv[16], ta[16], td[16];

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        EVP_CIPHER *fast = fetch(names[i], "aesfast"), *ref = fetch(names[i], "default");
        int len = 1000 + 200 * (int)i, same = 0, opened = 0;

        fill(key, sizeof(key), (unsigned)i);
        fill(iv, sizeof(iv), (unsigned)i + 50);
        if (CHECK(fast != NULL && ref != NULL, "%s: not in both providers", names[i])) {
            same = one_message(fast, 1, key, iv, msg, len, a, ta)
                   && one_message(ref, 1, key, iv, msg, len, d, td) && memcmp(a, d, len) == 0
                   && (EVP_CIPHER_get_mode(fast) == EVP_CIPH_CTR_MODE || memcmp(ta, td, 16) == 0);
            opened = one_message(fast, 0, key, iv, a, len, back, ta) && memcmp(back, msg, len) == 0;
            CHECK(same, "%s: aesfast differs from default", names[i]);
            CHECK(opened, "%s: aesfast does not open its own message", names[i]);
        }
        if (same && opened)
            printf("%s: aesfast equals default\n", names[i]);
        EVP_CIPHER_free(fast);
        EVP_CIPHER_free(ref);
    }
}

static int get_iv(EVP_CIPHER_CTX *ctx, unsigned char iv[12])
{
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_IV, iv, 12),
                       OSSL_PARAM_construct_end()};

    return EVP_CIPHER_CTX_get_params(ctx, p) && p[0].return_size == 12;
}

/* AES-128-GCM with the IV drawn by aesfast: default opens each message under that IV. */
static void random_ivs(void)
{
    EVP_CIPHER *fast = fetch("AES-128-GCM", "aesfast"), *ref = fetch("AES-128-GCM", "default");
    static unsigned char out[sizeof(msg)], back[sizeof(msg)];
    unsigned char key[16], iv[12], prev[12], tag[16];
    int n, m, ok = 0, good = 0;

    fill(key, sizeof(key), 7);
    for (int i = 0; i < 4 && fast != NULL && ref != NULL; i++) {
        EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

        ok = ctx != NULL && EVP_EncryptInit_ex2(ctx, fast, key, NULL, NULL)
             && EVP_EncryptUpdate(ctx, out, &n, msg, 500) && n == 500
             && EVP_EncryptFinal_ex(ctx, out + n, &m)
             && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0 && get_iv(ctx, iv);
        EVP_CIPHER_CTX_free(ctx);
        CHECK(ok, "random IV %d: sealing failed", i);
        CHECK(!ok || i == 0 || memcmp(iv, prev, 12) != 0, "random IV %d: the same IV again", i);
        memcpy(prev, iv, 12);
        if (ok) {
            EVP_CIPHER_CTX *o = EVP_CIPHER_CTX_new();

            ok = o != NULL && EVP_DecryptInit_ex2(o, ref, key, iv, NULL)
                 && EVP_DecryptUpdate(o, back, &n, out, 500)
                 && EVP_CIPHER_CTX_ctrl(o, EVP_CTRL_AEAD_SET_TAG, 16, tag) > 0
                 && EVP_DecryptFinal_ex(o, back + n, &m) && memcmp(back, msg, 500) == 0;
            EVP_CIPHER_CTX_free(o);
        }
        good += CHECK(ok, "random IV %d: default does not open aesfast's message", i);
    }
    CHECK(fast != NULL && ref != NULL, "AES-128-GCM: not in both providers");
    if (good == 4)
        printf("GCM, random IVs: 4 messages open under default\n");
    EVP_CIPHER_free(fast);
    EVP_CIPHER_free(ref);
}

/* One TLS 1.2 record through EVP_Cipher, in place: rec holds 8 bytes of explicit IV, len of
 * payload and 16 of tag. Returns EVP_Cipher's result: the record's length, or -1. */
static int tls_record(EVP_CIPHER_CTX *ctx, int enc, unsigned seq, unsigned char *rec, int len)
{
    unsigned char aad[13] = {0};
    int reclen = 8 + len + 16;

    aad[7] = (unsigned char)seq;
    aad[8] = 23;    /* application data */
    aad[9] = 3;     /* TLS 1.2 */
    aad[10] = 3;
    /* The length in the header: the explicit IV and the payload, and the tag when opening. */
    aad[11] = (unsigned char)((reclen - (enc ? 16 : 0)) >> 8);
    aad[12] = (unsigned char)(reclen - (enc ? 16 : 0));
    if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) != 16) /* the tag's room */
        return -1;
    return EVP_Cipher(ctx, rec, rec, (unsigned)reclen);
}

/* TLS 1.2 records sealed by aesfast under "tlsivfixed" (4 bytes: the rest is drawn at random)
 * open under default, and default's open under aesfast. */
static void tls12(void)
{
    static const int lens[] = {0, 1, 16, 100, 1000, 2900};
    EVP_CIPHER *fast = fetch("AES-256-GCM", "aesfast"), *ref = fetch("AES-256-GCM", "default");
    EVP_CIPHER_CTX *s = NULL, *o = NULL;
    static unsigned char rec[sizeof(msg) + 24];
    unsigned char key[32], fixed[4];
    int good = 0;

    fill(key, sizeof(key), 9);
    fill(fixed, sizeof(fixed), 10);
    for (int dir = 0; dir < 2 && CHECK(fast != NULL && ref != NULL, "AES-256-GCM missing"); dir++) {
        /* dir 0: aesfast seals, default opens; dir 1: the other way round */
        s = EVP_CIPHER_CTX_new();
        o = EVP_CIPHER_CTX_new();
        if (!CHECK(s != NULL && o != NULL
                   && EVP_CipherInit_ex2(s, dir ? ref : fast, key, NULL, 1, NULL)
                   && EVP_CipherInit_ex2(o, dir ? fast : ref, key, NULL, 0, NULL)
                   && EVP_CIPHER_CTX_ctrl(s, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed) > 0
                   && EVP_CIPHER_CTX_ctrl(o, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed) > 0,
                   "tls1.2 %d: setting up the contexts", dir))
            goto next;
        for (unsigned i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
            int len = lens[i], r;

            memset(rec, 0, 8);
            memcpy(rec + 8, msg, len);
            r = tls_record(s, 1, i, rec, len);
            if (!CHECK(r == 8 + len + 16, "tls1.2 %d: sealing a %d-byte record: %d", dir, len, r))
                continue;
            r = tls_record(o, 0, i, rec, len);
            good += CHECK(r == 8 + len + 16 && memcmp(rec + 8, msg, len) == 0,
                          "tls1.2 %d: opening a %d-byte record: %d", dir, len, r);
        }
    next:
        EVP_CIPHER_CTX_free(s);
        EVP_CIPHER_CTX_free(o);
    }
    if (good == 2 * (int)(sizeof(lens) / sizeof(lens[0])))
        printf("TLS 1.2 records, tlsivfixed: aesfast's open under default and default's under "
               "aesfast\n");
    EVP_CIPHER_free(fast);
    EVP_CIPHER_free(ref);
}

/* The version of the LIBCRYPTO_SONAME in this process (the module's), or "none". */
static const char *module_libcrypto(void)
{
    void *h = dlopen(LIBCRYPTO_SONAME, RTLD_NOW | RTLD_NOLOAD);
    const char *(*version)(int) = NULL;
    const char *v = "none";

    if (h != NULL) {
        *(void **)&version = dlsym(h, "OpenSSL_version");
        if (version != NULL)
            v = version(OPENSSL_VERSION);
        dlclose(h);
    }
    return v;
}

#ifdef TAKE_INIT_ADDRESS
/* Built without PIE, a program that takes the address of libcrypto's function gets a stub of its
 * own that is then that function's address throughout the process, aesfast's view included. */
int (*volatile init_address)(uint64_t, const OPENSSL_INIT_SETTINGS *);
#endif

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line out before a crash at exit */
#ifdef TAKE_INIT_ADDRESS
    init_address = OPENSSL_init_crypto;
#endif
    if (argc > 1 && strcmp(argv[1], "--preinit") == 0) {
        /* This copy's exit handler first, then the module's copy's, so that one runs first at
         * exit, then the configuration. (Options 0 would register nothing: nothing to do.) */
        void *h;
        int (*init)(uint64_t, const void *) = NULL;

        if (!OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CRYPTO_STRINGS, NULL)
            || (h = dlopen(LIBCRYPTO_SONAME, RTLD_NOW)) == NULL
            || (*(void **)&init = dlsym(h, "OPENSSL_init_crypto")) == NULL
            || !init(OPENSSL_INIT_LOAD_CRYPTO_STRINGS, NULL)) {
            fprintf(stderr, "static_host: cannot initialise the module's libcrypto first\n");
            return 1;
        }
        printf("module's libcrypto initialised before the configuration\n");
    }
    if (!OPENSSL_init_ssl(OPENSSL_INIT_LOAD_CONFIG, NULL)) {
        fprintf(stderr, "static_host: OPENSSL_init_ssl failed\n");
        ERR_print_errors_fp(stderr);
        return 1;
    }
    fill(msg, sizeof(msg), 1);
    if (!CHECK(OSSL_PROVIDER_available(NULL, "aesfast"), "aesfast is not loaded (OPENSSL_CONF?)")) {
        ERR_print_errors_fp(stderr);
        return check_summary("static_host");
    }
    printf("program's libcrypto: %s\n", OpenSSL_version(OPENSSL_VERSION));
    tls12();
    random_ivs();
    modes();
    printf("module's libcrypto: %s\n", module_libcrypto());
    ERR_print_errors_fp(stderr);
    return check_summary("static_host");
}
