/*
 * Portable constant-time AES: the "generic" kernel tier (see aesfast_kernel.h for the ABI).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * Plain C99, no intrinsics: the fallback for CPUs without AES instructions, and the reference
 * every other tier's key schedule is checked against.
 *
 * Method: bitslicing on 64-bit words, four blocks per pass (Käsper and Schwabe, CHES 2009,
 * adapted to plain 64-bit registers). The 4 x 16 = 64 state bytes are spread over eight words
 * q[0..7]: q[b] holds bit b of every byte, so one word-wide Boolean operation acts on all 64
 * bytes at once, and SubBytes becomes a Boolean circuit with no table and no branch.
 *
 * Bit layout. Byte (row r, column c) of block k - that is byte 4c + r of block k in memory -
 * sits at bit position
 *
 *         pos = 16 r + 4 c + k        (r, c, k in 0..3)
 *
 * of every q[b]. Each 16-bit lane of a word is one state row (for all four blocks), and inside a
 * lane each nibble is one column (one bit per block). That makes the two linear layers cheap:
 *   - ShiftRows rotates row r left by r columns: a rotation of 16-bit lane r by 4r bits.
 *   - MixColumns mixes the rows of each column: rotating the whole 64-bit word by 16 bits moves
 *     every row to the next one, for all columns and blocks at once.
 *
 * Converting four blocks to this layout (to_bitsliced) first interleaves the bytes of each block
 * so that a 64-bit word holds two columns (c, c + 2) byte by byte, then transposes the 8 x 8 bit
 * matrix formed by "word index" and "bit index within each byte" with three rounds of masked
 * swaps. The transposition is an involution, so from_bitsliced runs it again and undoes the
 * interleave.
 *
 * Constant time: every function below does the same sequence of loads, stores and arithmetic for
 * all keys and data; loop bounds depend only on the round count and block count.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "aesfast_kernel.h"

/* ---- small helpers ------------------------------------------------------------------------- */

static uint32_t load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static uint64_t load_u64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

static void store_u64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, sizeof(v));
}

static uint64_t rotr64(uint64_t x, unsigned n)
{
    return (x >> n) | (x << (64 - n)); /* n is always 16 or 32 here */
}

/* ---- layout conversion --------------------------------------------------------------------- */

/* Bytes 0..3 of x go to bytes 0, 2, 4, 6 of the result; odd bytes are zero. */
static uint64_t spread_bytes(uint32_t x)
{
    uint64_t y = x;

    y = (y | y << 16) & 0x0000ffff0000ffffu;
    y = (y | y << 8) & 0x00ff00ff00ff00ffu;
    return y;
}

/* Inverse of spread_bytes: gather bytes 0, 2, 4, 6 (the odd ones are ignored). */
static uint32_t gather_bytes(uint64_t y)
{
    y &= 0x00ff00ff00ff00ffu;
    y = (y | y >> 8) & 0x0000ffff0000ffffu;
    y = (y | y >> 16) & 0x00000000ffffffffu;
    return (uint32_t)y;
}

/*
 * Exchange the bits of a at positions with (pos & shift) != 0 with the bits of b at positions
 * with (pos & shift) == 0; mask selects the latter positions.
 */
#define SWAP_BITS(a, b, mask, shift)                                                               \
    do {                                                                                           \
        uint64_t t_ = (((a) >> (shift)) ^ (b)) & (mask);                                           \
        (b) ^= t_;                                                                                 \
        (a) ^= t_ << (shift);                                                                      \
    } while (0)

/*
 * Transpose the 8 x 8 bit matrix (word index, bit position mod 8) inside w[0..7]: afterwards bit
 * i of byte j of w[m] is what bit m of byte j of w[i] was. Its own inverse.
 */
static void transpose8(uint64_t w[8])
{
    SWAP_BITS(w[0], w[1], 0x5555555555555555u, 1);
    SWAP_BITS(w[2], w[3], 0x5555555555555555u, 1);
    SWAP_BITS(w[4], w[5], 0x5555555555555555u, 1);
    SWAP_BITS(w[6], w[7], 0x5555555555555555u, 1);

    SWAP_BITS(w[0], w[2], 0x3333333333333333u, 2);
    SWAP_BITS(w[1], w[3], 0x3333333333333333u, 2);
    SWAP_BITS(w[4], w[6], 0x3333333333333333u, 2);
    SWAP_BITS(w[5], w[7], 0x3333333333333333u, 2);

    SWAP_BITS(w[0], w[4], 0x0f0f0f0f0f0f0f0fu, 4);
    SWAP_BITS(w[1], w[5], 0x0f0f0f0f0f0f0f0fu, 4);
    SWAP_BITS(w[2], w[6], 0x0f0f0f0f0f0f0f0fu, 4);
    SWAP_BITS(w[3], w[7], 0x0f0f0f0f0f0f0f0fu, 4);
}

/*
 * Four consecutive 16-byte blocks -> bitsliced state.
 *
 * Before the transposition, w[k + 4 c'] (c' = 0, 1) holds columns c' and c' + 2 of block k with
 * their bytes interleaved: byte 2r + h of the word is row r of column c' + 2h. The transposition
 * then moves bit b of every byte into q[b], and the word index (k, c') into the low three bits of
 * the position, giving pos = k + 4c' + 8h + 16r = 16r + 4c + k.
 */
static void to_bitsliced(uint64_t q[8], const uint8_t in[64])
{
    for (int k = 0; k < 4; k++) {
        const uint8_t *blk = in + 16 * k;

        q[k] = spread_bytes(load_le32(blk)) | spread_bytes(load_le32(blk + 8)) << 8;
        q[k + 4] = spread_bytes(load_le32(blk + 4)) | spread_bytes(load_le32(blk + 12)) << 8;
    }
    transpose8(q);
}

/* Bitsliced state -> four 16-byte blocks. Destroys q. */
static void from_bitsliced(uint8_t out[64], uint64_t q[8])
{
    transpose8(q);
    for (int k = 0; k < 4; k++) {
        uint8_t *blk = out + 16 * k;

        store_le32(blk, gather_bytes(q[k]));
        store_le32(blk + 8, gather_bytes(q[k] >> 8));
        store_le32(blk + 4, gather_bytes(q[k + 4]));
        store_le32(blk + 12, gather_bytes(q[k + 4] >> 8));
    }
}

/* ---- the round functions ------------------------------------------------------------------- */

/*
 * SubBytes on all 64 bytes: the 113-gate circuit of Boyar and Peralta ("A new combinational
 * logic minimization technique with applications to cryptology", SEA 2010; gate list as
 * published by the authors), 32 ANDs and 81 XOR/XNORs. Their naming is kept: inputs u0..u7 and
 * outputs s0..s7 are most significant bit first, so u0 is q[7]. The circuit computes the field
 * inverse in a tower representation: a linear top layer (y*), a nonlinear middle (t*, z*), and a
 * linear bottom layer that also applies the affine map (the four XNORs add the constant 0x63).
 */
static void sub_bytes(uint64_t q[8])
{
    const uint64_t u0 = q[7], u1 = q[6], u2 = q[5], u3 = q[4];
    const uint64_t u4 = q[3], u5 = q[2], u6 = q[1], u7 = q[0];

    /* Top linear layer. */
    const uint64_t y14 = u3 ^ u5;
    const uint64_t y13 = u0 ^ u6;
    const uint64_t y9 = u0 ^ u3;
    const uint64_t y8 = u0 ^ u5;
    const uint64_t t0 = u1 ^ u2;
    const uint64_t y1 = t0 ^ u7;
    const uint64_t y4 = y1 ^ u3;
    const uint64_t y12 = y13 ^ y14;
    const uint64_t y2 = y1 ^ u0;
    const uint64_t y5 = y1 ^ u6;
    const uint64_t y3 = y5 ^ y8;
    const uint64_t t1 = u4 ^ y12;
    const uint64_t y15 = t1 ^ u5;
    const uint64_t y20 = t1 ^ u1;
    const uint64_t y6 = y15 ^ u7;
    const uint64_t y10 = y15 ^ t0;
    const uint64_t y11 = y20 ^ y9;
    const uint64_t y7 = u7 ^ y11;
    const uint64_t y17 = y10 ^ y11;
    const uint64_t y19 = y10 ^ y8;
    const uint64_t y16 = t0 ^ y11;
    const uint64_t y21 = y13 ^ y16;
    const uint64_t y18 = u0 ^ y16;

    /* Nonlinear middle: inversion in GF(2^4)^2 ... */
    const uint64_t t2 = y12 & y15;
    const uint64_t t3 = y3 & y6;
    const uint64_t t4 = t3 ^ t2;
    const uint64_t t5 = y4 & u7;
    const uint64_t t6 = t5 ^ t2;
    const uint64_t t7 = y13 & y16;
    const uint64_t t8 = y5 & y1;
    const uint64_t t9 = t8 ^ t7;
    const uint64_t t10 = y2 & y7;
    const uint64_t t11 = t10 ^ t7;
    const uint64_t t12 = y9 & y11;
    const uint64_t t13 = y14 & y17;
    const uint64_t t14 = t13 ^ t12;
    const uint64_t t15 = y8 & y10;
    const uint64_t t16 = t15 ^ t12;
    const uint64_t t17 = t4 ^ t14;
    const uint64_t t18 = t6 ^ t16;
    const uint64_t t19 = t9 ^ t14;
    const uint64_t t20 = t11 ^ t16;
    const uint64_t t21 = t17 ^ y20;
    const uint64_t t22 = t18 ^ y19;
    const uint64_t t23 = t19 ^ y21;
    const uint64_t t24 = t20 ^ y18;

    const uint64_t t25 = t21 ^ t22;
    const uint64_t t26 = t21 & t23;
    const uint64_t t27 = t24 ^ t26;
    const uint64_t t28 = t25 & t27;
    const uint64_t t29 = t28 ^ t22;
    const uint64_t t30 = t23 ^ t24;
    const uint64_t t31 = t22 ^ t26;
    const uint64_t t32 = t31 & t30;
    const uint64_t t33 = t32 ^ t24;
    const uint64_t t34 = t23 ^ t33;
    const uint64_t t35 = t27 ^ t33;
    const uint64_t t36 = t24 & t35;
    const uint64_t t37 = t36 ^ t34;
    const uint64_t t38 = t27 ^ t36;
    const uint64_t t39 = t29 & t38;
    const uint64_t t40 = t25 ^ t39;

    const uint64_t t41 = t40 ^ t37;
    const uint64_t t42 = t29 ^ t33;
    const uint64_t t43 = t29 ^ t40;
    const uint64_t t44 = t33 ^ t37;
    const uint64_t t45 = t42 ^ t41;

    /* ... and the products that map the inverse back. */
    const uint64_t z0 = t44 & y15;
    const uint64_t z1 = t37 & y6;
    const uint64_t z2 = t33 & u7;
    const uint64_t z3 = t43 & y16;
    const uint64_t z4 = t40 & y1;
    const uint64_t z5 = t29 & y7;
    const uint64_t z6 = t42 & y11;
    const uint64_t z7 = t45 & y17;
    const uint64_t z8 = t41 & y10;
    const uint64_t z9 = t44 & y12;
    const uint64_t z10 = t37 & y3;
    const uint64_t z11 = t33 & y4;
    const uint64_t z12 = t43 & y13;
    const uint64_t z13 = t40 & y5;
    const uint64_t z14 = t29 & y2;
    const uint64_t z15 = t42 & y9;
    const uint64_t z16 = t45 & y14;
    const uint64_t z17 = t41 & y8;

    /* Bottom linear layer, including the affine map of the S-box. */
    const uint64_t t46 = z15 ^ z16;
    const uint64_t t47 = z10 ^ z11;
    const uint64_t t48 = z5 ^ z13;
    const uint64_t t49 = z9 ^ z10;
    const uint64_t t50 = z2 ^ z12;
    const uint64_t t51 = z2 ^ z5;
    const uint64_t t52 = z7 ^ z8;
    const uint64_t t53 = z0 ^ z3;
    const uint64_t t54 = z6 ^ z7;
    const uint64_t t55 = z16 ^ z17;
    const uint64_t t56 = z12 ^ t48;
    const uint64_t t57 = t50 ^ t53;
    const uint64_t t58 = z4 ^ t46;
    const uint64_t t59 = z3 ^ t54;
    const uint64_t t60 = t46 ^ t57;
    const uint64_t t61 = z14 ^ t57;
    const uint64_t t62 = t52 ^ t58;
    const uint64_t t63 = t49 ^ t58;
    const uint64_t t64 = z4 ^ t59;
    const uint64_t t65 = t61 ^ t62;
    const uint64_t t66 = z1 ^ t63;
    const uint64_t t67 = t64 ^ t65;
    const uint64_t s0 = t59 ^ t63;
    const uint64_t s3 = t53 ^ t66;
    const uint64_t s4 = t51 ^ t66;
    const uint64_t s5 = t47 ^ t65;
    const uint64_t s1 = ~(t64 ^ s3);
    const uint64_t s2 = ~(t55 ^ t67);
    const uint64_t s6 = ~(t56 ^ t62);
    const uint64_t s7 = ~(t48 ^ t60);

    q[7] = s0;
    q[6] = s1;
    q[5] = s2;
    q[4] = s3;
    q[3] = s4;
    q[2] = s5;
    q[1] = s6;
    q[0] = s7;
}

/*
 * ShiftRows: row r (16-bit lane r) moves left by r columns, i.e. the nibble of column c takes
 * the one of column c + r (mod 4): a right rotation of the lane by 4r bits.
 */
static uint64_t shift_rows_word(uint64_t x)
{
    return (x & 0x000000000000ffffu)                                                 /* row 0 */
           | ((x >> 4) & 0x000000000fff0000u) | ((x << 12) & 0x00000000f0000000u)  /* row 1 */
           | ((x >> 8) & 0x000000ff00000000u) | ((x << 8) & 0x0000ff0000000000u)   /* row 2 */
           | ((x >> 12) & 0x000f000000000000u) | ((x << 4) & 0xfff0000000000000u); /* row 3 */
}

static void shift_rows(uint64_t q[8])
{
    for (int b = 0; b < 8; b++)
        q[b] = shift_rows_word(q[b]);
}

/*
 * MixColumns. With a[r] the bytes of row r of a column, the output row r is
 *     2 a[r] + 3 a[r+1] + a[r+2] + a[r+3] = 2 (a[r] + a[r+1]) + a[r+1] + (a[r+2] + a[r+3]).
 * rotr64(x, 16) brings row r + 1 to row r, so with t = a + rot16(a) this is
 *     xtime(t) + rot16(a) + rot32(t).
 * xtime (multiplication by x modulo x^8 + x^4 + x^3 + x + 1) shifts the bit planes up by one
 * and folds plane 7 back into planes 0, 1, 3 and 4.
 */
static void mix_columns(uint64_t q[8])
{
    uint64_t a1[8], t[8];

    for (int b = 0; b < 8; b++) {
        a1[b] = rotr64(q[b], 16);
        t[b] = q[b] ^ a1[b];
    }
    q[0] = t[7] ^ a1[0] ^ rotr64(t[0], 32);
    q[1] = t[0] ^ t[7] ^ a1[1] ^ rotr64(t[1], 32);
    q[2] = t[1] ^ a1[2] ^ rotr64(t[2], 32);
    q[3] = t[2] ^ t[7] ^ a1[3] ^ rotr64(t[3], 32);
    q[4] = t[3] ^ t[7] ^ a1[4] ^ rotr64(t[4], 32);
    q[5] = t[4] ^ a1[5] ^ rotr64(t[5], 32);
    q[6] = t[5] ^ a1[6] ^ rotr64(t[6], 32);
    q[7] = t[6] ^ a1[7] ^ rotr64(t[7], 32);
}

static void add_round_key(uint64_t q[8], const uint64_t rk[8])
{
    for (int b = 0; b < 8; b++)
        q[b] ^= rk[b];
}

/* Encrypt the four blocks held in q with the bitsliced round keys of key. */
static void encrypt_bitsliced(const aesfast_key *key, uint64_t q[8])
{
    const uint64_t *rk = key->bitsliced;
    const unsigned rounds = key->rounds;

    add_round_key(q, rk);
    for (unsigned r = 1; r < rounds; r++) {
        sub_bytes(q);
        shift_rows(q);
        mix_columns(q);
        add_round_key(q, rk + 8 * r);
    }
    sub_bytes(q);
    shift_rows(q);
    add_round_key(q, rk + 8 * rounds);
}

/* ---- key schedule -------------------------------------------------------------------------- */

/*
 * SubWord of the key schedule through the same circuit: the four bytes of w (little-endian)
 * become bit positions 0..3 of the planes. Only fixed shifts and masks touch w.
 */
static uint32_t sub_word(uint32_t w)
{
    uint64_t q[8];
    uint32_t out = 0;

    for (int b = 0; b < 8; b++) {
        q[b] = 0;
        for (int j = 0; j < 4; j++)
            q[b] |= (uint64_t)((w >> (8 * j + b)) & 1) << j;
    }
    sub_bytes(q);
    for (int b = 0; b < 8; b++)
        for (int j = 0; j < 4; j++)
            out |= (uint32_t)((q[b] >> j) & 1) << (8 * j + b);
    aesfast_wipe(q, sizeof(q));
    return out;
}

void aesfast_generic_set_key(aesfast_key *key, const uint8_t *raw, size_t keylen)
{
    /* Round keys as little-endian words: word i is bytes 4i..4i+3 of the schedule. */
    uint32_t w[4 * (AESFAST_MAX_ROUNDS + 1)];
    uint8_t rk4[64];
    const unsigned nk = (unsigned)(keylen / 4); /* 4, 6 or 8 */
    const unsigned rounds = nk + 6;
    const unsigned nwords = 4 * (rounds + 1);
    uint32_t rcon = 1;

    /* The provider only passes valid lengths; anything else must not overflow w[]. */
    if (keylen != 16 && keylen != 24 && keylen != 32) {
        aesfast_wipe(key, sizeof(*key));
        return;
    }
    for (unsigned i = 0; i < nk; i++)
        w[i] = load_le32(raw + 4 * i);
    for (unsigned i = nk; i < nwords; i++) {
        uint32_t tmp = w[i - 1];

        if (i % nk == 0) {
            /* RotWord moves byte 1 to byte 0: a right rotation of the little-endian word. */
            tmp = sub_word(tmp >> 8 | tmp << 24) ^ rcon;
            rcon = (rcon << 1) ^ (0x11b & -(rcon >> 7)); /* public: depends only on i */
        } else if (nk > 6 && i % nk == 4) {
            tmp = sub_word(tmp);
        }
        w[i] = w[i - nk] ^ tmp;
    }

    for (unsigned i = 0; i < nwords; i++)
        store_le32(key->rk + 4 * i, w[i]);
    key->rounds = rounds;

    /* Bitsliced round keys: round key r replicated into all four block slots. */
    for (unsigned r = 0; r <= rounds; r++) {
        for (int k = 0; k < 4; k++)
            memcpy(rk4 + 16 * k, key->rk + 16 * r, 16);
        to_bitsliced(key->bitsliced + 8 * r, rk4);
    }

    aesfast_wipe(w, sizeof(w));
    aesfast_wipe(rk4, sizeof(rk4));
}

/* ---- block and counter-mode entry points --------------------------------------------------- */

void aesfast_generic_encrypt_block(const aesfast_key *key, const uint8_t in[16], uint8_t out[16])
{
    uint8_t buf[64];
    uint64_t q[8];

    /* One block in slot 0; slots 1..3 carry zeros and are discarded. */
    memcpy(buf, in, 16);
    memset(buf + 16, 0, 48);
    to_bitsliced(q, buf);
    encrypt_bitsliced(key, q);
    from_bitsliced(buf, q);
    memcpy(out, buf, 16);

    aesfast_wipe(buf, sizeof(buf));
    aesfast_wipe(q, sizeof(q));
}

/* CTR over 32-bit counters in either of the two formats of aesfast_kernel.h: GCM's big-endian
 * word in bytes 12..15 (le_first = 0), or GCM-SIV's little-endian word in bytes 0..3 (1). */
static void ctr32_xor_fmt(const aesfast_key *key, const uint8_t ctr[16], const uint8_t *in,
                          uint8_t *out, size_t nblocks, int le_first)
{
    uint8_t blocks[64]; /* four counter blocks, then their keystream */
    uint64_t q[8];
    const size_t at = le_first ? 0 : 12; /* where the counter word sits */
    uint32_t c = le_first ? load_le32(ctr)
                          : (uint32_t)ctr[12] << 24 | (uint32_t)ctr[13] << 16 |
                                (uint32_t)ctr[14] << 8 | (uint32_t)ctr[15];

    while (nblocks > 0) {
        const size_t n = nblocks < 4 ? nblocks : 4;

        /* The counter is public: building the blocks may depend on it freely. The uint32_t
         * addition wraps modulo 2^32 and never touches the other 12 bytes. */
        for (int k = 0; k < 4; k++) {
            uint8_t *cb = blocks + 16 * k;
            const uint32_t ck = c + (uint32_t)k;

            memcpy(cb, ctr, 16);
            if (le_first) {
                store_le32(cb + at, ck);
            } else {
                cb[12] = (uint8_t)(ck >> 24);
                cb[13] = (uint8_t)(ck >> 16);
                cb[14] = (uint8_t)(ck >> 8);
                cb[15] = (uint8_t)ck;
            }
        }
        to_bitsliced(q, blocks);
        encrypt_bitsliced(key, q);
        from_bitsliced(blocks, q);

        if (n == 4) {
            for (int i = 0; i < 8; i++)
                store_u64(out + 8 * i, load_u64(in + 8 * i) ^ load_u64(blocks + 8 * i));
        } else {
            for (size_t i = 0; i < 16 * n; i++)
                out[i] = in[i] ^ blocks[i];
        }
        c += 4;
        in += 16 * n;
        out += 16 * n;
        nblocks -= n;
    }

    aesfast_wipe(blocks, sizeof(blocks));
    aesfast_wipe(q, sizeof(q));
}

void aesfast_generic_ctr32_xor(const aesfast_key *key, const uint8_t ctr[16], const uint8_t *in,
                               uint8_t *out, size_t nblocks)
{
    ctr32_xor_fmt(key, ctr, in, out, nblocks, 0);
}

void aesfast_generic_ctr32le_xor(const aesfast_key *key, const uint8_t ctr[16],
                                 const uint8_t *in, uint8_t *out, size_t nblocks)
{
    ctr32_xor_fmt(key, ctr, in, out, nblocks, 1);
}
