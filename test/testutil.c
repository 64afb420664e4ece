/*
 * Helpers shared by the aesfast test programs (see testutil.h).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */

#include "testutil.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>

const char *tu_prog = "test";

void tu_init(const char *prog)
{
    const char *slash = strrchr(prog, '/');

    tu_prog = slash != NULL ? slash + 1 : prog;
}

void tu_die(const char *fmt, ...)
{
    va_list ap;

    fflush(stdout);
    fprintf(stderr, "%s: ", tu_prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    ERR_print_errors_fp(stderr);
    exit(1);
}

void *tu_xmalloc(size_t n)
{
    void *p = malloc(n != 0 ? n : 1);

    if (p == NULL)
        tu_die("out of memory");
    return p;
}

/* ---- Providers ---------------------------------------------------------------------------- */

/*
 * The kernel name is a UTF-8 parameter. Providers usually answer with a pointer to a constant
 * (OSSL_PARAM_set_utf8_ptr), but one that copies into a buffer is just as valid, so ask for a
 * pointer first and fall back to a string.
 */
static void read_kernel_name(OSSL_PROVIDER *prov, char *out, size_t cap)
{
    const char *ptr = NULL;
    OSSL_PARAM p[2];

    snprintf(out, cap, "n/a");

    p[0] = OSSL_PARAM_construct_utf8_ptr("aesfast-kernel", (char **)&ptr, 0);
    p[1] = OSSL_PARAM_construct_end();
    if (OSSL_PROVIDER_get_params(prov, p) && OSSL_PARAM_modified(p) && ptr != NULL) {
        snprintf(out, cap, "%s", ptr);
        return;
    }
    ERR_clear_error();

    p[0] = OSSL_PARAM_construct_utf8_string("aesfast-kernel", out, cap);
    if (!OSSL_PROVIDER_get_params(prov, p) || !OSSL_PARAM_modified(p))
        snprintf(out, cap, "n/a");
    ERR_clear_error();
}

/*
 * The provider named name, with one more reference. Only "default", which is built into
 * libcrypto, may be loaded by name here: for any other name, a load by name searches
 * OPENSSL_MODULES and the compiled-in modules directory, and could pick up an INSTALLED aesfast.so
 * while the test claims to check the one just built. So such a provider must already be active
 * after the configuration named by OPENSSL_CONF (the build's aesfast.cnf, which names the module
 * by its absolute path) has been loaded, and the test fails loudly otherwise.
 */
static OSSL_PROVIDER *load_one(const char *name)
{
    const char *conf = getenv("OPENSSL_CONF");
    OSSL_PROVIDER *prov;

    if (strcmp(name, "default") != 0) {
        if (conf == NULL || *conf == '\0')
            tu_die("OPENSSL_CONF is not set: point it at the build's aesfast.cnf, which activates "
                   "provider \"%s\" from the module just built (without it, the system "
                   "openssl.cnf could activate an installed one)", name);
        if (!OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL))
            tu_die("loading the configuration OPENSSL_CONF=%s failed", conf);
        if (!OSSL_PROVIDER_available(NULL, name))
            tu_die("provider \"%s\" is not active after loading OPENSSL_CONF=%s: the cnf does not "
                   "activate it, or its module failed to load (a wrong module path, or "
                   "AESFAST_KERNEL naming a tier this CPU lacks). Not loading it by name, which "
                   "could find an installed copy instead of the one under test", name, conf);
    }
    /* Returns the provider the cnf already activated, with one more reference; for "default",
     * the built-in one. */
    prov = OSSL_PROVIDER_load(NULL, name);
    if (prov == NULL)
        tu_die("cannot load provider \"%s\" (OPENSSL_CONF=%s)", name, conf ? conf : "(unset)");
    return prov;
}

void tu_providers_load(tu_providers *p, const char *test_name, const char *expect_kernel)
{
    memset(p, 0, sizeof(*p));
    p->test_name = test_name;
    /* Load the reference first: once any provider is loaded explicitly, OpenSSL no longer
     * activates default on its own. */
    p->ref = load_one("default");
    p->test = load_one(test_name);
    read_kernel_name(p->test, p->kernel, sizeof(p->kernel));

    if (expect_kernel != NULL && strcmp(expect_kernel, p->kernel) != 0)
        tu_die("provider \"%s\" runs kernel \"%s\", expected \"%s\"", test_name, p->kernel,
               expect_kernel);
}

void tu_providers_unload(tu_providers *p)
{
    OSSL_PROVIDER_unload(p->test);
    OSSL_PROVIDER_unload(p->ref);
    memset(p, 0, sizeof(*p));
}

EVP_CIPHER *tu_fetch_cipher(const char *alg, const char *provider_name)
{
    char propq[128];
    EVP_CIPHER *c;
    const char *got;

    snprintf(propq, sizeof(propq), "provider=%s", provider_name);
    c = EVP_CIPHER_fetch(NULL, alg, propq);
    if (c == NULL)
        tu_die("cannot fetch %s with \"%s\"", alg, propq);
    got = OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c));
    if (got == NULL || strcmp(got, provider_name) != 0)
        tu_die("%s fetched with \"%s\" came from provider \"%s\"", alg, propq,
               got != NULL ? got : "(none)");
    return c;
}

/* ---- EVP helpers -------------------------------------------------------------------------- */

size_t tu_cycle_next(void *arg, size_t remaining)
{
    tu_cycle *c = arg;
    size_t n = c->sizes[c->i];

    c->i = (c->i + 1) % c->n;
    return n < remaining ? n : remaining;
}

int tu_update_chunked(EVP_CIPHER_CTX *ctx, int enc, uint8_t *out, const uint8_t *in, size_t len,
                      tu_next_chunk_fn *next, void *arg)
{
    size_t pos = 0;
    unsigned empty_run = 0;

    /* The loop runs at least once so that a zero-length message still makes an update call. */
    do {
        size_t n = next(arg, len - pos);
        int outl = -1, ok;

        /* A chunker that keeps returning 0 would never finish: force progress. */
        if (n == 0 && ++empty_run > 4)
            n = len - pos;
        if (n > len - pos || n > INT_MAX) {
            fprintf(stderr, "%s: chunker returned %zu with %zu bytes left\n", tu_prog, n,
                    len - pos);
            return 0;
        }
        if (n != 0)
            empty_run = 0;

        ok = enc ? EVP_EncryptUpdate(ctx, out + pos, &outl, in + pos, (int)n)
                 : EVP_DecryptUpdate(ctx, out + pos, &outl, in + pos, (int)n);
        if (!ok || outl != (int)n) {
            fprintf(stderr, "%s: EVP_%sUpdate(%zu bytes at offset %zu) returned %d, outl %d\n",
                    tu_prog, enc ? "Encrypt" : "Decrypt", n, pos, ok, outl);
            ERR_print_errors_fp(stderr);
            return 0;
        }
        pos += n;
    } while (pos < len);
    return 1;
}

int tu_final_empty(EVP_CIPHER_CTX *ctx, int enc)
{
    uint8_t buf[32];
    int outl = -1;
    int ok = enc ? EVP_EncryptFinal_ex(ctx, buf, &outl) : EVP_DecryptFinal_ex(ctx, buf, &outl);

    if (!ok || outl != 0) {
        fprintf(stderr, "%s: EVP_%sFinal_ex returned %d, outl %d\n", tu_prog,
                enc ? "Encrypt" : "Decrypt", ok, outl);
        ERR_print_errors_fp(stderr);
        return 0;
    }
    return 1;
}

int tu_get_iv_param(EVP_CIPHER_CTX *ctx, const char *name, uint8_t out[16])
{
    OSSL_PARAM p[2];

    p[0] = OSSL_PARAM_construct_octet_string(name, out, 16);
    p[1] = OSSL_PARAM_construct_end();
    if (!EVP_CIPHER_CTX_get_params(ctx, p) || !OSSL_PARAM_modified(p) || p[0].return_size != 16) {
        fprintf(stderr, "%s: cannot read cipher parameter \"%s\"\n", tu_prog, name);
        ERR_print_errors_fp(stderr);
        return 0;
    }
    return 1;
}

void tu_ctr_add(uint8_t ctr[16], uint64_t n)
{
    unsigned carry = 0;

    for (int i = 15; i >= 0; i--) {
        unsigned sum = ctr[i] + (unsigned)(n & 0xff) + carry;

        ctr[i] = (uint8_t)sum;
        carry = sum >> 8;
        n >>= 8;
    }
}

size_t tu_first_diff(const uint8_t *a, const uint8_t *b, size_t len)
{
    if (memcmp(a, b, len) == 0)
        return (size_t)-1;
    for (size_t i = 0;; i++)
        if (a[i] != b[i])
            return i;
}

/* ---- Hex ---------------------------------------------------------------------------------- */

static int hex_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

uint8_t *tu_hex_decode(const char *s, size_t *len)
{
    uint8_t *buf = malloc(strlen(s) / 2 + 1);
    size_t n = 0;
    int hi = -1;

    if (buf == NULL)
        tu_die("out of memory");
    for (; *s != '\0'; s++) {
        int v;

        if (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
            continue;
        if ((v = hex_value((unsigned char)*s)) < 0)
            goto bad;
        if (hi < 0) {
            hi = v;
        } else {
            buf[n++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    if (hi >= 0)
        goto bad;
    *len = n;
    return buf;
bad:
    free(buf);
    return NULL;
}

void tu_hex_print(FILE *f, const uint8_t *buf, size_t len)
{
    for (size_t i = 0; i < len; i++)
        fprintf(f, "%02x", buf[i]);
}

/* ---- Command line ------------------------------------------------------------------------- */

uint64_t tu_parse_u64(const char *opt, const char *s)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(s != NULL ? s : "", &end, 0);
    if (s == NULL || *s == '\0' || *s == '-' || *end != '\0' || errno != 0)
        tu_die("%s needs an unsigned number, got \"%s\"", opt, s != NULL ? s : "");
    return v;
}

double tu_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

OSSL_LIB_CTX *tu_load_cnf_text(const char *cnf)
{
    char path[] = "/tmp/aesfast-test-cnf-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();

    if (f == NULL || libctx == NULL)
        tu_die("cannot write a temporary openssl.cnf: %s", strerror(errno));
    fputs(cnf, f);
    fclose(f);
    int ok = OSSL_LIB_CTX_load_config(libctx, path);
    unlink(path);
    if (!ok || !OSSL_PROVIDER_available(libctx, "aesfast")) {
        OSSL_LIB_CTX_free(libctx);
        return NULL;
    }
    return libctx;
}

OSSL_LIB_CTX *tu_load_cnf(const char *module_path, const char *cnf_kernel)
{
    char cnf[4096];

    snprintf(cnf, sizeof(cnf),
             "openssl_conf = openssl_init\nconfig_diagnostics = 1\n"
             "[openssl_init]\nproviders = provider_sect\n"
             "[provider_sect]\naesfast = aesfast_sect\n"
             "[aesfast_sect]\nmodule = %s\nactivate = 1\n%s%s%s", module_path,
             cnf_kernel != NULL ? "aesfast-kernel = " : "", cnf_kernel != NULL ? cnf_kernel : "",
             cnf_kernel != NULL ? "\n" : "");
    return tu_load_cnf_text(cnf);
}

int tu_error_mentions(const char *want)
{
    const char *data, *func, *file;
    unsigned long e;
    int line, flags, found = 0;

    while ((e = ERR_get_error_all(&file, &line, &func, &data, &flags)) != 0) {
        char text[256];

        ERR_error_string_n(e, text, sizeof(text));
        fprintf(stderr, "  (expected) error: %s:%s [%s:%d %s]\n", text,
                (flags & ERR_TXT_STRING) ? data : "", file, line, func);
        if (strstr(text, want) != NULL || ((flags & ERR_TXT_STRING) && strstr(data, want)))
            found = 1;
    }
    return found;
}

int tu_set_tag(EVP_CIPHER_CTX *ctx, const uint8_t *tag, size_t len, int by_param)
{
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, (void *)tag,
                                                         len),
                       OSSL_PARAM_construct_end()};

    if (!by_param)
        return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)len, (void *)tag);
    return EVP_CIPHER_CTX_set_params(ctx, p);
}
