#!/usr/bin/env bash
# Installs what aesfast needs to build, test and benchmark on Debian 12 (run as root).
#   test/install-deps.sh            native build: compiler, Meson, Ninja, libcrypto headers,
#                                   nginx and curl for the TLS test (test/tls_test.sh), and
#                                   OpenSSH's server and client for the SSH test (test/ssh_test.sh)
#   test/install-deps.sh --arm64    also the aarch64 cross compiler, qemu-user and arm64 libcrypto
#   test/install-deps.sh --src      also a deb-src entry (bookworm, trixie, sid, experimental), so
#                                   that `apt-get source openssl=V` works for 3.0, 3.5, 3.6 and 4.0
#   test/install-deps.sh --fuzz     also clang and libFuzzer (libclang-rt-14-dev), for fuzz/run.sh
#   test/install-deps.sh --bench    also h2load (nghttp2-client) and gnuplot (gnuplot-nox), for
#                                   bench/tls.sh and bench/run.sh's plots
# Each step checks first and does nothing when the thing is already there.
set -euo pipefail

want_arm64=0 want_src=0 want_fuzz=0 want_bench=0
for a in "$@"; do
  case "$a" in
    --arm64) want_arm64=1 ;;
    --src) want_src=1 ;;
    --fuzz) want_fuzz=1 ;;
    --bench) want_bench=1 ;;
    *) echo "install-deps: unknown option $a" >&2; exit 2 ;;
  esac
done

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
updated=0
apt_update() { [ $updated -eq 1 ] || { $SUDO apt-get update -qq; updated=1; }; }
missing() { # prints the packages among "$@" that dpkg does not report installed
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
  done
}
install() {
  local m
  m=$(missing "$@")
  [ -z "$m" ] && return 0
  apt_update
  # shellcheck disable=SC2086
  $SUDO apt-get install -y -qq --no-install-recommends $m >/dev/null
}

had_nginx=$(missing nginx)
had_sshd=$(missing openssh-server)
install gcc libc6-dev make meson ninja-build pkg-config libssl-dev openssl perl ca-certificates valgrind \
        nginx curl python3 xz-utils dpkg-dev
# The SSH test starts its own sshd on a free loopback port, from its own sshd_config.
install openssh-server openssh-client
# The man page's test (groff) and the Debian package's (dpkg-buildpackage with debhelper); the
# wheel host's Python.h (test/wheel_host_test.py).
install groff-base debhelper python3-dev
# The binding test (test/binding_test.py): Debian's python3-cryptography, on the system libcrypto.
install python3-cryptography
# The TLS test starts its own nginx on a free loopback port; the service that Debian's package
# starts on port 80 where an init system runs is not wanted: stop it again, if this script just
# installed it.
if [ -n "$had_nginx" ] && command -v systemctl >/dev/null 2>&1 \
   && systemctl is-active --quiet nginx 2>/dev/null; then
  $SUDO systemctl disable --now nginx >/dev/null 2>&1 || true
fi
# Likewise the ssh service that Debian's openssh-server starts on port 22, if this script just
# installed it (a machine that had it before keeps it: someone may be logged in through it).
if [ -n "$had_sshd" ] && command -v systemctl >/dev/null 2>&1 \
   && systemctl is-active --quiet ssh 2>/dev/null; then
  $SUDO systemctl disable --now ssh >/dev/null 2>&1 || true
fi

if [ $want_arm64 -eq 1 ]; then
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $SUDO dpkg --add-architecture arm64
    updated=0
  fi
  install gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user libssl-dev:arm64
fi

if [ $want_fuzz -eq 1 ]; then
  install clang libclang-rt-14-dev
fi

if [ $want_bench -eq 1 ]; then
  install nghttp2-client gnuplot-nox procps
fi

# The OpenSSL series whose source test/build-openssl.sh fetches, and the suites that offer them:
# 3.0 (bookworm), 3.5 (trixie), the newest 3.x (sid), 4.0 (experimental). deb-src only: no binary
# package comes from trixie, sid or experimental, and apt-get install is untouched.
src_suites="bookworm trixie sid experimental"
has_src() { # has_src SERIES...: apt-cache showsrc openssl lists a version of each
  local v list
  list=$(apt-cache showsrc openssl 2>/dev/null | sed -n 's/^Version: *\([0-9]*:\)\{0,1\}//p')
  for v in "$@"; do grep -q "^${v//./\\.}\." <<<"$list" || return 1; done
}
if [ $want_src -eq 1 ] && ! has_src 3.5 3.6 4.0; then
  # A deb-src twin of the main archive's stanza (the first one), with bookworm, trixie, sid and
  # experimental, so that OpenSSL 3.5's, 3.6's and 4.0's source packages can be fetched. The host
  # name is read from the machine's own file. An entry of an earlier run gets the suites it lacks.
  src=/etc/apt/sources.list.d/debian.sources
  out=/etc/apt/sources.list.d/aesfast-src.sources
  if [ -f "$out" ]; then
    grep -q "^Suites: $src_suites\$" "$out" || $SUDO sed -i "s/^Suites:.*/Suites: $src_suites/" "$out"
  elif [ -f "$src" ]; then
    awk 'BEGIN{RS=""; ORS="\n\n"} NR==1{print; exit}' "$src" \
      | sed -e 's/^Types:.*/Types: deb-src/' -e "s/^Suites:.*/Suites: $src_suites/" \
      | $SUDO tee "$out" >/dev/null
  elif [ -f /etc/apt/sources.list ]; then
    # One-line format (machines installed from the ISO): the URI of the first main-archive line.
    uri=$(awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++)
             if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' /etc/apt/sources.list)
    if [ -n "$uri" ]; then
      printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n' \
        "$uri" "$src_suites" /usr/share/keyrings/debian-archive-keyring.gpg | $SUDO tee "$out" >/dev/null
    fi
  fi
  updated=0
  apt_update
fi
