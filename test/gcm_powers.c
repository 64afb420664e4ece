/*
 * gcm_powers: AES-GCM when a message needs more powers of the hash key H than its context has
 * made. A key makes H and the few powers a short message needs (on the tiers with a short
 * table); the whole table waits for the first message or hash call past AESFAST_HASH_FEW (8)
 * blocks, and a re-key after such a message makes the whole table at once. Every message here is
 * checked against OpenSSL's default provider (a fresh context, one call each), sealing and
 * opening, on the tier named, through the EVP calls a program makes:
 *   - one context, messages whose blocks in all (AAD, data, lengths block) step across 8 and
 *     back, from 1 to 40 blocks, with a re-key between runs (few -> all -> re-key -> ...);
 *   - IVs of other lengths than 12 bytes (J0 is a hash of the IV: 1 to 9 blocks);
 *   - AAD in many updates, past the 31 blocks the message queue holds;
 *   - a copy of a keyed context before its first message, then long and short messages on both;
 *   - a copy in the middle of a message (AAD and some data given), each finishing it alike;
 *   - a context made per message (EVP_EncryptInit_ex2 with the cipher), and re-keyed per message.
 *
 *   gcm_powers [--expect-kernel TIER]     exit 0 pass, 1 fail
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include "check.h"
#include "rng.h"
#include "testutil.h"

#define MAX_LEN 700 /* 44 blocks: past the 32-block groups of the widest tier */

static tu_rng rng;
static EVP_CIPHER *ours[2], *ref[2]; /* AES-128-GCM, AES-256-GCM */

typedef struct {
    int bits;
    uint8_t key[32], iv[64], aad[MAX_LEN], pt[MAX_LEN];
    size_t ivlen, aadlen, len;
} msg;

/* A new message on key k (AES-128 or -256): random IV of ivlen bytes, AAD and data. */
static void msg_new(msg *m, int bits, const uint8_t *key, size_t ivlen, size_t aadlen, size_t len)
{
    m->bits = bits;
    memcpy(m->key, key, bits / 8);
    m->ivlen = ivlen;
    m->aadlen = aadlen;
    m->len = len;
    tu_rng_fill(&rng, m->iv, ivlen);
    tu_rng_fill(&rng, m->aad, aadlen);
    tu_rng_fill(&rng, m->pt, len);
}

/* The default provider's ciphertext and tag of m, in one call each. */
static void reference(const msg *m, uint8_t *ct, uint8_t tag[16])
{
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    int l;

    if (c == NULL || !EVP_EncryptInit_ex2(c, ref[m->bits == 256], NULL, NULL, NULL)
        || !EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_IVLEN, (int)m->ivlen, NULL)
        || !EVP_EncryptInit_ex2(c, NULL, m->key, m->iv, NULL)
        || (m->aadlen != 0 && !EVP_EncryptUpdate(c, NULL, &l, m->aad, (int)m->aadlen))
        || !EVP_EncryptUpdate(c, ct, &l, m->pt, (int)m->len) || !EVP_EncryptFinal_ex(c, ct, &l)
        || !EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, tag))
        tu_die("the default provider's AES-%d-GCM failed", m->bits);
    EVP_CIPHER_CTX_free(c);
}

/* Feeds n bytes to an update in pieces of `piece` bytes (0: one call). */
static int feed(EVP_CIPHER_CTX *c, int enc, uint8_t *out, const uint8_t *in, size_t n,
                size_t piece)
{
    int l;

    for (size_t done = 0; done < n;) {
        size_t k = piece == 0 || n - done < piece ? n - done : piece;

        if (!(enc ? EVP_EncryptUpdate : EVP_DecryptUpdate)(c, out == NULL ? NULL : out + done,
                                                          &l, in + done, (int)k)
            || (size_t)l != k)
            return 0;
        done += k;
    }
    return 1;
}

/* On context c (keyed with m's key, or given it here when key is set): m's IV, its AAD in pieces
 * of aad_piece bytes, its data in one update; then the final and the tag. Sealing, the output
 * and tag must be the reference's; opening (the reference's ciphertext and tag), the plaintext
 * must come back and the tag verify. */
static void check_msg(EVP_CIPHER_CTX *c, const msg *m, int enc, int key, size_t aad_piece,
                      const char *what)
{
    uint8_t want[MAX_LEN], tag[16], out[MAX_LEN], got[16];
    int l, ok;

    reference(m, want, tag);
    ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_IVLEN, (int)m->ivlen, NULL)
         && EVP_CipherInit_ex2(c, NULL, key ? m->key : NULL, m->iv, enc, NULL)
         && (enc || EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, 16, tag))
         && feed(c, enc, NULL, m->aad, m->aadlen, aad_piece)
         && feed(c, enc, out, enc ? m->pt : want, m->len, 0)
         && (enc ? EVP_EncryptFinal_ex : EVP_DecryptFinal_ex)(c, out + m->len, &l) && l == 0
         && (!enc || EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, got));
    ERR_clear_error();
    if (!CHECK(ok, "%s: AES-%d-GCM %s of %zu + %zu bytes (IV %zu) failed", what, m->bits,
               enc ? "seal" : "open", m->aadlen, m->len, m->ivlen))
        return;
    CHECK(memcmp(out, enc ? want : m->pt, m->len) == 0 && (!enc || memcmp(got, tag, 16) == 0),
          "%s: AES-%d-GCM %s of %zu + %zu bytes (IV %zu, %zu blocks in all) differs from the "
          "default provider's", what, m->bits, enc ? "seal" : "open", m->aadlen, m->len, m->ivlen,
          (m->aadlen + 15) / 16 + (m->len + 15) / 16 + 1);
}

static EVP_CIPHER_CTX *keyed(int bits, const uint8_t *key, int enc)
{
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();

    if (c == NULL || !EVP_CipherInit_ex2(c, ours[bits == 256], key, NULL, enc, NULL))
        tu_die("a keyed AES-%d-GCM context", bits);
    return c;
}

/* Data and AAD lengths for a message of about `blocks` blocks in all (lengths block included). */
static void lengths_for(size_t blocks, size_t *aadlen, size_t *len)
{
    size_t b = blocks - 1, aad_blocks = tu_rng_below(&rng, b + 1);

    *aadlen = aad_blocks == 0 ? 0 : 16 * aad_blocks - tu_rng_below(&rng, 16);
    *len = b - aad_blocks == 0 ? 0 : 16 * (b - aad_blocks) - tu_rng_below(&rng, 16);
}

/* One context, re-keyed between runs; each run's messages step across the short table's reach. */
static void one_context(int bits, int enc)
{
    static const size_t steps[] = {1, 2, 8, 9, 3, 40, 8, 1, 33, 12, 7, 5};
    uint8_t key[32];
    EVP_CIPHER_CTX *c;
    msg m;

    tu_rng_fill(&rng, key, sizeof(key));
    c = keyed(bits, key, enc);
    for (int run = 0; run < 6; run++) {
        for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
            size_t blocks = steps[(i + (size_t)run) % (sizeof(steps) / sizeof(steps[0]))];
            size_t aadlen, len;

            if (i == 0 && run != 0) /* a new key, after a run that ended long or short */
                tu_rng_fill(&rng, key, sizeof(key));
            lengths_for(blocks, &aadlen, &len);
            msg_new(&m, bits, key, 12, aadlen, len);
            check_msg(c, &m, enc, i == 0, 0, "one context, re-keyed per run");
        }
    }
    /* Every total from 1 to 40 blocks, each on a fresh key: the few, or all at once. */
    for (size_t blocks = 1; blocks <= 40; blocks++) {
        size_t aadlen, len;

        tu_rng_fill(&rng, key, sizeof(key));
        lengths_for(blocks, &aadlen, &len);
        msg_new(&m, bits, key, 12, aadlen, len);
        check_msg(c, &m, enc, 1, 0, "re-keyed per message");
    }
    EVP_CIPHER_CTX_free(c);
}

/* IVs of 1..64 bytes (J0 hashed: 1..5 blocks and the lengths block), and AAD past the queue in
 * updates of 1, 16 and 100 bytes, each on a fresh context (only the few made). */
static void ivs_and_aad(int bits, int enc)
{
    uint8_t key[32];
    msg m;

    for (size_t ivlen = 1; ivlen <= 64; ivlen += ivlen < 20 ? 1 : 11) {
        tu_rng_fill(&rng, key, sizeof(key));
        EVP_CIPHER_CTX *c = keyed(bits, key, enc);

        msg_new(&m, bits, key, ivlen, 13, 16 * (ivlen % 3));
        check_msg(c, &m, enc, 0, 0, "an IV of another length");
        EVP_CIPHER_CTX_free(c);
    }
    static const size_t aadlens[] = {200, 497, 512, 600}, pieces[] = {1, 16, 100};
    for (size_t i = 0; i < sizeof(aadlens) / sizeof(aadlens[0]); i++)
        for (size_t j = 0; j < sizeof(pieces) / sizeof(pieces[0]); j++) {
            tu_rng_fill(&rng, key, sizeof(key));
            EVP_CIPHER_CTX *c = keyed(bits, key, enc);

            msg_new(&m, bits, key, 12, aadlens[i], 20);
            check_msg(c, &m, enc, 0, pieces[j], "AAD in pieces, past the queue");
            EVP_CIPHER_CTX_free(c);
        }
}

/* Copies before the first message and in the middle of one; a context made per message. */
static void copies(int bits, int enc)
{
    uint8_t key[32];
    msg m;

    for (int trial = 0; trial < 8; trial++) {
        tu_rng_fill(&rng, key, sizeof(key));
        EVP_CIPHER_CTX *a = keyed(bits, key, enc), *b = EVP_CIPHER_CTX_new();

        if (b == NULL || !EVP_CIPHER_CTX_copy(b, a))
            tu_die("EVP_CIPHER_CTX_copy");
        /* the copy long first, the original short first, then the other way round */
        static const size_t order[2][2] = {{40, 3}, {2, 35}};
        for (int k = 0; k < 2; k++)
            for (int side = 0; side < 2; side++) {
                size_t aadlen, len;

                lengths_for(order[side][k] - (size_t)trial % 2, &aadlen, &len);
                msg_new(&m, bits, key, 12, aadlen, len);
                check_msg(side ? b : a, &m, enc, 0, 0, side ? "a copy before the first message"
                                                            : "the original of that copy");
            }
        EVP_CIPHER_CTX_free(b);
        EVP_CIPHER_CTX_free(a);
    }
    /* Mid-message: a fresh context (only the few made), AAD and part of the data given, copied;
     * both finish the same message, whose rest needs every power. */
    for (int trial = 0; trial < 8; trial++) {
        uint8_t want[MAX_LEN], tag[16], out[2][MAX_LEN], got[2][16];
        size_t first = 16 * (size_t)trial + (size_t)trial % 5;
        int l, ok = 1;

        tu_rng_fill(&rng, key, sizeof(key));
        msg_new(&m, bits, key, 12, 13 + (size_t)trial * 7, 600);
        reference(&m, want, tag);
        EVP_CIPHER_CTX *a = keyed(bits, key, 1), *b = EVP_CIPHER_CTX_new();
        ok = b != NULL && EVP_EncryptInit_ex2(a, NULL, NULL, m.iv, NULL)
             && EVP_EncryptUpdate(a, NULL, &l, m.aad, (int)m.aadlen)
             && EVP_EncryptUpdate(a, out[0], &l, m.pt, (int)first) && EVP_CIPHER_CTX_copy(b, a);
        memcpy(out[1], out[0], first);
        for (int side = 0; side < 2 && ok; side++) {
            EVP_CIPHER_CTX *c = side ? b : a;

            ok = EVP_EncryptUpdate(c, out[side] + first, &l, m.pt + first, (int)(m.len - first))
                 && EVP_EncryptFinal_ex(c, out[side] + m.len, &l)
                 && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, got[side]);
        }
        if (CHECK(ok, "a copy mid-message failed"))
            for (int side = 0; side < 2; side++)
                CHECK(memcmp(out[side], want, m.len) == 0 && memcmp(got[side], tag, 16) == 0,
                      "a copy mid-message (%zu bytes in): the %s's message differs from the "
                      "default provider's", first, side ? "copy" : "original");
        ERR_clear_error();
        EVP_CIPHER_CTX_free(b);
        EVP_CIPHER_CTX_free(a);
    }
    /* A context made per message, of every size from 1 to 40 blocks. */
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    for (size_t blocks = 1; blocks <= 40; blocks++) {
        size_t aadlen, len;

        tu_rng_fill(&rng, key, sizeof(key));
        if (c == NULL || !EVP_CipherInit_ex2(c, ours[bits == 256], NULL, NULL, enc, NULL))
            tu_die("a new context");
        lengths_for(blocks, &aadlen, &len);
        msg_new(&m, bits, key, 12, aadlen, len);
        check_msg(c, &m, enc, 1, 0, "a context made per message");
    }
    EVP_CIPHER_CTX_free(c);
}

int main(int argc, char **argv)
{
    const char *expect = NULL;
    tu_providers p;

    tu_init("gcm_powers");
    tu_rng_seed(&rng, 0x9f3, 0);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--expect-kernel") == 0 && i + 1 < argc)
            expect = argv[++i];
        else
            tu_die("usage: gcm_powers [--expect-kernel TIER]");
    }
    tu_providers_load(&p, "aesfast", expect);
    printf("gcm_powers: %s, kernel %s\n", OpenSSL_version(OPENSSL_VERSION), p.kernel);
    ours[0] = tu_fetch_cipher("AES-128-GCM", "aesfast");
    ours[1] = tu_fetch_cipher("AES-256-GCM", "aesfast");
    ref[0] = tu_fetch_cipher("AES-128-GCM", "default");
    ref[1] = tu_fetch_cipher("AES-256-GCM", "default");
    for (int k = 0; k < 2; k++)
        for (int enc = 1; enc >= 0; enc--) {
            int bits = k ? 256 : 128;

            one_context(bits, enc);
            ivs_and_aad(bits, enc);
            copies(bits, enc);
        }
    for (int k = 0; k < 2; k++) {
        EVP_CIPHER_free(ours[k]);
        EVP_CIPHER_free(ref[k]);
    }
    tu_providers_unload(&p);
    return check_summary("gcm_powers");
}
