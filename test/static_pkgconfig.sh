#!/bin/sh
# The static library as installed: libaesfast.a, aesfast_provider.h and aesfast.pc are laid out
# under a scratch prefix exactly where aesfast.pc says they are, examples/static_builtin.c is
# compiled and linked with nothing but `pkg-config --static --cflags --libs aesfast`, and the
# program it gives then passes test/static_test.sh.
#
#   test/static_pkgconfig.sh PKG_CONFIG PC_FILE ARCHIVE HEADER EXAMPLE_C STATIC_TEST_ARGS...
#
# STATIC_TEST_ARGS are static_test.sh's NM, then VERSION TIER... (ARCHIVE and the program are
# put in between). AESFAST_TEST_CC is the C compiler command (split on blanks);
# AESFAST_TEST_PKG_CONFIG_LIBDIR, if set, is the pkg-config search path of a cross build.
set -u
if [ $# -lt 8 ]; then
  echo "usage: $0 PKG_CONFIG PC ARCHIVE HEADER EXAMPLE_C NM VERSION TIER..." >&2
  exit 2
fi
pkgconfig=$1 pc=$2 archive=$3 header=$4 example=$5 nm=$6
shift 6
fail() { echo "static_pkgconfig: FAIL: $*"; exit 1; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/pc"
sed "s|^prefix=.*|prefix=$tmp/prefix|" "$pc" >"$tmp/pc/aesfast.pc"
if [ -n "${AESFAST_TEST_PKG_CONFIG_LIBDIR:-}" ]; then
  PKG_CONFIG_LIBDIR=$tmp/pc:$AESFAST_TEST_PKG_CONFIG_LIBDIR
  export PKG_CONFIG_LIBDIR
else
  PKG_CONFIG_PATH=$tmp/pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
  export PKG_CONFIG_PATH
fi
libdir=$("$pkgconfig" --variable=libdir aesfast) || fail "pkg-config cannot read aesfast.pc"
incdir=$("$pkgconfig" --variable=includedir aesfast) || fail "no includedir"
case $libdir$incdir in
  "$tmp/prefix/"*"$tmp/prefix/"*) ;;
  *) fail "aesfast.pc's paths are not under \${prefix}: $libdir $incdir" ;;
esac
mkdir -p "$libdir" "$incdir"
{ cp "$archive" "$libdir/" && cp "$header" "$incdir/"; } || fail "cannot lay out the prefix"

flags=$("$pkgconfig" --static --cflags --libs aesfast) || fail "pkg-config --static aesfast"
echo "static_pkgconfig: pkg-config --static --cflags --libs aesfast: $flags"
# shellcheck disable=SC2086 # a command and its arguments; the flags, split on blanks
${AESFAST_TEST_CC:-cc} -Wall -Wextra -Werror -o "$tmp/static_builtin" "$example" $flags \
  || fail "compiling the example with pkg-config's flags"
exec sh "$(dirname "$0")/static_test.sh" "$nm" "$libdir/libaesfast.a" "$tmp/static_builtin" "$@"
