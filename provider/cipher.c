/*
 * The algorithm parameters every aesfast cipher reports (see cipher.h).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include "cipher.h"

/*
 * OpenSSL 3.6's libcrypto asks every cipher for this flag when it is fetched
 * (EVP_CIPH_FLAG_ENC_THEN_MAC), and its default provider lists and answers it: 0 for these modes.
 * Older headers lack the name; an older libcrypto never asks.
 */
#ifndef OSSL_CIPHER_PARAM_ENCRYPT_THEN_MAC
#define OSSL_CIPHER_PARAM_ENCRYPT_THEN_MAC "encrypt-then-mac"
#endif

int aesfast_cipher_get_params(OSSL_PARAM params[], unsigned int mode, size_t keylen,
                              size_t ivlen, int aead)
{
    const struct {
        const char *key;
        int value;
    } flags[] = {
        {OSSL_CIPHER_PARAM_AEAD, aead},
        {OSSL_CIPHER_PARAM_CUSTOM_IV, aead},
        {OSSL_CIPHER_PARAM_CTS, 0},
        {OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, 0},
        {OSSL_CIPHER_PARAM_HAS_RAND_KEY, 0},
        {OSSL_CIPHER_PARAM_ENCRYPT_THEN_MAC, 0},
    };
    OSSL_PARAM *p;

    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_MODE)) != NULL
        && !OSSL_PARAM_set_uint(p, mode))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != NULL
        && !OSSL_PARAM_set_size_t(p, keylen))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != NULL
        && !OSSL_PARAM_set_size_t(p, ivlen))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_BLOCK_SIZE)) != NULL
        && !OSSL_PARAM_set_size_t(p, 1))
        return 0;
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
        if ((p = OSSL_PARAM_locate(params, flags[i].key)) != NULL
            && !OSSL_PARAM_set_int(p, flags[i].value))
            return 0;
    return 1;
}

const OSSL_PARAM *aesfast_cipher_gettable_params(void *provctx)
{
    static const OSSL_PARAM params[] = {
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, NULL),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, NULL),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, NULL),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, NULL),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_CTS, NULL),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, NULL),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_HAS_RAND_KEY, NULL),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_ENCRYPT_THEN_MAC, NULL),
        OSSL_PARAM_END,
    };

    (void)provctx;
    return params;
}

void *aesfast_ctx_new(const aesfast_prov *prov, size_t size, const char *name)
{
    void *c = OPENSSL_zalloc(size);

    if (c == NULL)
        AESFAST_RAISE(prov, AESFAST_R_OUT_OF_MEMORY, "%s context of %zu bytes", name, size);
    return c;
}

void *aesfast_ctx_dup(const aesfast_prov *prov, const void *ctx, size_t size, const char *name)
{
    void *dup = OPENSSL_malloc(size);

    if (dup == NULL)
        AESFAST_RAISE(prov, AESFAST_R_OUT_OF_MEMORY, "%s context of %zu bytes", name, size);
    else
        memcpy(dup, ctx, size);
    return dup;
}
