/*
 * The process's fork generation: a number that changes in a child process after fork() and
 * stays the same in the process that keeps running on. Contexts that hold state which two
 * processes must not share after a fork (GCM's invocation field under "tlsivfixed", gcm.c)
 * remember the generation they drew it in and redraw it when the generation they see differs.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * The generation is never 0 (a context may keep 0 for "nothing drawn"), and a child's is never
 * one its parent or any ancestor had: a context copied across a fork always sees a change.
 * fork.c says how it is kept (MADV_WIPEONFORK, or a getpid() compare where that is missing).
 */
#ifndef AESFAST_FORK_H
#define AESFAST_FORK_H

#include <stdatomic.h>
#include <stdint.h>

/* One word on a page that a fork leaves zeroed in the child (MADV_WIPEONFORK): the current
 * generation, or 0 until this process has read it. NULL until set up, and for good where the
 * kernel has no MADV_WIPEONFORK. */
extern _Atomic(_Atomic uint64_t *) aesfast_fork_word;

/* The generation the first time in this process (or with no wiping page): see fork.c. */
uint64_t aesfast_fork_generation_slow(void);

/* The current fork generation, from any thread. With the wiping page: two loads and a compare. */
static inline uint64_t aesfast_fork_generation(void)
{
    _Atomic uint64_t *w = atomic_load_explicit(&aesfast_fork_word, memory_order_acquire);

    if (w != NULL) {
        uint64_t g = atomic_load_explicit(w, memory_order_relaxed);

        if (g != 0)
            return g;
    }
    return aesfast_fork_generation_slow();
}

#endif /* AESFAST_FORK_H */
