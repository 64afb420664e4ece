#!/usr/bin/env bash
# deb_test: the Debian package builds from this source tree, installs into a scratch root, and
# the module loads from there and encrypts as the default provider does.
#
#   test/deb_test.sh SOURCE_DIR OPENSSL_BIN        exit 0 pass, 1 fail
#
# 1. Copies the source tree into a temporary folder (the files git tracks or would track, so a
#    work tree's uncommitted changes count and build folders do not; without git, everything
#    but .git and build*/), and runs `dpkg-buildpackage -us -uc -b` there: no file of SOURCE_DIR
#    is written. The build log must hold no warning.
# 2. `dpkg -x` the package into a scratch root: the module must be in libcrypto's modules
#    directory (`openssl version -m`, and pkg-config's modulesdir), the man page and example cnf
#    where the package says, and nothing else anywhere.
# 3. From the scratch root: `openssl list -providers -provider-path ROOT/MODULESDIR -provider
#    aesfast` shows it active, with the version debian/changelog gives the package; AES-256-CTR
#    through it equals the default provider's and decrypts; the shipped example cnf
#    (OPENSSL_MODULES naming the root's modules directory) activates it next to default and
#    makes it the choice for AES-128-GCM (its key-setup debug line); the packaged man page
#    renders.
# 4. lintian, where installed: its tags are printed, and an error tag (E:) fails the test.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 SOURCE_DIR OPENSSL_BIN" >&2; exit 2; }
src=$(cd "$1" && pwd) openssl=$2
pkg=openssl-provider-aesfast

tmp=$(mktemp -d "${TMPDIR:-/tmp}/aesfast-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
indent() { sed 's/^/     /'; }

# 1. Build, in a copy.
mkdir "$tmp/aesfast"
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$src" && git ls-files -z --cached --others --exclude-standard \
     | xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh \
     | tar --null -T - -cf -) | tar -C "$tmp/aesfast" -xf -
else
  tar -C "$src" --exclude=./.git --exclude='./build' --exclude='./build-*' -cf - . \
    | tar -C "$tmp/aesfast" -xf -
fi
[ -f "$tmp/aesfast/debian/control" ] || { fail "no debian/control in the copy of $src"; exit 1; }

start=$(date +%s)
if (cd "$tmp/aesfast" && DEB_BUILD_OPTIONS="parallel=2 ${DEB_BUILD_OPTIONS:-}" \
      dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1; then
  pass "dpkg-buildpackage -us -uc -b ($(($(date +%s) - start)) s)"
else
  fail "dpkg-buildpackage -us -uc -b"
  tail -n 40 "$tmp/build.log" | indent
  exit 1
fi
if grep -i 'warning' "$tmp/build.log" >"$tmp/warnings"; then
  fail "the package build warns"
  indent <"$tmp/warnings"
else
  pass "the package build has no warning"
fi
grep -q '^debian/smoke-test.sh: aesfast loads' "$tmp/build.log" \
  && pass "debian/rules' own check ran" || fail "debian/rules' own check did not run"

arch=$(dpkg-architecture -qDEB_HOST_ARCH)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
version=$(dpkg-parsechangelog -l "$tmp/aesfast/debian/changelog" -S Version)
deb=$tmp/${pkg}_${version}_${arch}.deb
[ -f "$deb" ] || { fail "no $deb"; ls "$tmp" | indent; exit 1; }
pass "built $(basename "$deb")"
echo "dpkg -c $(basename "$deb"):"
dpkg -c "$deb" | indent

# 2. Unpack, and look at the paths.
root=$tmp/root
dpkg -x "$deb" "$root"
modulesdir=$("$openssl" version -m | sed -n 's/^MODULESDIR: "\(.*\)"$/\1/p')
pcdir=$(pkg-config --variable=modulesdir libcrypto 2>/dev/null || true)
[ "$modulesdir" = "/usr/lib/$ma/ossl-modules" ] && [ "$pcdir" = "$modulesdir" ] \
  && pass "openssl version -m and pkg-config agree: $modulesdir" \
  || fail "modules directory: openssl version -m '$modulesdir', pkg-config '$pcdir'," \
          "expected /usr/lib/$ma/ossl-modules"
mod=$root$modulesdir/aesfast.so
[ -f "$mod" ] && pass "module at $modulesdir/aesfast.so" || fail "no module at $modulesdir/aesfast.so"
exports=$(nm -D --defined-only "$mod" 2>/dev/null | awk '{print $3}' | sort | tr '\n' ' ')
[ "$exports" = "OSSL_provider_init " ] && pass "the module exports OSSL_provider_init only" \
  || fail "the module exports: $exports"
man=$root/usr/share/man/man7/provider-aesfast.7.gz
if [ -f "$man" ] && zcat "$man" | cmp -s - "$src/doc/provider-aesfast.7"; then
  pass "man page at /usr/share/man/man7/provider-aesfast.7.gz, as in doc/"
else
  fail "no man page at /usr/share/man/man7/provider-aesfast.7.gz, or not doc/'s"
fi
doc=$root/usr/share/doc/$pkg
example=$doc/examples/openssl-aesfast.cnf
for f in "$doc/copyright" "$example"; do
  [ -f "$f" ] && pass "${f#"$root"}" || fail "no ${f#"$root"}"
done
stray=$(cd "$root" && find . ! -type d | sed 's|^\.||' \
  | grep -v -e "^$modulesdir/" -e '^/usr/share/man/man7/' -e "^/usr/share/doc/$pkg/" || true)
if [ -z "$stray" ]; then pass "no other files"
else fail "files outside the expected folders:"; indent <<<"$stray"; fi
depends=$(dpkg-deb -f "$deb" Depends)
case $depends in *libssl3*) pass "Depends: $depends" ;; *) fail "Depends lacks libssl3: $depends" ;; esac

# 3. Load it from the scratch root.
empty=$tmp/empty.cnf
: >"$empty"
out=$(OPENSSL_CONF=$empty "$openssl" list -providers -verbose -provider-path "$root$modulesdir" \
  -provider aesfast 2>&1) || true
if grep -q 'status: active' <<<"$out" && grep -q '^  aesfast$' <<<"$out"; then
  pass "openssl list -providers -provider-path ROOT$modulesdir -provider aesfast: active"
  pv=$(sed -n 's/^    version: //p' <<<"$out" | head -n1)
  [ "$pv" = "${version%%-*}" ] && pass "the provider's version $pv is the package's ($version)" \
    || fail "the provider says version '$pv', debian/changelog '$version' (meson.build's project version?)"
else
  fail "aesfast does not load from the scratch root"
  printf '%s\n' "$out" | indent
fi
head -c 4099 /dev/urandom >"$tmp/msg"
key=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
iv=ffffffffffffffffffffffffffffff00 # the counter carries across every word within 4 KiB
ours() { OPENSSL_CONF=$empty "$openssl" enc -aes-256-ctr -K "$key" -iv "$iv" \
           -provider-path "$root$modulesdir" -provider aesfast "$@"; }
ours -in "$tmp/msg" -out "$tmp/ours" || true
OPENSSL_CONF=$empty "$openssl" enc -aes-256-ctr -K "$key" -iv "$iv" -provider default \
  -in "$tmp/msg" -out "$tmp/ref"
if [ -s "$tmp/ours" ] && cmp -s "$tmp/ours" "$tmp/ref"; then
  pass "AES-256-CTR through the installed module equals the default provider's (4099 bytes)"
else
  fail "AES-256-CTR through the installed module differs from the default provider's"
fi
ours -d -in "$tmp/ours" -out "$tmp/back" || true
cmp -s "$tmp/back" "$tmp/msg" && pass "and decrypts back" || fail "does not decrypt back"

out=$(OPENSSL_MODULES=$root$modulesdir OPENSSL_CONF=$example "$openssl" list -providers 2>&1) || true
n=$(grep -c 'status: active' <<<"$out" || true)
if [ "$n" -eq 2 ] && grep -q '^  aesfast$' <<<"$out"; then
  pass "the example cnf activates aesfast and default"
else
  fail "the example cnf does not activate aesfast and default"
  printf '%s\n' "$out" | indent
fi
out=$(AESFAST_DEBUG=1 OPENSSL_MODULES=$root$modulesdir OPENSSL_CONF=$example \
  "$openssl" speed -seconds 1 -bytes 16 -evp aes-128-gcm 2>&1) || true
if grep -q ' aesfast: AES-128-GCM: key setup on kernel ' <<<"$out"; then
  pass "with the example cnf, openssl speed -evp aes-128-gcm runs on aesfast"
else
  fail "with the example cnf, openssl speed -evp aes-128-gcm does not run on aesfast"
  printf '%s\n' "$out" | tail -n 5 | indent
fi
if command -v man >/dev/null 2>&1; then
  grep -q 'PROVIDER-AESFAST(7)' <<<"$(man -l "$man" 2>/dev/null)" \
    && pass "the packaged man page renders (man -l)" || fail "the packaged man page does not render"
fi

# 4. lintian, if it is there (not installed by test/install-deps.sh: 128 packages).
if command -v lintian >/dev/null 2>&1; then
  lintian --info "$deb" 2>&1 | grep -v 'running with root privileges' >"$tmp/lintian" || true
  if [ -s "$tmp/lintian" ]; then echo "lintian:"; indent <"$tmp/lintian"; fi
  if grep -q '^E: ' "$tmp/lintian"; then fail "lintian reports errors"; else pass "lintian: no error"; fi
else
  echo "note: no lintian; not run"
fi

if [ $fails -eq 0 ]; then echo "deb_test: all checks passed"; else echo "deb_test: $fails failed"; fi
[ $fails -eq 0 ]
