#!/usr/bin/env python3
"""
bench/model.py: the main loops of aesfast's kernels and of OpenSSL's matching ones, through
llvm-mca's pipeline models of CPUs this project cannot run on (Intel AVX-512 servers, Arm
Neoverse cores), with a count for AMD Zen 5 beside them. Writes doc/perf/model/ (README.md and
model.csv): a model, not a measurement, with its error against every CPU class measured in
doc/perf/ (their kernels.csv).

  bench/model.py [--build build] [--arm64-build build-arm64] [--openssl TREE | --no-openssl]
                 [--mca llvm-mca-19] [--objdump llvm-objdump-19] [--out doc/perf/model]
                 [--iterations 100] [--no-arm64] [--check]

What it models, per loop: the instructions between the loop's head and its back edge, one path:
forward branches inside the body may be taken or not, branches out of it are not taken, and of
the paths the one kept is the AES-128 one (AES rounds per block = 10; AES-256: 14) with the most
AES instructions, the shortest of those (a counter's rare carry path is longer); a hash loop's
the one with the most carry-less multiplies; a branch back to the head from inside the body (an
inner loop over the rounds) may be taken up to 7 times. The loop whose kept path has the most AES
instructions (hashes: multiplies) is the function's main loop. Blocks per iteration: the AES
last rounds times the blocks per register (keyed loops), or the largest pointer step / 16
(hashes). Cycles per 16 blocks = llvm-mca's total cycles / iterations * 16 / blocks.

Objects: aesfast's from the native build (x86-64 tiers) and the arm64 cross build (meson setup
build-arm64 --cross-file test/cross-aarch64.ini; ninja -C build-arm64
kernels/libaesfast_kernels.a), as they ship; OpenSSL's from its perlasm scripts in TREE (the
source tree test/build-openssl.sh --series 3.5 prints), run here into a scratch folder and
assembled with the host's and the aarch64 cross compiler. No OpenSSL is built.

The arm64 models (neoverse-*) issue AESE and AESMC as two instructions; the cores fuse an AESMC
into the AESE right before it on the same register. So each arm64 loop is modelled twice:
unfused, and with each such AESMC dropped ("fused"); the truth is between, and the spread between
the two is the least error to read into an arm64 comparison.

Zen 5: llvm-mca-19's znver5 is its Zen 4 model (it errs by 10-74 % on Zen 5), so beside the Intel
models stands a count: max((AES rounds + 2 x carry-less multiplies) / 2, 2 x carry-less
multiplies) per 16 blocks (Zen 5 runs AES and carry-less multiplies on the same two pipes, two AES
a cycle, and one carry-less multiply every two cycles, which holds a pipe for both). The calibration table
compares every model with the kernels measured in doc/perf/CLASS/kernels.csv.

--check: the test mode (test/meson.build, model-pipeline): the same run, and fails unless every
aesfast loop it expects was found and modelled on every model; with --mca a stand-in program
(test/fake_mca.py) when llvm-mca-19 is missing.
"""
import argparse
import csv
import datetime
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)

INTEL = ["sapphirerapids", "icelake-server"]
ARM = ["neoverse-v2", "neoverse-v1", "neoverse-n2", "neoverse-n1"]
ARM_SHA3 = ["neoverse-v2", "neoverse-v1", "neoverse-n2"]  # FEAT_SHA3 (EOR3); N1 has none
ZEN5 = "zen5-count"
# llvm-mca models used for calibration only, by CPU class of doc/perf/ (bench/publish.py's names).
CLASS_MODELS = {
    "amd-zen5": [ZEN5, "znver5"],
    "amd-zen4": ["znver4"],
    "amd-zen3": ["znver3"],
    "amd-zen2": ["znver2"],
    "intel-avx512": INTEL,
    "intel-avx2": ["alderlake"],
}

# (loop, kind, symbol suffix). kind: 'keyed' (AES-128 and AES-256 paths) or 'hash'.
X86_TIERS = {
    "aesni": "aesfast_aesni_",
    "vaes-avx2": "aesfast_vaes_avx2_",
    "vaes-avx512": "aesfast_vaes_avx512_",
}
ARM_TIERS = {"armv8": "aesfast_armv8_", "armv8-sha3": "aesfast_armv8_sha3_"}
LOOPS = [
    ("ctr", "keyed", "ctr32_xor"),
    ("gcm-seal", "keyed", "gcm_ctr_then_hash"),
    ("gcm-open", "keyed", "gcm_hash_then_ctr"),
    ("ghash", "hash", "ghash"),
    ("polyval", "hash", "polyval"),
    ("siv-open", "keyed", "gcmsiv_ctr_then_hash"),
    ("siv-ctr", "keyed", "ctr32le_xor"),
    ("msg-seal", "keyed", "gcm_seal_msg"),  # the one-call message kernels, where a tier has them
    ("msg-open", "keyed", "gcm_open_msg"),
    ("pub-seal", "keyed", "gcm_ctr_then_hash_pub"),  # the stitched forms for a public counter
    ("pub-open", "keyed", "gcm_hash_then_ctr_pub"),  # where the tier's table does not name them
]
MSG_TIERS = {"vaes-avx512"}  # the tiers with msg-* and pub-* loops
# The forms the provider calls for a 12-byte IV where a tier has them (aesfast_gcm_stitched).
PUB = {"vaes-avx2": {"gcm-seal": "gcm_ctr_then_hash_pub", "gcm-open": "gcm_hash_then_ctr_pub"}}
# armv8-sha3 shares armv8's CTR (armv8.S).
ARM_SHARED = {"ctr32_xor": "aesfast_armv8_", "ctr32le_xor": "aesfast_armv8_"}

# OpenSSL 3.5's loops that match, per architecture: (perlasm script, flavour, symbol, loop, kind,
# which CPUs run it).
OSSL_X86 = [
    ("crypto/aes/asm/aesni-x86_64.pl", "aesni_ctr32_encrypt_blocks", "ctr", "keyed"),
    ("crypto/modes/asm/ghash-x86_64.pl", "gcm_ghash_avx", "ghash", "hash"),
    ("crypto/modes/asm/aes-gcm-avx512.pl", "ossl_aes_gcm_encrypt_avx512", "gcm-seal", "keyed"),
    ("crypto/modes/asm/aes-gcm-avx512.pl", "ossl_aes_gcm_decrypt_avx512", "gcm-open", "keyed"),
    ("crypto/modes/asm/aesni-gcm-x86_64.pl", "_aesni_ctr32_ghash_6x", "gcm-6x", "keyed"),
]
OSSL_ARM = [
    ("crypto/aes/asm/aesv8-armx.pl", "aes_v8_ctr32_encrypt_blocks", "ctr", "keyed", "4blk"),
    ("crypto/aes/asm/aesv8-armx.pl", "aes_v8_ctr32_encrypt_blocks_unroll12_eor3", "ctr",
     "keyed", "unroll8"),
    ("crypto/modes/asm/ghashv8-armx.pl", "gcm_ghash_v8_4x", "ghash", "hash", "both"),
    ("crypto/modes/asm/aes-gcm-armv8_64.pl", "aes_gcm_enc_{k}_kernel", "gcm-seal", "keyed", "4blk"),
    ("crypto/modes/asm/aes-gcm-armv8_64.pl", "aes_gcm_dec_{k}_kernel", "gcm-open", "keyed", "4blk"),
    ("crypto/modes/asm/aes-gcm-armv8-unroll8_64.pl", "unroll8_eor3_aes_gcm_enc_{k}_kernel",
     "gcm-seal", "keyed", "unroll8"),
    ("crypto/modes/asm/aes-gcm-armv8-unroll8_64.pl", "unroll8_eor3_aes_gcm_dec_{k}_kernel",
     "gcm-open", "keyed", "unroll8"),
]
# Which of aesfast's tiers and of OpenSSL's arm64 GCM kernels each core gets: OpenSSL 3.5 takes
# its unroll8 EOR3 kernels on Neoverse V1, V2 and N2 (by MIDR) and its 4-block ones elsewhere.
ARM_PICK = {
    "neoverse-v2": ("armv8-sha3", "unroll8"),
    "neoverse-v1": ("armv8-sha3", "unroll8"),
    "neoverse-n2": ("armv8-sha3", "unroll8"),
    "neoverse-n1": ("armv8", "4blk"),
}

AES_X86 = re.compile(r"^v?aesenc(last)?$")
AES_LAST_X86 = re.compile(r"^v?aesenclast$")
CLMUL_X86 = re.compile(r"^v?pclmul(qdq|[a-z]+dq)$")
BRANCH_ARM = re.compile(r"^(b(\.[a-z]+)?|cbn?z|tbn?z)$")


def die(msg):
    print("bench/model.py: " + msg, file=sys.stderr)
    sys.exit(1)


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, **kw).stdout


class Insn:
    __slots__ = ("addr", "mnem", "ops", "target")

    def __init__(self, addr, mnem, ops, target):
        self.addr, self.mnem, self.ops, self.target = addr, mnem, ops, target

    def is_branch(self, arch):
        return self.mnem.startswith("j") if arch == "x86" else bool(BRANCH_ARM.match(self.mnem))

    def is_cond(self, arch):
        if arch == "x86":
            return self.mnem not in ("jmp", "jmpq")
        return self.mnem != "b"


def disassemble(obj, objdump, arch):
    """{function: [Insn]} of an object file."""
    out = run([objdump, "-d", "--no-show-raw-insn", obj])
    funcs, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^([0-9a-f]+) <([^>]+)>:$", line)
        if m:
            cur = funcs.setdefault(m.group(2), [])
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if not m or cur is None:
            continue
        mnem, ops = m.group(2), m.group(3)
        ops = ops.split("//")[0] if arch == "arm64" else ops.split("#")[0]
        ops = ops.strip()
        target = None
        t = re.search(r"(?:^|,\s*|\s)(?:0x)?([0-9a-f]+)\s*<[^>]*>$", ops)
        if t:
            target = int(t.group(1), 16)
            ops = ops[:t.start()].strip()
        cur.append(Insn(int(m.group(1), 16), mnem, ops, target))
    return funcs


def lanes(ops):
    return 4 if "zmm" in ops else 2 if "ymm" in ops else 1


def path_stats(path, arch):
    """AES instructions, last rounds, blocks per last round, carry-less multiplies."""
    aes = last = clmul = 0
    width = 1
    if arch == "x86":
        for i in path:
            if AES_X86.match(i.mnem):
                aes += 1
                if AES_LAST_X86.match(i.mnem):
                    last += 1
                    width = lanes(i.ops)
            elif CLMUL_X86.match(i.mnem):
                clmul += 1
    else:
        aesmc = sum(1 for i in path if i.mnem == "aesmc")
        aes = sum(1 for i in path if i.mnem == "aese")
        last = aes - aesmc
        clmul = sum(1 for i in path if i.mnem in ("pmull", "pmull2"))
    return aes, last, width, clmul


def paths(body, arch, limit=512):
    """The paths through a loop body (body[0] the head, body[-1] the back edge)."""
    index = {ins.addr: k for k, ins in enumerate(body)}
    head, n = body[0].addr, len(body)
    found = []

    def walk(k, acc, again=0):
        while k < n:
            if len(found) >= limit:
                return
            ins = body[k]
            acc = acc + [ins]
            if k == n - 1:
                found.append(acc)
                return
            if ins.target is not None and ins.is_branch(arch):
                t = ins.target
                inside = t in index and t > ins.addr
                if ins.is_cond(arch):
                    if inside:
                        walk(index[t], acc, again)
                    elif t == head and again < 7:
                        # an inner loop on the same head (OpenSSL's aesv8 CTR runs its rounds
                        # so): once more from the head; the rounds per block pick the count
                        walk(0, acc, again + 1)
                else:
                    if inside:
                        k = index[t]
                        continue
                    if t == head:
                        found.append(acc)
                    return
            k += 1

    walk(0, [])
    return found


def loops(insns, arch):
    """Every (head, back edge) body of a function, as lists of Insn."""
    pos = {ins.addr: k for k, ins in enumerate(insns)}
    out = []
    for k, ins in enumerate(insns):
        if ins.target is not None and ins.is_branch(arch) and ins.target <= ins.addr \
                and ins.target in pos:
            out.append(insns[pos[ins.target]:k + 1])
    return out


def pointer_step(path, arch):
    """The largest pointer advance in a path, in bytes (a hash loop's data per iteration)."""
    best = 0
    for i in path:
        if arch == "x86":
            m = re.match(r"^\$0x([0-9a-f]+),\s*%r\w+$", i.ops)
            if i.mnem in ("add", "addq") and m:
                best = max(best, int(m.group(1), 16))
            m = re.match(r"^0x([0-9a-f]+)\((%r\w+)\),\s*(%r\w+)$", i.ops)
            if i.mnem in ("lea", "leaq") and m and m.group(2) == m.group(3):
                best = max(best, int(m.group(1), 16))
        else:
            m = re.match(r"^(x\d+),\s*(x\d+),\s*#0x([0-9a-f]+)$", i.ops) or \
                re.match(r"^(x\d+),\s*(x\d+),\s*#(\d+)$", i.ops)
            if i.mnem == "add" and m and m.group(1) == m.group(2):
                v = m.group(3)
                best = max(best, int(v, 16) if "0x" in i.ops.split("#")[1] else int(v))
    if arch == "arm64":  # post-indexed loads: sum per base register
        per = {}
        for i in path:
            m = re.match(r"^.*\[(x\d+)\],\s*#(0x[0-9a-f]+|\d+)$", i.ops)
            if i.mnem.startswith("ld") and m:
                per[m.group(1)] = per.get(m.group(1), 0) + int(m.group(2), 0)
        best = max([best] + list(per.values()))
    return best


def main_loop(insns, arch, kind, rounds):
    """The kept path of the function's main loop, and its blocks per iteration, or None."""
    best = None
    for body in loops(insns, arch):
        for p in paths(body, arch):
            aes, last, width, clmul = path_stats(p, arch)
            if kind == "keyed":
                if not last or aes != rounds * last:
                    continue
                key = (aes, -len(p))
                blocks = last * width
            else:
                if aes or not clmul:
                    continue
                key = (clmul, -len(p))
                blocks = pointer_step(p, arch) // 16
                if not blocks:
                    continue
            if best is None or key > best[0]:
                best = (key, p, blocks)
    return None if best is None else (best[1], best[2])


def fuse(path):
    """The path with each AESMC that follows an AESE of the same register dropped."""
    out, fused = [], 0
    for i in path:
        if i.mnem == "aesmc" and out and out[-1].mnem == "aese" and \
                i.ops.split(",")[0].strip() == out[-1].ops.split(",")[0].strip():
            fused += 1
            continue
        out.append(i)
    return out, fused


def asm_text(path, arch):
    lines = [".Lmodel_target:"]
    for i in path:
        if i.mnem.startswith("nop") or i.mnem in ("data16", "cs"):
            continue
        ops = i.ops
        if i.target is not None and i.is_branch(arch):
            ops = (ops + ", " if ops else "") + ".Lmodel_target"
        lines.append(f"\t{i.mnem}\t{ops}".rstrip())
    return "\n".join(lines) + "\n"


def mca(prog, text, cpu, arch, iterations, tmp):
    src = os.path.join(tmp, "loop.s")
    with open(src, "w") as f:
        f.write(text)
    triple = "x86_64-unknown-linux-gnu" if arch == "x86" else "aarch64-unknown-linux-gnu"
    try:
        attr = [] if arch == "x86" else ["-mattr=+aes,+sha3"]  # the crypto extensions
        out = run([prog, "-mtriple=" + triple, "-mcpu=" + cpu] + attr + [ "-iterations=%d" % iterations,
                   "-resource-pressure=1", "-instruction-info=0", src])
    except subprocess.CalledProcessError as e:
        die("%s -mcpu=%s failed on:\n%s\n%s" % (prog, cpu, text, e.stderr))
    it = int(re.search(r"^Iterations:\s+(\d+)", out, re.M).group(1))
    cyc = int(re.search(r"^Total Cycles:\s+(\d+)", out, re.M).group(1))
    names = dict(re.findall(r"^\[([\d.]+)\]\s+-\s+(\S+)", out, re.M))
    m = re.search(r"^Resource pressure per iteration:\n(.*)\n(.*)\n", out, re.M)
    bind = ("?", 0.0)
    if m:
        heads = re.findall(r"\[([\d.]+)\]", m.group(1))
        vals = m.group(2).split()
        for h, v in zip(heads, vals):
            p = 0.0 if v == "-" else float(v)
            if p > bind[1]:
                bind = (names.get(h, h), p)
    return cyc / it, bind


def port_name(res):
    m = re.match(r"^(SPR|ICX)Port0*(\d+)$", res)
    if m:
        return "port %s" % m.group(2)
    return res


def git(*args):
    try:
        return run(["git", "-C", SRC] + list(args)).strip()
    except (subprocess.CalledProcessError, FileNotFoundError):
        return "?"


def openssl_tree(args):
    if args.no_openssl:
        return None
    if args.openssl:
        return args.openssl
    try:
        return run([os.path.join(SRC, "test", "build-openssl.sh"), "--series", "3.5"]).strip()
    except subprocess.CalledProcessError:
        die("test/build-openssl.sh --series 3.5 failed: give --openssl TREE or --no-openssl")


def openssl_version(tree):
    v = {}
    with open(os.path.join(tree, "VERSION.dat")) as f:
        for line in f:
            k, _, val = line.strip().partition("=")
            v[k] = val.strip('"')
    return "%s.%s.%s" % (v.get("MAJOR"), v.get("MINOR"), v.get("PATCH"))


def openssl_objects(tree, tmp, want_arm):
    """{(arch, script): object} from the tree's perlasm scripts, generated and assembled here."""
    objs = {}
    env = dict(os.environ, CC="gcc")
    jobs = [("x86", s) for s in sorted({e[0] for e in OSSL_X86})]
    if want_arm:
        jobs += [("arm64", s) for s in sorted({e[0] for e in OSSL_ARM})]
    for arch, script in jobs:
        base = os.path.join(tmp, arch + "-" + os.path.basename(script)[:-3])
        try:
            if arch == "x86":
                run(["perl", os.path.join(tree, script), "elf", base + ".s"], env=env, cwd=tmp)
                run(["gcc", "-c", base + ".s", "-o", base + ".o"])
            else:
                run(["perl", os.path.join(tree, script), "linux64", base + ".S"], env=env, cwd=tmp)
                run(["aarch64-linux-gnu-gcc", "-c", "-I" + os.path.join(tree, "include"),
                     "-I" + os.path.join(tree, "crypto"), "-I" + tree, base + ".S", "-o",
                     base + ".o"])
            objs[(arch, script)] = base + ".o"
        except (subprocess.CalledProcessError, FileNotFoundError) as e:
            print("bench/model.py: OpenSSL's %s for %s: %s" % (script, arch, e), file=sys.stderr)
    return objs


def measured_classes(perf_dir):
    """{class: {(tier, loop, key_bits): cycles per 16 blocks at 16 KiB}} from doc/perf."""
    out = {}
    for path in sorted(glob.glob(os.path.join(perf_dir, "*", "kernels.csv"))):
        cls = os.path.basename(os.path.dirname(path))
        rows = {}
        with open(path) as f:
            for r in csv.DictReader(f):
                if r.get("bytes") == "16384":
                    rows[(r["tier"], r["function"], int(r["key_bits"]))] = \
                        float(r["cycles_per_16_blocks"])
        out[cls] = rows
    return out


def fmt(x):
    return "" if x is None else ("%.1f" % x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--arm64-build", default=os.path.join(SRC, "build-arm64"))
    ap.add_argument("--openssl", help="OpenSSL source tree (default: test/build-openssl.sh's 3.5)")
    ap.add_argument("--no-openssl", action="store_true")
    ap.add_argument("--no-arm64", action="store_true", help="leave aesfast's arm64 loops out")
    ap.add_argument("--mca", default="llvm-mca-19")
    ap.add_argument("--objdump", default=None)
    ap.add_argument("--out", default=os.path.join(SRC, "doc", "perf", "model"))
    ap.add_argument("--perf", default=os.path.join(SRC, "doc", "perf"))
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    started = datetime.datetime.now(datetime.timezone.utc)

    objdump = args.objdump or (shutil.which("llvm-objdump-19") and "llvm-objdump-19")
    if not objdump:
        objdump = "objdump"  # GNU: x86-64 objects only
    if not shutil.which(args.mca) and not os.path.exists(args.mca):
        die("no %s (apt-get install llvm-19)" % args.mca)
    mca_version = "?"
    try:
        mca_version = run([args.mca, "--version"]).splitlines()
        mca_version = next((l.strip() for l in mca_version if "version" in l.lower()), "?")
    except (subprocess.CalledProcessError, OSError):
        pass

    x86_lib = os.path.join(args.build, "kernels", "libaesfast_kernels.a.p")
    arm_lib = os.path.join(args.arm64_build, "kernels", "libaesfast_kernels.a.p")
    arm_ok = not args.no_arm64 and os.path.isdir(arm_lib) and ("llvm" in os.path.basename(objdump) or
                                         objdump.endswith("aarch64-linux-gnu-objdump"))
    notes = []
    funcs = {"x86": {}, "arm64": {}}
    for arch, lib in (("x86", x86_lib), ("arm64", arm_lib if arm_ok else None)):
        if lib is None:
            notes.append("no arm64 objects (%s): the arm64 loops left out" % (
                "--no-arm64" if args.no_arm64 else os.path.relpath(arm_lib, SRC)))
            continue
        for o in sorted(glob.glob(os.path.join(lib, "*.S.o"))):
            funcs[arch].update(disassemble(o, objdump, arch))
    if not funcs["x86"]:
        die("no x86-64 kernel objects in %s (build first: meson setup build && ninja -C build)"
            % x86_lib)

    tree = openssl_tree(args)
    ossl_ver = openssl_version(tree) if tree else None
    tmp = tempfile.mkdtemp(prefix="aesfast-model-")
    rows, missing = [], []
    try:
        ossl_funcs = {}
        if tree:
            for (arch, script), o in openssl_objects(tree, tmp, arm_ok).items():
                ossl_funcs[(arch, script)] = disassemble(o, objdump, arch)

        def model(source, tier, loop, sym, kind, arch, insns, cpus, only=None):
            for bits in ((128, 256) if kind == "keyed" else (0,)):
                if only and bits != only:
                    continue
                got = main_loop(insns, arch, kind, 10 if bits == 128 else 14) if insns else None
                name = loop + ("-%d" % bits if bits else "")
                if got is None:
                    missing.append("%s %s %s (%s)" % (source, tier, name, sym))
                    continue
                path, blocks = got
                variants = [("", path)]
                if arch == "arm64":
                    fpath, nf = fuse(path)
                    if nf:
                        variants.append(("fused", fpath))
                aes, last, width, clmul = path_stats(path, arch)
                for cpu in cpus:
                    for var, p in variants:
                        cyc, bind = mca(args.mca, asm_text(p, arch), cpu, arch, args.iterations,
                                        tmp)
                        k = 16.0 / blocks
                        rows.append(dict(source=source, tier=tier, loop=name, function=sym,
                                         blocks=blocks, insns=len(p), aes=aes, clmul=clmul,
                                         model=cpu + ("+" + var if var else ""),
                                         cycles16=cyc * k, bound=port_name(bind[0]),
                                         bound16=bind[1] * k))
                if arch == "x86":
                    z = max((aes + 2 * clmul) / 2.0, 2.0 * clmul) * 16.0 / blocks
                    rows.append(dict(source=source, tier=tier, loop=name, function=sym,
                                     blocks=blocks, insns=len(path), aes=aes, clmul=clmul,
                                     model=ZEN5, cycles16=z,
                                     bound="AES + CLMUL pipes" if aes > 2 * clmul else "CLMUL",
                                     bound16=z))

        extra = ["znver5"]  # calibration only
        for tier, pre in X86_TIERS.items():
            for loop, kind, suffix in LOOPS:
                if loop.startswith(("msg-", "pub-")) and tier not in MSG_TIERS:
                    continue
                sym = pre + PUB.get(tier, {}).get(loop, suffix)
                cpus = INTEL + extra
                model("aesfast", tier, loop, sym, kind, "x86", funcs["x86"].get(sym), cpus)
        if arm_ok:
            for tier, pre in ARM_TIERS.items():
                for loop, kind, suffix in LOOPS:
                    if loop.startswith(("msg-", "pub-")):
                        continue
                    sym = ARM_SHARED.get(suffix, pre) + suffix
                    cpus = ARM_SHA3 if tier == "armv8-sha3" else ARM
                    model("aesfast", tier, loop, sym, kind, "arm64", funcs["arm64"].get(sym),
                          cpus)
        if tree:
            for script, sym, loop, kind in OSSL_X86:
                f = ossl_funcs.get(("x86", script), {})
                model("openssl-" + ossl_ver, os.path.basename(script), loop, sym, kind, "x86",
                      f.get(sym), INTEL + extra)
            for script, sym, loop, kind, pick in (OSSL_ARM if arm_ok else []):
                f = ossl_funcs.get(("arm64", script), {})
                cpus = ARM if pick != "unroll8" else ARM_SHA3
                if "{k}" in sym:  # one function per key size
                    for bits in (128, 256):
                        s = sym.format(k=bits)
                        model("openssl-" + ossl_ver, os.path.basename(script), loop, s, kind,
                              "arm64", f.get(s), cpus, only=bits)
                else:
                    model("openssl-" + ossl_ver, os.path.basename(script), loop, sym, kind,
                          "arm64", f.get(sym), cpus, only=128 if kind == "keyed" else None)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    os.makedirs(args.out, exist_ok=True)
    fields = ["source", "tier", "loop", "function", "blocks", "insns", "aes", "clmul", "model",
              "cycles16", "bound", "bound16"]
    with open(os.path.join(args.out, "model.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["source", "tier", "loop", "function", "blocks_per_iteration",
                    "instructions_per_iteration", "aes_instructions", "clmul_instructions",
                    "model", "cycles_per_16_blocks", "busiest_resource",
                    "busiest_resource_cycles_per_16_blocks"])
        for r in rows:
            w.writerow([("%.2f" % r[k]) if isinstance(r[k], float) else r[k] for k in fields])

    page = write_page(args, rows, missing, notes, mca_version, ossl_ver, tree, started,
                      measured_classes(args.perf))
    with open(os.path.join(args.out, "README.md"), "w") as f:
        f.write(page)
    print("bench/model.py: wrote %s (%d rows)" % (args.out, len(rows)))
    if missing:
        print("bench/model.py: not modelled: " + "; ".join(missing), file=sys.stderr)
    if args.check:
        want = []
        for tier in X86_TIERS:
            for loop, kind, _ in LOOPS:
                if loop.startswith(("msg-", "pub-")) and tier not in MSG_TIERS:
                    continue
                for n in ((loop + "-128", loop + "-256") if kind == "keyed" else (loop,)):
                    for cpu in INTEL + [ZEN5]:
                        want.append(("aesfast", tier, n, cpu))
        have = {(r["source"], r["tier"], r["loop"], r["model"]) for r in rows}
        lost = [w for w in want if w not in have]
        bad = [r for r in rows if not r["cycles16"] > 0]
        if lost or bad:
            die("check: %d expected rows missing (%s), %d without cycles"
                % (len(lost), ", ".join(" ".join(w) for w in lost[:5]), len(bad)))
        print("bench/model.py: check: %d rows, every aesfast x86-64 loop modelled" % len(rows))


def pick(rows, source_prefix, tier, loop, model):
    for r in rows:
        if r["source"].startswith(source_prefix) and (tier is None or r["tier"] == tier) \
                and r["loop"] == loop and r["model"] == model:
            return r
    return None


def write_page(args, rows, missing, notes, mca_version, ossl_ver, tree, started, measured):
    commit = git("rev-parse", "HEAD")
    dirty = git("status", "--porcelain", "--untracked-files=no")
    cmd = "bench/model.py " + " ".join(a for a in sys.argv[1:])
    L = []
    L.append("# A pipeline model of the main loops (not a measurement)")
    L.append("")
    L.append("Written by `bench/model.py`; do not edit: run it again. Every figure here is what "
             "LLVM's scheduling models (llvm-mca) or a count say of a loop's instructions, for "
             "CPUs this project has not run on; none is measured. The calibration table at the "
             "end shows how far the models are from the CPUs measured in "
             "[doc/perf/](../README.md).")
    L.append("")
    L.append("## Provenance")
    L.append("")
    L.append("- command: `%s` (from the repository's top folder)" % cmd.strip())
    L.append("- written %s UTC from commit `%s`%s" % (
        started.strftime("%Y-%m-%d %H:%M"), commit[:12],
        "" if not dirty or dirty == "?" else " (with uncommitted changes)"))
    L.append("- llvm-mca: `%s`, %d iterations a loop" % (mca_version, args.iterations))
    L.append("- OpenSSL: %s" % ("%s, its perlasm scripts (%s) run and assembled here" % (
        ossl_ver, ", ".join(sorted({os.path.basename(e[0]) for e in OSSL_X86 + OSSL_ARM})))
        if ossl_ver else "left out (--no-openssl)"))
    L.append("- aesfast: the objects of `%s` (x86-64) and `%s` (arm64)" % (
        os.path.relpath(args.build, SRC), os.path.relpath(args.arm64_build, SRC)))
    for n in notes:
        L.append("- " + n)
    L.append("")
    L.append("## How to read it")
    L.append("")
    L.append("Each loop is the instructions between its head and its back edge, one path: AES-128's "
             "(AES-256's where named) and a counter's common case; cycles are llvm-mca's total "
             "over %d iterations, per 16 blocks. The busiest resource is the model's unit "
             "with the most work per iteration (`port 0`, `port 5`: Intel's vector ports; "
             "V2UnitV and the like: Neoverse's vector pipes); where its cycles equal the loop's "
             "it binds, where they fall short the loop waits on latencies. `zen5-count` is no "
             "model: max((AES instructions + 2 x carry-less multiplies) / 2, 2 x carry-less "
             "multiplies) per 16 blocks, what AMD Zen 5's two shared pipes allow (two AES a "
             "cycle; one carry-less multiply every two cycles, holding a pipe for both), as "
             "measured there by `build/bench/kernels --insn`. LLVM 19 has no Zen 5 model (its `znver5` is "
             "Zen 4's: shown in the calibration only) and its `apple-m1` is the 2013 Cyclone's: "
             "neither is used. The Neoverse models issue AESE and AESMC apart, which the cores "
             "fuse: each arm64 loop is shown unfused and `+fused` (each AESMC after an AESE of "
             "the same register dropped); the core is between the two." % args.iterations)
    L.append("")

    # x86-64
    loops_x86 = ["ctr-128", "gcm-seal-128", "gcm-open-128", "msg-seal-128", "msg-open-128",
                 "pub-seal-128", "pub-open-128", "ghash", "polyval", "siv-open-128",
                 "siv-ctr-128", "ctr-256", "gcm-seal-256", "gcm-open-256", "msg-seal-256",
                 "msg-open-256", "pub-seal-256", "pub-open-256"]
    ossl_x86 = {"ctr-128": "aesni-x86_64", "ctr-256": "aesni-x86_64", "ghash": "ghash-x86_64",
                "gcm-seal-128": "aes-gcm-avx512", "gcm-open-128": "aes-gcm-avx512",
                "gcm-seal-256": "aes-gcm-avx512", "gcm-open-256": "aes-gcm-avx512"}
    for k in list(ossl_x86):
        if k.startswith("gcm-"):
            ossl_x86["msg" + k[3:]] = ossl_x86["pub" + k[3:]] = ossl_x86[k]
    L.append("## x86-64: Intel AVX-512 servers, and the Zen 5 count")
    L.append("")
    L.append("Cycles per 16 blocks (busiest resource). aesfast's `vaes-avx512` tier: what "
             "Sapphire Rapids and later get (on Ice Lake servers, whose clock drops under 512-bit "
             "registers, the automatic choice is `vaes-avx2`, in the next table; "
             "`AESFAST_KERNEL=vaes-avx512` runs this one). OpenSSL %s's loop beside it is the one "
             "its default provider runs on both (AES-NI CTR, `gcm_ghash_avx`, the AVX-512 GCM of "
             "aes-gcm-avx512.pl)." % (ossl_ver or "(left out here)"))
    L.append("")
    L.append("`gcm-*`: the stitched loops (gcm_ctr_then_hash, gcm_hash_then_ctr, any counter); "
             "`msg-*`: the one-call message kernels the provider runs for a message with a 12-byte "
             "IV; `pub-*`: the stitched forms for such a public counter, where the tier's table "
             "in provider/dispatch.c names them (else the provider calls `gcm-*`). OpenSSL's "
             "column is its one GCM loop on each row.")
    L.append("")
    L.append("| loop | aesfast sapphirerapids | OpenSSL sapphirerapids | aesfast icelake-server "
             "| OpenSSL icelake-server | aesfast zen5-count | OpenSSL zen5-count |")
    L.append("|---|---:|---:|---:|---:|---:|---:|")

    def cell(r, bound=True):
        if not r:
            return "–"
        if not bound or r["model"] == ZEN5:
            return "%.1f" % r["cycles16"]
        return "%.1f (%s %.1f)" % (r["cycles16"], r["bound"], r["bound16"])

    for loop in loops_x86:
        a = [pick(rows, "aesfast", "vaes-avx512", loop, m) for m in INTEL + [ZEN5]]
        o = [pick(rows, "openssl", None, "gcm-" + loop[4:] if loop[:4] in ("msg-", "pub-") else loop, m) if loop in ossl_x86 else None
             for m in INTEL + [ZEN5]]
        o = [r if r is None or r["tier"].startswith(ossl_x86.get(loop, "?")) else None for r in o]
        L.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            loop, cell(a[0]), cell(o[0]), cell(a[1]), cell(o[1]), cell(a[2]), cell(o[2])))
    L.append("")
    L.append("The other x86-64 tiers, sapphirerapids / zen5-count (`aesni` is also what OpenSSL's "
             "6-block `aesni-gcm-x86_64` loop is to compare with: %s):" % (
                 cell(pick(rows, "openssl", None, "gcm-6x-128", "sapphirerapids")) + " / " +
                 cell(pick(rows, "openssl", None, "gcm-6x-128", ZEN5))))
    L.append("")
    L.append("| loop | aesni | vaes-avx2 | vaes-avx2 icelake-server |")
    L.append("|---|---:|---:|---:|")
    for loop in loops_x86:
        if loop.startswith(("msg-", "pub-")):
            continue
        c = []
        for tier in ("aesni", "vaes-avx2"):
            r1 = pick(rows, "aesfast", tier, loop, "sapphirerapids")
            r2 = pick(rows, "aesfast", tier, loop, ZEN5)
            c.append("%s / %s" % (cell(r1), cell(r2)))
        c.append(cell(pick(rows, "aesfast", "vaes-avx2", loop, "icelake-server")))
        L.append("| %s | %s | %s | %s |" % (loop, c[0], c[1], c[2]))
    L.append("")

    # arm64
    L.append("## arm64: Neoverse cores")
    L.append("")
    if not any(r["tier"].startswith("armv8") for r in rows):
        L.append("No arm64 objects: not modelled here (see the provenance).")
        L.append("")
    else:
        L.append("Cycles per 16 blocks, unfused / fused. Each core gets the aesfast tier and the "
                 "OpenSSL kernel it runs: `armv8-sha3` and OpenSSL's unroll8 EOR3 kernels "
                 "(aes-gcm-armv8-unroll8_64.pl, taken on Neoverse V1, V2 and N2) where the core "
                 "has SHA3, else `armv8` and the 4-block kernels (aes-gcm-armv8_64.pl). The "
                 "verdict compares the two in both readings; the spread is aesfast's loop "
                 "unfused against fused, the least error of the model.")
        L.append("")
        L.append("| core | loop | aesfast | OpenSSL | verdict |")
        L.append("|---|---|---:|---:|---|")
        for core, (tier, okind) in ARM_PICK.items():
            oscript = "aes-gcm-armv8-unroll8_64" if okind == "unroll8" else "aes-gcm-armv8_64"
            octr = "aesv8-armx"
            for loop in ("gcm-seal-128", "gcm-open-128", "gcm-seal-256", "gcm-open-256",
                         "ghash", "polyval", "ctr-128", "siv-open-128"):
                a = pick(rows, "aesfast", tier, loop, core)
                af = pick(rows, "aesfast", tier, loop, core + "+fused") or a
                want = oscript if loop.startswith("gcm") else "ghashv8-armx" \
                    if loop == "ghash" else octr if loop.startswith("ctr") else None
                o = of = None
                if want:
                    fn_ok = (lambda r: r and r["tier"].startswith(want) and (
                        not loop.startswith("ctr") or
                        ("unroll12" in r["function"]) == (okind == "unroll8")))
                    o = pick(rows, "openssl", None, loop, core)
                    o = o if fn_ok(o) else next((r for r in rows if r["source"].startswith(
                        "openssl") and r["loop"] == loop and r["model"] == core and fn_ok(r)),
                        None)
                    of = next((r for r in rows if r["source"].startswith("openssl") and
                               r["loop"] == loop and r["model"] == core + "+fused" and fn_ok(r)
                               and o and r["function"] == o["function"]), o)
                if not a:
                    continue
                av = "%.1f / %.1f" % (a["cycles16"], af["cycles16"])
                ov = "%.1f / %.1f" % (o["cycles16"], of["cycles16"]) if o else \
                    ("no assembly loop" if not want else "not modelled")
                L.append("| %s | %s (`%s`) | %s | %s | %s |" % (
                    core, loop, tier, av, ov, verdict(a, af, o, of)))
        L.append("")
        L.append("By core, from the GCM rows above (AES-128): " + "; ".join(
            "%s: %s" % (core, arm_summary(rows, core, tier, okind))
            for core, (tier, okind) in ARM_PICK.items()) + ".")
        L.append("")

    # calibration
    L.append("## Calibration: the models against the CPUs measured")
    L.append("")
    L.append("Every CPU class with a page in doc/perf/ (its kernels.csv, `build/bench/kernels`, "
             "16 KiB, AES-128 where keyed), against the model or count meant for it: "
             "model / measured - 1. `siv-seal` is POLYVAL and then CTR, the two loops' sum. "
             "A class without a page (Intel AVX-512 and arm64 among them) has no row: for "
             "them this page is a model only.")
    L.append("")
    L.append("| class | tier | loop | measured | " + " | ".join(
        "model" for _ in range(1)) + " |")
    L.append("|---|---|---|---:|---|")
    fnmap = {"ctr": "ctr-128", "gcm-seal": "gcm-seal-128", "gcm-open": "gcm-open-128",
             "ghash": "ghash", "polyval": "polyval", "siv-open": "siv-open-128",
             "siv-seal": ("polyval", "siv-ctr-128")}
    errs = {}
    for cls, meas in sorted(measured.items()):
        models = CLASS_MODELS.get(cls, [])
        for (tier, fn, bits), cyc in sorted(meas.items()):
            if fn not in fnmap or bits not in (0, 128):
                continue
            parts = fnmap[fn] if isinstance(fnmap[fn], tuple) else (fnmap[fn],)
            cells = []
            for m in models:
                rs = [pick(rows, "aesfast", tier, p, m) for p in parts]
                if all(rs):
                    v = sum(r["cycles16"] for r in rs)
                    cells.append("%s %.1f (%+.0f %%)" % (m, v, 100 * (v / cyc - 1)))
                    errs.setdefault((cls, m), []).append(v / cyc - 1)
            if cells:
                L.append("| %s | %s | %s | %.1f | %s |" % (cls, tier, fn, cyc, ", ".join(cells)))
    L.append("")
    if errs:
        L.append("Error ranges: " + "; ".join(
            "%s by %s: %+.0f %% to %+.0f %%" % (cls, m, 100 * min(v), 100 * max(v))
            for (cls, m), v in sorted(errs.items())) + ".")
        L.append("")
    if missing:
        L.append("## Not modelled")
        L.append("")
        L.append("No loop matching the rules above (one path, unrolled rounds) was found in: " +
                 "; ".join(missing) + ".")
        L.append("")
    L.append("Every row: [model.csv](model.csv) (`busiest_resource_cycles_per_16_blocks`: that "
             "resource's work per 16 blocks).")
    L.append("")
    return "\n".join(L)


def verdict(a, af, o, of):
    if not o:
        return ""
    d1 = a["cycles16"] / o["cycles16"] - 1
    d2 = af["cycles16"] / of["cycles16"] - 1
    spread = abs(a["cycles16"] - af["cycles16"]) / a["cycles16"]
    lo, hi = min(d1, d2), max(d1, d2)
    if hi < 0:
        return "aesfast ahead (%+.0f..%+.0f %%)" % (100 * lo, 100 * hi)
    if lo > 0 and lo > spread:
        return "**aesfast behind (%+.0f..%+.0f %%), beyond the spread %.0f %%**" % (
            100 * lo, 100 * hi, 100 * spread)
    if lo > 0:
        return "aesfast behind (%+.0f..%+.0f %%), within the spread %.0f %%" % (
            100 * lo, 100 * hi, 100 * spread)
    return "even (%+.0f..%+.0f %%)" % (100 * lo, 100 * hi)


def arm_summary(rows, core, tier, okind):
    want = "aes-gcm-armv8-unroll8_64" if okind == "unroll8" else "aes-gcm-armv8_64"
    out = []
    for loop in ("gcm-seal-128", "gcm-open-128"):
        a = pick(rows, "aesfast", tier, loop, core)
        af = pick(rows, "aesfast", tier, loop, core + "+fused") or a
        o = next((r for r in rows if r["source"].startswith("openssl") and r["loop"] == loop
                  and r["model"] == core and r["tier"].startswith(want)), None)
        of = next((r for r in rows if r["source"].startswith("openssl") and r["loop"] == loop
                   and r["model"] == core + "+fused" and r["tier"].startswith(want)), o)
        if a and o:
            out.append("%s %s" % (loop.split("-")[1], verdict(a, af, o, of)))
    return ", ".join(out) or "not modelled"


if __name__ == "__main__":
    main()
