/*
 * bench: throughput of a provider under test (aesfast) against OpenSSL's default provider.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * Both providers run in the same process, on the same buffers, through the same EVP calls. For
 * every cipher and message size there are --rounds rounds. In a round each side gets about
 * --time-per-round milliseconds, cut into slices of about --slice ms; the sides take turns slice
 * by slice, swapping who goes first each time (A B, B A, A B, ...) so neither always inherits
 * the other's caches or clock speed. Each slice is a tight loop timed with CLOCK_MONOTONIC.
 *
 * A side's speed in a round is its best slice. On a small shared machine the noise is other
 * programs taking the CPU away (preemption, hypervisor steal), which only ever slows a slice
 * down, and a slice of a few milliseconds is often untouched. The mean over a round is not: a
 * single preemption of a few ms cuts it by 10 % or more, and it lands on one side. The figure of
 * merit is the median over rounds of the per-round ratio of best slices; the table also shows
 * the smallest and largest per-round ratio. Measuring "default" against itself shows the noise
 * left (ratios within about 2 % here, against 10-30 % for whole-round means).
 *
 * What one message is depends on the operation (--op):
 *   bulk  one EVP_EncryptUpdate on a context initialised once, as `openssl speed -evp` does: a
 *         stream cipher's (CTR) stream goes on; a GCM message grows (re-initialised with the next
 *         IV every BULK_MSG_MAX bytes, far below GCM's limit of 2^36 - 32 bytes per message).
 *         GCM-SIV cannot stream (the data of a message is one update), so its bulk message is
 *         the only legal pattern with the least around it: an init with the next nonce only (the
 *         key stays; the per-nonce keys are derived here), then one update; no AAD, no final
 *         and no tag read (its final does no work in either provider: the update made the tag);
 *   seal  AEAD, as a TLS record layer does it: re-initialise with a fresh IV only (the key stays),
 *         --aad bytes of AAD (13 by default, a TLS 1.2 record's), one update, final, read the tag;
 *   open  AEAD: re-initialise for decryption with the IV only, the AAD, one update, set the tag,
 *         final (which must authenticate), on a message the default provider sealed: the order of
 *         the EVP manual's example. GCM-SIV's tag is its initial counter, so there the tag is set
 *         first: IV-only init, set the tag, AAD, one update, final;
 *   open-tag-first  the same with the tag set right after the IV-only init, before the AAD: the
 *         order of OpenSSL's own TLS 1.3 and QUIC record layers (libssl). GCM only: GCM-SIV's
 *         open is always in this order.
 * and four that set a key, or a context, up per message, as programs do that key, make or copy a
 * context per message (CTR, GCM and GCM-SIV; a message is sealed as in seal, AAD and tag for AEAD,
 * one update and final for CTR):
 *   rekey  a new key per message on the same context: EVP_CipherInit_ex(ctx, NULL, NULL, key, iv,
 *         -1), then the message;
 *   speed  AEAD: `openssl speed -evp -aead`'s own loop (apps/speed.c, EVP_Update_loop_aead_enc, the
 *         same in 3.0 to 3.6): EVP_CTRL_AEAD_SET_IVLEN 12, EVP_CipherInit_ex with the key and the
 *         IV (the same IV every message, as speed's), the AAD, one update in place, final into the
 *         buffer's start; no tag read. The context was set up as speed sets it (cipher only,
 *         padding off, GCM-SIV's "speed" parameter). For CTR, speed's loop is bulk: no speed line;
 *   newctx EVP_EncryptInit_ex2(ctx, cipher, key, iv, NULL) per message: with a cipher given, EVP
 *         frees the provider's context and makes a new one, as a program that makes a context
 *         per message does;
 *   copy   EVP_CIPHER_CTX_copy from a context keyed once, an IV-only init, then the message (the
 *         key stays: copy is the one of the four that does not re-key).
 * rekey, speed and newctx change the key every message (a counter in its first 4 bytes), so that
 * no side can keep a key schedule from one message to the next; unlike `openssl speed`, which
 * re-keys with one key throughout (bench/run.sh runs that too).
 * GCM-SIV's seal and open give a zero-length AAD update before the AAD, on both sides: OpenSSL's
 * GCM-SIV (3.2 to 3.6 at least) keeps the AAD of the last message across an init and appends the
 * next message's to it (wrong tags, and a buffer growing by --aad bytes a message) unless it is
 * reset that way; aesfast forgets it at every init and takes the empty update as a no-op. The
 * verify step runs two messages per side, so a provider that carries state from one message into
 * the next fails it.
 * A cipher gets the operations it has: stream ciphers bulk, GCM and GCM-SIV the first four, other
 * AEAD modes seal and open; CTR, GCM and GCM-SIV the set-ups (speed AEAD only). Adding another kind of operation means one more run_* function and a
 * case in side_init().
 *
 * GCM-SIV lines have two more columns: aesfast's own AES-GCM of the same key length, timed in
 * the same rounds (the three sides take turns slice by slice, every order equally often), and
 * the median per-round ratio aesfast GCM-SIV / aesfast GCM for the same operation and size (for
 * bulk, GCM's bulk as above: one growing message). When the reference has no GCM-SIV (OpenSSL
 * 3.0 and 3.1; 3.2+ have it), the reference columns show "-" and that ratio is the only one.
 * --no-gcm drops the extra side.
 *
 * Before timing, each cipher and operation runs 1 MiB through both providers and the outputs
 * (and tags) must be identical, each side must open the other's message and refuse it with one
 * tag bit flipped: a benchmark of wrong output is worthless. Every AEAD side also opens its own
 * bulk or sealed 1 MiB back to the plaintext and refuses it with a bit of the tag flipped, and
 * GCM-SIV is checked against RFC 8452 vectors (128, 256) first, so a GCM-SIV without a
 * reference is still checked; the extra GCM side is checked against the default provider's GCM.
 *
 * Programs find the provider under test through OPENSSL_CONF (a cnf activating it and default)
 * or OPENSSL_MODULES; either way OSSL_PROVIDER_load() below returns the one in use. Only
 * OpenSSL 3.0 APIs are used, so the same binary runs against 3.0 and later libcrypto.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getopt_long, strtok_r */
#endif
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#define VERIFY_LEN (1u << 20)
#define MAX_ROUNDS 1001
#define MAX_SIZES 64
#define MAX_CIPHERS 32
#define BATCH_NS 250000.0 /* read the clock about every 0.25 ms: ~20 ns each, negligible */
#define BULK_MSG_MAX ((uint64_t)1 << 34) /* bulk GCM: bytes in one message before the next IV */
#define TAG_LEN 16
#define MAX_SIDES 3 /* provider under test, reference, aesfast GCM beside a GCM-SIV */

#ifndef EVP_CIPH_GCM_SIV_MODE /* OpenSSL 3.2+ headers have it; 3.0's do not */
#define EVP_CIPH_GCM_SIV_MODE 0x10005
#endif

static const char *const default_ciphers[] = {"AES-128-CTR",     "AES-192-CTR", "AES-256-CTR",
                                              "AES-128-GCM",     "AES-256-GCM", "AES-128-GCM-SIV",
                                              "AES-256-GCM-SIV"};
/* Stream ciphers: powers of two as `openssl speed` (1 KiB where speed has 1 KiB); AEAD: 1420 B,
 * the payload of a full TLS record in a 1500-byte Ethernet frame, instead of 1 KiB. */
static const size_t default_sizes_stream[] = {16, 64, 256, 1024, 8192, 16384, 1u << 20};
static const size_t default_sizes_aead[] = {16, 64, 256, 1420, 8192, 16384, 1u << 20};

enum op { OP_BULK, OP_SEAL, OP_OPEN, OP_OPEN_TAG_FIRST, OP_REKEY, OP_SPEED, OP_NEWCTX, OP_COPY, NOPS };
static const char *const op_names[NOPS] = {"bulk",  "seal",  "open",   "open-tag-first",
                                           "rekey", "speed", "newctx", "copy"};

/* Command-line settings. */
static struct {
    const char *provider, *reference;
    const char *ciphers[MAX_CIPHERS];
    int nciphers;
    size_t sizes[MAX_SIZES];
    int nsizes;   /* 0: the defaults for the cipher's kind */
    int ops[NOPS]; /* operations asked for with --op; none asked for: all a cipher has */
    int nops;
    int rounds;
    double ms;    /* per side, per round */
    double slice; /* length of one slice */
    size_t aad_len;
    size_t offset; /* every buffer starts this many bytes past a 64-byte boundary */
    int csv, verbose, no_gcm;
} opt = {.provider = "aesfast", .reference = "default", .rounds = 11, .ms = 60, .slice = 3, .aad_len = 13};

/* One side of the comparison: a cipher fetched from one provider, and its context. */
struct side {
    const char *prov;
    EVP_CIPHER *cipher;
    EVP_CIPHER_CTX *ctx;
    EVP_CIPHER_CTX *tmpl; /* copy: the context keyed once that each message copies */
    int aead, siv;      /* an AEAD cipher; GCM-SIV */
    uint8_t *out, *ct;  /* its output; the message it opens (--offset bytes into out_raw, ct_raw) */
    uint8_t *out_raw, *ct_raw;
    int (*run)(struct side *s, uint8_t *out, const uint8_t *in, size_t len, uint64_t n);
    uint64_t batch;     /* messages between two clock reads */
    uint64_t msg_bytes; /* bulk AEAD: bytes in the current message */
    uint8_t iv[16];
    uint8_t key[64];      /* rekey, speed, newctx: the key of the last message */
    uint8_t tag[TAG_LEN]; /* seal: tag of the last message; open: the tag to check */
};

static uint8_t key[64], iv0[16], aad[256];
static size_t buflen; /* of every buffer: the largest message, at least VERIFY_LEN */

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fputs("bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    ERR_print_errors_fp(stderr);
    exit(1);
}

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- Operations -------------------------------------------------------------------------- */

/* The AEAD IV's first 4 bytes count messages (from iv0 at each side_init: a fresh start per
 * operation and size), as a record sequence number would. */
static void next_iv(struct side *s)
{
    uint32_t c = (uint32_t)s->iv[0] << 24 | s->iv[1] << 16 | s->iv[2] << 8 | s->iv[3];

    c++;
    s->iv[0] = (uint8_t)(c >> 24), s->iv[1] = (uint8_t)(c >> 16);
    s->iv[2] = (uint8_t)(c >> 8), s->iv[3] = (uint8_t)c;
}

/* The key's first 4 bytes count messages too (from key at each side_init). */
static void next_key(struct side *s)
{
    for (int i = 3; i >= 0 && ++s->key[i] == 0; i--)
        ;
}

/* Bulk: the context keeps its stream (CTR) or its message (GCM) going from update to update. */
static int init_bulk(struct side *s)
{
    s->msg_bytes = 0;
    return EVP_EncryptInit_ex2(s->ctx, s->cipher, key, s->siv ? NULL : s->iv, NULL);
}

static int run_bulk(struct side *s, uint8_t *out, const uint8_t *in, size_t len, uint64_t n)
{
    int outl;

    if (s->siv) { /* a whole message each: the next nonce, one update */
        for (uint64_t i = 0; i < n; i++) {
            next_iv(s);
            if (!EVP_EncryptInit_ex2(s->ctx, NULL, NULL, s->iv, NULL)
                || !EVP_EncryptUpdate(s->ctx, out, &outl, in, (int)len))
                return 0;
        }
        return 1;
    }
    for (uint64_t i = 0; i < n; i++) {
        if (s->aead && s->msg_bytes + len > BULK_MSG_MAX) {
            next_iv(s);
            if (!EVP_EncryptInit_ex2(s->ctx, NULL, NULL, s->iv, NULL))
                return 0;
            s->msg_bytes = 0;
        }
        if (!EVP_EncryptUpdate(s->ctx, out, &outl, in, (int)len))
            return 0;
        s->msg_bytes += len;
    }
    return 1;
}

/* Seal: each message is a complete encryption under its own IV, with opt.aad_len bytes of AAD
 * and a 16-byte tag; the key schedule is set up once. */
static int init_seal(struct side *s)
{
    return EVP_EncryptInit_ex2(s->ctx, s->cipher, key, NULL, NULL);
}

/* The message after the init, for seal and the per-message set-ups (rekey, newctx, copy): AEAD:
 * the AAD (GCM-SIV's empty update first, see the top), one update, final, the tag read; CTR: one
 * update, final. */
static int seal_msg(struct side *s, uint8_t *out, const uint8_t *in, size_t len)
{
    int outl;

    return (!s->siv || EVP_EncryptUpdate(s->ctx, NULL, &outl, aad, 0))
           && (!s->aead || !opt.aad_len
               || EVP_EncryptUpdate(s->ctx, NULL, &outl, aad, (int)opt.aad_len))
           && EVP_EncryptUpdate(s->ctx, out, &outl, in, (int)len)
           && EVP_EncryptFinal_ex(s->ctx, out + outl, &outl)
           && (!s->aead || EVP_CIPHER_CTX_ctrl(s->ctx, EVP_CTRL_AEAD_GET_TAG, TAG_LEN, s->tag) > 0);
}

static int run_seal(struct side *s, uint8_t *out, const uint8_t *in, size_t len, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        next_iv(s);
        if (!EVP_EncryptInit_ex2(s->ctx, NULL, NULL, s->iv, NULL) || !seal_msg(s, out, in, len))
            return 0;
    }
    return 1;
}

/* Rekey: the context has its cipher; every message a new key and IV. */
static int init_rekey(struct side *s)
{
    return EVP_EncryptInit_ex2(s->ctx, s->cipher, NULL, NULL, NULL);
}

static int run_rekey(struct side *s, uint8_t *out, const uint8_t *in, size_t len, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        next_key(s);
        next_iv(s);
        if (!EVP_CipherInit_ex(s->ctx, NULL, NULL, s->key, s->iv, -1) || !seal_msg(s, out, in, len))
            return 0;
    }
    return 1;
}

/* Speed: the context as `openssl speed -evp` sets it up for an AEAD cipher (apps/speed.c): the
 * cipher without key or IV for encryption, padding off, and for GCM-SIV the "speed" parameter
 * (OpenSSL 3.0's EVP does not know that control: its failure is ignored, as speed ignores it). */
#ifndef EVP_CTRL_SET_SPEED
#define EVP_CTRL_SET_SPEED 0x27
#endif
static int init_speed(struct side *s)
{
    if (!EVP_CipherInit_ex(s->ctx, s->cipher, NULL, NULL, NULL, 1))
        return 0;
    EVP_CIPHER_CTX_set_padding(s->ctx, 0);
    if (s->siv)
        EVP_CIPHER_CTX_ctrl(s->ctx, EVP_CTRL_SET_SPEED, 1, NULL);
    ERR_clear_error();
    return 1;
}

/* speed's EVP_Update_loop_aead_enc for GCM and GCM-SIV, in place on out (in is not read): the IV
 * length, key and IV, AAD, the data, final into the buffer's start; no tag read. The IV is the
 * same every message, as speed's; the key is not (see the top). GCM-SIV also gets the empty AAD
 * update (see the top): without it OpenSSL's GCM-SIV would hash every earlier message's AAD. */
static int run_speed(struct side *s, uint8_t *out, const uint8_t *in, size_t len, uint64_t n)
{
    int outl;

    (void)in;
    for (uint64_t i = 0; i < n; i++) {
        next_key(s);
        if (!EVP_CIPHER_CTX_ctrl(s->ctx, EVP_CTRL_AEAD_SET_IVLEN, 12, NULL)
            || !EVP_CipherInit_ex(s->ctx, NULL, NULL, s->key, s->iv, -1)
            || (s->siv && !EVP_EncryptUpdate(s->ctx, NULL, &outl, aad, 0))
            || (opt.aad_len && !EVP_EncryptUpdate(s->ctx, NULL, &outl, aad, (int)opt.aad_len))
            || !EVP_EncryptUpdate(s->ctx, out, &outl, out, (int)len)
            || !EVP_EncryptFinal_ex(s->ctx, out, &outl))
            return 0;
    }
    return 1;
}

/* Newctx: nothing kept; every message starts the context over from the cipher. */
static int init_newctx(struct side *s)
{
    (void)s;
    return 1;
}

static int run_newctx(struct side *s, uint8_t *out, const uint8_t *in, size_t len, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        next_key(s);
        next_iv(s);
        if (!EVP_EncryptInit_ex2(s->ctx, s->cipher, s->key, s->iv, NULL)
            || !seal_msg(s, out, in, len))
            return 0;
    }
    return 1;
}

/* Copy: a context keyed once (s->tmpl), copied into s->ctx for every message. */
static int init_copy(struct side *s)
{
    if (s->tmpl == NULL && (s->tmpl = EVP_CIPHER_CTX_new()) == NULL)
        return 0;
    return EVP_EncryptInit_ex2(s->tmpl, s->cipher, s->key, NULL, NULL);
}

static int run_copy(struct side *s, uint8_t *out, const uint8_t *in, size_t len, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        next_iv(s);
        if (!EVP_CIPHER_CTX_copy(s->ctx, s->tmpl)
            || !EVP_EncryptInit_ex2(s->ctx, NULL, NULL, s->iv, NULL) || !seal_msg(s, out, in, len))
            return 0;
    }
    return 1;
}

/* Open: decrypt and authenticate one message (in, s->tag under s->iv) again and again. The tag
 * goes in after the data for GCM's "open" (the EVP manual's order), before the AAD for
 * "open-tag-first" (libssl's TLS 1.3 and QUIC order) and for GCM-SIV (which needs it). */
static int init_open(struct side *s)
{
    return EVP_DecryptInit_ex2(s->ctx, s->cipher, key, NULL, NULL);
}

static int run_open_(struct side *s, uint8_t *out, const uint8_t *in, size_t len, uint64_t n,
                     int tag_first)
{
    int outl;

    for (uint64_t i = 0; i < n; i++) {
        if (!EVP_DecryptInit_ex2(s->ctx, NULL, NULL, s->iv, NULL)
            || (tag_first && EVP_CIPHER_CTX_ctrl(s->ctx, EVP_CTRL_AEAD_SET_TAG, TAG_LEN, s->tag) <= 0)
            || (s->siv && !EVP_DecryptUpdate(s->ctx, NULL, &outl, aad, 0))
            || (opt.aad_len && !EVP_DecryptUpdate(s->ctx, NULL, &outl, aad, (int)opt.aad_len))
            || !EVP_DecryptUpdate(s->ctx, out, &outl, in, (int)len)
            || (!tag_first && EVP_CIPHER_CTX_ctrl(s->ctx, EVP_CTRL_AEAD_SET_TAG, TAG_LEN, s->tag) <= 0)
            || EVP_DecryptFinal_ex(s->ctx, out + outl, &outl) <= 0)
            return 0;
    }
    return 1;
}

static int run_open(struct side *s, uint8_t *out, const uint8_t *in, size_t len, uint64_t n)
{
    return run_open_(s, out, in, len, n, s->siv);
}

static int run_open_tag_first(struct side *s, uint8_t *out, const uint8_t *in, size_t len,
                              uint64_t n)
{
    return run_open_(s, out, in, len, n, 1);
}

/* Whether cipher c has operation op. */
static int has_op(const EVP_CIPHER *c, enum op op)
{
    int aead = (EVP_CIPHER_get_flags(c) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0;

    switch (op) {
    case OP_BULK:
        switch (EVP_CIPHER_get_mode(c)) {
        case EVP_CIPH_CTR_MODE:
        case EVP_CIPH_OFB_MODE:
        case EVP_CIPH_CFB_MODE:
        case EVP_CIPH_STREAM_CIPHER:
            return !aead;
        case EVP_CIPH_GCM_MODE:
        case EVP_CIPH_GCM_SIV_MODE:
            return aead;
        default:
            return 0;
        }
    case OP_SEAL:
    case OP_OPEN:
        return aead;
    case OP_OPEN_TAG_FIRST: /* GCM-SIV's "open" is in this order already */
        return aead && EVP_CIPHER_get_mode(c) != EVP_CIPH_GCM_SIV_MODE;
    case OP_REKEY: /* the modes whose per-message set-up is measured */
    case OP_NEWCTX:
    case OP_COPY:
    case OP_SPEED: /* AEAD only: CTR's speed loop is bulk */
        switch (EVP_CIPHER_get_mode(c)) {
        case EVP_CIPH_CTR_MODE:
            return !aead && op != OP_SPEED;
        case EVP_CIPH_GCM_MODE:
        case EVP_CIPH_GCM_SIV_MODE:
            return aead;
        default:
            return 0;
        }
    default:
        return 0;
    }
}

/* (Re)start a side for op from the fixed key and IV. */
static void side_init(struct side *s, enum op op)
{
    static int (*const init[NOPS])(struct side *) = {init_bulk,  init_seal,  init_open,
                                                     init_open,  init_rekey, init_speed,
                                                     init_newctx, init_copy};
    static int (*const run[NOPS])(struct side *, uint8_t *, const uint8_t *, size_t, uint64_t) = {
        run_bulk, run_seal, run_open, run_open_tag_first, run_rekey, run_speed, run_newctx,
        run_copy};

    memcpy(s->iv, iv0, sizeof(s->iv));
    memcpy(s->key, key, sizeof(s->key));
    s->run = run[op];
    if (!init[op](s))
        die("%s from %s: %s init failed", EVP_CIPHER_get0_name(s->cipher), s->prov, op_names[op]);
}

/* ---- Setup and checks -------------------------------------------------------------------- */

/* Fetch name from provider prov into s; 0 if prov does not have it (and die_missing is 0). */
static int side_fetch(struct side *s, const char *name, const char *prov, int die_missing)
{
    char propq[128];
    const char *got;

    memset(s, 0, sizeof(*s));
    snprintf(propq, sizeof(propq), "provider=%s", prov);
    s->prov = prov;
    s->cipher = EVP_CIPHER_fetch(NULL, name, propq);
    if (s->cipher == NULL) {
        if (die_missing)
            die("cannot fetch %s with \"%s\"", name, propq);
        ERR_clear_error();
        return 0;
    }
    got = OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(s->cipher));
    if (got == NULL || strcmp(got, prov) != 0)
        die("%s fetched with \"%s\" comes from provider %s", name, propq, got ? got : "(none)");
    s->aead = (EVP_CIPHER_get_flags(s->cipher) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0;
    s->siv = EVP_CIPHER_get_mode(s->cipher) == EVP_CIPH_GCM_SIV_MODE;
    s->out_raw = aligned_alloc(64, buflen + 64);
    s->ct_raw = aligned_alloc(64, buflen + 64);
    s->out = s->out_raw + opt.offset;
    s->ct = s->ct_raw + opt.offset;
    if ((s->ctx = EVP_CIPHER_CTX_new()) == NULL || s->out == NULL || s->ct == NULL)
        die("out of memory");
    return 1;
}

static void side_free(struct side *s)
{
    EVP_CIPHER_CTX_free(s->ctx);
    EVP_CIPHER_CTX_free(s->tmpl);
    EVP_CIPHER_free(s->cipher);
    free(s->out_raw);
    free(s->ct_raw);
}

/* One message of len bytes sealed by side ref's cipher under iv0 (a context of its own): the
 * ciphertext to ct, its tag to tag. */
static void seal_once(struct side *ref, uint8_t *ct, const uint8_t *in, size_t len, uint8_t *tag)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl, outl2;

    if (ctx == NULL || !EVP_EncryptInit_ex2(ctx, ref->cipher, key, iv0, NULL)
        || (opt.aad_len && !EVP_EncryptUpdate(ctx, NULL, &outl, aad, (int)opt.aad_len))
        || !EVP_EncryptUpdate(ctx, ct, &outl, in, (int)len)
        || !EVP_EncryptFinal_ex(ctx, ct + outl, &outl2)
        || (size_t)outl + (size_t)outl2 != len
        || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, TAG_LEN, tag) <= 0)
        die("%s from %s: sealing a message failed", EVP_CIPHER_get0_name(ref->cipher), ref->prov);
    EVP_CIPHER_CTX_free(ctx);
}

/* Open (k, iv, a, ct, tag) with cipher c in a context of its own, the tag set before the data
 * (both GCM and GCM-SIV take that); the plaintext to out. 1 if it authenticates. */
static int open_with(const EVP_CIPHER *c, const uint8_t *k, const uint8_t *iv, const uint8_t *a,
                     size_t alen, const uint8_t *ct, size_t len, const uint8_t *tag, uint8_t *out)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    uint8_t t[TAG_LEN];
    int outl = 0, outl2 = 0, ok;

    memcpy(t, tag, TAG_LEN);
    ok = ctx != NULL && EVP_DecryptInit_ex2(ctx, c, k, iv, NULL)
         && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, TAG_LEN, t) > 0
         && (alen == 0 || EVP_DecryptUpdate(ctx, NULL, &outl, a, (int)alen))
         && EVP_DecryptUpdate(ctx, out, &outl, ct, (int)len)
         && EVP_DecryptFinal_ex(ctx, out + outl, &outl2) > 0 && (size_t)outl + outl2 == len;
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return ok;
}

/* s opens its own message (ct, tag under iv, alen bytes of AAD) back to in, and refuses it with
 * one tag bit flipped. */
static void self_open(struct side *s, const char *what, const uint8_t *k, const uint8_t *iv,
                      size_t alen, const uint8_t *ct, const uint8_t *in, size_t len,
                      const uint8_t *tag)
{
    const char *name = EVP_CIPHER_get0_name(s->cipher);
    uint8_t forged[TAG_LEN];

    memset(s->ct, 0x33, len);
    if (!open_with(s->cipher, k, iv, aad, alen, ct, len, tag, s->ct)
        || memcmp(s->ct, in, len) != 0)
        die("%s from %s: its own %s message does not open to the plaintext", name, s->prov, what);
    memcpy(forged, tag, TAG_LEN);
    forged[TAG_LEN - 1] ^= 0x01;
    if (open_with(s->cipher, k, iv, aad, alen, ct, len, forged, s->ct))
        die("%s from %s: opens its own %s message with a wrong tag", name, s->prov, what);
}

static size_t unhex(uint8_t *out, const char *hex)
{
    size_t n = 0;

    for (; hex[0] && hex[1]; hex += 2) {
        unsigned int v;

        sscanf(hex, "%2x", &v);
        out[n++] = (uint8_t)v;
    }
    return n;
}

/* RFC 8452 vectors with AAD and a partial last block (from the BoringSSL copy in
 * test/vectors: appendix C.1's last AES-128 one, appendix C.2's AES-256 one of 20 bytes). */
static void siv_kat(struct side *s)
{
    static const struct {
        size_t keylen;
        const char *key, *nonce, *aad, *pt, *ct, *tag;
    } kat[] = {
        {16, "f901cfe8a69615a93fdf7a98cad48179", "6245709fb18853f68d833640",
         "7576f7028ec6eb5ea7e298342a94d4b202b370ef9768ec6561c4fe6b7e7296fa859c21",
         "e42a3c02c25b64869e146d7b233987bddfc240871d", "391cc328d484a4f46406181bcd62efd9b3ee197d05",
         "2d15506c84a9edd65e13e9d24a2a6e70"},
        {32, "0100000000000000000000000000000000000000000000000000000000000000",
         "030000000000000000000000", "010000000000000000000000000000000200",
         "0300000000000000000000000000000004000000", "43dd0163cdb48f9fe3212bf61b201976067f342b",
         "b879ad976d8242acc188ab59cabfe307"},
    };
    const char *name = EVP_CIPHER_get0_name(s->cipher);

    for (size_t i = 0; i < sizeof(kat) / sizeof(*kat); i++) {
        uint8_t k[32], n[12], a[64], p[64], c[64], t[TAG_LEN], got[64], gtag[TAG_LEN];
        size_t alen, plen;
        int outl, outl2;
        EVP_CIPHER_CTX *ctx;

        if ((size_t)EVP_CIPHER_get_key_length(s->cipher) != kat[i].keylen)
            continue;
        unhex(k, kat[i].key);
        unhex(n, kat[i].nonce);
        alen = unhex(a, kat[i].aad);
        plen = unhex(p, kat[i].pt);
        unhex(c, kat[i].ct);
        unhex(t, kat[i].tag);
        if ((ctx = EVP_CIPHER_CTX_new()) == NULL || !EVP_EncryptInit_ex2(ctx, s->cipher, k, n, NULL)
            || !EVP_EncryptUpdate(ctx, NULL, &outl, a, (int)alen)
            || !EVP_EncryptUpdate(ctx, got, &outl, p, (int)plen)
            || !EVP_EncryptFinal_ex(ctx, got + outl, &outl2)
            || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, TAG_LEN, gtag) <= 0
            || memcmp(got, c, plen) != 0 || memcmp(gtag, t, TAG_LEN) != 0)
            die("%s from %s: wrong RFC 8452 ciphertext or tag", name, s->prov);
        EVP_CIPHER_CTX_free(ctx);
        if (!open_with(s->cipher, k, n, a, alen, c, plen, t, got) || memcmp(got, p, plen) != 0)
            die("%s from %s: does not open an RFC 8452 message", name, s->prov);
        t[0] ^= 0x80;
        if (open_with(s->cipher, k, n, a, alen, c, plen, t, got))
            die("%s from %s: opens an RFC 8452 message with a wrong tag", name, s->prov);
    }
}

/* The two sides' 1 MiB of output, and their tags, must be the same (b NULL: no reference). */
static void sides_agree(const struct side *a, const struct side *b, const char *name, enum op op)
{
    if (b && memcmp(a->out, b->out, VERIFY_LEN) != 0)
        die("%s: %s and %s disagree on 1 MiB of %s ciphertext", name, a->prov, b->prov,
            op_names[op]);
    if (b && a->aead && memcmp(a->tag, b->tag, TAG_LEN) != 0)
        die("%s: %s and %s disagree on the %s tag", name, a->prov, b->prov, op_names[op]);
}

/* Run op on the same 1 MiB through both sides and insist on identical output and tags. For open:
 * each side opens the message the other sealed, and refuses it with one tag bit flipped. With no
 * b (a reference without the cipher), a is checked alone: the self_open() checks and, for open,
 * its own sealed message. */
static void verify(struct side *a, struct side *b, enum op op, const uint8_t *in)
{
    const char *name = EVP_CIPHER_get0_name(a->cipher);
    uint8_t tag[TAG_LEN], fin[32];
    int outl;
    struct side *sv[2] = {a, b};
    int n = b ? 2 : 1;

    if (b && (EVP_CIPHER_get_key_length(a->cipher) != EVP_CIPHER_get_key_length(b->cipher)
              || EVP_CIPHER_get_iv_length(a->cipher) != EVP_CIPHER_get_iv_length(b->cipher)))
        die("%s: key or IV length differs between %s and %s", name, a->prov, b->prov);
    for (int k = 0; k < n; k++) {
        memset(sv[k]->out, 0x11 * (k + 1), VERIFY_LEN);
        side_init(sv[k], op);
    }
    switch (op) {
    case OP_BULK:
    case OP_SEAL:
        for (int k = 0; k < n; k++) {
            struct side *s = sv[k];

            /* two messages (one growing one for GCM's bulk): the second must not depend on the
             * first; s->out keeps the last */
            if (!s->run(s, s->out, in, VERIFY_LEN, op == OP_BULK && !s->siv ? 1 : 2))
                die("%s from %s: %s failed", name, s->prov, op_names[op]);
            if (op == OP_BULK && s->aead
                && (!EVP_EncryptFinal_ex(s->ctx, fin, &outl)
                    || EVP_CIPHER_CTX_ctrl(s->ctx, EVP_CTRL_AEAD_GET_TAG, TAG_LEN, s->tag) <= 0))
                die("%s from %s: bulk final failed", name, s->prov);
            if (s->aead) /* s->iv: the IV of its (last and only) message */
                self_open(s, op_names[op], key, s->iv, op == OP_SEAL ? opt.aad_len : 0, s->out,
                          in, VERIFY_LEN, s->tag);
        }
        sides_agree(a, b, name, op);
        break;
    case OP_REKEY:
    case OP_NEWCTX:
    case OP_COPY:
        /* as seal: two messages (rekey and newctx under two keys), s->out the second */
        for (int k = 0; k < n; k++) {
            struct side *s = sv[k];

            if (!s->run(s, s->out, in, VERIFY_LEN, 2))
                die("%s from %s: %s failed", name, s->prov, op_names[op]);
            if (s->aead)
                self_open(s, op_names[op], op == OP_COPY ? key : s->key, s->iv, opt.aad_len,
                          s->out, in, VERIFY_LEN, s->tag);
        }
        sides_agree(a, b, name, op);
        break;
    case OP_SPEED:
        /* in place: one message from the plaintext, its tag read after the final (speed reads
         * none), opened back; then a second message over the first's ciphertext under the next
         * key, which must agree as well */
        for (int m = 0; m < 2; m++) {
            for (int k = 0; k < n; k++) {
                struct side *s = sv[k];

                if (m == 0)
                    memcpy(s->out, in, VERIFY_LEN);
                if (!s->run(s, s->out, NULL, VERIFY_LEN, 1)
                    || EVP_CIPHER_CTX_ctrl(s->ctx, EVP_CTRL_AEAD_GET_TAG, TAG_LEN, s->tag) <= 0)
                    die("%s from %s: %s failed", name, s->prov, op_names[op]);
                if (m == 0)
                    self_open(s, op_names[op], s->key, s->iv, opt.aad_len, s->out, in,
                              VERIFY_LEN, s->tag);
            }
            if (b && (memcmp(a->out, b->out, VERIFY_LEN) != 0 || memcmp(a->tag, b->tag, TAG_LEN)))
                die("%s: %s and %s disagree on %s message %d (1 MiB)", name, a->prov, b->prov,
                    op_names[op], m + 1);
        }
        break;
    case OP_OPEN:
    case OP_OPEN_TAG_FIRST:
        for (int k = 0; k < n; k++) {
            struct side *opener = sv[k], *sealer = sv[(k + 1) % n];

            seal_once(sealer, opener->ct, in, VERIFY_LEN, tag);
            memcpy(opener->tag, tag, TAG_LEN);
            if (!opener->run(opener, opener->out, opener->ct, VERIFY_LEN, 2))
                die("%s: %s does not open a message %s sealed", name, opener->prov, sealer->prov);
            if (memcmp(opener->out, in, VERIFY_LEN) != 0)
                die("%s: %s opens a message %s sealed to the wrong plaintext", name, opener->prov,
                    sealer->prov);
            opener->tag[k % TAG_LEN] ^= 0x04;
            if (opener->run(opener, opener->out, opener->ct, VERIFY_LEN, 2))
                die("%s: %s accepts a message with a wrong tag", name, opener->prov);
            ERR_clear_error();
        }
        break;
    default:
        die("unknown operation");
    }
}

/* The provider parameter "aesfast-kernel", whether the provider hands it out as a pointer or
 * copies it into our buffer; "n/a" if it does not know it. */
static const char *kernel_tier(OSSL_PROVIDER *p)
{
    static char buf[64];
    const char *ptr = NULL;
    OSSL_PARAM ps[2] = {OSSL_PARAM_utf8_ptr("aesfast-kernel", (char **)&ptr, 0), OSSL_PARAM_END};

    if (OSSL_PROVIDER_get_params(p, ps) && OSSL_PARAM_modified(ps) && ptr != NULL)
        return ptr;
    ps[0] = OSSL_PARAM_construct_utf8_string("aesfast-kernel", buf, sizeof(buf));
    if (OSSL_PROVIDER_get_params(p, ps) && OSSL_PARAM_modified(ps))
        return buf;
    ERR_clear_error();
    return "n/a";
}

static const char *cpu_model(void)
{
    static char model[256] = "unknown";
    char line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");

    if (f == NULL)
        return model;
    while (fgets(line, sizeof(line), f)) {
        char *colon = strchr(line, ':');

        if (strncmp(line, "model name", 10) == 0 && colon != NULL) {
            colon += 1 + (colon[1] == ' ');
            colon[strcspn(colon, "\n")] = '\0';
            snprintf(model, sizeof(model), "%s", colon);
            break;
        }
    }
    fclose(f);
    return model;
}

/* ---- Measurement ------------------------------------------------------------------------- */

/* Run side s on len-byte messages for about ms milliseconds; return GB/s (10^9 bytes/s). */
static double measure(struct side *s, uint8_t *out, const uint8_t *in, size_t len, double ms)
{
    uint64_t t0 = now_ns(), t, n = 0, budget = (uint64_t)(ms * 1e6);

    do {
        if (!s->run(s, out, in, len, s->batch))
            die("%s from %s: encryption failed", EVP_CIPHER_get0_name(s->cipher), s->prov);
        n += s->batch;
        t = now_ns() - t0;
    } while (t < budget);
    return (double)n * (double)len / (double)t;
}

/* Warm side s up on len-byte messages and size its batch to about BATCH_NS of work. */
static void calibrate(struct side *s, uint8_t *out, const uint8_t *in, size_t len, double ms)
{
    double gbps;

    s->batch = 1;
    gbps = measure(s, out, in, len, ms / 2);  /* rough rate with tiny batches */
    s->batch = (uint64_t)(gbps * BATCH_NS / (double)len) + 1;
    gbps = measure(s, out, in, len, ms / 2);  /* refine with realistic batches */
    s->batch = (uint64_t)(gbps * BATCH_NS / (double)len) + 1;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return (a > b) - (a < b);
}

/* Median of v[0..n-1]; sorts v. */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int slices_per_round(void)
{
    int n = (int)(opt.ms / opt.slice + 0.5);

    return n < 1 ? 1 : n;
}

/* The message sizes for cipher c: --sizes, or the defaults for its kind. */
static const size_t *sizes_for(const EVP_CIPHER *c, int *n)
{
    if (opt.nsizes > 0) {
        *n = opt.nsizes;
        return opt.sizes;
    }
    if (EVP_CIPHER_get_flags(c) & EVP_CIPH_FLAG_AEAD_CIPHER) {
        *n = (int)(sizeof(default_sizes_aead) / sizeof(*default_sizes_aead));
        return default_sizes_aead;
    }
    *n = (int)(sizeof(default_sizes_stream) / sizeof(*default_sizes_stream));
    return default_sizes_stream;
}

/* Whether op is to be run on cipher c: asked for (or nothing asked for) and c has it. */
static int want_op(const EVP_CIPHER *c, enum op op)
{
    int asked = opt.nops == 0;

    for (int i = 0; i < opt.nops; i++)
        asked |= opt.ops[i] == (int)op;
    return asked && has_op(c, op);
}

/* The orders in which the sides take their slices, by number of sides: every order equally often
 * (for two sides: A B, B A, as before), so each pair is first and last equally often. */
static const int order2[2][MAX_SIDES] = {{0, 1}, {1, 0}};
static const int order3[6][MAX_SIDES] = {{0, 1, 2}, {2, 1, 0}, {1, 2, 0},
                                         {0, 2, 1}, {2, 0, 1}, {1, 0, 2}};

static void range(char *buf, size_t n, const double *sorted, int count)
{
    snprintf(buf, n, "%.3f..%.3f", sorted[0], sorted[count - 1]);
}

/* Measure op on every size: a (under test) against b (reference; NULL if it lacks the cipher)
 * and g (aesfast's GCM beside a GCM-SIV; NULL if none); one output line per size. */
static void bench_op(struct side *a, struct side *b, struct side *g, enum op op, const uint8_t *in)
{
    const char *name = EVP_CIPHER_get0_name(a->cipher);
    static double gbps[MAX_SIDES][MAX_ROUNDS];
    double ratio[MAX_ROUNDS], gratio[MAX_ROUNDS], med[MAX_SIDES];
    struct side *sv[MAX_SIDES];
    int n = 0, ib = -1, ig = -1, nslices = slices_per_round(), nsizes;
    double slice_ms = opt.ms / nslices;
    const size_t *sizes = sizes_for(a->cipher, &nsizes);

    sv[n++] = a;
    if (b)
        ib = n, sv[n++] = b;
    if (g)
        ig = n, sv[n++] = g;
    for (int si = 0; si < nsizes; si++) {
        size_t len = sizes[si];
        double warm = opt.ms / 4 < 10 ? 10 : opt.ms / 4;
        const uint8_t *src[MAX_SIDES];
        char ra[32] = "-", rg[32] = "";

        for (int k = 0; k < n; k++) {
            side_init(sv[k], op);
            src[k] = in;
        }
        if (op == OP_OPEN || op == OP_OPEN_TAG_FIRST) {
            /* a and b open the message the reference sealed under iv0 (a its own if there is
             * no reference); g its own GCM message */
            struct side *sealer = b ? b : a;

            seal_once(sealer, sealer->ct, in, len, sealer->tag);
            if (b) {
                memcpy(a->ct, b->ct, len);
                memcpy(a->tag, b->tag, TAG_LEN);
            }
            if (g)
                seal_once(g, g->ct, in, len, g->tag);
            for (int k = 0; k < n; k++)
                src[k] = sv[k]->ct;
        }
        for (int k = 0; k < n; k++)
            calibrate(sv[k], sv[k]->out, src[k], len, warm);
        for (int r = 0; r < opt.rounds; r++) {
            for (int k = 0; k < n; k++)
                gbps[k][r] = 0;
            for (int sl = 0; sl < nslices; sl++) {
                int t = r * nslices + sl;
                const int *ord = n == 3 ? order3[t % 6] : order2[t % 2];

                for (int j = 0; j < n; j++) {
                    int k = n == 1 ? 0 : ord[j];
                    double x = measure(sv[k], sv[k]->out, src[k], len, slice_ms);

                    gbps[k][r] = x > gbps[k][r] ? x : gbps[k][r];
                }
            }
            ratio[r] = ib >= 0 ? gbps[0][r] / gbps[ib][r] : 0;
            gratio[r] = ig >= 0 ? gbps[0][r] / gbps[ig][r] : 0;
            if (opt.verbose) {
                fprintf(stderr, "  %s %s %zu round %d:", name, op_names[op], len, r);
                for (int k = 0; k < n; k++)
                    fprintf(stderr, " %s %.3f", sv[k]->prov, gbps[k][r]);
                if (ib >= 0)
                    fprintf(stderr, " ratio %.3f", ratio[r]);
                if (ig >= 0)
                    fprintf(stderr, " vs gcm %.3f", gratio[r]);
                fputc('\n', stderr);
            }
        }

        for (int k = 0; k < n; k++)
            med[k] = median(gbps[k], opt.rounds);
        double mr = ib >= 0 ? median(ratio, opt.rounds) : 0; /* sorted now: [0] min, last max */
        double mg = ig >= 0 ? median(gratio, opt.rounds) : 0;

        if (ib >= 0)
            range(ra, sizeof(ra), ratio, opt.rounds);
        if (ig >= 0)
            range(rg, sizeof(rg), gratio, opt.rounds);
        if (opt.csv) {
            printf("%s,%s,%zu,%.4f,", name, op_names[op], len, med[0]);
            if (ib >= 0)
                printf("%.4f,%.4f,", med[ib], mr);
            else
                printf(",,");
            if (ig >= 0)
                printf("%.4f,%.4f\n", med[ig], mg);
            else
                printf(",\n");
        } else {
            char cb[16] = "-", cr[16] = "-";

            if (ib >= 0) {
                snprintf(cb, sizeof(cb), "%.3f", med[ib]);
                snprintf(cr, sizeof(cr), "%.3f", mr);
            }
            printf("%-16s %-14s %8zu %12.3f %12s %8s   %-*s", name, op_names[op], len, med[0],
                   cb, cr, ig >= 0 ? 14 : 0, ra);
            if (ig >= 0)
                printf(" %12.3f %8.3f   %s", med[ig], mg, rg);
            printf("\n");
        }
        fflush(stdout);
    }
}

/* The name of aesfast's GCM beside GCM-SIV cipher name ("AES-128-GCM-SIV" -> "AES-128-GCM"). */
static const char *gcm_name(const char *name, char *buf, size_t n)
{
    size_t len = strlen(name);

    if (len < 4 || len - 4 >= n || strcmp(name + len - 4, "-SIV") != 0)
        return NULL;
    memcpy(buf, name, len - 4);
    buf[len - 4] = '\0';
    return buf;
}

static void bench_cipher(const char *name, const uint8_t *in)
{
    struct side a, b, g, gref; /* a: provider under test, b: reference; g beside a GCM-SIV */
    int any = 0, have_b, have_g = 0;
    char gbuf[64];

    side_fetch(&a, name, opt.provider, 1);
    have_b = side_fetch(&b, name, opt.reference, !a.siv);
    if (a.siv) {
        const char *gn = gcm_name(EVP_CIPHER_get0_name(a.cipher), gbuf, sizeof(gbuf));

        siv_kat(&a);
        if (have_b)
            siv_kat(&b);
        else
            fprintf(stderr, "bench: %s: the %s provider of %s has no %s: %s's figures and the "
                    "ratio to its own GCM only\n", name, opt.reference,
                    OpenSSL_version(OPENSSL_VERSION), name, opt.provider);
        if (!opt.no_gcm && gn != NULL) {
            side_fetch(&g, gn, opt.provider, 1);
            side_fetch(&gref, gn, opt.reference, 1);
            have_g = 1;
        }
    }
    for (int op = 0; op < NOPS; op++) {
        if (!want_op(a.cipher, (enum op)op))
            continue;
        verify(&a, have_b ? &b : NULL, (enum op)op, in);
        if (have_g)
            verify(&g, &gref, (enum op)op, in);
        bench_op(&a, have_b ? &b : NULL, have_g ? &g : NULL, (enum op)op, in);
        any = 1;
    }
    if (!any)
        fprintf(stderr, "bench: %s has none of the operations asked for\n", name);
    side_free(&a);
    if (have_b)
        side_free(&b);
    if (have_g) {
        side_free(&g);
        side_free(&gref);
    }
}

/* How many (operation, size, side) measurements cipher name gives, for the time estimate. */
static int lines_for(const char *name)
{
    char propq[128];
    EVP_CIPHER *c, *ref;
    int n = 0, nsizes, nsides = 1;

    snprintf(propq, sizeof(propq), "provider=%s", opt.provider);
    if ((c = EVP_CIPHER_fetch(NULL, name, propq)) == NULL) {
        ERR_clear_error();
        return 0;
    }
    snprintf(propq, sizeof(propq), "provider=%s", opt.reference);
    if ((ref = EVP_CIPHER_fetch(NULL, name, propq)) != NULL)
        nsides++;
    ERR_clear_error();
    EVP_CIPHER_free(ref);
    if (EVP_CIPHER_get_mode(c) == EVP_CIPH_GCM_SIV_MODE && !opt.no_gcm)
        nsides++;
    sizes_for(c, &nsizes);
    for (int op = 0; op < NOPS; op++)
        n += want_op(c, (enum op)op) ? nsizes * nsides : 0;
    EVP_CIPHER_free(c);
    return n;
}

/* ---- Command line ------------------------------------------------------------------------ */

static size_t parse_size(const char *s)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(s, &end, 10);
    if (*end == 'k' || *end == 'K')
        v <<= 10, end++;
    else if (*end == 'm' || *end == 'M')
        v <<= 20, end++;
    if (errno || end == s || *end != '\0' || v == 0 || v > (1u << 30))
        die("bad size \"%s\" (1 .. 1G, suffix k or m allowed)", s);
    return (size_t)v;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bench [options]\n"
            "  --cipher NAME         cipher to measure, repeatable (default: AES-128/192/256-CTR,\n"
            "                        AES-128-GCM, AES-256-GCM, AES-128-GCM-SIV, AES-256-GCM-SIV)\n"
            "  --op OP[,OP...]       operations: bulk (one init, one update per message, as\n"
            "                        `openssl speed -evp`; GCM-SIV: an IV-only init and one\n"
            "                        update per message), seal, open (AEAD: IV-only re-init,\n"
            "                        AAD, one update, final, tag; open sets the tag after the\n"
            "                        data), open-tag-first (GCM: the tag before the AAD, as\n"
            "                        libssl's TLS 1.3 and QUIC); per-message set-ups (CTR, GCM,\n"
            "                        GCM-SIV), then the message as seal: rekey (a new key and IV\n"
            "                        on the same context), speed (AEAD: `openssl speed -evp\n"
            "                        -aead`'s loop, a new key each time), newctx (a new provider\n"
            "                        context, key and IV: EVP_EncryptInit_ex2 with the cipher),\n"
            "                        copy (EVP_CIPHER_CTX_copy of a keyed context, IV-only\n"
            "                        init); default: all a cipher has\n"
            "  --no-gcm              GCM-SIV without aesfast's AES-GCM beside it\n"
            "  --provider NAME       provider under test (default aesfast)\n"
            "  --reference NAME      the provider it is measured against (default: default;\n"
            "                        another build of aesfast under its own cnf section name,\n"
            "                        for a before/after comparison in one process)\n"
            "  --rounds N            alternating rounds per size (default 11)\n"
            "  --time-per-round MS   milliseconds per side per round (default 60)\n"
            "  --slice MS            a round alternates the sides in slices of about MS ms and\n"
            "                        keeps each side's best slice (default 3)\n"
            "  --sizes a,b,c         message sizes in bytes, k/m suffixes allowed (default\n"
            "                        16,64,256,1024,8192,16384,1m; AEAD 1420 instead of 1024)\n"
            "  --aad N               AAD bytes per sealed/opened message (default 13)\n"
            "  --offset N            buffers start N bytes past a 64-byte boundary (default 0;\n"
            "                        malloc's blocks are 16-byte aligned: try 16)\n"
            "  --csv                 CSV on stdout (cipher,op,size,aesfast_gbps,default_gbps,\n"
            "                        ratio,gcm_gbps,gcm_ratio; empty where there is none);\n"
            "                        the header goes to stderr\n"
            "  --verbose             print every round to stderr\n");
}

static void parse_args(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"cipher", required_argument, NULL, 'c'},
        {"provider", required_argument, NULL, 'p'},
        {"reference", required_argument, NULL, 'R'},
        {"rounds", required_argument, NULL, 'r'},
        {"time-per-round", required_argument, NULL, 't'},
        {"slice", required_argument, NULL, 'S'},
        {"sizes", required_argument, NULL, 's'},
        {"op", required_argument, NULL, 'o'},
        {"aad", required_argument, NULL, 'a'},
        {"offset", required_argument, NULL, 'O'},
        {"csv", no_argument, NULL, 'C'},
        {"verbose", no_argument, NULL, 'v'},
        {"no-gcm", no_argument, NULL, 'G'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    char *end, *list, *tok, *save;

    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'c':
            if (opt.nciphers == MAX_CIPHERS)
                die("too many --cipher");
            opt.ciphers[opt.nciphers++] = optarg;
            break;
        case 'p':
            opt.provider = optarg;
            break;
        case 'R':
            opt.reference = optarg;
            break;
        case 'r':
            opt.rounds = (int)strtol(optarg, &end, 10);
            if (*end || opt.rounds < 1 || opt.rounds > MAX_ROUNDS)
                die("--rounds must be 1 .. %d", MAX_ROUNDS);
            break;
        case 't':
            opt.ms = strtod(optarg, &end);
            if (*end || !(opt.ms >= 1 && opt.ms <= 60000))
                die("--time-per-round must be 1 .. 60000 ms");
            break;
        case 'S':
            opt.slice = strtod(optarg, &end);
            if (*end || !(opt.slice >= 0.1 && opt.slice <= 60000))
                die("--slice must be 0.1 .. 60000 ms");
            break;
        case 's':
            opt.nsizes = 0;
            list = strdup(optarg);
            for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                if (opt.nsizes == MAX_SIZES)
                    die("too many sizes");
                opt.sizes[opt.nsizes++] = parse_size(tok);
            }
            free(list);
            if (opt.nsizes == 0)
                die("--sizes is empty");
            break;
        case 'o':
            opt.nops = 0;
            list = strdup(optarg);
            for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                int k = 0;

                while (k < NOPS && strcmp(tok, op_names[k]) != 0)
                    k++;
                if (k == NOPS)
                    die("unknown operation \"%s\" (bulk, seal, open, open-tag-first, rekey, speed, "
                        "newctx, copy)", tok);
                if (opt.nops < NOPS)
                    opt.ops[opt.nops++] = k;
            }
            free(list);
            if (opt.nops == 0)
                die("--op is empty");
            break;
        case 'a':
            opt.aad_len = strtoul(optarg, &end, 10);
            if (*end || *optarg == '\0' || *optarg == '-' || opt.aad_len > sizeof(aad))
                die("--aad must be 0 .. %zu", sizeof(aad));
            break;
        case 'O':
            opt.offset = strtoul(optarg, &end, 10);
            if (*end || *optarg == '\0' || *optarg == '-' || opt.offset > 63)
                die("--offset must be 0 .. 63");
            break;
        case 'C':
            opt.csv = 1;
            break;
        case 'v':
            opt.verbose = 1;
            break;
        case 'G':
            opt.no_gcm = 1;
            break;
        case 'h':
            usage(stdout);
            exit(0);
        default:
            usage(stderr);
            exit(2);
        }
    }
    if (optind != argc) {
        usage(stderr);
        exit(2);
    }
    if (opt.nciphers == 0)
        for (size_t i = 0; i < sizeof(default_ciphers) / sizeof(*default_ciphers); i++)
            opt.ciphers[opt.nciphers++] = default_ciphers[i];
}

int main(int argc, char **argv)
{
    OSSL_PROVIDER *ptest, *pref;
    uint8_t *in, *in_raw;
    int nlines = 0, any_siv = 0;
    FILE *hdr;
    double est;

    parse_args(argc, argv);

    /* With OPENSSL_CONF and config_diagnostics = 1, a provider that refuses to load (say, a
     * forced AESFAST_KERNEL the CPU lacks) fails here, with its own reason on the error stack. */
    if (!OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL))
        die("loading the OpenSSL configuration (%s) failed",
            getenv("OPENSSL_CONF") ? getenv("OPENSSL_CONF") : "default");
    /* Returns the provider a cnf already activated, or loads it (OPENSSL_MODULES). Loading one
     * by hand switches off the implicit default, so load the reference explicitly too. */
    if ((ptest = OSSL_PROVIDER_load(NULL, opt.provider)) == NULL)
        die("provider %s is neither active from OPENSSL_CONF (%s) nor loadable from the module "
            "path; OpenSSL 3.0 drops a provider that fails to load from a cnf silently (a forced "
            "AESFAST_KERNEL this CPU lacks, for one)",
            opt.provider, getenv("OPENSSL_CONF") ? getenv("OPENSSL_CONF") : "unset");
    if ((pref = OSSL_PROVIDER_load(NULL, opt.reference)) == NULL)
        die("cannot load provider %s", opt.reference);

    buflen = VERIFY_LEN;
    for (int i = 0; i < opt.nsizes; i++)
        if (opt.sizes[i] > buflen)
            buflen = opt.sizes[i];
    buflen = (buflen + 63) & ~(size_t)63; /* aligned_alloc wants a multiple of the alignment */
    in_raw = aligned_alloc(64, buflen + 64);
    in = in_raw + opt.offset;
    if (in_raw == NULL)
        die("out of memory");
    for (size_t i = 0; i < buflen; i++)
        in[i] = (uint8_t)(i * 131 + (i >> 8));
    for (size_t i = 0; i < sizeof(key); i++)
        key[i] = (uint8_t)(0xa5 ^ i * 7);
    for (size_t i = 0; i < sizeof(aad); i++)
        aad[i] = (uint8_t)(i * 3);
    /* The last 32 bits start near a wrap, so the 1 MiB check crosses a 2^32-block boundary of
     * the 128-bit CTR counter (a 12-byte GCM IV ignores bytes 12..15). */
    for (size_t i = 0; i < 12; i++)
        iv0[i] = (uint8_t)(0x3c + i);
    memset(iv0 + 12, 0xff, 4);
    iv0[15] = 0xf0;

    for (int i = 0; i < opt.nciphers; i++) {
        EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, opt.ciphers[i], NULL);

        nlines += lines_for(opt.ciphers[i]);
        any_siv |= c != NULL && EVP_CIPHER_get_mode(c) == EVP_CIPH_GCM_SIV_MODE && !opt.no_gcm;
        EVP_CIPHER_free(c);
        ERR_clear_error();
    }
    est = nlines * (opt.rounds * opt.ms + (opt.ms / 4 < 10 ? 10 : opt.ms / 4)) / 1000;
    hdr = opt.csv ? stderr : stdout;
    fprintf(hdr, "libcrypto:  %s\n", OpenSSL_version(OPENSSL_VERSION));
    fprintf(hdr, "cpu:        %s\n", cpu_model());
    fprintf(hdr, "provider:   %s (aesfast-kernel: %s) vs %s\n", opt.provider, kernel_tier(ptest),
            opt.reference);
    fprintf(hdr,
            "method:     %d rounds x %.0f ms per side, alternating in %.1f ms slices; "
            "best slice per round, median over rounds; ~%.0f s\n",
            opt.rounds, opt.ms, opt.ms / slices_per_round(), est);
    if (opt.offset)
        fprintf(hdr, "buffers:    %zu bytes past a 64-byte boundary\n", opt.offset);
    if (any_siv)
        fprintf(hdr, "gcm:        GCM-SIV lines: %s's own AES-GCM beside it, and GCM-SIV / GCM\n",
                opt.provider);
    if (opt.csv)
        printf("cipher,op,size,aesfast_gbps,default_gbps,ratio,gcm_gbps,gcm_ratio\n");
    else {
        char ca[64], cb[64];

        snprintf(ca, sizeof(ca), "%s GB/s", opt.provider);
        snprintf(cb, sizeof(cb), "%s GB/s", opt.reference);
        printf("%-16s %-14s %8s %12s %12s %8s   %-*s", "cipher", "op", "bytes", ca, cb, "ratio",
               any_siv ? 14 : 0, "ratio min..max");
        if (any_siv)
            printf(" %12s %8s   %s", "gcm GB/s", "siv/gcm", "min..max");
        printf("\n");
    }
    fflush(stdout);

    for (int i = 0; i < opt.nciphers; i++)
        bench_cipher(opt.ciphers[i], in);

    free(in_raw);
    OSSL_PROVIDER_unload(ptest);
    OSSL_PROVIDER_unload(pref);
    return 0;
}
