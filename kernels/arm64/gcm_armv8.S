/* PLACEHOLDER (development only): traps until the ARMv8 GCM kernels are written. */
#include "asm_base.h"
#if defined(__aarch64__)
        .text
.irp f, armv8_ghash_init, armv8_ghash, armv8_gcm_ctr_then_hash, armv8_gcm_hash_then_ctr, armv8_sha3_ghash, armv8_sha3_gcm_ctr_then_hash, armv8_sha3_gcm_hash_then_ctr
AESFAST_FUNC(aesfast_\f)
        brk #0
AESFAST_END(aesfast_\f)
.endr
#endif
