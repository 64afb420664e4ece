/* PLACEHOLDER (development only): traps until the vaes GCM-SIV kernels are written. */
#include "asm_base.h"
#if defined(__x86_64__)
        .text
AESFAST_FUNC(aesfast_vaes_avx2_ctr32le_xor)
        ud2
AESFAST_END(aesfast_vaes_avx2_ctr32le_xor)
AESFAST_FUNC(aesfast_vaes_avx2_polyval_init)
        ud2
AESFAST_END(aesfast_vaes_avx2_polyval_init)
AESFAST_FUNC(aesfast_vaes_avx2_polyval)
        ud2
AESFAST_END(aesfast_vaes_avx2_polyval)
AESFAST_FUNC(aesfast_vaes_avx2_gcmsiv_ctr_then_hash)
        ud2
AESFAST_END(aesfast_vaes_avx2_gcmsiv_ctr_then_hash)
AESFAST_FUNC(aesfast_vaes_avx512_ctr32le_xor)
        ud2
AESFAST_END(aesfast_vaes_avx512_ctr32le_xor)
AESFAST_FUNC(aesfast_vaes_avx512_polyval_init)
        ud2
AESFAST_END(aesfast_vaes_avx512_polyval_init)
AESFAST_FUNC(aesfast_vaes_avx512_polyval)
        ud2
AESFAST_END(aesfast_vaes_avx512_polyval)
AESFAST_FUNC(aesfast_vaes_avx512_gcmsiv_ctr_then_hash)
        ud2
AESFAST_END(aesfast_vaes_avx512_gcmsiv_ctr_then_hash)
#endif
