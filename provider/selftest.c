/*
 * The power-on self-test: when the provider loads, the chosen tier's kernels run known-answer
 * tests for each mode, and a tier that gives one wrong answer is not used (provider.c picks the
 * next one, or refuses to load). Every kernel entry a message can reach on the tier is run: the
 * stitched loops that bulk data takes, and the one-call paths of a TLS record or a short
 * message (gcm-msg, gcmsiv-short below).
 *
 * What it runs, per mode, on the tier's own function table (the pointers the ciphers call):
 *   ctr     set_key, ctr32_xor and encrypt_block (the partial last block): RFC 3686 #3 (AES-128)
 *           and #9 (AES-256), 36 bytes each, and the keystream of the three long GCM vectors
 *           below (GCM's ciphertext is CTR from IV || 2, 32-bit counter): 295, 511 and 513 bytes
 *           on AES-128 and AES-256.
 *   gcm     encrypt_block (H, E(J0)), hash_init, hash (AAD, partial and lengths blocks),
 *           ctr_then_hash (seal) and hash_then_ctr (open), and their forms for a public counter
 *           (the provider's for a 12-byte IV), each vector sealed and opened by both, the
 *           ciphertext and tag compared: Wycheproof 513 bytes (AES-128) and 511 bytes (AES-256)
 *           without AAD, the GCM spec's test case 10 (AES-192, 60 bytes, 20 of AAD), and
 *           BoringSSL's 295 bytes with 295 of AAD (AES-128).
 *   gcmsiv  the per-nonce key derivation (gcmsiv_derive, or ctr32le and set_key), hash_init
 *           and hash (POLYVAL) and ctr for the seal, ctr_then_hash for the open, hash_init_few's
 *           table against hash_init's on up to 8 blocks: RFC 8452 C.1 (AES-128,
 *           20 bytes, 18 of AAD), Wycheproof 513 bytes (AES-128) and BoringSSL's 511 bytes with
 *           255 of AAD (AES-256, from RFC 8452's reference code).
 *   gcm-msg GCM's message in one call, aesfast_gcm_msg_crypt, as provider/gcm.c runs every
 *           message whose data comes in one update (TLS records among them): the tier's
 *           gcm_seal_msg and gcm_open_msg (vaes-avx512), or the composer (kernels/gcm_msg.c) over
 *           its stitched kernels, hash and the tier's gcm_seal_last / gcm_open_last (aesni,
 *           vaes-avx2) or its own C end (generic, armv8): the four vectors above and five more,
 *           sealed and opened, with J0 public and secret, in place and not, on the table of
 *           powers the provider makes for each (hash_init_few's for a message of at most 8
 *           blocks in all, then hash_init_rest's or hash_init's). Their lengths take
 *           each path: no data (the tag alone); 20 bytes after 20 of AAD (the end alone, two
 *           blocks and a partial one); 80 after 80 (whole blocks only: on aesni the queue too
 *           long for the end, hashed first, and no group); 280 after 280 (AES-256, the queue and
 *           data past one group of powers: groups, then the end); 512 (32 whole blocks: the end
 *           has no data); and the four above (513: the groups and a partial block alone; 511:
 *           31 blocks and a partial one, on aesni/vaes-avx2 half a group handed back to the end,
 *           on vaes-avx512 its first vector a group of its own; 295 after 295 of AAD).
 *   gcmsiv-short
 *           GCM-SIV's short kernels (gcmsiv_seal_short, gcmsiv_open_short: aesni, vaes-avx2,
 *           vaes-avx512), on every vector the provider would give them on the tier (at most
 *           gcmsiv_short_blocks blocks of AAD, data and lengths): RFC 8452 C.1 above and six more
 *           of 1 to 31 blocks in all, AES-128 and AES-256, sealed, and opened in place with the
 *           tag the open computes compared too. A tier without them has nothing to run here.
 * The lengths are chosen for the kernels' loops: 513 bytes is 32 blocks, so the 16-block VAES
 * loops run a full stitched iteration (the first 16 blocks are encrypted alone, the last 16
 * hashed alone), and the 8-block AES-NI/ARMv8 loops four; 511 bytes is 31 blocks, 16 plus a tail
 * of 15 (8 x 3 plus 7); 295 is 18 blocks and 7 bytes, 60 is 3 and 12, and the AAD of 255 and 295
 * bytes takes the hash's own bulk loop and a tail. Every vector ends in a partial block.
 *
 * The known answers are constants from published vector files (selftest_vectors.h, generated
 * by test/selftest_vectors.py, which the test "selftest-vectors" re-runs to show they match);
 * nothing here computes an expected value with aesfast's own code.
 *
 * Cost: about 21 KB through the kernels, at every load (doc/provider-aesfast.7 gives the time
 * measured); AESFAST_DEBUG=1 prints each run's time.
 *
 * Fault injection, for the tests: AESFAST_SELFTEST_FAULT=TIER:MODE[,TIER:MODE...] (TIER or MODE
 * may be *) flips one bit of each result of that tier's MODE before it is compared. It is read
 * in every build, release builds included, on purpose:
 *   - it can only make a result wrong, never right: the comparison and the constants are the
 *     same with it or without, so no setting skips the test or makes a bad tier pass;
 *   - what a wrong result does (a lower tier, or no provider at all) is what AESFAST_KERNEL
 *     already lets whoever sets the environment do, so it gives no one anything new;
 *   - the tests then check the module that is installed, not a variant built for them.
 * It is read with aesfast_getenv (secure_getenv), so a set-user-ID program ignores it.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aesfast.h"
#include "selftest.h"
#include "selftest_vectors.h"

#define MAX_LEN 528 /* the longest vector, 513 bytes, rounded up to whole blocks */

/* One test's scratch, on the stack: the keys are the vectors' public keys. */
typedef struct {
    aesfast_key key, key2; /* the cipher key; GCM-SIV's derived encryption key */
    aesfast_hash_key hkey;
    aesfast_gcm_msg msg;   /* GCM's one-call message */
    uint8_t out[MAX_LEN];
    uint8_t aad[AESFAST_GCM_QUEUE * AESFAST_BLOCK]; /* AAD as zero-padded blocks */
    int fault; /* AESFAST_SELFTEST_FAULT asks for this mode of this tier to be corrupted */
} scratch;

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* v's AAD into s->aad as zero-padded blocks, as the provider queues it; the number of blocks.
 * (Every vector's AAD fits, 295 bytes at most; a longer one would be cut, and fail.) */
static size_t pad_aad(scratch *s, const struct selftest_aead *v)
{
    size_t len = v->aadlen < sizeof(s->aad) ? v->aadlen : sizeof(s->aad);
    size_t n = (len + AESFAST_BLOCK - 1) / AESFAST_BLOCK;

    memset(s->aad, 0, n * AESFAST_BLOCK);
    if (len > 0)
        memcpy(s->aad, v->aad, len);
    return n;
}

/* 1 if got (after the injected fault, if any) is want. */
static int same(scratch *s, uint8_t *got, const uint8_t *want, size_t len)
{
    if (s->fault && len > 0)
        got[0] ^= 1;
    return len == 0 || memcmp(got, want, len) == 0; /* (want is NULL for an empty message) */
}

/* ctr + n: GCM's inc32 (big-endian last word), or GCM-SIV's (little-endian first word). */
static void ctr_add(uint8_t ctr[16], uint32_t n, int le_first)
{
    uint8_t *w = le_first ? ctr : ctr + 12;
    uint32_t v = le_first ? (uint32_t)w[0] | (uint32_t)w[1] << 8 | (uint32_t)w[2] << 16
                                | (uint32_t)w[3] << 24
                          : (uint32_t)w[0] << 24 | (uint32_t)w[1] << 16 | (uint32_t)w[2] << 8
                                | (uint32_t)w[3];

    v += n;
    for (int i = 0; i < 4; i++)
        w[i] = (uint8_t)(le_first ? v >> (8 * i) : v >> (24 - 8 * i));
}

/* The partial last block of len bytes: out = in XOR E(ctr + len / 16), as the provider's
 * stream layer does it (encrypt_block on the counter block). */
static void tail_xor(const aesfast_kernel *k, const aesfast_key *key, const uint8_t ctr[16],
                     const uint8_t *in, uint8_t *out, size_t len, int le_first)
{
    size_t r = len % AESFAST_BLOCK, at = len - r;
    uint8_t c[AESFAST_BLOCK], ks[AESFAST_BLOCK];

    if (r == 0)
        return;
    memcpy(c, ctr, sizeof(c));
    ctr_add(c, (uint32_t)(len / AESFAST_BLOCK), le_first);
    k->encrypt_block(key, c, ks);
    for (size_t i = 0; i < r; i++)
        out[at + i] = in[at + i] ^ ks[i];
}

/* acc = hash(acc, data zero-padded to whole blocks), in at most two calls. */
static void hash_padded(const aesfast_aead_kernel *f, const aesfast_hash_key *hkey,
                        uint8_t acc[16], const uint8_t *data, size_t len)
{
    uint8_t last[AESFAST_BLOCK] = {0};
    size_t n = len / AESFAST_BLOCK, r = len % AESFAST_BLOCK;

    if (n > 0)
        f->hash(hkey, acc, data, n);
    if (r > 0) {
        memcpy(last, data + n * AESFAST_BLOCK, r);
        f->hash(hkey, acc, last, 1);
    }
}

/* The last partial block of data (zero-padded) and the lengths block, hashed in one call. */
static void hash_final(const aesfast_aead_kernel *f, const aesfast_hash_key *hkey,
                       uint8_t acc[16], const uint8_t *data, size_t len,
                       const uint8_t lens[16])
{
    uint8_t last[2 * AESFAST_BLOCK] = {0};
    size_t r = len % AESFAST_BLOCK;

    memcpy(last, data + len - r, r);
    memcpy(last + (r ? AESFAST_BLOCK : 0), lens, AESFAST_BLOCK);
    f->hash(hkey, acc, last, r ? 2 : 1);
}

static int test_ctr(const aesfast_kernel *k, scratch *s)
{
    int ok = 1;

    for (size_t i = 0; i < sizeof(selftest_ctr) / sizeof(selftest_ctr[0]); i++) {
        const struct selftest_ctr *v = &selftest_ctr[i];

        k->set_key(&s->key, v->key, v->keylen);
        k->ctr32_xor(&s->key, v->ctr, v->pt, s->out, v->len / AESFAST_BLOCK);
        tail_xor(k, &s->key, v->ctr, v->pt, s->out, v->len, 0);
        ok &= same(s, s->out, v->ct, v->len);
    }
    /* The long GCM vectors' keystream: CTR from IV || 00000002. */
    for (size_t i = 0; i < sizeof(selftest_gcm) / sizeof(selftest_gcm[0]); i++) {
        const struct selftest_aead *v = &selftest_gcm[i];
        uint8_t ctr[AESFAST_BLOCK] = {0};

        if (v->len < 256)
            continue;
        memcpy(ctr, v->iv, 12);
        ctr[15] = 2;
        k->set_key(&s->key, v->key, v->keylen);
        k->ctr32_xor(&s->key, ctr, v->pt, s->out, v->len / AESFAST_BLOCK);
        tail_xor(k, &s->key, ctr, v->pt, s->out, v->len, 0);
        ok &= same(s, s->out, v->ct, v->len);
    }
    return ok;
}

/* GCM with a 96-bit IV (SP 800-38D): seal, then open, each checked against the vector. */
static int test_gcm(const aesfast_kernel *k, scratch *s)
{
    int ok = 1;

    for (size_t i = 0; i < sizeof(selftest_gcm) / sizeof(selftest_gcm[0]); i++) {
        const struct selftest_aead *v = &selftest_gcm[i];
        uint8_t h[AESFAST_BLOCK] = {0}, j0[AESFAST_BLOCK] = {0}, ekj0[AESFAST_BLOCK];
        uint8_t ctr[AESFAST_BLOCK], lens[AESFAST_BLOCK], acc[AESFAST_BLOCK];
        uint64_t bits[2] = {(uint64_t)v->aadlen * 8, (uint64_t)v->len * 8};
        size_t n = v->len / AESFAST_BLOCK;

        for (int b = 0; b < 8; b++) { /* big-endian bit lengths */
            lens[b] = (uint8_t)(bits[0] >> (56 - 8 * b));
            lens[8 + b] = (uint8_t)(bits[1] >> (56 - 8 * b));
        }
        k->set_key(&s->key, v->key, v->keylen);
        k->encrypt_block(&s->key, h, h);
        k->gcm.hash_init(&s->hkey, h);
        memcpy(j0, v->iv, 12);
        j0[15] = 1;
        k->encrypt_block(&s->key, j0, ekj0);
        memcpy(ctr, j0, sizeof(ctr));
        ctr[15] = 2;

        for (int f = 0; f < 4; f++) { /* seal, open; then the same for a public counter */
            const int open = f % 2, pub = f / 2;
            const uint8_t *in = open ? v->ct : v->pt;
            aesfast_aead_crypt_fn *fn = aesfast_gcm_stitched(&k->gcm, !open, pub);

            memset(acc, 0, sizeof(acc));
            hash_padded(&k->gcm, &s->hkey, acc, v->aad, v->aadlen);
            fn(&s->key, &s->hkey, acc, ctr, in, s->out, n);
            tail_xor(k, &s->key, ctr, in, s->out, v->len, 0);
            hash_final(&k->gcm, &s->hkey, acc, open ? v->ct : s->out, v->len, lens);
            for (int b = 0; b < AESFAST_BLOCK; b++)
                acc[b] ^= ekj0[b];
            ok &= same(s, s->out, open ? v->pt : v->ct, v->len);
            ok &= same(s, acc, v->tag, AESFAST_BLOCK);
        }
    }
    return ok;
}

/* GCM-SIV (RFC 8452): key derivation, seal (POLYVAL, then CTR from the tag), and open (CTR
 * from the vector's tag, stitched with POLYVAL of the plaintext), checked against the vector. */
static int test_gcmsiv(const aesfast_kernel *k, scratch *s)
{
    int ok = 1;

    for (size_t i = 0; i < sizeof(selftest_gcmsiv) / sizeof(selftest_gcmsiv[0]); i++) {
        const struct selftest_aead *v = &selftest_gcmsiv[i];
        uint8_t auth[16], ctr[AESFAST_BLOCK] = {0};
        uint8_t lens[AESFAST_BLOCK], acc[AESFAST_BLOCK], tag[AESFAST_BLOCK];
        uint64_t bits[2] = {(uint64_t)v->aadlen * 8, (uint64_t)v->len * 8};
        size_t n = v->len / AESFAST_BLOCK;

        for (int b = 0; b < 8; b++) { /* little-endian bit lengths */
            lens[b] = (uint8_t)(bits[0] >> (8 * b));
            lens[8 + b] = (uint8_t)(bits[1] >> (8 * b));
        }
        /* Section 4: the first 8 bytes of AES_K(LE32(j) || nonce), j = 0 .. 1 + keylen / 8, by
         * the tier's gcmsiv_derive where it has one, else on ctr and set_key (as gcmsiv.c). */
        k->set_key(&s->key, v->key, v->keylen);
        aesfast_gcmsiv_derive(k, &s->key, v->iv, &s->key2, auth);
        k->gcmsiv.hash_init(&s->hkey, auth);

        for (int open = 0; open < 2; open++) {
            memset(acc, 0, sizeof(acc));
            hash_padded(&k->gcmsiv, &s->hkey, acc, v->aad, v->aadlen);
            if (open) {
                memcpy(ctr, v->tag, sizeof(ctr));
                ctr[15] |= 0x80;
                k->gcmsiv.ctr_then_hash(&s->key2, &s->hkey, acc, ctr, v->ct, s->out, n);
                tail_xor(k, &s->key2, ctr, v->ct, s->out, v->len, 1);
                hash_final(&k->gcmsiv, &s->hkey, acc, s->out, v->len, lens);
            } else {
                if (n > 0)
                    k->gcmsiv.hash(&s->hkey, acc, v->pt, n);
                hash_final(&k->gcmsiv, &s->hkey, acc, v->pt, v->len, lens);
            }
            for (int b = 0; b < 12; b++)
                acc[b] ^= v->iv[b];
            acc[15] &= 0x7f;
            k->encrypt_block(&s->key2, acc, tag);
            if (!open) { /* the ciphertext, from the tag just computed */
                memcpy(ctr, tag, sizeof(ctr));
                ctr[15] |= 0x80;
                k->gcmsiv.ctr(&s->key2, ctr, v->pt, s->out, n);
                tail_xor(k, &s->key2, ctr, v->pt, s->out, v->len, 1);
            }
            ok &= same(s, tag, v->tag, AESFAST_BLOCK);
            ok &= same(s, s->out, open ? v->pt : v->ct, v->len);
        }
        /* hash_init_few's short table (small messages) against the whole one, just checked. The
         * table is poisoned first, so a power or padding byte that hash_init_few fails to write
         * cannot pass for the one hash_init left there. */
        size_t few = n < AESFAST_HASH_FEW ? n : AESFAST_HASH_FEW;
        uint8_t acc_few[AESFAST_BLOCK] = {0};
        memset(acc, 0, sizeof(acc));
        k->gcmsiv.hash(&s->hkey, acc, v->pt, few);
        memset(&s->hkey, 0xa5, sizeof(s->hkey));
        aesfast_hash_init_few(&k->gcmsiv)(&s->hkey, auth);
        k->gcmsiv.hash(&s->hkey, acc_few, v->pt, few);
        ok &= same(s, acc_few, acc, AESFAST_BLOCK);
    }
    return ok;
}

/* GCM's message in one call (aesfast_gcm_msg_crypt: the tier's gcm_seal_msg and gcm_open_msg,
 * or the composer with its stitched kernels and gcm_seal_last / gcm_open_last or its C end), as
 * provider/gcm.c runs a message whose data comes in one update: the AAD queued as zero-padded
 * blocks, then one call over the whole data that makes the tag. Each vector four times: sealed
 * and opened, with J0 public (flag AESFAST_MSG_CTR_PUBLIC, a 12-byte IV's) and secret (the form
 * of other IV lengths: no branch on the counter), one of each in place. */
static int gcm_msg_check(const aesfast_kernel *k, scratch *s, const struct selftest_aead *v)
{
    aesfast_gcm_msg *m = &s->msg;
    uint8_t h[AESFAST_BLOCK] = {0};
    size_t naad = pad_aad(s, v);
    size_t skip = naad > AESFAST_GCM_QUEUE - 1 ? naad - (AESFAST_GCM_QUEUE - 1) : 0;
    int ok = 1;

    k->set_key(&s->key, v->key, v->keylen);
    k->encrypt_block(&s->key, h, h);
    /* The table as provider/gcm.c makes it (gcm_powers): hash_init_few's at the key, over a
     * poisoned table (a power it fails to write cannot pass for an earlier one), and the rest
     * (hash_init_rest, or hash_init) for a message past AESFAST_HASH_FEW blocks in all. */
    memset(&s->hkey, 0xa5, sizeof(s->hkey));
    aesfast_hash_init_few(&k->gcm)(&s->hkey, h);
    if (naad + (v->len + AESFAST_BLOCK - 1) / AESFAST_BLOCK + 1 > AESFAST_HASH_FEW)
        (k->gcm.hash_init_rest != NULL ? k->gcm.hash_init_rest : k->gcm.hash_init)(&s->hkey, h);
    for (int f = 0; f < 4; f++) {
        const int open = f % 2, pub = f < 2, in_place = f == 1 || f == 2;
        const uint8_t *in = open ? v->ct : v->pt;

        memset(m, 0, sizeof(*m));
        memcpy(m->j0, v->iv, 12);
        m->j0[15] = 1;
        m->flags = pub ? AESFAST_MSG_CTR_PUBLIC : 0;
        m->aadlen = v->aadlen;
        k->gcm.hash(&s->hkey, m->acc, s->aad, skip); /* what would overflow the queue */
        memcpy(m->queue, s->aad + AESFAST_BLOCK * skip, AESFAST_BLOCK * (naad - skip));
        m->nqueue = naad - skip;
        if (in_place) {
            if (v->len > 0)
                memcpy(s->out, in, v->len);
            in = s->out;
        }
        aesfast_gcm_msg_crypt(k, !open, &s->key, &s->hkey, m, in, s->out, v->len);
        ok &= same(s, s->out, open ? v->pt : v->ct, v->len);
        ok &= same(s, m->tag, v->tag, AESFAST_BLOCK);
    }
    return ok;
}

static int test_gcm_msg(const aesfast_kernel *k, scratch *s)
{
    int ok = 1;

    for (size_t i = 0; i < COUNT(selftest_gcm); i++)
        ok &= gcm_msg_check(k, s, &selftest_gcm[i]);
    for (size_t i = 0; i < COUNT(selftest_gcm_msg); i++)
        ok &= gcm_msg_check(k, s, &selftest_gcm_msg[i]);
    return ok;
}

/* GCM-SIV's short kernels (gcmsiv_seal_short, gcmsiv_open_short), on every vector that
 * provider/gcmsiv.c would give them on this tier (its test in siv_short): sealed, and opened in
 * place from the vector's tag, the tag the open computes compared too. A tier without them has
 * nothing here: test_gcmsiv's path is then its only one. */
static int test_gcmsiv_short(const aesfast_kernel *k, scratch *s)
{
    const struct selftest_aead *all[COUNT(selftest_gcmsiv) + COUNT(selftest_gcmsiv_short)];
    size_t n = 0;
    int ok = 1;

    if (k->gcmsiv_seal_short == NULL)
        return 1;
    for (size_t i = 0; i < COUNT(selftest_gcmsiv); i++)
        all[n++] = &selftest_gcmsiv[i];
    for (size_t i = 0; i < COUNT(selftest_gcmsiv_short); i++)
        all[n++] = &selftest_gcmsiv_short[i];
    for (size_t i = 0; i < n; i++) {
        const struct selftest_aead *v = all[i];
        size_t naad = (v->aadlen + AESFAST_BLOCK - 1) / AESFAST_BLOCK;
        uint8_t auth[16];

        if (v->len >= AESFAST_BLOCK * (size_t)k->gcmsiv_short_blocks
            || naad + (v->len + AESFAST_BLOCK - 1) / AESFAST_BLOCK + 1 > k->gcmsiv_short_blocks)
            continue;
        pad_aad(s, v);
        k->set_key(&s->key, v->key, v->keylen);
        aesfast_gcmsiv_derive(k, &s->key, v->iv, &s->key2, auth);
        for (int open = 0; open < 2; open++) {
            aesfast_gcmsiv_msg m = {v->iv, auth, s->aad, open ? s->out : v->pt, s->out, naad,
                                    v->aadlen, v->len, {0}};

            if (open) {
                if (v->len > 0)
                    memcpy(s->out, v->ct, v->len);
                memcpy(m.tag, v->tag, AESFAST_BLOCK);
                k->gcmsiv_open_short(&s->key2, &m);
            } else {
                k->gcmsiv_seal_short(&s->key2, &m);
            }
            ok &= same(s, s->out, open ? v->pt : v->ct, v->len);
            ok &= same(s, m.tag, v->tag, AESFAST_BLOCK);
        }
    }
    return ok;
}

static const struct {
    unsigned bit;
    const char *name;
    int (*run)(const aesfast_kernel *, scratch *);
} modes[] = {
    {AESFAST_SELFTEST_CTR, "ctr", test_ctr},
    {AESFAST_SELFTEST_GCM, "gcm", test_gcm},
    {AESFAST_SELFTEST_GCM_MSG, "gcm-msg", test_gcm_msg},
    {AESFAST_SELFTEST_GCMSIV, "gcmsiv", test_gcmsiv},
    {AESFAST_SELFTEST_GCMSIV_SHORT, "gcmsiv-short", test_gcmsiv_short},
};
#define N_MODES (sizeof(modes) / sizeof(modes[0]))

static const char *fault_env(void)
{
    return aesfast_getenv("AESFAST_SELFTEST_FAULT");
}

/* 1 if the comma-separated TIER:MODE list spec names this tier and mode (* matches any). */
static int fault_wanted(const char *spec, const char *tier, const char *mode)
{
    size_t tl = strlen(tier), ml = strlen(mode);

    while (spec != NULL && *spec != '\0') {
        const char *end = strchr(spec, ','), *colon = strchr(spec, ':');
        size_t len = end != NULL ? (size_t)(end - spec) : strlen(spec);

        if (colon != NULL && colon < spec + len) {
            size_t a = (size_t)(colon - spec), b = len - a - 1;
            int t = (a == 1 && spec[0] == '*') || (a == tl && memcmp(spec, tier, tl) == 0);
            int m = (b == 1 && colon[1] == '*') || (b == ml && memcmp(colon + 1, mode, ml) == 0);

            if (t && m)
                return 1;
        }
        spec = end != NULL ? end + 1 : NULL;
    }
    return 0;
}

void aesfast_selftest_modes(unsigned failed, char *buf, size_t len)
{
    size_t used = 0;

    if (len == 0)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < N_MODES; i++) {
        if (!(failed & modes[i].bit) || used >= len)
            continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", modes[i].name);
        if (w > 0)
            used += (size_t)w;
    }
}

unsigned aesfast_selftest(const aesfast_kernel *k, long *ns, int *injected)
{
    const char *spec = fault_env();
    struct timespec t0, t1;
    unsigned failed = 0;
    scratch s;

    *injected = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (size_t i = 0; i < N_MODES; i++) {
        s.fault = fault_wanted(spec, k->name, modes[i].name);
        *injected |= s.fault;
        if (!modes[i].run(k, &s))
            failed |= modes[i].bit;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *ns = (long)(t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec);

    if (failed == 0) {
        char names[96];

        aesfast_selftest_modes(~0u, names, sizeof(names));
        aesfast_debug("self-test of kernel %s: passed (%s) in %.1f us", k->name, names,
                      (double)*ns / 1000.0);
    } else {
        char names[64];

        aesfast_selftest_modes(failed, names, sizeof(names));
        aesfast_debug("self-test of kernel %s: FAILED: %s%s (%.1f us)", k->name, names,
                      *injected ? " (a fault injected by AESFAST_SELFTEST_FAULT)" : "",
                      (double)*ns / 1000.0);
    }
    return failed;
}
