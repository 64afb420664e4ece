/*
 * libFuzzer target: AES-128/192/256-CTR, aesfast against the default provider, by the shared
 * program interpreter in fuzz/driver.c (the encoding is described there).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include "driver.h"

const struct fuzz_mode fuzz_mode = {FUZZ_CTR, {"AES-128-CTR", "AES-192-CTR", "AES-256-CTR"}};
