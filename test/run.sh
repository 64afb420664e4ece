#!/usr/bin/env bash
# Runs every aesfast test, from a fresh Debian 12 machine (as root) or a developer's tree:
#   1. installs what is missing (compiler, Meson, arm64 cross tools and qemu, OpenSSL headers);
#   2. builds OpenSSL 3.5 from Debian's source package, for its evp_test harness (cached), natively
#      and, for the arm64 run, cross-built for arm64;
#   3. native build: every x86-64 tier against the system OpenSSL 3.0 and the 3.5 build;
#   4. arm64 cross build: its tiers under qemu-aarch64 with Debian's arm64 libcrypto and the arm64
#      3.5 build.
# Ends with the skipped tests and why, what the options left out, and one line
# "N passed, N failed, N skipped" (a left-out build counts as one skipped test); exits non-zero on
# any failure.
#
#   test/run.sh [--no-arm64] [--no-openssl35] [-- MESON_TEST_ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD

arm64=1 openssl35=1
while [ $# -gt 0 ]; do
  case "$1" in
    --no-arm64) arm64=0 ;;
    --no-openssl35) openssl35=0 ;;
    --) shift; break ;;
    *) echo "test/run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

left_out=() # what the options leave out, reported at the end
[ $arm64 -eq 0 ] && left_out+=("arm64 cross build (--no-arm64)")
[ $openssl35 -eq 0 ] && left_out+=("OpenSSL 3.5 builds; their tests count as skipped (--no-openssl35)")

deps=()
[ $arm64 -eq 1 ] && deps+=(--arm64)
[ $openssl35 -eq 1 ] && deps+=(--src)
if ! test/install-deps.sh "${deps[@]}"; then
  echo "test/run.sh: installing the dependencies failed" >&2
  echo "0 passed, 1 failed, 0 skipped"
  exit 1
fi

tree= tree_arm64=
setup_failures=0 # steps that failed before any test ran; each counts as one failed test
if [ $openssl35 -eq 1 ]; then
  if tree=$(test/build-openssl.sh); then
    echo "test/run.sh: OpenSSL 3.5 tree: $tree"
  else
    echo "test/run.sh: building OpenSSL 3.5 failed: its tests are not run" >&2
    tree= setup_failures=$((setup_failures + 1))
  fi
  if [ $arm64 -eq 1 ]; then
    if tree_arm64=$(test/build-openssl.sh --host aarch64); then
      echo "test/run.sh: OpenSSL 3.5 arm64 tree: $tree_arm64"
    else
      echo "test/run.sh: cross-building OpenSSL 3.5 for arm64 failed: its arm64 tests are not run" >&2
      tree_arm64= setup_failures=$((setup_failures + 1))
    fi
  fi
fi

# CI builds with -Werror; a developer gets warnings as warnings.
werror=()
[ "${CI:-}" = true ] && werror=(--werror)

setup() { # setup BUILDDIR [MESON_ARGS...]; a failure is reported, and counted by run_suite
  local dir=$1
  shift
  if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" "$@" >/dev/null || meson setup --reconfigure "$dir" "$@"
  else
    meson setup "$dir" "$@" >/dev/null || meson setup --wipe "$dir" "$@"
  fi || echo "test/run.sh: meson setup failed in $dir" >&2
}

status=0
logs=()
run_suite() { # run_suite BUILDDIR: build, then meson test; remembers the log for the summary
  local dir=$1
  shift
  logs+=("$dir/meson-logs/testlog.json") # a build that fails leaves none: counted as a failure
  rm -f "$dir/meson-logs/testlog.json"
  ninja -C "$dir" >/dev/null || { echo "test/run.sh: build failed in $dir" >&2; ninja -C "$dir" || true; status=1; return; }
  meson test -C "$dir" --print-errorlogs --num-processes 2 "$@" || status=1
}

setup build "${werror[@]}" -Dopenssl_tree="$tree"
run_suite build "$@"

if [ $arm64 -eq 1 ]; then
  setup build-arm64 --cross-file test/cross-aarch64.ini "${werror[@]}" -Dopenssl_tree="$tree_arm64"
  run_suite build-arm64 "$@"
fi

# One summary over every build, from Meson's machine-readable logs: each skipped test with the
# line of its output that says why, what the options left out (the arm64 build counts as one
# skipped test; the 3.5 tests are registered by Meson as skipped), then the counts.
left=$(printf '%s\n' "${left_out[@]}")
python3 - "$setup_failures" "$((1 - arm64))" "$left" "${logs[@]}" <<'PY' || status=1
import json, sys
passed = 0
failed = int(sys.argv[1])
skipped = int(sys.argv[2])
for path in sys.argv[4:]:
    try:
        lines = open(path).read().splitlines()
    except OSError:
        failed += 1
        print(f"missing test log {path}")
        continue
    for line in lines:
        if not line.strip():
            continue
        t = json.loads(line)
        r = t["result"]
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
            out = [l.strip() for l in (t.get("stdout") or "").splitlines() if l.strip()]
            why = next((l for l in out if "skipped" in l), out[-1] if out else "(no output)")
            print(f"skipped: {path.split('/meson-logs/')[0]} {t['name']}: {why}")
        else:
            failed += 1
for what in sys.argv[3].splitlines():
    if what:
        print(f"test/run.sh: left out: {what}")
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or passed == 0 else 0)
PY
exit $status
