/* PLACEHOLDER (development only): traps until the aesni GCM-SIV kernels are written. */
#include "asm_base.h"
#if defined(__x86_64__)
        .text
AESFAST_FUNC(aesfast_aesni_ctr32le_xor)
        ud2
AESFAST_END(aesfast_aesni_ctr32le_xor)
AESFAST_FUNC(aesfast_aesni_polyval_init)
        ud2
AESFAST_END(aesfast_aesni_polyval_init)
AESFAST_FUNC(aesfast_aesni_polyval)
        ud2
AESFAST_END(aesfast_aesni_polyval)
AESFAST_FUNC(aesfast_aesni_gcmsiv_ctr_then_hash)
        ud2
AESFAST_END(aesfast_aesni_gcmsiv_ctr_then_hash)
#endif
