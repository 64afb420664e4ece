#!/bin/sh
# CET / BTI test: the module is marked for indirect-branch tracking and shadow stacks (x86-64) or
# branch target identification and return-address signing (arm64), and the code backs the mark:
#   1. `readelf -n` on the module shows "x86 feature: IBT, SHSTK" / "AArch64 feature: BTI, PAC";
#   2. every global function the kernels library defines (each .S entry point, and the portable
#      tier's C functions) starts, in the module, with a landing pad: endbr64, or bti c / paciasp;
#   3. so does OSSL_provider_init, the C function libcrypto reaches through dlsym.
#
#   test/cet_test.sh ARCH READELF OBJDUMP NM MODULE KERNELS_LIB ASM      exit 0 pass, 1 fail
#
# ARCH is x86_64 or aarch64; READELF, OBJDUMP and NM are the host's binutils (aarch64-linux-gnu-*
# in the cross build); KERNELS_LIB is the static library of kernels that the module links; ASM is
# "asm" when the module has assembly kernels, so at least one .S entry point must be found.
# The module's kernel symbols are hidden, not stripped: they are in its .symtab.
set -u
[ $# -eq 7 ] || { echo "usage: $0 ARCH READELF OBJDUMP NM MODULE KERNELS_LIB ASM" >&2; exit 2; }
arch=$1 readelf=$2 objdump=$3 nm=$4 module=$5 lib=$6 asm=$7

case $arch in
  x86_64) note='x86 feature' want='IBT SHSTK' pads='endbr64' ;;
  aarch64) note='AArch64 feature' want='BTI PAC' pads='bti c|bti jc|paciasp|pacibsp' ;;
  *) echo "cet_test: no CET/BTI for $arch"; exit 77 ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/aesfast-cet.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# 1. The property note.
"$readelf" -n "$module" >"$tmp/notes" || { echo "FAIL readelf -n $module"; exit 1; }
line=$(grep "$note:" "$tmp/notes" | sed 's/^ *Properties: *//')
echo "readelf -n: ${line:-(no $note property)}"
have=$(printf '%s\n' "$line" | sed "s/^$note: *//; s/,/ /g")
for f in $want; do
  case " $have " in
    *" $f "*) ;;
    *) fail "the module lacks the $f property (readelf -n: ${line:-no $note line})" ;;
  esac
done

# 2 and 3. The first instruction of every function: addresses from nm (the module's .symtab),
# instructions from objdump, joined on the address without leading zeros.
"$nm" --defined-only "$module" >"$tmp/syms" || { echo "FAIL nm $module"; exit 1; }
grep -q ' OSSL_provider_init$' "$tmp/syms" ||
  { echo "FAIL no OSSL_provider_init in $module"; exit 1; }
"$objdump" -d --no-show-raw-insn "$module" >"$tmp/dis" || { echo "FAIL objdump -d $module"; exit 1; }
# Each global function of the library, with the kind of object that defines it: "S" or "c".
"$nm" -A --defined-only "$lib" >"$tmp/lib" || { echo "FAIL nm $lib"; exit 1; }
awk '$(NF-1) == "T" { m = $1; sub(/:[0-9a-f]+$/, "", m); sub(/:$/, "", m)
                      k = (m ~ /\.[sS]\.o$/) ? "S" : "c"; print k, $NF }' "$tmp/lib" >"$tmp/funcs"
echo "c OSSL_provider_init" >>"$tmp/funcs"
awk -v pads="^($pads)\$" '
  FILENAME == ARGV[1] { a = $1; sub(/^0+/, "", a); addr[$NF] = a; next }
  FILENAME == ARGV[2] {
    if (match($0, /^ *[0-9a-f]+:\t/)) {
      a = substr($0, 1, RLENGTH - 2); gsub(/ /, "", a)
      if (!(a in insn)) { i = substr($0, RLENGTH + 1); gsub(/\t/, " ", i); sub(/ +(\/\/|# ).*$/, "", i)
                          insn[a] = i }
    }
    next
  }
  {
    kind = $1; name = $2; n[kind]++
    if (!(name in addr)) { print "FAIL " name ": not in the module'"'"'s symbol table"; bad++; next }
    i = insn[addr[name]]
    if (i ~ pads) { ok[kind]++; next }
    print "FAIL " name " (" (kind == "S" ? "assembly" : "C") ") starts with \"" i "\", no landing pad"
    bad++
  }
  END {
    printf "landing pads: %d of %d assembly entry points, %d of %d C functions\n",
           ok["S"], n["S"], ok["c"], n["c"]
    exit bad > 0
  }' "$tmp/syms" "$tmp/dis" "$tmp/funcs" || fails=$((fails + 1))
if [ "$asm" = asm ] && ! grep -q '^S ' "$tmp/funcs"; then
  fail "no assembly entry point found in $lib"
fi

if [ $fails -gt 0 ]; then
  echo "cet_test: $fails failure(s)"
  exit 1
fi
echo "cet_test: all checks passed"
