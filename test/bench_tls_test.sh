#!/usr/bin/env bash
# bench/tls.sh's refusals (it measures nothing here): a port in use is refused before anything
# starts (exit 2); a module that is not aesfast (so the "aesfast" side runs on the default
# provider) fails loudly for want of the key-setup lines (exit 1, before any timed run); a body
# that arrives changed (a curl in PATH that adds a byte to one side's /16k) fails loudly on its
# sha256 (exit 1); and after each, no nginx of it is left running and its tmpfs folder is gone
# (the trap).
#
#   test/bench_tls_test.sh SOURCE_DIR NOT_A_PROVIDER_MODULE     exit 0 pass, 1 fail, 77 skip
set -u
[ $# -eq 2 ] || { echo "usage: $0 SOURCE_DIR NOT_A_PROVIDER_MODULE" >&2; exit 2; }
src=$1 other=$2
for p in nginx curl h2load python3; do
  command -v $p >/dev/null 2>&1 || [ -x /usr/sbin/$p ] \
    || { echo "bench_tls_test: skipped: no $p (test/install-deps.sh --bench)"; exit 77; }
done
[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] || { echo "bench_tls_test: skipped: /dev/shm is no tmpfs"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/aesfast-benchtls.XXXXXX")
listener=
trap '[ -z "$listener" ] || kill "$listener" 2>/dev/null; rm -rf "$tmp"' EXIT
fails=0
pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
before=$(ls -d /dev/shm/aesfast-tls.* 2>/dev/null | sort)
left_behind() { # nginx processes or tmpfs folders of bench/tls.sh that were not there before
  local now
  now=$(ls -d /dev/shm/aesfast-tls.* 2>/dev/null | sort)
  comm -13 <(echo "$before") <(echo "$now") | grep . && return 0
  pgrep -f "nginx.*-p $tmp" >/dev/null && return 0
  for d in $(comm -13 <(echo "$before") <(echo "$now")); do pgrep -f "$d" && return 0; done
  return 1
}
free_pair() { # a port P from the kernel's free range with P+1 free too
  python3 -c 'import socket
for _ in range(50):
    a, b = socket.socket(), socket.socket()
    try:
        a.bind(("127.0.0.1", 0)); p = a.getsockname()[1]; b.bind(("127.0.0.1", p + 1))
        print(p); break
    except OSError:
        pass
    finally:
        a.close(); b.close()'
}

# A listener on a free port: bench/tls.sh --port must refuse it (and PORT+1 is checked too).
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True); time.sleep(120)' >"$tmp/port" &
listener=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")
"$src/bench/tls.sh" --port "$port" >"$tmp/out" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "port $port on 127.0.0.1 is in use" "$tmp/out"; then
  pass "a port in use ($port) is refused (exit 2)"
else
  fail "a port in use: exit $rc"; sed 's/^/     /' "$tmp/out" | head -20
fi
kill "$listener" 2>/dev/null; wait "$listener" 2>/dev/null; listener=

# A module that is not aesfast: the proof lines are missing.
port=$(free_pair)
"$src/bench/tls.sh" --port "$port" --module "$other" --bulk-mib 1 --chunk-mib 1 --rounds 1 \
  --small-seconds 1 >"$tmp/out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q 'FAIL: TLS_AES_128_GCM_SHA256 aesfast: no "aesfast: AES-128-GCM: key setup" line' "$tmp/out"; then
  pass "no key-setup lines on the aesfast side: fails loudly (exit 1)"
else
  fail "no key-setup lines: exit $rc"; sed 's/^/     /' "$tmp/out" | head -20
fi

# A body changed on its way (the aesfast side's /16k, one byte added by a curl earlier in PATH):
# the sha256 check must fail it, whatever the module does.
real_curl=$(command -v curl)
mkdir "$tmp/bin"
cat >"$tmp/bin/curl" <<'WRAP'
#!/usr/bin/env bash
for a; do
  case $a in *":$TAMPER_PORT/16k") "$REAL_CURL" "$@"; rc=$?; printf x; exit $rc ;; esac
done
exec "$REAL_CURL" "$@"
WRAP
chmod +x "$tmp/bin/curl"
port=$(free_pair)
PATH=$tmp/bin:$PATH REAL_CURL=$real_curl TAMPER_PORT=$port "$src/bench/tls.sh" --port "$port" \
  --module "$other" --bulk-mib 1 --chunk-mib 1 --rounds 1 --small-seconds 1 >"$tmp/out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q 'FAIL: TLS_AES_128_GCM_SHA256 aesfast: /16k hashes to [0-9a-f]\{64\}, want' "$tmp/out"; then
  pass "a body that does not hash to its file's sha256: fails loudly (exit 1)"
else
  fail "a changed body: exit $rc"; sed 's/^/     /' "$tmp/out" | head -20
fi

sleep 0.5
if left_behind; then fail "bench/tls.sh left a server or its folder behind"
else pass "no server and no tmpfs folder left behind"; fi

if [ $fails -eq 0 ]; then echo "bench_tls_test: PASS"; exit 0; fi
echo "bench_tls_test: $fails check(s) failed"; exit 1
