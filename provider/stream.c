/*
 * The AEAD byte stream over the whole-block kernels (see stream.h).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <string.h>

#include <openssl/crypto.h>

#include "stream.h"

void ctr32_add(uint8_t ctr[AESFAST_BLOCK], ctr32_format fmt, uint32_t n)
{
    uint8_t *w = fmt == CTR32_BE_LAST ? ctr + 12 : ctr;
    uint32_t v;

    if (fmt == CTR32_BE_LAST) {
        v = (uint32_t)w[0] << 24 | (uint32_t)w[1] << 16 | (uint32_t)w[2] << 8 | w[3];
        v += n;
        w[0] = (uint8_t)(v >> 24);
        w[1] = (uint8_t)(v >> 16);
        w[2] = (uint8_t)(v >> 8);
        w[3] = (uint8_t)v;
    } else {
        v = (uint32_t)w[3] << 24 | (uint32_t)w[2] << 16 | (uint32_t)w[1] << 8 | w[0];
        v += n;
        w[3] = (uint8_t)(v >> 24);
        w[2] = (uint8_t)(v >> 16);
        w[1] = (uint8_t)(v >> 8);
        w[0] = (uint8_t)v;
    }
}

void aead_begin(aead_stream *s, const uint8_t ctr[AESFAST_BLOCK], ctr32_format fmt)
{
    memcpy(s->ctr, ctr, AESFAST_BLOCK);
    memset(s->acc, 0, sizeof(s->acc));
    s->ks.num = 0;
    s->aad_part = 0;
    s->in_data = 0;
    s->aadlen = s->datalen = 0;
    s->fmt = fmt;
}

void aead_aad(aead_stream *s, const aesfast_aead_kernel *f, const aesfast_hash_key *hkey,
              const uint8_t *in, size_t len)
{
    s->aadlen += len;
    if (s->aad_part != 0) {
        size_t n = AESFAST_BLOCK - s->aad_part < len ? AESFAST_BLOCK - s->aad_part : len;

        memcpy(s->part + s->aad_part, in, n);
        s->aad_part += (unsigned int)n;
        in += n;
        len -= n;
        if (s->aad_part < AESFAST_BLOCK)
            return;
        f->hash(hkey, s->acc, s->part, 1);
        s->aad_part = 0;
    }
    f->hash(hkey, s->acc, in, len / AESFAST_BLOCK);
    in += len - len % AESFAST_BLOCK;
    len %= AESFAST_BLOCK;
    memcpy(s->part, in, len);
    s->aad_part = (unsigned int)len;
}

/* part[from..15] = 0, so a partial block hashes as its zero-padded self. */
static void pad_part(aead_stream *s, unsigned int from)
{
    memset(s->part + from, 0, AESFAST_BLOCK - from);
}

void aead_crypt(aead_stream *s, const aesfast_kernel *kern, const aesfast_aead_kernel *f,
                const aesfast_key *key, const aesfast_hash_key *hkey, const uint8_t *in,
                uint8_t *out, size_t len, int hash_out)
{
    if (!s->in_data) { /* the AAD ends here */
        if (s->aad_part != 0) {
            pad_part(s, s->aad_part);
            f->hash(hkey, s->acc, s->part, 1);
            s->aad_part = 0;
        }
        s->in_data = 1;
    }
    s->datalen += len;

    if (s->ks.num != 0) { /* finish the partial block */
        unsigned int at = s->ks.num;
        size_t n = AESFAST_BLOCK - at < len ? AESFAST_BLOCK - at : len;

        if (!hash_out)
            memcpy(s->part + at, in, n); /* before out (maybe == in) is written */
        ks_spend(&s->ks, in, out, n);
        if (hash_out)
            memcpy(s->part + at, out, n);
        in += n;
        out += n;
        len -= n;
        if (s->ks.num != 0)
            return;
        f->hash(hkey, s->acc, s->part, 1);
    }

    size_t nblocks = len / AESFAST_BLOCK;
    if (nblocks > 0) {
        (hash_out ? f->ctr_then_hash : f->hash_then_ctr)(key, hkey, s->acc, s->ctr, in, out,
                                                         nblocks);
        ctr32_add(s->ctr, s->fmt, (uint32_t)nblocks);
        in += nblocks * AESFAST_BLOCK;
        out += nblocks * AESFAST_BLOCK;
        len %= AESFAST_BLOCK;
    }

    if (len > 0) { /* a new partial block */
        if (!hash_out)
            memcpy(s->part, in, len);
        ks_tail(&s->ks, kern, key, s->ctr, in, out, len);
        ctr32_add(s->ctr, s->fmt, 1);
        if (hash_out)
            memcpy(s->part, out, len);
    }
}

void aead_finish(aead_stream *s, const aesfast_aead_kernel *f, const aesfast_hash_key *hkey,
                 const uint8_t lens[AESFAST_BLOCK])
{
    uint8_t blocks[2 * AESFAST_BLOCK];
    unsigned int partial = s->in_data ? s->ks.num : s->aad_part;
    size_t n = 0;

    /* The last partial block and the lengths block in one call. */
    if (partial != 0) {
        pad_part(s, partial);
        memcpy(blocks, s->part, AESFAST_BLOCK);
        n = 1;
    }
    memcpy(blocks + n * AESFAST_BLOCK, lens, AESFAST_BLOCK);
    f->hash(hkey, s->acc, blocks, n + 1);
    s->ks.num = 0;
    s->aad_part = 0;
    OPENSSL_cleanse(blocks, sizeof(blocks));
}

void aead_wipe(aead_stream *s)
{
    ctr32_format fmt = s->fmt;

    OPENSSL_cleanse(s, sizeof(*s));
    s->fmt = fmt;
}
