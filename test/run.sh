#!/usr/bin/env bash
# Runs every aesfast test, from a fresh Debian 12 machine (as root) or a developer's tree:
#   1. installs what is missing (compiler, Meson, arm64 cross tools and qemu, OpenSSL headers);
#   2. builds OpenSSL 3.5 from Debian's source package, for its evp_test harness (cached), natively
#      and, for the arm64 run, cross-built for arm64;
#   3. native build: every x86-64 tier against the system OpenSSL 3.0 and the 3.5 build;
#   4. native build with AddressSanitizer and UndefinedBehaviorSanitizer (build-asan): the tests
#      whose programs are all ours, on the tiers this CPU has (see asan_tests below);
#   5. arm64 cross build: its tiers under qemu-aarch64 with Debian's arm64 libcrypto and the arm64
#      3.5 build;
#   6. differential fuzzing (fuzz/run.sh, build-fuzz): each libFuzzer target (ctr, gcm, gcmsiv)
#      for 60 s on each tier this CPU has, two at a time; one result per target and tier.
# Ends with the skipped tests and why, what the options left out, and one line
# "N passed, N failed, N skipped" (a left-out build counts as one skipped test); exits non-zero on
# any failure.
#
#   test/run.sh [--no-arm64] [--no-openssl35] [--no-asan] [--no-fuzz] [-- MESON_TEST_ARGS...]
# (MESON_TEST_ARGS go to the native and arm64 runs; the sanitizer run picks its tests itself.)
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD

arm64=1 openssl35=1 asan=1 fuzz=1
while [ $# -gt 0 ]; do
  case "$1" in
    --no-arm64) arm64=0 ;;
    --no-openssl35) openssl35=0 ;;
    --no-asan) asan=0 ;;
    --no-fuzz) fuzz=0 ;;
    --) shift; break ;;
    *) echo "test/run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

left_out=() # what the options leave out, reported at the end
[ $arm64 -eq 0 ] && left_out+=("arm64 cross build (--no-arm64)")
[ $openssl35 -eq 0 ] && left_out+=("OpenSSL 3.5 builds; their tests count as skipped (--no-openssl35)")
[ $asan -eq 0 ] && left_out+=("sanitizer build (--no-asan)")
[ $fuzz -eq 0 ] && left_out+=("differential fuzzing (--no-fuzz)")

deps=()
[ $fuzz -eq 1 ] && deps+=(--fuzz)
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

# asan_tests BUILDDIR: the names of the tests to run under the sanitizers, one a line. Not those
# that cannot run there: ct-* (valgrind cannot run ASan programs), load, evp_test and tls (the
# openssl, evp_test, nginx and curl programs are not instrumented, and a module built with ASan
# only loads into a program that has its runtime), the 3.5 runs (no 3.5 tree in this build) and model-* (Python;
# no C of ours runs). Nor the tiers this CPU lacks: the native build reports those as skipped.
# Every test so left out runs in the native build.
asan_tests() {
  local dir=$1 names tier name keep
  local all=() usable=()
  names=$(meson test -C "$dir" --list 2>/dev/null | sed -n 's|^[^ ]* / ||p') || return 1
  for tier in $(sed -n 's/^kernel-//p' <<<"$names"); do
    all+=("$tier")
    if "$dir/test/kernel_test" --usable "$tier" >/dev/null; then usable+=("$tier"); fi
  done
  while read -r name; do
    case "$name" in ct-* | load | load-* | evp_test-* | tls | tls-* | model-* | *-3.5 | *-3.5-*) continue ;; esac
    keep=1
    for tier in "${all[@]}"; do
      if [[ $name == *-"$tier" ]]; then
        keep=0
        [[ " ${usable[*]} " != *" $tier "* ]] || keep=1
      fi
    done
    [ $keep -eq 0 ] || echo "$name"
  done <<<"$names"
}

# AddressSanitizer and UndefinedBehaviorSanitizer, every finding fatal. The module is
# instrumented too, and links without the ASan runtime (b_lundef=false): the test program that
# loads it provides it. Leak detection stays on: no test leaks, libcrypto included.
if [ $asan -eq 1 ]; then
  setup build-asan "${werror[@]}" -Dbuildtype=debugoptimized -Db_sanitize=address,undefined \
    -Db_lundef=false
  selected=()
  ninja -C build-asan >/dev/null && mapfile -t selected < <(asan_tests build-asan)
  if [ ${#selected[@]} -gt 0 ]; then
    echo "test/run.sh: sanitizer build: ${selected[*]}"
    ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      run_suite build-asan "${selected[@]}"
  else
    echo "test/run.sh: build-asan: the build failed, or no test was selected" >&2
    ninja -C build-asan || true
    setup_failures=$((setup_failures + 1))
  fi
fi

if [ $arm64 -eq 1 ]; then
  setup build-arm64 --cross-file test/cross-aarch64.ini "${werror[@]}" -Dopenssl_tree="$tree_arm64"
  run_suite build-arm64 "$@"
fi

# Differential fuzzing: fuzz/run.sh writes one Meson-format result per target and tier.
if [ $fuzz -eq 1 ]; then
  logs+=("build-fuzz/fuzz-results.json")
  fuzz_tree=(--no-openssl35)
  [ -n "$tree" ] && fuzz_tree=(--openssl-tree "$tree")
  fuzz/run.sh --time 60 --jobs 2 "${fuzz_tree[@]}" "${werror[@]}" || status=1
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
