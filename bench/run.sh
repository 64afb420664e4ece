#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine (as root) or a developer's tree: installs what is
# missing, builds aesfast, loads it into OpenSSL, encrypts and decrypts through it, and prints the
# side-by-side benchmark against OpenSSL's default provider: the system OpenSSL 3.0 and an
# OpenSSL 3.5 built from Debian's source package (cached after the first run).
#
#   bench/run.sh [--no-openssl35] [BENCH_ARGS...]     e.g. bench/run.sh --csv
set -euo pipefail
cd "$(dirname "$0")/.."

openssl35=1
args=()
for a in "$@"; do
  case "$a" in
    --no-openssl35) openssl35=0 ;;
    *) args+=("$a") ;;
  esac
done

step() { printf '\n== %s\n' "$*"; }

step "Installing what is missing"
if [ $openssl35 -eq 1 ]; then test/install-deps.sh --src; else test/install-deps.sh; fi
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
  | grep -Ei 'aesfast:|ctr.*aesfast'

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

step "Benchmark against the system OpenSSL's default provider"
build/bench/bench "${args[@]}"

if [ -n "$tree" ]; then
  step "Benchmark against OpenSSL 3.5's default provider ($tree)"
  LD_LIBRARY_PATH=$tree build/bench/bench "${args[@]}"
fi
