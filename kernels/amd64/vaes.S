/*
 * VAES tiers: AES-CTR32 (GCM's counter and GCM-SIV's) on 256-bit (AVX2) and 512-bit (AVX-512)
 * vectors, from one source.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * Functions and the CPU features each one needs (CPUID leaf 7 subleaf 0 unless noted; XCR0 is
 * read with XGETBV once CPUID.1:ECX.OSXSAVE[27] is set):
 *
 *   aesfast_vaes_avx2_ctr32_xor     AES (leaf 1 ECX[25]) && AVX (leaf 1 ECX[28]) && AVX2 (EBX[5])
 *                                   && VAES (ECX[9]) && XCR0[2:1] == 11b (SSE and AVX state).
 *   aesfast_vaes_avx512_ctr32_xor   all of the above && AVX512F (EBX[16]) && AVX512BW (EBX[30])
 *                                   && XCR0[7:5] == 111b (opmask and ZMM state). The tier also
 *                                   requires AVX512VL (EBX[31]), which the GCM code will use.
 *   aesfast_vaes_avx2_ctr32le_xor, aesfast_vaes_avx512_ctr32le_xor: the same as ctr32_xor of
 *                                   their width, with GCM-SIV's little-endian counter in bytes
 *                                   0..3 (aesfast_kernel.h); the same code, another counter format.
 *
 * Keys come from aesfast_aesni_set_key (kernels/amd64/aesni.S): the round keys are in FIPS-197
 * byte order, which is what (V)AESENC expects in memory.
 *
 * ABI: System V AMD64. Leaf functions, no stack frame, only caller-saved registers (rax, rcx,
 * rdx, rsi, rdi, r8, r9 and vector registers, all of which SysV makes caller-saved). Both end with
 * VZEROUPPER. Round keys are left in vector registers on return (zmm17-31, or the low halves of
 * ymm8/12/13/15): see the register policy in aesfast_kernel.h.
 *
 * Algorithm
 *   Each vector holds VL/16 counter blocks, one per 128-bit lane (VAESENC works lane by lane).
 *   The counter blocks are kept "native": the last 4 bytes of every lane are byte-swapped, so
 *   dword 3 of each lane is the counter as a little-endian integer. One VPADDD then advances all
 *   lanes modulo 2^32 with no carry into byte 11 (GCM's inc32), and one VPSHUFB with the same mask
 *   turns the native form back into counter blocks. Counter generation is isolated in the
 *   _ctr_init/_ctr_next macros, parameterized by the counter format: GCM-SIV's (ctr32le, a
 *   little-endian uint32 in the FIRST 4 bytes) is dword 0 as it is, so its native form is the
 *   counter block itself and only the dword that VPADDD increments differs.
 *
 *   The main loop keeps NVEC independent vectors in flight (NVEC * VL/16 blocks per iteration),
 *   enough to cover VAESENC's latency at its full throughput. The input XOR is folded into the
 *   last round: VAESENCLAST(s, k ^ in) = VAESENCLAST(s, k) ^ in.
 *
 *   Round keys are addressed from the end of the schedule (RKEND = rk + 16 * rounds), so the
 *   three key sizes share one instruction sequence and differ only in where they enter it (a
 *   branch on the round count, never on data). The 512-bit variant keeps all of them in
 *   zmm17-31; the 256-bit one has only ymm0-15 and keeps rk[0] and the last two, broadcasting
 *   each other round key from memory once per round for all vectors in flight.
 *
 *   Tail: the fewer than NVEC * VL/16 blocks left after the main loop are encrypted as the
 *   smallest power-of-two number of vectors (1, 2, 4 or 8) that covers them, then stored whole
 *   vector by whole vector, and the final 1..VL/16 blocks as halves and quarters of one vector
 *   (ymm and xmm stores, which work in both variants; nothing is read or written past the
 *   buffers).
 *
 * The macros below the argument names live in vaes_macros.h, which gcm_vaes.S shares.
 *
 * Register roles (V = ymm in the 256-bit variant, zmm in the 512-bit one):
 *   rdi KEY, rsi CTRP, rdx IN, rcx OUT, r8 NBLOCKS (arguments), eax ROUNDS, r9 RKEND
 *   V0-V7   blocks in flight                  V8   RKT: the current round key (256-bit only)
 *   V9      CTR: next counters, native form   V10  STEP: VL/16 in dword 3 (ctr32le: 0) per lane
 *   V11     BSWAP: the counter shuffle mask   V14  TMP: last round key ^ input
 *           (ctr32 only)
 *   RK0     rk[0]            (V12 / zmm17)    RKLAST the last round key    (V13 / zmm18)
 *   RKE1..  the round keys 1, 2, ... places before the last (V15 / zmm19-31)
 */

#include "asm_base.h"

#if defined(__x86_64__)

/* Arguments (SysV: rdi, rsi, rdx, rcx, r8). */
.set KEY,       %rdi    /* const aesfast_key * */
.set CTRP,      %rsi    /* const uint8_t ctr[16]: counter block of the first block */
.set IN,        %rdx    /* const uint8_t *in */
.set OUT,       %rcx    /* uint8_t *out */
.set NBLOCKS,   %r8     /* size_t nblocks, then the blocks left (minus one iteration's worth) */
.set NBLOCKSB,  %r8b

/* Scratch general-purpose registers. */
.set ROUNDS,    %eax    /* key->rounds: 10, 12 or 14 */
.set ROUNDSQ,   %rax
.set RKEND,     %r9     /* &key->rk[16 * rounds], the last round key */

#include "vaes_macros.h"

/*
 * The body of aesfast_vaes_*_ctr32_xor(const aesfast_key *key, const uint8_t ctr[16],
 * const uint8_t *in, uint8_t *out, size_t nblocks), for the vector length set by _set_veclen,
 * with \nvec (4 or 8) vectors per main-loop iteration.
 */
.macro _aes_ctr_xor fmt, nvec
.if (\nvec != 4) && (\nvec != 8)
        .error "_aes_ctr_xor: nvec must be 4 or 8"
.endif
        test            NBLOCKS, NBLOCKS
        jz              .Lret\@
        _load_key
        _ctr_init       \fmt

        sub             $\nvec*BPV, NBLOCKS
        jb              .Ltail\@
.Lloop\@:
        _ctr_xor_full   \fmt, \nvec
        sub             $\nvec*BPV, NBLOCKS
        jae             .Lloop\@
.Ltail\@:
        add             $\nvec*BPV, NBLOCKS     /* blocks left: 0 .. nvec*BPV-1 */
        jz              .Ldone\@
        _ctr_xor_tail_any \fmt, \nvec
.Ldone\@:
        vzeroupper
.Lret\@:
        ret
.endm

/* 256-bit: VAES + AVX2, 2 blocks per ymm, 8 ymm (16 blocks) in flight. */
        _set_veclen     32
AESFAST_FUNC(aesfast_vaes_avx2_ctr32_xor)
        _aes_ctr_xor    ctr32, 8
AESFAST_END(aesfast_vaes_avx2_ctr32_xor)

AESFAST_FUNC(aesfast_vaes_avx2_ctr32le_xor)
        _aes_ctr_xor    ctr32le, 8
AESFAST_END(aesfast_vaes_avx2_ctr32le_xor)

/* 512-bit: VAES + AVX-512, 4 blocks per zmm, 4 zmm (16 blocks) in flight. */
        _set_veclen     64
AESFAST_FUNC(aesfast_vaes_avx512_ctr32_xor)
        _aes_ctr_xor    ctr32, 4
AESFAST_END(aesfast_vaes_avx512_ctr32_xor)

AESFAST_FUNC(aesfast_vaes_avx512_ctr32le_xor)
        _aes_ctr_xor    ctr32le, 4
AESFAST_END(aesfast_vaes_avx512_ctr32le_xor)

#endif /* __x86_64__ */
