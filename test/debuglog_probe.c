/*
 * debuglog_probe: the process whose debug log test/debuglog_test.sh inspects. It loads aesfast
 * from MODULE_DIR and the default provider into the default library context (no openssl.cnf: a
 * set-group-ID copy of this program reads no OPENSSL_CONF), prints the tier aesfast runs and its
 * pid, and makes aesfast raise one error whose message carries pointers (an AES-128-CTR update
 * whose output partially overlaps its input).
 *
 *   debuglog_probe MODULE_DIR
 *     prints "pid P kernel K" and "refused: partial overlap"; exit 0, 1 if any step went
 *     otherwise, 3 if aesfast did not load (AESFAST_KERNEL naming no tier, say)
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

int main(int argc, char **argv)
{
    static const unsigned char key[16], iv[16];
    unsigned char buf[80] = {0};
    char kernel[32] = "?", *kp = kernel;
    OSSL_PARAM params[] = {
        OSSL_PARAM_utf8_ptr("aesfast-kernel", &kp, 0),
        OSSL_PARAM_END,
    };
    OSSL_PROVIDER *aesfast, *deflt;
    EVP_CIPHER *ctr;
    EVP_CIPHER_CTX *ctx;
    int outl, ok = 1;

    if (argc != 2) {
        fprintf(stderr, "usage: debuglog_probe MODULE_DIR\n");
        return 2;
    }
    if (!OSSL_PROVIDER_set_default_search_path(NULL, argv[1])
        || (deflt = OSSL_PROVIDER_load(NULL, "default")) == NULL)
        return 1;
    if ((aesfast = OSSL_PROVIDER_load(NULL, "aesfast")) == NULL) {
        printf("aesfast did not load\n");
        OSSL_PROVIDER_unload(deflt);
        return 3;
    }
    if (OSSL_PROVIDER_get_params(aesfast, params) && kp != NULL)
        snprintf(kernel, sizeof(kernel), "%s", kp);
    printf("pid %ld kernel %s\n", (long)getpid(), kernel);

    ctr = EVP_CIPHER_fetch(NULL, "AES-128-CTR", "provider=aesfast");
    ctx = EVP_CIPHER_CTX_new();
    if (ctr == NULL || ctx == NULL || !EVP_EncryptInit_ex2(ctx, ctr, key, iv, NULL)) {
        ok = 0;
    } else if (EVP_EncryptUpdate(ctx, buf + 1, &outl, buf, 64)) {
        printf("a partially overlapping update was accepted\n");
        ok = 0;
    } else {
        printf("refused: partial overlap\n");
    }
    ERR_clear_error();
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(ctr);
    OSSL_PROVIDER_unload(aesfast);
    OSSL_PROVIDER_unload(deflt);
    return ok ? 0 : 1;
}
