/*
 * GCM's message in one call (aesfast_kernel.h: gcm_seal_msg, gcm_open_msg) composed from a
 * tier's other kernels, for every tier without an assembly one (generic, armv8, aesni,
 * vaes-avx2). A message short enough for the end of a message (gcm_groups) is that end alone;
 * a longer one first hashes its queue and runs its other whole blocks through the tier's
 * stitched kernel. The end is the tier's assembly (gcm_seal_last, gcm_open_last: the last
 * blocks, the lengths block and E(J0) with one reduction) or, where it has none, gcm_end_c.
 * And GCM-SIV's per-nonce keys where the tier has no kernel for them (aesfast_gcmsiv_derive).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <string.h>

#include "aesfast_kernel.h"

/* aesfast_gcm_last_fn's contract in C: the data's whole blocks from one counter call, queued
 * (the input, before an in-place output overwrites it, when opening); the partial block and
 * E(J0) single blocks; the queue and the lengths block (in the queue's spare block) one hash
 * call from a copy of acc. */
static __attribute__((noinline)) void gcm_end_c(const aesfast_kernel *k, int seal,
                                                 const aesfast_key *key,
                                                 const aesfast_hash_key *hkey,
                                                 aesfast_gcm_msg *msg, const uint8_t *in,
                                                 uint8_t *out, size_t len, size_t done)
{
    size_t whole = len / AESFAST_BLOCK, partial = len % AESFAST_BLOCK;
    uint8_t ctr[AESFAST_BLOCK], acc[AESFAST_BLOCK], ks[AESFAST_BLOCK];

    memcpy(ctr, msg->j0, AESFAST_BLOCK);
    aesfast_ctr32_add(ctr, CTR32_BE_LAST, (uint32_t)(1 + done));
    if (whole != 0) { /* (in and out are NULL for a final without data) */
        uint8_t *q = msg->queue + AESFAST_BLOCK * msg->nqueue;

        if (!seal)
            memcpy(q, in, whole * AESFAST_BLOCK);
        k->gcm.ctr(key, ctr, in, out, whole);
        if (seal)
            memcpy(q, out, whole * AESFAST_BLOCK);
        msg->nqueue += whole;
        aesfast_ctr32_add(ctr, CTR32_BE_LAST, (uint32_t)whole);
        in += whole * AESFAST_BLOCK;
        out += whole * AESFAST_BLOCK;
    }
    if (partial != 0) { /* the last block, zero-padded, stays queued */
        uint8_t *blk = msg->queue + AESFAST_BLOCK * msg->nqueue++;

        k->encrypt_block(key, ctr, ks);
        memset(blk, 0, AESFAST_BLOCK);
        for (size_t i = 0; i < partial; i++) {
            uint8_t x = in[i];

            out[i] = x ^ ks[i];
            blk[i] = seal ? out[i] : x;
        }
    }
    memcpy(acc, msg->acc, AESFAST_BLOCK);
    aesfast_gcm_lengths(msg->queue + AESFAST_BLOCK * msg->nqueue, msg->aadlen,
                        AESFAST_BLOCK * done + len);
    k->gcm.hash(hkey, acc, msg->queue, msg->nqueue + 1);
    k->encrypt_block(key, msg->j0, ks);
    for (int i = 0; i < AESFAST_BLOCK; i++)
        msg->tag[i] = acc[i] ^ ks[i];
    aesfast_wipe(ks, sizeof(ks));
    aesfast_wipe(acc, sizeof(acc));
}

/* The end of a message: the tier's, or gcm_end_c (out of line: the C tiers' path). */
static inline __attribute__((always_inline)) void
gcm_end(const aesfast_kernel *k, int seal, const aesfast_key *key, const aesfast_hash_key *hkey,
        aesfast_gcm_msg *msg, const uint8_t *in, uint8_t *out, size_t len, size_t done)
{
    aesfast_gcm_last_fn *last = seal ? k->gcm_seal_last : k->gcm_open_last;

    if (last != NULL)
        last(key, hkey, msg, in, out, len, done);
    else
        gcm_end_c(k, seal, key, hkey, msg, in, out, len, done);
}

static inline __attribute__((always_inline)) void
gcm_composed(const aesfast_kernel *k, int seal, const aesfast_key *key,
             const aesfast_hash_key *hkey, aesfast_gcm_msg *msg, const uint8_t *in, uint8_t *out,
             size_t len)
{
    const aesfast_gcm_groups *g = &k->gcm_groups;
    size_t whole = len / AESFAST_BLOCK, blocks = (len + AESFAST_BLOCK - 1) / AESFAST_BLOCK;
    size_t tail, done;
    uint8_t ctr[AESFAST_BLOCK];

    if (blocks <= g->lanes && msg->nqueue + blocks + 1 <= g->blocks) {
        gcm_end(k, seal, key, hkey, msg, in, out, len, 0);
        return;
    }
    if (msg->nqueue != 0) {
        k->gcm.hash(hkey, msg->acc, msg->queue, msg->nqueue);
        msg->nqueue = 0;
    }
    tail = whole & (size_t)(g->group - 1); /* a power of two: no division per message */
    if (tail + (blocks - whole) > g->lanes)
        tail -= g->group >> 1;
    done = whole - tail;
    if (done != 0) { /* from J0 + 1 */
        memcpy(ctr, msg->j0, AESFAST_BLOCK);
        aesfast_ctr32_add(ctr, CTR32_BE_LAST, 1);
        aesfast_gcm_stitched(&k->gcm, seal, (msg->flags & AESFAST_MSG_CTR_PUBLIC) != 0)(
            key, hkey, msg->acc, ctr, in, out, done);
        in += AESFAST_BLOCK * done;
        out += AESFAST_BLOCK * done;
    }
    gcm_end(k, seal, key, hkey, msg, in, out, len - AESFAST_BLOCK * done, done);
}

void aesfast_gcm_seal_composed(const aesfast_key *key, const aesfast_hash_key *hkey,
                               aesfast_gcm_msg *msg, const uint8_t *in, uint8_t *out, size_t len,
                               const aesfast_kernel *k)
{
    gcm_composed(k, 1, key, hkey, msg, in, out, len);
}

void aesfast_gcm_open_composed(const aesfast_key *key, const aesfast_hash_key *hkey,
                               aesfast_gcm_msg *msg, const uint8_t *in, uint8_t *out, size_t len,
                               const aesfast_kernel *k)
{
    gcm_composed(k, 0, key, hkey, msg, in, out, len);
}

void aesfast_gcmsiv_derive(const aesfast_kernel *k, const aesfast_key *key,
                           const uint8_t nonce[12], aesfast_key *enc_key, uint8_t auth[16])
{
    static const uint8_t zero[6 * AESFAST_BLOCK];
    uint8_t ctr[AESFAST_BLOCK] = {0};
    struct {
        uint8_t ks[6 * AESFAST_BLOCK], enc[40]; /* enc: AES-192's 24 bytes + 16 */
    } t; /* the derived secrets, wiped together */
    size_t keylen = 4 * ((size_t)key->rounds - 6), nblocks = 2 + keylen / 8;

    if (k->gcmsiv_derive != NULL) {
        k->gcmsiv_derive(key, nonce, enc_key, auth);
        return;
    }
    /* AES_K(LE32(j) || nonce), j = 0 .. nblocks - 1, are GCM-SIV's counter blocks from
     * (0 || nonce): one call of the counter kernel; the first 8 bytes of each are kept, two
     * halves of the authentication key, then the encryption key, which set_key expands. */
    memcpy(ctr + 4, nonce, 12);
    k->gcmsiv.ctr(key, ctr, zero, t.ks, nblocks);
    /* Two halves at a time, each key block written whole: the kernels' 16-byte loads of it are
     * then forwarded from one store, where two 8-byte stores would make them wait. */
    for (size_t j = 0; j < nblocks; j += 2) {
        u64x2 v;
        uint64_t lo, hi = 0;

        memcpy(&lo, t.ks + AESFAST_BLOCK * j, 8);
        if (j + 1 < nblocks)
            memcpy(&hi, t.ks + AESFAST_BLOCK * (j + 1), 8);
        v = (u64x2){lo, hi};
        memcpy(j == 0 ? auth : t.enc + 8 * (j - 2), &v, 16);
    }
    k->set_key(enc_key, t.enc, keylen);
    aesfast_wipe(&t, sizeof(t));
}
