/*
 * Differential fuzzing driver: the input is a program of EVP calls, run on aesfast and on
 * OpenSSL's default provider side by side (two contexts, one per provider, in one process), and
 * every outcome is compared: return codes, output lengths and bytes, tags, context parameters,
 * and that aesfast leaves an error on the queue whenever it refuses something the default
 * provider refused with one. Where provider-aesfast(7) lists a deliberate difference (DIFFERENCES
 * FROM THE DEFAULT PROVIDER), the driver models it (each place quotes the difference it
 * models); any other disagreement is a finding: abort().
 *
 * The tier is chosen by the runner (AESFAST_KERNEL, fuzz/run.sh); the providers come from
 * OPENSSL_CONF (build-fuzz/aesfast.cnf), fetched with "provider=aesfast" and "provider=default".
 *
 * ENCODING. Byte 0: the key size (value % 3: AES-128, -192, -256).
 * Then operations until the input ends (at most MAX_OPS), each an opcode byte (value % NOPS)
 * followed by its argument bytes; a missing argument byte reads as 0. LEN is one byte v < 128,
 * or two bytes ((v & 0x7f) << 8 | next) % (MAX_DATA + 1). Keys come from a pool of 4 and IVs
 * are expanded from a seed byte, so equal bytes give equal keys and IVs.
 *   0 INIT f k s      f: bit0 encrypt, bit1 pass key k & 3, bit2 pass IV from seed s,
 *                     bit3 name the cipher (a new provider context), bit4 EVP_CipherInit_ex
 *                     (else _ex2), bit5 enc = -1 (keep the direction)
 *   1 IVLEN n f       set the IV length n (0..255); f bit0: as a parameter, else by ctrl
 *   2 AAD LEN f       AAD (out == NULL) of LEN bytes (its bytes depend on the position in the
 *                     message only; f bit0 flips one bit, at position f>>1); f bit7: EVP_Cipher
 *   3 DATA LEN f o    data: f bit0: input = the previous message's output (a replay, for
 *                     opening), bit1 flip one bit of it, bit2 in place, bit3 EVP_Cipher, bit4
 *                     NULL input (rare: also needs o == 0xff), bit5 output one byte past the
 *                     input (a partial overlap; also needs o == 0xfe); o & 15: input and output
 *                     offsets
 *   4 FINAL f         f bit0: EVP_Cipher(ctx, out, NULL, 0) instead of EVP_CipherFinal_ex
 *   5 SET_TAG n f     tag of n % 18 bytes: f bit0 a zero tag (else the last one read), bit1
 *                     flip a bit, bit2 NULL (a tag length only), bit3 as a parameter
 *   6 GET_TAG n f     read n % 18 bytes of tag; f bit0 as a parameter
 *   7 COPY f          EVP_CIPHER_CTX_copy of the current pair into the other slot; f bit0:
 *                     then continue on the copy
 *   8 SWAP            continue on the other slot's pair
 *   9 PARAMS          compare keylen, ivlen, taglen, iv, updated-iv, num (each alone)
 *  10 TLS_AAD l0 l1 f 13 bytes of TLS 1.2 AAD (seeded by f >> 1) whose length field is
 *                     l0 << 8 | l1 (f bit0: 12
 *                     bytes, invalid); returns the tag padding
 *  11 IV_FIXED n s    EVP_CTRL_GCM_SET_IV_FIXED: n % 16 == 0: the whole IV (-1) from seed s,
 *                     else n % 16 fixed bytes
 *  12 IV_GEN n        EVP_CTRL_GCM_IV_GEN, n % 18 bytes (0 and 17 = -1: the whole IV)
 *  13 IV_INV n        EVP_CTRL_GCM_SET_IV_INV, n % 17 bytes
 *  14 TLS_RECORD LEN f  EVP_Cipher in place over a record of 24 + LEN bytes (f bit0: the last
 *                     sealed record, for opening; bit1 flip a bit in it; bit2: shorter than 24)
 *  15 SPEED v         the "speed" parameter = v & 1
 *  16 RESET           EVP_CIPHER_CTX_reset on both
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include "driver.h"

#ifndef OSSL_CIPHER_PARAM_SPEED
#define OSSL_CIPHER_PARAM_SPEED "speed"
#endif

#define MAX_OPS 96
#define MAX_DATA 8192
#define STREAM (4 * MAX_DATA)
#define PAD 64

enum {
    OP_INIT, OP_IVLEN, OP_AAD, OP_DATA, OP_FINAL, OP_SET_TAG, OP_GET_TAG, OP_COPY, OP_SWAP,
    OP_PARAMS, OP_TLS_AAD, OP_IV_FIXED, OP_IV_GEN, OP_IV_INV, OP_TLS_RECORD, OP_SPEED, OP_RESET,
    NOPS
};

static EVP_CIPHER *ciph_t[3], *ciph_d[3]; /* aesfast, default */
static unsigned char keys[4][32];
static enum fuzz_kind kind;

/* The default provider's IV state (GCM), as far as the driver tracks it. */
enum { IV_UNINIT, IV_SET, IV_USED, IV_DONE };

struct pair {
    EVP_CIPHER_CTX *t, *d;
    int enc;          /* direction of the last init (-1 keeps it) */
    int desync;       /* a difference was met: the two states differ until a re-init (1) or a
                       * new provider context (2) */
    int random_iv;    /* GCM: each side drew its own random IV: only lengths and results compare */
    int random_tag;   /* GCM: the last tag made was under such an IV (a later read gives it) */
    int iv_state;     /* GCM: the default provider's IV state */
    int ended;        /* GCM: an init (a new key, or none) while the IV was in use: aesfast
                       * ended that message, the default provider goes on with it */
    int failed_final; /* GCM: a decrypt final failed */
    int has_cipher;   /* an init named the cipher (since the last reset) */
    int tls_aad;      /* GCM: TLS AAD set: the next EVP_Cipher is a TLS record */
    int managed;      /* GCM: aesfast's IV is under "tlsivfixed" (an explicit IV ends that) */
    int d_managed;    /* GCM: the default provider's is (nothing but a new context ends it) */
    int iv_ahead;     /* GCM: a plain message started on a managed IV, encrypting: aesfast's
                       * invocation field went on by one, the default provider's did not */
    int d_has_tag;    /* GCM: the default provider holds a tag length (set, made, or a TLS
                       * record's): its decrypt final compares whatever its tag buffer holds */
    int have_key;     /* GCM-SIV: a key was given since the cipher was named */
    int have_nonce;   /* GCM-SIV: a nonce too */
    int data_tried;   /* GCM-SIV: a data update or final was called in this message */
    int data_done;    /* GCM-SIV: this message's data update (or final) succeeded */
    int siv_tag;      /* GCM-SIV: a tag for opening was taken in this message */
    int siv_checked;  /* GCM-SIV: aesfast checked this message's tag (passed or failed) */
    int siv_late_tag; /* GCM-SIV: a tag for opening was taken after that check */
    size_t aad_pos;
    size_t replay_len, replay_pos, out_len;
    unsigned char replay[STREAM], out[STREAM];
};

static struct pair slots[2];
static unsigned char last_tag[16];
static unsigned char last_record[24 + MAX_DATA];
static size_t last_record_len;

struct prog {
    const uint8_t *p;
    size_t n, i, op;
};

static unsigned u8(struct prog *g)
{
    return g->i < g->n ? g->p[g->i++] : 0;
}

static size_t len16(struct prog *g)
{
    unsigned v = u8(g);

    if (v < 128)
        return v;
    return (((size_t)(v & 0x7f) << 8) | u8(g)) % (MAX_DATA + 1);
}

static void fill(unsigned char *p, size_t n, uint32_t seed)
{
    uint32_t x = seed * 0x9e3779b1u + 0x7f4a7c15u;

    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        p[i] = (unsigned char)(x >> 24);
    }
}

static struct prog *cur_prog;
static char last_why[2][512]; /* the errors of the last two calls, for the report */

static void finding(const char *fmt, const char *what, int a, int b)
    __attribute__((noreturn));

static void finding(const char *fmt, const char *what, int a, int b)
{
    fprintf(stderr, "fuzz: FINDING at op %zu (%s): ", cur_prog ? cur_prog->op : 0, what);
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\nfuzz: errors of the last two calls: [%s] [%s]\n", last_why[0], last_why[1]);
    ERR_print_errors_fp(stderr);
    abort();
}

/* One call's outcome: its return value, whether it left an error, and (for aesfast) the
 * reasons and data of those errors. */
struct res {
    int rc, n, err; /* rc > 0: success; n: the value returned */
    char why[512];
};

static void take_errors(struct res *r)
{
    const char *data;
    int flags;
    unsigned long e;
    size_t used = 0;

    r->err = ERR_peek_error() != 0;
    r->why[0] = '\0';
    while ((e = ERR_get_error_all(NULL, NULL, NULL, &data, &flags)) != 0) {
        const char *rs = ERR_reason_error_string(e);

        if (used < sizeof(r->why))
            used += (size_t)snprintf(r->why + used, sizeof(r->why) - used, "%s: %s; ",
                                     rs ? rs : "?", (flags & ERR_TXT_STRING) && data ? data : "");
    }
    memcpy(last_why[0], last_why[1], sizeof(last_why[0]));
    memcpy(last_why[1], r->why, sizeof(last_why[1]));
}

#define RUN(r, e)                                                                              \
    do {                                                                                       \
        ERR_clear_error();                                                                     \
        (r).rc = (r).n = (e);                                                                  \
        take_errors(&(r));                                                                     \
    } while (0)
/* EVP_Cipher: a byte count (0 included) on success, -1 on failure. */
#define RUNC(r, e)                                                                             \
    do {                                                                                       \
        RUN(r, e);                                                                             \
        (r).rc = (r).n >= 0;                                                                   \
    } while (0)

static int says(const struct res *r, const char *want)
{
    return strstr(r->why, want) != NULL;
}

/*
 * Both outcomes of one step on a synchronised pair: they must both succeed or both fail, and a
 * refusal by aesfast must leave an error where the default provider's did. Returns 1 when both
 * succeeded (then the caller compares what they gave).
 */
static int trace; /* FUZZ_TRACE=1: each compared step on stderr */

static int agree(struct pair *pr, const char *what, const struct res *t, const struct res *d)
{
    if (trace)
        fprintf(stderr, "fuzz: op %zu %s: aesfast %d, default %d%s%s%s iv_state %d [%s]\n",
                cur_prog->op, what, t->rc, d->rc, pr->desync ? " (desync)" : "",
                pr->random_iv ? " (random iv)" : "", pr->random_tag ? " (random tag)" : "",
                pr->iv_state, t->why);
    if (pr->desync)
        return 0;
    if ((t->rc > 0) != (d->rc > 0))
        finding("aesfast returned %d, default %d", what, t->rc, d->rc);
    if (t->rc <= 0 && !t->err && d->err)
        finding("aesfast refused without an error (rc %d; default %d)", what, t->rc, d->rc);
    return t->rc > 0;
}

static void same_bytes(const char *what, const unsigned char *a, const unsigned char *b, size_t n)
{
    if (memcmp(a, b, n) != 0) {
        size_t i = 0;

        while (a[i] == b[i])
            i++;
        fprintf(stderr, "fuzz: aesfast  ");
        for (size_t j = 0; j < n && j < 32; j++)
            fprintf(stderr, "%02x", a[j]);
        fprintf(stderr, "\nfuzz: default  ");
        for (size_t j = 0; j < n && j < 32; j++)
            fprintf(stderr, "%02x", b[j]);
        fprintf(stderr, "\n");
        finding("outputs differ at byte %d of %d", what, (int)i, (int)n);
    }
}

/* The output of a synchronised message, kept so that a later decrypt can replay it. */
static void record_output(struct pair *pr, const unsigned char *p, size_t n)
{
    if (n > STREAM - pr->out_len)
        n = STREAM - pr->out_len;
    memcpy(pr->out + pr->out_len, p, n);
    pr->out_len += n;
}

/* A new message: what the last one output becomes the replay source. */
static void new_message(struct pair *pr)
{
    memcpy(pr->replay, pr->out, pr->out_len);
    pr->replay_len = pr->out_len;
    pr->replay_pos = 0;
    pr->out_len = 0;
    pr->aad_pos = 0;
    pr->data_done = pr->data_tried = pr->siv_tag = pr->siv_checked = pr->siv_late_tag = 0;
}

static void pair_new(struct pair *pr)
{
    memset(pr, 0, offsetof(struct pair, replay));
    pr->t = EVP_CIPHER_CTX_new();
    pr->d = EVP_CIPHER_CTX_new();
    if (pr->t == NULL || pr->d == NULL)
        abort();
    pr->enc = 1;
}

static void pair_free(struct pair *pr)
{
    EVP_CIPHER_CTX_free(pr->t);
    EVP_CIPHER_CTX_free(pr->d);
    pr->t = pr->d = NULL;
}

/* GCM-SIV, difference "Every init starts a new message": OpenSSL 3.5's default provider keeps the
 * AAD of earlier messages across inits; an empty AAD update resets it there. Sent to the
 * default side only, after each of its inits, so both sides start the message afresh. */
static void siv_reset_default(struct pair *pr)
{
    unsigned char none[1] = {0};
    int outl;

    EVP_CipherUpdate(pr->d, NULL, &outl, none, 0);
    ERR_clear_error();
}

/* EVP_Cipher does not check that the context has a cipher (it dereferences NULL): such calls
 * are made only on contexts that have one. */
static int has_cipher(const struct pair *pr)
{
    return EVP_CIPHER_CTX_get0_cipher(pr->t) != NULL && EVP_CIPHER_CTX_get0_cipher(pr->d) != NULL;
}

/* GCM-SIV opening: notes that aesfast's data update or final checked the tag (it passed, or
 * it failed verification), so that a tag given after it is known to be late. */
static void siv_note_check(struct pair *pr, const struct res *t)
{
    if (kind == FUZZ_GCMSIV && !pr->desync && !pr->enc
        && (t->rc > 0 || says(t, "tag verification failed")))
        pr->siv_checked = 1;
}

/* ---- operations ------------------------------------------------------------------------ */

static void op_init(struct prog *g, struct pair *pr, int ks)
{
    unsigned f = u8(g), k = u8(g) & 3, s = u8(g);
    unsigned char iv[256];
    int enc = (f & 32) ? -1 : (int)(f & 1);
    const unsigned char *key = (f & 2) ? keys[k] : NULL, *ivp = (f & 4) ? iv : NULL;
    int named = (f & 8) != 0;
    struct res t, d;

    fill(iv, sizeof(iv), 1000 + s);
    if (f & 16) {
        RUN(t, EVP_CipherInit_ex(pr->t, named ? ciph_t[ks] : NULL, NULL, key, ivp, enc));
        RUN(d, EVP_CipherInit_ex(pr->d, named ? ciph_d[ks] : NULL, NULL, key, ivp, enc));
    } else {
        RUN(t, EVP_CipherInit_ex2(pr->t, named ? ciph_t[ks] : NULL, key, ivp, enc, NULL));
        RUN(d, EVP_CipherInit_ex2(pr->d, named ? ciph_d[ks] : NULL, key, ivp, enc, NULL));
    }
    if (named) { /* new provider contexts on both sides: in step again */
        pr->desync = pr->random_iv = pr->random_tag = pr->ended = pr->failed_final = 0;
        pr->tls_aad = pr->managed = pr->d_managed = pr->iv_ahead = pr->d_has_tag = 0;
        pr->have_key = pr->have_nonce = 0;
        pr->iv_state = IV_UNINIT;
        pr->has_cipher = t.rc > 0 && d.rc > 0;
    }
    if (kind == FUZZ_GCMSIV && d.rc > 0)
        siv_reset_default(pr);
    if (!agree(pr, "init", &t, &d)) {
        /* A desynchronised pair is in step again after an init that both take and that gives
         * the key or the IV: a new message on the same key on both sides. GCM needs the IV. */
        if (pr->desync == 1 && t.rc > 0 && d.rc > 0 && (kind == FUZZ_GCM ? ivp && !pr->tls_aad
                                                   : (key != NULL || ivp != NULL))) {
            pr->desync = 0;
            pr->random_tag = 1; /* an init keeps the tag state, which differed */
        } else {
            if (t.rc > 0 || d.rc > 0)
                new_message(pr);
            return;
        }
    }
    /* GCM, difference "An init ends the message under way": aesfast drops a pending TLS record,
     * which the default provider keeps for its next update or EVP_Cipher call. */
    if (kind == FUZZ_GCM && pr->tls_aad) {
        pr->desync = 2; /* until a new provider context: nothing else ends TLS mode there */
        new_message(pr);
        return;
    }
    pr->enc = EVP_CIPHER_CTX_is_encrypting(pr->d); /* enc == -1 keeps it, or takes EVP's */
    if (key != NULL)
        pr->have_key = 1;
    /* GCM, difference "An init ends the message under way": with no new IV, the default provider
     * goes on with it (see gcm_message_over). */
    if (kind == FUZZ_GCM && ivp == NULL && pr->iv_state == IV_USED)
        pr->ended = 1;
    if (ivp != NULL) {
        pr->have_nonce = 1;
        pr->iv_state = IV_SET;
        pr->ended = pr->failed_final = pr->random_iv = 0;
        pr->managed = pr->iv_ahead = 0; /* difference "An explicit IV ends tlsivfixed management" */
    }
    new_message(pr);
}

static void op_ivlen(struct prog *g, struct pair *pr)
{
    unsigned n = u8(g), f = u8(g);
    size_t sz = n;
    struct res t, d;
    size_t before = (size_t)EVP_CIPHER_CTX_get_iv_length(pr->d);
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &sz),
                       OSSL_PARAM_construct_end()};

    if (f & 1)
        RUN(t, EVP_CIPHER_CTX_set_params(pr->t, p));
    else
        RUN(t, EVP_CIPHER_CTX_ctrl(pr->t, EVP_CTRL_AEAD_SET_IVLEN, (int)n, NULL));
    /* Refused by aesfast alone; the default provider, which accepts and ignores these, is not
     * called (libcrypto 3.5 would then cache the length it was given, and pass it with the next
     * IV). GCM-SIV, difference "A nonce length other than 12 set through ivlen is an error". CTR,
     * test/ctr_api.c's allow-list (D_WRONG_IVLEN): an IV length other than 16 is refused. */
    if ((kind == FUZZ_GCMSIV && n != 12) || (kind == FUZZ_CTR && n != 16)) {
        if (!pr->desync && (t.rc > 0 || !t.err))
            finding("an ivlen of %d was not refused (rc %d)", "ivlen", (int)n, t.rc);
        return;
    }
    if (f & 1)
        RUN(d, EVP_CIPHER_CTX_set_params(pr->d, p));
    else
        RUN(d, EVP_CIPHER_CTX_ctrl(pr->d, EVP_CTRL_AEAD_SET_IVLEN, (int)n, NULL));
    if (agree(pr, "ivlen", &t, &d) && kind == FUZZ_GCM && sz != before
        && pr->iv_state != IV_UNINIT)
        pr->iv_state = IV_DONE, pr->random_iv = 1; /* an IV set for another length is void */
}

static void gcm_random_check(struct pair *pr)
{
    /* Encrypting with no IV set: each provider draws its own random IV. */
    if (kind == FUZZ_GCM && pr->enc && pr->iv_state == IV_UNINIT)
        pr->random_iv = 1;
}

/* GCM, difference "An init ends the message under way" and "After a decrypt final that failed, the
 * message is over": aesfast refuses ("iv already used") what the default provider takes. From
 * there on the two states differ until an IV is set. */
static int gcm_message_over(struct pair *pr, const struct res *t, const struct res *d)
{
    if (kind != FUZZ_GCM || pr->desync || !(pr->ended || pr->failed_final))
        return 0;
    if (t->rc <= 0 && d->rc > 0 && says(t, "iv already used")) {
        pr->desync = 1;
        return 1;
    }
    return 0;
}

/* GCM: a plain message starts (AAD, data or a final on an IV set and not yet used). difference "An
 * IV under tlsivfixed serves one message": encrypting, aesfast's managed IV then advances its
 * invocation field, the default provider's stays; the IVs differ from the next message on. */
static void gcm_plain_start(struct pair *pr)
{
    if (kind != FUZZ_GCM || pr->desync || pr->iv_state != IV_SET)
        return;
    if (pr->iv_ahead) /* an earlier message advanced aesfast's IV: this one's differ */
        pr->random_iv = 1;
    if (pr->enc && pr->managed && EVP_CIPHER_CTX_get_iv_length(pr->t) >= 8)
        pr->iv_ahead = 1;
}

/* GCM: a message starts on a managed IV ("tlsivgen", a sealed TLS record): after
 * gcm_plain_start, each side's IV is its own from here. */
static void gcm_managed_start(struct pair *pr)
{
    if (pr->iv_ahead)
        pr->random_iv = 1;
}

/* GCM, difference "An explicit IV ends tlsivfixed management": aesfast refuses "tlsivgen",
 * "tlsivinv" and TLS records on an IV the application gave; the default provider counts on
 * from it (and its record may fail later, on the tag, its payload wiped). Returns 1 if t is
 * that refusal (the pair is then out of step). */
static int gcm_unmanaged(struct pair *pr, const struct res *t, const struct res *d)
{
    (void)d;
    if (kind != FUZZ_GCM || pr->desync || pr->managed || !pr->d_managed || t->rc > 0
        || !says(t, "tlsivfixed"))
        return 0;
    pr->desync = 1;
    return 1;
}

/*
 * Refusals aesfast makes alone, where the default provider is not called (it would go ahead
 * unsafely); t is aesfast's outcome. Returns 1 if the refusal was such a difference (handled).
 * GCM-SIV, difference "Without a key, nothing is encrypted" and "AAD after the data is refused":
 * the default provider would encrypt under a zero key, or take the AAD and leave it out of the
 * tag; a missing nonce is refused as a missing key is (the default provider would use a zero
 * nonce). CTR has none: with a key and no IV ever set both run from the all-zero counter.
 */
static int refused_alone(struct pair *pr, const char *what, int aad, const struct res *t)
{
    int nokey, after;

    if (pr->desync || !pr->has_cipher)
        return 0;
    if (kind != FUZZ_GCMSIV)
        return 0;
    nokey = !pr->have_key || !pr->have_nonce;
    after = aad && pr->data_done;
    if ((nokey || after) && t->rc > 0)
        finding("refusal expected, rc %d (%d)", what, t->rc, 0);
    if (t->rc > 0)
        return 0;
    if (nokey && (says(t, "set a key first") || says(t, "nonce first")))
        return 1;
    if (aad && pr->data_tried && says(t, "AAD after the data"))
        return 1;
    return 0;
}

static void op_aad(struct prog *g, struct pair *pr)
{
    size_t len = len16(g);
    unsigned f = u8(g);
    unsigned char buf[MAX_DATA + 1];
    int ot = -1, od = -1;
    struct res t, d;

    for (size_t i = 0; i < len; i++)
        buf[i] = (unsigned char)((pr->aad_pos + i) * 31 + 7);
    if ((f & 1) && len > 0)
        buf[(f >> 1) % len] ^= 0x20;
    if (kind == FUZZ_GCM)
        gcm_random_check(pr);
    if ((f & 128) && !has_cipher(pr))
        return;
    if (f & 128)
        RUNC(t, EVP_Cipher(pr->t, NULL, buf, (unsigned)len));
    else
        RUN(t, EVP_CipherUpdate(pr->t, NULL, &ot, buf, (int)len));
    /* GCM-SIV, difference "Every init starts a new message": an empty AAD update resets the
     * default provider's AAD; it goes to aesfast only, where it is a no-op (or refused after
     * the data: "AAD after the data is refused"). */
    if (kind == FUZZ_GCMSIV && len == 0)
        return;
    if (refused_alone(pr, "AAD", 1, &t))
        return;
    if (f & 128)
        RUNC(d, EVP_Cipher(pr->d, NULL, buf, (unsigned)len));
    else
        RUN(d, EVP_CipherUpdate(pr->d, NULL, &od, buf, (int)len));
    if (gcm_message_over(pr, &t, &d))
        return;
    if (kind == FUZZ_GCM && pr->tls_aad && (len > 0 || (f & 128))) { /* taken as the record */
        pr->d_has_tag = 1;
        if (gcm_unmanaged(pr, &t, &d))
            return;
        if (!pr->desync)
            pr->iv_state = IV_DONE;
        pr->tls_aad = 0;
        agree(pr, "AAD (a TLS record)", &t, &d);
        return;
    }
    /* GCM: AAD after a data call of 0 bytes (EVP_Cipher(ctx, out, in, 0); EVP_CipherUpdate
     * returns before the provider for 0 bytes). aesfast's AAD phase ends with any data call
     * and it refuses; the default provider takes the AAD, but its GHASH has already closed
     * the partial AAD block (CRYPTO_gcm128_encrypt's ares), so it authenticates the AAD
     * zero-padded in the middle, not the AAD given. difference "AAD after a data call, even one of
     * 0 bytes, is refused". */
    if (kind == FUZZ_GCM && !pr->desync && t.rc <= 0 && d.rc > 0
        && says(&t, "AAD after 0 bytes of data")) {
        pr->desync = 1;
        return;
    }
    if (agree(pr, "AAD", &t, &d) && (t.n != d.n || ot != od))
        finding("AAD results %d and %d", "AAD", t.n != d.n ? t.n : ot,
                t.n != d.n ? d.n : od);
    /* (EVP_CipherUpdate of 0 bytes returns before the message starts; EVP_Cipher does not) */
    if (t.rc > 0 && kind == FUZZ_GCM && !pr->desync && pr->iv_state != IV_DONE
        && (len > 0 || (f & 128))) {
        gcm_plain_start(pr);
        pr->iv_state = IV_USED;
    }
    pr->aad_pos += len;
}

static void op_data(struct prog *g, struct pair *pr)
{
    size_t len = len16(g);
    unsigned f = u8(g), o = u8(g);
    size_t oi = o & 15, oo = (o >> 4) & 15;
    static unsigned char src[MAX_DATA + 1];
    static unsigned char tb[MAX_DATA + 2 * PAD + 32], db[MAX_DATA + 2 * PAD + 32];
    static unsigned char tin[MAX_DATA + PAD], din[MAX_DATA + PAD];
    unsigned char *tout = tb + PAD + oo, *dout = db + PAD + oo;
    const unsigned char *tsrc, *dsrc;
    int inplace = (f & 4) != 0, ecall = (f & 8) != 0;
    int null_in = (f & 16) && o == 0xff, overlap = (f & 32) && o == 0xfe && len > 1;
    int ot = -1, od = -1;
    struct res t, d;

    if (f & 1) { /* replay the previous message's output (opening what was sealed) */
        size_t have = pr->replay_len - pr->replay_pos;
        size_t n = have < len ? have : len;

        memcpy(src, pr->replay + pr->replay_pos, n);
        fill(src + n, len - n, (uint32_t)g->op);
        pr->replay_pos += n;
        if ((f & 2) && len > 0)
            src[o % len] ^= 1;
    } else {
        fill(src, len, (uint32_t)(g->op * 131 + f));
    }
    memset(tb, 0xa5, sizeof(tb));
    memset(db, 0xa5, sizeof(db));
    if (inplace) {
        memcpy(tout, src, len);
        memcpy(dout, src, len);
        tsrc = tout, dsrc = dout;
    } else {
        memcpy(tin + oi, src, len);
        memcpy(din + oi, src, len);
        tsrc = tin + oi, dsrc = din + oi;
    }
    if (kind == FUZZ_GCM)
        gcm_random_check(pr);
    if (null_in || overlap) {
        /* difference "An update with data but no input buffer fails" (the default provider takes
         * it as the final) and "Output that partially overlaps the input is refused" (the
         * default provider goes ahead): aesfast alone, which must refuse with its reason. A
         * NULL input of length 0 is nothing to refuse. */
        if (overlap) {
            memcpy(tb + PAD, src, len);
            tsrc = tb + PAD, tout = tb + PAD + 1;
        }
        if (null_in && len == 0) /* GCM-SIV would seal an empty message: nothing to refuse */
            return;
        RUN(t, EVP_CipherUpdate(pr->t, tout, &ot, null_in ? NULL : tsrc, (int)len));
        if (!pr->desync && (t.rc > 0 || !t.err)) /* refused, with a reason (any reason) */
            finding("refusal expected (rc %d, len %d)", null_in ? "NULL-input update"
                    : "partially overlapping update", t.rc, (int)len);
        /* GCM: aesfast may have started the message (or drawn its random IV) before refusing;
         * the default provider has not: compared again from the next IV. */
        if (kind == FUZZ_GCM && !pr->desync)
            pr->desync = 1;
        return;
    }
    if (ecall && !has_cipher(pr))
        return;
    /* GCM with a TLS record pending: this update is the record; with an IV under 8 bytes, as
     * in op_tls_record: aesfast alone. */
    if (kind == FUZZ_GCM && pr->tls_aad && EVP_CIPHER_CTX_get_iv_length(pr->d) < 8) {
        if (ecall)
            RUNC(t, EVP_Cipher(pr->t, tout, tsrc, (unsigned)len));
        else
            RUN(t, EVP_CipherUpdate(pr->t, tout, &ot, tsrc, (int)len));
        pr->desync = 2; /* the default provider keeps its record pending */
        pr->tls_aad = 0;
        return;
    }
    if (ecall) {
        RUNC(t, EVP_Cipher(pr->t, tout, tsrc, (unsigned)len));
    } else {
        RUN(t, EVP_CipherUpdate(pr->t, tout, &ot, tsrc, (int)len));
    }
    if (kind == FUZZ_GCMSIV)
        pr->data_tried = 1;
    if (refused_alone(pr, "data", 0, &t))
        return;
    if (ecall) {
        RUNC(d, EVP_Cipher(pr->d, dout, dsrc, (unsigned)len));
        ot = od = 0;
    } else {
        RUN(d, EVP_CipherUpdate(pr->d, dout, &od, dsrc, (int)len));
    }
    if (gcm_message_over(pr, &t, &d))
        return;
    if (kind == FUZZ_GCM && pr->tls_aad && (len > 0 || ecall)) { /* this was the record */
        pr->d_has_tag = 1;
        if (gcm_unmanaged(pr, &t, &d))
            return;
        if (!pr->desync)
            pr->iv_state = IV_DONE;
        pr->tls_aad = 0;
        agree(pr, "data (a TLS record)", &t, &d);
        return;
    }
    siv_note_check(pr, &t);
    if (kind == FUZZ_GCMSIV && !pr->desync && !pr->enc && t.rc <= 0 && d.rc > 0) {
        /* difference "The tag is checked in the data update itself; on a mismatch the output is
         * wiped before the update fails, and final fails too" (or there was no tag to check:
         * "the tag must be set before the data"). aesfast's output must be all zero; the
         * default provider released unverified plaintext, and its final must now fail (unless
         * aesfast said the tag was missing: the default provider may hold a stale one). */
        unsigned char fin[32];
        int fl;
        struct res df;

        for (size_t i = 0; i < len && says(&t, "tag verification failed"); i++)
            if (tout[i] != 0)
                finding("failed open left byte %d of %d unwiped", "data", (int)i, (int)len);
        if (!says(&t, "tag verification failed") && !says(&t, "set the tag before the data"))
            finding("open refused for another reason (rc %d, %d)", "data", t.rc, d.rc);
        RUN(df, EVP_CipherFinal_ex(pr->d, fin, &fl));
        if (says(&t, "tag verification failed") && df.rc > 0)
            finding("aesfast failed a tag the default provider verifies (%d, %d)", "data", t.rc,
                    df.rc);
        pr->desync = 1;
        return;
    }
    if (kind == FUZZ_GCMSIV && !pr->desync && t.rc > 0)
        pr->data_done = 1;
    if (!agree(pr, "data", &t, &d)) {
        /* GCM-SIV: a second data update without "speed", refused by both; the default provider
         * has then forgotten the tag it made (its final and tag read fail), aesfast still holds
         * the sealed message. Not a listed difference (a refused call's aftermath). */
        if (kind == FUZZ_GCMSIV && !pr->desync && says(&t, "in one update"))
            pr->desync = 1;
        return;
    }
    if (t.n != d.n || ot != od)
        finding("data results (%d, %d) differ", "data", t.n != d.n ? t.n : ot,
                t.n != d.n ? d.n : od);
    if (kind == FUZZ_GCM && pr->iv_state != IV_DONE && (len > 0 || ecall)) {
        gcm_plain_start(pr);
        pr->iv_state = IV_USED;
    }
    if (pr->random_iv)
        return;
    same_bytes("data output", tout, dout, len);
    if (memcmp(tb + PAD + oo + len, db + PAD + oo + len, PAD) != 0 || tb[PAD + oo - 1] != 0xa5)
        finding("output canaries differ (%d, %d)", "data", 0, 0);
    record_output(pr, tout, len);
}

/*
 * The default provider's tag state where it differs from aesfast's, as a decrypt final meets
 * it: each row says when the two finals' outcomes are such a difference. The two states differ
 * from there on (desync) until an init brings them in step again. op_final consults the table
 * once both finals ran.
 */
static int quirk_tag_used_up(const struct pair *pr, const struct res *t, const struct res *d)
{
    /* GCM, difference "A tag set for opening serves one message": aesfast opens only with a tag
     * set for this message (its decrypt final uses it up; a switch to encrypting drops it), and
     * with none the message stays open for one. The default provider compares whatever its tag
     * buffer holds once any tag length is known (a tag set or made earlier, a TLS record's),
     * and finishes its GHASH; a later final there tags that finished state again. */
    return !pr->enc && t->rc <= 0 && says(t, "set the expected tag")
           && (d->rc > 0 || pr->d_has_tag || pr->random_tag);
}

static int quirk_stale_tag_buffer(const struct pair *pr, const struct res *t, const struct res *d)
{
    /* GCM: the default provider's tag buffer is stale (random_tag: TLS AAD or a refused tag in
     * it): its decrypt final may decide otherwise. Not a listed difference (its aftermath). */
    return pr->random_tag && !pr->enc && (t->rc > 0) != (d->rc > 0);
}

static int quirk_siv_tag_first(const struct pair *pr, const struct res *t, const struct res *d)
{
    /* GCM-SIV, difference "the tag must be set before the data ...; decrypting without one fails":
     * aesfast refuses to open with no tag given in this message, and the message stays open for
     * one. The default provider's final has by then decrypted the message as it stood and fixed
     * its tag: it checks that against whatever its tag buffer holds (the tag it sealed or was
     * given last), so it may accept, and AAD given after it is left out of its tag (difference "AAD
     * after the data"). */
    (void)d;
    return !pr->enc && !pr->siv_tag && t->rc <= 0 && says(t, "set the tag before the data");
}

static int quirk_siv_late_tag(const struct pair *pr, const struct res *t, const struct res *d)
{
    /* GCM-SIV, difference "final reports that check": a tag given after the message's data was
     * checked is kept (a repeated update under "speed" checks it) but leaves aesfast's final as
     * that check said, where the default provider compares the latest tag at final. */
    return !pr->enc && pr->siv_late_tag && (t->rc > 0) != (d->rc > 0);
}

static const struct {
    enum fuzz_kind kind;
    int (*applies)(const struct pair *pr, const struct res *t, const struct res *d);
} final_quirks[] = {
    {FUZZ_GCM, quirk_tag_used_up},
    {FUZZ_GCM, quirk_stale_tag_buffer},
    {FUZZ_GCMSIV, quirk_siv_tag_first},
    {FUZZ_GCMSIV, quirk_siv_late_tag},
};

static void op_final(struct prog *g, struct pair *pr)
{
    unsigned f = u8(g);
    unsigned char tout[64], dout[64];
    int ot = -1, od = -1;
    struct res t, d;

    memset(tout, 0x5a, sizeof(tout));
    memset(dout, 0x5a, sizeof(dout));
    if (kind == FUZZ_GCM)
        gcm_random_check(pr);
    if ((f & 1) && !has_cipher(pr))
        return;
    if (f & 1) {
        RUNC(t, EVP_Cipher(pr->t, tout, NULL, 0));
    } else {
        RUN(t, EVP_CipherFinal_ex(pr->t, tout, &ot));
    }
    if (kind == FUZZ_GCMSIV)
        pr->data_tried = 1;
    if (refused_alone(pr, "final", 0, &t))
        return;
    /* GCM-SIV, difference "Sealing a message with no data update seals the empty message":
     * the default provider's final fails there, so it is given the empty data update first. */
    if (kind == FUZZ_GCMSIV && !pr->desync && pr->enc && !pr->data_done) {
        unsigned char none[1] = {0};
        int n;

        EVP_CipherUpdate(pr->d, none, &n, none, 0);
        ERR_clear_error();
    }
    if (f & 1) {
        RUNC(d, EVP_Cipher(pr->d, dout, NULL, 0));
        ot = od = 0;
    } else {
        RUN(d, EVP_CipherFinal_ex(pr->d, dout, &od));
    }
    if (gcm_message_over(pr, &t, &d))
        return;
    pr->tls_aad = 0; /* a pending TLS record is tried (and fails) at final */
    for (size_t i = 0; !pr->desync && i < sizeof(final_quirks) / sizeof(final_quirks[0]); i++)
        if (final_quirks[i].kind == kind && final_quirks[i].applies(pr, &t, &d)) {
            pr->desync = 1;
            return;
        }
    siv_note_check(pr, &t);
    if (kind == FUZZ_GCMSIV && !pr->desync && t.rc > 0)
        pr->data_done = 1;
    if (kind == FUZZ_GCM && !pr->desync) {
        if (t.rc > 0 && d.rc > 0) {
            gcm_plain_start(pr);
            pr->iv_state = IV_DONE;
            pr->random_tag = pr->random_iv;
            pr->d_has_tag |= pr->enc;
        } else if (!pr->enc && t.rc <= 0 && d.rc <= 0 && pr->iv_state != IV_DONE) {
            pr->failed_final = 1;
        }
    }
    if (!agree(pr, "final", &t, &d))
        return;
    if (t.n != d.n || ot != od)
        finding("final results (%d, %d) differ", "final", t.n != d.n ? t.n : ot,
                t.n != d.n ? d.n : od);
    same_bytes("final output", tout, dout, sizeof(tout));
}

static void op_set_tag(struct prog *g, struct pair *pr)
{
    unsigned n = u8(g) % 18, f = u8(g);
    unsigned char tag[32];
    struct res t, d;

    memset(tag, 0, sizeof(tag));
    if (!(f & 1))
        memcpy(tag, last_tag, 16);
    if (f & 2)
        tag[(f >> 4) % 16] ^= 0x04;
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG,
                                                         (f & 4) ? NULL : tag, n),
                       OSSL_PARAM_construct_end()};

    if (f & 8)
        RUN(t, EVP_CIPHER_CTX_set_params(pr->t, p));
    else
        RUN(t, EVP_CIPHER_CTX_ctrl(pr->t, EVP_CTRL_AEAD_SET_TAG, (int)n, (f & 4) ? NULL : tag));
    /* GCM-SIV: a 16-byte tag with no buffer (a tag length only). OpenSSL 3.5.7's default
     * provider copies from the NULL pointer when decrypting (a crash, found by this driver);
     * aesfast refuses it when decrypting and ignores it when sealing. difference "A tag set for
     * opening with no buffer is refused"; the default provider is not called. */
    if (kind == FUZZ_GCMSIV && (f & 4) && n == 16) {
        if (!pr->desync && !pr->enc && (t.rc > 0 || !t.err))
            finding("a NULL tag for opening was taken (rc %d, %d)", "set tag", t.rc, 0);
        return;
    }
    if (f & 8)
        RUN(d, EVP_CIPHER_CTX_set_params(pr->d, p));
    else
        RUN(d, EVP_CIPHER_CTX_ctrl(pr->d, EVP_CTRL_AEAD_SET_TAG, (int)n, (f & 4) ? NULL : tag));
    if (kind == FUZZ_GCM && d.rc > 0)
        pr->d_has_tag = 1;
    if (agree(pr, "set tag", &t, &d) && kind == FUZZ_GCMSIV && !pr->enc && t.rc > 0) {
        pr->siv_tag = 1;
        pr->siv_late_tag |= pr->siv_checked;
    }
    /* GCM: the default provider copies a tag into its tag buffer before it refuses it for an
     * encrypting context, so its next tag read returns those bytes; aesfast's refusal changes
     * nothing. Not a listed difference (a refused call's aftermath): tags are not compared until the
     * next final. */
    if (kind == FUZZ_GCM && t.rc <= 0 && d.rc <= 0 && pr->enc && !(f & 4) && n > 0)
        pr->random_tag = 1;
    /* That buffer also holds a pending TLS record's AAD, which any tag given (taken or not)
     * then overwrites. */
    if (kind == FUZZ_GCM && pr->tls_aad && !(f & 4) && n > 0 && !pr->desync)
        pr->desync = 2;
}

static void op_get_tag(struct prog *g, struct pair *pr)
{
    unsigned n = u8(g) % 18, f = u8(g);
    unsigned char tt[32], dt[32];
    struct res t, d;

    memset(tt, 0x33, sizeof(tt));
    memset(dt, 0x33, sizeof(dt));
    if (f & 1) {
        OSSL_PARAM pt[2] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tt, n),
                            OSSL_PARAM_construct_end()};
        OSSL_PARAM pd[2] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, dt, n),
                            OSSL_PARAM_construct_end()};
        RUN(t, EVP_CIPHER_CTX_get_params(pr->t, pt));
        RUN(d, EVP_CIPHER_CTX_get_params(pr->d, pd));
    } else {
        RUN(t, EVP_CIPHER_CTX_ctrl(pr->t, EVP_CTRL_AEAD_GET_TAG, (int)n, tt));
        RUN(d, EVP_CIPHER_CTX_ctrl(pr->d, EVP_CTRL_AEAD_GET_TAG, (int)n, dt));
    }
    /* GCM: before an encrypt final, the default provider returns whatever its tag buffer
     * holds once any tag length is known (a tag set for decrypting, an earlier message's tag,
     * TLS AAD bytes); aesfast returns only a finished seal's tag and refuses otherwise. Difference
     * "The tag is read only after the encrypt final": aesfast's refusal is accepted there. */
    if (kind == FUZZ_GCM && !pr->desync && t.rc <= 0 && d.rc > 0
        && says(&t, "is read after the final encrypt call"))
        return;
    if (pr->random_tag && kind == FUZZ_GCM) /* whether a tag is there may differ too */
        return;
    if (!agree(pr, "get tag", &t, &d) || pr->random_iv)
        return;
    same_bytes("tag", tt, dt, sizeof(tt));
    if (n == 16)
        memcpy(last_tag, tt, 16);
}

static void op_copy(struct prog *g, int *cur)
{
    unsigned f = u8(g);
    struct pair *src = &slots[*cur], *dst = &slots[1 - *cur];
    struct res t, d;

    pair_free(dst);
    memcpy(dst, src, sizeof(*dst));
    dst->t = EVP_CIPHER_CTX_new();
    dst->d = EVP_CIPHER_CTX_new();
    if (dst->t == NULL || dst->d == NULL)
        abort();
    RUN(t, EVP_CIPHER_CTX_copy(dst->t, src->t));
    RUN(d, EVP_CIPHER_CTX_copy(dst->d, src->d));
    agree(src, "copy", &t, &d);
    if (f & 1)
        *cur = 1 - *cur;
}

static void op_params(struct pair *pr)
{
    static const char *const sizes[] = {OSSL_CIPHER_PARAM_KEYLEN, OSSL_CIPHER_PARAM_IVLEN,
                                        OSSL_CIPHER_PARAM_AEAD_TAGLEN};
    static const char *const octets[] = {OSSL_CIPHER_PARAM_IV, OSSL_CIPHER_PARAM_UPDATED_IV};
    struct res t, d;

    for (size_t i = 0; i < 3; i++) {
        size_t vt = 12345, vd = 12345;
        OSSL_PARAM pt[2] = {OSSL_PARAM_construct_size_t(sizes[i], &vt), OSSL_PARAM_construct_end()};
        OSSL_PARAM pd[2] = {OSSL_PARAM_construct_size_t(sizes[i], &vd), OSSL_PARAM_construct_end()};

        /* GCM-SIV: the default provider has no "ivlen" context parameter; aesfast answers 12
         * (not a listed difference: an answer where the default provider has none). */
        if (kind == FUZZ_GCMSIV && i == 1)
            continue;
        RUN(t, EVP_CIPHER_CTX_get_params(pr->t, pt));
        RUN(d, EVP_CIPHER_CTX_get_params(pr->d, pd));
        /* "taglen" while the default provider's tag state is stale (random_tag): not compared */
        if (agree(pr, sizes[i], &t, &d) && vt != vd && !(i == 2 && pr->random_tag))
            finding("values %d and %d", sizes[i], (int)vt, (int)vd);
    }
    if (kind == FUZZ_GCMSIV)
        return;
    for (size_t i = 0; i < 2; i++) {
        unsigned char bt[160], bd[160];
        OSSL_PARAM pt[2] = {OSSL_PARAM_construct_octet_string(octets[i], bt, sizeof(bt)),
                            OSSL_PARAM_construct_end()};
        OSSL_PARAM pd[2] = {OSSL_PARAM_construct_octet_string(octets[i], bd, sizeof(bd)),
                            OSSL_PARAM_construct_end()};

        memset(bt, 0, sizeof(bt));
        memset(bd, 0, sizeof(bd));
        RUN(t, EVP_CIPHER_CTX_get_params(pr->t, pt));
        RUN(d, EVP_CIPHER_CTX_get_params(pr->d, pd));
        if (!agree(pr, octets[i], &t, &d))
            continue;
        if (pt[0].return_size != pd[0].return_size)
            finding("sizes %d and %d", octets[i], (int)pt[0].return_size, (int)pd[0].return_size);
        if (!pr->random_iv && !pr->iv_ahead) /* iv_ahead: see gcm_plain_start */
            same_bytes(octets[i], bt, bd, pt[0].return_size);
    }
    if (kind == FUZZ_CTR) {
        unsigned int nt = 99, nd = 99;
        OSSL_PARAM pt[2] = {OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_NUM, &nt),
                            OSSL_PARAM_construct_end()};
        OSSL_PARAM pd[2] = {OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_NUM, &nd),
                            OSSL_PARAM_construct_end()};

        RUN(t, EVP_CIPHER_CTX_get_params(pr->t, pt));
        RUN(d, EVP_CIPHER_CTX_get_params(pr->d, pd));
        if (agree(pr, "num", &t, &d) && nt != nd)
            finding("num %d and %d", "num", (int)nt, (int)nd);
    }
}

static void op_tls_aad(struct prog *g, struct pair *pr)
{
    unsigned l0 = u8(g), l1 = u8(g), f = u8(g);
    unsigned char aad[13];
    struct res t, d;

    fill(aad, 11, 77 + (f >> 1)); /* the same AAD bytes whatever the length field */
    aad[11] = (unsigned char)l0, aad[12] = (unsigned char)l1;
    RUN(t, EVP_CIPHER_CTX_ctrl(pr->t, EVP_CTRL_AEAD_TLS1_AAD, (f & 1) ? 12 : 13, aad));
    RUN(d, EVP_CIPHER_CTX_ctrl(pr->d, EVP_CTRL_AEAD_TLS1_AAD, (f & 1) ? 12 : 13, aad));
    if (agree(pr, "tls aad", &t, &d) && t.n != d.n)
        finding("tls aad padding %d and %d", "tls aad", t.rc, d.rc);
    /* GCM: the default provider keeps the TLS AAD in its tag buffer: a tag read after it
     * returns AAD bytes. Not a listed difference (a tag read outside its use): not compared. */
    if (t.rc > 0 && kind == FUZZ_GCM)
        pr->tls_aad = pr->random_tag = 1;
    if (kind == FUZZ_GCM && pr->desync) /* which side has a record pending is unknown now */
        pr->desync = 2;
    /* GCM: the default provider stores a 13-byte TLS AAD before checking its length field, so
     * after refusing one it is in TLS record mode anyway (its next EVP_Cipher is a record, and
     * fails, and ends its message); aesfast's refusal leaves it as it was (a record set up
     * before stays pending). Not a listed difference (a refused call's aftermath). */
    if (kind == FUZZ_GCM && t.rc <= 0 && d.rc <= 0 && !(f & 1))
        pr->desync = 2; /* until a new provider context: an init does not end TLS mode */
}

static void op_iv_fixed(struct prog *g, struct pair *pr)
{
    unsigned n = u8(g) % 16, s = u8(g);
    unsigned char iv[256];
    struct res t, d;

    fill(iv, sizeof(iv), 2000 + s);
    RUN(t, EVP_CIPHER_CTX_ctrl(pr->t, EVP_CTRL_GCM_SET_IV_FIXED, n == 0 ? -1 : (int)n, iv));
    /* GCM: a fixed part longer than the IV. The default provider's check of the invocation
     * field's length, (ivlen - (int)len) < 8, is done in size_t and wraps, so it accepts this
     * and writes ivlen - len (wrapped: 64 KiB per DRBG call) random bytes past its IV, a heap
     * overflow of its context (found by this driver on OpenSSL 3.0.x; 3.5.7 has the same
     * code). difference "tlsivfixed longer than the IV is refused": aesfast must refuse, and the
     * default provider is not called. */
    if (kind == FUZZ_GCM && n != 0 && (int)n > EVP_CIPHER_CTX_get_iv_length(pr->d)) {
        if (!pr->desync && (t.rc > 0 || !t.err))
            finding("a %d-byte fixed IV field for a %d-byte IV was not refused", "iv fixed",
                    (int)n, EVP_CIPHER_CTX_get_iv_length(pr->t));
        return;
    }
    RUN(d, EVP_CIPHER_CTX_ctrl(pr->d, EVP_CTRL_GCM_SET_IV_FIXED, n == 0 ? -1 : (int)n, iv));
    pr->managed |= t.rc > 0; /* each side's, in step or not */
    pr->d_managed |= d.rc > 0;
    if (!agree(pr, "iv fixed", &t, &d))
        return;
    pr->iv_state = IV_SET;
    pr->ended = pr->failed_final = 0;
    pr->iv_ahead &= n != 0 && !pr->enc; /* decrypting, the rest of the IV stays as it was */
    /* The rest of the IV is drawn at random when encrypting, else left as it was. */
    pr->random_iv = n != 0 && (pr->enc || pr->random_iv);
}

static void op_iv_gen(struct prog *g, struct pair *pr)
{
    unsigned v = u8(g) % 18;
    /* 0 and -1: the whole IV (EVP passes both as a 0-byte buffer): the buffers hold any IV */
    int n = v == 17 ? -1 : (int)v;
    unsigned char bt[160], bd[160];
    struct res t, d;

    memset(bt, 0, sizeof(bt));
    memset(bd, 0, sizeof(bd));
    if (kind == FUZZ_GCM)
        gcm_random_check(pr);
    RUN(t, EVP_CIPHER_CTX_ctrl(pr->t, EVP_CTRL_GCM_IV_GEN, n, bt));
    /* GCM with an IV under 8 bytes (a whole fixed IV makes that possible): the default
     * provider increments the 8 bytes ending at the IV's end, below its IV buffer; aesfast
     * refuses, as such an IV has no invocation counter (difference "tlsivgen on an IV of under 8
     * bytes is refused"). The default provider is not called. */
    if (kind == FUZZ_GCM && EVP_CIPHER_CTX_get_iv_length(pr->d) < 8) {
        if (!pr->desync && (t.rc > 0 || !t.err))
            finding("\"tlsivgen\" with a %d-byte IV was not refused", "iv gen",
                    EVP_CIPHER_CTX_get_iv_length(pr->t), 0);
        return;
    }
    RUN(d, EVP_CIPHER_CTX_ctrl(pr->d, EVP_CTRL_GCM_IV_GEN, n, bd));
    if (gcm_unmanaged(pr, &t, &d))
        return;
    if (kind == FUZZ_GCM)
        gcm_managed_start(pr);
    if (!agree(pr, "iv gen", &t, &d))
        return;
    if (!pr->random_iv)
        same_bytes("iv gen", bt, bd, sizeof(bt));
    if (kind == FUZZ_GCM) /* it starts the record's message */
        pr->iv_state = IV_USED;
}

static void op_iv_inv(struct prog *g, struct pair *pr)
{
    unsigned n = u8(g) % 17;
    unsigned char iv[32];
    int ivlen = EVP_CIPHER_CTX_get_iv_length(pr->d);
    struct res t, d;

    fill(iv, sizeof(iv), 3000 + n);
    RUN(t, EVP_CIPHER_CTX_ctrl(pr->t, EVP_CTRL_GCM_SET_IV_INV, (int)n, iv));
    /* GCM, difference "tlsivinv longer than the IV is refused; the default provider copies it
     * below its IV buffer": aesfast must refuse, and the default provider is not called. */
    if (kind == FUZZ_GCM && (int)n > ivlen) {
        if (!pr->desync && t.rc > 0)
            finding("tlsivinv of %d bytes for a %d-byte IV was accepted", "iv inv", (int)n, ivlen);
        return;
    }
    RUN(d, EVP_CIPHER_CTX_ctrl(pr->d, EVP_CTRL_GCM_SET_IV_INV, (int)n, iv));
    if (gcm_unmanaged(pr, &t, &d))
        return;
    if (kind == FUZZ_GCM && n < 8) /* the rest of an advanced invocation field stays */
        gcm_managed_start(pr);
    if (agree(pr, "iv inv", &t, &d))
        pr->iv_state = IV_USED; /* it starts the record's message */
}

static void op_tls_record(struct prog *g, struct pair *pr)
{
    size_t len = len16(g);
    unsigned f = u8(g);
    static unsigned char tb[24 + MAX_DATA], db[24 + MAX_DATA];
    size_t n = (f & 4) ? len % 24 : 24 + len;
    struct res t, d;

    if ((f & 1) && last_record_len > 0) {
        n = last_record_len;
        memcpy(tb, last_record, n);
        if (f & 2)
            tb[(f >> 3) % n] ^= 0x10;
    } else {
        fill(tb, n, (uint32_t)(g->op * 7 + f));
    }
    memcpy(db, tb, n);
    if (!has_cipher(pr))
        return;
    if (kind == FUZZ_GCM && !pr->tls_aad) /* not a record: data */
        gcm_random_check(pr);
    RUNC(t, EVP_Cipher(pr->t, tb, tb, (unsigned)n));
    /* A TLS record with an IV under 8 bytes: as IV_GEN above when sealing; when opening, the
     * default provider copies the 8-byte explicit nonce below its IV buffer (difference "tlsivinv
     * longer than the IV is refused"). aesfast alone runs, and must refuse to open. */
    if (kind == FUZZ_GCM && pr->tls_aad && EVP_CIPHER_CTX_get_iv_length(pr->d) < 8) {
        if (!pr->desync && !pr->enc && (t.rc > 0 || !t.err))
            finding("a TLS record with a %d-byte IV was opened (rc %d)", "tls record",
                    EVP_CIPHER_CTX_get_iv_length(pr->t), t.rc);
        pr->desync = 2; /* the default provider keeps its record pending */
        pr->tls_aad = 0;
        return;
    }
    RUNC(d, EVP_Cipher(pr->d, db, db, (unsigned)n));
    if (kind == FUZZ_GCM && pr->tls_aad) {
        pr->d_has_tag = 1;
        if (gcm_unmanaged(pr, &t, &d))
            return;
        if (pr->enc)
            gcm_managed_start(pr);
    }
    if (gcm_message_over(pr, &t, &d))
        return;
    if (kind == FUZZ_GCM && !pr->desync) {
        if (pr->tls_aad) { /* a record, whatever its outcome, ends the message */
            pr->iv_state = IV_DONE;
        } else if (t.rc > 0 && d.rc > 0 && pr->iv_state != IV_DONE) {
            gcm_plain_start(pr);
            pr->iv_state = IV_USED;
        }
        pr->tls_aad = 0;
    }
    if (!agree(pr, "tls record", &t, &d)) {
        if (!pr->desync && t.n != d.n)
            finding("tls record results %d and %d", "tls record", t.rc, d.rc);
        if (!pr->desync && kind == FUZZ_GCM)
            same_bytes("failed tls record (wiped payload)", tb, db, n);
        return;
    }
    if (t.n != d.n)
        finding("tls record results %d and %d", "tls record", t.rc, d.rc);
    if (pr->random_iv)
        return;
    same_bytes("tls record", tb, db, n);
    if (pr->enc && kind == FUZZ_GCM) {
        memcpy(last_record, tb, n);
        last_record_len = n;
    }
}

static void op_speed(struct prog *g, struct pair *pr)
{
    unsigned int v = u8(g) & 1;
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_SPEED, &v),
                       OSSL_PARAM_construct_end()};
    struct res t, d;

    RUN(t, EVP_CIPHER_CTX_set_params(pr->t, p));
    RUN(d, EVP_CIPHER_CTX_set_params(pr->d, p));
    agree(pr, "speed", &t, &d);
}

static void op_reset(struct pair *pr)
{
    struct res t, d;

    RUN(t, EVP_CIPHER_CTX_reset(pr->t));
    RUN(d, EVP_CIPHER_CTX_reset(pr->d));
    pr->desync = 0;
    agree(pr, "reset", &t, &d);
    pr->random_iv = pr->ended = pr->failed_final = pr->have_key = pr->have_nonce = 0;
    pr->has_cipher = pr->tls_aad = pr->random_tag = 0;
    pr->managed = pr->d_managed = pr->iv_ahead = pr->d_has_tag = 0;
    pr->iv_state = IV_UNINIT;
    pr->enc = 1;
    new_message(pr);
}

/* ---- libFuzzer entry points ------------------------------------------------------------ */

static void die(const char *what, const char *name)
{
    fprintf(stderr, "fuzz: %s %s (OPENSSL_CONF=%s)\n", what, name,
            getenv("OPENSSL_CONF") ? getenv("OPENSSL_CONF") : "(unset)");
    ERR_print_errors_fp(stderr);
    exit(1);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    kind = fuzz_mode.kind;
    trace = getenv("FUZZ_TRACE") != NULL;
    if (!OSSL_PROVIDER_available(NULL, "aesfast"))
        die("provider not loaded:", "aesfast");
    for (int i = 0; i < 3; i++) {
        ciph_t[i] = EVP_CIPHER_fetch(NULL, fuzz_mode.names[i], "provider=aesfast");
        ciph_d[i] = EVP_CIPHER_fetch(NULL, fuzz_mode.names[i], "provider=default");
        if (ciph_t[i] == NULL
            || strcmp(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(ciph_t[i])), "aesfast"))
            die("no aesfast", fuzz_mode.names[i]);
        if (ciph_d[i] == NULL
            || strcmp(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(ciph_d[i])), "default"))
            die("no default", fuzz_mode.names[i]);
    }
    for (int i = 0; i < 4; i++)
        fill(keys[i], sizeof(keys[i]), (uint32_t)i);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct prog g = {data, size, 0, 0};
    int ks, cur = 0;

    if (size == 0)
        return 0;
    ks = (int)(u8(&g) % 3);
    cur_prog = &g;
    pair_new(&slots[0]);
    pair_new(&slots[1]);
    memset(last_tag, 0, sizeof(last_tag));
    last_record_len = 0;
    while (g.i < g.n && g.op < MAX_OPS) {
        struct pair *pr = &slots[cur];
        unsigned op = u8(&g) % NOPS;

        g.op++;
        if (trace)
            fprintf(stderr, "fuzz: op %zu = %u, args %02x %02x %02x %02x\n", g.op, op,
                    g.i < g.n ? g.p[g.i] : 0, g.i + 1 < g.n ? g.p[g.i + 1] : 0,
                    g.i + 2 < g.n ? g.p[g.i + 2] : 0, g.i + 3 < g.n ? g.p[g.i + 3] : 0);
        /* libcrypto dereferences a context's missing cipher in several calls (EVP_Cipher,
         * EVP_CIPHER_CTX_get_iv_length): before an init names one, only these run. */
        if (!has_cipher(pr) && op != OP_INIT && op != OP_COPY && op != OP_SWAP && op != OP_RESET)
            continue;
        if (kind == FUZZ_CTR && op == OP_AAD) /* CTR has no AAD: out == NULL means nothing */
            continue;
        if (kind == FUZZ_GCMSIV && op == OP_TLS_RECORD) /* no TLS: EVP_Cipher is DATA's bit 3 */
            continue;
        switch (op) {
        case OP_INIT: op_init(&g, pr, ks); break;
        case OP_IVLEN: op_ivlen(&g, pr); break;
        case OP_AAD: op_aad(&g, pr); break;
        case OP_DATA: op_data(&g, pr); break;
        case OP_FINAL: op_final(&g, pr); break;
        case OP_SET_TAG: op_set_tag(&g, pr); break;
        case OP_GET_TAG: op_get_tag(&g, pr); break;
        case OP_COPY: op_copy(&g, &cur); break;
        case OP_SWAP: cur = 1 - cur; break;
        case OP_PARAMS: op_params(pr); break;
        case OP_TLS_AAD: op_tls_aad(&g, pr); break;
        case OP_IV_FIXED: op_iv_fixed(&g, pr); break;
        case OP_IV_GEN: op_iv_gen(&g, pr); break;
        case OP_IV_INV: op_iv_inv(&g, pr); break;
        case OP_TLS_RECORD: op_tls_record(&g, pr); break;
        case OP_SPEED: op_speed(&g, pr); break;
        default: op_reset(pr); break;
        }
    }
    pair_free(&slots[0]);
    pair_free(&slots[1]);
    ERR_clear_error();
    cur_prog = NULL;
    return 0;
}
