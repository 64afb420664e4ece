#!/usr/bin/env python3
"""links_test: every relative link in README.md and doc/**/*.md resolves.

  test/links_test.py SOURCE_DIR [FILE.md ...]

Checks each inline link and image (`[text](target)`, `![alt](target)`), each reference
definition (`[name]: target`) and each reference use (`[text][name]`, `[name][]`) of the
Markdown files given (by default README.md and doc/*.md under SOURCE_DIR), outside code spans,
fenced code blocks and HTML comments:
- a relative target must name a file or folder inside SOURCE_DIR;
- a `#fragment` on a Markdown file (or on the file itself: `(#fragment)`) must be the anchor of
  one of its headings, made as GitHub makes them (lower case; punctuation other than `-` and `_`
  dropped; each space a `-`; a repeated heading gets `-1`, `-2`, ...), or an `id`/`name` of an
  HTML element in it;
- a reference use must have a definition.
Links with a scheme (https:, mailto:) are not fetched. Also the names the pages give:
- a code span that is a path in the tree (`provider/gcm.c`, `test/run.sh:12`) must name a file
  or folder of SOURCE_DIR, or a program a meson.build beside it builds (`bench/kernels`);
  placeholders (`doc/perf/CPU-CLASS/`, anything with * < > { }) and the few files of OpenSSL's
  own tree that doc/testing-openssl-suite.md names are not paths of this tree;
- every tier that provider/dispatch.c defines is named where the tier suites are listed: the
  README's tier table, doc/testing.md's "One suite per tier" and test/meson.build's "Suites:".
Before checking the tree it checks itself on a scratch tree that has a broken file link, a
broken anchor, a missing reference and a code span naming a missing file, and fails unless it
finds exactly those: so the test can fail.
Prints one line per problem and a summary; exits 1 on any problem.
"""
import glob
import os
import re
import sys
import tempfile
import unicodedata
import urllib.parse

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
REFDEF = re.compile(r"^ {0,3}\[([^\]]+)\]:[ \t]*(<[^>]*>|\S+)")
HTML_ID = re.compile(r"""<[a-zA-Z][^>]*?\b(?:id|name)\s*=\s*["']([^"']+)["']""")


def strip_comments(text):
    """HTML comments out, keeping the line count."""
    return re.sub(r"<!--.*?-->", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)


def unfenced_lines(text):
    """(line number, line) of the lines outside fenced code blocks, comments stripped."""
    fence = None
    for n, line in enumerate(strip_comments(text).split("\n"), 1):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        yield n, line


def prose_lines(text):
    """(line number, line) of the lines outside fenced code blocks, code spans blanked."""
    return [(n, re.sub(r"(`+)(.+?)\1", lambda m: " " * len(m.group(0)), line))
            for n, line in unfenced_lines(text)]


def slug(heading):
    """GitHub's anchor for a heading's text (github-slugger)."""
    t = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links and images: their text
    t = re.sub(r"<[^>]+>", "", t)  # inline HTML
    t = t.replace("`", "")
    t = re.sub(r"(\*\*|__|\*|(?<!\w)_|_(?!\w)|~~)", "", t)  # emphasis markers
    t = t.strip().lower()
    kept = []
    for ch in t:
        cat = unicodedata.category(ch)
        if ch in "-_" or ch == " " or cat[0] in "LNM":
            kept.append("-" if ch == " " else ch)
    return "".join(kept)


def anchors(path, cache={}):
    if path in cache:
        return cache[path]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    found = set(HTML_ID.findall(strip_comments(text)))
    counts = {}
    lines = prose_lines(text)
    prev = None
    for n, line in lines:
        m = ATX.match(line)
        text_ = None
        if m:
            text_ = m.group(2)
        elif prev and SETEXT.match(line) and prev[1].strip() and prev[0] == n - 1 \
                and not ATX.match(prev[1]) and not prev[1].lstrip().startswith(("-", "*", "|")):
            text_ = prev[1].strip()
        if text_ is not None:
            # the heading's own text, not its code spans' blanks: take it from the file
            raw = text.split("\n")[n - 1] if m else text.split("\n")[n - 2]
            m2 = ATX.match(raw)
            base = slug(m2.group(2) if m2 else raw.strip())
            k = counts.get(base, 0)
            counts[base] = k + 1
            found.add(base if k == 0 else f"{base}-{k}")
        prev = (n, line)
    cache[path] = found
    return found


def inline_targets(line):
    """Targets of inline links and images on one line: (target, column)."""
    res = []
    i = 0
    while True:
        j = line.find("](", i)
        if j < 0:
            return res
        k = j + 2
        if k < len(line) and line[k] == "<":
            e = line.find(">", k)
            if e < 0:
                return res
            res.append((line[k + 1:e], j))
            i = e
            continue
        depth = 0
        e = k
        while e < len(line):
            c = line[e]
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    break
                depth -= 1
            elif c in " \t" and depth == 0:
                break  # a title follows
            e += 1
        res.append((line[k:e], j))
        i = e


def check_file(md, root, problems):
    with open(md, encoding="utf-8") as f:
        text = f.read()
    rel = os.path.relpath(md, root)
    lines = prose_lines(text)
    defs = {}
    for n, line in lines:
        m = REFDEF.match(line)
        if m:
            defs[m.group(1).lower()] = (m.group(2).strip("<>"), n)
    targets = []
    for n, line in lines:
        if REFDEF.match(line):
            continue
        for t, _ in inline_targets(line):
            targets.append((t, n))
        for m in re.finditer(r"\[([^\]]+)\]\[([^\]]*)\]", line):
            name = (m.group(2) or m.group(1)).lower()
            if name not in defs:
                problems.append(f"{rel}:{n}: reference [{name}] has no definition")
    targets += [(t, n) for t, n in defs.values()]
    for t, n in targets:
        if not t or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", t) or t.startswith("//"):
            continue
        path, _, frag = t.partition("#")
        path = urllib.parse.unquote(path)
        frag = urllib.parse.unquote(frag)
        if path.startswith("/"):
            dest = os.path.normpath(os.path.join(root, path.lstrip("/")))
        else:
            dest = os.path.normpath(os.path.join(os.path.dirname(md), path)) if path else md
        inside = os.path.commonpath([os.path.abspath(dest), os.path.abspath(root)]) \
            == os.path.abspath(root)
        if not inside or not os.path.exists(dest):
            problems.append(f"{rel}:{n}: {t}: no such file or folder in the tree")
            continue
        if frag and dest.endswith(".md") and os.path.isfile(dest):
            if frag not in anchors(dest):
                problems.append(f"{rel}:{n}: {t}: no heading or id '{frag}' in "
                                f"{os.path.relpath(dest, root)}")
    return len(targets)


# Top-level folders whose paths the pages name in code spans.
TREE_DIRS = ("provider/", "kernels/", "test/", "doc/", "examples/", "bench/", "fuzz/", "debian/",
             "include/")
# Files of OpenSSL's source tree that doc/testing-openssl-suite.md names (not this tree's).
OPENSSL_TREE_FILES = {"test/run_tests.pl", "test/default.cnf", "test/null.cnf",
                      "test/default-for-evptest.cnf"}
PLACEHOLDER = re.compile(r"^[A-Z0-9][A-Z0-9_-]*$")  # CPU-CLASS, TREE, NAME


def built_program(root, path):
    """1 if path's folder has a meson.build that builds a program of path's name."""
    d, name = os.path.split(path)
    mb = os.path.join(root, d, "meson.build")
    if not name or not os.path.isfile(mb):
        return False
    with open(mb, encoding="utf-8") as f:
        return re.search(r"executable\(\s*'" + re.escape(name) + "'", f.read()) is not None


def check_paths(md, root, problems):
    """Code spans that are paths of the tree name something that exists; the count checked."""
    with open(md, encoding="utf-8") as f:
        text = f.read()
    rel = os.path.relpath(md, root)
    count = 0
    for n, line in unfenced_lines(text):
        for span in re.finditer(r"(`+)(.+?)\1", line):
            p = span.group(2).strip()
            if not p.startswith(TREE_DIRS) or re.search(r"[*<>{}\[\]$\s]", p):
                continue
            p = re.sub(r":[0-9,-]+$", "", p).rstrip(".,;")
            if p in OPENSSL_TREE_FILES or any(PLACEHOLDER.match(x) for x in p.split("/") if x):
                continue
            count += 1
            if not os.path.exists(os.path.join(root, p)) and not built_program(root, p):
                problems.append(f"{rel}:{n}: `{p}`: no such file or folder in the tree")
    return count


def check_tiers(root, problems):
    """Every tier of provider/dispatch.c is named where the tier suites are listed."""
    try:
        with open(os.path.join(root, "provider", "dispatch.c"), encoding="utf-8") as f:
            tiers = re.findall(r'\.name = "([a-z0-9-]+)"', f.read())
    except OSError:
        return 0
    where = [("README.md", r"^\| `", "`{}`"),
             ("doc/testing.md", r"One suite per tier", "`{}`"),
             ("test/meson.build", r"^# Suites:", '"{}"')]
    for path, start, fmt in where:
        try:
            with open(os.path.join(root, path), encoding="utf-8") as f:
                lines = f.read().split("\n")
        except OSError:
            problems.append(f"{path}: missing")
            continue
        # the paragraph (or table) that starts at the first line matching start
        i = next((k for k, l in enumerate(lines) if re.search(start, l)), None)
        if i is None:
            problems.append(f"{path}: no list of the tier suites (no line matching {start!r})")
            continue
        j = i
        while j < len(lines) and lines[j].strip() and lines[j].strip() != "#":
            j += 1
        block = "\n".join(lines[i:j])
        for t in tiers:
            if fmt.format(t) not in block:
                problems.append(f"{path}:{i + 1}: the tier {t} (provider/dispatch.c) is not "
                                f"named as {fmt.format(t)}")
    return len(tiers)


def run(root, files):
    problems = []
    count = 0
    for md in files:
        count += check_file(md, root, problems)
        count += check_paths(md, root, problems)
    return problems, count


def self_test():
    """The checker finds a broken file link, a broken anchor and a missing reference."""
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, "doc"))
        with open(os.path.join(d, "README.md"), "w") as f:
            f.write("# Top\n\n## What it does: `bench/tls.sh`, **fast**\n\nText\n---\n\n"
                    "## Top\n\n"
                    "[ok](doc/a.md#a-heading) [ok](#what-it-does-benchtlssh-fast) [ok](#text)\n"
                    "[ok](#top-1) [ok](doc/) [ok](doc/a.md \"title\") [ok][def] [ok](https://x/y)\n"
                    "`[code](nowhere.md)` <!-- [comment](nowhere.md) -->\n"
                    "```\n[fenced](nowhere.md)\n```\n"
                    "[bad file](doc/missing.md) [bad anchor](doc/a.md#no-such-heading)\n"
                    "[bad ref][nodef] `doc/a.md` `doc/CPU-CLASS/x` `doc/nowhere.c`\n\n"
                    "[def]: doc/a.md#a-heading\n")
        with open(os.path.join(d, "doc", "a.md"), "w") as f:
            f.write("# A heading\n")
        os.mkdir(os.path.join(d, "bench"))
        open(os.path.join(d, "bench", "tls.sh"), "w").close()
        problems, _ = run(d, [os.path.join(d, "README.md")])
    want = ["doc/missing.md: no such file", "doc/a.md#no-such-heading: no heading",
            "reference [nodef] has no definition", "`doc/nowhere.c`: no such file"]
    ok = len(problems) == len(want) and all(any(w in p for p in problems) for w in want)
    if not ok:
        print("links_test: self-test: the checker did not find exactly the planted problems:")
        for p in problems:
            print("  found: " + p)
    return ok


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    root = sys.argv[1]
    if not self_test():
        return 1
    print("ok - self-test: a broken file link, a broken anchor, a missing reference and a "
          "code span naming a missing file are found")
    files = sys.argv[2:] or ([os.path.join(root, "README.md")]
                             + sorted(glob.glob(os.path.join(root, "doc", "**", "*.md"), recursive=True)))
    problems, count = run(root, files)
    tiers = check_tiers(root, problems) if not sys.argv[2:] else 0
    for p in problems:
        print("not ok - " + p)
    print(f"links_test: {len(files)} files, {count} relative or local links and paths checked, "
          f"{tiers} tiers' suites, {len(problems)} broken")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
