/*
 * VAES tiers: GHASH and POLYVAL with VPCLMULQDQ, and AES-GCM and AES-GCM-SIV's open, stitched,
 * on 256-bit (AVX2) and 512-bit (AVX-512) vectors, from one source.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * Functions (T = vaes_avx2 or vaes_avx512; prototypes and contracts in aesfast_kernel.h):
 *
 *   aesfast_T_ghash_init(hkey, h)        the table of H's powers below (the same for both T).
 *   aesfast_T_ghash(hkey, acc, in, n)    acc = GHASH(acc, n blocks).
 *   aesfast_T_gcm_ctr_then_hash(key, hkey, acc, ctr, in, out, n)   seal: CTR, then GHASH(out).
 *   aesfast_T_gcm_hash_then_ctr(key, hkey, acc, ctr, in, out, n)   open: GHASH(in), then CTR.
 *   aesfast_T_polyval_init(hkey, h), aesfast_T_polyval(hkey, acc, in, n)   the same for POLYVAL.
 *   aesfast_T_polyval_init_few(hkey, h)  H'^8..H'^1 only, enough for hashes of <= 8 blocks.
 *   aesfast_T_gcmsiv_ctr_then_hash(key, hkey, acc, ctr, in, out, n)   GCM-SIV open: CTR with
 *                                        the little-endian counter, then POLYVAL(out).
 *
 * CPU features: those of the same tier's ctr32_xor (see vaes.S) and VPCLMULQDQ (CPUID leaf 7
 * ECX[10]). The 512-bit functions also use AVX512F (VPTERNLOGD, VEXTRACTI64X4, VBROADCASTI32X4,
 * VPXORD, KMOVQ), AVX512BW (VMOVDQU8 with a zeroing mask, VPSHUFB on zmm) and BMI2 (BZHI, for
 * the tail mask); every EVEX instruction is on zmm, so none needs AVX512VL. The 256-bit
 * functions use VEX encodings only. provider/dispatch.c checks all of these for both tiers.
 *
 * ABI: System V AMD64, leaf functions without a stack frame; the stitched functions read their
 * seventh argument, nblocks, at 8(%rsp). Only caller-saved registers are used. Every function
 * ends with VZEROUPPER. Round keys, H powers and keystream may stay in vector registers (see the
 * register policy in aesfast_kernel.h).
 *
 * The field, and why no bit reflection is needed
 *   GHASH works in GF(2^128) = GF(2)[x] / P(x), P = x^128 + x^7 + x^2 + x + 1, and stores the
 *   coefficient of x^0 in the top bit of byte 0 (SP 800-38D). Byte-reversing a block (one
 *   VPSHUFB) gives a 128-bit little-endian integer A whose bit 127-i is the coefficient of x^i.
 *   Read A instead as a polynomial in y with bit i the coefficient of y^i: then A = y^127 a(1/y),
 *   and x -> 1/y maps the field onto GF(2)[y] / P'(y) with the reversed polynomial
 *   P' = y^128 + y^127 + y^126 + y^121 + 1. VPCLMULQDQ multiplies such y-polynomials exactly,
 *   so the plan is: multiply the integers as they are, and reduce modulo P'.
 *
 *   The reduction is Montgomery's: for a 256-bit product Z, adding q * P' with q = Z mod y^64
 *   clears the low 64 bits (P' = 1 mod y^64, so q needs no inverse), twice clears 128 bits, and
 *   the high half is Z * y^-128 mod P'. Each fold is one carryless multiply by the 64-bit
 *   constant C = y^63 + y^62 + y^57 (the 0xc2 top byte of .Lgfpoly), one qword swap and XORs,
 *   for the other terms of P' (1 and y^128) only move qwords. Z * y^-128 of A = y^127 a(1/y)
 *   and B = y^127 b(1/y) is y^126 (ab)(1/y): one power of y short. So the hash key is stored
 *   premultiplied by y (H' = y * Hrev mod P': a one-bit left shift, plus P' if bit 127 fell
 *   out) and then every product of a data block and H' comes out in the data's own form,
 *   ready for the next block, with no shifts in the loops. Powers: H'^(i+j) = mul(H'^i, H'^j)
 *   with the same multiply, since each factor contributes the one y it needs.
 *
 * POLYVAL (GCM-SIV, RFC 8452) is this arithmetic with nothing around it
 *   POLYVAL's field is GF(2)[y] / P'(y) with the bits of each block, read as a little-endian
 *   integer, as the coefficients (bit i of y^i): the integer form A above, as loaded, with no
 *   byte reversal. Its product is dot(a, b) = a b y^-128 mod P': the Montgomery product above,
 *   exactly. So POLYVAL is the same macros with hash format "polyval" instead of "ghash": no
 *   VPSHUFB of data blocks, acc or H, and H' = H (dot's own y^-128 is what the y premultiplied
 *   into GHASH's H' made up for). This is RFC 8452's POLYVAL(H, X) =
 *   rev(GHASH(mulX(rev(H)), rev(X))) read backwards: mulX is the product by x = 1/y, which
 *   cancels the y of H'. The table has the same layout; GCM-SIV's open (CTR with the counter
 *   format ctr32le of vaes_macros.h, then POLYVAL of the output) is the seal loop below with
 *   both formats changed, and GCM-SIV's seal is polyval, then ctr32le_xor (vaes.S), since its
 *   counter starts from the tag.
 *
 * Many blocks, one reduction
 *   GHASH of 16 blocks X0..X15 from acc is (acc ^ X0) H^16 ^ X1 H^15 ^ ... ^ X15 H^1: sixteen
 *   independent products, added before one reduction (reduction is linear). Each vector of
 *   VL/16 blocks meets a vector of the matching powers, lane for lane; the three 128-bit parts
 *   of every 256-bit product (LO = a_lo b_lo, HI = a_hi b_hi, MI = the middle) are added in
 *   accumulators whose lanes are reduced together and only then XORed into one lane.
 *   On ymm, products use Karatsuba: MI = (a_lo ^ a_hi)(b_lo ^ b_hi) ^ LO ^ HI, 3 VPCLMULQDQ per
 *   vector instead of 4 for two more cheap XOR/shuffle operations; the ^ LO ^ HI is done once per
 *   16 blocks, on the sums. (Zen 3, measured with independent instructions: VAESENC ymm 2 per
 *   cycle, VPCLMULQDQ ymm or xmm 1 per 2 cycles, VPXOR ymm 4 per cycle, but they share the
 *   vector pipes: AES-128's 80 VAESENC(LAST) + 26 VPCLMULQDQ take 61 cycles, not 52, and with
 *   the loop's ~100 XORs and 10 VPSHUFDs 78. That mix, not either unit alone, bounds the
 *   stitched loop, which runs at 95-98 cycles per 16 blocks (AES-128); the unstitched GHASH
 *   loop is at its VPCLMULQDQ bound, 52-53.)
 *   On zmm, products are schoolbook (MI = a_hi b_lo ^ a_lo b_hi, 4 VPCLMULQDQ per vector) and
 *   the sums use VPTERNLOGD's three-way XOR. On Ice Lake-class cores VAESENC zmm runs on port 0
 *   only, VPCLMULQDQ zmm and shuffles on port 5, zmm logic on either: the loop is bound by its
 *   count of vector operations, and Karatsuba's VPSHUFD and VPXORD per vector cost more than
 *   the VPCLMULQDQ they save (llvm-mca-14 -mcpu=icelake-server, AES-128 seal loop: 49.4 cycles
 *   per 16 blocks with Karatsuba, 42.9 without).
 *
 * The hash-key table (aesfast_hash_key.tbl, 1024 bytes, 16-byte aligned only; POLYVAL's the same
 * with H' = H)
 *     bytes   0..255   H'^16, H'^15, ..., H'^1 (16 bytes each): the vector for blocks
 *                      i*VL/16 .. of a 16-block group is loaded from offset i*VL, and a group of
 *                      n < 16 blocks starts at offset 16*(16-n).
 *     bytes 256..511   for each power at the same index, lo ^ hi in both qwords (Karatsuba;
 *                      only the 256-bit functions read them).
 *     bytes 512..1023  zero. A masked tail may read past H'^1 into the Karatsuba terms or past
 *                      them, always beside zeroed data lanes, so those lanes add nothing.
 *
 * Stitching
 *   Each iteration runs AES on 16 counter blocks (8 ymm or 4 zmm) and GHASH on 16 blocks; the
 *   GHASH steps (one vector of blocks each, then the reduction) are spread over the 9 AES rounds
 *   that every key size has, so that the VAESENC and VPCLMULQDQ streams interleave. (A loop per
 *   key size, spreading them over all 13 rounds of AES-256, measured no faster.) Step 0, the
 *   one that takes in the previous hash state, runs last, so the chain from one group's hash
 *   state to the next is one multiply and the reduction.
 *
 *   Seal hashes the ciphertext of the previous iteration (read back from out) while encrypting
 *   the next: the first 16 blocks are encrypted alone, the last 16 hashed alone. Open hashes the
 *   current ciphertext while decrypting it; all loads of an iteration precede its stores, so
 *   in == out works. Counters are generated as in vaes.S (native form, inc32 per lane, or
 *   GCM-SIV's dword 0 as is), with the step and shuffle as memory operands.
 *
 *   Tail (fewer than 16 blocks): the keystream comes from the CTR tail of vaes_macros.h
 *   (_ctr_xor_tail_any); the hash loops over vectors of powers starting at H'^n, loading the last
 *   partial vector as an xmm (256-bit: one block, the upper lane zeroed by VEX) or with a zeroing
 *   byte mask (512-bit: 1..3 blocks, mask from BZHI). Nothing is read or written past a buffer.
 *
 * Why the widths differ where they do
 *   The 256-bit main loop needs 8 AES states (ymm0-7), the counter (ymm9), a round-key register
 *   (ymm8) and six GHASH registers (ymm10-15): all 16 ymm registers. Round keys, H powers, the
 *   counter step and shuffle masks therefore come from memory (broadcasts and memory operands;
 *   loads are cheap next to VAESENC). The 512-bit variant has 32 registers and keeps the round
 *   keys in zmm17-31 as vaes.S does; everything else is the same instruction sequence. Both use
 *   16 blocks per iteration, so both use H'^16..H'^1.
 *
 * Register roles in the GCM macros (V = ymm or zmm, as set by _set_veclen in vaes_macros.h):
 *   V0-V7 (V0-V3)  AES states                  V8   RKT: the current round key (256-bit),
 *                                              and GHP_V: H powers in the hash steps between
 *                                              the rounds (loaded once for two products: as
 *                                              VPCLMULQDQ memory operands, 13% slower on Zen 3)
 *   V9   CTR: next counters, native form       V10  GLO: sum of the LO products
 *   V11  GMI: sum of the middle products       V12  GHI: sum of the HI products
 *   V13  GD: a vector of data blocks           V14  GT: products and temporaries
 *   V15  GACC: the hash state (lane 0; the other lanes zero)
 *   zmm only: zmm16 and zmm4-6 (free there: 4 AES states) carry products from one hash step to
 *   the next (_ghash_step64), zmm16 also the second middle product in _ghash_mul_acc.
 *   The CTR tail uses the roles of vaes.S; the hash state is kept in *acc across it.
 */

#include "asm_base.h"

#if defined(__x86_64__)

/* Stitched functions' arguments (SysV: rdi, rsi, rdx, rcx, r8, r9, then 8(%rsp)). */
.macro _gcm_args
        .set            KEY,      %rdi  /* const aesfast_key * */
        .set            HKEY,     %rsi  /* const aesfast_hash_key *: the table of powers */
        .set            ACCP,     %rdx  /* uint8_t acc[16] */
        .set            CTRP,     %rcx  /* const uint8_t ctr[16]; then free (GSRC) */
        .set            IN,       %r8   /* const uint8_t *in */
        .set            OUT,      %r9   /* uint8_t *out */
        .set            NBLOCKS,  %r10  /* blocks left (minus one iteration's worth) */
        .set            NBLOCKSB, %r10b
        .set            ROUNDS,   %eax  /* key->rounds; then free (GHP) */
        .set            ROUNDSQ,  %rax
        .set            RKEND,    %r11  /* &key->rk[16 * rounds]; then free (GCNT) */
        .set            GSRC,     %rcx  /* _ghash_tail: the blocks to hash */
        .set            GCNT,     %r11  /* _ghash_tail: how many (1..15) */
        .set            GHP,      %rax  /* _ghash_tail: the current vector of powers */
        .set            GTMPQ,    %r10  /* _ghash_tail: the 512-bit tail mask */
.endm

/* aesfast_T_ghash's arguments (rdi, rsi, rdx, rcx). */
.macro _ghash_args
        .set            HKEY,     %rdi
        .set            ACCP,     %rsi
        .set            GSRC,     %rdx  /* const uint8_t *in */
        .set            GCNT,     %rcx  /* nblocks, then the blocks left */
        .set            GHP,      %rax
        .set            GTMPQ,    %r10
.endm

/* The shared macros name these before they are first expanded; each function re-sets them. */
        _gcm_args

#include "vaes_macros.h"

        AESFAST_RODATA
        .p2align 6
/* 0xc2000000000000000000000000000001 per lane: the low 128 bits of P'(y), y^127+y^126+y^121+1.
 * Its high qword is C, the fold constant of the Montgomery reduction; all of it is what the
 * one-bit shift in hash_init adds back when bit 127 falls out. */
.Lgfpoly:
        .quad 1, 0xc200000000000000, 1, 0xc200000000000000
        .quad 1, 0xc200000000000000, 1, 0xc200000000000000
/* Counter shuffle (vaes_macros.h's .Lbswap_ctr32) for four lanes, as a memory operand. */
.Lctr_bswap_vl:
        .byte 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 14, 13, 12
        .byte 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 14, 13, 12
        .byte 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 14, 13, 12
        .byte 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 14, 13, 12
/* Per-lane counter steps for one vector: 4 blocks per zmm, 2 per ymm, in dword 3 for ctr32 and
 * in dword 0 for ctr32le (see vaes_macros.h). */
.Lctr_step4_ctr32_vl:
        .long 0, 0, 0, 4,  0, 0, 0, 4,  0, 0, 0, 4,  0, 0, 0, 4
.Lctr_step4_ctr32le_vl:
        .long 4, 0, 0, 0,  4, 0, 0, 0,  4, 0, 0, 0,  4, 0, 0, 0
.Lctr_step2_ctr32_vl:
        .long 0, 0, 0, 2,  0, 0, 0, 2
.Lctr_step2_ctr32le_vl:
        .long 2, 0, 0, 0,  2, 0, 0, 0
/* Byte indices 15..0 per lane: reverses each block (SP 800-38D order <-> the integer A). A
 * VPSHUFB memory operand, so it is as wide as a zmm. */
.Lbswap128:
        .byte 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0
        .byte 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0
        .byte 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0
        .byte 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0

/* _set_veclen's roles plus the GCM ones (see the top of this file). */
.macro _set_gcm_veclen vl
        _set_veclen     \vl
        .set            NV, 16 / BPV            /* vectors per 16-block iteration */
        .set            GLO, V10
        .set            GMI, V11
        .set            GHI, V12
        .set            GD, V13
        .set            GT, V14
        .set            GACC, V15
        .set            GHP_V, V8               /* RKT between the rounds' uses */
        .set            GACC_X, %xmm15
        .set            GHI_X, %xmm12
        .set            GHI_Y, %ymm12
        .set            GD_X, %xmm13
        .set            GT_X, %xmm14
        .set            GT_Y, %ymm14
        .set            GMID2, %zmm16           /* zmm only: the second middle product */
.endm

/* \dst ^= \a ^ \b: one VPTERNLOGD (0x96 = three-way XOR) on zmm, two VPXORs on ymm. */
.macro _vpxor3 a, b, dst
.if VL == 64
        vpternlogd      $0x96, \a, \b, \dst
.else
        vpxor           \a, \dst, \dst
        vpxor           \b, \dst, \dst
.endif
.endm

/* ------------------------------------------------------------------------------------------ */
/* GHASH                                                                                      */
/* ------------------------------------------------------------------------------------------ */

/* \reg = its blocks as integers (and back): a byte reversal per lane for ghash, nothing for
 * polyval, whose blocks already are the little-endian integers. */
.macro _hash_bswap hfmt, reg
.ifc \hfmt, ghash
        vpshufb         .Lbswap128(%rip), \reg, \reg
.else
.ifnc \hfmt, polyval
        .error "unknown hash format"
.endif
.endif
.endm

/* GACC = the hash state from *acc as the integer A, in lane 0 (other lanes zero). */
.macro _load_acc hfmt
        vmovdqu         (ACCP), GACC_X          /* VEX: clears the rest of the register */
        _hash_bswap     \hfmt, GACC_X
.endm

/* *acc = lane 0 of GACC in the format's byte order (GHASH: SP 800-38D's). */
.macro _store_acc hfmt
.ifc \hfmt, ghash
        vpshufb         .Lbswap128(%rip), GACC_X, GT_X
        vmovdqu         GT_X, (ACCP)
.else
        _hash_bswap     \hfmt, GACC_X          /* (checks the format) */
        vmovdqu         GACC_X, (ACCP)
.endif
.endm

/*
 * GD (blocks as integers) times the powers at \disp(\hk) (Karatsuba terms 256 bytes on), lane by
 * lane, added to GLO/GMI/GHI; \first = 1 writes the sums instead. The powers pass through GHP_V.
 * GMI gets the raw Karatsuba product (a_lo ^ a_hi)(b_lo ^ b_hi); _ghash_reduce fixes it.
 * In AT&T order VPCLMULQDQ is (imm, src2, src1, dst): imm bit 0 picks src1's qword, bit 4 src2's.
 */
.macro _ghash_mul_acc hk, disp, first
.if VL == 64
        /* zmm: schoolbook, 4 VPCLMULQDQ and no Karatsuba shuffles; GMI gets both middle
         * products, added with one VPTERNLOGD. GD is consumed; GT and zmm16 are temporaries. */
        _vmovdqu        \disp(\hk), GHP_V               /* the powers */
.if \first
        vpclmulqdq      $0x00, GHP_V, GD, GLO           /* a_lo * b_lo */
        vpclmulqdq      $0x01, GHP_V, GD, GMI           /* a_hi * b_lo */
        vpclmulqdq      $0x10, GHP_V, GD, GT            /* a_lo * b_hi */
        vpclmulqdq      $0x11, GHP_V, GD, GHI           /* a_hi * b_hi */
        vpxord          GT, GMI, GMI
.else
        vpclmulqdq      $0x00, GHP_V, GD, GT
        vpclmulqdq      $0x01, GHP_V, GD, GMID2
        vpxord          GT, GLO, GLO
        vpclmulqdq      $0x10, GHP_V, GD, GT
        vpternlogd      $0x96, GT, GMID2, GMI
        vpclmulqdq      $0x11, GHP_V, GD, GD
        vpxord          GD, GHI, GHI
.endif
.else
        _vmovdqu        \disp(\hk), GHP_V               /* the powers */
.if \first
        vpclmulqdq      $0x00, GHP_V, GD, GLO           /* a_lo * b_lo */
        vpclmulqdq      $0x11, GHP_V, GD, GHI           /* a_hi * b_hi */
        _vmovdqu        256+\disp(\hk), GHP_V           /* their Karatsuba terms */
        vpshufd         $0x4e, GD, GT                   /* qwords swapped */
        _vpxor          GD, GT, GT                      /* a_lo ^ a_hi in the low qword */
        vpclmulqdq      $0x00, GHP_V, GT, GMI           /* (a_lo ^ a_hi)(b_lo ^ b_hi) */
.else
        vpclmulqdq      $0x00, GHP_V, GD, GT
        _vpxor          GT, GLO, GLO
        vpclmulqdq      $0x11, GHP_V, GD, GT
        _vpxor          GT, GHI, GHI
        _vmovdqu        256+\disp(\hk), GHP_V
        vpshufd         $0x4e, GD, GT
        _vpxor          GD, GT, GT
        vpclmulqdq      $0x00, GHP_V, GT, GT
        _vpxor          GT, GMI, GMI
.endif
.endif
.endm

/*
 * Step \i of a 16-block group at \off(\src): vector \i of the blocks times vector \i of
 * H'^16..H'^1. Step 0 adds the hash state (GACC, lane 0) into block 0 first, so it is the only
 * step that waits for the previous group's reduction: the steps run in the order 1, 2, ...,
 * NV-1, 0 (step 1 writing the sums), and only step 0 and the reduction are on the chain from
 * one group's hash state to the next.
 */
.macro _ghash_step hfmt, i, src, off
        _vmovdqu        \off+\i*VL(\src), GD
        _hash_bswap     \hfmt, GD              /* blocks -> integers */
.if VL == 64
.if \i == 0
        _vpxor          GACC, GD, GD
.endif
        _ghash_step64   \i
.elseif \i == 0
        _vpxor          GACC, GD, GD
        _ghash_mul_acc  HKEY, 0, 0
.else
        _ghash_mul_acc  HKEY, \i*VL, (\i == 1)
.endif
.endm

/*
 * zmm step \i (NV = 4, run in the order 1, 2, 3, 0): GD times the powers at \i*VL(HKEY), the 16
 * products of a group summed with as few VPTERNLOGDs as three-way XORs allow, by carrying some
 * products from one step into the next: step 2 keeps its LO and HI products (zmm4, zmm5) for
 * step 3 to add with its own, and each step's second middle product (zmm16, zmm6, zmm16) goes in
 * with the next step's first. 8 XORs per group instead of 10 (and none for Karatsuba).
 */
.macro _ghash_step64 i
        _vmovdqu        \i*VL(HKEY), GHP_V              /* the powers */
.if \i == 1
        vpclmulqdq      $0x00, GHP_V, GD, GLO           /* a_lo * b_lo */
        vpclmulqdq      $0x01, GHP_V, GD, GMI           /* a_hi * b_lo */
        vpclmulqdq      $0x10, GHP_V, GD, %zmm16        /* a_lo * b_hi: to step 2 */
        vpclmulqdq      $0x11, GHP_V, GD, GHI           /* a_hi * b_hi */
.elseif \i == 2
        vpclmulqdq      $0x00, GHP_V, GD, %zmm4         /* LO: to step 3 */
        vpclmulqdq      $0x01, GHP_V, GD, GT
        vpternlogd      $0x96, %zmm16, GT, GMI
        vpclmulqdq      $0x10, GHP_V, GD, %zmm6         /* to step 3 */
        vpclmulqdq      $0x11, GHP_V, GD, %zmm5         /* HI: to step 3 */
.elseif \i == 3
        vpclmulqdq      $0x00, GHP_V, GD, GT
        vpternlogd      $0x96, %zmm4, GT, GLO
        vpclmulqdq      $0x01, GHP_V, GD, GT
        vpternlogd      $0x96, %zmm6, GT, GMI
        vpclmulqdq      $0x10, GHP_V, GD, %zmm16        /* to step 0 */
        vpclmulqdq      $0x11, GHP_V, GD, GD
        vpternlogd      $0x96, %zmm5, GD, GHI
.elseif \i == 0
        vpclmulqdq      $0x00, GHP_V, GD, GT            /* LO first: the reduction waits on it */
        vpxord          GT, GLO, GLO
        vpclmulqdq      $0x01, GHP_V, GD, GT
        vpternlogd      $0x96, %zmm16, GT, GMI
        vpclmulqdq      $0x10, GHP_V, GD, GT
        vpxord          GT, GMI, GMI
        vpclmulqdq      $0x11, GHP_V, GD, GD
        vpxord          GD, GHI, GHI
.else
        .error "_ghash_step64: NV must be 4"
.endif
.endm

/*
 * GACC (lane 0) = GLO/GMI/GHI reduced and summed over the lanes: the Karatsuba fix, then two
 * Montgomery folds (see the top of this file), each lane on its own, then the lanes XORed.
 * With the 256-bit product Z in LO (bits 0..127), MI (64..191) and HI (128..255):
 *   fold 1: LO's low qword L0 is cleared by adding L0 * P' * 1: L0 * C lands on bits 64..190
 *           (MI), L0 * y^128 on MI's high qword, and LO's high qword moves down to MI's low one;
 *   fold 2: the same from MI into HI, which is then the reduced result.
 */
.macro _ghash_reduce
.if VL == 32
        _vpxor3         GLO, GHI, GMI                   /* MI = Karatsuba ^ LO ^ HI */
.endif
        vpclmulqdq      $0x10, .Lgfpoly(%rip), GLO, GT  /* L0 * C */
        vpshufd         $0x4e, GLO, GLO                 /* [L1, L0] */
        _vpxor3         GT, GLO, GMI
        vpclmulqdq      $0x10, .Lgfpoly(%rip), GMI, GT  /* M0 * C */
        vpshufd         $0x4e, GMI, GMI                 /* [M1, M0] */
        _vpxor3         GT, GMI, GHI
.if VL == 64
        vextracti64x4   $1, GHI, GT_Y                   /* lanes 2-3 onto 0-1 */
        vpxor           GT_Y, GHI_Y, GHI_Y              /* VEX: clears bits 256..511 */
.endif
        vextracti128    $1, GHI_Y, GT_X                 /* lane 1 onto lane 0 */
        vpxor           GT_X, GHI_X, GACC_X             /* VEX: lane 0 only */
.endm

/* GHASH of one whole 16-block group at \off(\src), unstitched. */
.macro _ghash_group hfmt, src, off
.irp i, 1,2,3,4,5,6,7
.if \i < NV
        _ghash_step     \hfmt, \i, \src, \off
.endif
.endr
        _ghash_step     \hfmt, 0, \src, \off
        _ghash_reduce
.endm

/*
 * GHASH of GCNT = 1..15 blocks at GSRC into GACC: vector by vector against the powers from
 * H'^GCNT on (GHP), the last partial vector loaded with its missing lanes zeroed. Advances GSRC
 * and GHP; clobbers GCNT, GTMPQ, and k1 on zmm.
 */
.macro _ghash_tail hfmt
        _vpxor          GLO, GLO, GLO
        _vpxor          GMI, GMI, GMI
        _vpxor          GHI, GHI, GHI
        mov             GCNT, GHP
        shl             $4, GHP
        neg             GHP
        lea             256(HKEY, GHP), GHP     /* &H'^GCNT = tbl + 16 * (16 - GCNT) */
.Lgt_loop\@:
        cmp             $BPV, GCNT
        jb              .Lgt_part\@
        _vmovdqu        (GSRC), GD
        _hash_bswap     \hfmt, GD              /* blocks -> integers */
        _vpxor          GACC, GD, GD            /* the state into the first block ... */
        _vpxor          GACC, GACC, GACC        /* ... and only there */
        _ghash_mul_acc  GHP, 0, 0
        add             $VL, GSRC
        add             $VL, GHP
        sub             $BPV, GCNT
        jnz             .Lgt_loop\@
        jmp             .Lgt_reduce\@
.Lgt_part\@:                                    /* 1 .. BPV-1 blocks */
.if VL == 32
        vmovdqu         (GSRC), GD_X            /* one block; VEX clears the upper lane */
.else
        shl             $4, GCNT                /* bytes */
        mov             $-1, GTMPQ
        bzhi            GCNT, GTMPQ, GTMPQ      /* the low 16 * GCNT bits set */
        kmovq           GTMPQ, %k1
        vmovdqu8        (GSRC), %zmm13{%k1}{z}  /* GD; masked-off bytes are zero, never read */
.endif
        _hash_bswap     \hfmt, GD              /* blocks -> integers */
        _vpxor          GACC, GD, GD
        _ghash_mul_acc  GHP, 0, 0
.Lgt_reduce\@:
        _ghash_reduce
.endm

/* The body of aesfast_T_ghash (\hfmt = ghash) and aesfast_T_polyval (polyval)(hkey, acc, in,
 * nblocks). */
.macro _ghash_fn hfmt
        test            GCNT, GCNT
        jz              .Lret\@
        _load_acc       \hfmt
        sub             $16, GCNT
        jb              .Ltail\@
.Lloop\@:
        _ghash_group    \hfmt, GSRC, 0
        add             $256, GSRC
        sub             $16, GCNT
        jae             .Lloop\@
.Ltail\@:
        add             $16, GCNT
        jz              .Ldone\@
        _ghash_tail     \hfmt
.Ldone\@:
        _store_acc      \hfmt
        vzeroupper
.Lret\@:
        ret
.endm

/*
 * \dst = \a * \b, lane by lane: the product times y^-128 mod P' (schoolbook, then the two folds
 * of _ghash_reduce). Registers all xmm or all ymm; \dst and \t0..\t2 distinct from \a and \b.
 */
.macro _mont_mul a, b, dst, t0, t1, t2
        vpclmulqdq      $0x00, \b, \a, \t0              /* LO */
        vpclmulqdq      $0x01, \b, \a, \t1
        vpclmulqdq      $0x10, \b, \a, \t2
        vpxor           \t2, \t1, \t1                   /* MI */
        vpclmulqdq      $0x11, \b, \a, \dst             /* HI */
        vpclmulqdq      $0x10, .Lgfpoly(%rip), \t0, \t2 /* fold 1: L0 * C */
        vpshufd         $0x4e, \t0, \t0
        vpxor           \t2, \t1, \t1
        vpxor           \t0, \t1, \t1
        vpclmulqdq      $0x10, .Lgfpoly(%rip), \t1, \t2 /* fold 2: M0 * C */
        vpshufd         $0x4e, \t1, \t1
        vpxor           \t2, \dst, \dst
        vpxor           \t1, \dst, \dst
.endm

/* Two powers (ymm \p: the higher one in lane 0) at \off of the table, and their Karatsuba
 * terms 256 bytes on. */
.macro _store_pows p, off
        vmovdqu         \p, \off(%rdi)
        vpshufd         $0x4e, \p, %ymm4
        vpxor           \p, %ymm4, %ymm4                /* lo ^ hi in both qwords */
        vmovdqu         %ymm4, 256+\off(%rdi)
.endm

/*
 * The body of aesfast_T_ghash_init (\hfmt = ghash) and aesfast_T_polyval_init (polyval)(hkey,
 * h): H' = y * Hrev mod P' (GHASH) or H itself (POLYVAL), then H'^2..H'^\npow, stored as
 * described at the top of this file. GCM-SIV runs this for every nonce, so the powers come as a
 * tree four multiplies deep instead of a chain of fifteen: H'^2; then [H'^2, H'^1] (a ymm,
 * higher power in lane 0, as the table holds them) times H'^2 in both lanes gives [H'^4, H'^3];
 * those two pairs times H'^4 give H'^5..H'^8, and the four pairs times H'^8 give H'^9..H'^16.
 * The same code (VEX, ymm) for both widths.
 *
 * \npow = 8 is aesfast_T_polyval_init_few, for GCM-SIV's small messages, in half the time:
 * H'^8..H'^1 (bytes 128..255) and their Karatsuba terms (384..511). A hash of n <= 8 blocks
 * starts at H'^n and reads only those, and, in lanes beside zero data (_ghash_tail's last
 * partial vector), up to 48 bytes past H'^1 and 16 past its Karatsuba term: bytes 256..303 and
 * 512..527, which are zeroed too, so that everything such a hash reads was written here.
 */
.macro _ghash_init_fn hfmt, npow=16
        vmovdqu         (%rsi), %xmm0
.ifc \hfmt, ghash
        vpshufb         .Lbswap128(%rip), %xmm0, %xmm0  /* Hrev */
        vpshufd         $0xff, %xmm0, %xmm1
        vpsrad          $31, %xmm1, %xmm1               /* all ones iff bit 127 is set */
        vpand           .Lgfpoly(%rip), %xmm1, %xmm1    /* then P' mod y^128, else 0 */
        vpsrlq          $63, %xmm0, %xmm2
        vpslldq         $8, %xmm2, %xmm2                /* bit 63 -> bit 64 */
        vpsllq          $1, %xmm0, %xmm0
        vpxor           %xmm2, %xmm0, %xmm0
        vpxor           %xmm1, %xmm0, %xmm0             /* xmm0 = H' */
.else
        _hash_bswap     \hfmt, %xmm0                    /* (checks the format) */
.endif
        _mont_mul       %xmm0, %xmm0, %xmm1, %xmm4, %xmm5, %xmm6        /* H'^2 */
        vinserti128     $1, %xmm0, %ymm1, %ymm2                         /* [H'^2, H'^1] */
        vinserti128     $1, %xmm1, %ymm1, %ymm1                         /* H'^2 in both lanes */
        _mont_mul       %ymm2, %ymm1, %ymm3, %ymm4, %ymm5, %ymm6        /* [H'^4, H'^3] */
        vinserti128     $1, %xmm3, %ymm3, %ymm1                         /* H'^4 in both lanes */
        _mont_mul       %ymm2, %ymm1, %ymm7, %ymm4, %ymm5, %ymm6        /* [H'^6, H'^5] */
        _mont_mul       %ymm3, %ymm1, %ymm8, %ymm4, %ymm5, %ymm6        /* [H'^8, H'^7] */
.if \npow == 8
        _store_pows     %ymm2, 224
        _store_pows     %ymm3, 192
        _store_pows     %ymm7, 160
        _store_pows     %ymm8, 128
        vpxor           %xmm0, %xmm0, %xmm0
        vmovdqu         %ymm0, 256(%rdi)
        vmovdqu         %ymm0, 288(%rdi)
        vmovdqu         %ymm0, 512(%rdi)
        vzeroupper
        ret
.else
        vinserti128     $1, %xmm8, %ymm8, %ymm1                         /* H'^8 in both lanes */
        _mont_mul       %ymm2, %ymm1, %ymm9, %ymm4, %ymm5, %ymm6        /* [H'^10, H'^9] */
        _mont_mul       %ymm3, %ymm1, %ymm10, %ymm4, %ymm5, %ymm6       /* [H'^12, H'^11] */
        _mont_mul       %ymm7, %ymm1, %ymm11, %ymm4, %ymm5, %ymm6       /* [H'^14, H'^13] */
        _mont_mul       %ymm8, %ymm1, %ymm12, %ymm4, %ymm5, %ymm6       /* [H'^16, H'^15] */
        _store_pows     %ymm2, 224                      /* H'^k at 16 * (16 - k) */
        _store_pows     %ymm3, 192
        _store_pows     %ymm7, 160
        _store_pows     %ymm8, 128
        _store_pows     %ymm9, 96
        _store_pows     %ymm10, 64
        _store_pows     %ymm11, 32
        _store_pows     %ymm12, 0
        vpxor           %xmm0, %xmm0, %xmm0
.irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
        vmovdqu         %ymm0, 512+32*\i(%rdi)
.endr
        vzeroupper
        ret
.endif
.endm

/* ------------------------------------------------------------------------------------------ */
/* GCM, and GCM-SIV's open                                                                   */
/* ------------------------------------------------------------------------------------------ */

/* One AES round with the round key \j places before the last, on the NV states. */
.macro _gcm_round j
.if VL == 64
        _vaesenc_n      RKE\j, NV
.else
        _vbroadcasti128 -16*\j(RKEND), RKT
        _vaesenc_n      RKT, NV
.endif
.endm

/* GHASH work item \k (0..8, after AES round RKEND-(9-k)) for mode \mode: the steps, in the order
 * 1..NV-1, 0, spread evenly over the slots, the reduction in the last one. */
.macro _ghash_slot mode, k, hfmt
.if \mode != 0
.irp i, 0,1,2,3,4,5,6,7
.if (\i < NV) && ((\k) * NV == ((\i + NV - 1) % NV) * 8)
.if \mode == 1
        _ghash_step     \hfmt, \i, OUT, -256   /* seal: the previous 16 ciphertext blocks */
.else
        _ghash_step     \hfmt, \i, IN, 0       /* open: this iteration's ciphertext */
.endif
.endif
.endr
.if (\k) == 8
        _ghash_reduce
.endif
.endif
.endm

/*
 * One iteration: 16 blocks of CTR (counter format \fmt) from IN to OUT, and for \mode = 1
 * (CTR, then hash) or 2 (hash, then CTR) the hash (format \hfmt) of 16 blocks interleaved with
 * the rounds; \mode = 0 is CTR alone. The counter constants are memory operands here.
 */
.macro _gcm_group mode, fmt, hfmt
.if VL == 32
        _vbroadcasti128 (KEY), RKT
        .set            GRK0, RKT
.else
        .set            GRK0, RK0
.endif
.irp i, 0,1,2,3,4,5,6,7
.if \i < NV
.if VL == 32
        _ctr_next       \fmt, V\i, GRK0, .Lctr_step2_\fmt\()_vl(%rip), .Lctr_bswap_vl(%rip)
.else
        _ctr_next       \fmt, V\i, GRK0, .Lctr_step4_\fmt\()_vl(%rip), .Lctr_bswap_vl(%rip)
.endif
.endif
.endr
        cmp             $12, ROUNDS
        jb              .Lr128\@
        je              .Lr192\@
        _gcm_round      13
        _gcm_round      12
.Lr192\@:
        _gcm_round      11
        _gcm_round      10
.Lr128\@:
.irp j, 9,8,7,6,5,4,3,2,1
        _gcm_round      \j
        _ghash_slot     \mode, (9-\j), \hfmt
.endr
.if VL == 32
        _vbroadcasti128 (RKEND), RKT
        .set            GRKL, RKT
.else
        .set            GRKL, RKLAST
.endif
.irp i, 0,1,2,3,4,5,6,7
.if \i < NV
        _vpxor          \i*VL(IN), GRKL, GT     /* last round key ^ input */
        vaesenclast     GT, V\i, V\i
        _vmovdqu        V\i, \i*VL(OUT)
.endif
.endr
        add             $256, IN
        add             $256, OUT
.endm

/*
 * The body of the stitched functions: \enc = 1 is CTR, then hash of the output, \enc = 0 hash of
 * the input, then CTR; \fmt the counter format, \hfmt the hash. aesfast_T_gcm_ctr_then_hash is
 * (1, ctr32, ghash), aesfast_T_gcm_hash_then_ctr (0, ctr32, ghash) and
 * aesfast_T_gcmsiv_ctr_then_hash (1, ctr32le, polyval).
 */
.macro _gcm_crypt enc, fmt, hfmt
        mov             8(%rsp), NBLOCKS
        test            NBLOCKS, NBLOCKS
        jz              .Lret\@
        _load_key                               /* before the GHASH registers: on ymm they */
        _ctr_init       \fmt                    /* share registers with the key and counter */
        _load_acc       \hfmt
        sub             $16, NBLOCKS
        jb              .Ltail\@
.if \enc
        _gcm_group      0, \fmt, \hfmt        /* first 16 blocks: nothing to hash yet */
        sub             $16, NBLOCKS
        jb              .Lhash_last\@
.Lloop\@:
        _gcm_group      1, \fmt, \hfmt
        sub             $16, NBLOCKS
        jae             .Lloop\@
.Lhash_last\@:
        _ghash_group    \hfmt, OUT, -256
.else
.Lloop\@:
        _gcm_group      2, \fmt, \hfmt
        sub             $16, NBLOCKS
        jae             .Lloop\@
.endif
.Ltail\@:
        add             $16, NBLOCKS            /* blocks left: 0..15 */
        jz              .Ldone\@
.if \enc
        _store_acc      \hfmt
        mov             OUT, GSRC
        _load_key
        _ctr_consts     \fmt
        _ctr_xor_tail_any \fmt, NV
        _load_acc       \hfmt
        mov             8(%rsp), GCNT
        and             $15, GCNT
        _ghash_tail     \hfmt
.else
        mov             IN, GSRC
        mov             NBLOCKS, GCNT
        _ghash_tail     \hfmt
        _store_acc      \hfmt
        mov             8(%rsp), NBLOCKS
        and             $15, NBLOCKS
        _load_key
        _ctr_consts     \fmt
        _ctr_xor_tail_any \fmt, NV
        jmp             .Lfinish\@
.endif
.Ldone\@:
        _store_acc      \hfmt
.Lfinish\@:
        vzeroupper
.Lret\@:
        ret
.endm

/* ------------------------------------------------------------------------------------------ */

/* The functions of one width, set by _set_gcm_veclen; \t is the tier's part of the name. */
.macro _gcm_functions t
AESFAST_FUNC(aesfast_\t\()_ghash_init)
        _ghash_init_fn  ghash
AESFAST_END(aesfast_\t\()_ghash_init)

AESFAST_FUNC(aesfast_\t\()_polyval_init)
        _ghash_init_fn  polyval
AESFAST_END(aesfast_\t\()_polyval_init)

AESFAST_FUNC(aesfast_\t\()_polyval_init_few)
        _ghash_init_fn  polyval, 8
AESFAST_END(aesfast_\t\()_polyval_init_few)

        _ghash_args
AESFAST_FUNC(aesfast_\t\()_ghash)
        _ghash_fn       ghash
AESFAST_END(aesfast_\t\()_ghash)

AESFAST_FUNC(aesfast_\t\()_polyval)
        _ghash_fn       polyval
AESFAST_END(aesfast_\t\()_polyval)

        _gcm_args
AESFAST_FUNC(aesfast_\t\()_gcm_ctr_then_hash)
        _gcm_crypt      1, ctr32, ghash
AESFAST_END(aesfast_\t\()_gcm_ctr_then_hash)

AESFAST_FUNC(aesfast_\t\()_gcm_hash_then_ctr)
        _gcm_crypt      0, ctr32, ghash
AESFAST_END(aesfast_\t\()_gcm_hash_then_ctr)

AESFAST_FUNC(aesfast_\t\()_gcmsiv_ctr_then_hash)
        _gcm_crypt      1, ctr32le, polyval
AESFAST_END(aesfast_\t\()_gcmsiv_ctr_then_hash)
.endm

/* 256-bit: 8 ymm (16 blocks) per iteration. */
        _set_gcm_veclen 32
        _gcm_functions  vaes_avx2

/* 512-bit: 4 zmm (16 blocks) per iteration. */
        _set_gcm_veclen 64
        _gcm_functions  vaes_avx512

#endif /* __x86_64__ */
