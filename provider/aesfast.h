/*
 * aesfast provider internals shared by the glue files: the provider context, error reasons,
 * error raising through the core, and the debug log.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#ifndef AESFAST_H
#define AESFAST_H

#include <stdarg.h>
#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/crypto.h>

#include "aesfast_kernel.h"

#ifndef OSSL_DISPATCH_END /* OpenSSL 3.0 headers lack it */
#define OSSL_DISPATCH_END {0, NULL}
#endif

/* One per loaded instance (each library context that activates aesfast has its own). */
typedef struct aesfast_prov {
    const OSSL_CORE_HANDLE *handle;
    OSSL_LIB_CTX *libctx;         /* a child of the application's library context: its providers,
                                   * so its random source, for the IVs aesfast draws */
    const aesfast_kernel *kernel; /* the tier every cipher context of this instance uses */
    int libcrypto_major;          /* the major version of the libcrypto that loaded us (3, 4, ...):
                                   * where the default provider's behaviour changed with it */
    char selftest[256];           /* the "aesfast-selftest" parameter (provider.c) */
    int own_libcrypto;            /* libctx lives in a libcrypto other than the loader's (a
                                   * program linked with libcrypto.a): see provider.c */
} aesfast_prov;

/* Reason codes of aesfast's own errors; the texts are in provider/errors.c. */
enum {
    AESFAST_R_INVALID_KEY_LENGTH = 1,
    AESFAST_R_INVALID_IV_LENGTH,
    AESFAST_R_NO_KEY_SET,
    AESFAST_R_NO_IV_SET,
    AESFAST_R_OUTPUT_BUFFER_TOO_SMALL,
    AESFAST_R_PARTIALLY_OVERLAPPING,
    AESFAST_R_UNSUPPORTED_PARAMETER,
    AESFAST_R_BAD_PARAMETER_VALUE,
    AESFAST_R_KERNEL_UNKNOWN,
    AESFAST_R_KERNEL_UNAVAILABLE,
    AESFAST_R_OUT_OF_MEMORY,
    AESFAST_R_INVALID_TAG,
    AESFAST_R_INVALID_TAG_LENGTH,
    AESFAST_R_TAG_NOT_SET,
    AESFAST_R_TAG_MISMATCH,
    AESFAST_R_AAD_AFTER_DATA,
    AESFAST_R_MESSAGE_TOO_LONG,
    AESFAST_R_IV_ALREADY_USED,
    AESFAST_R_NO_IV_GEN,
    AESFAST_R_INVALID_TLS_AAD,
    AESFAST_R_TLS_RECORD,
    AESFAST_R_RANDOM_FAILED,
    AESFAST_R_ONE_DATA_UPDATE,
    AESFAST_R_NULL_BUFFER,
    AESFAST_R_SELFTEST_FAILED,
};

/* Stores the core's error functions; called once from OSSL_provider_init. */
void aesfast_errors_init(const OSSL_DISPATCH *in);
const OSSL_ITEM *aesfast_reason_strings(void *provctx);

/* Raises an error on the calling thread's OpenSSL error queue, with file, line and function,
 * and echoes it to the debug log. prov may be NULL before the provider context exists only if
 * handle is given instead (see aesfast_raise_handle). */
void aesfast_raise_handle(const OSSL_CORE_HANDLE *handle, const char *file, int line,
                          const char *func, int reason, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
#define AESFAST_RAISE(prov, reason, ...)                                                       \
    aesfast_raise_handle((prov)->handle, OPENSSL_FILE, OPENSSL_LINE, OPENSSL_FUNC, (reason),   \
                         __VA_ARGS__)

/* The debug log (errors.c): AESFAST_DEBUG set to "file:PATH" appends to PATH, to anything else
 * but "" or "0" logs to stderr; each line carries the time and the pid. */
int aesfast_debug_enabled(void);
void aesfast_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* getenv, except that a set-user-ID or set-group-ID program gets NULL (secure_getenv). */
const char *aesfast_getenv(const char *name);

/* Algorithm tables, one file per mode. */
extern const OSSL_DISPATCH aesfast_aes128ctr_functions[];
extern const OSSL_DISPATCH aesfast_aes192ctr_functions[];
extern const OSSL_DISPATCH aesfast_aes256ctr_functions[];
extern const OSSL_DISPATCH aesfast_aes128gcm_functions[];
extern const OSSL_DISPATCH aesfast_aes192gcm_functions[];
extern const OSSL_DISPATCH aesfast_aes256gcm_functions[];
extern const OSSL_DISPATCH aesfast_aes128gcmsiv_functions[];
extern const OSSL_DISPATCH aesfast_aes192gcmsiv_functions[];
extern const OSSL_DISPATCH aesfast_aes256gcmsiv_functions[];

#endif /* AESFAST_H */
