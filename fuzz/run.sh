#!/usr/bin/env bash
# Differential fuzzing of aesfast against OpenSSL's default provider (fuzz/driver.c): builds
# build-fuzz (clang, libFuzzer, ASan + UBSan, the module instrumented too), then runs each
# target for a bounded time on every tier this CPU has, from the seed corpus in fuzz/corpus/.
#
#   fuzz/run.sh [--time SECONDS] [--tier TIER] [--mode ctr|gcm|gcmsiv] [--jobs N]
#               [--openssl-tree DIR | --no-openssl35] [--werror]
#
# --time: per target and tier (default 60); --tier, --mode: only those (repeatable); --jobs:
# runs at once (default 2); --openssl-tree: the OpenSSL 3.5 tree (test/build-openssl.sh) whose
# libcrypto and default provider the gcmsiv target runs against (GCM-SIV exists in the default
# provider from 3.2 on); without one, test/build-openssl.sh's (cached, or built), and with
# --no-openssl35 none: the gcmsiv runs are then skipped. The ctr and gcm targets run against the system libcrypto (3.0 on
# Debian 12). Prints one line per run (executions, result) and ends with "N passed, N failed,
# N skipped"; writes the same as JSON lines (Meson's testlog format, which test/run.sh's summary
# reads) to build-fuzz/fuzz-results.json. Exits 1 on any finding (a crash, a sanitizer report,
# a disagreement with the default provider: see the input and log in build-fuzz/fuzz-findings/).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD

secs=60 jobs=2 tree= werror=() no35=0
tiers=() modes=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) secs=$2; shift ;;
    --tier) tiers+=("$2"); shift ;;
    --mode) modes+=("$2"); shift ;;
    --jobs) jobs=$2; shift ;;
    --openssl-tree) tree=$2; shift ;;
    --no-openssl35) no35=1 ;;
    --werror) werror=(--werror) ;;
    *) echo "fuzz/run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ ${#modes[@]} -gt 0 ] || modes=(ctr gcm gcmsiv)
[ "${CI:-}" = true ] && werror=(--werror)

dir=build-fuzz
results=$dir/fuzz-results.json
mkdir -p "$dir"
rm -f "$results"
fail_setup() { # one failed "test" in the results, so that the summary counts it
  echo "fuzz/run.sh: $1" >&2
  printf '{"name": "fuzz-build", "result": "FAIL", "stdout": "%s"}\n' "$1" >"$results"
  echo "0 passed, 1 failed, 0 skipped"
  exit 1
}

if ! command -v clang >/dev/null; then
  fail_setup "no clang (test/install-deps.sh installs clang and libclang-rt-14-dev)"
fi
opts=(-Dfuzz=true -Dtests=false -Dbuildtype=debugoptimized -Db_sanitize=address,undefined
      -Db_lundef=false "${werror[@]}")
if [ -f "$dir/build.ninja" ]; then
  CC=clang meson setup --reconfigure "$dir" "${opts[@]}" >/dev/null || fail_setup "meson setup failed"
else
  CC=clang meson setup "$dir" "${opts[@]}" >/dev/null || fail_setup "meson setup failed"
fi
ninja -C "$dir" >/dev/null || { ninja -C "$dir" || true; fail_setup "the fuzz build failed"; }

if [ -z "$tree" ] && [ $no35 -eq 0 ]; then
  # Returns at once when the tree is cached; builds it otherwise (a few minutes).
  tree=$(test/build-openssl.sh) || tree=
fi

# Tiers: those given, else every tier of this build that the CPU runs (one compiled in that the
# CPU lacks is reported as skipped).
all_tiers=(generic aesni vaes-avx2 vaes-avx512 armv8 armv8-sha3)
[ ${#tiers[@]} -gt 0 ] || tiers=("${all_tiers[@]}")

export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
mkdir -p "$dir/fuzz-findings" "$dir/fuzz-logs"

json() { # json NAME RESULT TEXT
  python3 -c 'import json, sys; print(json.dumps({"name": sys.argv[1], "result": sys.argv[2], "stdout": sys.argv[3]}))' "$@" >>"$results"
}

run_one() { # run_one MODE TIER: one bounded run; its log and, on a finding, the input
  local mode=$1 tier=$2 name="fuzz-$1-$2" log="$dir/fuzz-logs/fuzz-$1-$2.log"
  local corpus="$dir/fuzz-corpus/$mode" env=(AESFAST_KERNEL="$tier" OPENSSL_CONF="$src/$dir/aesfast.cnf")
  mkdir -p "$corpus"
  [ "$mode" = gcmsiv ] && env+=(LD_LIBRARY_PATH="$tree")
  if env "${env[@]}" nice -n 5 "$dir/fuzz/${mode}_fuzz" -max_total_time="$secs" -timeout=30 \
       -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$dir/fuzz-findings/$name-" \
       "$corpus" "fuzz/corpus/$mode" >"$log" 2>&1; then
    echo "ok"
  else
    echo "FAIL"
  fi >"$log.result"
}

planned=()
for mode in "${modes[@]}"; do
  for tier in "${tiers[@]}"; do
    why=$("$dir/fuzz/fuzz_usable" "$tier") && rc=0 || rc=$?
    if [ $rc -ne 0 ]; then
      case "$why" in *"not in this build"*) continue ;; esac
      echo "fuzz-$mode-$tier: skipped: $why"
      json "fuzz-$mode-$tier" SKIP "fuzz-$mode-$tier skipped: $why"
      continue
    fi
    if [ "$mode" = gcmsiv ] && [ -z "$tree" ]; then
      echo "fuzz-$mode-$tier: skipped: no OpenSSL 3.5 tree (the default provider has GCM-SIV from 3.2)"
      json "fuzz-$mode-$tier" SKIP "fuzz-$mode-$tier skipped: no OpenSSL 3.5 tree"
      continue
    fi
    planned+=("$mode:$tier")
  done
done

echo "fuzz/run.sh: ${#planned[@]} runs of ${secs} s, $jobs at a time (ctr, gcm: system libcrypto; gcmsiv: ${tree:-none})"
running=0
for p in "${planned[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  run_one "${p%%:*}" "${p#*:}" &
  running=$((running + 1))
done
wait || true

passed=0 failed=0 skipped=$(grep -c '"SKIP"' "$results" 2>/dev/null || true)
for p in "${planned[@]}"; do
  mode=${p%%:*} tier=${p#*:} name="fuzz-${p%%:*}-${p#*:}"
  log="$dir/fuzz-logs/$name.log"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  res=$(cat "$log.result" 2>/dev/null || echo FAIL)
  if [ "$res" = ok ]; then
    line="$name: ok, ${execs:-0} executions in $secs s"
    passed=$((passed + 1))
    json "$name" OK "$line"
  else
    line="$name: FAILED after ${execs:-?} executions (log $log; input $(ls "$dir/fuzz-findings/$name-"* 2>/dev/null | head -1))"
    failed=$((failed + 1))
    grep -a -m1 -E 'FINDING|ERROR: (AddressSanitizer|libFuzzer|LeakSanitizer)|runtime error' "$log" >&2 || true
    json "$name" FAIL "$line"
  fi
  echo "$line"
done
echo "$passed passed, $failed failed, ${skipped:-0} skipped"
[ "$failed" -eq 0 ]
