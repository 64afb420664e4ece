/*
 * Errors and the debug log.
 *
 * Errors go through the core's error functions (not libcrypto's ERR_raise directly), so they land
 * on the error queue of whichever libcrypto loaded the module and carry aesfast's own library
 * code, reason strings, and the file/line/function where they were raised.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>

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

/*
 * The debug log shows no addresses (they would help an attacker who reads it defeat ASLR): fmt
 * is copied to out with every %p conversion made "(hidden)%.0s", which prints nothing of its
 * argument (C11 7.16.1.1 lets a void * be read as a char *; a precision of 0 reads no byte).
 * 0 if it cannot be done (out too small, or a %p with a '*' width, whose int would be left over).
 */
static int hide_pointers(const char *fmt, char *out, size_t outlen)
{
    static const char hidden[] = "(hidden)%.0s";
    size_t n = 0;

    while (*fmt != '\0') {
        size_t spec = 1, len;
        const char *copy = fmt;

        if (*fmt == '%') {
            spec += strspn(fmt + 1, "-+ #0123456789.*hlLqjzt");
            if (fmt[spec] == '%' || fmt[spec] == '\0') {
                spec += fmt[spec] == '%';
            } else if (fmt[spec++] == 'p') {
                if (memchr(fmt, '*', spec) != NULL)
                    return 0;
                copy = hidden;
            }
        }
        len = copy == hidden ? sizeof(hidden) - 1 : spec;
        if (n + len >= outlen)
            return 0;
        memcpy(out + n, copy, len);
        n += len;
        fmt += spec;
    }
    out[n] = '\0';
    return 1;
}

void aesfast_raise_handle(const OSSL_CORE_HANDLE *handle, const char *file, int line,
                          const char *func, int reason, const char *fmt, ...)
{
    va_list ap;

    if (aesfast_debug_enabled()) {
        char msg[256], hidden[256];

        if (hide_pointers(fmt, hidden, sizeof(hidden))) {
            va_start(ap, fmt);
            vsnprintf(msg, sizeof(msg), hidden, ap);
            va_end(ap);
        } else {
            snprintf(msg, sizeof(msg), "(message not logged)");
        }
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

/*
 * The debug log (AESFAST_DEBUG). Unset, empty or "0": off. "file:PATH": lines are appended to
 * PATH, opened once by the first line (a process forked later, such as an nginx worker, writes
 * through the same descriptor). Anything else ("1"): standard error. Every line is
 *     2026-12-01T19:58:01.123456Z pid 4242 aesfast: AES-128-GCM: key setup on kernel vaes-avx2
 * (UTC, so that no time zone file is read), written by one write(2), so that lines from threads
 * and processes sharing the destination do not interleave.
 *
 * A write that would take a regular file past the process's file-size limit (RLIMIT_FSIZE) raises
 * SIGXFSZ, whose default action kills the process: sshd's pre-auth child sets that limit to 0, and
 * a debug line on a stderr redirected to a file killed it. So a line for a regular file is written
 * only if the limit leaves room for it (checked with fstat and getrlimit, which sshd's sandbox
 * refuses or never reaches: a destination that cannot be inspected gets no line); pipes, terminals
 * and /dev/null have no such limit. The environment is read with secure_getenv: a set-user-ID
 * program ignores AESFAST_DEBUG, so its caller cannot make it append to a file of its choice.
 */
const char *aesfast_getenv(const char *name)
{
#if defined(__GLIBC__)
    return secure_getenv(name);
#else
    return getuid() != geteuid() || getgid() != getegid() ? NULL : getenv(name);
#endif
}

static int debug_fd = -1; /* where lines go; -1: the log is off */
static pthread_once_t debug_once = PTHREAD_ONCE_INIT;

static int room_for(int fd, size_t len)
{
    struct stat st;
    struct rlimit lim;

    if (fstat(fd, &st) != 0)
        return 0;
    if (!S_ISREG(st.st_mode))
        return 1;
    if (getrlimit(RLIMIT_FSIZE, &lim) != 0)
        return 0;
    /* The file's size stands for the write position: O_APPEND's, and a plain stderr's unless it
     * was sought past the end. */
    return lim.rlim_cur == RLIM_INFINITY
        || (st.st_size >= 0 && (uintmax_t)st.st_size + len <= (uintmax_t)lim.rlim_cur);
}

static void write_line(int fd, const char *line, size_t len)
{
    if (room_for(fd, len) && write(fd, line, len) < 0) {
        /* Nowhere left to say so. */
    }
}

static void debug_open(void)
{
    const char *v = aesfast_getenv("AESFAST_DEBUG");
    char msg[512];
    int fd, n;

    if (v == NULL || *v == '\0' || strcmp(v, "0") == 0)
        return;
    if (strncmp(v, "file:", 5) != 0) {
        debug_fd = STDERR_FILENO;
        return;
    }
    fd = open(v + 5, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
    if (fd >= 0) {
        debug_fd = fd;
        return;
    }
    n = snprintf(msg, sizeof(msg), "aesfast: AESFAST_DEBUG=%s: %s; logging to stderr instead\n",
                 v, strerror(errno));
    debug_fd = STDERR_FILENO;
    write_line(debug_fd, msg, n > 0 && (size_t)n < sizeof(msg) ? (size_t)n : strlen(msg));
}

int aesfast_debug_enabled(void)
{
    pthread_once(&debug_once, debug_open);
    return debug_fd >= 0;
}

void aesfast_debug(const char *fmt, ...)
{
    char line[640];
    struct timespec now;
    struct tm utc;
    size_t n = 0, max = sizeof(line) - 1; /* room for the newline */
    va_list ap;
    int k;

    if (!aesfast_debug_enabled())
        return;
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &utc);
    n = strftime(line, max, "%Y-%m-%dT%H:%M:%S", &utc);
    k = snprintf(line + n, max - n, ".%06ldZ pid %ld aesfast: ", now.tv_nsec / 1000L,
                 (long)getpid());
    n += k < 0 ? 0 : (size_t)k < max - n ? (size_t)k : max - n - 1;
    va_start(ap, fmt);
    k = vsnprintf(line + n, max - n, fmt, ap);
    va_end(ap);
    n += k < 0 ? 0 : (size_t)k < max - n ? (size_t)k : max - n - 1; /* what fitted */
    line[n++] = '\n';
    write_line(debug_fd, line, n);
}
