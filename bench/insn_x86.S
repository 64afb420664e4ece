/*
 * Instruction loops for build/bench/kernels --insn: the issue cost of the instructions the GCM
 * kernels are made of, on the CPU at hand, for the port-limit column of the kernel table.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * Each function is void f(uint64_t iters): iters passes over a body of 48 instructions (16 for
 * a latency chain), with a dec/jnz that the core runs beside them on an integer port. A
 * throughput body cycles through 12 destination registers that nothing reads back (12 chains in
 * flight: more than latency times issue rate for anything here), a mix body interleaves
 * independent instructions of two or three kinds, and a latency body is one dependent chain.
 * bench/kernels.c times them and divides by the core clock it estimated: cycles per instruction
 * (throughput: the inverse of the issue rate).
 *
 * Registers: zmm0-zmm11 (or their ymm/xmm halves) are the destinations, zmm12-zmm15 the
 * sources; zmm16-zmm31 are not used, so the 256-bit and 128-bit loops touch no EVEX state.
 * Every function ends with VZEROUPPER. The caller checks the CPU features (kernels.c runs the
 * zmm loops only where the vaes-avx512 tier is usable, the ymm ones where vaes-avx2 is).
 */
#include "asm_base.h"

#if defined(__x86_64__)

/* The operations; \d is the destination number, which also selects the mix's kind. */
.macro _op_vaesenc w, d
        vaesenc         %\w\()mm12, %\w\()mm\d, %\w\()mm\d
.endm
.macro _op_vpclmulqdq w, d
        vpclmulqdq      $0x01, %\w\()mm12, %\w\()mm13, %\w\()mm\d
.endm
.macro _op_vpxor w, d
.ifc \w, z
        vpxord          %zmm12, %zmm13, %zmm\d
.else
        vpxor           %\w\()mm12, %\w\()mm13, %\w\()mm\d
.endif
.endm
.macro _op_vpternlogd w, d
        vpternlogd      $0x96, %\w\()mm12, %\w\()mm13, %\w\()mm\d
.endm
.macro _op_vpshufb w, d
        vpshufb         %\w\()mm12, %\w\()mm13, %\w\()mm\d
.endm
.macro _op_vpshufd w, d
        vpshufd         $0x4e, %\w\()mm13, %\w\()mm\d
.endm
.macro _op_vpaddd w, d
        vpaddd          %\w\()mm12, %\w\()mm13, %\w\()mm\d
.endm
/* A load-op: the XOR with a memory operand (64 aligned bytes of the red zone, at %rax). */
.macro _op_vpxor_mem w, d
.ifc \w, z
        vpxord          (%rax), %zmm13, %zmm\d
.else
        vpxor           (%rax), %\w\()mm13, %\w\()mm\d
.endif
.endm
/* Mixes: even destinations one kind, odd the other (1:1); or thirds (1:1:1). */
.macro _op_mix w, d, a, b, c
.ifb \c
.if \d % 2
        _op_\b          \w, \d
.else
        _op_\a          \w, \d
.endif
.elseif \d % 3 == 0
        _op_\a          \w, \d
.elseif \d % 3 == 1
        _op_\b          \w, \d
.else
        _op_\c          \w, \d
.endif
.endm
.macro _op_aes_clmul w, d
        _op_mix         \w, \d, vaesenc, vpclmulqdq
.endm
.macro _op_aes_xor w, d
        _op_mix         \w, \d, vaesenc, vpxor
.endm
.macro _op_clmul_xor w, d
        _op_mix         \w, \d, vpclmulqdq, vpxor
.endm
.macro _op_aes_clmul_xor w, d
        _op_mix         \w, \d, vaesenc, vpclmulqdq, vpxor
.endm
.macro _op_aes_shufb w, d
        _op_mix         \w, \d, vaesenc, vpshufb
.endm
.macro _op_clmul_shufb w, d
        _op_mix         \w, \d, vpclmulqdq, vpshufb
.endm

/* Throughput loop \name: 48 instructions of _op_\op at width \w, 12 destinations round robin. */
.macro _tput name, op, w
AESFAST_FUNC(bench_insn_\name)
        vpxor           %xmm12, %xmm12, %xmm12
        vpcmpeqd        %xmm13, %xmm13, %xmm13
        lea             -128(%rsp), %rax
        and             $-64, %rax
        .p2align 5
1:
.irp i, 0,1,2,3,4,5,6,7,8,9,10,11, 0,1,2,3,4,5,6,7,8,9,10,11, 0,1,2,3,4,5,6,7,8,9,10,11, 0,1,2,3,4,5,6,7,8,9,10,11
        _op_\op        \w, \i
.endr
        dec             %rdi
        jnz             1b
        vzeroupper
        ret
AESFAST_END(bench_insn_\name)
.endm

/* Latency loop \name: 16 instructions, each reading the previous one's result. */
.macro _lat name, w, kind
AESFAST_FUNC(bench_insn_\name)
        vpxor           %xmm0, %xmm0, %xmm0
        vpcmpeqd        %xmm13, %xmm13, %xmm13
        .p2align 5
1:
.rept 16
.ifc \kind, vaesenc
        vaesenc         %\w\()mm13, %\w\()mm0, %\w\()mm0
.endif
.ifc \kind, vpclmulqdq
        vpclmulqdq      $0x01, %\w\()mm13, %\w\()mm0, %\w\()mm0
.endif
.ifc \kind, vpxor
.ifc \w, z
        vpxord          %zmm13, %zmm0, %zmm0
.else
        vpxor           %\w\()mm13, %\w\()mm0, %\w\()mm0
.endif
.endif
.ifc \kind, vpternlogd
        vpternlogd      $0x96, %\w\()mm13, %\w\()mm13, %\w\()mm0
.endif
.endr
        dec             %rdi
        jnz             1b
        vzeroupper
        ret
AESFAST_END(bench_insn_\name)
.endm

/* The loop names are <what>_<width>; bench/kernels.c lists them in the same order. */
.irp w, x, y, z
        _tput           vaesenc_\w, vaesenc, \w
        _tput           vpclmulqdq_\w, vpclmulqdq, \w
        _tput           vpxor_\w, vpxor, \w
        _tput           vpxor_mem_\w, vpxor_mem, \w
        _tput           vpshufb_\w, vpshufb, \w
        _tput           vpshufd_\w, vpshufd, \w
        _tput           vpaddd_\w, vpaddd, \w
        _tput           aes_clmul_\w, aes_clmul, \w
        _tput           aes_xor_\w, aes_xor, \w
        _tput           clmul_xor_\w, clmul_xor, \w
        _tput           aes_clmul_xor_\w, aes_clmul_xor, \w
        _tput           aes_shufb_\w, aes_shufb, \w
        _tput           clmul_shufb_\w, clmul_shufb, \w
        _lat            lat_vaesenc_\w, \w, vaesenc
        _lat            lat_vpclmulqdq_\w, \w, vpclmulqdq
        _lat            lat_vpxor_\w, \w, vpxor
.endr
        _tput           vpternlogd_y, vpternlogd, y
        _tput           vpternlogd_z, vpternlogd, z
        _lat            lat_vpternlogd_z, z, vpternlogd

#endif /* __x86_64__ */
