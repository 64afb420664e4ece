/*
 * Snippets for test/vaes_model.py --snippets: each vaes_model_snip_* function loads a state
 * (ymm0-15 from bytes 0..511, rax rcx rdx rsi r8 r9 r10 r11 from 512..575; bytes 576..1023 are
 * memory operands), runs a few instructions of one kind, and stores the registers back. The
 * script runs each on the model and on this CPU from the same random states and compares the
 * states: every VEX instruction form the model knows, with the immediates the kernels use and the
 * edge ones. Test-only (never in the module), so plain global symbols for ctypes.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#if defined(__ELF__)
        .section .note.GNU-stack, "", %progbits
#endif
        .text

.set MEM, 576                   /* the memory part of the state */

.macro SNIP name
        .globl vaes_model_snip_\name
        .type vaes_model_snip_\name, @function
        .p2align 4
vaes_model_snip_\name:
.irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
        vmovdqu         32*\i(%rdi), %ymm\i
.endr
        mov             512(%rdi), %rax
        mov             520(%rdi), %rcx
        mov             528(%rdi), %rdx
        mov             536(%rdi), %rsi
        mov             544(%rdi), %r8
        mov             552(%rdi), %r9
        mov             560(%rdi), %r10
        mov             568(%rdi), %r11
.endm

.macro ENDSNIP name
.irp i, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
        vmovdqu         %ymm\i, 32*\i(%rdi)
.endr
        mov             %rax, 512(%rdi)
        mov             %rcx, 520(%rdi)
        mov             %rdx, 528(%rdi)
        mov             %rsi, 536(%rdi)
        mov             %r8, 544(%rdi)
        mov             %r9, 552(%rdi)
        mov             %r10, 560(%rdi)
        mov             %r11, 568(%rdi)
        vzeroupper
        ret
        .size vaes_model_snip_\name, . - vaes_model_snip_\name
.endm

SNIP clmul
        vpclmulqdq      $0x00, %ymm1, %ymm2, %ymm3
        vpclmulqdq      $0x01, %ymm1, %ymm2, %ymm4
        vpclmulqdq      $0x10, %ymm1, %ymm2, %ymm5
        vpclmulqdq      $0x11, %ymm1, %ymm2, %ymm6
        vpclmulqdq      $0x11, MEM(%rdi), %ymm2, %ymm7
        vpclmulqdq      $0x01, %xmm8, %xmm9, %xmm10
        vpclmulqdq      $0x10, MEM+32(%rdi), %xmm9, %xmm11
        vpclmulqdq      $0x00, %xmm12, %xmm12, %xmm12
        vpclmulqdq      $0x11, %xmm13, %xmm14, %xmm15
        vpclmulqdq      $0x00, %xmm13, %xmm14, %xmm0
        vpclmulqdq      $0x10, %xmm13, %xmm14, %xmm1
ENDSNIP clmul

SNIP clmul_mem
        vpclmulqdq      $0x00, MEM(%rdi), %ymm1, %ymm2
        vpclmulqdq      $0x01, MEM(%rdi), %ymm1, %ymm3
        vpclmulqdq      $0x10, MEM(%rdi), %ymm1, %ymm4
        vpclmulqdq      $0x00, MEM+16(%rdi), %xmm1, %xmm5
        vpclmulqdq      $0x01, MEM+16(%rdi), %xmm1, %xmm6
        vpclmulqdq      $0x11, MEM+16(%rdi), %xmm1, %xmm7
ENDSNIP clmul_mem

SNIP shufb
        vpshufb         %ymm1, %ymm2, %ymm3
        vpshufb         %xmm4, %xmm5, %xmm6
        vpshufb         MEM(%rdi), %ymm7, %ymm8
        vpshufb         MEM+16(%rdi), %xmm9, %xmm10
ENDSNIP shufb

SNIP shufd
        vpshufd         $0x4e, %ymm1, %ymm2
        vpshufd         $0x1b, %ymm3, %ymm4
        vpshufd         $0xb1, %xmm5, %xmm6
        vpshufd         $0x00, %ymm7, %ymm8
        vpshufd         $0xff, MEM(%rdi), %ymm9
        vpshufd         $0x93, %ymm10, %ymm10
ENDSNIP shufd

.irp imm, 0, 4, 8, 15, 16, 20, 31, 32, 200
SNIP palignr\imm
        vpalignr        $\imm, %ymm1, %ymm2, %ymm3
        vpalignr        $\imm, %xmm4, %xmm5, %xmm6
        vpalignr        $\imm, MEM(%rdi), %ymm7, %ymm8
ENDSNIP palignr\imm
.endr

.irp imm, 0, 1, 4, 7, 8, 15, 16, 255
SNIP bshift\imm
        vpsrldq         $\imm, %ymm1, %ymm2
        vpslldq         $\imm, %ymm3, %ymm4
        vpsrldq         $\imm, %xmm5, %xmm6
        vpslldq         $\imm, %xmm7, %xmm8
ENDSNIP bshift\imm
.endr

.irp imm, 0, 1, 7, 31, 32, 57, 63, 64, 255
SNIP shift\imm
        vpsrlq          $\imm, %ymm1, %ymm2
        vpsllq          $\imm, %ymm1, %ymm3
        vpsrld          $\imm, %ymm1, %ymm4
        vpslld          $\imm, %ymm1, %ymm5
        vpsrad          $\imm, %ymm1, %ymm6
        vpsrlq          $\imm, %xmm7, %xmm8
        vpsllq          $\imm, %xmm7, %xmm9
        vpsrad          $\imm, %xmm7, %xmm12
        vpslld          $\imm, %xmm7, %xmm13
        vpsrld          $\imm, %xmm7, %xmm14
        vpsrlw          $\imm, %ymm1, %ymm10
        vpsllw          $\imm, %ymm1, %ymm11
ENDSNIP shift\imm
.endr

SNIP shiftreg
        vmovq           %rcx, %xmm15
        vpsrlq          %xmm15, %ymm1, %ymm2
        vpsllq          %xmm15, %ymm1, %ymm3
        vpslld          %xmm15, %ymm1, %ymm4
        vpsrad          %xmm15, %ymm1, %ymm5
        and             $63, %ecx
        vmovq           %rcx, %xmm14
        vpsrlq          %xmm14, %ymm1, %ymm6
        vpsllq          %xmm14, %ymm1, %ymm7
        vpsrld          %xmm14, %ymm1, %ymm8
ENDSNIP shiftreg

SNIP logic
        vpxor           %ymm1, %ymm2, %ymm3
        vpand           %ymm1, %ymm2, %ymm4
        vpor            %ymm1, %ymm2, %ymm5
        vpandn          %ymm1, %ymm2, %ymm6
        vpxor           %xmm7, %xmm8, %xmm9
        vpxor           MEM(%rdi), %ymm10, %ymm11
        vpandn          MEM(%rdi), %xmm12, %xmm13
        vpand           MEM+16(%rdi), %xmm14, %xmm15
        vpxor           MEM+32(%rdi), %xmm0, %xmm1
        vpor            MEM+48(%rdi), %xmm2, %xmm2
        vpand           MEM(%rdi), %ymm4, %ymm4
ENDSNIP logic

SNIP arith
        vpaddd          %ymm1, %ymm2, %ymm3
        vpaddq          %ymm1, %ymm2, %ymm4
        vpsubd          %ymm1, %ymm2, %ymm5
        vpsubq          %ymm1, %ymm2, %ymm6
        vpaddd          %xmm7, %xmm8, %xmm9
        vpaddd          MEM(%rdi), %ymm10, %ymm11
ENDSNIP arith

SNIP unpack
        vpunpcklqdq     %ymm1, %ymm2, %ymm3
        vpunpckhqdq     %ymm1, %ymm2, %ymm4
        vpunpcklqdq     %xmm5, %xmm6, %xmm7
        vpunpckhqdq     MEM(%rdi), %ymm8, %ymm9
ENDSNIP unpack

.irp imm, 0x00, 0x0f, 0x33, 0xaa, 0xf0, 0xc3, 0xff
SNIP blendd\imm
        vpblendd        $\imm, %ymm1, %ymm2, %ymm3
        vpblendd        $\imm, %xmm4, %xmm5, %xmm6
ENDSNIP blendd\imm
.endr

SNIP lanes
        vinserti128     $0, %xmm1, %ymm2, %ymm3
        vinserti128     $1, %xmm1, %ymm2, %ymm4
        vinserti128     $1, MEM(%rdi), %ymm5, %ymm6
        vextracti128    $0, %ymm7, %xmm8
        vextracti128    $1, %ymm7, %xmm9
        vextracti128    $1, %ymm10, MEM+64(%rdi)
        vextracti128    $0, %ymm11, MEM+100(%rdi)
ENDSNIP lanes

.irp imm, 0x4e, 0x1b, 0xd8, 0x00, 0xff, 0x93
SNIP permq\imm
        vpermq          $\imm, %ymm1, %ymm2
        vpermq          $\imm, MEM(%rdi), %ymm3
ENDSNIP permq\imm
.endr

.irp imm, 0x20, 0x31, 0x02, 0x13, 0x08, 0x80, 0x88, 0x21
SNIP perm2i128_\imm
        vperm2i128      $\imm, %ymm1, %ymm2, %ymm3
ENDSNIP perm2i128_\imm
.endr

SNIP broadcast
        vbroadcasti128  MEM(%rdi), %ymm1
        vpbroadcastq    %xmm2, %ymm3
        vpbroadcastq    %xmm4, %xmm5
        vpbroadcastq    MEM+8(%rdi), %ymm6
        vpbroadcastd    %xmm7, %ymm8
        vpbroadcastd    MEM+4(%rdi), %ymm9
        vpbroadcastb    %xmm10, %ymm11
ENDSNIP broadcast

SNIP moves
        vmovdqu         MEM+3(%rdi), %ymm1
        vmovdqu         %ymm2, MEM+40(%rdi)
        vmovdqu         MEM+7(%rdi), %xmm3
        vmovdqu         %xmm4, MEM+90(%rdi)
        vmovdqu         %ymm5, %ymm6
        vmovdqu         %xmm7, %xmm8
        vmovdqa         %ymm12, %ymm13
        vmovdqa         %xmm14, %xmm15
        lea             MEM+64(%rdi), %rax
        and             $-32, %rax
        vmovdqa         (%rax), %ymm9
        vmovdqa         %ymm10, 32(%rax)
        vmovdqa         16(%rax), %xmm11
        sub             %rdi, %rax              /* not the address: the CPU's and model's differ */
ENDSNIP moves

SNIP scalar
        vmovq           %xmm1, %rax
        vmovq           %rcx, %xmm2
        vmovd           %edx, %xmm3
        vmovd           %xmm4, %esi
        vmovq           MEM+5(%rdi), %xmm5
        vmovq           %xmm6, MEM+33(%rdi)
        vmovq           %xmm7, %xmm8
        vmovd           MEM+9(%rdi), %xmm9
        movq            %xmm10, %r8
        movq            %r9, %xmm11
        vpinsrq         $0, %r10, %xmm12, %xmm13
        vpinsrq         $1, %r10, %xmm12, %xmm14
        vpinsrd         $3, %r11d, %xmm15, %xmm15
        movzbl          MEM+15(%rdi), %ecx      /* a counter block's last byte */
        cmp             $240, %cl
        seta            %dl
        add             $16, %cl
ENDSNIP scalar

SNIP insext
        vpinsrd         $0, %eax, %xmm1, %xmm2
        vpinsrd         $2, MEM(%rdi), %xmm1, %xmm3
        vpinsrq         $1, MEM+8(%rdi), %xmm4, %xmm5
        vpextrq         $1, %xmm6, %rax
        vpextrq         $0, %xmm6, %rcx
        vpextrd         $3, %xmm7, %edx
        vpextrd         $1, %xmm7, %esi
        vpextrq         $1, %xmm8, MEM+48(%rdi)
        vpextrd         $2, %xmm8, MEM+60(%rdi)
ENDSNIP insext

SNIP aes
        vaesenc         %ymm1, %ymm2, %ymm3
        vaesenclast     %ymm1, %ymm2, %ymm4
        vaesenc         %xmm5, %xmm6, %xmm7
        vaesenclast     MEM(%rdi), %ymm8, %ymm9
        vaesenc         MEM(%rdi), %ymm10, %ymm11
ENDSNIP aes

/* The upper halves: a VEX xmm write zeroes bits 128-255, an SSE one keeps them. */
SNIP upper
        vpxor           %xmm1, %xmm1, %xmm1
        vmovdqu         %xmm2, %xmm3
        movq            %rax, %xmm4
        vpaddd          %xmm5, %xmm5, %xmm5
ENDSNIP upper

SNIP bmi2
        bzhi            %rcx, %rax, %rdx
        setc            %sil
        sete            %r8b
        sets            %r9b
        bzhi            %ecx, %eax, %r10d
        movzbl          %cl, %r11d
        shlx            %rcx, %rax, %rcx
        shrx            %rdx, %rsi, %rsi
        sarx            %r10, %r9, %r9
        shlx            %eax, %edx, %edx
ENDSNIP bmi2

.irp n, 0, 1, 2, 15, 16, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256
SNIP bzhi\n
        mov             $\n, %ecx
        bzhi            %rcx, %rax, %rdx
        setc            %sil
        sete            %r8b
        bzhi            %ecx, %eax, %r9d
        setc            %r10b
        shlx            %rcx, %rax, %r11
ENDSNIP bzhi\n
.endr

/* Flags, through setcc and branches: cmp/sub/add/and/test/xor/or on random values. */
.irp op, cmp, sub, add, and, test, xor, or
SNIP flags_\op
        \op             %rcx, %rax
        seto            %dl
        setc            %sil
        sete            %r8b
        sets            %r9b
        setbe           %r10b
        setl            %r11b
        setle           MEM+200(%rdi)
        setg            MEM+201(%rdi)
        seta            MEM+202(%rdi)
        setge           MEM+203(%rdi)
        setns           MEM+204(%rdi)
        \op\()l         %ecx, %eax
        setc            %cl
        seto            MEM+205(%rdi)
        setz            MEM+206(%rdi)
        sets            MEM+207(%rdi)
        \op\()b         %dl, %r9b
        setc            MEM+208(%rdi)
        seto            MEM+209(%rdi)
        setz            MEM+210(%rdi)
        sets            MEM+211(%rdi)
        \op\()q         $-3, MEM+216(%rdi)
        setc            MEM+212(%rdi)
        seto            MEM+213(%rdi)
        setz            MEM+214(%rdi)
        sets            MEM+215(%rdi)
ENDSNIP flags_\op
.endr

/* inc/dec/neg and shifts: flags that they define. */
SNIP flags_incdec
        dec             %rax
        seto            %dl
        sete            %sil
        sets            %r8b
        inc             %ecx
        seto            %r9b
        sete            %r10b
        sets            %r11b
        neg             %rax
        setc            MEM+200(%rdi)
        seto            MEM+201(%rdi)
        sete            MEM+202(%rdi)
        sets            MEM+203(%rdi)
        shl             $5, %rcx
        setc            MEM+204(%rdi)
        sete            MEM+205(%rdi)
        shr             $3, %rax
        setc            MEM+206(%rdi)
        sets            MEM+207(%rdi)
        sar             $1, %r11
        setc            MEM+208(%rdi)
        seto            MEM+209(%rdi)
        shl             %r10
        setc            MEM+210(%rdi)
        seto            MEM+211(%rdi)
        decl            MEM+212(%rdi)
        sete            MEM+216(%rdi)
ENDSNIP flags_incdec

.irp cc, e, ne, b, ae, a, be, l, ge, g, le, s, ns, o, no
SNIP jcc_\cc
        cmp             %rcx, %rax
        mov             $1, %edx
        j\cc            1f
        mov             $2, %edx
1:      sub             $3, %r8
        mov             $1, %esi
        j\cc            2f
        mov             $2, %esi
2:      dec             %r9
        mov             $1, %r10d
        j\cc            3f
        mov             $2, %r10d
3:      test            %r11, %r11
        cmov\cc         %rcx, %r11
ENDSNIP jcc_\cc
.endr

SNIP gpr
        cmp             $37, %rax
        setb            MEM+200(%rdi)
        cmp             $-2, %ecx
        seta            MEM+201(%rdi)
        test            $0x80, %dl
        setnz           MEM+202(%rdi)
        test            $15, %r11
        sete            MEM+203(%rdi)
        jmp             1f
        mov             $5, %rax
1:
        lea             16(%rax,%rcx,8), %rdx
        lea             -0x40(%rcx), %rsi
        lea             (,%r8,4), %r9
        lea             (%r9,%r10), %r10d
        movabs          $0x123456789abcdef0, %r11
        imul            $24, %r8, %r8
        seto            MEM+204(%rdi)
        imul            $-7, %r9, %r9
        setc            MEM+205(%rdi)
        imul            %rcx, %rax
        not             %ecx
        movslq          %edx, %rcx
        movzwl          %si, %esi
        mov             %r11d, %r11d
        add             $0x12345, %r11
        sub             $-1, %rsi
        push            %rax
        push            %rdx
        pop             %rax
        pop             %rdx
ENDSNIP gpr
        cmp             $37, %rax
        setb            MEM+200(%rdi)
        cmp             $-2, %ecx
        seta            MEM+201(%rdi)
        test            $0x80, %dl
        setnz           MEM+202(%rdi)
        test            $15, %r11
        sete            MEM+203(%rdi)
        jmp             1f
        mov             $5, %rax
1:

/*
 * The checker's own test: functions that break one rule each (and two that keep them at the
 * edge), which the model must reject (or accept). Never run on the CPU: the AVX-512 ones could
 * not. Called as f(in, out) with a read-only in[64] and a write-only out[64], both misaligned.
 */
.macro CHECK name
        .globl vaes_model_check_\name
        .type vaes_model_check_\name, @function
        .p2align 4
vaes_model_check_\name:
.endm

CHECK fault_overread                    /* one byte past in */
        vmovdqu         33(%rdi), %ymm0
        vzeroupper
        ret
CHECK fault_underread
        vmovdqu         -1(%rdi), %xmm0
        ret
CHECK fault_write_in                    /* in is read-only */
        vmovdqu         %xmm0, (%rdi)
        ret
CHECK fault_read_out_first              /* out may be read only after this call wrote it */
        vmovdqu         (%rsi), %xmm0
        ret
CHECK ok_read_out_after
        vmovdqu         %xmm1, 16(%rsi)
        vmovdqu         16(%rsi), %xmm0
        ret
CHECK fault_aligned                     /* in is misaligned */
        vmovdqa         (%rdi), %xmm0
        ret
CHECK fault_masked_overread             /* 65 bytes selected */
        mov             $-1, %rax
        kmovq           %rax, %k1
        vmovdqu8        1(%rdi), %zmm0{%k1}{z}
        vzeroupper
        ret
CHECK ok_masked_edge                    /* in+1..in+63 selected, the 64th byte suppressed */
        mov             $-1, %rax
        mov             $63, %ecx
        bzhi            %rcx, %rax, %rax
        kmovq           %rax, %k1
        vmovdqu8        1(%rdi), %zmm0{%k1}{z}
        vmovdqu8        %zmm0, 1(%rsi){%k1}
        vzeroupper
        ret
CHECK fault_masked_overwrite
        mov             $3, %eax
        kmovq           %rax, %k1
        vmovdqu64       %zmm0, 56(%rsi){%k1}
        vzeroupper
        ret
CHECK fault_rbx                         /* callee-saved */
        mov             $1, %ebx
        ret
CHECK fault_r12
        add             $1, %r12
        ret
CHECK fault_rsp
        push            %rax
        ret
CHECK fault_no_vzeroupper
        vpxor           %ymm0, %ymm0, %ymm1
        ret
CHECK ok_vzeroupper_zmm16               /* zmm16-31 need no VZEROUPPER */
        vpxord          %zmm16, %zmm16, %zmm17
        ret
CHECK fault_stack_arg                   /* f(in, out) has no stack arguments */
        mov             8(%rsp), %rax
        ret
CHECK fault_undefined_flags             /* shl by 8 leaves OF undefined */
        shl             $8, %rax
        jo              1f
1:      ret
CHECK ct_branch_on_data
        movzbl          (%rdi), %eax
        test            $1, %al
        jz              1f
        nop
1:      ret
CHECK ct_index_by_data
        movzbl          (%rdi), %eax
        and             $31, %eax
        vmovdqu         (%rdi,%rax,1), %xmm0
        ret
CHECK ct_mask_from_data                 /* a mask from data: the selected addresses differ */
        mov             (%rdi), %rax
        kmovq           %rax, %k1
        vmovdqu8        (%rdi), %zmm0{%k1}{z}
        vzeroupper
        ret
CHECK ok_ct_data_flow                   /* data through registers and memory only */
        vmovdqu         (%rdi), %ymm0
        vpclmulqdq      $0x11, %ymm0, %ymm0, %ymm1
        vpxor           %ymm1, %ymm0, %ymm0
        vmovdqu         %ymm0, (%rsi)
        mov             (%rdi), %rax
        imul            %rax, %rax
        mov             %rax, 32(%rsi)
        vzeroupper
        ret
