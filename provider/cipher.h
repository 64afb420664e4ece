/*
 * What every aesfast cipher shares with the others: its algorithm parameters, as the default
 * provider's generic cipher layer reports them, and the shape of its dispatch table.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#ifndef AESFAST_CIPHER_H
#define AESFAST_CIPHER_H

#include <openssl/core.h>
#include <openssl/core_dispatch.h>

#include "aesfast.h"

/* The algorithm parameters ("mode", "keylen", "ivlen", "blocksize" 1, "aead" and "custom-iv" 1
 * for an AEAD mode and 0 otherwise, "cts", "tls-multi", "has-randkey" 0). */
int aesfast_cipher_get_params(OSSL_PARAM params[], unsigned int mode, size_t keylen,
                              size_t ivlen, int aead);
const OSSL_PARAM *aesfast_cipher_gettable_params(void *provctx);

/* A new zeroed cipher context of size bytes, or NULL with an error raised (name is for it). */
void *aesfast_ctx_new(const aesfast_prov *prov, size_t size, const char *name);
/* A copy of a context (aesfast contexts hold no pointers into themselves), or NULL with an error. */
void *aesfast_ctx_dup(const aesfast_prov *prov, const void *ctx, size_t size, const char *name);

/*
 * The dispatch table aesfast_aes<bits><mode>_functions of a mode whose functions are named
 * <mode>_newctx(provctx, keylen), <mode>_freectx, _dupctx, _einit, _dinit, _update, _final,
 * _cipher, <mode>_get_params(params, keylen), _get_ctx_params, _gettable_ctx_params,
 * _set_ctx_params and _settable_ctx_params.
 */
#define AESFAST_CIPHER_TABLE(mode, bits)                                                       \
    static void *mode##bits##_newctx(void *provctx)                                            \
    {                                                                                          \
        return mode##_newctx(provctx, (bits) / 8);                                             \
    }                                                                                          \
    static int mode##bits##_get_params(OSSL_PARAM params[])                                    \
    {                                                                                          \
        return mode##_get_params(params, (bits) / 8);                                          \
    }                                                                                          \
    const OSSL_DISPATCH aesfast_aes##bits##mode##_functions[] = {                              \
        {OSSL_FUNC_CIPHER_NEWCTX, (void (*)(void))mode##bits##_newctx},                        \
        {OSSL_FUNC_CIPHER_FREECTX, (void (*)(void))mode##_freectx},                            \
        {OSSL_FUNC_CIPHER_DUPCTX, (void (*)(void))mode##_dupctx},                              \
        {OSSL_FUNC_CIPHER_ENCRYPT_INIT, (void (*)(void))mode##_einit},                         \
        {OSSL_FUNC_CIPHER_DECRYPT_INIT, (void (*)(void))mode##_dinit},                         \
        {OSSL_FUNC_CIPHER_UPDATE, (void (*)(void))mode##_update},                              \
        {OSSL_FUNC_CIPHER_FINAL, (void (*)(void))mode##_final},                                \
        {OSSL_FUNC_CIPHER_CIPHER, (void (*)(void))mode##_cipher},                              \
        {OSSL_FUNC_CIPHER_GET_PARAMS, (void (*)(void))mode##bits##_get_params},                \
        {OSSL_FUNC_CIPHER_GETTABLE_PARAMS, (void (*)(void))aesfast_cipher_gettable_params},    \
        {OSSL_FUNC_CIPHER_GET_CTX_PARAMS, (void (*)(void))mode##_get_ctx_params},              \
        {OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, (void (*)(void))mode##_gettable_ctx_params},    \
        {OSSL_FUNC_CIPHER_SET_CTX_PARAMS, (void (*)(void))mode##_set_ctx_params},              \
        {OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, (void (*)(void))mode##_settable_ctx_params},    \
        OSSL_DISPATCH_END,                                                                     \
    }

#endif /* AESFAST_CIPHER_H */
