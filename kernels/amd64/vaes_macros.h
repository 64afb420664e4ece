/*
 * Macros shared by the VAES kernels (vaes.S: CTR; gcm_vaes.S: GCM), for 256-bit and 512-bit
 * vectors from one source. Included by assembly files only, after asm_base.h and after the
 * including file has named its argument registers (KEY, CTRP, IN, OUT, NBLOCKS, NBLOCKSB) and
 * scratch registers (ROUNDS, ROUNDSQ, RKEND): the macros refer to those names, so each file can
 * give them the registers its own ABI puts the arguments in.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * What is here: the counter constants (each including file gets its own copy in .rodata),
 * _set_veclen and its register roles (see the top of vaes.S), the VEX/EVEX mnemonic wrappers,
 * counter generation in two formats (_ctr_consts, _ctr_init, _ctr_next), the key and round macros
 * (_load_key, _vaes_round, _aes_middle_rounds), and the CTR tail (_ctr_xor_tail and its
 * dispatcher _ctr_xor_tail_any).
 */
#ifndef AESFAST_VAES_MACROS_H
#define AESFAST_VAES_MACROS_H

        AESFAST_RODATA
        .p2align 6
/* Dword 3 of lane k = k: turns a counter broadcast to every lane into counters ctr+0..ctr+3. */
.Llane_inc_ctr32:
        .long 0, 0, 0, 0,  0, 0, 0, 1,  0, 0, 0, 2,  0, 0, 0, 3
/* The same in dword 0, for the little-endian counter. */
.Llane_inc_ctr32le:
        .long 0, 0, 0, 0,  1, 0, 0, 0,  2, 0, 0, 0,  3, 0, 0, 0
/* Byte indices 0..11 then 15,14,13,12: reverses the last 4 bytes of a lane, keeps the first 12. */
.Lbswap_ctr32:
        .byte 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 14, 13, 12
/* Per-lane increments for one vector: 2 blocks per ymm, 4 per zmm. */
.Lstep2_ctr32:
        .long 0, 0, 0, 2
.Lstep4_ctr32:
        .long 0, 0, 0, 4
.Lstep2_ctr32le:
        .long 2, 0, 0, 0
.Lstep4_ctr32le:
        .long 4, 0, 0, 0

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
/* Counter generation, for two counter formats \fmt:                                          */
/*   ctr32    GCM's inc32: a big-endian uint32 in bytes 12..15. Native form: those 4 bytes    */
/*            reversed (VPSHUFB with BSWAP), so dword 3 is the counter; it is incremented.    */
/*   ctr32le  GCM-SIV's: a little-endian uint32 in bytes 0..3, i.e. dword 0 as it is: the     */
/*            native form is the counter block itself (no shuffle); dword 0 is incremented.   */
/* In both, VPADDD adds per dword, so the counter wraps mod 2^32 and the other 12 bytes never */
/* change.                                                                                    */
/* ------------------------------------------------------------------------------------------ */

/* STEP, and BSWAP for ctr32 (what _ctr_next needs besides CTR). */
.macro _ctr_consts fmt
.ifc \fmt, ctr32
        _vbroadcasti128 .Lbswap_ctr32(%rip), BSWAP
.else
.ifnc \fmt, ctr32le
        .error "_ctr_consts: unknown counter format"
.endif
.endif
.if BPV == 2
        _vbroadcasti128 .Lstep2_\fmt(%rip), STEP
.else
        _vbroadcasti128 .Lstep4_\fmt(%rip), STEP
.endif
.endm

/* CTR = native counters ctr+0 .. ctr+BPV-1 from the block at (CTRP); sets STEP (and BSWAP). */
.macro _ctr_init fmt
        _ctr_consts     \fmt
        _vbroadcasti128 (CTRP), CTR
.ifc \fmt, ctr32
        vpshufb         BSWAP, CTR, CTR         /* dword 3 of each lane = counter (LE) */
.endif
        vpaddd          .Llane_inc_\fmt(%rip), CTR, CTR /* lane k: + k */
.endm

/*
 * \dst = the next BPV counter blocks XORed with \xkey (rk[0]); CTR advances by BPV (mod 2^32 per
 * lane). \step and \bswap (registers or memory operands) default to STEP and BSWAP.
 */
.macro _ctr_next fmt, dst, xkey, step=STEP, bswap=BSWAP
.ifc \fmt, ctr32
        vpshufb         \bswap, CTR, \dst       /* native -> big-endian counter blocks */
        _vpxor          \xkey, \dst, \dst
.else
.ifnc \fmt, ctr32le
        .error "_ctr_next: unknown counter format"
.endif
        _vpxor          \xkey, CTR, \dst        /* native = counter blocks */
.endif
        vpaddd          \step, CTR, CTR
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
        _ctr_next       \fmt, V\i, RK0
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
 * NBLOCKS = 1 .. \nvec*BPV-1 blocks left after a main loop of \nvec vectors (\nvec = 4 or 8):
 * dispatches to _ctr_xor_tail with the smallest power-of-two number of vectors that covers them.
 * Needs _load_key's registers and CTR, BSWAP, STEP.
 */
.macro _ctr_xor_tail_any fmt, nvec
        cmp             $BPV, NBLOCKS
        ja              .Ltail2\@
        _ctr_xor_tail   \fmt, 1
        jmp             .Ltail_any_done\@
.Ltail2\@:
        cmp             $2*BPV, NBLOCKS
        ja              .Ltail4\@
        _ctr_xor_tail   \fmt, 2
        jmp             .Ltail_any_done\@
.Ltail4\@:
.if \nvec == 8
        cmp             $4*BPV, NBLOCKS
        ja              .Ltail8\@
        _ctr_xor_tail   \fmt, 4
        jmp             .Ltail_any_done\@
.Ltail8\@:
        _ctr_xor_tail   \fmt, 8
.else
        _ctr_xor_tail   \fmt, 4
.endif
.Ltail_any_done\@:
.endm

#endif /* AESFAST_VAES_MACROS_H */
