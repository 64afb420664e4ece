/*
 * abi_test: every kernel of every compiled-in tier this CPU runs, called through a trampoline
 * (test/abi_trampoline.S) that loads random values into the callee-saved registers and records
 * them after the call. A kernel fails if it returns with any of these changed:
 *   x86-64 (System V): rbx, rbp, r12-r15, rsp, the direction flag, MXCSR's control bits, the x87
 *                      control word, and (when XGETBV(1) can tell) dirty upper halves of ymm/zmm
 *                      registers, i.e. a missing VZEROUPPER;
 *   arm64 (AAPCS64):   x19-x28, x29, d8-d15, sp and FPCR;
 * and on both, if it wrote the caller's stack above its arguments (four canary words). Up to seven
 * arguments are passed as the ABI does (x86-64: the seventh on the stack; arm64: x0-x6), which the
 * GCM kernels' stitched functions need. Calls are made at four stack alignments (16, 32, 48 and
 * 64 bytes mod 64), so a kernel that assumes more than the ABI's 16-byte alignment crashes. Each
 * kernel's output is also compared with a direct call, which shows that the trampoline passed the
 * arguments through. The kernels: set_key, encrypt_block and ctr32_xor, and GCM's hash_init, hash,
 * ctr_then_hash and hash_then_ctr (and a tier's own forms for a public counter, compared with a
 * direct call of the others) on 0, 1, 7, 8, 9, 16, 33 and 100 blocks, and the one-call
 * gcm_seal_msg and gcm_open_msg around one group of powers and past it.
 *
 * Before the kernels, a self-test calls functions that each break one rule and requires the
 * checker to flag exactly that rule, and one that breaks none and must pass.
 *
 *   abi_test [TIER...]     (no TIER: every tier; a named tier the CPU lacks is skipped)
 * Exit 0 pass, 1 fail, 77 when no named tier is usable or the target is not x86-64/arm64 ELF.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aesfast_kernel.h"
#include "dispatch.h"
#include "tiers.h"

#if defined(__ELF__) && (defined(__x86_64__) || defined(__aarch64__))

#if defined(__x86_64__)
#include <cpuid.h>
static const char *const saved_names[] = {"rbx", "rbp", "r12", "r13", "r14", "r15"};
#else
static const char *const saved_names[] = {"x19", "x20", "x21", "x22", "x23", "x24", "x25",
                                          "x26", "x27", "x28", "x29 (fp)", "d8", "d9", "d10",
                                          "d11", "d12", "d13", "d14", "d15"};
#endif

/* The slots of abi_regs; the trampoline has the same numbers. */
enum {
    NSAVED = sizeof(saved_names) / sizeof(saved_names[0]),
    S_SP = NSAVED, /* after: stack pointer after return minus before the call */
    S_FLAGS,       /* after: rflags (x86-64) */
    S_FPENV,       /* MXCSR | x87 CW << 32 (x86-64), FPCR (arm64); before: the caller's */
    S_XINUSE,      /* before: 1 = check upper state; after: XGETBV(1) (x86-64) */
    S_CALLSP,      /* before: stack pointer at the call */
    S_CANARY,      /* 4 slots: the caller's stack words above the arguments, before and after */
    NCANARY = 4,
    NSLOTS = S_CANARY + NCANARY
};
typedef struct abi_regs {
    uint64_t s[NSLOTS];
} abi_regs;

typedef void abi_fn(void);
enum { NARGS = 7 };
uint64_t aesfast_abi_call(abi_fn *fn, const uint64_t args[NARGS], abi_regs *before,
                          abi_regs *after, uint64_t skew);
uint64_t aesfast_abi_good(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
void aesfast_abi_bad_gpr(void);
void aesfast_abi_bad_sp(void);
void aesfast_abi_bad_stack(void);
#if defined(__x86_64__)
void aesfast_abi_bad_df(void);
void aesfast_abi_bad_mxcsr(void);
void aesfast_abi_bad_x87cw(void);
void aesfast_abi_bad_upper(void);
#else
void aesfast_abi_bad_fpr(void);
void aesfast_abi_bad_fpcr(void);
#endif

/* The kinds of breakage, as bits. */
enum {
    P_GPR = 1,    /* a callee-saved general-purpose register */
    P_FPR = 2,    /* a callee-saved vector register (arm64 d8-d15) */
    P_SP = 4,     /* the stack pointer */
    P_DF = 8,     /* the direction flag */
    P_FPENV = 16, /* MXCSR / x87 control word / FPCR */
    P_UPPER = 32, /* dirty upper vector state */
    P_STACK = 64, /* the caller's stack above the arguments */
    P_ALIGN = 128, /* the trampoline's own stack alignment (a bug in this test) */
};

#if defined(__x86_64__)
#define FPENV_MASK 0x0000ffffffffffc0ull /* x87 CW and MXCSR minus its sticky status bits 0-5 */
#define UPPER_MASK 0x44ull /* XINUSE: YMM_Hi128 (2) and ZMM_Hi256 (6), cleared by VZEROUPPER */
#else
#define FPENV_MASK ~0ull
#define UPPER_MASK 0ull
#endif

static int upper_check; /* x86-64: XINUSE is readable and VZEROUPPER clears it */
static unsigned long calls;
static int passed, failed;

/* Calls fn(args) through the trampoline with fresh random callee-saved values; returns the
 * P_* bits of what the call broke and describes them in report. */
static unsigned abi_call(abi_fn *fn, const uint64_t args[NARGS], uint64_t *ret, char *report,
                         size_t len)
{
    abi_regs before, after;
    unsigned p = 0;
    size_t used = 0;

    for (int i = 0; i < NSAVED; i++)
        before.s[i] = tiers_rng();
    for (int i = 0; i < NCANARY; i++)
        before.s[S_CANARY + i] = tiers_rng();
    before.s[S_XINUSE] = (uint64_t)upper_check;
    memset(&after, 0, sizeof(after));
    uint64_t r = aesfast_abi_call(fn, args, &before, &after, 16 * (calls++ % 4));
    if (ret != NULL)
        *ret = r;

#define NOTE(...)                                                                              \
    do {                                                                                       \
        if (used < len)                                                                        \
            used += (size_t)snprintf(report + used, len - used, __VA_ARGS__);                  \
    } while (0)

    report[0] = '\0';
    for (int i = 0; i < NSAVED; i++)
        if (before.s[i] != after.s[i]) {
            p |= saved_names[i][0] == 'd' ? P_FPR : P_GPR;
            NOTE(" %s clobbered (0x%016llx -> 0x%016llx);", saved_names[i],
                 (unsigned long long)before.s[i], (unsigned long long)after.s[i]);
        }
    for (int i = 0; i < NCANARY; i++)
        if (before.s[S_CANARY + i] != after.s[S_CANARY + i]) {
            p |= P_STACK;
            NOTE(" caller's stack word %d above the arguments written;", i);
        }
    if (after.s[S_SP] != 0) {
        p |= P_SP;
        NOTE(" stack pointer off by %lld;", (long long)after.s[S_SP]);
    }
#if defined(__x86_64__)
    if (after.s[S_FLAGS] & (1u << 10)) {
        p |= P_DF;
        NOTE(" direction flag set;");
    }
#endif
    if ((before.s[S_FPENV] ^ after.s[S_FPENV]) & FPENV_MASK) {
        p |= P_FPENV;
        NOTE(" floating-point control changed (0x%llx -> 0x%llx);",
             (unsigned long long)(before.s[S_FPENV] & FPENV_MASK),
             (unsigned long long)(after.s[S_FPENV] & FPENV_MASK));
    }
    if (upper_check && (after.s[S_XINUSE] & UPPER_MASK)) {
        p |= P_UPPER;
        NOTE(" upper vector state left dirty, no VZEROUPPER (XINUSE 0x%llx);",
             (unsigned long long)after.s[S_XINUSE]);
    }
    if (before.s[S_CALLSP] % 16 != 0) {
        p |= P_ALIGN;
        NOTE(" the trampoline called with a misaligned stack (0x%llx);",
             (unsigned long long)before.s[S_CALLSP]);
    }
#undef NOTE
    return p;
}

static void record(int ok, const char *fmt, const char *what, const char *report)
{
    if (ok) {
        passed++;
        return;
    }
    if (++failed > 30) {
        if (failed == 31)
            fprintf(stderr, "(further failures not shown)\n");
        return;
    }
    fprintf(stderr, "FAIL ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, ":%s\n", report);
}

#if defined(__x86_64__)
/* XGETBV(1) says which state components are in use; VZEROUPPER should clear YMM_Hi128. That needs
 * AVX enabled by the OS and CPUID.(0xd,1):EAX[2]. */
static int upper_check_possible(void)
{
    unsigned a, b, c, d;

    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27)) || !(c & (1u << 28)))
        return 0; /* no OSXSAVE or no AVX */
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 6) != 6)
        return 0; /* the OS does not keep AVX state */
    if (__get_cpuid_max(0, NULL) < 0xd)
        return 0;
    __cpuid_count(0xd, 1, a, b, c, d);
    return (a >> 2) & 1;
}
#endif

/* The checker must flag each bad function, with exactly the expected kind, and pass the good one. */
static int self_test(void)
{
    static const struct {
        const char *name;
        abi_fn *fn;
        unsigned expect;
    } bad[] = {
        {"bad_gpr", aesfast_abi_bad_gpr, P_GPR},
        {"bad_sp", aesfast_abi_bad_sp, P_SP},
        {"bad_stack", aesfast_abi_bad_stack, P_STACK},
#if defined(__x86_64__)
        {"bad_df", aesfast_abi_bad_df, P_DF},
        {"bad_mxcsr", aesfast_abi_bad_mxcsr, P_FPENV},
        {"bad_x87cw", aesfast_abi_bad_x87cw, P_FPENV},
        {"bad_upper", aesfast_abi_bad_upper, P_UPPER},
#else
        {"bad_fpr", aesfast_abi_bad_fpr, P_FPR},
        {"bad_fpcr", aesfast_abi_bad_fpcr, P_FPENV},
#endif
    };
    char report[1024];
    uint64_t args[NARGS], ret;
    int before = failed;

#if defined(__x86_64__)
    upper_check = upper_check_possible();
#endif
    for (int t = 0; t < 8; t++) {
        uint64_t want = 0;
        for (int i = 0; i < NARGS; i++) {
            args[i] = tiers_rng();
            want ^= i == 0 ? args[0] : args[i] << (8 * i) | args[i] >> (64 - 8 * i);
        }
        unsigned p = abi_call((abi_fn *)aesfast_abi_good, args, &ret, report, sizeof(report));
        if (upper_check && p == P_UPPER && t == 0) {
            /* XINUSE may report components in use even in their initial state: then it says
             * nothing about the callee and the check is off. */
            printf("abi_test: XGETBV(1) reports dirty upper state after VZEROUPPER here; "
                   "VZEROUPPER check off\n");
            upper_check = 0;
            p = 0;
        }
        record(p == 0 && ret == want, "self-test %s (a correct function)", "good", report);
        if (ret != want)
            fprintf(stderr, "  returned 0x%016llx, want 0x%016llx\n", (unsigned long long)ret,
                    (unsigned long long)want);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (bad[i].expect == P_UPPER && !upper_check) {
            printf("abi_test: self-test %s skipped (no VZEROUPPER check on this CPU)\n",
                   bad[i].name);
            continue;
        }
        for (int t = 0; t < 4; t++) { /* at every stack skew */
            memset(args, 0, sizeof(args));
            unsigned p = abi_call(bad[i].fn, args, NULL, report, sizeof(report));
            char why[1200];
            snprintf(why, sizeof(why), " flagged 0x%x, want exactly 0x%x:%s", p, bad[i].expect,
                     report);
            record(p == bad[i].expect, "self-test %s was not caught as it should be", bad[i].name,
                   why);
        }
    }
    printf("abi_test: self-test %s%s\n", failed == before ? "ok" : "FAILED",
           upper_check ? " (VZEROUPPER check on)" : "");
    return failed == before;
}

/* One kernel call through the trampoline; the output is checked against a direct call. */
static void check(const aesfast_kernel *k, const char *fname, abi_fn *fn,
                  const uint64_t args[NARGS], const char *detail)
{
    char report[1024], what[320];

    snprintf(what, sizeof(what), "%s %s(%s)", k->name, fname, detail);
    unsigned p = abi_call(fn, args, NULL, report, sizeof(report));
    record(p == 0, "%s", what, report);
}

#define PTR(p) ((uint64_t)(uintptr_t)(p))

/* An AEAD family's kernels (GCM's or GCM-SIV's) on one expanded key: hash_init, then hash, the
 * family's counter (when it is not ctr32_xor, which test_tier covers) and the stitched functions
 * it has on each block count, every call at each of the four stack skews, in place and out of
 * place; each result (the table, acc, out) against a direct call, and the counter block
 * unchanged. le_first: the family's 32-bit counter is the first word (GCM-SIV), not the last. */
static void test_aead(const aesfast_kernel *k, const aesfast_aead_kernel *g, const char *family,
                      int le_first, const aesfast_key *key, size_t kl, uint8_t *in, uint8_t *out,
                      uint8_t *want)
{
    static const size_t counts[] = {0, 1, 7, 8, 9, 16, 33, 100};
    char fname[64];
    aesfast_hash_key *hk = malloc(sizeof(*hk)), *hk_direct = malloc(sizeof(*hk_direct));
    uint8_t h[16], acc[16], acc_want[16], ctr[16], ctr_copy[16];
    uint64_t args[NARGS] = {0};
    char detail[120];

    if (hk == NULL || hk_direct == NULL) {
        fprintf(stderr, "abi_test: out of memory\n");
        exit(1);
    }
    for (int t = 0; t < 4; t++) {
        tiers_fill(h, 16);
        memset(hk, 0, sizeof(*hk));
        memset(hk_direct, 0, sizeof(*hk_direct));
        g->hash_init(hk_direct, h);
        args[0] = PTR(hk), args[1] = PTR(h);
        snprintf(detail, sizeof(detail), "%zu-byte key", kl);
        snprintf(fname, sizeof(fname), "%s.hash_init", family);
        check(k, fname, (abi_fn *)g->hash_init, args, detail);
        record(memcmp(hk, hk_direct, sizeof(*hk)) == 0, "%s: %s through the trampoline differs "
               "from a direct call", k->name, fname);
        if (g->hash_init_few != NULL) { /* its own function: the same checks */
            memset(hk, 0, sizeof(*hk));
            memset(hk_direct, 0, sizeof(*hk_direct));
            g->hash_init_few(hk_direct, h);
            snprintf(fname, sizeof(fname), "%s.hash_init_few", family);
            check(k, fname, (abi_fn *)g->hash_init_few, args, detail);
            record(memcmp(hk, hk_direct, sizeof(*hk)) == 0, "%s: %s through the trampoline "
                   "differs from a direct call", k->name, fname);
            g->hash_init(hk_direct, h); /* the rest of the test hashes more than a few blocks */
            memcpy(hk, hk_direct, sizeof(*hk));
        }
    }
    if (le_first && k->gcmsiv_derive != NULL) { /* GCM-SIV's per-nonce keys */
        for (int t = 0; t < 4; t++) {
            aesfast_key ek, ek_direct;
            uint8_t nonce[12], auth[16], auth_direct[16];

            tiers_fill(nonce, 12);
            memset(&ek, 0, sizeof(ek));
            memset(&ek_direct, 0, sizeof(ek_direct));
            k->gcmsiv_derive(key, nonce, &ek_direct, auth_direct);
            args[0] = PTR(key), args[1] = PTR(nonce), args[2] = PTR(&ek), args[3] = PTR(auth);
            snprintf(detail, sizeof(detail), "%zu-byte key", kl);
            check(k, "gcmsiv_derive", (abi_fn *)k->gcmsiv_derive, args, detail);
            record(memcmp(&ek, &ek_direct, sizeof(ek)) == 0 && memcmp(auth, auth_direct, 16) == 0,
                   "%s: gcmsiv_derive (%s) through the trampoline differs from a direct call",
                   k->name, detail);
        }
    }
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
        const size_t nb = counts[c];

        for (int t = 0; t < 4; t++) { /* abi_call steps the skew on every call */
            snprintf(detail, sizeof(detail), "%zu-byte key, %zu blocks", kl, nb);
            tiers_fill(acc, 16);
            tiers_fill(in, nb * 16);
            memcpy(acc_want, acc, 16);
            g->hash(hk_direct, acc_want, in, nb);
            args[0] = PTR(hk), args[1] = PTR(acc), args[2] = PTR(in), args[3] = nb;
            snprintf(fname, sizeof(fname), "%s.hash", family);
            check(k, fname, (abi_fn *)g->hash, args, detail);
            record(memcmp(acc, acc_want, 16) == 0, "%s: %s through the trampoline differs "
                   "from a direct call", k->name, detail);
        }
        if (g->ctr != k->ctr32_xor) {
            for (int t = 0; t < 4; t++) {
                uint8_t *o = t % 2 ? in : out;

                snprintf(detail, sizeof(detail), "%zu-byte key, %zu blocks%s", kl, nb,
                         t % 2 ? ", in place" : "");
                tiers_fill(ctr, 16);
                if (t == 3) /* the counter word wraps within the call */
                    memset(le_first ? ctr + 1 : ctr + 12, 0xff, 3); /* the high 3 bytes */
                memcpy(ctr_copy, ctr, 16);
                tiers_fill(in, nb * 16);
                g->ctr(key, ctr, in, want, nb);
                args[0] = PTR(key), args[1] = PTR(ctr), args[2] = PTR(in), args[3] = PTR(o);
                args[4] = nb;
                snprintf(fname, sizeof(fname), "%s.ctr", family);
                check(k, fname, (abi_fn *)g->ctr, args, detail);
                record((nb == 0 || memcmp(o, want, nb * 16) == 0) && memcmp(ctr, ctr_copy, 16) == 0,
                       "%s: the counter kernel through the trampoline differs from a direct call",
                       k->name, detail);
            }
        }
        for (int f = 0; f < 4; f++) { /* seal, open; then their forms for a public counter */
            const int open = f % 2, pub = f / 2;
            aesfast_aead_crypt_fn *plain = open ? g->hash_then_ctr : g->ctr_then_hash;
            aesfast_aead_crypt_fn *fn = pub ? (open ? g->hash_then_ctr_pub : g->ctr_then_hash_pub)
                                            : plain;

            if (fn == NULL) /* GCM-SIV has no hash_then_ctr; a tier no form for a public counter */
                continue;
            snprintf(fname, sizeof(fname), "%s.%s%s", family,
                     open ? "hash_then_ctr" : "ctr_then_hash", pub ? "_pub" : "");

            for (int t = 0; t < 4; t++) {
                const int in_place = t % 2;
                uint8_t *o = in_place ? in : out;

                snprintf(detail, sizeof(detail), "%zu-byte key, %zu blocks%s", kl, nb,
                         in_place ? ", in place" : "");
                tiers_fill(acc, 16);
                tiers_fill(ctr, 16);
                if (t == 3) /* the counter word wraps within the call */
                    memset(le_first ? ctr + 1 : ctr + 12, 0xff, 3); /* the high 3 bytes */
                else if (t == 2 && !le_first) /* GCM: a group carries out of the low byte */
                    ctr[15] = 0xf5;
                memcpy(ctr_copy, ctr, 16);
                tiers_fill(in, nb * 16);
                memcpy(acc_want, acc, 16);
                plain(key, hk_direct, acc_want, ctr, in, want, nb); /* (a _pub form: the same) */
                args[0] = PTR(key), args[1] = PTR(hk), args[2] = PTR(acc), args[3] = PTR(ctr);
                args[4] = PTR(in), args[5] = PTR(o), args[6] = nb;
                check(k, fname, (abi_fn *)fn, args, detail);
                record(memcmp(acc, acc_want, 16) == 0 && (nb == 0 || memcmp(o, want, nb * 16) == 0)
                           && memcmp(ctr, ctr_copy, 16) == 0,
                       "%s: the stitched kernel through the trampoline differs from a direct call",
                       k->name, detail);
            }
        }
    }
    free(hk);
    free(hk_direct);
}

/* GCM-SIV's short-message kernels (when the tier has them): messages of 0..2 AAD blocks and
 * data lengths up to the tier's bound, at each stack skew, in place and not; out and the tag
 * against a direct call. key serves as the nonce's encryption key, H comes at random. */
static void test_gcmsiv_short(const aesfast_kernel *k, const aesfast_key *key, size_t kl,
                              uint8_t *in, uint8_t *out, uint8_t *want)
{
    uint8_t nonce[12], auth[16], aad[2 * 16];
    uint64_t args[NARGS] = {0};
    char detail[120];

    if (k->gcmsiv_seal_short == NULL)
        return;
    for (size_t naad = 0; naad <= 2; naad++) {
        for (size_t len = 0; 16 * (naad + 1) + len <= 16 * (size_t)k->gcmsiv_short_blocks;
             len += 1 + len / 2) {
            for (int t = 0; t < 4; t++) {
                const int open = t / 2, in_place = t % 2;
                aesfast_gcmsiv_short_fn *fn = open ? k->gcmsiv_open_short : k->gcmsiv_seal_short;
                aesfast_gcmsiv_msg m, direct;
                uint8_t *o = in_place ? in : out;

                tiers_fill(nonce, 12);
                tiers_fill(auth, 16);
                tiers_fill(aad, sizeof(aad));
                tiers_fill(in, len);
                direct = (aesfast_gcmsiv_msg){nonce, auth, aad, in, want, naad, 16 * naad, len,
                                              {0}};
                tiers_fill(direct.tag, 16);
                m = direct;
                m.out = o;
                fn(key, &direct);
                args[0] = PTR(key), args[1] = PTR(&m);
                snprintf(detail, sizeof(detail), "%zu-byte key, %zu AAD blocks, %zu bytes%s", kl,
                         naad, len, in_place ? ", in place" : "");
                check(k, open ? "gcmsiv_open_short" : "gcmsiv_seal_short", (abi_fn *)fn, args,
                      detail);
                record(memcmp(m.tag, direct.tag, 16) == 0 && (len == 0 || memcmp(o, want, len) == 0),
                       "%s: the short GCM-SIV kernel through the trampoline differs from a direct "
                       "call", k->name, detail);
            }
        }
    }
}

/* GCM's message in one call of msg_tier (aesfast_gcm_msg_crypt: the tier's kernel, or the composer
 * over its stitched kernels and gcm_*_last), as a function the trampoline can call. */
static const aesfast_kernel *msg_tier;

static void seal_msg(const aesfast_key *key, const aesfast_hash_key *hkey, aesfast_gcm_msg *msg,
                     const uint8_t *in, uint8_t *out, size_t len)
{
    aesfast_gcm_msg_crypt(msg_tier, 1, key, hkey, msg, in, out, len);
}

static void open_msg(const aesfast_key *key, const aesfast_hash_key *hkey, aesfast_gcm_msg *msg,
                     const uint8_t *in, uint8_t *out, size_t len)
{
    aesfast_gcm_msg_crypt(msg_tier, 0, key, hkey, msg, in, out, len);
}

/* gcm_seal_msg and gcm_open_msg: data of bytes around one group of powers and past it (the main
 * loop), queues of 0..31 blocks, in place and not, at each skew; out and the whole message state
 * against a direct call. */
static void test_gcm_msg(const aesfast_kernel *k, const aesfast_key *key, size_t kl, uint8_t *in,
                         uint8_t *out, uint8_t *want)
{
    static const size_t lens[] = {0, 1, 15, 16, 17, 100, 255, 479, 480, 481, 511, 1420, 4099 * 16};
    aesfast_hash_key *hk = malloc(sizeof(*hk));
    aesfast_gcm_msg *msg = malloc(sizeof(*msg)), *msg_want = malloc(sizeof(*msg_want));
    uint8_t h[16];
    uint64_t args[NARGS] = {0};
    char detail[120];

    msg_tier = k;
    if (hk == NULL || msg == NULL || msg_want == NULL) {
        fprintf(stderr, "abi_test: out of memory\n");
        exit(1);
    }
    tiers_fill(h, 16);
    k->gcm.hash_init(hk, h);
    for (size_t c = 0; c < sizeof(lens) / sizeof(lens[0]); c++) {
        for (int t = 0; t < 8; t++) {
            const int open = t % 2, in_place = t / 2 % 2;
            aesfast_gcm_msg_fn *fn = open ? open_msg : seal_msg;
            uint8_t *o = in_place ? in : out;
            size_t len = lens[c];

            tiers_fill((uint8_t *)msg_want, sizeof(*msg_want));
            msg_want->nqueue = (c * 7 + (size_t)t) % AESFAST_GCM_QUEUE;
            msg_want->aadlen = 16 * msg_want->nqueue;
            msg_want->flags = t / 4 ? AESFAST_MSG_CTR_PUBLIC : 0;
            memcpy(msg, msg_want, sizeof(*msg));
            tiers_fill(in, len);
            fn(key, hk, msg_want, in, want, len);
            args[0] = PTR(key), args[1] = PTR(hk), args[2] = PTR(msg), args[3] = PTR(in);
            args[4] = PTR(o), args[5] = len;
            snprintf(detail, sizeof(detail), "%zu-byte key, %zu bytes, %llu queued%s", kl, len,
                     (unsigned long long)msg->nqueue, in_place ? ", in place" : "");
            check(k, open ? "gcm_open_msg" : "gcm_seal_msg", (abi_fn *)fn, args, detail);
            record(memcmp(msg, msg_want, sizeof(*msg)) == 0 && (len == 0 || memcmp(o, want, len)
                   == 0), "%s: a one-call GCM kernel through the trampoline differs from a "
                   "direct call (%s)", k->name, detail);
        }
    }
    free(hk);
    free(msg);
    free(msg_want);
}

static void test_tier(const aesfast_kernel *k)
{
    static const size_t keylens[] = {16, 24, 32};
    static const size_t large[] = {63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 4099};
    enum { MAXBLOCKS = 4099 };
    uint8_t *in = malloc(MAXBLOCKS * 16), *out = malloc(MAXBLOCKS * 16);
    uint8_t *want = malloc(MAXBLOCKS * 16);
    int before_passed = passed, before_failed = failed;
    aesfast_key key, direct;
    uint8_t raw[32], ctr[16], blk[16], blk_want[16];
    char detail[80];

    if (in == NULL || out == NULL || want == NULL) {
        fprintf(stderr, "abi_test: out of memory\n");
        exit(1);
    }
    for (size_t ki = 0; ki < 3; ki++) {
        size_t kl = keylens[ki];
        uint64_t args[NARGS] = {0};

        tiers_fill(raw, kl);
        memset(&key, 0, sizeof(key));
        memset(&direct, 0, sizeof(direct));
        snprintf(detail, sizeof(detail), "%zu-byte key", kl);
        args[0] = PTR(&key), args[1] = PTR(raw), args[2] = kl;
        check(k, "set_key", (abi_fn *)k->set_key, args, detail);
        k->set_key(&direct, raw, kl);
        record(memcmp(&key, &direct, sizeof(key)) == 0, "%s: set_key through the trampoline "
               "differs from a direct call", k->name, "");

        tiers_fill(blk, 16);
        k->encrypt_block(&direct, blk, blk_want);
        args[0] = PTR(&key), args[1] = PTR(blk), args[2] = PTR(blk);
        check(k, "encrypt_block", (abi_fn *)k->encrypt_block, args, detail);
        record(memcmp(blk, blk_want, 16) == 0, "%s: encrypt_block through the trampoline differs "
               "from a direct call", k->name, "");

        for (size_t n = 0; n <= 40 + sizeof(large) / sizeof(large[0]); n++) {
            size_t nb = n <= 40 ? n : large[n - 41];
            int in_place = n % 2;

            tiers_fill(ctr, 16);
            tiers_fill(in, nb * 16);
            k->ctr32_xor(&direct, ctr, in, want, nb);
            args[0] = PTR(&key), args[1] = PTR(ctr), args[2] = PTR(in);
            args[3] = PTR(in_place ? in : out), args[4] = nb;
            snprintf(detail, sizeof(detail), "%zu-byte key, %zu blocks%s", kl, nb,
                     in_place ? ", in place" : "");
            check(k, "ctr32_xor", (abi_fn *)k->ctr32_xor, args, detail);
            record(nb == 0 || memcmp(in_place ? in : out, want, nb * 16) == 0,
                   "%s: ctr32_xor through the trampoline differs from a direct call", k->name,
                   detail);
        }
        test_aead(k, &k->gcm, "gcm", 0, &key, kl, in, out, want);
        test_gcm_msg(k, &key, kl, in, out, want);
        test_aead(k, &k->gcmsiv, "gcmsiv", 1, &key, kl, in, out, want);
        test_gcmsiv_short(k, &key, kl, in, out, want);
    }
    printf("abi_test: %-12s %s (%d checks)\n", k->name, failed == before_failed ? "ok" : "FAILED",
           passed + failed - before_passed - before_failed);
    free(in);
    free(out);
    free(want);
}

int main(int argc, char **argv)
{
    int ran;

    if (!self_test()) {
        printf("abi_test: the checker itself is broken\n");
        printf("abi_test: %d passed, %d failed\n", passed, failed);
        return 1;
    }
    ran = tiers_run("abi_test", argc, argv, test_tier);
    if (ran < 0)
        return 1;
    if (ran == 0)
        printf("abi_test: no requested tier is usable on this CPU\n");
    printf("abi_test: %d passed, %d failed\n", passed, failed);
    return failed > 0 ? 1 : ran == 0 ? 77 : 0;
}

#else /* not x86-64 or arm64 ELF */

int main(void)
{
    printf("abi_test: no ABI trampoline for this target\n");
    return 77;
}

#endif
