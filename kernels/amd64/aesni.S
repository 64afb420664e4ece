/*
 * AES-NI tier: AES key expansion, single-block encryption and CTR32 for x86-64 without VAES.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * CPU features: AES && SSSE3 && SSE4.1 (CPUID.1:ECX bits 25, 9 and 19). The code uses AES-NI,
 * SSE2 and SSE4.1's PINSRD; SSSE3 is in the formula because the tier promises it (every AES-NI
 * CPU has it). Only legacy-SSE encodings are used (no VEX), so no OS-enabled AVX state is needed.
 *
 * ABI: System V AMD64. All three functions are leaf functions that touch only caller-saved
 * registers (rax, rcx, rdx, rsi, rdi, r8-r11, xmm0-15); no stack frame, no stack access.
 *
 * Algorithm
 *   set_key: FIPS-197 key expansion driven by AESKEYGENASSIST, which computes SubWord(w) and
 *   RotWord(SubWord(w)) ^ rcon in hardware (no tables, so constant time). The round keys are
 *   stored in FIPS-197 byte order, which is also the byte order AESENC expects in memory, so the
 *   other tiers (and the VAES tiers, which reuse this key schedule) load them as they are.
 *
 *   ctr32_xor: the counter lives in a general-purpose register as an integer; 32-bit adds wrap
 *   it modulo 2^32 with no carry into byte 11 (GCM's inc32). Each block is made as
 *   (ctr ^ rk[0]) with dword 3 replaced by bswap(counter + i) ^ rk[0][12..15] (LEA, BSWAP, XOR,
 *   PINSRD), so the AddRoundKey of round 0 comes for free and the vector ports, which AESENC
 *   saturates, see only the PINSRD instead of a PADDD, PSHUFB and PXOR per block.
 *   ctr32le_xor (GCM-SIV's counter: the little-endian uint32 in bytes 0..3, wrapping with no
 *   carry into byte 4) is the same code with the counter format as a macro parameter (fmt=le):
 *   the word goes into dword 0, XORed with rk[0][0..3], and needs no BSWAP. Eight blocks
 *   are in flight per iteration: AESENC's latency (3-4 cycles) times its throughput (2 per
 *   cycle). The input XOR is folded into the last round: AESENCLAST(s, k ^ in) =
 *   AESENCLAST(s, k) ^ in.
 *   The 0..7 blocks left after the main loop are done as a group of 4, of 2 and of 1. The groups
 *   share no data, so an out-of-order core runs their rounds side by side: 7 blocks take about
 *   one AES latency, not three. A single 4- or 8-block pass for the tail (armv8.S's choice) was
 *   tried and measured slower here for 1..6 blocks, since it spends AESENC throughput on up to
 *   three blocks that are thrown away.
 *
 *   Round keys: the last six live in registers, the others are loaded once per round for all the
 *   blocks in flight. They are addressed from the end of the schedule (RKEND = rk + 16 * rounds),
 *   so AES-128/192/256 share one instruction sequence and differ only in where they enter it (a
 *   branch on the round count, never on data).
 */

#include "asm_base.h"
#include "aesni_macros.h"

#if defined(__x86_64__)

/* Arguments of ctr32_xor (SysV: rdi, rsi, rdx, rcx, r8). */
.set KEY,       %rdi    /* const aesfast_key * */
.set CTRP,      %rsi    /* const uint8_t ctr[16]: counter block of the first block */
.set IN,        %rdx    /* const uint8_t *in */
.set OUT,       %rcx    /* uint8_t *out */
.set NBLOCKS,   %r8     /* size_t nblocks; in the main loop, blocks left minus 8 */
.set NBLOCKSB,  %r8b

/* Scratch general-purpose registers. */
.set ROUNDS,    %eax    /* key->rounds: 10, 12 or 14 */
.set ROUNDSQ,   %rax
.set RKEND,     %r9     /* &key->rk[16 * rounds], the last round key */

/* Counter state, in general-purpose registers. CTRP is free once the counter block is loaded. */
.set CTRW,      %r10    /* the next block's counter (low 32 bits used, wraps mod 2^32) */
.set CTRWD,     %r10d
.set K0W,       %r11d   /* rk[0]'s dword that holds the counter: 3 (fmt=be) or 0 (fmt=le) */
.set TW,        %esi    /* one counter word being made */

/* Vector registers. */
.irp i, 0,1,2,3,4,5,6,7
.set X\i,       %xmm\i  /* X0-X7: the blocks in flight */
.endr
.set RKT,       %xmm8   /* a round key loaded for one round, or last round key ^ input */
.set RKLAST,    %xmm9   /* the last round key */
.set RKE1,      %xmm10  /* RKEn: the round key n places before the last (RKEND - 16n) */
.set RKE2,      %xmm11
.set RKE3,      %xmm12
.set RKE4,      %xmm13
.set RKE5,      %xmm14
.set IVK,       %xmm15  /* counter block ^ rk[0]; dword 3 is replaced per block */
.set RK0,       IVK     /* (encrypt_block: rk[0] itself) */

        .text

/* ------------------------------------------------------------------------------------------ */
/* Key expansion                                                                              */
/* ------------------------------------------------------------------------------------------ */

/*
 * \k = (w0, w1, w2, w3) -> (w0, w0^w1, w0^w1^w2, w0^w1^w2^w3), the running XOR of the words
 * that each key-schedule step needs, in two shift-and-XOR steps (a chain of four instructions,
 * not six: the schedule is a chain of such steps, and GCM-SIV expands a key per nonce).
 * \t is clobbered.
 */
.macro _prefix_xor k, t
        movdqa          \k, \t
        pslldq          $4, \t                  /* (0, w0, w1, w2) */
        pxor            \t, \k                  /* (w0, w0^w1, w1^w2, w2^w3) */
        movdqa          \k, \t
        pslldq          $8, \t                  /* (0, 0, w0, w0^w1) */
        pxor            \t, \k
.endm

/*
 * SubWord (and RotWord) without AESKEYGENASSIST, which is microcoded on recent Intel cores (one
 * per 12 cycles measured on a Sapphire Rapids-class Xeon, blocking the front end while it runs:
 * a whole AES-128 schedule spent ~120 cycles in it). Instead: PSHUFB copies the word (rotated
 * or not) into all four columns, and AESENCLAST with rcon in every dword as its round key does
 * SubBytes (ShiftRows moves nothing when the columns are equal) and adds rcon. \src's word \w
 * (0..3) -> %xmm1 = SubWord(RotWord(word)) ^ rcon (\mask = .Lkey_rot\w, round key RCON) or
 * SubWord(word) (.Lkey_dup\w, round key ZERO), in every dword.
 */
.macro _subword src, mask, rk
        movdqa          \src, %xmm1
        pshufb          \mask(%rip), %xmm1
        aesenclast      \rk, %xmm1
.endm

/* The constant registers of the expansion (no secrets): rcon in every dword, and zero. */
.set RCON,      %xmm4
.set ZERO,      %xmm5

/* RCON = the first round constant, 1 (the others: _next_rcon). */
.macro _first_rcon
        movdqa          .Lkey_rcon1(%rip), RCON
        pxor            ZERO, ZERO
.endm

/* RCON = the round constant after \rcon: x * rcon in GF(2^8), i.e. doubling, and 0x1b after
 * 0x80. */
.macro _next_rcon rcon
.if \rcon == 0x80
        movdqa          .Lkey_rcon1b(%rip), RCON
.else
        pslld           $1, RCON
.endif
.endm

/* AES-128: the round key after %xmm0, written to \off(KEY), rcon \rcon (RCON, which it then
 * advances). w[i] = w[i-4] ^ RotWord(SubWord(w[i-1])) ^ rcon for the first word, then each word
 * is the previous one XOR w[i-4]. */
.macro _expand128 rcon, off
        _subword        %xmm0, .Lkey_rot3, RCON
        _prefix_xor     %xmm0, %xmm2
        pxor            %xmm1, %xmm0
        movdqu          %xmm0, \off(KEY)
        _next_rcon      \rcon
.endm

/*
 * AES-192: six words per step. %xmm0 holds w[6k..6k+3], %xmm3's low two dwords w[6k+4..6k+5].
 * The step writes the next six words at \off(KEY), or only four of them when \last is 1 (the
 * schedule has 52 words, not 54).
 */
.macro _expand192 rcon, off, last=0
        _subword        %xmm3, .Lkey_rot1, RCON /* RotWord(SubWord(w[6k+5])) ^ rcon */
        _prefix_xor     %xmm0, %xmm2
        pxor            %xmm1, %xmm0            /* w[6k+6 .. 6k+9] */
        movdqu          %xmm0, \off(KEY)
.if !\last
        _next_rcon      \rcon
        /* w[6k+10] = w[6k+4] ^ w[6k+9], w[6k+11] = w[6k+5] ^ w[6k+10]. Dwords 2-3 of %xmm3
         * collect junk, which nothing reads. */
        pshufd          $0xff, %xmm0, %xmm1     /* w[6k+9] in every dword */
        movdqa          %xmm3, %xmm2
        pslldq          $4, %xmm2
        pxor            %xmm2, %xmm3            /* (w4, w4^w5, ...) */
        pxor            %xmm1, %xmm3
        movq            %xmm3, \off+16(KEY)
.endif
.endm

/*
 * AES-256: %xmm0 and %xmm3 hold the last two round keys. The next even round key uses
 * RotWord(SubWord()) ^ rcon of the odd one's last word, the next odd one SubWord() of the new
 * even one's last word. \last: only the even one.
 */
.macro _expand256 rcon, off, last=0
        _subword        %xmm3, .Lkey_rot3, RCON /* RotWord(SubWord(w[i-1])) ^ rcon */
        _prefix_xor     %xmm0, %xmm2
        pxor            %xmm1, %xmm0
        movdqu          %xmm0, \off(KEY)
.if !\last
        _next_rcon      \rcon
        _subword        %xmm0, .Lkey_dup3, ZERO /* SubWord(w[i-1]) */
        _prefix_xor     %xmm3, %xmm2
        pxor            %xmm1, %xmm3
        movdqu          %xmm3, \off+16(KEY)
.endif
.endm

        AESFAST_RODATA
        .p2align 4
/* PSHUFB masks: RotWord of dword 3 (bytes 13, 14, 15, 12) or of dword 1, and dword 3 as it is,
 * into every dword. */
.Lkey_rot3:
        .byte 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12
.Lkey_rot1:
        .byte 5, 6, 7, 4, 5, 6, 7, 4, 5, 6, 7, 4, 5, 6, 7, 4
.Lkey_dup3:
        .byte 12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15
.Lkey_rcon1:                                    /* round constants in every dword */
        .long 1, 1, 1, 1
.Lkey_rcon1b:
        .long 0x1b, 0x1b, 0x1b, 0x1b
        .text

/*
 * void aesfast_aesni_set_key(aesfast_key *key, const uint8_t *raw, size_t keylen);
 *
 * keylen must be 16, 24 or 32; any other value returns with *key unchanged. Fills key->rk and
 * key->rounds; key->bitsliced is not touched.
 */
AESFAST_FUNC(aesfast_aesni_set_key)
        cmp             $16, %rdx
        je              .Lset_key128
        cmp             $24, %rdx
        je              .Lset_key192
        cmp             $32, %rdx
        je              .Lset_key256
        ret

.Lset_key128:
        movdqu          (%rsi), %xmm0
.Lexpand128:                                    /* (gcmsiv_derive enters here with the key) */
        _first_rcon
        movdqu          %xmm0, (KEY)
        _expand128      0x01, 16*1
        _expand128      0x02, 16*2
        _expand128      0x04, 16*3
        _expand128      0x08, 16*4
        _expand128      0x10, 16*5
        _expand128      0x20, 16*6
        _expand128      0x40, 16*7
        _expand128      0x80, 16*8
        _expand128      0x1b, 16*9
        _expand128      0x36, 16*10
        movl            $10, AESFAST_KEY_ROUNDS(KEY)
        jmp             .Lset_key_done

.Lset_key192:
        movdqu          (%rsi), %xmm0           /* w0..w3 */
        movq            16(%rsi), %xmm3         /* w4, w5 */
.Lexpand192:
        _first_rcon
        movdqu          %xmm0, (KEY)
        movq            %xmm3, 16(KEY)
        _expand192      0x01, 24*1
        _expand192      0x02, 24*2
        _expand192      0x04, 24*3
        _expand192      0x08, 24*4
        _expand192      0x10, 24*5
        _expand192      0x20, 24*6
        _expand192      0x40, 24*7
        _expand192      0x80, 24*8, last=1
        movl            $12, AESFAST_KEY_ROUNDS(KEY)
        jmp             .Lset_key_done

.Lset_key256:
        movdqu          (%rsi), %xmm0
        movdqu          16(%rsi), %xmm3
.Lexpand256:
        _first_rcon
        movdqu          %xmm0, (KEY)
        movdqu          %xmm3, 16(KEY)
        _expand256      0x01, 32*1
        _expand256      0x02, 32*2
        _expand256      0x04, 32*3
        _expand256      0x08, 32*4
        _expand256      0x10, 32*5
        _expand256      0x20, 32*6
        _expand256      0x40, 32*7, last=1
        movl            $14, AESFAST_KEY_ROUNDS(KEY)

.Lset_key_done:
        /* Leave no key material behind in registers. */
        pxor            %xmm0, %xmm0
        pxor            %xmm1, %xmm1
        pxor            %xmm2, %xmm2
        pxor            %xmm3, %xmm3
        ret
AESFAST_END(aesfast_aesni_set_key)

/* ------------------------------------------------------------------------------------------ */
/* Encryption                                                                                 */
/* ------------------------------------------------------------------------------------------ */

/* Loads what every encryption path needs: ROUNDS, RKEND and the round keys kept in registers. */
.macro _load_key
        movl            AESFAST_KEY_ROUNDS(KEY), ROUNDS
        mov             ROUNDSQ, RKEND
        shl             $4, RKEND
        add             KEY, RKEND              /* RKEND = &rk[16 * rounds] */
        movdqu          (KEY), RK0
        movdqu          (RKEND), RKLAST
.irp j, 1,2,3,4,5
        movdqu          -16*\j(RKEND), RKE\j
.endr
.endm

/*
 * All rounds but the first AddRoundKey and the last round, on X0..X(\n-1). AES-256 enters at
 * round key RKEND-13, AES-192 at RKEND-11 and AES-128 at RKEND-9. The branch depends only on the
 * round count.
 */
.macro _aes_middle_rounds n
        _aes_long_key_rounds \n, ROUNDS
.irp j, 9,8,7,6
        _aesenc_mem     \j, \n
.endr
.irp j, 5,4,3,2,1
        _aesenc_n       RKE\j, \n
.endr
.endm

/*
 * The counter formats (\fmt): "be" is the big-endian uint32 in dword 3 (GCM's inc32, CTR),
 * "le" the little-endian uint32 in dword 0 (GCM-SIV). _ctr_dword sets .Lctr_dw to the dword's
 * index (an assembler symbol, redefined at every use).
 */
.macro _ctr_dword fmt
.ifc \fmt, be
        .set            .Lctr_dw, 3
.else
.ifc \fmt, le
        .set            .Lctr_dw, 0
.else
        .error          "counter format must be be or le"
.endif
.endif
.endm

/* Counter block CTRW + \i, XORed with rk[0], into \x. The counter word is made in a
 * general-purpose register (32-bit arithmetic wraps mod 2^32 by itself) and inserted into
 * IVK, which keeps the vector ports free for AESENC. */
.macro _ctr_block x, i, fmt
        lea             \i(CTRW), TW            /* 32-bit result: + i mod 2^32 */
.ifc \fmt, be
        bswap           TW                      /* big-endian, as in the block */
.endif
        xor             K0W, TW                 /* ^ rk[0]'s counter dword */
        movdqa          IVK, \x
        _ctr_dword      \fmt
        pinsrd          $.Lctr_dw, TW, \x        /* SSE4.1 */
.endm

/* out[0..n-1] = in[0..n-1] ^ AES(counter blocks); advances CTRW, IN and OUT by n blocks. */
.macro _ctr_xor_n n, fmt
.irp i, 0,1,2,3,4,5,6,7
.if \i < \n
        _ctr_block      X\i, \i, \fmt
.endif
.endr
        add             $\n, CTRWD
        _aes_middle_rounds \n
.irp i, 0,1,2,3,4,5,6,7
.if \i < \n
        movdqu          16*\i(IN), RKT
        pxor            RKLAST, RKT             /* last round key ^ input ... */
        aesenclast      RKT, X\i                /* ... so the last round does the XOR too */
        movdqu          X\i, 16*\i(OUT)
.endif
.endr
        add             $16*\n, IN
        add             $16*\n, OUT
.endm

/*
 * The body of ctr32_xor (fmt=be) and ctr32le_xor (fmt=le): 8 blocks per iteration, then the
 * 0..7 left as groups of 4, 2 and 1.
 */
.macro _ctr32_xor_body fmt
        test            NBLOCKS, NBLOCKS
        jz              .Lctr_ret_\fmt
        _load_key
        movdqu          (CTRP), X0
        pxor            X0, IVK                 /* IVK = ctr ^ rk[0] */
        _ctr_dword      \fmt
        movl            4*.Lctr_dw(CTRP), CTRWD
.ifc \fmt, be
        bswap           CTRWD                   /* the counter, as an integer */
.endif
        movl            4*.Lctr_dw(KEY), K0W

        sub             $8, NBLOCKS
        jb              .Lctr_tail_\fmt
.Lctr_loop_\fmt:                                /* 8 blocks per iteration */
        _ctr_xor_n      8, \fmt
        sub             $8, NBLOCKS
        jae             .Lctr_loop_\fmt

.Lctr_tail_\fmt:
        /* NBLOCKS = blocks left - 8, so its low 3 bits are the blocks left (0..7). */
        test            $4, NBLOCKSB
        jz              .Lctr_tail2_\fmt
        _ctr_xor_n      4, \fmt
.Lctr_tail2_\fmt:
        test            $2, NBLOCKSB
        jz              .Lctr_tail1_\fmt
        _ctr_xor_n      2, \fmt
.Lctr_tail1_\fmt:
        test            $1, NBLOCKSB
        jz              .Lctr_ret_\fmt
        _ctr_xor_n      1, \fmt
.Lctr_ret_\fmt:
        ret
.endm

/*
 * void aesfast_aesni_encrypt_block(const aesfast_key *key, const uint8_t in[16], uint8_t out[16]);
 *
 * in and out may be equal.
 */
AESFAST_FUNC(aesfast_aesni_encrypt_block)
        _load_key
        movdqu          (%rsi), X0
        pxor            RK0, X0
        _aes_middle_rounds 1
        aesenclast      RKLAST, X0
        movdqu          X0, (%rdx)
        ret
AESFAST_END(aesfast_aesni_encrypt_block)

/*
 * void aesfast_aesni_ctr32_xor(const aesfast_key *key, const uint8_t ctr[16], const uint8_t *in,
 *                              uint8_t *out, size_t nblocks);
 *
 * out[i] = in[i] ^ AES(ctr + i) for i < nblocks, "+ i" being added to the big-endian uint32 in
 * ctr[12..15] modulo 2^32 (see aesfast_kernel.h). in == out is allowed; no alignment needed.
 */
AESFAST_FUNC(aesfast_aesni_ctr32_xor)
        _ctr32_xor_body be
AESFAST_END(aesfast_aesni_ctr32_xor)

/*
 * void aesfast_aesni_ctr32le_xor(const aesfast_key *key, const uint8_t ctr[16],
 *                                const uint8_t *in, uint8_t *out, size_t nblocks);
 *
 * The same with GCM-SIV's counter: "+ i" is added to the little-endian uint32 in ctr[0..3]
 * modulo 2^32; ctr[4..15] never change.
 */
AESFAST_FUNC(aesfast_aesni_ctr32le_xor)
        _ctr32_xor_body le
AESFAST_END(aesfast_aesni_ctr32le_xor)

/* ------------------------------------------------------------------------------------------ */
/* GCM-SIV's per-nonce keys                                                                   */
/* ------------------------------------------------------------------------------------------ */

        AESFAST_RODATA
        .p2align 4
.Lderive_j:                                     /* LE32(j) for j = 1..5, dword 0 */
        .long 1, 0, 0, 0,  2, 0, 0, 0,  3, 0, 0, 0,  4, 0, 0, 0,  5, 0, 0, 0
        .text

/*
 * void aesfast_aesni_gcmsiv_derive(const aesfast_key *key, const uint8_t nonce[12],
 *                                  aesfast_key *enc_key, uint8_t auth[16]);
 *
 * RFC 8452, section 4, in one call: the blocks AES_key(LE32(j) || nonce), j = 0..5, keeping the
 * first 8 bytes of each. Blocks 0-1 are the message-authentication key (auth); blocks 2-3, 2-4
 * or 2-5 the message-encryption key of key's own size, which set_key's code then expands into
 * *enc_key without a trip through memory. All six blocks are made for every key size (the
 * spares ride in the same rounds, free next to AESENC's latency). The derived bytes are cleared
 * from the vector registers, as set_key clears the key.
 */
AESFAST_FUNC(aesfast_aesni_gcmsiv_derive)
        _load_key
        movq            (%rsi), X0              /* nonce[0..7] in dwords 0-1 */
        pinsrd          $2, 8(%rsi), X0         /* nonce[8..11] in dword 2 */
        pslldq          $4, X0                  /* LE32(0) || nonce */
        pxor            RK0, X0                 /* round 0's AddRoundKey, for all six */
.irp i, 1,2,3,4,5
        movdqa          X0, X\i
        pxor            .Lderive_j+16*(\i-1)(%rip), X\i  /* LE32(j) ^ rk[0]'s dword 0 */
.endr
        _aes_middle_rounds 6
.irp i, 0,1,2,3,4,5
        aesenclast      RKLAST, X\i
.endr
        punpcklqdq      X1, X0                  /* auth = b0[0..7] || b1[0..7] */
        movdqu          X0, (%rcx)
        punpcklqdq      X3, X2                  /* encryption key bytes 0..15 */
        punpcklqdq      X5, X4                  /* 16..31 (AES-192 uses 16..23) */
        movdqa          X2, %xmm0               /* where set_key's expansion wants them */
        movdqa          X4, %xmm3
        pxor            %xmm4, %xmm4            /* (xmm0-3 are cleared by set_key's end) */
        pxor            %xmm5, %xmm5
        mov             %rdx, KEY
        cmpl            $12, ROUNDS             /* the key's size, from its round count */
        jb              .Lexpand128
        je              .Lexpand192
        jmp             .Lexpand256
AESFAST_END(aesfast_aesni_gcmsiv_derive)

#endif /* __x86_64__ */
