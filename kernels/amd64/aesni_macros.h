/*
 * AES round macros shared by the AES-NI kernels (aesni.S: CTR; gcm_aesni.S: GCM and GCM-SIV).
 * Included by assembly files only, after asm_base.h and after the including file has named the
 * registers the macros use: X0..X7 (the blocks in flight), RKT (a round key loaded for one
 * round) and RKEND (&rk[16 * rounds], the last round key).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * Round keys are addressed from the end of the schedule, so AES-128/192/256 share one sequence
 * and differ only in where they enter it: _aes_long_key_rounds does the rounds only AES-192 and
 * AES-256 have, and each kernel then runs the nine rounds all key sizes share in its own way
 * (with round keys in registers, or with a hash step after each).
 */
#ifndef AESFAST_AESNI_MACROS_H
#define AESFAST_AESNI_MACROS_H

/* One AES round with round key \key on blocks X0..X(\n-1). */
.macro _aesenc_n key, n
.irp i, 0,1,2,3,4,5,6,7
.if \i < \n
        aesenc          \key, X\i
.endif
.endr
.endm

/* One AES round with the round key \j places before the last one, loaded from memory. */
.macro _aesenc_mem j, n
        movdqu          -16*\j(RKEND), RKT
        _aesenc_n       RKT, \n
.endm

/* AES-256's rounds with the round keys RKEND-13 .. RKEND-10, AES-192's with RKEND-11 and
 * RKEND-10, none for AES-128. \rounds is the round count (10, 12 or 14) in a register or in
 * memory; the branch depends on it only. */
.macro _aes_long_key_rounds n, rounds
        cmpl            $12, \rounds
        jb              .Lrounds128\@
        je              .Lrounds192\@
        _aesenc_mem     13, \n
        _aesenc_mem     12, \n
.Lrounds192\@:
        _aesenc_mem     11, \n
        _aesenc_mem     10, \n
.Lrounds128\@:
.endm

#endif /* AESFAST_AESNI_MACROS_H */
