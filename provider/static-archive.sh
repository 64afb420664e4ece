#!/bin/sh
# static-archive.sh OUT.a OBJCOPY AR INPUT.a... -- CC [CC_ARGS...]
# Makes libaesfast.a: the provider's and kernels' objects (INPUT.a, whole) partially linked into
# one relocatable object (CC -r), in which objcopy then makes every hidden symbol local. So the
# archive's only global definition is aesfast_provider_init, and no other aesfast function or
# table can clash with, or be called by, the application that links it. The module's name for the
# entry point, OSSL_provider_init, is dropped: two static providers could not both define it.
set -eu
out=$1 objcopy=$2 ar=$3
shift 3
inputs=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  inputs="$inputs $1"
  shift
done
[ $# -gt 1 ] || { echo "usage: $0 OUT.a OBJCOPY AR INPUT.a... -- CC [ARGS...]" >&2; exit 2; }
shift
obj=${out%.a}.o
# shellcheck disable=SC2086 # the inputs are paths without blanks, chosen by meson.build
"$@" -r -nostdlib -o "$obj" -Wl,--whole-archive $inputs -Wl,--no-whole-archive
"$objcopy" --localize-hidden --strip-symbol=OSSL_provider_init "$obj"
rm -f "$out"
"$ar" rcs "$out" "$obj"
rm -f "$obj"
