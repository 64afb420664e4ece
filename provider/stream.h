/*
 * The byte-stream layer over the whole-block kernels, shared by every mode: the leftover keystream
 * of a partial block (CTR, GCM, GCM-SIV) and, for the AEAD modes, the hash of AAD and data in
 * updates of any length (aead_stream).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * Kernels only see whole blocks and never keep state (kernels/aesfast_kernel.h). Everything that
 * depends on where a previous update stopped lives here, in one place:
 *
 *   keystream   ks[16] and num: the keystream block of the current partial block and how many of
 *               its bytes are used. The next update first spends the rest (ks_spend), then runs
 *               the kernel over whole blocks, then makes one new keystream block for a tail.
 *   aead_stream the counter block of the next keystream block, the hash state acc, the bytes of
 *               the current partial block still to be hashed (part, npart: the AAD's while
 *               in_data is 0, then the data's), and the AAD and data lengths. AAD comes first, in
 *               any number of pieces; the first data byte pads the AAD's last partial block with
 *               zeros, as GHASH and POLYVAL do.
 *
 * A stream starts with aesfast_aead_begin, or, for GCM, from the one-call kernels' state
 * (aesfast_kernel.h's aesfast_gcm_msg) through aesfast_aead_resume: that hand-off, in
 * provider/gcm.c's gcm_to_stream, is the only place where the two representations of a message
 * meet.
 */
#ifndef AESFAST_STREAM_H
#define AESFAST_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "aesfast_kernel.h"

/* Keystream of a partial block. num is 0..15; 0 means no leftover. */
typedef struct keystream {
    uint8_t ks[AESFAST_BLOCK];
    unsigned int num;
} keystream;

/* XORs up to len bytes of the leftover keystream into out; returns how many it used. */
static inline size_t ks_spend(keystream *k, const uint8_t *in, uint8_t *out, size_t len)
{
    size_t used = 0;

    while (k->num != 0 && used < len) {
        out[used] = in[used] ^ k->ks[k->num];
        used++;
        k->num = (k->num + 1) % AESFAST_BLOCK;
    }
    return used;
}

/* A tail of len (1..15) bytes: ks = AES(ctr), out = in ^ ks, and the rest of ks stays for later. */
static inline void ks_tail(keystream *k, const aesfast_kernel *kern, const aesfast_key *key,
                           const uint8_t ctr[AESFAST_BLOCK], const uint8_t *in, uint8_t *out,
                           size_t len)
{
    kern->encrypt_block(key, ctr, k->ks);
    for (size_t i = 0; i < len; i++)
        out[i] = in[i] ^ k->ks[i];
    k->num = (unsigned int)len;
}

/* An AEAD message's tag, as far as the context holds one. */
typedef enum {
    TAG_NONE,     /* none: nothing to check, nothing to read */
    TAG_EXPECTED, /* opening: the tag to check, set by the application */
    TAG_MADE,     /* sealing: the tag of the message just finished, for the application to read */
} aead_tag_state;

/* Whole blocks that wait to be hashed together: small updates' AAD and data, and a message's
 * last blocks with its lengths block, go to the kernel in one call, so their multiplications by
 * H^n .. H^1 run side by side and share one reduction, instead of one dependent multiplication
 * and one call per block. Two numbers, apart:
 *   AEAD_STITCH_MIN  the threshold: a run of at least this many whole blocks goes straight to
 *                    the kernels (the stitched ones for data); a shorter one is queued.
 *   AEAD_QUEUE_FEW   the queue's capacity (qmax) in a stream begun with aesfast_aead_begin:
 *                    a flush then hashes at most this many blocks, and hash_init_few's table
 *                    is enough for every hash call of a message whose runs are all queued
 *                    (GCM-SIV builds the whole table only for a message that needs it).
 *   AEAD_QUEUE_MAX   the capacity where the hash key has all its powers (GCM's, from
 *                    hash_init; aesfast_aead_resume): a 64-byte update then pays an eighth of a
 *                    hash call, not half of one. */
#define AEAD_STITCH_MIN AESFAST_HASH_FEW
#define AEAD_QUEUE_FEW AESFAST_HASH_FEW
#define AEAD_QUEUE_MAX AESFAST_GCM_QUEUE
_Static_assert(AEAD_STITCH_MIN - 1 <= AEAD_QUEUE_FEW && AEAD_QUEUE_FEW <= AESFAST_HASH_FEW,
               "a queued run fits an empty queue, and a flush is no more than hash_init_few's");

typedef struct aead_stream {
    uint8_t ctr[AESFAST_BLOCK];  /* counter block of the next keystream block */
    uint8_t acc[AESFAST_BLOCK];  /* hash state, in the field's byte order */
    uint8_t part[AESFAST_BLOCK]; /* the current partial block to be hashed: the AAD's while
                                  * in_data is 0, then the data's */
    unsigned int npart;          /* its bytes, 0..15 */
    keystream ks;                /* the data's partial block's keystream: ks.num == npart when
                                  * aesfast_aead_crypt made it, else 0 (AAD, hash_only) */
    unsigned int npend;          /* blocks in pend */
    unsigned int qmax;           /* blocks pend takes before it is hashed: AEAD_QUEUE_FEW, or up
                                  * to AEAD_QUEUE_MAX (aesfast_aead_resume) */
    int in_data;                 /* 0 while AAD may still come: the owner of part */
    uint64_t aadlen, datalen;    /* bytes so far */
    ctr32_format fmt;
    int ctr_public;              /* the counter is public (GCM's J0 from a 12-byte IV): the
                                  * stitched kernels' _pub forms may take it (aesfast_aead_begin
                                  * says 0; GCM sets it after aesfast_aead_resume) */
    /* Last, so that aesfast_aead_copy moves only the blocks in it. */
    _Alignas(AESFAST_BLOCK) uint8_t pend[AEAD_QUEUE_MAX * AESFAST_BLOCK]; /* whole blocks not
                                                                          * yet hashed into acc */
} aead_stream;

/* A new message: acc = 0, nothing buffered, the first keystream block from ctr; the queue
 * hashed every AEAD_QUEUE_FEW blocks. */
void aesfast_aead_begin(aead_stream *s, const uint8_t ctr[AESFAST_BLOCK], ctr32_format fmt);

/* A message taken over in its data, after an update that a one-call kernel did (GCM; the only
 * such hand-off, see the top of this file): the hash state acc, then nblocks whole blocks still
 * to hash, the AAD and data lengths so far, and ctr for the block after the last whole one. The
 * data's partial block, npart (0..15) bytes at part, gets its keystream made again from ctr
 * (the one-call kernels keep none), and ctr moves past it. The queue is hashed every qmax
 * (AEAD_QUEUE_FEW..AEAD_QUEUE_MAX) blocks: more than AEAD_QUEUE_FEW only for a hash key with
 * all its powers. */
void aesfast_aead_resume(aead_stream *s, const aesfast_kernel *kern, const aesfast_aead_kernel *f,
                         const aesfast_key *key, const aesfast_hash_key *hkey,
                         const uint8_t acc[AESFAST_BLOCK], const uint8_t *blocks, size_t nblocks,
                         const uint8_t *part, size_t npart, uint64_t aadlen, uint64_t datalen,
                         const uint8_t ctr[AESFAST_BLOCK], ctr32_format fmt, unsigned int qmax);

/* 0 if aesfast_aead_aad(s, ..., len) would only queue its blocks and call no hash kernel. */
int aesfast_aead_aad_hashes(const aead_stream *s, size_t len);

/* If no AAD has been hashed yet and no data has come: the AAD queued, as *nblocks whole blocks
 * (the last zero-padded) at the pointer returned; else NULL. The stream stays as it was. */
const uint8_t *aesfast_aead_queued_aad(aead_stream *s, size_t *nblocks);

/* AAD bytes (only before the data: the caller checks in_data). */
void aesfast_aead_aad(aead_stream *s, const aesfast_aead_kernel *f, const aesfast_hash_key *hkey,
                      const uint8_t *in, size_t len);

/* Data bytes: out = in ^ keystream, hashing the output (hash_out = 1: GCM seal, GCM-SIV open)
 * or the input (hash_out = 0: GCM open). in == out is allowed. */
void aesfast_aead_crypt(aead_stream *s, const aesfast_kernel *kern, const aesfast_aead_kernel *f,
                        const aesfast_key *key, const aesfast_hash_key *hkey, const uint8_t *in,
                        uint8_t *out, size_t len, int hash_out);

/* Data bytes that are hashed but not encrypted here: GCM-SIV's seal, whose counter is the tag,
 * so it hashes the whole message first and encrypts it in a second pass. Call once per message
 * (the tail is kept for aesfast_aead_finish). */
void aesfast_aead_hash_only(aead_stream *s, const aesfast_aead_kernel *f,
                            const aesfast_hash_key *hkey, const uint8_t *in, size_t len);

/* Hashes what is buffered (zero-padded) and the lengths block; acc is then the final hash.
 * lens is the mode's lengths block (GCM: bit lengths, big-endian; POLYVAL: little-endian). */
void aesfast_aead_finish(aead_stream *s, const aesfast_aead_kernel *f, const aesfast_hash_key *hkey,
                         const uint8_t lens[AESFAST_BLOCK]);

/* Hashes the queued blocks into acc (when the queue is full). */
void aesfast_aead_flush(aead_stream *s, const aesfast_aead_kernel *f, const aesfast_hash_key *hkey);

/* to = n (< AEAD_STITCH_MIN) whole blocks from blocks, block by block: a memcpy of n * 16 bytes
 * becomes rep movs, whose start-up took a 16-byte update longer than the rest of its work. */
static inline void aesfast_copy_few_blocks(uint8_t *to, const uint8_t *blocks, size_t n)
{
    switch (n) {
    case 7: memcpy(to + 6 * AESFAST_BLOCK, blocks + 6 * AESFAST_BLOCK, AESFAST_BLOCK); /* fall through */
    case 6: memcpy(to + 5 * AESFAST_BLOCK, blocks + 5 * AESFAST_BLOCK, AESFAST_BLOCK); /* fall through */
    case 5: memcpy(to + 4 * AESFAST_BLOCK, blocks + 4 * AESFAST_BLOCK, AESFAST_BLOCK); /* fall through */
    case 4: memcpy(to + 3 * AESFAST_BLOCK, blocks + 3 * AESFAST_BLOCK, AESFAST_BLOCK); /* fall through */
    case 3: memcpy(to + 2 * AESFAST_BLOCK, blocks + 2 * AESFAST_BLOCK, AESFAST_BLOCK); /* fall through */
    case 2: memcpy(to + AESFAST_BLOCK, blocks + AESFAST_BLOCK, AESFAST_BLOCK); /* fall through */
    case 1: memcpy(to, blocks, AESFAST_BLOCK); /* fall through */
    case 0: break;
    default: memcpy(to, blocks, n * AESFAST_BLOCK); /* not reached: n < AEAD_STITCH_MIN */
    }
}

/* n (1..AEAD_STITCH_MIN - 1) whole blocks at a block boundary of the data (no partial block
 * before them): the counter kernel, the blocks to hash into the queue, the counter advanced.
 * A single block's keystream is made in its queue slot, which then takes the block to hash: no
 * keystream is left in memory, and the block costs one kernel call. */
static inline void aesfast_aead_crypt_blocks(aead_stream *s, const aesfast_kernel *kern,
                                             const aesfast_aead_kernel *f, const aesfast_key *key,
                                             const aesfast_hash_key *hkey, const uint8_t *in,
                                             uint8_t *out, size_t n, int hash_out)
{
    uint8_t *slot;

    if (s->npend + n > s->qmax)
        aesfast_aead_flush(s, f, hkey);
    slot = s->pend + s->npend * AESFAST_BLOCK;
    if (n == 1) {
        u64x2 x, y;

        kern->encrypt_block(key, s->ctr, slot);
        memcpy(&x, in, sizeof(x)); /* before out (maybe == in) is written */
        memcpy(&y, slot, sizeof(y));
        y ^= x;
        memcpy(out, &y, sizeof(y));
        memcpy(slot, hash_out ? &y : &x, sizeof(y));
    } else {
        if (!hash_out)
            aesfast_copy_few_blocks(slot, in, n); /* a copy: out may be in */
        f->ctr(key, s->ctr, in, out, n);
        if (hash_out)
            aesfast_copy_few_blocks(slot, out, n);
    }
    s->npend += (unsigned int)n;
    aesfast_ctr32_add(s->ctr, s->fmt, (uint32_t)n);
}

/* aesfast_aead_crypt's usual small update, for the caller to inline: 1..AEAD_STITCH_MIN - 1 whole
 * blocks in the data with no partial block before them. 0 (nothing done) for any other. */
static inline int aesfast_aead_crypt_few(aead_stream *s, const aesfast_kernel *kern,
                                         const aesfast_aead_kernel *f, const aesfast_key *key,
                                         const aesfast_hash_key *hkey, const uint8_t *in,
                                         uint8_t *out, size_t len, int hash_out)
{
    size_t n = len / AESFAST_BLOCK;

    if (len % AESFAST_BLOCK != 0 || n - 1 >= AEAD_STITCH_MIN - 1 || s->npart != 0 || !s->in_data)
        return 0;
    aesfast_aead_crypt_blocks(s, kern, f, key, hkey, in, out, n, hash_out);
    s->datalen += len;
    return 1;
}

/* dst = src, the queue's blocks in use only (a struct copy would move all its room, with rep
 * movs: GCM-SIV saves the stream after the AAD in every message). */
void aesfast_aead_copy(aead_stream *dst, const aead_stream *src);

/* Wipes the stream (keystream, buffered bytes, hash state). */
void aesfast_aead_wipe(aead_stream *s);

/* Wipes what a finished message left of its data: the queue's room (GCM-SIV hashes the
 * plaintext, so its blocks are queued), the partial block and its keystream. */
void aesfast_aead_wipe_data(aead_stream *s);

#endif /* AESFAST_STREAM_H */
