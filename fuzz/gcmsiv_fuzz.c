/*
 * libFuzzer target: AES-128/192/256-GCM-SIV, aesfast against the default provider, by the shared
 * program interpreter in fuzz/driver.c (the encoding is described there).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include "driver.h"

const struct fuzz_mode fuzz_mode = {FUZZ_GCMSIV,
                                    {"AES-128-GCM-SIV", "AES-192-GCM-SIV", "AES-256-GCM-SIV"}};
