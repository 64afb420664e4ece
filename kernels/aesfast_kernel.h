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

#ifndef __ASSEMBLER__

#include <stddef.h>
#include <stdint.h>

typedef struct aesfast_key {
    /* Encryption round keys in FIPS-197 byte order: round key r is rk[16*r .. 16*r+15]. Every
     * tier's set_key fills these, so any tier's output can be checked against any other's. */
    _Alignas(16) uint8_t rk[(AESFAST_MAX_ROUNDS + 1) * AESFAST_BLOCK];
    uint32_t rounds; /* 10, 12 or 14 */
    /* The portable tier's round keys in its bitsliced form (8 words of 64 bits per round);
     * hardware tiers leave these untouched. */
    _Alignas(16) uint64_t bitsliced[(AESFAST_MAX_ROUNDS + 1) * 8];
} aesfast_key;

typedef void aesfast_set_key_fn(aesfast_key *key, const uint8_t *raw, size_t keylen);
typedef void aesfast_encrypt_block_fn(const aesfast_key *key, const uint8_t in[16],
                                      uint8_t out[16]);
typedef void aesfast_ctr32_xor_fn(const aesfast_key *key, const uint8_t ctr[16],
                                  const uint8_t *in, uint8_t *out, size_t nblocks);

/* One tier's kernels, chosen once per provider instance (provider/dispatch.c). */
typedef struct aesfast_kernel {
    const char *name; /* "generic", "aesni", "vaes-avx2", "vaes-avx512", "armv8" */
    aesfast_set_key_fn *set_key;
    aesfast_encrypt_block_fn *encrypt_block;
    aesfast_ctr32_xor_fn *ctr32_xor;
} aesfast_kernel;

/* Portable constant-time C (kernels/aes_generic.c): bitsliced, four blocks per pass. */
aesfast_set_key_fn aesfast_generic_set_key;
aesfast_encrypt_block_fn aesfast_generic_encrypt_block;
aesfast_ctr32_xor_fn aesfast_generic_ctr32_xor;

#if defined(__x86_64__)
/* kernels/amd64/aesni.S: AES-NI, 8 blocks in flight. Also the key schedule and single-block
 * path of the VAES tiers. */
aesfast_set_key_fn aesfast_aesni_set_key;
aesfast_encrypt_block_fn aesfast_aesni_encrypt_block;
aesfast_ctr32_xor_fn aesfast_aesni_ctr32_xor;
/* kernels/amd64/vaes.S: VAES on 256-bit (AVX2) and 512-bit (AVX-512) vectors, one source. */
aesfast_ctr32_xor_fn aesfast_vaes_avx2_ctr32_xor;
aesfast_ctr32_xor_fn aesfast_vaes_avx512_ctr32_xor;
#endif

#if defined(__aarch64__)
/* kernels/arm64/armv8.S: ARMv8 Crypto Extensions, 8 blocks in flight. */
aesfast_set_key_fn aesfast_armv8_set_key;
aesfast_encrypt_block_fn aesfast_armv8_encrypt_block;
aesfast_ctr32_xor_fn aesfast_armv8_ctr32_xor;
#endif

#endif /* __ASSEMBLER__ */
#endif /* AESFAST_KERNEL_H */
