/*
 * ct_test: the kernels' constant-time promise, checked by Valgrind's memcheck.
 *
 * Memcheck tracks, bit by bit, which values were computed from "undefined" memory, and reports a
 * conditional jump or a memory address that depends on one. Marking the secrets undefined turns
 * it into a checker for the rule in aesfast_kernel.h: nothing branches on, or indexes memory by,
 * key or data bytes. Each tier runs set_key, encrypt_block and ctr32_xor on all three key sizes
 * and on 0..40, 100 and 1000 blocks (every tail path and the main loop, with a counter that wraps
 * mid-call), at several misalignments and in place, with these secrets marked:
 *
 *   all       raw key, expanded key, input and counter block (the counter is public in practice,
 *             but the ABI lets only the round and block counts steer control flow)
 *   raw key   only the raw key: its taint must reach rk[] through set_key, then every output
 *   exp key   only aesfast_key's round keys (rk[], bitsliced[]), marked after set_key
 *   input     only the plaintext
 *   counter   only the counter block (ctr32_xor)
 *
 * and GCM's kernels (gcm.hash_init, gcm.hash, gcm.ctr_then_hash, gcm.hash_then_ctr, and the
 * one-call gcm_seal_msg and gcm_open_msg where the tier has them) on the same
 * block counts, key sizes and buffers, with these secrets marked:
 *
 *   all       raw key, expanded key, H (the hash key passed to hash_init), the tier's table of H
 *             (aesfast_hash_key, marked again after hash_init), acc, input and counter block
 *   exp key   only aesfast_key's round keys
 *   H         only H before hash_init: its taint must reach the table, then acc
 *   H table   only the table, marked after hash_init
 *   acc       only the hash state passed in
 *   input     only the input blocks
 *   counter   only the counter block
 *
 * A secret that never reached the kernel would make the whole run vacuous, so after each call,
 * before un-marking anything, every output bit must still be undefined ("tainted"): read with
 * VALGRIND_GET_VBITS, which, unlike VALGRIND_CHECK_MEM_IS_DEFINED, records no memcheck error.
 * (For GCM: out must be tainted when key, input or counter is secret, acc when anything that
 * flows into the hash is.) Then the outputs are marked defined and compared with the portable
 * tier run on defined inputs, and each tier's encrypt_block with FIPS-197's known answers.
 * key->rounds stays defined: the round count is public and does steer control flow.
 *
 * Memcheck errors are counted per call with VALGRIND_COUNT_ERRORS, so a finding is a failure
 * here even without --error-exitcode, and names the call that caused it.
 *
 *   valgrind --error-exitcode=1 [-q] [--track-origins=yes] ct_test TIER...
 * Exit 0 pass, 1 fail, 77 (skip) when not under memcheck or no named tier runs on this CPU as
 * memcheck presents it (its CPUID shows only what it emulates: no VAES or AVX-512 in 3.19).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <valgrind/memcheck.h>
#include <valgrind/valgrind.h>

#include "aesfast_kernel.h"
#include "check.h"
#include "dispatch.h"
#include "tiers.h"

enum {
    MAXBLOCKS = 1000,
    S_RAWKEY = 1, /* which secrets a case marks undefined */
    S_EXPKEY = 2,
    S_INPUT = 4,
    S_COUNTER = 8,
    S_ALL = S_RAWKEY | S_EXPKEY | S_INPUT | S_COUNTER,
    S_HRAW = 16, /* GCM: H passed to hash_init */
    S_HTABLE = 32, /* GCM: the table hash_init wrote */
    S_ACC = 64,  /* GCM: the hash state */
    S_GCM_ALL = S_ALL | S_HRAW | S_HTABLE | S_ACC,
};

/* The cases: which secrets each marks (S_* bits), and its name. */
struct secret_case {
    unsigned secrets;
    const char *name;
};
static const struct secret_case cases[] = {
    {S_ALL, "all"},         {S_RAWKEY, "raw key"}, {S_EXPKEY, "exp key"},
    {S_INPUT, "input"},     {S_COUNTER, "counter"},
};
static const struct secret_case gcm_cases[] = {
    {S_GCM_ALL, "all"}, {S_EXPKEY, "exp key"}, {S_HRAW, "H"},         {S_HTABLE, "H table"},
    {S_ACC, "acc"},     {S_INPUT, "input"},    {S_COUNTER, "counter"},
};

enum { NCOUNTS = 41 + 2 };
static size_t counts[NCOUNTS]; /* the block counts: 0..40, 100, 1000 */
static size_t ncounts;

/* The inputs, the same for every tier and case; the reference outputs per key size. */
static uint8_t raw_keys[3][32], plain[MAXBLOCKS * 16], ctr0[16];
static uint8_t ref_ctr[3][MAXBLOCKS * 16], ref_block[3][16];
/* GCM: H and the acc passed in; acc after hashing plain's first counts[c] blocks, and after
 * sealing them (hashing ref_ctr's) per key size. */
static uint8_t h0[16], acc0[16], ref_hash[NCOUNTS][16], ref_seal[3][NCOUNTS][16];
static aesfast_hash_key hkey;
/* Working buffers: room for a misalignment of up to 15 bytes. */
static uint8_t inbuf[MAXBLOCKS * 16 + 16], outbuf[MAXBLOCKS * 16 + 16];


/* 1 if every bit of p[0..n) is undefined for memcheck; *where is the first byte that is not. */
static int all_undefined(const void *p, size_t n, size_t *where)
{
    uint8_t vbits[256];

    for (size_t off = 0; off < n; off += sizeof(vbits)) {
        size_t len = n - off < sizeof(vbits) ? n - off : sizeof(vbits);

        if (VALGRIND_GET_VBITS((const uint8_t *)p + off, vbits, len) != 1) {
            *where = off;
            return 0;
        }
        for (size_t i = 0; i < len; i++)
            if (vbits[i] != 0xff) { /* a set bit is an undefined bit */
                *where = off + i;
                return 0;
            }
    }
    return 1;
}

static void secret(const void *p, size_t n, int yes)
{
    if (yes)
        VALGRIND_MAKE_MEM_UNDEFINED(p, n);
    else
        VALGRIND_MAKE_MEM_DEFINED(p, n);
}

/* A fresh input for one call: n bytes of src copied to dst, secret if yes (defined if not). */
static void load(void *dst, const void *src, size_t n, int yes)
{
    memcpy(dst, src, n);
    secret(dst, n, yes);
}

/* Marks aesfast_key's round keys (rk[], bitsliced[]) secret. */
static void secret_round_keys(aesfast_key *key)
{
    VALGRIND_MAKE_MEM_UNDEFINED(key->rk, sizeof(key->rk));
    VALGRIND_MAKE_MEM_UNDEFINED(key->bitsliced, sizeof(key->bitsliced));
}

/* set_key on key size ki, the raw key secret if s has S_RAWKEY (its taint must then reach the
 * round keys). Returns the number of memcheck errors set_key caused. */
static unsigned case_key(const aesfast_kernel *k, int ki, unsigned s, aesfast_key *key)
{
    const size_t keylen = 16 + 8 * (size_t)ki;
    uint8_t raw[32];
    unsigned e;

    memset(key, 0, sizeof(*key));
    load(raw, raw_keys[ki], keylen, s & S_RAWKEY);
    e = VALGRIND_COUNT_ERRORS;
    k->set_key(key, raw, keylen);
    return VALGRIND_COUNT_ERRORS - e;
}

/* The buffers of a call on n blocks, so that every count meets its own misalignments: the input
 * at n % 16, the output at 5n % 16, or in place (returns 1) when n % 7 == 3. */
static int block_bufs(size_t n, uint8_t **ip, uint8_t **op)
{
    const int in_place = n % 7 == 3;

    *ip = inbuf + n % 16;
    *op = in_place ? *ip : outbuf + (n * 5) % 16;
    return in_place;
}

/* After one kernel call: no new memcheck error; the output (out_name: "output", "acc") tainted
 * if a secret flowed into it; then the output defined again and equal to the reference. */
static void after_call(unsigned errors_before, const uint8_t *out, const uint8_t *want, size_t n,
                       int tainted, const char *what, const char *out_name)
{
    unsigned errors = VALGRIND_COUNT_ERRORS - errors_before;
    size_t where = 0;

    CHECK(errors == 0, "%s: memcheck reported %u error(s) (secret-dependent branch or address)",
          what, errors);
    if (tainted && n > 0)
        CHECK(all_undefined(out, n, &where),
              "%s: %s byte %zu is (partly) defined: the secrets did not reach it", what,
              out_name, where);
    VALGRIND_MAKE_MEM_DEFINED(out, n);
    CHECK(memcmp(out, want, n) == 0, "%s: wrong %s", what, out_name);
}

static void run_case(const aesfast_kernel *k, int ki, unsigned s, const char *cname)
{
    const size_t keylen = 16 + 8 * (size_t)ki;
    const int key_secret = (s & (S_RAWKEY | S_EXPKEY)) != 0;
    char what[160], w2[200];
    uint8_t in[16], out[16], ctr[16];
    aesfast_key key;
    size_t where = 0;
    unsigned e;

    snprintf(what, sizeof(what), "%s AES-%zu [%s]", k->name, 8 * keylen, cname);

    /* set_key (the round keys checked before S_EXPKEY marks them: that would hide a taint that
     * never came from the raw key) */
    CHECK(case_key(k, ki, s, &key) == 0, "%s set_key: memcheck reported an error", what);
    CHECK(key.rounds == 6 + keylen / 4, "%s set_key: rounds %u", what, key.rounds);
    if (s & S_RAWKEY)
        CHECK(all_undefined(key.rk, 16 * (key.rounds + 1), &where),
              "%s set_key: round-key byte %zu is (partly) defined", what, where);
    if (s & S_EXPKEY)
        secret_round_keys(&key);

    /* encrypt_block, out of place and in place */
    for (int in_place = 0; in_place <= 1; in_place++) {
        uint8_t *ip = in_place ? out : in;

        snprintf(w2, sizeof(w2), "%s encrypt_block%s", what, in_place ? " in place" : "");
        load(ip, plain, 16, s & S_INPUT);
        e = VALGRIND_COUNT_ERRORS;
        k->encrypt_block(&key, ip, out);
        after_call(e, out, ref_block[ki], 16, key_secret || (s & S_INPUT), w2, "output");
    }

    /* ctr32_xor */
    for (size_t c = 0; c < ncounts; c++) {
        const size_t n = counts[c], len = 16 * n;
        uint8_t *ip, *op;
        const int in_place = block_bufs(n, &ip, &op);

        snprintf(w2, sizeof(w2), "%s ctr32_xor %zu blocks%s", what, n,
                 in_place ? " in place" : "");
        load(ip, plain, len, s & S_INPUT);
        load(ctr, ctr0, 16, s & S_COUNTER);
        e = VALGRIND_COUNT_ERRORS;
        k->ctr32_xor(&key, ctr, ip, op, n);
        after_call(e, op, ref_ctr[ki], len, 1, w2, "output");
    }
}

/* GCM's kernels with secrets s (S_* bits) on key size ki. The input is plain, the counter block
 * ctr0, acc acc0: both stitched functions then output ref_ctr's blocks. */
static void run_gcm_case(const aesfast_kernel *k, int ki, unsigned s, const char *cname)
{
    const size_t keylen = 16 + 8 * (size_t)ki;
    const aesfast_aead_kernel *g = &k->gcm;
    const int key_secret = (s & (S_RAWKEY | S_EXPKEY)) != 0;
    const int h_secret = (s & (S_HRAW | S_HTABLE)) != 0;
    char what[160], w2[200];
    uint8_t h[16], acc[16], ctr[16];
    aesfast_key key;
    unsigned e;

    snprintf(what, sizeof(what), "%s AES-%zu GCM [%s]", k->name, 8 * keylen, cname);
    case_key(k, ki, s, &key); /* (run_case checks set_key itself) */
    if (s & S_EXPKEY)
        secret_round_keys(&key);

    memset(&hkey, 0, sizeof(hkey));
    load(h, h0, 16, s & S_HRAW);
    e = VALGRIND_COUNT_ERRORS;
    g->hash_init(&hkey, h);
    CHECK(VALGRIND_COUNT_ERRORS == e, "%s hash_init: memcheck reported %u error(s)", what,
          VALGRIND_COUNT_ERRORS - e);
    if (s & S_HTABLE)
        VALGRIND_MAKE_MEM_UNDEFINED(&hkey, sizeof(hkey));

    for (size_t c = 0; c < ncounts; c++) {
        const size_t n = counts[c], len = 16 * n;
        uint8_t *ip, *op;
        const int in_place = block_bufs(n, &ip, &op);
        /* What reaches acc through the hash of n > 0 blocks, and what reaches out. */
        const int hashed = n > 0 && (h_secret || (s & S_INPUT));
        const int out_tainted = key_secret || (s & (S_INPUT | S_COUNTER));

        snprintf(w2, sizeof(w2), "%s hash %zu blocks", what, n);
        load(ip, plain, len, s & S_INPUT);
        load(acc, acc0, 16, s & S_ACC);
        e = VALGRIND_COUNT_ERRORS;
        g->hash(&hkey, acc, ip, n);
        after_call(e, acc, ref_hash[c], 16, (s & S_ACC) || hashed, w2, "acc");

        for (int open = 0; open <= 1; open++) {
            aesfast_aead_crypt_fn *fn = open ? g->hash_then_ctr : g->ctr_then_hash;
            /* seal hashes its output, which key and counter reach too; open hashes its input */
            const int acc_tainted = (s & S_ACC) || hashed
                                    || (!open && n > 0 && out_tainted);

            snprintf(w2, sizeof(w2), "%s %s %zu blocks%s", what,
                     open ? "hash_then_ctr" : "ctr_then_hash", n, in_place ? " in place" : "");
            load(ip, plain, len, s & S_INPUT);
            load(ctr, ctr0, 16, s & S_COUNTER);
            load(acc, acc0, 16, s & S_ACC);
            e = VALGRIND_COUNT_ERRORS;
            fn(&key, &hkey, acc, ctr, ip, op, n);
            after_call(e, acc, open ? ref_hash[c] : ref_seal[ki][c], 16, acc_tainted, w2, "acc");
            after_call(VALGRIND_COUNT_ERRORS, op, ref_ctr[ki], len, out_tainted, w2, "output");
            VALGRIND_MAKE_MEM_DEFINED(ctr, 16);
            CHECK(memcmp(ctr, ctr0, 16) == 0, "%s: the counter block changed", w2);
        }
    }
    VALGRIND_MAKE_MEM_DEFINED(&hkey, sizeof(hkey));
}

/* GCM-SIV's kernels (polyval_init, polyval, ctr32le_xor, the stitched open) with everything
 * secret at once (key, H, acc, input, counter), on fewer block counts than GCM: the same
 * instructions as GCM's loops with another shuffle and counter format. The expected results come
 * from the generic tier on the same inputs before anything is marked. */
static void run_gcmsiv_case(const aesfast_kernel *k, int ki)
{
    static const size_t siv_counts[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 100};
    const size_t keylen = 16 + 8 * (size_t)ki;
    const aesfast_aead_kernel *g = &k->gcmsiv, *ref = &aesfast_kernel_by_name("generic")->gcmsiv;
    static uint8_t want[100 * 16];
    static aesfast_hash_key hk_ref;
    aesfast_key key, key_ref;
    uint8_t h[16], acc[16], want_acc[16], ctr[16];
    char what[160];
    unsigned e;

    aesfast_kernel_by_name("generic")->set_key(&key_ref, raw_keys[ki], keylen);
    ref->hash_init(&hk_ref, h0);
    k->set_key(&key, raw_keys[ki], keylen);
    load(h, h0, 16, 1);
    memset(&hkey, 0, sizeof(hkey));
    e = VALGRIND_COUNT_ERRORS;
    g->hash_init(&hkey, h);
    CHECK(VALGRIND_COUNT_ERRORS == e, "%s AES-%zu GCM-SIV polyval_init: memcheck reported %u "
          "error(s)", k->name, 8 * keylen, VALGRIND_COUNT_ERRORS - e);
    VALGRIND_MAKE_MEM_UNDEFINED(&hkey, sizeof(hkey));
    secret_round_keys(&key);
    for (size_t c = 0; c < sizeof(siv_counts) / sizeof(siv_counts[0]); c++) {
        const size_t n = siv_counts[c], len = 16 * n;
        uint8_t *ip = inbuf + n % 16, *op = outbuf + (n * 3) % 16;

        /* polyval */
        memcpy(want_acc, acc0, 16);
        ref->hash(&hk_ref, want_acc, plain, n);
        load(ip, plain, len, 1);
        load(acc, acc0, 16, 1);
        snprintf(what, sizeof(what), "%s AES-%zu GCM-SIV polyval %zu blocks", k->name,
                 8 * keylen, n);
        e = VALGRIND_COUNT_ERRORS;
        g->hash(&hkey, acc, ip, n);
        after_call(e, acc, want_acc, 16, 1, what, "acc");
        /* ctr32le_xor (its counter word wraps after 5 blocks) */
        memcpy(ctr, ctr0, 16);
        ctr[0] = 0xfb, ctr[1] = ctr[2] = ctr[3] = 0xff;
        ref->ctr(&key_ref, ctr, plain, want, n);
        load(ip, plain, len, 1);
        secret(ctr, 16, 1);
        snprintf(what, sizeof(what), "%s AES-%zu GCM-SIV ctr32le_xor %zu blocks", k->name,
                 8 * keylen, n);
        e = VALGRIND_COUNT_ERRORS;
        g->ctr(&key, ctr, ip, op, n);
        after_call(e, op, want, len, n > 0, what, "output");
        /* the stitched open, in place */
        VALGRIND_MAKE_MEM_DEFINED(ctr, 16);
        memcpy(want_acc, acc0, 16);
        ref->ctr_then_hash(&key_ref, &hk_ref, want_acc, ctr, plain, want, n);
        load(ip, plain, len, 1);
        secret(ctr, 16, 1);
        load(acc, acc0, 16, 1);
        snprintf(what, sizeof(what), "%s AES-%zu GCM-SIV ctr_then_hash %zu blocks", k->name,
                 8 * keylen, n);
        e = VALGRIND_COUNT_ERRORS;
        g->ctr_then_hash(&key, &hkey, acc, ctr, ip, ip, n);
        after_call(e, ip, want, len, n > 0, what, "output");
        after_call(VALGRIND_COUNT_ERRORS, acc, want_acc, 16, 1, what, "acc");
        VALGRIND_MAKE_MEM_DEFINED(ctr, 16);
    }
    VALGRIND_MAKE_MEM_DEFINED(&hkey, sizeof(hkey));

    /* The per-nonce keys: gcmsiv_derive with the key-generating key and the nonce secret, its
     * outputs against the composition from the generic tier (ctr32le_xor, set_key). */
    if (k->gcmsiv_derive != NULL) {
        static const uint8_t zero[6 * 16];
        uint8_t nonce[12], blocks[6 * 16], enc[32], auth[16], c0[16] = {0};
        aesfast_key ek, ek_ref;

        memcpy(nonce, ctr0, 12);
        memcpy(c0 + 4, nonce, 12);
        ref->ctr(&key_ref, c0, zero, blocks, 6);
        for (size_t j = 2; j < 2 + keylen / 8; j++)
            memcpy(enc + 8 * (j - 2), blocks + 16 * j, 8);
        aesfast_kernel_by_name("generic")->set_key(&ek_ref, enc, keylen);
        k->set_key(&key, raw_keys[ki], keylen);
        VALGRIND_MAKE_MEM_UNDEFINED(key.rk, sizeof(key.rk));
        secret(nonce, 12, 1);
        snprintf(what, sizeof(what), "%s AES-%zu GCM-SIV gcmsiv_derive", k->name, 8 * keylen);
        e = VALGRIND_COUNT_ERRORS;
        k->gcmsiv_derive(&key, nonce, &ek, auth);
        after_call(e, ek.rk, ek_ref.rk, 16 * (ek_ref.rounds + 1), 1, what, "round-key");
        memcpy(blocks + 8, blocks + 16, 8); /* the authentication key: blocks 0 and 1, 8 bytes each */
        after_call(VALGRIND_COUNT_ERRORS, auth, blocks, 16, 1, what, "authentication key");
    }
}

/* A whole GCM-SIV message from the nonce's keys, composed from the generic tier's functions
 * (everything defined): what gcmsiv_seal_short (seal) and _open_short compute into out and
 * m->tag. */
static void gcmsiv_short_ref(const aesfast_key *ek, aesfast_gcmsiv_msg *m, uint8_t *out, int seal)
{
    const aesfast_kernel *g = aesfast_kernel_by_name("generic");
    static uint8_t pt[16 * 64], ks[16 * 64];
    aesfast_hash_key *hk = &hkey;
    uint8_t acc[16] = {0}, ctr[16], lens[16];
    size_t nb = (m->len + 15) / 16;

    memset(pt, 0, sizeof(pt));
    memset(ks, 0, sizeof(ks));
    memcpy(ctr, m->tag, 16);
    ctr[15] |= 0x80;
    g->gcmsiv.ctr(ek, ctr, ks, ks, nb);
    for (size_t i = 0; i < m->len; i++)
        pt[i] = seal ? m->in[i] : (uint8_t)(m->in[i] ^ ks[i]);
    g->gcmsiv.hash_init(hk, m->auth);
    g->gcmsiv.hash(hk, acc, m->aad, m->naad);
    g->gcmsiv.hash(hk, acc, pt, nb);
    for (int i = 0; i < 8; i++) {
        lens[i] = (uint8_t)(m->aadlen * 8 >> (8 * i));
        lens[8 + i] = (uint8_t)(m->len * 8 >> (8 * i));
    }
    g->gcmsiv.hash(hk, acc, lens, 1);
    for (int i = 0; i < 12; i++)
        acc[i] ^= m->nonce[i];
    acc[15] &= 0x7f;
    g->encrypt_block(ek, acc, m->tag);
    if (seal) {
        memcpy(ctr, m->tag, 16);
        ctr[15] |= 0x80;
        g->gcmsiv.ctr(ek, ctr, m->in, out, nb);
    } else {
        memcpy(out, pt, m->len);
    }
}

/* The short-message kernels with everything secret (round keys, H, nonce, AAD, data, tag
 * received) on a spread of AAD block counts and data lengths up to the tier's bound: no secret
 * branch or address, out and the tag tainted, both right. */
static void run_gcmsiv_short(const aesfast_kernel *k, int ki)
{
    static const size_t lens[] = {0, 1, 15, 16, 17, 31, 33, 64, 100, 200, 255, 480};
    const size_t keylen = 16 + 8 * (size_t)ki;
    static uint8_t want[480 + 16];
    uint8_t nonce[12], auth[16], aad[2 * 16], tag[16];
    aesfast_key ek;
    char what[160];
    unsigned e;

    if (k->gcmsiv_seal_short == NULL)
        return;
    aesfast_generic_set_key(&ek, raw_keys[ki], keylen);
    for (size_t naad = 0; naad <= 2; naad++) {
        for (size_t c = 0; c < sizeof(lens) / sizeof(lens[0]); c++) {
            const size_t len = lens[c];
            if (naad + (len + 15) / 16 + 1 > k->gcmsiv_short_blocks)
                continue;
            for (int seal = 0; seal <= 1; seal++) {
                uint8_t *ip = inbuf + len % 16, *op = seal ? outbuf + (len * 3) % 16 : ip;
                aesfast_gcmsiv_msg m;

                memcpy(nonce, ctr0, 12);
                memcpy(auth, h0, 16);
                memcpy(aad, plain + 1000, sizeof(aad));
                memcpy(tag, acc0, 16);
                m = (aesfast_gcmsiv_msg){nonce, auth, aad, plain, want, naad, 16 * naad - naad,
                                         len, {0}};
                memcpy(m.tag, tag, 16);
                gcmsiv_short_ref(&ek, &m, want, seal);
                memcpy(tag, m.tag, 16); /* the expected tag */
                m = (aesfast_gcmsiv_msg){nonce, auth, aad, ip, op, naad, 16 * naad - naad, len,
                                         {0}};
                memcpy(m.tag, acc0, 16);
                load(ip, plain, len, 1);
                secret(nonce, 12, 1);
                secret(auth, 16, 1);
                secret(aad, sizeof(aad), 1);
                secret(m.tag, 16, 1);
                secret_round_keys(&ek);
                snprintf(what, sizeof(what), "%s AES-%zu GCM-SIV %s_short, %zu AAD blocks, %zu "
                         "bytes", k->name, 8 * keylen, seal ? "seal" : "open", naad, len);
                e = VALGRIND_COUNT_ERRORS;
                (seal ? k->gcmsiv_seal_short : k->gcmsiv_open_short)(&ek, &m);
                after_call(e, op, want, len, len > 0, what, "output");
                after_call(VALGRIND_COUNT_ERRORS, m.tag, tag, 16, 1, what, "tag");
                VALGRIND_MAKE_MEM_DEFINED(&ek, sizeof(ek));
                VALGRIND_MAKE_MEM_DEFINED(nonce, 12);
                VALGRIND_MAKE_MEM_DEFINED(auth, 16);
                VALGRIND_MAKE_MEM_DEFINED(aad, sizeof(aad));
            }
        }
    }
}

/* GCM's message in one call (aesfast_gcm_msg_crypt: the tier's kernel or the composer), with
 * the key, the table, acc, the queued blocks, the input and (flags 0) J0 secret, on data lengths
 * around the tier's groups and tails and queues of 0..3 blocks; a public J0 (a 12-byte IV's)
 * stays defined. The expected results are the same call's on the same inputs, all defined, before any
 * mark (kernel_test checks those against libcrypto). */
static void run_gcm_msg_case(const aesfast_kernel *k, int ki)
{
    static const size_t lens[] = {0, 1, 13, 15, 16, 17, 31, 100, 112, 113, 127, 128, 129, 255,
                                  256, 257, 497, 1000, 4003};
    const size_t keylen = 16 + 8 * (size_t)ki;
    static aesfast_gcm_msg msg, want_msg;
    static uint8_t want[4003];
    aesfast_key key;
    char what[200];
    unsigned e;

    k->set_key(&key, raw_keys[ki], keylen);
    k->gcm.hash_init(&hkey, h0);
    for (size_t c = 0; c < sizeof(lens) / sizeof(lens[0]); c++)
        for (int t = 0; t < 4; t++) {
            const size_t len = lens[c];
            const int open = t % 2, public = t / 2;
            uint8_t *ip = inbuf + len % 16, *op = outbuf + (len * 3) % 16;

            memset(&msg, 0, sizeof(msg));
            memcpy(msg.queue, plain + 16 * (c % 7), 16 * 3);
            memcpy(msg.acc, acc0, 16);
            memcpy(msg.j0, ctr0, 16);
            msg.nqueue = (c + (size_t)t) % 4;
            msg.aadlen = 16 * msg.nqueue - (c % 3);
            msg.flags = public ? AESFAST_MSG_CTR_PUBLIC : 0;
            memcpy(&want_msg, &msg, sizeof(msg));
            aesfast_gcm_msg_crypt(k, !open, &key, &hkey, &want_msg, plain, want, len);

            snprintf(what, sizeof(what), "%s AES-%zu gcm_%s_msg %zu bytes, %llu queued, J0 %s",
                     k->name, 8 * keylen, open ? "open" : "seal", len,
                     (unsigned long long)msg.nqueue, public ? "public" : "secret");
            load(ip, plain, len, 1);
            secret_round_keys(&key);
            VALGRIND_MAKE_MEM_UNDEFINED(&hkey, sizeof(hkey));
            VALGRIND_MAKE_MEM_UNDEFINED(msg.queue, sizeof(msg.queue));
            VALGRIND_MAKE_MEM_UNDEFINED(msg.acc, 16);
            if (!public)
                VALGRIND_MAKE_MEM_UNDEFINED(msg.j0, 16);
            e = VALGRIND_COUNT_ERRORS;
            aesfast_gcm_msg_crypt(k, !open, &key, &hkey, &msg, ip, op, len);
            after_call(e, op, want, len, 1, what, "output");
            after_call(VALGRIND_COUNT_ERRORS, msg.tag, want_msg.tag, 16, 1, what, "tag");
            VALGRIND_MAKE_MEM_DEFINED(&msg, sizeof(msg));
            VALGRIND_MAKE_MEM_DEFINED(key.rk, sizeof(key.rk));
            VALGRIND_MAKE_MEM_DEFINED(key.bitsliced, sizeof(key.bitsliced));
            VALGRIND_MAKE_MEM_DEFINED(&hkey, sizeof(hkey));
            CHECK(memcmp(&msg, &want_msg, offsetof(aesfast_gcm_msg, queue) +
                         16 * want_msg.nqueue) == 0
                      && memcmp(msg.acc, want_msg.acc, offsetof(aesfast_gcm_msg, flags) + 8
                                - offsetof(aesfast_gcm_msg, acc)) == 0,
                  "%s: the message state differs from the defined run", what);
        }
}

/* FIPS-197 appendix C: plaintext 00112233..ff under the keys 000102..; the ciphertexts. */
static void check_fips197(const aesfast_kernel *k)
{
    static const char *const want_hex[3] = {
        "69c4e0d86a7b0430d8cdb78070b4c55a",
        "dda97ca4864cdfe06eaf70a0ec0d7191",
        "8ea2b7ca516745bfeafc49904b496089",
    };
    uint8_t raw[32], in[16], out[16], want[16];
    aesfast_key key;

    for (int i = 0; i < 32; i++)
        raw[i] = (uint8_t)i;
    for (int i = 0; i < 16; i++)
        in[i] = (uint8_t)(0x11 * i);
    for (int ki = 0; ki < 3; ki++) {
        for (int i = 0; i < 16; i++)
            sscanf(want_hex[ki] + 2 * i, "%2hhx", &want[i]);
        k->set_key(&key, raw, 16 + 8 * (size_t)ki);
        k->encrypt_block(&key, in, out);
        CHECK(memcmp(out, want, 16) == 0, "%s: FIPS-197 AES-%d known answer", k->name,
              128 + 64 * ki);
    }
}

static void setup(void)
{
    unsigned long long x = 0x243f6a8885a308d3ull; /* a fixed xorshift stream: reproducible */
    uint8_t *bufs[] = {raw_keys[0], raw_keys[1], raw_keys[2], plain, h0, acc0};
    size_t lens[] = {32, 32, 32, sizeof(plain), 16, 16};

    for (size_t b = 0; b < sizeof(bufs) / sizeof(bufs[0]); b++)
        for (size_t i = 0; i < lens[b]; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            bufs[b][i] = (uint8_t)(x >> 24);
        }
    /* The low word 0xfffffff5: ctr32_xor wraps it to 0 after 11 blocks. */
    memcpy(ctr0, "ct_test nonce", 12);
    ctr0[12] = ctr0[13] = ctr0[14] = 0xff;
    ctr0[15] = 0xf5;

    for (size_t n = 0; n <= 40; n++)
        counts[ncounts++] = n;
    counts[ncounts++] = 100;
    counts[ncounts++] = MAXBLOCKS;

    /* References from the portable tier, everything defined. */
    for (int ki = 0; ki < 3; ki++) {
        aesfast_key key;

        aesfast_generic_set_key(&key, raw_keys[ki], 16 + 8 * (size_t)ki);
        aesfast_generic_encrypt_block(&key, plain, ref_block[ki]);
        aesfast_generic_ctr32_xor(&key, ctr0, plain, ref_ctr[ki], MAXBLOCKS);
    }
    aesfast_generic_ghash_init(&hkey, h0);
    for (size_t c = 0; c < ncounts; c++) {
        memcpy(ref_hash[c], acc0, 16);
        aesfast_generic_ghash(&hkey, ref_hash[c], plain, counts[c]);
        for (int ki = 0; ki < 3; ki++) {
            memcpy(ref_seal[ki][c], acc0, 16);
            aesfast_generic_ghash(&hkey, ref_seal[ki][c], ref_ctr[ki], counts[c]);
        }
    }
}

/* fn (run_case, run_gcm_case) on tier k for every key size and each of the n cases. */
static void run_cases(const aesfast_kernel *k,
                      void (*fn)(const aesfast_kernel *k, int ki, unsigned s, const char *cname),
                      const struct secret_case *cs, size_t n)
{
    for (int ki = 0; ki < 3; ki++)
        for (size_t c = 0; c < n; c++)
            fn(k, ki, cs[c].secrets, cs[c].name);
}

/* One line of results: the checks since (f0, p0) on what. */
static void report(const aesfast_kernel *k, const char *what, int f0, int p0)
{
    printf("ct_test: %-12s %s: %s (%d checks)\n", k->name, what,
           check_failed == f0 ? "ok" : "FAILED", check_passed + check_failed - p0 - f0);
}

/* Every check on one tier (CPUID, as memcheck presents it, says this CPU runs it). */
static void test_tier(const aesfast_kernel *k)
{
    int f0 = check_failed, p0 = check_passed;
    char what[256];

    check_fips197(k);
    run_cases(k, run_case, cases, sizeof(cases) / sizeof(cases[0]));
    snprintf(what, sizeof(what), "set_key, encrypt_block, ctr32_xor x AES-128/192/256 x %zu "
             "block counts (0..40, 100, %d) x secrets {all, raw key, exp key, input, counter}",
             ncounts, MAXBLOCKS);
    report(k, what, f0, p0);
    f0 = check_failed, p0 = check_passed;
    run_cases(k, run_gcm_case, gcm_cases, sizeof(gcm_cases) / sizeof(gcm_cases[0]));
    snprintf(what, sizeof(what), "gcm hash_init, hash, ctr_then_hash, hash_then_ctr x "
             "AES-128/192/256 x %zu block counts x secrets {all, exp key, H, H table, acc, input, "
             "counter}", ncounts);
    report(k, what, f0, p0);
    f0 = check_failed, p0 = check_passed;
    for (int ki = 0; ki < 3; ki++)
        run_gcm_msg_case(k, ki);
    report(k, "gcm_seal_msg, gcm_open_msg x AES-128/192/256 x 19 lengths (0..4003 bytes) x "
           "J0 secret or public, the rest secret", f0, p0);
    f0 = check_failed, p0 = check_passed;
    for (int ki = 0; ki < 3; ki++)
        run_gcmsiv_case(k, ki);
    report(k, "gcmsiv polyval_init, polyval, ctr32le_xor, ctr_then_hash, derive x "
           "AES-128/192/256 x 13 block counts, all secret", f0, p0);
    if (k->gcmsiv_seal_short != NULL) {
        f0 = check_failed, p0 = check_passed;
        for (int ki = 0; ki < 3; ki++)
            run_gcmsiv_short(k, ki);
        report(k, "gcmsiv seal_short, open_short x AES-128/192/256 x 0..2 AAD blocks x data "
               "lengths to the bound, all secret", f0, p0);
    }
}

int main(int argc, char **argv)
{
    uint8_t probe = 0, vbits = 0;

    /* Memcheck must be the tool: another tool (or none) ignores the marks, and nothing would be
     * checked. */
    VALGRIND_MAKE_MEM_UNDEFINED(&probe, 1);
    if (!RUNNING_ON_VALGRIND || VALGRIND_GET_VBITS(&probe, &vbits, 1) != 1 || vbits != 0xff) {
        printf("ct_test: skipped: not running under valgrind's memcheck\n");
        return 77;
    }
    VALGRIND_MAKE_MEM_DEFINED(&probe, 1);
    setup();
    /* CPUID under memcheck shows what valgrind emulates, not this machine: say so in a skip. */
    tiers_skip_note = "as valgrind presents the cpu: it emulates no VAES or AVX-512 (this tier's "
                      "other tests run natively)";

    int ran = tiers_run("ct_test", argc, argv, test_tier);

    if (ran < 0)
        return 1;
    if (check_summary("ct_test") != 0)
        return 1;
    if (ran == 0) {
        printf("ct_test: every requested tier was skipped\n");
        return 77;
    }
    return 0;
}
