/*
 * The 256-bit VAES kernels, for test/vaes_model.py --native: the kernels are hidden symbols of
 * kernels_lib, so this module looks them up by name for ctypes. Test-only, never installed.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <string.h>

#include "aesfast_kernel.h"

__attribute__((visibility("default"))) void (*vaes_model_native_fn(const char *name))(void);

#define FN(f) {#f, (void (*)(void))f}
static const struct {
    const char *name;
    void (*fn)(void);
} fns[] = {
    FN(aesfast_vaes_avx2_ctr32_xor),         FN(aesfast_vaes_avx2_ghash_init),
    FN(aesfast_vaes_avx2_ghash),             FN(aesfast_vaes_avx2_gcm_ctr_then_hash),
    FN(aesfast_vaes_avx2_gcm_hash_then_ctr), FN(aesfast_vaes_avx2_ctr32le_xor),
    FN(aesfast_vaes_avx2_polyval_init),      FN(aesfast_vaes_avx2_polyval),
    FN(aesfast_vaes_avx2_gcmsiv_ctr_then_hash), FN(aesfast_vaes_avx2_polyval_init_few),
    FN(aesfast_vaes_avx2_gcm_ctr_then_hash_pub), FN(aesfast_vaes_avx2_gcm_hash_then_ctr_pub),
};

void (*vaes_model_native_fn(const char *name))(void)
{
    for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
        if (strcmp(fns[i].name, name) == 0)
            return fns[i].fn;
    return NULL;
}
