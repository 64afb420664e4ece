#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets (fuzz/corpus/<mode>/*) in the program encoding of
fuzz/driver.c: byte 0 the key size, then opcode bytes each followed by its arguments.
Run from anywhere: python3 fuzz/corpus/gen.py (the files are committed; rerun after changes)."""
import os

INIT, IVLEN, AAD, DATA, FINAL, SET_TAG, GET_TAG, COPY, SWAP, PARAMS, TLS_AAD, IV_FIXED, \
    IV_GEN, IV_INV, TLS_RECORD, SPEED, RESET = range(17)
ENC, KEY, IV, NAMED = 1, 2, 4, 8  # INIT flags


def n(v):  # LEN: one byte below 128, else two
    return [v] if v < 128 else [0x80 | (v >> 8), v & 0xff]


def prog(ks, *ops):
    out = [ks]
    for op in ops:
        out += op
    return bytes(out)


def init(f, k=0, s=1): return [INIT, f, k, s]
def aad(l, f=0): return [AAD] + n(l) + [f]
def data(l, f=0, o=0): return [DATA] + n(l) + [f, o]
def final(f=0): return [FINAL, f]
def set_tag(l=16, f=0): return [SET_TAG, l, f]
def get_tag(l=16, f=0): return [GET_TAG, l, f]


seal_open = [init(ENC | KEY | IV | NAMED), aad(20), data(100), final(), get_tag(),
             init(KEY | IV), set_tag(), aad(20), data(100, 1), final()]
seeds = {
    'ctr': {
        'stream': prog(0, init(ENC | KEY | IV | NAMED), data(100), data(300), [PARAMS], final()),
        'copy': prog(2, init(ENC | KEY | IV | NAMED, 1, 2), data(37), [COPY, 1], data(37),
                     [SWAP], data(37), [PARAMS]),
        'roundtrip': prog(1, init(ENC | KEY | IV | NAMED), data(64), init(KEY | IV), data(64, 1),
                          [PARAMS]),
        'inplace': prog(0, init(ENC | KEY | IV | NAMED), data(200, 4, 0x35), data(50, 8),
                        data(5000, 0, 0x71)),
        'ivlen': prog(0, init(ENC | KEY | IV | NAMED), [IVLEN, 12, 0], [IVLEN, 16, 1],
                      init(ENC | KEY | NAMED, 3), data(16)),
    },
    'gcm': {
        'seal-open': prog(0, *seal_open),
        'tampered': prog(2, *(seal_open[:6] + [set_tag(16, 2)] + seal_open[7:])),
        'ivlen': prog(1, init(ENC | KEY | NAMED), [IVLEN, 60, 0], init(ENC | IV, 0, 3), aad(5),
                      data(33), final(), get_tag(12), [PARAMS]),
        'tls': prog(0, init(ENC | KEY | NAMED), [IV_FIXED, 0, 5], [TLS_AAD, 0, 108, 0],
                    [TLS_RECORD] + n(100) + [0], init(KEY), [IV_FIXED, 0, 5],
                    [TLS_AAD, 0, 124, 0], [TLS_RECORD, 0, 1]),
        'random-iv': prog(0, init(ENC | KEY | NAMED), aad(10), [COPY, 1], data(50), final(),
                          get_tag(), [PARAMS], [IV_FIXED, 4, 9], [IV_GEN, 8]),
        'rekey': prog(1, init(ENC | KEY | IV | NAMED), data(10), init(ENC | KEY, 1), data(10),
                      init(ENC | IV, 0, 4), data(10), final(), get_tag()),
    },
    'gcmsiv': {
        'seal-open': prog(0, *seal_open),
        'tampered': prog(2, *(seal_open[:6] + [set_tag(16, 2)] + seal_open[7:])),
        'speed': prog(1, init(ENC | KEY | IV | NAMED), [SPEED, 1], aad(5), data(50), get_tag(),
                      data(60), get_tag(), final()),
        'reinit-aad': prog(0, init(ENC | KEY | IV | NAMED), aad(30), init(ENC | IV, 0, 2),
                           aad(10), data(40), final(), get_tag()),
        'misuse': prog(0, init(ENC | IV | NAMED), aad(10), data(10), final(), [IVLEN, 16, 1],
                       init(ENC | KEY | IV | NAMED), aad(7), final(), get_tag(), aad(3)),
    },
}
here = os.path.dirname(os.path.abspath(__file__))
for mode, files in seeds.items():
    os.makedirs(os.path.join(here, mode), exist_ok=True)
    for name, body in files.items():
        with open(os.path.join(here, mode, name), 'wb') as f:
            f.write(body)
