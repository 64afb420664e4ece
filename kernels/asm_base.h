/*
 * Assembler hygiene shared by every .S file in kernels/: a non-executable stack, CET (x86-64) and
 * BTI (arm64) landing pads with their GNU property notes, and function entry/exit macros that keep
 * every kernel symbol hidden (the module exports only OSSL_provider_init).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#ifndef AESFAST_ASM_BASE_H
#define AESFAST_ASM_BASE_H

#include "aesfast_kernel.h"

#if defined(__ELF__)
        .section .note.GNU-stack, "", %progbits
#endif

#if defined(__x86_64__)
/* endbr64 decodes as a NOP on CPUs without CET, so it is always emitted. */
#define AESFAST_LANDING_PAD endbr64
#define AESFAST_FUNC_ALIGN .p2align 5
/* GNU_PROPERTY_X86_FEATURE_1_AND: IBT (bit 0) | SHSTK (bit 1). The kernels are leaf functions that
 * return with a plain ret, so both hold. Emitted only when the C code is built with CET too, since
 * the linker keeps a property only if every object has it. */
#if defined(__CET__)
#define AESFAST_GNU_PROPERTY_TYPE 0xc0000002
#define AESFAST_GNU_PROPERTY_VALUE 3
#endif
#elif defined(__aarch64__)
/* "bti c" is hint #34: a NOP before ARMv8.5. Spelled as a hint so any assembler takes it. */
#define AESFAST_LANDING_PAD hint #34
#define AESFAST_FUNC_ALIGN .p2align 6
/* GNU_PROPERTY_AARCH64_FEATURE_1_AND: BTI (bit 0). The kernels never spill the link register, so
 * return-address signing has nothing to protect and PAC (bit 1) is claimed only when the
 * compiler claims it for the C code too. */
#if defined(__ARM_FEATURE_BTI_DEFAULT)
#define AESFAST_GNU_PROPERTY_TYPE 0xc0000000
#if defined(__ARM_FEATURE_PAC_DEFAULT)
#define AESFAST_GNU_PROPERTY_VALUE 3
#else
#define AESFAST_GNU_PROPERTY_VALUE 1
#endif
#endif
#endif

#if defined(__ELF__)
#define AESFAST_FUNC(name)                                                                     \
        .text;                                                                                 \
        .globl name;                                                                           \
        .hidden name;                                                                          \
        .type name, %function;                                                                 \
        AESFAST_FUNC_ALIGN;                                                                    \
        name:                                                                                  \
        AESFAST_LANDING_PAD
#define AESFAST_END(name) .size name, . - name
#else /* Mach-O: leading underscore, no .type/.size */
#define AESFAST_FUNC(name)                                                                     \
        .text;                                                                                 \
        .globl _##name;                                                                        \
        .private_extern _##name;                                                               \
        AESFAST_FUNC_ALIGN;                                                                    \
        _##name:                                                                               \
        AESFAST_LANDING_PAD
#define AESFAST_END(name)
#endif

/* Read-only constants go here, so the text section stays free of data and relocations. */
#if defined(__ELF__)
#define AESFAST_RODATA .section .rodata
#else
#define AESFAST_RODATA .section __TEXT,__const
#endif

#if defined(__ELF__) && defined(AESFAST_GNU_PROPERTY_TYPE)
        .pushsection .note.gnu.property, "a"
        .p2align 3
        .long 4                                 /* n_namesz: "GNU\0" */
        .long 16                                /* n_descsz: one 8-byte-aligned property */
        .long 5                                 /* n_type: NT_GNU_PROPERTY_TYPE_0 */
        .asciz "GNU"
        .long AESFAST_GNU_PROPERTY_TYPE         /* pr_type */
        .long 4                                 /* pr_datasz */
        .long AESFAST_GNU_PROPERTY_VALUE        /* pr_data */
        .p2align 3
        .popsection
#endif

#endif /* AESFAST_ASM_BASE_H */
