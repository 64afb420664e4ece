/*
 * rand_ctx: the IVs aesfast draws at random (AES-GCM encrypting with no IV, and the non-fixed
 * part of "tlsivfixed") come from the library context the application loaded aesfast into, not
 * from the process's default one.
 *
 * The application here is this program: a library context of its own with two providers, the
 * aesfast module under test and a built-in provider whose only algorithm is a random generator
 * by the name libcrypto asks a context for ("CTR-DRBG"), which returns bytes the test knows
 * (each call's are logged). aesfast follows its context through a child library context, which
 * sees that context's providers: each IV must be the generator's last output, drawn by the call
 * that needed it. Drawn from the default context instead (OpenSSL's own DRBG, seeded by the
 * operating system), the IVs would be bytes no one here chose, and the test fails.
 *
 *   rand_ctx MODULE      (MODULE: the path of aesfast.so)     exit 0 pass, 1 fail
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include "check.h"
#include "testutil.h"

/* ---- the application's random source: a provider with one generator ----------------------- */

static unsigned long draws;        /* generate calls so far */
static unsigned char last[64];     /* the first bytes the last call returned */
static size_t last_len;

static void *trand_newctx(void *provctx, void *parent, const OSSL_DISPATCH *parent_calls)
{
    (void)provctx, (void)parent, (void)parent_calls;
    return OPENSSL_zalloc(1);
}

static void trand_freectx(void *ctx)
{
    OPENSSL_free(ctx);
}

static int trand_instantiate(void *ctx, unsigned int strength, int prediction_resistance,
                             const unsigned char *pstr, size_t pstr_len,
                             const OSSL_PARAM params[])
{
    (void)ctx, (void)strength, (void)prediction_resistance, (void)pstr, (void)pstr_len;
    (void)params;
    return 1;
}

static int trand_uninstantiate(void *ctx)
{
    (void)ctx;
    return 1;
}

/* Bytes no operating-system generator would give: a xorshift stream seeded by the call count. */
static int trand_generate(void *ctx, unsigned char *out, size_t outlen, unsigned int strength,
                          int prediction_resistance, const unsigned char *addin,
                          size_t addin_len)
{
    uint32_t x = 0x9e3779b9u * (uint32_t)(++draws) + 0x7f4a7c15u;

    (void)ctx, (void)strength, (void)prediction_resistance, (void)addin, (void)addin_len;
    for (size_t i = 0; i < outlen; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        out[i] = (unsigned char)(x >> 24);
    }
    last_len = outlen < sizeof(last) ? outlen : sizeof(last);
    memcpy(last, out, last_len);
    return 1;
}

static int trand_enable_locking(void *ctx)
{
    (void)ctx;
    return 1;
}

static int trand_lock(void *ctx)
{
    (void)ctx;
    return 1;
}

static void trand_unlock(void *ctx)
{
    (void)ctx;
}

static const OSSL_PARAM *trand_gettable_ctx_params(void *ctx, void *provctx)
{
    static const OSSL_PARAM list[] = {
        OSSL_PARAM_int(OSSL_RAND_PARAM_STATE, NULL),
        OSSL_PARAM_uint(OSSL_RAND_PARAM_STRENGTH, NULL),
        OSSL_PARAM_size_t(OSSL_RAND_PARAM_MAX_REQUEST, NULL),
        OSSL_PARAM_END,
    };

    (void)ctx, (void)provctx;
    return list;
}

static int trand_get_ctx_params(void *ctx, OSSL_PARAM params[])
{
    OSSL_PARAM *p;

    (void)ctx;
    if ((p = OSSL_PARAM_locate(params, OSSL_RAND_PARAM_STATE)) != NULL
        && !OSSL_PARAM_set_int(p, EVP_RAND_STATE_READY))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_RAND_PARAM_STRENGTH)) != NULL
        && !OSSL_PARAM_set_uint(p, 256))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_RAND_PARAM_MAX_REQUEST)) != NULL
        && !OSSL_PARAM_set_size_t(p, 1 << 16))
        return 0;
    return 1;
}

static const OSSL_PARAM *trand_settable_ctx_params(void *ctx, void *provctx)
{
    static const OSSL_PARAM none[] = {OSSL_PARAM_END};

    (void)ctx, (void)provctx;
    return none;
}

static int trand_set_ctx_params(void *ctx, const OSSL_PARAM params[])
{
    (void)ctx, (void)params;
    return 1;
}

static const OSSL_DISPATCH trand_functions[] = {
    {OSSL_FUNC_RAND_NEWCTX, (void (*)(void))trand_newctx},
    {OSSL_FUNC_RAND_FREECTX, (void (*)(void))trand_freectx},
    {OSSL_FUNC_RAND_INSTANTIATE, (void (*)(void))trand_instantiate},
    {OSSL_FUNC_RAND_UNINSTANTIATE, (void (*)(void))trand_uninstantiate},
    {OSSL_FUNC_RAND_GENERATE, (void (*)(void))trand_generate},
    {OSSL_FUNC_RAND_ENABLE_LOCKING, (void (*)(void))trand_enable_locking},
    {OSSL_FUNC_RAND_LOCK, (void (*)(void))trand_lock},
    {OSSL_FUNC_RAND_UNLOCK, (void (*)(void))trand_unlock},
    {OSSL_FUNC_RAND_GETTABLE_CTX_PARAMS, (void (*)(void))trand_gettable_ctx_params},
    {OSSL_FUNC_RAND_GET_CTX_PARAMS, (void (*)(void))trand_get_ctx_params},
    {OSSL_FUNC_RAND_SETTABLE_CTX_PARAMS, (void (*)(void))trand_settable_ctx_params},
    {OSSL_FUNC_RAND_SET_CTX_PARAMS, (void (*)(void))trand_set_ctx_params},
    {0, NULL},
};

static const OSSL_ALGORITHM trand_algorithms[] = {
    {"CTR-DRBG", "provider=rand-ctx-test", trand_functions, "the test's known bytes"},
    {NULL, NULL, NULL, NULL},
};

static const OSSL_ALGORITHM *trand_query(void *provctx, int operation_id, int *no_cache)
{
    (void)provctx;
    *no_cache = 0;
    return operation_id == OSSL_OP_RAND ? trand_algorithms : NULL;
}

static const OSSL_DISPATCH trand_provider[] = {
    {OSSL_FUNC_PROVIDER_QUERY_OPERATION, (void (*)(void))trand_query},
    {0, NULL},
};

static int trand_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
                      const OSSL_DISPATCH **out, void **provctx)
{
    (void)handle, (void)in;
    *out = trand_provider;
    *provctx = NULL;
    return 1;
}

/* ---- the checks ----------------------------------------------------------------------------- */

/* Up to 16 bytes as hex, in one of two static buffers. */
static const char *hex(const unsigned char *p, size_t n)
{
    static char buf[2][33];
    static int which;
    char *b = buf[which ^= 1];

    for (size_t i = 0; i < n && i < 16; i++)
        snprintf(b + 2 * i, 3, "%02x", p[i]);
    b[2 * (n < 16 ? n : 16)] = '\0';
    return b;
}

/* The context's "iv" (12 bytes): 1, or 0. */
static int get_iv(EVP_CIPHER_CTX *ctx, unsigned char iv[12])
{
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_IV, iv, 12),
                       OSSL_PARAM_construct_end()};

    return EVP_CIPHER_CTX_get_params(ctx, p) && p[0].return_size == 12;
}

int main(int argc, char **argv)
{
    unsigned char key[16] = {1, 2, 3}, fixed[4] = {0xf1, 0xf2, 0xf3, 0xf4}, msg[16] = {0};
    unsigned char iv[12], out[16];
    OSSL_LIB_CTX *app;
    OSSL_PROVIDER *source, *aesfast;
    EVP_CIPHER *gcm;
    EVP_CIPHER_CTX *ctx;
    unsigned long before;
    int l;

    tu_init("rand_ctx");
    if (argc != 2)
        tu_die("usage: rand_ctx MODULE (the path of aesfast.so)");
    if ((app = OSSL_LIB_CTX_new()) == NULL
        || !OSSL_PROVIDER_add_builtin(app, "rand-ctx-test", trand_init)
        || (source = OSSL_PROVIDER_load(app, "rand-ctx-test")) == NULL
        || (aesfast = OSSL_PROVIDER_load(app, argv[1])) == NULL)
        tu_die("a library context with the test's random source and %s", argv[1]);
    gcm = EVP_CIPHER_fetch(app, "AES-128-GCM", "provider=aesfast");
    if (gcm == NULL || EVP_CIPHER_get0_provider(gcm) != aesfast)
        tu_die("no AES-128-GCM from aesfast in the application's library context");
    printf("rand_ctx: %s; aesfast and a random source of the test's in a library context\n",
           OpenSSL_version(OPENSSL_VERSION));

    /* Encrypting without an IV: the IV drawn when the message starts. */
    ctx = EVP_CIPHER_CTX_new();
    before = draws;
    CHECK(EVP_EncryptInit_ex2(ctx, gcm, key, NULL, NULL)
          && EVP_EncryptUpdate(ctx, out, &l, msg, sizeof(msg))
          && EVP_EncryptFinal_ex(ctx, out, &l) && get_iv(ctx, iv),
          "a message sealed under a random IV");
    CHECK(draws == before + 1 && last_len == 12 && memcmp(iv, last, 12) == 0,
          "the random IV is not the application's random source's: %lu draws of it, IV %s, "
          "its last output %s", draws - before, hex(iv, 12), hex(last, last_len));

    /* "tlsivfixed" when encrypting: the 8 bytes after the fixed part. */
    before = draws;
    CHECK(EVP_EncryptInit_ex2(ctx, NULL, key, NULL, NULL)
          && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed) > 0 && get_iv(ctx, iv),
          "tlsivfixed");
    CHECK(draws == before + 1 && last_len == 8 && memcmp(iv, fixed, 4) == 0
          && memcmp(iv + 4, last, 8) == 0,
          "tlsivfixed's random part is not the application's random source's: %lu draws of "
          "it, IV %s, its last output %s", draws - before, hex(iv, 12),
          hex(last, last_len));
    ERR_print_errors_fp(stdout);

    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(gcm);
    OSSL_PROVIDER_unload(aesfast);
    OSSL_PROVIDER_unload(source);
    OSSL_LIB_CTX_free(app);
    return check_summary("rand_ctx");
}
