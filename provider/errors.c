/*
 * Errors and the debug log.
 *
 * Errors go through the core's error functions (not libcrypto's ERR_raise directly), so they land
 * on the error queue of whichever libcrypto loaded the module and carry aesfast's own library
 * code, reason strings, and the file/line/function where they were raised.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include "aesfast.h"

static OSSL_FUNC_core_new_error_fn *core_new_error;
static OSSL_FUNC_core_set_error_debug_fn *core_set_error_debug;
static OSSL_FUNC_core_vset_error_fn *core_vset_error;

/* Written once, by the first instance's init; every instance gets the same core functions. */
static pthread_mutex_t core_lock = PTHREAD_MUTEX_INITIALIZER;

void aesfast_errors_init(const OSSL_DISPATCH *in)
{
    static int captured;

    pthread_mutex_lock(&core_lock);
    for (; !captured && in->function_id != 0; in++) {
        switch (in->function_id) {
        case OSSL_FUNC_CORE_NEW_ERROR:
            core_new_error = OSSL_FUNC_core_new_error(in);
            break;
        case OSSL_FUNC_CORE_SET_ERROR_DEBUG:
            core_set_error_debug = OSSL_FUNC_core_set_error_debug(in);
            break;
        case OSSL_FUNC_CORE_VSET_ERROR:
            core_vset_error = OSSL_FUNC_core_vset_error(in);
            break;
        default:
            break;
        }
    }
    captured = 1;
    pthread_mutex_unlock(&core_lock);
}

static const OSSL_ITEM reason_strings[] = {
    {AESFAST_R_INVALID_KEY_LENGTH, "invalid key length"},
    {AESFAST_R_INVALID_IV_LENGTH, "invalid iv length"},
    {AESFAST_R_NO_KEY_SET, "no key set"},
    {AESFAST_R_NO_IV_SET, "no iv set"},
    {AESFAST_R_OUTPUT_BUFFER_TOO_SMALL, "output buffer too small"},
    {AESFAST_R_PARTIALLY_OVERLAPPING, "input and output buffers partially overlap"},
    {AESFAST_R_UNSUPPORTED_PARAMETER, "unsupported parameter"},
    {AESFAST_R_BAD_PARAMETER_VALUE, "bad parameter value"},
    {AESFAST_R_KERNEL_UNKNOWN, "unknown kernel"},
    {AESFAST_R_KERNEL_UNAVAILABLE, "kernel not available on this cpu"},
    {AESFAST_R_OUT_OF_MEMORY, "out of memory"},
    {AESFAST_R_INVALID_TAG, "invalid tag"},
    {AESFAST_R_INVALID_TAG_LENGTH, "invalid tag length"},
    {AESFAST_R_TAG_NOT_SET, "tag not set"},
    {AESFAST_R_TAG_MISMATCH, "tag verification failed"},
    {AESFAST_R_AAD_AFTER_DATA, "aad after data"},
    {AESFAST_R_MESSAGE_TOO_LONG, "message too long"},
    {AESFAST_R_IV_ALREADY_USED, "iv already used"},
    {AESFAST_R_NO_IV_GEN, "tls iv generation not set up"},
    {AESFAST_R_INVALID_TLS_AAD, "invalid tls aad"},
    {AESFAST_R_TLS_RECORD, "invalid tls record"},
    {AESFAST_R_RANDOM_FAILED, "random number generation failed"},
    {AESFAST_R_ONE_DATA_UPDATE, "gcm-siv takes the data in one update"},
    {AESFAST_R_NULL_BUFFER, "null buffer"},
    {AESFAST_R_SELFTEST_FAILED, "kernel self-test failed"},
    {0, NULL},
};

const OSSL_ITEM *aesfast_reason_strings(void *provctx)
{
    (void)provctx;
    return reason_strings;
}

static const char *reason_text(int reason)
{
    for (const OSSL_ITEM *r = reason_strings; r->ptr != NULL; r++)
        if ((int)r->id == reason)
            return r->ptr;
    return "unknown reason";
}

void aesfast_raise_handle(const OSSL_CORE_HANDLE *handle, const char *file, int line,
                          const char *func, int reason, const char *fmt, ...)
{
    va_list ap;

    if (aesfast_debug_enabled()) {
        char msg[256];

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        aesfast_debug("error: %s: %s (%s:%d %s)", reason_text(reason), msg, file, line, func);
    }
    if (core_new_error == NULL || core_set_error_debug == NULL || core_vset_error == NULL)
        return;
    core_new_error(handle);
    core_set_error_debug(handle, file, line, func);
    va_start(ap, fmt);
    core_vset_error(handle, (uint32_t)reason, fmt, ap);
    va_end(ap);
}

static int debug_on;
static pthread_once_t debug_once = PTHREAD_ONCE_INIT;

static void debug_read_env(void)
{
    const char *v = getenv("AESFAST_DEBUG");

    debug_on = v != NULL && *v != '\0' && strcmp(v, "0") != 0;
}

int aesfast_debug_enabled(void)
{
    pthread_once(&debug_once, debug_read_env);
    return debug_on;
}

void aesfast_debug(const char *fmt, ...)
{
    char line[512];
    va_list ap;

    if (!aesfast_debug_enabled())
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    /* One write per line, so lines from concurrent threads do not interleave. */
    fprintf(stderr, "aesfast: %s\n", line);
}
