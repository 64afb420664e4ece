/*
 * AES-NI tier, GCM and GCM-SIV: GHASH and POLYVAL with PCLMULQDQ, and AES-GCM / AES-GCM-SIV
 * with the AES rounds and the hash multiplications stitched together, 8 blocks per iteration and
 * one reduction per 8 blocks. Both modes come from one set of macros with a format parameter
 * (see "GCM-SIV" below).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * CPU features: AES && PCLMULQDQ && SSSE3 && SSE4.1 (CPUID.1:ECX bits 25, 1, 9 and 19): AESENC,
 * PCLMULQDQ, PSHUFB (SSSE3) and PINSRD (SSE4.1). Only legacy-SSE encodings (no VEX), so no
 * OS-enabled AVX state is needed. Keys come from aesfast_aesni_set_key (aesni.S): FIPS-197 byte
 * order, 16-byte aligned (so round keys, the hash-key table and the constants below can be
 * memory operands of legacy-SSE instructions, which require alignment).
 *
 * ABI: System V AMD64. Leaf functions that touch only caller-saved registers (rax, rcx, rdx,
 * rsi, rdi, r8-r11, xmm0-15), but for the last-block functions of GCM's one-call message, which
 * push and pop rbx and rbp. The stitched functions read their seventh argument, nblocks, at
 * 8(%rsp), and keep nine counter blocks in a 152-byte stack frame, which they wipe before they
 * return (the blocks are XORed with rk[0], i.e. with key bytes). Round keys and hash-key powers
 * may be left in vector registers (see the register policy in aesfast_kernel.h).
 *
 * The field, reflected
 *   GHASH works in GF(2^128) = GF(2)[x] / P, P = x^128 + x^7 + x^2 + x + 1, with a block's bit 0
 *   (the top bit of byte 0, SP 800-38D) the coefficient of x^0. After PSHUFB reverses the 16
 *   bytes, that bit is bit 127 of the register: register bit 127 - i is the coefficient of x^i.
 *   Read the register as a polynomial in y (bit j = coefficient of y^j); then a(x) is stored as
 *   A(y) = y^127 a(1/y), and PCLMULQDQ multiplies A and B as polynomials in y. Reversing P gives
 *   P*(y) = y^128 P(1/y) = y^128 + y^127 + y^126 + y^121 + 1, and for c = a b = q P + r:
 *
 *       A(y) B(y) = y^254 c(1/y) = Q*(y) P*(y) + y^127 R(y),
 *
 *   so the reflected form of a b mod P is R = A B y^-127 mod P*. Everything below computes in
 *   this reversed field, modulo P*.
 *
 * Montgomery reduction
 *   The 256-bit product T = A B is reduced by y^128 (Montgomery): add a multiple of P* that
 *   clears the low 128 bits, and keep the high 128: (T + m P*) / y^128 = T y^-128 mod P*, of
 *   degree < 128 since deg(m P*) <= 255. Write P* = y^128 + C y^64 + 1 with C = 0xc2 << 56
 *   (y^63 + y^62 + y^57). Clearing the low 64-bit word t0 of T takes m = t0: t0 * P* adds t0 to
 *   word 2, clmul(t0, C) to words 2:1, and t0 to word 0 (clearing it). The new word 1 is cleared
 *   the same way, landing in words 3:2. With the product as LO (words 1:0), MID (2:1) and HI
 *   (3:2), both steps are
 *
 *       MID ^= swap(LO) ^ clmul(LO.lo, C)         (swap = exchange the 64-bit halves: PSHUFD 0x4e)
 *       HI  ^= swap(MID) ^ clmul(MID.lo, C)       -> HI = T y^-128 mod P*
 *
 *   (swap puts LO.lo into word 2, the "t0 to word 2" term, and LO.hi back into word 1.)
 *   The missing factor y is put into the key: the table holds K_n = H^n y mod P* (H^n reflected),
 *   and then A K_n y^-128 = A H^n y^-127 is exactly the reflected a h^n. K_1 = H y is a one-bit
 *   left shift that XORs in P*'s low 128 bits when bit 127 falls off; K_(n+1) = K_n K_1 y^-128.
 *
 * Karatsuba and aggregation
 *   A 128 x 128 product takes three PCLMULQDQs: LO = a0 k0, HI = a1 k1, and (a0 ^ a1)(k0 ^ k1) =
 *   MID ^ LO ^ HI. Eight blocks X_0..X_7 fold into the accumulator with one reduction:
 *   acc' = (acc ^ X_0) H^8 ^ X_1 H^7 ^ ... ^ X_7 H, so the 24 products are summed (LO, HI and the
 *   Karatsuba middles separately, all linear) and reduced once. The table keeps (k0 ^ k1) of each
 *   K_n in both halves of a second 16-byte word, so the data side of the middle product needs
 *   only a0 ^ a1 in the low half: a PSHUFD and a PXOR, or, for blocks read from memory, two
 *   64-bit loads, XOR and BSWAP in a general-purpose register and a MOVQ.
 *
 * Stitching
 *   Seal encrypts 8 counter blocks while it hashes the 8 ciphertext blocks of the previous
 *   iteration (re-read from out, still in L1); the first iteration only encrypts and the last
 *   8 blocks are hashed after the loop. Open hashes the 8 input (ciphertext) blocks of the
 *   iteration while it encrypts their counters; the loads for the hash come before the stores of
 *   the plaintext in program order, so in == out works. The AES rounds shared by all key sizes
 *   (the last nine middle rounds) each carry one "GHASH step": one block's three products, and
 *   after the eighth, the reduction. The AESENC and PCLMULQDQ streams are independent, so the
 *   out-of-order core runs them side by side (where exactly a step sits in its round was
 *   measured not to matter).
 *
 * The main loop per 16 blocks, by kind (GCM seal or open, AES-128, two iterations; counted from
 * the source and the disassembly):
 *   AES rounds (AESENC[LAST])        160 (AES-256: 224)
 *   carry-less multiplies            52: 48 Karatsuba (3 per block), 4 reductions (2 per 8)
 *   shuffles                         22: 16 PSHUFB (the data), 6 PSHUFD
 *   XORs                             74 PXOR, and 30 scalar XORs (Karatsuba data sides, counters)
 *   scalar counter work              30 BSWAP, 16 LEA, a few MOVs and ADDs
 *   loads / stores                   ~100 vector (round keys, powers, data, counter blocks) and
 *                                    ~45 scalar / 16 vector (the data) and 16 dwords (counters)
 * GCM-SIV's open: the same without the PSHUFBs and BSWAPs; GHASH and POLYVAL alone: the 52
 * multiplies and their XORs.
 * What binds it (build/bench/kernels, 16 KiB, cycles per 16 blocks, AES-128): on AMD Zen 3 and
 * Zen 5, PCLMULQDQ (one per 2 cycles): 52 x 2 = 104 is the floor; Zen 5 measured CTR 82.6
 * (floor 80: AESENC 2 per cycle), GHASH and POLYVAL 103 (the floor), GCM 147.5; Zen 3 ~166
 * (below). On the Intel Xeons measured this tier does not run (vaes-avx512 does).
 * The numbers behind the choices: Karatsuba, 3 multiplies per block instead of 4 (16 fewer per
 * 16 blocks: 32 cycles of the bound on AMD); 8 blocks per reduction, one per iteration (16 xmm
 * registers hold 8 AES states beside the sums and temporaries, and no more); counters made in
 * general-purpose registers and stored one iteration ahead (5% faster than PINSRD, below).
 *
 * Port pressure (Zen 3, measured with microbenchmarks and by removing parts of this loop):
 *   AESENC issues 2 per cycle; PCLMULQDQ 1 per 2 cycles, and in this loop each one costs about
 *   two AESENC slots; other vector ops (PXOR, PSHUFB, PSHUFD) about half a slot. Of the ~83
 *   cycles per 8 blocks of AES-128, about 40 are AESENC, 30 PCLMULQDQ and 13 the rest. So the
 *   loop keeps other vector instructions to a minimum: 3 PCLMULQDQs per block (Karatsuba, one
 *   fewer than schoolbook for two cheap ops more), 2 per reduction, and the counter blocks and
 *   most Karatsuba data sides (above) made outside the vector unit. The counter is an integer
 *   in a general-purpose register; a counter block is (ctr ^ rk[0]) with dword 3 replaced by
 *   bswap(counter + i) ^ rk[0][12..15], so round 0 comes for free. In the 8-block loop those
 *   dwords are stored into eight stack copies of ctr ^ rk[0] one iteration ahead, and each
 *   block is a plain load (5% faster than PINSRD); the first pass and the tails insert them
 *   with PINSRD, as aesni.S does (a load right after a narrower store to the same bytes would
 *   stall).
 *
 * Tails: 4, 2 and 1 blocks of CTR as in aesni.S, and a GHASH loop over the 1..7 remaining blocks
 *   with the powers H^r..H^1 and one reduction. Nothing is read or written outside the buffers.
 *
 * Round keys are addressed from the end of the schedule (RKEND = rk + 16 * rounds), so AES-128,
 * -192 and -256 share one instruction sequence and differ only in where they enter it (a branch
 * on the round count, never on data). Nothing else branches except on the block count.
 *
 * The hash-key table (aesfast_hash_key.tbl, this tier's layout):
 *   32 * (n - 1)        K_n, n = 1..8: H^n y mod P* (GHASH, reflected, see above), or for
 *                       POLYVAL H^n y^(-128 (n-1)) mod P* (the n-fold dot product)
 *   32 * (n - 1) + 16   (K_n.lo ^ K_n.hi) in both 64-bit halves (Karatsuba)
 *
 * GCM-SIV (RFC 8452)
 *   POLYVAL's field is GF(2)[x] / (x^128 + x^127 + x^126 + x^121 + 1) with a block read as a
 *   little-endian integer, bit i the coefficient of x^i: exactly the reversed field above, with
 *   x = y and P* as the modulus, and a block loaded as it is (no PSHUFB). Its product is
 *   dot(a, b) = a b x^-128 mod P*, which is what the Montgomery multiplication above computes
 *   for A K y^-128: so K_1 = H itself (RFC 8452's POLYVAL(H, X) = rev(GHASH(mulX(rev(H)),
 *   rev(X))) says the same: GHASH's factor y and mulX's y^-1 cancel), and the same recurrence
 *   K_(n+1) = K_n K_1 y^-128 gives the powers that 8-block aggregation needs. The Karatsuba data
 *   side is first 8 bytes ^ last 8 bytes with no BSWAP. GCM-SIV's counter is the little-endian
 *   uint32 in dword 0 (bytes 4..15 fixed): the counter word goes into dword 0 of the counter
 *   block and of the stack slots, XORed with rk[0]'s dword 0, without BSWAP. So every macro
 *   takes \fmt = gcm or siv (see _fmt), which drops the byte reversals and moves the counter
 *   dword; the instruction streams are otherwise the same. GCM-SIV's open is GCM's seal shape
 *   (CTR, then the hash of the output, the plaintext); its seal is two passes in the provider
 *   (POLYVAL, then ctr32le_xor from aesni.S), since the counter comes from the tag.
 *   Measured at 16 KiB on Zen 3 (~3.24 GHz), cycles per byte for AES-128 / AES-256: POLYVAL
 *   0.408 / 0.408 (26 PCLMULQDQs per 128 bytes at 2 cycles: its limit, 0.406); open 0.583 /
 *   0.706, against 0.516 / 0.641 for AESENC and PCLMULQDQ sharing the two AES pipes (one PCLMULQDQ
 *   costs two AESENC slots), i.e. 54% / 62% of the AESENC-only limit. The open loop runs ~8
 *   cycles per 8 blocks faster than GCM's seal (0.645 at AES-128): no PSHUFB, no BSWAP.
 */

#include "asm_base.h"
#include "aesni_macros.h"

#if defined(__x86_64__)

/* ---- Register roles ------------------------------------------------------------------------ */

/* Arguments (SysV: rdi, rsi, rdx, rcx, r8, r9, then the stack). */
.set KEY,       %rdi    /* const aesfast_key * */
.set HTBL,      %rsi    /* const aesfast_hash_key *: the table above */
.set ACCP,      %rdx    /* uint8_t acc[16], in the hash's byte order (GHASH or POLYVAL) */
.set CTRP,      %rcx    /* const uint8_t ctr[16] (stitched functions; free once loaded) */
.set IN,        %r8     /* const uint8_t *in */
.set OUT,       %r9     /* uint8_t *out */
/* (ghash/polyval: hkey, acc, in, nblocks arrive in rdi, rsi, rdx, rcx, and are moved to HTBL,
 * GACC, IN and NBLOCKS; the init functions' hkey and h stay in rdi and rsi) */
.set GACC,      %rdi    /* ghash: uint8_t acc[16] */
.set ITBL,      %rdi    /* ghash_init: aesfast_hash_key * */
.set IH,        %rsi    /* ghash_init: const uint8_t h[16] */

/* Scratch general-purpose registers. */
.set NBLOCKS,   %rax    /* blocks left; in the 8-block loops, blocks left minus 8 */
.set NBLOCKSB,  %al
.set TW,        %ecx    /* one counter word being made (aliases CTRP) */
.set TWQ,       %rcx
.set CTRW,      %r10    /* the next block's counter (low 32 bits used, wraps mod 2^32) */
.set CTRWD,     %r10d
.set RKEND,     %r11    /* &key->rk[16 * rounds], the last round key */
.set RKENDD,    %r11d

/* Memory operands. */
#define ROUNDS_MEM AESFAST_KEY_ROUNDS(KEY)     /* key->rounds: 10, 12 or 14 */
/* The stitched functions' stack frame. rsp is 8 mod 16 at entry, so after subtracting FRAME
 * (8 mod 16) it is 16-aligned. Slot i holds the counter block of block i of the next 8-block
 * iteration, XORed with rk[0]; IVK the counter block of the call ^ rk[0]. */
#define FRAME (16*9 + 8)
#define SLOT(i) 16*(i)(%rsp)
#define SLOTW(i) 16*(i)+4*.Lctr_dw(%rsp)        /* a slot's counter dword (see _fmt) */
#define IVK_MEM 16*8(%rsp)
#define HPOW(n) 32*((n)-1)(HTBL)               /* K_n */
#define HKAR(n) 32*((n)-1)+16(HTBL)            /* K_n.lo ^ K_n.hi, twice */

/* Vector registers. */
.irp i, 0,1,2,3,4,5,6,7
.set X\i,       %xmm\i  /* X0-X7: the AES blocks in flight */
.endr
.set RKT,       %xmm8   /* a round key loaded for one round; between rounds, a hash-key word */
.set LO,        %xmm9   /* sum of the low products a0 k0 */
.set MID,       %xmm10  /* sum of the Karatsuba middle products (a0 ^ a1)(k0 ^ k1) */
.set HI,        %xmm11  /* sum of the high products a1 k1; after a reduction, the hash state
                         * (reflected) that the next 8 blocks fold into */
.set T0,        %xmm12  /* hash temporaries */
.set T1,        %xmm13
.set T2,        %xmm14
.set BSWAP,     %xmm15  /* the byte-reversal mask for PSHUFB (GHASH only) */

/* ---- Constants ----------------------------------------------------------------------------- */

        AESFAST_RODATA
        .p2align 4
.Lbswap_mask:                                   /* PSHUFB: byte i <- byte 15 - i */
        .byte 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0
.Lgfpoly:                                       /* P* mod y^128 = y^127 + y^126 + y^121 + 1; */
        .quad 0x0000000000000001, 0xc200000000000000    /* the high qword is C */
/* 16 bytes of ones, then 16 of zeros: the 16 bytes at 16 - r are r bytes of ones (a mask). */
.Lpartial_mask:
        .quad -1, -1, 0, 0

        .text

/* ---- The two formats ----------------------------------------------------------------------- */

/*
 * Every macro below that touches blocks, the hash state or the counter takes \fmt:
 *   gcm   GHASH (blocks byte-reversed into the reflected field) and GCM's counter, the
 *         big-endian uint32 in dword 3 of the counter block;
 *   siv   POLYVAL (blocks as they are) and GCM-SIV's counter, the little-endian uint32 in
 *         dword 0.
 * _fmt sets .Lrev (1: blocks and state are byte-reversed) and .Lctr_dw (the counter's dword),
 * assembler symbols redefined at every use.
 */
.macro _fmt fmt
.ifc \fmt, gcm
        .set            .Lrev, 1
        .set            .Lctr_dw, 3
.else
.ifc \fmt, siv
        .set            .Lrev, 0
        .set            .Lctr_dw, 0
.else
        .error          "format must be gcm or siv"
.endif
.endif
.endm

/* \x = the 16 bytes at \src as a field element: byte-reversed for GHASH, as they are for POLYVAL. */
.macro _load_elem x, src, fmt
        movdqu          \src, \x
        _fmt            \fmt
.if .Lrev
        pshufb          BSWAP, \x               /* reflected block */
.endif
.endm

/* ---- GHASH and POLYVAL building blocks ----------------------------------------------------- */

/*
 * Montgomery reduction (see the header): HI = (HI y^128 + MID y^64 + LO) y^-128 mod P*, where MID
 * is the true middle word (Karatsuba already undone). LO and MID are clobbered, \t and \p
 * (which holds the constant) too. The same for both formats.
 */
.macro _ghash_reduce t, p=T2
        movdqa          .Lgfpoly(%rip), \p
        pshufd          $0x4e, LO, \t           /* swap(LO) */
        pclmulqdq       $0x10, \p, LO           /* LO.lo * C */
        pxor            \t, MID
        pxor            LO, MID                 /* LO cleared into MID */
        pshufd          $0x4e, MID, \t
        pclmulqdq       $0x10, \p, MID          /* MID.lo * C */
        pxor            \t, HI
        pxor            MID, HI                 /* MID cleared into HI */
.endm

/*
 * Hash step \i of 8 over the 8 blocks at \off(\base) (e.g. -128(OUT)): steps 0..7 multiply
 * block \i by K_(8-\i) and add the three products to LO, HI, MID (step 0 first folds the hash
 * state HI into the block, and starts the sums); step 8 undoes Karatsuba and reduces, leaving
 * the new state in HI. Clobbers T0-T2, RKT and TW. PCLMULQDQ takes the hash key from a
 * register, not memory: measured 1-4% faster on Zen 3.
 */
.macro _ghash_step i, off, base, fmt
.if \i < 8
        _load_elem      T0, \off+16*\i(\base), \fmt
.if \i == 0
        pxor            HI, T0                  /* acc ^ X_0 */
        pshufd          $0x4e, T0, MID
        pxor            T0, MID                 /* a0 ^ a1 in both halves */
        movdqa          T0, LO
        movdqa          T0, HI
        movdqa          HPOW(8), T1
        movdqa          HKAR(8), T2
        pclmulqdq       $0x00, T1, LO           /* a0 k0 */
        pclmulqdq       $0x11, T1, HI           /* a1 k1 */
        pclmulqdq       $0x00, T2, MID          /* (a0 ^ a1)(k0 ^ k1) */
.else
        /* a0 ^ a1 = first 8 bytes ^ last 8 bytes (byte-swapped for GHASH), made in TW, which is
         * free during the rounds: one transfer instead of a PSHUFD and a PXOR on the vector
         * pipes. */
        mov             \off+16*\i(\base), TWQ
        xor             \off+16*\i+8(\base), TWQ
.if .Lrev
        bswap           TWQ
.endif
        movq            TWQ, T1
        movdqa          T0, T2
        movdqa          HPOW(8-\i), RKT         /* (the round's AESENCs are done with RKT) */
        pclmulqdq       $0x00, RKT, T2
        pclmulqdq       $0x11, RKT, T0
        movdqa          HKAR(8-\i), RKT
        pclmulqdq       $0x00, T1, RKT          /* (key side as the destination) */
        pxor            T2, LO
        pxor            T0, HI
        pxor            RKT, MID
.endif
.else
        pxor            LO, MID                 /* Karatsuba: MID = middle ^ LO ^ HI */
        pxor            HI, MID
        _ghash_reduce   T0
.endif
.endm

/* The hash of 8 blocks at \off(\base) into HI, not interleaved with anything. */
.macro _ghash_8 off, base, fmt
.irp i, 0,1,2,3,4,5,6,7,8
        _ghash_step     \i, \off, \base, \fmt
.endr
.endm

/*
 * The hash of the r = (\cnt & 7) blocks at \src into HI (r may be 0): block i is multiplied by
 * K_(r-i), and one reduction follows. \src is advanced by 16 r; \hp (a scratch register) walks
 * the table from K_r down to K_1, and the loop ends when it passes HTBL. Clobbers RKT (the
 * state until it is folded into the first block), X0 (the key), LO, MID and T0-T2.
 */
.macro _ghash_var src, cnt, hp, fmt
        mov             \cnt, \hp
        and             $7, \hp
        jz              .Lghash_var_done\@
        shl             $5, \hp
        lea             -32(HTBL, \hp), \hp     /* &K_r */
        movdqa          HI, RKT
        pxor            LO, LO
        pxor            MID, MID
        pxor            HI, HI
.Lghash_var_loop\@:
        _load_elem      T0, (\src), \fmt
        pxor            RKT, T0                 /* the state goes into the first block ... */
        pxor            RKT, RKT                /* ... only */
        pshufd          $0x4e, T0, T1
        pxor            T0, T1
        movdqa          T0, T2
        movdqa          (\hp), X0
        pclmulqdq       $0x00, X0, T2
        pclmulqdq       $0x11, X0, T0
        movdqa          16(\hp), X0
        pclmulqdq       $0x00, X0, T1
        pxor            T2, LO
        pxor            T0, HI
        pxor            T1, MID
        add             $16, \src
        sub             $32, \hp
        cmp             HTBL, \hp
        jae             .Lghash_var_loop\@
        pxor            LO, MID
        pxor            HI, MID
        _ghash_reduce   T0
.Lghash_var_done\@:
.endm

/* ---- AES-CTR building blocks --------------------------------------------------------------- */

/* TW = the counter dword of the counter block CTRW + \i, XORed with the same dword of rk[0]. The
 * counter is made in a general-purpose register (32-bit arithmetic wraps mod 2^32 by itself),
 * which keeps the vector ports, which AESENC and PCLMULQDQ saturate, free. */
.macro _ctr_word i, fmt
        _fmt            \fmt
        lea             \i(CTRW), TW            /* 32-bit result: + i mod 2^32 */
.if .Lrev
        bswap           TW                      /* GCM: big-endian, as in the block */
.endif
        xor             4*.Lctr_dw(KEY), TW     /* ^ rk[0]'s counter dword */
.endm

/*
 * out[0..n-1] = in[0..n-1] ^ AES(counter blocks CTRW .. CTRW + n - 1); advances CTRW, IN and OUT
 * by n blocks. The counter blocks are IVK with the counter dword replaced (PINSRD), or with
 * \slots = 1 the stack slots. Every 8-block pass fills the slots for the next 8 blocks (the
 * first one, with slots = 0, also their other 12 bytes), so slots = 1 is right after any
 * 8-block pass. With \hash = 1 (n = 8 only), hash step s runs after the round with the round
 * key 9 - s places before the last one, over the 8 blocks at \off(\base).
 */
.macro _gcm_ctr_n fmt, n, hash=0, off=0, base=IN, slots=0
        /* Round 0 comes with the counter blocks (made ^ rk[0]). */
.irp i, 0,1,2,3,4,5,6,7
.if \i < \n
.if \slots
        movdqa          SLOT(\i), X\i           /* made by the previous iteration */
.else
        _ctr_word       \i, \fmt
        movdqa          IVK_MEM, X\i
.if \n == 8
        movdqa          X\i, SLOT(\i)           /* the slot's other 12 bytes */
.endif
        pinsrd          $.Lctr_dw, TW, X\i      /* SSE4.1 */
.endif
.if \n == 8
        /* The same block of the next iteration, for its load (long after this store). */
        _ctr_word       8+\i, \fmt
        mov             TW, SLOTW(\i)
.endif
.endif
.endr
        add             $\n, CTRWD
        /* AES-256 enters at round key RKEND-13, AES-192 at RKEND-11, AES-128 at RKEND-9. */
        _aes_long_key_rounds \n, ROUNDS_MEM
.irp j, 9,8,7,6,5,4,3,2,1
        _aesenc_mem     \j, \n
.if \hash
        _ghash_step     (9-\j), \off, \base, \fmt
.endif
.endr
        /* Last round, with the input XOR folded in: AESENCLAST(s, k ^ in) = AESENCLAST(s, k) ^ in.
         * The loads of in come after the hash loads, so in == out is fine. */
        movdqu          (RKEND), RKT
.irp i, 0,1,2,3,4,5,6,7
.if \i < \n
        movdqu          16*\i(IN), T0
        pxor            RKT, T0
        aesenclast      T0, X\i
        movdqu          X\i, 16*\i(OUT)
.endif
.endr
        add             $16*\n, IN
        add             $16*\n, OUT
.endm

/* CTR of the r = NBLOCKS & 7 blocks left, as a group of 4, of 2 and of 1 (see aesni.S). */
.macro _gcm_ctr_tail fmt
        test            $4, NBLOCKSB
        jz              .Ltail2\@
        _gcm_ctr_n      \fmt, 4
.Ltail2\@:
        test            $2, NBLOCKSB
        jz              .Ltail1\@
        _gcm_ctr_n      \fmt, 2
.Ltail1\@:
        test            $1, NBLOCKSB
        jz              .Ltail0\@
        _gcm_ctr_n      \fmt, 1
.Ltail0\@:
.endm

/*
 * Entry of the stitched functions: loads nblocks (returning at once if 0), BSWAP (GCM), the hash
 * state into HI, RKEND, and the counter: IVK_MEM = ctr ^ rk[0], CTRW = its counter dword as an
 * integer.
 */
.macro _gcm_setup ret, fmt
        mov             8(%rsp), NBLOCKS        /* the seventh argument */
        test            NBLOCKS, NBLOCKS
        jz              \ret
        sub             $FRAME, %rsp
        _fmt            \fmt
.if .Lrev
        movdqa          .Lbswap_mask(%rip), BSWAP
.endif
        _load_elem      HI, (ACCP), \fmt
        movl            ROUNDS_MEM, RKENDD
        shl             $4, RKEND
        add             KEY, RKEND              /* RKEND = &rk[16 * rounds] */
        movdqu          (CTRP), T0
        movdqa          (KEY), T1
        pxor            T1, T0
        _fmt            \fmt
        movl            4*.Lctr_dw(CTRP), CTRWD
.if .Lrev
        bswap           CTRWD                   /* the counter, as an integer */
.endif
        movdqa          T0, IVK_MEM
.endm

/* Exit of the stitched functions: the hash state out, the frame wiped (it holds rk[0] ^ the
 * counter blocks, i.e. key bits; the slots only after 8 blocks or more, but wiping them always
 * costs less than a branch) and released. */
.macro _gcm_finish fmt
        _fmt            \fmt
.if .Lrev
        pshufb          BSWAP, HI
.endif
        movdqu          HI, (ACCP)
        pxor            T0, T0
.irp i, 0,1,2,3,4,5,6,7,8
        movdqa          T0, SLOT(\i)
.endr
        add             $FRAME, %rsp
.endm

/* ---- Function bodies, one per shape, for both formats -------------------------------------- */

/* ghash_init's and polyval_init's registers (besides LO, MID, HI, T0 of the reduction). */
.set KN,        %xmm0   /* K_n */
.set K1,        %xmm3   /* K_1, the multiplier of every step */
.set K1K,       %xmm4   /* K_1.lo ^ K_1.hi in both halves */
.set N,         %eax    /* n */
.set NOFF,      %rcx    /* 32 n */
.set NOFFD,     %ecx

/*
 * hash_init: writes K_1..K_8 and their Karatsuba words (see the header). K_1 is H y for GHASH
 * and H itself for POLYVAL. Only the first 256 bytes of the table are used.
 */
.macro _hash_init_body fmt
        movdqu          (IH), KN
        _fmt            \fmt
.if .Lrev
        pshufb          .Lbswap_mask(%rip), KN  /* H, reflected */
        /* K_1 = H y mod P*: a 128-bit left shift by one, and P*'s low bits if bit 127 was set. */
        pshufd          $0xff, KN, T0
        psrad           $31, T0                 /* all ones iff bit 127 is set */
        pand            .Lgfpoly(%rip), T0
        movdqa          KN, T1
        psrlq           $63, T1                 /* the top bit of each qword ... */
        pslldq          $8, T1                  /* ... bit 63 moves to bit 64 (bit 127 drops) */
        psllq           $1, KN
        por             T1, KN
        pxor            T0, KN                  /* K_1 */
.endif
        movdqa          KN, K1
        pshufd          $0x4e, K1, K1K
        pxor            K1, K1K
        mov             $1, N
        jmp             .Linit_store_\fmt
.Linit_loop_\fmt:
        /* K_(n+1) = K_n K_1 y^-128, Karatsuba as in the bulk loop. */
        pshufd          $0x4e, KN, MID
        pxor            KN, MID
        pclmulqdq       $0x00, K1K, MID
        movdqa          KN, LO
        pclmulqdq       $0x00, K1, LO
        movdqa          KN, HI
        pclmulqdq       $0x11, K1, HI
        pxor            LO, MID
        pxor            HI, MID
        _ghash_reduce   T0
        movdqa          HI, KN
.Linit_store_\fmt:
        /* Store K_n and its Karatsuba word. */
        mov             N, NOFFD
        shl             $5, NOFF
        movdqa          KN, -32(ITBL, NOFF)
        pshufd          $0x4e, KN, T0
        pxor            KN, T0
        movdqa          T0, -16(ITBL, NOFF)
        inc             N
        cmp             $8, N
        jbe             .Linit_loop_\fmt
        ret
.endm

/* hash: acc = hash(acc, in[0..nblocks-1]), 8 blocks per reduction; nblocks may be 0. */
.macro _hash_body fmt
        test            %rcx, %rcx
        jz              .Lhash_ret_\fmt
        xchg            %rdi, %rsi              /* HTBL = hkey, GACC = acc */
        mov             %rdx, IN
        mov             %rcx, NBLOCKS
        _fmt            \fmt
.if .Lrev
        movdqa          .Lbswap_mask(%rip), BSWAP
.endif
        _load_elem      HI, (GACC), \fmt
        sub             $8, NBLOCKS
        jb              .Lhash_tail_\fmt
.Lhash_loop_\fmt:
        _ghash_8        0, IN, \fmt
        add             $128, IN
        sub             $8, NBLOCKS
        jae             .Lhash_loop_\fmt
.Lhash_tail_\fmt:
        _ghash_var      IN, NBLOCKS, %rcx, \fmt
        _fmt            \fmt
.if .Lrev
        pshufb          BSWAP, HI
.endif
        movdqu          HI, (GACC)
.Lhash_ret_\fmt:
        ret
.endm

/*
 * ctr_then_hash: out = in ^ AES(counter blocks), then acc = hash(acc, out). Each 8-block
 * iteration encrypts 8 blocks while it hashes the 8 output blocks of the previous one (re-read
 * from out); in == out is allowed.
 */
.macro _ctr_then_hash_body fmt
        _gcm_setup      .Lseal_ret_\fmt, \fmt
        sub             $8, NBLOCKS
        jb              .Lseal_tail_\fmt
        _gcm_ctr_n      \fmt, 8                 /* the first 8 blocks: nothing to hash yet */
        sub             $8, NBLOCKS
        jb              .Lseal_last_\fmt
.Lseal_loop_\fmt:                               /* encrypt 8, hash the previous 8 */
        _gcm_ctr_n      \fmt, 8, hash=1, off=-128, base=OUT, slots=1
        sub             $8, NBLOCKS
        jae             .Lseal_loop_\fmt
.Lseal_last_\fmt:
        _ghash_8        -128, OUT, \fmt
.Lseal_tail_\fmt:
        _gcm_ctr_tail   \fmt
        /* Hash the tail's r output blocks, which end at OUT (IN is free now). */
        mov             NBLOCKS, TWQ
        and             $7, TWQ
        shl             $4, TWQ
        mov             OUT, IN
        sub             TWQ, IN
        _ghash_var      IN, NBLOCKS, TWQ, \fmt
        _gcm_finish     \fmt
.Lseal_ret_\fmt:
        ret
.endm

/* ---- Functions: GCM ------------------------------------------------------------------------ */

/* void aesfast_aesni_ghash_init(aesfast_hash_key *hkey, const uint8_t h[16]); */
AESFAST_FUNC(aesfast_aesni_ghash_init)
        _hash_init_body gcm
AESFAST_END(aesfast_aesni_ghash_init)

/*
 * void aesfast_aesni_ghash(const aesfast_hash_key *hkey, uint8_t acc[16], const uint8_t *in,
 *                          size_t nblocks);
 *
 * acc = GHASH_H(acc, in[0..nblocks-1]); nblocks may be 0.
 */
AESFAST_FUNC(aesfast_aesni_ghash)
        _hash_body      gcm
AESFAST_END(aesfast_aesni_ghash)

/*
 * void aesfast_aesni_gcm_ctr_then_hash(const aesfast_key *key, const aesfast_hash_key *hkey,
 *                                      uint8_t acc[16], const uint8_t ctr[16],
 *                                      const uint8_t *in, uint8_t *out, size_t nblocks);
 *
 * Seal: out = in ^ AES(ctr + i) (inc32), then acc = GHASH(acc, out). in == out is allowed.
 */
AESFAST_FUNC(aesfast_aesni_gcm_ctr_then_hash)
        _ctr_then_hash_body gcm
AESFAST_END(aesfast_aesni_gcm_ctr_then_hash)

/*
 * void aesfast_aesni_gcm_hash_then_ctr(const aesfast_key *key, const aesfast_hash_key *hkey,
 *                                      uint8_t acc[16], const uint8_t ctr[16],
 *                                      const uint8_t *in, uint8_t *out, size_t nblocks);
 *
 * Open: acc = GHASH(acc, in), and out = in ^ AES(ctr + i) (inc32). in == out is allowed.
 * (GCM only: GCM-SIV has no hash-then-CTR shape.)
 */
AESFAST_FUNC(aesfast_aesni_gcm_hash_then_ctr)
        _gcm_setup      .Lopen_ret, gcm
        sub             $8, NBLOCKS
        jb              .Lopen_tail
        /* Hash 8 input blocks while encrypting them; the first pass makes its counter blocks
         * with PINSRD, so that it does not load the slots right after storing them. */
        _gcm_ctr_n      gcm, 8, hash=1, off=0, base=IN
        sub             $8, NBLOCKS
        jb              .Lopen_tail
.Lopen_loop:
        _gcm_ctr_n      gcm, 8, hash=1, off=0, base=IN, slots=1
        sub             $8, NBLOCKS
        jae             .Lopen_loop
.Lopen_tail:
        /* Hash the r input blocks left before their plaintext overwrites them (in == out). */
        _ghash_var      IN, NBLOCKS, TWQ, gcm
        mov             NBLOCKS, TWQ
        and             $7, TWQ
        shl             $4, TWQ
        sub             TWQ, IN                 /* back to the first of them */
        _gcm_ctr_tail   gcm
        _gcm_finish     gcm
.Lopen_ret:
        ret
AESFAST_END(aesfast_aesni_gcm_hash_then_ctr)

/* ---- Functions: GCM-SIV -------------------------------------------------------------------- */

/*
 * void aesfast_aesni_polyval_init(aesfast_hash_key *hkey, const uint8_t h[16]);
 *
 * The same table as ghash_init, for POLYVAL: K_1 = H (see the header).
 */
AESFAST_FUNC(aesfast_aesni_polyval_init)
        _hash_init_body siv
AESFAST_END(aesfast_aesni_polyval_init)

/*
 * void aesfast_aesni_polyval(const aesfast_hash_key *hkey, uint8_t acc[16], const uint8_t *in,
 *                            size_t nblocks);
 *
 * acc = POLYVAL_H(acc, in[0..nblocks-1]) (RFC 8452; acc in POLYVAL's byte order); nblocks may
 * be 0.
 */
AESFAST_FUNC(aesfast_aesni_polyval)
        _hash_body      siv
AESFAST_END(aesfast_aesni_polyval)

/*
 * void aesfast_aesni_gcmsiv_ctr_then_hash(const aesfast_key *key, const aesfast_hash_key *hkey,
 *                                         uint8_t acc[16], const uint8_t ctr[16],
 *                                         const uint8_t *in, uint8_t *out, size_t nblocks);
 *
 * GCM-SIV open: out = in ^ AES(ctr + i) (the little-endian counter in bytes 0..3), then
 * acc = POLYVAL(acc, out). in == out is allowed.
 */
AESFAST_FUNC(aesfast_aesni_gcmsiv_ctr_then_hash)
        _ctr_then_hash_body siv
AESFAST_END(aesfast_aesni_gcmsiv_ctr_then_hash)


/* ---- GCM's message in one call: the last blocks ------------------------------------------ */

/*
 * The end of a message (gcm_seal_msg and gcm_open_msg, composed in kernels/gcm_msg.c): the
 * queued blocks, the last len bytes of data, the lengths block and E(J0), hashed against
 * K_n .. K_1 with one reduction, n = nqueue + ceil(len / 16) + 1 <= 8 (the table's powers).
 * The message's first `done` blocks are in acc already; the data's counters are J0 + 1 + done
 * on. E(J0) and the data's keystream are one AES pass of 2, 4 or 8 blocks; a partial last
 * block is gathered and scattered through general-purpose registers in pieces of 8, 4, 2 and
 * 1 bytes (SSE has no masked moves; a store to the stack read back as 16 bytes would wait for
 * the stores), so nothing past a buffer is touched.
 */

/* The arguments and registers of the last-block functions (besides X0-X7, RKT, LO, MID, HI,
 * T0, T1, BSWAP above; T2 holds the hash state until the first block takes it in). */
.set LKEY,      %rdi    /* const aesfast_key *; after the AES, free (piece temporaries) */
.set LHP,       %rsi    /* the hash key table; then the power of the next block */
.set LMSG,      %rdx    /* aesfast_gcm_msg * */
.set LIN,       %rcx    /* const uint8_t *in */
.set LOUT,      %r8     /* uint8_t *out */
.set LLEN,      %r9     /* len */
.set LQS,       %rbx    /* where the next hashed data block is queued (saved on the stack) */
.set LT,        %rbp    /* blocks of data left (saved on the stack) */
.set LTMP,      %rax
.set LTMPD,     %eax
.set LCTR,      %r10    /* the counter of the next data block; then a piece temporary */
.set LCTRD,     %r10d
.set LRK,       %r11    /* RKEND; then a piece temporary */
#define LDONE 24(%rsp)  /* the seventh argument, after the two pushes */
.set ACCX,      T2

/*
 * The table layouts the last-block functions read (.Llayout, set by _gcm_last):
 *   0  this tier's: K_n at 32 (n - 1), its Karatsuba word 16 bytes on (see the top of the file);
 *   1  the vaes-avx2 tier's (gcm_vaes.S): K_n (there H'^n, the same value) at 16 (16 - n), its
 *      Karatsuba word 256 bytes on. Its functions end with VZEROUPPER, so this legacy-SSE code
 *      runs after them without a penalty for dirty upper halves.
 * The powers of the blocks of a message come in the order K_n, K_(n-1), ..., K_1.
 */

/* The block in T0 (reflected) times the power at (LHP), into LO, MID, HI; the hash state
 * (ACCX) is added into the first block and is zero after; LHP moves to the next power. */
.macro _last_hash
        pxor            ACCX, T0
        pxor            ACCX, ACCX
        pshufd          $0x4e, T0, T1
        pxor            T0, T1                  /* a0 ^ a1 in both halves */
        movdqa          T0, RKT
        pclmulqdq       $0x00, (LHP), RKT       /* a0 k0 */
        pclmulqdq       $0x11, (LHP), T0        /* a1 k1 */
.if .Llayout
        pclmulqdq       $0x00, 256(LHP), T1     /* (a0 ^ a1)(k0 ^ k1) */
.else
        pclmulqdq       $0x00, 16(LHP), T1
.endif
        pxor            RKT, LO
        pxor            T0, HI
        pxor            T1, MID
.if .Llayout
        add             $16, LHP
.else
        sub             $32, LHP
.endif
.endm

/* E(J0) into X0 and the keystream of the data's blocks into X1..X(\n-1). */
.macro _last_aes n
.irp i, 1,2,3,4,5,6,7
.if \i < \n
        movdqa          X0, X\i
        lea             \i-1(LCTR), LTMP
        bswap           LTMPD
        xorl            12(LKEY), LTMPD         /* ^ rk[0]'s counter dword */
        pinsrd          $3, LTMPD, X\i
.endif
.endr
        _aes_long_key_rounds \n, AESFAST_KEY_ROUNDS(LKEY)
.irp j, 9,8,7,6,5,4,3,2,1
        _aesenc_mem     \j, \n
.endr
        movdqu          (RKEND), RKT
.irp i, 0,1,2,3,4,5,6,7
.if \i < \n
        aesenclast      RKT, X\i
.endif
.endr
.endm

/* T0 = the LLEN % 16 (1..15) bytes at (LIN), zero-padded: the bytes past the last 8 (at most
 * 7) are built from the end, 1, 2 and 4 at a time, each shift constant. Uses LKEY, LCTR,
 * LRK. */
.macro _last_gather
        mov             LLEN, LRK
        and             $15, LRK                /* r */
        xor             LKEY, LKEY              /* the bytes past 8 (r & 8) */
        test            $1, LRK
        jz              1f
        movzbl          -1(LIN, LRK), %edi
1:      test            $2, LRK
        jz              2f
        mov             LRK, LCTR
        and             $12, LCTR
        shl             $16, LKEY
        movzwl          (LIN, LCTR), LCTRD
        or              LCTR, LKEY
2:      test            $4, LRK
        jz              4f
        mov             LRK, LCTR
        and             $8, LCTR
        shl             $32, LKEY
        movl            (LIN, LCTR), LCTRD
        or              LCTR, LKEY
4:      test            $8, LRK
        jz              8f
        movq            (LIN), T0
        pinsrq          $1, LKEY, T0
        jmp             9f
8:      movq            LKEY, T0                /* (the upper half zero) */
9:
.endm

/* The LLEN % 16 bytes of T1 to (LOUT), 8, 4, 2 and 1 at a time. Uses LKEY, LCTR, LRK. */
.macro _last_scatter
        mov             LLEN, LRK
        and             $15, LRK
        movq            T1, LKEY
        mov             LOUT, LCTR
        test            $8, LRK
        jz              1f
        mov             LKEY, (LCTR)
        pextrq          $1, T1, LKEY
        add             $8, LCTR
1:      test            $4, LRK
        jz              2f
        movl            %edi, (LCTR)
        shr             $32, LKEY
        add             $4, LCTR
2:      test            $2, LRK
        jz              3f
        movw            %di, (LCTR)
        shr             $16, LKEY
        add             $2, LCTR
3:      test            $1, LRK
        jz              4f
        movb            %dil, (LCTR)
4:
.endm

/* One data block, whole (\partial = 0) or the partial last one: its keystream in \x; seal
 * hashes (and queues at LQS) its output, open its input. */
.macro _last_block enc, x, partial
.if \partial
        _last_gather
.else
        movdqu          (LIN), T0
.endif
.if \enc
        pxor            \x, T0                  /* the output */
.if \partial
        movdqa          T0, T1
        _last_scatter
        lea             .Lpartial_mask(%rip), LTMP
        sub             LRK, LTMP
        movdqu          16(LTMP), T1            /* r bytes of ones */
        pand            T1, T0                  /* the bytes past the end zero */
.else
        movdqu          T0, (LOUT)
.endif
        movdqu          T0, (LQS)
.else
        movdqu          T0, (LQS)               /* the input, zero-padded */
        movdqa          T0, T1
        pxor            \x, T1
.if \partial
        _last_scatter
.else
        movdqu          T1, (LOUT)
.endif
.endif
        pshufb          BSWAP, T0
        _last_hash
        add             $16, LIN
        add             $16, LOUT
        add             $16, LQS
.endm

/* Data block \i (1..7) if there is one (else to \done), its keystream in X\i; LTMP = the whole
 * blocks. */
.macro _last_data enc, i, done
        cmp             $\i, LT
        jb              \done
        cmp             $\i, LTMP
        jb              .Lpartial\@
        _last_block     \enc, X\i, 0
        jmp             .Lnext\@
.Lpartial\@:
        _last_block     \enc, X\i, 1
        jmp             \done
.Lnext\@:
.endm

/* The body of aesfast_aesni_gcm_seal_last (\enc = 1) and _open_last (\layout 0), and of
 * aesfast_vaes_avx2_gcm_seal_last and _open_last (\layout 1: vaes-avx2's table). */
.macro _gcm_last enc, layout
        .set            .Llayout, \layout
        push            %rbx
        push            %rbp
        movdqa          .Lbswap_mask(%rip), BSWAP
        movl            AESFAST_KEY_ROUNDS(LKEY), %r11d
        shl             $4, RKEND
        add             LKEY, RKEND
        movl            AESFAST_MSG_J0+12(LMSG), LTMPD
        bswap           LTMPD
        mov             LDONE, LCTR
        lea             1(LTMP, LCTR), LCTRD    /* J0 + 1 + done, mod 2^32 */
        movdqu          AESFAST_MSG_J0(LMSG), X0
        pxor            (LKEY), X0              /* J0 ^ rk[0]: E(J0)'s, and every block's */
        lea             15(LLEN), LT
        shr             $4, LT                  /* t = ceil(len / 16) */
        cmp             $1, LT
        ja              .Lfour\@
        _last_aes       2
        jmp             .Lhash\@
.Lfour\@:
        cmp             $3, LT
        ja              .Leight\@
        _last_aes       4
        jmp             .Lhash\@
.Leight\@:
        _last_aes       8
.Lhash\@:
        mov             AESFAST_MSG_NQUEUE(LMSG), LTMP
        lea             (LTMP, LT), LQS         /* P + t */
.if \layout
        shl             $4, LQS
        neg             LQS
        lea             240(LHP, LQS), LHP      /* K_(P + t + 1) at 16 (16 - (P + t + 1)) */
.else
        shl             $5, LQS
        add             LQS, LHP                /* K_(P + t + 1) at 32 (P + t) */
.endif
        lea             AESFAST_MSG_QUEUE(LMSG), LQS
        pxor            LO, LO
        pxor            MID, MID
        pxor            HI, HI
        movdqu          AESFAST_MSG_ACC(LMSG), ACCX
        pshufb          BSWAP, ACCX
        test            LTMP, LTMP
        jz              .Ldata\@
.Lqueue\@:
        movdqu          (LQS), T0
        pshufb          BSWAP, T0
        _last_hash
        add             $16, LQS
        dec             LTMP
        jnz             .Lqueue\@
.Ldata\@:
        mov             LLEN, LTMP
        shr             $4, LTMP                /* whole blocks */
.irp i, 1,2,3,4,5,6,7
        _last_data      \enc, \i, .Llens\@
.endr
.Llens\@:
        mov             LDONE, LTMP
        shl             $4, LTMP
        add             LLEN, LTMP
        shl             $3, LTMP
        movq            LTMP, T0                /* [8 data bytes, 8 aadlen]: L reflected */
        mov             AESFAST_MSG_AADLEN(LMSG), LTMP
        shl             $3, LTMP
        pinsrq          $1, LTMP, T0
        _last_hash
        pxor            LO, MID                 /* Karatsuba: MID = middle ^ LO ^ HI */
        pxor            HI, MID
        _ghash_reduce   T0, T1
        pshufb          BSWAP, HI
        pxor            X0, HI                  /* ^ E(J0) */
        movdqu          HI, AESFAST_MSG_TAG(LMSG)
        lea             AESFAST_MSG_QUEUE(LMSG), LTMP
        sub             LTMP, LQS
        shr             $4, LQS
        mov             LQS, AESFAST_MSG_NQUEUE(LMSG)
        pop             %rbp
        pop             %rbx
        ret
.endm

/*
 * void aesfast_aesni_gcm_seal_last(const aesfast_key *key, const aesfast_hash_key *hkey,
 *                                  aesfast_gcm_msg *msg, const uint8_t *in, uint8_t *out,
 *                                  size_t len, size_t done);
 * void aesfast_aesni_gcm_open_last(... the same ...);
 *
 * The end of a message, as above: msg->tag made, the data's hashed blocks queued after the
 * queue's, nqueue counting them. Needs nqueue + ceil(len / 16) + 1 <= 8.
 */
AESFAST_FUNC(aesfast_aesni_gcm_seal_last)
        _gcm_last       1, 0
AESFAST_END(aesfast_aesni_gcm_seal_last)

AESFAST_FUNC(aesfast_aesni_gcm_open_last)
        _gcm_last       0, 0
AESFAST_END(aesfast_aesni_gcm_open_last)

/* The same for the vaes-avx2 tier (its table; groups of 8 blocks, as here). */
AESFAST_FUNC(aesfast_vaes_avx2_gcm_seal_last)
        _gcm_last       1, 1
AESFAST_END(aesfast_vaes_avx2_gcm_seal_last)

AESFAST_FUNC(aesfast_vaes_avx2_gcm_open_last)
        _gcm_last       0, 1
AESFAST_END(aesfast_vaes_avx2_gcm_open_last)
/* ---- GCM-SIV's short messages -------------------------------------------------------------- */

/*
 * A whole message of n <= SIV_SHORT_BLOCKS blocks (AAD, data, lengths block) in one call (see
 * aesfast_kernel.h): the blocks are gathered into the frame as one sequence (AAD, whole data
 * blocks, the last partial block zero-padded, the lengths block; 16-byte stores that the hash's
 * 16-byte loads take from the store buffer), hashed r = n mod 8 blocks first, then 8 at a time,
 * one reduction each (_ghash_var, _ghash_8), against K_1..K_min(n, 8) made in the frame by a
 * tree three multiplies deep instead of a chain. A partial block is read and written as GCM's
 * last blocks are (_last_gather, _last_scatter): nothing outside the buffers is touched. The
 * frame (the sequence, the powers and the counter slots) is wiped before the return.
 */
#define SIV_SHORT_BLOCKS 32
#define SIV_KTAB (16*9)                         /* K_1..K_8 and their Karatsuba words */
#define SIV_SEQ (SIV_KTAB + 256)                /* the blocks to hash, in order */
#define SIV_VARS (SIV_SEQ + 16*SIV_SHORT_BLOCKS)
#define S_KEY (SIV_VARS)(%rsp)                  /* the encryption key */
#define S_MSG (SIV_VARS+8)(%rsp)                /* the aesfast_gcmsiv_msg * */
#define S_N (SIV_VARS+16)(%rsp)                 /* blocks in the sequence */
#define S_M (SIV_VARS+24)(%rsp)                 /* powers made: min(n, 8) */
#define S_R (SIV_VARS+32)(%rsp)                 /* len % 16 */
#define S_NDW (SIV_VARS+40)(%rsp)               /* whole data blocks */
#define SIV_FRAME (SIV_VARS + 48 + 8)           /* 8 mod 16: rsp 16-aligned inside */

        AESFAST_RODATA
        .p2align 4
.Lsiv_msb:                                      /* bit 127: the tag's, as the first counter */
        .quad 0, 0x8000000000000000
.Lsiv_low127:                                   /* all but bit 127: S's */
        .quad -1, 0x7fffffffffffffff
.Lsiv_keep:                                     /* at 16 - r: the mask of r bytes */
        .quad -1, -1, 0, 0
        .text

/* The frame, the arguments saved, and the counts: n, min(n, 8), len % 16, whole data blocks. */
.macro _siv_enter
        sub             $SIV_FRAME, %rsp
        mov             %rdi, S_KEY
        mov             %rsi, S_MSG
        mov             AESFAST_SIV_LEN(%rsi), %rax
        mov             %rax, %rcx
        and             $15, %rcx
        mov             %rcx, S_R
        shr             $4, %rax
        mov             %rax, S_NDW
        add             $15, %rcx
        shr             $4, %rcx                        /* 1 if there is a partial block */
        lea             1(%rax, %rcx), %rax
        add             AESFAST_SIV_NAAD(%rsi), %rax
        mov             %rax, S_N
        mov             $8, %ecx
        cmp             %rcx, %rax
        cmova           %rcx, %rax
        mov             %rax, S_M
.endm

/* HI = \a * \b (the Montgomery product, schoolbook). Clobbers LO, MID, T0-T2. */
.macro _siv_mul a, b
        movdqa          \a, LO
        pclmulqdq       $0x00, \b, LO
        movdqa          \a, HI
        pclmulqdq       $0x11, \b, HI
        movdqa          \a, MID
        pclmulqdq       $0x01, \b, MID
        movdqa          \a, T1
        pclmulqdq       $0x10, \b, T1
        pxor            T1, MID
        _ghash_reduce   T0
.endm

/* K_n = \k into the frame's table, with its Karatsuba word. */
.macro _siv_kstore n, k
        movdqa          \k, HPOW(\n)
        pshufd          $0x4e, \k, T0
        pxor            \k, T0
        movdqa          T0, HKAR(\n)
.endm

/* HTBL = the frame's table, K_1 = H .. K_min(n, 8): K_2; K_3, K_4 from it; K_5..K_8 from K_4.
 * X0-X3 hold K_1..K_4. */
.macro _siv_powers
        lea             SIV_KTAB(%rsp), HTBL
        mov             S_MSG, %rax
        mov             AESFAST_SIV_AUTH(%rax), %rax
        movdqu          (%rax), X0
        _siv_kstore     1, X0
        cmpq            $2, S_M
        jb              .Ldone\@
        _siv_mul        X0, X0
        movdqa          HI, X1
        _siv_kstore     2, X1
        cmpq            $3, S_M
        jb              .Ldone\@
        _siv_mul        X1, X0
        movdqa          HI, X2
        _siv_kstore     3, X2
        cmpq            $4, S_M
        jb              .Ldone\@
        _siv_mul        X1, X1
        movdqa          HI, X3
        _siv_kstore     4, X3
        _siv_power_k4   5, X0, .Ldone\@
        _siv_power_k4   6, X1, .Ldone\@
        _siv_power_k4   7, X2, .Ldone\@
        _siv_power_k4   8, X3, .Ldone\@
.Ldone\@:
.endm

/* K_\n = K_4 (X3) * \k, if S_M asks for it; else on to \done. */
.macro _siv_power_k4 n, k, done
        cmpq            $\n, S_M
        jb              \done
        _siv_mul        X3, \k
        _siv_kstore     \n, HI
.endm

/* \cnt (clobbered) blocks from \src to \dst, both advanced. */
.macro _siv_copy src, dst, cnt
        test            \cnt, \cnt
        jz              .Ldone\@
.Lloop\@:
        movdqu          (\src), T0
        movdqa          T0, (\dst)
        add             $16, \src
        add             $16, \dst
        dec             \cnt
        jnz             .Lloop\@
.Ldone\@:
.endm

/* \dst = the r = S_R (1..15) bytes at \p, zero-padded, by _last_gather (nothing past them is
 * read). Clobbers rax, rcx, rdi, r9, r10, r11 (and T0). */
.macro _siv_load_tail dst, p
        mov             \p, LIN
        mov             S_R, LLEN
        _last_gather
        movdqa          T0, \dst
.endm

/* The r = S_R bytes of \src to \p, by _last_scatter. Clobbers rdi, r8, r9, r10, r11 (and T1). */
.macro _siv_store_tail src, p
        movdqa          \src, T1
        mov             \p, LOUT
        mov             S_R, LLEN
        _last_scatter
.endm

/* The sequence: the AAD blocks, then S_NDW data blocks from \data (a register; clobbered), then
 * (\tail: seal) the partial block from where they end, then the lengths block. */
.macro _siv_gather data, tail
        lea             SIV_SEQ(%rsp), %r11
        mov             S_MSG, %rdx
        mov             AESFAST_SIV_AAD(%rdx), %rax
        mov             AESFAST_SIV_NAAD(%rdx), %r10
        _siv_copy       %rax, %r11, %r10
        mov             S_NDW, %r10
        _siv_copy       \data, %r11, %r10
        cmpq            $0, S_R
        je              .Llens\@
.if \tail
        mov             %r11, %rdx
        _siv_load_tail  T2, \data
        movdqa          T2, (%rdx)
        mov             %rdx, %r11
        mov             S_MSG, %rdx
.endif
        add             $16, %r11                       /* (open: the block is there) */
.Llens\@:
        movq            AESFAST_SIV_AADLEN(%rdx), T0
        pinsrq          $1, AESFAST_SIV_LEN(%rdx), T0
        psllq           $3, T0                          /* the bit lengths, little-endian */
        movdqa          T0, (%r11)
.endm

/* HI = POLYVAL of the sequence: n mod 8 blocks, then 8 at a time. */
.macro _siv_hash
        lea             SIV_KTAB(%rsp), HTBL
        pxor            HI, HI
        lea             SIV_SEQ(%rsp), %r11
        mov             S_N, %r10
        _ghash_var      %r11, %r10, %rax, siv
        shr             $3, %r10
        jz              .Ldone\@
.Lloop\@:
        _ghash_8        0, %r11, siv
        add             $128, %r11
        dec             %r10
        jnz             .Lloop\@
.Ldone\@:
.endm

/* KEY, RKEND. */
.macro _siv_key
        mov             S_KEY, KEY
        movl            ROUNDS_MEM, RKENDD
        shl             $4, RKEND
        add             KEY, RKEND
.endm

/* X0 = AES(X0) except for the first AddRoundKey (done). Needs KEY, RKEND. */
.macro _siv_aes_block
        _aes_long_key_rounds 1, ROUNDS_MEM
.irp j, 9,8,7,6,5,4,3,2,1
        _aesenc_mem     \j, 1
.endr
        movdqu          (RKEND), RKT
        aesenclast      RKT, X0
.endm

/* X0 = the tag from HI = POLYVAL, stored to the message's tag. */
.macro _siv_tag
        mov             S_MSG, %rdx
        mov             AESFAST_SIV_NONCE(%rdx), %rax
        movq            (%rax), T1
        pinsrd          $2, 8(%rax), T1
        pxor            T1, HI
        pand            .Lsiv_low127(%rip), HI
        _siv_key
        movdqa          HI, X0
        pxor            (KEY), X0
        _siv_aes_block
        movdqu          X0, AESFAST_SIV_TAG(%rdx)
.endm

/* CTR over the message's whole data blocks from the tag in X0 (IN, OUT left at the partial
 * block); then X0 = the partial block's keystream. Needs KEY, RKEND. */
.macro _siv_ctr
        por             .Lsiv_msb(%rip), X0             /* the first counter block */
        movd            X0, CTRWD
        pxor            (KEY), X0
        movdqa          X0, IVK_MEM
        mov             S_MSG, %rdx
        mov             AESFAST_SIV_IN(%rdx), IN
        mov             AESFAST_SIV_OUT(%rdx), OUT
        mov             S_NDW, NBLOCKS
        sub             $8, NBLOCKS
        jb              .Ltail\@
.Lloop\@:
        _gcm_ctr_n      siv, 8
        sub             $8, NBLOCKS
        jae             .Lloop\@
.Ltail\@:
        _gcm_ctr_tail   siv
        _ctr_word       0, siv
        movdqa          IVK_MEM, X0
        pinsrd          $0, TW, X0
        _siv_aes_block
.endm

/* The frame wiped (the sequence, the powers, the counter slots) and released. */
.macro _siv_leave
        pxor            T0, T0
        lea             SIV_SEQ(%rsp), %rax
        mov             S_N, %rcx
.Lseq\@:
        movdqa          T0, (%rax)
        add             $16, %rax
        dec             %rcx
        jnz             .Lseq\@
        lea             SIV_KTAB(%rsp), %rax
        mov             S_M, %rcx
.Lkeys\@:
        movdqa          T0, (%rax)
        movdqa          T0, 16(%rax)
        add             $32, %rax
        dec             %rcx
        jnz             .Lkeys\@
.irp i, 0,1,2,3,4,5,6,7,8
        movdqa          T0, SLOT(\i)
.endr
        add             $SIV_FRAME, %rsp
.endm

/*
 * void aesfast_aesni_gcmsiv_seal_short(const aesfast_key *key, aesfast_gcmsiv_msg *m);
 *
 * Seal a whole message (aesfast_kernel.h): the sequence, its POLYVAL, the tag, CTR from it.
 */
AESFAST_FUNC(aesfast_aesni_gcmsiv_seal_short)
        _siv_enter
        mov             AESFAST_SIV_IN(%rsi), %r8
        _siv_gather     %r8, 1
        _siv_powers
        _siv_hash
        _siv_tag
        _siv_ctr
        cmpq            $0, S_R
        je              .Lseal_short_done
        mov             S_MSG, %rdx
        mov             AESFAST_SIV_NAAD(%rdx), %rax
        add             S_NDW, %rax
        shl             $4, %rax
        movdqa          SIV_SEQ(%rsp, %rax), T1         /* the partial block, padded */
        pxor            T1, X0
        _siv_store_tail X0, OUT
.Lseal_short_done:
        _siv_leave
        ret
AESFAST_END(aesfast_aesni_gcmsiv_seal_short)

/*
 * void aesfast_aesni_gcmsiv_open_short(const aesfast_key *key, aesfast_gcmsiv_msg *m);
 *
 * Open a whole message: CTR from the tag received, then the sequence with the plaintext, its
 * POLYVAL, and the tag of that plaintext into the message's tag.
 */
AESFAST_FUNC(aesfast_aesni_gcmsiv_open_short)
        _siv_enter
        _siv_powers
        _siv_key
        mov             S_MSG, %rdx
        movdqu          AESFAST_SIV_TAG(%rdx), X0
        _siv_ctr
        cmpq            $0, S_R
        je              .Lopen_short_gather
        movdqa          X0, X1                          /* the keystream */
        mov             OUT, %rdx
        _siv_load_tail  T2, IN
        mov             %rdx, OUT
        pxor            T2, X1
        mov             S_R, %rax
        lea             .Lsiv_keep(%rip), %rcx
        sub             %rax, %rcx
        movdqu          16(%rcx), T1
        pand            T1, X1                          /* the plaintext, zero-padded */
        mov             S_MSG, %rdx
        mov             AESFAST_SIV_NAAD(%rdx), %rax
        add             S_NDW, %rax
        shl             $4, %rax
        movdqa          X1, SIV_SEQ(%rsp, %rax)
        _siv_store_tail X1, OUT
.Lopen_short_gather:
        mov             S_MSG, %rdx
        mov             AESFAST_SIV_OUT(%rdx), %r8
        _siv_gather     %r8, 0
        _siv_hash
        _siv_tag
        _siv_leave
        ret
AESFAST_END(aesfast_aesni_gcmsiv_open_short)

#endif /* __x86_64__ */
