/*
 * The cipher layer every aesfast mode is built on: one context base, one descriptor per mode,
 * and one implementation of what the modes share (context life cycle, the checks of init and
 * update, parameter matching, the algorithm parameters and the dispatch tables). A mode file
 * (ctr.c, gcm.c, gcmsiv.c) holds only its mode's logic, in the hooks that AESFAST_CIPHER binds
 * to the shared functions.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#ifndef AESFAST_CIPHER_H
#define AESFAST_CIPHER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include "aesfast.h"

/* Names OpenSSL 3.0's headers lack (3.2+ have them). */
#ifndef OSSL_CIPHER_PARAM_AEAD_IV_GENERATED
#define OSSL_CIPHER_PARAM_AEAD_IV_GENERATED "iv-generated"
#endif
#ifndef OSSL_CIPHER_PARAM_SPEED
#define OSSL_CIPHER_PARAM_SPEED "speed"
#endif

/* Every context parameter any mode knows, by name (aesfast_param_id). */
typedef enum {
    AESFAST_P_UNKNOWN,
    AESFAST_P_TAG,
    AESFAST_P_IVLEN,
    AESFAST_P_IV,
    AESFAST_P_TAGLEN,
    AESFAST_P_KEYLEN,
    AESFAST_P_UPDATED_IV,
    AESFAST_P_NUM,
    AESFAST_P_PADDING,
    AESFAST_P_SPEED,
    AESFAST_P_TLS_AAD_PAD,
    AESFAST_P_TLS_IV_GEN,
    AESFAST_P_IV_GENERATED,
    AESFAST_P_TLS_AAD,
    AESFAST_P_TLS_IV_FIXED,
    AESFAST_P_TLS_IV_INV,
    AESFAST_P_USE_BITS,
    AESFAST_P_TLS_VERSION,
    AESFAST_P_TLS_MAC_SIZE,
} aesfast_param;

/* a and b are the same string: compared here, byte by byte, since the names are short and a
 * call of libc's strcmp (vector code with page-crossing checks) cost the per-message path more
 * than the rest of a tag read. */
static inline int aesfast_streq(const char *a, const char *b)
{
    while (*a != '\0' && *a == *b)
        a++, b++;
    return *a == *b;
}

/* The id of a parameter name: the per-message path reads "tag" and "ivlen" on every message,
 * so those are matched first; inline, as a call of its own costs that path a nanosecond per
 * parameter. */
static inline aesfast_param aesfast_param_id(const char *key)
{
    static const struct {
        const char *name;
        aesfast_param id;
    } names[] = {
        {OSSL_CIPHER_PARAM_AEAD_TAG, AESFAST_P_TAG},
        {OSSL_CIPHER_PARAM_IVLEN, AESFAST_P_IVLEN},
        {OSSL_CIPHER_PARAM_IV, AESFAST_P_IV},
        {OSSL_CIPHER_PARAM_AEAD_TAGLEN, AESFAST_P_TAGLEN},
        {OSSL_CIPHER_PARAM_KEYLEN, AESFAST_P_KEYLEN},
        {OSSL_CIPHER_PARAM_UPDATED_IV, AESFAST_P_UPDATED_IV},
        {OSSL_CIPHER_PARAM_NUM, AESFAST_P_NUM},
        {OSSL_CIPHER_PARAM_PADDING, AESFAST_P_PADDING},
        {OSSL_CIPHER_PARAM_SPEED, AESFAST_P_SPEED},
        {OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, AESFAST_P_TLS_AAD_PAD},
        {OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, AESFAST_P_TLS_IV_GEN},
        {OSSL_CIPHER_PARAM_AEAD_IV_GENERATED, AESFAST_P_IV_GENERATED},
        {OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, AESFAST_P_TLS_AAD},
        {OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, AESFAST_P_TLS_IV_FIXED},
        {OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, AESFAST_P_TLS_IV_INV},
        {OSSL_CIPHER_PARAM_USE_BITS, AESFAST_P_USE_BITS},
        {OSSL_CIPHER_PARAM_TLS_VERSION, AESFAST_P_TLS_VERSION},
        {OSSL_CIPHER_PARAM_TLS_MAC_SIZE, AESFAST_P_TLS_MAC_SIZE},
    };

    /* The first letter before the rest: most names are told apart by it. */
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (key[0] == names[i].name[0] && aesfast_streq(key, names[i].name))
            return names[i].id;
    return AESFAST_P_UNKNOWN;
}

/* What a mode's parameter hook did with one parameter. */
typedef enum {
    AESFAST_PARAM_FAILED = 0, /* refused, with its error raised */
    AESFAST_PARAM_OK = 1,
    AESFAST_PARAM_WRONG_TYPE, /* the type or size given does not fit: the caller raises it */
    AESFAST_PARAM_NOT_MINE,   /* not this mode's: ignored (OSSL_PARAM(3)) */
} aesfast_param_result;

/* The result of a parameter hook that set or read a value: OSSL_PARAM_set_* or _get_* said ok. */
static inline aesfast_param_result aesfast_param_done(int ok)
{
    return ok ? AESFAST_PARAM_OK : AESFAST_PARAM_WRONG_TYPE;
}

typedef struct aesfast_cipher_ctx aesfast_cipher_ctx;

/* A mode's names, sizes and IV rules (AESFAST_CIPHER makes it, with the mode's hooks). */
typedef struct aesfast_mode {
    const char *names[3];          /* by key size: AES-128-..., AES-192-..., AES-256-... */
    size_t ctx_size;               /* the mode's context, which begins with aesfast_cipher_ctx */
    unsigned int nkeys;            /* expanded keys after it (aesfast_ctx_key) */
    unsigned int evp_mode;         /* EVP_CIPH_*_MODE */
    int aead;                      /* 1: an update with out == NULL is AAD */
    size_t ivlen;                  /* the IV length a new context has */
    size_t ivlen_min, ivlen_max;   /* the IV lengths init takes */
    /* Optional (NULL: the whole context, c->size bytes): what a new context zeroes, a copy
     * copies (after which cipher.c sets the copy's pad) and a free wipes, for a mode whose
     * context has large parts that are public or used only in part. */
    void (*clear)(aesfast_cipher_ctx *c);
    void (*copy)(aesfast_cipher_ctx *dst, const aesfast_cipher_ctx *src);
    void (*wipe)(aesfast_cipher_ctx *c);
} aesfast_mode;

/* The alignment of every context (cipher.c): a mode may align its members up to it. */
#define AESFAST_CTX_ALIGN 64

/*
 * The start of every mode's context. The mode's keys follow the mode's own part, each of the
 * size its tier uses (aesfast_kernel.key_bytes, rounded up to AESFAST_CTX_ALIGN): a hardware
 * tier's expanded key is 256 bytes, the portable tier's, with its bitsliced round keys, 1216. So
 * a context is no larger than what it holds, and making, copying and wiping it costs no more.
 * Offsets, not pointers: a copy of the bytes is a context.
 */
struct aesfast_cipher_ctx {
    const aesfast_prov *prov;
    const aesfast_kernel *kernel;  /* the provider instance's tier */
    const aesfast_mode *mode;
    const char *name;              /* "AES-128-GCM" ..., for messages */
    size_t keylen;
    size_t ivlen;                  /* the "ivlen" parameter */
    int enc;                       /* the direction of the last init */
    int key_set;
    uint32_t key_off, key_stride;  /* key i at key_off + i * key_stride (aesfast_ctx_key) */
    size_t size;                   /* the context's bytes: the mode's part and its keys */
    size_t pad;                    /* where the context starts in its allocation (cipher.c) */
};

/* The context's key i (0: the key given; a mode with more has its derived keys after it). */
static inline aesfast_key *aesfast_ctx_key(const aesfast_cipher_ctx *c, unsigned int i)
{
    return (aesfast_key *)(void *)((unsigned char *)c + c->key_off + i * c->key_stride);
}

/*
 * A mode's hooks, which the shared functions below call:
 *   init    the mode's part of init, after the checks (nothing can fail any more), the new
 *           direction and, if new_key, the key schedule;
 *   get     one context parameter ("keylen" and "ivlen" are answered before it is called);
 *   set     one context parameter.
 * (A mode's update is its dispatch function itself, which begins with
 * aesfast_cipher_buffers_ok: a wrapper's extra frame costs the per-record path.)
 */
/* How a mode defines its hooks: inlined into each shared function that calls them, as the
 * per-record path (an IV-only init, a tag set or read) runs them on every message. */
#define AESFAST_HOOK static inline __attribute__((always_inline))

typedef void aesfast_init_hook(aesfast_cipher_ctx *c, int new_key, const uint8_t *iv,
                               size_t ivlen);
typedef aesfast_param_result aesfast_get_hook(aesfast_cipher_ctx *c, OSSL_PARAM *p,
                                              aesfast_param id);
typedef aesfast_param_result aesfast_set_hook(aesfast_cipher_ctx *c, const OSSL_PARAM *p,
                                              aesfast_param id);

/* The context's life cycle, the same for every mode. */
void *aesfast_cipher_newctx(void *provctx, const aesfast_mode *mode, size_t keylen);
void aesfast_cipher_freectx(void *vctx);
void *aesfast_cipher_dupctx(void *vctx);
/* The algorithm parameters ("mode", "keylen", "ivlen", "blocksize" 1, "aead" and "custom-iv" 1
 * for an AEAD mode and 0 otherwise, "cts", "tls-multi", "has-randkey" 0). */
int aesfast_cipher_get_params(OSSL_PARAM params[], const aesfast_mode *mode, size_t keylen);
const OSSL_PARAM *aesfast_cipher_gettable_params(void *provctx);

/* Out of line, for the shared functions: the errors of init, update and parameters, and the
 * key schedule (with the debug log's "key setup on kernel" line). */
int aesfast_cipher_refuse_lengths(const aesfast_cipher_ctx *c, const aesfast_mode *m, int key,
                                  size_t len);
int aesfast_cipher_refuse_buffers(const aesfast_cipher_ctx *c, int reason, const uint8_t *out,
                                  size_t outsize, const uint8_t *in, size_t inl);
int aesfast_cipher_param_go_on(const aesfast_cipher_ctx *c, const OSSL_PARAM *p,
                               aesfast_param_result r, int get);
void aesfast_cipher_set_key(aesfast_cipher_ctx *c, const unsigned char *key);

/*
 * The shared functions: inline, so that in each mode's dispatch functions (AESFAST_CIPHER) the
 * hooks are direct calls the compiler may inline. The per-record path of TLS (an IV-only init,
 * updates, a tag set or read) goes through them on every message.
 */

/* Each parameter to the mode's set hook. */
static inline int aesfast_cipher_set_ctx_params_(aesfast_cipher_ctx *c,
                                                 const OSSL_PARAM params[], aesfast_set_hook *set)
{
    for (const OSSL_PARAM *p = params; p != NULL && p->key != NULL; p++) {
        aesfast_param_result r = set(c, p, aesfast_param_id(p->key));

        if (r != AESFAST_PARAM_OK && !aesfast_cipher_param_go_on(c, p, r, 0))
            return 0;
    }
    return 1;
}

/* Init: the key and IV lengths checked before anything changes (a refused init leaves the
 * context as it was), the key schedule, the mode's init, then the parameters. */
static inline int aesfast_cipher_init_(aesfast_cipher_ctx *c, const aesfast_mode *m,
                                       const unsigned char *key, size_t keylen,
                                       const unsigned char *iv, size_t ivlen,
                                       const OSSL_PARAM params[], int enc,
                                       aesfast_init_hook *init, aesfast_set_hook *set)
{
    if (key != NULL && keylen != c->keylen)
        return aesfast_cipher_refuse_lengths(c, m, 1, keylen);
    if (iv != NULL && (ivlen < m->ivlen_min || ivlen > m->ivlen_max))
        return aesfast_cipher_refuse_lengths(c, m, 0, ivlen);
    c->enc = enc;
    if (key != NULL)
        aesfast_cipher_set_key(c, key);
    init(c, key != NULL, iv, ivlen);
    /* (an IV-only init, the per-record path, has none: the loop stays out of its way) */
    return params == NULL || params->key == NULL || aesfast_cipher_set_ctx_params_(c, params, set);
}

/* The buffers of an update or EVP_Cipher call: no input from a NULL buffer, room for the
 * output, an output buffer unless it is AAD, and no partial overlap (in place is fine: any
 * other overlap would read output already written). 1, or 0 with the error raised (each check
 * names its reason here; aesfast_cipher_refuse_buffers only words it). */
static inline int aesfast_cipher_buffers_ok(const aesfast_cipher_ctx *c, int aead,
                                            const uint8_t *out, size_t outsize,
                                            const uint8_t *in, size_t inl)
{
    uintptr_t o = (uintptr_t)out, i = (uintptr_t)in;
    int reason = in == NULL && inl != 0 ? AESFAST_R_NULL_BUFFER
                 : outsize < inl || (out == NULL && !aead && inl != 0)
                     ? AESFAST_R_OUTPUT_BUFFER_TOO_SMALL
                 : out != NULL && o != i && o < i + inl && i < o + inl
                     ? AESFAST_R_PARTIALLY_OVERLAPPING
                     : 0;

    return reason == 0 || aesfast_cipher_refuse_buffers(c, reason, out, outsize, in, inl);
}

/* "keylen" and "ivlen" answered here, every other parameter by the mode's get hook. */
static inline int aesfast_cipher_get_ctx_params_(aesfast_cipher_ctx *c, OSSL_PARAM params[],
                                                 aesfast_get_hook *get)
{
    for (OSSL_PARAM *p = params; p != NULL && p->key != NULL; p++) {
        aesfast_param id = aesfast_param_id(p->key);
        aesfast_param_result r =
            id == AESFAST_P_KEYLEN  ? aesfast_param_done(OSSL_PARAM_set_size_t(p, c->keylen))
            : id == AESFAST_P_IVLEN ? aesfast_param_done(OSSL_PARAM_set_size_t(p, c->ivlen))
                                    : get(c, p, id);

        if (r != AESFAST_PARAM_OK && !aesfast_cipher_param_go_on(c, p, r, 1))
            return 0;
    }
    return 1;
}

/* Opening (an AEAD mode decrypting) needs the tag set for it: 1 if there is one (have), else
 * 0 with TAG_NOT_SET raised, saying what to set when. */
int aesfast_cipher_refuse_no_tag(const aesfast_cipher_ctx *c, const char *what_when);
static inline int aesfast_cipher_need_tag(const aesfast_cipher_ctx *c, int have,
                                          const char *what_when)
{
    return c->enc || have || aesfast_cipher_refuse_no_tag(c, what_when);
}

/* n bytes from src to dst, the 16 of a tag as one copy of known size (a libc call costs the
 * per-record path more than the copy). */
static inline void aesfast_copy_tag(void *dst, const void *src, size_t n)
{
    if (n == 16)
        memcpy(dst, src, 16);
    else
        memcpy(dst, src, n);
}

/* OSSL_PARAM_set_octet_string and _get_octet_string (into a buffer of max bytes) as
 * OSSL_PARAM(3) defines them, inline for the per-record tag; 0 where those return 0 (the hook
 * then says the type or size does not fit). */
static inline int aesfast_param_set_octets(OSSL_PARAM *p, const void *v, size_t n)
{
    p->return_size = 0;
    if (p->data_type != OSSL_PARAM_OCTET_STRING)
        return 0;
    p->return_size = n;
    if (p->data == NULL)
        return 1;
    if (p->data_size < n)
        return 0;
    aesfast_copy_tag(p->data, v, n);
    return 1;
}

static inline int aesfast_param_get_octets(const OSSL_PARAM *p, void *dst, size_t max, size_t *n)
{
    if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data == NULL || p->data_size > max)
        return 0;
    *n = p->data_size;
    aesfast_copy_tag(dst, p->data, p->data_size);
    return 1;
}

/* For the hooks: a "keylen" or "ivlen" set that takes only the value it has (want). */
aesfast_param_result aesfast_param_fixed_size(const aesfast_cipher_ctx *c, const OSSL_PARAM *p,
                                              aesfast_param id, size_t want);
/* An IV returned as an octet string, or as an octet pointer into the context. */
aesfast_param_result aesfast_param_set_iv(OSSL_PARAM *p, const uint8_t *iv, size_t len);

/* The first entries of every mode's gettable list: the parameters the shared get answers. */
#define AESFAST_GETTABLE_LENGTHS                                                               \
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),                                         \
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL)

/* The settable "keylen" and "ivlen" of a mode whose key and IV lengths are fixed: accepted at
 * their one value (aesfast_param_fixed_size). */
#define AESFAST_SETTABLE_FIXED_LENGTHS                                                         \
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),                                         \
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL)

/*
 * A mode: its descriptor <mode>_mode, its dispatch functions and the dispatch tables
 * aesfast_aes{128,192,256}<mode>_functions. The mode's file defines its context type ctx_type,
 * the hooks <mode>_init, _get and _set, the parameter lists <mode>_gettable and
 * <mode>_settable, and the update, final and EVP_Cipher functions <mode>_update, _final and
 * _cipher.
 * suffix names it ("GCM": "AES-128-GCM" ...); evp_mode is EVP_CIPH_*_MODE; aead is 1 for an
 * AEAD mode; ivlen the IV length of a new context, init taking ivmin..ivmax bytes; nkeys the
 * expanded keys the context holds (aesfast_ctx_key); then, optionally, the descriptor's hooks
 * (.clear = ..., .copy = ..., .wipe = ...).
 */
#define AESFAST_CIPHER(mode, ctx_type, suffix, evp_mode_, aead_, ivlen_, ivmin, ivmax, nkeys_, \
                       ...)                                                                    \
    static const aesfast_mode mode##_mode = {                                                  \
        .names = {"AES-128-" suffix, "AES-192-" suffix, "AES-256-" suffix},                   \
        .ctx_size = sizeof(ctx_type),                                                          \
        .nkeys = (nkeys_),                                                                     \
        .evp_mode = (evp_mode_),                                                               \
        .aead = (aead_),                                                                       \
        .ivlen = (ivlen_),                                                                     \
        .ivlen_min = (ivmin),                                                                  \
        .ivlen_max = (ivmax),                                                                  \
        __VA_ARGS__                                                                            \
    };                                                                                         \
    static int mode##_einit_(void *vctx, const unsigned char *key, size_t keylen,              \
                             const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[]) \
    {                                                                                          \
        return aesfast_cipher_init_(vctx, &mode##_mode, key, keylen, iv, ivlen, params, 1,     \
                                    mode##_init, mode##_set);                                  \
    }                                                                                          \
    static int mode##_dinit_(void *vctx, const unsigned char *key, size_t keylen,              \
                             const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[]) \
    {                                                                                          \
        return aesfast_cipher_init_(vctx, &mode##_mode, key, keylen, iv, ivlen, params, 0,     \
                                    mode##_init, mode##_set);                                  \
    }                                                                                          \
    static int mode##_get_ctx_params_(void *vctx, OSSL_PARAM params[])                         \
    {                                                                                          \
        return aesfast_cipher_get_ctx_params_(vctx, params, mode##_get);                       \
    }                                                                                          \
    static int mode##_set_ctx_params_(void *vctx, const OSSL_PARAM params[])                   \
    {                                                                                          \
        return aesfast_cipher_set_ctx_params_(vctx, params, mode##_set);                       \
    }                                                                                          \
    static const OSSL_PARAM *mode##_gettable_ctx_params(void *cctx, void *provctx)             \
    {                                                                                          \
        (void)cctx, (void)provctx;                                                             \
        return mode##_gettable;                                                                \
    }                                                                                          \
    static const OSSL_PARAM *mode##_settable_ctx_params(void *cctx, void *provctx)             \
    {                                                                                          \
        (void)cctx, (void)provctx;                                                             \
        return mode##_settable;                                                                \
    }                                                                                          \
    AESFAST_CIPHER_TABLE_(mode, 128);                                                          \
    AESFAST_CIPHER_TABLE_(mode, 192);                                                          \
    AESFAST_CIPHER_TABLE_(mode, 256)

/* One key size's table (AESFAST_CIPHER). */
#define AESFAST_CIPHER_TABLE_(mode, bits)                                                      \
    static void *mode##bits##_newctx(void *provctx)                                            \
    {                                                                                          \
        return aesfast_cipher_newctx(provctx, &mode##_mode, (bits) / 8);                       \
    }                                                                                          \
    static int mode##bits##_get_params(OSSL_PARAM params[])                                    \
    {                                                                                          \
        return aesfast_cipher_get_params(params, &mode##_mode, (bits) / 8);                    \
    }                                                                                          \
    const OSSL_DISPATCH aesfast_aes##bits##mode##_functions[] = {                              \
        {OSSL_FUNC_CIPHER_NEWCTX, (void (*)(void))mode##bits##_newctx},                        \
        {OSSL_FUNC_CIPHER_FREECTX, (void (*)(void))aesfast_cipher_freectx},                    \
        {OSSL_FUNC_CIPHER_DUPCTX, (void (*)(void))aesfast_cipher_dupctx},                      \
        {OSSL_FUNC_CIPHER_ENCRYPT_INIT, (void (*)(void))mode##_einit_},                        \
        {OSSL_FUNC_CIPHER_DECRYPT_INIT, (void (*)(void))mode##_dinit_},                        \
        {OSSL_FUNC_CIPHER_UPDATE, (void (*)(void))mode##_update},                              \
        {OSSL_FUNC_CIPHER_FINAL, (void (*)(void))mode##_final},                                \
        {OSSL_FUNC_CIPHER_CIPHER, (void (*)(void))mode##_cipher},                              \
        {OSSL_FUNC_CIPHER_GET_PARAMS, (void (*)(void))mode##bits##_get_params},                \
        {OSSL_FUNC_CIPHER_GETTABLE_PARAMS, (void (*)(void))aesfast_cipher_gettable_params},    \
        {OSSL_FUNC_CIPHER_GET_CTX_PARAMS, (void (*)(void))mode##_get_ctx_params_},             \
        {OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, (void (*)(void))mode##_gettable_ctx_params},    \
        {OSSL_FUNC_CIPHER_SET_CTX_PARAMS, (void (*)(void))mode##_set_ctx_params_},             \
        {OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, (void (*)(void))mode##_settable_ctx_params},    \
        OSSL_DISPATCH_END,                                                                     \
    }

#endif /* AESFAST_CIPHER_H */
