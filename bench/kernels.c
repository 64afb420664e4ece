/*
 * kernels: every kernel of every tier this CPU runs, called directly (no provider, no EVP), in
 * cycles per 16 blocks, cycles per byte and GB/s, from one block to 1 MiB per call.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 *   kernels [--tier T]... [--fn F[,F...]] [--sizes N[,N...]] [--keys 128,256] [--ms MS] [--csv]
 *   kernels --insn     the issue cost of single instructions and mixes (x86-64; see insn_x86.S)
 *
 * There are no hardware performance counters on the machines this runs on (KVM guests), so the
 * core clock is estimated: a chain of dependent register-to-register adds runs at one add per
 * cycle on every x86-64 and arm64 core, and its length divided by its wall time is the clock. It is taken
 * again right before and after each figure (the clock of a shared machine moves with the
 * other cores' load): a figure whose two estimates differ by more than 1.5% is measured again
 * (up to 5 times), and its cycles are its wall time times their mean (printed beside it). The
 * TSC, which runs at a fixed rate, is no help here. Cycles are the scalar core's: a core that
 * ran vector code at another clock would show it as fractions of cycles (bench/kernels --insn
 * shows whether it does: its loops of one instruction come out at whole cycles or not).
 *
 * Each figure is the fastest of many batches of calls (each batch ~0.2 ms, for --ms ms per
 * figure): on a shared machine noise only ever slows a batch down. The buffers are 64-byte
 * aligned and stay in L1/L2 up to 1 MiB (in, out: 2 MiB in total).
 *
 * Functions (--fn): ctr (ctr32_xor), gcm-seal (aesfast_gcm_stitched, public), gcm-open
 * (the same, open): the stitched kernels for a public counter, as the provider calls them
 * for a 12-byte IV; gcm-seal-secret and gcm-open-secret (gcm.ctr_then_hash, hash_then_ctr), for a
 * secret counter (other IV lengths);
 * ghash (gcm.hash), siv-seal (gcmsiv.hash then gcmsiv.ctr, as the provider seals), siv-open
 * (gcmsiv.ctr_then_hash), polyval (gcmsiv.hash); msg-seal and msg-open (aesfast_gcm_msg_crypt:
 * the tier's gcm_seal_msg and gcm_open_msg, or the composer; a whole message, its 13 bytes of AAD queued as
 * one block as the provider queues a TLS record's, J0 from a 12-byte IV, the tag made: what
 * one message costs in the kernel); GCM-SIV's per-nonce work: siv-derive (aesfast_gcmsiv_derive),
 * polyval-init and polyval-init-few (the powers, whole and few), and siv-msg-seal and
 * siv-msg-open, a whole message of SIZE bytes and 13 bytes of AAD from the kernels as the
 * provider calls them, and siv-short-seal and siv-short-open, the same message in one call of
 * the tier's short-message kernels (derive not included: gcmsiv_derive runs at init), where it
 * has them and the message fits. The hashes have no key size. The table of powers is 64-byte
 * aligned, as the provider keeps it.
 *
 * Key setup (what a context keyed per message pays before its first block), each once per call
 * whatever --sizes says (bytes 0 in the CSV, no per-byte figures): set-key (the tier's set_key:
 * the key schedule alone), gcm-hkey (GCM's hash key: E_K(0) with encrypt_block, then gcm.hash_init,
 * the whole table of H's powers), gcm-hkey-few (E_K(0) and hash_init_few's powers, what
 * provider/gcm.c makes at a key where the tier has a short table), gcm-hkey-rest (hash_init_rest,
 * the rest of the table when a message first needs it), siv-keys (GCM-SIV's per-nonce
 * work: aesfast_gcmsiv_derive, the nonce's encryption key expanded and its authentication key,
 * then gcmsiv.hash_init, every power) and siv-keys-few (the same with the few powers a message of
 * at most AESFAST_HASH_FEW blocks reads, as the provider takes for those). The floor each is
 * measured against (its chain of dependent AES rounds and carry-less multiplies, and the issue of
 * its instructions, times their costs from --insn) is counted in bench/publish.py.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aesfast_kernel.h"
#include "dispatch.h"

#define MAX_SIZES 32
#define MAX_TIERS 8
#define BATCH_NS 200000.0

static const size_t default_sizes[] = {16, 64, 256, 1408, 4096, 16384, 65536, 1u << 20};

enum fn {
    FN_CTR, FN_GCM_SEAL, FN_GCM_OPEN, FN_GHASH, FN_SIV_SEAL, FN_SIV_OPEN, FN_POLYVAL,
    FN_MSG_SEAL, FN_MSG_OPEN, FN_SIV_DERIVE, FN_POLYVAL_INIT, FN_POLYVAL_INIT_FEW,
    FN_SIV_MSG_SEAL, FN_SIV_MSG_OPEN, FN_SIV_SHORT_SEAL, FN_SIV_SHORT_OPEN, FN_GCM_SEAL_SECRET,
    FN_GCM_OPEN_SECRET, FN_SET_KEY, FN_GCM_HKEY, FN_SIV_KEYS, FN_SIV_KEYS_FEW, FN_GCM_HKEY_FEW,
    FN_GCM_HKEY_REST, NFNS
};
static const char *const fn_names[NFNS] = {
    "ctr",          "gcm-seal",         "gcm-open",       "ghash",          "siv-seal",
    "siv-open",     "polyval",          "msg-seal",       "msg-open",       "siv-derive",
    "polyval-init", "polyval-init-few", "siv-msg-seal",   "siv-msg-open",   "siv-short-seal",
    "siv-short-open", "gcm-seal-secret", "gcm-open-secret", "set-key", "gcm-hkey", "siv-keys",
    "siv-keys-few", "gcm-hkey-few", "gcm-hkey-rest"};
/* The key setup: once per call, no message size. */
static int fn_setup(enum fn f)
{
    return f == FN_SET_KEY || f == FN_GCM_HKEY || f == FN_SIV_KEYS || f == FN_SIV_KEYS_FEW
           || f == FN_GCM_HKEY_FEW || f == FN_GCM_HKEY_REST;
}

static int fn_keyed(enum fn f)
{
    return f != FN_GHASH && f != FN_POLYVAL && f != FN_POLYVAL_INIT && f != FN_POLYVAL_INIT_FEW;
}

static struct {
    const char *tiers[MAX_TIERS];
    int ntiers;
    int fns[NFNS], nfns;
    size_t sizes[MAX_SIZES];
    int nsizes;
    int keys[2], nkeys;
    double ms;
    int csv, insn;
} opt = {.ms = 40};

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- The clock --------------------------------------------------------------------------- */

/* n x 200 dependent adds. Register + register: Golden Cove-class cores fold chains of adds of
 * an immediate at rename (6 per cycle measured), which would make the clock look 6 times faster. */
static uint64_t add_chain(uint64_t n)
{
    uint64_t x = n, one = 1;

    for (uint64_t i = 0; i < n; i++) {
#if defined(__x86_64__)
        __asm__ volatile(".rept 200\n\tadd %1, %0\n\t.endr" : "+r"(x) : "r"(one));
#elif defined(__aarch64__)
        __asm__ volatile(".rept 200\n\tadd %0, %0, %1\n\t.endr" : "+r"(x) : "r"(one));
#else
        x = x * 3 + 1; /* no estimate without assembly: reported as such */
#endif
    }
    return x;
}

/* The core clock in GHz: the best of \p reps timed chains of 10 million adds. */
static double core_ghz(int reps)
{
    double best = 0;

    add_chain(20000); /* wake the core up */
    for (int i = 0; i < reps; i++) {
        uint64_t t0 = now_ns();
        add_chain(50000);
        double ghz = 50000.0 * 200 / (double)(now_ns() - t0);
        if (ghz > best)
            best = ghz;
    }
    return best;
}

/* ---- Timing ------------------------------------------------------------------------------ */

/* The fastest ns per call of run(arg) over opt.ms of batches. */
static double time_calls(void (*run)(void *arg), void *arg)
{
    uint64_t reps = 1, t0, t;
    double best = 1e30;

    for (;;) { /* calibrate: a batch of about BATCH_NS */
        t0 = now_ns();
        for (uint64_t i = 0; i < reps; i++)
            run(arg);
        t = now_ns() - t0;
        if (t >= BATCH_NS / 4 || reps > (1u << 30))
            break;
        reps *= 2;
    }
    reps = (uint64_t)(reps * BATCH_NS / (double)(t ? t : 1)) + 1;
    uint64_t end = now_ns() + (uint64_t)(opt.ms * 1e6);
    do {
        t0 = now_ns();
        for (uint64_t i = 0; i < reps; i++)
            run(arg);
        double per = (double)(now_ns() - t0) / (double)reps;
        if (per < best)
            best = per;
    } while (now_ns() < end);
    return best;
}

/* ---- The kernels ------------------------------------------------------------------------- */

typedef struct job {
    const aesfast_kernel *k;
    enum fn fn;
    aesfast_key key;
    _Alignas(64) aesfast_hash_key hkey;
    aesfast_gcm_msg msg, msg0; /* msg-seal, msg-open: the state after the AAD, and a copy */
    uint8_t acc[16], ctr[16];
    const uint8_t *in;
    uint8_t *out;
    size_t nblocks, bytes;
    aesfast_key enc_key;       /* GCM-SIV's per-nonce keys (siv-derive, siv-msg-*) */
    uint8_t auth[16], nonce[12], tag[16];
    uint8_t blocks[10 * 16];   /* siv-msg-*: AAD block, data blocks, lengths block */
    uint8_t raw[32];           /* set-key: the key bytes */
    size_t keylen;
} job;

/* A whole GCM-SIV message of j->bytes with 13 bytes of AAD, from the kernels called as the
 * provider calls them for it (provider/gcmsiv.c and stream.c): derive, the powers, the AAD block
 * queued with the data's first blocks if they are few, else hashed alone, the data, the last
 * blocks with the lengths block, the tag, CTR. */
static void siv_msg(job *j, int seal)
{
    const aesfast_kernel *k = j->k;
    const aesfast_aead_kernel *f = &k->gcmsiv;
    uint8_t s[16], ctr[16];
    size_t nb = j->bytes / 16, npend = 1; /* the AAD block */

    aesfast_gcmsiv_derive(k, &j->key, j->nonce, &j->enc_key, j->auth);
    (nb >= AESFAST_HASH_FEW ? f->hash_init : aesfast_hash_init_few(f))(&j->hkey, j->auth);
    memset(j->acc, 0, 16);
    memcpy(ctr, j->tag, 16);
    ctr[15] |= 0x80;
    if (nb >= AESFAST_HASH_FEW) {
        f->hash(&j->hkey, j->acc, j->blocks, 1);
        npend = 0;
        if (seal)
            f->hash(&j->hkey, j->acc, j->in, nb);
        else
            f->ctr_then_hash(&j->enc_key, &j->hkey, j->acc, ctr, j->in, j->out, nb);
    } else {
        if (!seal)
            (nb == 1 ? (void)k->encrypt_block(&j->enc_key, ctr, j->out)
                     : f->ctr(&j->enc_key, ctr, j->in, j->out, nb));
        memcpy(j->blocks + 16, seal ? j->in : j->out, j->bytes);
        npend += nb;
    }
    memset(j->blocks + 16 * npend, 0, 16); /* the lengths block */
    f->hash(&j->hkey, j->acc, j->blocks, npend + 1);
    memcpy(s, j->acc, 16);
    for (int i = 0; i < 12; i++)
        s[i] ^= j->nonce[i];
    s[15] &= 0x7f;
    k->encrypt_block(&j->enc_key, s, seal ? j->tag : s);
    if (seal) {
        memcpy(ctr, j->tag, 16);
        ctr[15] |= 0x80;
        f->ctr(&j->enc_key, ctr, j->in, j->out, nb);
    }
}

static void run_job(void *arg)
{
    job *j = arg;
    const aesfast_kernel *k = j->k;

    switch (j->fn) {
    case FN_CTR:
        k->ctr32_xor(&j->key, j->ctr, j->in, j->out, j->nblocks);
        break;
    case FN_GCM_SEAL: /* a public counter, as the provider's 12-byte IVs */
        aesfast_gcm_stitched(&k->gcm, 1, 1)(&j->key, &j->hkey, j->acc, j->ctr, j->in, j->out, j->nblocks);
        break;
    case FN_GCM_OPEN:
        aesfast_gcm_stitched(&k->gcm, 0, 1)(&j->key, &j->hkey, j->acc, j->ctr, j->in, j->out, j->nblocks);
        break;
    case FN_GCM_SEAL_SECRET: /* a secret one (J0 = GHASH(IV)): the forms that never branch on it */
        k->gcm.ctr_then_hash(&j->key, &j->hkey, j->acc, j->ctr, j->in, j->out, j->nblocks);
        break;
    case FN_GCM_OPEN_SECRET:
        k->gcm.hash_then_ctr(&j->key, &j->hkey, j->acc, j->ctr, j->in, j->out, j->nblocks);
        break;
    case FN_GHASH:
        k->gcm.hash(&j->hkey, j->acc, j->in, j->nblocks);
        break;
    case FN_SIV_SEAL:
        k->gcmsiv.hash(&j->hkey, j->acc, j->in, j->nblocks);
        k->gcmsiv.ctr(&j->key, j->ctr, j->in, j->out, j->nblocks);
        break;
    case FN_SIV_OPEN:
        k->gcmsiv.ctr_then_hash(&j->key, &j->hkey, j->acc, j->ctr, j->in, j->out, j->nblocks);
        break;
    case FN_POLYVAL:
        k->gcmsiv.hash(&j->hkey, j->acc, j->in, j->nblocks);
        break;
    case FN_MSG_SEAL:
    case FN_MSG_OPEN: /* the message state as the AAD left it (what the call changes) */
        memcpy(j->msg.queue, j->msg0.queue, 16);
        memcpy(j->msg.acc, j->msg0.acc, 16);
        j->msg.nqueue = 1;
        aesfast_gcm_msg_crypt(k, j->fn == FN_MSG_SEAL, &j->key, &j->hkey, &j->msg, j->in, j->out,
                              j->bytes);
        break;
    case FN_SIV_DERIVE:
        aesfast_gcmsiv_derive(k, &j->key, j->nonce, &j->enc_key, j->auth);
        break;
    case FN_POLYVAL_INIT:
        k->gcmsiv.hash_init(&j->hkey, j->auth);
        break;
    case FN_POLYVAL_INIT_FEW:
        aesfast_hash_init_few(&k->gcmsiv)(&j->hkey, j->auth);
        break;
    case FN_SIV_MSG_SEAL:
    case FN_SIV_MSG_OPEN:
        siv_msg(j, j->fn == FN_SIV_MSG_SEAL);
        break;
    case FN_SET_KEY: /* calls independent of each other, as keys set up one after another */
        k->set_key(&j->key, j->raw, j->keylen);
        break;
    case FN_GCM_HKEY:
    case FN_GCM_HKEY_FEW: {
        uint8_t h[16] = {0};

        k->encrypt_block(&j->key, h, h);
        (j->fn == FN_GCM_HKEY ? k->gcm.hash_init : aesfast_hash_init_few(&k->gcm))(&j->hkey, h);
        break;
    }
    case FN_GCM_HKEY_REST: /* on the table setup made, whose few powers are hash_init_few's */
        k->gcm.hash_init_rest(&j->hkey, j->auth);
        break;
    case FN_SIV_KEYS:
        aesfast_gcmsiv_derive(k, &j->key, j->nonce, &j->enc_key, j->auth);
        k->gcmsiv.hash_init(&j->hkey, j->auth);
        break;
    case FN_SIV_KEYS_FEW:
        aesfast_gcmsiv_derive(k, &j->key, j->nonce, &j->enc_key, j->auth);
        aesfast_hash_init_few(&k->gcmsiv)(&j->hkey, j->auth);
        break;
    case FN_SIV_SHORT_SEAL:
    case FN_SIV_SHORT_OPEN: {
        aesfast_gcmsiv_msg m = {j->nonce, j->auth, j->blocks, j->in, j->out, 1, 13, j->bytes,
                                {0}};
        (j->fn == FN_SIV_SHORT_SEAL ? k->gcmsiv_seal_short : k->gcmsiv_open_short)(&j->enc_key,
                                                                                   &m);
        memcpy(j->tag, m.tag, 16);
        break;
    }
    default:
        break;
    }
}

static void fill(uint8_t *p, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        p[i] = (uint8_t)(seed >> 56);
    }
}

static void print_header(void)
{
    if (opt.csv) {
        printf("tier,function,key_bits,bytes,ns_per_call,cycles_per_call,cycles_per_16_blocks,"
               "cycles_per_byte,gb_per_s,clock_ghz\n");
        return;
    }
    printf("%-12s %-9s %4s %8s %12s %12s %8s %8s %6s\n", "tier", "function", "key", "bytes",
           "cycles/call", "cyc/16 blk", "c/B", "GB/s", "GHz");
}

static void bench_tier(const aesfast_kernel *k, uint8_t *in, uint8_t *out)
{
    job *j = aligned_alloc(64, (sizeof(job) + 63) / 64 * 64);
    uint8_t raw[32], h[16];

    for (int fi = 0; fi < opt.nfns; fi++) {
        enum fn f = (enum fn)opt.fns[fi];
        for (int ki = 0; ki < (fn_keyed(f) ? opt.nkeys : 1); ki++) {
            int bits = fn_keyed(f) ? opt.keys[ki] : 0;
            memset(j, 0, sizeof(*j));
            j->k = k;
            j->fn = f;
            fill(raw, sizeof(raw), 1);
            fill(h, sizeof(h), 2);
            memcpy(j->raw, raw, sizeof(raw));
            j->keylen = bits ? (size_t)bits / 8 : 16;
            fill(j->ctr, sizeof(j->ctr), 3);
            k->set_key(&j->key, raw, bits ? (size_t)bits / 8 : 16);
            j->enc_key = j->key; /* the short kernels' encryption key */
            fill(j->auth, sizeof(j->auth), 5);
            fill(j->nonce, sizeof(j->nonce), 6);
            fill(j->tag, sizeof(j->tag), 7);
            fill(j->blocks, 16, 8);
            if ((f == FN_SIV_SHORT_SEAL || f == FN_SIV_SHORT_OPEN) && k->gcmsiv_seal_short == NULL)
                continue;
            if (f == FN_GCM_HKEY_REST && k->gcm.hash_init_rest == NULL)
                continue; /* (the tier's key makes the whole table) */
            if (f == FN_SIV_SEAL || f == FN_SIV_OPEN || f == FN_POLYVAL)
                k->gcmsiv.hash_init(&j->hkey, h);
            else
                k->gcm.hash_init(&j->hkey, h);
            j->in = in;
            j->out = out;
            memset(&j->msg0, 0, sizeof(j->msg0));
            fill(j->msg0.queue, 13, 5);
            fill(j->msg0.j0, 12, 6);
            j->msg0.j0[15] = 1;
            j->msg0.nqueue = 1;
            j->msg0.aadlen = 13;
            j->msg0.flags = AESFAST_MSG_CTR_PUBLIC;
            memcpy(&j->msg, &j->msg0, sizeof(j->msg));
            for (int si = 0; si < (fn_setup(f) ? 1 : opt.nsizes); si++) {
                int msg = f == FN_MSG_SEAL || f == FN_MSG_OPEN;
                size_t bytes = fn_setup(f) ? 0 : msg ? opt.sizes[si] : opt.sizes[si] / 16 * 16;
                double ns, ghz;
                j->nblocks = bytes / 16;
                j->bytes = bytes;
                if ((f == FN_SIV_SHORT_SEAL || f == FN_SIV_SHORT_OPEN)
                    && 1 + bytes / 16 + 1 > k->gcmsiv_short_blocks)
                    continue;
                for (int tries = 0;; tries++) {
                    double g1 = core_ghz(3);
                    ns = time_calls(run_job, j);
                    double g2 = core_ghz(3);
                    ghz = (g1 + g2) / 2;
                    if ((g1 > g2 ? g1 - g2 : g2 - g1) < 0.015 * ghz || tries == 4)
                        break;
                }
                double cyc = ns * ghz;
                if (bytes == 0 && opt.csv) /* key setup: per call only */
                    printf("%s,%s,%d,0,%.2f,%.1f,,,,%.3f\n", k->name, fn_names[f], bits, ns, cyc,
                           ghz);
                else if (bytes == 0)
                    printf("%-12s %-9s %4s %8s %12.1f %12s %8s %8s %6.3f\n", k->name, fn_names[f],
                           bits == 128 ? "128" : "256", "-", cyc, "-", "-", "-", ghz);
                else if (opt.csv)
                    printf("%s,%s,%d,%zu,%.2f,%.1f,%.2f,%.4f,%.3f,%.3f\n", k->name, fn_names[f],
                           bits, bytes, ns, cyc, cyc * 256 / (double)bytes, cyc / (double)bytes,
                           (double)bytes / ns, ghz);
                else
                    printf("%-12s %-9s %4s %8zu %12.1f %12.2f %8.4f %8.2f %6.3f\n", k->name,
                           fn_names[f], bits ? (bits == 128 ? "128" : "256") : "-", bytes, cyc,
                           cyc * 256 / (double)bytes, cyc / (double)bytes, (double)bytes / ns,
                           ghz);
                fflush(stdout);
            }
        }
    }
    free(j);
}

/* ---- Instruction loops (x86-64) ---------------------------------------------------------- */

#if defined(__x86_64__) && defined(AESFAST_ASM)
#define INSN_LOOPS(w)                                                                          \
    X(vaesenc_##w, 48, "VAESENC", #w) X(vpclmulqdq_##w, 48, "VPCLMULQDQ", #w)                  \
    X(vpxor_##w, 48, "VPXOR(D)", #w) X(vpxor_mem_##w, 48, "VPXOR(D) mem", #w)                  \
    X(vpshufb_##w, 48, "VPSHUFB", #w) X(vpshufd_##w, 48, "VPSHUFD", #w)                        \
    X(vpaddd_##w, 48, "VPADDD", #w) X(aes_clmul_##w, 48, "VAESENC+VPCLMULQDQ 1:1", #w)         \
    X(aes_xor_##w, 48, "VAESENC+VPXOR 1:1", #w) X(clmul_xor_##w, 48, "VPCLMULQDQ+VPXOR 1:1", #w) \
    X(aes_clmul_xor_##w, 48, "VAESENC+VPCLMULQDQ+VPXOR 1:1:1", #w)                             \
    X(aes_shufb_##w, 48, "VAESENC+VPSHUFB 1:1", #w)                                            \
    X(clmul_shufb_##w, 48, "VPCLMULQDQ+VPSHUFB 1:1", #w)                                       \
    X(lat_vaesenc_##w, 16, "VAESENC latency", #w)                                              \
    X(lat_vpclmulqdq_##w, 16, "VPCLMULQDQ latency", #w)                                        \
    X(lat_vpxor_##w, 16, "VPXOR(D) latency", #w)
#define ALL_INSN_LOOPS                                                                         \
    INSN_LOOPS(x) INSN_LOOPS(y) INSN_LOOPS(z) X(vpternlogd_y, 48, "VPTERNLOGD", "y")            \
    X(vpternlogd_z, 48, "VPTERNLOGD", "z") X(lat_vpternlogd_z, 16, "VPTERNLOGD latency", "z")

#define X(name, per, what, w) void bench_insn_##name(uint64_t iters);
ALL_INSN_LOOPS
#undef X

static const struct insn_loop {
    void (*fn)(uint64_t iters);
    int per_iter;
    const char *what, *width;
} insn_loops[] = {
#define X(name, per, what, w) {bench_insn_##name, per, what, w},
    ALL_INSN_LOOPS
#undef X
};

static void run_insn(void *arg)
{
    const struct insn_loop *l = arg;

    l->fn(1000);
}

static void bench_insn(double ghz)
{
    const aesfast_kernel *avx2 = aesfast_kernel_by_name("vaes-avx2");
    const aesfast_kernel *avx512 = aesfast_kernel_by_name("vaes-avx512");
    int y_ok = avx2 != NULL && aesfast_kernel_usable(avx2, NULL, 0);
    int z_ok = avx512 != NULL && aesfast_kernel_usable(avx512, NULL, 0);

    printf("%-34s %5s %10s %10s\n", "instruction loop", "width", "cyc/insn", "insn/cyc");
    for (size_t i = 0; i < sizeof(insn_loops) / sizeof(insn_loops[0]); i++) {
        const struct insn_loop *l = &insn_loops[i];
        char w = l->width[0];
        if ((w == 'z' && !z_ok) || (w == 'y' && !y_ok) || (w == 'x' && !y_ok))
            continue;
        double ns = time_calls(run_insn, (void *)l);
        double cyc = ns * ghz / (1000.0 * l->per_iter);
        printf("%-34s %5s %10.3f %10.2f\n", l->what, w == 'z' ? "zmm" : w == 'y' ? "ymm" : "xmm",
               cyc, 1 / cyc);
        fflush(stdout);
    }
}
#else
static void bench_insn(double ghz)
{
    (void)ghz;
    printf("kernels: --insn has loops for x86-64 only\n");
}
#endif

/* ---- Command line ------------------------------------------------------------------------ */

static void usage(void)
{
    fprintf(stderr, "usage: kernels [--tier T]... [--fn F,...] [--sizes N,...] [--keys 128,256] "
                    "[--ms MS] [--csv] | --insn\n  functions:");
    for (int f = 0; f < NFNS; f++)
        fprintf(stderr, " %s", fn_names[f]);
    fprintf(stderr, "\n");
    exit(2);
}

static size_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);

    if (*end == 'k' || *end == 'K')
        v <<= 10, end++;
    else if (*end == 'm' || *end == 'M')
        v <<= 20, end++;
    if (*end != '\0' || v < 16 || v > (1u << 24))
        usage();
    return (size_t)v;
}

static void parse_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--csv") == 0) {
            opt.csv = 1;
        } else if (strcmp(a, "--insn") == 0) {
            opt.insn = 1;
        } else if (v == NULL) {
            usage();
        } else if (strcmp(a, "--tier") == 0 && opt.ntiers < MAX_TIERS) {
            opt.tiers[opt.ntiers++] = v, i++;
        } else if (strcmp(a, "--ms") == 0) {
            opt.ms = atof(v), i++;
        } else if (strcmp(a, "--fn") == 0 || strcmp(a, "--sizes") == 0
                   || strcmp(a, "--keys") == 0) {
            char *copy = strdup(v), *save, *t;
            for (t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (a[2] == 'f') {
                    int f = 0;
                    while (f < NFNS && strcmp(fn_names[f], t) != 0)
                        f++;
                    if (f == NFNS)
                        usage();
                    opt.fns[opt.nfns++] = f;
                } else if (a[2] == 's' && opt.nsizes < MAX_SIZES) {
                    opt.sizes[opt.nsizes++] = parse_size(t);
                } else if (a[2] == 'k' && opt.nkeys < 2) {
                    int bits = atoi(t);
                    if (bits != 128 && bits != 256)
                        usage();
                    opt.keys[opt.nkeys++] = bits;
                }
            }
            free(copy);
            i++;
        } else {
            usage();
        }
    }
    if (opt.nfns == 0)
        for (int f = 0; f < NFNS; f++)
            opt.fns[opt.nfns++] = f;
    if (opt.nsizes == 0)
        for (size_t s = 0; s < sizeof(default_sizes) / sizeof(default_sizes[0]); s++)
            opt.sizes[opt.nsizes++] = default_sizes[s];
    if (opt.nkeys == 0)
        opt.keys[0] = 128, opt.keys[1] = 256, opt.nkeys = 2;
    if (opt.ms <= 0)
        usage();
}

int main(int argc, char **argv)
{
    parse_args(argc, argv);

    char cpu[256];
    double ghz = core_ghz(30);
    aesfast_cpu_describe(cpu, sizeof(cpu));
    if (!opt.csv)
        printf("kernels: cpu features: %s\nkernels: core clock %.3f GHz (dependent adds, "
               "before)\n", cpu, ghz);
    if (opt.insn) {
        bench_insn(ghz);
    } else {
        size_t max = 0;
        for (int s = 0; s < opt.nsizes; s++)
            max = opt.sizes[s] > max ? opt.sizes[s] : max;
        uint8_t *in = aligned_alloc(64, max + 64), *out = aligned_alloc(64, max + 64);
        fill(in, max, 4);
        memset(out, 0, max);
        print_header();
        for (const aesfast_kernel *const *p = aesfast_kernels; *p != NULL; p++) {
            int named = opt.ntiers == 0;
            for (int t = 0; t < opt.ntiers; t++)
                named |= strcmp(opt.tiers[t], (*p)->name) == 0;
            char why[160];
            if (!named)
                continue;
            if (!aesfast_kernel_usable(*p, why, sizeof(why))) {
                if (!opt.csv)
                    printf("kernels: %s skipped (%s)\n", (*p)->name, why);
                continue;
            }
            bench_tier(*p, in, out);
        }
        free(in);
        free(out);
    }
    double after = core_ghz(30);
    if (!opt.csv)
        printf("kernels: core clock %.3f GHz (after)%s\n", after,
               opt.insn ? "; cycles above use the first" : "");
    return 0;
}
