/*
 * Portable constant-time GHASH and GCM for the "generic" tier (see aesfast_kernel.h for the ABI).
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * Plain C99, no tables: the usual 4-bit or 8-bit GHASH tables are indexed by data XOR H-dependent
 * values, which leaks through the cache. Instead each 64 x 64-bit carry-less product is made
 * from ordinary integer multiplies "with holes" (as in BearSSL's ctmul64 and Thomas Pornin's
 * notes): split each operand into four masks that keep every fourth bit, so that in a product
 * of two masked words the carries of an integer multiply fall into the three empty bit positions
 * between two wanted ones, and at most 16 ones add up at any position (a 4-bit count), which
 * never reaches the next wanted bit. Sixteen multiplies and masks give the low 64 bits of the
 * carry-less product; the high 64 bits are the low bits of the product of the bit-reversed
 * operands, reversed (rev(x) . rev(y) = rev(x . y) for carry-less products). 64-bit MUL runs in
 * constant time on every CPU this tier targets (x86-64, arm64, and the common 64-bit others).
 *
 * Field representation. A block is read as a 128-bit big-endian integer; its bit 127 (the top
 * bit of byte 0) is the coefficient of x^0, bit 0 that of x^127 (SP 800-38D's "reflected"
 * order). The integer carry-less product C = A . B of two such integers has bit j = coefficient
 * of x^(254-j); after C <<= 1 the top 128 bits are the product's terms x^0..x^127 in the block
 * order (HI), and the low 128 bits (LO) its terms x^128..x^255, i.e. x^128 . d(x) where d is LO
 * in the block order. Reduction uses x^128 = 1 + x + x^2 + x^7; multiplying by x is a right
 * shift in this order, and the bits that fall off the bottom (degree >= 128) are folded back in
 * once more by the left shifts:
 *
 *     g = LO ^ (LO << 127) ^ (LO << 126) ^ (LO << 121)
 *     A . B mod P = HI ^ g ^ (g >> 1) ^ (g >> 2) ^ (g >> 7)       (128-bit shifts)
 *
 * Each 128 x 128 product is three 64 x 64 ones (Karatsuba).
 *
 * POLYVAL (GCM-SIV, RFC 8452) is the same field with the bytes of every block in the other order
 * and a Montgomery factor: POLYVAL(H, X) = rev(GHASH(mulX(rev(H)), rev(X))) (RFC 8452, appendix
 * A), where rev reverses the 16 bytes and mulX multiplies by x in GHASH's representation. So the
 * POLYVAL functions below load each block byte-reversed (little-endian) and run the GHASH core.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "aesfast_kernel.h"

/* The generic tier's aesfast_hash_key: H as two big-endian halves, and their bit reversals. */
typedef struct {
    uint64_t h1, h0;       /* H = h1:h0 (h1 is bytes 0..7) */
    uint64_t h1r, h0r;     /* rev64(h1), rev64(h0) */
    uint64_t hx, hxr;      /* h1 ^ h0 and its reversal (Karatsuba's middle operand) */
} ghash_tbl;

_Static_assert(sizeof(ghash_tbl) <= sizeof(((aesfast_hash_key *)0)->tbl), "hash key room");

static uint64_t load_be64(const uint8_t *p)
{
    return (uint64_t)p[0] << 56 | (uint64_t)p[1] << 48 | (uint64_t)p[2] << 40
         | (uint64_t)p[3] << 32 | (uint64_t)p[4] << 24 | (uint64_t)p[5] << 16
         | (uint64_t)p[6] << 8 | (uint64_t)p[7];
}

static void store_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--) {
        p[i] = (uint8_t)v;
        v >>= 8;
    }
}

static uint64_t rev64(uint64_t x)
{
    x = ((x & 0x5555555555555555u) << 1) | ((x >> 1) & 0x5555555555555555u);
    x = ((x & 0x3333333333333333u) << 2) | ((x >> 2) & 0x3333333333333333u);
    x = ((x & 0x0f0f0f0f0f0f0f0fu) << 4) | ((x >> 4) & 0x0f0f0f0f0f0f0f0fu);
    x = ((x & 0x00ff00ff00ff00ffu) << 8) | ((x >> 8) & 0x00ff00ff00ff00ffu);
    x = ((x & 0x0000ffff0000ffffu) << 16) | ((x >> 16) & 0x0000ffff0000ffffu);
    return (x << 32) | (x >> 32);
}

/* The low 64 bits of the carry-less product x . y, from integer multiplies with holes. */
static uint64_t clmul_lo(uint64_t x, uint64_t y)
{
    const uint64_t m0 = 0x1111111111111111u, m1 = m0 << 1, m2 = m0 << 2, m3 = m0 << 3;
    uint64_t x0 = x & m0, x1 = x & m1, x2 = x & m2, x3 = x & m3;
    uint64_t y0 = y & m0, y1 = y & m1, y2 = y & m2, y3 = y & m3;
    /* Bit class k of the result (positions = k mod 4) collects the products x_i y_j with
     * i + j = k mod 4. */
    uint64_t z0 = (x0 * y0) ^ (x1 * y3) ^ (x2 * y2) ^ (x3 * y1);
    uint64_t z1 = (x0 * y1) ^ (x1 * y0) ^ (x2 * y3) ^ (x3 * y2);
    uint64_t z2 = (x0 * y2) ^ (x1 * y1) ^ (x2 * y0) ^ (x3 * y3);
    uint64_t z3 = (x0 * y3) ^ (x1 * y2) ^ (x2 * y1) ^ (x3 * y0);

    return (z0 & m0) | (z1 & m1) | (z2 & m2) | (z3 & m3);
}

/* The 128-bit carry-less product x . y as hi:lo; xr, yr are rev64(x), rev64(y). */
static void clmul64(uint64_t x, uint64_t xr, uint64_t y, uint64_t yr, uint64_t *hi, uint64_t *lo)
{
    *lo = clmul_lo(x, y);
    *hi = rev64(clmul_lo(xr, yr)) >> 1;
}

/* acc = acc . H in GF(2^128), with acc as the big-endian halves a1:a0. */
static void gf_mul(const ghash_tbl *t, uint64_t *a1, uint64_t *a0)
{
    uint64_t x1 = *a1, x0 = *a0, x1r = rev64(x1), x0r = rev64(x0);
    uint64_t hh, hl, lh, ll, mh, ml;

    clmul64(x1, x1r, t->h1, t->h1r, &hh, &hl);            /* high halves */
    clmul64(x0, x0r, t->h0, t->h0r, &lh, &ll);            /* low halves */
    clmul64(x1 ^ x0, x1r ^ x0r, t->hx, t->hxr, &mh, &ml); /* (x1 + x0)(h1 + h0) */
    mh ^= hh ^ lh;
    ml ^= hl ^ ll;
    /* The 256-bit product c3:c2:c1:c0 = hh:hl:0:0 ^ 0:mh:ml:0 ^ 0:0:lh:ll, then << 1. */
    uint64_t c3 = hh, c2 = hl ^ mh, c1 = lh ^ ml, c0 = ll;
    c3 = (c3 << 1) | (c2 >> 63);
    c2 = (c2 << 1) | (c1 >> 63);
    c1 = (c1 << 1) | (c0 >> 63);
    c0 <<= 1;
    /* HI = c3:c2, LO = c1:c0; reduce as in the header. */
    uint64_t g1 = c1 ^ (c0 << 63) ^ (c0 << 62) ^ (c0 << 57), g0 = c0;
    *a1 = c3 ^ g1 ^ (g1 >> 1) ^ (g1 >> 2) ^ (g1 >> 7);
    *a0 = c2 ^ g0 ^ ((g0 >> 1) | (g1 << 63)) ^ ((g0 >> 2) | (g1 << 62)) ^ ((g0 >> 7) | (g1 << 57));
}

void aesfast_generic_ghash_init(aesfast_hash_key *hkey, const uint8_t h[16])
{
    ghash_tbl t;

    t.h1 = load_be64(h);
    t.h0 = load_be64(h + 8);
    t.h1r = rev64(t.h1);
    t.h0r = rev64(t.h0);
    t.hx = t.h1 ^ t.h0;
    t.hxr = t.h1r ^ t.h0r;
    memcpy(hkey->tbl, &t, sizeof(t));
}

static uint64_t load_le64(const uint8_t *p)
{
    return (uint64_t)p[7] << 56 | (uint64_t)p[6] << 48 | (uint64_t)p[5] << 40
         | (uint64_t)p[4] << 32 | (uint64_t)p[3] << 24 | (uint64_t)p[2] << 16
         | (uint64_t)p[1] << 8 | (uint64_t)p[0];
}

static void store_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

void aesfast_generic_ghash(const aesfast_hash_key *hkey, uint8_t acc[16], const uint8_t *in,
                           size_t nblocks)
{
    ghash_tbl t;
    uint64_t a1 = load_be64(acc), a0 = load_be64(acc + 8);

    memcpy(&t, hkey->tbl, sizeof(t));
    for (size_t i = 0; i < nblocks; i++, in += 16) {
        a1 ^= load_be64(in);
        a0 ^= load_be64(in + 8);
        gf_mul(&t, &a1, &a0);
    }
    store_be64(acc, a1);
    store_be64(acc + 8, a0);
}

void aesfast_generic_polyval_init(aesfast_hash_key *hkey, const uint8_t h[16])
{
    /* mulX(rev(H)): rev(H) as GHASH's big-endian halves, shifted right one bit (x^1 in the
     * reflected order), reduced by x^128 = 1 + x + x^2 + x^7 (0xe1 in the top byte). The branch
     * is on a bit of H, so it is done with a mask. */
    uint64_t h1 = load_le64(h + 8), h0 = load_le64(h);
    uint64_t carry = (uint64_t)0 - (h0 & 1);
    uint8_t hx[16];

    h0 = (h0 >> 1) | (h1 << 63);
    h1 = (h1 >> 1) ^ (carry & 0xe100000000000000u);
    store_be64(hx, h1);
    store_be64(hx + 8, h0);
    aesfast_generic_ghash_init(hkey, hx);
    memset(hx, 0, sizeof(hx));
}

void aesfast_generic_polyval(const aesfast_hash_key *hkey, uint8_t acc[16], const uint8_t *in,
                             size_t nblocks)
{
    ghash_tbl t;
    uint64_t a1 = load_le64(acc + 8), a0 = load_le64(acc);

    memcpy(&t, hkey->tbl, sizeof(t));
    for (size_t i = 0; i < nblocks; i++, in += 16) {
        a1 ^= load_le64(in + 8);
        a0 ^= load_le64(in);
        gf_mul(&t, &a1, &a0);
    }
    store_le64(acc + 8, a1);
    store_le64(acc, a0);
}

/*
 * The stitched shapes as two passes over chunks that stay in L1 between them: CTR, then the hash
 * of its output (GCM seal, GCM-SIV open), or the hash of the input, then CTR (GCM open). The
 * counter block advances here, in a local copy, exactly as the kernel's 32-bit counter does.
 */
#define CHUNK 64 /* blocks */

static void ctr_advance(uint8_t ctr[16], size_t n, int le_first)
{
    uint8_t *w = le_first ? ctr : ctr + 12;
    uint32_t v = le_first ? (uint32_t)w[3] << 24 | (uint32_t)w[2] << 16 | (uint32_t)w[1] << 8 | w[0]
                          : (uint32_t)w[0] << 24 | (uint32_t)w[1] << 16 | (uint32_t)w[2] << 8 | w[3];

    v += (uint32_t)n;
    for (int i = 0; i < 4; i++)
        w[le_first ? i : 3 - i] = (uint8_t)(v >> (8 * i));
}

static void stitch(aesfast_ctr32_xor_fn *ctr_fn, aesfast_hash_fn *hash_fn, int le_first,
                   int hash_out, const aesfast_key *key, const aesfast_hash_key *hkey,
                   uint8_t acc[16], const uint8_t ctr[16], const uint8_t *in, uint8_t *out,
                   size_t nblocks)
{
    uint8_t c[16];

    memcpy(c, ctr, 16);
    while (nblocks > 0) {
        size_t n = nblocks < CHUNK ? nblocks : CHUNK;

        if (!hash_out)
            hash_fn(hkey, acc, in, n); /* before out, which may be in, is written */
        ctr_fn(key, c, in, out, n);
        if (hash_out)
            hash_fn(hkey, acc, out, n);
        ctr_advance(c, n, le_first);
        in += 16 * n;
        out += 16 * n;
        nblocks -= n;
    }
}

void aesfast_generic_gcm_ctr_then_hash(const aesfast_key *key, const aesfast_hash_key *hkey,
                                       uint8_t acc[16], const uint8_t ctr[16],
                                       const uint8_t *in, uint8_t *out, size_t nblocks)
{
    stitch(aesfast_generic_ctr32_xor, aesfast_generic_ghash, 0, 1, key, hkey, acc, ctr, in, out,
           nblocks);
}

void aesfast_generic_gcm_hash_then_ctr(const aesfast_key *key, const aesfast_hash_key *hkey,
                                       uint8_t acc[16], const uint8_t ctr[16],
                                       const uint8_t *in, uint8_t *out, size_t nblocks)
{
    stitch(aesfast_generic_ctr32_xor, aesfast_generic_ghash, 0, 0, key, hkey, acc, ctr, in, out,
           nblocks);
}

void aesfast_generic_gcmsiv_ctr_then_hash(const aesfast_key *key, const aesfast_hash_key *hkey,
                                          uint8_t acc[16], const uint8_t ctr[16],
                                          const uint8_t *in, uint8_t *out, size_t nblocks)
{
    stitch(aesfast_generic_ctr32le_xor, aesfast_generic_polyval, 1, 1, key, hkey, acc, ctr, in,
           out, nblocks);
}
