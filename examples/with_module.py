#!/usr/bin/env python3
"""with_module.py CNF MODULE_PATH NAME: prints the openssl.cnf CNF with "module = MODULE_PATH" as
the first key of its [aesfast_sect], and a first line saying it was made from NAME. Meson makes
build/openssl-aesfast.cnf with it from examples/openssl-aesfast.cnf, so that the example loads the
module just built, before `meson install`.

Copyright 2026 The aesfast authors. Licensed under the Apache License 2.0 (see COPYING).
"""
import sys

if len(sys.argv) != 4:
    sys.exit(__doc__)
cnf, module, name = sys.argv[1:]
text = open(cnf, encoding="utf-8").read()
head = "[aesfast_sect]\n"
if head not in text:
    sys.exit(f"{cnf}: no [aesfast_sect] section")
sys.stdout.write(f"# Made by Meson from {name}: the same, with this build's module path.\n"
                 + text.replace(head, f"{head}module = {module}\n", 1))
