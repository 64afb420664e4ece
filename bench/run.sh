#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine (as root) or a developer's tree: installs what is
# missing, builds aesfast, loads it into OpenSSL, encrypts and decrypts through it, runs
# `openssl speed -evp aes-128-gcm` and `-evp aes-128-gcm-siv` through it, and prints the
# side-by-side benchmark (AES-CTR, AES-GCM, AES-GCM-SIV with aesfast's own AES-GCM beside it)
# against OpenSSL's default provider: the system OpenSSL 3.0 (which has no GCM-SIV: aesfast's
# GCM-SIV figures and GCM-SIV / GCM only) and an OpenSSL 3.5 built from Debian's source package
# (cached after the first run), with the per-message set-ups (rekey, speed, newctx, copy) beside
# seal; `openssl speed -evp aes-128-gcm` run as a user runs it, aesfast against -provider default,
# for both OpenSSLs; Python's cryptography as Debian has it (bench/binding.py); then nginx with
# and without aesfast (bench/tls.sh, a few
# minutes) and OpenSSH with and without aesfast (bench/ssh.sh, a minute or two: CPU per GiB,
# also in build/bench/ssh.csv); and ends by drawing each benchmark's CSV
# (build/bench/bench-openssl-V.csv) as build/bench/bench-openssl-V.svg (bench/plot.sh), GB/s
# against message size per cipher.
#
# --publish also writes the performance pages of this machine's CPU class from this run (and
# from nothing else): it measures the noise (the same benchmark with the default provider on
# both sides), the kernels' cycles per 16 blocks (build/bench/kernels, and --insn for the issue
# costs), keeps bench/tls.sh's table, and hands it all (build/bench/publish/) to
# bench/publish.py, which writes doc/perf/CLASS/ (CSVs, plots of GB/s and of the speedup, the
# kernels, nginx, PROVENANCE.md), the index doc/perf/README.md and README.md's block between
# <!-- perf:begin --> and <!-- perf:end -->. CLASS comes from /proc/cpuinfo (the mapping is in
# bench/publish.py; --class NAME overrides it). The sizes are then 16 B to 1 MiB with 1 KiB and
# 1420 B both, so that the headline has 1 KiB for every cipher. A full run takes 10 to 20 minutes
# on two cores.
# --quick: 3 rounds of 20 ms, 4 sizes (16, 1k, 16k, 1m), short nginx turns: a few minutes, for
# testing the command (the pages say that they come from a quick run).
#
#   bench/run.sh [--no-openssl35] [--no-tls] [--no-ssh] [--quick] [--publish [--class NAME]] [BENCH_ARGS...]
#                                                                 e.g. bench/run.sh --sizes 16,16k
set -euo pipefail
cd "$(dirname "$0")/.."
. test/lib.sh

openssl35=1 tls=1 ssh=1 publish=0 quick=0 class=
args=()
command="bench/run.sh${*:+ $*}"
while [ $# -gt 0 ]; do
  case "$1" in
    --no-openssl35) openssl35=0 ;;
    --no-tls) tls=0 ;;
    --no-ssh) ssh=0 ;;
    --publish) publish=1 ;;
    --quick) quick=1 ;;
    --class) [ $# -ge 2 ] || { echo "bench/run.sh: --class needs a name" >&2; exit 2; }
      class=$2; shift ;;
    --class=*) class=${1#--class=} ;;
    --csv) ;; # always: the CSV is written to a file, and printed as a table
    *) args+=("$1") ;;
  esac
  shift
done
# Given first, so that BENCH_ARGS given on the command line win (bench takes the last one).
quick_args=(--rounds 3 --time-per-round 20)
if [ $quick -eq 1 ]; then
  args=("${quick_args[@]}" --sizes 16,1k,16k,1m "${args[@]}")
elif [ $publish -eq 1 ]; then
  args=(--sizes 16,64,256,1k,1420,8k,16k,1m "${args[@]}")
fi

step() { printf '\n== %s\n' "$*"; }

stage=build/bench/publish
if [ $publish -eq 1 ]; then
  # What the pages record about the start: before anything is built or written.
  command -v python3 >/dev/null || { echo "bench/run.sh: --publish needs python3" >&2; exit 1; }
  grep -q '<!-- perf:begin -->' README.md && grep -q '<!-- perf:end -->' README.md \
    || { echo "bench/run.sh: README.md has no <!-- perf:begin --> / <!-- perf:end --> markers" >&2; exit 1; }
  rm -rf "$stage"
  mkdir -p "$stage"
  dirty_files=$(git status --porcelain 2>/dev/null | awk '{ print $NF }' | tr '\n' ' ')
  {
    echo "command=$command"
    echo "start_epoch=$(date +%s)"
    echo "quick=$quick"
    echo "commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)"
    echo "subject=$(git log -1 --format=%s 2>/dev/null | cut -c1-100)"
    echo "branch=$(git rev-parse --abbrev-ref HEAD 2>/dev/null || echo unknown)"
    echo "dirty=$([ -n "$dirty_files" ] && echo 1 || echo 0)"
    echo "dirty_files=$dirty_files"
    echo "load_start=$(cut -d' ' -f1-3 /proc/loadavg)"
    echo "bench_args=${args[*]}"
  } >"$stage/meta"
  : >"$stage/libcrypto"
fi

step "Installing what is missing"
if [ $openssl35 -eq 1 ]; then test/install-deps.sh --bench --src; else test/install-deps.sh --bench; fi
tree=
if [ $openssl35 -eq 1 ]; then
  tree=$(test/build-openssl.sh)
fi

step "Building aesfast"
if [ -f build/build.ninja ]; then meson setup --reconfigure build >/dev/null
else meson setup build >/dev/null; fi
ninja -C build >/dev/null
export OPENSSL_CONF=$PWD/build/aesfast.cnf

step "Loading it: OPENSSL_CONF=build/aesfast.cnf openssl list -providers"
openssl list -providers
AESFAST_DEBUG=1 openssl list -cipher-algorithms -propquery provider=aesfast 2>&1 \
  | grep -Ei 'aesfast:|(ctr|gcm).*aesfast'

step "Encrypting and decrypting through it: openssl enc -provider aesfast -aes-256-ctr"
msg="attack at dawn: $(date -u +%FT%TZ), $(uname -m)"
key=$(openssl rand -hex 32)
iv=$(openssl rand -hex 16)
enc() { # enc PROVIDER [ARGS...]: AES-256-CTR through that provider only
  openssl enc -provider-path build -provider "$1" -propquery "provider=$1" -aes-256-ctr \
    -K "$key" -iv "$iv" "${@:2}"
}
ct=$(printf '%s' "$msg" | enc aesfast | od -An -tx1 | tr -d ' \n')
ct_default=$(printf '%s' "$msg" | enc default | od -An -tx1 | tr -d ' \n')
pt=$(printf '%s' "$msg" | enc aesfast | enc aesfast -d)
echo "plaintext:           $msg"
echo "ciphertext (aesfast): $ct"
echo "ciphertext (default): $ct_default"
echo "decrypted (aesfast):  $pt"
if [ "$ct" != "$ct_default" ] || [ "$pt" != "$msg" ]; then
  echo "bench/run.sh: aesfast and the default provider disagree" >&2
  exit 1
fi

# speed_check LABEL CIPHER OPENSSL...: `openssl speed -evp CIPHER` (aes-128-gcm: as is and with
# -aead; each is a message per operation, re-keyed: IV length, key and IV init, [13 bytes of AAD
# with -aead,] one update, final; aes-128-gcm-siv: as is, which 3.2+ runs the same way) must run
# and must run on aesfast: a second, short run with AESFAST_DEBUG=1 must log aesfast's key setup
# for CIPHER (not the measured run: every message sets the key up, and a log line each would slow
# it down). OpenSSL 3.0 and 3.1's speed does not know GCM-SIV: it gives a context a second data
# update without the "speed" parameter, which aesfast refuses (a message's data is one update)
# and speed ignores (it re-inits and counts the call): it runs on aesfast, but its figure counts
# refused calls, so none is printed; build/bench/bench measures GCM-SIV on any OpenSSL.
speed_check() {
  local label=$1 cipher=$2 mode out log n modes cnf=/dev/null name
  shift 2
  name=$(printf '%s' "$cipher" | tr a-z A-Z)
  local popts=(-provider-path build -provider aesfast -provider default)
  if "$@" speed -help 2>&1 | grep -q -- '-propquery'; then
    popts+=(-propquery provider=aesfast)
  else # no -propquery: the same preference through a cnf's default properties (a "?" one:
       # a hard "provider=aesfast" would leave libcrypto without a random generator)
    cnf=build/aesfast-speed.cnf
    write_cnf "$cnf" aesfast "$PWD/build/aesfast.so" "?provider=aesfast"
    popts=()
  fi
  case "$cipher" in *-siv) modes=("") ;; *) modes=("" -aead) ;; esac
  for mode in "${modes[@]}"; do
    out=$(OPENSSL_CONF=$cnf "$@" speed -seconds 1 -bytes 16384 "${popts[@]}" -evp "$cipher" \
          $mode 2>&1) || { printf '%s\n' "$out" >&2; echo "bench/run.sh: openssl speed failed" >&2; return 1; }
    n=$(printf '%s\n' "$out" | awk -v c="$name" '$1 == c && $2 ~ /k$/ { print $2 }' | tail -n1)
    [ -n "$n" ] || { printf '%s\n' "$out" >&2; echo "bench/run.sh: no $name figure" >&2; return 1; }
    # The first 50 lines of its stderr are enough (and `head` exiting ends the run early).
    log=$(set +o pipefail; OPENSSL_CONF=$cnf AESFAST_DEBUG=1 "$@" speed -seconds 1 -bytes 16384 \
          "${popts[@]}" -evp "$cipher" $mode 2>&1 >/dev/null | head -n 50)
    if ! printf '%s\n' "$log" | grep -q " aesfast: $name: key setup"; then
      printf '%s\n' "$log" | grep -m5 aesfast >&2 || true
      echo "bench/run.sh: openssl speed ($label) -evp $cipher $mode did not run on aesfast" >&2
      return 1
    fi
    if printf '%s\n' "$log" | grep -q ' aesfast: error: gcm-siv takes the data in one update'; then
      printf '  %-14s %-24s %s\n' "$label" "-evp $cipher${mode:+ $mode}:" \
        "runs on aesfast; no figure: this speed gives a message a second data update, refused"
      continue
    fi
    if printf '%s\n' "$log" | grep -q ' aesfast: error:'; then
      printf '%s\n' "$log" | grep -m5 ' aesfast: error:' >&2
      echo "bench/run.sh: openssl speed ($label) -evp $cipher $mode: aesfast refused calls" >&2
      return 1
    fi
    printf '  %-14s %-24s %s\n' "$label" "-evp $cipher${mode:+ $mode}:" \
      "$(awk -v k="${n%k}" 'BEGIN { printf "%.2f GB/s at 16 KiB (aesfast)", k / 1e6 }')"
  done
}

step "openssl speed through aesfast: -provider aesfast -provider default -propquery provider=aesfast -evp aes-128-gcm [-aead], -evp aes-128-gcm-siv"
for cipher in aes-128-gcm aes-128-gcm-siv; do
  speed_check "$(openssl version | awk '{ print "openssl", $2 }')" $cipher openssl
  if [ -n "$tree" ]; then
    speed_check "$(LD_LIBRARY_PATH=$tree "$tree/apps/openssl" version | awk '{ print "openssl", $2 }')" \
      $cipher env "LD_LIBRARY_PATH=$tree" "$tree/apps/openssl"
  fi
done

# speed_compare LABEL OPENSSL...: `openssl speed -seconds N -evp aes-128-gcm` as a user runs it,
# aesfast's side (-provider-path build -provider aesfast -provider default -propquery
# provider=aesfast; through a cnf's ?provider=aesfast where speed has no -propquery, as
# speed_check) against the default provider's (-provider default), both with no other cnf
# (OPENSSL_CONF=/dev/null), the sides alternating run by run and swapping who goes first each
# round; per size each side's best run (noise only slows a run down), the ratio aesfast / default
# of those, and the smallest and largest ratio of single rounds. speed keys every message (the same
# key throughout): build/bench/bench's "speed" is its loop with a new key each message.
# Writes build/bench/speed-LABEL.csv (size,aesfast_kbps,default_kbps,ratio,ratio_min,ratio_max).
speed_rounds=3 speed_seconds=1
[ $quick -eq 0 ] || speed_rounds=1
speed_compare() {
  local label=$1 r side out line cnf=/dev/null csv raw
  shift
  local popts=(-provider-path build -provider aesfast -provider default)
  if "$@" speed -help 2>&1 | grep -q -- '-propquery'; then
    popts+=(-propquery provider=aesfast)
  else
    cnf=build/aesfast-speed.cnf
    write_cnf "$cnf" aesfast "$PWD/build/aesfast.so" "?provider=aesfast"
    popts=()
  fi
  csv=build/bench/speed-$label.csv
  raw=$(mktemp)
  for r in $(seq "$speed_rounds"); do
    for side in $( [ $((r % 2)) -eq 1 ] && echo aesfast default || echo default aesfast); do
      if [ "$side" = aesfast ]; then
        out=$(OPENSSL_CONF=$cnf "$@" speed -seconds "$speed_seconds" "${popts[@]}" -evp aes-128-gcm 2>&1) \
          || { printf '%s\n' "$out" >&2; rm -f "$raw"; echo "bench/run.sh: openssl speed failed" >&2; return 1; }
      else
        out=$(OPENSSL_CONF=/dev/null "$@" speed -seconds "$speed_seconds" -provider default -evp aes-128-gcm 2>&1) \
          || { printf '%s\n' "$out" >&2; rm -f "$raw"; echo "bench/run.sh: openssl speed failed" >&2; return 1; }
      fi
      line=$(printf '%s\n' "$out" | awk '$1 == "AES-128-GCM" && $2 ~ /k$/' | tail -n1)
      [ -n "$line" ] || { printf '%s\n' "$out" >&2; rm -f "$raw"; echo "bench/run.sh: no AES-128-GCM line" >&2; return 1; }
      echo "$side $r ${line#AES-128-GCM}" | tr -d k >>"$raw"
    done
  done
  printf '  %s, %d rounds of -seconds %d per side: aesfast / default per size (16 B .. 16 KiB)\n' \
    "$label" "$speed_rounds" "$speed_seconds"
  awk 'BEGIN { n = split("16 64 256 1024 8192 16384", sz, " ") }
       { for (i = 1; i <= n; i++) { v[$1, $2, i] = $(i + 2); if ($(i + 2) > best[$1, i]) best[$1, i] = $(i + 2) }
         rounds[$2] = 1 }
       END { print "size,aesfast_kbps,default_kbps,ratio,ratio_min,ratio_max" > csv
             printf "  %8s %14s %14s %7s   %s\n", "bytes", "aesfast GB/s", "default GB/s", "ratio", "min..max"
             for (i = 1; i <= n; i++) {
               lo = 1e9; hi = 0
               for (r in rounds) { x = v["aesfast", r, i] / v["default", r, i]; if (x < lo) lo = x; if (x > hi) hi = x }
               ratio = best["aesfast", i] / best["default", i]
               printf "  %8d %14.3f %14.3f %7.3f   %.3f..%.3f\n", sz[i], best["aesfast", i] / 1e6, best["default", i] / 1e6, ratio, lo, hi
               printf "%d,%.2f,%.2f,%.4f,%.4f,%.4f\n", sz[i], best["aesfast", i], best["default", i], ratio, lo, hi > csv
             } }' csv="$csv" "$raw"
  rm -f "$raw"
  [ $publish -eq 0 ] || cp "$csv" "$stage/"
}

step "openssl speed -evp aes-128-gcm as a user runs it: aesfast (-provider aesfast -provider default -propquery provider=aesfast) against -provider default, alternated"
speed_compare "openssl-$(openssl version | awk '{ print $2 }')" openssl
if [ -n "$tree" ]; then
  speed_compare "openssl-$(LD_LIBRARY_PATH=$tree "$tree/apps/openssl" version | awk '{ print $2 }')" \
    env "LD_LIBRARY_PATH=$tree" "$tree/apps/openssl"
fi

step "Python's cryptography as Debian has it: AESGCM(key).encrypt per message, with and without aesfast (bench/binding.py)"
binding_args=()
[ $quick -eq 0 ] || binding_args=(--rounds 3 --ms 120 --slices 4)
/usr/bin/python3 bench/binding.py --module build/aesfast.so --csv build/bench/binding.csv "${binding_args[@]}"
[ $publish -eq 0 ] || cp build/bench/binding.csv "$stage/"

# bench_csv LABEL [ENV...]: build/bench/bench --csv under that environment into
# build/bench/bench-openssl-VERSION.csv (its header lines to the terminal), printed as a table.
csvs=()
bench_csv() {
  local label=$1 csv
  shift
  step "Benchmark against $label's default provider"
  csv=build/bench/bench-$label.csv
  env "$@" build/bench/bench --csv "${args[@]}" 2>&1 >"$csv" | tee "${csv%.csv}.log" >&2
  awk -F, 'NR == 1 { printf "%-16s %-5s %8s %12s %12s %7s %12s %8s\n", "cipher", "op", "bytes",
                       "aesfast GB/s", "default GB/s", "ratio", "aesfast GCM", "SIV/GCM"; next }
           { printf "%-16s %-5s %8s %12s %12s %7s %12s %8s\n", $1, $2, $3, $4,
                    $5 == "" ? "-" : $5, $6 == "" ? "-" : $6, $7 == "" ? "" : $7, $8 }' "$csv"
  csvs+=("$csv")
}
# publish_lib LABEL system|tree LIBRARY [ENV...]: for --publish, that run's CSV and header to the
# stage, and the noise figure: the same benchmark with the default provider on both sides.
noise_args=(--cipher AES-128-CTR --cipher AES-128-GCM --op bulk,seal --sizes 16,1k,16k,1m)
[ $quick -eq 0 ] || noise_args=("${quick_args[@]}" "${noise_args[@]}")
publish_lib() {
  local label=$1 kind=$2 lib=$3
  shift 3
  [ $publish -eq 1 ] || return 0
  cp "build/bench/bench-$label.csv" "build/bench/bench-$label.log" "$stage/"
  echo "$label|$kind|$lib|$(sed -n 's/^libcrypto: *//p' "build/bench/bench-$label.log")" >>"$stage/libcrypto"
  step "Noise: default against default ($label): build/bench/bench --provider default --reference default ${noise_args[*]}"
  env "$@" build/bench/bench --provider default --reference default --csv --verbose \
    "${noise_args[@]}" >"$stage/noise-$label.csv" 2>"$stage/noise-$label.log" \
    || { cat "$stage/noise-$label.log" >&2; exit 1; }
  awk -F, 'NR > 1 { printf "  %-12s %-5s %8s  default/default %s\n", $1, $2, $3, $6 }' "$stage/noise-$label.csv"
}
syslib=$(ldd build/bench/bench | awk '$1 ~ /^libcrypto\.so/ { print $3 }')
bench_csv "openssl-$(openssl version | awk '{ print $2 }')"
publish_lib "openssl-$(openssl version | awk '{ print $2 }')" system "$syslib"
if [ -n "$tree" ]; then
  bench_csv "openssl-$(LD_LIBRARY_PATH=$tree "$tree/apps/openssl" version | awk '{ print $2 }')" \
    "LD_LIBRARY_PATH=$tree"
  publish_lib \
    "openssl-$(LD_LIBRARY_PATH=$tree "$tree/apps/openssl" version | awk '{ print $2 }')" tree \
    "$(ls "$tree"/libcrypto.so.[0-9]* | head -n1)" "LD_LIBRARY_PATH=$tree"
fi

if [ $publish -eq 1 ]; then
  kfns=ctr,gcm-seal,gcm-open,ghash,siv-seal,siv-open,polyval,set-key,gcm-hkey-few,gcm-hkey-rest,gcm-hkey,siv-keys,siv-keys-few
  kargs=(--fn $kfns --sizes 16k,1m)
  [ $quick -eq 0 ] || kargs=(--fn $kfns --sizes 16k --ms 10
                             --tier "$(sed -n 's/.*(aesfast-kernel: \([^)]*\)).*/\1/p' "${csvs[0]%.csv}.log")")
  step "Kernels, called directly: build/bench/kernels --csv ${kargs[*]}; build/bench/kernels --insn"
  build/bench/kernels --insn | tee "$stage/insn.txt"
  build/bench/kernels --csv "${kargs[@]}" | tee "$stage/kernels.csv"
  echo "kernels_args=${kargs[*]}" >>"$stage/meta"
  echo "noise_args=${noise_args[*]}" >>"$stage/meta"
  echo "cc=$(cc --version | head -n1)" >>"$stage/meta"
  echo "buildtype=$(meson introspect --buildoptions build 2>/dev/null \
    | python3 -c 'import json, sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "buildtype"))' \
    2>/dev/null || echo unknown)" >>"$stage/meta"
fi

if [ $tls -eq 1 ]; then
  step "nginx with and without aesfast: bench/tls.sh (a few minutes)"
  tls_args=()
  [ $quick -eq 0 ] || tls_args=(--bulk-mib 256 --chunk-mib 128 --rounds 1 --small-seconds 1)
  if [ $publish -eq 1 ]; then
    echo "tls_args=${tls_args[*]}" >>"$stage/meta"
    bench/tls.sh --module build/aesfast.so --csv build/bench/tls.csv "${tls_args[@]}" | tee "$stage/tls.txt"
    cp build/bench/tls.csv "$stage/"
  else
    bench/tls.sh --module build/aesfast.so --csv build/bench/tls.csv "${tls_args[@]}"
  fi
fi

if [ $ssh -eq 1 ]; then
  step "OpenSSH with and without aesfast: bench/ssh.sh (a minute or two; more: bench/ssh.sh --mib 1024 --turns 8)"
  ssh_args=()
  [ $quick -eq 0 ] || ssh_args=(--mib 64 --turns 2)
  bench/ssh.sh --module build/aesfast.so --csv build/bench/ssh.csv "${ssh_args[@]}"
fi

step "Plots: GB/s against message size, aesfast (solid) and the default provider (dashed)"
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
for csv in "${csvs[@]}"; do
  name=${csv##*/bench-}
  bench/plot.sh "$csv" "${csv%.csv}.svg" "aesfast vs ${name%.csv} default provider: $cpu, $(nproc) vCPUs, $(date -u +%F)"
done

if [ $publish -eq 1 ]; then
  echo "end_epoch=$(date +%s)" >>"$stage/meta"
  step "Publishing: bench/publish.py --stage $stage${class:+ --class $class}"
  python3 bench/publish.py --stage "$stage" ${class:+--class "$class"}
  git status --short -- doc/perf README.md
fi
