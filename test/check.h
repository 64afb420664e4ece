/*
 * Pass/fail bookkeeping for the test programs: CHECK(cond, fmt, ...) counts one check and, when
 * it fails, prints "FAIL file:line: message" to stderr (the first 50 failures; the rest are only
 * counted); check_summary() prints the closing line
 * "PROG: N passed, M failed" and gives the exit status.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#ifndef AESFAST_TEST_CHECK_H
#define AESFAST_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int check_passed, check_failed;

__attribute__((format(printf, 4, 5), unused))
static int check_record(int ok, const char *file, int line, const char *fmt, ...)
{
    va_list ap;

    if (ok) {
        check_passed++;
        return 1;
    }
    if (++check_failed > 50)
        return 0; /* counted, no longer printed */
    fprintf(stderr, "FAIL %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 0;
}

/* Evaluates to 1 if cond holds, 0 (after reporting) if not. */
#define CHECK(cond, ...) check_record((cond) != 0, __FILE__, __LINE__, __VA_ARGS__)

/* Prints "PROG: N passed, M failed"; returns 0 if nothing failed, else 1. */
__attribute__((unused))
static int check_summary(const char *prog)
{
    printf("%s: %d passed, %d failed\n", prog, check_passed, check_failed);
    return check_failed == 0 ? 0 : 1;
}

#endif /* AESFAST_TEST_CHECK_H */
