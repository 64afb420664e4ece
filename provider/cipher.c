/*
 * The algorithm parameters every aesfast cipher reports (see cipher.h).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <openssl/core_names.h>
#include <openssl/params.h>

#include "cipher.h"

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
        OSSL_PARAM_END,
    };

    (void)provctx;
    return params;
}
