/*
 * Macros shared by the ARMv8 Crypto Extensions kernels (armv8.S: CTR; gcm_armv8.S: GCM and
 * GCM-SIV). Included by assembly files only, after asm_base.h and after the including file has
 * named the registers the macros use: BLK0..BLK7 (the blocks in flight, then their keystream),
 * INP and OUTP (the input and output pointers).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#ifndef AESFAST_ARMV8_MACROS_H
#define AESFAST_ARMV8_MACROS_H

/* One full round with round key \k on block \b; the pair fuses on cores that fuse AESE+AESMC. */
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

/*
 * _xor_store_tail rem, t: the last 1..7 blocks of a CTR pass. BLK0..BLK(rem-1) hold their
 * keystream; out = in ^ keystream for a group of 4, of 2 and of 1 as the bits of \rem say,
 * moving the keystream of the blocks left down to BLK0. \t names four scratch registers \t\()0
 * .. \t\()3. INP and OUTP advance past what was done.
 */
.macro _xor_store_tail rem, t
        tbz     \rem, #2, .Ltail2\@
        ld1     {\t\()0.16b-\t\()3.16b}, [INP], #64
        eor     \t\()0.16b, \t\()0.16b, BLK0.16b
        eor     \t\()1.16b, \t\()1.16b, BLK1.16b
        eor     \t\()2.16b, \t\()2.16b, BLK2.16b
        eor     \t\()3.16b, \t\()3.16b, BLK3.16b
        st1     {\t\()0.16b-\t\()3.16b}, [OUTP], #64
        mov     BLK0.16b, BLK4.16b
        mov     BLK1.16b, BLK5.16b
        mov     BLK2.16b, BLK6.16b
        mov     BLK3.16b, BLK7.16b
.Ltail2\@:
        tbz     \rem, #1, .Ltail1\@
        ld1     {\t\()0.16b, \t\()1.16b}, [INP], #32
        eor     \t\()0.16b, \t\()0.16b, BLK0.16b
        eor     \t\()1.16b, \t\()1.16b, BLK1.16b
        st1     {\t\()0.16b, \t\()1.16b}, [OUTP], #32
        mov     BLK0.16b, BLK2.16b
        mov     BLK1.16b, BLK3.16b
.Ltail1\@:
        tbz     \rem, #0, .Ltail_done\@
        ld1     {\t\()0.16b}, [INP], #16
        eor     \t\()0.16b, \t\()0.16b, BLK0.16b
        st1     {\t\()0.16b}, [OUTP], #16
.Ltail_done\@:
.endm

#endif /* AESFAST_ARMV8_MACROS_H */
