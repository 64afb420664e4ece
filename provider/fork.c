/*
 * The fork generation (fork.h).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * How a child learns it is one: the first reader maps one anonymous page and marks it
 * MADV_WIPEONFORK (Linux 4.14+), so that the kernel hands every child a zeroed copy of it. The
 * page's word holds the current generation; a reader that finds 0 takes a new number from
 * last_generation, an ordinary variable which a child inherits with the value it had in its
 * parent, and publishes it with a compare-and-swap (threads of a new child that race agree on
 * the first number stored). Numbers only grow along a line of descent, so a child's generation
 * is none its ancestors had. A racing thread's unused number is skipped, which costs nothing.
 *
 * The per-message cost is two loads and a compare; no lock, no system call. It also works for
 * children made by clone() or a fork() that skips pthread_atfork handlers (the kernel does the
 * wiping), and needs no .init/.fini code: the module may be linked with -nostartfiles
 * (doc/design.md, CET and BTI), which leaves pthread_atfork without the __dso_handle it needs to unregister
 * a handler when the module is unloaded (a handler left behind in unmapped code crashes the
 * next fork).
 *
 * Without MADV_WIPEONFORK (an older kernel, or not Linux): the generation and the pid that
 * read it are kept together in one 64-bit word, and every call compares getpid(). glibc caches
 * no pid since 2.25, so that is a system call for every message that asks (the TLS 1.2 records
 * of a "tlsivfixed" context; doc/drbg-and-fork.md has a measurement). The compare is exact: a
 * child's copy of the word names its parent's pid, which was alive, so not the child's, when the
 * child was made.
 *
 * The page is mapped once per load of the module and never unmapped: there is no unload hook
 * that knows no context still reads it (one page per dlopen of aesfast.so).
 */
#include <stddef.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include "fork.h"

_Atomic(_Atomic uint64_t *) aesfast_fork_word;

static _Atomic uint64_t last_generation; /* the highest number handed out so far */
static _Atomic int setup_state;          /* 0 not yet, 1 the page is in use, 2 no wiping page */
static _Atomic uint64_t pid_generation;  /* fallback: generation << 32 | pid, 0 before any */

static uint64_t next_generation(void)
{
    return atomic_fetch_add(&last_generation, 1) + 1;
}

/* Maps and marks the page; 1 if it is in use (by this thread's mapping or another's). */
static int setup_page(void)
{
#if defined(MADV_WIPEONFORK) && !defined(AESFAST_FORK_TEST_NO_WIPE) /* (test/forkgen_test.c) */
    long psize = sysconf(_SC_PAGESIZE);
    size_t len = psize > 0 ? (size_t)psize : 4096;
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED)
        return 0;
    if (madvise(p, len, MADV_WIPEONFORK) != 0) {
        munmap(p, len);
        return 0;
    }
    _Atomic uint64_t *none = NULL;
    if (!atomic_compare_exchange_strong(&aesfast_fork_word, &none, (_Atomic uint64_t *)p))
        munmap(p, len); /* another thread's page won */
    return 1;
#else
    return 0;
#endif
}

uint64_t aesfast_fork_generation_slow(void)
{
    int state = atomic_load(&setup_state);

    if (state == 0) {
        state = setup_page() ? 1 : 2;
        atomic_store(&setup_state, state);
    }
    if (state == 1) {
        _Atomic uint64_t *w = atomic_load(&aesfast_fork_word);
        uint64_t seen = 0, g = next_generation();

        /* 0 in the word: this process has not read it yet (a new page, or a child's wiped
         * copy). The first number stored is the process's; a loser returns the winner's. */
        if (!atomic_compare_exchange_strong(w, &seen, g))
            return seen;
        return g;
    }
    uint32_t pid = (uint32_t)getpid();
    uint64_t cur = atomic_load(&pid_generation);

    for (;;) {
        if (cur != 0 && (uint32_t)cur == pid)
            return cur >> 32;
        uint64_t g = next_generation() & 0xffffffffu;
        if (g == 0) /* 2^32 forks along one line: skip the number that means "none" */
            g = next_generation() & 0xffffffffu;
        if (atomic_compare_exchange_strong(&pid_generation, &cur, g << 32 | pid))
            return g;
        /* another thread stored first: cur is its value, for this pid */
    }
}
