/* PLACEHOLDER (development only): traps until the AES-NI GCM kernels are written. */
#include "asm_base.h"
#if defined(__x86_64__)
        .text
.irp f, ghash_init, ghash, gcm_ctr_then_hash, gcm_hash_then_ctr
AESFAST_FUNC(aesfast_aesni_\f)
        ud2
AESFAST_END(aesfast_aesni_\f)
.endr
#endif
