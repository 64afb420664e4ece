#!/usr/bin/env python3
"""Writes the performance pages from one run of bench/run.sh --publish (which calls this last).

Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).

    bench/publish.py --stage DIR [--class NAME] [--out doc/perf] [--readme README.md]

DIR is what run.sh gathered in this run (build/bench/publish): meta (key=value lines: the
command, its start, the commit and whether the tree was dirty, --quick), libcrypto (one line per
libcrypto benchmarked: label|system or tree|library path|version string), and per label
bench-LABEL.csv and .log (build/bench/bench --csv, its stderr), noise-LABEL.csv and .log (the
same bench with the default provider on both sides, --verbose: every round), kernels.csv and
insn.txt (build/bench/kernels --csv, --insn), tls.txt and tls.csv (bench/tls.sh) if it ran,
speed-LABEL.csv (run.sh's `openssl speed -evp aes-128-gcm`, aesfast against default) and
binding.csv (bench/binding.py, Python's cryptography) if they ran.
Every figure on the pages comes from these files; nothing is carried over from an earlier run.

It writes doc/perf/CLASS/ (emptied first: the pages are written by this tool, never by hand):
README.md (the page), PROVENANCE.md, the CSVs, gbps-LABEL.svg and speedup-LABEL.svg
(bench/plot.sh), insn.txt, tls.txt; then doc/perf/README.md, the index of every class in
doc/perf; then the block between <!-- perf:begin --> and <!-- perf:end --> in README.md.

CPU classes (cpu_class), from /proc/cpuinfo; the first rule that matches names the class:
  x86-64, AuthenticAMD   family 23 (17h): models < 0x30 amd-zen1 (Zen, Zen+), else amd-zen2;
                         family 25 (19h): amd-zen4 if the flags have avx512f, else amd-zen3
                         (Zen 3 and 3+ have no AVX-512, every Zen 4 has it); family 26 (1Ah):
                         amd-zen5; any other family: amd-family-N
  x86-64, GenuineIntel   intel-avx512 with avx512f, vaes and vpclmulqdq (aesfast's vaes-avx512
                         tier: Ice Lake and later Xeons); intel-avx2 with avx2, vaes and
                         vpclmulqdq but no AVX-512 (the vaes-avx2 tier: Alder Lake and later
                         clients); intel-aesni with aes (the aesni tier); else intel-generic
  x86-64, other vendor   x86-VENDOR (lower case)
  aarch64                arm64-NAME from "CPU implementer" and "CPU part": 0x41 (Arm) parts
                         0xd0c neoverse-n1, 0xd40 neoverse-v1, 0xd49 neoverse-n2, 0xd4f
                         neoverse-v2, 0xd8e neoverse-n3, 0xd84 neoverse-v3, 0xd0b cortex-a76,
                         0xd41 cortex-a78, 0xd08 cortex-a72, 0xd03 cortex-a53; 0xc0 (Ampere)
                         0xac3 ampere1, 0xac4 ampere1a; 0x61 apple; else arm64-IMPL-PART
                         (hex); "-noaes" appended when the features lack aes or pmull
--class NAME overrides the rule (recorded as such in PROVENANCE.md).
"""
import argparse
import datetime
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The headline: (cipher, operation) rows and message sizes, for README.md and the page.
HEADLINE_ROWS = [
    ("AES-128-GCM", "seal"), ("AES-128-GCM", "open"), ("AES-256-GCM", "seal"),
    ("AES-256-GCM", "open"), ("AES-128-CTR", "bulk"), ("AES-256-CTR", "bulk"),
    ("AES-128-GCM-SIV", "seal"), ("AES-256-GCM-SIV", "seal"),
    # A key, a context or a copy set up per message (build/bench/bench's rekey, speed, newctx,
    # copy): where a program that does not keep its context loses or gains.
    ("AES-128-GCM", "rekey"), ("AES-128-GCM", "speed"), ("AES-128-GCM", "newctx"),
    ("AES-128-GCM", "copy"),
]
HEADLINE_SIZES = [(16, "16 B"), (1024, "1 KiB"), (16384, "16 KiB"), (1 << 20, "1 MiB")]

# Each kernel's main loop, per 16 blocks, as counted in its source (and the disassembly of the
# build): AES round instructions for AES-128 and AES-256 and carry-less multiplies, and the
# vector width. The file headers of kernels/amd64/gcm_vaes.S, gcm_aesni.S and vaes.S / aesni.S
# give the same counts. With the issue cost of one such instruction measured in this run
# (build/bench/kernels --insn), count x cost is the least time the loop could take if nothing
# else mattered: the larger of the two is the port bound the page shows beside the measured
# cycles. siv-seal is POLYVAL, then CTR: two passes, so its bound is their sum.
LOOP_OPS = {
    "vaes-avx512": ("zmm", {"ctr": (40, 56, 0), "gcm": (40, 56, 13), "ghash": (0, 0, 13),
                            "polyval": (0, 0, 13), "siv-open": (40, 56, 13)}),
    "vaes-avx2": ("ymm", {"ctr": (80, 112, 0), "gcm": (80, 112, 25), "ghash": (0, 0, 26),
                          "polyval": (0, 0, 26), "siv-open": (80, 112, 26)}),
    "aesni": ("xmm", {"ctr": (160, 224, 0), "gcm": (160, 224, 52), "ghash": (0, 0, 52),
                      "polyval": (0, 0, 52), "siv-open": (160, 224, 52)}),
}
KERNEL_FNS = ["ctr", "gcm-seal", "gcm-open", "ghash", "siv-seal", "siv-open", "polyval"]

# Key setup (build/bench/kernels set-key, gcm-hkey, gcm-hkey-few, gcm-hkey-rest, siv-keys,
# siv-keys-few: one call each, bytes
# 0), counted in the source: kernels/amd64/aesni.S (set_key: per step of the expansion a PSHUFB,
# an AESENCLAST and a PXOR on the chain, 10 steps for AES-128 and 13 for AES-256;
# encrypt_block: the rounds; gcmsiv_derive: six blocks side by side, then set_key's expansion of
# the nonce's key), which every x86-64 tier uses, and the tiers' hash_init (gcm_vaes.S:
# _ghash_init_fn, _ghash_init32_fn, a tree of _mont_mul, each three dependent carry-less
# multiplies, 6 issued, and three XORs on the chain; gcm_aesni.S: _hash_init_body, a chain of 7
# Karatsuba multiplies, 5 issued). Per part: (AES rounds, carry-less multiplies, one-cycle vector
# operations: shuffles, XORs, shifts) on the chain of dependent instructions, AES rounds issued
# (xmm), and carry-less multiplies issued by width.
def _setkey(bits):
    n = 10 if bits == 128 else 13
    return dict(chain=(n, 0, 2 * n), aes=n, clmul={})


def _eblock(bits):
    r = 10 if bits == 128 else 14
    return dict(chain=(r, 0, 1), aes=r, clmul={})


def _derive(bits):
    r = 10 if bits == 128 else 14
    return dict(chain=(r, 0, 2), aes=6 * r, clmul={})


HASH_INIT_OPS = {  # (tier, ghash | polyval | polyval-few): chain, clmul issued by width
    ("vaes-avx512", "ghash"): dict(chain=(0, 15, 24), aes=0, clmul={"xmm": 6, "ymm": 6, "zmm": 42}),
    ("vaes-avx512", "polyval"): dict(chain=(0, 15, 19), aes=0, clmul={"xmm": 6, "ymm": 6, "zmm": 42}),
    ("vaes-avx512", "polyval-few"): dict(chain=(0, 9, 11), aes=0, clmul={"xmm": 6, "ymm": 6, "zmm": 6}),
    ("vaes-avx512", "ghash-few"): dict(chain=(0, 9, 16), aes=0, clmul={"xmm": 6, "ymm": 6, "zmm": 6}),
    ("vaes-avx512", "ghash-rest"): dict(chain=(0, 6, 8), aes=0, clmul={"zmm": 36}),
    ("vaes-avx2", "ghash"): dict(chain=(0, 15, 24), aes=0, clmul={"xmm": 6, "ymm": 90}),
    ("vaes-avx2", "polyval"): dict(chain=(0, 12, 15), aes=0, clmul={"xmm": 6, "ymm": 42}),
    ("vaes-avx2", "polyval-few"): dict(chain=(0, 9, 11), aes=0, clmul={"xmm": 6, "ymm": 18}),
    ("vaes-avx2", "ghash-few"): dict(chain=(0, 9, 16), aes=0, clmul={"xmm": 6, "ymm": 18}),
    ("vaes-avx2", "ghash-rest"): dict(chain=(0, 6, 8), aes=0, clmul={"ymm": 72}),
    ("aesni", "ghash"): dict(chain=(0, 21, 47), aes=0, clmul={"xmm": 35}),
    ("aesni", "polyval"): dict(chain=(0, 21, 42), aes=0, clmul={"xmm": 35}),
    ("aesni", "polyval-few"): dict(chain=(0, 21, 42), aes=0, clmul={"xmm": 35}),  # = hash_init
    ("aesni", "ghash-few"): dict(chain=(0, 21, 47), aes=0, clmul={"xmm": 35}),  # = hash_init
}


def _seq(*parts):
    """Parts one after another: chains add, issues add."""
    out = dict(chain=(0, 0, 0), aes=0, clmul={})
    for p in parts:
        out["chain"] = tuple(a + b for a, b in zip(out["chain"], p["chain"]))
        out["aes"] += p["aes"]
        for w, n in p["clmul"].items():
            out["clmul"][w] = out["clmul"].get(w, 0) + n
    return out


def setup_ops(tier, fn, bits):
    """The counts of a key-setup function (see above), or None for a tier not counted."""
    if fn == "set-key":
        return _setkey(bits) if tier in ("aesni", "vaes-avx2", "vaes-avx512") else None
    kind = {"gcm-hkey": "ghash", "gcm-hkey-few": "ghash-few", "gcm-hkey-rest": "ghash-rest",
            "siv-keys": "polyval", "siv-keys-few": "polyval-few"}.get(fn)
    h = HASH_INIT_OPS.get((tier, kind))
    if h is None:
        return None
    if fn in ("gcm-hkey", "gcm-hkey-few"):
        return _seq(_eblock(bits), h)
    if fn == "gcm-hkey-rest":
        return h
    # derive, then the nonce key's expansion beside the powers (both need only derive's output):
    # the chain is derive's and the longer of the two; everything issues
    both = _seq(_derive(bits), _setkey(bits), h)
    sk, hc, d = _setkey(bits)["chain"], h["chain"], _derive(bits)["chain"]
    both["chain2"] = (d, sk, hc)
    return both


def setup_floor(tier, fn, bits, costs):
    """(floor, its arithmetic, chain) in cycles per call from the counts and --insn's costs, or
    None. kernels times calls back to back, independent of each other, which the core overlaps:
    the floor is their issue (AES rounds, carry-less multiplies, as the loops' bound); the chain
    of one call's dependent instructions is what one call alone takes at least (a key set up and
    used at once), shown beside it."""
    ops = setup_ops(tier, fn, bits)
    la, lc, lx = (costs.get(("VAESENC latency", "xmm")), costs.get(("VPCLMULQDQ latency", "xmm")),
                  costs.get(("VPXOR(D) latency", "xmm")))
    ca = costs.get(("VAESENC", "xmm"))
    if ops is None or None in (la, lc, lx, ca):
        return None
    la, lc, lx = (whole_latency(x) for x in (la, lc, lx))
    lat = lambda c: c[0] * la + c[1] * lc + c[2] * lx
    if "chain2" in ops:
        d, sk, hc = ops["chain2"]
        chain = lat(d) + max(lat(sk), lat(hc))
    else:
        chain = lat(ops["chain"])
    fa = ops["aes"] * issue_cost(ca)
    fc = 0.0
    for w, n in ops["clmul"].items():
        cc = costs.get(("VPCLMULQDQ", w))
        if cc is None:
            return None
        fc += n * issue_cost(cc)
    if fa >= fc:
        what = f"VAESENC xmm {ops['aes']} × {fmt_cost(issue_cost(ca))} = {fa:.1f}"
    else:
        what = "VPCLMULQDQ " + " + ".join(
            f"{w} {n} × {fmt_cost(issue_cost(costs[('VPCLMULQDQ', w)]))}"
            for w, n in ops["clmul"].items()) + f" = {fc:.1f}"
    a, c, x = ops["chain"]
    how = (f"{a} AES × {la:.0f} + {c} CLMUL × {lc:.0f} + {x} vector ops × {lx:.0f}"
           if "chain2" not in ops else "derive, then the longer of the key's expansion and the powers")
    return max(fa, fc), what, chain, how


def read(path, default=None):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        if default is None:
            raise
        return default


def run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT,
                              check=False).stdout.strip()
    except OSError:
        return ""


# ---- The CPU ------------------------------------------------------------------------------

def cpuinfo():
    """The first processor's fields of /proc/cpuinfo, and the number of processors."""
    info, n = {}, 0
    for line in read("/proc/cpuinfo", "").splitlines():
        if ":" not in line:
            continue
        k, v = (s.strip() for s in line.split(":", 1))
        if k == "processor":
            n += 1
        if n <= 1 and k not in info:
            info[k] = v
    return info, n


ARM_PARTS = {
    (0x41, 0xd0c): "neoverse-n1", (0x41, 0xd40): "neoverse-v1", (0x41, 0xd49): "neoverse-n2",
    (0x41, 0xd4f): "neoverse-v2", (0x41, 0xd8e): "neoverse-n3", (0x41, 0xd84): "neoverse-v3",
    (0x41, 0xd0b): "cortex-a76", (0x41, 0xd41): "cortex-a78", (0x41, 0xd08): "cortex-a72",
    (0x41, 0xd03): "cortex-a53", (0xc0, 0xac3): "ampere1", (0xc0, 0xac4): "ampere1a",
}


def cpu_class(info):
    """(class, the rule that gave it); see the module's docstring."""
    machine = platform.machine()
    flags = set((info.get("flags") or info.get("Features") or "").split())
    if machine in ("x86_64", "amd64"):
        vendor = info.get("vendor_id", "")
        fam = int(info.get("cpu family", "0") or 0)
        model = int(info.get("model", "0") or 0)
        if vendor == "AuthenticAMD":
            if fam == 23:
                return ("amd-zen1" if model < 0x30 else "amd-zen2",
                        f"AuthenticAMD family 23, model {model:#x}")
            if fam == 25:
                return ("amd-zen4" if "avx512f" in flags else "amd-zen3",
                        "AuthenticAMD family 25, " + ("avx512f" if "avx512f" in flags
                                                      else "no avx512f"))
            if fam == 26:
                return "amd-zen5", "AuthenticAMD family 26"
            return f"amd-family-{fam}", f"AuthenticAMD family {fam}"
        if vendor == "GenuineIntel":
            if {"avx512f", "vaes", "vpclmulqdq"} <= flags:
                return "intel-avx512", "GenuineIntel with avx512f, vaes, vpclmulqdq"
            if {"avx2", "vaes", "vpclmulqdq"} <= flags:
                return "intel-avx2", "GenuineIntel with avx2, vaes, vpclmulqdq, no avx512f"
            if "aes" in flags:
                return "intel-aesni", "GenuineIntel with aes, no vaes"
            return "intel-generic", "GenuineIntel without aes"
        return "x86-" + re.sub(r"[^a-z0-9]+", "", vendor.lower()), f"vendor {vendor}"
    if machine in ("aarch64", "arm64"):
        impl = int(info.get("CPU implementer", "0"), 0)
        part = int(info.get("CPU part", "0"), 0)
        name = ARM_PARTS.get((impl, part))
        if name is None:
            name = "apple" if impl == 0x61 else f"{impl:x}-{part:x}"
        cls = "arm64-" + name
        if not {"aes", "pmull"} <= flags:
            cls += "-noaes"
        return cls, f"CPU implementer {impl:#x}, part {part:#x}"
    return machine, "architecture " + machine


def virt():
    """The hypervisor and the container, as systemd-detect-virt names them."""
    vm, ct = run(["systemd-detect-virt", "--vm"]), run(["systemd-detect-virt", "--container"])
    if not vm or vm == "none":
        vm = "a hypervisor (cpuinfo flag)" if "hypervisor" in read("/proc/cpuinfo", "").split() \
            else ""
    out = [x for x in (vm and f"under {vm}", ct and ct != "none" and f"in a {ct} container") if x]
    return ", ".join(out) or "no virtualisation seen"


# ---- OpenSSL's default provider: which code runs --------------------------------------------

def version_tuple(s):
    m = re.search(r"(\d+)\.(\d+)\.(\d+)", s)
    return tuple(int(x) for x in m.groups()) if m else (0, 0, 0)


def default_paths(version, kind, path, flags):
    """What OpenSSL's default provider runs for AES-GCM, AES-CTR and AES-GCM-SIV on this CPU:
    from OpenSSL's sources (3.5.7 read: cipher_aes_gcm_hw_aesni.inc takes the AVX-512 code when
    ossl_vaes_vpclmulqdq_capable(), i.e. AVX512F/DQ/BW/VL, VAES and VPCLMULQDQ; gcm128.c's
    stitched AES-NI GCM needs AVX and MOVBE; GCM-SIV from 3.2 is cipher_aes_gcm_siv_hw.c). For a
    built tree the AVX-512 file is looked for in its source; 3.0 has none."""
    v = version_tuple(version)
    out = {}
    if platform.machine() in ("x86_64", "amd64"):
        avx512 = {"avx512f", "avx512dq", "avx512bw", "avx512vl", "vaes", "vpclmulqdq"} <= flags
        if kind == "tree" and path:
            has512 = os.path.exists(os.path.join(os.path.dirname(path),
                                                 "crypto/modes/asm/aes-gcm-avx512.pl"))
            why = "its source has crypto/modes/asm/aes-gcm-avx512.pl" if has512 else \
                "its source has no aes-gcm-avx512.pl"
        elif v[:2] == (3, 0):
            has512, why = False, "3.0 has no AVX-512 GCM"
        else:
            has512, why = None, "not checked for this version"
        if "aes" not in flags:
            out["AES-GCM"] = "portable C (no AES-NI)"
        elif avx512 and has512:
            out["AES-GCM"] = ("Intel's AVX-512 VAES/VPCLMULQDQ GCM (aes-gcm-avx512.pl), "
                              f"taken on this CPU ({why})")
        elif avx512 and has512 is None:
            out["AES-GCM"] = ("AVX-512 VAES GCM if this version has aes-gcm-avx512.pl, else "
                              f"the AES-NI stitched GCM ({why})")
        elif {"avx", "movbe"} <= flags:
            out["AES-GCM"] = ("AES-NI + PCLMULQDQ \"stitched\" GCM (aesni-gcm-x86_64.pl, AVX, "
                              "6 blocks per iteration)" + ("" if not avx512 else f"; {why}"))
        else:
            out["AES-GCM"] = "AES-NI CTR and a PCLMULQDQ GHASH, in separate passes"
        out["AES-CTR"] = ("AES-NI CTR, 8 blocks in flight (aesni-x86_64.pl, "
                          "aesni_ctr32_encrypt_blocks)" if "aes" in flags else "portable C")
    else:
        out["AES-GCM"] = "the ARMv8 Crypto Extensions code (AESE/AESMC, PMULL); not checked per version"
        out["AES-CTR"] = "the ARMv8 Crypto Extensions code (aesv8-armx); not checked per version"
    if v < (3, 2, 0):
        out["AES-GCM-SIV"] = "none (OpenSSL has it from 3.2): aesfast's figures only"
    else:
        out["AES-GCM-SIV"] = ("portable C (cipher_aes_gcm_siv_hw.c): CTR as one EVP "
                              "AES-ECB update per 16-byte block, POLYVAL through the 4-bit-table "
                              "GHASH (gcm_ghash_4bit), one block per call")
    return out


# ---- The run's files ----------------------------------------------------------------------

def read_meta(stage):
    meta = {}
    for line in read(os.path.join(stage, "meta"), "").splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            meta[k] = v
    return meta


def read_libcryptos(stage):
    libs = []
    for line in read(os.path.join(stage, "libcrypto"), "").splitlines():
        parts = line.split("|")
        if len(parts) == 4:
            libs.append(dict(label=parts[0], kind=parts[1], path=parts[2], version=parts[3]))
    return libs


def read_csv(path):
    rows = []
    lines = read(path, "").splitlines()
    if not lines:
        return rows
    head = lines[0].split(",")
    for line in lines[1:]:
        cells = line.split(",")
        if len(cells) == len(head):
            rows.append(dict(zip(head, cells)))
    return rows


def fnum(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def bench_lookup(rows):
    return {(r["cipher"], r["op"], int(r["size"])): r for r in rows}


def log_field(log, key):
    m = re.search(r"^" + re.escape(key) + r":\s*(.*)$", log, re.M)
    return m.group(1).strip() if m else ""


def fmt_ratio(x):
    if x is None:
        return "–"
    return f"{x:.2f}×" if x < 10 else f"{x:.1f}×"


def size_name(n):
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    if n >= 1024 and n % 1024 == 0:
        return f"{n >> 10} KiB"
    return f"{n} B"


def headline_table(rows):
    """The headline rows x sizes as a Markdown table of ratios (– where there is none)."""
    look = bench_lookup(rows)
    out = ["| aesfast / default | " + " | ".join(s for _, s in HEADLINE_SIZES) + " |",
           "|---|" + "---:|" * len(HEADLINE_SIZES)]
    for cipher, op in HEADLINE_ROWS:
        cells = []
        for size, _ in HEADLINE_SIZES:
            r = look.get((cipher, op, size))
            cells.append(fmt_ratio(fnum(r["ratio"]) if r else None))
        if all(c == "–" for c in cells):
            continue  # the reference lacks the cipher (GCM-SIV before 3.2)
        name = cipher + ("" if op == "bulk" else " " + op)
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def noise_summary(stage, label):
    """(median ratios, per-round ratios, description) of the default-against-default run."""
    rows = read_csv(os.path.join(stage, f"noise-{label}.csv"))
    meds = [fnum(r["ratio"]) for r in rows if fnum(r["ratio"]) is not None]
    rounds = [float(m.group(1)) for m in
              re.finditer(r" round \d+:.* ratio ([0-9.]+)", read(os.path.join(stage, f"noise-{label}.log"), ""))]
    return rows, meds, rounds


def spread(vals):
    if not vals:
        return "–"
    return f"{min(vals):.3f}–{max(vals):.3f}"


def pct(vals):
    if not vals:
        return "–"
    return f"±{100 * max(abs(v - 1) for v in vals):.1f} %"


# ---- Kernels ------------------------------------------------------------------------------

def insn_costs(text):
    """{(what, width): cycles per instruction} from kernels --insn."""
    costs = {}
    for line in text.splitlines():
        m = re.match(r"^(.*?)\s+(xmm|ymm|zmm)\s+([0-9.]+)\s+([0-9.]+)\s*$", line)
        if m:
            costs[(m.group(1).strip(), m.group(2))] = float(m.group(3))
    return costs


def issue_cost(measured):
    """A measured cost per instruction rounded to the issue rate it is (4, 3, 2 or 1 per cycle,
    or one per 2, 3 or 4 cycles) when within 15 % of one: the clock estimate and the machine's
    noise move the measurement by a few percent, the hardware's rate does not."""
    import math
    best = min((0.25, 1 / 3, 0.5, 1.0, 2.0, 3.0, 4.0), key=lambda c: abs(math.log(measured / c)))
    return best if abs(math.log(measured / best)) < math.log(1.15) else measured


def whole_latency(measured):
    """A measured latency rounded to the whole cycles it is when within 15 % of them (as
    issue_cost: the clock estimate moves a measurement, not the hardware's latency)."""
    import math
    n = max(1, round(measured))
    return float(n) if abs(math.log(measured / n)) < math.log(1.15) else measured


def fmt_cost(c):
    return {0.25: "1/4", 0.5: "1/2", 1.0: "1", 2.0: "2", 3.0: "3", 4.0: "4"}.get(
        c, "1/3" if abs(c - 1 / 3) < 1e-9 else f"{c:.2f}")


def loop_bound(tier, fn, bits, costs):
    """(floor in cycles per 16 blocks, the resource, the arithmetic) or None."""
    if tier not in LOOP_OPS:
        return None
    width, table = LOOP_OPS[tier]
    ca, cc = costs.get(("VAESENC", width)), costs.get(("VPCLMULQDQ", width))
    if ca is None or cc is None:
        return None
    ca, cc = issue_cost(ca), issue_cost(cc)
    parts = {"gcm-seal": ["gcm"], "gcm-open": ["gcm"], "gcm-seal-secret": ["gcm"],
             "gcm-open-secret": ["gcm"], "siv-seal": ["polyval", "ctr"]}.get(fn, [fn])
    total, what = 0.0, []
    for p in parts:
        if p not in table:
            return None
        a128, a256, c = table[p]
        a = a256 if bits == 256 else a128
        fa, fc = a * ca, c * cc
        if fa >= fc:
            total += fa
            what.append(f"VAESENC {width} {a} × {fmt_cost(ca)} = {fa:.1f}" +
                        (f" (VPCLMULQDQ {c} × {fmt_cost(cc)} = {fc:.1f})" if c else ""))
        else:
            total += fc
            what.append(f"VPCLMULQDQ {width} {c} × {fmt_cost(cc)} = {fc:.1f}" +
                        (f" (VAESENC {a} × {fmt_cost(ca)} = {fa:.1f})" if a else ""))
    return total, " + ".join(what)


# ---- Writing ------------------------------------------------------------------------------

def md_escape(s):
    return s.replace("|", "\\|")


def plot(kind, csv, out, title):
    cmd = [os.path.join(ROOT, "bench/plot.sh")] + (["--ratio"] if kind == "ratio" else []) + \
        [csv, out, title]
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        sys.stderr.write(r.stderr)
        raise SystemExit(f"bench/publish.py: {' '.join(cmd)} failed")


def replace_block(path, block):
    text = read(path)
    begin, end = "<!-- perf:begin -->", "<!-- perf:end -->"
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        raise SystemExit(f"bench/publish.py: {path} has no {begin} ... {end} markers")
    new = text[:i + len(begin)] + "\n" + block.rstrip("\n") + "\n" + text[j:]
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stage", required=True)
    ap.add_argument("--class", dest="cls")
    ap.add_argument("--out", default=os.path.join(ROOT, "doc/perf"))
    ap.add_argument("--readme", default=os.path.join(ROOT, "README.md"))
    a = ap.parse_args()

    stage = a.stage
    meta = read_meta(stage)
    libs = read_libcryptos(stage)
    if not libs:
        raise SystemExit("bench/publish.py: no libcrypto was benchmarked in " + stage)
    info, ncpu = cpuinfo()
    flags = set((info.get("flags") or info.get("Features") or "").split())
    cls, rule = cpu_class(info)
    if a.cls:
        cls, rule = a.cls, f"given with --class (the rule says {cls_rule_name(info)})"
    if not re.fullmatch(r"[a-z0-9][a-z0-9.-]*", cls):
        raise SystemExit(f"bench/publish.py: bad class name {cls!r}")
    outdir = os.path.join(a.out, cls)
    if os.path.isdir(outdir):
        shutil.rmtree(outdir)
    os.makedirs(outdir)

    now = datetime.datetime.now(datetime.timezone.utc)
    start = datetime.datetime.fromtimestamp(int(meta.get("start_epoch", now.timestamp())),
                                            datetime.timezone.utc)
    end = datetime.datetime.fromtimestamp(int(meta.get("end_epoch", now.timestamp())),
                                          datetime.timezone.utc)
    minutes = (end - start).total_seconds() / 60
    date = start.strftime("%Y-%m-%d")
    quick = meta.get("quick") == "1"
    model = info.get("model name") or info.get("CPU part", "unknown")
    if platform.machine() in ("x86_64", "amd64"):
        cpu_id = (f"{model} ({info.get('vendor_id', '?')} family {info.get('cpu family', '?')} "
                  f"model {info.get('model', '?')} stepping {info.get('stepping', '?')})")
    else:
        cpu_id = (f"{model} (implementer {info.get('CPU implementer', '?')}, part "
                  f"{info.get('CPU part', '?')})")
    vm = virt()
    commit = meta.get("commit", "?")
    short = commit[:12]
    dirty = meta.get("dirty", "?")
    newest = max(libs, key=lambda l: version_tuple(l["version"]))

    # Per libcrypto: copy the CSVs, draw the plots, read the logs.
    tier, method = "?", ""
    per_lib = []
    for lib in libs:
        lab = lib["label"]
        csv = os.path.join(stage, f"bench-{lab}.csv")
        log = read(os.path.join(stage, f"bench-{lab}.log"), "")
        rows = read_csv(csv)
        shutil.copy(csv, os.path.join(outdir, f"bench-{lab}.csv"))
        m = re.search(r"aesfast-kernel: ([^)]*)\)", log)
        if m:
            tier = m.group(1)
        method = log_field(log, "method") or method
        title = f"aesfast vs {lib['version'].split(' (')[0]} default provider: {cls}, {ncpu} vCPUs, {date}"
        plot("gbps", csv, os.path.join(outdir, f"gbps-{lab}.svg"), title)
        plot("ratio", csv, os.path.join(outdir, f"speedup-{lab}.svg"),
             "Speedup, aesfast / default (" + lib["version"].split(" (")[0] + f"): {cls}, {date}")
        nrows, meds, rounds = noise_summary(stage, lab)
        if nrows:
            shutil.copy(os.path.join(stage, f"noise-{lab}.csv"),
                        os.path.join(outdir, f"noise-{lab}.csv"))
        per_lib.append(dict(lib=lib, rows=rows, log=log, noise_rows=nrows, meds=meds,
                            rounds=rounds, noise_log=read(os.path.join(stage, f"noise-{lab}.log"), "")))

    # Kernels.
    kcsv = os.path.join(stage, "kernels.csv")
    krows = read_csv(kcsv)
    insn = read(os.path.join(stage, "insn.txt"), "")
    costs = insn_costs(insn)
    if krows:
        shutil.copy(kcsv, os.path.join(outdir, "kernels.csv"))
    if insn:
        shutil.copy(os.path.join(stage, "insn.txt"), os.path.join(outdir, "insn.txt"))
    speed = []
    for lib in libs:
        f = os.path.join(stage, f"speed-{lib['label']}.csv")
        if os.path.exists(f):
            shutil.copy(f, os.path.join(outdir, f"speed-{lib['label']}.csv"))
            speed.append((lib["version"], read_csv(f)))
    binding = read_csv(os.path.join(stage, "binding.csv"))
    if binding:
        shutil.copy(os.path.join(stage, "binding.csv"), os.path.join(outdir, "binding.csv"))
    tls_txt = read(os.path.join(stage, "tls.txt"), "")
    if tls_txt:
        shutil.copy(os.path.join(stage, "tls.txt"), os.path.join(outdir, "tls.txt"))
    if os.path.exists(os.path.join(stage, "tls.csv")):
        shutil.copy(os.path.join(stage, "tls.csv"), os.path.join(outdir, "tls.csv"))

    # The noise figure, over every libcrypto: the spread of the median ratios (what the pages
    # publish) and of single rounds.
    all_meds = [x for p in per_lib for x in p["meds"]]
    all_rounds = [x for p in per_lib for x in p["rounds"]]
    noise_line = "default against default: not measured in this run"
    noise_short = "not measured"
    if all_meds:
        # The line furthest from 1, with its rounds: a bias that every round shares is a
        # difference between two identical sides (placement, alignment), not the machine's load.
        worst = max(((abs(fnum(r["ratio"]) - 1), x, r) for x in per_lib for r in x["noise_rows"]
                     if fnum(r["ratio"]) is not None), key=lambda t: t[0])
        _, wx, wr = worst
        wrounds = [float(m.group(1)) for m in re.finditer(
            r"^\s+" + re.escape(f"{wr['cipher']} {wr['op']} {wr['size']}") +
            r" round \d+:.* ratio ([0-9.]+)", wx["noise_log"], re.M)]
        typical = statistics.median(abs(v - 1) for v in all_meds)
        noise_short = f"medians {spread(all_meds)}, half of them within ±{100 * typical:.1f} %"
        noise_line = (f"default against default (both sides OpenSSL's default provider, the same "
                      f"method): median ratios {spread(all_meds)} ({pct(all_meds)}; half of them "
                      f"within ±{100 * typical:.1f} %) over {len(all_meds)} cipher/operation/size "
                      f"lines, single rounds {spread(all_rounds)}; the furthest from 1, "
                      f"{wr['cipher']} {wr['op']} {size_name(int(wr['size']))} against "
                      f"{wx['lib']['version'].split(' ')[1]}, {float(wr['ratio']):.3f} with every "
                      f"round in {spread(wrounds)}")

    runinfo = f"`{meta.get('command', 'bench/run.sh --publish')}`"
    # ---- The page ----
    p = []
    g16 = bench_lookup(next(x for x in per_lib if x["lib"] is newest)["rows"]).get(
        ("AES-128-GCM", "seal", 16384))
    summary = (f"AES-128-GCM seal at 16 KiB {fmt_ratio(fnum(g16['ratio']))} vs "
               f"{newest['version'].split(' ')[1]}" if g16 else "")
    p.append(f"<!-- perf-index: {cls} | {md_escape(cpu_id)}, {ncpu} vCPUs | {tier} | {date} | "
             f"{summary}{' | quick' if quick else ''} -->")
    p.append(f"# aesfast performance: {cls}\n")
    p.append(f"{cpu_id}, {ncpu} vCPUs ({vm}); aesfast's tier here: `{tier}`. Written by "
             f"{runinfo} on {date} from commit `{short}`{' (tree dirty)' if dirty == '1' else ''}, "
             f"in {minutes:.0f} minutes; every figure below is from that one run. How, where and "
             f"with what: [PROVENANCE.md](PROVENANCE.md). Do not edit: run the command again.\n")
    if quick:
        p.append("**A --quick run** (fewer rounds and sizes, short TLS turns): a test of the "
                 "command, not figures to quote.\n")
    p.append("Ratios are aesfast / OpenSSL's default provider in the same process, on the same "
             "buffers: the median over rounds of the per-round ratio of each side's best slice "
             "(build/bench/bench; above 1 aesfast is faster). Noise: " + noise_line + ".\n")
    p.append("## At a glance\n")
    for x in per_lib:
        lib = x["lib"]
        p.append(f"Against **{lib['version']}** ({'the system library' if lib['kind'] == 'system' else 'built from source'}):\n")
        p.append(headline_table(x["rows"]) + "\n")
    p.append("seal and open: a whole AEAD message each (a fresh IV, 13 bytes of AAD, one update, "
             "the tag), as a TLS record layer does; CTR: one stream, `openssl speed`'s pattern. "
             "rekey, speed, newctx and copy: the same sealed message with a set-up per message, as "
             "programs do that do not keep a keyed context: a new key on the same context "
             "(EVP_CipherInit_ex with key and IV), `openssl speed -evp -aead`'s own loop with a "
             "new key each message, a new context each message (EVP_EncryptInit_ex2 with the "
             "cipher), a copy of a keyed context (EVP_CIPHER_CTX_copy, then the IV). "
             "OpenSSL before 3.2 has no GCM-SIV: no row for it there (aesfast's own figures are "
             "in the CSV).\n")
    p.append("## Throughput and speedup\n")
    for x in per_lib:
        lab, ver = x["lib"]["label"], x["lib"]["version"]
        p.append(f"### {ver}\n")
        p.append(f"![GB/s against message size, aesfast and {ver}'s default provider](gbps-{lab}.svg)\n")
        p.append(f"![aesfast / default against message size, {ver}](speedup-{lab}.svg)\n")
        p.append(f"<details><summary>Every figure (<a href=\"bench-{lab}.csv\">bench-{lab}.csv</a>)</summary>\n")
        p.append("| cipher | op | bytes | aesfast GB/s | default GB/s | ratio | aesfast GCM GB/s | SIV / GCM |")
        p.append("|---|---|---:|---:|---:|---:|---:|---:|")
        for r in x["rows"]:
            p.append(f"| {r['cipher']} | {r['op']} | {r['size']} | {r['aesfast_gbps']} | "
                     f"{r['default_gbps'] or '–'} | {r['ratio'] or '–'} | {r['gcm_gbps'] or ''} | "
                     f"{r['gcm_ratio'] or ''} |")
        p.append("\n</details>\n")

    p.append("## Kernels: cycles per 16 blocks and the port bound\n")
    if krows:
        clocks = [fnum(r["clock_ghz"]) for r in krows if fnum(r["clock_ghz"])]
        p.append("The kernels called directly (build/bench/kernels: no provider, no EVP), each "
                 "figure the fastest of many batches. No performance counters here: the clock is "
                 "a timed chain of dependent adds, taken before and after each figure "
                 f"({min(clocks):.2f}–{max(clocks):.2f} GHz in this run). **Bound**: the main "
                 "loop's AES round and carry-less multiply instructions per 16 blocks (counted in "
                 "the source, see each kernel file's header) times their issue cost measured "
                 "alone in this run (`kernels --insn`, [insn.txt](insn.txt), each rounded to the "
                 "whole issue rate it is within 15 % of: " + ", ".join(
                     f"{k[0]} {k[1]} {v:.2f} → {fmt_cost(issue_cost(v))}"
                     for k, v in sorted(costs.items()) if k[0] in ("VAESENC", "VPCLMULQDQ")) +
                 " cycles); the larger one binds "
                 "(two passes for siv-seal: POLYVAL, then CTR). The --insn mixes show VAESENC and "
                 "VPXOR issuing beside VPCLMULQDQ at no extra cost, so the single costs are the "
                 "floors; the loops' other work (shuffles, XORs, loads, the reduction's chain) is "
                 "what lies between the bound and the measured figure.\n")
        tiers = []
        for r in krows:
            if r["tier"] not in tiers:
                tiers.append(r["tier"])
        sizes = sorted({int(r["bytes"]) for r in krows})
        big = 16384 if 16384 in sizes else sizes[-1]
        for t in tiers:
            sel = [r for r in krows if r["tier"] == t and int(r["bytes"]) == big]
            if not sel:
                continue
            p.append(f"### {t}{' (the tier aesfast chose here)' if t == tier else ''}, {size_name(big)} per call\n")
            p.append("| function | key | cycles / 16 blocks | GB/s | GHz | bound (cycles / 16 blocks) | measured / bound |")
            p.append("|---|---|---:|---:|---:|---|---:|")
            for r in sel:
                bits = int(r["key_bits"])
                b = loop_bound(t, r["function"], bits, costs)
                cyc = float(r["cycles_per_16_blocks"])
                p.append(f"| {r['function']} | {bits or '–'} | {cyc:.1f} | {float(r['gb_per_s']):.2f} | "
                         f"{float(r['clock_ghz']):.2f} | {b[1] + ' → ' + format(b[0], '.1f') if b else '–'} | "
                         f"{format(cyc / b[0], '.2f') if b else '–'} |")
            p.append("")
        setup = [r for r in krows if int(r["bytes"]) == 0]
        if setup:
            p.append("### Key setup, cycles per call\n")
            p.append("What a context keyed per message pays before its first block: set-key (the "
                     "key schedule), gcm-hkey-few (GCM's hash key as a key makes it: E_K(0), "
                     "then the few powers a short message reads, or the whole table on a tier "
                     "without a short one), gcm-hkey-rest (the rest of the table, made when a "
                     "longer message first needs it), gcm-hkey (E_K(0) and the whole table at "
                     "once), siv-keys (GCM-SIV's per nonce: the derived keys, the encryption "
                     "key's schedule, every power of the authentication key) and siv-keys-few (the "
                     "few powers a short message reads); calls back to back, independent of each "
                     "other. **Floor**: their AES rounds and carry-less multiplies (counted in the "
                     "source, bench/publish.py says where) times their issue cost, as above. "
                     "**Chain**: the dependent instructions of one call (AES rounds, multiplies "
                     "and the vector operations between them) times their latencies measured in "
                     "this run (`kernels --insn`): what one call alone takes at least; calls back "
                     "to back overlap, so the measured figure may be below it.\n")
            p.append("| tier | function | key | cycles / call | GHz | floor: issue (cycles) | measured / floor | chain of one call (cycles) |")
            p.append("|---|---|---|---:|---:|---|---:|---|")
            for r in setup:
                bits = int(r["key_bits"])
                f = setup_floor(r["tier"], r["function"], bits, costs)
                cyc = float(r["cycles_per_call"])
                p.append(f"| {r['tier']} | {r['function']} | {bits} | {cyc:.0f} | "
                         f"{float(r['clock_ghz']):.2f} | "
                         f"{f[1] if f else '–'} | {format(cyc / f[0], '.2f') if f else '–'} | "
                         f"{format(f[2], '.0f') + ' (' + f[3] + ')' if f else '–'} |")
            p.append("")
        p.append("Every size and tier: [kernels.csv](kernels.csv).\n")
    else:
        p.append("Not measured in this run.\n")
    if insn:
        p.append("<details><summary>Issue costs measured in this run (build/bench/kernels --insn)</summary>\n")
        p.append("```\n" + insn.rstrip() + "\n```\n\n</details>\n")

    p.append("## openssl speed, as a user runs it\n")
    if speed:
        p.append("`openssl speed -seconds N -evp aes-128-gcm`, aesfast's side with `-provider "
                 "aesfast -provider default -propquery provider=aesfast`, the default's with "
                 "`-provider default`, no cnf on either, run after run alternated; per size each "
                 "side's best run, and in brackets the smallest and largest ratio of single rounds. "
                 "speed keys every message, with one key throughout.\n")
        for lab, rows in speed:
            p.append(f"### {lab}\n")
            p.append("| bytes | aesfast GB/s | default GB/s | aesfast / default |")
            p.append("|---:|---:|---:|---:|")
            for r in rows:
                p.append(f"| {r['size']} | {float(r['aesfast_kbps']) / 1e6:.3f} | "
                         f"{float(r['default_kbps']) / 1e6:.3f} | {fmt_ratio(fnum(r['ratio']))} "
                         f"({float(r['ratio_min']):.2f}–{float(r['ratio_max']):.2f}) |")
            p.append("")
    else:
        p.append("Not run.\n")
    p.append("## Python's cryptography (Debian's python3-cryptography)\n")
    if binding:
        p.append("bench/binding.py: `AESGCM(key).encrypt(nonce, data, aad)` per message, 13 bytes "
                 "of AAD, a new key each, in Debian's python3 on the system libcrypto, with "
                 "OPENSSL_CONF preferring aesfast against a cnf of the default provider alone; "
                 "median of alternated rounds, smallest and largest in brackets "
                 "([binding.csv](binding.csv)):\n")
        p.append("| binding | bytes | aesfast µs / message | default µs / message | aesfast / default |")
        p.append("|---|---:|---:|---:|---:|")
        for r in binding:
            p.append(f"| {r['binding']} | {r['size']} | {float(r['aesfast_ns']) / 1000:.2f} | "
                     f"{float(r['default_ns']) / 1000:.2f} | {fmt_ratio(fnum(r['ratio']))} "
                     f"({float(r['ratio_min']):.2f}–{float(r['ratio_max']):.2f}) |")
        p.append("")
    else:
        p.append("Not run.\n")

    p.append("## nginx\n")
    if tls_txt:
        p.append("bench/tls.sh: Debian's nginx on loopback with and without aesfast (the system "
                 "OpenSSL, " + (next((l["version"] for l in libs if l["kind"] == "system"), "the system OpenSSL")) +
                 "), one worker, the clients on the default provider; ratio is aesfast / default "
                 "of a more-is-better figure, in brackets the smallest and largest of single turns "
                 "([tls.csv](tls.csv)):\n")
        p.append("```\n" + tls_txt.rstrip() + "\n```\n")
    else:
        p.append("Not run (--no-tls).\n")
    with open(os.path.join(outdir, "README.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(p).rstrip() + "\n")

    # ---- PROVENANCE.md ----
    subject = meta.get("subject", "").replace("`", "'")[:72]  # in a code span: no HTML comment
    q = [f"# Provenance: {cls}\n",
         f"Everything in this folder was written by one run of {runinfo}; nothing was edited by "
         "hand. Re-running the command on a machine of this class replaces it.\n",
         "## The run\n",
         f"- command: {runinfo} (from the repository's top folder)",
         f"- started {start.strftime('%Y-%m-%d %H:%M:%S')} UTC, measurements done "
         f"{end.strftime('%H:%M:%S')} UTC ({minutes:.1f} minutes), pages written "
         f"{now.strftime('%Y-%m-%d %H:%M:%S')} UTC" +
         (" — a --quick run" if quick else ""),
         f"- commit {commit} (`{subject}`), branch {meta.get('branch', '?')}; "
         f"working tree {'dirty at the start: ' + meta.get('dirty_files', '') if dirty == '1' else 'clean at the start'}",
         f"- load average at the start {meta.get('load_start', '?')}, at the end "
         f"{' '.join(read('/proc/loadavg', '?').split()[:3])} "
         "(a shared machine: other programs ran beside)",
         f"- aesfast: tier `{tier}` (the provider's aesfast-kernel parameter, as bench printed it); "
         f"built with {meta.get('cc', '?')}, meson buildtype {meta.get('buildtype', '?')}",
         "\n## The machine\n",
         f"- CPU: {cpu_id}",
         f"- class: {cls} (rule: {rule}; bench/publish.py documents the mapping)",
         f"- vCPUs: {ncpu}; virtualisation: {vm}; kernel {platform.release()}",
         f"- flags: `{' '.join(sorted(flags))}`",
         "\n## OpenSSL versions and the default provider's code paths on this CPU\n"]
    for x in per_lib:
        lib = x["lib"]
        q.append(f"### {lib['version']}\n")
        q.append(f"- {'system library' if lib['kind'] == 'system' else 'built tree'}: `{lib['path']}`")
        for alg, what in default_paths(lib["version"], lib["kind"], lib["path"], flags).items():
            q.append(f"- {alg}: {what}")
        q.append(f"- bench: {log_field(x['log'], 'method')}")
        q.append("")
    q.append("## Method\n")
    q.append(f"- build/bench/bench --csv {meta.get('bench_args', '')}".rstrip() +
             ": both providers in one process, the same buffers and EVP calls; rounds of "
             "alternating slices (who goes first alternates), a side's best slice per round, the "
             "median over rounds of the per-round ratio; before timing, each cipher and operation "
             "is checked on 1 MiB against the default provider (identical output and tags, each "
             "side opens the other's messages). Header lines of each run:\n")
    for x in per_lib:
        q.append("```\n" + x["log"].strip() + "\n```\n")
    q.append("## Noise: default against default\n")
    q.append(f"build/bench/bench --provider default --reference default {meta.get('noise_args', '')}: "
             "both sides the default provider, the same method; a ratio's distance from 1 is the "
             "noise of this machine during the run.\n")
    q.append(f"**{noise_line}.**\n")
    q.append("| libcrypto | cipher | op | bytes | median ratio | single rounds |")
    q.append("|---|---|---|---:|---:|---:|")
    for x in per_lib:
        per_round = {}
        for m in re.finditer(r"^\s+(\S+) (\S+) (\d+) round \d+:.* ratio ([0-9.]+)", x["noise_log"], re.M):
            per_round.setdefault((m.group(1), m.group(2), m.group(3)), []).append(float(m.group(4)))
        for r in x["noise_rows"]:
            pr = per_round.get((r["cipher"], r["op"], r["size"]), [])
            q.append(f"| {x['lib']['version'].split(' ')[1]} | {r['cipher']} | {r['op']} | {r['size']} | "
                     f"{r['ratio']} | {spread(pr)} |")
    q.append("")
    q.append("## Kernels and nginx\n")
    q.append(f"- build/bench/kernels --csv {meta.get('kernels_args', '')} and build/bench/kernels --insn "
             "(the clock from dependent adds: no performance counters in this guest)")
    q.append(f"- bench/tls.sh {meta.get('tls_args', '')}".rstrip() + (" (not run)" if not tls_txt else ""))
    if tls_txt:
        hdr = [l for l in tls_txt.splitlines() if l.startswith("bench/tls.sh:")]
        for l in hdr:
            q.append(f"  - {l}")
    with open(os.path.join(outdir, "PROVENANCE.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(q).rstrip() + "\n")

    # ---- doc/perf/README.md: the index ----
    idx = ["# Performance pages\n",
           "One folder per CPU class, each written whole by `bench/run.sh --publish` on a machine "
           "of that class (bench/publish.py says how a class is named). Never edited by hand.\n",
           "| class | CPU | aesfast tier | date | headline |", "|---|---|---|---|---|"]
    for d in class_dirs(a.out):
        page = os.path.join(a.out, d, "README.md")
        m = re.match(r"<!-- perf-index: (.*) -->", read(page).splitlines()[0])
        f = [s.strip() for s in m.group(1).split(" | ")]
        f += [""] * (6 - len(f))
        idx.append(f"| [{d}]({d}/README.md) | {f[1]} | `{f[2]}` | {f[3]} | {f[4]}"
                   f"{' (quick run)' if f[5] == 'quick' else ''} |")
    if os.path.isfile(os.path.join(a.out, "model", "README.md")):
        idx.append("\nCPUs without a page, modelled instead (not measured): "
                   "[model/](model/README.md), written by `bench/model.py`.")
    with open(os.path.join(a.out, "README.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(idx) + "\n")

    # ---- README.md's block ----
    rel = os.path.relpath(outdir, os.path.dirname(os.path.abspath(a.readme)))
    relidx = os.path.relpath(a.out, os.path.dirname(os.path.abspath(a.readme)))
    classes = class_dirs(a.out)
    nl = next(x for x in per_lib if x["lib"] is newest)
    block = [f"<!-- written by bench/run.sh --publish ({cls}, {date}, commit {short}); do not edit -->",
             f"aesfast / OpenSSL {newest['version'].split(' ')[1]}'s default provider on {cls} "
             f"({model}, {ncpu} vCPUs, tier `{tier}`), {date}, median of alternated rounds "
             f"(default against default: {noise_short}){'; a --quick run' if quick else ''}:\n",
             headline_table(nl["rows"]) + "\n",
             f"Plots, every size, the kernels' cycles and nginx: [{cls}]({rel}/README.md). "
             "Every CPU class published: " + ", ".join(f"[{c}]({relidx}/{c}/README.md)" for c in classes) +
             f" ([index]({relidx}/README.md))."]
    replace_block(a.readme, "\n".join(block))
    print(outdir)


def class_dirs(perf):
    """The CPU classes' folders of doc/perf: those whose page starts with the index line (not
    model/, bench/model.py's)."""
    out = []
    for d in sorted(os.listdir(perf)):
        page = os.path.join(perf, d, "README.md")
        if os.path.isfile(page) and read(page).startswith("<!-- perf-index: "):
            out.append(d)
    return out


def cls_rule_name(info):
    return cpu_class(info)[0]


if __name__ == "__main__":
    main()
