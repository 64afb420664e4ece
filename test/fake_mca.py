#!/usr/bin/env python3
"""A stand-in for llvm-mca-19 (test 'model-pipeline' where LLVM 19 is missing): made-up figures in
llvm-mca's summary layout, from the loop's instruction count, for bench/model.py --check to read."""
import sys

if "--version" in sys.argv:
    print("fake llvm-mca (made-up figures: test/fake_mca.py)")
    sys.exit(0)
src = [a for a in sys.argv[1:] if not a.startswith("-")]
it = next((int(a.split("=")[1]) for a in sys.argv if a.startswith("-iterations=")), 100)
lines = [l for l in open(src[0]) if l.startswith("\t")]
heavy = sum(1 for l in lines if "aes" in l or "mull" in l or "clmul" in l)
print("Iterations:        %d" % it)
print("Instructions:      %d" % (it * len(lines)))
print("Total Cycles:      %d" % (it * (heavy + 1)))
print()
print("Resources:")
print("[0]   - FakePort0")
print("[1]   - FakePort1")
print()
print("Resource pressure per iteration:")
print("[0]    [1]    ")
print("%.2f   %.2f" % (heavy, (len(lines) - heavy) / 2))
