#!/bin/sh
# aesfast.so in a program linked with an OpenSSL tree's libcrypto.a and libssl.a
# (test/static_host.c), loaded from openssl.cnf (default and aesfast active, aesfast preferred):
# two libcrypto copies in one process, the program's and the module's libcrypto.so.3 (.so.4 in a
# build against 4.0). Every run
# must exit 0 with the program's checks passed and aesfast's work against default's on every line;
# a copy torn down before aesfast's teardown crashes there at exit (status 139).
#
#   test/static_host_test.sh TREE MODULE TEST_SRC_DIR SYSTEM_VERSION [VALGRIND]
#
# The runs: the module on the tree's shared libcrypto (LD_LIBRARY_PATH=TREE), on the system's
# (SYSTEM_VERSION, e.g. 3.0.22; "" for none), the same with the module's copy initialised before
# the configuration loads aesfast (static_host --preinit), and, for contrast, the program linked
# with the tree's shared libcrypto (one copy), also built without PIE and taking the address of
# OPENSSL_init_crypto (whose address is then a stub in the program). With VALGRIND, those but --preinit under memcheck
# instead (no invalid access, no definite leak: aesfast's child library context freed;
# test/static_host.supp says what it suppresses, and why).
# AESFAST_TEST_CC is the C compiler command (split on blanks). Exit 0 pass, 1 fail, 77 skip (a
# tree without libcrypto.a: test/build-openssl.sh --static builds it).
set -u
[ $# -ge 4 ] || { echo "usage: $0 TREE MODULE TEST_SRC_DIR SYSTEM_VERSION [VALGRIND]" >&2; exit 2; }
tree=$1 module=$2 src=$3 sysver=$4 valgrind=${5:-}
fail() { echo "static_host_test: FAIL: $*"; exit 1; }

for lib in libcrypto.a libssl.a; do
  if [ ! -f "$tree/$lib" ]; then
    echo "$tree has no $lib (test/build-openssl.sh --static builds the static libraries)"
    exit 77
  fi
done
series=$(awk -F= '$1 == "MAJOR" { ma = $2 } $1 == "MINOR" { mi = $2 } END { print ma "." mi }' \
  "$tree/VERSION.dat")
soname=libcrypto.so.${series%%.*}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cc=${AESFAST_TEST_CC:-cc}
# shellcheck disable=SC2086 # a command and its arguments
$cc -Wall -Wextra -Werror -g -I"$tree/include" -I"$src" -DLIBCRYPTO_SONAME="\"$soname\"" \
  -o "$tmp/static_host" \
  "$src/static_host.c" "$tree/libssl.a" "$tree/libcrypto.a" -ldl -pthread \
  || fail "linking static_host with $tree/libcrypto.a"
# shellcheck disable=SC2086
$cc -Wall -Wextra -Werror -g -I"$tree/include" -I"$src" -DLIBCRYPTO_SONAME="\"$soname\"" \
  -o "$tmp/dynamic_host" \
  "$src/static_host.c" -L"$tree" -lssl -lcrypto -ldl -pthread \
  || fail "linking dynamic_host with $tree/libcrypto.so"
# shellcheck disable=SC2086
$cc -Wall -Wextra -Werror -g -I"$tree/include" -I"$src" -DLIBCRYPTO_SONAME="\"$soname\"" \
  -DTAKE_INIT_ADDRESS -fno-pic -no-pie -o "$tmp/nopie_host" \
  "$src/static_host.c" -L"$tree" -lssl -lcrypto -ldl -pthread \
  || fail "linking nopie_host with $tree/libcrypto.so"
# Its premise: OPENSSL_init_crypto undefined there, with a value (the stub's address).
if command -v readelf >/dev/null; then
  readelf --dyn-syms -W "$tmp/nopie_host" \
    | awk '$8 ~ /^OPENSSL_init_crypto@/ && $7 == "UND" && $2 !~ /^0+$/ { found = 1 }
           END { exit !found }' || fail "nopie_host has no stub for OPENSSL_init_crypto"
fi
. "$src/lib.sh"
write_cnf "$tmp/openssl.cnf" aesfast "$module" "?provider=aesfast" # the drop-in, as deployed

# run NAME LD_LIBRARY_PATH PROGRAM MODULE_VERSION [ARG]: one run and its checks.
run() {
  name=$1 ldpath=$2 prog=$3 modver=$4
  shift 4
  if [ -n "$valgrind" ]; then
    set -- "$valgrind" -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
      --suppressions="$src/static_host.supp" "$tmp/$prog" "$@"
  else
    set -- "$tmp/$prog" "$@"
  fi
  echo "static_host_test: $name: $*${ldpath:+ (LD_LIBRARY_PATH=$ldpath)}"
  if [ -n "$ldpath" ]; then
    out=$(LD_LIBRARY_PATH=$ldpath OPENSSL_CONF=$tmp/openssl.cnf "$@" 2>&1)
  else
    out=$(env -u LD_LIBRARY_PATH OPENSSL_CONF="$tmp/openssl.cnf" "$@" 2>&1)
  fi
  st=$?
  echo "$out" | sed 's/^/    /'
  [ $st -eq 0 ] || fail "$name: exit status $st"
  echo "$out" | grep -q "^program's libcrypto: OpenSSL $series\." \
    || fail "$name: the program's libcrypto is not OpenSSL $series"
  echo "$out" | grep -q "^module's libcrypto: OpenSSL $modver\." \
    || fail "$name: the module's libcrypto is not OpenSSL $modver"
  for want in 'static_host: 69 passed, 0 failed' \
              'TLS 1.2 records, tlsivfixed: aesfast'"'"'s open under default and default'"'"'s under aesfast' \
              'GCM, random IVs: 4 messages open under default' \
              AES-128-CTR AES-192-CTR AES-256-CTR AES-128-GCM AES-192-GCM AES-256-GCM \
              AES-128-GCM-SIV AES-192-GCM-SIV AES-256-GCM-SIV; do
    case $want in AES-*) want="$want: aesfast equals default" ;; esac
    echo "$out" | grep -qxF "$want" || fail "$name: no line \"$want\""
  done
}

run "two copies, the module on $series" "$tree" static_host "$series"
if [ -n "$sysver" ]; then
  sysseries=$(echo "$sysver" | cut -d. -f1,2)
  run "two copies, the module on the system's $sysseries" "" static_host "$sysseries"
fi
# Under memcheck this one is left out: there the module's copy is cleaned up before aesfast's
# teardown, which then leaves the child context to the process's exit (a leak, by design).
[ -n "$valgrind" ] || run "two copies, the module's initialised first" "$tree" static_host "$series" --preinit
run "one copy (the program on $series's $soname)" "$tree" dynamic_host "$series"
run "one copy, the program without PIE taking OPENSSL_init_crypto's address" "$tree" nopie_host \
  "$series"
echo "static_host_test: pass"
