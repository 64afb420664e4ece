/*
 * static_builtin: aesfast linked into a program as a static library (libaesfast.a), with no
 * aesfast.so and no openssl.cnf anywhere. The program registers the provider's entry point under
 * its name, loads it, seals and opens one message with aesfast's AES-128-GCM, and checks the
 * ciphertext and tag against OpenSSL's default provider.
 *
 *   cc static_builtin.c $(pkg-config --static --cflags --libs aesfast) -o static_builtin
 *   ./static_builtin                  exit 0: the message round-trips and matches default's
 *   ./static_builtin --no-register    skips the registration, to show that the load then fails
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <aesfast_provider.h>

/* Seals (enc = 1) or opens (enc = 0) len bytes in one go; on open, tag is the one to check.
 * Returns 1 on success, 0 on any failure, a wrong tag included. */
static int gcm(EVP_CIPHER *cipher, int enc, const unsigned char key[16],
               const unsigned char iv[12], const unsigned char *in, int len, unsigned char *out,
               unsigned char tag[16])
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int n, ok = ctx != NULL && EVP_CipherInit_ex2(ctx, cipher, key, iv, enc, NULL)
                && EVP_CipherUpdate(ctx, out, &n, in, len) && n == len
                && (enc || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag))
                && EVP_CipherFinal_ex(ctx, out + n, &n)
                && (!enc || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag));

    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

int main(int argc, char **argv)
{
    static const unsigned char key[16] = "0123456789abcdef", iv[12] = "unique nonce";
    unsigned char msg[1000], sealed[sizeof(msg)], opened[sizeof(msg)], ref[sizeof(msg)];
    unsigned char tag[16], ref_tag[16];
    const char *name = NULL, *version = NULL, *kernel = NULL;
    OSSL_PARAM params[] = {
        OSSL_PARAM_utf8_ptr("name", &name, 0),
        OSSL_PARAM_utf8_ptr("version", &version, 0),
        OSSL_PARAM_utf8_ptr("aesfast-kernel", &kernel, 0),
        OSSL_PARAM_END,
    };
    OSSL_PROVIDER *aesfast = NULL, *deflt = NULL;
    EVP_CIPHER *fast = NULL, *slow = NULL;
    int ok = 0;

    /* 1. Make the name "aesfast" mean the entry point linked into this program. */
    if ((argc < 2 || strcmp(argv[1], "--no-register") != 0)
        && !OSSL_PROVIDER_add_builtin(NULL, AESFAST_PROVIDER_NAME, aesfast_provider_init))
        goto done;

    /* 2. Load it, and default beside it (loading any provider explicitly stops OpenSSL from
     *    loading default on its own). */
    if ((aesfast = OSSL_PROVIDER_load(NULL, AESFAST_PROVIDER_NAME)) == NULL
        || (deflt = OSSL_PROVIDER_load(NULL, "default")) == NULL
        || !OSSL_PROVIDER_get_params(aesfast, params))
        goto done;
    printf("libcrypto: %s\n", OpenSSL_version(OPENSSL_VERSION));
    printf("provider: %s %s, aesfast-kernel %s\n", name, version, kernel);

    /* 3. Fetch AES-128-GCM from each by property query, so neither can fall back to the other. */
    if ((fast = EVP_CIPHER_fetch(NULL, "AES-128-GCM", "provider=aesfast")) == NULL
        || (slow = EVP_CIPHER_fetch(NULL, "AES-128-GCM", "provider=default")) == NULL)
        goto done;
    printf("cipher: %s from %s, reference from %s\n", EVP_CIPHER_get0_name(fast),
           OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(fast)),
           OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(slow)));

    /* 4. Seal a message of 1000 bytes (long enough for every kernel's widest loop), open it
     *    again, and seal it with the default provider too. */
    for (size_t i = 0; i < sizeof(msg); i++)
        msg[i] = "aesfast, built in. "[i % 19];
    if (!gcm(fast, 1, key, iv, msg, sizeof(msg), sealed, tag)
        || !gcm(fast, 0, key, iv, sealed, sizeof(msg), opened, tag)
        || !gcm(slow, 1, key, iv, msg, sizeof(msg), ref, ref_tag))
        goto done;
    printf("tag: ");
    for (int i = 0; i < 16; i++)
        printf("%02x", tag[i]);
    int same = memcmp(sealed, ref, sizeof(msg)) == 0 && memcmp(tag, ref_tag, 16) == 0;
    int round_trip = memcmp(opened, msg, sizeof(msg)) == 0;
    printf("\nopened: %s\n", round_trip ? "equal to the message" : "DIFFERENT");
    printf("default provider: %s\n", same ? "same ciphertext and tag" : "DIFFERENT");
    ok = same && round_trip;

done:
    if (!ok) {
        fprintf(stderr, "static_builtin: failed\n");
        ERR_print_errors_fp(stderr);
    }
    EVP_CIPHER_free(fast);
    EVP_CIPHER_free(slow);
    OSSL_PROVIDER_unload(aesfast);
    OSSL_PROVIDER_unload(deflt);
    return ok ? 0 : 1;
}
