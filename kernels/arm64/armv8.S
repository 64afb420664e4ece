/*
 * AES key expansion, single-block encryption and CTR (GCM's inc32 and GCM-SIV's little-endian
 * counter) for AArch64 with the ARMv8 Crypto Extensions.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * Functions (contracts in aesfast_kernel.h and above each function):
 *   aesfast_armv8_set_key        FIPS-197 key expansion for 128/192/256-bit keys
 *   aesfast_armv8_encrypt_block  one block
 *   aesfast_armv8_ctr32_xor      out = in XOR AES(counter blocks), 8 blocks per loop iteration
 *   aesfast_armv8_ctr32le_xor    the same with GCM-SIV's counter (RFC 8452)
 *
 * CPU features: these functions use AESE and AESMC only, i.e. FEAT_AES (HWCAP_AES in AT_HWCAP).
 * The "armv8" tier that installs them (provider/dispatch.c) also requires PMULL (HWCAP_PMULL),
 * for the GCM kernels (gcm_armv8.S), so that a tier name means one thing.
 *
 * ABI: AAPCS64, little-endian only. All are leaf functions that never spill the link
 * register. Only the 8-block loop of the CTR functions uses v8-v15, whose low halves (d8-d15) are
 * callee-saved, and it saves and restores them around itself. Everything else lives in
 * caller-saved registers (x0-x17, v0-v7, v16-v31). Nothing branches on, or indexes memory by,
 * key or data bytes. The only table lookup, TBL in the key schedule, takes constant indices.
 *
 * AES with the Crypto Extensions: AESE v, k computes ShiftRows(SubBytes(v ^ k)) and AESMC v, v
 * computes MixColumns(v). So FIPS-197 round i (AddRoundKey rk[i-1], then SubBytes, ShiftRows,
 * MixColumns) is the pair AESE v, rk[i-1]; AESMC v, v. The last round is AESE v, rk[nr-1]
 * followed by EOR v, v, rk[nr]. Cores with AES fusion (Cortex-A57 and later, Neoverse, Apple)
 * fuse an AESE/AESMC pair on one register only when the two instructions are adjacent. Every
 * pair here is therefore adjacent, and independent blocks are interleaved a whole pair at a time.
 *
 * Round keys stay in registers for the whole of a CTR call and are aligned at the END of v16-v30:
 * rk[nr] is always v30 and rk[nr-j] is v(30-j). So AES-256 uses v16-v30, AES-192 v18-v30 and
 * AES-128 v20-v30, and the shorter keys jump over the first 4 or 2 rounds. That costs two TBZ
 * on the round count per pass; the round count is public.
 *
 * CTR: one 32-bit word of the counter block is a counter incremented once per block modulo
 * 2^32, and the other 12 bytes never change. For GCM's inc32 (ctr32_xor) it is the LAST word,
 * big-endian; for GCM-SIV (ctr32le_xor) the FIRST word, little-endian. The word is kept in host
 * order in a general register, so a 32-bit ADD wraps exactly as the contract says and nothing can
 * carry into the other bytes. Each block is the counter-block template with that word replaced.
 * All counter handling is in the _ctr_init and _ctr_blocks macros, which take the counter kind
 * (inc32be, inc32le) as a parameter; the two CTR functions are one macro, _ctr_function, with
 * the kind as its parameter, so there is one loop and one tail in the source.
 *
 * The CTR main loop takes 8 blocks: 15 round keys + 8 blocks + 8 inputs + the counter
 * template need 32 vector registers, hence the save of d8-d15. The last 0..7 blocks take one
 * 4-block or 8-block AES pass, whatever covers them. The tail then XORs 4, 2 and 1 blocks of
 * that keystream as needed, so it runs at most one AES latency chain and reads and writes only
 * the bytes it owns. Per 8 blocks the loop executes 207 / 240 / 272 instructions for
 * AES-128 / 192 / 256 with inc32be (counted in the disassembly; AES-128 takes one TBZ of the
 * two) and 8 fewer with inc32le (no REV), of which 152 / 184 / 216 are AESE/AESMC.
 */
#include "asm_base.h"
#include "armv8_macros.h"

#if defined(__aarch64__)
#if defined(__AARCH64EB__)
#error "armv8.S assumes little-endian AArch64"
#endif

        .arch armv8-a+crypto

/* Round keys, named by their distance from the last one (see the header comment). */
RK_M14  .req    v16             // rk[nr-14]: rk[0] of AES-256
RK_M13  .req    v17             // rk[nr-13]
RK_M12  .req    v18             // rk[nr-12]: rk[0] of AES-192
RK_M11  .req    v19             // rk[nr-11]
RK_M10  .req    v20             // rk[nr-10]: rk[0] of AES-128
RK_M9   .req    v21             // rk[nr-9]
RK_M8   .req    v22             // rk[nr-8]
RK_M7   .req    v23             // rk[nr-7]
RK_M6   .req    v24             // rk[nr-6]
RK_M5   .req    v25             // rk[nr-5]
RK_M4   .req    v26             // rk[nr-4]
RK_M3   .req    v27             // rk[nr-3]
RK_M2   .req    v28             // rk[nr-2]
RK_M1   .req    v29             // rk[nr-1]: the key of the last AESE
RKLAST  .req    v30             // rk[nr]: XORed in after the last AESE

/* Blocks being encrypted: the state of up to 8 independent AES computations. */
BLK0    .req    v0
BLK1    .req    v1
BLK2    .req    v2
BLK3    .req    v3
BLK4    .req    v4
BLK5    .req    v5
BLK6    .req    v6
BLK7    .req    v7

/* ------------------------------------------------------------------------------------------ */
/* Shared macros                                                                              */
/* ------------------------------------------------------------------------------------------ */

/*
 * _load_round_keys key, rounds, tmp: load rk[0..nr] of an aesfast_key into RK_M(nr)..RKLAST.
 * \rounds is the w register holding nr; \tmp is a scratch x register. rk[0..1] of AES-256 and
 * rk[nr-12..nr-11] of AES-192/256 are loaded only when they exist, so nothing outside rk[0..nr]
 * is read.
 */
.macro _load_round_keys key, rounds, tmp
        add     \tmp, \key, \rounds, uxtw #4            // &rk[nr]
        sub     \tmp, \tmp, #10 * 16                    // &rk[nr-10]
        tbz     \rounds, #2, .Lkeys_last11\@            // nr = 10 = 0b1010: AES-128
        ldp     q18, q19, [\tmp, #-32]                  // RK_M12, RK_M11 = rk[nr-12], rk[nr-11]
        tbz     \rounds, #1, .Lkeys_last11\@            // nr = 12 = 0b1100: AES-192
        ldp     q16, q17, [\key]                        // RK_M14, RK_M13 = rk[0], rk[1]
.Lkeys_last11\@:
        ld1     {RK_M10.16b-RK_M7.16b}, [\tmp], #64
        ld1     {RK_M6.16b-RK_M3.16b}, [\tmp], #64
        ld1     {RK_M2.16b-RKLAST.16b}, [\tmp]
.endm

/*
 * Per-block helpers. (Inside a macro, an .irp index followed by ".16b" is not substituted, so
 * the loops below pass whole register names to these instead.)
 */
.macro _aese_last b, k
        aese    \b\().16b, \k\().16b                  // last round: no MixColumns
.endm
.macro _eor16 d, a, b
        eor     \d\().16b, \a\().16b, \b\().16b
.endm

/*
 * _aes_encrypt n, rounds: encrypt BLK0..BLK(n-1) with RK_M(nr)..RK_M1, stopping before the final
 * XOR with RKLAST, which each caller merges with its own XOR.
 */
.macro _aes_encrypt n, rounds
        tbz     \rounds, #2, .Lrounds10\@               // nr = 10 = 0b1010
        tbz     \rounds, #1, .Lrounds12\@               // nr = 12 = 0b1100 (14 = 0b1110)
        _aes_round \n, RK_M14
        _aes_round \n, RK_M13
.Lrounds12\@:
        _aes_round \n, RK_M12
        _aes_round \n, RK_M11
.Lrounds10\@:
.irp k, RK_M10, RK_M9, RK_M8, RK_M7, RK_M6, RK_M5, RK_M4, RK_M3, RK_M2
        _aes_round \n, \k
.endr
.irp i, 0, 1, 2, 3, 4, 5, 6, 7
.if \i < \n
        _aese_last BLK\i, RK_M1
.endif
.endr
.endm

/* ------------------------------------------------------------------------------------------ */
/* Key expansion                                                                              */
/* ------------------------------------------------------------------------------------------ */

/*
 * How a word goes through SubWord in constant time: TBL copies the word into all four columns
 * of a vector (rotated by one byte when RotWord is wanted too), and AESE with an all-zero round
 * key then applies SubBytes and ShiftRows. ShiftRows only moves bytes between columns, and all
 * columns are equal, so it changes nothing and every column holds SubWord(word).
 *
 * A new group of four words is w[i..i+3] = prefix-XOR(w[i-Nk..i-Nk+3]) ^ t, where t is the
 * SubWord result of the recurrence, ^ Rcon where it applies. Since t is in every column, one EOR
 * adds it to all four words. prefix-XOR(a, b, c, d) = (a, a^b, a^b^c, a^b^c^d) takes two
 * shift-and-XOR steps: shift by one word, then by two.
 */

KA      .req    v0              // w[i-Nk .. i-Nk+3]: the oldest four words of the window
KB      .req    v1              // the newer 2 (AES-192) or 4 (AES-256) words of the window
KT      .req    v2              // SubWord(...) ^ Rcon, in every column
KT2     .req    v3              // prefix-XOR temporary
ROTW3   .req    v4              // TBL indices 13,14,15,12 x4: RotWord(word 3), in every column
ROTW1   .req    v5              // TBL indices 5,6,7,4 x4: RotWord(word 1), in every column
RCON    .req    v6              // Rcon in byte 0 of every column
ZERO    .req    v7              // all zero: the AESE round key, and zero fill for EXT

/* _prefix_xor x: x = (x0, x0^x1, x0^x1^x2, x0^x1^x2^x3) over its four 32-bit words. */
.macro _prefix_xor x
        ext     KT2.16b, ZERO.16b, \x\().16b, #12       // (0, x0, x1, x2)
        eor     \x\().16b, \x\().16b, KT2.16b
        ext     KT2.16b, ZERO.16b, \x\().16b, #8        // (0, 0, x0, x0^x1)
        eor     \x\().16b, \x\().16b, KT2.16b
.endm

/* _sub_rot_word_rcon src, idx: KT = SubWord(RotWord(word of \src chosen by \idx)) ^ Rcon, in
 * every column. */
.macro _sub_rot_word_rcon src, idx
        tbl     KT.16b, {\src\().16b}, \idx\().16b      // RotWord(w), in every column
        aese    KT.16b, ZERO.16b                        // SubWord (ShiftRows is a no-op here)
        dup     RCON.4s, RCW                            // Rcon is public: it can live in a GPR
        eor     KT.16b, KT.16b, RCON.16b
.endm

/* _next_rcon: Rcon = xtime(Rcon); only AES-128 gets past 0x80, to 0x1b and 0x36. */
.macro _next_rcon
        lsl     RCW, RCW, #1
        cmp     RCW, #0x100
        csel    RCW, W1B, RCW, eq                       // 0x100 reduces to 0x1b
.endm

KEY     .req    x0              // aesfast_key *
RAW     .req    x1              // the raw key
KEYLEN  .req    x2              // its length in bytes
RKP     .req    x3              // where the next round-key bytes go
RCW     .req    w4              // Rcon, as a byte in a w register
CNT     .req    w5              // iterations left
TMPW    .req    w6              // building constants
W1B     .req    w7              // 0x1b, for _next_rcon

/*
 * void aesfast_armv8_set_key(aesfast_key *key, const uint8_t *raw, size_t keylen);
 *
 * Expands the keylen-byte key raw (keylen 16, 24 or 32) into key->rk, (nr + 1) x 16 bytes in
 * FIPS-197 byte order, and sets key->rounds = nr (10, 12 or 14). Bytes of key->rk past
 * rk[nr] and key->bitsliced are not touched. For any other keylen it returns without writing.
 */
AESFAST_FUNC(aesfast_armv8_set_key)
        movi    ZERO.16b, #0
        mov     TMPW, #0x0e0d
        movk    TMPW, #0x0c0f, lsl #16                  // bytes 13,14,15,12 (little-endian)
        dup     ROTW3.4s, TMPW
        mov     RCW, #0x01
        mov     W1B, #0x1b
        mov     RKP, KEY
        cmp     KEYLEN, #16
        b.eq    .Lset_key_128
        cmp     KEYLEN, #24
        b.eq    .Lset_key_192
        cmp     KEYLEN, #32
        b.ne    .Lset_key_done                          // not an AES key size

        // AES-256: Nk = 8. Each iteration makes 8 words, 4 from RotWord+SubWord of w[i-1]
        // and 4 from SubWord alone; 2 + 6 * 2 + 1 = 15 round keys.
        mov     TMPW, #14
        str     TMPW, [KEY, #AESFAST_KEY_ROUNDS]
        ld1     {KA.16b, KB.16b}, [RAW]
        st1     {KA.16b, KB.16b}, [RKP], #32
        mov     CNT, #7
.Lset_key_256_loop:
        _sub_rot_word_rcon KB, ROTW3                    // from w[i-1] = word 3 of KB
        _prefix_xor KA
        eor     KA.16b, KA.16b, KT.16b                  // w[i .. i+3]
        st1     {KA.16b}, [RKP], #16
        subs    CNT, CNT, #1
        b.eq    .Lset_key_done                          // the 15th round key needs no more
        dup     KT.4s, KA.s[3]                          // w[i+3], no RotWord, in every column
        aese    KT.16b, ZERO.16b                        // SubWord
        _prefix_xor KB
        eor     KB.16b, KB.16b, KT.16b                  // w[i+4 .. i+7]
        st1     {KB.16b}, [RKP], #16
        _next_rcon
        b       .Lset_key_256_loop

        // AES-192: Nk = 6. The window is KA (4 words) + the low half of KB (2 words); each
        // iteration makes 6 words. 6 + 7 * 6 + 4 = 52 words = 13 round keys.
.Lset_key_192:
        mov     TMPW, #12
        str     TMPW, [KEY, #AESFAST_KEY_ROUNDS]
        mov     TMPW, #0x0605
        movk    TMPW, #0x0407, lsl #16                  // bytes 5,6,7,4 (little-endian)
        dup     ROTW1.4s, TMPW
        ld1     {KA.16b}, [RAW], #16
        ld1     {KB.8b}, [RAW]                          // 64-bit load: clears KB's high half
        st1     {KA.16b}, [RKP], #16
        st1     {KB.8b}, [RKP], #8
        mov     CNT, #8
.Lset_key_192_loop:
        _sub_rot_word_rcon KB, ROTW1                    // from w[i-1] = word 1 of KB
        _prefix_xor KA
        eor     KA.16b, KA.16b, KT.16b                  // w[i .. i+3]
        st1     {KA.16b}, [RKP], #16
        subs    CNT, CNT, #1
        b.eq    .Lset_key_done                          // the last 4 words end rk[12]
        dup     KT.2s, KA.s[3]                          // w[i+3] in both low words
        ext     KT2.8b, ZERO.8b, KB.8b, #4              // (0, w[i-2])
        eor     KB.8b, KB.8b, KT2.8b                    // (w[i-2], w[i-2]^w[i-1])
        eor     KB.8b, KB.8b, KT.8b                     // w[i+4 .. i+5]
        st1     {KB.8b}, [RKP], #8
        _next_rcon
        b       .Lset_key_192_loop

        // AES-128: Nk = 4, one round key per iteration.
.Lset_key_128:
        mov     TMPW, #10
        str     TMPW, [KEY, #AESFAST_KEY_ROUNDS]
        ld1     {KA.16b}, [RAW]
        st1     {KA.16b}, [RKP], #16
        mov     CNT, #10
.Lset_key_128_loop:
        _sub_rot_word_rcon KA, ROTW3                    // from w[i-1] = word 3 of KA
        _prefix_xor KA
        eor     KA.16b, KA.16b, KT.16b
        st1     {KA.16b}, [RKP], #16
        _next_rcon
        subs    CNT, CNT, #1
        b.ne    .Lset_key_128_loop
.Lset_key_done:
        ret
AESFAST_END(aesfast_armv8_set_key)

        .unreq  KEY
        .unreq  RAW
        .unreq  KEYLEN
        .unreq  RKP
        .unreq  RCW
        .unreq  CNT
        .unreq  TMPW
        .unreq  W1B

/* ------------------------------------------------------------------------------------------ */
/* One block                                                                                  */
/* ------------------------------------------------------------------------------------------ */

KEY     .req    x0              // const aesfast_key *
INP     .req    x1              // input block
OUTP    .req    x2              // output block
KEYP    .req    x3              // scratch for _load_round_keys
ROUNDS  .req    w4              // nr

/*
 * void aesfast_armv8_encrypt_block(const aesfast_key *key, const uint8_t in[16],
 *                                  uint8_t out[16]);
 *
 * out = AES-Encrypt(key, in). in and out may be equal; no alignment is needed.
 */
AESFAST_FUNC(aesfast_armv8_encrypt_block)
        ldr     ROUNDS, [KEY, #AESFAST_KEY_ROUNDS]
        ld1     {BLK0.16b}, [INP]
        _load_round_keys KEY, ROUNDS, KEYP
        _aes_encrypt 1, ROUNDS
        eor     BLK0.16b, BLK0.16b, RKLAST.16b
        st1     {BLK0.16b}, [OUTP]
        ret
AESFAST_END(aesfast_armv8_encrypt_block)

        .unreq  KEY
        .unreq  INP
        .unreq  OUTP
        .unreq  KEYP
        .unreq  ROUNDS

/* ------------------------------------------------------------------------------------------ */
/* CTR                                                                                        */
/* ------------------------------------------------------------------------------------------ */

KEY     .req    x0              // const aesfast_key *
CTRP    .req    x1              // the first counter block
INP     .req    x2              // input, advanced as blocks are consumed
OUTP    .req    x3              // output, advanced as blocks are produced
NBLOCKS .req    x4              // blocks left, minus 8 (see .Lctr_tail)
ROUNDS  .req    w5              // nr
CTR     .req    w6              // counter of the next block, in host order
KEYP    .req    x8              // scratch for _load_round_keys
REM     .req    x9              // tail: blocks left, 0..7
CT0     .req    w10             // CT0..CT7: counters of the 8 blocks being built
CT1     .req    w11
CT2     .req    w12
CT3     .req    w13
CT4     .req    w14
CT5     .req    w15
CT6     .req    w16
CT7     .req    w17
CTRBLK  .req    v31             // the counter block as passed in: the template for every block

IN0     .req    v8              // IN0..IN7: input blocks of the 8-block loop, already XORed
IN1     .req    v9              // with RKLAST. The low halves of v8-v15 are callee-saved:
IN2     .req    v10             // the loop saves and restores them.
IN3     .req    v11
IN4     .req    v12
IN5     .req    v13
IN6     .req    v14
IN7     .req    v15

TIN0    .req    v16             // TIN0..TIN3: input blocks of the tail. The tail XORs them in
TIN1    .req    v17             // after its last AESE, when RK_M14..RK_M11 are no longer needed.
TIN2    .req    v18
TIN3    .req    v19

/*
 * The counter kinds. _ctr_init kind sets up CTRBLK and CTR from the counter block at CTRP;
 * _ctr_blocks n, kind makes BLK0..BLK(n-1) = the counter blocks CTR+0 .. CTR+n-1 and adds n to
 * CTR. CTR is the 32-bit counter word in host order, so a 32-bit ADD wraps modulo 2^32 as both
 * contracts say; each block is CTRBLK with that one word replaced, so nothing carries into the
 * other 12 bytes.
 *
 *   inc32be  the LAST word is a big-endian uint32 (GCM's inc32; AES-CTR via provider/ctr.c):
 *            REV in and out of host order, lane s[3].
 *   inc32le  the FIRST word is a little-endian uint32 (GCM-SIV, RFC 8452): already in host
 *            order, lane s[0]; no REV. 24 instructions per 8 blocks instead of 32.
 */
.macro _ctr_init kind
        ld1     {CTRBLK.16b}, [CTRP]
.ifc \kind, inc32be
        ldr     CTR, [CTRP, #12]
        rev     CTR, CTR                                // big-endian word -> host order
.else
.ifc \kind, inc32le
        ldr     CTR, [CTRP]                             // little-endian word: host order
.else
        .error  "_ctr_init: unknown counter kind \kind"
.endif
.endif
.endm

/* _ctr_insert b, ct, kind: b = CTRBLK with the counter word replaced by ct (host order). */
.macro _ctr_insert b, ct, kind
        mov     \b\().16b, CTRBLK.16b
.ifc \kind, inc32be
        mov     \b\().s[3], \ct                         // word 3 only: bytes 0-11 stay
.else
        mov     \b\().s[0], \ct                         // word 0 only: bytes 4-15 stay
.endif
.endm

.macro _ctr_blocks n, kind
.irp i, 1, 2, 3, 4, 5, 6, 7
.if \i < \n
        add     CT\i, CTR, #\i                          // 32-bit add: wraps modulo 2^32
.endif
.endr
.ifc \kind, inc32be
.irp i, 0, 1, 2, 3, 4, 5, 6, 7
.if \i < \n
.if \i == 0
        rev     CT0, CTR                                // back to big-endian
.else
        rev     CT\i, CT\i
.endif
.endif
.endr
        _ctr_insert BLK0, CT0, \kind
.else
        _ctr_insert BLK0, CTR, \kind                    // inc32le: the word as it is
.endif
.irp i, 1, 2, 3, 4, 5, 6, 7
.if \i < \n
        _ctr_insert BLK\i, CT\i, \kind
.endif
.endr
        add     CTR, CTR, #\n
.endm

/*
 * void aesfast_armv8_ctr32_xor(const aesfast_key *key, const uint8_t ctr[16],
 *                              const uint8_t *in, uint8_t *out, size_t nblocks);
 *
 * For i in 0..nblocks-1: out[16i..16i+15] = in[16i..16i+15] ^ AES-Encrypt(key, ctr + i), where
 * ctr + i adds i modulo 2^32 to the last 4 bytes of ctr read as a big-endian uint32 and leaves
 * the first 12 bytes as they are. nblocks may be 0. in == out is allowed (each group of blocks is
 * loaded before it is stored); other overlap is not. No alignment is needed. ctr is not written.
 *
 * void aesfast_armv8_ctr32le_xor(const aesfast_key *key, const uint8_t ctr[16],
 *                                const uint8_t *in, uint8_t *out, size_t nblocks);
 *
 * The same with GCM-SIV's counter: ctr + i adds i modulo 2^32 to the FIRST 4 bytes of ctr read
 * as a little-endian uint32 and leaves bytes 4..15 as they are.
 *
 * Both are _ctr_function with a different counter kind.
 */
.macro _ctr_function name, kind
AESFAST_FUNC(\name)
        cbz     NBLOCKS, .Lctr_done\@
        ldr     ROUNDS, [KEY, #AESFAST_KEY_ROUNDS]
        _ctr_init \kind
        _load_round_keys KEY, ROUNDS, KEYP
        subs    NBLOCKS, NBLOCKS, #8
        b.lo    .Lctr_tail\@

        stp     d8, d9, [sp, #-64]!                     // AAPCS64: d8-d15 are callee-saved
        stp     d10, d11, [sp, #16]
        stp     d12, d13, [sp, #32]
        stp     d14, d15, [sp, #48]

        .p2align 5
.Lctr_loop8\@:
        ld1     {IN0.16b-IN3.16b}, [INP], #64
        ld1     {IN4.16b-IN7.16b}, [INP], #64
        _ctr_blocks 8, \kind
.irp i, 0, 1, 2, 3, 4, 5, 6, 7
        _eor16  IN\i, IN\i, RKLAST                      // off the critical path: the last
.endr                                                   // step below is then a single EOR
        _aes_encrypt 8, ROUNDS
.irp i, 0, 1, 2, 3, 4, 5, 6, 7
        _eor16  BLK\i, BLK\i, IN\i
.endr
        st1     {BLK0.16b-BLK3.16b}, [OUTP], #64
        st1     {BLK4.16b-BLK7.16b}, [OUTP], #64
        subs    NBLOCKS, NBLOCKS, #8
        b.hs    .Lctr_loop8\@

        ldp     d10, d11, [sp, #16]
        ldp     d12, d13, [sp, #32]
        ldp     d14, d15, [sp, #48]
        ldp     d8, d9, [sp], #64

        // 0..7 blocks are left. NBLOCKS is now (blocks left) - 8, so its low 3 bits are the
        // count. 1..4 blocks take one 4-block pass, 5..7 one 8-block pass: a single pass of
        // AES latency instead of up to three. The keystream is then consumed 4, 2, 1 blocks at
        // a time, shifting the unused keystream blocks down to BLK0.
.Lctr_tail\@:
        ands    REM, NBLOCKS, #7
        b.eq    .Lctr_done\@
        cmp     REM, #4
        b.hi    .Lctr_tail8\@
        _ctr_blocks 4, \kind
        _aes_encrypt 4, ROUNDS
.irp i, 0, 1, 2, 3
        _eor16  BLK\i, BLK\i, RKLAST
.endr
        b       .Lctr_tail_xor\@
.Lctr_tail8\@:
        _ctr_blocks 8, \kind
        _aes_encrypt 8, ROUNDS
.irp i, 0, 1, 2, 3, 4, 5, 6, 7
        _eor16  BLK\i, BLK\i, RKLAST
.endr
.Lctr_tail_xor\@:
        _xor_store_tail REM, TIN
.Lctr_done\@:
        ret
AESFAST_END(\name)
.endm

        _ctr_function aesfast_armv8_ctr32_xor, inc32be
        _ctr_function aesfast_armv8_ctr32le_xor, inc32le

#endif /* __aarch64__ */
