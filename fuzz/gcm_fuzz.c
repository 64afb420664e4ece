/*
 * libFuzzer target: AES-128/192/256-GCM, aesfast against the default provider, by the shared
 * program interpreter in fuzz/driver.c (the encoding is described there).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include "driver.h"

const struct fuzz_mode fuzz_mode = {FUZZ_GCM, {"AES-128-GCM", "AES-192-GCM", "AES-256-GCM"}};
