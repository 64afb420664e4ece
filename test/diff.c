/*
 * diff: differential test of every mode aesfast offers, the provider under test against
 * OpenSSL's default provider, in one process.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * usage: diff --mode ctr|gcm|gcmsiv [--cases N] [--seed S] [--case I] [--max-len N]
 *             [--provider NAME] [--expect-kernel NAME]
 *
 * Every case draws, from a PRNG seeded by (seed, case index) alone, its inputs and the way they
 * are fed; a failure prints a command that replays that one case. "--provider default" runs the
 * default provider against itself: the self-check of the test's own expectations.
 *
 * --mode ctr (AES-128/192/256-CTR):
 *   - a key size and key;
 *   - an IV, a fifth of them within 16 blocks of a 32-, 64- or 128-bit counter wrap (OpenSSL's
 *     CTR counter is the whole IV as a big-endian 128-bit integer, so 2^128 wraps to 0);
 *   - a length: mostly 0..1 KiB, some up to 64 KiB, and every 10000th case 1..4 MiB.
 *   The default provider encrypts the plaintext in one call; that is the reference. The provider
 *   under test then encrypts the plaintext and decrypts the reference ciphertext, each stream with
 *   its own random choices: how the context is initialised (and whether it is a reused one: then
 *   half the time re-keyed in place, so that the provider's own context is reused), update
 *   chunk sizes (0, 1, 15, 16, 17, random, so partial blocks carry over), in-place or not, buffer
 *   offsets 0..15, sometimes an EVP_CIPHER_CTX_copy mid-stream (going on with the copy, and
 *   sometimes finishing the original too), sometimes a re-init with a new IV and no key
 *   mid-stream. Outputs, the "updated-iv" and "iv" parameters, and the bytes around the output
 *   buffer are checked.
 *
 * --mode gcm (AES-128/192/256-GCM):
 *   - a key size and key; an IV of 12 bytes (60%) or 1..128 bytes (set with the "ivlen"
 *     parameter or EVP_CTRL_AEAD_SET_IVLEN); AAD of 0..1 KiB; data as for CTR but smaller
 *     (mostly 0..512 bytes, some up to 64 KiB, every 10000th case 1..4 MiB);
 *   - case 7 of every 50: an IV of 4..128 bytes (not 12) whose J0 = GHASH(IV || pad || length)
 *     puts the 32-bit counter wrap 0..4095 blocks into the data, and a message that crosses it.
 *     The test computes J0 with its own bitwise GHASH and checks that the default provider's
 *     keystream at that block is E(J0 with counter word 0).
 *   Each case runs an encryption, a decryption and, half the time, a decryption with one bit
 *   of the tag, the AAD or the ciphertext flipped, each on both providers in lockstep: every EVP
 *   call is made on a context of each, and results, output lengths, outputs and tags must agree
 *   (and agree with a one-shot reference). Per stream, at random: the init call sequence (five
 *   ways, IV before or after the key), a reused context (with or without naming the cipher, so
 *   the provider context is kept or recreated), AAD and data update sizes, in-place or not,
 *   offsets 0..15, a tag length 1..16 (got and set by ctrl or by parameter; set at any point
 *   before final, even before a re-init), EVP_CIPHER_CTX_copy mid-stream (sometimes finishing
 *   the original too), a re-init with a new IV alone mid-stream (the message starts over), and
 *   probes whose outcome the default provider defines: the ivlen/keylen/taglen/iv/updated-iv
 *   parameters, the tag before final, a tag set when encrypting, AAD after data, tags of 0 or
 *   17 bytes, update and final after final. Tampered messages must fail on both. Case 3 of every
 *   25 also encrypts with no IV set (the providers draw one; decrypting with none must fail):
 *   the default provider must decrypt the result under the IV the "iv" parameter reports.
 *
 * --mode gcmsiv (AES-128/192/256-GCM-SIV, RFC 8452; needs a default provider that has it, OpenSSL
 * 3.2+: on 3.0 the program exits 77, skipped, with the reason):
 *   - a key size and key, a 12-byte nonce, AAD of 0..1 KiB, data as for GCM (mostly 0..512 bytes,
 *     some up to 64 KiB) plus 1..4 MiB in 1 case of every 4000 and 10000 (--max-len reduces all);
 *     but the first 9369 cases sweep every data length 0..1040 bytes with AAD of 0, 1, 13, 16,
 *     17, 127, 128, 129 and 144 bytes (the short-message kernels' bounds and the stream's queue);
 *   - the reference: the default provider's seal in one update each, on a fresh provider context;
 *   Each case seals, opens and, half the time, opens with one bit of the tag, the AAD or the
 *   ciphertext flipped, each on both providers in lockstep (results, output lengths, outputs
 *   and tags must agree, and agree with the reference). The default provider's known flaws are
 *   kept out of its side only: its AAD survives an init that does not name the cipher (so such a
 *   re-init is followed, there only, by an empty AAD update, which resets its AAD), it takes an
 *   empty AAD update as that reset (so empty AAD chunks go to aesfast only, where they are
 *   no-ops), and its final fails for an empty message sealed with no data update (aesfast's seals
 *   it: so that is done on aesfast only). Per stream, at random: a reused context (half the time
 *   first left with a message's AAD, and perhaps data, under another nonce: aesfast's next init
 *   must start afresh), the init sequence (six ways: nonce before or after the key, the nonce
 *   alone on a reused context, or the cipher named first: a new provider context), the tag set
 *   by ctrl or parameter after the init, between its two calls, or as an init parameter, AAD
 *   update sizes, EVP_Cipher instead of update/final, EVP_CIPHER_CTX_copy mid-AAD, the data in
 *   one update, in place or not, at offsets 0..15, canaries around the output; an empty message
 *   by final alone; a second data update after final, which both must refuse; and in case 5 of
 *   every 20 the "speed" parameter: 2..4 messages in one context under the same nonce and AAD
 *   (sealing: other messages, each tag read after its update; opening: the same one again).
 *   A tampered open must fail on both: aesfast in the data update, with every output byte zero
 *   (wiped: none of the unverified plaintext left) and the canaries intact; the default provider
 *   at final (its update releases the unverified plaintext, which is not compared).
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

static const size_t keylens[3] = {16, 24, 32};

struct harness {
    tu_providers prov;
    const char *mode;
    EVP_CIPHER *test[3], *ref[3], *ecb[3]; /* the mode's ciphers; ecb: GCM's reference GHASH */
    EVP_CIPHER_CTX *refctx, *ecbctx;
    uint64_t seed;
    size_t max_len; /* GCM: data length cap (0: none), for runs under an emulator */
    unsigned failures;
    /* Coverage counters, printed at the end so a run shows what it exercised. */
    uint64_t bytes, cases, wrap_ivs, big, copies, duals, reinits, inplace;
    /* Reused EVP_CIPHER_CTXs: re-initialised without naming the cipher, so the provider context
     * itself is reused (same), or naming a cipher, so it is recreated (other). */
    uint64_t reused_same, reused_other;
    uint64_t non12, short_tags, tampered, probes; /* GCM */
    uint64_t stricter; /* GCM: refusals after a failed final where default goes on */
    uint64_t ecalls;   /* GCM: streams through EVP_Cipher */
    uint64_t random_ivs; /* GCM: encryptions with an IV the provider drew */
    /* GCM-SIV: empty AAD updates resetting default's AAD, "speed" streams, empty messages by
     * final alone, failed opens checked wiped, second data updates refused */
    uint64_t resets, speeds, final_only, wiped, again;
};

static void appendf(char *buf, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void appendf(char *buf, size_t cap, const char *fmt, ...)
{
    size_t used = strlen(buf);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf + used, cap - used, fmt, ap);
    va_end(ap);
}

/* Each mode's case keeps the current stream's choices in a char array named trace. */
#define TRACE(c, ...) appendf((c)->trace, sizeof((c)->trace), __VA_ARGS__)

/*
 * A failure report: fail_head, the mode's case inputs (enough to rebuild the case by hand), then
 * fail_tail: the stream's choices, the message, and a line with the command that replays the
 * case (seed and index draw all of it again), then whatever OpenSSL queued.
 */
static void fail_head(const struct harness *h, uint64_t index)
{
    fflush(stdout);
    fprintf(stderr, "diff: FAIL mode=%s seed=0x%016llx case=%llu ", h->mode,
            (unsigned long long)h->seed, (unsigned long long)index);
}

static void fail_tail(struct harness *h, uint64_t index, const char *trace, const char *fmt,
                      va_list ap) __attribute__((format(printf, 4, 0)));

static void fail_tail(struct harness *h, uint64_t index, const char *trace, const char *fmt,
                      va_list ap)
{
    fprintf(stderr, " [%s]: ", trace);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\ndiff: replay with: diff --mode %s --seed 0x%016llx --case %llu "
            "--provider %s\n", h->mode, (unsigned long long)h->seed, (unsigned long long)index,
            h->prov.test_name);
    ERR_print_errors_fp(stderr);
    h->failures++;
}

/* The AEAD modes' inputs, when both are short enough to read in a report. */
static void fail_small_inputs(const uint8_t *aad, size_t aadlen, const uint8_t *pt, size_t len)
{
    if (aadlen <= 64 && len <= 64) {
        fprintf(stderr, " aad=");
        tu_hex_print(stderr, aad, aadlen);
        fprintf(stderr, " pt=");
        tu_hex_print(stderr, pt, len);
    }
}

/* ---- Update sizes ------------------------------------------------------------------------- */

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

static void pick_chunker(struct chunker *ch, tu_rng *r, size_t len, char *tr, size_t cap)
{
    static const size_t fixed_sizes[] = {1, 15, 16, 17, 31, 33, 64, 0 /* random */};
    uint64_t m = tu_rng_below(r, 10);

    ch->rng = r;
    if (m < 3) {
        ch->mode = CHUNK_ONE;
        appendf(tr, cap, " chunks=one");
        return;
    }
    if (m < 8) {
        ch->mode = CHUNK_MIXED;
        appendf(tr, cap, " chunks=mixed");
        return;
    }
    ch->fixed = fixed_sizes[tu_rng_below(r, sizeof(fixed_sizes) / sizeof(fixed_sizes[0]))];
    if (ch->fixed == 0)
        ch->fixed = 1 + tu_rng_below(r, tu_rng_below(r, 2) ? 256 : 8192);
    if (len / ch->fixed > MAX_FIXED_CALLS) {
        ch->mode = CHUNK_MIXED;
        appendf(tr, cap, " chunks=mixed");
    } else {
        ch->mode = CHUNK_FIXED;
        appendf(tr, cap, " chunks=fixed%zu", ch->fixed);
    }
}

/* An output buffer: GUARD canary bytes, 0..15 more (the offset), len output bytes, GUARD more. */
static size_t canary_size(size_t len) { return len + 2 * GUARD + 16; }

static uint8_t *canary_buf(size_t len)
{
    uint8_t *buf = tu_xmalloc(canary_size(len));

    memset(buf, CANARY, canary_size(len));
    return buf;
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

/* ==== CTR ===================================================================================== */

static const char *const ctr_algs[3] = {"AES-128-CTR", "AES-192-CTR", "AES-256-CTR"};

/* One case: everything drawn from (seed, index). */
struct tcase {
    uint64_t index;
    int ks; /* index into keylens / ctr_algs */
    uint8_t key[32], iv[16];
    char ivkind[24];
    size_t len;
    uint8_t *pt, *ct; /* ct: the default provider's one-shot encryption of pt */
    uint8_t ref_uiv[16];
    char trace[256]; /* the current stream's choices, for the failure report */
};

static void ctr_fail(struct harness *h, const struct tcase *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void ctr_fail(struct harness *h, const struct tcase *c, const char *fmt, ...)
{
    va_list ap;

    fail_head(h, c->index);
    fprintf(stderr, "%s len=%zu iv=%s (", ctr_algs[c->ks], c->len, c->ivkind);
    tu_hex_print(stderr, c->iv, 16);
    fprintf(stderr, ") key=");
    tu_hex_print(stderr, c->key, keylens[c->ks]);
    va_start(ap, fmt);
    fail_tail(h, c->index, c->trace, fmt, ap);
    va_end(ap);
}

/* ---- Case generation ---------------------------------------------------------------------- */

/* A random IV, or with probability 1/5 one whose low 32, 64 or 128 bits are d blocks short of
 * all-ones (d < 16), so that the counter wraps within the first 16 blocks. */
static int ctr_gen_iv(tu_rng *r, uint8_t iv[16], char *kind, size_t kindcap)
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
static size_t ctr_gen_len(tu_rng *r, uint64_t index)
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
static void ctr_ref_crypt(struct harness *h, int ks, const uint8_t *key, const uint8_t *iv,
                          int enc, const uint8_t *in, uint8_t *out, size_t len, uint8_t uiv[16])
{
    int outl = -1;

    if (!EVP_CipherInit_ex(h->refctx, h->ref[ks], NULL, key, iv, enc)
        || !EVP_CipherUpdate(h->refctx, out, &outl, in, (int)len) || outl != (int)len
        || !tu_final_empty(h->refctx, enc)
        || !tu_get_iv_param(h->refctx, OSSL_CIPHER_PARAM_UPDATED_IV, uiv))
        tu_die("reference (default provider) %s of %zu bytes failed", ctr_algs[ks], len);
    /* The default provider offers the IV as a pointer first: refused by our octet string
     * parameter, that queues an error even though the read succeeds. A failure report shows
     * the queue: only errors of the failing stream belong in it. */
    ERR_clear_error();
}

/* ---- Streams through the provider under test ---------------------------------------------- */

/* Initialise ctx for case c in one of three equivalent ways. */
static int ctr_init_ctx(struct harness *h, struct tcase *c, EVP_CIPHER_CTX *ctx, int enc,
                        int style)
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
static int ctr_reinit_ctx(struct tcase *c, EVP_CIPHER_CTX *ctx, int enc, int style)
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
static void ctr_dirty_ctx(struct harness *h, struct tcase *c, EVP_CIPHER_CTX *ctx, int enc,
                          int same, tu_rng *r)
{
    uint8_t junk[32 + 16 + 5];
    int ks = same ? c->ks : (c->ks + 1 + (int)tu_rng_below(r, 2)) % 3, outl;

    tu_rng_fill(r, junk, sizeof(junk));
    if (!EVP_CipherInit_ex(ctx, h->test[ks], NULL, junk, junk + 32, !enc)
        || !EVP_CipherUpdate(ctx, junk, &outl, junk, 5) || outl != 5
        || EVP_CIPHER_CTX_get_num(ctx) != 5)
        tu_die("could not prepare a context for reuse");
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
    ctr_fail(h, c, "%s differs at byte %zu (block %zu): got %02x want %02x", what, i, i / 16,
         got[i - from], want[i]);
    return 0;
}

static void check_iv(struct harness *h, struct tcase *c, const char *what, const uint8_t got[16],
                     const uint8_t want[16])
{
    if (same16(got, want))
        return;
    ctr_fail(h, c, "%s mismatch", what);
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
static void ctr_stream(struct harness *h, struct tcase *c, tu_rng *r, int enc, const uint8_t *in,
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
    TRACE(c, "%s", enc ? "encrypt" : "decrypt");

    /* Draw every choice up front, so that the trace is complete whatever step fails. */
    inplace = tu_rng_below(r, 3) == 0;
    in_off = tu_rng_below(r, 4) == 0 ? 0 : 1 + tu_rng_below(r, 15);
    out_off = inplace ? in_off : tu_rng_below(r, 4) == 0 ? 0 : 1 + tu_rng_below(r, 15);
    style = (int)tu_rng_below(r, 3);
    reuse_it = *reuse != NULL && tu_rng_below(r, 2) == 0;
    if (reuse_it)
        keep = tu_rng_below(r, 2) == 0;
    TRACE(c, " ctx=%s init=%d %s in+%zu out+%zu",
          !reuse_it ? "new" : keep ? "reused-same-cipher" : "reused-other-cipher", style,
          inplace ? "in-place" : "out-of-place", in_off, out_off);
    pick_chunker(&ch, r, len, c->trace, sizeof(c->trace));
    if (tu_rng_below(r, 16) == 0) {
        copy_at = tu_rng_below(r, (uint64_t)len + 1);
        dual = tu_rng_below(r, 2) == 0;
        ev[nev++] = (struct event){EV_COPY, copy_at};
        TRACE(c, " copy@%zu%s", copy_at, dual ? "+original" : "");
    }
    if (tu_rng_below(r, 16) == 0) {
        reinit_at = tu_rng_below(r, (uint64_t)len + 1);
        ctr_gen_iv(r, iv2, iv2kind, sizeof(iv2kind));
        ev[nev++] = (struct event){EV_REINIT, reinit_at};
        TRACE(c, " reinit@%zu iv2=%s:", reinit_at, iv2kind);
        for (int i = 0; i < 16; i++)
            TRACE(c, "%02x", iv2[i]);
    }
    /* Events run in position order; a tie goes either way. */
    if (nev == 2 && (ev[1].at < ev[0].at || (ev[1].at == ev[0].at && tu_rng_below(r, 2)))) {
        struct event t = ev[0];
        ev[0] = ev[1];
        ev[1] = t;
    }

    /* Buffers: the output sits between two canary zones; in-place streams share it. */
    dstbuf = canary_buf(len);
    dst = dstbuf + GUARD + out_off;
    if (inplace) {
        src = dst;
        memcpy(dst, in, len);
    } else {
        srcbuf = tu_xmalloc(len + 16);
        src = srcbuf + in_off;
        memcpy(src, in, len);
    }

    if (reuse_it) {
        active = *reuse;
        ctr_dirty_ctx(h, c, active, enc, keep, r);
        if (keep)
            h->reused_same++;
        else
            h->reused_other++;
    } else if ((active = EVP_CIPHER_CTX_new()) == NULL) {
        tu_die("out of memory");
    }
    h->inplace += inplace;
    if (!(keep ? ctr_reinit_ctx(c, active, enc, style) : ctr_init_ctx(h, c, active, enc, style))) {
        ctr_fail(h, c, "initialisation failed");
        goto out;
    }

    for (int e = 0;; e++) {
        size_t end = e < nev ? ev[e].at : len;

        if (!tu_update_chunked(active, enc, dst + pos, src + pos, end - pos, next_chunk, &ch)) {
            ctr_fail(h, c, "update failed between offsets %zu and %zu", pos, end);
            goto out;
        }
        h->bytes += end - pos;
        pos = end;
        if (e == nev)
            break;

        if (ev[e].kind == EV_REINIT) {
            if (!EVP_CipherInit_ex(active, NULL, NULL, NULL, iv2, -1)) {
                ctr_fail(h, c, "re-init with a new IV failed at offset %zu", pos);
                goto out;
            }
            reinit_seen = 1;
            h->reinits++;
            continue;
        }

        EVP_CIPHER_CTX *copy = EVP_CIPHER_CTX_new();

        if (copy == NULL || !EVP_CIPHER_CTX_copy(copy, active)) {
            EVP_CIPHER_CTX_free(copy);
            ctr_fail(h, c, "EVP_CIPHER_CTX_copy failed at offset %zu", pos);
            goto out;
        }
        h->copies++;
        if (dual) {
            /* Finish the stream on the original first: the copy must not share its state. */
            alt_saw_reinit = reinit_seen;
            alt = tu_xmalloc(len - pos);
            if (!tu_update_chunked(active, enc, alt, in + pos, len - pos, next_chunk, &ch)
                || !tu_final_empty(active, enc)
                || !tu_get_iv_param(active, OSSL_CIPHER_PARAM_UPDATED_IV, alt_uiv)) {
                ctr_fail(h, c, "the original context failed after the copy");
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
        ctr_fail(h, c, "final or parameter read failed");
        goto out;
    }

    /* Expected output: the reference up to a re-init, then a fresh stream under iv2. */
    memcpy(base_uiv, c->iv, 16);
    tu_ctr_add(base_uiv, tu_ctr_blocks(len));
    expect = tu_xmalloc(len);
    if (reinit_seen) {
        memcpy(expect, want, reinit_at);
        ctr_ref_crypt(h, c->ks, c->key, iv2, enc, in + reinit_at, expect + reinit_at,
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
        ctr_fail(h, c, "bytes outside the output buffer were written");
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

static void ctr_run_case(struct harness *h, uint64_t index)
{
    struct tcase c = {.index = index};
    EVP_CIPHER_CTX *ctx = NULL;
    tu_rng r;

    tu_rng_seed(&r, h->seed, index);
    c.ks = (int)tu_rng_below(&r, 3);
    tu_rng_fill(&r, c.key, sizeof(c.key));
    h->wrap_ivs += ctr_gen_iv(&r, c.iv, c.ivkind, sizeof(c.ivkind));
    c.len = ctr_gen_len(&r, index);
    h->big += c.len > 65536;
    c.pt = tu_xmalloc(c.len);
    c.ct = tu_xmalloc(c.len);
    tu_rng_fill(&r, c.pt, c.len);
    ctr_ref_crypt(h, c.ks, c.key, c.iv, 1, c.pt, c.ct, c.len, c.ref_uiv);

    ctr_stream(h, &c, &r, 1, c.pt, c.ct, &ctx);
    ctr_stream(h, &c, &r, 0, c.ct, c.pt, &ctx);

    EVP_CIPHER_CTX_free(ctx);
    free(c.pt);
    free(c.ct);
    h->cases++;
}

/* ---- Main --------------------------------------------------------------------------------- */
/* ==== GCM ===================================================================================== */

static const char *const gcm_algs[3] = {"AES-128-GCM", "AES-192-GCM", "AES-256-GCM"};
static const char *const ecb_algs[3] = {"AES-128-ECB", "AES-192-ECB", "AES-256-ECB"};

#define GCM_MAX_IV 128       /* the default provider's limit: longer IVs are refused */
#define GCM_MAX_AAD 1024
#define GCM_WRAP_PERIOD 50   /* case 7 of every this many: the 32-bit counter wraps mid-message */
#define GCM_WRAP_MAX_GAP 4096

/* ---- A reference GHASH, for J0 -------------------------------------------------------------- */

/* An element of GF(2^128) in GCM's bit order: hi is bytes 0..7 and lo bytes 8..15 of the block,
 * big-endian, so the top bit of hi is the coefficient of x^0 and the bottom bit of lo of x^127. */
typedef struct gf128 {
    uint64_t hi, lo;
} gf128;

static uint64_t load_be64(const uint8_t *p)
{
    uint64_t v = 0;

    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

static void store_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

static gf128 gf_load(const uint8_t b[16]) { return (gf128){load_be64(b), load_be64(b + 8)}; }

static void gf_store(uint8_t b[16], gf128 x)
{
    store_be64(b, x.hi);
    store_be64(b + 8, x.lo);
}

/* v * x: one bit towards x^127 (a right shift here), x^128 folded back as x^7 + x^2 + x + 1. */
static gf128 gf_mulx(gf128 v)
{
    uint64_t carry = v.lo & 1;

    v.lo = v.lo >> 1 | v.hi << 63;
    v.hi = v.hi >> 1 ^ (carry ? 0xe100000000000000u : 0);
    return v;
}

/* Bitwise multiplication (SP 800-38D, algorithm 1). Branches on data: test code only. */
static gf128 gf_mul(gf128 x, gf128 y)
{
    gf128 z = {0, 0};

    for (int i = 0; i < 128; i++) {
        uint64_t w = i < 64 ? x.hi : x.lo;

        if (w >> (63 - i % 64) & 1) {
            z.hi ^= y.hi;
            z.lo ^= y.lo;
        }
        y = gf_mulx(y);
    }
    return z;
}

/* J0 (SP 800-38D 7.1): IV || 0^31 || 1 for a 12-byte IV, else
 * GHASH_H(IV || zero padding to a block || 0^64 || [bit length of IV]_64). */
static void gcm_j0(gf128 h, const uint8_t *iv, size_t n, uint8_t j0[16])
{
    gf128 y = {0, 0};

    if (n == 12) {
        memcpy(j0, iv, 12);
        memcpy(j0 + 12, "\0\0\0\1", 4);
        return;
    }
    for (size_t off = 0; off < n; off += 16) {
        uint8_t blk[16] = {0};
        gf128 x;

        memcpy(blk, iv + off, n - off < 16 ? n - off : 16);
        x = gf_load(blk);
        y.hi ^= x.hi;
        y.lo ^= x.lo;
        y = gf_mul(y, h);
    }
    y.lo ^= (uint64_t)n * 8;
    gf_store(j0, gf_mul(y, h));
}

static uint32_t load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * Make iv (n bytes, n != 12, n >= 4) an IV whose J0 has the low word 2^32 - 1 - gap: data block
 * number gap (from 0) is then the first whose counter word is 0, and the message crosses the
 * 32-bit wrap if it is longer than 16 * gap bytes.
 *
 * Found by search, but not a blind one: J0 is affine in the IV's bits over GF(2) (J0 = sum over
 * the IV's padded blocks X_k of X_k * H^(nb + 1 - k), plus L * H for the length block L), so its
 * low word is too. Bit p of block k contributes x^p * H^(nb + 1 - k), one gf_mulx step per p.
 * From random IV bytes, Gaussian elimination over those 32-bit columns finds the bits to flip to
 * reach the wanted word. Returns 0 if the columns span less than every word (retry with others).
 */
static int gcm_wrap_iv(gf128 h, uint8_t *iv, size_t n, uint32_t gap, tu_rng *r)
{
    enum { WORDS = GCM_MAX_IV * 8 / 64 };
    const size_t nb = (n + 15) / 16, nbits = 8 * n, words = (nbits + 63) / 64;
    gf128 pw[GCM_MAX_IV / 16 + 2], v = {0, 0};
    uint32_t basis[32], want = 0xffffffffu - gap, delta;
    uint64_t comb[32][WORDS], sol[WORDS] = {0};
    int have[32] = {0};
    uint8_t j0[16];

    tu_rng_fill(r, iv, n);
    gcm_j0(h, iv, n, j0);
    delta = load_be32(j0 + 12) ^ want;

    pw[1] = h;
    for (size_t j = 2; j <= nb + 1; j++)
        pw[j] = gf_mul(pw[j - 1], h);
    for (size_t b = 0; b < nbits; b++) {
        uint64_t cm[WORDS] = {0};
        uint32_t col;

        if (b % 128 == 0)
            v = pw[nb + 1 - b / 128];
        col = (uint32_t)v.lo; /* J0's bytes 12..15: the counter word */
        v = gf_mulx(v);
        cm[b / 64] = (uint64_t)1 << (b % 64);
        for (int p = 31; p >= 0 && col != 0; p--) {
            if (!(col >> p & 1))
                continue;
            if (!have[p]) {
                basis[p] = col;
                memcpy(comb[p], cm, sizeof(cm));
                have[p] = 1;
                break;
            }
            col ^= basis[p];
            for (size_t w = 0; w < words; w++)
                cm[w] ^= comb[p][w];
        }
    }
    for (int p = 31; p >= 0; p--) {
        if (!(delta >> p & 1))
            continue;
        if (!have[p])
            return 0;
        delta ^= basis[p];
        for (size_t w = 0; w < words; w++)
            sol[w] ^= comb[p][w];
    }
    for (size_t b = 0; b < nbits; b++)
        if (sol[b / 64] >> (b % 64) & 1)
            iv[b / 8] ^= (uint8_t)(0x80 >> (b % 8));
    gcm_j0(h, iv, n, j0);
    if (load_be32(j0 + 12) != want)
        tu_die("internal error: the wrap IV search missed (J0 word %08x, wanted %08x)",
               load_be32(j0 + 12), want);
    return 1;
}

/* ---- Cases ---------------------------------------------------------------------------------- */

struct gcase {
    uint64_t index;
    int ks;
    uint8_t key[32];
    size_t ivlen;
    uint8_t iv[GCM_MAX_IV], iv2[GCM_MAX_IV]; /* iv2: for re-inits, same length */
    char ivkind[32];
    int wrap;
    uint32_t gap;
    size_t aadlen, len;
    uint8_t aad[GCM_MAX_AAD];
    uint8_t *pt, *ct, *ct2; /* ct, tag: the default provider's GCM under iv; ct2, tag2 under iv2 */
    uint8_t tag[16], tag2[16];
    gf128 h;
    char trace[512];
};

static void gcm_fail(struct harness *h, const struct gcase *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void gcm_fail(struct harness *h, const struct gcase *c, const char *fmt, ...)
{
    va_list ap;

    fail_head(h, c->index);
    fprintf(stderr, "%s ivlen=%zu (%s) aadlen=%zu len=%zu key=", gcm_algs[c->ks], c->ivlen,
            c->ivkind, c->aadlen, c->len);
    tu_hex_print(stderr, c->key, keylens[c->ks]);
    fprintf(stderr, " iv=");
    tu_hex_print(stderr, c->iv, c->ivlen);
    fail_small_inputs(c->aad, c->aadlen, c->pt, c->len);
    va_start(ap, fmt);
    fail_tail(h, c->index, c->trace, fmt, ap);
    va_end(ap);
}

/* One AES block by the default provider's ECB: H, and the keystream check of the wrap cases. */
static void ecb_block(struct harness *h, int ks, const uint8_t *key, const uint8_t in[16],
                      uint8_t out[16])
{
    int outl = -1;

    if (!EVP_EncryptInit_ex2(h->ecbctx, h->ecb[ks], key, NULL, NULL)
        || !EVP_CIPHER_CTX_set_padding(h->ecbctx, 0)
        || !EVP_EncryptUpdate(h->ecbctx, out, &outl, in, 16) || outl != 16)
        tu_die("reference (default provider) %s failed", ecb_algs[ks]);
}

/* The reference's final (GCM and GCM-SIV), and its result: sealing must succeed, and tag gets
 * the 16-byte tag; an open's result is the caller's to check. */
static int aead_ref_final(EVP_CIPHER_CTX *x, int enc, uint8_t tag[16], const char *alg)
{
    uint8_t fin[16];
    int outl = -1, ok = EVP_CipherFinal_ex(x, fin, &outl);

    if (enc && (!ok || !EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, 16, tag)))
        tu_die("reference (default provider) %s final failed", alg);
    if (!ok)
        ERR_clear_error();
    return ok;
}

/*
 * The default provider's GCM in one pass each for AAD and data: enc fills tag[16]; !enc checks
 * taglen bytes of tag. Returns the final's result (init and update must succeed).
 */
static int gcm_ref(struct harness *h, int ks, const uint8_t *key, const uint8_t *iv, size_t ivlen,
                   const uint8_t *aad, size_t aadlen, int enc, const uint8_t *in, uint8_t *out,
                   size_t len, uint8_t *tag, size_t taglen)
{
    EVP_CIPHER_CTX *x = h->refctx;
    int outl = -1;

    if (!EVP_CipherInit_ex(x, h->ref[ks], NULL, NULL, NULL, enc)
        || !EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_IVLEN, (int)ivlen, NULL)
        || !EVP_CipherInit_ex(x, NULL, NULL, key, iv, enc)
        || !EVP_CipherUpdate(x, NULL, &outl, aad, (int)aadlen)
        || !EVP_CipherUpdate(x, out, &outl, in, (int)len) || outl != (int)len
        || (!enc && !EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, (int)taglen, tag)))
        tu_die("reference (default provider) %s of %zu bytes failed", gcm_algs[ks], len);
    return aead_ref_final(x, enc, tag, gcm_algs[ks]);
}

/* Lengths: 3% empty, 87% uniform in 0..512, 10% log-uniform in 512 B..64 KiB, and case 9 of every
 * 10000 uniform in 1..4 MiB: about 1.7 KiB on average, so 100,000 cases are ~170 MB per pass. */
static size_t gcm_gen_len(tu_rng *r, uint64_t index)
{
    uint64_t u;
    size_t base;

    if (index % BIG_CASE_PERIOD == 9)
        return ((size_t)1 << 20) + tu_rng_below(r, ((uint64_t)3 << 20) + 1);
    u = tu_rng_below(r, 100);
    if (u < 3)
        return 0;
    if (u < 90)
        return tu_rng_below(r, 513);
    base = (size_t)512 << tu_rng_below(r, 7);
    return base + tu_rng_below(r, base);
}

/* AAD (GCM and GCM-SIV): 25% none, 40% 1..32 bytes, 25% 33..256, 10% 257..1024. Returns its
 * length. */
static size_t gcm_gen_aad(tu_rng *r, uint8_t aad[GCM_MAX_AAD])
{
    uint64_t u = tu_rng_below(r, 20);
    size_t n = u < 5 ? 0 : u < 13 ? 1 + tu_rng_below(r, 32) : u < 18 ? 33 + tu_rng_below(r, 224)
                                                             : 257 + tu_rng_below(r, 768);

    tu_rng_fill(r, aad, n);
    return n;
}

static void gcm_gen(struct harness *h, struct gcase *c, tu_rng *r)
{
    static const uint8_t zero[16];
    uint8_t hb[16];
    uint64_t u;

    c->ks = (int)tu_rng_below(r, 3);
    tu_rng_fill(r, c->key, sizeof(c->key));
    ecb_block(h, c->ks, c->key, zero, hb);
    c->h = gf_load(hb);

    if (c->index % GCM_WRAP_PERIOD == 7) {
        /* Half with the wrap within 64 blocks, half within GCM_WRAP_MAX_GAP. */
        u = tu_rng_below(r, 4);
        c->ivlen = u < 2 ? 16 : u == 2 ? 4 + tu_rng_below(r, 29) : 33 + tu_rng_below(r, 96);
        if (c->ivlen == 12)
            c->ivlen = 13;
        c->gap = (uint32_t)tu_rng_below(r, tu_rng_below(r, 2) ? 64 : GCM_WRAP_MAX_GAP);
        if (h->max_len != 0)
            c->gap %= (uint32_t)(h->max_len / 32 + 1); /* the message fits in max_len */
        /* The columns depend on H and the length only: if they lack rank (likely only for
         * 4-byte IVs, 32 bits for 32 equations), try a longer IV. */
        while (!gcm_wrap_iv(c->h, c->iv, c->ivlen, c->gap, r))
            if (++c->ivlen == 12)
                c->ivlen = 13;
        c->wrap = 1;
        c->len = (size_t)c->gap * 16 + 1 + tu_rng_below(r, 2048);
        if (h->max_len != 0 && c->len > h->max_len)
            c->len = (size_t)c->gap * 16 + 1 + (c->len - c->gap * 16 - 1) % (h->max_len / 2);
        snprintf(c->ivkind, sizeof(c->ivkind), "wrap after %u blocks", c->gap);
        h->wrap_ivs++;
    } else {
        /* 60% 12 bytes, 10% 16, 10% 1..16, 20% 1..128. */
        u = tu_rng_below(r, 10);
        c->ivlen = u < 6 ? 12 : u == 6 ? 16 : u == 7 ? 1 + tu_rng_below(r, 16)
                                                      : 1 + tu_rng_below(r, GCM_MAX_IV);
        tu_rng_fill(r, c->iv, c->ivlen);
        c->len = gcm_gen_len(r, c->index);
        if (h->max_len != 0)
            c->len %= h->max_len + 1;
        snprintf(c->ivkind, sizeof(c->ivkind), "random");
    }
    h->non12 += c->ivlen != 12;
    tu_rng_fill(r, c->iv2, c->ivlen);

    c->aadlen = gcm_gen_aad(r, c->aad);

    c->pt = tu_xmalloc(c->len);
    c->ct = tu_xmalloc(c->len);
    tu_rng_fill(r, c->pt, c->len);
    gcm_ref(h, c->ks, c->key, c->iv, c->ivlen, c->aad, c->aadlen, 1, c->pt, c->ct, c->len,
            c->tag, 16);
    h->big += c->len > 65536;

    if (c->wrap) {
        /* The reference must have wrapped where J0 says: block gap's keystream is
         * E(J0 with counter word 0). This also checks the reference GHASH above. */
        uint8_t j0[16], ks[16];
        size_t at = (size_t)c->gap * 16, n = c->len - at < 16 ? c->len - at : 16;

        gcm_j0(c->h, c->iv, c->ivlen, j0);
        memset(j0 + 12, 0, 4);
        ecb_block(h, c->ks, c->key, j0, ks);
        for (size_t i = 0; i < n; i++) {
            if ((uint8_t)(c->ct[at + i] ^ c->pt[at + i]) != ks[i]) {
                gcm_fail(h, c, "the default provider's keystream at block %u is not E(J0 with "
                         "counter word 0): the reference or the test's GHASH is wrong", c->gap);
                break;
            }
        }
    }
}

/* ---- Streams, in lockstep on both providers ------------------------------------------------- */

/* A context on the provider under test and its twin on the default provider: every call is made
 * on both, and results, output lengths and bytes must agree. */
struct gpair {
    EVP_CIPHER_CTX *t, *r;
};

struct gstream {
    struct harness *h;
    struct gcase *c;
    int enc, fresh; /* fresh: contexts never used before (state-dependent probes only then) */
    int ecall;      /* updates and final through EVP_Cipher, not EVP_CipherUpdate/Final_ex */
    struct chunker ch;
    const uint8_t *aad; /* this segment's AAD */
};

/* Both providers must give the same result; with must_pass, it must also be success. Returns 1
 * to go on (both succeeded, or both failed alike with !must_pass). Clears the error queue after
 * a failure. */
static int agree(struct gstream *s, const char *what, int rt, int rr, int must_pass)
{
    if (rt != rr) {
        gcm_fail(s->h, s->c, "%s returned %d on %s, %d on default", what, rt,
                 s->h->prov.test_name, rr);
        ERR_clear_error();
        return 0;
    }
    if (must_pass && rr <= 0) {
        gcm_fail(s->h, s->c, "%s failed on both providers (the test expected success)", what);
        ERR_clear_error();
        return 0;
    }
    if (rt <= 0)
        ERR_clear_error(); /* (costly: only after an expected failure) */
    return 1;
}

/* A call after final, which both must refuse; except that after a failed final (tampered) the
 * default provider may go on where the provider under test refuses, which is counted. */
static void agree_after_final(struct gstream *s, const char *what, int rt, int rr, int tampered)
{
    if (tampered && rt == 0 && rr == 1)
        s->h->stricter++, ERR_clear_error();
    else
        agree(s, what, rt, rr, 0);
}

/*
 * Positions from..to of the segment's input: 0..aadlen-1 are AAD, aadlen.. the data. Updates in
 * the chunker's sizes (never spanning the AAD/data boundary), each on both contexts: the test
 * side from tsrc to tdst (in place when they are equal), the reference from rsrc to rdst.
 */
static int gfeed(struct gstream *s, struct gpair *p, const uint8_t *tsrc, uint8_t *tdst,
                 const uint8_t *rsrc, uint8_t *rdst, size_t from, size_t to)
{
    const size_t aadlen = s->c->aadlen;
    size_t pos = from;
    unsigned empty = 0;

    while (pos < to) {
        int aad = pos < aadlen, ot = -1, orr = -1, rt, rr;
        size_t end = aad && to > aadlen ? aadlen : to;
        size_t n = next_chunk(&s->ch, end - pos);
        char what[96];

        if (n == 0 && ++empty > 4)
            n = end - pos;
        if (n != 0)
            empty = 0;
        if (s->ecall) {
            /* EVP_Cipher: the provider's one-call "cipher" function; returns the length, or
             * -1. out == NULL means AAD. */
            size_t d = pos - aadlen;

            rt = aad ? EVP_Cipher(p->t, NULL, s->aad + pos, (unsigned)n)
                     : EVP_Cipher(p->t, tdst + d, tsrc + d, (unsigned)n);
            rr = aad ? EVP_Cipher(p->r, NULL, s->aad + pos, (unsigned)n)
                     : EVP_Cipher(p->r, rdst + d, rsrc + d, (unsigned)n);
            ot = rt, orr = rr;
            rt = rt == (int)n, rr = rr == (int)n;
        } else if (aad) {
            rt = EVP_CipherUpdate(p->t, NULL, &ot, s->aad + pos, (int)n);
            rr = EVP_CipherUpdate(p->r, NULL, &orr, s->aad + pos, (int)n);
        } else {
            size_t d = pos - aadlen;

            rt = EVP_CipherUpdate(p->t, tdst + d, &ot, tsrc + d, (int)n);
            rr = EVP_CipherUpdate(p->r, rdst + d, &orr, rsrc + d, (int)n);
        }
        if (rt > 0 && rr > 0 && ot == orr) { /* the usual case: no message to format */
            pos += n;
            continue;
        }
        snprintf(what, sizeof(what), "%s update of %zu bytes at %s offset %zu",
                 aad ? "AAD" : "data", n, aad ? "AAD" : "data", aad ? pos : pos - aadlen);
        if (!agree(s, what, rt, rr, 1))
            return 0;
        if (ot != orr) {
            gcm_fail(s->h, s->c, "%s: outl %d on %s, %d on default", what, ot,
                     s->h->prov.test_name, orr);
            return 0;
        }
        pos += n;
    }
    s->h->bytes += to - from;
    return 1;
}

static int get_size_param(EVP_CIPHER_CTX *x, const char *name, size_t *v)
{
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_size_t(name, v), OSSL_PARAM_construct_end()};

    *v = (size_t)-1;
    return EVP_CIPHER_CTX_get_params(x, p);
}

static int get_octets_param(EVP_CIPHER_CTX *x, const char *name, uint8_t *buf, size_t cap,
                            size_t *got)
{
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_octet_string(name, buf, cap),
                       OSSL_PARAM_construct_end()};
    int ok;

    memset(buf, 0, cap);
    ok = EVP_CIPHER_CTX_get_params(x, p);
    *got = p[0].return_size;
    return ok;
}

/* The tag: by EVP_CIPHER_CTX_ctrl or by the "tag" parameter (by_param), on one context. */
static int get_tag(EVP_CIPHER_CTX *x, uint8_t *tag, size_t len, int by_param)
{
    size_t got;

    if (!by_param)
        return EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, (int)len, tag);
    return get_octets_param(x, OSSL_CIPHER_PARAM_AEAD_TAG, tag, len, &got);
}

/* The expected tag set on both (tu_set_tag: by ctrl or by parameter); both must succeed. */
static int agree_set_tag(struct gstream *s, struct gpair *p, const char *what, const uint8_t *tag,
                         size_t len, int by_param)
{
    return agree(s, what, tu_set_tag(p->t, tag, len, by_param),
                 tu_set_tag(p->r, tag, len, by_param), 1);
}

/* Parameters and calls whose result the default provider defines, at some point of a stream:
 * the two providers must answer alike. datafed: data bytes already through this segment. */
static void gprobe(struct gstream *s, struct gpair *p, size_t datafed)
{
    static const char *const sizes[] = {OSSL_CIPHER_PARAM_IVLEN, OSSL_CIPHER_PARAM_KEYLEN,
                                        OSSL_CIPHER_PARAM_AEAD_TAGLEN};
    static const char *const ivs[] = {OSSL_CIPHER_PARAM_IV, OSSL_CIPHER_PARAM_UPDATED_IV};
    uint8_t bt[GCM_MAX_IV], br[GCM_MAX_IV];
    size_t vt, vr, nt, nr;
    char what[96];

    s->h->probes++;
    /* A reused context's tag length is whatever the last stream left: fresh ones only. */
    for (size_t i = 0; i < (s->fresh ? 3u : 2u); i++) {
        snprintf(what, sizeof(what), "probe: get \"%s\"", sizes[i]);
        if (agree(s, what, get_size_param(p->t, sizes[i], &vt),
                  get_size_param(p->r, sizes[i], &vr), 0) && vt != vr)
            gcm_fail(s->h, s->c, "probe: \"%s\" is %zu on %s, %zu on default", sizes[i], vt,
                     s->h->prov.test_name, vr);
    }
    for (size_t i = 0; i < 2; i++) {
        snprintf(what, sizeof(what), "probe: get \"%s\"", ivs[i]);
        if (agree(s, what, get_octets_param(p->t, ivs[i], bt, sizeof(bt), &nt),
                  get_octets_param(p->r, ivs[i], br, sizeof(br), &nr), 0)
            && (nt != nr || memcmp(bt, br, nr < sizeof(br) ? nr : sizeof(br)) != 0))
            gcm_fail(s->h, s->c, "probe: \"%s\" differs (%zu bytes on %s, %zu on default)",
                     ivs[i], nt, s->h->prov.test_name, nr);
    }
    /* Before final, reading the tag fails (decrypting: always; encrypting: unless an earlier
     * stream on the context left one, so fresh ones only); setting it fails when encrypting. */
    if (!s->enc || s->fresh)
        agree(s, "probe: get the tag before final", get_tag(p->t, bt, 16, 0),
              get_tag(p->r, br, 16, 0), 0);
    if (s->enc) {
        memset(bt, 0x5a, 16);
        agree(s, "probe: set a tag when encrypting", tu_set_tag(p->t, bt, 16, 1),
              tu_set_tag(p->r, bt, 16, 1), 0);
    }
    /* On copies, so that the stream itself goes on: AAD after data; IV lengths of 0 and 129
     * (refused), then a valid other one, which makes the IV unusable, so that the next update
     * fails (the default provider: "setting ivlen invalidates the IV"). */
    {
        struct gpair q = {EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_new()};
        size_t bad[2] = {0, GCM_MAX_IV + 1}, other = s->c->ivlen == 12 ? 16 : 12;
        int ot = -1, orr = -1;

        if (q.t == NULL || q.r == NULL)
            tu_die("out of memory");
        if (agree(s, "probe: copy", EVP_CIPHER_CTX_copy(q.t, p->t), EVP_CIPHER_CTX_copy(q.r, p->r),
                  1)) {
            if (datafed > 0)
                agree(s, "probe: AAD after data", EVP_CipherUpdate(q.t, NULL, &ot, bt, 1),
                      EVP_CipherUpdate(q.r, NULL, &orr, bt, 1), 0);
            for (int i = 0; i < 2; i++) {
                OSSL_PARAM prm[2] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN,
                                                                 &bad[i]),
                                     OSSL_PARAM_construct_end()};

                snprintf(what, sizeof(what), "probe: set ivlen %zu", bad[i]);
                agree(s, what, EVP_CIPHER_CTX_set_params(q.t, prm),
                      EVP_CIPHER_CTX_set_params(q.r, prm), 0);
            }
            snprintf(what, sizeof(what), "probe: set ivlen %zu mid-stream", other);
            if (agree(s, what, EVP_CIPHER_CTX_ctrl(q.t, EVP_CTRL_AEAD_SET_IVLEN, (int)other, NULL),
                      EVP_CIPHER_CTX_ctrl(q.r, EVP_CTRL_AEAD_SET_IVLEN, (int)other, NULL), 0))
                agree(s, "probe: update after changing ivlen",
                      EVP_CipherUpdate(q.t, bt + 16, &ot, bt, 1),
                      EVP_CipherUpdate(q.r, br + 16, &orr, bt, 1), 0);
        }
        EVP_CIPHER_CTX_free(q.t);
        EVP_CIPHER_CTX_free(q.r);
    }
}

/*
 * Initialise both contexts for key and IV (iv, ivlen bytes) in one of five equivalent ways.
 * name: pass the cipher (a fresh context, or a reused one that libcrypto then gives a new
 * provider context); otherwise NULL, which keeps the provider context of a reused one.
 */
static int ginit(struct gstream *s, struct gpair *p, int style, int name, const uint8_t *iv)
{
    struct gcase *c = s->c;
    const EVP_CIPHER *ct = name ? s->h->test[c->ks] : NULL, *cr = name ? s->h->ref[c->ks] : NULL;
    size_t n = c->ivlen;
    OSSL_PARAM prm[2] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &n),
                         OSSL_PARAM_construct_end()};
    const uint8_t *key = c->key;
    int enc = s->enc;

    switch (style) {
    case 0: /* key and ivlen, then the IV alone */
        return agree(s, "init(key, ivlen param)", EVP_CipherInit_ex2(p->t, ct, key, NULL, enc, prm),
                     EVP_CipherInit_ex2(p->r, cr, key, NULL, enc, prm), 1)
               && agree(s, "init(iv)", EVP_CipherInit_ex2(p->t, NULL, NULL, iv, -1, NULL),
                        EVP_CipherInit_ex2(p->r, NULL, NULL, iv, -1, NULL), 1);
    case 1: /* cipher, EVP_CTRL_AEAD_SET_IVLEN, then key and IV together */
    case 3: /* or the IV, then the key */
        if (!agree(s, "init()", EVP_CipherInit_ex(p->t, ct, NULL, NULL, NULL, enc),
                   EVP_CipherInit_ex(p->r, cr, NULL, NULL, NULL, enc), 1)
            || !agree(s, "ctrl(SET_IVLEN)",
                      EVP_CIPHER_CTX_ctrl(p->t, EVP_CTRL_AEAD_SET_IVLEN, (int)n, NULL),
                      EVP_CIPHER_CTX_ctrl(p->r, EVP_CTRL_AEAD_SET_IVLEN, (int)n, NULL), 1))
            return 0;
        if (style == 1)
            return agree(s, "init(key, iv)", EVP_CipherInit_ex(p->t, NULL, NULL, key, iv, -1),
                         EVP_CipherInit_ex(p->r, NULL, NULL, key, iv, -1), 1);
        return agree(s, "init(iv)", EVP_CipherInit_ex(p->t, NULL, NULL, NULL, iv, -1),
                     EVP_CipherInit_ex(p->r, NULL, NULL, NULL, iv, -1), 1)
               && agree(s, "init(key)", EVP_CipherInit_ex(p->t, NULL, NULL, key, NULL, -1),
                        EVP_CipherInit_ex(p->r, NULL, NULL, key, NULL, -1), 1);
    case 2: /* cipher and key, the ivlen parameter, then the IV */
        return agree(s, "init(key)", EVP_CipherInit_ex(p->t, ct, NULL, key, NULL, enc),
                     EVP_CipherInit_ex(p->r, cr, NULL, key, NULL, enc), 1)
               && agree(s, "set_params(ivlen)", EVP_CIPHER_CTX_set_params(p->t, prm),
                        EVP_CIPHER_CTX_set_params(p->r, prm), 1)
               && agree(s, "init(iv)", EVP_CipherInit_ex(p->t, NULL, NULL, NULL, iv, -1),
                        EVP_CipherInit_ex(p->r, NULL, NULL, NULL, iv, -1), 1);
    default: /* 12-byte IVs: everything at once, with the default IV length */
        return agree(s, "init(key, iv)", EVP_CipherInit_ex2(p->t, ct, key, iv, enc, NULL),
                     EVP_CipherInit_ex2(p->r, cr, key, iv, enc, NULL), 1);
    }
}

enum gev_kind { GEV_COPY, GEV_TAG, GEV_PROBE };

struct gev {
    enum gev_kind kind;
    int seg;
    size_t at;
};

/* The tampered open that ends half of the GCM and GCM-SIV cases: one bit flipped in the tag,
 * the AAD or the ciphertext. */
enum tamper { TAMPER_NONE, TAMPER_TAG, TAMPER_AAD, TAMPER_CT };

static const char *const tamper_names[] = {"none", "tag", "aad", "ct"};

/* Drawn after a case's clean streams: half the time none; else the tag, the AAD or the
 * ciphertext, a third each (the tag instead of an empty one). */
static enum tamper pick_tamper(tu_rng *r, size_t aadlen, size_t len)
{
    uint64_t u;

    if (tu_rng_below(r, 2) != 0)
        return TAMPER_NONE;
    u = tu_rng_below(r, 3);
    return u == 1 && aadlen != 0 ? TAMPER_AAD : u == 2 && len != 0 ? TAMPER_CT : TAMPER_TAG;
}

/*
 * One direction of case c on both providers in lockstep. enc: pt in, ct and tag out; else ct and
 * a tag of taglen bytes in, pt out, and final must succeed, or with tamper (one bit flipped in
 * the tag, AAD or ciphertext) fail on both. A re-init with iv2 alone (no key) may end a first,
 * partial segment; the message then starts over under iv2. *reuse: contexts left by an earlier
 * stream of this case (or NULL); on return they are this stream's.
 */
static void gcm_stream(struct harness *h, struct gcase *c, tu_rng *r, int enc,
                       enum tamper tamper, struct gpair *reuse)
{
    const size_t len = c->len, total = c->aadlen + c->len;
    struct gstream s = {.h = h, .c = c, .enc = enc};
    struct gpair active = {NULL, NULL};
    struct gev ev[4];
    int nev = 0, nseg, inplace, style, reuse_it, name = 1, tag_by_param, tag_set = 0, dual = 0;
    size_t in_off, out_off, taglen, reinit_at = 0, tbit = 0;
    uint8_t *dstbuf, *srcbuf = NULL, *tdst, *tsrc, *rdst, *taltbuf = NULL, *ralt = NULL;
    uint8_t *tin = NULL, tagin[16], tt[32], tr[32], aadt[GCM_MAX_AAD];
    const uint8_t *in0, *inf, *tagf, *ctf;

    c->trace[0] = '\0';
    TRACE(c, "%s", enc ? "encrypt" : tamper ? "decrypt-tampered" : "decrypt");

    /* Every choice first, so that the trace is complete whatever step fails. */
    taglen = tu_rng_below(r, 2) ? 16 : 1 + tu_rng_below(r, 16);
    /* A flipped AAD or ciphertext bit gives a new, random tag: a short one would match the old
     * one by chance (1 in 2^(8 taglen)). 12..16 bytes make that 2^-96 at most. */
    if ((tamper == TAMPER_AAD || tamper == TAMPER_CT) && taglen < 12)
        taglen = 12 + taglen % 5;
    tag_by_param = (int)tu_rng_below(r, 2);
    inplace = tu_rng_below(r, 3) == 0;
    in_off = tu_rng_below(r, 4) == 0 ? 0 : 1 + tu_rng_below(r, 15);
    out_off = inplace ? in_off : tu_rng_below(r, 4) == 0 ? 0 : 1 + tu_rng_below(r, 15);
    style = (int)tu_rng_below(r, c->ivlen == 12 ? 5 : 4);
    reuse_it = reuse->t != NULL && tu_rng_below(r, 2) == 0;
    if (reuse_it)
        name = tu_rng_below(r, 2) == 0;
    s.fresh = !reuse_it;
    s.ecall = tu_rng_below(r, 8) == 0;
    nseg = tu_rng_below(r, 12) == 0 ? 2 : 1;
    if (nseg == 2)
        reinit_at = tu_rng_below(r, (uint64_t)total + 1);
    TRACE(c, " taglen=%zu%s%s ctx=%s init=%d %s in+%zu out+%zu", taglen,
          tag_by_param ? "(param)" : "(ctrl)", s.ecall ? " api=EVP_Cipher" : "",
          !reuse_it ? "new" : name ? "reused-cipher-named" : "reused-provider-ctx", style,
          inplace ? "in-place" : "out-of-place", in_off, out_off);
    pick_chunker(&s.ch, r, total, c->trace, sizeof(c->trace));
    if (nseg == 2)
        TRACE(c, " reinit(iv2)@%zu", reinit_at);
    if (tu_rng_below(r, 10) == 0) {
        int seg = nseg == 2 ? (int)tu_rng_below(r, 2) : 0;
        size_t at = tu_rng_below(r, (uint64_t)(seg < nseg - 1 ? reinit_at : total) + 1);

        ev[nev++] = (struct gev){GEV_COPY, seg, at};
        dual = seg == nseg - 1 && tu_rng_below(r, 2) == 0;
        TRACE(c, " copy@%d:%zu%s", seg, at, dual ? "+original" : "");
    }
    if (!enc) {
        /* When the tag is set: at a point of the last segment, or (re-inits) before the re-init,
         * which the default provider keeps it across; or, with no event, just before final. */
        uint64_t when = tu_rng_below(r, 5);
        int seg = nseg == 2 && tu_rng_below(r, 8) == 0 ? 0 : nseg - 1;
        size_t lim = seg < nseg - 1 ? reinit_at : total;
        size_t at = when == 0 ? 0 : when == 1 ? (c->aadlen < lim ? c->aadlen : lim)
                                              : tu_rng_below(r, (uint64_t)lim + 1);

        if (when != 4) {
            ev[nev++] = (struct gev){GEV_TAG, seg, at};
            TRACE(c, " tag@%d:%zu", seg, at);
        } else {
            TRACE(c, " tag@final");
        }
    }
    if (tu_rng_below(r, 4) == 0) {
        size_t at = tu_rng_below(r, (uint64_t)total + 1);

        ev[nev++] = (struct gev){GEV_PROBE, nseg - 1, at};
        TRACE(c, " probe@%d:%zu", nseg - 1, at);
    }
    if (tamper == TAMPER_TAG)
        tbit = tu_rng_below(r, 8 * taglen);
    else if (tamper == TAMPER_AAD)
        tbit = tu_rng_below(r, 8 * c->aadlen);
    else if (tamper == TAMPER_CT)
        tbit = tu_rng_below(r, 8 * len);
    if (tamper != TAMPER_NONE) {
        TRACE(c, " flip %s bit %zu", tamper_names[tamper], tbit);
        h->tampered++;
    }
    /* Events in (segment, position) order. */
    for (int i = 1; i < nev; i++)
        for (int j = i; j > 0 && (ev[j].seg < ev[j - 1].seg
                                  || (ev[j].seg == ev[j - 1].seg && ev[j].at < ev[j - 1].at));
             j--) {
            struct gev t = ev[j];
            ev[j] = ev[j - 1];
            ev[j - 1] = t;
        }

    /* The last segment's inputs and expected tag; the reference under iv2 when needed. */
    if (nseg == 2 && c->ct2 == NULL) {
        c->ct2 = tu_xmalloc(len);
        gcm_ref(h, c->ks, c->key, c->iv2, c->ivlen, c->aad, c->aadlen, 1, c->pt, c->ct2, len,
                c->tag2, 16);
    }
    ctf = nseg == 2 ? c->ct2 : c->ct;
    tagf = nseg == 2 ? c->tag2 : c->tag;
    in0 = enc ? c->pt : c->ct;
    inf = enc ? c->pt : ctf;
    memcpy(tagin, tagf, 16);
    memcpy(aadt, c->aad, c->aadlen);
    if (tamper == TAMPER_CT) {
        tin = tu_xmalloc(len);
        memcpy(tin, inf, len);
        tin[tbit / 8] ^= (uint8_t)(1u << (tbit % 8));
        inf = tin;
    } else if (tamper == TAMPER_TAG) {
        tagin[tbit / 8] ^= (uint8_t)(1u << (tbit % 8));
    } else if (tamper == TAMPER_AAD) {
        aadt[tbit / 8] ^= (uint8_t)(1u << (tbit % 8));
    }
    if (taglen < 16)
        h->short_tags++;
    h->ecalls += s.ecall;

    /* Buffers: the test side's output sits between canaries; in place, it is also the input. */
    dstbuf = canary_buf(len);
    tdst = dstbuf + GUARD + out_off;
    if (inplace) {
        tsrc = tdst;
    } else {
        srcbuf = tu_xmalloc(len + 16);
        tsrc = srcbuf + in_off;
    }
    rdst = tu_xmalloc(len);
    h->inplace += inplace;

    if (reuse_it) {
        active = *reuse;
        if (name)
            h->reused_other++;
        else
            h->reused_same++;
    } else {
        active.t = EVP_CIPHER_CTX_new();
        active.r = EVP_CIPHER_CTX_new();
        if (active.t == NULL || active.r == NULL)
            tu_die("out of memory");
    }
    if (!ginit(&s, &active, style, name, c->iv))
        goto out;

    for (int seg = 0, e = 0; seg < nseg; seg++) {
        const int last = seg == nseg - 1;
        const uint8_t *in = last ? inf : in0;
        size_t pos = 0, end = last ? total : reinit_at;

        s.aad = last ? aadt : c->aad;
        memmove(tsrc, in, len); /* (in place, a re-init starts again from the input) */
        for (; e < nev && ev[e].seg == seg; e++) {
            if (!gfeed(&s, &active, tsrc, tdst, in, rdst, pos, ev[e].at))
                goto out;
            pos = ev[e].at;
            if (ev[e].kind == GEV_TAG) {
                if (!agree_set_tag(&s, &active, "set the tag", tagin, taglen, tag_by_param))
                    goto out;
                tag_set = 1;
            } else if (ev[e].kind == GEV_PROBE) {
                gprobe(&s, &active, pos > c->aadlen ? pos - c->aadlen : 0);
            } else {
                struct gpair cp = {EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_new()};

                if (cp.t == NULL || cp.r == NULL)
                    tu_die("out of memory");
                if (!agree(&s, "EVP_CIPHER_CTX_copy", EVP_CIPHER_CTX_copy(cp.t, active.t),
                           EVP_CIPHER_CTX_copy(cp.r, active.r), 1)) {
                    EVP_CIPHER_CTX_free(cp.t);
                    EVP_CIPHER_CTX_free(cp.r);
                    goto out;
                }
                h->copies++;
                if (dual) {
                    /* Finish the original first (out of place): the copy must not share its
                     * state. */
                    int ot = -1, orr = -1;

                    taltbuf = tu_xmalloc(len);
                    ralt = tu_xmalloc(len);
                    if (gfeed(&s, &active, in, taltbuf, in, ralt, pos, total)
                        && (tag_set || enc
                            || agree_set_tag(&s, &active, "set the tag on the original", tagin,
                                             taglen, tag_by_param))
                        && agree(&s, "final on the original after the copy",
                                 EVP_CipherFinal_ex(active.t, tt, &ot),
                                 EVP_CipherFinal_ex(active.r, tr, &orr), tamper == TAMPER_NONE)
                        && (!enc
                            || (agree(&s, "get the tag on the original",
                                      get_tag(active.t, tt, taglen, tag_by_param),
                                      get_tag(active.r, tr, taglen, tag_by_param), 1)
                                && memcmp(tt, tr, taglen) == 0))) {
                        size_t from = pos > c->aadlen ? pos - c->aadlen : 0;

                        if (memcmp(taltbuf + from, ralt + from, len - from) != 0)
                            gcm_fail(h, c, "the original's output after the copy differs");
                        h->duals++;
                    } else if (enc) {
                        gcm_fail(h, c, "the original context failed or differs after the copy");
                    }
                }
                if (active.t != reuse->t) {
                    EVP_CIPHER_CTX_free(active.t);
                    EVP_CIPHER_CTX_free(active.r);
                }
                active = cp;
            }
        }
        if (!gfeed(&s, &active, tsrc, tdst, in, rdst, pos, end))
            goto out;
        if (!last) {
            if (!agree(&s, "re-init with iv2 alone", EVP_CipherInit_ex2(active.t, NULL, NULL,
                                                                        c->iv2, -1, NULL),
                       EVP_CipherInit_ex2(active.r, NULL, NULL, c->iv2, -1, NULL), 1))
                goto out;
            h->reinits++;
        }
    }
    if (!enc && !tag_set
        && !agree_set_tag(&s, &active, "set the tag", tagin, taglen, tag_by_param))
        goto out;

    {
        int ot = -1, orr = -1, rt, rr;

        memset(tt, 0, sizeof(tt));
        if (s.ecall) {
            /* 0 (no bytes) on success, -1 on failure */
            ot = EVP_Cipher(active.t, tt, NULL, 0);
            orr = EVP_Cipher(active.r, tr, NULL, 0);
            rt = ot == 0, rr = orr == 0;
            ot = ot < 0 ? 0 : ot, orr = orr < 0 ? 0 : orr;
        } else {
            rt = EVP_CipherFinal_ex(active.t, tt, &ot);
            rr = EVP_CipherFinal_ex(active.r, tr, &orr);
        }
        if (tamper != TAMPER_NONE && rr > 0) {
            gcm_fail(h, c, "the default provider accepted a tampered message");
            goto out;
        }
        if (!agree(&s, "final", rt, rr, tamper == TAMPER_NONE))
            goto out;
        if (ot != orr || ot != 0) {
            gcm_fail(h, c, "final: outl %d on %s, %d on default", ot, h->prov.test_name, orr);
            goto out;
        }
    }
    if (enc) {
        size_t odd = tu_rng_below(r, 2) ? 0 : 17;

        if (!agree(&s, "get the tag", get_tag(active.t, tt, taglen, tag_by_param),
                   get_tag(active.r, tr, taglen, tag_by_param), 1))
            goto out;
        if (memcmp(tt, tr, taglen) != 0 || memcmp(tr, tagf, taglen) != 0)
            gcm_fail(h, c, "tag (%zu bytes) differs", taglen);
        /* Tag lengths out of range: both must refuse alike. */
        agree(&s, odd ? "get a 17-byte tag" : "get a 0-byte tag",
              get_tag(active.t, tt, odd, tag_by_param), get_tag(active.r, tr, odd, tag_by_param),
              0);
    } else {
        agree(&s, "get the tag when decrypting", get_tag(active.t, tt, taglen, tag_by_param),
              get_tag(active.r, tr, taglen, tag_by_param), 0);
    }
    if (tu_rng_below(r, 4) == 0) {
        /* After final: another update, another final. Allowed difference: after a final that
         * FAILED (a wrong tag), the default provider leaves the message open (its iv_state
         * stays "copied"), so more updates and finals succeed there; aesfast ends the message
         * on every final, as after a successful one. Refusing there is accepted and counted. */
        int ot = -1, orr = -1, rt, rr;
        uint8_t b1t[16], b1r[16];

        rt = EVP_CipherUpdate(active.t, b1t, &ot, c->key, 1);
        rr = EVP_CipherUpdate(active.r, b1r, &orr, c->key, 1);
        agree_after_final(&s, "update after final", rt, rr, tamper != TAMPER_NONE);
        rt = EVP_CipherFinal_ex(active.t, b1t, &ot);
        rr = EVP_CipherFinal_ex(active.r, b1r, &orr);
        agree_after_final(&s, "final after final", rt, rr, tamper != TAMPER_NONE);
    }

    {
        size_t i = tu_first_diff(tdst, rdst, len);

        if (i != (size_t)-1)
            gcm_fail(h, c, "output differs at byte %zu (block %zu): %02x on %s, %02x on default",
                     i, i / 16, tdst[i], h->prov.test_name, rdst[i]);
        else if (tamper != TAMPER_CT && (i = tu_first_diff(rdst, enc ? ctf : c->pt, len))
                                            != (size_t)-1)
            gcm_fail(h, c, "the default provider's output differs from the one-shot reference "
                     "at byte %zu", i);
        if (!check_canaries(dstbuf, GUARD + out_off, len))
            gcm_fail(h, c, "bytes outside the output buffer were written");
    }

out:
    if (active.t != reuse->t) {
        EVP_CIPHER_CTX_free(reuse->t);
        EVP_CIPHER_CTX_free(reuse->r);
        *reuse = active;
    }
    free(tin);
    free(taltbuf);
    free(ralt);
    free(rdst);
    free(srcbuf);
    free(dstbuf);
}

/*
 * Encrypting with no IV set: both providers draw a random IV (the default provider only for IV
 * lengths of 12 or more; shorter ones fail on both), and decrypting with none fails on both. The
 * IV read back from the "iv" parameter must be the one used: the default provider decrypts the
 * provider under test's ciphertext under it, and vice versa.
 */
static void gcm_random_iv(struct harness *h, struct gcase *c, tu_rng *r)
{
    struct gstream s = {.h = h, .c = c, .enc = 1, .fresh = 1};
    struct gpair p = {EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_new()};
    const size_t len = c->len < 4096 ? c->len : 4096;
    size_t n = c->ivlen, nt = 0, nr = 0;
    OSSL_PARAM prm[2] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &n),
                         OSSL_PARAM_construct_end()};
    uint8_t ivt[GCM_MAX_IV], ivr[GCM_MAX_IV], tagt[16], tagr[16], *ctt = tu_xmalloc(len);
    uint8_t *ctr = tu_xmalloc(len), *back = tu_xmalloc(len);
    int ot = -1, orr = -1, enc = tu_rng_below(r, 4) != 0;

    if (p.t == NULL || p.r == NULL)
        tu_die("out of memory");
    c->trace[0] = '\0';
    TRACE(c, "%s with no IV set (random IV), data cut to %zu bytes", enc ? "encrypt" : "decrypt",
          len);
    s.enc = enc;
    s.aad = c->aad;
    pick_chunker(&s.ch, r, c->aadlen + len, c->trace, sizeof(c->trace));
    if (!agree(&s, "init(key, ivlen param), no IV",
               EVP_CipherInit_ex2(p.t, h->test[c->ks], c->key, NULL, enc, prm),
               EVP_CipherInit_ex2(p.r, h->ref[c->ks], c->key, NULL, enc, prm), 1))
        goto out;
    /* The first byte starts the message: there the IV is drawn, or refused. */
    if (c->aadlen + len == 0)
        goto out;
    {
        int aad = c->aadlen != 0;
        int rt = EVP_CipherUpdate(p.t, aad ? NULL : ctt, &ot, aad ? c->aad : c->pt, 1);
        int rr = EVP_CipherUpdate(p.r, aad ? NULL : ctr, &orr, aad ? c->aad : c->pt, 1);

        if (!agree(&s, "first update (1 byte) without an IV", rt, rr, 0) || rr <= 0)
            goto out;
    }
    if (!enc) {
        gcm_fail(h, c, "decrypting without an IV succeeded on both providers");
        goto out;
    }
    h->random_ivs++;
    if (!gfeed(&s, &p, c->pt, ctt, c->pt, ctr, 1, c->aadlen + len)
        || !agree(&s, "get \"iv\" after drawing it",
                  get_octets_param(p.t, OSSL_CIPHER_PARAM_IV, ivt, sizeof(ivt), &nt),
                  get_octets_param(p.r, OSSL_CIPHER_PARAM_IV, ivr, sizeof(ivr), &nr), 1)
        || !agree(&s, "final", EVP_CipherFinal_ex(p.t, tagt, &ot),
                  EVP_CipherFinal_ex(p.r, tagr, &orr), 1)
        || !agree(&s, "get the tag", get_tag(p.t, tagt, 16, 0), get_tag(p.r, tagr, 16, 0), 1))
        goto out;
    if (nt != c->ivlen || nr != c->ivlen) {
        gcm_fail(h, c, "\"iv\" is %zu bytes on %s, %zu on default, after drawing a %zu-byte one",
                 nt, h->prov.test_name, nr, c->ivlen);
        goto out;
    }
    if (gcm_ref(h, c->ks, c->key, ivt, c->ivlen, c->aad, c->aadlen, 0, ctt, back, len, tagt, 16)
            != 1
        || memcmp(back, c->pt, len) != 0)
        gcm_fail(h, c, "the default provider cannot decrypt under the random IV that %s reports",
                 h->prov.test_name);
    if (memcmp(ivt, ivr, c->ivlen) == 0)
        gcm_fail(h, c, "both providers drew the same random IV");
out:
    EVP_CIPHER_CTX_free(p.t);
    EVP_CIPHER_CTX_free(p.r);
    free(ctt);
    free(ctr);
    free(back);
}

static void gcm_run_case(struct harness *h, uint64_t index)
{
    struct gcase c = {.index = index};
    struct gpair ctx = {NULL, NULL};
    enum tamper tamper;
    tu_rng r;

    tu_rng_seed(&r, h->seed, index);
    gcm_gen(h, &c, &r);
    gcm_stream(h, &c, &r, 1, TAMPER_NONE, &ctx);
    gcm_stream(h, &c, &r, 0, TAMPER_NONE, &ctx);
    if ((tamper = pick_tamper(&r, c.aadlen, c.len)) != TAMPER_NONE)
        gcm_stream(h, &c, &r, 0, tamper, &ctx);
    if (index % 25 == 3)
        gcm_random_iv(h, &c, &r);
    EVP_CIPHER_CTX_free(ctx.t);
    EVP_CIPHER_CTX_free(ctx.r);
    free(c.pt);
    free(c.ct);
    free(c.ct2);
    h->cases++;
}

/* ==== GCM-SIV ================================================================================= */

static const char *const siv_algs[3] = {"AES-128-GCM-SIV", "AES-192-GCM-SIV", "AES-256-GCM-SIV"};

#ifndef EVP_CIPH_GCM_SIV_MODE /* 3.2+ headers; the value is the same on every version */
#define EVP_CIPH_GCM_SIV_MODE 0x10005
#endif
#ifndef OSSL_CIPHER_PARAM_SPEED
#define OSSL_CIPHER_PARAM_SPEED "speed"
#endif
#define SIV_NONCE 12
#define SIV_TAG 16
#define SIV_MAX_AAD GCM_MAX_AAD /* gcm_gen_aad's lengths */
#define SIV_SPEED_PERIOD 20 /* case 5 of every this many: the "speed" parameter, 2..4 messages */
#define SIV_SPEED_MAX 4
#define SIV_BIG_PERIOD 4000 /* case 1009 of every this many: 1..4 MiB (besides gcm_gen_len's) */
/* The first cases sweep lengths instead: every data length 0..SIV_SWEEP_LEN (0..65 blocks, past
 * the short-message kernels' bounds) with each AAD length of siv_sweep_aad (none, partial
 * blocks, the stream's 8-block queue and one past it). */
#define SIV_SWEEP_LEN 1040
static const size_t siv_sweep_aad[] = {0, 1, 13, 16, 17, 127, 128, 129, 144};
#define SIV_SWEEP (sizeof(siv_sweep_aad) / sizeof(siv_sweep_aad[0]) * (SIV_SWEEP_LEN + 1))

struct scase {
    uint64_t index;
    int ks;
    uint8_t key[32], nonce[SIV_NONCE], nonce2[SIV_NONCE]; /* nonce2: a dirtying message's */
    size_t aadlen, len;
    uint8_t aad[SIV_MAX_AAD];
    uint8_t *pt, *ct, tag[SIV_TAG]; /* ct, tag: the default provider's, on a fresh context */
    char trace[512];
};

static void siv_fail(struct harness *h, const struct scase *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void siv_fail(struct harness *h, const struct scase *c, const char *fmt, ...)
{
    va_list ap;

    fail_head(h, c->index);
    fprintf(stderr, "%s aadlen=%zu len=%zu key=", siv_algs[c->ks], c->aadlen, c->len);
    tu_hex_print(stderr, c->key, keylens[c->ks]);
    fprintf(stderr, " nonce=");
    tu_hex_print(stderr, c->nonce, SIV_NONCE);
    fail_small_inputs(c->aad, c->aadlen, c->pt, c->len);
    va_start(ap, fmt);
    fail_tail(h, c->index, c->trace, fmt, ap);
    va_end(ap);
}

static int siv_set_tag(EVP_CIPHER_CTX *x, const uint8_t *tag, int by_param)
{
    return tu_set_tag(x, tag, SIV_TAG, by_param);
}

static int siv_set_speed(EVP_CIPHER_CTX *x)
{
    unsigned int one = 1;
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_SPEED, &one),
                       OSSL_PARAM_construct_end()};

    return EVP_CIPHER_CTX_set_params(x, p);
}

/*
 * The default provider's GCM-SIV in one update each for AAD and data, on a fresh provider
 * context (an init naming the cipher makes a new one: no AAD of an earlier message can reach
 * this one). enc fills tag; !enc checks it. Returns the final's result.
 */
static int siv_ref(struct harness *h, int ks, const uint8_t *key, const uint8_t *nonce,
                   const uint8_t *aad, size_t aadlen, int enc, const uint8_t *in, uint8_t *out,
                   size_t len, uint8_t *tag)
{
    EVP_CIPHER_CTX *x = h->refctx;
    uint8_t none[1] = {0};
    int outl = -1;

    if (!EVP_CipherInit_ex2(x, h->ref[ks], key, nonce, enc, NULL)
        || (aadlen != 0 && !EVP_CipherUpdate(x, NULL, &outl, aad, (int)aadlen))
        || (!enc && !siv_set_tag(x, tag, 0))
        || !EVP_CipherUpdate(x, len != 0 ? out : none, &outl, len != 0 ? in : none, (int)len)
        || outl != (int)len)
        tu_die("reference (default provider) %s of %zu bytes failed", siv_algs[ks], len);
    return aead_ref_final(x, enc, tag, siv_algs[ks]);
}

static void siv_gen(struct harness *h, struct scase *c, tu_rng *r)
{
    uint8_t back[SIV_TAG];

    c->ks = (int)tu_rng_below(r, 3);
    tu_rng_fill(r, c->key, sizeof(c->key));
    tu_rng_fill(r, c->nonce, SIV_NONCE);
    tu_rng_fill(r, c->nonce2, SIV_NONCE);
    c->aadlen = gcm_gen_aad(r, c->aad);
    /* Mostly 0..512 B, some to 64 KiB, and 1 in SIV_BIG_PERIOD 1..4 MiB. */
    c->len = gcm_gen_len(r, c->index);
    if (c->index % SIV_BIG_PERIOD == 1009)
        c->len = ((size_t)1 << 20) + tu_rng_below(r, ((uint64_t)3 << 20) + 1);
    if (c->index < SIV_SWEEP) {
        c->aadlen = siv_sweep_aad[c->index / (SIV_SWEEP_LEN + 1)];
        c->len = c->index % (SIV_SWEEP_LEN + 1);
        tu_rng_fill(r, c->aad, c->aadlen);
    }
    if (h->max_len != 0)
        c->len %= h->max_len + 1;
    c->pt = tu_xmalloc(c->len);
    c->ct = tu_xmalloc(c->len);
    tu_rng_fill(r, c->pt, c->len);
    siv_ref(h, c->ks, c->key, c->nonce, c->aad, c->aadlen, 1, c->pt, c->ct, c->len, c->tag);
    h->big += c->len > 65536;
    /* Every 100th case: the reference must open its own message (a check of the reference). */
    if (c->index % 100 == 0) {
        uint8_t *chk = tu_xmalloc(c->len);

        memcpy(back, c->tag, SIV_TAG);
        if (!siv_ref(h, c->ks, c->key, c->nonce, c->aad, c->aadlen, 0, c->ct, chk, c->len, back)
            || memcmp(chk, c->pt, c->len) != 0)
            siv_fail(h, c, "the default provider does not open its own message");
        free(chk);
    }
}

/* One side of the lockstep: a context and how the provider behaves. */
struct sside {
    EVP_CIPHER_CTX *x;
    const EVP_CIPHER *cipher;
    int safe; /* aesfast's contract: empty AAD updates are no-ops, every init starts a new
               * message, a failed open fails in the update, wiped */
};

/*
 * Init one side in the given style, the tag (opening) set at point tag_at of it: 0 after the
 * init, 1 between its two calls (which the styles with two calls have), 2 as a parameter of the
 * last call. Styles 0..3 name the cipher first (a new provider context); 4 and 5 re-init the
 * context as it is, with key and nonce or the nonce alone.
 */
static int siv_init_side(struct sside *s, const struct scase *c, int enc, int style, int tag_at,
                         int tag_param, const uint8_t *tag)
{
    const uint8_t *key = c->key, *n = c->nonce;
    OSSL_PARAM prm[2] = {OSSL_PARAM_construct_end(), OSSL_PARAM_construct_end()};
    const OSSL_PARAM *last = NULL;
    int ok;

    if (!enc && tag_at == 2) {
        prm[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, (void *)tag,
                                                   SIV_TAG);
        last = prm;
    }
#define SIV_MID (enc || tag_at != 1 || siv_set_tag(s->x, tag, tag_param))
    switch (style) {
    case 0:
        ok = EVP_CipherInit_ex2(s->x, s->cipher, key, n, enc, last);
        break;
    case 1:
        ok = EVP_CipherInit_ex2(s->x, s->cipher, NULL, NULL, enc, NULL) && SIV_MID
             && EVP_CipherInit_ex2(s->x, NULL, key, n, -1, last);
        break;
    case 2: /* the nonce before the key */
        ok = EVP_CipherInit_ex(s->x, s->cipher, NULL, NULL, n, enc) && SIV_MID
             && EVP_CipherInit_ex2(s->x, NULL, key, NULL, -1, last);
        break;
    case 3:
        ok = EVP_CipherInit_ex(s->x, s->cipher, NULL, key, NULL, enc) && SIV_MID
             && EVP_CipherInit_ex2(s->x, NULL, NULL, n, -1, last);
        break;
    case 4:
        ok = EVP_CipherInit_ex2(s->x, NULL, key, n, enc, last);
        break;
    default: /* the key the context has */
        ok = EVP_CipherInit_ex2(s->x, NULL, NULL, n, enc, last);
        break;
    }
#undef SIV_MID
    if (ok && !enc && tag_at == 0)
        ok = siv_set_tag(s->x, tag, tag_param);
    return ok;
}

/* Both sides gave rt and rr; with want >= 0 both must have given it (1 success, 0 failure). */
static int siv_agree(struct harness *h, struct scase *c, const char *what, int rt, int rr,
                     int want)
{
    if ((rt > 0) != (rr > 0) || (want >= 0 && (rt > 0) != want)) {
        siv_fail(h, c, "%s returned %d on %s, %d on default (expected %s on both)", what, rt,
                 h->prov.test_name, rr, want < 0 ? "the same" : want ? "success" : "failure");
        ERR_clear_error();
        return 0;
    }
    if (rt <= 0 || rr <= 0)
        ERR_clear_error();
    return 1;
}

/*
 * One direction of case c on both providers in lockstep. enc: pt in, ct and tag out. !enc: ct
 * and tag in, pt out; with tamper, one bit of tag, AAD or ciphertext flipped, and both must
 * fail: aesfast in the data update, with its output left all zero (wiped), the default
 * provider at final (its update releases unverified plaintext, which is not compared).
 * *pair: contexts from an earlier stream of the case (or NULL); on return, this stream's.
 */
static void siv_stream(struct harness *h, struct scase *c, tu_rng *r, int enc,
                       enum tamper tamper, struct gpair *pair)
{
    const size_t len = c->len;
    struct sside t = {NULL, h->test[c->ks], strcmp(h->prov.test_name, "default") != 0};
    struct sside d = {NULL, h->ref[c->ks], 0};
    uint8_t aad[SIV_MAX_AAD], tag[SIV_TAG], got_t[SIV_TAG], got_d[SIV_TAG], fin[16];
    uint8_t none[1] = {0};
    const uint8_t *in = enc ? c->pt : c->ct, *want = enc ? c->ct : c->pt;
    uint8_t *tin = NULL, *tbuf, *tout, *dout, *flipped = NULL;
    size_t off_in = tu_rng_below(r, 16), off_out = tu_rng_below(r, 16);
    int inplace = tu_rng_below(r, 3) == 0, style_t, style_d, tag_at, tag_param, ecall;
    int speed = c->index % SIV_SPEED_PERIOD == 5, nmsg = 1, final_only, probe_again;
    int rt, rr, ot = -1, od = -1;
    struct chunker ch;
    size_t pos;

    c->trace[0] = '\0';
    TRACE(c, "%s", enc ? "seal" : "open");
    if (tamper != TAMPER_NONE)
        TRACE(c, "(%s flipped)", tamper_names[tamper]);
    memcpy(aad, c->aad, c->aadlen);
    memcpy(tag, c->tag, SIV_TAG);
    if (tamper == TAMPER_TAG) {
        tag[tu_rng_below(r, SIV_TAG)] ^= (uint8_t)(1u << tu_rng_below(r, 8));
    } else if (tamper == TAMPER_AAD) {
        aad[tu_rng_below(r, c->aadlen)] ^= (uint8_t)(1u << tu_rng_below(r, 8));
    } else if (tamper == TAMPER_CT) {
        flipped = tu_xmalloc(len);
        memcpy(flipped, c->ct, len);
        flipped[tu_rng_below(r, len)] ^= (uint8_t)(1u << tu_rng_below(r, 8));
        in = flipped;
    }
    if (tamper != TAMPER_NONE)
        h->tampered++;

    /* Contexts: the earlier stream's (reused) or new ones. A reused one is first dirtied, half
     * the time, with a message under nonce2 that is left with AAD (and maybe its data) in it. */
    if (pair->t != NULL && tu_rng_below(r, 3) != 0) {
        t.x = pair->t, d.x = pair->r;
        if (tu_rng_below(r, 2) == 0) {
            uint8_t junk[64];
            int o1 = -1, o2 = -1, n = 1 + (int)tu_rng_below(r, sizeof(junk));

            tu_rng_fill(r, junk, sizeof(junk));
            rt = EVP_CipherInit_ex2(t.x, NULL, c->key, c->nonce2, 1, NULL)
                 && EVP_CipherUpdate(t.x, NULL, &o1, junk, n);
            rr = EVP_CipherInit_ex2(d.x, NULL, c->key, c->nonce2, 1, NULL)
                 && EVP_CipherUpdate(d.x, NULL, &o2, junk, n);
            if (!siv_agree(h, c, "a dirtying message's init and AAD", rt, rr, 1))
                goto out;
            if (tu_rng_below(r, 2) == 0) {
                uint8_t j1[64], j2[64];

                rt = EVP_CipherUpdate(t.x, j1, &o1, junk, n);
                rr = EVP_CipherUpdate(d.x, j2, &o2, junk, n);
                if (!siv_agree(h, c, "a dirtying message's data", rt, rr, 1))
                    goto out;
            }
            TRACE(c, " dirtied(%d B AAD)", n);
            h->reinits++;
        }
        style_t = (int)tu_rng_below(r, 6);
        h->reused_same += style_t >= 4;
        h->reused_other += style_t < 4;
    } else {
        EVP_CIPHER_CTX_free(pair->t);
        EVP_CIPHER_CTX_free(pair->r);
        pair->t = pair->r = NULL;
        if ((t.x = EVP_CIPHER_CTX_new()) == NULL || (d.x = EVP_CIPHER_CTX_new()) == NULL)
            tu_die("out of memory");
        style_t = (int)tu_rng_below(r, 4);
    }
    pair->t = t.x, pair->r = d.x;
    /* The default side: the same style, or a new provider context (style 0); re-inited as it
     * is, it keeps its AAD across inits, so an empty AAD update (which resets it there) follows. */
    style_d = style_t >= 4 && tu_rng_below(r, 2) == 0 ? 0 : style_t;
    tag_at = (int)tu_rng_below(r, 3);
    if (tag_at == 1 && (style_t == 0 || style_t >= 4 || style_d == 0))
        tag_at = 0;
    tag_param = (int)tu_rng_below(r, 2);
    ecall = tu_rng_below(r, 8) == 0;
    TRACE(c, " init%d/%d tag_at=%d%s%s", style_t, style_d, tag_at, tag_param ? " by-param" : "",
          ecall ? " EVP_Cipher" : "");
    rt = siv_init_side(&t, c, enc, style_t, tag_at, tag_param, tag);
    rr = siv_init_side(&d, c, enc, style_d, tag_at, tag_param, tag);
    if (!siv_agree(h, c, "init", rt, rr, 1))
        goto out;
    /* The default provider's AAD survives an init that does not name the cipher: an empty AAD
     * update resets it (aesfast: a no-op, sent at random). */
    {
        int et = t.safe ? tu_rng_below(r, 4) == 0 : style_t >= 4, ed = style_d >= 4;

        rt = et ? EVP_CipherUpdate(t.x, NULL, &ot, none, 0) : 1;
        rr = ed ? EVP_CipherUpdate(d.x, NULL, &od, none, 0) : 1;
        if (!siv_agree(h, c, "empty AAD update (default: resets its AAD)", rt, rr, 1))
            goto out;
        h->resets += ed;
    }
    if (speed) {
        nmsg = 2 + (int)tu_rng_below(r, SIV_SPEED_MAX - 1);
        if (!siv_agree(h, c, "set_params(speed=1)", siv_set_speed(t.x), siv_set_speed(d.x), 1))
            goto out;
        TRACE(c, " speed(%d messages)", nmsg);
        h->speeds++;
    }
    h->ecalls += ecall;

    /* AAD in random chunks; the empty ones only to a side that takes them as no-ops. */
    pick_chunker(&ch, r, c->aadlen, c->trace, sizeof(c->trace));
    pos = 0;
    do {
        size_t n = next_chunk(&ch, c->aadlen - pos);
        int dup = tu_rng_below(r, 64) == 0;

        if (n == 0 && !t.safe)
            continue;
        if (ecall) {
            rt = EVP_Cipher(t.x, NULL, aad + pos, (unsigned)n) == (int)n;
            rr = n == 0 ? 1 : EVP_Cipher(d.x, NULL, aad + pos, (unsigned)n) == (int)n;
        } else {
            rt = EVP_CipherUpdate(t.x, NULL, &ot, aad + pos, (int)n) && ot == (int)n;
            rr = n == 0 ? 1 : EVP_CipherUpdate(d.x, NULL, &od, aad + pos, (int)n) && od == (int)n;
        }
        if (!siv_agree(h, c, "AAD update", rt, rr, 1))
            goto out;
        pos += n;
        if (dup) { /* go on with copies of both contexts */
            EVP_CIPHER_CTX *ct = EVP_CIPHER_CTX_new(), *cr = EVP_CIPHER_CTX_new();

            if (ct == NULL || cr == NULL)
                tu_die("out of memory");
            if (!siv_agree(h, c, "EVP_CIPHER_CTX_copy", EVP_CIPHER_CTX_copy(ct, t.x),
                           EVP_CIPHER_CTX_copy(cr, d.x), 1)) {
                EVP_CIPHER_CTX_free(ct);
                EVP_CIPHER_CTX_free(cr);
                goto out;
            }
            EVP_CIPHER_CTX_free(t.x);
            EVP_CIPHER_CTX_free(d.x);
            pair->t = t.x = ct, pair->r = d.x = cr;
            TRACE(c, " copy@%zu", pos);
            h->copies++;
        }
    } while (pos < c->aadlen);
    h->bytes += c->aadlen;

    /* The data, in one update (per message, with "speed"). Test side: in place or not, at
     * offsets 0..15, canaries around the output. */
    tbuf = tu_xmalloc(canary_size(len));
    tin = inplace ? NULL : tu_xmalloc(len + 16);
    dout = tu_xmalloc(len + 1);
    /* An empty message may go without a data update: final alone seals (on aesfast; the default
     * provider's final fails without one) or opens it. */
    final_only = len == 0 && !speed && tu_rng_below(r, 2) == 0 && (!enc || t.safe);
    probe_again = !speed && tamper == TAMPER_NONE && tu_rng_below(r, 10) == 0;
    h->inplace += inplace;
    TRACE(c, "%s off=%zu/%zu%s", inplace ? " in-place" : "", off_in, off_out,
          final_only ? " final-only" : "");
    tout = tbuf + GUARD + off_out;
    h->final_only += final_only;
    for (int m = 0; m < nmsg; m++) {
        const uint8_t *src = in, *ref = want;
        uint8_t *msg = NULL, *mct = NULL, mtag[SIV_TAG];
        size_t mlen = len;
        const uint8_t *tsrc;

        if (m > 0 && enc) { /* "speed": another message under the same nonce and AAD */
            mlen = tu_rng_below(r, (h->max_len != 0 && h->max_len < 513 ? h->max_len : 512) + 1);
            if (mlen > len) /* the buffers were made for len */
                mlen = len;
            msg = tu_xmalloc(mlen);
            mct = tu_xmalloc(mlen);
            tu_rng_fill(r, msg, mlen);
            siv_ref(h, c->ks, c->key, c->nonce, c->aad, c->aadlen, 1, msg, mct, mlen, mtag);
            src = msg, ref = mct;
        }
        memset(tbuf, CANARY, canary_size(len));
        tout = tbuf + GUARD + off_out;
        if (inplace) {
            memcpy(tout, src, mlen);
            tsrc = tout;
        } else {
            memcpy(tin + off_in, src, mlen);
            tsrc = tin + off_in;
        }
        /* final_only: the test side skips the update; default too when opening (sealing, its
         * final fails without one). */
        if (final_only) {
            rt = 1, ot = 0;
        } else if (ecall) {
            rt = ot = EVP_Cipher(t.x, mlen != 0 ? tout : none, mlen != 0 ? tsrc : none,
                                 (unsigned)mlen);
            rt = rt == (int)mlen;
        } else {
            rt = EVP_CipherUpdate(t.x, mlen != 0 ? tout : none, &ot, mlen != 0 ? tsrc : none,
                                  (int)mlen);
        }
        if (final_only && !enc) {
            rr = 1, od = 0;
        } else if (ecall) {
            rr = od = EVP_Cipher(d.x, mlen != 0 ? dout : none, mlen != 0 ? src : none,
                                 (unsigned)mlen);
            rr = rr == (int)mlen;
        } else {
            rr = EVP_CipherUpdate(d.x, mlen != 0 ? dout : none, &od, mlen != 0 ? src : none,
                                  (int)mlen);
        }
        h->bytes += mlen;
        if (tamper != TAMPER_NONE && t.safe && !final_only) {
            /* aesfast: the update fails and leaves nothing; default: it releases plaintext. */
            if (rt > 0 || rr <= 0) {
                siv_fail(h, c, "tampered data update returned %d on %s (expected failure), %d "
                         "on default (expected success)", rt, h->prov.test_name, rr);
                goto out_free;
            }
            ERR_clear_error();
            for (size_t i = 0; i < mlen; i++) {
                if (tout[i] != 0) {
                    siv_fail(h, c, "a failed open left byte %zu of the output at %02x, not "
                             "wiped (plaintext %02x, default released %02x)", i, tout[i],
                             c->pt[i], dout[i]);
                    goto out_free;
                }
            }
            h->wiped++;
        } else {
            if (!siv_agree(h, c, "data update", rt, rr, 1))
                goto out_free;
            if (ot != (int)mlen || od != (int)mlen) {
                siv_fail(h, c, "data update output %d bytes on %s, %d on default, not %zu", ot,
                         h->prov.test_name, od, mlen);
                goto out_free;
            }
            if (tamper == TAMPER_NONE) {
                size_t at;

                if ((at = tu_first_diff(tout, ref, mlen)) != (size_t)-1
                    || (at = tu_first_diff(dout, ref, mlen)) != (size_t)-1) {
                    siv_fail(h, c, "message %d: %s byte %zu is %02x on %s, %02x on default, "
                             "expected %02x", m, enc ? "ciphertext" : "plaintext", at, tout[at],
                             h->prov.test_name, dout[at], ref[at]);
                    goto out_free;
                }
            }
        }
        if (!check_canaries(tbuf, GUARD + off_out, mlen)) {
            siv_fail(h, c, "bytes around the output were written");
            goto out_free;
        }
        if (enc && speed) { /* each message's tag, right after its update */
            rt = EVP_CIPHER_CTX_ctrl(t.x, EVP_CTRL_AEAD_GET_TAG, SIV_TAG, got_t);
            rr = EVP_CIPHER_CTX_ctrl(d.x, EVP_CTRL_AEAD_GET_TAG, SIV_TAG, got_d);
            if (!siv_agree(h, c, "speed: get the tag", rt, rr, 1))
                goto out_free;
            if (memcmp(got_t, m > 0 ? mtag : c->tag, SIV_TAG) != 0
                || memcmp(got_d, got_t, SIV_TAG) != 0) {
                siv_fail(h, c, "speed: message %d's tag differs", m);
                goto out_free;
            }
        }
        free(msg);
        free(mct);
    }

    /* Final: both succeed, or (tampered) both fail. */
    if (ecall) {
        rt = EVP_Cipher(t.x, NULL, NULL, 0) >= 0;
        rr = EVP_Cipher(d.x, NULL, NULL, 0) >= 0;
    } else {
        rt = EVP_CipherFinal_ex(t.x, fin, &ot);
        rr = EVP_CipherFinal_ex(d.x, fin, &od);
    }
    if (!siv_agree(h, c, "final", rt, rr, tamper == TAMPER_NONE))
        goto out_free;
    if (tamper != TAMPER_NONE)
        goto out_free;
    if (enc && !speed) {
        rt = get_tag(t.x, got_t, SIV_TAG, tag_param);
        rr = get_tag(d.x, got_d, SIV_TAG, 0);
        if (!siv_agree(h, c, "get the tag", rt, rr, 1))
            goto out_free;
        if (memcmp(got_t, c->tag, SIV_TAG) != 0 || memcmp(got_d, c->tag, SIV_TAG) != 0) {
            siv_fail(h, c, "tag differs (%s %s)", memcmp(got_t, c->tag, SIV_TAG) ? "test" : "",
                     memcmp(got_d, c->tag, SIV_TAG) ? "default" : "");
            goto out_free;
        }
    }
    if (probe_again) {
        /* A second data update without "speed": refused by both. */
        rt = EVP_CipherUpdate(t.x, len != 0 ? tout : none, &ot, len != 0 ? in : none, (int)len);
        rr = EVP_CipherUpdate(d.x, len != 0 ? dout : none, &od, len != 0 ? in : none, (int)len);
        siv_agree(h, c, "a second data update without speed", rt, rr, 0);
        h->again++;
    }
out_free:
    free(tbuf);
    free(tin);
    free(dout);
out:
    free(flipped);
}

static void siv_run_case(struct harness *h, uint64_t index)
{
    struct scase c = {.index = index};
    struct gpair ctx = {NULL, NULL};
    enum tamper tamper;
    tu_rng r;

    tu_rng_seed(&r, h->seed, index);
    siv_gen(h, &c, &r);
    siv_stream(h, &c, &r, 1, TAMPER_NONE, &ctx);
    siv_stream(h, &c, &r, 0, TAMPER_NONE, &ctx);
    if ((tamper = pick_tamper(&r, c.aadlen, c.len)) != TAMPER_NONE)
        siv_stream(h, &c, &r, 0, tamper, &ctx);
    EVP_CIPHER_CTX_free(ctx.t);
    EVP_CIPHER_CTX_free(ctx.r);
    free(c.pt);
    free(c.ct);
    h->cases++;
}

/* ==== Main ==================================================================================== */

static void usage(void)
{
    fprintf(stderr,
            "usage: diff --mode ctr|gcm|gcmsiv [--cases N] [--seed S] [--case I] [--max-len N] "
            "[--provider NAME] [--expect-kernel NAME]\n"
            "  --mode M             ctr (AES-CTR), gcm (AES-GCM) or gcmsiv (AES-GCM-SIV)\n"
            "  --cases N            number of cases (default %d)\n"
            "  --seed S             PRNG seed, decimal or 0x hex (default 0x%016llx)\n"
            "  --case I             run only case I (to replay a failure)\n"
            "  --max-len N          gcm, gcmsiv: data of at most N bytes (N >= 64; smaller cases\n"
            "                       for runs under an emulator: the same draws, lengths reduced\n"
            "                       mod N + 1)\n"
            "  --provider NAME      provider under test (default aesfast; \"default\" for the "
            "self-check)\n"
            "  --expect-kernel NAME fail unless the provider's aesfast-kernel is NAME\n",
            DEFAULT_CASES, (unsigned long long)DEFAULT_SEED);
    exit(2);
}

int main(int argc, char **argv)
{
    struct harness h = {.seed = DEFAULT_SEED};
    const char *provider = "aesfast", *expect_kernel = NULL;
    const char *const *algs;
    uint64_t cases = DEFAULT_CASES, only = 0;
    int have_only = 0, gcm, siv;
    void (*run_case)(struct harness *, uint64_t);
    double t0, t;

    tu_init(argv[0]);
    /* Every option takes a value. */
    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (v == NULL)
            usage();
        else if (strcmp(a, "--mode") == 0)
            h.mode = v;
        else if (strcmp(a, "--cases") == 0)
            cases = tu_parse_u64(a, v);
        else if (strcmp(a, "--seed") == 0)
            h.seed = tu_parse_u64(a, v);
        else if (strcmp(a, "--case") == 0)
            only = tu_parse_u64(a, v), have_only = 1;
        else if (strcmp(a, "--provider") == 0)
            provider = v;
        else if (strcmp(a, "--max-len") == 0)
            h.max_len = (size_t)tu_parse_u64(a, v);
        else if (strcmp(a, "--expect-kernel") == 0)
            expect_kernel = v;
        else
            usage();
    }
    if (h.mode == NULL
        || (strcmp(h.mode, "ctr") != 0 && strcmp(h.mode, "gcm") != 0
            && strcmp(h.mode, "gcmsiv") != 0)
        || (h.max_len != 0 && h.max_len < 64))
        usage();
    gcm = strcmp(h.mode, "gcm") == 0;
    siv = strcmp(h.mode, "gcmsiv") == 0;
    algs = gcm ? gcm_algs : siv ? siv_algs : ctr_algs;
    run_case = gcm ? gcm_run_case : siv ? siv_run_case : ctr_run_case;

    tu_providers_load(&h.prov, provider, expect_kernel);
    if (siv) {
        EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, siv_algs[0], "provider=default");

        if (c == NULL) { /* OpenSSL 3.0 and 3.1 */
            printf("diff: SKIP: the default provider of %s has no GCM-SIV: no reference\n",
                   OpenSSL_version(OPENSSL_VERSION));
            tu_providers_unload(&h.prov);
            return TU_EXIT_SKIP;
        }
        EVP_CIPHER_free(c);
    }
    for (int k = 0; k < 3; k++) {
        int want_mode = gcm ? EVP_CIPH_GCM_MODE : siv ? EVP_CIPH_GCM_SIV_MODE : EVP_CIPH_CTR_MODE;
        int want_iv = gcm || siv ? 12 : 16;

        h.test[k] = tu_fetch_cipher(algs[k], provider);
        h.ref[k] = tu_fetch_cipher(algs[k], "default");
        if (gcm)
            h.ecb[k] = tu_fetch_cipher(ecb_algs[k], "default");
        if (EVP_CIPHER_get_block_size(h.test[k]) != 1
            || EVP_CIPHER_get_iv_length(h.test[k]) != want_iv
            || EVP_CIPHER_get_key_length(h.test[k]) != (int)keylens[k]
            || EVP_CIPHER_get_mode(h.test[k]) != want_mode
            || EVP_CIPHER_get_flags(h.test[k]) != EVP_CIPHER_get_flags(h.ref[k]))
            tu_die("%s from %s: block size %d, IV length %d, key length %d, mode %d, flags "
                   "%#lx; expected 1, %d, %zu, %d, %#lx (as default)",
                   algs[k], provider, EVP_CIPHER_get_block_size(h.test[k]),
                   EVP_CIPHER_get_iv_length(h.test[k]), EVP_CIPHER_get_key_length(h.test[k]),
                   EVP_CIPHER_get_mode(h.test[k]), EVP_CIPHER_get_flags(h.test[k]), want_iv,
                   keylens[k], want_mode, EVP_CIPHER_get_flags(h.ref[k]));
    }
    if ((h.refctx = EVP_CIPHER_CTX_new()) == NULL || (h.ecbctx = EVP_CIPHER_CTX_new()) == NULL)
        tu_die("out of memory");

    t0 = tu_now();
    if (have_only) {
        run_case(&h, only);
    } else {
        for (uint64_t i = 0; i < cases && h.failures < MAX_FAILURES; i++)
            run_case(&h, i);
    }
    t = tu_now() - t0;

    if (siv)
        printf("diff: gcmsiv: seed 0x%016llx: %.1f MiB (AAD and data) through %s and default in "
               "%.2f s; %llu big, %llu tampered (%llu checked wiped on %s), %llu speed streams, "
               "%llu streams by EVP_Cipher, %llu copies, %llu dirtied re-inits, %llu in-place, "
               "%llu empty messages by final alone, %llu second data updates refused, %llu "
               "empty-AAD resets on default; reused contexts: %llu provider context kept, %llu "
               "recreated\n",
               (unsigned long long)h.seed, h.bytes / 1048576.0, provider, t,
               (unsigned long long)h.big, (unsigned long long)h.tampered,
               (unsigned long long)h.wiped, provider, (unsigned long long)h.speeds,
               (unsigned long long)h.ecalls, (unsigned long long)h.copies,
               (unsigned long long)h.reinits, (unsigned long long)h.inplace,
               (unsigned long long)h.final_only, (unsigned long long)h.again,
               (unsigned long long)h.resets, (unsigned long long)h.reused_same,
               (unsigned long long)h.reused_other);
    else if (gcm)
        printf("diff: gcm: seed 0x%016llx: %.1f MiB (AAD and data) through %s and default in "
               "%.2f s; %llu IVs not 12 bytes, %llu wrap IVs, %llu big, %llu tampered, %llu short "
               "tags, %llu streams by EVP_Cipher, %llu copies (%llu finished on both), %llu "
               "re-inits, %llu in-place, %llu random IVs, %llu probes, %llu refusals after a "
               "failed final (default goes on); reused contexts: %llu provider context kept, "
               "%llu recreated\n",
               (unsigned long long)h.seed, h.bytes / 1048576.0, provider, t,
               (unsigned long long)h.non12, (unsigned long long)h.wrap_ivs,
               (unsigned long long)h.big, (unsigned long long)h.tampered,
               (unsigned long long)h.short_tags, (unsigned long long)h.ecalls,
               (unsigned long long)h.copies, (unsigned long long)h.duals,
               (unsigned long long)h.reinits, (unsigned long long)h.inplace,
               (unsigned long long)h.random_ivs, (unsigned long long)h.probes,
               (unsigned long long)h.stricter, (unsigned long long)h.reused_same,
               (unsigned long long)h.reused_other);
    else
        printf("diff: ctr: seed 0x%016llx: %.1f MiB through %s in %.2f s; %llu wrap IVs, %llu "
               "big, %llu copies (%llu finished on both), %llu re-inits, %llu in-place; reused "
               "contexts: %llu re-keyed in place (same cipher, provider context kept), %llu with "
               "another key size (provider context recreated)\n",
               (unsigned long long)h.seed, h.bytes / 1048576.0, provider, t,
               (unsigned long long)h.wrap_ivs, (unsigned long long)h.big,
               (unsigned long long)h.copies, (unsigned long long)h.duals,
               (unsigned long long)h.reinits, (unsigned long long)h.inplace,
               (unsigned long long)h.reused_same, (unsigned long long)h.reused_other);
    if (h.failures != 0)
        printf("diff: %s: FAILED: %u failures in %llu cases (kernel %s, %s)\n", h.mode,
               h.failures, (unsigned long long)h.cases, h.prov.kernel,
               OpenSSL_version(OPENSSL_VERSION));
    else
        printf("diff: %s: %llu case%s passed (kernel %s, %s)\n", h.mode,
               (unsigned long long)h.cases, h.cases == 1 ? "" : "s", h.prov.kernel,
               OpenSSL_version(OPENSSL_VERSION));

    EVP_CIPHER_CTX_free(h.refctx);
    EVP_CIPHER_CTX_free(h.ecbctx);
    for (int k = 0; k < 3; k++) {
        EVP_CIPHER_free(h.test[k]);
        EVP_CIPHER_free(h.ref[k]);
        EVP_CIPHER_free(h.ecb[k]);
    }
    tu_providers_unload(&h.prov);
    return h.failures != 0;
}
