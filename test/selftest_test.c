/*
 * selftest_test: the power-on self-test (provider/selftest.c) and what a failure does, shown by
 * injecting faults with AESFAST_SELFTEST_FAULT (each case loads the module into a library context
 * of its own, with the module's stderr captured):
 *   - no fault: "aesfast-selftest" is "passed", the best usable tier is used, status is 1;
 *   - a fault in the best usable tier's test of each mode (ctr, gcm, gcm-msg, gcmsiv,
 *     gcmsiv-short; the last only on a tier with GCM-SIV's short kernels): the provider still
 *     loads, from openssl.cnf, on the next usable tier; "aesfast-kernel" names it,
 *     "aesfast-selftest" says "<best> failed: <mode>; using <next>", status stays 1, the debug
 *     log says so, and the ciphers (AES-128/256-GCM, AES-256-CTR, AES-GCM-SIV) give the default
 *     provider's results (and RFC 8452's for GCM-SIV, which OpenSSL 3.0 lacks);
 *   - faults in the two best tiers: the third is used and both failures are listed;
 *   - a fault in the one-call checks (gcm-msg, gcmsiv-short) of each usable tier, forced by
 *     AESFAST_KERNEL: loading is refused, naming the check (the fault reaches every tier's);
 *   - a fault in a tier forced by AESFAST_KERNEL or by the cnf key: loading is refused, with
 *     aesfast's error on the queue and one "aesfast: not loading: ..." line on stderr; a fault in
 *     another tier does not matter to a forced one;
 *   - a fault in every tier: loading fails, with the error and the stderr line.
 *
 *   selftest_test MODULE_PATH
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include "check.h"
#include "testutil.h"
#include "dispatch.h"

static const char *module_path;
static char log_path[] = "/tmp/aesfast-selftest-test-XXXXXX";
static int saved_stderr = -1;

/* The module's stderr (debug log, refusal lines) goes to log_path until capture_end(). */
static void capture_begin(void)
{
    fflush(stderr);
    saved_stderr = dup(2);
    FILE *f = fopen(log_path, "w");
    if (f == NULL || saved_stderr < 0) {
        perror("selftest_test");
        exit(1);
    }
    dup2(fileno(f), 2);
    fclose(f);
}

/* Restores stderr; returns what was captured (static buffer), and echoes it indented. */
static const char *capture_end(void)
{
    static char buf[16384];
    FILE *f;
    size_t n = 0;

    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    if ((f = fopen(log_path, "r")) != NULL) {
        n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
    }
    buf[n] = '\0';
    for (const char *p = buf; *p != '\0';) {
        const char *e = strchr(p, '\n');
        int len = e != NULL ? (int)(e - p) : (int)strlen(p);

        fprintf(stderr, "    | %.*s\n", len, p);
        p += len + (e != NULL);
    }
    return buf;
}

/* aesfast loaded from a fresh cnf (cnf_kernel: the "aesfast-kernel" key, or NULL), as users
 * load it; NULL if it did not load. */
static OSSL_LIB_CTX *load_cnf(const char *cnf_kernel)
{
    return tu_load_cnf(module_path, cnf_kernel);
}

static int error_mentions(const char *want)
{
    return tu_error_mentions(want);
}

typedef struct {
    char kernel[64], selftest[256];
    int status;
} prov_params;

static int find_aesfast(OSSL_PROVIDER *prov, void *arg)
{
    if (strcmp(OSSL_PROVIDER_get0_name(prov), "aesfast") == 0)
        *(OSSL_PROVIDER **)arg = prov;
    return 1;
}

static int get_prov_params(OSSL_LIB_CTX *libctx, prov_params *pp)
{
    OSSL_PROVIDER *prov = NULL;
    char *kernel = NULL, *selftest = NULL;
    OSSL_PARAM params[] = {
        OSSL_PARAM_utf8_ptr("aesfast-kernel", &kernel, 0),
        OSSL_PARAM_utf8_ptr("aesfast-selftest", &selftest, 0),
        OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, &pp->status),
        OSSL_PARAM_END,
    };

    memset(pp, 0, sizeof(*pp));
    OSSL_PROVIDER_do_all(libctx, find_aesfast, &prov);
    if (prov == NULL || !OSSL_PROVIDER_get_params(prov, params) || kernel == NULL
        || selftest == NULL)
        return 0;
    snprintf(pp->kernel, sizeof(pp->kernel), "%s", kernel);
    snprintf(pp->selftest, sizeof(pp->selftest), "%s", selftest);
    return 1;
}

/* ---- The ciphers after a fallback, next to the default provider ---------------------------- */

static EVP_CIPHER *fetch(OSSL_LIB_CTX *libctx, const char *alg, const char *prov)
{
    char q[64];
    EVP_CIPHER *c;

    snprintf(q, sizeof(q), "provider=%s", prov);
    c = EVP_CIPHER_fetch(libctx, alg, q);
    if (c != NULL && strcmp(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c)), prov) != 0) {
        EVP_CIPHER_free(c);
        c = NULL;
    }
    ERR_clear_error();
    return c;
}

/* One AEAD seal (tag != NULL) or CTR encryption; 1 on success. */
static int seal(EVP_CIPHER *c, const uint8_t *key, const uint8_t *iv, const uint8_t *aad,
                size_t aadlen, const uint8_t *in, size_t len, uint8_t *out, uint8_t *tag)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int n = 0, m = 0, ok = ctx != NULL && EVP_EncryptInit_ex2(ctx, c, key, iv, NULL);

    if (ok && aadlen > 0)
        ok = EVP_EncryptUpdate(ctx, NULL, &n, aad, (int)aadlen);
    ok = ok && EVP_EncryptUpdate(ctx, out, &n, in, (int)len)
         && EVP_EncryptFinal_ex(ctx, out + n, &m) && (size_t)(n + m) == len;
    if (ok && tag != NULL)
        ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0;
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

/* One AEAD open; 1 if the tag verified and the length is right. */
static int open_(EVP_CIPHER *c, const uint8_t *key, const uint8_t *iv, const uint8_t *aad,
                 size_t aadlen, const uint8_t *in, size_t len, const uint8_t *tag, uint8_t *out)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int n = 0, m = 0, ok = ctx != NULL && EVP_DecryptInit_ex2(ctx, c, key, iv, NULL)
                           && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, (void *)tag) > 0;

    if (ok && aadlen > 0)
        ok = EVP_DecryptUpdate(ctx, NULL, &n, aad, (int)aadlen);
    ok = ok && EVP_DecryptUpdate(ctx, out, &n, in, (int)len)
         && EVP_DecryptFinal_ex(ctx, out + n, &m) && (size_t)(n + m) == len;
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

/* The ciphers of the aesfast in libctx against the default provider (the default library
 * context, where this program never loads aesfast), on data long enough for the bulk loops. */
static void check_ciphers(OSSL_LIB_CTX *libctx, const char *kernel)
{
    static const char *algs[] = {"AES-128-GCM", "AES-256-GCM", "AES-256-CTR", "AES-256-GCM-SIV"};
    uint8_t key[32], iv[16], aad[37], pt[1000], a[1000], b[1000], back[1000], ta[16], tb[16];

    for (size_t i = 0; i < sizeof(key); i++)
        key[i] = (uint8_t)(i * 7 + 1);
    for (size_t i = 0; i < sizeof(iv); i++)
        iv[i] = (uint8_t)(0xa0 + i);
    for (size_t i = 0; i < sizeof(aad); i++)
        aad[i] = (uint8_t)(i * 13);
    for (size_t i = 0; i < sizeof(pt); i++)
        pt[i] = (uint8_t)(i * 31 + (i >> 8));

    for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++) {
        int aead = strstr(algs[i], "GCM") != NULL;
        EVP_CIPHER *mine = fetch(libctx, algs[i], "aesfast");
        EVP_CIPHER *ref = fetch(NULL, algs[i], "default");

        CHECK(mine != NULL, "%s: not fetched from aesfast on kernel %s", algs[i], kernel);
        if (mine == NULL)
            continue;
        if (ref == NULL) { /* OpenSSL 3.0 has no GCM-SIV: the round trip here, RFC 8452 below */
            printf("  %s: no default-provider reference in this libcrypto\n", algs[i]);
            CHECK(seal(mine, key, iv, aad, sizeof(aad), pt, sizeof(pt), a, ta)
                      && open_(mine, key, iv, aad, sizeof(aad), a, sizeof(a), ta, back)
                      && memcmp(back, pt, sizeof(pt)) == 0,
                  "%s round trip on kernel %s", algs[i], kernel);
            EVP_CIPHER_free(mine);
            continue;
        }
        int ok = seal(mine, key, iv, aad, aead ? sizeof(aad) : 0, pt, sizeof(pt), a,
                      aead ? ta : NULL)
                 && seal(ref, key, iv, aad, aead ? sizeof(aad) : 0, pt, sizeof(pt), b,
                         aead ? tb : NULL);
        CHECK(ok && memcmp(a, b, sizeof(a)) == 0 && (!aead || memcmp(ta, tb, 16) == 0),
              "%s on kernel %s differs from the default provider", algs[i], kernel);
        if (aead)
            CHECK(open_(mine, key, iv, aad, sizeof(aad), b, sizeof(b), tb, back)
                      && memcmp(back, pt, sizeof(pt)) == 0,
                  "%s on kernel %s does not open the default provider's output", algs[i],
                  kernel);
        printf("  %s on kernel %s: same as the default provider\n", algs[i], kernel);
        EVP_CIPHER_free(mine);
        EVP_CIPHER_free(ref);
    }

    /* RFC 8452 section 8's example (AES-128-GCM-SIV), whatever the libcrypto. */
    static const uint8_t k8[16] = {0xee, 0x8e, 0x1e, 0xd9, 0xff, 0x25, 0x40, 0xae,
                                   0x8f, 0x2b, 0xa9, 0xf5, 0x0b, 0xc2, 0xf2, 0x7c};
    static const uint8_t n8[12] = {0x75, 0x2a, 0xba, 0xd3, 0xe0, 0xaf,
                                   0xb5, 0xf4, 0x34, 0xdc, 0x43, 0x10};
    static const uint8_t c8[11] = {0x5d, 0x34, 0x9e, 0xad, 0x17, 0x5e,
                                   0xf6, 0xb1, 0xde, 0xf6, 0xfd};
    static const uint8_t t8[16] = {0x4f, 0xbc, 0xde, 0xb7, 0xe4, 0x79, 0x3f, 0x4a,
                                   0x1d, 0x7e, 0x4f, 0xaa, 0x70, 0x10, 0x0a, 0xf1};
    EVP_CIPHER *siv = fetch(libctx, "AES-128-GCM-SIV", "aesfast");
    CHECK(siv != NULL && seal(siv, k8, n8, (const uint8_t *)"example", 7,
                              (const uint8_t *)"Hello world", 11, a, ta)
              && memcmp(a, c8, sizeof(c8)) == 0 && memcmp(ta, t8, 16) == 0,
          "AES-128-GCM-SIV on kernel %s: not RFC 8452 section 8's ciphertext and tag", kernel);
    EVP_CIPHER_free(siv);
}

/* ---- The cases ---------------------------------------------------------------------------- */

static const aesfast_kernel *usable[16];
static size_t n_usable;

/* Runs fn with AESFAST_SELFTEST_FAULT=fault and AESFAST_KERNEL=forced (NULL: unset). Each case
 * loads the module into a library context of its own, so its init, and the self-test, run
 * again under the case's environment (the module reads both variables at every init; the
 * debug switch, once per process, is on for all). No fork: qemu-user here hangs in it. */
static void run_case(const char *title, const char *fault, const char *forced, void (*fn)(void))
{
    int passed = check_passed, failed = check_failed;

    printf("selftest_test: %s (AESFAST_SELFTEST_FAULT=%s%s%s)\n", title, fault ? fault : "",
           forced ? ", AESFAST_KERNEL=" : "", forced ? forced : "");
    fflush(stdout);
    if (fault != NULL)
        setenv("AESFAST_SELFTEST_FAULT", fault, 1);
    if (forced != NULL)
        setenv("AESFAST_KERNEL", forced, 1);
    ERR_clear_error();
    fn();
    unsetenv("AESFAST_SELFTEST_FAULT");
    unsetenv("AESFAST_KERNEL");
    printf("  %d checks passed, %d failed\n", check_passed - passed, check_failed - failed);
}

static void case_no_fault(void)
{
    prov_params pp;

    capture_begin();
    OSSL_LIB_CTX *libctx = load_cnf(NULL);
    const char *log = capture_end();
    CHECK(libctx != NULL && get_prov_params(libctx, &pp), "aesfast does not load");
    if (libctx == NULL)
        return;
    CHECK(strcmp(pp.kernel, usable[0]->name) == 0, "kernel %s, expected %s", pp.kernel,
          usable[0]->name);
    CHECK(strcmp(pp.selftest, "passed") == 0, "aesfast-selftest is \"%s\"", pp.selftest);
    CHECK(pp.status == 1, "status %d", pp.status);
    char want[128];
    snprintf(want, sizeof(want), "self-test of kernel %s: passed", usable[0]->name);
    CHECK(strstr(log, want) != NULL, "no \"%s\" in the debug log", want);
    OSSL_LIB_CTX_free(libctx);
}

static const char *fault_mode;

/* A fault in the best usable tier's test of fault_mode: the next usable tier is used. */
static void case_fallback(void)
{
    const char *best = usable[0]->name, *next = usable[1]->name;
    char want[256];
    prov_params pp;

    capture_begin();
    OSSL_LIB_CTX *libctx = load_cnf(NULL);
    const char *log = capture_end();
    CHECK(libctx != NULL && get_prov_params(libctx, &pp),
          "a fault in %s's %s test: aesfast did not load", best, fault_mode);
    if (libctx == NULL)
        return;
    CHECK(strcmp(pp.kernel, next) == 0, "aesfast-kernel is %s, expected the next tier %s",
          pp.kernel, next);
    snprintf(want, sizeof(want), "%s failed: %s; using %s", best, fault_mode, next);
    CHECK(strcmp(pp.selftest, want) == 0, "aesfast-selftest is \"%s\", expected \"%s\"",
          pp.selftest, want);
    CHECK(pp.status == 1, "status %d after a fallback", pp.status);
    snprintf(want, sizeof(want), "self-test of kernel %s: FAILED: %s (a fault injected", best,
             fault_mode);
    CHECK(strstr(log, want) != NULL, "no \"%s\" in the debug log", want);
    snprintf(want, sizeof(want), "kernel %s failed its self-test (%s): not using it", best,
             fault_mode);
    CHECK(strstr(log, want) != NULL, "no \"%s\" in the debug log", want);
    snprintf(want, sizeof(want), "self-test of kernel %s: passed", next);
    CHECK(strstr(log, want) != NULL, "no \"%s\" in the debug log", want);
    snprintf(want, sizeof(want), "kernel %s: the best tier this cpu runs that passes", next);
    CHECK(strstr(log, want) != NULL, "no \"%s\" in the debug log", want);
    printf("  aesfast-kernel = %s, aesfast-selftest = \"%s\", status = %d\n", pp.kernel,
           pp.selftest, pp.status);
    check_ciphers(libctx, pp.kernel);
    OSSL_LIB_CTX_free(libctx);
}

/* Faults in the two best tiers (gcm in the first, gcmsiv in the second): the third is used. */
static void case_two_fallbacks(void)
{
    char want[256];
    prov_params pp;

    capture_begin();
    OSSL_LIB_CTX *libctx = load_cnf(NULL);
    capture_end();
    CHECK(libctx != NULL && get_prov_params(libctx, &pp), "aesfast did not load");
    if (libctx == NULL)
        return;
    snprintf(want, sizeof(want), "%s failed: gcm; %s failed: gcmsiv; using %s", usable[0]->name,
             usable[1]->name, usable[2]->name);
    CHECK(strcmp(pp.kernel, usable[2]->name) == 0 && strcmp(pp.selftest, want) == 0,
          "kernel %s, aesfast-selftest \"%s\"; expected %s, \"%s\"", pp.kernel, pp.selftest,
          usable[2]->name, want);
    check_ciphers(libctx, pp.kernel);
    OSSL_LIB_CTX_free(libctx);
}

/* AESFAST_KERNEL names the best tier, whose gcm test fails: loading is refused. */
static void case_forced_env(void)
{
    char want[256];

    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    capture_begin();
    OSSL_PROVIDER *prov = OSSL_PROVIDER_load(libctx, module_path);
    const char *log = capture_end();
    CHECK(prov == NULL, "AESFAST_KERNEL=%s loaded although its self-test failed",
          usable[0]->name);
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(libctx);
    snprintf(want, sizeof(want), "aesfast: not loading: kernel AESFAST_KERNEL=%s failed its "
             "self-test: gcm (a fault injected by AESFAST_SELFTEST_FAULT)", usable[0]->name);
    CHECK(strstr(log, want) != NULL, "no \"%s\" on stderr", want);
    /* The reason's text is not registered for a provider whose init failed: the message is. */
    CHECK(error_mentions("failed its self-test: gcm"), "no \"failed its self-test\" error");
}

static const aesfast_kernel *forced_tier;

/* AESFAST_KERNEL names forced_tier, whose fault_mode test fails: loading is refused, naming
 * the mode (the injected fault reaches that tier's check). */
static void case_forced_mode(void)
{
    char want[256];

    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    capture_begin();
    OSSL_PROVIDER *prov = OSSL_PROVIDER_load(libctx, module_path);
    const char *log = capture_end();
    CHECK(prov == NULL, "AESFAST_KERNEL=%s loaded although its %s test failed", forced_tier->name,
          fault_mode);
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(libctx);
    snprintf(want, sizeof(want), "aesfast: not loading: kernel AESFAST_KERNEL=%s failed its "
             "self-test: %s (a fault injected", forced_tier->name, fault_mode);
    CHECK(strstr(log, want) != NULL, "no \"%s\" on stderr", want);
    ERR_clear_error();
}

/* The cnf key names the best tier, whose gcm test fails: loading is refused. */
static void case_forced_cnf(void)
{
    char want[256];

    capture_begin();
    OSSL_LIB_CTX *libctx = load_cnf(usable[0]->name);
    const char *log = capture_end();
    CHECK(libctx == NULL, "cnf aesfast-kernel = %s loaded although its self-test failed",
          usable[0]->name);
    OSSL_LIB_CTX_free(libctx);
    ERR_clear_error(); /* the config loader drops the provider's errors: hence the stderr line */
    snprintf(want, sizeof(want), "aesfast: not loading: kernel openssl.cnf aesfast-kernel=%s "
             "failed its self-test: gcm", usable[0]->name);
    CHECK(strstr(log, want) != NULL, "no \"%s\" on stderr", want);
}

/* A forced tier is not affected by a fault in another tier. */
static void case_forced_other(void)
{
    prov_params pp;

    capture_begin();
    OSSL_LIB_CTX *libctx = load_cnf(NULL);
    capture_end();
    CHECK(libctx != NULL && get_prov_params(libctx, &pp) && strcmp(pp.kernel, usable[0]->name) == 0
              && strcmp(pp.selftest, "passed") == 0,
          "forced %s with a fault in another tier: did not load as %s, passed",
          usable[0]->name, usable[0]->name);
    OSSL_LIB_CTX_free(libctx);
}

/* Every tier fails: no provider. */
static void case_all(void)
{
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    capture_begin();
    OSSL_PROVIDER *prov = OSSL_PROVIDER_load(libctx, module_path);
    const char *log = capture_end();
    CHECK(prov == NULL, "aesfast loaded with every tier's self-test failing");
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(libctx);
    CHECK(strstr(log, "aesfast: not loading: every tier this cpu runs failed its self-test (")
              != NULL,
          "no \"not loading: every tier ...\" line on stderr");
    for (size_t i = 0; i < n_usable; i++) {
        char want[96];

        snprintf(want, sizeof(want), "%s failed: ctr", usable[i]->name);
        CHECK(strstr(log, want) != NULL, "the refusal does not list \"%s\"", want);
    }
    CHECK(error_mentions("every tier this cpu runs failed its self-test"),
          "no \"every tier ... failed its self-test\" error");
}

int main(int argc, char **argv)
{
    static const char *modes[] = {"ctr", "gcm", "gcm-msg", "gcmsiv", "gcmsiv-short"};
    char fault[256];

    if (argc != 2) {
        fprintf(stderr, "usage: selftest_test MODULE_PATH\n");
        return 2;
    }
    module_path = argv[1];
    unsetenv("AESFAST_KERNEL");
    unsetenv("AESFAST_SELFTEST_FAULT");
    setenv("AESFAST_DEBUG", "1", 1);
    int fd = mkstemp(log_path);
    if (fd < 0) {
        perror("selftest_test");
        return 1;
    }
    close(fd);
    for (const aesfast_kernel *const *p = aesfast_kernels; *p != NULL; p++)
        if (aesfast_kernel_usable(*p, NULL, 0) && n_usable < 16)
            usable[n_usable++] = *p;
    printf("selftest_test: %zu usable tiers, best %s\n", n_usable, usable[0]->name);

    run_case("no fault", NULL, NULL, case_no_fault);
    if (n_usable >= 2) {
        for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
            char title[64];

            if (strcmp(modes[i], "gcmsiv-short") == 0 && usable[0]->gcmsiv_seal_short == NULL) {
                printf("selftest_test: %s has no GCM-SIV short kernels: no gcmsiv-short test to "
                       "fault\n", usable[0]->name);
                continue;
            }

            fault_mode = modes[i];
            snprintf(fault, sizeof(fault), "%s:%s", usable[0]->name, modes[i]);
            snprintf(title, sizeof(title), "a fault in %s's %s test", usable[0]->name, modes[i]);
            run_case(title, fault, NULL, case_fallback);
        }
    } else {
        printf("selftest_test: one usable tier (%s): no fallback to show\n", usable[0]->name);
    }
    if (n_usable >= 3) {
        snprintf(fault, sizeof(fault), "%s:gcm,%s:gcmsiv", usable[0]->name, usable[1]->name);
        run_case("faults in the two best tiers", fault, NULL, case_two_fallbacks);
    }
    /* The one-call checks on every usable tier, each forced: its fault refuses the load. */
    for (size_t t = 0; t < n_usable; t++) {
        for (size_t i = 0; i < 2; i++) {
            char title[96];

            fault_mode = i == 0 ? "gcm-msg" : "gcmsiv-short";
            if (i == 1 && usable[t]->gcmsiv_seal_short == NULL)
                continue;
            forced_tier = usable[t];
            snprintf(fault, sizeof(fault), "%s:%s", usable[t]->name, fault_mode);
            snprintf(title, sizeof(title), "a fault in %s's %s test, %s forced", usable[t]->name,
                     fault_mode, usable[t]->name);
            run_case(title, fault, usable[t]->name, case_forced_mode);
        }
    }
    snprintf(fault, sizeof(fault), "%s:gcm", usable[0]->name);
    run_case("a fault in the tier AESFAST_KERNEL forces", fault, usable[0]->name, case_forced_env);
    run_case("a fault in the tier the cnf forces", fault, NULL, case_forced_cnf);
    snprintf(fault, sizeof(fault), "%s:*", usable[n_usable - 1]->name);
    if (n_usable >= 2)
        run_case("a fault in another tier than the forced one", fault, usable[0]->name,
                 case_forced_other);
    run_case("a fault in every tier", "*:ctr", NULL, case_all);

    unlink(log_path);
    return check_summary("selftest_test");
}
