/* PLACEHOLDER (development only): traps until the armv8 GCM-SIV kernels are written. */
#include "asm_base.h"
#if defined(__aarch64__)
        .text
AESFAST_FUNC(aesfast_armv8_polyval_init)
        brk #0
AESFAST_END(aesfast_armv8_polyval_init)
AESFAST_FUNC(aesfast_armv8_polyval)
        brk #0
AESFAST_END(aesfast_armv8_polyval)
AESFAST_FUNC(aesfast_armv8_gcmsiv_ctr_then_hash)
        brk #0
AESFAST_END(aesfast_armv8_gcmsiv_ctr_then_hash)
AESFAST_FUNC(aesfast_armv8_sha3_polyval)
        brk #0
AESFAST_END(aesfast_armv8_sha3_polyval)
AESFAST_FUNC(aesfast_armv8_sha3_gcmsiv_ctr_then_hash)
        brk #0
AESFAST_END(aesfast_armv8_sha3_gcmsiv_ctr_then_hash)
#endif
