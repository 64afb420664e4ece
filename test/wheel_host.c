/*
 * wheel_host: a CPython extension module built the way binary wheels that bundle OpenSSL are
 * (Python's `cryptography` wheel: OpenSSL 4.0 inside its extension): an OpenSSL tree's
 * libcrypto.a linked into the module's shared object, every OpenSSL symbol kept local by a
 * version script (only PyInit_wheel_host is exported), so that the interpreter's own libcrypto
 * (its ssl module's, Debian's libcrypto.so.3) and the bundled one never see each other. Loaded
 * into python3, the bundled libcrypto reads OPENSSL_CONF, which loads aesfast.so, itself linked
 * with the system's libcrypto.so.3: three parties in one process, as for a wheel user.
 *
 * Its functions, over the bundled libcrypto (test/wheel_host_test.py calls them):
 *   version()                               the bundled OpenSSL's version text
 *   gcm_seal(key, iv, aad, data, propq)     AES-{128,192,256}-GCM by key length, a 16-byte tag:
 *                                           (ciphertext, tag, provider name). propq None: the
 *                                           cipher as a wheel gets it (EVP_aes_256_gcm() and the
 *                                           like, fetched with the configuration's default
 *                                           properties); else EVP_CIPHER_fetch(NULL, name, propq)
 *   gcm_open(key, iv, aad, data, tag, propq) the plaintext, or None if the tag does not verify
 *
 * Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

/* The cipher for a key length: the wheel's way (propq NULL) or fetched with propq. */
static EVP_CIPHER *gcm_cipher(Py_ssize_t keylen, const char *propq, int *fetched)
{
    static const char *names[] = {"AES-128-GCM", "AES-192-GCM", "AES-256-GCM"};
    int i = keylen == 16 ? 0 : keylen == 24 ? 1 : keylen == 32 ? 2 : -1;

    *fetched = 0;
    if (i < 0) {
        PyErr_SetString(PyExc_ValueError, "the key is 16, 24 or 32 bytes");
        return NULL;
    }
    if (propq == NULL)
        return (EVP_CIPHER *)(i == 0 ? EVP_aes_128_gcm() : i == 1 ? EVP_aes_192_gcm()
                                                                  : EVP_aes_256_gcm());
    *fetched = 1;
    return EVP_CIPHER_fetch(NULL, names[i], propq);
}

/* The name of the provider that ran ctx's cipher. */
static const char *provider_of(const EVP_CIPHER_CTX *ctx)
{
    const EVP_CIPHER *c = EVP_CIPHER_CTX_get0_cipher(ctx);
    const OSSL_PROVIDER *p = c != NULL ? EVP_CIPHER_get0_provider(c) : NULL;

    return p != NULL ? OSSL_PROVIDER_get0_name(p) : "(none)";
}

static PyObject *openssl_error(const char *what)
{
    unsigned long e = ERR_get_error();
    char buf[256] = "";

    if (e != 0)
        ERR_error_string_n(e, buf, sizeof(buf));
    ERR_clear_error();
    PyErr_Format(PyExc_RuntimeError, "%s failed: %s", what, buf);
    return NULL;
}

static PyObject *wh_version(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    return PyUnicode_FromString(OpenSSL_version(OPENSSL_VERSION));
}

static PyObject *wh_gcm(PyObject *args, int seal)
{
    Py_buffer key, iv, aad, data, tag = {0};
    const char *propq = NULL;
    PyObject *res = NULL, *out = NULL;
    EVP_CIPHER_CTX *ctx = NULL;
    EVP_CIPHER *cipher = NULL;
    unsigned char t[16];
    int fetched = 0, n = 0, m = 0, ok;

    if (seal ? !PyArg_ParseTuple(args, "y*y*y*y*z", &key, &iv, &aad, &data, &propq)
             : !PyArg_ParseTuple(args, "y*y*y*y*y*z", &key, &iv, &aad, &data, &tag, &propq))
        return NULL;
    if ((!seal && tag.len != 16) || data.len > INT_MAX || aad.len > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "a 16-byte tag; data and AAD under 2 GiB");
        goto end;
    }
    if ((cipher = gcm_cipher(key.len, propq, &fetched)) == NULL) {
        if (!PyErr_Occurred())
            openssl_error("EVP_CIPHER_fetch");
        goto end;
    }
    if ((out = PyBytes_FromStringAndSize(NULL, data.len)) == NULL)
        goto end;
    unsigned char *o = (unsigned char *)PyBytes_AS_STRING(out);
    ctx = EVP_CIPHER_CTX_new();
    ok = ctx != NULL && EVP_CipherInit_ex2(ctx, cipher, NULL, NULL, seal, NULL)
         && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, (int)iv.len, NULL) > 0
         && EVP_CipherInit_ex2(ctx, NULL, key.buf, iv.buf, seal, NULL)
         && (seal || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag.buf) > 0)
         && (aad.len == 0 || EVP_CipherUpdate(ctx, NULL, &n, aad.buf, (int)aad.len))
         && EVP_CipherUpdate(ctx, o, &n, data.buf, (int)data.len);
    if (!ok) {
        openssl_error("AES-GCM");
        goto end;
    }
    if (!EVP_CipherFinal_ex(ctx, o + n, &m)) { /* opening: the tag did not verify */
        ERR_clear_error();
        if (seal) {
            openssl_error("EVP_CipherFinal_ex");
            goto end;
        }
        res = Py_BuildValue("(Os)", Py_None, provider_of(ctx));
        goto end;
    }
    if (seal && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, t) <= 0) {
        openssl_error("EVP_CTRL_AEAD_GET_TAG");
        goto end;
    }
    res = seal ? Py_BuildValue("(Oy#s)", out, (const char *)t, (Py_ssize_t)16, provider_of(ctx))
               : Py_BuildValue("(Os)", out, provider_of(ctx));
end:
    Py_XDECREF(out);
    EVP_CIPHER_CTX_free(ctx);
    if (fetched)
        EVP_CIPHER_free(cipher);
    PyBuffer_Release(&key);
    PyBuffer_Release(&iv);
    PyBuffer_Release(&aad);
    PyBuffer_Release(&data);
    if (!seal)
        PyBuffer_Release(&tag);
    return res;
}

static PyObject *wh_gcm_seal(PyObject *self, PyObject *args)
{
    (void)self;
    return wh_gcm(args, 1);
}

static PyObject *wh_gcm_open(PyObject *self, PyObject *args)
{
    (void)self;
    return wh_gcm(args, 0);
}

static PyMethodDef methods[] = {
    {"version", wh_version, METH_NOARGS, "the bundled OpenSSL's version"},
    {"gcm_seal", wh_gcm_seal, METH_VARARGS, "(key, iv, aad, data, propq) -> (ct, tag, provider)"},
    {"gcm_open", wh_gcm_open, METH_VARARGS,
     "(key, iv, aad, data, tag, propq) -> (plaintext or None, provider)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "wheel_host", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_wheel_host(void)
{
    return PyModule_Create(&module);
}
