#!/bin/sh
# debian/rules' check (skipped under DEB_BUILD_OPTIONS=nocheck): the module just built loads into
# the openssl program, is active, and its AES-256-CTR equals the default provider's.
#   debian/smoke-test.sh BUILDDIR
set -eu
dir=$1
empty=$(mktemp)
trap 'rm -f "$empty"' EXIT
export OPENSSL_CONF="$empty"
openssl list -providers -provider-path "$dir" -provider aesfast | grep -q 'status: active'
key=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
iv=f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff
ours=$(printf 'aesfast smoke test, 41 bytes of plaintext' \
  | openssl enc -aes-256-ctr -K $key -iv $iv -provider-path "$dir" -provider aesfast | od -An -tx1)
ref=$(printf 'aesfast smoke test, 41 bytes of plaintext' \
  | openssl enc -aes-256-ctr -K $key -iv $iv -provider default | od -An -tx1)
[ -n "$ours" ] && [ "$ours" = "$ref" ]
echo "debian/smoke-test.sh: aesfast loads from $dir and matches the default provider"
