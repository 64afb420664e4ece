/*
 * ctr_diff: differential test of AES-CTR, provider under test (aesfast) against OpenSSL's
 * default provider, in one process.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * usage: ctr_diff [--cases N] [--seed S] [--case I] [--provider NAME] [--expect-kernel NAME]
 *
 * Every case draws, from a PRNG seeded by (seed, case index) alone:
 *   - a key size and key;
 *   - an IV, a fifth of them within 16 blocks of a 32-, 64- or 128-bit counter wrap (OpenSSL's
 *     CTR counter is the whole IV as a big-endian 128-bit integer, so 2^128 wraps to 0);
 *   - a length: mostly 0..1 KiB, some up to 64 KiB, and every 10000th case 1..4 MiB.
 * The default provider encrypts the plaintext in one call; that is the reference. The provider
 * under test then encrypts the plaintext and decrypts the reference ciphertext, each stream with
 * its own random choices: how the context is initialised (and whether it is a reused one: then
 * half the time re-keyed in place, so that the provider's own context is reused), update
 * chunk sizes (0, 1, 15, 16, 17, random, so partial blocks carry over), in-place or not, buffer
 * offsets 0..15, sometimes an EVP_CIPHER_CTX_copy mid-stream (going on with the copy, and
 * sometimes finishing the original too), sometimes a re-init with a new IV and no key
 * mid-stream. Outputs, the "updated-iv" and "iv" parameters, and the bytes around the output
 * buffer are checked.
 *
 * Because each case depends only on (seed, index), a failure prints a command that replays it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>

#include "testutil.h"

#define DEFAULT_CASES 100000
#define DEFAULT_SEED 0x6165736661737431u /* "aesfast1" */
#define MAX_FAILURES 10
#define BIG_CASE_PERIOD 10000           /* one 1..4 MiB case per this many */
#define MAX_FIXED_CALLS 20000           /* cap on update calls with a fixed small chunk */
#define GUARD 32                        /* canary bytes on each side of an output buffer */
#define CANARY 0xa5
#define NO_EVENT ((size_t)-1)

static const size_t keylens[3] = {16, 24, 32};
static const char *const algs[3] = {"AES-128-CTR", "AES-192-CTR", "AES-256-CTR"};

struct harness {
    tu_providers prov;
    EVP_CIPHER *test[3], *ref[3];
    EVP_CIPHER_CTX *refctx;
    uint64_t seed;
    unsigned failures;
    /* Coverage counters, printed at the end so a run shows what it exercised. */
    uint64_t bytes, cases, wrap_ivs, big, copies, duals, reinits, inplace;
    /* Reused EVP_CIPHER_CTXs: re-initialised without naming the cipher, so the provider context
     * itself is reused (same), or with another key size's cipher, so it is recreated (other). */
    uint64_t reused_same, reused_other;
};

/* One case: everything drawn from (seed, index). */
struct tcase {
    uint64_t index;
    int ks; /* index into keylens / algs */
    uint8_t key[32], iv[16];
    char ivkind[24];
    size_t len;
    uint8_t *pt, *ct; /* ct: the default provider's one-shot encryption of pt */
    uint8_t ref_uiv[16];
    char trace[256]; /* the current stream's choices, for the failure report */
};

static void fail(struct harness *h, const struct tcase *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail(struct harness *h, const struct tcase *c, const char *fmt, ...)
{
    va_list ap;

    fflush(stdout);
    fprintf(stderr, "ctr_diff: FAIL seed=0x%016llx case=%llu %s len=%zu iv=%s (",
            (unsigned long long)h->seed, (unsigned long long)c->index, algs[c->ks], c->len,
            c->ivkind);
    tu_hex_print(stderr, c->iv, 16);
    fprintf(stderr, ") key=");
    tu_hex_print(stderr, c->key, keylens[c->ks]);
    fprintf(stderr, " [%s]: ", c->trace);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nctr_diff: replay with: ctr_diff --seed 0x%016llx --case %llu --provider %s\n",
            (unsigned long long)h->seed, (unsigned long long)c->index, h->prov.test_name);
    h->failures++;
}

static void trace(struct tcase *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void trace(struct tcase *c, const char *fmt, ...)
{
    size_t used = strlen(c->trace);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(c->trace + used, sizeof(c->trace) - used, fmt, ap);
    va_end(ap);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n != 0 ? n : 1);

    if (p == NULL)
        tu_die("out of memory");
    return p;
}

/* ---- Case generation ---------------------------------------------------------------------- */

/* A random IV, or with probability 1/5 one whose low 32, 64 or 128 bits are d blocks short of
 * all-ones (d < 16), so that the counter wraps within the first 16 blocks. */
static int gen_iv(tu_rng *r, uint8_t iv[16], char *kind, size_t kindcap)
{
    static const unsigned widths[3] = {32, 64, 128};
    unsigned w, d;

    tu_rng_fill(r, iv, 16);
    if (tu_rng_below(r, 5) != 0) {
        snprintf(kind, kindcap, "random");
        return 0;
    }
    w = widths[tu_rng_below(r, 3)];
    d = (unsigned)tu_rng_below(r, 16);
    memset(iv + 16 - w / 8, 0xff, w / 8);
    iv[15] = (uint8_t)(0xff - d);
    snprintf(kind, kindcap, "wrap%u-%u", w, d);
    return 1;
}

/*
 * Lengths: 88% uniform in 0..1024 (every tail and every small block count many times over),
 * 12% log-uniform in 1 KiB..64 KiB, and case 9 of every 10000 uniform in 1..4 MiB. That is about
 * 250 MB of data per 100,000 cases, twice through the provider under test.
 */
static size_t gen_len(tu_rng *r, uint64_t index)
{
    if (index % BIG_CASE_PERIOD == 9)
        return ((size_t)1 << 20) + tu_rng_below(r, ((uint64_t)3 << 20) + 1);
    if (tu_rng_below(r, 100) < 88)
        return tu_rng_below(r, 1025);
    size_t base = (size_t)1024 << tu_rng_below(r, 6);
    return base + tu_rng_below(r, base);
}

/* ---- Reference ---------------------------------------------------------------------------- */

/* out = CTR(key, iv) over in, by the default provider in one update; uiv gets its updated IV. */
static void ref_crypt(struct harness *h, int ks, const uint8_t *key, const uint8_t *iv, int enc,
                      const uint8_t *in, uint8_t *out, size_t len, uint8_t uiv[16])
{
    int outl = -1;

    if (!EVP_CipherInit_ex(h->refctx, h->ref[ks], NULL, key, iv, enc)
        || !EVP_CipherUpdate(h->refctx, out, &outl, in, (int)len) || outl != (int)len
        || !tu_final_empty(h->refctx, enc)
        || !tu_get_iv_param(h->refctx, OSSL_CIPHER_PARAM_UPDATED_IV, uiv))
        tu_die("reference (default provider) %s of %zu bytes failed", algs[ks], len);
}

/* ---- Streams through the provider under test ---------------------------------------------- */

enum chunk_mode { CHUNK_ONE, CHUNK_MIXED, CHUNK_FIXED };

struct chunker {
    tu_rng *rng;
    enum chunk_mode mode;
    size_t fixed;
};

static size_t next_chunk(void *arg, size_t remaining)
{
    struct chunker *ch = arg;
    size_t n;

    switch (ch->mode) {
    case CHUNK_ONE:
        return remaining;
    case CHUNK_FIXED:
        n = ch->fixed;
        break;
    default:
        switch (tu_rng_below(ch->rng, 7)) {
        case 0: n = 0; break;
        case 1: n = 1; break;
        case 2: n = 15; break;
        case 3: n = 16; break;
        case 4: n = 17; break;
        case 5: n = 1 + tu_rng_below(ch->rng, 64); break;
        default: n = tu_rng_below(ch->rng, (uint64_t)remaining + 1); break;
        }
    }
    return n < remaining ? n : remaining;
}

static void pick_chunker(struct chunker *ch, tu_rng *r, size_t len, struct tcase *c)
{
    static const size_t fixed_sizes[] = {1, 15, 16, 17, 31, 33, 64, 0 /* random */};
    uint64_t m = tu_rng_below(r, 10);

    ch->rng = r;
    if (m < 3) {
        ch->mode = CHUNK_ONE;
        trace(c, " chunks=one");
        return;
    }
    if (m < 8) {
        ch->mode = CHUNK_MIXED;
        trace(c, " chunks=mixed");
        return;
    }
    ch->fixed = fixed_sizes[tu_rng_below(r, sizeof(fixed_sizes) / sizeof(fixed_sizes[0]))];
    if (ch->fixed == 0)
        ch->fixed = 1 + tu_rng_below(r, tu_rng_below(r, 2) ? 256 : 8192);
    if (len / ch->fixed > MAX_FIXED_CALLS) {
        ch->mode = CHUNK_MIXED;
        trace(c, " chunks=mixed");
    } else {
        ch->mode = CHUNK_FIXED;
        trace(c, " chunks=fixed%zu", ch->fixed);
    }
}

/* Initialise ctx for case c in one of three equivalent ways. */
static int init_ctx(struct harness *h, struct tcase *c, EVP_CIPHER_CTX *ctx, int enc, int style)
{
    const EVP_CIPHER *ci = h->test[c->ks];

    switch (style) {
    case 0: /* everything at once */
        return EVP_CipherInit_ex2(ctx, ci, c->key, c->iv, enc, NULL);
    case 1: /* cipher, then key and IV */
        return EVP_CipherInit_ex(ctx, ci, NULL, NULL, NULL, enc)
               && EVP_CipherInit_ex(ctx, NULL, NULL, c->key, c->iv, -1);
    default: /* cipher and key, then the IV alone */
        return EVP_CipherInit_ex(ctx, ci, NULL, c->key, NULL, enc)
               && EVP_CipherInit_ex(ctx, NULL, NULL, NULL, c->iv, -1);
    }
}

/*
 * Initialise a reused ctx for case c without naming the cipher: libcrypto then keeps the
 * provider's context (naming any cipher, even the same one, makes EVP_CipherInit reset the
 * EVP_CIPHER_CTX, freeing it), so the provider must itself clear the old stream. Three ways, as
 * in init_ctx: key and IV at once, key then IV, IV then key.
 */
static int reinit_ctx(struct tcase *c, EVP_CIPHER_CTX *ctx, int enc, int style)
{
    switch (style) {
    case 0:
        return EVP_CipherInit_ex2(ctx, NULL, c->key, c->iv, enc, NULL);
    case 1:
        return EVP_CipherInit_ex(ctx, NULL, NULL, c->key, NULL, enc)
               && EVP_CipherInit_ex(ctx, NULL, NULL, NULL, c->iv, -1);
    default:
        return EVP_CipherInit_ex(ctx, NULL, NULL, NULL, c->iv, enc)
               && EVP_CipherInit_ex(ctx, NULL, NULL, c->key, NULL, -1);
    }
}

/*
 * Leave a reused context in an unrelated state first: a random key and IV, the other direction
 * and a partial block pending (5 bytes into a keystream block), so that re-initialising it has
 * something to clear. With same, the case's own cipher (the caller then re-inits without naming
 * a cipher, so the provider context itself is reused); otherwise another key size (the caller's
 * init names the cipher, and libcrypto frees the provider context and makes a new one).
 */
static void dirty_ctx(struct harness *h, struct tcase *c, EVP_CIPHER_CTX *ctx, int enc, int same,
                      tu_rng *r)
{
    uint8_t junk[32 + 16 + 5];
    int ks = same ? c->ks : (c->ks + 1 + (int)tu_rng_below(r, 2)) % 3, outl;

    tu_rng_fill(r, junk, sizeof(junk));
    if (!EVP_CipherInit_ex(ctx, h->test[ks], NULL, junk, junk + 32, !enc)
        || !EVP_CipherUpdate(ctx, junk, &outl, junk, 5) || outl != 5
        || EVP_CIPHER_CTX_get_num(ctx) != 5)
        tu_die("could not prepare a context for reuse");
}

/* The pre bytes before the output and GUARD bytes after its len bytes must be untouched. */
static int check_canaries(const uint8_t *buf, size_t pre, size_t len)
{
    for (size_t i = 0; i < pre; i++)
        if (buf[i] != CANARY)
            return 0;
    for (size_t i = pre + len; i < pre + len + GUARD; i++)
        if (buf[i] != CANARY)
            return 0;
    return 1;
}

static int same16(const uint8_t a[16], const uint8_t b[16]) { return memcmp(a, b, 16) == 0; }

/* got holds bytes from..to-1 of a stream whose expected bytes are want[0..to-1]. */
static int check_bytes(struct harness *h, struct tcase *c, const char *what, const uint8_t *got,
                       const uint8_t *want, size_t from, size_t to)
{
    size_t i = tu_first_diff(got, want + from, to - from);

    if (i == (size_t)-1)
        return 1;
    i += from;
    fail(h, c, "%s differs at byte %zu (block %zu): got %02x want %02x", what, i, i / 16,
         got[i - from], want[i]);
    return 0;
}

static void check_iv(struct harness *h, struct tcase *c, const char *what, const uint8_t got[16],
                     const uint8_t want[16])
{
    if (same16(got, want))
        return;
    fail(h, c, "%s mismatch", what);
    fprintf(stderr, "  got  ");
    tu_hex_print(stderr, got, 16);
    fprintf(stderr, "\n  want ");
    tu_hex_print(stderr, want, 16);
    fputc('\n', stderr);
}

enum event_kind { EV_COPY, EV_REINIT };

struct event {
    enum event_kind kind;
    size_t at;
};

/*
 * One direction of case c through the provider under test: in is pt (enc) or the reference ct
 * (dec), want the matching other one. *reuse is a context left over from an earlier stream of
 * this case (or NULL); on return it holds this stream's final context.
 */
static void run_stream(struct harness *h, struct tcase *c, tu_rng *r, int enc, const uint8_t *in,
                       const uint8_t *want, EVP_CIPHER_CTX **reuse)
{
    const size_t len = c->len;
    struct chunker ch;
    struct event ev[2];
    int nev = 0, inplace, style, reuse_it, keep = 0, dual = 0, reinit_seen = 0, alt_saw_reinit = 0;
    size_t in_off, out_off, pos = 0, copy_at = 0, reinit_at = 0;
    uint8_t iv2[16], uiv[16], oiv[16], alt_uiv[16], want_uiv[16], base_uiv[16], ref_uiv[16];
    uint8_t *srcbuf = NULL, *dstbuf, *src, *dst, *alt = NULL, *expect = NULL;
    char iv2kind[24];
    EVP_CIPHER_CTX *active;

    c->trace[0] = '\0';
    trace(c, "%s", enc ? "encrypt" : "decrypt");

    /* Draw every choice up front, so that the trace is complete whatever step fails. */
    inplace = tu_rng_below(r, 3) == 0;
    in_off = tu_rng_below(r, 4) == 0 ? 0 : 1 + tu_rng_below(r, 15);
    out_off = inplace ? in_off : tu_rng_below(r, 4) == 0 ? 0 : 1 + tu_rng_below(r, 15);
    style = (int)tu_rng_below(r, 3);
    reuse_it = *reuse != NULL && tu_rng_below(r, 2) == 0;
    if (reuse_it)
        keep = tu_rng_below(r, 2) == 0;
    trace(c, " ctx=%s init=%d %s in+%zu out+%zu",
          !reuse_it ? "new" : keep ? "reused-same-cipher" : "reused-other-cipher", style,
          inplace ? "in-place" : "out-of-place", in_off, out_off);
    pick_chunker(&ch, r, len, c);
    if (tu_rng_below(r, 16) == 0) {
        copy_at = tu_rng_below(r, (uint64_t)len + 1);
        dual = tu_rng_below(r, 2) == 0;
        ev[nev++] = (struct event){EV_COPY, copy_at};
        trace(c, " copy@%zu%s", copy_at, dual ? "+original" : "");
    }
    if (tu_rng_below(r, 16) == 0) {
        reinit_at = tu_rng_below(r, (uint64_t)len + 1);
        gen_iv(r, iv2, iv2kind, sizeof(iv2kind));
        ev[nev++] = (struct event){EV_REINIT, reinit_at};
        trace(c, " reinit@%zu iv2=%s:", reinit_at, iv2kind);
        for (int i = 0; i < 16; i++)
            trace(c, "%02x", iv2[i]);
    }
    /* Events run in position order; a tie goes either way. */
    if (nev == 2 && (ev[1].at < ev[0].at || (ev[1].at == ev[0].at && tu_rng_below(r, 2)))) {
        struct event t = ev[0];
        ev[0] = ev[1];
        ev[1] = t;
    }

    /* Buffers: the output sits between two canary zones; in-place streams share it. */
    dstbuf = xmalloc(len + 2 * GUARD + 16);
    memset(dstbuf, CANARY, len + 2 * GUARD + 16);
    dst = dstbuf + GUARD + out_off;
    if (inplace) {
        src = dst;
        memcpy(dst, in, len);
    } else {
        srcbuf = xmalloc(len + 16);
        src = srcbuf + in_off;
        memcpy(src, in, len);
    }

    if (reuse_it) {
        active = *reuse;
        dirty_ctx(h, c, active, enc, keep, r);
        if (keep)
            h->reused_same++;
        else
            h->reused_other++;
    } else if ((active = EVP_CIPHER_CTX_new()) == NULL) {
        tu_die("out of memory");
    }
    h->inplace += inplace;
    if (!(keep ? reinit_ctx(c, active, enc, style) : init_ctx(h, c, active, enc, style))) {
        fail(h, c, "initialisation failed");
        ERR_print_errors_fp(stderr);
        goto out;
    }

    for (int e = 0;; e++) {
        size_t end = e < nev ? ev[e].at : len;

        if (!tu_update_chunked(active, enc, dst + pos, src + pos, end - pos, next_chunk, &ch)) {
            fail(h, c, "update failed between offsets %zu and %zu", pos, end);
            goto out;
        }
        h->bytes += end - pos;
        pos = end;
        if (e == nev)
            break;

        if (ev[e].kind == EV_REINIT) {
            if (!EVP_CipherInit_ex(active, NULL, NULL, NULL, iv2, -1)) {
                fail(h, c, "re-init with a new IV failed at offset %zu", pos);
                ERR_print_errors_fp(stderr);
                goto out;
            }
            reinit_seen = 1;
            h->reinits++;
            continue;
        }

        EVP_CIPHER_CTX *copy = EVP_CIPHER_CTX_new();

        if (copy == NULL || !EVP_CIPHER_CTX_copy(copy, active)) {
            EVP_CIPHER_CTX_free(copy);
            fail(h, c, "EVP_CIPHER_CTX_copy failed at offset %zu", pos);
            ERR_print_errors_fp(stderr);
            goto out;
        }
        h->copies++;
        if (dual) {
            /* Finish the stream on the original first: the copy must not share its state. */
            alt_saw_reinit = reinit_seen;
            alt = xmalloc(len - pos);
            if (!tu_update_chunked(active, enc, alt, in + pos, len - pos, next_chunk, &ch)
                || !tu_final_empty(active, enc)
                || !tu_get_iv_param(active, OSSL_CIPHER_PARAM_UPDATED_IV, alt_uiv)) {
                fail(h, c, "the original context failed after the copy");
                EVP_CIPHER_CTX_free(copy);
                goto out;
            }
            h->duals++;
            h->bytes += len - pos;
        }
        if (active != *reuse)
            EVP_CIPHER_CTX_free(active);
        active = copy;
    }
    if (!tu_final_empty(active, enc)
        || !tu_get_iv_param(active, OSSL_CIPHER_PARAM_UPDATED_IV, uiv)
        || !tu_get_iv_param(active, OSSL_CIPHER_PARAM_IV, oiv)) {
        fail(h, c, "final or parameter read failed");
        goto out;
    }

    /* Expected output: the reference up to a re-init, then a fresh stream under iv2. */
    memcpy(base_uiv, c->iv, 16);
    tu_ctr_add(base_uiv, tu_ctr_blocks(len));
    expect = xmalloc(len);
    if (reinit_seen) {
        memcpy(expect, want, reinit_at);
        ref_crypt(h, c->ks, c->key, iv2, enc, in + reinit_at, expect + reinit_at,
                  len - reinit_at, ref_uiv);
        memcpy(want_uiv, iv2, 16);
        tu_ctr_add(want_uiv, tu_ctr_blocks(len - reinit_at));
    } else {
        memcpy(expect, want, len);
        memcpy(ref_uiv, c->ref_uiv, 16);
        memcpy(want_uiv, base_uiv, 16);
    }

    check_bytes(h, c, "output", dst, expect, 0, len);
    if (!check_canaries(dstbuf, GUARD + out_off, len))
        fail(h, c, "bytes outside the output buffer were written");
    check_iv(h, c, "updated-iv vs the default provider's", uiv, ref_uiv);
    check_iv(h, c, "the default provider's updated-iv vs IV + ceil(len/16)", ref_uiv, want_uiv);
    check_iv(h, c, "iv (original IV) parameter", oiv, reinit_seen ? iv2 : c->iv);
    if (alt != NULL) {
        /* The original context saw the re-init only if it came before the copy. */
        check_bytes(h, c, "output of the original context after the copy",
                    alt, alt_saw_reinit ? expect : want, copy_at, len);
        check_iv(h, c, "updated-iv of the original context after the copy", alt_uiv,
                 alt_saw_reinit ? want_uiv : base_uiv);
    }

out:
    if (active != *reuse) {
        EVP_CIPHER_CTX_free(*reuse);
        *reuse = active;
    }
    free(expect);
    free(alt);
    free(srcbuf);
    free(dstbuf);
}

static void run_case(struct harness *h, uint64_t index)
{
    struct tcase c = {.index = index};
    EVP_CIPHER_CTX *ctx = NULL;
    tu_rng r;

    tu_rng_seed(&r, h->seed, index);
    c.ks = (int)tu_rng_below(&r, 3);
    tu_rng_fill(&r, c.key, sizeof(c.key));
    h->wrap_ivs += gen_iv(&r, c.iv, c.ivkind, sizeof(c.ivkind));
    c.len = gen_len(&r, index);
    h->big += c.len > 65536;
    c.pt = xmalloc(c.len);
    c.ct = xmalloc(c.len);
    tu_rng_fill(&r, c.pt, c.len);
    ref_crypt(h, c.ks, c.key, c.iv, 1, c.pt, c.ct, c.len, c.ref_uiv);

    run_stream(h, &c, &r, 1, c.pt, c.ct, &ctx);
    run_stream(h, &c, &r, 0, c.ct, c.pt, &ctx);

    EVP_CIPHER_CTX_free(ctx);
    free(c.pt);
    free(c.ct);
    h->cases++;
}

/* ---- Main --------------------------------------------------------------------------------- */

static void usage(void)
{
    fprintf(stderr,
            "usage: ctr_diff [--cases N] [--seed S] [--case I] [--provider NAME] "
            "[--expect-kernel NAME]\n"
            "  --cases N            number of cases (default %d)\n"
            "  --seed S             PRNG seed, decimal or 0x hex (default 0x%016llx)\n"
            "  --case I             run only case I (to replay a failure)\n"
            "  --provider NAME      provider under test (default aesfast)\n"
            "  --expect-kernel NAME fail unless the provider's aesfast-kernel is NAME\n",
            DEFAULT_CASES, (unsigned long long)DEFAULT_SEED);
    exit(2);
}

int main(int argc, char **argv)
{
    struct harness h = {.seed = DEFAULT_SEED};
    const char *provider = "aesfast", *expect_kernel = NULL;
    uint64_t cases = DEFAULT_CASES, only = 0;
    int have_only = 0;
    double t0, t;

    tu_init(argv[0]);
    /* Every option takes a value. */
    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (v == NULL)
            usage();
        else if (strcmp(a, "--cases") == 0)
            cases = tu_parse_u64(a, v);
        else if (strcmp(a, "--seed") == 0)
            h.seed = tu_parse_u64(a, v);
        else if (strcmp(a, "--case") == 0)
            only = tu_parse_u64(a, v), have_only = 1;
        else if (strcmp(a, "--provider") == 0)
            provider = v;
        else if (strcmp(a, "--expect-kernel") == 0)
            expect_kernel = v;
        else
            usage();
    }

    tu_providers_load(&h.prov, provider, expect_kernel);
    for (int k = 0; k < 3; k++) {
        h.test[k] = tu_fetch_cipher(algs[k], provider);
        h.ref[k] = tu_fetch_cipher(algs[k], "default");
        if (EVP_CIPHER_get_block_size(h.test[k]) != 1
            || EVP_CIPHER_get_iv_length(h.test[k]) != 16
            || EVP_CIPHER_get_key_length(h.test[k]) != (int)keylens[k]
            || EVP_CIPHER_get_mode(h.test[k]) != EVP_CIPH_CTR_MODE)
            tu_die("%s from %s: block size %d, IV length %d, key length %d, mode %d; expected "
                   "1, 16, %zu, CTR",
                   algs[k], provider, EVP_CIPHER_get_block_size(h.test[k]),
                   EVP_CIPHER_get_iv_length(h.test[k]), EVP_CIPHER_get_key_length(h.test[k]),
                   EVP_CIPHER_get_mode(h.test[k]), keylens[k]);
    }
    if ((h.refctx = EVP_CIPHER_CTX_new()) == NULL)
        tu_die("out of memory");

    t0 = tu_now();
    if (have_only) {
        run_case(&h, only);
    } else {
        for (uint64_t i = 0; i < cases && h.failures < MAX_FAILURES; i++)
            run_case(&h, i);
    }
    t = tu_now() - t0;

    printf("ctr_diff: seed 0x%016llx: %.1f MiB through %s in %.2f s; %llu wrap IVs, %llu big, "
           "%llu copies (%llu finished on both), %llu re-inits, %llu in-place; reused contexts: "
           "%llu re-keyed in place (same cipher, provider context kept), %llu with another key "
           "size (provider context recreated)\n",
           (unsigned long long)h.seed, h.bytes / 1048576.0, provider, t,
           (unsigned long long)h.wrap_ivs, (unsigned long long)h.big,
           (unsigned long long)h.copies, (unsigned long long)h.duals,
           (unsigned long long)h.reinits, (unsigned long long)h.inplace,
           (unsigned long long)h.reused_same, (unsigned long long)h.reused_other);
    if (h.failures != 0)
        printf("ctr_diff: FAILED: %u failures in %llu cases (kernel %s, %s)\n", h.failures,
               (unsigned long long)h.cases, h.prov.kernel, OpenSSL_version(OPENSSL_VERSION));
    else
        printf("ctr_diff: %llu case%s passed (kernel %s, %s)\n", (unsigned long long)h.cases,
               h.cases == 1 ? "" : "s", h.prov.kernel, OpenSSL_version(OPENSSL_VERSION));

    EVP_CIPHER_CTX_free(h.refctx);
    for (int k = 0; k < 3; k++) {
        EVP_CIPHER_free(h.test[k]);
        EVP_CIPHER_free(h.ref[k]);
    }
    tu_providers_unload(&h.prov);
    return h.failures != 0;
}
