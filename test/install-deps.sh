#!/usr/bin/env bash
# Installs what aesfast needs to build, test and benchmark on Debian 12 (run as root).
#   test/install-deps.sh            native build: compiler, Meson, Ninja, libcrypto headers, and
#                                   nginx and curl for the TLS test (test/tls_test.sh)
#   test/install-deps.sh --arm64    also the aarch64 cross compiler, qemu-user and arm64 libcrypto
#   test/install-deps.sh --src      also a deb-src entry, so `apt-get source openssl` works
#   test/install-deps.sh --fuzz     also clang and libFuzzer (libclang-rt-14-dev), for fuzz/run.sh
# Each step checks first and does nothing when the thing is already there.
set -euo pipefail

want_arm64=0 want_src=0 want_fuzz=0
for a in "$@"; do
  case "$a" in
    --arm64) want_arm64=1 ;;
    --src) want_src=1 ;;
    --fuzz) want_fuzz=1 ;;
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
install gcc libc6-dev make meson ninja-build pkg-config libssl-dev openssl perl ca-certificates valgrind \
        nginx curl python3 xz-utils dpkg-dev
# The TLS test starts its own nginx on a free loopback port; the service that Debian's package
# starts on port 80 where an init system runs is not wanted: stop it again, if this script just
# installed it.
if [ -n "$had_nginx" ] && command -v systemctl >/dev/null 2>&1 \
   && systemctl is-active --quiet nginx 2>/dev/null; then
  $SUDO systemctl disable --now nginx >/dev/null 2>&1 || true
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

if [ $want_src -eq 1 ] && ! apt-cache showsrc openssl 2>/dev/null | grep -q '^Version: 3\.5'; then
  # A deb-src twin of the main archive's stanza (the first one), with bookworm and trixie, so that
  # OpenSSL 3.5's source package can be fetched. The host name is read from the machine's own file.
  src=/etc/apt/sources.list.d/debian.sources
  out=/etc/apt/sources.list.d/aesfast-src.sources
  if [ -f "$src" ] && [ ! -f "$out" ]; then
    awk 'BEGIN{RS=""; ORS="\n\n"} NR==1{print; exit}' "$src" \
      | sed -e 's/^Types:.*/Types: deb-src/' -e 's/^Suites:.*/Suites: bookworm trixie/' \
      | $SUDO tee "$out" >/dev/null
  elif [ ! -f "$out" ] && [ -f /etc/apt/sources.list ]; then
    # One-line format (machines installed from the ISO): the URI of the first main-archive line.
    uri=$(awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++)
             if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' /etc/apt/sources.list)
    if [ -n "$uri" ]; then
      printf 'Types: deb-src\nURIs: %s\nSuites: bookworm trixie\nComponents: main\nSigned-By: %s\n' \
        "$uri" /usr/share/keyrings/debian-archive-keyring.gpg | $SUDO tee "$out" >/dev/null
    fi
  fi
  updated=0
  apt_update
fi
