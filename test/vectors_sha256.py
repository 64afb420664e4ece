#!/usr/bin/env python3
"""vectors_sha256.py DIR

Checks that the vector folder holds exactly the published files that DIR/SOURCES.md lists, each
with the sha256 given there: a file edited, converted (line endings) or added without its source
fails, and so does a listed file that is missing. Prints one line per file; exits 1 on any
difference.

Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
"""
import hashlib
import os
import re
import sys


def listed(sources):
    """{path: sha256} from SOURCES.md: each "### `path`" heading's "sha256: `hex`" line, and the
    licence lines "- `path`: sha256 `hex`"."""
    want, heading = {}, None
    for line in open(sources, encoding="utf-8"):
        m = re.match(r"### `([^`]+)`", line)
        if m:
            heading = m.group(1)
            continue
        m = re.match(r"- sha256: `([0-9a-f]{64})`", line)
        if m and heading:
            want[heading] = m.group(1)
            heading = None
            continue
        m = re.match(r"- `([^`]+)`: sha256 `([0-9a-f]{64})`", line)
        if m:
            want[m.group(1)] = m.group(2)
    return want


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    top = sys.argv[1]
    want = listed(os.path.join(top, "SOURCES.md"))
    have = set()
    for root, _, files in os.walk(top):
        for f in files:
            rel = os.path.relpath(os.path.join(root, f), top)
            if rel not in ("SOURCES.md", ".gitattributes"):
                have.add(rel)
    bad = 0
    for rel in sorted(have | set(want)):
        if rel not in want:
            print(f"FAIL {rel}: not listed in SOURCES.md")
        elif rel not in have:
            print(f"FAIL {rel}: listed in SOURCES.md, missing")
        else:
            with open(os.path.join(top, rel), "rb") as fh:
                got = hashlib.sha256(fh.read()).hexdigest()
            if got == want[rel]:
                print(f"ok   {rel}")
                continue
            print(f"FAIL {rel}: sha256 {got}, SOURCES.md says {want[rel]}")
        bad += 1
    print(f"vectors_sha256: {len(have) - bad} of {len(have | set(want))} files as published")
    sys.exit(1 if bad or not want else 0)


if __name__ == "__main__":
    main()
