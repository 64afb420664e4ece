/* PLACEHOLDER (development only): traps until the VAES GCM kernels are written. */
#include "asm_base.h"
#if defined(__x86_64__)
        .text
.irp t, vaes_avx2, vaes_avx512
.irp f, ghash_init, ghash, gcm_ctr_then_hash, gcm_hash_then_ctr
AESFAST_FUNC(aesfast_\t\()_\f)
        ud2
AESFAST_END(aesfast_\t\()_\f)
.endr
.endr
#endif
