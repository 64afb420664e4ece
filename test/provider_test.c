/*
 * provider_test: the provider as a whole, loaded the way users load it, through openssl.cnf files
 * that this test writes (each into its own library context):
 *   - the provider parameters: name, version, buildinfo, status and "aesfast-kernel";
 *   - the tier override: "aesfast-kernel" in the cnf section and AESFAST_KERNEL in the
 *     environment (which wins) select each tier this CPU runs; a tier it cannot run, or an unknown
 *     name, makes loading fail with aesfast's error message, not a crash or a silent fallback;
 *   - a fetch with "provider=aesfast" returns aesfast's implementation;
 *   - the tier table itself (provider/dispatch.c): each compiled tier's function pointers are
 *     exactly the kernels its name promises, the tiers come best first, and the default choice
 *     is the first tier this CPU can run.
 *
 *   provider_test MODULE_PATH
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "check.h"
#include "testutil.h"
#include "dispatch.h"


static const char *module_path;

/* A library context with aesfast loaded by OSSL_PROVIDER_load from its path, no cnf: unlike the
 * config loader, this keeps the provider's errors on the queue when loading fails. */
static OSSL_LIB_CTX *load_direct(void)
{
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();

    if (libctx == NULL || OSSL_PROVIDER_load(libctx, module_path) == NULL) {
        OSSL_LIB_CTX_free(libctx);
        return NULL;
    }
    return libctx;
}

/* A library context configured from a fresh cnf that loads aesfast with the given cnf kernel
 * (NULL: no key). Returns NULL, with the errors left on the queue, when loading fails. */
static OSSL_LIB_CTX *load(const char *cnf_kernel)
{
    return tu_load_cnf(module_path, cnf_kernel);
}

static int find_aesfast(OSSL_PROVIDER *prov, void *arg)
{
    char *name = NULL;
    OSSL_PARAM params[] = {
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, &name, 0),
        OSSL_PARAM_END,
    };

    if (OSSL_PROVIDER_get_params(prov, params) && name != NULL && strcmp(name, "aesfast") == 0)
        *(OSSL_PROVIDER **)arg = prov;
    return 1;
}

/* The "aesfast-kernel" provider parameter of the aesfast loaded in libctx. */
static const char *kernel_of(OSSL_LIB_CTX *libctx)
{
    static char name[64];
    OSSL_PROVIDER *prov = NULL;

    /* The provider is already active in libctx: find it, by whichever name it was loaded. */
    OSSL_PROVIDER_do_all(libctx, find_aesfast, &prov);
    char *value = NULL;
    OSSL_PARAM params[] = {
        OSSL_PARAM_utf8_ptr("aesfast-kernel", &value, 0),
        OSSL_PARAM_END,
    };

    name[0] = '\0';
    if (prov != NULL && OSSL_PROVIDER_get_params(prov, params) && value != NULL)
        snprintf(name, sizeof(name), "%s", value);
    return name;
}

static int error_mentions(const char *want)
{
    return tu_error_mentions(want);
}

static void test_params(void)
{
    OSSL_LIB_CTX *libctx = load(NULL);
    CHECK(libctx != NULL, "aesfast does not load from a plain cnf");
    if (libctx == NULL) {
        ERR_print_errors_fp(stderr);
        return;
    }
    OSSL_PROVIDER *prov = OSSL_PROVIDER_load(libctx, "aesfast");
    char *name = NULL, *version = NULL, *buildinfo = NULL, *kernel = NULL;
    int status = 0;
    OSSL_PARAM params[] = {
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, &name, 0),
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, &version, 0),
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, &buildinfo, 0),
        OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, &status),
        OSSL_PARAM_utf8_ptr("aesfast-kernel", &kernel, 0),
        OSSL_PARAM_END,
    };
    CHECK(prov != NULL && OSSL_PROVIDER_get_params(prov, params), "get_params failed");
    CHECK(name != NULL && strcmp(name, "aesfast") == 0, "name is %s", name ? name : "(null)");
    CHECK(version != NULL && *version != '\0', "no version");
    CHECK(buildinfo != NULL && strstr(buildinfo, "kernels:") != NULL
              && strstr(buildinfo, "OpenSSL 3.") != NULL,
          "buildinfo lacks the kernels or the OpenSSL version: %s", buildinfo ? buildinfo : "");
    CHECK(status == 1, "status %d", status);
    CHECK(kernel != NULL && strcmp(kernel, aesfast_kernel_best()->name) == 0,
          "default kernel %s, expected the best tier %s", kernel ? kernel : "(null)",
          aesfast_kernel_best()->name);
    printf("provider_test: %s %s, kernel %s\n  buildinfo: %s\n", name, version, kernel,
           buildinfo);

    EVP_CIPHER *c = EVP_CIPHER_fetch(libctx, "AES-256-CTR", "provider=aesfast");
    CHECK(c != NULL && strcmp(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c)), "aesfast") == 0,
          "fetching AES-256-CTR with provider=aesfast did not give aesfast's");
    EVP_CIPHER_free(c);
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(libctx);
}

static void test_overrides(void)
{
    unsetenv("AESFAST_KERNEL");
    for (const aesfast_kernel *const *p = aesfast_kernels; *p != NULL; p++) {
        const char *tier = (*p)->name;
        char why[160];
        int usable = aesfast_kernel_usable(*p, why, sizeof(why));

        /* By openssl.cnf. */
        OSSL_LIB_CTX *libctx = load(tier);
        if (usable) {
            CHECK(libctx != NULL && strcmp(kernel_of(libctx), tier) == 0,
                  "cnf aesfast-kernel = %s: got %s", tier, libctx ? kernel_of(libctx) : "no load");
            printf("provider_test: cnf aesfast-kernel = %-12s -> loaded, kernel %s\n", tier,
                   libctx ? kernel_of(libctx) : "?");
        } else {
            CHECK(libctx == NULL, "cnf aesfast-kernel = %s loaded on a CPU that lacks it", tier);
            ERR_clear_error(); /* the config loader drops the provider's errors anyway */
            printf("provider_test: cnf aesfast-kernel = %-12s -> refused (%s)\n", tier, why);
        }
        OSSL_LIB_CTX_free(libctx);

        /* By the environment, which wins over the cnf. */
        setenv("AESFAST_KERNEL", tier, 1);
        libctx = load(usable ? "generic" : NULL);
        if (usable) {
            CHECK(libctx != NULL && strcmp(kernel_of(libctx), tier) == 0,
                  "AESFAST_KERNEL=%s over cnf generic: got %s", tier,
                  libctx ? kernel_of(libctx) : "no load");
        } else {
            CHECK(libctx == NULL, "AESFAST_KERNEL=%s loaded on a CPU that lacks it", tier);
            ERR_clear_error();
            OSSL_LIB_CTX_free(load_direct());
            CHECK(error_mentions("AESFAST_KERNEL="), "no clear error for AESFAST_KERNEL=%s", tier);
        }
        OSSL_LIB_CTX_free(libctx);
        unsetenv("AESFAST_KERNEL");
    }

    OSSL_LIB_CTX *libctx = load("no-such-tier");
    CHECK(libctx == NULL, "an unknown cnf kernel name loaded");
    ERR_clear_error();
    setenv("AESFAST_KERNEL", "no-such-tier", 1);
    libctx = load_direct();
    CHECK(libctx == NULL, "AESFAST_KERNEL=no-such-tier loaded");
    CHECK(error_mentions("unknown kernel"), "no clear error for an unknown kernel name");
    OSSL_LIB_CTX_free(libctx);

    setenv("AESFAST_KERNEL", "auto", 1);
    libctx = load(NULL);
    CHECK(libctx != NULL && strcmp(kernel_of(libctx), aesfast_kernel_best()->name) == 0,
          "AESFAST_KERNEL=auto did not pick the best tier");
    OSSL_LIB_CTX_free(libctx);
    unsetenv("AESFAST_KERNEL");
}

/*
 * The tier table, checked against an independent copy of what each name must mean (in the spirit
 * of BoringSSL's impl_dispatch_test): a tier wired to another tier's kernel, e.g. "vaes-avx2"
 * running the AES-NI CTR loop, still gives correct output, so only this test notices it. Listed
 * best first, as aesfast_kernels must be. The guards follow dispatch.c: the assembly tiers exist
 * only when the build has assembly (AESFAST_ASM) for this CPU family.
 */
static const struct expected_tier {
    const char *name;
    aesfast_set_key_fn *set_key;
    aesfast_encrypt_block_fn *encrypt_block;
    aesfast_ctr32_xor_fn *ctr32_xor;
    aesfast_aead_kernel gcm;
    aesfast_aead_kernel gcmsiv;
    aesfast_gcmsiv_derive_fn *gcmsiv_derive;
} expected_tiers[] = {
/* A tier's GCM table: aesfast_<init>_ghash_init, the short one (few, or NULL), then
 * aesfast_<fns>_ghash and the rest; its GCM-SIV table: aesfast_<init>_polyval_init, the short
 * one (few, or NULL), aesfast_<fns>_polyval, aesfast_<init>_ctr32le_xor and the stitched open;
 * the forms for a public counter NULL (GCM-SIV, and GCM where the tier has no other form) or
 * the tier's _pub ones (GCM_PUB); last the bytes the short table fills (FEW_512, FEW_256, or
 * none) and GCM's hash_init_rest. */
#define GCM_WITH(init, few, fns, ctr, pub_seal, pub_open, ...)                                 \
    {aesfast_##init##_ghash_init, few, aesfast_##fns##_ghash, ctr,                             \
     aesfast_##fns##_gcm_ctr_then_hash, aesfast_##fns##_gcm_hash_then_ctr, pub_seal, pub_open, \
     __VA_ARGS__}
#define GCM(init, fns, ctr) GCM_WITH(init, NULL, fns, ctr, NULL, NULL, NO_FEW)
#define GCM_PUB(init, few, fns, ctr, ...)                                                      \
    GCM_WITH(init, few, fns, ctr, aesfast_##fns##_gcm_ctr_then_hash_pub,                       \
             aesfast_##fns##_gcm_hash_then_ctr_pub, __VA_ARGS__)
#define GCMSIV(init, few, fns, ...)                                                            \
    {aesfast_##init##_polyval_init, few, aesfast_##fns##_polyval, aesfast_##init##_ctr32le_xor, \
     aesfast_##fns##_gcmsiv_ctr_then_hash, NULL, NULL, NULL, __VA_ARGS__}
/* The bytes kernels/amd64/gcm_vaes.S's short tables fill: H'^8..H'^1 and, 512-bit, the zeros
 * the tails read past them, 256-bit, their Karatsuba terms 256 bytes on. */
#define FEW_512 16 * 24, 512 + 64
#define FEW_256 16 * 8, 256 + 16 * 16
#define NO_FEW 0, 0, NULL
#if defined(__x86_64__) && defined(AESFAST_ASM)
    /* The VAES tiers reuse AES-NI's key schedule and single block; the loops are theirs. */
    {"vaes-avx512", aesfast_aesni_set_key, aesfast_aesni_encrypt_block,
     aesfast_vaes_avx512_ctr32_xor,
     GCM_PUB(vaes_avx512, aesfast_vaes_avx512_ghash_init_few, vaes_avx512,
             aesfast_vaes_avx512_ctr32_xor, FEW_512, aesfast_vaes_avx512_ghash_init_rest),
     GCMSIV(vaes_avx512, aesfast_vaes_avx512_polyval_init_few, vaes_avx512, FEW_512, NULL),
     aesfast_aesni_gcmsiv_derive},
    {"vaes-avx2", aesfast_aesni_set_key, aesfast_aesni_encrypt_block,
     aesfast_vaes_avx2_ctr32_xor,
     GCM_PUB(vaes_avx2, aesfast_vaes_avx2_ghash_init_few, vaes_avx2, aesfast_vaes_avx2_ctr32_xor,
             FEW_256, aesfast_vaes_avx2_ghash_init_rest),
     GCMSIV(vaes_avx2, aesfast_vaes_avx2_polyval_init_few, vaes_avx2, FEW_256, NULL),
     aesfast_aesni_gcmsiv_derive},
    {"aesni", aesfast_aesni_set_key, aesfast_aesni_encrypt_block, aesfast_aesni_ctr32_xor,
     GCM(aesni, aesni, aesfast_aesni_ctr32_xor),
     GCMSIV(aesni, NULL, aesni, NO_FEW), aesfast_aesni_gcmsiv_derive},
#endif
#if defined(__aarch64__) && defined(AESFAST_ASM)
    /* armv8-sha3 is armv8 with the EOR3 GHASH loops; the table layout (ghash_init) is shared. */
    {"armv8-sha3", aesfast_armv8_set_key, aesfast_armv8_encrypt_block, aesfast_armv8_ctr32_xor,
     GCM(armv8, armv8_sha3, aesfast_armv8_ctr32_xor),
     GCMSIV(armv8, NULL, armv8_sha3, NO_FEW), NULL},
    {"armv8", aesfast_armv8_set_key, aesfast_armv8_encrypt_block, aesfast_armv8_ctr32_xor,
     GCM(armv8, armv8, aesfast_armv8_ctr32_xor),
     GCMSIV(armv8, NULL, armv8, NO_FEW), NULL},
#endif
    {"generic", aesfast_generic_set_key, aesfast_generic_encrypt_block,
     aesfast_generic_ctr32_xor, GCM(generic, generic, aesfast_generic_ctr32_xor),
     GCMSIV(generic, NULL, generic, NO_FEW), NULL},
#undef GCM_WITH
#undef GCM
#undef GCM_PUB
#undef GCMSIV
#undef FEW_512
#undef FEW_256
#undef NO_FEW
};
#define N_EXPECTED (sizeof(expected_tiers) / sizeof(expected_tiers[0]))

static void test_dispatch(void)
{
    const aesfast_kernel *best = aesfast_kernel_best(), *first_usable = NULL;
    size_t n = 0;

    for (const aesfast_kernel *const *p = aesfast_kernels; *p != NULL; p++, n++) {
        const aesfast_kernel *k = *p;
        const struct expected_tier *e = NULL;

        for (size_t i = 0; i < N_EXPECTED; i++)
            if (strcmp(expected_tiers[i].name, k->name) == 0)
                e = &expected_tiers[i];
        CHECK(e != NULL, "compiled tier \"%s\" is not in the test's table of expected kernels",
              k->name);
        if (e != NULL) {
            CHECK(k->set_key == e->set_key, "tier %s: set_key is not the expected function",
                  k->name);
            CHECK(k->encrypt_block == e->encrypt_block,
                  "tier %s: encrypt_block is not the expected function", k->name);
            CHECK(k->ctr32_xor == e->ctr32_xor, "tier %s: ctr32_xor is not the expected function",
                  k->name);
            CHECK(memcmp(&k->gcm, &e->gcm, sizeof(e->gcm)) == 0,
                  "tier %s: the GCM kernels are not the expected functions", k->name);
            CHECK(memcmp(&k->gcmsiv, &e->gcmsiv, sizeof(e->gcmsiv)) == 0 &&
                      k->gcmsiv_derive == e->gcmsiv_derive,
                  "tier %s: the GCM-SIV kernels are not the expected functions", k->name);
        }
        /* Same order as the table: best first, so "the first usable" is "the best usable". */
        CHECK(n < N_EXPECTED && strcmp(k->name, expected_tiers[n].name) == 0,
              "aesfast_kernels[%zu] is %s, expected %s", n, k->name,
              n < N_EXPECTED ? expected_tiers[n].name : "(end of list)");
        CHECK(aesfast_kernel_by_name(k->name) == k, "aesfast_kernel_by_name(%s) finds another "
              "table", k->name);
        if (first_usable == NULL && aesfast_kernel_usable(k, NULL, 0)
            && aesfast_kernel_preferred(k, NULL, 0))
            first_usable = k;
        printf("provider_test: tier %-12s %s\n", k->name,
               aesfast_kernel_usable(k, NULL, 0) ? "usable" : "not usable on this cpu");
    }
    /* Every tier the table expects for this build is compiled in, and the list ends with the
     * portable one, which every CPU runs. */
    CHECK(n == N_EXPECTED, "%zu tiers compiled, the test expects %zu", n, N_EXPECTED);
    CHECK(n > 0 && strcmp(aesfast_kernels[n - 1]->name, "generic") == 0,
          "aesfast_kernels does not end with generic");
    CHECK(aesfast_kernel_by_name("no-such-tier") == NULL, "an unknown tier name was found");
    CHECK(first_usable != NULL && best == first_usable,
          "best tier %s, but the first usable and preferred tier in aesfast_kernels is %s",
          best ? best->name : "(null)", first_usable ? first_usable->name : "(none)");
}

/* CPUID leaf 1 EAX for a family and model, in the split encoding of the extended fields. */
static uint32_t cpuid_signature(unsigned family, unsigned model, unsigned stepping)
{
    unsigned base = family < 0xf ? family : 0xf;

    return (family >= 0xf ? (family - 0xf) << 20 : 0) | (model >> 4) << 16 | base << 8
         | (model & 0xf) << 4 | stepping;
}

/* The automatic choice passes over the 512-bit tier exactly on the Intel models that lower their
 * clock for zmm code (Linux's PREFER_YMM list), whatever the stepping, and on nothing else. */
static void test_zmm_policy(void)
{
    static const struct {
        const char *vendor, *what;
        unsigned family, model;
        int avoid;
    } cases[] = {
        {"GenuineIntel", "Skylake-SP / Cascade Lake", 6, 0x55, 1},
        {"GenuineIntel", "Ice Lake-SP", 6, 0x6a, 1},
        {"GenuineIntel", "Ice Lake-D", 6, 0x6c, 1},
        {"GenuineIntel", "Ice Lake (client)", 6, 0x7d, 1},
        {"GenuineIntel", "Ice Lake (mobile)", 6, 0x7e, 1},
        {"GenuineIntel", "Ice Lake NNPI", 6, 0x9d, 1},
        {"GenuineIntel", "Tiger Lake (mobile)", 6, 0x8c, 1},
        {"GenuineIntel", "Tiger Lake (client)", 6, 0x8d, 1},
        {"GenuineIntel", "Rocket Lake", 6, 0xa7, 0},
        {"GenuineIntel", "Sapphire Rapids", 6, 0x8f, 0},
        {"GenuineIntel", "Emerald Rapids", 6, 0xcf, 0},
        {"GenuineIntel", "Granite Rapids", 6, 0xad, 0},
        {"GenuineIntel", "Alder Lake", 6, 0x97, 0},
        {"GenuineIntel", "model 0x0d (the low nibble of 0x7d, no extended model)", 6, 0x0d, 0},
        {"GenuineIntel", "family 15 with Ice Lake's model number", 0xf, 0x6a, 0},
        {"GenuineIntel", "family 19 (Diamond Rapids class)", 0x13, 0x01, 0},
        {"AuthenticAMD", "Zen 4", 0x19, 0x11, 0},
        {"AuthenticAMD", "Zen 5", 0x1a, 0x02, 0},
        {"AuthenticAMD", "family 6 model 0x6a (not Intel)", 6, 0x6a, 0},
        {"HygonGenuine", "Hygon, Intel's model number", 6, 0x7e, 0},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        for (unsigned stepping = 0; stepping < 16; stepping += 5) {
            uint32_t eax = cpuid_signature(cases[i].family, cases[i].model, stepping);
            CHECK(aesfast_cpu_avoids_zmm(cases[i].vendor, eax) == cases[i].avoid,
                  "zmm policy: %s %s (family %#x model %#x, CPUID.1:EAX %#x): expected %s",
                  cases[i].vendor, cases[i].what, cases[i].family, cases[i].model, eax,
                  cases[i].avoid ? "vaes-avx2" : "the 512-bit tier allowed");
        }
#if defined(__x86_64__) && defined(AESFAST_ASM)
    /* And this CPU: the tier table's preference follows the same answer. */
    unsigned a, b, c, d;
    char vendor[12], why[160];
    const aesfast_kernel *zmm = aesfast_kernel_by_name("vaes-avx512");

    __cpuid(0, a, b, c, d);
    memcpy(vendor, &b, 4);
    memcpy(vendor + 4, &d, 4);
    memcpy(vendor + 8, &c, 4);
    __cpuid(1, a, b, c, d);
    int avoid = aesfast_cpu_avoids_zmm(vendor, a);
    CHECK(zmm != NULL && aesfast_kernel_preferred(zmm, why, sizeof(why)) == !avoid,
          "zmm policy: this CPU (%.12s, CPUID.1:EAX %#x) should %s vaes-avx512", vendor, a,
          avoid ? "pass over" : "prefer");
    CHECK(aesfast_kernel_preferred(aesfast_kernel_by_name("vaes-avx2"), NULL, 0),
          "zmm policy: vaes-avx2 is never passed over");
    printf("provider_test: this cpu (%.12s, family/model/stepping %#x): vaes-avx512 %s\n",
           vendor, a, avoid ? "passed over for vaes-avx2" : "allowed");
#endif
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: provider_test MODULE_PATH\n");
        return 2;
    }
    module_path = argv[1];
    test_dispatch();
    test_zmm_policy();
    test_params();
    test_overrides();
    return check_summary("provider_test");
}
