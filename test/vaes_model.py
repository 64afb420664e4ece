#!/usr/bin/env python3
"""
vaes_model.py OBJECT FUNCTION: runs one of kernels/amd64/vaes.S's ctr32_xor functions on a model
of the x86-64 instructions it uses, and checks it against AES from OpenSSL's libcrypto.

  OBJECT    an ELF object, or a static library (plain or thin) with a member that defines FUNCTION
  FUNCTION  aesfast_vaes_avx512_ctr32_xor or aesfast_vaes_avx2_ctr32_xor

Why: the 512-bit variant needs AVX-512, which neither our x86-64 machines nor qemu 7.2 provide, so
no real test can run it. This script disassembles FUNCTION with objdump, executes it instruction by
instruction on modeled registers, flags and memory, and for 222 cases (AES-128/192/256 x nblocks
0..69, 127, 128, 129, 255: every tail and loop path) checks that:
  - out = in XOR AES(ctr + i), where + i adds to the last 4 bytes only (big-endian, mod 2^32):
    every third case starts a few blocks before that word wraps; every fifth case is in place;
  - every read is inside in[16n], ctr[16], key->rk[0..rounds], key->rounds or the object's .rodata,
    and every write inside out[16n]; in, out and ctr are misaligned, so an aligned access faults;
  - the function uses only caller-saved registers and returns with VZEROUPPER done.
The expected output comes from libcrypto's AES-ECB of the counter blocks (ctypes), not the model.
Prints "vaes_model: N passed, M failed (FUNCTION)"; exits 0 if all passed, 1 otherwise.

Limits: it models only the mnemonics, operand forms and flags (CF, ZF) these kernels use. Anything
else (another mnemonic, a mask register, an indexed address, the stack) fails the test and names
the instruction: extend the model, never skip. The model's VAESENC is itself code that could be
wrong: it is checked against libcrypto at start-up, and validated by running the 256-bit variant,
which also runs natively here and is checked by the real tests (suite vaes-avx2), through this
same model. Functional only: nothing about speed or constant time.
"""
import ctypes
import os
import random
import re
import subprocess
import sys
import tempfile
from collections import namedtuple

SEED = 2026          # fixed: every run checks the same cases
MAX_STEPS = 200_000  # far more than 255 blocks take; a runaway loop is a failure


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


class OpenSSL:
    """The reference: AES-ECB from libcrypto's default provider."""
    def __init__(self):
        self.lib = lib = ctypes.CDLL('libcrypto.so.3')
        vp, cp, i = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
        for name, restype, argtypes in [
                ('EVP_CIPHER_fetch', vp, [vp, cp, cp]), ('EVP_CIPHER_CTX_new', vp, []),
                ('EVP_CIPHER_CTX_free', None, [vp]), ('EVP_EncryptInit_ex', i, [vp] * 3 + [cp] * 2),
                ('EVP_EncryptUpdate', i, [vp, cp, ctypes.POINTER(i), cp, i])]:
            getattr(lib, name).restype, getattr(lib, name).argtypes = restype, argtypes
        self.ciphers = {n: lib.EVP_CIPHER_fetch(None, b'AES-%d-ECB' % (8 * n), b'provider=default')
                        for n in (16, 24, 32)}
        if not all(self.ciphers.values()):
            raise ModelError('libcrypto: cannot fetch AES-ECB from the default provider')

    def ecb_encrypt(self, key, data):
        """Whole blocks only: EVP_EncryptUpdate then returns them all, padding never comes in."""
        ctx, outlen = self.lib.EVP_CIPHER_CTX_new(), ctypes.c_int()
        out = ctypes.create_string_buffer(len(data))
        ok = (self.lib.EVP_EncryptInit_ex(ctx, self.ciphers[len(key)], None, key, None) == 1
              and self.lib.EVP_EncryptUpdate(ctx, out, ctypes.byref(outlen), data, len(data)) == 1)
        self.lib.EVP_CIPHER_CTX_free(ctx)
        if not ok or outlen.value != len(data):
            raise ModelError('libcrypto: AES-ECB failed')
        return out.raw


# ---- Reading FUNCTION out of the object --------------------------------------------------------

Insn = namedtuple('Insn', 'addr mnemonic operands text')
Imm, Target = namedtuple('Imm', 'value'), namedtuple('Target', 'addr')   # $imm, a jump target
Gpr = namedtuple('Gpr', 'name bits')              # name: the 64-bit register
Vec = namedtuple('Vec', 'index width')            # width in bytes: 16, 32, 64
Mem = namedtuple('Mem', 'base disp')              # base None: disp is an absolute model address
RODATA_BASE = 0x1000                              # where the model maps the object's .rodata

# The caller-saved general-purpose registers of SysV; the others, and the stack, are not modeled.
GPRS = {}
for r64, r32, r8 in [('rax', 'eax', 'al'), ('rcx', 'ecx', 'cl'), ('rdx', 'edx', 'dl'),
                     ('rsi', 'esi', 'sil'), ('rdi', 'edi', 'dil')] + \
                    [('r%d' % n, 'r%dd' % n, 'r%db' % n) for n in range(8, 12)]:
    GPRS.update({r64: Gpr(r64, 64), r32: Gpr(r64, 32), r8: Gpr(r64, 8)})


def tool(*cmd, cwd=None):
    result = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    if result.returncode != 0:
        raise ModelError('%s failed: %s' % (' '.join(cmd), result.stderr.strip()))
    return result.stdout


def find_object(path, function, tmpdir):
    """PATH itself, or the member of the archive PATH that defines FUNCTION."""
    with open(path, 'rb') as f:
        magic = f.read(8)
    if magic not in (b'!<arch>\n', b'!<thin>\n'):
        return path
    members = tool('ar', 't', path).split()
    if magic == b'!<arch>\n':                     # plain: extract; thin: lists the objects' paths
        tool('ar', 'x', os.path.abspath(path), cwd=tmpdir)
        members = [os.path.join(tmpdir, m) for m in members]
    for obj in members:
        if re.search(r'^\S+ T %s$' % re.escape(function), tool('nm', '--defined-only', obj), re.M):
            return obj
    raise ModelError('no member of %s defines %s' % (path, function))


def parse_operand(text):
    if text.startswith('$'):
        return Imm(int(text[1:], 0))
    if text[1:] in GPRS:
        return GPRS[text[1:]]
    m = re.fullmatch(r'%([xyz])mm(\d+)', text)
    if m:
        return Vec(int(m.group(2)), {'x': 16, 'y': 32, 'z': 64}[m.group(1)])
    m = re.fullmatch(r'(-?0x[0-9a-f]+)?\(%(\w+)\)', text)
    if m and (m.group(2) == 'rip' or GPRS.get(m.group(2), Gpr('', 0)).bits == 64):
        return Mem(m.group(2), int(m.group(1) or '0', 0))
    m = re.fullmatch(r'([0-9a-f]+) <.*>', text)
    if m:
        return Target(int(m.group(1), 16))
    raise ModelError('operand not modeled: %s' % text)


def load_function(obj, function, tmpdir):
    """(instructions, .rodata bytes), with RIP-relative operands made absolute model addresses."""
    tool('objcopy', '-O', 'binary', '--only-section=.rodata', obj, os.path.join(tmpdir, 'rodata'))
    with open(os.path.join(tmpdir, 'rodata'), 'rb') as f:
        rodata = f.read()
    listing = tool('objdump', '-dr', '--no-show-raw-insn', '--disassemble=' + function, obj)
    insns, relocs = [], []
    for line in listing.splitlines():
        m = re.fullmatch(r'\s*([0-9a-f]+): (R_X86_64_\w+)\s+(\S+?)([+-]0x[0-9a-f]+)?', line)
        if m:
            relocs.append((int(m.group(1), 16), m.group(2), m.group(3), int(m.group(4) or '0', 16)))
            continue
        m = re.fullmatch(r'\s*([0-9a-f]+):\t(\S+)\s*(.*?)\s*(#.*)?', line)
        if m:
            operands = re.findall(r'(?:[^,(]|\([^)]*\))+', m.group(3))
            insns.append(Insn(int(m.group(1), 16), m.group(2),
                              [parse_operand(o.strip()) for o in operands], line.strip()))
    if not insns or insns[-1].mnemonic != 'ret':
        raise ModelError('%s: %s not found, or does not end with ret' % (obj, function))
    for field, kind, symbol, addend in relocs:     # objdump also lists other functions' relocations
        if insns[0].addr <= field < insns[-1].addr:
            if (kind, symbol) != ('R_X86_64_PC32', '.rodata'):
                raise ModelError('relocation not modeled: %s %s' % (kind, symbol))
            i = max(k for k, insn in enumerate(insns) if insn.addr <= field)
            target = RODATA_BASE + addend + insns[i + 1].addr - field   # S + A - P + next insn
            insns[i] = insns[i]._replace(operands=[Mem(None, target) if o == Mem('rip', 0) else o
                                                   for o in insns[i].operands])
    addrs = {insn.addr for insn in insns}
    for insn in insns:
        if insn.mnemonic not in HANDLERS:
            raise ModelError('instruction not modeled: %s' % insn.text)
        if any(isinstance(o, Mem) and o.base == 'rip' for o in insn.operands):
            raise ModelError('RIP-relative operand without a relocation: %s' % insn.text)
        if any(isinstance(o, Target) and o.addr not in addrs for o in insn.operands):
            raise ModelError('jump out of the function: %s' % insn.text)
    return insns, rodata


# ---- The machine: the registers, CF and ZF, and a memory with named accessible regions -----------

class Machine:
    def __init__(self, insns, memory, readable, writable, rng):
        self.insns, self.memory, self.readable, self.writable = insns, memory, readable, writable
        self.index = {insn.addr: i for i, insn in enumerate(insns)}
        self.gpr = {reg.name: rng.getrandbits(64) for reg in GPRS.values()}
        self.vec = [rng.randbytes(64) for _ in range(32)]
        self.cf = self.zf = None                  # unknown until an instruction sets them
        self.upper_dirty = False                  # ymm/zmm0-15 written since the last VZEROUPPER

    def run(self):
        pc = 0
        for _ in range(MAX_STEPS):
            insn = self.insns[pc]
            try:
                jump = HANDLERS[insn.mnemonic](self, *insn.operands)
            except (Fault, ModelError) as e:
                raise type(e)('%s: %s' % (insn.text, e)) from None
            except (TypeError, AttributeError, KeyError) as e:
                raise ModelError('%s: operand form not modeled (%r)' % (insn.text, e)) from None
            if jump == 'ret':
                if self.upper_dirty:
                    raise Fault('returned without VZEROUPPER')
                return
            pc = pc + 1 if jump is None else self.index[jump]
        raise Fault('no return after %d instructions' % MAX_STEPS)

    def check(self, regions, kind, addr, n):
        if not any(start <= addr and addr + n <= start + size for _, start, size in regions):
            name, start, _ = min(self.readable + self.writable, key=lambda r: abs(addr - r[1]))
            raise Fault('%s of %d bytes at %s%+#x' % (kind, n, name, addr - start))

    def address(self, mem):
        return mem.disp if mem.base is None else (self.gpr[mem.base] + mem.disp) % 2**64

    def get(self, op, n):                         # n bytes of a vector register or memory
        if isinstance(op, Vec):
            return self.vec[op.index][:n]
        addr = self.address(op)
        self.check(self.readable, 'read', addr, n)
        return bytes(self.memory[addr:addr + n])

    def put(self, op, value):
        if isinstance(op, Vec):
            self.vec[op.index] = value + bytes(64 - len(value))  # VEX/EVEX zero the bits above
            self.upper_dirty |= op.index < 16 and len(value) > 16
            return
        addr = self.address(op)
        self.check(self.writable, 'write', addr, len(value))
        self.memory[addr:addr + len(value)] = value

    def get_int(self, op, bits):
        if isinstance(op, Imm):
            return op.value % 2**bits
        if isinstance(op, Mem):
            return int.from_bytes(self.get(op, bits // 8), 'little')
        return self.gpr[op.name] % 2**op.bits

    def put_int(self, reg, value):                # a 32-bit write zero-extends, 8-bit merges
        high = self.gpr[reg.name] & ~0xff if reg.bits == 8 else 0
        self.gpr[reg.name] = high | value % 2**reg.bits

    # General-purpose instructions (AT&T order: source first).
    def alu(self, src, dst, result, store=True):  # add, sub, cmp, test: CF and ZF
        r = result(self.get_int(dst, dst.bits), self.get_int(src, dst.bits))
        self.cf, self.zf = int(not 0 <= r < 2**dst.bits), int(r % 2**dst.bits == 0)
        if store:
            self.put_int(dst, r)

    def shl(self, count, dst):
        a, n = self.get_int(dst, dst.bits), count.value % 64
        if n:
            self.cf, self.zf = (a >> (dst.bits - n)) & 1, int((a << n) % 2**dst.bits == 0)
        self.put_int(dst, a << n)

    def jcc(self, taken, target):
        if self.cf is None:
            raise Fault('branch on flags that no modeled instruction has set')
        return target.addr if taken(self.cf, self.zf) else None

    # Vector instructions: three operands (src2, src1, dst), worked on lane by lane.
    def lanes(self, src2, src1, dst, fn, size=16):
        a, b = self.get(src1, dst.width), self.get(src2, dst.width)
        self.put(dst, b''.join(fn(a[k:k + size], b[k:k + size]) for k in range(0, dst.width, size)))

    def move(self, src, dst, aligned=False):
        width = (dst if isinstance(dst, Vec) else src).width
        if aligned and any(isinstance(m, Mem) and self.address(m) % width for m in (src, dst)):
            raise Fault('%d-byte aligned access to a misaligned address' % width)
        self.put(dst, self.get(src, width))

    def broadcast(self, src, dst):                # a 128-bit memory operand to every lane
        if not isinstance(src, Mem):
            raise ModelError('register source')
        self.put(dst, self.get(src, 16) * (dst.width // 16))

    def vzeroupper(self):
        self.vec[:16] = [v[:16] + bytes(48) for v in self.vec[:16]]
        self.upper_dirty = False


def add_dwords(a, b):
    return b''.join(((int.from_bytes(a[k:k + 4], 'little') + int.from_bytes(b[k:k + 4], 'little'))
                     % 2**32).to_bytes(4, 'little') for k in range(0, len(a), 4))


def shuffle_bytes(a, mask):
    return bytes(0 if i & 0x80 else a[i & 15] for i in mask)


# Each handler returns None to fall through, a jump target address, or 'ret'.
HANDLERS = {
    'endbr64': lambda m: None, 'ret': lambda m: 'ret', 'jmp': lambda m, target: target.addr,
    'mov': lambda m, src, dst: m.put_int(dst, m.get_int(src, dst.bits)), 'shl': Machine.shl,
    'add': lambda m, src, dst: m.alu(src, dst, lambda a, b: a + b),
    'sub': lambda m, src, dst: m.alu(src, dst, lambda a, b: a - b),
    'cmp': lambda m, src, dst: m.alu(src, dst, lambda a, b: a - b, store=False),
    'test': lambda m, src, dst: m.alu(src, dst, lambda a, b: a & b, store=False),
    'vpxor': lambda m, *ops: m.lanes(*ops, xor), 'vpxord': lambda m, *ops: m.lanes(*ops, xor),
    'vpaddd': lambda m, *ops: m.lanes(*ops, add_dwords),
    'vpshufb': lambda m, *ops: m.lanes(*ops, shuffle_bytes),
    'vaesenc': lambda m, *ops: m.lanes(*ops, lambda s, k: aes_round(s, k, last=False)),
    'vaesenclast': lambda m, *ops: m.lanes(*ops, lambda s, k: aes_round(s, k, last=True)),
    'vmovdqu': Machine.move, 'vmovdqu8': Machine.move,
    'vmovdqa': lambda m, src, dst: m.move(src, dst, aligned=True),
    'vmovdqa64': lambda m, src, dst: m.move(src, dst, aligned=True),
    'vbroadcasti128': Machine.broadcast, 'vbroadcasti32x4': Machine.broadcast,
    'vextracti64x4': lambda m, imm, src, dst:                  # imm bit 0 picks the 256-bit half
        m.put(dst, m.get(src, 64)[32 * (imm.value & 1):][:32]),
    'vzeroupper': Machine.vzeroupper,
}
for names, taken in [(('je', 'jz'), lambda cf, zf: zf), (('jne', 'jnz'), lambda cf, zf: not zf),
                     (('jb', 'jc'), lambda cf, zf: cf), (('jae', 'jnc'), lambda cf, zf: not cf),
                     (('ja',), lambda cf, zf: not (cf or zf)), (('jbe',), lambda cf, zf: cf or zf)]:
    HANDLERS.update({name: lambda m, target, taken=taken: m.jcc(taken, target) for name in names})


# ---- The cases -----------------------------------------------------------------------------------

# Model addresses: the key 16-byte aligned only (all the ABI promises); ctr, in and out misaligned.
KEY, CTR, IN, OUT, MEMORY_SIZE = 0x2010, 0x3003, 0x4005, 0x6007, 0x8000
NBLOCKS = list(range(70)) + [127, 128, 129, 255]


def run_case(insns, rodata, openssl, rng, key, nblocks, ctr, in_place):
    """None if FUNCTION(key, ctr, in, out, nblocks) does its job, else what went wrong."""
    round_keys, rounds = expand_key(key)
    plaintext, out = rng.randbytes(16 * nblocks), IN if in_place else OUT
    memory = bytearray(rng.randbytes(MEMORY_SIZE))
    for addr, value in [(RODATA_BASE, rodata), (KEY, round_keys), (CTR, ctr), (IN, plaintext),
                        (KEY + 240, rounds.to_bytes(4, 'little'))]:
        memory[addr:addr + len(value)] = value
    readable = [('.rodata', RODATA_BASE, len(rodata)), ('key->rk', KEY, 16 * (rounds + 1)),
                ('key->rounds', KEY + 240, 4), ('ctr', CTR, 16), ('in', IN, 16 * nblocks)]
    machine = Machine(insns, memory, readable, [('out', out, 16 * nblocks)], rng)
    machine.gpr.update(rdi=KEY, rsi=CTR, rdx=IN, rcx=out, r8=nblocks)
    try:
        machine.run()
    except Fault as e:
        return str(e)
    low = int.from_bytes(ctr[12:], 'big')
    counters = b''.join(ctr[:12] + ((low + i) % 2**32).to_bytes(4, 'big') for i in range(nblocks))
    expected = xor(plaintext, openssl.ecb_encrypt(key, counters)) if nblocks else b''
    wrong = [i for i in range(nblocks)
             if memory[out + 16 * i:out + 16 * i + 16] != expected[16 * i:16 * i + 16]]
    return 'wrong output in %d of %d blocks, from block %d' % (len(wrong), nblocks, wrong[0]) \
        if wrong else None


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


def main(path, function):
    rng, passed, failed = random.Random(SEED), 0, 0
    try:
        openssl = OpenSSL()
        self_check(openssl, rng)
        with tempfile.TemporaryDirectory() as tmpdir:
            insns, rodata = load_function(find_object(path, function, tmpdir), function, tmpdir)
        for key_len in (16, 24, 32):
            for case, nblocks in enumerate(NBLOCKS):
                ctr = bytearray(rng.randbytes(16))
                if case % 3 == 0:                 # the low word wraps inside the call (n >= 2)
                    ctr[12:] = (2**32 - 1 - rng.randrange(max(nblocks - 1, 1))).to_bytes(4, 'big')
                in_place = case % 5 == 0
                problem = run_case(insns, rodata, openssl, rng, rng.randbytes(key_len), nblocks,
                                   bytes(ctr), in_place)
                passed, failed = passed + (not problem), failed + bool(problem)
                if problem:
                    print('FAIL AES-%d nblocks=%d ctr=%s%s: %s' % (8 * key_len, nblocks, ctr.hex(),
                          ' in place' if in_place else '', problem))
    except ModelError as e:
        print('vaes_model: error: %s' % e)
        failed += 1
    print('vaes_model: %d passed, %d failed (%s)' % (passed, failed, function))
    return 1 if failed else 0


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit('usage: vaes_model.py OBJECT FUNCTION')
    sys.exit(main(sys.argv[1], sys.argv[2]))
