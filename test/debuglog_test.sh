#!/usr/bin/env bash
# The debug log (AESFAST_DEBUG, provider/errors.c), run through test/debuglog_probe, which loads
# aesfast and makes it raise an error (a partially overlapping update):
#   - "1": every line on stderr is "<UTC time, microseconds>Z pid <the probe's pid> aesfast: ...",
#     the time within this run's; the error's line is there, with no address in it;
#   - "", "0": no line; "file:PATH": the lines go to PATH, none to stderr, and two runs append
#     (two pids); a file that cannot be opened: one line on stderr says so, and the log goes there;
#   - file-size limit 0 (sshd's pre-auth sandbox) with stderr, or the file, a regular file: the
#     probe lives (no SIGXFSZ) and nothing is written; a limit of 1 KiB: only whole lines, within it;
#   - set-group-ID (as root: a copy of the probe, group nogroup): AESFAST_DEBUG=file:PATH creates
#     no file and AESFAST_KERNEL=no-such-tier does not stop the load (secure_getenv), where the
#     same copy without the bit is stopped by it.
#
#   test/debuglog_test.sh PROBE MODULE_DIR        exit 0 pass, 1 fail
set -u
[ $# -eq 2 ] || { echo "usage: $0 PROBE MODULE_DIR" >&2; exit 2; }
probe=$1 moddir=$2
unset AESFAST_DEBUG AESFAST_KERNEL OPENSSL_CONF OPENSSL_MODULES
tmp=$(mktemp -d "${TMPDIR:-/tmp}/aesfast-debuglog.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
show() { sed -e 's/^/     /' -e 20q "$@"; }
line_re='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z pid [0-9]+ aesfast: '

# run NAME [VAR=VALUE...]: the probe with that environment; stdout NAME.out, stderr NAME.err,
# status in $rc.
run() {
  local name=$1
  shift
  env "$@" "$probe" "$moddir" >"$tmp/$name.out" 2>"$tmp/$name.err"
  rc=$?
}
pid_of() { sed -n 's/^pid \([0-9]*\) .*/\1/p' "$tmp/$1.out"; }

# ---- stderr: the format, the pid, the time, no addresses -----------------------------------------
t0=$(date -u +%s)
run on AESFAST_DEBUG=1
t1=$(date -u +%s)
if [ $rc -ne 0 ]; then
  fail "AESFAST_DEBUG=1: probe exit status $rc"; show "$tmp/on.out" "$tmp/on.err"
else
  n=$(grep -c 'aesfast: ' "$tmp/on.err")
  bad=$(grep -Ev "$line_re" "$tmp/on.err")
  pid=$(pid_of on)
  others=$(grep -Eo ' pid [0-9]+ ' "$tmp/on.err" | sort -u | grep -vx " pid $pid " || true)
  if [ "$n" -ge 4 ] && [ -z "$bad" ] && [ -z "$others" ]; then
    pass "AESFAST_DEBUG=1: $n lines on stderr, each \"TIME pid $pid aesfast: ...\""
  else
    fail "AESFAST_DEBUG=1: $n lines; not of the format, or another pid than $pid:"; show <<<"$bad$others"
  fi
  late=0
  while read -r ts; do
    s=$(date -u -d "${ts%.*}" +%s 2>/dev/null) || { late=1; break; }
    [ "$s" -ge "$t0" ] && [ "$s" -le "$t1" ] || late=1
  done < <(cut -d' ' -f1 "$tmp/on.err")
  if [ $late -eq 0 ]; then pass "AESFAST_DEBUG=1: every line's time is within the run (UTC)"
  else fail "AESFAST_DEBUG=1: a line's time is not within $t0..$t1 (UTC)"; show "$tmp/on.err"; fi
  err=$(grep 'aesfast: error: input and output buffers partially overlap: ' "$tmp/on.err")
  if [ -n "$err" ] && grep -q 'the output of 64 bytes starts inside the input' <<<"$err" \
     && ! grep -Eq '0x[0-9a-f]{4,}|\(nil\)|\(hidden\)' "$tmp/on.err"; then
    pass "AESFAST_DEBUG=1: the overlap error is logged, with no address in it"
  else
    fail "AESFAST_DEBUG=1: no overlap error line, or an address in the log"; show "$tmp/on.err"
  fi
fi

# ---- off -----------------------------------------------------------------------------------------
for v in "" 0; do
  run off AESFAST_DEBUG="$v"
  if [ $rc -eq 0 ] && ! grep -q 'aesfast' "$tmp/off.err"; then pass "AESFAST_DEBUG=\"$v\": no log"
  else fail "AESFAST_DEBUG=\"$v\": status $rc, or a log line"; show "$tmp/off.err"; fi
done

# ---- file:PATH -----------------------------------------------------------------------------------
log=$tmp/debug.log
run f1 AESFAST_DEBUG="file:$log"
rc1=$rc
run f2 AESFAST_DEBUG="file:$log"
pids=$(grep -Eo ' pid [0-9]+ ' "$log" 2>/dev/null | sort -u | wc -l)
if [ $rc1 -eq 0 ] && [ $rc -eq 0 ] && [ ! -s "$tmp/f1.err" ] && [ ! -s "$tmp/f2.err" ] \
   && [ "$pids" -eq 2 ] && ! grep -Ev "$line_re" "$log" >/dev/null \
   && grep -q " pid $(pid_of f1) " "$log" && grep -q " pid $(pid_of f2) " "$log"; then
  pass "AESFAST_DEBUG=file:PATH: $(wc -l <"$log") lines of two runs appended to PATH, nothing on stderr"
else
  fail "AESFAST_DEBUG=file:PATH: status $rc1/$rc, $pids pids in the file"; show "$tmp/f1.err" "$log"
fi
run nofile AESFAST_DEBUG="file:$tmp/no/such/dir/log"
if [ $rc -eq 0 ] && grep -q "^aesfast: AESFAST_DEBUG=file:$tmp/no/such/dir/log: .*; logging to stderr instead" "$tmp/nofile.err" \
   && grep -Eq "${line_re}kernel " "$tmp/nofile.err"; then
  pass "AESFAST_DEBUG=file:UNOPENABLE: says so on stderr and logs there"
else
  fail "AESFAST_DEBUG=file:UNOPENABLE: status $rc"; show "$tmp/nofile.err"
fi

# ---- the file-size limit (SIGXFSZ) ---------------------------------------------------------------
# limited NAME BLOCKS VAR=VALUE...: run under `ulimit -f BLOCKS` (1 KiB blocks), stderr appended
# to the file NAME.err, stdout a pipe (the probe's own printf would meet the limit too).
limited() {
  local name=$1 blocks=$2
  shift 2
  rc=$( { (ulimit -f "$blocks" && exec env "$@" "$probe" "$moddir") 2>>"$tmp/$name.err" >/dev/null
          echo $?; } | tail -n1)
}
limited z0 0 AESFAST_DEBUG=1
if [ "$rc" -eq 0 ] && [ ! -s "$tmp/z0.err" ]; then
  pass "file-size limit 0, stderr a regular file: the probe lives, nothing written"
else
  fail "file-size limit 0, stderr a regular file: status $rc (SIGXFSZ is $((128 + 25)))"
fi
: >"$tmp/z1.log"
limited z1 0 AESFAST_DEBUG="file:$tmp/z1.log"
if [ "$rc" -eq 0 ] && [ ! -s "$tmp/z1.log" ]; then pass "file-size limit 0, file:PATH: the probe lives, nothing written"
else fail "file-size limit 0, file:PATH: status $rc"; fi
# 1 KiB, stderr already 800 bytes long: room for one or two lines of the run's four or more.
head -c 799 /dev/zero | tr '\0' x >"$tmp/k1.err"
echo >>"$tmp/k1.err"
limited k1 1 AESFAST_DEBUG=1
size=$(stat -c %s "$tmp/k1.err")
added=$(tail -n +2 "$tmp/k1.err")
want=$(grep -c 'aesfast: ' "$tmp/on.err")
if [ "$rc" -eq 0 ] && [ "$size" -gt 800 ] && [ "$size" -le 1024 ] \
   && [ "$(tail -c1 "$tmp/k1.err" | od -An -tx1 | tr -d ' ')" = 0a ] \
   && ! grep -Ev "$line_re" <<<"$added" >/dev/null && [ "$(wc -l <<<"$added")" -lt "$want" ]; then
  pass "file-size limit 1 KiB: $((size - 800)) bytes of whole lines added, the rest dropped"
else
  fail "file-size limit 1 KiB: status $rc, $size bytes"; show "$tmp/k1.err"
fi

# ---- set-group-ID: secure_getenv -----------------------------------------------------------------
if [ "$(id -u)" -ne 0 ] || ! getent group nogroup >/dev/null; then
  echo "skip set-group-ID checks: need root and a group nogroup"
else
  sg=$tmp/sgid/debuglog_probe
  mkdir -p "$tmp/sgid"
  chmod 755 "$tmp" "$tmp/sgid"
  cp "$probe" "$sg" && chgrp nogroup "$sg" && chmod 0755 "$sg"
  probe=$sg run plain AESFAST_KERNEL=no-such-tier
  if [ $rc -eq 3 ]; then pass "without set-group-ID, AESFAST_KERNEL=no-such-tier stops the load"
  else fail "without set-group-ID, AESFAST_KERNEL=no-such-tier: status $rc"; show "$tmp/plain.out" "$tmp/plain.err"; fi
  chmod 2755 "$sg"
  if [ ! -g "$sg" ]; then
    echo "skip set-group-ID checks: $tmp is on a nosuid file system"
  else
    probe=$sg run sgid AESFAST_KERNEL=no-such-tier AESFAST_DEBUG="file:$tmp/sgid.log"
    if [ $rc -eq 0 ] && [ ! -e "$tmp/sgid.log" ] && ! grep -q aesfast "$tmp/sgid.err"; then
      pass "set-group-ID: AESFAST_KERNEL and AESFAST_DEBUG ignored (loaded, kernel $(sed -n 's/.* kernel //p' "$tmp/sgid.out"), no log file)"
    else
      fail "set-group-ID: status $rc, log file $([ -e "$tmp/sgid.log" ] && echo made || echo none)"
      show "$tmp/sgid.out" "$tmp/sgid.err"
    fi
  fi
fi

if [ $fails -eq 0 ]; then echo "debuglog_test: PASS"; exit 0; fi
echo "debuglog_test: $fails check(s) failed"; exit 1
