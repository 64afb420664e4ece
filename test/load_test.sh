#!/bin/sh
# Load test: the openssl command-line tool finds aesfast, reports it active, lists its CTR and GCM
# and GCM-SIV ciphers, `openssl enc -aes-256-ctr` through aesfast round-trips and equals the default
# provider's ciphertext, and `openssl enc -aes-128-gcm` is refused exactly as default's is.
#
#   test/load_test.sh OPENSSL_BIN MODULE_PATH        exit 0 pass, 1 fail
#
# OPENSSL_BIN may be the system openssl (3.0) or an OpenSSL build tree's apps/openssl (then the
# tree's libcrypto.so.N is put on LD_LIBRARY_PATH).  AESFAST_KERNEL, if set, passes through.
# AESFAST_TEST_WRAPPER, if set, is a command (split on blanks) that every run of OPENSSL_BIN goes
# through, e.g. "qemu-aarch64 -L /usr/aarch64-linux-gnu" for an arm64 build tree and module.
# The provider under test can be renamed for self-checks: AESFAST_TEST_PROVIDER=default runs the
# same assertions against the default provider (MODULE_PATH is then ignored).
set -u
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || { echo "usage: $0 OPENSSL_BIN MODULE_PATH" >&2; exit 2; }
bin=$1 module=$2
prov=${AESFAST_TEST_PROVIDER:-aesfast}
wrap=${AESFAST_TEST_WRAPPER:-}     # deliberately unquoted where used: a command and its arguments
command -v "$bin" >/dev/null 2>&1 || { echo "load_test: no openssl at $bin" >&2; exit 1; }
bin=$(command -v "$bin")
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
if [ "$prov" != default ]; then
  [ -f "$module" ] || { echo "load_test: no module at $module" >&2; exit 1; }
  module=$(cd "$(dirname "$module")" && pwd)/$(basename "$module")
fi
bindir=$(cd "$(dirname "$bin")" && pwd)
if ls "$bindir"/../libcrypto.so.[0-9]* >/dev/null 2>&1; then           # an uninstalled OpenSSL build tree
  export LD_LIBRARY_PATH=$(cd "$bindir/.." && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/aesfast-load.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# A cnf that activates default and the module under test, failing loudly if a provider won't load.
cnf=$tmp/openssl.cnf
write_cnf "$cnf" "$prov" "$module"
empty=$tmp/empty.cnf                                  # no providers: only what -provider loads
: >"$empty"

echo "load_test: $($wrap "$bin" version 2>&1 | head -n1) with $prov${AESFAST_KERNEL:+ (AESFAST_KERNEL=$AESFAST_KERNEL)}\
${wrap:+ under $wrap}"

# 1. list -providers -verbose: the provider is there and active.
out=$(OPENSSL_CONF=$cnf $wrap "$bin" list -providers -verbose 2>&1)
status=$(printf '%s\n' "$out" | awk -v p="$prov" '
  /^  [^ ]/ { inside = ($1 == p) }
  inside && /^    status: / { print $2 }')
if [ "$status" = active ]; then pass "list -providers: $prov is active"
else fail "list -providers: $prov status '${status:-missing}'"; printf '%s\n' "$out" | sed 's/^/     /'; fi
if [ "$prov" != default ] && ! printf '%s\n' "$out" | grep -q '^  default$'; then
  fail "list -providers: default is not loaded next to $prov"
fi

# 2. list -cipher-algorithms: the three CTR names, from the provider (via the cnf and via
#    -provider-path/-provider without the cnf).
check_list() { # label, output
  for n in 128 192 256; do
    modes="CTR GCM"
    [ "$prov" = default ] || modes="$modes GCM-SIV" # aesfast has it on every OpenSSL; 3.0's default not
    for m in $modes; do
      if printf '%s\n' "$2" | grep -Eiq "(^|[ {,])AES-$n-$m([ },].*)?@ $prov\$"; then
        pass "$1: AES-$n-$m @ $prov"
      else
        fail "$1: AES-$n-$m @ $prov not listed"
      fi
    done
  done
}
check_list "list -cipher-algorithms (cnf)" \
  "$(OPENSSL_CONF=$cnf $wrap "$bin" list -cipher-algorithms 2>&1)"
# popt CMD...: runs CMD with only the provider under test loaded by -provider-path/-provider.
if [ "$prov" = default ]; then
  popt_label="-provider default"
  popt() { OPENSSL_CONF=$empty "$@" -provider default; }
else
  pdir=$(dirname "$module") pname=$(basename "$module" .so)
  popt_label="-provider-path $pdir -provider $pname"
  popt() { OPENSSL_CONF=$empty "$@" -provider-path "$pdir" -provider "$pname"; }
fi
if [ "$prov" = default ] || [ "$(basename "$module" .so)" = "$prov" ]; then
  check_list "list -cipher-algorithms $popt_label" \
    "$(popt $wrap "$bin" list -cipher-algorithms 2>&1)"
fi

# 3. enc -aes-256-ctr round trip through the provider, equal to default's ciphertext.
head -c 4099 /dev/urandom >"$tmp/pt"
key=$(head -c 32 /dev/urandom | od -An -tx1 -v | tr -d ' \n')
iv=$(head -c 12 /dev/urandom | od -An -tx1 -v | tr -d ' \n')fffffffe  # counter carries out of its low word
# The reference: default alone.
if ! OPENSSL_CONF=$empty $wrap "$bin" enc -aes-256-ctr -K "$key" -iv "$iv" -in "$tmp/pt" \
     -out "$tmp/ref" -provider default 2>"$tmp/ref.err"; then
  fail "enc with -provider default failed"; sed 's/^/     /' "$tmp/ref.err"
fi
with_cnf() { OPENSSL_CONF=$cnf "$@" -propquery "provider=$prov"; }
try_enc() { # label, runner (popt or with_cnf)
  label=$1 runner=$2
  if ! $runner $wrap "$bin" enc -aes-256-ctr -K "$key" -iv "$iv" -in "$tmp/pt" -out "$tmp/ct" \
       2>"$tmp/ct.err"; then
    fail "$label: encrypt failed"; sed 's/^/     /' "$tmp/ct.err"; return
  fi
  if cmp -s "$tmp/ct" "$tmp/ref"; then pass "$label: ciphertext equals default's (4099 bytes)"
  else fail "$label: ciphertext differs from default's"; fi
  if $runner $wrap "$bin" enc -d -aes-256-ctr -K "$key" -iv "$iv" -in "$tmp/ct" -out "$tmp/back" \
       2>"$tmp/back.err" && cmp -s "$tmp/back" "$tmp/pt"; then
    pass "$label: decrypts back to the plaintext"
  else
    fail "$label: decrypt round trip"; sed 's/^/     /' "$tmp/back.err"
  fi
}
# Only the provider under test is loaded here, so nothing else can have done the work.
if [ "$prov" = default ] || [ "$(basename "$module" .so)" = "$prov" ]; then
  try_enc "enc $popt_label" popt
fi
# Through the cnf, with default loaded too, pinned by a property query.
try_enc "enc (cnf) -propquery provider=$prov" with_cnf

# 4. enc refuses AES-GCM (an AEAD cipher) through the provider exactly as it refuses default's:
#    same exit status, same message, no output.
enc_gcm() { # CNF [EXTRA_ARGS...]: prints "status<TAB>first non-error line of stderr"
  gcm_cnf=$1
  shift
  OPENSSL_CONF=$gcm_cnf $wrap "$bin" enc -aes-128-gcm -K "$key" -iv "$(printf '%.24s' "$iv")" \
    -in "$tmp/pt" -out "$tmp/gcm.out" "$@" 2>"$tmp/gcm.err"
  printf '%s\t%s\n' $? "$(grep -v '^[0-9A-F]*:error:' "$tmp/gcm.err" | head -n1)"
}
ref_gcm=$(enc_gcm "$empty")
got_gcm=$(enc_gcm "$cnf" -propquery "provider=$prov")
case $ref_gcm in 0*) fail "enc -aes-128-gcm: the default provider accepted it: $ref_gcm" ;; esac
if [ "$got_gcm" = "$ref_gcm" ]; then pass "enc -aes-128-gcm refused as by default ($ref_gcm)"
else fail "enc -aes-128-gcm: '$got_gcm', default: '$ref_gcm'"; fi

if [ $fails -eq 0 ]; then echo "load_test: PASS"; exit 0; fi
echo "load_test: $fails check(s) failed"; exit 1
