/*
 * fork_test: AES-GCM contexts in use across fork(). Each provider (aesfast, then the
 * default provider as the comparison) gets the same contexts, used before the fork:
 *   rand    encrypting with no IV set: each message draws a random IV;
 *   tls     a TLS 1.2 sealing context: key, a 4-byte fixed IV part ("tlsivfixed": the other 8
 *           bytes drawn at random, then counted up per record), two records sealed;
 *   plain   the same set-up, no record yet: its first message will be a plain one;
 *   stream  a message on a given IV begun (AAD and 100 bytes), to be finished.
 * Then fork(): parent and child (and a grandchild, forked by the child) each go on with their
 * copies: a random-IV message, the next TLS record, the plain message, the rest of the stream.
 * Every output is checked by the default provider (the records opened under the fixed part, the
 * stream against a one-shot seal), in the process that made it and, for the children's records
 * sent up a pipe, in the parent.
 *
 * Required of both providers: random IVs drawn after the fork differ between the processes
 * (the DRBG reseeds in a child). Required of aesfast: the next TLS explicit nonces, and the
 * plain message's IV, differ between parent, child and grandchild (its fork generation,
 * provider/fork.c, redraws the invocation field in a child). The default provider gives the
 * same nonce in both: printed, and required on the series known so (3.0-3.6), which shows
 * that the check can fail.
 *
 *   fork_test MODULE [--expect-kernel TIER]     (MODULE: the path of aesfast.so)
 *     exit 0 pass, 1 fail
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include "check.h"
#include "testutil.h"

/* The newest series whose default provider is known to repeat the nonce in the child. */
#define KNOWN_SAME_BEFORE 0x30700000UL /* 3.7.0 */
#define PLEN 100                      /* a record's payload */
#define RECLEN (8 + PLEN + 16)

static EVP_CIPHER *gcm_default;
static OSSL_LIB_CTX *libctx;
static OSSL_PROVIDER *prov_aesfast, *prov_default;

/* AES-128-GCM of "aesfast" or "default", or the test ends. */
static EVP_CIPHER *fetch(const char *prov)
{
    int fast = strcmp(prov, "aesfast") == 0;
    EVP_CIPHER *c = EVP_CIPHER_fetch(libctx, "AES-128-GCM", fast ? "provider=aesfast"
                                                                : "provider=default");

    if (c == NULL || EVP_CIPHER_get0_provider(c) != (fast ? prov_aesfast : prov_default))
        tu_die("AES-128-GCM of %s", prov);
    return c;
}
static uint8_t key[16], skey[16], fixed[4], siv[12], pt[1100], aad[20];

/* What one process produced after the fork. */
typedef struct {
    uint8_t rand_iv[12];
    uint8_t rec[RECLEN];    /* the next TLS record: explicit nonce || payload || tag */
    uint8_t plain_iv[12];   /* the IV the plain message started on */
    int ok;                 /* its own checks passed */
} report;

typedef struct {
    EVP_CIPHER_CTX *rand, *tls, *plain, *stream;
} contexts;

static int get_iv(EVP_CIPHER_CTX *ctx, uint8_t iv[12])
{
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_IV, iv, 12),
                       OSSL_PARAM_construct_end()};

    return EVP_CIPHER_CTX_get_params(ctx, p) && p[0].return_size == 12;
}

static void tls_aad(uint8_t a[13], uint64_t seq, size_t len)
{
    for (int i = 0; i < 8; i++)
        a[i] = (uint8_t)(seq >> (56 - 8 * i));
    a[8] = 23, a[9] = 3, a[10] = 3;
    a[11] = (uint8_t)(len >> 8), a[12] = (uint8_t)len;
}

/* Seals the next record (payload pt, sequence seq) into rec: 1 or 0. */
static int seal_record(EVP_CIPHER_CTX *ctx, uint64_t seq, uint8_t rec[RECLEN])
{
    uint8_t a[13];

    tls_aad(a, seq, 8 + PLEN);
    memset(rec, 0, RECLEN);
    memcpy(rec + 8, pt, PLEN);
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, a) == 16
           && EVP_Cipher(ctx, rec, rec, RECLEN) == RECLEN;
}

/* Opens a record with the default provider: 1 if it authenticates and holds pt. */
static int open_record(const uint8_t rec[RECLEN], uint64_t seq)
{
    uint8_t a[13], buf[RECLEN];
    EVP_CIPHER_CTX *d = EVP_CIPHER_CTX_new();
    int ok;

    tls_aad(a, seq, RECLEN);
    memcpy(buf, rec, RECLEN);
    ok = d != NULL && EVP_DecryptInit_ex2(d, gcm_default, key, NULL, NULL)
         && EVP_CIPHER_CTX_ctrl(d, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed) > 0
         && EVP_CIPHER_CTX_ctrl(d, EVP_CTRL_AEAD_TLS1_AAD, 13, a) == 16
         && EVP_Cipher(d, buf, buf, RECLEN) > 0 && memcmp(buf + 8, pt, PLEN) == 0;
    EVP_CIPHER_CTX_free(d);
    ERR_clear_error();
    return ok;
}

/* The default provider's tag and ciphertext of a message under iv: out (len), tag. */
static int ref_seal(const uint8_t *iv, const uint8_t *k, const uint8_t *in, size_t len,
                    uint8_t *out, uint8_t tag[16])
{
    EVP_CIPHER_CTX *e = EVP_CIPHER_CTX_new();
    int l, ok;

    ok = e != NULL && EVP_EncryptInit_ex2(e, gcm_default, k, iv, NULL)
         && EVP_EncryptUpdate(e, NULL, &l, aad, sizeof(aad))
         && EVP_EncryptUpdate(e, out, &l, in, (int)len)
         && EVP_EncryptFinal_ex(e, out + l, &l)
         && EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0;
    EVP_CIPHER_CTX_free(e);
    return ok;
}

/* A message sealed on ctx (as set up), checked against the default provider; the IV it used
 * in iv. The "iv" parameter after it is that IV, or under "tlsivfixed" on aesfast, which counts
 * a managed IV's invocation field at every message start, the IV plus one: both are tried. */
static int seal_checked(EVP_CIPHER_CTX *ctx, const uint8_t *k, uint8_t iv[12])
{
    uint8_t ct[64], tag[16], rct[64], rtag[16];
    int l;

    if (!EVP_EncryptUpdate(ctx, NULL, &l, aad, sizeof(aad))
        || !EVP_EncryptUpdate(ctx, ct, &l, pt, 64) || !EVP_EncryptFinal_ex(ctx, ct + l, &l)
        || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) <= 0 || !get_iv(ctx, iv))
        return 0;
    for (int back = 0; back < 2; back++) {
        for (int i = 11; back && i >= 4 && iv[i]-- == 0; i--) /* iv - 1 in its last 8 bytes */
            ;
        if (ref_seal(iv, k, pt, 64, rct, rtag) && memcmp(ct, rct, 64) == 0
            && memcmp(tag, rtag, 16) == 0)
            return 1;
    }
    return 0;
}

/* The contexts of one provider, used before the fork. */
static int setup(contexts *c, EVP_CIPHER *gcm)
{
    uint8_t iv[12], rec[RECLEN];
    int l;

    c->rand = EVP_CIPHER_CTX_new();
    c->tls = EVP_CIPHER_CTX_new();
    c->plain = EVP_CIPHER_CTX_new();
    c->stream = EVP_CIPHER_CTX_new();
    if (c->rand == NULL || c->tls == NULL || c->plain == NULL || c->stream == NULL)
        return 0;
    return CHECK(EVP_EncryptInit_ex2(c->rand, gcm, key, NULL, NULL)
                 && seal_checked(c->rand, key, iv), "setup: a random-IV message")
           && CHECK(EVP_EncryptInit_ex2(c->tls, gcm, key, NULL, NULL)
                    && EVP_CIPHER_CTX_ctrl(c->tls, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed) > 0
                    && seal_record(c->tls, 0, rec) && open_record(rec, 0)
                    && seal_record(c->tls, 1, rec) && open_record(rec, 1),
                    "setup: two TLS records")
           && CHECK(EVP_EncryptInit_ex2(c->plain, gcm, key, NULL, NULL)
                    && EVP_CIPHER_CTX_ctrl(c->plain, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed) > 0,
                    "setup: tlsivfixed")
           && CHECK(EVP_EncryptInit_ex2(c->stream, gcm, skey, siv, NULL)
                    && EVP_EncryptUpdate(c->stream, NULL, &l, aad, sizeof(aad))
                    && EVP_EncryptUpdate(c->stream, rec, &l, pt, 100) && l == 100,
                    "setup: a message begun");
}

/* What a process does with its copies after the fork. The plain message and the one begun
 * before the fork are one message each: a grandchild (after its parent went on) skips them. */
static void go_on(contexts *c, EVP_CIPHER *gcm, report *r, int all)
{
    static uint8_t ct[sizeof(pt)], rct[sizeof(pt)];
    uint8_t tag[16], rtag[16];
    int l, l2;

    memset(r, 0, sizeof(*r));
    r->ok = CHECK(EVP_EncryptInit_ex2(c->rand, gcm, key, NULL, NULL)
                  && seal_checked(c->rand, key, r->rand_iv),
                  "pid %d: a random-IV message", (int)getpid())
            & CHECK(seal_record(c->tls, 2, r->rec) && open_record(r->rec, 2),
                    "pid %d: the next TLS record", (int)getpid())
            & CHECK(!all || seal_checked(c->plain, key, r->plain_iv),
                    "pid %d: the plain message after tlsivfixed", (int)getpid())
            & CHECK(!all || (EVP_EncryptUpdate(c->stream, ct + 100, &l, pt + 100, sizeof(pt) - 100)
                    && EVP_EncryptFinal_ex(c->stream, ct + 100 + l, &l2)
                    && EVP_CIPHER_CTX_ctrl(c->stream, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0
                    && ref_seal(siv, skey, pt, sizeof(pt), rct, rtag)
                    && memcmp(ct + 100, rct + 100, sizeof(pt) - 100) == 0
                    && memcmp(tag, rtag, 16) == 0),
                    "pid %d: the message begun before the fork, finished", (int)getpid());
}

/* waitpid for pid: 1 if it exited with status 0; else 0, saying why. */
static int reaped_ok(pid_t pid)
{
    int st = 0;
    pid_t r;

    while ((r = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
        ;
    if (r != pid) {
        fprintf(stderr, "waitpid(%d): %s\n", (int)pid, strerror(errno));
        return 0;
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "process %d: status 0x%x\n", (int)pid, st);
        return 0;
    }
    return 1;
}

static int read_all(int fd, void *p, size_t n)
{
    for (size_t got = 0; got < n;) {
        ssize_t k = read(fd, (uint8_t *)p + got, n - got);
        if (k <= 0)
            return 0;
        got += (size_t)k;
    }
    return 1;
}

/* Forks a child that goes on with c and writes its report (and, with depth, its own child's
 * first) to the returned pipe's read end; the child's pid in *pid. */
static int spawn(contexts *c, EVP_CIPHER *gcm, int depth, pid_t *pid)
{
    int fds[2];

    fflush(NULL);
    if (pipe(fds) != 0 || (*pid = fork()) < 0)
        tu_die("pipe/fork: %s", strerror(errno));
    if (*pid == 0) {
        report r[2];
        pid_t gpid;

        close(fds[0]);
        check_failed = 0; /* this process's own */
        go_on(c, gcm, &r[0], depth > 0);
        if (depth > 0) { /* the grandchild, forked after the child went on */
            int g = spawn(c, gcm, 0, &gpid);
            r[1].ok = read_all(g, &r[1], sizeof(r[1])) && reaped_ok(gpid) && r[1].ok;
        }
        if (write(fds[1], r, sizeof(r[0]) * (1 + (depth > 0))) < 0)
            _exit(2);
        _exit(check_failed == 0 ? 0 : 1);
    }
    close(fds[1]);
    return fds[0];
}

/* Opening after a fork draws nothing: a context copied from a "tlsivfixed" sealer before its
 * first message and re-initialised to decrypt (no key, no IV: the managed IV stays) opens, in
 * the child, the message the parent sealed on that IV. 1 if it does. */
static int open_after_fork(EVP_CIPHER *gcm)
{
    EVP_CIPHER_CTX *e = EVP_CIPHER_CTX_new(), *d = EVP_CIPHER_CTX_new();
    uint8_t ct[100], tag[16], out[100];
    int l, ok;
    pid_t pid;

    ok = e != NULL && d != NULL && EVP_EncryptInit_ex2(e, gcm, key, NULL, NULL)
         && EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed) > 0
         && EVP_CIPHER_CTX_copy(d, e) && EVP_DecryptInit_ex2(d, NULL, NULL, NULL, NULL)
         && EVP_EncryptUpdate(e, NULL, &l, aad, sizeof(aad))
         && EVP_EncryptUpdate(e, ct, &l, pt, sizeof(ct)) && EVP_EncryptFinal_ex(e, ct, &l)
         && EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0;
    if (ok && (pid = fork()) == 0) {
        ok = EVP_DecryptUpdate(d, NULL, &l, aad, sizeof(aad))
             && EVP_DecryptUpdate(d, out, &l, ct, sizeof(ct))
             && EVP_CIPHER_CTX_ctrl(d, EVP_CTRL_AEAD_SET_TAG, 16, tag) > 0
             && EVP_DecryptFinal_ex(d, out, &l) > 0 && memcmp(out, pt, sizeof(out)) == 0;
        _exit(ok ? 0 : 1);
    }
    ok = ok && pid > 0 && reaped_ok(pid);
    EVP_CIPHER_CTX_free(e);
    EVP_CIPHER_CTX_free(d);
    ERR_clear_error();
    return ok;
}

static void hex8(char out[17], const uint8_t *p)
{
    for (int i = 0; i < 8; i++)
        snprintf(out + 2 * i, 3, "%02x", p[i]);
}

/* One provider's run; returns 1 if the tls nonces of parent and child were the same. */
static int run(const char *prov, int must_differ)
{
    EVP_CIPHER *gcm = fetch(prov);
    contexts c;
    report parent, kids[2];
    pid_t pid;
    char np[17], nc[17], ng[17];

    if (!setup(&c, gcm))
        tu_die("%s: the contexts before the fork", prov);
    int fd = spawn(&c, gcm, 1, &pid);
    go_on(&c, gcm, &parent, 1);
    CHECK(read_all(fd, kids, sizeof(kids)), "%s: the child's report", prov);
    close(fd);
    CHECK(reaped_ok(pid), "%s: the child's own checks failed", prov);
    CHECK(kids[0].ok && kids[1].ok, "%s: child %d, grandchild %d", prov, kids[0].ok, kids[1].ok);
    /* The children's records open in this process too. */
    CHECK(open_record(kids[0].rec, 2) && open_record(kids[1].rec, 2),
          "%s: a child's record does not open here", prov);

    CHECK(memcmp(parent.rand_iv, kids[0].rand_iv, 12) != 0
          && memcmp(parent.rand_iv, kids[1].rand_iv, 12) != 0
          && memcmp(kids[0].rand_iv, kids[1].rand_iv, 12) != 0,
          "%s: a random IV drawn after the fork is the same in two processes", prov);
    int same = memcmp(parent.rec, kids[0].rec, 8) == 0;
    int same_g = memcmp(parent.rec, kids[1].rec, 8) == 0
                 || memcmp(kids[0].rec, kids[1].rec, 8) == 0;
    int same_plain = memcmp(parent.plain_iv, kids[0].plain_iv, 12) == 0;
    hex8(np, parent.rec), hex8(nc, kids[0].rec), hex8(ng, kids[1].rec);
    printf("  %-8s next explicit nonce: parent %s, child %s, grandchild %s: %s; plain "
           "message's IV %s\n", prov, np, nc, ng, same || same_g ? "REPEATED" : "all different",
           same_plain ? "REPEATED" : "different");
    if (must_differ) {
        CHECK(!same && !same_g, "%s: a TLS nonce is repeated across the fork", prov);
        CHECK(!same_plain, "%s: the plain message's IV is repeated across the fork", prov);
    }
    EVP_CIPHER_CTX_free(c.rand);
    EVP_CIPHER_CTX_free(c.tls);
    EVP_CIPHER_CTX_free(c.plain);
    EVP_CIPHER_CTX_free(c.stream);
    EVP_CIPHER_free(gcm);
    return same;
}

int main(int argc, char **argv)
{
    unsigned long ver = OpenSSL_version_num();
    tu_rng rng;

    tu_init("fork_test");
    if (!(argc == 2 || (argc == 4 && strcmp(argv[2], "--expect-kernel") == 0)))
        tu_die("usage: fork_test MODULE [--expect-kernel TIER]");
    /* Both providers in a library context of the test's own (an OPENSSL_CONF goes unread). */
    if ((libctx = OSSL_LIB_CTX_new()) == NULL
        || (prov_default = OSSL_PROVIDER_load(libctx, "default")) == NULL
        || (prov_aesfast = OSSL_PROVIDER_load(libctx, argv[1])) == NULL)
        tu_die("loading default and %s", argv[1]);
    if (argc == 4) {
        char kernel[32] = "?", *kp = kernel;
        OSSL_PARAM kparam[] = {OSSL_PARAM_utf8_ptr("aesfast-kernel", &kp, 0), OSSL_PARAM_END};
        if (!OSSL_PROVIDER_get_params(prov_aesfast, kparam) || strcmp(kp, argv[3]) != 0)
            tu_die("aesfast runs %s, not %s", kp, argv[3]);
    }
    gcm_default = fetch("default");
    tu_rng_seed(&rng, 18, 2);
    tu_rng_fill(&rng, key, sizeof(key));
    tu_rng_fill(&rng, skey, sizeof(skey));
    tu_rng_fill(&rng, fixed, sizeof(fixed));
    tu_rng_fill(&rng, siv, sizeof(siv));
    tu_rng_fill(&rng, pt, sizeof(pt));
    tu_rng_fill(&rng, aad, sizeof(aad));
    printf("fork_test: %s\n", OpenSSL_version(OPENSSL_VERSION));

    run("aesfast", 1);
    {
        EVP_CIPHER *gcm = fetch("aesfast");

        CHECK(open_after_fork(gcm), "aesfast: a child opens the parent's message on a managed IV "
              "(opening draws no new invocation field)");
        EVP_CIPHER_free(gcm);
    }
    int def_same = run("default", 0);
    if (ver < KNOWN_SAME_BEFORE)
        CHECK(def_same, "the default provider of OpenSSL %lx no longer repeats the nonce in a "
              "child: update KNOWN_SAME_BEFORE and doc/drbg-and-fork.md", ver);
    else if (!def_same)
        printf("  note: this OpenSSL's default provider gives the child a new nonce too\n");

    EVP_CIPHER_free(gcm_default);
    OSSL_PROVIDER_unload(prov_aesfast);
    OSSL_PROVIDER_unload(prov_default);
    OSSL_LIB_CTX_free(libctx);
    return check_summary("fork_test");
}
