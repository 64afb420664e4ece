#!/usr/bin/env python3
"""
vaes_model.py OBJECT FUNCTION [--native SO]: runs one of the VAES tiers' kernels
(kernels/amd64/vaes.S, kernels/amd64/gcm_vaes.S) on a model of the x86-64 instructions they use,
and checks it against independent references.
vaes_model.py --snippets SNIPPETS SO [KERNELS]: checks the model itself against this CPU.

  OBJECT    an ELF object, or a static library (plain or thin) with a member that defines FUNCTION
  FUNCTION  aesfast_vaes_avx512_X or aesfast_vaes_avx2_X, X one of ctr32_xor, ghash_init, ghash,
            gcm_ctr_then_hash, gcm_hash_then_ctr (GCM; and their _pub forms for a public
            counter), ctr32le_xor, polyval_init, polyval,
            gcmsiv_ctr_then_hash (GCM-SIV); the hash and stitched ones also run the tier's
            ghash_init (GCM) or polyval_init (GCM-SIV), from the same OBJECT, to build the table
            of H powers
  --native  SO (test/vaes_model_native.c, built by test/meson.build) exports the 256-bit kernels:
            every case then also runs on this CPU, and the CPU's out, acc and hash-key table must
            equal the model's byte for byte (skipped, with a note, on a CPU without the features)
  --snippets  runs every vaes_model_snip_* function of SNIPPETS (test/vaes_model_snippets.S: short
            sequences of each VEX instruction, immediate and operand form the model knows) on the
            model and on this CPU from the same random states, and compares the states; given
            KERNELS (kernels_lib), fails if a 256-bit kernel uses a form that no snippet has.
            Also the known answers for the EVEX-only forms, and the checker's self-test: each
            vaes_model_check_* function breaks one rule (or keeps it at the edge) and must be
            caught (or pass)

Why: the 512-bit kernels need AVX-512, which neither our x86-64 machines nor qemu 7.2 provide, so
no real test can run them. This script disassembles FUNCTION with objdump, executes it instruction
by instruction on modeled registers (16 GPRs, 32 vector registers of 512 bits, k0-k7), flags
(CF ZF SF OF) and memory, and checks that:
  - ctr32_xor: out = in XOR AES(ctr + i), + i on the last 4 bytes (big-endian, mod 2^32), against
    libcrypto's AES-ECB, for AES-128/192/256 x nblocks 0..69, 127, 128, 129, 255;
  - ghash: acc = GHASH_H(acc, in) (SP 800-38D), for nblocks 0..40, 64, 100, 257 and random acc,
    against a pure-Python GF(2^128) multiply, itself checked against libcrypto's AES-GCM tags at
    start-up; ghash_init: tables for several H, each checked through the tier's ghash;
  - gcm_ctr_then_hash / gcm_hash_then_ctr: out = in XOR AES(ctr + i) and acc = GHASH of out
    (resp. in), for AES-128/192/256 x the same block counts (and, AES-128, 23 counts from 47 to
    512), with counter wraps, in-place calls, and calls split in 2..4 (fixed and random lengths
    up to 300 blocks) that must chain to the one-call result; the _pub forms the same, with
    counters whose last byte is near 0xff too (a group of 16 carries out of it), or 2 mod 32
    (the 512-bit big-endian groups);
  - gcm_seal_msg / gcm_open_msg: out = in XOR AES(J0 + 1 + i), the tag E(J0) ^ GHASH(acc, queue,
    the hashed data blocks, the lengths block), and the state a message that goes on resumes
    from (acc', queue': the same hash without the lengths block, ending with the partial
    block), for data of 0..80 bytes, whole blocks +-1 byte up to 64 blocks, queues of 0..31
    blocks around one group of powers, and longer messages (the main loop, and 31 whole blocks
    and a partial one after it); only the queue's first nqueue blocks may be read;
  - GCM-SIV (RFC 8452): the same checks, with the counter + i on the FIRST 4 bytes (little-endian,
    mod 2^32) for ctr32le_xor and gcmsiv_ctr_then_hash (acc = POLYVAL of out), and POLYVAL for
    polyval/polyval_init: a pure-Python POLYVAL built from the GHASH multiply by RFC 8452's
    appendix A identity, checked at start-up against that appendix's example;
  - gcmsiv_seal_short / gcmsiv_open_short: whole messages (RFC 8452, section 4, from the nonce's
    keys) of every AAD block count up to 8 and data lengths up to the tier's bound, each byte
    length near the vector edges, for AES-128/192/256, in place and not, open's counter word at
    its wrap, against the reference POLYVAL and libcrypto's AES-ECB: output and tag;
  - memory: every access lies inside one buffer the contract lets the function touch: reads of
    key->rk[0..rounds], key->rounds, ctr, in, acc, h, the hash-key table (only the bytes
    ghash_init wrote), the object's .rodata, the 7th argument at 8(%rsp) and the return address,
    and of out or stack bytes only after this call wrote them; writes only to out, acc, the table
    (ghash_init) and below %rsp. A masked load or store touches only the elements its mask selects
    (AVX-512 fault suppression): a masked-off element may lie outside every buffer. Buffers are
    misaligned at random, so an aligned access to them faults;
  - the ABI: rbx, rbp, r12-r15 and rsp are preserved, ret pops the caller's return address, and
    VZEROUPPER was done; the 256-bit functions use no EVEX encoding, zmm, xmm16-31 or mask
    register; no function needs a CPU feature provider/dispatch.c does not check for its tier;
  - constant time (the check valgrind cannot do for VAES): for each function and block counts
    0..64, two calls with the same lengths and buffer addresses but other key, H, acc, counter
    (but a _pub function's, which is public) and data execute the same instruction sequence and
    make the same memory accesses.
Prints "vaes_model: N passed, M failed (FUNCTION)"; exits 0 if all passed, 1 otherwise (a
FUNCTION that is only a placeholder, endbr64; ud2, fails too).

Limits: it models only the mnemonics and operand forms listed in HANDLERS. Anything else fails
the test and names the instruction: extend the model, never skip. The model is itself code that
could be wrong: its AES round is checked against libcrypto at start-up; the VEX instruction forms
it models are compared with this CPU (--snippets: all that the kernels use, and more), and the
256-bit kernels run on both (--native); the EVEX-only forms (masks, VPTERNLOG, zmm lane shuffles,
k registers), which no CPU here runs, are checked against known answers built another way
(known_answers()). Nothing about speed.
"""
import ctypes
import os
import random
import re
import subprocess
import sys
import tempfile
from collections import namedtuple

SEED = 2026            # fixed: every run checks the same cases
MAX_STEPS = 3_000_000  # far more than 257 GCM blocks take; a runaway loop is a failure
MAX_PRINTED = 50       # failures printed in full; the rest are counted


class ModelError(Exception):
    """The object, or the environment, is outside what this script models: a failure too."""


class Fault(Exception):
    """The function did something the CPU or the kernel contract forbids."""


# ---- AES in the model: the round VAESENC/VAESENCLAST perform, and the key schedule -------------

def gf_mul(a, b):
    """Product in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (FIPS-197 4.2)."""
    product = 0
    for bit in range(8):
        product ^= a if b >> bit & 1 else 0
        a = (a << 1) ^ (0x11b if a & 0x80 else 0)
    return product


def sbox_entry(x):
    """FIPS-197 5.1.1: the inverse in GF(2^8) (x^254, so 0 maps to 0), then the affine map."""
    inv = 1
    for _ in range(254):
        inv = gf_mul(inv, x)
    rotl = lambda n: ((inv << n) | (inv >> (8 - n))) & 0xff
    return inv ^ rotl(1) ^ rotl(2) ^ rotl(3) ^ rotl(4) ^ 0x63


SBOX = [sbox_entry(x) for x in range(256)]
MUL2, MUL3 = [gf_mul(x, 2) for x in range(256)], [gf_mul(x, 3) for x in range(256)]
# Byte i of the state is row i % 4 of column i // 4; ShiftRows rotates row r left by r columns.
SHIFT_ROWS = [(i + 4 * (i % 4)) % 16 for i in range(16)]


def aes_round(state, round_key, last):
    """One 128-bit lane of VAESENC (last=False) or VAESENCLAST (last=True)."""
    s = [SBOX[state[SHIFT_ROWS[i]]] for i in range(16)]          # ShiftRows, SubBytes
    if not last:                                                  # MixColumns
        s = [MUL2[s[c + r]] ^ MUL3[s[c + (r + 1) % 4]] ^ s[c + (r + 2) % 4] ^ s[c + (r + 3) % 4]
             for c in range(0, 16, 4) for r in range(4)]
    return xor(bytes(s), round_key)                               # AddRoundKey


def expand_key(key):
    """FIPS-197 5.2: (rk[0..rounds] as bytes, rounds), as aesfast_key holds them."""
    nk, rcon = len(key) // 4, 1
    words = [key[4 * i:4 * i + 4] for i in range(nk)]
    for i in range(nk, 4 * (nk + 7)):
        t = words[i - 1]
        if i % nk == 0:
            t = bytes([SBOX[t[1]] ^ rcon, SBOX[t[2]], SBOX[t[3]], SBOX[t[0]]])
            rcon = MUL2[rcon]
        elif nk > 6 and i % nk == 4:
            t = bytes(SBOX[b] for b in t)
        words.append(xor(words[i - nk], t))
    return b''.join(words), nk + 6


def xor(a, b):
    return (int.from_bytes(a, 'little') ^ int.from_bytes(b, 'little')).to_bytes(len(a), 'little')


# ---- GHASH in the reference: SP 800-38D's multiply, bit by bit ----------------------------------

GHASH_R = 0xe1 << 120


def ghash_mul(x, y):
    """X * Y in GF(2^128), blocks as big-endian integers (bit 0 of the element is the top bit)."""
    z = 0
    for i in range(127, -1, -1):          # SP 800-38D 6.3, Algorithm 1
        if x >> i & 1:
            z ^= y
        y = (y >> 1) ^ GHASH_R if y & 1 else y >> 1
    return z


def ghash_ref(h, acc, data):
    """acc = (acc ^ X_i) * H for each 16-byte block X_i of data; all as bytes."""
    hh, a = int.from_bytes(h, 'big'), int.from_bytes(acc, 'big')
    for k in range(0, len(data), 16):
        a = ghash_mul(a ^ int.from_bytes(data[k:k + 16], 'big'), hh)
    return a.to_bytes(16, 'big')


def polyval_ref(h, acc, data):
    """POLYVAL (RFC 8452) as the RFC's appendix A defines it from GHASH:
    POLYVAL(H, X_1..X_n) = rev(GHASH(mulX_GHASH(rev(H)), rev(X_1)..rev(X_n))), with acc as the
    state (so acc = 0 is the definition, and calls chain). mulX_GHASH is the GHASH product with
    the element x, the block 0x40 00 .. 00."""
    rev = lambda b: bytes(reversed(b))
    hx = ghash_mul(int.from_bytes(rev(h), 'big'), 1 << 126).to_bytes(16, 'big')
    return rev(ghash_ref(hx, rev(acc), b''.join(rev(data[k:k + 16])
                                                for k in range(0, len(data), 16))))


def polyval_reference_check():
    """RFC 8452, appendix A: POLYVAL(H, X_1, X_2)."""
    h = bytes.fromhex('25629347589242761d31f826ba4b757b')
    x = bytes.fromhex('4f4f95668c83dfb6401762bb2d01a262d1a24ddd2721d006bbe45f20d3c9f362')
    if polyval_ref(h, bytes(16), x) != bytes.fromhex('f7a3b47b846119fae5b7866cf5e5b77e'):
        raise ModelError('the reference POLYVAL disagrees with RFC 8452 appendix A')


def counter_blocks(ctr, start, nblocks, fmt='ctr32'):
    """ctr + start .. ctr + start + nblocks - 1: GCM's inc32 on the last 4 bytes (ctr32), or
    GCM-SIV's little-endian counter in the first 4 bytes (ctr32le)."""
    if fmt == 'ctr32le':
        low = int.from_bytes(ctr[:4], 'little')
        return b''.join(((low + start + i) % 2**32).to_bytes(4, 'little') + ctr[4:]
                        for i in range(nblocks))
    low = int.from_bytes(ctr[12:], 'big')
    return b''.join(ctr[:12] + ((low + start + i) % 2**32).to_bytes(4, 'big')
                    for i in range(nblocks))


def add_ctr(ctr, n, fmt='ctr32'):
    return counter_blocks(ctr, n, 1, fmt)


# What each function is: its counter format, its hash and the hash's init function, for the
# stitched ones whether the hash covers the output (ctr_then_hash) or the input (hash_then_ctr),
# whether it is one of GCM's one-call message functions (gcm_seal_msg, gcm_open_msg), and whether
# its counter is public (the _pub stitched functions: they may branch on it).
Kind = namedtuple('Kind', 'fmt hash init hash_out msg pub', defaults=(False, False))
KINDS = {
    'ctr32_xor': Kind('ctr32', None, None, None),
    'ghash_init': Kind(None, 'ghash', 'ghash_init', None),
    'ghash': Kind(None, 'ghash', 'ghash_init', None),
    'gcm_ctr_then_hash': Kind('ctr32', 'ghash', 'ghash_init', True),
    'gcm_hash_then_ctr': Kind('ctr32', 'ghash', 'ghash_init', False),
    'gcm_ctr_then_hash_pub': Kind('ctr32', 'ghash', 'ghash_init', True, pub=True),
    'gcm_hash_then_ctr_pub': Kind('ctr32', 'ghash', 'ghash_init', False, pub=True),
    'ctr32le_xor': Kind('ctr32le', None, None, None),
    'polyval_init': Kind(None, 'polyval', 'polyval_init', None),
    'polyval_init_few': Kind(None, 'polyval', 'polyval_init_few', None),  # hashes of <= 8 blocks
    'polyval': Kind(None, 'polyval', 'polyval_init', None),
    'gcmsiv_ctr_then_hash': Kind('ctr32le', 'polyval', 'polyval_init', True),
    'gcm_seal_msg': Kind('ctr32', 'ghash', 'ghash_init', True, True),
    'gcm_open_msg': Kind('ctr32', 'ghash', 'ghash_init', False, True),
    # GCM-SIV's whole short messages (aesfast_gcmsiv_msg): no table, the powers made inside.
    'gcmsiv_seal_short': Kind('ctr32le', 'polyval', None, True),
    'gcmsiv_open_short': Kind('ctr32le', 'polyval', None, False),
}
# aesfast_gcm_msg (aesfast_kernel.h): queue (32 blocks), acc, j0, tag, nqueue, aadlen, flags.
MSG_QUEUE, MSG_ACC, MSG_J0, MSG_TAG, MSG_NQUEUE, MSG_AADLEN, MSG_FLAGS, MSG_BYTES = \
    0, 512, 528, 544, 560, 568, 576, 584
MSG_CTR_PUBLIC = 1                       # flags: J0 is public (a 12-byte IV's)
MSG_ADDR = 0x50010                       # 16-byte aligned, as the ABI promises (no more)
SHORT_KINDS = ('gcmsiv_seal_short', 'gcmsiv_open_short')
SHORT_BLOCKS = {'vaes_avx512': 32}   # each tier's gcmsiv_short_blocks (provider/dispatch.c)
HASH_REF = {'ghash': ghash_ref, 'polyval': polyval_ref}


class OpenSSL:
    """The references: AES-ECB and AES-GCM from libcrypto's default provider."""
    def __init__(self):
        self.lib = lib = ctypes.CDLL('libcrypto.so.3')
        vp, cp, i = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
        for name, restype, argtypes in [
                ('EVP_CIPHER_fetch', vp, [vp, cp, cp]), ('EVP_CIPHER_CTX_new', vp, []),
                ('EVP_CIPHER_CTX_free', None, [vp]), ('EVP_EncryptInit_ex', i, [vp] * 3 + [cp] * 2),
                ('EVP_EncryptUpdate', i, [vp, cp, ctypes.POINTER(i), cp, i]),
                ('EVP_EncryptFinal_ex', i, [vp, cp, ctypes.POINTER(i)]),
                ('EVP_CIPHER_CTX_ctrl', i, [vp, i, i, cp])]:
            getattr(lib, name).restype, getattr(lib, name).argtypes = restype, argtypes
        self.ciphers = {(mode, n): lib.EVP_CIPHER_fetch(None, b'AES-%d-%s' % (8 * n, mode),
                                                        b'provider=default')
                        for n in (16, 24, 32) for mode in (b'ECB', b'GCM')}
        if not all(self.ciphers.values()):
            raise ModelError('libcrypto: cannot fetch AES-ECB/GCM from the default provider')

    def _run(self, mode, key, iv, aad, data):
        ctx, outlen = self.lib.EVP_CIPHER_CTX_new(), ctypes.c_int()
        out, tag = ctypes.create_string_buffer(len(data) + 16), ctypes.create_string_buffer(16)
        ok = self.lib.EVP_EncryptInit_ex(ctx, self.ciphers[(mode, len(key))], None, key, iv) == 1
        if mode == b'GCM' and aad:
            ok = ok and self.lib.EVP_EncryptUpdate(ctx, None, ctypes.byref(outlen), aad,
                                                   len(aad)) == 1
        ok = ok and self.lib.EVP_EncryptUpdate(ctx, out, ctypes.byref(outlen), data,
                                               len(data)) == 1 and outlen.value == len(data)
        if mode == b'GCM':
            ok = ok and self.lib.EVP_EncryptFinal_ex(ctx, out, ctypes.byref(outlen)) == 1 \
                and self.lib.EVP_CIPHER_CTX_ctrl(ctx, 0x10, 16, tag) == 1  # EVP_CTRL_AEAD_GET_TAG
        self.lib.EVP_CIPHER_CTX_free(ctx)
        if not ok:
            raise ModelError('libcrypto: AES-%s failed' % mode.decode())
        return out.raw[:len(data)], tag.raw

    def ecb_encrypt(self, key, data):
        """Whole blocks only: EVP_EncryptUpdate then returns them all, padding never comes in."""
        return self._run(b'ECB', key, None, b'', data)[0] if data else b''

    def gcm_encrypt(self, key, iv, aad, data):
        """(ciphertext, tag), 12-byte IV."""
        return self._run(b'GCM', key, iv, aad, data)


def gcm_reference_check(openssl, rng):
    """The reference's GHASH and counter layout rebuild libcrypto's AES-GCM tags exactly."""
    for key_len in (16, 24, 32):
        for aad_len, data_len in [(0, 0), (16, 64), (20, 37), (0, 16 * 33 + 5)]:
            key, iv = rng.randbytes(key_len), rng.randbytes(12)
            aad, data = rng.randbytes(aad_len), rng.randbytes(data_len)
            ct, tag = openssl.gcm_encrypt(key, iv, aad, data)
            h, j0 = openssl.ecb_encrypt(key, bytes(16)), iv + b'\0\0\0\1'
            nb = (data_len + 15) // 16
            keystream = openssl.ecb_encrypt(key, counter_blocks(j0, 1, nb))
            pad = lambda b: b + bytes(-len(b) % 16)
            lens = (8 * aad_len).to_bytes(8, 'big') + (8 * data_len).to_bytes(8, 'big')
            s = ghash_ref(h, bytes(16), pad(aad) + pad(ct) + lens)
            if xor(data, keystream[:data_len]) != ct or \
                    xor(s, openssl.ecb_encrypt(key, j0)) != tag:
                raise ModelError("the reference GHASH/GCM disagrees with libcrypto's AES-GCM")


# ---- Reading a function out of the object --------------------------------------------------------

Insn = namedtuple('Insn', 'addr mnemonic operands text evex mask zero size')
Imm, Target = namedtuple('Imm', 'value'), namedtuple('Target', 'addr')   # $imm, a jump target
Gpr = namedtuple('Gpr', 'name bits')              # name: the 64-bit register
Vec = namedtuple('Vec', 'index width')            # width in bytes: 16, 32, 64
KReg = namedtuple('KReg', 'index')                # k0..k7
# base/index: 64-bit register names or None; base None and index None: disp is an absolute address.
Mem = namedtuple('Mem', 'base index scale disp bcst')   # bcst: N of {1toN}, else None
SECTION_BASE = 0x1000                             # where the model maps the object's data sections

GPRS = {}
for r64, r32, r16, r8 in [('rax', 'eax', 'ax', 'al'), ('rcx', 'ecx', 'cx', 'cl'),
                          ('rdx', 'edx', 'dx', 'dl'), ('rbx', 'ebx', 'bx', 'bl'),
                          ('rsp', 'esp', 'sp', 'spl'), ('rbp', 'ebp', 'bp', 'bpl'),
                          ('rsi', 'esi', 'si', 'sil'), ('rdi', 'edi', 'di', 'dil')] + \
                         [('r%d' % n, 'r%dd' % n, 'r%dw' % n, 'r%db' % n) for n in range(8, 16)]:
    GPRS.update({r64: Gpr(r64, 64), r32: Gpr(r64, 32), r16: Gpr(r64, 16), r8: Gpr(r64, 8)})
CALLEE_SAVED = ('rbx', 'rbp', 'r12', 'r13', 'r14', 'r15')
ARG_REGS = ('rdi', 'rsi', 'rdx', 'rcx', 'r8', 'r9')
NOPS = {'nop', 'nopw', 'nopl', 'data16', 'cs', 'ds', 'xchg'}     # objdump's alignment padding

# Instructions that need a CPU feature that provider/dispatch.c does not check for the VAES tiers
# (they check AES, PCLMULQDQ, SSSE3, SSE4.1, AVX2, VAES, VPCLMULQDQ, BMI2; 512-bit: AVX512F/BW/VL).
UNCHECKED_FEATURE = {m: 'AVX512DQ' for m in (
    'vinserti64x2', 'vextracti64x2', 'vinserti32x8', 'vextracti32x8', 'vbroadcasti64x2',
    'vbroadcasti32x8', 'vbroadcasti32x2', 'kmovb', 'kxnorb', 'kshiftlb', 'kshiftrb', 'knotb',
    'kandb', 'korb', 'kxorb', 'kortestb', 'ktestb', 'ktestw', 'kaddb', 'kaddw', 'vpmullq')}
UNCHECKED_FEATURE.update({m: 'BMI1' for m in ('andn', 'blsr', 'blsi', 'blsmsk', 'bextr',
                                             'tzcnt')})
UNCHECKED_FEATURE.update({'lzcnt': 'LZCNT', 'popcnt': 'POPCNT', 'vpermb': 'AVX512VBMI',
                          'vpermi2b': 'AVX512VBMI', 'vpermt2b': 'AVX512VBMI',
                          'vgf2p8affineqb': 'GFNI', 'vgf2p8mulb': 'GFNI', 'vpshldq': 'VBMI2',
                          'vpshrdq': 'VBMI2', 'vpshldd': 'VBMI2', 'vpshrdd': 'VBMI2'})


def tool(*cmd, cwd=None):
    result = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    if result.returncode != 0:
        raise ModelError('%s failed: %s' % (' '.join(cmd), result.stderr.strip()))
    return result.stdout


def archive_members(path, tmpdir):
    """The objects of PATH: itself, or an archive's members (extracted once if not thin)."""
    with open(path, 'rb') as f:
        magic = f.read(8)
    if magic not in (b'!<arch>\n', b'!<thin>\n'):
        return [path]
    members = tool('ar', 't', path).split()
    if magic == b'!<arch>\n':                     # plain: extract; thin: lists the objects' paths
        sub = os.path.join(tmpdir, 'ar%d' % abs(hash(path)))
        if not os.path.isdir(sub):
            os.mkdir(sub)
            tool('ar', 'x', os.path.abspath(path), cwd=sub)
        members = [os.path.join(sub, m) for m in members]
    return members


def defined_functions(obj):
    return re.findall(r'^\S+ T (\S+)$', tool('nm', '--defined-only', obj), re.M)


def find_object(path, function, tmpdir):
    """PATH itself, or the member of the archive PATH that defines FUNCTION."""
    for obj in archive_members(path, tmpdir):
        if function in defined_functions(obj):
            return obj
    raise ModelError('no member of %s defines %s' % (path, function))


def parse_operand(text):
    """(operand, mask register or None, zeroing) from objdump's AT&T text of one operand."""
    m = re.fullmatch(r'(.*?)((?:\{[^}]*\})*)', text)
    body, mask, zero, bcst = m.group(1), None, False, None
    for deco in re.findall(r'\{([^}]*)\}', m.group(2)):
        if re.fullmatch(r'%k[1-7]', deco):
            mask = int(deco[2])
        elif deco == 'z':
            zero = True
        elif re.fullmatch(r'1to\d+', deco):
            bcst = int(deco[3:])
        else:
            raise ModelError('operand decoration not modeled: {%s}' % deco)
    if body.startswith('$'):
        return Imm(int(body[1:], 0)), mask, zero
    if body[1:] in GPRS:
        return GPRS[body[1:]], mask, zero
    m = re.fullmatch(r'%([xyz])mm(\d+)', body)
    if m and int(m.group(2)) < 32:
        return Vec(int(m.group(2)), {'x': 16, 'y': 32, 'z': 64}[m.group(1)]), mask, zero
    m = re.fullmatch(r'%k([0-7])', body)
    if m:
        return KReg(int(m.group(1))), mask, zero
    m = re.fullmatch(r'(-?0x[0-9a-f]+)?\((%\w+)?(?:,%(\w+),([1248]))?\)', body)
    if m:
        base = m.group(2) and m.group(2)[1:]
        if (base not in (None, 'rip') and GPRS.get(base, Gpr('', 0)).bits != 64) or \
                (m.group(3) and GPRS.get(m.group(3), Gpr('', 0)).bits != 64):
            raise ModelError('address form not modeled: %s' % body)
        return Mem(base, m.group(3), int(m.group(4) or '1'), int(m.group(1) or '0', 0),
                   bcst), mask, zero
    m = re.fullmatch(r'([0-9a-f]+) <.*>', body)
    if m:
        return Target(int(m.group(1), 16)), mask, zero
    raise ModelError('operand not modeled: %s' % text)


def load_function(obj, function, tmpdir, avx2_only):
    """(instructions, {section: (model address, bytes)}), RIP-relative operands made absolute."""
    listing = tool('objdump', '-dr', '--insn-width=16', '--disassemble=' + function, obj)
    insns, relocs = [], []
    for line in listing.splitlines():
        m = re.fullmatch(r'\s*([0-9a-f]+): (R_X86_64_\w+)\s+(\S+?)([+-]0x[0-9a-f]+)?', line)
        if m:
            relocs.append((int(m.group(1), 16), m.group(2), m.group(3), int(m.group(4) or '0', 16)))
            continue
        m = re.fullmatch(r'\s*([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*\t(\S+)\s*(.*?)\s*(#.*)?', line)
        if not m:
            continue
        addr, raw, mnemonic, text = int(m.group(1), 16), m.group(2).split(), m.group(3), m.group(4)
        if mnemonic in ('{evex}', '{vex}', '{vex3}'):   # objdump marks a non-default encoding
            mnemonic, _, text = text.partition(' ')
            text = text.strip()
        if mnemonic in NOPS and (mnemonic != 'xchg' or text == '%ax,%ax'):
            mnemonic, text = 'nop', ''
        mask, zero, operands = None, False, []
        for o in re.findall(r'(?:[^,(]|\([^)]*\))+', text):
            op, omask, ozero = parse_operand(o.strip())
            operands.append(op)
            mask, zero = (omask if omask is not None else mask), zero or ozero
        size = None
        if mnemonic == 'movq' and operands and isinstance(operands[0], Imm):
            mnemonic, size = 'mov', 64            # movq $imm, mem: the GPR mov, not SSE's movq
        if mnemonic not in HANDLERS and mnemonic[:-1] in SIZED and mnemonic[-1] in 'bwlq':
            mnemonic, size = mnemonic[:-1], {'b': 8, 'w': 16, 'l': 32, 'q': 64}[mnemonic[-1]]
        prefixes = [b for b in raw if b in ('66', 'f2', 'f3', '67', '2e', '3e')]
        evex = raw[len(prefixes)] == '62'
        shown = '%x: %s %s' % (addr, m.group(3), m.group(4))
        insns.append(Insn(addr, mnemonic, operands, shown.strip(), evex, mask, zero, size))
    while insns and insns[-1].mnemonic == 'nop':   # padding up to the next function
        insns.pop()
    if not insns or insns[-1].mnemonic not in ('ret', 'ud2', 'jmp'):
        raise ModelError('%s: %s not found, or does not end with ret' % (obj, function))
    sections = {}
    for field, kind, symbol, addend in relocs:     # objdump also lists other functions' relocations
        if not insns[0].addr <= field <= insns[-1].addr:
            continue
        if kind != 'R_X86_64_PC32':
            raise ModelError('relocation not modeled: %s %s' % (kind, symbol))
        section, value = symbol_location(obj, symbol, tmpdir)
        if section not in sections:
            path = os.path.join(tmpdir, 'section%d' % len(sections))
            tool('objcopy', '-O', 'binary', '--only-section=' + section, obj, path)
            with open(path, 'rb') as f:
                sections[section] = (SECTION_BASE + 0x10000 * len(sections), f.read())
        i = max(k for k, insn in enumerate(insns) if insn.addr <= field)
        # S + A - P, plus the address of the next instruction: the operand's model address.
        target = sections[section][0] + value + addend + insns[i + 1].addr - field
        insns[i] = insns[i]._replace(operands=[
            Mem(None, None, 1, target, o.bcst) if isinstance(o, Mem) and o.base == 'rip' else o
            for o in insns[i].operands])
    addrs = {insn.addr for insn in insns}
    for insn in insns:
        if insn.mnemonic in UNCHECKED_FEATURE:
            raise ModelError('%s needs %s, which provider/dispatch.c does not check for the tier'
                             % (insn.text, UNCHECKED_FEATURE[insn.mnemonic]))
        if insn.mnemonic not in HANDLERS and insn.mnemonic != 'ud2':
            raise ModelError('instruction not modeled: %s' % insn.text)
        if insn.mask is not None and insn.mnemonic not in MASKABLE:
            raise ModelError('masking not modeled for: %s' % insn.text)
        if any(isinstance(o, Mem) and o.base == 'rip' for o in insn.operands):
            raise ModelError('RIP-relative operand without a relocation: %s' % insn.text)
        if any(isinstance(o, Target) and o.addr not in addrs for o in insn.operands):
            raise ModelError('jump out of the function: %s' % insn.text)
        if avx2_only and (insn.evex or insn.mnemonic.startswith('k') or any(
                isinstance(o, KReg) or isinstance(o, Vec) and (o.width == 64 or o.index >= 16)
                for o in insn.operands)):
            raise ModelError('AVX-512 (EVEX, zmm, xmm16-31 or k) in a 256-bit function: %s'
                             % insn.text)
    return insns, sections


def symbol_location(obj, symbol, tmpdir):
    """(section, offset) of a relocation's symbol: a section itself, or a symbol defined in one."""
    if symbol.startswith('.'):
        return symbol, 0
    for line in tool('objdump', '-t', obj).splitlines():
        f = line.split()
        if len(f) >= 5 and f[-1] == symbol and f[-3].startswith('.'):
            return f[-3], int(f[0], 16)
    raise ModelError('relocation against a symbol not modeled: %s' % symbol)


def is_placeholder(insns):
    return [i.mnemonic for i in insns if i.mnemonic != 'nop'][:2] in (['ud2'], ['endbr64', 'ud2'])


# ---- Memory: named buffers, each with the accesses the contract allows ---------------------------

class Region:
    """A buffer at a model address. `valid` marks the bytes that may be read: all of a readable
    buffer, or (write-only buffers: out, the table ghash_init fills, the stack) those written."""
    def __init__(self, name, start, data, readable=True, writable=False):
        self.name, self.start, self.data, self.writable = name, start, bytearray(data), writable
        self.valid = bytearray(b'\1' * len(data) if readable else bytes(len(data)))
        self.written = bytearray(len(data))

    def end(self):
        return self.start + len(self.data)


class Memory:
    def __init__(self, regions):
        self.regions = regions
        self.trace = None          # a list: every access's (address, size) is appended

    def region(self, kind, addr, n):
        for r in self.regions:
            if r.start <= addr and addr + n <= r.end():
                return r
        near = min(self.regions, key=lambda r: min(abs(addr - r.start), abs(addr - r.end())))
        raise Fault('%s of %d bytes at %s%+#x, outside every buffer (%s is %#x bytes)'
                    % (kind, n, near.name, addr - near.start, near.name, len(near.data)))

    def read(self, addr, n):
        if self.trace is not None:
            self.trace.append((addr, n))
        r = self.region('read', addr, n)
        o = addr - r.start
        if r.valid.find(0, o, o + n) >= 0:
            raise Fault('read of %d bytes at %s%+#x, not readable%s' % (
                n, r.name, o, ' before this call writes it' if r.writable else ''))
        return bytes(r.data[o:o + n])

    def write(self, addr, value):
        if self.trace is not None:
            self.trace.append((addr, -len(value)))
        r = self.region('write', addr, len(value))
        o = addr - r.start
        if not r.writable:
            raise Fault('write of %d bytes at %s%+#x, a read-only buffer' % (len(value), r.name, o))
        r.data[o:o + len(value)] = value
        r.valid[o:o + len(value)] = r.written[o:o + len(value)] = b'\1' * len(value)


def mask_runs(bits, count):
    """(first, length) of each run of set bits among the low `count` bits."""
    runs, i = [], 0
    while i < count:
        if bits >> i & 1:
            j = i
            while j < count and bits >> j & 1:
                j += 1
            runs.append((i, j - i))
            i = j
        else:
            i += 1
    return runs


# ---- The machine ---------------------------------------------------------------------------------

RETURN_ADDRESS = 0x5eed_0000_c0de_0000


class Machine:
    def __init__(self, insns, memory, rng):
        self.insns, self.mem = insns, memory
        self.index = {insn.addr: i for i, insn in enumerate(insns)}
        self.gpr = {reg.name: rng.getrandbits(64) for reg in GPRS.values()}
        self.vec = [rng.randbytes(64) for _ in range(32)]
        self.k = [rng.getrandbits(64) for _ in range(8)]
        self.flags = dict(cf=None, zf=None, sf=None, of=None)   # None: undefined
        self.upper_dirty = False                  # ymm/zmm0-15 written since the last VZEROUPPER
        self.insn, self.steps = None, 0
        self.pcs = None            # a list: the index of every instruction executed is appended

    def run(self, check_abi=True):
        saved, entry_rsp = {r: self.gpr[r] for r in CALLEE_SAVED}, self.gpr['rsp']
        pc = 0
        for self.steps in range(MAX_STEPS):
            insn = self.insn = self.insns[pc]
            if self.pcs is not None:
                self.pcs.append(pc)
            try:
                jump = HANDLERS[insn.mnemonic](self, *insn.operands)
            except (Fault, ModelError) as e:
                raise type(e)('%s: %s' % (insn.text, e)) from None
            except (TypeError, AttributeError, KeyError, IndexError) as e:
                raise ModelError('%s: operand form not modeled (%r)' % (insn.text, e)) from None
            if jump == 'ret':
                if not check_abi:
                    return
                if self.upper_dirty:
                    raise Fault('returned without VZEROUPPER after using ymm/zmm0-15')
                if self.gpr['rsp'] != entry_rsp + 8:
                    raise Fault('returned with rsp %+d from the entry value' %
                                (self.gpr['rsp'] - entry_rsp - 8))
                changed = [r for r in CALLEE_SAVED if self.gpr[r] != saved[r]]
                if changed:
                    raise Fault('callee-saved %s not preserved' % ', '.join(changed))
                return
            pc = pc + 1 if jump is None else self.index[jump]
        raise Fault('no return after %d instructions' % MAX_STEPS)

    # Operands.
    def address(self, mem):
        addr = mem.disp
        if mem.base:
            addr += self.gpr[mem.base]
        if mem.index:
            addr += self.gpr[mem.index] * mem.scale
        return addr % 2**64

    def flag(self, name):
        value = self.flags[name]
        if value is None:
            raise Fault('branch or setcc on %s, which no instruction has defined' % name.upper())
        return value

    def get_int(self, op, bits=None):
        bits = bits or self.opsize(op)
        if isinstance(op, Imm):
            return op.value % 2**bits
        if isinstance(op, Mem):
            return int.from_bytes(self.mem.read(self.address(op), bits // 8), 'little')
        if isinstance(op, KReg):
            return self.k[op.index] % 2**bits
        if isinstance(op, Vec):
            return int.from_bytes(self.vec[op.index][:bits // 8], 'little')
        return self.gpr[op.name] % 2**op.bits

    def put_int(self, dst, value, bits=None):     # a 32-bit write zero-extends, 8/16-bit merges
        bits = bits or self.opsize(dst)
        value %= 2**bits
        if isinstance(dst, Mem):
            self.mem.write(self.address(dst), value.to_bytes(bits // 8, 'little'))
        elif isinstance(dst, KReg):
            self.k[dst.index] = value
        else:
            keep = self.gpr[dst.name] & ~(2**dst.bits - 1) if dst.bits < 32 else 0
            self.gpr[dst.name] = keep | value

    def opsize(self, *ops):
        for op in ops:
            if isinstance(op, Gpr):
                return op.bits
        if self.insn.size:
            return self.insn.size
        raise ModelError('operand size not known')

    def vget(self, op, n):
        """n bytes of a vector register, of memory (an EVEX broadcast repeats one element), or
        of a GPR (vpbroadcast, vmovq)."""
        if isinstance(op, Vec):
            return self.vec[op.index][:n]
        if isinstance(op, Gpr):
            return self.get_int(op).to_bytes(op.bits // 8, 'little')[:n]
        addr = self.address(op)
        if op.bcst:
            return self.mem.read(addr, n // op.bcst) * op.bcst
        if self.insn.mask is not None and self.insn.mnemonic in MASKED_LOADS:
            esize, bits = MASKABLE[self.insn.mnemonic], self.k[self.insn.mask]
            value = bytearray(n)                   # masked-off elements are not read at all
            for first, count in mask_runs(bits, n // esize):
                value[first * esize:(first + count) * esize] = \
                    self.mem.read(addr + first * esize, count * esize)
            return bytes(value)
        return self.mem.read(addr, n)

    def vput(self, dst, value):
        n = len(value)
        if self.insn.mask is not None:
            esize, bits = MASKABLE[self.insn.mnemonic], self.k[self.insn.mask]
            if isinstance(dst, Mem):
                if self.insn.zero:
                    raise Fault('zeroing-masking of a memory destination (#UD)')
                addr = self.address(dst)
                for first, count in mask_runs(bits, n // esize):
                    lo, hi = first * esize, (first + count) * esize
                    self.mem.write(addr + lo, value[lo:hi])
                return
            old = self.vec[dst.index]
            value = b''.join(value[i:i + esize] if bits >> (i // esize) & 1 else
                             bytes(esize) if self.insn.zero else old[i:i + esize]
                             for i in range(0, n, esize))
        if isinstance(dst, Vec):
            if n != dst.width:
                raise ModelError('result width %d for a %d-byte register' % (n, dst.width))
            self.vec[dst.index] = value + bytes(64 - n)    # VEX/EVEX zero the bits above
            self.upper_dirty |= dst.index < 16 and n > 16
        elif isinstance(dst, Mem):
            self.mem.write(self.address(dst), value)
        else:
            raise ModelError('vector result to %r' % (dst,))

    # General-purpose instructions (AT&T order: source first).
    def set_szf(self, r, bits):
        self.flags['zf'], self.flags['sf'] = int(r == 0), r >> (bits - 1) & 1

    def arith(self, src, dst, op, store=True):    # add, sub, cmp: CF ZF SF OF
        bits = self.opsize(dst, src)
        a, b = self.get_int(dst, bits), self.get_int(src, bits)
        r = a + b if op == 'add' else a - b
        res, top = r % 2**bits, 1 << (bits - 1)
        self.flags['cf'] = int(r != res)
        sb = b if op == 'add' else ~b
        self.flags['of'] = int(bool(~(a ^ sb) & (a ^ res) & top))
        self.set_szf(res, bits)
        if store:
            self.put_int(dst, res, bits)

    def logic(self, src, dst, fn, store=True):    # and, or, xor, test: CF = OF = 0
        bits = self.opsize(dst, src)
        r = fn(self.get_int(dst, bits), self.get_int(src, bits)) % 2**bits
        self.flags.update(cf=0, of=0)
        self.set_szf(r, bits)
        if store:
            self.put_int(dst, r, bits)

    def incdec(self, dst, delta):                 # CF unchanged
        bits = self.opsize(dst)
        a = self.get_int(dst, bits)
        r = (a + delta) % 2**bits
        self.flags['of'] = int(r == (1 << (bits - 1)) if delta > 0 else r == (1 << (bits - 1)) - 1)
        self.set_szf(r, bits)
        self.put_int(dst, r, bits)

    def neg(self, dst):
        bits = self.opsize(dst)
        a = self.get_int(dst, bits)
        r = -a % 2**bits
        self.flags.update(cf=int(a != 0), of=int(a == 1 << (bits - 1)))
        self.set_szf(r, bits)
        self.put_int(dst, r, bits)

    def shift(self, *ops, kind):
        count, dst = (ops if len(ops) == 2 else (Imm(1), ops[0]))
        bits = self.opsize(dst)
        n = self.get_int(count, 8) % (64 if bits == 64 else 32)
        a = self.get_int(dst, bits)
        if n == 0:
            return                                 # flags unchanged
        if kind == 'shl':
            r, cf = a << n, (a >> (bits - n)) & 1 if n <= bits else 0
        elif kind == 'shr':
            r, cf = a >> n, (a >> (n - 1)) & 1
        else:
            signed = a - (a >> (bits - 1) << bits)
            r, cf = signed >> n, (signed >> (n - 1)) & 1
        r %= 2**bits
        self.flags.update(cf=cf, of=None)
        if n == 1:
            self.flags['of'] = (r >> (bits - 1) & 1) ^ cf if kind == 'shl' else \
                (a >> (bits - 1) & 1 if kind == 'shr' else 0)
        self.set_szf(r, bits)
        self.put_int(dst, r, bits)

    def bzhi(self, index, src, dst):
        bits = self.opsize(dst)
        n, a = self.get_int(index, bits) & 0xff, self.get_int(src, bits)
        r = a & (2**n - 1) if n < bits else a
        self.flags.update(cf=int(n > bits - 1), of=0)
        self.set_szf(r, bits)
        self.put_int(dst, r, bits)

    def shiftx(self, count, src, dst, kind):      # shlx, shrx, sarx: no flags
        bits = self.opsize(dst)
        n, a = self.get_int(count, bits) % bits, self.get_int(src, bits)
        if kind == 'sar':
            a -= a >> (bits - 1) << bits
        self.put_int(dst, a << n if kind == 'shl' else a >> n, bits)

    def lea(self, mem, dst):
        if mem.bcst or mem.base == 'rip':
            raise ModelError('lea form')
        self.put_int(dst, self.address(mem) if mem.base or mem.index else mem.disp)

    def mov(self, src, dst):
        bits = self.opsize(dst, src)
        self.put_int(dst, self.get_int(src, bits), bits)

    def movx(self, src, dst, sign):               # movzbl, movzwq, movslq, ...
        sbits = {'b': 8, 'w': 16, 'l': 32}[self.insn.mnemonic[4]]
        v = self.get_int(src, sbits)
        if sign and v >> (sbits - 1):
            v -= 1 << sbits
        self.put_int(dst, v, dst.bits)

    def push(self, src):
        self.gpr['rsp'] = (self.gpr['rsp'] - 8) % 2**64
        self.mem.write(self.gpr['rsp'], self.get_int(src, 64).to_bytes(8, 'little'))

    def pop(self, dst):
        value = int.from_bytes(self.mem.read(self.gpr['rsp'], 8), 'little')
        self.gpr['rsp'] = (self.gpr['rsp'] + 8) % 2**64
        self.put_int(dst, value, 64)

    def ret(self):
        if int.from_bytes(self.mem.read(self.gpr['rsp'], 8), 'little') != RETURN_ADDRESS:
            raise Fault('ret to something other than the return address')
        self.gpr['rsp'] += 8
        return 'ret'

    def imul(self, *ops):                         # imul src, dst / imul $imm, src, dst
        if len(ops) == 1:
            raise ModelError('one-operand imul')
        dst = ops[-1]
        bits = self.opsize(dst)
        signed = lambda v: v - (v >> (bits - 1) << bits)
        x, y = (ops[1], ops[0]) if len(ops) == 3 else (dst, ops[0])
        r = signed(self.get_int(x, bits)) * signed(self.get_int(y, bits))
        overflow = int(signed(r % 2**bits) != r)
        self.flags.update(cf=overflow, of=overflow, zf=None, sf=None)
        self.put_int(dst, r, bits)

    def jcc(self, cond, target):
        return target.addr if CONDITIONS[cond](self.flag) else None

    # Vector instructions: three operands (src2, src1, dst), worked on lane by lane.
    def lanes(self, src2, src1, dst, fn, size=16):
        n = dst.width
        a, b = self.vget(src1, n), self.vget(src2, n)
        self.vput(dst, b''.join(fn(a[k:k + size], b[k:k + size]) for k in range(0, n, size)))

    def lanes1(self, src, dst, fn, size=16):      # one source
        a = self.vget(src, dst.width)
        self.vput(dst, b''.join(fn(a[k:k + size]) for k in range(0, dst.width, size)))

    def bitwise(self, src2, src1, dst, fn):
        n = dst.width
        a, b = (int.from_bytes(self.vget(s, n), 'little') for s in (src1, src2))
        self.vput(dst, (fn(a, b) % 2**(8 * n)).to_bytes(n, 'little'))

    def elementwise(self, src2, src1, dst, fn, esize):
        n = dst.width
        a, b = self.vget(src1, n), self.vget(src2, n)
        self.vput(dst, pack([fn(x, y) for x, y in zip(unpack(a, esize), unpack(b, esize))], esize))

    def shift_elems(self, count, src, dst, esize, kind):
        if isinstance(count, Imm):
            n = count.value
        else:
            n = int.from_bytes(self.vget(count, 16)[:8], 'little')
        bits = 8 * esize
        def one(x):
            if kind == 'sra':
                x -= x >> (bits - 1) << bits
                return x >> min(n, bits - 1)
            if n >= bits:
                return 0
            return x << n if kind == 'sll' else x >> n
        self.vput(dst, pack([one(x) for x in unpack(self.vget(src, dst.width), esize)], esize))

    def ternlog(self, imm, src3, src2, dst):
        n = dst.width
        a, b, c = (int.from_bytes(self.vget(s, n), 'little') for s in (dst, src2, src3))
        ones, r = 2**(8 * n) - 1, 0
        for idx in range(8):                       # bit of imm at (a << 2 | b << 1 | c)
            if imm.value >> idx & 1:
                r |= (a if idx & 4 else ones ^ a) & (b if idx & 2 else ones ^ b) & \
                    (c if idx & 1 else ones ^ c)
        self.vput(dst, r.to_bytes(n, 'little'))

    def move(self, src, dst, aligned=False):
        width = (dst if isinstance(dst, Vec) else src).width
        if aligned and any(isinstance(o, Mem) and self.address(o) % width for o in (src, dst)):
            raise Fault('%d-byte aligned access to a misaligned address' % width)
        self.vput(dst, self.vget(src, width))

    def movq(self, src, dst, size, legacy=False):  # vmovq/vmovd (and SSE movq/movd)
        if not isinstance(src, Vec) and not isinstance(dst, Vec):
            return self.mov(src, dst)              # movq as a 64-bit GPR/memory mov
        value = self.vget(src, size)
        if isinstance(dst, Vec):
            if legacy:                             # SSE: zero bits size..127, keep 128 and up
                self.vec[dst.index] = value + bytes(16 - size) + self.vec[dst.index][16:]
            else:
                self.vput(dst, value + bytes(16 - size))
        elif isinstance(dst, Gpr):
            self.put_int(dst, int.from_bytes(value, 'little'), 64 if size == 8 else 32)
        else:
            self.mem.write(self.address(dst), value)

    def insert(self, imm, src2, src1, dst, size):
        n = dst.width
        a, k = bytearray(self.vget(src1, n)), imm.value & (n // size - 1)
        a[k * size:(k + 1) * size] = self.vget(src2, size)
        self.vput(dst, bytes(a))

    def extract(self, imm, src, dst, size):
        k = imm.value & (src.width // size - 1)
        self.vput(dst, self.vget(src, src.width)[k * size:(k + 1) * size])

    def broadcast(self, src, dst, size, memory_only=False):
        if memory_only and not isinstance(src, Mem):
            raise ModelError('register source')
        self.vput(dst, self.vget(src, size) * (dst.width // size))

    def insr(self, imm, src, src1, dst, size):    # vpinsrd/q
        a = bytearray(self.vget(src1, 16))
        k = imm.value & (16 // size - 1)
        a[k * size:(k + 1) * size] = self.get_int(src, 8 * size).to_bytes(size, 'little')
        self.vput(dst, bytes(a))

    def extr(self, imm, src, dst, size):          # vpextrd/q
        k = imm.value & (16 // size - 1)
        value = int.from_bytes(self.vget(src, 16)[k * size:(k + 1) * size], 'little')
        if isinstance(dst, Gpr):
            self.put_int(dst, value, 64 if size == 8 else 32)
        else:
            self.put_int(dst, value, 8 * size)

    def permq(self, *ops):
        if isinstance(ops[0], Imm):                # imm form: within each 256-bit half
            imm, src, dst = ops
            q = unpack(self.vget(src, dst.width), 8)
            out = [q[h + (imm.value >> (2 * i) & 3)] for h in range(0, len(q), 4) for i in range(4)]
        else:                                      # vpermq table, indices, dst (EVEX)
            table, idx, dst = ops
            q = unpack(self.vget(table, dst.width), 8)
            out = [q[i % len(q)] for i in unpack(self.vget(idx, dst.width), 8)]
        self.vput(dst, pack(out, 8))

    def shuf128(self, imm, src2, src1, dst):      # vshufi64x2 / vshufi32x4
        n = dst.width
        a, b, lanes = self.vget(src1, n), self.vget(src2, n), n // 16
        bits = 2 if lanes == 4 else 1
        pick = [(a if i < lanes // 2 else b, imm.value >> (bits * i) & (lanes - 1))
                for i in range(lanes)]
        if lanes == 1:
            raise ModelError('vshufi on xmm')
        self.vput(dst, b''.join(v[16 * k:16 * k + 16] for v, k in pick))

    def perm2i128(self, imm, src2, src1, dst):
        a, b = self.vget(src1, 32), self.vget(src2, 32)
        choices = [a[:16], a[16:], b[:16], b[16:]]
        self.vput(dst, b''.join(bytes(16) if imm.value >> (4 * h) & 8 else
                                choices[imm.value >> (4 * h) & 3] for h in range(2)))

    def blendd(self, imm, src2, src1, dst):
        a, b = unpack(self.vget(src1, dst.width), 4), unpack(self.vget(src2, dst.width), 4)
        self.vput(dst, pack([y if imm.value >> (i % 8) & 1 else x
                             for i, (x, y) in enumerate(zip(a, b))], 4))

    def kop(self, *ops, fn, bits):
        if len(ops) == 3:
            self.k[ops[2].index] = fn(self.k[ops[1].index], self.k[ops[0].index]) % 2**bits
        else:
            self.k[ops[1].index] = fn(self.k[ops[0].index]) % 2**bits

    def kmov(self, src, dst, bits):
        value = self.get_int(src, bits)
        if isinstance(dst, Gpr):
            self.put_int(dst, value, 64 if bits == 64 else 32)
        else:
            self.put_int(dst, value, bits if isinstance(dst, Mem) else 64)

    def kortest(self, a, b, bits):
        r = (self.k[a.index] | self.k[b.index]) % 2**bits
        self.flags.update(zf=int(r == 0), cf=int(r == 2**bits - 1), sf=0, of=0)

    def vzeroupper(self):
        self.vec[:16] = [v[:16] + bytes(48) for v in self.vec[:16]]
        self.upper_dirty = False

    def vzeroall(self):
        self.vec[:16] = [bytes(64)] * 16
        self.upper_dirty = False


def unpack(b, esize):
    return [int.from_bytes(b[i:i + esize], 'little') for i in range(0, len(b), esize)]


def pack(values, esize):
    return b''.join((v % 2**(8 * esize)).to_bytes(esize, 'little') for v in values)


def clmul(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a, b = a << 1, b >> 1
    return r


def pclmul_lane(a, b, imm):
    """One lane of VPCLMULQDQ: imm bit 0 picks SRC1's quadword, bit 4 SRC2's."""
    x = int.from_bytes(a[8 * (imm & 1):][:8], 'little')
    y = int.from_bytes(b[8 * (imm >> 4 & 1):][:8], 'little')
    return clmul(x, y).to_bytes(16, 'little')


def shuffle_bytes(a, mask):
    return bytes(0 if i & 0x80 else a[i & 15] for i in mask)


def dword_shuffle(a, imm):
    return b''.join(a[4 * (imm >> (2 * i) & 3):][:4] for i in range(4))


def align_lane(a, b, imm):                         # vpalignr: a (SRC1) high, b (SRC2) low
    return ((b + a + bytes(32))[imm:imm + 16]) if imm < 32 else bytes(16)


CONDITIONS = {}
for names, fn in [
        (('o',), lambda f: f('of')), (('no',), lambda f: not f('of')),
        (('b', 'c', 'nae'), lambda f: f('cf')), (('ae', 'nb', 'nc'), lambda f: not f('cf')),
        (('e', 'z'), lambda f: f('zf')), (('ne', 'nz'), lambda f: not f('zf')),
        (('be', 'na'), lambda f: f('cf') or f('zf')),
        (('a', 'nbe'), lambda f: not (f('cf') or f('zf'))),
        (('s',), lambda f: f('sf')), (('ns',), lambda f: not f('sf')),
        (('l', 'nge'), lambda f: f('sf') != f('of')), (('ge', 'nl'), lambda f: f('sf') == f('of')),
        (('le', 'ng'), lambda f: f('zf') or f('sf') != f('of')),
        (('g', 'nle'), lambda f: not f('zf') and f('sf') == f('of'))]:
    CONDITIONS.update({name: fn for name in names})

# Each handler returns None to fall through, a jump target address, or 'ret'.
M = Machine
HANDLERS = {
    'endbr64': lambda m: None, 'nop': lambda m, *ops: None, 'ret': M.ret,
    'jmp': lambda m, target: target.addr,
    'mov': M.mov, 'movabs': M.mov, 'lea': M.lea, 'push': M.push, 'pop': M.pop,
    'add': lambda m, s, d: m.arith(s, d, 'add'), 'sub': lambda m, s, d: m.arith(s, d, 'sub'),
    'cmp': lambda m, s, d: m.arith(s, d, 'sub', store=False),
    'and': lambda m, s, d: m.logic(s, d, lambda a, b: a & b),
    'or': lambda m, s, d: m.logic(s, d, lambda a, b: a | b),
    'xor': lambda m, s, d: m.logic(s, d, lambda a, b: a ^ b),
    'test': lambda m, s, d: m.logic(s, d, lambda a, b: a & b, store=False),
    'inc': lambda m, d: m.incdec(d, 1), 'dec': lambda m, d: m.incdec(d, -1), 'neg': M.neg,
    'not': lambda m, d: m.put_int(d, ~m.get_int(d)),
    'bzhi': M.bzhi, 'imul': M.imul,
    'shlx': lambda m, *ops: m.shiftx(*ops, kind='shl'),
    'shrx': lambda m, *ops: m.shiftx(*ops, kind='shr'),
    'sarx': lambda m, *ops: m.shiftx(*ops, kind='sar'),
    'movzbl': lambda m, s, d: m.movx(s, d, False), 'movzwl': lambda m, s, d: m.movx(s, d, False),
    'movzbq': lambda m, s, d: m.movx(s, d, False), 'movzwq': lambda m, s, d: m.movx(s, d, False),
    'movzbw': lambda m, s, d: m.movx(s, d, False), 'movsbl': lambda m, s, d: m.movx(s, d, True),
    'movsbq': lambda m, s, d: m.movx(s, d, True), 'movswl': lambda m, s, d: m.movx(s, d, True),
    'movswq': lambda m, s, d: m.movx(s, d, True), 'movslq': lambda m, s, d: m.movx(s, d, True),
    # Vector moves and scalar transfers.
    'vmovdqu': M.move, 'vmovdqu8': M.move, 'vmovdqu16': M.move, 'vmovdqu32': M.move,
    'vmovdqu64': M.move, 'vmovups': M.move,
    'vmovdqa': lambda m, s, d: m.move(s, d, aligned=True),
    'vmovdqa32': lambda m, s, d: m.move(s, d, aligned=True),
    'vmovdqa64': lambda m, s, d: m.move(s, d, aligned=True),
    'vmovaps': lambda m, s, d: m.move(s, d, aligned=True),
    'vmovq': lambda m, s, d: m.movq(s, d, 8), 'vmovd': lambda m, s, d: m.movq(s, d, 4),
    'movq': lambda m, s, d: m.movq(s, d, 8, legacy=True),
    'movd': lambda m, s, d: m.movq(s, d, 4, legacy=True),
    'vpinsrd': lambda m, *ops: m.insr(*ops, 4), 'vpinsrq': lambda m, *ops: m.insr(*ops, 8),
    'vpextrd': lambda m, *ops: m.extr(*ops, 4), 'vpextrq': lambda m, *ops: m.extr(*ops, 8),
    # Bitwise and arithmetic.
    'vpaddd': lambda m, *ops: m.elementwise(*ops, lambda a, b: a + b, 4),
    'vpaddq': lambda m, *ops: m.elementwise(*ops, lambda a, b: a + b, 8),
    'vpsubd': lambda m, *ops: m.elementwise(*ops, lambda a, b: a - b, 4),
    'vpsubq': lambda m, *ops: m.elementwise(*ops, lambda a, b: a - b, 8),
    'vpternlogd': M.ternlog, 'vpternlogq': M.ternlog,
    # Shuffles and shifts within 128-bit lanes.
    'vpshufb': lambda m, *ops: m.lanes(*ops, shuffle_bytes),
    'vpshufd': lambda m, imm, s, d: m.lanes1(s, d, lambda a: dword_shuffle(a, imm.value)),
    'vpalignr': lambda m, imm, *ops: m.lanes(*ops, lambda a, b: align_lane(a, b, imm.value)),
    'vpsrldq': lambda m, imm, s, d: m.lanes1(
        s, d, lambda a: (a + bytes(16))[min(imm.value, 16):][:16]),
    'vpslldq': lambda m, imm, s, d: m.lanes1(
        s, d, lambda a: (bytes(16) + a)[16 - min(imm.value, 16):][:16]),
    'vpunpcklqdq': lambda m, *ops: m.lanes(*ops, lambda a, b: a[:8] + b[:8]),
    'vpunpckhqdq': lambda m, *ops: m.lanes(*ops, lambda a, b: a[8:] + b[8:]),
    'vpclmulqdq': None,                            # objdump's aliases below, or with an immediate
    'vaesenc': lambda m, *ops: m.lanes(*ops, lambda s, k: aes_round(s, k, last=False)),
    'vaesenclast': lambda m, *ops: m.lanes(*ops, lambda s, k: aes_round(s, k, last=True)),
    # Across lanes.
    'vpermq': M.permq, 'vshufi64x2': M.shuf128, 'vshufi32x4': M.shuf128,
    'vperm2i128': M.perm2i128, 'vpblendd': M.blendd,
    'vbroadcasti128': lambda m, s, d: m.broadcast(s, d, 16, memory_only=True),
    'vbroadcasti32x4': lambda m, s, d: m.broadcast(s, d, 16, memory_only=True),
    'vbroadcasti64x2': lambda m, s, d: m.broadcast(s, d, 16, memory_only=True),
    'vbroadcasti64x4': lambda m, s, d: m.broadcast(s, d, 32, memory_only=True),
    'vbroadcasti32x8': lambda m, s, d: m.broadcast(s, d, 32, memory_only=True),
    'vpbroadcastq': lambda m, s, d: m.broadcast(s, d, 8),
    'vpbroadcastd': lambda m, s, d: m.broadcast(s, d, 4),
    'vpbroadcastb': lambda m, s, d: m.broadcast(s, d, 1),
    'vzeroupper': M.vzeroupper, 'vzeroall': M.vzeroall,
}
for kind in ('shl', 'sal', 'shr', 'sar'):
    HANDLERS[kind] = lambda m, *ops, kind=kind: m.shift(*ops, kind=kind.replace('sal', 'shl'))
for name, size in [('128', 16), ('32x4', 16), ('64x2', 16), ('64x4', 32), ('32x8', 32)]:
    HANDLERS['vinserti' + name] = lambda m, *ops, size=size: m.insert(*ops, size)
    HANDLERS['vextracti' + name] = lambda m, *ops, size=size: m.extract(*ops, size)
for name, fn in [('xor', lambda a, b: a ^ b), ('and', lambda a, b: a & b),
                 ('or', lambda a, b: a | b), ('andn', lambda a, b: ~a & b)]:
    for suffix in ('', 'd', 'q'):
        HANDLERS['vp' + name + suffix] = lambda m, *ops, fn=fn: m.bitwise(*ops, fn)
for imm, alias in [(0x00, 'lqlq'), (0x01, 'hqlq'), (0x10, 'lqhq'), (0x11, 'hqhq')]:
    HANDLERS['vpclmul%sdq' % alias] = lambda m, *ops, imm=imm: m.lanes(
        *ops, lambda a, b: pclmul_lane(a, b, imm))
HANDLERS['vpclmulqdq'] = lambda m, imm, *ops: m.lanes(
    *ops, lambda a, b: pclmul_lane(a, b, imm.value))
for esize, suffix in [(2, 'w'), (4, 'd'), (8, 'q')]:
    for kind in ('sll', 'srl', 'sra'):
        HANDLERS['vp%s%s' % (kind, suffix)] = \
            lambda m, c, s, d, esize=esize, kind=kind: m.shift_elems(c, s, d, esize, kind)
for cond in CONDITIONS:
    HANDLERS['j' + cond] = lambda m, target, cond=cond: m.jcc(cond, target)
    HANDLERS['set' + cond] = lambda m, d, cond=cond: \
        m.put_int(d, int(bool(CONDITIONS[cond](m.flag))), 8)
    HANDLERS['cmov' + cond] = lambda m, s, d, cond=cond: \
        m.put_int(d, m.get_int(s if CONDITIONS[cond](m.flag) else d, d.bits), d.bits)
for suffix, bits in [('b', 8), ('w', 16), ('d', 32), ('q', 64)]:
    HANDLERS['kmov' + suffix] = lambda m, s, d, bits=bits: m.kmov(s, d, bits)
    HANDLERS['kortest' + suffix] = lambda m, a, b, bits=bits: m.kortest(a, b, bits)
    for name, fn in [('kand', lambda a, b: a & b), ('kor', lambda a, b: a | b),
                     ('kxor', lambda a, b: a ^ b), ('kxnor', lambda a, b: ~(a ^ b)),
                     ('kandn', lambda a, b: ~a & b)]:
        HANDLERS[name + suffix] = lambda m, *ops, fn=fn, bits=bits: m.kop(*ops, fn=fn, bits=bits)
    HANDLERS['knot' + suffix] = lambda m, *ops, bits=bits: m.kop(*ops, fn=lambda a: ~a, bits=bits)
    HANDLERS['kshiftl' + suffix] = lambda m, imm, s, d, bits=bits: \
        m.put_int(d, (m.k[s.index] % 2**bits) << imm.value if imm.value < bits else 0, bits)
    HANDLERS['kshiftr' + suffix] = lambda m, imm, s, d, bits=bits: \
        m.put_int(d, (m.k[s.index] % 2**bits) >> imm.value, bits)
HANDLERS['andn'] = lambda m, s2, s1, d: m.put_int(d, ~m.get_int(s1) & m.get_int(s2, s1.bits))
# GPR mnemonics objdump may print with a size suffix (addq $1, (%rax)): the size comes from it.
SIZED = {'mov', 'add', 'sub', 'cmp', 'and', 'or', 'xor', 'test', 'inc', 'dec', 'neg', 'not', 'shl',
         'shr', 'sar', 'sal', 'push', 'pop', 'imul'}

# Element size of each instruction that takes an AVX-512 mask ({k}): merging or zeroing per
# element, and, for the loads in MASKED_LOADS, no access at all to masked-off memory elements.
MASKABLE = {'vmovdqu8': 1, 'vmovdqu16': 2, 'vmovdqu32': 4, 'vmovdqu64': 8, 'vmovdqa32': 4,
            'vmovdqa64': 8, 'vpxord': 4, 'vpxorq': 8, 'vpandd': 4, 'vpandq': 8, 'vpord': 4,
            'vporq': 8, 'vpandnd': 4, 'vpandnq': 8, 'vpaddd': 4, 'vpaddq': 8, 'vpsubd': 4,
            'vpsubq': 8, 'vpternlogd': 4, 'vpternlogq': 8, 'vpshufb': 1, 'vpshufd': 4,
            'vpalignr': 1, 'vpunpcklqdq': 8, 'vpunpckhqdq': 8, 'vpermq': 8, 'vshufi64x2': 8,
            'vshufi32x4': 4, 'vinserti32x4': 4, 'vinserti64x2': 8, 'vinserti64x4': 8,
            'vinserti32x8': 4, 'vextracti32x4': 4, 'vextracti64x2': 8, 'vextracti64x4': 8,
            'vextracti32x8': 4, 'vbroadcasti32x4': 4, 'vbroadcasti64x2': 8,
            'vbroadcasti64x4': 8, 'vbroadcasti32x8': 4, 'vpbroadcastq': 8, 'vpbroadcastd': 4,
            'vpbroadcastb': 1, 'vpsllq': 8, 'vpsrlq': 8, 'vpsraq': 8, 'vpslld': 4, 'vpsrld': 4,
            'vpsrad': 4}
MASKED_LOADS = {m for m in MASKABLE if m.startswith('vmovdqu') or m.startswith('vmovdqa') or
                m[2:5] in ('xor', 'and', 'or', 'add', 'sub', 'ter')}


# ---- Calls: SysV arguments, a stack with the return address, and the buffers --------------------

STACK_TOP = 0x7ff08         # rsp at entry: rsp + 8 is 16-byte aligned, as SysV requires


def call(fn, args, regions, rng, check_abi=True, trace=False):
    """Runs FN(*args) on a fresh machine with `regions` (the buffers) and FN's data sections;
    returns the machine. Arguments 7 and up go on the stack above the return address."""
    insns, sections = fn
    stack_args = args[6:]
    stack = [Region('stack', STACK_TOP - 0x1000, rng.randbytes(0x1000), readable=False,
                    writable=True),
             Region('return address', STACK_TOP, RETURN_ADDRESS.to_bytes(8, 'little'))]
    if stack_args:
        stack.append(Region('stack argument', STACK_TOP + 8,
                            b''.join(a.to_bytes(8, 'little') for a in stack_args)))
    data = [Region(name, addr, content) for name, (addr, content) in sections.items()]
    machine = Machine(insns, Memory(regions + stack + data), rng)
    machine.gpr.update(zip(ARG_REGS, args))
    machine.gpr['rsp'] = STACK_TOP
    if trace:
        machine.pcs, machine.mem.trace = [], []
    machine.run(check_abi)
    return machine


def buffer(rng, name, base, data, **kw):
    """A region at base + a random misalignment (0..63)."""
    return Region(name, base + rng.randrange(64), data, **kw)


def key_regions(key):
    round_keys, rounds = expand_key(key)
    return [Region('key->rk', 0x10010, round_keys[:16 * (rounds + 1)]),
            Region('key->rounds', 0x10010 + 240, rounds.to_bytes(4, 'little'))]


KEY_ADDR, HKEY_ADDR = 0x10010, 0x20010   # the key and the table: 16-byte aligned only (the ABI)


class Native:
    """The 256-bit kernels on this CPU, through test/vaes_model_native.c."""
    def __init__(self, path):
        self.lib = ctypes.CDLL(os.path.abspath(path))
        self.lib.vaes_model_native_fn.restype = ctypes.c_void_p
        self.lib.vaes_model_native_fn.argtypes = [ctypes.c_char_p]
        self.keep = []

    def fn(self, name, nargs):
        addr = self.lib.vaes_model_native_fn(name.encode())
        if not addr:
            raise ModelError('%s does not export %s' % ('the native library', name))
        args = [ctypes.c_void_p] * (nargs - 1) + [ctypes.c_size_t]
        return ctypes.CFUNCTYPE(None, *args)(addr)

    def buf(self, data, size=None, align=None):
        """A buffer holding data (and then zeros up to size); aligned to 16 if align."""
        size = max(size or len(data), 1)
        raw = ctypes.create_string_buffer(size + 64)
        off = (-ctypes.addressof(raw)) % 16 if align else 1 + (-ctypes.addressof(raw)) % 16
        ctypes.memmove(ctypes.addressof(raw) + off, data, len(data))
        self.keep.append(raw)
        return ctypes.addressof(raw) + off

    @staticmethod
    def read(addr, n):
        return ctypes.string_at(addr, n)

    def key(self, key):
        round_keys, rounds = expand_key(key)
        return self.buf(round_keys + bytes(240 - len(round_keys)) + rounds.to_bytes(4, 'little'),
                        1216, align=True)


def cpu_runs_avx2_tier():
    try:
        with open('/proc/cpuinfo') as f:
            flags = set(re.search(r'^flags\s*:(.*)$', f.read(), re.M).group(1).split())
    except (OSError, AttributeError):
        return False
    return {'avx2', 'vaes', 'vpclmulqdq', 'bmi2', 'aes', 'pclmulqdq'} <= flags


# ---- The cases -----------------------------------------------------------------------------------

CTR_NBLOCKS = list(range(70)) + [127, 128, 129, 255]
GCM_NBLOCKS = list(range(41)) + [64, 100, 257]
# More of the 16-block loop with every tail length, once each (AES-128 for speed).
GCM_NBLOCKS_LONG = [47, 48, 49, 63, 65, 79, 95, 111, 127, 128, 129, 143, 159, 175, 191, 207, 223,
                    239, 255, 256, 270, 303, 512]


class Tester:
    def __init__(self, fns, openssl, rng, native, what):
        self.fns, self.openssl, self.rng, self.native = fns, openssl, rng, native
        self.what, self.kind = what, KINDS[what]
        self.passed = self.failed = 0

    def result(self, what, problem):
        self.passed, self.failed = self.passed + (not problem), self.failed + bool(problem)
        if problem and self.failed <= MAX_PRINTED:
            print('FAIL %s: %s' % (what, problem))
        elif problem and self.failed == MAX_PRINTED + 1:
            print('(further failures counted, not printed)')

    def run(self, name, args, regions):
        """None, or what the Fault says."""
        try:
            call(self.fns[name], args, regions, self.rng)
        except Fault as e:
            return str(e)
        return None

    # ctr32_xor, ctr32le_xor
    def ctr_case(self, key, nblocks, ctr, in_place):
        rng, fname = self.rng, self.fns['name'] + self.what
        plaintext = rng.randbytes(16 * nblocks)
        inb = buffer(rng, 'in', 0x40000, plaintext, writable=in_place)
        out = inb if in_place else buffer(rng, 'out', 0x60000, rng.randbytes(16 * nblocks),
                                          readable=False, writable=True)
        ctrb = buffer(rng, 'ctr', 0x30000, ctr)
        regions = key_regions(key) + [ctrb, inb] + ([] if in_place else [out])
        problem = self.run(self.what, [KEY_ADDR, ctrb.start, inb.start, out.start, nblocks],
                           regions)
        expected = xor(plaintext, self.openssl.ecb_encrypt(key, counter_blocks(ctr, 0, nblocks,
                                                                               self.kind.fmt)))
        if not problem:
            problem = self.compare_blocks('out', out.data, expected)
        if not problem and self.native:
            n = self.native
            got = n.buf(bytes(16 * nblocks))
            src = got if in_place else n.buf(plaintext)
            if in_place:
                ctypes.memmove(got, plaintext, len(plaintext))
            n.fn(fname, 5)(n.key(key), n.buf(ctr), src, got, nblocks)
            if n.read(got, 16 * nblocks) != bytes(out.data):
                problem = 'the CPU and the model disagree (out): a model bug'
        return problem

    @staticmethod
    def compare_blocks(what, got, expected):
        wrong = [i for i in range(len(expected) // 16)
                 if bytes(got[16 * i:16 * i + 16]) != expected[16 * i:16 * i + 16]]
        if wrong:
            return 'wrong %s in %d of %d blocks, from block %d' % (what, len(wrong),
                                                                    len(expected) // 16, wrong[0])
        return None

    # The hash-key table: ghash_init or polyval_init on the model (and on the CPU), cached per H.
    def table(self, h):
        if h in self.tables:
            return self.tables[h]
        hb = buffer(self.rng, 'h', 0x24000, h)
        hkey = Region('hkey', HKEY_ADDR, self.rng.randbytes(1024), readable=False, writable=True)
        call(self.fns[self.kind.init], [HKEY_ADDR, hb.start], [hb, hkey], self.rng)
        native = None
        if self.native:
            n = self.native
            native = n.buf(bytes(1024), align=True)
            n.fn(self.fns['name'] + self.kind.init, 2)(native, n.buf(h))
            written = [i for i in range(1024) if hkey.written[i]]
            if any(n.read(native, 1024)[i] != hkey.data[i] for i in written):
                raise Fault('the CPU and the model disagree (hash-key table): a model bug')
        self.tables[h] = (bytes(hkey.data), bytes(hkey.written), native)
        return self.tables[h]

    def hkey_region(self, h):
        data, written, _ = self.table(h)
        r = Region('hkey', HKEY_ADDR, data)
        r.valid = bytearray(written)              # only what the init function wrote may be read
        return r

    def ghash_case(self, h, acc, data):
        """One call of ghash (or polyval) on the model (and the CPU) against the reference."""
        rng, hname = self.rng, self.kind.hash
        try:
            hkey = self.hkey_region(h)
        except Fault as e:
            return '%s: %s' % (self.kind.init, e)
        accb = buffer(rng, 'acc', 0x28000, acc, writable=True)
        inb = buffer(rng, 'in', 0x40000, data)
        nblocks = len(data) // 16
        problem = self.run(hname, [HKEY_ADDR, accb.start, inb.start, nblocks],
                           [hkey, accb, inb])
        if problem:
            return problem
        got, expected = bytes(accb.data), HASH_REF[hname](h, acc, data)
        if got != expected:
            return 'wrong acc: got %s, expected %s' % (got.hex(), expected.hex())
        if self.native:
            n = self.native
            nacc = n.buf(acc)
            n.fn(self.fns['name'] + hname, 4)(self.table(h)[2], nacc, n.buf(data), nblocks)
            if n.read(nacc, 16) != got:
                return 'the CPU and the model disagree (acc): a model bug'
        return None

    def gcm_call(self, fname, key, h, acc, ctr, data, in_place):
        """(out, acc) from one call of a stitched function (gcm_ctr_then_hash, gcm_hash_then_ctr,
        gcmsiv_ctr_then_hash) on the model, checked against the CPU when native; raises Fault."""
        rng = self.rng
        hkey = self.hkey_region(h)
        nblocks = len(data) // 16
        accb = buffer(rng, 'acc', 0x28000, acc, writable=True)
        ctrb = buffer(rng, 'ctr', 0x30000, ctr)
        inb = buffer(rng, 'in', 0x40000, data, writable=in_place)
        out = inb if in_place else buffer(rng, 'out', 0x60000, rng.randbytes(len(data)),
                                          readable=False, writable=True)
        regions = key_regions(key) + [hkey, accb, ctrb, inb] + ([] if in_place else [out])
        call(self.fns[fname], [KEY_ADDR, HKEY_ADDR, accb.start, ctrb.start, inb.start, out.start,
                               nblocks], regions, rng)
        got_out, got_acc = bytes(out.data), bytes(accb.data)
        if self.native:
            n = self.native
            nacc, nout = n.buf(acc), n.buf(data if in_place else b'', len(data))
            nin = nout if in_place else n.buf(data)
            n.fn(self.fns['name'] + fname, 7)(n.key(key), self.table(h)[2], nacc, n.buf(ctr),
                                              nin, nout, nblocks)
            if n.read(nout, len(data)) != got_out or n.read(nacc, 16) != got_acc:
                raise Fault('the CPU and the model disagree (%s): a model bug' % (
                    'out' if n.read(nout, len(data)) != got_out else 'acc'))
        return got_out, got_acc

    def short_case(self, key, aadlen, length, in_place, ctr_low=None):
        """One gcmsiv_seal_short / _open_short call against siv_short_expected."""
        rng, seal = self.rng, self.kind.hash_out
        aad, data = rng.randbytes(aadlen), rng.randbytes(length)
        auth, nonce, tag = rng.randbytes(16), rng.randbytes(12), rng.randbytes(16)
        if not seal and ctr_low is not None:        # (seal: whatever the struct held before)
            tag = ctr_low.to_bytes(4, 'little') + tag[4:]
        regions, out, msg = siv_short_regions(rng, key, auth, nonce, aad, data, tag, in_place)
        problem = self.run(self.what, [KEY_ADDR, SIV_MSG_ADDR], regions)
        if problem:
            return problem
        want_out, want_tag = siv_short_expected(self.openssl, key, auth, nonce, aad, data, tag,
                                                seal)
        got_tag = bytes(msg.data[64:80])
        if bytes(out.data) != want_out:
            return self.compare_blocks('out', bytes(out.data) + bytes(-length % 16),
                                       want_out + bytes(-length % 16))
        if got_tag != want_tag:
            return 'wrong tag: got %s, expected %s' % (got_tag.hex(), want_tag.hex())
        if any(msg.written[:64]):
            return 'wrote into the message other than its tag'
        return None

    def gcm_expected(self, fname, key, h, acc, ctr, data):
        k = KINDS[fname]
        out = xor(data, self.openssl.ecb_encrypt(key, counter_blocks(ctr, 0, len(data) // 16,
                                                                     k.fmt)))
        return out, HASH_REF[k.hash](h, acc, out if k.hash_out else data)

    def gcm_case(self, fname, key, h, acc, ctr, splits, in_place):
        """The calls of `splits` (block counts), chained, against one reference call."""
        data = self.rng.randbytes(16 * sum(splits))
        expected = self.gcm_expected(fname, key, h, acc, ctr, data)
        out, a, done = b'', acc, 0
        try:
            for n in splits:
                o, a = self.gcm_call(fname, key, h, a, add_ctr(ctr, done, self.kind.fmt),
                                     data[16 * done:16 * (done + n)], in_place)
                out, done = out + o, done + n
        except Fault as e:
            return str(e)
        return self.compare_blocks('out', out, expected[0]) or (
            None if a == expected[1] else 'wrong acc: got %s, expected %s' % (a.hex(),
                                                                               expected[1].hex()))


def msg_regions(rng, key, hkey, acc, j0, queue, aadlen, data, in_place, flags, at=None):
    """The regions and arguments of a gcm_seal_msg / gcm_open_msg call: the message state, of
    which only the queue's first nqueue blocks, acc, j0, nqueue, aadlen and flags may be read,
    in and out. at(i, base): where buffer i goes (default: misaligned at random)."""
    at = at or (lambda i, base: base + rng.randrange(64))
    nq = len(queue) // 16
    state = bytearray(rng.randbytes(MSG_BYTES))
    state[MSG_QUEUE:MSG_QUEUE + len(queue)] = queue
    state[MSG_ACC:MSG_ACC + 16], state[MSG_J0:MSG_J0 + 16] = acc, j0
    state[MSG_NQUEUE:MSG_NQUEUE + 8] = nq.to_bytes(8, 'little')
    state[MSG_AADLEN:MSG_AADLEN + 8] = aadlen.to_bytes(8, 'little')
    state[MSG_FLAGS:MSG_FLAGS + 8] = flags.to_bytes(8, 'little')
    msg = Region('msg', MSG_ADDR + 16 * (at(0, 0) % 4), state, writable=True)
    msg.valid[len(queue):MSG_ACC] = bytes(MSG_ACC - len(queue))
    msg.valid[MSG_TAG:MSG_TAG + 16] = bytes(16)
    inb = Region('in', at(1, 0x40000), data, writable=in_place)
    out = inb if in_place else Region('out', at(2, 0x60000), rng.randbytes(len(data)),
                                      readable=False, writable=True)
    regions = key_regions(key) + [hkey, msg, inb] + ([] if in_place else [out])
    return regions, [KEY_ADDR, HKEY_ADDR, msg.start, inb.start, out.start, len(data)], msg, out


def msg_case(t, fname, key, h, acc, j0, queue, aadlen, data, in_place, flags):
    """One call of gcm_seal_msg or gcm_open_msg against the references (see the top)."""
    rng, k = t.rng, KINDS[fname]
    try:
        hkey = t.hkey_region(h)
    except Fault as e:
        return '%s: %s' % (k.init, e)
    regions, args, msg, out = msg_regions(rng, key, hkey, acc, j0, queue, aadlen, data, in_place,
                                          flags)
    try:
        call(t.fns[fname], args, regions, rng)
    except Fault as e:
        return str(e)
    n, m = len(data), (len(data) + 15) // 16
    keystream = t.openssl.ecb_encrypt(key, counter_blocks(j0, 1, m))
    want_out = xor(data, keystream[:n])
    hashed = (want_out if k.hash_out else data) + bytes(16 * m - n)
    lens = (8 * aadlen).to_bytes(8, 'big') + (8 * n).to_bytes(8, 'big')
    want_tag = xor(ghash_ref(h, acc, queue + hashed + lens), t.openssl.ecb_encrypt(key, j0))
    state = bytes(msg.data)
    if bytes(out.data) != want_out:
        return Tester.compare_blocks('out', out.data, want_out + bytes(-n % 16)) or 'wrong out'
    if state[MSG_TAG:MSG_TAG + 16] != want_tag:
        return 'wrong tag: got %s, expected %s' % (state[MSG_TAG:MSG_TAG + 16].hex(),
                                                   want_tag.hex())
    if state[MSG_J0:MSG_J0 + 16] != j0 or state[MSG_AADLEN:MSG_BYTES] != \
            aadlen.to_bytes(8, 'little') + flags.to_bytes(8, 'little'):
        return 'j0, aadlen or flags changed'
    nq = int.from_bytes(state[MSG_NQUEUE:MSG_NQUEUE + 8], 'little')
    if nq > 31:
        return '%d blocks queued on return (at most 31)' % nq
    left = ghash_ref(h, state[MSG_ACC:MSG_ACC + 16], state[MSG_QUEUE:MSG_QUEUE + 16 * nq])
    if left != ghash_ref(h, acc, queue + hashed):
        return 'the state left (acc and %d queued blocks) is not the hash so far' % nq
    if n % 16 and (nq == 0 or state[MSG_QUEUE + 16 * (nq - 1):MSG_QUEUE + 16 * nq] != hashed[-16:]):
        return 'the queue left does not end with the partial block'
    return None


SIV_MSG_ADDR = 0x38000             # the aesfast_gcmsiv_msg (8-byte aligned, as C lays it out)


def siv_short_expected(openssl, key, auth, nonce, aad, data, tag, seal):
    """(out, tag) of a whole GCM-SIV message from its keys: seal makes the tag and encrypts with
    it; open decrypts with the tag given and returns the tag of the plaintext."""
    pad = lambda b: b + bytes(-len(b) % 16)
    keystream = lambda t: openssl.ecb_encrypt(key, counter_blocks(
        t[:15] + bytes([t[15] | 0x80]), 0, (len(data) + 15) // 16, 'ctr32le'))[:len(data)]
    plain = data if seal else xor(data, keystream(tag))
    lens = (8 * len(aad)).to_bytes(8, 'little') + (8 * len(data)).to_bytes(8, 'little')
    s = bytearray(xor(polyval_ref(auth, bytes(16), pad(aad) + pad(plain) + lens),
                      nonce + bytes(4)))
    s[15] &= 0x7f
    made = openssl.ecb_encrypt(key, bytes(s))
    return (xor(data, keystream(made)) if seal else plain), made


def siv_short_regions(rng, key, auth, nonce, aad, data, tag, in_place, at=None):
    """The buffers and the message of one short call; `at` (6 offsets) fixes the misalignments
    (the constant-time runs), else random ones."""
    naad = (len(aad) + 15) // 16
    place = (lambda i, name, base, d, **kw: Region(name, base + at[i], d, **kw)) if at else \
        (lambda i, name, base, d, **kw: buffer(rng, name, base, d, **kw))
    aadb = place(0, 'aad', 0x24000, aad + bytes(16 * naad - len(aad)))
    nonceb = place(1, 'nonce', 0x26000, nonce)
    authb = place(2, 'auth', 0x28000, auth)
    inb = place(3, 'in', 0x40000, data, writable=in_place)
    out = inb if in_place else place(4, 'out', 0x60000, rng.randbytes(len(data)), readable=False,
                                     writable=True)
    msg = Region('msg', SIV_MSG_ADDR, b''.join(v.to_bytes(8, 'little') for v in (
        nonceb.start, authb.start, aadb.start, inb.start, out.start, naad, len(aad),
        len(data))) + tag, writable=True)
    regions = key_regions(key) + [aadb, nonceb, authb, inb, msg] + ([] if in_place else [out])
    return regions, out, msg


def ct_case(t, what, key_len, nblocks, in_place):
    """Constant time: two calls with the same lengths and buffer addresses but other key, H, acc,
    counter and data must execute the same instructions and touch the same addresses."""
    rng, traces = t.rng, []
    offsets = [rng.randrange(64) for _ in range(6)]
    offsets_j0 = rng.randbytes(16)
    fname, k = what, KINDS[what]
    for _ in range(2):
        key, h = rng.randbytes(key_len), rng.randbytes(16)
        at = lambda i, base: base + offsets[i]
        acc = Region('acc', at(0, 0x28000), rng.randbytes(16), writable=True)
        # (a public counter, as a _pub function's, is the same in both runs: it may branch on it)
        ctr = Region('ctr', at(1, 0x30000), offsets_j0 if k.pub else rng.randbytes(16))
        inb = Region('in', at(2, 0x40000), rng.randbytes(16 * nblocks), writable=in_place)
        out = inb if in_place else Region('out', at(3, 0x60000), bytes(16 * nblocks),
                                          readable=False, writable=True)
        hb = Region('h', at(4, 0x24000), h)
        bufs = [inb] + ([] if in_place else [out])
        if k.msg:       # nblocks: data of 16 nblocks - nblocks % 3 bytes; a public J0 is the
            n, nq = max(16 * nblocks - nblocks % 3, 0), nblocks % 5     # same in both runs
            public = nblocks % 2
            j0 = offsets_j0 if public else rng.randbytes(16)
            regions, args, _, _ = msg_regions(
                rng, key, t.hkey_region(h), rng.randbytes(16), j0, rng.randbytes(16 * nq),
                16 * nq, rng.randbytes(n), in_place, MSG_CTR_PUBLIC if public else 0,
                at=lambda i, base: base + offsets[i])
        elif what == k.init:
            regions = [hb, Region('hkey', HKEY_ADDR, bytes(1024), readable=False, writable=True)]
            args = [HKEY_ADDR, hb.start]
        elif k.hash is None:                      # ctr32_xor, ctr32le_xor
            regions, args = key_regions(key) + [ctr] + bufs, [KEY_ADDR, ctr.start, inb.start,
                                                              out.start, nblocks]
        elif what == k.hash:
            regions, args = [t.hkey_region(h), acc, inb], [HKEY_ADDR, acc.start, inb.start,
                                                           nblocks]
        else:
            regions = key_regions(key) + [t.hkey_region(h), acc, ctr] + bufs
            args = [KEY_ADDR, HKEY_ADDR, acc.start, ctr.start, inb.start, out.start, nblocks]
        try:
            m = call(t.fns[fname], args, regions, rng, trace=True)
        except Fault as e:
            return str(e)
        traces.append((m.pcs, m.mem.trace))
    return compare_traces(t, fname, traces)


def ct_short_case(t, what, key_len, aadlen, length, in_place):
    """Constant time, a short message: other keys, nonce, AAD, data and tag, the same lengths
    and addresses, must execute the same instructions and touch the same addresses."""
    rng, traces = t.rng, []
    at = [rng.randrange(64) for _ in range(6)]
    for _ in range(2):
        regions = siv_short_regions(rng, rng.randbytes(key_len), rng.randbytes(16),
                                    rng.randbytes(12), rng.randbytes(aadlen),
                                    rng.randbytes(length), rng.randbytes(16), in_place, at)[0]
        try:
            m = call(t.fns[what], [KEY_ADDR, SIV_MSG_ADDR], regions, rng, trace=True)
        except Fault as e:
            return str(e)
        traces.append((m.pcs, m.mem.trace))
    return compare_traces(t, what, traces)


def compare_traces(t, fname, traces):
    (pcs1, mem1), (pcs2, mem2) = traces
    if pcs1 != pcs2:
        step = next((i for i, (a, b) in enumerate(zip(pcs1, pcs2)) if a != b), min(len(pcs1),
                                                                                  len(pcs2)))
        insn = t.fns[fname][0][pcs1[step - 1] if step else 0]
        return 'control flow depends on secrets: the runs diverge after step %d (%s)' % (
            step, insn.text)
    if mem1 != mem2:
        i = next((i for i, (a, b) in enumerate(zip(mem1, mem2)) if a != b), 0)
        return 'memory addresses depend on secrets: access %d differs (%#x vs %#x)' % (
            i, mem1[i][0], mem2[i][0])
    return None


def test_constant_time(t, what):
    counts = [0, 1, 2, 3, 4, 5, 8, 15, 16, 17, 31, 32, 33, 47, 64]
    k = KINDS[what]
    if what in SHORT_KINDS:
        for key_len, aadlen, length in [(16, 0, 0), (16, 13, 16), (24, 20, 1), (32, 128, 300),
                                        (16, 0, 496), (32, 3, 63), (16, 48, 64)]:
            t.result('constant time AES-%d aad=%d len=%d' % (8 * key_len, aadlen, length),
                     ct_short_case(t, what, key_len, aadlen, length, length % 2 == 1))
        return
    if what == k.init:
        t.result('constant time', ct_case(t, what, 16, 0, False))
        return
    for key_len in ((16, 24, 32) if what != k.hash else (16,)):
        for case, nblocks in enumerate(counts):
            in_place = case % 3 == 1
            t.result('constant time%s nblocks=%d%s' % (
                '' if what == k.hash else ' AES-%d' % (8 * key_len), nblocks,
                ' in place' if in_place else ''),
                     ct_case(t, what, key_len, nblocks, in_place))


def random_ctr(rng, case, nblocks, fmt='ctr32', pub=False):
    ctr = bytearray(rng.randbytes(16))
    if case % 3 == 0:                         # the counter word wraps inside the call (n >= 2)
        low = 2**32 - 1 - rng.randrange(max(nblocks - 1, 1))
        if fmt == 'ctr32le':
            ctr[:4] = low.to_bytes(4, 'little')
        else:
            ctr[12:] = low.to_bytes(4, 'big')
    elif pub and case % 3 == 1:               # the last byte near 0xff: a group of 16 carries
        ctr[15] = 0xff - rng.randrange(32)
    elif pub and case % 6 == 2:               # 2 mod 32, a message's first: 512-bit groups by XOR
        ctr[15] = 2 + 32 * rng.randrange(8)
    return bytes(ctr)


def test_msg(t, what):
    """gcm_seal_msg, gcm_open_msg: the cases of the top of this file."""
    rng = t.rng
    for key_len in (16, 24, 32):
        key = rng.randbytes(key_len)
        h = t.openssl.ecb_encrypt(key, bytes(16))
        cases = []                                # (queued blocks, data bytes)
        for n in range(81) if key_len == 16 else range(0, 81, 7):
            cases.append((n % 3, n))
        for m in range(5, 65, 1 if key_len == 16 else 9):
            cases += [(m % 2, 16 * m - 1), (m % 3, 16 * m), (1, 16 * m + 1)]
        for p in (0, 1, 2, 5, 20, 31):            # one group of powers: P + m + 1 = 31, 32, 33
            for d in (-1, 0, 1):
                m = 31 - p + d
                if m >= 0:
                    cases += [(p, 16 * m), (p, max(16 * m - 7, 0))]
        cases += [(0, 497), (3, 511), (0, 511), (1, 512), (2, 1535), (0, 2048 + 5)]
        for case, (nq, n) in enumerate(cases):
            j0 = rng.randbytes(12) + (b'\0\0\0\1' if case % 3 else rng.randbytes(4))
            if case % 7 == 2:                     # the data's counters wrap past 2^32
                j0 = j0[:12] + (2**32 - 1 - rng.randrange(max((n + 15) // 16, 1))).to_bytes(4, 'big')
            acc = rng.randbytes(16) if case % 4 else bytes(16)
            aadlen = max(16 * nq - case % 16, 0)
            in_place = case % 5 == 0
            flags = MSG_CTR_PUBLIC if case % 3 or case % 7 == 2 else 0
            t.result('AES-%d %d bytes, %d queued, J0=%s%s%s' % (
                8 * key_len, n, nq, j0.hex(), ' public' if flags else '',
                ' in place' if in_place else ''),
                msg_case(t, what, key, h, acc, j0, rng.randbytes(16 * nq), aadlen,
                         rng.randbytes(n), in_place, flags))


def test_short(t, what):
    """Every AAD block count the provider passes (0..8) with data lengths at and beside every
    vector edge up to the tier's bound, AES-128; a spread of cases for AES-192 and AES-256."""
    rng, bound = t.rng, SHORT_BLOCKS[t.fns['name'][len('aesfast_'):-1]]
    for key_len in (16, 24, 32):
        for naad in range(9) if key_len == 16 else (0, 1, 3, 8):
            most = 16 * (bound - naad - 1)           # the longest data the bound allows
            lengths = sorted({n for n in [0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65,
                                          127, 128, 129, most - 17, most - 16, most - 15,
                                          most - 1, most] if 0 <= n <= most})
            if key_len != 16:
                lengths = lengths[::3] + [most]
            for case, length in enumerate(lengths):
                aadlen = 16 * naad - (case % 16 if naad and case % 3 else 0)
                key, in_place = rng.randbytes(key_len), case % 4 == 1
                low = 2**32 - 1 - rng.randrange(max((length + 15) // 16, 1)) if case % 2 else None
                t.result('AES-%d aad=%d len=%d%s%s' % (
                    8 * key_len, aadlen, length, ' in place' if in_place else '',
                    '' if low is None else ' ctr=%#x' % low),
                    t.short_case(key, aadlen, length, in_place, low))


def test_function(t, what):
    rng, k = t.rng, KINDS[what]
    random_ctr_k = lambda rng, case, nblocks: random_ctr(rng, case, nblocks, k.fmt, k.pub)
    if what in SHORT_KINDS:
        test_short(t, what)
    elif k.hash is None:
        for key_len in (16, 24, 32):
            for case, nblocks in enumerate(CTR_NBLOCKS):
                ctr, in_place = random_ctr_k(rng, case, nblocks), case % 5 == 0
                key = rng.randbytes(key_len)
                t.result('AES-%d nblocks=%d ctr=%s%s' % (8 * key_len, nblocks, ctr.hex(),
                                                          ' in place' if in_place else ''),
                         t.ctr_case(key, nblocks, ctr, in_place))
    elif what in (k.hash, k.init):
        hs = [rng.randbytes(16), b'\x80' + bytes(15), bytes(15) + b'\x01', b'\xff' * 16]
        counts = GCM_NBLOCKS if what == k.hash else [1, 2, 7, 8, 16, 31, 32, 33, 64, 257]
        if what == 'polyval_init_few':            # its table serves up to AESFAST_HASH_FEW
            counts = list(range(9))
        if what == k.init:
            hs = [rng.randbytes(16) for _ in range(6)] + hs + [bytes(16)]
        for hi, h in enumerate(hs if what == k.init else hs[:2]):
            for nblocks in counts:
                acc = rng.randbytes(16) if nblocks % 2 else bytes(16)
                t.result('H=%s nblocks=%d' % (h.hex(), nblocks),
                         t.ghash_case(h, acc, rng.randbytes(16 * nblocks)))
        if what == k.hash:
            h = hs[2]
            for nblocks in [0, 1, 5, 17, 64]:
                t.result('H=%s nblocks=%d' % (h.hex(), nblocks),
                         t.ghash_case(h, rng.randbytes(16), rng.randbytes(16 * nblocks)))
            # Two calls chained through acc.
            for n1, n2 in [(1, 1), (3, 40), (16, 16), (17, 31), (33, 8), (64, 100)]:
                data, acc = rng.randbytes(16 * (n1 + n2)), rng.randbytes(16)
                mid = HASH_REF[k.hash](hs[0], acc, data[:16 * n1])
                t.result('split %d+%d, first call' % (n1, n2),
                         t.ghash_case(hs[0], acc, data[:16 * n1]))
                t.result('split %d+%d, second call' % (n1, n2),
                         t.ghash_case(hs[0], mid, data[16 * n1:]))
            for case in range(12):                  # random lengths and H
                h, nblocks = rng.randbytes(16), rng.randrange(301)
                t.result('H=%s nblocks=%d' % (h.hex(), nblocks),
                         t.ghash_case(h, rng.randbytes(16), rng.randbytes(16 * nblocks)))
    elif k.msg:
        test_msg(t, what)
    else:
        for key_len in (16, 24, 32):
            key = rng.randbytes(key_len)
            h = t.openssl.ecb_encrypt(key, bytes(16))
            for case, nblocks in enumerate(GCM_NBLOCKS):
                ctr, in_place = random_ctr_k(rng, case, nblocks), case % 5 == 0
                acc = rng.randbytes(16) if case % 4 else bytes(16)
                t.result('AES-%d nblocks=%d ctr=%s%s' % (8 * key_len, nblocks, ctr.hex(),
                                                          ' in place' if in_place else ''),
                         t.gcm_case(what, key, h, acc, ctr, [nblocks], in_place))
            if key_len == 16:
                for case, nblocks in enumerate(GCM_NBLOCKS_LONG):
                    ctr, in_place = random_ctr_k(rng, case, nblocks), case % 4 == 1
                    t.result('AES-128 nblocks=%d ctr=%s%s' % (nblocks, ctr.hex(),
                                                               ' in place' if in_place else ''),
                             t.gcm_case(what, key, h, rng.randbytes(16), ctr, [nblocks], in_place))
            for case, splits in enumerate([(1, 1), (2, 31), (8, 8), (15, 17), (32, 0), (0, 32),
                                           (33, 64), (3, 5, 7), (100, 1)]):
                ctr = random_ctr_k(rng, 0, sum(splits)) if case % 2 else rng.randbytes(16)
                t.result('AES-%d split %s ctr=%s' % (8 * key_len, '+'.join(map(str, splits)),
                                                     ctr.hex()),
                         t.gcm_case(what, key, h, rng.randbytes(16), ctr, splits, case % 3 == 0))
        # Random lengths, split at random into 1..4 calls (fixed seed: the same every run).
        for case in range(12):
            key = rng.randbytes(rng.choice((16, 24, 32)))
            h = t.openssl.ecb_encrypt(key, bytes(16))
            cuts = sorted(rng.randrange(301) for _ in range(rng.randrange(4)))
            splits = [b - a for a, b in zip([0] + cuts, cuts + [rng.randrange(cuts[-1] if cuts
                                                                             else 0, 301)])]
            ctr, in_place = random_ctr_k(rng, case, sum(splits)), rng.random() < 0.3
            t.result('AES-%d random split %s ctr=%s%s' % (
                8 * len(key), '+'.join(map(str, splits)), ctr.hex(),
                ' in place' if in_place else ''),
                t.gcm_case(what, key, h, rng.randbytes(16), ctr, splits, in_place))


# ---- The model against the CPU, and against known answers ---------------------------------------

STATE_ADDR, STATE_BYTES = 0x48000, 1024


def instruction_forms(path, prefix, tmpdir, only=None):
    """{(mnemonic, operand kinds)} of the functions of PATH whose name starts with prefix (and,
    with only, of the members whose file name contains it)."""
    forms = {}
    for obj in archive_members(path, tmpdir):
        if only and only not in os.path.basename(obj):
            continue
        for name in defined_functions(obj):
            if name.startswith(prefix):
                for insn in load_function(obj, name, tmpdir, avx2_only=False)[0]:
                    kinds = tuple('%s%d' % (type(o).__name__, o.width) if isinstance(o, Vec) else
                                  type(o).__name__ for o in insn.operands)
                    forms.setdefault((insn.mnemonic, kinds), insn.text)
    return forms


def run_snippets(path, so, tmpdir, rng, kernels=None):
    """Every vaes_model_snip_* function, on the model and on this CPU, from the same states;
    with kernels, also that the snippets use every instruction form of the 256-bit kernels."""
    passed = failed = 0
    if kernels:
        covered = instruction_forms(path, 'vaes_model_snip_', tmpdir)
        # The 256-bit kernels of vaes.S and gcm_vaes.S (the tier's one-call GCM also has C in
        # kernels/gcm_msg.c and legacy SSE in gcm_aesni.S, whose forms are not this model's)
        for form, text in sorted(instruction_forms(kernels, 'aesfast_vaes_avx2_', tmpdir,
                                                   only='vaes.S').items()):
            if form not in covered and form[0] not in ('endbr64', 'ret', 'nop', 'jmp', 'ud2'):
                print('FAIL %s: a form of a 256-bit kernel that no snippet checks' % text)
                failed += 1
    lib = ctypes.CDLL(os.path.abspath(so))
    for obj in archive_members(path, tmpdir):
        for name in defined_functions(obj):
            if not name.startswith('vaes_model_snip_'):
                continue
            fn = load_function(obj, name, tmpdir, avx2_only=True)
            native = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(
                ctypes.cast(getattr(lib, name), ctypes.c_void_p).value)
            problem = None
            for trial in range(24):
                state = rng.randbytes(STATE_BYTES)
                if trial % 4 == 3:                 # small numbers in the GPRs: counts, indices
                    small = (rng.randrange(-70, 300).to_bytes(8, 'little', signed=True)
                             for _ in range(8))
                    state = state[:512] + b''.join(small) + state[576:]
                region = Region('state', STATE_ADDR, state, writable=True)
                try:
                    call(fn, [STATE_ADDR], [region], rng)
                except (Fault, ModelError) as e:
                    problem = str(e)
                    break
                raw = ctypes.create_string_buffer(STATE_BYTES + 64)   # aligned as STATE_ADDR
                addr = ctypes.addressof(raw) + (-ctypes.addressof(raw)) % 64
                ctypes.memmove(addr, state, STATE_BYTES)
                native(addr)
                got = ctypes.string_at(addr, STATE_BYTES)
                if got != bytes(region.data):
                    diff = [i for i in range(STATE_BYTES) if got[i] != region.data[i]]
                    problem = 'model and CPU differ in %s (first byte: CPU %02x, model %02x)' % (
                        describe_state(diff), got[diff[0]], region.data[diff[0]])
                    break
            passed, failed = passed + (not problem), failed + bool(problem)
            if problem:
                print('FAIL %s: %s' % (name, problem))
    return passed, failed


def checker_self_test(path, tmpdir, rng):
    """The vaes_model_check_* functions: each fault_* one must fault, each ct_* one must fail the
    constant-time comparison, each ok_* one must pass both. Proves the checks catch what they
    claim to."""
    problems, count = [], 0
    for obj in archive_members(path, tmpdir):
        for name in defined_functions(obj):
            if not name.startswith('vaes_model_check_'):
                continue
            count += 1
            kind = name[len('vaes_model_check_'):].split('_')[0]
            fn = load_function(obj, name, tmpdir, avx2_only=False)
            traces, fault, data = [], None, rng.randbytes(64)
            for trial in range(2):                # the second run: every data bit flipped
                inb = Region('in', 0x40003, data if trial == 0 else xor(data, b'\xff' * 64))
                out = Region('out', 0x60005, bytes(64), readable=False, writable=True)
                try:
                    m = call(fn, [inb.start, out.start], [inb, out], rng, trace=True)
                    traces.append((m.pcs, m.mem.trace))
                except Fault as e:
                    fault = str(e)
                    break
            ct_broken = not fault and traces[0] != traces[1]
            if kind == 'fault' and not fault:
                problems.append('%s ran without a fault' % name)
            elif kind == 'ct' and (fault or not ct_broken):
                problems.append('%s: %s' % (name, fault or 'constant-time check did not fire'))
            elif kind == 'ok' and (fault or ct_broken):
                problems.append('%s: %s' % (name, fault or 'constant-time check fired'))
    if count < 20:
        problems.append('only %d vaes_model_check_* functions found' % count)
    return problems


def describe_state(offsets):
    names = sorted({('ymm%d' % (o // 32)) if o < 512 else
                    ('gpr%d' % ((o - 512) // 8)) if o < 576 else ('mem+%#x' % (o & ~15))
                    for o in offsets})
    return ', '.join(names[:6])


def known_answers(rng):
    """The EVEX-only forms against answers built another way (no CPU here runs them)."""
    def run(lines, vec=None, k=None, regions=(), gpr=None):
        insns = []
        for i, text in enumerate(lines + ['ret']):
            mnemonic, _, ops = text.partition(' ')
            mask, zero, operands = None, False, []
            for o in re.findall(r'(?:[^,(]|\([^)]*\))+', ops):
                op, omask, ozero = parse_operand(o.strip())
                operands.append(op)
                mask, zero = (omask if omask is not None else mask), zero or ozero
            insns.append(Insn(i, mnemonic, operands, text, True, mask, zero, None))
        m = Machine(insns, Memory(list(regions) + [
            Region('return address', STACK_TOP, RETURN_ADDRESS.to_bytes(8, 'little'))]), rng)
        m.gpr['rsp'] = STACK_TOP
        for i, v in (vec or {}).items():
            m.vec[i] = v
        for i, v in (k or {}).items():
            m.k[i] = v
        m.gpr.update(gpr or {})
        m.run(check_abi=False)
        return m
    problems = []
    def expect(what, got, want):
        show = lambda v: v.hex() if isinstance(v, bytes) else hex(v)
        if got != want:
            problems.append('%s: got %s, expected %s' % (what, show(got), show(want)))
    a, b, c = (rng.randbytes(64) for _ in range(3))
    ia, ib, ic = (int.from_bytes(x, 'little') for x in (a, b, c))
    ones = 2**512 - 1
    # vpternlogd $imm, C, B, A: bit imm[A << 2 | B << 1 | C]; dst is A.
    for imm, fn in [(0x96, lambda: ia ^ ib ^ ic), (0xe8, lambda: (ia & ib) | (ia & ic) | (ib & ic)),
                    (0xca, lambda: (ia & ib) | (~ia & ic)), (0xf0, lambda: ia), (0xcc, lambda: ib),
                    (0xaa, lambda: ic), (0x78, lambda: ia ^ (ib & ic)), (0x00, lambda: 0),
                    (0xff, lambda: ones), (0x80, lambda: ia & ib & ic),
                    (0x01, lambda: ~(ia | ib | ic))]:
        m = run(['vpternlogd $%#x,%%zmm3,%%zmm2,%%zmm1' % imm], {1: a, 2: b, 3: c})
        expect('vpternlogd %#x' % imm, m.vec[1], (fn() & ones).to_bytes(64, 'little'))
    # Merging and zeroing masks, by element size.
    kbits = rng.getrandbits(64)
    m = run(['vpxord %zmm3,%zmm2,%zmm1{%k2}', 'vpxorq %zmm3,%zmm2,%zmm4{%k2}{z}'],
            {1: a, 2: b, 3: c, 4: a}, {2: kbits})
    x = xor(b, c)
    expect('vpxord merge', m.vec[1], b''.join(
        x[4 * i:4 * i + 4] if kbits >> i & 1 else a[4 * i:4 * i + 4] for i in range(16)))
    expect('vpxorq zero', m.vec[4], b''.join(x[8 * i:8 * i + 8] if kbits >> i & 1 else bytes(8)
                                            for i in range(8)))
    # A masked load at the end of a buffer reads only the selected bytes; a masked store writes
    # only them; an unmasked one faults.
    data = rng.randbytes(40)
    buf = Region('buf', 0x9000, data, writable=True)
    m = run(['vmovdqu8 (%rax),%zmm5{%k1}{z}', 'vmovdqu8 %zmm5,0x10(%rax){%k3}'], {5: a},
            {1: 2**40 - 1, 3: 2**24 - 1}, [buf], {'rax': 0x9000})
    expect('vmovdqu8 masked load', m.vec[5], data + bytes(24))
    expect('vmovdqu8 masked store', bytes(buf.data), data[:16] + data[:24])
    try:
        run(['vmovdqu8 (%rax),%zmm5{%k1}{z}'], {}, {1: 2**41 - 1}, [buf], {'rax': 0x9000})
        problems.append('a masked load one byte past the buffer did not fault')
    except Fault:
        pass
    data = bytes(buf.data)
    m = run(['vmovdqu64 (%rax),%zmm6{%k1}'], {6: a}, {1: 0b101}, [buf], {'rax': 0x9000})
    expect('vmovdqu64 merge load', m.vec[6], data[:8] + a[8:16] + data[16:24] + a[24:])
    # Lane moves.
    lanes = [a[16 * i:16 * i + 16] for i in range(4)]
    lanesb = [b[16 * i:16 * i + 16] for i in range(4)]
    m = run(['vshufi64x2 $0x1b,%zmm2,%zmm1,%zmm3', 'vshufi64x2 $0x4e,%zmm1,%zmm1,%zmm4',
             'vextracti32x4 $2,%zmm1,%xmm5', 'vinserti64x4 $1,%ymm2,%zmm1,%zmm6',
             'vextracti64x4 $1,%zmm1,%ymm7', 'vinserti32x4 $3,%xmm2,%zmm1,%zmm8',
             'vpermq %zmm1,%zmm9,%zmm10', 'vpermq $0x1b,%zmm1,%zmm11',
             'vshufi64x2 $0x01,%ymm2,%ymm1,%ymm12', 'vpbroadcastq %rax,%zmm13',
             'vbroadcasti32x4 (%rbx),%zmm14', 'vpsrldq $4,%zmm1,%zmm15'],
            {1: a, 2: b, 9: pack([7, 0, 6, 1, 5, 2, 4, 3], 8)},
            regions=[Region('rodata', 0xa000, c[:16])],
            gpr={'rax': 0x0123456789abcdef, 'rbx': 0xa000})
    q = unpack(a, 8)
    expect('vshufi64x2 0x1b', m.vec[3], lanes[3] + lanes[2] + lanesb[1] + lanesb[0])
    expect('vshufi64x2 0x4e', m.vec[4], lanes[2] + lanes[3] + lanes[0] + lanes[1])
    expect('vextracti32x4 2', m.vec[5], lanes[2] + bytes(48))
    expect('vinserti64x4 1', m.vec[6], a[:32] + b[:32])
    expect('vextracti64x4 1', m.vec[7], a[32:] + bytes(32))
    expect('vinserti32x4 3', m.vec[8], a[:48] + b[:16])
    expect('vpermq vector', m.vec[10], pack([q[7], q[0], q[6], q[1], q[5], q[2], q[4], q[3]], 8))
    expect('vpermq 0x1b', m.vec[11], pack([q[3], q[2], q[1], q[0], q[7], q[6], q[5], q[4]], 8))
    expect('vshufi64x2 ymm 0x01', m.vec[12], lanes[1] + lanesb[0] + bytes(32))
    expect('vpbroadcastq r64', m.vec[13], (0x0123456789abcdef).to_bytes(8, 'little') * 8)
    expect('vbroadcasti32x4', m.vec[14], c[:16] * 4)
    expect('vpsrldq zmm', m.vec[15], b''.join(lane[4:] + bytes(4) for lane in lanes))
    # Embedded broadcasts, and masks on 256-bit EVEX forms (4 qwords; zero above bit 255).
    m = run(['vpxord (%rbx){1to16},%zmm1,%zmm2', 'vpternlogq $0x96,(%rbx){1to8},%zmm1,%zmm3',
             'vpxorq %ymm4,%ymm1,%ymm5{%k1}{z}', 'vmovdqu64 %ymm1,%ymm6{%k1}'],
            {1: a, 3: b, 4: c, 6: c}, {1: 0b11111010},
            regions=[Region('rodata', 0xa000, c[:8])], gpr={'rbx': 0xa000})
    expect('vpxord {1to16}', m.vec[2], xor(a, c[:4] * 16))
    expect('vpternlogq {1to8}', m.vec[3], xor(xor(a, b), c[:8] * 8))
    x = xor(a[:32], c[:32])
    expect('vpxorq ymm {z}', m.vec[5], bytes(8) + x[8:16] + bytes(8) + x[24:32] + bytes(32))
    expect('vmovdqu64 ymm merge', m.vec[6], c[:8] + a[8:16] + c[16:24] + a[24:32] + bytes(32))
    # Mask-register arithmetic and GPR moves.
    m = run(['mov $0xffffffffffffffff,%rax', 'mov $37,%ecx', 'bzhi %rcx,%rax,%rax',
             'kmovq %rax,%k1', 'kxnord %k0,%k0,%k2', 'kshiftrq $3,%k1,%k3', 'kmovd %k1,%edx',
             'kmovq %k3,%rsi'])
    expect('bzhi/kmovq', m.k[1], 2**37 - 1)
    expect('kxnord', m.k[2], 2**32 - 1)
    expect('kshiftrq', m.k[3], 2**34 - 1)
    expect('kmovd to gpr', m.gpr['rdx'], 2**32 - 1)
    expect('kmovq to gpr', m.gpr['rsi'], 2**34 - 1)
    # KORTEST's ZF (the short GCM-SIV kernels skip a vector without data by it), and a byte-
    # masked merge from a register.
    m = run(['kortestq %k1,%k1', 'sete %al', 'kortestq %k2,%k2', 'sete %cl',
             'vmovdqu8 %zmm1,%zmm2{%k2}'], {1: a, 2: b}, {1: 0, 2: kbits})
    expect('kortestq zero', m.gpr['rax'] & 0xff, 1)
    expect('kortestq nonzero', m.gpr['rcx'] & 0xff, int(kbits == 0))
    expect('vmovdqu8 register merge', m.vec[2], bytes(
        a[i] if kbits >> i & 1 else b[i] for i in range(64)))
    # VPCLMULQDQ on zmm: lane by lane, the same as four xmm products.
    m = run(['vpclmulqdq $0x01,%zmm2,%zmm1,%zmm3', 'vpclmulhqhqdq %zmm2,%zmm1,%zmm4'], {1: a, 2: b})
    qa, qb = unpack(a, 8), unpack(b, 8)
    expect('vpclmulqdq zmm 0x01', m.vec[3],
           pack([clmul(qa[2 * i + 1], qb[2 * i]) for i in range(4)], 16))
    expect('vpclmulqdq zmm 0x11', m.vec[4],
           pack([clmul(qa[2 * i + 1], qb[2 * i + 1]) for i in range(4)], 16))
    # clmul itself, on known products: (x^63 + 1)^2 = x^126 + 1; x^64-bit operands.
    if clmul(2**63 + 1, 2**63 + 1) != 2**126 + 1 or clmul(0xffffffffffffffff, 3) != \
            0xffffffffffffffff ^ (0xffffffffffffffff << 1):
        problems.append('clmul: wrong known products')
    return problems


def main(argv):
    rng, passed, failed, what = random.Random(SEED), 0, 0, None
    args = list(argv)
    native_so = native = None
    if '--native' in args:
        i = args.index('--native')
        native_so = args[i + 1]
        del args[i:i + 2]
    try:
        with tempfile.TemporaryDirectory() as tmpdir:
            if args and args[0] == '--snippets':
                if len(args) not in (3, 4):
                    sys.exit('usage: vaes_model.py --snippets SNIPPETS SO [KERNELS]')
                problems = known_answers(rng) + checker_self_test(args[1], tmpdir, rng)
                for p in problems:
                    print('FAIL known answer %s' % p)
                if not cpu_runs_avx2_tier():
                    print('vaes_model: this CPU lacks AVX2/VAES/VPCLMULQDQ/BMI2: only the known'
                          ' answers ran')
                    passed, failed = 1 - bool(problems), len(problems)
                else:
                    passed, failed = run_snippets(args[1], args[2], tmpdir, rng,
                                                  args[3] if len(args) == 4 else None)
                    passed, failed = passed + (not problems), failed + len(problems)
                print('vaes_model: %d passed, %d failed (snippets and known answers)'
                      % (passed, failed))
                return 1 if failed or not passed else 0
            if len(args) != 2:
                sys.exit('usage: vaes_model.py OBJECT FUNCTION [--native SO]')
            path, function = args
            m = re.fullmatch(r'(aesfast_vaes_avx(?:2|512)_)(%s)' % '|'.join(KINDS), function)
            if not m:
                raise ModelError('not a VAES kernel function: %s' % function)
            prefix, what = m.groups()
            openssl = OpenSSL()
            self_check(openssl, rng)
            gcm_reference_check(openssl, rng)
            polyval_reference_check()
            fns, k = {'name': prefix}, KINDS[what]
            needed = [what] + ([] if k.init in (None, what) else [k.init])
            if what == k.init:
                needed.append(k.hash)
            for name in needed:
                fns[name] = load_function(find_object(path, prefix + name, tmpdir), prefix + name,
                                          tmpdir, avx2_only='avx2' in prefix)
                if is_placeholder(fns[name][0]):
                    # Every kernel exists: a trapping stub in the shipped library is a failure,
                    # never a skip (the 512-bit tier has no other test on most machines).
                    print('vaes_model: %s is a placeholder (ud2): FAIL' % (prefix + name))
                    return 1
            native = None
            if native_so and 'avx2' in prefix:
                if cpu_runs_avx2_tier():
                    native = Native(native_so)
                else:
                    print('vaes_model: this CPU cannot run %s: model only' % function)
            t = Tester(fns, openssl, rng, native, what)
            t.tables = {}
            test_function(t, what)
            test_constant_time(t, what)
            passed, failed = t.passed, t.failed
    except ModelError as e:
        print('vaes_model: error: %s' % e)
        failed += 1
    except Fault as e:                             # from ghash_init/polyval_init building a table
        print('FAIL %s: %s' % (KINDS[what].init if what else 'init', e))
        failed += 1
    print('vaes_model: %d passed, %d failed (%s%s)' % (
        passed, failed, args[1] if len(args) > 1 else '?', ', also on this CPU' if native else ''))
    return 1 if failed else 0


def self_check(openssl, rng):
    """The model's AES, the rounds VAESENC will use, against libcrypto before any case."""
    for key_len in (16, 24, 32):
        key, block = rng.randbytes(key_len), rng.randbytes(16)
        round_keys, rounds = expand_key(key)
        state = xor(block, round_keys[:16])
        for r in range(1, rounds + 1):
            state = aes_round(state, round_keys[16 * r:16 * r + 16], last=r == rounds)
        if state != openssl.ecb_encrypt(key, block):
            raise ModelError("the model's AES-%d disagrees with libcrypto" % (8 * key_len))


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
