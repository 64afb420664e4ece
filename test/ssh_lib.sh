# shellcheck shell=bash disable=SC2034 # (sets variables for its callers)
# Shell helpers (bash) for OpenSSH on loopback, shared by test/ssh_test.sh and bench/ssh.sh.
# Sourced after test/lib.sh. Every file lives in the caller's scratch folder; nothing of the
# machine's own ssh setup (/etc/ssh, ~/.ssh, an agent) is read or written, except the
# privilege-separation folder /run/sshd that Debian's sshd insists on when it runs as root (the
# folder Debian's ssh.service makes: created here, mode 0755, if missing, and left).

# ssh_find: sets sshd (absolute: sshd re-executes itself by its own path), ssh and ssh_keygen, or
# prints what is missing and returns 1.
ssh_find() {
  sshd=$(command -v sshd 2>/dev/null || { [ -x /usr/sbin/sshd ] && echo /usr/sbin/sshd; }) || true
  ssh=$(command -v ssh 2>/dev/null) || true
  ssh_keygen=$(command -v ssh-keygen 2>/dev/null) || true
  [ -n "$sshd" ] || { echo "sshd not found (apt-get install openssh-server, or test/install-deps.sh)"; return 1; }
  [ -n "$ssh" ] || { echo "ssh not found (apt-get install openssh-client, or test/install-deps.sh)"; return 1; }
  [ -n "$ssh_keygen" ] || { echo "ssh-keygen not found (apt-get install openssh-client)"; return 1; }
  case $sshd in /*) ;; *) sshd=$(cd "$(dirname "$sshd")" && pwd)/$(basename "$sshd") ;; esac
  return 0
}

# ssh_keys DIR: a throwaway Ed25519 host key and user key in DIR (host_key, user_key), and
# DIR/authorized_keys with the user key.
ssh_keys() {
  "$ssh_keygen" -q -t ed25519 -N '' -C aesfast-test-host -f "$1/host_key" </dev/null >/dev/null \
    && "$ssh_keygen" -q -t ed25519 -N '' -C aesfast-test-user -f "$1/user_key" </dev/null >/dev/null \
    && cp "$1/user_key.pub" "$1/authorized_keys"
}

# ssh_sshd_config DIR NAME PORT LOGLEVEL: DIR/NAME.sshd_config for an sshd on 127.0.0.1:PORT that
# lets the user running it log in with the user key and nothing else (as root, too), offering
# the AES ciphers and chacha20-poly1305, and writing its pid to DIR/NAME.pid.
ssh_sshd_config() {
  local d=$1 n=$2 p=$3 lvl=$4
  [ "$(id -u)" -ne 0 ] || [ -d /run/sshd ] || mkdir -m 0755 /run/sshd
  cat >"$d/$n.sshd_config" <<EOF
ListenAddress 127.0.0.1:$p
HostKey $d/host_key
HostKeyAlgorithms ssh-ed25519
PidFile $d/$n.pid
AuthorizedKeysFile $d/authorized_keys
AuthenticationMethods publickey
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
HostbasedAuthentication no
UsePAM no
PermitRootLogin yes
StrictModes no
UseDNS no
PrintMotd no
PrintLastLog no
X11Forwarding no
AllowTcpForwarding no
AllowAgentForwarding no
PermitTTY no
PermitUserEnvironment no
LoginGraceTime 30
MaxStartups 10:30:100
Ciphers aes128-ctr,aes192-ctr,aes256-ctr,aes128-gcm@openssh.com,aes256-gcm@openssh.com,chacha20-poly1305@openssh.com
KexAlgorithms curve25519-sha256
LogLevel $lvl
EOF
}

# ssh_start DIR NAME CNF SECONDS [ENV...]: sshd -D -e -f DIR/NAME.sshd_config in the background,
# bounded by `timeout` (which leads its own process group), with OPENSSL_CONF=CNF and ENV in its
# environment, its stderr appended to DIR/NAME.log; waits until it listens (the pid file is
# written after the bind). Sets ssh_timeout_pid (kill it to stop the server) and sshd_pid.
# Returns 1 if it did not come up; 2 if the port was taken (pick another and call again).
ssh_start() {
  local d=$1 n=$2 scnf=$3 secs=$4
  shift 4
  rm -f "$d/$n.pid"
  : >>"$d/$n.log"
  (cd "$d" && exec env OPENSSL_CONF="$scnf" "$@" timeout -k 3 "$secs" "$sshd" -D -e \
     -f "$d/$n.sshd_config") </dev/null >>"$d/$n.log" 2>>"$d/$n.log" &
  ssh_timeout_pid=$!
  sshd_pid=
  for _ in $(seq 100); do
    if [ -s "$d/$n.pid" ] && grep -q '^Server listening on ' "$d/$n.log"; then
      sshd_pid=$(cat "$d/$n.pid")
      return 0
    fi
    kill -0 "$ssh_timeout_pid" 2>/dev/null || break
    sleep 0.1
  done
  grep -q 'Address already in use' "$d/$n.log" && return 2
  return 1
}

# ssh_opts DIR PORT CIPHER: sets the array ssh_o to the client's options for the server on PORT:
# no user or system config (-F /dev/null), the throwaway user key only, no agent, the host key
# pinned in DIR/known_hosts.PORT (written here), the one CIPHER, no tty (and, -F /dev/null, no
# multiplexing unless the caller asks for it).
ssh_opts() {
  local d=$1 p=$2 c=$3
  echo "[127.0.0.1]:$p $(cut -d' ' -f1,2 "$d/host_key.pub")" >"$d/known_hosts.$p"
  ssh_o=(-F /dev/null -T -p "$p" -l "$(id -un)" -i "$d/user_key"
    -o IdentitiesOnly=yes -o IdentityAgent=none -o BatchMode=yes -o PasswordAuthentication=no
    -o StrictHostKeyChecking=yes -o "UserKnownHostsFile=$d/known_hosts.$p"
    -o GlobalKnownHostsFile=/dev/null -o HostKeyAlgorithms=ssh-ed25519
    -o KexAlgorithms=curve25519-sha256 -o "Ciphers=$c" -o Compression=no
    -o ConnectTimeout=10 -o ForwardAgent=no
    -o ForwardX11=no -o ClearAllForwardings=yes -o UpdateHostKeys=no)
}

# ssh_conn_pid LOG FROM: the pid of the last "Forked child N." in LOG from line FROM on (sshd's
# per-connection process), empty if none. (OpenSSH ends the lines it writes to stderr with CR LF.)
ssh_conn_pid() {
  tail -n "+$2" "$1" | tr -d '\r' | sed -n 's/^debug1: Forked child \([0-9]*\)\.$/\1/p' | tail -n1
}

# ssh_wait_gone PID SECONDS: until PID no longer exists (reaped, not a zombie); 1 on timeout.
ssh_wait_gone() {
  for _ in $(seq $(($2 * 20))); do
    [ -e "/proc/$1" ] || return 0
    sleep 0.05
  done
  return 1
}

# ssh_alg_of CIPHER: the EVP name aesfast logs for an OpenSSH cipher ("-" for one aesfast does not
# offer, such as chacha20-poly1305@openssh.com; "?" for an unknown one).
ssh_alg_of() {
  case $1 in
    aes128-ctr) echo AES-128-CTR ;; aes192-ctr) echo AES-192-CTR ;; aes256-ctr) echo AES-256-CTR ;;
    aes128-gcm@openssh.com) echo AES-128-GCM ;; aes256-gcm@openssh.com) echo AES-256-GCM ;;
    chacha20-poly1305@openssh.com) echo - ;;
    *) echo "?" ;;
  esac
}

# ssh_keyings LOG ALG: OpenSSH logs "debug1: rekey in|out after N blocks" right after it keys a
# direction's cipher (packet.c, ssh_set_newkeys: cipher_init, then that line). For each such line
# of LOG (not "[preauth]": sshd's pre-auth child's, relayed by its monitor), prints "ok PID KERNEL"
# if the line before it is aesfast's key setup of ALG (an awk regular expression: AES-128-GCM, or
# [^ ]+ for any) from PID, else "miss LINE-BEFORE". LOG is the process's stderr and its
# AESFAST_DEBUG=file: at once (both O_APPEND, one write(2) a line: a process's lines keep order).
ssh_keyings() {
  awk -v alg="$2" '
    { sub(/\r$/, "") } # OpenSSH ends its stderr lines with CR LF
    /^debug1: rekey (in|out) after [0-9]+ blocks$/ {
      if (prev ~ ("^[^ ]+ pid [0-9]+ aesfast: " alg ": key setup on kernel [^ ]+$")) {
        n = split(prev, f, " "); print "ok", f[3], f[n]
      } else {
        print "miss", prev
      }
    }
    { prev = $0 }' "$1"
}
