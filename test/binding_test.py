#!/usr/bin/env python3
"""A language binding as a user has it on Debian: python3-cryptography (Debian's, linked to the
system libcrypto.so.3), with aesfast loaded through OPENSSL_CONF (a cnf activating aesfast and
default, default_properties = ?provider=aesfast: the drop-in's sections).

    test/binding_test.py MODULE [--cases N] [--seed S]     exit 0 pass, 1 fail, 77 skip

Random keys (128, 192, 256 bits), nonces, AAD and lengths (0 .. 5000 bytes, and a few around the
block and kernel widths) through AESGCM.encrypt and .decrypt, AESGCMSIV where the binding has it
(cryptography 42 and later; Debian 12's 38 has not), and AES-CTR through Cipher: each case runs in
two processes of Debian's python3, one with OPENSSL_CONF naming the aesfast cnf and one naming a
cnf of the default provider alone, and the outputs must be identical; a flipped tag bit must be
refused under aesfast. That aesfast did the work: AESFAST_DEBUG=file:LOG in the aesfast process
must log a key setup for every AESGCM and AES-CTR call ("AES-128-GCM: key setup on kernel ...",
from that process's pid), and the default process's log must stay empty. The check is run on the
default process's log too and must fail there (the proof can fail).

It skips (77) only when Debian's cryptography is absent and cannot be installed (not root, or
apt-get fails); test/install-deps.sh installs it. It runs /usr/bin/python3, not a python3 that
PATH may find first (a pyenv or a virtualenv with pip's cryptography wheel, which carries its own
libcrypto and never loads a provider from the system's cnf).
"""
import json
import os
import random
import re
import subprocess
import sys
import tempfile

PY = "/usr/bin/python3"
DEBIAN_PKG = "/usr/lib/python3/dist-packages/cryptography"


def child(cases_path, out_path):
    """Runs the cases with whatever OPENSSL_CONF says; writes the outputs as hex."""
    import cryptography
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    from cryptography.hazmat.primitives.ciphers import aead

    with open(cases_path) as f:
        cases = json.load(f)
    out = {"file": cryptography.__file__, "version": cryptography.__version__, "pid": os.getpid(),
           "results": []}
    try:
        from cryptography.hazmat.backends.openssl.backend import backend
        out["openssl"] = backend.openssl_version_text()
    except Exception as e:  # the text is informative only
        out["openssl"] = f"unknown ({e})"
    has_siv = hasattr(aead, "AESGCMSIV")
    out["has_siv"] = has_siv
    for c in cases:
        key, nonce, a, data = (bytes.fromhex(c[k]) for k in ("key", "nonce", "aad", "data"))
        r = {}
        if c["kind"] == "gcm" or (c["kind"] == "siv" and has_siv):
            cls = aead.AESGCM if c["kind"] == "gcm" else aead.AESGCMSIV
            ct = cls(key).encrypt(nonce, data, a or None)
            r["ct"] = ct.hex()
            r["opens"] = cls(key).decrypt(nonce, ct, a or None) == data
            bad = bytearray(ct)
            bad[-1 - (len(data) % 16)] ^= 0x20  # a bit of the tag
            try:
                cls(key).decrypt(nonce, bytes(bad), a or None)
                r["forgery_refused"] = False
            except InvalidTag:
                r["forgery_refused"] = True
        elif c["kind"] == "ctr":
            enc = Cipher(algorithms.AES(key), modes.CTR(nonce)).encryptor()
            ct = enc.update(data) + enc.finalize()
            dec = Cipher(algorithms.AES(key), modes.CTR(nonce)).decryptor()
            r["ct"] = ct.hex()
            r["opens"] = dec.update(ct) + dec.finalize() == data
        out["results"].append(r)
    with open(out_path, "w") as f:
        json.dump(out, f)


def make_cases(rng, n):
    sizes = [0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 127, 128, 255, 256, 257, 511, 512, 1023, 1024,
             1420, 4095, 4096, 4097]
    cases = []
    for i in range(n):
        kind = ("gcm", "siv", "ctr")[i % 3]
        klen = (16, 24, 32)[(i // 3) % 3]
        size = sizes[i % len(sizes)] if i < 3 * len(sizes) else rng.randrange(0, 5001)
        cases.append({
            "kind": kind,
            "key": rng.randbytes(klen).hex(),
            # CTR: a 16-byte counter block, some near a 32-bit and a 64-bit wrap
            "nonce": (rng.randbytes(12) + (b"\xff\xff\xff\xf0" if i % 5 == 0 else
                                          rng.randbytes(4))).hex() if kind == "ctr"
            else rng.randbytes(12).hex(),
            "aad": rng.randbytes(rng.choice((0, 13, rng.randrange(0, 100)))).hex()
            if kind != "ctr" else "",
            "data": rng.randbytes(size).hex(),
        })
    return cases


def write_cnf(path, module):
    with open(path, "w") as f:
        f.write("config_diagnostics = 1\nopenssl_conf = openssl_init\n[openssl_init]\n"
                "providers = provider_sect\n")
        if module:
            f.write("alg_section = evp_properties\n[evp_properties]\n"
                    "default_properties = ?provider=aesfast\n")
        f.write("[provider_sect]\ndefault = default_sect\n")
        if module:
            f.write("aesfast = aesfast_sect\n")
        f.write("[default_sect]\nactivate = 1\n")
        if module:
            f.write(f"[aesfast_sect]\nmodule = {module}\nactivate = 1\n")


def keyed_on_aesfast(log, pid, cases, has_siv):
    """'' if the log has a key setup by aesfast, from pid, for every call that keys (AESGCM
    encrypt and decrypt, the forgery's decrypt, CTR's encryptor and decryptor), else why not."""
    want = {}
    for c in cases:
        if c["kind"] == "siv" and not has_siv:
            continue
        name = f"AES-{len(c['key']) * 4}-{ {'gcm': 'GCM', 'siv': 'GCM-SIV', 'ctr': 'CTR'}[c['kind']] }"
        want[name] = want.get(name, 0) + (3 if c["kind"] != "ctr" else 2)
    got = {}
    for m in re.finditer(r" pid (\d+) aesfast: (AES-\d+-[A-Z-]+): key setup on kernel (\S+)", log):
        if int(m.group(1)) == pid:
            got[m.group(2)] = got.get(m.group(2), 0) + 1
    short = [f"{n}: {got.get(n, 0)} key setups logged, {w} calls" for n, w in sorted(want.items())
             if got.get(n, 0) < w]
    return "; ".join(short)


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
        return 0
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    module = os.path.abspath(args[0])
    ncases, seed = 300, random.randrange(1 << 32)
    i = 1
    while i < len(args):
        if args[i] == "--cases" and i + 1 < len(args):
            ncases = int(args[i + 1]); i += 2
        elif args[i] == "--seed" and i + 1 < len(args):
            seed = int(args[i + 1]); i += 2
        else:
            print(f"binding_test: unknown argument {args[i]}", file=sys.stderr)
            return 2
    if not os.path.isfile(module):
        print(f"binding_test: no module {module}", file=sys.stderr)
        return 1

    if not os.path.isdir(DEBIAN_PKG):
        if os.geteuid() == 0 and subprocess.run(
                ["apt-get", "install", "-y", "-qq", "--no-install-recommends",
                 "python3-cryptography"], env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"),
                capture_output=True).returncode != 0:
            subprocess.run(["apt-get", "update", "-qq"], capture_output=True)
            subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends",
                            "python3-cryptography"],
                           env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"),
                           capture_output=True)
        if not os.path.isdir(DEBIAN_PKG):
            print("binding_test: skipped: Debian's python3-cryptography is not installed and "
                  "could not be (test/install-deps.sh installs it)")
            return 77

    fails = 0

    def check(ok, what):
        nonlocal fails
        print(("ok   " if ok else "FAIL ") + what)
        fails += 0 if ok else 1

    print(f"binding_test: seed {seed}, {ncases} cases")
    rng = random.Random(seed)
    cases = make_cases(rng, ncases)
    tmp = tempfile.mkdtemp(prefix="aesfast-binding.")
    try:
        paths = {k: os.path.join(tmp, k) for k in ("cases.json", "aesfast.cnf", "default.cnf")}
        with open(paths["cases.json"], "w") as f:
            json.dump(cases, f)
        write_cnf(paths["aesfast.cnf"], module)
        write_cnf(paths["default.cnf"], None)
        res = {}
        for side in ("aesfast", "default"):
            log = os.path.join(tmp, f"{side}.log")
            out = os.path.join(tmp, f"{side}.json")
            env = {k: v for k, v in os.environ.items()
                   if k not in ("PYTHONPATH", "PYTHONHOME", "OPENSSL_MODULES", "AESFAST_KERNEL")}
            env.update(OPENSSL_CONF=paths[f"{side}.cnf"], AESFAST_DEBUG=f"file:{log}")
            r = subprocess.run([PY, "-I", os.path.abspath(__file__), "--child", paths["cases.json"],
                                out], env=env, capture_output=True, text=True)
            check(r.returncode == 0, f"{side}: Debian's python3 runs the cases"
                  + (": " + r.stderr.strip()[-800:] if r.returncode else ""))
            if r.returncode != 0:
                return 1
            with open(out) as f:
                res[side] = json.load(f)
            res[side]["log"] = open(log).read() if os.path.exists(log) else ""
        a, d = res["aesfast"], res["default"]
        print(f"binding_test: cryptography {a['version']} ({a['file']}), {a['openssl']}; "
              f"AESGCMSIV: {'yes' if a['has_siv'] else 'not in this version'}")
        check(a["file"].startswith(DEBIAN_PKG), "the binding is Debian's: " + a["file"])
        ran = [c["kind"] for c in cases if c["kind"] != "siv" or a["has_siv"]]
        diff = [i for i, (x, y) in enumerate(zip(a["results"], d["results"])) if x != y]
        check(len(a["results"]) == len(cases) and not diff,
              f"{len(ran)} calls (gcm {ran.count('gcm')}, siv {ran.count('siv')}, ctr "
              f"{ran.count('ctr')}): the same output under aesfast as under the default provider"
              + (f"; first difference: case {diff[0]} {cases[diff[0]]['kind']} "
                 f"{len(cases[diff[0]]['data']) // 2} bytes" if diff else ""))
        check(all(r.get("opens", True) for r in a["results"]), "aesfast opens what it sealed")
        check(all(r.get("forgery_refused", True) for r in a["results"]),
              "aesfast refuses every message with a tag bit flipped")
        why = keyed_on_aesfast(a["log"], a["pid"], cases, a["has_siv"])
        check(why == "", "aesfast did the work: a key setup logged by the aesfast process for "
              "every call" + (f" ({why})" if why else ""))
        check(d["log"] == "" and keyed_on_aesfast(d["log"], d["pid"], cases, d["has_siv"]) != "",
              "the default process logged nothing and fails that check (the proof can fail)")
    finally:
        import shutil
        shutil.rmtree(tmp)
    print(f"binding_test: {fails} failure(s)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
