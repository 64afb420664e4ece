#!/usr/bin/env python3
"""man_test: provider-aesfast(7) renders without a warning and says what the provider does.

  test/man_test.py PAGE OPENSSL_BIN MODULE_DIR SOURCE_DIR OPENSSL_INCLUDE_DIR

1. groff -man -ww (every warning) prints nothing; so do `man --warnings=w -l` and, where
   installed, `mandoc -T lint`.
2. Against the provider, loaded with `-provider-path MODULE_DIR -provider aesfast` alone:
   every cipher name, alias and OID that `openssl list -cipher-algorithms` shows is in
   ALGORITHMS (and no other AES cipher is); the parameters of each mode, their types and
   whether they are gettable and settable, as `openssl list -cipher-algorithms -verbose` reports
   them, are exactly the entries of that mode's subsection of PARAMETERS; the algorithm
   parameters and the provider parameters (`openssl list -providers -verbose`) likewise.
3. Against the source: every getenv() name in provider/ and kernels/ is an ENVIRONMENT entry;
   every openssl.cnf key the provider asks the core for is a CONFIGURATION entry; every cipher
   and provider parameter name the provider's C uses is a PARAMETERS entry; the tiers in
   provider/dispatch.c are exactly the KERNEL TIERS entries; the reason strings in
   provider/errors.c are exactly the DIAGNOSTICS list.
Prints one line per check and exits 1 on any failure.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

fails = 0


def check(ok, what, detail=""):
    global fails
    print(("ok   " if ok else "FAIL ") + what + (f": {detail}" if detail and not ok else ""))
    if not ok:
        fails += 1


def run(cmd, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


# ---- the roff source ------------------------------------------------------------------------

def roff_args(line):
    """The arguments of a macro line, quotes honoured."""
    return [a[1:-1] if a.startswith('"') else a for a in re.findall(r'"[^"]*"|\S+', line)[1:]]


def unescape(s):
    s = re.sub(r"\\f[BIRP]|\\f\[[A-Z]*\]", "", s)
    return s.replace("\\-", "-").replace("\\e", "\\").replace("\\(bu", "*").replace("\\&", "")


def parse_page(path):
    """{(section, subsection): [tag text of each .TP]} and {section: [lines of .nf blocks]}."""
    tags, nofill = {}, {}
    sh = ss = None
    lines = open(path, encoding="utf-8").read().splitlines()
    for i, line in enumerate(lines):
        if line.startswith(".SH "):
            sh, ss = unescape(" ".join(roff_args(line))), None
        elif line.startswith(".SS "):
            ss = unescape(" ".join(roff_args(line)))
        elif line == ".TP" and i + 1 < len(lines):
            nxt = lines[i + 1]
            text = "".join(roff_args(nxt)) if nxt.startswith(".") else nxt
            tags.setdefault((sh, ss), []).append(unescape(text))
        elif line == ".nf":
            block = []
            for l2 in lines[i + 1:]:
                if l2 == ".fi":
                    break
                block.append(unescape(l2))
            nofill.setdefault(sh, []).extend(block)
    return tags, nofill


PARAM_TAG = re.compile(r"^(\S+) \(([^;]+); (get|set|get, set)\)$")


def param_entries(tags, where):
    """{name: (type, gettable, settable)} of one PARAMETERS subsection."""
    out = {}
    for t in tags.get(("PARAMETERS", where), []):
        m = PARAM_TAG.match(t)
        if m is None:
            check(False, f"PARAMETERS / {where}: entry \"{t}\" reads NAME (TYPE; get|set)")
        else:
            out[m.group(1)] = (m.group(2), "get" in m.group(3), "set" in m.group(3))
    return out


def render(page):
    """The page as plain text, no hyphenation, one line per paragraph."""
    rc, out, err = run(["groff", "-man", "-Tascii", "-rHY=0", "-rLL=4000n",
                        "-P-c", "-P-b", "-P-u", page])
    return out if rc == 0 else ""


def section_text(text, name):
    """The rendered text of one .SH section."""
    m = re.search(r"^" + re.escape(name) + r"\n(.*?)(?=^[A-Z][A-Z ]+\n|\Z)", text, re.M | re.S)
    return m.group(1) if m else ""


# ---- the provider, through the openssl program ----------------------------------------------

# openssl list's type descriptions -> the page's.
TYPES = [
    (r"^unsigned integer \(max 8 bytes", "size_t"),
    (r"^unsigned integer \(max 4 bytes", "unsigned int"),
    (r"^integer \(max 4 bytes", "int"),
    (r"^octet string", "octet string"),
    (r"^pointer to a UTF8 encoded string", "UTF8 string"),
    (r"^UTF8 encoded string", "UTF8 string"),
]


def page_type(desc):
    for pat, t in TYPES:
        if re.match(pat, desc):
            return t
    return "?" + desc


def list_ciphers(openssl, env, moddir):
    """[(names, {'alg': {...}, 'get': {...}, 'set': {...}})] of aesfast's ciphers."""
    rc, out, err = run([openssl, "list", "-cipher-algorithms", "-verbose",
                        "-provider-path", moddir, "-provider", "aesfast"], env)
    check(rc == 0, "openssl list -cipher-algorithms -verbose -provider aesfast", err.strip())
    ciphers, cur, kind = [], None, None
    kinds = {"retrievable algorithm parameters:": "alg",
             "retrievable operation parameters:": "get",
             "settable operation parameters:": "set"}
    for line in out.splitlines():
        m = re.match(r"^  (?:\{ (.*) \}|(\S+)) @ (\S+)$", line)
        if m:
            cur = None
            if m.group(3) == "aesfast":
                names = [n.strip() for n in (m.group(1) or m.group(2)).split(",")]
                cur = (names, {"alg": {}, "get": {}, "set": {}})
                ciphers.append(cur)
            continue
        if cur is None:
            continue
        if line.strip() in kinds:
            kind = kinds[line.strip()]
        elif kind and re.match(r"^      \S+: ", line):
            name, desc = line.strip().split(": ", 1)
            cur[1][kind][name] = page_type(desc)
    return ciphers


def list_provider_params(openssl, env, moddir):
    rc, out, err = run([openssl, "list", "-providers", "-verbose",
                        "-provider-path", moddir, "-provider", "aesfast"], env)
    check(rc == 0, "openssl list -providers -verbose -provider aesfast", err.strip())
    params, inside, gettable = {}, False, False
    for line in out.splitlines():
        if re.match(r"^  \S", line):
            inside = line.strip() == "aesfast"
            gettable = False
        elif inside and line.strip() == "gettable provider parameters:":
            gettable = True
        elif inside and gettable and re.match(r"^      \S+: ", line):
            name, desc = line.strip().split(": ", 1)
            params[name] = (page_type(desc), True, False)
    return params


def display(names):
    return next((n for n in names if n.upper().startswith("AES-")), names[0])


def mode_of(names):
    for mode in ("GCM-SIV", "GCM", "CTR"):
        if any(x.upper().endswith("-" + mode) for x in names):
            return mode
    return display(names)


# ---- the source -----------------------------------------------------------------------------

def defines(paths):
    """#define NAME "string" and #define NAME OTHER, from C files and headers."""
    d = {}
    for p in paths:
        for m in re.finditer(r'^\s*#\s*define\s+(\w+)\s+("[^"]*"|\w+)\s*(?:/\*.*\*/\s*)?$',
                             open(p, encoding="utf-8", errors="replace").read(), re.M):
            d.setdefault(m.group(1), m.group(2))
    return d


def resolve(name, d):
    for _ in range(10):
        v = d.get(name)
        if v is None:
            return None
        if v.startswith('"'):
            return v[1:-1]
        name = v
    return None


def main():
    if len(sys.argv) != 6:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    page, openssl, moddir, src, incdir = sys.argv[1:]
    tags, nofill = parse_page(page)

    # 1. Renders without a warning.
    rc, out, err = run(["groff", "-man", "-ww", "-z", "-b", page])
    check(rc == 0 and err == "", "groff -man -ww -z: no warning", err.strip())
    if shutil.which("man"):
        env = dict(os.environ, LC_ALL="C.UTF-8", MANWIDTH="80")
        rc, out, err = run(["man", "--warnings=w", "-E", "UTF-8", "-l", page], env)
        check(rc == 0 and err == "" and "PROVIDER-AESFAST(7)" in out,
              "man --warnings=w -l: renders, no warning", err.strip())
    else:
        print("note: no man program; groff alone checked the page")
    if shutil.which("mandoc"):
        rc, out, err = run(["mandoc", "-T", "lint", "-W", "warning", page])
        check(rc == 0 and out + err == "", "mandoc -T lint: no warning", (out + err).strip())
    text = render(page)
    check("PROVIDER-AESFAST" in text, "groff -Tascii renders the page")

    # 2. The provider's own lists.
    with tempfile.NamedTemporaryFile("w", suffix=".cnf") as empty:
        env = dict(os.environ, OPENSSL_CONF=empty.name)
        env.pop("AESFAST_KERNEL", None)
        ciphers = list_ciphers(openssl, env, moddir)
        prov_params = list_provider_params(openssl, env, moddir)
    check(len(ciphers) >= 9, f"the provider lists its ciphers ({len(ciphers)})")

    algos = section_text(text, "ALGORITHMS")
    listed = set()
    for names, _ in ciphers:
        for n in names:
            listed.add(n.upper())
            ok = re.search(r"(?<![\w.-])" + re.escape(n) + r"(?![\w-]|\.\d)", algos, re.I)
            check(ok is not None, f"ALGORITHMS names {n}")
    for n in sorted(set(x.upper() for x in re.findall(r"\bAES-\d+-[A-Z-]*[A-Z]\b", algos))):
        check(n in listed, f"ALGORITHMS: {n} is a cipher the provider lists")

    by_mode = {}
    for names, params in ciphers:
        by_mode.setdefault(mode_of(names), []).append((names, params))
    alg_union = {}
    for mode, group in sorted(by_mode.items()):
        def entries(params):
            e = {}
            for n in set(params["get"]) | set(params["set"]):
                t = params["get"].get(n) or params["set"].get(n)
                e[n] = (t, n in params["get"], n in params["set"])
            return e
        first = entries(group[0][1])
        for names, params in group:
            check(entries(params) == first,
                  f"{display(names)}: the same parameters as {display(group[0][0])}")
            for n, t in params["alg"].items():
                alg_union[n] = (t, True, False)
        doc = param_entries(tags, f"AES-{mode} context parameters")
        for n, e in sorted(first.items()):
            check(doc.get(n) == e, f"AES-{mode} parameter {n} {e}",
                  f"the page has {doc.get(n)}")
        for n in sorted(set(doc) - set(first)):
            check(False, f"AES-{mode} parameter {n}: documented, not offered")
    for what, actual in (("Cipher algorithm parameters", alg_union),
                         ("Provider parameters", prov_params)):
        doc = param_entries(tags, what)
        for n, e in sorted(actual.items()):
            check(doc.get(n) == e, f"{what}: {n} {e}", f"the page has {doc.get(n)}")
        for n in sorted(set(doc) - set(actual)):
            check(False, f"{what}: {n}: documented, not offered")

    # 3. The source.
    c_files = sorted(glob.glob(os.path.join(src, "provider", "*.c")))
    all_c = c_files + sorted(glob.glob(os.path.join(src, "kernels", "**", "*.c"), recursive=True))
    code = {p: open(p, encoding="utf-8").read() for p in all_c}

    env_tags = set()
    for t in tags.get(("ENVIRONMENT", None), []):
        env_tags.update(x.strip() for x in t.split(","))
    for p, s in code.items():
        for v in sorted(set(re.findall(r'getenv\("(\w+)"\)', s))):
            check(v in env_tags, f"ENVIRONMENT: {v} ({os.path.basename(p)})")

    h_files = sorted(glob.glob(os.path.join(src, "provider", "*.h")))
    d = defines(c_files + h_files + [os.path.join(incdir, "openssl", "core_names.h")])
    prov_c = code[os.path.join(src, "provider", "provider.c")]
    cnf_tags = {t.split(" = ")[0] for t in tags.get(("CONFIGURATION", None), [])}
    m = re.search(r"core_get_params != NULL\)(.*?)OSSL_PARAM_END", prov_c, re.S)
    check(m is not None, "provider.c: the openssl.cnf keys asked of the core are found")
    for macro in re.findall(r"OSSL_PARAM_\w+\((\w+)", m.group(1) if m else ""):
        if macro.startswith("OSSL_PROV_PARAM_CORE_"):
            continue  # the core's own facts (its version), not an openssl.cnf key
        key = resolve(macro, d)
        check(key is not None and key in cnf_tags, f"CONFIGURATION: {key or macro}")

    param_names = set()
    for (sh, _), ts in tags.items():
        if sh == "PARAMETERS":
            param_names.update(t.split(" ")[0] for t in ts)
    used = set()
    for p in c_files + h_files:  # the parameter names the provider's code knows
        used.update(re.findall(r"\b(OSSL_(?:CIPHER|PROV)_PARAM_\w+)\b",
                               code[p] if p in code else open(p, encoding="utf-8").read()))
    for macro in sorted(used - {m for m in used if m.startswith("OSSL_PROV_PARAM_CORE_")}):
        name = resolve(macro, d)  # (OSSL_PROV_PARAM_CORE_*: asked of the core, not offered)
        check(name is not None and name in param_names, f"PARAMETERS: {name} ({macro})")

    disp = code[os.path.join(src, "provider", "dispatch.c")]
    tiers = set(re.findall(r'\.name = "([a-z0-9-]+)", \.set_key = aesfast_\w+_set_key', disp))
    doc_tiers = set(tags.get(("KERNEL TIERS", None), []))
    check(len(tiers) >= 6 and tiers == doc_tiers, f"KERNEL TIERS: {' '.join(sorted(tiers))}",
          f"the page has {' '.join(sorted(doc_tiers))}")

    reasons = re.findall(r'\{AESFAST_R_\w+, "([^"]+)"\}',
                         code[os.path.join(src, "provider", "errors.c")])
    doc_reasons = [l for l in nofill.get("DIAGNOSTICS", []) if l]
    check(len(reasons) > 0 and reasons == doc_reasons,
          f"DIAGNOSTICS: the {len(reasons)} reason strings of errors.c, in order",
          f"missing {sorted(set(reasons) - set(doc_reasons))}, "
          f"extra {sorted(set(doc_reasons) - set(reasons))}")

    print(f"man_test: {'FAILED, ' + str(fails) + ' failures' if fails else 'all checks passed'}")
    sys.exit(1 if fails else 0)


main()
