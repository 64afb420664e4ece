/*
 * ctr_vectors: AES-CTR known-answer tests from the shared vector files.
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 *
 * usage: ctr_vectors [--provider NAME] [--expect-kernel NAME] DIR
 *
 * DIR is the vectors folder (work/shared/vectors); exit 77 (skip) if it does not exist. Sources:
 *   boringssl/cipher_tests.txt         OpenSSL evptest stanzas "Name = value", blank-line separated:
 *                                      RFC 3686 and a 0x7FFF... carry regression (AES-128/256).
 *   boringssl/nist_cavp/aes_*_ctr.txt  the same stanza format with "Name: value": NIST CAVP
 *                                      single-block KATs recast as CTR.
 *   cryptopp/aes.txt                   Crypto++ TestVectors: "Name: value" lines, fields persist
 *                                      until changed (AlgorithmType starts afresh), "Test:" runs
 *                                      one; CRLF, "\" continuations, "rN" repeats, quoted text.
 *                                      Its AES/CTR sections: SP 800-38A F.5, RFC 3686 (incl.
 *                                      192-bit), one long odd-length vector.
 * Every vector runs encrypt and decrypt, in one update and in odd chunks (byte by byte, mixed
 * sizes with empty updates, in place on unaligned buffers), and checks the updated-iv parameter
 * against IV + ceil(len/16). Each source must yield at least its known count per key size, so a
 * parser regression cannot pass with nothing tested.
 */
#define _POSIX_C_SOURCE 200809L /* getline, strdup, strndup under -std=c11 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>

#include "testutil.h"

static const char *const algs[3] = {"AES-128-CTR", "AES-192-CTR", "AES-256-CTR"};

struct source {
    const char *path;       /* relative to DIR */
    int cryptopp;           /* Crypto++ format (else BoringSSL FileTest / evptest) */
    unsigned min[3];        /* vectors required per key size (128, 192, 256) */
    unsigned count[3];
};

static struct source sources[] = {
    {"boringssl/cipher_tests.txt", 0, {4, 0, 5}, {0}},
    {"boringssl/nist_cavp/aes_128_ctr.txt", 0, {568, 0, 0}, {0}},
    {"boringssl/nist_cavp/aes_192_ctr.txt", 0, {0, 700, 0}, {0}},
    {"boringssl/nist_cavp/aes_256_ctr.txt", 0, {0, 0, 810}, {0}},
    {"cryptopp/aes.txt", 1, {5, 4, 4}, {0}},
};

/* One known answer: owned buffers, freed by vector_free. */
struct vector {
    const char *source;
    unsigned line;
    uint8_t *key, *iv, *pt, *ct;
    size_t keylen, ivlen, ptlen, ctlen;
};

struct run {
    EVP_CIPHER *cipher[3];
    EVP_CIPHER_CTX *ctx;
    unsigned passed, failed;
};

static void vector_free(struct vector *v)
{
    free(v->key);
    free(v->iv);
    free(v->pt);
    free(v->ct);
    memset(v, 0, sizeof(*v));
}

static void parse_error(const char *source, unsigned line, const char *what)
{
    tu_die("%s:%u: %s", source, line, what);
}

/* ---- Running one vector ------------------------------------------------------------------- */

/* One pass: init, feed in through the given chunk cycle, final, compare with want and check the
 * updated IV. offset > 0 runs in place in a buffer misaligned by offset. */
static int one_pass(struct run *run, const struct vector *v, int ks, int enc, const uint8_t *in,
                    const uint8_t *want, const size_t *cycle, size_t ncycle, size_t offset,
                    const char *label)
{
    static const size_t whole[] = {SIZE_MAX};
    tu_cycle chunks = {cycle != NULL ? cycle : whole, cycle != NULL ? ncycle : 1, 0};
    size_t len = v->ptlen, at;
    uint8_t *buf = malloc(len + 16 + 1), *out, uiv[16], want_uiv[16];
    const uint8_t *src;
    int ok = 0;

    if (buf == NULL)
        tu_die("out of memory");
    out = buf + offset;
    src = in;
    if (offset != 0) {
        memcpy(out, in, len);
        src = out;
    }
    memcpy(want_uiv, v->iv, 16);
    tu_ctr_add(want_uiv, tu_ctr_blocks(len));

    if (!EVP_CipherInit_ex2(run->ctx, run->cipher[ks], v->key, v->iv, enc, NULL)) {
        ERR_print_errors_fp(stderr);
        fprintf(stderr, "%s: FAIL %s:%u %s (%s): init failed\n", tu_prog, v->source, v->line,
                algs[ks], label);
    } else if (!tu_update_chunked(run->ctx, enc, out, src, len, tu_cycle_next, &chunks)
               || !tu_final_empty(run->ctx, enc)
               || !tu_get_iv_param(run->ctx, OSSL_CIPHER_PARAM_UPDATED_IV, uiv)) {
        fprintf(stderr, "%s: FAIL %s:%u %s (%s): EVP call failed\n", tu_prog, v->source,
                v->line, algs[ks], label);
    } else if ((at = tu_first_diff(out, want, len)) != (size_t)-1) {
        fprintf(stderr, "%s: FAIL %s:%u %s (%s): byte %zu is %02x, expected %02x\n", tu_prog,
                v->source, v->line, algs[ks], label, at, out[at], want[at]);
    } else if (memcmp(uiv, want_uiv, 16) != 0) {
        fprintf(stderr, "%s: FAIL %s:%u %s (%s): updated-iv ", tu_prog, v->source, v->line,
                algs[ks], label);
        tu_hex_print(stderr, uiv, 16);
        fprintf(stderr, ", expected ");
        tu_hex_print(stderr, want_uiv, 16);
        fputc('\n', stderr);
    } else {
        ok = 1;
    }
    free(buf);
    return ok;
}

static void run_vector(struct run *run, struct source *src, const struct vector *v)
{
    static const size_t bytewise[] = {1};
    static const size_t odd[] = {7, 1, 15, 17, 0, 3, 33, 16};
    static const size_t mixed[] = {16, 5, 11, 0, 31, 2};
    int ks, ok = 1;

    if (v->keylen != 16 && v->keylen != 24 && v->keylen != 32)
        parse_error(v->source, v->line, "key is not 16, 24 or 32 bytes");
    if (v->ivlen != 16)
        parse_error(v->source, v->line, "IV is not 16 bytes");
    if (v->ptlen != v->ctlen)
        parse_error(v->source, v->line, "plaintext and ciphertext lengths differ");
    ks = (int)(v->keylen / 8 - 2);
    src->count[ks]++;

    /* Stop at the first failing pass; later ones would only repeat the news. */
    ok = one_pass(run, v, ks, 1, v->pt, v->ct, NULL, 0, 0, "encrypt, one update")
         && one_pass(run, v, ks, 0, v->ct, v->pt, NULL, 0, 0, "decrypt, one update")
         && one_pass(run, v, ks, 1, v->pt, v->ct, bytewise, 1, 0, "encrypt, byte by byte")
         && one_pass(run, v, ks, 0, v->ct, v->pt, odd, sizeof(odd) / sizeof(odd[0]), 3,
                     "decrypt, odd chunks, in place at +3")
         && one_pass(run, v, ks, 1, v->pt, v->ct, mixed, sizeof(mixed) / sizeof(mixed[0]), 1,
                     "encrypt, mixed chunks, in place at +1");
    if (ok)
        run->passed++;
    else
        run->failed++;
}

/* ---- Shared text handling ----------------------------------------------------------------- */

static char *trim(char *s)
{
    char *end;

    while (*s == ' ' || *s == '\t')
        s++;
    end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' || end[-1] == '\n'))
        *--end = '\0';
    return s;
}

/* Read one line without its line ending (LF or CRLF); returns NULL at end of file. */
static char *read_line(FILE *f, char **buf, size_t *cap, unsigned *lineno)
{
    ssize_t n = getline(buf, cap, f);

    if (n < 0)
        return NULL;
    (*lineno)++;
    while (n > 0 && ((*buf)[n - 1] == '\n' || (*buf)[n - 1] == '\r'))
        (*buf)[--n] = '\0';
    return *buf;
}

static FILE *open_source(const char *dir, const char *path, char *full, size_t cap)
{
    FILE *f;

    snprintf(full, cap, "%s/%s", dir, path);
    if ((f = fopen(full, "r")) == NULL)
        tu_die("cannot open %s: %s", full, strerror(errno));
    return f;
}

/* A stored field: name and raw value text. */
struct field {
    char *name, *value;
};

struct fields {
    struct field f[16];
    size_t n;
};

static void fields_clear(struct fields *fs)
{
    for (size_t i = 0; i < fs->n; i++) {
        free(fs->f[i].name);
        free(fs->f[i].value);
    }
    fs->n = 0;
}

static const char *fields_get(const struct fields *fs, const char *name)
{
    for (size_t i = 0; i < fs->n; i++)
        if (strcmp(fs->f[i].name, name) == 0)
            return fs->f[i].value;
    return NULL;
}

/* Set name = value; replace says whether an existing value may be overwritten. */
static int fields_set(struct fields *fs, const char *name, const char *value, int replace)
{
    for (size_t i = 0; i < fs->n; i++) {
        if (strcmp(fs->f[i].name, name) == 0) {
            if (!replace)
                return 0;
            free(fs->f[i].value);
            fs->f[i].value = strdup(value);
            return fs->f[i].value != NULL;
        }
    }
    if (fs->n == sizeof(fs->f) / sizeof(fs->f[0]))
        return 0;
    struct field *f = &fs->f[fs->n++];
    f->name = strdup(name);
    f->value = strdup(value);
    return f->name != NULL && f->value != NULL;
}

/* ---- BoringSSL FileTest / OpenSSL evptest format ------------------------------------------ */

/* Values are hex, or text in double quotes. */
static uint8_t *filetest_value(const char *v, size_t *len, const char *source, unsigned line)
{
    uint8_t *out;
    size_t n = strlen(v);

    if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
        if ((out = malloc(n)) == NULL)
            tu_die("out of memory");
        memcpy(out, v + 1, n - 2);
        *len = n - 2;
        return out;
    }
    if ((out = tu_hex_decode(v, len)) == NULL)
        parse_error(source, line, "bad hex value");
    return out;
}

/* A complete stanza: run it if it is an AES-CTR one. */
static void filetest_stanza(struct run *run, struct source *src, const struct fields *fs,
                            unsigned line)
{
    const char *cipher = fields_get(fs, "Cipher"), *op = fields_get(fs, "Operation");
    const char *key = fields_get(fs, "Key"), *iv = fields_get(fs, "IV");
    const char *pt = fields_get(fs, "Plaintext"), *ct = fields_get(fs, "Ciphertext");
    struct vector v = {.source = src->path, .line = line};
    int ks;

    if (cipher == NULL || strncmp(cipher, "AES-", 4) != 0 || strstr(cipher, "-CTR") == NULL)
        return;
    for (ks = 0; ks < 3 && strcmp(cipher, algs[ks]) != 0; ks++)
        ;
    if (ks == 3)
        parse_error(src->path, line, "unknown AES-CTR cipher name");
    if (op != NULL && strcmp(op, "ENCRYPT") != 0 && strcmp(op, "DECRYPT") != 0
        && strcmp(op, "Encrypt") != 0 && strcmp(op, "Decrypt") != 0)
        parse_error(src->path, line, "unexpected Operation for a CTR stanza");
    if (key == NULL || iv == NULL || pt == NULL || ct == NULL)
        parse_error(src->path, line, "CTR stanza lacks Key, IV, Plaintext or Ciphertext");

    v.key = filetest_value(key, &v.keylen, src->path, line);
    v.iv = filetest_value(iv, &v.ivlen, src->path, line);
    v.pt = filetest_value(pt, &v.ptlen, src->path, line);
    v.ct = filetest_value(ct, &v.ctlen, src->path, line);
    if (v.keylen != (size_t)(16 + 8 * ks))
        parse_error(src->path, line, "key length does not match the cipher name");
    run_vector(run, src, &v);
    vector_free(&v);
}

/* Stanzas of "Name = value" or "Name: value" lines, separated by blank lines; "#" comments. */
static void parse_filetest(struct run *run, struct source *src, FILE *f)
{
    struct fields fs = {.n = 0};
    char *buf = NULL, *line;
    size_t cap = 0;
    unsigned lineno = 0, start = 0;

    for (;;) {
        line = read_line(f, &buf, &cap, &lineno);
        if (line == NULL || *trim(line) == '\0') {
            if (fs.n != 0)
                filetest_stanza(run, src, &fs, start);
            fields_clear(&fs);
            if (line == NULL)
                break;
            continue;
        }
        line = trim(line);
        if (line[0] == '#' || line[0] == '[')
            continue;

        char *sep = line + strcspn(line, "=:");
        if (*sep == '\0')
            parse_error(src->path, lineno, "line is neither \"Name = value\" nor \"Name: value\"");
        *sep = '\0';
        if (fs.n == 0)
            start = lineno;
        if (!fields_set(&fs, trim(line), trim(sep + 1), 0))
            parse_error(src->path, lineno, "repeated field in a stanza");
    }
    free(buf);
}

/* ---- Crypto++ TestVectors format ---------------------------------------------------------- */

static void append(uint8_t **out, size_t *len, size_t *cap, const uint8_t *data, size_t n)
{
    if (*len + n > *cap) {
        *cap = (*len + n) * 2 + 16;
        if ((*out = realloc(*out, *cap)) == NULL)
            tu_die("out of memory");
    }
    memcpy(*out + *len, data, n);
    *len += n;
}

/*
 * Crypto++ data values are a sequence of pieces: "text in quotes", 0x<hex> up to the next space,
 * or plain hex (with spaces) to the end of the value. "rN" before a piece repeats it N times.
 */
static uint8_t *cryptopp_value(const char *v, size_t *len, const char *source, unsigned line)
{
    uint8_t *out = NULL, *piece;
    size_t cap = 0, plen;
    unsigned long repeat = 1;

    *len = 0;
    append(&out, len, &cap, (const uint8_t *)"", 0);
    while (*v != '\0') {
        const char *end;

        if (*v == ' ' || *v == '\t') {
            v++;
            continue;
        }
        if (*v == 'r' && v[1] >= '0' && v[1] <= '9') {
            repeat = strtoul(v + 1, (char **)&end, 10);
            v = end;
            continue;
        }
        if (*v == '"') {
            if ((end = strchr(v + 1, '"')) == NULL)
                parse_error(source, line, "unterminated quoted value");
            plen = (size_t)(end - v - 1);
            if ((piece = malloc(plen + 1)) == NULL)
                tu_die("out of memory");
            memcpy(piece, v + 1, plen);
            v = end + 1;
        } else {
            char *hex;

            if (v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
                v += 2;
                end = v + strcspn(v, " \t");
            } else {
                end = v + strlen(v);
            }
            if ((hex = strndup(v, (size_t)(end - v))) == NULL)
                tu_die("out of memory");
            /* Crypto++'s hex decoder emits whole bytes only: an odd final digit is dropped
             * (the CFB8 vectors in aes.txt rely on this). */
            size_t digits = 0, last = 0;
            for (size_t i = 0; hex[i] != '\0'; i++)
                if (hex[i] != ' ' && hex[i] != '\t')
                    digits++, last = i;
            if (digits % 2 != 0)
                hex[last] = ' ';
            piece = tu_hex_decode(hex, &plen);
            free(hex);
            if (piece == NULL)
                parse_error(source, line, "bad hex value");
            v = end;
        }
        for (unsigned long i = 0; i < repeat; i++)
            append(&out, len, &cap, piece, plen);
        free(piece);
        repeat = 1;
    }
    return out;
}

static void cryptopp_test(struct run *run, struct source *src, const struct fields *fs,
                          const char *test, unsigned line)
{
    const char *name = fields_get(fs, "Name");
    const char *key = fields_get(fs, "Key"), *iv = fields_get(fs, "IV");
    const char *pt = fields_get(fs, "Plaintext"), *ct = fields_get(fs, "Ciphertext");
    struct vector v = {.source = src->path, .line = line};

    if (name == NULL || strcmp(name, "AES/CTR") != 0) {
        /* Not ours, but decode its data anyway: the value syntax (quotes, 0x, rN, "\"
         * continuations) is used mostly outside the CTR sections, so this keeps the decoder
         * honest. */
        const char *data[] = {key, iv, pt, ct};
        for (size_t i = 0; i < sizeof(data) / sizeof(data[0]); i++) {
            if (data[i] != NULL) {
                size_t n;
                free(cryptopp_value(data[i], &n, src->path, line));
            }
        }
        return;
    }
    /* For CTR, encrypt and decrypt are the same known answer; anything else is unexpected. */
    if (strcmp(test, "Encrypt") != 0 && strcmp(test, "Decrypt") != 0)
        parse_error(src->path, line, "unexpected Test kind in an AES/CTR section");
    if (key == NULL || iv == NULL || pt == NULL || ct == NULL)
        parse_error(src->path, line, "AES/CTR test lacks Key, IV, Plaintext or Ciphertext");

    v.key = cryptopp_value(key, &v.keylen, src->path, line);
    v.iv = cryptopp_value(iv, &v.ivlen, src->path, line);
    v.pt = cryptopp_value(pt, &v.ptlen, src->path, line);
    v.ct = cryptopp_value(ct, &v.ctlen, src->path, line);
    run_vector(run, src, &v);
    vector_free(&v);
}

static void parse_cryptopp(struct run *run, struct source *src, FILE *f)
{
    struct fields fs = {.n = 0};
    char *buf = NULL, *line, *joined = NULL;
    size_t cap = 0;
    unsigned lineno = 0, tests = 0;

    while ((line = read_line(f, &buf, &cap, &lineno)) != NULL) {
        unsigned first = lineno;
        size_t n;

        /* Join "\" continuation lines. */
        free(joined);
        if ((joined = strdup(line)) == NULL)
            tu_die("out of memory");
        while ((n = strlen(joined)) > 0 && joined[n - 1] == '\\') {
            joined[n - 1] = '\0';
            if ((line = read_line(f, &buf, &cap, &lineno)) == NULL)
                parse_error(src->path, first, "continuation at end of file");
            if ((joined = realloc(joined, n + strlen(line) + 1)) == NULL)
                tu_die("out of memory");
            strcat(joined, line);
        }
        line = trim(joined);
        if (*line == '\0' || *line == '#')
            continue;

        char *colon = strchr(line, ':');
        if (colon == NULL)
            parse_error(src->path, first, "line is not \"Name: value\"");
        *colon = '\0';
        char *name = trim(line), *value = trim(colon + 1);

        if (strcmp(name, "AlgorithmType") == 0)
            fields_clear(&fs);
        if (strcmp(name, "Test") == 0) {
            tests++;
            cryptopp_test(run, src, &fs, value, first);
        } else if (!fields_set(&fs, name, value, 1)) {
            parse_error(src->path, first, "too many fields");
        }
    }
    printf("%s: %s: %u Crypto++ tests in the file\n", tu_prog, src->path, tests);
    fields_clear(&fs);
    free(joined);
    free(buf);
}

/* ---- Main --------------------------------------------------------------------------------- */

static void usage(void)
{
    fprintf(stderr, "usage: ctr_vectors [--provider NAME] [--expect-kernel NAME] DIR\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *provider = "aesfast", *expect_kernel = NULL, *dir = NULL;
    struct run run = {.passed = 0};
    tu_providers prov;
    struct stat st;
    char full[4096];
    int short_count = 0;

    tu_init(argv[0]);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--provider") == 0 && i + 1 < argc)
            provider = argv[++i];
        else if (strcmp(argv[i], "--expect-kernel") == 0 && i + 1 < argc)
            expect_kernel = argv[++i];
        else if (argv[i][0] != '-' && dir == NULL)
            dir = argv[i];
        else
            usage();
    }
    if (dir == NULL)
        usage();
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        printf("%s: SKIP: vectors folder %s not found\n", tu_prog, dir);
        return TU_EXIT_SKIP;
    }

    tu_providers_load(&prov, provider, expect_kernel);
    for (int k = 0; k < 3; k++)
        run.cipher[k] = tu_fetch_cipher(algs[k], provider);
    if ((run.ctx = EVP_CIPHER_CTX_new()) == NULL)
        tu_die("out of memory");

    for (size_t s = 0; s < sizeof(sources) / sizeof(sources[0]); s++) {
        struct source *src = &sources[s];
        FILE *f = open_source(dir, src->path, full, sizeof(full));

        if (src->cryptopp)
            parse_cryptopp(&run, src, f);
        else
            parse_filetest(&run, src, f);
        fclose(f);

        printf("%s: %s: %u vectors (AES-128 %u, AES-192 %u, AES-256 %u)\n", tu_prog, src->path,
               src->count[0] + src->count[1] + src->count[2], src->count[0], src->count[1],
               src->count[2]);
        for (int k = 0; k < 3; k++) {
            if (src->count[k] < src->min[k]) {
                fprintf(stderr, "%s: FAIL %s: only %u %s vectors, expected at least %u "
                        "(parser regression?)\n", tu_prog, src->path, src->count[k], algs[k],
                        src->min[k]);
                short_count = 1;
            }
        }
    }

    printf("%s: %u passed, %u failed (provider %s, kernel %s, %s)\n", tu_prog, run.passed,
           run.failed, provider, prov.kernel, OpenSSL_version(OPENSSL_VERSION));

    EVP_CIPHER_CTX_free(run.ctx);
    for (int k = 0; k < 3; k++)
        EVP_CIPHER_free(run.cipher[k]);
    tu_providers_unload(&prov);
    return run.failed != 0 || short_count;
}
