/*
 * The side-by-side harness of the API tests (ctr_api, gcm_api): every scenario runs on a context
 * of the provider under test (T) and on one of the default provider (R), and the program compares
 * return codes, output and parameters. This header holds what does not depend on the mode:
 * counting and printing checks, judging one pair of outcomes against the allow-list of deliberate
 * refusals, the error queue, names and parameter lists, loading the two providers and fetching
 * the ciphers, the test data, and the steps both modes take alike (init, update, final, set
 * parameters), which end in the program's own compare_state().
 *
 * It defines CHECK (as test/check.h does, with a different report format): include one or the
 * other, never both. Built into the testutil library.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#ifndef AESFAST_APITEST_H
#define AESFAST_APITEST_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

/* The provider under test ("aesfast", or "default" to check the test itself) and
 * "provider=<tname>"; set by api_start(). */
extern const char *tname;
extern char tprop[64];
/* Checks passed and failed so far. */
extern int npass, nfail;
/* The current scenario, printed with every message. */
extern const char *scope;

/*
 * The reason string of the one deliberate refusal the next outcome() may meet (NULL: none):
 * an input default accepts and T refuses on purpose. The caller sets it around the call, and
 * outcome() resets it. Each program documents its allow-list next to the strings it uses.
 */
extern const char *deliberate;

/*
 * 1 (gcm_api, for aesfast): every refusal by T must leave an error on the queue, with a reason
 * string, even where default refuses silently (default's GCM fails some finals without an error).
 * A call that libcrypto itself refuses before the provider sees it sets evp_refuses around it
 * (outcome() resets it): then no error is required of either side.
 * 0 (ctr_api): T must leave an error only where R does.
 */
extern int strict_errors;
extern int evp_refuses;

#define CHECK(cond, ...) check_((cond) != 0, __LINE__, __VA_ARGS__)
int check_(int ok, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Runs expression E with a clean error queue; stores its result in RES and whether an error was
 * queued in ERRFLAG. */
#define RUN(res, errflag, e)                                                                   \
    do {                                                                                       \
        ERR_clear_error();                                                                     \
        (res) = (e);                                                                           \
        (errflag) = ERR_peek_error() != 0;                                                     \
    } while (0)

/* 1 if the error queue (left by T, which ran last) holds an error whose reason text or data
 * contains want. Empties the queue. */
int queue_says(const char *want);

/*
 * One outcome pair: rr/tr are the return codes (> 0 is success) of R and T, rerr/terr whether
 * each left an error on the queue (T ran last, so the queue is T's). Both refusing passes (T must
 * have left an error if R did, or always under strict_errors); only one refusing fails, unless T
 * refused what R accepted and deliberate names the refusal, whose reason must then be on the
 * queue. Returns 1 when both succeeded (so the caller compares output).
 */
int outcome(const char *what, int rr, int rerr, int tr, int terr);

/* Up to 48 bytes as hex, in one of four rotating static buffers. */
const char *hex(const unsigned char *p, size_t n);

/* Names: T must have every name R has (EVP_CIPHER_names_do_all), EVP_CIPHER_is_a(T, canon), the
 * same NID, and every name of R, in upper, lower and mixed case, must fetch from T. */
void compare_names(const EVP_CIPHER *r, const EVP_CIPHER *t, const char *canon);

int has_param(const OSSL_PARAM *list, const char *key);
/* T's list must hold each of required (NULL-terminated); other differences are notes. */
void compare_lists(const char *which, const OSSL_PARAM *r, const OSSL_PARAM *t,
                   const char *const *required);

/*
 * Parses "[--provider NAME]" (exits 2 on anything else), prints "PROG: <libcrypto>, NAME vs
 * default", and loads both providers, never T by name (it must be active after OPENSSL_CONF, see
 * test/testutil.c). Returns 0 when loaded, else prints why and the summary line and returns 1.
 */
int api_start(const char *prog, int argc, char **argv, OSSL_PROVIDER **pdef,
              OSSL_PROVIDER **ptest);
/* Fetches AES-128/192/256-<mode> ("CTR", "GCM") from the provider under test into T[] and from
 * default into R[] (below), and checks that each came from the provider it was asked of (a fetch
 * that fell back elsewhere fails). Returns 1 if all six were fetched, else 0 after a message. */
int api_fetch_pairs(const char *mode);

/* Frees the ciphers api_fetch_pairs() fetched, unloads both providers and prints "PROG: N passed,
 * M failed"; returns the exit status. */
int api_finish(const char *prog, OSSL_PROVIDER *pdef, OSSL_PROVIDER *ptest);

/* ---- the pair of contexts: one step on both ---------------------------------------------- */

/* The fetched ciphers (api_fetch_pairs), under test and reference, for key bits kbits[ki]. */
extern EVP_CIPHER *T[3], *R[3];
extern const int kbits[3];

/* The test data: fill() draws from one PRNG that main() seeds first (api_seed), so every run of
 * a program gets the same bytes. */
void api_seed(uint64_t seed);
void fill(unsigned char *p, size_t n);

/* Set while each side generated its own random IV: then output, tags and IVs legitimately
 * differ between R and T, and the helpers below compare only their lengths. */
extern int random_iv;

/* Defined by each program: compares the context parameters of its mode (lengths, IV, ...)
 * between R and T; the helpers below call it after every step that both took. */
void compare_state(const char *what, EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t);

/* Each helper runs one call on R's context and then on T's, judges the pair with outcome()
 * (what names it), compares the results and then the state; it returns 1 if both succeeded. */
/* EVP_CipherInit_ex2 with the cipher of key size ki (NULL unless with_cipher), key and iv. */
int init2(const char *what, EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t, int ki, int enc,
          const unsigned char *key, const unsigned char *iv, int with_cipher);
/* An update of len bytes into separate buffers, or in place: outl, the bytes (unless
 * random_iv), nothing written past the output. */
int data2(const char *what, EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t, const unsigned char *in,
          size_t len, int inplace);
/* EVP_CipherFinal_ex: both must write nothing (stream modes); the state is compared either way. */
int final2(const char *what, EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t);
int setparams2(const char *what, EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t, const OSSL_PARAM *p);
/* get_updated_iv and get_original_iv into 8 bytes, less than the IV: each judged by outcome(),
 * and T must not write past the 8 bytes (its state is not compared). */
void short_iv_reads(EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t);
/* Both contexts reset (for the next scenario on the same pair), or freed. */
void reset2(EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t);
void free2(EVP_CIPHER_CTX *r, EVP_CIPHER_CTX *t);

/* ---- the algorithm parameters ------------------------------------------------------------ */

/* An integer flag of EVP_CIPHER_get_params and the value T must give; R's must match where R
 * lists the key among its gettable parameters. */
struct api_flag {
    const char *key;
    int want;
};

/* What T's AES-*-<mode> must say of itself (besides agreeing with R). */
struct api_cipher_want {
    int mode;                                    /* EVP_CIPH_*_MODE */
    size_t ivlen;                                /* the default IV length */
    const struct api_flag *flags;                /* nflags of them */
    size_t nflags;
    const char *const *gettable, *const *ctx_gettable, *const *ctx_settable; /* NULL-ended */
};

/*
 * The cipher of key size ki, side by side: mode, key length (kbits[ki] / 8), IV length, block
 * size (1: both modes here are stream modes), flags and type by the EVP getters and, for mode and
 * the lengths, by EVP_CIPHER_get_params; then w's flags; then the three parameter lists, each of
 * which must hold w's required keys.
 */
void api_cipher_params(int ki, const struct api_cipher_want *w);

#endif /* AESFAST_APITEST_H */
