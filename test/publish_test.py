#!/usr/bin/env python3
"""bench/publish.py on a made-up run (it measures nothing here): the pages carry the run's
figures and only them, the README block between the markers is replaced and nothing else in
README.md moves, the index lists every class, a README without markers is refused untouched, and
the CPU classes come out as bench/publish.py documents them.

    test/publish_test.py SOURCE_DIR        exit 0 pass, 1 fail, 77 skip (no gnuplot)
"""
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

src = sys.argv[1]
publish = os.path.join(src, "bench", "publish.py")
if shutil.which("gnuplot") is None:
    print("publish_test: skipped: no gnuplot (test/install-deps.sh --bench)")
    sys.exit(77)

fails = 0


def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += 0 if ok else 1


HEAD = "cipher,op,size,aesfast_gbps,default_gbps,ratio,gcm_gbps,gcm_ratio\n"


def bench_csv(scale):
    rows = []
    for cipher, op in [("AES-128-CTR", "bulk"), ("AES-256-CTR", "bulk"), ("AES-128-GCM", "seal"),
                       ("AES-128-GCM", "open"), ("AES-256-GCM", "seal"), ("AES-256-GCM", "open")]:
        for i, size in enumerate([16, 1024, 16384, 1048576]):
            ratio = scale + 0.01 * i + (0.5 if "CTR" in cipher else 0)
            rows.append(f"{cipher},{op},{size},{ratio * 2:.4f},2.0000,{ratio:.4f},,\n")
    # the per-message set-ups: rekey 0.95 + ..., speed 0.90, newctx 0.62, copy 0.55 (+ 0.01 a size)
    for op, base in [("rekey", 0.95), ("speed", 0.90), ("newctx", 0.62), ("copy", 0.55)]:
        for i, size in enumerate([16, 1024, 16384, 1048576]):
            ratio = base * scale / 1.25 + 0.01 * i
            rows.append(f"AES-128-GCM,{op},{size},{ratio:.4f},1.0000,{ratio:.4f},,\n")
    for size in [16, 1024, 16384, 1048576]:
        ref = "" if scale < 2 else "0.1000"
        rat = "" if scale < 2 else "33.3000"
        rows.append(f"AES-128-GCM-SIV,seal,{size},3.3300,{ref},{rat},6.6600,0.5000\n")
    return HEAD + "".join(rows)


def make_stage(d, quick="0"):
    os.makedirs(d)
    w = lambda name, text: open(os.path.join(d, name), "w").write(text)
    w("meta", "command=bench/run.sh --publish\nstart_epoch=1700000000\nquick=" + quick +
      "\ncommit=0123456789abcdef0123456789abcdef01234567\nsubject=a `test` <!-- x -->\n"
      "branch=perf\ndirty=0\ndirty_files=\nload_start=0.1 0.2 0.3\nbench_args=--rounds 3\n")
    w("libcrypto", "openssl-3.0.99|system|/lib/libcrypto.so.3|OpenSSL 3.0.99 1 Jan 2026\n"
      "openssl-3.5.99|tree|/nonexistent/libcrypto.so.3|OpenSSL 3.5.99 1 Jan 2026\n")
    for lab, scale in [("openssl-3.0.99", 1.25), ("openssl-3.5.99", 2.5)]:
        w(f"bench-{lab}.csv", bench_csv(scale))
        w(f"bench-{lab}.log", "libcrypto:  OpenSSL x\ncpu:        Test CPU\nprovider:   aesfast "
          "(aesfast-kernel: vaes-avx512) vs default\nmethod:     3 rounds x 20 ms per side\n")
        w(f"noise-{lab}.csv", HEAD + "AES-128-GCM,seal,16,1.0,1.0,0.9900,,\n"
          "AES-128-GCM,seal,16384,1.0,1.0,1.0100,,\n")
        w(f"noise-{lab}.log", "  AES-128-GCM seal 16 round 0: default 1.0 default 1.0 ratio 0.9700\n"
          "  AES-128-GCM seal 16384 round 0: default 1.0 default 1.0 ratio 1.0300\n")
    w("kernels.csv", "tier,function,key_bits,bytes,ns_per_call,cycles_per_call,"
      "cycles_per_16_blocks,cycles_per_byte,gb_per_s,clock_ghz\n"
      "vaes-avx512,gcm-seal,128,16384,500.0,2000.0,33.80,0.13,32.0,4.0\n"
      "vaes-avx512,ctr,256,16384,500.0,2000.0,30.00,0.13,32.0,4.0\n"
      "vaes-avx512,gcm-hkey,128,0,50.0,200.0,,,,4.0\n"
      "aesni,set-key,256,0,20.0,80.0,,,,4.0\n")
    w("insn.txt", "instruction loop                   width   cyc/insn   insn/cyc\n"
      "VAESENC                              zmm      0.507       1.97\n"
      "VPCLMULQDQ                           zmm      2.070       0.48\n"
      "VAESENC                              xmm      0.507       1.97\n"
      "VPCLMULQDQ                           xmm      2.070       0.48\n"
      "VPCLMULQDQ                           ymm      2.070       0.48\n"
      "VAESENC latency                      xmm      4.100       0.24\n"
      "VPCLMULQDQ latency                   xmm      5.100       0.20\n"
      "VPXOR(D) latency                     xmm      1.050       0.95\n")
    w("tls.txt", "bench/tls.sh: test\nTLS_AES_128_GCM_SHA256 ratio 1.23x\n")
    w("speed-openssl-3.5.99.csv", "size,aesfast_kbps,default_kbps,ratio,ratio_min,ratio_max\n"
      "16,45000.00,50000.00,0.9000,0.8800,0.9200\n16384,24000000.00,20000000.00,1.2000,1.1500,1.2500\n")
    w("binding.csv", "binding,op,size,aesfast_ns,default_ns,ratio,ratio_min,ratio_max\n"
      "python3-cryptography-38.0.4,AESGCM.encrypt,16,10600.0,10650.0,1.0047,0.9900,1.0100\n"
      "python3-cryptography-38.0.4,AESGCM.encrypt,16384,12300.0,17900.0,1.4553,1.3400,1.4900\n")
    w("tls.csv", "suite,side\n")


tmp = tempfile.mkdtemp(prefix="aesfast-publish.")
try:
    stage, out, readme = (os.path.join(tmp, x) for x in ("stage", "perf", "README.md"))
    make_stage(stage)
    before, after = "# aesfast\n\nintro\n\n<!-- perf:begin -->\n", "<!-- perf:end -->\n\n## More\n"
    open(readme, "w").write(before + "old block\n" + after)
    run = lambda *extra: subprocess.run([sys.executable, publish, "--stage", stage, "--out", out,
                                         "--readme", readme] + list(extra),
                                        capture_output=True, text=True)
    r = run("--class", "test-one")
    check(r.returncode == 0, "publish.py runs: " + r.stderr.strip()[-300:])
    if r.returncode != 0:
        sys.exit(1)
    cdir = os.path.join(out, "test-one")
    for f in ["README.md", "PROVENANCE.md", "bench-openssl-3.0.99.csv", "bench-openssl-3.5.99.csv",
              "gbps-openssl-3.5.99.svg", "speedup-openssl-3.5.99.svg", "speedup-openssl-3.0.99.svg",
              "noise-openssl-3.5.99.csv", "kernels.csv", "insn.txt", "tls.txt", "tls.csv"]:
        check(os.path.isfile(os.path.join(cdir, f)) and os.path.getsize(os.path.join(cdir, f)) > 0,
              f"writes {f}")
    page = open(os.path.join(cdir, "README.md")).read()
    prov = open(os.path.join(cdir, "PROVENANCE.md")).read()
    text = open(readme).read()
    check(text.startswith(before) and text.endswith(after) and "old block" not in text,
          "README.md: the block replaced, the rest as it was")
    # 3.5.99 is the newest: its AES-128-GCM seal at 16 B is 2.5, at 1 MiB 2.53; CTR 3.0.
    check("| AES-128-GCM seal | 2.50× | 2.51× | 2.52× | 2.53× |" in text, "README.md: the newest libcrypto's ratios")
    check("| AES-128-CTR | 3.00× |" in text and "| AES-128-GCM-SIV seal | 33.3× |" in text,
          "README.md: CTR and GCM-SIV rows")
    check("test-one/README.md" in text and "medians 0.990–1.010, half of them within ±1.0 %" in text,
          "README.md: links, noise figure")
    check("| AES-128-GCM seal | 1.25× | 1.26× | 1.27× | 1.28× |" in page, "page: the 3.0 table")
    # the set-up rows, newest libcrypto (scale 2.5: base x 2)
    for op, want in [("rekey", "| 1.90× | 1.91× | 1.92× | 1.93× |"),
                     ("speed", "| 1.80× | 1.81× | 1.82× | 1.83× |"),
                     ("newctx", "| 1.24× | 1.25× | 1.26× | 1.27× |"),
                     ("copy", "| 1.10× | 1.11× | 1.12× | 1.13× |")]:
        check(f"| AES-128-GCM {op} {want}" in text, f"README.md: the AES-128-GCM {op} row")
    check("| AES-128-GCM copy | 0.55× | 0.56× | 0.57× | 0.58× |" in page,
          "page: the set-up rows against 3.0 too")
    check("| 16 | 0.045 | 0.050 | 0.90× (0.88–0.92) |" in page
          and "| 16384 | 24.000 | 20.000 | 1.20× (1.15–1.25) |" in page
          and os.path.isfile(os.path.join(cdir, "speed-openssl-3.5.99.csv")),
          "page: openssl speed's table, its CSV")
    check("| python3-cryptography-38.0.4 | 16384 | 12.30 | 17.90 | 1.46× (1.34–1.49) |" in page
          and os.path.isfile(os.path.join(cdir, "binding.csv")), "page: the binding's table, its CSV")
    sec30 = page.split("Against **OpenSSL 3.0.99")[1].split("Against **")[0]
    check("GCM-SIV" not in sec30, "page: no GCM-SIV row where the reference has none")
    check("VPCLMULQDQ zmm 13 × 2 = 26.0" in page and "| 1.30 |" in page,
          "page: gcm-seal's bound (13 multiplies x 2 cycles) and measured / bound")
    check("VAESENC zmm 56 × 1/2 = 28.0" in page, "page: AES-256 CTR's bound (56 x 0.5)")
    # key setup: GCM's hash key on vaes-avx512, 54 multiplies issued at 2 cycles = 108; its chain
    # E(0) 10 AES x 4 + 15 multiplies x 5 + 25 vector ops x 1 = 140; aesni's AES-256 set_key
    check("| vaes-avx512 | gcm-hkey | 128 | 200 | 4.00 | VPCLMULQDQ xmm 6 × 2 + ymm 6 × 2 + "
          "zmm 42 × 2 = 108.0 | 1.85 | 140 (10 AES × 4 + 15 CLMUL × 5 + 25 vector ops × 1) |" in page,
          "page: gcm-hkey's cycles, its issue floor and its chain")
    check("| aesni | set-key | 256 | 80 | 4.00 | VAESENC xmm 13 × 1/2 = 6.5 | 12.31 | 78 (13 AES × 4 "
          "+ 0 CLMUL × 5 + 26 vector ops × 1) |" in page, "page: set-key's floor and chain")
    check("single rounds 0.970–1.030" in prov and "median ratios 0.990–1.010" in prov
          and "AES-128-GCM seal 16 B against 3.0.99, 0.990 with every round in 0.970–0.970" in prov,
          "PROVENANCE.md: the noise figure, medians, single rounds, the furthest line")
    check("0123456789abcdef0123456789abcdef01234567" in prov and "clean at the start" in prov
          and "`bench/run.sh --publish`" in prov, "PROVENANCE.md: commit, clean tree, command")
    check("<!-- x -->" not in prov.replace("`a 'test' <!-- x -->`", ""),
          "PROVENANCE.md: a commit subject cannot open an HTML comment")
    check("OpenSSL 3.0.99" in prov and "3.0 has no AVX-512 GCM" in prov and
          "none (OpenSSL has it from 3.2)" in prov, "PROVENANCE.md: the default provider's paths")
    check("1.2300" not in page and "TLS_AES_128_GCM_SHA256 ratio 1.23x" in page,
          "page: nginx's table as bench/tls.sh wrote it")

    # A second class: the index lists both; the first class's folder stays.
    shutil.rmtree(stage)
    make_stage(stage, quick="1")
    r = run("--class", "test-two")
    idx = open(os.path.join(out, "README.md")).read()
    check(r.returncode == 0 and "[test-one](test-one/README.md)" in idx and
          "[test-two](test-two/README.md)" in idx and "(quick run)" in idx and
          os.path.isfile(os.path.join(cdir, "README.md")), "index: every class, quick runs marked")
    check("--quick run" in open(readme).read(), "README.md: a quick run says so")

    # No markers: refused, README.md untouched.
    open(readme, "w").write("# aesfast\n")
    r = run("--class", "test-three")
    check(r.returncode != 0 and open(readme).read() == "# aesfast\n" and "markers" in r.stderr,
          "README.md without markers: refused, unchanged")

    # The CPU classes.
    spec = importlib.util.spec_from_file_location("publish", publish)
    pub = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pub)
    real = pub.platform.machine
    cases = [
        ("x86_64", {"vendor_id": "AuthenticAMD", "cpu family": "26", "model": "2", "flags": "avx512f"}, "amd-zen5"),
        ("x86_64", {"vendor_id": "AuthenticAMD", "cpu family": "25", "model": "1", "flags": "avx2 vaes"}, "amd-zen3"),
        ("x86_64", {"vendor_id": "AuthenticAMD", "cpu family": "25", "model": "17", "flags": "avx512f vaes"}, "amd-zen4"),
        ("x86_64", {"vendor_id": "AuthenticAMD", "cpu family": "23", "model": "49", "flags": "avx2"}, "amd-zen2"),
        ("x86_64", {"vendor_id": "GenuineIntel", "cpu family": "6", "model": "207",
                    "flags": "aes avx2 avx512f vaes vpclmulqdq"}, "intel-avx512"),
        ("x86_64", {"vendor_id": "GenuineIntel", "cpu family": "6", "model": "151",
                    "flags": "aes avx2 vaes vpclmulqdq"}, "intel-avx2"),
        ("x86_64", {"vendor_id": "GenuineIntel", "cpu family": "6", "model": "85",
                    "flags": "aes avx2 avx512f"}, "intel-aesni"),
        ("aarch64", {"CPU implementer": "0x41", "CPU part": "0xd0c", "Features": "aes pmull"}, "arm64-neoverse-n1"),
        ("aarch64", {"CPU implementer": "0x41", "CPU part": "0xd4f", "Features": "aes pmull sha3"}, "arm64-neoverse-v2"),
        ("aarch64", {"CPU implementer": "0x41", "CPU part": "0xd03", "Features": "fp asimd"}, "arm64-cortex-a53-noaes"),
    ]
    for machine, info, want in cases:
        pub.platform.machine = lambda m=machine: m
        got = pub.cpu_class(info)[0]
        check(got == want, f"class {want}: {got}")
    pub.platform.machine = real
finally:
    shutil.rmtree(tmp)
print(f"publish_test: {fails} failure(s)")
sys.exit(1 if fails else 0)
