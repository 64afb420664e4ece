#!/bin/sh
# with-tier.sh PROBE TIER COMMAND [ARGS...]
# Runs COMMAND with AESFAST_KERNEL=TIER, or exits 77 (Meson's "skipped") when this CPU cannot run
# TIER, as PROBE (kernel_test --usable) reports. Used by the native tests; a cross build under qemu
# sets AESFAST_KERNEL directly, since every arm64 tier runs there.
probe=$1 tier=$2
shift 2
"$probe" --usable "$tier" || exit $?
AESFAST_KERNEL=$tier
export AESFAST_KERNEL
exec "$@"
