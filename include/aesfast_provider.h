/*
 * aesfast built into an application: the entry point of the static library libaesfast.a.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * The loadable module (aesfast.so) needs none of this: OpenSSL finds it through openssl.cnf or
 * OSSL_PROVIDER_load. An application that links libaesfast.a instead registers the entry point
 * under the provider's name once, then loads it like any provider:
 *
 *     #include <openssl/provider.h>
 *     #include <aesfast_provider.h>
 *
 *     OSSL_PROVIDER_add_builtin(libctx, AESFAST_PROVIDER_NAME, aesfast_provider_init);
 *     OSSL_PROVIDER *prov = OSSL_PROVIDER_load(libctx, AESFAST_PROVIDER_NAME);
 *     EVP_CIPHER *gcm = EVP_CIPHER_fetch(libctx, "AES-128-GCM", "provider=aesfast");
 *
 * Link with `pkg-config --static --libs aesfast` (-laesfast -lpthread and libcrypto). Everything
 * else in the archive is local to its one object: aesfast_provider_init is its only global
 * symbol. The tier is chosen as for the module: AESFAST_KERNEL, or the best this CPU runs.
 */
#ifndef AESFAST_PROVIDER_H
#define AESFAST_PROVIDER_H

#include <openssl/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The provider's name: for OSSL_PROVIDER_add_builtin and OSSL_PROVIDER_load, and the property
 * query "provider=aesfast". */
#define AESFAST_PROVIDER_NAME "aesfast"

/* The provider's init function, an OSSL_provider_init_fn. In aesfast.so, OSSL_provider_init is
 * this same function. */
int aesfast_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
                          const OSSL_DISPATCH **out, void **provctx);

#ifdef __cplusplus
}
#endif

#endif /* AESFAST_PROVIDER_H */
