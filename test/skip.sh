#!/bin/sh
# skip.sh REASON...
# Stands in for a test that cannot run in this build or on this machine (no valgrind, no openssl
# program, no OpenSSL 3.5 tree, ...): prints the reason and exits 77, which Meson counts as
# skipped. So the test is still listed, and counted, and test/run.sh shows why it did not run.
echo "$*"
exit 77
