/*
 * CPU feature detection and the kernel tier table.
 *
 * Features are read once per process (pthread_once): CPUID plus XGETBV on x86-64, since a CPU
 * feature is usable only when the OS saves the register state it needs (YMM for AVX2, ZMM and
 * opmask for AVX-512); getauxval(AT_HWCAP) on arm64 Linux and sysctl on Apple.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <pthread.h>

#include "dispatch.h"

#if defined(__x86_64__) && defined(AESFAST_ASM)
#include <cpuid.h>
#elif defined(__aarch64__) && defined(AESFAST_ASM)
#if defined(__linux__)
#include <sys/auxv.h>
#elif defined(__APPLE__)
#include <sys/sysctl.h>
#endif
#endif

_Static_assert(offsetof(aesfast_key, rk) == AESFAST_KEY_RK, "AESFAST_KEY_RK");
_Static_assert(offsetof(aesfast_key, rounds) == AESFAST_KEY_ROUNDS, "AESFAST_KEY_ROUNDS");
_Static_assert(offsetof(aesfast_key, bitsliced) == AESFAST_KEY_BITSLICED, "AESFAST_KEY_BITSLICED");
_Static_assert(offsetof(aesfast_gcm_msg, queue) == AESFAST_MSG_QUEUE, "AESFAST_MSG_QUEUE");
_Static_assert(offsetof(aesfast_gcm_msg, acc) == AESFAST_MSG_ACC, "AESFAST_MSG_ACC");
_Static_assert(offsetof(aesfast_gcm_msg, j0) == AESFAST_MSG_J0, "AESFAST_MSG_J0");
_Static_assert(offsetof(aesfast_gcm_msg, tag) == AESFAST_MSG_TAG, "AESFAST_MSG_TAG");
_Static_assert(offsetof(aesfast_gcm_msg, nqueue) == AESFAST_MSG_NQUEUE, "AESFAST_MSG_NQUEUE");
_Static_assert(offsetof(aesfast_gcm_msg, aadlen) == AESFAST_MSG_AADLEN, "AESFAST_MSG_AADLEN");
_Static_assert(offsetof(aesfast_gcm_msg, flags) == AESFAST_MSG_FLAGS, "AESFAST_MSG_FLAGS");
#define SIV_OFFSET(field, off) _Static_assert(offsetof(aesfast_gcmsiv_msg, field) == off, #off)
SIV_OFFSET(nonce, AESFAST_SIV_NONCE);
SIV_OFFSET(auth, AESFAST_SIV_AUTH);
SIV_OFFSET(aad, AESFAST_SIV_AAD);
SIV_OFFSET(in, AESFAST_SIV_IN);
SIV_OFFSET(out, AESFAST_SIV_OUT);
SIV_OFFSET(naad, AESFAST_SIV_NAAD);
SIV_OFFSET(aadlen, AESFAST_SIV_AADLEN);
SIV_OFFSET(len, AESFAST_SIV_LEN);
SIV_OFFSET(tag, AESFAST_SIV_TAG);

/* Each feature a tier may need, as a bit. */
enum {
    F_AES = 1u << 0,       /* x86 AES-NI; arm64 AESE/AESD */
    F_PCLMUL = 1u << 1,    /* x86 PCLMULQDQ; arm64 PMULL */
    F_SSSE3 = 1u << 2,
    F_SSE41 = 1u << 3,
    F_AVX2 = 1u << 4,      /* with the OS saving YMM state */
    F_AVX512 = 1u << 5,    /* AVX512F+BW+VL, with the OS saving ZMM and opmask state */
    F_VAES = 1u << 6,
    F_VPCLMUL = 1u << 7,
    F_BMI2 = 1u << 8,
    F_SHA3 = 1u << 9,      /* arm64 EOR3/RAX1/XAR/BCAX (FEAT_SHA3) */
};

static const struct {
    unsigned bit;
    const char *name;
} feature_names[] = {
    {F_AES, "aes"},       {F_PCLMUL, "pclmul"}, {F_SSSE3, "ssse3"},   {F_SSE41, "sse4.1"},
    {F_AVX2, "avx2"},     {F_AVX512, "avx512"}, {F_VAES, "vaes"},     {F_VPCLMUL, "vpclmulqdq"},
    {F_BMI2, "bmi2"},     {F_SHA3, "sha3"},
};

static unsigned cpu_features;
static int cpu_avoids_zmm; /* aesfast_cpu_avoids_zmm() of this CPU */
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;

/*
 * The Intel cores that lower their clock while zmm registers are in use, enough to slow the rest
 * of the machine, by their CPUID family 6 model: Skylake-SP/Cascade Lake/Cooper Lake (0x55, no
 * VAES, listed for completeness), Ice Lake server (0x6a), Ice Lake-D (0x6c), Ice Lake client and
 * mobile (0x7d, 0x7e), Ice Lake NNPI (0x9d), Tiger Lake mobile and client (0x8c, 0x8d). The Linux
 * kernel sets X86_FEATURE_PREFER_YMM for this list and BoringSSL its "avoid zmm" bit for the
 * same models but 0x9d; both allow Rocket Lake, Sapphire Rapids and later, and AMD (Zen 4 on).
 */
static const unsigned zmm_downclock_models[] = {0x55, 0x6a, 0x6c, 0x7d, 0x7e, 0x9d, 0x8c, 0x8d};

int aesfast_cpu_avoids_zmm(const char vendor[12], uint32_t leaf1_eax)
{
    unsigned family = (leaf1_eax >> 8) & 0xf, model = (leaf1_eax >> 4) & 0xf;

    if (family == 0xf)
        family += (leaf1_eax >> 20) & 0xff;
    if (family == 0x6 || family == 0xf)
        model |= ((leaf1_eax >> 16) & 0xf) << 4;
    if (memcmp(vendor, "GenuineIntel", 12) != 0 || family != 6)
        return 0;
    for (size_t i = 0; i < sizeof(zmm_downclock_models) / sizeof(zmm_downclock_models[0]); i++)
        if (model == zmm_downclock_models[i])
            return 1;
    return 0;
}

#if defined(__x86_64__) && defined(AESFAST_ASM)
static unsigned long long read_xcr0(void)
{
    unsigned int lo, hi;

    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}

static void detect(void)
{
    unsigned int a, b, c, d, max;
    unsigned f = 0;
    unsigned long long xcr0 = 0;
    char vendor[12];

    if (!__get_cpuid(0, &max, &b, &c, &d) || max < 1)
        return;
    memcpy(vendor, &b, 4);
    memcpy(vendor + 4, &d, 4);
    memcpy(vendor + 8, &c, 4);
    __cpuid_count(1, 0, a, b, c, d);
    cpu_avoids_zmm = aesfast_cpu_avoids_zmm(vendor, a);
    if (c & (1u << 25)) f |= F_AES;
    if (c & (1u << 1)) f |= F_PCLMUL;
    if (c & (1u << 9)) f |= F_SSSE3;
    if (c & (1u << 19)) f |= F_SSE41;
    /* OSXSAVE: the OS uses XSAVE, so XCR0 says which register state it saves. */
    if (c & (1u << 27))
        xcr0 = read_xcr0();
    int os_ymm = (xcr0 & 0x6) == 0x6;           /* XMM and YMM state */
    int os_zmm = os_ymm && (xcr0 & 0xe0) == 0xe0; /* opmask, ZMM0-15 upper halves, ZMM16-31 */
    int avx = (c & (1u << 28)) != 0;
    if (max >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        if (os_ymm && avx && (b & (1u << 5))) f |= F_AVX2;
        if (b & (1u << 8)) f |= F_BMI2;
        unsigned avx512 = (1u << 16) | (1u << 30) | (1u << 31); /* F, BW, VL */
        if (os_zmm && (b & avx512) == avx512) f |= F_AVX512;
        if (os_ymm && (c & (1u << 9))) f |= F_VAES;
        if (os_ymm && (c & (1u << 10))) f |= F_VPCLMUL;
    }
    cpu_features = f;
}
#elif defined(__aarch64__) && defined(AESFAST_ASM) && defined(__linux__)
static void detect(void)
{
    unsigned long hw = getauxval(AT_HWCAP);

    cpu_features = ((hw & (1ul << 3)) ? F_AES : 0)      /* HWCAP_AES */
                 | ((hw & (1ul << 4)) ? F_PCLMUL : 0)  /* HWCAP_PMULL */
                 | ((hw & (1ul << 17)) ? F_SHA3 : 0);  /* HWCAP_SHA3 */
}
#elif defined(__aarch64__) && defined(AESFAST_ASM) && defined(__APPLE__)
static int sysctl_flag(const char *name)
{
    int v = 0;
    size_t len = sizeof(v);

    return sysctlbyname(name, &v, &len, NULL, 0) == 0 && v != 0;
}

static void detect(void)
{
    cpu_features = (sysctl_flag("hw.optional.arm.FEAT_AES") ? F_AES : 0)
                 | (sysctl_flag("hw.optional.arm.FEAT_PMULL") ? F_PCLMUL : 0)
                 | (sysctl_flag("hw.optional.arm.FEAT_SHA3") ? F_SHA3 : 0);
}
#else
static void detect(void)
{
    cpu_features = 0;
}
#endif

static unsigned features(void)
{
    pthread_once(&cpu_once, detect);
    return cpu_features;
}

/* The tiers. Each names the features it needs: the ones its kernels execute, plus PCLMULQDQ /
 * VPCLMULQDQ / PMULL, which the GCM kernels of the same tier use, so a tier means one thing. */
typedef struct {
    aesfast_kernel k;
    unsigned needs;
} tier;

/* The GCM and GCM-SIV tables of a tier whose functions are named aesfast_<prefix>_ghash_init
 * and so on; hash_prefix names the hash-loop variant (armv8-sha3 shares armv8's tables and
 * counters, and has its own EOR3 loops). Optional entries are left out (NULL: see
 * aesfast_kernel.h): hash_init_few, _rest and the bytes few fills where the tier has one
 * table, and the forms for a public counter but where GCM_KERNELS_PUB names the tier's _pub ones
 * (GCM-SIV's counter is the tag: never public). */
#define GCM_KERNELS(prefix, hash_prefix, ctr_fn)                                               \
    .hash_init = aesfast_##prefix##_ghash_init, .hash = aesfast_##hash_prefix##_ghash,         \
    .ctr = ctr_fn, .ctr_then_hash = aesfast_##hash_prefix##_gcm_ctr_then_hash,                  \
    .hash_then_ctr = aesfast_##hash_prefix##_gcm_hash_then_ctr
#define GCM_KERNELS_PUB(prefix)                                                                \
    GCM_KERNELS(prefix, prefix, aesfast_##prefix##_ctr32_xor),                                  \
    .ctr_then_hash_pub = aesfast_##prefix##_gcm_ctr_then_hash_pub,                             \
    .hash_then_ctr_pub = aesfast_##prefix##_gcm_hash_then_ctr_pub
#define GCMSIV_KERNELS(prefix, hash_prefix)                                                    \
    .hash_init = aesfast_##prefix##_polyval_init, .hash = aesfast_##hash_prefix##_polyval,     \
    .ctr = aesfast_##prefix##_ctr32le_xor,                                                     \
    .ctr_then_hash = aesfast_##hash_prefix##_gcmsiv_ctr_then_hash

static const tier tier_generic = {
    .k = {.name = "generic", .set_key = aesfast_generic_set_key,
          .key_bytes = sizeof(aesfast_key), .encrypt_block = aesfast_generic_encrypt_block,
          .ctr32_xor = aesfast_generic_ctr32_xor,
          .gcm = {GCM_KERNELS(generic, generic, aesfast_generic_ctr32_xor)},
          .gcmsiv = {GCMSIV_KERNELS(generic, generic)},
          .gcm_groups = AESFAST_GCM_GROUPS_C},
    .needs = 0,
};

#if defined(__x86_64__) && defined(AESFAST_ASM)
/* The bytes hash_init_few writes (kernels/amd64/gcm_vaes.S's table layout): 512-bit, H'^8..H'^1
 * at 16 (32 - k) and the zeros the tails read past H'^1; 256-bit, H'^8..H'^1 at 16 (16 - k)
 * and their Karatsuba terms 256 bytes on. */
#define FEW_512 .few_lo = 16 * 24, .few_hi = 512 + 64
#define FEW_256 .few_lo = 16 * 8, .few_hi = 256 + 16 * 16
static const tier tier_vaes_avx512 = {
    .k = {.name = "vaes-avx512", .set_key = aesfast_aesni_set_key,
          .key_bytes = AESFAST_KEY_BITSLICED, .encrypt_block = aesfast_aesni_encrypt_block,
          .ctr32_xor = aesfast_vaes_avx512_ctr32_xor,
          .gcm = {GCM_KERNELS_PUB(vaes_avx512),
                  .hash_init_few = aesfast_vaes_avx512_ghash_init_few, FEW_512,
                  .hash_init_rest = aesfast_vaes_avx512_ghash_init_rest},
          .gcmsiv = {GCMSIV_KERNELS(vaes_avx512, vaes_avx512),
                     .hash_init_few = aesfast_vaes_avx512_polyval_init_few, FEW_512},
          .gcmsiv_derive = aesfast_aesni_gcmsiv_derive,
          .gcm_seal_msg = aesfast_vaes_avx512_gcm_seal_msg,
          .gcm_open_msg = aesfast_vaes_avx512_gcm_open_msg,
          .gcmsiv_seal_short = aesfast_vaes_avx512_gcmsiv_seal_short,
          .gcmsiv_open_short = aesfast_vaes_avx512_gcmsiv_open_short, .gcmsiv_short_blocks = 32},
    .needs = F_AES | F_PCLMUL | F_SSSE3 | F_SSE41 | F_AVX2 | F_AVX512 | F_VAES | F_VPCLMUL | F_BMI2,
};
/* The end of a GCM message by gcm_aesni.S's last-block functions, for the composer: 7 data
 * blocks in `powers` (the tier's table: 8 on aesni, 16 on vaes-avx2); both tiers' stitched loops
 * run groups of 8 blocks (vaes-avx2 16, and 8 in its tail), then 4. */
#define GCM_LAST(prefix, powers)                                                               \
    .gcm_seal_last = aesfast_##prefix##_gcm_seal_last,                                         \
    .gcm_open_last = aesfast_##prefix##_gcm_open_last,                                         \
    .gcm_groups = {.lanes = 7, .blocks = powers, .group = 8}
static const tier tier_vaes_avx2 = {
    .k = {.name = "vaes-avx2", .set_key = aesfast_aesni_set_key,
          .key_bytes = AESFAST_KEY_BITSLICED, .encrypt_block = aesfast_aesni_encrypt_block,
          .ctr32_xor = aesfast_vaes_avx2_ctr32_xor,
          .gcm = {GCM_KERNELS_PUB(vaes_avx2), .hash_init_few = aesfast_vaes_avx2_ghash_init_few,
                  FEW_256, .hash_init_rest = aesfast_vaes_avx2_ghash_init_rest},
          .gcmsiv = {GCMSIV_KERNELS(vaes_avx2, vaes_avx2),
                     .hash_init_few = aesfast_vaes_avx2_polyval_init_few, FEW_256},
          .gcmsiv_derive = aesfast_aesni_gcmsiv_derive, GCM_LAST(vaes_avx2, 16),
          .gcmsiv_seal_short = aesfast_aesni_gcmsiv_seal_short,
          .gcmsiv_open_short = aesfast_aesni_gcmsiv_open_short, .gcmsiv_short_blocks = 18},
    .needs = F_AES | F_PCLMUL | F_SSSE3 | F_SSE41 | F_AVX2 | F_VAES | F_VPCLMUL | F_BMI2,
};
static const tier tier_aesni = {
    .k = {.name = "aesni", .set_key = aesfast_aesni_set_key,
          .key_bytes = AESFAST_KEY_BITSLICED, .encrypt_block = aesfast_aesni_encrypt_block,
          .ctr32_xor = aesfast_aesni_ctr32_xor,
          .gcm = {GCM_KERNELS(aesni, aesni, aesfast_aesni_ctr32_xor)},
          .gcmsiv = {GCMSIV_KERNELS(aesni, aesni)},
          .gcmsiv_derive = aesfast_aesni_gcmsiv_derive, GCM_LAST(aesni, 8),
          .gcmsiv_seal_short = aesfast_aesni_gcmsiv_seal_short,
          .gcmsiv_open_short = aesfast_aesni_gcmsiv_open_short, .gcmsiv_short_blocks = 32},
    .needs = F_AES | F_PCLMUL | F_SSSE3 | F_SSE41,
};
#endif

#if defined(__aarch64__) && defined(AESFAST_ASM)
static const tier tier_armv8_sha3 = {
    .k = {.name = "armv8-sha3", .set_key = aesfast_armv8_set_key,
          .key_bytes = AESFAST_KEY_BITSLICED, .encrypt_block = aesfast_armv8_encrypt_block,
          .ctr32_xor = aesfast_armv8_ctr32_xor,
          .gcm = {GCM_KERNELS(armv8, armv8_sha3, aesfast_armv8_ctr32_xor)},
          .gcmsiv = {GCMSIV_KERNELS(armv8, armv8_sha3)},
          .gcm_groups = AESFAST_GCM_GROUPS_C},
    .needs = F_AES | F_PCLMUL | F_SHA3,
};
static const tier tier_armv8 = {
    .k = {.name = "armv8", .set_key = aesfast_armv8_set_key,
          .key_bytes = AESFAST_KEY_BITSLICED, .encrypt_block = aesfast_armv8_encrypt_block,
          .ctr32_xor = aesfast_armv8_ctr32_xor,
          .gcm = {GCM_KERNELS(armv8, armv8, aesfast_armv8_ctr32_xor)},
          .gcmsiv = {GCMSIV_KERNELS(armv8, armv8)},
          .gcm_groups = AESFAST_GCM_GROUPS_C},
    .needs = F_AES | F_PCLMUL,
};
#endif

/* Best first. Each entry points at a tier's first member, its kernel table (see tier_of). */
const aesfast_kernel *const aesfast_kernels[] = {
#if defined(__x86_64__) && defined(AESFAST_ASM)
    &tier_vaes_avx512.k, &tier_vaes_avx2.k, &tier_aesni.k,
#endif
#if defined(__aarch64__) && defined(AESFAST_ASM)
    &tier_armv8_sha3.k, &tier_armv8.k,
#endif
    &tier_generic.k, NULL,
};

/* The tier whose kernel table k is, or NULL for a table not in aesfast_kernels. */
static const tier *tier_of(const aesfast_kernel *k)
{
    _Static_assert(offsetof(tier, k) == 0, "a tier starts with its kernel table");
    for (const aesfast_kernel *const *p = aesfast_kernels; *p != NULL; p++)
        if (*p == k)
            return (const tier *)k;
    return NULL;
}

const aesfast_kernel *aesfast_kernel_by_name(const char *name)
{
    for (const aesfast_kernel *const *p = aesfast_kernels; *p != NULL; p++)
        if (strcmp((*p)->name, name) == 0)
            return *p;
    return NULL;
}

static void append_names(char *buf, size_t len, unsigned bits)
{
    size_t used = strlen(buf);

    for (size_t i = 0; i < sizeof(feature_names) / sizeof(feature_names[0]); i++) {
        if (!(bits & feature_names[i].bit) || used >= len)
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? " " : "", feature_names[i].name);
        if (n > 0)
            used += (size_t)n;
    }
}

int aesfast_kernel_usable(const aesfast_kernel *k, char *why, size_t whylen)
{
    const tier *t = tier_of(k);
    unsigned missing = t == NULL ? ~0u : t->needs & ~features();

    if (why != NULL && whylen > 0) {
        why[0] = '\0';
        if (missing != 0) {
            snprintf(why, whylen, "cpu lacks:");
            append_names(why, whylen, missing);
        }
    }
    return missing == 0;
}

int aesfast_kernel_preferred(const aesfast_kernel *k, char *why, size_t whylen)
{
    const tier *t = tier_of(k);
    int zmm = t != NULL && (t->needs & F_AVX512) != 0;

    (void)features(); /* detected */
    if (why != NULL && whylen > 0)
        snprintf(why, whylen, "%s", zmm && cpu_avoids_zmm ? "this Intel model lowers its clock "
                 "while zmm registers are in use (Ice Lake, Tiger Lake)" : "");
    return !(zmm && cpu_avoids_zmm);
}

const aesfast_kernel *aesfast_kernel_best(void)
{
    for (const aesfast_kernel *const *p = aesfast_kernels; *p != NULL; p++)
        if (aesfast_kernel_usable(*p, NULL, 0) && aesfast_kernel_preferred(*p, NULL, 0))
            return *p;
    return &tier_generic.k; /* never reached: generic needs nothing */
}

void aesfast_cpu_describe(char *buf, size_t len)
{
    if (len == 0)
        return;
    buf[0] = '\0';
    append_names(buf, len, features());
    if (buf[0] == '\0')
        snprintf(buf, len, "(none)");
}
