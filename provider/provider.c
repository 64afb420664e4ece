/*
 * The provider entry point (aesfast_provider_init, which aesfast.so exports as OSSL_provider_init),
 * provider parameters, the algorithm table and the choice of kernel tier for this instance.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <dlfcn.h>
#ifdef __GLIBC__
#include <link.h> /* ElfW */
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include "aesfast.h"
#include "aesfast_provider.h"
#include "dispatch.h"
#include "selftest.h"
#include "version.h"

#define AESFAST_PROPS "provider=aesfast"

/* Names as in OpenSSL's default provider (providers/implementations/include/prov/names.h). */
static const OSSL_ALGORITHM aesfast_ciphers[] = {
    {"AES-128-CTR", AESFAST_PROPS, aesfast_aes128ctr_functions, "AES-128 in counter mode"},
    {"AES-192-CTR", AESFAST_PROPS, aesfast_aes192ctr_functions, "AES-192 in counter mode"},
    {"AES-256-CTR", AESFAST_PROPS, aesfast_aes256ctr_functions, "AES-256 in counter mode"},
    {"AES-128-GCM:id-aes128-GCM:2.16.840.1.101.3.4.1.6", AESFAST_PROPS,
     aesfast_aes128gcm_functions, "AES-128 in Galois/counter mode"},
    {"AES-192-GCM:id-aes192-GCM:2.16.840.1.101.3.4.1.26", AESFAST_PROPS,
     aesfast_aes192gcm_functions, "AES-192 in Galois/counter mode"},
    {"AES-256-GCM:id-aes256-GCM:2.16.840.1.101.3.4.1.46", AESFAST_PROPS,
     aesfast_aes256gcm_functions, "AES-256 in Galois/counter mode"},
    {"AES-128-GCM-SIV", AESFAST_PROPS, aesfast_aes128gcmsiv_functions,
     "AES-128 in GCM-SIV mode (RFC 8452)"},
    {"AES-192-GCM-SIV", AESFAST_PROPS, aesfast_aes192gcmsiv_functions,
     "AES-192 in GCM-SIV mode"},
    {"AES-256-GCM-SIV", AESFAST_PROPS, aesfast_aes256gcmsiv_functions,
     "AES-256 in GCM-SIV mode (RFC 8452)"},
    {NULL, NULL, NULL, NULL},
};

/* The name of this provider's parameter (and openssl.cnf key) for the kernel tier. */
#define PARAM_KERNEL "aesfast-kernel"
/* The outcome of the power-on self-test: "passed", or which tiers failed it and the one used. */
#define PARAM_SELFTEST "aesfast-selftest"

static const OSSL_PARAM *gettable_params(void *provctx)
{
    static const OSSL_PARAM params[] = {
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, NULL, 0),
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, NULL, 0),
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, NULL, 0),
        OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, NULL),
        OSSL_PARAM_utf8_ptr(PARAM_KERNEL, NULL, 0),
        OSSL_PARAM_utf8_ptr(PARAM_SELFTEST, NULL, 0),
        OSSL_PARAM_END,
    };

    (void)provctx;
    return params;
}

static int get_params(void *provctx, OSSL_PARAM params[])
{
    const aesfast_prov *prov = provctx;
    const struct {
        const char *key, *value;
    } strings[] = {
        {OSSL_PROV_PARAM_NAME, "aesfast"},
        {OSSL_PROV_PARAM_VERSION, AESFAST_VERSION},
        {OSSL_PROV_PARAM_BUILDINFO, AESFAST_BUILDINFO},
        {PARAM_KERNEL, prov->kernel->name},
        {PARAM_SELFTEST, prov->selftest},
    };
    OSSL_PARAM *p;

    for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
        if ((p = OSSL_PARAM_locate(params, strings[i].key)) != NULL
            && !OSSL_PARAM_set_utf8_ptr(p, strings[i].value))
            goto cannot_return;
    /* 1 whenever the provider is loaded: a tier that failed its self-test is never in use (the
     * fallback tier passed its own), and with no tier passing the provider does not load. */
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS)) != NULL
        && !OSSL_PARAM_set_int(p, 1))
        goto cannot_return;
    return 1;

cannot_return:
    AESFAST_RAISE(prov, AESFAST_R_BAD_PARAMETER_VALUE,
                  "cannot return provider parameter \"%s\" in the type given", p->key);
    return 0;
}

static const OSSL_ALGORITHM *query_operation(void *provctx, int operation_id, int *no_cache)
{
    (void)provctx;
    *no_cache = 0;
    return operation_id == OSSL_OP_CIPHER ? aesfast_ciphers : NULL;
}

/*
 * The child library context (prov->libctx) belongs to the libcrypto this module calls, which is
 * not always the one that loads it. A program linked with libcrypto.a that loads aesfast.so has
 * two copies: its own, whose core calls us, and libcrypto.so, which the child lives in. Each
 * copy runs its OPENSSL_cleanup from atexit, in the reverse order of their first initialisation:
 * the module's copy is initialised after the program's (by the child, at the latest by the first
 * random IV), so it would clean up first, and the program's cleanup, which calls teardown, would
 * then free the child on a library that no longer has its locks (a crash at exit).
 *
 * So, with two copies only (own_libcrypto): init asks the module's copy for no exit handler
 * (OPENSSL_INIT_NO_ATEXIT; effective if nothing has initialised that copy yet). It then stays
 * up until the process ends, and the program's cleanup, which also calls the child's callbacks
 * as it removes its providers, frees the child through teardown, as with one copy. If something
 * initialised that copy first, its handler may already have run when teardown comes:
 * OPENSSL_init_crypto returns 0 at once for a copy that has been cleaned up (3.0 to 4.0; the
 * error it raises is dropped there too), and the child is then left as it is (the process is
 * exiting: a leak at exit, where a crash was). On a live copy the same call does nothing: its
 * exit handler was settled when it was first initialised. With one copy, nothing changes: the
 * application's exit cleanup is its own, and teardown, which runs inside that cleanup (where the
 * same call would already return 0), always frees the child.
 */

/* 1 if the core's upcall and this module's OPENSSL_init_crypto (as the loader resolved it for
 * us: a program that exports libcrypto's symbols interposes them) are in different objects. A
 * program built without PIE that takes libcrypto's function's address makes that address a stub
 * of its own (an undefined symbol with a value): the code is elsewhere, so that says nothing. */
static int own_libcrypto(OSSL_FUNC_core_get_params_fn *upcall)
{
    int (*init)(uint64_t, const OPENSSL_INIT_SETTINGS *) = OPENSSL_init_crypto;
    Dl_info core, own;
    void *a, *b;

    memcpy(&a, &upcall, sizeof(a));
    memcpy(&b, &init, sizeof(b));
    if (upcall == NULL || !dladdr(a, &core))
        return 0; /* cannot tell (a fully static program): one copy, as such a program has */
#ifdef __GLIBC__
    const ElfW(Sym) *sym = NULL;

    if (!dladdr1(b, &own, (void **)&sym, RTLD_DL_SYMENT) || sym == NULL
        || sym->st_shndx == SHN_UNDEF)
        return 0;
#else
    if (!dladdr(b, &own))
        return 0;
#endif
    return core.dli_fbase != own.dli_fbase;
}

static void teardown(void *provctx)
{
    aesfast_prov *prov = provctx;

    if (prov->own_libcrypto && !OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL))
        aesfast_debug("teardown: this module's libcrypto has already been cleaned up: its "
                      "child library context is left to the process's exit");
    else
        OSSL_LIB_CTX_free(prov->libctx);
    OPENSSL_free(prov);
}

static const OSSL_DISPATCH provider_functions[] = {
    {OSSL_FUNC_PROVIDER_TEARDOWN, (void (*)(void))teardown},
    {OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, (void (*)(void))gettable_params},
    {OSSL_FUNC_PROVIDER_GET_PARAMS, (void (*)(void))get_params},
    {OSSL_FUNC_PROVIDER_QUERY_OPERATION, (void (*)(void))query_operation},
    {OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, (void (*)(void))aesfast_reason_strings},
    OSSL_DISPATCH_END,
};

/*
 * Refuses to load: raises the error, and also prints it, since OpenSSL's config loader (3.0 to
 * 3.5 at least) drops the error queue of a provider that fails to activate from openssl.cnf,
 * which would leave the user with a provider that silently is not there.
 */
__attribute__((format(printf, 6, 7)))
static void refuse_at(const char *file, int line, const char *func, const OSSL_CORE_HANDLE *handle,
                      int reason, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "aesfast: not loading: %s\n", msg);
    aesfast_raise_handle(handle, file, line, func, reason, "%s", msg);
}
#define refuse(...) refuse_at(OPENSSL_FILE, OPENSSL_LINE, OPENSSL_FUNC, __VA_ARGS__)

/*
 * Picks the tier: AESFAST_KERNEL in the environment, else "aesfast-kernel" in the provider's
 * openssl.cnf section, else the best the CPU can run ("auto" says so explicitly). A named tier
 * that is not compiled in, or that this CPU cannot run, is an error: the provider then fails to
 * load instead of quietly running something other than what the user asked for.
 *
 * Then the tier's power-on self-test (selftest.c) runs. Chosen automatically, a tier that fails
 * it is passed over for the next usable tier in aesfast_kernels (best first, generic last) that
 * passes; st says what happened, for the "aesfast-selftest" parameter, and the debug log says it
 * too. A named tier that fails is an error, as an unavailable one is: the user asked for exactly
 * that tier. With no tier passing, the provider does not load.
 */
static const aesfast_kernel *choose_kernel(const OSSL_CORE_HANDLE *handle, const char *cnf_value,
                                           char *st, size_t stlen)
{
    const char *env = aesfast_getenv("AESFAST_KERNEL");
    const char *want = env != NULL && *env != '\0' ? env : cnf_value;
    const char *source = want == env ? "AESFAST_KERNEL" : "openssl.cnf " PARAM_KERNEL;
    const aesfast_kernel *k;
    char cpu[160], why[160], modes[64];
    unsigned failed;
    long ns;
    int injected;

    aesfast_cpu_describe(cpu, sizeof(cpu));
    aesfast_debug("cpu features: %s", cpu);
    if (want == NULL || *want == '\0' || strcmp(want, "auto") == 0) {
        size_t used = 0;

        st[0] = '\0';
        for (const aesfast_kernel *const *p = aesfast_kernels; *p != NULL; p++) {
            if (!aesfast_kernel_usable(*p, NULL, 0))
                continue;
            if (!aesfast_kernel_preferred(*p, why, sizeof(why))) {
                aesfast_debug("kernel %s: passed over: %s", (*p)->name, why);
                continue;
            }
            if ((failed = aesfast_selftest(*p, &ns, &injected)) == 0) {
                if (used == 0) {
                    snprintf(st, stlen, "passed");
                    aesfast_debug("kernel %s: the best tier this cpu runs", (*p)->name);
                } else {
                    snprintf(st + used, stlen - used, "; using %s", (*p)->name);
                    aesfast_debug("kernel %s: the best tier this cpu runs that passes its "
                                  "self-test (%s)", (*p)->name, st);
                }
                return *p;
            }
            aesfast_selftest_modes(failed, modes, sizeof(modes));
            aesfast_debug("kernel %s failed its self-test (%s): not using it, trying the next "
                          "tier", (*p)->name, modes);
            if (used < stlen) {
                int w = snprintf(st + used, stlen - used, "%s%s failed: %s", used ? "; " : "",
                                 (*p)->name, modes);
                if (w > 0)
                    used += (size_t)w < stlen - used ? (size_t)w : stlen - used - 1;
            }
        }
        refuse(handle, AESFAST_R_SELFTEST_FAILED,
               "every tier this cpu runs failed its self-test (%s)", st);
        return NULL;
    }
    k = aesfast_kernel_by_name(want);
    if (k == NULL) {
        char known[160] = "";

        for (const aesfast_kernel *const *p = aesfast_kernels; *p != NULL; p++) {
            strncat(known, " ", sizeof(known) - strlen(known) - 1);
            strncat(known, (*p)->name, sizeof(known) - strlen(known) - 1);
        }
        refuse(handle, AESFAST_R_KERNEL_UNKNOWN,
               "unknown kernel %s=%s (this build knows: auto%s)", source, want, known);
        return NULL;
    }
    if (!aesfast_kernel_usable(k, why, sizeof(why))) {
        refuse(handle, AESFAST_R_KERNEL_UNAVAILABLE, "kernel %s=%s is not available: %s", source,
               want, why);
        return NULL;
    }
    if ((failed = aesfast_selftest(k, &ns, &injected)) != 0) {
        aesfast_selftest_modes(failed, modes, sizeof(modes));
        refuse(handle, AESFAST_R_SELFTEST_FAILED, "kernel %s=%s failed its self-test: %s%s",
               source, want, modes,
               injected ? " (a fault injected by AESFAST_SELFTEST_FAULT)" : "");
        return NULL;
    }
    snprintf(st, stlen, "passed");
    aesfast_debug("kernel %s: forced by %s", k->name, source);
    return k;
}

/*
 * The entry point. Its two names have default visibility, all else is hidden (-fvisibility=hidden):
 * aesfast.so exports only OSSL_provider_init (aesfast.map); libaesfast.a keeps only
 * aesfast_provider_init global, for OSSL_PROVIDER_add_builtin (provider/static-archive.sh).
 */
__attribute__((visibility("default")))
int aesfast_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
                          const OSSL_DISPATCH **out, void **provctx)
{
    OSSL_FUNC_core_get_params_fn *core_get_params = NULL;
    const char *cnf_kernel = NULL, *core_version = NULL;
    aesfast_prov *prov;

    aesfast_errors_init(in);
    for (const OSSL_DISPATCH *d = in; d->function_id != 0; d++)
        if (d->function_id == OSSL_FUNC_CORE_GET_PARAMS)
            core_get_params = OSSL_FUNC_core_get_params(d);
    if (core_get_params != NULL) {
        /* Keys of the provider's openssl.cnf section arrive as core parameters, and so does
         * the version of the libcrypto that loads us. */
        OSSL_PARAM params[] = {
            OSSL_PARAM_utf8_ptr(PARAM_KERNEL, (char **)&cnf_kernel, 0),
            OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_CORE_VERSION, (char **)&core_version, 0),
            OSSL_PARAM_END,
        };
        if (!core_get_params(handle, params))
            cnf_kernel = core_version = NULL;
    }

    char st[sizeof(prov->selftest)];
    const aesfast_kernel *k = choose_kernel(handle, cnf_kernel, st, sizeof(st));
    if (k == NULL)
        return 0;
    if ((prov = OPENSSL_zalloc(sizeof(*prov))) == NULL) {
        aesfast_raise_handle(handle, OPENSSL_FILE, OPENSSL_LINE, OPENSSL_FUNC,
                             AESFAST_R_OUT_OF_MEMORY, "provider context");
        return 0;
    }
    prov->own_libcrypto = own_libcrypto(core_get_params);
    if (prov->own_libcrypto) {
        aesfast_debug("the libcrypto this module links is not the one that loads it: no exit "
                      "handler for it (see teardown)");
        OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
    }
    /* The application's library context, followed as a child: random IVs come from the random
     * source its providers give it (RAND_bytes_ex), not from the process's default context.
     * Its generator must not run on aesfast's own AES-CTR: the generator lives until aesfast's
     * teardown frees the child, and a cipher of aesfast's in it would hold aesfast, whose
     * teardown would then never come (OpenSSL 3.0 keeps it so at exit; a leak). */
    if ((prov->libctx = OSSL_LIB_CTX_new_child(handle, in)) == NULL
        || !RAND_set_DRBG_type(prov->libctx, NULL, "provider!=aesfast", NULL, NULL)) {
        aesfast_raise_handle(handle, OPENSSL_FILE, OPENSSL_LINE, OPENSSL_FUNC,
                             AESFAST_R_OUT_OF_MEMORY, "a child library context");
        OSSL_LIB_CTX_free(prov->libctx);
        OPENSSL_free(prov);
        return 0;
    }
    prov->handle = handle;
    prov->kernel = k;
    prov->libcrypto_major = core_version != NULL ? atoi(core_version) : 3;
    memcpy(prov->selftest, st, sizeof(st));
    *provctx = prov;
    *out = provider_functions;
    return 1;
}

/* The name OpenSSL looks up in a loadable module: the same function, not a wrapper. */
extern __typeof__(aesfast_provider_init) OSSL_provider_init
    __attribute__((alias("aesfast_provider_init"), visibility("default")));
