/*
 * abi_trampoline: call a kernel with known values in every callee-saved register and record what
 * it left behind, so that test/abi_test.c can check the kernels against the platform ABI. The
 * idea is BoringSSL's CHECK_ABI; this is an independent implementation.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 *   uint64_t aesfast_abi_call(void (*fn)(void), const uint64_t args[7], abi_regs *before,
 *                             abi_regs *after, uint64_t skew);
 *
 * loads the callee-saved registers from before, calls fn(args[0], ..., args[6]) with the stack
 * pointer moved down by skew bytes (a multiple of 16, so the kernel sees every 16-byte alignment
 * of a 64-byte line), stores the callee-saved registers as the call left them in after, restores
 * the caller's own values and returns fn's return value. The seventh argument goes where the ABI
 * puts it: on x86-64 on the stack (8(%rsp) on entry, the stack 16-byte aligned at the call, the
 * argument area's other 8 bytes holding its complement, so that reading the wrong slot shows);
 * on arm64 in x6 (x7, no argument, holds its complement too). Above the outgoing arguments, four
 * words of the caller's stack hold the canaries from before; after gets what the callee left
 * there. abi_regs is an array of 64-bit slots:
 *
 *   slot                 x86-64 (System V)              arm64 (AAPCS64)
 *   0 .. NSAVED-1        rbx, rbp, r12-r15              x19-x28, x29 (fp), d8-d15
 *   SP                   after: stack pointer after the return minus before the call (0 if kept)
 *   FLAGS                after: rflags                  (unused)
 *   FPENV                MXCSR | x87 control word << 32 FPCR    (before: the caller's value)
 *   XINUSE               before: 1 = vzeroupper before the call and XGETBV(1) after it;
 *                        after: XINUSE bitmap           (unused)
 *   CALLSP               before: stack pointer at the call instruction
 *   CANARY .. CANARY+3   before: the words above the outgoing arguments; after: as found
 *
 * A kernel that breaks the stack pointer cannot be trusted to find our frame, so the frame's
 * address is kept in a static word: the trampoline is not reentrant (abi_test is one thread).
 *
 * The aesfast_abi_bad_* functions each break one rule, to show that abi_test notices;
 * aesfast_abi_good breaks none while using callee-saved registers the legal way.
 *
 * Only ELF targets: abi_test exits 77 elsewhere.
 */

#include "asm_base.h"

#if defined(__ELF__) && defined(__x86_64__)

#define NSAVED  6
#define SP      (8 * (NSAVED + 0))
#define FLAGS   (8 * (NSAVED + 1))
#define FPENV   (8 * (NSAVED + 2))
#define XINUSE  (8 * (NSAVED + 3))
#define CALLSP  (8 * (NSAVED + 4))
#define CANARY  (8 * (NSAVED + 5))
#define OUTGOING 48     /* at the call: argument 7, its complement, the 4 canary words */

/* Our frame, from the stack pointer saved in .Lframe: */
#define F_FPENV  0      /* the caller's MXCSR (4 bytes) and x87 control word (2 bytes) */
#define F_SKEW   16
#define F_BEFORE 24
#define F_AFTER  32     /* then r15, r14, r13, r12, rbx, rbp and the return address */

        .data
        .p2align 3
.Lframe:
        .quad   0

AESFAST_FUNC(aesfast_abi_call)
        /* rdi fn, rsi args, rdx before, rcx after, r8 skew. On entry rsp = 8 mod 16. */
        push    %rbp
        push    %rbx
        push    %r12
        push    %r13
        push    %r14
        push    %r15
        push    %rcx
        push    %rdx
        push    %r8
        sub     $16, %rsp                       /* 9 pushes + 16: rsp = 0 mod 16 again */
        stmxcsr F_FPENV(%rsp)
        fnstcw  F_FPENV+4(%rsp)
        mov     %rsp, .Lframe(%rip)

        mov     %rdi, %rax                      /* free the argument registers */
        mov     %rsi, %r10
        mov     %rdx, %r11
        movl    F_FPENV(%rsp), %r9d             /* the caller's MXCSR... */
        movzwl  F_FPENV+4(%rsp), %ecx           /* ...and x87 control word... */
        shl     $32, %rcx
        or      %rcx, %r9
        mov     %r9, FPENV(%r11)                /* ...are what the callee must give back */
        sub     %r8, %rsp
        sub     $OUTGOING, %rsp                 /* a multiple of 16: aligned at the call */
        mov     %rsp, CALLSP(%r11)
        mov     48(%r10), %rdi
        mov     %rdi, 0(%rsp)                   /* argument 7: 8(%rsp) on the callee's entry */
        not     %rdi
        mov     %rdi, 8(%rsp)                   /* the rest of the argument area */
        mov     CANARY+0(%r11), %rdi
        mov     %rdi, 16(%rsp)
        mov     CANARY+8(%r11), %rdi
        mov     %rdi, 24(%rsp)
        mov     CANARY+16(%r11), %rdi
        mov     %rdi, 32(%rsp)
        mov     CANARY+24(%r11), %rdi
        mov     %rdi, 40(%rsp)
        testb   $1, XINUSE(%r11)
        jz      1f
        vzeroupper                              /* clean upper state, so XINUSE shows the callee's */
1:
        mov     0(%r11), %rbx
        mov     8(%r11), %rbp
        mov     16(%r11), %r12
        mov     24(%r11), %r13
        mov     32(%r11), %r14
        mov     40(%r11), %r15
        mov     0(%r10), %rdi
        mov     8(%r10), %rsi
        mov     16(%r10), %rdx
        mov     24(%r10), %rcx
        mov     32(%r10), %r8
        mov     40(%r10), %r9
        call    *%rax

        /* Trust nothing but the static word: rsp and callee-saved registers may be wrong. Only
         * movs until pushfq has the flags; the canaries are copied before pushfq, which could
         * overwrite them (they lie below the frame). */
        mov     %rsp, %r11
        mov     .Lframe(%rip), %rsp
        mov     F_BEFORE(%rsp), %rsi
        mov     CALLSP(%rsi), %rdx
        mov     F_AFTER(%rsp), %rdi
        mov     16(%rdx), %rcx
        mov     %rcx, CANARY+0(%rdi)
        mov     24(%rdx), %rcx
        mov     %rcx, CANARY+8(%rdi)
        mov     32(%rdx), %rcx
        mov     %rcx, CANARY+16(%rdi)
        mov     40(%rdx), %rcx
        mov     %rcx, CANARY+24(%rdi)
        pushfq
        pop     %r10
        cld                                     /* the caller expects DF = 0 whatever fn did */
        mov     %r10, FLAGS(%rdi)
        sub     %rdx, %r11                      /* rsp after - rsp at the call */
        mov     %r11, SP(%rdi)
        mov     %rbx, 0(%rdi)
        mov     %rbp, 8(%rdi)
        mov     %r12, 16(%rdi)
        mov     %r13, 24(%rdi)
        mov     %r14, 32(%rdi)
        mov     %r15, 40(%rdi)
        stmxcsr FPENV(%rdi)
        fnstcw  FPENV+4(%rdi)
        movw    $0, FPENV+6(%rdi)               /* (fnstcw stores only 2 of the 4 bytes) */
        ldmxcsr F_FPENV(%rsp)                   /* give the caller its own back */
        fldcw   F_FPENV+4(%rsp)

        testb   $1, XINUSE(%rsi)
        jz      2f
        mov     %rax, %r8                       /* XGETBV writes edx:eax */
        mov     $1, %ecx
        xgetbv                                  /* XINUSE: state components not in init state */
        shl     $32, %rdx
        mov     %eax, %eax
        or      %rdx, %rax
        mov     %rax, XINUSE(%rdi)
        mov     %r8, %rax
        vzeroupper
2:
        add     $40, %rsp                       /* the 16-byte slot and r8, rdx, rcx */
        pop     %r15
        pop     %r14
        pop     %r13
        pop     %r12
        pop     %rbx
        pop     %rbp
        ret
AESFAST_END(aesfast_abi_call)

/* uint64_t aesfast_abi_good(a0, ..., a6): a0 ^ rol(a1, 8) ^ rol(a2, 16) ^ ... ^ rol(a6, 48),
 * computed in callee-saved registers that it saves and restores, with the caller-saved ones, its
 * own stack argument and the stack's alignment left as a kernel may leave them. */
AESFAST_FUNC(aesfast_abi_good)
        push    %rbx
        push    %rbp
        push    %r12                            /* rsp = 0 mod 16 */
        mov     %rdi, %rbx
        mov     %rsi, %rbp
        rol     $8, %rbp
        xor     %rbp, %rbx
        mov     %rdx, %r12
        rol     $16, %r12
        xor     %r12, %rbx
        rol     $24, %rcx
        xor     %rcx, %rbx
        rol     $32, %r8
        xor     %r8, %rbx
        rol     $40, %r9
        xor     %r9, %rbx
        mov     32(%rsp), %r10                  /* argument 7, past the 3 pushes and the return */
        rol     $48, %r10
        xor     %r10, %rbx
        mov     %rbx, %rax
        movq    $-1, 32(%rsp)                   /* the callee owns its stack arguments */
        mov     $-1, %r9                        /* caller-saved: anything goes */
        mov     $-1, %r10
        mov     $-1, %r11
        pcmpeqd %xmm15, %xmm15
        pop     %r12
        pop     %rbp
        pop     %rbx
        ret
AESFAST_END(aesfast_abi_good)

/* Flips bit 0 of rbx. */
AESFAST_FUNC(aesfast_abi_bad_gpr)
        xor     $1, %rbx
        ret
AESFAST_END(aesfast_abi_bad_gpr)

/* Returns with rsp 16 bytes low, through a real ret so that a shadow stack stays balanced. */
AESFAST_FUNC(aesfast_abi_bad_sp)
        mov     (%rsp), %rax
        sub     $16, %rsp
        mov     %rax, (%rsp)
        ret
AESFAST_END(aesfast_abi_bad_sp)

/* Flips bit 0 of the caller's stack word just above the 16-byte argument area (argument 7 and
 * its padding), which belongs to the caller. */
AESFAST_FUNC(aesfast_abi_bad_stack)
        xorq    $1, 24(%rsp)
        ret
AESFAST_END(aesfast_abi_bad_stack)

/* Returns with the direction flag set. */
AESFAST_FUNC(aesfast_abi_bad_df)
        std
        ret
AESFAST_END(aesfast_abi_bad_df)

/* Returns with MXCSR's rounding control flipped. */
AESFAST_FUNC(aesfast_abi_bad_mxcsr)
        sub     $8, %rsp
        stmxcsr (%rsp)
        xorl    $0x6000, (%rsp)                 /* RC, bits 13-14 */
        ldmxcsr (%rsp)
        add     $8, %rsp
        ret
AESFAST_END(aesfast_abi_bad_mxcsr)

/* Returns with the x87 precision control changed. */
AESFAST_FUNC(aesfast_abi_bad_x87cw)
        sub     $8, %rsp
        fnstcw  (%rsp)
        xorw    $0x0100, (%rsp)                 /* PC, bits 8-9 */
        fldcw   (%rsp)
        add     $8, %rsp
        ret
AESFAST_END(aesfast_abi_bad_x87cw)

/* Returns with the upper halves of a ymm register dirty (no vzeroupper). Needs AVX. */
AESFAST_FUNC(aesfast_abi_bad_upper)
        vcmpps  $15, %ymm1, %ymm1, %ymm1        /* predicate TRUE: all ones */
        ret
AESFAST_END(aesfast_abi_bad_upper)

#elif defined(__ELF__) && defined(__aarch64__)

#define NSAVED  19
#define SP      (8 * (NSAVED + 0))
#define FLAGS   (8 * (NSAVED + 1))
#define FPENV   (8 * (NSAVED + 2))
#define XINUSE  (8 * (NSAVED + 3))
#define CALLSP  (8 * (NSAVED + 4))
#define CANARY  (8 * (NSAVED + 5))
#define D8      (8 * 11)                        /* slots 0-10: x19-x29; 11-18: d8-d15 */

/* Our frame, from sp (saved in .Lframe): x29/x30 at 0, then: */
#define F_X19    16                             /* x19-x28: 80 bytes */
#define F_D8     96                             /* d8-d15: 64 bytes */
#define F_FPCR   160
#define F_SKEW   168
#define F_BEFORE 176
#define F_AFTER  184
#define F_SIZE   192

/* Return-address signing, when the C code uses it: hint forms, NOPs before ARMv8.3. */
#if defined(__ARM_FEATURE_PAC_DEFAULT) && (__ARM_FEATURE_PAC_DEFAULT & 2)
#define SIGN_LR hint #27                        /* pacibsp */
#define AUTH_LR hint #31                        /* autibsp */
#elif defined(__ARM_FEATURE_PAC_DEFAULT)
#define SIGN_LR hint #25                        /* paciasp */
#define AUTH_LR hint #29                        /* autiasp */
#else
#define SIGN_LR
#define AUTH_LR
#endif

        .data
        .p2align 3
.Lframe:
        .quad   0

AESFAST_FUNC(aesfast_abi_call)
        // x0 fn, x1 args, x2 before, x3 after, x4 skew
        SIGN_LR
        stp     x29, x30, [sp, #-F_SIZE]!
        mov     x29, sp
        stp     x19, x20, [sp, #F_X19]
        stp     x21, x22, [sp, #F_X19 + 16]
        stp     x23, x24, [sp, #F_X19 + 32]
        stp     x25, x26, [sp, #F_X19 + 48]
        stp     x27, x28, [sp, #F_X19 + 64]
        stp     d8, d9, [sp, #F_D8]
        stp     d10, d11, [sp, #F_D8 + 16]
        stp     d12, d13, [sp, #F_D8 + 32]
        stp     d14, d15, [sp, #F_D8 + 48]
        mrs     x9, fpcr
        stp     x9, x4, [sp, #F_FPCR]           // and F_SKEW
        stp     x2, x3, [sp, #F_BEFORE]         // and F_AFTER
        str     x9, [x2, #FPENV]                // what the callee must give back
        adrp    x10, .Lframe
        mov     x11, sp
        str     x11, [x10, :lo12:.Lframe]

        mov     x9, x0                          // free the argument registers
        mov     x10, x1
        mov     x11, x2
        sub     sp, sp, x4
        sub     sp, sp, #32                     // the 4 canary words, just above the callee
        mov     x12, sp
        str     x12, [x11, #CALLSP]
        ldp     x12, x13, [x11, #CANARY]
        stp     x12, x13, [sp]
        ldp     x12, x13, [x11, #CANARY + 16]
        stp     x12, x13, [sp, #16]
        ldp     x19, x20, [x11, #0]
        ldp     x21, x22, [x11, #16]
        ldp     x23, x24, [x11, #32]
        ldp     x25, x26, [x11, #48]
        ldp     x27, x28, [x11, #64]
        ldr     x29, [x11, #80]
        ldp     d8, d9, [x11, #D8]
        ldp     d10, d11, [x11, #D8 + 16]
        ldp     d12, d13, [x11, #D8 + 32]
        ldp     d14, d15, [x11, #D8 + 48]
        ldp     x0, x1, [x10, #0]
        ldp     x2, x3, [x10, #16]
        ldp     x4, x5, [x10, #32]
        ldr     x6, [x10, #48]
        mvn     x7, x6                          // no argument: a kernel reading it gets garbage
        blr     x9

        // Trust nothing but the static word: sp and callee-saved registers may be wrong.
        mov     x9, sp
        adrp    x10, .Lframe
        ldr     x10, [x10, :lo12:.Lframe]
        mov     sp, x10
        ldr     x11, [sp, #F_BEFORE]
        ldr     x11, [x11, #CALLSP]
        ldr     x12, [sp, #F_AFTER]
        sub     x13, x9, x11                    // sp after - sp at the call
        str     x13, [x12, #SP]
        ldp     x14, x15, [x11]                 // the canaries as the callee left them
        stp     x14, x15, [x12, #CANARY]
        ldp     x14, x15, [x11, #16]
        stp     x14, x15, [x12, #CANARY + 16]
        stp     x19, x20, [x12, #0]
        stp     x21, x22, [x12, #16]
        stp     x23, x24, [x12, #32]
        stp     x25, x26, [x12, #48]
        stp     x27, x28, [x12, #64]
        str     x29, [x12, #80]
        stp     d8, d9, [x12, #D8]
        stp     d10, d11, [x12, #D8 + 16]
        stp     d12, d13, [x12, #D8 + 32]
        stp     d14, d15, [x12, #D8 + 48]
        mrs     x13, fpcr
        str     x13, [x12, #FPENV]
        ldr     x13, [sp, #F_FPCR]              // give the caller its own back
        msr     fpcr, x13

        ldp     x19, x20, [sp, #F_X19]
        ldp     x21, x22, [sp, #F_X19 + 16]
        ldp     x23, x24, [sp, #F_X19 + 32]
        ldp     x25, x26, [sp, #F_X19 + 48]
        ldp     x27, x28, [sp, #F_X19 + 64]
        ldp     d8, d9, [sp, #F_D8]
        ldp     d10, d11, [sp, #F_D8 + 16]
        ldp     d12, d13, [sp, #F_D8 + 32]
        ldp     d14, d15, [sp, #F_D8 + 48]
        ldp     x29, x30, [sp], #F_SIZE
        AUTH_LR
        ret
AESFAST_END(aesfast_abi_call)

// uint64_t aesfast_abi_good(a0, ..., a6): a0 ^ rol(a1, 8) ^ rol(a2, 16) ^ ... ^ rol(a6, 48),
// computed in x19 and d8, which it saves and restores; it also writes the upper half of v8 and
// caller-saved registers, which the ABI allows.
AESFAST_FUNC(aesfast_abi_good)
        stp     x19, x20, [sp, #-32]!
        str     d8, [sp, #16]
        ror     x1, x1, #56                     // rol 8
        ror     x2, x2, #48
        ror     x3, x3, #40
        ror     x4, x4, #32
        ror     x5, x5, #24
        ror     x6, x6, #16
        eor     x19, x0, x1
        eor     x19, x19, x2
        fmov    d8, x3
        fmov    x20, d8
        eor     x19, x19, x20
        eor     x19, x19, x4
        eor     x19, x19, x5
        eor     x0, x19, x6
        mov     v8.d[1], x0                     // only d8, the low half, is callee-saved
        mov     x9, #-1
        mov     x17, #-1
        ldr     d8, [sp, #16]
        ldp     x19, x20, [sp], #32
        ret
AESFAST_END(aesfast_abi_good)

// Flips bit 0 of x19.
AESFAST_FUNC(aesfast_abi_bad_gpr)
        eor     x19, x19, #1
        ret
AESFAST_END(aesfast_abi_bad_gpr)

// Flips bit 0 of d8.
AESFAST_FUNC(aesfast_abi_bad_fpr)
        fmov    x9, d8
        eor     x9, x9, #1
        fmov    d8, x9
        ret
AESFAST_END(aesfast_abi_bad_fpr)

// Flips bit 0 of the caller's stack word at sp.
AESFAST_FUNC(aesfast_abi_bad_stack)
        ldr     x9, [sp]
        eor     x9, x9, #1
        str     x9, [sp]
        ret
AESFAST_END(aesfast_abi_bad_stack)

// Returns with sp 16 bytes low.
AESFAST_FUNC(aesfast_abi_bad_sp)
        sub     sp, sp, #16
        ret
AESFAST_END(aesfast_abi_bad_sp)

// Returns with FPCR's rounding mode flipped.
AESFAST_FUNC(aesfast_abi_bad_fpcr)
        mrs     x9, fpcr
        eor     x9, x9, #(3 << 22)              // RMode, bits 22-23
        msr     fpcr, x9
        ret
AESFAST_END(aesfast_abi_bad_fpcr)

#endif
