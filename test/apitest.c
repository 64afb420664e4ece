/*
 * The side-by-side harness of the API tests (see apitest.h).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include "apitest.h"
#include "rng.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>

const char *tname = "aesfast";
char tprop[64];
int npass, nfail;
const char *scope = "";
const char *deliberate;
int strict_errors, evp_refuses;
EVP_CIPHER *T[3], *R[3];
const int kbits[3] = { 128, 192, 256 };
int random_iv;
static tu_rng rng;

/* ---- reporting --------------------------------------------------------------------------- */

int check_(int ok, int line, const char *fmt, ...)
{
    va_list ap;

    if (ok) {
        npass++;
        return 1;
    }
    nfail++;
    printf("FAIL [%s] line %d: ", scope, line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    return 0;
}

void note(const char *fmt, ...)
{
    va_list ap;

    printf("NOTE [%s]: ", scope);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

/* Prints the error T left on the queue (the caller ran T last). */
static void print_err(const char *what)
{
    unsigned long e = ERR_peek_error();
    char buf[256];

    if (e != 0) {
        ERR_error_string_n(e, buf, sizeof(buf));
        printf("ok   [%s] %s: refused by both; %s says %s\n", scope, what, tname, buf);
    } else {
        printf("ok   [%s] %s: refused by both, silently\n", scope, what);
    }
}

int queue_says(const char *want)
{
    const char *data;
    unsigned long e;
    int flags, found = 0;
    char text[256];

    while ((e = ERR_get_error_all(NULL, NULL, NULL, &data, &flags)) != 0) {
        ERR_error_string_n(e, text, sizeof(text));
        if (strstr(text, want) != NULL || ((flags & ERR_TXT_STRING) && strstr(data, want) != NULL))
            found = 1;
    }
    return found;
}

/* The first error on the queue has a reason string (aesfast's come from its reason table). */
static int queue_has_reason(void)
{
    unsigned long e = ERR_peek_error();

    return e != 0 && ERR_reason_error_string(e) != NULL;
}

int outcome(const char *what, int rr, int rerr, int tr, int terr)
{
    const char *d = deliberate;
    int quiet = evp_refuses;

    deliberate = NULL;
    evp_refuses = 0;
    rr = rr > 0, tr = tr > 0;
    if (rr && tr)
        return CHECK(1, "%s", what);
    if (!rr && !tr) {
        int ok;

        if (strict_errors && !quiet)
            ok = CHECK(terr && queue_has_reason(), "%s: both refuse, but %s left no error with a "
                       "reason string on the queue", what, tname);
        else
            ok = CHECK(!rerr || terr, "%s: both refuse, but %s left no error on the queue", what,
                       tname);
        if (ok)
            print_err(what);
        return 0;
    }
    if (!rr && tr) {
        CHECK(0, "%s: default refuses it, %s accepts it", what, tname);
        return 0;
    }
    /* R accepted, T refused: only a deliberate refusal, with its reason, passes. */
    if (d == NULL) {
        CHECK(0, "%s: %s refuses it, default accepts it (not on the allow-list of deliberate "
              "refusals)", what, tname);
        ERR_print_errors_fp(stdout);
        return 0;
    }
    if (CHECK(terr && queue_says(d), "%s: %s refuses (default accepts), but without \"%s\" on "
              "the error queue", what, tname, d))
        printf("ok   [%s] %s: deliberately refused by %s (%s)\n", scope, what, tname, d);
    return 0;
}

const char *hex(const unsigned char *p, size_t n)
{
    static char buf[4][100];
    static int k;
    char *b = buf[k++ & 3];
    size_t i;

    if (n > 48)
        n = 48;
    for (i = 0; i < n; i++)
        snprintf(b + 2 * i, 3, "%02x", p[i]);
    b[2 * n] = 0;
    return b;
}

/* ---- names and parameter lists ----------------------------------------------------------- */

struct names {
    char n[16][64];
    int k;
};

static void add_name(const char *name, void *arg)
{
    struct names *s = arg;

    if (s->k < 16)
        snprintf(s->n[s->k++], sizeof(s->n[0]), "%s", name);
}

static int has_name(const struct names *s, const char *n)
{
    int i;

    for (i = 0; i < s->k; i++)
        if (strcasecmp(s->n[i], n) == 0)
            return 1;
    return 0;
}

static void upper_lower(char *dst, const char *src, int mixed)
{
    int i;

    for (i = 0; src[i]; i++)
        dst[i] = (char)(mixed && (i & 1) == 0 ? toupper((unsigned char)src[i])
                                              : tolower((unsigned char)src[i]));
    dst[i] = 0;
}

void compare_names(const EVP_CIPHER *r, const EVP_CIPHER *t, const char *canon)
{
    struct names rn = { .k = 0 }, tn = { .k = 0 };
    char v[64];
    int i, m;

    EVP_CIPHER_names_do_all(r, add_name, &rn);
    EVP_CIPHER_names_do_all(t, add_name, &tn);
    for (i = 0; i < rn.k; i++)
        CHECK(has_name(&tn, rn.n[i]), "%s lacks the name \"%s\" that default has", tname, rn.n[i]);
    for (i = 0; i < tn.k; i++)
        if (!has_name(&rn, tn.n[i]))
            note("%s has a name default lacks: %s", tname, tn.n[i]);
    CHECK(EVP_CIPHER_is_a(t, canon), "EVP_CIPHER_is_a(%s)", canon);
    CHECK(strcasecmp(EVP_CIPHER_get0_name(t), canon) == 0, "get0_name %s", EVP_CIPHER_get0_name(t));
    CHECK(EVP_CIPHER_get_nid(t) == EVP_CIPHER_get_nid(r) && EVP_CIPHER_get_nid(t) != 0,
          "nid %d, default %d", EVP_CIPHER_get_nid(t), EVP_CIPHER_get_nid(r));
    /* Every default name, also in lower and mixed case, fetches from T. */
    for (i = 0; i < rn.k; i++)
        for (m = 0; m < 3; m++) {
            EVP_CIPHER *c;

            if (m == 0)
                snprintf(v, sizeof(v), "%s", rn.n[i]);
            else
                upper_lower(v, rn.n[i], m == 2);
            c = EVP_CIPHER_fetch(NULL, v, tprop);
            CHECK(c != NULL && strcmp(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c)), tname) == 0,
                  "fetch \"%s\" with %s", v, tprop);
            EVP_CIPHER_free(c);
            ERR_clear_error();
        }
}

int has_param(const OSSL_PARAM *list, const char *key)
{
    return list != NULL && OSSL_PARAM_locate_const(list, key) != NULL;
}

void compare_lists(const char *which, const OSSL_PARAM *r, const OSSL_PARAM *t,
                   const char *const *required)
{
    const OSSL_PARAM *p;

    for (; *required != NULL; required++)
        CHECK(has_param(t, *required), "%s lacks %s \"%s\"", tname, which, *required);
    for (p = r; p != NULL && p->key != NULL; p++)
        if (!has_param(t, p->key))
            note("%s: default has \"%s\", %s has not", which, p->key, tname);
    for (p = t; p != NULL && p->key != NULL; p++)
        if (!has_param(r, p->key))
            note("%s: %s has \"%s\", default has not", which, tname, p->key);
}

/* ---- providers --------------------------------------------------------------------------- */

int api_start(const char *prog, int argc, char **argv, OSSL_PROVIDER **pdef,
              OSSL_PROVIDER **ptest)
{
    int i;

    *pdef = *ptest = NULL;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--provider") == 0 && i + 1 < argc) {
            tname = argv[++i];
        } else {
            fprintf(stderr, "usage: %s [--provider NAME]   (OPENSSL_CONF names the cnf)\n",
                    argv[0]);
            exit(2);
        }
    }
    snprintf(tprop, sizeof(tprop), "provider=%s", tname);
    printf("%s: %s, %s vs default\n", prog, OpenSSL_version(OPENSSL_VERSION), tname);

    /*
     * Never load the provider under test by name: that searches OPENSSL_MODULES and the modules
     * directory and could find an installed aesfast.so. It must be active once the cnf named by
     * OPENSSL_CONF is loaded (as in test/testutil.c); "default" is built into libcrypto.
     */
    if (strcmp(tname, "default") != 0) {
        const char *conf = getenv("OPENSSL_CONF");

        if (conf == NULL || *conf == '\0' || !OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL)
            || !OSSL_PROVIDER_available(NULL, tname)) {
            printf("provider %s is not active after loading OPENSSL_CONF=%s (unset, or the cnf "
                   "does not activate it, or its module failed to load); not loading it by name, "
                   "which could find an installed copy\n", tname, conf ? conf : "(unset)");
            ERR_print_errors_fp(stdout);
            printf("%s: 0 passed, 1 failed\n", prog);
            return 1;
        }
    }
    *pdef = OSSL_PROVIDER_load(NULL, "default");
    *ptest = OSSL_PROVIDER_load(NULL, tname);
    if (*pdef == NULL || *ptest == NULL) {
        /* test/with-tier.sh skips a tier this CPU lacks before we get here: failing to load is
         * always a failure. */
        printf("cannot load provider %s (is OPENSSL_CONF set to a cnf activating it?)\n",
               *pdef == NULL ? "default" : tname);
        ERR_print_errors_fp(stdout);
        printf("%s: 0 passed, 1 failed\n", prog);
        return 1;
    }
    {
        char *kern = NULL;
        OSSL_PARAM p[2] = { OSSL_PARAM_utf8_ptr("aesfast-kernel", &kern, 0), OSSL_PARAM_END };

        if (OSSL_PROVIDER_get_params(*ptest, p) && OSSL_PARAM_modified(&p[0]) && kern != NULL)
            printf("%s: %s kernel %s\n", prog, tname, kern);
        ERR_clear_error();
    }
    return 0;
}

int api_fetch_pairs(const char *mode)
{
    EVP_CIPHER **t = T, **r = R;

    for (int ki = 0; ki < 3; ki++) {
        char nm[32];

        snprintf(nm, sizeof(nm), "AES-%d-%s", kbits[ki], mode);
        scope = "fetch";
        r[ki] = EVP_CIPHER_fetch(NULL, nm, "provider=default");
        t[ki] = EVP_CIPHER_fetch(NULL, nm, tprop);
        if (!CHECK(r[ki] != NULL && t[ki] != NULL, "fetch %s", nm)) {
            ERR_print_errors_fp(stdout);
            return 0;
        }
        CHECK(strcmp(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(t[ki])), tname) == 0,
              "%s comes from %s", nm, OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(t[ki])));
        CHECK(strcmp(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(r[ki])), "default") == 0,
              "reference %s comes from %s", nm,
              OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(r[ki])));
    }
    return 1;
}

int api_finish(const char *prog, OSSL_PROVIDER *pdef, OSSL_PROVIDER *ptest)
{
    for (int ki = 0; ki < 3; ki++) {
        EVP_CIPHER_free(T[ki]);
        EVP_CIPHER_free(R[ki]);
    }
    OSSL_PROVIDER_unload(ptest);
    OSSL_PROVIDER_unload(pdef);
    printf("%s: %d passed, %d failed\n", prog, npass, nfail);
    return nfail != 0;
}

/* ---- the pair of contexts ---------------------------------------------------------------- */

void api_seed(uint64_t seed)
{
    tu_rng_seed(&rng, seed, 0);
}

void fill(unsigned char *p, size_t n)
{
    tu_rng_fill(&rng, p, n);
}

int init2(const char *what, EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t, int ki, int enc,
          const unsigned char *key, const unsigned char *iv, int with_cipher)
{
    int rr, tr, re, te;

    RUN(rr, re, EVP_CipherInit_ex2(r, with_cipher ? R[ki] : NULL, key, iv, enc, NULL));
    RUN(tr, te, EVP_CipherInit_ex2(t, with_cipher ? T[ki] : NULL, key, iv, enc, NULL));
    if (!outcome(what, rr, re, tr, te))
        return 0;
    compare_state(what, r, t);
    return 1;
}

int data2(const char *what, EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t, const unsigned char *in,
          size_t len, int inplace)
{
    /* Each side reads its own copy of in (in place, it writes there); 16 bytes of 0xA5 past the
     * output catch a write beyond len. */
    static unsigned char ri[70000], ti[70000], ro[70000], to[70000];
    unsigned char *rout = inplace ? ri : ro, *tout = inplace ? ti : to;
    int rl = -1, tl = -1, rr, tr, re, te;

    memcpy(ri, in, len);
    memcpy(ti, in, len);
    memset(ri + len, 0xA5, 16);
    memset(ti + len, 0xA5, 16);
    memset(ro, 0xA5, len + 16);
    memset(to, 0xA5, len + 16);
    RUN(rr, re, EVP_CipherUpdate(r, rout, &rl, ri, (int)len));
    RUN(tr, te, EVP_CipherUpdate(t, tout, &tl, ti, (int)len));
    if (!outcome(what, rr, re, tr, te))
        return 0;
    CHECK(tl == rl, "%s: outl %d, default %d", what, tl, rl);
    if (tl == rl && rl >= 0 && !random_iv)
        CHECK(memcmp(rout, tout, (size_t)rl) == 0, "%s: output differs (%zu bytes): %s vs "
              "default %s", what, len, hex(tout, (size_t)rl), hex(rout, (size_t)rl));
    CHECK(tout[len] == 0xA5 && tout[len + 15] == 0xA5, "%s: wrote past the output length", what);
    compare_state(what, r, t);
    return 1;
}

int final2(const char *what, EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t)
{
    unsigned char ro[32], to[32];
    int rl = -1, tl = -1, rr, tr, re, te, both;

    RUN(rr, re, EVP_CipherFinal_ex(r, ro, &rl));
    RUN(tr, te, EVP_CipherFinal_ex(t, to, &tl));
    both = outcome(what, rr, re, tr, te);
    if (both)
        CHECK(tl == 0 && rl == 0, "%s: final wrote %d bytes (default %d)", what, tl, rl);
    compare_state(what, r, t);
    return both;
}

int setparams2(const char *what, EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t, const OSSL_PARAM *p)
{
    int rr, tr, re, te;

    RUN(rr, re, EVP_CIPHER_CTX_set_params(r, p));
    RUN(tr, te, EVP_CIPHER_CTX_set_params(t, p));
    if (!outcome(what, rr, re, tr, te))
        return 0;
    compare_state(what, r, t);
    return 1;
}

void reset2(EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t)
{
    EVP_CIPHER_CTX_reset(r);
    EVP_CIPHER_CTX_reset(t);
}

void free2(EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t)
{
    EVP_CIPHER_CTX_free(r);
    EVP_CIPHER_CTX_free(t);
}

void short_iv_reads(EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t)
{
    unsigned char rb[16], tb[16];
    int rr, tr, re, te;

    memset(tb, 0x5A, sizeof(tb));
    RUN(rr, re, EVP_CIPHER_CTX_get_updated_iv(r, rb, 8));
    RUN(tr, te, EVP_CIPHER_CTX_get_updated_iv(t, tb, 8));
    outcome("get_updated_iv into 8 bytes", rr, re, tr, te);
    CHECK(tb[8] == 0x5A, "get_updated_iv wrote past an 8-byte buffer");
    RUN(rr, re, EVP_CIPHER_CTX_get_original_iv(r, rb, 8));
    RUN(tr, te, EVP_CIPHER_CTX_get_original_iv(t, tb, 8));
    outcome("get_original_iv into 8 bytes", rr, re, tr, te);
    CHECK(tb[8] == 0x5A, "get_original_iv wrote past an 8-byte buffer");
}

/* ---- the algorithm parameters ------------------------------------------------------------ */

void api_cipher_params(int ki, const struct api_cipher_want *w)
{
    EVP_CIPHER *t = T[ki], *r = R[ki]; /* EVP_CIPHER_get_params takes no const */
    unsigned int rm = 0, tm = 0;
    size_t rk = 0, tk = 0, riv = 0, tiv = 0, rb = 0, tb = 0, kl = (size_t)kbits[ki] / 8, i;
    OSSL_PARAM rp[5], tp[5];
    int rr, tr;

    scope = "cipher-params";
    CHECK(EVP_CIPHER_get_mode(t) == w->mode, "mode %d", EVP_CIPHER_get_mode(t));
    CHECK(EVP_CIPHER_get_key_length(t) == (int)kl
          && EVP_CIPHER_get_key_length(t) == EVP_CIPHER_get_key_length(r),
          "key length %d", EVP_CIPHER_get_key_length(t));
    CHECK(EVP_CIPHER_get_iv_length(t) == (int)w->ivlen
          && EVP_CIPHER_get_iv_length(r) == (int)w->ivlen,
          "iv length %d", EVP_CIPHER_get_iv_length(t));
    CHECK(EVP_CIPHER_get_block_size(t) == 1 && EVP_CIPHER_get_block_size(r) == 1,
          "block size %d", EVP_CIPHER_get_block_size(t));
    CHECK(EVP_CIPHER_get_flags(t) == EVP_CIPHER_get_flags(r), "flags %#lx, default %#lx",
          (unsigned long)EVP_CIPHER_get_flags(t), (unsigned long)EVP_CIPHER_get_flags(r));
    CHECK(EVP_CIPHER_get_type(t) == EVP_CIPHER_get_type(r), "type");

    /* The same four through the parameter interface, one list for each side. */
    rp[0] = OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_MODE, &rm);
    rp[1] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_KEYLEN, &rk);
    rp[2] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &riv);
    rp[3] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, &rb);
    rp[4] = OSSL_PARAM_construct_end();
    memcpy(tp, rp, sizeof(tp));
    tp[0].data = &tm, tp[1].data = &tk, tp[2].data = &tiv, tp[3].data = &tb;
    rr = EVP_CIPHER_get_params(r, rp);
    tr = EVP_CIPHER_get_params(t, tp);
    CHECK(rr == 1 && tr == 1, "EVP_CIPHER_get_params: %d, default %d", tr, rr);
    CHECK(tm == rm && tk == rk && tiv == riv && tb == rb && tm == (unsigned int)w->mode
          && tk == kl && tiv == w->ivlen && tb == 1,
          "get_params mode/keylen/ivlen/blocksize %u/%zu/%zu/%zu, default %u/%zu/%zu/%zu",
          tm, tk, tiv, tb, rm, rk, riv, rb);
    for (i = 0; i < w->nflags; i++) {
        int rv = -1, tv = -1;
        OSSL_PARAM p[2] = { OSSL_PARAM_int(w->flags[i].key, &rv), OSSL_PARAM_END };

        rr = EVP_CIPHER_get_params(r, p);
        p[0].data = &tv;
        tr = EVP_CIPHER_get_params(t, p);
        CHECK(tr == 1 && OSSL_PARAM_modified(&p[0]) && tv == w->flags[i].want
              && (tv == rv || !has_param(EVP_CIPHER_gettable_params(r), w->flags[i].key)),
              "\"%s\": %d (ok=%d), default %d (ok=%d), want %d", w->flags[i].key, tv, tr, rv, rr,
              w->flags[i].want);
    }
    /* A parameter asked for as another type (the mode as a string): refused, with an error
     * queued on both sides (3.0's OSSL_PARAM setters queue none: the provider must). */
    {
        char rs[16], ts[16];
        OSSL_PARAM p[2] = { OSSL_PARAM_utf8_string(OSSL_CIPHER_PARAM_MODE, rs, sizeof(rs)),
                            OSSL_PARAM_END };
        int re, te;

        ERR_clear_error();
        rr = EVP_CIPHER_get_params(r, p);
        re = ERR_peek_error() != 0;
        ERR_clear_error();
        p[0].data = ts;
        tr = EVP_CIPHER_get_params(t, p);
        te = ERR_peek_error() != 0;
        ERR_clear_error();
        CHECK(tr == 0 && te && rr == 0 && re, "get_params of the mode as a string: %d (error "
              "queued: %d), default %d (%d)", tr, te, rr, re);
    }
    compare_lists("gettable cipher params", EVP_CIPHER_gettable_params(r),
                  EVP_CIPHER_gettable_params(t), w->gettable);
    compare_lists("gettable ctx params", EVP_CIPHER_gettable_ctx_params(r),
                  EVP_CIPHER_gettable_ctx_params(t), w->ctx_gettable);
    compare_lists("settable ctx params", EVP_CIPHER_settable_ctx_params(r),
                  EVP_CIPHER_settable_ctx_params(t), w->ctx_settable);
}
