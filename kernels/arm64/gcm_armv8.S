/*
 * GHASH and AES-GCM for AArch64 with the ARMv8 Crypto Extensions: PMULL for GHASH, AESE/AESMC for
 * the counter mode, stitched together 8 blocks at a time.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * Functions (contracts in aesfast_kernel.h and above each function):
 *   aesfast_armv8_ghash_init                H -> H^1..H^8 and their Karatsuba terms (both tiers)
 *   aesfast_armv8_ghash                     GHASH of whole blocks (AAD, the length block)
 *   aesfast_armv8_gcm_ctr_then_hash         seal: CTR, then GHASH of the ciphertext
 *   aesfast_armv8_gcm_hash_then_ctr         open: GHASH of the ciphertext, then CTR
 *   aesfast_armv8_sha3_{ghash, gcm_ctr_then_hash, gcm_hash_then_ctr}
 *                                           the same three with EOR3 for the three-way XORs
 *
 * CPU features: the armv8 functions need FEAT_AES and FEAT_PMULL (HWCAP_AES, HWCAP_PMULL); the
 * _sha3 ones also FEAT_SHA3 (HWCAP_SHA3) for EOR3. The _sha3 functions are assembled under
 * ".arch armv8.2-a+crypto+sha3" and the others under ".arch armv8-a+crypto", so the assembler
 * itself checks that the armv8 tier never executes EOR3. Both tiers share the one ghash_init and
 * so the layout of the table of powers. Both variants come from one macro source: the macro
 * parameter "sha3" chooses, at each three-way XOR, between one EOR3 and two EORs (_eor3).
 *
 * ABI: AAPCS64, little-endian only; leaf functions that never spill the link register. GHASH
 * lives in v8-v19, so every function that hashes saves and restores d8-d15 (the callee-saved
 * low halves of v8-v15) on the stack (64 bytes, 16-byte aligned). Of the general registers only x0-x12 are used. Nothing branches on, or
 * indexes memory by, key, H or data; only nblocks and the round count steer control flow.
 *
 * ---- GHASH in the straight polynomial order ----
 *
 * GHASH works in GF(2^128) = GF(2)[x] / (x^128 + x^7 + x^2 + x + 1), with a bit order that is
 * "reflected": bit 0 of the field element, the coefficient of x^0, is the TOP bit of byte 0 and
 * the coefficient of x^127 is the bottom bit of byte 15 (SP 800-38D). Loaded into a vector
 * register as it is, byte j holds x^(8j)..x^(8j+7) from its top bit down: the bytes are in
 * polynomial order but the bits within each byte are backwards. One "rbit v.16b", which reverses
 * the bits within each byte, fixes exactly that: afterwards bit i of the 128-bit register (lane
 * d0 = bits 0-63, d1 = bits 64-127) is the coefficient of x^i. In this straight order PMULL's
 * carry-less product IS the polynomial product, with no shift by one and no "twisted" H as the
 * byte-reversed (rev64/ext) order needs. So every block of data is rbit'ed once as it is loaded,
 * H's powers are stored rbit'ed, and the accumulator is rbit'ed once on entry and once on exit
 * (acc stays in the SP 800-38D byte order of the ABI in memory). rbit costs one instruction per
 * block, the same as the rev64 of the byte-reversed order, and there is no ext to pair with it.
 *
 * Multiplication, Karatsuba (+ is XOR: coefficients are in GF(2)): with a = a1 x^64 + a0 and b = b1 x^64 + b0 (64-bit halves),
 *      a b = a1b1 x^128 + ((a0+a1)(b0+b1) + a0b0 + a1b1) x^64 + a0b0.
 * PMULL takes lanes d0 (lo = a0b0), PMULL2 lanes d1 (hi = a1b1), and one more PMULL multiplies
 * the half-sums (mid' = (a0+a1)(b0+b1)): 3 multiplications instead of 4. For H's powers the
 * half-sum k(H^i) = H^i.d0 ^ H^i.d1 is precomputed (the "Karatsuba term"). For data, the
 * half-sums of two blocks X, Y are made at once: trn1 gives (X.d0, Y.d0), trn2 (X.d1, Y.d1), and
 * one EOR of the two gives (k(X), k(Y)) in one register, which PMULL and PMULL2 multiply by
 * (k(H^p), k(H^(p-1))) from the table: 3 instructions per 2 blocks instead of ext+eor per block.
 *
 * Aggregation: the hash of 8 blocks is acc' = (acc + X0) H^8 + X1 H^7 + ... + X7 H^1. The
 * products are summed unreduced (lo, hi and mid' each over the 8 blocks; all linear), and
 * only the sum is reduced: one reduction per 8 blocks.
 *
 * Reduction: the 255-bit product is lo + mid x^64 + hi x^128 with mid = mid' + lo + hi. As
 * 64-bit limbs d0..d3: d0 = lo.d0, (d1, d2) = (lo.d1, hi.d0) + mid, d3 = hi.d1. EXT of lo and hi
 * by 8 bytes gives (lo.d1, hi.d0), so one 128-bit register T = EXT(lo, hi) + mid' + lo + hi
 * holds (d1, d2). Since x^128 = g = x^7 + x^2 + x + 1 (0x87) in the field:
 *   - d3 x^192 = (d3 g) x^64: d3 g (at most 71 bits, PMULL2 of hi with g) is added to T;
 *   - then d2 x^128 = d2 g: PMULL2 of T with g (again at most 71 bits) is added to (d0, d1),
 *     which ZIP1 assembles from lo.d0 and T.d0. The result is below x^128: fully reduced.
 * That is 2 PMULL2, EXT, ZIP1 and 5 XORs (2 EOR3 + 1 EOR with FEAT_SHA3).
 *
 * The table (aesfast_hash_key.tbl, 16-byte aligned), written by ghash_init:
 *      [16 (8 - i)]        H^i, i = 8..1, rbit'ed (so H^8 first, H^1 at 112)
 *      [128 + 8 (8 - i)]   k(H^i) = H^i.d0 ^ H^i.d1 as 64 bits, i = 8..1 (k(H^1) at 184)
 *      [192]               g = 0x87 in both 64-bit lanes: the reduction constant
 * Both go DOWN in powers, so the 16 bytes at H^p are (H^p, H^(p-1)) loaded as a pair, and the
 * 16 bytes at k(H^p) are (k(H^p), k(H^(p-1))), for ANY p: an n-block tail starts at H^n and
 * pairs up its blocks the same way whether n is even or odd. (The last single block of an odd
 * tail reads k(H^1) and, in the unused upper lane, 8 bytes of g.)
 *
 * ---- The stitched functions ----
 *
 * AES is as in armv8.S (see its header): AESE/AESMC pairs on one register, always adjacent so
 * that cores which fuse them do; 8 independent blocks. GCM's inc32 counter is a vector CTRV with
 * each 32-bit lane byte-swapped, to which ADD .4s adds (0, 0, 0, i) and REV32 makes counter
 * blocks: 2 instructions per block (see _ctr_blocks).
 *
 * Vector registers: v0-v7 the 8 AES blocks; v8-v18 GHASH (a pair of data blocks, their two
 * powers and Karatsuba terms, product temporaries, the lo/hi/mid sums and the accumulator GACC),
 * with v13-v16 reused for the counter increments at the start of a pass and v8-v15 for the
 * input blocks at its end; v19 RKX (below), which in the 10 common rounds is a third GHASH
 * temporary; v20-v30 the round keys rk[nr-10..nr] (RK_M10..RKLAST), which stay in registers;
 * v31 the counter CTRV. That is all 32, so the 2 or 4 extra first round keys of AES-192 and
 * AES-256 are not kept: each is loaded into RKX right before its round, every 8 blocks (an L1
 * load whose value is needed only by AESEs that come 8 pairs apart). One code path serves all
 * three key sizes: two TBZ on the (public) round count skip the extra rounds, and the 10 rounds
 * common to all are where GHASH is interleaved.
 *
 * Interleaving: the GHASH of 8 blocks is cut into 10 steps of 8 slots (_ghash_slot: for each of
 * the 4 pairs of blocks, a step for the lo/hi products and one for the Karatsuba middle
 * products; then the reduction in two steps). Step r goes with AES round r of the 10 common
 * rounds, slot t right after that round's AESE/AESMC pair of block t, so that the PMULLs and
 * EORs of GHASH fill the gaps of the AES dependency chains even on in-order cores. GHASH loads
 * run one step ahead of their use.
 *   - seal (ctr_then_hash) hashes ciphertext, which exists only after AES: each iteration
 *     encrypts blocks 8i..8i+7 while it hashes blocks 8i-8..8i-1, which the previous iteration
 *     stored (read back from out, which is still in L1). The first 8 blocks are encrypted
 *     alone and the last 8 hashed alone.
 *   - open (hash_then_ctr) hashes its input: each iteration hashes the 8 blocks it decrypts.
 *     All 8 blocks are loaded (for GHASH, then again for the XOR) before any is stored, so
 *     in == out works.
 * Tails (1..7 blocks) run one AES pass of 4 or 8 blocks (as ctr32_xor) and one GHASH pass with
 * H^n..H^1 and one reduction, not stitched. They read and write only the blocks they own.
 *
 * Cost per 8 blocks, counted in the disassembly: the stitched loops (seal and open alike) execute
 * 282 instructions for AES-128 (263 with EOR3), of which 152 are AESE/AESMC, 26 PMULL/PMULL2,
 * 18 build counters and 47 (28 with EOR3) are XORs; AES-192 adds 35 and AES-256 69 (the extra
 * rounds and their key loads). The GHASH loop alone executes 91 (80 with EOR3).
 */
#include "asm_base.h"

#if defined(__aarch64__)
#if defined(__AARCH64EB__)
#error "gcm_armv8.S assumes little-endian AArch64"
#endif

        AESFAST_RODATA
        .p2align 4
.Lctr_inc:                              // 32-bit lanes: 1, 2, 4 and 8 added to lane 3 only
        .long   0, 0, 0, 1
        .long   0, 0, 0, 2
        .long   0, 0, 0, 4
        .long   0, 0, 0, 8

/* Offsets in aesfast_hash_key.tbl (see the header comment). */
#define HTAB_H(i) (16 * (8 - (i)))       /* H^i */
#define HTAB_K(i) (128 + 8 * (8 - (i)))  /* k(H^i) */
#define HTAB_G 192                       /* the reduction constant g = 0x87, in both lanes */

        .arch   armv8-a+crypto

/* ---- Arguments and general registers, shared by all the functions that hash ---- */
/* (ghash moves its four arguments into these places first.) */
KEY     .req    x0              // const aesfast_key *
HTAB    .req    x1              // const aesfast_hash_key *: the table of powers
ACCP    .req    x2              // uint8_t acc[16], SP 800-38D order
CTRP    .req    x3              // the first counter block
INP     .req    x4              // input, advanced as blocks are consumed
OUTP    .req    x5              // output, advanced as blocks are produced
NBLOCKS .req    x6              // blocks left, minus 8 (see the tails)
ROUNDS  .req    w7              // nr: 10, 12 or 14
INCP    .req    x8              // .Lctr_inc: the counter increments
GHP     .req    x9              // the 8 blocks _ghash_slot hashes; the blocks a tail hashes
KEYP    .req    x10             // set-up only: &rk[nr-10]
TREM    .req    x3              // tails: blocks left, 1..7 (CTRP is dead by then)
THP     .req    x10             // tail GHASH: where the next power is
TKP     .req    x11             // tail GHASH: where the next Karatsuba term is
TCNT    .req    x12             // tail GHASH: blocks left to hash, minus 2

/* ---- Vector registers ---- */
BLK0    .req    v0              // BLK0..BLK7: the AES states of 8 counter blocks
BLK1    .req    v1
BLK2    .req    v2
BLK3    .req    v3
BLK4    .req    v4
BLK5    .req    v5
BLK6    .req    v6
BLK7    .req    v7

GD0     .req    v8              // a pair of data blocks being hashed, rbit'ed
GD1     .req    v9
GHA     .req    v10             // their powers of H: H^p, H^(p-1)
GHB     .req    v11
GKK     .req    v12             // (k(H^p), k(H^(p-1))); in the reduction: g
GP0     .req    v13             // products and temporaries
GP1     .req    v14             // (GP2, the third, is v19: see RKX)
GLO     .req    v15             // sum of the lo products (x^0..x^126)
GHI     .req    v16             // sum of the hi products (x^128..x^254)
GMID    .req    v17             // sum of the Karatsuba middle products; then (d1, d2)
GACC    .req    v18             // the hash state, rbit'ed: lives across iterations

IN0     .req    v8              // IN0..IN7: input blocks for the final XOR of an 8-block pass.
IN1     .req    v9              // They reuse v8-v15 once the reduction of the pass is done
IN2     .req    v10             // (GACC, v18, is kept).
IN3     .req    v11
IN4     .req    v12
IN5     .req    v13
IN6     .req    v14
IN7     .req    v15

RKX     .req    v19             // AES-192/256: the extra first round keys, loaded per use;
GP2     .req    v19             // in the 10 common rounds, a third GHASH temporary
RK_M10  .req    v20             // rk[nr-10]: rk[0] of AES-128
RK_M9   .req    v21             // rk[nr-9]
RK_M8   .req    v22
RK_M7   .req    v23
RK_M6   .req    v24
RK_M5   .req    v25
RK_M4   .req    v26
RK_M3   .req    v27
RK_M2   .req    v28
RK_M1   .req    v29             // rk[nr-1]: the key of the last AESE
RKLAST  .req    v30             // rk[nr]: XORed in after the last AESE
CTRV    .req    v31             // the counter of the next block, REV32'ed (see _ctr_blocks)

/* ------------------------------------------------------------------------------------------ */
/* Helpers                                                                                    */
/* ------------------------------------------------------------------------------------------ */

/* _eor3 sha3, d, a, b, c: d = a ^ b ^ c. One EOR3 with FEAT_SHA3, else two EORs (then c must
 * not be d). */
.macro _eor3 sha3, d, a, b, c
.if \sha3
        eor3    \d\().16b, \a\().16b, \b\().16b, \c\().16b
.else
        eor     \d\().16b, \a\().16b, \b\().16b
        eor     \d\().16b, \d\().16b, \c\().16b
.endif
.endm

.macro _aese_aesmc b, k
        aese    \b\().16b, \k\().16b
        aesmc   \b\().16b, \b\().16b                  // adjacent to its AESE: the pair fuses
.endm

/* _aes_round n, k: one full round with round key \k on BLK0..BLK(n-1). */
.macro _aes_round n, k
.irp i, 0, 1, 2, 3, 4, 5, 6, 7
.if \i < \n
        _aese_aesmc BLK\i, \k
.endif
.endr
.endm

.macro _aese_last b
        aese    \b\().16b, RK_M1.16b                  // last round: no MixColumns
.endm

/*
 * _aes_round_gh n, k, gh, s: one full round with round key \k on BLK0..BLK(n-1), and when gh is
 * 0 or 1 (the sha3 flag; -1: none) GHASH step s spread over it: slot t of the step follows the
 * AESE/AESMC pair of block t, so that the GHASH instructions fill the gaps between dependent
 * AES instructions on in-order cores too, not only on out-of-order ones.
 * _aes_last_gh n, gh, s: the same for the last AESE.
 */
.macro _aes_round_gh n, k, gh, s
.irp t, 0, 1, 2, 3, 4, 5, 6, 7
.if \t < \n
        _aese_aesmc BLK\t, \k
.endif
.if \gh >= 0
        _ghash_slot \gh, \s, \t
.endif
.endr
.endm
.macro _aes_last_gh n, gh, s
.irp t, 0, 1, 2, 3, 4, 5, 6, 7
.if \t < \n
        _aese_last BLK\t
.endif
.if \gh >= 0
        _ghash_slot \gh, \s, \t
.endif
.endr
.endm

/*
 * _aes_gcm n, gh: AES of BLK0..BLK(n-1) up to, not including, the XOR with RKLAST. gh = -1: AES
 * alone; gh = 0 or 1: with the 10 steps of the GHASH of the 8 blocks at GHP interleaved (after
 * _ghash_pre), EOR3 used when gh = 1. The first 2 (AES-192) or 4 (AES-256) rounds load their
 * keys into RKX.
 */
.macro _aes_gcm n, gh
        tbz     ROUNDS, #2, .Lrounds10\@                // nr = 10 = 0b1010: AES-128
        ldr     q19, [KEY, #0]                          // RKX = rk[0]
        _aes_round \n, RKX
        ldr     q19, [KEY, #16]                         // RKX = rk[1]: a new register by renaming
        _aes_round \n, RKX
        tbz     ROUNDS, #1, .Lrounds10\@                // nr = 12 = 0b1100: AES-192
        ldr     q19, [KEY, #32]
        _aes_round \n, RKX
        ldr     q19, [KEY, #48]
        _aes_round \n, RKX
.Lrounds10\@:
        _aes_round_gh \n, RK_M10, \gh, 0
        _aes_round_gh \n, RK_M9, \gh, 1
        _aes_round_gh \n, RK_M8, \gh, 2
        _aes_round_gh \n, RK_M7, \gh, 3
        _aes_round_gh \n, RK_M6, \gh, 4
        _aes_round_gh \n, RK_M5, \gh, 5
        _aes_round_gh \n, RK_M4, \gh, 6
        _aes_round_gh \n, RK_M3, \gh, 7
        _aes_round_gh \n, RK_M2, \gh, 8
        _aes_last_gh \n, \gh, 9
.endm

/* ------------------------------------------------------------------------------------------ */
/* GHASH                                                                                      */
/* ------------------------------------------------------------------------------------------ */

/*
 * _reduce_a sha3, lo, mid, hi, g, t0, t1: first half of the reduction (header comment).
 * On exit mid = (d1, d2) with d3 folded in; lo, hi unchanged (only lo.d0 is still needed).
 * _reduce_b dst, lo, mid, g, t0: dst = (d0, d1) + d2 g, the reduced product. lo is clobbered.
 * g needs 0x87 in lane d1 only (both are PMULL2).
 */
.macro _reduce_a sha3, lo, mid, hi, g, t0, t1
        pmull2  \t0\().1q, \hi\().2d, \g\().2d          // d3 g: x^192 = g x^64
        ext     \t1\().16b, \lo\().16b, \hi\().16b, #8  // (lo.d1, hi.d0)
        _eor3   \sha3, \mid, \mid, \lo, \hi             // Karatsuba: mid' + lo + hi = mid
        _eor3   \sha3, \mid, \mid, \t1, \t0             // (d1, d2), plus d3 g at x^64
.endm
.macro _reduce_b dst, lo, mid, g, t0
        pmull2  \t0\().1q, \mid\().2d, \g\().2d         // d2 g: x^128 = g
        zip1    \lo\().2d, \lo\().2d, \mid\().2d        // (d0, d1)
        eor     \dst\().16b, \lo\().16b, \t0\().16b
.endm

/*
 * GACC = GHASH of GACC and the 8 blocks at GHP, in the straight order, as _ghash_pre and then
 * 10 steps of 8 slots each: _ghash_slot sha3, s, t is slot t (0..7) of step s (0..9). Steps 2j
 * and 2j+1 handle blocks 2j and 2j+1 with H^(8-2j) and H^(7-2j): 2j the lo and hi products,
 * 2j+1 the middle ones. Step 0 adds GACC into block 0 and starts the sums; steps 8 and 9 reduce
 * them into GACC. Loads run one step ahead (software pipelining): _ghash_pre loads what step 0
 * and 1 need, step 2j the powers for step 2j+2, step 2j+1 the blocks for 2j+2 and the Karatsuba
 * terms for 2j+3 (g for step 8). So no instruction waits right after its load, and the slots
 * are ordered so that each PMULL result is used a few slots later. Steps 8 and 9 are
 * _reduce_a and _reduce_b spread over slots. Uses v8-v19 (GP2 is v19); reads GHP and HTAB,
 * moves neither. Empty slots emit nothing.
 */
.macro _ghash_pre
        ldp     q8, q9, [GHP]                           // GD0, GD1 = blocks 0, 1
        ldp     q10, q11, [HTAB, #HTAB_H(8)]            // GHA, GHB = H^8, H^7
        ldr     q12, [HTAB, #HTAB_K(8)]                 // GKK = (k(H^8), k(H^7))
.endm

.macro _ghash_slot sha3, s, t
.if \s == 8                                             // reduction, first half
 .if \t == 0
        pmull2  GP0.1q, GHI.2d, GKK.2d                  // d3 g: x^192 = g x^64 (GKK = g)
 .elseif \t == 1
        ext     GP1.16b, GLO.16b, GHI.16b, #8           // (lo.d1, hi.d0)
 .elseif \t == 2
        _eor3   \sha3, GMID, GMID, GLO, GHI             // Karatsuba: mid' + lo + hi = mid
 .elseif \t == 4
        _eor3   \sha3, GMID, GMID, GP1, GP0             // (d1, d2), plus d3 g at x^64
 .endif
.elseif \s == 9                                         // reduction, second half
 .if \t == 0
        pmull2  GP0.1q, GMID.2d, GKK.2d                 // d2 g: x^128 = g
 .elseif \t == 2
        zip1    GLO.2d, GLO.2d, GMID.2d                 // (d0, d1)
 .elseif \t == 4
        eor     GACC.16b, GLO.16b, GP0.16b              // the reduced hash
 .endif
.elseif (\s % 2) == 0                                   // blocks s, s+1: lo and hi products
 .if \t == 0
        rbit    GD0.16b, GD0.16b                        // to the straight bit order
 .elseif \t == 1
        rbit    GD1.16b, GD1.16b
  .if \s == 0
        eor     GD0.16b, GD0.16b, GACC.16b              // (acc + X0) H^8
  .endif
 .elseif \t == 2
        pmull   GP0.1q, GD0.1d, GHA.1d                  // lo products
 .elseif \t == 3
        pmull   GP1.1q, GD1.1d, GHB.1d
 .elseif \t == 4
        pmull2  GP2.1q, GD0.2d, GHA.2d                  // hi products
 .elseif \t == 5
  .if \s == 0
        eor     GLO.16b, GP0.16b, GP1.16b
  .else
        _eor3   \sha3, GLO, GLO, GP0, GP1
  .endif
        pmull2  GP0.1q, GD1.2d, GHB.2d
 .elseif \t == 6
  .if \s < 6
        ldp     q10, q11, [HTAB, #HTAB_H(6 - \s)]       // GHA, GHB = H^(6-s), H^(5-s): step s+2
  .endif
 .elseif \t == 7
  .if \s == 0
        eor     GHI.16b, GP2.16b, GP0.16b
  .else
        _eor3   \sha3, GHI, GHI, GP2, GP0
  .endif
 .endif
.else                                                   // blocks s-1, s: middle products
 .if \t == 0
        trn1    GP1.2d, GD0.2d, GD1.2d                  // (GD0.d0, GD1.d0)
 .elseif \t == 1
        trn2    GP2.2d, GD0.2d, GD1.2d                  // (GD0.d1, GD1.d1)
 .elseif \t == 2
        eor     GP1.16b, GP1.16b, GP2.16b               // (k(GD0), k(GD1)): the half-sums
  .if \s < 7
        ldp     q8, q9, [GHP, #(16 * (\s + 1))]         // GD0, GD1 = blocks s+1, s+2
  .endif
 .elseif \t == 3
        pmull   GP0.1q, GP1.1d, GKK.1d                  // middle products
 .elseif \t == 4
        pmull2  GP2.1q, GP1.2d, GKK.2d
 .elseif \t == 5
  .if \s < 7
        ldr     q12, [HTAB, #HTAB_K(7 - \s)]            // GKK = (k(H^(7-s)), k(H^(6-s))): s+2
  .else
        ldr     q12, [HTAB, #HTAB_G]                    // GKK = g, for the reduction
  .endif
 .elseif \t == 6
  .if \s == 1
        eor     GMID.16b, GP0.16b, GP2.16b
  .else
        _eor3   \sha3, GMID, GMID, GP0, GP2
  .endif
 .endif
.endif
.endm

/* _ghash_8 sha3: GACC = GHASH of GACC and the 8 blocks at GHP, without AES. */
.macro _ghash_8 sha3
        _ghash_pre
.irp s, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
.irp t, 0, 1, 2, 3, 4, 5, 6, 7
        _ghash_slot \sha3, \s, \t
.endr
.endr
.endm

/*
 * _ghash_tail sha3: GACC = GHASH of GACC and the TREM (1..7) blocks at GHP, with H^TREM..H^1
 * and one reduction. Pairs first (the table pairs any two consecutive powers), then the last
 * block if TREM is odd, which always takes H^1. Advances GHP; uses THP, TKP, TCNT; keeps TREM.
 */
.macro _ghash_tail sha3
        add     THP, HTAB, #HTAB_H(0)
        sub     THP, THP, TREM, lsl #4                  // &H^TREM
        add     TKP, HTAB, #HTAB_K(0)
        sub     TKP, TKP, TREM, lsl #3                  // &k(H^TREM)
        movi    GLO.16b, #0
        movi    GHI.16b, #0
        movi    GMID.16b, #0
        subs    TCNT, TREM, #2
        b.lo    .Ltail_single\@
.Ltail_pair\@:
        ld1     {GD0.16b, GD1.16b}, [GHP], #32
        ld1     {GHA.16b, GHB.16b}, [THP], #32
        ld1     {GKK.16b}, [TKP], #16
        rbit    GD0.16b, GD0.16b
        rbit    GD1.16b, GD1.16b
        eor     GD0.16b, GD0.16b, GACC.16b              // acc goes into the first block only:
        movi    GACC.16b, #0                            // later pairs add zero
        pmull   GP0.1q, GD0.1d, GHA.1d
        pmull   GP1.1q, GD1.1d, GHB.1d
        _eor3   \sha3, GLO, GLO, GP0, GP1
        pmull2  GP0.1q, GD0.2d, GHA.2d
        pmull2  GP1.1q, GD1.2d, GHB.2d
        _eor3   \sha3, GHI, GHI, GP0, GP1
        trn1    GP0.2d, GD0.2d, GD1.2d
        trn2    GP1.2d, GD0.2d, GD1.2d
        eor     GP0.16b, GP0.16b, GP1.16b
        pmull   GP1.1q, GP0.1d, GKK.1d
        pmull2  GP0.1q, GP0.2d, GKK.2d
        _eor3   \sha3, GMID, GMID, GP0, GP1
        subs    TCNT, TCNT, #2
        b.hs    .Ltail_pair\@
.Ltail_single\@:
        tbz     TCNT, #0, .Ltail_reduce\@               // TCNT = -1: one block left; -2: none
        ld1     {GD0.16b}, [GHP], #16
        ldr     q10, [HTAB, #HTAB_H(1)]                 // GHA = H^1
        ldr     q12, [HTAB, #HTAB_K(1)]                 // GKK.d0 = k(H^1) (d1: g, unused)
        rbit    GD0.16b, GD0.16b
        eor     GD0.16b, GD0.16b, GACC.16b
        pmull   GP0.1q, GD0.1d, GHA.1d
        pmull2  GP1.1q, GD0.2d, GHA.2d
        eor     GLO.16b, GLO.16b, GP0.16b
        eor     GHI.16b, GHI.16b, GP1.16b
        ext     GP0.16b, GD0.16b, GD0.16b, #8           // (GD0.d1, GD0.d0)
        eor     GP0.16b, GP0.16b, GD0.16b               // d0: k(GD0)
        pmull   GP0.1q, GP0.1d, GKK.1d
        eor     GMID.16b, GMID.16b, GP0.16b
.Ltail_reduce\@:
        ldr     q12, [HTAB, #HTAB_G]
        _reduce_a \sha3, GLO, GMID, GHI, GKK, GP0, GP1
        _reduce_b GACC, GLO, GMID, GKK, GP0
.endm

/* _acc_load / _acc_store: GACC from / to acc[16], converting between the two bit orders. */
.macro _acc_load
        ld1     {GACC.16b}, [ACCP]
        rbit    GACC.16b, GACC.16b
.endm
.macro _acc_store
        rbit    GACC.16b, GACC.16b
        st1     {GACC.16b}, [ACCP]
.endm

.macro _save_d8_d15
        stp     d8, d9, [sp, #-64]!                     // AAPCS64: d8-d15 are callee-saved
        stp     d10, d11, [sp, #16]
        stp     d12, d13, [sp, #32]
        stp     d14, d15, [sp, #48]
.endm
.macro _restore_d8_d15
        ldp     d10, d11, [sp, #16]
        ldp     d12, d13, [sp, #32]
        ldp     d14, d15, [sp, #48]
        ldp     d8, d9, [sp], #64
.endm

/* ------------------------------------------------------------------------------------------ */
/* Counter blocks and the XOR with the input                                                  */
/* ------------------------------------------------------------------------------------------ */

/*
 * The counter. CTRV holds the counter block with REV32 applied, i.e. each 32-bit lane in host
 * order: lane 3 is GCM's inc32 counter as an integer, lanes 0-2 the byte-swapped first 12 bytes.
 * Adding (0, 0, 0, i) as 32-bit lanes (ADD .4s) adds i to the counter modulo 2^32, exactly
 * inc32, and adds 0 to the rest, and REV32 turns the sum back into a counter block. The
 * increments 1, 2, 4, 8 come from .Lctr_inc (address in INCP) into v13-v16 (GP0, GP1, GLO, GHI),
 * which are free when blocks are built: then every block is at most 3 ADDs from CTRV, not a chain of 7.
 */
CINC1   .req    v13             // (0, 0, 0, 1) as .4s
CINC2   .req    v14             // (0, 0, 0, 2)
CINC4   .req    v15             // (0, 0, 0, 4)
CINC8   .req    v16             // (0, 0, 0, 8)

/* _ctr_init: CTRV from the counter block at CTRP; INCP = .Lctr_inc. */
.macro _ctr_init
        ld1     {CTRV.16b}, [CTRP]
        rev32   CTRV.16b, CTRV.16b                      // lanes in host order
#if defined(__APPLE__)
        adrp    INCP, .Lctr_inc@PAGE
        add     INCP, INCP, .Lctr_inc@PAGEOFF
#else
        adrp    INCP, .Lctr_inc                         // PC-relative: no relocation at run time
        add     INCP, INCP, :lo12:.Lctr_inc
#endif
.endm

/* _ctr_blocks n (4 or 8): BLK0..BLK(n-1) = the next n counter blocks (inc32); CTRV += n.
 * Clobbers v13-v16. */
.macro _ctr_blocks n
        ldp     q13, q14, [INCP]                        // CINC1, CINC2
.if \n == 8
        ldp     q15, q16, [INCP, #32]                   // CINC4, CINC8
.else
        ldr     q15, [INCP, #32]                        // CINC4
.endif
        add     BLK1.4s, CTRV.4s, CINC1.4s
        add     BLK2.4s, CTRV.4s, CINC2.4s
        add     BLK3.4s, BLK1.4s, CINC2.4s
.if \n == 8
        add     BLK4.4s, CTRV.4s, CINC4.4s
        add     BLK5.4s, BLK1.4s, CINC4.4s
        add     BLK6.4s, BLK2.4s, CINC4.4s
        add     BLK7.4s, BLK3.4s, CINC4.4s
.endif
        rev32   BLK0.16b, CTRV.16b                      // back to a counter block
        rev32   BLK1.16b, BLK1.16b
        rev32   BLK2.16b, BLK2.16b
        rev32   BLK3.16b, BLK3.16b
.if \n == 8
        rev32   BLK4.16b, BLK4.16b
        rev32   BLK5.16b, BLK5.16b
        rev32   BLK6.16b, BLK6.16b
        rev32   BLK7.16b, BLK7.16b
        add     CTRV.4s, CTRV.4s, CINC8.4s
.else
        add     CTRV.4s, CTRV.4s, CINC4.4s
.endif
.endm

/* _xor_rklast_in sha3, b, in: b = b ^ RKLAST ^ in (the last AddRoundKey and the CTR XOR). */
.macro _xor_rklast_in sha3, b, in
        _eor3   \sha3, \b, \b, RKLAST, \in
.endm

/* _xor_store8 sha3: out[0..7] = BLK0..7 ^ RKLAST ^ in[0..7]; INP and OUTP advance by 8 blocks. */
.macro _xor_store8 sha3
        ld1     {IN0.16b-IN3.16b}, [INP], #64
        ld1     {IN4.16b-IN7.16b}, [INP], #64
        _xor_rklast_in \sha3, BLK0, IN0
        _xor_rklast_in \sha3, BLK1, IN1
        _xor_rklast_in \sha3, BLK2, IN2
        _xor_rklast_in \sha3, BLK3, IN3
        _xor_rklast_in \sha3, BLK4, IN4
        _xor_rklast_in \sha3, BLK5, IN5
        _xor_rklast_in \sha3, BLK6, IN6
        _xor_rklast_in \sha3, BLK7, IN7
        st1     {BLK0.16b-BLK3.16b}, [OUTP], #64
        st1     {BLK4.16b-BLK7.16b}, [OUTP], #64
.endm

.macro _xor_rklast b
        eor     \b\().16b, \b\().16b, RKLAST.16b
.endm

/*
 * _ctr_tail: the TREM (1..7) last blocks of CTR: out = in ^ keystream; INP and OUTP advance.
 * One AES pass of 4 blocks (1..4 left) or 8 (5..7), then the keystream is used 4, 2, 1 blocks
 * at a time, shifting the unused blocks down to BLK0, so exactly TREM blocks are read and
 * written. Uses v8-v11 for the input; GACC is kept.
 */
.macro _ctr_tail
        cmp     TREM, #4
        b.hi    .Lctr_tail8\@
        _ctr_blocks 4
        _aes_gcm 4, -1
.irp i, 0, 1, 2, 3
        _xor_rklast BLK\i
.endr
        b       .Lctr_tail_xor\@
.Lctr_tail8\@:
        _ctr_blocks 8
        _aes_gcm 8, -1
.irp i, 0, 1, 2, 3, 4, 5, 6, 7
        _xor_rklast BLK\i
.endr
.Lctr_tail_xor\@:
        tbz     TREM, #2, .Lctr_tail2\@
        ld1     {IN0.16b-IN3.16b}, [INP], #64
        eor     IN0.16b, IN0.16b, BLK0.16b
        eor     IN1.16b, IN1.16b, BLK1.16b
        eor     IN2.16b, IN2.16b, BLK2.16b
        eor     IN3.16b, IN3.16b, BLK3.16b
        st1     {IN0.16b-IN3.16b}, [OUTP], #64
        mov     BLK0.16b, BLK4.16b
        mov     BLK1.16b, BLK5.16b
        mov     BLK2.16b, BLK6.16b
        mov     BLK3.16b, BLK7.16b
.Lctr_tail2\@:
        tbz     TREM, #1, .Lctr_tail1\@
        ld1     {IN0.16b, IN1.16b}, [INP], #32
        eor     IN0.16b, IN0.16b, BLK0.16b
        eor     IN1.16b, IN1.16b, BLK1.16b
        st1     {IN0.16b, IN1.16b}, [OUTP], #32
        mov     BLK0.16b, BLK2.16b
        mov     BLK1.16b, BLK3.16b
.Lctr_tail1\@:
        tbz     TREM, #0, .Lctr_tail_done\@
        ld1     {IN0.16b}, [INP], #16
        eor     IN0.16b, IN0.16b, BLK0.16b
        st1     {IN0.16b}, [OUTP], #16
.Lctr_tail_done\@:
.endm

/* _gcm_setup: ROUNDS, the counter, rk[nr-10..nr] into RK_M10..RKLAST, GACC from acc. */
.macro _gcm_setup
        ldr     ROUNDS, [KEY, #AESFAST_KEY_ROUNDS]
        _ctr_init
        add     KEYP, KEY, ROUNDS, uxtw #4              // &rk[nr]
        sub     KEYP, KEYP, #10 * 16                    // &rk[nr-10]
        ld1     {RK_M10.16b-RK_M7.16b}, [KEYP], #64
        ld1     {RK_M6.16b-RK_M3.16b}, [KEYP], #64
        ld1     {RK_M2.16b-RKLAST.16b}, [KEYP]
        _acc_load
.endm

/* ------------------------------------------------------------------------------------------ */
/* The entry points, once per variant                                                         */
/* ------------------------------------------------------------------------------------------ */

.macro _gcm_functions sha3, prefix

/*
 * void aesfast_<prefix>_ghash(const aesfast_hash_key *hkey, uint8_t acc[16], const uint8_t *in,
 *                             size_t nblocks);
 *
 * acc = GHASH_H(acc, in[0..nblocks-1]), acc in SP 800-38D byte order, hkey from
 * aesfast_armv8_ghash_init. nblocks may be 0. 8 blocks per reduction, then a tail of 1..7.
 */
AESFAST_FUNC(aesfast_\prefix\()_ghash)
        cbz     x3, .Lghash_ret\@
        mov     NBLOCKS, x3                             // into the stitched functions' places
        mov     GHP, x2
        mov     ACCP, x1
        mov     HTAB, x0
        _save_d8_d15
        _acc_load
        subs    NBLOCKS, NBLOCKS, #8
        b.lo    .Lghash_tail\@
        .p2align 5
.Lghash_loop\@:
        _ghash_8 \sha3
        add     GHP, GHP, #128
        subs    NBLOCKS, NBLOCKS, #8
        b.hs    .Lghash_loop\@
.Lghash_tail\@:
        ands    TREM, NBLOCKS, #7                       // NBLOCKS = left - 8: low 3 bits = left
        b.eq    .Lghash_done\@
        _ghash_tail \sha3
.Lghash_done\@:
        _acc_store
        _restore_d8_d15
.Lghash_ret\@:
        ret
AESFAST_END(aesfast_\prefix\()_ghash)

/*
 * void aesfast_<prefix>_gcm_ctr_then_hash(const aesfast_key *key, const aesfast_hash_key *hkey,
 *                                         uint8_t acc[16], const uint8_t ctr[16],
 *                                         const uint8_t *in, uint8_t *out, size_t nblocks);
 *
 * GCM seal: out[i] = in[i] ^ AES(ctr + i) (inc32, as aesfast_armv8_ctr32_xor), then
 * acc = GHASH_H(acc, out[0..nblocks-1]). in == out is allowed, other overlap is not; no
 * alignment needed; ctr is not written; nblocks may be 0.
 */
AESFAST_FUNC(aesfast_\prefix\()_gcm_ctr_then_hash)
        cbz     NBLOCKS, .Lseal_ret\@
        _save_d8_d15
        _gcm_setup
        subs    NBLOCKS, NBLOCKS, #8
        b.lo    .Lseal_tail\@

        // The first 8 blocks: AES alone, since there is no ciphertext to hash yet.
        mov     GHP, OUTP                               // what the next pass hashes
        _ctr_blocks 8
        _aes_gcm 8, -1
        _xor_store8 \sha3
        subs    NBLOCKS, NBLOCKS, #8
        b.lo    .Lseal_last8\@

        // Encrypt 8 blocks while hashing the 8 ciphertext blocks before them.
        .p2align 5
.Lseal_loop\@:
        _ghash_pre
        _ctr_blocks 8
        _aes_gcm 8, \sha3
        add     GHP, GHP, #128
        _xor_store8 \sha3
        subs    NBLOCKS, NBLOCKS, #8
        b.hs    .Lseal_loop\@

.Lseal_last8\@:
        _ghash_8 \sha3                                  // the last 8 ciphertext blocks
.Lseal_tail\@:
        ands    TREM, NBLOCKS, #7
        b.eq    .Lseal_done\@
        mov     GHP, OUTP                               // the tail's ciphertext, once written
        _ctr_tail
        _ghash_tail \sha3
.Lseal_done\@:
        _acc_store
        _restore_d8_d15
.Lseal_ret\@:
        ret
AESFAST_END(aesfast_\prefix\()_gcm_ctr_then_hash)

/*
 * void aesfast_<prefix>_gcm_hash_then_ctr(const aesfast_key *key, const aesfast_hash_key *hkey,
 *                                         uint8_t acc[16], const uint8_t ctr[16],
 *                                         const uint8_t *in, uint8_t *out, size_t nblocks);
 *
 * GCM open: acc = GHASH_H(acc, in[0..nblocks-1]) and out[i] = in[i] ^ AES(ctr + i). Same
 * contract as ctr_then_hash; in place works because each group of blocks is hashed and loaded
 * before any of it is stored.
 */
AESFAST_FUNC(aesfast_\prefix\()_gcm_hash_then_ctr)
        cbz     NBLOCKS, .Lopen_ret\@
        _save_d8_d15
        _gcm_setup
        subs    NBLOCKS, NBLOCKS, #8
        b.lo    .Lopen_tail\@

        // Hash 8 input blocks while making their keystream.
        .p2align 5
.Lopen_loop\@:
        mov     GHP, INP
        _ghash_pre
        _ctr_blocks 8
        _aes_gcm 8, \sha3
        _xor_store8 \sha3
        subs    NBLOCKS, NBLOCKS, #8
        b.hs    .Lopen_loop\@

.Lopen_tail\@:
        ands    TREM, NBLOCKS, #7
        b.eq    .Lopen_done\@
        mov     GHP, INP
        _ghash_tail \sha3                               // hash the tail first: in may be out
        _ctr_tail
.Lopen_done\@:
        _acc_store
        _restore_d8_d15
.Lopen_ret\@:
        ret
AESFAST_END(aesfast_\prefix\()_gcm_hash_then_ctr)
.endm

/* ------------------------------------------------------------------------------------------ */
/* ghash_init (shared by both tiers)                                                          */
/* ------------------------------------------------------------------------------------------ */

/*
 * void aesfast_armv8_ghash_init(aesfast_hash_key *hkey, const uint8_t h[16]);
 *
 * Writes H^1..H^8 (rbit'ed), their Karatsuba terms and g into hkey->tbl (layout in the header
 * comment); bytes 208..1023 are not touched. Uses v0-v7 and v16 only.
 */
AESFAST_FUNC(aesfast_armv8_ghash_init)
        ld1     {v0.16b}, [x1]
        rbit    v0.16b, v0.16b                          // H, straight order
        mov     x2, #0x87                               // g = x^7 + x^2 + x + 1
        dup     v16.2d, x2
        str     q16, [x0, #HTAB_G]
        mov     v1.16b, v0.16b                          // v1 = H^i, starting at i = 1
.irp i, 1, 2, 3, 4, 5, 6, 7, 8
.if \i > 1
        // v1 = v1 * H: Karatsuba as in the header comment, then the reduction.
        pmull   v2.1q, v1.1d, v0.1d                     // lo
        pmull2  v3.1q, v1.2d, v0.2d                     // hi
        ext     v4.16b, v1.16b, v1.16b, #8
        eor     v4.16b, v4.16b, v1.16b                  // d0: k(H^(i-1))
        ext     v5.16b, v0.16b, v0.16b, #8
        eor     v5.16b, v5.16b, v0.16b                  // d0: k(H)
        pmull   v4.1q, v4.1d, v5.1d                     // mid'
        _reduce_a 0, v2, v4, v3, v16, v6, v7
        _reduce_b v1, v2, v4, v16, v6
.endif
        str     q1, [x0, #HTAB_H(\i)]
        ext     v2.16b, v1.16b, v1.16b, #8
        eor     v2.16b, v2.16b, v1.16b                  // d0: k(H^i)
        str     d2, [x0, #HTAB_K(\i)]
.endr
        ret
AESFAST_END(aesfast_armv8_ghash_init)

/* The two variants of the hashing functions. */
        _gcm_functions 0, armv8

        .arch   armv8.2-a+crypto+sha3                   // FEAT_SHA3: EOR3, from here on only
        _gcm_functions 1, armv8_sha3

#endif /* __aarch64__ */
