#!/usr/bin/env python3
"""selftest_vectors.py VECTORS_DIR [--check FILE]

Writes provider/selftest_vectors.h, the known answers of the power-on self-test
(provider/selftest.c), from the published vector files in VECTORS_DIR (test/vectors: see
its SOURCES.md). With --check FILE it writes nothing and exits 1 if FILE is not exactly what it
would write: the test "selftest-vectors" runs that, so the constants in the module are shown to
be the published ones, byte for byte.

Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
"""
import json
import textwrap
import os
import sys


def bb_records(path):
    """BoringSSL's KEY:/NONCE:/IN:/AD:/CT:/TAG: blocks, with their first line number."""
    recs, cur = [], None
    for n, line in enumerate(open(path), 1):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            if cur:
                recs.append(cur)
            cur = None
            continue
        k, _, v = line.partition(":")
        v = v.strip()
        v = v[1:-1].encode().hex() if v.startswith('"') else v
        if cur is None:
            cur = {"line": n}
        cur[k] = v
    if cur:
        recs.append(cur)
    return recs


def cipher_tests(path):
    """OpenSSL-style 'Cipher = X' stanzas of BoringSSL's cipher_tests.txt, with line numbers."""
    recs, cur = [], None
    for n, line in enumerate(open(path), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            if cur:
                recs.append(cur)
            cur = None
            continue
        k, _, v = line.partition("=")
        if cur is None:
            cur = {"line": n}
        cur[k.strip()] = v.strip()
    if cur:
        recs.append(cur)
    return recs


def wycheproof(path, tcid):
    d = json.load(open(path))
    for g in d["testGroups"]:
        for t in g["tests"]:
            if t["tcId"] == tcid:
                assert t["result"] == "valid" and g["ivSize"] == 96 and g["tagSize"] == 128
                return t
    raise SystemExit(f"{path}: no tcId {tcid}")


emitted = {}  # bytes -> the first array that holds them: vectors that share a key or message
# (Wycheproof's GCM and GCM-SIV files use the same ones) share one array


def carray(name, hexstr):
    b = bytes.fromhex(hexstr)
    if not b:
        return f"#define {name} NULL\n"
    if len(b) > 16 and b in emitted:
        return f"#define {name} {emitted[b]} /* the same bytes */\n"
    emitted.setdefault(b, name)
    out = [f"static const uint8_t {name}[{len(b)}] = {{\n"]
    for i in range(0, len(b), 16):
        out.append("    " + " ".join(f"0x{x:02x}," for x in b[i:i + 16]) + "\n")
    out.append("};\n")
    return "".join(out)


def main():
    args = sys.argv[1:]
    check = None
    if "--check" in args:
        i = args.index("--check")
        check = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        raise SystemExit(__doc__)
    vd = args[0]
    bb = os.path.join(vd, "boringssl")
    wp = os.path.join(vd, "wycheproof")

    # Each entry: (C prefix, comment, fields). Fields: key, iv, aad, pt, ct, tag (hex).
    ctr, gcm, siv = [], [], []

    # CTR: RFC 3686 test vectors #3 (AES-128) and #9 (AES-256): 36 bytes, a 32-bit counter from
    # 1 in the last 4 bytes (the longer CTR runs are the GCM vectors' keystream, in selftest.c).
    ct = cipher_tests(os.path.join(bb, "cipher_tests.txt"))
    rfc3686 = [r for r in ct if r.get("Cipher", "").endswith("-CTR")
               and len(r.get("Plaintext", "")) == 72]
    assert len(rfc3686) == 2
    for r, num in zip(rfc3686, (3, 9)):
        ctr.append((f"ctr_rfc3686_{num}",
                    f"RFC 3686 section 6, test vector #{num} (AES-{len(r['Key']) * 4}-CTR, 36 "
                    f"bytes), as in BoringSSL's crypto/cipher/test/cipher_tests.txt line {r['line']}",
                    {"key": r["Key"], "iv": r["IV"], "pt": r["Plaintext"],
                     "ct": r["Ciphertext"]}))

    # GCM. Wycheproof tcId 26 (AES-128, 513 bytes: 32 blocks and 1 byte) and 113 (AES-256, 511
    # bytes: 31 blocks and 15), no AAD; the GCM spec's AES-192 case with AAD; BoringSSL's AES-128
    # vector with 295 bytes of both.
    wf = os.path.join(wp, "aes_gcm_test.json")
    for tc, kb in ((26, 128), (113, 256)):
        t = wycheproof(wf, tc)
        assert len(t["key"]) * 4 == kb
        gcm.append((f"gcm_wp{tc}",
                    f"Wycheproof testvectors_v1/aes_gcm_test.json tcId {tc} (AES-{kb}-GCM, "
                    f"{len(t['msg']) // 2}-byte message, no AAD)",
                    {"key": t["key"], "iv": t["iv"], "aad": t["aad"], "pt": t["msg"],
                     "ct": t["ct"], "tag": t["tag"]}))
    # The GCM spec's (McGrew and Viega) test case 10: AES-192, 60 bytes, 20 bytes of AAD.
    recs = [r for r in bb_records(os.path.join(bb, "aes_192_gcm_tests.txt"))
            if r.get("TAG") == "2519498e80f1478f37ba55bd6d27618c"]
    assert len(recs) == 1
    r = recs[0]
    gcm.append(("gcm_spec10",
                "The GCM spec (McGrew and Viega, gcm-spec.pdf) test case 10 (AES-192-GCM, 60-byte "
                "message, 20 bytes of AAD), as in BoringSSL's "
                f"crypto/cipher/test/aes_192_gcm_tests.txt line {r['line']}",
                {"key": r["KEY"], "iv": r["NONCE"], "aad": r["AD"], "pt": r["IN"],
                 "ct": r["CT"], "tag": r["TAG"]}))
    recs = [r for r in bb_records(os.path.join(bb, "aes_128_gcm_tests.txt"))
            if len(r.get("IN", "")) == 590 and len(r.get("AD", "")) == 590]
    assert len(recs) == 1
    r = recs[0]
    gcm.append(("gcm_bssl295",
                "BoringSSL crypto/cipher/test/aes_128_gcm_tests.txt line "
                f"{r['line']} (AES-128-GCM, 295-byte message, 295 bytes of AAD)",
                {"key": r["KEY"], "iv": r["NONCE"], "aad": r["AD"], "pt": r["IN"],
                 "ct": r["CT"], "tag": r["TAG"]}))

    # GCM-SIV. RFC 8452 appendix C.1's vector with 18 bytes of AAD and 20 of plaintext;
    # Wycheproof tcId 62 (AES-128, 513 bytes); BoringSSL's AES-256 random vector (made by the
    # RFC's reference code) with 511 bytes and 255 of AAD.
    recs = bb_records(os.path.join(bb, "aes_128_gcm_siv_tests.txt"))
    r = [r for r in recs if r.get("IN") == "0300000000000000000000000000000004000000"]
    assert len(r) == 1 and r[0]["TAG"] == "24afc9805e976f451e6d87f6fe106514"
    r = r[0]
    siv.append(("siv_rfc8452",
                "RFC 8452 appendix C.1 (AES-128-GCM-SIV, 20-byte message, 18 bytes of AAD), "
                f"as in BoringSSL's crypto/cipher/test/aes_128_gcm_siv_tests.txt line {r['line']}",
                {"key": r["KEY"], "iv": r["NONCE"], "aad": r["AD"], "pt": r["IN"],
                 "ct": r["CT"], "tag": r["TAG"]}))
    t = wycheproof(os.path.join(wp, "aes_gcm_siv_test.json"), 62)
    siv.append(("siv_wp62",
                "Wycheproof testvectors_v1/aes_gcm_siv_test.json tcId 62 (AES-128-GCM-SIV, "
                f"{len(t['msg']) // 2}-byte message, no AAD)",
                {"key": t["key"], "iv": t["iv"], "aad": t["aad"], "pt": t["msg"], "ct": t["ct"],
                 "tag": t["tag"]}))
    recs = bb_records(os.path.join(bb, "aes_256_gcm_siv_tests.txt"))
    r = [r for r in recs if len(r.get("IN", "")) == 1022 and len(r.get("AD", "")) == 510]
    assert len(r) == 1
    r = r[0]
    siv.append(("siv_bssl511",
                "BoringSSL crypto/cipher/test/aes_256_gcm_siv_tests.txt line "
                f"{r['line']} (AES-256-GCM-SIV, 511-byte message, 255 bytes of AAD; made by "
                "RFC 8452's reference code)",
                {"key": r["KEY"], "iv": r["NONCE"], "aad": r["AD"], "pt": r["IN"],
                 "ct": r["CT"], "tag": r["TAG"]}))

    # GCM's message in one call (gcm_seal_msg, gcm_open_msg, or the composer and the tier's
    # last-block functions), beside the four above: lengths for each path of those (see
    # provider/selftest.c): no data, a few blocks after queued AAD, whole blocks only, a queue
    # and data too long for one group, and 32 whole blocks.
    msg = []
    for fname, kb, n in (("aes_128_gcm_tests.txt", 128, 0), ("aes_128_gcm_tests.txt", 128, 20),
                         ("aes_128_gcm_tests.txt", 128, 80), ("aes_256_gcm_tests.txt", 256, 280)):
        recs = [r for r in bb_records(os.path.join(bb, fname))
                if len(r.get("IN", "")) == 2 * n and len(r.get("AD", "")) == 2 * n
                and len(r.get("NONCE", "")) == 24 and len(r.get("TAG", "")) == 32]
        assert len(recs) >= 1
        r = recs[0]
        msg.append((f"gcm_bssl{kb}_{n}",
                    f"BoringSSL crypto/cipher/test/{fname} line {r['line']} (AES-{kb}-GCM, "
                    f"{n}-byte message, {n} bytes of AAD)",
                    {"key": r["KEY"], "iv": r["NONCE"], "aad": r["AD"], "pt": r["IN"],
                     "ct": r["CT"], "tag": r["TAG"]}))
    t = wycheproof(wf, 25)
    msg.append(("gcm_wp25",
                "Wycheproof testvectors_v1/aes_gcm_test.json tcId 25 (AES-128-GCM, "
                f"{len(t['msg']) // 2}-byte message, no AAD)",
                {"key": t["key"], "iv": t["iv"], "aad": t["aad"], "pt": t["msg"],
                 "ct": t["ct"], "tag": t["tag"]}))

    # GCM-SIV's short kernels (gcmsiv_seal_short, gcmsiv_open_short), beside RFC 8452 C.1 above:
    # messages of 1 to 31 blocks in all (AAD, data, lengths block), AES-128 and AES-256.
    short = []
    for fname, kb, n, a in (("aes_128_gcm_siv_tests.txt", 128, 0, 0),
                            ("aes_128_gcm_siv_tests.txt", 128, 8, 1),
                            ("aes_256_gcm_siv_tests.txt", 256, 64, 1),
                            ("aes_128_gcm_siv_tests.txt", 128, 136, 64),
                            ("aes_256_gcm_siv_tests.txt", 256, 307, 155)):
        recs = [r for r in bb_records(os.path.join(bb, fname))
                if len(r.get("IN", "")) == 2 * n and len(r.get("AD", "")) == 2 * a]
        assert len(recs) >= 1
        r = recs[0]
        short.append((f"siv_bssl{kb}_{n}",
                      f"BoringSSL crypto/cipher/test/{fname} line {r['line']} (AES-{kb}-GCM-SIV, "
                      f"{n}-byte message, {a} bytes of AAD)",
                      {"key": r["KEY"], "iv": r["NONCE"], "aad": r["AD"], "pt": r["IN"],
                       "ct": r["CT"], "tag": r["TAG"]}))
    t = wycheproof(os.path.join(wp, "aes_gcm_siv_test.json"), 45)
    short.append(("siv_wp45",
                  "Wycheproof testvectors_v1/aes_gcm_siv_test.json tcId 45 (AES-128-GCM-SIV, "
                  f"{len(t['msg']) // 2}-byte message, {len(t['aad']) // 2} bytes of AAD)",
                  {"key": t["key"], "iv": t["iv"], "aad": t["aad"], "pt": t["msg"],
                   "ct": t["ct"], "tag": t["tag"]}))

    out = ["/* Generated by test/selftest_vectors.py from test/vectors: DO NOT EDIT.\n"
           " * The known answers of the power-on self-test (provider/selftest.c), each from a\n"
           " * published vector file, never from aesfast's own code; the test selftest-vectors\n"
           " * checks that this file is what the script makes from those files. */\n"
           "#ifndef AESFAST_SELFTEST_VECTORS_H\n#define AESFAST_SELFTEST_VECTORS_H\n\n"
           "#include <stddef.h>\n#include <stdint.h>\n"]
    tables = {}
    for group, entries in (("ctr", ctr), ("gcm", gcm), ("gcm_msg", msg), ("gcmsiv", siv),
                           ("gcmsiv_short", short)):
        rows = []
        for prefix, comment, f in entries:
            out.append("\n/* " + "\n * ".join(textwrap.wrap(comment, 92)) + " */\n")
            for field in ("key", "iv", "aad", "pt", "ct", "tag"):
                if field in f:
                    out.append(carray(f"{prefix}_{field}", f[field]))
            if group == "ctr":
                assert len(f["iv"]) == 32
                rows.append(f"    {{{prefix}_key, sizeof({prefix}_key), {prefix}_iv,\n"
                            f"     {prefix}_pt, {prefix}_ct, sizeof({prefix}_pt)}},\n")
            else:
                assert len(f["iv"]) == 24 and len(f["tag"]) == 32
                aadlen = f"sizeof({prefix}_aad)" if f["aad"] else "0"
                ptlen = f"sizeof({prefix}_pt)" if f["pt"] else "0" # (an empty one is NULL)
                rows.append(f"    {{{prefix}_key, sizeof({prefix}_key), {prefix}_iv,\n"
                            f"     {prefix}_aad, {aadlen},\n"
                            f"     {prefix}_pt, {prefix}_ct, {ptlen}, {prefix}_tag}},\n")
        tables[group] = rows
    out.append("\n/* CTR: key, counter block of the first block, plaintext, ciphertext. */\n"
               "static const struct selftest_ctr {\n"
               "    const uint8_t *key;\n    size_t keylen;\n    const uint8_t *ctr, *pt, *ct;\n"
               "    size_t len;\n} selftest_ctr[] = {\n" + "".join(tables["ctr"]) + "};\n")
    out.append("\n/* AEAD: key, 12-byte IV, AAD, plaintext, ciphertext, 16-byte tag. */\n"
               "struct selftest_aead {\n"
               "    const uint8_t *key;\n    size_t keylen;\n    const uint8_t *iv, *aad;\n"
               "    size_t aadlen;\n    const uint8_t *pt, *ct;\n    size_t len;\n"
               "    const uint8_t *tag;\n};\n")
    for group in ("gcm", "gcm_msg", "gcmsiv", "gcmsiv_short"):
        out.append(f"static const struct selftest_aead selftest_{group}[] = {{\n"
                   + "".join(tables[group]) + "};\n")
    out.append("\n#endif /* AESFAST_SELFTEST_VECTORS_H */\n")
    text = "".join(out)

    if check is not None:
        have = open(check).read()
        if have != text:
            print(f"{check} differs from what test/selftest_vectors.py makes from {vd}")
            return 1
        print(f"{check}: every known answer matches the published vectors in {vd}")
        return 0
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
