#!/usr/bin/env bash
# SSH test: OpenSSH (Debian's ssh and sshd, linked to the system OpenSSL 3.0) whose transport
# encryption is aesfast's, chosen by nothing but openssl.cnf (default + aesfast,
# default_properties = ?provider=aesfast, the module by its absolute path), as a deployment would
# do it; against ends with the default provider alone.
#
# Two sshd on loopback ports, run by the test's own user (root in CI: PermitRootLogin yes) with
# -D -e -f CNF, a throwaway Ed25519 host key and user key in a scratch folder, UsePAM no,
# StrictModes no: one with OPENSSL_CONF naming the aesfast cnf, one naming a cnf of the default
# provider alone. The matrix: client {default, aesfast} x server {default, aesfast} x aes128-ctr,
# aes192-ctr, aes256-ctr, aes128-gcm@openssh.com, aes256-gcm@openssh.com, each one connection
# with RekeyLimit=1M that runs `tee FILE` on the server: 4 MiB and some bytes (not a multiple of
# 16) go up and come back down, so that both directions rekey several times. Each cell must
# negotiate that cipher both ways, rekey at least twice, and the data must arrive whole both ways
# (the sha256 of FILE, written by the server, and of what came back, against the payload's).
#
# Proof, per process (AESFAST_DEBUG=file:LOG, where LOG is also the process's stderr, which
# carries ssh -v's and sshd -e's own lines: every line of aesfast's log carries its pid, and each
# is one write(2) on an O_APPEND file, so a process's lines keep their order):
#   - OpenSSH logs "rekey in|out after N blocks" right after it keys each direction's cipher
#     (packet.c, ssh_set_newkeys: cipher_init, then that line). On an aesfast end, the line before
#     every such line must be "pid P aesfast: ALG: key setup on kernel K" for the cell's cipher
#     (AES-256-CTR for aes256-ctr, AES-128-GCM for aes128-gcm@openssh.com, ...), all from one
#     pid P: on the client, P is the ssh process's own pid; on the server, the session process
#     (for root: the connection's sshd itself, which imports the keys after authentication, since
#     root logins get no post-auth child; for another user: its post-auth child), never the
#     listener. So every key the session used, the first keys (re-keyed there after
#     authentication) and every rekey after them, was set up by aesfast; all the data of the cell
#     moves after authentication.
#   - Not provable, and not asked: the first key exchange's keys in sshd's pre-auth child (it
#     runs with RLIMIT_FSIZE 0 and a seccomp filter: aesfast writes no line there, rather than
#     die of SIGXFSZ, see provider/errors.c), which carry the authentication only. Counting
#     "AES-256-CTR" lines alone would prove nothing for aes256-ctr: OpenSSH shields the host key
#     in memory with aes256-ctr through EVP (sshkey_shield_private, in the server's processes at
#     every signature), and OpenSSL 3.0's DRBG keys its AES-256-CTR from aesfast too; hence the
#     line-before-"rekey" rule.
#   - On a default end: no aesfast line at all, in the client's log or in the server's.
#   - Before any connection, the aesfast sshd's listener must have loaded aesfast (its pid logs
#     the kernel chosen).
#
#   test/ssh_test.sh MODULE_PATH
#     exit 0 pass, 1 fail, 77 skip (sshd, ssh or another program missing: it says which)
#   AESFAST_KERNEL, if set, passes through, and the key-setup lines must name that kernel.
#   AESFAST_TEST_SSH_MIB (4): MiB per direction and cell; AESFAST_TEST_SSH_CIPHERS: the ciphers,
#   space-separated (default: the five above).
#   AESFAST_TEST_SSH_UNLOAD=client|server: that end's "aesfast" cnf loads the default provider
#   alone (aesfast not loaded): the proof must fail for each cell with that end on "aesfast",
#   nothing else may. `test/ssh_test.sh --self-check MODULE_PATH` runs both and checks just that
#   (one cipher, 2 MiB): the proof is able to fail.
#
# The servers run under `timeout`, each in its own process group, and are stopped at exit (trap:
# TERM, then KILL to the group); each client is bounded by a watchdog.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=test/lib.sh
. "$here/lib.sh"
# shellcheck source=test/ssh_lib.sh
. "$here/ssh_lib.sh"

if [ "${1:-}" = --self-check ]; then
  [ $# -eq 2 ] || { echo "usage: $0 --self-check MODULE_PATH" >&2; exit 2; }
  rc_all=0
  for side in client server; do
    out=$(AESFAST_TEST_SSH_UNLOAD=$side AESFAST_TEST_SSH_MIB=2 \
          AESFAST_TEST_SSH_CIPHERS=aes128-gcm@openssh.com bash "$0" "$2" 2>&1)
    rc=$?
    [ $rc -eq 77 ] && { printf '%s\n' "$out"; exit 77; }
    fails=$(printf '%s\n' "$out" | grep '^FAIL ')
    # The cells whose $side is on "aesfast", and (server) the listener's check: no other failure.
    want='^FAIL (client aesfast x server [a-z]+ [^:]+: client|client [a-z]+ x server aesfast [^:]+: server|sshd \(aesfast\) listener)'
    nwant=$(printf '%s\n' "$fails" | grep -Ec "$want")
    other=$(printf '%s\n' "$fails" | grep -Ev "$want" | grep .)
    sums=$(printf '%s\n' "$out" | grep -c '^ok   .*sha256 equal both ways')
    if [ $rc -eq 1 ] && [ "$nwant" -ge 2 ] && [ -z "$other" ] && [ "$sums" -eq 4 ]; then
      echo "ok   aesfast not loaded on the $side: the proof fails ($nwant FAIL lines, each for the $side), all 4 transfers whole"
      printf '%s\n' "$fails" | sed 's/^/     /'
    else
      echo "FAIL aesfast not loaded on the $side: exit $rc, $nwant proof failures, $sums whole transfers, other failures:"
      printf '%s\n' "${other:-(none)}" | sed 's/^/     /'
      printf '%s\n' "$out" | sed 's/^/     | /' | head -60
      rc_all=1
    fi
  done
  exit $rc_all
fi

[ $# -eq 1 ] || { echo "usage: $0 MODULE_PATH" >&2; exit 2; }
module=$1
kernel=${AESFAST_KERNEL:-}
mib=${AESFAST_TEST_SSH_MIB:-4}
read -r -a ciphers <<<"${AESFAST_TEST_SSH_CIPHERS:-aes128-ctr aes192-ctr aes256-ctr aes128-gcm@openssh.com aes256-gcm@openssh.com}"
unload=${AESFAST_TEST_SSH_UNLOAD:-}
case $unload in '' | client | server) ;; *) echo "ssh_test: AESFAST_TEST_SSH_UNLOAD=client or server" >&2; exit 2 ;; esac
[[ $mib =~ ^[1-9][0-9]*$ ]] || { echo "ssh_test: AESFAST_TEST_SSH_MIB: not a positive number" >&2; exit 2; }
t0=$SECONDS

skip() { echo "ssh_test: SKIP: $*"; exit 77; }
for p in timeout sha256sum tee; do command -v $p >/dev/null 2>&1 || skip "$p not found (coreutils)"; done
why=$(ssh_find) || skip "$why"
ssh_find
[ -f "$module" ] || { echo "ssh_test: no module at $module" >&2; exit 1; }
module=$(cd "$(dirname "$module")" && pwd)/$(basename "$module")
unset OPENSSL_CONF OPENSSL_MODULES AESFAST_DEBUG SSH_AUTH_SOCK

tmp=$(mktemp -d "${TMPDIR:-/tmp}/aesfast-ssh.XXXXXX")
pgroups=()
stop_servers() {
  stop_process_groups "${pgroups[@]}"
  pgroups=()
}
trap 'stop_servers; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP

fails=0 checks=0
pass() { checks=$((checks + 1)); echo "ok   $*"; }
fail() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL $*"; }
show() { sed -e 's/^/     /' -e 60q "$@"; }
sha() { sha256sum "$1" | cut -d' ' -f1; }

# The cnfs: the deployment's (aesfast preferred), the default provider alone, and for
# AESFAST_TEST_SSH_UNLOAD the "aesfast" end's cnf without aesfast (same default properties).
write_cnf "$tmp/aesfast.cnf" aesfast "$module" "?provider=aesfast"
write_cnf "$tmp/default.cnf" default ""
write_cnf "$tmp/unloaded.cnf" default "" "?provider=aesfast"
declare -A ccnf=([aesfast]=$tmp/aesfast.cnf [default]=$tmp/default.cnf)
declare -A scnf=([aesfast]=$tmp/aesfast.cnf [default]=$tmp/default.cnf)
[ "$unload" = client ] && ccnf[aesfast]=$tmp/unloaded.cnf
[ "$unload" = server ] && scnf[aesfast]=$tmp/unloaded.cnf

echo "ssh_test: $("$ssh" -V 2>&1); sshd $sshd; running as $(id -un)"
echo "ssh_test: module $module${kernel:+, AESFAST_KERNEL=$kernel}${unload:+; AESFAST_TEST_SSH_UNLOAD=$unload: aesfast NOT loaded on the $unload}"
ssh_keys "$tmp" || { echo "ssh_test: ssh-keygen failed" >&2; exit 1; }

# Both servers, each on a free port (another port if one was taken meanwhile).
declare -A sport listener
for side in aesfast default; do
  up=0
  for _ in 1 2 3; do
    sport[$side]=$(free_port)
    ssh_sshd_config "$tmp" "srv-$side" "${sport[$side]}" DEBUG1
    ssh_start "$tmp" "srv-$side" "${scnf[$side]}" 600 "AESFAST_DEBUG=file:$tmp/srv-$side.log"
    r=$?
    pgroups+=("$ssh_timeout_pid")
    [ $r -eq 0 ] && { up=1; break; }
    [ $r -eq 2 ] || break
  done
  if [ $up -eq 1 ]; then
    listener[$side]=$sshd_pid
    pass "sshd ($side) up on 127.0.0.1:${sport[$side]}, listener pid $sshd_pid, OPENSSL_CONF=${scnf[$side]##*/}"
  else
    fail "sshd ($side) did not come up"; show "$tmp/srv-$side.log"; exit 1
  fi
done
# The aesfast listener loaded aesfast (its pid logs the kernel chosen at load); the default one
# did not.
l=${listener[aesfast]}
if grep -Eq "^[^ ]+ pid $l aesfast: kernel [^ ]+: (the best tier|forced by)" "$tmp/srv-aesfast.log"; then
  pass "sshd (aesfast) listener pid $l loaded aesfast: $(grep -E "^[^ ]+ pid $l aesfast: kernel " "$tmp/srv-aesfast.log" | head -n1 | sed 's/.* aesfast: //')"
else
  fail "sshd (aesfast) listener pid $l: no aesfast line: it did not load aesfast"
fi
if grep -q ' aesfast: ' "$tmp/srv-default.log"; then
  fail "sshd (default): aesfast lines in its log"; grep ' aesfast: ' "$tmp/srv-default.log" | show
fi

payload=$tmp/payload
size=$((mib * 1024 * 1024 + 12345))
head -c "$size" /dev/urandom >"$payload"
want=$(sha "$payload")
echo "ssh_test: payload $size bytes up and down per cell, RekeyLimit=1M, sha256 $want"

# proof LABEL END LOG ALG PID_RULE PID: END (client, server) on aesfast: every keying in LOG by
# aesfast, for ALG, from one pid, which must be PID (PID_RULE "is") or must not be (PID_RULE
# "not"); at least 4 (the first keys and one rekey, both ways).
proof() {
  local label=$1 end=$2 log=$3 alg=$4 rule=$5 want_pid=$6 k n miss pids kern
  k=$(ssh_keyings "$log" "$alg")
  n=$(grep -c '^ok ' <<<"$k")
  miss=$(grep -c '^miss' <<<"$k")
  pids=$(awk '$1 == "ok" { print $2 }' <<<"$k" | sort -u | tr '\n' ' ')
  pids=${pids% }
  kern=$(awk '$1 == "ok" { print $3 }' <<<"$k" | sort -u | tr '\n' ' ')
  kern=${kern% }
  if [ "$n" -eq 0 ]; then
    fail "$label: $end: no aesfast key setup of $alg before any of OpenSSH's $miss keyings: aesfast did not key the $end's cipher"
    grep ' aesfast: ' "$log" | head -n5 | show
  elif [ "$miss" -ne 0 ]; then
    fail "$label: $end: $miss of $((n + miss)) keyings not preceded by aesfast's $alg key setup"
    grep '^miss' <<<"$k" | head -n5 | show
  elif [ "$n" -lt 4 ]; then
    fail "$label: $end: only $n keyings (want the first keys and a rekey, both ways)"
  elif [ "${pids// /}" != "$pids" ]; then
    fail "$label: $end: the keyings come from several pids ($pids)"
  elif [ "$rule" = is ] && [ "$pids" != "$want_pid" ]; then
    fail "$label: $end: keyed by pid $pids, not the ssh process $want_pid"
  elif [ "$rule" = not ] && [ "$pids" = "$want_pid" ]; then
    fail "$label: $end: keyed by the listener (pid $pids), not a session process"
  elif [ -n "$kernel" ] && [ "$kernel" != auto ] && [ "$kern" != "$kernel" ]; then
    fail "$label: $end: keyed on kernel(s) $kern, AESFAST_KERNEL=$kernel"
  else
    pass "$label: $end pid $pids: aesfast keyed $alg for all $n of OpenSSH's keyings (kernel $kern)${7:+ $7}"
  fi
}

# none LABEL END LOG: no aesfast line at all in LOG.
none() {
  if grep -q ' aesfast: ' "$3"; then
    fail "$1: $2 (default): aesfast lines in its log"; grep ' aesfast: ' "$3" | head -n5 | show
  else
    pass "$1: $2 (default): no aesfast line"
  fi
}

cells=0
for c in "${ciphers[@]}"; do
  alg=$(ssh_alg_of "$c")
  case $alg in '?' | -) echo "ssh_test: $c: not an AES cipher of OpenSSH's" >&2; exit 2 ;; esac
  for cs in default aesfast; do
    for ss in default aesfast; do
      label="client $cs x server $ss $c"
      cells=$((cells + 1))
      slog=$tmp/srv-$ss.log clog=$tmp/client.log
      from=$(($(wc -l <"$slog") + 1))
      : >"$clog"
      rm -f "$tmp/up" "$tmp/down"
      ssh_opts "$tmp" "${sport[$ss]}" "$c"
      env OPENSSL_CONF="${ccnf[$cs]}" AESFAST_DEBUG="file:$clog" "$ssh" -v "${ssh_o[@]}" \
        -o RekeyLimit=1M 127.0.0.1 "tee $tmp/up" <"$payload" >"$tmp/down" 2>>"$clog" &
      cpid=$!
      # A watchdog that takes its sleep with it when stopped, and holds no caller's pipe.
      (sleep 60 & s=$!; trap 'kill $s; exit 0' TERM; wait $s; kill -TERM "$cpid") >/dev/null 2>&1 &
      wd=$!
      wait "$cpid"
      rc=$?
      kill "$wd" 2>/dev/null; wait "$wd" 2>/dev/null
      # The connection's sshd is gone (its log complete) before its lines are read.
      conn=$(ssh_conn_pid "$slog" "$from")
      [ -z "$conn" ] || ssh_wait_gone "$conn" 10 || fail "$label: the connection's sshd (pid $conn) still runs 10 s after the client"
      tail -n "+$from" "$slog" >"$tmp/slice"
      if [ $rc -ne 0 ]; then
        fail "$label: ssh exited $rc"; grep -v '^debug1: \(channel\|client_input\|Reading\|Authenticat\)' "$clog" | tail -n 15 | show
        tail -n 15 "$tmp/slice" | show
        continue
      fi
      kex=$(grep -c '^debug1: kex: server->client cipher: ' "$clog")
      up=$( [ -f "$tmp/up" ] && sha "$tmp/up") down=$(sha "$tmp/down")
      if [ "$up" = "$want" ] && [ "$down" = "$want" ]; then
        pass "$label: $size bytes, sha256 equal both ways ($kex key exchanges)"
      else
        fail "$label: sha256 up ${up:-(no file)}, down $down, want $want"
      fi
      if grep -q "^debug1: kex: client->server cipher: $c " "$clog" \
         && grep -q "^debug1: kex: server->client cipher: $c " "$clog" \
         && ! grep '^debug1: kex: [a-z]*->[a-z]* cipher: ' "$clog" | grep -qv " cipher: $c "; then
        if [ "$kex" -ge 3 ]; then pass "$label: $c both ways, rekeyed $((kex - 1)) times"
        else fail "$label: $c both ways, but only $kex key exchange(s) (want rekeys)"; fi
      else
        fail "$label: the client did not negotiate $c both ways"; grep '^debug1: kex: ' "$clog" | show
      fi
      if [ "$cs" = aesfast ]; then proof "$label" client "$clog" "$alg" is "$cpid"
      else none "$label" client "$clog"; fi
      if [ "$ss" = aesfast ]; then
        who=
        if [ -n "$conn" ]; then
          pids=$(ssh_keyings "$tmp/slice" "$alg" | awk '$1 == "ok" { print $2 }' | sort -u)
          [ "$pids" = "$conn" ] && who="(the connection's sshd: a root login has no post-auth child)"
          [ -n "$pids" ] && [ "$pids" != "$conn" ] && who="(a post-auth child of connection pid $conn)"
        fi
        proof "$label" server "$tmp/slice" "$alg" not "${listener[aesfast]}" "$who"
      else
        none "$label" server "$tmp/slice"
      fi
      if grep -q ' aesfast: error:' "$clog" "$tmp/slice"; then
        fail "$label: aesfast logged errors"; grep -h ' aesfast: error:' "$clog" "$tmp/slice" | show
      fi
    done
  done
done

stop_servers
for side in aesfast default; do
  if grep -Eq '^(fatal|error):' "$tmp/srv-$side.log"; then
    fail "sshd ($side) logged errors"; grep -E '^(fatal|error):' "$tmp/srv-$side.log" | show
  fi
done
echo "ssh_test: $cells cells, $checks checks, $fails failed, $((SECONDS - t0)) s"
[ $fails -eq 0 ] || exit 1
exit 0
