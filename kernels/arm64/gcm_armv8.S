/*
 * GHASH and AES-GCM, POLYVAL and AES-GCM-SIV (RFC 8452) for AArch64 with the ARMv8 Crypto
 * Extensions: PMULL for the hash, AESE/AESMC for the counter mode, stitched together 8 blocks at
 * a time. GCM and GCM-SIV are one source: the macros take the hash (ghash, polyval) and the
 * counter format (inc32be, inc32le) as parameters.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * Functions (contracts in aesfast_kernel.h and above each function):
 *   aesfast_armv8_ghash_init                H -> H^1..H^8 and their Karatsuba terms (both tiers)
 *   aesfast_armv8_ghash                     GHASH of whole blocks (AAD, the length block)
 *   aesfast_armv8_gcm_ctr_then_hash         seal: CTR, then GHASH of the ciphertext
 *   aesfast_armv8_gcm_hash_then_ctr         open: GHASH of the ciphertext, then CTR
 *   aesfast_armv8_polyval_init              H -> H^1..H^8 in POLYVAL's field (both tiers)
 *   aesfast_armv8_polyval                   POLYVAL of whole blocks
 *   aesfast_armv8_gcmsiv_ctr_then_hash      GCM-SIV open: CTR (little-endian counter), then
 *                                           POLYVAL of the plaintext
 *   aesfast_armv8_sha3_{ghash, gcm_ctr_then_hash, gcm_hash_then_ctr, polyval,
 *                       gcmsiv_ctr_then_hash}
 *                                           the same five with EOR3 for the three-way XORs
 * (GCM-SIV's plain CTR, aesfast_armv8_ctr32le_xor, is in armv8.S.)
 *
 * CPU features: the armv8 functions need FEAT_AES and FEAT_PMULL (HWCAP_AES, HWCAP_PMULL); the
 * _sha3 ones also FEAT_SHA3 (HWCAP_SHA3) for EOR3. The _sha3 functions are assembled under
 * ".arch armv8.2-a+crypto+sha3" and the others under ".arch armv8-a+crypto", so the assembler
 * itself checks that the armv8 tier never executes EOR3. Both tiers share the one ghash_init and
 * the one polyval_init, and so the layout of the tables of powers. Both variants come from one
 * macro source: the macro parameter "sha3" chooses, at each three-way XOR, between one EOR3 and
 * two EORs (_eor3).
 *
 * ABI: AAPCS64, little-endian only; leaf functions that never spill the link register. The hash
 * lives in v8-v19, so every function that hashes saves and restores d8-d15 (the callee-saved
 * low halves of v8-v15) on the stack (64 bytes, 16-byte aligned). Of the general registers only
 * x0-x12 are used. Nothing branches on, or indexes memory by, key, H or data; only nblocks and
 * the round count steer control flow.
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
 * Multiplication, Karatsuba (+ is XOR: coefficients are in GF(2)): with a = a1 x^64 + a0 and
 * b = b1 x^64 + b0 (64-bit halves),
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
 * tail reads k(H^1) and, in the unused upper lane, 8 bytes of g or p.)
 *
 * ---- POLYVAL in its natural order ----
 *
 * POLYVAL (RFC 8452) works in GF(2^128) = GF(2)[x] / P, P = x^128 + x^127 + x^126 + x^121 + 1,
 * with a block read as a little-endian 128-bit integer: bit i is the coefficient of x^i. That is
 * exactly what ld1 puts in a vector register, so PMULL's carry-less product of two blocks as
 * loaded IS their polynomial product: no rbit, no byte reversal, no per-block work at all. The
 * other difference is the multiplication: POLYVAL's is dot(a, b) = a b x^-128 mod P (RFC 8452,
 * section 3), a Montgomery product, which a reduction from the BOTTOM computes, at the same cost
 * as GHASH's from the top.
 *
 * Why not the GHASH code: POLYVAL(H, X) = rev(GHASH(mulX(rev(H)), rev(X))) (RFC 8452, appendix A)
 * would let the GHASH macros run POLYVAL with another per-block transform. But rev (the 16 bytes
 * reversed) followed by GHASH's rbit is a full 128-bit bit reversal: 2 instructions per block
 * (rbit and a TBL byte reversal, whose index vector needs a register the stitched loops do not
 * have) or 3 (rbit, rev64, ext), where GHASH needs 1; plus mulX of H. The natural order needs 0
 * per block and a reduction of 9 instructions (7 with EOR3), the same as GHASH's: its loop is 8
 * instructions per 8 blocks shorter than GHASH's, and 16 to 24 shorter than GHASH's with that
 * transform in front.
 *
 * The Montgomery reduction. Write P = x^128 + p x^64 + 1 with p = x^63 + x^62 + x^57 (the 64-bit
 * constant 0xc200000000000000), and the 255-bit product as 64-bit limbs d0..d3 (d0 = lo.d0,
 * d1 = lo.d1 + mid.d0, d2 = hi.d0 + mid.d1, d3 = hi.d1, mid = mid' + lo + hi as for GHASH).
 * Adding a multiple q P, q of degree < 128, changes nothing mod P and can clear the low 128 bits;
 * the rest, divided by x^128 (a move of limbs), is the Montgomery product, already of degree
 * < 128, so fully reduced:
 *   - d0 P = d0 x^128 + (d0 p) x^64 + d0 clears d0, and adds A = d0 p (PMULL, at most 127 bits)
 *     at x^64 and d0 at x^128: d1' = d1 + A.d0, d2' = d2 + A.d1 + d0;
 *   - d1' P x^64 clears d1', and adds B = d1' p (PMULL2) at x^128 and d1' at x^192;
 *   - the result is (d2' + B.d0, d3 + B.d1 + d1').
 * In registers: mid = mid' + lo + hi; A = PMULL(lo.d0, p); Y = lo + EXT(mid + A, 8), the halves
 * of mid + A swapped, which is (d0 + A.d1 + mid.d1, d1'); B = PMULL2(Y.d1, p); the result is
 * hi + Y + B. That is PMULL, PMULL2, EXT and 6 XORs (2 EOR3 + 2 EOR with FEAT_SHA3): the halves
 * of mid go in through Y and hi + Y, so d1 and d2 are never assembled on their own (GHASH's
 * reduction needs an EXT and a ZIP1 for that). _reduce_step cuts both reductions into 7
 * pieces, which the stitched loops put in the AES slots that _reduce_slot lists.
 *
 * The powers: H^i is the i-fold dot product H . H ... H, i.e. H^i x^(-128 (i-1)) as polynomials,
 * which polyval_init makes with the same Karatsuba product and this reduction. Then (acc + X0)
 * H^8 + X1 H^7 + ... + X7 H, summed unreduced and reduced once (x^-128 once), is the POLYVAL of
 * 8 blocks: aggregation works as for GHASH. polyval_init writes the table in GHASH's layout
 * (above) with H^i as they are (no rbit) and p, not g, at [192]. acc is in POLYVAL's byte order
 * in memory and in the register alike.
 *
 * ---- The stitched functions ----
 *
 * AES is as in armv8.S (see its header): AESE/AESMC pairs on one register, always adjacent so
 * that cores which fuse them do; 8 independent blocks. The counter is a vector CTRV to which
 * ADD .4s adds i in the 32-bit lane of the counter: GCM's inc32 (lane 3, each lane byte-swapped,
 * REV32 after the ADD: 2 instructions per block) or GCM-SIV's little-endian counter (lane 0, the
 * block as it is: 1 instruction per block). See _ctr_blocks.
 *
 * Vector registers: v0-v7 the 8 AES blocks; v8-v18 the hash (a pair of data blocks, their two
 * powers and Karatsuba terms, product temporaries, the lo/hi/mid sums and the accumulator GACC),
 * with v13-v16 reused for the counter increments at the start of a pass and v8-v15 for the
 * input blocks at its end; v19 RKX (below), which in the 10 common rounds is a third hash
 * temporary; v20-v30 the round keys rk[nr-10..nr] (RK_M10..RKLAST), which stay in registers;
 * v31 the counter CTRV. That is all 32, so the 2 or 4 extra first round keys of AES-192 and
 * AES-256 are not kept: each is loaded into RKX right before its round, every 8 blocks (an L1
 * load whose value is needed only by AESEs that come 8 pairs apart). One code path serves all
 * three key sizes: two TBZ on the (public) round count skip the extra rounds, and the 10 rounds
 * common to all are where the hash is interleaved.
 *
 * Interleaving: the hash of 8 blocks is cut into 10 steps of 8 slots (_hash_slot: for each of
 * the 4 pairs of blocks, a step for the lo/hi products and one for the Karatsuba middle
 * products; then the reduction in two steps). Step r goes with AES round r of the 10 common
 * rounds, slot t right after that round's AESE/AESMC pair of block t, so that the PMULLs and
 * EORs of the hash fill the gaps of the AES dependency chains even on in-order cores. Hash loads
 * run one step ahead of their use.
 *   - GCM seal and GCM-SIV open (ctr_then_hash) hash their output, which exists only after AES:
 *     each iteration encrypts blocks 8i..8i+7 while it hashes blocks 8i-8..8i-1, which the
 *     previous iteration stored (read back from out, which is still in L1; so in == out works).
 *     The first 8 blocks are encrypted alone and the last 8 hashed alone.
 *   - GCM open (hash_then_ctr) hashes its input: each iteration hashes the 8 blocks it decrypts.
 *     All 8 blocks are loaded (for GHASH, then again for the XOR) before any is stored, so
 *     in == out works.
 * Tails (1..7 blocks) run one AES pass of 4 or 8 blocks (as ctr32_xor) and one hash pass with
 * H^n..H^1 and one reduction, not stitched. They read and write only the blocks they own.
 *
 * The main loop per 16 blocks (two iterations), by kind, GCM seal or open, AES-128, counted in
 * the disassembly (AES-192 adds 70 instructions and AES-256 138: the extra rounds and their key
 * loads):
 *   AES rounds              160 AESE + 144 AESMC (adjacent pairs, fused where the core fuses)
 *   carry-less multiplies   52: 48 Karatsuba PMULL/PMULL2 (3 per block), 4 for 2 reductions
 *   shuffles                52: 16 RBIT (the data), 16 REV32 (the counters), 16 TRN1/TRN2
 *                           (Karatsuba data sides), 2 EXT and 2 ZIP1 (the reductions)
 *   XORs                    94 EOR, or with FEAT_SHA3 38 EOR3 + 18 EOR
 *   counter adds            16 ADD .4s
 *   loads / stores          34 (LDP/LDR/LD1: data, powers, Karatsuba terms) / 4 ST1 of 4
 *   in all                  564 instructions (526 with EOR3); GCM-SIV open 534 (496): no RBIT,
 *                           and one MOV instead of REV32 per 8 counters; GHASH alone 182 (160),
 *                           POLYVAL alone 166 (144).
 * What binds it: not measured on arm64 hardware (qemu only; its timings say nothing). By the
 * counts AES is 304 of the 564 and PMULL 52: where AESE/AESMC and PMULL share the same vector
 * pipes, the AES pairs bind, and the hash is what the stitching hides in their gaps.
 * The numbers behind the choices: Karatsuba, 3 PMULLs per block instead of 4 (16 fewer per 16
 * blocks, for 16 TRN1/TRN2 and 8 EORs that make the data sides two blocks at a time); 8 blocks
 * per reduction, one per AES iteration (8 AES states, 11 round keys, the counter and 12 hash
 * registers are all 32), a reduction 9 instructions (7 with EOR3) per 8 blocks; the counter a
 * vector with ADD .4s, and REV32 per block for GCM (2 instructions a block), none for GCM-SIV (1).
 */
#include "asm_base.h"
#include "armv8_macros.h"

#if defined(__aarch64__)
#if defined(__AARCH64EB__)
#error "gcm_armv8.S assumes little-endian AArch64"
#endif

        AESFAST_RODATA
        .p2align 4
.Lctr_inc_inc32be:                      // inc32be: 1, 2, 4 and 8 added to 32-bit lane 3 only
        .long   0, 0, 0, 1
        .long   0, 0, 0, 2
        .long   0, 0, 0, 4
        .long   0, 0, 0, 8
.Lctr_inc_inc32le:                      // inc32le: 1, 2, 4 and 8 added to 32-bit lane 0 only
        .long   1, 0, 0, 0
        .long   2, 0, 0, 0
        .long   4, 0, 0, 0
        .long   8, 0, 0, 0

/* Offsets in aesfast_hash_key.tbl (see the header comment). */
#define HTAB_H(i) (16 * (8 - (i)))       /* H^i */
#define HTAB_K(i) (128 + 8 * (8 - (i)))  /* k(H^i) */
#define HTAB_G 192                       /* the reduction constant, g or p, in both lanes */

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
INCP    .req    x8              // .Lctr_inc_<fmt>: the counter increments
GHP     .req    x9              // the 8 blocks _hash_slot hashes; the blocks a tail hashes
KEYP    .req    x10             // set-up only: &rk[nr-10]
TREM    .req    x3              // tails: blocks left, 1..7 (CTRP is dead by then)
THP     .req    x10             // tail hash: where the next power is
TKP     .req    x11             // tail hash: where the next Karatsuba term is
TCNT    .req    x12             // tail hash: blocks left to hash, minus 2

/* ---- Vector registers ---- */
BLK0    .req    v0              // BLK0..BLK7: the AES states of 8 counter blocks
BLK1    .req    v1
BLK2    .req    v2
BLK3    .req    v3
BLK4    .req    v4
BLK5    .req    v5
BLK6    .req    v6
BLK7    .req    v7

GD0     .req    v8              // a pair of data blocks being hashed (GHASH: rbit'ed)
GD1     .req    v9
GHA     .req    v10             // their powers of H: H^p, H^(p-1)
GHB     .req    v11
GKK     .req    v12             // (k(H^p), k(H^(p-1))); in the reduction: g or p
GP0     .req    v13             // products and temporaries
GP1     .req    v14             // (GP2, the third, is v19: see RKX)
GLO     .req    v15             // sum of the lo products (x^0..x^126)
GHI     .req    v16             // sum of the hi products (x^128..x^254)
GMID    .req    v17             // sum of the Karatsuba middle products; then (d1, d2)
GACC    .req    v18             // the hash state (GHASH: rbit'ed): lives across iterations

IN0     .req    v8              // IN0..IN7: input blocks for the final XOR of an 8-block pass.
IN1     .req    v9              // They reuse v8-v15 once the reduction of the pass is done
IN2     .req    v10             // (GACC, v18, is kept).
IN3     .req    v11
IN4     .req    v12
IN5     .req    v13
IN6     .req    v14
IN7     .req    v15

RKX     .req    v19             // AES-192/256: the extra first round keys, loaded per use;
GP2     .req    v19             // in the 10 common rounds, a third hash temporary
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
CTRV    .req    v31             // the counter of the next block, lanes in host order (_ctr_init)

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

.macro _aese_last b
        aese    \b\().16b, RK_M1.16b                  // last round: no MixColumns
.endm

/*
 * _aes_round_gh n, k, gh, s, hk: one full round with round key \k on BLK0..BLK(n-1), and when gh
 * is 0 or 1 (the sha3 flag; -1: none) step s of the hash hk (ghash or polyval) spread over it:
 * slot t of the step follows the AESE/AESMC pair of block t, so that the hash instructions fill
 * the gaps between dependent AES instructions on in-order cores too, not only on out-of-order
 * ones.
 * _aes_last_gh n, gh, s, hk: the same for the last AESE.
 */
.macro _aes_round_gh n, k, gh, s, hk
.irp t, 0, 1, 2, 3, 4, 5, 6, 7
.if \t < \n
        _aese_aesmc BLK\t, \k
.endif
.if \gh >= 0
        _hash_slot \hk, \gh, \s, \t
.endif
.endr
.endm
.macro _aes_last_gh n, gh, s, hk
.irp t, 0, 1, 2, 3, 4, 5, 6, 7
.if \t < \n
        _aese_last BLK\t
.endif
.if \gh >= 0
        _hash_slot \hk, \gh, \s, \t
.endif
.endr
.endm

/*
 * _aes_gcm n, gh, hk: AES of BLK0..BLK(n-1) up to, not including, the XOR with RKLAST. gh = -1:
 * AES alone; gh = 0 or 1: with the 10 steps of the hash hk (ghash or polyval) of the 8 blocks at
 * GHP interleaved (after _hash_pre), EOR3 used when gh = 1. The first 2 (AES-192) or 4 (AES-256)
 * rounds load their keys into RKX.
 */
.macro _aes_gcm n, gh, hk=ghash
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
        _aes_round_gh \n, RK_M10, \gh, 0, \hk
        _aes_round_gh \n, RK_M9, \gh, 1, \hk
        _aes_round_gh \n, RK_M8, \gh, 2, \hk
        _aes_round_gh \n, RK_M7, \gh, 3, \hk
        _aes_round_gh \n, RK_M6, \gh, 4, \hk
        _aes_round_gh \n, RK_M5, \gh, 5, \hk
        _aes_round_gh \n, RK_M4, \gh, 6, \hk
        _aes_round_gh \n, RK_M3, \gh, 7, \hk
        _aes_round_gh \n, RK_M2, \gh, 8, \hk
        _aes_last_gh \n, \gh, 9, \hk
.endm

/* ------------------------------------------------------------------------------------------ */
/* GHASH and POLYVAL                                                                          */
/* ------------------------------------------------------------------------------------------ */

/*
 * The two reductions (header comment), cut into 7 pieces so that the stitched loops can spread
 * them over AES slots and the other callers can run them in a row: one source for both uses.
 * _reduce_step hk, sha3, i, dst, lo, mid, hi, c, t0, t1 is piece i (0..6) of reducing the
 * unreduced product (lo, mid', hi) into dst with the constant \c (g for ghash, p for polyval;
 * both lanes, though only one is read). lo, mid and t0, t1 are clobbered; hi is not; dst may be
 * any register but these (it is written by the last piece only).
 * _reduce hk, sha3, dst, lo, mid, hi, c, t0, t1: all 7 in a row.
 */
.macro _reduce_step hk, sha3, i, dst, lo, mid, hi, c, t0, t1
.ifc \hk, ghash                                         // x^128 = g, from the top down
 .if \i == 0
        pmull2  \t0\().1q, \hi\().2d, \c\().2d          // d3 g: x^192 = g x^64
 .elseif \i == 1
        ext     \t1\().16b, \lo\().16b, \hi\().16b, #8  // (lo.d1, hi.d0)
 .elseif \i == 2
        _eor3   \sha3, \mid, \mid, \lo, \hi             // Karatsuba: mid' + lo + hi = mid
 .elseif \i == 3
        _eor3   \sha3, \mid, \mid, \t1, \t0             // (d1, d2), plus d3 g at x^64
 .elseif \i == 4
        pmull2  \t0\().1q, \mid\().2d, \c\().2d         // d2 g: x^128 = g
 .elseif \i == 5
        zip1    \lo\().2d, \lo\().2d, \mid\().2d        // (d0, d1)
 .else
        eor     \dst\().16b, \lo\().16b, \t0\().16b     // (d0, d1) + d2 g: reduced
 .endif
.else
.ifc \hk, polyval                                       // Montgomery, x^-128, from the bottom up
 .if \i == 0
        pmull   \t0\().1q, \lo\().1d, \c\().1d          // A = d0 p
 .elseif \i == 1
        _eor3   \sha3, \mid, \mid, \lo, \hi             // Karatsuba: mid' + lo + hi = mid
 .elseif \i == 2
        eor     \mid\().16b, \mid\().16b, \t0\().16b    // mid + A
 .elseif \i == 3
        ext     \t1\().16b, \mid\().16b, \mid\().16b, #8 // its halves swapped
 .elseif \i == 4
        eor     \lo\().16b, \lo\().16b, \t1\().16b      // Y = (d0 + A.d1 + mid.d1, d1')
 .elseif \i == 5
        pmull2  \t0\().1q, \lo\().2d, \c\().2d          // B = d1' p
 .else
        _eor3   \sha3, \dst, \hi, \lo, \t0              // hi + Y + B: reduced
 .endif
.else
        .error  "unknown hash kind \hk"
.endif
.endif
.endm
.macro _reduce hk, sha3, dst, lo, mid, hi, c, t0, t1
.irp i, 0, 1, 2, 3, 4, 5, 6
        _reduce_step \hk, \sha3, \i, \dst, \lo, \mid, \hi, \c, \t0, \t1
.endr
.endm

/*
 * GACC = the hash hk (ghash or polyval) of GACC and the 8 blocks at GHP, as _hash_pre and then
 * 10 steps of 8 slots each: _hash_slot hk, sha3, s, t is slot t (0..7) of step s (0..9). Steps
 * 2j and 2j+1 handle blocks 2j and 2j+1 with H^(8-2j) and H^(7-2j): 2j the lo and hi products
 * (GHASH: after the rbit), 2j+1 the middle ones. Step 0 adds GACC into block 0 and starts the
 * sums; steps 8 and 9 reduce them into GACC. Loads run one step ahead (software pipelining):
 * _hash_pre loads what step 0 and 1 need, step 2j the powers for step 2j+2, step 2j+1 the blocks
 * for 2j+2 and the Karatsuba terms for 2j+3 (the reduction constant for step 8). So no
 * instruction waits right after its load, and the slots are ordered so that each PMULL result
 * is used a few slots later. Steps 8 and 9 are the 7 pieces of _reduce_step, in the slots that
 * _reduce_slot lists. Uses v8-v19 (GP2 is v19); reads GHP and HTAB, moves
 * neither. Empty slots emit nothing.
 */
.macro _hash_pre
        ldp     q8, q9, [GHP]                           // GD0, GD1 = blocks 0, 1
        ldp     q10, q11, [HTAB, #HTAB_H(8)]            // GHA, GHB = H^8, H^7
        ldr     q12, [HTAB, #HTAB_K(8)]                 // GKK = (k(H^8), k(H^7))
.endm

/* _reduce_slot hk, sha3, pos: slot pos = 8 (s - 8) + t of steps 8 and 9, the reduction. The 7
 * pieces of _reduce_step go in the slots listed per hash: GHASH's chain has two PMULL2s with
 * 4 slots after each; POLYVAL's is longer (PMULL, EOR, EXT, EOR, PMULL2, EOR) and is spread
 * over the two steps, 2 to 4 slots apart. */
.macro _reduce_slot hk, sha3, pos
.ifc \hk, ghash
        _reduce_if \hk, \sha3, \pos, 0, 1, 2, 4, 8, 10, 12
.else
        _reduce_if \hk, \sha3, \pos, 0, 1, 4, 6, 8, 10, 14
.endif
.endm
.macro _reduce_if hk, sha3, pos, p0, p1, p2, p3, p4, p5, p6
.if \pos == \p0
        _reduce_step \hk, \sha3, 0, GACC, GLO, GMID, GHI, GKK, GP0, GP1
.elseif \pos == \p1
        _reduce_step \hk, \sha3, 1, GACC, GLO, GMID, GHI, GKK, GP0, GP1
.elseif \pos == \p2
        _reduce_step \hk, \sha3, 2, GACC, GLO, GMID, GHI, GKK, GP0, GP1
.elseif \pos == \p3
        _reduce_step \hk, \sha3, 3, GACC, GLO, GMID, GHI, GKK, GP0, GP1
.elseif \pos == \p4
        _reduce_step \hk, \sha3, 4, GACC, GLO, GMID, GHI, GKK, GP0, GP1
.elseif \pos == \p5
        _reduce_step \hk, \sha3, 5, GACC, GLO, GMID, GHI, GKK, GP0, GP1
.elseif \pos == \p6
        _reduce_step \hk, \sha3, 6, GACC, GLO, GMID, GHI, GKK, GP0, GP1
.endif
.endm

.macro _hash_slot hk, sha3, s, t
.if \s >= 8                                             // the reduction
        _reduce_slot \hk, \sha3, 8*(\s-8)+\t
.elseif (\s % 2) == 0                                   // blocks s, s+1: lo and hi products
 .if \t == 0
  .ifc \hk, ghash
        rbit    GD0.16b, GD0.16b                        // to the straight bit order
  .endif
 .elseif \t == 1
  .ifc \hk, ghash
        rbit    GD1.16b, GD1.16b
  .endif
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

/* _hash_8 hk, sha3: GACC = the hash of GACC and the 8 blocks at GHP, without AES. */
.macro _hash_8 hk, sha3
        _hash_pre
.irp s, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
.irp t, 0, 1, 2, 3, 4, 5, 6, 7
        _hash_slot \hk, \sha3, \s, \t
.endr
.endr
.endm

/*
 * _hash_tail hk, sha3: GACC = the hash of GACC and the TREM (1..7) blocks at GHP, with
 * H^TREM..H^1 and one reduction. Pairs first (the table pairs any two consecutive powers), then
 * the last block if TREM is odd, which always takes H^1. Advances GHP; uses THP, TKP, TCNT; keeps
 * TREM.
 */
.macro _hash_tail hk, sha3
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
.ifc \hk, ghash
        rbit    GD0.16b, GD0.16b
        rbit    GD1.16b, GD1.16b
.endif
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
        ldr     q12, [HTAB, #HTAB_K(1)]                 // GKK.d0 = k(H^1) (d1: unused)
.ifc \hk, ghash
        rbit    GD0.16b, GD0.16b
.endif
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
        _reduce \hk, \sha3, GACC, GLO, GMID, GHI, GKK, GP0, GP1
.endm

/* _acc_load hk / _acc_store hk: GACC from / to acc[16]. GHASH converts between the two bit
 * orders; POLYVAL's acc is already in the order it computes in. */
.macro _acc_load hk
        ld1     {GACC.16b}, [ACCP]
.ifc \hk, ghash
        rbit    GACC.16b, GACC.16b
.endif
.endm
.macro _acc_store hk
.ifc \hk, ghash
        rbit    GACC.16b, GACC.16b
.endif
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
 * The counter, in two formats (the fmt parameter, named as in armv8.S):
 *   inc32be  GCM's inc32: the LAST 32-bit word is a big-endian counter. CTRV holds the counter
 *            block with REV32 applied, i.e. each 32-bit lane in host order: lane 3 is the counter
 *            as an integer, lanes 0-2 the byte-swapped first 12 bytes. REV32 turns a sum back
 *            into a counter block.
 *   inc32le  GCM-SIV's counter: the FIRST word is a little-endian counter. CTRV is the counter
 *            block as it is (lane 0 is the counter, in host order already), and so is every
 *            sum: no REV32.
 * Adding (0, 0, 0, i), resp. (i, 0, 0, 0), as 32-bit lanes (ADD .4s) adds i to the counter
 * modulo 2^32, exactly as the contracts say, and 0 to the other 12 bytes. The increments 1, 2,
 * 4, 8 come from .Lctr_inc_<fmt> (address in INCP) into v13-v16 (GP0, GP1, GLO,
 * GHI), which are free when blocks are built: then every block is at most 3 ADDs from CTRV, not
 * a chain of 7. 8 blocks take 18 instructions with inc32be and 11 with inc32le.
 */
CINC1   .req    v13             // (0, 0, 0, 1) or (1, 0, 0, 0) as .4s
CINC2   .req    v14             // 2
CINC4   .req    v15             // 4
CINC8   .req    v16             // 8

/* _ctr_init fmt: CTRV from the counter block at CTRP; INCP = the format's increments. */
.macro _ctr_init fmt
        ld1     {CTRV.16b}, [CTRP]
.ifc \fmt, inc32be
        rev32   CTRV.16b, CTRV.16b                      // lanes in host order
.else
.ifnc \fmt, inc32le
        .error  "_ctr_init: unknown counter format \fmt"
.endif
.endif
#if defined(__APPLE__)
        adrp    INCP, .Lctr_inc_\fmt\()@PAGE
        add     INCP, INCP, .Lctr_inc_\fmt\()@PAGEOFF
#else
        adrp    INCP, .Lctr_inc_\fmt                    // PC-relative: no relocation at run time
        add     INCP, INCP, :lo12:.Lctr_inc_\fmt
#endif
.endm

/* _ctr_blocks n, fmt (n = 4 or 8): BLK0..BLK(n-1) = the next n counter blocks; CTRV += n.
 * Clobbers v13-v16. */
.macro _ctr_blocks n, fmt
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
.ifc \fmt, inc32be
        rev32   BLK0.16b, CTRV.16b                      // back to a counter block
        rev32   BLK1.16b, BLK1.16b
        rev32   BLK2.16b, BLK2.16b
        rev32   BLK3.16b, BLK3.16b
.if \n == 8
        rev32   BLK4.16b, BLK4.16b
        rev32   BLK5.16b, BLK5.16b
        rev32   BLK6.16b, BLK6.16b
        rev32   BLK7.16b, BLK7.16b
.endif
.else
        mov     BLK0.16b, CTRV.16b                      // inc32le: the sums are the blocks
.endif
.if \n == 8
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
 * _ctr_tail fmt: the TREM (1..7) last blocks of CTR: out = in ^ keystream; INP and OUTP advance.
 * One AES pass of 4 blocks (1..4 left) or 8 (5..7), then the keystream is used 4, 2, 1 blocks
 * at a time, shifting the unused blocks down to BLK0, so exactly TREM blocks are read and
 * written. Uses v8-v11 for the input; GACC is kept.
 */
.macro _ctr_tail fmt
        cmp     TREM, #4
        b.hi    .Lctr_tail8\@
        _ctr_blocks 4, \fmt
        _aes_gcm 4, -1
.irp i, 0, 1, 2, 3
        _xor_rklast BLK\i
.endr
        b       .Lctr_tail_xor\@
.Lctr_tail8\@:
        _ctr_blocks 8, \fmt
        _aes_gcm 8, -1
.irp i, 0, 1, 2, 3, 4, 5, 6, 7
        _xor_rklast BLK\i
.endr
.Lctr_tail_xor\@:
        _xor_store_tail TREM, IN
.Lctr_tail_done\@:
.endm

/* _gcm_setup fmt, hk: ROUNDS, the counter, rk[nr-10..nr] into RK_M10..RKLAST, GACC from acc. */
.macro _gcm_setup fmt, hk
        ldr     ROUNDS, [KEY, #AESFAST_KEY_ROUNDS]
        _ctr_init \fmt
        add     KEYP, KEY, ROUNDS, uxtw #4              // &rk[nr]
        sub     KEYP, KEYP, #10 * 16                    // &rk[nr-10]
        ld1     {RK_M10.16b-RK_M7.16b}, [KEYP], #64
        ld1     {RK_M6.16b-RK_M3.16b}, [KEYP], #64
        ld1     {RK_M2.16b-RKLAST.16b}, [KEYP]
        _acc_load \hk
.endm

/* ------------------------------------------------------------------------------------------ */
/* The entry points: one macro per shape, instantiated per hash, counter format and variant    */
/* ------------------------------------------------------------------------------------------ */

/*
 * _hash_function hk, sha3, name:
 *
 * void aesfast_<prefix>_ghash(const aesfast_hash_key *hkey, uint8_t acc[16], const uint8_t *in,
 *                             size_t nblocks);
 *      acc = GHASH_H(acc, in[0..nblocks-1]), acc in SP 800-38D byte order, hkey from
 *      aesfast_armv8_ghash_init.
 * void aesfast_<prefix>_polyval(const aesfast_hash_key *hkey, uint8_t acc[16],
 *                               const uint8_t *in, size_t nblocks);
 *      acc = POLYVAL_H(acc, in[0..nblocks-1]) (RFC 8452), acc in POLYVAL's byte order, hkey
 *      from aesfast_armv8_polyval_init.
 *
 * nblocks may be 0. 8 blocks per reduction, then a tail of 1..7.
 */
.macro _hash_function hk, sha3, name
AESFAST_FUNC(\name)
        cbz     x3, .Lhash_ret\@
        mov     NBLOCKS, x3                             // into the stitched functions' places
        mov     GHP, x2
        mov     ACCP, x1
        mov     HTAB, x0
        _save_d8_d15
        _acc_load \hk
        subs    NBLOCKS, NBLOCKS, #8
        b.lo    .Lhash_tail\@
        .p2align 5
.Lhash_loop\@:
        _hash_8 \hk, \sha3
        add     GHP, GHP, #128
        subs    NBLOCKS, NBLOCKS, #8
        b.hs    .Lhash_loop\@
.Lhash_tail\@:
        ands    TREM, NBLOCKS, #7                       // NBLOCKS = left - 8: low 3 bits = left
        b.eq    .Lhash_done\@
        _hash_tail \hk, \sha3
.Lhash_done\@:
        _acc_store \hk
        _restore_d8_d15
.Lhash_ret\@:
        ret
AESFAST_END(\name)
.endm

/*
 * _ctr_then_hash_function hk, fmt, sha3, name:
 *
 * void aesfast_<prefix>_gcm_ctr_then_hash(const aesfast_key *key, const aesfast_hash_key *hkey,
 *                                         uint8_t acc[16], const uint8_t ctr[16],
 *                                         const uint8_t *in, uint8_t *out, size_t nblocks);
 *      GCM seal: out[i] = in[i] ^ AES(ctr + i) (inc32, as aesfast_armv8_ctr32_xor), then
 *      acc = GHASH_H(acc, out[0..nblocks-1]).
 * void aesfast_<prefix>_gcmsiv_ctr_then_hash(const aesfast_key *key,
 *                                            const aesfast_hash_key *hkey, uint8_t acc[16],
 *                                            const uint8_t ctr[16], const uint8_t *in,
 *                                            uint8_t *out, size_t nblocks);
 *      GCM-SIV open: out[i] = in[i] ^ AES(ctr + i) (the little-endian counter, as
 *      aesfast_armv8_ctr32le_xor), then acc = POLYVAL_H(acc, out[0..nblocks-1]).
 *
 * in == out is allowed, other overlap is not (what is hashed is read back from out after it is
 * stored); no alignment needed; ctr is not written; nblocks may be 0.
 */
.macro _ctr_then_hash_function hk, fmt, sha3, name
AESFAST_FUNC(\name)
        cbz     NBLOCKS, .Lseal_ret\@
        _save_d8_d15
        _gcm_setup \fmt, \hk
        subs    NBLOCKS, NBLOCKS, #8
        b.lo    .Lseal_tail\@

        // The first 8 blocks: AES alone, since there is no output to hash yet.
        mov     GHP, OUTP                               // what the next pass hashes
        _ctr_blocks 8, \fmt
        _aes_gcm 8, -1
        _xor_store8 \sha3
        subs    NBLOCKS, NBLOCKS, #8
        b.lo    .Lseal_last8\@

        // Encrypt 8 blocks while hashing the 8 output blocks before them.
        .p2align 5
.Lseal_loop\@:
        _hash_pre
        _ctr_blocks 8, \fmt
        _aes_gcm 8, \sha3, \hk
        add     GHP, GHP, #128
        _xor_store8 \sha3
        subs    NBLOCKS, NBLOCKS, #8
        b.hs    .Lseal_loop\@

.Lseal_last8\@:
        _hash_8 \hk, \sha3                              // the last 8 output blocks
.Lseal_tail\@:
        ands    TREM, NBLOCKS, #7
        b.eq    .Lseal_done\@
        mov     GHP, OUTP                               // the tail's output, once written
        _ctr_tail \fmt
        _hash_tail \hk, \sha3
.Lseal_done\@:
        _acc_store \hk
        _restore_d8_d15
.Lseal_ret\@:
        ret
AESFAST_END(\name)
.endm

/*
 * _hash_then_ctr_function hk, fmt, sha3, name:
 *
 * void aesfast_<prefix>_gcm_hash_then_ctr(const aesfast_key *key, const aesfast_hash_key *hkey,
 *                                         uint8_t acc[16], const uint8_t ctr[16],
 *                                         const uint8_t *in, uint8_t *out, size_t nblocks);
 *
 * GCM open: acc = GHASH_H(acc, in[0..nblocks-1]) and out[i] = in[i] ^ AES(ctr + i). Same
 * contract as ctr_then_hash; in place works because each group of blocks is hashed and loaded
 * before any of it is stored. (GCM-SIV has no such shape: its seal hashes before the counter
 * block exists.)
 */
.macro _hash_then_ctr_function hk, fmt, sha3, name
AESFAST_FUNC(\name)
        cbz     NBLOCKS, .Lopen_ret\@
        _save_d8_d15
        _gcm_setup \fmt, \hk
        subs    NBLOCKS, NBLOCKS, #8
        b.lo    .Lopen_tail\@

        // Hash 8 input blocks while making their keystream.
        .p2align 5
.Lopen_loop\@:
        mov     GHP, INP
        _hash_pre
        _ctr_blocks 8, \fmt
        _aes_gcm 8, \sha3, \hk
        _xor_store8 \sha3
        subs    NBLOCKS, NBLOCKS, #8
        b.hs    .Lopen_loop\@

.Lopen_tail\@:
        ands    TREM, NBLOCKS, #7
        b.eq    .Lopen_done\@
        mov     GHP, INP
        _hash_tail \hk, \sha3                           // hash the tail first: in may be out
        _ctr_tail \fmt
.Lopen_done\@:
        _acc_store \hk
        _restore_d8_d15
.Lopen_ret\@:
        ret
AESFAST_END(\name)
.endm

/* The functions of one variant (sha3 = 0: armv8, 1: armv8_sha3). */
.macro _gcm_functions sha3, prefix
        _hash_function ghash, \sha3, aesfast_\prefix\()_ghash
        _ctr_then_hash_function ghash, inc32be, \sha3, aesfast_\prefix\()_gcm_ctr_then_hash
        _hash_then_ctr_function ghash, inc32be, \sha3, aesfast_\prefix\()_gcm_hash_then_ctr
        _hash_function polyval, \sha3, aesfast_\prefix\()_polyval
        _ctr_then_hash_function polyval, inc32le, \sha3, aesfast_\prefix\()_gcmsiv_ctr_then_hash
.endm

/* ------------------------------------------------------------------------------------------ */
/* ghash_init and polyval_init (shared by both tiers)                                         */
/* ------------------------------------------------------------------------------------------ */

/*
 * _hash_init_function hk, name:
 *
 * void aesfast_armv8_ghash_init(aesfast_hash_key *hkey, const uint8_t h[16]);
 *      H in SP 800-38D order; writes H^1..H^8 (rbit'ed), their Karatsuba terms and g.
 * void aesfast_armv8_polyval_init(aesfast_hash_key *hkey, const uint8_t h[16]);
 *      H in POLYVAL's order (RFC 8452); writes H^1..H^8 in POLYVAL's multiplication (each
 *      power one more Montgomery product by H: H^i x^(-128 (i-1)) as polynomials), their
 *      Karatsuba terms and p.
 *
 * The layout is in the header comment; bytes 208..1023 are not touched. Uses v0-v7, v16 and x2.
 */
.macro _hash_init_function hk, name
AESFAST_FUNC(\name)
        ld1     {v0.16b}, [x1]
.ifc \hk, ghash
        rbit    v0.16b, v0.16b                          // H, straight order
        mov     x2, #0x87                               // g = x^7 + x^2 + x + 1
.else
        mov     x2, #0xc200000000000000                 // p = x^63 + x^62 + x^57
.endif
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
        _reduce \hk, 0, v1, v2, v4, v3, v16, v6, v7
.endif
        str     q1, [x0, #HTAB_H(\i)]
        ext     v2.16b, v1.16b, v1.16b, #8
        eor     v2.16b, v2.16b, v1.16b                  // d0: k(H^i)
        str     d2, [x0, #HTAB_K(\i)]
.endr
        ret
AESFAST_END(\name)
.endm

        _hash_init_function ghash, aesfast_armv8_ghash_init
        _hash_init_function polyval, aesfast_armv8_polyval_init

/* The two variants of the hashing functions. */
        _gcm_functions 0, armv8

        .arch   armv8.2-a+crypto+sha3                   // FEAT_SHA3: EOR3, from here on only
        _gcm_functions 1, armv8_sha3

#endif /* __aarch64__ */
