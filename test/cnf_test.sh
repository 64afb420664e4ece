#!/usr/bin/env bash
# The two ways provider-aesfast(7) and doc/deployment.md give to activate aesfast system-wide,
# applied to a copy of Debian's /etc/ssl/openssl.cnf (which already has
# "openssl_conf = openssl_init" and an [openssl_init] section whose providers line is commented
# out):
#   merge:   the providers line uncommented, alg_section added below it, and the sections of
#            examples/openssl-aesfast.cnf from [provider_sect] on appended;
#   drop-in: ".include DIR" appended, examples/aesfast-dropin.cnf copied into DIR.
# Each must leave aesfast active, the default provider active, and a fetch that names no
# provider (openssl speed -evp aes-128-gcm) on aesfast (its key-setup line under AESFAST_DEBUG);
# and the drop-in removed (the .include left), aesfast absent again.
# And the README's path before `meson install` (with AESFAST_BUILD_CNF, build/openssl-aesfast.cnf):
# that file does the same, and its check, `openssl list -providers -provider aesfast`, fails
# loudly (exit status not 0, "unable to load provider aesfast") with the example itself where no
# aesfast.so is installed (OPENSSL_MODULES an empty folder).
#
#   test/cnf_test.sh OPENSSL_BIN MODULE_PATH SOURCE_DIR [OPENSSL_CNF]
#     exit 0 pass, 1 fail, 77 skip (no Debian-style openssl.cnf: OPENSSL_CNF, default
#     /etc/ssl/openssl.cnf)
set -u
[ $# -ge 3 ] || { echo "usage: $0 OPENSSL_BIN MODULE_PATH SOURCE_DIR [OPENSSL_CNF]" >&2; exit 2; }
bin=$1 module=$2 src=$3 sys=${4:-/etc/ssl/openssl.cnf}
unset OPENSSL_CONF OPENSSL_MODULES AESFAST_DEBUG AESFAST_KERNEL
if [ ! -f "$sys" ] || ! grep -q '^openssl_conf *= *openssl_init' "$sys" \
   || ! grep -q '^# *providers *= *provider_sect' "$sys"; then
  echo "cnf_test: skipped: $sys is not Debian's (openssl_conf = openssl_init, providers commented out)"
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/aesfast-cnf.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
with_module() { sed "s|^\[aesfast_sect\]\$|[aesfast_sect]\nmodule = $module|" "$1"; }

# check NAME CNF: aesfast and default active, and an unqualified AES-128-GCM fetch on aesfast.
check() {
  local name=$1 cnf=$2 list log
  list=$(OPENSSL_CONF=$cnf "$bin" list -providers 2>&1)
  if grep -A3 '^  aesfast$' <<<"$list" | grep -q 'status: active' \
     && grep -A3 '^  default$' <<<"$list" | grep -q 'status: active'; then
    pass "$name: aesfast and default active"
  else
    fail "$name: openssl list -providers"; sed 's/^/     /' <<<"$list"
  fi
  log=$(OPENSSL_CONF=$cnf AESFAST_DEBUG=1 "$bin" speed -seconds 1 -bytes 16 -evp aes-128-gcm 2>&1)
  if grep -q ' aesfast: AES-128-GCM: key setup on kernel ' <<<"$log"; then
    pass "$name: openssl speed -evp aes-128-gcm (no -propquery) runs on aesfast"
  else
    fail "$name: openssl speed -evp aes-128-gcm did not key aesfast"; grep aesfast <<<"$log" | head -5
  fi
}

# The README's path before `meson install`.
if [ -n "${AESFAST_BUILD_CNF:-}" ]; then
  check "README: build/openssl-aesfast.cnf" "$AESFAST_BUILD_CNF"
  if OPENSSL_CONF=$AESFAST_BUILD_CNF "$bin" list -providers -provider aesfast >/dev/null 2>&1; then
    pass "README: its check passes with build/openssl-aesfast.cnf"
  else
    fail "README: openssl list -providers -provider aesfast fails with build/openssl-aesfast.cnf"
  fi
  mkdir "$tmp/no-modules"
  out=$(OPENSSL_MODULES=$tmp/no-modules OPENSSL_CONF=$src/examples/openssl-aesfast.cnf \
        "$bin" list -providers -provider aesfast 2>&1)
  st=$?
  if [ $st -ne 0 ] && grep -q 'unable to load provider aesfast' <<<"$out"; then
    pass "README: its check fails loudly (status $st) when aesfast.so is not installed"
  else
    fail "README: its check, with aesfast.so not installed: status $st"; sed 's/^/     /' <<<"$out"
  fi
fi

# Merge: edit [openssl_init] in place, append the example's sections.
awk '/^\[ *openssl_init *\]/ { sect = 1; print; next }
     /^\[/ { sect = 0 }
     sect && /^# *providers *= *provider_sect/ { print "providers = provider_sect"; print "alg_section = evp_properties"; next }
     { print }' "$sys" >"$tmp/merged.cnf"
with_module "$src/examples/openssl-aesfast.cnf" | sed -n '/^\[provider_sect\]/,$p' >>"$tmp/merged.cnf"
check merge "$tmp/merged.cnf"

# Drop-in.
mkdir -p "$tmp/openssl.cnf.d"
cp "$sys" "$tmp/dropin.cnf"
echo ".include $tmp/openssl.cnf.d" >>"$tmp/dropin.cnf"
with_module "$src/examples/aesfast-dropin.cnf" >"$tmp/openssl.cnf.d/aesfast.cnf"
check drop-in "$tmp/dropin.cnf"
rm "$tmp/openssl.cnf.d/aesfast.cnf"
if OPENSSL_CONF=$tmp/dropin.cnf "$bin" list -providers 2>&1 | grep -q '^  aesfast$'; then
  fail "drop-in removed: aesfast still listed"
else
  pass "drop-in removed: aesfast absent, the .include of the empty folder harmless"
fi

if [ $fails -eq 0 ]; then echo "cnf_test: PASS"; exit 0; fi
echo "cnf_test: $fails check(s) failed"; exit 1
