#!/bin/sh
# Runs the evp_test harness of an OpenSSL 3.2+ build (3.5, 3.6) on aesfast:
#   1. every stanza of each mode aesfast offers, extracted into a file of its own, must run on
#      aesfast: with "-propquery provider=aesfast", evp_test must report every one executed and
#      fetched, 0 skipped, 0 errors, and at least one stanza per key size. CTR: the AES-*-CTR
#      stanzas of evpciph_aes_common.txt. GCM: the AES-*-GCM stanzas of every recipe in
#      test/recipes/30-test_evp_data that has any (evpciph_aes_common.txt in 3.5). GCM-SIV: the
#      AES-*-GCM-SIV stanzas of every recipe that has any (evpciph_aes_gcm_siv.txt: AES-128 and
#      AES-256 only, so no AES-192 stanza is required);
#   2. GMAC (evpmac_common.txt), which runs its cipher through EVP: its AES-*-GCM stanzas, each
#      with "Ctrl = properties:provider=aesfast" added so that GMAC (from default) must fetch
#      AES-GCM from aesfast or fail: all must run, 0 skipped, 0 errors;
#   3. the whole evpciph_aes_common.txt, with aesfast preferred ("?provider=aesfast") and default
#      serving the modes aesfast lacks, must give 0 errors.
#
#   test/evp_test.sh OPENSSL_TREE MODULE_PATH        exit 0 pass, 1 fail
#     OPENSSL_TREE  an OpenSSL >= 3.2 build tree (test/build-openssl.sh prints one)
#     MODULE_PATH   aesfast.so
#   AESFAST_KERNEL, if set, passes through (test/with-tier.sh sets it, or skips a tier this CPU
#   lacks, so a provider that does not load here is always a failure).
#   AESFAST_TEST_WRAPPER, if set, is a command (split on blanks) that every run of the tree's
#   programs goes through: "qemu-aarch64 -L /usr/aarch64-linux-gnu" for an arm64 tree and module.
#   LD_LIBRARY_PATH then still names the tree: qemu passes it to the guest's loader, and the host's
#   loader, starting qemu, skips the tree's foreign-architecture libraries.
#
# Self-check without aesfast: AESFAST_TEST_PROVIDER=default runs the same logic on the default
# provider (MODULE_PATH is then ignored).
set -u
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || { echo "usage: $0 OPENSSL_TREE MODULE_PATH" >&2; exit 2; }
tree=$1 module=$2 kernel=${AESFAST_KERNEL:-}
wrap=${AESFAST_TEST_WRAPPER:-}     # deliberately unquoted where used: a command and its arguments
prov=${AESFAST_TEST_PROVIDER:-aesfast}
tree=$(cd "$tree" 2>/dev/null && pwd) || { echo "evp_test: no tree $1" >&2; exit 1; }
evp=$tree/test/evp_test ossl=$tree/apps/openssl
recipe=$tree/test/recipes/30-test_evp_data/evpciph_aes_common.txt
for f in "$evp" "$ossl" "$recipe"; do
  [ -e "$f" ] || { echo "evp_test: missing $f" >&2; exit 1; }
done
if [ "$prov" != default ]; then
  [ -f "$module" ] || { echo "evp_test: no module at $module" >&2; exit 1; }
  module=$(cd "$(dirname "$module")" && pwd)/$(basename "$module")
fi
export LD_LIBRARY_PATH=$tree${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset OPENSSL_CONF

tmp=$(mktemp -d "${TMPDIR:-/tmp}/aesfast-evp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cnf=$tmp/evp.cnf
write_cnf "$cnf" "$prov" "$module"

label="$prov${kernel:+ (AESFAST_KERNEL=$kernel)}${wrap:+ under $wrap}"
echo "evp_test: $(LD_LIBRARY_PATH=$tree $wrap "$ossl" version 2>&1 | head -n1), $label"

# The provider must load.
lp=$(OPENSSL_CONF=$cnf $wrap "$ossl" list -providers 2>&1)
if ! printf '%s\n' "$lp" | grep -q "^  $prov\$"; then
  echo "evp_test: FAIL: $prov does not load ($label):"
  printf '%s\n' "$lp" | sed 's/^/     /'
  exit 1
fi

# A stanza is a blank-line separated paragraph. extract MODE FILE...: the paragraphs of the
# files with a line "Cipher = AES-{128,192,256}-MODE" in any letter case, on stdout.
extract() {
  m=$1
  shift
  awk -v m="$m" 'BEGIN { RS = ""; ORS = "\n\n" }
    { n = split($0, l, "\n")
      for (i = 1; i <= n; i++)
        if (tolower(l[i]) ~ ("^[ \t]*cipher[ \t]*=[ \t]*aes-(128|192|256)-" m "[ \t]*$")) { print; next } }' "$@"
}
count() { grep -Eic "^[ \t]*cipher[ \t]*=[ \t]*aes-$1-$2[ \t]*\$" "$3"; }

fails=0
run() { # label, property query, file -> sets rc/ran/errs/skips; output in $tmp/out
  $wrap "$evp" -config "$cnf" -propquery "$2" "$3" >"$tmp/out" 2>&1
  rc=$?
  summary=$(grep -E 'Completed [0-9]+ tests with [0-9]+ errors and [0-9]+ skipped' "$tmp/out" | tail -n1)
  ran=$(printf '%s' "$summary" | sed -nE 's/.*Completed ([0-9]+) tests.*/\1/p')
  errs=$(printf '%s' "$summary" | sed -nE 's/.* with ([0-9]+) errors.*/\1/p')
  skips=$(printf '%s' "$summary" | sed -nE 's/.* and ([0-9]+) skipped.*/\1/p')
  echo "evp_test: $1: exit $rc, ${summary:-no summary line}"
}
show_out() { grep -vE 'is fetched$' "$tmp/out" | tail -n 40 | sed 's/^/     /'; }

# 1. Each mode's stanzas alone, strictly on the provider under test.
data=$(dirname "$recipe")
for mode in ctr gcm gcm-siv; do
  MODE=$(echo "$mode" | tr a-z A-Z)
  if [ $mode = ctr ]; then
    files=$recipe
  else
    files=$(grep -Eil "^[ \t]*cipher[ \t]*=[ \t]*aes-(128|192|256)-$mode[ \t]*\$" "$data"/*.txt)
  fi
  if [ -z "$files" ]; then
    echo "FAIL $MODE stanzas: no recipe in $data has any"
    fails=$((fails + 1))
    continue
  fi
  sel=$tmp/evp_aes_$mode.txt
  # shellcheck disable=SC2086 # $files: a list of paths without blanks
  extract $mode $files >"$sel"
  for f in $files; do
    extract $mode "$f" >"$tmp/one"
    echo "evp_test: $MODE stanzas in $(basename "$f"): AES-128-$MODE $(count 128 $mode "$tmp/one")," \
         "AES-192-$MODE $(count 192 $mode "$tmp/one"), AES-256-$MODE $(count 256 $mode "$tmp/one")"
  done
  n128=$(count 128 $mode "$sel") n192=$(count 192 $mode "$sel") n256=$(count 256 $mode "$sel")
  total=$((n128 + n192 + n256))
  eval "total_$(echo $mode | tr -d -)=\$total"
  min192=1
  [ $mode = gcm-siv ] && min192=0   # RFC 8452's vectors, and OpenSSL's, have no AES-192

  run "$MODE stanzas ($total), -propquery provider=$prov" "provider=$prov" "$sel"
  fetched=$(grep -Eic "AES-(128|192|256)-$mode is fetched\$" "$tmp/out")
  f128=$(grep -Eic "AES-128-$mode is fetched\$" "$tmp/out")
  f192=$(grep -Eic "AES-192-$mode is fetched\$" "$tmp/out")
  f256=$(grep -Eic "AES-256-$mode is fetched\$" "$tmp/out")
  if [ $rc -eq 0 ] && [ "${ran:-x}" = "$total" ] && [ "${errs:-x}" = 0 ] && [ "${skips:-x}" = 0 ] \
     && [ "$fetched" -eq "$total" ] && [ "$n128" -ge 1 ] && [ "$n192" -ge $min192 ] && [ "$n256" -ge 1 ]; then
    echo "ok   $MODE stanzas: $ran of $total run on $prov (AES-128-$MODE $f128, AES-192-$MODE $f192," \
         "AES-256-$MODE $f256 fetched from it), 0 skipped, 0 errors"
  else
    echo "FAIL $MODE stanzas: ran=${ran:-?}/$total errors=${errs:-?} skipped=${skips:-?} fetched=$fetched" \
         "per-size=$n128/$n192/$n256 fetched-per-size=$f128/$f192/$f256"
    show_out
    fails=$((fails + 1))
  fi
done

# 2. GMAC's AES-GCM stanzas, its cipher fetched strictly from the provider under test.
mac=$data/evpmac_common.txt
if [ -f "$mac" ]; then
  gmac=$tmp/evp_gmac.txt
  awk -v q="provider=$prov" 'BEGIN { RS = ""; ORS = "\n\n" }
    { n = split($0, l, "\n"); g = 0; a = 0
      for (i = 1; i <= n; i++) {
        if (tolower(l[i]) ~ /^[ \t]*mac[ \t]*=[ \t]*gmac[ \t]*$/) g = 1
        if (tolower(l[i]) ~ /^[ \t]*algorithm[ \t]*=[ \t]*aes-(128|192|256)-gcm[ \t]*$/) a = 1
      }
      if (g && a) print $0 "\nCtrl = properties:" q }' "$mac" >"$gmac"
  ngmac=$(grep -c '^Ctrl = properties:' "$gmac")
  run "GMAC stanzas with AES-GCM ($ngmac), cipher properties provider=$prov" "?provider=$prov" "$gmac"
  if [ $rc -eq 0 ] && [ "${ran:-x}" = "$ngmac" ] && [ "${errs:-x}" = 0 ] && [ "${skips:-x}" = 0 ] \
     && [ "$ngmac" -ge 1 ]; then
    echo "ok   GMAC stanzas: $ran of $ngmac run with AES-GCM from $prov, 0 skipped, 0 errors"
  else
    echo "FAIL GMAC stanzas: ran=${ran:-?}/$ngmac errors=${errs:-?} skipped=${skips:-?}"
    show_out
    fails=$((fails + 1))
  fi
else
  echo "FAIL GMAC: no $mac"
  fails=$((fails + 1))
fi

# 3. The whole file: nothing may fail.  evp_test does not skip a cipher that the property query
#    cannot fetch: it falls back to EVP_get_cipherbyname(), whose implicit fetch then fails in its
#    null-provider default context, so every stanza of a mode aesfast lacks would count as an
#    error under a strict "provider=aesfast".  Hence the optional form: aesfast where it has the
#    algorithm (CTR, GCM), default for the rest.
extract gcm "$recipe" >"$tmp/one"
in_file_gcm=$(grep -Eic "^[ \t]*cipher[ \t]*=[ \t]*aes-(128|192|256)-gcm[ \t]*\$" "$tmp/one")
run "whole file, -propquery ?provider=$prov" "?provider=$prov" "$recipe"
if [ $rc -eq 0 ] && [ "${errs:-x}" = 0 ] && [ "${ran:-0}" -ge "$((total_ctr + in_file_gcm))" ]; then
  echo "ok   whole file: ${ran} run, ${skips} skipped, 0 errors"
  for mode in ctr gcm; do
    c=$(grep -Eic "AES-(128|192|256)-$mode is fetched\$" "$tmp/out")
    want=$total_ctr
    [ $mode = gcm ] && want=$in_file_gcm
    [ "$c" -eq "$want" ] || { echo "FAIL whole file: $c $mode stanzas fetched, expected $want"; fails=$((fails + 1)); }
  done
else
  echo "FAIL whole file: errors=${errs:-?}"
  show_out
  fails=$((fails + 1))
fi

if [ $fails -eq 0 ]; then echo "evp_test: PASS ($label)"; exit 0; fi
echo "evp_test: FAIL ($label)"; exit 1
