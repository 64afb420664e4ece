/*
 * AES-128/192/256-GCM with the semantics of OpenSSL's default provider (SP 800-38D), on the
 * tier's stitched kernels.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * A message's state is kept in one place, and its IV and tag states change only through these
 * transitions (the only functions that assign iv_state and tag_state, "the message" below):
 *   gcm_new_iv   an IV is stored (an init that gives one, "tlsivfixed", "tlsivinv", "tlsivgen",
 *                a random IV drawn): the message under way, if any, ends; IV_BUFFERED.
 *   gcm_begin    starts a message on the stored IV, at its first AAD or data byte, its final,
 *                "tlsivgen", "tlsivinv" or a TLS record: J0 and an empty hash state; IV_ACTIVE;
 *                a tag made for the last message is dropped. An IV that "tlsivfixed" manages
 *                then advances its 64-bit invocation field when encrypting, so no later
 *                message, plain or TLS record, starts on it again; in a child of fork() its
 *                invocation field is first drawn anew (gcm_fork_check), so parent and child
 *                never send the same explicit nonce.
 *   gcm_end      the message is over (final, a TLS record, a new key or IV, a new ivlen, a
 *                fixed IV part whose rest could not be drawn, or drawn again after a fork): its
 *                leftover keystream is wiped; IV_FINISHED. gcm_stop: gcm_end if a message is under way.
 *   gcm_tag_set  "tag" set for opening: TAG_EXPECTED.
 *   gcm_tag_made an encrypt final: TAG_MADE.
 *   gcm_tag_drop TAG_NONE: a decrypt final uses up the tag set for it; a message's start or an
 *                init drops a tag made for the last message, and an init that encrypts a tag
 *                set for opening (one set before an init that stays in the decrypt direction
 *                stays: EVP users and evp_test set it before the init that gives the key and IV).
 * An init ends the message under way, whatever the direction (its IV is finished: a new one is
 * needed), and drops a pending TLS record; an IV given is buffered, ends "tlsivfixed"
 * management and clears "iv-generated"; an IV buffered and not yet used stays across an init
 * that gives none.
 * The IV (gcm_iv_state):
 *   IV_UNSET     no IV yet. Encrypting draws a random one (ivlen >= 12), as the default does.
 *   IV_BUFFERED  an IV is stored; the next message starts on it.
 *   IV_ACTIVE    a message is under way (AAD, then data, in any number of updates).
 *   IV_FINISHED  nothing more until a new IV. This is how an IV is never used twice under one
 *                key.
 * The tag (aead_tag_state, stream.h): TAG_EXPECTED from "tag" set for opening until the decrypt
 * final of the message it is for; TAG_MADE from an encrypt final until the next message or
 * init. "tag" is read only in TAG_MADE.
 * The message's bytes (gcm_phase), at most one kernel call per update:
 *   MSG_AAD      the AAD is queued in msg (aesfast_kernel.h's aesfast_gcm_msg) as zero-padded
 *                blocks, hashed only where it would overflow the queue;
 *   MSG_ONE      the first data update was one call (aesfast_kernel.h's
 *                aesfast_gcm_msg_crypt): the queued AAD, the data, the lengths block and E(J0),
 *                so that msg.tag is the message's tag if no more data comes (the final then only
 *                reads it), and msg's hash state is where a message that goes on resumes;
 *   MSG_STREAM   more data came: provider/stream.c's byte stream carries the message from msg's
 *                state on (partial blocks, lengths), and the final finishes its hash there.
 *   A final without data (MSG_AAD) is one call too, of no data.
 *
 * An IV-only re-init, the per-record path of TLS 1.3 and QUIC, copies the IV and nothing else:
 * the key schedule and the powers of H stay, and nothing is allocated.
 *
 * TLS 1.2 ("tlsaad", "tlsivfixed", "tlsivgen", "tlsivinv"): after "tlsaad" the next update or
 * EVP_Cipher call is one whole record, in place: explicit nonce (8) || payload || tag (16).
 * Sealing writes the nonce and the tag; opening checks the tag and, if it fails, wipes the
 * payload it decrypted before returning the error.
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include "aesfast.h"
#include "cipher.h"
#include "fork.h"
#include "stream.h"

#define GCM_IV_MAX 128            /* bytes, as the default provider allows */
#define GCM_IV_DEFAULT 12
#define GCM_TAG_MAX 16
/* SP 800-38D limits: 2^39 - 256 bits of plaintext, 2^64 - 1 bits of AAD. */
#define GCM_MAX_DATA ((((uint64_t)1) << 36) - 32)
#define GCM_MAX_AAD ((((uint64_t)1) << 61) - 1)
#define TLS_EXPLICIT_IV EVP_GCM_TLS_EXPLICIT_IV_LEN /* 8 */
#define TLS_FIXED_IV EVP_GCM_TLS_FIXED_IV_LEN       /* 4 */
#define TLS_TAG EVP_GCM_TLS_TAG_LEN                 /* 16 */
#define GCM_POWERS_ALL SIZE_MAX /* hash_init's table: any number of blocks */
/* A copy's iv_fork_gen where its original drew its invocation field: no process's fork
 * generation (those count up from 1), so the copy draws its own before it seals. */
#define GCM_GEN_COPY UINT64_MAX

/* The per-message path (an IV-only init, AAD, one data update, final, tag) is kept small: what
 * it does inline, and the rest out of line, so that its functions need few registers and no
 * stack frame. */
#define GCM_FAST static inline __attribute__((always_inline))
#define GCM_SLOW static __attribute__((noinline, cold))

typedef enum { IV_UNSET, IV_BUFFERED, IV_ACTIVE, IV_FINISHED } gcm_iv_state;
typedef enum { MSG_AAD, MSG_ONE, MSG_STREAM } gcm_phase;

/*
 * The context. Its bytes are of four kinds (gcm_clear, gcm_copy, gcm_wipe), so that a context
 * made, copied or freed per message moves and wipes what it holds, not its 2-3 KiB of room:
 *   state   from the start to st.pend, and from msg.acc to hkey: zeroed, copied and wiped whole;
 *   blocks  st.pend and msg.queue, side by side: whole blocks of AAD and ciphertext, which GCM
 *           hashes (public), copied as far as they hold blocks (npend, nqueue), never wiped;
 *   powers  hkey: copied and wiped as far as they were made (gcm_powers);
 *   keys    the expanded key after the context (cipher.h): zeroed, copied and wiped whole.
 */
typedef struct {
    aesfast_cipher_ctx base; /* first (cipher.h): the direction, "ivlen", where the key is */
    uint8_t h[AESFAST_BLOCK]; /* the hash key H = E_K(0^128), which hkey's powers are made from */
    size_t powers;           /* the most blocks one hash call may take on hkey: 0 (none made),
                              * AESFAST_HASH_FEW (hash_init_few's table) or GCM_POWERS_ALL */
    uint64_t datalen;        /* data bytes of the message so far */
    uint8_t iv[GCM_IV_MAX];
    uint8_t tag[GCM_TAG_MAX]; /* the tag set for opening */
    size_t taglen;           /* "taglen": of the last tag set or made; 0 before any */
    gcm_iv_state iv_state;
    gcm_phase phase;
    aead_tag_state tag_state;
    int iv_managed;          /* "tlsivfixed" set the IV: its last 8 bytes count the messages
                              * ("tlsivgen", "tlsivinv") */
    unsigned int iv_generated; /* "iv-generated": the IV, or its non-fixed part, came from the
                                * random generator */
    uint64_t iv_fork_gen;    /* a managed IV's random part: the fork generation (fork.h) it was
                              * drawn in; 0 if none was drawn (see gcm_fork_check) */
    uint8_t tls_aad[AESFAST_BLOCK]; /* the record's AAD, zero-padded to a block */
    size_t tls_aad_len;      /* 0, or 13 while a TLS record is pending */
    size_t tls_aad_pad;      /* "tlsaadpad": the tag length the record carries */
    uint64_t tls_enc_records;
    int st_used;             /* st has held a message since the last key (gcm_init wipes it) */
    aead_stream st;          /* MSG_STREAM: counter, hash state, partial blocks, lengths; its
                              * queue, pend, last */
    aesfast_gcm_msg msg;     /* J0, the queued AAD, the hash state, and the tag made; its queue,
                              * first, right after st.pend */
    _Alignas(AESFAST_CTX_ALIGN) aesfast_hash_key hkey; /* the tier's powers of H: 64-byte
                              * aligned, so that the 512-bit loop's loads of them split no cache
                              * line; made when a message first needs them (gcm_powers) */
} gcm_ctx;

#define GCM_BLOCKS_AT offsetof(gcm_ctx, st.pend)
#define GCM_STATE2_AT offsetof(gcm_ctx, msg.acc)
_Static_assert(offsetof(gcm_ctx, msg.queue) == GCM_BLOCKS_AT + sizeof(((gcm_ctx *)0)->st.pend)
                   && offsetof(aesfast_gcm_msg, queue) == 0
                   && offsetof(aesfast_gcm_msg, acc) == sizeof(((gcm_ctx *)0)->msg.queue),
               "st.pend, then msg.queue, then the rest of msg");

/* The bytes of hkey the powers made fill: [*lo, return value). */
static size_t gcm_powers_bytes(const gcm_ctx *c, size_t *lo)
{
    const aesfast_aead_kernel *f = &c->base.kernel->gcm;

    *lo = 0;
    if (c->powers == 0)
        return 0;
    if (c->powers == AESFAST_HASH_FEW && f->hash_init_few != NULL) {
        *lo = f->few_lo;
        return f->few_hi;
    }
    return sizeof(c->hkey);
}

/* A new context: its state and key zeroed; blocks and powers are not read before written. */
static void gcm_clear(aesfast_cipher_ctx *b)
{
    gcm_ctx *c = (gcm_ctx *)b;

    memset(c, 0, aesfast_opaque(GCM_BLOCKS_AT));
    memset((uint8_t *)c + GCM_STATE2_AT, 0,
           aesfast_opaque(offsetof(gcm_ctx, hkey) - GCM_STATE2_AT));
}

static void gcm_copy(aesfast_cipher_ctx *dst, const aesfast_cipher_ctx *src)
{
    gcm_ctx *d = (gcm_ctx *)dst;
    const gcm_ctx *s = (const gcm_ctx *)src;
    size_t lo, hi = gcm_powers_bytes(s, &lo);

    memcpy(d, s, aesfast_opaque(GCM_BLOCKS_AT));
    memcpy(d->st.pend, s->st.pend, s->st.npend * AESFAST_BLOCK);
    memcpy(d->msg.queue, s->msg.queue, s->msg.nqueue * AESFAST_BLOCK);
    memcpy((uint8_t *)d + GCM_STATE2_AT, (const uint8_t *)s + GCM_STATE2_AT,
           aesfast_opaque(offsetof(gcm_ctx, hkey) - GCM_STATE2_AT));
    memcpy(d->hkey.tbl + lo, s->hkey.tbl + lo, hi - lo);
    memcpy((uint8_t *)d + s->base.key_off, (const uint8_t *)s + s->base.key_off,
           s->base.size - s->base.key_off);
    /* Two copies of a "tlsivfixed" context would seal their next messages under the same
     * explicit nonces (the default provider's do): the copy draws a new invocation field
     * before its next seal, as a child of fork() does (gcm_fork_check). A message under way
     * goes on under its IV in both. */
    if (s->iv_managed && s->iv_fork_gen != 0)
        d->iv_fork_gen = GCM_GEN_COPY;
}

/* Before the free: everything secret (the key, H and its powers, the hash states, keystream,
 * tags) and all the state besides; the blocks are public. */
static void gcm_wipe(aesfast_cipher_ctx *b)
{
    gcm_ctx *c = (gcm_ctx *)b;
    size_t lo, hi = gcm_powers_bytes(c, &lo), key_off = b->key_off, size = b->size;

    aesfast_wipe(c->hkey.tbl + lo, hi - lo);
    aesfast_wipe((uint8_t *)c + key_off, size - key_off);
    aesfast_wipe((uint8_t *)c + GCM_STATE2_AT, offsetof(gcm_ctx, hkey) - GCM_STATE2_AT);
    aesfast_wipe(c, GCM_BLOCKS_AT);
}

/* ---- the message ------------------------------------------------------------------------ */

static inline const aesfast_key *gcm_key(const gcm_ctx *c)
{
    return aesfast_ctx_key(&c->base, 0);
}

static void store_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

/* The powers of H: a key makes H and what a short message needs, hash_init_few's table
 * (H^8..H^1: hash calls and one-call messages of at most AESFAST_HASH_FEW blocks in all, the
 * queued AAD, the data and the lengths block) where the tier has one; hash_init's whole table
 * waits for the first message or hash call that needs more, once per key. A program that keys a
 * context per short message so pays for 8 powers, not for the 32 of the 512-bit loop. (need is
 * a count of blocks: public.) Out of line, but not cold: a key runs it, and a program may key
 * per message. */
static __attribute__((noinline)) void gcm_powers_slow(gcm_ctx *c, size_t need)
{
    const aesfast_aead_kernel *f = &c->base.kernel->gcm;

    if (need <= AESFAST_HASH_FEW && f->hash_init_few != NULL) { /* none made yet */
        f->hash_init_few(&c->hkey, c->h);
        c->powers = AESFAST_HASH_FEW;
    } else {
        (c->powers == AESFAST_HASH_FEW && f->hash_init_rest != NULL ? f->hash_init_rest
                                                                    : f->hash_init)(&c->hkey,
                                                                                    c->h);
        c->powers = GCM_POWERS_ALL;
    }
}

/* Before a hash call of need blocks (or a one-call message of need blocks in all). */
GCM_FAST void gcm_powers(gcm_ctx *c, size_t need)
{
    if (need > c->powers)
        gcm_powers_slow(c, need);
}

/* The message is over: no more bytes under this IV. The stream's leftover keystream is wiped
 * (the one-call kernels leave none in memory); the rest of the message state (hash, queued
 * blocks) goes with the context or the next message. */
static void gcm_end(gcm_ctx *c)
{
    if (c->phase == MSG_STREAM)
        OPENSSL_cleanse(&c->st.ks, sizeof(c->st.ks));
    c->iv_state = IV_FINISHED;
}

/* The message under way, if any, is over. */
static void gcm_stop(gcm_ctx *c)
{
    if (c->iv_state == IV_ACTIVE)
        gcm_end(c);
}

/* A new IV is in c->iv (or is about to be): the message under way, if any, is over. */
static void gcm_new_iv(gcm_ctx *c)
{
    gcm_stop(c);
    c->iv_state = IV_BUFFERED;
}

/* The tag's transitions (see the top of this file). */
static void gcm_tag_set(gcm_ctx *c)
{
    c->tag_state = TAG_EXPECTED;
}

static void gcm_tag_made(gcm_ctx *c)
{
    c->taglen = GCM_TAG_MAX;
    c->tag_state = TAG_MADE; /* in msg.tag */
}

/* No tag: one made for the last message, and with expected_too one set for opening. */
static void gcm_tag_drop(gcm_ctx *c, int expected_too)
{
    if (expected_too || c->tag_state == TAG_MADE)
        c->tag_state = TAG_NONE;
}

/* The 64-bit big-endian invocation field at the end of a managed IV, plus one. */
static void gcm_advance_iv(gcm_ctx *c)
{
    for (size_t i = c->base.ivlen; i-- > c->base.ivlen - 8 && ++c->iv[i] == 0;)
        ;
}

/* dst[0..11] = a 12-byte IV, written with bytes 12..15 as they were (a longer "ivlen" set later
 * shows them, as the default provider's does) in one 16-byte store: the message's start then
 * reads the 16 bytes as J0 straight from the store buffer (a 12-byte copy is two stores, which a
 * 16-byte load waits behind until they are in the cache). */
static void gcm_store_iv12(uint8_t dst[GCM_IV_MAX], const uint8_t *iv)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t lo;
    uint32_t hi, rest;

    memcpy(&lo, iv, 8);
    memcpy(&hi, iv + 8, 4);
    memcpy(&rest, dst + 12, 4);
    u64x2 v = {lo, hi | (uint64_t)rest << 32};

    memcpy(dst, &v, sizeof(v));
#else
    memcpy(dst, iv, GCM_IV_DEFAULT);
#endif
}

/* J0 of an IV of another length than 12 bytes: GHASH(IV || 0-pad || [0]_64 || [len(IV)]_64).
 * Out of line: its buffer would give every message's start a large stack frame. */
__attribute__((noinline)) static void gcm_hash_iv(gcm_ctx *c, uint8_t j0[AESFAST_BLOCK])
{
    uint8_t blocks[GCM_IV_MAX + 2 * AESFAST_BLOCK] = {0};
    size_t ivlen = c->base.ivlen, n = (ivlen + AESFAST_BLOCK - 1) / AESFAST_BLOCK;

    memcpy(blocks, c->iv, ivlen);
    store_be64(blocks + n * AESFAST_BLOCK + 8, (uint64_t)ivlen * 8);
    memset(j0, 0, AESFAST_BLOCK);
    gcm_powers(c, n + 1);
    c->base.kernel->gcm.hash(&c->hkey, j0, blocks, n + 1);
    OPENSSL_cleanse(blocks, sizeof(blocks));
}

/* Starts a message on the stored IV: J0 (SP 800-38D, 7.1) and an empty hash state. With
 * advance, a managed IV then counts the message (see the top of this file). A message under way
 * must have been ended first (gcm_end). */
GCM_FAST void gcm_begin(gcm_ctx *c, int advance)
{
    aesfast_gcm_msg *m = &c->msg;
    const u64x2 zero = {0, 0};

    if (c->base.ivlen == GCM_IV_DEFAULT) { /* J0 = IV || 0^31 || 1 */
        u32x4 v;
        const uint8_t one[4] = {0, 0, 0, 1};

        memcpy(&v, c->iv, sizeof(v)); /* iv has 128 bytes: reading 16 is in bounds */
        memcpy((uint8_t *)&v + 12, one, 4); /* v[3]: clang takes no address of an element */
        memcpy(m->j0, &v, sizeof(v));
        m->flags = AESFAST_MSG_CTR_PUBLIC; /* J0 is the IV and 1 */
    } else {
        gcm_hash_iv(c, m->j0);
        m->flags = 0; /* J0 = GHASH(IV): no branch may follow it */
    }
    memcpy(m->acc, &zero, sizeof(zero));
    m->nqueue = 0;
    m->aadlen = 0;
    c->datalen = 0;
    c->phase = MSG_AAD;
    c->iv_state = IV_ACTIVE;
    gcm_tag_drop(c, 0);
    if (advance && c->iv_managed && c->base.ivlen >= TLS_EXPLICIT_IV)
        gcm_advance_iv(c);
}

/* dst = the n (1..15) bytes at src and zeros, written with one 16-byte store, which the kernel's
 * load of the block is then forwarded from (after narrower stores it would wait for them). */
GCM_FAST void store_padded(uint8_t dst[AESFAST_BLOCK], const uint8_t *src, size_t n)
{
    u64x2 v = {0, 0};

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t lo, hi = 0;
    uint32_t a, b;

    if (n >= 8) { /* the first 8 bytes, and the last n - 8 from the 8 that end at src + n */
        memcpy(&lo, src, 8);
        if (n > 8) {
            memcpy(&hi, src + n - 8, 8);
            hi >>= 8 * (16 - n);
        }
    } else if (n >= 4) { /* the first 4 and the last 4, overlapping */
        memcpy(&a, src, 4);
        memcpy(&b, src + n - 4, 4);
        lo = a | (uint64_t)b << 8 * (n - 4);
    } else {
        lo = src[0] | (uint64_t)src[n / 2] << 8 * (n / 2) | (uint64_t)src[n - 1] << 8 * (n - 1);
    }
    v[0] = lo;
    v[1] = hi;
#else
    memcpy(&v, src, n);
#endif
    memcpy(dst, &v, sizeof(v));
}

/* The first data update, or a final without data (len 0): one call (see MSG_ONE). */
GCM_FAST void gcm_msg(gcm_ctx *c, const uint8_t *in, uint8_t *out, size_t len)
{
    gcm_powers(c, c->msg.nqueue + (len + AESFAST_BLOCK - 1) / AESFAST_BLOCK + 1);
    aesfast_gcm_msg_crypt(c->base.kernel, c->base.enc, gcm_key(c), &c->hkey, &c->msg, in, out,
                          len);
}

/* A second data update: the stream takes the message over from msg's hash state (the only
 * hand-off between the two, stream.h), with the queued whole blocks, the partial block that
 * ends the queue, and the counter of the block after the last whole one. */
GCM_SLOW void gcm_to_stream(gcm_ctx *c)
{
    const aesfast_kernel *k = c->base.kernel;
    aesfast_gcm_msg *m = &c->msg;
    size_t partial = c->datalen % AESFAST_BLOCK, queued = m->nqueue - (partial != 0);
    uint8_t ctr[AESFAST_BLOCK];

    memcpy(ctr, m->j0, AESFAST_BLOCK);
    aesfast_ctr32_add(ctr, CTR32_BE_LAST, (uint32_t)(1 + c->datalen / AESFAST_BLOCK));
    gcm_powers(c, GCM_POWERS_ALL);
    aesfast_aead_resume(&c->st, k, &k->gcm, gcm_key(c), &c->hkey, m->acc, m->queue, queued,
                        m->queue + AESFAST_BLOCK * queued, partial, m->aadlen, c->datalen, ctr,
                        CTR32_BE_LAST, AEAD_QUEUE_MAX); /* every power made, just above */
    c->st.ctr_public = (m->flags & AESFAST_MSG_CTR_PUBLIC) != 0;
    c->phase = MSG_STREAM;
    c->st_used = 1;
}

/* msg.tag = the tag of a message that had no data (one call of none) or more than one data
 * update (the stream's hash finished); one with one data update has it made already. */
GCM_SLOW void gcm_tag_slow(gcm_ctx *c)
{
    const aesfast_kernel *k = c->base.kernel;
    uint8_t lens[AESFAST_BLOCK], ekj0[AESFAST_BLOCK];

    switch (c->phase) {
    case MSG_AAD:
        gcm_msg(c, NULL, NULL, 0);
        break;
    case MSG_ONE:
        break;
    case MSG_STREAM:
        aesfast_gcm_lengths(lens, c->st.aadlen, c->st.datalen);
        aesfast_aead_finish(&c->st, &k->gcm, &c->hkey, lens);
        k->encrypt_block(gcm_key(c), c->msg.j0, ekj0);
        for (int i = 0; i < GCM_TAG_MAX; i++)
            c->msg.tag[i] = c->st.acc[i] ^ ekj0[i];
        OPENSSL_cleanse(ekj0, sizeof(ekj0));
        break;
    }
}

/* AAD: queued in msg (zero-padded blocks, the last one filled up by more AAD), hashed into
 * msg.acc only where the queue would overflow. */
GCM_SLOW void gcm_aad_slow(gcm_ctx *c, const uint8_t *in, size_t len)
{
    const aesfast_kernel *k = c->base.kernel;
    aesfast_gcm_msg *m = &c->msg;
    size_t used = (size_t)(m->aadlen % AESFAST_BLOCK), whole, tail;

    m->aadlen += len;
    if (used != 0) { /* the last block queued is partial: fill it up first */
        size_t n = AESFAST_BLOCK - used < len ? AESFAST_BLOCK - used : len;

        memcpy(m->queue + AESFAST_BLOCK * (m->nqueue - 1) + used, in, n);
        in += n;
        len -= n;
    }
    whole = len / AESFAST_BLOCK;
    tail = len % AESFAST_BLOCK;
    if (m->nqueue + whole + (tail != 0) > AESFAST_GCM_QUEUE - 1) { /* the queue is full */
        gcm_powers(c, m->nqueue > whole ? m->nqueue : whole);
        k->gcm.hash(&c->hkey, m->acc, m->queue, m->nqueue);
        k->gcm.hash(&c->hkey, m->acc, in, whole);
        m->nqueue = 0;
        in += whole * AESFAST_BLOCK;
        whole = 0;
    }
    if (whole != 0) {
        memcpy(m->queue + AESFAST_BLOCK * m->nqueue, in, whole * AESFAST_BLOCK);
        m->nqueue += whole;
        in += whole * AESFAST_BLOCK;
    }
    if (tail != 0)
        store_padded(m->queue + AESFAST_BLOCK * m->nqueue++, in, tail);
}

/* The usual AAD, a record header of 1..15 bytes in one update, inline; the rest (EVP_Cipher
 * passes empty AAD too) out of line. */
GCM_FAST void gcm_aad(gcm_ctx *c, const uint8_t *in, size_t len)
{
    aesfast_gcm_msg *m = &c->msg;

    if (len - 1 < AESFAST_BLOCK - 1 && m->aadlen == 0) { /* 1..15 bytes, the first */
        m->aadlen = len;
        store_padded(m->queue, in, len);
        m->nqueue = 1;
    } else {
        gcm_aad_slow(c, in, len);
    }
}

/* A data update after the first: on the stream. */
GCM_SLOW void gcm_data_more(gcm_ctx *c, uint8_t *out, const uint8_t *in, size_t len)
{
    const aesfast_kernel *k = c->base.kernel;

    if (c->phase == MSG_ONE)
        gcm_to_stream(c);
    aesfast_aead_crypt(&c->st, k, &k->gcm, gcm_key(c), &c->hkey, in, out, len, c->base.enc);
}

/* Data: the first update in one call, later ones on the stream, a few whole blocks (bulk
 * updates of 16 to 112 bytes) inline. */
GCM_FAST void gcm_data(gcm_ctx *c, uint8_t *out, const uint8_t *in, size_t len)
{
    const aesfast_kernel *k = c->base.kernel;

    if (c->phase == MSG_AAD) {
        gcm_msg(c, in, out, len);
        c->phase = MSG_ONE;
    } else if (c->phase != MSG_STREAM
               || !aesfast_aead_crypt_few(&c->st, k, &k->gcm, gcm_key(c), &c->hkey, in, out,
                                          len, c->base.enc)) {
        gcm_data_more(c, out, in, len);
    }
    c->datalen += len;
}

/* n random bytes for an IV, from the library context the application loaded aesfast into. */
static int gcm_random(gcm_ctx *c, uint8_t *p, size_t n)
{
    if (RAND_bytes_ex(c->base.prov->libctx, p, n, 0) > 0) {
        c->iv_generated = 1;
        return 1;
    }
    AESFAST_RAISE(c->base.prov, AESFAST_R_RANDOM_FAILED, "%s: no random IV", c->base.name);
    return 0;
}

/* Fork safety, beyond the default provider: a child of fork() holds a copy of each context,
 * and a "tlsivfixed" context's next IVs are the same in both (the random part was drawn once;
 * the invocation field then counts). So where that part was drawn in another fork generation
 * than this process's, the 64-bit invocation field (the IV's last 8 bytes; every path here has
 * ivlen >= 8) is drawn again before a message starts on it (receivers read the explicit nonce
 * from the record) when sealing; opening never draws. A copy (gcm_copy) is treated as a child.
 * 1, or 0 with an error raised and the IV finished. */
GCM_SLOW int gcm_fork_redraw(gcm_ctx *c)
{
    uint64_t gen = aesfast_fork_generation(); /* before the draw: a fork after it redraws */
    const char *why = c->iv_fork_gen == GCM_GEN_COPY ? "copy" : "fork";

    if (!gcm_random(c, c->iv + c->base.ivlen - TLS_EXPLICIT_IV, TLS_EXPLICIT_IV)) {
        gcm_end(c);
        return 0;
    }
    c->iv_fork_gen = gen;
    aesfast_debug("%s: a %s: the invocation field drawn again", c->base.name, why);
    return 1;
}

GCM_FAST int gcm_fork_check(gcm_ctx *c)
{
    if (c->iv_fork_gen == 0 || c->iv_fork_gen == aesfast_fork_generation())
        return 1;
    return gcm_fork_redraw(c);
}

static int gcm_have_key(const gcm_ctx *c)
{
    if (c->base.key_set)
        return 1;
    AESFAST_RAISE(c->base.prov, AESFAST_R_NO_KEY_SET, "%s: set a key first", c->base.name);
    return 0;
}

/* gcm_ready's other cases, the errors or a random IV: 1 with an IV to start on, or 0 with the
 * error raised. */
GCM_SLOW int gcm_no_iv(gcm_ctx *c)
{
    if (!gcm_have_key(c))
        return 0;
    if (c->iv_state == IV_FINISHED) {
        AESFAST_RAISE(c->base.prov, AESFAST_R_IV_ALREADY_USED,
                      "%s: the message under this IV is finished: set a new IV", c->base.name);
        return 0;
    }
    /* IV_UNSET: a random IV, as the default provider draws when encrypting */
    if (!c->base.enc) {
        AESFAST_RAISE(c->base.prov, AESFAST_R_NO_IV_SET, "%s: set an IV before decrypting",
                      c->base.name);
        return 0;
    }
    if (c->base.ivlen < GCM_IV_DEFAULT) {
        AESFAST_RAISE(c->base.prov, AESFAST_R_INVALID_IV_LENGTH,
                      "%s: a random IV needs at least 12 bytes, ivlen is %zu", c->base.name,
                      c->base.ivlen);
        return 0;
    }
    return gcm_random(c, c->iv, c->base.ivlen);
}

/* Key and IV in place, the message started: 1, or 0 with an error raised. (A message under way
 * began with a key.) */
GCM_FAST int gcm_ready(gcm_ctx *c)
{
    if (c->iv_state == IV_ACTIVE)
        return 1;
    if ((c->iv_state != IV_BUFFERED || !c->base.key_set) && !gcm_no_iv(c))
        return 0;
    if (c->base.enc && !gcm_fork_check(c)) /* tlsivfixed after a fork: a new invocation field */
        return 0;
    gcm_begin(c, c->base.enc);
    return 1;
}

/* The errors of gcm_process, each decided where it is checked. */
typedef enum { REFUSE_AAD_AFTER_DATA, REFUSE_AAD_LENGTH, REFUSE_DATA_LENGTH } gcm_refusal;

GCM_SLOW int gcm_refuse_bytes(const gcm_ctx *c, gcm_refusal why)
{
    if (why == REFUSE_AAD_AFTER_DATA)
        AESFAST_RAISE(c->base.prov, AESFAST_R_AAD_AFTER_DATA, "%s: AAD after %llu bytes of data",
                      c->base.name, (unsigned long long)c->datalen);
    else
        AESFAST_RAISE(c->base.prov, AESFAST_R_MESSAGE_TOO_LONG, "%s: more than %s",
                      c->base.name, why == REFUSE_AAD_LENGTH ? "2^61 - 1 bytes of AAD"
                      : "2^36 - 32 bytes of data under one IV");
    return 0;
}

/* The valid tag of what was received, which an opening leaves nowhere. */
static void gcm_forget_tag(gcm_ctx *c)
{
    const u64x2 zero = {0, 0};

    memcpy(c->msg.tag, &zero, sizeof(zero));
}

GCM_FAST int gcm_do_final(gcm_ctx *c)
{
    int ok = 1;

    if (!gcm_ready(c))
        return 0;
    if (!aesfast_cipher_need_tag(&c->base, c->tag_state == TAG_EXPECTED,
                                 "expected tag before the final decrypt call"))
        return 0;
    if (c->phase != MSG_ONE)
        gcm_tag_slow(c);
    if (c->base.enc) {
        gcm_tag_made(c);
    } else {
        if (CRYPTO_memcmp(c->msg.tag, c->tag, c->taglen) != 0) {
            AESFAST_RAISE(c->base.prov, AESFAST_R_TAG_MISMATCH, "%s: tag verification failed",
                          c->base.name);
            ok = 0;
        }
        gcm_forget_tag(c);
        gcm_tag_drop(c, 1); /* used up by the message it was set for */
    }
    gcm_end(c);
    return ok;
}

/* ---- TLS 1.2 records -------------------------------------------------------------------- */

/* "tlsivgen": the next record's explicit nonce from the invocation counter (the IV's last 8
 * bytes, big-endian), which then advances. Starts the record's message. */
static int gcm_tls_iv_gen(gcm_ctx *c, uint8_t *out, size_t outlen)
{
    size_t ivlen = c->base.ivlen;

    if (!c->iv_managed || !c->base.key_set) {
        AESFAST_RAISE(c->base.prov, AESFAST_R_NO_IV_GEN,
                      "%s: set a key and \"tlsivfixed\" before \"tlsivgen\"", c->base.name);
        return 0;
    }
    if (ivlen < TLS_EXPLICIT_IV) { /* no 8-byte invocation field: every record's IV alike */
        AESFAST_RAISE(c->base.prov, AESFAST_R_INVALID_IV_LENGTH, "%s: \"tlsivgen\" needs an IV "
                      "of at least 8 bytes (its invocation counter), not %zu", c->base.name,
                      ivlen);
        return 0;
    }
    if (outlen == 0 || outlen > ivlen)
        outlen = ivlen;
    gcm_new_iv(c);
    if (!gcm_fork_check(c))
        return 0;
    memcpy(out, c->iv + ivlen - outlen, outlen);
    gcm_begin(c, 1); /* on the IV just returned, which then advances */
    return 1;
}

/* "tlsivinv": the record's explicit nonce as received (decryption only). */
static int gcm_tls_iv_inv(gcm_ctx *c, const uint8_t *in, size_t inlen)
{
    if (!c->iv_managed || !c->base.key_set || c->base.enc || inlen > c->base.ivlen) {
        AESFAST_RAISE(c->base.prov, AESFAST_R_NO_IV_GEN,
                      "%s: \"tlsivinv\" needs a key, \"tlsivfixed\", decryption, and at most "
                      "ivlen bytes", c->base.name);
        return 0;
    }
    gcm_new_iv(c);
    memcpy(c->iv + c->base.ivlen - inlen, in, inlen);
    gcm_begin(c, 0);
    return 1;
}

/* "tlsivfixed": the fixed (implicit) part of the IV; the rest is random when sealing. A length
 * of (size_t)-1 sets the whole IV. Either way the IV is managed from here on. */
static int gcm_tls_iv_fixed(gcm_ctx *c, const uint8_t *iv, size_t len)
{
    size_t ivlen = c->base.ivlen;
    uint64_t gen = 0; /* the fork generation of a drawn part (gcm_fork_check); 0: none drawn */

    if (len != (size_t)-1
        && (len < TLS_FIXED_IV || len > ivlen || ivlen - len < TLS_EXPLICIT_IV)) {
        AESFAST_RAISE(c->base.prov, AESFAST_R_INVALID_IV_LENGTH,
                      "%s: a fixed IV part of %zu bytes does not fit ivlen %zu", c->base.name,
                      len, ivlen);
        return 0;
    }
    gcm_new_iv(c);
    c->iv_generated = 0;
    if (len == (size_t)-1) {
        memcpy(c->iv, iv, ivlen);
    } else {
        memcpy(c->iv, iv, len);
        if (c->base.enc) {
            gen = aesfast_fork_generation(); /* before the draw: a fork after it redraws */
            if (!gcm_random(c, c->iv + len, ivlen - len)) {
                gcm_end(c); /* a fixed part with a stale rest: not an IV to use */
                return 0;
            }
        }
    }
    c->iv_managed = 1;
    c->iv_fork_gen = gen; /* a drawn part is drawn again in a child (gcm_fork_check) */
    return 1;
}

/* "tlsaad": the record header; its length field loses the nonce (and, opening, the tag). */
static int gcm_tls_aad(gcm_ctx *c, const uint8_t *aad, size_t len)
{
    if (len != EVP_AEAD_TLS1_AAD_LEN) {
        AESFAST_RAISE(c->base.prov, AESFAST_R_INVALID_TLS_AAD,
                      "%s: TLS AAD is 13 bytes, not %zu", c->base.name, len);
        return 0;
    }
    size_t rec = (size_t)aad[len - 2] << 8 | aad[len - 1];
    size_t overhead = TLS_EXPLICIT_IV + (c->base.enc ? 0 : TLS_TAG);
    if (rec < overhead) {
        AESFAST_RAISE(c->base.prov, AESFAST_R_INVALID_TLS_AAD,
                      "%s: TLS record length %zu is below the %zu bytes of nonce and tag",
                      c->base.name, rec, overhead);
        return 0;
    }
    rec -= overhead;
    memset(c->tls_aad, 0, sizeof(c->tls_aad));
    memcpy(c->tls_aad, aad, len);
    c->tls_aad[len - 2] = (uint8_t)(rec >> 8);
    c->tls_aad[len - 1] = (uint8_t)rec;
    c->tls_aad_len = len;
    c->tls_aad_pad = TLS_TAG;
    return 1;
}

/* One whole record in place, in one kernel call (its AAD queued first). *outl: the bytes
 * produced (sealing: all of it; opening: payload). */
static __attribute__((noinline)) int gcm_tls_record(gcm_ctx *c, uint8_t *out, const uint8_t *in, size_t len, size_t *outl)
{
    int enc = c->base.enc, ok = 0;

    *outl = 0;
    if (!gcm_have_key(c))
        goto done;
    if (out != in || len < TLS_EXPLICIT_IV + TLS_TAG) {
        AESFAST_RAISE(c->base.prov, AESFAST_R_TLS_RECORD,
                      "%s: a TLS record is processed in place and holds at least 24 bytes "
                      "(got %zu bytes, %s)", c->base.name, len,
                      out == in ? "in place" : "not in place");
        goto done;
    }
    if (enc && ++c->tls_enc_records == 0) {
        AESFAST_RAISE(c->base.prov, AESFAST_R_MESSAGE_TOO_LONG,
                      "%s: 2^64 records under one key", c->base.name);
        goto done;
    }
    if (!(enc ? gcm_tls_iv_gen(c, out, TLS_EXPLICIT_IV) : gcm_tls_iv_inv(c, in, TLS_EXPLICIT_IV)))
        goto done;

    size_t plen = len - TLS_EXPLICIT_IV - TLS_TAG;
    uint8_t *payload = out + TLS_EXPLICIT_IV, *rec_tag = payload + plen;
    memcpy(c->msg.queue, c->tls_aad, AESFAST_BLOCK);
    c->msg.nqueue = 1;
    c->msg.aadlen = c->tls_aad_len;
    gcm_msg(c, payload, payload, plen);
    if (enc) {
        memcpy(rec_tag, c->msg.tag, TLS_TAG);
        *outl = len;
        ok = 1;
    } else if (CRYPTO_memcmp(c->msg.tag, rec_tag, TLS_TAG) == 0) {
        *outl = plen;
        ok = 1;
    } else {
        OPENSSL_cleanse(payload, plen); /* no plaintext of a forged record leaves */
        AESFAST_RAISE(c->base.prov, AESFAST_R_TAG_MISMATCH, "%s: TLS record tag verification "
                      "failed", c->base.name);
    }
    if (!enc)
        gcm_forget_tag(c);
done:
    gcm_end(c);
    c->tls_aad_len = 0;
    return ok;
}

/* ---- the provider interface ------------------------------------------------------------- */

AESFAST_HOOK void gcm_init(aesfast_cipher_ctx *b, int new_key, const uint8_t *iv, size_t ivlen)
{
    gcm_ctx *c = (gcm_ctx *)b;

    c->tls_aad_len = 0;
    gcm_tag_drop(c, b->enc);
    if (new_key) { /* H now; its powers when a message needs them (gcm_powers) */
        const u64x2 zero = {0, 0};

        memcpy(c->h, &zero, sizeof(zero));
        b->kernel->encrypt_block(aesfast_ctx_key(b, 0), c->h, c->h);
        /* No power of the old key survives it: a context whose last key needed the whole table
         * (a message past AESFAST_HASH_FEW blocks) is likely to again, and gets it at once, over
         * the old one; else the few a short message needs, over the old few (so that a copy
         * made before the first message has them too). */
        size_t need = c->powers == GCM_POWERS_ALL ? GCM_POWERS_ALL : 1;

        c->powers = 0;
        gcm_powers_slow(c, need);
        c->tls_enc_records = 0;
        if (c->st_used) /* nor any hash state */
            aesfast_aead_wipe(&c->st);
        c->st_used = 0;
        aesfast_wipe(c->msg.acc, offsetof(aesfast_gcm_msg, nqueue)
                                     - offsetof(aesfast_gcm_msg, acc)); /* acc, J0, the tag */
    }
    /* Any init ends the message under way (see the top of this file): gcm_new_iv or gcm_stop. */
    if (iv == NULL) {
        gcm_stop(c);
        return;
    }
    if (ivlen == GCM_IV_DEFAULT) /* the per-record path */
        gcm_store_iv12(c->iv, iv);
    else
        memcpy(c->iv, iv, ivlen);
    b->ivlen = ivlen;
    gcm_new_iv(c);
    c->iv_managed = 0;
    c->iv_fork_gen = 0;
    c->iv_generated = 0;
}

/* update and EVP_Cipher: AAD when out is NULL, else data, in the message gcm_ready starts; a
 * pending TLS record comes first. */
GCM_FAST int gcm_process(gcm_ctx *c, unsigned char *out, size_t *outl, const unsigned char *in,
                         size_t inl)
{
    if (c->tls_aad_len != 0)
        return gcm_tls_record(c, out, in, inl, outl);
    if (!gcm_ready(c))
        return 0;
    if (out == NULL) {
        if (c->phase != MSG_AAD)
            return gcm_refuse_bytes(c, REFUSE_AAD_AFTER_DATA);
        if (inl > GCM_MAX_AAD - c->msg.aadlen)
            return gcm_refuse_bytes(c, REFUSE_AAD_LENGTH);
        gcm_aad(c, in, inl);
    } else {
        if (inl > GCM_MAX_DATA - c->datalen)
            return gcm_refuse_bytes(c, REFUSE_DATA_LENGTH);
        gcm_data(c, out, in, inl);
    }
    *outl = inl;
    return 1;
}

static int gcm_update(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                      const unsigned char *in, size_t inl)
{
    gcm_ctx *c = vctx;

    if (inl == 0) { /* as the default provider: nothing starts */
        *outl = 0;
        return 1;
    }
    return aesfast_cipher_buffers_ok(&c->base, 1, out, outsize, in, inl)
           && gcm_process(c, out, outl, in, inl);
}

static int gcm_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    gcm_ctx *c = vctx;

    (void)outsize;
    *outl = 0;
    if (c->tls_aad_len != 0) /* a record is one EVP_Cipher call, never a final */
        return gcm_tls_record(c, out, NULL, 0, outl);
    return gcm_do_final(c);
}

static int gcm_cipher(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                      const unsigned char *in, size_t inl)
{
    gcm_ctx *c = vctx;
    size_t done = 0;
    int ok;

    if (in == NULL) /* EVP_Cipher(ctx, out, NULL, 0) is the final */
        ok = gcm_final(c, out, &done, outsize);
    else
        ok = aesfast_cipher_buffers_ok(&c->base, 1, out, outsize, in, inl)
             && gcm_process(c, out, &done, in, inl);
    if (!ok)
        return 0;
    *outl = inl; /* as the default provider reports it */
    return 1;
}

/* ---- parameters ------------------------------------------------------------------------- */

/* Returns an IV parameter (octet string, or octet pointer into the context as the default does).
 * With no IV yet, OpenSSL 4's default provider draws the random IV that encrypting would draw,
 * so that the application can learn it before the data (3.x's refuses): under a libcrypto of
 * that major version aesfast does the same. The IV is then buffered for the next message, as
 * one given by the application would be. */
static aesfast_param_result gcm_get_iv(gcm_ctx *c, OSSL_PARAM *p)
{
    if (c->iv_state == IV_UNSET && c->base.prov->libcrypto_major >= 4 && c->base.enc
        && c->base.ivlen >= GCM_IV_DEFAULT && c->tls_aad_len == 0) {
        if (!gcm_random(c, c->iv, c->base.ivlen))
            return AESFAST_PARAM_FAILED;
        gcm_new_iv(c);
    }
    if (c->iv_state == IV_UNSET) {
        AESFAST_RAISE(c->base.prov, AESFAST_R_NO_IV_SET, "%s: no IV to return in \"%s\"",
                      c->base.name, p->key);
        return AESFAST_PARAM_FAILED;
    }
    if (c->base.ivlen > p->data_size) {
        AESFAST_RAISE(c->base.prov, AESFAST_R_INVALID_IV_LENGTH,
                      "%s: \"%s\" has room for %zu bytes, the IV has %zu", c->base.name, p->key,
                      p->data_size, c->base.ivlen);
        return AESFAST_PARAM_FAILED;
    }
    return aesfast_param_set_iv(p, c->iv, c->base.ivlen);
}

AESFAST_HOOK aesfast_param_result gcm_get(aesfast_cipher_ctx *b, OSSL_PARAM *p, aesfast_param id)
{
    gcm_ctx *c = (gcm_ctx *)b;
    int ok;

    switch (id) {
    case AESFAST_P_TAG:
        if (p->data_size == 0 || p->data_size > GCM_TAG_MAX || c->tag_state != TAG_MADE) {
            AESFAST_RAISE(b->prov, AESFAST_R_INVALID_TAG,
                          "%s: the tag (1..16 bytes, asked %zu) is read after the final "
                          "encrypt call", b->name, p->data_size);
            return AESFAST_PARAM_FAILED;
        }
        ok = aesfast_param_set_octets(p, c->msg.tag, p->data_size);
        break;
    case AESFAST_P_TAGLEN:
        ok = OSSL_PARAM_set_size_t(p, c->taglen != 0 ? c->taglen : GCM_TAG_MAX);
        break;
    case AESFAST_P_IV:
    case AESFAST_P_UPDATED_IV:
        return gcm_get_iv(c, p);
    case AESFAST_P_TLS_AAD_PAD:
        ok = OSSL_PARAM_set_size_t(p, c->tls_aad_pad);
        break;
    case AESFAST_P_TLS_IV_GEN:
        if (p->data == NULL || p->data_type != OSSL_PARAM_OCTET_STRING) {
            AESFAST_RAISE(b->prov, AESFAST_R_BAD_PARAMETER_VALUE,
                          "%s: \"%s\" needs an octet string buffer", b->name, p->key);
            return AESFAST_PARAM_FAILED;
        }
        return gcm_tls_iv_gen(c, p->data, p->data_size) ? AESFAST_PARAM_OK : AESFAST_PARAM_FAILED;
    case AESFAST_P_IV_GENERATED:
        ok = OSSL_PARAM_set_uint(p, c->iv_generated);
        break;
    default:
        return AESFAST_PARAM_NOT_MINE;
    }
    return ok ? AESFAST_PARAM_OK : AESFAST_PARAM_WRONG_TYPE;
}

/* An octet-string parameter's bytes, or 0 with an error. */
static int octets(const gcm_ctx *c, const OSSL_PARAM *p)
{
    if (p->data_type == OSSL_PARAM_OCTET_STRING && p->data != NULL)
        return 1;
    AESFAST_RAISE(c->base.prov, AESFAST_R_BAD_PARAMETER_VALUE, "%s: \"%s\" must be an octet "
                  "string", c->base.name, p->key);
    return 0;
}

GCM_FAST int gcm_set_tag(gcm_ctx *c, const OSSL_PARAM *p)
{
    uint8_t tag[GCM_TAG_MAX];
    size_t sz = 0;

    if (!aesfast_param_get_octets(p, tag, sizeof(tag), &sz)) {
        AESFAST_RAISE(c->base.prov, AESFAST_R_INVALID_TAG_LENGTH,
                      "%s: the tag is an octet string of 1..16 bytes (given %zu)", c->base.name,
                      p->data_size);
        return 0;
    }
    if (sz == 0 || c->base.enc) {
        AESFAST_RAISE(c->base.prov, AESFAST_R_INVALID_TAG,
                      sz == 0 ? "%s: an empty tag" : "%s: a tag is set only to decrypt",
                      c->base.name);
        return 0;
    }
    aesfast_copy_tag(c->tag, tag, sz);
    c->taglen = sz;
    gcm_tag_set(c);
    return 1;
}

static int gcm_set_ivlen(gcm_ctx *c, size_t sz)
{
    if (sz == 0 || sz > GCM_IV_MAX) {
        AESFAST_RAISE(c->base.prov, AESFAST_R_INVALID_IV_LENGTH,
                      "%s takes a 1..128-byte IV, not %zu bytes", c->base.name, sz);
        return 0;
    }
    if (sz != c->base.ivlen) {
        if (c->iv_state != IV_UNSET) /* the IV given is no longer valid */
            gcm_end(c);
        c->base.ivlen = sz;
    }
    return 1;
}

/* Settable, as in the default provider: "ivlen", "tag", "tlsaad", "tlsivfixed", "tlsivinv". */
AESFAST_HOOK aesfast_param_result gcm_set(aesfast_cipher_ctx *b, const OSSL_PARAM *p,
                                         aesfast_param id)
{
    gcm_ctx *c = (gcm_ctx *)b;
    size_t sz;
    int ok;

    switch (id) {
    case AESFAST_P_TAG:
        ok = gcm_set_tag(c, p);
        break;
    case AESFAST_P_IVLEN:
        if (!OSSL_PARAM_get_size_t(p, &sz))
            return AESFAST_PARAM_WRONG_TYPE;
        ok = gcm_set_ivlen(c, sz);
        break;
    case AESFAST_P_TLS_AAD:
        ok = octets(c, p) && gcm_tls_aad(c, p->data, p->data_size);
        break;
    case AESFAST_P_TLS_IV_FIXED:
        ok = octets(c, p) && gcm_tls_iv_fixed(c, p->data, p->data_size);
        break;
    case AESFAST_P_TLS_IV_INV:
        ok = octets(c, p) && gcm_tls_iv_inv(c, p->data, p->data_size);
        break;
    default:
        return AESFAST_PARAM_NOT_MINE;
    }
    return ok ? AESFAST_PARAM_OK : AESFAST_PARAM_FAILED;
}

static const OSSL_PARAM gcm_gettable[] = {
    AESFAST_GETTABLE_LENGTHS,
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, NULL, 0),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_AEAD_IV_GENERATED, NULL),
    OSSL_PARAM_END,
};

static const OSSL_PARAM gcm_settable[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, NULL, 0),
    OSSL_PARAM_END,
};

AESFAST_CIPHER(gcm, gcm_ctx, "GCM", EVP_CIPH_GCM_MODE, 1, GCM_IV_DEFAULT, 1, GCM_IV_MAX, 1,
               .clear = gcm_clear, .copy = gcm_copy, .wipe = gcm_wipe);
