#!/usr/bin/env bash
# Runs every aesfast test, from a fresh Debian 12 machine (as root) or a developer's tree:
#   1. installs what is missing (compiler, Meson, arm64 cross tools and qemu, OpenSSL headers);
#   2. builds OpenSSL 3.5, 3.6 (the newest 3.x series) and 4.0 (Debian experimental's) from Debian's
#      source packages (cached), natively with their static libraries (the static hosts) and,
#      for the arm64 run, 3.5 cross-built for arm64;
#   3. native build: every x86-64 tier against the system OpenSSL 3.0 and the 3.5, 3.6 and 4.0
#      builds (4.0 through a Python extension that bundles its libcrypto.a, as the cryptography
#      wheel does, and in build-4.0);
#   4. native build with AddressSanitizer and UndefinedBehaviorSanitizer (build-asan): the tests
#      whose programs are all ours, on the tiers this CPU has (see asan_tests below);
#   5. native build with ThreadSanitizer (build-tsan): the thread tests (test/thread_test.c) on
#      the tiers this CPU has, against 3.0 and each OpenSSL built;
#   6. arm64 cross build: its tiers under qemu-aarch64 with Debian's arm64 libcrypto and the arm64
#      3.5 build;
#   7. differential fuzzing (fuzz/run.sh, build-fuzz): each libFuzzer target (ctr, gcm, gcmsiv)
#      for 60 s on each tier this CPU has, two at a time; one result per target and tier;
#   8. OpenSSL's own test suite on the 3.5 tree (built with --full) with aesfast preferred
#      through the drop-in (test/openssl-suite.sh, build/openssl-suite): its CI selection of
#      recipes, one result per recipe (doc/testing-openssl-suite.md).
# Ends with the minutes each phase took, the skipped tests and why, what the options left out, the
# OpenSSL versions each build ran against (as the libraries report them), and one line
# "N passed, N failed, N skipped" (a left-out build counts as one skipped test); exits non-zero
# on any failure.
#
#   test/run.sh [--no-arm64] [--no-openssl-builds] [--no-openssl36] [--no-openssl40] [--no-asan]
#               [--no-tsan] [--no-fuzz] [--no-openssl-suite] [-- MESON_TEST_ARGS...]
#     --no-openssl-builds (or its old name --no-openssl35): no OpenSSL built here, the system's alone
#     --no-openssl36, --no-openssl40: not that series' build
#     --no-openssl-suite: not OpenSSL's own test suite (the 3.5 tree is then built without
#       the test programs it needs: --static, not --full)
# (MESON_TEST_ARGS go to the native and arm64 runs; the sanitizer runs pick their tests.)
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD

arm64=1 openssl35=1 openssl36=1 openssl40=1 asan=1 tsan=1 fuzz=1 ossl_suite=1
while [ $# -gt 0 ]; do
  case "$1" in
    --no-arm64) arm64=0 ;;
    --no-openssl-builds | --no-openssl35) openssl35=0 openssl36=0 openssl40=0 ;;
    --no-openssl36) openssl36=0 ;;
    --no-openssl40) openssl40=0 ;;
    --no-asan) asan=0 ;;
    --no-tsan) tsan=0 ;;
    --no-fuzz) fuzz=0 ;;
    --no-openssl-suite) ossl_suite=0 ;;
    --) shift; break ;;
    *) echo "test/run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

left_out=() left_out_skipped=0 # what the options leave out, reported at the end; builds counted skipped
[ $arm64 -eq 0 ] && left_out+=("arm64 cross build (--no-arm64)")
[ $openssl35 -eq 0 ] && left_out+=("OpenSSL 3.5, 3.6 and 4.0 builds; their tests count as skipped (--no-openssl-builds)")
[ $openssl35 -eq 1 ] && [ $openssl36 -eq 0 ] && left_out+=("OpenSSL 3.6 build; its tests count as skipped (--no-openssl36)")
[ $openssl35 -eq 1 ] && [ $openssl40 -eq 0 ] && left_out+=("OpenSSL 4.0 build; its tests count as skipped (--no-openssl40)")
[ $asan -eq 0 ] && left_out+=("sanitizer build (--no-asan)")
[ $tsan -eq 0 ] && left_out+=("ThreadSanitizer build (--no-tsan)")
[ $fuzz -eq 0 ] && left_out+=("differential fuzzing (--no-fuzz)")
# OpenSSL's own suite runs on the 3.5 build: left out with it, counted as one skipped test.
[ $ossl_suite -eq 1 ] && [ $openssl35 -eq 0 ] && { ossl_suite=0; left_out+=("OpenSSL's own test suite, which runs on the 3.5 build; counts as skipped (--no-openssl-builds)"); left_out_skipped=$((left_out_skipped + 1)); }
[ $ossl_suite -eq 0 ] && [ $openssl35 -eq 1 ] && { left_out+=("OpenSSL's own test suite; counts as skipped (--no-openssl-suite)"); left_out_skipped=$((left_out_skipped + 1)); }

# Where the run's time goes, printed at the end: each phase's wall-clock minutes.
times=() phase_name= phase_start=$SECONDS
phase() { # phase NAME: the phase before it ends here
  [ -z "$phase_name" ] || times+=("$phase_name $(( (SECONDS - phase_start + 30) / 60 )) min")
  phase_name=$1 phase_start=$SECONDS
}
phase "installing dependencies"

deps=(--bench) # gnuplot for the publish test (and h2load: small)
[ $fuzz -eq 1 ] && deps+=(--fuzz)
[ $arm64 -eq 1 ] && deps+=(--arm64)
[ $openssl35 -eq 1 ] && deps+=(--src)
if ! test/install-deps.sh "${deps[@]}"; then
  echo "test/run.sh: installing the dependencies failed" >&2
  echo "0 passed, 1 failed, 0 skipped"
  exit 1
fi

phase "building OpenSSL (3.5, 3.6, 4.0, arm64 3.5; cached)"
trees=() tree_arm64= tree40= # trees: the 3.x builds (libcrypto.so.3, swapped in by LD_LIBRARY_PATH)
setup_failures=0 # steps that failed before any test ran; each counts as one failed test
series=()
[ $openssl35 -eq 1 ] && series+=(3.5)
[ $openssl36 -eq 1 ] && series+=(3.6)
[ $openssl40 -eq 1 ] && series+=(4.0)
tree_suite= # the 3.5 tree, built with --full for OpenSSL's own test suite
for s in "${series[@]}"; do
  # Every tree with its static libraries (the static hosts, test/static_host_test.sh); the 3.5
  # tree also with what OpenSSL's own suite runs (--full).
  extra=--static
  [ "$s" = 3.5 ] && [ $ossl_suite -eq 1 ] && extra=--full
  if t=$(test/build-openssl.sh --series "$s" $extra) \
     || { t=$(test/build-openssl.sh --series "$s") \
          && echo "test/run.sh: building OpenSSL $s with $extra failed: its static hosts$([ $extra = --full ] && echo " and its own test suite") are not run" >&2 \
          && extra= && setup_failures=$((setup_failures + 1)); }; then
    echo "test/run.sh: OpenSSL $s tree: $t"
    if [ "$s" = 4.0 ]; then tree40=$t; else trees+=("$t"); fi
    [ "$extra" != --full ] || tree_suite=$t
  else
    echo "test/run.sh: building OpenSSL $s failed: its tests are not run" >&2
    setup_failures=$((setup_failures + 1))
  fi
done
if [ $openssl35 -eq 1 ]; then
  if [ $arm64 -eq 1 ]; then
    if tree_arm64=$(test/build-openssl.sh --host aarch64); then
      echo "test/run.sh: OpenSSL 3.5 arm64 tree: $tree_arm64"
    else
      echo "test/run.sh: cross-building OpenSSL 3.5 for arm64 failed: its arm64 tests are not run" >&2
      tree_arm64= setup_failures=$((setup_failures + 1))
    fi
  fi
fi

phase "native build and tests"
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

# The OpenSSL versions each build runs against, for the summary: "3.5.7 (built)", from the
# library itself (its openssl program's "Library:" version), the tree's VERSION.dat failing that.
tested=()
lib_version() { # lib_version TREE [WRAPPER...]
  local t=$1 v
  shift
  v=$(LD_LIBRARY_PATH=$t "$@" "$t/apps/openssl" version 2>/dev/null | head -n1)
  if [[ $v == *"(Library: OpenSSL "* ]]; then v=${v##*(Library: OpenSSL }; v=${v%% *}
  elif [[ $v == "OpenSSL "* ]]; then v=${v#OpenSSL }; v=${v%% *}
  else v=$(sed -n 's/^\(MAJOR\|MINOR\|PATCH\)=//p' "$t/VERSION.dat" 2>/dev/null | paste -sd.)" (VERSION.dat)"; fi
  echo "$v"
}
system_version() { # the version the system openssl reports for its library
  local v
  v=$(openssl version 2>/dev/null | head -n1)
  [[ $v == *"(Library: OpenSSL "* ]] && v=${v##*(Library: OpenSSL } || v=${v#OpenSSL }
  echo "${v%% *}"
}
native=("$(system_version) (system)")
for t in "${trees[@]}" $tree40; do native+=("$(lib_version "$t") (built)"); done
tested+=("$(printf '%s, ' "${native[@]}" | sed 's/, $//')")

setup build "${werror[@]}" -Dopenssl_tree= -Dopenssl_trees="$(IFS=,; echo "${trees[*]}")" \
  -Dwheel_trees="$tree40"
run_suite build "$@"

phase "OpenSSL's own test suite"
# OpenSSL's own test suite (its CI selection) on the 3.5 tree with build/aesfast.so preferred:
# one Meson-format result per recipe. A failed 3.5 build is already counted as a failure.
if [ $ossl_suite -eq 1 ] && [ -n "$tree_suite" ]; then
  logs+=("build/openssl-suite/results.json")
  test/openssl-suite.sh --tree "$tree_suite" --module build/aesfast.so --out build/openssl-suite \
    --results build/openssl-suite/results.json || status=1
fi

phase "build-4.0 and its tests"
# OpenSSL 4.0 (libcrypto.so.4): the module and the test programs built against the tree itself
# (build-4.0), its openssl-4.0 suite: load, evp_test, TLS with its s_server/s_client, and the
# provider-level tests with its default provider as the reference. Without the tree (a failed or
# left-out build) it counts as one skipped test.
if [ -n "$tree40" ]; then
  PKG_CONFIG_PATH=$tree40 setup build-4.0 "${werror[@]}" -Dopenssl_tree= -Dopenssl_trees="$tree40"
  run_suite build-4.0 --suite openssl-4.0
elif [ $openssl40 -eq 0 ]; then
  left_out_skipped=$((left_out_skipped + 1))
fi

phase "sanitizer build and tests"
# asan_tests BUILDDIR: the names of the tests to run under the sanitizers, one a line. Not those
# that cannot run there: ct-* (valgrind cannot run ASan programs), load, evp_test, tls, ssh and
# cnf-recipes (the openssl, evp_test, nginx, curl, ssh and sshd programs are not instrumented, and a module
# built with ASan only loads into a program that has its runtime), the runs against OpenSSL trees
# (*-3.5, *-3.6: no tree in this build), model-* (Python; no C of ours runs) and binding-* (Debian's
# python3, which has no ASan runtime, loads the module). Nor the tiers
# this CPU lacks: the native build reports those as skipped.
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
    case "$name" in ct-* | load | load-* | evp_test-* | tls | tls-* | ssh | ssh-* | model-* | cnf-recipes | binding-*) continue ;; esac
    [[ ! $name =~ -[0-9]+\.[0-9]+(-|$) ]] || continue # a run against an OpenSSL tree: *-3.5, *-3.6-aesni
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

phase "ThreadSanitizer build and tests"
# ThreadSanitizer (build-tsan): the thread tests only (thread-TIER, thread-3.5-TIER), on the
# tiers this CPU has; the native build runs them too, and reports the tiers it lacks as skipped.
# The module is instrumented and links without the TSan runtime (b_lundef=false), as for ASan.
# Only what those tests need is built. libcrypto is not instrumented: test/tsan.supp names the
# one libcrypto internal whose lock-free handover TSan cannot see, and why; nothing of aesfast.
if [ $tsan -eq 1 ]; then
  setup build-tsan "${werror[@]}" -Dbuildtype=debugoptimized -Db_sanitize=thread -Db_lundef=false \
    -Dopenssl_tree= -Dopenssl_trees="$(IFS=,; echo "${trees[*]}")"
  built_series=" "
  for t in "${trees[@]}"; do # .../openssl-3.5.7 -> 3.5
    v=${t##*/openssl-}
    built_series+="${v%.*} "
  done
  selected=()
  rm -f build-tsan/meson-logs/testlog.json
  if ninja -C build-tsan aesfast.so test/thread_test test/kernel_test >/dev/null; then
    for t in $(meson test -C build-tsan --list 2>/dev/null | sed -n 's|^.* / \(thread-.*\)$|\1|p'); do
      tier=${t#thread-} series=
      if [[ $tier =~ ^([0-9]+\.[0-9]+)-(.*)$ ]]; then
        series=${BASH_REMATCH[1]} tier=${BASH_REMATCH[2]}
        [[ $built_series == *" $series "* ]] || continue # no tree: the native build skips it
      fi
      if build-tsan/test/kernel_test --usable "$tier" >/dev/null; then selected+=("$t"); fi
    done
  fi
  if [ ${#selected[@]} -gt 0 ]; then
    echo "test/run.sh: ThreadSanitizer build: ${selected[*]}"
    logs+=("build-tsan/meson-logs/testlog.json")
    TSAN_OPTIONS="halt_on_error=1:suppressions=$src/test/tsan.supp" \
      meson test -C build-tsan --no-rebuild --print-errorlogs --num-processes 2 "${selected[@]}" \
      || status=1
  else
    echo "test/run.sh: build-tsan: the build failed, or no test was selected" >&2
    ninja -C build-tsan aesfast.so test/thread_test test/kernel_test || true
    setup_failures=$((setup_failures + 1))
  fi
fi

phase "arm64 cross build and tests under qemu"
if [ $arm64 -eq 1 ]; then
  setup build-arm64 --cross-file test/cross-aarch64.ini "${werror[@]}" -Dopenssl_tree= \
    -Dopenssl_trees="$tree_arm64"
  arm=("$(PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig pkg-config --modversion libcrypto \
          2>/dev/null || echo '?') (Debian arm64)")
  [ -z "$tree_arm64" ] || arm+=("$(lib_version "$tree_arm64" qemu-aarch64 -L /usr/aarch64-linux-gnu) (built)")
  tested+=("arm64: ${arm[0]}${arm[1]:+, ${arm[1]}}")
  run_suite build-arm64 "$@"
fi

phase "differential fuzzing"
# Differential fuzzing: fuzz/run.sh writes one Meson-format result per target and tier.
if [ $fuzz -eq 1 ]; then
  logs+=("build-fuzz/fuzz-results.json")
  fuzz_tree=(--no-openssl35) # GCM-SIV's target needs a default provider that has it: 3.5
  for t in "${trees[@]}"; do [[ $t != */openssl-3.5.* ]] || fuzz_tree=(--openssl-tree "$t"); done
  fuzz/run.sh --time 60 --jobs 2 "${fuzz_tree[@]}" "${werror[@]}" || status=1
fi

phase end
echo "test/run.sh: time: $(printf '%s; ' "${times[@]}" | sed 's/; $//'); in all $(( (SECONDS + 30) / 60 )) min"

# One summary over every build, from Meson's machine-readable logs: each skipped test with the
# line of its output that says why, what the options left out (the arm64 and 4.0 builds count as one
# skipped test each; the 3.5 and 3.6 tests are registered by Meson as skipped), then the counts.
left=$(printf '%s\n' "${left_out[@]}")
versions="test/run.sh: OpenSSL versions tested: $(printf '%s; ' "${tested[@]}" | sed 's/; $//')"
python3 - "$setup_failures" "$((1 - arm64 + left_out_skipped))" "$left" "$versions" "${logs[@]}" <<'PY' || status=1
import json, sys
passed = 0
failed = int(sys.argv[1])
skipped = int(sys.argv[2])
for path in sys.argv[5:]:
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
print(sys.argv[4])
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or passed == 0 else 0)
PY
exit $status
