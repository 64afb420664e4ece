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
 *               the current partial block still to be hashed (part), and the AAD and data
 *               lengths. AAD comes first, in any number of pieces; the first data byte pads the
 *               AAD's last partial block with zeros, as GHASH and POLYVAL do.
 */
#ifndef AESFAST_STREAM_H
#define AESFAST_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "aesfast_kernel.h"

/* Blocks the kernels load next are written with one 16-byte store, so that the load is
 * forwarded from the store buffer (after narrower stores it would wait for them to retire, which
 * serializes back-to-back small updates behind each other's AES latency). */
typedef uint32_t u32x4 __attribute__((vector_size(16)));
typedef uint64_t u64x2 __attribute__((vector_size(16)));

/* Big-endian <-> host order of a 64-bit word (an involution either way). */
static inline uint64_t aesfast_be64(uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return __builtin_bswap64(v);
#else
    return v;
#endif
}

/* Little-endian <-> host order of a 64-bit word. */
static inline uint64_t aesfast_le64(uint64_t v)
{
    return __builtin_bswap64(aesfast_be64(v));
}

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

/* How a mode's 32-bit block counter sits in the counter block. */
typedef enum {
    CTR32_BE_LAST,  /* GCM's inc32: big-endian in bytes 12..15 */
    CTR32_LE_FIRST, /* GCM-SIV: little-endian in bytes 0..3 */
} ctr32_format;

/* ctr += n in the mode's 32-bit counter, modulo 2^32 (the other 12 bytes never change). */
void aesfast_ctr32_add(uint8_t ctr[AESFAST_BLOCK], ctr32_format fmt, uint32_t n);

/* Whole blocks that wait to be hashed together: small updates' AAD and data, and a message's
 * last blocks with its lengths block, go to the kernel in one call, so their multiplications by
 * H^n .. H^1 run side by side and share one reduction, instead of one dependent multiplication
 * and one call per block. So an AAD or data call of fewer than AEAD_PENDING whole blocks, and
 * aead_finish, hash at most AEAD_PENDING blocks per kernel call: hash_init_few's table is enough
 * for them (GCM-SIV builds the whole table only for a message that needs it). */
#define AEAD_PENDING AESFAST_HASH_FEW

typedef struct aead_stream {
    uint8_t ctr[AESFAST_BLOCK];  /* counter block of the next keystream block */
    uint8_t acc[AESFAST_BLOCK];  /* hash state, in the field's byte order */
    uint8_t pend[AEAD_PENDING * AESFAST_BLOCK]; /* whole blocks not yet hashed into acc */
    uint8_t part[AESFAST_BLOCK]; /* bytes of the current partial block to be hashed */
    keystream ks;                /* its keystream (data only); ks.num == partial data bytes */
    unsigned int npend;          /* blocks in pend */
    unsigned int aad_part;       /* bytes in part while still in the AAD */
    int in_data;                 /* 0 while AAD may still come */
    uint64_t aadlen, datalen;    /* bytes so far */
    ctr32_format fmt;
} aead_stream;

/* A new message: acc = 0, nothing buffered, the first keystream block from ctr. */
void aesfast_aead_begin(aead_stream *s, const uint8_t ctr[AESFAST_BLOCK], ctr32_format fmt);

/* A message taken over in its data, after an update that a one-call kernel did (GCM): the hash
 * state acc, then nblocks whole blocks still to hash, the AAD and data lengths so far, and ctr
 * for the next keystream block; no partial block yet (the caller sets part, ks if there is one). */
void aesfast_aead_resume(aead_stream *s, const aesfast_aead_kernel *f, const aesfast_hash_key *hkey,
                         const uint8_t acc[AESFAST_BLOCK], const uint8_t *blocks, size_t nblocks,
                         uint64_t aadlen, uint64_t datalen, const uint8_t ctr[AESFAST_BLOCK],
                         ctr32_format fmt);

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

/* Wipes the stream (keystream, buffered bytes, hash state). */
void aesfast_aead_wipe(aead_stream *s);

#endif /* AESFAST_STREAM_H */
