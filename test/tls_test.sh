#!/usr/bin/env bash
# TLS test: real TLS connections whose record encryption is aesfast's AES-GCM, chosen by nothing
# but openssl.cnf (default + aesfast, default_properties = ?provider=aesfast), as a deployment
# would do it.
#
#   1. nginx (Debian's, linked to the system OpenSSL 3.0) on loopback serves a file of 8 MiB and
#      some bytes to curl (also 3.0) and takes the same file back by PUT;
#   2. `openssl s_server -WWW` serves it to `openssl s_client`, with the system openssl (3.0) and
#      with the apps/openssl of each OPENSSL_TREE given (3.5, 3.6): both ends on aesfast, then each
#      end on aesfast against a peer with the default provider alone (aesfast against itself
#      could hide a mistake made the same way on both ends).
# Each for TLS_AES_128_GCM_SHA256 and TLS_AES_256_GCM_SHA384 (TLS 1.3) and
# ECDHE-ECDSA-AES128-GCM-SHA256 and ECDHE-ECDSA-AES256-GCM-SHA384 (TLS 1.2), with an ECDSA P-256
# certificate made here. Every transfer must arrive whole (sha256 equal), the client must report
# the suite asked for, and, with AESFAST_DEBUG=1 on both sides, the client's and the server's
# stderr must each hold aesfast's key-setup line for that suite's cipher
# ("aesfast: AES-128-GCM: key setup on kernel vaes-avx2"): proof that aesfast, not the default
# provider, encrypted and decrypted the records on both ends.
#
#   test/tls_test.sh OPENSSL_BIN MODULE_PATH [OPENSSL_TREE...]
#     exit 0 pass, 1 fail, 77 skip (a program it needs is missing: it says which)
#   AESFAST_KERNEL, if set, passes through and the key-setup lines must name that kernel.
#   AESFAST_TEST_NO_NGINX=1 leaves out part 1: for a module built against another libcrypto than
#   nginx's and curl's (OpenSSL 4.0's libcrypto.so.4; OPENSSL_BIN is then that tree's openssl).
#   Self-check without aesfast: AESFAST_TEST_PROVIDER=default runs the same connections on the
#   default provider alone (MODULE_PATH ignored, no key-setup lines expected).
#
# Every server it starts runs under `timeout` (a hard bound even if this script is killed), in
# its own process group, and is ended at exit (trap: TERM, then KILL to the group, then wait).
set -u
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || { echo "usage: $0 OPENSSL_BIN MODULE_PATH [OPENSSL_TREE...]" >&2; exit 2; }
bin30=$1 module=$2
trees=("${@:3}")
prov=${AESFAST_TEST_PROVIDER:-aesfast}
kernel=${AESFAST_KERNEL:-}
t0=$SECONDS

skip() { echo "tls_test: SKIP: $*"; exit 77; }
need() { command -v "$1" >/dev/null 2>&1 || skip "$1 not found${2:+ ($2)}"; }
need timeout coreutils
need sha256sum coreutils
with_nginx=1
[ "${AESFAST_TEST_NO_NGINX:-}" = 1 ] && with_nginx=0
if [ $with_nginx -eq 1 ]; then
  need curl "apt-get install curl, or test/install-deps.sh"
  nginx=$(command -v nginx 2>/dev/null || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; })
  [ -n "$nginx" ] || skip "nginx not found (apt-get install nginx, or test/install-deps.sh)"
fi
command -v "$bin30" >/dev/null 2>&1 || skip "no openssl at $bin30"
bin30=$(command -v "$bin30")
for i in "${!trees[@]}"; do
  t=$(cd "${trees[$i]}" 2>/dev/null && pwd) || { echo "tls_test: no OpenSSL tree ${trees[$i]}" >&2; exit 1; }
  [ -x "$t/apps/openssl" ] || { echo "tls_test: no $t/apps/openssl" >&2; exit 1; }
  trees[$i]=$t
done
if [ "$prov" != default ]; then
  [ -f "$module" ] || { echo "tls_test: no module at $module" >&2; exit 1; }
  module=$(cd "$(dirname "$module")" && pwd)/$(basename "$module")
fi
unset OPENSSL_CONF OPENSSL_MODULES AESFAST_DEBUG
# curl must go straight to loopback.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy

tmp=$(mktemp -d "${TMPDIR:-/tmp}/aesfast-tls.XXXXXX")
pids=()
stop_servers() {
  stop_process_groups "${pids[@]}"
  pids=()
}
trap 'stop_servers; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP

fails=0 checks=0 ngx_pid="" spid="" nport=""
pass() { checks=$((checks + 1)); echo "ok   $*"; }
fail() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL $*"; }
show() { sed -e 's/^/     /' -e 200q "$@"; }      # a log, indented and bounded
sha() { sha256sum "$1" | cut -d' ' -f1; }

# The cnf a deployment would use: default + aesfast, aesfast preferred for everything it offers;
# and one with the default provider alone, for the peer that checks aesfast against OpenSSL's GCM.
cnf=$tmp/openssl.cnf
if [ "$prov" = default ]; then write_cnf "$cnf" default ""
else write_cnf "$cnf" "$prov" "$module" "?provider=$prov"; fi
cnf_default=$tmp/default.cnf
write_cnf "$cnf_default" default ""

# ossl_cmd WHICH: sets the array oc to the command that runs the system openssl (sys) or the
# apps/openssl of trees[WHICH] (0, 1, ...); ossl WHICH ARGS... runs it.
ossl_cmd() {
  if [ "$1" = sys ]; then oc=("$bin30")
  else oc=(env "LD_LIBRARY_PATH=${trees[$1]}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "${trees[$1]}/apps/openssl"); fi
}
ossl() { ossl_cmd "$1"; shift; "${oc[@]}" "$@"; }
versions=(sys "${!trees[@]}")

if [ $with_nginx -eq 1 ]; then
  echo "tls_test: $($bin30 version | head -n1); $("$nginx" -v 2>&1); $(curl --version | head -n1)"
else
  echo "tls_test: $($bin30 version | head -n1); nginx and curl left out (AESFAST_TEST_NO_NGINX=1)"
fi
for i in "${!trees[@]}"; do echo "tls_test: and $(ossl "$i" version | head -n1)"; done
echo "tls_test: provider $prov${kernel:+, AESFAST_KERNEL=$kernel}"

# suite, TLS version, the cipher it runs on
suites=(
  "TLS_AES_128_GCM_SHA256 1.3 AES-128-GCM"
  "TLS_AES_256_GCM_SHA384 1.3 AES-256-GCM"
  "ECDHE-ECDSA-AES128-GCM-SHA256 1.2 AES-128-GCM"
  "ECDHE-ECDSA-AES256-GCM-SHA384 1.2 AES-256-GCM"
)

# Before any connection: each openssl lists both GCM ciphers from the provider under test.
for v in "${versions[@]}"; do
  list=$(OPENSSL_CONF=$cnf ossl "$v" list -cipher-algorithms 2>&1)
  vn=$(ossl "$v" version | awk '{ print $2 }')
  for alg in AES-128-GCM AES-256-GCM; do
    if printf '%s\n' "$list" | grep -Eiq "(^|[ {,])$alg([ },].*)?@ $prov\$"; then
      pass "openssl $vn list -cipher-algorithms: $alg @ $prov"
    else
      fail "openssl $vn list -cipher-algorithms: no $alg @ $prov"
      printf '%s\n' "$list" | grep -i gcm | show
    fi
  done
done
if [ $fails -ne 0 ]; then echo "tls_test: $fails check(s) failed"; exit 1; fi

# proof LABEL LOG ALG: LOG holds aesfast's key-setup line for ALG (on AESFAST_KERNEL, if set).
proof() {
  local label=$1 log=$2 alg=$3 lines n k
  [ "$prov" = default ] && return 0
  lines=$(grep -F "aesfast: $alg: key setup on kernel " "$log")
  if [ -z "$lines" ]; then
    fail "$label: no \"aesfast: $alg: key setup\" line: aesfast did not key $alg"
    grep -F 'aesfast:' "$log" | show
    return
  fi
  n=$(printf '%s\n' "$lines" | wc -l)
  k=$(printf '%s\n' "$lines" | sed 's/.* key setup on kernel //' | sort -u | tr '\n' ' ')
  if [ -n "$kernel" ] && [ "$kernel" != auto ] && [ "${k% }" != "$kernel" ]; then
    fail "$label: $alg keyed on kernel(s) ${k% }, AESFAST_KERNEL=$kernel"
    return
  fi
  pass "$label: aesfast keyed $alg $n time(s), kernel ${k% }"
}

# start_server DIR CNF LOG PID_VAR CMD...: CMD in the background in DIR, bounded by `timeout`,
# remembered for the trap, with AESFAST_DEBUG and OPENSSL_CONF=CNF in its environment; its stdout
# goes to LOG.out, its stderr to LOG.err, and `timeout`'s pid (the leader of CMD's process group)
# to PID_VAR.
start_server() {
  local dir=$1 scnf=$2 log=$3 var=$4
  shift 4
  # Emptied here, not by the redirection below, which happens in the child some time after the
  # fork: a caller polling LOG.out must not read the previous server's lines.
  : >"$log.out"
  : >"$log.err"
  (cd "$dir" && AESFAST_DEBUG=1 OPENSSL_CONF=$scnf exec timeout -k 3 120 "$@") \
    </dev/null >"$log.out" 2>"$log.err" &
  pids+=($!)
  printf -v "$var" %s $!
}

# until_up PID SECONDS TEST...: poll TEST every 0.1 s while PID lives; 0 when TEST succeeded.
until_up() {
  local pid=$1
  for _ in $(seq $(($2 * 10))); do
    "${@:3}" && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
accept_line() { grep -q '^ACCEPT ' "$1" 2>/dev/null; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# The certificate (ECDSA P-256, for localhost and 127.0.0.1) and the payload.
# (With the default-only cnf: a tree's openssl has no openssl.cnf of its own, which req needs.)
if ! OPENSSL_CONF=$cnf_default "$bin30" req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
     -subj /CN=localhost -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
     -keyout "$tmp/key.pem" -out "$tmp/cert.pem" >"$tmp/req.log" 2>&1; then
  fail "openssl req: making the ECDSA P-256 certificate"; show "$tmp/req.log"; exit 1
fi
www=$tmp/www
mkdir -p "$www/up" "$tmp/nginx/tmp"
size=$((8 * 1024 * 1024 + 12345))       # not a multiple of the 16 KiB record size
head -c "$size" /dev/urandom >"$www/payload"
want=$(sha "$www/payload")
echo "tls_test: payload $size bytes, sha256 $want"

# ---- 1. nginx and curl (both on the system OpenSSL 3.0) ----------------------------------------

ngx=$tmp/nginx
start_nginx() {
  for _ in 1 2 3; do
    nport=$(free_port)
    {
      [ "$(id -u)" -eq 0 ] && echo "user root;"        # workers must read and write in $tmp
      cat <<EOF
daemon off;
master_process on;
worker_processes 1;
pid $ngx/nginx.pid;
lock_file $ngx/nginx.lock;
error_log stderr notice;
env OPENSSL_CONF;
env AESFAST_DEBUG;
env AESFAST_KERNEL;
events { worker_connections 64; }
http {
  access_log off;
  default_type application/octet-stream;
  client_body_temp_path $ngx/tmp/body;
  proxy_temp_path $ngx/tmp/proxy;
  fastcgi_temp_path $ngx/tmp/fastcgi;
  uwsgi_temp_path $ngx/tmp/uwsgi;
  scgi_temp_path $ngx/tmp/scgi;
  server {
    listen 127.0.0.1:$nport ssl;
    server_name localhost;
    ssl_certificate $tmp/cert.pem;
    ssl_certificate_key $tmp/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384;
    ssl_conf_command Ciphersuites TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384;
    ssl_session_tickets off;
    root $www;
    location /up/ {
      dav_methods PUT;
      client_max_body_size 64m;
    }
  }
}
EOF
    } >"$ngx/nginx.conf"
    start_server "$ngx" "$cnf" "$tmp/nginx" ngx_pid "$nginx" -p "$ngx" -c "$ngx/nginx.conf" -e stderr
    if until_up "$ngx_pid" 10 port_open "$nport"; then return 0; fi
    if kill -0 "$ngx_pid" 2>/dev/null; then break; fi          # alive but not listening: give up
    grep -q 'Address already in use' "$tmp/nginx.err" || break  # another port only for that
  done
  return 1
}

# curl_run LABEL LOG ARGS...: curl with the cnf and AESFAST_DEBUG, -v on LOG; its status.
curl_run() {
  local log=$2
  AESFAST_DEBUG=1 OPENSSL_CONF=$cnf timeout -k 3 40 curl -sS -v --noproxy '*' \
    --cacert "$tmp/cert.pem" --resolve "localhost:$nport:127.0.0.1" \
    --connect-timeout 5 --max-time 30 "${@:3}" 2>"$log"
}

if [ $with_nginx -eq 0 ]; then
  :
elif start_nginx; then
  pass "nginx up on 127.0.0.1:$nport (pid $ngx_pid), OPENSSL_CONF=$cnf"
  for s in "${suites[@]}"; do
    read -r suite ver alg <<<"$s"
    if [ "$ver" = 1.3 ]; then copts=(--tlsv1.3 --tls13-ciphers "$suite")
    else copts=(--tlsv1.2 --tls-max 1.2 --ciphers "$suite"); fi
    label="nginx->curl $suite"
    from=$(($(wc -l <"$tmp/nginx.err") + 1))
    rm -f "$tmp/got"
    if curl_run "$label" "$tmp/curl.err" "${copts[@]}" -o "$tmp/got" \
         "https://localhost:$nport/payload"; then
      got=$(sha "$tmp/got")
      if [ "$got" = "$want" ]; then pass "$label: $size bytes, sha256 equal"
      else fail "$label: sha256 $got, want $want ($(stat -c %s "$tmp/got") bytes)"; fi
      # curl 7.x ends the line with the suite; 8.x goes on with " / group / signature".
      if grep -Eq "SSL connection using TLSv$ver / $suite( /|\$)" "$tmp/curl.err"; then
        pass "$label: curl negotiated TLSv$ver / $suite"
      else
        fail "$label: curl did not negotiate TLSv$ver / $suite"
        grep 'SSL connection' "$tmp/curl.err" | show
      fi
      proof "$label: client (curl)" "$tmp/curl.err" "$alg"
      tail -n "+$from" "$tmp/nginx.err" >"$tmp/nginx.slice"
      proof "$label: server (nginx)" "$tmp/nginx.slice" "$alg"
    else
      fail "$label: curl failed"; show "$tmp/curl.err"; tail -n "+$from" "$tmp/nginx.err" | show
    fi

    label="curl->nginx $suite (PUT)"
    name=put-$suite
    from=$(($(wc -l <"$tmp/nginx.err") + 1))
    if curl_run "$label" "$tmp/curl.err" "${copts[@]}" -f -T "$www/payload" -o /dev/null \
         "https://localhost:$nport/up/$name"; then
      if [ -f "$www/up/$name" ] && [ "$(sha "$www/up/$name")" = "$want" ]; then
        pass "$label: $size bytes stored, sha256 equal"
      else
        fail "$label: the stored file differs from the payload"
      fi
      rm -f "$www/up/$name"
      proof "$label: client (curl)" "$tmp/curl.err" "$alg"
      tail -n "+$from" "$tmp/nginx.err" >"$tmp/nginx.slice"
      proof "$label: server (nginx)" "$tmp/nginx.slice" "$alg"
    else
      fail "$label: curl failed"; show "$tmp/curl.err"; tail -n "+$from" "$tmp/nginx.err" | show
    fi
  done
  stop_servers
  # Nothing on nginx's log but the provider's own lines and nginx's notices.
  if grep -Eq '\[(emerg|alert|crit)\]' "$tmp/nginx.err"; then
    fail "nginx logged errors"; grep -E '\[(emerg|alert|crit)\]' "$tmp/nginx.err" | show
  fi
else
  fail "nginx did not come up"; show "$tmp/nginx.err"
  stop_servers
fi

# ---- 2. openssl s_server and s_client, each OpenSSL ----------------------------------------------

# pair SERVER CLIENT SUITE VER ALG: s_server -WWW serves the payload to s_client once. SERVER and
# CLIENT are VERSION:WHO, VERSION sys or a tree's index, WHO "a" (the cnf with aesfast) or "d" (the default
# provider alone). aesfast against aesfast alone could hide a mistake made the same way on both
# ends; the pairs with a default-only peer check aesfast's records against OpenSSL's own GCM.
pair() {
  local sv=${1%:*} sw=${1#*:} cv=${2%:*} cw=${2#*:} suite=$3 ver=$4 alg=$5
  local scnf=$cnf ccnf=$cnf sname cname label log=$tmp/s_server opts total hdr crc coc
  [ "$sw" = d ] && scnf=$cnf_default
  [ "$cw" = d ] && ccnf=$cnf_default
  sname=$(ossl "$sv" version | awk '{ print $2 }')/$prov
  cname=$(ossl "$cv" version | awk '{ print $2 }')/$prov
  [ "$sw" = d ] && sname=${sname%/*}/default
  [ "$cw" = d ] && cname=${cname%/*}/default
  label="s_server $sname->s_client $cname $suite"
  if [ "$ver" = 1.3 ]; then opts=(-tls1_3 -ciphersuites "$suite")
  else opts=(-tls1_2 -cipher "$suite"); fi
  # -WWW serves files from the working directory; one connection, then it exits.
  ossl_cmd "$sv"
  start_server "$www" "$scnf" "$log" spid "${oc[@]}" s_server -accept 127.0.0.1:0 -naccept 1 \
    -cert "$tmp/cert.pem" -key "$tmp/key.pem" -WWW "${opts[@]}"
  if ! until_up "$spid" 10 accept_line "$log.out"; then
    fail "$label: s_server did not start"; show "$log.out" "$log.err"; stop_servers; return
  fi
  sport=$(sed -n 's/^ACCEPT .*:\([0-9][0-9]*\)$/\1/p' "$log.out" | head -n1)
  ossl_cmd "$cv"
  coc=("${oc[@]}")
  printf 'GET /payload HTTP/1.0\r\n\r\n' \
    | AESFAST_DEBUG=1 OPENSSL_CONF=$ccnf timeout -k 3 40 "${coc[@]}" s_client \
        -connect "127.0.0.1:$sport" -servername localhost -CAfile "$tmp/cert.pem" \
        -verify_return_error -brief -ign_eof "${opts[@]}" >"$tmp/s_client.out" 2>"$tmp/s_client.err"
  crc=$?
  # The server ends by itself after its one connection; bounded.
  for _ in $(seq 100); do kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$spid" 2>/dev/null; then fail "$label: s_server still running after the transfer"; fi
  stop_servers
  if [ $crc -ne 0 ]; then
    fail "$label: s_client exit status $crc"; show "$tmp/s_client.err" "$log.err"; return
  fi
  # The response is "HTTP/1.0 200 ok", headers, a blank line, then the file.
  total=$(stat -c %s "$tmp/s_client.out")
  hdr=$((total - size))
  if [ $hdr -gt 0 ] && head -n1 "$tmp/s_client.out" | grep -q '^HTTP/1.0 200' \
     && [ "$(head -c "$hdr" "$tmp/s_client.out" | tail -c 4 | od -An -tx1 | tr -d ' \n')" = 0d0a0d0a ] \
     && [ "$(tail -c "$size" "$tmp/s_client.out" | sha256sum | cut -d' ' -f1)" = "$want" ]; then
    pass "$label: $size bytes, sha256 equal"
  else
    fail "$label: the response is not the payload ($total bytes)"; head -n3 "$tmp/s_client.out" | show
  fi
  if grep -q "^Protocol version: TLSv$ver\$" "$tmp/s_client.err" \
     && grep -q "^Ciphersuite: $suite\$" "$tmp/s_client.err"; then
    pass "$label: s_client negotiated TLSv$ver / $suite"
  else
    fail "$label: s_client did not negotiate TLSv$ver / $suite"
    grep -E '^(Protocol version|Ciphersuite):' "$tmp/s_client.err" | show
  fi
  [ "$cw" = a ] && proof "$label: client (s_client)" "$tmp/s_client.err" "$alg"
  [ "$sw" = a ] && proof "$label: server (s_server)" "$log.err" "$alg"
  return 0
}

for v in "${versions[@]}"; do
  for s in "${suites[@]}"; do
    read -r suite ver alg <<<"$s"
    pair "$v:a" "$v:a" "$suite" "$ver" "$alg"
    if [ "$prov" != default ]; then
      pair "$v:a" "$v:d" "$suite" "$ver" "$alg"
      pair "$v:d" "$v:a" "$suite" "$ver" "$alg"
    fi
  done
done

echo "tls_test: $checks checks in $((SECONDS - t0)) s"
if [ $fails -eq 0 ]; then echo "tls_test: PASS"; exit 0; fi
echo "tls_test: $fails check(s) failed"; exit 1
