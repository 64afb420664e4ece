/*
 * GCM's message in one call (aesfast_kernel.h: gcm_seal_msg, gcm_open_msg) for the tiers whose
 * assembly makes the end of a message in one pass but whose table has too few powers for a
 * whole message of some hundred bytes: the message's last blocks, the lengths block and E(J0)
 * are the tier's "last" function (one reduction, at most `group` blocks); a message longer than
 * that first hashes its queue and runs its other whole blocks through the tier's stitched
 * kernel.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <string.h>

#include "aesfast_kernel.h"

#if defined(__x86_64__) && defined(AESFAST_ASM)

/* A tier's part: how many data blocks (lanes) and how many blocks in all (powers: queue,
 * data and lengths block) its last function takes, its GHASH, stitched kernels (for a secret
 * counter, and for a public one: aesfast_kernel.h's _pub) and last functions. */
typedef struct {
    size_t lanes, powers;
    aesfast_hash_fn *hash;
    aesfast_aead_crypt_fn *crypt[2][2]; /* [public][open, seal] */
    aesfast_gcm_last_fn *last[2];
} gcm_msg_tier;

static void gcm_msg(const gcm_msg_tier *t, int enc, const aesfast_key *key,
                    const aesfast_hash_key *hkey, aesfast_gcm_msg *msg, const uint8_t *in,
                    uint8_t *out, size_t len)
{
    size_t whole = len / AESFAST_BLOCK, partial = len % AESFAST_BLOCK != 0, tail, done;
    uint8_t ctr[AESFAST_BLOCK];
    uint32_t lo;

    if (whole + partial <= t->lanes && msg->nqueue + whole + partial + 1 <= t->powers) {
        t->last[enc](key, hkey, msg, in, out, len, 0);
        return;
    }
    if (msg->nqueue != 0) {
        t->hash(hkey, msg->acc, msg->queue, msg->nqueue);
        msg->nqueue = 0;
    }
    /* The stitched kernels take groups of 8 blocks (16 on vaes-avx2, which does 8 in its
     * tail): what is left past the last group of 8, or 4 fewer where that and a partial block
     * are more than the last function takes. */
    tail = whole % 8;
    if (tail + partial > t->lanes)
        tail -= 4;
    done = whole - tail;
    if (done != 0) { /* from J0 + 1 (inc32) */
        memcpy(ctr, msg->j0, AESFAST_BLOCK);
        lo = ((uint32_t)ctr[12] << 24 | (uint32_t)ctr[13] << 16 | (uint32_t)ctr[14] << 8
              | ctr[15]) + 1;
        ctr[12] = (uint8_t)(lo >> 24), ctr[13] = (uint8_t)(lo >> 16);
        ctr[14] = (uint8_t)(lo >> 8), ctr[15] = (uint8_t)lo;
        t->crypt[(msg->flags & AESFAST_MSG_CTR_PUBLIC) != 0][enc](key, hkey, msg->acc, ctr, in,
                                                                   out, done);
        in += AESFAST_BLOCK * done; /* (in and out are NULL for a final without data) */
        out += AESFAST_BLOCK * done;
    }
    t->last[enc](key, hkey, msg, in, out, len - AESFAST_BLOCK * done, done);
}

static const gcm_msg_tier aesni = {
    7, 8, aesfast_aesni_ghash,
    {{aesfast_aesni_gcm_hash_then_ctr, aesfast_aesni_gcm_ctr_then_hash},
     {aesfast_aesni_gcm_hash_then_ctr, aesfast_aesni_gcm_ctr_then_hash}}, /* one form */
    {aesfast_aesni_gcm_open_last, aesfast_aesni_gcm_seal_last},
};

static const gcm_msg_tier vaes_avx2 = {
    7, 16, aesfast_vaes_avx2_ghash,
    {{aesfast_vaes_avx2_gcm_hash_then_ctr, aesfast_vaes_avx2_gcm_ctr_then_hash},
     {aesfast_vaes_avx2_gcm_hash_then_ctr_pub, aesfast_vaes_avx2_gcm_ctr_then_hash_pub}},
    {aesfast_vaes_avx2_gcm_open_last, aesfast_vaes_avx2_gcm_seal_last},
};

void aesfast_aesni_gcm_seal_msg(const aesfast_key *key, const aesfast_hash_key *hkey,
                                aesfast_gcm_msg *msg, const uint8_t *in, uint8_t *out, size_t len)
{
    gcm_msg(&aesni, 1, key, hkey, msg, in, out, len);
}

void aesfast_aesni_gcm_open_msg(const aesfast_key *key, const aesfast_hash_key *hkey,
                                aesfast_gcm_msg *msg, const uint8_t *in, uint8_t *out, size_t len)
{
    gcm_msg(&aesni, 0, key, hkey, msg, in, out, len);
}

void aesfast_vaes_avx2_gcm_seal_msg(const aesfast_key *key, const aesfast_hash_key *hkey,
                                    aesfast_gcm_msg *msg, const uint8_t *in, uint8_t *out,
                                    size_t len)
{
    gcm_msg(&vaes_avx2, 1, key, hkey, msg, in, out, len);
}

void aesfast_vaes_avx2_gcm_open_msg(const aesfast_key *key, const aesfast_hash_key *hkey,
                                    aesfast_gcm_msg *msg, const uint8_t *in, uint8_t *out,
                                    size_t len)
{
    gcm_msg(&vaes_avx2, 0, key, hkey, msg, in, out, len);
}

#endif

