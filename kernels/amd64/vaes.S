/*
 * VAES tiers: AES-CTR32 on 256-bit (AVX2) and 512-bit (AVX-512) vectors, from one source.
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
 *   _ctr_init/_ctr_next macros, parameterized by the counter format, so that GCM-SIV's format (a
 *   little-endian uint32 in the FIRST 4 bytes, i.e. dword 0 as is) can be added later as a
 *   second format.
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
 * Register roles (V = ymm in the 256-bit variant, zmm in the 512-bit one):
 *   rdi KEY, rsi CTRP, rdx IN, rcx OUT, r8 NBLOCKS (arguments), eax ROUNDS, r9 RKEND
 *   V0-V7   blocks in flight                  V8   RKT: the current round key (256-bit only)
 *   V9      CTR: next counters, native form   V10  STEP: VL/16 in dword 3 of every lane
 *   V11     BSWAP: the counter shuffle mask   V14  TMP: last round key ^ input
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

        AESFAST_RODATA
        .p2align 6
/* Dword 3 of lane k = k: turns a counter broadcast to every lane into counters ctr+0..ctr+3. */
.Llane_inc_ctr32:
        .long 0, 0, 0, 0,  0, 0, 0, 1,  0, 0, 0, 2,  0, 0, 0, 3
/* Byte indices 0..11 then 15,14,13,12: reverses the last 4 bytes of a lane, keeps the first 12. */
.Lbswap_ctr32:
        .byte 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 14, 13, 12
/* Per-lane increments for one vector: 2 blocks per ymm, 4 per zmm. */
.Lstep2_ctr32:
        .long 0, 0, 0, 2
.Lstep4_ctr32:
        .long 0, 0, 0, 4

/*
 * _set_veclen 32|64: points the register names at ymm or zmm registers and sets VL (bytes per
 * vector), BPV (blocks per vector) and NKEYREGS (how many RKEn registers hold round keys).
 */
.macro _set_veclen vl
        .set            VL, \vl
        .set            BPV, \vl / 16
.irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
.if VL == 32
        .set            V\i, %ymm\i
.else
        .set            V\i, %zmm\i
.endif
        .set            Y\i, %ymm\i
        .set            X\i, %xmm\i
.endr
        .set            RKT, V8
        .set            CTR, V9
        .set            STEP, V10
        .set            BSWAP, V11
        .set            TMP, V14
        .set            YTMP, Y14
.if VL == 32
        .set            RK0, V12
        .set            RKLAST, V13
        .set            RKE1, V15
        .set            NKEYREGS, 1
.elseif VL == 64
        .set            RK0, %zmm17
        .set            RKLAST, %zmm18
        .set            RKE1, %zmm19
        .set            RKE2, %zmm20
        .set            RKE3, %zmm21
        .set            RKE4, %zmm22
        .set            RKE5, %zmm23
        .set            RKE6, %zmm24
        .set            RKE7, %zmm25
        .set            RKE8, %zmm26
        .set            RKE9, %zmm27
        .set            RKE10, %zmm28
        .set            RKE11, %zmm29
        .set            RKE12, %zmm30
        .set            RKE13, %zmm31
        .set            NKEYREGS, 13
.else
        .error "_set_veclen: VL must be 32 or 64"
.endif
.endm

/* Instructions whose mnemonic differs between VEX (ymm) and EVEX (zmm). */
.macro _vpxor a, b, dst
.if VL == 64
        vpxord          \a, \b, \dst
.else
        vpxor           \a, \b, \dst
.endif
.endm

.macro _vmovdqu src, dst
.if VL == 64
        vmovdqu8        \src, \dst
.else
        vmovdqu         \src, \dst
.endif
.endm

.macro _vmovdqa src, dst
.if VL == 64
        vmovdqa64       \src, \dst
.else
        vmovdqa         \src, \dst
.endif
.endm

/* A 128-bit memory operand copied to every lane. */
.macro _vbroadcasti128 src, dst
.if VL == 64
        vbroadcasti32x4 \src, \dst
.else
        vbroadcasti128  \src, \dst
.endif
.endm

/* ------------------------------------------------------------------------------------------ */
/* Counter generation. fmt = ctr32: GCM's inc32, a big-endian uint32 in bytes 12..15.           */
/* (GCM-SIV's format would use dword 0 as is: no shuffle, increments in dword 0.)               */
/* ------------------------------------------------------------------------------------------ */

/* CTR = native counters ctr+0 .. ctr+BPV-1 from the block at (CTRP); sets BSWAP and STEP. */
.macro _ctr_init fmt
.ifc \fmt, ctr32
        _vbroadcasti128 .Lbswap_ctr32(%rip), BSWAP
        _vbroadcasti128 (CTRP), CTR
        vpshufb         BSWAP, CTR, CTR         /* dword 3 of each lane = counter (LE) */
        vpaddd          .Llane_inc_ctr32(%rip), CTR, CTR /* lane k: + k */
.if BPV == 2
        _vbroadcasti128 .Lstep2_ctr32(%rip), STEP
.else
        _vbroadcasti128 .Lstep4_ctr32(%rip), STEP
.endif
.else
        .error "_ctr_init: unknown counter format"
.endif
.endm

/* \dst = the next BPV counter blocks; CTR advances by BPV (mod 2^32 per lane). */
.macro _ctr_next fmt, dst
.ifc \fmt, ctr32
        vpshufb         BSWAP, CTR, \dst        /* native -> big-endian counter blocks */
        vpaddd          STEP, CTR, CTR
.else
        .error "_ctr_next: unknown counter format"
.endif
.endm

/* ------------------------------------------------------------------------------------------ */
/* AES rounds                                                                                 */
/* ------------------------------------------------------------------------------------------ */

/* ROUNDS, RKEND, RK0, RKLAST and the round keys that live in registers (RKE1..RKE<NKEYREGS>). */
.macro _load_key
        movl            AESFAST_KEY_ROUNDS(KEY), ROUNDS
        mov             ROUNDSQ, RKEND
        shl             $4, RKEND
        add             KEY, RKEND              /* RKEND = &rk[16 * rounds] */
        _vbroadcasti128 (KEY), RK0
        _vbroadcasti128 (RKEND), RKLAST
.irp j, 1,2,3,4,5,6,7,8,9
.if \j <= NKEYREGS
        _vbroadcasti128 -16*\j(RKEND), RKE\j
.endif
.endr
.if NKEYREGS > 9
        /* RKEND-10 and beyond exist only for AES-192/256: do not read before rk[0]. */
        cmp             $12, ROUNDS
        jb              .Lkeys_loaded\@
        _vbroadcasti128 -16*10(RKEND), RKE10
        _vbroadcasti128 -16*11(RKEND), RKE11
        je              .Lkeys_loaded\@         /* flags still from the cmp */
        _vbroadcasti128 -16*12(RKEND), RKE12
        _vbroadcasti128 -16*13(RKEND), RKE13
.Lkeys_loaded\@:
.endif
.endm

/* One round with round key \key on V0..V(\n-1). */
.macro _vaesenc_n key, n
.irp i, 0,1,2,3,4,5,6,7
.if \i < \n
        vaesenc         \key, V\i, V\i
.endif
.endr
.endm

/* One round with the round key \j places before the last one: from a register if it has one,
 * else broadcast from memory once for all \n vectors. */
.macro _vaes_round j, n
.if \j <= NKEYREGS
        _vaesenc_n      RKE\j, \n
.else
        _vbroadcasti128 -16*\j(RKEND), RKT
        _vaesenc_n      RKT, \n
.endif
.endm

/* All rounds but the first AddRoundKey and the last round. AES-256 enters at RKEND-13, AES-192
 * at RKEND-11, AES-128 at RKEND-9; the branch depends only on the round count. */
.macro _aes_middle_rounds n
        cmp             $12, ROUNDS
        jb              .Lrounds128\@
        je              .Lrounds192\@
        _vaes_round     13, \n
        _vaes_round     12, \n
.Lrounds192\@:
        _vaes_round     11, \n
        _vaes_round     10, \n
.Lrounds128\@:
.irp j, 9,8,7,6,5,4,3,2,1
        _vaes_round     \j, \n
.endr
.endm

/* V0..V(\n-1) = the next \n vectors of counter blocks, XORed with rk[0]. */
.macro _ctr_blocks_n fmt, n
.irp i, 0,1,2,3,4,5,6,7
.if \i < \n
        _ctr_next       \fmt, V\i
        _vpxor          RK0, V\i, V\i
.endif
.endr
.endm

/* ------------------------------------------------------------------------------------------ */
/* CTR                                                                                        */
/* ------------------------------------------------------------------------------------------ */

/* Main loop body: \n whole vectors, input XOR folded into the last round. */
.macro _ctr_xor_full fmt, n
        _ctr_blocks_n   \fmt, \n
        _aes_middle_rounds \n
.irp i, 0,1,2,3,4,5,6,7
.if \i < \n
        _vpxor          \i*VL(IN), RKLAST, TMP
        vaesenclast     TMP, V\i, V\i
        _vmovdqu        V\i, \i*VL(OUT)
.endif
.endr
        add             $\n*VL, IN
        add             $\n*VL, OUT
.endm

/*
 * Tail: NBLOCKS = 1 .. \n*BPV blocks. Encrypts \n vectors of counters, then XORs and stores
 * exactly NBLOCKS blocks: whole vectors first, moving each next vector down into V0, then the
 * last 1..BPV blocks of V0.
 */
.macro _ctr_xor_tail fmt, n
        _ctr_blocks_n   \fmt, \n
        _aes_middle_rounds \n
.irp i, 0,1,2,3,4,5,6,7
.if \i < \n
        vaesenclast     RKLAST, V\i, V\i
.endif
.endr
.irp i, 1,2,3,4,5,6,7
.if \i < \n
        cmp             $BPV, NBLOCKS
        jbe             .Llast_vec\@            /* V0 is the last vector */
        _vpxor          (IN), V0, V0
        _vmovdqu        V0, (OUT)
        add             $VL, IN
        add             $VL, OUT
        sub             $BPV, NBLOCKS
        _vmovdqa        V\i, V0
.endif
.endr
.Llast_vec\@:                                   /* 1 .. BPV blocks of V0 left */
        cmp             $BPV, NBLOCKS
        jb              .Lpartial\@
        _vpxor          (IN), V0, V0
        _vmovdqu        V0, (OUT)
        jmp             .Ltail_done\@
.Lpartial\@:
.if VL == 64
        test            $2, NBLOCKSB
        jz              .Lpartial1\@
        vpxor           (IN), Y0, YTMP          /* blocks 0-1 from the low half */
        vmovdqu         YTMP, (OUT)
        vextracti64x4   $1, V0, Y0              /* block 2 moves to the bottom */
        add             $32, IN
        add             $32, OUT
.Lpartial1\@:
        test            $1, NBLOCKSB
        jz              .Ltail_done\@
.endif
        vpxor           (IN), X0, X0            /* the last single block */
        vmovdqu         X0, (OUT)
.Ltail_done\@:
.endm

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
        cmp             $BPV, NBLOCKS
        ja              .Ltail2\@
        _ctr_xor_tail   \fmt, 1
        jmp             .Ldone\@
.Ltail2\@:
        cmp             $2*BPV, NBLOCKS
        ja              .Ltail4\@
        _ctr_xor_tail   \fmt, 2
        jmp             .Ldone\@
.Ltail4\@:
.if \nvec == 8
        cmp             $4*BPV, NBLOCKS
        ja              .Ltail8\@
        _ctr_xor_tail   \fmt, 4
        jmp             .Ldone\@
.Ltail8\@:
        _ctr_xor_tail   \fmt, 8
.else
        _ctr_xor_tail   \fmt, 4
.endif
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

/* 512-bit: VAES + AVX-512, 4 blocks per zmm, 4 zmm (16 blocks) in flight. */
        _set_veclen     64
AESFAST_FUNC(aesfast_vaes_avx512_ctr32_xor)
        _aes_ctr_xor    ctr32, 4
AESFAST_END(aesfast_vaes_avx512_ctr32_xor)

#endif /* __x86_64__ */
