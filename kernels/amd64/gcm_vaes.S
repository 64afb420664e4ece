/*
 * VAES tiers: GHASH and POLYVAL with VPCLMULQDQ, and AES-GCM and AES-GCM-SIV's open, stitched,
 * on 256-bit (AVX2) and 512-bit (AVX-512) vectors, from one source.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * Functions (T = vaes_avx2 or vaes_avx512; prototypes and contracts in aesfast_kernel.h):
 *
 *   aesfast_T_ghash_init(hkey, h)        the table of H's powers below.
 *   aesfast_T_ghash(hkey, acc, in, n)    acc = GHASH(acc, n blocks).
 *   aesfast_T_gcm_ctr_then_hash(key, hkey, acc, ctr, in, out, n)   seal: CTR, then GHASH(out);
 *                                        _pub: the same for a public counter (both widths).
 *   aesfast_T_gcm_hash_then_ctr(key, hkey, acc, ctr, in, out, n)   open: GHASH(in), then CTR.
 *   aesfast_T_polyval_init(hkey, h), aesfast_T_polyval(hkey, acc, in, n)   the same for POLYVAL.
 *   aesfast_T_ghash_init_few(hkey, h), aesfast_T_polyval_init_few(hkey, h)   H'^8..H'^1 only,
 *                                        enough for hashes and messages of <= 8 blocks.
 *   aesfast_T_ghash_init_rest(hkey, h)   the rest of ghash_init's table, where ghash_init_few
 *                                        made H'^8..H'^1 (h unused).
 *   aesfast_T_gcmsiv_ctr_then_hash(key, hkey, acc, ctr, in, out, n)   GCM-SIV open: CTR with
 *                                        the little-endian counter, then POLYVAL(out).
 *   aesfast_vaes_avx512_gcm_seal_msg(key, hkey, msg, in, out, len), _gcm_open_msg: GCM's
 *                                        message in one call (aesfast_gcm_msg; see "A message
 *                                        in one call" below).
 *   aesfast_vaes_avx512_gcmsiv_seal_short(key, m), _open_short(key, m)   a whole GCM-SIV message
 *                                        of up to 32 blocks (AAD, data, lengths) in one call.
 *
 * CPU features: those of the same tier's ctr32_xor (see vaes.S) and VPCLMULQDQ (CPUID leaf 7
 * ECX[10]). The 512-bit functions also use AVX512F (VPTERNLOGD, VEXTRACTI64X4, VSHUFI64X2,
 * VPUNPCK on zmm), AVX512BW (VMOVDQU8 with byte masks, VPSHUFB on zmm, KMOVQ), AVX512VL (EVEX
 * forms on xmm and ymm in hash_init) and BMI2 (BZHI, for the tail masks). The 256-bit
 * functions use VEX encodings only. provider/dispatch.c checks all of these for both tiers.
 *
 * ABI: System V AMD64, leaf functions without a stack frame; the stitched functions read their
 * seventh argument, nblocks, at 8(%rsp). Only caller-saved registers are used, but for rbx in
 * the one-call functions (pushed and popped). Every function ends with VZEROUPPER. Round keys, H powers and keystream may stay in vector registers (see the
 * register policy in aesfast_kernel.h).
 *
 * The main loops per 16 blocks, by kind (GCM seal or open, AES-128; counted from the source and
 * the disassembly; open loads the data that seal takes as a memory operand, the same counts):
 *                                512-bit (4 blocks a vector)       256-bit (2 blocks), _pub form
 *   AES rounds (VAESENC[LAST])   40 (AES-256: 56)                  80 (AES-256: 112)
 *   carry-less multiplies        13: 12 Karatsuba + 1 (a reduction 25: 24 + 1 (a reduction per
 *                                per 32 blocks)                    32 blocks, over 2 iterations)
 *   shuffles                     14: 8 VPSHUFB (4 counter, 4 data) 18: VPSHUFB (data, counters),
 *                                4 VPUNPCK, 1 VPSHUFD, 1 extract   VPUNPCK, VPSHUFD, extracts
 *   XORs                         19: 12 VPXORD, 6 VPTERNLOGD, 1    46 VPXOR (no three-way XOR)
 *   counter adds (VPADDD)        4                                 8
 *   loads / stores               16 (6 vectors of powers, 4.5      51 (round keys as memory
 *                                round-key broadcasts, 4 data,     operands and broadcasts,
 *                                the rest constants) / 4           powers, data) / 8
 * GCM-SIV's open: the same without the data's VPSHUFBs (no byte reversal) and with the counters
 * unshuffled; GHASH and POLYVAL alone: 13 (zmm) or 26 (ymm: 16 blocks per reduction) multiplies
 * and their XORs. The tier's page, doc/perf/CLASS/, has the current cycles and bounds.
 *
 * What binds them (build/bench/kernels, 16 KiB, cycles per 16 blocks, AES-128):
 *   - Intel Xeon, AVX-512 (family 6, models 167 and 207): VAESENC zmm issues on one port, once
 *     per cycle, and every other vector operation on one of two: CTR 40 (its floor), GCM 47.5
 *     against max(40 VAESENC, 90 vector operations / 2 = 45); AES-256 GCM 56-59, its VAESENCs.
 *     256-bit there: three ports, 178 vector operations / 3 = 59.3 for GCM.
 *   - AMD Zen 5 (family 26): VAESENC zmm 2 per cycle, VPCLMULQDQ one per 2 cycles at every width
 *     (AES and XORs issue beside it): CTR 21.5 (floor 20), GHASH and POLYVAL 26.0 (13 x 2, the
 *     multiplies exactly), GCM 33.7 (floor 26: VPCLMULQDQ binds), AES-256 GCM 38.8 (floor 28:
 *     56 VAESENCs). 256-bit there: GCM 69.0 against the multiplies' 50.
 *   - AMD Zen 3 (family 25; no AVX-512, so the 256-bit functions): VAES on ymm, VPCLMULQDQ one
 *     per 2 cycles, which binds GCM: 25 x 2 = 50 at least.
 * The numbers behind the choices:
 *   - Karatsuba (below): 12 multiplies per 16 blocks instead of 16: 8 cycles of the bound where
 *     VPCLMULQDQ costs 2 (AMD); on Intel the two measured even on AES-128, schoolbook 5% better
 *     on AES-256: one variant, Karatsuba.
 *   - 32 blocks per reduction (GCM, both widths): 1 multiply per 16 blocks for the reduction
 *     instead of 2, and on ymm 185 vector operations per 16 blocks instead of 194.
 *   - Counters: the native form (VPADDD on the reversed block, VPSHUFB back: 3 operations per
 *     vector with rk[0]'s XOR) never branches on the counter, which may be secret (J0 of an IV
 *     that is not 12 bytes). The big-endian form for a public counter (a branch on its low byte)
 *     takes the 256-bit loop from 24 to 17 counter operations per 16 blocks (3-5% at 16 KiB,
 *     Intel). On zmm (the one-call message kernels and the 512-bit _pub forms) its groups are
 *     made by XOR from their first vector (_gcm32_counters), 11 operations per 32 blocks
 *     against the native 25: Intel's ports 0 and 5 run every 512-bit operation, so there the
 *     loop's bound falls with them (bench/model.py, doc/perf/model/); Zen 5 measured no slower.
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
 *   GHASH of n blocks X0..X(n-1) from acc is (acc ^ X0) H^n ^ X1 H^(n-1) ^ ... ^ X(n-1) H^1: n
 *   independent products, added before one reduction (reduction is linear). Each vector of
 *   VL/16 blocks meets a vector of the matching powers, lane for lane; the three 128-bit parts
 *   of every 256-bit product (LO = a_lo b_lo, HI = a_hi b_hi, MI = the middle) are added in
 *   accumulators whose lanes are reduced together and only then XORed into one lane. The
 *   512-bit functions take n = 32 blocks per reduction (8 zmm); the 256-bit GCM loop 32 too,
 *   over two iterations of 8 ymm, and its other hashes (GCM-SIV's, GHASH alone) 16.
 *   A reduction costs two VPCLMULQDQs, two shuffles and the lane sums, and its chain of
 *   latencies is the only thing that carries from one group to the next: the more blocks it
 *   covers, the less of either per block.
 *
 * Karatsuba or schoolbook
 *   Schoolbook takes 4 VPCLMULQDQ per vector (MI = a_hi b_lo ^ a_lo b_hi); Karatsuba 3, with
 *   MI = (a_lo ^ a_hi)(b_lo ^ b_hi) ^ LO ^ HI, the ^ LO ^ HI done once per reduction on the
 *   sums and b_lo ^ b_hi stored with the powers. Its cost is the data side, a_lo ^ a_hi:
 *     - per pair of vectors a and b, one VPUNPCKLQDQ, one VPUNPCKHQDQ and one VPXOR make
 *       [a_lo ^ a_hi, b_lo ^ b_hi] in each lane, whose qword 0 meets a's Karatsuba terms and
 *       qword 1 b's: on zmm packed the same way in the table, on ymm from the table's terms
 *       (lo ^ hi in both qwords) through VPCLMULQDQ's immediate (a VPSHUFD and a VPXOR per
 *       vector, the single vectors of the tails).
 *   On zmm that is 6 VPCLMULQDQ + 3 other operations per pair against 8 VPCLMULQDQ, and with
 *   three-way XORs (VPTERNLOGD) 3 additions into the sums against 4: the same count, 12, of
 *   vector operations, and one load of powers more. Where VPCLMULQDQ issues as often as any
 *   other operation (Intel: one per cycle, beside one VAESENC), the two are about even; where
 *   it costs two (AMD Zen 3 to Zen 5: one per two cycles, and AES runs twice as fast beside it),
 *   the 6 VPCLMULQDQs of a pair against 8 bound the whole loop. Karatsuba, then, on both widths
 *   (KARA = 0 builds the 512-bit schoolbook variant; the README has both measured).
 *
 * The hash-key tables (aesfast_hash_key.tbl, 1024 bytes, 16-byte aligned only; POLYVAL's the
 * same with H' = H), one layout per width:
 *   512-bit: bytes 16 (32 - k)   H'^k, k = 1..32: H'^32 first, H'^1 at 496. A group of n blocks
 *                                starts at the power H'^n, at 16 (32 - n), and its vector i
 *                                meets the powers at 16 (32 - n) + 64 i.
 *            bytes 512 + 64 p    p = 0..3: the Karatsuba terms (lo ^ hi in both qwords) of pair
 *                                p of a 32-block group (vectors 2p and 2p+1, powers at 128 p and
 *                                128 p + 64): lane k holds the term of vector 2p's lane k in
 *                                qword 0 and of vector 2p+1's in qword 1 (see _hash32_pair).
 *   256-bit: bytes 16 (16 - k)   H'^k, k = 1..16, and 256 bytes on, its Karatsuba term (lo ^ hi
 *                                in both qwords);
 *            bytes 512 + 16 (32 - k)   H'^k, k = 17..32 (GHASH only: the 32-block loop), and
 *                                256 bytes on, its Karatsuba term. So H'^16..H'^1 keep the
 *                                place gcm_aesni.S's vaes-avx2 functions read them from.
 *   ghash_init writes all of its width's table (bytes 0..767, or 0..1023); polyval_init bytes
 *   0..767 (512-bit) or 0..511 (256-bit: GCM-SIV's hashes reduce every 16 blocks, and its
 *   init runs per nonce);
 *   ghash_init_few and polyval_init_few H'^8..H'^1 (and, 256-bit, their terms), and (512-bit)
 *   zeros at bytes 512..575: the 512-bit tails read their last vector of powers whole, up to 48
 *   bytes past H'^1, beside zeroed data lanes, so those bytes add nothing but must have been
 *   written. The 256-bit tails read their last single block as an xmm, nothing past H'^1.
 *
 * Stitching, 512-bit
 *   Each iteration encrypts 32 counter blocks (V0-V7) and hashes 32 blocks (CT0-CT7); the hash
 *   work, four pairs and the two halves of the reduction, is spread over the middle AES rounds of
 *   the key size (a loop per key size: AES-256's 13 middle rounds carry it as evenly as
 *   AES-128's 9), so that the VAESENC and VPCLMULQDQ streams interleave. Seal's last AES round
 *   writes its output into CT0-CT7, and the next iteration hashes it from there while it
 *   encrypts the next 32 blocks: the hash runs 32 blocks behind the AES and reads nothing back
 *   from memory. Open loads its 32 input blocks into CT0-CT7 once, for the hash and for the
 *   last round's XOR; all loads of an iteration precede its stores, so in == out works. Each
 *   vector of powers is loaded once per iteration into PT, for all its products: on Intel every
 *   load beside saturated vector ports costs time, memory operands included (see the README).
 *
 * Counters, 512-bit
 *   GCM's native counter form is the whole block reversed (the BSWAP128 that GHASH uses), so
 *   that its 32-bit counter is dword 0 and VPADDD advances it mod 2^32; GCM-SIV's is the block
 *   itself. A group's vectors are a chain of VPADDDs by 4 from CTRN (c+0..c+3), each turned
 *   into blocks by a VPSHUFB (GCM) and XORed with rk[0]. A form with no shuffle per vector, the
 *   big-endian blocks plus 4 in byte 15 while no carry leaves byte 15 (7 of 8 groups), was
 *   measured faster, but its branch follows the counter, which for GCM IVs other than 12 bytes
 *   is J0 = GHASH_H(IV), a secret: it needs the caller to say that the counter is public.
 *
 *   Tails (fewer than 32 blocks, also whole short calls) go vector by vector in a loop whose
 *   iterations the core overlaps (only the counter and the sums carry from one to the next),
 *   the round keys in registers, the last vector under a byte mask (k1): masked loads and
 *   stores, nothing read or written past a buffer. Their hash starts at H'^n (schoolbook: no
 *   Karatsuba terms needed); seal hashes each output vector from its register, after the
 *   lagging 32 blocks, with its masked-off lanes zeroed.
 *
 * Stitching, 256-bit
 *   Each iteration runs AES on 16 counter blocks (8 ymm) and GHASH on 16 blocks; the GHASH
 *   work, four pairs of vectors (_ghash_pair) and the reduction, is spread over the 9 AES rounds
 *   that every key size has. GCM's loop takes two iterations per reduction: the first hashes
 *   its 16 blocks against H'^32..H'^17 into the sums, the second against H'^16..H'^1 and
 *   reduces (an odd 16-block group at the end reduces on its own, against H'^16..H'^1). The
 *   pair that takes in the hash state runs first after the reduction, and the others follow:
 *   a pair needs two vectors of data, and the hash state's register is the only one left for
 *   the second (GB). The chain from one reduction to the next is still one multiply and the
 *   reduction, 30-odd cycles of latency against 140 of work, which the core overlaps. Seal hashes
 *   the ciphertext of the previous iteration (read back from out: 16 ymm registers hold the AES
 *   states, counter, round key and sums, and none is left to keep it); open hashes the current
 *   ciphertext while decrypting it. Counters are generated as in vaes.S (native form, inc32 per
 *   lane, or GCM-SIV's dword 0 as is). Tail (fewer than 16 blocks): the keystream from the CTR
 *   tail of vaes_macros.h (_ctr_xor_tail_any); the hash loops over vectors of powers starting at
 *   H'^n, the last single block as an xmm (VEX clears the upper lane of data and powers).
 *
 * A message in one call, 512-bit (_gcm32_msg)
 *   The AAD is queued by the provider (aesfast_gcm_msg.queue: P zero-padded blocks); the first
 *   data update is then E(J0), the data and the lengths block L in one pass: if the queue, the
 *   data's m blocks and L fit in one group of powers (P + m + 1 <= 32), every block meets its
 *   power from H^n on (the queue's, then the data's, then L with H^1), the hash state added
 *   into whichever vector is hashed first, with one reduction, and the data vector by vector as
 *   in the tails, the last one masked. E(J0) is one more AES chain, beside. The tag is E(J0) ^
 *   the hash; the data's hashed blocks are queued after the AAD's, so that a message that goes
 *   on resumes from acc and the queue (the provider hands it to the byte stream then). A
 *   longer message reduces its queue into acc first, runs the main loop over its 32-block
 *   groups (seal then hashes its last group), stores acc, and ends in the same pass over the
 *   rest: at most 31 blocks, or 31 whole and a partial one, whose first vector is then a group
 *   of its own (H^4..H^1, a reduction), as 33 blocks with L would need H^33. The main loop's
 *   counters take the big-endian form when the provider says J0 is public (12-byte IVs).
 * Short messages (GCM-SIV, 512-bit)
 *   A message of n <= 32 blocks in all (the AAD's naad blocks, the data's nd and the lengths
 *   block) is hashed with one reduction against powers made in registers, P_j = H^(4j+4) ..
 *   H^(4j+1) for j < mvec = ceil(n / 4): hash_init's tree, only as deep as mvec needs, no table.
 *   The blocks are laid out as a virtual sequence of 4 mvec blocks: 4 mvec - n zero blocks, the
 *   AAD, the data, the lengths block last, so that the vector j from the end meets P_j whole,
 *   whatever n. Each vector is loaded from where its blocks are, under byte masks: the AAD
 *   from aad (whole blocks, padded by the caller), the data from in, both at offsets that may
 *   lie before the buffers (the masked-off bytes are not read). With D the byte at which the
 *   data begins, counted from the vector's start (48 - 16 nd for the last vector, 64 more for
 *   each one before), the vector holds AAD bytes D - 16 naad .. D - 1 and data bytes D ..
 *   D + len - 1; out is written the same way, and the counters of a vector's lanes are the tag's
 *   plus the lanes' data block numbers (junk where there is no data). Seal hashes, makes the tag
 *   and then runs CTR vector by vector; open runs CTR from the tag received and hashes each
 *   vector's plaintext from the register, then makes the tag. Round keys are broadcast from
 *   memory round by round (the loops are short, and the powers need the registers).
 *
 * Register roles, 256-bit (V = ymm):
 *   V0-V7  AES states                          V8   RKT: the current round key, and GHP_V: H
 *                                              powers in the hash steps between the rounds
 *   V9   CTR: next counters, native form       V10  GLO: sum of the LO products
 *   V11  GMI: sum of the middle products       V12  GHI: sum of the HI products
 *   V13  GD: a vector of data blocks           V14  GT: products and temporaries
 *   V15  GACC: the hash state (lane 0; the other lanes zero), from a reduction to the first
 *        pair after it; then GB: a pair's second vector of data blocks
 *   Round keys and H powers come from memory (broadcasts, loads into GHP_V, memory operands);
 *   the counter step and shuffle are loaded once per iteration into GT and GD, free while the
 *   counters are made, and GHASH's block shuffle once per pair into GT: on Intel a load beside
 *   saturated vector ports is not free (a 128-bit broadcast is), and the 16 counter operands
 *   per iteration cost AES-128 about 4 cycles of 67 (see the README).
 * Register roles, 512-bit (_set_gcm32_regs):
 *   zmm0-7    V0-V7: AES states                 zmm16-23  CT0-CT7: the 32 blocks to hash
 *   zmm8-10   GLO, GMI, GHI: the sums           zmm11     GACC: the hash state (lane 0)
 *   zmm12-15, zmm24  GA, GB, GT0, GT1, GT2: the hash's temporaries (the lane sums use VEX on
 *             ymm10/15 and xmm10/11/15, so these live below 16)
 *   zmm25     BSWAP128 (GHASH's block reversal, GCM's counter form)
 *   zmm26     PT: the vector of powers in use
 *   zmm27-29  RK0, RKLAST, RKT: rk[0], the last round key, the round key of the current round
 *             (broadcast once per round for all 8 vectors)
 *   zmm30-31  CTRN (native counters, lanes c+0..c+3), CSTEP (4 in dword 0 of each lane)
 *   k1        the tail's mask; the tail keeps the round keys in CT0-CT7 and V1-V5
 */

#include "asm_base.h"

#if defined(__x86_64__)

/* Stitched functions' arguments (SysV: rdi, rsi, rdx, rcx, r8, r9, then 8(%rsp)). */
.macro _gcm_args
        .set            KEY,      %rdi  /* const aesfast_key * */
        .set            HKEY,     %rsi  /* const aesfast_hash_key *: the table of powers */
        .set            ACCP,     %rdx  /* uint8_t acc[16] */
        .set            CTRP,     %rcx  /* const uint8_t ctr[16]; then free (GSRC) */
        .set            CTRLO,    %ecx  /* _pub, the main loop: the low byte of the next group's */
        .set            CTRLOB,   %cl   /* first counter (public; CTRP is done with) */
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
        .set            TBYTES,   %r10  /* 512-bit tail: 16 * the blocks left */
        .set            TMASK,    %rcx  /* 512-bit tail: the mask of the next vector */
        .set            GHP0,     %r11  /* 512-bit tail: the powers of its first vector */
.endm

/* aesfast_T_ghash's arguments (rdi, rsi, rdx, rcx). */
.macro _ghash_args
        .set            HKEY,     %rdi
        .set            ACCP,     %rsi
        .set            GSRC,     %rdx  /* const uint8_t *in */
        .set            GCNT,     %rcx  /* nblocks, then the blocks left */
        .set            GHP,      %rax
        .set            TBYTES,   %r8   /* 512-bit tail: 16 * the blocks left */
        .set            TMASK,    %r9   /* 512-bit tail: the mask of the next vector */
        .set            GHP0,     %r10  /* 512-bit tail: the powers of the next vector */
.endm

/* The shared macros name these before they are first expanded; each function re-sets them. */
        _gcm_args

#include "vaes_macros.h"

        AESFAST_RODATA
        .p2align 6
/* Each constant a memory operand reads whole is 64-byte aligned: a load across two cache lines
 * costs its loop time. */
/* 0xc2000000000000000000000000000001 per lane: the low 128 bits of P'(y), y^127+y^126+y^121+1.
 * Its high qword is C, the fold constant of the Montgomery reduction; all of it is what the
 * one-bit shift in hash_init adds back when bit 127 falls out. */
.Lgfpoly:
        .quad 1, 0xc200000000000000, 1, 0xc200000000000000
        .quad 1, 0xc200000000000000, 1, 0xc200000000000000
        .p2align 6
/* Counter shuffle (vaes_macros.h's .Lbswap_ctr32) for two lanes, as a memory operand. */
.Lctr_bswap_vl:
        .byte 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 14, 13, 12
        .byte 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 14, 13, 12
        .p2align 6
/* 256-bit: per-lane counter steps for one ymm (2 blocks), in dword 3 for ctr32 and in dword 0
 * for ctr32le (see vaes_macros.h). */
.Lctr_step2_ctr32_vl:
        .long 0, 0, 0, 2,  0, 0, 0, 2
.Lctr_step2_ctr32le_vl:
        .long 2, 0, 0, 0,  2, 0, 0, 0
/* 256-bit, public counter (_gcm_group's \be): 2 in byte 15 of each lane, the step from one
 * vector of big-endian blocks to the next; and 16 in dword 3, a group's step of the native
 * counters (ctr32: dword 3 = the counter, little-endian). */
.Lctr_step2_be_vl:
        .long 0, 0, 0, 2 << 24,  0, 0, 0, 2 << 24
.Lctr_step16_vl:
        .long 0, 0, 0, 16,  0, 0, 0, 16
/* 512-bit: GCM's native counters are the blocks reversed, GCM-SIV's the blocks: both count in
 * dword 0. The step from one vector to the next (4), and of a 32-block group (32); what vector
 * i = 0..7 of a group adds to counters that are at c+0..c+3 in its four lanes (the tails). */
.Lctr_step4:
        .long 4, 0, 0, 0
        .p2align 6
.Lctr_step32:
        .rept 4
        .long 32, 0, 0, 0
        .endr
        .p2align 6
.Lctr_inc32:
        .irp i, 0,1,2,3,4,5,6,7
        .rept 4
        .long 4*\i, 0, 0, 0
        .endr
        .endr
        .p2align 6
/* The data's first counters from J0 (GCM's native form): lanes J0 + 1 .. J0 + 4. */
.Llane_inc_j0:
        .long 1, 0, 0, 0,  2, 0, 0, 0,  3, 0, 0, 0,  4, 0, 0, 0
/* 28 in byte 15 (the top byte of dword 3) of each lane: vector 7's big-endian step from vector
 * 0 (_gcm32_counters). */
.Lctr_step28_be:
        .rept 4
        .long 0, 0, 0, 28 << 24
        .endr
        .p2align 6
/* What vector i = 1..6 of a big-endian group XORs into vector 0's blocks (_gcm32_counters): in
 * byte 15 of lane l, (l + 2) ^ (4i + l + 2), the counters' low bytes B + 4i + l + 2 against
 * B + l + 2 where B is a multiple of 32 (B + x = B ^ x for x < 32). */
.Lctr_xor_be:
        .irp i, 1,2,3,4,5,6
        .irp l, 0,1,2,3
        .long 0, 0, 0, ((\l + 2) ^ (4*\i + \l + 2)) << 24
        .endr
        .endr
/* All ones: BZHI's source for byte masks. */
.Lones:
        .quad -1
        .p2align 6
/* Byte indices 15..0 per lane: reverses each block (SP 800-38D order <-> the integer A). A
 * VPSHUFB memory operand, so it is as wide as a zmm. */
.Lbswap128:
        .byte 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0
        .byte 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0
        .byte 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0
        .byte 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0

/* ------------------------------------------------------------------------------------------ */
/* GHASH: what both widths share                                                              */
/* ------------------------------------------------------------------------------------------ */

/* \reg = its blocks as integers (and back): a byte reversal per lane for ghash, nothing for
 * polyval, whose blocks already are the little-endian integers. \mask: the shuffle's control, a
 * register holding .Lbswap128 or (by default) the memory operand. */
.macro _hash_bswap hfmt, reg, mask=.Lbswap128(%rip)
.ifc \hfmt, ghash
        vpshufb         \mask, \reg, \reg
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
        vpshufb         .Lbswap128(%rip), GACC_X, GACC_X
.else
        _hash_bswap     \hfmt, GACC_X          /* (checks the format) */
.endif
        vmovdqu         GACC_X, (ACCP)
.endm

/* The offset in the table of the power H'^k: 512-bit (H'^32 first), 256-bit (H'^16 first). */
#define HPOW(k) (16 * (32 - (k)))
#define HPOW16(k) (16 * (16 - (k)))

/* ------------------------------------------------------------------------------------------ */
/* 256-bit: 16 blocks per iteration and per reduction                                         */
/* ------------------------------------------------------------------------------------------ */

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
        .set            GB, V15                 /* a pair's second vector: GACC once spent */
        .set            GHP_V, V8               /* RKT between the rounds' uses */
        .set            GACC_X, %xmm15
        .set            GHI_X, %xmm12
        .set            GHI_Y, %ymm12
        .set            GD_X, %xmm13
        .set            GT_X, %xmm14
        .set            GT_Y, %ymm14
        .set            GHP_X, %xmm8
.endm

/* The schoolbook halves of \x times the powers in GHP_V, lane by lane: a_lo * b_lo into GLO and
 * a_hi * b_hi into GHI, written (\first = 1) or added. */
.macro _mul_lo_hi x, first
.if \first
        vpclmulqdq      $0x00, GHP_V, \x, GLO           /* a_lo * b_lo */
        vpclmulqdq      $0x11, GHP_V, \x, GHI           /* a_hi * b_hi */
.else
        vpclmulqdq      $0x00, GHP_V, \x, GT
        vpxor           GT, GLO, GLO
        vpclmulqdq      $0x11, GHP_V, \x, GT
        vpxor           GT, GHI, GHI
.endif
.endm

/*
 * GD (blocks as integers) times the powers at \disp(\hk) (Karatsuba terms 256 bytes on), lane by
 * lane, added to GLO/GMI/GHI (Karatsuba); \first = 1 writes the sums instead. The powers pass
 * through GHP_V. GMI gets the raw Karatsuba product (a_lo ^ a_hi)(b_lo ^ b_hi); _ghash_reduce
 * fixes it. \one: GD is a single block (upper lane zero), and only 16 bytes of powers and of
 * Karatsuba terms are read (xmm loads; VEX clears the upper lane), so a tail at H'^1 reads
 * nothing past it. In AT&T order VPCLMULQDQ is (imm, src2, src1, dst): imm bit 0 picks src1's
 * qword, bit 4 src2's.
 */
.macro _ghash_mul_acc hk, disp, first, one=0
.if \one
        vmovdqu         \disp(\hk), GHP_X
.else
        vmovdqu         \disp(\hk), GHP_V               /* the powers */
.endif
        _mul_lo_hi      GD, \first
.if \one
        vmovdqu         256+\disp(\hk), GHP_X
.else
        vmovdqu         256+\disp(\hk), GHP_V           /* their Karatsuba terms */
.endif
        vpshufd         $0x4e, GD, GT                   /* qwords swapped */
        vpxor           GD, GT, GT                      /* a_lo ^ a_hi in the low qword */
.if \first
        vpclmulqdq      $0x00, GHP_V, GT, GMI           /* (a_lo ^ a_hi)(b_lo ^ b_hi) */
.else
        vpclmulqdq      $0x00, GHP_V, GT, GT
        vpxor           GT, GMI, GMI
.endif
.endm

/*
 * Vectors \i and \i+1 of a 16-block group at \off(\src) times vectors \i and \i+1 of the
 * powers at \pw(HKEY) (H'^16..H'^1 at 0, H'^32..H'^17 at 512; Karatsuba terms 256 bytes on),
 * added to the sums; \first = 1 writes them. \acc = 1 (the pair that starts a reduction's
 * blocks) adds the hash state into block 0 first: GACC is then spent, and its register holds
 * the second vector (GB). The Karatsuba data side of both vectors is three operations instead
 * of four: [a_lo, b_lo] and [a_hi, b_hi] per lane (VPUNPCKLQDQ, VPUNPCKHQDQ), XORed, give
 * a_lo ^ a_hi in qword 0 and b_lo ^ b_hi in qword 1, which meet the table's terms (lo ^ hi in
 * both qwords) through the immediate. A pair needs GB beside GD, so every pair must come
 * between the \acc one and the next reduction, which writes GACC. \half = 1 is the first half
 * (loads, block shuffles, LO and HI products), 2 the second (the middle products; GD and GB
 * kept from the first), 0 both: the stitched loop puts the halves in two AES rounds' slots.
 */
.macro _ghash_pair hfmt, i, src, off, pw, first=0, acc=0, half=0
.if \half != 2
.ifc \hfmt, ghash
        vmovdqu         .Lbswap128(%rip), GT    /* one load of the shuffle for both vectors */
.endif
        vmovdqu         \off+\i*VL(\src), GD
        _hash_bswap     \hfmt, GD, GT          /* blocks -> integers */
.if \acc
        vpxor           GACC, GD, GD
.endif
        vmovdqu         \off+(\i+1)*VL(\src), GB
        _hash_bswap     \hfmt, GB, GT
        vmovdqu         \pw+\i*VL(HKEY), GHP_V        /* a's powers */
        _mul_lo_hi      GD, \first
        vmovdqu         \pw+(\i+1)*VL(HKEY), GHP_V    /* b's powers */
        _mul_lo_hi      GB, 0
.endif
.if \half != 1
        vpunpcklqdq     GB, GD, GT                      /* [a_lo, b_lo] per lane */
        vpunpckhqdq     GB, GD, GD                      /* [a_hi, b_hi] */
        vpxor           GT, GD, GD                      /* [a_lo ^ a_hi, b_lo ^ b_hi] */
.if \first
        vpclmulqdq      $0x00, 256+\pw+\i*VL(HKEY), GD, GMI
.else
        vpclmulqdq      $0x00, 256+\pw+\i*VL(HKEY), GD, GT
        vpxor           GT, GMI, GMI
.endif
        vpclmulqdq      $0x01, 256+\pw+(\i+1)*VL(HKEY), GD, GT /* GD's qword 1 */
        vpxor           GT, GMI, GMI
.endif
.endm

/*
 * GACC (lane 0) = GLO/GMI/GHI reduced and summed over the lanes: the Karatsuba fix, then two
 * Montgomery folds (see the top of this file), each lane on its own, then the lanes XORed.
 * With the 256-bit product Z in LO (bits 0..127), MI (64..191) and HI (128..255):
 *   fold 1: LO's low qword L0 is cleared by adding L0 * P' * 1: L0 * C lands on bits 64..190
 *           (MI), L0 * y^128 on MI's high qword, and LO's high qword moves down to MI's low one;
 *   fold 2: the same from MI into HI, which is then the reduced result.
 * (The 512-bit functions do the same in _reduce32_a and _reduce32_b.)
 */
.macro _ghash_reduce
        _vpxor3         GLO, GHI, GMI                   /* MI = Karatsuba ^ LO ^ HI */
        vpclmulqdq      $0x10, .Lgfpoly(%rip), GLO, GT  /* L0 * C */
        vpshufd         $0x4e, GLO, GLO                 /* [L1, L0] */
        _vpxor3         GT, GLO, GMI
        vpclmulqdq      $0x10, .Lgfpoly(%rip), GMI, GT  /* M0 * C */
        vpshufd         $0x4e, GMI, GMI                 /* [M1, M0] */
        _vpxor3         GT, GMI, GHI
        vextracti128    $1, GHI_Y, GT_X                 /* lane 1 onto lane 0 */
        vpxor           GT_X, GHI_X, GACC_X             /* VEX: lane 0 only */
.endm

/* \dst ^= \a ^ \b: two VPXORs. */
.macro _vpxor3 a, b, dst
        vpxor           \a, \dst, \dst
        vpxor           \b, \dst, \dst
.endm

/*
 * Step \i of a 16-block group at \off(\src), unstitched: vector \i of the blocks times vector
 * \i of H'^16..H'^1. Step 0 adds the hash state (GACC, lane 0) into block 0 first, so it is the
 * only step that waits for the previous group's reduction: the steps run in the order 1, 2,
 * ..., NV-1, 0 (step 1 writing the sums), and only step 0 and the reduction are on the chain
 * from one group's hash state to the next. Single vectors, not pairs: GACC stays live until
 * step 0, and nothing else hides the chain here (GHASH alone is bound by it: with pairs, the
 * hash-state pair first, it ran 13% slower).
 */
.macro _ghash_step hfmt, i, src, off
        vmovdqu         \off+\i*VL(\src), GD
        _hash_bswap     \hfmt, GD              /* blocks -> integers */
.if \i == 0
        vpxor           GACC, GD, GD
.endif
        _ghash_mul_acc  HKEY, \i*VL, (\i == 1)
.endm

/* GHASH of one whole 16-block group at \off(\src), unstitched. */
.macro _ghash_group hfmt, src, off
.irp i, 1,2,3,4,5,6,7
        _ghash_step     \hfmt, \i, \src, \off
.endr
        _ghash_step     \hfmt, 0, \src, \off
        _ghash_reduce
.endm

/*
 * GHASH of GCNT = 1..15 blocks at GSRC into GACC: vector by vector against the powers from
 * H'^GCNT on (GHP), the last single block (odd GCNT) as an xmm. Advances GSRC and GHP; clobbers
 * GCNT.
 */
.macro _ghash_tail hfmt
        vpxor           GLO, GLO, GLO
        vpxor           GMI, GMI, GMI
        vpxor           GHI, GHI, GHI
        mov             GCNT, GHP
        shl             $4, GHP
        neg             GHP
        lea             256(HKEY, GHP), GHP     /* &H'^GCNT = tbl + 16 * (16 - GCNT) */
.Lgt_loop\@:
        cmp             $BPV, GCNT
        jb              .Lgt_one\@
        vmovdqu         (GSRC), GD
        _hash_bswap     \hfmt, GD              /* blocks -> integers */
        vpxor           GACC, GD, GD            /* the state into the first block ... */
        vpxor           GACC, GACC, GACC        /* ... and only there */
        _ghash_mul_acc  GHP, 0, 0
        add             $VL, GSRC
        add             $VL, GHP
        sub             $BPV, GCNT
        jnz             .Lgt_loop\@
        jmp             .Lgt_reduce\@
.Lgt_one\@:                                     /* the last block */
        vmovdqu         (GSRC), GD_X            /* VEX clears the upper lane */
        _hash_bswap     \hfmt, GD
        vpxor           GACC, GD, GD
        _ghash_mul_acc  GHP, 0, 0, one=1
.Lgt_reduce\@:
        _ghash_reduce
.endm

/* The body of aesfast_vaes_avx2_ghash (\hfmt = ghash) and _polyval (polyval)(hkey, acc, in,
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

/* ------------------------------------------------------------------------------------------ */
/* GCM, and GCM-SIV's open                                                                   */
/* ------------------------------------------------------------------------------------------ */

/* One AES round with the round key \j places before the last, on the NV states. */
.macro _gcm_round j
        _vbroadcasti128 -16*\j(RKEND), RKT
        _vaesenc_n      RKT, NV
.endm

/*
 * GHASH work item \k (0..8, after AES round RKEND-(9-k)) for mode \mode: in slot k < 8 half
 * k % 2 + 1 of the pair of vectors k / 2 * 2 (pair 0 first: it takes in the hash state), the
 * reduction in slot 8. \part: 0 a whole
 * 16-block group (H'^16..H'^1, then the reduction); 1 the first half of a 32-block group
 * (H'^32..H'^17 at 512, the hash state, no reduction); 2 its second half (H'^16..H'^1, no hash
 * state, the reduction).
 */
.macro _ghash_slot mode, k, hfmt, part
.if (\mode != 0) && ((\k) < 8)
.if \part == 1
        .set            GPW, 512
.else
        .set            GPW, 0
.endif
        .set            GFIRST, ((\k) < 2) && (\part != 2)
.if \mode == 1
        _ghash_pair     \hfmt, (\k)/2*2, OUT, -256, GPW, GFIRST, GFIRST, (\k)%2+1
.else
        _ghash_pair     \hfmt, (\k)/2*2, IN, 0, GPW, GFIRST, GFIRST, (\k)%2+1
.endif
.endif
.if (\mode != 0) && ((\k) == 8) && (\part != 1)
        _ghash_reduce
.endif
.endm

/* \next = \cur + 2 in byte 15 of each lane (GT), then \cur ^= rk[0] (RKT): a big-endian counter
 * step that is right while no lane carries out of byte 15 (see _gcm_group's \be). */
.macro _be_next cur, next
        vpaddd          GT, \cur, \next
        vpxor           RKT, \cur, \cur
.endm

/*
 * One iteration: 16 blocks of CTR (counter format \fmt) from IN to OUT, and for \mode = 1
 * (CTR, then hash) or 2 (hash, then CTR) the hash (format \hfmt) of 16 blocks interleaved with
 * the rounds (\part: which powers, and whether it reduces: see _ghash_slot); \mode = 0 is CTR
 * alone. The counter constants are loaded once into GT and GD, which the hash does not hold
 * across iterations.
 * With \be (GCM only, the _pub functions: a counter the caller knows is public, J0 = IV || 1 of
 * a 12-byte IV), a group whose 16 counters share bytes 12..14 (CTRLOB, the low byte of its
 * first, is at most 240: 15 groups in 16) is made on the big-endian blocks: one shuffle, then 2
 * added to byte 15 from one vector to the next, 17 vector operations instead of 24 (of about 185
 * per 16 blocks on three ports: see the README). CTR stays native, so a group that would carry
 * takes the native way and the tail needs nothing. The branch follows the counter: a secret one
 * (J0 = GHASH(IV)) must come through the functions without \be.
 */
.macro _gcm_group mode, fmt, hfmt, part=0, be=0
        _vbroadcasti128 (KEY), RKT
.if \be
        cmp             $240, CTRLOB
        ja              .Lnative\@
        vmovdqu         .Lctr_step2_be_vl(%rip), GT     /* GT, GD: free here */
        vpshufb         .Lctr_bswap_vl(%rip), CTR, V0   /* big-endian: c+0, c+1 */
        _be_next        V0, V1
        _be_next        V1, V2
        _be_next        V2, V3
        _be_next        V3, V4
        _be_next        V4, V5
        _be_next        V5, V6
        _be_next        V6, V7
        vpxor           RKT, V7, V7
        vpaddd          .Lctr_step16_vl(%rip), CTR, CTR /* native: c+16 */
        jmp             .Lmade\@
.Lnative\@:
.endif
        vmovdqu         .Lctr_step2_\fmt\()_vl(%rip), GT
.ifc \fmt, ctr32
        vmovdqu         .Lctr_bswap_vl(%rip), GD
.endif
.irp i, 0,1,2,3,4,5,6,7
        _ctr_next       \fmt, V\i, RKT, GT, GD
.endr
.if \be
.Lmade\@:
        add             $16, CTRLOB
.endif
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
        _ghash_slot     \mode, (9-\j), \hfmt, \part
.endr
        _vbroadcasti128 (RKEND), RKT
.irp i, 0,1,2,3,4,5,6,7
        vpxor           \i*VL(IN), RKT, GT      /* last round key ^ input */
        vaesenclast     GT, V\i, V\i
        vmovdqu         V\i, \i*VL(OUT)
.endr
        add             $256, IN
        add             $256, OUT
.endm

/*
 * The 32-block loop of _gcm_crypt (\mode as _gcm_group's): two 16-block groups per iteration,
 * hashed against H^32..H^17 and H^16..H^1 with one reduction, then at most one more group on
 * its own. \bias is what NBLOCKS (the blocks left, less 16) must cover for one iteration:
 * 32 sealing, which has run one group ahead, 16 opening. With fewer than 16 blocks left at the
 * end it jumps to \fewer, else it falls through after that group.
 */
.macro _gcm_agg32 mode, fmt, hfmt, bias, fewer, be=0
        sub             $\bias, NBLOCKS
        jb              .Lone\@
.Lloop\@:                                      /* 32 blocks, one reduction */
        _gcm_group      \mode, \fmt, \hfmt, 1, \be
        _gcm_group      \mode, \fmt, \hfmt, 2, \be
        sub             $32, NBLOCKS
        jae             .Lloop\@
.Lone\@:
        add             $32, NBLOCKS            /* blocks left */
        sub             $16, NBLOCKS
        jb              \fewer
        _gcm_group      \mode, \fmt, \hfmt, 0, \be /* one more 16-block group */
        sub             $16, NBLOCKS
.endm

/*
 * The body of the stitched functions: \enc = 1 is CTR, then hash of the output, \enc = 0 hash of
 * the input, then CTR; \fmt the counter format, \hfmt the hash. aesfast_T_gcm_ctr_then_hash is
 * (1, ctr32, ghash), aesfast_T_gcm_hash_then_ctr (0, ctr32, ghash) and
 * aesfast_T_gcmsiv_ctr_then_hash (1, ctr32le, polyval); \be (the 256-bit _pub functions): see
 * _gcm_group.
 */
.macro _gcm_crypt enc, fmt, hfmt, agg, be=0
        mov             8(%rsp), NBLOCKS
        test            NBLOCKS, NBLOCKS
        jz              .Lret\@
        _load_key                               /* before the GHASH registers: on ymm they */
        _ctr_init       \fmt                    /* share registers with the key and counter */
.if \be
        movzbl          15(CTRP), CTRLO         /* the first counter's low byte (public) */
.endif
        _load_acc       \hfmt
        sub             $16, NBLOCKS
        jb              .Ltail\@
.if \enc
        _gcm_group      0, \fmt, \hfmt, 0, \be /* first 16 blocks: nothing to hash yet */
.if \agg == 32
        _gcm_agg32      1, \fmt, \hfmt, 32, .Lhash_last\@, \be
.else
        sub             $16, NBLOCKS
        jb              .Lhash_last\@
.Lloop\@:
        _gcm_group      1, \fmt, \hfmt
        sub             $16, NBLOCKS
        jae             .Lloop\@
.endif
.Lhash_last\@:
        _ghash_group    \hfmt, OUT, -256
.else
.if \agg == 32
        _gcm_agg32      2, \fmt, \hfmt, 16, .Ltail\@, \be
.else
.Lloop\@:
        _gcm_group      2, \fmt, \hfmt
        sub             $16, NBLOCKS
        jae             .Lloop\@
.endif
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
/* hash_init: the table of powers                                                             */
/* ------------------------------------------------------------------------------------------ */

/*
 * \dst = \a * \b, lane by lane: the product times y^-128 mod P' (schoolbook, then the two folds
 * of the reduction). Registers all xmm, ymm or zmm (zmm: the 512-bit tier's EVEX forms, whose
 * _vpxor is VPXORD); \dst and \t0..\t2 distinct from \a and \b.
 */
.macro _mont_mul a, b, dst, t0, t1, t2
        vpclmulqdq      $0x00, \b, \a, \t0              /* LO */
        vpclmulqdq      $0x01, \b, \a, \t1
        vpclmulqdq      $0x10, \b, \a, \t2
        _vpxor          \t2, \t1, \t1                   /* MI */
        vpclmulqdq      $0x11, \b, \a, \dst             /* HI */
        vpclmulqdq      $0x10, .Lgfpoly(%rip), \t0, \t2 /* fold 1: L0 * C */
        vpshufd         $0x4e, \t0, \t0
        _vpxor          \t2, \t1, \t1
        _vpxor          \t0, \t1, \t1
        vpclmulqdq      $0x10, .Lgfpoly(%rip), \t1, \t2 /* fold 2: M0 * C */
        vpshufd         $0x4e, \t1, \t1
        _vpxor          \t2, \dst, \dst
        _vpxor          \t1, \dst, \dst
.endm

/* xmm0 = H' = y * Hrev mod P' (GHASH: a one-bit left shift, plus P' if bit 127 fell out), or H
 * itself (POLYVAL), from h at \src: (%rsi), or a register. */
.macro _hash_key hfmt, src=(%rsi)
        vmovdqu         \src, %xmm0
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
.endm

/* xmm0 = H' (see _hash_key), xmm1 = H'^2, ymm2 = [H'^2, H'^1] (a ymm, the higher power in lane
 * 0, as the tables hold them) and ymm3 = [H'^4, H'^3]: the first two levels of both widths'
 * trees; \t0..\t2 number the temporaries (xmm/ymm); h comes from \src. */
.macro _powers_4 hfmt, t0, t1, t2, src=(%rsi)
        _hash_key       \hfmt, \src
        _mont_mul       %xmm0, %xmm0, %xmm1, %xmm\t0, %xmm\t1, %xmm\t2   /* H'^2 */
        vinserti128     $1, %xmm0, %ymm1, %ymm2                         /* [H'^2, H'^1] */
        vinserti128     $1, %xmm1, %ymm1, %ymm1                         /* H'^2 in both lanes */
        _mont_mul       %ymm2, %ymm1, %ymm3, %ymm\t0, %ymm\t1, %ymm\t2   /* [H'^4, H'^3] */
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
 * The body of aesfast_vaes_avx2_ghash_init (\hfmt = ghash) and _polyval_init (polyval)(hkey,
 * h): H' (_hash_key), then H'^2..H'^\npow, stored as described at the top of this file.
 * GCM-SIV runs this for every nonce, so the powers come as a tree four multiplies deep instead
 * of a chain of fifteen: H'^2; then [H'^2, H'^1] times H'^2 in both lanes gives [H'^4, H'^3]
 * (_powers_4); those two pairs times H'^4 give H'^5..H'^8, and the four pairs times H'^8 give
 * H'^9..H'^16. \npow = 8 is aesfast_vaes_avx2_polyval_init_few, for GCM-SIV's small
 * messages, in half the time; \npow = 32 (ghash_init: GCM's 32-block loop) then takes all
 * eight pairs times H'^16 for H'^17..H'^32, one level more (GCM's init runs per key, not per
 * message). \rest = 1 (ghash_init_rest) starts from the table \npow = 8 made: its four
 * pairs are loaded, not made, and the rest of the tree is the same.
 */
.macro _ghash_init_fn hfmt, npow=16, rest=0
.if \rest
        vmovdqu         HPOW16(2)(%rdi), %ymm2
        vmovdqu         HPOW16(4)(%rdi), %ymm3
        vmovdqu         HPOW16(6)(%rdi), %ymm7
        vmovdqu         HPOW16(8)(%rdi), %ymm8
.else
        _powers_4       \hfmt, 4, 5, 6
        vinserti128     $1, %xmm3, %ymm3, %ymm1                         /* H'^4 in both lanes */
        _mont_mul       %ymm2, %ymm1, %ymm7, %ymm4, %ymm5, %ymm6        /* [H'^6, H'^5] */
        _mont_mul       %ymm3, %ymm1, %ymm8, %ymm4, %ymm5, %ymm6        /* [H'^8, H'^7] */
        _store_pows     %ymm2, HPOW16(2)
        _store_pows     %ymm3, HPOW16(4)
        _store_pows     %ymm7, HPOW16(6)
        _store_pows     %ymm8, HPOW16(8)
.endif
.if \npow >= 16
        vinserti128     $1, %xmm8, %ymm8, %ymm1                         /* H'^8 in both lanes */
        _mont_mul       %ymm2, %ymm1, %ymm9, %ymm4, %ymm5, %ymm6        /* [H'^10, H'^9] */
        _mont_mul       %ymm3, %ymm1, %ymm10, %ymm4, %ymm5, %ymm6       /* [H'^12, H'^11] */
        _mont_mul       %ymm7, %ymm1, %ymm11, %ymm4, %ymm5, %ymm6       /* [H'^14, H'^13] */
        _mont_mul       %ymm8, %ymm1, %ymm12, %ymm4, %ymm5, %ymm6       /* [H'^16, H'^15] */
        _store_pows     %ymm9, HPOW16(10)
        _store_pows     %ymm10, HPOW16(12)
        _store_pows     %ymm11, HPOW16(14)
        _store_pows     %ymm12, HPOW16(16)
.if \npow == 32
        /* H'^17..H'^32 at 512 + 16 (32 - k): each pair times H'^16 in both lanes */
        vinserti128     $1, %xmm12, %ymm12, %ymm1                       /* H'^16 in both lanes */
        .set            GPOW, 2
.irp p, 2,3,7,8,9,10,11,12
        _mont_mul       %ymm\p, %ymm1, %ymm13, %ymm4, %ymm5, %ymm6
        _store_pows     %ymm13, 512+HPOW16(GPOW)
        .set            GPOW, GPOW + 2
.endr
.endif
.elseif \npow != 8
        .error "_ghash_init_fn: npow must be 8, 16 or 32"
.endif
        vzeroupper
        ret
.endm

/* \dst = the Karatsuba terms of the powers in \p: lo ^ hi in both qwords. */
.macro _kara_terms p, dst
        vpshufd         $0x4e, \p, \dst
        vpxord          \p, \dst, \dst
.endm

/* Pair \n's two vectors of powers, \a and \b, at 128n of the table, and their packed Karatsuba
 * terms at 512 + 64n: a's in qword 0 of each lane, b's in qword 1. */
.macro _store_pair32 n, a, b
        vmovdqu8        \a, 128*\n(%rdi)
        vmovdqu8        \b, 128*\n+64(%rdi)
        _kara_terms     \a, %zmm13
        _kara_terms     \b, %zmm14
        vpunpcklqdq     %zmm14, %zmm13, %zmm13
        vmovdqu8        %zmm13, 512+64*\n(%rdi)
.endm

/*
 * The body of aesfast_vaes_avx512_ghash_init and _polyval_init (\npow = 32), and of
 * _polyval_init_few (\npow = 8): the same tree as _ghash_init_fn, a vector of four powers wide
 * from H'^4..H'^1 on: times H'^4 in every lane gives H'^8..H'^5; those two vectors times H'^8
 * give H'^16..H'^9, and the four times H'^16 give H'^32..H'^17. Five multiplies deep. The
 * 512-bit table keeps each pair's Karatsuba terms packed (see _hash32_pair): bytes 512..767.
 * \rest = 1 (ghash_init_rest) starts from the table \npow = 8 made: H'^8..H'^1 are loaded, not
 * made, and the rest is the same.
 */
.macro _ghash_init32_fn hfmt, npow=32, rest=0
.if \rest
        vmovdqu8        HPOW(8)(%rdi), %zmm6                            /* H'^8 .. H'^5 */
        vmovdqu8        HPOW(4)(%rdi), %zmm4                            /* H'^4 .. H'^1 */
.else
        _powers_4       \hfmt, 13, 14, 15
        vinserti64x4    $1, %ymm2, %zmm3, %zmm4                         /* H'^4 .. H'^1 */
        vshufi64x2      $0, %zmm3, %zmm3, %zmm5                         /* H'^4 in every lane */
        _mont_mul       %zmm4, %zmm5, %zmm6, %zmm13, %zmm14, %zmm15     /* H'^8 .. H'^5 */
.endif
.if \npow == 32
        _store_pair32   3, %zmm6, %zmm4
        vshufi64x2      $0, %zmm6, %zmm6, %zmm5                         /* H'^8 */
        _mont_mul       %zmm6, %zmm5, %zmm7, %zmm13, %zmm14, %zmm15     /* H'^16 .. H'^13 */
        _mont_mul       %zmm4, %zmm5, %zmm8, %zmm13, %zmm14, %zmm15     /* H'^12 .. H'^9 */
        _store_pair32   2, %zmm7, %zmm8
        vshufi64x2      $0, %zmm7, %zmm7, %zmm5                         /* H'^16 */
        _mont_mul       %zmm7, %zmm5, %zmm9, %zmm13, %zmm14, %zmm15     /* H'^32 .. H'^29 */
        _mont_mul       %zmm8, %zmm5, %zmm10, %zmm13, %zmm14, %zmm15    /* H'^28 .. H'^25 */
        _mont_mul       %zmm6, %zmm5, %zmm11, %zmm13, %zmm14, %zmm15    /* H'^24 .. H'^21 */
        _mont_mul       %zmm4, %zmm5, %zmm12, %zmm13, %zmm14, %zmm15    /* H'^20 .. H'^17 */
        _store_pair32   0, %zmm9, %zmm10
        _store_pair32   1, %zmm11, %zmm12
.elseif \npow == 8
        vmovdqu8        %zmm6, HPOW(8)(%rdi)
        vmovdqu8        %zmm4, HPOW(4)(%rdi)
        vpxor           %xmm0, %xmm0, %xmm0
        vmovdqu8        %zmm0, 512(%rdi)                /* what the tails read past H'^1 */
.else
        .error "_ghash_init32_fn: npow must be 8 or 32"
.endif
        vzeroupper
        ret
.endm
/* ------------------------------------------------------------------------------------------ */
/* 512-bit: 32 blocks per iteration and per reduction                                         */
/* ------------------------------------------------------------------------------------------ */

/* The register roles of the 512-bit functions (see the top of this file). */
.macro _set_gcm32_regs
        _set_veclen     64
        .set            NKEYREGS, 0             /* round keys are broadcast round by round */
        .set            GLO, %zmm8
        .set            GMI, %zmm9
        .set            GHI, %zmm10
        .set            GACC, %zmm11
        .set            GA, %zmm12
        .set            GB, %zmm13
        .set            GT0, %zmm14
        .set            GT1, %zmm15
        .set            GT2, %zmm24
        .set            GHI_Y, %ymm10
        .set            GHI_X, %xmm10
        .set            GLO_X, %xmm8
        .set            GMI_X, %xmm9
        .set            GACC_X, %xmm11
        .set            GT1_Y, %ymm15
        .set            GT1_X, %xmm15
        .set            CT0, %zmm16
        .set            CT1, %zmm17
        .set            CT2, %zmm18
        .set            CT3, %zmm19
        .set            CT4, %zmm20
        .set            CT5, %zmm21
        .set            CT6, %zmm22
        .set            CT7, %zmm23
        .set            TV0, %zmm6                      /* a tail's first vector (V6: free) */
        .set            BSWAP128, %zmm25
        .set            PT, %zmm26
        .set            RK0, %zmm27
        .set            RKLAST, %zmm28
        .set            RKT, %zmm29
        .set            CTRN, %zmm30
        .set            CSTEP, %zmm31
.endm

/* \dst = \a ^ \b (\first), or \dst ^= \a ^ \b. */
.macro _sum2 a, b, dst, first
.if \first
        vpxord          \a, \b, \dst
.else
        vpternlogd      $0x96, \a, \b, \dst
.endif
.endm

/* .Lhin = the register holding \src's blocks as integers: \dst, byte-reversed into it (ghash),
 * or \src itself (polyval). With \acc, the hash state is added into block 0, in \dst. */
.macro _hash_in hfmt, src, dst, acc=0
.ifc \hfmt, ghash
        vpshufb         BSWAP128, \src, \dst
        .set            .Lhin, \dst
.else
        .set            .Lhin, \src
.endif
.if \acc
        vpxord          GACC, .Lhin, \dst
        .set            .Lhin, \dst
.endif
.endm

/*
 * Pair \p (0..3) of a 32-block group: vectors \a and \b (blocks 8p..8p+7), times their powers
 * (at 128p and 128p+64 of \hk, through PT), added to GLO/GMI/GHI (\first writes them); \acc
 * adds the hash state into the first block. With KARA, the middle products are Karatsuba's,
 * from one interleave of the two vectors' qwords: [a_lo ^ a_hi, b_lo ^ b_hi] in each lane
 * times the pair's packed Karatsuba terms at 512 + 64p (a's in qword 0, b's in qword 1): 6
 * VPCLMULQDQ, 2 VPUNPCK, a VPXORD and 3 loads of powers per pair; else schoolbook, 8
 * VPCLMULQDQ and 2 loads. Both then add their 6 or 8 products with 3 or 4 VPTERNLOGDs. GMI is
 * Karatsuba's raw sum until _reduce32_a. Each vector of powers is loaded once, into PT, for all
 * the products it takes part in (loads, not the vector ports, cost here: see the README).
 * In AT&T order VPCLMULQDQ is (imm, src2, src1, dst): imm bit 0 picks src1's qword, bit 4 src2's.
 */
.macro _hash32_pair hfmt, p, a, b, first=0, acc=0, hk=HKEY
        _hash_in        \hfmt, \a, GA, \acc
        .set            .La, .Lhin
        _hash_in        \hfmt, \b, GB
        .set            .Lb, .Lhin
.if KARA
        vpunpcklqdq     .Lb, .La, GT0                   /* [a_lo, b_lo] per lane */
        vpunpckhqdq     .Lb, .La, GT1                   /* [a_hi, b_hi] */
        vpxord          GT1, GT0, GT0                   /* [a_lo ^ a_hi, b_lo ^ b_hi] */
        vmovdqu8        128*\p(\hk), PT                 /* a's powers */
        vpclmulqdq      $0x00, PT, .La, GT1             /* a_lo * h_lo */
        vpclmulqdq      $0x11, PT, .La, GT2             /* a_hi * h_hi */
        vmovdqu8        128*\p+64(\hk), PT              /* b's */
        vpclmulqdq      $0x00, PT, .Lb, GA              /* (a is done with) */
        _sum2           GT1, GA, GLO, \first
        vpclmulqdq      $0x11, PT, .Lb, GT1
        _sum2           GT2, GT1, GHI, \first
        vmovdqu8        512+64*\p(\hk), PT              /* [a's terms, b's terms] */
        vpclmulqdq      $0x00, PT, GT0, GT1             /* (a_lo ^ a_hi)(h_lo ^ h_hi) */
        vpclmulqdq      $0x11, PT, GT0, GT2             /* the same for b */
        _sum2           GT1, GT2, GMI, \first
.else
        vmovdqu8        128*\p(\hk), PT
        vpclmulqdq      $0x01, PT, .La, GT0             /* a_hi * h_lo */
        vpclmulqdq      $0x10, PT, .La, GT1             /* a_lo * h_hi */
        _sum2           GT0, GT1, GMI, \first
        vpclmulqdq      $0x00, PT, .La, GT1             /* a_lo * h_lo */
        vpclmulqdq      $0x11, PT, .La, GT2             /* a_hi * h_hi */
        vmovdqu8        128*\p+64(\hk), PT
        vpclmulqdq      $0x00, PT, .Lb, GT0
        _sum2           GT1, GT0, GLO, \first
        vpclmulqdq      $0x11, PT, .Lb, GT0
        _sum2           GT2, GT0, GHI, \first
        vpclmulqdq      $0x01, PT, .Lb, GT0
        vpclmulqdq      $0x10, PT, .Lb, GT1
        _sum2           GT0, GT1, GMI, 0
.endif
.endm

/* The first half of the reduction: Karatsuba's middle fixed (\kara), and fold 1 (LO into MI). */
.macro _reduce32_a kara=KARA
.if \kara
        vpternlogd      $0x96, GLO, GHI, GMI            /* MI = Karatsuba ^ LO ^ HI */
.endif
        vpclmulqdq      $0x10, .Lgfpoly(%rip), GLO, GT1 /* L0 * C */
        vpshufd         $0x4e, GLO, GLO                 /* [L1, L0] */
        vpternlogd      $0x96, GT1, GLO, GMI
.endm

/* The second half: fold 2 (MI into HI), then the four lanes summed into GACC (lane 0 only). */
.macro _reduce32_b
        vpclmulqdq      $0x10, .Lgfpoly(%rip), GMI, GT1 /* M0 * C */
        vpshufd         $0x4e, GMI, GMI                 /* [M1, M0] */
        vpternlogd      $0x96, GT1, GMI, GHI
        vextracti64x4   $1, GHI, GT1_Y                  /* lanes 2-3 onto 0-1 */
        vpxor           GT1_Y, GHI_Y, GHI_Y             /* VEX: clears bits 256..511 */
        vextracti128    $1, GHI_Y, GT1_X                /* lane 1 onto lane 0 */
        vpxor           GT1_X, GHI_X, GACC_X            /* VEX: lane 0 only */
.endm

/* Hash work item \k (0..5) of a 32-block group in CT0-CT7: the pairs 1, 2, 3, 0 (pair 0 takes in
 * the state, so only it and the reduction wait for the previous group), then the reduction. */
.macro _hash32_item hfmt, k
.if \k == 0
        _hash32_pair    \hfmt, 1, CT2, CT3, first=1
.elseif \k == 1
        _hash32_pair    \hfmt, 2, CT4, CT5
.elseif \k == 2
        _hash32_pair    \hfmt, 3, CT6, CT7
.elseif \k == 3
        _hash32_pair    \hfmt, 0, CT0, CT1, acc=1
.elseif \k == 4
        _reduce32_a
.else
        _reduce32_b
.endif
.endm

/* The hash of the 32 blocks in CT0-CT7 into GACC, alone. */
.macro _hash32_group hfmt
.irp k, 0,1,2,3,4,5
        _hash32_item    \hfmt, \k
.endr
.endm

/*
 * V0-V7 = the next 32 counter blocks ^ rk[0]; CTRN (native form, lanes c+0..c+3) advances by
 * 32. Each vector's counters are the previous vector's plus 4 (CSTEP), made before the previous
 * one is turned into counter blocks: a VPADDD, (GCM) a VPSHUFB and a VPXORD per vector, no
 * branch.
 * With \be (GCM only, for a counter that is public: a 12-byte IV's J0 = IV || 1), a group whose
 * 32 counters share bytes 12..14 (the low byte of its first, CTRLO, is at most 224: 7 groups in
 * 8) is made on the big-endian blocks themselves, from vector 0's (one shuffle) XORed with
 * rk[0]: the groups start at CTRLO = 2 mod 32 (the data's first counter is J0 + 1, and the
 * caller checks it), so their low bytes are B + 2 .. B + 33 with B a multiple of 32, and
 * vectors 1..6 (B + 6 .. B + 29) differ from vector 0 (B + 2 .. B + 5) by a constant XOR in
 * byte 15, since B + x = B ^ x for x < 32 (.Lctr_xor_be); vector 7 (up to B + 33) is vector 0
 * plus 28. 11 vector operations per group against the native form's 25, no carry to handle.
 * That branch follows the counter, so a counter that is secret (J0 = GHASH(IV) for other IV
 * lengths) comes with CTRLO >= 2^32, which always takes the native way.
 */
.macro _gcm32_counters fmt, be=0
.if \be
        cmp             $224, CTRLO
        ja              .Lnative\@
        vpshufb         BSWAP128, CTRN, V0              /* big-endian: c+0 .. c+3 */
        vpaddd          .Lctr_step28_be(%rip), V0, V7   /* c+28 .. c+31 */
        vpxord          RK0, V0, V0
        vpxord          RK0, V7, V7
.irp i, 1,2,3,4,5,6
        vpxord          .Lctr_xor_be+64*(\i-1)(%rip), V0, V\i /* c+4i .. c+4i+3, ^ rk[0] */
.endr
        jmp             .Lmade\@
.Lnative\@:
.endif
        vpaddd          CSTEP, CTRN, V1
        _ctr_out        \fmt, CTRN, V0
        _ctr_step       \fmt, V1, V2
        _ctr_step       \fmt, V2, V3
        _ctr_step       \fmt, V3, V4
        _ctr_step       \fmt, V4, V5
        _ctr_step       \fmt, V5, V6
        _ctr_step       \fmt, V6, V7
        _ctr_out        \fmt, V7, V7
.if \be
.Lmade\@:
        add             $32, CTRLOB
.endif
        vpaddd          .Lctr_step32(%rip), CTRN, CTRN
.endm

/* \dst = the counter blocks of the native counters in \src, XORed with rk[0]: GCM's native
 * form is the block reversed (its counter in dword 0), GCM-SIV's the block itself. */
.macro _ctr_out fmt, src, dst
.ifc \fmt, ctr32
        vpshufb         BSWAP128, \src, \dst
        vpxord          RK0, \dst, \dst
.else
        vpxord          RK0, \src, \dst
.endif
.endm

/* \next = \cur + 4 (native), then \cur = its counter blocks ^ rk[0]. */
.macro _ctr_step fmt, cur, next
        vpaddd          CSTEP, \cur, \next
        _ctr_out        \fmt, \cur, \cur
.endm


/* One AES round with the round key \j places before the last, on V0-V7. */
.macro _gcm32_round j
        _vbroadcasti128 -16*\j(RKEND), RKT
        _vaesenc_n      RKT, 8
.endm

/*
 * One 32-block iteration of the main loop, for AES with \nr rounds (10: AES-128, which AES-192
 * enters two rounds earlier; 14: AES-256). \mode 0: CTR only (seal's first group); 1: CTR, and
 * the hash of the previous group's output, in CT0-CT7 (seal; GCM-SIV's open); 2: the hash of
 * this group's input, loaded into CT0-CT7, and CTR (open). The six hash items go after the
 * middle rounds 1 + floor(k (nr - 1) / 6), k = 0..5: spread over all of them, for AES-256 too.
 */
.macro _gcm32_iter mode, fmt, hfmt, nr, be=0
        _gcm32_counters \fmt, \be
.if \mode == 2
.irp i, 0,1,2,3,4,5,6,7
        vmovdqu8        64*\i(IN), CT\i
.endr
.endif
.if \nr == 10
        cmp             $12, ROUNDS
        jb              .Lr128\@
        _gcm32_round    11
        _gcm32_round    10
.Lr128\@:
.endif
.irp j, 13,12,11,10,9,8,7,6,5,4,3,2,1
.if \j < \nr
        _gcm32_round    \j
.if \mode != 0
.irp k, 0,1,2,3,4,5
.if (1 + (\k * (\nr - 1)) / 6) == (\nr - \j)
        _hash32_item    \hfmt, \k
.endif
.endr
.endif
.endif
.endr
.irp i, 0,1,2,3,4,5,6,7
.if \mode == 2
        vpxord          CT\i, RKLAST, RKT               /* last round key ^ input */
        vaesenclast     RKT, V\i, V\i
        vmovdqu8        V\i, 64*\i(OUT)
.else
        vpxord          64*\i(IN), RKLAST, RKT
        vaesenclast     RKT, V\i, CT\i                  /* the output, kept for the hash */
        vmovdqu8        CT\i, 64*\i(OUT)
.endif
.endr
        add             $512, IN
        add             $512, OUT
.endm

/*
 * The main loop for \nr rounds over NBLOCKS (>= 32) blocks; leaves NBLOCKS = the blocks left
 * minus 32 (-32 .. -1). Seal (\enc) encrypts one group ahead of its hash, so it jumps to \lag
 * with the last group's output in CT0-CT7, still to be hashed; open jumps to \done. \be: see
 * _gcm32_counters.
 */
.macro _gcm32_loop enc, fmt, hfmt, nr, lag, done, be=0
.if \enc
        _gcm32_iter     0, \fmt, \hfmt, \nr, \be
        sub             $32, NBLOCKS
        jb              \lag
.Lloop\@:
        _gcm32_iter     1, \fmt, \hfmt, \nr, \be
        sub             $32, NBLOCKS
        jae             .Lloop\@
        jmp             \lag
.else
.Lloop\@:
        _gcm32_iter     2, \fmt, \hfmt, \nr, \be
        sub             $32, NBLOCKS
        jae             .Lloop\@
        jmp             \done
.endif
.endm

/*
 * Tails (1..31 blocks, and whole calls of fewer than 32) go vector by vector: a loop whose
 * iterations are independent but for the counter and the sums, so the core runs several at once
 * (the state lives in V0, renamed per iteration). Its whole vectors first, then the last 1..4
 * blocks under a byte mask (k1) of TBYTES = 16 * the blocks left. The hash meets the powers
 * from H'^n on (GHP, advanced by a vector per iteration), schoolbook (no Karatsuba terms
 * needed). The first vector, the one that takes in the hash state, is hashed last (kept in
 * TV0): the chain from the state to the result, which is what a small call costs, is then one
 * multiply, one addition and the reduction.
 */


/* The blocks in \src (masked-off lanes zero) as integers, with the hash state added if \acc,
 * times the powers at \pow, added into GLO/GMI/GHI. */
.macro _tail_hash hfmt, src, pow=(GHP), acc=0
        _hash_in        \hfmt, \src, GA, \acc
        _tail_mul       .Lhin, \pow
.endm

/* \a (blocks as integers) times the powers at \pow, added into GLO/GMI/GHI (schoolbook). */
.macro _tail_mul a, pow
        vmovdqu8        \pow, PT
        vpclmulqdq      $0x00, PT, \a, GT0
        vpclmulqdq      $0x11, PT, \a, GT1
        vpxord          GT0, GLO, GLO
        vpxord          GT1, GHI, GHI
        vpclmulqdq      $0x01, PT, \a, GT0
        vpclmulqdq      $0x10, PT, \a, GT1
        vpternlogd      $0x96, GT0, GT1, GMI
.endm

/* The round keys a tail keeps in registers, RKE1..RKE13 (j places before the last): CT0-CT7
 * and V1-V5, free in a tail. Loads those the key size has (none before rk[0]). */
.macro _tail_keys
        .set            RKE1, CT0
        .set            RKE2, CT1
        .set            RKE3, CT2
        .set            RKE4, CT3
        .set            RKE5, CT4
        .set            RKE6, CT5
        .set            RKE7, CT6
        .set            RKE8, CT7
        .set            RKE9, V1
        .set            RKE10, V2
        .set            RKE11, V3
        .set            RKE12, V4
        .set            RKE13, V5
.irp j, 1,2,3,4,5,6,7,8,9
        _vbroadcasti128 -16*\j(RKEND), RKE\j
.endr
        cmp             $12, ROUNDS
        jb              .Lkeys\@
        _vbroadcasti128 -16*10(RKEND), RKE10
        _vbroadcasti128 -16*11(RKEND), RKE11
        je              .Lkeys\@
        _vbroadcasti128 -16*12(RKEND), RKE12
        _vbroadcasti128 -16*13(RKEND), RKE13
.Lkeys\@:
.endm

/* \v (V0 by default) = AES of its counter blocks, but the last round (the caller folds the input
 * into it). */
.macro _tail_rounds v=V0
        cmp             $12, ROUNDS
        jb              .Lr128\@
        je              .Lr192\@
        vaesenc         RKE13, \v, \v
        vaesenc         RKE12, \v, \v
.Lr192\@:
        vaesenc         RKE11, \v, \v
        vaesenc         RKE10, \v, \v
.Lr128\@:
.irp j, 9,8,7,6,5,4,3,2,1
        vaesenc         RKE\j, \v, \v
.endr
.endm

/*
 * The tail of a stitched call: NBLOCKS = 1..31 blocks. Open hashes each input vector and
 * decrypts it; seal encrypts it and hashes its output, masked-off lanes zeroed. HKEY becomes
 * GHP, the power the next vector meets.
 */
.macro _gcm32_tail enc, fmt, hfmt
        .set            GHP, HKEY
        mov             NBLOCKS, TBYTES
        shl             $4, TBYTES
        add             $512, GHP
        sub             TBYTES, GHP                     /* &H'^n */
        _tail_keys
        vpxor           GLO_X, GLO_X, GLO_X
        vpxor           GMI_X, GMI_X, GMI_X
        vpxor           GHI_X, GHI_X, GHI_X
        mov             GHP, GHP0
        _tail_first_mask
        _gcm32_tail_vec \enc, \fmt, \hfmt, 1, TV0       /* vector 0, its hash kept for last */
        sub             $64, TBYTES
        jbe             .Lfirst\@
        add             $64, GHP
        cmp             $64, TBYTES
        jbe             .Llast\@
.Lwhole\@:
        _gcm32_tail_vec \enc, \fmt, \hfmt, 0
        sub             $64, TBYTES
        cmp             $64, TBYTES
        ja              .Lwhole\@
.Llast\@:                                               /* 1..4 blocks */
        mov             $-1, TMASK
        bzhi            TBYTES, TMASK, TMASK
        kmovq           TMASK, %k1
        _gcm32_tail_vec \enc, \fmt, \hfmt, 1
.Lfirst\@:
        _tail_hash      \hfmt, TV0, (GHP0), acc=1
        _reduce32_a     kara=0
        _reduce32_b
.endm

/* k1 = the mask of the first vector of a tail of TBYTES bytes: all ones from 64 bytes on. */
.macro _tail_first_mask
        mov             $-1, TMASK
        cmp             $64, TBYTES
        jae             .Lwhole\@
        bzhi            TBYTES, TMASK, TMASK
.Lwhole\@:
        kmovq           TMASK, %k1
.endm

/* V0 = the next vector of counter blocks (CTRN advances) through all rounds but the last, and
 * RKT = its input, \masked by k1 (zeroing) or whole. */
.macro _tail_vec_start fmt, masked
        _ctr_out        \fmt, CTRN, V0
        vpaddd          CSTEP, CTRN, CTRN
        _tail_rounds
.if \masked
        vmovdqu8        (IN), RKT{%k1}{z}
.else
        vmovdqu8        (IN), RKT
.endif
.endm

/* One vector of _gcm32_tail, \masked by k1 or whole; advances IN, OUT, CTRN and GHP. Its hash
 * input (seal: the output, masked-off lanes zero; open: the input) goes to \keep instead, if
 * given, for the caller to hash. */
.macro _gcm32_tail_vec enc, fmt, hfmt, masked, keep
        _tail_vec_start \fmt, \masked
.ifnb \keep
.if \enc == 0
        vmovdqa64       RKT, \keep
.endif
.elseif \enc == 0
        _tail_hash      \hfmt, RKT
        add             $64, GHP
.endif
        vpxord          RKT, RKLAST, RKT
        vaesenclast     RKT, V0, V0
.if \enc && \masked
        vmovdqu8        V0, V0{%k1}{z}                  /* zero the lanes past the end */
.endif
.if \masked
        vmovdqu8        V0, (OUT){%k1}
.else
        vmovdqu8        V0, (OUT)
.endif
.if \enc
.ifnb \keep
        vmovdqa64       V0, \keep
.else
        _tail_hash      \hfmt, V0
        add             $64, GHP
.endif
.endif
        add             $64, IN
        add             $64, OUT
.endm

/* CTRN = the counter blocks ctr+0 .. ctr+3 in native form (GCM: after BSWAP128 is loaded), and
 * CSTEP. */
.macro _ctr32_setup fmt
        _vbroadcasti128 (CTRP), CTRN
.ifc \fmt, ctr32
        vpshufb         BSWAP128, CTRN, CTRN
.endif
        vpaddd          .Llane_inc_ctr32le(%rip), CTRN, CTRN
        _vbroadcasti128 .Lctr_step4(%rip), CSTEP
.endm

/*
 * The body of the 512-bit stitched functions (see _gcm_crypt for \enc, \fmt, \hfmt): a main
 * loop per key size while 32 or more blocks are left (seal then hashes the last group it
 * encrypted), then the tail.
 */
.macro _gcm32_crypt enc, fmt, hfmt, be=0
        mov             8(%rsp), NBLOCKS
        test            NBLOCKS, NBLOCKS
        jz              .Lret\@
        _load_key
.ifc \hfmt, ghash
        vmovdqu8        .Lbswap128(%rip), BSWAP128
.endif
        _ctr32_setup    \fmt
.if \be
        /* The first counter's low byte (public), if it is 2 mod 32 (_gcm32_counters), as a
         * message's first call has (J0 + 1); else 0xff00, above every group's bound. */
        movzbl          15(CTRP), CTRLO
        testb           $0x1d, CTRLOB
        jnz             .Lnot2\@
        testb           $0x02, CTRLOB
        jnz             .Lbe\@
.Lnot2\@:
        mov             $0xff00, CTRLO
.Lbe\@:
.endif
        _load_acc       \hfmt
        sub             $32, NBLOCKS
        jb              .Lafter\@
        cmp             $14, ROUNDS
        je              .L256\@
        _gcm32_loop     \enc, \fmt, \hfmt, 10, .Llag\@, .Lafter\@, \be
.L256\@:
        _gcm32_loop     \enc, \fmt, \hfmt, 14, .Llag\@, .Lafter\@, \be
.if \enc
.Llag\@:
        _hash32_group   \hfmt
.endif
.Lafter\@:
        add             $32, NBLOCKS                    /* blocks left: 0..31 */
        jz              .Ldone\@
        _gcm32_tail     \enc, \fmt, \hfmt
.Ldone\@:
        _store_acc      \hfmt
        vzeroupper
.Lret\@:
        ret
.endm

/* The body of aesfast_vaes_avx512_ghash and _polyval(hkey, acc, in, nblocks): 32 blocks per
 * reduction, then the tail vector by vector. */
.macro _ghash32_fn hfmt
        test            GCNT, GCNT
        jz              .Lret\@
        _load_acc       \hfmt
.ifc \hfmt, ghash
        vmovdqu8        .Lbswap128(%rip), BSWAP128
.endif
        sub             $32, GCNT
        jb              .Ltail\@
.Lloop\@:
.irp i, 0,1,2,3,4,5,6,7
        vmovdqu8        64*\i(GSRC), CT\i
.endr
        _hash32_group   \hfmt
        add             $512, GSRC
        sub             $32, GCNT
        jae             .Lloop\@
.Ltail\@:
        add             $32, GCNT
        jz              .Ldone\@
        .set            GHP, HKEY
        mov             GCNT, TBYTES
        shl             $4, TBYTES
        add             $512, GHP
        sub             TBYTES, GHP                     /* &H'^n */
        vpxor           GLO_X, GLO_X, GLO_X
        vpxor           GMI_X, GMI_X, GMI_X
        vpxor           GHI_X, GHI_X, GHI_X
        _tail_first_mask
        vmovdqu8        (GSRC), TV0{%k1}{z}             /* block 0, hashed last */
        sub             $64, TBYTES
        jbe             .Ltail_first\@
        lea             64(GHP), GHP0
.Ltail_loop\@:
        add             $64, GSRC
        cmp             $64, TBYTES
        jbe             .Ltail_last\@
        vmovdqu8        (GSRC), RKT
        _tail_hash      \hfmt, RKT, (GHP0)
        add             $64, GHP0
        sub             $64, TBYTES
        jmp             .Ltail_loop\@
.Ltail_last\@:
        mov             $-1, TMASK
        bzhi            TBYTES, TMASK, TMASK
        kmovq           TMASK, %k1
        vmovdqu8        (GSRC), RKT{%k1}{z}
        _tail_hash      \hfmt, RKT, (GHP0)
.Ltail_first\@:
        _tail_hash      \hfmt, TV0, (GHP), acc=1
        _reduce32_a     kara=0
        _reduce32_b
.Ldone\@:
        _store_acc      \hfmt
        vzeroupper
.Lret\@:
        ret
.endm

/* ------------------------------------------------------------------------------------------ */
/* 512-bit: GCM's message in one call (gcm_seal_msg, gcm_open_msg)                            */
/* ------------------------------------------------------------------------------------------ */

/*
 * The arguments (key, hkey, msg, in, out, len) and the registers of the one-call functions. KEY
 * and HKEY are taken over once their last use is past; rbx, saved on the stack, is the one
 * callee-saved register used.
 */
.macro _msg_args
        .set            KEY,      %rdi  /* const aesfast_key *; then GHP */
        .set            HKEY,     %rsi  /* const aesfast_hash_key *; then QS */
        .set            MSG,      %rdx  /* aesfast_gcm_msg * */
        .set            IN,       %rcx  /* const uint8_t *in */
        .set            OUT,      %r8   /* uint8_t *out */
        .set            LEN,      %r9   /* len; then TBYTES */
        .set            ROUNDS,   %eax  /* key->rounds */
        .set            ROUNDSQ,  %rax
        .set            RKEND,    %r11  /* &key->rk[16 * rounds] */
        .set            NBLOCKS,  %r10  /* the main loop's blocks left, minus 32 */
        .set            TMASK,    %r10  /* a mask being made */
        .set            QB,       %rbx  /* -16 * the queued blocks left; first, blocks done */
        .set            CTRLO,    %rbx  /* the main loop: the low byte of its next counter */
        .set            CTRLOB,   %bl
        .set            GHP,      %rdi  /* the powers of the next vector to hash */
        .set            QS,       %rsi  /* where the next hashed data blocks are queued */
        .set            TBYTES,   %r9   /* data bytes left */
        .set            RKT_X,    %xmm29
        .set            EJ0,      V6    /* E(J0), in every lane */
        .set            EJ0_X,    %xmm6
        .set            LENS,     V7    /* the lengths block as an integer, lane 0 */
        .set            LENS_X,   %xmm7
.endm

/* Sums of products zeroed, for a new reduction. */
.macro _zero_sums
        vpxor           GLO_X, GLO_X, GLO_X
        vpxor           GMI_X, GMI_X, GMI_X
        vpxor           GHI_X, GHI_X, GHI_X
.endm

/* The blocks \src (ghash order) times the powers at \pow into the sums, GACC (the hash state,
 * lane 0) added into the first block and then zeroed: whichever vector is hashed first takes
 * the state, and the rest add nothing (a zeroing idiom costs no execution port). */
.macro _msg_hash src, pow
        _tail_hash      ghash, \src, \pow, acc=1
        vpxor           GACC_X, GACC_X, GACC_X
.endm

/*
 * k3 = the mask of the last vector of the P queued blocks (1..4 blocks of it), QB = -16 P, \qs =
 * msg->queue + 16 P: the queue's vector j is at \qs + QB + 64 j. Uses TMASK.
 */
.macro _msg_queue_setup qs
        mov             AESFAST_MSG_NQUEUE(MSG), QB
        lea             -1(QB), TMASK
        and             $3, TMASK
        inc             TMASK
        shl             $4, TMASK
        bzhi            TMASK, .Lones(%rip), TMASK
        kmovq           TMASK, %k3
        shl             $4, QB
        lea             AESFAST_MSG_QUEUE(MSG, QB), \qs
        neg             QB
.endm

/* The queued blocks (_msg_queue_setup) times the powers from GHP - 16 P on, into the sums;
 * GHP ends where it began. */
.macro _msg_queue qs
        test            QB, QB
        jz              .Ldone\@
        add             QB, GHP
.Lloop\@:
        cmp             $-64, QB
        jge             .Llast\@                        /* 1..4 blocks left */
        vmovdqu8        (\qs, QB), RKT
        _msg_hash       RKT, (GHP)
        add             $64, QB
        add             $64, GHP
        jmp             .Lloop\@
.Llast\@:
        cmp             $-16, QB
        jne             .Lmasked\@
        vmovdqu8        (\qs, QB), RKT_X                /* one block, as C stored it */
        jmp             .Lhash\@
.Lmasked\@:
        vmovdqu8        (\qs, QB), RKT{%k3}{z}
.Lhash\@:
        _msg_hash       RKT, (GHP)
        sub             QB, GHP
.Ldone\@:
.endm

/*
 * One vector of the message's data, \masked by k1 (its bytes; k2: its blocks, for the queue) or
 * whole: the counter blocks from CTRN, AES, the input XOR. Seal hashes (and queues) its output,
 * masked-off bytes zeroed, open its input; \save = 0 queues nothing. The powers are at \pow.
 */
.macro _msg_vec enc, masked, pow=(GHP), save=1
        _tail_vec_start ctr32, \masked
.if \enc == 0
        _msg_keep       RKT, \masked, \save
        _msg_hash       RKT, \pow
.endif
        vpxord          RKT, RKLAST, RKT
        vaesenclast     RKT, V0, V0
.if \masked
.if \enc
        vmovdqu8        V0, V0{%k1}{z}                  /* zero the bytes past the end */
.endif
        vmovdqu8        V0, (OUT){%k1}
.else
        vmovdqu8        V0, (OUT)
.endif
.if \enc
        _msg_keep       V0, \masked, \save
        _msg_hash       V0, \pow
.endif
.endm

/* The hashed blocks of a data vector (\src) into the queue at QS, if \save. */
.macro _msg_keep src, masked, save
.if \save
.if \masked
        vmovdqu8        \src, (QS){%k2}
.else
        vmovdqu8        \src, (QS)
.endif
.endif
.endm

/* The data left, TBYTES of it, vector by vector (see _gcm32_tail), the last one masked. */
.macro _msg_data enc
        test            TBYTES, TBYTES
        jz              .Ldone\@
.Lwhole\@:
        cmp             $64, TBYTES
        jb              .Lpartial\@
        _msg_vec        \enc, 0
        add             $64, IN
        add             $64, OUT
        add             $64, QS
        add             $64, GHP
        sub             $64, TBYTES
        jnz             .Lwhole\@
        jmp             .Ldone\@
.Lpartial\@:                                            /* 1..63 bytes */
        bzhi            TBYTES, .Lones(%rip), TMASK
        kmovq           TMASK, %k1
        add             $15, TBYTES
        and             $-16, TBYTES                    /* the bytes of its blocks */
        bzhi            TBYTES, .Lones(%rip), TMASK
        kmovq           TMASK, %k2
        _msg_vec        \enc, 1
        add             TBYTES, QS
        add             TBYTES, GHP
.Ldone\@:
.endm

/* *acc = GACC (the state a message that goes on resumes from). */
.macro _msg_store_acc
        vpshufb         .Lbswap128(%rip), GACC_X, GT1_X
        vmovdqu         GT1_X, AESFAST_MSG_ACC(MSG)
.endm

/*
 * The body of aesfast_vaes_avx512_gcm_seal_msg (\enc = 1) and _gcm_open_msg (0)(key, hkey, msg,
 * in, out, len), the contract in aesfast_kernel.h. A message whose queue, data and lengths
 * block fit in one group of powers (P + m + 1 <= 32 blocks, P queued, m = ceil(len / 16): up
 * to 480 bytes of data after one block of AAD) is one pass: E(J0), the queue, the data
 * vector by vector and the lengths block all hashed against H^n .. H^1, with one reduction;
 * the data's hashed blocks are queued after the AAD's, acc stays. A longer one first reduces its
 * queue into acc, runs the main loop over its 32-block groups (seal then hashes the last group
 * it encrypted), stores acc, and ends in the same pass over the rest (31 blocks at most; 32,
 * the 31 whole and a partial one, take their first vector as a group of its own).
 */
.macro _gcm32_msg enc
        push            %rbx
        _load_key
        vmovdqu8        .Lbswap128(%rip), BSWAP128
        vmovdqu         AESFAST_MSG_J0(MSG), EJ0_X      /* (16 bytes, as C stored them) */
        vshufi64x2      $0, EJ0, EJ0, CTRN
        vpshufb         BSWAP128, CTRN, CTRN
        vpaddd          .Llane_inc_j0(%rip), CTRN, CTRN
        vbroadcasti32x4 .Lctr_step4(%rip), CSTEP
        vmovdqu         AESFAST_MSG_ACC(MSG), GACC_X
        vpshufb         BSWAP128, GACC, GACC
        lea             15(LEN), QB
        shr             $4, QB
        add             AESFAST_MSG_NQUEUE(MSG), QB     /* P + m */
        cmp             $31, QB
        ja              .Llong\@
        xor             %ebx, %ebx                      /* no blocks done */
        jmp             .Llast\@

.Llong\@:                                               /* the queue, then the groups */
        cmpq            $0, AESFAST_MSG_NQUEUE(MSG)
        je              .Lgroups\@
        _msg_queue_setup NBLOCKS
        lea             512(HKEY), GHP                  /* (the queue ends at H^1) */
        _zero_sums
        _msg_queue      NBLOCKS
        _reduce32_a     kara=0
        _reduce32_b
        movq            $0, AESFAST_MSG_NQUEUE(MSG)
.Lgroups\@:
        mov             LEN, NBLOCKS
        shr             $4, NBLOCKS
        and             $-32, NBLOCKS                   /* the main loop's blocks */
        jz              .Lafter\@
        sub             $32, NBLOCKS
        movabs          $1 << 32, CTRLO                 /* a secret counter: the native form */
        testb           $AESFAST_MSG_CTR_PUBLIC, AESFAST_MSG_FLAGS(MSG)
        jz              .Lsecret\@
        movzbl          AESFAST_MSG_J0+15(MSG), %ebx
        inc             CTRLOB                          /* J0 + 1: the data's first counter */
        /* The big-endian groups need CTRLO = 2 mod 32 (_gcm32_counters), as J0 = IV || 1 has. */
        testb           $0x1d, CTRLOB
        jnz             .Lnot2\@
        testb           $0x02, CTRLOB
        jnz             .Lsecret\@
.Lnot2\@:
        movabs          $1 << 32, CTRLO                 /* else the native form, always */
.Lsecret\@:
        cmp             $14, ROUNDS
        je              .L256\@
        _gcm32_loop     \enc, ctr32, ghash, 10, .Llag\@, .Lafter\@, be=1
.L256\@:
        _gcm32_loop     \enc, ctr32, ghash, 14, .Llag\@, .Lafter\@, be=1
.if \enc
.Llag\@:
        _hash32_group   ghash
.endif
.Lafter\@:
        _msg_store_acc
        mov             LEN, QB
        shr             $4, QB
        and             $-32, QB                        /* the main loop's blocks */

.Llast\@:                                               /* QB blocks done, TBYTES = len */
        mov             LEN, GHP
        shl             $3, GHP
        vmovq           GHP, LENS_X                     /* [8 len, 8 aadlen]: L reversed */
        mov             AESFAST_MSG_AADLEN(MSG), GHP
        shl             $3, GHP
        vpinsrq         $1, GHP, LENS_X, LENS_X
        shl             $4, QB
        sub             QB, TBYTES
        _tail_keys
        vmovdqu         AESFAST_MSG_J0(MSG), EJ0_X      /* lane 0 */
        vpxord          RK0, EJ0, EJ0
        _tail_rounds    EJ0
        vaesenclast     RKLAST, EJ0, EJ0
        lea             15(TBYTES), GHP
        and             $-16, GHP
        neg             GHP
        lea             496(HKEY, GHP), GHP             /* the data's first block: H^(t + 1) */
        _zero_sums
        cmp             $31*16, TBYTES
        jbe             .Lqueue\@
        /* 31 whole blocks and a partial one (after the groups, the queue reduced): their first
         * vector alone, against H^4 .. H^1, into acc. */
        _msg_vec        \enc, 0, 464(GHP), save=0
        add             $64, IN
        add             $64, OUT
        add             $64, GHP
        sub             $64, TBYTES
        _reduce32_a     kara=0
        _reduce32_b
        _zero_sums
        _msg_store_acc
.Lqueue\@:
        _msg_queue_setup QS
        _msg_queue      QS
        xor             %ebx, %ebx                      /* (QB is done with) */
        cmp             $16, TBYTES
        ja              .Lwide\@
        cmpq            $1, AESFAST_MSG_NQUEUE(MSG)
        ja              .Lwide\@
        inc             %ebx                            /* a block of data and one queued at most */
.Lwide\@:
        _msg_data       \enc
        vpxord          GACC, LENS, GA                  /* the lengths block, against H^1 */
        _tail_mul       GA, (GHP)
        _reduce32_a     kara=0
        test            %ebx, %ebx
        jz              .Llanes\@
        /* Everything was in lane 0 (the sums' other lanes are zero): the second fold alone,
         * none of the lane sums on the way to the tag. */
        vpclmulqdq      $0x10, .Lgfpoly(%rip), GMI_X, GT1_X /* M0 * C */
        vpshufd         $0x4e, GMI_X, GMI_X
        vpternlogd      $0x96, GT1_X, GMI_X, GHI_X
        vmovdqa         GHI_X, GACC_X
        jmp             .Ltag\@
.Llanes\@:
        _reduce32_b
.Ltag\@:
        vpshufb         .Lbswap128(%rip), GACC_X, GACC_X
        vpxor           EJ0_X, GACC_X, GACC_X
        vmovdqu         GACC_X, AESFAST_MSG_TAG(MSG)
        sub             MSG, QS
        shr             $4, QS
        mov             QS, AESFAST_MSG_NQUEUE(MSG)
        pop             %rbx
        vzeroupper
        ret
.endm

/* ------------------------------------------------------------------------------------------ */

/* 256-bit: 8 ymm (16 blocks) per iteration, Karatsuba. */
        _set_gcm_veclen 32

AESFAST_FUNC(aesfast_vaes_avx2_ghash_init)
        _ghash_init_fn  ghash, 32
AESFAST_END(aesfast_vaes_avx2_ghash_init)

AESFAST_FUNC(aesfast_vaes_avx2_polyval_init)
        _ghash_init_fn  polyval
AESFAST_END(aesfast_vaes_avx2_polyval_init)

AESFAST_FUNC(aesfast_vaes_avx2_polyval_init_few)
        _ghash_init_fn  polyval, 8
AESFAST_END(aesfast_vaes_avx2_polyval_init_few)

AESFAST_FUNC(aesfast_vaes_avx2_ghash_init_few)
        _ghash_init_fn  ghash, 8
AESFAST_END(aesfast_vaes_avx2_ghash_init_few)

AESFAST_FUNC(aesfast_vaes_avx2_ghash_init_rest)
        _ghash_init_fn  ghash, 32, rest=1
AESFAST_END(aesfast_vaes_avx2_ghash_init_rest)

        _ghash_args
AESFAST_FUNC(aesfast_vaes_avx2_ghash)
        _ghash_fn       ghash
AESFAST_END(aesfast_vaes_avx2_ghash)

AESFAST_FUNC(aesfast_vaes_avx2_polyval)
        _ghash_fn       polyval
AESFAST_END(aesfast_vaes_avx2_polyval)

        _gcm_args
AESFAST_FUNC(aesfast_vaes_avx2_gcm_ctr_then_hash)
        _gcm_crypt      1, ctr32, ghash, 32
AESFAST_END(aesfast_vaes_avx2_gcm_ctr_then_hash)

AESFAST_FUNC(aesfast_vaes_avx2_gcm_hash_then_ctr)
        _gcm_crypt      0, ctr32, ghash, 32
AESFAST_END(aesfast_vaes_avx2_gcm_hash_then_ctr)

/* The same for a public counter (GCM's J0 from a 12-byte IV): the big-endian counters of
 * _gcm_group's \be, which branch on the counter. */
AESFAST_FUNC(aesfast_vaes_avx2_gcm_ctr_then_hash_pub)
        _gcm_crypt      1, ctr32, ghash, 32, be=1
AESFAST_END(aesfast_vaes_avx2_gcm_ctr_then_hash_pub)

AESFAST_FUNC(aesfast_vaes_avx2_gcm_hash_then_ctr_pub)
        _gcm_crypt      0, ctr32, ghash, 32, be=1
AESFAST_END(aesfast_vaes_avx2_gcm_hash_then_ctr_pub)

AESFAST_FUNC(aesfast_vaes_avx2_gcmsiv_ctr_then_hash)
        _gcm_crypt      1, ctr32le, polyval, 16
AESFAST_END(aesfast_vaes_avx2_gcmsiv_ctr_then_hash)

/* 512-bit: 8 zmm (32 blocks) per iteration and per reduction. */
        _set_gcm32_regs
#ifndef AESFAST_VAES512_KARA
#define AESFAST_VAES512_KARA 1
#endif
        .set            KARA, AESFAST_VAES512_KARA

AESFAST_FUNC(aesfast_vaes_avx512_ghash_init)
        _ghash_init32_fn ghash
AESFAST_END(aesfast_vaes_avx512_ghash_init)

AESFAST_FUNC(aesfast_vaes_avx512_polyval_init)
        _ghash_init32_fn polyval
AESFAST_END(aesfast_vaes_avx512_polyval_init)

AESFAST_FUNC(aesfast_vaes_avx512_polyval_init_few)
        _ghash_init32_fn polyval, 8
AESFAST_END(aesfast_vaes_avx512_polyval_init_few)

AESFAST_FUNC(aesfast_vaes_avx512_ghash_init_few)
        _ghash_init32_fn ghash, 8
AESFAST_END(aesfast_vaes_avx512_ghash_init_few)

AESFAST_FUNC(aesfast_vaes_avx512_ghash_init_rest)
        _ghash_init32_fn ghash, 32, rest=1
AESFAST_END(aesfast_vaes_avx512_ghash_init_rest)

        _ghash_args
AESFAST_FUNC(aesfast_vaes_avx512_ghash)
        _ghash32_fn     ghash
AESFAST_END(aesfast_vaes_avx512_ghash)

AESFAST_FUNC(aesfast_vaes_avx512_polyval)
        _ghash32_fn     polyval
AESFAST_END(aesfast_vaes_avx512_polyval)

        _gcm_args
AESFAST_FUNC(aesfast_vaes_avx512_gcm_ctr_then_hash)
        _gcm32_crypt    1, ctr32, ghash
AESFAST_END(aesfast_vaes_avx512_gcm_ctr_then_hash)

AESFAST_FUNC(aesfast_vaes_avx512_gcm_hash_then_ctr)
        _gcm32_crypt    0, ctr32, ghash
AESFAST_END(aesfast_vaes_avx512_gcm_hash_then_ctr)

/* The same for a public counter (GCM's J0 from a 12-byte IV): the big-endian groups of
 * _gcm32_counters' \be, which branch on the counter, where its low byte is 2 mod 32 at the
 * start (a message's first call, and every call after whole groups of 32). */
AESFAST_FUNC(aesfast_vaes_avx512_gcm_ctr_then_hash_pub)
        _gcm32_crypt    1, ctr32, ghash, be=1
AESFAST_END(aesfast_vaes_avx512_gcm_ctr_then_hash_pub)

AESFAST_FUNC(aesfast_vaes_avx512_gcm_hash_then_ctr_pub)
        _gcm32_crypt    0, ctr32, ghash, be=1
AESFAST_END(aesfast_vaes_avx512_gcm_hash_then_ctr_pub)

AESFAST_FUNC(aesfast_vaes_avx512_gcmsiv_ctr_then_hash)
        _gcm32_crypt    1, ctr32le, polyval
AESFAST_END(aesfast_vaes_avx512_gcmsiv_ctr_then_hash)

        _msg_args
AESFAST_FUNC(aesfast_vaes_avx512_gcm_seal_msg)
        _gcm32_msg      1
AESFAST_END(aesfast_vaes_avx512_gcm_seal_msg)

AESFAST_FUNC(aesfast_vaes_avx512_gcm_open_msg)
        _gcm32_msg      0
AESFAST_END(aesfast_vaes_avx512_gcm_open_msg)

/* ------------------------------------------------------------------------------------------ */
/* GCM-SIV's short messages, 512-bit: a whole message in one call                             */
/* ------------------------------------------------------------------------------------------ */

        AESFAST_RODATA
        .p2align 4
.Lsiv_msb:                                      /* bit 127: the tag's as the first counter */
        .quad 0, 0x8000000000000000
.Lsiv_clear_msb:                                /* all but bit 127: S's */
        .quad -1, 0x7fffffffffffffff
        .text

/* The short-message functions' slots in the red zone (leaf functions: the 128 bytes below %rsp
 * are theirs). */
#define SIV_NA16 -8(%rsp)                       /* 16 naad */
#define SIV_MVEC -16(%rsp)                      /* vectors of the virtual sequence */
#define SIV_MSG -24(%rsp)                       /* the aesfast_gcmsiv_msg * */
#define SIV_LEN -32(%rsp)                       /* len */
#define SIV_NEGD -40(%rsp)                      /* NEGD of the last vector */
#define SIV_ND3 -48(%rsp)                       /* ceil(len / 16) - 3 */

/* Their registers (see "Short messages" at the top of this file), over _set_gcm32_regs'. */
.macro _set_siv_regs
        _set_gcm32_regs
        .set            MSG,      %rsi          /* the aesfast_gcmsiv_msg *; then a temporary */
        .set            AADE,     %r8           /* the AAD's end: aad + 16 naad */
        .set            INP,      %r9           /* in */
        .set            OUTP,     %r11          /* out */
        .set            NEGD,     %r10          /* -D: the vector at D hashes in[-D..], the AAD
                                                 * at AADE - D.., and is stored to out - D.. */
        .set            ROUNDS,   %eax          /* the encryption key's rounds */
        .set            ROUNDSQ,  %rax
        .set            RKEND,    %rdi          /* the encryption key; then its last round key */
        .set            SX,       %zmm12        /* the vector hashed (GA) */
        .set            SV,       V0            /* AES state */
        .set            AUTHX,    %xmm8         /* the authentication key (before the sums) */
        .set            NONCEX,   %xmm6         /* the nonce, zero-extended */
        .set            LENS,     %xmm7         /* the lengths block */
        .set            RK0_X,    %xmm27
        .set            CTRV,     CTRN          /* the counter blocks of the vector at D */
.irp i, 0,1,2,3,4,5,6,7
        .set            P\i,      CT\i          /* H^(4i+4) .. H^(4i+1) */
.endr
.endm

/* \x = max(0, min(64, \x)), signed; clobbers %rsi. */
.macro _clamp64 x
        xor             %esi, %esi
        test            \x, \x
        cmovs           %rsi, \x
        mov             $64, %esi
        cmp             %rsi, \x
        cmovg           %rsi, \x
.endm

/* \k = the bytes b = 0..63 with \lo <= b < \hi (signed; both clobbered, %rsi too). */
.macro _byte_mask lo, hi, k
        _clamp64        \lo
        _clamp64        \hi
        mov             $-1, %rsi
        bzhi            \lo, %rsi, \lo
        bzhi            \hi, %rsi, \hi
        xor             \lo, \hi
        kmovq           \hi, \k
.endm

/* k3 = the data bytes of the vector at D = -NEGD: D .. D + len - 1. Clobbers rcx, rdx, rsi. */
.macro _siv_data_mask
        mov             NEGD, %rcx
        neg             %rcx
        mov             SIV_LEN, %rdx
        add             %rcx, %rdx
        _byte_mask      %rcx, %rdx, %k3
.endm

/* k2 = its AAD bytes: D - 16 naad .. D - 1. Clobbers rcx, rdx, rsi. */
.macro _siv_aad_mask
        mov             NEGD, %rcx
        neg             %rcx
        mov             %rcx, %rdx
        sub             SIV_NA16, %rdx
        _byte_mask      %rdx, %rcx, %k2
.endm

/* Entry: the red-zone slots, AADE, INP, OUTP, NEGD (the last vector's), LENS, NONCEX and
 * AUTHX. */
.macro _siv_setup
        mov             MSG, SIV_MSG
        mov             AESFAST_SIV_LEN(MSG), %rcx
        mov             %rcx, SIV_LEN
        lea             15(%rcx), %rdx
        shr             $4, %rdx                        /* nd = ceil(len / 16) */
        lea             -3(%rdx), %rax
        mov             %rax, SIV_ND3
        shl             $4, %rdx
        lea             -48(%rdx), NEGD                 /* the last vector's D = 48 - 16 nd */
        mov             NEGD, SIV_NEGD
        mov             AESFAST_SIV_NAAD(MSG), %rax
        shl             $4, %rax
        mov             %rax, SIV_NA16
        lea             64(%rdx, %rax), %rdx
        shr             $6, %rdx                        /* mvec = ceil((naad + nd + 1) / 4) */
        mov             %rdx, SIV_MVEC
        mov             AESFAST_SIV_AAD(MSG), AADE
        add             %rax, AADE
        mov             AESFAST_SIV_IN(MSG), INP
        mov             AESFAST_SIV_OUT(MSG), OUTP
        vmovq           AESFAST_SIV_AADLEN(MSG), LENS
        vpinsrq         $1, %rcx, LENS, LENS
        vpsllq          $3, LENS, LENS                  /* the bit lengths, little-endian */
        mov             AESFAST_SIV_NONCE(MSG), %rax
        vmovq           (%rax), NONCEX
        vpinsrd         $2, 8(%rax), NONCEX, NONCEX
        mov             AESFAST_SIV_AUTH(MSG), %rax
        vmovdqu         (%rax), AUTHX
.endm

/* P0..P(mvec-1) from AUTHX: the tree of hash_init, as far as mvec needs. */
.macro _siv_powers
        _powers_4       polyval, 13, 14, 15, src=AUTHX
        vinserti64x4    $1, %ymm2, %zmm3, P0            /* H^4 .. H^1 */
        mov             SIV_MVEC, %rax
        _siv_power      1, 0, .Ldone\@, 0              /* times H^4 */
        _siv_power      2, 0, .Ldone\@, 1              /* times H^8 */
        _siv_power      3, 1, .Ldone\@
        _siv_power      4, 0, .Ldone\@, 3              /* times H^16 */
        _siv_power      5, 1, .Ldone\@
        _siv_power      6, 2, .Ldone\@
        _siv_power      7, 3, .Ldone\@
.Ldone\@:
.endm

/* P\n = P\src times GB: first, with \from, the highest power of P\from in every lane of GB.
 * On to \done if mvec (%rax) is \n. */
.macro _siv_power n, src, done, from
        cmp             $\n, %rax
        je              \done
.ifnb \from
        vshufi64x2      $0, P\from, P\from, GB
.endif
        _mont_mul       P\src, GB, P\n, GT0, GT1, GT2
.endm

/* ROUNDS, RKEND, RK0, RKLAST of the encryption key at RKEND, and CSTEP. */
.macro _siv_load_key
        vbroadcasti32x4 (RKEND), RK0
        movl            AESFAST_KEY_ROUNDS(RKEND), ROUNDS
        mov             ROUNDSQ, %rdx
        shl             $4, %rdx
        add             %rdx, RKEND
        vbroadcasti32x4 (RKEND), RKLAST
        _vbroadcasti128 .Lctr_step4(%rip), CSTEP
.endm

/* CTRV = the counter blocks of the last vector, from the tag in %xmm1 (clobbered): its lane l
 * holds data block nd - 3 + l, so its counter is the tag with bit 127 set, plus nd - 3 + l. */
.macro _siv_counters
        vpor            .Lsiv_msb(%rip), %xmm1, %xmm1
        vshufi32x4      $0, %zmm1, %zmm1, CTRV
        vpaddd          .Llane_inc_ctr32le(%rip), CTRV, CTRV
        vmovd           SIV_ND3, %xmm1
        vshufi32x4      $0, %zmm1, %zmm1, %zmm1
        vpaddd          %zmm1, CTRV, CTRV
.endm

/* SV = the keystream of CTRV ^ the data at INP - D (masked by k3), stored to OUTP - D. */
.macro _siv_ctr_vec
        vpxord          RK0, CTRV, SV
        _aes_middle_rounds 1
        vmovdqu8        (INP, NEGD), RKT{%k3}{z}
        vpxord          RKT, RKLAST, RKT
        vaesenclast     RKT, SV, SV
        vmovdqu8        SV, (OUTP, NEGD){%k3}
.endm

/*
 * Step \j of the hash (seal: \enc = 1, of the input; open: of the output, decrypted here): the
 * vector at D, the (mvec - 1 - j)th of the virtual sequence, times P\j. Jumps to \done once
 * mvec vectors are in the sums.
 */
.macro _siv_step enc, j, done
.if \j
        cmpq            $\j, SIV_MVEC
        je              \done
.endif
        _siv_aad_mask
        _siv_data_mask
        vmovdqu8        (AADE, NEGD), SX{%k2}{z}
.if \enc
        vmovdqu8        (INP, NEGD), SX{%k3}
.else
        kortestq        %k3, %k3
        jz              .Lno_data\@
        _siv_ctr_vec
        vmovdqu8        SV, SX{%k3}
.Lno_data\@:
        vpsubd          CSTEP, CTRV, CTRV
.endif
.if \j == 0
        vinserti32x4    $3, LENS, SX, SX                /* the lengths block, last */
.endif
        _tail_hash      polyval, SX, P\j
        sub             $64, NEGD
.endm

/* %xmm1 = the tag: AES of S = (POLYVAL ^ nonce) with bit 127 cleared, stored to tag. */
.macro _siv_tag
        vpxor           NONCEX, GACC_X, %xmm1
        vpand           .Lsiv_clear_msb(%rip), %xmm1, %xmm1
        vpxord          RK0_X, %xmm1, %xmm1
        cmp             $12, ROUNDS
        jb              .Lr128\@
        je              .Lr192\@
        vaesenc         -16*13(RKEND), %xmm1, %xmm1
        vaesenc         -16*12(RKEND), %xmm1, %xmm1
.Lr192\@:
        vaesenc         -16*11(RKEND), %xmm1, %xmm1
        vaesenc         -16*10(RKEND), %xmm1, %xmm1
.Lr128\@:
.irp j, 9,8,7,6,5,4,3,2,1
        vaesenc         -16*\j(RKEND), %xmm1, %xmm1
.endr
        vaesenclast     (RKEND), %xmm1, %xmm1
        mov             SIV_MSG, %rcx
        vmovdqu         %xmm1, AESFAST_SIV_TAG(%rcx)
.endm

/*
 * The body of aesfast_vaes_avx512_gcmsiv_seal_short (\enc = 1) and _open_short (0)(key, m):
 * the powers, then seal: the hash, the tag, CTR from it; open: CTR from the tag received and
 * the hash of its output, vector by vector, then the tag.
 */
.macro _gcmsiv_short_fn enc
        _siv_setup
        _siv_powers
        vpxor           GLO_X, GLO_X, GLO_X
        vpxor           GMI_X, GMI_X, GMI_X
        vpxor           GHI_X, GHI_X, GHI_X
.if \enc == 0
        _siv_load_key
        mov             SIV_MSG, %rcx
        vmovdqu         AESFAST_SIV_TAG(%rcx), %xmm1
        _siv_counters
.endif
.irp j, 0,1,2,3,4,5,6,7
        _siv_step       \enc, \j, .Lhashed\@
.endr
.Lhashed\@:
        _reduce32_a     kara=0
        _reduce32_b
.if \enc
        _siv_load_key
        _siv_tag
        cmpq            $0, SIV_LEN
        je              .Ldone\@
        _siv_counters
        mov             SIV_NEGD, NEGD
.Lctr\@:
        _siv_data_mask
        kortestq        %k3, %k3
        jz              .Ldone\@
        _siv_ctr_vec
        vpsubd          CSTEP, CTRV, CTRV
        sub             $64, NEGD
        jmp             .Lctr\@
.else
        _siv_tag
.endif
.Ldone\@:
        vzeroupper
        ret
.endm

        _set_siv_regs
AESFAST_FUNC(aesfast_vaes_avx512_gcmsiv_seal_short)
        _gcmsiv_short_fn 1
AESFAST_END(aesfast_vaes_avx512_gcmsiv_seal_short)

AESFAST_FUNC(aesfast_vaes_avx512_gcmsiv_open_short)
        _gcmsiv_short_fn 0
AESFAST_END(aesfast_vaes_avx512_gcmsiv_open_short)

#endif /* __x86_64__ */
