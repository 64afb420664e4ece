#!/usr/bin/env python3
"""wheel_host_test: aesfast under a Python extension that bundles its own static OpenSSL, as the
`cryptography` wheel does (OpenSSL 4.0 linked in), loaded through OPENSSL_CONF.

  test/wheel_host_test.py TREE MODULE SOURCE_DIR      exit 0 pass, 1 fail, 77 skip

Builds test/wheel_host.c into an extension module with TREE's libcrypto.a linked in and every
OpenSSL symbol local (a version script exports PyInit_wheel_host alone: checked), imports it into
this interpreter beside its own ssl module (the system's libcrypto.so.3), with an openssl.cnf
that activates default and MODULE (aesfast.so, linked with the system's libcrypto) and prefers
aesfast. Then, through the bundled libcrypto, AES-128/192/256-GCM of several lengths:
  - the cipher as a wheel gets it (EVP_aes_256_gcm(), no property query) must run on aesfast
    (the provider of the context's cipher, and aesfast's debug log: a key setup per message);
  - its ciphertext and tag must be the bundled default provider's (provider=default), and each
    must open the other's output; a changed tag must not open.
And the process must hold aesfast.so and the system's libcrypto.so.3 but no shared libcrypto of
TREE's series: the bundled copy is the extension's own. Skips (77) without TREE/libcrypto.a
(test/build-openssl.sh --static) or without Python.h (python3-dev).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile

CHILD = r"""
import json, os, ssl, sys
import wheel_host as w
out = {"version": w.version(), "ssl": ssl.OPENSSL_VERSION, "cases": []}
for keylen in (16, 24, 32):
    for n, a in ((0, 13), (16, 0), (60, 20), (1000, 37), (16384, 13)):
        key = bytes((keylen * 7 + i * 13) & 0xff for i in range(keylen))
        iv = bytes((n + i * 29) & 0xff for i in range(12))
        aad = bytes((i * 3 + 1) & 0xff for i in range(a))
        pt = bytes((i * 31 + (i >> 8)) & 0xff for i in range(n))
        ct, tag, prov = w.gcm_seal(key, iv, aad, pt, None)
        dct, dtag, dprov = w.gcm_seal(key, iv, aad, pt, "provider=default")
        back, oprov = w.gcm_open(key, iv, aad, dct, dtag, None)
        dback, _ = w.gcm_open(key, iv, aad, ct, tag, "provider=default")
        bad, _ = w.gcm_open(key, iv, aad, ct, bytes([tag[0] ^ 1]) + tag[1:], None)
        out["cases"].append({"keylen": keylen, "len": n, "aad": a, "provider": prov,
                             "default_provider": dprov, "open_provider": oprov,
                             "same": ct == dct and tag == dtag,
                             "opens": back == pt and dback == pt, "forgery_refused": bad is None})
maps = open("/proc/self/maps").read()
out["mapped"] = sorted({l.split()[-1] for l in maps.splitlines()
                        if "/" in l and ("libcrypto" in l or "aesfast" in l or "wheel_host" in l)})
print(json.dumps(out))
"""


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    tree, module, src = sys.argv[1:]
    if not os.path.isfile(os.path.join(tree, "libcrypto.a")):
        print(f"wheel_host_test: skipped: {tree} has no libcrypto.a "
              "(test/build-openssl.sh --static builds it)")
        return 77
    pyinc = sysconfig.get_paths()["include"]
    if not os.path.isfile(os.path.join(pyinc, "Python.h")):
        print(f"wheel_host_test: skipped: no Python.h in {pyinc} (apt-get install python3-dev)")
        return 77
    ver = dict(re.findall(r"^(MAJOR|MINOR)=(\d+)", open(os.path.join(tree, "VERSION.dat")).read(),
                          re.M))
    series = f"{ver['MAJOR']}.{ver['MINOR']}"
    cc = os.environ.get("AESFAST_TEST_CC", "cc").split()
    fails = []

    with tempfile.TemporaryDirectory() as tmp:
        ext = os.path.join(tmp, "wheel_host" + sysconfig.get_config_var("EXT_SUFFIX"))
        vmap = os.path.join(tmp, "wheel_host.map")
        with open(vmap, "w") as f:
            f.write("{ global: PyInit_wheel_host; local: *; };\n")
        cmd = cc + ["-shared", "-fPIC", "-O1", "-Wall", "-Wextra", "-Werror", "-I" + pyinc,
                    "-I" + os.path.join(tree, "include"), os.path.join(src, "wheel_host.c"),
                    os.path.join(tree, "libcrypto.a"), "-Wl,--version-script=" + vmap,
                    "-Wl,--exclude-libs,ALL", "-pthread", "-ldl", "-o", ext]
        print("wheel_host_test: " + " ".join(cmd))
        r = subprocess.run(cmd)
        if r.returncode != 0:
            print("wheel_host_test: FAIL: building the extension")
            return 1
        nm = shutil.which("nm")
        if nm:
            syms = subprocess.run([nm, "-D", "--defined-only", ext], capture_output=True,
                                  text=True).stdout.split()
            exported = [s for s in syms if re.match(r"^[A-Za-z_]\w*$", s) and len(s) > 1
                        and s not in ("T", "D", "B", "R", "W", "A")]
            if exported != ["PyInit_wheel_host"]:
                fails.append(f"the extension exports {exported[:5]}..., not PyInit_wheel_host alone")
            else:
                print("wheel_host_test: the extension exports PyInit_wheel_host alone "
                      "(OpenSSL inside it, local)")
        cnf = os.path.join(tmp, "openssl.cnf")
        with open(cnf, "w") as f:
            f.write("openssl_conf = openssl_init\n[openssl_init]\nproviders = provider_sect\n"
                    "alg_section = evp_properties\n[evp_properties]\n"
                    "default_properties = ?provider=aesfast\n[provider_sect]\n"
                    "default = default_sect\naesfast = aesfast_sect\n[default_sect]\nactivate = 1\n"
                    f"[aesfast_sect]\nmodule = {module}\nactivate = 1\n")
        env = {k: v for k, v in os.environ.items()
               if k not in ("LD_LIBRARY_PATH", "OPENSSL_MODULES", "AESFAST_KERNEL")}
        env.update(OPENSSL_CONF=cnf, AESFAST_DEBUG="1", PYTHONPATH=tmp)
        r = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True)
        log = r.stderr
        if r.returncode != 0:
            print(r.stdout + log)
            print(f"wheel_host_test: FAIL: the interpreter exited with status {r.returncode}")
            return 1
        res = json.loads(r.stdout)

    print(f"wheel_host_test: bundled: {res['version']}; the interpreter's ssl: {res['ssl']}")
    print("wheel_host_test: mapped: " + ", ".join(res["mapped"]))
    if not res["version"].startswith(f"OpenSSL {series}."):
        fails.append(f"the bundled libcrypto is {res['version']}, not OpenSSL {series}")
    if not any(os.path.basename(m) == os.path.basename(module) for m in res["mapped"]):
        fails.append("aesfast.so is not in the process")
    soname = f"libcrypto.so.{ver['MAJOR']}"
    if ver["MAJOR"] != "3" and any(os.path.basename(m) == soname for m in res["mapped"]):
        fails.append(f"a shared {soname} is mapped: the bundled copy is not the extension's own")
    if not any(re.search(r"libcrypto\.so\.3$", m) for m in res["mapped"]):
        fails.append("no libcrypto.so.3 in the process (aesfast.so's)")
    for c in res["cases"]:
        what = f"AES-{c['keylen'] * 8}-GCM, {c['len']} bytes, {c['aad']} of AAD"
        ok = (c["provider"] == "aesfast" and c["open_provider"] == "aesfast"
              and c["default_provider"] == "default" and c["same"] and c["opens"]
              and c["forgery_refused"])
        print(f"{'ok  ' if ok else 'FAIL'} {what}: the wheel's cipher on {c['provider']}, "
              f"{'equal to' if c['same'] else 'NOT equal to'} the bundled default's; "
              f"{'each opens the other' if c['opens'] else 'does NOT open'}; "
              f"a changed tag {'refused' if c['forgery_refused'] else 'ACCEPTED'}")
        if not ok:
            fails.append(what)
    setups = len(re.findall(r"aesfast: AES-\d+-GCM: key setup on kernel", log))
    want = 2 * len(res["cases"])  # the wheel's seal and open of each case
    if setups < want:
        fails.append(f"aesfast's debug log has {setups} AES-GCM key setups, fewer than the "
                     f"{want} seals and opens the wheel ran")
    else:
        print(f"wheel_host_test: aesfast's debug log: {setups} AES-GCM key setups "
              f"(the wheel ran {want} seals and opens on it)")
    for f in fails:
        print("wheel_host_test: FAIL: " + f)
    if fails:
        return 1
    print("wheel_host_test: pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
