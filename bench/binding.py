#!/usr/bin/env python3
"""Python's cryptography as a Debian user has it (python3-cryptography, on the system libcrypto):
AESGCM(key).encrypt per message, with and without aesfast, side by side.

Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).

    bench/binding.py --module build/aesfast.so [--sizes 16,1k,16k] [--rounds 7] [--ms 300]
                     [--slices 6] [--csv FILE]

Two worker processes of Debian's /usr/bin/python3 (not a python3 that PATH finds first: a pip
wheel of cryptography carries its own libcrypto and never loads a provider from the system's cnf),
one with OPENSSL_CONF naming a cnf that activates aesfast and default with default_properties =
?provider=aesfast (the drop-in's sections), one with a cnf of the default provider alone. Each
message is `AESGCM(key).encrypt(nonce, data, aad)` with 13 bytes of AAD; the key changes every
message (64 keys in turn), as a program that encrypts for many peers does, and cryptography makes,
keys and frees an OpenSSL context in every call. Before timing, both workers encrypt the same
messages (every size) and must agree byte for byte, and a short run of the aesfast worker's code
with AESFAST_DEBUG=file:LOG must log aesfast's key setup for AES-128-GCM (the timed runs have no
log: a line per message would slow them).

Method, as build/bench/bench's: per size, --rounds rounds; in a round each worker gets --slices
slices of --ms / --slices ms, the workers taking turns slice by slice and swapping who goes first;
a worker's figure in a round is its best slice (noise only slows a slice down); the ratio is the
median over rounds of aesfast / default (messages per second), with the smallest and largest.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # (no test/__pycache__ in the source tree)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "test"))
from binding_test import write_cnf  # noqa: E402  (the test's cnf: aesfast preferred, or default)

PY = "/usr/bin/python3"
DEBIAN_PKG = "/usr/lib/python3/dist-packages/cryptography"
AAD = bytes(range(13))


def worker():
    """Reads "SIZE MS" lines; answers the best ns per message over batches of about 2 ms."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    keys = [bytes((i * 37 + j) & 0xff for j in range(16)) for i in range(64)]
    nonce = bytes(range(12))
    for line in sys.stdin:
        cmd = line.split()
        if cmd[0] == "check":  # SIZE: the ciphertext of message 0..63 of that size, hex
            data = bytes(i & 0xff for i in range(int(cmd[1])))
            out = [AESGCM(k).encrypt(nonce, data, AAD).hex() for k in keys]
            print(json.dumps(out), flush=True)
            continue
        size, ms = int(cmd[0]), float(cmd[1])
        data = bytes(size)
        batch, best = 1, float("inf")
        end = time.perf_counter_ns() + int(ms * 1e6)
        while True:
            t0 = time.perf_counter_ns()
            for i in range(batch):
                AESGCM(keys[i & 63]).encrypt(nonce, data, AAD)
            t = time.perf_counter_ns() - t0
            best = min(best, t / batch)
            if t < 2e6 and batch < 1 << 20:
                batch *= 2
            if time.perf_counter_ns() >= end:
                break
        print(f"{best:.1f}", flush=True)


def parse_size(s):
    mult = {"k": 1024, "m": 1 << 20}.get(s[-1:].lower(), 1)
    try:
        n = int(s[:-1] if mult > 1 else s) * mult
    except ValueError:
        n = 0
    if not 1 <= n <= 1 << 24:
        raise SystemExit(f"bench/binding.py: bad size {s!r} (1 .. 16m, suffix k or m)")
    return n


def main():
    if sys.argv[1:2] == ["--worker"]:
        worker()
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--module", required=True)
    ap.add_argument("--sizes", default="16,1k,16k")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--ms", type=float, default=300)
    ap.add_argument("--slices", type=int, default=6)
    ap.add_argument("--csv")
    a = ap.parse_args()
    sizes = [parse_size(s) for s in a.sizes.split(",") if s]
    if not sizes or a.rounds < 1 or a.slices < 1 or not a.ms > 0:
        raise SystemExit("bench/binding.py: --sizes, --rounds, --slices and --ms must be positive")
    module = os.path.abspath(a.module)
    if not os.path.isfile(module):
        raise SystemExit(f"bench/binding.py: no module {module}")
    if not os.path.isdir(DEBIAN_PKG) or not os.access(PY, os.X_OK):
        raise SystemExit("bench/binding.py: Debian's python3-cryptography is not installed "
                         "(apt-get install python3-cryptography; test/install-deps.sh does)")

    tmp = tempfile.mkdtemp(prefix="aesfast-binding-bench.")
    procs = {}
    try:
        cnf = {s: os.path.join(tmp, s + ".cnf") for s in ("aesfast", "default")}
        write_cnf(cnf["aesfast"], module)
        write_cnf(cnf["default"], None)
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "PYTHONHOME", "OPENSSL_MODULES", "AESFAST_DEBUG")}
        me = os.path.abspath(__file__)

        # aesfast does the work: its key-setup line, in a short run of the same code
        log = os.path.join(tmp, "check.log")
        r = subprocess.run([PY, "-I", me, "--worker"], input="check 16\n", text=True,
                           capture_output=True,
                           env=dict(env, OPENSSL_CONF=cnf["aesfast"], AESFAST_DEBUG="file:" + log))
        logtext = open(log).read() if os.path.exists(log) else ""
        if r.returncode != 0 or " aesfast: AES-128-GCM: key setup on kernel" not in logtext:
            sys.stderr.write(r.stderr[-1000:])
            raise SystemExit("bench/binding.py: AESGCM did not run on aesfast under "
                             f"{cnf['aesfast']} (no key setup in AESFAST_DEBUG's log)")
        tier = logtext.split("key setup on kernel ")[1].split()[0]

        for side in ("aesfast", "default"):
            procs[side] = subprocess.Popen([PY, "-I", me, "--worker"], stdin=subprocess.PIPE,
                                           stdout=subprocess.PIPE, text=True,
                                           env=dict(env, OPENSSL_CONF=cnf[side]))

        def ask(side, line):
            p = procs[side]
            p.stdin.write(line + "\n")
            p.stdin.flush()
            ans = p.stdout.readline()
            if not ans:
                raise SystemExit(f"bench/binding.py: the {side} worker died")
            return ans

        for size in sizes:
            if ask("aesfast", f"check {size}") != ask("default", f"check {size}"):
                raise SystemExit(f"bench/binding.py: aesfast and default disagree at {size} B")
        ver = subprocess.run([PY, "-I", "-c", "import cryptography; print(cryptography.__version__)"],
                             capture_output=True, text=True).stdout.strip()
        lib = subprocess.run([PY, "-I", "-c", "from cryptography.hazmat.backends.openssl.backend "
                              "import backend; print(backend.openssl_version_text())"],
                             capture_output=True, text=True, env=dict(env, OPENSSL_CONF=cnf["default"])
                             ).stdout.strip()
        print(f"bench/binding.py: Debian's python3-cryptography {ver} on {lib}; aesfast tier "
              f"{tier}; AESGCM(key).encrypt per message, 13 B AAD, a new key each; {a.rounds} "
              f"rounds x {a.slices} alternating slices of {a.ms / a.slices:.0f} ms per worker, "
              "best slice per round, median over rounds")
        print(f"{'bytes':>8} {'aesfast us/msg':>15} {'default us/msg':>15} {'ratio':>7}   min..max")
        rows = []
        slice_ms = a.ms / a.slices
        for size in sizes:
            for side in ("aesfast", "default"):
                ask(side, f"{size} {max(slice_ms, 50)}")  # warm up
            ratios, best = [], {"aesfast": [], "default": []}
            for rnd in range(a.rounds):
                b = {"aesfast": float("inf"), "default": float("inf")}
                for sl in range(a.slices):
                    order = ("aesfast", "default") if (rnd * a.slices + sl) % 2 == 0 \
                        else ("default", "aesfast")
                    for side in order:
                        b[side] = min(b[side], float(ask(side, f"{size} {slice_ms}")))
                ratios.append(b["default"] / b["aesfast"])
                for side in b:
                    best[side].append(b[side])
            med = {s: statistics.median(v) for s, v in best.items()}
            mr = statistics.median(ratios)
            rows.append((size, med["aesfast"], med["default"], mr, min(ratios), max(ratios)))
            print(f"{size:8d} {med['aesfast'] / 1000:15.3f} {med['default'] / 1000:15.3f} "
                  f"{mr:7.3f}   {min(ratios):.3f}..{max(ratios):.3f}", flush=True)
        if a.csv:
            with open(a.csv, "w") as f:
                f.write("binding,op,size,aesfast_ns,default_ns,ratio,ratio_min,ratio_max\n")
                for size, x, y, mr, lo, hi in rows:
                    f.write(f"python3-cryptography-{ver},AESGCM.encrypt,{size},{x:.1f},{y:.1f},"
                            f"{mr:.4f},{lo:.4f},{hi:.4f}\n")
    finally:
        for p in procs.values():
            p.stdin.close()
            p.wait()
        import shutil
        shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
