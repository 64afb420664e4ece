#!/usr/bin/env bash
# What aesfast does for nginx, end to end: Debian's nginx on loopback, twice, the same binary and
# configuration (worker_processes 1), once with OPENSSL_CONF naming a cnf that loads aesfast next
# to the default provider with "default_properties = ?provider=aesfast" (the "aesfast" side), once
# with a cnf of the default provider alone (the "default" side). The clients (curl, h2load) run on
# the default provider alone, the same for both sides: only the server's record encryption differs.
#
# For each suite (TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384 on TLS 1.3,
# ECDHE-ECDSA-AES128-GCM-SHA256 on TLS 1.2; an ECDSA P-256 certificate made here), both servers
# up at once, on PORT and PORT+1, each offering only that suite:
#   - bulk: curl downloads a file from tmpfs (/dev/shm) over one connection, --chunk-mib at a
#     time, the sides taking turns chunk by chunk (who goes first alternates), until each side
#     has sent --bulk-mib: the nginx worker's CPU seconds per GiB (utime + stime from
#     /proc/PID/stat, 10 ms ticks) and the wall-clock GB/s of the transfers;
#   - small responses: h2load (nghttp2-client) over 8 keep-alive HTTP/1.1 connections fetching a
#     1 KiB and a 16 KiB body for --small-seconds, --rounds times per side, alternating: requests
#     per CPU-second of the nginx worker.
# Every figure is a total over the turns of a side; the ratio is aesfast / default of a "more is
# better" figure (GiB per CPU-second, GB/s, requests per CPU-second), and in brackets the smallest
# and largest ratio of single turns (the noise of a shared machine).
#
# Checks, each fatal (the script says what and exits 1), before the timed runs and after them:
# every file the clients fetched hashes to its sha256 (hashed downloads, outside the timing); the
# clients negotiated the suite asked for; h2load's requests all succeeded; the aesfast side's nginx
# log holds aesfast's key-setup line for the suite's cipher (AESFAST_DEBUG=1, nginx's error log)
# from the worker's pid, and the default side's log no aesfast line at all.
#
#   bench/tls.sh [--module build/aesfast.so] [--port 18443] [--bulk-mib 2048] [--chunk-mib 512]
#                [--rounds 3] [--small-seconds 2] [--csv FILE]
#
# Refuses to start if PORT or PORT+1 is in use. Every server runs under `timeout` in its own
# process group and is stopped on any exit (trap: TERM, then KILL to the group). Not covered:
# KTLS (`ssl_conf_command Options KTLS` with sendfile), which moves the record encryption into the
# kernel and past any provider; HTTP/2; the handshake (the default provider's either way).
set -euo pipefail
caller=$PWD # relative --module and --csv paths are the caller's
cd "$(dirname "$0")/.."
. test/lib.sh

module=$PWD/build/aesfast.so port=18443 bulk_mib=2048 chunk_mib=512 rounds=3 small_seconds=2 csv=
while [ $# -gt 0 ]; do
  case "$1" in
    --module | --port | --bulk-mib | --chunk-mib | --rounds | --small-seconds | --csv)
      [ $# -ge 2 ] || { echo "bench/tls.sh: $1 needs a value" >&2; exit 2; }
      v=$2
      case "$1" in
        --module) module=$v ;; --port) port=$v ;; --bulk-mib) bulk_mib=$v ;;
        --chunk-mib) chunk_mib=$v ;; --rounds) rounds=$v ;; --small-seconds) small_seconds=$v ;;
        --csv) csv=$v ;;
      esac
      shift ;;
    *) echo "bench/tls.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
for n in "$port" "$bulk_mib" "$chunk_mib" "$rounds" "$small_seconds"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "bench/tls.sh: not a positive number: $n" >&2; exit 2; }
done
case $module in /*) ;; *) module=$caller/$module ;; esac
case $csv in '' | /*) ;; *) csv=$caller/$csv ;; esac
[ $((bulk_mib % chunk_mib)) -eq 0 ] || { echo "bench/tls.sh: --bulk-mib is not a multiple of --chunk-mib" >&2; exit 2; }

die() { echo "bench/tls.sh: FAIL: $*" >&2; exit 1; }
nginx=$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)
[ -x "$nginx" ] || die "no nginx (apt-get install nginx)"
for p in curl h2load openssl sha256sum timeout ps; do
  command -v $p >/dev/null || die "no $p (test/install-deps.sh --bench installs what this needs)"
done
[ -f "$module" ] || die "no module at $module (ninja -C build)"
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for p in "$port" $((port + 1)); do
  if port_open "$p"; then
    echo "bench/tls.sh: port $p on 127.0.0.1 is in use: give another with --port" >&2
    exit 2
  fi
done
[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] || die "/dev/shm is not a tmpfs"
unset OPENSSL_CONF OPENSSL_MODULES AESFAST_DEBUG http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy

tmp=$(mktemp -d /dev/shm/aesfast-tls.XXXXXX)
pids=()
stop_servers() {
  stop_process_groups "${pids[@]}"
  pids=()
}
trap 'stop_servers; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP

sides=(aesfast default)
write_cnf "$tmp/aesfast.cnf" aesfast "$module" "?provider=aesfast"
write_cnf "$tmp/default.cnf" default ""
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
  -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -keyout "$tmp/key.pem" -out "$tmp/cert.pem" \
  >"$tmp/req.log" 2>&1 || { cat "$tmp/req.log" >&2; die "openssl req"; }
mkdir -p "$tmp/www"
head -c $((chunk_mib * 1024 * 1024)) /dev/urandom >"$tmp/www/bulk"
head -c 1024 /dev/urandom >"$tmp/www/1k"
head -c 16384 /dev/urandom >"$tmp/www/16k"
declare -A want
for f in bulk 1k 16k; do want[$f]=$(sha256sum "$tmp/www/$f" | cut -d' ' -f1); done

# start_nginx SIDE PORT SUITE TLSVER: nginx for one side, offering one suite; sets master[SIDE].
declare -A master worker
start_nginx() {
  local side=$1 p=$2 suite=$3 ver=$4 d=$tmp/nginx-$1 protos ciphers
  rm -rf "$d"
  mkdir -p "$d/tmp"
  if [ "$ver" = 1.3 ]; then
    protos=TLSv1.3 ciphers="ssl_conf_command Ciphersuites $suite;"
  else
    protos=TLSv1.2 ciphers="ssl_ciphers $suite;"
  fi
  {
    [ "$(id -u)" -eq 0 ] && echo "user root;"   # the worker reads the files in $tmp (mode 700)
    cat <<EOF
daemon off;
master_process on;
worker_processes 1;
pid $d/nginx.pid;
error_log $d/error.log notice;
env OPENSSL_CONF;
env AESFAST_DEBUG;
env AESFAST_KERNEL;
events { worker_connections 256; }
http {
  access_log off;
  default_type application/octet-stream;
  keepalive_requests 1000000;
  client_body_temp_path $d/tmp/body;
  proxy_temp_path $d/tmp/proxy;
  fastcgi_temp_path $d/tmp/fastcgi;
  uwsgi_temp_path $d/tmp/uwsgi;
  scgi_temp_path $d/tmp/scgi;
  server {
    listen 127.0.0.1:$p ssl;
    server_name localhost;
    ssl_certificate $tmp/cert.pem;
    ssl_certificate_key $tmp/key.pem;
    ssl_protocols $protos;
    $ciphers
    ssl_session_tickets off;
    root $tmp/www;
  }
}
EOF
  } >"$d/nginx.conf"
  (cd "$d" && AESFAST_DEBUG=1 OPENSSL_CONF=$tmp/$side.cnf exec timeout -k 3 1800 "$nginx" -p "$d" \
     -c "$d/nginx.conf" -e "$d/error.log") </dev/null >"$d/stdout" 2>"$d/stderr" &
  pids+=($!)
  for _ in $(seq 100); do
    if port_open "$p" && [ -s "$d/nginx.pid" ]; then
      master[$side]=$(cat "$d/nginx.pid")
      worker[$side]=$(ps -o pid= --ppid "${master[$side]}" | tr -d ' ' | head -n1)
      [ -n "${worker[$side]}" ] && return 0
    fi
    sleep 0.1
  done
  cat "$d/stderr" "$d/error.log" >&2 2>/dev/null || true
  die "nginx ($side, port $p) did not come up"
}
cpu_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
now_ns() { date +%s%N; }
tick=$(getconf CLK_TCK)

# client_opts VER SUITE: sets copts (curl) and hopts (h2load) to that suite only.
client_opts() {
  if [ "$1" = 1.3 ]; then
    copts=(--tlsv1.3 --tls13-ciphers "$2") hopts=(--tls13-ciphers="$2")
  else
    copts=(--tlsv1.2 --tls-max 1.2 --ciphers "$2") hopts=(--ciphers="$2")
  fi
}
fetch() { # fetch PORT FILE [CURL_ARGS...]: the file's body on stdout
  local p=$1 f=$2
  shift 2
  OPENSSL_CONF=$tmp/default.cnf curl -sS --fail --noproxy '*' --cacert "$tmp/cert.pem" \
    --resolve "localhost:$p:127.0.0.1" "${copts[@]}" "$@" "https://localhost:$p/$f"
}

# verify SIDE PORT SUITE VER CIPHER [record]: the hashed downloads, the negotiated suite, the proof
# lines (kept for the summary with "record"). Before the timed runs, and after them.
verify() {
  local side=$1 p=$2 suite=$3 ver=$4 alg=$5 record=${6:-} f got d=$tmp/nginx-$1 lines
  for f in bulk 1k 16k; do
    got=$(fetch "$p" "$f" -v 2>"$tmp/curl.err" | sha256sum | cut -d' ' -f1)
    [ "$got" = "${want[$f]}" ] || die "$suite $side: /$f hashes to $got, want ${want[$f]}"
    grep -Eq "SSL connection using TLSv$ver / $suite( /|\$)" "$tmp/curl.err" \
      || { grep 'SSL connection' "$tmp/curl.err" >&2 || true; die "$suite $side: curl did not negotiate TLSv$ver / $suite"; }
  done
  cat "$d/stderr" "$d/error.log" >"$d/all.log" 2>/dev/null || true
  if [ "$side" = aesfast ]; then
    lines=$(grep -E " pid ${worker[$side]} aesfast: $alg: key setup on kernel " "$d/all.log" || true)
    [ -n "$lines" ] || { grep aesfast "$d/all.log" | head >&2 || true; die "$suite aesfast: no \"aesfast: $alg: key setup\" line from the nginx worker (pid ${worker[$side]})"; }
    [ -z "$record" ] || proof+=("$suite, aesfast side: $(wc -l <<<"$lines") key-setup lines from worker pid ${worker[$side]}, e.g. \"$(head -n1 <<<"$lines")\"")
  else
    ! grep -q 'aesfast' "$d/all.log" || { grep aesfast "$d/all.log" | head >&2 || true; die "$suite default: aesfast lines in the default side's log"; }
    [ -z "$record" ] || proof+=("$suite, default side: no aesfast line in nginx's log")
  fi
}

sum() { tr ' ' '\n' <<<"$1" | awk '{ s += $1 } END { print s + 0 }'; }
# ratio A B: A / B with 2 decimals
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
# range LIST_A LIST_B: "min-max" of the per-turn ratios a_i / b_i
range() {
  paste -d' ' <(tr ' ' '\n' <<<"$1") <(tr ' ' '\n' <<<"$2") | awk '$2 > 0 { r = $1 / $2;
    if (n++ == 0 || r < lo) lo = r; if (n == 1 || r > hi) hi = r }
    END { if (n) printf "%.2f-%.2f", lo, hi; else print "-" }'
}

suites=(
  "TLS_AES_128_GCM_SHA256 1.3 AES-128-GCM"
  "TLS_AES_256_GCM_SHA384 1.3 AES-256-GCM"
  "ECDHE-ECDSA-AES128-GCM-SHA256 1.2 AES-128-GCM"
)
proof=() rows=()
echo "bench/tls.sh: $("$nginx" -v 2>&1), $(openssl version), $(curl --version | head -n1 | cut -d' ' -f1,2), $(h2load --version | head -n1)"
echo "bench/tls.sh: $(nproc) CPUs; bulk ${bulk_mib} MiB per side and suite in ${chunk_mib} MiB turns; small responses ${rounds} x ${small_seconds} s per side, size and suite"
[ -z "$csv" ] || echo "suite,side,bulk_cpu_s_per_gib,bulk_wall_gb_s,req_per_cpu_s_1k,req_per_cpu_s_16k" >"$csv"
start=$SECONDS
for s in "${suites[@]}"; do
  read -r suite ver alg <<<"$s"
  client_opts "$ver" "$suite"
  start_nginx aesfast "$port" "$suite" "$ver"
  start_nginx default $((port + 1)) "$suite" "$ver"
  declare -A sport=([aesfast]=$port [default]=$((port + 1)))
  for side in "${sides[@]}"; do verify "$side" "${sport[$side]}" "$suite" "$ver" "$alg"; done

  # bulk: per-turn CPU ticks and wall ns, per side
  declare -A bcpu=() bns=() bticks=() bwall=()
  turns=$((bulk_mib / chunk_mib))
  for ((i = 0; i < turns; i++)); do
    order=("${sides[@]}")
    [ $((i % 2)) -eq 0 ] || order=(default aesfast)
    for side in "${order[@]}"; do
      c0=$(cpu_ticks "${worker[$side]}") t0=$(now_ns)
      fetch "${sport[$side]}" bulk -o /dev/null
      t1=$(now_ns) c1=$(cpu_ticks "${worker[$side]}")
      bticks[$side]+="$((c1 - c0)) " bwall[$side]+="$((t1 - t0)) "
    done
  done

  # small responses: requests per worker CPU-second
  declare -A sreq=() scpu=()
  for f in 1k 16k; do
    for ((i = 0; i < rounds; i++)); do
      order=("${sides[@]}")
      [ $((i % 2)) -eq 0 ] || order=(default aesfast)
      for side in "${order[@]}"; do
        c0=$(cpu_ticks "${worker[$side]}")
        OPENSSL_CONF=$tmp/default.cnf h2load --h1 -c 8 -t 1 -D "$small_seconds" "${hopts[@]}" \
          "https://127.0.0.1:${sport[$side]}/$f" >"$tmp/h2load.out" 2>&1 \
          || { cat "$tmp/h2load.out" >&2; die "$suite $side: h2load failed"; }
        c1=$(cpu_ticks "${worker[$side]}")
        grep -q "^TLS Protocol: TLSv$ver\$" "$tmp/h2load.out" && grep -q "^Cipher: $suite\$" "$tmp/h2load.out" \
          || { grep -E '^(TLS Protocol|Cipher):' "$tmp/h2load.out" >&2 || true; die "$suite $side: h2load did not negotiate TLSv$ver / $suite"; }
        total= ok= failed= errored= n2xx= nbad=
        read -r total ok failed errored < <(sed -n 's/^requests: \([0-9]*\) total, .* \([0-9]*\) succeeded, \([0-9]*\) failed, \([0-9]*\) errored.*/\1 \2 \3 \4/p' "$tmp/h2load.out") || true
        # (In -D mode h2load may count one 2xx more than it counts done: a response that came
        # in as the window closed.)
        read -r n2xx nbad < <(sed -n 's/^status codes: \([0-9]*\) 2xx, \([0-9]*\) 3xx, \([0-9]*\) 4xx, \([0-9]*\) 5xx.*/\1 \2+\3+\4/p' \
          "$tmp/h2load.out") || true
        [ -n "${ok:-}" ] && [ "$ok" -gt 0 ] && [ "$failed" -eq 0 ] && [ "$errored" -eq 0 ] \
          && [ -n "${n2xx:-}" ] && [ "$n2xx" -ge "$ok" ] && [ $((nbad)) -eq 0 ] \
          || { grep -E '^(requests|status codes):' "$tmp/h2load.out" >&2 || true; die "$suite $side /$f: not every request succeeded with 2xx"; }
        sreq[$side$f]+="$ok " scpu[$side$f]+="$((c1 - c0)) "
      done
    done
  done

  for side in "${sides[@]}"; do verify "$side" "${sport[$side]}" "$suite" "$ver" "$alg" record; done
  stop_servers

  # Totals per side, then the ratios.
  declare -A gib_per_cpu gbs rpc1 rpc16
  for side in "${sides[@]}"; do
    tk=$(sum "${bticks[$side]}") ns=$(sum "${bwall[$side]}")
    [ "$tk" -gt 0 ] || die "$suite $side: the worker used no measurable CPU time"
    gib_per_cpu[$side]=$(awk -v m="$bulk_mib" -v t="$tk" -v hz="$tick" 'BEGIN { printf "%.4f", (m / 1024) / (t / hz) }')
    gbs[$side]=$(awk -v m="$bulk_mib" -v ns="$ns" 'BEGIN { printf "%.3f", m * 1048576 / ns }')
    rpc1[$side]=$(awk -v r="$(sum "${sreq[${side}1k]}")" -v t="$(sum "${scpu[${side}1k]}")" -v hz="$tick" 'BEGIN { printf "%.0f", (t > 0 ? r / (t / hz) : 0) }')
    rpc16[$side]=$(awk -v r="$(sum "${sreq[${side}16k]}")" -v t="$(sum "${scpu[${side}16k]}")" -v hz="$tick" 'BEGIN { printf "%.0f", (t > 0 ? r / (t / hz) : 0) }')
    cpu_per_gib=$(awk -v g="${gib_per_cpu[$side]}" 'BEGIN { printf "%.3f", 1 / g }')
    rows+=("$(printf '%-30s %-8s %12s %10s %14s %14s' "$suite" "$side" "$cpu_per_gib" "${gbs[$side]}" "${rpc1[$side]}" "${rpc16[$side]}")")
    [ -z "$csv" ] || echo "$suite,$side,$cpu_per_gib,${gbs[$side]},${rpc1[$side]},${rpc16[$side]}" >>"$csv"
  done
  # Per-turn ratios: GiB per CPU-s is chunk / ticks, so aesfast/default = ticks_default / ticks_aesfast.
  r_cpu="$(ratio "${gib_per_cpu[aesfast]}" "${gib_per_cpu[default]}")x ($(range "${bticks[default]}" "${bticks[aesfast]}"))"
  r_gbs="$(ratio "${gbs[aesfast]}" "${gbs[default]}")x ($(range "${bwall[default]}" "${bwall[aesfast]}"))"
  per_turn() { # requests per tick, per turn, of side+size
    paste -d' ' <(tr ' ' '\n' <<<"${sreq[$1]}") <(tr ' ' '\n' <<<"${scpu[$1]}") \
      | awk 'NF == 2 && $2 > 0 { printf "%s ", $1 / $2 }'
  }
  r_1k="$(ratio "${rpc1[aesfast]}" "${rpc1[default]}")x ($(range "$(per_turn aesfast1k)" "$(per_turn default1k)"))"
  r_16k="$(ratio "${rpc16[aesfast]}" "${rpc16[default]}")x ($(range "$(per_turn aesfast16k)" "$(per_turn default16k)"))"
  rows+=("$(printf '%-30s %-8s %12s %10s %14s %14s' "" "ratio" "$r_cpu" "$r_gbs" "$r_1k" "$r_16k")")
  unset bticks bwall sreq scpu gib_per_cpu gbs rpc1 rpc16 sport
done

echo
printf '%-30s %-8s %12s %10s %14s %14s\n' suite side "CPU s/GiB" "wall GB/s" "1 KiB req/CPU-s" "16 KiB req/CPU-s"
printf '%s\n' "${rows[@]}"
echo
echo "ratio: aesfast / default of GiB per CPU-second, GB/s and requests per CPU-second (more is"
echo "better), in brackets the smallest and largest ratio of single turns"
printf 'proof: %s\n' "${proof[@]}"
echo "bench/tls.sh: every download hashed to its file's sha256 on both sides; $((SECONDS - start)) s"
