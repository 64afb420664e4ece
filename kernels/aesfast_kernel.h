/*
 * aesfast kernel ABI: what every tier (portable C, AES-NI, VAES-256, VAES-512, ARMv8-CE) provides.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * A kernel is a small table of functions over an expanded key. The modes in provider/ keep all
 * stream state (IV, partial blocks, buffered bytes) in C and call kernels only on whole blocks:
 *
 *   set_key        expand a 16/24/32-byte AES key into an aesfast_key.
 *   encrypt_block  one AES block (GCM's H and J0, GCM-SIV's key derivation, CTR's tail block).
 *   ctr32_xor      out[i] = in[i] XOR AES(ctr + i), for whole blocks, where "+ i" adds i to the
 *                  last 4 bytes of the counter block read as a big-endian uint32, modulo 2^32
 *                  (GCM's inc32). The first 12 bytes never change. Stateless: the caller passes the
 *                  counter block of the first block, so a stream can be resumed at any block.
 *                  AES-CTR's 128-bit counter is built on top of it in C, by splitting a request
 *                  at 2^32-block boundaries (see provider/ctr.c).
 *
 * and, for the AEAD modes, a table of functions (aesfast_aead_kernel) per mode family:
 *
 *   hash_init      H (the hash key, as 16 bytes) -> the tier's table of H's powers, in an
 *                  aesfast_hash_key whose layout only that tier knows.
 *   hash_init_few  the same, but only what hash calls of at most AESFAST_HASH_FEW blocks read
 *                  (GCM-SIV derives H per nonce, and a small message needs few powers).
 *                  Optional (aesfast_hash_init_few): a tier whose table has no more than
 *                  AESFAST_HASH_FEW powers, and GCM (H per key), have NULL.
 *   hash           acc = the universal hash of acc and nblocks whole blocks (AAD, lengths).
 *   ctr            the mode's counter: ctr32_xor for GCM.
 *   ctr_then_hash  out = in XOR keystream, then acc = hash(acc, out): GCM's seal (and, with
 *                  GCM-SIV's counter and POLYVAL, GCM-SIV's open).
 *   hash_then_ctr  acc = hash(acc, in), and out = in XOR keystream: GCM's open.
 *   ctr_then_hash_pub, hash_then_ctr_pub
 *                  the same two for a counter the caller knows is public (GCM's J0 = IV || 1
 *                  from a 12-byte IV, and the counters after it): they may branch on the
 *                  counter (vaes-avx2 adds to the big-endian blocks while no group of them
 *                  carries out of the last byte). Optional (aesfast_gcm_stitched): NULL
 *                  where the tier has no such form. A secret counter (J0 = GHASH(IV)) must take
 *                  ctr_then_hash / hash_then_ctr.
 *
 * The two stitched functions take (key, hkey, acc, ctr, in, out, nblocks): seven arguments, the
 * seventh on the stack on x86-64 (SysV) and in x6 on arm64. The counter is used as in ctr32_xor
 * (GCM's inc32 from the block passed, never written back); acc is in/out.
 *
 * acc is the hash state as 16 bytes in the field's own byte order: for GHASH the block X_i of
 * SP 800-38D (bit 0 of the field element is the top bit of byte 0), so that every tier reads and
 * writes the same acc and any tier can continue another's hash. Kernels may convert it to their
 * internal form on entry and back on exit (a byte shuffle per call).
 *
 * GCM-SIV (RFC 8452) is the second family, aesfast_kernel.gcmsiv, on the same shapes:
 *   hash_init, hash  POLYVAL: the same field as GHASH with the bytes of every block reversed (and
 *                    a Montgomery factor); acc and H in POLYVAL's own byte order (RFC 8452).
 *   ctr              ctr32le_xor: out[i] = in[i] XOR AES(ctr + i), where "+ i" adds i to the
 *                    FIRST 4 bytes of the counter block read as a little-endian uint32, modulo
 *                    2^32 (bytes 4..15 never change). Also the per-nonce key derivation: the
 *                    blocks LE32(j) || nonce are the counter blocks from (0 || nonce).
 *   ctr_then_hash    out = in XOR keystream, then acc = POLYVAL(acc, out): GCM-SIV's open.
 *   hash_then_ctr    unused (NULL): GCM-SIV's seal needs the whole POLYVAL before the first
 *                    counter block (the tag) exists, so it is hash, then ctr, in two passes.
 * and aesfast_kernel.gcmsiv_derive: a nonce's two keys (RFC 8452, section 4) from the
 * key-generating key in one call, the encryption key expanded (of the same size as key) and the
 * authentication key as 16 bytes. Optional: NULL means aesfast_gcmsiv_derive makes them with
 * ctr and set_key.
 *
 * GCM's message in one call, aesfast_kernel.gcm_seal_msg and gcm_open_msg (optional: NULL means
 * aesfast_gcm_msg_crypt composes them from the functions above, kernels/gcm_msg.c). A message's
 * AAD is queued as whole zero-padded blocks in an aesfast_gcm_msg; its first data update is then
 * one call, which encrypts (seal) or decrypts (open) len bytes of any length, hashes the queue
 * and the data's blocks (the ciphertext, the last one zero-padded), and makes the message's tag
 * as if the data ended there, E(J0) as one more counter block:
 *     tag = E(J0) ^ GHASH(acc, queue[0 .. nqueue), D_0 .. D_(m-1), L)
 * with D the m = ceil(len / 16) hashed blocks and L = [8 aadlen]_64 || [8 len]_64, the lengths
 * block; the data's counters are J0 + 1, J0 + 2, ... (inc32). On return acc and queue hold the
 * same hash without L, for a message that goes on: GHASH(acc', queue'[0 .. nqueue')) =
 * GHASH(acc, queue[0 .. nqueue), D_0 .. D_(m-1)), where queue' ends with D_(m-1) when len is not
 * a multiple of 16 (how much of it was reduced into acc' is the kernel's choice). len may be 0:
 * the tag of a message without data. On entry nqueue <= AESFAST_GCM_QUEUE - 1; on return
 * nqueue' <= AESFAST_GCM_QUEUE - 1.
 *
 * GCM-SIV's short messages, aesfast_kernel.gcmsiv_seal_short and gcmsiv_open_short (optional:
 * NULL means the provider composes a message from the functions above): a whole message in one
 * call, described by an aesfast_gcmsiv_msg, from the nonce's keys (gcmsiv_derive's: the
 * encryption key expanded, the authentication key H) to the tag, the powers of H made inside:
 *   seal  POLYVAL of the AAD blocks, the data (its last block zero-padded) and the lengths block,
 *         with one reduction, the tag (written to tag), then out = in XOR the keystream from it;
 *   open  out = in XOR the keystream from the tag received (read from tag), then POLYVAL with
 *         the plaintext, and the tag that plaintext has written to tag, for the caller to compare
 *         (and to wipe out on a mismatch: the kernel releases the plaintext into out before
 *         anyone knows).
 * A message may have at most gcmsiv_short_blocks blocks in all: naad + ceil(len / 16) + 1 (the
 * lengths block) <= gcmsiv_short_blocks; larger ones are the caller's to compose.
 *
 * Contracts common to all tiers:
 *   - set_key takes keylen 16, 24 or 32 only; the provider refuses other lengths before calling
 *     it (on any other length a kernel writes nothing, or wipes *key, but never overflows).
 *   - in and out may be equal (in-place) but must not otherwise overlap; no alignment is needed.
 *   - nblocks may be 0.
 *   - Nothing branches on, or indexes memory by, key or data bytes. Only the round count and the
 *     block count steer control flow.
 *   - Kernels do not write the counter back and keep no state between calls.
 *   - Round keys and keystream may remain in caller-saved vector registers on return, as in
 *     OpenSSL and the Linux kernel: registers are not memory the caller can wipe, and clearing
 *     them on every small call costs more than it protects. What is in memory (aesfast_key, the
 *     provider's buffers) is wiped by the provider.
 *
 * Optional entries, one convention: an entry a tier does not have is NULL (designated
 * initialisers in provider/dispatch.c leave it out), and callers never test it themselves but
 * call the helper below that falls back: aesfast_hash_init_few (to hash_init),
 * aesfast_gcm_stitched (the _pub forms, to the plain ones), aesfast_gcm_msg_crypt (gcm_seal_msg
 * and gcm_open_msg, to the composer in kernels/gcm_msg.c, which takes gcm_seal_last and
 * gcm_open_last or its own C end), aesfast_gcmsiv_derive (to ctr and set_key). gcmsiv_seal_short
 * and gcmsiv_open_short fall back to the whole of provider/gcmsiv.c's message path, their only
 * caller. GCM-SIV's hash_then_ctr is not optional but unused (NULL, see above).
 *
 * The layout of aesfast_key is part of the ABI: the assembly reads it through the AESFAST_KEY_*
 * offsets below, which provider/dispatch.c checks with _Static_assert. The struct is only
 * 16-byte aligned (it lives in OPENSSL_zalloc memory): kernels must not assume more.
 */
#ifndef AESFAST_KERNEL_H
#define AESFAST_KERNEL_H

#define AESFAST_BLOCK 16
#define AESFAST_MAX_ROUNDS 14

/* Offsets of aesfast_key's fields, for the assembly. */
#define AESFAST_KEY_RK 0          /* round keys: (rounds + 1) x 16 bytes */
#define AESFAST_KEY_ROUNDS 240    /* uint32_t: 10, 12 or 14 */
#define AESFAST_KEY_BITSLICED 256 /* the portable tier's bitsliced round keys */

/* Size of the tier-owned table of hash-key powers (aesfast_hash_key): room for H^1..H^32 and a
 * Karatsuba term per power. vaes-avx512 uses the most: H^32..H^1 for its 32-block groups and
 * their Karatsuba terms, packed by pairs of vectors (768 bytes); see each tier's source. */
#define AESFAST_HASH_KEY_BYTES 1024

/* Offsets of aesfast_gcmsiv_msg's fields, for the assembly. */
#define AESFAST_SIV_NONCE 0
#define AESFAST_SIV_AUTH 8
#define AESFAST_SIV_AAD 16
#define AESFAST_SIV_IN 24
#define AESFAST_SIV_OUT 32
#define AESFAST_SIV_NAAD 40
#define AESFAST_SIV_AADLEN 48
#define AESFAST_SIV_LEN 56
#define AESFAST_SIV_TAG 64

/* hash_init_few's table serves hash calls of up to this many blocks. */
#define AESFAST_HASH_FEW 8

/* aesfast_gcm_msg: its queue's size in blocks, and the offsets of its fields, for the assembly
 * (provider/dispatch.c checks them with _Static_assert). */
#define AESFAST_GCM_QUEUE 32
#define AESFAST_MSG_QUEUE 0
#define AESFAST_MSG_ACC 512
#define AESFAST_MSG_J0 528
#define AESFAST_MSG_TAG 544
#define AESFAST_MSG_NQUEUE 560
#define AESFAST_MSG_AADLEN 568
#define AESFAST_MSG_FLAGS 576
/* aesfast_gcm_msg.flags: J0 is public (IV || 0^31 || 1, from a 12-byte IV; for other IV lengths
 * J0 = GHASH(IV) is a secret), so the kernel may branch on the counter. */
#define AESFAST_MSG_CTR_PUBLIC 1

#ifndef __ASSEMBLER__

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Blocks the kernels load next are written with one 16-byte store, so that the load is
 * forwarded from the store buffer (after narrower stores it would wait for them to retire, which
 * serializes back-to-back small updates behind each other's AES latency). */
typedef uint32_t u32x4 __attribute__((vector_size(16)));
typedef uint64_t u64x2 __attribute__((vector_size(16)));

/* Zeroes a secret the compiler would otherwise see as dead: the empty asm after the memset,
 * which may read it, keeps the stores. */
static inline void aesfast_wipe(void *p, size_t n)
{
    memset(p, 0, n);
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

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

/* How a mode's 32-bit block counter sits in the counter block. */
typedef enum {
    CTR32_BE_LAST,  /* GCM's inc32: big-endian in bytes 12..15 */
    CTR32_LE_FIRST, /* GCM-SIV: little-endian in bytes 0..3 */
} ctr32_format;

/* ctr += n in the mode's 32-bit counter, modulo 2^32 (the other 12 bytes never change): GCM's
 * inc32 and GCM-SIV's, for every C caller. The counter block is read and written whole (u32x4);
 * the word is byte-swapped where its order is not the host's. The element indices are
 * constants: a variable one (fmt is a stream's field) sends the vector through memory. */
static inline void aesfast_ctr32_add(uint8_t ctr[AESFAST_BLOCK], ctr32_format fmt, uint32_t n)
{
    const int le = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
    u32x4 v;

    memcpy(&v, ctr, sizeof(v));
    if (fmt == CTR32_BE_LAST)
        v[3] = le ? __builtin_bswap32(__builtin_bswap32(v[3]) + n) : v[3] + n;
    else
        v[0] = le ? v[0] + n : __builtin_bswap32(__builtin_bswap32(v[0]) + n);
    memcpy(ctr, &v, sizeof(v));
}


typedef struct aesfast_key {
    /* Encryption round keys in FIPS-197 byte order: round key r is rk[16*r .. 16*r+15]. Every
     * tier's set_key fills these, so any tier's output can be checked against any other's. */
    _Alignas(16) uint8_t rk[(AESFAST_MAX_ROUNDS + 1) * AESFAST_BLOCK];
    uint32_t rounds; /* 10, 12 or 14 */
    /* The portable tier's round keys in its bitsliced form (8 words of 64 bits per round);
     * hardware tiers leave these untouched. */
    _Alignas(16) uint64_t bitsliced[(AESFAST_MAX_ROUNDS + 1) * 8];
} aesfast_key;

/* The powers of the hash key H, in a layout private to the tier that wrote them (hash_init).
 * 16-byte aligned (OPENSSL_zalloc memory), like aesfast_key. */
typedef struct aesfast_hash_key {
    _Alignas(16) uint8_t tbl[AESFAST_HASH_KEY_BYTES];
} aesfast_hash_key;

/* A GCM message's hash state for gcm_seal_msg and gcm_open_msg (see the top of this file);
 * 16-byte aligned, like aesfast_key. */
typedef struct aesfast_gcm_msg {
    _Alignas(16) uint8_t queue[AESFAST_GCM_QUEUE * AESFAST_BLOCK]; /* blocks hashed after acc */
    uint8_t acc[AESFAST_BLOCK];  /* the hash state, in the field's byte order (as acc below) */
    uint8_t j0[AESFAST_BLOCK];   /* in: the pre-counter block J0 */
    uint8_t tag[AESFAST_BLOCK];  /* out: the message's tag, if it ends with this data */
    uint64_t nqueue;             /* blocks in queue */
    uint64_t aadlen;             /* in: the message's AAD, in bytes (for the lengths block) */
    uint64_t flags;              /* in: AESFAST_MSG_CTR_PUBLIC or 0 */
} aesfast_gcm_msg;

/* One GCM-SIV message for the short-message kernels (see the top of this file). */
typedef struct aesfast_gcmsiv_msg {
    const uint8_t *nonce; /* 12 bytes */
    const uint8_t *auth;  /* the nonce's message-authentication key H, 16 bytes */
    const uint8_t *aad;   /* the AAD as naad whole blocks, the last one zero-padded */
    const uint8_t *in;    /* len bytes of data */
    uint8_t *out;         /* len bytes; may be in */
    uint64_t naad;        /* blocks at aad */
    uint64_t aadlen;      /* AAD bytes (for the lengths block) */
    uint64_t len;         /* data bytes */
    uint8_t tag[16];      /* seal: the tag made; open: the tag received, then the tag computed */
} aesfast_gcmsiv_msg;

typedef void aesfast_set_key_fn(aesfast_key *key, const uint8_t *raw, size_t keylen);
typedef void aesfast_encrypt_block_fn(const aesfast_key *key, const uint8_t in[16],
                                      uint8_t out[16]);
typedef void aesfast_ctr32_xor_fn(const aesfast_key *key, const uint8_t ctr[16],
                                  const uint8_t *in, uint8_t *out, size_t nblocks);

typedef void aesfast_gcmsiv_derive_fn(const aesfast_key *key, const uint8_t nonce[12],
                                      aesfast_key *enc_key, uint8_t auth[16]);
typedef void aesfast_hash_init_fn(aesfast_hash_key *hkey, const uint8_t h[16]);
typedef void aesfast_hash_fn(const aesfast_hash_key *hkey, uint8_t acc[16], const uint8_t *in,
                             size_t nblocks);
typedef void aesfast_aead_crypt_fn(const aesfast_key *key, const aesfast_hash_key *hkey,
                                   uint8_t acc[16], const uint8_t ctr[16], const uint8_t *in,
                                   uint8_t *out, size_t nblocks);
typedef void aesfast_gcm_msg_fn(const aesfast_key *key, const aesfast_hash_key *hkey,
                                aesfast_gcm_msg *msg, const uint8_t *in, uint8_t *out, size_t len);
/* A tier's end of a message, for the composer (aesfast_gcm_msg_crypt): gcm_seal_msg's or
 * gcm_open_msg's work on the last len bytes of a message whose first `done` blocks are hashed
 * into msg->acc already (the lengths block counts them; the data's counters start at
 * J0 + 1 + done), for as few blocks as the tier's one reduction takes (aesfast_gcm_groups). */
typedef void aesfast_gcm_last_fn(const aesfast_key *key, const aesfast_hash_key *hkey,
                                 aesfast_gcm_msg *msg, const uint8_t *in, uint8_t *out,
                                 size_t len, size_t done);
/* key: the nonce's message-encryption key */
typedef void aesfast_gcmsiv_short_fn(const aesfast_key *key, aesfast_gcmsiv_msg *m);

/* One AEAD mode family's kernels (see the top of this file). */
typedef struct aesfast_aead_kernel {
    aesfast_hash_init_fn *hash_init;
    aesfast_hash_init_fn *hash_init_few; /* or NULL: hash_init (aesfast_hash_init_few) */
    aesfast_hash_fn *hash;
    aesfast_ctr32_xor_fn *ctr;
    aesfast_aead_crypt_fn *ctr_then_hash;
    aesfast_aead_crypt_fn *hash_then_ctr;
    aesfast_aead_crypt_fn *ctr_then_hash_pub; /* for a public counter (see above), or NULL */
    aesfast_aead_crypt_fn *hash_then_ctr_pub;
} aesfast_aead_kernel;

/* The block counts the composer of GCM's one-call message (aesfast_gcm_msg_crypt) relies on. */
typedef struct aesfast_gcm_groups {
    uint8_t lanes;  /* the most data blocks the end of a message (gcm_*_last) takes */
    uint8_t blocks; /* the most blocks it hashes in all, queued, data and lengths (its powers) */
    uint8_t group;  /* the stitched kernels' group, a power of two (1 or 8): a longer message
                     * leaves the end what is past its whole groups, or half a group more
                     * where that and a partial block are more than lanes */
} aesfast_gcm_groups;

/* The composer's own end of a message in C, for a tier without gcm_*_last: the data's whole
 * blocks from one counter call into the queue, so whatever fits in the queue beside the lengths
 * block; the stitched kernels take the whole blocks of a longer message. */
#define AESFAST_GCM_GROUPS_C                                                                   \
    {.lanes = AESFAST_GCM_QUEUE - 1, .blocks = AESFAST_GCM_QUEUE, .group = 1}

/* One tier's kernels, chosen once per provider instance (provider/dispatch.c). */
typedef struct aesfast_kernel {
    const char *name; /* "generic", "aesni", "vaes-avx2", "vaes-avx512", "armv8", "armv8-sha3" */
    aesfast_set_key_fn *set_key;
    aesfast_encrypt_block_fn *encrypt_block;
    aesfast_ctr32_xor_fn *ctr32_xor;
    aesfast_aead_kernel gcm;    /* GHASH and GCM's inc32 counter */
    aesfast_aead_kernel gcmsiv; /* POLYVAL and GCM-SIV's little-endian counter */
    aesfast_gcmsiv_derive_fn *gcmsiv_derive; /* or NULL: aesfast_gcmsiv_derive (ctr, set_key) */
    aesfast_gcm_msg_fn *gcm_seal_msg;        /* or NULL: aesfast_gcm_msg_crypt composes them */
    aesfast_gcm_msg_fn *gcm_open_msg;
    aesfast_gcm_last_fn *gcm_seal_last;      /* or NULL: the composer's C end (both, or neither) */
    aesfast_gcm_last_fn *gcm_open_last;
    aesfast_gcm_groups gcm_groups;           /* what the composer relies on (unused where
                                              * gcm_seal_msg is the tier's) */
    aesfast_gcmsiv_short_fn *gcmsiv_seal_short; /* or NULL (both are, or neither) */
    aesfast_gcmsiv_short_fn *gcmsiv_open_short;
    unsigned int gcmsiv_short_blocks; /* the most blocks (AAD, data, lengths) they take */
} aesfast_kernel;

/* Portable constant-time C (kernels/aes_generic.c): bitsliced, four blocks per pass. */
aesfast_set_key_fn aesfast_generic_set_key;
aesfast_encrypt_block_fn aesfast_generic_encrypt_block;
aesfast_ctr32_xor_fn aesfast_generic_ctr32_xor;
/* kernels/ghash_generic.c: constant-time GHASH in C (integer multiplies with holes). */
aesfast_hash_init_fn aesfast_generic_ghash_init;
aesfast_hash_fn aesfast_generic_ghash;
aesfast_aead_crypt_fn aesfast_generic_gcm_ctr_then_hash;
aesfast_aead_crypt_fn aesfast_generic_gcm_hash_then_ctr;
aesfast_ctr32_xor_fn aesfast_generic_ctr32le_xor;
aesfast_hash_init_fn aesfast_generic_polyval_init;
aesfast_hash_fn aesfast_generic_polyval;
aesfast_aead_crypt_fn aesfast_generic_gcmsiv_ctr_then_hash;

#if defined(__x86_64__)
/* kernels/amd64/aesni.S: AES-NI, 8 blocks in flight. Also the key schedule and single-block
 * path of the VAES tiers. */
aesfast_set_key_fn aesfast_aesni_set_key;
aesfast_encrypt_block_fn aesfast_aesni_encrypt_block;
aesfast_ctr32_xor_fn aesfast_aesni_ctr32_xor;
/* kernels/amd64/gcm_aesni.S: PCLMULQDQ GHASH, 8 blocks per reduction; AES-NI GCM, stitched. */
aesfast_hash_init_fn aesfast_aesni_ghash_init;
aesfast_hash_fn aesfast_aesni_ghash;
aesfast_aead_crypt_fn aesfast_aesni_gcm_ctr_then_hash;
aesfast_aead_crypt_fn aesfast_aesni_gcm_hash_then_ctr;
/* GCM-SIV: the same macros with POLYVAL's byte order and the little-endian counter. */
aesfast_ctr32_xor_fn aesfast_aesni_ctr32le_xor;
aesfast_hash_init_fn aesfast_aesni_polyval_init;
aesfast_hash_fn aesfast_aesni_polyval;
aesfast_aead_crypt_fn aesfast_aesni_gcmsiv_ctr_then_hash;
aesfast_gcmsiv_derive_fn aesfast_aesni_gcmsiv_derive; /* in aesni.S; the VAES tiers' too */
/* The end of GCM's message in one call (gcm_aesni.S), for aesfast_gcm_msg_crypt: 8 powers. */
aesfast_gcm_last_fn aesfast_aesni_gcm_seal_last;
aesfast_gcm_last_fn aesfast_aesni_gcm_open_last;
/* GCM-SIV's short messages in one call (gcm_aesni.S); the vaes-avx2 tier's too. */
aesfast_gcmsiv_short_fn aesfast_aesni_gcmsiv_seal_short;
aesfast_gcmsiv_short_fn aesfast_aesni_gcmsiv_open_short;
/* kernels/amd64/vaes.S: VAES on 256-bit (AVX2) and 512-bit (AVX-512) vectors, one source. */
aesfast_ctr32_xor_fn aesfast_vaes_avx2_ctr32_xor;
aesfast_ctr32_xor_fn aesfast_vaes_avx512_ctr32_xor;
/* kernels/amd64/gcm_vaes.S: VPCLMULQDQ GHASH and VAES GCM, stitched, ymm and zmm from one source. */
aesfast_hash_init_fn aesfast_vaes_avx2_ghash_init;
aesfast_hash_fn aesfast_vaes_avx2_ghash;
aesfast_aead_crypt_fn aesfast_vaes_avx2_gcm_ctr_then_hash;
aesfast_aead_crypt_fn aesfast_vaes_avx2_gcm_hash_then_ctr;
aesfast_aead_crypt_fn aesfast_vaes_avx2_gcm_ctr_then_hash_pub; /* a public counter (see above) */
aesfast_aead_crypt_fn aesfast_vaes_avx2_gcm_hash_then_ctr_pub;
/* The end of GCM's message in one call, for aesfast_gcm_msg_crypt: gcm_aesni.S's legacy-SSE
 * functions on this tier's table (16 powers). */
aesfast_gcm_last_fn aesfast_vaes_avx2_gcm_seal_last;
aesfast_gcm_last_fn aesfast_vaes_avx2_gcm_open_last;
aesfast_hash_init_fn aesfast_vaes_avx512_ghash_init;
aesfast_hash_fn aesfast_vaes_avx512_ghash;
aesfast_aead_crypt_fn aesfast_vaes_avx512_gcm_ctr_then_hash;
aesfast_aead_crypt_fn aesfast_vaes_avx512_gcm_hash_then_ctr;
aesfast_gcm_msg_fn aesfast_vaes_avx512_gcm_seal_msg;
aesfast_gcm_msg_fn aesfast_vaes_avx512_gcm_open_msg;
/* GCM-SIV on the VAES tiers: ctr32le_xor in kernels/amd64/vaes.S, the rest in gcm_vaes.S. */
aesfast_ctr32_xor_fn aesfast_vaes_avx2_ctr32le_xor;
aesfast_hash_init_fn aesfast_vaes_avx2_polyval_init;
aesfast_hash_init_fn aesfast_vaes_avx2_polyval_init_few;
aesfast_hash_fn aesfast_vaes_avx2_polyval;
aesfast_aead_crypt_fn aesfast_vaes_avx2_gcmsiv_ctr_then_hash;
aesfast_ctr32_xor_fn aesfast_vaes_avx512_ctr32le_xor;
aesfast_hash_init_fn aesfast_vaes_avx512_polyval_init;
aesfast_hash_init_fn aesfast_vaes_avx512_polyval_init_few;
aesfast_hash_fn aesfast_vaes_avx512_polyval;
aesfast_aead_crypt_fn aesfast_vaes_avx512_gcmsiv_ctr_then_hash;
aesfast_gcmsiv_short_fn aesfast_vaes_avx512_gcmsiv_seal_short;
aesfast_gcmsiv_short_fn aesfast_vaes_avx512_gcmsiv_open_short;
#endif

#if defined(__aarch64__)
/* kernels/arm64/armv8.S: ARMv8 Crypto Extensions, 8 blocks in flight. */
aesfast_set_key_fn aesfast_armv8_set_key;
aesfast_encrypt_block_fn aesfast_armv8_encrypt_block;
aesfast_ctr32_xor_fn aesfast_armv8_ctr32_xor;
/* kernels/arm64/gcm_armv8.S: PMULL GHASH and AESE/AESMC GCM, stitched, 8 blocks; the _sha3
 * variants use EOR3 (FEAT_SHA3) for the three-way XORs of the reduction and the Karatsuba sums. */
aesfast_hash_init_fn aesfast_armv8_ghash_init;
aesfast_hash_fn aesfast_armv8_ghash;
aesfast_aead_crypt_fn aesfast_armv8_gcm_ctr_then_hash;
aesfast_aead_crypt_fn aesfast_armv8_gcm_hash_then_ctr;
aesfast_hash_fn aesfast_armv8_sha3_ghash;
aesfast_aead_crypt_fn aesfast_armv8_sha3_gcm_ctr_then_hash;
aesfast_aead_crypt_fn aesfast_armv8_sha3_gcm_hash_then_ctr;
/* GCM-SIV on armv8 (POLYVAL and the little-endian counter); _sha3 with EOR3. */
aesfast_ctr32_xor_fn aesfast_armv8_ctr32le_xor;
aesfast_hash_init_fn aesfast_armv8_polyval_init;
aesfast_hash_fn aesfast_armv8_polyval;
aesfast_aead_crypt_fn aesfast_armv8_gcmsiv_ctr_then_hash;
aesfast_hash_fn aesfast_armv8_sha3_polyval;
aesfast_aead_crypt_fn aesfast_armv8_sha3_gcmsiv_ctr_then_hash;
#endif

/* GCM's lengths block: the AAD's and the data's lengths in bits, big-endian. */
static inline void aesfast_gcm_lengths(uint8_t lens[AESFAST_BLOCK], uint64_t aadlen,
                                       uint64_t datalen)
{
    u64x2 bits = {aesfast_be64(aadlen * 8), aesfast_be64(datalen * 8)};

    memcpy(lens, &bits, sizeof(bits));
}

/* The tier's hash_init_few, or hash_init where it has none. */
static inline aesfast_hash_init_fn *aesfast_hash_init_few(const aesfast_aead_kernel *f)
{
    return f->hash_init_few != NULL ? f->hash_init_few : f->hash_init;
}

/* GCM's stitched kernel: ctr_then_hash (seal) or hash_then_ctr, in the tier's form for a public
 * counter where pub and it has one. */
static inline aesfast_aead_crypt_fn *aesfast_gcm_stitched(const aesfast_aead_kernel *f, int seal,
                                                          int pub)
{
    aesfast_aead_crypt_fn *fn = !pub ? NULL : seal ? f->ctr_then_hash_pub : f->hash_then_ctr_pub;

    return fn != NULL ? fn : seal ? f->ctr_then_hash : f->hash_then_ctr;
}

/* GCM-SIV's per-nonce keys (gcmsiv_derive's contract) on tier k: its own function, or its
 * counter kernel and set_key (kernels/gcm_msg.c). */
void aesfast_gcmsiv_derive(const aesfast_kernel *k, const aesfast_key *key,
                           const uint8_t nonce[12], aesfast_key *enc_key, uint8_t auth[16]);

/* The composer of GCM's message in one call (kernels/gcm_msg.c): gcm_seal_msg's or
 * gcm_open_msg's contract on tier k, passed last, so that a call has the same six arguments in
 * the same registers as a tier's own function. */
typedef void aesfast_gcm_composed_fn(const aesfast_key *key, const aesfast_hash_key *hkey,
                                     aesfast_gcm_msg *msg, const uint8_t *in, uint8_t *out,
                                     size_t len, const aesfast_kernel *k);
aesfast_gcm_composed_fn aesfast_gcm_seal_composed;
aesfast_gcm_composed_fn aesfast_gcm_open_composed;

/* GCM's message in one call on tier k (seal: gcm_seal_msg's contract, else gcm_open_msg's): the
 * tier's own function, or the composer where it has none. */
static inline void aesfast_gcm_msg_crypt(const aesfast_kernel *k, int seal,
                                         const aesfast_key *key, const aesfast_hash_key *hkey,
                                         aesfast_gcm_msg *msg, const uint8_t *in, uint8_t *out,
                                         size_t len)
{
    aesfast_gcm_msg_fn *fn = seal ? k->gcm_seal_msg : k->gcm_open_msg;

    if (fn != NULL)
        fn(key, hkey, msg, in, out, len);
    else
        (seal ? aesfast_gcm_seal_composed : aesfast_gcm_open_composed)(key, hkey, msg, in, out,
                                                                       len, k);
}

#endif /* __ASSEMBLER__ */
#endif /* AESFAST_KERNEL_H */
