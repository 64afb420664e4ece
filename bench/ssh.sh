#!/usr/bin/env bash
# What aesfast does for OpenSSH, end to end: Debian's sshd and ssh (system OpenSSL 3.0) on
# loopback, the same binaries and configuration twice: the "aesfast" side, client and server with
# OPENSSL_CONF naming a cnf that loads aesfast next to the default provider with
# "default_properties = ?provider=aesfast", and the "default" side, both with a cnf of the default
# provider alone. Two sshd run at once, one per side (throwaway keys, a scratch folder on tmpfs,
# run by this user: as root, PermitRootLogin yes; see test/ssh_lib.sh).
#
# For each cipher (aes128-gcm@openssh.com, aes256-gcm@openssh.com, aes128-ctr, aes256-ctr, and
# chacha20-poly1305@openssh.com, which aesfast does not offer: the control, whose ratio is the
# noise figure), each side opens one connection (an ssh ControlMaster) and then uploads --mib MiB
# from tmpfs --turns times over it (`ssh -S SOCKET HOST wc -c < FILE`: the master, which takes
# the file's descriptor, encrypts; the server's session process decrypts; OpenSSH's default MAC
# for CTR, umac-64-etm@openssh.com; its default rekeying), the sides taking turns and who goes
# first alternating. So the figures are the bulk's alone: no process start, key exchange or
# authentication in them. Measured per transfer, as CPU time (user + system, in ns) from
# /proc/PID/schedstat (/proc/PID/stat's utime + stime, in clock ticks, where there is none):
#   - client: the master ssh process;
#   - server: the connection's sshd (for root the session process itself; for another user, its
#     post-auth child is added), without the session's `wc -c`;
#   - wall time.
# Reported: CPU seconds per GiB per side (total over the turns), and the ratio default / aesfast
# (more than 1: aesfast spends less), with in brackets the smallest and largest ratio of single
# turns. The machine is shared and noisy: read the chacha20 row first.
#
# Checks, each fatal (exit 1), before the timed runs: each side and cipher moves 1 MiB and some
# bytes, hashed by the server (`sha256sum`); on the aesfast side, with AESFAST_DEBUG on both
# ends, aesfast's key setup of the cipher is the line before each of OpenSSH's "rekey in|out
# after" lines of the client and of the server's session process (for chacha20-poly1305, none
# is); on the default side, no aesfast line at all. During the timed runs every transfer must
# report its byte count back (`wc -c`).
#
#   bench/ssh.sh [--module build/aesfast.so] [--mib 256] [--turns 4] [--ciphers "C1 C2 ..."]
#                [--csv FILE]
#   e.g. bench/ssh.sh --mib 1024 --turns 8   for steadier figures (~8x as long)
#
# The servers run under `timeout` in their own process groups and are stopped on any exit.
set -euo pipefail
caller=$PWD
cd "$(dirname "$0")/.."
# shellcheck source=test/lib.sh
. test/lib.sh
# shellcheck source=test/ssh_lib.sh
. test/ssh_lib.sh

module=$PWD/build/aesfast.so mib=256 turns=4 csv=
ciphers="aes128-gcm@openssh.com aes256-gcm@openssh.com aes128-ctr aes256-ctr chacha20-poly1305@openssh.com"
while [ $# -gt 0 ]; do
  case "$1" in
    --module | --mib | --turns | --ciphers | --csv)
      [ $# -ge 2 ] || { echo "bench/ssh.sh: $1 needs a value" >&2; exit 2; }
      case "$1" in
        --module) module=$2 ;; --mib) mib=$2 ;; --turns) turns=$2 ;; --ciphers) ciphers=$2 ;;
        --csv) csv=$2 ;;
      esac
      shift ;;
    *) echo "bench/ssh.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
for n in "$mib" "$turns"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "bench/ssh.sh: not a positive number: $n" >&2; exit 2; }
done
case $module in /*) ;; *) module=$caller/$module ;; esac
case $csv in '' | /*) ;; *) csv=$caller/$csv ;; esac
read -r -a ciphers <<<"$ciphers"
for c in "${ciphers[@]}"; do
  [ "$(ssh_alg_of "$c")" != "?" ] || { echo "bench/ssh.sh: unknown cipher $c" >&2; exit 2; }
done

die() { echo "bench/ssh.sh: FAIL: $*" >&2; exit 1; }
why=$(ssh_find) || die "$why"
ssh_find
for p in sha256sum timeout getconf; do command -v $p >/dev/null || die "no $p"; done
[ -f "$module" ] || die "no module at $module (ninja -C build)"
[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] || die "/dev/shm is not a tmpfs"
unset OPENSSL_CONF OPENSSL_MODULES AESFAST_DEBUG SSH_AUTH_SOCK
tick=$(getconf CLK_TCK)

tmp=$(mktemp -d /dev/shm/aesfast-ssh.XXXXXX)
pgroups=()
declare -A mpid spids
stop_servers() {
  local p
  for p in "${mpid[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  stop_process_groups "${pgroups[@]}"
  pgroups=()
}
trap 'stop_servers; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP

sides=(aesfast default)
declare -A cnf=([aesfast]=$tmp/aesfast.cnf [default]=$tmp/default.cnf)
write_cnf "${cnf[aesfast]}" aesfast "$module" "?provider=aesfast"
write_cnf "${cnf[default]}" default ""
ssh_keys "$tmp" || die "ssh-keygen"
head -c $((mib * 1024 * 1024)) /dev/urandom >"$tmp/bulk"
head -c $((1024 * 1024 + 12345)) /dev/urandom >"$tmp/small"
want_small=$(sha256sum <"$tmp/small" | cut -d' ' -f1)

declare -A port
for side in "${sides[@]}"; do
  ok=0
  for _ in 1 2 3; do
    port[$side]=$(free_port)
    ssh_sshd_config "$tmp" "srv-$side" "${port[$side]}" DEBUG1
    r=0
    ssh_start "$tmp" "srv-$side" "${cnf[$side]}" 3600 "AESFAST_DEBUG=file:$tmp/srv-$side.log" || r=$?
    pgroups+=("$ssh_timeout_pid")
    [ $r -eq 0 ] && { ok=1; break; }
    [ $r -eq 2 ] || break
  done
  [ $ok -eq 1 ] || { tail -n 20 "$tmp/srv-$side.log" >&2; die "sshd ($side) did not come up"; }
done

# cpu_ns PID...: the CPU time (ns) of these processes, summed.
if [ -r /proc/self/schedstat ]; then
  cpu_ns() { local p; for p; do cat "/proc/$p/schedstat"; done | awk '{ s += $1 } END { printf "%.0f", s }'; }
  cpu_src="/proc/PID/schedstat"
else
  cpu_ns() {
    local p; for p; do cat "/proc/$p/stat"; done \
      | awk -v hz="$tick" '{ sub(/^.*\) /, ""); s += $12 + $13 } END { printf "%.0f", s * 1e9 / hz }'
  }
  cpu_src="/proc/PID/stat utime + stime, ${tick} Hz"
fi

# transfer SIDE CIPHER FILE REMOTE_CMD OUT [CLIENT_ENV...]: one connection of its own that uploads
# FILE and runs REMOTE_CMD, its stdout to OUT, the client's -v log appended to client.log; the
# server's log lines of it in slice (read once the connection's sshd has ended).
transfer() {
  local side=$1 c=$2 file=$3 cmd=$4 out=$5 from conn
  shift 5
  ssh_opts "$tmp" "${port[$side]}" "$c"
  from=$(($(wc -l <"$tmp/srv-$side.log") + 1))
  env OPENSSL_CONF="${cnf[$side]}" "$@" timeout -k 3 120 "$ssh" -v "${ssh_o[@]}" 127.0.0.1 "$cmd" \
    <"$file" >"$out" 2>>"$tmp/client.log" || { tail -n 20 "$tmp/client.log" >&2; die "$side $c: ssh failed"; }
  conn=$(ssh_conn_pid "$tmp/srv-$side.log" "$from")
  [ -n "$conn" ] || die "$side $c: no connection pid in sshd's log"
  ssh_wait_gone "$conn" 30 || die "$side $c: the connection's sshd (pid $conn) did not end"
  tail -n "+$from" "$tmp/srv-$side.log" >"$tmp/slice"
}

# master_start SIDE CIPHER: the side's ControlMaster for CIPHER (socket $tmp/cm-SIDE); sets
# mpid[SIDE] (the master ssh) and spids[SIDE] (the server's connection sshd, and its post-auth
# child where there is one).
master_start() {
  local side=$1 c=$2 from conn kids
  ssh_opts "$tmp" "${port[$side]}" "$c"
  rm -f "$tmp/cm-$side"
  from=$(($(wc -l <"$tmp/srv-$side.log") + 1))
  OPENSSL_CONF="${cnf[$side]}" "$ssh" -M -S "$tmp/cm-$side" -N "${ssh_o[@]}" 127.0.0.1 \
    </dev/null >/dev/null 2>"$tmp/master-$side.log" &
  mpid[$side]=$!
  for _ in $(seq 100); do
    "$ssh" -S "$tmp/cm-$side" -O check 127.0.0.1 >/dev/null 2>&1 && break
    kill -0 "${mpid[$side]}" 2>/dev/null || break
    sleep 0.1
  done
  "$ssh" -S "$tmp/cm-$side" -O check 127.0.0.1 >/dev/null 2>&1 \
    || { cat "$tmp/master-$side.log" >&2; die "$side $c: the master connection did not come up"; }
  conn=$(ssh_conn_pid "$tmp/srv-$side.log" "$from")
  [ -n "$conn" ] || die "$side $c: no connection pid in sshd's log"
  kids=$(ps -o pid=,comm= --ppid "$conn" 2>/dev/null | awk '$2 == "sshd" { printf "%s ", $1 }') || true
  spids[$side]="$conn ${kids% }"
}
master_stop() {
  "$ssh" -S "$tmp/cm-$1" -O exit 127.0.0.1 >/dev/null 2>&1 || true
  wait "${mpid[$1]}" 2>/dev/null || true
}

echo "bench/ssh.sh: $("$ssh" -V 2>&1), $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)"
echo "bench/ssh.sh: ${turns} turns of ${mib} MiB per side and cipher, uploads (client encrypts, server decrypts)"

# The checks before the timed runs.
proof=()
for c in "${ciphers[@]}"; do
  alg=$(ssh_alg_of "$c")
  for side in "${sides[@]}"; do
    : >"$tmp/client.log"
    transfer "$side" "$c" "$tmp/small" sha256sum "$tmp/sum" "AESFAST_DEBUG=file:$tmp/client.log"
    [ "$(cut -d' ' -f1 "$tmp/sum")" = "$want_small" ] || die "$side $c: the server's sha256 of the upload differs"
    grep -q "^debug1: kex: client->server cipher: $c " "$tmp/client.log" || die "$side $c: not negotiated"
    if [ "$side" = default ]; then
      ! grep -q ' aesfast: ' "$tmp/client.log" "$tmp/slice" || die "$side $c: aesfast lines on the default side"
      continue
    fi
    for end in client server; do
      log=$tmp/client.log
      [ $end = server ] && log=$tmp/slice
      if [ "$alg" = - ]; then
        k=$(ssh_keyings "$log" '[^ ]+')
        ! grep -q '^ok' <<<"$k" || die "$c: aesfast keyed the $end's $c"
        grep -q '^miss' <<<"$k" || die "$c: no keying in the $end's log"
      else
        k=$(ssh_keyings "$log" "$alg")
        if grep -q '^miss' <<<"$k" || ! grep -q '^ok' <<<"$k"; then
          grep ' aesfast: ' "$log" | head -n5 >&2 || true
          die "$c: not every keying of the $end was aesfast's $alg key setup"
        fi
        [ "$(awk '{ print $2 }' <<<"$k" | sort -u | wc -l)" -eq 1 ] || die "$c: the $end's keyings from several pids"
      fi
    done
    if [ "$alg" = - ]; then
      proof+=("$c, aesfast side: no aesfast key setup before any keying (the control)")
    else
      proof+=("$c, aesfast side: aesfast's $alg key setup before every keying, client pid $(ssh_keyings "$tmp/client.log" "$alg" | awk 'NR == 1 { print $2 }'), server session pid $(ssh_keyings "$tmp/slice" "$alg" | awk 'NR == 1 { print $2 }')")
    fi
  done
done
proof+=("default side: no aesfast line in any client's or server's log")
echo "bench/ssh.sh: checks passed (sha256 of each upload; aesfast's key setups on the aesfast side, none on the default side)"

# The timed runs.
declare -A cl sv wall
start=$SECONDS
for c in "${ciphers[@]}"; do
  for side in "${sides[@]}"; do master_start "$side" "$c"; done
  for ((i = 0; i < turns; i++)); do
    order=(aesfast default)
    [ $((i % 2)) -eq 0 ] || order=(default aesfast)
    for side in "${order[@]}"; do
      # shellcheck disable=SC2086
      c0=$(cpu_ns "${mpid[$side]}") s0=$(cpu_ns ${spids[$side]}) t0=$(date +%s%N)
      "$ssh" -S "$tmp/cm-$side" -o ControlMaster=no 127.0.0.1 'wc -c' <"$tmp/bulk" >"$tmp/count" \
        2>"$tmp/mux.log" || { cat "$tmp/mux.log" >&2; die "$side $c: the transfer failed"; }
      # shellcheck disable=SC2086
      t1=$(date +%s%N) c1=$(cpu_ns "${mpid[$side]}") s1=$(cpu_ns ${spids[$side]})
      [ "$(tr -d ' \n' <"$tmp/count")" = $((mib * 1024 * 1024)) ] \
        || die "$side $c: the server counted $(cat "$tmp/count") bytes"
      cl[$c$side]+="$((c1 - c0)) " sv[$c$side]+="$((s1 - s0)) " wall[$c$side]+="$((t1 - t0)) "
    done
  done
  for side in "${sides[@]}"; do master_stop "$side"; done
  printf '  %-30s done\n' "$c"
done
took=$((SECONDS - start))

sum() { tr ' ' '\n' <<<"$1" | awk '{ s += $1 } END { printf "%.6f", s }'; }
# range A B: "min-max" of the per-turn ratios a_i / b_i
range() {
  paste -d' ' <(tr ' ' '\n' <<<"$1") <(tr ' ' '\n' <<<"$2") | awk 'NF == 2 && $2 > 0 { r = $1 / $2;
    if (n++ == 0 || r < lo) lo = r; if (n == 1 || r > hi) hi = r }
    END { if (n) printf "%.2f-%.2f", lo, hi; else print "-" }'
}
gib=$(awk -v m="$mib" -v t="$turns" 'BEGIN { printf "%.6f", m * t / 1024 }')
per_gib() { awk -v s="$1" -v g="$gib" 'BEGIN { printf "%.3f", s / 1e9 / g }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

[ -z "$csv" ] || echo "cipher,client_default_cpu_s_per_gib,client_aesfast_cpu_s_per_gib,client_ratio,server_default_cpu_s_per_gib,server_aesfast_cpu_s_per_gib,server_ratio,default_wall_mb_s,aesfast_wall_mb_s" >"$csv"
echo
echo "| cipher | client CPU s/GiB default | aesfast | ratio (turns) | server CPU s/GiB default | aesfast | ratio (turns) | MB/s default | aesfast |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for c in "${ciphers[@]}"; do
  cd_=$(per_gib "$(sum "${cl[${c}default]}")") ca=$(per_gib "$(sum "${cl[${c}aesfast]}")")
  sd=$(per_gib "$(sum "${sv[${c}default]}")") sa=$(per_gib "$(sum "${sv[${c}aesfast]}")")
  wd=$(awk -v m="$mib" -v t="$turns" -v ns="$(sum "${wall[${c}default]}")" 'BEGIN { printf "%.0f", m * t * 1048576 / (ns / 1e9) / 1e6 }')
  wa=$(awk -v m="$mib" -v t="$turns" -v ns="$(sum "${wall[${c}aesfast]}")" 'BEGIN { printf "%.0f", m * t * 1048576 / (ns / 1e9) / 1e6 }')
  rc=$(ratio "$cd_" "$ca") rs=$(ratio "$sd" "$sa")
  echo "| $c | $cd_ | $ca | ${rc}x ($(range "${cl[${c}default]}" "${cl[${c}aesfast]}")) | $sd | $sa | ${rs}x ($(range "${sv[${c}default]}" "${sv[${c}aesfast]}")) | $wd | $wa |"
  [ -z "$csv" ] || echo "$c,$cd_,$ca,$rc,$sd,$sa,$rs,$wd,$wa" >>"$csv"
done
echo
echo "ratio: default / aesfast of CPU seconds per GiB (more than 1: aesfast spends less), in brackets"
echo "the smallest and largest ratio of single turns; chacha20-poly1305 is not aesfast's: its ratio is"
echo "the noise of this machine. CPU time from $cpu_src: client, the master ssh;"
echo "server, the session's sshd. Each side ${turns} uploads of ${mib} MiB over one connection per cipher."
printf 'proof: %s\n' "${proof[@]}"
echo "bench/ssh.sh: timed runs ${took} s"
