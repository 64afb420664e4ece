#!/bin/sh
# Static library test: examples/static_builtin, linked with libaesfast.a, registers aesfast with
# OSSL_PROVIDER_add_builtin and must work with no aesfast.so reachable and no OPENSSL_CONF:
#   - libaesfast.a defines one global symbol, aesfast_provider_init (no OSSL_provider_init), and
#     keeps the rest of aesfast as local symbols;
#   - the example has the kernels of every tier of this build linked in (nm), and imports nothing
#     named aesfast from a shared library;
#   - run with OPENSSL_CONF unset and OPENSSL_MODULES an empty folder, it loads aesfast (the
#     expected version and tier), fetches AES-128-GCM from it, round-trips a message and gets the
#     default provider's ciphertext and tag (the example compares them and exits 1 otherwise);
#   - the same run without the registration (--no-register) fails, looking for aesfast.so in that
#     empty folder: so the success above came from the linked-in provider.
#
#   test/static_test.sh NM ARCHIVE EXAMPLE VERSION TIER...     exit 0 pass, 1 fail
#
# TIER... are the tiers compiled in. AESFAST_KERNEL, if set, is the tier the example must report
# (else any of them). AESFAST_TEST_MODULE, if set, is aesfast.so, whose exports are checked too.
# AESFAST_TEST_OPENSSL, if set, is the start of the libcrypto version the
# example must report (e.g. "3.5."). AESFAST_TEST_WRAPPER, if set, is a command (split on
# blanks) the example runs under, e.g. "qemu-aarch64 -L /usr/aarch64-linux-gnu".
set -u
[ $# -ge 5 ] || { echo "usage: $0 NM ARCHIVE EXAMPLE VERSION TIER..." >&2; exit 2; }
nm=$1 archive=$2 example=$3 version=$4
shift 4
wrap=${AESFAST_TEST_WRAPPER:-}     # deliberately unquoted where used: a command and its arguments
fail() { echo "static_test: FAIL: $*"; exit 1; }

# 1. The archive's symbols.
globals=$("$nm" -g --defined-only "$archive" | awk 'NF == 3 { print $3 }' | sort -u | tr '\n' ' ')
[ "$globals" = "aesfast_provider_init " ] \
  || fail "libaesfast.a defines global symbols: $globals(want aesfast_provider_init only)"
"$nm" "$archive" | grep -q ' OSSL_provider_init$' && fail "libaesfast.a has OSSL_provider_init"
locals=$("$nm" --defined-only "$archive" | awk 'NF == 3 && $2 ~ /^[a-z]$/ && $3 ~ /^aesfast_/' |
  wc -l)
[ "$locals" -ge 50 ] || fail "libaesfast.a has only $locals local aesfast_ symbols (localized?)"
echo "static_test: libaesfast.a: 1 global symbol (aesfast_provider_init)," \
  "$locals local aesfast_ symbols"

# The module, for contrast: it exports OSSL_provider_init alone, not aesfast_provider_init.
if [ -n "${AESFAST_TEST_MODULE:-}" ]; then
  exports=$("$nm" -D --defined-only "$AESFAST_TEST_MODULE" | awk 'NF == 3 { print $3 }' |
    tr '\n' ' ')
  [ "$exports" = "OSSL_provider_init " ] || fail "aesfast.so exports: $exports"
  echo "static_test: aesfast.so exports OSSL_provider_init only"
fi

# 2. The example's symbols: every tier's kernels linked in, nothing of aesfast imported.
syms=$("$nm" "$example") || fail "nm $example"
echo "$syms" | grep -q ' T aesfast_provider_init$' || fail "example lacks aesfast_provider_init"
for tier in "$@"; do
  sym=aesfast_$(echo "$tier" | tr - _)_gcm_ctr_then_hash
  echo "$syms" | grep -q " [tT] $sym\$" || fail "example lacks $sym (tier $tier)"
done
"$nm" -D "$example" | grep aesfast && fail "example imports aesfast symbols dynamically"
echo "static_test: example: the GCM kernels of $* linked in"

# 3. Run it with no cnf and an empty module folder.
mods=$(mktemp -d) || exit 1
trap 'rm -rf "$mods"' EXIT
unset OPENSSL_CONF
OPENSSL_MODULES=$mods
export OPENSSL_MODULES
out=$($wrap "$example" 2>&1) || { echo "$out"; fail "static_builtin failed"; }
echo "$out"
line=$(echo "$out" | grep '^provider: ') || fail "no provider line"
kernel=${line##*aesfast-kernel }
[ "${line%%, aesfast-kernel*}" = "provider: aesfast $version" ] || fail "want aesfast $version"
if [ -n "${AESFAST_KERNEL:-}" ]; then
  [ "$kernel" = "$AESFAST_KERNEL" ] || fail "kernel $kernel, want $AESFAST_KERNEL"
else
  case " $* " in *" $kernel "*) ;; *) fail "kernel $kernel is not one of $*" ;; esac
fi
if [ -n "${AESFAST_TEST_OPENSSL:-}" ]; then
  echo "$out" | grep -q "^libcrypto: OpenSSL $AESFAST_TEST_OPENSSL" \
    || fail "libcrypto is not OpenSSL $AESFAST_TEST_OPENSSL"
fi
for want in 'cipher: AES-128-GCM from aesfast, reference from default' \
            'opened: equal to the message' 'default provider: same ciphertext and tag'; do
  echo "$out" | grep -qxF "$want" || fail "no line \"$want\""
done

# 4. The control: unregistered, the same load must fail, looking for the module in $mods.
if out=$($wrap "$example" --no-register 2>&1); then
  echo "$out"
  fail "static_builtin --no-register loaded aesfast"
fi
echo "$out" | grep -qF "$mods/aesfast" || { echo "$out"; fail "--no-register failed otherwise"; }
echo "static_test: --no-register fails as it must (no aesfast.so in OPENSSL_MODULES=$mods)"
echo "static_test: passed"
