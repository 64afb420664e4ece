/*
 * The AEAD byte stream over the whole-block kernels (see stream.h).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * Blocks reach the hash in one of two ways. Runs of at least AEAD_STITCH_MIN whole blocks go
 * straight to the kernels (the stitched ones for data). Anything smaller - the AAD, a block
 * completed from two updates, the data of a small update - is copied to pend, and pend is hashed
 * in one call when it fills (qmax blocks) or when the message ends, together with the last
 * partial block and the lengths block. Small messages then cost one hash call, not one per
 * block, and small updates share one.
 */
#include <assert.h>
#include <string.h>

#include <openssl/crypto.h>

#include "stream.h"

void aesfast_aead_begin(aead_stream *s, const uint8_t ctr[AESFAST_BLOCK], ctr32_format fmt)
{
    memcpy(s->ctr, ctr, AESFAST_BLOCK);
    memset(s->acc, 0, sizeof(s->acc));
    s->ks.num = 0;
    s->npart = 0;
    s->npend = 0;
    s->qmax = AEAD_QUEUE_FEW;
    s->in_data = 0;
    s->aadlen = s->datalen = 0;
    s->fmt = fmt;
    s->ctr_public = 0;
}

/* Hashes the pending blocks into acc. */
static void flush(aead_stream *s, const aesfast_aead_kernel *f, const aesfast_hash_key *hkey)
{
    if (s->npend != 0) {
        f->hash(hkey, s->acc, s->pend, s->npend);
        s->npend = 0;
    }
}

void aesfast_aead_flush(aead_stream *s, const aesfast_aead_kernel *f, const aesfast_hash_key *hkey)
{
    flush(s, f, hkey);
}

/* Queues n (< AEAD_STITCH_MIN) whole blocks for the hash, flushing first if they do not fit. */
static void push(aead_stream *s, const aesfast_aead_kernel *f, const aesfast_hash_key *hkey,
                 const uint8_t *blocks, size_t n)
{
    uint8_t *to;

    if (s->npend + n > s->qmax)
        flush(s, f, hkey);
    to = s->pend + s->npend * AESFAST_BLOCK;
    s->npend += (unsigned int)n;
    aesfast_copy_few_blocks(to, blocks, n);
}

/* Whole blocks to be hashed: queued if few, else straight to the kernel (after the queue). */
static void hash_blocks(aead_stream *s, const aesfast_aead_kernel *f,
                        const aesfast_hash_key *hkey, const uint8_t *in, size_t n)
{
    if (n < AEAD_STITCH_MIN) {
        push(s, f, hkey, in, n);
    } else {
        flush(s, f, hkey);
        f->hash(hkey, s->acc, in, n);
    }
}

void aesfast_aead_resume(aead_stream *s, const aesfast_kernel *kern, const aesfast_aead_kernel *f,
                         const aesfast_key *key, const aesfast_hash_key *hkey,
                         const uint8_t acc[AESFAST_BLOCK], const uint8_t *blocks, size_t nblocks,
                         const uint8_t *part, size_t npart, uint64_t aadlen, uint64_t datalen,
                         const uint8_t ctr[AESFAST_BLOCK], ctr32_format fmt, unsigned int qmax)
{
    aesfast_aead_begin(s, ctr, fmt);
    s->qmax = qmax;
    memcpy(s->acc, acc, AESFAST_BLOCK);
    hash_blocks(s, f, hkey, blocks, nblocks);
    s->in_data = 1;
    s->aadlen = aadlen;
    s->datalen = datalen;
    if (npart != 0) {
        memcpy(s->part, part, npart);
        kern->encrypt_block(key, s->ctr, s->ks.ks);
        s->ks.num = s->npart = (unsigned int)npart;
        aesfast_ctr32_add(s->ctr, fmt, 1);
    }
}

int aesfast_aead_aad_hashes(const aead_stream *s, size_t len)
{
    /* The blocks it completes are pushed, and push flushes only when the queue overflows. */
    return s->npend + (s->npart + len) / AESFAST_BLOCK >= s->qmax;
}

void aesfast_aead_aad(aead_stream *s, const aesfast_aead_kernel *f, const aesfast_hash_key *hkey,
                      const uint8_t *in, size_t len)
{
    s->aadlen += len;
    if (s->npart != 0) {
        size_t n = AESFAST_BLOCK - s->npart < len ? AESFAST_BLOCK - s->npart : len;

        memcpy(s->part + s->npart, in, n);
        s->npart += (unsigned int)n;
        in += n;
        len -= n;
        if (s->npart < AESFAST_BLOCK)
            return;
        push(s, f, hkey, s->part, 1);
        s->npart = 0;
    }
    hash_blocks(s, f, hkey, in, len / AESFAST_BLOCK);
    in += len - len % AESFAST_BLOCK;
    len %= AESFAST_BLOCK;
    memcpy(s->part, in, len);
    s->npart = (unsigned int)len;
}

/* part[from..15] = 0, so a partial block hashes as its zero-padded self. */
static void pad_part(aead_stream *s, unsigned int from)
{
    memset(s->part + from, 0, AESFAST_BLOCK - from);
}

const uint8_t *aesfast_aead_queued_aad(aead_stream *s, size_t *nblocks)
{
    if (s->in_data || s->aadlen != (uint64_t)s->npend * AESFAST_BLOCK + s->npart
        || (s->npart != 0 && s->npend == s->qmax))
        return NULL;
    *nblocks = s->npend;
    if (s->npart != 0) { /* the partial block, padded, after the queue (not in it) */
        pad_part(s, s->npart);
        memcpy(s->pend + s->npend * AESFAST_BLOCK, s->part, AESFAST_BLOCK);
        ++*nblocks;
    }
    return s->pend;
}

/* The first data byte ends the AAD: its last partial block is hashed, zero-padded, and part
 * passes to the data. */
static void end_aad(aead_stream *s, const aesfast_aead_kernel *f, const aesfast_hash_key *hkey)
{
    if (s->in_data)
        return;
    if (s->npart != 0) {
        pad_part(s, s->npart);
        push(s, f, hkey, s->part, 1);
        s->npart = 0;
    }
    s->in_data = 1;
}

void aesfast_aead_hash_only(aead_stream *s, const aesfast_aead_kernel *f,
                            const aesfast_hash_key *hkey, const uint8_t *in, size_t len)
{
    end_aad(s, f, hkey);
    s->datalen += len;
    hash_blocks(s, f, hkey, in, len / AESFAST_BLOCK);
    memcpy(s->part, in + len - len % AESFAST_BLOCK, len % AESFAST_BLOCK);
    s->npart = (unsigned int)(len % AESFAST_BLOCK); /* the tail aesfast_aead_finish hashes */
}

void aesfast_aead_crypt(aead_stream *s, const aesfast_kernel *kern, const aesfast_aead_kernel *f,
                        const aesfast_key *key, const aesfast_hash_key *hkey, const uint8_t *in,
                        uint8_t *out, size_t len, int hash_out)
{
    end_aad(s, f, hkey);
    s->datalen += len;

    if (s->npart != 0) { /* finish the partial block */
        unsigned int at = s->npart;
        size_t n = AESFAST_BLOCK - at < len ? AESFAST_BLOCK - at : len;

        /* The partial block's keystream is used exactly as far as the block is filled (ks_tail
         * and aesfast_aead_resume set both; only this branch moves them, together): so ks_spend
         * XORs byte at with keystream byte at, and ks.num after it is where the block stands. */
        assert(s->ks.num == at);

        if (!hash_out)
            memcpy(s->part + at, in, n); /* before out (maybe == in) is written */
        ks_spend(&s->ks, in, out, n);
        if (hash_out)
            memcpy(s->part + at, out, n);
        in += n;
        out += n;
        len -= n;
        s->npart = s->ks.num; /* at + n, or 0 when the block is full (the assert above) */
        if (s->npart != 0)
            return;
        push(s, f, hkey, s->part, 1);
    }

    size_t nblocks = len / AESFAST_BLOCK;
    if (nblocks >= AEAD_STITCH_MIN) { /* the stitched kernel */
        flush(s, f, hkey);
        aesfast_gcm_stitched(f, hash_out, s->ctr_public)(key, hkey, s->acc, s->ctr, in, out,
                                                          nblocks);
        aesfast_ctr32_add(s->ctr, s->fmt, (uint32_t)nblocks);
    } else if (nblocks > 0) { /* a few blocks: the counter kernel, and the queue */
        aesfast_aead_crypt_blocks(s, kern, f, key, hkey, in, out, nblocks, hash_out);
    }
    in += nblocks * AESFAST_BLOCK;
    out += nblocks * AESFAST_BLOCK;
    len %= AESFAST_BLOCK;

    if (len > 0) { /* a new partial block */
        if (!hash_out)
            memcpy(s->part, in, len);
        ks_tail(&s->ks, kern, key, s->ctr, in, out, len);
        s->npart = (unsigned int)len;
        aesfast_ctr32_add(s->ctr, s->fmt, 1);
        if (hash_out)
            memcpy(s->part, out, len);
    }
}

void aesfast_aead_finish(aead_stream *s, const aesfast_aead_kernel *f, const aesfast_hash_key *hkey,
                         const uint8_t lens[AESFAST_BLOCK])
{
    /* The last partial block and the lengths block join the queue: one call for all. */
    if (s->npart != 0) {
        pad_part(s, s->npart);
        push(s, f, hkey, s->part, 1);
    }
    push(s, f, hkey, lens, 1);
    flush(s, f, hkey);
    s->ks.num = 0;
    s->npart = 0;
}

void aesfast_aead_copy(aead_stream *dst, const aead_stream *src)
{
    memcpy(dst, src, offsetof(aead_stream, pend));
    memcpy(dst->pend, src->pend, src->npend * AESFAST_BLOCK);
}

/* Zeroes what the message left, a 16-byte store per block: OPENSSL_cleanse (a call per buffer,
 * 8 bytes a store) cost a 1420-byte GCM-SIV open 3%, and a plain memset of the queue becomes
 * rep stos, whose start-up costs as much. The empty asm after each store, which may read
 * memory, keeps the compiler from dropping the stores as dead or merging them into one. */
void aesfast_aead_wipe_data(aead_stream *s)
{
    memset(s->part, 0, sizeof(s->part));
    memset(s->ks.ks, 0, sizeof(s->ks.ks));
    __asm__ __volatile__("" : : "r"(s) : "memory");
    for (unsigned int i = 0; i < s->qmax; i++) {
        memset(s->pend + i * AESFAST_BLOCK, 0, AESFAST_BLOCK);
        __asm__ __volatile__("" : : "r"(s) : "memory");
    }
    s->ks.num = 0;
    s->npart = 0;
}

void aesfast_aead_wipe(aead_stream *s)
{
    ctr32_format fmt = s->fmt;
    unsigned int qmax = s->qmax;

    aesfast_wipe(s, sizeof(*s));
    s->fmt = fmt; /* what the stream is, as opposed to what it held */
    s->qmax = qmax;
}
