/*
 * forkgen_test: the fork generation itself (provider/fork.c), compiled in twice: as shipped
 * (MADV_WIPEONFORK) and with the page left out (AESFAST_FORK_TEST_NO_WIPE), the getpid()
 * fallback of kernels without it. Required: a nonzero generation, the same on every call in a
 * process, another in a child, another again in a grandchild forked after the child read its
 * own, the parent's unchanged after the fork, and one number for all the threads of a new child
 * that read it at once. Prints the cost of a call (the fallback's is a getpid() system call).
 *
 *   forkgen_test_wipe --expect wipe     forkgen_test_pid --expect pid     exit 0 pass, 1 fail
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fork.h"

#define THREADS 4

static pthread_barrier_t barrier;
static uint64_t seen[THREADS];

static void *reader(void *arg)
{
    pthread_barrier_wait(&barrier);
    seen[(size_t)arg] = aesfast_fork_generation();
    return NULL;
}

/* Runs fn in a child; 1 if it exited 0. */
static int in_child(int (*fn)(uint64_t), uint64_t arg)
{
    int st;
    pid_t pid;

    fflush(NULL);
    if ((pid = fork()) < 0)
        return 0;
    if (pid == 0)
        _exit(fn(arg) ? 0 : 1);
    return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* A new child's threads, all reading the generation at once. */
static int threads_agree(uint64_t parent_gen)
{
    pthread_t t[THREADS];
    int ok = 1;

    pthread_barrier_init(&barrier, NULL, THREADS);
    for (size_t i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, reader, (void *)i);
    for (size_t i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (size_t i = 0; i < THREADS; i++)
        ok &= CHECK(seen[i] == seen[0] && seen[i] != 0 && seen[i] != parent_gen,
                    "thread %zu of a new child: generation %llu, thread 0 %llu, parent %llu", i,
                    (unsigned long long)seen[i], (unsigned long long)seen[0],
                    (unsigned long long)parent_gen);
    ok &= CHECK(aesfast_fork_generation() == seen[0], "the threads' generation did not stay");
    return ok;
}

static uint64_t top_gen; /* the first process's */

static int grandchild(uint64_t child_gen)
{
    uint64_t g = aesfast_fork_generation();

    return CHECK(g != 0 && g != child_gen && g != top_gen && g == aesfast_fork_generation(),
                 "grandchild: generation %llu, its parent's %llu, the top process's %llu",
                 (unsigned long long)g, (unsigned long long)child_gen,
                 (unsigned long long)top_gen);
}

static int child(uint64_t parent_gen)
{
    uint64_t g = aesfast_fork_generation();
    int ok = CHECK(g != 0 && g != parent_gen && g == aesfast_fork_generation(),
                   "child: generation %llu, parent's %llu", (unsigned long long)g,
                   (unsigned long long)parent_gen);

    /* a grandchild must differ from its parent and from the top process */
    ok &= CHECK(in_child(grandchild, g), "the grandchild's checks");
    return ok & CHECK(aesfast_fork_generation() == g, "child: generation changed by its fork");
}

int main(int argc, char **argv)
{
    int want_wipe;
    struct timespec t0, t1;
    volatile uint64_t sink = 0;
    enum { CALLS = 1000000 };

    if (argc != 3 || strcmp(argv[1], "--expect") != 0
        || (strcmp(argv[2], "wipe") != 0 && strcmp(argv[2], "pid") != 0)) {
        fprintf(stderr, "usage: forkgen_test --expect wipe|pid\n");
        return 2;
    }
    want_wipe = strcmp(argv[2], "wipe") == 0;
    top_gen = aesfast_fork_generation();
    CHECK(top_gen != 0 && top_gen == aesfast_fork_generation(), "generation %llu",
          (unsigned long long)top_gen);
    CHECK((atomic_load(&aesfast_fork_word) != NULL) == want_wipe, "the %s mechanism is not in use",
          want_wipe ? "MADV_WIPEONFORK" : "getpid()");
    CHECK(in_child(child, top_gen), "the child's checks");
    CHECK(in_child(threads_agree, top_gen), "the threads of a new child");
    CHECK(aesfast_fork_generation() == top_gen, "the parent's generation changed by its forks");

    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < CALLS; i++)
        sink += aesfast_fork_generation();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    (void)sink;
    printf("forkgen_test (%s): %.1f ns per call\n", want_wipe ? "MADV_WIPEONFORK" : "getpid()",
           ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / CALLS);
    return check_summary("forkgen_test");
}
