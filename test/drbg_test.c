/*
 * drbg_test: OpenSSL's CTR-DRBG (SP 800-90A, the generator behind RAND_bytes) on aesfast's
 * AES-CTR, deterministically, next to the same DRBG on the default provider's.
 *
 * Two library contexts: "ref" with the default provider alone, and "fast" with default and
 * aesfast active and "?provider=aesfast" as its default properties (what the drop-in cnf sets).
 * In each, an EVP_RAND "CTR-DRBG" on a "TEST-RAND" parent that hands out fixed entropy and a
 * fixed nonce runs the same script: AES-128/192/256-CTR, with and without the derivation
 * function; instantiate with a personalisation string; generate with and without additional
 * input, in several lengths; reseed with and without additional input; generate with
 * prediction resistance (fresh entropy from the parent each time). The outputs must agree byte
 * for byte.
 *
 * Where the work ran: aesfast's debug log (AESFAST_DEBUG, a temporary file) gets a line
 * "AES-<bits>-CTR: key setup on kernel K" for every key the DRBG sets in aesfast's CTR. OpenSSL
 * before 3.5 fetches the DRBG's AES-CTR with the context's default properties, so the fast
 * context's script must log key setups of the key size it uses, and the ref context's none.
 * OpenSSL 3.5 changed the DRBGs to fetch from their own provider first (CHANGES.md, 3.5.0):
 * there the script must log none in either context; both cases are printed.
 *
 * Last, RAND_bytes itself: a library context configured from a generated cnf like
 * examples/aesfast-dropin.cnf, whose own DRBG draws 64 bytes; the test prints whether aesfast set a
 * key for it, and asserts the same split by version.
 *
 *   drbg_test MODULE [--expect-kernel TIER]   (MODULE: the path of aesfast.so)
 *     exit 0 pass, 1 fail
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include "check.h"
#include "testutil.h"

/* OpenSSL 3.5.0 moved the DRBGs' fetches onto their own provider. */
#define DRBG_OWN_PROVIDER_FROM 0x30500000UL

static char log_path[] = "/tmp/aesfast-drbg-log-XXXXXX";
static const char *kernel_expected;

/* Lines of the debug log after byte offset *pos that contain what; *pos moves to the end. */
static unsigned count_log(long *pos, const char *what)
{
    FILE *f = fopen(log_path, "r");
    char line[512], on[64];
    unsigned n = 0;

    if (f == NULL)
        tu_die("cannot read the debug log %s: %s", log_path, strerror(errno));
    snprintf(on, sizeof(on), "on kernel %s\n", kernel_expected ? kernel_expected : "");
    fseek(f, *pos, SEEK_SET);
    while (fgets(line, sizeof(line), f) != NULL) {
        if (strstr(line, what) != NULL && (kernel_expected == NULL || strstr(line, on) != NULL))
            n++;
    }
    *pos = ftell(f);
    fclose(f);
    return n;
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
    tu_rng r;

    tu_rng_seed(&r, seed, 18);
    tu_rng_fill(&r, p, n);
}

/* One run of the script, its outputs appended to out (at most cap bytes); their length, or 0
 * after a failure was reported. */
static size_t run_script(OSSL_LIB_CTX *libctx, const char *name, int bits, int df, uint8_t *out,
                         size_t cap)
{
    static uint8_t entropy[8192], nonce[16], pers[37], adin[41];
    char cipher[24];
    unsigned int strength = 256;
    int use_df = df;
    size_t n = 0;
    EVP_RAND *trand = EVP_RAND_fetch(libctx, "TEST-RAND", NULL);
    EVP_RAND *ctr = EVP_RAND_fetch(libctx, "CTR-DRBG", NULL);
    EVP_RAND_CTX *parent = NULL, *drbg = NULL;

    fill(entropy, sizeof(entropy), 1000 + bits + df);
    fill(nonce, sizeof(nonce), 2000 + bits);
    fill(pers, sizeof(pers), 3000);
    fill(adin, sizeof(adin), 4000);
    snprintf(cipher, sizeof(cipher), "AES-%d-CTR", bits);
    if (!CHECK(trand != NULL && ctr != NULL, "%s: no TEST-RAND or CTR-DRBG", name))
        goto done;
    parent = EVP_RAND_CTX_new(trand, NULL);
    OSSL_PARAM tp[] = {
        OSSL_PARAM_octet_string(OSSL_RAND_PARAM_TEST_ENTROPY, entropy, sizeof(entropy)),
        OSSL_PARAM_octet_string(OSSL_RAND_PARAM_TEST_NONCE, nonce, sizeof(nonce)),
        OSSL_PARAM_uint(OSSL_RAND_PARAM_STRENGTH, &strength),
        OSSL_PARAM_END,
    };
    if (!CHECK(parent != NULL && EVP_RAND_CTX_set_params(parent, tp)
               && EVP_RAND_instantiate(parent, strength, 0, NULL, 0, NULL),
               "%s: the TEST-RAND parent", name))
        goto done;
    drbg = EVP_RAND_CTX_new(ctr, parent);
    /* No "properties": the DRBG fetches its cipher as RAND_bytes's does, by the context's
     * default properties. */
    OSSL_PARAM dp[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_DRBG_PARAM_CIPHER, cipher, 0),
        OSSL_PARAM_construct_int(OSSL_DRBG_PARAM_USE_DF, &use_df),
        OSSL_PARAM_construct_end(),
    };
    if (!CHECK(drbg != NULL, "%s: a CTR-DRBG on the parent", name)
        || !CHECK(EVP_RAND_CTX_set_params(drbg, dp), "%s: CTR-DRBG with %s df=%d", name, cipher,
                  df))
        goto done;
    /* without the derivation function, personalisation and additional input are at most the
     * seed length, the key and a block: 32 bytes for AES-128 */
    if (!CHECK(EVP_RAND_instantiate(drbg, bits, 0, pers, df ? sizeof(pers) : 29, NULL),
               "%s: instantiate %s df=%d", name, cipher, df))
        goto done;

    /* generate (len, with adin?, prediction resistance?), reseeds between */
    static const struct { size_t len; int adin, pr, reseed; } steps[] = {
        {16, 0, 0, 0}, {1, 1, 0, 0}, {64, 0, 0, 0}, {33, 1, 0, 0}, {1000, 0, 0, 0},
        {17, 0, 0, 1}, {256, 1, 0, 2}, {48, 0, 1, 0}, {95, 1, 1, 0}, {4096, 0, 0, 0},
        {15, 1, 1, 2}, {65536, 1, 0, 0},
    };
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        if (steps[i].reseed != 0
            && !CHECK(EVP_RAND_reseed(drbg, 0, NULL, 0, steps[i].reseed == 2 ? adin : NULL,
                                      steps[i].reseed == 2 ? (df ? 38 : 32) : 0),
                      "%s: reseed %s df=%d step %zu", name, cipher, df, i))
            goto done;
        size_t len = steps[i].len;
        if (n + len > cap)
            tu_die("output buffer too small");
        /* EVP_RAND_generate splits requests above the DRBG's max_request itself */
        if (!CHECK(EVP_RAND_generate(drbg, out + n, len, bits, steps[i].pr,
                                     steps[i].adin ? adin : NULL,
                                     steps[i].adin ? (df ? sizeof(adin) - i : 16 + i) : 0),
                   "%s: generate %s df=%d step %zu", name, cipher, df, i))
            goto done;
        n += len;
    }
    EVP_RAND_CTX_free(drbg);
    EVP_RAND_CTX_free(parent);
    EVP_RAND_free(ctr);
    EVP_RAND_free(trand);
    return n;
done:
    ERR_print_errors_fp(stderr);
    EVP_RAND_CTX_free(drbg);
    EVP_RAND_CTX_free(parent);
    EVP_RAND_free(ctr);
    EVP_RAND_free(trand);
    return 0;
}

/* A library context configured like examples/aesfast-dropin.cnf: default and aesfast active,
 * "?provider=aesfast" as default properties. */
static OSSL_LIB_CTX *dropin_ctx(const char *module)
{
    char cnf[4096];
    OSSL_LIB_CTX *libctx;

    snprintf(cnf, sizeof(cnf),
             "openssl_conf = openssl_init\nconfig_diagnostics = 1\n"
             "[openssl_init]\nproviders = provider_sect\nalg_section = evp_properties\n"
             "[provider_sect]\ndefault = default_sect\naesfast = aesfast_sect\n"
             "[default_sect]\nactivate = 1\n"
             "[aesfast_sect]\nmodule = %s\nactivate = 1\n"
             "[evp_properties]\ndefault_properties = ?provider=aesfast\n", module);
    libctx = tu_load_cnf_text(cnf);
    if (libctx == NULL || !OSSL_PROVIDER_available(libctx, "default"))
        tu_die("the drop-in cnf did not load aesfast and default");
    return libctx;
}

int main(int argc, char **argv)
{
    static uint8_t out_ref[80000], out_fast[80000];
    unsigned long ver = OpenSSL_version_num();
    int moves = ver < DRBG_OWN_PROVIDER_FROM; /* the DRBG's AES-CTR follows default props */
    OSSL_LIB_CTX *ref, *fast, *dropin;
    OSSL_PROVIDER *aesfast, *ref_default, *fast_default;
    EVP_CIPHER *probe;
    long pos = 0;
    int fd;

    tu_init("drbg_test");
    if (argc == 4 && strcmp(argv[2], "--expect-kernel") == 0)
        kernel_expected = argv[3];
    else if (argc != 2)
        tu_die("usage: drbg_test MODULE [--expect-kernel TIER]");
    if ((fd = mkstemp(log_path)) < 0)
        tu_die("mkstemp: %s", strerror(errno));
    close(fd);
    char env[64];
    snprintf(env, sizeof(env), "file:%s", log_path);
    setenv("AESFAST_DEBUG", env, 1); /* read once, at the module's first log line */

    ref = OSSL_LIB_CTX_new();
    fast = OSSL_LIB_CTX_new();
    if (ref == NULL || fast == NULL || (ref_default = OSSL_PROVIDER_load(ref, "default")) == NULL
        || (fast_default = OSSL_PROVIDER_load(fast, "default")) == NULL
        || (aesfast = OSSL_PROVIDER_load(fast, argv[1])) == NULL
        || !EVP_set_default_properties(fast, "?provider=aesfast"))
        tu_die("the two library contexts");
    probe = EVP_CIPHER_fetch(fast, "AES-256-CTR", NULL);
    if (probe == NULL || EVP_CIPHER_get0_provider(probe) != aesfast)
        tu_die("AES-256-CTR with ?provider=aesfast is not aesfast's");
    EVP_CIPHER_free(probe);
    if (kernel_expected != NULL) {
        char kernel[32] = "?", *kp = kernel;
        OSSL_PARAM kparam[] = {OSSL_PARAM_utf8_ptr("aesfast-kernel", &kp, 0), OSSL_PARAM_END};
        if (!OSSL_PROVIDER_get_params(aesfast, kparam) || strcmp(kp, kernel_expected) != 0)
            tu_die("aesfast runs %s, not %s", kp, kernel_expected);
    }
    printf("drbg_test: %s; the DRBG's AES-CTR expected on %s\n",
           OpenSSL_version(OPENSSL_VERSION), moves ? "aesfast (before 3.5)"
                                                     : "the default provider (3.5 and later)");
    count_log(&pos, ""); /* skip the load's lines */

    for (int bits = 128; bits <= 256; bits += 64) {
        for (int df = 0; df <= 1; df++) {
            char what[40];
            snprintf(what, sizeof(what), "AES-%d-CTR: key setup", bits);
            size_t nr = run_script(ref, "ref", bits, df, out_ref, sizeof(out_ref));
            unsigned lr = count_log(&pos, what);
            size_t nf = run_script(fast, "fast", bits, df, out_fast, sizeof(out_fast));
            unsigned lf = count_log(&pos, what);
            size_t d = nr == nf ? tu_first_diff(out_ref, out_fast, nr) : 0;

            CHECK(nr > 0 && nr == nf && d == (size_t)-1,
                  "AES-%d-CTR df=%d: the outputs differ (%zu and %zu bytes, first at %zu)", bits,
                  df, nr, nf, d);
            printf("  AES-%d-CTR df=%d: %zu bytes %s; aesfast key setups: ref %u, fast %u\n",
                   bits, df, nr, d == (size_t)-1 ? "equal" : "DIFFER", lr, lf);
            CHECK(lr == 0, "AES-%d-CTR df=%d: aesfast set keys for the default-only context",
                  bits, df);
            if (moves)
                CHECK(lf > 0, "AES-%d-CTR df=%d: OpenSSL %lx should run the DRBG's CTR on aesfast",
                      bits, df, ver);
            else
                CHECK(lf == 0, "AES-%d-CTR df=%d: OpenSSL %lx ran the DRBG's CTR on aesfast (3.5+ "
                      "fetches it from the default provider)", bits, df, ver);
        }
    }

    /* RAND_bytes in a context configured by the drop-in cnf: its own DRBG, created here. */
    uint8_t buf[64];
    dropin = dropin_ctx(argv[1]);
    count_log(&pos, "");
    CHECK(RAND_bytes_ex(dropin, buf, sizeof(buf), 0) > 0, "RAND_bytes_ex in the drop-in context");
    CHECK(RAND_priv_bytes_ex(dropin, buf, sizeof(buf), 0) > 0, "RAND_priv_bytes_ex");
    unsigned lb = count_log(&pos, "AES-256-CTR: key setup");
    printf("  RAND_bytes in a drop-in context: aesfast key setups %u: the DRBG behind RAND_bytes "
           "runs on %s\n", lb, lb > 0 ? "aesfast" : "the default provider");
    if (moves)
        CHECK(lb > 0, "OpenSSL %lx: RAND_bytes's DRBG did not use aesfast", ver);
    else
        CHECK(lb == 0, "OpenSSL %lx: RAND_bytes's DRBG used aesfast", ver);

    ERR_print_errors_fp(stderr);
    OSSL_LIB_CTX_free(dropin);
    OSSL_PROVIDER_unload(aesfast);
    OSSL_PROVIDER_unload(fast_default);
    OSSL_PROVIDER_unload(ref_default);
    OSSL_LIB_CTX_free(fast);
    OSSL_LIB_CTX_free(ref);
    unlink(log_path);
    return check_summary("drbg_test");
}
